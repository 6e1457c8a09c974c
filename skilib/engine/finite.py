"""Where a NaN or inf entered eq. 101: the time, the state, an input law or force, a body's
mass matrix or quadratic-velocity vector, a constraint's rows (Bruzzo 2012, eq. 101).

Checked only once a solve has failed, so the ordinary path pays nothing; then it runs
before any diagnosis of a singular matrix, which a NaN would otherwise imitate.
"""
from __future__ import annotations

import math

import numpy as np

from .errors import NonFiniteError

__all__ = ["nonfinite_error"]


def _first_bad(a) -> int | None:
    a = np.asarray(a, dtype=float).ravel()
    bad = np.flatnonzero(~np.isfinite(a))
    return int(bad[0]) if bad.size else None


def _where(t) -> str:
    return f"t={float(t):.6g} s"


def nonfinite_error(system, t, q, qd, *, inputs=(), forces=None, M=None, Qv=None, C=None, Cq=None, Cdot=None,
                    quad=None) -> NonFiniteError | None:
    """The ``NonFiniteError`` naming the first non-finite term found, or None if all are finite.

    - inputs : (label, values) of the numeric inputs (laws, force magnitudes) of a compiled kernel.
    - forces : {force name: its generalized force}.
    - M, Qv : the mass matrix and quadratic-velocity vector (checked body by body).
    - C, Cq, Cdot, quad : constraint terms (checked constraint by constraint).
    """
    if not math.isfinite(float(t)):
        return NonFiniteError(f"the time is {t!r}", source="t", t=t)
    labels = system.coordinate_labels
    for name, v in (("q", q), ("q̇", qd)):
        i = _first_bad(v)
        if i is not None:
            return NonFiniteError(f"the state is not finite at {_where(t)}: {name}[{i}] ({labels[i]}) = {float(v[i])!r}; "
                                  "the integration diverged (check tolerances, step and inputs)",
                                  source=labels[i], t=t)
    for label, values in inputs:
        i = _first_bad(values)
        if i is not None:
            return NonFiniteError(f"{label} returned {float(np.ravel(values)[i])!r} at {_where(t)}; expected a finite value",
                                  source=label, t=t)
    for name, Q in (forces or {}).items():
        i = _first_bad(Q)
        if i is not None:
            return NonFiniteError(f"force '{name}' is not finite at {_where(t)}: generalized force on {labels[i]} = "
                                  f"{float(np.ravel(Q)[i])!r}", source=f"force '{name}'", t=t)
    for what, arr in (("mass matrix", M), ("quadratic-velocity vector Qv", Qv)):
        if arr is None:
            continue
        for b in system.bodies:
            sl = system.slice(b)
            block = arr[sl, sl] if np.ndim(arr) == 2 else arr[sl]
            if _first_bad(block) is not None:
                return NonFiniteError(f"body '{b.name}': its {what} is not finite at {_where(t)}",
                                      source=f"body '{b.name}'", t=t)
    for what, arr in (("C", C), ("Cq", Cq), ("Cq q̇ + Ct", Cdot), ("Qd", quad)):
        if arr is None:
            continue
        for c in system.constraints:
            if _first_bad(arr[system.rows(c)]) is not None:
                return NonFiniteError(f"constraint '{c.name}': {what} is not finite at {_where(t)} "
                                      "(its prescribed law or geometry)", source=f"constraint '{c.name}'", t=t)
    return None
