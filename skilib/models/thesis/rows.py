"""Where the thesis's skier's rows sit in a system, and the works they do (the terms of the
work–energy balance of a stroke, integrated by ``skilib.strokes.work``)."""
from __future__ import annotations

import numpy as np

from ...strokes.work import extra_states

__all__ = ["WORK_TERMS", "BALANCE_TERMS", "EXTRA_STATES", "SkierRows", "thesis_work_terms"]

#: the thesis model's works integrated over a stroke [J]; work_drivers_ct is λᵀCt of the drivers;
#: work_leg_extension (C14, eq. 187) and work_leg_rotation (C15–C17, eq. 188) split work_drivers
#: into its two drivers, each integrated exactly as a state of its own (not summed on the output grid)
WORK_TERMS = ("work_push", "work_friction", "work_gravity", "work_drag", "work_joints", "work_drivers",
              "work_drivers_ct", "work_leg_extension", "work_leg_rotation")
#: the works whose sum is the change of kinetic energy over a stroke (work_drivers_ct is a part
#: of work_drivers, not a work of its own, and so are work_leg_extension and work_leg_rotation)
BALANCE_TERMS = ("work_push", "work_friction", "work_gravity", "work_drag", "work_drivers", "work_joints")
EXTRA_STATES = extra_states(WORK_TERMS)


class SkierRows:
    """Where the skier's rows sit in one system's constraint vector (either parametrization).

    drivers: the rheonomic C14–C17; extension, rotation: C14 (the leg's length, eq. 187) and
    C15–C17 (its orientation, eq. 188) within them; stick: the stuck-ski row or None; joints: every other
    row (C1–C13, and with Euler parameters the normalization rows, whose multipliers
    vanish: A(p/|p|) makes every other term blind to the length of p); model: the rows of
    the model itself (all but the stick row), over which ``constraint_norm`` is taken.
    """

    def __init__(self, model, system):
        nc = system.nc
        names = [c.name for c in system.constraints]
        self.drivers = slice(system.rows(model.DRIVER_NAMES[0]).start, system.rows(model.DRIVER_NAMES[-1]).stop)
        self.extension, self.rotation = (system.rows(name) for name in model.DRIVER_NAMES)
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


def thesis_work_terms(rows: SkierRows) -> dict:
    """The thesis model's works: the push-off, friction (with the static friction of a stuck
    ski, the stick row's multiplier), gravity, drag, the joints, the drivers and their λ Ct, and
    the drivers one by one: the leg's extension C14 and its rotation C15–C17."""
    stick = [rows.stick] if rows.stick is not None else []
    return {"work_push": (("push",), [], False), "work_friction": (("friction",), stick, False),
            "work_gravity": (("gravity",), [], False), "work_drag": (("drag",), [], False),
            "work_joints": ((), rows.joints, False), "work_drivers": ((), [rows.drivers], False),
            "work_drivers_ct": ((), [rows.drivers], True),
            "work_leg_extension": ((), [rows.extension], False), "work_leg_rotation": ((), [rows.rotation], False)}
