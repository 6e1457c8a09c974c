"""The free skater (``skilib.models.free.model``): a knife-edge ski, a placed centre of mass and the leg
force as an output, checked against an independent one-coordinate derivation, a holonomic
build of the straight-line case, the work–energy balance, the continuity of the centre of mass,
the snow's load and the symmetry of the periodic stroke."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import skilib as sk
from skilib.models.free import FreeSkaterModel
from skilib.models.free.params import PARAMETER_BOUNDS
from skilib.strokes import NoSteadyState

FIXED_POINT = ("the steady state's search stops at |Φ(u0) − u0| ≤ 1e-10 m/s (its tol): this is that residual, "
               'bounded by construction')

MERGE_ROUNDING = ("½ μ ḣ² from the integrated end state: the relative velocity is held by the drivers' rows to ≈ 1e-13 "
                  'm/s and ḣ(T) = 0.6–1.0 m/s here, so 2 × 1e-13/0.6 = 3.3e-13 relative plus a few ε of the products; '
                  '1e-12 is three times that')

PRINTED_DIGITS = ('the message prints N to 6 significant digits; for a load of hundreds of newtons the last digit is '
                  '1e-3 N, so the read-back differs by ≤ 5e-4 N; the tolerance is one unit of that digit')

VERTICAL_ONLY = ("the closed form is the vertical component of the leg's force alone; the leg also pushes sideways and"
                 ' forward, which the named peak (the force along the leg) includes: ≈ 0.1 body weights here, within '
                 'half a body weight')


def one_coordinate(p: sk.FreeSkaterParams, side: str, u0: float, t_eval):
    """u(τ) and the ski's path from the Lagrange–d'Alembert equation along the ski, written from
    the model's definition alone: Ṙ_s = u e(ψ), R_B = R_s + h n + z ẑ, so that
    (m_s + M) u̇ = M (2 ḣ ψ̇ + h ψ̈) − μ N + F_drag · e, N = (M + m_s) g + M z̈."""
    s = 1.0 if side == "right" else -1.0
    T, a, dpsi = p.stroke_time, math.radians(p.skating_angle_deg), math.radians(p.steer_deg)
    M, ms = p.body_mass, p.ski_mass

    def laws(t):
        x = t / T
        psi = s * (-a / 2 + dpsi * x**3 * (10 - 15 * x + 6 * x * x))
        psid = s * dpsi * 30 * x * x * (1 - x) ** 2 / T
        psidd = s * dpsi * 60 * x * (1 - x) * (1 - 2 * x) / T**2
        dh = p.offset_end - p.offset_start
        h = s * (p.offset_start + dh * x**2)
        hd = s * 2 * dh * x / T
        w = math.pi / T
        z = p.cm_height - p.cm_dip * math.sin(w * t) ** 2
        zd = -p.cm_dip * w * math.sin(2 * w * t)
        zdd = -2 * p.cm_dip * w * w * math.cos(2 * w * t)
        return psi, psid, psidd, h, hd, z, zd, zdd

    def rhs(t, y):
        u = y[0]
        psi, psid, psidd, h, hd, z, zd, zdd = laws(t)
        e = np.array([math.cos(psi), math.sin(psi), 0.0])
        n = np.array([-math.sin(psi), math.cos(psi), 0.0])
        vB = (u - h * psid) * e + hd * n + zd * np.array([0.0, 0.0, 1.0])
        drag = -0.5 * p.air_density * p.cda * np.linalg.norm(vB) * vB if p.air_drag else np.zeros(3)
        N = (M + ms) * p.g + M * zdd
        udot = (M * (2 * hd * psid + h * psidd) - p.friction_coefficient * N + drag @ e) / (M + ms)
        return [udot, u * e[0], u * e[1]]

    sol = solve_ivp(rhs, (0.0, T), [u0, 0.0, 0.0], t_eval=t_eval, method="DOP853", rtol=1e-12, atol=1e-13)
    cm = []
    for k, t in enumerate(sol.t):
        psi, _, _, h, _, z, _, _ = laws(t)
        cm.append([sol.y[1, k] - h * math.sin(psi), sol.y[2, k] + h * math.cos(psi), z])
    return sol.y[0], np.array(cm)


@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_one_coordinate_derivation_gives_the_same_motion(side, rotation, measured):
    """u(τ) and the centre of mass's path of one stroke: the 14- (or 12-) coordinate multibody
    model with a knife edge equals the one-coordinate equation along the ski to 1e-9."""
    p = sk.FreeSkaterParams()
    res = sk.simulate_free(p, strokes=1, v0=3.0, first_ski=side, rotation=rotation, rtol=1e-12, atol=1e-12)
    f = res.frame
    u, cm = one_coordinate(p, side, 3.0, f["tau"].to_numpy())
    measured.allclose("u(τ) vs one-coordinate equation", f["u"], u, atol=1e-9, unit="m/s", where=f"{side}/{rotation}")
    measured.allclose("CM path vs one-coordinate equation", f[["cm_x", "cm_y", "cm_z"]].to_numpy(), cm, atol=1e-9,
                      unit="m", where=f"{side}/{rotation}")


def test_without_steer_the_knife_edge_is_a_straight_line(measured):
    """Steer 0: the ski's heading is constant, and the knife edge is the holonomic constraint
    'on the line through the start along e' — a PointOnLine build of the same model gives the
    same motion."""
    p = sk.FreeSkaterParams(steer_deg=0.0)
    res = sk.simulate_free(p, strokes=1, v0=3.0, compiled=False, rtol=1e-12, atol=1e-12, n_out=41)
    model = res.models[0]
    e = model.axes(0.0)[0]
    cons = [sk.PointOnLine("line", model.ski, np.zeros(3), np.zeros(3), e) if c.name == "edge" else c
            for c in model.constraints if c.name != "snow"]  # the line also holds z = 0
    friction = model.system(1).forces[-1]
    system = sk.MultibodySystem(model.bodies, cons, model.forces_common + [friction])
    assert system.velocity_rows.size == 0 and system.dof == 1
    q0 = res.frame[[f"q{j}" for j in range(12)]].to_numpy()[0]
    qd0 = res.frame[[f"qd{j}" for j in range(12)]].to_numpy()[0]
    t = res.frame["tau"].to_numpy()
    ref = sk.solve_dynamics(system, (0.0, p.stroke_time), q0, qd0, method="DOP853", rtol=1e-12, atol=1e-12,
                            t_eval=t, h=0.05)
    measured.allclose("CM path: knife edge vs point on a line", res.frame[["cm_x", "cm_y", "cm_z"]].to_numpy(),
                      ref.q[:, 6:9], atol=1e-9, unit="m")


def test_work_energy_continuity_and_snow_load(measured):
    """Over three strokes from rest (stick and slip included): ΔKE equals the sum of the works to
    1e-9 of the leg's work; the centre of mass does not move at a touch-down; the edge never
    slips; with drag off, the snow row's multiplier is (M + m_s) g + M z̈(τ)."""
    p = sk.FreeSkaterParams(air_drag=False)
    res = sk.simulate_free(p, strokes=3, v0=0.0)
    st = res.strokes
    for _, row in st.iterrows():
        measured.check("work–energy residual / leg work", abs(row["energy_residual"]) / abs(row["work_leg"]), 1e-9,
                       "rel.", where=f"stroke {row['stroke']}")
    measured.check("CM jump at touch-down", res.changes["cm_jump"].max(), 1e-12, "m")
    measured.check("edge's lateral velocity", res.frame["nonholonomic_norm"].max(), 1e-9, "m/s")
    f = res.frame
    w = math.pi / p.stroke_time
    zdd = -2 * p.cm_dip * w * w * np.cos(2 * w * f["tau"].to_numpy())
    load = (p.body_mass + p.ski_mass) * p.g + p.body_mass * zdd
    measured.allclose("snow's normal force vs (M + m_s) g + M z̈", f["snow_force"], load, atol=1e-6, unit="N")
    assert len(res.events) > 0  # from rest the ski sticks before it slides


@pytest.fixture(scope="module")
def steady():
    return sk.free_steady_state()


def test_steady_state_is_a_fixed_point_and_mirrors(steady, measured):
    """The periodic stroke: one stroke from u0 and the touch-down give u0 back to 1e-10, and a
    right and a left stroke from u0 are mirror images (y → −y)."""
    ss = steady
    measured.check("|Φ(u0) − u0|", ss.residual, 1e-10, "m/s", argued=FIXED_POINT)
    two = sk.simulate_free(strokes=2, v0=ss.u0)
    measured.check("start speed of the next stroke − u0", abs(two.strokes["u_start"].iloc[1] - ss.u0), 1e-9, "m/s")
    a = two.frame[two.frame["stroke"] == 1]
    b = two.frame[two.frame["stroke"] == 2]
    measured.allclose("left stroke's u vs the right's", b["u"].to_numpy(), a["u"].to_numpy(), atol=1e-8, unit="m/s")
    lat_a = a["cm_y"].to_numpy() - a["cm_y"].iloc[0]
    lat_b = b["cm_y"].to_numpy() - b["cm_y"].iloc[0]
    measured.allclose("left stroke's lateral CM path vs −(the right's)", lat_b, -lat_a, atol=1e-8, unit="m")
    measured.allclose("leg force [BW], left vs right", b["leg_force_bw"].to_numpy(), a["leg_force_bw"].to_numpy(),
                      atol=1e-8, unit="BW")


def test_steady_state_progress_speed(steady, measured):
    """The periodic stroke's progress_speed is the centre of mass's distance along X per time:
    ΔX_B / T read off the frame, and ∫Ẋ_B dτ / T (Simpson's rule on the frame's Ẋ_B); it is below
    the mean speed |Ṙ_B|, which counts the lateral sway too."""
    from scipy.integrate import simpson

    ss, T = steady, sk.FreeSkaterParams().stroke_time
    f = ss.frame
    measured.allclose("progress_speed vs ΔX_B / T of the frame", ss.progress_speed,
                      (f["cm_x"].iloc[-1] - f["cm_x"].iloc[0]) / T, atol=1e-12, unit="m/s")
    measured.allclose("progress_speed vs ∫Ẋ_B dτ / T (Simpson)", ss.progress_speed,
                      simpson(f["cm_vx"].to_numpy(), x=f["tau"].to_numpy()) / T, atol=1e-6, unit="m/s")
    measured.exceeds("mean_speed − progress_speed (the lateral sway)", ss.mean_speed - ss.progress_speed, 0.0,
                     "m/s")


def test_the_coarse_stroke_maps_are_within_what_their_use_assumes(steady, measured):
    """The periodic stroke's search integrates its first strokes at coarse tolerances
    (``skilib.strokes.periodic.COARSE_LEVELS``).  At start speeds the default search passes
    through (3, 2 and 1 m/s), each level's Φ(u) against the run's:
    - rtol 1e-6 is used only where |Φ(u) − u| > 1e-4 m/s: an error ≤ 1e-7 m/s (0.1 % of that)
      moves the secant's step by 0.1 %, and the next iterate still gets nearer u0;
    - rtol 1e-8 where |Φ(u) − u| > 1e-7 m/s, the map before the last: its error enters the next
      iterate's residual once, so an error ≤ tol (1e-10 m/s) keeps that residual at tol's order.
    The default search takes coarse maps, ends on the run's own, and its u0 and Φ(u0) are the
    run's to tol."""
    from skilib.models.free.params import with_overrides
    from skilib.models.free.run import FreeSkating, free_options_of
    from skilib.strokes.periodic import coarse_levels, evaluate_stroke_map

    skating = FreeSkating(free_options_of(with_overrides(None), {}))
    settings = skating.settings()

    def phi(u, run):
        return evaluate_stroke_map(skating, run, u)[0]

    (_, coarse), (_, finer) = coarse_levels(settings, 1e-10)
    for u in (3.0, 2.0, 1.0):
        exact = phi(u, settings)
        measured.check("Φ(u) at rtol 1e-6 − the run's", phi(u, coarse) - exact, 1e-7, "m/s", where=f"u = {u} m/s",
                       argued="0.1 % of the 1e-4 m/s above which the level is used: the step it steers is 0.1 % off")
        measured.check("Φ(u) at rtol 1e-8 − the run's", phi(u, finer) - exact, 1e-10, "m/s", where=f"u = {u} m/s",
                       argued="the default tol: the next iterate's residual stays at tol's order")
    assert steady.coarse_maps >= 1 and len(steady.history) == steady.iterations
    measured.check("|Φ(u0) − u0| by the run's map", phi(steady.u0, settings) - steady.u0, 1e-10, "m/s",
                   argued="the search stops on the run's own map at |Φ(u) − u| ≤ tol = 1e-10; this map is that one")


def test_a_stroke_that_does_not_glide_is_no_steady_state():
    """At a 10° skating angle the stroke map's fixed point has the ski land moving backwards (u0 < 0);
    at 15° the ski stops and slides back within the stroke: neither is a skating stroke, and
    free_steady_state raises NoSteadyState naming u0, the ski's least speed and the angle."""
    with pytest.raises(NoSteadyState, match=r"skating_angle_deg = 10°.*u0 = -0\.00\d+ m/s.*least speed.*a wider V"):
        sk.free_steady_state(sk.FreeSkaterParams(skating_angle_deg=10.0))
    # started near it: from the default guess the secant ends on the map's flat stretch below
    # u ≈ 0.05 m/s, where the ski sticks and Φ(u) does not depend on u
    with pytest.raises(NoSteadyState, match=r"skating_angle_deg = 15°.*u0 = 0\.06\d+ m/s.*stops"):
        sk.free_steady_state(sk.FreeSkaterParams(skating_angle_deg=15.0), u_guess=0.1)
    with pytest.raises(NoSteadyState, match="no periodic stroke within 2 strokes"):
        sk.free_steady_state(max_iter=2)
    with pytest.raises(ValueError, match="max_speed"):
        sk.free_steady_state(max_speed=-1.0)


def test_compiled_and_numeric_free_skater_agree(measured):
    """The generated kernels (knife edge, relative driver, friction along the ski) give the numeric
    engine's run to round-off."""
    a = sk.simulate_free(strokes=2, v0=2.5, compiled=True)
    b = sk.simulate_free(strokes=2, v0=2.5, compiled=False)
    cols = ["cm_x", "cm_y", "u", "leg_force_bw"]
    measured.allclose("compiled vs numeric", a.frame[cols].to_numpy(), b.frame[cols].to_numpy(), atol=1e-9)


def test_user_laws_are_time_functions():
    """A user's laws replace the defaults; a plain callable (no derivatives) is refused by name."""
    p = sk.FreeSkaterParams()
    lawful = sk.FreeLaws(heading=sk.Polynomial([-0.3, 0.2]), offset=sk.Polynomial([0.1, 0.2]),
                         height=sk.Polynomial([0.95]))
    res = sk.simulate_free(p, strokes=1, v0=2.0, laws=lawful, n_out=5)
    assert np.allclose(res.frame["ski_heading_deg"], np.degrees(-0.3 + 0.2 * res.frame["tau"]), atol=1e-9)
    with pytest.raises(ValueError, match="laws.height"):
        sk.FreeLaws(heading=sk.Polynomial([0.0]), offset=sk.Polynomial([0.1]), height=lambda t: 0.9)


@pytest.mark.parametrize("field, value, match", [
    ("body_mass", -75.0, "body_mass"), ("ski_mass", float("nan"), "ski_mass"), ("stroke_time", "0.8", "stroke_time"),
    ("offset_end", 1.5, "offset_end: the centre of mass would be"), ("cm_dip", 1.0, "cm_dip"),
    ("air_drag", "yes", "air_drag"), ("skating_angle_deg", 190.0, "skating_angle_deg"),
    ("friction_coefficient", -0.1, "friction_coefficient"),
])
def test_bad_parameters_name_the_field(field, value, match):
    with pytest.raises(ValueError, match=match):
        sk.FreeSkaterParams(**{field: value})
    with pytest.raises(ValueError, match="strokes"):
        sk.simulate_free(strokes=0)
    with pytest.raises(ValueError, match="side"):
        FreeSkaterModel(sk.FreeSkaterParams(), "middle", np.zeros(3))


# every number a user can set, just outside its plausible range on each side (PARAMETER_BOUNDS)
_OUTSIDE = [(name, v) for name, (lo, hi) in sorted(PARAMETER_BOUNDS.items()) if name != "body_inertia"
            for v in (lo - 0.01 * (hi - lo) - 1e-9, hi + 0.01 * (hi - lo))]


@pytest.mark.parametrize("field, value", _OUTSIDE)
def test_implausible_values_are_refused_by_name(field, value):
    """Each field just outside its range raises a ValueError whose message starts with its
    name (for the offsets beyond the top: the leg's reach, also by name)."""
    with pytest.raises(ValueError, match=rf"^{field}: "):
        sk.FreeSkaterParams(**{field: value})


@pytest.mark.parametrize("over, match", [
    (dict(stroke_time=1e-9), r"^stroke_time: 1e-09 is outside the plausible range \[0.2, 3\]"),
    (dict(stroke_time=1e-3), r"^stroke_time: 0.001 is outside"),
    (dict(stroke_time=float("inf")), "^stroke_time: must be finite"),
    (dict(skating_angle_deg=0.0), "^skating_angle_deg: 0.0 is outside"),
    (dict(skating_angle_deg=120.0, steer_deg=-40.0), r"^steer_deg: the ski would end the stroke 100° off"),
    (dict(offset_exponent=0.5), "^offset_exponent: 0.5 is outside"),
    (dict(cm_dip=0.5), "^cm_dip: 0.5 is outside"),
    (dict(cm_height=0.4, cm_dip=0.4), "^cm_dip: must be below cm_height"),
    (dict(body_mass=1e10), r"^body_mass: 10000000000.0 is outside the plausible range \[20, 200\]"),
    (dict(body_inertia=(1.0, 1.0, 5.0)), "^body_inertia: each principal inertia must be at most the sum"),
    (dict(body_inertia=(1e3, 1e3, 1.0)), r"^body_inertia: each inertia must be in \[0.01, 100\]"),
    (dict(body_inertia=("a", "b", "c")), "^body_inertia: must be three positive inertias"),
    (dict(air_drag=1), "^air_drag: must be True or False"),
])
def test_implausible_techniques_are_refused_before_running(over, match):
    """The stroke time that used to give 327 m/s and 117 840 body weights (1 ms), or never
    returned (1 ns), the geometry that would turn the ski backwards, a rigid body that cannot
    exist: each refused by name when the parameters are made, before anything is integrated."""
    with pytest.raises(ValueError, match=match):
        sk.FreeSkaterParams(**over)
    with pytest.raises(ValueError, match=match):  # and as the overrides of a sweep's row
        sk.studies.free_sweep.free_summary(over, strokes=1)


def test_the_defaults_and_the_optimum_bounds_are_plausible():
    """The default skier and every corner of the optimum's bounds are within the plausible
    ranges (so their numbers are those of before the ranges existed)."""
    import itertools

    from skilib.studies.optimum import FREE_BOUNDS

    p = sk.FreeSkaterParams()
    for name, (lo, hi) in PARAMETER_BOUNDS.items():
        v = getattr(p, name)
        assert all(lo <= x <= hi for x in (v if isinstance(v, tuple) else (v,))), name
    names = list(FREE_BOUNDS)
    for corner in itertools.product(*(FREE_BOUNDS[n] for n in names)):
        sk.FreeSkaterParams(**dict(zip(names, corner)))
    for n, (lo, hi) in FREE_BOUNDS.items():
        assert PARAMETER_BOUNDS[n][0] <= lo < hi <= PARAMETER_BOUNDS[n][1], n


def test_the_leg_force_cap_refuses_an_inhuman_technique(measured):
    """A 0.2 s stroke with a 0.4 m dip (both in range) sinks and lifts the centre of mass at
    z̈ = −2Δz (π/T)² cos(2πτ/T): at τ = T/2 the leg carries M (g + 2Δz (π/T)²) ≈ 21 body
    weights vertically, above the cap of ``MAX_LEG_FORCE_BW`` = 10.  The run stops with a
    ValueError naming the cap, the time and the force; the force it names is the vertical
    bound to within the sideways and drag parts (≤ 0.5 body weight here); with the cap lifted the run
    goes through and its frame shows that force.  Such a dip also pulls the snow (N(0) =
    M(g − 2Δz (π/T)²) + m_s g ≈ −19 body weights: a leg force above 10 body weights from the
    dip needs 2Δz (π/T)² > 9 g, far beyond N = 0 at (1 + m_s/M) g), so the runs here are made
    with ``admissibility="report"`` and the steady state refuses it by its snow load before its
    leg force; the steady state's cap is shown on the default technique (peak ≈ 1.17 body
    weights) with a cap of 1.1."""
    import re

    p = sk.FreeSkaterParams(stroke_time=0.2, cm_dip=0.4)
    vertical = 1.0 + 2 * p.cm_dip * (math.pi / p.stroke_time) ** 2 / p.g
    with pytest.raises(ValueError, match=r"^max_leg_force_bw: the leg force reaches .* body weights \(.* N\) at "
                                         r"t = 0.1 s \(stroke 1, τ = 0.1 s\), above the cap of 10 body weights") as err:
        sk.simulate_free(p, strokes=1, v0=3.0, admissibility="report")
    bw, newton = (float(x) for x in re.search(r"reaches (\S+) body weights \((\S+) N\)", str(err.value)).groups())
    measured.check("named peak vs M(g + 2Δz(π/T)²) [body weights]", abs(bw - vertical), 0.5, "BW", argued=VERTICAL_ONLY)
    measured.check("named force in N vs body weights × M g", abs(newton - bw * p.weight), 1e-3 * p.weight, "N")
    free = sk.simulate_free(p, strokes=1, v0=3.0, max_leg_force_bw=math.inf, admissibility="report")
    assert free.frame.leg_force_bw.max() == pytest.approx(bw, rel=1e-5)
    measured.check("vertical leg force at τ = T/2 vs M(g + 2Δz(π/T)²)",
                   abs(free.frame.set_index("tau").leg_fz.loc[0.1] / p.weight - vertical), 1e-2, "BW")
    with pytest.raises(ValueError, match="^snow_load: "):
        sk.free_steady_state(p)
    with pytest.raises(ValueError, match="^max_leg_force_bw: the leg force reaches 1.1"):
        sk.free_steady_state(max_leg_force_bw=1.1)
    for bad in (0.5, float("nan"), "10", True):
        with pytest.raises(ValueError, match="^max_leg_force_bw: "):
            sk.simulate_free(strokes=1, max_leg_force_bw=bad)


def test_every_call_has_a_wall_time_budget():
    """simulate_free and free_steady_state run under a wall-time budget by default; the steady
    state's clock spans its whole search (every stroke-map evaluation), so a tiny budget stops
    it in its first stroke, naming the budget."""
    import inspect

    from skilib.engine.errors import BudgetExceededError
    from skilib.models.free.run import DEFAULT_MAX_WALL_TIME, free_options_of

    assert inspect.signature(sk.simulate_free).parameters["max_wall_time"].default == DEFAULT_MAX_WALL_TIME
    assert 0 < DEFAULT_MAX_WALL_TIME < math.inf
    assert free_options_of(None, {}).budget.max_wall_time == DEFAULT_MAX_WALL_TIME
    for call in (lambda: sk.simulate_free(strokes=3, v0=3.0, max_wall_time=1e-6),
                 lambda: sk.free_steady_state(max_wall_time=1e-6)):
        with pytest.raises(BudgetExceededError, match=r"^max_wall_time: .*stroke 1") as err:
            call()
        assert err.value.budget == "max_wall_time"
    with pytest.raises(ValueError, match="^max_wall_time: "):
        sk.free_steady_state(max_wall_time=-1.0)


def kane_free_skater(p: sk.FreeSkaterParams, side: str):
    """The sliding free skater by sympy's KanesMethod: coordinates x, y of the ski, the knife
    edge as a velocity constraint, ψ(t), h(t), z(t) explicit functions of time, friction μN
    along the ski and drag on the centre of mass (an independent derivation)."""
    import sympy as sp
    from sympy.physics.mechanics import KanesMethod, Particle, Point, ReferenceFrame, dynamicsymbols

    t = dynamicsymbols._t
    x, y = dynamicsymbols("x y")
    ux, uy = dynamicsymbols("ux uy")
    s = 1 if side == "right" else -1
    T, a, dpsi = p.stroke_time, sp.rad(sp.Float(p.skating_angle_deg)), sp.rad(sp.Float(p.steer_deg))
    xi = t / T
    psi = s * (-a / 2 + dpsi * (10 * xi**3 - 15 * xi**4 + 6 * xi**5))
    h = s * (p.offset_start + (p.offset_end - p.offset_start) * xi**2)
    z = p.cm_height - p.cm_dip * sp.sin(sp.pi * t / T) ** 2
    N = ReferenceFrame("N")
    e = sp.cos(psi) * N.x + sp.sin(psi) * N.y
    n = -sp.sin(psi) * N.x + sp.cos(psi) * N.y
    O = Point("O")
    O.set_vel(N, 0)
    S = O.locatenew("S", x * N.x + y * N.y)
    S.set_vel(N, ux * N.x + uy * N.y)
    B = S.locatenew("B", h * n + z * N.z)
    B.set_vel(N, S.vel(N) + (h * n + z * N.z).diff(t, N))
    load = (p.body_mass + p.ski_mass) * p.g + p.body_mass * z.diff(t, 2)
    vB = B.vel(N)
    speed = sp.sqrt(vB.dot(vB))
    forces = [(S, -p.friction_coefficient * load * e), (B, -0.5 * p.air_density * p.cda * speed * vB),
              (B, -p.body_mass * p.g * N.z), (S, -p.ski_mass * p.g * N.z)]
    kane = KanesMethod(N, q_ind=[x, y], u_ind=[ux], u_dependent=[uy], kd_eqs=[x.diff() - ux, y.diff() - uy],
                       velocity_constraints=[S.vel(N).dot(n)])
    kane.kanes_equations([Particle("ski", S, p.ski_mass), Particle("body", B, p.body_mass)], forces)
    states = [x, y, ux, uy]
    Mf = sp.lambdify([t] + states, kane.mass_matrix_full, "numpy")
    ff = sp.lambdify([t] + states, kane.forcing_full, "numpy")
    cm = sp.lambdify([t] + states, [B.pos_from(O).dot(N.x), B.pos_from(O).dot(N.y), B.pos_from(O).dot(N.z)], "numpy")
    return (lambda tt, yy: np.linalg.solve(Mf(tt, *yy), ff(tt, *yy)).ravel()), cm, sp.lambdify(t, psi, "numpy")


def test_kane_peer_with_a_velocity_constraint(measured):
    """One stroke of the free skater: skilib's centre-of-mass path and ski speed equal those of
    KanesMethod with the knife edge as a velocity constraint, to 1e-9."""
    p = sk.FreeSkaterParams()
    res = sk.simulate_free(p, strokes=1, v0=3.0, rtol=1e-12, atol=1e-12)
    rhs, cm, psi = kane_free_skater(p, "right")
    f = res.frame
    tau = f["tau"].to_numpy()
    e0 = np.array([math.cos(psi(0.0)), math.sin(psi(0.0))])
    sol = solve_ivp(rhs, (0.0, p.stroke_time), [0.0, 0.0, 3.0 * e0[0], 3.0 * e0[1]], t_eval=tau, method="DOP853",
                    rtol=1e-12, atol=1e-13)
    path = np.array([cm(tk, *yk) for tk, yk in zip(sol.t, sol.y.T)])
    u = sol.y[2] * np.cos(psi(sol.t)) + sol.y[3] * np.sin(psi(sol.t))
    measured.allclose("CM path vs KanesMethod", f[["cm_x", "cm_y", "cm_z"]].to_numpy(), path, atol=1e-9, unit="m")
    measured.allclose("u(τ) vs KanesMethod", f["u"].to_numpy(), u, atol=1e-9, unit="m/s")


# -- admissibility: the snow's load, the leg force's direction, the centre of pressure ------
def closed_form_load(p: sk.FreeSkaterParams, tau):
    """N(τ) = (M + m_s) g + M z̈(τ) with z = z̄ − Δz sin²(πτ/T) differentiated by hand:
    z̈ = −2Δz (π/T)² cos(2πτ/T)."""
    w = math.pi / p.stroke_time
    return (p.body_mass + p.ski_mass) * p.g - 2 * p.body_mass * p.cm_dip * w * w * np.cos(2 * w * np.asarray(tau))


def test_snow_load_is_the_height_laws_and_the_default_keeps_it_positive(steady, measured):
    """The periodic stroke's snow_load column is (M + m_s) g + M z̈(τ) with z̈ written in closed
    form from the height law, to 1e-9 N (the same formula evaluated two ways: round-off of
    ≈ 1e3 N numbers is ≈ 1e-13 N), snow_load_bw is it over M g, and the strokes table's
    min_snow_load is the frame's least.  The default technique keeps the ski pressed: its least N
    (at τ = 0 and T, (M + m_s) g − 2MΔz (π/T)² ≈ 0.86 body weights) exceeds zero, and at the
    least the centre of pressure is defined."""
    p, f, row = sk.FreeSkaterParams(), steady.frame, steady.strokes.iloc[0]
    load = closed_form_load(p, f["tau"].to_numpy())
    measured.allclose("snow_load vs (M + m_s) g − 2MΔz(π/T)² cos(2πτ/T)", f["snow_load"], load, atol=1e-9, unit="N")
    measured.allclose("snow_load_bw vs snow_load / (M g)", f["snow_load_bw"], load / p.weight, atol=1e-12, unit="BW")
    assert row["min_snow_load"] == f["snow_load"].min()
    measured.exceeds("default technique's least snow load", row["min_snow_load"] / p.weight, 0.0, "BW")
    assert f["cop_offset"].notna().all()


def frame_vectors(f):
    """r = R_B − R_ski (the ski's origin on the snow, z = 0), F (the leg force on B), and the
    ski's axis e and left normal n from its heading, read off a frame's columns."""
    r = f[["cm_x", "cm_y", "cm_z"]].to_numpy() - np.column_stack([f["ski_x"], f["ski_y"], np.zeros(len(f))])
    F = f[["leg_fx", "leg_fy", "leg_fz"]].to_numpy()
    psi = np.radians(f["ski_heading_deg"].to_numpy())
    e = np.column_stack([np.cos(psi), np.sin(psi), np.zeros(len(f))])
    n = np.column_stack([-np.sin(psi), np.cos(psi), np.zeros(len(f))])
    return r, F, e, n


def test_leg_angle_and_roll_moment_from_the_frame(steady, measured):
    """On the periodic stroke, from the frame's positions and forces alone: (1) the leg force's
    component along the line from the ski's origin to the centre of mass, |F| cos θ, and the
    length of the rest, |F| sin θ (θ = leg_angle_deg), reproduce F · r̂ and |F − (F · r̂) r̂|, and
    the two parts add back to F; (2) roll_moment is h F_z − z F_n (h = r · n, z = r · ẑ, F_n =
    F · n), the expansion of e · (r × F), and r's parts are the offset and height laws'; (3)
    cop_offset is roll_moment / N; (4) the strokes table's maxima are the frame's.  All are the
    same quantities by two routes: the tolerances are round-off on forces of ≈ 1e3 N and arms of
    ≈ 1 m (1e-9 N, 1e-9 N m, 1e-12 m; the laws' lengths to 1e-9 m, the integration's)."""
    p, f, row = sk.FreeSkaterParams(), steady.frame, steady.strokes.iloc[0]
    r, F, e, n = frame_vectors(f)
    rhat = r / np.linalg.norm(r, axis=1)[:, None]
    theta = np.radians(f["leg_angle_deg"].to_numpy())
    size = np.linalg.norm(F, axis=1)
    along = np.einsum("ij,ij->i", F, rhat)
    across = F - along[:, None] * rhat
    measured.allclose("|F| cos θ vs F · r̂", size * np.cos(theta), along, atol=1e-9, unit="N")
    measured.allclose("|F| sin θ vs |F − (F · r̂) r̂|", size * np.sin(theta), np.linalg.norm(across, axis=1), atol=1e-9,
                      unit="N")
    measured.allclose("|F| cos θ r̂ + across vs F", size[:, None] * np.cos(theta)[:, None] * rhat + across, F, atol=1e-9,
                      unit="N")
    h, z = np.einsum("ij,ij->i", r, n), r[:, 2]
    tau = f["tau"].to_numpy()
    x = tau / p.stroke_time
    measured.allclose("r · n vs h(τ) = h0 + (h1 − h0)(τ/T)^p", h,
                      p.offset_start + (p.offset_end - p.offset_start) * x**p.offset_exponent, atol=1e-9, unit="m")
    measured.allclose("r · ẑ vs z(τ) = z̄ − Δz sin²(πτ/T)", z,
                      p.cm_height - p.cm_dip * np.sin(math.pi * x) ** 2, atol=1e-9, unit="m")
    roll = h * F[:, 2] - z * np.einsum("ij,ij->i", F, n)
    measured.allclose("roll_moment vs h F_z − z F_n", f["roll_moment"], roll, atol=1e-9, unit="N m")
    measured.allclose("cop_offset vs roll_moment / N", f["cop_offset"], roll / closed_form_load(p, tau), atol=1e-12,
                      unit="m")
    assert row["max_leg_angle_deg"] == f["leg_angle_deg"].max()
    assert row["max_abs_cop_offset"] == f["cop_offset"].abs().max()
    # the default technique's figures: the leg force up to ≈ 14° off the line, the centre of
    # pressure up to ≈ 0.24 m off the ski's axis, far beyond a 45 mm ski's half width
    measured.exceeds("largest |cop_offset| / the ski's half width", row["max_abs_cop_offset"] / (p.ski_width / 2),
                     1.0, "×")


@pytest.mark.parametrize("side", ["right", "left"])
def test_a_still_body_over_a_straight_ski(side, measured):
    """A limit with closed forms: no steer, no dip, constant offset h, no friction and no drag.
    The ski glides straight at constant speed and the centre of mass with it, so the leg force
    is the body's weight, F = M g ẑ.  With h = 0 it lies along the line from the ski's origin
    to the centre of mass (θ = 0, no roll moment); with h = 0.3 m inside it is θ = atan(h/z̄)
    off that line, its roll moment is s h M g (s = +1 right, −1 left: the centre of mass inside
    is +n for the right ski, −n for the left) and the centre of pressure is under the centre of
    mass's share of the load, s h M / (M + m_s).  Tolerances: the forces are exact to the
    stabilisation's residual (measured ≤ 1e-10 N of 736 N): 1e-8 N, 1e-9°, 1e-8 N m, 1e-10 m."""
    s = 1.0 if side == "right" else -1.0
    for h in (0.0, 0.3):
        p = sk.FreeSkaterParams(offset_start=h, offset_end=h, steer_deg=0.0, cm_dip=0.0, friction_coefficient=0.0,
                                air_drag=False)
        f = sk.simulate_free(p, strokes=1, v0=3.0, first_ski=side).frame
        where = f"{side}, h = {h} m"
        measured.allclose("leg force vs (0, 0, M g)", f[["leg_fx", "leg_fy", "leg_fz"]].to_numpy(),
                          np.tile([0.0, 0.0, p.weight], (len(f), 1)), atol=1e-8, unit="N", where=where)
        measured.allclose("leg_angle_deg vs atan(h / z̄)", f["leg_angle_deg"], math.degrees(math.atan2(h, p.cm_height)),
                          atol=1e-9, unit="°", where=where)
        measured.allclose("roll_moment vs s h M g", f["roll_moment"], s * h * p.weight, atol=1e-8, unit="N m",
                          where=where)
        measured.allclose("cop_offset vs s h M / (M + m_s)", f["cop_offset"],
                          s * h * p.body_mass / (p.body_mass + p.ski_mass), atol=1e-10, unit="m", where=where)


def test_a_dip_that_pulls_the_snow_is_refused(measured):
    """cm_dip 0.15 m in a 0.4 s stroke: z̈(0) = −2Δz (π/T)² = −18.5 m/s², below −(1 + m_s/M) g,
    so N(0) = (M + m_s) g − 2MΔz (π/T)² ≈ −637 N ≈ −0.87 body weights.  The steady state (and so
    the optimum, which logs the refusal as an error row) and a run refuse it before integrating,
    with a ValueError naming snow_load, the stroke, τ and N in N and body weights (to the
    message's digits, six significant in N and four in body weights: 1e-3 N, 1e-4 body weights).  With admissibility="report" the
    run goes through: its frame shows that N, and the centre of pressure is NaN exactly where
    N ≤ 0."""
    import re

    from skilib.studies.optimum import TechniqueModel

    p = sk.FreeSkaterParams(cm_dip=0.15, stroke_time=0.4)
    least = float(closed_form_load(p, 0.0))
    pattern = (r"^snow_load: the snow's load N = \(M \+ m_s\) g \+ M z̈ falls to (\S+) N \((\S+) body weights\) "
               r"at τ = 0 s of stroke 1 ")
    for call in (lambda: sk.free_steady_state(p), lambda: sk.simulate_free(p, strokes=3, v0=3.0),
                 lambda: sk.free_steady_state(p, admissibility="report")):
        with pytest.raises(ValueError, match=pattern) as err:
            call()
        newton, bw = (float(x) for x in re.search(pattern, str(err.value)).groups())
        measured.check("named N vs (M + m_s) g − 2MΔz(π/T)²", abs(newton - least), 1e-3, "N", argued=PRINTED_DIGITS)
        measured.check("named N [BW] vs N / (M g)", abs(bw - least / p.weight), 1e-4, "BW")
    row = TechniqueModel("free", ["stroke_time", "cm_dip"]).values([0.4, 0.15])
    assert row["status"] == "error" and row["error"].startswith("ValueError: snow_load: ")
    f = sk.simulate_free(p, strokes=1, v0=3.0, admissibility="report").frame
    measured.allclose("reported snow_load vs closed form", f["snow_load"], closed_form_load(p, f["tau"]), atol=1e-9,
                      unit="N")
    assert (f["cop_offset"].isna() == (f["snow_load"] <= 0)).all() and f["cop_offset"].isna().any()
    with pytest.raises(ValueError, match="^admissibility: "):
        sk.simulate_free(strokes=1, admissibility="ignore")


# -- the touch-down rules: "plastic" (the default) and "along_ski" -------------------------
EPS = np.finfo(float).eps


def _touch_down_states(res):
    """(model of stroke k, q⁻, q̇⁻ at its τ = T, side of stroke k + 1) for every touch-down of a run,
    read from the frame's last row of each stroke (the integrator's end state, ``_states_on_grid``)."""
    n = res.models[0].nq
    out = []
    for k in range(1, len(res.models)):
        row = res.frame[res.frame["stroke"] == k].iloc[-1]
        out.append((res.models[k - 1], row[[f"q{j}" for j in range(n)]].to_numpy(float),
                    row[[f"qd{j}" for j in range(n)]].to_numpy(float), res.models[k].side))
    return out


def _numeric_difference(a, b) -> float:
    """The largest |a − b| over the numeric columns of two tables with the same columns (inf where
    NaN stands in one and not the other); 0.0 for identical tables."""
    assert list(a.columns) == list(b.columns) and len(a) == len(b)
    worst = 0.0
    for c in a.columns:
        x, y = a[c].to_numpy(), b[c].to_numpy()
        if x.dtype.kind in "fiub" and y.dtype.kind in "fiub":
            x, y = x.astype(float), y.astype(float)
            if not np.array_equal(np.isnan(x), np.isnan(y)):
                return math.inf
            ok = ~np.isnan(x)
            worst = max(worst, float(np.abs(x[ok] - y[ok]).max(initial=0.0)))
        else:
            assert list(x) == list(y), c
    return worst


def test_the_default_touchdown_is_plastic(measured):
    """The default touch-down is "plastic": a three-stroke run from rest and the steady state are
    the same, to the last bit, with the default and with ``touchdown="plastic"`` given (every
    column of the frame, strokes and changes tables, and u0); its shares are reported and add up,
    and no touch-down creates energy.  "along_ski" is still there, for comparison: its shares are
    NaN (it is neither a merge nor a projection) and its velocities satisfy the new rows."""
    a = sk.simulate_free(strokes=3)
    b = sk.simulate_free(strokes=3, touchdown="plastic")
    for name in ("frame", "strokes", "changes", "events"):
        measured.check(f"default vs plastic: {name} table", _numeric_difference(getattr(a, name), getattr(b, name)),
                       0.0, "max |Δ|")
    assert a.info["touchdown"] == "plastic"
    measured.exceeds("default: least KE lost at touch-down", a.changes["ke_loss"].min(), 0.0, "J")
    sa, sb = sk.free_steady_state(), sk.free_steady_state(touchdown="plastic")
    measured.check("default vs plastic: steady u0", abs(sa.u0 - sb.u0), 0.0, "m/s")
    measured.check("default vs plastic: steady frame", _numeric_difference(sa.frame, sb.frame), 0.0, "max |Δ|")
    assert sa.touchdown == "plastic"
    measured.allclose("default steady state: merge + projection shares vs KE lost",
                      sa.change["ke_loss_merge"] + sa.change["ke_loss_projection"], sa.change["ke_loss"], atol=1e-12,
                      unit="J")
    c = sk.simulate_free(strokes=3, touchdown="along_ski")
    assert c.info["touchdown"] == "along_ski"
    assert c.changes["ke_loss_merge"].isna().all() and c.changes["ke_loss_projection"].isna().all()
    measured.check("along_ski: max|Cq q̇ + Ct| of the new rows after touch-down", c.changes["touchdown_residual"].max(),
                   1e-12, "m/s")


def test_an_unknown_touchdown_rule_is_refused_by_name():
    with pytest.raises(ValueError, match="^touchdown: "):
        sk.simulate_free(strokes=1, touchdown="elastic")
    with pytest.raises(ValueError, match="^touchdown: "):
        sk.free_steady_state(touchdown="Plastic")


def _check_plastic_touch_downs(res, measured, where):
    """Every touch-down of a run under "plastic", recomputed from the stroke's end state by
    ``plastic_touch_down`` and compared with the closed forms of a perfectly inelastic merge."""
    from skilib.models.free.run import plastic_touch_down

    p = res.params
    M, ms = p.body_mass, p.ski_mass
    I_zz = ms * (p.ski_length**2 + p.ski_width**2) / 12  # the box's inertia about its vertical axis
    for (old, q, qd, side), (_, ch) in zip(_touch_down_states(res), res.changes.iterrows()):
        r = plastic_touch_down(old, q, qd, side)
        assert r.ke_loss == ch["ke_loss"] and r.ke_loss_merge == ch["ke_loss_merge"]  # the run's own touch-down
        T0 = r.ke_before
        v_b, v_s = qd[old.cm], qd[:3]
        measured.check("momentum: |(M + m_s) v_c − (M Ṙ_B⁻ + m_s Ṙ_s⁻)| / |M Ṙ_B⁻|",
                       np.abs((M + ms) * r.common_velocity - (M * v_b + ms * v_s)).max() / np.abs(M * v_b).max(),
                       1e-14, "rel.", where=where)
        spin = 0.5 * I_zz * qd[3] ** 2  # ZXZ, θ = 0: the ski's angular velocity is φ̇ ẑ
        closed = 0.5 * M * ms / (M + ms) * float((v_b - v_s) @ (v_b - v_s)) + spin
        measured.check("merge share vs ½ M m_s/(M + m_s)|Ṙ_B⁻ − Ṙ_s⁻|² + ½ I_zz ψ̇² (rel. to T⁻)",
                       abs(r.ke_loss_merge - closed) / T0, 1e-14, "rel.", where=where)
        measured.check("split: |½(M + m_s)|v_c|² − T(q̇_c)| / T⁻ (the split costs nothing)",
                       abs(r.ke_merged - old.system(1).kinetic_energy(r.q, r.qd_split)) / T0, 1e-14, "rel.",
                       where=where)
        imp = r.impact
        measured.check("projection: ½ΔᵀMΔ − Ctᵀν vs T_c − T⁺ (rel. to T⁻)",
                       abs(imp.ke_lost - (imp.ke_before - imp.ke_after)) / T0, 1e-13, "rel.", where=where)
        measured.check("shares: |merge + projection − total| / T⁻",
                       abs(ch["ke_loss_merge"] + ch["ke_loss_projection"] - ch["ke_loss"]) / T0, 1e-13, "rel.",
                       where=where)
    measured.check("max|Cq q̇⁺ + Ct| of the new rows after touch-down", res.changes["touchdown_residual"].max(), 1e-12,
                   "m/s", where=where)
    st, ch = res.strokes, res.changes
    measured.check("KE after touch-down − KE at the next stroke's start",
                   np.abs(ch["ke_after"].to_numpy() - st["ke_start"].iloc[1:].to_numpy()).max(), 0.0, "J", where=where)
    works = st[list(res.info["work_terms"]) + ["projection_energy"]].to_numpy().sum()
    balance = st["ke_end"].iloc[-1] - st["ke_start"].iloc[0] - (works - ch["ke_loss"].sum())
    measured.check("run: KE_end − KE_start − (ΣW − Σ KE lost at touch-downs) / Σ|W_leg|",
                   abs(balance) / st["work_leg"].abs().sum(), 1e-9, "rel.", where=where)


def test_plastic_touchdown_from_rest(measured):
    """Six strokes from rest with ``touchdown="plastic"``: at every touch-down the kinetic energy
    lost is ≥ 0, and so is each share (the default laws' drivers are still at τ = 0, Ct = 0 exactly,
    so the projection loses ½ΔᵀMΔ by Carnot's theorem); momentum is conserved in the merge,
    (M + m_s) v_c = M Ṙ_B⁻ + m_s Ṙ_s⁻, and the merge loses ½ M m_s/(M + m_s)|Ṙ_B⁻ − Ṙ_s⁻|²
    (two point masses; the ski's spin ψ̇(T) = 0 here); the shares add up to the total; the new
    rows hold after the impact; and over the run ΔKE = ΣW − Σ(KE lost at touch-down).

    Tolerances: the shares are differences of kinetic energies T ≲ 60 J summed over the 12
    coordinates in different orders, so they agree to ≈ n² ε T ≈ 3e-14 T (1e-13 T asserted);
    momentum and the merge's closed form are a few operations (1e-14 relative, ≈ 45 ε); the
    impact's rows are solved to round-off (1e-12 m/s); the run's balance adds each stroke's
    work–energy residual (1e-9 of the leg's work, as in the strokes' own check)."""
    res = sk.simulate_free(strokes=6, v0=0.0, touchdown="plastic")
    assert res.info["touchdown"] == "plastic" and len(res.changes) == 5
    stance = res.models[1]
    from skilib.models.free.run import Stance

    ct = Stance(res.params, stance.side, None, stance.rotation).ct
    measured.check("max |Ct| of the new rows at τ = 0 (default laws: drivers at rest)", np.abs(ct).max(), 0.0, "m/s")
    ch = res.changes
    for col in ("ke_loss", "ke_loss_merge", "ke_loss_projection"):
        measured.check(f"energy created at touch-down (−{col})", (-ch[col]).max(), 0.0, "J")
    _check_plastic_touch_downs(res, measured, "6 strokes from rest")
    st = res.strokes
    assert st["ke_loss_merge_at_start"].iloc[0] == 0.0
    assert st["ke_loss_projection_at_start"].iloc[1:].tolist() == ch["ke_loss_projection"].tolist()


@pytest.mark.parametrize("over", [{}, dict(skating_angle_deg=20.0), dict(skating_angle_deg=60.0),
                                  dict(stroke_time=0.6), dict(stroke_time=1.0)])
def test_plastic_touchdown_in_the_steady_state(over, measured):
    """The periodic stroke with ``touchdown="plastic"`` at the default technique and at other
    skating angles and stroke times: the touch-down that ends it loses kinetic energy, ≥ 0 in
    each share; the merge's share is ½ M m_s/(M + m_s) ḣ(T)², ḣ(T) = p (h1 − h0)/T, from the laws
    alone (at τ = T the centre of mass moves relative to the ski only sideways: ψ̇(T) = ż(T) = 0),
    whatever the speed; the shares add up to the total; the new ski lands at u0 again (the fixed
    point, to its tolerance 1e-10 m/s).

    Tolerances: as in the run from rest (1e-14 and 1e-13 of T⁻ for rounding); the merge's closed
    form from the laws is compared at 1e-12 relative (the end state is the integrator's, whose
    relative velocity of B and the ski is held by the drivers' rows to ≈ 1e-13)."""
    p = sk.FreeSkaterParams(**over)
    ss = sk.free_steady_state(p, touchdown="plastic")
    c = ss.change
    where = ", ".join(f"{k} {v:g}" for k, v in over.items()) or "default"
    for col in ("ke_loss", "ke_loss_merge", "ke_loss_projection"):
        measured.check(f"energy created at touch-down (−{col})", -c[col], 0.0, "J", where=where)
    M, ms = p.body_mass, p.ski_mass
    hdot = p.offset_exponent * (p.offset_end - p.offset_start) / p.stroke_time
    measured.allclose("merge share vs ½ M m_s/(M + m_s) ḣ(T)²", c["ke_loss_merge"], 0.5 * M * ms / (M + ms) * hdot**2,
                      rtol=1e-12, unit="J", where=where, argued=MERGE_ROUNDING)
    measured.check("shares: |merge + projection − total| / T⁻",
                   abs(c["ke_loss_merge"] + c["ke_loss_projection"] - c["ke_loss"]) / c["ke_before"], 1e-13, "rel.",
                   where=where)
    measured.check("u after the touch-down − u0", abs(c["u_after"] - ss.u0), 1e-10, "m/s", where=where, argued=FIXED_POINT)
    measured.check("max|Cq q̇⁺ + Ct| after the touch-down", c["touchdown_residual"], 1e-12, "m/s", where=where)
    measured.check("KE before the touch-down − KE at the stroke's end", abs(c["ke_before"] - ss.strokes["ke_end"].iloc[0]),
                   0.0, "J", where=where)


def test_plastic_touchdown_with_moving_drivers_and_a_spinning_ski(measured):
    """Laws whose drivers move at the touch-down: a heading turning at a constant rate (the old
    ski spins, ψ̇(T) ≠ 0; the new ski's heading driver has Ct ≠ 0) and an offset growing linearly
    (p = 1: ḣ(0) ≠ 0).  The merge then also loses the ski's spin ½ I_zz ψ̇(T)² (I_zz = m_s(L² + w²)/12
    of the box), and the projection's energy is T_c − T⁺ = ½ΔᵀMΔ − Ctᵀν: the drivers' impulsive
    work Ctᵀν has either sign, so neither the projection's share nor the total need be ≥ 0.
    Tolerances as in the run from rest."""
    from skilib.models.free.params import default_laws

    p = sk.FreeSkaterParams(offset_exponent=1.0)
    T, a, dpsi = p.stroke_time, math.radians(p.skating_angle_deg), math.radians(p.steer_deg)
    base = default_laws(p)
    laws = sk.FreeLaws(heading=sk.Polynomial([-a / 2, dpsi / T]), offset=base.offset, height=base.height)
    res = sk.simulate_free(p, strokes=4, v0=2.0, laws=laws, touchdown="plastic")
    I_zz = p.ski_mass * (p.ski_length**2 + p.ski_width**2) / 12
    spin = 0.5 * I_zz * (dpsi / T) ** 2
    measured.exceeds("the ski's spin energy at τ = T", spin, 1e-3, "J")
    _check_plastic_touch_downs(res, measured, "moving drivers")


# -- the two leg powers: the placement drivers' (the budget) and F·(Ṙ_B − Ṙ_ski) ----------------
def test_the_leg_power_is_the_drivers_power_plus_the_heading_work(measured):
    """mean_leg_power_translational, from the works integrated with the stroke
    ((W_leg + W_heading − Δ½ω_sᵀI_sω_s)/T), against an independent quadrature of the frame's
    F·(Ṙ_B − Ṙ_ski) (Simpson on a 2 ms grid) for every stroke of a run from u = 0.5 m/s with the
    default steer; without steer the ski does not turn, the leg's moment does no work and the two
    powers are the same number."""
    from scipy.integrate import simpson

    p = sk.FreeSkaterParams()
    r = sk.simulate_free(p, strokes=3, v0=0.5, dt_out=0.002)
    for k, g in r.frame.groupby("stroke"):
        quad = simpson(g["leg_power_translational"].to_numpy(), x=g["tau"].to_numpy()) / p.stroke_time
        measured.allclose("mean F·(Ṙ_B − Ṙ_ski): works vs Simpson of the frame", r.strokes.mean_leg_power_translational.iloc[k - 1],
                          quad, rtol=1e-8, unit="W", where=f"stroke {k}")
    st = r.strokes
    measured.exceeds("steer 10°: F·(Ṙ_B − Ṙ_ski) − drivers' power (the heading's share)",
                     (st.mean_leg_power_translational - st.mean_power).abs().min(), 1e-3, "W")
    s0 = sk.simulate_free(sk.FreeSkaterParams(steer_deg=0.0), strokes=2, v0=0.5).strokes
    measured.allclose("steer 0: F·(Ṙ_B − Ṙ_ski) vs the drivers' power", s0.mean_leg_power_translational, s0.mean_power,
                      rtol=1e-12, unit="W")
