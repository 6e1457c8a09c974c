"""Studies over many runs of the models: parallel parameter sweeps of any function of a parameter
row (``sweeps``; the thesis's skier's in ``skier_sweep``, the free skater's row function in
``free_sweep``), variance-based sensitivity analysis (``sensitivity``), the fastest technique for
a power (``optimum``), the technique of least whole physiological cost and its trends
(``technique_choice``) and the notebooks' parameters (``notebook``).  Dask, SALib and the models
are imported only when used."""
from . import free_sweep, notebook, optimum, sensitivity, skier_sweep, sweeps, technique_choice
from .free_sweep import FreeRun
from .optimum import Optimum, RequiredPower, optimize_technique, required_power, speed_power_front
from .sensitivity import sobol_design, sobol_indices
from .skier_sweep import SkierRun, sweep_skier
from .sweeps import SweepResult, read_sweep, sweep
from .technique_choice import choose_technique

__all__ = ["sweep", "read_sweep", "SweepResult", "sweep_skier", "SkierRun", "FreeRun", "optimize_technique",
           "Optimum", "required_power", "RequiredPower", "speed_power_front", "choose_technique", "sobol_design",
           "sobol_indices",
           "free_sweep", "notebook", "optimum", "sensitivity", "skier_sweep", "sweeps", "technique_choice"]
