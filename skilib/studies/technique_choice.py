"""Does the model choose a skier's technique? (book: Choosing a technique)

For a skating model at a steady speed on a course, the technique of least cost
(``required_power``, by default the whole physiological cost, ``skilib.physiology``) and what a
coach measures of it: stroke time and cycle rate, the leg's push-off time, the V between the
skis, the poles' force, contact and share of the forward impulse, peak forces in body weights,
gross efficiency, each term of the cost, and which technique parameters end on a bound.

``choose_technique`` answers one point; ``switch_off`` names the cost terms a study may switch
off in turn (each sets its coefficients to zero, so the technique chosen without it is measured,
not argued); ``trend`` turns a column against speed or slope into "rises", "falls" or "flat",
and ``verdict`` sets such a trend beside a published one: "agrees", "disagrees" or "cannot say"
with the reason.  Nothing here is fitted to a skating measurement: the published trends are
compared with, never used as inputs.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..engine.validation import check_number
from .optimum import required_power, technique_module

__all__ = ["SWITCHES", "BINDING", "NotAdmissible", "TREND_TOLERANCE", "choose_technique", "push_off_time", "switch_off", "trend",
           "verdict"]

#: the cost terms a study can switch off, and the params' fields each sets to zero.  "rest" is a
#: constant at a given body mass, so switching it off must leave the technique as it is (the
#: study measures that too); "work" cannot be switched off (it is what moves the skier): the
#: "metabolic" budget is the work alone.
SWITCHES = {"swing": ("swing_cost_a", "swing_cost_b"), "force_rate": ("force_rate_cost",),
            "rest": ("resting_rate",)}

#: a margin at most this (body weights, m or rad) binds: the optimizer's inequality is active
BINDING = 1e-6

#: a trend is "flat" when the column changes by less than this share of its mean over the range
TREND_TOLERANCE = 0.02


def switch_off(params, terms=()):
    """``params`` with the cost terms ``terms`` (keys of ``SWITCHES``, or one of them) set to zero."""
    terms = (terms,) if isinstance(terms, str) else tuple(terms)
    for t in terms:
        if t not in SWITCHES:
            raise ValueError(f"switched_off: {t!r} is not a cost term that can be switched off; "
                             f"one of {tuple(SWITCHES)}")
    zeros = {f: 0.0 for t in terms for f in SWITCHES[t]}
    return replace(params, **zeros) if zeros else params


def push_off_time(frame) -> float:
    """The time the leg extends under load over one periodic stroke [s]: Σ Δτ over the output
    intervals in which the leg lengthens (mean ``leg_extension_speed`` > 0) while it pushes
    (mean ``leg_force`` > 0).  The measured push-off (a rising, then falling insole force while
    the knee and hip extend) is this phase of the stroke; before it the leg may shorten under
    load (the skater sinks onto the new ski) and after it the force may fall to zero."""
    tau = np.asarray(frame["tau"], dtype=float)
    speed = np.asarray(frame["leg_extension_speed"], dtype=float)
    force = np.asarray(frame["leg_force"], dtype=float)
    pushing = (0.5 * (speed[1:] + speed[:-1]) > 0.0) & (0.5 * (force[1:] + force[:-1]) > 0.0)
    return float(np.sum(np.diff(tau)[pushing]))


def choose_technique(model: str = "free", speed: float = 5.0, *, slope_percent: float = 0.0,
                     bounds: dict | None = None, params=None, budget: str = "physiological",
                     switched_off=(), starts: int = 1, seed: int = 0, progress: bool = False, **kwargs) -> dict:
    """The technique of least ``budget`` cost that holds ``speed`` [m/s] on a course of
    ``slope_percent`` gradient [%], as one row of a study (module docstring).

    - model : "free" or "edge"; params : the model's parameters (default: its optimizer's);
      bounds : the technique parameters free and their ranges (default: the model's); pole
      parameters among them (``pole_force_max``, ``pole_contact_time``) set the poles free.
    - budget : what the cost counts (``skilib.studies.optimum.BUDGETS``, checked there;
      "physiological" by default);
      switched_off : cost terms set to zero (``SWITCHES``).
    - starts, seed, progress and any other keyword go to ``required_power`` (``x0``, ``options``).
      A free skater's technique may have a slow and a fast periodic stroke
      (``_periodic_stroke_at``); each steady state's search starts from the last one's u0, the
      first from ``free_steady_state``'s guess.  Where that lands on the slow stroke (with poles
      on the flat the slow one does not exist), ``options={"u_guess": speed}`` starts every search
      near the speed asked: slower (the optimizer's differences see each search end a little
      differently, so it needs more iterations), but on the right stroke.

    The row: the inputs, ``budget_power`` [W] and ``feasible`` (False: ``reason`` says why the
    optimum was not confirmed, and its numbers are the unconfirmed point's); the technique (every parameter
    optimised, under its name), ``stroke_time`` [s], ``cycle_rate`` = 1/(2T) [Hz] (a cycle is two
    strokes, one with each leg), ``push_off_time`` [s] (the leg extending under load,
    ``push_off_time``), ``skating_angle_deg``, the poles' ``pole_force_max`` [N],
    ``pole_contact_time`` [s] and ``pole_share`` (NaN without poles), ``peak_leg_force_bw``,
    ``peak_pole_force_bw`` (each pole's), the cost's terms [W], ``gross_efficiency_total``,
    ``at_bound`` ("name (lower)" for each parameter within 1 % of a bound, "" when none), the
    model's admissibility margins (the edged skater's ``EDGE_MARGINS``, the free skater's
    ``snow_load_margin``; with ``force_velocity``, ``force_velocity_margin``, the least over the
    limbs limited) and ``binding``: those at most ``BINDING``; and the model's own columns of the
    stroke (its technique module's ``row_columns``: the edged skater's touch-down height, landing
    offset and leg's length there, the crouch)."""
    tech = technique_module(model)
    # the whole cost needs each actuator's work, the push-off time the leg's extension speed
    if not (tech.REPORTS_WORKS and tech.LEG_EXTENSION_SPEED):
        raise ValueError(f"model: the {model} model reports neither each actuator's work nor the leg's extension "
                         "speed, so no physiological cost or push-off time; use 'free' or 'edge'")
    check_number("speed", speed, positive=True, unit="m/s")
    check_number("slope_percent", slope_percent, low=-100.0, high=100.0, unit="%")
    if params is None:
        params = tech.default_params()
    switched_off = (switched_off,) if isinstance(switched_off, str) else tuple(switched_off)
    base = switch_off(replace(params, slope_deg=math.degrees(math.atan(slope_percent / 100.0))), switched_off)
    r = required_power(model, speed=speed, bounds=bounds, params=base, budget=budget, starts=starts, seed=seed,
                       progress=progress, **kwargs)
    ss = _periodic_stroke_at(model, r)
    margins = _margins(model, ss, r.params)
    refined = 0
    while _is_collocated(r) and _beyond(margins, COLLOCATED_MARGIN_TOL) and refined < COLLOCATED_REFINEMENTS:
        # the collocation holds each margin at its mesh's points, and between them the periodic
        # stroke may pass one by O(h²) (the edged skater's leg unloaded under the poles: −6.7e-4
        # body weights on 40 intervals): the same optimum again on a mesh twice as fine, from itself
        kw = dict(kwargs, x0=dict(r.x), nodes=2 * int(r.solution.nodes))
        r = required_power(model, speed=speed, bounds=bounds, params=base, budget=budget, starts=0, seed=seed,
                           progress=progress, **kw)
        ss = _periodic_stroke_at(model, r)
        margins, refined = _margins(model, ss, r.params), refined + 1
    if _is_collocated(r):
        _margins_within(margins, COLLOCATED_MARGIN_TOL, int(r.solution.nodes))
    p = r.params
    st = ss.strokes.iloc[0]
    poled = getattr(p, "pole_force_max", 0.0) > 0.0
    row = dict(model=model, target_speed=float(speed), slope_percent=float(slope_percent), budget=budget,
               switched_off="+".join(switched_off) or "none", feasible=bool(r.feasible),
               budget_power=float(r.budget_power), progress_speed=float(r.progress_speed),
               reason="" if r.feasible else str(r.reason))
    row.update({k: float(v) for k, v in r.x.items()})  # the parameters optimised, under their names
    row.update(stroke_time=float(p.stroke_time), cycle_rate=1.0 / (2.0 * p.stroke_time),
               push_off_time=push_off_time(ss.frame),
               skating_angle_deg=float(p.skating_angle_deg),
               pole_force_max=float(p.pole_force_max) if poled else math.nan,
               pole_contact_time=float(p.pole_contact_time) if poled else math.nan,
               pole_share=float(st["pole_share"]) if poled else math.nan,
               peak_leg_force_bw=float(ss.peak_leg_force_bw),
               peak_pole_force_bw=float(ss.frame["pole_force"].max()) / p.weight if poled else math.nan)
    for c in ("metabolic_work", "metabolic_swing", "metabolic_force_rate", "metabolic_rest", "metabolic_total",
              "gross_efficiency_total"):
        row[c] = float(st[c])
    row.update(getattr(tech, "row_columns", lambda ss: {})(ss))  # the model's own (the edged skater's touch-down)
    row["at_bound"] = ", ".join(f"{k} ({v})" for k, v in r.at_bound.items())
    if kwargs.get("force_velocity") is not None:  # the limbs' limits: the least margin over them
        margins["force_velocity_margin"] = float(r.force_velocity_margin)
    row.update(margins)
    row["binding"] = ", ".join(k for k, v in margins.items() if v <= BINDING)
    return row


def _is_collocated(r) -> bool:
    """Whether ``required_power`` solved ``r`` by collocation (else by shooting)."""
    return getattr(r, "method", "shooting") == "collocation"


def _margins(model, ss, p) -> dict:
    """The model's admissibility margins (≥ 0) at the periodic stroke (its technique module's
    ``row_margins``: the edged skater's four ``EDGE_MARGINS``, the free skater's least snow load
    in body weights)."""
    return technique_module(model).row_margins(ss, p)


#: how far a collocated optimum's periodic stroke may pass an admissibility margin [body weights,
#: m or rad]: the collocation's re-simulation tolerance (1e-4, relative to margins of order one;
#: measured: the edged skater's leg 1.8e-8 m past its reach at 4.5 m/s)
COLLOCATED_MARGIN_TOL = 1e-4
#: how many times a collocated optimum whose periodic stroke passes a margin beyond
#: ``COLLOCATED_MARGIN_TOL`` is solved again on a mesh twice as fine before it is refused
COLLOCATED_REFINEMENTS = 2


class NotAdmissible(ValueError):
    """A collocated optimum whose periodic stroke the model cannot make beyond the collocation's
    own error, on the finest mesh tried: the message names each margin passed."""


def _beyond(margins: dict, tol: float) -> dict:
    return {k: v for k, v in margins.items() if v < -tol}


def _margins_within(margins: dict, tol: float, nodes: int) -> None:
    """A ``NotAdmissible`` naming each margin below −``tol``: a collocated optimum (on ``nodes``
    intervals, the finest tried) whose periodic stroke the model cannot make beyond the
    collocation's own error."""
    bad = _beyond(margins, tol)
    if bad:
        raise NotAdmissible(f"the collocated optimum's periodic stroke is not admissible beyond the collocation's "
                            f"tolerance {tol:g} on {nodes} intervals: " + ", ".join(f"{k} {v:.3g}" for k, v in bad.items()))


def _periodic_stroke_at(model, r):
    """The optimum's periodic stroke, recomputed (the model's technique module's
    ``periodic_stroke``).  A technique may have more than one periodic stroke (the free skater's
    stroke map can have a slow and a fast fixed point: the skater's speed is then not set by the
    technique alone), so the search starts from the one the optimizer found (a collocated
    optimum's own u0, or a shooting optimum's logged u0) and must end at its speed."""
    # a collocated optimum's stroke is re-simulated from its own u0, and is the same stroke to the
    # collocation's re-simulation tolerance, not to the secant's
    collocated = _is_collocated(r)
    tol = 1e-4 if collocated else 1e-6
    u0 = state = None
    if collocated:
        # and the touch-down state its one re-simulated stroke ended at (the edged skater's search starts there)
        u0, state = float(r.solution.u0), r.solution.resimulated.get("state_after")
    else:
        ev = r.evaluations
        at = np.ones(len(ev), dtype=bool)
        for k, v in r.x.items():
            at &= ev[k].to_numpy(dtype=float) == v
        logged = ev.loc[at & (ev["status"] == "ok").to_numpy(), "u0"]
        if len(logged):
            u0 = float(logged.iloc[-1])
    # a collocated optimum holds its margins at the mesh's points, and its periodic stroke,
    # sampled on the output grid, may pass one by the re-simulation's error (``_margins_within``)
    ss = technique_module(model).periodic_stroke(r.params, r.options, u0, check=not collocated, state=state)
    got = float(ss.strokes["mean_vx"].iloc[0])
    if not abs(got - r.progress_speed) <= tol * max(1.0, abs(r.progress_speed)):
        raise RuntimeError(f"the optimum's periodic stroke could not be found again: {got:.6g} m/s instead of the "
                           f"optimum's {r.progress_speed:.6g} m/s (the technique has more than one periodic stroke)")
    return ss


def trend(x, y, tolerance: float = TREND_TOLERANCE) -> str:
    """"rises", "falls" or "flat": the sign of the least-squares slope of ``y`` on ``x``, "flat"
    when the fitted change over the range of ``x`` is within ``tolerance`` of |mean y|; "mixed"
    when the points do not all move one way (some step up, some down beyond the tolerance);
    "cannot say" with fewer than two finite points."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 2 or np.ptp(x) == 0:
        return "cannot say"
    order = np.argsort(x)
    x, y = x[order], y[order]
    scale = tolerance * max(abs(float(np.mean(y))), np.finfo(float).tiny)
    steps = np.diff(y)
    if np.any(steps > scale) and np.any(steps < -scale):
        return "mixed"
    change = float(np.polyfit(x, y, 1)[0]) * float(np.ptp(x))
    if abs(change) <= scale:
        return "flat"
    return "rises" if change > 0 else "falls"


def verdict(model_trend: str, published: str, missing: str = "") -> tuple[str, str]:
    """(verdict, reason) of the model's trend against a published one ("rises", "falls" or
    "flat"): "agrees" when they are the same, "disagrees" when not, "cannot say" when the
    model's trend is "cannot say" or "mixed", or when ``missing`` names what the model lacks to
    answer (then that is the reason)."""
    if published not in ("rises", "falls", "flat"):
        raise ValueError(f"published: must be 'rises', 'falls' or 'flat', got {published!r}")
    if missing:
        return "cannot say", missing
    if model_trend in ("cannot say", "mixed"):
        return "cannot say", f"the model's points do not give one direction ({model_trend})"
    if model_trend == published:
        return "agrees", f"the model's {model_trend}, as measured"
    return "disagrees", f"the model's {model_trend}, measured: {published}"
