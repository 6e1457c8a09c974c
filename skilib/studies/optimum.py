"""The optimum technique: the fastest steady skating for a given mean power (the thesis's open
question, Bruzzo 2012, ch. 6).

For a model's technique parameters x within human bounds,

    maximise   v(x)  (the steady state's speed along the course)
    subject to P(x) = P_budget  (the steady state's mean power)

with SciPy's SLSQP on the steady-state map (``skilib.free_steady_state`` for the free skater,
whose power is the leg's; ``skilib.edge_steady_state`` for the edged skater, whose power is its
drivers' and whose admissibility — the leg pushes, the snow carries, the leg within its reach and
its lean — enters as the inequality rows ``EDGE_MARGINS`` ≥ 0; ``skilib.steady_state`` for the
thesis's skier, whose power is the push-off's), from seeded starting points.  The speed is the speed of progress along the course
(X, the direction of travel: the CM's displacement over the periodic stroke divided by its
time), not the mean CM speed, which also counts the sideways sway of every stroke
(``speed="cm"`` optimises that one instead).  Without a budget (``power=None``) the speed is
maximised within the bounds alone: for the thesis's skier this is the fastest technique for the
push-off force it is given (its measured force), the thesis's own question.

How it is solved.  The parameters are scaled to the unit cube (each bound's range → [0, 1]).
v and P come from one steady state per point, cached, so one evaluation serves both; their
gradients are forward differences of step ``fd_step`` in the unit cube (backward at an upper
bound), taken from the same cache.  The steady state is found to |Φ(u) − u| ≤ 1e-10 m/s with
the integrators at rtol 1e-10, so the differences are good to about 1e-5.  After SLSQP the
point is clipped to the bounds and the constraints restored by least-norm Newton steps (over the
parameters not at a bound), so the power holds to ``power_tol`` (relative) and the bounds
exactly.

The models.  What the optimizer knows of each model lives in the model's own folder, the
model as the optimizer sees it: ``skilib.models.free.technique`` (``FREE_BOUNDS``, the snow's
load as an inequality row, ``snow_load_margin``), ``skilib.models.edge.technique``
(``EDGE_BOUNDS``, ``EDGE_MARGINS``, the parameters it starts from) and
``skilib.models.thesis.technique`` (``THESIS_BOUNDS``), each with the same names (``_MODELS``
below).  This module imports them when first asked for a model, and still serves their
public names (``FREE_BOUNDS``, ``snow_load_margin``, ...).

Failures.  A technique the model refuses (a ``ValueError`` from the parameters, a
``RuntimeError`` such as no periodic stroke) is caught: the evaluation is recorded with its
error in ``evaluations`` (nothing is dropped), and the optimizer is given a **penalty** instead
— speed 0 and power 0 (so the constraint is violated by the whole budget) — which steers it
back towards techniques that work.

Starting points.  ``SCREEN × starts`` candidate points drawn with
``numpy.random.default_rng(seed)`` as a Latin hypercube in the unit cube (one stratum per point
and parameter, randomly paired), of which the first ``starts`` that the model can run are kept
(SLSQP cannot leave a point the model refuses: every difference there is zero), plus any ``x0``
given.  Each start is one row of a ``skilib.sweep``: with ``scheduler="serial"`` (the
default) in this process, otherwise on Dask (a LocalCluster, an address or a Client), one
SLSQP run per task.  The best feasible end point wins.  Everything is deterministic for a seed.
By collocation the screen runs in a forked copy of the process while this one builds the
program the starts solve (``skilib.studies.beside``; in turn where forking is not safe), and
the starts are solved two at a time: the same numbers either way, bit for bit.

The coach's question, the other way round.  :func:`required_power` answers "what power does
this speed take?": it minimises the mean power subject to the speed = a target, the same problem
turned inside out (maximise −P(x) subject to v(x) = v*, the same starts, SLSQP and restoration),
so on the speed–power front the two are duals: the fastest technique at P0 is the cheapest at its
speed, whose least power is P0.  A speed no technique within the bounds reaches is refused by
name.

Arguments.  Everything is checked before any steady state is computed (a ValueError naming the
argument, and the bound's name): the model, the power or target speed (finite, > 0), each bound
a pair of finite numbers low < high of a number parameter of the model and within its plausible
range (``skilib.models.free.params.PARAMETER_BOUNDS``, ``skilib.models.thesis.params.BOUNDS``),
the tolerances and the step (finite, > 0), starts, seed and maxiter integers.

The core, :func:`maximize`, works on plain functions, so the optimizer can be checked on an
analytic problem.
"""
from __future__ import annotations

import contextlib
import contextvars
import json
import math
import numbers
import sys
from dataclasses import dataclass, field, fields, replace

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from ..engine.validation import check_bool, check_number
from ..vocabulary import HasUnits

__all__ = ["optimize_technique", "maximize", "Maximum", "Optimum", "MODELS", "latin_starts", "default_params",
           "constrained_sensitivity", "constrained_scan", "flatness", "speed_power_front", "speed_map", "restore",
           "TechniqueModel", "SPEEDS", "required_power", "RequiredPower", "peak_leg_force", "Unreachable",
           "AT_BOUND", "technique_module", "resolve_method"]


class Unreachable(ValueError):
    """The budget (``optimize_technique``'s ``power``) or the speed (``required_power``'s
    ``speed``) is not reached by the model within the bounds: no technique the optimizer found
    gives it, and none is returned.  A ValueError naming the parameter, with the powers or speeds
    the model reached; ``parameter`` is "power" or "speed" and ``value`` the number asked for.
    A study that asks for many budgets (a gradient's fastest technique, a front) catches this one
    exception to record "no technique" and lets every other error stop it."""

    def __init__(self, parameter: str, value, message: str):
        super().__init__(message)
        self.parameter, self.value = parameter, value

#: penalty given to the optimizer for a technique the model cannot run: (speed, power, peak leg
#: force)
PENALTY = (0.0, 0.0, 0.0)


# --------------------------------------------------------------------------- the plain core
@dataclass
class Maximum:
    """The result of :func:`maximize`.

    - x : the best point (within the bounds exactly); f : f(x) there; g : g(x) (0.0 without an
      equality); c : c(x) (the inequality, NaN without one).
    - success : SLSQP's flag at the best start and the constraints met (|g| ≤ g_tol, c ≥ −g_tol);
      message : its message.
    - starts : DataFrame, one row per start: start (index), x0_*, x_*, f, g, c, violation (the
      largest constraint residual), success, message, nit, nfev.
    """

    x: np.ndarray
    f: float
    g: float
    success: bool
    message: str
    starts: pd.DataFrame = field(repr=False)
    c: float = float("nan")


class _Cached:
    """The vector (f, equality rows…, inequality rows…) of a point, evaluated once per point."""

    def __init__(self, h):
        self.h, self.cache = h, {}

    def __call__(self, x):
        key = tuple(float(v) for v in x)
        if key not in self.cache:
            self.cache[key] = tuple(float(v) for v in self.h(np.asarray(key)))
        return self.cache[key]


def _fd_jac(c: _Cached, x, step, only=None):
    """Forward differences of the whole vector c(x) in the unit cube (backward at the upper
    bound), in the coordinates ``only`` (default all; the other columns are 0): rows = the
    vector's entries, columns = the coordinates."""
    v0 = np.array(c(x))
    jac = np.zeros((len(v0), len(x)))
    for i in range(len(x)) if only is None else only:
        s = step if x[i] + step <= 1.0 else -step
        xi = x.copy()
        xi[i] += s
        jac[:, i] = (np.array(c(xi)) - v0) / s
    return jac


def _violation(v, n_eq):
    """The constraint rows' residuals: the equalities' values and the inequalities' deficits."""
    v = np.asarray(v[1:], float)
    return np.concatenate([v[:n_eq], np.minimum(v[n_eq:], 0.0)])


def restore(h, x, *, n_eq=1, tol=1e-10, step=1e-5, max_iter=12, fixed=()):
    """Newton steps onto the constraints: the equality rows and the violated inequality rows of
    h(x) = (f, equalities[n_eq]…, inequalities c ≥ 0…) are driven to 0 by the least-norm step
    (in the unit cube, over the coordinates not in ``fixed``; a coordinate at a bound takes part
    only where the step moves it inwards) until every residual is within ``tol``.  Returns (x,
    the vector h(x)) at the last point; h is a _Cached function of the unit-cube point."""
    x = np.clip(np.asarray(x, float), 0.0, 1.0)
    v = h(x)
    r = _violation(v, n_eq)
    for _ in range(max_iter):
        if not len(r) or np.max(np.abs(r)) <= tol:
            break
        active = np.array([True] * n_eq + [bool(ri < 0) for ri in r[n_eq:]])
        cols = [i for i in range(len(x)) if i not in fixed]
        A = _fd_jac(h, x, step, cols)[1:][active]
        free = list(cols)
        for _ in range(len(x) + 1):  # drop the coordinates a step would push out of the cube
            d = np.zeros(len(x))
            if free:
                d[free] = -np.linalg.lstsq(A[:, free], r[active], rcond=None)[0]
            out = [i for i in free if (x[i] <= 0.0 and d[i] < 0) or (x[i] >= 1.0 and d[i] > 0)]
            if not out:
                break
            free = [i for i in free if i not in out]
        if not np.any(d):
            break
        for scale in (1.0, 0.5):  # no progress: halve once, then give up
            xn = np.clip(x + scale * d, 0.0, 1.0)
            vn = h(xn)
            rn = _violation(vn, n_eq)
            if np.max(np.abs(rn)) < np.max(np.abs(r)):
                break
        else:
            break
        x, v, r = xn, vn, rn
    return x, v


def _one_start(h, x0, *, n_eq, fd_step, ftol, maxiter, g_tol):
    """SLSQP (maximise f s.t. the equalities = 0 and the inequalities ≥ 0, in the unit cube)
    from x0, then the restoration of the constraints."""
    c = _Cached(h)
    jacs = {}

    def jac(x):
        key = tuple(x)
        if key not in jacs:
            jacs[key] = _fd_jac(c, np.clip(np.asarray(x, float), 0, 1), fd_step)
        return jacs[key]

    def value(x):
        return c(np.clip(x, 0, 1))

    m = len(c(np.asarray(x0, float))) - 1
    cons = [dict(type="eq" if k < n_eq else "ineq", fun=lambda x, k=k: value(x)[1 + k],
                 jac=lambda x, k=k: jac(x)[1 + k]) for k in range(m)]
    res = minimize(lambda x: -value(x)[0], np.asarray(x0, float), jac=lambda x: -jac(x)[0], method="SLSQP",
                   bounds=[(0.0, 1.0)] * len(x0), constraints=cons, options=dict(ftol=ftol, maxiter=maxiter))
    x, v = restore(c, res.x, n_eq=n_eq, tol=g_tol, step=fd_step)
    r = _violation(v, n_eq)
    violation = float(np.max(np.abs(r))) if len(r) else 0.0
    return dict(x=x, f=v[0], g=v[1] if n_eq else 0.0, c=v[1 + n_eq] if m > n_eq else np.nan,
                violation=violation, success=bool(res.success) and violation <= g_tol, met=violation <= g_tol, message=str(res.message), nit=int(res.nit),
                nfev=len(c.cache))


def latin_starts(n_starts: int, dim: int, seed=0) -> np.ndarray:
    """``n_starts`` points in the unit cube [0, 1]^dim, a Latin hypercube drawn with
    ``numpy.random.default_rng(seed)``: each coordinate takes one point in each of the
    ``n_starts`` equal strata, randomly placed and paired."""
    rng = np.random.default_rng(seed)
    u = (np.arange(n_starts)[:, None] + rng.random((n_starts, dim))) / n_starts
    for j in range(dim):
        u[:, j] = u[rng.permutation(n_starts), j]
    return u


def _maximize(h, n_eq, x0, lo, hi, **settings) -> Maximum:
    """The core of :func:`maximize`: h(x) = (f, equalities[n_eq]…, inequalities…) in the
    parameters' own units."""

    def hu(u):
        return h(lo + np.asarray(u) * (hi - lo))

    starts = np.atleast_2d(np.asarray(x0, float))
    rows = []
    for k, s in enumerate(starts):
        r = _one_start(hu, np.clip((s - lo) / (hi - lo), 0, 1), n_eq=n_eq, **settings)
        rows.append(dict(start=k, **{f"x0_{i}": v for i, v in enumerate(s)},
                         **{f"x_{i}": v for i, v in enumerate(lo + r["x"] * (hi - lo))},
                         **{k2: r[k2] for k2 in ("f", "g", "c", "violation", "met", "success", "message", "nit", "nfev")}))
    table = pd.DataFrame(rows)
    pool = table[table["met"]]
    best = int(pool["f"].idxmax()) if len(pool) else int(table["violation"].idxmin())
    x = np.clip(np.array([table.loc[best, f"x_{i}"] for i in range(len(lo))]), lo, hi)
    t = table.loc[best]
    return Maximum(x, float(t["f"]), float(t["g"]), bool(t["success"]), str(t["message"]),
                   table.drop(columns="met"), float(t["c"]))


def maximize(f, g, x0, bounds, *, ineq=None, fd_step=1e-5, ftol=1e-12, maxiter=100, g_tol=1e-10) -> Maximum:
    """Maximise f(x) subject to g(x) = 0 (None: no equality), ineq(x) ≥ 0 (None: none) and
    bounds[i][0] ≤ x_i ≤ bounds[i][1], by SLSQP from each start in x0 (one point, or an array
    of points, one per row), with forward-difference gradients of step ``fd_step`` relative to
    each bound's range, then Newton steps back onto the constraints (to ``g_tol``).  The best end
    point meeting the constraints (the one closest to g = 0 if none) is returned (:class:`Maximum`).

    >>> m = maximize(lambda x: x[0] + x[1], lambda x: x[0] ** 2 + x[1] ** 2 - 1, [0.5, 0.1], [(-2, 2), (-2, 2)])
    >>> bool(abs(m.x[0] - 2 ** -0.5) < 1e-6 and abs(m.x[1] - 2 ** -0.5) < 1e-6)
    True
    """
    lo, hi = (np.asarray(b, float) for b in zip(*bounds))
    if np.any(hi <= lo):
        raise ValueError(f"bounds: each must be (low, high) with low < high, got {bounds!r}")
    parts = [f] + [p for p in (g, ineq) if p is not None]

    def h(x):
        return tuple(p(x) for p in parts)

    return _maximize(h, 0 if g is None else 1, x0, lo, hi, fd_step=fd_step, ftol=ftol, maxiter=maxiter,
                     g_tol=g_tol)


# --------------------------------------------------------------------------- the models
#: the models the optimizer knows, each read from its own folder's ``technique`` module (imported
#: when first asked for, so that neither package imports the other when it loads).  Each module
#: gives the same names:
#:
#: - ``PARAMS`` : the parameters' class; ``default_params()`` : the parameters the optimizer
#:   starts from when given none;
#: - ``TECHNIQUE_BOUNDS`` : the default technique parameters and their human bounds;
#: - ``PARAMETER_BOUNDS`` : the plausible range of each number parameter (the model's params'
#:   table, named ``PARAMETER_BOUNDS_NAME`` there), which any bounds asked for must lie within;
#: - ``SET_BY_OPTIMIZER`` : the steady state's keywords the optimizer sets itself (not ``options``);
#: - ``option_functions()`` : (steady state, simulator or solver settings): ``options`` may hold
#:   the functions' keyword-only arguments and the settings' keys (``option_keys``);
#: - ``MARGINS``, ``margins(ss)`` : the margins of a periodic stroke logged with each point;
#: - ``inequalities(names, params, row)`` : the technique's inequality rows (≥ 0 where the model
#:   can run it) when ``names`` are optimised; ``params()`` and ``row()`` give the point's
#:   parameters and logged row, each asked for only when the model needs it.
#: - ``REPORTS_WORKS``, ``LEG_EXTENSION_SPEED``, ``COLLOCATED`` : whether it reports each
#:   actuator's positive and negative work (every budget but "net"), has the leg's extension speed
#:   (a force–velocity limit) and a collocated stroke (``method="collocation"``).
_MODELS = {"free": "..models.free.technique", "thesis": "..models.thesis.technique",
           "edge": "..models.edge.technique"}
MODELS = tuple(_MODELS)


def _check_model(model):
    if not isinstance(model, str) or model not in _MODELS:
        raise ValueError(f"model: must be one of {MODELS}, got {model!r}")
    return model


def technique_module(model):
    """The model's ``technique`` module (``_MODELS``): what the optimizer knows of it."""
    import importlib

    return importlib.import_module(_MODELS[_check_model(model)], __package__)


_technique = technique_module  # the name the optimizer's own code reads


#: the names whose home is now a model's ``technique`` module, still served here (PEP 562):
#: name here → (model, name there)
_MOVED = {"FREE_BOUNDS": ("free", "FREE_BOUNDS"), "snow_load_margin": ("free", "snow_load_margin"),
          "THESIS_BOUNDS": ("thesis", "THESIS_BOUNDS"), "EDGE_BOUNDS": ("edge", "EDGE_BOUNDS"),
          "EDGE_MARGINS": ("edge", "EDGE_MARGINS"), "edge_margins": ("edge", "edge_margins"),
          "_edge_base": ("edge", "default_params")}


def __getattr__(name):
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    model, there = _MOVED[name]
    value = getattr(_technique(model), there)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_MOVED))


def default_params(model):
    """The parameters ``optimize_technique`` starts from when given none: the model's defaults (the
    edged skater's with its first touch-down at the periodic stroke's height,
    ``skilib.models.edge.technique.default_params``)."""
    return _technique(model).default_params()


SPEEDS = ("progress", "cm")
#: how ``optimize_technique`` solves: SLSQP on the shooting steady state, IPOPT on the
#: collocated stroke (``skilib.ocp``), or "auto": collocation where the question allows it
#: (``resolve_method``), shooting elsewhere
METHODS = ("shooting", "collocation", "auto")
#: what the power budget counts, and the steady state's attribute that gives it: the net mean
#: power of the actuators (their work per stroke, negative work subtracted: what the models
#: have always budgeted), their positive work only, or the metabolic power Σ(W⁺/η⁺ + |W⁻|/η⁻)/T
#: (the cost of work; η⁺, η⁻ = ``eta_positive``, ``eta_negative`` of the model's params), or the
#: whole physiological cost: the work, swinging the legs, developing force and resting
#: (``skilib.physiology``; both methods: collocation as ``skilib.ocp.stroke.PowerBudget``)
BUDGETS = {"net": "mean_power", "positive": "mean_positive_power", "metabolic": "metabolic_power",
           "physiological": "metabolic_total"}


def _check_budget(model, budget):
    if not isinstance(budget, str) or budget not in BUDGETS:
        raise ValueError(f"budget: must be one of {tuple(BUDGETS)}, got {budget!r}")
    if budget != "net" and not _technique(model).REPORTS_WORKS:  # the thesis's skier: its push-off's net power
        raise ValueError(f"budget: {budget!r} needs the positive and negative work of each actuator, which the "
                         f"{model} model does not report; its budget is 'net'")
    return budget


def _check_force_velocity(model, limit):
    """None, or a ForceVelocityLimit (or a tuple of them, one per limb: ``limits_of``) for a model
    whose frame has the leg's extension speed (and the poles' columns)."""
    if limit is None:
        return None
    from ..physiology.force_velocity import ForceVelocityLimit, limits_of

    if not isinstance(limit, (ForceVelocityLimit, tuple, list)):
        raise ValueError(f"force_velocity: must be None or a skilib.physiology.ForceVelocityLimit, got "
                         f"{type(limit).__name__}")
    limits_of(limit)
    if not _technique(model).LEG_EXTENSION_SPEED:
        raise ValueError(f"force_velocity: the {model} model's push-off has no leg extension speed; the limit is "
                         "for the free and edged skaters")
    return limit


def _least_force_velocity_margin(ss, limit, weight) -> float:
    """The periodic stroke's least force–velocity margin [body weights], over the limbs limited
    (an arm that never pushes is asked nothing: its margin is its F_iso)."""
    from ..physiology.force_velocity import check_force_velocity, limits_of

    least = math.inf
    for lim in limits_of(limit):
        table = check_force_velocity(ss.frame, lim, weight=weight, admissibility="report")
        least = min(least, float(table["min_force_velocity_margin"].min()) if len(table) else lim.force_iso_bw)
    return least


def _margin_of(row, limit) -> dict:
    """A start's end row's force–velocity margin, as a column only where a limit was given (the
    starts' table is then as before, bit for bit, without one)."""
    return {} if limit is None else {"force_velocity_margin": float(row["force_velocity_margin"])}


class TechniqueModel:
    """The steady-state map of one model as (speed, mean power, peak leg force) of named
    parameters; picklable, so a Dask worker can run it.

    - speed : "progress" (default) — the speed along the course, the CM's displacement in X (the
      direction of travel) over the periodic stroke divided by its time — or "cm", the mean CM
      speed |Ṙ| of the steady state (its ``mean_speed``), which also counts the sideways sway.
    - budget : the power the budget counts (``BUDGETS``): "net" (default), "positive",
      "metabolic" or "physiological"; its value is the call's second entry and the row's ``budget_power``.
    - force_velocity : None, or a ``skilib.physiology.ForceVelocityLimit``: the periodic stroke's
      least force–velocity margin (``check_force_velocity``, body weights) is then logged as
      ``force_velocity_margin`` and is one more inequality row (≥ 0: the leg can push what the
      stroke asks at the speed it extends); the free and edged skaters only.

    Each point is computed once (cached) and logged in ``log`` (a list of dicts: the
    parameters, optimized_speed (the chosen speed), progress_speed, cm_speed, mean_power (net),
    mean_leg_power, budget_power, peak_leg_force_bw, u0, status, error)."""

    def __init__(self, model, names, base=None, options=None, speed="progress", budget="net", force_velocity=None):
        _check_model(model)
        if speed not in SPEEDS:
            raise ValueError(f"speed: must be one of {SPEEDS}, got {speed!r}")
        self.budget = _check_budget(model, budget)
        self.force_velocity = _check_force_velocity(model, force_velocity)
        self.model, self.names, self.base, self.options = model, tuple(names), base, dict(options or {})
        self.speed = speed
        self.log, self._values, self._warm = [], {}, None
        #: the last point's (params, steady state), or None if it failed; and those of the
        #: screened starts (``_screened_starts``), one per start: their collocated first guesses
        self.last_steady, self.screened_steady = None, []

    def params(self, x):
        values = {n: float(v) for n, v in zip(self.names, x)}
        return replace(self.base if self.base is not None else default_params(self.model), **values)

    def steady(self, x):
        """The steady state at x, by the model's technique module (``steady``), from the last
        steady state's (``warm_of``): the points an optimizer asks for lie close together."""
        return _technique(self.model).steady(self.params(x), self.options, self._warm)

    def values(self, x) -> dict:
        """The logged row of point x (computed on the first call)."""
        key = tuple(float(v) for v in x)
        if key in self._values:
            return self._values[key]
        row = dict(zip(self.names, key))
        self.last_steady = None
        try:
            ss = self.steady(key)
            self.last_steady = (self.params(key), ss)
            st = ss.strokes.iloc[0]
            got = dict(progress_speed=float(st["mean_vx"]), cm_speed=float(ss.mean_speed),
                       mean_power=float(ss.mean_power), mean_leg_power=float(ss.mean_leg_power),
                       budget_power=float(getattr(ss, BUDGETS[self.budget])),
                       peak_leg_force_bw=float(getattr(ss, "peak_leg_force_bw", np.nan)), u0=float(ss.u0))
            got.update(_technique(self.model).margins(ss))
            if self.force_velocity is not None:
                got["force_velocity_margin"] = _least_force_velocity_margin(ss, self.force_velocity,
                                                                            self.params(key).weight)
            bad = [k for k in ("progress_speed", "cm_speed", "mean_power", "budget_power") if not math.isfinite(got[k])]
            if bad:
                raise RuntimeError(f"non-finite steady state: {', '.join(f'{k} {got[k]}' for k in bad)}")
            row.update(optimized_speed=got[f"{self.speed}_speed"], **got, status="ok", error="")
            self._warm = _technique(self.model).warm_of(ss)
        except (ValueError, RuntimeError, ArithmeticError) as e:
            row.update(optimized_speed=np.nan, progress_speed=np.nan, cm_speed=np.nan, mean_power=np.nan,
                       mean_leg_power=np.nan, budget_power=np.nan, peak_leg_force_bw=np.nan, u0=np.nan, status="error",
                       error=f"{type(e).__name__}: {e}")
            row.update({k: np.nan for k in _technique(self.model).MARGINS})
            if self.force_velocity is not None:
                row["force_velocity_margin"] = np.nan
        self.log.append(row)
        self._values[key] = row
        _tick(row)
        return row

    def inequalities(self, x) -> tuple:
        """The technique's inequality rows (each ≥ 0 where the model can run it), the model's
        ``inequalities`` (``_MODELS``): for the free skater optimising cm_dip or stroke_time, the
        least snow load in body weights, from the parameters alone (``snow_load_margin``); for
        the edged skater the margins of its periodic stroke (``EDGE_MARGINS``: the leg pushes,
        the snow carries, the leg's reach and lean; a technique the model cannot run violates
        each); otherwise none.  With ``force_velocity``, the stroke's least force–velocity margin
        after them."""
        rows = _technique(self.model).inequalities(self.names, lambda: self.params(x), lambda: self.values(x))
        if self.force_velocity is not None:
            r = self.values(x)
            rows += (-1.0 if r["status"] != "ok" else r["force_velocity_margin"],)
        return rows

    def __call__(self, x):
        """(speed, the budget's power — the net mean power by default —, peak leg force in body
        weights) at x; ``PENALTY`` for a technique the model cannot run."""
        r = self.values(x)
        if r["status"] != "ok":
            return PENALTY
        return r["optimized_speed"], r["budget_power"], r["peak_leg_force_bw"]


#: the progress bar of the optimizer running in this process (``progress=True``), or None
_BAR = contextvars.ContextVar("skilib_optimum_bar", default=None)


def _tick(row) -> None:
    """One steady state computed: the bar (if any) counts it and shows its speed and power."""
    bar = _BAR.get()
    if bar is not None:
        bar.update(1)
        bar.set_postfix_str(f"{row['optimized_speed']:.3f} m/s, {row['budget_power']:.4g} W" if row["status"] == "ok"
                            else "cannot be run", refresh=False)


@contextlib.contextmanager
def _progress(enabled: bool, who: str, starts: int):
    """A tqdm bar on stderr counting the steady states ``who`` computes in this process (the
    screening and, with the serial scheduler, every SLSQP start's), for as long as the block
    runs; nothing when ``enabled`` is False.  It only counts: no result depends on it."""
    if not enabled:
        yield None
        return
    from tqdm import tqdm

    bar = tqdm(desc=f"{who} ({starts} start{'s' if starts != 1 else ''})", unit=" steady states", file=sys.stderr,
               mininterval=0.5, ncols=100)
    token = _BAR.set(bar)
    try:
        yield bar
    finally:
        _BAR.reset(token)
        bar.close()


def _vector(vals, power, target=None, penalty_power=0.0):
    """The optimizer's vector: (speed, [(P − budget)/budget]) — the equality row the budget asks
    for — or, with a target speed, (−P, (v − target)/target): the least power at that speed.
    A technique the model cannot run (``PENALTY``) counts there as ``penalty_power``, more than
    any power seen, so that the objective does not lure the optimizer to it."""
    v, P, _ = vals
    if target is not None:
        return (-(penalty_power if tuple(vals) == PENALTY else P), (v - target) / target)
    return (v,) if power is None else (v, (P - power) / power)


class _StartTask:
    """One start of optimize_technique, a row function for ``skilib.sweep``: the row holds the
    start's parameters; the result its end point, its evaluations (JSON) and SLSQP's report."""

    def __init__(self, model, names, bounds, base, options, power, speed, settings, target=None, penalty_power=0.0,
                 budget="net", force_velocity=None):
        self.args = (model, names, bounds, base, options, power, speed, settings, target, penalty_power, budget,
                     force_velocity)

    def __call__(self, row):
        model, names, bounds, base, options, power, speed, settings, target, penalty_power, budget, fv = self.args
        tm = TechniqueModel(model, names, base, options, speed, budget, fv)
        lo, hi = (np.array([bounds[n][k] for n in names]) for k in (0, 1))
        n_eq = 0 if power is None and target is None else 1
        m = _maximize(lambda x: _vector(tm(x), power, target, penalty_power) + tm.inequalities(x), n_eq,
                      [row[n] for n in names],
                      lo, hi, **settings)
        end = tm.values(m.x)
        st = m.starts.iloc[0]
        if target is not None:  # the least power at the target speed: the objective is −P
            return dict({f"end_{n}": float(v) for n, v in zip(names, m.x)}, optimized_speed=end["optimized_speed"],
                        mean_power=end["mean_power"], mean_leg_power=end["mean_leg_power"],
                        budget_power=end["budget_power"], speed_error=m.g * target,
                        peak_leg_force_bw=end["peak_leg_force_bw"], progress_speed=end["progress_speed"],
                        cm_speed=end["cm_speed"], violation=float(st["violation"]),
                        success=m.success, message=m.message, nit=int(st["nit"]), nfev=int(st["nfev"]),
                        **_margin_of(end, fv), evaluations=json.dumps(tm.log))
        return dict({f"end_{n}": float(v) for n, v in zip(names, m.x)}, optimized_speed=m.f,
                    mean_power=end["mean_power"], mean_leg_power=end["mean_leg_power"],
                    budget_power=end["budget_power"], power_error=np.nan if power is None else m.g * power,
                    peak_leg_force_bw=end["peak_leg_force_bw"], progress_speed=end["progress_speed"],
                    cm_speed=end["cm_speed"], violation=float(st["violation"]),
                    success=m.success, message=m.message, nit=int(st["nit"]), nfev=int(st["nfev"]),
                    **_margin_of(end, fv), evaluations=json.dumps(tm.log))


@dataclass
class Optimum(HasUnits):
    """The optimum technique at one power (``optimize_technique``).

    - params : the model's parameters at the optimum (FreeSkaterParams or SkierParams).
    - x : the optimum as {name: value} of the parameters optimised.
    - progress_speed : the speed along the course at the optimum, the CM's distance along X per
      time [m/s]; cm_speed : the time average of the CM's speed |Ṙ| over its periodic stroke [m/s]
      (its steady state's ``mean_speed``); speed : which one was maximised ("progress" or "cm");
      optimized_speed (property) : that one.  (``mean_speed`` is no field: an AttributeError
      names these.)
    - mean_power : its steady state's net mean power [W] (the drivers the model counts,
      ``skilib.cli.POWER_COUNTS``); mean_leg_power : the leg's alone [W] (by collocation, its re-simulation's);
      power : the budget [W] (None: no
      budget); budget : what the budget counts ("net", "positive", "metabolic" or "physiological", ``BUDGETS``);
      budget_power : that power at the optimum [W] (= mean_power with the "net" budget).
    - peak_leg_force_bw : the free skater's peak leg force [body weights] at the optimum (NaN for
      the thesis's skier).
    - bounds : {name: (low, high)} used.  model : "free", "thesis" or "edge".
    - evaluations : DataFrame of every steady state computed (start: the start's row, −1 for the
      screening of the seeded candidates; the parameters, optimized_speed,
      progress_speed, cm_speed, mean_power, mean_leg_power, budget_power, peak_leg_force_bw, u0, status "ok"/"error",
      error): failures included with their error.
    - starts : DataFrame, one row per start: its point, its end point (end_*), optimized_speed,
      mean_power, power_error [W], peak_leg_force_bw, violation (largest relative constraint
      residual), success, message, nit (SLSQP iterations), nfev (steady states).
    - options : the steady-state keywords used; base : the parameters not optimised.
    - feasible : whether the constraints are met to the tolerance (False: no start met them, e.g.
      too few iterations; the point returned is then the one closest to them).
    - method : "shooting" (SLSQP on the steady-state map) or "collocation" (IPOPT on the
      collocated stroke, ``skilib.ocp``); solution : the collocated stroke
      (``skilib.ocp.StrokeSolution``: its trajectory, IPOPT's status, the re-simulation), None
      for shooting.
    - reason : why the result is not feasible, in words (the budget, the budgets the starts
      reached, the bounds the closest point presses on); "" when it is.
    - at_bound (property) : {name: "lower" or "upper"} for each parameter on or within 1 %
      (``AT_BOUND``) of its range from a bound.
    - warnings (property) : the numbers outside measured human ranges (``skilib.studies.
      plausible.plausibility``), each with its source.
    - units (property) : {name: unit} of its numbers and of its tables' columns
      (``skilib.vocabulary``; the technique's parameters with theirs).
    """

    _unit_properties = ("optimized_speed",)

    model: str
    params: object
    x: dict
    mean_power: float
    power: float | None
    bounds: dict
    evaluations: pd.DataFrame = field(repr=False)
    starts: pd.DataFrame = field(repr=False)
    options: dict = field(default_factory=dict, repr=False)
    base: object = field(default=None, repr=False)
    feasible: bool = True
    speed: str = "progress"
    progress_speed: float = float("nan")
    cm_speed: float = float("nan")
    peak_leg_force_bw: float = float("nan")
    budget: str = "net"
    budget_power: float = float("nan")
    method: str = "shooting"
    solution: object = field(default=None, repr=False)
    reason: str = ""
    mean_leg_power: float = float("nan")
    force_velocity: object = None
    force_velocity_margin: float = float("nan")

    @property
    def names(self):
        return tuple(self.bounds)

    @property
    def optimized_speed(self) -> float:
        """The speed maximised (or, for ``RequiredPower``, met) [m/s]: ``progress_speed`` with
        speed "progress", ``cm_speed`` with speed "cm"."""
        return self.cm_speed if self.speed == "cm" else self.progress_speed

    @property
    def mean_speed(self):
        raise AttributeError(f"{type(self).__name__}.mean_speed was renamed: progress_speed is the speed along the "
                             "course, cm_speed the time average of the CM's speed (a steady state's mean_speed), "
                             f"optimized_speed the one optimised (here {self.speed!r}); see CHANGELOG")

    @property
    def warnings(self) -> list:
        """Its numbers outside what skiers have been measured to do (``skilib.studies.plausible``:
        power per kg, peak leg force, cycle rate, ski angle on the flat), each with its source;
        ``feasible`` is the model's constraints and does not change with them."""
        from .plausible import plausibility

        return plausibility(self.params, mean_power=self.mean_power, peak_leg_force_bw=self.peak_leg_force_bw)

    @property
    def at_bound(self) -> dict:
        """{name: "lower" or "upper"} for each parameter of ``x`` within ``AT_BOUND`` (1 %) of its
        range from a bound: the optimum there is the bound's answer, not the model's choice
        (widening that bound, where it is a human limit, moves it)."""
        return {n: side for n, v in self.x.items() for side in [_bound_side(v, *self.bounds[n])] if side}

    def technique_model(self) -> TechniqueModel:
        return TechniqueModel(self.model, self.names, self.base, self.options, self.speed, self.budget,
                              self.force_velocity)

    def vector(self, vals):
        """The optimizer's vector (speed, power row) of TechniqueModel values."""
        return _vector(vals, self.power)


#: a parameter within this fraction of its range from a bound is "at" that bound (``Optimum.at_bound``)
AT_BOUND = 0.01


def _bound_side(value, lo, hi) -> str:
    """"lower", "upper" or "" for ``value`` in [lo, hi] (within ``AT_BOUND`` of the range)."""
    span = AT_BOUND * (hi - lo)
    return "lower" if value <= lo + span else "upper" if value >= hi - span else ""


def _params_class(model):
    return _technique(model).PARAMS


def _plausible(model) -> dict:
    """The model's plausible ranges of its number parameters (``skilib.models.free.params.
    PARAMETER_BOUNDS``, ``skilib.models.edge.params.EDGE_PARAMETER_BOUNDS`` without the inertia
    triple; ``skilib.models.thesis.params.BOUNDS``)."""
    # the course's slope is where the skier skates, not how: it is set in ``params``, never optimised
    return {n: r for n, r in _technique(model).PARAMETER_BOUNDS.items() if n not in ("body_inertia", "slope_deg")}


def _check_bounds(model, bounds):
    """{name: (low, high)}: each name a number parameter of the model, each range a pair of
    finite numbers, low < high, within the model's plausible range of that parameter."""
    default = _technique(model).TECHNIQUE_BOUNDS
    if bounds is None:
        return dict(default)
    if not isinstance(bounds, dict) or not bounds:
        raise ValueError(f"bounds: must be a non-empty dict name → (low, high), got {bounds!r}")
    allowed = {f.name for f in fields(_params_class(model))}
    plausible = _plausible(model)
    out = {}
    for n, b in bounds.items():
        if n not in allowed:
            raise ValueError(f"bounds: {n!r} is not a parameter of the {model} model")
        if n not in plausible:
            raise ValueError(f"bounds: {n} is not a number parameter of the {model} model (it cannot be optimised)")
        if isinstance(b, (str, bytes, dict)) or not hasattr(b, "__len__") or len(b) != 2:
            raise ValueError(f"bounds: {n} must be a pair (low, high), got {b!r}")
        if any(_is_bad_number(v) for v in b):
            raise ValueError(f"bounds: {n} must be (low, high) with finite numbers, got {b!r}")
        lo, hi = (float(v) for v in b)
        if not lo < hi:
            raise ValueError(f"bounds: {n} must be (low, high) with low < high, got {b!r}")
        p_lo, p_hi = plausible[n]
        if lo < p_lo or hi > p_hi:
            raise ValueError(f"bounds: {n} = {b!r} reaches outside its plausible range [{p_lo:g}, {p_hi:g}] "
                             f"({_technique(model).PARAMETER_BOUNDS_NAME} of the {model} model's params)")
        out[n] = (lo, hi)
    return out


def _positive_or_none(name, value, unit):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name}: must be None or a number > 0 in {unit}, got {value!r}")
    return float(value)


#: seeded candidate points drawn per start; the starts are the first candidates the model can run
SCREEN = 4


#: the screened starts of the last few calls, {key of every input: (starts, the points' log)}:
#: the screen is a pure function of its inputs (the model, its parameters and options, the
#: bounds, the seed), so a second question with the same ones (another speed or power) reuses it
_SCREENED: dict = {}
_SCREENED_KEPT = 8


def _screen_key(tm: TechniqueModel, lo, hi, starts: int, seed) -> bytes | None:
    """A digest of everything ``_screened_starts`` reads, or None where it cannot be made (an
    input that does not pickle: the screen is then run again, never guessed)."""
    import hashlib
    import pickle

    try:
        blob = pickle.dumps((tm.model, tm.names, tm.base, sorted(tm.options.items()), tm.speed, tm.budget,
                             tm.force_velocity, np.asarray(lo, dtype=float).tobytes(),
                             np.asarray(hi, dtype=float).tobytes(), int(starts), seed), protocol=4)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    return hashlib.sha256(blob).digest()


def _screened_starts(tm: TechniqueModel, lo, hi, starts: int, seed, beside=None) -> np.ndarray:
    """The first ``starts`` of ``SCREEN * starts`` Latin-hypercube points (``latin_starts`` with
    ``seed``) whose steady state ``tm`` can compute: SLSQP cannot leave a point the model
    refuses (every difference there is the penalty's zero).  The points tried are in ``tm.log``.

    A fresh ``tm`` asked what an earlier one was asked in this process (every input equal, the
    parameters compared by their pickles) gets the same points and log again without running
    them: a second speed or power skips the screen (the edged skater's takes tens of seconds).

    ``beside``: None, or work for this process while the screen runs in a forked one
    (``skilib.studies.beside``: the collocated program's construction), done only where the screen
    is computed in a fork (in turn, the program is built only if a start needs it); the points,
    log and steady states are the same bit for bit."""
    if not starts:
        return np.empty((0, len(lo)))
    key = _screen_key(tm, lo, hi, starts, seed) if not tm.log else None
    if key is not None and key in _SCREENED:
        pts, log, steady = _SCREENED[key]
        tm.log.extend(dict(e) for e in log)
        tm.screened_steady = list(steady)
        return pts.copy()

    def screen():
        keep, steady = [], []
        for p in lo + latin_starts(SCREEN * starts, len(lo), seed) * (hi - lo):
            if tm.values(p)["status"] == "ok":
                keep.append(p)
                steady.append(tm.last_steady)
                if len(keep) == starts:
                    break
        return np.array(keep).reshape(-1, len(lo)), steady, tm.log

    from .beside import beside as in_parallel, can_fork

    if beside is None or not can_fork()[0]:  # in turn, the program is built where the starts need it
        pts, steady, _ = screen()
    else:
        done = len(tm.log)
        (pts, steady, log), _ = in_parallel(screen, beside)
        if log is not tm.log:  # computed in the child: its log is this process's now
            tm.log[done:] = log[done:]
    tm.screened_steady = steady
    if key is not None:
        while len(_SCREENED) >= _SCREENED_KEPT:
            _SCREENED.pop(next(iter(_SCREENED)))
        _SCREENED[key] = (pts.copy(), [dict(e) for e in tm.log], list(steady))
    return pts


def _check_some_start(pts, who, model, screen: TechniqueModel, starts: int, seed) -> None:
    """A ``RuntimeError`` saying why there is no start, where ``pts`` (the screened starts and any
    ``x0``) is empty: how many seeded candidates were tried, how many the model refused for each
    kind of failure (the exception's type), and the first refusal's message.  Both methods ask it
    before they begin, so neither reports an empty table of starts instead of the reason."""
    if len(pts):
        return
    if not starts:
        raise RuntimeError(f"{who}: no start: starts=0 and no x0 given")
    counts, first = _refusals(screen.log)
    raise RuntimeError(f"{who}: none of the {SCREEN * starts} seeded candidate points (seed {seed}) can be run by the "
                       f"{model} model ({counts}); the first: {first}")


def _refusals(log) -> tuple[str, str]:
    """("n Kind, ..." the refused points of ``log`` (rows with ``status`` and ``error``) counted by
    the exception's type, the first refusal's message)."""
    errors = [str(e.get("error", "")) for e in log if e.get("status") != "ok"]
    kinds = pd.Series([e.split(":", 1)[0] for e in errors]).value_counts()
    return ", ".join(f"{n} {k}" for k, n in kinds.items()) or "none", errors[0] if errors else "no error logged"


def optimize_technique(model: str = "free", power: float | None = 200.0, bounds: dict | None = None, seed: int = 0,
                       starts: int = 4, scheduler="serial", *, x0: dict | None = None, params=None,
                       options: dict | None = None, speed: str = "progress",
                       fd_step: float = 1e-5, maxiter: int = 60, ftol: float = 1e-8, power_tol: float = 1e-8,
                       n_workers=None, budget: str = "net", method: str = "shooting", nodes: int | None = None,
                       progress: bool = False, force_velocity=None, warm=None) -> Optimum:
    """The fastest steady technique at mean power ``power`` [W] (module docstring).

    - model : "free" (``FreeSkaterParams``; the leg's mean power), "edge" (``EdgeSkaterParams``;
      the drivers' mean power, ``edge_steady_state``, its admissibility as the inequality rows
      ``EDGE_MARGINS`` ≥ 0: the leg only pushes) or "thesis" (``SkierParams``;
      the push-off's mean power, ``steady_state``).
    - power : the mean power budget [W]; None: no budget — the fastest technique within the
      bounds for the force the model is given (for the thesis's skier: its measured push-off
      force, ``params.force_scale``; for the free skater the speed then rises to the bounds).
    - bounds : {name: (low, high)}: the parameters optimised and their ranges; default
      ``FREE_BOUNDS`` / ``EDGE_BOUNDS`` / ``THESIS_BOUNDS``.  The other parameters are those of
      ``params`` (default: the model's defaults, ``default_params``; the edged skater's with its
      first touch-down at the periodic stroke's height).
    - speed : the speed maximised: "progress" (default; along the course) or "cm" (mean CM speed).
    - seed, starts : the seeded starts: the first ``starts`` of ``SCREEN × starts`` Latin-hypercube
      points (``latin_starts``) that the model can run (the others are recorded in
      ``evaluations`` as start −1); ``x0`` (a {name: value}) adds one start in front.
    - scheduler : "serial" (default: this process) or as ``skilib.sweep`` (None: a LocalCluster;
      an address; a Client): where the starts run, one task each.
    - progress : a progress bar on stderr counting the steady states computed (with another
      scheduler, the sweep's bar over the starts too); the result is the same bit for bit.
    - options : keywords of the steady state (free_steady_state / steady_state: tol, rtol,
      push_force, dt_out, ...).
    - fd_step : forward-difference step in the unit-scaled parameters; maxiter, ftol : SLSQP's
      (ftol on the speed [m/s]: the differences' noise makes a smaller one iterate in vain).
    - power_tol : the power constraint's tolerance, relative to ``power``.
    - budget : what ``power`` counts (``BUDGETS``): "net" (default: the actuators' mean power,
      negative work subtracted), "positive" (their positive work only), "metabolic"
      (Σ(W⁺/η⁺ + |W⁻|/η⁻)/T, the cost of work) or "physiological" (the whole cost: the work, swinging
      the legs, developing force, resting, ``skilib.physiology``; both methods); the free and
      edged skaters only (a ValueError naming ``budget`` otherwise).
    - force_velocity : None (default), or a ``skilib.physiology.ForceVelocityLimit``: the leg may
      push no more than it can at the speed it extends — the periodic stroke's least margin
      F_max(ℓ̇) − F∥ ≥ 0 [body weights] is one more inequality row, and the result's
      ``force_velocity_margin`` (0 where the limit binds); the free and edged skaters, both
      methods (collocation holds it at every knot and midpoint, shooting at the output points).

    - method : "shooting" (default: SLSQP on the shooting steady state, finite differences) or
      "collocation" (the stroke, its touch-down and the technique as one program solved by IPOPT
      with CasADi's exact derivatives on a mesh of ``nodes`` intervals, ``skilib.ocp.technique``;
      the free and edged skaters and the progress speed only, every budget; every solution
      re-simulated by the model's simulator; needs ``pip install 'skilib[ocp]'``), or "auto"
      (collocation where ``resolve_method`` finds the question fits it, shooting elsewhere; the
      result's ``method`` says which ran).  The same seeded starts.  ``nodes`` None: the model's adapter's ``nodes``, the mesh whose truncation
      leaves the speed within 1e-6 (relative) of the shooting optimum's (the free skater 20, the
      edged skater 40).
    - warm : None, or a neighbouring question's collocated answer (an ``Optimum`` with
      ``method="collocation"``, or its ``solution``): one more start in front, solved from that
      solution's primal-dual point (``skilib.ocp.collocate_stroke(warm=)``), with ``starts=0``
      the only one.  A second power, speed or bounds then costs a few IPOPT iterations instead of
      a screen and ``starts`` solves; it follows the neighbour's optimum, and the seeded starts
      (``starts`` > 0) look for others.  Collocation only; not with ``x0``.

    A technique the model cannot run is recorded in ``evaluations`` with its error and given to
    the optimizer as a penalty (speed 0, power 0).  ValueError on bad arguments, naming the
    argument (and the bound), before anything runs: ``model`` unknown; ``power`` not None nor a
    finite number > 0; ``bounds`` not a non-empty dict of names of number parameters of the model
    to pairs (low, high) of finite numbers with low < high within the parameter's plausible range;
    ``speed`` unknown; ``starts`` (1–10 000), ``seed`` (≥ 0), ``maxiter`` (≥ 1) not integers;
    ``fd_step`` not in (0, 0.1], ``ftol`` not > 0, ``power_tol`` not in (0, 0.5]; ``x0``,
    ``options``, ``params`` of the wrong kind.  RuntimeError if every start fails; if none ends
    within the tolerance, the result has ``feasible=False``.
    """
    progress = check_bool("progress", progress)
    _check_model(model)
    warm = _check_warm(warm, model)
    model, power, speed, b, seed, starts, x0, settings = _check_arguments(
        model, power, bounds, seed, starts, x0, params, options, speed, fd_step, maxiter, ftol, power_tol, "power_tol",
        warm=warm)
    budget = _check_budget(model, budget)
    force_velocity = _check_force_velocity(model, force_velocity)
    method, nodes = _chosen_method(method, nodes, model, speed, options, scheduler, n_workers,
                                   dict(fd_step=fd_step, maxiter=maxiter, ftol=ftol, power_tol=power_tol),
                                   budgeted=power is not None, warm=warm)
    if method == "collocation":
        return _collocated(model, power, b, seed, starts, x0, params, speed, budget, nodes, progress, force_velocity,
                           warm=warm)
    names, b, table, evaluations = _run_starts(model, b, seed, starts, scheduler, x0, params, options, speed,
                                               settings, n_workers, power=power, who="optimize_technique",
                                               budget=budget, progress=progress, force_velocity=force_velocity)
    # a start that ended at a technique the model cannot run (the penalty) is no result
    ran = table[(table["status"] == "ok") & np.isfinite(table["mean_power"].astype(float))]
    ok = ran[ran["violation"].astype(float) <= power_tol]
    feasible = bool(len(ok))
    reason = "" if feasible else _unmet_power(model, power, b, table, ran, evaluations, budget)
    if len(ran):  # the fastest start within the tolerance; if none, the one closest to the constraints
        k = (int(ok["optimized_speed"].astype(float).idxmax()) if feasible
             else int(ran["violation"].astype(float).idxmin()))
        end = table.loc[k]
        x = {n: float(np.clip(end[f"end_{n}"], b[n][0], b[n][1])) for n in names}
    else:  # every start ended where the model cannot run: the runnable point evaluated nearest the budget
        end = _nearest_evaluation(evaluations, power)
        x = {n: float(end[n]) for n in names}
    tm = TechniqueModel(model, names, params, options, speed, budget, force_velocity)
    p = tm.params([x[n] for n in names])
    return Optimum(model, p, x, float(end["mean_power"]), power, b,
                   evaluations, table, dict(options or {}), params, feasible, speed,
                   float(end["progress_speed"]), float(end["cm_speed"]), float(end["peak_leg_force_bw"]), budget,
                   float(end["budget_power"]), reason=reason, mean_leg_power=float(end.get("mean_leg_power", np.nan)),
                   force_velocity=force_velocity,
                   force_velocity_margin=float(end.get("force_velocity_margin", np.nan)))


def _nearest_evaluation(evaluations, power):
    """The runnable technique among every point the starts evaluated whose budget power lies
    nearest ``power`` (the faster on a tie): a point the model ran, never a penalty."""
    good = evaluations[(evaluations["status"] == "ok") & np.isfinite(evaluations["budget_power"].astype(float))]
    gap = (good["budget_power"].astype(float) - power).abs()
    return good.loc[(gap - 1e-12 * good["optimized_speed"].astype(float)).idxmin()]


def _unmet_power(model, power, b, table, ran, evaluations, budget) -> str:
    """Why no start met the budget ``power``, in words; a ValueError naming ``power`` if the budget
    lies outside every power the model reached within the bounds, or no start ended at a technique
    the model can run and there is no budget (the result would be a point the optimizer was never
    asked for).  Where every start ended at a technique the model cannot run but the budget lies
    within the powers reached, the result is the runnable point evaluated nearest the budget."""
    good = evaluations[evaluations["status"] == "ok"]["budget_power"].astype(float)
    span = (f"the {len(good)} steady states computed within the bounds reach {good.min():.4g} to "
            f"{good.max():.4g} W ({budget} budget)" if len(good) else "no steady state within the bounds could be run")
    target = "no budget" if power is None else f"{power:g} W"
    if not len(ran):
        if power is not None and len(good) and good.min() <= power <= good.max():
            near = _nearest_evaluation(evaluations, power)
            return (f"every start ended at a technique the model cannot run, although {power:g} W lies within the "
                    f"powers reached: {span}; the runnable technique evaluated nearest the budget reaches "
                    f"{float(near['budget_power']):.4g} W (give another x0, or raise starts)")
        raise Unreachable("power", power, f"power: {target} ({budget} budget) is not reached by the {model} model "
                          f"within the bounds {dict(b)}: every start ended at a technique the model cannot run; "
                          f"{span}; ask for a power in that range or widen the bounds")
    k = int(ran["violation"].astype(float).idxmin())
    end = {n: float(table.loc[k, f"end_{n}"]) for n in b}
    at = [f"{n} at its {'lower' if v <= lo + 1e-9 * (hi - lo) else 'upper'} bound {v:g}"
          for n, v in end.items() for lo, hi in [b[n]] if v <= lo + 1e-9 * (hi - lo) or v >= hi - 1e-9 * (hi - lo)]
    closest = (f"the closest start reached {float(table.loc[k, 'budget_power']):.4g} W"
               + (f" with {', '.join(at)}" if at else " inside the bounds"))
    if power is None:
        return f"no start met the model's inequalities to the tolerance: {closest}"
    if not len(good) or not good.min() <= power <= good.max():
        raise Unreachable("power", power, f"power: {power:g} W ({budget} budget) is not reached by the {model} "
                          f"model within the bounds {dict(b)}: {span}; {closest}; ask for a power in that range or "
                          "widen the bounds")
    return f"no start met {power:g} W to the tolerance: {closest}; {span} (raise maxiter or starts)"


def resolve_method(model: str, speed: str = "progress", *, options=None, scheduler="serial", n_workers=None,
                   shooting_settings: bool = False, budgeted: bool = True) -> tuple:
    """(method, why) that ``method="auto"`` takes for a question: "collocation" (one IPOPT program
    per start, each answer re-simulated by the model's own simulator; seconds where shooting
    takes a minute or more) where the model is transcribed for it (its technique module's
    ``COLLOCATED``: the free and edged skaters), the speed is the progress speed, CasADi is
    installed (the ocp extra) and no setting of the shooting method is given (``options``, a
    Dask ``scheduler`` or ``n_workers``, SLSQP's ``shooting_settings``) and the question has a
    power budget or a speed to hold (``budgeted``); "shooting" otherwise, ``why`` naming the
    first condition that decides it."""
    if not _technique(model).COLLOCATED:
        return "shooting", f"the {model} model is not transcribed for collocation"
    if not budgeted:
        return "shooting", "collocation needs a power budget or a speed to hold"
    if speed != "progress":
        return "shooting", f"collocation maximises the progress speed, not speed={speed!r}"
    if options or scheduler != "serial" or n_workers is not None or shooting_settings:
        return "shooting", "settings of the shooting method were given"
    try:
        from ..engine.codegen.casadi_terms import require_casadi

        require_casadi()
    except ImportError:
        return "shooting", "CasADi (pip install 'skilib[ocp]') is not installed"
    return "collocation", "the free and edged skaters' progress speed, CasADi installed"


def _check_method(method, nodes):
    """``nodes`` checked (an integer 4–1000, or None) for ``method`` (``METHODS``, "auto" already
    resolved by ``resolve_method``): the collocation mesh's intervals, which the shooting method
    has none of."""
    if method not in METHODS:
        raise ValueError(f"method: must be one of {METHODS}, got {method!r}")
    if nodes is None:
        return None
    nodes = _integer("nodes", nodes, 4, 1000)
    if method == "shooting":
        raise ValueError(f"nodes: the collocation mesh's intervals; method='shooting' has no mesh and does not use "
                         f"it (got nodes={nodes}): leave it out, or give method='collocation'")
    return nodes


#: SLSQP's settings of the shooting method and their defaults (the budget's or the speed's
#: tolerance, ``power_tol`` or ``speed_tol``, defaults to 1e-8 too)
_SHOOTING_DEFAULTS = {"fd_step": 1e-5, "maxiter": 60, "ftol": 1e-8, "power_tol": 1e-8, "speed_tol": 1e-8}


def _chosen_method(method, nodes, model, speed, options, scheduler, n_workers, settings: dict,
                   budgeted: bool = True, warm=None) -> tuple:
    """(method, nodes) of a question: "auto" resolved (``resolve_method``), ``nodes`` checked
    (``_check_method``), and for collocation the shooting method's settings (``settings``:
    SLSQP's, by name; ``options``, ``scheduler``, ``n_workers``) refused by name; a ``warm`` start
    refused by name where the method is not collocation."""
    given = [k for k, v in settings.items() if v != _SHOOTING_DEFAULTS[k]]
    if isinstance(method, str) and method == "auto":
        method, _ = resolve_method(model, speed, options=options, scheduler=scheduler, n_workers=n_workers,
                                   shooting_settings=bool(given), budgeted=budgeted)
    nodes = _check_method(method, nodes)
    if method == "collocation":
        if options or scheduler != "serial" or n_workers is not None:
            raise ValueError("options, scheduler, n_workers: the shooting steady state's keywords and the Dask "
                             "settings do not apply to method='collocation' (its starts run here, one IPOPT "
                             "program each)")
        if given:
            raise ValueError(f"{', '.join(given)}: SLSQP's settings of method='shooting'; method='collocation' "
                             "(IPOPT) does not use them: leave them out")
    elif warm is not None:
        raise ValueError(f"warm: a collocated solution starts only method='collocation' (the question runs "
                         f"method={method!r}); give the neighbour's technique as x0 instead")
    return method, nodes


def _program_beside(model, b, power, params, budget, nodes, force_velocity, target):
    """The construction of the program the collocated starts solve first, as work beside the
    screen (``_screened_starts(beside=)``), or None where this process has it or it depends on
    the screen (a model whose program takes the first start's values: the edged skater's crouch)."""
    from ..ocp.technique import prepare_starts, starts_prepared

    base = default_params(model) if params is None else params
    takes_start = getattr(_technique(model), "program_takes_start", None)
    if takes_start is not None and takes_start(base, tuple(b)):
        return None
    mid = {n: (float(lo) + float(hi)) / 2 for n, (lo, hi) in b.items()}  # any start: the program does not depend on it
    ask = dict(nodes=nodes, budget=budget, model=model, force_velocity=force_velocity, speed=target, x0=mid)
    try:
        if starts_prepared(base, b, power, **ask):
            return None
    except (ValueError, RuntimeError, ArithmeticError):  # the starts say it, each in its row
        return None

    def build():
        # in a fresh process the model is traced here, beside the screen, not before it; an
        # argument the program refuses is left to the starts, each of which says it in its row
        try:
            return prepare_starts(base, b, power, **ask)
        except (ValueError, RuntimeError, ArithmeticError):
            return None

    return build


def _collocated(model, power, b, seed, starts, x0, params, speed, budget, nodes, progress=False,
                force_velocity=None, target=None, warm=None) -> Optimum:
    """``optimize_technique``'s method "collocation" (``skilib.ocp.technique``): the same seeded
    starts, each solved by IPOPT on the collocated stroke; the fastest whose re-simulation agrees
    wins (``feasible`` False if none does).  With a ``target`` speed (``required_power``'s), the
    least budget power that holds it, a ``RequiredPower``.  ``progress``: a bar counting IPOPT's
    iterations.  ``warm``: a neighbour's ``StrokeSolution``, one more start in front
    (``collocate_starts(warm=)``)."""
    who = "optimize_technique" if target is None else "required_power"
    if not _technique(model).COLLOCATED:
        raise ValueError(f"method: collocation is transcribed for the free and edged skaters (model='free' or "
                         f"'edge'), not {model!r}; use method='shooting'")
    if speed != "progress":
        raise ValueError(f"speed: collocation maximises the progress speed (speed='progress'), got {speed!r}")
    if power is None and target is None:
        raise ValueError("power: collocation needs a power budget (without one the skater's speed rises to the "
                         "bounds)")
    from ..ocp.technique import collocate_starts

    names = tuple(b)
    lo, hi = np.array([b[n][0] for n in names]), np.array([b[n][1] for n in names])
    screen = TechniqueModel(model, names, params, None, speed, budget)
    pts = _screened_starts(screen, lo, hi, starts, seed,
                           beside=_program_beside(model, b, power, params, budget, nodes, force_velocity, target))
    steady = list(screen.screened_steady)  # each start's shooting stroke: its first guess
    if x0:
        base = screen.params(())
        pts = np.vstack([np.clip([float(x0.get(n, getattr(base, n))) for n in names], lo, hi), pts])
        steady = [None] + steady
    if warm is not None:
        missing = [n for n in names if n not in warm.x]
        if missing:
            raise ValueError(f"warm: the solution has no value of {missing}")
        pts = np.vstack([np.clip([float(warm.x[n]) for n in names], lo, hi), pts])
        steady = [None] + steady
    _check_some_start(pts, who, model, screen, starts, seed)
    from ..ocp.stroke import ipopt_progress

    base = default_params(model) if params is None else params
    # a model whose program depends on which parameters are free (the edged skater's crouch) says so
    hook = getattr(_technique(model), "collocation_params", None)
    if hook is not None:
        base = hook(base, names, dict(zip(names, map(float, pts[0]))))
    with ipopt_progress(progress, who):
        best, table = collocate_starts(base, b, power, pts,
                                       nodes=nodes, budget=budget, model=model, force_velocity=force_velocity,
                                       speed=target, steady=steady, warm=warm)
    if best is None:
        raise RuntimeError(f"{who}: every collocated start failed; starts:\n{table.to_string()}")
    evaluations = pd.DataFrame([dict(start=-1, **e) for e in screen.log])
    kind, extra = Optimum, dict(mean_leg_power=float(best.resimulated.get("mean_leg_power", math.nan)))
    if target is not None:
        kind = RequiredPower
        extra.update(target_speed=target, peak_leg_force_n=best.peak_leg_force_bw * best.params.weight)
    return kind(model, best.params, {n: best.x[n] for n in names}, best.mean_power, power,
                   dict(b), evaluations, table, {}, params, bool(best.success), speed, best.progress_speed,
                   float(best.resimulated.get("cm_speed", math.nan)), best.peak_leg_force_bw, budget,
                   best.budget_power, method="collocation", solution=best, force_velocity=force_velocity,
                   force_velocity_margin=best.force_velocity_margin, **extra,
                   reason="" if best.success else f"no collocated start was solved and confirmed (IPOPT: {best.status}, "
                                                  f"re-simulation error {best.resimulation_error:.3g})")


def _run_starts(model, b, seed, starts, scheduler, x0, params, options, speed, settings, n_workers, *, power=None,
                target=None, who, budget="net", progress=False, force_velocity=None):
    """The seeded starts (``_screened_starts``, ``x0`` in front) run as a ``skilib.sweep``, one
    SLSQP run each (``_StartTask``): (names, bounds, the starts' table, every evaluation).  With a
    ``target`` speed the objective is −P and a technique the model cannot run counts as twice the
    largest power of the screened candidates."""
    with _progress(progress, who, starts + bool(x0)):
        return _starts_run(model, b, seed, starts, scheduler, x0, params, options, speed, settings, n_workers,
                           power=power, target=target, who=who, budget=budget, progress=progress,
                           force_velocity=force_velocity)


def _starts_run(model, b, seed, starts, scheduler, x0, params, options, speed, settings, n_workers, *, power, target,
                who, budget, progress, force_velocity=None):
    from .sweeps import sweep

    names = tuple(b)
    lo, hi = np.array([b[n][0] for n in names]), np.array([b[n][1] for n in names])
    screen = TechniqueModel(model, names, params, options, speed, budget, force_velocity)
    pts = _screened_starts(screen, lo, hi, starts, seed)
    if x0:
        base_vals = TechniqueModel(model, (), params).params(()) if params is None else params
        first = np.array([float(x0.get(n, getattr(base_vals, n))) for n in names])
        pts = np.vstack([np.clip(first, lo, hi), pts])
    _check_some_start(pts, who, model, screen, starts, seed)
    penalty_power = 0.0
    if target is not None:
        seen = [e["budget_power"] for e in screen.log if e["status"] == "ok"]
        penalty_power = 2.0 * max([abs(v) for v in seen] + [1.0])
    grid = pd.DataFrame(pts, columns=list(names))
    task = _StartTask(model, names, b, params, options, power, speed, settings, target, penalty_power, budget,
                      force_velocity)
    res = sweep(task, grid, scheduler=scheduler, progress=progress and scheduler != "serial", n_workers=n_workers)
    table = res.frame.reset_index(drop=True)
    ev = [dict(start=-1, **e) for e in screen.log]
    for k, row in table.iterrows():
        if row["status"] == "ok":
            ev += [dict(start=k, **e) for e in json.loads(row["evaluations"])]
        else:
            ev.append(dict(start=k, **{n: row[n] for n in names}, optimized_speed=np.nan, mean_power=np.nan, u0=np.nan,
                           status="error", error=f"start failed: {row['error']}"))
    evaluations = pd.DataFrame(ev)
    table = table.drop(columns=["evaluations"], errors="ignore")
    if not len(table[table["status"] == "ok"]):
        raise RuntimeError(f"{who}: every start failed; starts:\n{table.to_string()}")
    return names, b, table, evaluations


@dataclass
class RequiredPower(Optimum):
    """The least mean power for a target steady speed (``required_power``): an ``Optimum``
    whose constraint is the speed, not the power.

    - target_speed : the speed asked for [m/s] (``speed_kind``: "progress", along the course, or
      "cm", the mean CM speed); optimized_speed : the speed there (within ``speed_tol`` of the target,
      relative).
    - mean_power : the net mean power there [W] — the answer with the "net" budget (the leg's for
      the free skater, the push-off's for the thesis's skier); budget_power : the budget's power
      minimised (``budget``), the answer with any budget; power : None (no budget).
    - x, params : the technique there; peak_leg_force_bw, peak_leg_force_n : the largest leg
      force of its periodic stroke [body weights, N] (the free skater's leg; the thesis's
      skier's push-off along its leg), read off the steady state's frame.
    - speed_tol : the speed constraint's tolerance (relative); every other field as ``Optimum``
      (``starts`` has speed_error [m/s] where an Optimum has power_error).
    """

    target_speed: float = float("nan")
    speed_tol: float = 1e-8
    peak_leg_force_n: float = float("nan")

    def vector(self, vals):
        """The optimizer's vector (−P, (v − target)/target) of TechniqueModel values."""
        return _vector(vals, None, self.target_speed)


def required_power(model: str = "free", speed: float = 6.0, *, bounds: dict | None = None, seed: int = 0,
                   starts: int = 4, scheduler="serial", x0: dict | None = None, params=None,
                   options: dict | None = None, speed_kind: str = "progress", fd_step: float = 1e-5,
                   maxiter: int = 60, ftol: float = 1e-8, speed_tol: float = 1e-8, n_workers=None,
                   budget: str = "net", progress: bool = False, force_velocity=None, method: str = "shooting",
                   nodes: int | None = None, warm=None) -> RequiredPower:
    """The coach's question: the least mean power [W] that holds the steady speed ``speed``
    [m/s], and the technique that does it — the inverse of the speed–power front
    (``speed_power_front``).  Over the technique parameters x within the bounds,

        maximise   −P(x)   (the steady state's mean power)
        subject to v(x) = speed   (to ``speed_tol``, relative)

    by the same machinery as ``optimize_technique`` (``maximize``'s SLSQP from seeded starts,
    then the Newton restoration onto the constraint), so on the front the two are duals: the
    technique ``optimize_technique(power=P)`` finds at speed v* is the one ``required_power(
    speed=v*)`` finds at power P.  A technique the model cannot run is recorded and counts as
    twice the largest power among the screened starting points.

    - model : "free", "edge" or "thesis" (as ``optimize_technique``); speed : the target [m/s], finite
      and > 0; speed_kind : "progress" (default: along the course) or "cm" (mean CM speed).
    - bounds, seed, starts, scheduler, x0, params, options, fd_step, maxiter, ftol, n_workers :
      as ``optimize_technique``.
    - speed_tol : the speed constraint's tolerance, relative to ``speed``.
    - budget : the power minimised (``BUDGETS``, as ``optimize_technique``'s): "net" (default),
      "positive", "metabolic" or "physiological" (the whole cost: the technique of least
      metabolic cost at that speed); the answer is ``budget_power`` (= mean_power for "net").
    - progress : a progress bar on stderr counting the steady states computed; the result is the
      same bit for bit.
    - force_velocity : None, or a ``skilib.physiology.ForceVelocityLimit`` (as ``optimize_technique``'s).
    - method, nodes : as ``optimize_technique``'s: "collocation" solves, from each of the same
      seeded starts, one program that holds the speed and minimises the budget's power
      (``skilib.ocp.collocate_stroke(..., speed=)``), each solution re-simulated; the cheapest
      confirmed one wins (the progress speed only; the shooting settings do not apply).
    - warm : as ``optimize_technique``'s: a neighbouring speed's collocated answer, solved again
      from its primal-dual point (with ``starts=0`` the only start).

    Returns a ``RequiredPower`` (an ``Optimum``: mean_power, budget_power, x, params, optimized_speed,
    and the peak leg force in body weights and N).  ValueError on bad arguments, and naming ``speed`` if
    no start meets it and it lies outside every speed the model reached within the bounds (the
    range is in the message); RuntimeError if every start fails, or if the speed lies within the
    speeds reached but no start met it to ``speed_tol`` (raise maxiter or starts).
    """
    target = check_number("speed", speed, positive=True, unit="m/s")
    progress = check_bool("progress", progress)
    _check_model(model)
    warm = _check_warm(warm, model)
    model, _, kind, b, seed, starts, x0, settings = _check_arguments(
        model, None, bounds, seed, starts, x0, params, options, speed_kind, fd_step, maxiter, ftol, speed_tol,
        "speed_tol", speed_name="speed_kind", warm=warm)
    budget = _check_budget(model, budget)
    force_velocity = _check_force_velocity(model, force_velocity)
    method, nodes = _chosen_method(method, nodes, model, kind, options, scheduler, n_workers,
                                   dict(fd_step=fd_step, maxiter=maxiter, ftol=ftol, speed_tol=speed_tol), warm=warm)
    if method == "collocation":
        return _collocated(model, None, b, seed, starts, x0, params, kind, budget, nodes, progress, force_velocity,
                           target=target, warm=warm)
    names, b, table, evaluations = _run_starts(model, b, seed, starts, scheduler, x0, params, options, kind,
                                               settings, n_workers, target=target, who="required_power", budget=budget,
                                               progress=progress, force_velocity=force_velocity)
    ran = table[table["status"] == "ok"]
    ok = ran[ran["violation"].astype(float) <= speed_tol]
    if not len(ok):
        good = evaluations[evaluations["status"] == "ok"]["optimized_speed"].astype(float)
        if not len(good):  # nothing ran: no evidence about the speed, only the refusals
            counts, first = _refusals(evaluations.to_dict("records"))
            raise RuntimeError(f"required_power: none of the {len(evaluations)} techniques the starts asked for can be "
                               f"run by the {model} model within the bounds { {n: b[n] for n in names} } ({counts}); "
                               f"the first: {first}")
        lo_v, hi_v = (float(good.min()), float(good.max())) if len(good) else (math.nan, math.nan)
        where = (f"the {len(good)} steady states computed within the bounds range from {lo_v:.4g} to {hi_v:.4g} m/s"
                 f" ({kind} speed)")
        if not len(good) or not lo_v <= target <= hi_v:
            raise Unreachable("speed", target, f"speed: {target:g} m/s is not reached by the {model} model "
                              f"within the bounds { {n: b[n] for n in names} }: {where}; ask for a speed in that "
                              "range or widen the bounds")
        raise RuntimeError(f"required_power: no start met the speed {target:g} m/s to {speed_tol:g} (relative) although "
                           f"{where}; raise maxiter or starts (closest: {float(ran['violation'].astype(float).min()):.3g})")
    k = int(ok["budget_power"].astype(float).idxmin())  # = mean_power with the "net" budget
    x = {n: float(np.clip(table.loc[k, f"end_{n}"], b[n][0], b[n][1])) for n in names}
    tm = TechniqueModel(model, names, params, options, kind)
    p = tm.params([x[n] for n in names])
    end = table.loc[k]
    peak_n, peak_bw = peak_leg_force(tm.steady([x[n] for n in names]), p)
    return RequiredPower(model, p, x, float(end["mean_power"]), None, b, evaluations, table,
                         dict(options or {}), params, True, kind, float(end["progress_speed"]), float(end["cm_speed"]),
                         peak_bw, budget=budget, budget_power=float(end["budget_power"]),
                         mean_leg_power=float(end.get("mean_leg_power", np.nan)), target_speed=target,
                         speed_tol=speed_tol, force_velocity=force_velocity,
                         force_velocity_margin=float(end.get("force_velocity_margin", np.nan)),
                         peak_leg_force_n=peak_n)


def peak_leg_force(ss, params) -> tuple:
    """(N, body weights): the largest leg force of a steady state's periodic stroke, from its
    frame: the free skater's leg (|leg force| on the body, ``leg_force_bw`` × M g) or the
    thesis's skier's push-off along its leg (|push_force|, over M g of its mass M)."""
    f = ss.frame
    if "leg_force_bw" in f:
        bw = float(f["leg_force_bw"].max())
        return bw * params.weight, bw
    n = float(f["push_force"].abs().max())
    return n, n / (params.mass * params.g)


def _is_bad_number(v) -> bool:
    return isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not math.isfinite(float(v))


def _integer(name, v, low, high=None):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
        raise ValueError(f"{name}: must be an integer, got {v!r}")
    return check_number(name, int(v), integer=True, low=low, high=high)


def option_keys(model) -> tuple:
    """The keywords ``options`` may hold for ``model``: its steady state's (``free_steady_state``,
    ``steady_state``, ``edge_steady_state``) and those it passes on to its simulator
    (``simulate_free``, ``simulate_run``, the edged skater's solver keywords), less those the
    optimizer sets itself (the parameters, one stroke from u, the edged skater's multipliers
    and admissibility check, progress bars): the model's ``option_functions`` and
    ``SET_BY_OPTIMIZER`` (``_MODELS``)."""
    import inspect

    technique = _technique(model)
    keys = set()
    for source in technique.option_functions():  # a function's keyword-only arguments, or a settings' keys
        keys |= ({n for n, p in inspect.signature(source).parameters.items() if p.kind is p.KEYWORD_ONLY}
                 if callable(source) else set(source))
    return tuple(sorted(keys - technique.SET_BY_OPTIMIZER))


def _check_options(model, options) -> None:
    """``options``' keys among ``option_keys(model)`` and its numbers finite: a ValueError naming
    ``options`` and the key (the steady state checks the values' ranges, for every point)."""
    for k, v in (options or {}).items():
        if k not in option_keys(model):
            raise ValueError(f"options: {k!r} is not a keyword of the {model} model's steady state that the "
                             f"optimizer passes on; known: {', '.join(option_keys(model))}")
        if isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and not math.isfinite(float(v)):
            raise ValueError(f"options: {k} must be a finite number, got {v!r}")


def _check_warm(warm, model):
    """A warm start (``optimize_technique``/``required_power``'s ``warm``) as the collocated
    solution it starts from: None; an ``Optimum`` of ``model`` solved by collocation (its
    ``solution``); or a ``skilib.ocp.StrokeSolution`` of ``model``'s parameters.  A ValueError
    naming ``warm`` otherwise."""
    if warm is None:
        return None
    from ..ocp.stroke import StrokeSolution

    if isinstance(warm, Optimum):
        if warm.model != model:
            raise ValueError(f"warm: an optimum of the {warm.model!r} model cannot start the {model!r} model's")
        if warm.method != "collocation" or not isinstance(warm.solution, StrokeSolution):
            raise ValueError(f"warm: the optimum was found by method={warm.method!r}; only a collocated one "
                             "(method='collocation') carries the solution a warm start needs")
        return warm.solution
    if isinstance(warm, StrokeSolution):
        if not isinstance(warm.params, _params_class(model)):
            raise ValueError(f"warm: a solution of {type(warm.params).__name__} cannot start the {model!r} model's "
                             f"({_params_class(model).__name__})")
        return warm
    raise ValueError(f"warm: must be None, a collocated Optimum or a StrokeSolution, got {type(warm).__name__}")


def _check_arguments(model, power, bounds, seed, starts, x0, params, options, speed, fd_step, maxiter, ftol, tol,
                     tol_name, speed_name="speed", warm=None):
    """The checked arguments of optimize_technique / required_power: (model, power, speed,
    bounds, seed, starts, x0, SLSQP's settings); a ValueError naming the first bad one (``warm``,
    a checked warm start or None, counts as a start as ``x0`` does)."""
    _check_model(model)
    power = _positive_or_none("power", power, "W")
    if not isinstance(speed, str) or speed not in SPEEDS:
        raise ValueError(f"{speed_name}: must be one of {SPEEDS}, got {speed!r}")
    if x0 is not None and not isinstance(x0, dict):
        raise ValueError(f"x0: must be None or a dict name → value, got {x0!r}")
    if x0 and warm is not None:
        raise ValueError("x0, warm: give one start in front of the seeded ones, not both (warm starts from its "
                         "own technique)")
    starts = _integer("starts", starts, 0 if (x0 or warm is not None) else 1, 10_000)
    seed = _integer("seed", seed, 0)
    fd_step = check_number("fd_step", fd_step, positive=True, high=0.1)
    maxiter = _integer("maxiter", maxiter, 1)
    ftol = check_number("ftol", ftol, positive=True)
    tol = check_number(tol_name, tol, positive=True, high=0.5)
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"options: must be None or a dict of the steady state's keywords, got {options!r}")
    _check_options(model, options)
    kind = _params_class(model)
    if params is not None and not isinstance(params, kind):
        raise ValueError(f"params: must be None or a{'n' if kind.__name__[0] in 'AEIOU' else ''} {kind.__name__} for the {model} model, "
                         f"got {type(params).__name__}")
    b = _check_bounds(model, bounds)
    if x0:
        unknown = sorted(set(x0) - set(b))
        if unknown:
            raise ValueError(f"x0: {unknown} not among the optimised parameters {list(b)}")
        for n, v in x0.items():
            if _is_bad_number(v):
                raise ValueError(f"x0: {n} must be a finite number, got {v!r}")
    return model, power, speed, b, seed, starts, x0, dict(fd_step=fd_step, maxiter=maxiter, ftol=ftol, g_tol=tol)


# --------------------------------------------------------------------------- around the optimum
def _unit(opt: Optimum):
    lo = np.array([opt.bounds[n][0] for n in opt.names])
    hi = np.array([opt.bounds[n][1] for n in opt.names])
    return lo, hi


def _pair_in_unit(opt: Optimum, tm: TechniqueModel):
    lo, hi = _unit(opt)
    def h(u):
        x = lo + np.asarray(u) * (hi - lo)
        return tuple(opt.vector(tm(x))) + tm.inequalities(x)

    return _Cached(h), lo, hi


def _settle(opt: Optimum, tm: TechniqueModel, c, u, fixed, tol):
    """Restore the power budget at u with the coordinates not in ``fixed`` (nothing to restore
    without a budget); returns (u, speed, mean power, feasible): the budget met to 100 ``tol``,
    a positive speed."""
    if opt.power is None:
        v = c(u)
        feasible = bool(v[0] > 0)
    else:
        u, v = restore(c, u, n_eq=1, tol=tol, fixed=fixed)
        feasible = bool(v[0] > 0 and abs(v[1]) <= 100 * tol)
    lo, hi = _unit(opt)
    return u, v[0], tm.values(lo + u * (hi - lo))["mean_power"], feasible


def constrained_sensitivity(opt: Optimum, *, step: float = 1e-3) -> pd.DataFrame:
    """The speed's sensitivity to each parameter at the optimum, along the power constraint.

    For each parameter i: ∂v/∂x_i and ∂P/∂x_i (central differences of ``step`` × its range,
    one-sided at a bound), and dv/dx_i on the constraint — moving x_i and restoring the power
    with the parameter j ≠ i not at a bound whose power derivative (scaled) is largest:
    dv/dx_i|_P = ∂v/∂x_i − (∂P/∂x_i / ∂P/∂x_j) ∂v/∂x_j (without a budget, ∂v/∂x_i itself).  At
    an interior optimum these are ≈ 0; at a bound their sign says which way the bound holds the
    optimum.  Returns a DataFrame: parameter, value, at_bound ("low"/"high"/"": within 1e-6 of the
    range from a bound, or not), dv_dx, dP_dx,
    restored_by, dv_dx_on_power.
    """
    tm = opt.technique_model()
    lo, hi = _unit(opt)
    x = np.array([opt.x[n] for n in opt.names])
    u = (x - lo) / (hi - lo)
    n = len(u)
    dv, dP = np.zeros(n), np.zeros(n)
    for i in range(n):
        a, b = max(u[i] - step, 0.0), min(u[i] + step, 1.0)
        ua, ub = u.copy(), u.copy()
        ua[i], ub[i] = a, b
        (va, Pa, _), (vb, Pb, _) = tm(lo + ua * (hi - lo)), tm(lo + ub * (hi - lo))
        w = (b - a) * (hi[i] - lo[i])
        dv[i], dP[i] = (vb - va) / w, (Pb - Pa) / w
    # at a bound: within 1e-6 of its range (the restoration's Newton steps may leave ~1e-8)
    at = ["low" if u[i] <= 1e-6 else "high" if u[i] >= 1 - 1e-6 else "" for i in range(n)]
    rows = []
    scaled_P = dP * (hi - lo)
    for i in range(n):
        if opt.power is None:
            rows.append(dict(parameter=opt.names[i], value=x[i], at_bound=at[i], dv_dx=dv[i], dP_dx=dP[i],
                             restored_by="", dv_dx_on_power=dv[i]))
            continue
        cand = [j for j in range(n) if j != i and not at[j]] or [j for j in range(n) if j != i]
        j = max(cand, key=lambda j: abs(scaled_P[j]))
        on = dv[i] - dP[i] / dP[j] * dv[j] if dP[j] != 0 else np.nan
        rows.append(dict(parameter=opt.names[i], value=x[i], at_bound=at[i], dv_dx=dv[i], dP_dx=dP[i],
                         restored_by=opt.names[j], dv_dx_on_power=on))
    return pd.DataFrame(rows)


def constrained_scan(opt: Optimum, name: str, values, *, adjust: str | None = None) -> pd.DataFrame:
    """Steady speed with parameter ``name`` set to each of ``values``, the others at the
    optimum, and the power restored to the budget by ``adjust`` alone (default: the parameter
    not at a bound whose scaled power derivative is largest; found by Newton steps; without a
    budget nothing is restored).  Rows: name's value, adjust's value, optimized_speed, mean_power,
    feasible (power within 1e-6)."""
    names = opt.names
    if opt.power is not None and adjust is None:
        adjust = str(constrained_sensitivity(opt).set_index("parameter").loc[name, "restored_by"])
    i = names.index(name)
    j = names.index(adjust) if opt.power is not None else None
    tm = opt.technique_model()
    c, lo, hi = _pair_in_unit(opt, tm)
    rows = []
    u_opt = (np.array([opt.x[n] for n in names]) - lo) / (hi - lo)
    for val in values:
        u = u_opt.copy()
        u[i] = (float(val) - lo[i]) / (hi[i] - lo[i])
        u, f, P, ok = _settle(opt, tm, c, u, tuple(k for k in range(len(names)) if k != j), 1e-8)
        row = {name: float(val), "optimized_speed": f, "mean_power": P, "feasible": ok}
        if j is not None:
            row[adjust] = float(lo[j] + u[j] * (hi[j] - lo[j]))
        rows.append(row)
    return pd.DataFrame(rows)


def flatness(opt: Optimum, *, offsets=(0.05, 0.1, 0.2, 0.4), within: float = 0.01) -> pd.DataFrame:
    """How flat the optimum is: for each parameter, a constrained scan (``constrained_scan``)
    at the optimum ± each of ``offsets`` (fractions of its bounds' range, clipped to the
    bounds), and the range of its values whose speed, with the power restored, is within
    ``within`` (1 %) of the optimum's.  Returns one row per parameter: parameter, optimum, low,
    high (the range within 1 % among the scanned values), fraction (of the bounds' range),
    restored_by, infeasible (scanned values whose power could not be restored); the scans in
    ``.attrs["scans"]``."""
    rows, scans = [], {}
    sens = constrained_sensitivity(opt).set_index("parameter")
    for n in opt.names:
        lo, hi = opt.bounds[n]
        d = np.asarray(offsets, float) * (hi - lo)
        vals = np.unique(np.clip(np.concatenate([opt.x[n] - d, opt.x[n] + d]), lo, hi))
        vals = vals[vals != opt.x[n]]
        by = str(sens.loc[n, "restored_by"])
        sc = constrained_scan(opt, n, vals, adjust=by or None)
        at_opt = {n: opt.x[n], "optimized_speed": opt.optimized_speed, "mean_power": opt.mean_power, "feasible": True}
        if by:
            at_opt[by] = opt.x[by]
        sc = pd.concat([sc, pd.DataFrame([at_opt])], ignore_index=True).sort_values(n)
        scans[n] = sc
        good = sc[sc["feasible"] & (sc["optimized_speed"] >= (1 - within) * opt.optimized_speed)][n]
        rows.append(dict(parameter=n, optimum=opt.x[n], low=good.min(), high=good.max(),
                         fraction=(good.max() - good.min()) / (hi - lo), restored_by=by,
                         infeasible=int((~sc["feasible"]).sum())))
    out = pd.DataFrame(rows)
    out.attrs["scans"] = scans
    return out


def speed_power_front(model: str = "free", powers=(50, 100, 200, 300, 400), **kwargs) -> tuple:
    """The optimum at each power (``optimize_technique(model, power, **kwargs)``), each started
    also from the previous power's optimum (a collocated one from its solution: ``warm``).  Returns (DataFrame: power, optimized_speed, progress_speed, cm_speed,
    mean_power,
    peak_leg_force_bw, feasible, the parameters, n_evaluations, n_failed, error; list of
    Optimum).  A power with no optimum (every start failed, or ``Unreachable``: no technique
    within the bounds reaches it) is a row of NaN with its error; ``progress=True`` shows each
    power's bar."""
    rows, opts, prev = [], [], None
    for P in powers:
        kw = dict(kwargs)
        if prev is not None and prev.feasible:  # warm start: the previous power's optimum
            if prev.method == "collocation":  # from its solution's primal-dual point, in place of x0
                kw.pop("x0", None)
                kw["warm"] = prev
            else:
                kw["x0"] = prev.x
        try:
            o = optimize_technique(model, float(P), **kw)
        except (RuntimeError, Unreachable) as e:  # every start failed, or the power is out of reach
            rows.append(dict(power=float(P), optimized_speed=np.nan, mean_power=np.nan, error=str(e)))
            opts.append(None)
            continue
        ev = o.evaluations
        rows.append(dict(power=float(P), optimized_speed=o.optimized_speed, progress_speed=o.progress_speed,
                         cm_speed=o.cm_speed, mean_power=o.mean_power,
                         peak_leg_force_bw=o.peak_leg_force_bw, feasible=o.feasible, **o.x,
                         n_evaluations=len(ev), n_failed=int((ev["status"] != "ok").sum()), error=""))
        opts.append(o)
        prev = o
    return pd.DataFrame(rows), opts


def speed_map(opt: Optimum, x_name: str, x_values, y_name: str, y_values, *, adjust: str | None = None) -> pd.DataFrame:
    """Steady speed over a grid of two parameters at the optimum's power: at each (x, y) the
    other parameters stay at the optimum and ``adjust`` alone restores the power (Newton steps;
    without a budget nothing is restored); a point whose power cannot be reached within adjust's
    bounds is infeasible (NaN speed).  Rows: x, y, adjust's value,
    optimized_speed, mean_power, feasible."""
    names = opt.names
    if opt.power is not None and adjust is None:
        raise ValueError("adjust: name the parameter that restores the power budget")
    i, k = names.index(x_name), names.index(y_name)
    j = names.index(adjust) if opt.power is not None else None
    tm = opt.technique_model()
    c, lo, hi = _pair_in_unit(opt, tm)
    u_opt = (np.array([opt.x[n] for n in names]) - lo) / (hi - lo)
    fixed = tuple(m for m in range(len(names)) if m != j)
    rows = []
    for yv in y_values:
        u_prev = None
        for xv in x_values:
            u = u_opt.copy() if u_prev is None else u_prev.copy()
            u[i] = (float(xv) - lo[i]) / (hi[i] - lo[i])
            u[k] = (float(yv) - lo[k]) / (hi[k] - lo[k])
            u, f, P, ok = _settle(opt, tm, c, u, fixed, 1e-6)
            u_prev = u if ok else None
            row = {x_name: float(xv), y_name: float(yv), "optimized_speed": f if ok else np.nan, "mean_power": P,
                   "feasible": ok}
            if j is not None:
                row[adjust] = float(lo[j] + u[j] * (hi[j] - lo[j]))
            rows.append(row)
    return pd.DataFrame(rows)
