"""The optimum's constraints and the ridge around it (skilib.studies.optimum, skilib.studies.ridge):
the snow load's closed form against the model's own check, the 0-D balance speed against the
cubic's closed root, the ridge angle against its definition, and the reduced Hessian, the active
bounds and the multiplier check on analytic problems whose answers are known in closed form."""
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from skilib.models.free.model import FreeSkaterModel
from skilib.models.free.params import FreeSkaterParams
from skilib.models.free.run import check_snow_load
from skilib.studies.optimum import FREE_BOUNDS, TechniqueModel, snow_load_margin


@pytest.mark.parametrize("dip, T", [(0.15, 0.4), (0.05, 0.4), (0.15, 0.8), (0.04, 0.3), (0.0, 0.4), (0.1, 0.55)])
def test_snow_load_margin_is_the_model_s_least_load(measured, dip, T):
    """1 + m_s/M − 2Δz (π/T)²/g is the least of N(τ)/(M g) over the stroke (N from the model's
    normal_load on a fine grid), and the model refuses the technique (ValueError naming
    snow_load) exactly where it is negative."""
    p = replace(FreeSkaterParams(), cm_dip=dip, stroke_time=T)
    m = FreeSkaterModel(p, "right", [0.0, 0.0, 0.0])
    grid = np.linspace(0.0, T, 2001)
    least = min(m.normal_load(t) for t in grid) / (p.body_mass * p.g)
    measured.check(f"least snow load, Δz {dip} m, T {T} s", snow_load_margin(p) - least, 1e-12, "body weights")
    if snow_load_margin(p) < 0:
        with pytest.raises(ValueError, match="snow_load"):
            check_snow_load(m, grid)
    else:
        check_snow_load(m, grid)


def test_snow_load_margin_example_and_bad_input():
    """The reviewer's example: cm_dip 0.15 m at T = 0.4 s gives N ≈ −0.87 body weights; the
    optimizer sees the margin as an inequality row of the free skater only when cm_dip or
    stroke_time is optimised."""
    p = replace(FreeSkaterParams(), cm_dip=0.15, stroke_time=0.4)
    want = 1 + 1.5 / 75 - 2 * 0.15 * (math.pi / 0.4) ** 2 / 9.81
    assert abs(snow_load_margin(p) - want) < 1e-14 and -0.87 < want < -0.86
    tm = TechniqueModel("free", tuple(FREE_BOUNDS))
    x = [0.15 if n == "cm_dip" else 0.4 if n == "stroke_time" else FREE_BOUNDS[n][0] for n in FREE_BOUNDS]
    assert tm.inequalities(x) == (pytest.approx(want, abs=1e-14),)
    assert TechniqueModel("free", ("skating_angle_deg",)).inequalities([20.0]) == ()
    with pytest.raises(ValueError, match="params"):
        snow_load_margin(object())


# --------------------------------------------------------------------------- the ridge
from skilib.models.thesis.energy import power_balance_speed  # noqa: E402
from skilib.studies.ridge import (Problem, active_bounds, balance_slope, balance_speed, front_slope,  # noqa: E402
                                  optimality, reduced_hessian, ridge_angle)

CENTRAL_DIFFERENCE = ("the front's slope is a central difference with ΔP = 0.1: its error is ΔP² f‴/6 with f = √(2P), f‴(2)"
                      ' = 3/32, so 1.56e-4 exactly; the tolerance is 6.4 times that')


def _cardano(P, F, k):
    """The real root of k v³ + F v − P = 0 (k > 0, F ≥ 0: one real root), Cardano's formula."""
    p, q = F / k, -P / k
    d = math.sqrt((q / 2) ** 2 + (p / 3) ** 3)
    return np.cbrt(-q / 2 + d) + np.cbrt(-q / 2 - d)


@pytest.mark.parametrize("P, mu, cda", [(200.0, 0.02, 0.55), (50.0, 0.04, 0.3), (400.0, 0.01, 0.7)])
def test_balance_speed_is_the_cubic_s_root(measured, P, mu, cda):
    """v of P = μ (M + m_s) g v + ½ ρ C_dA v³ against Cardano's root and power_balance_speed
    with the same friction force and drag; its slope against 1/(dP/dv)."""
    p = replace(FreeSkaterParams(), friction_coefficient=mu, cda=cda)
    F, k = mu * (p.body_mass + p.ski_mass) * p.g, 0.5 * p.air_density * cda
    v = balance_speed(P, p)
    measured.check(f"balance speed vs Cardano at {P} W", v - _cardano(P, F, k), 1e-10, "m/s")
    measured.check("balance speed vs power_balance_speed", v - power_balance_speed(P, friction=F, cda=cda,
                                                                                   air_density=p.air_density),
                   1e-12, "m/s")
    measured.check("balance slope vs 1/(F + 3 k v²)", balance_slope(P, p) - 1 / (F + 3 * k * v ** 2), 1e-12,
                   "m/s per W")
    h = 1e-3
    measured.check("balance slope vs a difference", balance_slope(P, p)
                   - (balance_speed(P + h, p) - balance_speed(P - h, p)) / (2 * h), 1e-8, "m/s per W")


def test_balance_speed_default_and_no_drag(measured):
    """The default free skater at 200 W: 6.70 m/s (the reviewer's number); without air drag
    the balance is friction alone, v = P / (μ (M + m_s) g)."""
    measured.check("balance speed at 200 W", round(balance_speed(200.0), 2) - 6.70, 1e-12, "m/s")
    p = replace(FreeSkaterParams(), air_drag=False)
    measured.check("friction alone", balance_speed(100.0, p) - 100.0 / (0.02 * 76.5 * 9.81), 1e-9, "m/s")
    with pytest.raises(ValueError, match="params"):
        balance_speed(100.0, object())
    with pytest.raises(ValueError, match="power"):
        balance_speed(-1.0)


def test_ridge_angle_is_its_definition(measured):
    """θ = atan(√(2PT/M)/v): tan θ · v is the sideways speed w whose kinetic energy ½ M w² is
    the leg's work P T in one stroke."""
    p = FreeSkaterParams()
    for P, T, v in [(200.0, 0.5, 6.7), (100.0, 1.0, 5.0), (0.0, 0.8, 3.0)]:
        th = math.radians(ridge_angle(P, T, v, p))
        w = v * math.tan(th)
        measured.check(f"½ M w² = P T at P {P}, T {T}", 0.5 * p.body_mass * w ** 2 - P * T, 1e-9, "J")
    for kw, name in [(dict(power=-1, stroke_time=1, speed=1), "power"), (dict(power=1, stroke_time=0, speed=1),
                                                                          "stroke_time"),
                     (dict(power=1, stroke_time=1, speed=0), "speed")]:
        with pytest.raises(ValueError, match=name):
            ridge_angle(**kw)


def _problem(f, P, x, bounds, ineq=None):
    h = (lambda z: (f(z), P(z))) if ineq is None else (lambda z: (f(z), P(z), ineq(z)))
    return Problem(h, x, bounds, tuple(f"x{i}" for i in range(len(x))), () if ineq is None else ("s",))


def test_reduced_hessian_sees_a_known_ridge(measured):
    """max f = −(x−y)² − ε(x+y−1)² with the constraint z = ½ (f independent of z) at
    (½, ½, ½): the reduced Hessian over (x, y) has eigenvalues −4ε along (1, 1)/√2 (the ridge)
    and −4 along (1, −1)/√2; with ε = 0 the ridge eigenvalue is 0."""
    for eps in (0.01, 0.0):
        pr = _problem(lambda z: -(z[0] - z[1]) ** 2 - eps * (z[0] + z[1] - 1) ** 2, lambda z: z[2], [0.5] * 3,
                      [(0.0, 1.0)] * 3)
        t = reduced_hessian(pr, step=1e-2, grad_step=1e-4)
        measured.allclose(f"eigenvalues, ε = {eps}", t.eigenvalue.to_numpy(), [-4 * eps, -4.0], atol=1e-6)
        measured.allclose("ridge direction (1, 1, 0)/√2", t.loc[0, ["x0", "x1", "x2"]].to_numpy(float),
                          [2 ** -0.5, 2 ** -0.5, 0.0], atol=1e-6)


def test_reduced_hessian_counts_the_constraint_s_curvature(measured):
    """max x + y on x² + y² = ½ at (½, ½): λ = 1/√(2P) = 1, ∇²v = 0, so the curvature along the
    circle comes from the constraint alone: Zᵀ(−λ ∇²P)Z = −2λ = −2, and in the unit cube of
    bounds (0, 2) each direction scales by the range squared: −8."""
    pr = _problem(lambda z: z[0] + z[1], lambda z: z[0] ** 2 + z[1] ** 2, [0.5, 0.5], [(0.0, 2.0)] * 2)
    t = reduced_hessian(pr, step=1e-2, grad_step=1e-5)
    measured.allclose("reduced Hessian on the circle", t.eigenvalue.to_numpy(), [-8.0], atol=1e-6)
    measured.check("its λ", t.attrs["lam"] - 1.0, 1e-8)


def test_active_bounds_and_their_multipliers(measured):
    """max x + 2y − z on the sphere x² + y² + z² = 1 with y ≤ ½ active, at (r, ½, −r), r = √⅜:
    ∇f = λ∇g + κ e_y gives λ = 1/(2r), κ = 2 − λ > 0 (the bound holds the optimum).  Held by an
    inequality ½ − y ≥ 0 instead, the inequality has that κ, and a lower bound x ≥ r through the
    point (active but holding nothing) has κ = 0.  At a point that is not a KKT point the fit's
    residual is large."""
    r = math.sqrt(0.375)
    f = lambda z: z[0] + 2 * z[1] - z[2]
    g = lambda z: z[0] ** 2 + z[1] ** 2 + z[2] ** 2
    pr = _problem(f, g, [r, 0.5, -r], [(-1.5, 1.5), (-1.5, 0.5), (-1.5, 1.5)])
    t = active_bounds(pr, step=1e-5)
    assert list(t.constraint) == ["x1"] and list(t.side) == ["high"] and bool(t.holds.iloc[0])
    measured.check("λ = 1/(2r)", t.attrs["lam"] - 1 / (2 * r), 1e-8)
    measured.check("κ = 2 − 1/(2r)", t.multiplier.iloc[0] - (2 - 1 / (2 * r)), 1e-8)
    measured.check("KKT residual", t.attrs["residual"], 1e-8)
    # the same optimum held by an inequality 0.5 − y ≥ 0 instead, and an x ≥ r lower bound that
    # holds nothing (multiplier 0 within the differences)
    pr2 = _problem(f, g, [r, 0.5, -r], [(r, 1.5), (-1.5, 1.5), (-1.5, 1.5)], ineq=lambda z: 0.5 - z[1])
    t2 = active_bounds(pr2, step=1e-5).set_index("constraint")
    measured.check("the inequality's κ", t2.loc["s", "multiplier"] - (2 - 1 / (2 * r)), 1e-8)
    measured.check("the idle lower bound's κ", t2.loc["x0", "multiplier"], 1e-8)
    # a point that is not optimal: the bound's multiplier has the wrong sign
    pr3 = _problem(lambda z: -z[0] + 2 * z[1] - z[2], g, [r, 0.5, -r], [(-1.5, 1.5), (-1.5, 0.5), (-1.5, 1.5)])
    assert active_bounds(pr3, step=1e-5).attrs["residual"] > 0.1


def test_multiplier_is_the_front_s_slope(measured):
    """max v = x + y s.t. P = x² + y² = P0: v* = √(2 P0), so dv*/dP0 = 1/√(2 P0) = λ; the
    front's slope from neighbouring powers agrees to O(ΔP²)."""
    P0 = 2.0
    x = math.sqrt(P0 / 2)
    pr = _problem(lambda z: z[0] + z[1], lambda z: z[0] ** 2 + z[1] ** 2, [x, x], [(0.0, 3.0)] * 2)
    powers = np.array([1.9, 2.0, 2.1])
    front = pd.DataFrame(dict(power=powers, optimized_speed=np.sqrt(2 * powers)))
    o = optimality(pr, front=front, step=1e-5)
    measured.check("λ = 1/√(2 P0)", o["lam"] - 1 / math.sqrt(2 * P0), 1e-8)
    measured.check("front slope vs λ", o["front_slope"] - o["lam"], 1e-3, argued=CENTRAL_DIFFERENCE)
    measured.check("KKT residual", o["residual"], 1e-8)
    assert math.isnan(o["balance_slope"]) and o["n_active"] == 0
    assert math.isnan(front_slope(front.iloc[:1], 2.0))


def test_power_offset_meets_the_power_within_the_reach(measured):
    """The offset found gives the asked power (Brent to 1e-7 m), and lies within the reach
    √(1.3² − z̄²) that the model accepts; a power no offset reaches is None."""
    from skilib.studies.ridge import max_offset, power_offset

    p = replace(FreeSkaterParams(), skating_angle_deg=15.0, stroke_time=0.55, steer_deg=0.0, cm_dip=0.0)
    measured.check("max offset at z̄ 0.95 m", max_offset(p) - math.sqrt(1.3 ** 2 - 0.95 ** 2), 1e-15, "m")
    o, v, P, ss = power_offset(p, 150.0)
    measured.check("power restored", P - 150.0, 1e-3, "W")
    assert 0.1 < o < max_offset(p) and v > 0 and ss.change["ke_loss"] >= 0
    assert power_offset(p, 4000.0) is None
    with pytest.raises(ValueError, match="power"):
        power_offset(p, 0.0)
