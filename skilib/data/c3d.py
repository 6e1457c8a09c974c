"""C3D in and out: simulated runs as motion-capture files, force-plate channels from C3D.

C3D (www.c3d.org) is the biomechanics lab's file format: 3-D marker trajectories
(``POINT``), analog channels (``ANALOG``, e.g. force plates), events and a parameter
section of named groups.  It is read and written here with ``ezc3d`` (Michaud & Begon
2021, *J. Open Source Softw.* 6, 2911; the ``c3d`` extra).  C3D stores values as 32-bit
floats: what comes back from a file equals what went in to float32 precision (relative
6e-8), not to double precision.

Export of a run (:func:`write_run`, ``SimResult.to_c3d``)
    POINT      the markers of :mod:`skilib.skier.markers` (SKI_TIP, SKI_TAIL, ANKLE, KNEE,
               HIP, CM) in mm, one frame per output time of the run (uniform grid)
    ANALOG     push_force (F(τ) along the leg, eqs. 179–181), friction_force (along the
               ski, eqs. 171–178), leg_drive_force (−λ of C14, eq. 144) [N], one sample per
               frame
    EVENT      "Stroke change" at the start of every stroke after the first; "Friction
               switch" at every stick/slip switch inside a stroke
    SKILIB     every field of ``SkierParams`` (numbers; booleans as 0/1; texts), and per
               stroke HEADINGS [rad], SIDES, START_X, START_Y [m] (the point P of C2) and
               STROKE_T0 [s]

Import of force data (:func:`read_force_data`, through ``load_force_data``)
    Analog channels labelled ``force_left``, ``force_right`` (required) and ``friction``
    (optional), units in ``ANALOG:UNITS`` or ``metadata["units"]`` (N or kN); time from
    ``ANALOG:RATE`` and the header's first frame.  Problems raise ``ValueError`` naming the
    file, the channel and the frame, as the CSV path names file, column and line.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["ANALOG_CHANNELS", "C3DRun", "write_run", "read_run", "write_force_data", "read_force_data"]

#: the analog channels of an exported run (frame columns of ``SimResult``)
ANALOG_CHANNELS = ("push_force", "friction_force", "leg_drive_force")
_MM = 1000.0


def _ezc3d():
    try:
        import ezc3d
    except ImportError:  # pragma: no cover - the c3d extra is part of `make test`
        raise ImportError("C3D files need ezc3d: pip install 'skilib[c3d]' (or pip install ezc3d)") from None
    return ezc3d


def _uniform_time(t, what) -> float:
    dt = np.diff(t)
    if len(t) < 2 or np.any(dt <= 0) or np.ptp(dt) > 1e-9 * max(1.0, abs(t[-1])):
        raise ValueError(f"{what}: C3D needs a uniform time grid; give the run a fixed dt_out (got steps "
                         f"{dt.min() if len(dt) else None!r} … {dt.max() if len(dt) else None!r} s)")
    return float((t[-1] - t[0]) / (len(t) - 1))


# ---------------------------------------------------------------------------
# a run out and back
# ---------------------------------------------------------------------------

def write_run(result, path) -> Path:
    """Write a ``SimResult`` as a C3D file (see the module docstring for its content)."""
    from ..skier.markers import MARKERS, skeleton, stroke_rows

    ezc3d = _ezc3d()
    path = Path(path)
    rows = stroke_rows(result.frame)
    sk = skeleton(result, rows)
    f = result.frame.iloc[rows]
    t = f["t"].to_numpy()
    dt = _uniform_time(t, str(path))
    rate = 1.0 / dt
    c = ezc3d.c3d()
    P = c["parameters"]
    P["POINT"]["RATE"]["value"] = [rate]
    P["POINT"]["LABELS"]["value"] = list(MARKERS)
    P["POINT"]["UNITS"]["value"] = ["mm"]
    pts = np.ones((4, len(MARKERS), len(t)))
    for j, name in enumerate(MARKERS):
        pts[:3, j, :] = sk.points[name].T * _MM
    c["data"]["points"] = pts
    P["ANALOG"]["RATE"]["value"] = [rate]
    P["ANALOG"]["LABELS"]["value"] = list(ANALOG_CHANNELS)
    P["ANALOG"]["UNITS"]["value"] = ["N"] * len(ANALOG_CHANNELS)
    c["data"]["analogs"] = f[list(ANALOG_CHANNELS)].to_numpy().T[None, :, :].copy()
    c["header"]["points"]["first_frame"] = 0
    t0 = float(t[0])
    for k in result.strokes["stroke"].to_numpy()[1:]:
        c.add_event(time=[0.0, float(f.loc[f["stroke"] == k, "t"].iloc[0]) - t0], context="General",
                    label="Stroke change")
    for _, ev in result.events.iterrows():
        c.add_event(time=[0.0, float(ev["t"]) - t0], context="General", label="Friction switch")
    for fl in fields(result.params):
        v = getattr(result.params, fl.name)
        if v is None:
            continue
        val = [v] if isinstance(v, str) else [float(v)]
        c.add_parameter("SKILIB", fl.name.upper(), val)
    # the exact values as JSON text too (C3D numbers are float32), in chunks of ≤ 200 characters
    js = json.dumps(asdict(result.params), separators=(",", ":"))
    c.add_parameter("SKILIB", "PARAMS_JSON", [js[i:i + 200] for i in range(0, len(js), 200)])
    c.add_parameter("SKILIB", "T0", [t0])
    c.add_parameter("SKILIB", "HEADINGS", [float(m.heading) for m in result.models])
    c.add_parameter("SKILIB", "SIDES", [m.side for m in result.models])
    c.add_parameter("SKILIB", "START_X", [float(m.P[0]) for m in result.models])
    c.add_parameter("SKILIB", "START_Y", [float(m.P[1]) for m in result.models])
    c.add_parameter("SKILIB", "STROKE_T0", [float(f.loc[f["stroke"] == k, "t"].iloc[0])
                                            for k in result.strokes["stroke"]])
    c.add_parameter("SKILIB", "SOURCE", ["skilib simulation (push-off: the fit of the SYNTHETIC force data "
                                         "unless another force was given)"])
    c.write(str(path))
    return path


@dataclass
class C3DRun:
    """What :func:`read_run` returns.

    t : (n,) frame times [s]; markers : name -> (n, 3) [m]; analogs : DataFrame (t and one
    column per channel, in the file's units); events : DataFrame (label, t);
    parameters : the SKILIB group (name -> list/array of values), empty for a lab file.
    """

    t: np.ndarray
    markers: dict
    analogs: pd.DataFrame
    events: pd.DataFrame
    parameters: dict

    def skier_params(self):
        """The ``SkierParams`` written in the SKILIB group."""
        from ..skier.params import SkierParams

        if "PARAMS_JSON" in self.parameters:  # exact (the numbers of the group are float32)
            return SkierParams(**json.loads("".join(self.parameters["PARAMS_JSON"])))
        kw = {}
        for fl in fields(SkierParams):
            key = fl.name.upper()
            if key not in self.parameters:
                continue
            v = self.parameters[key][0]
            if fl.name in ("gravity", "air_drag"):
                v = bool(round(float(v)))
            elif not isinstance(v, str):
                v = float(v)
            kw[fl.name] = v
        return SkierParams(**kw)


def read_run(path) -> C3DRun:
    """Read markers, analogs, events and the SKILIB parameters of a C3D file (positions in m)."""
    ezc3d = _ezc3d()
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(path)
    c = ezc3d.c3d(str(path))
    P = c["parameters"]
    rate = float(P["POINT"]["RATE"]["value"][0])
    first = int(c["header"]["points"]["first_frame"])
    pts = c["data"]["points"]
    unit = (P["POINT"]["UNITS"]["value"] or ["mm"])[0].strip()
    scale = {"mm": 1e-3, "cm": 1e-2, "m": 1.0}.get(unit)
    if scale is None:
        raise ValueError(f"{path}: POINT:UNITS {unit!r} is not a length unit (mm, cm, m)")
    t = (first + np.arange(pts.shape[2])) / rate
    markers = {lab.strip(): pts[:3, j, :].T * scale for j, lab in enumerate(P["POINT"]["LABELS"]["value"])}
    an = c["data"]["analogs"]
    analogs = pd.DataFrame({"t": first / rate + np.arange(an.shape[2]) / float(P["ANALOG"]["RATE"]["value"][0])
                            if an.shape[2] else np.zeros(0)})
    for j, lab in enumerate(P["ANALOG"]["LABELS"]["value"]):
        analogs[lab.strip()] = an[0, j, :]
    ev = P.get("EVENT", {})
    times = np.asarray(ev.get("TIMES", {}).get("value", np.zeros((2, 0))), dtype=float).reshape(2, -1)
    labels = list(ev.get("LABELS", {}).get("value", []))
    events = pd.DataFrame({"label": labels, "t": times[0] * 60.0 + times[1]}).sort_values("t", kind="stable")
    group = {k: v["value"] for k, v in P.get("SKILIB", {}).items() if k != "__METADATA__"}
    if "T0" in group:
        events["t"] += float(group["T0"][0])
    return C3DRun(t, markers, analogs, events.reset_index(drop=True), group)


# ---------------------------------------------------------------------------
# force-plate channels
# ---------------------------------------------------------------------------

def write_force_data(df: pd.DataFrame, path, point_rate: float | None = None) -> Path:
    """Write force channels (a ``load_force_data`` frame: t [s] and forces [N]) as C3D analogs.

    Every column but ``t`` becomes an analog channel in N; the analog rate is 1/Δt and the
    point rate ``point_rate`` (default: the analog rate / 10, an integer divisor is needed);
    the file holds no markers.
    """
    ezc3d = _ezc3d()
    path = Path(path)
    t = df["t"].to_numpy(dtype=float)
    rate = 1.0 / _uniform_time(t, str(path))
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
    from . import forcedata as fd

    ezc3d = _ezc3d()
    path = Path(path)
    dt_rtol = fd._check_dt_rtol(fd.DEFAULT_DT_RTOL if dt_rtol is None else dt_rtol)
    raw = path.read_bytes()
    meta = fd._read_metadata(metadata, path)
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
    missing = [c_ for c_ in fd.REQUIRED_COLUMNS if c_ != "t" and c_ not in labels]
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
        if nm in fd._KNOWN:
            kind = fd._KNOWN[nm]
            if unit is None:
                raise ValueError(f"{path}: analog channel '{nm}': no unit given; write it in ANALOG:UNITS "
                                 f"(e.g. '{next(iter(fd._UNIT_TO_SI[kind]))}') or in metadata['units']")
            if unit not in fd._UNIT_TO_SI[kind]:
                raise ValueError(f"{path}: analog channel '{nm}': unknown {kind} unit '{unit}' "
                                 f"(accepted: {sorted(fd._UNIT_TO_SI[kind])})")
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
    fd._to_si(full, cols)
    if meta and "sampling_rate_hz" in meta:
        fs = float(meta["sampling_rate_hz"])
        if not abs(fs / rate - 1.0) <= dt_rtol:
            raise ValueError(f"{path}: ANALOG:RATE: sampling rate {rate!r} Hz differs from the metadata's {fs!r} Hz")
    return fd._to_frame(full, cols, path, meta)
