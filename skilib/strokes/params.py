"""The checks every skater's parameters share: each field a number, a flag or three principal
inertias, converted and refused by name before the model's own ranges and geometry are checked."""
from __future__ import annotations

from dataclasses import fields

import numpy as np

from ..engine.validation import check_bool, check_number

__all__ = ["check_fields"]


def check_fields(params, bounds: dict, *, flags=("air_drag",), inertia: str = "body_inertia") -> None:
    """Convert and check every field of the frozen dataclass ``params`` in place: the ``flags``
    must be booleans, ``inertia`` three positive principal inertias within ``bounds[inertia]``
    [kg m²] that each are at most the sum of the other two (a rigid body's), every other field
    a finite number (ranges are the caller's: ``bounds`` holds them).  ValueError naming the
    field."""
    for f in fields(params):
        v = getattr(params, f.name)
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
        else:
            v = check_number(f.name, v)
        object.__setattr__(params, f.name, v)
