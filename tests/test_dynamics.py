"""Dynamics of the engine against conservation laws and analytic solutions."""
import numpy as np
import pytest
from scipy.special import ellipk

import skilib as sk
from skilib.engine import examples
from skilib.engine.rotation import G_matrix

from minimal_pendulum import SeedPendulum


def test_torque_free_asymmetric_body_conserves_energy_and_momentum(measured):
    """No forces, no constraints: over 10 s of a 3-D tumble the kinetic energy T and the
    angular momentum H stay constant and the centre of mass moves uniformly.

    The body spins mainly about its major axis (body z) held horizontal, so ZXZ's θ
    stays near 90° and far from gimbal lock; a perturbation makes it wobble in 3-D.
    """
    body = sk.RigidBody("free", 3.0, [0.4, 0.7, 1.1])
    system = sk.MultibodySystem([body])
    q0 = np.array([0.1, -0.2, 0.3, 0.2, np.pi / 2, 0.1])
    A = sk.rotation_matrix(q0[3:])
    w = A @ np.array([0.3, -0.25, 4.0])  # body-frame rates → global ω
    qd0 = np.concatenate([[0.5, -0.1, 0.2], np.linalg.solve(G_matrix(q0[3:]), w)])
    r = sk.solve_dynamics(system, (0.0, 10.0), q0, qd0, method="DOP853", rtol=1e-12, atol=1e-12,
                          t_eval=np.linspace(0, 10, 201))
    T = r.kinetic_energy()
    H = np.array([body.angular_momentum(q, v) for q, v in zip(r.q, r.qd)])
    measured.check("ptp T / T(0)", np.ptp(T) / T[0], 1e-8, "rel.", strict=True)
    measured.check("max|H − H(0)| / |H(0)|", np.abs(H - H[0]).max() / np.linalg.norm(H[0]), 1e-8, "rel.",
                   strict=True)
    # the free centre of mass moves uniformly
    measured.allclose("centre of mass vs R0 + Ṙ0 t", r.q[:, :3], q0[:3] + np.outer(r.t, qd0[:3]), atol=1e-9, unit="m")
    # a genuinely 3-D tumble: all three Euler angles move
    assert np.ptp(r.q[:, 5]) > 1.0 and np.ptp(r.q[:, 4]) > 0.01


def pendulum(length=0.8, mass=1.3, inertia=2e-3):
    """(bob, system) of ``examples.pendulum``, for tests that set their own initial state."""
    ex = examples.pendulum(length, mass, inertia)
    return ex.bodies["bob"], ex.system


def planar_pendulum_state(length, angle):
    """q of ``examples.pendulum``: the rod at ``angle`` (rad) from the downward vertical in the
    x–z plane."""
    return examples.pendulum(length, angle_deg=np.degrees(angle)).q0


def test_large_amplitude_pendulum_period_is_elliptic(measured):
    """The period at 120° amplitude is 4√(ℓ_e/g) K(sin(θ0/2)) with ℓ_e = (I + mℓ²)/(mℓ) for a
    bob with inertia (elliptic integral K)."""
    length, mass, inertia, theta0 = 0.8, 1.3, 2e-3, np.radians(120.0)
    ex = examples.pendulum(length, mass, inertia, angle_deg=np.degrees(theta0))
    system, q0, qd0 = ex.system, ex.q0, ex.qd0

    def upward_crossing(t, y):
        return y[0]

    upward_crossing.direction = 1.0
    r = sk.solve_dynamics(system, (0.0, 6.0), q0, qd0, method="DOP853", rtol=1e-12, atol=1e-12,
                          events=upward_crossing, t_eval=[0.0, 6.0])
    crossings = r.t_events[0]
    assert len(crossings) >= 2
    period = np.diff(crossings).mean()
    l_eq = (inertia + mass * length**2) / (mass * length)
    expected = 4.0 * np.sqrt(l_eq / 9.81) * ellipk(np.sin(theta0 / 2) ** 2)  # scipy's K takes m = k²
    measured.check("period vs 4√(ℓₑ/g) K(sin θ₀/2)", abs(period - expected) / expected, 1e-6, "rel.")


def test_spherical_joint_reaction_is_newton_euler(measured):
    """Reaction at the pivot: F = m(a − g) on the bob, and no moment about the joint."""
    ex = examples.pendulum(angle_deg=np.degrees(1.0), angle_rates=(0.7, 0.0, -1.5))
    bob, system, q0, qd0 = ex.bodies["bob"], ex.system, ex.q0, ex.qd0
    r = sk.solve_dynamics(system, (0.0, 1.0), q0, qd0, rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 1, 11))
    reac = r.reactions("pivot")
    F = reac[["Fx", "Fy", "Fz"]].to_numpy()
    measured.allclose("pivot force vs m(a − g)", F, bob.mass * (r.qdd[:, :3] - np.array([0, 0, -9.81])), atol=1e-8,
                      unit="N")
    measured.allclose("pivot moment", reac[["Mx", "My", "Mz"]].to_numpy(), 0.0, atol=1e-8, unit="N m")


def test_spherical_pendulum_conserves_energy_and_vertical_momentum(measured):
    """5 s of a 3-D spherical pendulum: the energy and the vertical angular momentum H_z are
    constant (relative to max|E| and to max(|H_z|, 1))."""
    ex = examples.pendulum(angle_deg=np.degrees(0.9), angle_rates=(1.1, 0.3, -0.8))
    r = sk.solve_dynamics(ex.system, (0.0, 5.0), ex.q0, ex.qd0, method="DOP853", rtol=1e-11, atol=1e-12,
                          t_eval=np.linspace(0, 5, 51))
    E = np.array([ex.energy(q, v) for q, v in zip(r.q, r.qd)])
    Hz = np.array([ex.angular_momentum_z(q, v) for q, v in zip(r.q, r.qd)])
    measured.check("ptp E / max|E|", np.ptp(E) / np.abs(E).max(), 1e-8, "rel.", strict=True)
    measured.check("ptp H_z / max(|H_z|, 1)", np.ptp(Hz) / max(np.abs(Hz).max(), 1.0), 1e-8, "rel.", strict=True)
    assert np.ptp(r.q[:, 1]) > 0.1  # the motion leaves the plane


EXAMPLES = {
    "pendulum at rest": lambda: examples.pendulum(angle_deg=60.0),
    "spherical pendulum (ZXZ)": lambda: examples.pendulum(angle_deg=70.0, angle_rates=(1.1, 0.3, -0.8)),
    "spherical pendulum (Euler parameters)": lambda: examples.pendulum(angle_deg=70.0, angle_rates=(1.1, 0.3, -0.8),
                                                                       rotation="euler_parameters"),
    "heavy top (ZXZ)": lambda: examples.heavy_top("zxz"),
    "heavy top (Euler parameters)": lambda: examples.heavy_top("euler_parameters"),
    "double pendulum (ZXZ)": lambda: examples.double_pendulum(),
    "double pendulum (Euler parameters)": lambda: examples.double_pendulum(rotation="euler_parameters"),
}


def hand_invariants(ex):
    """Energy (and L_z, L₃) of an example's initial state computed from its parameters alone."""
    P, out = ex.params, {}
    if "bob" in ex.bodies:  # ½ m v² + ½ I |ω|² + m g z, v = ω × r (isotropic inertia)
        a, l = np.radians(P["angle_deg"]), P["length"]
        r = l * np.array([np.sin(a), 0.0, -np.cos(a)])
        w = P["omega0"]
        v = np.cross(w, r)
        out["E"] = 0.5 * P["mass"] * v @ v + 0.5 * P["inertia"] * w @ w + P["mass"] * P["g"] * r[2]
        out["L_z"] = (P["mass"] * np.cross(r, v) + P["inertia"] * w)[2]
    elif "top" in ex.bodies:  # about the pivot: J = I₁(1 − aaᵀ) + I₃aaᵀ, E = ½ωᵀJω + m g l cos(tilt)
        th = np.radians(P["tilt_deg"])
        a = np.array([np.sin(th), 0.0, np.cos(th)])
        xb = np.array([np.cos(th), 0.0, -np.sin(th)])
        w_x = -P["I3"] * P["spin"] * (1 - np.cos(th)) / (P["I1"] * np.sin(th))
        w = P["spin"] * a + w_x * xb + P["tip_rate"] * np.array([0.0, 1.0, 0.0])
        J = P["I1"] * (np.eye(3) - np.outer(a, a)) + P["I3"] * np.outer(a, a)
        out["E"] = 0.5 * w @ J @ w + P["m"] * P["g"] * P["l"] * np.cos(th)
        out["L_z"] = (J @ w)[2]
        out["L_3"] = P["I3"] * P["spin"]
        out["L_z − L_3"] = out["L_z"] - out["L_3"]
    else:  # Al-Zube's point masses: Σ ½ m_p |v_p|² + m_p g z_p from the minimal state
        model = SeedPendulum(P["lengths"], P["point_masses"], g=P["g"])
        out["E"] = model.energy(np.array(P["angles"]), np.array(P["rates"]))
    return out


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_examples_start_consistent_with_invariants_by_hand(name, measured):
    """``skilib.engine.examples``: the initial state satisfies C = 0 and Cq q̇ + Ct = 0 (eqs. 19,
    95) to 1e-12, and its energy (and the momenta the example names) equal a hand computation
    from the example's parameters."""
    ex = EXAMPLES[name]()
    jet = ex.system.constraint_jet(0.0, ex.q0, ex.qd0)
    measured.check(f"{name}: max|C(q0)|", np.abs(jet.val).max(), 1e-12, "m", strict=True)
    measured.check(f"{name}: max|Cq q̇0 + Ct|", np.abs(jet.vel).max(), 1e-12, "m/s", strict=True)
    hand = hand_invariants(ex)
    E = ex.energy(ex.q0, ex.qd0)
    measured.check(f"{name}: energy vs hand", abs(E - hand["E"]) / max(abs(hand["E"]), 1.0), 1e-12, "rel.")
    if "L_z" in hand:
        measured.check(f"{name}: L_z vs hand", abs(ex.angular_momentum_z(ex.q0, ex.qd0) - hand["L_z"]), 1e-12,
                       "kg m²/s")
    if "L_3" in hand:
        measured.check(f"{name}: L₃ vs hand", abs(ex.axial_momentum(ex.q0, ex.qd0) - hand["L_3"]), 1e-12,
                       "kg m²/s")
        measured.check(f"{name}: L_z − L₃ (axis through the vertical)", abs(hand["L_z − L_3"]), 1e-12, "kg m²/s")
