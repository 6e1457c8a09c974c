"""Work–energy bookkeeping of a stroke, keyed by name.

The works of the push-off, friction, gravity, drag, the joints and the drivers are integrated
as extra states of the ODE, as are ∫|Ṙ³| dτ (for the mean speed) and ∫|Ẋ³|, ∫|Ẏ³| dτ.  Each
work rate is a sum of powers that one ``Evaluation`` of eq. 101 already holds (Q_f·q̇ of a
force, −λ_r (Cq q̇)_r of a constraint row), so a fixed matrix maps ``Evaluation.powers`` to
the rates.  Since q̇ᵀQv = −½q̇ᵀṀq̇ for a Lagrangian system, d(KE)/dt is the sum of these
powers, which the tests check.
"""
from __future__ import annotations

import numpy as np

__all__ = ["WORK_TERMS", "INTEGRALS", "EXTRA_STATES", "extra_states", "SkierRows", "WorkLedger"]

#: the thesis model's works integrated over a stroke [J]; work_drivers_ct is λᵀCt of the drivers
WORK_TERMS = ("work_push", "work_friction", "work_gravity", "work_drag", "work_joints", "work_drivers",
              "work_drivers_ct")
#: time integrals of the CM's speed and of |v_x|, |v_y| [m]
INTEGRALS = ("int_speed", "int_abs_vx", "int_abs_vy")


def extra_states(work_terms) -> tuple:
    """Every extra state after q, q̇: the works, the integrals, and projection_energy (zero rate;
    it takes the projections' jumps)."""
    return tuple(work_terms) + INTEGRALS + ("projection_energy",)


EXTRA_STATES = extra_states(WORK_TERMS)
STATE_INDEX = {k: i for i, k in enumerate(EXTRA_STATES)}


class SkierRows:
    """Where the skier's rows sit in one system's constraint vector (either parametrization).

    drivers: the rheonomic C14–C17; stick: the stuck-ski row or None; joints: every other
    row (C1–C13, and with Euler parameters the normalization rows, whose multipliers
    vanish: A(p/|p|) makes every other term blind to the length of p); model: the rows of
    the model itself (all but the stick row), over which ``constraint_norm`` is taken.
    """

    def __init__(self, model, system):
        nc = system.nc
        names = [c.name for c in system.constraints]
        self.drivers = slice(system.rows(model.DRIVER_NAMES[0]).start, system.rows(model.DRIVER_NAMES[-1]).stop)
        self.stick = system.rows("stick") if "stick" in names else None
        cuts = sorted({0, nc, self.drivers.start, self.drivers.stop}
                      | ({self.stick.start, self.stick.stop} if self.stick else set()))
        self.joints = [slice(a, b) for a, b in zip(cuts[:-1], cuts[1:])
                       if b > a and slice(a, b) != self.drivers and slice(a, b) != self.stick]
        keep = np.ones(nc, dtype=bool)
        if self.stick is not None:
            keep[self.stick] = False
        self.model = np.nonzero(keep)[0]
        self.cm = model.cm.start  # R³ (the CM) in q

    def stick_index(self) -> int:
        return self.stick.start


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


def thesis_work_terms(rows: SkierRows) -> dict:
    """The thesis model's works: the push-off, friction (with the static friction of a stuck
    ski, the stick row's multiplier), gravity, drag, the joints, the drivers and their λ Ct."""
    stick = [rows.stick] if rows.stick is not None else []
    return {"work_push": (("push",), [], False), "work_friction": (("friction",), stick, False),
            "work_gravity": (("gravity",), [], False), "work_drag": (("drag",), [], False),
            "work_joints": ((), rows.joints, False), "work_drivers": ((), [rows.drivers], False),
            "work_drivers_ct": ((), [rows.drivers], True)}
