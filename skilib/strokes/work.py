"""Work–energy bookkeeping of a stroke of any skating model, keyed by name.

The works a model names (the push-off, friction, gravity, drag, the joints, the drivers) are integrated
as extra states of the ODE, as are ∫|Ṙ³| dτ (for the mean speed) and ∫|Ẋ³|, ∫|Ẏ³| dτ.  Each
work rate is a sum of powers that one ``Evaluation`` of eq. 101 already holds (Q_f·q̇ of a
force, −λ_r (Cq q̇)_r of a constraint row), so a fixed matrix maps ``Evaluation.powers`` to
the rates.  Since q̇ᵀQv = −½q̇ᵀṀq̇ for a Lagrangian system, d(KE)/dt is the sum of these
powers, which the tests check.

The cost of work.  A muscle does positive work at an efficiency η⁺ and absorbs negative work at
a cost |W⁻|/η⁻, so a model may name *actuators* (drivers among its works) whose positive and
negative parts W⁺ = ∫max(P, 0) dτ and W⁻ = ∫min(P, 0) dτ are integrated as extra states too
(``signed_names``: ``work_<actuator>_positive``, ``work_<actuator>_negative``, appended after
every other extra state, so no other state moves).  They are not linear in the powers: their
rates max(r, 0), min(r, 0) of the work's rate r have a kink where r changes sign, which an
explicit Runge–Kutta step integrates only to O(h²) (DOP853's error control, left to itself,
sees the kink in the rate and steps through it with small steps).
``skilib.engine.integrators.signed_method`` makes the step exact there without touching the
steps: the error control (and the first step) sees only the other states, so the steps, and every other state, are bit for bit those of a run without the signed works;
a step over which the rate's stages change sign splits the net work's increment at the zeros
of its interpolant's derivative (the sign changes of r), so W⁺ and W⁻ are exact to the
integrator's tolerance, and W⁺ + W⁻ = W to rounding.  (An implicit method integrates the two
rates as plain states: its error control sees the kink and steps through it.)  ``cost_of_work``
turns them into the metabolic power Σ(W⁺/η⁺ + |W⁻|/η⁻)/T and the gross efficiency.
"""
from __future__ import annotations

import numpy as np

__all__ = ["INTEGRALS", "extra_states", "WorkLedger", "signed_names", "cost_of_work",
           "COST_COLUMNS"]

#: time integrals of the CM's speed and of |v_x|, |v_y| [m]
INTEGRALS = ("int_speed", "int_abs_vx", "int_abs_vy")


def signed_names(actuators) -> tuple:
    """``work_<a>_positive``, ``work_<a>_negative`` for each actuator's work ``work_<a>``."""
    return tuple(f"{a}_{part}" for a in actuators for part in ("positive", "negative"))


def extra_states(work_terms, actuators=()) -> tuple:
    """Every extra state after q, q̇: the works, the integrals, projection_energy (zero rate;
    it takes the projections' jumps) and, last, the positive and negative parts of the works
    of ``actuators`` (names among ``work_terms``; ``signed_names``)."""
    unknown = [a for a in actuators if a not in tuple(work_terms)]
    if unknown:
        raise ValueError(f"actuators: {unknown} are not among the works {tuple(work_terms)}")
    return tuple(work_terms) + INTEGRALS + ("projection_energy",) + signed_names(actuators)


#: the cost-of-work columns of a strokes table, after each actuator's W⁺ and W⁻ (``cost_of_work``)
COST_COLUMNS = ("work_positive", "work_negative", "mean_positive_power", "metabolic_power", "gross_efficiency")


def cost_of_work(works: dict, actuators, T: float, eta_positive: float, eta_negative: float) -> dict:
    """The cost of a stroke's work from ``works`` (holding ``work_<a>_positive`` and
    ``work_<a>_negative`` [J] of each actuator ``work_<a>``): each actuator's W⁺ and W⁻, their
    sums work_positive ΣW⁺ and work_negative ΣW⁻ [J], mean_positive_power ΣW⁺/T [W],
    metabolic_power Σ(W⁺/η⁺ + |W⁻|/η⁻)/T [W] and gross_efficiency (ΣW⁺ + ΣW⁻)/(P_met T), the
    actuators' net work over the metabolic energy (NaN where no work is done)."""
    out, pos, neg, met = {}, 0.0, 0.0, 0.0
    for a in actuators:
        wp, wn = float(works[f"{a}_positive"]), float(works[f"{a}_negative"])
        out[f"{a}_positive"], out[f"{a}_negative"] = wp, wn
        pos, neg = pos + wp, neg + wn
        met += wp / eta_positive + abs(wn) / eta_negative
    out.update(work_positive=pos, work_negative=neg, mean_positive_power=pos / T, metabolic_power=met / T,
               gross_efficiency=(pos + neg) / met if met > 0 else float("nan"))
    return out



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

