"""Moved to ``skilib.engine.errors``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.errors is deprecated; import skilib.engine.errors", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.engine.errors")
