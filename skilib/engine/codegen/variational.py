"""The variational equations of eq. 101: the derivative of a system's flow with respect to its
start and its parameters, integrated with the motion.

For the state y = (q, q̇), eq. 101 with Baumgarte's terms (eq. 103: the acceleration rows
Cq q̈ = −Cquad − 2α Cvel − β² C) is the ODE ẏ = f(τ, y; c), c the system's stored numbers (the
trace's parameters, ``skilib.engine.codegen.trace``).  The derivative of its flow y(T; y0, c)
along directions D = (D_y, D_c) of the start and of the parameters, S(τ) = ∂y(τ)/∂(y0, c) · D,
solves the variational equations (Hairer, Nørsett & Wanner 1993, *Solving Ordinary
Differential Equations I*, §I.14, Theorem 14.1, and its parameter form, eq. 14.13)::

    Ṡ = f_y(τ, y) S + f_c(τ, y) D_c,    S(τ0) = D_y.

f_y S and f_c D_c are CasADi's forward derivatives (``jtimes``) of the same trace the compiled
kernels are generated from (``casadi_terms``): exact, no difference quotient.  y and S are
integrated together by SciPy's DOP853 with one error control, so S is the derivative of the
flow to the integration's tolerance, not of one step sequence (the differences of two runs
with different steps carry their rounding over the step h: ~rtol/h).

``variational_flow`` takes a ``MultibodySystem`` whose every term traces (as ``casadi_terms``
requires) and which has no controls: a stroke's system in one friction mode.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..system import MultibodySystem
from ..validation import check_number
from .casadi_terms import casadi_terms, require_casadi

__all__ = ["variational_flow", "VariationalFlow"]

_CACHE: dict = {}  # (terms function, α, β, directions) -> the variational right-hand side


class VariationalFlow(NamedTuple):
    """What ``variational_flow`` returns.

    - y : (q, q̇) at the end of the span (2n).
    - S : ∂y(end)/∂(y0, c) · D, one column per direction (2n × k).
    - nfev : evaluations of the right-hand side (motion and derivatives together).
    """
    y: np.ndarray
    S: np.ndarray
    nfev: int


def _rhs(terms, alpha: float, beta: float, k: int):
    """The functions of the variational right-hand side, built once per (system structure, α, β,
    k): ``augmented`` (τ, y, c) -> (K, b), the augmented matrix of eq. 101 and its right-hand side
    with Baumgarte's terms (K x = b, x = (q̈, λ)), and ``derivative`` (τ, y, c, x, S, D_c) ->
    ∂(b − K x)/∂y S + ∂(b − K x)/∂c D_c at x held, the right-hand side of K ẋ_S = that (the
    derivative of K x = b along the directions).  Differentiating the residual rather than a
    symbolic solve keeps the graphs the size of the terms': the solves are numeric (one LU)."""
    key = (id(terms.function), alpha, beta, k)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is terms.function:
        return hit[1]
    ca = require_casadi()
    n, m, npar = terms.nq, terms.nc, len(terms.params)
    t, y = ca.SX.sym("t"), ca.SX.sym("y", 2 * n)
    c, S, Dc = ca.SX.sym("c", npar), ca.SX.sym("S", 2 * n, k), ca.SX.sym("Dc", npar, k)
    x = ca.SX.sym("x", n + m)
    K, b = terms.augmented(t, y[:n], y[n:], None, c, alpha, beta)
    r = b - ca.mtimes(K, x)
    fns = (ca.Function("augmented", [t, y, c], [ca.densify(K), ca.densify(b)]),
           ca.Function("derivative", [t, y, c, x, S, Dc], [ca.densify(ca.jtimes(r, y, S) + ca.jtimes(r, c, Dc))]))
    _CACHE[key] = (terms.function, fns)
    return fns


def variational_flow(system: MultibodySystem, t_span, q, qd, dy, dc=None, *, alpha: float = 0.0,
                     beta: float = 0.0, rtol: float = 1e-10, atol: float = 1e-10,
                     max_step: float = np.inf) -> VariationalFlow:
    """y(t1) and S(t1) = ∂y(t1)/∂(y0, c) · D of ``system`` from (q, q̇) at t0 (the module's
    docstring), ``t_span`` = (t0, t1).

    - dy : the start's directions D_y, 2n × k (a vector: one direction).
    - dc : the parameters' directions D_c, len(c) × k in the order of the trace's parameters
      (``casadi_terms(system).params``); None: the parameters held.
    - alpha, beta : Baumgarte's gains of eq. 103 [1/s] (0, 0: the bare index-1 equations).
    - rtol, atol, max_step : DOP853's, on y and S together.

    A system with controls, or a term that does not trace, is a ValueError (``casadi_terms``'s);
    directions of the wrong shape or not finite are a ValueError naming them.
    """
    from scipy.integrate import solve_ivp
    from scipy.linalg import lu_factor, lu_solve

    if not isinstance(system, MultibodySystem):
        raise ValueError(f"system: expected a MultibodySystem, got {type(system).__name__}")
    terms = casadi_terms(system)
    if terms.nu:
        raise ValueError(f"system: has controls {[name for name, _ in terms.controls]}; the variational flow "
                         "integrates a system whose every force is a function of (τ, q, q̇)")
    n, npar = system.nq, len(terms.params)
    try:
        t0, t1 = (float(v) for v in t_span)
    except (TypeError, ValueError):
        raise ValueError(f"t_span: must be two times (t0, t1) [s], got {t_span!r}") from None
    if not (np.isfinite(t0) and np.isfinite(t1) and t1 > t0):
        raise ValueError(f"t_span: must be finite with t1 > t0, got {t_span!r}")
    y0 = np.concatenate([_vector("q", q, n), _vector("qd", qd, n)])
    Dy = _directions("dy", dy, 2 * n)
    k = Dy.shape[1]
    Dc = np.zeros((npar, k)) if dc is None else _directions("dc", dc, npar)
    if Dc.shape[1] != k:
        raise ValueError(f"dc: must have one column per direction of dy ({k}), got {Dc.shape[1]}")
    alpha = check_number("alpha", alpha, nonnegative=True, unit="1/s")
    beta = check_number("beta", beta, nonnegative=True, unit="1/s")
    rtol = check_number("rtol", rtol, positive=True)
    atol = check_number("atol", atol, positive=True)
    max_step = check_number("max_step", max_step, positive=True, finite=False, unit="s")
    augmented, derivative = _rhs(terms, alpha, beta, k)
    c = terms.params

    def rhs(t, Y):
        y, S = Y[: 2 * n], Y[2 * n:].reshape((2 * n, k), order="F")
        K, b = augmented(t, y, c)
        lu = lu_factor(np.asarray(K))
        x = lu_solve(lu, np.asarray(b).ravel())
        dx = lu_solve(lu, np.asarray(derivative(t, y, c, x, S, Dc)))
        return np.concatenate([y[n:], x[:n], np.vstack([S[n:], dx[:n]]).ravel(order="F")])

    sol = solve_ivp(rhs, (t0, t1), np.concatenate([y0, Dy.ravel(order="F")]), method="DOP853", rtol=rtol,
                    atol=atol, max_step=max_step)
    if sol.status != 0:
        raise RuntimeError(f"variational_flow: the integration failed at τ = {sol.t[-1]:.6g} s: {sol.message}")
    end = sol.y[:, -1]
    return VariationalFlow(y=end[: 2 * n].copy(), S=end[2 * n:].reshape((2 * n, k), order="F"), nfev=int(sol.nfev))


def _vector(name, v, size):
    try:
        a = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: must be {size} numbers, got {v!r}") from None
    if a.shape != (size,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: must be {size} finite numbers, got shape {a.shape}")
    return a


def _directions(name, d, rows):
    try:
        a = np.asarray(d, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: must be a {rows} × k array of directions, got {d!r}") from None
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] != rows or a.shape[1] < 1 or not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: must be a finite {rows} × k array of directions (k >= 1), got shape {a.shape}")
    return a
