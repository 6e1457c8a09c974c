"""Euler parameters and coordinate projection: no gimbal lock, no drift (issue 7)."""

import numpy as np
import pytest

import skilib as sk
from skilib.rotation import EulerParameters


def d1(f, h):
    return (f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h)


def random_p(rng):
    p = rng.normal(size=4)
    return p / np.linalg.norm(p)


def test_euler_parameter_rotation_and_G(rng):
    """A orthonormal, ω̃ = ȦAᵀ with ω = Gṗ, round trip A → p → A, ṗ from ω."""
    for _ in range(10):
        p, pd = random_p(rng), rng.normal(size=4)
        A = EulerParameters.A(p)
        np.testing.assert_allclose(A.T @ A, np.eye(3), atol=1e-14)
        assert np.linalg.det(A) == pytest.approx(1.0, abs=1e-14)
        np.testing.assert_allclose(EulerParameters.A(3.0 * p), A, atol=1e-14)  # A(p/|p|)
        Adot = d1(lambda e: EulerParameters.A(p + e * pd), 2e-4)
        w = EulerParameters.G(p) @ pd
        np.testing.assert_allclose(Adot @ A.T, sk.rotation.skew(w), atol=1e-9)
        np.testing.assert_allclose(EulerParameters.A(EulerParameters.from_matrix(A)), A, atol=1e-13)
        pd_t = EulerParameters.rates(p, w)  # tangent rates giving the same ω
        np.testing.assert_allclose(EulerParameters.G(p) @ pd_t, w, atol=1e-13)
        assert p @ pd_t == pytest.approx(0.0, abs=1e-13)
        Gd = d1(lambda e: EulerParameters.G(p + e * pd), 2e-4)
        np.testing.assert_allclose(EulerParameters.Gdot_thetadot(p, pd), Gd @ pd, atol=1e-9)


def test_quadratic_velocity_is_lagrange_in_euler_parameters(rng):
    """Qv = ∂T/∂q − (Σ ∂M/∂q_k q̇_k) q̇ by finite differences, as the sympy test does for ZXZ."""
    body = sk.RigidBody("b", 2.0, [[0.3, 0.05, 0.0], [0.05, 0.5, 0.02], [0.0, 0.02, 0.4]],
                        rotation="euler_parameters")
    for _ in range(5):
        q = np.concatenate([rng.normal(size=3), random_p(rng)])
        qd = rng.normal(size=7)
        h = 1e-4
        dTdq = np.array([d1(lambda e: body.kinetic_energy(q + e * np.eye(7)[k], qd), h) for k in range(7)])
        Mdot = d1(lambda e: body.mass_matrix(q + e * qd), h)
        np.testing.assert_allclose(body.quadratic_velocity(q, qd), dTdq - Mdot @ qd, atol=1e-8)


# index 9 is the CoordinateDriver, which prescribes a raw coordinate whatever it means
@pytest.mark.parametrize("index", [i for i in range(13) if i != 9])
def test_constraints_exact_on_euler_parameter_bodies(rng, index):
    """Jacobians and Qd of every component stay exact when the bodies use Euler parameters."""
    from test_constraints import all_constraints, d2

    b1 = sk.RigidBody("one", 2.0, [0.1, 0.2, 0.15], points={"p": [0.1, -0.2, 0.3]}, rotation="euler_parameters")
    b2 = sk.RigidBody("two", 3.0, [0.3, 0.1, 0.25], points={"p": [-0.3, 0.1, 0.2]}, rotation="euler_parameters")
    c = all_constraints(b1, b2)[index]
    system = sk.MultibodySystem([b1, b2], [c])
    q = np.concatenate([rng.normal(size=3), random_p(rng), rng.normal(size=3), random_p(rng)])
    qd, qdd, t = rng.normal(size=14), rng.normal(size=14), 0.3
    jet = system.constraint_jet(t, q, qd)
    C = lambda qq, tt: system.constraint_jet(tt, qq).val
    Cq_fd = np.column_stack([d1(lambda e: C(q + e * np.eye(14)[k], t), 1e-3) for k in range(14)])
    np.testing.assert_allclose(jet.J, Cq_fd, atol=1e-8)
    f = lambda e: C(q + qd * e + 0.5 * qdd * e * e, t + e)
    np.testing.assert_allclose(jet.J @ qdd + jet.quad, d2(f, 1e-3), atol=1e-6)


def heavy_top(rotation):
    """Symmetric top on a spherical pivot at the origin; symmetry axis = body z."""
    m, l, It, I3 = 1.0, 0.05, 1.5e-3, 2.0e-3
    top = sk.RigidBody("top", m, [It, It, I3], points={"tip": [0, 0, -l]}, rotation=rotation)
    system = sk.MultibodySystem([top], [sk.Spherical("pivot", top, "tip", None, [0, 0, 0])], [sk.Gravity()])
    th0, w3 = np.radians(5.0), 60.0
    a = np.array([np.sin(th0), 0, np.cos(th0)])
    xb = np.array([np.cos(th0), 0, -np.sin(th0)])
    A = np.column_stack([xb, [0, 1, 0], a])
    I1 = It + m * l**2
    # a transverse rate about xb chosen so that L_z = L_3: u = cos(tilt) = 1 is a root of the
    # cubic and the axis passes exactly through the vertical; a rate about yb tips it as well
    w_x = -I3 * w3 * (1 - np.cos(th0)) / (I1 * np.sin(th0))
    w = w3 * a + w_x * xb + 1.5 * np.array([0, 1, 0])
    rot = top.rotation
    th = rot.from_matrix(A)
    q0 = np.concatenate([l * a, th])
    qd0 = np.concatenate([np.cross(w, l * a), rot.rates(th, w)])
    return top, system, q0, qd0, dict(m=m, l=l, I1=I1, I3=I3)


def top_invariants(top, q, qd, g=9.81):
    A = top.rotation.A(q[3:])
    w = top.rotation.G(q[3:]) @ qd[3:]
    H = top.angular_momentum(q, qd)  # about the origin = the pivot
    E = top.kinetic_energy(q, qd) + top.mass * g * q[2]
    return E, H[2], (A @ top.inertia @ A.T @ w) @ A[:, 2], A[2, 2]


def test_heavy_top_through_vertical_with_euler_parameters():
    top, system, q0, qd0, P = heavy_top("euler_parameters")
    q0, qd0 = sk.consistent_initial_conditions(system, 0.0, q0, qd0)
    t = np.linspace(0.0, 10.0, 20001)
    r = sk.solve_dynamics(system, (0.0, 10.0), q0, qd0, method="DOP853", rtol=1e-12, atol=1e-13,
                          stabilization="projection", t_eval=t)
    E, Lz, L3, u = np.array([top_invariants(top, q, v) for q, v in zip(r.q, r.qd)]).T
    for name, x in (("energy", E), ("L_z", Lz), ("L_3", L3)):
        assert np.ptp(x) / np.abs(x).max() < 1e-8, name
    # nutation: u = cos(tilt) stays between the roots of the top's cubic
    # f(u) = (α − βu)(1 − u²) − (b − au)² (Goldstein), here with u2 = 1 since L_z = L_3
    a, b = L3[0] / P["I1"], Lz[0] / P["I1"]
    Ep = E[0] - 0.5 * L3[0] ** 2 / P["I3"]
    alpha, beta = 2 * Ep / P["I1"], 2 * P["m"] * 9.81 * P["l"] / P["I1"]
    roots = np.roots([beta, -(alpha + a * a), 2 * a * b - beta, alpha - b * b])
    roots = np.sort(roots[np.abs(roots.imag) < 1e-9].real)
    u1, u2 = roots[(roots > -1 - 1e-9) & (roots < 1 + 1e-9)][-2:]
    assert u2 == pytest.approx(1.0, abs=1e-9)
    assert u.min() >= u1 - 1e-9 and u.max() <= u2 + 1e-9
    assert u.min() - u1 < 1e-3 * (u2 - u1) and u2 - u.max() < 1e-3 * (u2 - u1)
    assert r.constraint_norm.max() < 1e-11


def test_heavy_top_with_zxz_stops_at_gimbal_lock():
    """The same top in ZXZ angles stops with the named error, where the motion really
    reaches the singularity (tilt = θ = gimbal_tol), and is right up to there."""
    top, system, q0, qd0, _ = heavy_top("zxz")
    with pytest.raises(sk.GimbalLockError, match=r"body 'top'.*t=") as err:
        sk.solve_dynamics(system, (0.0, 10.0), q0, qd0, method="DOP853", rtol=1e-12, atol=1e-13)
    assert err.value.body == "top"
    t_stop, theta_stop = err.value.t, err.value.angles[1]
    assert theta_stop == pytest.approx(system.gimbal_tol, rel=0.05)
    # Euler parameters: the tilt from the vertical at the stop time is the ZXZ θ there, and
    # before it both runs are the same motion
    top_e, sys_e, q0e, qd0e, _ = heavy_top("euler_parameters")
    q0e, qd0e = sk.consistent_initial_conditions(sys_e, 0.0, q0e, qd0e)
    t = np.linspace(0.0, 0.9 * t_stop, 11)
    kw = dict(method="DOP853", rtol=1e-12, atol=1e-13)
    e = sk.solve_dynamics(sys_e, (0.0, t_stop), q0e, qd0e, t_eval=np.append(t, t_stop), **kw)
    z = sk.solve_dynamics(system, (0.0, t[-1]), q0, qd0, t_eval=t, **kw)
    tilt = np.arccos(np.clip([top_e.rotation.A(q[3:])[2, 2] for q in e.q], -1, 1))
    assert tilt[-1] == pytest.approx(theta_stop, abs=1e-5)
    np.testing.assert_allclose(z.q[:, :3], e.q[:-1, :3], atol=1e-10)
    np.testing.assert_allclose(z.q[:, 4], tilt[:-1], atol=1e-9)


def test_drift_none_grows_baumgarte_bounded_projection_exact():
    """60 s of a spherical pendulum: the three stabilizations side by side.

    Without stabilization the index-1 form drifts (seed 004, eq. 16); Baumgarte (eq. 99,
    α = 1/h, β = √2/h) holds max |C| bounded; projection holds it at round-off.
    """
    from test_dynamics import pendulum, planar_pendulum_state

    out = {}
    for stab in ("none", "baumgarte", "projection"):
        bob, system = pendulum()
        q0 = planar_pendulum_state(0.8, 1.2)
        q0, qd0 = sk.consistent_initial_conditions(system, 0.0, q0, [0, 0, 0, 2.0, 0.5, -1.0],
                                                   independent=[3, 4, 5])
        t = np.linspace(0, 60, 601)
        r = sk.solve_dynamics(system, (0, 60), q0, qd0, rtol=1e-6, atol=1e-8, stabilization=stab, t_eval=t)
        out[stab] = (t, r.constraint_norm)
    t, c = out["none"]
    assert c[t >= 50].max() > 10 * c[t <= 10].max()
    t, c = out["baumgarte"]
    assert c[t >= 50].max() <= 2 * c[t <= 10].max()
    assert out["projection"][1].max() <= 1e-10
