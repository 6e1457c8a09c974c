"""Bad input to the drawings, the sensitivity analysis and the Fourier fit: every bad value is
refused by skilib with a ValueError whose message names the argument (never an AttributeError,
OverflowError or a NumPy/SALib error from deep inside)."""
import math
import traceback
from pathlib import Path

import numpy as np
import pytest

from skilib import plot
from skilib.data import fourier
from skilib.data.push import default_push_force
from skilib.models.thesis.markers import Skeleton
from skilib.studies.sensitivity import sobol_design, sobol_indices

PACKAGE = Path(plot.__file__).resolve().parent
NAN, INF = float("nan"), float("inf")
BOUNDS = {"a": (0.0, 1.0), "b": (0.0, 1.0)}


def skel():
    t = np.linspace(0.0, 1.0, 5)
    p = np.c_[t, 0 * t, 0 * t + 1.0]
    return Skeleton(t=t, points={"A": p, "CM": p + [0, 0, 0.5]}, segments=[("ski", "A", "CM")])


def _design():
    return sobol_design(BOUNDS, 8)


CASES = [  # (call, the argument the message must name)
    *[(lambda v=v: plot.draw_model(skel(), i=v), "i") for v in (5, -1, 2.5, NAN, "1", True, None)],
    *[(lambda v=v: plot.draw_model(v), "skel") for v in (None, 3, "skel")],
    *[(lambda v=v: plot.draw_model(skel(), force_scale=v), "force_scale") for v in (NAN, -1.0, INF, "1")],
    *[(lambda v=v: plot.pose_sequence(skel(), n=v), "n") for v in (0, -1, NAN, 2.5, "3")],
    (lambda: plot.pose_sequence(skel(), view="front"), "view"),
    (lambda: plot.pose_sequence(skel(), rows=[0, 9]), "rows[1]"),
    *[(lambda v=v: plot.animate(skel(), max_frames=v), "max_frames") for v in (0, -3, INF, NAN, 1.5, None)],
    *[(lambda v=v: plot.animate(skel(), interval_ms=v), "interval_ms") for v in (0.0, -5.0, NAN, "fast")],
    (lambda: plot.animate(None), "skel"),
    (lambda: plot.pose_sequence(Skeleton(t=np.zeros(1), points={"A": np.zeros((1, 3))}, segments=[])), "'CM'"),
    (lambda: plot.animation_html("not an animation"), "anim"),
    *[(lambda v=v: sobol_design(BOUNDS, 8, seed=v), "seed") for v in (-1, INF, -INF, NAN, 1.5, "1", True, None)],
    *[(lambda v=v: sobol_design({"a": (0.0, v), "b": (0.0, 1.0)}, 8), "bounds['a']") for v in (NAN, INF, "1", True, -1.0)],
    (lambda: sobol_design({"a": (0.0, 1.0, 2.0)}, 8), "bounds['a']"),
    (lambda: sobol_design({"a": "01"}, 8), "bounds['a']"),
    *[(lambda v=v: sobol_design(BOUNDS, v), "n") for v in (0, 7, -8, NAN, INF, 8.0, "8")],
    *[(lambda v=v: sobol_indices(_design(), np.ones(32), num_resamples=v), "num_resamples")
      for v in (0, 1, -5, INF, NAN, 2.5, "100", None)],
    *[(lambda v=v: sobol_indices(_design(), np.ones(32), conf_level=v), "conf_level") for v in (0.0, 1.0, NAN, "0.9")],
    *[(lambda v=v: fourier.fit(np.linspace(0, 1, 50), np.ones(50), 3, period=v), "period")
      for v in (0.0, -1.0, NAN, INF, "3", True)],
    *[(lambda v=v: default_push_force(v), "phase_time") for v in (0.0, -1.0, NAN, INF, "1", True, None)],
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_bad_input_is_refused_by_name(k):
    call, name = CASES[k]
    with pytest.raises((ValueError, TypeError)) as err:
        call()
    assert name in str(err.value), f"case {k}: the message does not name {name!r}: {err.value}"
    last = Path(traceback.extract_tb(err.tb)[-1].filename).resolve()
    assert PACKAGE in last.parents, f"case {k}: raised from {last}, not from skilib"


def test_the_good_values_still_work():
    """The checks refuse only what is wrong: the same calls with good values run."""
    s = skel()
    assert plot.draw_model(s, i=4, force_scale=0.0) is not None
    assert plot.pose_sequence(s, n=3, view="top", rows=[0, 4]) is not None
    assert "<script" in plot.animation_html(plot.animate(s, max_frames=2, interval_ms=10.0), "loop")
    d = sobol_design(BOUNDS, 8, seed=0)
    assert len(d) == 8 * (2 + 2) and d.attrs["sobol"]["seed"] == 0
    assert list(sobol_indices(d, d["a"].to_numpy() + 0.1 * d["b"].to_numpy(), num_resamples=2).index) == ["a", "b"]
    assert math.isclose(default_push_force(1).phase_time, 1.0)


@pytest.mark.parametrize("scheduler", ["bogus", "tcp:/host", "localhost:8786", ""])
def test_a_scheduler_that_is_not_an_address_is_refused_by_name(scheduler):
    import pandas as pd

    from skilib.studies import sweep

    with pytest.raises(ValueError, match="scheduler"):
        sweep(lambda row: 1.0, pd.DataFrame({"a": [1.0]}), scheduler=scheduler, progress=False)


def test_sweep_skier_refuses_to_replace_its_output(tmp_path):
    """sweep_skier passes overwrite= on: an existing file is kept unless asked, before any run."""
    import pandas as pd

    from skilib.studies import sweep_skier

    out = tmp_path / "runs.parquet"
    out.write_bytes(b"not yours to replace")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        sweep_skier(pd.DataFrame({"mass": [75.0]}), strokes=1, scheduler="serial", output=out, progress=False)
    assert out.read_bytes() == b"not yours to replace"


@pytest.mark.parametrize("outputs, strokes, what", [
    (["mean_speed", "nope"], "steady", "not columns"), ("mean_speed", "steady", "sequence of column names"),
    ([], "steady", "distinct"), (["u0", "u0"], "steady", "distinct"), (["u0"], 2, "not columns"),
])
def test_sweep_skier_names_outputs_it_does_not_have(outputs, strokes, what, monkeypatch):
    """sweep_skier's outputs= must name distinct columns of the run's summary (``u0`` only for
    a steady run): a ValueError naming outputs, before any run."""
    import pandas as pd

    import skilib.studies.skier_sweep as skier_sweep
    from skilib.studies import sweep_skier

    monkeypatch.setattr(skier_sweep, "run_summary", lambda *a, **k: pytest.fail("a run started"))
    with pytest.raises(ValueError, match=f"outputs: .*{what}"):
        sweep_skier(pd.DataFrame({"mass": [75.0]}), strokes=strokes, outputs=outputs, scheduler="serial",
                    progress=False)


NAMED_DIRECTLY = [  # options built directly, fixed-point arguments, an absurd field value
    *[(lambda v=v: __import__("skilib").Integrator(rtol=v), "rtol") for v in (NAN, INF, -1.0, 0.0, "1e-8", None, True)],
    *[(lambda v=v: __import__("skilib").Integrator(atol=v), "atol") for v in (NAN, -1.0, 0.0, "1", None)],
    *[(lambda v=v: __import__("skilib").Integrator(max_step=v), "max_step") for v in (NAN, -1.0, 0.0, "1", None)],
    (lambda: __import__("skilib").Integrator(method="Euler"), "method"),
    *[(lambda v=v: __import__("skilib").Stabilization(alpha=v), "alpha") for v in (NAN, INF, -1.0, "1", None)],
    *[(lambda v=v: __import__("skilib").Stabilization(beta=v), "beta") for v in (NAN, INF, "1", None)],
    *[(lambda v=v: __import__("skilib").Stabilization(projection_tol=v), "projection_tol")
      for v in (NAN, 0.0, -1.0, 1.0, "1e-12", None)],
    (lambda: __import__("skilib").Stabilization(kind="magic"), "kind"),
    *[(lambda v=v: __import__("skilib").steady_state(tol=v), "tol") for v in (1.0, 1e12, INF, NAN, 0.0)],
    *[(lambda v=v: __import__("skilib").free_steady_state(tol=v), "tol") for v in (1.0, 1e12, INF, NAN, 0.0)],
    (lambda: __import__("skilib").free_steady_state(u_guess=1e12), "u_guess"),
    (lambda: __import__("skilib").steady_state(u0_guess=-31.0), "u0_guess"),
    *[(lambda k=k: __import__("skilib").SkierParams(**{k: 1e12}), k) for k in ("lower_leg", "upper_leg", "phase_time")],
]


@pytest.mark.parametrize("k", range(len(NAMED_DIRECTLY)))
def test_named_directly(k):
    call, name = NAMED_DIRECTLY[k]
    with pytest.raises(ValueError) as err:
        call()
    assert str(err.value).startswith(name), f"case {k}: {err.value}"
    last = Path(traceback.extract_tb(err.tb)[-1].filename).resolve()
    assert PACKAGE in last.parents


def test_a_loose_but_sane_tolerance_still_converges():
    """The cap on tol (1 cm/s) refuses only meaningless tolerances: at 1e-3 m/s the free skater's
    steady state is found, within 1e-3 m/s of the tight one."""
    import skilib as sk

    loose, tight = sk.free_steady_state(tol=1e-3), sk.free_steady_state(multiplier=True)
    # |u − u0| = |Φ(u) − u| / (1 − L), L the stroke map's mean slope between u and u0: Φ′(u0) (by
    # the variational equations) to ½ |Φ″| |u − u0| ≈ 3e-3 s/m × 1e-5 m/s, a part in 1e7 of 1 − L
    slope = tight.multiplier
    assert loose.residual <= 1e-3 and 0 < slope < 1
    assert abs(loose.u0 - tight.u0) <= loose.residual / (1 - slope) * (1 + 1e-6)


@pytest.mark.parametrize("output, exc, match", [
    ("adir2/", IsADirectoryError, r"^adir2/: ends with '/', a folder; the sweep table needs a file name"),
    ("s.txt", ValueError, r"^output: s\.txt has the suffix '\.txt', but sweep writes Parquet only"),
    ("s", ValueError, r"^output: s has no suffix, but sweep writes Parquet only"),
])
def test_sweep_output_is_a_parquet_file_name(tmp_path, monkeypatch, output, exc, match):
    """A trailing "/" means a folder and any suffix but .parquet another format: both refused by
    name before any row runs, nothing written."""
    import pandas as pd

    from skilib.studies import sweep

    monkeypatch.chdir(tmp_path)
    with pytest.raises(exc, match=match) as err:
        sweep(lambda row: 1 / 0, pd.DataFrame({"a": [1.0]}), scheduler="serial", progress=False, output=output)
    assert type(err.value) is exc and list(tmp_path.iterdir()) == []


def _optimize(**kw):
    from skilib.studies.optimum import optimize_technique

    return optimize_technique(**{"model": "free", "power": 100.0, **kw})


def _required(**kw):
    from skilib.studies.optimum import required_power

    return required_power(**{"model": "free", "speed": 6.0, **kw})


def _collocate(**kw):
    from skilib.ocp import collocate_stroke

    return collocate_stroke(None, **kw)  # the ipopt dict is checked first: no adapter is built


def _control(**kw):
    from skilib.ocp.control import optimal_control

    return optimal_control("free", **kw)


ARGUMENTS = [  # (call, keywords, the message's start): each refused before anything runs
    (_optimize, dict(nodes=-5), r"^nodes: must be in \[4, 1000\], got -5"),
    (_optimize, dict(nodes=-5, method="collocation"), r"^nodes: must be in \[4, 1000\], got -5"),
    (_optimize, dict(nodes=10), r"^nodes: the collocation mesh's intervals; method='shooting' .* does not use it"),
    (_optimize, dict(nodes=2.5), r"^nodes: must be an integer, got 2\.5"),
    (_optimize, dict(method="collocation", maxiter=5), r"^maxiter: SLSQP's settings of method='shooting'"),
    (_optimize, dict(method="collocation", ftol=1e-6, power_tol=1e-6), r"^ftol, power_tol: SLSQP's settings"),
    (_optimize, dict(options={"bogus": 1}), r"^options: 'bogus' is not a keyword of the free model's steady state"),
    (_optimize, dict(options={"tol": NAN}), r"^options: tol must be a finite number, got nan"),
    (_optimize, dict(options={"strokes": 3}), r"^options: 'strokes' is not a keyword"),
    (_optimize, dict(model="edge", options={"multipliers": True}), r"^options: 'multipliers' is not a keyword of the edge"),
    (_optimize, dict(model="thesis", options={"rtol": INF}), r"^options: rtol must be a finite number, got inf"),
    (_required, dict(options={"bogus": 1}), r"^options: 'bogus' is not a keyword of the free model's steady state"),
    (_required, dict(options={"u_guess": NAN}), r"^options: u_guess must be a finite number"),
    (_collocate, dict(ipopt={"max_iter": -1}), r"^ipopt: max_iter: must be in \[0, inf\], got -1"),
    (_collocate, dict(ipopt={"max_iter": 2.5}), r"^ipopt: max_iter must be an integer, got 2\.5"),
    (_collocate, dict(ipopt={"tol": NAN}), r"^ipopt: tol: must be a number, got NaN"),
    (_collocate, dict(ipopt={"tol": -1.0}), r"^ipopt: tol: must be > 0, got -1"),
    (_collocate, dict(ipopt={"print_level": 13}), r"^ipopt: print_level: must be in \[0, 12\], got 13"),
    (_collocate, dict(ipopt={"sb": "maybe"}), r"^ipopt: sb must be one of \('yes', 'no'\), got 'maybe'"),
    (_collocate, dict(ipopt={"bogus": 1}), r"^ipopt: 'bogus' is not an IPOPT option skilib passes on; allowed: "),
    (_collocate, dict(ipopt=[("max_iter", 3)]), r"^ipopt: must be None or a dict of IPOPT options"),
    (_control, dict(ipopt={"max_iter": -1}), r"^ipopt: max_iter: must be in \[0, inf\], got -1"),
]


@pytest.mark.parametrize("call, kw, match", ARGUMENTS,
                         ids=[f"{c.__name__}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for c, kw, _ in ARGUMENTS])
def test_every_argument_is_checked_on_every_path(call, kw, match):
    with pytest.raises(ValueError, match=match) as err:
        call(**kw)
    assert type(err.value) is ValueError
    last = Path(traceback.extract_tb(err.tb)[-1].filename).resolve()
    assert PACKAGE in last.parents, f"raised from {last}, not from skilib"


def test_a_flag_of_the_edged_skaters_steady_state_is_a_bool():
    import skilib as sk

    with pytest.raises(ValueError, match=r"^multipliers: must be True or False, got 'no'"):
        sk.edge_steady_state(multipliers="no")


@pytest.mark.parametrize("power, match", [
    (1e-6, r"^power: 1e-06 W \(net budget\) is not reached by the free model within the bounds .*: every start "
           r"ended at a technique the model cannot run; the \d+ steady states computed within the bounds reach "
           r"[\d.]+ to [\d.]+ W \(net budget\)"),
    (1e9, r"^power: 1e\+09 W \(net budget\) is not reached by the free model within the bounds .*; the closest start "
          r"reached .* W with .* at its (upper|lower) bound"),
])
def test_a_power_no_technique_reaches_is_refused_with_the_reason(power, match):
    """Not a penalty point (speed 0, power NaN) nor the closest point as a result: the budget is
    named, with the powers the model reached and the bound the closest start presses on."""
    from skilib.studies.optimum import Unreachable

    with pytest.raises(Unreachable, match=match) as err:
        _optimize(power=power, starts=1, maxiter=5)  # five SLSQP iterations take the start to its bounds
    # a study asking for many budgets catches this one kind and records "no technique" for it
    assert isinstance(err.value, ValueError) and (err.value.parameter, err.value.value) == ("power", power)


def test_every_start_ending_where_the_model_cannot_run_gives_the_nearest_runnable_point(monkeypatch):
    """A budget inside the powers the model reached, but every start ended at a technique the
    model cannot run (the penalty): the result is infeasible, its technique the runnable point
    the starts evaluated nearest the budget (never the penalty), and its reason says so."""
    import pandas as pd

    from skilib.studies import optimum as om

    names = ("stroke_time",)
    table = pd.DataFrame([dict(status="ok", mean_power=np.nan, optimized_speed=0.0, violation=1.0, end_stroke_time=0.5,
                               progress_speed=0.0, cm_speed=0.0, peak_leg_force_bw=np.nan, budget_power=np.nan)])
    ev = pd.DataFrame([dict(stroke_time=t, status="ok", optimized_speed=v, progress_speed=v, cm_speed=v + 0.1, mean_power=P,
                            budget_power=P, peak_leg_force_bw=1.2) for t, v, P in ((0.6, 4.0, 150.0), (0.8, 3.0, 90.0))]
                      + [dict(stroke_time=0.5, status="error", optimized_speed=0.0, mean_power=np.nan, budget_power=np.nan)])
    monkeypatch.setattr(om, "_run_starts", lambda *a, **k: (names, {"stroke_time": (0.4, 2.0)}, table, ev))
    o = om.optimize_technique("free", power=100.0, bounds={"stroke_time": (0.4, 2.0)}, starts=1)
    assert not o.feasible and o.x == {"stroke_time": 0.8} and o.budget_power == 90.0 and o.optimized_speed == 3.0
    assert o.reason.startswith("every start ended at a technique the model cannot run, although 100 W lies within")
    assert "nearest the budget reaches 90 W" in o.reason
