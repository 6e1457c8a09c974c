"""A massless strut from a fixed ground point to a body: a force of prescribed magnitude along
the line from its tip to a "hand" carried by the body (e.g. a ski pole with the arm that
pushes on it).

The strut's tip is a fixed point T of the ground.  Its other end, the hand H, moves with a body
point r = R + Aū: each component of H either follows r with an offset or is held at a fixed
value (``hand_follows``)::

    H_i = r_i + h_i   (hand_follows_i)        H_i = h_i   (otherwise)

and the force on the body, at r, is pushing along the strut::

    F = F(t) (H − T)/|H − T|,   F(t) ≥ 0 the strut's magnitude law.

Its generalized force is eq. 80–81's for a force at a body point, and its power Qᵀq̇ = F·ṙ
(the tip does not move, so this is all the work the strut does; for a pole it is the arm's).
The strut is massless and carries no moment: it pushes, with the magnitude it is given, along
the line it makes at that instant.  Whether it should be in contact at all (planted, lifted) is
the model's business: a model puts a strut in its system for the time the tip is in the snow.
"""
from __future__ import annotations

import math

import numpy as np

from .forces import Force, point_generalized_force
from .rotation import sqrt
from .validation import check_array, check_number

__all__ = ["Strut", "SineSquaredPulse"]


class Strut(Force):
    """A strut pushing on ``body`` at ``point`` from the fixed ground point ``tip`` along the
    line from the tip to the hand H (the module's docstring), with magnitude ``magnitude``, a
    callable of time returning N (≥ 0: a strut pushes; a negative value is refused at the time it
    occurs).  ``hand_offset`` h [m] and ``hand_follows`` (three booleans, default all True: the
    hand is the body point) say where the hand is."""

    def __init__(self, name, body, point, tip, magnitude, hand_offset=(0.0, 0.0, 0.0),
                 hand_follows=(True, True, True)):
        if not callable(magnitude):
            raise ValueError(f"strut '{name}': magnitude must be a callable of time giving N, got {magnitude!r}")
        follows = np.asarray(hand_follows)
        if follows.shape != (3,) or follows.dtype != bool:
            raise ValueError(f"strut '{name}': hand_follows must be three booleans, got {hand_follows!r}")
        self.name, self.body = name, body
        self.u = body.point(point)
        self.tip = check_array(f"strut '{name}': tip", tip, shape=(3,))
        self.hand_offset = check_array(f"strut '{name}': hand_offset", hand_offset, shape=(3,))
        self.hand_follows = follows.copy()
        self.magnitude = magnitude

    def hand(self, s):
        """H at the state ``s`` (a 3-vector of the state's dtype)."""
        r = s.point(self.body, self.u).val
        return np.array([r[i] + self.hand_offset[i] if self.hand_follows[i] else self.hand_offset[i]
                         for i in range(3)], dtype=s.dtype)

    def direction(self, s):
        """(H − T)/|H − T|, the unit vector along the strut from its tip."""
        d = self.hand(s) - self.tip
        L = sqrt(d @ d)
        if s.dtype is float and not L > 0.0:
            raise ValueError(f"strut '{self.name}': the hand is at the tip at t={s.t}; its direction is undefined")
        return d / L

    def force(self, s):
        """F(t) (H − T)/|H − T| [N], the strut's force on the body."""
        F = s.signal(self.magnitude)
        if s.dtype is float and not (np.isfinite(F) and F >= 0.0):
            raise ValueError(f"strut '{self.name}': magnitude returned {F!r} at t={s.t}; a strut pushes, its "
                             "magnitude must be a finite number ≥ 0")
        return F * self.direction(s)

    def generalized(self, s):
        Q = np.zeros(s.nq, dtype=s.dtype)
        point_generalized_force(s, self.body, self.u, self.force(s), Q)
        return Q


class SineSquaredPulse:
    """F(t) = F_max sin²(π(t − t0)/Δt) [N]: a push that rises from 0 at t0 to F_max at
    t0 + Δt/2 and falls back to 0 at t0 + Δt, with zero slope at both ends (a pole's push, its
    contact from t0 to t0 + Δt).  Outside the window it repeats (the formula, not zero): it is
    meant for a force element that exists only during the window.  Code generation traces it
    (``symbolic``), F_max, t0 and Δt becoming kernel parameters."""

    def __init__(self, force_max, start, duration):
        self.c = np.array([check_number("force_max", force_max, nonnegative=True, unit="N"),
                           check_number("start", start, unit="s"),
                           check_number("duration", duration, positive=True, unit="s")], dtype=float)

    def __call__(self, t):
        F, t0, dt = self.c
        s = math.sin(math.pi * (float(t) - t0) / dt)
        return F * s * s

    def symbolic(self, t):
        import sympy as sp

        F, t0, dt = self.c
        # π as a float: C99 has no M_PI.  (t − t0) stays one factor: sympy would distribute a
        # number over the sum, π t − π t0, losing the digits of a late start (≈ ε t0/Δt of the
        # phase: 10⁻¹² of F_max for a push 30 min into a race)
        return F * sp.sin(sp.Mul(math.pi / dt, t - t0, evaluate=False)) ** 2

    def __repr__(self):
        F, t0, dt = self.c
        return f"SineSquaredPulse(force_max={F}, start={t0}, duration={dt})"
