"""Moved to ``skilib.engine.system``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.system is deprecated; import skilib.engine.system", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.engine.system")
