"""Runs of the free skater (``skilib.skier.free``): alternating strokes joined at touch-down, and
the periodic stroke (the steady state).  The strokes are integrated, book-kept and tabulated by
the same machinery as the thesis's skier (``skilib.skier.stroke``, ``work``, ``frame``)."""
from __future__ import annotations

import inspect
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..engine.options import Integrator, Stabilization
from ..engine.solver import consistent_initial_conditions
from ..engine.validation import check_bool, check_choice, check_number
from .frame import output_grid, stroke_frame
from .free import FREE_WORK_TERMS, FreeLaws, FreeSkaterModel, FreeSkaterParams, with_overrides
from .params import ROTATIONS, SIDES
from .result import SimResult
from .steady import NoSteadyState, secant_fixed_point
from .stroke import MAX_STEP_DIVISOR, Budget, Stroke

__all__ = ["simulate_free", "free_steady_state", "FreeSteadyState", "touch_down"]

_CHANGE_COLUMNS = ["stroke", "t", "ke_before", "ke_after", "ke_loss", "u_before", "u_after", "cm_jump"]


def _side(first_ski, k):
    return SIDES[(SIDES.index(first_ski) + k) % 2]


class _Stance:
    """The strokes on one side, built once: the model with its ski's origin at the global origin,
    its consistent pose at τ = 0 there, the velocity rows at that pose and the compiled systems.
    A stroke on this side anywhere else is this model moved (``FreeSkaterModel.moved``): its pose
    is this one translated, and its rows, which see only the ski's height and orientation and the
    centre of mass relative to the ski, are the same."""

    def __init__(self, params: FreeSkaterParams, side: str, laws: FreeLaws | None, rotation: str):
        self.model = m = FreeSkaterModel(params, side, np.zeros(3), laws, rotation)
        system = m.system(1)
        self.q = consistent_initial_conditions(system, 0.0, m.pose(0.0), independent=[0, 1])[0]
        jet = system.constraint_jet(0.0, self.q)
        self.e, n = m.axes(0.0)
        self.offset = float(m.offset_law(0.0)[0]) * n  # the centre of mass from the ski's origin, sideways
        along_ski, along_cm = np.zeros(m.nq), np.zeros(m.nq)
        along_ski[:3], along_cm[m.cm] = self.e, self.e
        # the velocity rows and one more: the ski's (start) or the centre of mass's (touch-down)
        # velocity along the ski; one degree of freedom, so either fixes every velocity
        self.start_rows = np.vstack([jet.J, along_ski])
        self.land_rows = np.vstack([jet.J, along_cm])
        self.ct = -np.array(jet.t, dtype=float)
        self.compiled = {}  # the compiled systems of the strokes on this side (``Stroke``'s ``systems``)

    def start(self, u: float):
        """The model at the origin and its q, q̇ at τ = 0 with the ski's speed u along itself."""
        qd = np.linalg.solve(self.start_rows, np.concatenate([self.ct, [u]]))
        return self.model, self.q.copy(), qd

    def land(self, old: FreeSkaterModel, q, qd):
        """The touch-down of this side's ski after a stroke of ``old`` ending at (q, q̇) (see
        ``touch_down``)."""
        P = q[old.cm] - self.offset
        P[2] = 0.0
        new = self.model.moved(P)
        q1 = self.q.copy()
        q1[:3] += P
        q1[new.cm] += P
        qd1 = np.linalg.solve(self.land_rows, np.concatenate([self.ct, [self.e @ qd[old.cm]]]))
        return new, q1, qd1


def touch_down(old: FreeSkaterModel, q, qd, side: str):
    """The next stroke's model and state: the other ski lands under the centre of mass, which
    keeps its position and its velocity along the new ski; the edge takes the rest."""
    return _Stance(old.params, side, old.laws, old.rotation).land(old, q, qd)


@dataclass(frozen=True)
class _Options:
    params: FreeSkaterParams
    laws: FreeLaws | None
    strokes: int
    v0: float
    first_ski: str
    rotation: str
    stabilization: Stabilization
    integrator: Integrator
    grid: np.ndarray
    compiled: bool
    budget: Budget


def _options(params, *, strokes, v0, first_ski, laws, rotation, stabilization, method, rtol, atol, h, alpha, beta,
             compiled, dt_out, n_out, max_evaluations, max_wall_time) -> _Options:
    p = with_overrides(params)
    strokes = check_number("strokes", strokes, integer=True, low=1, high=10_000)
    v0 = check_number("v0", v0, low=-50.0, high=50.0, unit="m/s")
    first_ski = check_choice("first_ski", first_ski, SIDES)
    rotation = check_choice("rotation", rotation, tuple(ROTATIONS))
    if laws is not None and not isinstance(laws, FreeLaws):
        raise ValueError(f"laws: must be None or a FreeLaws, got {type(laws).__name__}")
    stab = Stabilization.make(stabilization, h=h, alpha=alpha, beta=beta)
    T = p.stroke_time
    integ = Integrator.make(method, rtol=rtol, atol=atol, max_step=T / MAX_STEP_DIVISOR, stabilization=stab)
    budget = Budget(check_number("max_evaluations", max_evaluations, integer=True, low=1),
                    None if max_wall_time is None else check_number("max_wall_time", max_wall_time, positive=True))
    return _Options(p, laws, strokes, v0, first_ski, rotation, stab, integ, output_grid(T, dt_out, n_out),
                    check_bool("compiled", compiled), budget)


def _summary(k, model, y0, y_end, frame, T, change) -> dict:
    n, cm = model.nq, model.cm
    W = {key: y_end[2 * n + i] for i, key in enumerate(model.extra_states)}
    q, qd, q0, qd0 = y_end[:n], y_end[n: 2 * n], y0[:n], y0[n: 2 * n]
    system = model.system(1)
    ke_start, ke_end = system.kinetic_energy(q0, qd0), system.kinetic_energy(q, qd)
    works = {key: W[key] for key in FREE_WORK_TERMS}
    residual = ke_end - ke_start - sum(works.values()) - W["projection_energy"]
    return dict(stroke=k + 1, side=model.side, u_start=model.ski_speed(0.0, q0, qd0), u_end=model.ski_speed(T, q, qd),
                mean_speed=W["int_speed"] / T, mean_vx=float(q[cm][0] - q0[cm][0]) / T,
                mean_vy=float(q[cm][1] - q0[cm][1]) / T, mean_power=W["work_leg"] / T,
                peak_leg_force_bw=float(frame["leg_force_bw"].max()),
                ke_loss_at_start=change["ke_loss"] if change else 0.0, ke_start=ke_start, ke_end=ke_end,
                **works, projection_energy=W["projection_energy"], energy_residual=residual,
                distance_x=float(q[cm][0] - q0[cm][0]), max_constraint_norm=float(frame["constraint_norm"].max()),
                max_nonholonomic_norm=float(frame["nonholonomic_norm"].max()))


def simulate_free(params: FreeSkaterParams | None = None, *, strokes: int, v0: float = 0.0, first_ski: str = "right",
                  laws: FreeLaws | None = None, rotation: str = "zxz", stabilization: str = "baumgarte",
                  method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-10, h: float = 0.05, alpha=None,
                  beta=None, compiled: bool = True, dt_out: float = 0.01, n_out: int | None = None,
                  max_evaluations: int = 5_000_000, max_wall_time: float | None = None) -> SimResult:
    """A run of the free skater: ``strokes`` alternating strokes, the first on ``first_ski``
    with its ski's origin at the global origin and speed u = ``v0`` along itself.

    - params : FreeSkaterParams (defaults of the book's chapter "The free skater").
    - laws : None for the default laws, or a ``FreeLaws`` of time functions (with derivatives).
    - rotation, stabilization, method, rtol, atol, h, alpha, beta, compiled, dt_out, n_out,
      max_evaluations, max_wall_time : as ``skilib.simulate_run``.

    Returns a ``SimResult``: ``frame`` (one row per output time: t, stroke, side, ski_x/y,
    ski_heading_deg, u, cm_x/y/z, cm_vx/vy/vz, cm_speed = |Ṙ_B|, leg_fx/fy/fz (the leg's force
    on B), leg_force_bw, leg_power, friction_force, drag_force, snow_force, edge_force,
    constraint_norm, nonholonomic_norm, works, q…, qd…), ``strokes`` (u_start, mean_speed,
    mean_vx, mean_power (the leg's), peak_leg_force_bw, ke_loss_at_start, each work and the
    energy_residual) and ``changes`` (one row per touch-down).

    Examples
    --------
    >>> import skilib as sk
    >>> res = sk.simulate_free(strokes=2, v0=3.0)
    >>> bool(res.strokes["energy_residual"].abs().max() < 1e-6 and res.frame["nonholonomic_norm"].max() < 1e-8)
    True
    """
    t_start = time.perf_counter()
    o = _options(params, strokes=strokes, v0=v0, first_ski=first_ski, laws=laws, rotation=rotation,
                 stabilization=stabilization, method=method, rtol=rtol, atol=atol, h=h, alpha=alpha, beta=beta,
                 compiled=compiled, dt_out=dt_out, n_out=n_out, max_evaluations=max_evaluations,
                 max_wall_time=max_wall_time)
    T = o.params.stroke_time
    frames, srows, crows, erows, models = [], [], [], [], []
    nfev = 0
    model = q = qd = None
    stances = {}
    o.budget.start()
    for k in range(o.strokes):
        change = None
        side = _side(o.first_ski, k)
        if side not in stances:
            stances[side] = _Stance(o.params, side, o.laws, o.rotation)
        if k == 0:
            model, q, qd = stances[side].start(o.v0)
        else:
            old, q_old, qd_old = model, q, qd
            model, q, qd = stances[side].land(old, q_old, qd_old)
            ke_b, ke_a = old.system(1).kinetic_energy(q_old, qd_old), model.system(1).kinetic_energy(q, qd)
            change = dict(stroke=k + 1, t=k * T, ke_before=ke_b, ke_after=ke_a, ke_loss=ke_b - ke_a,
                          u_before=old.ski_speed(T, q_old, qd_old), u_after=model.ski_speed(0.0, q, qd),
                          cm_jump=float(np.linalg.norm(q[model.cm] - q_old[old.cm])))
            crows.append(change)
        models.append(model)
        stroke = Stroke(model, o.stabilization, o.integrator, o.compiled, budget=o.budget, stroke_number=k + 1,
                        systems=stances[side].compiled)
        y0 = np.concatenate([q, qd, np.zeros(len(model.extra_states))])
        segments, y_end, events = stroke.run(y0, T)
        nfev += stroke.nfev
        erows += [dict(stroke=k + 1, tau=te, t=k * T + te, mode_before=a, mode_after=b) for te, a, b in events]
        frames.append(stroke_frame(model, stroke, segments, o.grid, y_end, k + 1, k * T))
        srows.append(_summary(k, model, y0, y_end, frames[-1], T, change))
        q, qd = y_end[: model.nq], y_end[model.nq: 2 * model.nq]
    st = o.stabilization
    info = dict(model="free", method=o.integrator.method, rtol=o.integrator.rtol, atol=o.integrator.atol,
                alpha=st.alpha, beta=st.beta, stabilization=st.kind, rotation=o.rotation, compiled=o.compiled,
                v0=o.v0, first_ski=o.first_ski, nfev=nfev, work_terms=FREE_WORK_TERMS,
                runtime_s=time.perf_counter() - t_start)
    return SimResult(frame=pd.concat(frames, ignore_index=True), strokes=pd.DataFrame(srows),
                     changes=pd.DataFrame(crows, columns=_CHANGE_COLUMNS),
                     events=pd.DataFrame(erows, columns=["stroke", "tau", "t", "mode_before", "mode_after"]),
                     params=o.params, models=models, info=info)


@dataclass
class FreeSteadyState:
    """The periodic stroke of the free skater (``free_steady_state``): a stroke from u0 and the
    touch-down give u0 back on the other ski, and the next stroke is the mirror image (Y → −Y).

    - u0 : the ski's speed along itself at every touch-down [m/s] (``v0`` of simulate_free).
    - mean_speed : time average of the centre of mass's speed |Ṙ_B| over the stroke [m/s]; it
      counts the lateral sway as well as the progress.
    - progress_speed : the centre of mass's distance along X (the direction of travel) per time,
      ΔX_B / T [m/s] (``mean_vx`` of the ``strokes`` table): how fast the skier gets on, the
      lateral sway left out.
    - mean_power : time average of the leg's power over the stroke [W].
    - peak_leg_force_bw : the largest leg force over the stroke [body weights].
    - frame, strokes : the periodic stroke's tables (``simulate_free``'s ``frame`` and ``strokes``).
    - iterations : stroke-map evaluations (one simulated stroke each).
    - residual : |Φ(u0) − u0| [m/s].
    - history : every evaluation (u, Φ(u)).
    """

    u0: float
    mean_speed: float
    progress_speed: float
    mean_power: float
    peak_leg_force_bw: float
    frame: pd.DataFrame
    strokes: pd.DataFrame
    iterations: int
    residual: float
    history: list


def free_steady_state(params: FreeSkaterParams | None = None, *, u_guess: float = 3.0, tol: float = 1e-10,
                      max_iter: int = 30, max_speed: float = 30.0, **kwargs) -> FreeSteadyState:
    """The steady state of the free skater: u0 with Φ(u0) = u0, Φ the stroke map (the ski's
    speed at the start of the next stroke after one stroke from u0 and the touch-down), by the
    secant method of the thesis's skier's ``steady_state`` (``skilib.skier.steady``: trust region,
    ``max_speed``) to |Φ(u) − u| ≤ ``tol``.  ``kwargs`` go to ``simulate_free`` (laws, rotation, ...).

    - u_guess : first iterate [m/s] (> 0); the second is Φ(u_guess).
    - max_iter : stroke-map evaluations at most; max_speed : the iterates must stay within
      |u| ≤ max_speed [m/s].  ``NoSteadyState`` (a RuntimeError) beyond either.

    A periodic stroke is a gliding skating stroke only if the ski lands moving forwards
    (u0 > 0) and keeps sliding forwards to the next touch-down (the ski's speed never reaches
    zero).  Any other fixed point (with the default laws, e.g. at skating angles of 10° and 15°: a
    sideways sway at u0 ≈ 0 that hardly progresses along X) raises ``NoSteadyState`` with u0, the
    least ski speed in the stroke and the skating angle.

    Examples
    --------
    >>> import skilib as sk
    >>> ss = sk.free_steady_state()
    >>> bool(ss.residual <= 1e-10 and 0 < ss.progress_speed < ss.mean_speed)
    True
    """
    p = with_overrides(params)
    tol = check_number("tol", tol, positive=True)
    max_iter = check_number("max_iter", max_iter, integer=True, low=2)
    max_speed = check_number("max_speed", max_speed, positive=True, unit="m/s")
    u_a = check_number("u_guess", u_guess, positive=True, unit="m/s")
    for k in ("strokes", "v0"):
        if k in kwargs:
            raise ValueError(f"{k}: set by free_steady_state (one stroke from u), not an argument")
    o = _run_options(p, kwargs)
    T = o.params.stroke_time
    first, other = (_Stance(o.params, side, o.laws, o.rotation) for side in (o.first_ski, _side(o.first_ski, 1)))
    stroke = Stroke(first.model, o.stabilization, o.integrator, o.compiled, budget=o.budget, stroke_number=1,
                    systems=first.compiled)
    history = []

    def g(u):  # one stroke from u, then the touch-down on the other ski
        # the interpolant (for the frame) only where this is likely the last iterate: the secant's
        # |g| falls as |g_k| ≈ |g_{k-1}|² / |g_{k-3}| (order (1 + √5)/2); the steps, and so
        # Φ(u), are the same either way
        r = [abs(phi - v) for v, phi in history[-3:]]
        dense = len(r) >= 2 and r[0] > 0 and r[-1] ** 2 / r[0] <= 10 * tol
        model, q, qd = first.start(u)
        y0 = np.concatenate([q, qd, np.zeros(len(model.extra_states))])
        o.budget.start()
        segments, y_end, events = stroke.run(y0, T, dense)
        n = model.nq
        new, q1, qd1 = other.land(model, y_end[:n], y_end[n: 2 * n])
        history.append((u, new.ski_speed(0.0, q1, qd1)))
        return history[-1][1] - u, (y0, segments, y_end, events, dense)

    u0, resid, (y0, segments, y_end, events, dense), iterations = secant_fixed_point(
        g, u_a, tol=tol, max_iter=max_iter, max_speed=max_speed, who="free_steady_state")
    if not dense:  # again, with the interpolant
        o.budget.start()
        segments, y_end, events = stroke.run(y0, T)
    model = first.model
    frame = stroke_frame(model, stroke, segments, o.grid, y_end, 1, 0.0)
    strokes = pd.DataFrame([_summary(0, model, y0, y_end, frame, T, None)])
    row = strokes.iloc[0]
    _check_gliding(p, u0, frame, row, events)
    return FreeSteadyState(u0=u0, mean_speed=float(row["mean_speed"]), progress_speed=float(row["mean_vx"]),
                           mean_power=float(row["mean_power"]), peak_leg_force_bw=float(row["peak_leg_force_bw"]),
                           frame=frame, strokes=strokes, iterations=iterations, residual=abs(resid),
                           history=history)


def _run_options(params: FreeSkaterParams, kwargs: dict) -> _Options:
    """``simulate_free``'s options of one stroke from its keywords ``kwargs`` (its defaults for
    the others; an unknown keyword is a TypeError, as in a call of simulate_free)."""
    bound = inspect.signature(simulate_free).bind(params, strokes=1, **kwargs)
    bound.apply_defaults()
    args = dict(bound.arguments)
    return _options(args.pop("params"), **args)


def _check_gliding(p: FreeSkaterParams, u0: float, frame: pd.DataFrame, row, events) -> None:
    """``NoSteadyState`` unless the periodic stroke (from u0; its frame, its row of the strokes
    table and its stick/slip events) glides: u0 > 0 and the ski's speed along itself stays above
    zero to the touch-down."""
    u_min = min(u0, float(frame["u"].min()), float(row["u_end"]))
    if len(events):  # the ski's speed reached zero between output points
        u_min = min(u_min, 0.0)
    if u0 > 0 and u_min > 0:
        return
    what = ("the ski lands at rest or moving backwards" if u0 <= 0
            else "the ski stops (and slides back) during the stroke")
    raise NoSteadyState(
        f"free_steady_state: no gliding stroke at skating_angle_deg = {p.skating_angle_deg:g}°: the fixed point of "
        f"the stroke map has u0 = {u0:.4g} m/s and the ski's least speed in the stroke is {u_min:.4g} m/s, so "
        f"{what}; the centre of mass progresses at {float(row['mean_vx']):.3g} m/s along X (its mean speed, "
        f"sideways sway included, is {float(row['mean_speed']):.3g} m/s)")
