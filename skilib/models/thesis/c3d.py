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

from ...data.c3d import ezc3d_module, uniform_step
from .markers import MARKERS, skeleton, stroke_rows
from .params import SkierParams

__all__ = ["ANALOG_CHANNELS", "C3DRun", "write_run", "read_run"]

#: the analog channels of an exported run (frame columns of ``SimResult``)
ANALOG_CHANNELS = ("push_force", "friction_force", "leg_drive_force")
_MM = 1000.0


# ---------------------------------------------------------------------------
# a run out and back
# ---------------------------------------------------------------------------

def write_run(result, path) -> Path:
    """Write a ``SimResult`` as a C3D file (see the module docstring for its content)."""
    ezc3d = ezc3d_module()
    path = Path(path)
    rows = stroke_rows(result.frame)
    sk = skeleton(result, rows)
    f = result.frame.iloc[rows]
    t = f["t"].to_numpy()
    dt = uniform_step(t, str(path))
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
    ezc3d = ezc3d_module()
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


