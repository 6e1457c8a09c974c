"""Moved to ``skilib.engine.constraints``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.constraints is deprecated; import skilib.engine.constraints", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.engine.constraints")
