"""The stroke machinery every skating model shares (``skilib.strokes``), checked against closed
forms on its smallest model, the sliding block (``skilib.strokes.examples``), and the laws of a
stroke against their definitions and finite differences."""
import math

import numpy as np
import pandas as pd
import pytest

from skilib.engine.timefunctions import FromCallables, Polynomial
from skilib.strokes import laws
from skilib.strokes.examples import BlockParams, BlockSkating, block_settings
from skilib.strokes.periodic import NoSteadyState, periodic_stroke
from skilib.strokes.run import run_strokes


# -- the laws of a stroke ------------------------------------------------------------------------
def _central(law, t, h=1e-6):
    """(ḟ, f̈) by central differences of the law's value and of its rate."""
    f = lambda s: law(s)[0]  # noqa: E731
    fd = lambda s: law(s)[1]  # noqa: E731
    return (f(t + h) - f(t - h)) / (2 * h), (fd(t + h) - fd(t - h)) / (2 * h)


LAWS = {
    "smooth_turn": laws.smooth_turn(-0.35, 0.17, 0.8),
    "power_law p=2": laws.power_law(0.05, 0.35, 0.8, 2.0),
    "power_law p=1.5": laws.power_law(0.05, 0.35, 0.8, 1.5),
    "dip": laws.dip(0.95, 0.08, 0.8),
    "linear": laws.linear(0.5, 0.25),
    "mirrored smooth_turn": laws.mirrored(laws.smooth_turn(-0.35, 0.17, 0.8), -1.0),
    "mirrored callable": laws.mirrored(laws.power_law(0.05, 0.35, 0.8, 1.5), -1.0),
}


def test_every_law_carries_its_two_derivatives(measured):
    """Each law's ḟ and f̈ equal central differences (step 1e-6) of its f and ḟ."""
    for name, law in sorted(LAWS.items()):
        d1, d2, f1, f2 = [], [], [], []
        for t in (0.13, 0.4, 0.71):
            a, b = _central(law, t)
            _, fd, fdd = law(t)
            d1.append(a), d2.append(b), f1.append(fd), f2.append(fdd)
        measured.allclose("law rate vs central difference", f1, d1, atol=1e-7, where=name)
        measured.allclose("law second rate vs central difference", f2, d2, atol=1e-6, where=name)


def test_the_laws_meet_their_definitions(measured):
    """smooth_turn is start + change σ(τ/T) at rest at both ends; dip and power_law meet their
    formulas; the laws that can be are polynomials (traced by code generation)."""
    T = 0.8
    turn = laws.smooth_turn(-0.35, 0.17, T)
    assert isinstance(turn, Polynomial)  # traced by code generation
    xs = np.array([0.0, 0.3, 0.5, 1.0])  # start + change σ(x), σ = 10x³ − 15x⁴ + 6x⁵
    measured.allclose("smooth_turn vs start + change σ(τ/T)", [turn(x * T)[0] for x in xs],
                      -0.35 + 0.17 * (10 * xs**3 - 15 * xs**4 + 6 * xs**5), atol=1e-15, unit="rad",
                      argued="a polynomial or sine of a few operations on values ≤ 1 against its formula: a few ulp, 1e-15 ≈ 4.5 u")
    measured.check("smooth_turn's rates at τ = 0 and T", [turn(t)[k] for t in (0.0, T) for k in (1, 2)], 1e-12,
                   "rad/s, rad/s²")
    dip = laws.dip(0.95, 0.08, T)
    measured.allclose("dip vs mean − depth sin²(πτ/T)", [dip(t)[0] for t in (0.0, 0.3, T / 2)],
                      [0.95 - 0.08 * math.sin(math.pi * t / T) ** 2 for t in (0.0, 0.3, T / 2)], atol=1e-15, unit="m",
                      argued="a polynomial or sine of a few operations on values ≤ 1 against its formula: a few ulp, 1e-15 ≈ 4.5 u")
    for p in (0.0, 1.0, 2.0, 3.0, 1.5):
        law = laws.power_law(0.05, 0.35, T, p)
        measured.allclose("power_law vs start + (end − start)(τ/T)^p", [law(0.3)[0], law(T)[0]],
                          [0.05 + 0.3 * (0.3 / T) ** p if p else 0.35, 0.35], atol=1e-15, unit="m", where=f"p = {p}")
    assert isinstance(laws.power_law(0.0, 1.0, T, 2.0), Polynomial)
    assert isinstance(laws.power_law(0.0, 1.0, T, 1.5), FromCallables)


def test_mirroring_and_sides():
    """A left stroke's lateral law is the right one's times −1, exactly; sides alternate."""
    law = laws.power_law(0.05, 0.35, 0.8, 1.5)
    m = laws.mirrored(law, laws.side_sign("left"))
    for t in (0.1, 0.5):
        assert m(t) == tuple(-v for v in law(t))
    assert laws.mirrored(law, laws.side_sign("right")) is law
    assert [laws.side_of("left", k) for k in range(4)] == ["left", "right", "left", "right"]


# -- the sliding block: runs and the periodic stroke against closed forms -----------------------
P = BlockParams()


def _closed_form(t):
    """v(t), x(t) from rest: v* tanh(t k v*/m), (m/k) ln cosh(t k v*/m)."""
    vs, k, m = P.terminal_speed, P.k, P.mass
    return vs * math.tanh(t * k * vs / m), m / k * math.log(math.cosh(t * k * vs / m))


def test_a_run_of_alternating_strokes_follows_the_closed_form(measured):
    """Three strokes of the block from rest through the shared loop: speed and position against
    v* tanh(t k v*/m) and (m/k) ln cosh(t k v*/m); the shared summary's progress speed and mean
    power against ΔX/T and F ΔX/T; ΔKE = ΣW per stroke."""
    skating = BlockSkating(P)
    tables = run_strokes(skating, block_settings(P), strokes=3, v0=0.0)
    frame = tables.frame()
    st = pd.DataFrame(tables.strokes)
    assert st["side"].tolist() == ["right", "left", "right"]
    assert frame["stroke"].unique().tolist() == [1, 2, 3]
    v, x = (np.array(c) for c in zip(*(_closed_form(t) for t in frame["t"])))
    # rest: the first instant decides the mode; v(0) = 0 with F > μmg slides forwards
    measured.allclose("speed vs v* tanh(t k v*/m)", frame["cm_vx"], v, atol=1e-9, unit="m/s")
    measured.allclose("position vs (m/k) ln cosh(t k v*/m)", frame["cm_x"], x, atol=1e-9, unit="m")
    # the shared summary: progress speed ΔX/T, mean power ∫F·v/T = F ΔX/T, ΔKE = ΣW
    T = P.stroke_time
    for k, row in st.iterrows():
        x0, x1 = _closed_form(k * T)[1], _closed_form((k + 1) * T)[1]
        where = f"stroke {k + 1}"
        measured.allclose("progress speed vs ΔX/T", row["progress_speed"], (x1 - x0) / T, atol=1e-9, unit="m/s",
                          where=where)
        measured.allclose("mean power vs F ΔX/T", row["mean_power"], P.push * (x1 - x0) / T, atol=1e-7, unit="W",
                          where=where)
        measured.check("ΔKE − ΣW", row["energy_residual"], 1e-8, "J", where=where)
        measured.check("work of the held rows", row["work_rows"], 1e-9, "J", where=where)


def test_the_periodic_stroke_starts_at_the_terminal_speed(measured):
    """The fixed point of the block's stroke map is the terminal speed v* = √((F − μmg)/k)."""
    skating = BlockSkating(P)
    found = periodic_stroke(skating, block_settings(P), u_guess=1.0, tol=1e-10, max_iter=30, max_speed=30.0,
                            who="block")
    measured.check("|Φ(u0) − u0|", found.residual, 1e-10, "m/s",
                   argued="the search stops once |Φ(u) − u| ≤ tol = 1e-10: the residual is the stopping test's")
    measured.allclose("u0 vs v*", found.u0, P.terminal_speed, atol=1e-8, unit="m/s")
    row = found.tables.strokes[0]
    measured.allclose("periodic stroke's progress speed vs v*", row["progress_speed"], P.terminal_speed, atol=1e-8,
                      unit="m/s")
    # every stroke-map evaluation is recorded, the last one at the fixed point
    assert len(found.history) == found.iterations and abs(found.history[-1][1] - found.history[-1][0]) <= 1e-10


def _block_map(u):
    """The block's stroke map in closed form, Φ(u) = v(T) from v(0) = u > 0: m v̇ = F − μmg − k v²
    gives v = v* tanh(atanh(u/v*) + t k v*/m) below v* and v* coth(acoth(u/v*) + t k v*/m) above."""
    vs, k, m, T = P.terminal_speed, P.k, P.mass, P.stroke_time
    s = T * k * vs / m
    x = u / vs
    return vs * math.tanh(math.atanh(x) + s) if x < 1 else vs / math.tanh(math.atanh(1 / x) + s)


class _CoarseBlock(BlockSkating):
    coarse_maps = True


def test_coarse_stroke_maps_steer_and_the_run_s_own_maps_decide(measured, monkeypatch):
    """The periodic stroke's search with coarse maps (``Skating.coarse_maps``) on the block,
    whose map and fixed point v* are closed forms.  Each stroke integrated is recorded with its
    tolerance: the coarse ones follow Φ(u) to their own tolerance, every value within a level's
    ``above`` of a fixed point comes from the run's rtol (so the value the search stops on is
    the run's), the fixed point is v* as without coarse maps, and the two searches' u0 agree
    within tol/(1 − Φ′(v*))."""
    import skilib.strokes.periodic as periodic

    calls = []
    integrate = periodic.integrate_stroke

    def recorded(skating, settings, k, model, q, qd, *args, **kw):
        out = integrate(skating, settings, k, model, q, qd, *args, **kw)
        calls.append((float(qd[0]), settings.integrator.rtol, float(out[3][6])))  # u, rtol, v at τ = T
        return out

    monkeypatch.setattr(periodic, "integrate_stroke", recorded)
    settings = block_settings(P)
    found = periodic_stroke(_CoarseBlock(P), settings, u_guess=1.0, tol=1e-10, max_iter=30, max_speed=30.0,
                            who="block")
    coarse = [c for c in calls if c[1] > settings.integrator.rtol]
    assert found.coarse_maps == len(coarse) >= 3
    for u, rtol, phi in coarse:  # the map contracts (drag): its error stays at its tolerance's scale
        measured.allclose("coarse Φ(u) vs the closed form", phi, _block_map(u), rtol=10 * rtol, unit="m/s",
                          where=f"u = {u:.6g} m/s, rtol {rtol:g}")
    for u, rtol, phi in calls:
        if abs(phi - u) <= periodic.COARSE_LEVELS[-1][0]:
            assert rtol == settings.integrator.rtol, (u, rtol, phi)
    assert calls[-1][1] == settings.integrator.rtol  # the tabulated stroke
    measured.check("|Φ(u0) − u0|", found.residual, 1e-10, "m/s",
                   argued="the search stops once |Φ(u) − u| ≤ tol = 1e-10: the residual is the stopping test's")
    measured.allclose("u0 vs v*, coarse maps", found.u0, P.terminal_speed, atol=1e-8, unit="m/s")
    fine = periodic_stroke(BlockSkating(P), settings, u_guess=1.0, tol=1e-10, max_iter=30, max_speed=30.0,
                           who="block")
    h = 1e-5
    slope = (_block_map(P.terminal_speed + h) - _block_map(P.terminal_speed - h)) / (2 * h)
    measured.allclose("u0 with and without coarse maps", found.u0, fine.u0, atol=2e-10 / (1 - slope), unit="m/s",
                      argued="each search's |Φ(u0) − u0| ≤ tol: the two u0 lie within tol/(1 − Φ′(v*)) of v*")
    assert fine.coarse_maps == 0


def test_the_coarse_levels_a_search_may_take():
    """``coarse_levels``: both levels for the default tol (1e-10) at rtol 1e-11; only the coarsest
    for tol 1e-8 (the finer level's above, 1e-7, is not 100 tol away); none for tol 1e-5, nor
    where the run's rtol is already as coarse (1e-6).  A level's integrator is the run's with its
    rtol, atol scaled alike, the step cap widened ``COARSE_STEP_FACTOR`` times."""
    from skilib.strokes.periodic import COARSE_LEVELS, COARSE_STEP_FACTOR, coarse_levels

    settings = block_settings(P)
    ig = settings.integrator
    levels = coarse_levels(settings, 1e-10)
    assert [a for a, _ in levels] == [a for a, _ in COARSE_LEVELS]
    for (above, rtol), (_, s) in zip(COARSE_LEVELS, levels):
        assert s.integrator.rtol == rtol and s.integrator.method == ig.method
        assert s.integrator.atol == pytest.approx(ig.atol * rtol / ig.rtol, rel=1e-15)
        assert s.integrator.max_step == ig.max_step * COARSE_STEP_FACTOR
        assert s.budget is settings.budget and s.grid is settings.grid
    assert [a for a, _ in coarse_levels(settings, 1e-8)] == [COARSE_LEVELS[0][0]]
    assert coarse_levels(settings, 1e-5) == []
    assert coarse_levels(block_settings(P, rtol=1e-6, atol=1e-6), 1e-10) == []


def test_a_push_below_friction_keeps_the_block_stuck(measured):
    """F < μmg from rest: the block sticks the whole stroke (mode 0) and static friction, the
    stick row's multiplier, holds the push without doing work."""
    weak = BlockParams(push=10.0)  # μ m g = 23.5 N
    tables = run_strokes(BlockSkating(weak), block_settings(weak), strokes=1, v0=0.0)
    frame = tables.frame()
    assert (frame["mode"] == 0).all()
    measured.check("stuck block's travel", frame["cm_x"], 1e-12, "m")
    measured.check("stuck block's speed", frame["cm_vx"], 1e-12, "m/s")
    measured.check("static friction's work", tables.strokes[0]["work_friction"], 1e-12, "J")


def test_a_speed_the_map_cannot_hold_is_refused():
    """Without drag and with the push beating friction every stroke adds the same speed: Φ(u) − u
    is a constant > 0 and the secant leaves any speed limit."""
    free = BlockParams(cda=1e-12)
    with pytest.raises(NoSteadyState, match="no periodic stroke"):
        periodic_stroke(BlockSkating(free), block_settings(free), u_guess=1.0, tol=1e-10, max_iter=30,
                        max_speed=30.0, who="block")


def test_compiled_and_python_paths_agree(measured):
    """The generated kernel and the numeric engine give the same run of the block."""
    a = run_strokes(BlockSkating(P), block_settings(P, compiled=False), strokes=2, v0=1.0).frame()
    b = run_strokes(BlockSkating(P), block_settings(P, compiled=True), strokes=2, v0=1.0).frame()
    measured.allclose("compiled vs Python speed", b["cm_vx"], a["cm_vx"], atol=1e-10, unit="m/s")


def test_admissibility_columns_are_the_frame_extremes_of_each_stroke(measured):
    """The summary's admissibility column is the frame's extreme over each stroke; the block's
    least speed in its second stroke is v(T) of the closed form."""
    tables = run_strokes(BlockSkating(P), block_settings(P), strokes=2, v0=0.0)
    frame = tables.frame()
    for row in tables.strokes:
        assert row["min_ski_speed"] == frame.loc[frame["stroke"] == row["stroke"], "cm_vx"].min()
    # from rest the first stroke's least speed is its start, 0; the second's its start, v(T)
    assert tables.strokes[0]["min_ski_speed"] == 0.0
    measured.allclose("least speed of stroke 2 vs v(T)", tables.strokes[1]["min_ski_speed"],
                      _closed_form(P.stroke_time)[0], atol=1e-12, unit="m/s")


def test_a_skater_that_comes_to_a_halt_is_told_so():
    """A stroke map that loses speed everywhere, Φ(u) − u = −0.05 − u² < 0 (a push that cannot
    make up for the resistances at any speed): the search ends near rest, and the message says
    in a skier's words that the skater comes to a halt and what gives it more push.  A map with
    no fixed point away from rest gets no such claim."""
    from skilib.strokes.periodic import HALT_SPEED, NoSteadyState, secant_fixed_point

    with pytest.raises(NoSteadyState, match=r"last u = .* m/s, Φ\(u\) − u = -5\.000e-02 m/s: the skater comes to a "
                                            r"halt .*give it more push"):
        secant_fixed_point(lambda u: (-0.05 - u * u, None), 2.0, tol=1e-10, max_iter=30, max_speed=30.0, who="test")
    with pytest.raises(NoSteadyState) as err:  # every stroke gains 0.5 m/s: no fixed point, and no halt
        secant_fixed_point(lambda u: (0.5, None), 3.0, tol=1e-10, max_iter=30, max_speed=30.0, who="test")
    assert "halt" not in str(err.value) and HALT_SPEED == 0.1


def test_inverse_quadratic_interpolation_is_exact_where_the_inverse_is_quadratic(measured):
    """A map whose inverse is a parabola, u = h(g) = u* + g/g′ + ½ c g² (g′ = −0.15, close to the
    free skater's; c = 1 s/m): inverse quadratic interpolation through any three iterates is h
    itself, so the fourth evaluation lands on u* to rounding and the search stops there.  The
    secant steps before it follow their closed forms: the second iterate is ua + g(ua), the
    third the secant's zero through the first two."""
    from skilib.strokes.periodic import secant_fixed_point

    star, slope, c = 2.0, -0.15, 1.0
    seen = []

    def g(u):  # the root of ½ c g² + g/g′ + (u* − u) = 0 nearer zero
        b = 1.0 / slope
        value = 2 * (star - u) / (-b + np.sqrt(b * b - 2 * c * (star - u)))
        seen.append((u, value))
        return value, None

    u, resid, _, n = secant_fixed_point(g, 3.0, tol=1e-12, max_iter=10, max_speed=30.0, who="test")
    (u1, g1), (u2, g2), (u3, g3) = seen[:3]
    measured.allclose("second iterate vs ua + g(ua)", u2, u1 + g1, atol=1e-15, unit="m/s")
    measured.allclose("third iterate vs the secant's zero", u3, u2 - g2 * (u2 - u1) / (g2 - g1), atol=1e-14,
                      unit="m/s")
    measured.allclose("fourth iterate vs u*", seen[3][0], star, atol=1e-13, unit="m/s")
    assert n == 4 and u == seen[3][0] and abs(resid) <= 1e-12
    # the secant alone (quadratic=False): the fourth iterate is the secant's zero through the
    # second and third, and the search takes more evaluations
    seen.clear()
    _, _, _, n_secant = secant_fixed_point(g, 3.0, tol=1e-12, max_iter=10, max_speed=30.0, who="test",
                                           quadratic=False)
    (u2, g2), (u3, g3) = seen[1:3]
    measured.allclose("secant alone: fourth iterate vs the secant's zero", seen[3][0],
                      u3 - g3 * (u3 - u2) / (g3 - g2), atol=1e-14, unit="m/s")
    assert n_secant > n
    with pytest.raises(ValueError, match="^quadratic: must be True or False"):
        secant_fixed_point(g, 3.0, tol=1e-12, max_iter=10, max_speed=30.0, who="test", quadratic="yes")


def _known_map():
    """Φ(x) = x* + A(x − x*) + 0.3 (x − x*)² (element-wise) with x* = (1, −0.5, 2) and a multiplier
    of A outside the unit circle (1.6): (x*, A, a start next to x*, Φ -> (Φ(x), None), the list
    each evaluation of Φ appends to)."""
    star = np.array([1.0, -0.5, 2.0])
    A = np.array([[1.6, 0.2, 0.0], [0.1, 0.5, -0.3], [0.0, 0.2, -0.4]])
    calls = []

    def phi(x):
        calls.append(1)
        d = x - star
        return star + A @ d + 0.3 * d * d, None

    return star, A, star + [0.05, -0.04, 0.03], phi, calls


def test_broyden_s_updates_reach_newton_s_fixed_point_in_fewer_maps(measured):
    """``newton_fixed_point`` on Φ(x) = x* + A(x − x*) + 0.3 (x − x*)² (element-wise), whose fixed
    point x* = (1, −0.5, 2) is known and whose linear part has a multiplier outside the unit
    circle (1.6, as the edged skater's open-loop stroke has one): Newton's iteration and
    Broyden's updates both end within 1e-10 of x* (|g| ≤ tol = 1e-12 divided by the smallest
    |1 − multiplier| ≥ 0.4 gives ≤ 2.5e-12; the updates' last step is superlinear, not quadratic),
    and Broyden's takes fewer stroke maps (one per iteration after the first Jacobian, not four).
    ``broyden`` that is not a bool is refused by name."""
    from skilib.strokes.periodic import newton_fixed_point

    star, A, x0, phi, calls = _known_map()
    runs = {}
    for broyden in (False, True):
        calls.clear()
        x, g, _, n, _ = newton_fixed_point(phi, x0, tol=1e-12, max_iter=60, steps=[1e-7] * 3, who="test",
                                           broyden=broyden)
        assert n == len(calls) and np.max(np.abs(g)) <= 1e-12
        measured.check(f"fixed point vs x*, {'Broyden' if broyden else 'Newton'}", np.abs(x - star), 1e-10)
        runs[broyden] = n
    assert runs[True] < runs[False]
    with pytest.raises(ValueError, match=r"^broyden: "):
        newton_fixed_point(phi, x0, tol=1e-12, max_iter=60, steps=[1e-7] * 3, who="test", broyden="yes")


def test_broyden_s_updates_begun_from_a_given_jacobian_reach_the_same_fixed_point(measured):
    """The map of the test above, Broyden's updates begun from a given estimate of ∂Φ/∂x instead of
    differences (``jacobian=``: a continuation's last waypoint's).  From the exact Jacobian at the
    start, A + 0.6 diag(x0 − x*), they end within 1e-10 of x* without the three maps of the
    differences; from a poor one (A with its unstable multiplier 1.6 read as 1.1: the first step
    does not halve max|g|) they take differences after that step and still end there.  A
    starting Jacobian of the wrong shape, not finite, or without ``broyden`` is refused by name."""
    from skilib.strokes.periodic import newton_fixed_point

    star, A, x0, phi, calls = _known_map()
    kw = dict(tol=1e-12, max_iter=60, steps=[1e-7] * 3, who="test", broyden=True)
    counts = {}
    for label, J0 in (("differences", None), ("exact", A + 0.6 * np.diag(x0 - star)),
                      ("poor", A - np.diag([0.5, 0.0, 0.0]))):
        calls.clear()
        x, g, _, n, J = newton_fixed_point(phi, x0, jacobian=J0, **kw)
        assert n == len(calls) and np.max(np.abs(g)) <= 1e-12 / 100
        measured.check(f"fixed point vs x*, Broyden begun from {label}", np.abs(x - star), 1e-10)
        counts[label] = n
    assert counts["exact"] < counts["differences"]
    for bad in (np.eye(2), np.full((3, 3), np.nan), "J", [[1, 2], [3]]):
        with pytest.raises(ValueError, match=r"^jacobian: "):
            newton_fixed_point(phi, x0, jacobian=bad, **kw)
    with pytest.raises(ValueError, match=r"^jacobian: .*broyden=True"):
        newton_fixed_point(phi, x0, jacobian=A, **{**kw, "broyden": False})
