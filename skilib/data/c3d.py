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

Checked reading and writing
    Every C3D file is read through :func:`read_c3d`, which compares the frames and analog
    samples ezc3d read with those the header declares (ezc3d alone reads a truncated file's
    first frames without a word) and names the file in every error.  Every C3D file is
    written through ``skilib.data.files.write_atomic``: never over an existing file without
    ``overwrite=True``, read back before it takes its name.
"""
from __future__ import annotations

import hashlib
import struct
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..engine.validation import check_bool, check_number
from .channels import (DEFAULT_DT_RTOL, KNOWN_CHANNELS, REQUIRED_COLUMNS, UNIT_TO_SI, check_dt_rtol, metadata_rate,
                       read_metadata, to_frame, to_si)
from .files import check_target, write_atomic

__all__ = ["ezc3d_module", "write_ezc3d", "uniform_step", "MAX_FRAME", "C3DLayout", "c3d_layout", "read_c3d", "write_force_data",
           "read_force_data"]

#: the largest frame number a C3D header holds (16 bits); the last frame of a file written here
MAX_FRAME = 65535
#: the names a C3D file written here may have (any case: ``run.C3D`` is a C3D name)
C3D_SUFFIXES = (".c3d",)
#: the largest |value| [N] a force channel written here may hold: C3D stores float32, and a
#: larger force is a unit or data error, not a measurement
MAX_FORCE = 1e12

def ezc3d_module():
    """The ezc3d module (the ``c3d`` extra), or an ImportError that says how to install it."""
    try:
        import ezc3d
    except ImportError:  # pragma: no cover - the c3d extra is part of `make test`
        raise ImportError("C3D files need ezc3d: pip install 'skilib[c3d]' (or pip install ezc3d)") from None
    return ezc3d


def write_ezc3d(c, path) -> None:
    """``c.write`` to ``path`` exactly: ezc3d appends ".c3d" to a name that does not end in it
    (in lower case), so such a name is written beside and moved onto ``path``."""
    path = Path(path)
    real = path if path.name.endswith(".c3d") else path.with_name(path.name + ".c3d")
    c.write(str(real))
    if real != path and real.exists():
        real.replace(path)


def uniform_step(t, what) -> float:
    """The step of the uniform time grid ``t`` [s]; ValueError naming ``what`` otherwise."""
    dt = np.diff(t)
    if len(t) < 2 or np.any(dt <= 0) or np.ptp(dt) > 1e-9 * max(1.0, abs(t[-1])):
        raise ValueError(f"{what}: C3D needs a uniform time grid; give the run a fixed dt_out (got steps "
                         f"{dt.min() if len(dt) else None!r} … {dt.max() if len(dt) else None!r} s)")
    return float((t[-1] - t[0]) / (len(t) - 1))


# ---------------------------------------------------------------------------
# checked reading
# ---------------------------------------------------------------------------

class C3DLayout(NamedTuple):
    """What a C3D file's header declares (first frame 0-based, as ezc3d reports it)."""

    first_frame: int
    frames: int
    points: int
    analogs_per_frame: int
    #: byte offset of the first frame
    data_start: int
    #: 4 (float) or 2 (integer) bytes per stored value
    value_bytes: int

    @property
    def size(self) -> int:
        """The bytes a complete file needs: up to the end of its last frame."""
        return self.data_start + self.frames * (4 * self.points + self.analogs_per_frame) * self.value_bytes


def c3d_layout(raw: bytes, path) -> C3DLayout:
    """The header of the C3D file ``path`` whose bytes are ``raw``, checked against the file's
    size: a ValueError naming the file for an empty, short, foreign or truncated file."""
    if not raw:
        raise ValueError(f"{path}: empty file (0 bytes), not a C3D file")
    if len(raw) < 512:
        raise ValueError(f"{path}: {len(raw)} bytes, shorter than the 512-byte C3D header (truncated or not C3D)")
    if raw[1] != 0x50:
        raise ValueError(f"{path}: not a C3D file (header byte 2 is {raw[1]}, a C3D file has 80)")
    param = (raw[0] - 1) * 512
    if raw[0] < 2 or len(raw) < param + 4:
        raise ValueError(f"{path}: not a C3D file or truncated (parameter section at block {raw[0]}, the file "
                         f"has {len(raw)} bytes)")
    processor = raw[param + 3] - 83  # 1 Intel, 2 DEC, 3 MIPS
    if processor not in (1, 2, 3):
        raise ValueError(f"{path}: not a C3D file (processor type {raw[param + 3]} in the parameter section; "
                         "84, 85 or 86 expected)")
    end = ">" if processor == 3 else "<"
    words = struct.unpack(end + "9H", raw[2:20])  # header words 2-10
    points, analogs_per_frame, first, last, data_block = words[0], words[1], words[2], words[3], words[7]
    sign = raw[12 if processor == 3 else (13 if processor == 2 else 15)] & 0x80  # of the scale factor
    value_bytes = 4 if sign else 2
    if first < 1 or last < first - 1 or data_block < 2:
        raise ValueError(f"{path}: C3D header: frames {first}..{last}, data at block {data_block}: not a valid "
                         "C3D header")
    layout = C3DLayout(first - 1, last - first + 1, points, analogs_per_frame, (data_block - 1) * 512, value_bytes)
    if len(raw) < layout.size:
        whole = max(0, (len(raw) - layout.data_start)) // max(1, (4 * points + analogs_per_frame) * value_bytes)
        raise ValueError(f"{path}: truncated: the header declares {layout.frames} frames ({layout.size} bytes), "
                         f"the file has {len(raw)} bytes (room for {whole} frames)")
    return layout


def _check_frames(c, layout: C3DLayout, path) -> None:
    """The frames and analog samples ezc3d read (``c``) are those the header declares
    (``layout``), or a ValueError naming the file."""
    frames = c["data"]["points"].shape[2]
    if frames != layout.frames:
        raise ValueError(f"{path}: {frames} frames read, the header declares {layout.frames}")
    an = c["data"]["analogs"]
    channels = an.shape[1] if an.ndim == 3 else 0
    if channels:
        if layout.analogs_per_frame % channels:
            raise ValueError(f"{path}: {layout.analogs_per_frame} analog values per frame in the header do not "
                             f"divide among {channels} analog channels")
        expected = layout.frames * (layout.analogs_per_frame // channels)
        if an.shape[2] != expected:
            raise ValueError(f"{path}: {an.shape[2]} analog samples read per channel, the header declares "
                             f"{expected} ({layout.frames} frames x {layout.analogs_per_frame // channels})")


def _open(path: Path):
    """``path``'s bytes, or FileNotFoundError/IsADirectoryError/OSError naming it."""
    if path.is_dir():
        raise IsADirectoryError(f"{path}: is a folder, not a C3D file")
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such C3D file")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise OSError(f"{path}: cannot read the C3D file: {exc.strerror or exc}") from exc


def _parse(path: Path, raw: bytes):
    """The ezc3d object of the file ``path`` (its bytes ``raw``), its frames checked."""
    layout = c3d_layout(raw, path)
    ezc3d = ezc3d_module()
    try:
        c = ezc3d.c3d(str(path))
    except Exception as exc:  # ezc3d raises bare OSErrors/RuntimeErrors ("iostream error")
        raise ValueError(f"{path}: not a readable C3D file ({type(exc).__name__}: {exc})") from exc
    _check_frames(c, layout, path)
    return c


def read_c3d(path):
    """The ``ezc3d.c3d`` object of the file ``path``, read and checked: a missing file
    (FileNotFoundError), a folder (IsADirectoryError), an empty, foreign or truncated file,
    or fewer frames or analog samples read than its header declares (ValueError) are errors
    naming the file."""
    path = Path(path)
    return _parse(path, _open(path))


# ---------------------------------------------------------------------------
# force-plate channels
# ---------------------------------------------------------------------------

def write_force_data(df: pd.DataFrame, path, point_rate: float | None = None, *, overwrite: bool = False) -> Path:
    """Write force channels (a ``load_force_data`` frame: t [s] and forces [N]) as C3D analogs.

    Every column but ``t`` becomes an analog channel in N; the analog rate is 1/Δt and the
    point rate ``point_rate`` (default: the analog rate / 10); the file holds no markers.

    Refused before anything is written (``ValueError`` naming the column, the sample and its
    time): not a DataFrame with a column ``t`` and at least one channel; repeated column names;
    a column that is not numbers; fewer than 2 samples; a time or a value that is NaN or
    infinite, or a value beyond ±``MAX_FORCE`` N (C3D would store it, and it would not read
    back as data); a name not ending in ``.c3d`` (any case).

    Nothing is trimmed, padded or shifted: the number of samples must be a multiple of the
    analog samples per point frame (analog rate / point rate, an integer), the first time a
    whole number of point frames (C3D stores the start as a frame number), and the last
    frame number at most ``MAX_FRAME``; otherwise a ValueError says by how much.

    The file is written atomically (``skilib.data.files.write_atomic``): an existing ``path``
    is replaced only with ``overwrite=True``, its folder must exist, and the file is read back
    (frame count, first frame, every value to float32) before it takes the name ``path``.
    Returns ``path``.
    """
    ezc3d = ezc3d_module()
    overwrite = check_bool("overwrite", overwrite)
    path = check_target(path, overwrite=overwrite, what="C3D file", suffixes=C3D_SUFFIXES)
    t, chans, values = _checked_force_frame(df)
    rate = 1.0 / uniform_step(t, str(path))
    if point_rate is None:
        ratio = 10
    else:
        point_rate = check_number("point_rate", point_rate, positive=True, unit="Hz")
        r = rate / point_rate
        ratio = int(round(r))
        if ratio < 1 or abs(r - ratio) > 1e-9 * r:
            raise ValueError(f"point_rate: {point_rate!r} Hz must divide the analog rate {rate!r} Hz a whole "
                             f"number of times (got {r!r})")
    n = len(t)
    if n % ratio:
        raise ValueError(f"df: {n} samples are not a multiple of the {ratio} analog samples per point frame "
                         f"(analog rate {rate!r} Hz, point rate {rate / ratio!r} Hz); {path} would lose the last "
                         f"{n % ratio}: cut or pad the record to a multiple of {ratio} samples, or choose point_rate")
    frames = n // ratio
    start = t[0] * rate / ratio
    first = int(round(start))
    if first < 0 or abs(start - first) > 1e-6:
        raise ValueError(f"df: column 't' starts at {float(t[0])!r} s, not a whole number (>= 0) of point frames of "
                         f"{ratio / rate!r} s; {path} stores the start as a frame number")
    if first + frames > MAX_FRAME:
        raise ValueError(f"df: {frames} point frames from frame {first + 1}: a C3D header counts frames up to "
                         f"{MAX_FRAME} ({path}); split the record or lower the point rate")
    c = ezc3d.c3d()
    P = c["parameters"]
    P["POINT"]["RATE"]["value"] = [rate / ratio]
    P["ANALOG"]["RATE"]["value"] = [rate]
    P["ANALOG"]["LABELS"]["value"] = chans
    P["ANALOG"]["UNITS"]["value"] = ["N"] * len(chans)
    c["data"]["points"] = np.zeros((4, 0, frames))
    c["data"]["analogs"] = values[None].copy()
    c["header"]["points"]["first_frame"] = first

    def verify(tmp):
        back = read_c3d(tmp)
        got = back["data"]["analogs"]
        if int(back["header"]["points"]["first_frame"]) != first:
            raise ValueError(f"first frame {back['header']['points']['first_frame']} read, {first} written")
        if got.shape != (1, len(chans), n):
            raise ValueError(f"analogs of shape {got.shape} read, {(1, len(chans), n)} written")
        if not np.array_equal(got[0], values.astype(np.float32), equal_nan=True):
            raise ValueError("the analog values read differ from those written (to float32)")

    return write_atomic(path, lambda tmp: write_ezc3d(c, tmp), overwrite=overwrite, verify=verify, what="C3D file",
                        suffixes=C3D_SUFFIXES)


def _checked_force_frame(df):
    """(t, channel names, values (channels × samples)) of the frame ``write_force_data`` is
    given; a ValueError naming the column and the sample for anything that is not force data."""
    if not isinstance(df, pd.DataFrame) or "t" not in df.columns:
        raise ValueError(f"df: expected a DataFrame with a column 't' (as load_force_data returns), got "
                         f"{type(df).__name__}")
    names = [str(c) for c in df.columns]
    twice = sorted({c for c in names if names.count(c) > 1})
    if twice:
        raise ValueError(f"df: column(s) {twice} appear more than once; a C3D channel needs one name")
    chans = [c for c in df.columns if c != "t"]
    if not chans:
        raise ValueError("df: no force column besides 't'; force data needs at least one channel")
    text = [str(c) for c in df.columns if not (pd.api.types.is_numeric_dtype(df[c])
                                                and not pd.api.types.is_bool_dtype(df[c]))]
    if text:
        raise ValueError(f"df: column(s) {text} are not numbers (dtype {[str(df[c].dtype) for c in text]}); "
                         "force data is numbers in N")
    if len(df) < 2:
        raise ValueError(f"df: force data needs at least 2 samples, got {len(df)}")
    t = df["t"].to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(t))
    if bad.size:
        raise ValueError(f"df: column 't', sample {int(bad[0])}: time {float(t[bad[0]])!r} is not a finite number")
    values = df[chans].to_numpy(dtype=float).T
    bad = np.argwhere(~(np.abs(values) <= MAX_FORCE))
    if bad.size:
        j, i = (int(v) for v in bad[0])
        raise ValueError(f"df: column '{chans[j]}', sample {i} (t = {float(t[i])!r} s): {float(values[j, i]):g} N is not a force "
                         f"(NaN, infinite or beyond ±{MAX_FORCE:g} N); C3D would store it as it is")
    return t, chans, values


def read_force_data(path, metadata=None, *, dt_rtol: float | None = None) -> pd.DataFrame:
    """Force-plate channels of a C3D file as ``load_force_data`` returns them (see the module).

    The checks are those of the CSV path (``skilib.data.forcedata``): required channels,
    units, finite values, at least two samples, the metadata's sha256 and sampling rate;
    each error names the file, the channel and the frame.  The file is read through
    :func:`read_c3d`: a missing, empty, foreign or truncated file is an error naming it.
    """
    path = Path(path)
    dt_rtol = check_dt_rtol(DEFAULT_DT_RTOL if dt_rtol is None else dt_rtol)
    raw = _open(path)
    meta = read_metadata(metadata, path)
    if meta and "sha256" in meta:
        digest = hashlib.sha256(raw).hexdigest()
        if digest != meta["sha256"]:
            raise ValueError(f"{path}: sha256 {digest} does not match the metadata's {meta['sha256']}")
    c = _parse(path, raw)
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
        fs = metadata_rate(meta, path)
        if not abs(fs / rate - 1.0) <= dt_rtol:
            raise ValueError(f"{path}: ANALOG:RATE: sampling rate {rate!r} Hz differs from the metadata's {fs!r} Hz")
    return to_frame(full, cols, path, meta)
