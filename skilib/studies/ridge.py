"""The ridge around the free skater's optimum technique, and checks of the optimum that a ridge
cannot pass trivially.

The 0-D balance.  A steady skater at speed v on the flat loses power to friction and air drag,
P = μ (M + m_s) g v + ½ ρ C_dA v³; on a course rising at α along X (``slope_deg``) the snow's
load is (M + m_s) g cos α and lifting the skier takes the climbing power (M + m_s) g sin α · v:

    P = μ (M + m_s) g cos α · v + ½ ρ C_dA v³ + (M + m_s) g sin α · v.

With a lossless touch-down nothing else takes power, so the speed at power P is this cubic's
one positive root (:func:`balance_speed`) whatever the technique, and its slope is
dv/dP = 1 / ((M + m_s) g (μ cos α + sin α) + 3/2 ρ C_dA v²) (:func:`balance_slope`).  The plastic touch-down loses kinetic energy at every change of ski, so
a real optimum lies at or below the balance speed.

The ridge angle.  Per stroke of time T the leg does work P T.  If that work goes into the body's
sideways speed w (across the direction of travel, relative to the glide along the ski), with
½ M w² = P T, and the body then leaves the ski along its resultant velocity (v along the course,
w across it), each ski lies at

    θ = atan(w / v) = atan(√(2 P T / M) / v)

to the direction of travel (:func:`ridge_angle`, in degrees; the skating angle between the
skis is 2θ).  Assumptions: the forward speed v is constant over the stroke, the touch-down
loses nothing, the ski's mass is neglected beside the body's, and the leg's work goes into w
alone.  Along such a ridge every stroke time T gives the same speed (the balance speed) at its
own angle θ(T).

Around an optimum x* of max v(x) s.t. P(x) = P_budget and the bounds (and inequality rows
s(x) ≥ 0):

- :func:`active_bounds`: the first-order (KKT) condition ∇v = λ ∇P + Σ_a κ_a n_a, with n_a = e_i
  for a parameter at its upper bound, −e_i at its lower bound, −∇s for an active inequality; λ
  and the κ by least squares on the central-difference gradients (in the parameters' units).
  κ ≥ 0: the bound holds the optimum (pushing past it would be faster); κ < 0: the optimizer
  stopped short.  The relative residual |∇v − λ∇P − Σκ n| / |∇v| is the first-order check;
  λ is the multiplier, = dv*/dP_budget on the speed–power front (the envelope theorem).
- :func:`optimality`: λ and the residual, beside the front's slope dv/dP (from neighbouring
  powers) and the 0-D balance's slope.
- :func:`reduced_hessian`: the Hessian of the Lagrangian L = v − λ P − Σ κ s over the interior
  parameters (second central differences in the unit cube, step ``step`` of each range),
  projected on the tangent space of the power constraint and the active inequalities,
  Zᵀ ∇²L Z (Z an orthonormal basis of the null space of their gradients).  Zᵀ ∇²L Z is the
  second derivative of the speed along the constraint surface, so its eigenvalues are the
  speed's curvatures [m/s per (unit range)²] along its eigenvectors: a near-zero eigenvalue is a
  ridge, a direction along which the technique may move at no cost in speed.  A scan along
  coordinate axes (``flatness``) cannot see a ridge that is not along an axis.

The functions take an ``Optimum`` of the free skater (``optimize_technique``) or a
:class:`Problem` (plain functions, so each is checked on an analytic problem).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.linalg import null_space

from ..engine.validation import check_number

__all__ = ["balance_speed", "balance_slope", "ridge_angle", "Problem", "active_bounds", "optimality",
           "reduced_hessian", "front_slope", "max_offset", "power_offset", "ridge_scan"]


def _free_params(params):
    from ..models.free.params import FreeSkaterParams

    if params is None:
        return FreeSkaterParams()
    if not isinstance(params, FreeSkaterParams):
        raise ValueError(f"params: must be None or a FreeSkaterParams, got {type(params).__name__}")
    return params


def _resistance(p):
    """(F = (M + m_s) g (μ cos α + sin α) [N], k = ½ ρ C_dA [kg/m]) of the free skater: the
    force of friction and of the slope (α = ``slope_deg``; F = μ (M + m_s) g on the flat, and
    F < 0 downhill steeper than atan μ) and the drag's factor (k = 0 without air drag)."""
    from ..strokes.params import slope_factors

    s, c = slope_factors(p.slope_deg)
    m = p.body_mass + p.ski_mass
    F = p.friction_coefficient * m * p.g * c
    if s != 0.0:
        F += m * p.g * s
    return F, 0.5 * p.air_density * p.cda if p.air_drag else 0.0


def balance_speed(power, params=None):
    """The 0-D balance speed [m/s]: the positive root v of

        P = μ (M + m_s) g cos α · v + ½ ρ C_dA v³ + (M + m_s) g sin α · v

    (friction on the whole mass, air drag on the body, C_dA = 0 without ``air_drag``; the
    climbing power on a course rising at α = ``params.slope_deg`` along X, 0 on the flat), the
    steady speed of a skater whose only losses are friction, drag and height.  ``power`` [W] ≥ 0,
    a number or an array; ``params`` a FreeSkaterParams (default: its defaults).  Solved by
    ``skilib.models.thesis.energy.power_balance_speed`` (the same balance with the thesis's
    friction force); downhill steeper than atan μ (the slope pulls harder than friction) the
    root is the one above √(−F/k), F = (M + m_s) g (μ cos α + sin α) < 0."""
    from ..models.thesis.energy import downhill_speed, power_balance_speed

    F, k = _resistance(_free_params(params))
    if F >= 0.0:
        return power_balance_speed(power, friction=F, cda=2.0 * k, air_density=1.0)
    P = np.asarray(power, dtype=float) if not isinstance(power, (str, bytes)) else power
    if isinstance(P, (str, bytes)) or not np.all(np.isfinite(P)) or np.any(P < 0):
        raise ValueError(f"power: must be finite and >= 0 W, got {power!r}")
    out = np.vectorize(lambda x: downhill_speed(float(x), F, k), otypes=[float])(P)
    return float(out) if out.ndim == 0 else out


def balance_slope(power, params=None):
    """dv/dP [m/s per W] of the 0-D balance at ``power``:
    1 / ((M + m_s) g (μ cos α + sin α) + 3/2 ρ C_dA v²) at v = ``balance_speed(power, params)``."""
    F, k = _resistance(_free_params(params))
    slope = 1.0 / (F + 3.0 * k * np.asarray(balance_speed(power, params), float) ** 2)
    return float(slope) if slope.ndim == 0 else slope


def ridge_angle(power, stroke_time, speed, params=None):
    """The ski's angle to the direction of travel on the lossless ridge [degrees]:
    θ = atan(√(2 P T / M) / v) (module docstring: the sideways speed w with ½ M w² = P T, the
    leg's work in one stroke, beside the speed v along the course).  ``power`` P [W] ≥ 0,
    ``stroke_time`` T [s] > 0, ``speed`` v [m/s] > 0, M = params.body_mass.  Compare with half
    the optimizer's skating_angle_deg (the angle between the skis)."""
    p = _free_params(params)
    P = check_number("power", power, nonnegative=True, unit="W")
    T = check_number("stroke_time", stroke_time, positive=True, unit="s")
    v = check_number("speed", speed, positive=True, unit="m/s")
    return math.degrees(math.atan2(math.sqrt(2.0 * P * T / p.body_mass), v))


# --------------------------------------------------------------------------- around an optimum
@dataclass
class Problem:
    """max f(x) s.t. P(x) = P(x*) and bounds, and ineq(x) ≥ 0, around a point x*.

    - h : x → (f, P, ineq…) in the parameters' own units (a tuple of floats).
    - x : the point (the optimum), bounds : [(low, high)] per parameter, names : their names,
      ineq_names : the names of h's inequality rows."""

    h: object
    x: np.ndarray
    bounds: list
    names: tuple
    ineq_names: tuple = ()
    cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self.x = np.asarray(self.x, float)
        self.lo, self.hi = (np.array([b[k] for b in self.bounds], float) for k in (0, 1))
        if np.any(self.hi <= self.lo):
            raise ValueError(f"bounds: each must be (low, high) with low < high, got {self.bounds!r}")
        if len(self.names) != len(self.x):
            raise ValueError(f"names: {len(self.names)} names for {len(self.x)} parameters")

    @property
    def u(self):
        """x* in the unit cube."""
        return (self.x - self.lo) / (self.hi - self.lo)

    def at_u(self, u) -> np.ndarray:
        """h at a point of the unit cube (cached)."""
        key = tuple(float(v) for v in u)
        if key not in self.cache:
            val = np.array(self.h(self.lo + np.asarray(key) * (self.hi - self.lo)), float)
            if not np.all(np.isfinite(val)):
                raise RuntimeError(f"h: not finite at x = {self.lo + np.asarray(key) * (self.hi - self.lo)}: {val}")
            self.cache[key] = val
        return self.cache[key]

    @classmethod
    def of(cls, opt) -> "Problem":
        """The problem of an ``Optimum`` (``optimize_technique`` with a power budget): h(x) =
        (speed, mean power, the technique's inequality rows); a point the model refuses raises
        RuntimeError."""
        if getattr(opt, "power", None) is None:
            raise ValueError("opt: must be an Optimum with a power budget (optimize_technique(power=...))")
        tm = opt.technique_model()
        names = opt.names

        def h(x):
            row = tm.values(x)
            if row["status"] != "ok":
                raise RuntimeError(f"the model refuses the technique {dict(zip(names, x))}: {row['error']}")
            return (row["optimized_speed"], row["mean_power"], *tm.inequalities(x))

        x0 = [opt.x[n] for n in names]
        return cls(h, x0, [opt.bounds[n] for n in names], names,
                   ("snow_load",) if tm.inequalities(x0) else ())


def _problem(p) -> Problem:
    return p if isinstance(p, Problem) else Problem.of(p)


def _sides(pr: Problem, tol):
    u = pr.u
    return ["low" if u[i] <= tol else "high" if u[i] >= 1 - tol else "" for i in range(len(u))]


def _gradients(pr: Problem, step):
    """(h(x*), ∂h/∂x: rows = h's entries, columns = parameters [per parameter unit]): central
    differences of ``step`` × each range in the unit cube; within ``step`` of a bound the
    second-order one-sided difference (−3h(x) + 4h(x + s) − h(x + 2s)) / 2s, inwards."""
    u = pr.u
    h0 = pr.at_u(u)
    jac = np.zeros((len(h0), len(u)))
    for i in range(len(u)):
        def at(d):
            ud = u.copy()
            ud[i] += d
            return pr.at_u(ud)

        if u[i] - step >= 0.0 and u[i] + step <= 1.0:
            d = (at(step) - at(-step)) / (2 * step)
        else:  # the second-order one-sided difference, inwards from the bound
            s = step if u[i] + 2 * step <= 1.0 else -step
            d = (-3 * h0 + 4 * at(s) - at(2 * s)) / (2 * s)
        jac[:, i] = d / (pr.hi[i] - pr.lo[i])
    return h0, jac


def _kkt(pr: Problem, tol, step):
    """The least-squares KKT fit (module docstring): (table of the active constraints, λ, the
    relative residual, h(x*), the Jacobian, the active inequality indices and their κ)."""
    h0, J = _gradients(pr, step)
    n = len(pr.x)
    sides = _sides(pr, tol)
    cols, rows = [J[1]], []
    for i, s in enumerate(sides):
        if s:
            e = np.zeros(n)
            e[i] = 1.0 if s == "high" else -1.0
            cols.append(e)
            rows.append(dict(constraint=pr.names[i], side=s, value=float(pr.x[i])))
    act_ineq = [k for k in range(len(pr.ineq_names)) if h0[2 + k] <= tol]
    for k in act_ineq:
        cols.append(-J[2 + k])
        rows.append(dict(constraint=pr.ineq_names[k], side="≥ 0", value=float(h0[2 + k])))
    A = np.array(cols).T
    coef, *_ = np.linalg.lstsq(A, J[0], rcond=None)
    gv = J[0]
    residual = float(np.linalg.norm(gv - A @ coef) / max(np.linalg.norm(gv), 1e-300))
    for r, kappa in zip(rows, coef[1:]):
        r["multiplier"] = float(kappa)
        r["holds"] = bool(kappa >= 0)
    table = pd.DataFrame(rows, columns=["constraint", "side", "value", "multiplier", "holds"])
    return table, float(coef[0]), residual, h0, J, act_ineq, coef[1 + len(rows) - len(act_ineq):]


def active_bounds(opt, *, tol: float = 1e-6, step: float = 1e-3) -> pd.DataFrame:
    """The bounds and inequalities active at an optimum (an ``Optimum`` or a :class:`Problem`):
    one row each — constraint (the parameter's or the inequality's name), side ("low", "high",
    "≥ 0"), value (the parameter's value; the inequality's), multiplier κ of the KKT fit
    ∇v = λ∇P + Σκ n (module docstring; in speed per parameter unit, per the inequality's unit),
    holds (κ ≥ 0: the constraint holds the optimum back).  A parameter is at a bound within
    ``tol`` of its range; an inequality is active at a value ≤ ``tol``.  The fit's λ and
    relative residual are in ``.attrs``."""
    tol = check_number("tol", tol, positive=True, high=0.5)
    step = check_number("step", step, positive=True, high=0.25)
    table, lam, residual, *_ = _kkt(_problem(opt), tol, step)
    table.attrs.update(lam=lam, residual=residual)
    return table


def front_slope(front: pd.DataFrame, power: float) -> float:
    """dv/dP of a speed–power front (a DataFrame with power, optimized_speed; NaN rows dropped) at
    ``power``: the central difference of its neighbours, one-sided at an end; NaN with fewer
    than two powers."""
    f = front.dropna(subset=["power", "optimized_speed"]).sort_values("power")
    P, v = f["power"].to_numpy(float), f["optimized_speed"].to_numpy(float)
    if len(P) < 2:
        return float("nan")
    k = int(np.argmin(np.abs(P - power)))
    a, b = max(k - 1, 0), min(k + 1, len(P) - 1)
    return float((v[b] - v[a]) / (P[b] - P[a]))


def optimality(opt, *, front: pd.DataFrame | None = None, params=None, tol: float = 1e-6,
               step: float = 1e-3) -> dict:
    """The first-order check of an optimum: λ of ∇v = λ∇P + Σκ n (``active_bounds``), the
    relative residual of that fit (≈ 0 at a KKT point; on a ridge it is still the test, unlike a
    derivative along each axis), λ beside dv/dP of the front (``front_slope`` of ``front`` at
    the optimum's power, if given) and of the 0-D balance (``balance_slope`` at the power, with
    ``params``, default the optimum's).  Returns a dict: lam, residual, front_slope,
    balance_slope, power, n_active."""
    pr = _problem(opt)
    table, lam, residual, h0, *_ = _kkt(pr, check_number("tol", tol, positive=True, high=0.5),
                                        check_number("step", step, positive=True, high=0.25))
    power = float(h0[1])
    fs = front_slope(front, power) if front is not None else float("nan")
    p = params if params is not None or isinstance(opt, Problem) else opt.params
    bs = float(balance_slope(power, p)) if p is not None else float("nan")
    return dict(lam=lam, residual=residual, front_slope=fs, balance_slope=bs, power=power, n_active=len(table))


def reduced_hessian(opt, *, step: float = 1e-2, tol: float = 1e-6, grad_step: float = 1e-3) -> pd.DataFrame:
    """The reduced Hessian of the speed on the constraint surface at an optimum (module
    docstring): Zᵀ ∇²L Z over the interior parameters in the unit cube (second central
    differences of ``step`` × each range; a parameter closer than ``step`` to a bound is
    stepped by its distance, at least 1e-3), Z orthonormal on the null space of ∇P and the
    active inequalities' gradients.  Returns one row per eigenvalue (largest first, i.e. the
    flattest direction first at a maximum): eigenvalue [speed per (unit range)²], drop_at_0.1
    (the speed lost 0.1 of the ranges along it: −½ eigenvalue × 0.01), and the eigenvector's
    component along each parameter (0 for a parameter at a bound).  ``.attrs``: matrix (the
    reduced Hessian), basis Z (parameters × directions), interior (names), lam."""
    step = check_number("step", step, positive=True, high=0.25)
    pr = _problem(opt)
    table, lam, residual, h0, J, act_ineq, kappa = _kkt(pr, check_number("tol", tol, positive=True, high=0.5),
                                                         check_number("grad_step", grad_step, positive=True, high=0.25))
    sides = _sides(pr, tol)
    I = [i for i, s in enumerate(sides) if not s]
    u0 = pr.u
    rng = pr.hi - pr.lo
    hs = {i: max(min(step, u0[i], 1 - u0[i]), 1e-3) for i in I}

    def L(u):
        v = pr.at_u(u)
        return v[0] - lam * v[1] - sum(k * v[2 + a] for a, k in zip(act_ineq, kappa))

    def shifted(d):
        u = u0.copy()
        for i, s in d.items():
            u[i] += s
        return u

    n = len(I)
    H = np.zeros((n, n))
    L0 = L(u0)
    for a, i in enumerate(I):
        hi_ = hs[i]
        H[a, a] = (L(shifted({i: hi_})) - 2 * L0 + L(shifted({i: -hi_}))) / hi_ ** 2
        for b in range(a):
            j = I[b]
            hj = hs[j]
            H[a, b] = H[b, a] = (L(shifted({i: hi_, j: hj})) - L(shifted({i: hi_, j: -hj}))
                                 - L(shifted({i: -hi_, j: hj})) + L(shifted({i: -hi_, j: -hj}))) / (4 * hi_ * hj)
    # constraint gradients in the unit cube over the interior parameters
    G = np.array([J[1, I] * rng[I]] + [J[2 + a, I] * rng[I] for a in act_ineq])
    Z = null_space(G) if n else np.zeros((0, 0))
    R = Z.T @ H @ Z if Z.size else np.zeros((0, 0))
    w, V = np.linalg.eigh(R) if R.size else (np.zeros(0), np.zeros((0, 0)))
    order = np.argsort(-w)
    rows = []
    for k in order:
        d = Z @ V[:, k]
        if d[np.argmax(np.abs(d))] < 0:
            d = -d
        full = np.zeros(len(pr.x))
        full[I] = d
        rows.append(dict(eigenvalue=float(w[k]), drop_at_0_1=float(-0.5 * w[k] * 0.01),
                         **{n_: float(c) for n_, c in zip(pr.names, full)}))
    out = pd.DataFrame(rows, columns=["eigenvalue", "drop_at_0_1", *pr.names])
    out.attrs.update(matrix=R, basis=Z, interior=[pr.names[i] for i in I], lam=lam, hessian=H)
    return out


# --------------------------------------------------------------------------- along the ridge
def _steady(p):
    """(progress speed, mean power, steady state) of the free skater at p; None if refused."""
    from ..models.free.steady import free_steady_state

    try:
        ss = free_steady_state(p)
    except (ValueError, RuntimeError, ArithmeticError):
        return None
    return float(ss.strokes["mean_vx"].iloc[0]), float(ss.mean_power), ss


def max_offset(params=None) -> float:
    """The largest lateral offset [m] the free skater accepts: its CM at most ``MAX_REACH``
    (1.3 m) from the ski, at height z̄ (cm_height): √(1.3² − z̄²) (0.887 m at z̄ = 0.95 m)."""
    from ..models.free.params import MAX_REACH

    return math.sqrt(MAX_REACH ** 2 - _free_params(params).cm_height ** 2)


def power_offset(params, power, *, offsets=None, xtol: float = 1e-7):
    """The CM's lateral offset at the end of the stroke (``offset_end``) that gives the free
    skater ``params`` the mean power ``power`` [W], the other parameters held: the first sign
    change of P(offset) − power on the grid ``offsets`` [m] (default six from 0.1 m to
    ``max_offset`` less 1 mm: the model refuses a CM beyond 1.3 m from the ski), then Brent's
    method to ``xtol`` [m].  Returns (offset, progress speed [m/s], mean
    power [W], the steady state), or None if no offset of the grid brackets the power."""
    from dataclasses import replace

    from scipy.optimize import brentq

    P = check_number("power", power, positive=True, unit="W")
    p = _free_params(params)
    if offsets is None:
        offsets = np.linspace(0.1, max_offset(p) - 1e-3, 6)
    cache = {}

    def at(o):
        if o not in cache:
            try:
                q = replace(p, offset_end=float(o))
            except ValueError:
                q = None
            cache[o] = None if q is None else _steady(q)
        return cache[o]

    grid = [(o, at(o)) for o in offsets]
    good = [(o, r) for o, r in grid if r is not None]
    for (oa, ra), (ob, rb) in zip(good, good[1:]):
        if (ra[1] - P) * (rb[1] - P) <= 0:
            def f(o):
                r = at(o)
                if r is None:
                    raise RuntimeError(f"power_offset: the model refuses offset_end {o:g} m between {oa:g} and {ob:g}")
                return r[1] - P

            o = brentq(f, oa, ob, xtol=xtol)
            return (o, *at(o))
    return None


def ridge_scan(power, stroke_times, params=None, *, angle: str = "ridge", angle_bounds=(4.0, 60.0),
               angle_tol: float = 0.05) -> pd.DataFrame:
    """The speed along the ridge: at each stroke time T of ``stroke_times`` [s], the free skater
    ``params`` (the other parameters held) with the skating angle between the skis set to
    2 ``ridge_angle(power, T, v_b)`` (``angle="ridge"``; v_b the 0-D balance speed) or chosen
    for the highest speed (``angle="optimised"``: a bounded scalar search over half-angles in
    ``angle_bounds`` [°] to ``angle_tol`` [°]), and the power restored to ``power`` by the
    offset at the end of the stroke (``power_offset``).  Rows: stroke_time, half_angle_deg (each
    ski to the direction of travel), predicted_half_angle_deg, offset_end, speed (along the
    course), mean_power, balance_speed, ke_loss (J lost at each touch-down), feasible."""
    from dataclasses import replace

    from scipy.optimize import minimize_scalar

    P = check_number("power", power, positive=True, unit="W")
    if angle not in ("ridge", "optimised"):
        raise ValueError(f"angle: must be 'ridge' or 'optimised', got {angle!r}")
    p = _free_params(params)
    vb = balance_speed(P, p)
    rows = []
    for T in stroke_times:
        T = check_number("stroke_times", T, positive=True, unit="s")
        pred = ridge_angle(P, T, vb, p)
        q = replace(p, stroke_time=T)

        def at(half):
            return power_offset(replace(q, skating_angle_deg=2.0 * half), P)

        if angle == "ridge":
            half, r = pred, at(pred)
        else:
            seen = {}

            def neg(half):
                r_ = at(half)
                seen[half] = r_
                return -r_[1] if r_ is not None else 0.0

            res = minimize_scalar(neg, bounds=angle_bounds, method="bounded", options=dict(xatol=angle_tol))
            half, r = float(res.x), seen.get(float(res.x)) or at(float(res.x))
        row = dict(stroke_time=T, half_angle_deg=half, predicted_half_angle_deg=pred, balance_speed=vb)
        if r is None:
            row.update(offset_end=np.nan, speed=np.nan, mean_power=np.nan, ke_loss=np.nan, feasible=False)
        else:
            row.update(offset_end=r[0], speed=r[1], mean_power=r[2], ke_loss=float(r[3].change["ke_loss"]),
                       feasible=True)
        rows.append(row)
    return pd.DataFrame(rows, columns=["stroke_time", "half_angle_deg", "predicted_half_angle_deg", "offset_end",
                                       "speed", "mean_power", "balance_speed", "ke_loss", "feasible"])
