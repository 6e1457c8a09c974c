"""Moved to ``skilib.engine.solver``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.solver is deprecated; import skilib.engine.solver", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.engine.solver")
