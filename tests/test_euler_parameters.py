"""Euler parameters and coordinate projection: no gimbal lock, no drift."""

import numpy as np
import pytest

import skilib as sk
from skilib.engine import examples
from skilib.engine.rotation import EulerParameters

BOUNDED = ('the statement is boundedness: an unstabilised drift grows (> 10 here), a Baumgarte-held one stays '
           'level (≈ 1); 2 separates the two by a factor of five on each side')

STEP_GRANULARITY = ("the stop is found at the end of an accepted step (no event location): θ passes gimbal_tol "
                    "within one DOP853 step, and the overshoot (3.2 % measured) is a part of that step, not a "
                    "rounding; 5 % bounds it")


def d1(f, h):
    return (f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h)


def random_p(rng):
    p = rng.normal(size=4)
    return p / np.linalg.norm(p)


def test_euler_parameter_rotation_and_G(rng, measured):
    """Euler parameters: A orthonormal with det A = 1 and A(3p) = A(p); ω̃ = ȦAᵀ with ω = Gṗ
    (4th-order differences); round trip A → p → A; tangent ṗ from ω; Ġṗ against differences."""
    for _ in range(10):
        p, pd = random_p(rng), rng.normal(size=4)
        A = EulerParameters.A(p)
        measured.allclose("AᵀA − I", A.T @ A, np.eye(3), atol=1e-14)
        measured.check("|det A − 1|", abs(np.linalg.det(A) - 1.0), 1e-14)
        measured.allclose("A(3p) vs A(p)", EulerParameters.A(3.0 * p), A, atol=1e-14)  # A(p/|p|)
        Adot = d1(lambda e: EulerParameters.A(p + e * pd), 2e-4)
        w = EulerParameters.G(p) @ pd
        measured.allclose("ȦAᵀ vs ω̃, ω = Gṗ", Adot @ A.T, sk.engine.rotation.skew(w), atol=1e-9, unit="1/s")
        measured.allclose("A(p(A)) vs A", EulerParameters.A(EulerParameters.from_matrix(A)), A, atol=1e-13)
        pd_t = EulerParameters.rates(p, w)  # tangent rates giving the same ω
        measured.allclose("G ṗ(ω) vs ω", EulerParameters.G(p) @ pd_t, w, atol=1e-13, unit="1/s")
        measured.check("|p·ṗ(ω)|", abs(p @ pd_t), 1e-13, "1/s")
        Gd = d1(lambda e: EulerParameters.G(p + e * pd), 2e-4)
        measured.allclose("Ġṗ vs differences", EulerParameters.Gdot_thetadot(p, pd), Gd @ pd, atol=1e-9,
                          unit="1/s²")


def test_quadratic_velocity_is_lagrange_in_euler_parameters(rng, measured):
    """Qv = ∂T/∂q − (Σ ∂M/∂q_k q̇_k) q̇ by finite differences, as the sympy test does for ZXZ."""
    body = sk.RigidBody("b", 2.0, [[0.3, 0.05, 0.0], [0.05, 0.5, 0.02], [0.0, 0.02, 0.4]],
                        rotation="euler_parameters")
    for _ in range(5):
        q = np.concatenate([rng.normal(size=3), random_p(rng)])
        qd = rng.normal(size=7)
        h = 1e-4
        dTdq = np.array([d1(lambda e: body.kinetic_energy(q + e * np.eye(7)[k], qd), h) for k in range(7)])
        Mdot = d1(lambda e: body.mass_matrix(q + e * qd), h)
        measured.allclose("Qv vs ∂T/∂q − Ṁq̇ (differences)", body.quadratic_velocity(q, qd), dTdq - Mdot @ qd,
                          atol=1e-8)


# index 9 is the CoordinateDriver, which prescribes a raw coordinate whatever it means
@pytest.mark.parametrize("index", [i for i in range(17) if i != 9])
def test_constraints_exact_on_euler_parameter_bodies(rng, index, measured):
    """Cq and Qd of every component (the 12 that do not prescribe a raw coordinate) stay exact
    when the bodies use Euler parameters: 4th-order differences, h = 1e-3."""
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
    measured.allclose("Cq vs differences", jet.J, Cq_fd, atol=1e-8)
    f = lambda e: C(q + qd * e + 0.5 * qdd * e * e, t + e)
    measured.allclose("Cq q̈ − Qd vs 2nd difference", jet.J @ qdd + jet.quad, d2(f, 1e-3), atol=1e-6)


@pytest.mark.slow
def test_heavy_top_through_vertical_with_euler_parameters(measured):
    """A heavy symmetric top started 5° from the vertical, whose axis passes through it, 10 s
    with Euler parameters and projection: energy, L_z and L₃ constant; u = cos(tilt) stays
    between the roots u₁ and u₂ = 1 of the top's cubic and comes within 1e-3 of the range of
    both; the constraints hold.
    """
    ex = examples.heavy_top("euler_parameters")
    P = ex.params
    t = np.linspace(0.0, 10.0, 20001)
    r = sk.solve_dynamics(ex.system, (0.0, 10.0), ex.q0, ex.qd0, method="DOP853", rtol=1e-12, atol=1e-13,
                          stabilization="projection", t_eval=t)
    E, Lz, L3, u = np.array([ex.invariants(q, v) for q, v in zip(r.q, r.qd)]).T
    for name, x in (("E", E), ("L_z", Lz), ("L₃", L3)):
        measured.check(f"ptp {name} / max|{name}|", np.ptp(x) / np.abs(x).max(), 1e-8, "rel.", strict=True)
    # nutation: u = cos(tilt) stays between the roots of the top's cubic
    # f(u) = (α − βu)(1 − u²) − (b − au)² (Goldstein), here with u2 = 1 since L_z = L_3
    a, b = L3[0] / P["I1"], Lz[0] / P["I1"]
    Ep = E[0] - 0.5 * L3[0] ** 2 / P["I3"]
    alpha, beta = 2 * Ep / P["I1"], 2 * P["m"] * 9.81 * P["l"] / P["I1"]
    roots = np.roots([beta, -(alpha + a * a), 2 * a * b - beta, alpha - b * b])
    roots = np.sort(roots[np.abs(roots.imag) < 1e-9].real)
    u1, u2 = roots[(roots > -1 - 1e-9) & (roots < 1 + 1e-9)][-2:]
    measured.check("|u₂ − 1| (L_z = L₃)", abs(u2 - 1.0), 1e-9)
    measured.check("u₁ − min u (inside: < 0)", u1 - u.min(), 1e-9)
    measured.check("max u − u₂ (inside: < 0)", u.max() - u2, 1e-9)
    measured.check("(min u − u₁) / (u₂ − u₁)", (u.min() - u1) / (u2 - u1), 1e-3, strict=True)
    measured.check("(u₂ − max u) / (u₂ − u₁)", (u2 - u.max()) / (u2 - u1), 1e-3, strict=True)
    measured.check("max|C|", r.constraint_norm.max(), 1e-11, strict=True)


def test_heavy_top_with_zxz_stops_at_gimbal_lock(measured):
    """The same top in ZXZ angles stops with the named error, where the motion really
    reaches the singularity (tilt = θ = gimbal_tol), and is right up to there: the
    Euler-parameter run's tilt at the stop time is that θ, and before it both runs agree."""
    ex = examples.heavy_top("zxz")
    system, q0, qd0 = ex.system, ex.q0, ex.qd0
    with pytest.raises(sk.GimbalLockError, match=r"body 'top'.*t=") as err:
        sk.solve_dynamics(system, (0.0, 10.0), q0, qd0, method="DOP853", rtol=1e-12, atol=1e-13)
    assert err.value.body == "top"
    t_stop, theta_stop = err.value.t, err.value.angles[1]
    measured.check("|θ_stop / gimbal_tol − 1|", abs(theta_stop / system.gimbal_tol - 1.0), 0.05, "rel.", argued=STEP_GRANULARITY)
    # Euler parameters: the tilt from the vertical at the stop time is the ZXZ θ there, and
    # before it both runs are the same motion
    ex_e = examples.heavy_top("euler_parameters")
    top_e, sys_e, q0e, qd0e = ex_e.top, ex_e.system, ex_e.q0, ex_e.qd0
    t = np.linspace(0.0, 0.9 * t_stop, 11)
    kw = dict(method="DOP853", rtol=1e-12, atol=1e-13)
    e = sk.solve_dynamics(sys_e, (0.0, t_stop), q0e, qd0e, t_eval=np.append(t, t_stop), **kw)
    z = sk.solve_dynamics(system, (0.0, t[-1]), q0, qd0, t_eval=t, **kw)
    tilt = np.arccos(np.clip([top_e.rotation.A(q[3:])[2, 2] for q in e.q], -1, 1))
    measured.check("Euler-parameter tilt vs θ_stop", abs(tilt[-1] - theta_stop), 1e-5, "rad")
    measured.allclose("position ZXZ vs Euler parameters", z.q[:, :3], e.q[:-1, :3], atol=1e-10, unit="m")
    measured.allclose("θ (ZXZ) vs tilt (Euler parameters)", z.q[:, 4], tilt[:-1], atol=1e-9, unit="rad")


@pytest.mark.slow
def test_drift_none_grows_baumgarte_bounded_projection_exact(measured):
    """60 s of a spherical pendulum (RK45, rtol 1e-6): without stabilization max|C| of the
    last 10 s exceeds 10 × that of the first 10 s; with Baumgarte (h = 0.01 s) it stays below
    2 ×; projection holds it at round-off.

    The unstabilized index-1 form drifts (Schiehlen 2006, eq. 16); Baumgarte is the thesis's
    eq. 99 with α = 1/h, β = √2/h.
    """
    out = {}
    for stab in ("none", "baumgarte", "projection"):
        ex = examples.pendulum(angle_deg=np.degrees(1.2), angle_rates=(2.0, 0.5, -1.0))
        t = np.linspace(0, 60, 601)
        r = sk.solve_dynamics(ex.system, (0, 60), ex.q0, ex.qd0, rtol=1e-6, atol=1e-8, stabilization=stab, t_eval=t)
        out[stab] = (t, r.constraint_norm)
    t, c = out["none"]
    measured.exceeds("none: max|C| last 10 s ÷ first 10 s", c[t >= 50].max() / c[t <= 10].max(), 10.0)
    t, c = out["baumgarte"]
    measured.check("Baumgarte: max|C| last 10 s ÷ first 10 s", c[t >= 50].max() / c[t <= 10].max(), 2.0, argued=BOUNDED)
    measured.check("projection: max|C|", out["projection"][1].max(), 1e-10, "m")
