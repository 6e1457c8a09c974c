"""Fourier-series fit of sampled data and the Pearson correlation coefficient.

Bruzzo (2012), §3.9, turns discrete measurements (here: a push-off force
recorded at 1 kHz) into a smooth function of time with a truncated Fourier
series (eq. 102) and judges the fit with Pearson's r (eq. 103).

Eq. 102, with the phase angle of sample i taken as
``theta_i = 2*pi*(t_i - t0)/period``::

    y(theta) = a0 + sum_{k=1..m} ( a_k sin(k theta) + b_k cos(k theta) )
    a0  = (1/n) sum_i y_i
    a_k = (2/n) sum_i y_i sin(k theta_i)
    b_k = (2/n) sum_i y_i cos(k theta_i)

Note the thesis's naming: ``a_k`` multiplies the *sine*, ``b_k`` the *cosine*.

When are the coefficient formulas exact?
    They are the discrete orthogonal projection onto the trigonometric basis,
    so they coincide with the least-squares fit (and reproduce a
    trigonometric polynomial of degree m exactly) only when the n samples lie
    at ``t_i = t0 + i*period/n`` for i = 0..n-1, i.e. they cover exactly one
    period, uniformly, without repeating the end point, and ``m < n/2``.
    For a uniformly sampled record with step ``dt`` this means
    ``period = n*dt`` -- one step longer than the sample span
    ``t[-1] - t[0]`` -- which is the default used by :func:`fit`.
    With any other sampling use ``method="lstsq"``, which solves the same
    model by linear least squares and is exact for any sampling that
    determines the coefficients.

Everything here is plain numpy; no state is kept between calls.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace

import numpy as np

from ..engine.validation import check_number

__all__ = ["FourierFit", "fit", "pearson_r", "choose_harmonics"]

_METHODS = ("thesis", "lstsq")
# Relative tolerance on the sampling step when the period is inferred.
_UNIFORM_RTOL = 1e-6


def _as_1d_finite(name: str, x, *, min_len: int = 1) -> np.ndarray:
    """Return ``x`` as a 1-D float array or raise ValueError naming ``name``."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: cannot be converted to a float array ({exc})") from None
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {arr.shape}")
    if arr.size < min_len:
        raise ValueError(f"{name}: needs at least {min_len} values, got {arr.size}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ValueError(
            f"{name}: {bad.size} non-finite value(s), first at index {bad[0]} ({float(arr[bad[0]])})"
        )
    return arr


def _check_int(name: str, value, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name}: must be an integer, got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name}: must be >= {minimum}, got {value}")
    return value


def _check_positive(name: str, value) -> float:
    # a string "3" or True is not 3 s: the shared check refuses both, and NaN and inf
    return check_number(name, value, positive=True)


def _exact_ints(x: np.ndarray) -> list[int]:
    """Integers X_i with x_i = X_i * 2**e for one common e (exact, no rounding).

    Every float is an integer mantissa times a power of two, so shifting all
    mantissas to the smallest exponent gives exact integers; the common scale
    cancels in eq. 103.
    """
    mant, expo = np.frexp(x)  # x = mant * 2**expo, 0.5 <= |mant| < 1
    mant_int = (mant * 2.0**53).astype(np.int64)  # exact: 53-bit significand
    expo = expo.astype(np.int64)
    nonzero = mant_int != 0
    if not np.any(nonzero):
        return [0] * x.size
    emin = int(expo[nonzero].min())
    shifts = np.where(nonzero, expo - emin, 0)
    return [int(m) << int(sh) for m, sh in zip(mant_int, shifts)]


def pearson_r(x, y) -> float:
    """Pearson correlation coefficient, eq. 103 of Bruzzo (2012), term by term.

    ``r = (n Σxy − Σx Σy) / ( sqrt(n Σx² − (Σx)²) · sqrt(n Σy² − (Σy)²) )``

    The raw-sum form of eq. 103 loses about 2·log10(|mean|/std) digits to
    cancellation in floating point (a force of ~1000 N ± 1 N would keep
    almost none). So the five sums and both differences are formed *exactly*,
    in integer arithmetic on the binary values of the data; only the final
    division and square root round. The result is eq. 103 to within an ulp
    or two, for any offset.

    Raises ValueError (naming ``x`` or ``y``) if the lengths differ, fewer than
    two values are given, a value is not finite, or one of the series is
    constant (r is then undefined: 0/0).
    """
    xa = _as_1d_finite("x", x, min_len=2)
    ya = _as_1d_finite("y", y, min_len=2)
    if xa.size != ya.size:
        raise ValueError(f"x, y: lengths differ ({xa.size} != {ya.size})")
    n = xa.size
    X, Y = _exact_ints(xa), _exact_ints(ya)
    sx, sy = sum(X), sum(Y)
    sxy = sum(p * q for p, q in zip(X, Y))
    sxx = sum(p * p for p in X)
    syy = sum(q * q for q in Y)
    num = n * sxy - sx * sy
    var_x = n * sxx - sx * sx
    var_y = n * syy - sy * sy
    if var_x == 0:
        raise ValueError("x: series is constant, Pearson r is undefined")
    if var_y == 0:
        raise ValueError("y: series is constant, Pearson r is undefined")
    # int / int is correctly rounded in Python even for huge integers; r² <= 1
    r2 = (num * num) / (var_x * var_y)
    return math.sqrt(r2) if num >= 0 else -math.sqrt(r2)


@dataclass(frozen=True, eq=False)
class FourierFit:
    """A fitted truncated Fourier series (eq. 102 of Bruzzo, 2012).

    ``y(t) = a0 + Σ_k a[k-1] sin(k ω (t − t0)) + b[k-1] cos(k ω (t − t0))``,
    ``ω = 2π/period``.

    Attributes
    ----------
    a0 : float
        Mean term.
    a, b : ndarray, shape (n_harmonics,)
        Sine (``a``) and cosine (``b``) coefficients for k = 1..n_harmonics
        (read-only arrays).
    period : float
        Period in the units of ``t`` (seconds for force data).
    t0 : float
        Time at which the phase angle is zero.
    pearson_r : float
        Eq. 103 between the fitted samples and the fitted values; NaN when it
        is undefined (``n_harmonics == 0`` gives a constant fit). A time-scaled
        fit keeps the value of the fit it was derived from.
    n_harmonics : int
        Number of harmonics m.
    method : str
        ``"thesis"`` (eq. 102 coefficient sums) or ``"lstsq"``.
    n_samples : int
        Number of samples the fit was computed from.
    """

    a0: float
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)
    period: float
    t0: float
    pearson_r: float
    n_harmonics: int
    method: str
    n_samples: int

    def __post_init__(self):
        for name in ("a", "b"):
            arr = np.array(getattr(self, name), dtype=float)  # private copy
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        if self.a.shape != (self.n_harmonics,) or self.b.shape != (self.n_harmonics,):
            raise ValueError(
                f"a, b: expected shape ({self.n_harmonics},), got {self.a.shape} and {self.b.shape}"
            )
        object.__setattr__(self, "period", _check_positive("period", self.period))
        object.__setattr__(self, "a0", float(self.a0))
        object.__setattr__(self, "t0", float(self.t0))
        object.__setattr__(self, "pearson_r", float(self.pearson_r))
        object.__setattr__(self, "_terms", tuple(zip(self.a.tolist(), self.b.tolist())))

    @property
    def omega(self) -> float:
        """Fundamental angular frequency 2π/period (rad per unit of t)."""
        return 2.0 * math.pi / self.period

    def evaluate(self, t, derivative: int = 0):
        """Value (``derivative=0``) or the first/second time derivative of the series.

        Derivatives are analytic: with ``φ = ω (t − t0)`` and ``c = k ω``,
        ``y'  = Σ c (a_k cos kφ − b_k sin kφ)`` and
        ``y'' = −Σ c² (a_k sin kφ + b_k cos kφ)``.

        Returns a float for scalar ``t`` and an ndarray of ``t``'s shape otherwise.
        """
        if isinstance(derivative, bool) or not isinstance(derivative, numbers.Integral) \
                or derivative not in (0, 1, 2):
            raise ValueError(f"derivative: must be 0, 1 or 2, got {derivative!r}")
        if derivative == 0 and isinstance(t, float) and math.isfinite(t):
            return self._scalar(t)
        tt = np.asarray(t, dtype=float)
        if not np.all(np.isfinite(tt)):
            raise ValueError("t: contains non-finite values")
        phi = self.omega * (tt - self.t0)
        k = np.arange(1, self.n_harmonics + 1, dtype=float)
        kphi = np.multiply.outer(phi, k)  # shape t.shape + (m,)
        s, c = np.sin(kphi), np.cos(kphi)
        if derivative == 0:
            out = self.a0 + s @ self.a + c @ self.b
        elif derivative == 1:
            kw = k * self.omega
            out = c @ (kw * self.a) - s @ (kw * self.b)
            out = out + np.zeros_like(phi)  # m = 0: keep the shape of t
        else:
            kw2 = (k * self.omega) ** 2
            out = -(s @ (kw2 * self.a) + c @ (kw2 * self.b))
            out = out + np.zeros_like(phi)
        return float(out) if np.ndim(out) == 0 else out

    def _scalar(self, t: float) -> float:
        """The value at one finite float t (an integrator calls this once per right-hand side).

        sin kφ and cos kφ by the angle-addition recurrence from one sin φ, cos φ: two
        trigonometric calls instead of 2m; the rounding grows like k·ε (≈ 1e-15 at m = 10).
        """
        phi = 2.0 * math.pi / self.period * (t - self.t0)
        return self._series(math.sin(phi), math.cos(phi))

    def _scalars(self, t) -> np.ndarray:
        """``_scalar`` at every finite float of the 1-D array t, bit for bit: its sin φ, cos φ from
        ``math`` point by point and its recurrence (``_series``) element-wise on arrays."""
        w = 2.0 * math.pi / self.period
        phi = [w * (float(x) - self.t0) for x in t]
        out = self._series(np.array([math.sin(x) for x in phi], dtype=float),
                           np.array([math.cos(x) for x in phi], dtype=float))
        return out if isinstance(out, np.ndarray) else np.full(len(phi), out)  # m = 0: a0 at every point

    def _series(self, s1, c1):
        """a0 + Σ (a_k sin kφ + b_k cos kφ) from sin φ, cos φ (floats, or arrays element-wise) by the
        angle-addition recurrence, in one order of operations for ``_scalar`` and ``_scalars``."""
        sk, ck = s1, c1
        out = self.a0
        for ak, bk in self._terms:
            out += ak * sk + bk * ck
            sk, ck = sk * c1 + ck * s1, ck * c1 - sk * s1
        return out

    def symbolic(self, t):
        """The series (eq. 102) as an expression of ``t`` built from this fit's attributes.

        With a sympy ``t`` (and, in ``skilib.engine.codegen``, symbols in place of the
        coefficients) it is what code generation compiles; with a float it is the value.
        """
        from ..engine.rotation import cos, sin

        phi = 2.0 * math.pi / self.period * (t - self.t0)
        out = self.a0
        for k in range(self.n_harmonics):
            out = out + self.a[k] * sin((k + 1) * phi) + self.b[k] * cos((k + 1) * phi)
        return out

    def __call__(self, t):
        """Value of the series at ``t`` (same as ``evaluate(t)``)."""
        if isinstance(t, float) and math.isfinite(t):
            return self._scalar(t)
        return self.evaluate(t)

    def time_scaled(self, new_period: float, *, t0: float | None = None) -> "FourierFit":
        """The same curve stretched in time so one period lasts ``new_period``.

        ``g(t) = f(self.t0 + (t − t0_new) · period/new_period)``: the
        coefficients are unchanged, only the period (and optionally the time
        origin, default: unchanged) is replaced. This is how Bruzzo (2012,
        fig. 32) adapts one measured push-off to a simulated phase time.
        Derivatives scale by (period/new_period) per order.
        """
        new_period = _check_positive("new_period", new_period)
        new_t0 = self.t0 if t0 is None else float(t0)
        if not math.isfinite(new_t0):
            raise ValueError(f"t0: must be finite, got {t0!r}")
        return replace(self, period=new_period, t0=new_t0)

    def coefficients(self) -> dict:
        """The coefficients as a plain dict (for tables and JSON)."""
        return {"a0": self.a0, "a": self.a.tolist(), "b": self.b.tolist(),
                "period": self.period, "t0": self.t0}


def _design(theta: np.ndarray, m: int) -> np.ndarray:
    """Columns [1, sin θ, …, sin mθ, cos θ, …, cos mθ]."""
    k = np.arange(1, m + 1, dtype=float)
    kt = np.multiply.outer(theta, k)
    return np.hstack([np.ones((theta.size, 1)), np.sin(kt), np.cos(kt)])


def _infer_period(t: np.ndarray) -> float:
    n = t.size
    if n < 2:
        raise ValueError("t: at least 2 samples are needed to infer the period")
    steps = np.diff(t)
    dt = (t[-1] - t[0]) / (n - 1)
    worst = int(np.argmax(np.abs(steps - dt)))
    if abs(steps[worst] - dt) > _UNIFORM_RTOL * dt:
        raise ValueError(
            f"t: not uniformly sampled (step {worst} is {float(steps[worst])!r}, mean step {float(dt)!r}); "
            "give `period` explicitly and prefer method='lstsq'"
        )
    # n samples of one full period: the next sample would be the first again.
    return n * dt


def fit(t, y, n_harmonics: int, *, period: float | None = None, t0: float | None = None,
        method: str = "thesis") -> FourierFit:
    """Fit eq. 102 of Bruzzo (2012) to samples ``(t_i, y_i)``.

    Parameters
    ----------
    t, y : array_like, 1-D, same length n
        Sample times (strictly increasing) and values; finite.
    n_harmonics : int
        m, the number of harmonics, ``0 <= m < n/2``.
    period : float, optional
        Period of the series. Default: ``n*dt`` for uniformly sampled ``t``
        (step ``dt``), the choice that makes the eq. 102 sums exact (see the
        module docstring); a non-uniform ``t`` without ``period`` raises.
        Must not be shorter than the sample span ``t[-1] - t0``.
    t0 : float, optional
        Time origin of the phase angle, default ``t[0]``.
    method : {"thesis", "lstsq"}
        ``"thesis"``: the coefficient sums of eq. 102. ``"lstsq"``: linear
        least squares on the same basis. They agree (to rounding) when the
        samples are ``t0 + i*period/n``, i = 0..n-1.

    Returns
    -------
    FourierFit
        Including ``pearson_r`` (eq. 103) between ``y`` and the fitted values.

    Examples
    --------
    One period of ``400 + 250 sin 2θ − 30 cos θ`` sampled at 100 points: the eq. 102 sums
    recover every amplitude (thesis naming: ``a_k`` multiplies the sine, ``b_k`` the cosine),
    and the fit reproduces the samples, r = 1.

    >>> import numpy as np
    >>> t = np.arange(100) * 0.01          # period 1 s, the end point not repeated
    >>> y = 400 + 250 * np.sin(2 * 2 * np.pi * t) - 30 * np.cos(2 * np.pi * t)
    >>> f = fit(t, y, 3)
    >>> print(f"a0 = {f.a0:.9f}, a2 = {f.a[1]:.9f}, b1 = {f.b[0]:.9f}, period = {f.period:.9f} s")
    a0 = 400.000000000, a2 = 250.000000000, b1 = -30.000000000, period = 1.000000000 s
    >>> others = np.r_[f.a[[0, 2]], f.b[1:]]   # a1, a3, b2, b3: not in the signal
    >>> bool(np.all(np.abs(others) < 1e-9))
    True
    >>> round(f.pearson_r, 12)
    1.0
    """
    if method not in _METHODS:
        raise ValueError(f"method: must be one of {_METHODS}, got {method!r}")
    ta = _as_1d_finite("t", t)
    ya = _as_1d_finite("y", y)
    if ta.size != ya.size:
        raise ValueError(f"t, y: lengths differ ({ta.size} != {ya.size})")
    n = ta.size
    m = _check_int("n_harmonics", n_harmonics, minimum=0)
    if 2 * m >= n:
        raise ValueError(
            f"n_harmonics: must be < n/2 = {n / 2} for n = {n} samples, got {m}"
        )
    if n > 1 and np.any(np.diff(ta) <= 0):
        i = int(np.flatnonzero(np.diff(ta) <= 0)[0]) + 1
        raise ValueError(f"t: must be strictly increasing (index {i}: {float(ta[i])!r} after {float(ta[i - 1])!r})")
    origin = float(ta[0]) if t0 is None else float(t0)
    if not math.isfinite(origin):
        raise ValueError(f"t0: must be finite, got {t0!r}")
    if period is None:
        per = _infer_period(ta) if n > 1 else 1.0
    else:
        per = _check_positive("period", period)
    span = float(ta[-1] - origin)
    if per < span * (1.0 - 1e-12):
        raise ValueError(
            f"period: {float(per)!r} is shorter than the sample span t[-1] - t0 = {span!r}"
        )

    theta = 2.0 * math.pi * (ta - origin) / per
    if method == "thesis":
        k = np.arange(1, m + 1, dtype=float)
        kt = np.multiply.outer(theta, k)
        a0 = math.fsum(ya) / n
        a = 2.0 * (ya @ np.sin(kt)) / n
        b = 2.0 * (ya @ np.cos(kt)) / n
    else:
        coef, *_ = np.linalg.lstsq(_design(theta, m), ya, rcond=None)
        a0, a, b = float(coef[0]), coef[1:m + 1], coef[m + 1:]

    result = FourierFit(a0=float(a0), a=a, b=b, period=per, t0=origin, pearson_r=math.nan,
                        n_harmonics=m, method=method, n_samples=n)
    try:
        r = pearson_r(ya, result(ta)) if n > 1 else math.nan
    except ValueError:  # constant data or constant fit (m = 0): r undefined
        r = math.nan
    return replace(result, pearson_r=r)


def choose_harmonics(t, y, target_r: float, *, max_harmonics: int = 50,
                     period: float | None = None, method: str = "thesis") -> int:
    """Smallest number of harmonics m (1 <= m <= max_harmonics) whose fit reaches
    ``pearson_r >= target_r`` (eq. 103).

    m = 0 is not considered: a constant fit has no defined r. ``max_harmonics``
    is reduced to the largest admissible value (< n/2) if needed. Raises
    ValueError naming ``target_r`` if no m up to ``max_harmonics`` reaches it.
    """
    try:
        target = float(target_r)
    except (TypeError, ValueError):
        raise ValueError(f"target_r: must be a number in (-1, 1], got {target_r!r}") from None
    if not (-1.0 < target <= 1.0):
        raise ValueError(f"target_r: must be in (-1, 1], got {target_r!r}")
    m_max = _check_int("max_harmonics", max_harmonics, minimum=1)
    n = np.asarray(y).size
    m_max = min(m_max, (n - 1) // 2)
    best = math.nan
    for m in range(1, m_max + 1):
        r = fit(t, y, m, period=period, method=method).pearson_r
        if r >= target:
            return m
        best = r if math.isnan(best) else max(best, r)
    raise ValueError(
        f"target_r: {target} not reached with up to {m_max} harmonics (best r = {best})"
    )
