"""Runs of the edged skater (``skilib.models.edge.model``): ``simulate_edge``, alternating
strokes joined at touch-down (``skilib.models.edge.skating``: the plastic change of ski and the
new ski's landing), integrated, book-kept and tabulated by the machinery every skating model
shares (``skilib.strokes``).

The plain call ``simulate_edge(strokes=n)`` starts from the periodic stroke (``edge_steady_state``)
and ``balance="designed"`` runs with a landing rule designed for it (``simulate_edge``'s
docstring); those runs refuse a fall (``SkaterFalls``) where the others report it.
"""
from __future__ import annotations

import contextvars
import functools
import math
import time

import numpy as np

from ...engine.load_friction import NegativeLoadError
from ...engine.validation import check_bool, check_number
from ...strokes.periodic import NoSteadyState
from ...strokes.run import run_strokes
from ...strokes.stroke import DEFAULT_MAX_WALL_TIME
from .balance import BalanceRule
from .model import SkiStopped
from .params import EdgeSkaterParams
from .skating import EdgeRunOptions, EdgeSkating, Fall, edge_run_options
from .steady import edge_steady_state

__all__ = ["simulate_edge", "SkaterFalls", "PERIODIC", "DESIGNED", "MAX_V0"]

#: ``simulate_edge``'s ``v0`` (its default) that starts the run from the periodic stroke
PERIODIC = "periodic"
#: ``simulate_edge``'s ``balance`` that designs a landing rule for the periodic stroke
#: (``edge_steady_state(poles="auto")``) and runs with it
DESIGNED = "designed"
#: the fastest start ``simulate_edge`` accepts [m/s]: beyond the fastest skating (elite V2 skating
#: on a fast downhill, ≈ 10 m/s); a faster skier tucks, and the model's periodic stroke at the
#: defaults glides at 3.7 m/s
MAX_V0 = 15.0


class SkaterFalls(ValueError):
    """A run of ``simulate_edge`` from the periodic stroke or with ``balance="designed"`` left
    what a skater can do: the leg would pull (F < 0), the lean passed ``max_lean_deg``, the snow
    would pull, the ski stopped, or a touch-down asked for an offset outside 0–0.6 m or a leg
    beyond its reach.  The message starts with the parameter to change (``strokes``, ``v0`` or
    ``balance``) and says what to change; attributes ``parameter``, ``stroke`` (1-based),
    ``t`` [s, from the run's start] and ``reason``."""

    def __init__(self, message, *, parameter: str, stroke: int, t: float, reason: str):
        super().__init__(message)
        self.parameter, self.stroke, self.t, self.reason = parameter, stroke, t, reason



def _check_v0(v0) -> float:
    """A given ``v0`` as a float, or a ValueError naming v0: a speed 0 < v0 ≤ ``MAX_V0`` m/s."""
    if v0 is None or isinstance(v0, str):
        raise ValueError(f"v0: must be a speed in m/s (0 < v0 <= {MAX_V0:g}) or '{PERIODIC}' (the default: the "
                         f"periodic stroke's), got {v0!r}")
    v = check_number("v0", v0, unit="m/s")  # a number, not NaN, finite
    if v <= 0.0:
        raise ValueError(f"v0: the edged skater's ski must glide at the start, v0 > 0 m/s, got {v0!r} (a stuck ski "
                         f"is not modelled); omit v0 to start from the periodic stroke")
    if v > MAX_V0:
        raise ValueError(f"v0: {v:g} m/s is beyond any skating speed (at most {MAX_V0:g} m/s; the fastest skating, "
                         f"on a fast downhill, is about 10 m/s); omit v0 to start from the periodic stroke")
    return v


_SOLVER_KEYS = ("first_ski", "rotation", "stabilization", "method", "rtol", "atol", "h", "alpha", "beta", "dt_out",
                "n_out", "max_evaluations", "max_wall_time", "compiled")

#: whether the periodic stroke's search of the ``simulate_edge`` running in this thread shows its
#: bar (``progress=True``): how the search is shown, not what it finds, so no key of the cache
_SEARCH_PROGRESS = contextvars.ContextVar("skilib_edge_search_progress", default=False)


def _search(params: EdgeSkaterParams, solver: dict, designed: bool):
    return edge_steady_state(params, poles="auto" if designed else None, progress=_SEARCH_PROGRESS.get(), **solver)


@functools.lru_cache(maxsize=8)
def _periodic_cached(params: EdgeSkaterParams, solver: tuple, designed: bool):
    return _search(params, dict(solver), designed)


def _periodic(params: EdgeSkaterParams, solver: dict, designed: bool, who: str):
    """``edge_steady_state(params)`` with the run's solver keywords (and ``poles="auto"`` for a
    designed rule), kept for the next call with the same arguments; where there is no periodic
    stroke (``NoSteadyState``, or one that is not admissible, a ValueError) the error again,
    naming the parameter ``who`` that asked for it (an exhausted budget or a failed integration
    as it was raised)."""
    key = tuple(solver.items())
    try:
        hash((params, key))
        cached = True
    except TypeError:  # unhashable inputs: no cache
        cached = False
    try:
        return _periodic_cached(params, key, designed) if cached else _search(params, solver, designed)
    except (NoSteadyState, ValueError) as exc:
        if who == "v0":
            why = (f"v0: omitted, so the run starts from the periodic stroke of these parameters, and there is none "
                   f"to start from ({exc}); give v0 (and lean_rate) to start elsewhere")
        else:
            why = (f"balance: '{DESIGNED}' designs a landing rule for the periodic stroke of these parameters, and "
                   f"there is none ({exc}); give a BalanceRule or None")
        raise (NoSteadyState if isinstance(exc, NoSteadyState) else ValueError)(why) from exc


def _open_loop_limit(ss) -> tuple[int | None, int | None]:
    """For a run from the periodic stroke with a fixed landing offset: (the last stroke that
    even the rounding of the start cannot have grown into a fall, the stroke a fall is expected
    near), or (None, None) for a map without a multiplier outside the unit circle.

    The run starts at x0 exactly, so the start of stroke 2 is δ2 = Φ(x0) − x0 off, the periodic
    stroke's residual, and the linearised map grows it to δ2 |λ|^(k−2) at the start of stroke k
    (|λ| the largest multiplier); an order-one deviation (1 in m/s, rad/s and m) is a fall (at
    the defaults the snow gives way at stroke 41 from δ2 = 6.9e-13: 6.9e-13 |λ|^39 = 0.91).  δ2
    is at least the rounding of x0, ε max|x0|: a run longer than that floor allows is sure to
    fall; the residual itself gives the stroke to expect."""
    lam = float(np.max(np.abs(ss.multipliers)))
    if not lam > 1.0:
        return None, None
    least = np.finfo(float).eps * float(np.max(np.abs(ss.x0)))
    sure = 2 + int(math.floor(math.log(1.0 / least) / math.log(lam)))
    seed = max(float(np.max(np.abs(ss.residual))), least)
    expected = 2 + int(round(math.log(1.0 / seed) / math.log(lam)))
    return sure, min(expected, sure)


def simulate_edge(params: EdgeSkaterParams | None = None, *, strokes: int, v0: float | str = PERIODIC,
                  lean_rate: float = 0.0, first_ski: str = "right",
                  rotation: str = "zxz", stabilization: str = "baumgarte", method: str = "DOP853",
                  rtol: float = 1e-10, atol: float = 1e-10, h: float = 0.05, alpha=None, beta=None,
                  compiled: bool = True, dt_out: float = 0.01, n_out: int | None = None,
                  max_evaluations: int = 5_000_000, max_wall_time: float | None = DEFAULT_MAX_WALL_TIME,
                  balance: BalanceRule | str | None = None, progress: bool = False) -> SimResult:
    """A run of the edged skater: ``strokes`` alternating strokes, the first on ``first_ski`` with
    its ski's origin at the global origin.  Its start is the touch-down state
    x = (u, φ̇, z_B, d) (``EdgeSkating.start_from``): the ski and the CM moving at u along the
    ski, the CM at height z_B leaning in over the landing offset d and turning about the ski's
    axis at φ̇ [rad/s, + inwards].

    The plain call ``simulate_edge(strokes=n)`` (``v0`` omitted, ``"periodic"``) starts from the
    periodic stroke of ``params``: x = x0 of ``edge_steady_state(params)``, found with this
    call's solver keywords, so that stroke 1 is the steady state's stroke (the same integration
    from the same state) and every stroke repeats it, mirrored, to the integration's tolerance.
    With a fixed landing offset that stroke is open-loop unstable (the largest multiplier
    |λ| ≈ 2.05 at the defaults): the start's deviation, the periodic stroke's residual
    (≈ 1e-12), grows by |λ| per stroke, and the skater falls at stroke 41 (refused, below).
    ``balance="designed"`` makes it stable (below).

    - v0 : ``"periodic"`` (the default, above), or the start's speed [m/s], 0 < v0 ≤ 15
      (``MAX_V0``; NaN, ±inf, ≤ 0 or faster are a ValueError naming v0).  A given v0 with
      ``balance`` None or a ``BalanceRule`` starts from (v0, lean_rate, params.cm_height,
      params.landing_offset) as always; with ``balance="designed"`` from the periodic stroke's
      posture at speed v0: (v0, φ̇0, z_B0, d0).
    - lean_rate : the start's lean rate [rad/s, + inwards] with a given v0 and no designed rule;
      where the start is the periodic stroke's posture (v0 omitted, or ``balance="designed"``) it
      is the periodic stroke's, and any other value than the default 0 is a ValueError naming
      lean_rate (so is params.cm_height not used there).
    - balance : None (the ski lands ``params.landing_offset`` outside the CM at every
      touch-down), a ``BalanceRule`` that chooses the offset from the CM's state just before
      each touch-down (``skilib.models.edge.balance``), or ``"designed"``: the rule
      ``edge_steady_state(params, poles="auto")`` designs for the periodic stroke
      (``skilib.models.edge.steady.auto_poles``: the stroke map's stable multipliers kept, the
      speed's ≈ 0.96 and the fixed offset's 0 at the defaults, its unstable ones moved to 0.3
      and 0.2).  With it a start off the periodic stroke approaches it, the deviation of the
      touch-down state falling by about the largest kept multiplier per stroke once the fast
      ones have died out (from 3.0 to 5.5 m/s at the defaults).  An offset the rule asks for
      outside 0–0.6 m is a ValueError naming ``balance``, the stroke and the offset.
    - rotation, stabilization, method, rtol, atol, h, alpha, beta, compiled, dt_out, n_out,
      max_evaluations, max_wall_time : as ``skilib.simulate_free``.  ``compiled`` (default True)
      evaluates the strokes' systems with the compiled kernels (``skilib.engine.codegen``), which
      assemble the friction on the snow's load as the numeric engine does (a column of eq. 101;
      the sliding direction is the stroke's mode, fixed): the same strokes to the integration's
      tolerance, about 30 times faster; False uses the numeric engine.
    - progress : bars on stderr: one step per stroke of the run (its mean speed in m/s), and,
      where the run starts from a periodic stroke not found before, the search's stroke maps
      (``edge_steady_state(progress=True)``); off by default.  The result is the same bit for
      bit (its ``info["runtime_s"]`` aside).

    Falls.  A run with a given v0 and balance None or a ``BalanceRule`` (the open-loop
    experiments) stops with a ValueError naming what and when if the ski stops
    (``SkiStopped``), the snow would pull (``NegativeLoadError``, from the friction on its load)
    or the leg would reach beyond ``max_leg_length`` at a touch-down; the leg force's sign and
    the lean are reported, never refused: from a state off the periodic one the fixed offset
    falls within a few strokes (the leg then pulls, F < 0).  The runs that start from the
    periodic stroke or use ``balance="designed"`` refuse a fall instead, as ``SkaterFalls`` (a
    ValueError) whose message starts with the parameter to change and names the stroke and the
    time: the leg would pull (F < 0, where it crosses 0 on the output grid) or lean beyond
    ``max_lean_deg``, or any of the above (``strokes`` from the periodic stroke with a fixed
    offset: ask for fewer or balance the skater; ``v0`` with the designed rule: start nearer
    the periodic speed; ``balance`` for a given rule).  There the prediction comes first: from
    the periodic stroke with a fixed offset and |λ| > 1, a run of more strokes than the
    linearised map lets even the rounding of the start (ε max|x0|) grow to an order-one
    deviation, ε max|x0| |λ|^(strokes−2) > 1, is refused before integrating (``strokes``;
    at the defaults more than 50; the fall itself comes at stroke 41, where the residual
    grown by the linearised map, 6.9e-13 |λ|^39, is 0.91).  Nearer, where a fall comes depends
    on the start's residual and on the nonlinear map, and the run itself decides.

    Cost: the periodic stroke is a Newton search and its multipliers (≈ 25 stroke maps, a few
    seconds; the designed rule 18 more), kept for the next call with the same ``params`` and
    solver keywords.  On these paths ``info`` also has ``start`` ("periodic" or "periodic
    posture"), ``x_start`` and, from the periodic stroke, ``x0``, ``steady_residual`` (max|Φ(x0) − x0|),
    ``multipliers`` (the fixed offset's), ``balance`` ("designed", "rule" or "fixed"),
    ``balance_rule`` (the ``BalanceRule`` run with, or None), ``poles`` (the designed rule's)
    and ``balanced_multipliers`` (the map's with it, measured).

    Returns a ``SimResult``: ``frame`` (t, stroke, side, ski_x/y, ski_heading_deg, u, cm_x/y/z,
    cm_vx/vy/vz, cm_speed, leg_force [N, > 0 pushing] and leg_force_bw, leg_length [m],
    lean_deg (from the vertical, + inwards), leg_power (F ℓ̇), fore_aft_power, heading_power,
    snow_load [N] and snow_load_bw, friction_force, drag_force, edge_force, constraint_norm,
    nonholonomic_norm, works, q…, qd…), ``strokes`` (the shared columns; mean_power = the
    drivers' mean power, mean_leg_power, mean_fore_aft_power, mean_heading_power, min_leg_force,
    min_snow_load, max_leg_length, max_abs_lean_deg, min_ski_speed, ke_loss_at_start and its
    shares, each work and energy_residual, and the cost of the drivers' work
    (``skilib.strokes.work``): work_<a>_positive, work_<a>_negative for a = leg, fore_aft, heading,
    work_positive, work_negative [J], mean_positive_power, metabolic_power [W] and
    gross_efficiency; the poles' columns of ``skilib.strokes.poles.pole_summary``: work_poles,
    work_legs, mean_pole_power, impulse_poles_x, impulse_leg_x, pole_share, pole_lift, with
    mean_power then including the poles'; the frame has leg_fx/fy/fz, pole_fx/fy/fz, pole_power)
    and ``changes`` (ke_before, ke_after, ke_loss and its
    shares ke_loss_merge, ke_loss_projection, u_before, u_after, cm_height, leg_start,
    touchdown_residual).
    """
    t_start = time.perf_counter()
    progress = check_bool("progress", progress)
    periodic = isinstance(v0, str) and v0 == PERIODIC
    designed = isinstance(balance, str) and balance == DESIGNED
    if isinstance(balance, str) and not designed:
        raise ValueError(f"balance: must be None (a fixed landing offset), a BalanceRule or '{DESIGNED}' (a rule "
                         f"designed for the periodic stroke), got {balance!r}")
    if not periodic:
        v0 = _check_v0(v0)
    solver = dict(first_ski=first_ski, rotation=rotation, stabilization=stabilization, method=method, rtol=rtol,
                  atol=atol, h=h, alpha=alpha, beta=beta, dt_out=dt_out, n_out=n_out, max_evaluations=max_evaluations,
                  max_wall_time=max_wall_time, compiled=compiled)
    if not (periodic or designed):  # the start as given, falls reported: as it always was
        o = edge_run_options(params, strokes=strokes, v0=v0, lean_rate=lean_rate, balance=balance, **solver)
        skating = EdgeSkating(o)
        return skating.result(run_strokes(skating, skating.settings(), strokes=o.strokes, v0=o.v0, progress=progress),
                              t_start)

    # the start from the periodic stroke: every input checked before its search
    o = edge_run_options(params, strokes=strokes, v0=1.0 if periodic else v0, lean_rate=lean_rate,
                         balance=None if designed else balance, **solver)
    if o.lean_rate != 0.0:
        raise ValueError(f"lean_rate: the run starts from the periodic stroke's posture (v0 "
                         f"{'omitted' if periodic else 'with balance=' + repr(DESIGNED)}), whose lean rate it takes; "
                         f"got {lean_rate!r}: give v0 and balance None or a BalanceRule to start at another lean rate")
    p = o.params
    token = _SEARCH_PROGRESS.set(progress)
    try:
        ss = _periodic(p, {k: solver[k] for k in _SOLVER_KEYS}, designed, "balance" if designed else "v0")
    finally:
        _SEARCH_PROGRESS.reset(token)
    x0 = np.asarray(ss.x0, dtype=float)
    rule = ss.balance_rule if designed else balance
    start = tuple(float(v) for v in x0) if periodic else (float(v0), *(float(v) for v in x0[1:]))
    if periodic and rule is None:
        sure, expected = _open_loop_limit(ss)
        if sure is not None and o.strokes > sure:
            lam = float(np.max(np.abs(ss.multipliers)))
            raise ValueError(
                f"strokes: {o.strokes} strokes from the periodic stroke with a fixed landing offset would fall: the "
                f"stroke map's largest multiplier |λ| = {lam:.4g} grows even the rounding of the start "
                f"({np.finfo(float).eps * float(np.max(np.abs(x0))):.2g}) to an order-one deviation by stroke "
                f"{sure + 1} (expect the fall near stroke {expected}, from the periodic stroke's residual "
                f"{float(np.max(np.abs(ss.residual))):.2g}); ask for at most {sure} strokes, or give "
                f"balance='{DESIGNED}' (a landing rule that makes the periodic stroke stable)")
    o = edge_run_options(p, strokes=o.strokes, v0=start[0], lean_rate=start[1], balance=rule, start_state=start,
                         falls=True, **solver)
    skating = EdgeSkating(o)
    try:
        tables = run_strokes(skating, skating.settings(), strokes=o.strokes, v0=o.v0, progress=progress)
    except (Fall, NegativeLoadError, SkiStopped) as exc:
        raise _refusal(exc, skating, ss, periodic, designed, rule, start) from exc
    result = skating.result(tables, t_start)
    result.info.update(
        start="periodic" if periodic else "periodic posture", x_start=list(start), x0=[float(v) for v in x0],
        steady_residual=float(np.max(np.abs(ss.residual))), multipliers=[complex(v) for v in ss.multipliers],
        balance="designed" if designed else "fixed" if rule is None else "rule", balance_rule=rule,
        poles=[complex(v) for v in rule.poles] if designed else None,
        balanced_multipliers=[complex(v) for v in ss.balanced_multipliers] if designed else None)
    result.info["runtime_s"] = time.perf_counter() - t_start
    return result


def _refusal(exc, skating: EdgeSkating, ss, periodic: bool, designed: bool, rule, start) -> SkaterFalls:
    """The ``SkaterFalls`` of a fall in a run from the periodic stroke or with the designed rule:
    the parameter to change first, then the stroke, the time and what gave way."""
    T = skating.stroke_time
    if isinstance(exc, Fall):
        stroke, t, reason = exc.stroke, exc.t, exc.reason
    else:  # the snow pulls, the ski stops: raised inside the stroke being integrated
        stroke = max(skating.stroke_now, 1)
        tau = getattr(exc, "t", None)
        t = (stroke - 1) * T + float(tau) if tau is not None else math.nan
        reason = ("the snow would pull: " if isinstance(exc, NegativeLoadError) else "the ski stopped: ") + str(exc)
    when = f"at stroke {stroke} (t = {t:.4g} s)" if math.isfinite(t) else f"at stroke {stroke}"
    u0 = float(ss.x0[0])
    if periodic and rule is None:
        lam = float(np.max(np.abs(ss.multipliers)))
        parameter = "strokes"
        advice = (f"with a fixed landing offset the periodic stroke is open-loop unstable (largest multiplier |λ| = "
                  f"{lam:.4g}): the start's deviation, its residual {float(np.max(np.abs(ss.residual))):.2g}, grows "
                  f"by |λ| per stroke; ask for at most {stroke - 1} strokes, or give balance='{DESIGNED}'")
    elif designed and not periodic:
        parameter = "v0"
        advice = (f"from v0 = {start[0]:.4g} m/s the designed landing rule cannot bring the skater to its periodic "
                  f"stroke ({u0:.4g} m/s); start nearer {u0:.4g} m/s, or omit v0")
    else:
        parameter = "balance"
        advice = ("the landing rule does not hold the periodic stroke" if not designed else
                  "the designed landing rule does not hold the periodic stroke (unexpected: please report)")
    return SkaterFalls(f"{parameter}: the skater falls {when}: {reason}; {advice}", parameter=parameter, stroke=stroke,
                       t=t, reason=reason)
