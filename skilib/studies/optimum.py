"""The optimum technique: the fastest steady skating for a given mean power (the thesis's open
question, Bruzzo 2012, ch. 6).

For a model's technique parameters x within human bounds,

    maximise   v(x)  (the steady state's mean speed)
    subject to P(x) = P_budget  (the steady state's mean power)

with SciPy's SLSQP on the steady-state map (``skilib.free_steady_state`` for the free skater,
whose power is the leg's; ``skilib.steady_state`` for the thesis's skier, whose power is the
push-off's), from seeded starting points.

How it is solved.  The parameters are scaled to the unit cube (each bound's range → [0, 1]).
v and P come from one steady state per point, cached, so one evaluation serves both; their
gradients are forward differences of step ``fd_step`` in the unit cube (backward at an upper
bound), taken from the same cache.  The steady state is found to |Φ(u) − u| ≤ 1e-10 m/s with
the integrators at rtol 1e-10, so the differences are good to about 1e-5.  After SLSQP the
point is clipped to the bounds and the power restored by Newton steps along the power's
gradient (over the parameters not at a bound), so the constraint holds to ``power_tol``
(relative) and the bounds exactly.

Failures.  A technique the model refuses (a ``ValueError`` from the parameters, a
``RuntimeError`` such as no periodic stroke) is caught: the evaluation is recorded with its
error in ``evaluations`` (nothing is dropped), and the optimizer is given a **penalty** instead
— speed 0 and power 0 (so the constraint is violated by the whole budget) — which steers it
back towards techniques that work.

Starting points.  ``starts`` points drawn with ``numpy.random.default_rng(seed)`` as a Latin
hypercube in the unit cube (one stratum per start and parameter, randomly paired), plus any
``x0`` given.  Each start is one row of a ``skilib.sweep``: with ``scheduler="serial"`` (the
default) in this process, otherwise on Dask (a LocalCluster, an address or a Client), one
SLSQP run per task.  The best feasible end point wins.  Everything is deterministic for a seed.

The core, :func:`maximize`, works on plain functions, so the optimizer can be checked on an
analytic problem.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields, replace

import numpy as np
import pandas as pd
from scipy.optimize import minimize

__all__ = ["optimize_technique", "maximize", "Maximum", "Optimum", "FREE_BOUNDS", "THESIS_BOUNDS", "latin_starts",
           "constrained_sensitivity", "flatness", "speed_power_front", "speed_map", "restore_power"]

#: the free skater's technique parameters and their human bounds (see the book's chapter "The
#: optimum technique"): the V-angle between the skis 10–70° (measured V2 skating angles of each
#: ski to the direction of travel are ≈ 10–20° on the flat, larger uphill: a V of 20–40°; the
#: range covers them with a wide margin), one stroke (one leg's push and glide) 0.4–2 s (cycle
#: rates of ≈ 0.5–0.9 Hz are strokes of ≈ 0.55–1 s), the ski's inward turn 0–25°, the CM's
#: lateral offset from the ski at the end of a stroke 0.1–0.6 m (the leg's reach: the model
#: refuses a CM more than 1.3 m from the ski), the CM's dip 0–0.15 m (a knee bend).
FREE_BOUNDS = {"skating_angle_deg": (10.0, 70.0), "stroke_time": (0.4, 2.0), "steer_deg": (0.0, 25.0),
               "offset_end": (0.1, 0.6), "cm_dip": (0.0, 0.15)}
#: the thesis's skier: skating angle 20–80°, phase time 0.4–2 s, and C_ext, C_rot within the
#: leg's reach for every phase time in the range: ℓ(T) = ℓ0 + C_ext T ≤ L2 + L3 = 0.9 m with
#: ℓ0 = 0.5 m and T ≤ 2 s gives C_ext ≤ 0.2 m/s; γ(T) = γ0 + C_rot T < 90° with γ0 = 0 gives
#: C_rot < 45°/s (table 6's leg, table 9's ℓ0 and γ0).
THESIS_BOUNDS = {"skating_angle_deg": (20.0, 80.0), "phase_time": (0.4, 2.0), "c_ext": (0.0, 0.2),
                 "c_rot_deg": (0.0, 44.0)}
#: penalty given to the optimizer for a technique the model cannot run: (speed, power)
PENALTY = (0.0, 0.0)


# --------------------------------------------------------------------------- the plain core
@dataclass
class Maximum:
    """The result of :func:`maximize`.

    x : the best point (within the bounds exactly); f, g : f(x) and g(x) there.
    success : SLSQP's flag at the best start and |g| ≤ g_tol; message : its message.
    starts : DataFrame, one row per start: start (index), x0_*, x_*, f, g, success, message,
        nit, nfev.
    """

    x: np.ndarray
    f: float
    g: float
    success: bool
    message: str
    starts: pd.DataFrame = field(repr=False)


class _Cached:
    """f and g of a point, each evaluated once (h returns the pair)."""

    def __init__(self, h):
        self.h, self.cache = h, {}

    def __call__(self, x):
        key = tuple(float(v) for v in x)
        if key not in self.cache:
            self.cache[key] = tuple(float(v) for v in self.h(np.asarray(key)))
        return self.cache[key]


def _fd_grad(c: _Cached, x, step, only=None):
    """Forward differences of (f, g) at x in the unit cube (backward at the upper bound), in
    the coordinates ``only`` (default all; the others are 0)."""
    f0, g0 = c(x)
    gf, gg = np.zeros(len(x)), np.zeros(len(x))
    for i in range(len(x)) if only is None else only:
        s = step if x[i] + step <= 1.0 else -step
        xi = x.copy()
        xi[i] += s
        fi, gi = c(xi)
        gf[i], gg[i] = (fi - f0) / s, (gi - g0) / s
    return gf, gg


def restore_power(h, x, *, tol=1e-10, step=1e-5, max_iter=12, fixed=()):
    """Newton steps on g = h(x)[1] along its gradient (in the unit cube, over the coordinates
    not at a bound and not in ``fixed``) until |g| ≤ tol, x in the unit cube [0, 1]^n.
    Returns (x, f, g) at the last point.  h is a _Cached pair function of the unit-cube point."""
    x = np.clip(np.asarray(x, float), 0.0, 1.0)
    f, g = h(x)
    for _ in range(max_iter):
        if abs(g) <= tol:
            break
        _, gg = _fd_grad(h, x, step, [i for i in range(len(x)) if i not in fixed])
        free = np.array([(0.0 < x[i] < 1.0 or (x[i] == 0.0 and -g * gg[i] > 0) or (x[i] == 1.0 and -g * gg[i] < 0))
                         and i not in fixed for i in range(len(x))])
        d = np.where(free, gg, 0.0)
        if not np.any(d):
            break
        xn = np.clip(x - g * d / (d @ d), 0.0, 1.0)
        fn, gn = h(xn)
        if abs(gn) >= abs(g):  # no progress: halve once, then give up
            xn = np.clip(x - 0.5 * g * d / (d @ d), 0.0, 1.0)
            fn, gn = h(xn)
            if abs(gn) >= abs(g):
                break
        x, f, g = xn, fn, gn
    return x, f, g


def _one_start(h, x0, *, fd_step, ftol, maxiter, g_tol):
    """SLSQP (maximise f s.t. g = 0 in the unit cube) from x0, then the restoration of g."""
    c = _Cached(h)
    grads = {}

    def jac(x):
        key = tuple(x)
        if key not in grads:
            grads[key] = _fd_grad(c, np.clip(np.asarray(x, float), 0, 1), fd_step)
        return grads[key]

    res = minimize(lambda x: -c(np.clip(x, 0, 1))[0], np.asarray(x0, float), jac=lambda x: -jac(x)[0],
                   method="SLSQP", bounds=[(0.0, 1.0)] * len(x0),
                   constraints=[dict(type="eq", fun=lambda x: c(np.clip(x, 0, 1))[1], jac=lambda x: jac(x)[1])],
                   options=dict(ftol=ftol, maxiter=maxiter))
    x, f, g = restore_power(c, res.x, tol=g_tol, step=fd_step)
    return dict(x=x, f=f, g=g, success=bool(res.success) and abs(g) <= g_tol, message=str(res.message),
                nit=int(res.nit), nfev=len(c.cache))


def latin_starts(n_starts: int, dim: int, seed=0) -> np.ndarray:
    """``n_starts`` points in the unit cube [0, 1]^dim, a Latin hypercube drawn with
    ``numpy.random.default_rng(seed)``: each coordinate takes one point in each of the
    ``n_starts`` equal strata, randomly placed and paired."""
    rng = np.random.default_rng(seed)
    u = (np.arange(n_starts)[:, None] + rng.random((n_starts, dim))) / n_starts
    for j in range(dim):
        u[:, j] = u[rng.permutation(n_starts), j]
    return u


def maximize(f, g, x0, bounds, *, fd_step=1e-5, ftol=1e-12, maxiter=100, g_tol=1e-10) -> Maximum:
    """Maximise f(x) subject to g(x) = 0 and bounds[i][0] ≤ x_i ≤ bounds[i][1], by SLSQP from
    each start in x0 (one point, or an array of points, one per row), with forward-difference
    gradients of step ``fd_step`` relative to each bound's range.  f and g may be one function:
    pass g=None and f returning the pair (f(x), g(x)).  The best end point with |g| ≤ g_tol
    (the best overall if none) is returned (:class:`Maximum`).

    >>> m = maximize(lambda x: x[0] + x[1], lambda x: x[0] ** 2 + x[1] ** 2 - 1, [0.5, 0.1], [(-2, 2), (-2, 2)])
    >>> bool(abs(m.x[0] - 2 ** -0.5) < 1e-6 and abs(m.x[1] - 2 ** -0.5) < 1e-6)
    True
    """
    lo, hi = (np.asarray(b, float) for b in zip(*bounds))
    if np.any(hi <= lo):
        raise ValueError(f"bounds: each must be (low, high) with low < high, got {bounds!r}")
    pair = f if g is None else (lambda x: (f(x), g(x)))

    def h(u):
        return pair(lo + np.asarray(u) * (hi - lo))

    starts = np.atleast_2d(np.asarray(x0, float))
    rows = []
    for k, s in enumerate(starts):
        r = _one_start(h, np.clip((s - lo) / (hi - lo), 0, 1), fd_step=fd_step, ftol=ftol, maxiter=maxiter,
                       g_tol=g_tol)
        rows.append(dict(start=k, **{f"x0_{i}": v for i, v in enumerate(s)},
                         **{f"x_{i}": v for i, v in enumerate(lo + r["x"] * (hi - lo))},
                         **{k2: r[k2] for k2 in ("f", "g", "success", "message", "nit", "nfev")}))
    table = pd.DataFrame(rows)
    best = _best(table, g_tol)
    x = np.clip(np.array([table.loc[best, f"x_{i}"] for i in range(len(lo))]), lo, hi)
    return Maximum(x, float(table.loc[best, "f"]), float(table.loc[best, "g"]), bool(table.loc[best, "success"]),
                   str(table.loc[best, "message"]), table)


def _best(table, g_tol) -> int:
    ok = table[table["g"].abs() <= g_tol]
    pool = ok if len(ok) else table.assign(f=-table["g"].abs())
    return int(pool["f"].idxmax())


# --------------------------------------------------------------------------- the models
def _as_free_params(base, values):
    from ..skier.free import FreeSkaterParams

    return replace(base if base is not None else FreeSkaterParams(), **values)


def _as_thesis_params(base, values):
    from ..skier.params import SkierParams

    return replace(base if base is not None else SkierParams(), **values)


class TechniqueModel:
    """The steady-state map of one model as (mean speed, mean power) of named parameters;
    picklable, so a Dask worker can run it.  Every call is logged in ``log`` (a list of dicts:
    the parameters, mean_speed, mean_power, u0, status, error)."""

    def __init__(self, model, names, base=None, options=None):
        if model not in ("free", "thesis"):
            raise ValueError(f"model: must be 'free' or 'thesis', got {model!r}")
        self.model, self.names, self.base, self.options = model, tuple(names), base, dict(options or {})
        self.log = []

    def params(self, x):
        values = {n: float(v) for n, v in zip(self.names, x)}
        return (_as_free_params if self.model == "free" else _as_thesis_params)(self.base, values)

    def steady(self, x):
        p = self.params(x)
        if self.model == "free":
            from ..skier.free_run import free_steady_state

            return free_steady_state(p, **self.options)
        from ..skier.steady import steady_state

        return steady_state(p, **self.options)

    def __call__(self, x):
        row = {n: float(v) for n, v in zip(self.names, x)}
        try:
            ss = self.steady(x)
            v, P = float(ss.mean_speed), float(ss.mean_power)
            if not (math.isfinite(v) and math.isfinite(P)):
                raise RuntimeError(f"non-finite steady state: speed {v}, power {P}")
            self.log.append(dict(row, mean_speed=v, mean_power=P, u0=float(ss.u0), status="ok", error=""))
            return v, P
        except (ValueError, RuntimeError, ArithmeticError) as e:
            self.log.append(dict(row, mean_speed=np.nan, mean_power=np.nan, u0=np.nan, status="error",
                                 error=f"{type(e).__name__}: {e}"))
            return PENALTY


class _StartTask:
    """One start of optimize_technique, a row function for ``skilib.sweep``: the row holds the
    start's parameters; the result its end point, its evaluations (JSON) and SLSQP's report."""

    def __init__(self, model, names, bounds, base, options, power, settings):
        self.args = (model, names, bounds, base, options, power, settings)

    def __call__(self, row):
        model, names, bounds, base, options, power, settings = self.args
        tm = TechniqueModel(model, names, base, options)
        m = maximize(lambda x: _scaled(tm(x), power), None, [row[n] for n in names], [bounds[n] for n in names],
                     **settings)
        out = {f"end_{n}": float(v) for n, v in zip(names, m.x)}
        st = m.starts.iloc[0]
        return dict(out, mean_speed=m.f, power_error=m.g * power, success=m.success, message=m.message,
                    nit=int(st["nit"]), nfev=int(st["nfev"]), evaluations=json.dumps(tm.log))


def _scaled(vp, power):
    v, P = vp
    return v, (P - power) / power


@dataclass
class Optimum:
    """The optimum technique at one power (``optimize_technique``).

    params : the model's parameters at the optimum (FreeSkaterParams or SkierParams).
    x : the optimum as {name: value} of the parameters optimised.
    mean_speed, mean_power : its steady state's [m/s], [W]; power : the budget [W].
    bounds : {name: (low, high)} used.  model : "free" or "thesis".
    evaluations : DataFrame of every steady state computed (start, the parameters, mean_speed,
        mean_power, u0, status "ok"/"error", error): failures included with their error.
    starts : DataFrame, one row per start: its point, its end point (end_*), mean_speed,
        power_error [W], success, message, nit (SLSQP iterations), nfev (steady states).
    options : the steady-state keywords used; base : the parameters not optimised.
    feasible : whether the power is met to the tolerance (False: no start reached it, e.g. too
        few iterations; the point returned is then the one closest to the power).
    """

    model: str
    params: object
    x: dict
    mean_speed: float
    mean_power: float
    power: float
    bounds: dict
    evaluations: pd.DataFrame = field(repr=False)
    starts: pd.DataFrame = field(repr=False)
    options: dict = field(default_factory=dict, repr=False)
    base: object = field(default=None, repr=False)
    feasible: bool = True

    @property
    def names(self):
        return tuple(self.bounds)

    def technique_model(self) -> TechniqueModel:
        return TechniqueModel(self.model, self.names, self.base, self.options)


def _check_bounds(model, bounds):
    default = FREE_BOUNDS if model == "free" else THESIS_BOUNDS
    if bounds is None:
        return dict(default)
    if not isinstance(bounds, dict) or not bounds:
        raise ValueError(f"bounds: must be a non-empty dict name → (low, high), got {bounds!r}")
    from ..skier.free import FreeSkaterParams
    from ..skier.params import SkierParams

    allowed = {f.name for f in fields(FreeSkaterParams if model == "free" else SkierParams)}
    out = {}
    for n, b in bounds.items():
        if n not in allowed:
            raise ValueError(f"bounds: {n!r} is not a parameter of the {model} model")
        lo, hi = (float(v) for v in b)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"bounds: {n} must be (low, high) with low < high, got {b!r}")
        out[n] = (lo, hi)
    return out


def optimize_technique(model: str = "free", power: float = 200.0, bounds: dict | None = None, seed: int = 0,
                       starts: int = 4, scheduler="serial", *, x0: dict | None = None, params=None,
                       options: dict | None = None, fd_step: float = 1e-5, maxiter: int = 60, ftol: float = 1e-8,
                       power_tol: float = 1e-8, n_workers=None) -> Optimum:
    """The fastest steady technique at mean power ``power`` [W] (module docstring).

    model : "free" (``FreeSkaterParams``; the leg's mean power) or "thesis" (``SkierParams``;
        the push-off's mean power, ``steady_state``).
    bounds : {name: (low, high)}: the parameters optimised and their ranges; default
        ``FREE_BOUNDS`` / ``THESIS_BOUNDS``.  The other parameters are those of ``params``.
    seed, starts : the Latin-hypercube starts (``latin_starts``); ``x0`` (a {name: value})
        adds one start in front.
    scheduler : "serial" (default: this process) or as ``skilib.sweep`` (None: a LocalCluster;
        an address; a Client): where the starts run, one task each.
    options : keywords of the steady state (free_steady_state / steady_state: tol, rtol,
        push_force, dt_out, ...).
    fd_step : forward-difference step in the unit-scaled parameters; maxiter, ftol : SLSQP's
        (ftol on the speed [m/s]: the differences' noise makes a smaller one iterate in vain).
    power_tol : the power constraint's tolerance, relative to ``power``.

    A technique the model cannot run is recorded in ``evaluations`` with its error and given to
    the optimizer as a penalty (speed 0, power 0).  ValueError on bad arguments; RuntimeError
    if every start fails; if none ends within the power tolerance, the result has
    ``feasible=False``.
    """
    from .sweeps import sweep

    if model not in ("free", "thesis"):
        raise ValueError(f"model: must be 'free' or 'thesis', got {model!r}")
    if isinstance(power, bool) or not isinstance(power, (int, float)) or not (math.isfinite(power) and power > 0):
        raise ValueError(f"power: must be a power > 0 in W, got {power!r}")
    if isinstance(starts, bool) or not isinstance(starts, int) or starts < (0 if x0 else 1):
        raise ValueError(f"starts: must be an integer >= 1, got {starts!r}")
    b = _check_bounds(model, bounds)
    names = tuple(b)
    lo, hi = np.array([b[n][0] for n in names]), np.array([b[n][1] for n in names])
    pts = lo + latin_starts(starts, len(names), seed) * (hi - lo) if starts else np.empty((0, len(names)))
    if x0:
        unknown = sorted(set(x0) - set(names))
        if unknown:
            raise ValueError(f"x0: {unknown} not among the optimised parameters {list(names)}")
        base_vals = TechniqueModel(model, (), params).params(()) if params is None else params
        first = np.array([float(x0.get(n, getattr(base_vals, n))) for n in names])
        pts = np.vstack([np.clip(first, lo, hi), pts])
    grid = pd.DataFrame(pts, columns=list(names))
    settings = dict(fd_step=fd_step, maxiter=maxiter, ftol=ftol, g_tol=power_tol)
    task = _StartTask(model, names, b, params, options, float(power), settings)
    res = sweep(task, grid, scheduler=scheduler, progress=False, n_workers=n_workers)
    table = res.frame.reset_index(drop=True)
    ev = []
    for k, row in table.iterrows():
        if row["status"] == "ok":
            ev += [dict(start=k, **e) for e in json.loads(row["evaluations"])]
        else:
            ev.append(dict(start=k, **{n: row[n] for n in names}, mean_speed=np.nan, mean_power=np.nan, u0=np.nan,
                           status="error", error=f"start failed: {row['error']}"))
    evaluations = pd.DataFrame(ev)
    table = table.drop(columns=["evaluations"], errors="ignore")
    ran = table[table["status"] == "ok"]
    if not len(ran):
        raise RuntimeError(f"optimize_technique: every start failed; starts:\n{table.to_string()}")
    ok = ran[ran["power_error"].abs() <= power_tol * power]
    feasible = bool(len(ok))
    # the fastest start within the power tolerance; if none, the one closest to the power
    k = int(ok["mean_speed"].astype(float).idxmax()) if feasible else int(ran["power_error"].abs().idxmin())
    x = {n: float(np.clip(table.loc[k, f"end_{n}"], b[n][0], b[n][1])) for n in names}
    tm = TechniqueModel(model, names, params, options)
    p = tm.params([x[n] for n in names])
    return Optimum(model, p, x, float(table.loc[k, "mean_speed"]), float(power + table.loc[k, "power_error"]),
                   float(power), b, evaluations, table, dict(options or {}), params, feasible)


# --------------------------------------------------------------------------- around the optimum
def _unit(opt: Optimum):
    lo = np.array([opt.bounds[n][0] for n in opt.names])
    hi = np.array([opt.bounds[n][1] for n in opt.names])
    return lo, hi


def _pair_in_unit(opt: Optimum, tm: TechniqueModel):
    lo, hi = _unit(opt)
    return _Cached(lambda u: _scaled(tm(lo + np.asarray(u) * (hi - lo)), opt.power)), lo, hi


def constrained_sensitivity(opt: Optimum, *, step: float = 1e-3) -> pd.DataFrame:
    """The speed's sensitivity to each parameter at the optimum, along the power constraint.

    For each parameter i: ∂v/∂x_i and ∂P/∂x_i (central differences of ``step`` × its range,
    one-sided at a bound), and dv/dx_i on the constraint — moving x_i and restoring the power
    with the parameter j ≠ i not at a bound whose power derivative (scaled) is largest:
    dv/dx_i|_P = ∂v/∂x_i − (∂P/∂x_i / ∂P/∂x_j) ∂v/∂x_j.  At an interior optimum these are ≈ 0;
    at a bound their sign says which way the bound holds the optimum.  Returns a DataFrame:
    parameter, value, at_bound ("low"/"high"/""), dv_dx, dP_dx, restored_by, dv_dx_on_power.
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
        (va, Pa), (vb, Pb) = tm(lo + ua * (hi - lo)), tm(lo + ub * (hi - lo))
        w = (b - a) * (hi[i] - lo[i])
        dv[i], dP[i] = (vb - va) / w, (Pb - Pa) / w
    at = ["low" if u[i] <= 0 else "high" if u[i] >= 1 else "" for i in range(n)]
    rows = []
    scaled_P = dP * (hi - lo)
    for i in range(n):
        cand = [j for j in range(n) if j != i and not at[j]] or [j for j in range(n) if j != i]
        j = max(cand, key=lambda j: abs(scaled_P[j]))
        on = dv[i] - dP[i] / dP[j] * dv[j] if dP[j] != 0 else np.nan
        rows.append(dict(parameter=opt.names[i], value=x[i], at_bound=at[i], dv_dx=dv[i], dP_dx=dP[i],
                         restored_by=opt.names[j], dv_dx_on_power=on))
    return pd.DataFrame(rows)


def constrained_scan(opt: Optimum, name: str, values, *, adjust: str | None = None) -> pd.DataFrame:
    """Steady speed with parameter ``name`` set to each of ``values``, the others at the
    optimum, and the power restored to the budget by ``adjust`` alone (default: the parameter
    not at a bound whose scaled power derivative is largest; found by Newton steps).  Rows:
    name's value, adjust's value, mean_speed, mean_power, feasible (power within 1e-6)."""
    sens = constrained_sensitivity(opt) if adjust is None else None
    if adjust is None:
        adjust = str(sens.set_index("parameter").loc[name, "restored_by"])
    names = opt.names
    i, j = names.index(name), names.index(adjust)
    tm = opt.technique_model()
    c, lo, hi = _pair_in_unit(opt, tm)
    rows = []
    u_opt = (np.array([opt.x[n] for n in names]) - lo) / (hi - lo)
    for val in values:
        u = u_opt.copy()
        u[i] = (float(val) - lo[i]) / (hi[i] - lo[i])
        fixed = tuple(k for k in range(len(names)) if k != j)
        u, f, g = restore_power(c, u, tol=1e-8, fixed=fixed)
        rows.append({name: float(val), adjust: float(lo[j] + u[j] * (hi[j] - lo[j])), "mean_speed": f,
                     "mean_power": opt.power * (1 + g), "feasible": abs(g) <= 1e-6 and f > 0})
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
        sc = constrained_scan(opt, n, vals, adjust=str(sens.loc[n, "restored_by"]))
        sc = pd.concat([sc, pd.DataFrame([{n: opt.x[n], str(sens.loc[n, "restored_by"]): opt.x[str(sens.loc[n, "restored_by"])],
                                           "mean_speed": opt.mean_speed, "mean_power": opt.mean_power,
                                           "feasible": True}])], ignore_index=True).sort_values(n)
        scans[n] = sc
        good = sc[sc["feasible"] & (sc["mean_speed"] >= (1 - within) * opt.mean_speed)][n]
        rows.append(dict(parameter=n, optimum=opt.x[n], low=good.min(), high=good.max(),
                         fraction=(good.max() - good.min()) / (hi - lo), restored_by=str(sens.loc[n, "restored_by"]),
                         infeasible=int((~sc["feasible"]).sum())))
    out = pd.DataFrame(rows)
    out.attrs["scans"] = scans
    return out


def speed_power_front(model: str = "free", powers=(50, 100, 200, 300, 400), **kwargs) -> tuple:
    """The optimum at each power (``optimize_technique(model, power, **kwargs)``), each started
    also from the previous power's optimum.  Returns (DataFrame: power, mean_speed, mean_power,
    the parameters, n_evaluations, n_failed; list of Optimum).  A power with no optimum is a row
    of NaN with its error."""
    rows, opts, prev = [], [], None
    for P in powers:
        kw = dict(kwargs)
        if prev is not None and prev.feasible:  # warm start: the previous power's optimum
            kw["x0"] = prev.x
        try:
            o = optimize_technique(model, float(P), **kw)
        except RuntimeError as e:
            rows.append(dict(power=float(P), mean_speed=np.nan, mean_power=np.nan, error=str(e)))
            opts.append(None)
            continue
        ev = o.evaluations
        rows.append(dict(power=float(P), mean_speed=o.mean_speed, mean_power=o.mean_power, feasible=o.feasible, **o.x,
                         n_evaluations=len(ev), n_failed=int((ev["status"] != "ok").sum()), error=""))
        opts.append(o)
        prev = o
    return pd.DataFrame(rows), opts


def speed_map(opt: Optimum, x_name: str, x_values, y_name: str, y_values, *, adjust: str) -> pd.DataFrame:
    """Steady speed over a grid of two parameters at the optimum's power: at each (x, y) the
    other parameters stay at the optimum and ``adjust`` alone restores the power (Newton steps);
    a point whose power cannot be reached within adjust's bounds is infeasible (NaN speed).
    Rows: x, y, adjust's value, mean_speed, mean_power, feasible."""
    names = opt.names
    i, k, j = names.index(x_name), names.index(y_name), names.index(adjust)
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
            u, f, g = restore_power(c, u, tol=1e-6, fixed=fixed)
            ok = abs(g) <= 1e-4 and f > 0
            u_prev = u if ok else None
            rows.append({x_name: float(xv), y_name: float(yv), adjust: float(lo[j] + u[j] * (hi[j] - lo[j])),
                         "mean_speed": f if ok else np.nan, "mean_power": opt.power * (1 + g), "feasible": ok})
    return pd.DataFrame(rows)
