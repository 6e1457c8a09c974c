"""Every constraint's C, Cq, Ct and Qd (eq. 97) against finite differences.

Along the path q(τ) = q + q̇τ + ½q̈τ², t + τ, the constraint f(τ) = C(q(τ), t + τ) has
f'(0) = Cq q̇ + Ct and f''(0) = Cq q̈ − Qd; both are compared with 4th-order central
differences, Cq column by column and Ct directly.
"""
import numpy as np
import pytest

import skilib as sk
from skilib.engine.axis_drivers import AxialOffsetDriver, RadialDistanceDriver
from skilib.engine.timefunctions import Polynomial, RotationPath

SECOND_ORDER = ('a rotation θ about n gives the rows sin θ n_i + (1 − cos θ) n_j n_k: the second-order part is at '
                'most θ/2 = 5e-4 of θ (|n_j n_k| ≤ ½, so ≤ 2.5e-4 per row); the tolerance is twice the worst case')


def two_bodies(rng):
    b1 = sk.RigidBody("one", 2.0, [0.1, 0.2, 0.15], points={"p": [0.1, -0.2, 0.3]})
    b2 = sk.RigidBody("two", 3.0, [0.3, 0.1, 0.25], points={"p": [-0.3, 0.1, 0.2]})
    return b1, b2


def all_constraints(b1, b2):
    ang = Polynomial([0.1, 0.7, -0.4])
    path = Polynomial([[0.1, 0.2, 0.3], [0.5, -0.2, 0.1], [0.3, 0.4, -0.6]])
    return [
        sk.Spherical("sph", b1, "p", b2, "p"),
        sk.Spherical("sph_ground", b1, "p", None, [0.2, -0.1, 0.4]),
        sk.Revolute("rev", b1, "p", [0, 0, 1], b2, "p", [0.3, 0.2, 1.0]),
        sk.Prismatic("pri", b1, [0, 0, 0.1], [0, 0, 1], b2, [0.05, 0, 0], [0, 0, 1]),
        sk.PointOnPlane("plane", b1, "p", [0.1, 0.2, -0.3], [0.2, -0.5, 1.0]),
        sk.PointOnPlane("plane_body", b1, "p", [0.1, 0.2, -0.3], [0.2, -0.5, 1.0], body_j=b2),
        sk.PointOnLine("line", b1, "p", [0.1, 0.2, -0.3], [1.0, 0.5, 0.2]),
        sk.Fixed("fixed", b1, "p", b2, "p", rel=sk.rotation_matrix([0.3, 1.1, -0.2])),
        sk.Fixed("fixed_ground", b2, "p", None, [0.0, 0.1, 0.2]),
        sk.CoordinateDriver("coord", b1, 4, Polynomial([1.2, 0.3, -0.5, 0.2])),
        sk.DistanceDriver("dist", b1, "p", b2, [0.2, 0.3, -0.1], Polynomial([0.5, 0.2, 0.1])),
        sk.OrientationDriver("orient", b2, RotationPath(sk.rotation_matrix([0.2, 1.3, 0.4]), [0.3, 1, 0.2], ang)),
        sk.PointPathDriver("path", b2, "p", path),
        sk.ParallelAxes("parallel", b1, [0.2, 0.1, 1.0], b2, [0.3, -0.2, 1.0]),
        sk.RelativePointDriver("relpath", b1, "p", b2, [0.1, -0.2, 0.3], path),
        AxialOffsetDriver("axial", b1, "p", [0.3, -0.2, 1.0], b2, [0.1, 0.2, -0.1], Polynomial([0.2, -0.4, 0.3])),
        RadialDistanceDriver("radial", b1, "p", [0.3, -0.2, 1.0], b2, [0.1, 0.2, -0.1], Polynomial([0.9, 0.2, -0.1])),
    ]


def d1(f, h):
    return (f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h)


def d2(f, h):
    return (-f(-2 * h) + 16 * f(-h) - 30 * f(0.0) + 16 * f(h) - f(2 * h)) / (12 * h * h)


@pytest.mark.parametrize("index", range(17))
def test_jacobian_ct_and_qd_against_finite_differences(rng, index, measured):
    """Cq, Ct and Ċ of each of the 17 components (spherical ×2, revolute, prismatic,
    point-on-plane ×2, point-on-line, fixed ×2, coordinate, distance, orientation,
    point-path and relative-path drivers, parallel axes, axial-offset and radial-distance
    drivers) against 4th-order central differences (h = 1e-3); Cq q̈ − Qd against
    the second difference along a path; Ċ = Cq q̇ + Ct, 5 random states each."""
    b1, b2 = two_bodies(rng)
    c = all_constraints(b1, b2)[index]
    system = sk.MultibodySystem([b1, b2], [c])
    for _ in range(5):
        q = rng.normal(size=12)
        q[[4, 10]] = rng.uniform(0.4, np.pi - 0.4, size=2)
        qd, qdd = rng.normal(size=12), rng.normal(size=12)
        t = rng.uniform(0.0, 1.0)
        jet = system.constraint_jet(t, q, qd)
        C = lambda qq, tt: system.constraint_jet(tt, qq).val
        h = 1e-3
        Cq_fd = np.column_stack([d1(lambda e: C(q + e * np.eye(12)[k], t), h) for k in range(12)])
        measured.allclose("Cq vs differences", jet.J, Cq_fd, atol=1e-9)
        measured.allclose("Ct vs differences", jet.t, d1(lambda e: C(q, t + e), h), atol=1e-9)
        f = lambda e: C(q + qd * e + 0.5 * qdd * e * e, t + e)
        measured.allclose("Ċ vs Cq q̇ + Ct", jet.vel, jet.J @ qd + jet.t, atol=1e-12)
        measured.allclose("Ċ vs differences", jet.vel, d1(f, h), atol=1e-9,
                          argued="fourth-order differences at h = 1e-3 along q + q̇e + q̈e²/2 with q̇, q̈ of size ~1: "
                                 "truncation h⁴|f⁽⁵⁾|/30 ≈ 1e-10 for |f⁽⁵⁾| ~ 10³, rounding 18 ε|C|/(12h) ≈ 3e-13")
        Qd = -jet.quad
        measured.allclose("Cq q̈ − Qd vs 2nd difference", jet.J @ qdd - Qd, d2(f, h), atol=2e-7)


def test_rotation_path_derivatives(measured):
    """A driven rotation A_d(t) is orthonormal; Ȧ_d and Ä_d against 4th-order differences."""
    rp = RotationPath(sk.rotation_matrix([0.2, 1.3, 0.4]), [0.3, 1, 0.2], Polynomial([0.1, 0.7, -0.4, 0.3]))
    t, h = 0.37, 1e-3
    A, Ad, Add = rp(t)
    measured.allclose("A_dᵀA_d − I", A.T @ A, np.eye(3), atol=1e-14)
    measured.allclose("Ȧ_d vs differences", Ad, d1(lambda e: rp(t + e)[0], h), atol=1e-10, unit="1/s")
    measured.allclose("Ä_d vs differences", Add, d2(lambda e: rp(t + e)[0], h), atol=1e-7, unit="1/s²")


def test_constraint_rows_vanish_where_they_should(measured):
    """The orientation rows of a Fixed joint vanish at the intended relative pose and equal
    the small relative rotation (1e-3 rad) away from it."""
    b1 = sk.RigidBody("one", 1.0, [1, 1, 1])
    b2 = sk.RigidBody("two", 1.0, [1, 1, 1])
    rel = sk.rotation_matrix([0.3, 1.1, -0.2])
    A1 = sk.rotation_matrix([0.5, 0.8, 1.0])
    q = np.zeros(12)
    q[3:6] = [0.5, 0.8, 1.0]
    q[9:12] = sk.ZXZ.from_matrix(A1 @ rel)
    system = sk.MultibodySystem([b1, b2], [sk.Fixed("f", b1, [0, 0, 0], b2, [0, 0, 0], rel=rel)])
    measured.allclose("C at the intended pose", system.constraint_jet(0.0, q).val, 0.0, atol=1e-14)
    q[11] += 1e-3  # the three rows are the components of the small relative rotation vector
    norm = np.linalg.norm(system.constraint_jet(0.0, q).val[3:])
    measured.check("‖orientation rows‖ vs 1e-3 rad turned", abs(norm - 1e-3) / 1e-3, 1e-3, "rel.", argued=SECOND_ORDER)
