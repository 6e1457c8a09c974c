"""Work–energy bookkeeping of a stroke of any skating model, keyed by name.

The works a model names (the push-off, friction, gravity, drag, the joints, the drivers) are integrated
as extra states of the ODE, as are ∫|Ṙ³| dτ (for the mean speed) and ∫|Ẋ³|, ∫|Ẏ³| dτ.  Each
work rate is a sum of powers that one ``Evaluation`` of eq. 101 already holds (Q_f·q̇ of a
force, −λ_r (Cq q̇)_r of a constraint row), so a fixed matrix maps ``Evaluation.powers`` to
the rates.  Since q̇ᵀQv = −½q̇ᵀṀq̇ for a Lagrangian system, d(KE)/dt is the sum of these
powers, which the tests check.
"""
from __future__ import annotations

import numpy as np

__all__ = ["INTEGRALS", "extra_states", "WorkLedger"]

#: time integrals of the CM's speed and of |v_x|, |v_y| [m]
INTEGRALS = ("int_speed", "int_abs_vx", "int_abs_vy")


def extra_states(work_terms) -> tuple:
    """Every extra state after q, q̇: the works, the integrals, and projection_energy (zero rate;
    it takes the projections' jumps)."""
    return tuple(work_terms) + INTEGRALS + ("projection_energy",)



class WorkLedger:
    """The matrix W with (work rates in the order of ``terms``) = W @ Evaluation.powers.

    terms : {work name: (force names, row slices, ct)}: the work's rate is the sum of those
        forces' powers Q_f·q̇ and of those rows' powers −λ_r (Cq q̇)_r (with ``ct``, of their
        λ_r Ct_r instead).  force_names, nc : the evaluation's forces and number of rows.
    """

    def __init__(self, terms: dict, force_names, nc: int):
        nf = len(force_names)
        self.names = tuple(terms)
        self.W = np.zeros((len(terms), nf + 2 * nc))
        for i, (forces, row_slices, ct) in enumerate(terms.values()):
            for f in forces:
                if f in force_names:
                    self.W[i, list(force_names).index(f)] = 1.0
            base = nf + nc if ct else nf
            for r in row_slices:
                self.W[i, base + r.start: base + r.stop] = 1.0

    def rates(self, evaluation) -> np.ndarray:
        return self.W @ evaluation.powers
