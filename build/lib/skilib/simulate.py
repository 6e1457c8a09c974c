"""Moved to ``skilib.skier.simulate``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.simulate is deprecated; import skilib.skier.simulate", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.skier.simulate")
