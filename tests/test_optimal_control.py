"""Free control (``skilib.ocp.control``): the laws as C² quintic splines, and the free skater's
stroke with its laws free.

- The quintic Hermite basis (``QUINTIC_HERMITE``) interpolates value, rate and acceleration at
  both ends; a ``QuinticSpline`` reproduces any quintic exactly and is C² at its knots; the
  exact jerk integral ``jerk_gram`` equals Gauss–Legendre quadrature of the spline's third
  derivative.
- ``optimal_control`` on a small mesh: IPOPT's solution, re-simulated by ``simulate_free``
  with the splines as its laws, agrees in speed and budget power; it is at least as fast as the
  law-based optimum it starts from; the touch-down conditions hold (the laws' rates zero at
  τ = 0, the height back at its start, no jump of the centre of mass), and the simulated energy
  balance closes: no energy enters that the budget does not count.

Tolerances: the basis and the spline are polynomial identities, a few ε (1e-12 relative to the
coefficients); quadrature of a degree-4 polynomial with 5 Gauss points is exact to rounding.
The collocation's errors are as in test_collocation.py (O(h⁴), measured beside each bound).
"""
import math

import numpy as np
import pytest

pytest.importorskip("casadi")

from skilib.engine.timefunctions import QUINTIC_HERMITE, QuinticSpline, quintic_basis  # noqa: E402
from skilib.models.free.collocation import FreeControlCaps  # noqa: E402
from skilib.ocp import optimal_control  # noqa: E402
from skilib.ocp.control import coarse_mesh, jerk_gram, refine_knots  # noqa: E402


def test_the_quintic_hermite_basis_interpolates_its_six_end_values(measured):
    """B_i and its first two derivatives at s = 0 and s = 1 are the identity: each basis function
    carries exactly one of (f₀, ḟ₀, f̈₀, f₁, ḟ₁, f̈₁)."""
    ends = np.array([[quintic_basis(s, d)[i] for s in (0.0, 1.0) for d in range(3)] for i in range(6)])
    measured.check("basis end values vs the identity", np.abs(ends - np.eye(6)), 1e-15)
    assert QUINTIC_HERMITE.shape == (6, 6)


def test_the_bernstein_coefficients_are_the_splines_acceleration(rng, measured):
    """``acceleration_bernstein``: for 50 random quintic Hermite intervals (width h), the cubic
    Σ_j β_j C(3, j) s^j (1 − s)^(3−j) with β = E c / h² is the spline's f̈ (``quintic_basis``,
    second derivative over h²) at 200 random s, and it lies within [min β, max β] on a grid of
    1001 points: a row on β holds f̈ over the whole interval."""
    import math

    from skilib.engine.timefunctions import quintic_basis
    from skilib.ocp.control import acceleration_bernstein

    E = acceleration_bernstein()
    s = rng.uniform(0.0, 1.0, 200)
    grid = np.linspace(0.0, 1.0, 1001)
    worst, outside = 0.0, 0.0
    for _ in range(50):
        c, h = rng.normal(size=6), rng.uniform(0.05, 0.5)
        beta = E @ c / h**2
        fdd = quintic_basis(s, 2).T @ c / h**2
        bern = sum(beta[j] * math.comb(3, j) * s**j * (1 - s) ** (3 - j) for j in range(4))
        worst = max(worst, float(np.max(np.abs(bern - fdd)) / np.max(np.abs(beta))))
        on_grid = quintic_basis(grid, 2).T @ c / h**2
        outside = max(outside, float(max(beta.min() - on_grid.min(), on_grid.max() - beta.max(), 0.0)))
    measured.check("Bernstein cubic − the spline's f̈, relative to max|β|", worst, 1e-13,
                   argued="two sums of 6 and 4 terms, each ≤ ~20 max|β| in size: rounding ≲ 200 ε ≈ 4e-14 of max|β|")
    measured.check("f̈ outside [min β, max β] on the grid", outside, 1e-12, "rel. units")


def test_coarse_splines_are_splines_of_the_finer_knots(rng, measured):
    """``refine_knots``: two laws' splines on 5 random-valued knots over [0, 0.9] s, given on 25
    knots, are the same functions: value, rate and acceleration agree at 200 random times to
    rounding (a quintic on a coarse interval is its own Hermite interpolant on every finer one).
    That is what lets a coarse free-control solution start the fine program exactly.  Knots
    beyond the splines' are refused by name; ``coarse_mesh`` keeps the intervals per
    spline interval."""
    T, Kc, K = 0.9, 5, 25
    z = rng.normal(size=(Kc + 1, 6))
    fine = refine_knots(z, np.linspace(0, T, Kc + 1), np.linspace(0, T, K + 1))
    t = rng.uniform(0.0, T, 200)
    for i in range(2):
        a = QuinticSpline(np.linspace(0, T, Kc + 1), z[:, 3 * i], z[:, 3 * i + 1], z[:, 3 * i + 2])
        b = QuinticSpline(np.linspace(0, T, K + 1), fine[:, 3 * i], fine[:, 3 * i + 1], fine[:, 3 * i + 2])
        diff = np.array([np.subtract(a(x), b(x)) for x in t]) / np.abs(z).max()
        measured.check(f"law {i}: refined spline − coarse (f, ḟ, f̈), relative", np.abs(diff), 1e-11,
                       argued="f̈ is six basis terms (second derivatives ≤ ~20) over h² on the fine mesh's h = T/25: "
                              "rounding ≈ 60 ε max|z| / h² ≈ 1e-11 of max|z|, the tolerance")
    with pytest.raises(ValueError, match="tau: the knots"):
        refine_knots(z, np.linspace(0, T, Kc + 1), np.linspace(0, 1.2 * T, K + 1))
    assert coarse_mesh(100, 25) == (20, 5) and coarse_mesh(40, 10) == (20, 5)
    assert coarse_mesh(20, 5) is None and coarse_mesh(24, 12) is None


def test_a_quintic_spline_is_its_hermite_basis_sum(rng, measured):
    """``QuinticSpline`` evaluates by Horner's rule on floats (a simulation asks it at every
    stage); at 400 random times on 12 random uneven knots its f, ḟ, f̈ equal the definition,
    Σ_i c_i B_i⁽ᵈ⁾(s) / hᵈ with ``quintic_basis``'s arrays, to rounding; a time on a knot takes
    the interval that starts there, as the basis does."""
    t = np.sort(np.concatenate([[0.0, 1.1], rng.uniform(0.0, 1.1, 10)]))
    f, fd, fdd = rng.normal(size=(3, len(t)))
    sp = QuinticSpline(t, f, fd, fdd)
    x = np.concatenate([rng.uniform(0.0, 1.1, 400), t])
    got, want = [], []
    for v in x:
        k = min(max(np.searchsorted(t, v, side="right") - 1, 0), len(t) - 2)
        h = t[k + 1] - t[k]
        c = np.array([f[k], h * fd[k], h * h * fdd[k], f[k + 1], h * fd[k + 1], h * h * fdd[k + 1]])
        s = (v - t[k]) / h
        want.append([c @ quintic_basis(s, d) / h**d for d in range(3)])
        got.append(sp(v))
    scale = np.abs(want).max(axis=0)
    measured.check("spline by Horner vs the Hermite basis' sum (f, ḟ, f̈), relative to their largest",
                   np.abs(np.subtract(got, want)) / scale, 1e-12,
                   argued="both sum six terms B_i⁽ᵈ⁾ c_i, each B_i⁽ᵈ⁾ a sum of ≤ 6 terms of size ≤ ~180 s^j: "
                          "rounding ≲ 6 × 180 ε ≈ 2.4e-13 of the largest; measured ≈ 3e-15")


def test_a_quintic_spline_reproduces_a_quintic_and_is_c2(rng, measured):
    """Knots on a random quintic p(t): the spline equals p, ṗ, p̈ everywhere between them (a
    quintic is its own Hermite interpolant), and on random knot data its value, rate and
    acceleration are continuous across every knot."""
    c = rng.normal(size=6)
    p = np.polynomial.Polynomial(c)
    t = np.sort(np.concatenate([[0.0, 2.0], rng.uniform(0, 2, 5)]))
    sp = QuinticSpline(t, p(t), p.deriv(1)(t), p.deriv(2)(t))
    ts = np.linspace(0, 2, 301)
    got = np.array([sp(x) for x in ts])
    want = np.column_stack([p(ts), p.deriv(1)(ts), p.deriv(2)(ts)])
    measured.allclose("spline vs the quintic it interpolates (f, ḟ, f̈)", got, want, rtol=1e-10, atol=1e-10)
    sp2 = QuinticSpline(t, rng.normal(size=len(t)), rng.normal(size=len(t)), rng.normal(size=len(t)))
    jumps = [np.abs(np.subtract(sp2(x - 1e-9 * 0 + 0.0), sp2(x))) for x in t[1:-1]]
    left = np.array([sp2(np.nextafter(x, -np.inf)) for x in t[1:-1]])
    right = np.array([sp2(np.nextafter(x, np.inf)) for x in t[1:-1]])
    measured.allclose("spline's f, ḟ, f̈ left vs right of each knot", left, right, rtol=1e-9, atol=1e-9,
                      argued="two intervals' polynomials at one knot: each f̈ rounds by ~60 ε max|c| / h², h the "
                             "interval, ≈ 1e-10 here")
    assert not np.any(np.isnan(jumps))


def test_the_jerk_gram_matrix_is_the_exact_integral(rng, measured):
    """cᵀGc/h⁵ equals ∫ f‴² dt of the interval's quintic by 5-point Gauss–Legendre quadrature
    (exact for f‴², a quartic)."""
    G = jerk_gram()
    measured.check("G symmetric", np.abs(G - G.T), 1e-12)
    x, w = np.polynomial.legendre.leggauss(5)
    s, w = (x + 1) / 2, w / 2
    for _ in range(5):
        h = rng.uniform(0.05, 0.5)
        c = rng.normal(size=6)
        f3 = c @ quintic_basis(s, 3) / h**3
        exact = h * np.sum(w * f3**2)
        measured.allclose("cᵀGc/h⁵ vs quadrature of f‴²", c @ G @ c / h**5, exact, rtol=1e-12)


def test_bad_splines_and_caps_are_refused_by_name():
    with pytest.raises(ValueError, match="times"):
        QuinticSpline([0.0, 0.0], [0, 1], [0, 0], [0, 0])
    with pytest.raises(ValueError, match="rates"):
        QuinticSpline([0.0, 1.0], [0, 1], [0], [0, 0])
    with pytest.raises(ValueError, match="t: "):
        QuinticSpline([0.0, 1.0], [0, 1], [0, 0], [0, 0])(1.5)
    with pytest.raises(ValueError, match="caps.offset"):
        FreeControlCaps(offset=(0.6, 0.1))
    with pytest.raises(ValueError, match="caps.peak_leg_force_bw"):
        FreeControlCaps(peak_leg_force_bw=0.5)
    with pytest.raises(ValueError, match="budget"):
        optimal_control("free", 600.0, budget="net")
    with pytest.raises(ValueError, match="model"):
        optimal_control("thesis", 600.0)
    with pytest.raises(ValueError, match="control_nodes"):
        optimal_control("free", 600.0, nodes=20, control_nodes=3)


@pytest.fixture(scope="module")
def control():
    return optimal_control("free", 600.0, nodes=20, control_nodes=5, starts=0)


@pytest.mark.slow
def test_free_control_is_resimulated_and_no_slower_than_the_laws(control, measured):
    """The free-control stroke (600 W metabolic, 20 intervals, splines on 5): IPOPT solves it, the
    simulator with the splines as laws agrees in speed and power, and the stroke is at least as
    fast as the law-based optimum it started from (less its smoothness penalty)."""
    s = control
    assert s.success, (s.status, s.resimulation_error)
    measured.check("re-simulated speed and powers vs collocated", s.resimulation_error, 1e-4, "rel.")
    measured.check("budget power vs the budget", abs(s.budget_power / 600.0 - 1), 1e-9, "rel.")
    measured.exceeds("free control's speed + penalty − the law-based speed", s.gain + s.penalty + 1e-9, 0.0, "m/s")


@pytest.mark.slow
def test_free_control_is_the_same_on_every_run(control, measured):
    """Solved again (the law-based start found again, the program built before reused), free
    control takes the same iterations to the same bits: IPOPT's MUMPS runs on one BLAS thread
    (``skilib.ocp.stroke.one_blas_thread``; with a thread per core the summation order changed
    the iterates, measured at 100 intervals: 124 against 385 iterations from one start)."""
    again = optimal_control("free", 600.0, nodes=20, control_nodes=5, starts=0)
    assert again.iterations == control.iterations
    measured.check("re-run − run: speed", abs(again.progress_speed - control.progress_speed), 0.0, "m/s")
    for k in ("q", "v", "lam", "u"):
        measured.check(f"re-run − run: {k} at every point", np.abs(again.trajectory[k] - control.trajectory[k]), 0.0)


@pytest.mark.slow
def test_free_control_meets_the_touch_down_conditions(control, measured):
    """The laws' rates are zero at τ = 0, the height ends where it began (no jump of the centre of
    mass at touch-down), and in the re-simulation the energy balance closes and the touch-down
    gives u0 back: no energy enters that the budget does not count."""
    s = control
    fr = s.frame
    measured.check("rates at τ = 0 (ψ̇, ḣ, ż)", np.abs(fr.iloc[0][["heading_rate_deg_s", "offset_rate",
                                                                      "height_rate"]].to_numpy(float)), 1e-9)
    measured.check("z(T) − z(0)", abs(fr["height"].iloc[-1] - fr["height"].iloc[0]), 1e-9, "m")
    res = s.resimulated
    measured.check("re-simulated u after touch-down vs u0", abs(res["u_after"] / s.u0 - 1), 1e-4, "rel.")
    measured.check("re-simulated centre of mass's jump at touch-down", res["cm_jump"], 1e-9, "m")
    measured.check("re-simulated energy residual ΔKE − ΣW", res["energy_residual"], 1e-6, "J")
    assert res["peak_leg_force_bw"] <= s.caps.peak_leg_force_bw * (1 + 1e-3)
    assert math.isfinite(s.penalty) and s.penalty >= 0


@pytest.mark.slow
def test_caps_no_stroke_can_meet_are_reported_not_solved():
    """A leg force capped at one body weight cannot both carry the body and push it at 600 W: the
    program has no solution, and the result says so (IPOPT's status, success False), never an
    optimum."""
    s = optimal_control("free", 600.0, nodes=20, control_nodes=5, starts=0,
                        caps=FreeControlCaps(peak_leg_force_bw=1.0), ipopt={"max_iter": 30})
    assert not s.success
    assert s.status != "Solve_Succeeded"
    assert s.max_violation > 1e-6 or not s.resimulation_ok
