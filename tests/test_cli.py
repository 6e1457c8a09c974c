"""The ``skilib`` command (``skilib.cli``): its numbers are the library's, its files read back,
it refuses what it should with exit status 2 (1 for a model failure), and its help gives units.

The commands run in-process through ``main([...])``; ``python -m skilib`` once in a subprocess.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import skilib as sk
from skilib.cli import UsageError, main, param_infos, parse_number

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def free_steady():
    return sk.free_steady_state()


# -- steady -------------------------------------------------------------------------------------
def test_steady_free_prints_the_library_steady_state(capsys, free_steady):
    assert main(["steady", "--model", "free", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""  # no terminal: no progress bar
    doc = json.loads(out)
    r = doc["results"]
    assert (doc["model"], doc["parameters"]) == ("free", {})
    assert r["cm_speed"] == free_steady.mean_speed  # full precision, not rounded; the stroke's mean CM speed
    assert "mean_speed" not in r  # one name, one meaning: cm_speed and progress_speed
    assert r["progress_speed"] == free_steady.progress_speed
    assert r["mean_power"] == free_steady.mean_power
    assert r["u0"] == free_steady.u0
    assert r["peak_leg_force_bw"] == free_steady.peak_leg_force_bw
    assert r["stroke_time"] == sk.FreeSkaterParams().stroke_time
    assert doc["units"]["cm_speed"] == "m/s" and doc["units"]["mean_power"] == "W"
    assert r["mean_leg_power"] == free_steady.mean_leg_power == free_steady.mean_power  # no poles: the leg's
    assert r["multiplier"] == sk.free_steady_state(multiplier=True).multiplier  # its stability, the library's
    # the human table shows the same numbers
    assert main(["steady", "--model", "free"]) == 0
    table = capsys.readouterr().out
    assert re.search(rf"^cm_speed\s+{re.escape(f'{free_steady.mean_speed:.6g}')}\s+m/s", table, re.M)
    assert re.search(rf"^mean_power\s+{re.escape(f'{free_steady.mean_power:.6g}')}\s+W", table, re.M)


def test_steady_edge_prints_the_library_steady_state(capsys):
    """``--model edge``: the edged skater's periodic stroke, the library's numbers to the last
    bit, and the assumptions that change it in the JSON (its air drag is on by default)."""
    ss = sk.edge_steady_state()
    assert main(["steady", "--model", "edge", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    r = doc["results"]
    assert (r["cm_speed"], r["progress_speed"], r["mean_power"], r["u0"]) == (
        ss.mean_speed, ss.progress_speed, ss.mean_power, ss.u0)
    assert (r["metabolic_power"], r["metabolic_total"], r["peak_leg_force_bw"]) == (
        ss.metabolic_power, ss.metabolic_total, ss.peak_leg_force_bw)
    assert r["largest_multiplier"] == float(np.abs(ss.multipliers).max())
    p = sk.EdgeSkaterParams()
    assert doc["assumptions"] == {"air_drag": True, "air_density": p.air_density, "cda": p.cda,
                                  "friction_coefficient": p.friction_coefficient, "slope_deg": 0.0,
                                  "pole_force_max": 0.0}
    assert "leg, fore–aft, heading" in doc["power_counts"]
    assert doc["units"]["metabolic_total"] == "W"


def test_steady_says_the_thesis_skier_has_no_air_drag(capsys):
    """The thesis's skier skates without air drag (its choice, about 71 W at 6 m/s): the answer
    says so, in JSON and in the table."""
    assert main(["steady", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["assumptions"] == {"air_drag": False, "friction": sk.SkierParams().friction, "slope_deg": 0.0}
    assert main(["steady", "--param", "air_drag=true"]) == 0
    head = capsys.readouterr().out.split("\n\n")[0]
    assert "air drag on (ρ = 1.2 kg/m³, C_dA = 0.55 m²)" in head and "friction 5.305 N (constant)" in head


def test_steady_param_and_csv_out(tmp_path, capsys):
    out = tmp_path / "steady.csv"
    assert main(["steady", "--model", "free", "--param", "body_mass=70", "--format", "csv", "--out", str(out)]) == 0
    assert capsys.readouterr().out == ""
    got = pd.read_csv(out, index_col="quantity")
    ss = sk.free_steady_state(sk.FreeSkaterParams(body_mass=70.0))
    assert float(got.loc["cm_speed", "value"]) == ss.mean_speed
    assert got.loc["mean_power", "unit"] == "W"
    before = out.read_bytes()
    assert main(["steady", "--model", "free", "--out", str(out)]) == 2  # exists, no --overwrite
    assert out.read_bytes() == before
    assert "--overwrite" in capsys.readouterr().err
    assert not list(tmp_path.glob(".*tmp*"))  # no temporary file left


def test_list_params_are_the_dataclass_fields(capsys):
    for model, cls in (("thesis", sk.SkierParams), ("free", sk.FreeSkaterParams), ("edge", sk.EdgeSkaterParams)):
        assert main(["steady", "--list-params", "--model", model, "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert list(doc["results"]) == [f.name for f in fields(cls)]
        defaults = {f.name: f.default for f in fields(cls)}
        assert doc["results"]["g"] == defaults["g"]


def test_every_number_parameter_has_a_unit():
    units = {m: {p.name: p for p in param_infos(m)} for m in ("thesis", "free", "edge")}
    for m, infos in units.items():
        assert [p for p in infos.values() if p.kind.endswith(("number", "numbers")) and not p.unit] == [], m
    th, fr = units["thesis"], units["free"]
    assert (th["mass"].unit, th["lower_leg"].unit, th["upper_leg"].unit, th["friction"].unit) == ("kg", "m", "m", "N")
    assert (th["c_ext"].unit, th["c_rot_deg"].unit, th["phase_time"].unit, th["g"].unit) == ("m/s", "deg/s", "s", "m/s²")
    assert (fr["body_mass"].unit, fr["offset_start"].unit, fr["cm_dip"].unit, fr["air_density"].unit) == (
        "kg", "m", "m", "kg/m³")
    assert (fr["skating_angle_deg"].unit, fr["cda"].unit, fr["body_inertia"].unit) == ("deg", "m²", "kg m²")
    assert th["gravity"].kind == "switch" and th["push_direction"].choices == ("travel", "ski", "across")
    ed = units["edge"]
    assert (ed["landing_offset"].unit, ed["leg_extension"].unit, ed["g"].unit, ed["max_lean_deg"].unit) == (
        "m", "m", "m/s²", "deg")


# -- refused input ------------------------------------------------------------------------------
@pytest.mark.parametrize("item, name", [("mass=-1", "mass"), ("mass=1_000", "mass"), ("nosuch=1", "nosuch"),
                                        ("mass=nan", "mass"), ("mass=inf", "mass"), ("gravity=2", "gravity"),
                                        ("mas=70", "mass"), ("mass", "NAME=VALUE")])
def test_bad_param_is_exit_2_naming_it(item, name, capsys):
    assert main(["steady", "--param", item]) == 2
    err = capsys.readouterr().err
    assert name in err and "Traceback" not in err


def test_parse_number_is_strict():
    assert [parse_number(t, "x") for t in ("75", "-0.5", "1e-3", ".5", "+2.")] == [75.0, -0.5, 1e-3, 0.5, 2.0]
    for t in ("1_000", "nan", "inf", "-Infinity", "0x10", "1e999", "", "75kg"):
        with pytest.raises(UsageError, match="^x: "):
            parse_number(t, "x")


@pytest.mark.parametrize("argv", [["--power", "200", "--speed", "6"], ["--speed", "0"], ["--speed", "-1"],
                                  ["--speed", "nan"], ["--speed", "inf"], ["--power", "1_000"], [],
                                  ["--power", "200", "--starts", "0"], ["--power", "200", "--model", "other"]])
def test_optimum_arguments(argv, capsys):
    assert main(["optimum", *argv]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_model_failure_is_exit_1(monkeypatch, capsys):
    import skilib.models.free.steady as free_steady

    def fails(*args, **kwargs):
        raise sk.NoSteadyState("free_steady_state: no periodic stroke")

    monkeypatch.setattr(free_steady, "free_steady_state", fails)
    assert main(["steady", "--model", "free"]) == 1
    err = capsys.readouterr().err
    assert "no periodic stroke" in err and "Traceback" not in err


# -- run ----------------------------------------------------------------------------------------
def test_run_writes_c3d_and_csv_of_the_library_run(tmp_path, capsys):
    out, csv = tmp_path / "run.c3d", tmp_path / "strokes.csv"
    assert main(["run", "--strokes", "2", "--out", str(out), "--csv", str(csv), "--progress"]) == 0
    assert "2/2" in capsys.readouterr().err  # the progress bar, asked for
    res = sk.simulate_run(strokes=2)
    back = sk.read_run(out)
    f = res.frame.iloc[sk.models.thesis.markers.stroke_rows(res.frame)]
    cm = f[["cm_x", "cm_y", "cm_z"]].to_numpy()
    np.testing.assert_allclose(back.t, f["t"], atol=1e-12)
    # written in mm as float32
    np.testing.assert_allclose(back.markers["CM"], cm, rtol=0, atol=np.finfo(np.float32).eps * np.abs(cm).max())
    assert back.skier_params() == res.params
    strokes = pd.read_csv(csv)
    pd.testing.assert_frame_equal(strokes, res.strokes, check_exact=True, check_dtype=False)


def test_run_reduced_writes_the_library_s_run_by_quadrature(tmp_path, capsys):
    """``--reduced`` is ``simulate_run(reduced=True)``: the same strokes table, exactly; refused for
    the edged skater and, with air drag on, by name."""
    out, csv = tmp_path / "run.c3d", tmp_path / "strokes.csv"
    assert main(["run", "--strokes", "2", "--out", str(out), "--csv", str(csv), "--reduced"]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(csv), sk.simulate_run(strokes=2, reduced=True).strokes,
                                  check_exact=True, check_dtype=False)
    assert main(["run", "--model", "edge", "--strokes", "2", "--reduced"]) == 2
    assert "--reduced" in capsys.readouterr().err
    assert main(["run", "--strokes", "2", "--out", str(tmp_path / "d.c3d"), "--reduced",
                 "--param", "air_drag=true"]) == 2
    assert "reduced" in capsys.readouterr().err


def test_run_refuses_existing_outputs_before_computing(tmp_path, monkeypatch, capsys):
    import skilib.models.thesis.run as thesis_run

    def never(*args, **kwargs):
        raise AssertionError("computed")

    monkeypatch.setattr(thesis_run, "options_of", never)
    out, csv = tmp_path / "run.c3d", tmp_path / "strokes.csv"
    out.write_bytes(b"not to be replaced")
    assert main(["run", "--strokes", "2", "--out", str(out)]) == 2
    assert out.read_bytes() == b"not to be replaced"
    assert "--overwrite" in capsys.readouterr().err
    csv.write_text("kept")
    assert main(["run", "--strokes", "2", "--out", str(tmp_path / "new.c3d"), "--csv", str(csv)]) == 2
    assert csv.read_text() == "kept" and not (tmp_path / "new.c3d").exists()
    assert main(["run", "--strokes", "2", "--out", str(tmp_path / "no" / "run.c3d")]) == 2
    assert main(["run", "--strokes", "2", "--out", str(tmp_path / "x.c3d"), "--param", "mass=-1"]) == 2


# -- help ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [[], ["steady"], ["optimum"], ["technique"], ["run"]])
def test_help_lists_parameters_with_units(command, capsys):
    assert main([*command, "--help"]) == 0
    out = capsys.readouterr().out
    for unit in ("kg", "m/s", "deg"):
        assert unit in out, (command, unit)
    assert re.search(r"\bW\b", out), command
    assert "mass" in out


def test_python_m_skilib(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    p = subprocess.run([sys.executable, "-m", "skilib", "--help"], capture_output=True, text=True, env=env,
                       cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "steady" in p.stdout and "optimum" in p.stdout and "run" in p.stdout
    p = subprocess.run([sys.executable, "-m", "skilib", "steady", "--param", "mass=-1"], capture_output=True,
                       text=True, env=env, cwd=tmp_path)
    assert p.returncode == 2 and "mass" in p.stderr and "Traceback" not in p.stderr


# -- progress bars ------------------------------------------------------------------------------
def test_periodic_stroke_progress_bar(capsys, free_steady):
    from skilib.models.free.run import FreeSkating, free_options_of
    from skilib.strokes.periodic import periodic_stroke

    skating = FreeSkating(free_options_of(sk.FreeSkaterParams(), {}))
    found = periodic_stroke(skating, skating.settings(), u_guess=3.0, tol=1e-10, max_iter=30, max_speed=30.0,
                            who="free_steady_state", progress=True)
    err = capsys.readouterr().err
    assert "free_steady_state" in err and "Φ(u) − u" in err
    assert found.u0 == free_steady.u0  # the bar changes nothing
    skating = FreeSkating(free_options_of(sk.FreeSkaterParams(), {}))
    periodic_stroke(skating, skating.settings(), u_guess=3.0, tol=1e-10, max_iter=30, max_speed=30.0,
                    who="free_steady_state")
    assert capsys.readouterr().err == ""  # off by default


# -- optimum: the command's wiring (the optimisation itself is tested in test_optimum.py) --------
def _fake_optimum(calls, **target):
    from types import SimpleNamespace

    def fake(model, value, **kwargs):
        calls.append((model, value, kwargs))
        return SimpleNamespace(mean_power=123.25, mean_leg_power=123.25, progress_speed=4.5, cm_speed=4.6,
                               peak_leg_force_bw=1.25, feasible=True, speed="progress", budget=kwargs["budget"],
                               budget_power=123.25, x={"stroke_time": 0.75}, bounds={"stroke_time": (0.4, 2.0)},
                               at_bound={}, warnings=[], force_velocity_margin=0.25)
    return fake


@pytest.mark.parametrize("option, function", [("--power", "optimize_technique"), ("--speed", "required_power")])
def test_optimum_passes_its_arguments(option, function, monkeypatch, capsys):
    import skilib.studies.optimum as optimum

    calls = []
    monkeypatch.setattr(optimum, function, _fake_optimum(calls), raising=False)
    argv = ["optimum", option, "6.5", "--seed", "3", "--starts", "2", "--param", "body_mass=70", "--format", "json"]
    assert main(argv) == 0
    (model, value, kwargs), = calls
    assert (model, value, kwargs["seed"], kwargs["budget"], kwargs["method"]) == ("free", 6.5, 3, "net", "auto")
    assert kwargs.get("starts", 2) == 2 and kwargs.get("params", sk.FreeSkaterParams(body_mass=70.0)).body_mass == 70.0
    doc = json.loads(capsys.readouterr().out)
    assert doc["results"]["mean_power"] == 123.25 and doc["results"]["stroke_time"] == 0.75
    assert doc["units"]["stroke_time"] == "s" and doc[option[2:]] == 6.5
    assert doc["budget"] == "net" and doc["at_bound"] == {} and doc["warnings"] == []
    assert doc["method"].startswith("collocation (auto: ")
    assert main(argv + ["--budget", "physiological", "--model", "edge"]) == 0
    assert calls[-1][0] == "edge" and calls[-1][2]["budget"] == "physiological"
    assert isinstance(calls[-1][2]["params"], sk.EdgeSkaterParams)
    assert "swinging the legs" in json.loads(capsys.readouterr().out)["power_counts"]


def test_optimum_passes_each_limbs_limit(monkeypatch, capsys):
    """--force-velocity (the leg) and --arm-force-velocity (each arm on its pole) reach the optimizer
    as one limit or a tuple of two, each with its limb, and the answer's meta echoes them."""
    import skilib.studies.optimum as optimum
    from skilib.physiology import ForceVelocityLimit

    calls = []
    monkeypatch.setattr(optimum, "optimize_technique", _fake_optimum(calls), raising=False)
    argv = ["optimum", "--power", "300", "--format", "json", "--arm-force-velocity", "0.5,3"]
    assert main(argv) == 0
    assert calls[-1][2]["force_velocity"] == ForceVelocityLimit(0.5, 3.0, limb="arms")
    doc = json.loads(capsys.readouterr().out)
    assert doc["arm_force_velocity"] == {"force_iso_bw": 0.5, "speed_max": 3.0, "curvature": 0.0}
    assert doc["force_velocity"] is None and doc["results"]["force_velocity_margin"] == 0.25
    assert main(argv + ["--force-velocity", "2,3,4"]) == 0
    assert calls[-1][2]["force_velocity"] == (ForceVelocityLimit(2.0, 3.0, 4.0), ForceVelocityLimit(0.5, 3.0, limb="arms"))
    capsys.readouterr()
    assert main(argv + ["--method", "collocation"]) == 0
    assert calls[-1][2]["method"] == "collocation" and json.loads(capsys.readouterr().out)["method"] == "collocation"
    assert main(["optimum", "--power", "300", "--arm-force-velocity", "5,3"]) == 2
    assert "--arm-force-velocity: force_iso_bw: must be in [0.1, 3] body weights" in capsys.readouterr().err


def test_optimum_speed_answers_the_coaches_question(capsys):
    """`skilib optimum --speed 3 --method shooting`: the least power for 3 m/s, end to end. The
    technique it prints, put back into the free skater's own steady state, skates at 3 m/s for the
    power printed (the shooting method's own steady state: to its secant's tolerance)."""
    assert main(["optimum", "--speed", "3", "--starts", "1", "--method", "shooting", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    r = doc["results"]
    assert r["feasible"] is True and doc["speed"] == 3.0 and doc["method"] == "shooting"
    assert abs(r["progress_speed"] - 3.0) <= 1e-7 * 3.0
    from skilib.studies.optimum import FREE_BOUNDS

    technique = {n: r[n] for n in FREE_BOUNDS}
    ss = sk.free_steady_state(sk.FreeSkaterParams(**technique))
    assert abs(ss.progress_speed - r["progress_speed"]) <= 1e-9 * 3.0
    assert abs(ss.mean_power - r["mean_power"]) <= 1e-9 * r["mean_power"]
    assert abs(ss.peak_leg_force_bw - r["peak_leg_force_bw"]) <= 1e-9
    # every parameter within 1 % of its range from a bound is marked, and no other
    near = {n: "lower" if v - lo <= 0.01 * (hi - lo) else "upper" for n, (lo, hi) in FREE_BOUNDS.items()
            for v in [r[n]] if min(v - lo, hi - v) <= 0.01 * (hi - lo)}
    assert doc["at_bound"] == near and near  # the free skater's optimum presses on its bounds
    assert doc["assumptions"]["air_drag"] is True and doc["budget"] == "net"


@pytest.mark.slow  # 40 s of shooting end to end: `make check` (the command's arguments and refusals stay in `make test`)
def test_technique_answers_with_the_least_whole_cost_at_the_speed(capsys):
    """`skilib technique --speed 5 --method shooting`: the free skater's technique of least whole cost at 5 m/s on
    the flat, end to end. It holds the speed; its cycle rate is 1/(2T); its cost is the sum of
    its terms; put back into the free skater's own steady state (from the speed asked, as the
    study's row recomputes it), the technique skates at 5 m/s for that cost; every result has a
    unit, and the bounds it presses on are named."""
    assert main(["technique", "--speed", "5", "--method", "shooting", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    r = doc["results"]
    assert r["feasible"] is True and doc["speed"] == 5.0 and doc["budget"] == "physiological"
    assert abs(r["progress_speed"] - 5.0) <= 1e-7 * 5.0
    assert abs(2.0 * r["stroke_time"] * r["cycle_rate"] - 1.0) <= 1e-15
    terms = sum(r[f"metabolic_{t}"] for t in ("work", "swing", "force_rate", "rest"))
    assert abs(terms - r["metabolic_total"]) <= 1e-12 * terms and r["budget_power"] == r["metabolic_total"]
    from skilib.studies.optimum import FREE_BOUNDS

    ss = sk.free_steady_state(sk.FreeSkaterParams(**{n: r[n] for n in FREE_BOUNDS}), u_guess=5.0)
    assert abs(ss.progress_speed - r["progress_speed"]) <= 1e-9 * 5.0
    assert abs(ss.metabolic_total - r["metabolic_total"]) <= 1e-9 * r["metabolic_total"]
    assert set(doc["units"]) == set(r) and doc["units"]["cycle_rate"] == "Hz"
    assert "offset_end (upper)" in r["at_bound"] and doc["at_bound"] == r["at_bound"]


def test_auto_takes_collocation_where_the_question_allows_it(monkeypatch):
    """``method="auto"`` (the command line's default): collocation for the free and edged
    skaters' progress speed with CasADi installed; shooting for the thesis's skier, the CM
    speed, any setting of the shooting method, a question with neither a budget nor a speed, or
    without CasADi, each with its reason; ``optimize_technique(power=None, method="auto")`` runs
    (shooting: the fastest without a budget)."""
    from skilib.studies import optimum

    assert optimum.resolve_method("free")[0] == optimum.resolve_method("edge")[0] == "collocation"
    for args, kw, why in ((("thesis",), {}, "not transcribed"), (("free", "cm"), {}, "progress speed"),
                          (("edge",), {"options": {"rtol": 1e-9}}, "shooting method"),
                          (("free",), {"scheduler": "dask"}, "shooting method"),
                          (("free",), {"shooting_settings": True}, "shooting method"),
                          (("edge",), {"budgeted": False}, "power budget")):
        method, reason = optimum.resolve_method(*args, **kw)
        assert method == "shooting" and why in reason

    # the fastest technique without a budget has no collocated program: auto runs shooting
    with pytest.raises(ValueError, match="^power: collocation needs a power budget"):
        optimum.optimize_technique("free", None, method="collocation")
    calls = []

    def spy(*args, **kw):  # the shooting method's starts: record and stop before any steady state
        calls.append(kw.get("who"))
        raise RuntimeError("stop here")

    monkeypatch.setattr(optimum, "_run_starts", spy)
    with pytest.raises(RuntimeError, match="stop here"):
        optimum.optimize_technique("free", None, method="auto")
    assert calls == ["optimize_technique"]

    import skilib.engine.codegen.casadi_terms as terms

    def missing():
        raise ImportError("no casadi")

    monkeypatch.setattr(terms, "require_casadi", missing)
    assert optimum.resolve_method("free") == ("shooting", "CasADi (pip install 'skilib[ocp]') is not installed")


def test_optimum_by_default_answers_by_collocation_checked_by_the_simulator(capsys):
    """`skilib optimum --speed 3 --starts 1` with the default method (auto): collocation, seconds
    where shooting takes a minute; its answer is the model's own simulator's, and the technique
    printed, put back into the free skater's periodic stroke, skates at 3 m/s for the power
    printed to the collocation's re-simulation tolerance, 1e-4 relative, the guarantee a collocated
    answer carries (measured 1.9e-9 m/s and 4.2e-8 W: the 20-interval mesh's truncation is far
    smaller here)."""
    assert main(["optimum", "--speed", "3", "--starts", "1", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    r = doc["results"]
    assert doc["method"].startswith("collocation (auto: ") and r["feasible"] is True
    from skilib.studies.optimum import FREE_BOUNDS

    ss = sk.free_steady_state(sk.FreeSkaterParams(**{n: r[n] for n in FREE_BOUNDS}), u_guess=3.0)
    assert abs(ss.progress_speed - 3.0) <= 1e-4 * 3.0
    assert abs(ss.mean_power - r["mean_power"]) <= 1e-4 * r["mean_power"]
    assert abs(ss.mean_leg_power - r["mean_leg_power"]) <= 1e-4 * r["mean_power"]


@pytest.mark.parametrize("argv, says", [
    (["--speed", "4", "--slope-percent", "200"], "--slope-percent: must be within ±100 %"),
    (["--speed", "4", "--slope-percent", "nan"], "--slope-percent"),
    (["--speed", "4", "--param", "slope_deg=2"], "--param slope_deg: the course's gradient is --slope-percent"),
    (["--speed", "4", "--switch-off", "legs"], "--switch-off: invalid choice: 'legs'"),
    (["--speed", "4", "--model", "thesis"], "--model: invalid choice: 'thesis'"),
    (["--slope-percent", "2"], "--speed"),
    (["--speed", "0"], "--speed: must be > 0 m/s"),
])
def test_technique_arguments_are_refused_by_name(argv, says, capsys):
    assert main(["technique", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


@pytest.mark.check
def test_optimum_edge_answers_with_the_edged_skaters_own_steady_state(capsys):
    """`skilib optimum --model edge --power 150 --starts 1 --method shooting`: the fastest technique of the edged
    skater for 150 W of its drivers, end to end (about 80 s of one core, so under make check).
    The technique printed, put back into the edged skater's own steady state, skates at the
    speed printed for the power printed, and every parameter it lists at a bound is within 1 %
    of its range from that bound."""
    from skilib.studies.optimum import EDGE_BOUNDS

    assert main(["optimum", "--model", "edge", "--power", "150", "--starts", "1", "--method", "shooting",
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    r = doc["results"]
    assert r["feasible"] is True and doc["budget"] == "net" and doc["assumptions"]["air_drag"] is True
    # feasible means the budget row met to power_tol = 1e-8 relative (measured 3.6e-8 W of 1.5e-6 W)
    assert abs(r["mean_power"] - 150.0) <= 1e-8 * 150.0
    ss = sk.edge_steady_state(sk.EdgeSkaterParams(**{n: r[n] for n in EDGE_BOUNDS}))
    # the same fixed point searched from another guess: both end within |Φ(x) − x| ≤ 1e-10, so
    # speed and power agree to about that times the stroke's sensitivity (measured 1.2e-11 m/s
    # and 3.1e-11 W); 1e-9 keeps a margin of 80
    assert abs(ss.progress_speed - r["progress_speed"]) <= 1e-9
    assert abs(ss.mean_power - r["mean_power"]) <= 1e-9 * 150.0
    near = {n: "lower" if v - lo <= 0.01 * (hi - lo) else "upper" for n, (lo, hi) in EDGE_BOUNDS.items()
            for v in [r[n]] if min(v - lo, hi - v) <= 0.01 * (hi - lo)}
    assert doc["at_bound"] == near


@pytest.mark.check
def test_the_edged_skaters_coach_question_by_default_is_collocated_and_checked(capsys):
    """`skilib optimum --model edge --speed 5 --starts 1` with the default method: collocation
    (about 25 s; shooting takes minutes). The technique printed, put back into the edged
    skater's own periodic stroke, skates at 5 m/s for the power printed, its leg's power too, to
    the collocation's re-simulation tolerance, 1e-4 relative (measured 5e-7 m/s, 4e-8 and 1e-6 W).
    The optimum presses on the leg's reach: the collocation holds it at the mesh's points, and the
    periodic stroke's leg, sampled on its output grid, reaches 1.3e-7 m past max_leg_length (a
    re-simulation error of the same order), within 1e-4 of the 1.05 m; the admissibility check
    of the periodic stroke names that excess."""
    assert main(["optimum", "--model", "edge", "--speed", "5", "--starts", "1", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    r = doc["results"]
    assert doc["method"].startswith("collocation (auto: ") and r["feasible"] is True
    from skilib.studies.optimum import EDGE_BOUNDS

    p = sk.EdgeSkaterParams(**{n: r[n] for n in EDGE_BOUNDS})
    ss = sk.edge_steady_state(p, multipliers=False, check=False)
    assert abs(ss.progress_speed - 5.0) <= 1e-4 * 5.0
    assert abs(ss.mean_power - r["mean_power"]) <= 1e-4 * r["mean_power"]
    assert abs(ss.mean_leg_power - r["mean_leg_power"]) <= 1e-4 * r["mean_power"]
    assert ss.max_leg_length - p.max_leg_length <= 1e-4 * p.max_leg_length


def test_a_collocated_optimum_passes_a_margin_only_within_the_collocations_tolerance():
    """A study's row of a collocated optimum (``choose_technique``) takes its periodic stroke's
    margins as they are within the collocation's tolerance, and refuses one beyond it by name."""
    from skilib.studies.technique_choice import COLLOCATED_MARGIN_TOL, NotAdmissible, _margins_within

    _margins_within({"reach_margin": -1.8e-8, "lean_margin": 0.5}, COLLOCATED_MARGIN_TOL, 40)
    with pytest.raises(NotAdmissible, match=r"tolerance 0\.0001 on 160 intervals: reach_margin -0\.0002$"):
        _margins_within({"reach_margin": -2e-4, "lean_margin": 0.5}, COLLOCATED_MARGIN_TOL, 160)


@pytest.mark.check
def test_the_edged_skaters_technique_by_default_names_the_reach_that_binds(capsys):
    """`skilib technique --model edge --speed 4.5` with the default method (collocation, about
    35 s): the least whole cost at 4.5 m/s presses on the leg's reach, whose margin the row
    reports (measured −1.8e-8 m: the periodic stroke on its output grid passes the reach the
    collocation holds at its mesh's points by its re-simulation error) and names as binding."""
    assert main(["technique", "--model", "edge", "--speed", "4.5", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    r = doc["results"]
    assert doc["method"].startswith("collocation (auto: ") and r["feasible"] is True
    assert abs(r["progress_speed"] - 4.5) <= 1e-4 * 4.5
    assert abs(r["reach_margin"]) <= 1e-4 and "reach_margin" in r["binding"]
    assert min(r[k] for k in ("leg_force_margin", "snow_load_margin", "lean_margin")) > 0.1


def _documented_commands():
    """Every `.venv/bin/skilib ...` line of the README and the book's page "Using this
    compendium", as (source, argv): the commands a reader copies."""
    out = []
    for src in (ROOT / "README.md", ROOT / "book" / "using.md"):
        for line in src.read_text(encoding="utf-8").splitlines():
            if line.startswith(".venv/bin/skilib "):
                out.append((src.name, line.split("#")[0].split()[1:]))
    return out


DOCUMENTED = _documented_commands()


def _run_documented(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    assert main(argv) == 0, capsys.readouterr().err
    again = argv + ["--overwrite"] if "--out" in argv else argv + ["--format", "json"]
    assert main(again) == 0, capsys.readouterr().err


@pytest.mark.parametrize("src, argv", [d for d in DOCUMENTED if d[1][0] not in ("optimum", "technique")],
                         ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_every_documented_command_runs_as_written(src, argv, tmp_path, monkeypatch, capsys):
    """The README's and the usage page's commands, as written (the optimum's, which take a
    minute or more each, under make check): exit 0, and again with JSON output (or, where the
    command writes a file, over it with --overwrite)."""
    _run_documented(argv, tmp_path, monkeypatch, capsys)


@pytest.mark.check
@pytest.mark.parametrize("src, argv", [d for d in DOCUMENTED if d[1][0] in ("optimum", "technique")],
                         ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_every_documented_optimum_runs_as_written(src, argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    assert main(argv) == 0, capsys.readouterr().err
    if "--out" in argv:  # CSV: the numbers, the technique among them
        assert "stroke_time," in (tmp_path / argv[argv.index("--out") + 1]).read_text(encoding="utf-8")
    else:
        assert "at_bound:" in capsys.readouterr().out


def test_the_documented_commands_cover_every_model():
    assert len(DOCUMENTED) >= 8
    models = {a[a.index("--model") + 1] if "--model" in a else {"steady": "thesis", "run": "thesis",
                                                                   "optimum": "free", "technique": "free"}[a[0]]
              for _, a in DOCUMENTED}
    assert models == {"thesis", "free", "edge"}
