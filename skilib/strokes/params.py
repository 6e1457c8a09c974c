"""The checks every skater's parameters share: each field a number, a flag or three principal
inertias, converted and refused by name before the model's own ranges and geometry are checked;
and the course's inclination, which every model takes as ``slope_deg``.

The slope.  The course rises at the angle α along X, the direction of travel (α < 0: downhill).
Every model is written in the course frame (X along the course, Z normal to the snow, the snow
the plane z = 0), in which gravity is g(−sin α, 0, −cos α) (:func:`course_gravity`); the height
above a reference is z cos α + x sin α, so a body's potential energy is m g (z cos α + x sin α),
and a skater's snow load from its weight is (M + m_s) g cos α.  At α = 0 every such number is
the flat course's, bit for bit (:func:`slope_factors` gives exactly (0, 1) there).
"""
from __future__ import annotations

from dataclasses import fields

import math

import numpy as np

from ..engine.validation import check_bool, check_number

__all__ = ["check_fields", "SLOPE_RANGE", "check_slope", "slope_factors", "course_gravity"]

#: the course's inclination α [°] a model accepts, an open interval: |α| < 45°.  The steepest
#: World Cup climbs are ≈ 15–20° (a skater switches to herringbone or diagonal stride long
#: before 45°); beyond 45° the slope's weight component exceeds the snow's load.
SLOPE_RANGE = (-45.0, 45.0)


def check_slope(value) -> float:
    """``slope_deg`` as a float with −45° < α < 45° (``SLOPE_RANGE``), or a ValueError naming
    ``slope_deg`` (a bool, a string, NaN, ±inf, |α| ≥ 45°)."""
    a = check_number("slope_deg", value, unit="°")
    lo, hi = SLOPE_RANGE
    if not lo < a < hi:
        raise ValueError(f"slope_deg: {a!r} is outside the plausible range ({lo:g}, {hi:g})° (open: the course "
                         "rises at α along X, |α| < 45°)")
    return a


def slope_factors(slope_deg: float) -> tuple:
    """(sin α, cos α) of the course's inclination ``slope_deg`` α [°]; exactly (0.0, 1.0) at
    α = 0, so that a flat course's numbers do not change by a rounding."""
    if slope_deg == 0.0:
        return 0.0, 1.0
    a = math.radians(slope_deg)
    return math.sin(a), math.cos(a)


def course_gravity(g: float, slope_deg: float) -> tuple:
    """Gravity in the course frame, g(−sin α, 0, −cos α) [m/s²], for magnitude ``g`` and the
    course rising at ``slope_deg`` α [°] along X; exactly (0, 0, −g) at α = 0."""
    if slope_deg == 0.0:
        return (0.0, 0.0, -g)
    s, c = slope_factors(slope_deg)
    return (-g * s, 0.0, -g * c)


def check_fields(params, bounds: dict, *, flags=("air_drag",), inertia: str = "body_inertia",
                 optional=()) -> None:
    """Convert and check every field of the frozen dataclass ``params`` in place: the ``flags``
    must be booleans, ``inertia`` three positive principal inertias within ``bounds[inertia]``
    [kg m²] that each are at most the sum of the other two (a rigid body's), every other field
    a finite number (ranges are the caller's: ``bounds`` holds them; the ``optional`` ones may
    also be None, not set), ``slope_deg`` (if the dataclass has it) within the open
    ``SLOPE_RANGE``.  ValueError naming the field."""
    for f in fields(params):
        v = getattr(params, f.name)
        if f.name in optional and v is None:
            continue
        if f.name in flags:
            v = check_bool(f.name, v)
        elif f.name == inertia:
            lo, hi = bounds[inertia]
            try:
                a = None if isinstance(v, (str, bytes)) else np.asarray(v, dtype=float)
            except (TypeError, ValueError):
                a = None
            if a is None or a.shape != (3,) or not np.all(np.isfinite(a)) or not np.all(a > 0):
                raise ValueError(f"{inertia}: must be three positive inertias [kg m²], got {v!r}")
            if not np.all((lo <= a) & (a <= hi)):
                raise ValueError(f"{inertia}: each inertia must be in [{lo:g}, {hi:g}] kg m² (the parameter "
                                 f"bounds), got {v!r}")
            if not np.all(a <= a.sum() - a):
                raise ValueError(f"{inertia}: each principal inertia must be at most the sum of the other two "
                                 f"(a rigid body's), got {v!r}")
            v = tuple(float(x) for x in a)
        elif f.name == "slope_deg":
            v = check_slope(v)
        else:
            v = check_number(f.name, v)
        object.__setattr__(params, f.name, v)
