"""Applied forces and their generalized forces (Bruzzo 2012, §3.6, eqs. 69–83).

A force F acting at the body point r = R + Aū and a moment M contribute ::

    (Qe)_R = F,    (Qe)_θ = Gᵀ (M + u × F),   u = Aū    (eqs. 80–81).

Each element returns its generalized-force vector over all coordinates, so its power
is simply Qᵀq̇ (used in work–energy checks).
"""
from __future__ import annotations

import numpy as np

from .kinematics import State
from .rotation import sqrt, cross3
from .validation import check_array, check_number

__all__ = [
    "Force",
    "PointForce",
    "ConstantForce",
    "LineForce",
    "AxisForce",
    "Torque",
    "Gravity",
    "SpringDamper",
    "Drag",
    "AxialFriction",
    "point_generalized_force",
]


def point_generalized_force(s: State, body, ubar, F, Q, M=None) -> None:
    """Add the generalized force of F at body point ū (and a moment M) into Q (eqs. 80–81)."""
    A, G, _, _, sl = s.frame(body)
    mom = cross3(A @ ubar, F)
    if M is not None:
        mom = mom + M
    Q[sl.start : sl.start + 3] += F
    Q[sl.start + 3 : sl.stop] += G.T @ mom


class Force:
    """Base class: ``generalized(state) -> Q`` (length nq)."""

    name: str

    def generalized(self, s: State) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


class PointForce(Force):
    """A force given by ``force(state) -> 3-vector`` (global, N) at a body point."""

    def __init__(self, name, body, point, force):
        self.name = name
        self.body = body
        self.u = body.point(point)
        self.force = force

    def generalized(self, s):
        Q = np.zeros(s.nq)
        F = np.asarray(self.force(s), dtype=float)
        if F.shape != (3,) or not np.all(np.isfinite(F)):
            raise ValueError(f"force '{self.name}' returned {F!r} at t={s.t}; expected 3 finite numbers")
        point_generalized_force(s, self.body, self.u, F, Q)
        return Q


class ConstantForce(Force):
    """A constant force ``vector`` (global, N) at a body point."""

    def __init__(self, name, body, point, vector):
        v = check_array(f"force '{name}': vector", vector, shape=(3,))
        self.name, self.body = name, body
        self.u = body.point(point)
        self.vector = v

    def generalized(self, s):
        Q = np.zeros(s.nq, dtype=s.dtype)
        point_generalized_force(s, self.body, self.u, self.vector, Q)
        return Q


class LineForce(Force):
    """A force of prescribed magnitude F(t) at a body point, along the line from a point
    on another body (or the ground) to it: F(t) (r − r_from)/|r − r_from|.

    Only ``body`` is loaded (no reaction on ``from_body``): a follower load such as the
    skier's push-off along the leg (thesis eqs. 179–181).  ``magnitude`` is a callable of
    time returning N.
    """

    def __init__(self, name, body, point, from_body, from_point, magnitude):
        if not callable(magnitude):
            raise ValueError(f"force '{name}': magnitude must be a callable of time, got {magnitude!r}")
        self.name, self.body = name, body
        self.u = body.point(point)
        self.from_body = from_body
        self.u_from = np.asarray(from_point, float) if from_body is None else from_body.point(from_point)
        self.magnitude = magnitude

    def direction(self, s):
        d = s.point(self.body, self.u).val - s.point(self.from_body, self.u_from).val
        return d / sqrt(d @ d)

    def generalized(self, s):
        Q = np.zeros(s.nq, dtype=s.dtype)
        F = s.signal(self.magnitude)
        if s.dtype is float and not np.isfinite(F):
            raise ValueError(f"force '{self.name}': magnitude returned {F!r} at t={s.t}; expected a finite number")
        point_generalized_force(s, self.body, self.u, F * self.direction(s), Q)
        return Q


class AxisForce(Force):
    """A force of prescribed magnitude F(t) along a body-fixed axis a = A ā, at a body point
    (e.g. a ski's friction along the ski, with a magnitude known in advance).  ``magnitude``
    is a callable of time returning N (signed: negative points against the axis)."""

    def __init__(self, name, body, point, axis, magnitude):
        if not callable(magnitude):
            raise ValueError(f"force '{name}': magnitude must be a callable of time, got {magnitude!r}")
        a = np.asarray(axis, dtype=float)
        if a.shape != (3,) or not np.all(np.isfinite(a)) or not np.linalg.norm(a) > 0:
            raise ValueError(f"force '{name}': axis must be a non-zero 3-vector, got {axis!r}")
        self.name, self.body = name, body
        self.u = body.point(point)
        self.axis = a / np.linalg.norm(a)
        self.magnitude = magnitude

    def generalized(self, s):
        Q = np.zeros(s.nq, dtype=s.dtype)
        F = s.signal(self.magnitude)
        if s.dtype is float and not np.isfinite(F):
            raise ValueError(f"force '{self.name}': magnitude returned {F!r} at t={s.t}; expected a finite number")
        point_generalized_force(s, self.body, self.u, F * s.vector(self.body, self.axis).val, Q)
        return Q


class Torque(Force):
    """A pure moment ``torque(state) -> 3-vector`` (global, N m) on a body."""

    def __init__(self, name, body, torque):
        if not callable(torque):
            raise ValueError(f"torque '{name}': torque must be a callable of the state giving 3 components [N m], "
                             f"got {torque!r}")
        self.name, self.body, self.torque = name, body, torque

    def generalized(self, s):
        Q = np.zeros(s.nq)
        point_generalized_force(s, self.body, np.zeros(3), np.zeros(3), Q, M=np.asarray(self.torque(s), float))
        return Q


class Gravity(Force):
    """Weight m g at every body's centre of mass (g = (0, 0, −9.81) m/s² by default)."""

    def __init__(self, g=(0.0, 0.0, -9.81), bodies=None, name="gravity"):
        self.name = name
        self.g = check_array("g", g, shape=(3,))
        self.bodies = bodies

    def generalized(self, s):
        Q = np.zeros(s.nq, dtype=s.dtype)
        for b in self.bodies if self.bodies is not None else s.system.bodies:
            sl = s.system.slice(b)
            Q[sl.start : sl.start + 3] += b.mass * self.g
        return Q


class SpringDamper(Force):
    """Linear spring–damper between two body points (ground allowed as body=None).

    Tension f = k(ℓ − ℓ0) + c ℓ̇ pulls the points together.
    """

    def __init__(self, name, body_i, point_i, body_j, point_j, stiffness, damping=0.0, rest_length=0.0):
        stiffness = check_number(f"{name}: stiffness", stiffness, nonnegative=True, unit="N/m")
        damping = check_number(f"{name}: damping", damping, nonnegative=True, unit="N s/m")
        rest_length = check_number(f"{name}: rest_length", rest_length, nonnegative=True, unit="m")
        self.name = name
        self.bi, self.bj = body_i, body_j
        self.ui = np.asarray(point_i, float) if body_i is None else body_i.point(point_i)
        self.uj = np.asarray(point_j, float) if body_j is None else body_j.point(point_j)
        self.k, self.c, self.l0 = float(stiffness), float(damping), float(rest_length)

    def generalized(self, s):
        Q = np.zeros(s.nq, dtype=s.dtype)
        pi, pj = s.point(self.bi, self.ui), s.point(self.bj, self.uj)
        d = pj.val - pi.val
        L = sqrt(d @ d)
        if s.dtype is float and L == 0.0:
            raise ValueError(f"spring '{self.name}': the two points coincide at t={s.t}; direction undefined")
        e = d / L
        f = self.k * (L - self.l0) + self.c * (e @ (pj.vel - pi.vel))
        if self.bi is not None:
            point_generalized_force(s, self.bi, self.ui, f * e, Q)
        if self.bj is not None:
            point_generalized_force(s, self.bj, self.uj, -f * e, Q)
        return Q


class Drag(Force):
    """Aerodynamic drag −½ ρ CdA |v| v at a body point (v relative to still air)."""

    def __init__(self, name, body, point, rho=1.2, cda=0.55):
        rho = check_number(f"{name}: rho", rho, positive=True, unit="kg/m³")
        cda = check_number(f"{name}: cda", cda, nonnegative=True, unit="m²")
        self.name, self.body = name, body
        self.u = body.point(point)
        self.rho, self.cda = float(rho), float(cda)

    def generalized(self, s):
        Q = np.zeros(s.nq, dtype=s.dtype)
        v = s.point_velocity(self.body, self.u)
        point_generalized_force(s, self.body, self.u, -0.5 * self.rho * self.cda * sqrt(v @ v) * v, Q)
        return Q


class AxialFriction(Force):
    """Coulomb friction of constant magnitude along a body-fixed axis.

    F = −μ·sgn(v·e)·e with e = Aē the axis and v the point's velocity; sgn(0) = 0, so a
    body at rest along e feels no friction from this element (sticking, if wanted, is the
    model's business).  ``smoothing`` > 0 replaces sgn(x) by tanh(x/smoothing).
    """

    def __init__(self, name, body, point, axis, magnitude, smoothing=0.0):
        magnitude = check_number(f"{name}: magnitude", magnitude, nonnegative=True, unit="N")
        smoothing = check_number(f"{name}: smoothing", smoothing, nonnegative=True, unit="m/s")
        self.name, self.body = name, body
        self.u = body.point(point)
        a = check_array(f"{name}: axis", axis, shape=(3,))
        if not np.any(a):
            raise ValueError(f"{name}: axis must be a non-zero 3-vector, got {axis!r}")
        self.axis = a / np.linalg.norm(a)
        self.mu, self.smoothing = float(magnitude), float(smoothing)

    def speed(self, s) -> float:
        A = s.frame(self.body)[0]
        return float(s.point_velocity(self.body, self.u) @ (A @ self.axis))

    def generalized(self, s):
        Q = np.zeros(s.nq)
        A = s.frame(self.body)[0]
        e = A @ self.axis
        v = s.point_velocity(self.body, self.u) @ e
        sg = np.tanh(v / self.smoothing) if self.smoothing > 0 else np.sign(v)
        point_generalized_force(s, self.body, self.u, -self.mu * sg * e, Q)
        return Q
