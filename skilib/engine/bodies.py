"""Rigid bodies in absolute coordinates (Bruzzo 2012, §3.2 and §3.4).

Each body carries one block of generalized coordinates qᵢ = [Rᵢ; θᵢ], the position of
its centre of mass and its rotational coordinates.  The body frame's origin is the
centre of mass, so the mass matrix decouples (eq. 91: m_Rθ = 0) and ::

    M = diag(m I, Gᵀ J G),   J = A Ī Aᵀ  (eqs. 40–46, written with the global G),
    (Qv)_R = 0,  (Qv)_θ = −Gᵀ[ω × (J ω) + J Ġθ̇]  (= −Ḡᵀ[ω̄ × (Īω̄) + Ī Ḡ̇θ̇]).

The thesis's eq. 90 prints (Qv)_θ with the opposite sign; the Lagrange derivation in
``tests/test_symbolic.py`` settles it (book: Differences from the thesis, errata).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .rotation import ZXZ, EulerParameters, cross3
from .validation import check_array, check_number

ROTATIONS = {"zxz": ZXZ, "euler_parameters": EulerParameters}

__all__ = ["RigidBody", "box_inertia", "rod_inertia", "GROUND"]

GROUND = None  # a constraint's body slot set to GROUND means "the fixed global frame"


def box_inertia(mass: float, lx: float, ly: float, lz: float) -> np.ndarray:
    """Central inertia tensor of a homogeneous box (thesis eqs. 147–149): mass > 0 [kg], side
    lengths lx, ly, lz >= 0 [m] (0: a plate or a rod)."""
    mass = check_number("mass", mass, positive=True, unit="kg")
    lx, ly, lz = (check_number(k, v, nonnegative=True, unit="m") for k, v in (("lx", lx), ("ly", ly), ("lz", lz)))
    return mass / 12.0 * np.diag([ly**2 + lz**2, lx**2 + lz**2, lx**2 + ly**2])


def rod_inertia(mass: float, length: float, axis: int = 2) -> np.ndarray:
    """Central inertia of a slender rod along body axis ``axis`` (0, 1 or 2) (thesis eqs.
    156–159): mass > 0 [kg], length >= 0 [m]."""
    mass = check_number("mass", mass, positive=True, unit="kg")
    length = check_number("length", length, nonnegative=True, unit="m")
    axis = check_number("axis", axis, integer=True, low=0, high=2)
    d = np.full(3, mass * length**2 / 12.0)
    d[axis] = 0.0
    return np.diag(d)


@dataclass
class RigidBody:
    """A rigid body with its frame at the centre of mass.

    Parameters
    ----------
    name : str
        Used in every error message about this body.
    mass : float
        kg, > 0.
    inertia : array (3,) or (3, 3)
        Central inertia tensor Ī in body axes (eq. 46), kg m²; a length-3 array is the
        diagonal.  Must be symmetric positive semi-definite, and its principal moments must
        satisfy the triangle inequality (I1 <= I2 + I3 and its permutations) that every real
        mass distribution does (equality: a plate or a rod).
    points : dict, optional
        Named body-fixed points ū (body frame, m, from the centre of mass).
    rotation : "zxz" (default) or "euler_parameters", or a parametrization class
    """

    name: str
    mass: float
    inertia: np.ndarray
    points: dict = field(default_factory=dict)
    rotation: object = ZXZ

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name: a RigidBody's name must be a non-empty string, got {self.name!r}")
        who = f"body '{self.name}'"
        if isinstance(self.rotation, str):
            try:
                self.rotation = ROTATIONS[self.rotation]
            except KeyError:
                raise ValueError(f"{who}: rotation must be one of {sorted(ROTATIONS)}, "
                                 f"got {self.rotation!r}") from None
        elif self.rotation not in ROTATIONS.values() and not (
                hasattr(self.rotation, "n") and hasattr(self.rotation, "A") and hasattr(self.rotation, "G")):
            raise ValueError(f"{who}: rotation must be one of {sorted(ROTATIONS)} or a parametrization class, "
                             f"got {self.rotation!r}")
        self.mass = check_number(f"{who}: mass", self.mass, positive=True, unit="kg")
        I = check_array(f"{who}: inertia", self.inertia)
        if I.shape == (3,):
            I = np.diag(I)
        if I.shape != (3, 3):
            raise ValueError(f"{who}: inertia must be 3 or 3x3 finite numbers, got shape {I.shape}")
        scale = max(1.0, np.abs(I).max())
        if not np.allclose(I, I.T, atol=1e-12 * scale):
            raise ValueError(f"{who}: inertia tensor is not symmetric")
        moments = np.linalg.eigvalsh(I)
        if moments.min() < -1e-12 * scale:
            raise ValueError(f"{who}: inertia tensor is not positive semi-definite "
                             f"(principal moments {moments.tolist()} kg m²)")
        if moments[2] > moments[0] + moments[1] + 1e-12 * scale:
            raise ValueError(f"{who}: inertia's principal moments {moments.tolist()} kg m² break the triangle "
                             f"inequality I3 <= I1 + I2 that every mass distribution satisfies")
        self.inertia = I
        if not isinstance(self.points, dict):
            raise ValueError(f"{who}: points must be a dict of name: 3 coordinates, got {self.points!r}")
        self.points = {k: check_array(f"{who}: point '{k}' of points", v, shape=(3,))
                       for k, v in self.points.items()}

    @property
    def nq(self) -> int:
        return 3 + self.rotation.n

    def point(self, p) -> np.ndarray:
        """A body-fixed point: a name from ``points`` or 3 coordinates."""
        if isinstance(p, str):
            try:
                return self.points[p]
            except KeyError:
                raise ValueError(f"body '{self.name}' has no point named '{p}'") from None
        v = np.asarray(p, dtype=float)
        if v.shape != (3,):
            raise ValueError(f"body '{self.name}': a point needs 3 coordinates, got {p!r}")
        return v

    # -- per-body dynamics terms ------------------------------------------------
    def mass_matrix(self, q) -> np.ndarray:
        """Body mass matrix diag(mI, GᵀJG) (eqs. 40–46 with m_Rθ = 0)."""
        th = q[3:]
        A = self.rotation.A(th)
        G = self.rotation.G(th)
        J = A @ self.inertia @ A.T
        M = np.zeros((self.nq, self.nq), dtype=J.dtype)
        M[0, 0] = M[1, 1] = M[2, 2] = self.mass
        M[3:, 3:] = G.T @ J @ G
        return M

    def quadratic_velocity(self, q, qd) -> np.ndarray:
        """Qv = [0; −Gᵀ(ω × Jω + J Ġθ̇)] (eqs. 84–91, sign settled by a Lagrange derivation; the thesis prints the opposite)."""
        th, thd = q[3:], qd[3:]
        A = self.rotation.A(th)
        G = self.rotation.G(th)
        J = A @ self.inertia @ A.T
        w = G @ thd
        out = np.zeros(self.nq, dtype=w.dtype)
        out[3:] = -G.T @ (cross3(w, J @ w) + J @ self.rotation.Gdot_thetadot(th, thd))
        return out

    def kinetic_energy(self, q, qd) -> float:
        th, thd = q[3:], qd[3:]
        A = self.rotation.A(th)
        wb = A.T @ (self.rotation.G(th) @ thd)
        return 0.5 * self.mass * qd[:3] @ qd[:3] + 0.5 * wb @ self.inertia @ wb

    def angular_momentum(self, q, qd) -> np.ndarray:
        """Angular momentum about the global origin, global components."""
        th, thd = q[3:], qd[3:]
        A = self.rotation.A(th)
        w = self.rotation.G(th) @ thd
        return self.mass * cross3(q[:3], qd[:3]) + A @ self.inertia @ A.T @ w
