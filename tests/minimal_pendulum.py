"""Minimal-coordinate equations of an s-segment 3-D pendulum after Al-Zube (2004).

Independent reference for ``tests/test_double_pendulum.py`` (Al-Zube 2004, M.Sc. thesis,
NJIT, chapters 3–4).  Nothing here uses ``skilib``.

Al-Zube's model (§3.1–3.4): S massless segments in a chain from a fixed origin, P point
masses sitting on the segments.  Segment s has two angles, θ_s from the +Z axis and Φ_s
the azimuth, and the unit vector

    e_s = (cos Φ_s sin θ_s,  sin Φ_s sin θ_s,  cos θ_s).

The relation matrix R (eq. 3.1) has r_ps = z_p (the distance of mass p from the proximal
joint of its own segment i), L_s on the forefather segments of i, 0 otherwise, so that
the positions are (eqs. 3.4–3.6)

    x = R [cos Φ sin θ],   y = R [sin Φ sin θ],   z = R [cos θ].

With X = (θ_1..θ_S, Φ_1..Φ_S) and V = Ẋ (eqs. 3.2–3.3) the velocities are ẋ = R·CSX·V,
ẏ = R·CSY·V, ż = −R·CSZ·V (eqs. 3.7–3.9).  The available text lost the definitions of the
S×2S matrices CSX, CSY, CSZ; differentiating eqs. 3.4–3.6 gives

    CSX = [diag(cos Φ cos θ), diag(−sin Φ sin θ)]
    CSY = [diag(sin Φ cos θ), diag( cos Φ sin θ)]
    CSZ = [diag(sin θ),       0                 ]

(this is the only reading that reproduces his printed element formulas of
M11, M12, M21, M22 below eq. 3.14; ``test_double_pendulum`` checks that).  Then

    C = Rᵀ M_D R                                                            (3.12)
    M(X) = CSXᵀ C CSX + CSYᵀ C CSY + CSZᵀ C CSZ                             (3.14)
    P(X) = g [cos θ]ᵀ Rᵀ M_D 1,   ∂P/∂θ_i = −g sin θ_i (Rᵀ M_D 1)_i,  ∂P/∂Φ = 0   (3.10, 4.11)
    S_i(X, V) = ½ Σ_j Σ_k V_j V_k (∂/∂X_k [2 M_ij] − ∂/∂X_i [M_jk])         (4.9)
    M(X) V̇ = −∇P(X) − S(X, V)                                               (4.10)

P = g Σ m_p z_p: the Z axis points up and gravity is −g Ẑ, as in skilib.
His closed forms (4.45)/(4.66) are not used (they are in error; the book's Differences chapter, erratum 8).
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

__all__ = ["SeedPendulum"]


class SeedPendulum:
    """Al-Zube's S-segment pendulum with point masses.

    Parameters
    ----------
    lengths : (S,) segment lengths L_s
    masses : list of (segment index s, distance z_p from the proximal joint, mass m_p)
    parents : (S,) index of each segment's parent segment (−1 = fixed origin);
        default: a chain 0 → 1 → … → S−1.
    g : gravitational acceleration (m/s²), P = g Σ m z.
    """

    def __init__(self, lengths, masses, parents=None, g=9.81):
        self.L = np.asarray(lengths, dtype=float)
        S = len(self.L)
        self.S = S
        self.parents = list(range(-1, S - 1)) if parents is None else list(parents)
        self.g = float(g)
        self.masses = [(int(s), float(z), float(m)) for s, z, m in masses]
        P = len(self.masses)
        # relation matrix, eq. 3.1
        R = np.zeros((P, S))
        for p, (s, z, _) in enumerate(self.masses):
            R[p, s] = z
            f = self.parents[s]
            while f >= 0:  # forefather segments
                R[p, f] = self.L[f]
                f = self.parents[f]
        self.R = R
        self.MD = np.diag([m for _, _, m in self.masses])
        self.C = R.T @ self.MD @ R  # eq. 3.12
        self.Pvec = R.T @ self.MD @ np.ones(P)  # [P]_{S×1} of eq. 3.10

    # -- X = (θ, Φ) helpers ---------------------------------------------------------
    def split(self, X):
        X = np.asarray(X, dtype=float)
        return X[: self.S], X[self.S :]

    def positions(self, X) -> np.ndarray:
        """(P, 3) positions of the point masses, eqs. 3.4–3.6."""
        th, ph = self.split(X)
        e = np.column_stack([np.cos(ph) * np.sin(th), np.sin(ph) * np.sin(th), np.cos(th)])
        return self.R @ e

    def velocities(self, X, V) -> np.ndarray:
        """(P, 3) velocities of the point masses, eqs. 3.7–3.9."""
        CSX, CSY, CSZ = self.cs_matrices(X)
        V = np.asarray(V, dtype=float)
        return np.column_stack([self.R @ CSX @ V, self.R @ CSY @ V, -self.R @ CSZ @ V])

    def cs_matrices(self, X):
        """CSX, CSY, CSZ (S×2S) of eqs. 3.7–3.9."""
        th, ph = self.split(X)
        st, ct, sp, cp = np.sin(th), np.cos(th), np.sin(ph), np.cos(ph)
        CSX = np.hstack([np.diag(cp * ct), np.diag(-sp * st)])
        CSY = np.hstack([np.diag(sp * ct), np.diag(cp * st)])
        CSZ = np.hstack([np.diag(st), np.zeros((self.S, self.S))])
        return CSX, CSY, CSZ

    def cs_derivatives(self, X):
        """∂CSX/∂X_k, ∂CSY/∂X_k, ∂CSZ/∂X_k as arrays (2S, S, 2S)."""
        S = self.S
        th, ph = self.split(X)
        st, ct, sp, cp = np.sin(th), np.cos(th), np.sin(ph), np.cos(ph)
        dX = np.zeros((2 * S, S, 2 * S))
        dY = np.zeros((2 * S, S, 2 * S))
        dZ = np.zeros((2 * S, S, 2 * S))
        for i in range(S):
            # ∂/∂θ_i (only row i of each matrix depends on θ_i, Φ_i)
            dX[i, i, i], dX[i, i, S + i] = -cp[i] * st[i], -sp[i] * ct[i]
            dY[i, i, i], dY[i, i, S + i] = -sp[i] * st[i], cp[i] * ct[i]
            dZ[i, i, i] = ct[i]
            # ∂/∂Φ_i
            dX[S + i, i, i], dX[S + i, i, S + i] = -sp[i] * ct[i], -cp[i] * st[i]
            dY[S + i, i, i], dY[S + i, i, S + i] = cp[i] * ct[i], -sp[i] * st[i]
        return dX, dY, dZ

    def mass_matrix(self, X) -> np.ndarray:
        """Generalized mass matrix M(X), eq. 3.14."""
        C = self.C
        return sum(A.T @ C @ A for A in self.cs_matrices(X))

    def mass_matrix_elementwise(self, X) -> np.ndarray:
        """M(X) from his printed sub-matrix elements below eq. 3.14."""
        th, ph = self.split(X)
        c = self.C
        st, ct = np.sin(th), np.cos(th)
        dph = ph[:, None] - ph[None, :]
        M11 = c * (st[:, None] * st[None, :] + ct[:, None] * ct[None, :] * np.cos(dph))
        M12 = c * (ct[:, None] * st[None, :] * np.sin(dph))
        M21 = c * (-st[:, None] * ct[None, :] * np.sin(dph))
        M22 = c * (st[:, None] * st[None, :] * np.cos(dph))
        return np.block([[M11, M12], [M21, M22]])

    def mass_matrix_derivatives(self, X) -> np.ndarray:
        """dM[k] = ∂M/∂X_k, shape (2S, 2S, 2S), from eq. 3.14 by the product rule."""
        C = self.C
        out = np.zeros((2 * self.S, 2 * self.S, 2 * self.S))
        for A, dA in zip(self.cs_matrices(X), self.cs_derivatives(X)):
            B = dA.transpose(0, 2, 1) @ C @ A  # (∂A/∂X_k)ᵀ C A for each k
            out += B + B.transpose(0, 2, 1)
        return out

    def grad_potential(self, X) -> np.ndarray:
        """∇P, eq. 4.11 (the Φ part is zero)."""
        th, _ = self.split(X)
        return np.concatenate([-self.g * np.sin(th) * self.Pvec, np.zeros(self.S)])

    def potential(self, X) -> float:
        th, _ = self.split(X)
        return self.g * np.cos(th) @ self.Pvec  # eq. 3.10

    def kinetic_energy(self, X, V) -> float:
        V = np.asarray(V, dtype=float)
        return 0.5 * V @ self.mass_matrix(X) @ V  # eq. 3.13

    def energy(self, X, V) -> float:
        return self.kinetic_energy(X, V) + self.potential(X)

    def S_vector(self, X, V) -> np.ndarray:
        """S(X, V) of eq. 4.9."""
        V = np.asarray(V, dtype=float)
        dM = self.mass_matrix_derivatives(X)  # dM[k, i, j] = ∂M_ij/∂X_k
        # ½ Σ_jk V_j V_k (2 ∂_k M_ij − ∂_i M_jk)
        first = np.einsum("kij,j,k->i", dM, V, V)
        second = 0.5 * np.einsum("ijk,j,k->i", dM, V, V)
        return first - second

    def accelerations(self, X, V) -> np.ndarray:
        """V̇ from M V̇ = −∇P − S, eq. 4.10."""
        return np.linalg.solve(self.mass_matrix(X), -self.grad_potential(X) - self.S_vector(X, V))

    def simulate(self, X0, V0, t_span, t_eval=None, rtol=1e-11, atol=1e-12, method="DOP853"):
        n = 2 * self.S

        def rhs(t, y):
            return np.concatenate([y[n:], self.accelerations(y[:n], y[n:])])

        sol = solve_ivp(rhs, t_span, np.concatenate([X0, V0]), method=method, rtol=rtol,
                        atol=atol, t_eval=t_eval)
        if not sol.success:
            raise RuntimeError(sol.message)
        return sol.t, sol.y[:n].T, sol.y[n:].T
