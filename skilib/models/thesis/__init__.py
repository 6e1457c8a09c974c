"""The thesis's three-body skier (Bruzzo 2012, ch. 4–5), built from ``skilib.engine`` and run by
the stroke machinery every skating model shares (``skilib.strokes``).

params (``SkierParams``, the leg laws of eqs. 187–188, headings), model (``SkierModel``:
bodies, constraints C1–C17, forces), rows (its rows and works), push (the push-off), run
(``simulate_run``, ``simulate_phase``, the stroke change), steady (``steady_state``: the
periodic stroke of a long run), calibrate (``calibrate_force_scale``: the push-off scale that
gives the thesis's steady speed), energy (``power_breakdown``, ``energy_account``: the periodic
stroke's energy table, ``loss_ranking``: its losses switched off in turn, the friction-and-drag
power balance), cases (the thesis's tables 7–9 and every number the compendium compares with), laws
(leg laws for a phase time), summary (per-run summaries), markers (the skeleton drawn and
written to C3D), c3d (a run as a C3D file), inverse (the leg force from a measured motion),
artefacts (what the model's choices do to the thesis's numbers), technique (the skier as the
optimizer sees it: ``THESIS_BOUNDS``).
"""
from . import artefacts, c3d, calibrate, cases, energy, inverse, laws, markers, model, params, push, rows, run
from . import steady, summary, technique
from .c3d import read_run, write_run
from .calibrate import Calibration, calibrate_force_scale
from .energy import energy_account, loss_ranking, power_balance_speed, power_breakdown, resistance_power
from .inverse import Motion, inverse_dynamics, motion_from_c3d, motion_from_result
from .laws import leg_laws_for, with_leg_laws
from .markers import Skeleton, skeleton
from .model import SkierModel
from .params import SkierParams, push_plane_direction, ski_heading
from .push import stand_in_push_force
from .run import STROKE_CHANGE_RULES, simulate_phase, simulate_run, stroke_change
from .steady import SteadyState, steady_state

__all__ = ["SkierParams", "SkierModel", "push_plane_direction", "ski_heading", "stand_in_push_force",
           "simulate_run", "simulate_phase", "stroke_change", "STROKE_CHANGE_RULES", "SteadyState", "steady_state",
           "Calibration", "calibrate_force_scale", "power_breakdown", "energy_account", "loss_ranking", "resistance_power",
           "power_balance_speed", "leg_laws_for", "with_leg_laws", "Skeleton", "skeleton", "read_run", "write_run", "Motion",
           "inverse_dynamics", "motion_from_c3d", "motion_from_result",
           "artefacts", "c3d", "calibrate", "cases", "energy", "inverse", "laws", "markers", "model", "params",
           "push", "rows", "run", "steady", "summary", "technique"]
