"""Validated options of an integration: how eq. 101 is kept on C = 0 (``Stabilization``) and
which Runge–Kutta method steps it (``Integrator``).  Each is checked once, on construction,
with a ``ValueError`` naming the argument."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .validation import check_number

__all__ = ["Stabilization", "Integrator", "baumgarte", "STABILIZATIONS", "RK_METHODS"]

STABILIZATIONS = ("baumgarte", "projection", "none")
#: explicit Runge–Kutta methods that can be stepped with a projection after every step
RK_METHODS = ("RK45", "RK23", "DOP853")
#: every ``solve_ivp`` method by name (a ``scipy.integrate.OdeSolver`` subclass is accepted too)
IVP_METHODS = RK_METHODS + ("Radau", "BDF", "LSODA")
#: the Baumgarte step h [s] accepted: its modes (−1 ± i)/h must stay within reach of a
#: time integrator; below 1e-4 s the stabilization is stiffer than any motion it guards
H_RANGE = (1e-4, 1e4)
#: the integrator's relative tolerance: below 1e-15 it asks for more than double precision
RTOL_RANGE = (1e-15, 1.0)


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.number)) and not isinstance(v, bool)


def baumgarte(h: float):
    """The thesis's Baumgarte parameters for a nominal step h: (α, β) = (1/h, √2/h) (§3.8)."""
    if not (_is_number(h) and h > 0 and math.isfinite(h)):
        raise ValueError(f"h must be > 0, got {h!r}")
    check_number("h", h, low=H_RANGE[0], high=H_RANGE[1], unit="s")
    return 1.0 / h, np.sqrt(2.0) / h


@dataclass(frozen=True)
class Stabilization:
    """How the index-1 form of eq. 101 is kept on C = 0.

    - kind : 'baumgarte' (eqs. 99–101: the constraint errors obey C̈ + 2αĊ + β²C = 0),
      'projection' (eq. 101 without Baumgarte terms; after every accepted step positions
      are projected onto C = 0 and velocities onto Cq q̇ = −Ct, to ``projection_tol`` in
      max|C|; the thesis's §3.8 alternative), or 'none' (α = β = 0: the constraints drift).
    - alpha, beta : the Baumgarte parameters (0 unless kind='baumgarte').
    """

    kind: str = "baumgarte"
    alpha: float = 0.0
    beta: float = 0.0
    projection_tol: float = 1e-12

    def __post_init__(self):
        # built directly (not by make): the same checks, so a NaN never reaches the integrator
        if not (isinstance(self.kind, str) and self.kind in STABILIZATIONS):
            raise ValueError(f"kind: must be one of {STABILIZATIONS}, got {self.kind!r}")
        object.__setattr__(self, "alpha", check_number("alpha", self.alpha, nonnegative=True, high=1e8))
        object.__setattr__(self, "beta", check_number("beta", self.beta, low=-1e8, high=1e8))
        object.__setattr__(self, "projection_tol", check_number("projection_tol", self.projection_tol,
                                                                positive=True, high=1e-3))
        if self.kind != "baumgarte" and (self.alpha or self.beta):
            raise ValueError(f"alpha, beta: Baumgarte parameters, but kind={self.kind!r} takes none")

    @classmethod
    def make(cls, kind: str = "baumgarte", *, h: float = 0.01, alpha=None, beta=None,
             projection_tol: float = 1e-12) -> "Stabilization":
        """Validated options; for 'baumgarte' α, β default to the thesis's (1/h, √2/h)."""
        if not (isinstance(kind, str) and kind in STABILIZATIONS):
            raise ValueError(f"stabilization: must be one of {STABILIZATIONS}, got {kind!r}")
        projection_tol = check_number("projection_tol", projection_tol, positive=True, high=1e-3)
        if kind == "baumgarte":
            a_h, b_h = baumgarte(h)
            alpha = a_h if alpha is None else alpha
            beta = b_h if beta is None else beta
            if not (_is_number(alpha) and _is_number(beta) and alpha >= 0
                    and math.isfinite(alpha) and math.isfinite(beta)) or alpha > 1e8 or abs(beta) > 1e8:
                raise ValueError(f"alpha, beta: Baumgarte parameters must be finite numbers with 0 <= alpha <= 1e8, "
                                 f"got {alpha!r}, {beta!r}")
            return cls("baumgarte", float(alpha), float(beta), float(projection_tol))
        if alpha is not None or beta is not None:
            raise ValueError(f"alpha, beta: Baumgarte parameters, but stabilization={kind!r} takes none")
        if kind == "projection" and not (_is_number(projection_tol) and 0 < projection_tol <= 1e-3):
            raise ValueError(f"projection_tol: must be a number in (0, 1e-3] (max |C| after projection), "
                             f"got {projection_tol!r}")
        return cls(kind, 0.0, 0.0, float(projection_tol))

    @property
    def projects(self) -> bool:
        return self.kind == "projection"


@dataclass(frozen=True)
class Integrator:
    """The ``solve_ivp`` method and tolerances.  With projection the method must be an
    explicit Runge–Kutta method (``RK_METHODS``), which ``ProjectedRK`` steps."""

    method: str = "DOP853"
    rtol: float = 1e-10
    atol: float = 1e-10
    max_step: float = np.inf

    def __post_init__(self):
        # built directly (not by make): the same checks
        from scipy.integrate import OdeSolver

        if not ((isinstance(self.method, str) and self.method in IVP_METHODS)
                or (isinstance(self.method, type) and issubclass(self.method, OdeSolver))):
            raise ValueError(f"method: must be one of the solve_ivp methods {IVP_METHODS} or an OdeSolver class, "
                             f"got {self.method!r}")
        object.__setattr__(self, "rtol", check_number("rtol", self.rtol, positive=True, low=RTOL_RANGE[0],
                                                      high=RTOL_RANGE[1]))
        object.__setattr__(self, "atol", check_number("atol", self.atol, positive=True, high=1.0))
        object.__setattr__(self, "max_step", check_number("max_step", self.max_step, positive=True, finite=False))

    @classmethod
    def make(cls, method: str = "DOP853", *, rtol=1e-10, atol=1e-10, max_step=np.inf,
             stabilization: Stabilization | None = None) -> "Integrator":
        if stabilization is not None and stabilization.projects and method not in RK_METHODS:
            raise ValueError(f"method: stabilization='projection' steps an explicit Runge-Kutta method "
                             f"{RK_METHODS}, got {method!r}")
        return cls(method, rtol, atol, max_step)  # __post_init__ checks the method and the numbers
