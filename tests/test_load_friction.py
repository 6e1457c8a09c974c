"""Coulomb friction on a constraint's load (``skilib.engine.LoadFriction``): the load is the
multiplier of a row, solved with q̈ and λ in one linear system (eq. 101 with one more column).
Checked against closed forms of classical mechanics — a block on an incline pressed by a force
at an angle (the load includes that force's component), a ladder sliding on a rough floor
against a smooth wall (its initial acceleration, from an independent Newton–Euler solve) — and
against the law itself: the friction is μN at every state, never pulls (its power is ≤ 0), and
what it does not model (sticking, a pulling load) is refused by name.

Tolerances.  Each reference is exact; every engine result is one solve of a matrix of size ≤ 14
in double precision, with accelerations of order 1–10 m/s² and loads of order 10–100 N, so the
errors are a few ε of those scales, and 10⁻¹² relative bounds them (≈ 4500 ε).
"""
import math

import numpy as np
import pytest

import skilib as sk
from skilib.engine import LoadFriction, NegativeLoadError, SlidingError
from skilib.engine.rotation import EulerParameters

ROUNDING = 1e-12
G = 9.81


def _block_on_incline(theta, mu, P, phi, *, sign=None, m=2.0, smoothing=0.0):
    """A box on an incline of angle θ (course frame: x down the slope, z its normal; gravity
    g (sin θ, 0, −cos θ)), kept on it at its bottom point, in the plane y = 0 and not turning;
    a force P at its centre pressing it towards the slope at the angle φ from the normal, with
    a down-slope part P sin φ; friction μN at the bottom point along x̄, N the floor row's load."""
    block = sk.RigidBody("block", m, sk.box_inertia(m, 0.3, 0.2, 0.1), rotation="euler_parameters")
    bottom = [0.0, 0.0, -0.05]
    cons = [sk.PointOnPlane("floor", block, bottom, [0, 0, 0], [0, 0, 1]),
            sk.PointOnPlane("side", block, [0, 0, 0], [0, 0, 0], [0, 1, 0]),
            sk.OrientationDriver("level", block, sk.RotationPath(np.eye(3), [0, 0, 1], 0.0))]
    forces = [sk.Gravity((G * math.sin(theta), 0.0, -G * math.cos(theta))),
              sk.ConstantForce("press", block, [0, 0, 0], [P * math.sin(phi), 0.0, -P * math.cos(phi)]),
              LoadFriction("friction", block, bottom, [1, 0, 0], "floor", mu=mu, sign=sign, smoothing=smoothing)]
    system = sk.MultibodySystem([block], cons, forces)
    q = np.concatenate([[0.4, 0.0, 0.05], EulerParameters.from_matrix(np.eye(3))])
    return system, q


@pytest.mark.parametrize("theta_deg, mu, P, phi_deg, v", [
    (20.0, 0.3, 0.0, 0.0, 1.5),      # no press: N = m g cos θ
    (20.0, 0.3, 30.0, 35.0, 1.5),    # pressed at an angle: N gains P cos φ, the drive P sin φ
    (10.0, 0.8, 50.0, -20.0, 0.7),   # pressed against the motion; friction wins: decelerating
    (30.0, 0.2, 40.0, 60.0, -2.0),   # sliding up the slope: friction points down it
])
def test_block_on_an_incline_pressed_at_an_angle(theta_deg, mu, P, phi_deg, v, measured):
    """m a = m g sin θ + P sin φ − sgn(v) μ N with N = m g cos θ + P cos φ: the load carries the
    pressing force's normal part, which a friction of prescribed load would miss."""
    theta, phi, m = math.radians(theta_deg), math.radians(phi_deg), 2.0
    system, q = _block_on_incline(theta, mu, P, phi, m=m)
    qd = np.zeros(7)
    qd[0] = v
    e = system.evaluate(0.0, q, qd)
    N = m * G * math.cos(theta) + P * math.cos(phi)
    a = G * math.sin(theta) + P * math.sin(phi) / m - math.copysign(1.0, v) * mu * N / m
    measured.allclose("block: ẍ vs g sin θ + P sin φ/m − sgn(v) μN/m", e.qdd[0], a, atol=ROUNDING * 10, unit="m/s²")
    measured.allclose("block: load −λ_floor vs m g cos θ + P cos φ", -e.lam[system.rows("floor").start], N,
                      rtol=ROUNDING, unit="N")
    measured.allclose("block: friction force vs −sgn(v) μN x̂", e.forces["friction"][:3],
                      [-math.copysign(1.0, v) * mu * N, 0.0, 0.0], atol=ROUNDING * 100, unit="N")
    measured.allclose("block: friction power vs −μN|v|", e.force_power["friction"], -mu * N * abs(v),
                      rtol=ROUNDING, unit="W")
    # the fixed sign of a mode gives the same solve when it agrees with the velocity
    system_s, _ = _block_on_incline(theta, mu, P, phi, sign=int(math.copysign(1, v)), m=m)
    assert np.array_equal(system_s.evaluate(0.0, q, qd).qdd, e.qdd)


def _ladder(theta, mu, L=3.0, m=12.0, sign=None):
    """A uniform ladder (a rod of length L along its body x̄) in the vertical x–z plane, its foot
    on a rough floor (z = 0) at x = L cos θ and its top on a smooth wall (x = 0) at z = L sin θ;
    friction μN_A at the foot along the ladder's floor direction, N_A the floor row's load."""
    rod = sk.RigidBody("ladder", m, sk.rod_inertia(m, L, axis=0), points={"foot": [L / 2, 0, 0], "top": [-L / 2, 0, 0]},
                       rotation="euler_parameters")
    cons = [sk.PointOnPlane("floor", rod, "foot", [0, 0, 0], [0, 0, 1]),
            sk.PointOnPlane("wall", rod, "top", [0, 0, 0], [1, 0, 0]),
            sk.PointOnPlane("plane", rod, [0, 0, 0], [0, 0, 0], [0, 1, 0]),
            sk.ParallelAxes("planar", rod, [0, 1, 0], None, [0, 1, 0])]
    # x̄ from the centre to the foot is (cos θ, 0, −sin θ): the rotation about y by θ; the
    # friction's axis is the body-fixed direction that is the world's x at this pose
    c, s = math.cos(theta), math.sin(theta)
    Ay = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    axis_body = Ay.T @ np.array([1.0, 0.0, 0.0])
    forces = [sk.Gravity((0.0, 0.0, -G)),
              LoadFriction("friction", rod, "foot", axis_body, "floor", mu=mu, sign=sign)]
    system = sk.MultibodySystem([rod], cons, forces)
    q = np.concatenate([[L / 2 * math.cos(theta), 0.0, L / 2 * math.sin(theta)], EulerParameters.from_matrix(Ay)])
    return system, q, Ay


@pytest.mark.parametrize("theta_deg, mu", [(60.0, 0.2), (45.0, 0.1), (70.0, 0.15), (30.0, 0.0)])
def test_ladder_sliding_on_a_rough_floor_against_a_smooth_wall(theta_deg, mu, measured):
    """From rest, the foot about to slide away from the wall (sign +1): the ladder's initial
    angular acceleration and the floor's and the wall's loads against an independent Newton–Euler
    solve of the planar rod (three equations in θ̈, N_A, N_B):

        m ẍ_G = N_B − μ N_A,   m z̈_G = N_A − m g,   −I_G θ̈ = (L/2)(cos θ − μ sin θ) N_A − (L/2) sin θ N_B

    with ẍ_G = −(L/2) sin θ θ̈ and z̈_G = (L/2) cos θ θ̈ at θ̇ = 0 (θ the ladder's angle to the floor).
    Each case has μ < cot θ / 2, below which the ladder cannot stand: it falls (θ̈ < 0).
    """
    theta, L, m = math.radians(theta_deg), 3.0, 12.0
    system, q, Ay = _ladder(theta, mu, L, m, sign=+1)
    e = system.evaluate(0.0, q, np.zeros(7))
    I = m * L**2 / 12
    h = L / 2
    # unknowns: θ̈, N_A, N_B
    A = np.array([[-m * h * math.sin(theta), mu, -1.0],
                  [m * h * math.cos(theta), -1.0, 0.0],
                  [I, h * (math.cos(theta) - mu * math.sin(theta)), -h * math.sin(theta)]])
    b = np.array([0.0, -m * G, 0.0])
    thdd, NA, NB = np.linalg.solve(A, b)
    measured.allclose("ladder: ẍ_G vs −(L/2) sin θ θ̈", e.qdd[0], -h * math.sin(theta) * thdd, atol=ROUNDING * 10,
                      unit="m/s²")
    measured.allclose("ladder: z̈_G vs (L/2) cos θ θ̈", e.qdd[2], h * math.cos(theta) * thdd, atol=ROUNDING * 10,
                      unit="m/s²")
    measured.allclose("ladder: floor load −λ vs N_A", -e.lam[system.rows("floor").start], NA, rtol=ROUNDING, unit="N")
    measured.allclose("ladder: wall load −λ vs N_B", -e.lam[system.rows("wall").start], NB, rtol=ROUNDING, unit="N")
    assert thdd < 0  # the ladder falls: θ decreases


def test_friction_is_mu_times_the_load_and_never_pulls(rng, measured):
    """At random sliding states of the pressed block (speeds of either sign, random presses
    that keep the load positive): |F| = μN, F opposes the sliding, its power −μN|v| ≤ 0; the
    work–energy identity of eq. 101, d(KE)/dt = Σ powers, holds with the friction's power."""
    for _ in range(40):
        theta, mu = rng.uniform(0, 0.6), rng.uniform(0, 1.0)
        P, phi = rng.uniform(0, 80), rng.uniform(-1.2, 1.2)
        system, q = _block_on_incline(theta, mu, P, phi)
        qd = np.zeros(7)
        qd[0] = rng.choice([-1, 1]) * rng.uniform(0.01, 5)
        e = system.evaluate(0.0, q, qd)
        N = -e.lam[system.rows("floor").start]
        F = e.forces["friction"][:3]
        measured.allclose("|F| vs μN", np.linalg.norm(F), mu * N, rtol=ROUNDING, atol=ROUNDING, unit="N")
        measured.check("friction power (≤ 0: it never pulls)", max(e.force_power["friction"], 0.0), 0.0, "W")
        # the box does not turn (ω = 0), so d(KE)/dt = q̇ᵀ M q̈; the powers: forces' and rows'
        measured.allclose("d(KE)/dt vs Σ powers (forces and rows)", qd @ e.M @ e.qdd,
                          e.powers[: len(e.force_names) + system.nc].sum(), rtol=ROUNDING, atol=ROUNDING, unit="W")


def test_sticking_and_pulling_loads_are_refused_by_name():
    """A point at rest along its axis (|v| < min_speed) has static friction, which the law does not
    model: SlidingError naming the force, time and speed; a load that pulls (the block lifted by a
    force stronger than its weight's normal part): NegativeLoadError naming the force, row and N.
    Smoothing replaces the refusal by tanh(v/smoothing)."""
    system, q = _block_on_incline(0.2, 0.3, 0.0, 0.0)
    with pytest.raises(SlidingError, match=r"force 'friction'.*1\.000e-08 m/s.*t=0\.5 s"):
        qd = np.zeros(7)
        qd[0] = 1e-8
        system.evaluate(0.5, q, qd)
    lift, _ = _block_on_incline(0.2, 0.3, 60.0, math.pi)  # P = 60 N pulling away from the slope
    qd = np.zeros(7)
    qd[0] = 1.0
    with pytest.raises(NegativeLoadError, match=r"force 'friction'.*row 0 of constraint 'floor'.*N = -4"):
        lift.evaluate(0.0, q, qd)
    block = sk.RigidBody("b", 1.0, [0.1, 0.1, 0.1], rotation="euler_parameters")
    smooth = sk.MultibodySystem([block], [sk.PointOnPlane("floor", block, [0, 0, 0], [0, 0, 0], [0, 0, 1])],
                                [sk.Gravity(), LoadFriction("f", block, [0, 0, 0], [1, 0, 0], "floor", mu=0.5,
                                                            smoothing=0.1)])
    qs = np.concatenate([[0, 0, 0], EulerParameters.from_matrix(np.eye(3))])
    qds = np.zeros(7)
    qds[0] = 0.05
    e = smooth.evaluate(0.0, qs, qds)
    assert math.isclose(e.forces["f"][0], -0.5 * 9.81 * math.tanh(0.5), rel_tol=1e-12)


def test_bad_load_friction_is_refused_by_name():
    block = sk.RigidBody("b", 1.0, [0.1, 0.1, 0.1], rotation="euler_parameters")
    floor = sk.PointOnPlane("floor", block, [0, 0, 0], [0, 0, 0], [0, 0, 1])
    with pytest.raises(ValueError, match="no constraint named 'snow'"):
        sk.MultibodySystem([block], [floor], [LoadFriction("f", block, [0, 0, 0], [1, 0, 0], "snow", mu=0.1)])
    with pytest.raises(ValueError, match="'floor' has 1 row"):
        sk.MultibodySystem([block], [floor], [LoadFriction("f", block, [0, 0, 0], [1, 0, 0], "floor", row=1, mu=0.1)])
    for kw, msg in [(dict(mu=-0.1), "f: mu"), (dict(mu=0.1, load_sign=0), "load_sign"), (dict(mu=0.1, sign=2), "sign"),
                    (dict(mu=float("nan")), "f: mu"), (dict(mu=0.1, min_speed=0.0), "min_speed")]:
        with pytest.raises(ValueError, match=msg):
            LoadFriction("f", block, [0, 0, 0], [1, 0, 0], "floor", **kw)
    with pytest.raises(ValueError, match="axis"):
        LoadFriction("f", block, [0, 0, 0], [0, 0, 0], "floor", mu=0.1)
    # sgn(v_t) with its min_speed refusal is decided per call: the compiled kernels refuse it by name
    system = sk.MultibodySystem([block], [floor], [LoadFriction("f", block, [0, 0, 0], [1, 0, 0], "floor", mu=0.1)])
    with pytest.raises(NotImplementedError, match="force 'f' \\(LoadFriction\\).*sign=\\+1 or -1.*compiled=False"):
        from skilib.engine.codegen import compile_system
        compile_system(system, backend="python")
    with pytest.raises(TypeError, match="force 'f' \\(LoadFriction\\) depends on the multiplier"):
        system.generalized_forces(0.0, np.concatenate([[0, 0, 0], [1, 0, 0, 0]]), np.zeros(7))


def test_a_sliding_block_follows_the_parabola_of_its_constant_deceleration(measured):
    """Integrated (``solve_dynamics``, Baumgarte): the pressed block sliding up the slope (v < 0)
    has the constant acceleration a = g sin θ + P sin φ/m + μN/m down the slope (friction points
    down while it slides up), so up to 90 % of its stopping time x(t) = x0 + v0 t + ½ a t² to the
    integrator's tolerance (10⁻¹² per step; 10⁻⁹ m over the run)."""
    theta, mu, P, phi, m, v0 = math.radians(15.0), 0.25, 20.0, math.radians(30.0), 2.0, -3.0
    system, q = _block_on_incline(theta, mu, P, phi, m=m)
    N = m * G * math.cos(theta) + P * math.cos(phi)
    a = G * math.sin(theta) + P * math.sin(phi) / m + mu * N / m  # sliding up (v < 0): friction points down-slope
    t_stop = -v0 / a
    qd = np.zeros(7)
    qd[0] = v0
    t = np.linspace(0.0, 0.9 * t_stop, 11)
    res = sk.solve_dynamics(system, (0.0, t[-1]), q, qd, t_eval=t, method="DOP853", rtol=1e-12, atol=1e-12)
    measured.allclose("block: x(t) vs x0 + v0 t + ½ a t²", res.q[:, 0], q[0] + v0 * t + 0.5 * a * t**2, atol=1e-9,
                      unit="m")
    measured.allclose("block: ẋ(t) vs v0 + a t", res.qd[:, 0], v0 + a * t, atol=1e-9, unit="m/s")


# -- the compiled kernels assemble the same column (skilib.engine.codegen) --------------------
def _edge_system(sign=1):
    """The edged skater's system at the periodic stroke's touch-down (ZXZ angles): gravity, drag
    and friction μN on the snow row's load, with its heading, edge, fore–aft and leg rows."""
    from skilib.models.edge import EdgeSkaterParams
    from skilib.models.edge.skating import EdgeSkating, edge_run_options

    p = EdgeSkaterParams(cm_height=0.8341)
    o = edge_run_options(p, strokes=1, v0=3.6785, lean_rate=-0.3436, first_ski="right", rotation="zxz",
                         stabilization="baumgarte", method="DOP853", rtol=1e-10, atol=1e-10, h=0.05, alpha=None,
                         beta=None, dt_out=0.01, n_out=None, max_evaluations=10, max_wall_time=None)
    model, q, qd = EdgeSkating(o).start_from((3.6785, -0.3436, 0.8341, p.landing_offset))
    return model.system(sign), q, qd


def _compare(measured, compiled, system, t, q, qd, alpha, beta, what):
    """The compiled Evaluation against the numeric engine's: q̈ and λ, each force's Q (the
    friction's Q = b λ_k included) and every power, relative to the largest of each kind."""
    got = compiled.evaluate(t, q, qd, alpha, beta).copy()
    ref = system.evaluate(t, q, qd, alpha, beta)
    scale = 1.0 + np.abs(ref.qdd).max() + np.abs(ref.lam).max()
    measured.check("compiled vs numeric: q̈ and λ", max(np.abs(got.qdd - ref.qdd).max(),
                                                         np.abs(got.lam - ref.lam).max()) / scale, ROUNDING,
                   "× (1 + max|q̈| + max|λ|)", where=what)
    assert got.force_names == ref.force_names
    for name, Q in ref.forces.items():
        measured.check("compiled vs numeric: each force's Q (friction: b λ_k)",
                       np.abs(got.forces[name] - Q).max() / (1.0 + np.abs(Q).max()), ROUNDING, "× (1 + max|Q|)",
                       where=f"{what}: {name}")
    measured.check("compiled vs numeric: every power (forces', rows', rows' λCt)",
                   np.abs(got.powers - ref.powers).max() / (1.0 + np.abs(ref.powers).max()), ROUNDING,
                   "× (1 + max|power|)", where=what)
    return got, ref


@pytest.mark.parametrize("backend", ["c", "python"])
def test_compiled_kernels_assemble_the_load_column_as_the_numeric_engine(backend, rng, measured):
    """The compiled kernels (C and Python backends) put Q_f = b λ_k into eq. 101 as the numeric
    engine does, as column k of the matrix: on the pressed block (both sliding signs, and the
    smoothed law), the ladder and the edged skater's system at random states, q̈, λ, the friction's
    Q = b λ_k and every power equal the numeric engine's to 10⁻¹² relative (rounding of two
    orderings of the same arithmetic, ≈ 10 ε of each quantity's scale)."""
    from skilib.engine.codegen import c_compiler, compile_system

    if backend == "c" and c_compiler() is None:
        pytest.skip("no C compiler")
    for _ in range(6):
        theta, mu, P, phi = rng.uniform(0, 0.6), rng.uniform(0, 1.0), rng.uniform(0, 80), rng.uniform(-1.2, 1.2)
        v = rng.choice([-1, 1]) * rng.uniform(0.01, 5)
        for law in (dict(sign=int(np.sign(v))), dict(smoothing=0.3)):
            system, q = _block_on_incline(theta, mu, P, phi, **law)
            qd = np.zeros(7)
            qd[0] = v
            got, ref = _compare(measured, compile_system(system, backend=backend), system, rng.uniform(0, 1), q, qd,
                                3.0, 4.0, f"block {law}")
            N = -got.lam[system.rows("floor").start]
            law_value = 1.0 if "sign" in law else abs(math.tanh(v / 0.3))
            measured.allclose("compiled: friction's |F| vs μN (N = −λ_floor; |tanh(v/0.3)| μN smoothed)",
                              np.linalg.norm(got.forces["friction"][:3]), mu * N * law_value, rtol=ROUNDING,
                              atol=ROUNDING, unit="N")
    for theta_deg, mu in [(60.0, 0.2), (45.0, 0.1)]:
        system, q, _ = _ladder(math.radians(theta_deg), mu, sign=+1)
        _compare(measured, compile_system(system, backend=backend), system, 0.0, q, np.zeros(7), 0.0, 0.0, "ladder")
    for sign in (1, -1):
        system, q, qd = _edge_system(sign)
        compiled = compile_system(system, backend=backend)
        assert not compiled.numeric_forces and compiled.kernel.n_inputs == 0  # everything traced
        for _ in range(3):  # near the touch-down state (the snow keeps pushing: N > 0)
            qs, qds = q + 0.01 * rng.normal(size=q.size), qd + 0.1 * rng.normal(size=q.size)
            if sign == -1:
                qds[:3] *= -1.0  # sliding backwards
            _compare(measured, compiled, system, rng.uniform(0, 0.5), qs, qds, 20.0, 28.3, f"edged skater, sign {sign}")


def test_compiled_kernels_refuse_a_pulling_load_as_the_numeric_engine():
    """On the lifted block (N < 0) every backend raises the numeric engine's NegativeLoadError,
    with its message and attributes; a state the numeric engine accepts is accepted."""
    from skilib.engine.codegen import c_compiler, compile_system

    lift, q = _block_on_incline(0.2, 0.3, 60.0, math.pi, sign=1)
    qd = np.zeros(7)
    qd[0] = 1.0
    with pytest.raises(NegativeLoadError) as numeric:
        lift.evaluate(0.25, q, qd)
    for backend in ["python"] + (["c"] if c_compiler() else []):
        compiled = compile_system(lift, backend=backend)
        for call in (compiled.evaluate, compiled.accelerations):
            with pytest.raises(NegativeLoadError) as got:
                call(0.25, q, qd)
            assert str(got.value) == str(numeric.value)
            assert (got.value.force, got.value.row, got.value.t) == (numeric.value.force, numeric.value.row,
                                                                     numeric.value.t)
            assert math.isclose(got.value.load, numeric.value.load, rel_tol=1e-12)
    pressed, _ = _block_on_incline(0.2, 0.3, 60.0, 0.0, sign=1)
    compile_system(pressed, backend="python").evaluate(0.25, q, qd)  # N > 0: no error


def test_the_structure_key_and_the_kernel_depend_on_the_load_columns():
    """The kernel's structure key includes each load force's row, load sign and sliding law: the
    sliding signs +1 and −1, the smoothed law and a system without the friction have different
    keys and kernels (a cached kernel of another structure is never reused); a new μ, the same
    structure, reuses the kernel."""
    from skilib.engine.codegen import compile_system
    from skilib.engine.codegen.trace import Walk

    def system_of(**law):
        return _block_on_incline(0.3, 0.2, 10.0, 0.4, **law)[0]

    plus, minus, smooth = system_of(sign=1), system_of(sign=-1), system_of(smoothing=0.2)
    without = sk.MultibodySystem(plus.bodies, plus.constraints[:-1], plus.forces[:-1])  # no friction
    keys = [tuple(Walk(s, symbolic=False).key) for s in (plus, minus, smooth, without)]
    assert len(set(keys)) == 4
    kernels = [compile_system(s, backend="python").kernel for s in (plus, minus, smooth, without)]
    assert len({id(k) for k in kernels}) == 4
    assert kernels[0].load_rows == [-1, -1, plus.rows("floor").start] and kernels[3].load_rows == [-1, -1]
    other_mu = _block_on_incline(0.3, 0.7, 10.0, 0.4, sign=1)[0]
    assert tuple(Walk(other_mu, symbolic=False).key) == keys[0]
    assert compile_system(other_mu, backend="python").kernel is kernels[0]
