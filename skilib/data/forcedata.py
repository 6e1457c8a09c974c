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
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .channels import (DEFAULT_DT_RTOL, KNOWN_CHANNELS, LEGS, REQUIRED_COLUMNS, SINGLE, UNIT_TO_SI,
                       check_dt_rtol, column_mapping, metadata_rate, read_metadata, to_frame, to_si)

__all__ = ["load_force_data", "default_data_path", "default_metadata_path"]

_BRACKET = re.compile(r"^(?P<name>.*?)\s*[\[(](?P<unit>[^\])]+)[\])]\s*$")
# a number as the fast reader (pandas' C parser) reads it: ASCII digits, an optional point and
# exponent; Python's float() also takes '1_000', '１２' and other digits, which are refused
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.ASCII | re.IGNORECASE)



# ---------------------------------------------------------------------------
# loading
# ---------------------------------------------------------------------------

def _split_unit(h: str, known_stems) -> tuple[str, str | None]:
    """(name, unit) of a header cell: 'name [unit]', 'name (unit)' or 'stem_unit' for a known stem."""
    m = _BRACKET.match(h)
    if m and m.group("name"):
        return m.group("name").strip(), m.group("unit").strip()
    if h not in known_stems and "_" in h:
        stem, suffix = h.rsplit("_", 1)
        if stem in known_stems:
            return stem, suffix
    return h, None


def _parse_header(cells: list[str], path: Path, meta_units: dict,
                  mapping: dict | None = None) -> list[tuple[str, str | None]]:
    """Column names and units from the header (line 1) and metadata['units']; ``mapping``
    {loader name: file's name} renames the file's columns."""
    inverse = {v: k for k, v in (mapping or {}).items()}
    cols = []
    for j, raw in enumerate(cells):
        h = raw.strip()
        if not h:
            raise ValueError(f"{path}: line 1, column {j + 1}: empty column name")
        if h in inverse:  # the whole cell is mapped: a unit may still follow as '_unit'
            name, unit = inverse[h], None
            if "_" in h and h.rsplit("_", 1)[1] in UNIT_TO_SI[KNOWN_CHANNELS[name]]:
                unit = h.rsplit("_", 1)[1]
            m = _BRACKET.match(h)
            if m and m.group("name"):
                unit = m.group("unit").strip()
        else:
            name, unit = _split_unit(h, KNOWN_CHANNELS if mapping is None else inverse)
            if mapping is not None:
                if name in inverse:
                    name = inverse[name]
                elif name in KNOWN_CHANNELS:  # a loader name the mapping does not use: an ordinary column
                    name = h
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
    if mapping:
        absent = [v for v in mapping.values() if not any(
            v in (raw.strip(), _split_unit(raw.strip(), inverse)[0]) for raw in cells)]
        if absent:
            raise ValueError(f"{path}: line 1 (header): column(s) {absent} given in columns= are not in the "
                             f"header {[c.strip() for c in cells]}")
        required = ["t"] + [c for c in ("force_left", "force_right", SINGLE) if c in mapping]
    elif SINGLE in names and not any(c in names for c in LEGS):
        required = ["t", SINGLE]  # a single-plate recording
    else:
        required = list(REQUIRED_COLUMNS)
    missing = [c for c in required if c not in names]
    if missing:
        raise ValueError(
            f"{path}: line 1 (header): missing required column(s) {missing}; "
            f"found {[c.strip() for c in cells]}")
    for (name, unit), raw in zip(cols, cells):
        if name not in KNOWN_CHANNELS:
            continue
        kind = KNOWN_CHANNELS[name]
        if unit is None:
            raise ValueError(
                f"{path}: line 1, column '{raw.strip()}': no unit given; write it in the header "
                f"(e.g. '{name}_{next(iter(UNIT_TO_SI[kind]))}') or in metadata['units']")
        if unit not in UNIT_TO_SI[kind]:
            raise ValueError(
                f"{path}: line 1, column '{raw.strip()}': unknown {kind} unit '{unit}' "
                f"(accepted: {sorted(UNIT_TO_SI[kind])})")
    return cols


def _parse_cell(cell: str, path: Path, line: int, col: str) -> float:
    """One cell as a float: a plain decimal number (ASCII digits, optional sign, point and
    exponent, surrounding blanks); anything else is a ValueError naming line and column."""
    s = cell.strip(" \t")
    if not s:
        raise ValueError(f"{path}: line {line}, column '{col}': empty cell (missing value)")
    if _NON_FINITE.fullmatch(s):
        raise ValueError(f"{path}: line {line}, column '{col}': non-finite value {cell!r}")
    if not _NUMBER.fullmatch(s):
        hint = " (digit separators such as '_' are not numbers here)" if "_" in s else ""
        raise ValueError(f"{path}: line {line}, column '{col}': non-numeric value {cell!r}{hint}")
    v = float(s)
    if not math.isfinite(v):
        raise ValueError(f"{path}: line {line}, column '{col}': non-finite value {cell!r} (beyond double precision)")
    return v


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


def _read_columns(reader, path: Path, meta: dict | None, mapping=None) -> list[tuple[str, str | None]]:
    """(name, unit) of every column: the header line, checked against the metadata."""
    header = next(reader)
    meta_units = dict(meta.get("units", {})) if meta else {}
    cols = _parse_header(header, path, meta_units, mapping)
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
    """The cells as one float array; a bad cell is reported with its line and column.  Every
    cell is checked (:func:`_parse_cell`): this reader runs only when the fast one refused the
    file, and float() alone would take '1_000' as 1000."""
    return np.array([[_parse_cell(cell, path, line, name) for cell, name in zip(row, names)]
                     for row, line in zip(rows, lines)], dtype=float)


# pandas 3 parses floats correctly rounded by default (and deprecates the option); pandas 2
# needs float_precision="round_trip" for that
_EXACT = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def _fast_numbers(raw: bytes, n_columns: int) -> np.ndarray | None:
    """The data rows with pandas' C parser (at its speed and memory), or None if anything
    is off (a bad, empty, short, long or non-finite cell): the careful reader then names it.
    Its float parser is correctly rounded, as Python's ``float`` (a test compares them)."""
    try:
        df = pd.read_csv(io.BytesIO(raw), header=None, skiprows=1, dtype=np.float64, engine="c",
                         skip_blank_lines=False, encoding="utf-8-sig", **_EXACT,
                         quoting=csv.QUOTE_MINIMAL)
    except Exception:  # noqa: BLE001 - any parse problem: the careful reader finds and names it
        return None
    if df.shape[1] != n_columns or len(df) < 2:
        return None
    data = df.to_numpy(dtype=np.float64, copy=False)
    del df
    if not np.isfinite(data).all():
        return None
    return np.require(data, requirements=["C", "W"])


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
        fs = metadata_rate(meta, path)
        if not abs(fs * dt - 1.0) <= dt_rtol:
            raise ValueError(
                f"{path}: column 't': sampling rate {1.0 / dt!r} Hz differs from the metadata's "
                f"{fs!r} Hz")


def load_force_data(path, metadata=None, *, dt_rtol: float = DEFAULT_DT_RTOL, columns=None) -> pd.DataFrame:
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
    columns : dict, optional
        The file's names of the loader's columns, for a recording with its own
        header: ``{"time": "zeit_ms", "left": "links [kN]", "right": "rechts [kN]"}``
        (keys ``time``, ``left``, ``right``, ``force`` (a single-plate recording:
        one force column instead of left and right), ``friction``).  Units follow the
        mapped name (``_ms``, `` [kN]``) or come from ``metadata["units"]``.
        Without it, a file with a ``force`` column and neither leg column is read as a
        single-plate recording.

    Speed: the numbers are parsed by pandas' C reader (correctly rounded); only a
    file with a bad cell is read again row by row, to name that cell.

    Returns
    -------
    pandas.DataFrame
        One row per sample, one column per variable, in s and N:
        ``t, force_left, force_right`` [, ``friction``] then any other columns.
        ``df.attrs`` holds ``source``, ``units`` (as given), ``dt_s``,
        ``sampling_rate_hz``, ``provenance``, ``metadata``, ``sha256`` (of the
        file's bytes) and ``columns`` (the mapping used).

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
    dt_rtol = check_dt_rtol(dt_rtol)
    mapping = column_mapping(columns)
    raw = path.read_bytes()  # FileNotFoundError as is, before any metadata problem
    meta = read_metadata(metadata, path)
    text = _decode(raw, path, meta)
    end = text.find("\n")
    reader = csv.reader(io.StringIO(text if end < 0 else text[: end + 1], newline=""))
    del text  # the careful reader below decodes again only if the fast one fails
    cols = _read_columns(reader, path, meta, mapping or None)
    names = [c[0] for c in cols]
    data = _fast_numbers(raw, len(cols))
    if data is not None:
        lines = np.arange(2, data.shape[0] + 2)
    else:  # a bad cell somewhere: read row by row to name its line and column
        reader = csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline=""))
        next(reader)
        rows, lines = _read_rows(reader, path, len(cols))
        data = _to_numbers(rows, lines, names, path)
        del rows
    to_si(data, cols, path, lines)
    _check_sampling(data[:, names.index("t")], lines, path, dt_rtol, meta)
    df = to_frame(data, cols, path, meta)
    df.attrs["sha256"] = hashlib.sha256(raw).hexdigest()
    df.attrs["columns"] = dict(mapping)
    return df


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
