"""Velocity (non-holonomic) constraints B q̇ + b = 0 in the engine (``skilib.engine.nonholonomic``),
each system checked against a result it cannot have been tuned to: closed-form solutions (the
Chaplygin sleigh, a knife edge turning on an inclined plane), conservation of energy (a rolling
disk), an independent derivation with sympy's ``KanesMethod`` and its ``velocity_constraints``,
and the numeric engine for the generated kernels."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import skilib as sk
from skilib.engine.codegen import compile_system
from skilib.engine.rotation import ZXZ, EulerParameters

G = 9.81


# -- the Chaplygin sleigh ------------------------------------------------------------------------
def sleigh(rotation, m=2.0, inertia=0.3, a=0.4):
    """A flat body on z = 0 with a knife edge at distance a ahead of its centre of mass."""
    b = sk.RigidBody("sleigh", m, [0.1, 0.2, inertia], rotation=rotation)
    if rotation == "zxz":  # θ and ψ held one by one: φ is the heading
        flat = [sk.FixedCoordinate("theta", b, 4, 0.0), sk.FixedCoordinate("psi", b, 5, 0.0)]
    else:
        flat = [sk.ParallelAxes("flat", b, [0, 0, 1], None, [0, 0, 1])]
    cons = [sk.FixedCoordinate("z", b, 2, 0.0), *flat, sk.KnifeEdge("edge", b, [a, 0, 0], [0, 1, 0])]
    return b, sk.MultibodySystem([b], cons)


def sleigh_state(system, rotation, u0, w0, a):
    q0 = np.zeros(system.nq)
    if rotation != "zxz":
        q0[3] = 1.0
    qd0 = np.zeros(system.nq)
    qd0[:2] = u0, -a * w0  # the edge's lateral velocity v + aω vanishes
    if rotation == "zxz":
        qd0[3] = w0
    else:
        qd0[3:7] = 0.5 * np.array([0.0, 0.0, 0.0, w0])  # ṗ = ½ E(p)ᵀω at p = (1, 0, 0, 0)
    return q0, qd0


@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
@pytest.mark.parametrize("stabilization", ["baumgarte", "projection"])
def test_chaplygin_sleigh_closed_form(rotation, stabilization, measured):
    """Chaplygin sleigh (Neimark & Fufaev 1972; Bloch 2003, §1.7): with u the centre of mass's
    velocity along the sleigh and ω its turning rate, u̇ = −aω² and (I + ma²)ω̇ = m a u ω, so
    that with c = (I + ma²)/m and V² = u² + cω² (the energy): u = −V tanh(κ(t − t0)),
    ω = ±(V/√c) sech(κ(t − t0)), κ = aV/c.  Energy constant; the edge never slips."""
    m, inertia, a, u0, w0 = 2.0, 0.3, 0.4, 1.0, 2.0
    b, system = sleigh(rotation, m, inertia, a)
    q0, qd0 = sleigh_state(system, rotation, u0, w0, a)
    t = np.linspace(0.0, 5.0, 51)
    res = sk.solve_dynamics(system, (0.0, 5.0), q0, qd0, method="DOP853", rtol=1e-11, atol=1e-12, t_eval=t,
                            stabilization=stabilization, h=0.05)
    A = [b.rotation.A(q[3:]) for q in res.q]
    ex = np.array([Ak[:, 0] for Ak in A])
    u = np.einsum("ij,ij->i", res.qd[:, :3], ex)
    w = np.array([(b.rotation.G(q[3:]) @ qd[3:])[2] for q, qd in zip(res.q, res.qd)])
    c = (inertia + m * a * a) / m
    V = math.sqrt(u0**2 + c * w0**2)
    kap = a * V / c
    t0 = math.atanh(u0 / V) / kap
    measured.allclose("u(t) vs closed form", u, -V * np.tanh(kap * (t - t0)), atol=1e-8, unit="m/s")
    measured.allclose("ω(t) vs closed form", w, V / math.sqrt(c) / np.cosh(kap * (t - t0)), atol=1e-8, unit="rad/s")
    energy = np.array([system.kinetic_energy(q, qd) for q, qd in zip(res.q, res.qd)])
    measured.check("energy drift", np.ptp(energy), 1e-9, "J")
    measured.check("edge's lateral velocity |B q̇|", res.nonholonomic_norm.max(), 1e-8, "m/s")


@pytest.mark.slow
@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_knife_edge_on_an_inclined_plane_turning_at_a_constant_rate(rotation, measured):
    """A knife edge on a plane inclined at β, its heading driven at the rate ω, released from rest
    (Bloch 2003, §1.6): x = g sinβ/(2ω²) sin²ωt downhill, y = g sinβ/(2ω²)(ωt − ½ sin 2ωt) across."""
    m, beta, om = 1.5, math.radians(20.0), 1.3
    b = sk.RigidBody("blade", m, [0.01, 0.2, 0.21], rotation=rotation)
    if rotation == "zxz":
        cons = [sk.CoordinateDriver("heading", b, 3, sk.Polynomial([0.0, om])),
                sk.FixedCoordinate("theta", b, 4, 0.0), sk.FixedCoordinate("psi", b, 5, 0.0)]
        q0 = np.zeros(6)
    else:
        cons = [sk.OrientationDriver("heading", b, sk.RotationPath(np.eye(3), [0, 0, 1], sk.Polynomial([0.0, om])))]
        q0 = np.array([0, 0, 0, 1.0, 0, 0, 0])
    cons += [sk.FixedCoordinate("z", b, 2, 0.0), sk.KnifeEdge("edge", b, [0, 0, 0], [0, 1, 0])]
    system = sk.MultibodySystem([b], cons, [sk.Gravity(g=(G * math.sin(beta), 0.0, -G * math.cos(beta)))])
    assert system.dof == 1 and system.position_dof == 2
    q0, qd0 = sk.consistent_initial_conditions(system, 0.0, q0, np.zeros(system.nq))
    t = np.linspace(0.0, 6.0, 61)
    res = sk.solve_dynamics(system, (0.0, 6.0), q0, qd0, method="DOP853", rtol=1e-11, atol=1e-12, t_eval=t, h=0.02)
    k = G * math.sin(beta) / (2 * om**2)
    measured.allclose("x(t) vs closed form", res.q[:, 0], k * np.sin(om * t) ** 2, atol=1e-10, unit="m")
    measured.allclose("y(t) vs closed form", res.q[:, 1], k * (om * t - 0.5 * np.sin(2 * om * t)), atol=1e-10,
                      unit="m")
    # the edge's multiplier is its lateral force: m v ω = λ − m g sinβ sin ωt across the blade,
    # with v = (g sinβ/ω) sin ωt, so |λ| = 2 m g sinβ |sin ωt|
    lam = res.lam[:, system.rows("edge")][:, 0]
    measured.allclose("edge force |λ| vs 2 m g sinβ |sin ωt|", np.abs(lam),
                      2 * m * G * math.sin(beta) * np.abs(np.sin(om * t)), atol=1e-8, unit="N")


# -- a rolling disk ----------------------------------------------------------------------------
def disk(rotation, m=1.2, r=0.3):
    b = sk.RigidBody("disk", m, [0.25 * m * r * r, 0.25 * m * r * r, 0.5 * m * r * r], rotation=rotation)
    return b, sk.MultibodySystem([b], [sk.RollingDisk("roll", b, r)], [sk.Gravity(g=(0, 0, -G))])


def disk_state(system, rotation, r, tilt, v, yaw_rate):
    """The disk touching the origin, axis tilted by ``tilt`` from the horizontal, rolling at v."""
    th = np.array([0.0, math.pi / 2 + tilt, 0.0])
    A = ZXZ.A(th)
    n = A[:, 2]
    w = np.array([0.0, 0.0, 1.0]) - n[2] * n
    k = w / np.linalg.norm(w)
    omega = -(v / r) * n + np.array([0.0, 0.0, yaw_rate])
    Cdot = np.cross(omega, r * k)  # the contact point's material velocity vanishes
    if rotation == "zxz":
        q0, qd0 = np.concatenate([r * k, th]), np.concatenate([Cdot, ZXZ.rates(th, omega)])
    else:
        p = EulerParameters.from_matrix(A)
        qd_p = np.linalg.lstsq(EulerParameters.G(p), omega, rcond=None)[0]
        q0, qd0 = np.concatenate([r * k, p]), np.concatenate([Cdot, qd_p])
    return sk.consistent_initial_conditions(system, 0.0, q0, qd0)


@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_rolling_disk_steady_rolling_and_energy(rotation, measured):
    """An upright disk rolling straight at v is a steady motion: x = v t, spin v/r, the same
    height.  Tilted and turning, it wobbles; its energy stays constant and it never slips."""
    m, r, v = 1.2, 0.3, 1.5
    b, system = disk(rotation, m, r)
    assert system.dof == 3 and system.position_dof == 5
    q0, qd0 = disk_state(system, rotation, r, 0.0, v, 0.0)
    t = np.linspace(0.0, 2.0, 21)
    res = sk.solve_dynamics(system, (0.0, 2.0), q0, qd0, method="DOP853", rtol=1e-11, atol=1e-12, t_eval=t, h=0.02)
    measured.allclose("straight rolling: x = v t", res.q[:, 0], v * t, atol=1e-9, unit="m")
    measured.allclose("straight rolling: y, height", res.q[:, 1:3], np.tile([0.0, r], (len(t), 1)), atol=1e-9,
                      unit="m")
    spin = np.array([np.linalg.norm(b.rotation.G(q[3:]) @ qd[3:]) for q, qd in zip(res.q, res.qd)])
    measured.allclose("straight rolling: spin = v/r", spin, np.full(len(t), v / r), atol=1e-9, unit="rad/s")
    q0, qd0 = disk_state(system, rotation, r, 0.1, 2.0, 0.0)
    res = sk.solve_dynamics(system, (0.0, 2.0), q0, qd0, method="DOP853", rtol=1e-10, atol=1e-11, t_eval=t, h=0.02)
    energy = np.array([system.kinetic_energy(q, qd) for q, qd in zip(res.q, res.qd)]) + m * G * res.q[:, 2]
    tilt = np.array([abs(b.rotation.A(q[3:])[2, 2]) for q in res.q])
    measured.exceeds("wobble: range of the axis's vertical component", np.ptp(tilt), 1e-2)
    measured.check("wobbling disk: energy drift", np.ptp(energy), 1e-8, "J")
    measured.check("wobbling disk: contact slip |B q̇|", res.nonholonomic_norm.max(), 1e-8, "m/s")
    measured.check("wobbling disk: contact height |C|", res.constraint_norm.max(), 1e-8, "m")


# -- an independent derivation: KanesMethod with velocity constraints --------------------------
def kane_sleigh_with_trailer(m1, I1, a, b, m2, I2, c):
    """x, y of the sleigh's centre of mass, its heading φ1 and the trailer's φ2 (a body pinned
    at b behind the sleigh's centre, its own centre c behind the pin): Kane's equations with
    the knife edge as a velocity constraint (sympy.physics.mechanics.KanesMethod)."""
    import sympy as sp
    from sympy.physics.mechanics import KanesMethod, Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia

    x, y, p1, p2 = dynamicsymbols("x y p1 p2")
    ux, uy, w1, w2 = dynamicsymbols("ux uy w1 w2")
    N = ReferenceFrame("N")
    B1 = N.orientnew("B1", "Axis", (p1, N.z))
    B2 = N.orientnew("B2", "Axis", (p2, N.z))
    B1.set_ang_vel(N, w1 * N.z)
    B2.set_ang_vel(N, w2 * N.z)
    O = Point("O")
    O.set_vel(N, 0)
    C1 = O.locatenew("C1", x * N.x + y * N.y)
    C1.set_vel(N, ux * N.x + uy * N.y)
    P = C1.locatenew("P", a * B1.x)
    P.v2pt_theory(C1, N, B1)
    Q = C1.locatenew("Q", -b * B1.x)
    Q.v2pt_theory(C1, N, B1)
    C2 = Q.locatenew("C2", -c * B2.x)
    C2.v2pt_theory(Q, N, B2)
    bodies = [RigidBody("b1", C1, B1, m1, (inertia(B1, 0.1, 0.2, I1), C1)),
              RigidBody("b2", C2, B2, m2, (inertia(B2, 0.05, 0.1, I2), C2))]
    edge = P.vel(N).dot(B1.y)
    kane = KanesMethod(N, q_ind=[x, y, p1, p2], u_ind=[ux, w1, w2], u_dependent=[uy],
                       kd_eqs=[x.diff() - ux, y.diff() - uy, p1.diff() - w1, p2.diff() - w2],
                       velocity_constraints=[edge])
    kane.kanes_equations(bodies, [])
    states = [x, y, p1, p2, ux, w1, w2, uy]
    Mf = sp.lambdify(states, kane.mass_matrix_full, "numpy")
    ff = sp.lambdify(states, kane.forcing_full, "numpy")
    return lambda t, s: np.linalg.solve(Mf(*s), ff(*s)).ravel()


def test_kane_peer_with_velocity_constraints(measured):
    """A sleigh with a knife edge towing a pinned trailer (two bodies, Euler parameters):
    skilib's centre-of-mass paths equal those of sympy's KanesMethod with the knife edge as a
    velocity constraint, to 1e-8 m over 3 s."""
    m1, I1, a, b, m2, I2, c = 2.0, 0.3, 0.4, 0.3, 1.0, 0.15, 0.5
    rhs = kane_sleigh_with_trailer(m1, I1, a, b, m2, I2, c)
    ux0, w10, w20 = 1.2, 0.8, -0.5
    uy0 = -a * w10
    t = np.linspace(0.0, 3.0, 31)
    ref = solve_ivp(rhs, (0, 3), [0, 0, 0, 0, ux0, w10, w20, uy0], t_eval=t, method="DOP853", rtol=1e-12, atol=1e-13)
    x, y, p1, p2 = ref.y[:4]
    # skilib: the same two bodies, flat on z = 0, a vertical pin
    s1 = sk.RigidBody("sleigh", m1, [0.1, 0.2, I1], rotation="euler_parameters")
    s2 = sk.RigidBody("trailer", m2, [0.05, 0.1, I2], rotation="euler_parameters")
    cons = [sk.FixedCoordinate("z", s1, 2, 0.0), sk.ParallelAxes("flat", s1, [0, 0, 1], None, [0, 0, 1]),
            sk.Revolute("pin", s1, [-b, 0, 0], [0, 0, 1], s2, [c, 0, 0], [0, 0, 1]),
            sk.KnifeEdge("edge", s1, [a, 0, 0], [0, 1, 0])]
    system = sk.MultibodySystem([s1, s2], cons)
    assert system.dof == 3
    q0 = np.array([0, 0, 0, 1, 0, 0, 0, -b - c, 0, 0, 1, 0, 0, 0], dtype=float)
    qd0 = np.zeros(14)
    qd0[:2] = ux0, uy0
    qd0[3:7] = 0.5 * np.array([0, 0, 0, w10])
    pin = np.array([-b, 0.0, 0.0])
    qd0[7:9] = np.array([ux0, uy0]) + np.cross([0, 0, w10], pin)[:2] + np.cross([0, 0, w20], [-c, 0, 0])[:2]
    qd0[10:14] = 0.5 * np.array([0, 0, 0, w20])
    res = sk.solve_dynamics(system, (0.0, 3.0), q0, qd0, method="DOP853", rtol=1e-12, atol=1e-13, t_eval=t,
                            stabilization="projection")
    c1 = np.column_stack([x, y])
    c2 = c1 - b * np.column_stack([np.cos(p1), np.sin(p1)]) - c * np.column_stack([np.cos(p2), np.sin(p2)])
    measured.allclose("sleigh's CM path vs KanesMethod", res.q[:, :2], c1, atol=1e-8, unit="m")
    measured.allclose("trailer's CM path vs KanesMethod", res.q[:, 7:9], c2, atol=1e-8, unit="m")
    measured.exceeds("distance travelled (a non-trivial run)", np.abs(c1[-1]).max(), 0.5)


# -- generated code, errors ------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["python", "c"])
def test_generated_velocity_rows_match_the_numeric_engine(rng, backend, measured):
    """Knife edge, rolling disk and rows built from the state's jets: the compiled kernel's
    Evaluation (B, Ḃq̇ + ḃ, q̈, λ, powers) equals the numeric engine's to 1e-12."""
    from skilib.engine import codegen

    if backend == "c" and codegen.c_compiler() is None:
        pytest.skip("no C compiler")

    def lateral_of_origin(s, body):  # the same as a knife edge at the origin, written by hand
        p, a = s.point(body, np.zeros(3)), s.vector(body, np.array([0.0, 1.0, 0.0]))
        return a.val @ p.J, 0.0, a.vel @ p.vel + a.val @ p.quad

    for rotation in ("zxz", "euler_parameters"):
        body = sk.RigidBody("b", 1.7, [0.1, 0.12, 0.2], rotation=rotation)
        for comp in (sk.KnifeEdge("edge", body, [0.3, 0.1, -0.05], [0.2, 1.0, 0.1]), sk.RollingDisk("roll", body, 0.3),
                     sk.VelocityRows("rows", 1, lateral_of_origin, bodies=(body,))):
            system = sk.MultibodySystem([body], [comp], [sk.Gravity()])
            compiled = compile_system(system, backend=backend)
            for _ in range(2):
                q, qd, t = rng.normal(size=system.nq), rng.normal(size=system.nq), rng.uniform()
                if rotation == "zxz":
                    q[4] = rng.uniform(0.5, 2.5)
                got = compiled.evaluate(t, q, qd, 2.0, 3.0).copy()
                ref = system.evaluate(t, q, qd, 2.0, 3.0)
                for k in ("C", "Cq", "Cdot", "quad", "qdd", "lam", "powers"):
                    measured.allclose("generated velocity rows vs engine", getattr(got, k), getattr(ref, k),
                                      rtol=1e-12, atol=1e-12, where=f"{comp.name}/{k}")


def test_velocity_rows_are_exact_against_finite_differences(rng, measured):
    """B is ∂(B q̇ + b)/∂q̇ and Ḃq̇ + ḃ is d/dt(B q̇ + b) − B q̈ along a motion: central
    differences of the rows' velocity along (q + q̇ h, q̇ + q̈ h, t + h) agree."""
    body = sk.RigidBody("b", 1.7, [0.1, 0.12, 0.2])
    for comp in (sk.KnifeEdge("edge", body, [0.3, 0.1, -0.05], [0.2, 1.0, 0.1]), sk.RollingDisk("roll", body, 0.3)):
        system = sk.MultibodySystem([body], [comp])
        rows = system.velocity_rows
        q, qd, qdd = rng.normal(size=6), rng.normal(size=6), rng.normal(size=6)
        q[4] = 1.1
        jet = system.constraint_jet(0.2, q, qd)
        h = 1e-5

        def vel(dt):
            return system.constraint_jet(0.2 + dt, q + qd * dt + 0.5 * qdd * dt * dt, qd + qdd * dt).vel[rows]

        ddt = (vel(h) - vel(-h)) / (2 * h)
        measured.allclose("d/dt(B q̇ + b) vs B q̈ + quad", ddt, jet.J[rows] @ qdd + jet.quad[rows],
                          atol=1e-7, rtol=1e-7, where=comp.name)
        J_fd = np.column_stack([(system.constraint_jet(0.2, q, qd + h * e).vel[rows]
                                 - system.constraint_jet(0.2, q, qd - h * e).vel[rows]) / (2 * h) for e in np.eye(6)])
        measured.allclose("B vs ∂(B q̇ + b)/∂q̇", J_fd, jet.J[rows], atol=1e-8, where=comp.name)


def test_redundant_velocity_row_is_named():
    """Two knife edges on one axis of one body: the second's row depends on the first."""
    b, system = sleigh("zxz")
    twice = sk.MultibodySystem([b], system.constraints + [sk.KnifeEdge("again", b, [0.4, 0, 0], [0, 1, 0])])
    with pytest.raises(sk.RedundantConstraintError, match=r"again\[0\]"):
        twice.check_rank(np.zeros(6), 0.0)


def test_bad_velocity_components_name_themselves():
    b = sk.RigidBody("b", 1.0, [1, 1, 1])
    with pytest.raises(ValueError, match="edge: axis"):
        sk.KnifeEdge("edge", b, [0, 0, 0], [0, 0, 0])
    with pytest.raises(ValueError, match="roll: radius"):
        sk.RollingDisk("roll", b, -1.0)
    with pytest.raises(ValueError, match=r"rows: rows\(s\) must give B of shape \(1, 6\)"):
        system = sk.MultibodySystem([b], [sk.VelocityRows("rows", 1, lambda s: (np.ones(5), 0.0, 0.0))])  # noqa: E501
        system.evaluate(0.0, np.r_[0, 0, 0, 0, 1, 0], np.zeros(6))
