"""What every skating model shares: the integration of one stroke with friction at zero speed
(``stroke``), its work–energy bookkeeping (``work``) and output table (``frame``), the laws of a
stroke and the sides (``laws``), the run of alternating strokes joined by the model's
touch-down (``run``), the periodic stroke as the fixed point of the stroke map (``periodic``),
what a run returns (``result``), a flat ski's kinematics (``ski``), the plastic change of ski
(``touchdown``) and a one-coordinate skier's sliding segment by quadrature (``quadrature``).  A model supplies its system, its touch-down and its outputs
(``skilib.strokes.run.Skating``); see ``skilib.models``.
"""
from . import frame, laws, params, periodic, quadrature, result, run, ski, stroke, touchdown, work
from .frame import output_grid, stroke_frame
from .laws import SIDES, dip, linear, mirrored, power_law, side_of, smooth_turn
from .params import SLOPE_RANGE, check_fields, check_slope, course_gravity, slope_factors
from .periodic import NoSteadyState, PeriodicStroke, newton_fixed_point, periodic_stroke, secant_fixed_point
from .result import SimResult
from .run import RunSettings, RunTables, Skating, run_strokes, stroke_summary
from .ski import FlatSki
from .stroke import Budget, Stroke
from .touchdown import PlasticChange, plastic_change
from .work import WorkLedger, cost_of_work, extra_states

__all__ = ["SimResult", "Stroke", "Budget", "WorkLedger", "extra_states", "output_grid", "stroke_frame", "SIDES",
           "side_of", "linear", "smooth_turn", "power_law", "dip", "mirrored", "Skating", "RunSettings", "RunTables",
           "run_strokes", "stroke_summary", "NoSteadyState", "PeriodicStroke", "periodic_stroke",
           "secant_fixed_point", "newton_fixed_point", "FlatSki", "PlasticChange", "plastic_change", "check_fields",
           "SLOPE_RANGE", "check_slope", "slope_factors", "course_gravity", "cost_of_work", "frame", "laws", "params",
           "periodic", "quadrature", "result", "run", "ski", "stroke", "touchdown", "work"]
