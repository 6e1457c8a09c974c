"""The coach's question (``skilib.required_power``): the least mean power for a target steady
speed, the dual of the fastest technique at a power (``optimize_technique``).

On the speed–power front the two problems have the same solution: if x* maximises v subject to
P = P0 with v(x*) = v*, and the front v(P) is increasing, then x* minimises P subject to v = v*
and the least power is P0 (a lower power reaching v* would, by the front's monotony, let a
faster technique spend P0).  Two technique parameters keep the test to a few dozen steady states."""
import math

import numpy as np
import pytest

import skilib as sk
from skilib.studies.optimum import RequiredPower, TechniqueModel, Unreachable, optimize_technique, required_power

POWER = 100.0
#: two parameters with an interior optimum at 100 W (≈ 24°, ≈ 0.49 m)
BOUNDS = {"skating_angle_deg": (15.0, 40.0), "offset_end": (0.2, 0.6)}


@pytest.fixture(scope="module")
def dual():
    opt = optimize_technique("free", power=POWER, bounds=BOUNDS, starts=1, seed=0)
    # started from another seeded point, so that the same answer is not the same start
    req = required_power("free", opt.optimized_speed, bounds=BOUNDS, starts=1, seed=1)
    return opt, req


def test_the_least_power_at_the_optimum_speed_is_the_budget(dual, measured):
    """required_power(v*) with v* the speed optimize_technique(P0) found gives P0 and the same
    technique.  The power agrees to the constraints' tolerances (1e-8 on the power, 1e-8 on the
    speed, times the front's elasticity d ln P / d ln v of a few) plus second order in the
    technique's error; the technique to SLSQP's resolution: it stops once the objective changes
    by less than ftol = 1e-8, and near the optimum the objective changes as the square of the
    step, so the parameters are known to about √1e-8 = 1e-4 of their ranges."""
    opt, req = dual
    assert opt.feasible and req.feasible and isinstance(req, RequiredPower) and isinstance(req, sk.Optimum)
    measured.check("|P_required(v*) − P0| / P0", abs(req.mean_power - POWER) / POWER, 1e-7, "rel.")
    for n, (lo, hi) in BOUNDS.items():
        assert lo < opt.x[n] < hi  # an interior optimum: the duality is not a bound's doing
        measured.check(f"technique: |Δ{n}| / its range", abs(req.x[n] - opt.x[n]) / (hi - lo), 1e-3, "")
    assert req.power is None and req.target_speed == opt.optimized_speed and req.bounds == BOUNDS


def test_the_speed_constraint_holds_to_its_tolerance(dual, measured):
    """The returned technique's steady speed is the target to ``speed_tol`` (relative), read
    back from the result and from a fresh steady state of the returned parameters (its own
    tolerance, |Φ(u) − u| ≤ 1e-10 m/s, is far below)."""
    _, req = dual
    v = req.target_speed
    measured.check("|v − target| / target, as returned", abs(req.optimized_speed - v) / v, req.speed_tol, "rel.")
    ss = sk.free_steady_state(req.params)
    measured.check("|v − target| / target, recomputed", abs(ss.progress_speed - v) / v, req.speed_tol, "rel.")
    measured.check("power recomputed vs returned", abs(ss.mean_power - req.mean_power) / req.mean_power, 1e-8, "rel.")
    for n in req.names:
        assert getattr(req.params, n) == req.x[n]


def test_the_peak_leg_force_is_the_steady_strokes(dual, measured):
    """The peak leg force (N and body weights) equals the largest |F_leg| = |(leg_fx, leg_fy,
    leg_fz)| of the returned technique's periodic stroke, computed afresh from its frame, over
    M g."""
    _, req = dual
    p = req.params
    f = sk.free_steady_state(p).frame
    peak = float(np.sqrt(f.leg_fx ** 2 + f.leg_fy ** 2 + f.leg_fz ** 2).max())
    measured.check("peak leg force [N] vs the frame's", abs(req.peak_leg_force_n - peak) / peak, 1e-8, "rel.")
    measured.check("peak leg force [body weights] vs N / (M g)",
                   abs(req.peak_leg_force_bw - peak / (p.body_mass * p.g)), 1e-8, "BW")
    assert 1.0 < req.peak_leg_force_bw < 3.0  # a skating leg: above standing, below a jump's landing


def test_a_speed_beyond_the_bounds_is_refused_by_name():
    """30 m/s (a downhill racer's speed) is beyond every technique within the bounds: a
    ValueError naming ``speed`` with the range of speeds the model reached, not a wrong answer.
    The range it names is that of the steady states computed, and each corner of the bounds (the
    free skater's speed rises towards them) is below 30 m/s too."""
    with pytest.raises(ValueError, match=r"^speed: 30 m/s is not reached by the free model within the bounds .*"
                                         r"range from \S+ to \S+ m/s") as err:
        required_power("free", 30.0, bounds=BOUNDS, starts=1, seed=0, maxiter=3)
    assert isinstance(err.value, Unreachable) and (err.value.parameter, err.value.value) == ("speed", 30.0)
    top = float(str(err.value).split(" to ")[1].split(" m/s")[0])
    assert top < 30.0
    tm = TechniqueModel("free", tuple(BOUNDS))
    corners = [tm([a, h])[0] for a in BOUNDS["skating_angle_deg"] for h in BOUNDS["offset_end"]]
    assert max(v for v in corners if not math.isnan(v)) < 30.0


def test_a_start_the_model_cannot_run_is_named_not_called_unreachable():
    """Where not one technique the starts ask for can be run (the free skater on a 30° climb: its
    ski would slide back), nothing is known about the speed, so the refusal is not ``Unreachable``
    ("not reached within the bounds", with a range of no speeds) but a RuntimeError counting the
    refusals by kind and quoting the first."""
    with pytest.raises(RuntimeError, match=r"^required_power: none of the \d+ techniques the starts asked for can be "
                                           r"run by the free model within the bounds .*\(\d+ NoSteadyState\); the "
                                           r"first: NoSteadyState: free_steady_state: no gliding stroke") as err:
        required_power("free", 5.0, params=sk.FreeSkaterParams(slope_deg=30.0), x0={"stroke_time": 0.8}, starts=0,
                       bounds={"stroke_time": (0.4, 2.0)})
    assert not isinstance(err.value, Unreachable) and "nan" not in str(err.value)


def test_the_thesis_skier_with_one_parameter_lands_on_the_speed_it_was_given(measured):
    """The thesis's skier with one free parameter, the skating angle in 40–60°: the speed
    constraint alone fixes the technique, so asking for the speed the skier has at 50° must give
    back 50°, its push-off power and its push-off's peak (the frame's largest |F| along the leg,
    over M g) — the speed falls monotonically with the angle here, so the root is the one."""
    opts = dict(dt_out=0.05)
    bounds = {"skating_angle_deg": (40.0, 60.0)}
    tm = TechniqueModel("thesis", tuple(bounds), options=opts)
    v50, P50, _ = tm([50.0])
    v40, v60 = tm([40.0])[0], tm([60.0])[0]
    assert v40 > v50 > v60  # monotone across the range: one root
    req = required_power("thesis", v50, bounds=bounds, starts=1, seed=0, options=opts, maxiter=5)
    assert isinstance(req.params, sk.SkierParams)
    # to first order the angle is off by the speed's error over the slope dv/da (a central
    # difference of ±0.5°), and the speed's error is at most speed_tol · v
    slope = (tm([50.5])[0] - tm([49.5])[0]) / 1.0
    measured.check("thesis: angle found vs 50°", abs(req.x["skating_angle_deg"] - 50.0),
                   req.speed_tol * v50 / abs(slope), "deg")
    measured.check("thesis: |P − P(50°)| / P(50°)", abs(req.mean_power - P50) / P50, 1e-7, "rel.")
    measured.check("thesis: |v − target| / target", abs(req.optimized_speed - v50) / v50, req.speed_tol, "rel.")
    f = sk.steady_state(req.params, **opts).frame
    peak = float(f.push_force.abs().max())
    p = req.params
    measured.check("thesis: peak push-off [N] vs the frame's", abs(req.peak_leg_force_n - peak) / peak, 1e-8, "rel.")
    measured.check("thesis: peak push-off [body weights]", abs(req.peak_leg_force_bw - peak / (p.mass * p.g)), 1e-8,
                   "BW")
