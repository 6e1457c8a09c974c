"""C3D in and out (skilib.data.c3d): a run's markers, analogs, events and parameters come
back from the file to float32 precision (C3D stores 32-bit floats); force-plate channels
written as C3D load like the same data from CSV, and bad files are reported with the file,
channel and frame."""
import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ezc3d")

import skilib as sk  # noqa: E402
from skilib.data import c3d  # noqa: E402
from skilib.models.thesis import c3d as thesis_c3d  # noqa: E402
from skilib.data.forcedata import default_data_path, load_force_data  # noqa: E402
from skilib.models.thesis.markers import MARKERS, skeleton, stroke_rows  # noqa: E402

F32 = np.finfo(np.float32).eps  # relative precision of a C3D value


@pytest.fixture(scope="module")
def run():
    p = sk.SkierParams()
    return sk.simulate_run(p, strokes=2, dt_out=0.01, push_force=sk.stand_in_push_force(p, p.phase_time))


def test_markers_are_the_model_geometry(run):
    """CM − ANKLE is ℓ(τ) u(τ) of C14–C17 (eqs. 187–188) and the ski is L long along its heading."""
    s = skeleton(run)
    f = run.frame.iloc[stroke_rows(run.frame)]
    p = run.params
    np.testing.assert_allclose(np.linalg.norm(s.points["CM"] - s.points["ANKLE"], axis=1), f["leg_length"], atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(s.points["SKI_TIP"] - s.points["SKI_TAIL"], axis=1), p.ski_length)
    gamma = np.degrees(np.arccos((s.points["CM"][:, 2] - s.points["ANKLE"][:, 2]) / f["leg_length"]))
    np.testing.assert_allclose(gamma, np.abs(f["leg_angle_deg"]), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(s.points["KNEE"] - s.points["ANKLE"], axis=1), p.lower_leg)


def test_run_round_trip(run, tmp_path):
    path = run.to_c3d(tmp_path / "run.c3d")
    back = thesis_c3d.read_run(path)
    s = skeleton(run)
    f = run.frame.iloc[stroke_rows(run.frame)]
    np.testing.assert_allclose(back.t, f["t"], atol=1e-12)
    assert tuple(back.markers) == MARKERS
    for name in MARKERS:  # written in mm as float32: relative error ≤ eps32/2 of the value
        np.testing.assert_allclose(back.markers[name], s.points[name], rtol=0, atol=F32 * np.abs(s.points[name]).max())
    for ch in thesis_c3d.ANALOG_CHANNELS:
        np.testing.assert_allclose(back.analogs[ch], f[ch], rtol=0, atol=F32 * np.abs(f[ch]).max())
    assert back.skier_params() == run.params  # exact (JSON text in the parameter section)
    changes = back.events.loc[back.events["label"] == "Stroke change", "t"].to_numpy()
    np.testing.assert_allclose(changes, [run.params.phase_time], atol=1e-6)
    np.testing.assert_allclose(back.parameters["HEADINGS"], [m.heading for m in run.models], rtol=F32)
    assert list(back.parameters["SIDES"]) == [m.side for m in run.models]


@pytest.fixture(scope="module")
def csv_part(tmp_path_factory):
    """The first 2 s of the SYNTHETIC force data set as CSV, loaded by the CSV path."""
    d = tmp_path_factory.mktemp("force")
    lines = default_data_path().read_text().splitlines()[:2001]
    p = d / "part.csv"
    p.write_text("\n".join(lines) + "\n")
    return p, load_force_data(p)


def test_force_data_from_c3d_equals_csv(csv_part, tmp_path):
    p, df = csv_part
    path = c3d.write_force_data(df, tmp_path / "force.c3d")
    got = load_force_data(path)
    assert list(got.columns) == list(df.columns)
    np.testing.assert_allclose(got["t"], df["t"], atol=1e-9)
    for col in df.columns[1:]:
        np.testing.assert_allclose(got[col], df[col], rtol=0, atol=F32 * np.abs(df[col]).max())
    assert got.attrs["sampling_rate_hz"] == pytest.approx(df.attrs["sampling_rate_hz"], rel=1e-9)
    assert got.attrs["units"]["force_left"] == "N"


def test_force_c3d_errors_name_file_channel_and_frame(csv_part, tmp_path):
    _, df = csv_part
    # write_force_data refuses a NaN: the lab file with one is made with ezc3d
    good = c3d.write_force_data(df, tmp_path / "good.c3d")
    lab = c3d.read_c3d(good)
    analogs = lab["data"]["analogs"].copy()
    analogs[0, list(df.columns[1:]).index("force_right"), 25] = np.nan
    lab["data"]["analogs"] = analogs
    path = tmp_path / "nan.c3d"
    lab.write(str(path))
    with pytest.raises(ValueError, match=r"nan\.c3d: analog frame 26 \(point frame 3\), channel 'force_right': non-finite"):
        load_force_data(path)
    path = c3d.write_force_data(df.drop(columns="force_left"), tmp_path / "missing.c3d")
    with pytest.raises(ValueError, match=r"missing\.c3d: ANALOG:LABELS: missing required channel\(s\) \['force_left'\]"):
        load_force_data(path)
    path = c3d.write_force_data(df, tmp_path / "ok.c3d")
    with pytest.raises(ValueError, match=r"ok\.c3d: ANALOG:RATE: sampling rate 1000\.0 Hz differs from the metadata's 500"):
        load_force_data(path, metadata={"sampling_rate_hz": 500.0})
    with pytest.raises(ValueError, match=r"ok\.c3d: analog channel 'force_left': unit 'N' in ANALOG:UNITS but 'kN'"):
        load_force_data(path, metadata={"units": {"force_left": "kN"}})
    with pytest.raises(ValueError, match=r"ok\.c3d: sha256 .* does not match"):
        load_force_data(path, metadata={"sha256": "0" * 64})
