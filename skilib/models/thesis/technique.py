"""The thesis's skier as the optimizer sees it (book: The optimum technique): its technique
parameters with their human bounds (``THESIS_BOUNDS``), the parameters it starts from, and the
keywords of its steady state.  It has no admissibility margins: its power is the push-off's, and
without a budget the optimizer finds the fastest technique for the push-off force it is given
(its measured force), the thesis's own question (Bruzzo 2012, ch. 6).

``skilib.studies.optimum`` reads every model through the same names (its registry ``_MODELS``
imports this module the first time a study asks for the thesis's skier): ``PARAMS``,
``TECHNIQUE_BOUNDS``, ``PARAMETER_BOUNDS`` (and ``PARAMETER_BOUNDS_NAME``), ``default_params()``,
``SET_BY_OPTIMIZER``, ``option_functions()``, ``steady(params, options, warm)``, ``warm_of(ss)``,
``MARGINS``, ``margins(ss)`` and ``inequalities(names, params, row)``.
"""
from __future__ import annotations

from .params import BOUNDS as PARAMETER_BOUNDS
from .params import SkierParams
from .run import simulate_run
from .steady import steady_state

__all__ = ["THESIS_BOUNDS"]

#: the thesis's skier: skating angle 20–80°, phase time 0.4–2 s, and C_ext, C_rot within the
#: leg's reach for every phase time in the range: ℓ(T) = ℓ0 + C_ext T ≤ L2 + L3 = 0.9 m with
#: ℓ0 = 0.5 m and T ≤ 2 s gives C_ext ≤ 0.2 m/s; γ(T) = γ0 + C_rot T < 90° with γ0 = 0 gives
#: C_rot < 45°/s (table 6's leg, table 9's ℓ0 and γ0).
THESIS_BOUNDS = {"skating_angle_deg": (20.0, 80.0), "phase_time": (0.4, 2.0), "c_ext": (0.0, 0.2),
                 "c_rot_deg": (0.0, 44.0)}

#: the interface ``skilib.studies.optimum`` reads: the parameters' class, the default technique
#: bounds, the plausible ranges (``PARAMETER_BOUNDS``, imported above: ``params.BOUNDS``) and
#: that table's name in ``params``, for messages
PARAMS = SkierParams
TECHNIQUE_BOUNDS = THESIS_BOUNDS
PARAMETER_BOUNDS_NAME = "BOUNDS"
#: the keywords of the steady state that the optimizer sets itself (the parameters, one stroke
#: from u, progress bars): not ``options``
SET_BY_OPTIMIZER = frozenset({"params", "strokes", "v0", "progress"})
#: the margins of a periodic stroke the optimizer logs: none
MARGINS = ()
#: what the optimizer may ask of this model: the positive and negative work of each actuator
#: (the budgets other than "net"), the leg's extension speed in its frame (a force–velocity
#: limit) and a collocated stroke (``method="collocation"``)
REPORTS_WORKS = False
LEG_EXTENSION_SPEED = False
COLLOCATED = False


def default_params() -> SkierParams:
    """The parameters the optimizer starts from when given none: the thesis's skier's defaults."""
    return SkierParams()


def option_functions() -> tuple:
    """(steady state, simulator): ``options`` may hold their keyword-only arguments (the steady
    state passes its own on to ``simulate_run``), less ``SET_BY_OPTIMIZER``."""
    return steady_state, simulate_run


def steady(params: SkierParams, options: dict, warm=None):
    """The periodic stroke at ``params`` with the optimizer's ``options`` (``steady_state``'s
    keywords), its secant from ``warm`` (the last point's u0, ``warm_of``) unless the options give
    a first guess."""
    kw = dict(options)
    if warm is not None and "u0_guess" not in kw:
        kw["u0_guess"] = warm
    return steady_state(params, **kw)


def warm_of(ss) -> float:
    """What the next point's steady state starts from (``steady``'s ``warm``): this one's u0."""
    return float(ss.u0)


def margins(ss) -> dict:
    """The ``MARGINS`` of a steady state: none."""
    return {}


def inequalities(names, params, row) -> tuple:
    """The inequality rows of a point: none (the optimizer bounds the thesis's skier's
    technique by ``THESIS_BOUNDS`` alone)."""
    return ()
