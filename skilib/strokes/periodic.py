"""The periodic stroke of any skating model: the fixed point of its stroke map.

The stroke map.  A stroke starts at touch-down with the ski sliding along itself at speed u;
the model's laws fix every other velocity (one degree of freedom), so u is the state.
Integrating the stroke and applying the model's touch-down rule gives the next stroke's start
speed u′ = Φ(u) on the other ski.  The next stroke is the mirror image (Y → −Y) of a stroke on
the first ski started at u′: the models are symmetric about the travel direction X.  The
periodic stroke, the state a long run approaches (thesis §5.6, fig. 41), is the fixed point
u0 = Φ(u0), found by the secant method on Φ(u) − u (a quasi-Newton iteration whose slope comes
from its last two strokes).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..engine.validation import check_bool, check_number
from .run import RunSettings, RunTables, Skating, integrate_stroke, progress_bar, tabulate_stroke

__all__ = ["NoSteadyState", "secant_fixed_point", "newton_fixed_point", "periodic_stroke", "PeriodicStroke",
           "evaluate_stroke_map", "coarse_levels"]


class NoSteadyState(RuntimeError):
    """The stroke map has no fixed point in reach: Φ(u) − u does not close (e.g. a stroke-change
    rule that loses no speed and no speed-dependent resistance: every stroke adds the same
    speed, the run speeds up without bound)."""



#: below this start speed [m/s] a search that ends without a fixed point has found a skater at a halt
HALT_SPEED = 0.1


def _what_the_skater_did(u: float, g: float) -> str:
    """The failed search in a skier's words: near standstill and still losing speed, the skater
    came to a halt (the push does not make up for the resistances at any speed the search
    tried); otherwise nothing more can be said from one point of the map."""
    if abs(u) < HALT_SPEED and g < 0:
        return (f": the skater comes to a halt (near rest, at {u:.3g} m/s, every stroke still ends slower than it "
                "began): "
                "its push cannot make up for friction, drag and the climb at this technique; give it more push "
                "(a larger force or leg extension), a shorter stroke time or a gentler slope")
    return ""


def secant_fixed_point(g, ua: float, *, tol: float, max_iter: int, max_speed: float, who: str,
                       quadratic: bool = True):
    """The fixed point u = Φ(u) of a stroke map by the secant method on g(u) = Φ(u) − u, with a
    trust region and a speed limit; used by ``periodic_stroke``.

    - g : callable u -> (g(u), payload) (the payload: e.g. the stroke simulated from u).
    - ua : the first iterate; the second is ua + g(ua) (one step of the long run u ← Φ(u)).
    - tol, max_iter, max_speed : stop at |g| ≤ tol; ``NoSteadyState`` after ``max_iter``
      evaluations of g, or when an iterate leaves |u| ≤ max_speed.  Each step is at most
      max(1 m/s, |u|) long (a trust region); a flat secant (equal g at both iterates) takes one
      step of u ← Φ(u) instead.
    - From the third iterate on, the last three iterates give the step by inverse quadratic
      interpolation (the interpolant u(g) of degree two through them, at g = 0; Brent 1973,
      ch. 4): its error is e_{k+1} ≈ (h‴(0)/6) g′³ e_k e_{k−1} e_{k−2} (h = g⁻¹), of order
      1.84 against the secant's 1.62, one evaluation fewer where the map is smooth (a stroke
      map is close to linear, so its inverse is close to quadratic).  The step is the secant's
      through the last two where two of the three g are equal, or where the interpolant's step
      differs from the secant's by more than half of it: far from the fixed point the
      interpolant extrapolates (e.g. a map of slope near 1 whose fixed point lies many trust
      regions away), and only a curvature that corrects the secant is trusted.  ``quadratic``
      False: the secant's steps alone (exact for an affine map, and not bent by a kink in
      the map that a quadratic through three iterates would follow).
    - who : the caller's name, for the messages.

    ``ua`` is a finite speed [m/s], ``tol`` and ``max_speed`` finite and > 0 [m/s], ``max_iter``
    an integer >= 2 (the secant needs two iterates); ``ValueError`` naming the argument otherwise.
    Returns (u, g(u), payload, evaluations) of the iterate with the smallest |g|.
    """
    ua, tol, max_iter, max_speed = check_fixed_point_args(ua=ua, tol=tol, max_iter=max_iter, max_speed=max_speed)
    quadratic = check_bool("quadratic", quadratic)
    if not callable(g):
        raise ValueError(f"g: must be a callable u -> (g(u), payload), got {g!r}")
    ga, res = g(ua)
    n = 1
    ub = ua + ga
    best = (abs(ga), ua, ga, res)
    older = None  # the iterate before ua, (u, g), once there is one
    while abs(best[2]) > tol:
        if n >= max_iter:
            raise NoSteadyState(f"{who}: no periodic stroke within {max_iter} strokes; "
                                f"last u = {best[1]!r} m/s, Φ(u) − u = {best[2]:.3e} m/s"
                                + _what_the_skater_did(best[1], best[2]))
        gb, res = g(ub)
        n += 1
        if abs(gb) < best[0]:
            best = (abs(gb), ub, gb, res)
        if abs(gb) <= tol:
            break
        if gb == ga:  # flat secant: fall back to one step of the plain iteration u ← Φ(u)
            older, ua, ga, ub = None, ub, gb, ub + gb
            continue
        step = -gb * (ub - ua) / (gb - ga)
        if quadratic and older is not None and older[1] != ga and older[1] != gb:
            curved = _inverse_quadratic(older, (ua, ga), (ub, gb)) - ub
            if abs(curved - step) <= 0.5 * abs(step):  # the curvature a correction of the secant
                step = curved
        limit = max(1.0, abs(ub))  # a trust region: at most double the speed (or 1 m/s) per step
        older, ua, ga, ub = (ua, ga), ub, gb, ub + max(-limit, min(limit, step))
        if not (math.isfinite(ub) and abs(ub) <= max_speed):
            raise NoSteadyState(f"{who}: no periodic stroke within |u| <= {max_speed:g} m/s: Φ(u) − u = "
                                f"{ga:.4g} m/s at u = {ua:.4g} m/s and the secant goes to u = {ub:.4g} m/s "
                                f"(the start speed changes by about the same amount every stroke)")
    _, u, resid, res = best
    return u, resid, res, n


def _inverse_quadratic(a, b, c) -> float:
    """The zero of g by inverse quadratic interpolation through three iterates (u, g(u)) with
    distinct g: Lagrange's interpolant of u(g) at g = 0 (``secant_fixed_point``)."""
    (ua, ga), (ub, gb), (uc, gc) = a, b, c
    return (ua * gb * gc / ((ga - gb) * (ga - gc)) + ub * ga * gc / ((gb - ga) * (gb - gc))
            + uc * ga * gb / ((gc - ga) * (gc - gb)))


def newton_fixed_point(phi, x0, *, tol: float, max_iter: int, steps, who: str, broyden: bool = False,
                       jacobian=None):
    """The fixed point x = Φ(x) of a stroke map of several variables (a model whose stroke starts
    from more than its ski's speed) by Newton's method on g(x) = Φ(x) − x with a Jacobian of
    forward differences (``steps``, one per variable, in its units).

    - phi : callable x -> (Φ(x), payload).
    - x0 : the first iterate (finite); tol : stop at max|g| ≤ tol (in (0, 1e-2]); max_iter :
      at most this many evaluations of Φ (an integer >= 2).  ``NoSteadyState`` naming the last
      iterate and its residual beyond it; an evaluation that raises ends the search with that
      error (a stroke the model refuses is no step of a fixed point).
    - broyden : after a Jacobian by differences, the next iterations update it by Broyden's
      rank-one formula (Dennis & Schnabel 1996, §8.1: B ← B + (Δg − B Δx) Δxᵀ / Δxᵀ Δx, B ≈ ∂g/∂x)
      from each step's own stroke map, one map per iteration instead of n + 1; a step that
      does not halve max|g| has the next Jacobian by differences again (Newton's step).  The
      updates stop at max|g| ≤ tol/100: the fixed point is Newton's to well within ``tol``;
      the iterates are not Newton's.
    - jacobian : with ``broyden``, an estimate of ∂Φ/∂x to begin with instead of differences (a
      neighbouring problem's: a continuation's last waypoint); it is updated and replaced as
      the updates are (a step that does not halve max|g| has differences next).  A finite
      n × n array; ``ValueError`` naming it otherwise, or without ``broyden``.

    Returns (x, g(x), payload, evaluations, jacobian of Φ at the last Newton point (with
    ``broyden``: the last update's, an approximation)).
    """
    x = np.array(x0, dtype=float)
    steps = np.asarray(steps, dtype=float)
    if x.ndim != 1 or not np.all(np.isfinite(x)):
        raise ValueError(f"x0: must be a finite vector, got {x0!r}")
    if steps.shape != x.shape or not np.all(steps > 0):
        raise ValueError(f"steps: must be {x.size} positive steps, got {steps!r}")
    tol = check_number("tol", tol, positive=True, high=MAX_TOL)
    max_iter = check_number("max_iter", max_iter, integer=True, low=2)
    broyden = check_bool("broyden", broyden)
    eye = np.eye(x.size)
    J = None
    if jacobian is not None:
        if not broyden:
            raise ValueError("jacobian: a starting Jacobian is for broyden=True (Newton's takes differences)")
        try:
            J = np.array(jacobian, dtype=float)
        except (TypeError, ValueError):
            J = None
        if J is None or J.shape != (x.size, x.size) or not np.all(np.isfinite(J)):
            raise ValueError(f"jacobian: must be a finite {x.size} × {x.size} array (an estimate of ∂Φ/∂x), got "
                             f"{jacobian!r}")
    B = None if J is None else J - eye
    # Newton's last step is quadratic and ends far below tol; an update's is superlinear and
    # may end just below it, so the updates go on to tol/100 (one or two maps more)
    stop = tol / 100 if broyden else tol
    fx, payload = phi(x)
    g = fx - x
    n = 1
    while True:
        if np.max(np.abs(g)) <= stop:
            return x, g, payload, n, J
        fresh = B is None or not broyden
        if n + (x.size + 1 if fresh else 1) - 1 > max_iter:  # the maps this iteration takes
            raise NoSteadyState(f"{who}: no periodic stroke within {max_iter} stroke maps; last x = "
                                f"{np.round(x, 8).tolist()}, max|Φ(x) − x| = {np.max(np.abs(g)):.3e}")
        if fresh:
            J = np.empty((x.size, x.size))
            for k in range(x.size):
                d = np.zeros(x.size)
                d[k] = steps[k]
                J[:, k] = (phi(x + d)[0] - fx) / steps[k]
            n += x.size
            B = J - eye
        try:
            dx = np.linalg.solve(B, -g)
        except np.linalg.LinAlgError:
            raise NoSteadyState(f"{who}: the stroke map's Jacobian minus the identity is singular at x = "
                                f"{np.round(x, 8).tolist()}: a multiplier is 1, no isolated fixed point") from None
        x = x + dx
        fx, payload = phi(x)
        n += 1
        g_new = fx - x
        if broyden:
            if np.max(np.abs(g_new)) <= 0.5 * np.max(np.abs(g)):
                B = B + np.outer(g_new - g - B @ dx, dx) / (dx @ dx)
                J = B + eye
            else:
                B = None  # too little progress: differences again at the next iterate
        g = g_new


#: the loosest convergence tolerance a fixed-point search takes [m/s]: 1 cm/s
MAX_TOL = 1e-2


def check_fixed_point_args(*, tol, max_iter, max_speed, **start):
    """The checked (start speed, tol, max_iter, max_speed) of a fixed-point search: the start
    speed (one keyword, under its caller's name) finite and within ±max_speed [m/s]; tol in
    (0, MAX_TOL] [m/s] (a tolerance of inf, or of metres per second, would call a stroke map that
    still changes the speed converged); max_speed finite and > 0 [m/s] (a negative speed limit
    puts every iterate out of reach); max_iter an integer >= 2.  ``ValueError`` naming the
    argument."""
    (name, u), = start.items()
    u = check_number(name, u, unit="m/s")
    tol = check_number("tol", tol, positive=True, high=MAX_TOL, unit="m/s")
    max_iter = check_number("max_iter", max_iter, integer=True, low=2)
    max_speed = check_number("max_speed", max_speed, positive=True, unit="m/s")
    if abs(u) > max_speed:
        raise ValueError(f"{name}: must lie within |u| <= max_speed = {max_speed:g} m/s, got {u!r} m/s")
    return u, tol, max_iter, max_speed


#: coarse stroke maps (``Skating.coarse_maps``): (above, rtol) per level, coarsest first.  A
#: map is integrated at ``rtol`` (atol raised as much, the step cap widened COARSE_STEP_FACTOR
#: times: T/50 → T/20) where the search predicts |Φ(u) − u| above ``above`` [m/s]; a value that
#: comes out at or below ``above`` is integrated again at the run's tolerance.  So a coarse value
#: only steers the search: every value it stops on is the run's.  Measured on the free skater's
#: map at u = 2.068 m/s against the run's 830 right-hand sides (1.41 ms): rtol 1e-6, 314 (0.66 ms),
#: Φ off by 1.9e-9 m/s; rtol 1e-8, 530 (0.92 ms), off by 7.5e-12 m/s.  At 0.5–3 m/s on four
#: parameter sets they are off by at most 2.7e-9 and 1.8e-11 m/s: each level's error lies
#: 3·10⁴ and 5·10³ times below its ``above``, and the finer level's below the default tol
#: (1e-10), so the iterate after it lands within about tol.
COARSE_LEVELS = ((1e-4, 1e-6), (1e-7, 1e-8))
COARSE_STEP_FACTOR = 2.5


def coarse_levels(settings: RunSettings, tol: float) -> list:
    """[(above, settings at the level's tolerance)] of ``COARSE_LEVELS`` for a search to ``tol``
    with the run's ``settings``: the levels coarser than the run's rtol whose ``above`` is at
    least 100 tol (a loose search could otherwise stop where a coarse value passes it)."""
    ig, out = settings.integrator, []
    for above, rtol in COARSE_LEVELS:
        if rtol > ig.rtol and tol <= above / 100:
            coarse = dataclasses.replace(ig, rtol=rtol, atol=min(1.0, ig.atol * rtol / ig.rtol),
                                         max_step=ig.max_step * COARSE_STEP_FACTOR)
            out.append((above, dataclasses.replace(settings, integrator=coarse)))
    return out


class PeriodicStroke:
    """What ``periodic_stroke`` finds: u0, the residual Φ(u0) − u0, the stroke-map evaluations
    (``iterations``; ``history`` (u, Φ(u)) of each; ``coarse_maps``: how many strokes it integrated
    at a coarse tolerance), the periodic stroke's tables (one stroke
    from u0, ``RunTables``; None where not asked for), its ``end``: (the stroke's model, y at
    its start, y at its end), from which the stroke's means are read without its tables
    (``skilib.strokes.run.stroke_means``), and ``change``: the row of the touch-down that ends it
    (``Skating.touch_down``'s; None without the tables)."""

    def __init__(self, u0, residual, iterations, history, tables, events, end=None, coarse_maps=0, change=None):
        self.u0, self.residual, self.iterations, self.history = u0, residual, iterations, history
        self.tables, self.events, self.end, self.coarse_maps = tables, events, end, coarse_maps
        self.change = change


def evaluate_stroke_map(skating: Skating, settings: RunSettings, u: float, dense: bool = False):
    """Φ(u) of ``skating``'s stroke map with ``settings`` (module docstring): one stroke from
    ``skating.start(u)`` (the budget restarted) and its touch-down, as (Φ(u), payload); payload
    (model, the ``Stroke``, y0, segments, y at τ = T, events, ``dense``, change).  ``dense``: the
    stroke keeps its interpolant and splits its signed works (one to tabulate), and is landed by
    ``skating.touch_down`` with its row (``change``); otherwise by ``skating.next_start`` (the same
    state), change None."""
    model, q, qd = skating.start(u)
    settings.budget.start()
    # only a stroke that may be tabulated splits its signed works (the rest read q, q̇ at its end)
    stroke, y0, segments, y_end, events = integrate_stroke(skating, settings, 0, model, q, qd, dense, works=dense)
    n = model.nq
    change = None
    if dense:
        new, q1, qd1, change = skating.touch_down(1, model, y_end[:n].copy(), y_end[n: 2 * n].copy())
    else:
        new, q1, qd1 = skating.next_start(1, model, y_end[:n], y_end[n: 2 * n])
    return skating.start_speed(new, q1, qd1), (model, stroke, y0, segments, y_end, events, dense, change)


def periodic_stroke(skating: Skating, settings: RunSettings, *, u_guess: float, tol: float, max_iter: int,
                    max_speed: float, who: str, progress: bool = False, tables: bool = True) -> PeriodicStroke:
    """The fixed point u0 = Φ(u0) of ``skating``'s stroke map (module docstring) by
    ``secant_fixed_point`` from ``u_guess``, and the periodic stroke's tables.

    Each evaluation of Φ is ``evaluate_stroke_map``'s.  The interpolant of a stroke (for its
    frame) is kept only where the iterate is likely the last: inverse quadratic interpolation's
    |g| falls as
    |g_k| ≈ |g_(k−1)|² / |g_(k−4)| (e_k ∝ e_(k−1) e_(k−2) e_(k−3), the constant from the step
    before; with fewer iterates, or with the secant alone (``skating.quadratic_steps`` False),
    the secant's |g_(k−1)|² / |g_(k−3)|, of order (1 + √5)/2); the steps, and so Φ(u), are the
    same either way.  Otherwise the periodic
    stroke is integrated once more with it.  A stroke kept for the frame is landed by
    ``skating.touch_down``, whose row is the result's ``change``.  The arguments are checked as
    ``secant_fixed_point``'s (``u_guess`` its ``ua``) before any stroke is integrated.

    A model with ``skating.coarse_maps`` has the strokes far from the fixed point integrated at
    a coarse tolerance: the coarsest level of ``COARSE_LEVELS`` whose ``above`` the same
    prediction of |g| exceeds (the first two iterates, which have no prediction, at the
    coarsest), the value redone at the run's tolerance if it comes out at or below ``above``.
    The coarse values steer the steps; the search stops only on the run's.

    ``progress``: show a bar on stderr (stroke-map evaluations, out of ``max_iter``, with the
    last u and Φ(u) − u in m/s).  ``tables`` False: no stroke is tabulated (none keeps an
    interpolant, none is integrated again), and the result's ``tables`` is None; its ``end`` is the
    same stroke's, bit for bit, so the means read from it are the tabulated run's
    (``skilib.strokes.run.stroke_means``): a study that asks only for those skips the tables.
    """
    u_guess, tol, max_iter, max_speed = check_fixed_point_args(u_guess=u_guess, tol=tol, max_iter=max_iter,
                                                               max_speed=max_speed)
    progress = check_bool("progress", progress)
    tables = check_bool("tables", tables)
    if not isinstance(settings, RunSettings):
        raise ValueError(f"settings: must be a RunSettings, got {settings!r}")
    history = []
    bar = progress_bar(max_iter, who, "stroke", progress)
    levels = coarse_levels(settings, tol) if skating.coarse_maps else []
    coarse_maps = 0

    def g(u):
        nonlocal coarse_maps
        r = [abs(w - v) for v, w in history[-4 if skating.quadratic_steps else -3:]]
        predicted = r[-1] ** 2 / r[0] if len(r) >= 2 and r[0] > 0 else math.inf
        dense = tables and predicted <= 10 * tol
        value = None
        for above, run in levels:  # away from u0 a coarse value steers as well: the coarsest level allowed
            if predicted > above:
                coarse_maps += 1
                value, payload = evaluate_stroke_map(skating, run, u)
                if abs(value - u) <= above:  # nearer u0 than the level is for: the run's own map
                    value = None
                break
        if value is None:
            value, payload = evaluate_stroke_map(skating, settings, u, dense)
        history.append((u, value))
        bar.set_postfix_str(f"u {u:.6g} m/s, Φ(u) − u {history[-1][1] - u:.2e} m/s")
        bar.update(1)
        return history[-1][1] - u, payload

    u0, resid, payload, iterations = secant_fixed_point(g, u_guess, tol=tol, max_iter=max_iter,
                                                        max_speed=max_speed, who=who,
                                                        quadratic=skating.quadratic_steps)
    bar.close()
    model, stroke, y0, segments, y_end, events, dense, change = payload
    if not tables:
        return PeriodicStroke(u0, resid, iterations, history, None, events, (model, y0, y_end), coarse_maps)
    if not dense:  # again, with the interpolant (the same start, the same steps)
        _, (model, stroke, y0, segments, y_end, events, _, change) = evaluate_stroke_map(skating, settings, u0, True)
    out = RunTables([], [], [], [], [])
    tabulate_stroke(skating, settings, 0, model, stroke, y0, segments, y_end, events, None, out)
    return PeriodicStroke(u0, resid, iterations, history, out, events, (model, y0, y_end), coarse_maps, change)
