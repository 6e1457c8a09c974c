"""Moved to ``skilib.engine.codegen``; this path keeps old imports working and warns."""
import importlib
import sys
import warnings

warnings.warn("skilib.codegen is deprecated; import skilib.engine.codegen", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = importlib.import_module("skilib.engine.codegen")
