"""The output table of one stroke: every column of ``SimResult.frame`` on the stroke's grid."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..engine.reactions import JointReaction
from ..engine.validation import check_number
from .work import STATE_INDEX, WORK_TERMS

__all__ = ["N_BASE_ROWS", "output_grid", "stroke_frame"]

N_BASE_ROWS = 17  # C1–C17, the first rows of every skier system in either parametrization
#: the reactions reported: (column prefix, constraint, body attribute of the model)
REACTIONS = (("ankle", "ankle", "shank"), ("knee", "knee", "upper"))


#: the most output points of one stroke (the frame has ~100 columns: 8e7 numbers)
MAX_POINTS_PER_STROKE = 100_000


def output_grid(T, dt_out, n_out) -> np.ndarray:
    """The output times of one stroke: ``n_out`` points, or steps of about ``dt_out``
    (at most ``MAX_POINTS_PER_STROKE`` points either way)."""
    if n_out is not None:
        n_out = check_number("n_out", n_out, integer=True, low=2, high=MAX_POINTS_PER_STROKE)
        return np.linspace(0.0, T, n_out)
    dt_out = check_number("dt_out", dt_out, positive=True, unit="s")
    if T / dt_out > MAX_POINTS_PER_STROKE:
        raise ValueError(f"dt_out: {dt_out:g} s gives {T / dt_out:.3g} output points per stroke of {T:g} s, more "
                         f"than {MAX_POINTS_PER_STROKE}; use a larger dt_out")
    k = max(1, int(round(T / dt_out)))
    return np.linspace(0.0, T, k + 1)


def _states_on_grid(segments, grid, y_end):
    """y on the grid from the segments' paths, and the segment of each grid point."""
    Y = np.zeros((len(grid), len(y_end)))
    seg_of = np.zeros(len(grid), dtype=int)
    for i, tau in enumerate(grid):
        for k, seg in enumerate(segments):
            if tau <= seg.end or k == len(segments) - 1:
                seg_of[i] = k
                break
    for k, seg in enumerate(segments):
        idx = np.nonzero((seg_of == k) & (grid < segments[-1].end))[0]
        if len(idx):
            Y[idx] = np.atleast_2d(seg.path(grid[idx]).T)
    Y[grid >= segments[-1].end] = y_end
    return Y, seg_of


def _segment_terms(model, stroke, seg, grid, idx, Y, out):
    """Evaluate eq. 101 at the segment's grid points and fill the derived columns."""
    n, i3, e_ski = stroke.n, model.cm.start, model.e
    q, qd = Y[idx, :n], Y[idx, n: 2 * n]
    lam = np.zeros((len(idx), seg.system.nc))
    react = {pre: JointReaction(seg.system, c, getattr(model, b)) for pre, c, b in REACTIONS}
    blocks = {pre: np.zeros((len(idx), r.rows.stop - r.rows.start, r.cols.stop - r.cols.start))
              for pre, r in react.items()}
    for j, i in enumerate(idx):
        e = seg.system.evaluate(grid[i], q[j], qd[j], stroke.alpha, stroke.beta)
        lam[j] = e.lam
        out["kinetic_energy"][i] = e.kinetic_energy  # ½ q̇ᵀMq̇ with the M of this evaluation (eqs. 40–46)
        out["constraint_norm"][i] = np.abs(e.C[seg.rows.model]).max()
        out["velocity_constraint_norm"][i] = np.abs(e.Cdot[seg.rows.model]).max()
        out["friction_force"][i] = (e.forces["friction"][:3] @ e_ski) if seg.mode else -e.lam[seg.rows.stick_index()]
        out["push_force"][i] = float(model.push_force(grid[i]))
        out["push_power"][i] = e.forces["push"][i3: i3 + 3] @ qd[j, i3: i3 + 3]
        for pre, r in react.items():
            blocks[pre][j] = e.Cq[r.rows, r.cols]
    for pre, r in react.items():
        F, N = r(q, blocks[pre], lam)
        for a, col in enumerate("xyz"):
            out[f"{pre}_F{col}"][idx] = F[:, a]
            if pre == "knee":
                out[f"{pre}_M{col}"][idx] = N[:, a]
    out["mode"][idx] = seg.mode
    out["lam"][idx] = lam[:, :N_BASE_ROWS]


def stroke_frame(model, stroke, segments, grid, y_end, number, t0) -> pd.DataFrame:
    """Derived quantities on the output grid of one stroke (columns: see ``SimResult``)."""
    n, p, i3 = stroke.n, model.params, model.cm.start
    Y, seg_of = _states_on_grid(segments, grid, y_end)
    m = len(grid)
    work = {k: np.zeros(m) for k in ("kinetic_energy", "constraint_norm", "velocity_constraint_norm",
                                     "friction_force", "push_force", "push_power",
                                     "ankle_Fx", "ankle_Fy", "ankle_Fz", "knee_Fx", "knee_Fy", "knee_Fz",
                                     "knee_Mx", "knee_My", "knee_Mz")}
    work["mode"] = np.zeros(m, dtype=int)
    work["lam"] = np.zeros((m, N_BASE_ROWS))
    for k, seg in enumerate(segments):
        idx = np.nonzero(seg_of == k)[0]
        if len(idx):
            _segment_terms(model, stroke, seg, grid, idx, Y, work)
    q, qd = Y[:, :n], Y[:, n: 2 * n]
    out = {
        "t": t0 + grid, "tau": grid, "stroke": number, "side": model.side, "mode": work["mode"],
        "s": (q[:, :3] - model.P) @ model.e, "s_dot": qd[:, :3] @ model.e,
        "ski_x": q[:, 0], "ski_y": q[:, 1], "ski_z": q[:, 2],
        "cm_x": q[:, i3], "cm_y": q[:, i3 + 1], "cm_z": q[:, i3 + 2],
        "cm_vx": qd[:, i3], "cm_vy": qd[:, i3 + 1], "cm_vz": qd[:, i3 + 2],
        "cm_speed": np.linalg.norm(qd[:, i3: i3 + 3], axis=1), "ski_speed": np.linalg.norm(qd[:, :3], axis=1),
        "leg_length": np.array([p.leg_length(t)[0] for t in grid]),
        "leg_angle_deg": p.leg_angle0_deg + p.c_rot_deg * grid,
    }
    for k in ("push_force", "push_power", "friction_force", "kinetic_energy"):
        out[k] = work[k]
    for key in WORK_TERMS:
        out[key] = Y[:, 2 * n + STATE_INDEX[key]]
    out["projection_energy"] = Y[:, 2 * n + STATE_INDEX["projection_energy"]]
    out["constraint_norm"] = work["constraint_norm"]
    out["velocity_constraint_norm"] = work["velocity_constraint_norm"]
    out.update({f"q{j}": q[:, j] for j in range(n)})
    out.update({f"qd{j}": qd[:, j] for j in range(n)})
    out.update({f"lam{j}": work["lam"][:, j] for j in range(N_BASE_ROWS)})
    out["leg_drive_force"] = -work["lam"][:, segments[0].system.rows("C14").start]
    for c in ("ankle_Fx", "ankle_Fy", "ankle_Fz", "knee_Fx", "knee_Fy", "knee_Fz", "knee_Mx", "knee_My", "knee_Mz"):
        out[c] = work[c]
    return pd.DataFrame(out)
