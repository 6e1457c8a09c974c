"""ZXZ kinematics (thesis §3.2): A, G, Ḡ and Ġθ̇ against definitions and finite differences."""
import numpy as np
import pytest

from skilib.rotation import (ZXZ, G_bar_matrix, G_dot_thetadot, G_matrix, rot_x, rot_z,
                             rotation_matrix, skew)


def random_angles(rng, n=20):
    a = rng.uniform(-np.pi, np.pi, size=(n, 3))
    a[:, 1] = rng.uniform(0.2, np.pi - 0.2, size=n)  # away from gimbal lock
    return a


def test_rotation_is_zxz_product_orthonormal_det_one(rng):
    for ang in random_angles(rng):
        A = rotation_matrix(ang)
        np.testing.assert_allclose(A, rot_z(ang[0]) @ rot_x(ang[1]) @ rot_z(ang[2]), atol=1e-15)
        np.testing.assert_allclose(A.T @ A, np.eye(3), atol=1e-14)
        assert np.linalg.det(A) == pytest.approx(1.0, abs=1e-14)


def test_angular_velocity_skew_equals_Adot_At(rng):
    """ω̃ = Ȧ Aᵀ with ω = G θ̇ (eq. 29); Ȧ by central differences."""
    h = 1e-6
    for ang in random_angles(rng):
        rates = rng.normal(size=3)
        Adot = (rotation_matrix(ang + h * rates) - rotation_matrix(ang - h * rates)) / (2 * h)
        W = Adot @ rotation_matrix(ang).T
        np.testing.assert_allclose(W, -W.T, atol=1e-9)
        np.testing.assert_allclose(W, skew(G_matrix(ang) @ rates), atol=1e-9)


def test_G_bar_is_At_G(rng):
    """Ḡ = AᵀG (eq. 30) gives the printed eq. 31."""
    for ang in random_angles(rng):
        np.testing.assert_allclose(G_bar_matrix(ang), rotation_matrix(ang).T @ G_matrix(ang), atol=1e-14)


def test_G_dot_thetadot_finite_difference(rng):
    h = 1e-6
    for ang in random_angles(rng):
        rates = rng.normal(size=3)
        Gdot = (G_matrix(ang + h * rates) - G_matrix(ang - h * rates)) / (2 * h)
        np.testing.assert_allclose(G_dot_thetadot(ang, rates), Gdot @ rates, atol=1e-9)


def test_from_matrix_round_trip(rng):
    for ang in random_angles(rng):
        back = ZXZ.from_matrix(rotation_matrix(ang))
        np.testing.assert_allclose(rotation_matrix(back), rotation_matrix(ang), atol=1e-13)


def test_G_singular_at_gimbal_lock():
    """At θ = 0 the first and third columns of G coincide: rank 2 (§3.2)."""
    assert np.linalg.matrix_rank(G_matrix([0.3, 0.0, -0.7])) == 2
    assert ZXZ.singularity_distance([0.3, 0.0, -0.7]) == 0.0
