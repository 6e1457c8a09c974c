"""Forward dynamics: consistent initial conditions, integration of eq. 101, reactions.

``solve_dynamics`` integrates the index-1 form of the equations of motion (eq. 101) with
Baumgarte stabilization (eqs. 99–100) using ``scipy.integrate.solve_ivp``.  The thesis's
choice of the Baumgarte parameters is α = 1/h, β = √2/h with h a nominal step (§3.8);
``alpha=0, beta=0`` switches stabilization off.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
from scipy.integrate import solve_ivp

from .errors import InconsistentInitialConditions, IntegrationError
from .integrators import ProjectedRK
from .options import Integrator, Stabilization
from .projection import Projector
from .reactions import joint_reactions
from .validation import check_array, check_bool, check_number

__all__ = ["consistent_initial_conditions", "solve_dynamics", "DynamicsResult", "gimbal_events"]


def consistent_initial_conditions(system, t0, q_guess, qd_guess=None, *, independent=(),
                                  tol: float = 1e-12, max_iter: int = 50, velocities: bool = True):
    """Positions with C(q, t0) = 0 and velocities with Cq q̇ = −Ct (``velocities`` False: the
    positions alone, (q, None), for a caller that needs no velocities).

    Newton–Raphson on [C; q_I − q_I⁰] = 0 holds the independent coordinates ``independent``
    (indices into q) at their guessed values; the velocities solve
    [Cq; E_I] q̇ = [−Ct; q̇_I⁰].  Where these leave freedom (fewer independent
    coordinates than degrees of freedom), the smallest change of the guess is taken.  Raises InconsistentInitialConditions with the residual.
    """
    t0 = check_number("t0", t0, unit="s")
    tol = check_number("tol", tol, positive=True)
    max_iter = check_number("max_iter", max_iter, integer=True, positive=True)
    velocities = check_bool("velocities", velocities)
    q = np.array(check_array("q_guess", q_guess))
    if q.shape != (system.nq,):
        raise ValueError(f"q_guess must have {system.nq} entries, got shape {q.shape}")
    qd_guess = np.zeros(system.nq) if qd_guess is None else np.array(check_array("qd_guess", qd_guess))
    if qd_guess.shape != (system.nq,):
        raise ValueError(f"qd_guess must have {system.nq} entries, got shape {qd_guess.shape}")
    idx = np.asarray(independent, dtype=int).ravel()
    if np.any((idx < 0) | (idx >= system.nq)):
        raise ValueError(f"independent coordinate indices must be in [0, {system.nq}), got {idx.tolist()}")
    E = np.eye(system.nq)[idx]
    labels = system.constraint_labels
    res = np.inf
    hol = system.holonomic_rows  # velocity rows B q̇ + b = 0 hold no position
    for _ in range(max_iter):
        jet = system.constraint_jet(t0, q)[hol]
        C = jet.val
        res = np.abs(C).max() if C.size else 0.0
        if res <= tol:
            break
        Amat = np.vstack([jet.J, E])
        b = -np.concatenate([C, np.zeros(len(idx))])
        dq = np.linalg.lstsq(Amat, b, rcond=None)[0]
        q += dq
    else:
        k = int(np.argmax(np.abs(C)))
        raise InconsistentInitialConditions(
            f"Newton-Raphson did not satisfy C(q, t0={t0}) = 0 in {max_iter} iterations: "
            f"max |C| = {res:.3e} at row {labels[hol[k]]}"
        )
    if not velocities:
        return q, None
    jet = system.constraint_jet(t0, q)
    Amat = np.vstack([jet.J, E])
    b = np.concatenate([-jet.t, qd_guess[idx]])
    qd = qd_guess + np.linalg.lstsq(Amat, b - Amat @ qd_guess, rcond=None)[0]  # smallest change
    vres = np.abs(jet.J @ qd + jet.t).max() if system.nc else 0.0
    ires = np.abs(qd[idx] - qd_guess[idx]).max() if len(idx) else 0.0
    scale = max(1.0, np.abs(b).max() if b.size else 0.0)
    if vres > 1e-9 * scale or ires > 1e-9 * scale:
        raise InconsistentInitialConditions(
            f"no velocities satisfy Cq qd = -Ct with the given independent velocities: "
            f"residual {max(vres, ires):.3e} (over-specified independent coordinates?)"
        )
    return q, qd


@dataclass
class DynamicsResult:
    """What ``solve_dynamics`` returns (cf. scipy's OdeResult).

    Arrays are indexed [time, coordinate]; ``lam`` [time, constraint row].
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    lam: np.ndarray
    constraint_norm: np.ndarray  # max_i |C_i| at each output time
    velocity_constraint_norm: np.ndarray  # max_i |(Cq q̇ + Ct)_i|
    system: object = field(repr=False)
    alpha: float = 0.0
    beta: float = 0.0
    nfev: int = 0
    status: int = 0
    message: str = ""
    sol: object = field(default=None, repr=False)
    t_events: list = field(default=None, repr=False)
    stabilization: str = "baumgarte"
    projection_energy: float = 0.0  # kinetic energy changed by the projections, summed (J)
    nonholonomic_norm: np.ndarray = None  # max_i |(B q̇ + b)_i| over the velocity rows

    @property
    def success(self) -> bool:
        return self.status >= 0

    def kinetic_energy(self) -> np.ndarray:
        return np.array([self.system.kinetic_energy(q, v) for q, v in zip(self.q, self.qd)])

    def to_frame(self):
        """Coordinates and velocities over time as a DataFrame (labels body.coordinate)."""
        import pandas as pd  # the engine itself does not need pandas

        labels = self.system.coordinate_labels
        df = pd.DataFrame(self.q, columns=labels)
        df = pd.concat([df, pd.DataFrame(self.qd, columns=[f"{c}_dot" for c in labels])], axis=1)
        df.insert(0, "t", self.t)
        df["constraint_norm"] = self.constraint_norm
        return df

    def reactions(self, constraint):
        """Reaction force and moment of one constraint on each of its bodies
        (``skilib.engine.reactions``): rows t, body, Fx, Fy, Fz [N], Mx, My, Mz [N m] about
        the constraint's reaction point, global components."""
        import pandas as pd

        sysm = self.system
        Cq = np.array([sysm.constraint_jet(t, q).J for t, q in zip(self.t, self.q)])
        per_body = joint_reactions(sysm, constraint, self.q, Cq, self.lam)
        out = [(t, name, *F[k], *N[k]) for k, t in enumerate(self.t) for name, (F, N) in per_body.items()]
        return pd.DataFrame(out, columns=["t", "body", "Fx", "Fy", "Fz", "Mx", "My", "Mz"])

    def constraint_power(self, constraint=None) -> np.ndarray:
        """Power of constraint forces on the bodies, −λᵀCq q̇ = λᵀCt (drivers do work)."""
        sysm = self.system
        out = np.zeros(len(self.t))
        for k, t in enumerate(self.t):
            jet = sysm.constraint_jet(t, self.q[k], self.qd[k])
            rows = slice(None) if constraint is None else sysm.rows(constraint)
            out[k] = -self.lam[k, rows] @ (jet.J[rows] @ self.qd[k])
        return out


def solve_dynamics(system, t_span, q0, qd0, *, method: str = "RK45", rtol: float = 1e-9,
                   atol: float = 1e-11, t_eval=None, stabilization: str = "baumgarte",
                   h: float = 0.01, alpha=None, beta=None, projection_tol: float = 1e-12,
                   max_step: float = np.inf, dense_output: bool = False, events=None,
                   check_initial: bool = True, initial_tol: float = 1e-8, stepper: str = "scipy") -> DynamicsResult:
    """Integrate the constrained equations of motion (eq. 101).

    Parameters
    ----------
    system : MultibodySystem or CompiledSystem
    t_span : (t0, tf)
    q0, qd0 : consistent initial coordinates and velocities
        (see ``consistent_initial_conditions``).
    method : 'RK45' (default), 'DOP853', 'Radau', or any ``solve_ivp`` method.
    stabilization : 'baumgarte' (default, eqs. 99–101), 'projection' or 'none'
        (``skilib.engine.options.Stabilization``).  'projection' integrates the unstabilized
        eq. 101 with ``ProjectedRK``: after every accepted step positions are projected onto
        C(q, t) = 0 and velocities onto Cq q̇ = −Ct with the mass-weighted minimal correction
        (explicit Runge–Kutta methods only); the kinetic energy the projections change,
        summed over the steps, is ``DynamicsResult.projection_energy``.
    h : nominal step for the thesis's Baumgarte parameters α = 1/h, β = √2/h.
    alpha, beta : explicit Baumgarte parameters (override h).
    t_eval : output times (default: the integrator's steps).
    events : ``solve_ivp`` events; a rotation singularity (ZXZ θ = 0, π) of a body whose
        angles are not all driven raises ``GimbalLockError``.
    stepper : 'scipy' (default): ``solve_ivp`` steps; 'c': the same DOP853 steps taken in C
        around a compiled system's C kernel (``skilib.engine.codegen.stepper``), for
        method='DOP853' without events or projection, where the kernel holds the whole
        right-hand side; its runs are SciPy's to rounding, without Python between the stages
        (``make bench`` times both on the skier).

    Examples
    --------
    A planar pendulum released from 60° (``skilib.engine.examples.pendulum``) keeps its
    energy and its constraint:

    >>> from skilib.engine import examples, solve_dynamics
    >>> ex = examples.pendulum(angle_deg=60.0)
    >>> res = solve_dynamics(ex.system, (0.0, 2.0), ex.q0, ex.qd0, method="DOP853", rtol=1e-10, atol=1e-12)
    >>> energy = [ex.energy(q, v) for q, v in zip(res.q, res.qd)]
    >>> bool(abs(energy[-1] - energy[0]) < 1e-6 and res.constraint_norm.max() < 1e-8)
    True
    """
    t0, tf = (float(v) for v in check_array("t_span", t_span, shape=(2,)))
    if not tf > t0:
        raise ValueError(f"t_span must be increasing, got {t_span}")
    for name, v in (("q0", q0), ("qd0", qd0)):
        v = check_array(name, v)
        if v.shape != (system.nq,):
            raise ValueError(f"{name} must have {system.nq} entries, got shape {v.shape}")
    q0 = np.asarray(q0, dtype=float)
    qd0 = np.asarray(qd0, dtype=float)
    initial_tol = check_number("initial_tol", initial_tol, positive=True)
    check_bool("check_initial", check_initial)
    check_bool("dense_output", dense_output)
    if t_eval is not None:
        check_array("t_eval", t_eval, ndim=1)
    stab = Stabilization.make(stabilization, h=h, alpha=alpha, beta=beta, projection_tol=projection_tol)
    Integrator.make(method, rtol=rtol, atol=atol, max_step=max_step, stabilization=stab)
    if system.nc:
        system.check_rank(q0, t0)
        if check_initial:
            _check_initial(system, t0, q0, qd0, initial_tol)
    n, alpha, beta = system.nq, stab.alpha, stab.beta
    if stepper not in ("scipy", "c"):
        raise ValueError(f"stepper: 'scipy' or 'c', got {stepper!r}")
    if stepper == "c":
        return _solve_in_c(system, t0, tf, q0, qd0, stab, method=method, rtol=rtol, atol=atol, max_step=max_step,
                           t_eval=t_eval, dense_output=dense_output, events=events)

    def rhs(t, y):
        return np.concatenate([y[n:], system.evaluate(t, y[:n], y[n:], alpha, beta).qdd])

    user_events = [] if events is None else (list(events) if isinstance(events, (list, tuple)) else [events])
    gimbal = gimbal_events(system)
    options = dict(rtol=rtol, atol=atol, max_step=max_step, dense_output=dense_output, t_eval=t_eval,
                   events=(user_events + gimbal) or None)
    projector = Projector(system, tol=stab.projection_tol) if stab.projects else None
    if projector is not None:
        sol = solve_ivp(rhs, (t0, tf), np.concatenate([q0, qd0]), method=ProjectedRK, rk=method,
                        project=projector, **options)
    else:
        sol = solve_ivp(rhs, (t0, tf), np.concatenate([q0, qd0]), method=method, **options)
    hits = [(te[0], ye[0]) for te, ye in zip(sol.t_events[len(user_events):], sol.y_events[len(user_events):])
            if len(te)] if gimbal else []
    if hits:
        te, ye = min(hits, key=lambda h: h[0])
        raise system.gimbal_error(te, ye[:n])
    if sol.status == -1:
        raise IntegrationError(f"integration failed at t={sol.t[-1]:.6g} s: {sol.message}")
    t, Y = sol.t, sol.y.T
    if projector is not None and t_eval is not None:  # points of the step interpolants, projected
        Y = np.array([projector(tk, yk, accumulate=False) for tk, yk in zip(t, Y)])
    return _result(system, t, Y, sol, stab, projector, user_events, dense_output)


def _solve_in_c(system, t0, tf, q0, qd0, stab, *, method, rtol, atol, max_step, t_eval, dense_output, events):
    """``solve_dynamics`` with stepper='c': DOP853 stepped in C, the output on SciPy's interpolants."""
    from .codegen.stepper import dop853_steps, StepperFailure, why_not

    refused = ("method: only DOP853 is stepped in C" if method != "DOP853" else
               "events: are located by solve_ivp (stepper='scipy')" if events is not None else
               "stabilization: projection is applied by solve_ivp's ProjectedRK (stepper='scipy')"
               if stab.projects else why_not(system))
    if refused is not None:
        raise ValueError(f"stepper='c' cannot integrate this: {refused}")
    if t_eval is not None and (np.any(np.diff(t_eval) < 0) or np.min(t_eval, initial=t0) < t0
                               or np.max(t_eval, initial=tf) > tf):
        raise ValueError(f"t_eval: must increase within t_span ({t0:g}, {tf:g}) s")
    dense = dense_output or t_eval is not None
    try:
        run = dop853_steps(system, (t0, tf), np.concatenate([q0, qd0]), alpha=stab.alpha, beta=stab.beta,
                           rtol=rtol, atol=atol, max_step=max_step, dense=dense)
    except StepperFailure as exc:
        raise IntegrationError(f"integration failed at t={exc.t:.6g} s: {exc}") from exc
    t, Y = run.t, run.y
    sol = run.solution() if dense else None
    if t_eval is not None:
        t = np.asarray(t_eval, dtype=float)
        Y = sol(t).T if len(t) else np.zeros((0, Y.shape[1]))
    done = SimpleNamespace(nfev=run.nfev, status=0, message="The solver successfully reached the end of the "
                           "integration interval.", sol=sol, t_events=None)
    return _result(system, t, Y, done, stab, None, [], dense_output)


def gimbal_events(system) -> list:
    """Terminal ``solve_ivp`` events that watch each body free to reach its rotation
    singularity (a step may straddle it): the margin |sin θ| − gimbal_tol for an approach and
    the signed sin θ for a crossing within one step."""
    def watch(body, signed):
        sl = system.slice(body)
        if signed:
            ev = lambda t, y: body.rotation.singularity_function(y[sl][3:])  # noqa: E731
        else:
            ev = lambda t, y: body.rotation.singularity_distance(y[sl][3:]) - system.gimbal_tol  # noqa: E731
        ev.terminal = True
        return ev

    return [watch(b, signed) for b in system.gimbal_checked for signed in (False, True)]


def _check_initial(system, t0, q0, qd0, tol):
    jet = system.constraint_jet(t0, q0, qd0)
    for what, v in (("C(q0, t0)", jet.val), ("Cq qd0 + Ct", jet.vel)):
        if np.abs(v).max() > tol:
            k = int(np.argmax(np.abs(v)))
            raise InconsistentInitialConditions(
                f"initial conditions violate {what}: {np.abs(v).max():.3e} at row "
                f"{system.constraint_labels[k]}; use consistent_initial_conditions()")


def _result(system, t, Y, sol, stab, projector, user_events, dense_output) -> DynamicsResult:
    """q̈, λ and the constraint residuals at the output times."""
    n, nt = system.nq, len(t)
    qdd, lam = np.zeros((nt, n)), np.zeros((nt, system.nc))
    cn, vn, nh = np.zeros(nt), np.zeros(nt), np.zeros(nt)
    hol, vel = system.holonomic_rows, system.velocity_rows
    for k in range(nt):
        e = system.evaluate(t[k], Y[k, :n], Y[k, n:], stab.alpha, stab.beta)
        qdd[k], lam[k] = e.qdd, e.lam
        if len(hol):
            cn[k] = np.abs(e.C[hol]).max()
        if system.nc:
            vn[k] = np.abs(e.Cdot).max()
        if len(vel):
            nh[k] = np.abs(e.Cdot[vel]).max()
    return DynamicsResult(
        t=np.asarray(t), q=Y[:, :n].copy(), qd=Y[:, n:].copy(), qdd=qdd, lam=lam,
        constraint_norm=cn, velocity_constraint_norm=vn, system=system, alpha=stab.alpha, beta=stab.beta,
        nfev=sol.nfev, status=sol.status, message=sol.message, sol=sol.sol if dense_output else None,
        t_events=sol.t_events[: len(user_events)] if user_events else None,
        stabilization=stab.kind, projection_energy=projector.energy if projector is not None else 0.0,
        nonholonomic_norm=nh,
    )
