"""Moved to ``skilib.data.fourier``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.fourier is deprecated; import skilib.data.fourier", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.data.fourier")
