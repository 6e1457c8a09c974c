"""Moved to ``skilib.data.forcedata``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.forcedata is deprecated; import skilib.data.forcedata", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.data.forcedata")
