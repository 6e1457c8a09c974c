"""Parameter sweeps: many skier runs in, one table of per-run summaries out, on Dask.

The thesis's stated purpose is to find "optimum combinations" of skating angle, stride and
force (Bruzzo 2012, ch. 6).  That means many long runs.  ``sweep`` takes a pandas DataFrame
with one parameter set per row, runs ``simulate_run`` for each, and returns one row per
parameter set with the parameters, a status, and the steady-state summary of the run.

Where the runs go.  By default a ``dask.distributed.LocalCluster`` with one single-threaded
worker process per core; ``scheduler="tcp://host:8786"`` (or a ``distributed.Client``) sends
the same call to an existing cluster; ``scheduler="serial"`` runs in this process without
Dask.  Every run is independent and deterministic, so the result does not depend on where
or in which order the runs were done.

Failures.  A parameter set that raises (a non-physical value, an integration failure, a lost
worker) becomes a row with ``status="error"`` and the error message; the other runs go on.
Nothing is dropped: the output has exactly one row per input row, in input order.

Provenance.  ``output=path`` writes the table to Parquet with the skilib version and the
sha256 of the force data set behind the default push-off curve in every row and in the
file's metadata (``read_sweep`` reads it back).
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import sys
import time
import traceback
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np
import pandas as pd

from ..skier.model import SkierParams

__all__ = ["sweep", "run_summary", "read_sweep", "SweepResult", "PARAMETER_COLUMNS", "SUMMARY_COLUMNS",
           "data_checksum"]

#: columns a parameter DataFrame may have: every SkierParams field and simulate_run's
#: per-run keywords
PARAMETER_COLUMNS = tuple(f.name for f in fields(SkierParams)) + ("strokes", "force_scale", "v0", "first_ski")
#: what each run reports (the last stroke is the "steady" one)
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
_SOLVER_KEYWORDS = ("method", "rtol", "atol", "h", "dt_out", "n_out", "compiled", "rotation", "stabilization",
                    "projection_tol")


def data_checksum(path=None) -> str:
    """sha256 of a force data file (default: the committed SYNTHETIC data set)."""
    from ..data.forcedata import default_data_path

    p = Path(default_data_path() if path is None else path)
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _version() -> str:
    from .. import __version__

    return __version__


def _plain(v):
    """numpy scalars → Python scalars (SkierParams validates Python types)."""
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def run_summary(parameters: dict, *, strokes: int = 6, push_force=None, solver: dict | None = None) -> dict:
    """One run of ``simulate_run`` for one parameter set, summarised (``SUMMARY_COLUMNS``).

    ``parameters``: SkierParams fields and the keywords strokes, force_scale, v0, first_ski
    (a ``strokes`` entry overrides the keyword).  Raises what ``simulate_run`` raises.
    """
    from ..skier.simulate import simulate_run

    p = {k: _plain(v) for k, v in parameters.items()}
    unknown = sorted(set(p) - set(PARAMETER_COLUMNS))
    if unknown:
        raise ValueError(f"parameters: unknown name(s) {unknown}; allowed: {list(PARAMETER_COLUMNS)}")
    n = p.pop("strokes", strokes)
    run_kw = {k: p.pop(k) for k in ("force_scale", "v0", "first_ski") if k in p}
    t0 = time.perf_counter()
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


def _run_guarded(run_id, parameters, strokes, push_force, solver):
    """``run_summary`` that never raises: a failure is a row with its error."""
    try:
        out = run_summary(parameters, strokes=strokes, push_force=push_force, solver=solver)
        return run_id, "ok", "", out
    except Exception as exc:  # noqa: BLE001 - every failure is reported in the output row
        where = traceback.extract_tb(exc.__traceback__)[-1]
        msg = f"{type(exc).__name__}: {exc} (at {Path(where.filename).name}:{where.lineno})"
        return run_id, "error", msg, {}


@dataclass
class SweepResult:
    """What ``sweep`` returns.

    frame : one row per input row, in input order: ``run`` (the input index), the
        parameters, ``status`` ('ok' | 'error'), ``error`` (message, '' if ok), the
        ``SUMMARY_COLUMNS`` (NaN for failed runs), ``skilib_version``, ``data_sha256``.
    info : skilib version, data checksum, strokes, solver keywords, scheduler, number of
        workers, wall time, number of failed runs.
    path : the Parquet file written, if any.
    """

    frame: pd.DataFrame
    info: dict = field(default_factory=dict)
    path: Path | None = None

    @property
    def ok(self) -> pd.DataFrame:
        return self.frame[self.frame["status"] == "ok"]

    @property
    def failed(self) -> pd.DataFrame:
        return self.frame[self.frame["status"] != "ok"]


def _check_parameters(parameters) -> pd.DataFrame:
    if not isinstance(parameters, pd.DataFrame):
        raise ValueError(f"parameters: expected a pandas DataFrame (one parameter set per row), "
                         f"got {type(parameters).__name__}")
    if parameters.empty or not len(parameters.columns):
        raise ValueError("parameters: the DataFrame has no rows or no columns; nothing to run")
    cols = [str(c) for c in parameters.columns]
    unknown = sorted(set(cols) - set(PARAMETER_COLUMNS))
    if unknown:
        raise ValueError(f"parameters: unknown column(s) {unknown}; allowed: {list(PARAMETER_COLUMNS)}")
    if len(set(cols)) != len(cols):
        raise ValueError(f"parameters: duplicate column names in {cols}")
    if not parameters.index.is_unique:
        dup = parameters.index[parameters.index.duplicated()].tolist()[:5]
        raise ValueError(f"parameters: the index labels the runs and must be unique; repeated: {dup}")
    return parameters


def _check_solver(solver):
    if solver is None:
        return {}
    if not isinstance(solver, dict):
        raise ValueError(f"solver: expected a dict of simulate_run keywords, got {type(solver).__name__}")
    bad = sorted(set(solver) - set(_SOLVER_KEYWORDS))
    if bad:
        raise ValueError(f"solver: unknown keyword(s) {bad}; allowed: {list(_SOLVER_KEYWORDS)}")
    return dict(solver)


def sweep(parameters: pd.DataFrame, *, strokes: int = 6, push_force=None, solver: dict | None = None,
          scheduler=None, n_workers: int | None = None, output=None, progress: bool = True) -> SweepResult:
    """Run ``simulate_run`` for every row of ``parameters`` and summarise each run.

    Parameters
    ----------
    parameters : DataFrame, one parameter set per row.  Columns: any of ``PARAMETER_COLUMNS``
        (SkierParams fields such as skating_angle_deg, phase_time, c_ext, c_rot_deg, mass,
        friction; and strokes, force_scale, v0, first_ski).  Absent columns keep their
        defaults (SkierParams(), table 9).  The index labels the runs (must be unique).
    strokes : strokes per run unless a ``strokes`` column says otherwise.
    push_force : None (the Fourier fit of the SYNTHETIC force data) or a picklable callable
        F(τ) [N] used for every run.
    solver : simulate_run keywords (method, rtol, atol, h, dt_out, n_out, compiled, rotation,
        stabilization, projection_tol).
    scheduler : None (a new LocalCluster, closed afterwards), an address 'tcp://…' of a
        running Dask scheduler, a ``distributed.Client``, or 'serial' (this process, no Dask).
    n_workers : worker processes of the LocalCluster (default: the machine's cores).
    output : path of a Parquet file to write (parent folders are created).
    progress : show a progress bar (tqdm, on stderr).

    Returns a ``SweepResult``; failing parameter sets are rows with status 'error'.
    """
    params = _check_parameters(parameters)
    if not (isinstance(strokes, (int, np.integer)) and not isinstance(strokes, bool) and strokes >= 1):
        raise ValueError(f"strokes: must be a positive integer, got {strokes!r}")
    solver = _check_solver(solver)
    if push_force is not None and not callable(push_force):
        raise ValueError(f"push_force: must be None or a callable F(τ) [N], got {push_force!r}")
    if n_workers is not None and not (isinstance(n_workers, (int, np.integer)) and n_workers >= 1):
        raise ValueError(f"n_workers: must be a positive integer, got {n_workers!r}")
    records = [(i, {str(k): v for k, v in row.items()}) for i, row in enumerate(params.to_dict("records"))]
    kwargs = dict(strokes=int(strokes), push_force=push_force, solver=solver)
    t0 = time.perf_counter()
    bar = _progress(len(records), progress)
    try:
        if isinstance(scheduler, str) and scheduler == "serial":
            results, where, workers = [], "serial", 1
            for i, p in records:
                results.append(_run_guarded(i, p, **kwargs))
                bar.update(1)
        else:
            results, where, workers = _run_dask(records, kwargs, scheduler, n_workers, bar)
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    frame = _assemble(params, results)
    checksum = data_checksum() if push_force is None else None
    frame["skilib_version"] = _version()
    frame["data_sha256"] = checksum if checksum is not None else "user push_force"
    info = dict(skilib_version=_version(), data_sha256=checksum,
                push_force="synthetic force data fit" if push_force is None else repr(push_force),
                strokes=int(strokes), solver=solver, scheduler=where, n_workers=workers, wall_s=wall,
                n_runs=len(frame), n_failed=int((frame["status"] != "ok").sum()))
    path = None
    if output is not None:
        path = _write(frame, info, Path(output))
    return SweepResult(frame=frame, info=info, path=path)


def _progress(total, enabled):
    from tqdm import tqdm

    return tqdm(total=total, desc="skilib.sweep", unit="run", disable=not enabled, file=sys.stderr,
                mininterval=0.5, dynamic_ncols=False, ncols=80)


def _run_dask(records, kwargs, scheduler, n_workers, bar):
    from distributed import Client, LocalCluster, as_completed

    own_cluster = own_client = None
    if scheduler is None:
        n = int(n_workers or os.cpu_count() or 1)
        # one single-threaded process per worker: the runs hold the GIL
        # ':0': the scheduler's HTTP server takes a free port (another cluster may hold 8787)
        own_cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                                   silence_logs=logging.ERROR)
        client = own_client = Client(own_cluster)
        where = "LocalCluster"
    elif isinstance(scheduler, str):
        if n_workers is not None:
            raise ValueError("n_workers: only for the default LocalCluster; a running scheduler has its own workers")
        client = own_client = Client(scheduler)
        where = scheduler
    elif isinstance(scheduler, Client):
        client, where = scheduler, str(getattr(scheduler, "scheduler", "client"))
    else:
        raise ValueError(f"scheduler: expected None, 'serial', a scheduler address or a distributed.Client, "
                         f"got {scheduler!r}")
    try:
        workers = len(client.scheduler_info().get("workers", {}))
        futures = [client.submit(_run_guarded, i, p, pure=False, **kwargs) for i, p in records]
        index = {f.key: i for f, (i, _) in zip(futures, records)}
        results = []
        for fut in as_completed(futures):
            if fut.status == "finished":
                results.append(fut.result())
            else:  # the task itself failed (a worker died): report it, keep going
                exc = fut.exception()
                results.append((index[fut.key], "error", f"{type(exc).__name__}: {exc} (Dask task failed)", {}))
            fut.release()
            bar.update(1)
        return results, where, workers
    finally:
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()


def _assemble(params: pd.DataFrame, results) -> pd.DataFrame:
    by_id = {i: (status, err, out) for i, status, err, out in results}
    rows = []
    for i in range(len(params)):
        status, err, out = by_id[i]
        rows.append({"status": status, "error": err, **{k: out.get(k, math.nan) for k in SUMMARY_COLUMNS}})
    summ = pd.DataFrame(rows, index=params.index)
    frame = pd.concat([params.copy(), summ], axis=1)
    frame.insert(0, "run", params.index)
    return frame.reset_index(drop=True)


def _write(frame: pd.DataFrame, info: dict, path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[b"skilib.sweep"] = json.dumps(info, default=str).encode()
    pq.write_table(table.replace_schema_metadata(meta), path)
    return path


def read_sweep(path) -> SweepResult:
    """A sweep written with ``sweep(..., output=path)``: its table and its info."""
    import pyarrow.parquet as pq

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such sweep file")
    table = pq.read_table(p)
    raw = (table.schema.metadata or {}).get(b"skilib.sweep")
    if raw is None:
        raise ValueError(f"{p}: not written by skilib.sweep (no 'skilib.sweep' metadata)")
    return SweepResult(frame=table.to_pandas(), info=json.loads(raw), path=p)
