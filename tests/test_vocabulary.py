"""One vocabulary (``skilib.vocabulary``): every column of every result the package returns has a
unit, one name means one thing across the models, the optimizer and the command line, and the
renamed names are refused with a message naming the new ones.

The numbers: the command line's ``cm_speed`` and ``progress_speed`` are the library's steady
state's ``mean_speed`` and ``progress_speed`` to the last bit; ``mean_leg_power`` is the leg's work
over the stroke time; an optimum's ``optimized_speed`` is its progress or CM speed as its
``speed`` says, and its steady state's; ``run --model edge`` writes ``simulate_edge``'s strokes
and its distance is the CM's travel along X.
"""
from __future__ import annotations

import json
from dataclasses import fields

import numpy as np
import pandas as pd
import pytest

import skilib as sk
from skilib.cli import main
from skilib.models.edge import edge_steady_state, simulate_edge
from skilib.studies.optimum import EDGE_BOUNDS, Optimum, RequiredPower, TechniqueModel, optimize_technique
from skilib.vocabulary import FAMILIES, QUANTITIES, units_of

NEAR = {"skating_angle_deg": 18.0, "stroke_time": 0.75, "steer_deg": 1.0, "offset_end": 0.55, "cm_dip": 0.02}


@pytest.fixture(scope="module")
def results():
    """A short run and the steady state of each model (the quickest calls the other tests use)."""
    return {"thesis run": sk.simulate_run(strokes=2), "free run": sk.simulate_free(strokes=2, v0=3.0),
            "edge run": simulate_edge(strokes=2), "thesis steady": sk.steady_state(),
            "free steady": sk.free_steady_state(), "edge steady": edge_steady_state()}


@pytest.fixture(scope="module")
def opt():
    return optimize_technique("free", power=100.0, starts=0, x0=NEAR, seed=0)


def _check_units(units: dict, what: str):
    bad = {k: u for k, u in units.items() if not isinstance(u, str) or not u.strip()}
    assert not bad, (what, bad)


# -- every column has a unit ---------------------------------------------------------------------
def test_the_vocabulary_gives_every_name_a_unit_and_refuses_an_unknown_one():
    _check_units({k: u for k, (u, _) in QUANTITIES.items()}, "QUANTITIES")
    assert all(unit and meaning for _, unit, meaning in FAMILIES)
    assert units_of(["q0", "qd17", "lam16", "work_push", "work_leg_positive"]) == {
        "q0": "m or rad", "qd17": "m/s or rad/s", "lam16": "N or N m", "work_push": "J", "work_leg_positive": "J"}
    with pytest.raises(ValueError, match="^no_such_column: "):
        units_of(["t", "no_such_column"])
    # the speeds' and powers' units, and a parameter's from its class (the optimizer's tables)
    assert units_of(["progress_speed", "mean_speed", "cm_speed", "optimized_speed", "mean_power",
                     "mean_leg_power"]) == dict.fromkeys(["progress_speed", "mean_speed", "cm_speed", "optimized_speed"],
                                                         "m/s") | {"mean_power": "W", "mean_leg_power": "W"}
    assert units_of(["end_cm_dip", "skating_angle_deg"], sk.FreeSkaterParams) == {"end_cm_dip": "m",
                                                                                  "skating_angle_deg": "deg"}


@pytest.mark.parametrize("name", ["thesis run", "free run", "edge run", "thesis steady", "free steady",
                                  "edge steady"])
def test_every_column_of_every_result_has_a_unit(name, results):
    """``units_of`` of each table's real columns (a ValueError would name an unknown one), and the
    result's ``units`` covers them all, with its number fields."""
    r = results[name]
    units = r.units
    _check_units(units, name)
    tables = [t for t in ("frame", "strokes", "changes", "events") if getattr(r, t, None) is not None]
    assert {"frame", "strokes"} <= set(tables)
    for t in tables:
        cols = list(getattr(r, t).columns)
        assert units_of(cols) == {c: units[c] for c in cols}, (name, t)
    assert units["mean_speed"] == units["progress_speed"] == units["cm_speed"] == "m/s"
    assert units["mean_power"] == "W" and units["t"] == "s" and units["distance_x"] == "m"
    if "steady" in name:
        assert units["u0"] == "m/s" and units["mean_leg_power"] == "W" and units["iterations"] == "-"


@pytest.mark.slow
def test_the_optimizers_tables_and_solutions_have_units(opt):
    """The evaluations and starts tables (the technique's parameters and end_* with theirs), the
    edged skater's margins, and the collocated and optimal-control solutions' number fields."""
    units = opt.units
    _check_units(units, "Optimum")
    for t in (opt.evaluations, opt.starts):
        assert set(t.columns) <= set(units)
    assert units["optimized_speed"] == "m/s" and units["end_stroke_time"] == "s" and units["cm_dip"] == "m"
    row = TechniqueModel("edge", tuple(EDGE_BOUNDS)).values([sk.EdgeSkaterParams().__getattribute__(n)
                                                           if n != "landing_offset" else 0.2 for n in EDGE_BOUNDS])
    assert row["status"] == "ok", row["error"]
    _check_units(units_of(row, sk.EdgeSkaterParams), "edge evaluation")
    from skilib.ocp.control import ControlSolution
    from skilib.ocp.stroke import StrokeSolution

    for cls in (StrokeSolution, ControlSolution):
        numbers = [f.name for f in fields(cls) if str(f.type).replace(" ", "") in ("float", "int", "bool",
                                                                                      "float|None")]
        _check_units(units_of(numbers), cls.__name__)


# -- the renamed names -------------------------------------------------------------------------------
def test_optimum_mean_speed_is_refused_naming_the_new_names(opt):
    for o in (opt, RequiredPower("free", None, {}, 1.0, None, {}, pd.DataFrame(), pd.DataFrame(), speed="cm",
                                 progress_speed=2.0, cm_speed=2.1)):
        with pytest.raises(AttributeError) as e:
            o.mean_speed  # noqa: B018
        for new in ("progress_speed", "cm_speed", "optimized_speed"):
            assert new in str(e.value)
    assert "mean_speed" not in opt.evaluations and "mean_speed" not in opt.starts
    assert {"optimized_speed", "progress_speed", "cm_speed", "mean_leg_power"} <= set(opt.evaluations.columns)


@pytest.mark.slow
def test_optimized_speed_is_the_speed_optimised_and_its_steady_states(opt):
    """speed="progress": optimized_speed is progress_speed, the CM's X travel per time of the
    optimum's own steady state; cm_speed is that steady state's mean_speed (|Ṙ| averaged), larger
    by the sway; speed="cm": optimized_speed is cm_speed.  The free skater without poles counts
    its leg alone: mean_leg_power = mean_power."""
    assert opt.speed == "progress" and opt.optimized_speed == opt.progress_speed
    ss = sk.free_steady_state(opt.params)
    assert abs(ss.progress_speed - opt.progress_speed) <= 1e-9 * ss.progress_speed
    assert abs(ss.mean_speed - opt.cm_speed) <= 1e-9 * ss.mean_speed and opt.cm_speed > opt.progress_speed
    assert opt.mean_leg_power == opt.mean_power
    best = opt.starts["optimized_speed"].astype(float).max()
    assert opt.optimized_speed == best
    cm = optimize_technique("free", power=100.0, starts=0, x0=NEAR, seed=0, speed="cm", maxiter=2)
    assert cm.speed == "cm" and cm.optimized_speed == cm.cm_speed != cm.progress_speed


# -- the command line ----------------------------------------------------------------------------
def _json(capsys, argv):
    assert main(argv + ["--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_steady_prints_the_vocabularys_speeds_and_powers(capsys, results):
    """Each model's steady: progress_speed and cm_speed are the library's steady state's
    progress_speed and mean_speed to the last bit, with the vocabulary's units; mean_leg_power is
    the leg's work over the stroke time (thesis: the push-off's, = mean_power; free: work_leg / T;
    edge: the extension's work_leg / T, less than the three drivers' mean_power)."""
    for model, key, T in (("thesis", "thesis steady", sk.SkierParams().phase_time),
                          ("free", "free steady", sk.FreeSkaterParams().stroke_time),
                          ("edge", "edge steady", sk.EdgeSkaterParams().stroke_time)):
        ss = results[key]
        doc = _json(capsys, ["steady", "--model", model])
        r, units = doc["results"], doc["units"]
        assert "mean_speed" not in r
        assert (r["progress_speed"], r["cm_speed"], r["mean_power"]) == (ss.progress_speed, ss.mean_speed,
                                                                          ss.mean_power), model
        for q in ("progress_speed", "cm_speed", "mean_power", "mean_leg_power", "u0"):
            assert units[q] == QUANTITIES[q][0], (model, q)
        assert r["mean_leg_power"] == ss.mean_leg_power
        work = float(ss.strokes["work_push" if model == "thesis" else "work_leg"].iloc[0])
        assert abs(r["mean_leg_power"] - work / T) <= 1e-12 * abs(work / T), model
    assert r["mean_leg_power"] < r["mean_power"]  # the edged skater: the leg is one of three drivers


def test_run_edge_writes_the_librarys_strokes_with_their_units(tmp_path, capsys):
    """``skilib run --model edge --strokes 2 --csv X``: X holds ``simulate_edge(strokes=2)``'s
    strokes (1e-12), X.units.json a unit for each column; the distance printed is the strokes'
    sum, the CM's travel along X over the run."""
    csv = tmp_path / "edge.csv"
    doc = _json(capsys, ["run", "--model", "edge", "--strokes", "2", "--csv", str(csv)])
    res = simulate_edge(strokes=2)
    back = pd.read_csv(csv)
    assert list(back.columns) == list(res.strokes.columns)
    num = res.strokes.select_dtypes("number").columns
    np.testing.assert_allclose(back[num].to_numpy(float), res.strokes[num].to_numpy(float), rtol=1e-12, atol=1e-12)
    assert list(back["side"]) == list(res.strokes["side"])
    side = json.loads((tmp_path / "edge.units.json").read_text(encoding="utf-8"))
    assert list(side) == list(back.columns) and all(side.values())
    assert side == units_of(back.columns) and side["mean_power"] == "W" and side["progress_speed"] == "m/s"
    r = doc["results"]
    assert r["distance_x"] == float(res.strokes["distance_x"].sum())
    cm_x = res.frame["cm_x"].to_numpy()
    assert abs(r["distance_x"] - (cm_x[-1] - cm_x[0])) <= 1e-12 * r["distance_x"]
    T = sk.EdgeSkaterParams().stroke_time
    assert abs(r["last_progress_speed"] - float(res.strokes["distance_x"].iloc[-1]) / T) <= 1e-12
    assert r["last_cm_speed"] == float(res.strokes["mean_speed"].iloc[-1]) and r["strokes"] == 2
    assert doc["model"] == "edge" and doc["units"]["last_cm_speed"] == "m/s"


def test_run_options_of_the_other_model_are_refused(tmp_path, capsys):
    assert main(["run", "--model", "edge", "--strokes", "2", "--out", str(tmp_path / "x.c3d")]) == 2
    assert "--out" in capsys.readouterr().err and not (tmp_path / "x.c3d").exists()
    assert main(["run", "--strokes", "2", "--out", str(tmp_path / "x.c3d"), "--balance", "designed"]) == 2
    assert "--balance" in capsys.readouterr().err
    assert main(["run", "--strokes", "2"]) == 2 and "--out" in capsys.readouterr().err
    (tmp_path / "s.units.json").write_text("kept")
    assert main(["run", "--model", "edge", "--strokes", "2", "--csv", str(tmp_path / "s.csv")]) == 2
    assert "--overwrite" in capsys.readouterr().err and not (tmp_path / "s.csv").exists()


def test_save_table_refuses_a_column_without_a_unit(tmp_path):
    from skilib.data.files import save_table

    frame = pd.DataFrame({"t": [0.0, 1.0], "mystery": [1, 2]})
    with pytest.raises(ValueError, match="mystery"):
        save_table(frame, tmp_path / "a.csv", units={"t": "s"}, index=False)
    assert not list(tmp_path.iterdir())
    save_table(frame, tmp_path / "a.csv", units={"t": "s", "mystery": "-"}, index=False)
    assert json.loads((tmp_path / "a.units.json").read_text()) == {"t": "s", "mystery": "-"}
