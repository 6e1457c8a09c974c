"""Moved to ``skilib.studies.sensitivity``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.sensitivity is deprecated; import skilib.studies.sensitivity", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.studies.sensitivity")
