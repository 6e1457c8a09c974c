"""Prescribed functions of time for drivers: each returns (f, ḟ, f̈) at t.

Drivers need the second time derivative of what they prescribe (it enters Qd through
Ctt, eq. 97), so a driver law is given with its derivatives, never differentiated
numerically.
"""
from __future__ import annotations

from bisect import bisect_right

import numpy as np

from .rotation import cos, sin, skew
from .validation import check_array, check_number

__all__ = [
    "TimeFunction",
    "Constant",
    "Polynomial",
    "FromCallables",
    "Stack",
    "Harmonic",
    "as_time_function",
    "RotationPath",
    "QuinticSpline",
    "QUINTIC_HERMITE",
]


class TimeFunction:
    """Base class: ``f(t) -> (value, first derivative, second derivative)``."""

    def __call__(self, t):  # pragma: no cover - interface
        raise NotImplementedError


class Constant(TimeFunction):
    """f(t) = value (a number or an array of finite numbers), ḟ = f̈ = 0."""

    def __init__(self, value):
        self.value = check_array("value", value)
        self._zero = np.zeros_like(self.value)

    def __call__(self, t):
        return self.value, self._zero, self._zero

    def __repr__(self):
        return f"Constant({self.value!r})"


class Polynomial(TimeFunction):
    """f(t) = Σ c_k (t − t0)^k; coefficients may be vectors (shape (K, ...))."""

    def __init__(self, coeffs, t0: float = 0.0):
        self.c = check_array("coeffs", coeffs)
        if self.c.ndim == 0 or len(self.c) == 0:
            raise ValueError(f"coeffs: a Polynomial needs at least one coefficient, got {coeffs!r}")
        self.t0 = check_number("t0", t0)

    def __call__(self, t):
        x = t - self.t0
        K = len(self.c)
        if self.c.ndim == 1 and isinstance(x, (float, int, np.floating)):
            # scalar law at a number: Horner's scheme for f, ḟ, f̈ (no array temporaries)
            f = fd = fdd = 0.0
            for k in range(K - 1, -1, -1):
                fdd = fdd * x + 2.0 * fd
                fd = fd * x + f
                f = f * x + float(self.c[k])
            return f, fd, fdd
        p = np.array([x**k for k in range(K)])
        dp = np.array([k * x ** (k - 1) if k >= 1 else 0.0 for k in range(K)])
        ddp = np.array([k * (k - 1) * x ** (k - 2) if k >= 2 else 0.0 for k in range(K)])
        return np.tensordot(p, self.c, 1), np.tensordot(dp, self.c, 1), np.tensordot(ddp, self.c, 1)

    def values(self, t) -> np.ndarray:
        """f at every element of the array ``t`` by the scalar law's Horner scheme, element-wise:
        the same operations as ``self(t_j)[0]`` at each point, so the same bits (scalar
        coefficients only)."""
        if self.c.ndim != 1:
            raise ValueError("values: a Polynomial with vector coefficients is evaluated by calling it")
        x = np.asarray(t, dtype=float) - self.t0
        f = np.zeros(x.shape)
        for k in range(len(self.c) - 1, -1, -1):
            f = f * x + float(self.c[k])
        return f

    def __repr__(self):
        return f"Polynomial({self.c.tolist()!r}, t0={self.t0})"


class FromCallables(TimeFunction):
    """A law given as three callables f, ḟ, f̈ of t."""

    def __init__(self, f, fd, fdd):
        self.f, self.fd, self.fdd = f, fd, fdd

    def __call__(self, t):
        return (np.asarray(self.f(t), float), np.asarray(self.fd(t), float), np.asarray(self.fdd(t), float))


class Harmonic(TimeFunction):
    """f(t) = c + a cos(ω t + φ), with ḟ and f̈ (a law code generation can trace)."""

    def __init__(self, offset=0.0, amplitude=1.0, omega=1.0, phase=0.0):
        self.c = np.array([check_number(k, v) for k, v in (("offset", offset), ("amplitude", amplitude),
                                                            ("omega", omega), ("phase", phase))], dtype=float)

    def __call__(self, t):
        c, a, w, ph = self.c
        x = w * t + ph
        cx, sx = cos(x), sin(x)
        return c + a * cx, -a * w * sx, -a * w * w * cx

    def __repr__(self):
        return f"Harmonic(offset={self.c[0]}, amplitude={self.c[1]}, omega={self.c[2]}, phase={self.c[3]})"


class Stack(TimeFunction):
    """A vector law from scalar laws (or constants): f(t) = [f₁(t), f₂(t), …] with its
    derivatives component by component."""

    def __init__(self, *laws):
        self.laws = tuple(as_time_function(f, f"Stack component {k}") for k, f in enumerate(laws))

    def __call__(self, t):
        vals = [law(t) for law in self.laws]
        return tuple(np.array([np.asarray(v[i]).reshape(()) for v in vals]) for i in range(3))


def as_time_function(x, name: str = "law") -> TimeFunction:
    """Accept a TimeFunction or a constant; anything else is an error (no numeric derivative)."""
    if isinstance(x, TimeFunction):
        return x
    if callable(x):
        raise ValueError(
            f"{name}: a plain callable has no derivatives; wrap it as "
            "FromCallables(f, fdot, fddot) or use Polynomial"
        )
    return Constant(check_array(name, x))


class RotationPath:
    """Orientation A_d(t) = Rot(n, γ(t)) · A0: a rotation about a fixed global axis n.

    Returns (A_d, Ȧ_d, Ä_d) with Ȧ_d = γ̇ ñ A_d and Ä_d = (γ̈ ñ + γ̇² ñ²) A_d.
    """

    def __init__(self, A0, axis, angle):
        self.A0 = np.asarray(A0, dtype=float)
        n = np.asarray(axis, dtype=float)
        if self.A0.shape != (3, 3):
            raise ValueError("RotationPath: A0 must be 3x3")
        if np.linalg.norm(n) == 0:
            raise ValueError("RotationPath: axis must be non-zero")
        self.n = n / np.linalg.norm(n)
        self.angle = as_time_function(angle, "RotationPath angle")
        self._N = skew(self.n)

    def __call__(self, t):
        g, gd, gdd = (v[()] if isinstance(v, np.ndarray) else v for v in self.angle(t))
        N = self._N
        R = np.eye(3) + sin(g) * N + (1.0 - cos(g)) * (N @ N)  # Rodrigues
        Ad = R @ self.A0
        return Ad, gd * N @ Ad, (gdd * N + gd * gd * (N @ N)) @ Ad


#: the quintic Hermite basis on s ∈ [0, 1]: row i holds the coefficients of s⁰…s⁵ of B_i, and
#: f(s) = Σ B_i(s) c_i with c = (f₀, h ḟ₀, h² f̈₀, f₁, h ḟ₁, h² f̈₁) over an interval of length h
#: (B_i and its first two derivatives are 1 at their own end value and 0 at the five others)
QUINTIC_HERMITE = np.array([
    [1.0, 0.0, 0.0, -10.0, 15.0, -6.0],
    [0.0, 1.0, 0.0, -6.0, 8.0, -3.0],
    [0.0, 0.0, 0.5, -1.5, 1.5, -0.5],
    [0.0, 0.0, 0.0, 10.0, -15.0, 6.0],
    [0.0, 0.0, 0.0, -4.0, 7.0, -3.0],
    [0.0, 0.0, 0.0, 0.5, -1.0, 0.5],
])


def quintic_basis(s, derivative: int = 0) -> np.ndarray:
    """The quintic Hermite basis (``QUINTIC_HERMITE``) or its ``derivative``-th derivative in s at
    s (a number or an array): shape (6,) + shape of s."""
    C = QUINTIC_HERMITE
    for _ in range(derivative):
        C = C[:, 1:] * np.arange(1, C.shape[1])
    s = np.asarray(s, dtype=float)
    return np.tensordot(C, np.stack([s**k for k in range(C.shape[1])]), 1)


class QuinticSpline(TimeFunction):
    """A C² law through knots: on each interval the quintic with the knots' value, rate and
    acceleration at both ends (Hermite).  Its third derivative, the jerk, is a quadratic on each
    interval; an optimal control whose laws are such splines (``skilib.ocp``) hands them to the
    simulator as they are.

    ``times`` strictly increasing (≥ 2 knots); ``values``, ``rates``, ``accelerations`` finite,
    one per knot.  Asked outside [times[0], times[-1]] beyond a rounding margin (1e-9 of the
    span) it raises ValueError naming the time."""

    def __init__(self, times, values, rates, accelerations):
        self.t = check_array("times", times).astype(float).ravel()
        if len(self.t) < 2 or not np.all(np.diff(self.t) > 0):
            raise ValueError(f"times: must be at least 2 strictly increasing knots, got {self.t!r}")
        cols = []
        for name, v in (("values", values), ("rates", rates), ("accelerations", accelerations)):
            a = check_array(name, v).astype(float).ravel()
            if a.shape != self.t.shape:
                raise ValueError(f"{name}: must have one entry per knot ({len(self.t)}), got {a.shape}")
            cols.append(a)
        self.f, self.fd, self.fdd = cols
        # each interval's Hermite data c = (f₀, h ḟ₀, h² f̈₀, f₁, h ḟ₁, h² f̈₁) and its width, kept
        # as Python floats: a simulation asks the law at every stage of every step, and the basis
        # by Horner's rule on floats costs microseconds where NumPy's arrays cost tens of them.
        # f = Σ B_i(s) c_i as ``quintic_basis`` gives it (the basis first, then its sum with c:
        # each B_i⁽ᵈ⁾ is of order one, where a monomial form's coefficients reach 30 max|c| and
        # round f̈ twice as coarsely)
        h = np.diff(self.t)
        c = np.column_stack([self.f[:-1], h * self.fd[:-1], h * h * self.fdd[:-1], self.f[1:], h * self.fd[1:],
                             h * h * self.fdd[1:]])
        self._knots = self.t.tolist()
        self._pieces = [(t0, hk, tuple(ck)) for t0, hk, ck in zip(self._knots, h.tolist(), c.tolist())]
        span = self._knots[-1] - self._knots[0]
        self._lo, self._hi = self._knots[0] - 1e-9 * span, self._knots[-1] + 1e-9 * span

    def __call__(self, t):
        t = float(t)
        if not self._lo <= t <= self._hi:
            raise ValueError(f"t: {t!r} is outside the spline's knots [{self.t[0]!r}, {self.t[-1]!r}]")
        k = min(max(bisect_right(self._knots, t) - 1, 0), len(self._pieces) - 1)
        t0, h, c = self._pieces[k]
        s = (t - t0) / h
        f, fd, fdd = (sum(ci * _horner(b, s) for ci, b in zip(c, basis)) for basis in _BASIS_HORNER)
        return f, fd / h, fdd / (h * h)


#: ``QUINTIC_HERMITE``'s six basis polynomials and their first two derivatives in s, each as
#: coefficients highest power first (Horner's rule)
_BASIS_HORNER = tuple(
    tuple(tuple(float(x) for x in row[::-1]) for row in C)
    for C in (QUINTIC_HERMITE, QUINTIC_HERMITE[:, 1:] * np.arange(1, 6),
              (QUINTIC_HERMITE[:, 1:] * np.arange(1, 6))[:, 1:] * np.arange(1, 5)))


def _horner(coefficients, s: float) -> float:
    """Σ c_j s^j from the coefficients highest power first."""
    y = 0.0
    for c in coefficients:
        y = y * s + c
    return y
