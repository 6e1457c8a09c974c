"""The physiological cost of a stroke (skilib.physiology): each term against the published
numbers it is built from, the whole cost of a hand-made stroke by hand, and the skating runs'
columns against closed forms (the poles' sin² push, the work-only cost bit for bit)."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import skilib as sk
from skilib.models.edge import EdgeSkaterParams, simulate_edge
from skilib.physiology import (DOKE_2005, FORCE_RATE_COST, PHYSIOLOGY_BOUNDS, PHYSIOLOGY_COLUMNS, RESTING_RATE,
                               SWING_A, SWING_B, force_developed, physiological_cost, swing_fit, swing_power)

EPS = np.finfo(float).eps


def test_the_swing_term_reproduces_the_two_published_points(measured):
    """c(f) = a + b f⁴ through Doke, Donelan & Kuo's (2005) 0.41 W/kg at 0.5 Hz and 2.10 W/kg at
    1.1 Hz; a skater's stroke of T swings each leg at f = 1/(2T), both legs: 2 M c(f)."""
    for f, c in DOKE_2005:
        measured.check(f"a + b f⁴ at {f} Hz vs Doke's {c} W/kg", abs(SWING_A + SWING_B * f**4 - c), 4 * EPS * c, "W/kg")
    M = 75.0
    for f, c in DOKE_2005:
        T = 1.0 / (2.0 * f)
        measured.check(f"both legs at T = {T:.4g} s vs 2 M c(f)", abs(swing_power(T, M) - 2 * M * c), 8 * EPS * 2 * M * c,
                       "W")
    a, b = swing_fit(((1.0, 2.0), (2.0, 17.0)))  # 1 + f⁴
    assert (a, b) == (1.0, 1.0)


def test_the_force_rate_coefficient_is_van_der_zee_and_kuos(measured):
    """0.40 × 46.8 W for 22 N m × 2.5 Hz of rising knee torque, times the knee's distance from the
    hip–foot line at a leg length of 1.0 m with thigh and shank of 0.525 m (0.16 m)."""
    measured.check("c_r vs 0.40 × 46.8/(22 × 2.5) × √(0.525² − 0.5²)",
                   abs(FORCE_RATE_COST - 0.40 * 46.8 / 55.0 * math.sqrt(0.275625 - 0.25)), 4 * EPS * FORCE_RATE_COST,
                   "J/N")
    # the published cost it is built from: a 22 N m cycle at 2.5 Hz on the knee's scale
    measured.check("force-rate cost of the published cycle vs 40 % of 46.8 W",
                   abs(FORCE_RATE_COST / math.sqrt(0.275625 - 0.25) * 22.0 * 2.5 - 0.40 * 46.8), 1e-13, "W")
    measured.check("1 MET vs 3.5 mL/(kg min) × 20.1 J/mL", abs(RESTING_RATE - 3.5 * 20.1 / 60), 0.0, "W/kg")


def test_the_force_developed_is_the_sum_of_the_rises(measured):
    """∫max(Ḟ, 0)dτ: by hand on samples (the first value is a rise from zero; each interior
    extreme is the vertex of the parabola through it and its neighbours, b − (c − a)²/(8(a − 2b + c))
    on a uniform grid), and for F_max sin²(π(τ − t_p)/t_c), whose one rise is F_max, on a grid
    that never samples the peak."""
    assert force_developed([0.0, 1.0, 3.0, 3.0, 2.0]) == 3.0  # a plateau is its own extreme
    assert force_developed([4.0, 3.0, 2.0]) == 4.0
    vertex = lambda a, b, c: b - (c - a) ** 2 / (8 * (a - 2 * b + c))  # noqa: E731
    by_hand = 6.0 + (vertex(1, 3, 2) - 3) + (2 - vertex(3, 2, 5)) + (vertex(2, 5, 0) - 5)
    measured.check("[0, 1, 3, 2, 5, 0] vs by hand", abs(force_developed([0.0, 1.0, 3.0, 2.0, 5.0, 0.0]) - by_hand),
                   8 * EPS * by_hand, "N", argued="a few roundings of numbers of order 1 to 10: 8ε of the sum")
    measured.check("unequal steps: the parabola's vertex", abs(force_developed([0.0, 3.0, 0.0], [0.0, 1.0, 3.0])
                                                                - 27.0 / 8.0), 8 * EPS * 4, "N",
                   argued="y = −1.5 t (t − 3) through (0, 0), (1, 3), (3, 0) peaks at 27/8 (t = 1.5), by hand; "
                          "rounding only")
    h, tc, tp = 0.01, 0.3, 0.0123
    t = np.arange(0.0, 0.6 + h / 2, h)
    F = np.where((t >= tp) & (t <= tp + tc), 150.0 * np.sin(np.pi * (t - tp) / tc) ** 2, 0.0)
    sampled = abs(F.max() - 150.0)
    measured.check("sin² pulse, peak between samples (h = 10 ms), vs F_max", abs(force_developed(F, t) - 150.0),
                   150.0 * (2 * np.pi * h / tc) ** 4, "N")
    measured.exceeds("the samples' own peak misses F_max by more", sampled, 50 * abs(force_developed(F, t) - 150.0), "N")
    for bad in ([], [1.0, np.nan], [[1.0, 2.0]]):
        with pytest.raises(ValueError, match="force"):
            force_developed(bad)
    with pytest.raises(ValueError, match="tau"):
        force_developed([1.0, 2.0, 1.0], [0.0, 0.0, 1.0])


def _params(**kw):
    base = dict(body_mass=70.0, eta_positive=0.25, eta_negative=1.2, eta_positive_arms=0.2, swing_cost_a=0.3,
                swing_cost_b=1.2, force_rate_cost=0.05, resting_rate=1.2)
    return SimpleNamespace(**{**base, **kw})


def test_the_whole_cost_of_a_hand_made_stroke(measured):
    """A stroke of T = 0.5 s with the leg's works 100 J / −20 J, the heading's 5 J / −5 J, each
    pole's 30 J / −2 J (the arms at η⁺ = 0.2), the leg's force rising 0 → 800 N and each pole's
    0 → 150 N, a 70 kg skier; every term by hand."""
    works = {"leg_positive": 100.0, "leg_negative": -20.0, "heading_positive": 5.0, "heading_negative": -5.0,
             "pole_left_positive": 30.0, "pole_left_negative": -2.0, "pole_right_positive": 30.0,
             "pole_right_negative": -2.0}
    forces = {"leg": [0.0, 400.0, 800.0, 800.0, 300.0], "pole_left": [0.0, 150.0, 0.0, 0.0, 0.0],
              "pole_right": [0.0, 150.0, 0.0, 0.0, 0.0]}  # a plateau and a symmetric peak: their own extremes
    c = physiological_cost(works, ("leg", "heading", "pole_left", "pole_right"), forces, 0.5, _params(),
                           arms=("pole_left", "pole_right"))
    work = (100 / 0.25 + 20 / 1.2 + 5 / 0.25 + 5 / 1.2 + 2 * (30 / 0.2 + 2 / 1.2)) / 0.5
    swing = 2 * 70 * (0.3 + 1.2 * 1.0**4)
    rate = 0.05 * (800 + 150 + 150) / 0.5
    rest = 70 * 1.2
    total = work + swing + rate + rest
    want = dict(metabolic_work=work, metabolic_swing=swing, metabolic_force_rate=rate, metabolic_rest=rest,
                metabolic_total=total, gross_efficiency_total=(80 + 0 + 56) / (total * 0.5))
    assert tuple(c) == PHYSIOLOGY_COLUMNS
    for k, v in want.items():
        measured.allclose(f"{k} vs by hand", c[k], v, rtol=16 * EPS)


def test_the_work_term_with_equal_efficiencies_is_the_cost_of_work_bit_for_bit(measured):
    """With η⁺ of the arms equal to the legs' (the default) metabolic_work is the run's
    metabolic_power, the work-only cost, bit for bit (free skater with poles, edged skater);
    with the arms at another η⁺ metabolic_power stays bit for bit and metabolic_work moves by
    Σ_poles W⁺ (1/η⁺_arms − 1/η⁺)/T."""
    p = sk.FreeSkaterParams(pole_force_max=150.0, stroke_time=0.6)
    a = sk.simulate_free(p, strokes=1, v0=5.0).strokes.iloc[0]
    b = sk.simulate_free(sk.FreeSkaterParams(**{**p.__dict__, "eta_positive_arms": 0.2}), strokes=1,
                         v0=5.0).strokes.iloc[0]
    assert a["metabolic_work"] == a["metabolic_power"] and b["metabolic_power"] == a["metabolic_power"]
    arms = a["work_pole_left_positive"] + a["work_pole_right_positive"]
    measured.allclose("metabolic_work with η⁺_arms = 0.2 vs by hand", b["metabolic_work"],
                      a["metabolic_work"] + arms * (1 / 0.2 - 1 / 0.25) / 0.6, rtol=16 * EPS)
    e = simulate_edge(EdgeSkaterParams(), strokes=1, v0=4.0).strokes.iloc[0]
    assert e["metabolic_work"] == e["metabolic_power"]
    # rest and swing from the params alone
    measured.allclose("edged skater: metabolic_rest vs M × 1 MET", e["metabolic_rest"], 75.0 * RESTING_RATE, rtol=EPS)
    measured.allclose("edged skater: metabolic_swing vs 2 M c(1/(2T))", e["metabolic_swing"],
                      2 * 75.0 * (SWING_A + SWING_B * (1 / 1.6) ** 4), rtol=8 * EPS)


def test_each_pole_develops_its_sin_squared_push_once(measured):
    """The frame's pole_force is each pole's F_p,max sin²(π(τ − t_p)/t_c) during the contact and
    0 outside; the force-rate term is c_r (R_leg + 2 F_p,max)/T, R_leg the leg's from the frame."""
    p = sk.FreeSkaterParams(pole_force_max=150.0, pole_start=0.05, pole_contact_time=0.3, stroke_time=0.6)
    r = sk.simulate_free(p, strokes=1, v0=5.0, dt_out=0.001)
    f, s = r.frame, r.strokes.iloc[0]
    tau = f["tau"].to_numpy()
    inside = (tau >= 0.05) & (tau <= 0.35)
    law = np.where(inside, 150.0 * np.sin(np.pi * (tau - 0.05) / 0.3) ** 2, 0.0)
    measured.allclose("pole_force vs F_p,max sin²", f["pole_force"].to_numpy(), law, atol=1e-9, unit="N")
    leg = force_developed(np.linalg.norm(f[["leg_fx", "leg_fy", "leg_fz"]].to_numpy(), axis=1), tau)
    measured.allclose("metabolic_force_rate vs c_r (R_leg + 2 F_p,max)/T", s["metabolic_force_rate"],
                      p.force_rate_cost * (leg + 2 * 150.0) / 0.6, rtol=1e-6)


@pytest.mark.parametrize("name", sorted(PHYSIOLOGY_BOUNDS))
@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), "0.2", True])
def test_a_bad_physiology_parameter_is_refused_by_name(name, bad):
    """Negative, NaN, infinite, a string or a bool for any physiology field: a ValueError naming
    it, in both skating models' params."""
    for cls in (sk.FreeSkaterParams, EdgeSkaterParams):
        with pytest.raises(ValueError, match=f"^{name}: "):
            cls(**{name: bad})


def test_the_physiological_budget_is_the_whole_cost(measured):
    """``budget="physiological"`` budgets the steady state's metabolic_total (free and edged
    skater); the thesis's skier, which names no actuators, refuses it by name."""
    from skilib.studies.optimum import TechniqueModel, optimize_technique

    tm = TechniqueModel("free", ("stroke_time",), budget="physiological")
    v, P, _ = tm([0.8])
    ss = sk.free_steady_state(sk.FreeSkaterParams(stroke_time=0.8))
    assert P == ss.metabolic_total and P == float(ss.strokes["metabolic_total"].iloc[0])
    measured.allclose("metabolic_total vs the sum of its terms", P,
                      sum(float(ss.strokes[c].iloc[0]) for c in PHYSIOLOGY_COLUMNS[:4]), rtol=4 * EPS)
    with pytest.raises(ValueError, match="^budget: 'physiological' needs the positive and negative work"):
        TechniqueModel("thesis", ("phase_time",), budget="physiological")
    with pytest.raises(ValueError, match="^budget: 'physiological' needs the positive and negative work"):
        optimize_technique("thesis", power=800.0, budget="physiological", method="collocation")


# -- the whole cost in collocation (skilib.ocp.stroke.PowerBudget) -------------------------------------


def collocated_leg_force(adapter, traj):
    """|F| of the leg's force on B at each collocated point, from the numeric terms (NumPy): the
    rows' forces −C_qᵀλ of the drivers the frame's leg_fx, leg_fy, leg_fz sum."""
    names = ("leg",) if adapter.name == "free skater" else ("leg", "fore_aft")
    rows = [r for n in names for sl in adapter.actuator_rows[n] for r in range(sl.start, sl.stop)]
    return np.array([np.linalg.norm(np.asarray(adapter.terms(t, q, v, u)["Cq"])[rows, adapter.cm].T @ lam[rows])
                     for t, q, v, lam, u in zip(traj["tau"], traj["q"], traj["v"], traj["lam"], traj["u"])])


@pytest.mark.parametrize("model, poles", [("free", False), pytest.param("free", True, marks=pytest.mark.slow),
                                          pytest.param("edge", False, marks=pytest.mark.slow)])
def test_the_collocated_whole_cost_is_the_shooting_models(measured, model, poles):
    """A stroke of fixed technique collocated on 40 intervals with the physiological budget:
    (1) its cost less the same stroke's cost of work alone is, to IPOPT's tolerance, the swing
    and resting terms' closed forms plus c_r R/T, R = F₀ + Σ max(ΔF, 0) over the 81 points of
    the leg's |F| (NumPy, from the collocated multipliers) and of each pole's sin² push: the rises'
    variables are tight; (2) the whole cost equals the shooting steady state's metabolic_total to
    the collocation's error."""
    pytest.importorskip("casadi")
    from dataclasses import replace

    from skilib.ocp import collocate_stroke
    from skilib.ocp.technique import stroke_adapter
    from skilib.studies.optimum import default_params

    p = default_params(model)
    if poles:
        p = replace(p, pole_force_max=150.0, pole_contact_time=0.25, pole_start=0.05)
    adapter = stroke_adapter(model, p)
    whole = collocate_stroke(adapter, budget="physiological", nodes=40, max_nodes=40)
    work = collocate_stroke(adapter, budget="metabolic", nodes=40, max_nodes=40)
    assert whole.status == work.status == "Solve_Succeeded"
    tr, T = whole.trajectory, p.stroke_time
    forces = [collocated_leg_force(adapter, tr)] + ([tr["u"][:, -1]] * 2 if poles else [])
    R = sum(F[0] + np.maximum(np.diff(F), 0.0).sum() for F in forces)
    by_hand = swing_power(T, p.body_mass) + p.body_mass * p.resting_rate + p.force_rate_cost * R / T
    measured.allclose(f"{model}{' with poles' if poles else ''}: whole − work vs swing + rest + c_r R/T",
                      whole.budget_power - work.budget_power, by_hand, rtol=1e-6,
                      argued="IPOPT's tolerance (1e-8 scaled) on the split and the rises' variables, each within "
                             "that of max(·, 0) at the solution")
    ss = sk.free_steady_state(p) if model == "free" else sk.edge_steady_state(p)
    measured.allclose(f"{model}{' with poles' if poles else ''}: collocated whole cost vs the steady state's",
                      whole.budget_power, ss.metabolic_total, rtol=2e-4,
                      argued="W± integrate max(±p, 0) with an O(h²) error where p changes sign, and a sampled peak "
                             "of a force is missed by O(h²): measured 3e-4 at 20 intervals, 5e-5–8e-5 at 40 (free), "
                             "2e-8 (edge, 40)")


@pytest.mark.slow
def test_the_collocated_least_cost_technique_is_the_shooting_ones(measured):
    """The free skater's fastest technique over its five parameters for 680 W of whole cost,
    by collocation and by shooting (each from the same first seeded start): the same speed to
    the collocation's truncation, the same stroke time and V, the same two bounds active."""
    pytest.importorskip("casadi")
    from skilib.studies.optimum import optimize_technique

    coll = optimize_technique("free", 680.0, budget="physiological", method="collocation", starts=1)
    shoot = optimize_technique("free", 680.0, budget="physiological", starts=1)
    assert coll.feasible and shoot.feasible and coll.solution.resimulation_ok
    measured.allclose("speed, collocation vs shooting", coll.progress_speed, shoot.progress_speed, rtol=1e-5,
                      argued="the 20-interval mesh's truncation (its re-simulation agrees to 4e-6)")
    measured.allclose("stroke time, collocation vs shooting", coll.x["stroke_time"], shoot.x["stroke_time"],
                      atol=2e-3, unit="s", argued="a flat optimum: a speed error ε moves the technique by √ε")
    measured.allclose("V, collocation vs shooting", coll.x["skating_angle_deg"], shoot.x["skating_angle_deg"],
                      atol=0.1, unit="°", argued="as the stroke time")
    assert coll.at_bound == shoot.at_bound == {"offset_end": "upper", "cm_dip": "lower"}


@pytest.mark.slow
def test_the_collocated_least_cost_at_a_speed_is_the_shooting_one(measured):
    """The coach's question by collocation (``required_power(..., method="collocation")``: one
    program holds 5 m/s and minimises the whole cost) against shooting's, the free skater's five
    parameters from the same first seeded start: the same least cost to the collocation's
    truncation, the same technique, the same bounds active, the speed held."""
    pytest.importorskip("casadi")
    from skilib.studies.optimum import RequiredPower, required_power

    coll = required_power("free", 5.0, budget="physiological", method="collocation", starts=1)
    shoot = required_power("free", 5.0, budget="physiological", starts=1)
    assert isinstance(coll, RequiredPower) and coll.feasible and coll.solution.resimulation_ok
    measured.allclose("speed held by collocation", coll.progress_speed, 5.0, rtol=1e-8,
                      argued="IPOPT's constraint tolerance")
    measured.allclose("least whole cost, collocation vs shooting", coll.budget_power, shoot.budget_power, rtol=1e-5,
                      argued="the 20-interval mesh's truncation (its re-simulation agrees to 4e-6)")
    measured.allclose("stroke time, collocation vs shooting", coll.x["stroke_time"], shoot.x["stroke_time"],
                      atol=2e-3, unit="s", argued="a flat optimum: a cost error ε moves the technique by √ε")
    measured.allclose("V, collocation vs shooting", coll.x["skating_angle_deg"], shoot.x["skating_angle_deg"],
                      atol=0.1, unit="°", argued="as the stroke time")
    assert coll.at_bound == shoot.at_bound == {"offset_end": "upper", "cm_dip": "lower"}


@pytest.mark.check
def test_the_least_cost_at_a_speed_is_the_dual_of_the_fastest_for_a_cost(measured):
    """The free skater with its stroke time and V free, under the physiological budget: the
    fastest technique for 900 W of whole cost, asked back as the least whole cost for its speed
    (``required_power(..., budget="physiological")``), is the same technique at the same cost;
    and its stroke time lies inside its bounds (the swing's f⁴ cost stops it at neither end)."""
    from skilib.studies.optimum import optimize_technique, required_power

    b = {"stroke_time": (0.4, 2.0), "skating_angle_deg": (10.0, 70.0)}
    o = optimize_technique("free", power=900.0, bounds=b, starts=2, budget="physiological")
    r = required_power("free", speed=o.progress_speed, bounds=b, starts=2, budget="physiological")
    assert o.feasible and r.budget == "physiological"
    measured.allclose("least whole cost at v* vs the 900 W that gave v*", r.budget_power, 900.0, rtol=1e-6)
    for n, (lo, hi) in b.items():
        measured.allclose(f"{n}: the dual's technique vs the optimum's (per range)", r.x[n] / (hi - lo),
                          o.x[n] / (hi - lo), atol=1e-3)
        measured.exceeds(f"{n}: distance from the nearer bound (per range)",
                         min(o.x[n] - lo, hi - o.x[n]) / (hi - lo), 0.01)
