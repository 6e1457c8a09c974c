"""The steady state of the thesis's skier: the periodic stroke of a long run (thesis §5.6).

The thesis reads its steady speed off fig. 41, where the mean speed per stroke "levels off"
after about six strokes; the long run only approaches that state (each stroke closes a fixed
fraction of the remaining gap, see the book's chapter "Results").  This module finds the
state itself.

The stroke map.  A stroke starts from the prescribed pose at τ = 0 (eqs. 187–188) with the
ski sliding along its line at ṡ = u (the model has one degree of freedom, so u fixes every
velocity; ``simulate_run``'s ``v0`` is the same quantity).  Integrating one stroke and applying
the stroke-change rule (``skilib.models.thesis.run.stroke_change``: the CM keeps its horizontal position
and, by default, its velocity along the new ski; ``simulate_run``'s ``stroke_change`` picks the
rule) gives the next stroke's start speed u′ = Φ(u) on the other ski.  The next stroke is the mirror image (Y → −Y) of a stroke on the first ski started at u′:
the model is symmetric about the travel direction X.  The periodic stroke is the fixed point
u0 = Φ(u0); it is found with the secant method on Φ(u) − u, by the machinery every skating model
shares (``skilib.strokes.periodic``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...strokes.periodic import check_fixed_point_args, periodic_stroke
from ...strokes.result import SimResult
from ...vocabulary import HasUnits
from .params import SkierParams, ski_heading
from ...strokes.run import stroke_means
from .run import ThesisSkating, change_row, options_of, simulate_run, stroke_change

__all__ = ["SteadyState", "steady_state", "SteadyMeans", "steady_means", "stroke_map", "change_after"]


@dataclass
class SteadyState(HasUnits):
    """The periodic stroke of a long run (``steady_state``).

    - u0 : ski speed ṡ along the ski at the start of every stroke [m/s] (``v0`` of simulate_run).
    - mean_speed : time average of the CM speed |Ṙ³| over the periodic stroke [m/s].
    - mean_power : time average of the push-off power F·Ṙ³ over the periodic stroke [W].
    - residual : Φ(u0) − u0 [m/s], the start speed of the next stroke minus u0.
    - iterations : stroke-map evaluations (one simulated stroke each).
    - history : DataFrame of every evaluation: u, Φ(u), Φ(u) − u.
    - result : the ``SimResult`` of the periodic stroke (one stroke from ṡ = u0); ``frame`` and
      ``strokes`` are its tables.
    - progress_speed (property) : the CM's distance along X per time over the stroke [m/s];
      mean_leg_power (property) : the leg's net mean power [W], the push-off's: = mean_power.
    - units (property) : {name: unit} of its numbers and its tables' columns (``skilib.vocabulary``).
    """

    _unit_properties = ("progress_speed", "mean_leg_power")

    u0: float
    mean_speed: float
    mean_power: float
    residual: float
    iterations: int
    history: pd.DataFrame
    result: SimResult = field(repr=False)

    @property
    def frame(self) -> pd.DataFrame:
        """The periodic stroke's output table (columns of ``SimResult.frame``)."""
        return self.result.frame

    @property
    def strokes(self) -> pd.DataFrame:
        """The periodic stroke's one-row summary (columns of ``SimResult.strokes``)."""
        return self.result.strokes

    @property
    def params(self) -> SkierParams:
        return self.result.params

    @property
    def progress_speed(self) -> float:
        """The CM's distance along the course (X) per time over the periodic stroke [m/s]."""
        return float(self.strokes["progress_speed"].iloc[0])

    @property
    def mean_leg_power(self) -> float:
        """The leg's net mean power [W]: the push-off's, which is all the thesis's skier counts
        (= ``mean_power``)."""
        return self.mean_power

    def reached_at(self, strokes, rel: float = 0.01):
        """The first stroke of a long run (its ``strokes`` table, or the ``SimResult``) whose
        start speed ṡ is within ``rel`` (relative) of u0, or None if none is."""
        st = getattr(strokes, "strokes", strokes)
        close = np.abs(st["s_dot_start"].to_numpy() - self.u0) <= rel * abs(self.u0)
        return int(st["stroke"].to_numpy()[np.argmax(close)]) if close.any() else None


def change_after(res: SimResult) -> dict:
    """The stroke change after the last stroke of ``res`` (by the run's own rule): the row
    ``simulate_run`` would put in ``changes`` (ke_loss, pe_loss, s_dot_after, ...)."""
    model = res.models[-1]
    end = res.frame.iloc[-1]
    n = model.nq
    q = end[[f"q{j}" for j in range(n)]].to_numpy(float)
    qd = end[[f"qd{j}" for j in range(n)]].to_numpy(float)
    k = len(res.models)
    hdg, side = ski_heading(res.params, k, res.info["first_ski"])
    new, q1, qd1 = stroke_change(res.params, hdg, side, model.push_force, q, qd, res.info["rotation"],
                                 res.info.get("stroke_change", "along_ski"), model.sdot_of(qd))
    return change_row(k, res.params.phase_time, model, q, qd, new, q1, qd1)


def _next_start_speed(res: SimResult) -> float:
    """ṡ at the start of the next stroke after the (single) stroke of ``res``."""
    return float(change_after(res)["s_dot_after"])


def stroke_map(u, params: SkierParams | None = None, **run_kwargs):
    """One evaluation of the stroke map: (Φ(u), the ``SimResult`` of the stroke from ṡ = u).

    ``run_kwargs`` are ``simulate_run``'s keywords (phase_time, skating_angle_deg, c_ext,
    c_rot_deg, push_force, force_scale, first_ski and the solver's); strokes and v0 are set here.
    """
    res = simulate_run(params, strokes=1, v0=float(u), **run_kwargs)
    return _next_start_speed(res), res


def steady_state(params: SkierParams | None = None, *, u0_guess: float | None = None, tol: float = 1e-10,
                 max_iter: int = 30, max_speed: float = 30.0, progress: bool = False, **run_kwargs) -> SteadyState:
    """The periodic stroke of the thesis's skier: Φ(u0) = u0 (module docstring).

    Parameters
    ----------
    params : SkierParams (default SkierParams(): table 9's technique).
    u0_guess : first guess of the start speed [m/s]; None starts from rest, as table 9 does.
    tol : stop when |Φ(u) − u| ≤ tol [m/s]; finite and > 0.
    max_iter : stroke-map evaluations at most (an integer >= 2; each simulates one stroke);
        ``NoSteadyState`` (a RuntimeError) beyond.
    max_speed : the secant's iterates must stay within |u| ≤ max_speed [m/s] (finite, > 0); ``NoSteadyState``
        (a RuntimeError) if one leaves: Φ(u) − u then hardly falls with u, and a periodic stroke,
        if any, is far beyond skiing speeds.
    progress : a bar on stderr, one step per stroke-map evaluation (u and Φ(u) − u in m/s).
    run_kwargs : ``simulate_run`` keywords: phase_time, skating_angle_deg, c_ext, c_rot_deg,
        push_force, force_scale, first_ski, and the solver's (method, rtol, atol, dt_out, ...).

    The secant method on g(u) = Φ(u) − u, started from u_a = u0_guess and u_b = Φ(u_a) (the
    long run's next stroke), the secant's steps alone (``ThesisSkating.quadratic_steps``: the
    map is affine without air drag, and kinked at rest), each step at most max(1 m/s, |u|) long; with the default stroke
    change Φ is smooth and close to linear with slope below 1 (each change of ski keeps part of
    the speed), so it converges in a handful of strokes.

    Examples
    --------
    >>> import skilib as sk
    >>> p = sk.SkierParams()
    >>> st = sk.steady_state(p, push_force=sk.stand_in_push_force(p, p.phase_time), dt_out=0.05)
    >>> abs(st.residual) <= 1e-10 and st.mean_speed > 0
    True
    """
    t_start = time.perf_counter()
    o, _, found = _periodic(params, u0_guess, tol, max_iter, max_speed, progress, run_kwargs, True, "steady_state")
    res = o.result(found.tables, t_start)
    s = res.strokes.iloc[0]
    history = pd.DataFrame([dict(u=u, phi=phi, residual=phi - u) for u, phi in found.history])
    return SteadyState(u0=float(found.u0), mean_speed=float(s["mean_speed"]), mean_power=float(s["mean_power"]),
                       residual=float(found.residual), iterations=found.iterations, history=history, result=res)


@dataclass(frozen=True)
class SteadyMeans:
    """The periodic stroke's means without its tables (``steady_means``): u0 [m/s], mean_speed
    (the time average of |Ṙ³|) [m/s], mean_power (of the push-off F·Ṙ³) [W], residual Φ(u0) − u0
    [m/s] and iterations (stroke-map evaluations), each ``steady_state``'s bit for bit."""

    u0: float
    mean_speed: float
    mean_power: float
    residual: float
    iterations: int


def _periodic(params, u0_guess, tol, max_iter, max_speed, progress, run_kwargs, tables, who):
    """The checked options and ``periodic_stroke`` of ``steady_state`` and ``steady_means``."""
    for k in ("strokes", "v0"):
        if k in run_kwargs:
            raise ValueError(f"{k}: set by {who} (one stroke from ṡ = u), not an argument")
    ua, tol, max_iter, max_speed = check_fixed_point_args(u0_guess=0.0 if u0_guess is None else u0_guess, tol=tol,
                                                          max_iter=max_iter, max_speed=max_speed)
    o = options_of(params, run_kwargs)
    skating = ThesisSkating(o)
    return o, skating, periodic_stroke(skating, o.settings(), u_guess=ua, tol=tol, max_iter=max_iter,
                                       max_speed=max_speed, who=who, progress=progress, tables=tables)


def steady_means(params: SkierParams | None = None, *, u0_guess: float | None = None, tol: float = 1e-10,
                 max_iter: int = 30, max_speed: float = 30.0, progress: bool = False, **run_kwargs) -> SteadyMeans:
    """``steady_state``'s u0, mean_speed, mean_power, residual and iterations, bit for bit, without
    the periodic stroke's tables: the means are the integrals the stroke carries as states (its
    CM speed's and its push's work) at the stroke's end, so no stroke is tabulated or integrated
    again, and no frame, summary or energy balance is built (about a third of a ``steady_state``;
    what a study that keeps only the means, such as the sensitivity chapter's Sobol study, asks
    for).  Arguments, checks and exceptions as ``steady_state``'s."""
    _, skating, found = _periodic(params, u0_guess, tol, max_iter, max_speed, progress, run_kwargs, False,
                                  "steady_means")
    model, _, y_end = found.end
    mean_speed, mean_power = stroke_means(skating, model, y_end)
    return SteadyMeans(u0=float(found.u0), mean_speed=float(mean_speed), mean_power=float(mean_power),
                       residual=float(found.residual), iterations=found.iterations)
