"""Joints and drivers: holonomic constraints C(q, t) = 0 (Bruzzo 2012, §3.3, §4.4).

Every component returns the jet of its rows (``skilib.engine.kinematics``), from which the
system takes C, Cq (eq. 19), Ct and Qd (eq. 97).  A body slot set to ``None`` is the
ground (the global frame).  Each component also names, per body, the point at which
its reaction force and moment are reported (``reaction_points``).

Joints (scleronomic)
    ============  ===================================================  =====================
    Spherical     r_Pi − r_Pj = 0                                      3 rows (eqs. 116–124)
    Revolute      spherical + axis_i ⊥ two normals of axis_j           5 rows
    Prismatic     a¹ᵢ·a_j, a²ᵢ·a_j, a¹ᵢ·d, a²ᵢ·d, a²ᵢ·b_j = 0          5 rows (eqs. 126–142)
    PointOnPlane  (r_P − P)·n = 0                                      1 row  (eqs. 111–112)
    PointOnLine   (r_P − P)·n₁ = (r_P − P)·n₂ = 0                      2 rows
    ParallelAxes  axis_i ⟂ two normals of axis_j (axes stay parallel)  2 rows
    Fixed         spherical + relative orientation held                6 rows
    ============  ===================================================  =====================

Drivers (rheonomic)
    ===================  =============================================  ==========================
    CoordinateDriver     q_k − f(t) = 0                                 1 row  (eqs. 110, 113–115)
    DistanceDriver       |r_Pj − r_Pi| − ℓ(t) = 0                       1 row  (eq. 144)
    OrientationDriver    A = A_d(t) (three off-diagonal rows of A_dᵀA)  3 rows
    PointPathDriver      r_P − p(t) = 0                                 3 rows (eq. 145)
    RelativePointDriver  r_Pj − r_Pi − A_i d̄(t) = 0: a point of body j  3 rows
                         follows a path given in body i's axes
    ===================  =============================================  ==========================
"""
from __future__ import annotations

import numpy as np

from .kinematics import Jet, State, cross, dot, norm, stack, time_jet
from .rotation import cross3, skew
from .timefunctions import TimeFunction, as_time_function
from .validation import check_array, check_number

__all__ = [
    "Constraint",
    "Spherical",
    "Revolute",
    "Prismatic",
    "Translational",
    "PointOnPlane",
    "PointOnLine",
    "ParallelAxes",
    "Fixed",
    "CoordinateDriver",
    "FixedCoordinate",
    "DistanceDriver",
    "OrientationDriver",
    "PointPathDriver",
    "RelativePointDriver",
    "EulerParameterNorm",
]

_OFFDIAG = ((1, 2), (2, 0), (0, 1))  # (body axis k, target axis l): rows a_k · d_l


def unit_vector(v, what: str) -> np.ndarray:
    v = check_array(what, v, shape=(3,))
    n = np.linalg.norm(v)
    if n == 0.0:
        raise ValueError(f"{what}: vector must be non-zero")
    return v / n


def _perpendiculars(a: np.ndarray, hint=None):
    """Two unit vectors completing a to a right-handed orthonormal triad (a1, a2, a)."""
    if hint is None:
        hint = np.eye(3)[np.argmin(np.abs(a))]
    a1 = hint - (hint @ a) * a
    if np.linalg.norm(a1) < 1e-9:
        raise ValueError("perpendicular hint is parallel to the axis")
    a1 /= np.linalg.norm(a1)
    return a1, np.cross(a, a1)


def _bname(b) -> str:
    return "ground" if b is None else b.name


class Constraint:
    """Base class. Subclasses set ``name``, ``n``, ``bodies``, ``reaction_points``.

    A row is holonomic (C(q, t) = 0) unless its index is in ``velocity_rows``: such a row is
    a velocity constraint B q̇ + b = 0 (``skilib.engine.nonholonomic``) and its jet carries
    val = 0, J = B, t = b, vel = B q̇ + b and quad = Ḃ q̇ + ḃ.
    """

    name: str
    n: int
    bodies: tuple
    reaction_points: tuple
    #: (body, coordinate index) pairs this component prescribes one by one
    driven_coordinates: tuple = ()
    #: indices of this component's rows that are velocity (non-holonomic) constraints
    velocity_rows: tuple = ()

    def jet(self, s: State) -> Jet:  # pragma: no cover - interface
        raise NotImplementedError

    def row_labels(self):
        return [f"{self.name}[{k}]" for k in range(self.n)]

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}: {', '.join(_bname(b) for b in self.bodies)})"


def body_point(body, p):
    return np.asarray(p, dtype=float) if body is None else body.point(p)


class Spherical(Constraint):
    """Points P on body i and P on body j coincide (eq. 117)."""

    n = 3

    def __init__(self, name, body_i, point_i, body_j, point_j):
        self.name = name
        self.bodies = (body_i, body_j)
        self.ui, self.uj = body_point(body_i, point_i), body_point(body_j, point_j)
        self.reaction_points = ((body_i, self.ui), (body_j, self.uj))

    def jet(self, s):
        return s.point(self.bodies[0], self.ui) - s.point(self.bodies[1], self.uj)


class Revolute(Constraint):
    """Spherical joint plus axis_i ⟂ two normals of axis_j: one relative rotation left."""

    n = 5

    def __init__(self, name, body_i, point_i, axis_i, body_j, point_j, axis_j):
        self.name = name
        self.bodies = (body_i, body_j)
        self.ui, self.uj = body_point(body_i, point_i), body_point(body_j, point_j)
        self.ai = unit_vector(axis_i, f"{name}: axis_i")
        self.nj1, self.nj2 = _perpendiculars(unit_vector(axis_j, f"{name}: axis_j"))
        self.reaction_points = ((body_i, self.ui), (body_j, self.uj))

    def jet(self, s):
        bi, bj = self.bodies
        ai = s.vector(bi, self.ai)
        return stack(
            [
                s.point(bi, self.ui) - s.point(bj, self.uj),
                dot(ai, s.vector(bj, self.nj1)),
                dot(ai, s.vector(bj, self.nj2)),
            ]
        )


class Prismatic(Constraint):
    """Translational joint along axis_i (thesis eqs. 126–142, C9–C13).

    Body i carries the axis ā and two normals ā¹, ā²; body j an axis āⱼ and a normal b̄ⱼ.
    Rows: ā¹·aⱼ, ā²·aⱼ (parallel axes), ā¹·d, ā²·d with d = r_Pi − r_Pj (aligned),
    ā²·bⱼ (no relative spin).  With the thesis's choice (i = shank, j = upper leg, axes
    z, normals x and y, bⱼ = x) these are exactly C9–C13.
    """

    n = 5

    def __init__(self, name, body_i, point_i, axis_i, body_j, point_j, axis_j,
                 normal_i=None, normal_j=None):
        self.name = name
        self.bodies = (body_i, body_j)
        self.ui, self.uj = body_point(body_i, point_i), body_point(body_j, point_j)
        ai = unit_vector(axis_i, f"{name}: axis_i")
        self.aj = unit_vector(axis_j, f"{name}: axis_j")
        hint = None if normal_i is None else unit_vector(normal_i, f"{name}: normal_i")
        if hint is not None and abs(hint @ ai) > 1e-12:
            raise ValueError(f"{name}: normal_i must be perpendicular to axis_i")
        self.a1, self.a2 = _perpendiculars(ai, hint)
        if normal_j is None:
            self.bj = _perpendiculars(self.aj)[0]
        else:
            self.bj = unit_vector(normal_j, f"{name}: normal_j")
            if abs(self.bj @ self.aj) > 1e-12:
                raise ValueError(f"{name}: normal_j must be perpendicular to axis_j")
        self.reaction_points = ((body_i, self.ui), (body_j, self.uj))

    def jet(self, s):
        bi, bj = self.bodies
        a1, a2 = s.vector(bi, self.a1), s.vector(bi, self.a2)
        aj = s.vector(bj, self.aj)
        d = s.point(bi, self.ui) - s.point(bj, self.uj)
        return stack([dot(a1, aj), dot(a2, aj), dot(a1, d), dot(a2, d), dot(a2, s.vector(bj, self.bj))])


Translational = Prismatic


class PointOnPlane(Constraint):
    """A body point stays on a plane through P with normal n (eqs. 111–112)."""

    n = 1

    def __init__(self, name, body, point, origin, normal, body_j=None):
        self.name = name
        self.bodies = (body, body_j)
        self.u = body.point(point)
        self.P = check_array(f"{name}: origin", origin, shape=(3,))
        self.nrm = unit_vector(normal, f"{name}: normal")
        self.reaction_points = ((body, self.u),)

    def jet(self, s):
        bi, bj = self.bodies
        d = s.point(bi, self.u) - s.point(bj, self.P)
        return stack([dot(d, s.vector(bj, self.nrm))])


class PointOnLine(Constraint):
    """A body point stays on the line through P along e (two rows)."""

    n = 2

    def __init__(self, name, body, point, origin, direction, body_j=None):
        self.name = name
        self.bodies = (body, body_j)
        self.u = body.point(point)
        self.P = check_array(f"{name}: origin", origin, shape=(3,))
        self.n1, self.n2 = _perpendiculars(unit_vector(direction, f"{name}: direction"))
        self.reaction_points = ((body, self.u),)

    def jet(self, s):
        bi, bj = self.bodies
        d = s.point(bi, self.u) - s.point(bj, self.P)
        return stack([dot(d, s.vector(bj, self.n1)), dot(d, s.vector(bj, self.n2))])


class ParallelAxes(Constraint):
    """Axis a_i of body i stays parallel to axis a_j of body j (or a fixed global axis when
    body_j is None): a_i · n1_j = a_i · n2_j = 0 with n1, n2 normal to a_j (Haug 1989's
    parallel-1 constraint).  With ``PointOnPlane`` it makes a planar joint."""

    n = 2

    def __init__(self, name, body_i, axis_i, body_j, axis_j):
        if body_i is None:
            raise ValueError(f"{name}: body_i must be a body")
        self.name = name
        self.bodies = (body_i, body_j)
        self.ai = unit_vector(axis_i, f"{name}: axis_i")
        self.n1, self.n2 = _perpendiculars(unit_vector(axis_j, f"{name}: axis_j"))
        self.reaction_points = ((body_i, np.zeros(3)),) + (((body_j, np.zeros(3)),) if body_j is not None else ())

    def jet(self, s):
        bi, bj = self.bodies
        a = s.vector(bi, self.ai)
        return stack([dot(a, s.vector(bj, self.n1)), dot(a, s.vector(bj, self.n2))])


class Fixed(Constraint):
    """Body j rigidly attached to body i (or to the ground): A_j = A_i R_rel.

    ``rel`` is the relative rotation matrix (default identity).
    """

    n = 6

    def __init__(self, name, body_i, point_i, body_j, point_j, rel=None):
        self.name = name
        self.bodies = (body_i, body_j)
        self.ui, self.uj = body_point(body_i, point_i), body_point(body_j, point_j)
        R = np.eye(3) if rel is None else np.asarray(rel, dtype=float)
        self.rbar = [R.T[:, l] for l in range(3)]  # body-j vectors equal to body-i axes
        self.reaction_points = ((body_i, self.ui), (body_j, self.uj))

    def jet(self, s):
        bi, bj = self.bodies
        rows = [s.point(bi, self.ui) - s.point(bj, self.uj)]
        for k, l in _OFFDIAG:
            rows.append(dot(s.vector(bi, np.eye(3)[k]), s.vector(bj, self.rbar[l])))
        return stack(rows)


class CoordinateDriver(Constraint):
    """q_k of a body follows f(t) (eq. 110 for a constant; eqs. 113–115)."""

    n = 1

    def __init__(self, name, body, index, law):
        if body is None:
            raise ValueError(f"{name}: a coordinate driver needs a body, not the ground")
        index = check_number(f"{name}: index", index, integer=True)
        if not 0 <= index < body.nq:
            raise ValueError(f"{name}: coordinate index {index} out of range for body '{body.name}'")
        self.name = name
        self.bodies = (body,)
        self.k = int(index)
        self.law = as_time_function(law, f"{name}: law")
        self.reaction_points = ((body, np.zeros(3)),)
        self.driven_coordinates = ((body, self.k),)

    def jet(self, s):
        f, fd, fdd = s.law(self.law)
        return stack([s.coordinate(self.bodies[0], self.k) - time_jet(f, fd, fdd, s.nq)])


def FixedCoordinate(name, body, index, value) -> CoordinateDriver:
    """q_k = constant (eq. 110)."""
    return CoordinateDriver(name, body, index, check_number(f"{name}: value", value))


class DistanceDriver(Constraint):
    """|r_Pj − r_Pi| = ℓ(t) (eq. 144); λ is then the axial force along the line."""

    n = 1

    def __init__(self, name, body_i, point_i, body_j, point_j, length):
        self.name = name
        self.bodies = (body_i, body_j)
        self.ui, self.uj = body_point(body_i, point_i), body_point(body_j, point_j)
        if not isinstance(length, TimeFunction) and not callable(length):
            length = check_number(f"{name}: length", length, positive=True, unit="m")
        self.law = as_time_function(length, f"{name}: length")
        self.reaction_points = ((body_i, self.ui), (body_j, self.uj))

    def jet(self, s):
        f, fd, fdd = s.law(self.law)
        d = s.point(self.bodies[1], self.uj) - s.point(self.bodies[0], self.ui)
        return stack([norm(d) - time_jet(f, fd, fdd, s.nq)])


class OrientationDriver(Constraint):
    """A body's orientation follows A_d(t).

    ``target(t)`` returns (A_d, Ȧ_d, Ä_d).  Rows are a_k·d_l for the three off-diagonal
    pairs (y,z), (z,x), (x,y) of the body axes a = A e and the target axes d = A_d e:
    near A = A_d they are the three components of the small relative rotation.
    ``body_axes`` (3×3, columns in body coordinates) maps the target's axes to the body
    when the target frame is not the body frame itself (A·body_axes = A_d).
    """

    n = 3

    def __init__(self, name, body, target, body_axes=None):
        if body is None:
            raise ValueError(f"{name}: an orientation driver needs a body")
        self.name = name
        self.bodies = (body,)
        self.target = target
        B = np.eye(3) if body_axes is None else np.asarray(body_axes, dtype=float)
        if B.shape != (3, 3) or not np.allclose(B.T @ B, np.eye(3), atol=1e-10):
            raise ValueError(f"{name}: body_axes must be an orthonormal 3x3 matrix")
        self.B = B
        self.reaction_points = ((body, np.zeros(3)),)

    def jet(self, s):
        Ad, Add, Addd = s.law(self.target)
        rows = []
        for k, l in _OFFDIAG:
            a = s.vector(self.bodies[0], self.B[:, k])
            rows.append(dot(a, time_jet(Ad[:, l], Add[:, l], Addd[:, l], s.nq)))
        return stack(rows)


class PointPathDriver(Constraint):
    """A body point follows a prescribed path p(t) (eq. 145)."""

    n = 3

    def __init__(self, name, body, point, path):
        self.name = name
        self.bodies = (body,)
        self.u = body.point(point)
        self.law = as_time_function(path, f"{name}: path")
        self.reaction_points = ((body, self.u),)

    def jet(self, s):
        f, fd, fdd = s.law(self.law)
        return s.point(self.bodies[0], self.u) - time_jet(f, fd, fdd, s.nq)


class RelativePointDriver(Constraint):
    """Point P_j of body j is at r_Pi + A_i d̄(t) from point P_i of body i: a relative path
    given in body i's axes (three rows).  Its multipliers are the force the driver exerts
    between the two bodies (e.g. a leg placing the body relative to a ski).

    With a = A_i d̄(t): ∂a/∂θ_i = −ã G_i, ∂a/∂t = A_i d̄̇, ȧ = ω_i × a + A_i d̄̇ and
    ä − J q̈ = (Ġθ̇)_i × a + ω_i × (ω_i × a) + 2 ω_i × A_i d̄̇ + A_i d̄̈.
    """

    n = 3

    def __init__(self, name, body_i, point_i, body_j, point_j, path):
        if body_i is None or body_j is None:
            raise ValueError(f"{name}: a relative driver needs two bodies (use PointPathDriver for the ground)")
        self.name = name
        self.bodies = (body_i, body_j)
        self.ui, self.uj = body_point(body_i, point_i), body_point(body_j, point_j)
        self.law = as_time_function(path, f"{name}: path")
        self.reaction_points = ((body_i, self.ui), (body_j, self.uj))

    def jet(self, s):
        bi, bj = self.bodies
        f, fd, fdd = s.law(self.law)
        A, G, w, gq, sl = s.frame(bi)
        a, ad, add = A @ f, A @ fd, A @ fdd
        J = np.zeros((3, s.nq), dtype=s.dtype)
        J[:, sl.start + 3: sl.stop] = -skew(a) @ G
        wxa = cross3(w, a)
        offset = Jet(a, J, ad, wxa + ad, cross3(gq, a) + cross3(w, wxa) + 2.0 * cross3(w, ad) + add)
        return s.point(bj, self.uj) - s.point(bi, self.ui) - offset


class EulerParameterNorm(Constraint):
    """pᵀp − 1 = 0 for a body in Euler parameters (Haug 1989).

    Added by ``MultibodySystem`` for every such body; it carries no reaction.
    """

    n = 1

    def __init__(self, body):
        self.name = f"{body.name}.norm"
        self.bodies = (body,)
        self.reaction_points = ()

    def jet(self, s):
        sl = s.system.slice(self.bodies[0])
        i = sl.start + 3
        p, pd = s.q[i : sl.stop], s.qd[i : sl.stop]
        J = np.zeros(s.nq, dtype=s.dtype)
        J[i : sl.stop] = 2.0 * p
        return stack([Jet(p @ p - 1.0, J, 0.0, 2.0 * p @ pd, 2.0 * pd @ pd)])
