"""Moved to ``skilib.engine.forces``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.forces is deprecated; import skilib.engine.forces", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.engine.forces")
