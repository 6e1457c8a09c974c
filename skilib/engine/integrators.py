"""``signed_method``: an explicit Runge–Kutta method that integrates the positive and negative
parts of works exactly without changing its steps (``skilib.strokes.work``).

``ProjectedRK``: an explicit Runge–Kutta method whose state is projected onto the
constraints after every accepted step, as a ``scipy.integrate.OdeSolver`` that
``solve_ivp(method=ProjectedRK, project=...)`` accepts, so that ``solve_ivp``'s event
location, ``t_eval`` and dense output work with it unchanged."""
from __future__ import annotations

import functools

import numpy as np
from scipy.integrate import DOP853, RK23, RK45, OdeSolver
from scipy.integrate._ivp.base import DenseOutput

from .options import RK_METHODS

__all__ = ["ProjectedRK", "signed_method", "split_signed_step", "SignedDense"]

_RK = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853}


class ProjectedRK(OdeSolver):
    """Steps ``rk`` (one of 'RK45', 'RK23', 'DOP853') and replaces every accepted state by
    ``project(t, y, True)`` (e.g. a ``skilib.engine.projection.Projector``); the next step
    starts from the projected state and its derivative.

    Dense output is the step's own Runge–Kutta interpolant, before the projection: within a
    step it is off the constraints by the step's drift (≤ the tolerance), so points that are
    kept should be projected (``Projector.path``).  Events are therefore located on the
    interpolant, as ``solve_ivp`` does for any method.
    """

    def __init__(self, fun, t0, y0, t_bound, *, project, rk: str = "DOP853", rtol=1e-3, atol=1e-6,
                 max_step=np.inf, first_step=None, vectorized=False, **extraneous):
        # a subclass of one of them (``skilib.strokes.work.signed_method``) is taken as it is
        cls = rk if isinstance(rk, type) and issubclass(rk, tuple(_RK.values())) else _RK.get(rk) \
            if isinstance(rk, str) else None
        if cls is None:
            raise ValueError(f"rk: ProjectedRK steps an explicit Runge-Kutta method {RK_METHODS}, got {rk!r}")
        if extraneous:
            raise ValueError(f"ProjectedRK: unknown options {sorted(extraneous)}")
        super().__init__(fun, t0, y0, t_bound, vectorized)
        self.inner = cls(fun, t0, y0, t_bound, rtol=rtol, atol=atol, max_step=max_step,
                             first_step=first_step, vectorized=vectorized)
        self.project = project
        self._raw = None  # the step's (y, f) before projection, for its dense output

    def _step_impl(self):
        rk = self.inner
        rk.step()
        if rk.status == "failed":
            self.nfev = rk.nfev
            return False, "the Runge-Kutta step failed (step size too small)"
        self._raw = (rk.y, rk.f)
        rk.y = self.project(rk.t, rk.y, True)
        rk.f = rk.fun(rk.t, rk.y)  # the derivative belongs to the projected state
        self.t, self.y = rk.t, rk.y
        self.nfev = rk.nfev
        return True, None

    def _dense_output_impl(self):
        rk = self.inner
        proj = rk.y, rk.f
        rk.y, rk.f = self._raw  # the interpolant of the step as it was taken
        try:
            dense = rk.dense_output()
        finally:
            rk.y, rk.f = proj
            self.nfev = rk.nfev
        return dense



class SignedDense(DenseOutput):
    """A step's interpolant whose signed-work components are the exact split of the net work's
    interpolant at the zeros of its derivative (``pieces``: (j, jp, poly, breaks) per work)."""

    def __init__(self, base, pieces, y_old):
        super().__init__(base.t_old, base.t)
        self.base, self.pieces, self.y_old = base, pieces, y_old

    def _call_impl(self, t):
        y = np.array(self.base(t), dtype=float)
        x = (np.asarray(t, dtype=float) - self.t_old) / (self.t - self.t_old)
        for j, jp, poly, breaks in self.pieces:
            wp, wn = _split(poly, breaks, x)
            y[jp] = self.y_old[jp] + wp
            y[jp + 1] = self.y_old[jp + 1] + wn
        return y


_NODES = 0.5 - 0.5 * np.cos(np.pi * np.arange(9) / 8)  # Chebyshev–Lobatto on [0, 1]


def split_signed_step(dense, t_old, t, w_old: float, w_new: float):
    """The split of one step's net work w into its positive and negative increments.

    ``dense``: τ → w(τ), the step's interpolant of the net work; ``w_old``, ``w_new`` its values at
    the step's ends.  w(x), x = (τ − t_old)/(t − t_old), is the polynomial of degree ≤ 8 through w at the
    nine Chebyshev–Lobatto points (the step's own interpolant is of degree 7: exact), its
    derivative's real zeros in (0, 1) the breaks.  Returns (poly, breaks, W⁺ increment, W⁻
    increment) over the step."""
    h = t - t_old
    w = np.concatenate([[w_old], [dense(t_old + x * h) for x in _NODES[1:-1]], [w_new]])
    poly = np.polynomial.Polynomial.fit(_NODES, w, 8, domain=[0.0, 1.0], window=[0.0, 1.0])
    roots = poly.deriv().roots()
    roots = np.sort(roots.real[(np.abs(roots.imag) <= 1e-9) & (roots.real > 0.0) & (roots.real < 1.0)])
    breaks = np.concatenate([[0.0], roots, [1.0]])
    wp, wn = _split(poly, breaks, 1.0)
    return poly, breaks, float(wp), float(wn)


def _split(poly, breaks, x):
    """(∫max, ∫min) of the rate of the net work poly(x) over [0, x], split at ``breaks``."""
    x = np.asarray(x, dtype=float)
    wp, wn = np.zeros_like(x), np.zeros_like(x)
    for a, b in zip(breaks[:-1], breaks[1:]):
        d = poly(np.clip(x, a, b)) - poly(a)
        wp, wn = wp + np.maximum(d, 0.0), wn + np.minimum(d, 0.0)
    return wp, wn


def signed_method(method: str, n_checked: int, pairs):
    """The class of ``_signed_method`` for these arguments, built once (a stroke asks for it at
    every segment; the class depends only on them)."""
    return _signed_method(method, int(n_checked), tuple((int(j), int(jp)) for j, jp in pairs))


@functools.lru_cache(maxsize=64)
def _signed_method(method: str, n_checked: int, pairs: tuple):
    """The explicit Runge–Kutta class ``method`` ('RK45', 'RK23', 'DOP853') whose steps see only
    the first ``n_checked`` components of y and whose signed works are exact across a sign
    change (``skilib.strokes.work``: the cost of work).  ``pairs``: (j, jp) per actuator, j its net work's index in
    y, jp and jp + 1 those of its positive and negative parts.

    DOP853's error control would see the kink of max(r, 0) and step through it with small
    steps (and other steps than a run without the signed works); here the steps are the
    unsigned run's, bit for bit, and a step whose stage rates r_i of a work change sign is split:
    its net work's dense interpolant w(x) (degree ≤ 7, fitted exactly through 9 points) has its
    derivative's real zeros in (0, 1) as breaks, and W⁺, W⁻ take the positive and negative
    increments of w between them (a root placed δ off costs ~|ṙ| δ²/2).  The step's interpolant
    gives the same split at any τ inside it (events, the frame).  Other methods are returned as
    they are (their error control sees the kink)."""
    base = _RK.get(method)
    if base is None or not pairs:
        return method
    pairs = tuple((int(j), int(jp)) for j, jp in pairs)
    class Signed(base):
        def __init__(self, fun, t0, y0, t_bound, first_step=None, **kw):
            super().__init__(fun, t0, y0, t_bound, first_step=first_step, **kw)
            self._dense = None
            if first_step is None and n_checked < self.n:
                # the first step the method would choose for the checked components alone (its own
                # constructor chooses it: no private helper, whose signature differs between SciPy versions)
                m, tail = n_checked, np.array(self.y[n_checked:])
                rtol = self.rtol if np.ndim(self.rtol) == 0 else self.rtol[:m]
                atol = self.atol if np.ndim(self.atol) == 0 else self.atol[:m]
                self.h_abs = base(lambda t, y: self.fun(t, np.concatenate([y, tail]))[:m], self.t, self.y[:m], t_bound,
                                  max_step=self.max_step, rtol=rtol, atol=atol).h_abs

        def _estimate_error_norm(self, K, h, scale):
            return super()._estimate_error_norm(np.ascontiguousarray(K[:, :n_checked]), h, scale[:n_checked])

        def _step_impl(self):
            self._dense, t = None, self.t
            ok, message = super()._step_impl()
            if ok:
                self.t_old = t  # as ``OdeSolver.step`` sets it after this returns
                self._split_step()
            return ok, message

        def _split_step(self):
            K, pieces, dense = self.K, [], None
            for j, jp in pairs:
                r = K[:, j]
                if r.min() >= 0.0 or r.max() <= 0.0:
                    continue  # no sign change: max(r_i, 0), min(r_i, 0) are the stages' own, exact
                if dense is None:
                    dense = super()._dense_output_impl()
                poly, breaks, wp, wn = split_signed_step(lambda tau: dense(tau)[j], self.t_old, self.t,
                                                         self.y_old[j], self.y[j])
                y = np.array(self.y)
                y[jp], y[jp + 1] = self.y_old[jp] + wp, self.y_old[jp + 1] + wn
                self.y = y
                pieces.append((j, jp, poly, breaks))
            if pieces:
                self._dense = SignedDense(dense, pieces, np.array(self.y_old))

        def _dense_output_impl(self):
            return self._dense if self._dense is not None else super()._dense_output_impl()

    Signed.__name__ = f"Signed{base.__name__}"
    return Signed
