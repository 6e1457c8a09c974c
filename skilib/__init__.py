"""skilib: a multibody dynamic model of cross-country ski skating.

A reimplementation of Bruzzo (2012), *A multibody dynamic model of the cross-country
ski-skating technique*, and models beyond it, laid out as

- ``skilib.engine``: 3-D rigid bodies in absolute coordinates (ZXZ Euler angles or Euler
  parameters), constraints and drivers, forces, the equations of motion with Lagrange
  multipliers (thesis eq. 101) with Baumgarte stabilization or projection, generated code;
- ``skilib.strokes``: what every skating model shares: one stroke with friction at zero
  speed, its works and output table, the laws of a stroke, runs of alternating strokes and
  the periodic stroke;
- ``skilib.models``: one subpackage per skating model: ``thesis`` (the thesis's three-body
  skier), ``free`` (the free skater) and ``edge`` (the edged skater);
- ``skilib.data``: force-plate data and the Fourier fit (eq. 102);
- ``skilib.studies``: parameter sweeps, sensitivity analysis, the optimum technique and the
  technique of least physiological cost;
- ``skilib.plot``: drawings and animations;
- ``skilib.vocabulary``: the name, unit and meaning of every column and number the package
  returns (every result's ``units``).

Every public name of these subpackages is also reachable here (``skilib.simulate_run``,
``skilib.FreeSkaterParams``, ...); each has one home, the module that defines it.
"""
import importlib

from . import engine
from .engine import *  # noqa: F401,F403 - the engine's public names at top level
from .engine import __all__ as _engine_all

# The subpackages whose names are reachable here, and those names (their ``__all__`` without
# the modules; a test checks both lists).  They load on first use, so that ``import
# skilib.engine`` stays free of pandas, Dask and SALib (PEP 562 module __getattr__).
_NAMES = {
    "skilib.strokes": (
        "SimResult", "Stroke", "Budget", "WorkLedger", "extra_states", "output_grid", "stroke_frame", "SIDES",
        "side_of", "linear", "smooth_turn", "power_law", "dip", "mirrored", "Skating", "RunSettings", "RunTables",
        "run_strokes", "stroke_summary", "NoSteadyState", "PeriodicStroke", "periodic_stroke",
        "secant_fixed_point", "newton_fixed_point", "FlatSki", "PlasticChange", "plastic_change", "check_fields",
        "SLOPE_RANGE", "check_slope", "slope_factors", "course_gravity", "cost_of_work"),
    "skilib.models.thesis": (
        "SkierParams", "SkierModel", "push_plane_direction", "ski_heading", "stand_in_push_force", "simulate_run",
        "simulate_phase", "stroke_change", "STROKE_CHANGE_RULES", "SteadyState", "steady_state", "Calibration",
        "calibrate_force_scale", "power_breakdown", "energy_account", "loss_ranking", "resistance_power",
        "power_balance_speed", "leg_laws_for",
        "with_leg_laws", "Skeleton", "skeleton", "read_run", "write_run", "Motion", "inverse_dynamics",
        "motion_from_c3d", "motion_from_result"),
    "skilib.models.free": (
        "FreeSkaterParams", "FreeLaws", "default_laws", "FreeSkaterModel", "simulate_free", "touch_down",
        "FreeSteadyState", "free_steady_state"),
    "skilib.models.edge": (
        "EdgeSkaterParams", "EdgeSkaterModel", "simulate_edge", "SkaterFalls", "edge_steady_state", "EdgeSteadyState",
        "SkiStopped",
        "EDGE_WORK_TERMS", "EDGE_PARAMETER_BOUNDS", "BalanceRule", "hof_rule", "touchdown_measure"),
    "skilib.data": (
        "load_force_data", "default_data_path", "default_metadata_path", "read_force_data", "write_force_data",
        "detect_pushes", "find_pushes", "representative_push", "RepresentativePush", "fit_push", "PushForce",
        "push_force_from_data", "default_push_fit", "default_push_force"),
    "skilib.studies": (
        "sweep", "read_sweep", "SweepResult", "sweep_skier", "SkierRun", "FreeRun", "optimize_technique",
        "Optimum", "required_power", "RequiredPower", "speed_power_front", "sobol_design", "sobol_indices",
        "choose_technique"),
}
_SUBPACKAGES = {"strokes": "skilib.strokes", "models": "skilib.models", "data": "skilib.data",
                "studies": "skilib.studies", "plot": "skilib.plot", "vocabulary": "skilib.vocabulary"}
_LAZY = {name: package for package, names in _NAMES.items() for name in names}


def __getattr__(name):
    if name in _SUBPACKAGES:
        value = importlib.import_module(_SUBPACKAGES[name])
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'skilib' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_SUBPACKAGES))


__version__ = "0.3.0"
__all__ = list(_engine_all) + list(_LAZY) + ["engine", *_SUBPACKAGES, "__version__"]
