"""Second-order kinematic expressions ("jets") from which every constraint is built.

A constraint C(q, t) and its derivatives enter eq. 101 as C, Cq, Ct and
Qd = −Ctt − (Cq q̇)_q q̇ − 2 Cqt q̇ (eq. 97).  Instead of differentiating each constraint by
hand, every kinematic quantity e(q, t) is carried as a jet ::

    val  = e,        J = ∂e/∂q,       t = ∂e/∂t,
    vel  = ė = J q̇ + t,               quad = ë − J q̈,

so that, for a constraint, Cq = J, Ct = t, Cq q̇ + Ct = vel and Qd = −quad.  The
primitives are body points r = R + Aū and body vectors a = Aā, whose derivatives follow
from ω = Gθ̇ and ω̇ = Gθ̈ + Ġθ̇::

    ∂(Aā)/∂θ = −ã G,   d/dt(Aā) = ω × a,   quad(Aā) = (Ġθ̇) × a + ω × (ω × a),

and jets combine by the product rule (sum, dot, cross, norm), which gives exact
Jacobians and Qd for any constraint assembled from them.
"""
from __future__ import annotations

import numpy as np

from .rotation import sqrt, cross3, skew

__all__ = ["Jet", "State", "dot", "cross", "times", "norm", "constant", "time_jet"]


class Jet:
    """A quantity with its Jacobian, explicit time derivative, velocity and quad term."""

    __slots__ = ("val", "J", "t", "vel", "quad")

    def __init__(self, val, J, t, vel, quad):
        self.val, self.J, self.t, self.vel, self.quad = val, J, t, vel, quad

    def __add__(self, o: "Jet") -> "Jet":
        return Jet(self.val + o.val, self.J + o.J, self.t + o.t, self.vel + o.vel, self.quad + o.quad)

    def __sub__(self, o: "Jet") -> "Jet":
        return Jet(self.val - o.val, self.J - o.J, self.t - o.t, self.vel - o.vel, self.quad - o.quad)

    def __neg__(self) -> "Jet":
        return Jet(-self.val, -self.J, -self.t, -self.vel, -self.quad)

    def scale(self, c: float) -> "Jet":
        return Jet(c * self.val, c * self.J, c * self.t, c * self.vel, c * self.quad)

    def __getitem__(self, k) -> "Jet":
        return Jet(self.val[k], self.J[k], self.t[k], self.vel[k], self.quad[k])


def stack(jets) -> Jet:
    """Stack scalar and vector jets into one vector jet (rows in order)."""
    return Jet(
        np.hstack([np.atleast_1d(j.val) for j in jets]),
        np.vstack([np.atleast_2d(j.J) for j in jets]),
        np.hstack([np.atleast_1d(j.t) for j in jets]),
        np.hstack([np.atleast_1d(j.vel) for j in jets]),
        np.hstack([np.atleast_1d(j.quad) for j in jets]),
    )


def dot(a: Jet, b: Jet) -> Jet:
    """Scalar jet of a·b."""
    return Jet(
        a.val @ b.val,
        b.val @ a.J + a.val @ b.J,
        a.t @ b.val + a.val @ b.t,
        a.vel @ b.val + a.val @ b.vel,
        a.quad @ b.val + 2.0 * a.vel @ b.vel + a.val @ b.quad,
    )


def cross(a: Jet, b: Jet) -> Jet:
    """Vector jet of a × b."""
    return Jet(
        cross3(a.val, b.val),
        skew(a.val) @ b.J - skew(b.val) @ a.J,
        cross3(a.t, b.val) + cross3(a.val, b.t),
        cross3(a.vel, b.val) + cross3(a.val, b.vel),
        cross3(a.quad, b.val) + 2.0 * cross3(a.vel, b.vel) + cross3(a.val, b.quad),
    )


def times(c: Jet, v: Jet) -> Jet:
    """Vector jet of c·v for a scalar jet c and a vector jet v (the product rule)."""
    return Jet(
        c.val * v.val,
        np.multiply.outer(v.val, c.J) + c.val * v.J,
        c.t * v.val + c.val * v.t,
        c.vel * v.val + c.val * v.vel,
        c.quad * v.val + 2.0 * c.vel * v.vel + c.val * v.quad,
    )


def norm(a: Jet) -> Jet:
    """Scalar jet of |a| (s = √(a·a), s̈ = (a·a)¨/2s − ṡ²/s)."""
    w = dot(a, a)
    s = sqrt(w.val)
    if s == 0.0:
        raise ZeroDivisionError("norm of a zero vector has no derivative")
    sd = w.vel / (2.0 * s)
    return Jet(s, w.J / (2.0 * s), w.t / (2.0 * s), sd, w.quad / (2.0 * s) - sd * sd / s)


def constant(v, nq: int) -> Jet:
    v = np.asarray(v)
    v = v if v.dtype == object else v.astype(float)  # object: symbolic parameters (codegen)
    z = np.zeros(v.shape)
    return Jet(v, np.zeros(v.shape + (nq,)), z, z, z)


def time_jet(f, fd, fdd, nq: int) -> Jet:
    """A prescribed function of time with its first and second derivatives."""
    f, fd = np.asarray(f), np.asarray(fd)
    return Jet(f, np.zeros(f.shape + (nq,)), fd, fd, np.asarray(fdd))


class State:
    """Kinematics of every body at (t, q, q̇), computed once per right-hand-side call."""

    dtype = float  # object when a code generator traces the kinematics with sympy

    def __init__(self, system, t, q, qd):
        self.system = system
        self.t = t
        self.q = q
        self.qd = qd
        self.nq = system.nq
        self._cache = {}

    def frame(self, body):
        """(A, G, ω, Ġθ̇, slice of the body's coordinates) for one body."""
        key = id(body)
        fr = self._cache.get(key)
        if fr is None:
            sl = self.system.slice(body)
            qi, qdi = self.q[sl], self.qd[sl]
            rot = body.rotation
            th, thd = qi[3:], qdi[3:]
            A = rot.A(th)
            G = rot.G(th)
            fr = (A, G, G @ thd, rot.Gdot_thetadot(th, thd), sl)
            self._cache[key] = fr
        return fr

    def vector(self, body, vbar) -> Jet:
        """Jet of the body-fixed vector a = A ā (a constant vector if body is ground)."""
        if body is None:
            return constant(vbar, self.nq)
        A, G, w, gq, sl = self.frame(body)
        a = A @ vbar
        J = np.zeros((3, self.nq), dtype=self.dtype)
        J[:, sl.start + 3 : sl.stop] = -skew(a) @ G
        wxa = cross3(w, a)
        return Jet(a, J, np.zeros(3), wxa, cross3(gq, a) + cross3(w, wxa))

    def point(self, body, ubar) -> Jet:
        """Jet of the body point r = R + A ū (a fixed point if body is ground)."""
        if body is None:
            return constant(ubar, self.nq)
        u = self.vector(body, ubar)
        sl = self.system.slice(body)
        u.val = u.val + self.q[sl][:3]
        u.J[:, sl.start : sl.start + 3] += np.eye(3)
        u.vel = u.vel + self.qd[sl][:3]
        return u

    def coordinate(self, body, k: int) -> Jet:
        """Jet of one generalized coordinate of a body."""
        i = self.system.slice(body).start + k
        J = np.zeros(self.nq, dtype=self.dtype)
        J[i] = 1.0
        return Jet(self.q[i], J, 0.0, self.qd[i], 0.0)

    def law(self, fn):
        """A driver's prescribed law at this instant: (f, ḟ, f̈)."""
        return fn(self.t)

    def signal(self, fn):
        """A prescribed scalar function of time (e.g. a force magnitude) at this instant."""
        return float(fn(self.t))

    def point_velocity(self, body, ubar) -> np.ndarray:
        A, G, w, gq, sl = self.frame(body)
        return self.qd[sl][:3] + cross3(w, A @ ubar)
