"""Moved to ``skilib.engine.kinematics``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.kinematics is deprecated; import skilib.engine.kinematics", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.engine.kinematics")
