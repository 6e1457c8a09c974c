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
    assert r["mean_speed"] == free_steady.mean_speed  # full precision, not rounded
    assert r["progress_speed"] == free_steady.progress_speed
    assert r["mean_power"] == free_steady.mean_power
    assert r["u0"] == free_steady.u0
    assert r["peak_leg_force_bw"] == free_steady.peak_leg_force_bw
    assert r["stroke_time"] == sk.FreeSkaterParams().stroke_time
    assert doc["units"]["mean_speed"] == "m/s" and doc["units"]["mean_power"] == "W"
    # the human table shows the same numbers
    assert main(["steady", "--model", "free"]) == 0
    table = capsys.readouterr().out
    assert re.search(rf"^mean_speed\s+{re.escape(f'{free_steady.mean_speed:.6g}')}\s+m/s", table, re.M)
    assert re.search(rf"^mean_power\s+{re.escape(f'{free_steady.mean_power:.6g}')}\s+W", table, re.M)


def test_steady_param_and_csv_out(tmp_path, capsys):
    out = tmp_path / "steady.csv"
    assert main(["steady", "--model", "free", "--param", "body_mass=70", "--format", "csv", "--out", str(out)]) == 0
    assert capsys.readouterr().out == ""
    got = pd.read_csv(out, index_col="quantity")
    ss = sk.free_steady_state(sk.FreeSkaterParams(body_mass=70.0))
    assert float(got.loc["mean_speed", "value"]) == ss.mean_speed
    assert got.loc["mean_power", "unit"] == "W"
    before = out.read_bytes()
    assert main(["steady", "--model", "free", "--out", str(out)]) == 2  # exists, no --overwrite
    assert out.read_bytes() == before
    assert "--overwrite" in capsys.readouterr().err
    assert not list(tmp_path.glob(".*tmp*"))  # no temporary file left


def test_list_params_are_the_dataclass_fields(capsys):
    for model, cls in (("thesis", sk.SkierParams), ("free", sk.FreeSkaterParams)):
        assert main(["steady", "--list-params", "--model", model, "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert list(doc["results"]) == [f.name for f in fields(cls)]
        defaults = {f.name: f.default for f in fields(cls)}
        assert doc["results"]["g"] == defaults["g"]


def test_every_number_parameter_has_a_unit():
    units = {m: {p.name: p for p in param_infos(m)} for m in ("thesis", "free")}
    for m, infos in units.items():
        assert [p for p in infos.values() if p.kind.endswith(("number", "numbers")) and not p.unit] == [], m
    th, fr = units["thesis"], units["free"]
    assert (th["mass"].unit, th["lower_leg"].unit, th["upper_leg"].unit, th["friction"].unit) == ("kg", "m", "m", "N")
    assert (th["c_ext"].unit, th["c_rot_deg"].unit, th["phase_time"].unit, th["g"].unit) == ("m/s", "deg/s", "s", "m/s²")
    assert (fr["body_mass"].unit, fr["offset_start"].unit, fr["cm_dip"].unit, fr["air_density"].unit) == (
        "kg", "m", "m", "kg/m³")
    assert (fr["skating_angle_deg"].unit, fr["cda"].unit, fr["body_inertia"].unit) == ("deg", "m²", "kg m²")
    assert th["gravity"].kind == "switch" and th["push_direction"].choices == ("travel", "ski", "across")


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
@pytest.mark.parametrize("command", [[], ["steady"], ["optimum"], ["run"]])
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
        return SimpleNamespace(mean_speed=4.5, mean_power=123.25, progress_speed=4.5, cm_speed=4.6,
                               peak_leg_force_bw=1.25, feasible=True, speed="progress",
                               x={"stroke_time": 0.75}, bounds={"stroke_time": (0.4, 2.0)})
    return fake


@pytest.mark.parametrize("option, function", [("--power", "optimize_technique"), ("--speed", "required_power")])
def test_optimum_passes_its_arguments(option, function, monkeypatch, capsys):
    import skilib.studies.optimum as optimum

    calls = []
    monkeypatch.setattr(optimum, function, _fake_optimum(calls), raising=False)
    argv = ["optimum", option, "6.5", "--seed", "3", "--starts", "2", "--param", "body_mass=70", "--format", "json"]
    assert main(argv) == 0
    (model, value, kwargs), = calls
    assert (model, value, kwargs["seed"]) == ("free", 6.5, 3)
    assert kwargs.get("starts", 2) == 2 and kwargs.get("params", sk.FreeSkaterParams(body_mass=70.0)).body_mass == 70.0
    doc = json.loads(capsys.readouterr().out)
    assert doc["results"]["mean_power"] == 123.25 and doc["results"]["stroke_time"] == 0.75
    assert doc["units"]["stroke_time"] == "s" and doc[option[2:]] == 6.5


def test_optimum_speed_answers_the_coaches_question(capsys):
    """`skilib optimum --speed 3`: the least power for 3 m/s, end to end. The technique it prints,
    put back into the free skater's own steady state, skates at 3 m/s for the power printed."""
    assert main(["optimum", "--speed", "3", "--starts", "1", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    r = doc["results"]
    assert r["feasible"] is True and doc["speed"] == 3.0
    assert abs(r["progress_speed"] - 3.0) <= 1e-7 * 3.0
    from skilib.studies.optimum import FREE_BOUNDS

    technique = {n: r[n] for n in FREE_BOUNDS}
    ss = sk.free_steady_state(sk.FreeSkaterParams(**technique))
    assert abs(ss.progress_speed - r["progress_speed"]) <= 1e-9 * 3.0
    assert abs(ss.mean_power - r["mean_power"]) <= 1e-9 * r["mean_power"]
    assert abs(ss.peak_leg_force_bw - r["peak_leg_force_bw"]) <= 1e-9
