"""The course's slope, in every model: the course rises at α (``slope_deg``) along X, gravity is
g(−sin α, 0, −cos α) in the course frame and the snow stays the plane z = 0.

Checked: α = 0 is the flat course bit for bit (each model's frame and strokes table); a skier
who only glides decelerates at g (sin α cos ψ + μ cos α) along a ski at heading ψ (the free
skater, μ N friction) and at g sin α cos ψ + F/m (the thesis's skier, constant friction F), and
the free skater's snow row carries (M + m_s) g cos α; the work–energy residual on a 3° climb
stays at its level on the flat, gravity's integrated work is −Δ(m g (z cos α + x sin α)) and
``mean_climb_power`` is the work against gravity's X component per time; the 0-D balance
P = μ (M + m) g cos α v + ½ ρ C_dA v³ + (M + m) g sin α v is solved to its rounding; a slope of
45° or more, NaN or a string is refused by name in every model's parameters.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import skilib as sk
from skilib.models.thesis.run import potential_energy
from skilib.strokes.params import course_gravity, slope_factors
from skilib.studies.ridge import balance_slope, balance_speed

EDGE_START = dict(v0=3.6785, lean_rate=-0.3436)  # near the edged skater's periodic stroke
EDGE_BASE = dict(cm_height=0.8341)


def _free(a=None, **kw):
    p = sk.FreeSkaterParams() if a is None else sk.FreeSkaterParams(slope_deg=a)
    return sk.simulate_free(p, strokes=1, v0=4.0, **kw)


def _edge(a=None):
    p = sk.EdgeSkaterParams(**EDGE_BASE) if a is None else sk.EdgeSkaterParams(**EDGE_BASE, slope_deg=a)
    return sk.simulate_edge(p, strokes=1, **EDGE_START)


def _thesis(a=None):
    p = sk.SkierParams() if a is None else sk.SkierParams(slope_deg=a)
    return sk.simulate_run(p, strokes=1)


RUNS = {"free": _free, "edge": _edge, "thesis": _thesis}


@pytest.mark.parametrize("model", list(RUNS))
def test_a_flat_course_is_the_default_bit_for_bit(measured, model):
    """slope_deg = 0.0 (and −0.0) gives the default run bit for bit: every column of the frame
    and of the strokes table equal (pandas' check_exact), gravity exactly (0, 0, −g), and the
    climbing power exactly 0."""
    base = RUNS[model]()
    for a in (0.0, -0.0):
        run = RUNS[model](a)
        pd.testing.assert_frame_equal(run.frame, base.frame, check_exact=True)
        pd.testing.assert_frame_equal(run.strokes, base.strokes, check_exact=True)
        diff = np.abs(run.frame.select_dtypes("number").to_numpy() - base.frame.select_dtypes("number").to_numpy())
        measured.check(f"{model}: max |frame(α = {a}) − frame(default)|", np.nanmax(diff), 0.0)
    g = [f for f in base.models[0].system(1).forces if isinstance(f, sk.Gravity)][0].g
    measured.check(f"{model}: gravity − (0, 0, −g), exact", np.abs(g - np.array([0.0, 0.0, -9.81])).max(), 0.0,
                   "m/s²")
    measured.check(f"{model}: mean_climb_power on the flat", np.abs(base.strokes["mean_climb_power"]).max(), 0.0, "W")
    assert course_gravity(9.81, 0.0) == (0.0, 0.0, -9.81) and slope_factors(0.0) == (0.0, 1.0)


@pytest.mark.parametrize("alpha", [3.0, -3.0, 10.0])
def test_a_gliding_free_skater_decelerates_at_the_closed_form(measured, alpha):
    """No leg motion (no steer, no offset, no dip, drag off): ski and body slide as one along the
    ski at heading ψ = −a/2, so u(τ) = u0 − g (sin α cos ψ + μ cos α) τ (downhill, α < 0, it
    accelerates), and the snow row carries N = (M + m_s) g cos α."""
    p = sk.FreeSkaterParams(skating_angle_deg=1.0, steer_deg=0.0, offset_start=0.0, offset_end=0.0, cm_dip=0.0,
                            air_drag=False, slope_deg=alpha)
    u0 = 5.0
    f = sk.simulate_free(p, strokes=1, v0=u0).frame
    s, c = math.sin(math.radians(alpha)), math.cos(math.radians(alpha))
    psi = -math.radians(p.skating_angle_deg) / 2
    u = u0 - p.g * (s * math.cos(psi) + p.friction_coefficient * c) * f["tau"]
    measured.allclose(f"u(τ) vs u0 − g(sin α cos ψ + μ cos α) τ at α = {alpha}°", f["u"], u, atol=1e-9, unit="m/s")
    N = (p.body_mass + p.ski_mass) * p.g * c
    measured.allclose(f"snow row vs (M + m_s) g cos α at α = {alpha}°", f["snow_force"], N, rtol=1e-10)
    measured.allclose(f"snow_load vs (M + m_s) g cos α at α = {alpha}°", f["snow_load"], N, rtol=1e-14)


@pytest.mark.parametrize("alpha", [3.0, -3.0])
def test_a_gliding_thesis_skier_decelerates_at_the_closed_form(measured, alpha):
    """No push, a leg of constant length and angle (C_ext = C_rot = 0): the skier and ski slide
    as one along the ski's line at heading h, m ṡ̈ = −m g sin α cos h − F (F the thesis's
    constant friction, m = M + m_ski), so ṡ(τ) = ṡ0 − (g sin α cos h + F/m) τ."""
    p = sk.SkierParams(c_ext=0.0, c_rot_deg=0.0, slope_deg=alpha)
    res = sk.simulate_run(p, strokes=1, force_scale=0.0, v0=3.0)
    f, h = res.frame, res.models[0].heading
    m = p.mass + p.ski_mass
    sd = 3.0 - (p.g * math.sin(math.radians(alpha)) * math.cos(h) + p.friction / m) * f["tau"]
    measured.allclose(f"ṡ(τ) vs ṡ0 − (g sin α cos h + F/m) τ at α = {alpha}°", f["s_dot"], sd, atol=1e-9,
                      unit="m/s")


def _gravity_work_exact(model, q0, q1, p):
    """−Δ Σ mᵢ g (zᵢ cos α + xᵢ sin α) over the bodies (the potential energy's drop) and the
    X-part Σ mᵢ g sin α Δxᵢ (the work against gravity's X component)."""
    s, c = slope_factors(p.slope_deg)
    sysm = model.system(1)
    drop = climb = 0.0
    for b in sysm.bodies:
        i = sysm.slice(b).start
        dx, dz = q1[i] - q0[i], q1[i + 2] - q0[i + 2]
        drop -= b.mass * p.g * (dz * c + dx * s)
        climb += b.mass * p.g * s * dx
    return drop, climb


@pytest.mark.parametrize("model", list(RUNS))
def test_the_work_energy_balance_holds_on_a_climb(measured, model):
    """On a 3° climb the work–energy residual ΔKE − ΣW of a stroke stays at its level on the
    flat (≈ 1e-11 J, bound 1e-9 J); gravity's integrated work equals the drop of the potential
    energy Σ m g (z cos α + x sin α) between the stroke's ends, and mean_climb_power × T the
    work against gravity's X component, Σ m g sin α Δx."""
    flat, climb = RUNS[model](0.0), RUNS[model](3.0)
    for a, run in ((0.0, flat), (3.0, climb)):
        measured.check(f"{model}: |energy residual| at α = {a}°", np.abs(run.strokes["energy_residual"]).max(), 1e-9,
                       "J")
    f, st, mdl, p = climb.frame, climb.strokes.iloc[0], climb.models[0], climb.params
    qcols = [f"q{j}" for j in range(mdl.nq)]
    q0, q1 = f[qcols].iloc[0].to_numpy(float), f[qcols].iloc[-1].to_numpy(float)
    drop, up = _gravity_work_exact(mdl, q0, q1, p)
    T = f["tau"].iloc[-1]
    measured.allclose(f"{model}: work_gravity vs −ΔPE on 3°", st["work_gravity"], drop, rtol=1e-8)
    measured.allclose(f"{model}: mean_climb_power · T vs Σ m g sin α Δx", st["mean_climb_power"] * T, up, rtol=1e-12)
    assert st["mean_climb_power"] > 0
    if model == "thesis":  # the model's own potential energy, as the energy account uses it
        pe = potential_energy(mdl, q1) - potential_energy(mdl, q0)
        measured.allclose("thesis: potential_energy difference vs −work_gravity", pe, -st["work_gravity"], rtol=1e-8)


@pytest.mark.parametrize("alpha", [-8.0, -3.0, -1.0, 0.0, 2.0, 4.0, 8.0])
def test_the_balance_speed_on_a_slope_solves_its_cubic(measured, alpha):
    """balance_speed at α: the recomputed residual of P = μ (M + m) g cos α v + ½ ρ C_dA v³ +
    (M + m) g sin α v is at rounding (relative to P, bound 1e-12), and balance_slope is its
    dv/dP (against a central difference); downhill steeper than atan μ at P = 0 the speed is
    √(−(M + m) g (μ cos α + sin α) / (½ ρ C_dA)), the free glide's terminal speed."""
    p = sk.FreeSkaterParams(slope_deg=alpha)
    m, k = p.body_mass + p.ski_mass, 0.5 * p.air_density * p.cda
    s, c = math.sin(math.radians(alpha)), math.cos(math.radians(alpha))
    for P in (50.0, 200.0, 400.0):
        v = balance_speed(P, p)
        res = p.friction_coefficient * m * p.g * c * v + k * v ** 3 + m * p.g * s * v - P
        measured.check(f"balance residual / P at α = {alpha}°, P = {P} W", abs(res) / P, 1e-12, "rel.")
        h = 1e-3
        measured.check(f"balance slope vs a difference at α = {alpha}°",
                       abs(balance_slope(P, p) - (balance_speed(P + h, p) - balance_speed(P - h, p)) / (2 * h)), 1e-8,
                       "m/s per W")
    F = m * p.g * (p.friction_coefficient * c + s)
    if F < 0:
        measured.check(f"terminal glide speed at α = {alpha}°", abs(balance_speed(0.0, p) - math.sqrt(-F / k)), 1e-12,
                       "m/s")
    if alpha == 0.0:
        measured.check("flat balance at 200 W unchanged (6.70 m/s)", abs(round(balance_speed(200.0, p), 2) - 6.70), 1e-12,
                       "m/s")


@pytest.mark.parametrize("alpha", [-6.0, -2.0, 0.0, 3.0, 8.0])
def test_the_thesis_power_balance_has_the_climb(measured, alpha):
    """The thesis's power balance on a slope: resistance_power(v) = F_μ v + ½ ρ C_dA v³ +
    (m + m_s) g sin α v (its constant friction force unchanged by the slope), written out here
    term by term (relative 1e-14); power_balance_speed inverts it (residual relative 1e-12,
    downhill steeper than friction the root above √(−F/k)); on the flat the numbers are the
    defaults' bit for bit."""
    from skilib.models.thesis.energy import power_balance_speed, resistance_power

    p = sk.SkierParams(slope_deg=alpha)
    s = math.sin(math.radians(alpha))
    k = 0.5 * p.air_density * p.cda
    for v in (1.0, 2.5, 6.0):
        by_hand = p.friction * v + k * v ** 3 + p.total_mass * p.g * s * v
        measured.allclose(f"thesis resistance_power at α = {alpha}°, v = {v} m/s vs the terms", float(resistance_power(v, p)),
                          by_hand, rtol=1e-14)
    for P in (0.0, 50.0, 300.0):
        F = p.friction + p.total_mass * p.g * s
        if P == 0.0 and F >= 0.0:
            continue
        v = power_balance_speed(P, p)
        measured.check(f"thesis balance residual at α = {alpha}°, P = {P} W",
                       abs(float(resistance_power(v, p)) - P) / max(P, 1.0), 1e-12, "rel.")
        if F < 0.0:
            assert v >= math.sqrt(-F / k) * (1 - 1e-12)
    if alpha == 0.0:
        flat = sk.SkierParams()
        measured.check("thesis balance at 100 W, α = 0 vs the default", abs(power_balance_speed(100.0, p)
                                                                          - power_balance_speed(100.0, flat)), 0.0, "m/s")


PARAMS = {"FreeSkaterParams": sk.FreeSkaterParams, "EdgeSkaterParams": sk.EdgeSkaterParams,
          "SkierParams": sk.SkierParams}


@pytest.mark.parametrize("cls", list(PARAMS))
@pytest.mark.parametrize("bad", [45.0, -45.0, -50.0, 90.0, float("nan"), float("inf"), "3", True, None])
def test_an_impossible_slope_is_refused_by_name(cls, bad):
    """|α| ≥ 45°, NaN, ±inf, a string, a bool or None: a ValueError naming slope_deg."""
    with pytest.raises(ValueError, match=r"^slope_deg: "):
        PARAMS[cls](slope_deg=bad)
    for ok in (-44.9, 0.0, 44.9):
        assert PARAMS[cls](slope_deg=ok).slope_deg == ok
    assert isinstance(PARAMS[cls](slope_deg=3).slope_deg, float)
    assert replace(PARAMS[cls](), slope_deg=2.0).slope_deg == 2.0
