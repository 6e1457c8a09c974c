"""Studies over many runs: parallel parameter sweeps of any function of a parameter row
(``sweeps``; the skier's own in ``skier_sweep``) and variance-based sensitivity analysis
(``sensitivity``).  Dask, SALib and the skier model are imported only when used."""
from . import sensitivity, sweeps
from .sweeps import SweepResult, read_sweep, sweep

__all__ = ["sensitivity", "sweeps", "SweepResult", "read_sweep", "sweep"]
