"""The free skater as the optimizer sees it (book: The optimum technique): its technique
parameters with their human bounds (``FREE_BOUNDS``), its admissibility margin (the snow's load,
``snow_load_margin``), the parameters it starts from, and the keywords of its steady state.

``skilib.studies.optimum`` reads every model through the same names (its registry ``_MODELS``
imports this module the first time a study asks for the free skater): ``PARAMS``,
``TECHNIQUE_BOUNDS``, ``PARAMETER_BOUNDS`` (and ``PARAMETER_BOUNDS_NAME``), ``default_params()``,
``SET_BY_OPTIMIZER``, ``option_functions()``, ``steady(params, options, warm)``, ``warm_of(ss)``,
``MARGINS``, ``margins(ss)`` and ``inequalities(names, params, row)``; a study's row of an optimum
(``skilib.studies.choose_technique``) reads ``periodic_stroke(params, options, u0)`` and
``row_margins(ss, params)``.

The snow's load.  The free skater refuses a technique whose snow load N = (M + m_s) g + M z̈
goes negative (a ValueError naming ``snow_load``: the height law lowers the CM faster than
gravity can, so the snow would pull the ski down).  For the default height law
z̈ = −2Δz (π/T)² cos(2πτ/T) the least load is at τ = 0 and T, so N ≥ 0 throughout is

    s(x) = N_min / (M g) = 1 + m_s/M − 2Δz (π/T)² / g ≥ 0        (Δz = cm_dip, T = stroke_time)

(:func:`snow_load_margin`, in body weights), a smooth closed form of the parameters.  It is
given to SLSQP as an inequality constraint of the free skater's optimum (whenever cm_dip or
stroke_time is optimised), so the optimizer never steps into refused techniques: without it,
FREE_BOUNDS' corner cm_dip 0.15 m, T 0.4 s (N ≈ −0.87 body weights) is refused, and the
penalty given there is a discontinuity SLSQP's differences cannot handle.
"""
from __future__ import annotations

import math

from ...strokes.params import slope_factors
from .params import PARAMETER_BOUNDS, FreeSkaterParams
from .run import simulate_free
from .steady import free_steady_state

__all__ = ["FREE_BOUNDS", "SNOW_LOAD_PARAMETERS", "snow_load_margin"]

#: the free skater's technique parameters and their human bounds (see the book's chapter "The
#: optimum technique"): the V-angle between the skis 10–70° (measured V2 skating angles of each
#: ski to the direction of travel are ≈ 10–20° on the flat, larger uphill: a V of 20–40°; the
#: range covers them with a wide margin), one stroke (one leg's push and glide) 0.4–2 s (cycle
#: rates of ≈ 0.5–0.9 Hz are strokes of ≈ 0.55–1 s), the ski's inward turn 0–25°, the CM's
#: lateral offset from the ski at the end of a stroke 0.1–0.6 m (a chosen limit on the CM's
#: sideways excursion; the model's own limit is wider: it refuses a CM more than 1.3 m from the
#: ski, an offset up to √(1.3² − z̄²) ≈ 0.89 m at z̄ = 0.95 m), the CM's dip 0–0.15 m (a knee bend).
FREE_BOUNDS = {"skating_angle_deg": (10.0, 70.0), "stroke_time": (0.4, 2.0), "steer_deg": (0.0, 25.0),
               "offset_end": (0.1, 0.6), "cm_dip": (0.0, 0.15)}
#: (The corner of large dip and short stroke is refused by the model, N < 0: the optimizer keeps
#: to N ≥ 0 by the inequality constraint ``snow_load_margin`` ≥ 0, module docstring.)

#: the free skater's parameters on which ``snow_load_margin`` depends through the technique
SNOW_LOAD_PARAMETERS = ("cm_dip", "stroke_time")

#: the interface ``skilib.studies.optimum`` reads: the parameters' class, the default technique
#: bounds, the plausible range of every number parameter (and that table's name in ``params``,
#: for messages)
PARAMS = FreeSkaterParams
TECHNIQUE_BOUNDS = FREE_BOUNDS
PARAMETER_BOUNDS_NAME = "PARAMETER_BOUNDS"
#: the keywords of the steady state that the optimizer sets itself (the parameters, one stroke
#: from u, progress bars): not ``options``
SET_BY_OPTIMIZER = frozenset({"params", "strokes", "v0", "progress"})
#: the margins of a periodic stroke the optimizer logs (none: the snow's load is a closed form
#: of the parameters, ``inequalities``)
MARGINS = ()
#: what the optimizer may ask of this model: the positive and negative work of each actuator
#: (the budgets other than "net"), the leg's extension speed in its frame (a force–velocity
#: limit) and a collocated stroke (``method="collocation"``)
REPORTS_WORKS = True
LEG_EXTENSION_SPEED = True
COLLOCATED = True


def default_params() -> FreeSkaterParams:
    """The parameters the optimizer starts from when given none: the free skater's defaults."""
    return FreeSkaterParams()


def option_functions() -> tuple:
    """(steady state, simulator): ``options`` may hold their keyword-only arguments (the steady
    state passes its own on to the simulator), less ``SET_BY_OPTIMIZER``."""
    return free_steady_state, simulate_free


def margins(ss) -> dict:
    """The ``MARGINS`` of a steady state: none."""
    return {}


def inequalities(names, params, row) -> tuple:
    """The inequality rows (≥ 0 where the model can run the technique) of a point whose
    optimised parameters are ``names``: the least snow load in body weights
    (``snow_load_margin`` of ``params()``) when cm_dip or stroke_time is optimised, else none.
    ``params`` and ``row`` are called only when needed (the point's parameters, its logged row);
    the margin comes from the parameters alone, so no steady state is computed for it."""
    if any(n in names for n in SNOW_LOAD_PARAMETERS):
        return (snow_load_margin(params()),)
    return ()


def snow_load_margin(params) -> float:
    """The free skater's least snow load over its stroke, in body weights, for the default
    height law z(τ) = z̄ − Δz (1 − cos 2πτ/T)/2, whose z̈ = −2Δz (π/T)² cos(2πτ/T) is least at
    τ = 0 and T:

        N_min / (M g) = ((M + m_s) g cos α − M · 2Δz (π/T)²) / (M g) = (1 + m_s/M) cos α − 2Δz (π/T)² / g

    (M = body_mass, m_s = ski_mass, Δz = cm_dip, T = stroke_time, g, α = slope_deg).  The model refuses a
    technique with N_min < 0 (``skilib.models.free.run.check_snow_load``); the optimizer keeps
    this ≥ 0 as an inequality constraint.  ``params``: a FreeSkaterParams (ValueError naming
    ``params`` otherwise)."""
    if not isinstance(params, FreeSkaterParams):
        raise ValueError(f"params: must be a FreeSkaterParams, got {type(params).__name__}")
    p = params
    cos_a = slope_factors(p.slope_deg)[1]  # exactly 1.0 on the flat
    return (1.0 + p.ski_mass / p.body_mass) * cos_a - 2.0 * p.cm_dip * (math.pi / p.stroke_time) ** 2 / p.g


def steady(params: FreeSkaterParams, options: dict, warm=None):
    """The periodic stroke at ``params`` with the optimizer's ``options`` (``free_steady_state``'s
    keywords), its secant from ``warm`` (the last point's ski speed u0, ``warm_of``: the points
    an optimizer asks for lie close together) unless the options give a first guess."""
    kw = dict(options)
    if warm is not None and "u_guess" not in kw:
        kw["u_guess"] = warm
    return free_steady_state(params, **kw)


def warm_of(ss) -> float:
    """What the next point's steady state starts from (``steady``'s ``warm``): this one's u0."""
    return float(ss.u0)


def periodic_stroke(params: FreeSkaterParams, options: dict, u0=None, check: bool = True, state=None):
    """An optimum's periodic stroke as a study reports it (``free_steady_state`` with the
    optimizer's ``options``), its secant from ``u0`` (the optimum's own, where known: the stroke
    map may have more than one fixed point).  ``check`` changes nothing: the free skater's run
    refuses a snow that would pull whatever it says, and its other margin is a closed form.
    ``state`` is not needed: the free skater's touch-down state is u0."""
    kw = dict(options)
    if u0 is not None:
        kw["u_guess"] = float(u0)
    return free_steady_state(params, **kw)


def row_margins(ss, params: FreeSkaterParams) -> dict:
    """A study's admissibility margins (≥ 0) of a periodic stroke: the least snow load in body
    weights, a closed form of the parameters (``snow_load_margin``; ``ss`` is not needed)."""
    return {"snow_load_margin": float(snow_load_margin(params))}
