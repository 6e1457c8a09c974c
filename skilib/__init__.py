"""skilib: a multibody dynamic model of cross-country ski skating.

A reimplementation of Bruzzo (2012), *A multibody dynamic model of the cross-country
ski-skating technique*, in four subpackages:

- ``skilib.engine``: 3-D rigid bodies in absolute coordinates (ZXZ Euler angles or Euler
  parameters), constraints and drivers, forces, the equations of motion with Lagrange
  multipliers (thesis eq. 101) with Baumgarte stabilization or projection, generated code;
- ``skilib.skier``: the thesis's three-body skier and its runs;
- ``skilib.data``: force-plate data and the Fourier fit (eq. 102);
- ``skilib.studies``: parameter sweeps and sensitivity analysis.

The engine's names and the skier's entry points are also available at top level.
"""
import importlib

from . import engine
from .engine import *  # noqa: F401,F403 - the engine's public names at top level
from .engine import __all__ as _engine_all

# The applications load on first use, so that ``import skilib.engine`` stays free of
# pandas, Dask and SALib (PEP 562 module __getattr__).
_LAZY = {
    "data": ("skilib.data", None), "skier": ("skilib.skier", None), "studies": ("skilib.studies", None),
    "forcedata": ("skilib.data.forcedata", None), "fourier": ("skilib.data.fourier", None),
    "sensitivity": ("skilib.studies.sensitivity", None), "sweeps": ("skilib.studies.sweeps", None),
    **{m: (f"skilib.engine.{m}", None) for m in ("bodies", "codegen", "constraints", "errors", "forces",
                                                  "kinematics", "rotation", "solver", "system", "timefunctions")},
    "simulate": ("skilib.skier.simulate", None),
    "SimResult": ("skilib.skier", "SimResult"), "SkierModel": ("skilib.skier", "SkierModel"),
    "SkierParams": ("skilib.skier", "SkierParams"), "push_plane_direction": ("skilib.skier", "push_plane_direction"),
    "simulate_phase": ("skilib.skier", "simulate_phase"), "steady_state": ("skilib.skier", "steady_state"),
    "SteadyState": ("skilib.skier", "SteadyState"), "simulate_run": ("skilib.skier", "simulate_run"),
    "ski_heading": ("skilib.skier", "ski_heading"), "stand_in_push_force": ("skilib.skier", "stand_in_push_force"),
    "FreeSkaterParams": ("skilib.skier", "FreeSkaterParams"), "FreeLaws": ("skilib.skier", "FreeLaws"),
    "simulate_free": ("skilib.skier", "simulate_free"), "free_steady_state": ("skilib.skier", "free_steady_state"),
    "calibrate_force_scale": ("skilib.skier", "calibrate_force_scale"),
    "power_breakdown": ("skilib.skier", "power_breakdown"),
    "resistance_power": ("skilib.skier", "resistance_power"),
    "power_balance_speed": ("skilib.skier", "power_balance_speed"),
    "optimize_technique": ("skilib.studies.optimum", "optimize_technique"),
    "read_sweep": ("skilib.studies", "read_sweep"), "sweep": ("skilib.studies", "sweep"),
}


def __getattr__(name):
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'skilib' has no attribute {name!r}") from None
    mod = importlib.import_module(module)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"
__all__ = list(_engine_all) + [k for k in _LAZY if "." not in _LAZY[k][0][7:] or _LAZY[k][1]] + ["engine", "__version__"]
