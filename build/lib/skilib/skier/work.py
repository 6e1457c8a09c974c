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

__all__ = ["WORK_TERMS", "INTEGRALS", "EXTRA_STATES", "SkierRows", "WorkLedger"]

#: works integrated over a stroke [J]; work_drivers_ct is λᵀCt of the drivers
WORK_TERMS = ("work_push", "work_friction", "work_gravity", "work_drag", "work_joints", "work_drivers",
              "work_drivers_ct")
#: time integrals of the CM's speed and of |v_x|, |v_y| [m]
INTEGRALS = ("int_speed", "int_abs_vx", "int_abs_vy")
#: every extra state after q, q̇; projection_energy has zero rate and takes the projections' jumps
EXTRA_STATES = WORK_TERMS + INTEGRALS + ("projection_energy",)
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
    """The matrix W with (work rates in the order of ``WORK_TERMS``) = W @ Evaluation.powers.

    force_names : the evaluation's force names (``Evaluation.force_names``); nc : its rows.
    The static friction of a stuck ski is the stick row's multiplier, so its power counts as
    friction; the drivers' rows make work_drivers and their λ Ct terms work_drivers_ct.
    """

    def __init__(self, rows: SkierRows, force_names, nc: int):
        nf = len(force_names)
        self.W = np.zeros((len(WORK_TERMS), nf + 2 * nc))
        where = {k: i for i, k in enumerate(WORK_TERMS)}

        def add(term, force=None, row_slices=(), ct=False):
            i = where[term]
            if force in force_names:
                self.W[i, list(force_names).index(force)] = 1.0
            base = nf + nc if ct else nf
            for r in row_slices:
                self.W[i, base + r.start: base + r.stop] = 1.0

        add("work_push", "push")
        add("work_friction", "friction", [rows.stick] if rows.stick is not None else [])
        add("work_gravity", "gravity")
        add("work_drag", "drag")
        add("work_joints", row_slices=rows.joints)
        add("work_drivers", row_slices=[rows.drivers])
        add("work_drivers_ct", row_slices=[rows.drivers], ct=True)

    def rates(self, evaluation) -> np.ndarray:
        return self.W @ evaluation.powers
