"""Parameter sweeps: one function over many parameter rows, on Dask, into one table.

The thesis's stated purpose is to find "optimum combinations" of skating angle, stride and
force (Bruzzo 2012, ch. 6).  That means many long runs.  ``sweep(fn, parameters)`` calls
``fn`` once per row of a DataFrame (the row as a dict of its columns) and returns one row per
parameter set with the parameters, a status and ``fn``'s outputs.  Any function of a
parameter row will do; the thesis's skier has its own, ``sweep_skier(parameters, strokes=...)``,
which runs ``simulate_run`` for every row and summarises each run (:mod:`skilib.studies.skier_sweep`),
and the free skater a row function (:mod:`skilib.studies.free_sweep`).

Where the runs go.  By default a ``dask.distributed.LocalCluster`` with one single-threaded
worker process per core; ``scheduler="tcp://host:8786"`` (or a ``distributed.Client``) sends
the same call to an existing cluster; ``scheduler="serial"`` runs in this process without
Dask.  The rows are independent, so for a deterministic ``fn`` the result does not depend on
where or in which order they were run.

Failures.  A row whose function raises (a non-physical value, an integration failure, a lost
worker) becomes a row with ``status="error"`` and the error message; the other rows go on.
Each row is validated where it runs, so one bad cell (a NaN or a string in a column of
numbers) fails only its own row.  A worker process that dies (a fatal signal) fails its row
with the fault report the worker left, when it left one.  Nothing is dropped: the output has
exactly one row per input row, in input order, and ``output=`` is written with the failed
rows too (a column mixing numbers and text is stored as text).

Provenance.  Every row carries the skilib version; ``output=path`` writes the table to
Parquet with the sweep's ``info`` (version, function, the caller's provenance, scheduler,
wall time) in the file's metadata; ``read_sweep`` reads both back.
"""
from __future__ import annotations

import faulthandler
import json
import re
import logging
import math
import numbers
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.files import check_target, write_atomic
from ..engine.validation import check_bool, check_number

__all__ = ["sweep", "run_sweep", "read_sweep", "SweepResult", "check_parameter_frame", "plain", "STEADY"]

# columns every sweep writes besides the parameters and the outputs
_SWEEP_COLUMNS = ("run", "status", "error", "skilib_version")
# info entries sweep sets itself (a caller's provenance must not overwrite them)
_INFO_KEYS = ("skilib_version", "function", "scheduler", "n_workers", "wall_s", "n_runs", "n_failed")
#: the ``strokes`` value of a model's sweep that asks for each row's periodic stroke
STEADY = "steady"


def _version() -> str:
    from .. import __version__

    return __version__


def plain(v):
    """numpy scalars → Python scalars (row functions such as SkierParams check Python types)."""
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


@dataclass
class SweepResult:
    """What ``sweep`` returns.

    - frame : one row per input row, in input order: ``run`` (the input index), the
      parameters, ``status`` ('ok' | 'error'), ``error`` (message, '' if ok), the outputs
      (NaN for failed rows), ``skilib_version`` (and, for the skier, ``data_sha256``).
    - info : skilib version, the function, the caller's provenance, scheduler, number of
      workers, wall time, number of rows and of failed rows.
    - path : the Parquet file written, if any.
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


# ---------------------------------------------------------------------------
# one row
# ---------------------------------------------------------------------------

def _as_outputs(result, what: str, outputs, reserved) -> dict:
    """A row's result as {column: value}; a result that cannot be one is an error of that row."""
    if isinstance(result, pd.Series):
        out = {str(k): v for k, v in result.items()}
    elif isinstance(result, Mapping):
        out = {str(k): v for k, v in result.items()}
    elif result is None or isinstance(result, (numbers.Number, str, np.generic)):
        out = {"value": result}
    else:
        raise ValueError(f"{what} returned a {type(result).__name__}; return a dict, a Series or a scalar, "
                         "or pass summarize= to turn it into a dict")
    if outputs is not None and set(out) != set(outputs):
        missing, extra = [k for k in outputs if k not in out], [k for k in out if k not in outputs]
        raise ValueError(f"{what} returned the outputs {list(out)}, not the declared {list(outputs)} "
                         f"(missing {missing}, unexpected {extra})")
    clash = [k for k in out if k in reserved]
    if clash:
        raise ValueError(f"{what} returned output(s) {clash} named like parameter or sweep columns")
    return out


def _run_guarded(fn, summarize, outputs, reserved, run_id, row, crash_dir=None):
    """``fn(row)`` (then ``summarize``) that never raises: a failure is a row with its error.

    With ``crash_dir`` (a folder the worker can write), a fatal signal that kills the worker
    process (SIGSEGV, SIGBUS, ...) leaves Python's fault report in ``crash_dir/<run>.log``,
    which the sweep reads to say why the worker died."""
    log = None
    if crash_dir is not None:  # best effort: without the log the row still runs, a death is reported plainly
        try:
            log = open(Path(crash_dir) / f"{run_id}.log", "w")
            log.write(f"row {run_id}: the worker process died while running it\n")
            log.flush()
            faulthandler.enable(file=log)
        except OSError:
            if log is not None:  # opened but not written (disk full): no half log for _death_reason
                log.close()
                try:
                    os.unlink(log.name)
                except OSError:
                    pass
            log = None
    try:
        result = fn(row)
        what = "fn"
        if summarize is not None:
            result, what = summarize(result), "summarize"
        return run_id, "ok", "", _as_outputs(result, what, outputs, reserved)
    except Exception as exc:  # noqa: BLE001 - every failure is reported in the output row
        where = traceback.extract_tb(exc.__traceback__)[-1]
        msg = f"{type(exc).__name__}: {exc} (at {Path(where.filename).name}:{where.lineno})"
        return run_id, "error", msg, {}
    finally:
        if log is not None:
            faulthandler.disable()
            log.close()
            try:
                os.unlink(log.name)
            except OSError:
                pass


def _death_reason(crash_dir, run_id) -> str:
    """What a worker that died on row ``run_id`` left in its fault log, in one line ('' if nothing)."""
    if crash_dir is None:
        return ""
    try:
        text = (Path(crash_dir) / f"{run_id}.log").read_text(errors="replace")
    except OSError:
        return ""
    lines = [ln.strip() for ln in text.splitlines()[1:] if ln.strip()]
    if not lines:
        return "; it left no Python fault report (killed by SIGKILL, e.g. out of memory?)"
    fatal = next((ln for ln in lines if ln.startswith("Fatal Python error")), lines[0])
    frames = [ln for ln in lines if ln.startswith("File ")]
    return f"; the worker reported: {fatal}" + (f" in {frames[0]}" if frames else "")


# ---------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------

def check_parameter_frame(parameters) -> pd.DataFrame:
    """``parameters`` if it is a sweep's table (a DataFrame with rows, columns, unique names and
    index labels, none of the sweep's own columns), else a ValueError naming what is wrong."""
    if not isinstance(parameters, pd.DataFrame):
        raise ValueError(f"parameters: expected a pandas DataFrame (one parameter set per row), "
                         f"got {type(parameters).__name__}")
    if parameters.empty or not len(parameters.columns):
        raise ValueError("parameters: the DataFrame has no rows or no columns; nothing to run")
    cols = [str(c) for c in parameters.columns]
    if len(set(cols)) != len(cols):
        raise ValueError(f"parameters: duplicate column names in {cols}")
    taken = sorted(set(cols) & set(_SWEEP_COLUMNS))
    if taken:
        raise ValueError(f"parameters: column(s) {taken} are written by the sweep itself; rename them")
    if not parameters.index.is_unique:
        dup = parameters.index[parameters.index.duplicated()].tolist()[:5]
        raise ValueError(f"parameters: the index labels the runs and must be unique; repeated: {dup}")
    return parameters


def check_outputs(outputs, reserved) -> tuple | None:
    if outputs is None:
        return None
    if isinstance(outputs, str) or not all(isinstance(k, str) for k in outputs):
        raise ValueError(f"outputs: expected a sequence of column names, got {outputs!r}")
    outputs = tuple(outputs)
    if not outputs or len(set(outputs)) != len(outputs):
        raise ValueError(f"outputs: expected distinct column names, got {list(outputs)}")
    clash = [k for k in outputs if k in reserved]
    if clash:
        raise ValueError(f"outputs: {clash} are named like parameter or sweep columns")
    return outputs


def _check_scheduler(scheduler, n_workers) -> None:
    if n_workers is not None:
        check_number("n_workers", n_workers, integer=True, low=1, high=4096)
    if isinstance(scheduler, str) and scheduler != "serial" and not re.fullmatch(r"(tcp|tls|inproc|ucx|ws|wss)://\S+", scheduler):
        # an address is protocol://host:port; anything else is a typo, not a cluster to look for
        raise ValueError(f"scheduler: expected 'serial' or a scheduler address such as 'tcp://host:8786', "
                         f"got {scheduler!r}")
    if scheduler is None or isinstance(scheduler, str):
        if isinstance(scheduler, str) and scheduler != "serial" and n_workers is not None:
            raise ValueError("n_workers: only for the default LocalCluster; a running scheduler has its own workers")
        return
    from distributed import Client

    if not isinstance(scheduler, Client):
        raise ValueError(f"scheduler: expected None, 'serial', a scheduler address or a distributed.Client, "
                         f"got {scheduler!r}")


# ---------------------------------------------------------------------------
# the sweep
# ---------------------------------------------------------------------------

def sweep(fn, parameters=None, *, summarize=None, outputs=None, provenance=None, scheduler=None,
          n_workers: int | None = None, batch: int = 1, output=None, overwrite: bool = False,
          progress: bool = True) -> SweepResult:
    """Run ``fn`` on every row of ``parameters``; one table of rows, statuses and outputs.

    Parameters
    ----------
    fn : callable, ``fn(row) -> outputs``.  ``row`` is a dict of the row's columns (numpy
        scalars as Python scalars).  Outputs: a dict or Series {name: value}, a scalar (column
        ``value``), or any object that ``summarize`` turns into one of these.  With Dask it
        must be picklable (cloudpickle: closures and lambdas are fine).
    parameters : DataFrame, one parameter set per row; the index labels the runs (unique).
    summarize : callable or None, applied to ``fn``'s result where ``fn`` ran (on the worker,
        so a large result never travels).
    outputs : the output names every row must return, in column order; a row that returns
        others fails.  Default: whatever the rows return, in order of first appearance
        (a name some rows lack is NaN there).
    provenance : dict recorded in ``info`` and in the Parquet file's metadata (e.g. the
        checksum of an input file).
    scheduler : None (a new LocalCluster, closed afterwards), an address 'tcp://…' of a
        running Dask scheduler, a ``distributed.Client``, or 'serial' (this process, no Dask).
    n_workers : worker processes of the LocalCluster (default: the machine's cores).
    batch : rows per Dask task (an integer >= 1; default 1).  Each task costs the scheduler and
        this process about as much as a run of tens of milliseconds, so a design of many short
        rows runs in batches (the rows of a batch still fail one by one).  A batch whose worker
        dies is run again row by row, so that the row that killed it is found and fails alone.
        Batches change no result: the rows are the same calls.  Ignored with 'serial'.
    output : path of a Parquet file to write (missing parent folders are created).  It is
        checked before any row runs (an existing file without ``overwrite=True``, a folder, a
        name ending in "/", anything but a regular file, and a name not ending in ``.parquet``,
        any case, are refused at once) and written atomically
        (``skilib.data.files.write_atomic``): the table is read back (its row count and the
        sweep's metadata) before it takes the name ``output``; on failure an existing file is
        left as it was.
    overwrite : replace an existing ``output`` file (default: ``FileExistsError``).
    progress : show a progress bar (tqdm, on stderr).

    Returns a ``SweepResult``; a row whose ``fn`` raised has status 'error' and its message.

    Examples
    --------
    Two rows run, one fails; the table keeps the input order and both outcomes:

    >>> import pandas as pd
    >>> from skilib.studies import sweep
    >>> def box(row):
    ...     if row["w"] < 0:
    ...         raise ValueError("w: must be >= 0")
    ...     return {"area": row["w"] * row["h"], "perimeter": 2 * (row["w"] + row["h"])}
    >>> grid = pd.DataFrame({"w": [2.0, -1.0, 3.0], "h": [1.5, 1.0, 0.5]})
    >>> res = sweep(box, grid, scheduler="serial", progress=False)
    >>> res.frame[["run", "w", "h", "status", "area", "perimeter"]]
       run    w    h status  area  perimeter
    0    0  2.0  1.5     ok   3.0        7.0
    1    1 -1.0  1.0  error   NaN        NaN
    2    2  3.0  0.5     ok   1.5        7.0
    >>> res.failed.error.iloc[0].split(" (at ")[0]
    'ValueError: w: must be >= 0'
    """
    if not callable(fn):
        hint = ("; the thesis's skier's sweep of a parameter table is sweep_skier(parameters, strokes=...)"
                if isinstance(fn, pd.DataFrame) else "")
        raise ValueError(f"fn: expected a callable of a parameter row, got {type(fn).__name__}{hint}")
    return run_sweep(fn, parameters, summarize=summarize, outputs=outputs, provenance=provenance,
                     scheduler=scheduler, n_workers=n_workers, batch=batch, output=output, overwrite=overwrite,
                     progress=progress)


def run_sweep(fn, parameters, *, summarize=None, outputs=None, provenance=None, columns=None, scheduler=None,
              n_workers=None, batch: int = 1, output=None, overwrite: bool = False, progress=True) -> SweepResult:
    """``sweep``'s work, for the sweeps built on it (``sweep_skier``); ``columns`` {name: value} are
    constant provenance columns of every row."""
    params = check_parameter_frame(parameters)
    progress = check_bool("progress", progress)
    overwrite = check_bool("overwrite", overwrite)
    if output is not None:  # before the runs: a sweep must not run for hours and then fail to write
        output = check_target(output, overwrite=overwrite, make_parents=True, what="sweep table")
        if output.suffix.lower() == ".csv":
            raise ValueError(f"output: {output} names a CSV file, but sweep writes Parquet (with its info in the "
                             "file's metadata); give a .parquet name (and use SweepResult.frame.to_csv for a CSV)")
        if output.suffix.lower() != ".parquet":
            got = f"the suffix {output.suffix!r}" if output.suffix else "no suffix"
            raise ValueError(f"output: {output} has {got}, but sweep writes Parquet only: give a name ending in "
                             ".parquet")
    if summarize is not None and not callable(summarize):
        raise ValueError(f"summarize: must be None or a callable, got {summarize!r}")
    columns = dict(columns or {})
    reserved = frozenset(str(c) for c in params.columns) | set(_SWEEP_COLUMNS) | set(columns)
    outputs = check_outputs(outputs, reserved)
    if provenance is not None and not isinstance(provenance, Mapping):
        raise ValueError(f"provenance: expected a dict, got {type(provenance).__name__}")
    provenance = {str(k): v for k, v in (provenance or {}).items()}
    clash = sorted(set(provenance) & set(_INFO_KEYS))
    if clash:
        raise ValueError(f"provenance: key(s) {clash} are set by the sweep itself")
    _check_scheduler(scheduler, n_workers)
    batch = check_number("batch", batch, integer=True, positive=True)

    records = [(i, {str(k): plain(v) for k, v in row.items()}) for i, row in enumerate(params.to_dict("records"))]
    task = (fn, summarize, outputs, reserved)
    t0 = time.perf_counter()
    bar = _progress(len(records), progress)
    try:
        if isinstance(scheduler, str) and scheduler == "serial":
            results, where, workers = [], "serial", 1
            for i, p in records:
                results.append(_run_guarded(*task, i, p))
                bar.update(1)
        else:
            results, where, workers = _run_dask(records, task, scheduler, n_workers, bar, batch)
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    frame = _assemble(params, results, outputs)
    frame["skilib_version"] = _version()
    for name, value in columns.items():
        frame[name] = value
    info = dict(skilib_version=_version(), function=_name(fn), **provenance, scheduler=where, n_workers=workers,
                wall_s=wall, n_runs=len(frame), n_failed=int((frame["status"] != "ok").sum()))
    path = None
    if output is not None:
        path = _write(frame, info, output, overwrite)
    return SweepResult(frame=frame, info=info, path=path)


def _name(fn) -> str:
    """Module-qualified name of ``fn``, or of its class for a callable object (info['function'])."""
    f = fn if hasattr(fn, "__qualname__") else type(fn)
    return f"{getattr(f, '__module__', None) or '?'}.{f.__qualname__}"


def _progress(total, enabled):
    from tqdm import tqdm

    return tqdm(total=total, desc="skilib.sweep", unit="run", disable=not enabled, file=sys.stderr,
                mininterval=0.5, dynamic_ncols=False, ncols=80)


def _run_batch(fn, summarize, outputs, reserved, rows, crash_dir=None):
    """``_run_guarded`` of each (run id, row) of ``rows``, in order: one Dask task."""
    return [_run_guarded(fn, summarize, outputs, reserved, i, p, crash_dir) for i, p in rows]


def _run_dask(records, task, scheduler, n_workers, bar, batch=1):
    from distributed import Client, LocalCluster, as_completed

    own_cluster = own_client = None
    if scheduler is None:
        n = int(n_workers or os.cpu_count() or 1)
        # one single-threaded process per worker: the runs hold the GIL
        # ':0': the scheduler's HTTP server takes a free port (another cluster may hold 8787).
        # worker-saturation 1: a worker holds one task at a time, so that a row that kills its
        # worker takes no queued row down with it (Dask marks every task processing on a dead
        # worker as suspect, and a suspect task fails after a few deaths)
        import dask

        with dask.config.set({"distributed.scheduler.worker-saturation": 1.0}):
            own_cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
        client = own_client = Client(own_cluster)
        where = "LocalCluster"
    elif isinstance(scheduler, str):
        client = own_client = Client(scheduler)
        where = scheduler
    else:  # a Client (checked by _check_scheduler)
        client, where = scheduler, str(getattr(scheduler, "scheduler", "client"))
    # the workers of our own cluster share this machine: they leave a fault report there
    crash_dir = tempfile.mkdtemp(prefix="skilib-sweep-") if own_cluster is not None else None
    try:
        workers = len(client.scheduler_info().get("workers", {}))
        params = dict(records)
        index, results, retried = {}, [], set()
        pending = as_completed()

        def submit(rows):  # one task of these (run id, row) pairs
            fut = client.submit(_run_batch, *task, rows, crash_dir, pure=False)
            index[fut.key] = rows
            pending.add(fut)

        for k in range(0, len(records), batch):
            submit(records[k: k + batch])
        for fut in pending:
            chunk = index.pop(fut.key)
            if fut.status == "finished":
                done = fut.result()
                results.extend(done)
                fut.release()
                bar.update(len(done))
                continue
            exc, i = fut.exception(), chunk[0][0]
            fut.release()
            if len(chunk) > 1:  # a row of the batch killed its worker: its rows again one by one, to find it
                for row in chunk:
                    submit([row])
                continue
            # the task itself failed (a worker died): report it with the worker's reason, keep going
            reason = _death_reason(crash_dir, i)
            if crash_dir is not None and not reason and i not in retried:
                # it left no report: it did not kill the worker, it was queued on one that
                # another row killed; run it again, once
                retried.add(i)
                submit([(i, params[i])])
                continue
            results.append((i, "error", f"{type(exc).__name__}: {exc} (Dask task failed{reason})", {}))
            bar.update(1)
        return results, where, workers
    finally:
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()
        if crash_dir is not None:
            shutil.rmtree(crash_dir, ignore_errors=True)


def _assemble(params: pd.DataFrame, results, outputs) -> pd.DataFrame:
    """The rows back in input order (Dask returns them as they finish)."""
    by_id = {i: (status, err, out) for i, status, err, out in results}
    ordered = [by_id[i] for i in range(len(params))]
    if outputs is None:  # first appearance in input order: the same columns wherever the rows ran
        outputs = list(dict.fromkeys(k for _, _, out in ordered for k in out))
    rows = [{"status": status, "error": err, **{k: out.get(k, math.nan) for k in outputs}}
            for status, err, out in ordered]
    summ = pd.DataFrame(rows, index=params.index, columns=["status", "error", *outputs])
    frame = pd.concat([params.copy(), summ], axis=1)
    frame.insert(0, "run", params.index)
    return frame.reset_index(drop=True)


def _write(frame: pd.DataFrame, info: dict, path: Path, overwrite: bool) -> Path:
    """The table as Parquet at ``path`` (atomically, read back: row count and the sweep's metadata)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(_parquet_safe(frame), preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[b"skilib.sweep"] = json.dumps(info, default=str).encode()
    table = table.replace_schema_metadata(meta)

    def verify(tmp):
        md = pq.read_metadata(tmp)
        if md.num_rows != len(frame) or md.num_columns != table.num_columns:
            raise ValueError(f"{md.num_rows} rows x {md.num_columns} columns read, {len(frame)} x "
                             f"{table.num_columns} written")
        if (pq.read_schema(tmp).metadata or {}).get(b"skilib.sweep") != meta[b"skilib.sweep"]:
            raise ValueError("the sweep's metadata did not read back")

    return write_atomic(path, lambda tmp: pq.write_table(table, tmp), overwrite=overwrite, verify=verify,
                        make_parents=True, what="sweep table")


def _parquet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every column Parquet can store: a column mixing types (a parameter
    column with a string cell among numbers, which fails only its row) is written as text,
    missing values kept missing; the returned frame itself is unchanged."""
    out = None
    for c in frame.columns:
        col = frame[c]
        if col.dtype != object:
            continue
        kinds = {type(v) for v in col if not (v is None or (isinstance(v, float) and math.isnan(v)))}
        if len(kinds) <= 1 and not (kinds and next(iter(kinds)) not in (str, bool, int, float)):
            continue
        out = frame.copy() if out is None else out
        out[c] = [None if v is None or (isinstance(v, float) and math.isnan(v)) else str(v) for v in col]
    return frame if out is None else out


def read_sweep(path) -> SweepResult:
    """A sweep written with ``sweep(..., output=path)``: its table and its info."""
    import pyarrow.parquet as pq

    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(f"{p}: is a folder, not a sweep file")
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such sweep file")
    try:
        md = pq.read_metadata(p)
        table = pq.read_table(p)
    except OSError as exc:
        raise OSError(f"{p}: cannot read the sweep file: {exc}") from exc
    except Exception as exc:  # noqa: BLE001 - pyarrow's own errors (not Parquet, corrupt)
        raise ValueError(f"{p}: not a readable Parquet file ({type(exc).__name__}: {exc})") from exc
    if table.num_rows != md.num_rows:
        raise ValueError(f"{p}: {table.num_rows} rows read, the file's footer declares {md.num_rows}")
    raw = (table.schema.metadata or {}).get(b"skilib.sweep")
    if raw is None:
        raise ValueError(f"{p}: not written by skilib.sweep (no 'skilib.sweep' metadata)")
    return SweepResult(frame=table.to_pandas(), info=json.loads(raw), path=p)
