"""A run of the thesis's skier as a C3D motion-capture file, and back (``SimResult.to_c3d``).

C3D (www.c3d.org) is read and written with ``ezc3d`` (``skilib.data.c3d``); it stores values as
32-bit floats, so what comes back equals what went in to float32 precision (relative 6e-8).

Export of a run (:func:`write_run`)
    POINT      the markers of :mod:`skilib.models.thesis.markers` (SKI_TIP, SKI_TAIL, ANKLE,
               KNEE, HIP, CM) in mm, one frame per output time of the run (uniform grid)
    ANALOG     push_force (F(τ) along the leg, eqs. 179–181), friction_force (along the
               ski, eqs. 171–178), leg_drive_force (−λ of C14, eq. 144) [N], one sample per
               frame
    EVENT      "Stroke change" at the start of every stroke after the first; "Friction
               switch" at every stick/slip switch inside a stroke
    SKILIB     every field of ``SkierParams`` (numbers; booleans as 0/1; texts), and per
               stroke HEADINGS [rad], SIDES, START_X, START_Y [m] (the point P of C2) and
               STROKE_T0 [s]
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import pandas as pd

from ...data.c3d import C3D_SUFFIXES, MAX_FRAME, ezc3d_module, read_c3d, uniform_step, write_ezc3d
from ...data.files import check_target, write_atomic
from ...engine.validation import check_bool
from .markers import MARKERS, skeleton, stroke_rows
from .params import SkierParams

__all__ = ["ANALOG_CHANNELS", "C3DRun", "write_run", "read_run"]

#: the analog channels of an exported run (frame columns of ``SimResult``)
ANALOG_CHANNELS = ("push_force", "friction_force", "leg_drive_force")
_MM = 1000.0


# ---------------------------------------------------------------------------
# a run out and back
# ---------------------------------------------------------------------------

def write_run(result, path, *, overwrite: bool = False) -> Path:
    """Write a ``SimResult`` as a C3D file (see the module docstring for its content).

    The file is written atomically (``skilib.data.files.write_atomic``): an existing ``path``
    is replaced only with ``overwrite=True``, its folder must exist, and the file is read back
    (frames, markers and analog samples, and every marker and analog value to float32) before
    it takes the name ``path``; a run longer than ``MAX_FRAME`` frames is refused.  Returns ``path``.

    Refused before anything is written: ``result`` not a run (``TypeError``), a run with no
    output times, or a frame whose ``t`` or ``stroke`` holds a NaN (``ValueError`` naming the
    column and the row); a name not ending in ``.c3d`` (any case).
    """
    ezc3d = ezc3d_module()
    overwrite = check_bool("overwrite", overwrite)
    path = check_target(path, overwrite=overwrite, what="C3D file", suffixes=C3D_SUFFIXES)
    _check_result(result)
    rows = stroke_rows(result.frame)
    sk = skeleton(result, rows)
    f = result.frame.iloc[rows]
    t = f["t"].to_numpy()
    dt = uniform_step(t, str(path))
    rate = 1.0 / dt
    if len(t) > MAX_FRAME:
        raise ValueError(f"result: {len(t)} output times; a C3D header counts frames up to {MAX_FRAME} "
                         f"({path}): use a coarser dt_out or fewer strokes")
    c = ezc3d.c3d()
    P = c["parameters"]
    P["POINT"]["RATE"]["value"] = [rate]
    P["POINT"]["LABELS"]["value"] = list(MARKERS)
    P["POINT"]["UNITS"]["value"] = ["mm"]
    pts = np.ones((4, len(MARKERS), len(t)))
    for j, name in enumerate(MARKERS):
        pts[:3, j, :] = sk.points[name].T * _MM
    c["data"]["points"] = pts
    analogs = f[list(ANALOG_CHANNELS)].to_numpy().T[None, :, :].copy()
    P["ANALOG"]["RATE"]["value"] = [rate]
    P["ANALOG"]["LABELS"]["value"] = list(ANALOG_CHANNELS)
    P["ANALOG"]["UNITS"]["value"] = ["N"] * len(ANALOG_CHANNELS)
    c["data"]["analogs"] = analogs
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

    def verify(tmp):
        back = read_c3d(tmp)
        got_p, got_a = back["data"]["points"], back["data"]["analogs"]
        if got_p.shape != pts.shape or got_a.shape != analogs.shape:
            raise ValueError(f"markers {got_p.shape} and analogs {got_a.shape} read, {pts.shape} and "
                             f"{analogs.shape} written")
        if not (np.array_equal(got_p[:3], pts[:3].astype(np.float32), equal_nan=True)
                and np.array_equal(got_a, analogs.astype(np.float32), equal_nan=True)):
            raise ValueError("the marker or analog values read differ from those written (to float32)")

    return write_atomic(path, lambda tmp: write_ezc3d(c, tmp), overwrite=overwrite, verify=verify, what="C3D file",
                        suffixes=C3D_SUFFIXES)


def _check_result(result) -> None:
    """``result`` is a run ``write_run`` can write: a TypeError or ValueError naming it otherwise."""
    frame = getattr(result, "frame", None)
    if not isinstance(frame, pd.DataFrame) or not hasattr(result, "strokes") or not hasattr(result, "models"):
        raise TypeError(f"result: expected a run (simulate_run's SimResult), got {type(result).__name__}")
    if frame.empty:
        raise ValueError("result: the run's frame is empty (no output times); nothing to write")
    for col in ("t", "stroke"):
        if col not in frame:
            raise ValueError(f"result: the run's frame has no column {col!r}")
        v = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(v) | ((col == "stroke") & (v != np.round(v))))
        if bad.size:
            raise ValueError(f"result: the frame's column {col!r} at row {int(bad[0])} is {v[bad[0]]:g},"
                             f" not a finite {'time' if col == 't' else 'stroke number'}")


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
    """Read markers, analogs, events and the SKILIB parameters of a C3D file (positions in m).

    The file is read through ``skilib.data.c3d.read_c3d``: a missing file, a folder, an empty,
    foreign or truncated file, or fewer frames or analog samples than its header declares is
    an error naming the file."""
    path = Path(path)
    c = read_c3d(path)
    P = c["parameters"]
    rate = float(P["POINT"]["RATE"]["value"][0])
    an_rate = float(P["ANALOG"]["RATE"]["value"][0]) if c["data"]["analogs"].shape[2] else rate
    for name, r in (("POINT:RATE", rate), ("ANALOG:RATE", an_rate)):
        if not (np.isfinite(r) and r > 0):
            raise ValueError(f"{path}: {name}: {r!r} Hz is not a positive frame rate")
    first = int(c["header"]["points"]["first_frame"])
    pts = c["data"]["points"]
    unit = (P["POINT"]["UNITS"]["value"] or ["mm"])[0].strip()
    scale = {"mm": 1e-3, "cm": 1e-2, "m": 1.0}.get(unit)
    if scale is None:
        raise ValueError(f"{path}: POINT:UNITS {unit!r} is not a length unit (mm, cm, m)")
    t = (first + np.arange(pts.shape[2])) / rate
    markers = {lab.strip(): pts[:3, j, :].T * scale for j, lab in enumerate(P["POINT"]["LABELS"]["value"])}
    an = c["data"]["analogs"]
    analogs = pd.DataFrame({"t": first / rate + np.arange(an.shape[2]) / an_rate
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


