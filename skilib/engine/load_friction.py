"""Coulomb friction on a constraint's load: μ times the multiplier of a named row.

A ski's friction is μN with N the snow's real load, which is a constraint force: the multiplier
of the row that keeps the ski on the snow.  A friction force computed from a prescribed or
lagged load is wrong whenever the load changes (a push of the leg, a dip of the body).  Here
the load is the unknown λ_k itself.  At a body point P sliding with velocity v_t = e·Ṙ_P along
a body axis e::

    F = −μ N sgn(v_t) e,     N = s_N λ_k                       (Coulomb, §3.6 eqs. 80–81)

where s_N is the sign that turns the row's multiplier into the load pressing the body onto
the surface (``load_sign``; −1 for a ``PointOnPlane`` row, whose force on the body is −λ n).
Its generalized force is linear in λ_k, Q_f = b λ_k with b = −μ s_N sgn(v_t) J_Pᵀ e, so it
moves to the left of eq. 101 as a column of the augmented matrix::

    [ M   Cqᵀ − b e_kᵀ ] [ q̈ ]   [ Qe + Qv                       ]
    [ Cq       0       ] [ λ  ] = [ Qd − 2α(Cq q̇ + Ct) − β² C    ]

one linear solve, no iteration and no value from a previous step (``MultibodySystem.evaluate``
assembles it; the matrix is no longer symmetric).  The book's chapter "Velocity constraints"
shows it.

What is out of scope, and refused rather than approximated:

- sticking.  ``sign=+1`` or ``−1`` fixes the sliding direction (a model that switches modes at
  v_t = 0 by events, as the skating models do, knows it); with ``sign=None`` the direction is
  sgn(v_t) and a speed |v_t| < ``min_speed`` raises ``SlidingError`` naming the force, the time
  and the speed, since the static friction there is not μN.  ``smoothing`` > 0 replaces
  sgn(v_t) by tanh(v_t/smoothing) instead (a regularised Coulomb law; documented, not exact).
- a load that pulls.  A solve whose load N comes out negative (the surface would hold the body
  down, and the friction would push it along) raises ``NegativeLoadError`` naming the force,
  the row, the time and N: the contact would open, which a bilateral row cannot say.
"""
from __future__ import annotations

import math

import numpy as np

from .constraints import unit_vector
from .forces import Force, point_generalized_force
from .validation import check_number

__all__ = ["LoadFriction", "SlidingError", "NegativeLoadError"]


class SlidingError(ValueError):
    """The point under Coulomb friction on a load is (nearly) at rest along its axis: the
    friction there is static, which ``LoadFriction`` does not model.  Attributes ``force``,
    ``t`` and ``speed``."""

    def __init__(self, message, *, force=None, t=None, speed=None):
        super().__init__(message)
        self.force, self.t, self.speed = force, t, speed


class NegativeLoadError(ValueError):
    """The load of a ``LoadFriction`` came out negative: the contact would pull.  Attributes
    ``force``, ``row``, ``t`` and ``load``."""

    def __init__(self, message, *, force=None, row=None, t=None, load=None):
        super().__init__(message)
        self.force, self.row, self.t, self.load = force, row, t, load


class LoadFriction(Force):
    """Coulomb friction μN at a body point against its sliding along a body axis, N the load
    carried by row ``row`` of the constraint named ``constraint`` (the module's docstring).

    - body, point : the body and the point ū (body frame) where the friction acts.
    - axis : the body-fixed axis ē along which the point slides (normalised).
    - constraint, row : the constraint whose row's multiplier λ_k is the load (by name; the
      system resolves it when it is built and refuses an unknown name or row).
    - mu : the friction coefficient (≥ 0).
    - load_sign : N = load_sign · λ_k (−1, default: a ``PointOnPlane`` row, C = n·(r_P − o),
      whose force on the body is −λ_k n, so N = −λ_k; +1 for a row written the other way).
    - sign : +1 or −1, the sliding direction along ē fixed by the caller's mode; None: from
      the velocity, refusing |v_t| < ``min_speed`` [m/s] (``SlidingError``) unless
      ``smoothing`` [m/s] > 0, which replaces sgn by tanh(v_t/smoothing).

    ``MultibodySystem.evaluate`` puts it into eq. 101; ``generalized`` alone cannot be
    evaluated (it needs λ) and says so.  The compiled kernels (``skilib.engine.codegen``)
    assemble the same column when b can be traced, i.e. when the sliding direction is fixed
    (``sign`` ±1) or smoothed (``smoothing`` > 0: tanh): b becomes a generated row of the
    kernel, subtracted into column k of the augmented matrix.  With ``sign=None`` and no
    smoothing the direction sgn(v_t) and its ``min_speed`` refusal are decided per call, which
    a generated kernel does not do: ``compile_system`` refuses such a system, naming the force
    (fix the sign, smooth it, or use the numeric engine).
    """

    def __init__(self, name, body, point, axis, constraint, *, row: int = 0, mu: float, load_sign: int = -1,
                 sign: int | None = None, min_speed: float = 1e-6, smoothing: float = 0.0):
        self.name, self.body = name, body
        self.u = body.point(point)
        self.axis = unit_vector(axis, f"{name}: axis")
        if not isinstance(constraint, str) or not constraint:
            raise ValueError(f"{name}: constraint must be the name of a constraint, got {constraint!r}")
        self.constraint = constraint
        self.row = check_number(f"{name}: row", row, integer=True, low=0)
        self.mu = check_number(f"{name}: mu", mu, nonnegative=True)
        if load_sign not in (1, -1) or isinstance(load_sign, bool):
            raise ValueError(f"{name}: load_sign must be +1 or -1, got {load_sign!r}")
        if sign is not None and (sign not in (1, -1) or isinstance(sign, bool)):
            raise ValueError(f"{name}: sign must be +1, -1 or None, got {sign!r}")
        self.load_sign, self.sign = int(load_sign), sign
        self.min_speed = check_number(f"{name}: min_speed", min_speed, positive=True, unit="m/s")
        self.smoothing = check_number(f"{name}: smoothing", smoothing, nonnegative=True, unit="m/s")
        self.index = None  # the row's index in the system, set by ``bind``

    def bind(self, system) -> int:
        """The global index of the load's row in ``system`` (its constraint by name)."""
        names = [c.name for c in system.constraints]
        if self.constraint not in names:
            raise ValueError(f"force '{self.name}': no constraint named '{self.constraint}' in the system "
                             f"(constraints: {names})")
        c = system.constraints[names.index(self.constraint)]
        if self.row >= c.n:
            raise ValueError(f"force '{self.name}': constraint '{self.constraint}' has {c.n} row(s), no row {self.row}")
        self.index = system.rows(c).start + self.row
        return self.index

    @property
    def traceable(self) -> bool:
        """Whether the compiled kernels can generate b: a fixed sign or a smoothed one (tanh);
        sgn(v_t) with its ``min_speed`` refusal is decided per call, in Python only."""
        return self.sign is not None or self.smoothing > 0

    def _speed(self, s):
        A = s.frame(self.body)[0]
        return s.point_velocity(self.body, self.u) @ (A @ self.axis)

    def sliding_speed(self, s) -> float:
        """v_t = e·Ṙ_P [m/s], the point's velocity along the axis."""
        return float(self._speed(s))

    def direction(self, s) -> float:
        """The friction's sliding sign (or its smoothed value) at the state ``s``."""
        if self.sign is not None:
            return float(self.sign)
        if s.dtype is object:  # traced by skilib.engine.codegen, which traces only the smoothed law
            import sympy

            return sympy.tanh(self._speed(s) / self.smoothing)
        v = self.sliding_speed(s)
        if self.smoothing > 0:
            return math.tanh(v / self.smoothing)
        if abs(v) < self.min_speed:
            raise SlidingError(f"force '{self.name}': the point slides at {v:.3e} m/s along its axis at t={s.t:.6g} s, "
                               f"below min_speed = {self.min_speed:g} m/s: the friction there is static, which "
                               "Coulomb friction on a load does not model (fix the sliding sign or smooth it)",
                               force=self.name, t=float(s.t), speed=v)
        return math.copysign(1.0, v)

    def per_load(self, s) -> np.ndarray:
        """b with Q_f = b λ_k: the generalized force per unit multiplier (length nq)."""
        b = np.zeros(s.nq, dtype=s.dtype)
        A = s.frame(self.body)[0]
        point_generalized_force(s, self.body, self.u, (-self.mu * self.load_sign * self.direction(s)) * (A @ self.axis), b)
        return b

    def check_load(self, t, lam) -> float:
        """N = load_sign · λ_k; refuses N < 0 (``NegativeLoadError``)."""
        N = self.load_sign * float(lam[self.index])
        if N < 0:
            raise NegativeLoadError(f"force '{self.name}': the load on row {self.row} of constraint '{self.constraint}' "
                                    f"is N = {N:.6g} N < 0 at t={t:.6g} s: the contact would pull (it would open), "
                                    "and the friction would push the body along", force=self.name,
                                    row=self.row, t=float(t), load=N)
        return N

    def generalized(self, s):
        raise TypeError(f"force '{self.name}' (LoadFriction) depends on the multiplier of constraint "
                        f"'{self.constraint}': it has a value only in a solve of eq. 101 (MultibodySystem.evaluate)")
