"""Moved to ``skilib.engine.bodies``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.bodies is deprecated; import skilib.engine.bodies", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.engine.bodies")
