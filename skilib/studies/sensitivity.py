"""Variance-based (Sobol) sensitivity of a model output to its uncertain factors, with SALib.

For an output Y = f(X₁ … X_D) of independent factors, the first-order index
S_i = Var(E[Y | X_i]) / Var(Y) is the share of the output's variance that X_i explains on
its own, and the total index S_Ti = E[Var(Y | X_~i)] / Var(Y) the share it takes part in,
interactions included (Sobol 2001; Saltelli et al. 2010).  S_Ti − S_i measures X_i's
interactions; Σ S_i = 1 for an additive model.

``sobol_design`` draws Saltelli's extension of a scrambled Sobol' sequence, N (D + 2) rows
(N (2D + 2) with second-order indices), as a DataFrame of factor values that ``sweep`` can
run; ``sobol_indices`` turns the outputs of those rows into indices with bootstrap
confidence intervals.  Both are seeded: the same call gives the same numbers.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..engine.validation import check_bool, check_number

__all__ = ["sobol_design", "sobol_indices"]


def _problem(bounds: dict) -> dict:
    if not isinstance(bounds, dict) or not bounds:
        raise ValueError(f"bounds: expected a non-empty dict {{factor: (low, high)}}, got {bounds!r}")
    names, rng = [], []
    for k, b in bounds.items():
        if isinstance(b, (str, bytes)) or not hasattr(b, "__len__") or len(b) != 2:
            raise ValueError(f"bounds[{k!r}]: expected (low, high), got {b!r}")
        lo, hi = (check_number(f"bounds[{k!r}]", x) for x in b)
        if not lo < hi:
            raise ValueError(f"bounds[{k!r}]: need finite low < high, got ({lo}, {hi})")
        names.append(str(k))
        rng.append([lo, hi])
    return {"num_vars": len(names), "names": names, "bounds": rng}


def sobol_design(bounds: dict, n: int, *, seed: int = 0, second_order: bool = False) -> pd.DataFrame:
    """Saltelli's sampling design for Sobol indices (SALib ``sample.sobol``).

    - bounds : {factor: (low, high)}, each factor uniform on its range, in this order.
    - n : base sample size N, a power of 2 (the Sobol' sequence's balance needs it).

    Returns a DataFrame with one column per factor and N (D + 2) rows (N (2D + 2) with
    ``second_order``); ``attrs['sobol']`` records the problem, N, the seed and the order.
    """
    from SALib.sample import sobol

    problem = _problem(bounds)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2 or (int(n) & (int(n) - 1)):
        raise ValueError(f"n: the base sample size must be a power of 2 (>= 2), got {n!r}")
    seed = check_number("seed", seed, integer=True, nonnegative=True)
    second_order = check_bool("second_order", second_order)
    X = sobol.sample(problem, int(n), calc_second_order=second_order, seed=seed)
    design = pd.DataFrame(X, columns=problem["names"])
    design.attrs["sobol"] = dict(problem=problem, n=int(n), seed=int(seed), second_order=bool(second_order))
    return design


def sobol_indices(design: pd.DataFrame, output, *, seed: int = 0, num_resamples: int = 200,
                  conf_level: float = 0.95) -> pd.DataFrame:
    """First-order and total Sobol indices of ``output`` over a ``sobol_design``.

    design : the DataFrame returned by ``sobol_design`` (extra columns are ignored; its
        rows must be in the design's order).
    output : one value per design row (array or Series); every value must be finite — a
        failed run leaves a hole in Saltelli's scheme, so it is an error, not a skip.

    Returns a DataFrame indexed by factor: S1, S1_conf, ST, ST_conf (half-widths of the
    bootstrap confidence intervals at ``conf_level``), and S2 per pair when the design has
    second-order rows.
    """
    from SALib.analyze import sobol

    meta = getattr(design, "attrs", {}).get("sobol") if isinstance(design, pd.DataFrame) else None
    if meta is None:
        raise ValueError("design: expected the DataFrame returned by sobol_design (its attrs['sobol'] is missing)")
    problem = meta["problem"]
    missing = [c for c in problem["names"] if c not in design.columns]
    if missing:
        raise ValueError(f"design: factor column(s) {missing} are missing")
    y = np.asarray(output, dtype=float).ravel()
    if y.size != len(design):
        raise ValueError(f"output: has {y.size} values for {len(design)} design rows")
    bad = np.flatnonzero(~np.isfinite(y))
    if bad.size:
        raise ValueError(f"output: non-finite values at design rows {bad[:10].tolist()}"
                         f"{' …' if bad.size > 10 else ''} ({bad.size} in all); Sobol estimates need every row")
    conf_level = check_number("conf_level", conf_level)
    if not 0 < conf_level < 1:
        raise ValueError(f"conf_level: must be in (0, 1), got {conf_level!r}")
    seed = check_number("seed", seed, integer=True, nonnegative=True)
    # the bootstrap needs resamples to estimate an interval from
    num_resamples = check_number("num_resamples", num_resamples, integer=True, low=2)
    # SALib seeds its bootstrap only for a truthy seed (0 would leave it unseeded):
    # hand it a non-zero integer derived from ours
    salib_seed = int(np.random.SeedSequence(int(seed)).generate_state(1)[0]) or 1
    Si = sobol.analyze(problem, y, calc_second_order=meta["second_order"], num_resamples=int(num_resamples),
                       conf_level=float(conf_level), seed=salib_seed)
    out = pd.DataFrame({k: Si[k] for k in ("S1", "S1_conf", "ST", "ST_conf")}, index=problem["names"])
    out.index.name = "factor"
    if meta["second_order"]:
        out.attrs["S2"] = pd.DataFrame(Si["S2"], index=problem["names"], columns=problem["names"])
    return out
