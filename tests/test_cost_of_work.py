"""The cost of work (``skilib.strokes.work``): the positive and negative works of the free and the
edged skater's drivers, integrated with the stroke, and the metabolic power and gross efficiency
made from them with the muscles' efficiencies η⁺ (positive work) and η⁻ (negative work)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import simpson

import skilib as sk
from skilib.models.edge.model import EDGE_ACTUATORS
from skilib.models.edge.params import EdgeSkaterParams
from skilib.models.edge.run import simulate_edge
from skilib.models.free.model import FREE_ACTUATORS

KINK = ("Simpson's rule on a kink of max(P, 0) (where P changes sign) is of second order: |ΔṖ| h²/12 per kink"
        " with h = 1 ms, two kinks on the free skater's leg (docstring); the error is the quadrature's, the "
        'same on every processor (Prescott: unchanged)')

#: the edged skater's periodic stroke at the defaults (``edge_steady_state``'s x0, to 1e-6)
EDGE_START = dict(v0=3.678458134661384, lean_rate=-0.343557)
EDGE_PARAMS = dict(cm_height=0.83406795)


def _edge(dt_out=0.01, **over):
    return simulate_edge(EdgeSkaterParams(**EDGE_PARAMS, **over), strokes=1, dt_out=dt_out, **EDGE_START)


def _free(dt_out=0.01, **over):
    return sk.simulate_free(sk.FreeSkaterParams(**over), strokes=1, v0=2.05, dt_out=dt_out)


@pytest.fixture(scope="module")
def edge():
    return _edge(dt_out=0.001)


@pytest.fixture(scope="module")
def free():
    return _free(dt_out=0.001)


def _models(edge, free):
    return (("edged skater", edge, EDGE_ACTUATORS), ("free skater", free, FREE_ACTUATORS))


def test_positive_and_negative_work_add_up_to_the_net_work(edge, free, measured):
    """Per driver and stroke, W⁺ + W⁻ is the driver's net work W (integrated as its own state) to
    1e-9 J, with W⁺ ≥ 0 ≥ W⁻; the totals work_positive, work_negative are their sums."""
    for who, res, actuators in _models(edge, free):
        s = res.strokes.iloc[0]
        for a in actuators:
            measured.check(f"W⁺ + W⁻ − W, {who}", abs(s[f"{a}_positive"] + s[f"{a}_negative"] - s[a]), 1e-9, "J",
                           where=a)
            assert s[f"{a}_positive"] >= 0.0 >= s[f"{a}_negative"], (who, a)
        measured.allclose(f"work_positive = ΣW⁺, {who}", s["work_positive"],
                          sum(s[f"{a}_positive"] for a in actuators), atol=1e-12, unit="J")
        measured.allclose(f"work_negative = ΣW⁻, {who}", s["work_negative"],
                          sum(s[f"{a}_negative"] for a in actuators), atol=1e-12, unit="J")
    # the free skater's leg does both: it lowers the centre of mass (negative) and pushes (positive)
    s = free.strokes.iloc[0]
    measured.exceeds("free skater's leg: −W⁻", -s["work_leg_negative"], 1.0, "J")


def test_a_leg_that_only_pushes_and_extends_does_no_negative_work(edge, measured):
    """The edged skater's leg at its periodic stroke: the force pushes (F > 0) and the leg only
    lengthens (ℓ = ℓ0 + Δℓ σ(τ/T), Δℓ > 0, σ monotone), so its power F ℓ̇ never falls below zero:
    W⁻ = 0 (to 1e-12 J) and W⁺ = W (to 1e-9 J)."""
    fr, s = edge.frame, edge.strokes.iloc[0]
    assert fr["leg_force"].min() > 0.0 and edge.params.leg_extension > 0.0
    assert np.all(np.diff(fr["leg_length"].to_numpy()) >= -1e-12)
    measured.check("edged skater's leg: |W⁻|", abs(s["work_leg_negative"]), 1e-12, "J")
    measured.check("edged skater's leg: |W⁺ − W|", abs(s["work_leg_positive"] - s["work_leg"]), 1e-9, "J")
    measured.exceeds("edged skater's leg: W⁺", s["work_leg_positive"], 10.0, "J")


def test_positive_work_against_simpsons_rule(edge, free, measured):
    """W⁺ and W⁻ of the state against Simpson's rule on the output grid (dt_out = 1 ms) of
    max(P, 0) and min(P, 0) of the frame's power column.  Where P keeps its sign the quadrature is
    of fourth order (≈ 1e-9 J); where it changes sign (the free skater's leg, twice) max(P, 0) has
    a kink, on which Simpson's rule is of second order, ≈ |ΔṖ| h²/12 per kink: 1e-5 J bounds it."""
    cases = (("edged skater", edge, ("leg", "heading")), ("free skater", free, ("leg",)))
    for who, res, names in cases:
        fr, s = res.frame, res.strokes.iloc[0]
        t = fr["tau"].to_numpy()
        for a in names:
            P = fr[f"{a}_power"].to_numpy()
            measured.check(f"W⁺ vs Simpson of max(P, 0), {who}",
                           abs(simpson(np.maximum(P, 0.0), x=t) - s[f"work_{a}_positive"]), 1e-5, "J", where=a, argued=KINK)
            measured.check(f"W⁻ vs Simpson of min(P, 0), {who}",
                           abs(simpson(np.minimum(P, 0.0), x=t) - s[f"work_{a}_negative"]), 1e-5, "J", where=a, argued=KINK)
    # the cumulative W⁺ of the frame ends at the stroke's W⁺ and never decreases
    for who, res, actuators in _models(edge, free):
        fr, s = res.frame, res.strokes.iloc[0]
        for a in actuators:
            measured.check(f"frame's W⁺ at τ = T vs the stroke's, {who}",
                           abs(fr[f"{a}_positive"].iloc[-1] - s[f"{a}_positive"]), 1e-12, "J", where=a)
            assert np.all(np.diff(fr[f"{a}_positive"].to_numpy()) >= -1e-12), (who, a)
            assert np.all(np.diff(fr[f"{a}_negative"].to_numpy()) <= 1e-12), (who, a)


def test_metabolic_power_and_gross_efficiency_from_the_columns(edge, free, measured):
    """metabolic_power = Σ(W⁺/η⁺ + |W⁻|/η⁻)/T recomputed from the columns (η⁺ = 0.25, η⁻ = 1.2),
    mean_positive_power = ΣW⁺/T and gross_efficiency = (ΣW⁺ + ΣW⁻)/(P_met T), to 1e-12 relative."""
    for who, res, actuators in _models(edge, free):
        s, p = res.strokes.iloc[0], res.params
        T = p.stroke_time
        assert (p.eta_positive, p.eta_negative) == (0.25, 1.2)
        met = sum(s[f"{a}_positive"] / 0.25 + abs(s[f"{a}_negative"]) / 1.2 for a in actuators) / T
        measured.allclose(f"metabolic_power, {who}", s["metabolic_power"], met, rtol=1e-12)
        measured.allclose(f"mean_positive_power, {who}", s["mean_positive_power"], s["work_positive"] / T, rtol=1e-12)
        measured.allclose(f"gross_efficiency, {who}", s["gross_efficiency"],
                          (s["work_positive"] + s["work_negative"]) / (met * T), rtol=1e-12)
        # a muscle that only did positive work would be η⁺ efficient; negative work lowers it
        assert s["gross_efficiency"] <= 0.25 + 1e-12


def test_unit_efficiencies_and_the_motion(measured):
    """With η⁺ = η⁻ = 1 the metabolic power is Σ(W⁺ + |W⁻|)/T: for the edged skater, whose drivers
    do no negative work (|ΣW⁻| ≤ 1e-9 J), it is mean_positive_power; the efficiencies change no
    motion: every other column of the stroke is the defaults' bit for bit."""
    base, unit = _edge(), _edge(eta_positive=1.0, eta_negative=1.0)
    s, T = unit.strokes.iloc[0], unit.params.stroke_time
    assert abs(s["work_negative"]) <= 1e-9
    measured.allclose("η = 1: metabolic_power vs mean_positive_power, edged skater", s["metabolic_power"],
                      s["mean_positive_power"], atol=1e-9, unit="W",
                      argued="they differ by |W⁻|/T, the negative part of a rate that is ≥ 0 in exact arithmetic: "
                             "its split picks up only the integrator's error near zero rate, ~ steps × atol")
    measured.allclose("η = 1: metabolic_power vs Σ(W⁺ + |W⁻|)/T, edged skater", s["metabolic_power"],
                      (s["work_positive"] - s["work_negative"]) / T, rtol=1e-12)
    f = _free(eta_positive=1.0, eta_negative=1.0).strokes.iloc[0]
    measured.allclose("η = 1: metabolic_power vs Σ(W⁺ + |W⁻|)/T, free skater", f["metabolic_power"],
                      (f["work_positive"] - f["work_negative"]) / T, rtol=1e-12)
    b = base.strokes.iloc[0]
    # the costs priced by η (the work's, and the whole cost that holds it) may change; nothing else
    same = [c for c in b.index if c not in ("metabolic_power", "gross_efficiency", "metabolic_work", "metabolic_total",
                                             "gross_efficiency_total")]
    differ = [c for c in same if not (b[c] == s[c] or (b[c] != b[c] and s[c] != s[c]))]
    measured.check("columns that the efficiencies change (other than the cost's)", len(differ), 0, "columns")
    # and the default efficiencies cost 1/η⁺ = 4 times the positive work where there is no negative one
    measured.allclose("η⁺ = 0.25: metabolic_power vs 4 mean_positive_power, edged skater", b["metabolic_power"],
                      4.0 * b["mean_positive_power"], atol=1e-8, unit="W")


def test_free_steady_state_exposes_the_cost(measured):
    """``free_steady_state``'s metabolic_power, mean_positive_power and gross_efficiency are its
    periodic stroke's columns, and mean_power (the leg's net) is W_leg/T ≤ mean_positive_power."""
    ss = sk.free_steady_state()
    s = ss.strokes.iloc[0]
    for name in ("metabolic_power", "mean_positive_power", "gross_efficiency"):
        measured.allclose(f"free_steady_state.{name}", getattr(ss, name), s[name], atol=1e-15)
    measured.allclose("mean_power = W_leg / T", ss.mean_power, s["work_leg"] / ss.strokes.shape[0] / 0.8,
                      rtol=1e-12)
    assert ss.mean_power <= ss.mean_positive_power <= ss.metabolic_power
    assert isinstance(sk.EdgeSteadyState.metabolic_power, property)
    assert isinstance(sk.EdgeSteadyState.mean_positive_power, property)
    assert isinstance(sk.EdgeSteadyState.gross_efficiency, property)


# -- the split of a DOP853 step, from its interpolant's coefficients ---------------------------

def _coefficients_to_F(coef):
    """The DOP853 dense-output coefficients F (7,) whose interpolant P(x) (y_old = 0) has the
    monomial coefficients ``coef`` (degree 1..7): B's rows 1..7 are a basis (solved, not fitted)."""
    from skilib.engine.integrators import _DOP853_BASIS

    return np.linalg.solve(_DOP853_BASIS[:, 1:].T, np.asarray(coef, dtype=float))


def test_the_dop853_basis_is_scipys_interpolant(measured):
    """B (``_DOP853_BASIS``): F @ B is SciPy's ``Dop853DenseOutput`` as a polynomial in x: at 101
    points of a step with random F (seeded) the two agree to 1e-14 (rounding of a degree-7
    polynomial with O(1) coefficients)."""
    from scipy.integrate._ivp.rk import Dop853DenseOutput

    from skilib.engine.integrators import _DOP853_BASIS

    rng = np.random.default_rng(7)
    F = rng.normal(size=(7, 1))
    d = Dop853DenseOutput(0.0, 1.0, np.array([0.3]), F)
    x = np.linspace(0.0, 1.0, 101)
    mine = np.polynomial.polynomial.polyval(x, F[:, 0] @ _DOP853_BASIS) + 0.3
    measured.check("F @ B vs Dop853DenseOutput", np.abs(mine - d(x)[0]), 1e-14, "J")


def test_the_batched_split_is_the_closed_form(measured):
    """A step whose work is w(x) = 2 + ∫₀ˣ 12(s − 0.2)(s − 0.5)(s − 0.9) ds (a rate that changes sign
    three times): ``split_dop853_steps`` puts its breaks at 0.2, 0.5 and 0.9 (the companion
    matrix's eigenvalues, to 1e-13) and W⁺ = [w(0.5) − w(0.2)] + [w(1) − w(0.9)], W⁻ the other two
    pieces, by hand from the antiderivative, to 1e-14 J; a second step, w = 1 + x − x², whose rate changes sign once
    (a derivative of lower degree: its own batch), and a third with no work at all, are split in
    the same call."""
    from skilib.engine.integrators import split_dop853_steps

    a, b, c = 0.2, 0.5, 0.9
    # 12(s−a)(s−b)(s−c) = 12 s³ − 12(a+b+c) s² + 12(ab+bc+ca) s − 12abc, integrated
    cubic = [-12 * a * b * c, 6 * (a * b + b * c + c * a), -4 * (a + b + c), 3.0, 0.0, 0.0, 0.0]

    def w(x):
        return 2.0 + np.polynomial.polynomial.polyval(x, [0.0] + cubic)

    F = np.array([_coefficients_to_F(cubic), _coefficients_to_F([1.0, -1.0, 0, 0, 0, 0, 0]), np.zeros(7)])
    coef, breaks, wp, wn = split_dop853_steps(np.array([2.0, 1.0, 0.0]), F)
    measured.check("breaks at the rate's zeros 0.2, 0.5, 0.9", np.abs(breaks[0] - [0, a, b, c, 1]), 1e-13)
    measured.check("breaks of w = 1 + x − x² at 0.5", np.abs(breaks[1] - [0, 0.5, 1]), 1e-15)
    assert len(breaks[2]) == 2 and wp[2] == wn[2] == 0.0
    # w′ < 0 on (0, a) and (b, c), > 0 on (a, b) and (c, 1)
    up = (w(b) - w(a)) + (w(1.0) - w(c))
    down = (w(a) - w(0.0)) + (w(c) - w(b))
    measured.check("W⁺ vs the antiderivative by hand", abs(wp[0] - up), 1e-14, "J")
    measured.check("W⁻ vs the antiderivative by hand", abs(wn[0] - down), 1e-14, "J")
    measured.check("W⁺, W⁻ of 1 + x − x²", np.abs([wp[1] - 0.25, wn[1] + 0.25]), 1e-15, "J")


def test_the_batched_split_is_the_sampled_one(measured):
    """``split_dop853_steps`` (the exact coefficients of 200 random steps, seeded, whose rates
    change sign) against ``split_signed_step`` (the same interpolants sampled at nine
    Chebyshev–Lobatto points and fitted, one step at a time, as every run split them before):
    the same W⁺ and W⁻ to 1e-12 J with |w| ~ 1 (the fit's conditioning, degree 8 on [0, 1]:
    ~1e-13 measured), the same number of breaks."""
    from scipy.integrate._ivp.rk import Dop853DenseOutput

    from skilib.engine.integrators import split_dop853_steps, split_signed_step

    rng = np.random.default_rng(11)
    F, w0 = rng.normal(size=(200, 7)), rng.normal(size=200)
    _, breaks, wp, wn = split_dop853_steps(w0, F)
    errs, same = [], 0
    for k in range(200):
        d = Dop853DenseOutput(0.0, 1.0, w0[k: k + 1], F[k][:, None])
        _, b_ref, p_ref, n_ref = split_signed_step(lambda tau: d(tau)[0], 0.0, 1.0, w0[k], float(d(1.0)[0]))
        errs += [wp[k] - p_ref, wn[k] - n_ref]
        same += len(b_ref) == len(breaks[k])
    assert same == 200
    assert sum(len(b) > 2 for b in breaks) > 100  # most steps are split
    measured.check("batched vs sampled split, W⁺ and W⁻", np.abs(errs), 1e-12, "J")
