"""Moved to ``skilib.engine.timefunctions``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.timefunctions is deprecated; import skilib.engine.timefunctions", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.engine.timefunctions")
