"""Errors raised by the engine: each names the body, constraint or time concerned."""


class GimbalLockError(RuntimeError):
    """A body whose Euler angles are not driven one by one reached sin θ ≈ 0 (§3.2)."""


class SingularSystemError(RuntimeError):
    """The augmented matrix of eq. 101 is singular at some time."""


class RedundantConstraintError(ValueError):
    """The constraint Jacobian is rank deficient: a row depends on earlier rows."""


class InconsistentInitialConditions(ValueError):
    """Newton–Raphson could not bring C(q, t0) to zero (or Cq q̇ + Ct to zero)."""


class IntegrationError(RuntimeError):
    """The time integrator stopped before the end of the interval."""
