"""ZXZ Euler-angle kinematics of a rigid body (Bruzzo 2012, §3.2, eqs. 5–31).

The orientation of a body is A = Rz(φ)·Rx(θ)·Rz(ψ): this is the product that the
thesis's eqs. 24–31 and appendix B use (its eq. 8 prints the factors in reverse order,
book: Differences from the thesis, errata).  The angular velocity in the global frame is ω = G θ̇ (eq. 29) and
in the body frame ω̄ = Ḡ θ̇ with Ḡ = AᵀG (eqs. 30–31).

The parametrization is singular where sin θ = 0 (gimbal lock): there G loses rank and
the rotational block of the mass matrix, ḠᵀĪḠ, with it.
"""
from __future__ import annotations

import math

import numpy as np

from .validation import check_array

__all__ = [
    "cross3",
    "skew",
    "rot_x",
    "rot_z",
    "rotation_matrix",
    "G_matrix",
    "G_bar_matrix",
    "G_dot_thetadot",
    "ZXZ",
    "EulerParameters",
]


# Scalar functions that also accept sympy expressions, so that the same formulas serve
# the numeric engine and the code generator (skilib.engine.codegen) that traces them.
def cos(x):
    try:
        return math.cos(x)
    except TypeError:
        import sympy

        return sympy.cos(x)


def sin(x):
    try:
        return math.sin(x)
    except TypeError:
        import sympy

        return sympy.sin(x)


def sqrt(x):
    try:
        return math.sqrt(x)
    except TypeError:
        import sympy

        return sympy.sqrt(x)



def cross3(a, b) -> np.ndarray:
    """a × b for two 3-vectors (numpy's general ``cross`` costs ~10x more here)."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


def skew(v) -> np.ndarray:
    """Skew-symmetric matrix ṽ with ṽ a = v × a (eq. 22)."""
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotation_matrix(angles) -> np.ndarray:
    """A = Rz(φ) Rx(θ) Rz(ψ) for ZXZ angles (φ, θ, ψ): three finite numbers [rad]."""
    return _zxz_matrix(check_array("angles", angles, shape=(3,)))


def _zxz_matrix(angles) -> np.ndarray:
    """``rotation_matrix`` without the checks: the engine's inner loop, and symbols for the code
    generator."""
    phi, theta, psi = angles
    cf, sf = cos(phi), sin(phi)
    ct, st = cos(theta), sin(theta)
    cp, sp = cos(psi), sin(psi)
    return np.array(
        [
            [cf * cp - sf * ct * sp, -cf * sp - sf * ct * cp, sf * st],
            [sf * cp + cf * ct * sp, -sf * sp + cf * ct * cp, -cf * st],
            [st * sp, st * cp, ct],
        ]
    )


def _cos_sin(theta):
    """(cos φ, sin φ, cos θ, sin θ, cos ψ, sin ψ) of k ZXZ angle triples (k × 3), each an array of
    k, by ``math`` as the scalar formulas take them."""
    theta = np.asarray(theta, dtype=float)
    out = []
    for j in range(3):
        c = np.ascontiguousarray(theta[:, j])
        bits = c.view(np.int64)
        if len(c) and (bits == bits[0]).all():  # one number throughout (a driven angle): its cos and sin once
            out += [np.full(len(c), math.cos(c[0])), np.full(len(c), math.sin(c[0]))]
            continue
        col = c.tolist()
        out += [np.fromiter(map(math.cos, col), float, len(col)), np.fromiter(map(math.sin, col), float, len(col))]
    return out


def G_matrix(angles) -> np.ndarray:
    """Global angular-velocity matrix G with ω = G θ̇ (eq. 29)."""
    phi, theta, _ = angles
    cf, sf = cos(phi), sin(phi)
    ct, st = cos(theta), sin(theta)
    return np.array([[0.0, cf, sf * st], [0.0, sf, -cf * st], [1.0, 0.0, ct]])


def G_bar_matrix(angles) -> np.ndarray:
    """Body-frame angular-velocity matrix Ḡ = AᵀG with ω̄ = Ḡ θ̇ (eq. 31)."""
    _, theta, psi = angles
    ct, st = cos(theta), sin(theta)
    cp, sp = cos(psi), sin(psi)
    return np.array([[st * sp, cp, 0.0], [st * cp, -sp, 0.0], [ct, 0.0, 1.0]])


def G_dot_thetadot(angles, rates) -> np.ndarray:
    """Ġ θ̇: the part of ω̇ = G θ̈ + Ġ θ̇ that is quadratic in the angle rates."""
    phi, theta, _ = angles
    dphi, dtheta, dpsi = rates
    cf, sf = cos(phi), sin(phi)
    ct, st = cos(theta), sin(theta)
    return np.array(
        [
            -sf * dphi * dtheta + (cf * st * dphi + sf * ct * dtheta) * dpsi,
            cf * dphi * dtheta + (sf * st * dphi - cf * ct * dtheta) * dpsi,
            -st * dtheta * dpsi,
        ]
    )


class ZXZ:
    """Rotation coordinates of one body: ZXZ Euler angles (three per body).

    A parametrization object tells the engine, for the body's rotational coordinates θ
    and rates θ̇: A(θ), G(θ) (global, ω = Gθ̇), Ġθ̇, and where it is singular.  Other
    parametrizations (Euler parameters) provide the same four things.
    """

    name = "zxz"
    n = 3
    labels = ("phi", "theta", "psi")
    has_singularity = True

    @staticmethod
    def A(theta) -> np.ndarray:
        return _zxz_matrix(theta)

    @staticmethod
    def G(theta) -> np.ndarray:
        return G_matrix(theta)

    @staticmethod
    def A_stack(theta, cs=None) -> np.ndarray:
        """A(θ) at k points at once (θ: k × 3; k × 3 × 3): the same operations as ``A`` in the same
        order on each point's numbers (the sines and cosines by ``math``, or ``cs``, ``_cos_sin``'s
        of these points), so equal bit for bit."""
        cf, sf, ct, st, cp, sp = _cos_sin(theta) if cs is None else cs
        A = np.empty((len(cf), 3, 3))  # filled entry by entry: the same numbers as stacking them
        A[:, 0, 0], A[:, 0, 1], A[:, 0, 2] = cf * cp - sf * ct * sp, -cf * sp - sf * ct * cp, sf * st
        A[:, 1, 0], A[:, 1, 1], A[:, 1, 2] = sf * cp + cf * ct * sp, -sf * sp + cf * ct * cp, -cf * st
        A[:, 2, 0], A[:, 2, 1], A[:, 2, 2] = st * sp, st * cp, ct
        return A

    @staticmethod
    def A_G_stack(theta) -> tuple:
        """(``A_stack``, ``G_stack``) of the same points, their sines and cosines taken once."""
        cs = _cos_sin(theta)
        return ZXZ.A_stack(theta, cs), ZXZ.G_stack(theta, cs)

    @staticmethod
    def G_stack(theta, cs=None) -> np.ndarray:
        """G(θ) at k points at once (k × 3 × 3), equal to ``G`` point by point bit for bit."""
        cf, sf, ct, st, _, _ = _cos_sin(theta) if cs is None else cs
        G = np.zeros((len(cf), 3, 3))
        G[:, 0, 1], G[:, 0, 2] = cf, sf * st
        G[:, 1, 1], G[:, 1, 2] = sf, -cf * st
        G[:, 2, 0], G[:, 2, 2] = 1.0, ct
        return G

    @staticmethod
    def Gdot_thetadot(theta, thetad) -> np.ndarray:
        return G_dot_thetadot(theta, thetad)

    @staticmethod
    def singularity_avoided(driven) -> bool:
        """True when the prescribed angles (indices 0, 1, 2 = φ, θ, ψ) leave at most one free
        angle: with θ and one of φ, ψ driven the body turns about one fixed axis, and θ = 0
        (e.g. a flat ski or sleigh, A = Rz(φ + ψ)) is no singularity of that motion."""
        return 1 in driven and (0 in driven or 2 in driven)

    @staticmethod
    def singularity_function(theta) -> float:
        """sin θ: changes sign where a motion passes through gimbal lock (θ = 0, π)."""
        return np.sin(theta[1])

    @staticmethod
    def singularity_distance(theta) -> float:
        """|sin θ|: zero at gimbal lock."""
        return abs(np.sin(theta[1]))

    @staticmethod
    def rates(theta, omega) -> np.ndarray:
        """θ̇ with G θ̇ = ω (global angular velocity); singular at gimbal lock."""
        return np.linalg.solve(G_matrix(theta), np.asarray(omega, dtype=float))

    @staticmethod
    def from_matrix(A) -> np.ndarray:
        """ZXZ angles (φ, θ, ψ) of a rotation matrix, with θ in [0, π]."""
        A = np.asarray(A, dtype=float)
        theta = np.arccos(np.clip(A[2, 2], -1.0, 1.0))
        if np.sin(theta) < 1e-12:  # gimbal lock: only φ ± ψ is defined; put it all in φ
            return np.array([np.arctan2(A[1, 0], A[0, 0]), theta, 0.0])
        phi = np.arctan2(A[0, 2], -A[1, 2])
        psi = np.arctan2(A[2, 0], A[2, 1])
        return np.array([phi, theta, psi])


def _E(p) -> np.ndarray:
    e0, e1, e2, e3 = p
    return np.array([[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]])


class EulerParameters:
    """Rotation coordinates of one body: Euler parameters p = (e0, e1, e2, e3).

    A(p) = (e0² − eᵀe) I + 2 eeᵀ + 2 e0 ẽ evaluated at p/|p|, ω = 2E(p)ṗ/|p|² with
    E = [−e, ẽ + e0 I] (Haug 1989).  Normalizing inside A makes
    G exact for every p, not only on |p| = 1, so the engine's Jacobians stay exact while
    the normalization constraint pᵀp − 1 = 0 (added by the system for every such body)
    is being satisfied by the solver.  Since Ė ṗ = E(ṗ) ṗ = 0,
    Ġṗ = −(2pᵀṗ/|p|²) G ṗ, which vanishes on the constraint manifold.
    No singularity: the mass matrix 4EᵀJE/|p|⁴ is singular along p, but the augmented
    matrix with the normalization row is not.
    """

    name = "euler_parameters"
    n = 4
    labels = ("e0", "e1", "e2", "e3")
    has_singularity = False

    @staticmethod
    def A(p) -> np.ndarray:
        p = np.asarray(p)
        e0, e1, e2, e3 = p / sqrt(p @ p)
        return np.array(
            [
                [e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
                [2 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2 * (e2 * e3 - e0 * e1)],
                [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3],
            ]
        )

    @staticmethod
    def G(p) -> np.ndarray:
        p = np.asarray(p)
        return 2.0 * _E(p) / (p @ p)

    @staticmethod
    def A_stack(p) -> np.ndarray:
        """A(p) at k points (p: k × 4; k × 3 × 3), point by point (``ZXZ.A_stack``'s interface)."""
        return np.array([EulerParameters.A(x) for x in np.asarray(p)]).reshape(-1, 3, 3)

    @staticmethod
    def G_stack(p) -> np.ndarray:
        """G(p) at k points (k × 3 × 4), point by point."""
        return np.array([EulerParameters.G(x) for x in np.asarray(p)]).reshape(-1, 3, 4)

    @staticmethod
    def A_G_stack(p) -> tuple:
        """(``A_stack``, ``G_stack``) of the same points."""
        return EulerParameters.A_stack(p), EulerParameters.G_stack(p)

    @staticmethod
    def Gdot_thetadot(p, pd) -> np.ndarray:
        p = np.asarray(p)
        s = p @ p
        return -(2.0 * (p @ pd) / s) * (2.0 * _E(p) @ pd / s)

    @staticmethod
    def singularity_function(p) -> float:
        return np.inf

    @staticmethod
    def singularity_distance(p) -> float:
        return np.inf

    @staticmethod
    def from_matrix(A) -> np.ndarray:
        """Unit Euler parameters of a rotation matrix (Shepperd's method), e0 ≥ 0."""
        A = np.asarray(A, dtype=float)
        tr = np.trace(A)
        cand = np.array([tr, A[0, 0], A[1, 1], A[2, 2]])
        k = int(np.argmax(cand))
        if k == 0:
            e0 = 0.5 * np.sqrt(1.0 + tr)
            p = [e0, (A[2, 1] - A[1, 2]) / (4 * e0), (A[0, 2] - A[2, 0]) / (4 * e0), (A[1, 0] - A[0, 1]) / (4 * e0)]
        elif k == 1:
            e1 = 0.5 * np.sqrt(1.0 + 2 * A[0, 0] - tr)
            p = [(A[2, 1] - A[1, 2]) / (4 * e1), e1, (A[1, 0] + A[0, 1]) / (4 * e1), (A[0, 2] + A[2, 0]) / (4 * e1)]
        elif k == 2:
            e2 = 0.5 * np.sqrt(1.0 + 2 * A[1, 1] - tr)
            p = [(A[0, 2] - A[2, 0]) / (4 * e2), (A[1, 0] + A[0, 1]) / (4 * e2), e2, (A[2, 1] + A[1, 2]) / (4 * e2)]
        else:
            e3 = 0.5 * np.sqrt(1.0 + 2 * A[2, 2] - tr)
            p = [(A[1, 0] - A[0, 1]) / (4 * e3), (A[0, 2] + A[2, 0]) / (4 * e3), (A[2, 1] + A[1, 2]) / (4 * e3), e3]
        p = np.array(p)
        return -p if p[0] < 0 else p

    @staticmethod
    def rates(p, omega) -> np.ndarray:
        """ṗ with ω = G ṗ and pᵀṗ = 0, for |p| = 1: ṗ = ½ Eᵀω (E Eᵀ = I, E p = 0)."""
        p = np.asarray(p, dtype=float)
        return 0.5 * _E(p).T @ np.asarray(omega, dtype=float)
