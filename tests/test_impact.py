"""Plastic impact (``skilib.engine.impact``): the velocity jump when rows become active, checked
against closed forms of classical mechanics (a particle hitting a plane, a point mass set on a
knife edge, a rod caught at one end) and against the identities of the mass-weighted projection
(energy lost = ½ΔᵀMΔ − Ctᵀν ≥ 0, idempotence, admissible velocities kept).

Tolerances.  Each closed form is exact, so the tolerances are those of rounding.  Every
result is one solve of the augmented matrix [M Cqᵀ; Cq 0] (size ≤ 14) in double precision
(ε = 2.2·10⁻¹⁶), and the references are a few operations each: with velocities of order
1–5 m/s and masses of order 1 kg the errors are a few ε, and 10⁻¹² (≈ 4500 ε, relative to the
quantity's scale where stated) bounds them.  Where the problem itself amplifies rounding (the
axial spin of a slender box, fixed by an axial inertia 1/700 of the transverse one) the
tolerance is 10⁻¹⁴ κ |ω| with κ the condition number of that inertia (the bound ε κ |ω| of a
linear solve, with a margin of 45).
"""
import math

import numpy as np
import pytest
from scipy.linalg import null_space

import skilib as sk
from skilib.engine import examples
from skilib.engine.rotation import ZXZ, EulerParameters

ROUNDING = 1e-12  # ≈ 4500 ε: rounding of one well-conditioned solve, in the compared units


def _body_state(rotation, A):
    """Rotation coordinates of orientation A and the map ω ↦ θ̇ there."""
    R = ZXZ if rotation == "zxz" else EulerParameters
    th = R.from_matrix(A)
    return th, (lambda w: R.rates(th, w))


def _omega(body, q, qd):
    return body.rotation.G(q[3:]) @ qd[3:]


# -- 1. a particle hitting a plane --------------------------------------------------------------
@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_particle_hitting_a_plane_loses_its_normal_velocity(rotation, rng, measured):
    """A body touching an inclined plane at its centre of mass: the normal velocity v_n = v·n is
    removed and the tangential velocity and the spin kept, v⁺ = v⁻ − v_n n; the energy lost is
    ½ m v_n², the impulse on the body m v_n n outward (ν = m v_n with the row n·(r − r₀))."""
    m = 2.5
    b = sk.RigidBody("ball", m, [0.02, 0.03, 0.04], rotation=rotation)
    n = np.array([0.3, -0.2, 1.0])
    n /= np.linalg.norm(n)
    system = sk.MultibodySystem([b], [sk.PointOnPlane("floor", b, [0, 0, 0], [0.1, 0.2, 0.0], n)])
    for _ in range(5):
        A = sk.rotation_matrix(rng.uniform([0, 0.3, 0], [2 * np.pi, 2.8, 2 * np.pi]))
        th, rates = _body_state(rotation, A)
        r = rng.normal(size=3)
        r -= (r - [0.1, 0.2, 0.0]) @ n * n  # on the plane
        v = rng.normal(size=3) * 2.0
        v -= (abs(v @ n) + 1.0) * n  # approaching it
        w = rng.normal(size=3)
        q, qd = np.concatenate([r, th]), np.concatenate([v, rates(w)])
        res = sk.impact(system, q, qd)
        vn = v @ n
        measured.allclose("v⁺ vs v⁻ − v_n n", res.qd[:3], v - vn * n, atol=ROUNDING, unit="m/s")
        measured.allclose("ω⁺ vs ω⁻", _omega(b, q, res.qd), w, atol=ROUNDING, unit="rad/s")
        measured.allclose("energy lost vs ½ m v_n²", res.ke_lost, 0.5 * m * vn**2, rtol=ROUNDING)
        measured.allclose("T⁻ − T⁺ vs ½ m v_n²", res.ke_before - res.ke_after, 0.5 * m * vn**2, rtol=ROUNDING)
        measured.allclose("ν vs m v_n", res.constraint_impulses["floor"][0], m * vn, rtol=ROUNDING)
        measured.allclose("impulse on the body vs −m v_n n", res.generalized_impulse[:3], -m * vn * n,
                          atol=ROUNDING, unit="N s")
        measured.check("|Cq q̇⁺ + Ct|", res.residual, ROUNDING, "m/s")
        assert np.array_equal(res.q, q)  # positions do not change


# -- 2. a point mass set on a knife edge --------------------------------------------------------
@pytest.mark.parametrize("theta_deg", [0.0, 10.0, 30.0, 45.0, 80.0, 90.0, 135.0, 200.0])
def test_point_mass_landing_on_a_knife_edge(theta_deg, measured):
    """A body whose velocity makes the angle θ with the edge it lands on (a knife edge at its
    centre of mass, heading h, possibly banked): the velocity along the edge is kept, V cos θ,
    the lateral V sin θ is removed, the vertical and the spin kept; the energy lost is
    ½ m V² sin²θ and the edge's impulse ν = m V sin θ (its multiplier's sign)."""
    m, V, h, vz = 1.7, 3.0, 0.7, -0.4
    theta = math.radians(theta_deg)
    b = sk.RigidBody("blade", m, [0.01, 0.2, 0.21], rotation="euler_parameters")
    system = sk.MultibodySystem([b], [sk.KnifeEdge("edge", b, [0, 0, 0], [0, 1, 0])])
    A = sk.rotation_matrix([h, 0.0, 0.0])  # the edge (body x) heads at h in the horizontal plane
    p = EulerParameters.from_matrix(A)
    e_x, e_y = A[:, 0], A[:, 1]
    v = V * (math.cos(theta) * e_x + math.sin(theta) * e_y) + [0.0, 0.0, vz]
    w = np.array([0.2, -0.1, 1.3])
    q, qd = np.concatenate([[0.4, -0.3, 0.0], p]), np.concatenate([v, EulerParameters.rates(p, w)])
    res = sk.impact(system, q, qd)
    measured.allclose("v⁺ vs V cos θ along the edge", res.qd[:3],
                      V * math.cos(theta) * e_x + [0.0, 0.0, vz], atol=ROUNDING, unit="m/s")
    measured.allclose("ω⁺ vs ω⁻", _omega(b, q, res.qd), w, atol=ROUNDING, unit="rad/s")
    lost = 0.5 * m * V**2 * math.sin(theta) ** 2
    measured.allclose("energy lost vs ½ m V² sin²θ", res.ke_lost, lost, atol=ROUNDING, unit="J")
    measured.allclose("T⁻ − T⁺ vs ½ m V² sin²θ", res.ke_before - res.ke_after, lost, atol=ROUNDING, unit="J")
    measured.allclose("ν vs m V sin θ", res.constraint_impulses["edge"][0], m * V * math.sin(theta),
                      atol=ROUNDING, unit="N s")
    measured.check("|B q̇⁺ + b|", res.residual, ROUNDING, "m/s")


# -- 3. a rod caught at one end -----------------------------------------------------------------
def _caught_rod(rotation, m=1.4, L=0.9, w=0.06, h=0.03):
    """A box along body x (L × w × h) whose end ū = (−L/2, 0, 0) is held at the origin."""
    b = sk.RigidBody("rod", m, sk.box_inertia(m, L, w, h), points={"end": [-L / 2, 0.0, 0.0]}, rotation=rotation)
    return b, sk.MultibodySystem([b], [sk.Spherical("catch", b, "end", None, [0.0, 0.0, 0.0])])


@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_rod_falling_flat_caught_at_one_end(rotation, measured):
    """A box (length L along x, thickness w vertical, mass m) falling flat at speed V without
    spin, caught at one end P by a spherical joint.  The impulse acts at P, so the angular
    momentum about P is conserved: with r = (L/2, 0, 0) from P to the centre of mass,
    m r × v⁻ = (0, m V L/2, 0) = I_P ω⁺, and P is at rest after, v⁺ = ω⁺ × r.  About the
    horizontal axis y normal to the rod I_P = m(L² + w²)/12 + m L²/4 (parallel axes), so
    ω⁺ = (m V L/2)/I_P, the centre of mass falls on at ω⁺ L/2 and T⁺ = ½ I_P ω⁺²; for w → 0
    these are the textbook 3V/(2L), 3V/4 and mV²/8 lost.  The joint's linear impulse is
    m(v⁺ − v⁻), its angular impulse about P zero (a spherical joint transmits no moment)."""
    m, L, w, h, V = 1.4, 0.9, 0.06, 0.03, 2.2
    b, system = _caught_rod(rotation, m, L, w, h)
    # body x along global x, body y (the thickness w) vertical, body z along −y: ZXZ θ = π/2,
    # away from gimbal lock
    A = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])
    th, rates = _body_state(rotation, A)
    q = np.concatenate([[L / 2, 0.0, 0.0], th])
    qd = np.concatenate([[0.0, 0.0, -V], rates(np.zeros(3))])
    res = sk.impact(system, q, qd)
    # rotation about global y = body −z: central moment of inertia m(L² + w²)/12
    I_P = m * (L**2 + w**2) / 12 + m * L**2 / 4
    wy = m * V * L / 2 / I_P
    measured.allclose("ω⁺ vs (m V L/2)/I_P about y", _omega(b, q, res.qd), [0.0, wy, 0.0], atol=ROUNDING,
                      unit="rad/s")
    measured.allclose("v⁺ vs ω⁺ × r", res.qd[:3], [0.0, 0.0, -wy * L / 2], atol=ROUNDING, unit="m/s")
    lost = 0.5 * m * V**2 - 0.5 * I_P * wy**2  # T⁺ = ½ I_P ω⁺² (rotation about P at rest)
    measured.allclose("energy lost vs ½mV² − ½ I_P ω⁺²", res.ke_lost, lost, rtol=ROUNDING)
    (J, H), = res.joint_impulse("catch").values()
    measured.allclose("joint's linear impulse vs m(v⁺ − v⁻)", J, m * (res.qd[:3] - qd[:3]), atol=ROUNDING,
                      unit="N s")
    measured.check("joint's angular impulse about P", np.abs(H), ROUNDING, "N m s")


@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_tumbling_rod_caught_at_one_end(rotation, rng, measured):
    """A box in any orientation with any velocity v⁻ and spin ω⁻ caught at a body point P: the
    angular momentum about P, I_c ω + m r × v (r from P to the centre of mass, I_c the central
    inertia in global axes), is conserved and P stops, v⁺ = ω⁺ × r, so
    (I_c + m(|r|² 1 − r rᵀ)) ω⁺ = I_c ω⁻ + m r × v⁻ (the parallel-axis inertia I_P about P).
    ω⁺ is compared within 10⁻¹⁴ κ(I_P) |ω⁺| (κ ≈ 700: the box's axial inertia is small)."""
    m, L = 1.4, 0.9
    b, system = _caught_rod(rotation, m, L)
    for _ in range(6):
        A = sk.rotation_matrix(rng.uniform([0, 0.3, 0], [2 * np.pi, 2.8, 2 * np.pi]))
        th, rates = _body_state(rotation, A)
        r = A @ [L / 2, 0.0, 0.0]
        v, w = rng.normal(size=3) * 2.0, rng.normal(size=3) * 3.0
        q, qd = np.concatenate([r, th]), np.concatenate([v, rates(w)])
        res = sk.impact(system, q, qd)
        Ic = A @ b.inertia @ A.T
        IP = Ic + m * (r @ r * np.eye(3) - np.outer(r, r))
        w_plus = np.linalg.solve(IP, Ic @ w + m * np.cross(r, v))
        # the axial spin is fixed by the small axial inertia: rounding grows with κ(I_P)
        tol = 1e-14 * np.linalg.cond(IP) * max(1.0, np.abs(w_plus).max())
        measured.allclose("ω⁺ vs I_P⁻¹(I_c ω⁻ + m r × v⁻)", _omega(b, q, res.qd), w_plus, atol=tol, unit="rad/s")
        measured.allclose("v⁺ vs ω⁺ × r", res.qd[:3], np.cross(w_plus, r), atol=ROUNDING, unit="m/s")
        measured.allclose("angular momentum about P", b.angular_momentum(q, res.qd), b.angular_momentum(q, qd),
                          atol=ROUNDING, unit="kg m²/s")
        measured.check("|Cq q̇⁺ + Ct|", res.residual, ROUNDING, "m/s")


# -- 4. properties of the projection ------------------------------------------------------------
@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_projection_properties_on_a_double_pendulum(rotation, rng, measured):
    """A 3-D double pendulum (two spherical joints; Euler parameters add their normalization
    rows) at random positions near its start with random velocities: the energy lost equals
    T⁻ − T⁺ = ½ΔᵀMΔ ≥ 0 (Ct = 0), q̇⁺ satisfies the rows, a second impact changes nothing and
    takes no impulse, and an admissible q̇⁻ passes unchanged.  Admissible-velocity checks are
    relative to |q̇⁻| (the rounding of a projection scales with the velocity)."""
    ex = examples.double_pendulum(rotation=rotation)
    system = ex.system
    n = system.nq
    lost = []
    for k in range(20):
        q = ex.q0 + (0.0 if k == 0 else 0.05 * rng.normal(size=n))
        for body in system.bodies:  # keep Euler parameters unit (not needed by the identities)
            sl = system.slice(body)
            if body.rotation is EulerParameters:
                q[sl][3:] /= np.linalg.norm(q[sl][3:])
        qd = rng.normal(size=n) * 2.0
        scale = np.abs(qd).max()
        res = sk.impact(system, q, qd)
        lost.append(res.ke_lost)
        M = system.mass_matrix(q)
        d = qd - res.qd
        measured.allclose("T⁻ − T⁺ vs ½ΔᵀMΔ", res.ke_before - res.ke_after, 0.5 * d @ M @ d,
                          atol=ROUNDING * res.ke_before, unit="J")
        measured.allclose("M(q̇⁺ − q̇⁻) vs −Cqᵀν", M @ (res.qd - qd), res.generalized_impulse,
                          atol=ROUNDING * scale, unit="N s")
        measured.check("|Cq q̇⁺ + Ct| / max|q̇⁻|", res.residual / scale, ROUNDING, "rel.")
        again = sk.impact(system, q, res.qd)
        measured.allclose("impact of q̇⁺ vs q̇⁺", again.qd, res.qd, atol=ROUNDING * scale, unit="(m or rad)/s")
        measured.check("impulse of a second impact / max|ν|", np.abs(again.impulses) / np.abs(res.impulses).max(),
                       ROUNDING, "rel.")
        # an admissible velocity built without the impact: from the null space of Cq
        base = ex.qd0 if k == 0 else null_space(system.constraint_jacobian(q, 0.0)) @ rng.normal(size=system.dof)
        kept = sk.impact(system, q, base)
        measured.allclose("admissible q̇⁻ kept", kept.qd, base, atol=ROUNDING * max(1.0, np.abs(base).max()),
                          unit="(m or rad)/s")
        measured.check("impulse on admissible q̇⁻", np.abs(kept.impulses), ROUNDING * max(1.0, np.abs(base).max()),
                       "N s")
    measured.exceeds("least energy lost over the random states", np.array(lost), 0.0, "J")


def test_a_subset_of_rows_is_the_system_of_those_rows(rng, measured):
    """``rows`` chooses the rows enforced: the double pendulum's shoulder alone gives the impact of
    the same pendulum built with the shoulder only (the elbow free), for names, constraints and
    row indices alike."""
    ex = examples.double_pendulum()
    full = ex.system
    shoulder = full.constraint("shoulder")
    alone = sk.MultibodySystem(full.bodies, [shoulder])
    for _ in range(5):
        qd = rng.normal(size=full.nq)
        ref = sk.impact(alone, ex.q0, qd)
        sl = full.rows("shoulder")
        for rows in (["shoulder"], [shoulder], list(range(sl.start, sl.stop))):
            res = sk.impact(full, ex.q0, qd, rows=rows)
            measured.allclose("q̇⁺ with rows vs the system of those rows", res.qd, ref.qd, atol=ROUNDING,
                              unit="(m or rad)/s")
            measured.allclose("ν of the shoulder vs the system of those rows", res.constraint_impulses["shoulder"],
                              ref.constraint_impulses["shoulder"], atol=ROUNDING, unit="N s")
            assert set(res.constraint_impulses) == {"shoulder"} and not res.impulses[full.rows("elbow")].any()


def test_a_moving_constraint_can_give_energy(measured):
    """A particle whose x is driven at the speed u (x = u t, Ct = −u): after the impact ẋ = u
    exactly and the other velocities are kept; T⁻ − T⁺ = ½ m (ẋ⁻² − u²), negative when the
    driver is faster, equals ½ΔᵀMΔ − Ctᵀν (the general identity, ν = m(ẋ⁻ − u))."""
    m = 3.0
    b = sk.RigidBody("slider", m, [0.1, 0.1, 0.1])
    for u, xd in ((2.0, 0.5), (0.5, 2.0), (-1.0, 1.5)):
        system = sk.MultibodySystem([b], [sk.CoordinateDriver("drive", b, 0, sk.Polynomial([0.0, u]))])
        q = np.array([0.3 * u, 0.1, 0.2, 0.1, 1.2, 0.3])
        qd = np.array([xd, -0.7, 0.4, 0.5, 0.2, -0.3])
        res = sk.impact(system, q, qd, t=0.3)
        measured.allclose("q̇⁺ vs (u, q̇⁻ others)", res.qd, np.concatenate([[u], qd[1:]]), atol=ROUNDING,
                          unit="(m or rad)/s")
        measured.allclose("energy lost vs ½ m (ẋ⁻² − u²)", res.ke_lost, 0.5 * m * (xd**2 - u**2), atol=ROUNDING,
                          unit="J")
        measured.allclose("T⁻ − T⁺ vs ½ m (ẋ⁻² − u²)", res.ke_before - res.ke_after, 0.5 * m * (xd**2 - u**2),
                          atol=ROUNDING, unit="J")
        measured.allclose("ν vs m(ẋ⁻ − u)", res.impulses[0], m * (xd - u), atol=ROUNDING, unit="N s")
        measured.check("position residual |C| (x = u t)", res.position_residual, ROUNDING, "m")


# -- 5. bad input --------------------------------------------------------------------------------
def test_bad_impact_input_is_named():
    """Wrong lengths, NaN, unknown or repeated rows and a redundant set of rows are refused by name."""
    b, system = _caught_rod("zxz")
    q = np.array([0.45, 0.0, 0.0, 0.0, math.pi / 2, 0.0])
    qd = np.zeros(6)
    with pytest.raises(ValueError, match=r"^q: must have 6 entries"):
        sk.impact(system, q[:5], qd)
    with pytest.raises(ValueError, match=r"^qd_minus: must have 6 entries"):
        sk.impact(system, q, np.zeros(7))
    with pytest.raises(ValueError, match=r"^qd_minus: non-finite value nan at index 2"):
        sk.impact(system, q, [0, 0, np.nan, 0, 0, 0])
    with pytest.raises(ValueError, match=r"^q: non-finite value inf at index 0"):
        sk.impact(system, [np.inf, 0, 0, 0, 1, 0], qd)
    with pytest.raises(ValueError, match=r"^t: must be a number"):
        sk.impact(system, q, qd, t=float("nan"))
    with pytest.raises(ValueError, match="no constraint named 'floor'"):
        sk.impact(system, q, qd, rows=["floor"])
    with pytest.raises(ValueError, match=r"^rows: row index 3 is not one of the system's 3 rows"):
        sk.impact(system, q, qd, rows=[3])
    with pytest.raises(ValueError, match=r"^rows: row .* is given twice"):
        sk.impact(system, q, qd, rows=["catch", 0])
    with pytest.raises(ValueError, match=r"^rows: must be None or a sequence"):
        sk.impact(system, q, qd, rows="catch")
    with pytest.raises(ValueError, match=r"^rows: True is not a row index"):
        sk.impact(system, q, qd, rows=[True])
    twice = sk.MultibodySystem([b], [sk.Spherical("catch", b, "end", None, [0, 0, 0]),
                                     sk.PointOnPlane("floor", b, "end", [0, 0, 0], [0, 0, 1])])
    with pytest.raises(sk.RedundantConstraintError, match=r"row floor.* is linearly dependent"):
        sk.impact(twice, q, qd)
    # the same system with only one of the two is fine
    assert sk.impact(twice, q, qd, rows=["floor"]).residual == 0.0
