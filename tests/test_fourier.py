"""Fourier fit (Bruzzo 2012, eq. 102) and Pearson r (eq. 103)."""
import math

import numpy as np
import pytest
from scipy import stats

from skilib.data import fourier
from skilib.data.fourier import FourierFit, choose_harmonics, fit, pearson_r

SUMS_ROUNDING = ('sums of n ≤ 1000 terms of size ≤ max|y| err by at most n ε max|y| = 2.2e-13 max|y| (ε = 2.2e-16), '
                 'least squares on orthogonal columns (condition 1) by a few ε; 1e-12 is 4.5 n ε')

FIVE_SIGMA = ('r of independent samples is ≈ N(0, 1/n): |r| < 5/√n fails with probability 6e-7; the seed is fixed')

DIFFERENCE_BOUND = ("the central difference's own error bound h²/6 max|y‴| + 2ε max|y|/h, each derivative bounded by Σ "
                    '(kω)^j (|a_k| + |b_k|): derived, not fitted')

TWO_PI = 2.0 * math.pi


@pytest.fixture
def rng():
    """Fixed-seed generator local to this module (no dependence on conftest)."""
    return np.random.default_rng(102103)


def trig_poly(t, a0, a, b, period, t0):
    """Reference evaluation of eq. 102 and its first two derivatives, written out."""
    w = TWO_PI / period
    y = np.full_like(t, a0, dtype=float)
    dy = np.zeros_like(t, dtype=float)
    ddy = np.zeros_like(t, dtype=float)
    for k, (ak, bk) in enumerate(zip(a, b), start=1):
        ph = k * w * (t - t0)
        y += ak * np.sin(ph) + bk * np.cos(ph)
        dy += k * w * (ak * np.cos(ph) - bk * np.sin(ph))
        ddy += -((k * w) ** 2) * (ak * np.sin(ph) + bk * np.cos(ph))
    return y, dy, ddy


@pytest.fixture
def poly(rng):
    """A random degree-5 trigonometric polynomial on one full uniform period."""
    m, n, period, t0 = 5, 64, 0.8, 0.3
    a0 = rng.normal(3.0, 1.0)
    a, b = rng.normal(size=m), rng.normal(size=m)
    t = t0 + np.arange(n) * period / n  # t0 + i*T/n, i = 0..n-1: eq. 102 sums are exact
    y, _, _ = trig_poly(t, a0, a, b, period, t0)
    return dict(m=m, n=n, period=period, t0=t0, a0=a0, a=a, b=b, t=t, y=y)


@pytest.mark.parametrize("method", ["thesis", "lstsq"])
def test_exact_recovery_of_trigonometric_polynomial(poly, measured, method):
    """A random degree-5 trigonometric polynomial sampled on one full period is recovered
    exactly by eq. 102's sums and by least squares: period, coefficients, r = 1."""
    f = fit(poly["t"], poly["y"], poly["m"], method=method)  # period inferred: n*dt
    measured.check("inferred period", abs(f.period - poly["period"]) / poly["period"], 1e-14, "rel.")
    assert f.t0 == poly["t0"]
    assert f.n_harmonics == poly["m"] and f.method == method and f.n_samples == poly["n"]
    measured.check("a₀", abs(f.a0 - poly["a0"]), 1e-12, strict=True)
    measured.allclose("a_k, b_k", np.r_[f.a, f.b], np.r_[poly["a"], poly["b"]], atol=1e-12)
    measured.check("|r − 1|", abs(f.pearson_r - 1.0), 1e-12, strict=True)


@pytest.mark.parametrize("method", ["thesis", "lstsq"])
def test_extra_harmonics_come_out_zero(poly, measured, method):
    """Fitted with 12 harmonics, the degree-5 polynomial keeps its a_k and every harmonic
    beyond the 5th comes out zero."""
    f = fit(poly["t"], poly["y"], 12, method=method)
    measured.allclose("a_k, k ≤ 5", f.a[:5], poly["a"], atol=1e-12)
    measured.allclose("a_k, b_k, k > 5", np.r_[f.a[5:], f.b[5:]], 0.0, atol=1e-12)


@pytest.mark.parametrize("n, m", [(101, 10), (64, 31), (1000, 7)])
def test_thesis_sums_equal_least_squares_on_full_uniform_period(rng, measured, n, m):
    """On t0 + iT/n the sine and cosine columns are orthogonal, so eq. 102's sums are the
    least-squares solution for any data (see the module docstring of skilib.data.fourier):
    random data, three (n, m)."""
    t = 2.0 + np.arange(n) * 0.001
    y = rng.normal(size=n) * 50 + 400
    ft = fit(t, y, m, method="thesis")
    fl = fit(t, y, m, method="lstsq")
    scale = np.max(np.abs(y))
    measured.check("a₀: sums vs least squares", abs(ft.a0 - fl.a0) / scale, 1e-12, "× max|y|", strict=True)
    measured.check("a_k, b_k: sums vs least squares", np.abs(np.r_[ft.a - fl.a, ft.b - fl.b]) / scale, 1e-12,
                   "× max|y|", argued=SUMS_ROUNDING)
    measured.check("r: sums vs least squares", abs(ft.pearson_r - fl.pearson_r), 1e-12)


def test_thesis_sums_are_not_exact_when_the_period_is_the_sample_span(poly, measured):
    """The documented pitfall: with period = t[-1] − t[0] the first and last samples have the
    same phase, orthogonality breaks and eq. 102's sums differ from least squares."""
    span = poly["t"][-1] - poly["t"][0]
    ft = fit(poly["t"], poly["y"], poly["m"], period=span, method="thesis")
    fl = fit(poly["t"], poly["y"], poly["m"], period=span, method="lstsq")
    measured.exceeds("max|a_k: sums − least squares|", np.max(np.abs(ft.a - fl.a)), 1e-3)
    # least squares still reproduces the samples of whatever it fits
    assert fl.pearson_r > ft.pearson_r


def test_least_squares_recovers_polynomial_from_nonuniform_samples(rng, measured):
    """Least squares recovers a trigonometric polynomial from 60 non-uniform samples."""
    period, t0, m = 1.3, 0.0, 4
    a0, a, b = 0.7, rng.normal(size=m), rng.normal(size=m)
    t = np.sort(rng.uniform(0, period, size=60))
    y, _, _ = trig_poly(t, a0, a, b, period, t0)
    f = fit(t, y, m, period=period, t0=t0, method="lstsq")
    measured.allclose("a₀, a_k, b_k", np.r_[f.a0, f.a, f.b], np.r_[a0, a, b], atol=1e-12)
    with pytest.raises(ValueError, match=r"^t: not uniformly sampled"):
        fit(t, y, m)  # no period: cannot be inferred from non-uniform times


def test_evaluate_and_analytic_derivatives(poly, measured):
    """The fit and its first two derivatives equal the written-out series inside and beyond
    the fitted interval, within the coefficients' error times (kω)^d."""
    f = fit(poly["t"], poly["y"], poly["m"])
    tt = np.linspace(-0.5, 2.0, 257)  # beyond the fitted interval: the series is periodic
    y, dy, ddy = trig_poly(tt, poly["a0"], poly["a"], poly["b"], poly["period"], poly["t0"])
    w_max = poly["m"] * TWO_PI / poly["period"]
    amp = abs(poly["a0"]) + np.sum(np.abs(poly["a"]) + np.abs(poly["b"]))
    # errors inherited from coefficient errors <= 1e-12 per coefficient, times (k w)^d
    measured.check("f", np.abs(f(tt) - y) / amp, 1e-11, "× amp")
    measured.check("f′", np.abs(f.evaluate(tt, 1) - dy) / (amp * w_max), 1e-11, "× amp ω_max")
    measured.check("f″", np.abs(f.evaluate(tt, 2) - ddy) / (amp * w_max**2), 1e-11, "× amp ω_max²")
    assert isinstance(f(0.5), float) and f(0.5) == pytest.approx(float(f(np.array([0.5]))[0]))
    assert f(np.zeros((2, 3))).shape == (2, 3)


def test_derivatives_against_central_differences(poly, measured):
    """f′ and f″ against central differences (h = 1e-5), within the difference formula's own
    error bound h²/6 max|y‴| + 2ε max|y|/h."""
    f = fit(poly["t"], poly["y"], poly["m"])
    tt = np.linspace(0.0, 1.0, 41)
    h = 1e-5
    # central difference error <= h^2/6 max|y'''| + eps*max|y|/h; bound both with
    # |y^(j)| <= sum_k (k w)^j (|a_k|+|b_k|)
    w = TWO_PI / poly["period"]
    k = np.arange(1, poly["m"] + 1)
    c = np.abs(poly["a"]) + np.abs(poly["b"])
    bound = lambda j: np.sum((k * w) ** j * c) + (abs(poly["a0"]) if j == 0 else 0.0)  # noqa: E731
    eps = np.finfo(float).eps
    fd1 = (f(tt + h) - f(tt - h)) / (2 * h)
    tol1 = h**2 / 6 * bound(3) + 2 * eps * bound(0) / h
    measured.check("f′ vs central difference", np.abs(fd1 - f.evaluate(tt, 1)), tol1, strict=True, argued=DIFFERENCE_BOUND)
    fd2 = (f.evaluate(tt + h, 1) - f.evaluate(tt - h, 1)) / (2 * h)
    tol2 = h**2 / 6 * bound(4) + 2 * eps * bound(1) / h
    measured.check("f″ vs central difference", np.abs(fd2 - f.evaluate(tt, 2)), tol2, strict=True, argued=DIFFERENCE_BOUND)


def test_time_scaled_stretches_the_curve(poly, measured):
    """g = f.time_scaled(T′) is f on the stretched time axis: g(t0′ + sT′) = f(t0 + sT), and
    its derivatives scale with T/T′ and (T/T′)²."""
    f = fit(poly["t"], poly["y"], poly["m"])
    new_T, new_t0 = 2.5, 0.0
    g = f.time_scaled(new_T, t0=new_t0)
    s = np.linspace(0, 1, 33)
    ratio = f.period / new_T
    measured.allclose("g vs f on the stretched axis", g(new_t0 + s * new_T), f(f.t0 + s * f.period), atol=1e-12)
    measured.allclose("g′, g″ vs (T/T′)ʲ f⁽ʲ⁾", g.evaluate(new_t0 + s * new_T, 1),
                      ratio * f.evaluate(f.t0 + s * f.period, 1), rtol=1e-12, atol=1e-9)
    measured.allclose("g′, g″ vs (T/T′)ʲ f⁽ʲ⁾", g.evaluate(new_t0 + s * new_T, 2),
                      ratio**2 * f.evaluate(f.t0 + s * f.period, 2), rtol=1e-12, atol=1e-9)
    assert g.period == new_T and g.pearson_r == f.pearson_r
    assert f.time_scaled(1.0).t0 == f.t0  # default keeps the origin
    assert f.period == pytest.approx(0.8)  # the original is untouched (frozen)
    with pytest.raises(ValueError, match="^new_period"):
        f.time_scaled(0.0)


def test_fit_is_frozen_and_arrays_read_only(poly):
    f = fit(poly["t"], poly["y"], 3)
    with pytest.raises(AttributeError):
        f.a0 = 1.0
    with pytest.raises(ValueError):
        f.a[0] = 1.0
    assert isinstance(f, FourierFit) and isinstance(f.period, float)


def test_zero_harmonics_is_the_mean_and_r_undefined(poly, measured):
    """With no harmonics eq. 102 is the sample mean and r is undefined (NaN)."""
    f = fit(poly["t"], poly["y"], 0)
    mean = np.mean(poly["y"])
    measured.check("a₀ vs sample mean", abs(f.a0 - mean) / abs(mean), 1e-15, "rel.")
    assert f.a.shape == (0,) and math.isnan(f.pearson_r)
    np.testing.assert_array_equal(f.evaluate(poly["t"], 1), 0.0)


# --- Pearson r, eq. 103 ------------------------------------------------------

def test_pearson_r_of_a_perfect_linear_relation_is_one(rng, measured):
    """Eq. 103 gives r = ±1 for an exactly linear relation (rising and falling)."""
    x = rng.normal(size=500) * 300 + 900
    measured.check("|r − 1|, rising line", abs(pearson_r(x, 2.5 * x - 7.0) - 1.0), 1e-12, strict=True)
    measured.check("|r + 1|, falling line", abs(pearson_r(x, -0.1 * x + 3.0) + 1.0), 1e-12, strict=True)


def test_pearson_r_of_independent_noise_is_near_zero(measured):
    """Under independence r is approximately N(0, 1/n): |r| < 5/√n fails with probability
    ~6e-7 (n = 20000; the seed is fixed, so the test is deterministic)."""
    g = np.random.default_rng(103)
    n = 20000
    r = pearson_r(g.normal(size=n), g.normal(size=n))
    measured.check("|r| of independent samples", abs(r), 5 / math.sqrt(n), strict=True, argued=FIVE_SIGMA)


@pytest.mark.parametrize("offset", [0.0, 1e3, 1e5])
def test_pearson_r_equals_scipy(rng, measured, offset):
    """Eq. 103's r equals scipy.stats.pearsonr, with offsets 0, 1e3 and 1e5."""
    x = rng.normal(size=700) * 200 + offset
    y = 0.6 * x + rng.normal(size=700) * 150
    ref = stats.pearsonr(x, y)[0]
    # pytest.approx(ref, rel=1e-12, abs=1e-12): the larger of the two bounds
    measured.check("r vs scipy", abs(pearson_r(x, y) - ref), max(1e-12 * abs(ref), 1e-12))


def test_pearson_r_is_exact_despite_a_large_offset(rng, measured):
    """The raw sums of eq. 103 cancel catastrophically for mean ≫ std (offset 1e9); the
    implementation forms them exactly: the same formula in exact rational arithmetic agrees
    to 4 ε."""
    from fractions import Fraction

    x = rng.normal(size=300) + 1e9
    y = x + rng.normal(size=300)
    X, Y = [Fraction(v) for v in x], [Fraction(v) for v in y]
    n = len(X)
    num = n * sum(p * q for p, q in zip(X, Y)) - sum(X) * sum(Y)
    vx = n * sum(p * p for p in X) - sum(X) ** 2
    vy = n * sum(q * q for q in Y) - sum(Y) ** 2
    exact = math.sqrt(num * num / (vx * vy))
    measured.check("r vs exact rational arithmetic", abs(pearson_r(x, y) - exact) / exact, 4 * np.finfo(float).eps,
                   "rel.")


def test_pearson_r_literal_sums_on_a_hand_example(measured):
    """Eq. 103's sums by hand on four points: r = 12/20."""
    x, y = [1.0, 2.0, 3.0, 4.0], [2.0, 1.0, 4.0, 3.0]
    # n Σxy − ΣxΣy = 4*28 − 10*10 = 12 ; n Σx² − (Σx)² = 4*30 − 100 = 20 (same for y)
    measured.check("r vs 12/20", abs(pearson_r(x, y) - 0.6) / 0.6, 1e-15, "rel.")


def test_fit_pearson_r_is_eq_103_between_data_and_fit(rng, measured):
    """A fit's r is eq. 103 between the data and the fitted curve (scipy's pearsonr)."""
    t = np.arange(200) * 0.005
    y = np.sin(TWO_PI * t) + 0.3 * rng.normal(size=t.size)
    f = fit(t, y, 3)
    ref = stats.pearsonr(y, f(t))[0]
    measured.check("fit's r vs scipy", abs(f.pearson_r - ref) / abs(ref), 1e-12, "rel.")


@pytest.mark.parametrize("args, param", [
    (([1, 2, 3], [1, 2]), "x, y"),
    (([1, 1, 1], [1, 2, 3]), "x"),
    (([1, 2, 3], [5, 5, 5]), "y"),
    (([1, np.nan, 3], [1, 2, 3]), "x"),
    (([1], [1]), "x"),
])
def test_pearson_r_rejects_bad_input(args, param):
    with pytest.raises(ValueError, match=f"^{param}:"):
        pearson_r(*args)


# --- choosing m and validating input ------------------------------------------

def test_choose_harmonics_returns_the_smallest_sufficient_m(rng):
    n, T = 128, 1.0
    t = np.arange(n) * T / n
    y = 2 + np.sin(TWO_PI * t) + 0.5 * np.cos(2 * TWO_PI * t) + 0.2 * np.sin(3 * TWO_PI * t)
    target = 1 - 1e-12
    m = choose_harmonics(t, y, target)
    assert m == 3
    assert fit(t, y, m - 1).pearson_r < target <= fit(t, y, m).pearson_r
    with pytest.raises(ValueError, match="^target_r"):
        choose_harmonics(t, y + 0.1 * rng.normal(size=n), target, max_harmonics=5)
    with pytest.raises(ValueError, match="^target_r"):
        choose_harmonics(t, y, 1.5)


@pytest.mark.parametrize("kwargs, param", [
    (dict(t=[0, 1, 2], y=[0, 1]), "t, y"),
    (dict(t=[0, 1, np.inf, 3, 4], y=[0, 1, 2, 3, 4]), "t"),
    (dict(t=[0, 1, 2, 3, 4], y=[0, 1, np.nan, 3, 4]), "y"),
    (dict(t=[0, 1, 2, 3, 4], y=[0, 1, 2, 3, 4], n_harmonics=-1), "n_harmonics"),
    (dict(t=[0, 1, 2, 3, 4], y=[0, 1, 2, 3, 4], n_harmonics=1.5), "n_harmonics"),
    (dict(t=[0, 1, 2, 3, 4], y=[0, 1, 2, 3, 4], n_harmonics=True), "n_harmonics"),
    (dict(t=[0, 1, 2, 3], y=[0, 1, 2, 3], n_harmonics=2), "n_harmonics"),  # 2 = n/2
    (dict(t=[0, 1, 2, 3, 4], y=[0, 1, 2, 3, 4], method="fft"), "method"),
    (dict(t=[0, 1, 2, 3, 4], y=[0, 1, 2, 3, 4], period=0.0), "period"),
    (dict(t=[0, 1, 2, 3, 4], y=[0, 1, 2, 3, 4], period=3.0), "period"),  # < span 4
    (dict(t=[0, 2, 1, 3, 4], y=[0, 1, 2, 3, 4]), "t"),
    (dict(t=[[0, 1], [2, 3]], y=[0, 1, 2, 3]), "t"),
])
def test_fit_rejects_bad_input_naming_the_parameter(kwargs, param):
    kwargs.setdefault("n_harmonics", 1)
    with pytest.raises(ValueError, match=f"^{param}:"):
        fit(**kwargs)


def test_evaluate_rejects_bad_derivative_order(poly):
    f = fit(poly["t"], poly["y"], 2)
    for d in (3, -1, 1.0, True):
        with pytest.raises(ValueError, match="^derivative"):
            f.evaluate(0.1, d)


def test_module_has_no_mutable_state():
    assert not [k for k, v in vars(fourier).items()
                if not k.startswith("__") and isinstance(v, (list, dict, set))]


@pytest.mark.parametrize("m", [1, 10, 40])
def test_scalar_recurrence_equals_the_written_out_series(rng, measured, m):
    """One float t takes the angle-addition recurrence (two trig calls); its value is the
    series written out term by term.  Either way the phase kφ carries a rounding error of
    about kφε, so the two may differ by Σ (|a_k| + |b_k|) k φ_max ε ≤ amp · m · φ_max · ε."""
    a0, a, b = rng.normal(), rng.normal(size=m), rng.normal(size=m)
    f = FourierFit(a0=a0, a=a, b=b, period=0.7, t0=0.2, pearson_r=math.nan, n_harmonics=m, method="lstsq",
                   n_samples=0)
    tt = np.linspace(-3.0, 5.0, 401)
    ref, _, _ = trig_poly(tt, a0, a, b, 0.7, 0.2)
    amp = abs(a0) + np.sum(np.abs(a) + np.abs(b))
    got = np.array([f(float(t)) for t in tt])
    phi_max = TWO_PI / 0.7 * np.abs(tt - 0.2).max()
    measured.check("recurrence vs written-out series", np.abs(got - ref), amp * m * phi_max * np.finfo(float).eps)
