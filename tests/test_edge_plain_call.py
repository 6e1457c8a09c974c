"""The edged skater from a plain call: ``simulate_edge(strokes=n)`` starts from the periodic stroke
of its parameters, ``balance="designed"`` runs with a landing rule designed for it, and a start
that falls is refused, naming the parameter to change (``skilib.models.edge.run``).

Checked: stroke 1 of the plain call is ``edge_steady_state``'s stroke and its first touch-down
lands on x0 to the search's tolerance; five strokes push (F > 0) and repeat; the skater with the
designed rule, started 0.078 m/s slow, comes back, the slow mode of its deviation shrinking by
the designed multiplier at every stroke; the open-loop skater from the periodic stroke falls
where its residual, grown by |λ| per stroke, reaches an order-one deviation, and a run past
what even rounding allows is refused before integrating; bad inputs are refused by name.

Tolerances.  Every run integrates with DOP853 at rtol = atol = 1e-10 (Baumgarte, h = 0.05 s),
as ``edge_steady_state`` does, and the search stops at max|Φ(x0) − x0| ≤ tol = 1e-10.  Two
integrations of one stroke from one state agree far below the integrator's tolerance; a
deviation δ of the touch-down state grows by at most the largest |multiplier| per stroke
(|λ| = 2.05 at the defaults).  Each bound below is written from these numbers.
"""
import math

import numpy as np
import pytest

import skilib.models.edge.run as edge_run
from skilib.models.edge import EdgeSkaterParams, edge_steady_state, simulate_edge
from skilib.models.edge.run import SkaterFalls
from skilib.models.edge.skating import EdgeSkating, edge_run_options
from skilib.models.edge.steady import SOLVER_DEFAULTS, _jacobians, _STEPS, edge_stroke_map

#: a coarser output grid than the default (the runs' cost is mostly tabulation); the periodic
#: stroke is searched with the same keywords, so that it is the runs' stroke
SOLVER = dict(dt_out=0.05)
RTOL = SOLVER_DEFAULTS["rtol"]
SEARCH_TOL = 1e-10  # edge_steady_state's default tol: max|Φ(x0) − x0| at the fixed point
#: the row columns compared between strokes (speed, power, the leg's least force, the work–energy
#: residual is compared apart: it is ~1e-11 J, so relative to nothing)
ROW = ("mean_speed", "progress_speed", "mean_power", "mean_leg_power", "min_leg_force", "min_snow_load")

NONLINEAR = ("not a rounding tolerance: the linearised map's error over one stroke is second order in the "
             "deviation, measured 0.03–0.16 |δ|² along this run, so a mode's ratio may be off by "
             "≈ 0.13 |δ|²/|c| = 0.013 at |δ| = 0.078, |c| = 0.066 (the slow mode's coordinate); 0.02 bounds that")
FALL = ("not a tolerance: the order of magnitude of a deviation at which the skater falls (the linearised map's "
        "prediction δ2 |λ|^(k−2) at the stroke the run fell in; 1 is where the snow gave way at the defaults)")


@pytest.fixture(scope="module")
def steady():
    """The periodic stroke, searched here on its own (not through simulate_edge's)."""
    return edge_steady_state(**SOLVER)


@pytest.fixture(scope="module")
def plain():
    return simulate_edge(strokes=5, **SOLVER)


@pytest.fixture(scope="module")
def designed():
    return simulate_edge(strokes=5, v0=3.6, balance="designed", **SOLVER)


def _touchdown_states(res):
    """x = (u, φ̇, z_B, d) at τ = 0 of every stroke of a run (``EdgeSkating.state_of``)."""
    out = []
    for k, model in enumerate(res.models, start=1):
        rows = res.frame[res.frame["stroke"] == k]
        n = model.nq
        q = rows[[f"q{j}" for j in range(n)]].to_numpy(float)[0]
        qd = rows[[f"qd{j}" for j in range(n)]].to_numpy(float)[0]
        out.append(EdgeSkating.state_of(model, q, qd))
    return np.array(out)


@pytest.mark.cross_path
def test_stroke_one_of_the_plain_call_is_the_periodic_stroke(plain, steady, measured):
    """``simulate_edge(strokes=5)`` starts at x0 (to rounding) and its stroke 1 is the steady
    state's: speed, power, the leg's least force and the work–energy residual as the steady
    state's row, to 1e-9 relative (10 × the integrator's rtol: the same integration from the same
    state along two code paths, the run and the search's tabulation) and 1e-9 J; the touch-down
    that ends it lands on x0 to the search's tolerance 1e-10 (it is Φ(x0))."""
    x = _touchdown_states(plain)
    x0 = steady.x0
    assert plain.info["start"] == "periodic" and plain.info["balance"] == "fixed"
    measured.allclose("plain call: start state vs x0", x[0], x0, atol=1e-12,
                      unit="m/s, rad/s, m")
    row, ref = plain.strokes.iloc[0], steady.strokes.iloc[0]
    for col in ROW:
        measured.allclose(f"stroke 1 vs the periodic stroke: {col}", row[col], ref[col], rtol=10 * RTOL)
    measured.allclose("stroke 1 vs the periodic stroke: energy_residual", row["energy_residual"],
                      ref["energy_residual"], atol=1e-9, unit="J")
    measured.check("stroke 1's touch-down: max|x2 − x0|", np.abs(x[1] - x0).max(), SEARCH_TOL, "m/s, rad/s, m")


def test_five_plain_strokes_push_and_repeat(plain, steady, measured):
    """Five strokes from the periodic stroke: the leg pushes in every one (its least force
    > 0.5 body weights, on the output grid) and the snow carries; stroke 5 repeats stroke 1.
    The deviation of stroke k's touch-down state from x0 is at most
    (tol + e)(1 + |λ| + … + |λ|^(k−2)), tol = 1e-10 the search's residual bound, e = 10 rtol
    max|x0| a stroke's integration against the search's, |λ| the largest multiplier (6e-8 at
    stroke 5).  Stroke 5's row repeats stroke 1's to 1e-6 relative: a row is a smooth function of
    its stroke's start, moving by less than 10 relative per unit of deviation (the least leg force,
    the most sensitive, by 2.7: 12 % for 0.046 along the open-loop run), so 10 × 6e-8 = 6e-7."""
    st = plain.strokes
    W = steady.params.weight
    measured.exceeds("plain call: least leg force over 5 strokes", st["min_leg_force"].min() / W, 0.5, "body weights")
    measured.exceeds("plain call: least snow load over 5 strokes", st["min_snow_load"].min(), 0.0, "N")
    lam = float(np.max(np.abs(steady.multipliers)))
    e = 10 * RTOL * float(np.max(np.abs(steady.x0)))
    x = _touchdown_states(plain)
    for k in range(2, 6):
        bound = (SEARCH_TOL + e) * sum(lam ** j for j in range(k - 1))
        measured.check("plain call: max|x_k − x0| vs (tol + e) Σ|λ|^j", np.abs(x[k - 1] - steady.x0).max(), bound,
                       "m/s, rad/s, m", where=f"stroke {k}")
    for col in ROW:
        measured.allclose(f"stroke 5 vs stroke 1: {col}", st[col].iloc[4], st[col].iloc[0], rtol=1e-6)
    measured.check("plain call: |energy residual|", np.abs(st["energy_residual"]).max(), 1e-8, "J")


def test_the_designed_rule_brings_a_slow_start_back(designed, measured):
    """``simulate_edge(strokes=5, v0=3.6, balance="designed")``: the periodic posture at 3.6 m/s,
    0.078 m/s slow.  Every stroke pushes (least leg force > 0.5 body weights) and the rule's
    offsets stay within 0–0.6 m; the touch-down state's distance to x0 falls at every stroke.
    In the modes of the closed-loop stroke map (its Jacobian measured here by central differences
    of the map with the run's rule, not the design's algebra) the slow one, the speed's own
    relaxation kept by the design at 0.961, shrinks by that multiplier at every stroke (0.02,
    argued: the linearisation's error), and the fast ones (0.3, 0.2, 0) are gone after two strokes
    (below a tenth of their start)."""
    info = designed.info
    assert info["start"] == "periodic posture" and info["balance"] == "designed"
    x0, rule = np.asarray(info["x0"]), info["balance_rule"]
    poles = np.asarray(info["poles"])
    measured.allclose("designed rule: measured multipliers vs its poles",
                      np.sort(np.real(info["balanced_multipliers"])), np.sort(poles.real), atol=1e-5)
    st = designed.strokes
    measured.exceeds("designed rule from 3.6 m/s: least leg force", st["min_leg_force"].min() / designed.params.weight,
                     0.5, "body weights")
    offsets = designed.changes["landing_offset"].to_numpy()
    assert np.all((offsets > 0.0) & (offsets < 0.6)), offsets
    x = _touchdown_states(designed)
    D = x - x0
    dev = np.abs(D).max(axis=1)
    measured.allclose("designed rule: the start's speed", D[0, 0], 3.6 - x0[0], atol=1e-12, unit="m/s")
    assert np.all(np.diff(dev) < 0), dev  # closer at every touch-down

    o = edge_run_options(designed.params, strokes=1, v0=float(x0[0]), balance=rule,
                         **{**SOLVER_DEFAULTS, **SOLVER, "reach": False})
    A = _jacobians(edge_stroke_map(EdgeSkating(o)), x0, _STEPS)[0]
    w, V = np.linalg.eig(A)
    modes = np.linalg.solve(V, D.T).T  # the deviation's coordinates along the closed loop's eigenvectors
    slow = int(np.argmax(np.abs(w)))
    rho = float(np.max(np.abs(poles)))
    measured.allclose("closed loop: its slowest multiplier vs the designed one", abs(w[slow]), rho, atol=1e-5)
    ratios = np.abs(modes[1:, slow] / modes[:-1, slow])
    measured.allclose("slow mode: its shrink per stroke vs the designed multiplier", ratios, rho, atol=0.02,
                      argued=NONLINEAR)
    fast = np.delete(np.arange(4), slow)
    left = np.abs(modes[2, fast]).max() / np.abs(modes[0, fast]).max()
    measured.check("fast modes after two strokes / at the start", left, 0.1,
                   argued="not a tolerance: 0.3² = 0.09 is what the slowest fast mode leaves after two strokes; the "
                          "slow mode's square feeds them ≈ 0.13 |δ|² ≈ 8e-4, against the 0.34 they start at")


def test_the_designed_rule_holds_the_periodic_stroke(measured):
    """With the rule and the periodic start the rule changes nothing: every landing offset is d*
    to 1e-8 m (the gains, ≈ 1 s or less, times the touch-down measure's deviation, which is the
    residual ≈ 1e-12 grown by the closed loop's multipliers < 1)."""
    res = simulate_edge(strokes=3, balance="designed", **SOLVER)
    rule = res.info["balance_rule"]
    measured.allclose("designed rule at the periodic stroke: d0 vs d*", res.changes["landing_offset"], rule.offset,
                      atol=1e-8, unit="m")


def test_the_open_loop_skater_falls_where_its_residual_has_grown(steady, measured):
    """From the periodic stroke with a fixed offset, 45 strokes: the run is refused with a
    ``SkaterFalls`` naming ``strokes`` at the stroke where the skater gives way, and that is where
    the residual δ2 = max|Φ(x0) − x0|, grown by |λ| per stroke, has reached an order-one deviation:
    0.1 < δ2 |λ|^(k−2) < 10 (argued: the order of a fall, not a tolerance)."""
    with pytest.raises(SkaterFalls, match=r"^strokes: the skater falls at stroke \d+ \(t = ") as info:
        simulate_edge(strokes=45, **SOLVER)
    fall = info.value
    assert fall.parameter == "strokes" and "balance='designed'" in str(fall)
    T = steady.params.stroke_time
    assert (fall.stroke - 1) * T <= fall.t <= fall.stroke * T
    lam = float(np.max(np.abs(steady.multipliers)))
    grown = float(np.max(np.abs(steady.residual))) * lam ** (fall.stroke - 2)
    measured.exceeds("open loop: δ2 |λ|^(k−2) at the fall", grown, 0.1)
    measured.check("open loop: δ2 |λ|^(k−2) at the fall", grown, 10.0, argued=FALL)


def test_a_fall_is_refused_by_name_before_or_while_running(monkeypatch):
    """A run from the periodic stroke longer than even the rounding of the start allows the
    open-loop skater is refused before integrating, naming ``strokes``; a designed run from a
    start the rule cannot bring back falls and is refused naming ``v0``."""
    def no_integration(*args, **kwargs):
        raise AssertionError("integrated a run that should have been refused")

    with monkeypatch.context() as m:
        m.setattr(edge_run, "run_strokes", no_integration)
        with pytest.raises(ValueError, match=r"^strokes: 200 strokes from the periodic stroke .* at most \d+ strokes, "
                                             r"or give balance='designed'"):
            simulate_edge(strokes=200, **SOLVER)
    with pytest.raises(SkaterFalls, match=r"^v0: the skater falls at stroke \d .* start nearer 3\.67\d m/s") as info:
        simulate_edge(strokes=5, v0=2.5, balance="designed", **SOLVER)
    assert info.value.parameter == "v0"


@pytest.mark.parametrize("v0", [0.0, -1.0, float("nan"), float("inf"), -float("inf"), 40.0, 15.01, None, "fast", True])
def test_a_bad_v0_is_refused_before_anything_runs(v0, monkeypatch):
    """v0 ≤ 0, NaN, ±inf, beyond 15 m/s, or not a number: a ValueError naming v0, with or without
    the designed rule, before any search or integration."""
    def nothing(*args, **kwargs):
        raise AssertionError("searched or integrated for a refused v0")

    monkeypatch.setattr(edge_run, "_periodic", nothing)
    monkeypatch.setattr(edge_run, "run_strokes", nothing)
    for balance in (None, "designed"):
        with pytest.raises(ValueError, match="^v0: "):
            simulate_edge(strokes=5, v0=v0, balance=balance)


def test_the_other_inputs_of_the_plain_call_are_refused_by_name(monkeypatch):
    """On the paths from the periodic stroke the lean rate is the periodic stroke's (another is a
    ValueError naming lean_rate), and strokes, balance and the solver keywords are checked before
    the periodic stroke is searched."""
    def nothing(*args, **kwargs):
        raise AssertionError("searched for the periodic stroke before refusing")

    monkeypatch.setattr(edge_run, "_periodic", nothing)
    with pytest.raises(ValueError, match="^lean_rate: the run starts from the periodic stroke's posture"):
        simulate_edge(strokes=5, lean_rate=0.3)
    with pytest.raises(ValueError, match="^lean_rate: "):
        simulate_edge(strokes=5, v0=3.6, lean_rate=-0.3, balance="designed")
    with pytest.raises(ValueError, match="^balance: must be None .* or 'designed'"):
        simulate_edge(strokes=5, balance="hof")
    with pytest.raises(ValueError, match="^strokes: "):
        simulate_edge(strokes=0)
    with pytest.raises(ValueError, match="^strokes: "):
        simulate_edge(strokes=2.5, balance="designed")
    with pytest.raises(ValueError, match="^first_ski: "):
        simulate_edge(strokes=2, first_ski="middle")
    with pytest.raises(ValueError, match="^rtol: "):
        simulate_edge(strokes=2, rtol=math.nan)


def test_parameters_without_a_periodic_stroke_are_named(monkeypatch):
    """Where the search finds no periodic stroke the plain call says so, naming v0 (omitted) and
    what to give instead; the designed rule names balance."""
    from skilib.strokes.periodic import NoSteadyState

    def none_found(params, solver, designed):
        raise NoSteadyState("edge_steady_state: no periodic stroke within 30 stroke maps")

    monkeypatch.setattr(edge_run, "_periodic_cached", none_found)
    p = EdgeSkaterParams(friction_coefficient=0.05)
    with pytest.raises(NoSteadyState, match=r"^v0: omitted, .* give v0 \(and lean_rate\) to start elsewhere"):
        simulate_edge(p, strokes=2)
    with pytest.raises(NoSteadyState, match=r"^balance: 'designed' designs a landing rule .* there is none"):
        simulate_edge(p, strokes=2, v0=3.6, balance="designed")
