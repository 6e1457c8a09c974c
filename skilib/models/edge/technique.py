"""The edged skater as the optimizer sees it (book: The optimum technique; The edged skater):
its technique parameters with their human bounds (``EDGE_BOUNDS``), its admissibility as margins
≥ 0 of its periodic stroke (``EDGE_MARGINS``: the leg pushes, the snow carries, the leg within
its reach and its lean), the parameters it starts from (``default_params``), and the keywords of
its steady state.

``skilib.studies.optimum`` reads every model through the same names (its registry ``_MODELS``
imports this module the first time a study asks for the edged skater): ``PARAMS``,
``TECHNIQUE_BOUNDS``, ``PARAMETER_BOUNDS`` (and ``PARAMETER_BOUNDS_NAME``), ``default_params()``,
``SET_BY_OPTIMIZER``, ``option_functions()``, ``steady(params, options, warm)``, ``warm_of(ss)``,
``MARGINS``, ``margins(ss)`` and ``inequalities(names, params, row)``; a study's row of an optimum
(``skilib.studies.choose_technique``) reads ``periodic_stroke(params, options, u0)``,
``row_margins(ss, params)`` and ``row_columns(ss)``.
"""
from __future__ import annotations

import math

from .params import EDGE_PARAMETER_BOUNDS as PARAMETER_BOUNDS
from .params import EdgeSkaterParams
from .steady import SOLVER_DEFAULTS, edge_steady_state

__all__ = ["EDGE_BOUNDS", "EDGE_CROUCH_BOUNDS", "EDGE_MARGINS", "CROUCH_MARGIN", "edge_margins"]

#: the edged skater's (book: The edged skater): the V-angle between the skis 10–30° (beyond
#: ≈ 30° the old ski's velocity meets the new edge so obliquely that the plastic touch-down
#: throws the body into a lean it cannot recover from), one stroke 0.5–1.2 s, the ski's inward
#: turn 0–20°, the landing offset of the new ski outside the CM 0.1–0.3 m, the leg's extension
#: over a stroke 0–0.15 m (with the leg's reach at the start of a run, √(d0² + z²) + Δℓ ≤
#: ℓ_max = 1.05 m at the periodic stroke's height z ≈ 0.83 m: ``default_params``).
EDGE_BOUNDS = {"skating_angle_deg": (10.0, 30.0), "stroke_time": (0.5, 1.2), "steer_deg": (0.0, 20.0),
               "landing_offset": (0.1, 0.3), "leg_extension": (0.0, 0.15)}

#: the edged skater's technique with its crouch chosen (``EdgeSkaterParams.leg_start``): the leg's
#: length at touch-down ℓs and its extension over the stroke Δℓ instead of the landing offset, which
#: then follows from the stroke (d0 = √(ℓs² − z_B²)) and is held within the landing offset's
#: bounds above by ``CROUCH_MARGIN``.  The human bounds are the thesis's: its skier's leg extends
#: from 50 % to 90 % of its length over a push (Bruzzo 2012, §5.2 and fig. 28, assumed from what
#: was seen on site), so ℓs within 50–90 % of the leg's max_leg_length ℓ_max = 1.05 m
#: (0.525–0.945 m) and Δℓ within 0–40 % of it (0–0.42 m); the reach margin keeps ℓs + Δℓ ≤ ℓ_max.
#: V, stroke time and turn as ``EDGE_BOUNDS``.
EDGE_CROUCH_BOUNDS = {"skating_angle_deg": (10.0, 30.0), "stroke_time": (0.5, 1.2), "steer_deg": (0.0, 20.0),
                      "leg_start": (0.525, 0.945), "leg_extension": (0.0, 0.42)}

#: with the crouch chosen, the landing offset's margin [m]: how far the periodic stroke's d0 lies
#: inside ``EDGE_BOUNDS["landing_offset"]`` (the foot beside the CM, at most a step outside it)
CROUCH_MARGIN = "landing_offset_margin"

#: the edged skater's admissibility as margins ≥ 0 of its periodic stroke, SLSQP's inequality
#: rows (``edge_margins``): the least leg force and snow load [body weights], the leg's reach
#: left [m] and its lean left [rad]
EDGE_MARGINS = ("leg_force_margin", "snow_load_margin", "reach_margin", "lean_margin")

#: the interface ``skilib.studies.optimum`` reads: the parameters' class, the default technique
#: bounds, the plausible ranges (``PARAMETER_BOUNDS``, imported above) and that table's name in
#: ``params``, for messages
PARAMS = EdgeSkaterParams
TECHNIQUE_BOUNDS = EDGE_BOUNDS
PARAMETER_BOUNDS_NAME = "EDGE_PARAMETER_BOUNDS"
#: the keywords of the steady state that the optimizer sets itself or keeps out of ``options``
#: (the parameters, the multipliers and the admissibility check it turns off — ``inequalities``
#: keeps the stroke admissible instead —, ``balance``, ``poles``, progress bars)
SET_BY_OPTIMIZER = frozenset({"params", "multipliers", "check", "balance", "poles", "progress"})
#: the margins of a periodic stroke the optimizer logs with each point
MARGINS = EDGE_MARGINS
#: what the optimizer may ask of this model: the positive and negative work of each actuator
#: (the budgets other than "net"), the leg's extension speed in its frame (a force–velocity
#: limit) and a collocated stroke (``method="collocation"``)
REPORTS_WORKS = True
LEG_EXTENSION_SPEED = True
COLLOCATED = True


def default_params() -> EdgeSkaterParams:
    """The edged skater's parameters the optimizer starts from: the defaults with the first
    touch-down at the periodic stroke's height (0.834 m; ``cm_height`` only places a run's
    first stroke, so the steady state does not depend on it, but the leg's reach is checked
    there)."""
    return EdgeSkaterParams(cm_height=0.834)


def option_functions() -> tuple:
    """(steady state, solver settings): ``options`` may hold the steady state's keyword-only
    arguments and the solver keywords it passes on to ``simulate_edge`` (the keys of
    ``SOLVER_DEFAULTS``), less ``SET_BY_OPTIMIZER``."""
    return edge_steady_state, SOLVER_DEFAULTS


def steady(params: EdgeSkaterParams, options: dict, warm=None):
    """The periodic stroke at ``params`` with the optimizer's ``options``, its admissibility not
    refused (``inequalities`` keeps it) and without multipliers: from ``warm`` (the last point's
    touch-down state (u, φ̇, z_B), ``warm_of``) where there is one, else, or if that search fails,
    from the default guess (with its continuation from the defaults' stroke)."""
    from ...strokes.periodic import NoSteadyState

    kw = dict(options)
    kw.update(multipliers=False, check=False)
    if warm is not None and "guess" not in kw:
        try:
            return edge_steady_state(params, guess=tuple(warm), **kw)
        except NoSteadyState:
            pass
    return edge_steady_state(params, **kw)


def warm_of(ss):
    """What the next point's steady state starts from (``steady``'s ``warm``): this one's
    touch-down state (u, φ̇, z_B), its first three fixed-point coordinates."""
    return ss.x0[:3].copy()


def edge_margins(ss) -> dict:
    """The edged skater's ``EDGE_MARGINS`` of a periodic stroke (an ``EdgeSteadyState``): min F/(M g), min N/(M g),
    ℓ_max − max ℓ, (φ_max − max|φ|) in rad.  Each is a smooth function of the technique while
    the stroke's extremes stay interior ones, so SLSQP keeps the leg pushing
    where the steady state itself would refuse the stroke (``check_admissible``).  With the crouch
    chosen (``leg_start``) also ``CROUCH_MARGIN``: the landing offset the stroke found, inside its
    bounds (``EDGE_BOUNDS["landing_offset"]``) by min(d0 − 0.1, 0.3 − d0) [m]."""
    p = ss.params
    weight = p.body_mass * p.g
    out = dict(leg_force_margin=ss.min_leg_force / weight, snow_load_margin=ss.min_snow_load / weight,
               reach_margin=p.max_leg_length - ss.max_leg_length,
               lean_margin=math.radians(p.max_lean_deg - ss.max_abs_lean_deg))
    if p.leg_start is not None:  # the crouch places the foot: where it lands is held within its bounds
        lo, hi = EDGE_BOUNDS["landing_offset"]
        d = float(ss.x0[3])
        out[CROUCH_MARGIN] = min(d - lo, hi - d)
    return out


#: the ``MARGINS`` of a steady state, logged with each point
margins = edge_margins


def inequalities(names, params, row) -> tuple:
    """The inequality rows (≥ 0 where the model can run the technique): the ``EDGE_MARGINS`` of
    the point's periodic stroke, from its logged ``row()`` (the steady state is computed there
    if it is not yet), and with the crouch among the parameters optimised (``leg_start`` in
    ``names``) ``CROUCH_MARGIN``; a technique the model cannot run violates each (−1).  (A crouch
    held fixed in the parameters reports the landing offset's margin in the row, and does not
    hold it.)  ``params`` is not needed."""
    r = row()
    held = EDGE_MARGINS + ((CROUCH_MARGIN,) if "leg_start" in names else ())
    return tuple(-1.0 if r["status"] != "ok" else r[k] for k in held)


def periodic_stroke(params: EdgeSkaterParams, options: dict, u0=None, check: bool = True, state=None):
    """An optimum's periodic stroke as a study reports it: ``edge_steady_state`` with the
    optimizer's ``options`` and its multipliers (the optimizer's own steady states skip them),
    its admissibility refused by ``check_admissible`` where ``check`` (False: left to the caller,
    who reads ``row_margins``).  Its search starts from ``state``, the touch-down state (u, φ̇,
    z_B, …) where the optimum's one re-simulated stroke ended (a collocated optimum's), where
    there is one: with poles one technique may have more than one periodic stroke (the edged
    skater's V2 at 5 m/s on 2 %: from the default guess the search ends at 6.88 m/s); else from
    the default guess (``u0`` alone is not a touch-down state: not needed)."""
    kw = {k: v for k, v in options.items() if k not in ("multipliers", "check")}
    if state is not None and "guess" not in kw:
        kw["guess"] = tuple(float(v) for v in state[:3])
    return edge_steady_state(params, check=check, **kw)


def program_takes_start(params: EdgeSkaterParams, names) -> bool:
    """Whether the collocated program of the technique ``names`` is built from its first start's
    values (``collocation_params``): with the crouch among them (``leg_start``) and none in
    ``params``.  Such a program cannot be built before the starts are known."""
    return "leg_start" in names and params.leg_start is None


def collocation_params(params: EdgeSkaterParams, names, start: dict) -> EdgeSkaterParams:
    """The parameters a collocated program of the technique ``names`` is built from: where the
    program takes its start (``program_takes_start``), the first start's ℓs (the program
    places the foot by the crouch then, ``skilib.models.edge.collocation``; ℓs is one of its law
    parameters, so the value is only the base's); else ``params`` as they are."""
    if program_takes_start(params, names):
        from dataclasses import replace

        return replace(params, leg_start=float(start["leg_start"]))
    return params


def row_columns(ss) -> dict:
    """A study's columns of where the periodic stroke touches down: ``touchdown_height`` z_B [m],
    ``landing_offset`` d0 [m] and ``leg_start`` ℓ0 = √(d0² + z_B²) [m], the crouch (one of the last
    two is the technique's, the other the stroke's answer)."""
    z, d = float(ss.x0[2]), float(ss.x0[3])
    return dict(touchdown_height=z, landing_offset=d, leg_start=math.hypot(d, z))


def row_margins(ss, params: EdgeSkaterParams) -> dict:
    """A study's admissibility margins (≥ 0) of a periodic stroke: its ``EDGE_MARGINS``."""
    return {k: float(v) for k, v in edge_margins(ss).items()}
