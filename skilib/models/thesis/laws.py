"""The prescribed leg laws of one active phase, chosen from the phase time (thesis §5.2, §5.4).

The leg extension and rotation are linear in the phase time τ (Bruzzo 2012)::

    ℓ(τ) = ℓ0 + C_ext τ        (eq. 187, Leg_ext = Ini_ext + C_extension t)
    γ(τ) = γ0 + C_rot τ        (eq. 188, Leg_rot = Ini_rot + C_rotation t)

The thesis picks C_ext and C_rot per case so that every phase ends in the same pose however
long it lasts (table 7: C_ext·T = 0.4 m, C_rot·T = 45°; table 9: 0.2 m, 22.5°).  These
functions do that for any phase time: C_ext = Δℓ/T, C_rot = Δγ/T.
"""
from __future__ import annotations

import numpy as np

from ...engine.validation import check_array, check_number
from .cases import TABLE9

__all__ = ["leg_laws_for", "with_leg_laws"]


def leg_laws_for(phase_time, *, extension: float = TABLE9.leg_extension,
                 rotation_deg: float = TABLE9.leg_rotation_deg):
    """(C_ext [m/s], C_rot [deg/s]) that extend the leg by ``extension`` [m] (eq. 187) and turn
    it by ``rotation_deg`` [deg] (eq. 188) within ``phase_time`` T [s].

    The defaults keep table 9's end pose (0.2 m, 22.5°: the leg from 0.5 m to 0.7 m and from
    vertical to 22.5°); table 7's is ``extension=TABLE7_LEG_EXTENSION`` (0.4 m),
    ``rotation_deg=TABLE7_LEG_ROTATION_DEG`` (45°).  ``phase_time`` may be a number, an array
    or a pandas Series (the result is of the same kind); it must be > 0.
    """
    if not np.all(check_array("phase_time", phase_time) > 0):
        raise ValueError(f"phase_time: must be > 0, got {phase_time!r}")
    extension = check_number("extension", extension, unit="m")
    rotation_deg = check_number("rotation_deg", rotation_deg, unit="deg")
    return extension / phase_time, rotation_deg / phase_time


def with_leg_laws(df, *, extension: float = TABLE9.leg_extension, rotation_deg: float = TABLE9.leg_rotation_deg):
    """A copy of the table ``df`` (one row per parameter set, with a ``phase_time`` column [s])
    with the columns ``c_ext`` and ``c_rot_deg`` set by ``leg_laws_for``: every row keeps the
    same end pose of the leg whatever its phase time (by default table 9's, eqs. 187–188)."""
    c_ext, c_rot_deg = leg_laws_for(df.phase_time, extension=extension, rotation_deg=rotation_deg)
    return df.assign(c_ext=c_ext, c_rot_deg=c_rot_deg)
