"""ZXZ kinematics (thesis §3.2): A, G, Ḡ and Ġθ̇ against definitions and finite differences."""
import numpy as np

from skilib.engine.rotation import (ZXZ, G_bar_matrix, G_dot_thetadot, G_matrix, rot_x, rot_z,
                             rotation_matrix, skew)

PRODUCT_ROUNDING = ('each entry is a sum of at most two products of three sines and cosines (|·| ≤ 1): each way of '
                    'forming it errs by ≤ 2ε (libm within an ulp), so the two differ by ≤ 4ε = 8.9e-16')


def random_angles(rng, n=20):
    a = rng.uniform(-np.pi, np.pi, size=(n, 3))
    a[:, 1] = rng.uniform(0.2, np.pi - 0.2, size=n)  # away from gimbal lock
    return a


def test_rotation_is_zxz_product_orthonormal_det_one(rng, measured):
    """A = Rz(φ)Rx(θ)Rz(ψ) (eqs. 24–31; eq. 8 prints the factors reversed), AᵀA = I and det A = 1, for 20 random angle sets."""
    for ang in random_angles(rng):
        A = rotation_matrix(ang)
        measured.allclose("A vs Rz(φ)Rx(θ)Rz(ψ)", A, rot_z(ang[0]) @ rot_x(ang[1]) @ rot_z(ang[2]), atol=1e-15, argued=PRODUCT_ROUNDING)
        measured.allclose("AᵀA − I", A.T @ A, np.eye(3), atol=1e-14)
        measured.check("|det A − 1|", abs(np.linalg.det(A) - 1.0), 1e-14)


def test_angular_velocity_skew_equals_Adot_At(rng, measured):
    """ω̃ = Ȧ Aᵀ with ω = G θ̇ (eq. 29); Ȧ by central differences (h = 1e-6), so the error
    is that of the difference formula."""
    h = 1e-6
    for ang in random_angles(rng):
        rates = rng.normal(size=3)
        Adot = (rotation_matrix(ang + h * rates) - rotation_matrix(ang - h * rates)) / (2 * h)
        W = Adot @ rotation_matrix(ang).T
        measured.allclose("ȦAᵀ + (ȦAᵀ)ᵀ (skew)", W, -W.T, atol=1e-9, unit="1/s", argued="central differences at h = 1e-6: their rounding ε max|A|/h ≈ 2e-10 per entry, times rates of size ≤ 3, dominates the truncation h²|A‴|/6 ≈ 1e-12")
        measured.allclose("ȦAᵀ vs ω̃, ω = Gθ̇", W, skew(G_matrix(ang) @ rates), atol=1e-9, unit="1/s", argued="central differences at h = 1e-6: their rounding ε max|A|/h ≈ 2e-10 per entry, times rates of size ≤ 3, dominates the truncation h²|A‴|/6 ≈ 1e-12")


def test_G_bar_is_At_G(rng, measured):
    """Ḡ = AᵀG (eq. 30) gives the printed eq. 31."""
    for ang in random_angles(rng):
        measured.allclose("Ḡ (eq. 31) vs AᵀG", G_bar_matrix(ang), rotation_matrix(ang).T @ G_matrix(ang), atol=1e-14)


def test_G_dot_thetadot_finite_difference(rng, measured):
    """Ġθ̇ against central differences of G (h = 1e-6): the error is the difference formula's."""
    h = 1e-6
    for ang in random_angles(rng):
        rates = rng.normal(size=3)
        Gdot = (G_matrix(ang + h * rates) - G_matrix(ang - h * rates)) / (2 * h)
        measured.allclose("Ġθ̇ vs central differences", G_dot_thetadot(ang, rates), Gdot @ rates, atol=1e-9,
                          unit="1/s²", argued="central differences at h = 1e-6: their rounding ε max|A|/h ≈ 2e-10 per entry, times rates of size ≤ 3, dominates the truncation h²|A‴|/6 ≈ 1e-12")


def test_from_matrix_round_trip(rng, measured):
    """Angles → A → angles → A returns the same rotation matrix."""
    for ang in random_angles(rng):
        back = ZXZ.from_matrix(rotation_matrix(ang))
        measured.allclose("A(angles(A)) vs A", rotation_matrix(back), rotation_matrix(ang), atol=1e-13)


def test_G_singular_at_gimbal_lock(measured):
    """At θ = 0 the first and third columns of G coincide: rank 2 (§3.2)."""
    G = G_matrix([0.3, 0.0, -0.7])
    assert np.linalg.matrix_rank(G) == 2
    # the smallest singular value is what matrix_rank compares with σ_max · 3ε
    sv = np.linalg.svd(G, compute_uv=False)
    measured.check("σ_min/σ_max of G at θ = 0", sv[-1] / sv[0], 3 * np.finfo(float).eps)
    assert ZXZ.singularity_distance([0.3, 0.0, -0.7]) == 0.0
