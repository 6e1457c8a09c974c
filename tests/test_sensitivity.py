"""Sobol indices against functions whose indices are known in closed form.

Ishigami: f = sin x1 + a sin² x2 + b x3⁴ sin x1 on [−π, π]³ (Ishigami & Homma 1990) has
V = a²/8 + bπ⁴/5 + b²π⁸/18 + 1/2, V1 = (1 + bπ⁴/5)²/2, V2 = a²/8, V3 = 0,
V13 = b²π⁸(1/18 − 1/50).  A linear model Σ cᵢ xᵢ with xᵢ uniform on [lᵢ, hᵢ] has
Sᵢ = S_Ti = cᵢ²(hᵢ − lᵢ)² / Σⱼ cⱼ²(hⱼ − lⱼ)², which also checks that every factor's bounds and
column order reach the design.
"""
import numpy as np
import pytest

from skilib.studies.sensitivity import sobol_design, sobol_indices

PI = np.pi


def ishigami_exact(a=7.0, b=0.1):
    V = a**2 / 8 + b * PI**4 / 5 + b**2 * PI**8 / 18 + 0.5
    V1, V2, V13 = 0.5 * (1 + b * PI**4 / 5) ** 2, a**2 / 8, b**2 * PI**8 * (1 / 18 - 1 / 50)
    return np.array([V1, V2, 0.0]) / V, np.array([V1 + V13, V2, V13]) / V


def test_ishigami_indices_lie_within_their_confidence_intervals(measured):
    """Sobol indices of the Ishigami function (4096 × 5 runs) against their closed forms: each
    exact value lies inside the estimator's own 95 % bootstrap interval (the tolerance is its
    half-width); x3 acts only through its interaction with x1."""
    design = sobol_design({"x1": (-PI, PI), "x2": (-PI, PI), "x3": (-PI, PI)}, 4096, seed=1)
    assert len(design) == 4096 * (3 + 2)
    x1, x2, x3 = design.to_numpy().T
    y = np.sin(x1) + 7.0 * np.sin(x2) ** 2 + 0.1 * x3**4 * np.sin(x1)
    si = sobol_indices(design, y, seed=2)
    S1, ST = ishigami_exact()
    # the exact values lie inside the estimator's own 95 % bootstrap intervals
    for i, name in enumerate(si.index):
        measured.check(f"|S₁ − exact|, {name}", abs(si.S1.iloc[i] - S1[i]),
                       si.S1_conf.iloc[i])
        measured.check(f"|S_T − exact|, {name}", abs(si.ST.iloc[i] - ST[i]),
                       si.ST_conf.iloc[i])
    # x3 acts only through its interaction with x1: S1 ≈ 0, ST ≈ 0.24
    measured.exceeds("S_T − S₁ of x3 (interaction)", si.loc["x3", "ST"] - si.loc["x3", "S1"], 0.2)


def test_linear_model_indices_are_the_variance_shares(measured):
    """A linear model's Sobol indices are its variance shares cᵢ²(hᵢ − lᵢ)²/Σ, each inside
    its 95 % bootstrap interval (the tolerance is its half-width), and ΣS₁ = 1; the design
    respects every factor's bounds."""
    bounds = {"a": (0.0, 1.0), "b": (-2.0, 2.0), "c": (10.0, 10.5)}
    coef = np.array([3.0, 1.0, -4.0])
    design = sobol_design(bounds, 1024, seed=0)
    X = design.to_numpy()
    lo, hi = np.array([b[0] for b in bounds.values()]), np.array([b[1] for b in bounds.values()])
    assert np.all(X >= lo) and np.all(X <= hi)
    si = sobol_indices(design, X @ coef, seed=0)
    share = coef**2 * (hi - lo) ** 2 / np.sum(coef**2 * (hi - lo) ** 2)
    for i, name in enumerate(si.index):
        measured.check(f"|S₁ − share|, {name}", abs(si.S1.iloc[i] - share[i]),
                       si.S1_conf.iloc[i])
        measured.check(f"|S_T − share|, {name}", abs(si.ST.iloc[i] - share[i]),
                       si.ST_conf.iloc[i])
    measured.check("|ΣS₁ − 1| (additive model)", abs(si.S1.sum() - 1.0), 0.02)


def test_designs_and_confidence_intervals_are_seeded():
    """The same seed gives the same design and the same bootstrap intervals, seed 0 included
    (SALib leaves its bootstrap unseeded for a falsy seed; skilib must not)."""
    b = {"u": (0, 1), "v": (0, 1)}
    assert sobol_design(b, 64, seed=5).equals(sobol_design(b, 64, seed=5))
    assert not sobol_design(b, 64, seed=5).equals(sobol_design(b, 64, seed=6))
    design = sobol_design(b, 64, seed=0)
    y = design.u.to_numpy() * (1 + design.v.to_numpy())
    for seed in (0, 3):
        first, second = sobol_indices(design, y, seed=seed), sobol_indices(design, y, seed=seed)
        assert first.equals(second)
    assert not sobol_indices(design, y, seed=0).S1_conf.equals(sobol_indices(design, y, seed=3).S1_conf)
    with pytest.raises(ValueError, match="seed"):
        sobol_indices(design, y, seed=-1)


@pytest.mark.parametrize("bounds, n, match", [
    ({}, 64, "bounds"), ({"u": (1, 0)}, 64, r"bounds\['u'\]: need finite low < high"),
    ({"u": "ab"}, 64, r"bounds\['u'\]"), ({"u": (0, 1)}, 100, "power of 2"), ({"u": (0, 1)}, True, "power of 2"),
])
def test_bad_designs(bounds, n, match):
    with pytest.raises(ValueError, match=match):
        sobol_design(bounds, n)


def test_bad_outputs_are_errors_not_skips():
    design = sobol_design({"u": (0, 1), "v": (0, 1)}, 8)
    y = design.u.to_numpy() + design.v.to_numpy()
    y[3] = np.nan
    with pytest.raises(ValueError, match=r"non-finite values at design rows \[3\]"):
        sobol_indices(design, y)
    with pytest.raises(ValueError, match="has 3 values for 32 design rows"):
        sobol_indices(design, y[:3])
    with pytest.raises(ValueError, match="sobol_design"):
        sobol_indices(design.copy().pipe(lambda d: d.set_axis(d.columns, axis=1).to_numpy()), y)
