"""The sensitivity chapter's large Sobol design of the thesis's skier, run once and kept.

The chapter's notebook runs a design of N = 128 base points (N (D + 2) = 896 periodic strokes)
whose 95 % intervals are too wide to rank the five factors.  ``sobol_study`` runs the same
study at a larger N through ``skilib.sweep`` (so the same call runs on a cluster), and
``scripts/sobol_study.py`` writes its outputs to ``SOBOL_FILE`` (one row per design row: the
factors, the periodic stroke's mean CM speed and mean push power) with a JSON beside it saying
when, by which commit and in how long it was produced.  The notebook computes the indices and
their bootstrap intervals from that file; ``check_rows`` re-runs rows of it and compares them
bit for bit.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ...studies.sensitivity import sobol_design
from .laws import with_leg_laws

__all__ = ["SOBOL_RANGES", "SOBOL_SEED", "SOBOL_SOLVER", "SOBOL_OUTPUTS", "SOBOL_BATCH", "SOBOL_FILE", "sobol_study",
           "read_sobol_study", "check_rows"]

#: the five factors and their ranges (the notebook's defaults: table 9 ± its plausible spread)
SOBOL_RANGES = {"skating_angle_deg": (30.0, 70.0), "phase_time": (0.7, 1.5), "force_scale": (0.5, 1.5),
                "friction": (0.0, 20.0), "mass": (60.0, 90.0)}
SOBOL_SEED = 2026
#: each row's run: the periodic stroke (``steady_state``), tabulated every 0.1 s (the default tolerances)
SOBOL_SOLVER = {"dt_out": 0.1}
SOBOL_OUTPUTS = ("mean_speed", "mean_power")
#: rows per Dask task: a row takes ~60 ms, about what Dask spends on a task in the scheduler and
#: the client, so one task per row would leave the workers half idle (measured: 14 rows/s on 2 workers)
SOBOL_BATCH = 32
SOBOL_FILE = Path(__file__).resolve().parents[3] / "data" / "sobol" / "thesis_sobol_N16384.parquet"


def _run(design, scheduler=None, n_workers=None, progress=True):
    import skilib as sk  # the sweep of the skier (skilib.studies.skier_sweep)

    runs = sk.sweep_skier(with_leg_laws(design), strokes="steady", solver=SOBOL_SOLVER, scheduler=scheduler,
                          n_workers=n_workers, batch=SOBOL_BATCH, progress=progress)
    if len(runs.failed):
        raise RuntimeError(f"failed runs of the Sobol design:\n{runs.failed[['run', 'error']]}")
    out = design.reset_index(drop=True).copy()
    for y in SOBOL_OUTPUTS:
        out[y] = runs.frame.sort_values("run")[y].to_numpy()
    return out, runs.info


def sobol_study(n: int = 16384, *, seed: int = SOBOL_SEED, scheduler=None, n_workers=None, progress=True):
    """The Sobol design of ``SOBOL_RANGES`` at base size ``n`` (a power of 2), each row's periodic
    stroke run; returns (DataFrame of the factors and ``SOBOL_OUTPUTS``, the sweep's info)."""
    return _run(sobol_design(dict(SOBOL_RANGES), n, seed=seed), scheduler, n_workers, progress)


def read_sobol_study(path=SOBOL_FILE):
    """(the kept outputs, their metadata) of ``scripts/sobol_study.py``, with the design
    rebuilt from the metadata's N and seed (``attrs['sobol']``, for ``sobol_indices``); a
    ``ValueError`` naming the file if its factors are not that design's, bit for bit."""
    path = Path(path)
    meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    frame = pd.read_parquet(path)
    design = sobol_design(dict(SOBOL_RANGES), int(meta["n"]), seed=int(meta["seed"]))
    if frame.shape[0] != len(design) or not np.array_equal(frame[list(design.columns)].to_numpy(), design.to_numpy()):
        raise ValueError(f"{path}: its factors are not the Sobol design of N = {meta['n']}, seed {meta['seed']}")
    frame.attrs["sobol"] = design.attrs["sobol"]
    return frame, meta


def check_rows(frame, rows) -> list:
    """Re-run the design rows ``rows`` (indices) of a kept study and return those whose outputs
    differ from the kept ones in any bit (an empty list: reproduced)."""
    sub = frame.loc[list(rows), list(SOBOL_RANGES)]
    again, _ = _run(sub.reset_index(drop=True), scheduler="serial", progress=False)
    kept = frame.loc[list(rows), list(SOBOL_OUTPUTS)].to_numpy()
    return [r for r, a, b in zip(rows, again[list(SOBOL_OUTPUTS)].to_numpy(), kept) if not np.array_equal(a, b)]
