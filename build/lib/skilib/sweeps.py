"""Moved to ``skilib.studies.sweeps``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.sweeps is deprecated; import skilib.studies.sweeps", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.studies.sweeps")
