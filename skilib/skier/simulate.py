"""Simulations of the skier: one active phase (thesis §5.5, table 7) and long runs of
alternating strokes (§5.6, table 9, figs. 39–44).

Each stroke integrates the equations of motion of eq. 101 for the model of
``skilib.skier`` over the phase time τ ∈ [0, T].  Three things are added here:

Friction at zero speed.  The ski feels Coulomb friction of constant magnitude μ (table 8
mean) along its axis, opposing its velocity.  At ṡ = 0 the friction takes whatever value in
[−μ, μ] keeps the ski at rest (static = kinetic magnitude), so friction alone never drives
the ski backwards.  This is integrated exactly, as a hybrid system, not regularised:
sliding forwards (friction −μe), sliding backwards (+μe) and stuck (one more constraint
row, (R¹ − P − s* e)·e = 0, whose multiplier is the static friction force).  A sliding
segment ends at the event ṡ = 0; the next mode is the one whose acceleration is consistent
(slide in the direction of the net driving force if it exceeds μ, else stick).  A stuck
segment ends when the needed friction reaches μ.

Stroke change (SPEC §3 ⚑).  At τ = T the next stroke starts on the other ski from its
own prescribed pose at τ = 0 (ℓ = ℓ0, γ = γ0).  The new ski is put where the CM keeps its
horizontal position (the ski is on z = 0 and the pose fixes the CM height, so the height
jumps by ℓ0 cos γ0 − ℓ(T) cos γ(T); it is reported).  The new velocities solve
Cq q̇⁺ = −Ct (17 rows) with e′·(Ṙ³⁺ − Ṙ³⁻) = 0: the CM keeps its velocity along the new
ski e′; the rest is taken by the ski's edge (a plastic plant).  The kinetic energy lost is
reported per change.

Work–energy bookkeeping.  The works of the push-off, friction, gravity, drag and of the
constraint forces (Qc = −Cqᵀλ, power −λᵀCq q̇, which only the rheonomic drivers C14–C17
make non-zero) are integrated as extra states of the ODE, as are ∫|Ṙ³| dτ (mean speed)
and ∫|Ẋ³|, ∫|Ẏ³| dτ.  Since q̇ᵀQv = −½q̇ᵀṀq̇ for a Lagrangian system, d(KE)/dt is the
sum of these powers, which the tests check.

Rotation coordinates and stabilization (issue 7).  ``rotation='euler_parameters'`` runs
the same model with four Euler parameters per body (21 coordinates, 17 + 3 rows; see
``skilib.skier``).  ``stabilization`` chooses how the index-1 form of eq. 101 is kept on
C = 0: 'baumgarte' (default, eqs. 99–101), 'none', or 'projection': eq. 101 without
Baumgarte terms, and after every accepted Runge–Kutta step positions are projected onto
C(q, τ) = 0 and velocities onto Cq q̇ = −Ct with the mass-weighted minimal correction
(``skilib.engine.solver.project``).  The friction switches are still located inside the step
(the step's dense output and a root finder, as ``solve_ivp`` does).  The kinetic energy
the projections change is its own term of the work–energy balance, ``projection_energy``.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy.integrate import DOP853, RK23, RK45, solve_ivp
from scipy.optimize import brentq

from ..engine.errors import IntegrationError
from ..data.forcedata import default_push_force as _fitted_push_force
from .model import ROTATIONS, SIDES, SkierModel, SkierParams, ski_heading
from ..engine.codegen import CompiledSystem, compile_system
from ..engine.rotation import cross3
from ..engine.solver import baumgarte, consistent_initial_conditions, project

__all__ = ["SimResult", "simulate_phase", "simulate_run", "stand_in_push_force"]

#: the stand-in push-off curve's peak, in body weights (see stand_in_push_force)
STAND_IN_PEAK_BW = 1.2
_N_BASE_ROWS = 17  # C1–C17, the first rows of every skier system in either parametrization
STABILIZATIONS = ("baumgarte", "projection", "none")
#: explicit Runge–Kutta methods that the projection loop can step
_RK_METHODS = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853}
# extra ODE states after q, q̇; projection_energy has zero rate and takes the projections' jumps
_WORK_KEYS = ("work_push", "work_friction", "work_gravity", "work_drag", "work_joints",
              "work_drivers", "work_drivers_ct", "int_speed", "int_abs_vx", "int_abs_vy",
              "projection_energy")
_NX = len(_WORK_KEYS)
_I_PROJ = _WORK_KEYS.index("projection_energy")
_EPS = np.finfo(float).eps
_SPEED_EPS = 1e-12  # |ṡ| below this is "at rest" when a stroke starts
#: the integrator's step is at most T / MAX_STEP_DIVISOR, so that the ski's speed cannot
#: cross zero twice inside one step unseen by the event detection
MAX_STEP_DIVISOR = 50.0


# -- push-off input -----------------------------------------------------------------
def stand_in_push_force(params: SkierParams, phase_time: float):
    """STAND-IN push-off F(τ) = 1.2 M g sin(πτ/T): a smooth half-sine of peak 1.2 body weights.

    Not data: an analytic alternative to the Fourier fit of the (synthetic) force-plate
    push-off of thesis §5.3 / fig. 32 (``skilib.data.forcedata.default_push_force``); pass it
    as ``push_force``.
    """
    peak = STAND_IN_PEAK_BW * params.mass * params.g
    T = float(phase_time)

    def F(tau):
        return peak * math.sin(math.pi * tau / T)

    return F


class _ScaledPush:
    """c·F(τ): the push-off scaled by ``force_scale`` (fig. 42's "half force" is c = 0.5).
    Compiled into the kernel when F can write itself symbolically (the Fourier fit)."""

    def __init__(self, base, scale: float):
        self.base, self.scale = base, scale

    def __call__(self, tau):
        return self.scale * self.base(tau)

    def symbolic(self, tau):
        if not callable(getattr(type(self.base), "symbolic", None)):
            raise NotImplementedError("the scaled push-off is a plain callable")
        return self.scale * self.base.symbolic(tau)


def _default_push_force(params: SkierParams, phase_time: float):
    """The push-off curve used when ``push_force=None``: returns (F(τ), description).

    The Fourier fit (eq. 102) of the representative push-off of the SYNTHETIC force-plate
    data set, stretched to the phase (thesis fig. 32): ``skilib.data.forcedata.default_push_force``.
    It is the curve of the synthetic 75 kg skier and does not scale with ``params.mass``.
    This function is the single switch point: ``stand_in_push_force`` is the analytic
    alternative.
    """
    return _fitted_push_force(phase_time), (
        "skilib.data.forcedata.default_push_force: Fourier fit of SYNTHETIC force-plate data")


# -- equations of motion with the pieces needed for the bookkeeping ------------------
def _eom(system, t, q, qd, alpha, beta):
    """Eq. 101 solved for (q̈, λ), with the constraint jet and each force's Q."""
    return system.equations_of_motion(t, q, qd, alpha, beta)


class _Rows:
    """Where the skier's rows sit in one system's constraint vector (either parametrization).

    drivers: the rheonomic C14–C17; stick: the stuck-ski row or None; joints: every other
    row (C1–C13, and with Euler parameters the normalization rows, whose multipliers
    vanish: A(p/|p|) makes every other term blind to the length of p); model: the rows of
    the model itself (all but the stick row), over which ``constraint_norm`` is taken.
    """

    def __init__(self, model, system):
        nc = system.nc
        self.drivers = slice(system.rows(model.DRIVER_NAMES[0]).start, system.rows(model.DRIVER_NAMES[-1]).stop)
        self.stick = system.rows("stick") if any(c.name == "stick" for c in system.constraints) else None
        cuts = sorted({0, nc, self.drivers.start, self.drivers.stop}
                      | ({self.stick.start, self.stick.stop} if self.stick else set()))
        self.joints = [slice(a, b) for a, b in zip(cuts[:-1], cuts[1:])
                       if b > a and slice(a, b) != self.drivers and slice(a, b) != self.stick]
        keep = np.ones(nc, dtype=bool)
        if self.stick is not None:
            keep[self.stick] = False
        self.model = np.nonzero(keep)[0]
        self.i3 = model.cm.start  # R³ (the CM) in q

    def stick_index(self) -> int:
        return self.stick.start


def _powers(qd, lam, jet, Qf, rows):
    """Powers feeding the work states (order of _WORK_KEYS up to work_drivers_ct)."""
    p = {k: (Qf[k] @ qd if k in Qf else 0.0) for k in ("push", "friction", "gravity", "drag")}
    cqqd = jet.vel - jet.t  # Cq q̇
    pc = -lam * cqqd        # power of each row's constraint force
    dr = rows.drivers
    w_fric = p["friction"] + (pc[rows.stick].sum() if rows.stick is not None else 0.0)  # static friction
    return (p["push"], w_fric, p["gravity"], p["drag"], sum(pc[sl].sum() for sl in rows.joints), pc[dr].sum(),
            lam[dr] @ jet.t[dr])


def _generic_rhs(system, n, alpha, beta, rows):
    i3 = rows.i3

    def rhs(t, y):
        q, qd = y[:n], y[n: 2 * n]
        qdd, lam, jet, Qf = _eom(system, t, q, qd, alpha, beta)
        v3 = qd[i3: i3 + 3]
        return np.concatenate([qd, qdd, _powers(qd, lam, jet, Qf, rows),
                               (math.sqrt(v3 @ v3), abs(v3[0]), abs(v3[1]), 0.0)])

    return rhs


def _compiled_rhs(system, n, alpha, beta, rows):
    """The right-hand side of ``_Stroke`` with the compiled kernel: the same states as the
    generic one (``_powers``), the powers summed from the ones the kernel leaves in
    ``system._pw`` (Q_f·q̇ per force, −λ_r (Cq q̇)_r and λ_r Ct_r per row) by one matrix."""
    force_rows = {f.name: i for i, f in enumerate(system._traced_forces)}
    if system._numeric_forces or set(force_rows) - {"push", "friction", "gravity", "drag"}:
        return _generic_rhs(system, n, alpha, beta, rows)  # pragma: no cover - the skier's forces are all traced
    sl = system.power_slices
    nf, m = sl["forces"].stop, system.nc
    W = np.zeros((7, nf + 2 * m))  # rows in the order of _WORK_KEYS[:7]

    def put(i, force=None, rows_=(), ct=False):
        if force is not None:
            W[i, force] = 1.0
        base = nf + m if ct else nf
        for r in rows_:
            W[i, base + r.start: base + r.stop] = 1.0

    put(0, force_rows["push"])
    put(1, force_rows.get("friction"), [rows.stick] if rows.stick is not None else [])  # static friction too
    put(2, force_rows.get("gravity"))
    put(3, force_rows.get("drag"))
    put(4, rows_=rows.joints)
    put(5, rows_=[rows.drivers])
    put(6, rows_=[rows.drivers], ct=True)
    pw, i3, k = system._pw, rows.i3, 2 * n
    out = np.zeros(2 * n + _NX)  # the projection_energy rate stays 0
    solve, sqrt = system._solve, math.sqrt

    def rhs(t, y):
        qd = y[n: 2 * n]
        x = solve(t, y[:n], qd, alpha, beta)
        out[:n] = qd
        out[n: k] = x[:n]
        out[k: k + 7] = W @ pw
        vx, vy, vz = qd[i3], qd[i3 + 1], qd[i3 + 2]
        out[k + 7] = sqrt(vx * vx + vy * vy + vz * vz)
        out[k + 8] = abs(vx)
        out[k + 9] = abs(vy)
        return out.copy()

    return rhs


# -- results ---------------------------------------------------------------------------
@dataclass
class SimResult:
    """What ``simulate_phase`` / ``simulate_run`` return.

    frame : DataFrame, one row per output time (uniform grid in each stroke; the instant of
        a stroke change appears twice, as the end of one stroke and the start of the next).
        Columns: t, tau, stroke, side, mode (+1/−1 sliding, 0 stuck), s, s_dot,
        ski_x/y/z, cm_x/y/z, cm_vx/vy/vz, cm_speed = |Ṙ³|, ski_speed, leg_length,
        leg_angle_deg, push_force = F(τ) [N], push_power = F·Ṙ³ [W], friction_force (along
        the ski's heading e, N), kinetic_energy, work_* (cumulative within the stroke),
        projection_energy (kinetic energy changed by the coordinate projections, cumulative
        within the stroke; 0 unless stabilization='projection'), constraint_norm = max|Cᵢ|
        and velocity_constraint_norm = max|Cq q̇ + Ct|ᵢ over the model's rows (C1–C17, and
        with Euler parameters the three normalization rows), q0…q17 and qd0…qd17 (ZXZ; with
        Euler parameters q0…q20 and qd0…qd20, body blocks [R p] of 7), lam0…lam16 (C1…C17
        in either parametrization), leg_drive_force (= −λ of C14: the extension driver's
        push on the CM along the leg), ankle_Fx/y/z (ski on shank at the ankle),
        knee_Fx/y/z and knee_Mx/y/z (shank on the upper body, at and about the CM), global
        components.
    strokes : DataFrame, one row per stroke: stroke, side, heading_deg, mean_speed
        (time average of |Ṙ³|), mean_power (time average of F·Ṙ³), distance_x (CM X
        travel), ke_loss_at_start, projection_energy, and more (mean |v_x|, |v_y|,
        energies and works).
    changes : DataFrame, one row per stroke change (KE before/after, CM height jump).
    events : DataFrame of friction mode switches (stick/slip) inside strokes.
    """

    frame: pd.DataFrame
    strokes: pd.DataFrame
    changes: pd.DataFrame
    events: pd.DataFrame
    params: SkierParams
    models: list = field(repr=False)
    info: dict = field(default_factory=dict)

    def energy_balance(self) -> pd.DataFrame:
        """Per stroke: ΔKE and the sum of the works (push, friction, gravity, drag, drivers,
        joints) and of the projections' kinetic-energy change, with the residual ΔKE − ΣW."""
        st = self.strokes
        works = st[["work_push", "work_friction", "work_gravity", "work_drag", "work_drivers", "work_joints",
                    "projection_energy"]]
        out = st[["stroke", "ke_start", "ke_end"]].copy()
        out["delta_ke"] = st["ke_end"] - st["ke_start"]
        out["total_work"] = works.sum(axis=1)
        out["residual"] = out["delta_ke"] - out["total_work"]
        return out


# -- the integration of one stroke ----------------------------------------------------
class _ProjectedPath:
    """y(τ) inside a segment integrated with projection: the accepted steps' dense outputs,
    each evaluated point projected onto the constraints (as ``solve_dynamics`` does)."""

    def __init__(self, pieces, project_state):
        self.pieces = pieces  # (τ_old, τ_new, dense output of the step)
        self.ends = np.array([b for _, b, _ in pieces])
        self.project_state = project_state

    def __call__(self, tau):
        if np.ndim(tau):  # like OdeSolution: an array of times gives one column per time
            return np.column_stack([self(float(t)) for t in tau])
        k = min(int(np.searchsorted(self.ends, tau)), len(self.pieces) - 1)
        return self.project_state(tau, self.pieces[k][2](tau), accumulate=False)


def _crosses(g, g_new, direction):
    """Whether an event function changed sign in the given direction (as ``solve_ivp``)."""
    up, down = g <= 0 <= g_new, g >= 0 >= g_new
    return (up and direction > 0) or (down and direction < 0) or ((up or down) and direction == 0)


class _Stroke:
    def __init__(self, model, alpha, beta, method, rtol, atol, max_step, compiled, stabilization="baumgarte",
                 projection_tol=1e-12):
        self.model = model
        self.alpha, self.beta = alpha, beta
        self.method, self.rtol, self.atol, self.max_step = method, rtol, atol, max_step
        self.compiled = compiled
        self.stabilization = stabilization
        self.projection_tol = projection_tol
        self.n = model.nq
        self.nfev = 0
        self.n_projections = 0
        self._sliding = {}  # the compiled systems of modes ±1, built once per stroke

    def system(self, mode, s_stick=None):
        """The (compiled, when asked) multibody system of a friction mode."""
        if not self.compiled:
            return self.model.system(mode, s_stick)
        if mode == 0:  # a stick row at its own s*: a new system each time (same kernel)
            return compile_system(self.model.system(mode, s_stick))
        if mode not in self._sliding:
            self._sliding[mode] = compile_system(self.model.system(mode))
        return self._sliding[mode]

    def _rhs(self, system, rows):
        n, a, b = self.n, self.alpha, self.beta
        if isinstance(system, CompiledSystem):
            return _compiled_rhs(system, n, a, b, rows)
        return _generic_rhs(system, n, a, b, rows)

    def sdd(self, system, tau, q, qd):
        qdd = _eom(system, tau, q, qd, self.alpha, self.beta)[0]
        return float(qdd[:3] @ self.model.e)

    def decide_mode(self, tau, q, qd):
        """Friction mode at ṡ = 0: slide where the net force beats friction, else stick."""
        m = self.model
        if m.params.friction == 0.0:
            return 1 if self.sdd(self.system(1), tau, q, qd) >= 0.0 else -1
        if self.sdd(self.system(1), tau, q, qd) > 0.0:
            return 1
        if self.sdd(self.system(-1), tau, q, qd) < 0.0:
            return -1
        return 0

    def run(self, y0, T, grid):
        """Integrate τ ∈ [0, T] from y0; returns (segments, y(T), events)."""
        m, n = self.model, self.n
        tau, y = 0.0, np.array(y0, dtype=float)
        sd = m.sdot_of(y[n: 2 * n])
        mode = (1 if sd > 0 else -1) if abs(sd) > _SPEED_EPS else self.decide_mode(0.0, y[:n], y[n: 2 * n])
        segments, events = [], []
        for _ in range(10000):
            s_stick = None
            if mode == 0:
                s_stick = m.s_of(y[:n])
                system = self.system(0, s_stick)
                rows = _Rows(m, system)
                # at rest: with the stick row the system has no freedom left and the velocity
                # equations fix q̇ (they set the ~1e-15 residual ṡ of the event to exactly 0)
                jet = system.constraint_jet(tau, y[:n], y[n: 2 * n])
                y[n: 2 * n] = np.linalg.solve(jet.J, -jet.t)
                mu = m.params.friction
                i_stick = rows.stick_index()

                def ev(t, yy, system=system, i_stick=i_stick):  # static friction needed reaches μ
                    lam = _eom(system, t, yy[:n], yy[n: 2 * n], self.alpha, self.beta)[1]
                    return mu - abs(lam[i_stick])
                ev.direction = -1
            else:
                system = self.system(mode)
                rows = _Rows(m, system)

                def ev(t, yy):  # the ski's speed along its line reaches zero
                    return yy[n: n + 3] @ m.e
                ev.direction = -mode
            ev.terminal = True
            rhs = self._rhs(system, rows)
            if self.stabilization == "projection":
                t_end, y_end, path, hit = self._segment_projected(system, rhs, ev, tau, T, y)
            else:
                sol = solve_ivp(rhs, (tau, T), y, method=self.method, rtol=self.rtol,
                                atol=self.atol, max_step=self.max_step, dense_output=True, events=ev)
                self.nfev += sol.nfev
                if sol.status == -1:
                    raise IntegrationError(f"integration failed at τ={sol.t[-1]:.6g} s: {sol.message}")
                t_end, y_end, path, hit = sol.t[-1], sol.y[:, -1].copy(), sol.sol, sol.status == 1
            segments.append((tau, t_end, mode, s_stick, system, path, rows))
            if not hit or t_end >= T:
                return segments, y_end, events
            old = mode
            if mode == 0:
                # leave the stuck state in the direction of the net driving force (= λ_stick)
                lam = _eom(system, t_end, y_end[:n], y_end[n: 2 * n], self.alpha, self.beta)[1]
                mode = 1 if lam[rows.stick_index()] > 0 else -1
            else:
                # ṡ = 0: reverse, stick, or (grazing) keep sliding the same way
                mode = self.decide_mode(t_end, y_end[:n], y_end[n: 2 * n])
            events.append((t_end, old, mode))
            tau, y = t_end, y_end
        raise IntegrationError("more than 10000 stick/slip switches in one stroke (Zeno behaviour?)")

    # -- coordinate projection ------------------------------------------------------------
    def _project_state(self, system, tau, y, accumulate=True):
        """y with q, q̇ projected onto C = 0, Cq q̇ = −Ct (mass-weighted); with ``accumulate``
        the kinetic-energy change is added to the projection_energy state."""
        n = self.n
        q, v, dT = project(system, tau, y[:n], y[n: 2 * n], tol=self.projection_tol)
        out = np.array(y, dtype=float)
        out[:n], out[n: 2 * n] = q, v
        if accumulate:
            out[2 * n + _I_PROJ] += dT
            self.n_projections += 1
        return out

    def _segment_projected(self, system, rhs, ev, tau0, T, y0):
        """One friction-mode segment with coordinate projection after every accepted step.

        The explicit Runge–Kutta method is stepped by hand; a terminal event is located in
        the step that crosses it with the step's dense output (brentq, as ``solve_ivp``),
        and the segment ends there.  Returns (τ_end, y_end, path, event hit).
        """
        solver = _RK_METHODS[self.method](rhs, tau0, y0, T, rtol=self.rtol, atol=self.atol,
                                          max_step=self.max_step)
        pieces, extra = [], 0
        g = ev(tau0, y0)

        def project_state(tau, y, accumulate=True):
            return self._project_state(system, tau, y, accumulate)

        try:
            while solver.status == "running":
                msg = solver.step()
                if solver.status == "failed":
                    raise IntegrationError(f"integration failed at τ={solver.t:.6g} s: {msg}")
                dense = solver.dense_output()
                t_old, t_new = solver.t_old, solver.t
                if _crosses(g, ev(t_new, solver.y), ev.direction):
                    te = brentq(lambda tt: ev(tt, dense(tt)), t_old, t_new, xtol=4 * _EPS, rtol=4 * _EPS)
                    pieces.append((t_old, te, dense))
                    return te, project_state(te, dense(te)), _ProjectedPath(pieces, project_state), True
                pieces.append((t_old, t_new, dense))
                solver.y = project_state(t_new, solver.y)
                solver.f = rhs(t_new, solver.y)  # the next step starts from the projected state
                extra += 1
                g = ev(t_new, solver.y)
            return solver.t, solver.y.copy(), _ProjectedPath(pieces, project_state), False
        finally:
            self.nfev += solver.nfev + extra


def _grid(T, dt_out, n_out):
    if n_out is not None:
        if int(n_out) < 2:
            raise ValueError(f"n_out: need at least 2 output points per stroke, got {n_out!r}")
        return np.linspace(0.0, T, int(n_out))
    if not dt_out > 0:
        raise ValueError(f"dt_out: must be > 0, got {dt_out!r}")
    k = max(1, int(round(T / dt_out)))
    return np.linspace(0.0, T, k + 1)


def _reaction(system, state, J, lam, name, body):
    """Force and moment of constraint ``name`` on ``body`` at its reaction point (global).

    Qc = −Cqᵀλ over the constraint's rows; on the body F = (Qc)_R and the moment N about
    the reaction point P solves Gᵀ(N + u_P × F) = (Qc)_θ (eqs. 80–81 read backwards; with
    Euler parameters four equations for three unknowns, consistent, solved exactly), the
    same reading as ``DynamicsResult.reactions`` (a test checks they agree).
    """
    return _Reaction(system, name, body)(state.q, J, lam)


class _Reaction:
    """``_reaction`` with the constraint's rows, body slice and reaction point looked up once."""

    def __init__(self, system, name, body):
        self.rows = system.rows(name)
        c = system.constraint(name)
        self.ubar = next(u for b, u in c.reaction_points if b is body)
        self.sl = system.slice(body)
        self.rot = body.rotation

    def __call__(self, q, J, lam):
        F, N = self.batch(q[None], J[self.rows, self.sl][None], lam[None])
        return F[0], N[0]

    def batch(self, Q, Jblocks, lams):
        """Forces and moments at many points: Q (points × nq), Jblocks the rows × body
        columns of Cq at each point, lams the multipliers (points × all rows)."""
        sl = self.sl
        Qc = -np.einsum("prb,pr->pb", Jblocks, lams[:, self.rows])
        F = Qc[:, :3]
        A = np.empty((len(Q), 3, 3))
        G = np.empty((len(Q), 3, sl.stop - sl.start - 3))
        for k, qk in enumerate(Q):
            th = qk[sl][3:]
            A[k], G[k] = self.rot.A(th), self.rot.G(th)
        GT = np.swapaxes(G, 1, 2)
        # ZXZ: G is 3×3; Euler parameters: Gᵀ is 4×3 of full column rank, and Q_θ lies in its range
        if G.shape[2] == 3:
            M_cm = np.linalg.solve(GT, Qc[:, 3:, None])[..., 0]
        else:
            M_cm = np.array([np.linalg.lstsq(g, b, rcond=None)[0] for g, b in zip(GT, Qc[:, 3:])])
        u = A @ self.ubar
        return F, M_cm - np.cross(u, F)


def _stroke_frame(model, integ, segments, grid, y_end, stroke, t0):
    """Derived quantities on the output grid of one stroke."""
    n, p = integ.n, model.params
    Y = np.zeros((len(grid), len(y_end)))
    seg_of = np.zeros(len(grid), dtype=int)
    for i, tau in enumerate(grid):
        for k, (_, tb, *_rest) in enumerate(segments):
            if tau <= tb or k == len(segments) - 1:
                seg_of[i] = k
                break
    for k, seg in enumerate(segments):
        idx = np.nonzero((seg_of == k) & (grid < segments[-1][1]))[0]
        if len(idx):
            Y[idx] = np.atleast_2d(seg[5](grid[idx]).T)
    Y[grid >= segments[-1][1]] = y_end
    lam_all = np.zeros((len(grid), _N_BASE_ROWS))
    i3 = model.cm.start
    cn = np.zeros(len(grid))
    vn = np.zeros(len(grid))
    fric = np.zeros(len(grid))
    push = np.zeros(len(grid))
    ppow = np.zeros(len(grid))
    ke = np.zeros(len(grid))
    modes = np.zeros(len(grid), dtype=int)
    react = np.zeros((len(grid), 9))
    for k, (_, _, mode, _, system, _, rows) in enumerate(segments):
        idx = np.nonzero(seg_of == k)[0]
        if not len(idx):
            continue
        q, qd = Y[idx, :n], Y[idx, n: 2 * n]
        lam = np.zeros((len(idx), system.nc))
        ankle, knee = _Reaction(system, "ankle", model.shank), _Reaction(system, "knee", model.upper)
        J_ankle = np.zeros((len(idx), ankle.rows.stop - ankle.rows.start, ankle.sl.stop - ankle.sl.start))
        J_knee = np.zeros((len(idx), knee.rows.stop - knee.rows.start, knee.sl.stop - knee.sl.start))
        compiled = isinstance(system, CompiledSystem)
        if compiled:  # read the kernel's buffers of the same evaluation, no copies
            o = system._out
            forces = {f.name: i for i, f in enumerate(system._traced_forces)}
        for j, i in enumerate(idx):
            if compiled:
                lam[j] = system._solve(grid[i], q[j], qd[j], integ.alpha, integ.beta)[n:]
                C, Cvel, J = o["C"], o["Cvel"], o["Cq"]
                Q_push = o["QF"][forces["push"]]
                Q_fric = o["QF"][forces["friction"]] if mode else None
                # ½ q̇ᵀMq̇ with the M of this very evaluation (eqs. 40–46)
                ke[i] = 0.5 * qd[j] @ o["M"] @ qd[j]
            else:
                _, lam[j], jet, Qf = _eom(system, grid[i], q[j], qd[j], integ.alpha, integ.beta)
                C, Cvel, J = jet.val, jet.vel, jet.J
                Q_push, Q_fric = Qf["push"], Qf.get("friction")
                ke[i] = system.kinetic_energy(q[j], qd[j])
            cn[i] = np.abs(C[rows.model]).max()
            vn[i] = np.abs(Cvel[rows.model]).max()
            fric[i] = (Q_fric[:3] @ model.e) if mode else -lam[j, rows.stick_index()]
            push[i] = float(model.push_force(grid[i]))
            ppow[i] = Q_push[i3: i3 + 3] @ qd[j, i3: i3 + 3]
            J_ankle[j] = J[ankle.rows, ankle.sl]
            J_knee[j] = J[knee.rows, knee.sl]
        react[idx, 0:3] = ankle.batch(q, J_ankle, lam)[0]
        react[idx, 3:6], react[idx, 6:9] = knee.batch(q, J_knee, lam)
        modes[idx] = mode
        lam_all[idx] = lam[:, :_N_BASE_ROWS]
    q, qd = Y[:, :n], Y[:, n: 2 * n]
    ell = p.leg_extension0 + p.c_ext * grid
    gam = p.leg_angle0_deg + p.c_rot_deg * grid
    out = {
        "t": t0 + grid, "tau": grid, "stroke": stroke, "side": model.side, "mode": modes,
        "s": (q[:, :3] - model.P) @ model.e, "s_dot": qd[:, :3] @ model.e,
        "ski_x": q[:, 0], "ski_y": q[:, 1], "ski_z": q[:, 2],
        "cm_x": q[:, i3], "cm_y": q[:, i3 + 1], "cm_z": q[:, i3 + 2],
        "cm_vx": qd[:, i3], "cm_vy": qd[:, i3 + 1], "cm_vz": qd[:, i3 + 2],
        "cm_speed": np.linalg.norm(qd[:, i3: i3 + 3], axis=1), "ski_speed": np.linalg.norm(qd[:, :3], axis=1),
        "leg_length": ell, "leg_angle_deg": gam,
        "push_force": push, "push_power": ppow, "friction_force": fric, "kinetic_energy": ke,
    }
    for j, key in enumerate(_WORK_KEYS[:7]):
        out[key] = Y[:, 2 * n + j]
    out["projection_energy"] = Y[:, 2 * n + _I_PROJ]
    out["constraint_norm"] = cn
    out["velocity_constraint_norm"] = vn
    for j in range(n):
        out[f"q{j}"] = q[:, j]
    for j in range(n):
        out[f"qd{j}"] = qd[:, j]
    for j in range(_N_BASE_ROWS):
        out[f"lam{j}"] = lam_all[:, j]
    out["leg_drive_force"] = -lam_all[:, segments[0][4].rows("C14").start]
    for j, c in enumerate(("ankle_Fx", "ankle_Fy", "ankle_Fz", "knee_Fx", "knee_Fy", "knee_Fz",
                           "knee_Mx", "knee_My", "knee_Mz")):
        out[c] = react[:, j]
    return pd.DataFrame(out)


def _initial_state(model, v0):
    """Consistent q, q̇ at τ = 0 with s = 0 and ṡ = v0 (Newton–Raphson polish of the exact pose)."""
    sysm = model.system(1)
    q_guess = model.pose(0.0, 0.0)
    qd_guess = np.zeros(sysm.nq)  # the ski's velocity; the rest follows from Cq q̇ = −Ct
    qd_guess[:3] = v0 * model.e
    # R¹_x is a valid independent coordinate: the ski line is never parallel to Y (|h| < 90°)
    return consistent_initial_conditions(sysm, 0.0, q_guess, qd_guess, independent=[0])


def _stroke_change(params, heading, side, push_force, q_end, qd_end, rotation="zxz"):
    """The next stroke's model and its initial state (SPEC §3 ⚑ stroke change).

    The new ski is placed so that the CM keeps its horizontal position with the new pose
    at τ = 0; the new velocities solve Cq q̇⁺ = −Ct with e′·Ṙ³⁺ = e′·Ṙ³⁻.
    """
    probe = SkierModel(params, heading, side, np.zeros(3), push_force, rotation=rotation)
    u0 = probe.leg_axis(0.0)[0]
    cm = probe.cm
    R3 = q_end[cm]
    P = np.array([R3[0] - params.leg_extension0 * u0[0], R3[1] - params.leg_extension0 * u0[1], 0.0])
    model = SkierModel(params, heading, side, P, push_force, rotation=rotation)
    sysm = model.system(1)
    q0 = consistent_initial_conditions(sysm, 0.0, model.pose(0.0, 0.0), independent=[0])[0]
    jet = sysm.constraint_jet(0.0, q0)
    row = np.zeros(sysm.nq)
    row[cm] = model.e
    A = np.vstack([jet.J, row])
    b = np.concatenate([-jet.t, [model.e @ qd_end[cm]]])
    qd0 = np.linalg.solve(A, b)
    return model, q0, qd0


def _check_push_force(F, T):
    if not callable(F):
        raise ValueError(f"push_force: must be None or a callable of phase time τ [s] -> N, got {F!r}")
    for tau in (0.0, 0.5 * T, T):
        try:
            v = float(F(tau))
        except Exception as exc:  # noqa: BLE001 - report any failure of the user's callable
            raise ValueError(f"push_force: calling it at τ = {tau} s failed: {exc}") from exc
        if not math.isfinite(v):
            raise ValueError(f"push_force: returned {v!r} at τ = {tau} s; expected a finite force in N")


def simulate_run(params: SkierParams | None = None, *, strokes: int, phase_time=None, skating_angle_deg=None,
                 c_ext=None, c_rot_deg=None, push_force=None, v0: float = 0.0, first_ski: str = "right",
                 force_scale: float = 1.0, dt_out: float = 0.01, n_out: int | None = None,
                 method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-10, h: float = 0.05,
                 alpha=None, beta=None, compiled: bool = True, rotation: str = "zxz",
                 stabilization: str = "baumgarte", projection_tol: float = 1e-12) -> SimResult:
    """A run of alternating strokes (thesis §5.6, table 9; SPEC §3 stroke change ⚑).

    Parameters
    ----------
    params : SkierParams (default SkierParams()).
    strokes : number of strokes (≥ 1).
    phase_time, skating_angle_deg, c_ext, c_rot_deg : T [s], skating angle [deg],
        C_ext [m/s] (eq. 187), C_rot [deg/s] (eq. 188); None keeps the value in params.
        The combination is validated by SkierParams (ValueError naming the field).
    push_force : None for the default curve (the Fourier fit of the SYNTHETIC force-plate
        push-off, ``skilib.data.forcedata.default_push_force``), or any callable F(τ) [N] of the
        phase time τ ∈ [0, T]: the magnitude applied along the leg (eqs. 179–181).
    force_scale : multiplies the push-off (fig. 42's "half force" is 0.5).
    v0 : initial ski speed ṡ along the first ski [m/s].
    first_ski : 'right' (default, heading −angle/2) or 'left'.
    dt_out / n_out : output grid step, or number of output points per stroke.
    method, rtol, atol : ``solve_ivp`` integrator and tolerances.
    h, alpha, beta : Baumgarte stabilisation (eqs. 99–101), α = 1/h, β = √2/h (§3.8).  The
        constraint errors then obey C̈ + 2αĊ + β²C = 0, modes (−1 ± i)/h.  The default
        h = 0.05 s lets them decay 20 times per second while keeping them out of the
        explicit integrator's stiff range: h = 0.01 s doubles the run time and changes s,
        speeds and means by < 1e-9 (constraint drift stays below 1e-10 either way).
    compiled : evaluate eq. 101 with the generated, compiled kernel (``skilib.engine.codegen``,
        C by default; the first run on a machine traces and compiles it in a few seconds,
        later runs load it from the cache).  False uses the numeric engine: the same
        equations, about 15× slower for the whole run; results agree to round-off (a
        test checks it).
    rotation : 'zxz' (default: the thesis's ZXZ angles, 18 coordinates) or
        'euler_parameters' (21 coordinates, 17 + 3 rows; no gimbal lock).  The frame's
        q/qd columns follow the coordinates (q0…q17 or q0…q20); every other column means
        the same in both.
    stabilization : 'baumgarte' (default; h, alpha, beta above), 'projection' (no
        Baumgarte terms; after every accepted step positions are projected onto C = 0 and
        velocities onto Cq q̇ = −Ct with the mass-weighted minimal correction, to
        ``projection_tol`` in max|C|; needs an explicit Runge–Kutta ``method``: DOP853,
        RK45, RK23; the kinetic energy it changes is ``projection_energy`` per stroke), or
        'none' (eq. 101 as it stands, α = β = 0: the constraints drift).
    """
    t_start = time.perf_counter()
    params = SkierParams() if params is None else params
    if not isinstance(params, SkierParams):
        raise ValueError(f"params: must be a SkierParams, got {type(params).__name__}")
    over = {k: v for k, v in (("phase_time", phase_time), ("skating_angle_deg", skating_angle_deg),
                              ("c_ext", c_ext), ("c_rot_deg", c_rot_deg)) if v is not None}
    params = replace(params, **over)
    if not (isinstance(strokes, (int, np.integer)) and not isinstance(strokes, bool) and strokes >= 1):
        raise ValueError(f"strokes: must be a positive integer, got {strokes!r}")
    strokes = int(strokes)
    if first_ski not in SIDES:
        raise ValueError(f"first_ski: must be one of {SIDES}, got {first_ski!r}")
    if not (isinstance(v0, (int, float, np.number)) and math.isfinite(v0)):
        raise ValueError(f"v0: must be a finite speed in m/s, got {v0!r}")
    if not (isinstance(force_scale, (int, float, np.number)) and math.isfinite(force_scale) and force_scale >= 0):
        raise ValueError(f"force_scale: must be a finite number >= 0, got {force_scale!r}")
    T = params.phase_time
    if push_force is None:
        base, source = _default_push_force(params, T)
    else:
        base, source = push_force, "user callable"
    _check_push_force(base, T)
    F = base if force_scale == 1.0 else _ScaledPush(base, float(force_scale))
    if not (isinstance(rotation, str) and rotation in ROTATIONS):
        raise ValueError(f"rotation: must be one of {tuple(ROTATIONS)}, got {rotation!r}")
    if not (isinstance(stabilization, str) and stabilization in STABILIZATIONS):
        raise ValueError(f"stabilization: must be one of {STABILIZATIONS}, got {stabilization!r}")
    if stabilization == "baumgarte":
        a_h, b_h = baumgarte(h)
        alpha = a_h if alpha is None else float(alpha)
        beta = b_h if beta is None else float(beta)
        if not (alpha >= 0 and math.isfinite(alpha) and math.isfinite(beta)):
            raise ValueError(f"alpha, beta: Baumgarte parameters must be finite with alpha >= 0, got {alpha}, {beta}")
    else:
        if alpha is not None or beta is not None:
            raise ValueError(f"alpha, beta: Baumgarte parameters, but stabilization={stabilization!r} takes none")
        alpha = beta = 0.0
    if stabilization == "projection":
        if method not in _RK_METHODS:
            raise ValueError(f"method: stabilization='projection' steps an explicit Runge-Kutta method "
                             f"{tuple(_RK_METHODS)}, got {method!r}")
        if not (isinstance(projection_tol, (int, float, np.number)) and projection_tol > 0):
            raise ValueError(f"projection_tol: must be a positive number (max |C| after projection), "
                             f"got {projection_tol!r}")
    grid = _grid(T, dt_out, n_out)
    max_step = T / MAX_STEP_DIVISOR

    frames, srows, crows, erows, models = [], [], [], [], []
    nfev = n_proj = 0
    model = q = qd = None
    for k in range(strokes):
        hdg, side = ski_heading(params, k, first_ski)
        if k == 0:
            model = SkierModel(params, hdg, side, np.zeros(3), F, rotation=rotation)
            q, qd = _initial_state(model, float(v0))
            ke_loss, dz = 0.0, 0.0
        else:
            prev, q_end, qd_end = model, q, qd
            ke_before = prev.system(1).kinetic_energy(q_end, qd_end)
            sd_before = prev.sdot_of(qd_end)
            model, q, qd = _stroke_change(params, hdg, side, F, q_end, qd_end, rotation)
            ke_after = model.system(1).kinetic_energy(q, qd)
            ke_loss = ke_before - ke_after
            cm = model.cm
            dz = q[cm][2] - q_end[cm][2]
            crows.append(dict(stroke=k + 1, t=k * T, ke_before=ke_before, ke_after=ke_after, ke_loss=ke_loss,
                              cm_z_jump=dz, s_dot_before=sd_before, s_dot_after=model.sdot_of(qd),
                              cm_speed_before=float(np.linalg.norm(qd_end[cm])),
                              cm_speed_after=float(np.linalg.norm(qd[cm]))))
        models.append(model)
        cm = model.cm
        integ = _Stroke(model, alpha, beta, method, rtol, atol, max_step, bool(compiled), stabilization,
                        float(projection_tol))
        y0 = np.concatenate([q, qd, np.zeros(_NX)])
        segments, y_end, events = integ.run(y0, T, grid)
        nfev += integ.nfev
        n_proj += integ.n_projections
        for tau_e, old, new in events:
            erows.append(dict(stroke=k + 1, tau=tau_e, t=k * T + tau_e, mode_before=old, mode_after=new))
        fr = _stroke_frame(model, integ, segments, grid, y_end, k + 1, k * T)
        frames.append(fr)
        n = integ.n
        W = dict(zip(_WORK_KEYS, y_end[2 * n:]))
        q, qd = y_end[:n], y_end[n: 2 * n]
        srows.append(dict(
            stroke=k + 1, side=side, heading_deg=math.degrees(hdg),
            mean_speed=W["int_speed"] / T, mean_power=W["work_push"] / T,
            distance_x=float(q[cm][0] - y0[cm][0]), ke_loss_at_start=ke_loss,
            mean_abs_vx=W["int_abs_vx"] / T, mean_abs_vy=W["int_abs_vy"] / T,
            mean_vx=float(q[cm][0] - y0[cm][0]) / T, mean_vy=float(q[cm][1] - y0[cm][1]) / T,
            s_end=model.s_of(q), s_dot_start=model.sdot_of(y0[n: 2 * n]), s_dot_end=model.sdot_of(qd),
            cm_speed_end=float(np.linalg.norm(qd[cm])),
            ke_start=model.system(1).kinetic_energy(y0[:n], y0[n: 2 * n]),
            ke_end=model.system(1).kinetic_energy(q, qd),
            work_push=W["work_push"], work_friction=W["work_friction"], work_gravity=W["work_gravity"],
            work_drag=W["work_drag"], work_drivers=W["work_drivers"], work_joints=W["work_joints"],
            work_drivers_ct=W["work_drivers_ct"], projection_energy=W["projection_energy"], cm_z_jump_at_start=dz,
            max_constraint_norm=float(fr["constraint_norm"].max()),
        ))
    frame = pd.concat(frames, ignore_index=True)
    info = dict(force_source=source, force_scale=force_scale, method=method, rtol=rtol, atol=atol,
                alpha=alpha, beta=beta, nfev=nfev, v0=v0, first_ski=first_ski, compiled=bool(compiled),
                rotation=rotation, stabilization=stabilization, n_projections=n_proj,
                projection_tol=projection_tol if stabilization == "projection" else None,
                runtime_s=time.perf_counter() - t_start)
    cols_c = ["stroke", "t", "ke_before", "ke_after", "ke_loss", "cm_z_jump", "s_dot_before", "s_dot_after",
              "cm_speed_before", "cm_speed_after"]
    return SimResult(frame=frame, strokes=pd.DataFrame(srows), changes=pd.DataFrame(crows, columns=cols_c),
                     events=pd.DataFrame(erows, columns=["stroke", "tau", "t", "mode_before", "mode_after"]),
                     params=params, models=models, info=info)


def simulate_phase(params: SkierParams | None = None, *, phase_time=None, skating_angle_deg=None, c_ext=None,
                   c_rot_deg=None, push_force=None, v0: float = 0.0, **kwargs) -> SimResult:
    """One active phase (thesis §5.5, table 7): ``simulate_run`` with one stroke.

    Starts with the ski origin at the global origin on the right ski (heading −angle/2 with
    the default convention) unless ``first_ski='left'``; keywords as ``simulate_run``.
    """
    return simulate_run(params, strokes=1, phase_time=phase_time, skating_angle_deg=skating_angle_deg,
                        c_ext=c_ext, c_rot_deg=c_rot_deg, push_force=push_force, v0=v0, **kwargs)
