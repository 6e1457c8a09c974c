"""The optimum technique (skilib.studies.optimum): the optimizer on an analytic problem, and the
free skater's optimum at one power: the power constraint, the bounds, first-order optimality
along the constraint, determinism."""
import re
import numpy as np
import pandas as pd
import pytest

from skilib.studies.optimum import (FREE_BOUNDS, constrained_scan, constrained_sensitivity, latin_starts, maximize,
                                    optimize_technique, required_power)

TRAPEZOID = ("the trapezoid rule on the 0.01 s grid errs by h²/12 max|Ẍ_CM| ≲ 1e-5 m/s: the quadrature's error, "
             'the same on every processor')

POWER = 100.0
# one start near the optimum (rounded from a run with two seeded starts): keeps the test short
NEAR = {"skating_angle_deg": 18.0, "stroke_time": 0.75, "steer_deg": 1.0, "offset_end": 0.55, "cm_dip": 0.02}


def test_known_constrained_optimum_is_found(measured):
    """max x + 2y − z on the sphere x² + y² + z² = 1 within a box: (1, 2, −1)/√6 (Lagrange); with
    the bound y ≤ 0.5 active: (√0.375, 0.5, −√0.375)."""
    f = lambda x: x[0] + 2 * x[1] - x[2]
    g = lambda x: x[0] ** 2 + x[1] ** 2 + x[2] ** 2 - 1
    starts = -1 + 2 * latin_starts(3, 3, seed=0)
    # a noise-free function: differences of step 1e-8 (the steady-state map needs 1e-5)
    m = maximize(f, g, starts, [(-1.5, 1.5)] * 3, fd_step=1e-8)
    measured.allclose("sphere optimum (1, 2, −1)/√6", m.x, np.array([1, 2, -1]) / 6 ** 0.5, atol=1e-6, unit="")
    # active bound y <= 0.5: maximise x − z on x² + z² = 0.75 → x = −z = √0.375
    m2 = maximize(f, g, starts, [(-1.5, 1.5), (-1.5, 0.5), (-1.5, 1.5)], fd_step=1e-8)
    r = 0.375 ** 0.5
    measured.allclose("optimum with the bound y ≤ 0.5 active", m2.x, [r, 0.5, -r], atol=1e-6, unit="")
    measured.check("bound held exactly", max(m2.x[1] - 0.5, 0.0), 0.0)


def test_inequality_constraints_are_met_and_active_where_they_bind(measured):
    """max x + 2y − z inside the ball x² + y² + z² ≤ 1 (an inequality, no equality): the
    optimum is on the sphere, (1, 2, −1)/√6; on the sphere with the inequality y ≤ 0.5 (not a
    bound) it is (√0.375, 0.5, −√0.375), the same point as with the bound (Lagrange, KKT)."""
    f = lambda x: x[0] + 2 * x[1] - x[2]
    sphere = lambda x: x[0] ** 2 + x[1] ** 2 + x[2] ** 2 - 1
    starts = -1 + 2 * latin_starts(3, 3, seed=1)
    box = [(-1.5, 1.5)] * 3
    m = maximize(f, None, starts, box, ineq=lambda x: -sphere(x), fd_step=1e-8)
    measured.allclose("ball optimum (1, 2, −1)/√6 (inequality active)", m.x, np.array([1, 2, -1]) / 6 ** 0.5,
                      atol=1e-6, unit="")
    assert m.g == 0.0 and m.c >= -1e-10  # no equality; the inequality met
    m2 = maximize(f, sphere, starts, box, ineq=lambda x: 0.5 - x[1], fd_step=1e-8)
    r = 0.375 ** 0.5
    measured.allclose("sphere optimum with the inequality y ≤ 0.5", m2.x, [r, 0.5, -r], atol=1e-6, unit="")
    measured.check("inequality y ≤ 0.5 held", max(m2.x[1] - 0.5, 0.0), 1e-10)
    # an inequality that does not bind leaves the optimum where it was
    m3 = maximize(f, sphere, starts, box, ineq=lambda x: 1.4 - x[0], fd_step=1e-8)
    measured.allclose("sphere optimum with a slack inequality", m3.x, np.array([1, 2, -1]) / 6 ** 0.5, atol=1e-6,
                      unit="")


@pytest.fixture(scope="module")
def opt():
    return optimize_technique("free", power=POWER, starts=0, x0=NEAR, seed=0)


def test_free_optimum_meets_the_power_and_the_bounds(opt, measured):
    """The optimum's steady mean leg power equals the budget and every parameter is within its bounds."""
    assert opt.feasible
    measured.check("|P − budget| / budget at the optimum", abs(opt.mean_power - POWER) / POWER, 1e-6, "rel.")
    ss_power = opt.technique_model()([opt.x[n] for n in opt.names])[1]
    measured.check("power of the returned params, recomputed", abs(ss_power - POWER) / POWER, 1e-6, "rel.")
    out = max(max(lo - opt.x[n], opt.x[n] - hi, 0.0) for n, (lo, hi) in FREE_BOUNDS.items())
    measured.check("largest excursion beyond a bound", out, 0.0, "")
    for n in opt.names:
        assert getattr(opt.params, n) == opt.x[n]
    assert set(opt.evaluations.status) <= {"ok", "error"} and len(opt.evaluations) >= opt.starts["nfev"].sum()


def test_moving_along_the_constraint_does_not_raise_the_speed(opt, measured):
    """Each parameter moved by ±2 % of its range (inwards only at a bound), the power restored by
    another: the steady speed does not exceed the optimum's (first-order optimality)."""
    sens = constrained_sensitivity(opt).set_index("parameter")
    gains = []
    for n in opt.names:
        lo, hi = opt.bounds[n]
        h = 0.02 * (hi - lo)
        vals = [v for v in (opt.x[n] - h, opt.x[n] + h) if lo <= v <= hi]
        sc = constrained_scan(opt, n, vals, adjust=str(sens.loc[n, "restored_by"]))
        sc = sc[sc.feasible]
        gains += list(sc.optimized_speed - opt.optimized_speed)
    assert len(gains) >= len(opt.names)
    measured.check("largest speed gain along the constraint", max(gains), 1e-5 * opt.optimized_speed, "m/s")


def test_same_seed_same_optimum(measured):
    """Two runs with one seed give the same result, bit for bit (two SLSQP iterations, to stay quick)."""
    a = optimize_technique("free", power=POWER, starts=1, seed=0, maxiter=2)
    b = optimize_technique("free", power=POWER, starts=1, seed=0, maxiter=2)
    measured.check("difference between two runs with one seed",
                   max(abs(a.x[n] - b.x[n]) for n in a.names) + abs(a.optimized_speed - b.optimized_speed), 0.0)
    assert a.evaluations.equals(b.evaluations)


def test_bad_arguments():
    with pytest.raises(ValueError, match="model"):
        optimize_technique("bike", power=100)
    with pytest.raises(ValueError, match="power"):
        optimize_technique("free", power=-1)
    with pytest.raises(ValueError, match="not a parameter"):
        optimize_technique("free", power=100, bounds={"wingspan": (1, 2)})
    with pytest.raises(ValueError, match="low < high"):
        optimize_technique("free", power=100, bounds={"stroke_time": (2, 1)})
    with pytest.raises(ValueError, match="speed"):
        optimize_technique("free", power=100, speed="fast")


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("kw, match", [
    (dict(model=None), "^model: "),
    (dict(power=NAN), "^power: "), (dict(power=INF), "^power: "), (dict(power=0.0), "^power: "),
    (dict(power="200"), "^power: "), (dict(power=True), "^power: "),
    (dict(bounds={"stroke_time": (0.5, NAN)}), "^bounds: stroke_time must be .*finite"),
    (dict(bounds={"stroke_time": (-INF, 1.0)}), "^bounds: stroke_time must be .*finite"),
    (dict(bounds={"stroke_time": (0.5,)}), r"^bounds: stroke_time must be a pair"),
    (dict(bounds={"stroke_time": (0.5, 1.0, 1.5)}), r"^bounds: stroke_time must be a pair"),
    (dict(bounds={"stroke_time": 0.5}), r"^bounds: stroke_time must be a pair"),
    (dict(bounds={"stroke_time": "ab"}), r"^bounds: stroke_time must be a pair"),
    (dict(bounds={"stroke_time": ("0.5", "1")}), "^bounds: stroke_time must be .*finite numbers"),
    (dict(bounds={"stroke_time": (1.0, 1.0)}), "^bounds: stroke_time must be .*low < high"),
    (dict(bounds={"stroke_time": (0.01, 1.0)}), r"^bounds: stroke_time = .* outside its plausible range \[0.2, 3\]"),
    (dict(bounds={"skating_angle_deg": (10.0, 170.0)}), r"^bounds: skating_angle_deg .*plausible range \[1, 120\]"),
    (dict(bounds={"air_drag": (0, 1)}), "^bounds: air_drag is not a number parameter"),
    (dict(bounds={"body_inertia": (1, 2)}), "^bounds: body_inertia is not a number parameter"),
    (dict(bounds={}), "^bounds: must be a non-empty dict"), (dict(bounds=[("stroke_time", 1, 2)]), "^bounds: "),
    (dict(starts=1.5), "^starts: must be an integer"), (dict(starts=True), "^starts: must be an integer"),
    (dict(starts=0), "^starts: "), (dict(starts="2"), "^starts: must be an integer"),
    (dict(seed=0.5), "^seed: must be an integer"), (dict(seed=None), "^seed: must be an integer"),
    (dict(seed=-1), "^seed: "),
    (dict(fd_step=0.0), "^fd_step: "), (dict(fd_step=NAN), "^fd_step: "), (dict(fd_step=0.5), "^fd_step: "),
    (dict(ftol=-1e-8), "^ftol: "), (dict(ftol=INF), "^ftol: "),
    (dict(power_tol=0.0), "^power_tol: "), (dict(power_tol=NAN), "^power_tol: "),
    (dict(maxiter=0), "^maxiter: "), (dict(maxiter=2.5), "^maxiter: must be an integer"),
    (dict(x0={"stroke_time": NAN}), "^x0: stroke_time must be a finite number"),
    (dict(x0={"wingspan": 1.0}), "^x0: .*wingspan.* not among"), (dict(x0=[1.0]), "^x0: must be None or a dict"),
    (dict(options=[1]), "^options: "), (dict(params=object()), "^params: must be None or a FreeSkaterParams"),
])
def test_bad_arguments_are_named_before_anything_runs(kw, match):
    """Each bad argument raises a ValueError whose message starts with its name (and the bound's
    name), before any steady state is computed (the model's evaluation would take seconds)."""
    args = dict(model="free", power=100.0) | kw
    with pytest.raises(ValueError, match=match):
        optimize_technique(**args)
    if "power" not in kw:  # the same checks guard required_power (its tolerance is speed_tol)
        args = dict(args, speed=6.0, **({"speed_tol": kw["power_tol"]} if "power_tol" in kw else {}))
        args.pop("power")
        args.pop("power_tol", None)
        with pytest.raises(ValueError, match=match.replace("power_tol", "speed_tol")):
            required_power(**args)


@pytest.mark.parametrize("speed", [0.0, -6.0, NAN, INF, "6", True, None])
def test_required_power_refuses_a_bad_speed(speed):
    with pytest.raises(ValueError, match="^speed: "):
        required_power("free", speed)
    with pytest.raises(ValueError, match="^speed_kind: "):
        required_power("free", 6.0, speed_kind="fast")


def test_the_thesis_bounds_are_checked_against_its_plausible_ranges():
    with pytest.raises(ValueError, match=r"^bounds: phase_time = .*plausible range \[0, 100\]"):
        optimize_technique("thesis", power=100.0, bounds={"phase_time": (0.5, 200.0)})
    with pytest.raises(ValueError, match="^bounds: push_direction is not a number parameter"):
        required_power("thesis", 3.0, bounds={"push_direction": (0.0, 1.0)})


def test_failures_are_recorded_and_penalised():
    """A technique the model cannot run is a row with its error, and a penalty for the optimizer."""
    from skilib.studies.optimum import PENALTY, TechniqueModel

    tm = TechniqueModel("free", ("offset_end",))
    assert tm([5.0]) == PENALTY
    assert tm.log[-1]["status"] == "error" and "offset_end" in tm.log[-1]["error"]


@pytest.mark.check
def test_dask_starts_give_the_serial_result():
    """The starts run as a skilib.sweep on a LocalCluster give the serial result, evaluations included.

    Under ``make check``'s one-by-one phase (marked check, not slow): run beside the notebooks on
    two loaded cores it once failed, the evaluations differing (the cells are now listed), which a
    quiet run has not reproduced (three runs, bit for bit equal)."""
    kw = dict(power=200.0, starts=2, seed=0, maxiter=1)
    a = optimize_technique("free", scheduler=None, n_workers=2, **kw)
    b = optimize_technique("free", **kw)
    assert a.x == b.x and a.optimized_speed == b.optimized_speed
    ea, eb = a.evaluations, b.evaluations
    assert list(ea.columns) == list(eb.columns) and ea.shape == eb.shape
    differ = {c: [(i, ea[c][i], eb[c][i]) for i in ea.index if not (ea[c][i] == eb[c][i] or (pd.isna(ea[c][i])
                                                                                         and pd.isna(eb[c][i])))]
              for c in ea.columns}
    assert ea.equals(eb), {c: d[:3] for c, d in differ.items() if d}


def test_thesis_model_meets_its_push_power(measured):
    """The thesis's skier (three SLSQP iterations, to stay quick): a SkierParams within the bounds
    whose steady push power is the budget; runs with no periodic stroke are recorded, not dropped."""
    from skilib.models.thesis.params import SkierParams

    o = optimize_technique("thesis", power=300.0, starts=1, seed=0, maxiter=3, options=dict(dt_out=0.05))
    assert isinstance(o.params, SkierParams) and o.feasible
    measured.check("|P − budget| / budget, thesis's skier", abs(o.mean_power - 300.0) / 300.0, 1e-6, "rel.")
    out = max(max(lo - o.x[n], o.x[n] - hi, 0.0) for n, (lo, hi) in o.bounds.items())
    measured.check("largest excursion beyond a bound, thesis's skier", out, 0.0, "")
    assert (o.evaluations.status == "error").sum() == (o.evaluations.error != "").sum()



@pytest.mark.parametrize("model", ["free", "thesis"])
def test_the_speed_optimised_is_the_progress_along_the_course(model, measured):
    """The optimizer's speed ("progress") is the CM's X displacement over the periodic stroke
    divided by its time, read here off the steady state's frame, and the trapezoidal mean of the
    CM's X velocity agrees; speed="cm" is the steady state's mean CM speed, which is larger (it
    also counts the sideways sway)."""
    from skilib.studies.optimum import TechniqueModel

    name = "skating_angle_deg"
    angle = 40.0 if model == "free" else 50.0
    tm, tc = TechniqueModel(model, (name,)), TechniqueModel(model, (name,), speed="cm")
    ss = tm.steady([angle])
    f = ss.frame
    T = f.t.iloc[-1] - f.t.iloc[0]
    moved = (f.cm_x.iloc[-1] - f.cm_x.iloc[0]) / T
    v, P, _ = tm([angle])
    measured.check(f"{model}: progress speed vs ΔX_CM / T", abs(v - moved), 1e-12, "m/s")
    # the trapezoid rule on the 0.01 s output grid errs by about h²/12 · max|Ẍ_CM| ≲ 1e-5 m/s
    measured.check(f"{model}: progress speed vs the mean of Ẋ_CM (trapezoid)",
                   abs(v - np.trapezoid(f.cm_vx, f.t) / T), 1e-5, "m/s", argued=TRAPEZOID)
    assert tc([angle])[0] == ss.mean_speed > v and P == ss.mean_power


def test_seeded_starts_are_points_the_model_can_run():
    """The seeded starts are the first Latin-hypercube candidates whose steady state exists; the
    candidates refused on the way are recorded (start −1) with their error, not dropped."""
    from skilib.studies.optimum import SCREEN, TechniqueModel

    o = optimize_technique("free", power=POWER, starts=2, seed=0, maxiter=1)
    names = o.names
    screened = o.evaluations[o.evaluations.start == -1]
    assert len(o.starts) == 2 and 2 <= len(screened) <= 2 * SCREEN
    lo, hi = (np.array([FREE_BOUNDS[n][k] for n in names]) for k in (0, 1))
    cand = lo + latin_starts(2 * SCREEN, len(names), 0) * (hi - lo)
    runs = [r.status == "ok" for r in screened.itertuples()]
    # the screening tried the candidates in order and stopped at the second that runs
    np.testing.assert_array_equal(screened[list(names)].to_numpy(), cand[: len(screened)])
    assert sum(runs) == 2 and runs[-1]
    kept = cand[: len(screened)][runs]
    np.testing.assert_array_equal(o.starts[list(names)].to_numpy(), kept)
    refused = screened[screened.status != "ok"]
    assert len(refused) >= 1 and (refused.error.str.len() > 0).all()  # seed 0 draws two the model refuses
    # and each refused candidate is one the model cannot run on its own
    tm = TechniqueModel("free", names)
    for r in refused.itertuples():
        assert tm([getattr(r, n) for n in names]) == (0.0, 0.0, 0.0)


def test_a_second_question_reuses_the_screen_bit_for_bit(monkeypatch):
    """The screen of seeded starts is a pure function of its inputs: a second fresh
    ``TechniqueModel`` with the same model, parameters, bounds and seed gets the same points and
    the same log, bit for bit, without one steady state run; a changed seed or parameter screens
    again (its own points)."""
    from skilib import FreeSkaterParams
    from skilib.studies import optimum as opt

    monkeypatch.setattr(opt, "_SCREENED", {})
    names = ("skating_angle_deg", "stroke_time")
    lo, hi = (np.array([FREE_BOUNDS[n][k] for n in names]) for k in (0, 1))
    first = opt.TechniqueModel("free", names)
    pts = opt._screened_starts(first, lo, hi, 2, 0)
    runs = []
    monkeypatch.setattr(opt.TechniqueModel, "steady", lambda self, x: runs.append(x) or pytest.fail("ran a point"))
    again = opt.TechniqueModel("free", names)
    np.testing.assert_array_equal(opt._screened_starts(again, lo, hi, 2, 0), pts)
    assert again.log == first.log and len(first.log) >= 2 and not runs
    # and each start's steady state, the collocation's first guess, is the one screened
    assert len(first.screened_steady) == len(pts) and all(a is b for a, b in zip(again.screened_steady,
                                                                                  first.screened_steady))
    assert all(p == first.params(x) for (p, _), x in zip(first.screened_steady, pts))
    monkeypatch.undo()
    monkeypatch.setattr(opt, "_SCREENED", dict(opt._SCREENED))
    other = opt.TechniqueModel("free", names, base=FreeSkaterParams(body_mass=70.0))
    assert opt._screen_key(other, lo, hi, 2, 0) != opt._screen_key(again, lo, hi, 2, 0)
    assert opt._screen_key(again, lo, hi, 2, 1) != opt._screen_key(again, lo, hi, 2, 0)
    assert opt._screen_key(opt.TechniqueModel("free", names), lo, hi, 2, 0) == opt._screen_key(again, lo, hi, 2, 0)


# --------------------------------------------------------------------------- the edged skater
@pytest.fixture(scope="module")
def edge_default():
    import skilib as sk
    from skilib.studies.optimum import _edge_base

    return sk.edge_steady_state(_edge_base(), multipliers=False)


def test_edge_optimum_with_one_free_parameter_is_the_power_s_root(edge_default, measured):
    """With one parameter free (the leg's extension Δℓ) the budget alone fixes the technique: at
    the default technique's own power the optimum must be the default Δℓ = 0.10 m and its speed
    (the optimizer started at 0.12 m, every steady state from the previous one's start); its
    margins (EDGE_MARGINS) are those of the default stroke, all > 0."""
    from skilib.studies.optimum import EDGE_MARGINS, edge_margins

    P = edge_default.mean_power
    opt = optimize_technique("edge", power=P, bounds={"leg_extension": (0.05, 0.15)}, starts=0,
                             x0={"leg_extension": 0.12})
    assert opt.feasible and opt.model == "edge"
    measured.allclose("edge, Δℓ alone: the optimum's Δℓ vs the default's", opt.x["leg_extension"], 0.10, atol=1e-7,
                      unit="m")
    measured.allclose("edge, Δℓ alone: the optimum's speed vs the default's", opt.optimized_speed,
                      edge_default.progress_speed, rtol=1e-7, unit="m/s")
    measured.check("edge, Δℓ alone: |P − budget| / budget", abs(opt.mean_power - P) / P, 1e-8, "rel.")
    margins = edge_margins(edge_default)
    assert set(margins) == set(EDGE_MARGINS) and min(margins.values()) > 0
    weight = edge_default.params.body_mass * edge_default.params.g
    measured.allclose("leg-force margin vs min F / (M g)", margins["leg_force_margin"],
                      edge_default.frame["leg_force"].min() / weight, rtol=1e-12)


def test_edge_bounds_are_checked_against_its_plausible_ranges():
    with pytest.raises(ValueError, match=r"^bounds: landing_offset = .* plausible range \[0, 0.6\] "
                                         r"\(EDGE_PARAMETER_BOUNDS of the edge model's params\)"):
        optimize_technique("edge", power=90.0, bounds={"landing_offset": (0.1, 0.8)})
    with pytest.raises(ValueError, match="^bounds: 'offset_end' is not a parameter of the edge model"):
        optimize_technique("edge", power=90.0, bounds={"offset_end": (0.1, 0.5)})
    with pytest.raises(ValueError, match="^params: must be None or an EdgeSkaterParams"):
        optimize_technique("edge", power=90.0, params=object())


@pytest.mark.parametrize("model, budget, match", [
    ("free", "gross", r"^budget: must be one of \('net', 'positive', 'metabolic', 'physiological'\)"),
    ("edge", None, "^budget: must be one of"),
    ("thesis", "metabolic", "^budget: 'metabolic' needs the positive and negative work of each actuator"),
])
def test_an_unknown_budget_is_refused_by_name(model, budget, match):
    with pytest.raises(ValueError, match=match):
        optimize_technique(model, power=90.0, budget=budget)


def test_the_leg_s_reach_is_checked_not_imposed(edge_default, measured):
    """ℓ_max does not enter the dynamics: with ℓ_max = 0.95 m, shorter than the default stroke's
    longest leg (ℓ0 + Δℓ ≈ 0.958 m), the periodic stroke is the default's (x0 to 1e-8), its reach
    margin is ℓ_max − max ℓ < 0 and reported with check=False, refused with check=True (naming
    max_leg_length)."""
    import skilib as sk
    from skilib.studies.optimum import edge_margins

    p = sk.EdgeSkaterParams(max_leg_length=0.95, cm_height=0.8)
    ss = sk.edge_steady_state(p, guess=tuple(edge_default.x0[:3]), multipliers=False, check=False)
    measured.allclose("ℓ_max = 0.95 m: x0 vs the default's", ss.x0, edge_default.x0, atol=1e-8)
    reach = edge_margins(ss)["reach_margin"]
    measured.allclose("reach margin vs ℓ_max − (ℓ0 + Δℓ)", reach,
                      0.95 - (ss.frame["leg_length"].iloc[0] + p.leg_extension), atol=1e-9, unit="m")
    assert reach < 0
    with pytest.raises(ValueError, match=r"^edge_steady_state: max_leg_length: the leg reaches 0\.95\d* m, [0-9.e+-]+ m beyond 0\.95 m"):
        sk.edge_steady_state(p, guess=tuple(edge_default.x0[:3]), multipliers=False)


def test_the_budgets_agree_where_no_actuator_absorbs_work(edge_default, measured):
    """At the edged skater's default stroke no actuator does negative work (the leg pushes while
    it extends, the heading turns one way; W⁻ = 0 to rounding), so its positive power is its net
    power and its metabolic power is that over η⁺ = 0.25.  With Δℓ alone free, a "positive"
    budget of the default's net power and a "metabolic" budget of four times it must both give
    the default technique back (Δℓ = 0.10 m) and its speed."""
    P = edge_default.mean_power
    measured.allclose("default stroke: mean positive power vs net power", edge_default.mean_positive_power, P,
                      rtol=1e-9, unit="W")
    measured.allclose("default stroke: metabolic power vs net / η⁺", edge_default.metabolic_power,
                      P / edge_default.params.eta_positive, rtol=1e-9, unit="W")
    for budget, power in (("positive", P), ("metabolic", P / edge_default.params.eta_positive)):
        opt = optimize_technique("edge", power=power, bounds={"leg_extension": (0.05, 0.15)}, starts=0,
                                 x0={"leg_extension": 0.12}, budget=budget)
        assert opt.feasible and opt.budget == budget
        measured.allclose(f"edge, Δℓ alone, {budget} budget: Δℓ vs the default's", opt.x["leg_extension"], 0.10,
                          atol=1e-6, unit="m")
        measured.allclose(f"edge, Δℓ alone, {budget} budget: the budget's power at the optimum", opt.budget_power,
                          power, rtol=1e-8, unit="W")


def test_at_bound_marks_a_parameter_within_one_percent_of_its_range():
    """``Optimum.at_bound``: a parameter on a bound or within 1 % of its range from one is the
    bound's answer; at 1.5 % it is the model's."""
    from skilib.studies.optimum import AT_BOUND, Optimum

    bounds = {"a": (0.0, 10.0), "b": (0.4, 2.0), "c": (10.0, 70.0), "d": (-1.0, 1.0)}
    x = {"a": 0.0, "b": 2.0 - 0.5 * AT_BOUND * 1.6, "c": 10.0 + 1.5 * AT_BOUND * 60.0, "d": -1.0 + AT_BOUND * 2.0}
    opt = Optimum("free", None, x, 1.0, None, bounds, pd.DataFrame(), pd.DataFrame())
    assert opt.at_bound == {"a": "lower", "b": "upper", "d": "lower"}


def test_the_progress_bar_counts_steady_states_and_changes_nothing(capsys, monkeypatch):
    """``progress=True``: a bar on stderr counting every steady state the optimizer computes
    (the screening's and the start's; a screen kept from an earlier call with the same inputs is
    not computed, so not counted), and the same optimum, evaluation for evaluation, bit for
    bit as without it; a progress that is not a bool is refused by name."""
    from skilib.studies import optimum as opt
    from skilib.studies.optimum import optimize_technique

    monkeypatch.setattr(opt, "_SCREENED", {})
    kw = dict(bounds={"skating_angle_deg": (10.0, 70.0), "stroke_time": (0.4, 2.0)}, starts=1, maxiter=3)
    quiet = optimize_technique("free", 200.0, **kw)
    assert capsys.readouterr().err == ""
    pattern = r"optimize_technique \(1 start\): (\d+) steady states"
    for screen in ("kept", "computed"):
        if screen == "computed":
            opt._SCREENED.clear()
        loud = optimize_technique("free", 200.0, progress=True, **kw)
        counted = [int(n) for n in re.findall(pattern, capsys.readouterr().err)]
        computed = loud.evaluations if screen == "computed" else loud.evaluations[loud.evaluations.start >= 0]
        assert counted and max(counted) == len(computed)  # every steady state computed, counted once
    assert loud.x == quiet.x and loud.optimized_speed == quiet.optimized_speed and loud.mean_power == quiet.mean_power
    pd.testing.assert_frame_equal(loud.evaluations, quiet.evaluations)
    with pytest.raises(ValueError, match=r"^progress: "):
        optimize_technique("free", 200.0, progress="yes", **kw)


def test_the_front_records_a_power_out_of_reach_and_goes_on():
    """``speed_power_front``: a power no technique within the bounds reaches (1e-6 W) is a row of
    NaN whose error names the power, and the next power is the optimum ``optimize_technique``
    finds alone (no warm start after a power with none), bit for bit."""
    from skilib.studies.optimum import optimize_technique, speed_power_front

    kw = dict(bounds={"skating_angle_deg": (10.0, 70.0), "stroke_time": (0.4, 2.0)}, starts=1, maxiter=3)
    table, opts = speed_power_front("free", (1e-6, 200.0), **kw)
    assert opts[0] is None and np.isnan(table.loc[0, "optimized_speed"])
    assert table.loc[0, "error"].startswith("power: 1e-06 W (net budget) is not reached")
    alone = optimize_technique("free", 200.0, **kw)
    assert (opts[1].x, opts[1].optimized_speed, opts[1].mean_power) == (alone.x, alone.optimized_speed, alone.mean_power)
    assert table.loc[1, "optimized_speed"] == alone.optimized_speed and table.loc[1, "feasible"] == alone.feasible


def test_no_runnable_start_is_named_by_both_methods():
    """Where no seeded candidate has a periodic stroke (the edged skater on 5 %, its search from the
    flat's touch-down state: the snow's load would pull), both methods say so, with the count of
    each refusal and the first refusal's reason, instead of an empty table of starts."""
    import math
    from dataclasses import replace

    from skilib.studies.optimum import SCREEN, required_power
    from skilib.models.edge.technique import default_params

    uphill = replace(default_params(), slope_deg=math.degrees(math.atan(0.05)))
    for method in ("collocation", "shooting"):
        with pytest.raises(RuntimeError, match=rf"required_power: none of the {SCREEN} seeded candidate points "
                                               rf"\(seed 0\) can be run by the edge model \({SCREEN} NoSteadyState\); "
                                               r"the first: NoSteadyState: .*constraint 'snow'"):
            required_power("edge", 3.5, params=uphill, starts=1, seed=0, method=method, budget="physiological")
