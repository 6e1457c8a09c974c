"""Forward dynamics: consistent initial conditions, integration of eq. 101, reactions.

``solve_dynamics`` integrates the index-1 form of the equations of motion (eq. 101) with
Baumgarte stabilization (eqs. 99–100) using ``scipy.integrate.solve_ivp``.  The thesis's
choice of the Baumgarte parameters is α = 1/h, β = √2/h with h a nominal step (§3.8);
``alpha=0, beta=0`` switches stabilization off.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from .errors import InconsistentInitialConditions, IntegrationError
from .rotation import cross3

__all__ = ["consistent_initial_conditions", "solve_dynamics", "DynamicsResult", "baumgarte", "project"]


def baumgarte(h: float):
    """The thesis's Baumgarte parameters for a nominal step h: (α, β) = (1/h, √2/h)."""
    if not h > 0:
        raise ValueError(f"h must be > 0, got {h}")
    return 1.0 / h, np.sqrt(2.0) / h


def consistent_initial_conditions(system, t0, q_guess, qd_guess=None, *, independent=(),
                                  tol: float = 1e-12, max_iter: int = 50):
    """Positions with C(q, t0) = 0 and velocities with Cq q̇ = −Ct.

    Newton–Raphson on [C; q_I − q_I⁰] = 0 holds the independent coordinates ``independent``
    (indices into q) at their guessed values; the velocities solve
    [Cq; E_I] q̇ = [−Ct; q̇_I⁰].  Where these leave freedom (fewer independent
    coordinates than degrees of freedom), the smallest change of the guess is taken.  Raises InconsistentInitialConditions with the residual.
    """
    q = np.array(q_guess, dtype=float)
    if q.shape != (system.nq,):
        raise ValueError(f"q_guess must have {system.nq} entries, got shape {q.shape}")
    qd_guess = np.zeros(system.nq) if qd_guess is None else np.array(qd_guess, dtype=float)
    if qd_guess.shape != (system.nq,):
        raise ValueError(f"qd_guess must have {system.nq} entries, got shape {qd_guess.shape}")
    idx = np.asarray(independent, dtype=int).ravel()
    if np.any((idx < 0) | (idx >= system.nq)):
        raise ValueError(f"independent coordinate indices must be in [0, {system.nq}), got {idx.tolist()}")
    E = np.eye(system.nq)[idx]
    labels = system.constraint_labels
    res = np.inf
    for _ in range(max_iter):
        jet = system.constraint_jet(t0, q)
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
            f"max |C| = {res:.3e} at row {labels[k]}"
        )
    jet = system.constraint_jet(t0, q)
    Amat = np.vstack([jet.J, E])
    b = np.concatenate([-jet.t, qd_guess[idx]])
    qd = qd_guess + np.linalg.lstsq(Amat, b - Amat @ qd_guess, rcond=None)[0]  # smallest change
    vres = np.abs(jet.J @ qd + jet.t).max() if system.nc else 0.0
    ires = np.abs(qd[idx] - qd_guess[idx]).max() if len(idx) else 0.0
    scale = max(1.0, np.abs(b).max())
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
        """Reaction force and moment of one constraint on each of its bodies.

        From Qc = −Cqᵀλ restricted to the constraint's rows: on body b the generalized
        force (Q_R, Q_θ) is equipollent to a force F = Q_R acting at the constraint's
        reaction point P (u = Aū from the centre of mass) and a moment N about P with
        Gᵀ(N + u × F) = Q_θ (eqs. 80–81 read backwards; Newton–Euler form of seed 002,
        eq. 3.45).  Rows: t, body, Fx, Fy, Fz [N], Mx, My, Mz [N m], global components.
        """
        sysm = self.system
        c = sysm.constraint(constraint) if isinstance(constraint, str) else constraint
        rows = sysm.rows(c)
        out = []
        for k, t in enumerate(self.t):
            s = sysm.state(t, self.q[k], self.qd[k])
            Cq = c.jet(s).J
            Qc = -Cq.T @ self.lam[k, rows]
            for body, ubar in c.reaction_points:
                if body is None:
                    continue
                A, G, _, _, sl = s.frame(body)
                F = Qc[sl.start : sl.start + 3]
                Mcm = np.linalg.lstsq(G.T, Qc[sl.start + 3 : sl.stop], rcond=None)[0]
                N = Mcm - cross3(A @ ubar, F)
                out.append((t, body.name, *F, *N))
        import pandas as pd

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
                   check_initial: bool = True, initial_tol: float = 1e-8) -> DynamicsResult:
    """Integrate the constrained equations of motion (eq. 101).

    Parameters
    ----------
    system : MultibodySystem
    t_span : (t0, tf)
    q0, qd0 : consistent initial coordinates and velocities
        (see ``consistent_initial_conditions``).
    method : 'RK45' (default), 'DOP853', 'Radau', or any ``solve_ivp`` method.
    stabilization : 'baumgarte' (default, eqs. 99–101), 'projection' or 'none'.
        'projection' integrates the unstabilized eq. 101 and, after every accepted step,
        projects positions onto C(q, t) = 0 and velocities onto Cq q̇ = −Ct with the
        mass-weighted minimal correction (explicit Runge–Kutta methods only); the kinetic
        energy the projections change, summed over the steps, is
        ``DynamicsResult.projection_energy``.
    h : nominal step for the thesis's Baumgarte parameters α = 1/h, β = √2/h.
    alpha, beta : explicit Baumgarte parameters (override h).
    t_eval : output times (default: the integrator's steps).
    """
    t0, tf = (float(v) for v in t_span)
    if not tf > t0:
        raise ValueError(f"t_span must be increasing, got {t_span}")
    q0 = np.asarray(q0, dtype=float)
    qd0 = np.asarray(qd0, dtype=float)
    for name, v in (("q0", q0), ("qd0", qd0)):
        if v.shape != (system.nq,):
            raise ValueError(f"{name} must have {system.nq} entries, got shape {v.shape}")
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{name} contains non-finite values")
    if stabilization not in ("baumgarte", "projection", "none"):
        raise ValueError(f"stabilization must be 'baumgarte', 'projection' or 'none', got {stabilization!r}")
    if stabilization == "baumgarte":
        a_h, b_h = baumgarte(h)
        alpha = a_h if alpha is None else float(alpha)
        beta = b_h if beta is None else float(beta)
        if alpha < 0:
            raise ValueError(f"alpha must be >= 0, got {alpha}")
    elif alpha or beta:
        raise ValueError(f"alpha/beta are Baumgarte parameters; stabilization={stabilization!r} takes none")
    else:
        alpha = beta = 0.0
    if system.nc:
        system.check_rank(q0, t0)
        if check_initial:
            jet = system.constraint_jet(t0, q0, qd0)
            for what, v in (("C(q0, t0)", jet.val), ("Cq qd0 + Ct", jet.vel)):
                if np.abs(v).max() > initial_tol:
                    k = int(np.argmax(np.abs(v)))
                    raise InconsistentInitialConditions(
                        f"initial conditions violate {what}: {np.abs(v).max():.3e} at row "
                        f"{system.constraint_labels[k]}; use consistent_initial_conditions()"
                    )
    n = system.nq

    def rhs(t, y):
        qdd, _ = system.accelerations(t, y[:n], y[n:], alpha, beta)
        return np.concatenate([y[n:], qdd])

    # the singularity is watched by terminal events (a step may straddle it): the margin
    # |sin θ| − tol for an approach, the signed sin θ for a crossing within one step
    def watch(body, signed):
        sl = system.slice(body)
        if signed:
            ev = lambda t, y: body.rotation.singularity_function(y[sl][3:])
        else:
            ev = lambda t, y: body.rotation.singularity_distance(y[sl][3:]) - system.gimbal_tol
        ev.terminal = True
        return ev

    gimbal = [watch(b, signed) for b in system._gimbal_checked for signed in (False, True)]
    user_events = [] if events is None else (list(events) if isinstance(events, (list, tuple)) else [events])
    y0 = np.concatenate([q0, qd0])
    if stabilization == "projection":
        if user_events or dense_output:
            raise ValueError("stabilization='projection' supports neither events nor dense_output")
        sol = _integrate_projected(system, rhs, (t0, tf), y0, method, rtol, atol, max_step, t_eval,
                                   gimbal, projection_tol)
    else:
        sol = solve_ivp(rhs, (t0, tf), y0, method=method, rtol=rtol, atol=atol,
                        t_eval=t_eval, max_step=max_step, dense_output=dense_output,
                        events=(user_events + gimbal) or None)
        sol.projection_energy = 0.0
    hits = [] if not gimbal or sol.t_events is None else [
        (te[0], ye[0]) for te, ye in zip(sol.t_events[len(user_events):], sol.y_events[len(user_events):])
        if len(te)]
    if hits:
        te, ye = min(hits, key=lambda h: h[0])
        raise system.gimbal_error(te, ye[:n])
    if user_events:
        sol.t_events = sol.t_events[: len(user_events)]
    if sol.status == -1:
        raise IntegrationError(f"integration failed at t={sol.t[-1]:.6g} s: {sol.message}")
    Y = sol.y.T
    nt = len(sol.t)
    qdd = np.zeros((nt, n))
    lam = np.zeros((nt, system.nc))
    cn = np.zeros(nt)
    vn = np.zeros(nt)
    for k in range(nt):
        q, qd = Y[k, :n], Y[k, n:]
        qdd[k], lam[k] = system.accelerations(sol.t[k], q, qd, alpha, beta)
        if system.nc:
            jet = system.constraint_jet(sol.t[k], q, qd)
            cn[k] = np.abs(jet.val).max()
            vn[k] = np.abs(jet.vel).max()
    return DynamicsResult(
        t=sol.t, q=Y[:, :n].copy(), qd=Y[:, n:].copy(), qdd=qdd, lam=lam,
        constraint_norm=cn, velocity_constraint_norm=vn, system=system, alpha=alpha, beta=beta,
        nfev=sol.nfev, status=sol.status, message=sol.message, sol=sol.sol if dense_output else None,
        t_events=sol.t_events[: len(user_events)] if user_events else None,
        stabilization=stabilization, projection_energy=sol.projection_energy,
    )


def _projection_terms(system, t, q):
    """M(q), C, Cq and Ct at (t, q): from the compiled kernel when the system has one
    (``skilib.engine.codegen.CompiledSystem.terms``; Ċ at q̇ = 0 is Ct), else from the engine."""
    if getattr(type(system), "terms", None) is not None:
        o = system.terms(t, q, np.zeros(len(q)))
        return o["M"].copy(), o["C"].copy(), o["Cq"].copy(), o["Cvel"].copy()
    jet = system.constraint_jet(t, q)
    return system.mass_matrix(q), jet.val, jet.J, jet.t


def project(system, t, q, qd, *, tol: float = 1e-12, max_iter: int = 20):
    """Mass-weighted projection onto C(q, t) = 0 and Cq q̇ = −Ct (thesis §3.8's "geometric
    projection"; the alternative to Baumgarte stabilization).

    Positions: repeat [M Cqᵀ; Cq 0][Δq; μ] = [0; −C] (the smallest ΔqᵀMΔq that
    removes C to first order) until max |C| ≤ tol.  Velocities: [M Cqᵀ; Cq 0][q̇⁺; μ] =
    [M q̇; −Ct], the velocity closest to q̇ in the kinetic-energy metric.  The augmented
    matrix is that of eq. 101, so it stays regular for Euler parameters too.
    Returns (q⁺, q̇⁺, ΔT) with ΔT = T(q⁺, q̇⁺) − T(q, q̇) the kinetic-energy change that
    the projection causes (positions and velocities together).
    """
    n, m = system.nq, system.nc
    q = np.array(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    K = np.zeros((n + m, n + m))
    for it in range(max_iter + 1):
        M, C, Cq, Ct = _projection_terms(system, t, q)
        if it == 0:
            T0 = 0.5 * qd @ M @ qd
        K[:n, :n] = M
        K[:n, n:], K[n:, :n] = Cq.T, Cq
        if np.abs(C).max() <= tol:
            break
        if it == max_iter:
            raise IntegrationError(f"position projection did not converge at t={t:.6g} s: "
                                   f"max |C| = {np.abs(C).max():.3e} after {max_iter} iterations")
        q += np.linalg.solve(K, np.concatenate([np.zeros(n), -C]))[:n]
    v = np.linalg.solve(K, np.concatenate([M @ qd, -Ct]))[:n]
    return q, v, 0.5 * v @ M @ v - T0


def _integrate_projected(system, rhs, t_span, y0, method, rtol, atol, max_step, t_eval, gimbal, tol):
    """Step an explicit Runge–Kutta solver, projecting the state after every accepted step."""
    from types import SimpleNamespace

    from scipy.integrate import DOP853, RK23, RK45

    methods = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853}
    if method not in methods:
        raise ValueError(f"stabilization='projection' needs an explicit Runge-Kutta method "
                         f"{sorted(methods)}, got {method!r}")
    n = system.nq
    t0, tf = t_span
    solver = methods[method](rhs, t0, y0, tf, rtol=rtol, atol=atol, max_step=max_step)
    ts, ys, energy = [t0], [y0.copy()], 0.0
    t_eval = None if t_eval is None else np.asarray(t_eval, dtype=float)
    if t_eval is not None:
        ts, ys = ([t0], [y0.copy()]) if t_eval[0] == t0 else ([], [])
        k_out = int(t_eval[0] == t0)
    while solver.status == "running":
        y_prev = solver.y.copy()
        msg = solver.step()
        if solver.status == "failed":
            return SimpleNamespace(status=-1, message=msg, t=np.array(ts), y=np.array(ys).T)
        for ev in gimbal:  # a crossing of a rotation singularity within the step
            if np.sign(ev(solver.t_old, y_prev)) != np.sign(ev(solver.t, solver.y)):
                raise system.gimbal_error(solver.t, solver.y[:n])
        if t_eval is not None:
            dense = solver.dense_output()
            while k_out < len(t_eval) and t_eval[k_out] <= solver.t:
                y = dense(t_eval[k_out])
                q, v, _ = project(system, t_eval[k_out], y[:n], y[n:], tol=tol)
                ts.append(t_eval[k_out])
                ys.append(np.concatenate([q, v]))
                k_out += 1
        q, v, dT = project(system, solver.t, solver.y[:n], solver.y[n:], tol=tol)
        energy += dT
        solver.y = np.concatenate([q, v])
        solver.f = rhs(solver.t, solver.y)  # the FSAL derivative belongs to the projected state
        if t_eval is None:
            ts.append(solver.t)
            ys.append(solver.y.copy())
    return SimpleNamespace(status=0, message="projection integration finished", t=np.array(ts),
                           y=np.array(ys).T, nfev=solver.nfev, sol=None, t_events=None,
                           y_events=None, projection_energy=energy)
