"""Coordinate projection onto the constraints (thesis §3.8's "geometric projection", the
alternative to Baumgarte stabilization)."""
from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import LinAlgWarning, lu_factor, lu_solve

from .errors import IntegrationError
from .validation import check_array, check_number

__all__ = ["project", "Projector", "project_velocities", "velocity_projector"]


def project(system, t, q, qd, *, tol: float = 1e-12, max_iter: int = 20):
    """Mass-weighted projection onto C(q, t) = 0 and Cq q̇ = −Ct (velocity rows included:
    B q̇ + b = 0; positions are projected onto the holonomic rows only).

    Positions: repeat [M Cqᵀ; Cq 0][Δq; μ] = [0; −C] (the smallest ΔqᵀMΔq that
    removes C to first order) until max |C| ≤ tol.  Velocities: [M Cqᵀ; Cq 0][q̇⁺; μ] =
    [M q̇; −Ct], the velocity closest to q̇ in the kinetic-energy metric.  The augmented
    matrix is that of eq. 101, so it stays regular for Euler parameters too.
    Returns (q⁺, q̇⁺, ΔT) with ΔT = T(q⁺, q̇⁺) − T(q, q̇) the kinetic-energy change that
    the projection causes (positions and velocities together).
    """
    check_number("t", t, unit="s")
    check_number("tol", tol, positive=True)
    check_number("max_iter", max_iter, integer=True, positive=True)
    for name, v in (("q", q), ("qd", qd)):
        if check_array(name, v).shape != (system.nq,):
            raise ValueError(f"{name}: must have {system.nq} entries, got shape {np.shape(v)}")
    return _project(system, t, q, qd, tol=tol, max_iter=max_iter)


def _project(system, t, q, qd, *, tol, max_iter):
    """``project`` without the checks of its arguments (the integrator's inner loop)."""
    n = system.nq
    hol = system.holonomic_rows  # velocity rows B q̇ + b = 0 constrain no position
    mh = len(hol)
    q = np.array(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    Kh = np.zeros((n + mh, n + mh))
    zero = np.zeros(n)
    for it in range(max_iter + 1):
        e = system.evaluate(t, q, zero)  # M, C, Cq; at q̇ = 0, Ċ = Ct (and b for velocity rows)
        M, C, Cq, Ct = e.M, e.C[hol], e.Cq, e.Cdot
        if it == 0:
            T0 = 0.5 * qd @ M @ qd
        Kh[:n, :n] = M
        Kh[:n, n:], Kh[n:, :n] = Cq[hol].T, Cq[hol]
        if not mh or np.abs(C).max() <= tol:
            break
        if it == max_iter:
            raise IntegrationError(f"position projection did not converge at t={t:.6g} s: "
                                   f"max |C| = {np.abs(C).max():.3e} after {max_iter} iterations")
        q += np.linalg.solve(Kh, np.concatenate([np.zeros(n), -C]))[:n]
    v, _ = project_velocities(M, Cq, Ct, qd)
    return q, v, 0.5 * v @ M @ v - T0


def project_velocities(M, Cq, Ct, qd):
    """The velocity closest to q̇ in the kinetic-energy metric that satisfies the rows,
    Cq q̇⁺ + Ct = 0, and the multipliers ν of that condition: the solution of ::

        [ M   Cqᵀ ] [ q̇⁺ ]   [ M q̇ ]
        [ Cq   0  ] [ ν  ] = [ −Ct ]

    (the augmented matrix of eq. 101), so that M(q̇⁺ − q̇) = −Cqᵀν.  Returns (q̇⁺, ν).  The
    velocity step of ``project`` and the plastic impact (``skilib.engine.impact``) both
    solve it; the caller checks the arguments and the rank of Cq.
    """
    n = len(qd)
    x = np.linalg.solve(_augmented(M, Cq), np.concatenate([M @ qd, -np.asarray(Ct, dtype=float)]))
    return x[:n], x[n:]


def _augmented(M, Cq):
    """[M Cqᵀ; Cq 0], the augmented matrix of eq. 101."""
    n, m = len(M), len(Cq)
    K = np.zeros((n + m, n + m))
    K[:n, :n] = M
    K[:n, n:], K[n:, :n] = np.transpose(Cq), Cq
    return K


def velocity_projector(M, Cq, Ct):
    """``project_velocities`` for fixed M, Cq and Ct: the augmented matrix factorized once (LU
    with partial pivoting, LAPACK's getrf, as ``numpy.linalg.solve`` factorizes it), and the
    function q̇ -> (q̇⁺, ν) that solves with it (getrs) for any q̇."""
    n = len(M)
    K = _augmented(M, Cq)
    with warnings.catch_warnings():  # a singular K gives non-finite solutions: the caller names it
        warnings.simplefilter("ignore", LinAlgWarning)
        lu = lu_factor(K, check_finite=False)
    rhs = np.concatenate([np.zeros(n), -np.asarray(Ct, dtype=float)])

    def solve(qd):
        rhs[:n] = M @ qd
        x = lu_solve(lu, rhs, check_finite=False)
        return x[:n], x[n:]

    return solve


class Projector:
    """The projection of a state vector y = [q; q̇; extra states] of ``system``, as
    ``ProjectedRK`` calls it: ``projector(t, y, accumulate)`` returns the projected y.

    With ``accumulate`` (after an accepted step) the kinetic-energy change is added to
    ``energy``, to ``y[energy_index]`` when that index is given (an extra state of the
    ODE that carries it), and ``count`` is incremented; points of dense output are
    projected without it.
    """

    def __init__(self, system, *, tol: float = 1e-12, energy_index: int | None = None):
        self.system, self.tol, self.energy_index = system, tol, energy_index
        self.n = system.nq
        self.energy = 0.0
        self.count = 0

    def __call__(self, t, y, accumulate: bool = True):
        n = self.n
        q, v, dT = _project(self.system, t, y[:n], y[n: 2 * n], tol=self.tol, max_iter=20)
        out = np.array(y, dtype=float)
        out[:n], out[n: 2 * n] = q, v
        if accumulate:
            self.energy += dT
            self.count += 1
            if self.energy_index is not None:
                out[self.energy_index] += dT
        return out

    def path(self, sol):
        """y(t) of a dense solution (``solve_ivp``'s ``sol``) with every point projected."""
        def y(t):
            if np.ndim(t):
                return np.column_stack([self(float(tt), sol(float(tt)), accumulate=False) for tt in t])
            return self(float(t), sol(t), accumulate=False)
        return y
