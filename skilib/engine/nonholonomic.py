"""Velocity (non-holonomic) constraints: B(q, t) q̇ + b(q, t) = 0, linear in q̇ and not the
time derivative of any C(q, t) = 0.

A ski on its edge slides along itself but not sideways; a skate, a sleigh's runner and a
wheel that rolls without slipping obey the same kind of condition.  Such a row enters eq. 101
like a holonomic one, below Cq (Bloch 2003, ch. 5; Neimark & Fufaev 1972): its Jacobian row is
B, its right-hand side is minus the time derivative of the row without the q̈ term,
−(Ḃ q̇ + ḃ), and Baumgarte stabilization adds only the first-order term −2α(B q̇ + b) since
there is no position error to feed back.  Its multiplier is the constraint force (a knife
edge's lateral force), which enters the reactions and the powers like any other row's.

Each component returns the jet of its rows in the engine's convention for velocity rows:
val = 0 (no position equation), J = B, t = b, vel = B q̇ + b and quad = Ḃ q̇ + ḃ.  The
rows are built from the same point and vector jets as the holonomic ones, so B and Ḃq̇ are
exact and code generation traces them like any other row.

    ============  =====================================================================  ======
    KnifeEdge     a · v_P = 0: a body point P has no velocity along a body-fixed axis a  1 row
    RollingDisk   a disk touching the plane z = 0 rolls without slipping: the contact
                  height (holonomic) and the two horizontal components of the contact
                  point's material velocity (velocity rows)                              3 rows
    VelocityRows  any linear velocity rows given by a function of the state              n rows
    ============  =====================================================================  ======
"""
from __future__ import annotations

import numpy as np

from .constraints import Constraint, body_point, unit_vector
from .validation import check_number
from .kinematics import Jet, State, constant, dot, norm, stack, times
from .rotation import skew

__all__ = ["KnifeEdge", "RollingDisk", "VelocityRows", "velocity_jet"]


def velocity_jet(B, b, vel, quad) -> Jet:
    """The jet of velocity rows B q̇ + b = 0 with vel = B q̇ + b and quad = Ḃ q̇ + ḃ."""
    B = np.atleast_2d(B)
    zero = np.zeros(B.shape[0], dtype=B.dtype)
    return Jet(zero, B, np.atleast_1d(b), np.atleast_1d(vel), np.atleast_1d(quad))


class KnifeEdge(Constraint):
    """The velocity of the body point ``point`` has no component along the body-fixed axis
    ``axis`` (a knife edge, a skate or an edged ski whose lateral axis is ``axis``).

    g = a · v_P with a = A ā and v_P = Ṙ + ω × A ū:  B = aᵀ ∂r_P/∂q,
    ġ − B q̈ = ȧ · v_P + a · (r̈_P − ∂r_P/∂q q̈).  The multiplier is the lateral force the
    edge takes, acting on the body at P along −a.
    """

    n = 1
    velocity_rows = (0,)

    def __init__(self, name, body, point, axis):
        if body is None:
            raise ValueError(f"{name}: a knife edge needs a body")
        self.name = name
        self.bodies = (body,)
        self.u = body_point(body, point)
        self.axis = unit_vector(axis, f"{name}: axis")
        self.reaction_points = ((body, self.u),)

    def jet(self, s: State) -> Jet:
        p = s.point(self.bodies[0], self.u)
        a = s.vector(self.bodies[0], self.axis)
        return velocity_jet(a.val @ p.J, a.val @ p.t, a.val @ p.vel, a.vel @ p.vel + a.val @ p.quad)


class RollingDisk(Constraint):
    """A disk of radius r (centre at the body origin, axis ``axis`` in body coordinates)
    touching the plane z = 0 and rolling on it without slipping.

    With n = A n̄ the disk's axis, w = ẑ − (ẑ·n) n points from the centre up the disk's
    plane, k = w/|w|, and the contact point is P = C − r k.  Row 0 (holonomic): its height,
    C_z − r |w| = 0.  Rows 1–2 (velocity): the horizontal components of the velocity of the
    disk's material point at P, Ċ + ω × d = 0 with d = −r k, so B = [I, −d̃ G] and
    Ḃ q̇ = (Ġθ̇) × d + ω × ḋ.  (The vertical component is the derivative of row 0.)
    The reactions are reported at the disk's centre.
    """

    n = 3
    velocity_rows = (1, 2)

    def __init__(self, name, body, radius, axis=(0.0, 0.0, 1.0)):
        if body is None:
            raise ValueError(f"{name}: a rolling disk needs a body")
        r = check_number(f"{name}: radius", radius, positive=True, unit="m")
        self.name = name
        self.bodies = (body,)
        self.radius = np.array([r])
        self.axis = unit_vector(axis, f"{name}: axis")
        self.reaction_points = ((body, np.zeros(3)),)

    def jet(self, s: State) -> Jet:
        body = self.bodies[0]
        r = self.radius[0]
        nq = s.nq
        ez = constant(np.array([0.0, 0.0, 1.0]), nq)
        nvec = s.vector(body, self.axis)
        w = ez - times(dot(ez, nvec), nvec)
        wn = norm(w)
        centre = s.point(body, np.zeros(3))
        height = centre[2] - wn.scale(r)
        # d = −r w/|w| as a jet: w · (1/|w|), with 1/|w| by the chain rule
        inv = Jet(1.0 / wn.val, -wn.J / wn.val**2, -wn.t / wn.val**2, -wn.vel / wn.val**2,
                  -wn.quad / wn.val**2 + 2.0 * wn.vel * wn.vel / wn.val**3)
        d = times(inv, w).scale(-r)
        A, G, omega, gq, sl = s.frame(body)
        B = np.zeros((3, nq), dtype=s.dtype)
        B[:, sl.start: sl.start + 3] = np.eye(3)
        B[:, sl.start + 3: sl.stop] = -skew(d.val) @ G
        vel = B @ s.qd
        quad = np.cross(gq, d.val) + np.cross(omega, d.vel)
        rolling = velocity_jet(B[:2], np.zeros(2, dtype=B.dtype), vel[:2], quad[:2])
        return stack([height, rolling])


class VelocityRows(Constraint):
    """n linear velocity rows given by a function of the state: ``rows(s, *bodies)`` returns
    (B, b, Ḃ q̇ + ḃ) with B of shape (n, nq), for the ``skilib.engine.kinematics.State`` s
    (its t, q, qd, and the jets ``s.point(body, ū)``, ``s.vector(body, ā)`` for exact
    derivatives) and the component's ``bodies`` (use these, not bodies held in a closure:
    code generation hands the function its own copies).

    Rows built from the state's jets are traced by code generation like any component; a
    function that cannot take sympy symbols makes ``compile_system`` fail.  Reactions are
    reported at each body's origin.
    """

    def __init__(self, name, n, rows, bodies=()):
        if not callable(rows):
            raise ValueError(f"{name}: rows must be a callable of the state, got {rows!r}")
        if not (isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 1):
            raise ValueError(f"{name}: n must be a positive integer, got {n!r}")
        self.name = name
        self.n = int(n)
        self.rows = rows
        self.velocity_rows = tuple(range(self.n))
        self.bodies = tuple(bodies)
        self.reaction_points = tuple((b, np.zeros(3)) for b in self.bodies if b is not None)

    def jet(self, s: State) -> Jet:
        B, b, quad = self.rows(s, *self.bodies)
        B = np.atleast_2d(np.asarray(B, dtype=s.dtype))
        if B.shape != (self.n, s.nq):
            raise ValueError(f"{self.name}: rows(s) must give B of shape ({self.n}, {s.nq}), got {B.shape}")
        b = np.broadcast_to(np.asarray(b, dtype=s.dtype), (self.n,))
        return velocity_jet(B, b, B @ s.qd + b, np.broadcast_to(np.asarray(quad, dtype=s.dtype), (self.n,)))
