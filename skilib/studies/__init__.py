"""Studies over many runs: parallel parameter sweeps (``sweeps``) and variance-based
sensitivity analysis (``sensitivity``).  Dask and SALib are imported only when used."""
from . import sensitivity, sweeps
from .sweeps import read_sweep, sweep

__all__ = ["sensitivity", "sweeps", "read_sweep", "sweep"]
