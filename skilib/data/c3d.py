"""C3D in and out of force-plate channels (and the ezc3d access every C3D writer shares).

C3D (www.c3d.org) is the biomechanics lab's file format: 3-D marker trajectories
(``POINT``), analog channels (``ANALOG``, e.g. force plates), events and a parameter
section of named groups.  It is read and written here with ``ezc3d`` (Michaud & Begon
2021, *J. Open Source Softw.* 6, 2911; the ``c3d`` extra).  C3D stores values as 32-bit
floats: what comes back from a file equals what went in to float32 precision (relative
6e-8), not to double precision.

A run of the thesis's skier as a C3D file (markers, analogs, events) is
``skilib.models.thesis.c3d``.

Import of force data (:func:`read_force_data`, through ``load_force_data``)
    Analog channels labelled ``force_left``, ``force_right`` (required) and ``friction``
    (optional), units in ``ANALOG:UNITS`` or ``metadata["units"]`` (N or kN); time from
    ``ANALOG:RATE`` and the header's first frame.  Problems raise ``ValueError`` naming the
    file, the channel and the frame, as the CSV path names file, column and line.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

from .channels import (DEFAULT_DT_RTOL, KNOWN_CHANNELS, REQUIRED_COLUMNS, UNIT_TO_SI, check_dt_rtol, read_metadata,
                       to_frame, to_si)

__all__ = ["ezc3d_module", "uniform_step", "write_force_data", "read_force_data"]

def ezc3d_module():
    """The ezc3d module (the ``c3d`` extra), or an ImportError that says how to install it."""
    try:
        import ezc3d
    except ImportError:  # pragma: no cover - the c3d extra is part of `make test`
        raise ImportError("C3D files need ezc3d: pip install 'skilib[c3d]' (or pip install ezc3d)") from None
    return ezc3d


def uniform_step(t, what) -> float:
    """The step of the uniform time grid ``t`` [s]; ValueError naming ``what`` otherwise."""
    dt = np.diff(t)
    if len(t) < 2 or np.any(dt <= 0) or np.ptp(dt) > 1e-9 * max(1.0, abs(t[-1])):
        raise ValueError(f"{what}: C3D needs a uniform time grid; give the run a fixed dt_out (got steps "
                         f"{dt.min() if len(dt) else None!r} … {dt.max() if len(dt) else None!r} s)")
    return float((t[-1] - t[0]) / (len(t) - 1))


# ---------------------------------------------------------------------------
# force-plate channels
# ---------------------------------------------------------------------------

def write_force_data(df: pd.DataFrame, path, point_rate: float | None = None) -> Path:
    """Write force channels (a ``load_force_data`` frame: t [s] and forces [N]) as C3D analogs.

    Every column but ``t`` becomes an analog channel in N; the analog rate is 1/Δt and the
    point rate ``point_rate`` (default: the analog rate / 10, an integer divisor is needed);
    the file holds no markers.
    """
    ezc3d = ezc3d_module()
    path = Path(path)
    t = df["t"].to_numpy(dtype=float)
    rate = 1.0 / uniform_step(t, str(path))
    ratio = 10 if point_rate is None else int(round(rate / point_rate))
    chans = [c for c in df.columns if c != "t"]
    n = (len(t) // ratio) * ratio
    c = ezc3d.c3d()
    P = c["parameters"]
    P["POINT"]["RATE"]["value"] = [rate / ratio]
    P["ANALOG"]["RATE"]["value"] = [rate]
    P["ANALOG"]["LABELS"]["value"] = chans
    P["ANALOG"]["UNITS"]["value"] = ["N"] * len(chans)
    c["data"]["points"] = np.zeros((4, 0, n // ratio))
    c["data"]["analogs"] = df[chans].to_numpy(dtype=float)[:n].T[None].copy()
    first = int(round(t[0] * rate / ratio))
    c["header"]["points"]["first_frame"] = first
    c.write(str(path))
    return path


def read_force_data(path, metadata=None, *, dt_rtol: float | None = None) -> pd.DataFrame:
    """Force-plate channels of a C3D file as ``load_force_data`` returns them (see the module).

    The checks are those of the CSV path (``skilib.data.forcedata``): required channels,
    units, finite values, at least two samples, the metadata's sha256 and sampling rate;
    each error names the file, the channel and the frame.
    """
    ezc3d = ezc3d_module()
    path = Path(path)
    dt_rtol = check_dt_rtol(DEFAULT_DT_RTOL if dt_rtol is None else dt_rtol)
    raw = path.read_bytes()
    meta = read_metadata(metadata, path)
    if meta and "sha256" in meta:
        digest = hashlib.sha256(raw).hexdigest()
        if digest != meta["sha256"]:
            raise ValueError(f"{path}: sha256 {digest} does not match the metadata's {meta['sha256']}")
    try:
        c = ezc3d.c3d(str(path))
    except Exception as exc:  # ezc3d raises plain RuntimeErrors for a bad file
        raise ValueError(f"{path}: not a readable C3D file ({exc})") from None
    P = c["parameters"]
    labels = [s.strip() for s in P["ANALOG"]["LABELS"]["value"]]
    units = [s.strip() for s in P["ANALOG"]["UNITS"]["value"]] + [""] * len(labels)
    meta_units = (meta or {}).get("units", {})
    for j, nm in enumerate(labels):
        if nm in labels[:j]:
            raise ValueError(f"{path}: analog channel {j + 1}: duplicated channel '{nm}'")
    missing = [c_ for c_ in REQUIRED_COLUMNS if c_ != "t" and c_ not in labels]
    if missing:
        raise ValueError(f"{path}: ANALOG:LABELS: missing required channel(s) {missing}; found {labels}")
    rate = float(P["ANALOG"]["RATE"]["value"][0])
    data = c["data"]["analogs"][0].T.astype(float)  # (samples, channels)
    if data.shape[0] < 2:
        raise ValueError(f"{path}: {data.shape[0]} analog frame(s); at least 2 are needed to define a sampling step")
    cols = []
    for j, nm in enumerate(labels):
        unit = units[j] or None
        for key in (nm,):
            if key in meta_units:
                mu = str(meta_units[key]).strip()
                if unit is not None and mu != unit:
                    raise ValueError(f"{path}: analog channel '{nm}': unit '{unit}' in ANALOG:UNITS but "
                                     f"'{mu}' in the metadata")
                unit = mu
        if nm in KNOWN_CHANNELS:
            kind = KNOWN_CHANNELS[nm]
            if unit is None:
                raise ValueError(f"{path}: analog channel '{nm}': no unit given; write it in ANALOG:UNITS "
                                 f"(e.g. '{next(iter(UNIT_TO_SI[kind]))}') or in metadata['units']")
            if unit not in UNIT_TO_SI[kind]:
                raise ValueError(f"{path}: analog channel '{nm}': unknown {kind} unit '{unit}' "
                                 f"(accepted: {sorted(UNIT_TO_SI[kind])})")
        cols.append((nm, unit))
    bad = np.argwhere(~np.isfinite(data))
    if bad.size:
        i, j = (int(v) for v in bad[0])
        ratio = max(1, int(round(rate / float(P["POINT"]["RATE"]["value"][0]))))
        raise ValueError(f"{path}: analog frame {i + 1} (point frame {i // ratio + 1}), channel '{labels[j]}': "
                         f"non-finite value {data[i, j]!r}")
    first = int(c["header"]["points"]["first_frame"])
    point_rate = float(P["POINT"]["RATE"]["value"][0])
    t = first / point_rate + np.arange(data.shape[0]) / rate
    full = np.column_stack([t, data])
    cols = [("t", "s")] + cols
    to_si(full, cols)
    if meta and "sampling_rate_hz" in meta:
        fs = float(meta["sampling_rate_hz"])
        if not abs(fs / rate - 1.0) <= dt_rtol:
            raise ValueError(f"{path}: ANALOG:RATE: sampling rate {rate!r} Hz differs from the metadata's {fs!r} Hz")
    return to_frame(full, cols, path, meta)
