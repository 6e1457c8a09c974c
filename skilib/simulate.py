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
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy.integrate import solve_ivp

from .errors import IntegrationError
from .forcedata import default_push_force as _fitted_push_force
from .skier import SIDES, SkierModel, SkierParams, ski_heading
from .codegen import CompiledSystem, compile_system
from .rotation import cross3
from .solver import baumgarte, consistent_initial_conditions

__all__ = ["SimResult", "simulate_phase", "simulate_run", "stand_in_push_force"]

#: the stand-in push-off curve's peak, in body weights (see stand_in_push_force)
STAND_IN_PEAK_BW = 1.2
_N_BASE_ROWS = 17
_N_DRIVER_ROWS = 4  # C14–C17, the last four base rows
# extra ODE states after q, q̇
_WORK_KEYS = ("work_push", "work_friction", "work_gravity", "work_drag", "work_joints",
              "work_drivers", "work_drivers_ct", "int_speed", "int_abs_vx", "int_abs_vy")
_NX = len(_WORK_KEYS)
_SPEED_EPS = 1e-12  # |ṡ| below this is "at rest" when a stroke starts
#: the integrator's step is at most T / MAX_STEP_DIVISOR, so that the ski's speed cannot
#: cross zero twice inside one step unseen by the event detection
MAX_STEP_DIVISOR = 50.0


# -- push-off input -----------------------------------------------------------------
def stand_in_push_force(params: SkierParams, phase_time: float):
    """STAND-IN push-off F(τ) = 1.2 M g sin(πτ/T): a smooth half-sine of peak 1.2 body weights.

    Not data: an analytic alternative to the Fourier fit of the (synthetic) force-plate
    push-off of thesis §5.3 / fig. 32 (``skilib.forcedata.default_push_force``); pass it
    as ``push_force``.
    """
    peak = STAND_IN_PEAK_BW * params.mass * params.g
    T = float(phase_time)

    def F(tau):
        return peak * math.sin(math.pi * tau / T)

    return F


def _default_push_force(params: SkierParams, phase_time: float):
    """The push-off curve used when ``push_force=None``: returns (F(τ), description).

    The Fourier fit (eq. 102) of the representative push-off of the SYNTHETIC force-plate
    data set, stretched to the phase (thesis fig. 32): ``skilib.forcedata.default_push_force``.
    It is the curve of the synthetic 75 kg skier and does not scale with ``params.mass``.
    This function is the single switch point: ``stand_in_push_force`` is the analytic
    alternative.
    """
    return _fitted_push_force(phase_time), (
        "skilib.forcedata.default_push_force: Fourier fit of SYNTHETIC force-plate data")


# -- equations of motion with the pieces needed for the bookkeeping ------------------
def _eom(system, t, q, qd, alpha, beta):
    """Eq. 101 solved for (q̈, λ), with the constraint jet and each force's Q."""
    return system.equations_of_motion(t, q, qd, alpha, beta)


def _powers(qd, lam, jet, Qf):
    """Powers feeding the work states (order of _WORK_KEYS up to work_drivers_ct)."""
    p = {k: (Qf[k] @ qd if k in Qf else 0.0) for k in ("push", "friction", "gravity", "drag")}
    cqqd = jet.vel - jet.t  # Cq q̇
    pc = -lam * cqqd        # power of each row's constraint force
    nb, nd = _N_BASE_ROWS, _N_DRIVER_ROWS
    w_fric = p["friction"] + pc[nb:].sum()  # the stick row is static friction
    return (p["push"], w_fric, p["gravity"], p["drag"], pc[: nb - nd].sum(), pc[nb - nd: nb].sum(),
            lam[nb - nd: nb] @ jet.t[nb - nd: nb])


def _compiled_rhs(system, n, alpha, beta):
    """The right-hand side of ``_Stroke`` with the compiled kernel: same states and powers
    as the generic one (``_powers``), read from the kernel's buffers without copies."""
    force_rows = {f.name: i for i, f in enumerate(system._traced_forces)}
    if system._numeric_forces or set(force_rows) - {"push", "friction", "gravity", "drag"}:
        def rhs(t, y):  # pragma: no cover - the skier's forces are all traced
            q, qd = y[:n], y[n: 2 * n]
            qdd, lam, jet, Qf = _eom(system, t, q, qd, alpha, beta)
            v3 = qd[12:15]
            return np.concatenate([qd, qdd, _powers(qd, lam, jet, Qf),
                                   (math.sqrt(v3 @ v3), abs(v3[0]), abs(v3[1]))])
        return rhs
    ip, ig = force_rows["push"], force_rows.get("gravity")
    ifr, idr = force_rows.get("friction"), force_rows.get("drag")
    nb, nd = _N_BASE_ROWS, _N_DRIVER_ROWS
    out = np.empty(2 * n + _NX)
    o = system._out
    QF, Cq, Cvel = o["QF"], o["Cq"], o["Cvel"]

    def rhs(t, y):
        q, qd = y[:n], y[n: 2 * n]
        x = system._solve(t, q, qd, alpha, beta)
        lam = x[n:]
        cqqd = Cq @ qd
        pc = -lam * cqqd
        out[:n] = qd
        out[n: 2 * n] = x[:n]
        k = 2 * n
        out[k] = QF[ip] @ qd
        out[k + 1] = (QF[ifr] @ qd if ifr is not None else 0.0) + pc[nb:].sum()
        out[k + 2] = QF[ig] @ qd if ig is not None else 0.0
        out[k + 3] = QF[idr] @ qd if idr is not None else 0.0
        out[k + 4] = pc[: nb - nd].sum()
        out[k + 5] = pc[nb - nd: nb].sum()
        out[k + 6] = lam[nb - nd: nb] @ (Cvel[nb - nd: nb] - cqqd[nb - nd: nb])
        v3 = qd[12:15]
        out[k + 7] = math.sqrt(v3 @ v3)
        out[k + 8] = abs(v3[0])
        out[k + 9] = abs(v3[1])
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
        constraint_norm = max|Cᵢ|, velocity_constraint_norm, q0…q17, qd0…qd17,
        lam0…lam16 (C1…C17), leg_drive_force (= −λ of C14: the extension driver's push on
        the CM along the leg), ankle_Fx/y/z (ski on shank at the ankle), knee_Fx/y/z and
        knee_Mx/y/z (shank on the upper body, at and about the CM), global components.
    strokes : DataFrame, one row per stroke: stroke, side, heading_deg, mean_speed
        (time average of |Ṙ³|), mean_power (time average of F·Ṙ³), distance_x (CM X
        travel), ke_loss_at_start, and more (mean |v_x|, |v_y|, energies and works).
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
        joints) with the residual ΔKE − ΣW."""
        st = self.strokes
        works = st[["work_push", "work_friction", "work_gravity", "work_drag", "work_drivers", "work_joints"]]
        out = st[["stroke", "ke_start", "ke_end"]].copy()
        out["delta_ke"] = st["ke_end"] - st["ke_start"]
        out["total_work"] = works.sum(axis=1)
        out["residual"] = out["delta_ke"] - out["total_work"]
        return out


# -- the integration of one stroke ----------------------------------------------------
class _Stroke:
    def __init__(self, model, alpha, beta, method, rtol, atol, max_step, compiled):
        self.model = model
        self.alpha, self.beta = alpha, beta
        self.method, self.rtol, self.atol, self.max_step = method, rtol, atol, max_step
        self.compiled = compiled
        self.n = model.system(1).nq
        self.nfev = 0

    def system(self, mode, s_stick=None):
        """The (compiled, when asked) multibody system of a friction mode."""
        sysm = self.model.system(mode, s_stick)
        return compile_system(sysm) if self.compiled else sysm

    def _rhs(self, system):
        n, a, b = self.n, self.alpha, self.beta
        if isinstance(system, CompiledSystem):
            return _compiled_rhs(system, n, a, b)

        def rhs(t, y):
            q, qd = y[:n], y[n: 2 * n]
            qdd, lam, jet, Qf = _eom(system, t, q, qd, a, b)
            v3 = qd[12:15]
            return np.concatenate([qd, qdd, _powers(qd, lam, jet, Qf),
                                   (math.sqrt(v3 @ v3), abs(v3[0]), abs(v3[1]))])

        return rhs

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
                # at rest: with the stick row the system has no freedom left and the velocity
                # equations fix q̇ (they set the ~1e-15 residual ṡ of the event to exactly 0)
                jet = system.constraint_jet(tau, y[:n], y[n: 2 * n])
                y[n: 2 * n] = np.linalg.solve(jet.J, -jet.t)
                mu = m.params.friction

                def ev(t, yy, system=system):  # static friction needed reaches μ
                    lam = _eom(system, t, yy[:n], yy[n: 2 * n], self.alpha, self.beta)[1]
                    return mu - abs(lam[-1])
                ev.direction = -1
            else:
                system = self.system(mode)

                def ev(t, yy):  # the ski's speed along its line reaches zero
                    return yy[n: n + 3] @ m.e
                ev.direction = -mode
            ev.terminal = True
            sol = solve_ivp(self._rhs(system), (tau, T), y, method=self.method, rtol=self.rtol,
                            atol=self.atol, max_step=self.max_step, dense_output=True, events=ev)
            self.nfev += sol.nfev
            if sol.status == -1:
                raise IntegrationError(f"integration failed at τ={sol.t[-1]:.6g} s: {sol.message}")
            t_end, y_end = sol.t[-1], sol.y[:, -1].copy()
            segments.append((tau, t_end, mode, s_stick, system, sol.sol))
            if sol.status == 0 or t_end >= T:
                return segments, y_end, events
            old = mode
            if mode == 0:
                # leave the stuck state in the direction of the net driving force (= λ_stick)
                lam = _eom(system, t_end, y_end[:n], y_end[n: 2 * n], self.alpha, self.beta)[1]
                mode = 1 if lam[-1] > 0 else -1
            else:
                # ṡ = 0: reverse, stick, or (grazing) keep sliding the same way
                mode = self.decide_mode(t_end, y_end[:n], y_end[n: 2 * n])
            events.append((t_end, old, mode))
            tau, y = t_end, y_end
        raise IntegrationError("more than 10000 stick/slip switches in one stroke (Zeno behaviour?)")


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
    the reaction point P solves Gᵀ(N + u_P × F) = (Qc)_θ (eqs. 80–81 read backwards), the
    same reading as ``DynamicsResult.reactions`` (a test checks they agree).
    """
    rows = system.rows(name)
    c = system.constraint(name)
    ubar = next(u for b, u in c.reaction_points if b is body)
    A, G, _, _, sl = state.frame(body)
    Qc = -J[rows, sl].T @ lam[rows]
    F = Qc[:3]
    return F, np.linalg.solve(G.T, Qc[3:]) - cross3(A @ ubar, F)


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
        sol = segments[seg_of[i]][5]
        Y[i] = y_end if tau >= segments[-1][1] else sol(tau)
    lam_all = np.zeros((len(grid), _N_BASE_ROWS))
    cn = np.zeros(len(grid))
    vn = np.zeros(len(grid))
    fric = np.zeros(len(grid))
    push = np.zeros(len(grid))
    ppow = np.zeros(len(grid))
    ke = np.zeros(len(grid))
    modes = np.zeros(len(grid), dtype=int)
    react = np.zeros((len(grid), 9))
    for k, (_, _, mode, _, system, _) in enumerate(segments):
        idx = np.nonzero(seg_of == k)[0]
        if not len(idx):
            continue
        q, qd = Y[idx, :n], Y[idx, n: 2 * n]
        lam = np.zeros((len(idx), system.nc))
        for j, i in enumerate(idx):
            _, lam[j], jet, Qf = _eom(system, grid[i], q[j], qd[j], integ.alpha, integ.beta)
            cn[i] = np.abs(jet.val[:_N_BASE_ROWS]).max()
            vn[i] = np.abs(jet.vel[:_N_BASE_ROWS]).max()
            fric[i] = (Qf["friction"][:3] @ model.e) if mode else -lam[j, -1]
            push[i] = float(model.push_force(grid[i]))
            ppow[i] = Qf["push"][12:15] @ qd[j, 12:15]
            ke[i] = system.kinetic_energy(q[j], qd[j])
            st = system.state(grid[i], q[j], qd[j])
            react[i, 0:3] = _reaction(system, st, jet.J, lam[j], "ankle", model.shank)[0]
            react[i, 3:6], react[i, 6:9] = _reaction(system, st, jet.J, lam[j], "knee", model.upper)
        modes[idx] = mode
        lam_all[idx] = lam[:, :_N_BASE_ROWS]
    q, qd = Y[:, :n], Y[:, n: 2 * n]
    ell = p.leg_extension0 + p.c_ext * grid
    gam = p.leg_angle0_deg + p.c_rot_deg * grid
    out = {
        "t": t0 + grid, "tau": grid, "stroke": stroke, "side": model.side, "mode": modes,
        "s": (q[:, :3] - model.P) @ model.e, "s_dot": qd[:, :3] @ model.e,
        "ski_x": q[:, 0], "ski_y": q[:, 1], "ski_z": q[:, 2],
        "cm_x": q[:, 12], "cm_y": q[:, 13], "cm_z": q[:, 14],
        "cm_vx": qd[:, 12], "cm_vy": qd[:, 13], "cm_vz": qd[:, 14],
        "cm_speed": np.linalg.norm(qd[:, 12:15], axis=1), "ski_speed": np.linalg.norm(qd[:, :3], axis=1),
        "leg_length": ell, "leg_angle_deg": gam,
        "push_force": push, "push_power": ppow, "friction_force": fric, "kinetic_energy": ke,
    }
    for j, key in enumerate(_WORK_KEYS[:7]):
        out[key] = Y[:, 2 * n + j]
    out["constraint_norm"] = cn
    out["velocity_constraint_norm"] = vn
    for j in range(n):
        out[f"q{j}"] = q[:, j]
    for j in range(n):
        out[f"qd{j}"] = qd[:, j]
    for j in range(_N_BASE_ROWS):
        out[f"lam{j}"] = lam_all[:, j]
    out["leg_drive_force"] = -lam_all[:, 13]
    for j, c in enumerate(("ankle_Fx", "ankle_Fy", "ankle_Fz", "knee_Fx", "knee_Fy", "knee_Fz",
                           "knee_Mx", "knee_My", "knee_Mz")):
        out[c] = react[:, j]
    return pd.DataFrame(out)


def _initial_state(model, v0):
    """Consistent q, q̇ at τ = 0 with s = 0 and ṡ = v0 (Newton–Raphson polish of the exact pose)."""
    sysm = model.system(1)
    q_guess = model.pose(0.0, 0.0)
    qd_guess = np.zeros(sysm.nq)
    qd_guess[:3] = v0 * model.e
    # R¹_x is a valid independent coordinate: the ski line is never parallel to Y (|h| < 90°)
    return consistent_initial_conditions(sysm, 0.0, q_guess, qd_guess, independent=[0])


def _stroke_change(params, heading, side, push_force, q_end, qd_end):
    """The next stroke's model and its initial state (SPEC §3 ⚑ stroke change).

    The new ski is placed so that the CM keeps its horizontal position with the new pose
    at τ = 0; the new velocities solve Cq q̇⁺ = −Ct with e′·Ṙ³⁺ = e′·Ṙ³⁻.
    """
    probe = SkierModel(params, heading, side, np.zeros(3), push_force)
    u0 = probe.leg_axis(0.0)[0]
    R3 = q_end[12:15]
    P = np.array([R3[0] - params.leg_extension0 * u0[0], R3[1] - params.leg_extension0 * u0[1], 0.0])
    model = SkierModel(params, heading, side, P, push_force)
    sysm = model.system(1)
    q0 = consistent_initial_conditions(sysm, 0.0, model.pose(0.0, 0.0), independent=[0])[0]
    jet = sysm.constraint_jet(0.0, q0)
    row = np.zeros(sysm.nq)
    row[12:15] = model.e
    A = np.vstack([jet.J, row])
    b = np.concatenate([-jet.t, [model.e @ qd_end[12:15]]])
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
                 alpha=None, beta=None, compiled: bool = True) -> SimResult:
    """A run of alternating strokes (thesis §5.6, table 9; SPEC §3 stroke change ⚑).

    Parameters
    ----------
    params : SkierParams (default SkierParams()).
    strokes : number of strokes (≥ 1).
    phase_time, skating_angle_deg, c_ext, c_rot_deg : T [s], skating angle [deg],
        C_ext [m/s] (eq. 187), C_rot [deg/s] (eq. 188); None keeps the value in params.
        The combination is validated by SkierParams (ValueError naming the field).
    push_force : None for the default curve (the Fourier fit of the SYNTHETIC force-plate
        push-off, ``skilib.forcedata.default_push_force``), or any callable F(τ) [N] of the
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
    compiled : evaluate eq. 101 with the generated, compiled kernel (``skilib.codegen``;
        the first run on a machine compiles it, ~1 min, later runs load it from the cache).
        False uses the numeric engine: the same equations, ~20× slower; results agree to
        round-off (a test checks it).
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
    F = base if force_scale == 1.0 else (lambda tau, base=base, c=force_scale: c * base(tau))
    a_h, b_h = baumgarte(h)
    alpha = a_h if alpha is None else float(alpha)
    beta = b_h if beta is None else float(beta)
    if not (alpha >= 0 and math.isfinite(alpha) and math.isfinite(beta)):
        raise ValueError(f"alpha, beta: Baumgarte parameters must be finite with alpha >= 0, got {alpha}, {beta}")
    grid = _grid(T, dt_out, n_out)
    max_step = T / MAX_STEP_DIVISOR

    frames, srows, crows, erows, models = [], [], [], [], []
    nfev = 0
    model = q = qd = None
    for k in range(strokes):
        hdg, side = ski_heading(params, k, first_ski)
        if k == 0:
            model = SkierModel(params, hdg, side, np.zeros(3), F)
            q, qd = _initial_state(model, float(v0))
            ke_loss, dz = 0.0, 0.0
        else:
            prev, q_end, qd_end = model, q, qd
            ke_before = prev.system(1).kinetic_energy(q_end, qd_end)
            sd_before = prev.sdot_of(qd_end)
            model, q, qd = _stroke_change(params, hdg, side, F, q_end, qd_end)
            ke_after = model.system(1).kinetic_energy(q, qd)
            ke_loss = ke_before - ke_after
            dz = q[14] - q_end[14]
            crows.append(dict(stroke=k + 1, t=k * T, ke_before=ke_before, ke_after=ke_after, ke_loss=ke_loss,
                              cm_z_jump=dz, s_dot_before=sd_before, s_dot_after=model.sdot_of(qd),
                              cm_speed_before=float(np.linalg.norm(qd_end[12:15])),
                              cm_speed_after=float(np.linalg.norm(qd[12:15]))))
        models.append(model)
        integ = _Stroke(model, alpha, beta, method, rtol, atol, max_step, bool(compiled))
        y0 = np.concatenate([q, qd, np.zeros(_NX)])
        segments, y_end, events = integ.run(y0, T, grid)
        nfev += integ.nfev
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
            distance_x=float(q[12] - y0[12]), ke_loss_at_start=ke_loss,
            mean_abs_vx=W["int_abs_vx"] / T, mean_abs_vy=W["int_abs_vy"] / T,
            mean_vx=float(q[12] - y0[12]) / T, mean_vy=float(q[13] - y0[13]) / T,
            s_end=model.s_of(q), s_dot_start=model.sdot_of(y0[n: 2 * n]), s_dot_end=model.sdot_of(qd),
            cm_speed_end=float(np.linalg.norm(qd[12:15])),
            ke_start=model.system(1).kinetic_energy(y0[:n], y0[n: 2 * n]),
            ke_end=model.system(1).kinetic_energy(q, qd),
            work_push=W["work_push"], work_friction=W["work_friction"], work_gravity=W["work_gravity"],
            work_drag=W["work_drag"], work_drivers=W["work_drivers"], work_joints=W["work_joints"],
            work_drivers_ct=W["work_drivers_ct"], cm_z_jump_at_start=dz,
            max_constraint_norm=float(fr["constraint_norm"].max()),
        ))
    frame = pd.concat(frames, ignore_index=True)
    info = dict(force_source=source, force_scale=force_scale, method=method, rtol=rtol, atol=atol,
                alpha=alpha, beta=beta, nfev=nfev, v0=v0, first_ski=first_ski, compiled=bool(compiled),
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
