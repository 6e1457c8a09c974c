"""The sensitivity chapter's large Sobol design of the thesis's skier, run once and kept.

The chapter's notebook runs a design of N = 128 base points (N (D + 2) = 896 periodic strokes)
whose 95 % intervals are too wide to rank the five factors.  ``sobol_study`` runs the same
study at a larger N through ``skilib.sweep`` (so the same call runs on a cluster), and
``scripts/sobol_study.py`` writes its outputs to ``SOBOL_FILE`` (one row per design row: the
factors, the periodic stroke's mean CM speed and mean push power) with a JSON beside it saying
when, by which commit and in how long it was produced.  The notebook computes the indices and
their bootstrap intervals from that file; ``check_rows`` re-runs rows of it and reports the
largest difference from the kept outputs.

What "reproduced" means (the compendium's reproducibility contract, chapter *Using this
compendium*).  On the machine and software that wrote the file, a row run again gives its
outputs bit for bit: the run is a fixed sequence of floating-point operations.  Another
processor may not: OpenBLAS picks its kernels by CPU (``OPENBLAS_CORETYPE``), and another
kernel sums a product in another order, so the accelerations differ in their last bits; the
step-size control and the secant then see other numbers, and may take another step or stop at
another iterate.  Both runs are still approximations of one exact periodic stroke, each within
the error ``e`` of the computation (DOP853 at rtol = atol = 1e-10, the fixed point to
|Φ(u) − u| ≤ 1e-10 m/s), so they differ by at most 2e.  ``e`` is measured as the difference
from the same rows at rtol = atol = 1e-12 (``computation_error``): 3.9e-12 relative over the
20 rows the book's notebook checks.  ``KEPT_RTOL`` = 1e-9 lies above 2e by a factor of more
than 100 (the test asks for ten); the differences measured under other OpenBLAS kernels
(over the 20 rows: Prescott 2.0e-14, Haswell 2.4e-14) lie four to five orders of magnitude below it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ...studies.sensitivity import sobol_design
from .laws import with_leg_laws

__all__ = ["SOBOL_RANGES", "SOBOL_SEED", "SOBOL_SOLVER", "SOBOL_OUTPUTS", "SOBOL_BATCH", "SOBOL_FILE", "sobol_study",
           "read_sobol_study", "check_rows", "KeptCheck", "KEPT_RTOL", "computation_error"]

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
#: the same by quadrature (``method="reduced"``), a row taking ~6 ms
SOBOL_BATCH_REDUCED = 256
SOBOL_FILE = Path(__file__).resolve().parents[3] / "data" / "sobol" / "thesis_sobol_N16384.parquet"
#: the relative difference within which a kept output comes out on another machine (module docstring)
KEPT_RTOL = 1e-9
#: the tighter integration that measures the kept computation's own error
REFERENCE_TOL = 1e-12


def _run(design, scheduler=None, n_workers=None, progress=True, solver=SOBOL_SOLVER, method="engine"):
    import skilib as sk  # the sweep of the skier (skilib.studies.skier_sweep)

    # only the means are kept: each row's periodic stroke is found without its tables (the same
    # values bit for bit, ``skilib.models.thesis.steady.steady_means``), or by quadrature
    runs = sk.sweep_skier(with_leg_laws(design), strokes="steady", solver=solver, outputs=SOBOL_OUTPUTS,
                          method=method, scheduler=scheduler, n_workers=n_workers,
                          batch=SOBOL_BATCH if method == "engine" else SOBOL_BATCH_REDUCED, progress=progress)
    if len(runs.failed):
        raise RuntimeError(f"failed runs of the Sobol design:\n{runs.failed[['run', 'error']]}")
    frame = runs.frame.sort_values("run")
    out = design.reset_index(drop=True).copy()
    for y in SOBOL_OUTPUTS:
        out[y] = frame[y].to_numpy()
    info = dict(runs.info)
    if method == "reduced":  # how many rows each path took
        info["paths"] = {str(k): int(v) for k, v in frame["path"].value_counts().items()}
    return out, info


def sobol_study(n: int = 16384, *, seed: int = SOBOL_SEED, scheduler=None, n_workers=None, progress=True,
                method: str = "engine"):
    """The Sobol design of ``SOBOL_RANGES`` at base size ``n`` (a power of 2), each row's periodic
    stroke run; returns (DataFrame of the factors and ``SOBOL_OUTPUTS``, the sweep's info).

    ``method``: "engine" (the multibody engine, which wrote the kept file) or "reduced" (each
    row's means by quadrature in the skier's one degree of freedom,
    ``skilib.models.thesis.reduced``, the engine's path for a row it does not cover; the info's
    ``paths`` counts them): the same outputs to the engine's own error (about 1e-11 relative, far
    inside ``KEPT_RTOL``) in about a fifth of the time."""
    return _run(sobol_design(dict(SOBOL_RANGES), n, seed=seed), scheduler, n_workers, progress, method=method)


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


@dataclass(frozen=True)
class KeptCheck:
    """Kept rows of a study run again: ``rows`` (design indices), ``largest`` relative difference
    of their outputs from the kept ones (at ``worst_row``, ``worst_output``), ``identical`` (rows
    equal in every bit), ``ok`` (``largest`` ≤ ``KEPT_RTOL``)."""

    rows: tuple
    largest: float
    worst_row: int
    worst_output: str
    identical: int

    @classmethod
    def compare(cls, rows, kept: np.ndarray, again: np.ndarray) -> "KeptCheck":
        """``kept`` and ``again``: the rows' outputs, one column per ``SOBOL_OUTPUTS``."""
        relative = np.abs(again - kept) / np.abs(kept)
        r, c = np.unravel_index(np.argmax(relative), relative.shape)
        return cls(tuple(rows), float(relative.max()), int(rows[r]), SOBOL_OUTPUTS[int(c)],
                   int(sum(np.array_equal(a, b) for a, b in zip(again, kept))))

    @property
    def ok(self) -> bool:
        return bool(self.largest <= KEPT_RTOL)

    def __str__(self) -> str:
        where = f" (row {self.worst_row}, {self.worst_output})" if self.largest > 0 else ""
        return (f"{len(self.rows)} kept rows run again: largest relative difference {self.largest:.1e}{where}, "
                f"tolerance {KEPT_RTOL:.0e}; {self.identical} of {len(self.rows)} rows equal bit for bit")


def _again(frame, rows, solver=SOBOL_SOLVER) -> KeptCheck:
    """The design rows ``rows`` of a kept study run again with ``solver``, compared with the kept outputs."""
    rows = tuple(int(r) for r in rows)
    if not rows:
        raise ValueError("rows: no kept row to run again")
    bad = [r for r in rows if r not in frame.index]
    if bad:
        raise ValueError(f"rows: {bad} are not rows of the kept study (0 … {len(frame) - 1})")
    again, _ = _run(frame.loc[list(rows), list(SOBOL_RANGES)].reset_index(drop=True), scheduler="serial",
                    progress=False, solver=solver)
    return KeptCheck.compare(rows, frame.loc[list(rows), list(SOBOL_OUTPUTS)].to_numpy(),
                             again[list(SOBOL_OUTPUTS)].to_numpy())


def check_rows(frame, rows) -> KeptCheck:
    """Re-run the design rows ``rows`` (indices) of a kept study: a ``KeptCheck`` of their
    outputs against the kept ones (reproduced: ``.ok``, differences within ``KEPT_RTOL``)."""
    return _again(frame, rows)


def computation_error(frame, rows) -> float:
    """The kept computation's own error at ``rows``: the largest relative difference of its
    outputs from the same rows integrated at rtol = atol = ``REFERENCE_TOL`` (module docstring)."""
    return _again(frame, rows, dict(SOBOL_SOLVER, rtol=REFERENCE_TOL, atol=REFERENCE_TOL)).largest
