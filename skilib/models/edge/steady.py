"""The edged skater's periodic stroke: a fixed point of its stroke map in three variables.

A stroke of the edged skater starts at touch-down from x = (u, φ̇, z_B): the ski's speed along
itself, the lean rate of the centre of mass about the ski's axis and its height (the landing
offset fixes where it is across the ski).  One stroke and the plastic change of ski give the
next stroke's x′ on the other ski, mirrored (``EdgeSkating.state_of``): the stroke map
x′ = Φ(x).  The periodic stroke solves Φ(x0) = x0 by Newton's method with a forward-difference
Jacobian (``skilib.strokes.periodic.newton_fixed_point``) to max|Φ(x) − x| ≤ ``tol``.

Its stability: the eigenvalues of ∂Φ/∂x at x0 (central differences), the stroke map's
multipliers.  With a fixed landing offset the stroke is an inverted pendulum on open-loop laws,
and at the defaults a multiplier lies outside the unit circle: a run from any other state leaves
the periodic stroke and falls within a few strokes.  Balance by foot placement (a landing offset
chosen at each touch-down from the CM's state) is the skater's answer; it is not built here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...strokes.periodic import NoSteadyState, newton_fixed_point
from ...strokes.run import RunTables, integrate_stroke, tabulate_stroke
from .model import SkiStopped
from .params import EdgeSkaterParams, with_edge_overrides
from .run import EdgeSkating, edge_run_options

__all__ = ["edge_steady_state", "EdgeSteadyState", "DEFAULT_GUESS", "check_admissible"]

#: the start of the search (u [m/s], φ̇ [rad/s], z_B [m]): near the defaults' periodic stroke
DEFAULT_GUESS = (3.7, -0.35, 0.835)
#: forward-difference steps of the Jacobian (m/s, rad/s, m): ~1e-6 of each variable's scale,
#: where the periodic stroke's 1e-10 integration tolerance leaves differences good to ~1e-4
_STEPS = (1e-6, 1e-6, 1e-7)


@dataclass
class EdgeSteadyState:
    """The periodic stroke of the edged skater.

    - x0 : (u0 [m/s], lean_rate0 [rad/s, + inwards], cm_height0 [m]) at touch-down; residual :
      Φ(x0) − x0; iterations : stroke maps evaluated; multipliers : the eigenvalues of ∂Φ/∂x
      at x0 (central differences), |·| > 1 unstable.
    - frame, strokes : one periodic stroke (``simulate_edge``'s tables); change : the touch-down
      that ends it (ke_loss ≥ 0 and its shares).
    - mean_speed, progress_speed (the CM's X displacement over T), mean_power (the drivers'),
      mean_leg_power, min_leg_force, min_snow_load, max_leg_length, max_abs_lean_deg.
    """

    params: EdgeSkaterParams
    x0: np.ndarray
    residual: np.ndarray
    iterations: int
    multipliers: np.ndarray
    frame: pd.DataFrame
    strokes: pd.DataFrame
    change: dict

    def __getattr__(self, name):
        if name in ("mean_speed", "progress_speed", "mean_power", "mean_leg_power", "min_leg_force", "min_snow_load",
                    "max_leg_length", "max_abs_lean_deg", "mean_heading_power"):
            return float(self.__dict__["strokes"][name].iloc[0])
        raise AttributeError(name)


def check_admissible(row: dict, params: EdgeSkaterParams, who: str) -> None:
    """Refuse a periodic stroke a leg and a ski cannot make, naming which bound and its value:
    the leg pulls (min_leg_force < 0), the leg beyond max_leg_length, the lean beyond
    max_lean_deg (the snow's load and the ski's speed are refused during the run already)."""
    if row["min_leg_force"] < 0:
        raise ValueError(f"{who}: leg_force: the leg pulls in the periodic stroke (least force "
                         f"{row['min_leg_force']:.4g} N): a leg only pushes")
    if row["max_leg_length"] > params.max_leg_length + 1e-9:
        raise ValueError(f"{who}: max_leg_length: the leg reaches {row['max_leg_length']:.4g} m, beyond "
                         f"{params.max_leg_length:g} m")
    if row["max_abs_lean_deg"] > params.max_lean_deg:
        raise ValueError(f"{who}: max_lean_deg: the leg leans {row['max_abs_lean_deg']:.4g}° from the vertical, beyond "
                         f"{params.max_lean_deg:g}°")


def edge_steady_state(params: EdgeSkaterParams | None = None, *, guess=DEFAULT_GUESS, tol: float = 1e-10,
                      max_iter: int = 30, multipliers: bool = True, **kwargs) -> EdgeSteadyState:
    """The periodic stroke of the edged skater (the module's docstring) from ``guess`` =
    (u [m/s], φ̇ [rad/s], z_B [m]) at touch-down.

    - tol : max|Φ(x) − x| at the fixed point (mixed units: m/s, rad/s, m), in (0, 1e-2].
    - max_iter : stroke maps at most (each Newton step costs four).
    - multipliers : compute ∂Φ/∂x at x0 by central differences (six more stroke maps) and its
      eigenvalues; False skips them (NaN).
    - kwargs : ``simulate_edge``'s solver keywords (method, rtol, atol, stabilization, ...).

    A search that leaves what the model can run (the ski stops, the snow would pull, the leg
    would reach beyond max_leg_length) raises that ValueError; a fixed point whose stroke is not
    admissible (the leg pulls, reaches too far or leans beyond max_lean_deg) is refused by
    ``check_admissible``; no fixed point within ``max_iter`` is ``NoSteadyState``.
    """
    p = with_edge_overrides(params)
    g = np.array(guess, dtype=float) if not isinstance(guess, str) else None
    if g is None or g.shape != (3,) or not np.all(np.isfinite(g)) or g[0] <= 0 or g[2] <= 0:
        raise ValueError(f"guess: must be (u > 0 m/s, lean rate rad/s, CM height > 0 m), got {guess!r}")
    o = edge_run_options(p, strokes=1, v0=float(g[0]), **_solver(kwargs))
    skating = EdgeSkating(o)
    settings = skating.settings()

    def phi(x, dense=False):
        model, q, qd = skating.start_from(x)
        settings.budget.start()
        out = integrate_stroke(skating, settings, 0, model, q, qd, dense)
        n = model.nq
        y_end = out[3]
        new, q1, qd1, change = skating.touch_down(1, model, y_end[:n], y_end[n: 2 * n])
        return skating.state_of(new, q1, qd1), (model, out, change)

    try:
        x0, resid, _, n_eval, _ = newton_fixed_point(phi, g, tol=tol, max_iter=max_iter, steps=_STEPS,
                                                           who="edge_steady_state")
    except SkiStopped as exc:
        raise NoSteadyState(f"edge_steady_state: {exc}") from exc
    # the periodic stroke once more, with its interpolant for the frame (the same steps)
    _, (model, (stroke, y0, segments, y_end, events), change) = phi(x0, dense=True)
    tables = RunTables([], [], [], [], [])
    tabulate_stroke(skating, settings, 0, model, stroke, y0, segments, y_end, events, None, tables)
    row = tables.strokes[0]
    check_admissible(row, p, "edge_steady_state")
    mult = np.full(3, np.nan)
    if multipliers:
        J = np.empty((3, 3))
        for k, h in enumerate(_STEPS):
            d = np.zeros(3)
            d[k] = 10 * h  # central differences: error O(h²), rounding O(ε_stroke / h)
            J[:, k] = (phi(x0 + d)[0] - phi(x0 - d)[0]) / (2 * d[k])
        mult = np.linalg.eigvals(J)
    return EdgeSteadyState(params=p, x0=x0, residual=resid, iterations=n_eval, multipliers=mult,
                           frame=tables.frame(), strokes=pd.DataFrame(tables.strokes), change=change)


def _solver(kwargs: dict) -> dict:
    """``simulate_edge``'s solver keywords with its defaults for the others."""
    defaults = dict(first_ski="right", rotation="zxz", stabilization="baumgarte", method="DOP853", rtol=1e-10,
                    atol=1e-10, h=0.05, alpha=None, beta=None, dt_out=0.01, n_out=None, max_evaluations=5_000_000,
                    max_wall_time=600.0)
    unknown = set(kwargs) - set(defaults)
    if unknown:
        raise TypeError(f"edge_steady_state: unknown keyword(s) {sorted(unknown)}")
    return {**defaults, **kwargs}
