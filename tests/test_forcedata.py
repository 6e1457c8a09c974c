"""Force-data loader, push detection, the SYNTHETIC data set and the default push force."""
import hashlib
import importlib.util
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skilib import data as fd
from skilib.data import channels
from skilib.data import push as push_module
from skilib.data.fourier import pearson_r
from skilib.models.thesis.cases import FRICTION_MEAN

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"
CSV = DATA / "synthetic_force_v2.csv"
META = DATA / "synthetic_force_v2.json"
HEADER = "t_s,force_left_N,force_right_N,friction_N"


def _generator():
    spec = importlib.util.spec_from_file_location("generate_synthetic_force",
                                                  DATA / "generate_synthetic_force.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def good_rows(n=10):
    return [f"{i * 0.001:.4f},{10.0 + i:.4f},{20.0 - i:.4f},{5.0:.4f}" for i in range(n)]


def write(tmp_path, lines, name="bad.csv"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + ("\n" if lines else ""))
    return p


def assert_error(path, match_parts, metadata=None):
    with pytest.raises(ValueError) as err:
        fd.load_force_data(path, metadata)
    msg = str(err.value)
    assert msg.startswith(str(path)), msg
    for part in match_parts:
        assert part in msg, f"{part!r} not in {msg!r}"
    return msg


@pytest.fixture(scope="module")
def synthetic():
    return fd.load_force_data(CSV, META)


@pytest.fixture(scope="module")
def meta():
    return json.loads(META.read_text())


# --- loading good files ----------------------------------------------------------

def test_small_good_file_loads_in_si(tmp_path):
    p = write(tmp_path, [HEADER] + good_rows(), name="good.csv")
    df = fd.load_force_data(p)
    assert list(df.columns) == ["t", "force_left", "force_right", "friction"]
    assert len(df) == 10 and df.attrs["dt_s"] == pytest.approx(0.001, rel=1e-12)
    assert df.attrs["units"] == {"t": "s", "force_left": "N", "force_right": "N", "friction": "N"}
    np.testing.assert_allclose(df["force_left"], 10.0 + np.arange(10))


def test_units_from_metadata_and_conversion(tmp_path):
    rows = [f"{i:.1f},{0.5 + i:.4f},{1.0:.4f},7" for i in range(5)]  # ms and kN
    p = write(tmp_path, ["t,force_left,force_right [kN],extra"] + rows, name="ms.csv")
    df = fd.load_force_data(p, {"units": {"t": "ms", "force_left": "kN"}})
    np.testing.assert_allclose(df["t"], np.arange(5) * 1e-3)
    np.testing.assert_allclose(df["force_left"], (0.5 + np.arange(5)) * 1e3)
    np.testing.assert_allclose(df["force_right"], 1000.0)
    assert list(df.columns) == ["t", "force_left", "force_right", "extra"]  # extra kept as is
    assert df.attrs["sampling_rate_hz"] == pytest.approx(1000.0)


def test_committed_synthetic_file_loads_and_says_synthetic(synthetic, meta):
    assert synthetic.attrs["provenance"] == "synthetic" == meta["provenance"]
    assert "SYNTHETIC" in meta["title"]
    assert len(synthetic) == 20000 == meta["n_samples"]
    assert synthetic.attrs["dt_s"] == pytest.approx(0.001, rel=1e-12)
    assert synthetic["t"].iloc[-1] == pytest.approx(19.999)
    assert meta["sha256"] == hashlib.sha256(CSV.read_bytes()).hexdigest()
    assert CSV.stat().st_size < 5_000_000
    assert meta["units"] == {"t": "s", "force_left": "N", "force_right": "N", "friction": "N"}
    assert "synthetic" in (DATA / "README.md").read_text().lower()


# --- one test per kind of bad file ---------------------------------------------------

def test_missing_column(tmp_path):
    p = write(tmp_path, ["t_s,force_left_N,friction_N"] + ["0.0,1.0,2.0", "0.001,1.0,2.0"])
    assert_error(p, ["line 1", "missing required column", "force_right"])


def test_nan_cell(tmp_path):
    rows = good_rows()
    rows[2] = "0.0020,nan,18.0000,5.0000"  # data row 3 = line 4
    assert_error(write(tmp_path, [HEADER] + rows), ["line 4", "column 'force_left'", "non-finite"])


def test_empty_cell(tmp_path):
    rows = good_rows()
    rows[5] = "0.0050,15.0000,,5.0000"
    assert_error(write(tmp_path, [HEADER] + rows), ["line 7", "column 'force_right'", "empty cell"])


def test_duplicated_time(tmp_path):
    rows = good_rows()
    rows[4] = rows[3]  # line 6 repeats line 5's time
    assert_error(write(tmp_path, [HEADER] + rows), ["line 6", "column 't'", "repeats", "line 5"])


def test_decreasing_time(tmp_path):
    rows = good_rows()
    rows[6] = "0.0045,16.0000,14.0000,5.0000"  # after t = 0.005
    assert_error(write(tmp_path, [HEADER] + rows), ["line 8", "column 't'", "smaller than"])


def test_text_in_numeric_cell(tmp_path):
    rows = good_rows()
    rows[7] = "0.0070,17.0000,13.0000,slippery"
    assert_error(write(tmp_path, [HEADER] + rows),
                 ["line 9", "column 'friction'", "non-numeric", "slippery"])


def test_empty_file(tmp_path):
    p = tmp_path / "empty.csv"
    p.write_bytes(b"")
    assert_error(p, ["empty"])
    p.write_text("\n  \n")
    assert_error(p, ["empty"])


def test_header_without_data(tmp_path):
    assert_error(write(tmp_path, [HEADER]), ["0 data row"])


def test_non_uniform_sampling(tmp_path):
    rows = [f"{t:.4f},1.0,1.0,1.0" for t in [0, 0.001, 0.002, 0.003, 0.0045, 0.0055, 0.0065]]
    assert_error(write(tmp_path, [HEADER] + rows), ["line 6", "column 't'", "non-uniform"])


def test_missing_units(tmp_path):
    rows = [r for r in good_rows()]
    p = write(tmp_path, ["t,force_left,force_right,friction"] + rows)
    assert_error(p, ["line 1", "column 't'", "no unit"])
    # units for t only: the next column is reported
    assert_error(p, ["line 1", "column 'force_left'", "no unit"], metadata={"units": {"t": "s"}})


def test_unknown_and_conflicting_units(tmp_path):
    p = write(tmp_path, ["t_s,force_left_lbf,force_right_N"] + ["0,1,1", "0.001,1,1"])
    assert_error(p, ["line 1", "column 'force_left_lbf'", "unknown force unit 'lbf'"])
    p = write(tmp_path, ["t_s,force_left_N,force_right_N"] + ["0,1,1", "0.001,1,1"])
    assert_error(p, ["line 1", "column 't_s'", "'ms' in the metadata"],
                 metadata={"units": {"t": "ms"}})


def test_ragged_row_and_blank_line(tmp_path):
    rows = good_rows()
    rows[3] = "0.0030,13.0000,17.0000"
    assert_error(write(tmp_path, [HEADER] + rows), ["line 5", "3 fields", "header has 4"])
    rows = good_rows()
    rows[3] = ""
    assert_error(write(tmp_path, [HEADER] + rows), ["line 5", "empty line"])


def test_metadata_checks(tmp_path):
    p = write(tmp_path, [HEADER] + good_rows())
    assert_error(p, ["sha256"], metadata={"sha256": "0" * 64})
    assert_error(p, ["sampling rate", "500.0 Hz"], metadata={"sampling_rate_hz": 500.0})
    assert_error(p, ["line 1", "differ from the metadata"], metadata={"columns": ["t_s"]})
    missing = tmp_path / "nope.json"
    with pytest.raises(ValueError, match="nope.json: metadata file"):
        fd.load_force_data(p, missing)
    with pytest.raises(FileNotFoundError):
        fd.load_force_data(tmp_path / "absent.csv")


# --- push detection -------------------------------------------------------------------

def trapezoid_pulses(n=3000, dt=0.001):
    """Force with pushes on [500, 1100) and [1800, 2400), levels exactly known."""
    t = np.arange(n) * dt
    f = np.zeros(n)
    for s, e in ((500, 1100), (1800, 2400)):
        f[s:e] = 800.0
        f[s:s + 5] = [30, 45, 100, 200, 400]    # rise through off=40 at s+1, on=150 at s+3
        f[e - 4:e] = [300, 120, 60, 41]         # falls below off at e
    f[1300:1400] = 120.0   # between off and on: not a push (never reaches on)
    f[1500:1520] = 500.0   # reaches on but lasts 0.02 s < min_duration
    f[800:850] = 90.0      # dip between off and on inside a push: must not split it
    return t, f


def test_detect_pushes_hysteresis_and_boundaries():
    t, f = trapezoid_pulses()
    p = fd.detect_pushes(t, f, on=150.0, off=40.0, min_duration=0.1)
    assert list(p["start"]) == [501, 1801]   # widened back to the off crossing
    assert list(p["stop"]) == [1100, 2400]   # first sample below off
    assert list(p["complete"]) == [True, True]
    np.testing.assert_allclose(p["duration"], [0.599, 0.599], rtol=1e-12)
    np.testing.assert_allclose(p["t_end"], [1.099, 2.399], rtol=1e-12)
    np.testing.assert_allclose(p["peak"], 800.0)
    for _, row in p.iterrows():
        np.testing.assert_allclose(row["impulse"], 0.001 * f[row["start"]:row["stop"]].sum())
        assert np.all(f[row["start"]:row["stop"]] >= 40.0)
        assert f[row["start"] - 1] < 40.0 and f[row["stop"]] < 40.0
    # without the minimum duration the short burst counts
    p0 = fd.detect_pushes(t, f, on=150.0, off=40.0, min_duration=0.0)
    assert list(p0["start"]) == [501, 1500, 1801]


def test_detect_pushes_marks_cut_off_pushes_incomplete():
    t, f = trapezoid_pulses()
    p = fd.detect_pushes(t[600:2500], f[600:2500])
    assert list(p["start"]) == [0, 1201] and list(p["complete"]) == [False, True]
    p = fd.detect_pushes(t[600:2000], f[600:2000])
    assert list(p["stop"]) == [500, 1400] and list(p["complete"]) == [False, False]


@pytest.mark.parametrize("kwargs, param", [
    (dict(on=40.0, off=40.0), "on"),
    (dict(on=math.nan), "on"),
    (dict(min_duration=-1.0), "min_duration"),
])
def test_detect_pushes_validates_parameters(kwargs, param):
    t, f = trapezoid_pulses()
    with pytest.raises(ValueError, match=f"^{param}"):
        fd.detect_pushes(t, f, **kwargs)


def test_detect_pushes_validates_arrays():
    t, f = trapezoid_pulses()
    with pytest.raises(ValueError, match="^t, force"):
        fd.detect_pushes(t[:-1], f)
    with pytest.raises(ValueError, match="^t:"):
        fd.detect_pushes(t[::-1], f)
    with pytest.raises(ValueError, match="^force:"):
        fd.detect_pushes(t, np.where(t > 1, np.nan, f))


def test_representative_push_is_the_median_duration_one():
    dt, n = 0.001, 9000
    t = np.arange(n) * dt
    left, right = np.zeros(n), np.zeros(n)
    # complete push durations (samples): left 400, 700; right 500, 600, 900 -> median 600
    for arr, spans in ((left, [(300, 700), (2000, 2700)]),
                       (right, [(1000, 1500), (3000, 3600), (5000, 5900)])):
        for s, e in spans:
            arr[s:e] = 700.0 + np.arange(e - s) * 0.01
    left[8800:] = 700.0  # cut off by the record's end: not a candidate
    frame = pd.DataFrame({"t": t, "force_left": left + 2.0, "force_right": right - 1.0})
    rp = fd.representative_push(frame)
    assert (rp.leg, rp.start, rp.stop) == ("force_right", 3000, 3600)
    assert rp.n_candidates == 5 and rp.median_duration == pytest.approx(0.6)
    assert rp.baseline == pytest.approx(-1.0)                # swing median of that leg
    np.testing.assert_allclose(rp.force, 700.0 + np.arange(600) * 0.01)  # baseline removed
    np.testing.assert_allclose(rp.t, np.arange(600) * dt)
    assert rp.duration == pytest.approx(0.6, rel=1e-12)


# --- the generator and the contract of the synthetic data -------------------------------

def test_generator_reproduces_committed_files_byte_for_byte(tmp_path, meta):
    gen = _generator()
    csv_path, meta_path = gen.generate(tmp_path, seed=meta["seed"])
    assert csv_path.read_bytes() == CSV.read_bytes()
    assert meta_path.read_bytes() == META.read_bytes()
    other, _ = gen.generate(tmp_path / "other", seed=meta["seed"] + 1)
    assert other.read_bytes() != CSV.read_bytes()


def test_generator_runs_as_a_script(tmp_path):
    out = subprocess.run([sys.executable, str(DATA / "generate_synthetic_force.py"),
                          "--out", str(tmp_path)], capture_output=True, text=True, check=True)
    assert "SYNTHETIC" in out.stdout
    assert (tmp_path / "synthetic_force_v2.csv").read_bytes() == CSV.read_bytes()


def test_generator_rejects_bad_seed(tmp_path):
    with pytest.raises(ValueError, match="^seed"):
        _generator().generate(tmp_path, seed=-1)


@pytest.fixture(scope="module")
def pushes(synthetic):
    return fd.find_pushes(synthetic)


def test_every_push_has_loading_and_push_off_peaks_in_range(synthetic, pushes, meta):
    bw = meta["body_mass_kg"] * 9.81
    done = pushes[pushes["complete"]]
    assert len(done) >= 36  # ~20 s x 2 legs, minus pushes cut off at either end
    for _, p in done.iterrows():
        f = synthetic[p["leg"]].to_numpy()[p["start"]:p["stop"]] - p["baseline"]
        k = f.size
        load, push = f[: int(0.4 * k)].max(), f[int(0.5 * k):].max()
        dip = f[np.argmax(f[: int(0.4 * k)]): int(0.5 * k) + np.argmax(f[int(0.5 * k):])].min()
        assert 1.1 * bw <= load <= 1.4 * bw
        assert 1.1 * bw <= push <= 1.4 * bw
        assert dip < min(load, push) - 0.1 * bw  # two distinct peaks
        assert p["peak"] == pytest.approx(max(load, push))


def test_pushes_repeat_about_every_second_and_alternate(pushes, meta):
    for leg in channels.LEGS:
        done = pushes[pushes["complete"]]
        starts = done.loc[done["leg"] == leg, "t_start"].to_numpy()
        gaps = np.diff(starts)
        assert 0.95 <= np.median(gaps) <= 1.05
        assert np.all((gaps > 0.85) & (gaps < 1.15))
    legs = pushes.sort_values("t_start")["leg"].to_numpy()
    assert np.all(legs[1:] != legs[:-1])
    # detection finds every drawn plant shortly after it happens
    truth = meta["ground_truth_pushes"]
    for _, p in pushes[pushes["complete"]].iterrows():
        lag = [p["t_start"] - g["t_plant_s"] for g in truth
               if "force_" + g["leg"] == p["leg"] and 0 <= p["t_start"] - g["t_plant_s"] < 0.05]
        assert len(lag) == 1


def test_swing_phase_reads_zero_plus_offset_and_noise(synthetic, meta):
    t = synthetic["t"].to_numpy()
    for leg in ("left", "right"):
        loaded = np.zeros(t.size, bool)
        for g in meta["ground_truth_pushes"]:
            if g["leg"] == leg:
                loaded |= (t >= g["t_plant_s"]) & (t < g["t_plant_s"] + g["contact_duration_s"])
        swing = synthetic["force_" + leg].to_numpy()[~loaded]
        assert swing.size > 5000
        assert abs(swing.mean()) < 5.0   # small baseline offset
        assert swing.std() < 3.0         # sensor noise of a few N


def test_friction_channel_resembles_table_8(synthetic):
    fr = synthetic["friction"]
    # Bruzzo (2012) table 8 (skilib.models.thesis.cases): max 31.894 N, mean 5.305 N, min -18.7134 N
    assert abs(fr.mean() - FRICTION_MEAN.value) < 1.0
    assert 20.0 <= fr.max() <= 45.0
    assert -30.0 <= fr.min() <= -10.0


# --- the default push force ----------------------------------------------------------------

def test_default_data_path():
    assert fd.default_data_path() == CSV.resolve()
    assert fd.default_metadata_path() == META.resolve()


def test_default_push_fit_is_eq_102_of_the_representative_push(synthetic, measured):
    """The default push-off curve is eq. 102 of the (synthetic) representative push: its
    period is the push's duration, a₀T = ∫F dt (rectangle rule), r is eq. 103 between data
    and fit, and the coefficients equal least squares on the full uniform period."""
    push = fd.representative_push(synthetic)
    fit = fd.default_push_fit()
    assert fit.n_harmonics == push_module.DEFAULT_HARMONICS and fit.method == "thesis"
    assert fit.t0 == 0.0
    measured.check("period vs push duration", abs(fit.period - push.duration) / push.duration, 1e-12, "rel.")
    # eq. 102: a0 is the sample mean, so the fit's impulse over one period equals
    # the data's rectangle-rule impulse
    impulse = push.dt * push.force.sum()
    measured.check("a₀T vs Σ F Δt", abs(fit.a0 * fit.period - impulse) / impulse, 1e-12, "rel.")
    r = pearson_r(push.force, fit(push.t))
    measured.check("r vs eq. 103 of data and fit", abs(fit.pearson_r - r) / r, 1e-15, "rel.")
    lsq = fd.fit_push(push, method="lstsq")
    scale = np.abs(push.force).max()
    measured.check("coefficients: eq. 102 sums vs least squares",
                   np.abs(np.r_[fit.a0, fit.a, fit.b] - np.r_[lsq.a0, lsq.a, lsq.b]) / scale, 1e-12, "× max|F|")


def test_default_push_force_is_positive_and_time_scaled(meta, measured):
    """The default push force is positive with a peak of 1.1–1.4 body weights; stretched to
    another phase time it is the same curve, its derivatives scale with T/T′, and its
    impulse scales with T (trapezoid on a full period of a trigonometric polynomial is exact)."""
    bw = meta["body_mass_kg"] * 9.81
    f1 = fd.default_push_force(1.0)
    f2 = fd.default_push_force(0.5)
    T = f1.source_duration
    s = np.linspace(0.0, 1.0, 4001)
    v1 = f1(s * 1.0)
    assert np.all(v1 >= 0.0)
    assert 1.1 * bw <= v1.max() <= 1.4 * bw
    measured.allclose("F at T = 0.5 s vs T = 1 s, same phase", f2(s * 0.5), v1, atol=1e-9, unit="N")
    measured.allclose("Ḟ × T: T = 0.5 s vs 1 s", f2.derivative(s * 0.5) * 0.5, f1.derivative(s) * 1.0,
                      rtol=1e-12, atol=1e-6)
    measured.allclose("F̈ × T²: T = 0.5 s vs 1 s", f2.derivative(s * 0.5, 2) * 0.25, f1.derivative(s, 2),
                      rtol=1e-12, atol=1e-3)
    # impulse: trapezoid on a full period of a trigonometric polynomial is exact
    imp1 = np.trapezoid(v1, s * 1.0)
    imp2 = np.trapezoid(f2(s * 0.5), s * 0.5)
    assert imp1 > 0
    measured.check("impulse vs trapezoid", abs(imp1 - f1.impulse) / f1.impulse, 1e-12, "rel.")
    measured.check("impulse ratio T = 0.5 s / 1 s vs 0.5", abs(imp2 / imp1 - 0.5) / 0.5, 1e-12, "rel.")
    native = fd.default_push_force(T)
    ref = f1.impulse * T / 1.0
    measured.check("impulse at the recorded duration vs scaled", abs(native.impulse - ref) / ref, 1e-12, "rel.")


def test_default_push_force_scalar_and_range():
    f = fd.default_push_force(1.0)
    assert isinstance(f(0.3), float)
    assert f(1.0 + 1e-12) == pytest.approx(f(1.0))  # rounding overshoot accepted
    for bad in (-0.01, 1.01, [0.5, 2.0], math.nan):
        with pytest.raises(ValueError, match="^tau"):
            f(bad)
    for bad in (0.0, -1.0, math.inf):
        with pytest.raises(ValueError, match="^phase_time"):
            fd.default_push_force(bad)


def test_every_path_of_a_push_accepts_the_same_phase_times():
    """The scalar call, the array call and ``at_points`` accept τ within PHASE_OVERSHOOT·T of the
    phase's ends (clipped to them: the ends' values) and refuse the next float beyond, each
    with the same message."""
    f = fd.default_push_force(0.8)
    T, tol = f.phase_time, push_module.PHASE_OVERSHOOT * f.phase_time
    lo, hi = -tol, T + tol
    for edge, end in ((lo, 0.0), (hi, T)):
        assert f(edge) == f(end) and f(np.array([edge]))[0] == f(np.array([end]))[0]
        assert f.at_points(np.array([edge, 0.4]))[0] == f(end)
    for beyond in (np.nextafter(lo, -1.0), np.nextafter(hi, 2.0)):
        for call in (lambda t: f(float(t)), lambda t: f(np.array([t])), lambda t: f.at_points(np.array([t]))):
            with pytest.raises(ValueError, match="^tau: phase time"):
                call(beyond)


def test_default_fit_is_cached():
    fd.default_push_fit()
    before = push_module._cached_push_fit.cache_info().hits
    a, b = fd.default_push_force(1.0), fd.default_push_force(2.0)
    assert push_module._cached_push_fit.cache_info().hits == before + 2
    assert fd.default_push_fit() is fd.default_push_fit()
    np.testing.assert_array_equal(a.fit.a, b.fit.a)


def test_a_recording_on_disk_takes_the_same_route(tmp_path):
    p = tmp_path / "my_recording.csv"
    shutil.copy(CSV, p)
    mine = fd.push_force_from_data(p, 1.0)
    ref = fd.default_push_force(1.0)
    np.testing.assert_array_equal(np.r_[mine.fit.a0, mine.fit.a, mine.fit.b],
                                  np.r_[ref.fit.a0, ref.fit.a, ref.fit.b])
    assert mine.source == str(p.resolve())
