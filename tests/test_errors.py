"""Clear errors instead of silent wrong answers."""
import numpy as np
import pytest

import skilib as sk


def test_gimbal_lock_names_body_and_time():
    """A free-tumbling body whose z axis passes through vertical hits θ = 0."""
    body = sk.RigidBody("tumbler", 1.0, [0.2, 0.3, 0.4])
    system = sk.MultibodySystem([body])
    # rotation about global X at 1 rad/s: θ = 0.5 − t passes through 0 at t = 0.5 s; the
    # engine stops there (event on sin θ) instead of stepping over the singular point
    q0 = np.array([0, 0, 0, 0.0, 0.5, 0.0])
    qd0 = np.array([0, 0, 0, 0.0, -1.0, 0.0])
    with pytest.raises(sk.GimbalLockError, match=r"body 'tumbler'.*t=0\.[45]"):
        sk.solve_dynamics(system, (0.0, 1.0), q0, qd0)


def test_angles_driven_one_by_one_may_sit_at_theta_zero(measured):
    """The thesis's ski has θ = 0 but its three angles are driven: no error, and under a
    constant push the exact answer x = ½(F/m)t²."""
    ski = sk.RigidBody("ski", 1.5, [0.01, 0.4, 0.4])
    cons = [sk.PointOnPlane("floor", ski, [0, 0, 0], [0, 0, 0], [0, 0, 1])]
    cons += [sk.FixedCoordinate(f"angle{k}", ski, k, v) for k, v in zip((3, 4, 5), (0.3, 0.0, 0.0))]
    system = sk.MultibodySystem([ski], cons, [sk.PointForce("push", ski, [0, 0, 0], lambda s: [2.0, 0, 0])])
    r = sk.solve_dynamics(system, (0.0, 1.0), np.array([0, 0, 0, 0.3, 0, 0.0]), np.zeros(6),
                          t_eval=[0.0, 1.0])
    x = 0.5 * 2.0 / 1.5  # ½ (F/m) t² at t = 1 s
    measured.check("x(1 s) vs ½(F/m)t²", abs(r.q[-1, 0] - x) / x, 1e-9, "rel.")


def test_redundant_constraint_is_named():
    b = sk.RigidBody("b", 1.0, [1, 1, 1])
    cons = [sk.Spherical("ball", b, [0, 0, 0], None, [0, 0, 0]),
            sk.PointOnPlane("again", b, [0, 0, 0], [0, 0, 0], [1, 1, 0])]
    system = sk.MultibodySystem([b], cons)
    q0 = np.array([0, 0, 0, 0.1, 1.0, 0.2])
    with pytest.raises(sk.RedundantConstraintError, match=r"again\[0\]"):
        sk.solve_dynamics(system, (0, 1), q0, np.zeros(6))


def test_newton_raphson_failure_reports_residual():
    """Two spheres of radius 1 about points 3 apart have no common point."""
    b = sk.RigidBody("b", 1.0, [1, 1, 1])
    cons = [sk.DistanceDriver("r1", None, [0, 0, 0], b, [0, 0, 0], 1.0),
            sk.DistanceDriver("r2", None, [3, 0, 0], b, [0, 0, 0], 1.0)]
    system = sk.MultibodySystem([b], cons)
    with pytest.raises(sk.InconsistentInitialConditions, match=r"max \|C\| = .* at row r\d\[0\]"):
        sk.consistent_initial_conditions(system, 0.0, [1.5, 0.2, 0.1, 0.1, 1.0, 0.2], max_iter=30)


def test_inconsistent_start_is_refused():
    b = sk.RigidBody("b", 1.0, [1, 1, 1], points={"top": [0, 0, 1]})
    system = sk.MultibodySystem([b], [sk.Spherical("pin", b, "top", None, [0, 0, 0])])
    with pytest.raises(sk.InconsistentInitialConditions, match=r"pin\[\d\]"):
        sk.solve_dynamics(system, (0, 1), np.array([0.1, 0, -1, 0.1, 1.0, 0.2]), np.zeros(6))


@pytest.mark.parametrize(
    "kwargs, field",
    [({"mass": 0.0}, "mass"), ({"mass": -1.0}, "mass"), ({"inertia": [1, -2, 1]}, "positive semi-definite"),
     ({"inertia": [[1, 2, 0], [0, 1, 0], [0, 0, 1]]}, "symmetric")],
)
def test_bad_body_parameters(kwargs, field):
    args = {"name": "thigh", "mass": 1.0, "inertia": [1, 1, 1]} | kwargs
    with pytest.raises(ValueError, match=rf"thigh.*{field}"):
        sk.RigidBody(**args)


def test_bad_solver_inputs():
    b = sk.RigidBody("b", 1.0, [1, 1, 1])
    system = sk.MultibodySystem([b])
    with pytest.raises(ValueError, match="q0 must have 6"):
        sk.solve_dynamics(system, (0, 1), np.zeros(5), np.zeros(6))
    with pytest.raises(ValueError, match="t_span"):
        sk.solve_dynamics(system, (1, 0), np.zeros(6), np.zeros(6))
    with pytest.raises(ValueError, match="h must be > 0"):
        sk.baumgarte(0.0)
    with pytest.raises(ValueError, match="plain callable has no derivatives"):
        sk.CoordinateDriver("drv", b, 0, lambda t: t)
