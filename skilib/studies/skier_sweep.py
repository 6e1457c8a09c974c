"""The skier's sweep: ``simulate_run`` for every parameter set, one summary row per run.

``sweep_skier(parameters, strokes=6, ...)`` is the generic :func:`skilib.studies.sweep` with
:class:`SkierRun` as the row function.  A row is one
parameter set of the thesis's skier (Bruzzo 2012, ch. 4-5; defaults of table 9); its summary
(``SUMMARY_COLUMNS``) describes the last stroke of a run of ``strokes`` strokes from rest and
the run's energy and constraint checks, or, with ``strokes="steady"``, the periodic stroke
(:func:`skilib.models.thesis.steady.steady_state`: the stroke a long run approaches, fig. 41).  Every row also carries the sha256 of the force data set behind the
default push-off curve (thesis §5.3, fig. 32).
"""
from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import pandas as pd

from ..engine.validation import check_number
from ..models.thesis.params import SkierParams
from .sweeps import STEADY, SweepResult, check_outputs, check_parameter_frame, plain, run_sweep

__all__ = ["sweep_skier", "SkierRun", "run_summary", "data_checksum", "PARAMETER_COLUMNS", "SUMMARY_COLUMNS",
           "STEADY_COLUMNS", "MEANS_COLUMNS"]

#: columns a parameter DataFrame may have: every SkierParams field and simulate_run's
#: per-run keywords
PARAMETER_COLUMNS = tuple(f.name for f in fields(SkierParams)) + ("strokes", "force_scale", "v0", "first_ski")
#: what each run reports: the last stroke of the run, or with strokes="steady" the periodic
#: stroke (then speed_change_last is the stroke map's residual relative to u0, distance_x and
#: ke_loss_changes are those of the periodic stroke, and u0 its start speed ṡ)
SUMMARY_COLUMNS = (
    "mean_speed",          # time average of |Ṙ³| over the last stroke [m/s]
    "mean_power",          # time average of F·Ṙ³ over the last stroke [W]
    "mean_abs_vx",         # time averages of |Ẋ³|, |Ẏ³| over the last stroke [m/s]
    "mean_abs_vy",
    "speed_change_last",   # mean speed of the last stroke / of the one before − 1
    "distance_x",          # CM travel along X over the whole run [m]
    "ke_loss_changes",     # kinetic energy lost at all changes of ski [J]
    "energy_residual",     # max over strokes |ΔKE − ΣW| / max(|ΔKE|, 1 J)
    "max_constraint_norm",  # max |C| over the run's output points
    "stick_slip_switches",
    "nfev",
    "runtime_s",
)
#: with strokes="steady": the periodic stroke's start speed ṡ = u0 [m/s] and the number of
#: strokes the root finder simulated
STEADY_COLUMNS = SUMMARY_COLUMNS + ("u0", "steady_iterations")
#: the periodic stroke's columns its tables are not needed for (``steady_means``): a steady sweep
#: that asks only for these (``outputs=``) tabulates no stroke, with the same values bit for bit
MEANS_COLUMNS = ("mean_speed", "mean_power", "speed_change_last", "u0", "steady_iterations", "runtime_s")
_SOLVER_KEYWORDS = ("method", "rtol", "atol", "h", "dt_out", "n_out", "compiled", "rotation", "stabilization",
                    "projection_tol")


def data_checksum(path=None) -> str:
    """sha256 of a force data file (default: the committed SYNTHETIC data set)."""
    from ..data.forcedata import default_data_path

    p = Path(default_data_path() if path is None else path)
    return hashlib.sha256(p.read_bytes()).hexdigest()


def run_summary(parameters: dict, *, strokes=6, push_force=None, solver: dict | None = None,
                outputs=None, method: str = "engine") -> dict:
    """One run of ``simulate_run`` for one parameter set, summarised (``SUMMARY_COLUMNS``).

    ``parameters``: SkierParams fields and the keywords strokes, force_scale, v0, first_ski
    (a ``strokes`` entry overrides the keyword).  ``strokes="steady"`` summarises the periodic
    stroke (``steady_state``; ``STEADY_COLUMNS``) instead of the last stroke of a run from rest.
    ``outputs``: the columns to return (default all); a steady run asked only for
    ``MEANS_COLUMNS`` finds the periodic stroke without its tables (``steady_means``: the same
    values bit for bit).  ``method="reduced"`` (a steady run asked only for ``MEANS_COLUMNS``)
    finds it by quadrature in its one degree of freedom (``reduced_steady_means``; to the
    engine's own error, ~1e-11) and, where the quadrature does not hold (``NotReducible``: air
    drag, stick/slip, ...), by the engine; the extra output ``path`` says which ("reduced" or
    "engine").  Raises what ``simulate_run`` raises.
    """
    from ..models.thesis.run import simulate_run

    p = {k: plain(v) for k, v in parameters.items()}
    unknown = sorted(set(p) - set(PARAMETER_COLUMNS))
    if unknown:
        raise ValueError(f"parameters: unknown name(s) {unknown}; allowed: {list(PARAMETER_COLUMNS)}")
    n = p.pop("strokes", strokes)
    run_kw = {k: p.pop(k) for k in ("force_scale", "v0", "first_ski") if k in p}
    t0 = time.perf_counter()
    if _check_method(method, n, outputs) == "reduced":
        row = _steady_means(SkierParams(**p), push_force, run_kw, solver, t0, reduced=True)
        return {k: v for k, v in row.items() if k in outputs or k == "path"}
    if n == STEADY and outputs is not None and set(outputs) <= set(MEANS_COLUMNS):
        return {k: v for k, v in _steady_means(SkierParams(**p), push_force, run_kw, solver, t0).items() if k in outputs}
    if outputs is not None:
        return {k: v for k, v in run_summary(parameters, strokes=strokes, push_force=push_force,
                                             solver=solver).items() if k in outputs}
    if n == STEADY:
        return _steady_summary(SkierParams(**p), push_force, run_kw, solver, t0)
    res = simulate_run(SkierParams(**p), strokes=n, push_force=push_force, **run_kw, **(solver or {}))
    st = res.strokes
    last = st.iloc[-1]
    eb = res.energy_balance()  # every work, and the projections' energy change if any
    return {
        "mean_speed": float(last["mean_speed"]),
        "mean_power": float(last["mean_power"]),
        "mean_abs_vx": float(last["mean_abs_vx"]),
        "mean_abs_vy": float(last["mean_abs_vy"]),
        "speed_change_last": float(last["mean_speed"] / st["mean_speed"].iloc[-2] - 1.0) if len(st) > 1 else math.nan,
        "distance_x": float(st["distance_x"].sum()),
        "ke_loss_changes": float(res.changes["ke_loss"].sum()) if len(res.changes) else 0.0,
        "energy_residual": float((np.abs(eb["residual"]) / np.maximum(np.abs(eb["delta_ke"]), 1.0)).max()),
        "max_constraint_norm": float(st["max_constraint_norm"].max()),
        "stick_slip_switches": int(len(res.events)),
        "nfev": int(res.info["nfev"]),
        "runtime_s": time.perf_counter() - t0,
    }


def _steady_summary(params, push_force, run_kw, solver, t0) -> dict:
    from ..models.thesis.steady import steady_state

    run_kw = {k: v for k, v in run_kw.items() if k != "v0"}  # the periodic stroke sets its own start
    ss = steady_state(params, push_force=push_force, **run_kw, **(solver or {}))
    res, last = ss.result, ss.strokes.iloc[0]
    eb = res.energy_balance()
    return {
        "mean_speed": ss.mean_speed, "mean_power": ss.mean_power,
        "mean_abs_vx": float(last["mean_abs_vx"]), "mean_abs_vy": float(last["mean_abs_vy"]),
        "speed_change_last": ss.residual / ss.u0 if ss.u0 else math.nan,
        "distance_x": float(last["distance_x"]),
        "ke_loss_changes": _change_loss(ss),
        "energy_residual": float((np.abs(eb["residual"]) / np.maximum(np.abs(eb["delta_ke"]), 1.0)).max()),
        "max_constraint_norm": float(last["max_constraint_norm"]),
        "stick_slip_switches": int(len(res.events)),
        "nfev": int(res.info["nfev"]),
        "runtime_s": time.perf_counter() - t0,
        "u0": ss.u0, "steady_iterations": ss.iterations,
    }


def _steady_means(params, push_force, run_kw, solver, t0, reduced: bool = False) -> dict:
    """``MEANS_COLUMNS`` of the periodic stroke, found without its tables (``steady_means``), or
    with ``reduced`` by quadrature where it holds (``reduced_steady_means``), and its ``path``."""
    from ..models.thesis.reduced import reduced_steady_means
    from ..strokes.quadrature import NotReducible
    from ..models.thesis.steady import steady_means

    run_kw = {k: v for k, v in run_kw.items() if k != "v0"}  # the periodic stroke sets its own start
    sm, path = None, "engine"
    if reduced:
        try:
            sm, path = reduced_steady_means(params, push_force=push_force, **run_kw, **(solver or {})), "reduced"
        except NotReducible:  # the engine's path: air drag, stick/slip, another stroke change, ...
            pass
    if sm is None:
        sm = steady_means(params, push_force=push_force, **run_kw, **(solver or {}))
    return {"mean_speed": sm.mean_speed, "mean_power": sm.mean_power,
            "speed_change_last": sm.residual / sm.u0 if sm.u0 else math.nan, "u0": sm.u0,
            "steady_iterations": sm.iterations, "runtime_s": time.perf_counter() - t0, "path": path}


def _change_loss(ss) -> float:
    """Kinetic energy lost at the change of ski that ends the periodic stroke [J]: KE at the
    end of the stroke minus KE at its start (the next stroke starts as this one did)."""
    last = ss.strokes.iloc[0]
    return float(last["ke_end"] - last["ke_start"])


@dataclass(frozen=True, eq=False)
class SkierRun:
    """The skier's row function: ``SkierRun(strokes, push_force, solver)(row)`` is
    ``run_summary(row, strokes=..., push_force=..., solver=...)``.  Picklable (a module-level
    class holding plain values), so Dask ships it to its workers.

    strokes : strokes per run unless the row has a ``strokes`` entry, or "steady": the
        periodic stroke (``steady_state``) instead of a run from rest.
    push_force : None (the Fourier fit of the SYNTHETIC force data) or a picklable callable
        F(τ) [N] used for every run.
    solver : simulate_run keywords (method, rtol, atol, h, dt_out, n_out, compiled, rotation,
        stabilization, projection_tol).
    outputs : None (every column) or the columns each row returns (``run_summary``).
    method : "engine" (the multibody engine) or "reduced" (a steady run's means by quadrature
        where it holds, ``run_summary``; adds the column ``path``).
    """

    strokes: int = 6
    push_force: object = None
    solver: dict | None = None
    outputs: tuple | None = None
    method: str = "engine"

    def __post_init__(self):
        s = self.strokes
        object.__setattr__(self, "strokes", s if isinstance(s, str) and s == STEADY
                           else check_number("strokes", s, integer=True, low=1))
        object.__setattr__(self, "solver", _check_solver(self.solver))
        if self.push_force is not None and not callable(self.push_force):
            raise ValueError(f"push_force: must be None or a callable F(τ) [N], got {self.push_force!r}")
        object.__setattr__(self, "outputs", _check_skier_outputs(self.outputs, self.strokes))
        _check_method(self.method, self.strokes, self.outputs)

    @property
    def columns(self) -> tuple:
        """The columns each row returns."""
        cols = self.outputs or (STEADY_COLUMNS if self.strokes == STEADY else SUMMARY_COLUMNS)
        return cols + ("path",) if self.method == "reduced" else cols

    def __call__(self, row: dict) -> dict:
        return run_summary(row, strokes=self.strokes, push_force=self.push_force, solver=self.solver,
                           outputs=self.outputs, method=self.method)


def _check_method(method, strokes, outputs) -> str:
    """``method``: "engine", or "reduced" for a steady run asked only for ``MEANS_COLUMNS``;
    ``ValueError`` naming it otherwise."""
    if method not in ("engine", "reduced"):
        raise ValueError(f"method: must be 'engine' or 'reduced', got {method!r}")
    if method == "reduced" and (strokes != STEADY or outputs is None or not set(outputs) <= set(MEANS_COLUMNS)):
        raise ValueError(f"method: 'reduced' finds a periodic stroke's means: it needs strokes='steady' and outputs "
                         f"among {list(MEANS_COLUMNS)}, got strokes={strokes!r}, outputs={outputs!r}")
    return method


def _check_skier_outputs(outputs, strokes) -> tuple | None:
    """None, or distinct names of the run's summary columns (``STEADY_COLUMNS`` for a steady run,
    else ``SUMMARY_COLUMNS``); ``ValueError`` naming ``outputs`` otherwise."""
    outputs = check_outputs(outputs, ())
    allowed = STEADY_COLUMNS if strokes == STEADY else SUMMARY_COLUMNS
    unknown = [k for k in outputs or () if k not in allowed]
    if unknown:
        raise ValueError(f"outputs: {unknown} are not columns of the run's summary; allowed: {list(allowed)}")
    return outputs


def _check_parameters(parameters) -> pd.DataFrame:
    if not isinstance(parameters, pd.DataFrame):
        raise ValueError(f"parameters: expected a pandas DataFrame (one parameter set per row), "
                         f"got {type(parameters).__name__}")
    unknown = sorted(set(str(c) for c in parameters.columns) - set(PARAMETER_COLUMNS))
    if unknown:
        raise ValueError(f"parameters: unknown column(s) {unknown}; allowed: {list(PARAMETER_COLUMNS)}")
    return check_parameter_frame(parameters)


def _check_solver(solver) -> dict:
    if solver is None:
        return {}
    if not isinstance(solver, dict):
        raise ValueError(f"solver: expected a dict of simulate_run keywords, got {type(solver).__name__}")
    bad = sorted(set(solver) - set(_SOLVER_KEYWORDS))
    if bad:
        raise ValueError(f"solver: unknown keyword(s) {bad}; allowed: {list(_SOLVER_KEYWORDS)}")
    return dict(solver)


def sweep_skier(parameters: pd.DataFrame, *, strokes: int = 6, push_force=None, solver: dict | None = None,
                outputs=None, method: str = "engine", scheduler=None, n_workers: int | None = None,
                batch: int = 1, output=None, overwrite: bool = False, progress: bool = True) -> SweepResult:
    """Run ``simulate_run`` for every row of ``parameters`` and summarise each run.

    Parameters
    ----------
    parameters : DataFrame, one parameter set per row.  Columns: any of ``PARAMETER_COLUMNS``
        (SkierParams fields such as skating_angle_deg, phase_time, c_ext, c_rot_deg, mass,
        friction; and strokes, force_scale, v0, first_ski).  Absent columns keep their
        defaults (SkierParams(), table 9).  The index labels the runs (must be unique).
    strokes, push_force, solver : see :class:`SkierRun` (``strokes="steady"``: each row's
        periodic stroke, ``STEADY_COLUMNS``).
    outputs : None (every column) or the summary columns to keep; a steady sweep asked only for
        ``MEANS_COLUMNS`` (the means, u0, the residual) tabulates no stroke (``steady_means``,
        the same values bit for bit, in about three quarters of the time: what the sensitivity
        chapter's Sobol study asks for).
    method : "engine" (default) or "reduced": a steady sweep's means by quadrature in the one
        degree of freedom where it holds, by the engine elsewhere (``run_summary``), with a
        column ``path`` saying which.
    scheduler, n_workers, batch, output, overwrite, progress : see :func:`skilib.studies.sweep` (an
        existing ``output`` file is replaced only with ``overwrite=True``).

    Returns a ``SweepResult`` whose frame has the ``SUMMARY_COLUMNS`` (or ``outputs``; NaN for failed runs)
    and ``data_sha256`` (the force data's checksum, or 'user push_force'), and whose info also
    records data_sha256, push_force, strokes and solver.
    """
    params = _check_parameters(parameters)
    run = SkierRun(strokes=strokes, push_force=push_force, solver=solver, outputs=outputs, method=method)
    checksum = data_checksum() if push_force is None else None
    provenance = dict(data_sha256=checksum,
                      push_force="synthetic force data fit" if push_force is None else repr(push_force),
                      strokes=run.strokes, solver=run.solver, method=run.method)
    return run_sweep(run, params, outputs=run.columns, provenance=provenance,
                  columns={"data_sha256": checksum if checksum is not None else "user push_force"},
                  scheduler=scheduler, n_workers=n_workers, batch=batch, output=output, overwrite=overwrite,
                  progress=progress)
