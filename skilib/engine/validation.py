"""One check for every number a user gives: ``check_number`` and its companions.

Every public entry point (``SkierParams``, ``simulate_run``, the options of an integration,
sweeps, the force loader) passes its numbers (``check_number``) and arrays (``check_array``,
``check_increasing``) through here, so that a wrong value is refused
the same way everywhere: a ``ValueError`` whose message starts with the field's name.

Refused: booleans (``True`` is not 1 kg), strings (``"75"`` is not 75 kg), ``None``,
NaN, ±inf (unless ``finite=False``, which still refuses NaN), non-integers where an
integer is needed (2.0 is an integer: pandas stores an integer column with one missing
value as floats), and values outside ``[low, high]``.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["check_number", "check_bool", "check_choice", "check_finite_array", "check_array", "check_increasing"]


def _show(value) -> str:
    return repr(value) if not isinstance(value, float) else f"{value!r}"


def check_number(name: str, value, *, positive: bool = False, nonnegative: bool = False,
                 integer: bool = False, finite: bool = True, low=None, high=None, unit: str = ""):
    """``value`` as a Python float (or int with ``integer=True``), or a ``ValueError`` naming ``name``.

    - positive / nonnegative : require > 0 / >= 0.
    - integer : require an integer value (an int, or a float such as 2.0); returns an int.
    - finite : refuse ±inf (NaN is always refused).
    - low, high : inclusive bounds (the message states them, with ``unit``).

    >>> check_number("strokes", 2.0, integer=True, positive=True)
    2
    >>> check_number("mass", True)
    Traceback (most recent call last):
    ...
    ValueError: mass: must be a number, got True (a bool)
    """
    u = f" {unit}" if unit else ""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}: must be a number, got {value!r} (a bool)")
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not isinstance(value, numbers.Real):
        kind = type(value).__name__
        raise ValueError(f"{name}: must be a number, got {value!r} (a {kind})")
    x = float(value)
    if math.isnan(x):
        raise ValueError(f"{name}: must be a number, got NaN")
    if finite and math.isinf(x):
        raise ValueError(f"{name}: must be finite, got {x!r}")
    if integer:
        if not (math.isfinite(x) and x == math.floor(x)):
            raise ValueError(f"{name}: must be an integer, got {_show(value)}")
        x = int(value) if isinstance(value, (int, np.integer)) else int(x)
    if positive and not x > 0:
        raise ValueError(f"{name}: must be > 0, got {_show(value)}{u}")
    if nonnegative and not x >= 0:
        raise ValueError(f"{name}: must be >= 0, got {_show(value)}{u}")
    if (low is not None and x < low) or (high is not None and x > high):
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise ValueError(f"{name}: must be in [{lo}, {hi}]{u}, got {_show(value)}{u}")
    return x


def check_bool(name: str, value) -> bool:
    """``value`` if it is True or False (numpy's too), else a ``ValueError`` naming ``name``
    (``"no"`` is not False, 0 is not False)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name}: must be True or False, got {value!r}")


def check_choice(name: str, value, choices) -> str:
    """``value`` if it is one of ``choices`` (compared as given), else a ``ValueError`` naming ``name``."""
    if isinstance(value, str) and value in choices:
        return value
    raise ValueError(f"{name}: must be one of {tuple(choices)}, got {value!r}")


def check_finite_array(name: str, values, *, where: str = "") -> np.ndarray:
    """``values`` as a float array, or a ``ValueError`` naming ``name`` and the first non-finite entry."""
    a = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(a)):
        i = int(np.flatnonzero(~np.isfinite(a.ravel()))[0])
        raise ValueError(f"{name}: non-finite value {a.ravel()[i]!r} at index {i}{where}")
    return a


def check_array(name: str, values, *, shape=None, ndim=None, min_len=None, finite: bool = True,
                where: str = "") -> np.ndarray:
    """``values`` as a float array, or a ``ValueError`` naming ``name``.

    Refused: None, strings, booleans (a bool or an array of them), anything NumPy cannot read
    as numbers, a shape other than ``shape`` (a tuple; ``None`` in it matches any length), a
    number of dimensions other than ``ndim``, fewer than ``min_len`` entries along the first
    axis, and (with ``finite``) NaN or ±inf, named by index (``where`` is added to the message,
    e.g. " (t = 0.25 s)").

    >>> check_array("angles", [0.1, 0.2], shape=(3,))
    Traceback (most recent call last):
    ...
    ValueError: angles: must have shape (3,), got shape (2,)
    """
    if values is None or isinstance(values, (str, bytes, bool, np.bool_)):
        raise ValueError(f"{name}: must be an array of numbers, got {values!r}")
    try:
        raw = np.asarray(values)
    except (ValueError, TypeError) as err:  # ragged nested lists
        raise ValueError(f"{name}: must be an array of numbers, got {values!r} ({err})") from None
    if raw.dtype == bool or raw.dtype.kind not in "iuf":
        if raw.dtype.kind == "O":
            try:
                raw = np.asarray(values, dtype=float)
            except (ValueError, TypeError):
                raise ValueError(f"{name}: must be an array of numbers, got {values!r}") from None
        else:
            raise ValueError(f"{name}: must be an array of numbers, got {values!r} (dtype {raw.dtype})")
    a = np.asarray(raw, dtype=float)
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name}: must be a {ndim}-D array, got shape {a.shape}")
    if shape is not None and (a.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, a.shape))):
        want = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        raise ValueError(f"{name}: must have shape {want}, got shape {a.shape}")
    if min_len is not None and (a.ndim == 0 or len(a) < min_len):
        raise ValueError(f"{name}: needs at least {min_len} entries, got {0 if a.ndim == 0 else len(a)}")
    if finite and not np.all(np.isfinite(a)):
        if a.ndim == 0:
            raise ValueError(f"{name}: must be finite, got {float(a)!r}{where}")
        i = np.unravel_index(int(np.flatnonzero(~np.isfinite(a.ravel()))[0]), a.shape)
        at = i[0] if len(i) == 1 else tuple(int(k) for k in i)
        raise ValueError(f"{name}: non-finite value {float(a[i])!r} at index {at}{where}")
    return a


def check_increasing(name: str, values, *, strict: bool = True, unit: str = "") -> np.ndarray:
    """A 1-D array ``values`` that increases (strictly, or with ``strict=False`` never
    decreases), or a ``ValueError`` naming ``name``, the first index where it does not and
    both values."""
    a = check_array(name, values, ndim=1)
    d = np.diff(a)
    bad = np.flatnonzero(d <= 0 if strict else d < 0)
    if bad.size:
        i = int(bad[0])
        u = f" {unit}" if unit else ""
        what = "increasing" if strict else "non-decreasing"
        kind = "repeated" if d[i] == 0 else "decreases"
        raise ValueError(f"{name}: must be {what}; {kind} at index {i + 1}: "
                         f"{name}[{i}] = {float(a[i])!r}{u}, {name}[{i + 1}] = {float(a[i + 1])!r}{u}")
    return a
