"""A massless strut from a fixed ground point (``skilib.engine.Strut``, e.g. a ski pole) and its
push ``SineSquaredPulse``.  Checked against what they must be, derived by hand: the force
F(t)(H − T)/|H − T| along the line from the tip T to the hand H and its power F·ṙ (the ski
pole's hand at (X, Y + 0.25, 1.45 m)); the moment part of the generalized force against
Q = J_rᵀF with J_r = ∂r/∂q by central differences; integrated, the work–energy balance
ΔKE + ΔPE = ∫ strut power dt, and a vertical strut's closed form z̈ = F(t)/m − g; the compiled
kernels against the numeric engine (the tip a kernel parameter, not baked in); the pulse's
value, slope, peak, integral and symbolic form; bad input refused by name.

Tolerances.  The hand-derived force does the same few floating-point operations in another
order: a few ε relative, bounded by 10⁻¹⁴ (≈ 45 ε).  Central differences of r(q) with step
10⁻⁵ err by O(h²|r'''|) ≈ 10⁻¹⁰ plus rounding ε|r|/h ≈ 10⁻¹¹: 10⁻⁸ relative.  The integrations
run DOP853 at rtol = atol = 10⁻¹² over ≈ 0.35 s; their global error stays below 10⁻¹⁰ of the
work, bounded by 10⁻⁸ (relative) and 10⁻⁹ (m/s, m) for the closed form.  The compiled kernels
evaluate the same expressions reordered by common-subexpression elimination: a few ε of each
quantity's scale, bounded by 10⁻¹³ (the Python backend's is the larger, ≈ 10 ε: sympy's Python
printer writes π with 15 digits).  The pulse's sympy form, evaluated by sympy, agrees with its
call to a few ε of F_max: 10⁻¹⁴.
"""
import math
import warnings

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp
from scipy.spatial.transform import Rotation

import skilib as sk
from skilib.engine import EulerParameters, SineSquaredPulse, Strut

G = 9.81
ROUNDING = 1e-14        # hand-derived force and power vs the element's
FD = 1e-8               # central differences of r(q)
INTEGRATION = 1e-8      # work–energy balance, relative to the work
CLOSED_FORM = 1e-9      # vertical strut: velocity [m/s] and height [m]
COMPILED = 1e-13        # compiled kernels vs the numeric engine
POLE_HAND = (0.0, 0.25, 1.45)        # the hand 0.25 m to the left, at a fixed height of 1.45 m
POLE_FOLLOWS = (True, True, False)


def _point_mass(m=70.0, rotation="zxz"):
    """A body whose origin (its centre of mass) is the point the strut pushes on."""
    return sk.RigidBody("skier", m, [12.0, 11.0, 3.0], points={"shoulder": [0.1, -0.2, 0.5]}, rotation=rotation)


def _pole(body, tip, magnitude, point=(0.0, 0.0, 0.0), name="pole", **kw):
    kw.setdefault("hand_offset", POLE_HAND)
    kw.setdefault("hand_follows", POLE_FOLLOWS)
    return Strut(name, body, point, tip, magnitude, **kw)


def _random_zxz_state(rng):
    """A random position near a skier's (hip height ≈ 1 m), ZXZ angles away from θ = 0, π, and
    random velocities."""
    q = np.concatenate([[rng.uniform(-1, 1), rng.uniform(-0.5, 0.5), rng.uniform(0.8, 1.1)],
                        [rng.uniform(-math.pi, math.pi), rng.uniform(0.3, 2.8), rng.uniform(-math.pi, math.pi)]])
    return q, rng.normal(size=6) * np.array([3.0, 1.0, 0.5, 1.0, 1.0, 1.0])


def _zxz_matrix(angles):
    """A = Rz(φ) Rx(θ) Rz(ψ) from scipy (intrinsic z–x–z), not from the engine."""
    return Rotation.from_euler("ZXZ", angles).as_matrix()


# -- 1. the force and its power, derived by hand ---------------------------------------------
def test_a_poles_push_is_its_magnitude_along_the_line_from_tip_to_hand(rng, measured):
    """The ski pole on a point mass (hand at (X, Y + 0.25, 1.45 m), tip fixed in the snow): at
    random states and times, Q = (F, 0) with F = F(t)(H − T)/|H − T| derived by hand, whether
    taken from the element or from ``evaluate``; its power Qᵀq̇ = F·ṙ (relative to |F||ṙ|)."""
    pulse = SineSquaredPulse(300.0, 0.2, 0.35)
    for _ in range(25):
        tip = np.array([rng.uniform(-1.5, -0.3), rng.uniform(-0.2, 0.6), rng.uniform(-0.1, 0.1)])
        body = _point_mass()
        pole = _pole(body, tip, pulse)
        system = sk.MultibodySystem([body], [], [sk.Gravity(), pole])
        q, qd = _random_zxz_state(rng)
        t = rng.uniform(0.2, 0.55)
        X, Y, _ = q[:3]
        hand = np.array([X, Y + 0.25, 1.45])
        d = hand - tip
        F_mag = 300.0 * math.sin(math.pi * (t - 0.2) / 0.35) ** 2
        F = F_mag * d / math.sqrt(d[0] ** 2 + d[1] ** 2 + d[2] ** 2)
        Q_ref = np.concatenate([F, np.zeros(3)])
        Q = pole.generalized(system.state(t, q, qd))
        e = system.evaluate(t, q, qd)
        measured.allclose("Q of the element vs (F(t)(H − T)/|H − T|, 0)", Q, Q_ref, rtol=ROUNDING, unit="N")
        measured.allclose("Q of evaluate(...).forces vs (F(t)(H − T)/|H − T|, 0)", e.forces["pole"], Q_ref,
                          rtol=ROUNDING, unit="N")
        P_ref = F @ qd[:3]
        measured.check("power Qᵀq̇ (evaluate(...).force_power) vs F·ṙ", abs(e.force_power["pole"] - P_ref)
                       / (np.linalg.norm(F) * np.linalg.norm(qd[:3])), ROUNDING, "× |F||ṙ|")
        assert e.force_names.index("pole") == 1 and e.powers[1] == e.force_power["pole"]


@pytest.mark.parametrize("follows", [(True, True, True), POLE_FOLLOWS, (False, True, False)])
def test_the_moment_of_a_push_off_the_origin_is_the_points_jacobian_times_the_force(follows, rng, measured):
    """A strut at a point ū off a rotated body's origin: Q = J_rᵀF, J_r = ∂r/∂q of
    r = R + A(φ, θ, ψ)ū by central differences (A from scipy), F = F(t)(H − T)/|H − T| from
    the hand derived by hand; so Q_θ = Gᵀ(u × F).  And Qᵀq̇ = F·(J_r q̇)."""
    ubar = np.array([0.1, -0.2, 0.5])
    pulse = SineSquaredPulse(250.0, 0.0, 0.4)
    h = 1e-5
    for _ in range(10):
        body = _point_mass()
        tip = np.array([rng.uniform(-1.5, -0.3), rng.uniform(-0.2, 0.6), 0.0])
        offset = rng.uniform(-0.3, 0.3, size=3) + np.array([0.0, 0.0, 0.6])
        strut = Strut("arm", body, "shoulder", tip, pulse, hand_offset=offset, hand_follows=follows)
        system = sk.MultibodySystem([body], [], [strut])
        q, qd = _random_zxz_state(rng)
        t = rng.uniform(0.05, 0.35)

        def r_of(qq):
            return qq[:3] + _zxz_matrix(qq[3:]) @ ubar

        r = r_of(q)
        assert np.allclose(body.rotation.A(q[3:]), _zxz_matrix(q[3:]), rtol=0, atol=1e-15)
        J = np.zeros((3, 6))
        for k in range(6):
            dq = np.zeros(6)
            dq[k] = h
            J[:, k] = (r_of(q + dq) - r_of(q - dq)) / (2 * h)
        hand = np.where(follows, r + offset, offset)
        d = hand - tip
        F = pulse(t) * d / np.linalg.norm(d)
        Q_ref = J.T @ F
        Q = strut.generalized(system.state(t, q, qd))
        measured.check("Q (moment part Gᵀ(u × F)) vs J_rᵀF, J_r by central differences",
                       np.abs(Q - Q_ref).max() / np.abs(Q_ref).max(), FD, "× max|Q|")
        P = system.evaluate(t, q, qd).force_power["arm"]
        rdot = J @ qd
        measured.check("power Qᵀq̇ vs F·(J_r q̇)", abs(P - F @ rdot) / (np.linalg.norm(F) * np.linalg.norm(rdot)), FD,
                       "× |F||ṙ|")


# -- 2. integrated ---------------------------------------------------------------------------
def test_the_work_of_a_poles_push_is_the_change_of_energy(measured):
    """A point mass under gravity pushed by a ski pole with a sin² push, integrated (DOP853,
    10⁻¹²) with the strut's power as an extra state: ΔKE + ΔPE = ∫ Qᵀq̇ dt, relative to the
    work; the run sees the whole push (the work is large: ≈ 10² J)."""
    m, t0, dt = 70.0, 0.3, 0.35
    body = _point_mass(m)
    pole = _pole(body, [-0.9, 0.35, 0.0], SineSquaredPulse(320.0, t0, dt))
    system = sk.MultibodySystem([body], [], [sk.Gravity((0.0, 0.0, -G)), pole])
    q0 = np.array([0.0, 0.0, 1.0, 0.2, 1.3, -0.4])
    qd0 = np.array([4.0, 0.1, 0.3, 0.0, 0.0, 0.0])

    def rhs(t, y):
        e = system.evaluate(t, y[:6], y[6:12])
        return np.concatenate([y[6:12], e.qdd, [e.force_power["pole"]]])

    sol = solve_ivp(rhs, (t0, t0 + dt), np.concatenate([q0, qd0, [0.0]]), method="DOP853", rtol=1e-12, atol=1e-12)
    assert sol.success
    y1 = sol.y[:, -1]

    def energy(y):
        return system.kinetic_energy(y[:6], y[6:12]) + m * G * y[2]

    work = y1[12]
    assert work > 50.0
    measured.allclose("ΔKE + ΔPE vs ∫ strut power dt", energy(y1) - energy(sol.y[:, 0]), work, rtol=INTEGRATION,
                      unit="J")
    # the same balance through the engine's integrator, the work by quadrature of its dense output
    res = sk.solve_dynamics(system, (t0, t0 + dt), q0, qd0, method="DOP853", rtol=1e-12, atol=1e-12,
                            dense_output=True)
    W, _ = quad(lambda t: system.evaluate(t, res.sol(t)[:6], res.sol(t)[6:]).force_power["pole"], t0, t0 + dt,
                epsabs=0.0, epsrel=1e-13, limit=200)
    y_end = np.concatenate([res.q[-1], res.qd[-1]])
    measured.allclose("solve_dynamics: ΔKE + ΔPE vs ∫ strut power dt (quadrature of the dense output)",
                      energy(y_end) - energy(np.concatenate([q0, qd0])), W, rtol=INTEGRATION, unit="J")


@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_a_vertical_strut_lifts_the_mass_by_the_integral_of_its_pulse(rotation, measured):
    """The tip directly below a hand that is the body point (offset 0, hand_follows all True), the
    mass moving only vertically: z̈ = F(t)/m − g, so with τ = t − t0 and ∫ sin² = τ/2 − Δt/(4π)
    sin(2πτ/Δt), ż = ż0 − gτ + (F_max/m)(τ/2 − Δt/(4π) sin(2πτ/Δt)) (at τ = Δt: ż0 − gΔt +
    F_maxΔt/(2m)) and z its integral, against ``solve_dynamics`` (DOP853, 10⁻¹²)."""
    m, F_max, t0, dt, v0, z0 = 60.0, 900.0, 0.4, 0.35, -0.5, 1.0
    body = _point_mass(m, rotation=rotation)
    strut = Strut("lift", body, [0, 0, 0], [0.3, -0.2, 0.0], SineSquaredPulse(F_max, t0, dt))
    system = sk.MultibodySystem([body], [], [sk.Gravity((0.0, 0.0, -G)), strut])
    if rotation == "zxz":
        q0 = np.array([0.3, -0.2, z0, 0.4, 1.2, -0.3])
    else:
        q0 = np.concatenate([[0.3, -0.2, z0], EulerParameters.from_matrix(_zxz_matrix([0.4, 1.2, -0.3]))])
    qd0 = np.zeros(system.nq)
    qd0[2] = v0
    tau = np.linspace(0.0, dt, 8)
    res = sk.solve_dynamics(system, (t0, t0 + dt), q0, qd0, t_eval=t0 + tau, method="DOP853", rtol=1e-12,
                            atol=1e-12)
    w = 2 * math.pi / dt
    v = v0 - G * tau + F_max / m * (tau / 2 - np.sin(w * tau) / (2 * w))
    z = z0 + v0 * tau - G * tau**2 / 2 + F_max / m * (tau**2 / 4 - (1 - np.cos(w * tau)) / (2 * w**2))
    measured.allclose("vertical strut: ż(t0 + Δt) vs ż0 − gΔt + F_max Δt/(2m)", res.qd[-1, 2],
                      v0 - G * dt + F_max * dt / (2 * m), atol=CLOSED_FORM, unit="m/s")
    measured.allclose("vertical strut: ż(t) vs ż0 − gτ + (F_max/m)(τ/2 − Δt/(4π) sin(2πτ/Δt))", res.qd[:, 2],
                      v, atol=CLOSED_FORM, unit="m/s")
    measured.allclose("vertical strut: z(t) vs its integral", res.q[:, 2], z, atol=CLOSED_FORM, unit="m")
    # the strut stays vertical: nothing moves sideways
    assert np.array_equal(res.q[:, :2], np.tile(q0[:2], (len(tau), 1)))


# -- 3. compiled kernels ---------------------------------------------------------------------
def _compiled(system, backend):
    """compile_system with a backend; the C backend may fall back (no compiler): accepted."""
    from skilib.engine.codegen import compile_system
    from skilib.engine.codegen.kernel import BackendFallbackWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BackendFallbackWarning)
        return compile_system(system, backend=backend)


def _compare_compiled(measured, compiled, system, t, q, qd, F_max, what):
    """q̈ and λ relative to max|q̈|; each strut's Q relative to the largest force it can apply (the
    pole: its pulse's F_max, as Q = (F, 0); the arm, never near zero: max|Q| at the state) and
    its power relative to that scale times ‖q̇‖.  Not relative to the pole's F(t) at the state:
    near the ends of its window sin² is ill-conditioned (a value near a zero)."""
    got = compiled.evaluate(t, q, qd, 2.0, 3.0).copy()
    ref = system.evaluate(t, q, qd, 2.0, 3.0)
    assert got.force_names == ref.force_names
    measured.check("compiled vs numeric: q̈ (and λ)", max(np.abs(got.qdd - ref.qdd).max(),
                                                         np.abs(got.lam - ref.lam).max() if ref.lam.size else 0.0)
                   / np.abs(ref.qdd).max(), COMPILED, "× max|q̈|", where=what)
    for name, scale in (("pole", F_max), ("arm", np.abs(ref.forces["arm"]).max())):
        measured.check("compiled vs numeric: the strut's Q", np.abs(got.forces[name] - ref.forces[name]).max() / scale,
                       COMPILED, "× its largest force", where=f"{what}: {name}")
        measured.check("compiled vs numeric: the strut's power Qᵀq̇",
                       abs(got.force_power[name] - ref.force_power[name]) / (scale * np.linalg.norm(qd)), COMPILED,
                       "× its largest force × ‖q̇‖", where=f"{what}: {name}")


@pytest.mark.parametrize("backend", ["python", "c"])
@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_compiled_kernels_give_the_strut_of_the_numeric_engine(backend, rotation, rng, measured):
    """compile_system (the Python and the C backend) on a body with the ski pole (sin² push,
    traced) and an arm strut off its origin (a plain callable: a kernel input): q̈, λ and each
    strut's Q and power Qᵀq̇ equal the numeric engine's at random states, relative to their
    scale; systems with another tip, hand offset and pulse (one starting 30 min into a race) reuse
    the same kernel (the tip a kernel parameter, not baked in) and still match; another
    hand_follows is another kernel."""
    def build(tip, pulse, offset, follows=POLE_FOLLOWS):
        body = _point_mass(rotation=rotation)
        pole = _pole(body, tip, pulse, hand_follows=follows)
        arm = Strut("arm", body, "shoulder", [0.4, -0.5, 0.0], lambda t: 120.0 + 80.0 * np.sin(t),
                    hand_offset=offset, hand_follows=(True, True, True))
        return sk.MultibodySystem([body], [], [sk.Gravity(), pole, arm])

    def check(system, compiled, F_max, t0, dt, what):
        for k in range(8):
            q, qd = _random_zxz_state(rng)
            if rotation == "euler_parameters":
                q = np.concatenate([q[:3], EulerParameters.from_matrix(_zxz_matrix(q[3:]))])
                qd = np.concatenate([qd[:3], rng.normal(size=4)])
            t = t0 + dt * (k / 7 if k < 2 else rng.uniform())  # both ends of the window, and inside
            _compare_compiled(measured, compiled, system, t, q, qd, F_max, f"{compiled.backend}, {what}")

    first = build([-0.8, 0.3, 0.0], SineSquaredPulse(300.0, 0.0, 0.4), [0.0, 0.1, 0.7])
    c1 = _compiled(first, backend)
    assert c1.backend in (backend, "numba", "python")
    assert not c1.numeric_forces and c1.kernel.n_inputs == 1  # both traced; the arm's magnitude an input
    check(first, c1, 300.0, 0.0, 0.4, "first tip")
    for tip, (F_max, t0, dt), offset in (([-1.3, -0.1, 0.05], (450.0, -0.1, 0.6), [0.1, -0.1, 0.5]),
                                         ([-0.5, 0.6, -0.02], (380.0, 1800.0, 0.3), [-0.1, 0.2, 0.6])):
        other = build(tip, SineSquaredPulse(F_max, t0, dt), offset)
        c2 = _compiled(other, backend)
        assert c2.kernel is c1.kernel and not np.array_equal(c2.c, c1.c)
        check(other, c2, F_max, t0, dt, f"tip {tip}, push from t0 = {t0} s (same kernel)")
    follows = _compiled(build([-0.8, 0.3, 0.0], SineSquaredPulse(300.0, 0.0, 0.4), [0.0, 0.1, 0.7],
                              follows=(True, True, True)), backend)
    assert follows.kernel is not c1.kernel


# -- 4. the sin² pulse ----------------------------------------------------------------------
@pytest.mark.parametrize("F_max, t0, dt", [(300.0, 0.2, 0.35), (1.0, -1.5, 2.0), (850.0, 12.25, 0.11)])
def test_the_sine_squared_pulse_starts_and_ends_flat_and_peaks_at_its_maximum(F_max, t0, dt, measured):
    """F(t) = F_max sin²(π(t − t0)/Δt): 0 with zero slope (central differences) at t0 and
    t0 + Δt, slope πF_max/Δt at t0 + Δt/4, F_max at t0 + Δt/2 and nowhere more on the window,
    ∫ over the window = F_max Δt/2 (scipy quad); its sympy form equals the call."""
    import sympy as sp

    p = SineSquaredPulse(F_max, t0, dt)
    slope_max = math.pi * F_max / dt
    h = 1e-6 * dt

    def slope(t):
        tp, tm = t + h, t - h  # the step as represented (t + h − (t − h) is not 2h exactly)
        return (p(tp) - p(tm)) / (tp - tm)

    for t_end in (t0, t0 + dt):
        measured.check("F at t0 and t0 + Δt vs 0", abs(p(t_end)) / F_max, 1e-14, "× F_max")
        measured.check("slope (central differences) at t0 and t0 + Δt vs 0", abs(slope(t_end)) / slope_max, 1e-8,
                       "× πF_max/Δt")
    measured.allclose("slope (central differences) at t0 + Δt/4 vs πF_max/Δt", slope(t0 + dt / 4), slope_max,
                      rtol=1e-8)
    measured.allclose("F(t0 + Δt/2) vs F_max", p(t0 + dt / 2), F_max, rtol=1e-14)
    grid = np.linspace(t0, t0 + dt, 2001)
    assert max(p(t) for t in grid) <= F_max
    integral, _ = quad(p, t0, t0 + dt, epsabs=0.0, epsrel=1e-13)
    measured.allclose("∫ F dt over the window (quad) vs F_max Δt/2", integral, F_max * dt / 2, rtol=1e-12)
    t = sp.Symbol("t")
    expr = p.symbolic(t)
    assert expr.free_symbols == {t}
    ts = np.concatenate([grid[::250], [t0 - 0.3 * dt, t0 + 1.7 * dt]])
    calls = np.array([p(tk) for tk in ts])
    measured.check("symbolic(t) (sympy, evaluated) vs __call__",
                   np.abs(np.array([float(expr.subs(t, tk)) for tk in ts]) - calls) / F_max, 1e-14, "× F_max")


# -- 5. bad input ---------------------------------------------------------------------------
def test_bad_strut_and_pulse_input_is_refused_by_name():
    """Each bad argument is a ValueError naming it: a magnitude that is no callable, a tip or
    hand offset of the wrong shape or not finite, hand_follows not three booleans; at evaluation,
    a negative or NaN magnitude (naming the strut and the time) and a hand at the tip; a pulse
    with a negative or NaN F_max, a duration ≤ 0 or a NaN start."""
    body = _point_mass()
    pulse = SineSquaredPulse(300.0, 0.0, 0.4)
    tip = [-0.8, 0.3, 0.0]
    with pytest.raises(ValueError, match="strut 'pole': magnitude must be a callable"):
        _pole(body, tip, 300.0)
    for bad in ([0.0, 0.0], [[0.0, 0.0, 0.0]], [0.0, float("nan"), 0.0], [0.0, 0.0, float("inf")], None, "tip"):
        with pytest.raises(ValueError, match="strut 'pole': tip"):
            _pole(body, bad, pulse)
    for bad in ((0.0, 0.25), (0.0, 0.25, 1.45, 0.0), (0.0, float("nan"), 1.45)):
        with pytest.raises(ValueError, match="strut 'pole': hand_offset"):
            _pole(body, tip, pulse, hand_offset=bad)
    for bad in ((True, True), (1, 1, 0), ("yes", "yes", "no"), (True, True, None), True, (True, True, True, False)):
        with pytest.raises(ValueError, match="strut 'pole': hand_follows must be three booleans"):
            _pole(body, tip, pulse, hand_follows=bad)
    q, qd = np.array([0.0, 0.0, 1.0, 0.2, 1.3, -0.4]), np.zeros(6)
    for value, shown in ((-1.0, "-1.0"), (float("nan"), "nan"), (float("inf"), "inf")):
        system = sk.MultibodySystem([body], [], [_pole(body, tip, lambda t, v=value: v)])
        with pytest.raises(ValueError, match=rf"strut 'pole': magnitude returned {shown} at t=0\.25"):
            system.evaluate(0.25, q, qd)
        with pytest.raises(ValueError, match=rf"strut 'pole': magnitude returned {shown} at t=0\.25"):
            system.forces[0].generalized(system.state(0.25, q, qd))
    # the hand (X, Y + 0.25, 1.45) exactly at the tip: no direction
    at_tip = sk.MultibodySystem([body], [], [_pole(body, [q[0], q[1] + 0.25, 1.45], pulse)])
    with pytest.raises(ValueError, match=r"strut 'pole': the hand is at the tip at t=0\.1; its direction is undefined"):
        at_tip.evaluate(0.1, q, qd)
    for kw, name in ((dict(force_max=-1.0), "force_max: must be >= 0"), (dict(force_max=float("nan")), "force_max"),
                     (dict(duration=0.0), "duration: must be > 0"), (dict(duration=-0.2), "duration: must be > 0"),
                     (dict(duration=float("nan")), "duration"), (dict(start=float("nan")), "start"),
                     (dict(start="0"), "start")):
        args = dict(force_max=300.0, start=0.0, duration=0.4) | kw
        with pytest.raises(ValueError, match=name):
            SineSquaredPulse(**args)
