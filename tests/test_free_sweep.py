"""Sweeps of the free skater (``skilib.studies.free_sweep``): a sweep is only a way of calling
``free_steady_state`` or ``simulate_free`` many times, so its rows must equal the direct calls
exactly, in input order, wherever they ran; a row with a bad name or value fails alone, naming it."""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import skilib as sk
from skilib.studies import sweep
from skilib.studies.free_sweep import FREE_RUN_COLUMNS, FREE_STEADY_COLUMNS, FreeRun

STEADY_GRID = pd.DataFrame({"steer_deg": [10.0, 6.0, 10.0], "skating_angle_deg": [40.0, 40.0, 30.0],
                            "skating_angel_deg": [np.nan, 35.0, np.nan]}, index=["a", "b", "c"])
RUN_GRID = pd.DataFrame({"friction_coefficient": [0.02, 0.04, -0.01], "v0": [2.0, 1.0, 2.0]}, index=[7, 3, 5])
EXACT_STEADY = [c for c in FREE_STEADY_COLUMNS if c != "runtime_s"]
EXACT_RUN = [c for c in FREE_RUN_COLUMNS if c != "runtime_s"]


def test_steady_rows_equal_direct_calls_and_a_bad_name_fails_its_rows():
    """FreeRun("steady"): each row is free_steady_state of its parameters, exactly; a row that
    names a field FreeSkaterParams does not have fails, naming it, and the sweep goes on."""
    grid = STEADY_GRID.drop(columns="skating_angel_deg")
    res = sk.sweep(FreeRun("steady"), grid, scheduler="serial", progress=False)
    fr = res.frame
    assert list(fr.run) == list(grid.index) and (fr.status == "ok").all()
    assert list(fr.columns) == ["run", "steer_deg", "skating_angle_deg", "status", "error", *FREE_STEADY_COLUMNS,
                                "skilib_version"]
    for (_, row), (_, out) in zip(grid.iterrows(), fr.iterrows()):
        ss = sk.free_steady_state(sk.FreeSkaterParams(**row.to_dict()))
        last = ss.strokes.iloc[0]
        direct = {"u0": ss.u0, "mean_speed": ss.mean_speed, "mean_vx": last.mean_vx, "mean_power": ss.mean_power,
                  "peak_leg_force_bw": ss.peak_leg_force_bw, "ke_loss": last.ke_end - last.ke_start,
                  "energy_residual": abs(last.energy_residual), "residual": ss.residual, "iterations": ss.iterations}
        assert {k: out[k] for k in EXACT_STEADY} == direct
    # a misspelt name: its rows fail with the name in the error, the sweep itself goes on
    fn = FreeRun()
    bad = sweep(fn, STEADY_GRID.loc[["b", "a"]], outputs=fn.outputs, scheduler="serial", progress=False).frame
    assert list(bad.status) == ["error", "error"] and bad.error.str.contains("'skating_angel_deg'").all()
    assert bad.mean_speed.isna().all()


def test_run_rows_equal_direct_calls_serial_and_on_two_workers():
    """FreeRun(2): the last of two strokes from the row's v0, equal to simulate_free exactly, in
    this process and on a two-worker Dask cluster; a negative friction coefficient fails its
    row only, naming the field."""
    fn = FreeRun(2, n_out=11)
    assert pickle.loads(pickle.dumps(fn)).options == {"n_out": 11}
    serial = sweep(fn, RUN_GRID, scheduler="serial", progress=False).frame
    assert list(serial.run) == list(RUN_GRID.index)
    assert list(serial.status) == ["ok", "ok", "error"] and "friction_coefficient" in serial.error.iloc[2]
    for (_, row), (_, out) in zip(RUN_GRID.iloc[:2].iterrows(), serial.iterrows()):
        res = sk.simulate_free(sk.FreeSkaterParams(friction_coefficient=row.friction_coefficient), strokes=2,
                               v0=row.v0, n_out=11)
        last = res.strokes.iloc[-1]
        assert out.u0 == last.u_start and out.mean_speed == last.mean_speed and out.mean_vx == last.mean_vx
        assert out.mean_power == last.mean_power and out.peak_leg_force_bw == last.peak_leg_force_bw
        assert out.ke_loss == last.ke_loss_at_start == res.changes.ke_loss.iloc[-1]
        assert out.energy_residual == res.strokes.energy_residual.abs().max()
    pytest.importorskip("distributed")
    dist = sweep(fn, RUN_GRID, n_workers=2, progress=False)
    assert dist.info["n_workers"] == 2
    pd.testing.assert_frame_equal(dist.frame[EXACT_RUN + ["run", "status", "error"]],
                                  serial[EXACT_RUN + ["run", "status", "error"]])


def test_bad_options_name_themselves():
    with pytest.raises(ValueError, match="strokes"):
        FreeRun(0)
    with pytest.raises(ValueError, match="strokes"):
        FreeRun("periodic")
    with pytest.raises(ValueError, match="tol: not an option of FreeRun"):
        FreeRun(3, tol=1e-8)
    with pytest.raises(ValueError, match="rtoll"):
        FreeRun(rtoll=1e-8)
