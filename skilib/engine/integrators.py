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
from scipy.integrate._ivp.rk import Dop853DenseOutput

from .options import RK_METHODS

__all__ = ["ProjectedRK", "signed_method", "split_signed_step", "split_dop853_steps", "SignedDense"]

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


def _dop853_basis() -> np.ndarray:
    """B[r] = the monomial coefficients (degree 0..7, increasing) in x of DOP853's dense output
    for F = e_r: P(x) = x(F₀ + (1−x)(F₁ + x(F₂ + (1−x)(F₃ + x(F₄ + (1−x)(F₅ + x F₆)))))), the
    nesting of ``scipy.integrate._ivp.rk.Dop853DenseOutput`` (y(x) = y_old + P(x))."""
    P = np.polynomial.polynomial
    B = np.zeros((7, 8))
    for r in range(7):
        c = np.zeros(1)
        for i, f in enumerate(range(6, -1, -1)):  # F₆ first, as the nesting is evaluated
            c = P.polyadd(c, [1.0 if f == r else 0.0])
            c = P.polymul(c, [0.0, 1.0] if i % 2 == 0 else [1.0, -1.0])
        B[r, : len(c)] = c
    return B


_DOP853_BASIS = _dop853_basis()


def split_dop853_steps(w_old, F):
    """``split_signed_step`` for many DOP853 steps at once, from their interpolants' coefficients
    rather than samples: step k's net work is w_k(x) = w_old[k] + F[k] @ B (x = (τ − t_old)/h,
    the degree-7 polynomial of ``Dop853DenseOutput``, its monomial coefficients exact linear
    combinations of F[k]), the real zeros in (0, 1) of its derivative (the eigenvalues of the
    companion matrices, all steps in one call; |Im| ≤ 1e-9 as ``split_signed_step``) the breaks.

    - w_old : (K,) the work at each step's start; F : (K, 7) its interpolant's coefficients.

    Returns (coef (K, 8): w_k's monomial coefficients, degree 0..7; breaks: a list of K arrays
    [0, zeros…, 1]; W⁺ and W⁻ increments over each step, (K,) each)."""
    w_old = np.asarray(w_old, dtype=float)
    F = np.asarray(F, dtype=float).reshape(len(w_old), 7)
    coef = F @ _DOP853_BASIS
    coef[:, 0] += w_old
    d = coef[:, 1:] * np.arange(1, 8)  # w′, degree 0..6
    K = len(w_old)
    roots = np.full((K, 6), np.nan)
    deg = np.where(d.any(axis=1), 6 - np.argmax(d[:, ::-1] != 0.0, axis=1), 0)
    for n in np.unique(deg[deg > 0]):  # one batch per degree: the companion needs a nonzero lead
        rows = np.flatnonzero(deg == n)
        comp = np.zeros((len(rows), n, n))
        comp[:, np.arange(1, n), np.arange(n - 1)] = 1.0
        comp[:, :, -1] = -d[rows, :n] / d[rows, n, None]
        z = np.linalg.eigvals(comp)
        real = (np.abs(z.imag) <= 1e-9) & (z.real > 0.0) & (z.real < 1.0)
        roots[rows, :n] = np.where(real, z.real, np.nan)
    roots.sort(axis=1)  # NaN last
    x = np.concatenate([np.zeros((K, 1)), np.where(np.isnan(roots), 1.0, roots), np.ones((K, 1))], axis=1)
    # w at the breaks by Horner's rule, all steps at once; a pad break at 1 adds an empty interval
    w = np.zeros_like(x)
    for c in coef.T[::-1]:
        w = w * x + c[:, None]
    dw = np.diff(w, axis=1)
    wp, wn = np.maximum(dw, 0.0).sum(axis=1), np.minimum(dw, 0.0).sum(axis=1)
    n_roots = (~np.isnan(roots)).sum(axis=1)
    breaks = [x[k, : n + 2] if n < 6 else x[k] for k, n in enumerate(n_roots)]  # [0, zeros…, 1]
    return coef, breaks, wp, wn


def _split(poly, breaks, x):
    """(∫max, ∫min) of the rate of the net work poly(x) over [0, x], split at ``breaks``; ``poly``
    a ``numpy.polynomial.Polynomial`` in x or its monomial coefficients (increasing degree)."""
    if not callable(poly):
        poly = functools.partial(np.polynomial.polynomial.polyval, c=poly)
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
    its net work's dense interpolant w(x) (DOP853's: degree 7, its coefficients taken as they are,
    ``split_dop853_steps``, as the C stepper takes them; RK45's and RK23's: fitted exactly through
    9 points, ``split_signed_step``) has its derivative's real zeros in (0, 1) as breaks, and W⁺, W⁻ take the positive and negative
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
                if isinstance(dense, Dop853DenseOutput):  # its exact coefficients, as the C stepper's
                    coef, (breaks,), (wp,), (wn,) = split_dop853_steps(self.y_old[j:j + 1], dense.F[None, :, j])
                    poly = coef[0]
                else:
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
