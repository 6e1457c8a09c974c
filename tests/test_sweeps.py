"""skilib.sweep: many runs in one call, on Dask or in-process, with identical results.

A sweep is only a way of calling ``simulate_run`` many times, so its rows must equal the
direct calls exactly, wherever they ran; every run must close its work–energy balance; a
failing parameter set must be reported with its parameters and error while the others go on.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

import skilib as sk
from skilib.models.thesis import simulate_run
from skilib.models.thesis import SkierParams
from skilib.models.thesis.cases import FRICTION_MEAN
from skilib.studies.skier_sweep import SUMMARY_COLUMNS, run_summary
from skilib.studies.sweeps import read_sweep

pytest.importorskip("distributed")

SOLVER = dict(rtol=1e-8, atol=1e-9, dt_out=0.05)
GRID = pd.DataFrame({
    "skating_angle_deg": [40.0, 50.0, 60.0, 50.0, 50.0],
    "force_scale": [1.0, 0.5, 1.0, 1.0, 1.0],
    "friction": [FRICTION_MEAN.value, FRICTION_MEAN.value, 0.0, FRICTION_MEAN.value, FRICTION_MEAN.value],
    "c_ext": [0.2, 0.2, 0.2, 0.2, 5.0],      # the last leg would leave its reach: ValueError
}, index=[10, 11, 12, 13, 14])
DETERMINISTIC = [c for c in SUMMARY_COLUMNS if c != "runtime_s"]


@pytest.fixture(scope="module")
def serial():
    return sk.sweep_skier(GRID, strokes=2, solver=SOLVER, scheduler="serial", progress=False)


def test_rows_equal_direct_runs_and_close_the_energy_balance(serial, measured):
    """A parameter sweep's rows equal direct `simulate_run` calls exactly; every row closes
    its work–energy balance and holds its constraints; half the push-off gives less speed
    and far less power."""
    fr = serial.frame
    assert list(fr["run"]) == list(GRID.index) and len(fr) == len(GRID)
    for _, row in fr[fr.status == "ok"].iterrows():
        res = simulate_run(SkierParams(skating_angle_deg=row.skating_angle_deg, friction=row.friction,
                                       c_ext=row.c_ext), strokes=2, force_scale=row.force_scale, **SOLVER)
        last = res.strokes.iloc[-1]
        measured.check("mean speed: row vs direct run (exact)", abs(row.mean_speed - last.mean_speed), 0.0, "m/s")
        measured.check("mean power: row vs direct run (exact)", abs(row.mean_power - last.mean_power), 0.0, "W")
        measured.check("distance: row vs direct run",
                       abs(row.distance_x - (res.frame.cm_x.iloc[-1] - res.frame.cm_x.iloc[0])), 1e-12, "m")
        # ΔKE = ΣW per stroke, and the constraints hold, in every run of the sweep
        measured.check("energy residual |ΔKE − ΣW| / max(|ΔKE|, 1 J)", row.energy_residual, 1e-6, strict=True)
        measured.check("max|C|", row.max_constraint_norm, 1e-6, "m", strict=True)
        # the KE lost at the change of ski is what SimResult.changes reports
        ref = res.changes.ke_loss.sum()
        measured.check("KE loss at the changes vs SimResult.changes", abs(row.ke_loss_changes - ref) / abs(ref), 1e-12,
                       "rel.")
    # physics across rows: half the push-off gives less speed and far less power
    base, half = fr.set_index("run").loc[13], fr.set_index("run").loc[11]
    assert half.mean_speed < base.mean_speed and half.mean_power < 0.5 * base.mean_power


def test_a_failing_parameter_set_is_reported_and_the_others_run(serial):
    fr = serial.frame.set_index("run")
    assert (fr.status == "ok").sum() == 4
    bad = fr.loc[14]
    assert bad.status == "error" and "c_ext" in bad.error and "ValueError" in bad.error
    assert bad.c_ext == 5.0  # its parameters are in the row
    assert np.isnan(bad.mean_speed)
    assert serial.info["n_failed"] == 1 and len(serial.failed) == 1


def test_dask_local_cluster_gives_the_serial_results(serial, tmp_path):
    """Two worker processes, results written to Parquet and read back: identical numbers."""
    out = tmp_path / "sub" / "grid.parquet"
    dist = sk.sweep_skier(GRID, strokes=2, solver=SOLVER, n_workers=2, output=out, progress=False)
    assert dist.info["scheduler"] == "LocalCluster" and dist.info["n_workers"] == 2
    pd.testing.assert_frame_equal(dist.frame[DETERMINISTIC + ["status", "error"]],
                                  serial.frame[DETERMINISTIC + ["status", "error"]])
    back = read_sweep(out)
    pd.testing.assert_frame_equal(back.frame, dist.frame)
    digest = hashlib.sha256(sk.default_data_path().read_bytes()).hexdigest()
    assert back.info["data_sha256"] == digest and set(back.frame.data_sha256) == {digest}
    assert set(back.frame.skilib_version) == {sk.__version__} == {back.info["skilib_version"]}
    assert list(back.frame.columns[:5]) == ["run", "skating_angle_deg", "force_scale", "friction", "c_ext"]


def test_an_existing_scheduler_is_used_by_address():
    from distributed import LocalCluster

    grid = GRID.iloc[:2]
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        res = sk.sweep_skier(grid, strokes=1, solver=SOLVER, scheduler=cluster.scheduler_address, progress=False)
    assert res.info["scheduler"] == cluster.scheduler_address and res.info["n_workers"] == 1
    ref = run_summary(grid.iloc[0].to_dict(), strokes=1, solver=SOLVER)
    assert res.frame.mean_speed.iloc[0] == ref["mean_speed"]


@pytest.mark.parametrize("parameters, kwargs, match", [
    ([{"mass": 70.0}], {}, "parameters: expected a pandas DataFrame"),
    (pd.DataFrame(), {}, "parameters: the DataFrame has no rows"),
    (pd.DataFrame({"masss": [70.0]}), {}, r"unknown column\(s\) \['masss'\]"),
    (pd.DataFrame({"mass": [70.0, 80.0]}, index=[1, 1]), {}, "must be unique"),
    (pd.DataFrame({"mass": [70.0]}), {"strokes": 0}, "strokes"),
    (pd.DataFrame({"mass": [70.0]}), {"solver": {"rtool": 1e-6}}, "solver: unknown keyword"),
    (pd.DataFrame({"mass": [70.0]}), {"scheduler": 3}, "scheduler"),
    (pd.DataFrame({"mass": [70.0]}), {"push_force": 500.0}, "push_force"),
    (pd.DataFrame({"mass": [70.0]}), {"n_workers": 0}, "n_workers"),
])
def test_bad_arguments_name_what_is_wrong(parameters, kwargs, match):
    with pytest.raises(ValueError, match=match):
        sk.sweep_skier(parameters, progress=False, **kwargs)


def test_read_sweep_rejects_other_files(tmp_path):
    p = tmp_path / "plain.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(p)
    with pytest.raises(ValueError, match="not written by skilib.sweep"):
        read_sweep(p)
    with pytest.raises(FileNotFoundError, match="no such sweep file"):
        read_sweep(tmp_path / "missing.parquet")


def test_rotation_and_stabilization_pass_through_and_agree(measured):
    """Euler parameters with coordinate projection describe the same motion as ZXZ with
    Baumgarte: the summaries agree to integration accuracy, and the residual of the
    work–energy balance (which then includes the projections' energy) stays small."""
    grid = GRID.iloc[:1]
    a = sk.sweep_skier(grid, strokes=2, solver=SOLVER, scheduler="serial", progress=False).frame.iloc[0]
    b = sk.sweep_skier(grid, strokes=2, solver={**SOLVER, "rotation": "euler_parameters", "stabilization": "projection"},
                 scheduler="serial", progress=False).frame.iloc[0]
    assert b.status == "ok"
    measured.check("energy residual |ΔKE − ΣW − ΔT_proj| / max(|ΔKE|, 1 J)", b.energy_residual, 1e-6, strict=True)
    measured.check("max|C|", b.max_constraint_norm, 1e-10, strict=True)
    for c in ("mean_speed", "mean_power", "distance_x", "ke_loss_changes"):
        measured.check("speed, power, distance, KE loss: Euler parameters + projection vs ZXZ + Baumgarte",
                       abs(b[c] - a[c]) / abs(a[c]), 1e-7, "rel.", where=c)


def test_a_busy_dashboard_port_does_not_disturb_a_sweep():
    """Another cluster already holds Dask's default HTTP port: the sweep's own cluster takes
    a free one instead of printing a warning into the user's notebook."""
    import warnings

    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":8787"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = sk.sweep_skier(GRID.iloc[:1], strokes=1, solver=SOLVER, n_workers=1, progress=False)
    assert res.frame.status.iloc[0] == "ok"
    assert not [w for w in caught if "already in use" in str(w.message)]


# -- the generic sweep: any function of a parameter row -------------------------------------
PROJECTILES = pd.DataFrame({"v0": [10.0, 20.0, 15.0, 5.0, 12.0], "angle_deg": [30.0, 45.0, -5.0, 60.0, 75.0]},
                           index=[7, 3, 9, 1, 4])  # not sorted: the output must keep this order


def _projectile(row):
    """Range and flight time of a drag-free projectile; a non-positive angle is refused."""
    import math

    if row["angle_deg"] <= 0:
        raise ValueError(f"angle_deg: must be > 0, got {row['angle_deg']}")
    a = math.radians(row["angle_deg"])
    return {"range": row["v0"] ** 2 * math.sin(2 * a) / 9.81, "flight_time": 2 * row["v0"] * math.sin(a) / 9.81}


@pytest.mark.parametrize("scheduler, n_workers", [("serial", None), (None, 2)])
def test_generic_sweep_runs_a_plain_function_of_a_row(measured, scheduler, n_workers):
    """`sweep(fn, parameters)` runs any function of a parameter row, in this process or on two
    Dask worker processes: one row per input row, in input order, each equal to a direct call
    of the function; the row whose call raises is reported with its message and the others run."""
    res = sk.sweep(_projectile, PROJECTILES, scheduler=scheduler, n_workers=n_workers, progress=False)
    fr = res.frame
    assert list(fr.run) == list(PROJECTILES.index)
    assert list(fr.columns) == ["run", "v0", "angle_deg", "status", "error", "range", "flight_time", "skilib_version"]
    assert res.info["n_workers"] == (n_workers or 1) and res.info["n_failed"] == 1
    for (_, row), (_, out) in zip(PROJECTILES.iterrows(), fr.iterrows()):
        assert (out.v0, out.angle_deg) == (row.v0, row.angle_deg)
        if row.angle_deg <= 0:
            assert out.status == "error" and out.error.startswith("ValueError: angle_deg: must be > 0")
            assert np.isnan(out.range) and np.isnan(out.flight_time)
            continue
        direct = _projectile(row.to_dict())
        assert out.status == "ok" and out.error == ""
        measured.check("generic sweep of a plain function: row vs direct call (exact)",
                       max(abs(out[k] - v) for k, v in direct.items()), 0.0, where=f"scheduler={scheduler}")


def test_generic_sweep_summarize_outputs_and_bad_arguments(measured, tmp_path):
    """`summarize` turns a row's result into its outputs where it ran; a row that returns other
    outputs than the declared ones fails alone; provenance reaches the Parquet file; bad
    arguments raise a ValueError naming the parameter."""
    grid = PROJECTILES.drop(index=9)

    def path_of(row):  # a non-tabular result: the sampled trajectory
        t = np.linspace(0.0, _projectile(row)["flight_time"], 201)
        a = np.radians(row["angle_deg"])
        return row["v0"] * np.cos(a) * t, row["v0"] * np.sin(a) * t - 9.81 * t**2 / 2

    def summarize(xy):
        return pd.Series({"range": xy[0][-1], "apex": xy[1].max()})

    res = sk.sweep(path_of, grid, summarize=summarize, outputs=("range", "apex"), scheduler="serial",
                   provenance={"note": "drag-free"}, output=tmp_path / "p.parquet", progress=False)
    assert (res.frame.status == "ok").all() and list(res.frame.run) == list(grid.index)
    for (_, row), (_, out) in zip(grid.iterrows(), res.frame.iterrows()):
        measured.check("generic sweep with summarize: row vs direct call (exact)",
                       abs(out.range - summarize(path_of(row.to_dict()))["range"]), 0.0)
    assert read_sweep(tmp_path / "p.parquet").info["note"] == "drag-free"

    odd = sk.sweep(lambda row: {"range": 1.0} if row["v0"] > 10 else {"rnage": 1.0}, grid,
                   outputs=("range",), scheduler="serial", progress=False).frame
    assert list(odd.status) == ["error" if v <= 10 else "ok" for v in grid.v0]
    assert "unexpected ['rnage']" in odd.error[odd.status == "error"].iloc[0]

    for args, kwargs, match in [
        ((_projectile, [{"v0": 1.0}]), {}, "parameters: expected a pandas DataFrame"),
        (("not callable", grid), {}, "fn: expected a callable"),
        ((_projectile, grid), {"outputs": ("v0",)}, r"outputs: \['v0'\]"),
        ((_projectile, grid), {"summarize": 3}, "summarize"),
        ((_projectile, grid), {"provenance": {"wall_s": 1}}, "provenance"),
        ((_projectile, grid.rename(columns={"v0": "status"})), {}, "written by the sweep itself"),
        ((grid, grid), {}, r"fn: expected a callable .*sweep_skier\(parameters, strokes=\.\.\.\)"),
    ]:
        with pytest.raises(ValueError, match=match):
            sk.sweep(*args, scheduler="serial", progress=False, **kwargs)
