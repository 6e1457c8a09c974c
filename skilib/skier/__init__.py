"""The thesis's three-body skier (ch. 4–5), built from ``skilib.engine``.

params (``SkierParams``, the leg laws of eqs. 187–188, headings), model (``SkierModel``:
bodies, constraints C1–C17, forces), push (the push-off), stroke (one stroke with
stick/slip friction), work (work–energy bookkeeping by name), frame (the output table),
run (``simulate_run``, ``simulate_phase``, the stroke change), result (``SimResult``),
steady (``steady_state``: the periodic stroke of a long run), calibrate
(``calibrate_force_scale``: the push-off scale that gives the thesis's steady speed), energy
(``power_breakdown``, the friction-and-drag power balance);
cases (the thesis's tables 7–9 and every number the compendium compares with), laws
(leg laws for a phase time), summary (per-run summaries).
"""
from . import cases, energy, laws, summary
from .free import FreeLaws, FreeSkaterModel, FreeSkaterParams
from .free_run import FreeSteadyState, free_steady_state, simulate_free
from .model import SkierModel
from .params import ROTATIONS, SIDES, SkierParams, push_plane_direction, ski_heading
from .push import stand_in_push_force
from .result import SimResult
from .run import simulate_phase, simulate_run
from .steady import NoSteadyState, SteadyState, steady_state
from .calibrate import Calibration, calibrate_force_scale
from .energy import power_balance_speed, power_breakdown, resistance_power

__all__ = ["FreeLaws", "FreeSkaterModel", "FreeSkaterParams", "FreeSteadyState", "free_steady_state",
           "simulate_free", "cases", "laws", "summary", "ROTATIONS", "SIDES", "SkierModel", "SkierParams", "push_plane_direction", "ski_heading",
           "SimResult", "simulate_phase", "simulate_run", "stand_in_push_force", "SteadyState", "steady_state",
           "NoSteadyState", "Calibration", "calibrate_force_scale", "energy", "power_breakdown", "resistance_power",
           "power_balance_speed"]
