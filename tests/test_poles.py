"""Poles for the skating models (``skilib.strokes.poles``): V2 skating, one double-pole push with
every leg push, for the free and the edged skater.

Each pole is a massless strut from its tip, planted at τ = t_p (``pole_start``) beside the hand at
T± = (X_B, Y_B ± 0.35 m, 0), to the hand H± = (X_B, Y_B ± 0.25 m, 1.45 m), pushing with
F_p(τ) = F_p,max sin²(π(τ − t_p)/t_c) along (H± − T±)/|H± − T±| until τ = t_p + t_c, or until the
centre of mass falls behind the tips (X_B = X_T, an early lift).  Checked: without poles
(F_p,max = 0) the periodic strokes are the defaults' bit for bit, whatever the pole timing, and
the pole columns are exactly zero; with poles on a slope the work–energy balance of each stroke
closes with the poles' works among the works; the poles' force on the frame equals the push
derived by hand from the frame's own centre of mass, and their power is that force times the
centre of mass's velocity; the poles' work is the integral of that power (Simpson's rule), W⁺ + W⁻
= W per pole, and the metabolic power is recomputed from every actuator's W⁺, W⁻ with the
efficiencies; the free skater's snow row's multiplier equals the explicit load
(M + m_s) g cos α + M z̈ − ΣF±,z that its friction uses (two routes to one load); the compiled
kernels and the numeric engine give the same strokes; the pole share is its impulses' ratio and
the impulses agree with a finer quadrature to the grid's resolution; a skier who falls behind the
tips while the poles push lifts them early, at the located event, and no pole ever pulls; a
periodic stroke with poles pays for its touch-down's loss with its works; bad pole parameters
are refused by name, and poles that would lift the free skater off the ski are refused
(admissibility="report" runs them and reports the negative load).

Tolerances.  The hand-derived force does the frame's arithmetic in another order: a few ε of
2F_p,max, bounded by 10⁻¹² (≈ 4500 ε; the tips' X, up to ≈ 7 m from the origin, enters as a
difference X_B − X_T).  The strokes are integrated by DOP853 at rtol = atol = 10⁻¹⁰: the work–energy
residual of a stroke is its error, ≈ 10⁻¹³–10⁻¹² of the stroke's Σ|W| (bound 10⁻⁸). Simpson's rule
on a 1 ms grid whose breakpoints (t_p, t_p + t_c) are panel ends integrates the smooth pieces of the
poles' power to (b − a) h⁴ max|P⁗|/180 ≲ 10⁻⁷ J (P ≈ 300 W varying on t_c/2π ≈ 0.05 s): bound
10⁻⁶ J.  W⁺ + W⁻ and W are sums of the same increments: rounding, 10⁻¹² of |W⁺| + |W⁻|.  The snow
row's multiplier is solved with q̈ from eq. 101 on the integrated state, whose Baumgarte terms see
the rows' drift (|Ċ| ≈ 10⁻¹⁰ m/s at rtol 10⁻¹⁰), the explicit load from the laws: they agree to ≈
10⁻¹⁰ relative (10⁻¹⁵ without stabilization), bound 10⁻⁹.  The compiled kernels evaluate the same
expressions reordered: the strokes agree to ≈ 10⁻¹⁴ (bound 10⁻⁹ relative, the integration's
tolerance; works to 10⁻⁹ of the stroke's Σ|W|).  The trapezoidal rule on the 10 ms grid errs by at
most (h²/8) ∫|f''| dτ for f = max(F_x, 0) (h²/12 on smooth pieces, h²/8 |Δf'| at a kink where F_x
changes sign), ∫|f''| measured on a 0.5 ms grid: a bound, ≈ 4·10⁻³ of the poles' impulse (the
measured error is far below it: the poles' push starts and ends flat, where the rule converges
faster).  X_B at the lift, extrapolated by a cubic Hermite from the last two 1 ms grid points before
it, errs by ≤ h⁴ max|x⁗|/6 ≈ 10⁻¹¹ m: bound 10⁻⁹ m.  A periodic stroke found to max|Φ(x) − x| ≤
10⁻¹⁰ has ΔKE ≈ (M + m_s) u δu ≈ 4·10⁻⁸ J between its touch-downs: bound 10⁻⁷ J.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.integrate import simpson

import skilib as sk
from skilib.models.edge.model import EDGE_ACTUATORS, EDGE_WORK_TERMS
from skilib.models.free.model import FREE_ACTUATORS, FREE_WORK_TERMS
from skilib.strokes.poles import POLE_WORK_TERMS

HAND_WIDTH, HAND_HEIGHT, TIP_OUTWARD = 0.25, 1.45, 0.10   # the module's docstring, written out
ROUNDING = 1e-12       # hand-derived push vs the frame's, relative to 2 F_p,max
BALANCE = 1e-8         # |energy residual| / Σ|W| of a stroke
SIMPSON = 1e-6         # ∫ pole power dτ by Simpson's rule on a 1 ms grid [J]
SIGNED = 1e-12         # W⁺ + W⁻ vs W, relative to |W⁺| + |W⁻|
COST = 1e-12           # metabolic power recomputed from the columns, relative
LOAD = 1e-9            # the snow row's multiplier vs the explicit load, relative
COMPILED = 1e-9        # compiled kernels vs the numeric engine, relative
LIFT = 1e-9            # X_B − X_T at the lift [m]
PERIODIC = 1e-7        # ΣW + projection − touch-down loss over a periodic stroke [J]

FREE_POLES = dict(pole_force_max=150.0, pole_start=0.1)
#: the edged skater's periodic stroke at the defaults (``edge_steady_state``'s x0, to 1e-8)
EDGE_BASE = dict(cm_height=0.83406795)
EDGE_START = dict(v0=3.67845813, lean_rate=-0.34355739)
MODELS = ("free", "edge")


def _free(strokes=2, v0=3.0, **kw):
    over = {k: kw.pop(k) for k in list(kw) if k in sk.FreeSkaterParams.__dataclass_fields__}
    return sk.simulate_free(sk.FreeSkaterParams(**{**FREE_POLES, **over}), strokes=strokes, v0=v0, **kw)


def _edge(strokes=2, **kw):
    over = {k: kw.pop(k) for k in list(kw) if k in sk.EdgeSkaterParams.__dataclass_fields__}
    return sk.simulate_edge(sk.EdgeSkaterParams(**{**EDGE_BASE, **FREE_POLES, **over}), strokes=strokes,
                            **{**EDGE_START, **kw})


RUNS = {"free": _free, "edge": _edge}
WORKS = {"free": FREE_WORK_TERMS, "edge": EDGE_WORK_TERMS}
ACTUATORS = {"free": FREE_ACTUATORS, "edge": EDGE_ACTUATORS}
#: the leg's works (``work_legs``: the drivers between the binding and the centre of mass)
LEG_WORKS = {"free": ("work_leg",), "edge": ("work_leg", "work_fore_aft")}
#: the drivers whose work is the skier's mechanical power besides the poles (``mean_power``)
POWER_TERMS = {"free": ("work_leg",), "edge": ("work_leg", "work_fore_aft", "work_heading")}


@pytest.fixture(scope="module")
def runs():
    """Each model with 150 N poles planted at 0.1 s, on the default 10 ms grid (cached per worker)."""
    cache = {}

    def get(model):
        if model not in cache:
            cache[model] = RUNS[model](strokes=3 if model == "free" else 2)
        return cache[model]
    return get


def _numeric_frame(f):
    return f.select_dtypes("number").to_numpy(dtype=float)


def _hand_push(frame, p):
    """Σ± F_p(τ)(H± − T±)/|H± − T±| [N] on each row of ``frame``, derived by hand: the tips
    planted at the centre of mass of the row at τ = t_p of the same stroke, T± = (X, Y ± 0.35, 0);
    the hands H± = (X_B, Y_B ± 0.25, 1.45) from the row's cm_x, cm_y; zero outside
    [t_p, t_p + t_c].  Returns (force (n, 3), inside (n,) bool)."""
    tp, tc, Fmax = p.pole_start, p.pole_contact_time, p.pole_force_max
    F = np.zeros((len(frame), 3))
    inside = np.zeros(len(frame), dtype=bool)
    tau, X, Y = (frame[c].to_numpy(dtype=float) for c in ("tau", "cm_x", "cm_y"))
    stroke = frame["stroke"].to_numpy()
    for k in np.unique(stroke):
        rows = np.nonzero(stroke == k)[0]
        plant = rows[tau[rows] == tp]
        assert len(plant) == 1, f"the output grid of stroke {k} must hold τ = t_p = {tp}"
        xt, yt = X[plant[0]], Y[plant[0]]
        for i in rows:
            if not tp <= tau[i] <= tp + tc:
                continue
            inside[i] = True
            mag = Fmax * math.sin(math.pi * (tau[i] - tp) / tc) ** 2
            for side in (1.0, -1.0):
                d = np.array([X[i] - xt, (Y[i] + side * HAND_WIDTH) - (yt + side * (HAND_WIDTH + TIP_OUTWARD)),
                              HAND_HEIGHT])
                F[i] += mag * d / math.sqrt(d @ d)
    return F, inside


def _pole_force(frame):
    return frame[["pole_fx", "pole_fy", "pole_fz"]].to_numpy(dtype=float)


# -- 1. without poles nothing changes -------------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_without_poles_the_periodic_stroke_is_the_defaults_bit_for_bit(model, measured):
    """pole_force_max = 0 with another pole timing (even one beyond the stroke, which F_p,max = 0
    accepts) gives the defaults' periodic stroke bit for bit: the free skater's u0 and the edged
    skater's x0 equal (np.array_equal), every column of the strokes table and of the frame equal
    (pandas' check_exact); the pole columns are exactly zero (pole forces and power, work_poles,
    mean_pole_power, impulse_poles_x, pole_share), pole_lift is NaN and there are no pole works."""
    if model == "free":
        base = sk.free_steady_state()
        others = [sk.free_steady_state(sk.FreeSkaterParams(pole_start=s, pole_contact_time=c))
                  for s, c in ((0.3, 0.45), (0.7, 0.5))]
        x = lambda ss: np.array([ss.u0])  # noqa: E731
    else:
        base = sk.edge_steady_state(multipliers=False)
        others = [sk.edge_steady_state(sk.EdgeSkaterParams(pole_start=0.7, pole_contact_time=0.5), multipliers=False)]
        x = lambda ss: ss.x0  # noqa: E731
    for other in others:
        assert np.array_equal(x(other), x(base))
        pd.testing.assert_frame_equal(other.strokes, base.strokes, check_exact=True)
        pd.testing.assert_frame_equal(other.frame, base.frame, check_exact=True)
        measured.check(f"{model}: max |x0(timing) − x0(default)|", np.abs(x(other) - x(base)).max(), 0.0)
        measured.check(f"{model}: max |frame(timing) − frame(default)|",
                       np.nanmax(np.abs(_numeric_frame(other.frame) - _numeric_frame(base.frame))), 0.0)
    s, f = base.strokes.iloc[0], base.frame
    measured.check(f"{model}: max |pole force|, |pole power| without poles",
                   np.abs(f[["pole_fx", "pole_fy", "pole_fz", "pole_power"]].to_numpy()).max(), 0.0, "N, W")
    for col in ("work_poles", "mean_pole_power", "impulse_poles_x", "pole_share"):
        measured.check(f"{model}: |{col}| without poles", abs(s[col]), 0.0)
    assert math.isnan(s["pole_lift"])
    assert not any(c.startswith("work_pole_") for c in base.strokes.columns)
    assert s["impulse_leg_x"] > 0.0 and s["work_legs"] == sum(s[w] for w in LEG_WORKS[model])


# -- 2. the work–energy balance with poles on a slope ---------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_the_work_energy_balance_closes_with_the_poles_works_on_a_climb(model, measured):
    """150 N poles planted at 0.1 s on a climb (2° for the free skater, 1° for the edged skater),
    two strokes: ΔKE − ΣW − projection_energy, ΣW over the model's works and the two poles' works,
    recomputed from the columns, is the table's energy_residual and at most 10⁻⁸ of Σ|W|, while
    |work_poles| is more than 10⁶ times that bound (left out, the balance would fail by it);
    mean_power is the drivers' and the poles' work per time."""
    res = RUNS[model](slope_deg=2.0 if model == "free" else 1.0)
    T = res.params.stroke_time
    for _, s in res.strokes.iterrows():
        works = [s[w] for w in WORKS[model] + POLE_WORK_TERMS]
        scale = sum(abs(w) for w in works)
        residual = s["ke_end"] - s["ke_start"] - sum(works) - s["projection_energy"]
        measured.check(f"{model}: recomputed residual vs energy_residual", abs(residual - s["energy_residual"]) / scale,
                       1e-14, "× Σ|W|")
        measured.check(f"{model}: |energy_residual| on a climb with poles", abs(s["energy_residual"]) / scale, BALANCE,
                       "× Σ|W|")
        measured.exceeds(f"{model}: |work_poles| / (10⁻⁸ Σ|W|)", abs(s["work_poles"]) / (BALANCE * scale), 1e6)
        measured.allclose(f"{model}: work_poles vs Σ pole works", s["work_poles"],
                          s["work_pole_left"] + s["work_pole_right"], rtol=1e-15)
        measured.allclose(f"{model}: mean_power vs (drivers' + poles' work)/T", s["mean_power"],
                          (sum(s[w] for w in POWER_TERMS[model]) + s["work_poles"]) / T, rtol=1e-14)
        assert s["mean_climb_power"] > 0.0  # it climbs: gravity takes work along X


# -- 3. the poles' force, derived by hand -----------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_the_poles_force_is_the_push_derived_by_hand_and_its_power_is_f_dot_v(model, runs, measured):
    """With the poles planted at t_p = 0.1 s on a 10 ms grid (τ = t_p a grid point): at every grid
    point of [t_p, t_p + t_c] of every stroke the frame's (pole_fx, pole_fy, pole_fz) equals
    Σ± F_p(τ)(H± − T±)/|H± − T±|, the tips from the frame's centre of mass at τ = t_p and the
    hands from its cm_x, cm_y (to 10⁻¹² of 2F_p,max), and is exactly 0 outside; pole_power equals
    that force times (cm_vx, cm_vy, cm_vz) (to 10⁻¹² of 2F_p,max |Ṙ_B|)."""
    res = runs(model)
    f, p = res.frame, res.params
    hand, inside = _hand_push(f, p)
    F = _pole_force(f)
    scale = 2.0 * p.pole_force_max
    measured.check(f"{model}: pole force vs Σ± F_p(τ)(H± − T±)/|H± − T±|", np.abs(F - hand).max() / scale,
                   ROUNDING, "× 2F_max")
    measured.check(f"{model}: |pole force| outside the contact", np.abs(F[~inside]).max(), 0.0, "N")
    v = f[["cm_vx", "cm_vy", "cm_vz"]].to_numpy(dtype=float)
    power = np.einsum("ij,ij->i", hand, v)
    measured.check(f"{model}: pole_power vs F_hand · Ṙ_B", np.abs(f["pole_power"].to_numpy() - power).max()
                   / (scale * np.linalg.norm(v, axis=1).max()), ROUNDING, "× 2F_max |Ṙ_B|")
    # the push is there: at mid-contact both poles push with F_p,max, mostly upwards and forwards
    mid = f["tau"].to_numpy() == p.pole_start + p.pole_contact_time / 2
    assert mid.sum() == len(res.strokes)
    measured.exceeds(f"{model}: |pole force| at mid-contact / F_max", np.linalg.norm(F[mid], axis=1) / p.pole_force_max,
                     1.9)
    assert np.all(F[mid, 0] > 0.0) and np.all(F[mid, 2] > 0.0)


# -- 4. the poles' work and its cost ------------------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_the_poles_work_is_the_integral_of_their_power_and_its_cost_counts(model, measured):
    """On a 1 ms grid (n_out = 801; t_p = 0.1 s and t_p + t_c = 0.4 s are ends of Simpson's panels):
    work_poles equals Simpson's rule of the frame's pole_power (to 10⁻⁶ J, the rule's error on the
    smooth pieces); per pole, W⁺ + W⁻ = W to rounding, with W⁺ ≥ 0 ≥ W⁻ and the frame's cumulative
    works ending at the stroke's; metabolic_power = Σ(W⁺/η⁺ + |W⁻|/η⁻)/T over the actuators (the
    model's drivers and the two poles) with η⁺ = 0.3, η⁻ = 1.5, recomputed from the columns, to
    10⁻¹² relative; the poles' share of it is their cost."""
    res = RUNS[model](n_out=801, eta_positive=0.3, eta_negative=1.5)
    T = res.params.stroke_time
    actuators = ACTUATORS[model] + POLE_WORK_TERMS
    for k, s in res.strokes.iterrows():
        fr = res.frame[res.frame["stroke"] == k + 1]
        tau = fr["tau"].to_numpy()
        assert np.sum(np.isin(tau, (0.1, 0.4))) == 2 and list(np.nonzero(np.isin(tau, (0.1, 0.4)))[0]) == [100, 400]
        measured.check(f"{model}: work_poles vs Simpson of pole_power (h = 1 ms)",
                       abs(simpson(fr["pole_power"].to_numpy(), x=tau) - s["work_poles"]), SIMPSON, "J")
        for a in POLE_WORK_TERMS:
            wp, wn = s[f"{a}_positive"], s[f"{a}_negative"]
            measured.check(f"{model}: W⁺ + W⁻ − W per pole", abs(wp + wn - s[a]) / (abs(wp) + abs(wn)), SIGNED,
                           "× (|W⁺| + |W⁻|)", where=a)
            assert wp >= 0.0 >= wn and wp > 1.0
            measured.check(f"{model}: frame's cumulative pole work at τ = T vs the stroke's",
                           abs(fr[a].iloc[-1] - s[a]), 1e-12, "J", where=a)
        met = sum(s[f"{a}_positive"] / 0.3 + abs(s[f"{a}_negative"]) / 1.5 for a in actuators) / T
        measured.allclose(f"{model}: metabolic_power vs Σ(W⁺/η⁺ + |W⁻|/η⁻)/T with the poles",
                          s["metabolic_power"], met, rtol=COST)
        measured.allclose(f"{model}: work_positive vs ΣW⁺ with the poles", s["work_positive"],
                          sum(s[f"{a}_positive"] for a in actuators), rtol=COST)
        poles = sum(s[f"{a}_positive"] / 0.3 + abs(s[f"{a}_negative"]) / 1.5 for a in POLE_WORK_TERMS) / T
        measured.exceeds(f"{model}: the poles' metabolic power [W]", poles, 50.0, "W")


# -- 5. the free skater's snow load, two routes ------------------------------------------------------
def test_the_free_skaters_snow_row_carries_the_load_the_poles_leave(measured):
    """The free skater without drag on a 2° climb with 150 N poles, two strokes: the snow row's
    multiplier (snow_force, from eq. 101) equals N = (M + m_s) g cos α + M z̈(τ) − ΣF±,z with
    z̈ = −2Δz (π/T)² cos(2πτ/T) and the poles' vertical force derived by hand (to 10⁻⁹ relative),
    and so does the explicit snow_load, which the friction uses: friction_force = −μ N on the
    sliding ski (to rounding).  The poles take up to ≈ 280 N off the load."""
    res = _free(slope_deg=2.0, air_drag=False)
    f, p = res.frame, res.params
    tau = f["tau"].to_numpy()
    hand, inside = _hand_push(f, p)
    T, c = p.stroke_time, math.cos(math.radians(p.slope_deg))
    zdd = -2.0 * p.cm_dip * (math.pi / T) ** 2 * np.cos(2 * math.pi * tau / T)
    N = (p.body_mass + p.ski_mass) * p.g * c + p.body_mass * zdd - hand[:, 2]
    measured.allclose("snow row's multiplier vs (M + m_s) g cos α + M z̈ − ΣF±,z", f["snow_force"], N, rtol=LOAD,
                      argued="a multiplier of the solved augmented system, within its condition number times ε "
                             "of the explicit load; measured 1.4e-10 relative, so the condition is ~1e6")
    measured.allclose("snow_load vs (M + m_s) g cos α + M z̈ − ΣF±,z", f["snow_load"], N, rtol=1e-13)
    assert np.all(f["mode"] == 1)
    measured.allclose("friction_force vs −μ N (sliding forwards)", f["friction_force"], -p.friction_coefficient * N,
                      rtol=1e-13)
    measured.exceeds("the poles' largest vertical force [N]", hand[:, 2].max(), 250.0, "N")


# -- 6. compiled kernels vs the numeric engine ------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_compiled_kernels_and_the_numeric_engine_give_the_same_poled_strokes(model, measured):
    """Two strokes with 150 N poles planted at 0.1 s, compiled=True and compiled=False: progress
    and mean speed, mean_power, the poles' and legs' works and impulses, the pole share, the
    metabolic power and the kinetic energies agree to 10⁻⁹ relative, every work to 10⁻⁹ of the
    stroke's Σ|W|, the energy residuals both below 10⁻⁸ of it."""
    a, b = RUNS[model](compiled=True), RUNS[model](compiled=False)
    cols = ["progress_speed", "mean_speed", "mean_power", "work_poles", "work_legs", "mean_pole_power",
            "impulse_poles_x", "impulse_leg_x", "pole_share", "metabolic_power", "ke_start", "ke_end"]
    for col in cols:
        measured.allclose(f"{model}: compiled vs numeric, {col}", a.strokes[col], b.strokes[col], rtol=COMPILED)
    for (_, sa), (_, sb) in zip(a.strokes.iterrows(), b.strokes.iterrows()):
        works = WORKS[model] + POLE_WORK_TERMS
        scale = sum(abs(sb[w]) for w in works)
        measured.check(f"{model}: compiled vs numeric, every work", max(abs(sa[w] - sb[w]) for w in works) / scale,
                       COMPILED, "× Σ|W|")
        for s in (sa, sb):
            measured.check(f"{model}: |energy_residual|, compiled and numeric", abs(s["energy_residual"]) / scale,
                           BALANCE, "× Σ|W|")
    assert a.info["compiled"] and not b.info["compiled"]


# -- 7. the pole share and the impulses ---------------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_the_pole_share_is_the_ratio_of_the_impulses_to_the_grids_resolution(model, runs, measured):
    """pole_share = I_poles/(I_poles + I_leg) exactly; each impulse, the trapezoidal rule of
    max(F_x, 0) on the 10 ms grid, agrees with Simpson's rule on a 0.5 ms grid of the same strokes
    (the steps do not depend on the output grid) within the trapezoid's bound (h²/8) ∫|f''| dτ
    (with Simpson's own, the same bound at 0.5 ms), ∫|f''| from second differences on the fine
    grid (a bound: on the poles' flat-ended push the rule does far better); the share agrees
    with the fine grid's within the bound the impulses' bounds give it."""
    coarse, fine = runs(model), RUNS[model](strokes=3 if model == "free" else 2, n_out=1601)
    pd.testing.assert_series_equal(coarse.strokes["progress_speed"], fine.strokes["progress_speed"], check_exact=True)
    h, hf = 0.01, 0.0005
    for k, s in coarse.strokes.iterrows():
        measured.check(f"{model}: pole_share − I_poles/(I_poles + I_leg)",
                       abs(s["pole_share"] - s["impulse_poles_x"] / (s["impulse_poles_x"] + s["impulse_leg_x"])), 0.0)
        fr = fine.frame[fine.frame["stroke"] == k + 1]
        tau = fr["tau"].to_numpy()
        assert np.allclose(np.diff(tau), hf, rtol=1e-9, atol=0.0)
        fine_i, bounds = {}, {}
        for col, imp in (("pole_fx", "impulse_poles_x"), ("leg_fx", "impulse_leg_x")):
            g = np.maximum(fr[col].to_numpy(), 0.0)
            fine_i[imp] = simpson(g, x=tau)
            tv = np.abs(np.diff(g, 2)).sum() / hf  # ∫|f''| dτ: the total variation of f'
            bound = bounds[imp] = (h ** 2 / 8 + hf ** 2 / 8) * tv
            measured.check(f"{model}: {imp} (10 ms trapezoid) vs Simpson on 0.5 ms", abs(s[imp] - fine_i[imp]), bound,
                           "N s")
        ip, il = fine_i["impulse_poles_x"], fine_i["impulse_leg_x"]
        # the share's error from the impulses' bounds:
        # |δs| ≤ (I_leg |δI_poles| + I_poles |δI_leg|)/(I_poles + I_leg)²
        measured.check(f"{model}: pole_share (10 ms) vs the fine grid's", abs(s["pole_share"] - ip / (ip + il)),
                       (il * bounds["impulse_poles_x"] + ip * bounds["impulse_leg_x"]) / (ip + il) ** 2)
        assert 0.0 < s["pole_share"] < 1.0


# -- 8. an early lift -----------------------------------------------------------------------------------
def test_a_skier_who_falls_behind_the_tips_lifts_the_poles_early(measured):
    """The free skater on a 3° climb, its ski sliding backwards (u0 = −0.05 m/s) while the offset
    law (p = 1) carries the centre of mass forwards over it; 150 N poles planted at 0.1 s for
    0.5 s.  The centre of mass first passes the tips (≈ 4 mm), then the climb brings it back:
    pole_lift is reported inside the contact (≈ 0.41 s, the push still at ≈ 87 % of its peak),
    X_B − X_T there is 0 (cubic Hermite from the 1 ms grid, to 10⁻⁹ m: the event is located), the
    push before it is the hand-derived one, the poles' force is exactly 0 on every grid point after
    it, pole_fx ≥ 0 throughout (no pole pulls the skier back), and the work–energy balance still
    closes.  A skier moving backwards at the plant (u0 = −1 m/s on the flat) lifts them at the
    plant: pole_lift = t_p and the poles do no work at all."""
    p = sk.FreeSkaterParams(pole_force_max=150.0, pole_start=0.1, pole_contact_time=0.5, slope_deg=3.0,
                            offset_exponent=1.0)
    res = sk.simulate_free(p, strokes=1, v0=-0.05, n_out=801)
    f, s = res.frame, res.strokes.iloc[0]
    tp, tc, lift = p.pole_start, p.pole_contact_time, s["pole_lift"]
    assert tp + 0.1 < lift < tp + tc - 0.05, lift
    tau, x, vx = (f[c].to_numpy() for c in ("tau", "cm_x", "cm_vx"))
    assert np.all(f["u"] < 0.0) and len(res.events) == 0  # the ski slides backwards all along
    x_tip = x[tau == tp][0]
    before, after = tau < lift, tau > lift
    measured.exceeds("how far X_B passed the tips before falling back [m]", (x - x_tip)[before].max(), 3e-3, "m")
    i = np.nonzero(before)[0][-1]  # the last grid point before the lift; Hermite on [τ_{i−1}, τ_i]
    h = tau[i] - tau[i - 1]
    t = (lift - tau[i - 1]) / h
    h00, h10, h01, h11 = 2 * t ** 3 - 3 * t ** 2 + 1, t ** 3 - 2 * t ** 2 + t, -2 * t ** 3 + 3 * t ** 2, t ** 3 - t ** 2
    x_lift = h00 * x[i - 1] + h10 * h * vx[i - 1] + h01 * x[i] + h11 * h * vx[i]
    measured.check("X_B − X_T at the lift (the event located)", abs(x_lift - x_tip), LIFT, "m")
    assert vx[i] < 0.0  # falling behind
    F = _pole_force(f)
    hand, inside = _hand_push(f, p)
    push = inside & before
    measured.check("pole force before the lift vs the hand-derived push", np.abs(F[push] - hand[push]).max()
                   / (2 * p.pole_force_max), ROUNDING, "× 2F_max")
    measured.check("|pole force| on the grid after the lift", np.abs(F[after]).max(), 0.0, "N")
    measured.check("−min pole_fx (a pole never pulls back)", max(-F[:, 0].min(), 0.0), 0.0, "N")
    measured.exceeds("the push at the lift / F_max", math.sin(math.pi * (lift - tp) / tc) ** 2, 0.5)
    measured.exceeds("the push just before the lift (grid) / 2F_max", np.linalg.norm(F[i]) / (2 * p.pole_force_max),
                     0.5)
    works = [s[w] for w in FREE_WORK_TERMS + POLE_WORK_TERMS]
    measured.check("|energy_residual| with an early lift", abs(s["energy_residual"]) / sum(map(abs, works)), BALANCE,
                   "× Σ|W|")
    # moving backwards at the plant: the contact ends where it starts
    back = sk.simulate_free(sk.FreeSkaterParams(**FREE_POLES), strokes=1, v0=-1.0).strokes.iloc[0]
    assert back["pole_lift"] == 0.1
    measured.check("poles' work and impulse of a skier moving backwards at the plant",
                   max(abs(back["work_poles"]), abs(back["impulse_poles_x"])), 0.0, "J, N s")


# -- 9. bad input -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [sk.FreeSkaterParams, sk.EdgeSkaterParams], ids=["free", "edge"])
def test_bad_pole_parameters_are_refused_by_name(cls):
    """pole_force_max negative, NaN, ±inf, a bool, a string or above 1000 N; pole_contact_time 0,
    negative or NaN; pole_start negative or NaN: a ValueError naming the field.  With poles, a
    contact beyond the stroke (pole_start + pole_contact_time > stroke_time) names
    pole_contact_time; without poles (F_p,max = 0) the same timing is accepted."""
    for bad in (-1.0, -1e-9, float("nan"), float("inf"), -float("inf"), True, False, "150", 1000.5, 1e4):
        with pytest.raises(ValueError, match=r"^pole_force_max: "):
            cls(pole_force_max=bad)
    for bad in (0.0, -0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"^pole_contact_time: "):
            cls(pole_force_max=150.0, pole_contact_time=bad)
    for bad in (-0.1, -1e-12, float("nan")):
        with pytest.raises(ValueError, match=r"^pole_start: "):
            cls(pole_force_max=150.0, pole_start=bad)
    for start, contact in ((0.6, 0.3), (0.0, 0.81), (0.5, 0.5)):
        with pytest.raises(ValueError, match=r"^pole_contact_time: .*beyond the stroke"):
            cls(pole_force_max=150.0, pole_start=start, pole_contact_time=contact)
        assert cls(pole_force_max=0.0, pole_start=start, pole_contact_time=contact).pole_contact_time == contact
    for ok in (0.0, 1e-3, 150.0, 1000.0):
        assert cls(pole_force_max=ok).pole_force_max == ok
    assert cls(pole_force_max=150.0, pole_start=0.5, pole_contact_time=0.3).pole_start == 0.5  # ends at T: fine


# -- 10. poles that would lift the free skater --------------------------------------------------------
def test_poles_that_lift_the_free_skater_are_refused_or_reported(measured):
    """1000 N per pole planted at 0.1 s: the poles' vertical force exceeds the snow's load, so a
    run raises ValueError naming pole_force_max (``check_pole_load``); with
    admissibility="report" it runs and reports min_snow_load < 0, the least on its grid of
    (M + m_s) g + M z̈ − ΣF±,z with the push derived by hand (to 10⁻¹³ relative), and the snow
    row's multiplier is negative there too (the snow pulls)."""
    p = sk.FreeSkaterParams(pole_force_max=1000.0, pole_start=0.1)
    with pytest.raises(ValueError, match=r"^pole_force_max: .*the poles would lift the skier off the ski"):
        sk.simulate_free(p, strokes=1, v0=3.0)
    res = sk.simulate_free(p, strokes=1, v0=3.0, admissibility="report")
    f, s = res.frame, res.strokes.iloc[0]
    tau = f["tau"].to_numpy()
    hand, _ = _hand_push(f, p)
    zdd = -2.0 * p.cm_dip * (math.pi / p.stroke_time) ** 2 * np.cos(2 * math.pi * tau / p.stroke_time)
    N = (p.body_mass + p.ski_mass) * p.g + p.body_mass * zdd - hand[:, 2]
    measured.allclose("min_snow_load vs min of (M + m_s) g + M z̈ − ΣF±,z", s["min_snow_load"], N.min(),
                      rtol=1e-13)
    measured.exceeds("−min_snow_load with 1000 N poles [N]", -s["min_snow_load"], 500.0, "N")
    assert f["snow_force"].to_numpy()[np.argmin(N)] < 0.0


# -- 11. a periodic stroke with poles ----------------------------------------------------------------
@pytest.mark.parametrize("model", MODELS)
def test_a_periodic_stroke_with_poles_pays_for_its_touch_down_with_its_works(model, measured):
    """The periodic stroke with poles (the free skater's 150 N planted at 0.1 s; the edged
    skater's 20 N from τ = 0 with max_leg_length 1.1 m, where one exists): its kinetic energy
    returns after the touch-down, so ΣW + projection_energy, the poles' works included, equals
    the touch-down's loss ke_loss (to 10⁻⁷ J, the fixed point's tolerance times (M + m_s) u);
    the poles do positive work and carry part of the propulsion (0 < pole_share < 1)."""
    if model == "free":
        ss = sk.free_steady_state(sk.FreeSkaterParams(**FREE_POLES))
    else:
        ss = sk.edge_steady_state(sk.EdgeSkaterParams(pole_force_max=20.0, max_leg_length=1.1), multipliers=False)
    s = ss.strokes.iloc[0]
    works = sum(s[w] for w in WORKS[model] + POLE_WORK_TERMS)
    measured.check(f"{model}: ΣW + projection − touch-down loss over a periodic stroke with poles",
                   abs(works + s["projection_energy"] - ss.change["ke_loss"]), PERIODIC, "J")
    measured.check(f"{model}: KE after the touch-down − KE at the stroke's start",
                   abs(ss.change["ke_after"] - s["ke_start"]), PERIODIC, "J")
    measured.exceeds(f"{model}: the poles' work over a periodic stroke [J]", s["work_poles"], 5.0, "J")
    assert 0.0 < s["pole_share"] < 1.0 and math.isnan(s["pole_lift"])
