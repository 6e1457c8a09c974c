"""The output table of one stroke: every column of ``SimResult.frame`` on the stroke's grid.

Columns every skier model has (time, stroke, side, friction mode, ski and CM position and
velocity, kinetic energy, works, constraint residuals, q, q̇, λ, joint reactions) are built
here; a model adds its own through ``point_columns`` (scalars from one ``Evaluation``) and
``grid_columns`` (arrays over the grid), and names its reactions in ``REACTIONS``.  A model with
``point_columns_stack`` (the same columns as arrays, from an ``EvaluationStack`` of a segment's
points) has them computed in array operations, point by point (``point_columns``, the reference)
otherwise or with ``stacked=False``.

A run keeps each stroke's columns as arrays (``stroke_columns``) and builds one DataFrame of
all its strokes at the end (``frame_of``): a DataFrame per stroke, and their concatenation, cost
more than the columns' arithmetic of a short stroke.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..engine.evaluation import stack_evaluations
from ..engine.reactions import JointReaction
from ..engine.validation import check_number
from .work import signed_names

__all__ = ["output_grid", "stroke_frame", "stroke_columns", "frame_of", "column", "column_extreme"]


#: the most output points of one stroke (the frame has ~100 columns: 8e7 numbers)
MAX_POINTS_PER_STROKE = 100_000


def output_grid(T, dt_out, n_out) -> np.ndarray:
    """The output times of one stroke: ``n_out`` points, or steps of about ``dt_out``
    (at most ``MAX_POINTS_PER_STROKE`` points either way); T > 0 [s]."""
    T = check_number("T", T, positive=True, unit="s")
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
    # each point's first segment that ends at or after it (the last one beyond every end)
    ends = np.array([seg.end for seg in segments], dtype=float)
    seg_of = np.minimum(np.searchsorted(ends, grid, side="left"), len(segments) - 1)
    for k, seg in enumerate(segments):
        idx = np.nonzero((seg_of == k) & (grid < segments[-1].end))[0]
        if len(idx):
            Y[idx] = np.atleast_2d(seg.path(grid[idx]).T)
    Y[grid >= segments[-1].end] = y_end
    return Y, seg_of


def _segment_terms(model, stroke, seg, grid, idx, Y, out, stacked):
    """Evaluate eq. 101 at the segment's grid points and fill the derived columns: with
    ``stacked`` (and a model with ``point_columns_stack``) in array operations over the segment's
    points, else point by point (``point_columns``: the reference)."""
    n = stroke.n
    q, qd = Y[idx, :n], Y[idx, n: 2 * n]
    react = {pre: JointReaction(seg.system, c, getattr(model, b)) for pre, c, b, _ in model.REACTIONS}
    if stacked and hasattr(model, "point_columns_stack"):
        E = stack_evaluations(seg.system, grid[idx], q, qd, stroke.alpha, stroke.beta)
        lam = E.lam
        out["kinetic_energy"][idx] = E.kinetic_energy
        out["constraint_norm"][idx] = np.abs(E.C[:, seg.rows.model]).max(axis=1)
        out["velocity_constraint_norm"][idx] = np.abs(E.Cdot[:, seg.rows.model]).max(axis=1)
        for k, v in model.point_columns_stack(E, seg, grid[idx], q, qd).items():
            out.setdefault(k, np.zeros(len(grid)))[idx] = v
        blocks = {pre: E.Cq[:, r.rows, r.cols] for pre, r in react.items()}
    else:
        lam = np.zeros((len(idx), seg.system.nc))
        blocks = {pre: np.zeros((len(idx), r.rows.stop - r.rows.start, r.cols.stop - r.cols.start))
                  for pre, r in react.items()}
        for j, i in enumerate(idx):
            e = seg.system.evaluate(grid[i], q[j], qd[j], stroke.alpha, stroke.beta)
            lam[j] = e.lam
            out["kinetic_energy"][i] = e.kinetic_energy  # ½ q̇ᵀMq̇ with the M of this evaluation (eqs. 40–46)
            out["constraint_norm"][i] = np.abs(e.C[seg.rows.model]).max()
            out["velocity_constraint_norm"][i] = np.abs(e.Cdot[seg.rows.model]).max()
            for k, v in model.point_columns(e, seg, grid[i], q[j], qd[j]).items():
                out.setdefault(k, np.zeros(len(grid)))[i] = v
            for pre, r in react.items():
                blocks[pre][j] = e.Cq[r.rows, r.cols]
    for pre, c, b, moments in model.REACTIONS:
        F, N = react[pre](q, blocks[pre], lam)
        for a, col in enumerate("xyz"):
            out.setdefault(f"{pre}_F{col}", np.zeros(len(grid)))[idx] = F[:, a]
        if moments:
            for a, col in enumerate("xyz"):
                out.setdefault(f"{pre}_M{col}", np.zeros(len(grid)))[idx] = N[:, a]
    out["mode"][idx] = seg.mode
    out["lam"][idx] = lam[:, : model.N_FRAME_ROWS]


def stroke_frame(model, stroke, segments, grid, y_end, number, t0, *, stacked: bool = True) -> pd.DataFrame:
    """Derived quantities on the output grid of one stroke (columns: see ``SimResult``): the
    DataFrame of ``stroke_columns``.

    ``stacked``: a model's own columns in array operations over each segment's points
    (``point_columns_stack``, where the model has it); False computes them point by point with
    ``point_columns``, the reference the stacked columns are tested against (to 1e-12)."""
    return pd.DataFrame(stroke_columns(model, stroke, segments, grid, y_end, number, t0, stacked=stacked))


def stroke_columns(model, stroke, segments, grid, y_end, number, t0, *, stacked: bool = True) -> dict:
    """``stroke_frame``'s columns as arrays over the output grid, in its order ({name: array};
    the stroke's number and side repeated on every row)."""
    n, i3 = stroke.n, model.cm.start
    Y, seg_of = _states_on_grid(segments, grid, y_end)
    m = len(grid)
    work = {k: np.zeros(m) for k in ("kinetic_energy", "constraint_norm", "velocity_constraint_norm")}
    work["mode"] = np.zeros(m, dtype=int)
    work["lam"] = np.zeros((m, model.N_FRAME_ROWS))
    for k, seg in enumerate(segments):
        idx = np.nonzero(seg_of == k)[0]
        if len(idx):
            _segment_terms(model, stroke, seg, grid, idx, Y, work, stacked)
    q, qd = Y[:, :n], Y[:, n: 2 * n]
    out = {
        # the number and the side on every row, as a DataFrame broadcasts them (int64; str)
        "t": t0 + grid, "tau": grid, "stroke": np.full(m, number), "side": np.full(m, model.side, dtype=object),
        "mode": work.pop("mode"),
        "ski_x": q[:, 0], "ski_y": q[:, 1], "ski_z": q[:, 2],
        "cm_x": q[:, i3], "cm_y": q[:, i3 + 1], "cm_z": q[:, i3 + 2],
        "cm_vx": qd[:, i3], "cm_vy": qd[:, i3 + 1], "cm_vz": qd[:, i3 + 2],
        "cm_speed": np.linalg.norm(qd[:, i3: i3 + 3], axis=1), "ski_speed": np.linalg.norm(qd[:, :3], axis=1),
    }
    lam = work.pop("lam")
    out.update(model.grid_columns(grid, q, qd, lam, segments))
    out["kinetic_energy"] = work.pop("kinetic_energy")
    signed = signed_names(getattr(model, "actuators", ()))  # the actuators' W⁺, W⁻: the last columns
    for key in model.extra_states:
        if (key.startswith("work_") or key == "projection_energy") and key not in signed:
            out[key] = Y[:, 2 * n + model.extra_states.index(key)]
    out["constraint_norm"] = work.pop("constraint_norm")
    out["velocity_constraint_norm"] = work.pop("velocity_constraint_norm")
    out.update(work)  # the model's point columns and the reactions
    out.update({f"q{j}": q[:, j] for j in range(n)})
    out.update({f"qd{j}": qd[:, j] for j in range(n)})
    out.update({f"lam{j}": lam[:, j] for j in range(model.N_FRAME_ROWS)})
    out.update({key: Y[:, 2 * n + model.extra_states.index(key)] for key in signed})
    return out


def frame_of(strokes: list) -> pd.DataFrame:
    """One DataFrame of the strokes' columns (``stroke_columns``), stacked in their order, the
    index 0, 1, ...: what concatenating their DataFrames gives (``pandas.concat``, which is what
    strokes whose columns differ in names or types get), without a DataFrame per stroke."""
    if len(strokes) == 1:
        return pd.DataFrame(strokes[0])
    first = strokes[0]
    if not all(isinstance(v, np.ndarray) and v.ndim == 1 for s in strokes for v in s.values()) or any(
            list(s) != list(first) or any(s[k].dtype != first[k].dtype for k in first) for s in strokes[1:]):
        return pd.concat([pd.DataFrame(s) for s in strokes], ignore_index=True)
    return pd.DataFrame({k: np.concatenate([s[k] for s in strokes]) for k in first})


def column(frame, name: str) -> np.ndarray:
    """The float values of column ``name`` of a frame: a DataFrame or ``stroke_columns``' dict."""
    return np.asarray(frame[name], dtype=float)


def column_extreme(values, how: str) -> float:
    """The least (``how`` "min") or largest ("max") of ``values`` without their NaN (NaN if they
    are all NaN): what a pandas Series' ``min()`` or ``max()`` gives."""
    a = np.asarray(values, dtype=float)
    a = a[~np.isnan(a)]
    if not a.size:
        return float("nan")
    if how == "min":
        return float(a.min())
    if how == "max":
        return float(a.max())
    raise ValueError(f"how: must be 'min' or 'max', got {how!r}")
