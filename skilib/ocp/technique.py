"""The optimum technique by collocation: ``optimize_technique(..., method="collocation")``.

The same problem as the shooting optimum (``skilib.studies.optimum``): the fastest periodic
stroke (progress speed) at a mean power, over the technique's parameters within their bounds,
the snow's load kept ≥ 0.  Here the stroke, its touch-down and the technique are one nonlinear
program with exact derivatives (``skilib.ocp.stroke.collocate_stroke``), solved by IPOPT from
each of the same seeded starts (``skilib.studies.optimum.latin_starts``: the first ``starts`` of
``SCREEN × starts`` Latin-hypercube points the model can run, ``x0`` in front).  The fastest
start whose re-simulation agrees wins, and the result is the shooting optimum's ``Optimum``
(``method="collocation"``, the collocated ``solution`` attached).

The free skater (``skilib.models.free.collocation``) and the edged skater
(``skilib.models.edge.collocation``) are transcribed; their budgets are the net mean power of the
actuators the shooting model budgets (the free skater's leg; the edged skater's three drivers),
or the actuators' positive or metabolic power, or the whole physiological cost
(``skilib.ocp.stroke.PowerBudget``); a leg's force–velocity limit is a row at every point
(``force_velocity``).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["collocate_starts", "prepare_starts", "starts_prepared", "stroke_adapter", "ADAPTERS"]


#: the models transcribed for collocation (their stroke adapters: ``stroke_adapter``)
ADAPTERS = ("free", "edge")


def stroke_adapter(model: str, params=None):
    """The stroke adapter of ``model`` (``ADAPTERS``: the free skater's ``FreeStroke``, the edged
    skater's ``EdgeStroke``) for ``params`` (None: the model's defaults)."""
    if model == "free":
        from ..models.free.collocation import FreeStroke

        return FreeStroke(params)
    if model == "edge":
        from ..models.edge.collocation import EdgeStroke

        return EdgeStroke(params)
    raise ValueError(f"model: collocation is transcribed for {ADAPTERS}, got {model!r}")


def prepare_starts(params, bounds: dict, power: float, *, nodes=None, budget="net", model="free", force_velocity=None,
                   speed=None, x0=None) -> bool:
    """Build the program ``collocate_starts`` with these arguments solves first (each start's first
    mesh), without solving it (``skilib.ocp.stroke.prepare_stroke``; ``x0``: a technique within
    ``bounds``, the adapter's own by default).  Returns whether it had to be built."""
    from .stroke import prepare_stroke

    return _ask(prepare_stroke, params, bounds, power, nodes, budget, model, force_velocity, speed, x0)


def starts_prepared(params, bounds: dict, power: float, *, nodes=None, budget="net", model="free",
                    force_velocity=None, speed=None, x0=None) -> bool:
    """Whether this process has the program ``prepare_starts`` with these arguments builds
    (``skilib.ocp.stroke.program_built``).  In a process that has built no program the answer is
    no, without tracing the model (its stroke adapter: seconds) or checking the arguments."""
    from .stroke import program_built, programs_built

    if not programs_built():
        return False
    return _ask(program_built, params, bounds, power, nodes, budget, model, force_velocity, speed, x0)


def _ask(question, params, bounds, power, nodes, budget, model, force_velocity, speed, x0):
    adapter = stroke_adapter(model, params)
    return question(adapter, bounds=bounds, power=power, nodes=adapter.nodes if nodes is None else nodes,
                    budget=budget, force_velocity=force_velocity, speed=speed, x0=x0)


def collocate_starts(params, bounds: dict, power: float, starts, *, nodes=None, max_nodes=None, resimulation_tol=1e-4,
                     budget="net", model="free", force_velocity=None, speed=None, steady=None, warm=None):
    """The collocated optimum of ``model`` (``ADAPTERS``) from each start (rows of ``starts``, in the order of
    ``bounds``' names): (the fastest solution that IPOPT solved and its re-simulation confirmed,
    or None; a DataFrame with one row per start: the start, its end point ``end_*``, speed,
    power, IPOPT's status and iterations, the re-simulation's error, the solve time, or the
    error that stopped it).  ``force_velocity``: the leg's force–velocity limit as a row of every
    start's program (``collocate_stroke``).  ``speed`` (with ``power`` None): the coach's question
    at each start, the least budget power that holds it, and the cheapest confirmed start wins.
    ``steady``: None, or one (params, shooting steady state) or None per start (a screen's), each
    start's first guess where its parameters are the start's (``collocate_stroke``).  ``warm``:
    None, or a neighbouring question's ``StrokeSolution``, from whose primal-dual point the first
    start is solved (``collocate_stroke(warm=)``; that start is its technique).  If
    no start succeeds, the solution closest to the constraints is
    returned with ``success=False``, never as an optimum.  Every other start is solved in a forked
    copy of this process (``skilib.studies.beside``; in turn where forking is not safe, or while
    an IPOPT progress bar counts): each start's solve is its own, so the table and the winner are
    those of the starts in turn, bit for bit."""
    from .stroke import collocate_stroke, ipopt_bar

    adapter = stroke_adapter(model, params)
    nodes = adapter.nodes if nodes is None else nodes  # the mesh its speed needs (``SkiStroke.nodes``)
    max_nodes = max(4 * nodes, 80) if max_nodes is None else max_nodes
    names = tuple(bounds)
    pts = np.atleast_2d(starts)

    def solve(k):
        """(start k's row, its solution or None)."""
        start = dict(zip(names, map(float, pts[k])))
        try:
            sol = collocate_stroke(adapter, bounds=bounds, power=power, x0=start, nodes=nodes, max_nodes=max_nodes,
                                   resimulation_tol=resimulation_tol, budget=budget, force_velocity=force_velocity,
                                   speed=speed, steady=None if steady is None else steady[k],
                                   warm=warm if k == 0 else None)
        except (ValueError, RuntimeError, ArithmeticError) as e:
            return dict(start=k, **start, status="error", error=f"{type(e).__name__}: {e}"), None
        return dict(start=k, **start, **{f"end_{n}": sol.x[n] for n in names},
                    optimized_speed=sol.progress_speed, mean_power=sol.mean_power, budget_power=sol.budget_power,
                    **({"power_error": sol.budget_power - power} if speed is None else
                       {"speed_error": sol.progress_speed - speed}), peak_leg_force_bw=sol.peak_leg_force_bw,
                    force_velocity_margin=sol.force_velocity_margin,
                    progress_speed=sol.progress_speed, cm_speed=sol.resimulated.get("cm_speed", math.nan),
                    violation=sol.max_violation, success=sol.success, message=sol.status, nit=sol.iterations,
                    nodes=sol.nodes, resimulation_error=sol.resimulation_error, solve_time=sol.solve_time,
                    status="ok", error=""), sol

    ks = range(len(pts))
    if len(pts) > 1 and ipopt_bar() is None:
        # every other start in a forked copy of this process (its programs built, their memory
        # shared until written): each start's solve is its own, so the answers are those in turn
        from ..studies.beside import beside

        there, here = beside(lambda: [solve(k) for k in ks[1::2]], lambda: [solve(k) for k in ks[0::2]])
        done = dict(zip(ks[1::2], there)) | dict(zip(ks[0::2], here))
        results = [done[k] for k in ks]
    else:
        results = [solve(k) for k in ks]
    rows, best, tried = [], None, []
    for row, sol in results:
        rows.append(row)
        if sol is None:
            continue
        tried.append(sol)
        better = (best is None or (sol.progress_speed > best.progress_speed if speed is None
                                   else sol.budget_power < best.budget_power))
        if sol.success and better:
            best = sol
    table = pd.DataFrame(rows)
    if best is None and tried:
        best = min(tried, key=lambda s: s.max_violation)
    return best, table
