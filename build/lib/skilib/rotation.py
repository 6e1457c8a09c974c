"""Moved to ``skilib.engine.rotation``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.rotation is deprecated; import skilib.engine.rotation", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.engine.rotation")
