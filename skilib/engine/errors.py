"""Errors raised by the engine: each names the body, constraint or time concerned."""
from __future__ import annotations



class GimbalLockError(RuntimeError):
    """A body whose Euler angles are not driven one by one reached sin θ ≈ 0 (§3.2).

    Attributes ``body`` (its name), ``t`` (the time, s) and ``angles`` (its rotation
    coordinates there, unrounded) say where, for programs; the message says it for people.
    """

    def __init__(self, message: str, *, body: str | None = None, t: float | None = None, angles=None):
        super().__init__(message)
        self.body, self.t, self.angles = body, t, (None if angles is None else tuple(float(a) for a in angles))


class SingularSystemError(RuntimeError):
    """The augmented matrix of eq. 101 is singular at some time."""


class RedundantConstraintError(ValueError):
    """The constraint Jacobian is rank deficient: a row depends on earlier rows."""


class InconsistentInitialConditions(ValueError):
    """Newton–Raphson could not bring C(q, t0) to zero (or Cq q̇ + Ct to zero)."""


class IntegrationError(RuntimeError):
    """The time integrator stopped before the end of the interval."""


class NonFiniteError(ValueError):
    """A force, a prescribed law or the state became NaN or ±inf.  The message names where
    it entered (the force or constraint, the body or coordinate) and the time; attributes
    ``source`` and ``t`` say it for programs."""

    def __init__(self, message: str, *, source: str | None = None, t: float | None = None):
        super().__init__(message)
        self.source, self.t = source, t


class BudgetExceededError(IntegrationError):
    """A run used up its work budget (evaluations of eq. 101 or wall time); ``budget`` names it."""

    def __init__(self, message: str, *, budget: str | None = None):
        super().__init__(message)
        self.budget = budget
