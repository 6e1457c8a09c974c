"""A 3-D double pendulum of spherical joints against Al-Zube (2004) minimal coordinates.

Reference: Al-Zube (2004), M.Sc. thesis, NJIT — the general S-segment 3-D pendulum, mass
matrix eq. 3.14 (with eqs. 3.1–3.12), the quadratic-velocity vector S(X, V) of eq. 4.9
and M V̇ = −∇P − S of eq. 4.10 (∇P from eqs. 3.10/4.11); see ``minimal_pendulum.py``.
His closed forms (4.45)/(4.66) are NOT used (they are in error: the book's Differences
chapter, erratum 8).  The skilib side is ``skilib.engine.examples.double_pendulum``.

Body model.  Al-Zube's segments are massless and carry point masses on their axes.
Each segment here carries two point masses, so the segment is a rigid body whose mass
lies on a line: mass m = Σ m_p, centre of mass at d = Σ m_p z_p / m from the proximal
joint, transverse central inertia I_t = Σ m_p (z_p − d)², axial inertia 0.  In skilib
the link is a RigidBody with its long axis on body x (so a hanging link has ZXZ θ ≈ 90°,
far from gimbal lock), points 'proximal' (−d, 0, 0) and 'distal' (L − d, 0, 0), and
inertia diag(J_a, I_t, I_t) with a small axial J_a > 0 (J_a = 0 would make the mass
matrix singular).  J_a does not change the motion: the link is axisymmetric about body x,
and every force on it (gravity at the CM, joint reactions including the Baumgarte terms)
acts at a point on that axis, so the axial moment about the CM is zero and Euler's
equation gives J_a ω̇_x = (I_t − I_t) ω_y ω_z + 0 = 0.  Started with ω_x = 0 the spin
stays zero, and then ½ ω·Īω = ½ I_t |ω_⊥|², exactly the kinetic energy of the point masses
about their CM: the two models have the same motion (the test checks ω_x ≈ 0 too).

Initial state.  Minimal (θ, Φ, θ̇, Φ̇) → unit vectors e_s and ė_s; CM positions and
velocities follow along the chain; the orientation matrix is [e_s, n_s, e_s × n_s] with
n_s = ẑ × e_s / |ẑ × e_s| (body z horizontal at t = 0), turned into ZXZ angles with
``ZXZ.from_matrix``; ω_s = e_s × ė_s (no axial spin) gives the angle rates from ω = G θ̇.
``consistent_initial_conditions`` then polishes (holding the six rotation coordinates).

The motion is genuinely 3-D (azimuthal rates Φ̇ ≠ 0, non-planar links) with large
amplitude (link angles up to ~54° and ~73° from the downward vertical) and keeps
sin θ_s ≥ 0.3 so neither parametrization nears its singularity.
"""
import time

import numpy as np
import pytest
import sympy as sp

import skilib
from skilib.engine import examples
from skilib.engine.rotation import G_matrix, rotation_matrix

from minimal_pendulum import SeedPendulum

G = 9.81
LENGTHS = np.array([1.0, 0.8])
# (segment, distance from the segment's proximal joint z_p, mass m_p): two per segment
POINT_MASSES = [(0, 0.4, 0.5), (0, 1.0, 1.0), (1, 0.5, 0.3), (1, 0.8, 0.8)]
# X = (θ1, θ2, Φ1, Φ2): θ from +Z (θ = π hangs straight down), Φ azimuth; V = Ẋ
X0 = np.array([np.pi - 0.9, np.pi - 1.2, 0.0, 0.8])
V0 = np.array([0.5, -1.0, 2.0, 3.0])
T_END = 2.0
T_EVAL = np.linspace(0.0, T_END, 41)
TOL = dict(method="DOP853", rtol=1e-11, atol=1e-12)
AXIAL_FRACTION = 0.05  # J_a = 0.05 I_t


def unit(th, ph):
    return np.array([np.cos(ph) * np.sin(th), np.sin(ph) * np.sin(th), np.cos(th)])


def reference_model():
    return SeedPendulum(LENGTHS, POINT_MASSES, g=G)


def build_skilib():
    """The example, with the mapping of the minimal state checked: exact up to round-off."""
    ex = examples.double_pendulum(LENGTHS, POINT_MASSES, X0, V0, axial_fraction=AXIAL_FRACTION, g=G)
    q, qd = ex.absolute_state(X0, V0)
    # each link's orientation is [e_s, n_s, e_s × n_s] of the minimal state, to round-off
    for s, b in enumerate(ex.bodies.values()):
        e = unit(X0[s], X0[2 + s])
        n = np.cross([0.0, 0.0, 1.0], e)
        n /= np.linalg.norm(n)
        assert np.allclose(rotation_matrix(q[ex.system.slice(b)][3:]), np.column_stack([e, n, np.cross(e, n)]),
                           atol=1e-14)
    # the mapping is already exact: the polish may only move things at round-off level
    assert np.abs(ex.q0 - q).max() < 1e-12 and np.abs(ex.qd0 - qd).max() < 1e-12
    return ex


@pytest.fixture(scope="module")
def runs():
    model = reference_model()
    t0 = time.perf_counter()
    t_ref, X, V = model.simulate(X0, V0, (0.0, T_END), t_eval=T_EVAL, **TOL)
    t_min = time.perf_counter() - t0
    ex = build_skilib()
    system, bodies, q0, qd0 = ex.system, list(ex.bodies.values()), ex.q0, ex.qd0
    t0 = time.perf_counter()
    res = skilib.solve_dynamics(system, (0.0, T_END), q0, qd0, t_eval=T_EVAL, **TOL)
    t_eng = time.perf_counter() - t0
    print(f"\nminimal model {t_min:.2f} s, skilib {t_eng:.2f} s ({res.nfev} rhs evaluations)")
    return dict(model=model, t=t_ref, X=X, V=V, system=system, bodies=bodies, res=res, example=ex)


# -- Al-Zube's equations themselves ---------------------------------------------------
def test_mass_matrix_3_14_matches_printed_elements(rng, measured):
    """Al-Zube's mass matrix M = ΣCSᵀ C CS (3.14) equals his printed element formulas
    M11..M22, is symmetric and positive definite; ½VᵀMV (3.13) is the point masses' kinetic
    energy; the velocities (3.7)–(3.9) are d/dt of the positions (3.4)–(3.6)."""
    model = reference_model()
    for _ in range(20):
        X = np.concatenate([rng.uniform(0.2, np.pi - 0.2, 2), rng.uniform(-np.pi, np.pi, 2)])
        M = model.mass_matrix(X)
        measured.allclose("M (3.14) vs printed elements", M, model.mass_matrix_elementwise(X), atol=1e-14,
                          unit="kg m²")
        measured.allclose("M − Mᵀ", M, M.T, atol=1e-14, unit="kg m²")
        measured.exceeds("smallest eigenvalue of M", np.linalg.eigvalsh(M).min(), 0.0, "kg m²")
        # kinetic energy ½VᵀMV (3.13) = Σ ½ m_p |v_p|² with v_p from (3.7)-(3.9)
        Vr = rng.normal(size=4)
        vp = model.velocities(X, Vr)
        ke = 0.5 * sum(m * v @ v for (_, _, m), v in zip(POINT_MASSES, vp))
        measured.check("½VᵀMV vs Σ ½m|v|²", abs(model.kinetic_energy(X, Vr) - ke) / ke, 1e-13, "rel.")
        # the velocities of (3.7)-(3.9) are the time derivatives of (3.4)-(3.6)
        h = 1e-6
        fd = (model.positions(X + h * Vr) - model.positions(X - h * Vr)) / (2 * h)
        measured.allclose("velocities (3.7)–(3.9) vs central differences", fd, vp, atol=1e-8, unit="m/s")


def test_equations_4_9_match_sympy_lagrange(rng, measured):
    """M V̇ = −∇P − S (4.9, 4.10) agrees with a sympy Lagrange derivation from the
    point-mass energies T = Σ ½ m_p |ṙ_p|², P = Σ m_p g z_p (positions per eqs. 3.4–3.6)."""
    th = sp.symbols("th1:3")
    ph = sp.symbols("ph1:3")
    thd = sp.symbols("thd1:3")
    phd = sp.symbols("phd1:3")
    q, qd = list(th) + list(ph), list(thd) + list(phd)
    e = [sp.Matrix([sp.cos(ph[s]) * sp.sin(th[s]), sp.sin(ph[s]) * sp.sin(th[s]), sp.cos(th[s])])
         for s in range(2)]
    T = 0
    P = 0
    for s, z, m in POINT_MASSES:
        r = z * e[s] + (LENGTHS[0] * e[0] if s == 1 else sp.zeros(3, 1))
        rd = sum((r.diff(qk) * vk for qk, vk in zip(q, qd)), sp.zeros(3, 1))
        T += sp.Rational(1, 2) * sp.nsimplify(m) * (rd.T * rd)[0]
        P += sp.nsimplify(m) * G * r[2]
    Msym = sp.hessian(T, qd)
    Mdot = sum((Msym.diff(q[k]) * qd[k] for k in range(4)), sp.zeros(4, 4))
    rhs = sp.Matrix([T.diff(qk) - P.diff(qk) for qk in q]) - Mdot * sp.Matrix(qd)
    Mf = sp.lambdify((q, qd), Msym, "numpy")
    rf = sp.lambdify((q, qd), rhs, "numpy")
    model = reference_model()
    for _ in range(10):
        X = np.concatenate([rng.uniform(0.2, np.pi - 0.2, 2), rng.uniform(-np.pi, np.pi, 2)])
        V = rng.normal(scale=2.0, size=4)
        Mref = np.array(Mf(X, V), dtype=float)
        acc_ref = np.linalg.solve(Mref, np.array(rf(X, V), dtype=float).ravel())
        measured.allclose("M vs sympy", model.mass_matrix(X), Mref, atol=1e-12, unit="kg m²")
        measured.allclose("V̇ (4.9, 4.10) vs sympy", model.accelerations(X, V), acc_ref, rtol=1e-10, atol=1e-10)


def test_minimal_model_conserves_energy(runs, measured):
    """The minimal-coordinate model keeps its energy over the 2 s reference run, a large,
    genuinely 3-D motion clear of its sin θ = 0 singularity."""
    model, X, V = runs["model"], runs["X"], runs["V"]
    E = np.array([model.energy(x, v) for x, v in zip(X, V)])
    scale = np.abs(E).max()
    measured.check("max|E − E(0)| / max|E|", np.abs(E - E[0]).max() / scale, 1e-9, "rel.", strict=True)
    # the trajectory stays clear of the two-angle singularity sin θ = 0
    assert np.abs(np.sin(X[:, :2])).min() > 0.3
    # and it is a large, genuinely 3-D motion: both azimuths sweep > 90°
    assert np.ptp(X[:, 2]) > np.pi / 2 and np.ptp(X[:, 3]) > np.pi / 2
    assert np.degrees(np.pi - X[:, :2].min()) > 60


# -- skilib against Al-Zube -------------------------------------------------------------
def test_skilib_double_pendulum_matches_al_zube(runs, measured):
    """skilib's 12-coordinate, 6-row 3-D double pendulum against the 4-coordinate model of
    Al-Zube (2004): every point mass (incl. the tip), positions and velocities, over 2 s;
    the constraints hold."""
    model, X, V, res, bodies = runs["model"], runs["X"], runs["V"], runs["res"], runs["bodies"]
    system = runs["system"]
    assert res.success and np.allclose(res.t, runs["t"])
    pos_err = vel_err = 0.0
    for k in range(len(res.t)):
        s = system.state(res.t[k], res.q[k], res.qd[k])
        p_ref = model.positions(X[k])
        v_ref = model.velocities(X[k], V[k])
        for p, (seg, _, _) in enumerate(POINT_MASSES):
            b = bodies[seg]
            sl = system.slice(b)
            A = rotation_matrix(res.q[k, sl][3:])
            u = A @ b.points[f"mass{p}"]
            w = G_matrix(res.q[k, sl][3:]) @ res.qd[k, sl][3:]
            pos = res.q[k, sl][:3] + u
            vel = res.qd[k, sl][:3] + np.cross(w, u)
            pos_err = max(pos_err, np.abs(pos - p_ref[p]).max())
            vel_err = max(vel_err, np.abs(vel - v_ref[p]).max())
        tip = s.point(bodies[1], bodies[1].points["distal"]).val
        measured.check("tip position", np.abs(tip - p_ref[3]).max(), 1e-6, "m", strict=True)
    print(f"max position error {pos_err:.3e} m, max velocity error {vel_err:.3e} m/s")
    measured.check("point-mass positions", pos_err, 1e-6, "m", strict=True)
    measured.check("point-mass velocities", vel_err, 1e-6, "m/s", strict=True)
    measured.check("max|C|", res.constraint_norm.max(), 1e-9, "m", strict=True)


def test_skilib_run_keeps_axial_spin_zero_and_energy(runs, measured):
    """Supports the model equivalence: no spin about the link axes; energy conserved."""
    res, system, bodies = runs["res"], runs["system"], runs["bodies"]
    spin = 0.0
    E = []
    for q, qd in zip(res.q, res.qd):
        pe = 0.0
        for b in bodies:
            sl = system.slice(b)
            ang = q[sl][3:]
            assert abs(np.sin(ang[1])) > 0.1  # ZXZ well away from gimbal lock
            w = G_matrix(ang) @ qd[sl][3:]
            spin = max(spin, abs(rotation_matrix(ang)[:, 0] @ w))
            pe += b.mass * G * q[sl][2]
        E.append(system.kinetic_energy(q, qd) + pe)
    E = np.array(E)
    measured.check("max |ω · link axis|", spin, 1e-8, "rad/s", strict=True)
    measured.check("max|E − E(0)| / max|E|", np.abs(E - E[0]).max() / np.abs(E).max(), 1e-9, "rel.", strict=True)
