"""Dynamics of the engine against conservation laws and analytic solutions."""
import numpy as np
from scipy.special import ellipk

import skilib as sk
from skilib.engine.rotation import G_matrix


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


def pendulum(length=0.8, mass=1.3, inertia=2e-3, constraint_kwargs=None):
    """A bob on a massless rod from a spherical joint at the origin.

    Body x runs from the pivot towards the bob, body z is the swing axis (global y) for
    a planar swing, so θ = 90° throughout.
    """
    bob = sk.RigidBody("bob", mass, [inertia] * 3, points={"pivot": [-length, 0.0, 0.0]})
    return bob, sk.MultibodySystem([bob], [sk.Spherical("pivot", bob, "pivot", None, [0, 0, 0])],
                                   [sk.Gravity()])


def planar_pendulum_state(length, angle):
    """Rod at ``angle`` from the downward vertical in the x–z plane, at rest."""
    # body x = (sin a, 0, −cos a), body z = (0, −1, 0), body y = z × x
    bx = np.array([np.sin(angle), 0.0, -np.cos(angle)])
    bz = np.array([0.0, -1.0, 0.0])
    A = np.column_stack([bx, np.cross(bz, bx), bz])
    return np.concatenate([length * bx, sk.ZXZ.from_matrix(A)])


def test_large_amplitude_pendulum_period_is_elliptic(measured):
    """The period at 120° amplitude is 4√(ℓ_e/g) K(sin(θ0/2)) with ℓ_e = (I + mℓ²)/(mℓ) for a
    bob with inertia (elliptic integral K)."""
    length, mass, inertia, theta0 = 0.8, 1.3, 2e-3, np.radians(120.0)
    bob, system = pendulum(length, mass, inertia)
    q0 = planar_pendulum_state(length, theta0)
    q0, qd0 = sk.consistent_initial_conditions(system, 0.0, q0, np.zeros(6), independent=[3, 4, 5])

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
    bob, system = pendulum()
    q0 = planar_pendulum_state(0.8, 1.0)
    q0, qd0 = sk.consistent_initial_conditions(system, 0.0, q0, [0, 0, 0, 0.7, 0.0, -1.5],
                                               independent=[3, 4, 5])
    r = sk.solve_dynamics(system, (0.0, 1.0), q0, qd0, rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 1, 11))
    reac = r.reactions("pivot")
    F = reac[["Fx", "Fy", "Fz"]].to_numpy()
    measured.allclose("pivot force vs m(a − g)", F, bob.mass * (r.qdd[:, :3] - np.array([0, 0, -9.81])), atol=1e-8,
                      unit="N")
    measured.allclose("pivot moment", reac[["Mx", "My", "Mz"]].to_numpy(), 0.0, atol=1e-8, unit="N m")


def test_spherical_pendulum_conserves_energy_and_vertical_momentum(measured):
    """5 s of a 3-D spherical pendulum: the energy and the vertical angular momentum H_z are
    constant (relative to max|E| and to max(|H_z|, 1))."""
    bob, system = pendulum()
    q0 = planar_pendulum_state(0.8, 0.9)
    q0, qd0 = sk.consistent_initial_conditions(system, 0.0, q0, [0, 0, 0, 1.1, 0.3, -0.8],
                                               independent=[3, 4, 5])
    r = sk.solve_dynamics(system, (0.0, 5.0), q0, qd0, method="DOP853", rtol=1e-11, atol=1e-12,
                          t_eval=np.linspace(0, 5, 51))
    E = r.kinetic_energy() + bob.mass * 9.81 * r.q[:, 2]
    Hz = np.array([bob.angular_momentum(q, v)[2] for q, v in zip(r.q, r.qd)])
    measured.check("ptp E / max|E|", np.ptp(E) / np.abs(E).max(), 1e-8, "rel.", strict=True)
    measured.check("ptp H_z / max(|H_z|, 1)", np.ptp(Hz) / max(np.abs(Hz).max(), 1.0), 1e-8, "rel.", strict=True)
    assert np.ptp(r.q[:, 1]) > 0.1  # the motion leaves the plane
