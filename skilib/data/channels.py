"""Force-plate channels, whatever file they come from (CSV: ``forcedata``; C3D: ``c3d``): the
channels and units the loaders know, conversion to SI, the record's sampling step and the
frame they return with its attributes."""
from __future__ import annotations

import json
import math
import numbers
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["REQUIRED_COLUMNS", "LEGS", "SINGLE", "KNOWN_CHANNELS", "COLUMN_KEYS", "UNIT_TO_SI", "DEFAULT_DT_RTOL",
           "mean_step", "read_metadata", "metadata_rate", "column_mapping", "check_dt_rtol", "to_si", "to_frame"]

REQUIRED_COLUMNS = ("t", "force_left", "force_right")
LEGS = ("force_left", "force_right")
#: the force column of a single-plate recording (one leg, or both legs on one plate)
SINGLE = "force"
#: the quantity kind of every column the loader knows; these must carry units
KNOWN_CHANNELS = {"t": "time", "force_left": "force", "force_right": "force", "force": "force", "friction": "force"}
#: keys of load_force_data's ``columns`` mapping -> the loader's column names
COLUMN_KEYS = {"time": "t", "t": "t", "left": "force_left", "force_left": "force_left", "right": "force_right",
               "force_right": "force_right", "force": "force", "friction": "friction"}
UNIT_TO_SI = {"time": {"s": 1.0, "ms": 1e-3}, "force": {"N": 1.0, "kN": 1e3}}
#: relative tolerance on each sampling step against the median step
DEFAULT_DT_RTOL = 0.01



def mean_step(t: np.ndarray) -> float:
    """Sampling step of a uniformly sampled record, from its whole span."""
    return float((t[-1] - t[0]) / (t.size - 1))


def read_metadata(metadata, path: Path) -> dict | None:
    """The metadata (a dict, or a JSON file's object) of the data file ``path``; None if none."""
    if metadata is None:
        return None
    if isinstance(metadata, dict):
        return metadata
    mpath = Path(metadata)
    try:
        meta = json.loads(mpath.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{mpath}: metadata file for {path} not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{mpath}: cannot read metadata for {path}: {exc}") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{mpath}: metadata must be a JSON object")
    return meta


def metadata_rate(meta: dict, path: Path) -> float:
    """``meta["sampling_rate_hz"]`` as a float: a positive, finite number (not a text such as
    "1_000" or a boolean), else a ValueError naming the data file and the key."""
    v = meta["sampling_rate_hz"]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not math.isfinite(v) or v <= 0:
        raise ValueError(f"{path}: metadata 'sampling_rate_hz': expected a positive number of Hz, got {v!r}")
    return float(v)


def column_mapping(columns) -> dict:
    """``columns`` as {loader name: the file's column name}, or a ValueError naming the key."""
    if columns is None:
        return {}
    if not isinstance(columns, dict):
        raise ValueError(f"columns: expected a dict such as {{'time': 'zeit', 'left': 'links', 'right': 'rechts'}}, "
                         f"got {columns!r}")
    out = {}
    for k, v in columns.items():
        if k not in COLUMN_KEYS:
            raise ValueError(f"columns: unknown key {k!r}; allowed: {sorted(set(COLUMN_KEYS))}")
        if not isinstance(v, str) or not v.strip():
            raise ValueError(f"columns: {k!r} must map to a column name of the file, got {v!r}")
        if COLUMN_KEYS[k] in out:
            raise ValueError(f"columns: {k!r} given twice (as {k!r} and another spelling)")
        out[COLUMN_KEYS[k]] = v.strip()
    if SINGLE in out and ("force_left" in out or "force_right" in out):
        raise ValueError("columns: give 'force' (a single plate) or 'left'/'right', not both")
    if not any(c in out for c in ("force_left", "force_right", SINGLE)) or "t" not in out:
        raise ValueError(f"columns: must name the time and at least one force column, got {columns!r}")
    return out


def check_dt_rtol(dt_rtol) -> float:
    """The sampling-step tolerance, or a ValueError naming ``dt_rtol``."""
    if (isinstance(dt_rtol, (bool, np.bool_)) or not isinstance(dt_rtol, numbers.Real)
            or not math.isfinite(dt_rtol) or dt_rtol <= 0):
        raise ValueError(f"dt_rtol: must be a positive number, got {dt_rtol!r}")
    return dt_rtol


def to_si(data: np.ndarray, cols, path: Path | None = None, lines=None) -> None:
    """Known columns to s and N, in place (the reader has checked every unit).  A value
    that the conversion would take beyond double precision (1e306 kN) is an error naming its
    line and column."""
    for j, (name, unit) in enumerate(cols):
        if name not in KNOWN_CHANNELS:
            continue
        factor = UNIT_TO_SI[KNOWN_CHANNELS[name]][unit]
        if factor > 1.0:
            bad = np.flatnonzero(np.abs(data[:, j]) > np.finfo(float).max / factor)
            if bad.size:
                i = int(bad[0])
                line = lines[i] if lines is not None else i + 2
                si = "s" if KNOWN_CHANNELS[name] == "time" else "N"
                raise ValueError(f"{path}: line {line}, column '{name}': {float(data[i, j])!r} {unit} overflows "
                                 f"when converted to {si} (x{factor:g}); expected a finite value")
        if factor != 1.0:
            data[:, j] *= factor


def to_frame(data: np.ndarray, cols, path: Path, meta: dict | None) -> pd.DataFrame:
    """Known columns first (t, force_left, force_right, friction), then the others; attrs."""
    names = [c[0] for c in cols]
    order = [c for c in ("t", "force_left", "force_right", "force", "friction") if c in names]
    order += [c for c in names if c not in order]
    df = pd.DataFrame({c: data[:, names.index(c)] for c in order})
    dt = mean_step(data[:, names.index("t")])  # more accurate than the median of rounded differences
    df.attrs.update({
        "source": str(path),
        "units": {name: unit for name, unit in cols},
        "dt_s": dt,
        "sampling_rate_hz": 1.0 / dt,
        "provenance": (meta or {}).get("provenance", "unknown"),
        "metadata": meta,
    })
    return df


