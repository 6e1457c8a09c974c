"""Balance by foot placement: where the next ski lands, chosen at each touch-down from the
centre of mass's state.

With a fixed landing offset d0 the edged skater's periodic stroke is an inverted pendulum on
open-loop laws, and its stroke map has a multiplier outside the unit circle.  A skater balances
by placing the foot: Hof (2008) places it a constant margin from the extrapolated centre of mass
ξ = y + ẏ/ω0 (ω0 = √(g/ℓ)), so a faster fall outwards lands the foot further out.  Here the rule
is linear in what the skater can see just before touch-down, m = (v_e, v_o, z_B, h): the CM's
velocity along the new ski's heading and outwards across it, its height, and its distance across
the old ski's axis::

    d0 = d* + gᵀ (m − m*)

with d*, m* the periodic stroke's, so that the periodic stroke is a fixed point of the rule too
(the rule changes nothing there).  Hof's rule is g = (0, 1/ω0, 0, 0).  The gains are designed on
the linearised stroke map x′ = Φ(x, d0) at the periodic stroke, x = (u, φ̇, z_B, d) after
touch-down (the landing offset d is part of the state once a rule chooses it): with
A = ∂Φ/∂x, b = ∂Φ/∂d0 and M = ∂m/∂x (m measured at the end of the stroke that starts at x,
central differences), the rule makes ∂Φ/∂x = A + b gᵀ M, and ``design_balance`` chooses g so
that this matrix has the eigenvalues ``poles`` (single-input pole placement,
``scipy.signal.place_poles``): gᵀ M = −K with eig(A − bK) = poles.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...engine.validation import check_array
from ...strokes.laws import side_sign

__all__ = ["BalanceRule", "touchdown_measure", "hof_rule"]


@dataclass(frozen=True)
class BalanceRule:
    """d0 = offset + gains · (m − reference) at each touch-down (the module's docstring).

    - offset : d* [m], the periodic stroke's landing offset.
    - reference : m* = (v_e [m/s], v_o [m/s], z_B [m], h [m]) just before the periodic
      touch-down.
    - gains : g [s, s, 1, 1] (d0 in m).
    - poles : the designed multipliers (NaN for a rule not designed by pole placement).
    """

    offset: float
    reference: tuple
    gains: tuple
    poles: tuple = (math.nan,) * 4

    def __post_init__(self):
        check_array("reference", self.reference, shape=(4,))
        check_array("gains", self.gains, shape=(4,))
        check_array("offset", [self.offset], shape=(1,))

    def landing_offset(self, m) -> float:
        """d0 [m] for the measured m = (v_e, v_o, z_B, h)."""
        return float(self.offset + np.dot(self.gains, np.asarray(m, dtype=float) - np.asarray(self.reference)))


def touchdown_measure(params, side: str, q, qd, old) -> np.ndarray:
    """m = (v_e, v_o, z_B, h) just before the ski of ``side`` lands, the old stance's model
    ``old`` ending at (q, q̇): the CM's velocity along the new ski's heading ψ(0) = s(−a/2) and
    outwards across it (away from the CM, towards where the ski lands), its height, and its
    distance h across the old ski's axis (the CM's place over the foot it leaves)."""
    s = side_sign(side)
    h = s * (-math.radians(params.skating_angle_deg) / 2)
    e, n = np.array([math.cos(h), math.sin(h), 0.0]), np.array([-math.sin(h), math.cos(h), 0.0])
    q, qd = np.asarray(q), np.asarray(qd)
    v = qd[old.cm]
    e_old = old.ski_direction(q)
    n_old = np.cross([0.0, 0.0, 1.0], e_old)
    across = old.sign * float((q[old.cm] - q[:3]) @ n_old)
    return np.array([float(v @ e), float(v @ (-s * n)), float(q[old.cm][2]), across])


def hof_rule(offset: float, reference, leg_length: float, g: float) -> BalanceRule:
    """Hof's (2008) rule: the foot a constant margin outside the extrapolated centre of mass,
    d0 = d* + (v_o − v_o*)/ω0, ω0 = √(g/ℓ)."""
    return BalanceRule(offset=offset, reference=tuple(reference), gains=(0.0, 1.0 / math.sqrt(g / leg_length), 0.0, 0.0))
