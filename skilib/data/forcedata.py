"""Leg-force recordings: loading and validation; the public path of the push-off names.

Bruzzo (2012, §5.3, figs. 31-33, table 8) drives the skier model with leg
forces recorded at 1 kHz by force plates in the ski bindings: one
representative push-off is cut out of the recording, fitted with a Fourier
series (eq. 102, judged by Pearson's r, eq. 103; see :mod:`skilib.data.fourier`)
and stretched in time to the simulated phase (fig. 32).

The thesis's recording is not public. The compendium ships a SYNTHETIC data
set in the same form (``data/synthetic_force_v2.csv``, made by
``data/generate_synthetic_force.py``); :func:`default_push_force` is the fit
of that synthetic data. A real recording in the same CSV layout goes through
exactly the same path with :func:`push_force_from_data`.

This module reads and checks a recording; push detection, the representative push and
the fitted force are in :mod:`skilib.data.push` and are re-exported here.

CSV layout
----------
Comma separated, one header line, then one row per sample. Required columns:
``t`` (time), ``force_left`` and ``force_right`` (resultant leg forces);
optional ``friction``; other columns are kept unchanged. Every required or
known column needs a unit, either in the header (``t_s``, ``force_left_N``,
or ``t [s]``) or in ``metadata["units"]``. Accepted units: s, ms (time);
N, kN (force); values are converted to s and N.

Error messages
--------------
Every problem raises ``ValueError`` whose message starts with the file path
and names the *line* of the file (1-based, the header is line 1, so data row k
is on line k + 1) and the column. Nothing is dropped or repaired silently.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "REQUIRED_COLUMNS", "LEGS", "DEFAULT_ON_N", "DEFAULT_OFF_N", "DEFAULT_MIN_DURATION_S",
    "DEFAULT_HARMONICS", "DEFAULT_DT_RTOL",
    "load_force_data", "detect_pushes", "find_pushes", "representative_push",
    "RepresentativePush", "fit_push", "PushForce", "push_force_from_data",
    "default_data_path", "default_metadata_path", "default_push_fit", "default_push_force",
]

REQUIRED_COLUMNS = ("t", "force_left", "force_right")
LEGS = ("force_left", "force_right")
# Quantity kind of every column the loader knows; these must carry units.
_KNOWN = {"t": "time", "force_left": "force", "force_right": "force", "friction": "force"}
_UNIT_TO_SI = {"time": {"s": 1.0, "ms": 1e-3}, "force": {"N": 1.0, "kN": 1e3}}
_BRACKET = re.compile(r"^(?P<name>.*?)\s*[\[(](?P<unit>[^\])]+)[\])]\s*$")

# Relative tolerance on each sampling step against the median step.
DEFAULT_DT_RTOL = 0.01


# ---------------------------------------------------------------------------
# loading
# ---------------------------------------------------------------------------

def _mean_step(t: np.ndarray) -> float:
    """Sampling step of a uniformly sampled record, from its whole span."""
    return float((t[-1] - t[0]) / (t.size - 1))


def _read_metadata(metadata, path: Path) -> dict | None:
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


def _parse_header(cells: list[str], path: Path, meta_units: dict) -> list[tuple[str, str | None]]:
    """Column names and units from the header (line 1) and metadata['units']."""
    cols = []
    for j, raw in enumerate(cells):
        h = raw.strip()
        if not h:
            raise ValueError(f"{path}: line 1, column {j + 1}: empty column name")
        name, unit = h, None
        m = _BRACKET.match(h)
        if m and m.group("name"):
            name, unit = m.group("name").strip(), m.group("unit").strip()
        elif h not in _KNOWN and "_" in h:
            stem, suffix = h.rsplit("_", 1)
            if stem in _KNOWN:
                name, unit = stem, suffix
        for key in (h, name):
            if key in meta_units:
                mu = str(meta_units[key]).strip()
                if unit is not None and mu != unit:
                    raise ValueError(
                        f"{path}: line 1, column '{h}': unit '{unit}' in the header but "
                        f"'{mu}' in the metadata")
                unit = mu
        cols.append((name, unit))
    names = [c[0] for c in cols]
    for j, nm in enumerate(names):
        if nm in names[:j]:
            raise ValueError(f"{path}: line 1, column {j + 1}: duplicated column '{nm}'")
    missing = [c for c in REQUIRED_COLUMNS if c not in names]
    if missing:
        raise ValueError(
            f"{path}: line 1 (header): missing required column(s) {missing}; "
            f"found {[c.strip() for c in cells]}")
    for (name, unit), raw in zip(cols, cells):
        if name not in _KNOWN:
            continue
        kind = _KNOWN[name]
        if unit is None:
            raise ValueError(
                f"{path}: line 1, column '{raw.strip()}': no unit given; write it in the header "
                f"(e.g. '{name}_{next(iter(_UNIT_TO_SI[kind]))}') or in metadata['units']")
        if unit not in _UNIT_TO_SI[kind]:
            raise ValueError(
                f"{path}: line 1, column '{raw.strip()}': unknown {kind} unit '{unit}' "
                f"(accepted: {sorted(_UNIT_TO_SI[kind])})")
    return cols


def _parse_cell(cell: str, path: Path, line: int, col: str) -> float:
    s = cell.strip()
    if not s:
        raise ValueError(f"{path}: line {line}, column '{col}': empty cell (missing value)")
    try:
        v = float(s)
    except ValueError:
        raise ValueError(f"{path}: line {line}, column '{col}': non-numeric value {cell!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{path}: line {line}, column '{col}': non-finite value {cell!r}")
    return v


def _check_dt_rtol(dt_rtol) -> float:
    if not math.isfinite(dt_rtol) or dt_rtol <= 0:
        raise ValueError(f"dt_rtol: must be a positive number, got {dt_rtol!r}")
    return dt_rtol


def _decode(raw: bytes, path: Path, meta: dict | None) -> str:
    """The file's text, after the checks on its bytes (empty file, metadata sha256, UTF-8)."""
    if not raw.strip():
        raise ValueError(f"{path}: file is empty (no header line, no data)")
    if meta and "sha256" in meta:
        digest = hashlib.sha256(raw).hexdigest()
        if digest != meta["sha256"]:
            raise ValueError(
                f"{path}: sha256 {digest} does not match the metadata's {meta['sha256']}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc})") from None


def _read_columns(reader, path: Path, meta: dict | None) -> list[tuple[str, str | None]]:
    """(name, unit) of every column: the header line, checked against the metadata."""
    header = next(reader)
    meta_units = dict(meta.get("units", {})) if meta else {}
    cols = _parse_header(header, path, meta_units)
    if meta and "columns" in meta and [c.strip() for c in header] != list(meta["columns"]):
        raise ValueError(
            f"{path}: line 1 (header): columns {header} differ from the metadata's "
            f"{meta['columns']}")
    return cols


def _read_rows(reader, path: Path, n_columns: int) -> tuple[list[list[str]], list[int]]:
    """The data rows as text cells, each with its line number in the file."""
    rows, lines = [], []
    for row in reader:
        line = reader.line_num
        if not row or all(not c.strip() for c in row):
            raise ValueError(f"{path}: line {line}: empty line")
        if len(row) != n_columns:
            raise ValueError(
                f"{path}: line {line}: {len(row)} fields, the header has {n_columns}")
        rows.append(row)
        lines.append(line)
    if len(rows) < 2:
        raise ValueError(f"{path}: {len(rows)} data row(s); at least 2 are needed "
                         "to define a sampling step")
    return rows, lines


def _to_numbers(rows, lines, names, path: Path) -> np.ndarray:
    """The cells as one float array; a bad cell is reported with its line and column."""
    try:
        data = np.array(rows, dtype=float)
    except ValueError:
        data = None
    if data is None or not np.all(np.isfinite(data)):
        # cell by cell only on failure, to name the bad cell; the array conversion is the fast path
        for row, line in zip(rows, lines):
            for cell, name in zip(row, names):
                _parse_cell(cell, path, line, name)
        raise AssertionError("unreachable: a bad cell must have been found")
    return data


def _to_si(data: np.ndarray, cols) -> None:
    """Known columns to s and N, in place (``_parse_header`` has checked every unit)."""
    for j, (name, unit) in enumerate(cols):
        if name in _KNOWN:
            data[:, j] *= _UNIT_TO_SI[_KNOWN[name]][unit]


def _check_sampling(t: np.ndarray, lines, path: Path, dt_rtol: float, meta: dict | None) -> None:
    """Time [s] strictly increasing, uniformly sampled, at the metadata's rate if it gives one."""
    steps = np.diff(t)
    bad = np.flatnonzero(steps <= 0)
    if bad.size:
        i = int(bad[0]) + 1
        what = "repeats" if steps[i - 1] == 0 else "is smaller than"
        raise ValueError(
            f"{path}: line {lines[i]}, column 't': time {float(t[i])!r} s {what} the previous "
            f"row's time {float(t[i - 1])!r} s (line {lines[i - 1]}); time must increase strictly")
    # the median, so that one odd step is measured against the others rather than shifting them
    dt = float(np.median(steps))
    dev = np.abs(steps - dt) / dt
    bad = np.flatnonzero(dev > dt_rtol)
    if bad.size:
        i = int(bad[0]) + 1
        raise ValueError(
            f"{path}: line {lines[i]}, column 't': sampling step {float(steps[i - 1])!r} s differs from "
            f"the median step {dt!r} s by more than dt_rtol={dt_rtol} (non-uniform sampling)")
    if meta and "sampling_rate_hz" in meta:
        fs = float(meta["sampling_rate_hz"])
        if not abs(fs * dt - 1.0) <= dt_rtol:
            raise ValueError(
                f"{path}: column 't': sampling rate {1.0 / dt!r} Hz differs from the metadata's "
                f"{fs!r} Hz")


def _to_frame(data: np.ndarray, cols, path: Path, meta: dict | None) -> pd.DataFrame:
    """Known columns first (t, force_left, force_right, friction), then the others; attrs."""
    names = [c[0] for c in cols]
    order = [c for c in ("t", "force_left", "force_right", "friction") if c in names]
    order += [c for c in names if c not in order]
    df = pd.DataFrame({c: data[:, names.index(c)] for c in order})
    dt = _mean_step(data[:, names.index("t")])  # more accurate than the median of rounded differences
    df.attrs.update({
        "source": str(path),
        "units": {name: unit for name, unit in cols},
        "dt_s": dt,
        "sampling_rate_hz": 1.0 / dt,
        "provenance": (meta or {}).get("provenance", "unknown"),
        "metadata": meta,
    })
    return df


def load_force_data(path, metadata=None, *, dt_rtol: float = DEFAULT_DT_RTOL) -> pd.DataFrame:
    """Load and validate a leg-force recording (CSV, see the module docstring).

    Parameters
    ----------
    path : str or Path
        The CSV file.
    metadata : dict, str or Path, optional
        A metadata mapping or the path of a JSON file holding one. Used keys:
        ``units`` (column -> unit, for columns without a unit in the header),
        ``sha256`` (checked against the file's bytes), ``sampling_rate_hz``
        (checked against the time column, within ``dt_rtol``), ``columns``
        (checked against the header) and ``provenance``.
    dt_rtol : float
        Every sampling step must lie within ``dt_rtol`` (relative) of the
        median step.

    Returns
    -------
    pandas.DataFrame
        One row per sample, one column per variable, in s and N:
        ``t, force_left, force_right`` [, ``friction``] then any other columns.
        ``df.attrs`` holds ``source``, ``units`` (as given), ``dt_s``,
        ``sampling_rate_hz``, ``provenance`` and ``metadata``.

    Raises
    ------
    ValueError
        For an empty file, a missing or duplicated column, a column without a
        (known) unit, a row of the wrong length, an empty, non-numeric or
        non-finite cell, a repeated or decreasing time, non-uniform sampling,
        fewer than two rows, or a mismatch with the metadata. The message
        names the file, the line (1-based, header = line 1) and the column.
    FileNotFoundError
        If ``path`` does not exist.
    """
    path = Path(path)
    if path.suffix.lower() == ".c3d":  # force-plate channels of a C3D file (skilib.data.c3d)
        from .c3d import read_force_data
        return read_force_data(path, metadata, dt_rtol=dt_rtol)
    dt_rtol = _check_dt_rtol(dt_rtol)
    raw = path.read_bytes()  # FileNotFoundError as is, before any metadata problem
    meta = _read_metadata(metadata, path)
    reader = csv.reader(io.StringIO(_decode(raw, path, meta), newline=""))
    cols = _read_columns(reader, path, meta)
    names = [c[0] for c in cols]
    rows, lines = _read_rows(reader, path, len(cols))
    data = _to_numbers(rows, lines, names, path)
    _to_si(data, cols)
    _check_sampling(data[:, names.index("t")], lines, path, dt_rtol, meta)
    return _to_frame(data, cols, path, meta)


def default_data_path() -> Path:
    """Path of the committed SYNTHETIC force data set (``data/synthetic_force_v2.csv``)."""
    p = Path(__file__).resolve().parents[2] / "data" / "synthetic_force_v2.csv"
    if not p.is_file():
        raise FileNotFoundError(
            f"{p}: the synthetic force data set is missing; regenerate it with "
            "`python data/generate_synthetic_force.py` from the repository root")
    return p


def default_metadata_path() -> Path:
    """Path of the metadata JSON of the committed synthetic data set."""
    p = default_data_path().with_suffix(".json")
    if not p.is_file():
        raise FileNotFoundError(f"{p}: metadata of the synthetic force data set is missing")
    return p


# Push detection, the representative push-off and its fitted force live in ``push``; they
# are re-exported here, the public path of every force-data name.  Imported last: ``push``
# itself imports the loader and the constants above.
from .push import (  # noqa: E402
    DEFAULT_HARMONICS, DEFAULT_MIN_DURATION_S, DEFAULT_OFF_N, DEFAULT_ON_N, PushForce, RepresentativePush, _baseline, _cached_push_fit, _file_stamp, _push_fit,
    default_push_fit, default_push_force, detect_pushes, find_pushes, fit_push, push_force_from_data,
    representative_push,
)
