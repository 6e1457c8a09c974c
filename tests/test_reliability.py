"""Robustness against what a user may do to the kernel cache, the inputs, a sweep or a force file.

Each test reproduces one way of breaking skilib from outside (a damaged cache file, a NaN
force, a bad sweep cell, an unusable compiler, an absurd input, an edited force file, a
recording with its own column names) and checks that the failure is named or repaired,
never a crash of the interpreter, a misleading diagnosis or an endless run.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import skilib as sk
from skilib.engine import examples
from skilib.engine.codegen import c_compiler, clear_kernel_cache, compile_system
from skilib.engine.errors import BudgetExceededError, NonFiniteError
from skilib.engine.forces import LineForce
from skilib.engine.validation import check_number

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
needs_cc = pytest.mark.skipif(c_compiler() is None, reason="no C compiler")

# a fresh interpreter compiles (or loads) the pendulum's kernel and prints its backend and q̈
_PROBE = textwrap.dedent("""
    import sys, warnings
    warnings.simplefilter("always")
    from skilib.engine import examples
    from skilib.engine.codegen import compile_system
    ex = examples.pendulum(angle_deg=30.0)
    c = compile_system(ex.system, backend=None if sys.argv[1] == "auto" else sys.argv[1])
    print(c.backend, repr(float(c.evaluate(0.0, ex.q0, ex.qd0).qdd[0])))
""")


def _run(cache, backend="c", **env):
    e = {**os.environ, "SKILIB_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([PY, "-c", _PROBE, backend], capture_output=True, text=True, env=e, timeout=600)


# -- 1. cache integrity -----------------------------------------------------------------------
@pytest.mark.slow
@needs_cc
def test_damaged_c_kernel_files_are_rebuilt_with_a_warning_never_loaded(tmp_path):
    """A truncated library (SIGBUS inside ctypes before), an emptied one (OSError), an emptied
    metadata file (JSONDecodeError naming no file) and a foreign library: each is detected by
    the sha256 in the metadata, named in a warning and rebuilt; the process lives on."""
    first = _run(tmp_path)
    assert first.returncode == 0, first.stderr
    kernels = tmp_path / "kernels"
    so = next(kernels.glob("*.so"))
    meta = json.loads(so.with_suffix(".json").read_text())
    assert len(meta["sha256"]) == 64
    damages = {
        "truncated": lambda: os.truncate(so, so.stat().st_size // 3),
        "emptied": lambda: so.write_bytes(b""),
        "foreign": lambda: so.write_bytes(Path(PY).resolve().read_bytes()[:200_000]),
        "metadata emptied": lambda: so.with_suffix(".json").write_text(""),
    }
    for what, damage in damages.items():
        damage()
        again = _run(tmp_path)
        assert again.returncode == 0, (what, again.returncode, again.stderr[-2000:])  # no SIGBUS (-7)
        assert again.stdout == first.stdout, what
        assert "KernelCacheWarning" in again.stderr and "rebuilding" in again.stderr, what
        named = so.with_suffix(".json") if what == "metadata emptied" else so
        assert str(named) in again.stderr, what
        clean = _run(tmp_path)  # repaired: the next process loads it silently
        assert clean.returncode == 0 and "KernelCacheWarning" not in clean.stderr, what
    assert sorted(p.suffix for p in kernels.iterdir()) == [".c", ".json", ".so"]  # no temporary files left


@pytest.mark.slow
def test_damaged_numba_module_and_machine_code_are_rebuilt(tmp_path):
    """The numba backend's module (.py, hashed in its metadata) and numba's own cached machine
    code (__pycache__, checked by loading it once) are rebuilt when damaged."""
    pytest.importorskip("numba")
    first = _run(tmp_path, "numba")
    assert first.returncode == 0 and first.stdout.startswith("numba"), first.stderr
    kernels = tmp_path / "kernels"
    for f in (kernels / "__pycache__").glob("*.nbi"):
        os.truncate(f, 10)
    again = _run(tmp_path, "numba")
    assert again.returncode == 0 and again.stdout == first.stdout, again.stderr[-2000:]
    assert "numba's cached machine code does not load" in again.stderr
    py = next(kernels.glob("*.py"))
    py.write_text(py.read_text() + "\nMETA = None\n")
    third = _run(tmp_path, "numba")
    assert third.returncode == 0 and third.stdout == first.stdout, third.stderr[-2000:]
    assert str(py) in third.stderr and "sha256" in third.stderr


# -- 5. backend fallback, no temporary folders ----------------------------------------------------
@pytest.mark.slow
def test_backends_fall_back_in_order_with_the_reason(tmp_path):
    """CC=/nonexistent/cc: the C backend warns with the compiler's error and numba (or Python)
    takes over; a numba that fails to import falls back to plain Python, also with a warning."""
    r = _run(tmp_path / "a", "auto", CC="/nonexistent/cc")
    assert r.returncode == 0, r.stderr
    assert "BackendFallbackWarning" in r.stderr and "/nonexistent/cc" in r.stderr
    assert r.stdout.split()[0] in ("numba", "python")
    fake = tmp_path / "fake"
    (fake / "numba").mkdir(parents=True)
    (fake / "numba" / "__init__.py").write_text("raise ImportError('a broken numba')\n")
    r = _run(tmp_path / "b", "numba", PYTHONPATH=f"{fake}{os.pathsep}{ROOT}")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "python" and "a broken numba" in r.stderr


@needs_cc
def test_unwritable_cache_leaves_no_temporary_folder(tmp_path):
    """A cache folder that cannot be created: kernels compile into one per-process folder,
    removed when the interpreter exits."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    r = _run("/dev/null/not-a-folder", "c", TMPDIR=str(tmp))
    assert r.returncode == 0 and r.stdout.startswith("c "), r.stderr
    assert list(tmp.iterdir()) == []


# -- 2. NaN and inf named where they enter --------------------------------------------------------
def _pendulum_with_force(magnitude):
    ex = examples.pendulum(angle_deg=30.0)
    bob = ex.system.bodies[0]
    f = LineForce("thrust", bob, [0.0, 0.0, 0.0], None, [0.0, 0.0, 1.0], magnitude)
    system = sk.MultibodySystem(ex.system.bodies, ex.system.constraints[:1], list(ex.system.forces) + [f])
    return ex, system


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("backend", ["numeric", "python", "c"])
def test_a_nan_force_is_named_not_blamed_on_a_singular_matrix(backend):
    """A force magnitude returning NaN: every backend names the force and the time (the
    compiled path reported a singular matrix blamed on a body)."""
    if backend == "c" and c_compiler() is None:
        pytest.skip("no C compiler")
    ex, system = _pendulum_with_force(lambda t: float("nan") if 0.2 <= t <= 0.21 else 1.0)
    target = system if backend == "numeric" else compile_system(system, backend=backend)
    target.evaluate(0.0, ex.q0, ex.qd0)
    with pytest.raises(ValueError, match=r"'thrust'.*t=0\.205"):
        target.evaluate(0.205, ex.q0, ex.qd0)
    if backend != "numeric":
        with pytest.raises(NonFiniteError) as err:
            target.evaluate(0.205, ex.q0, ex.qd0)
        assert err.value.source.startswith("force 'thrust'") and err.value.t == 0.205
        q = ex.q0.copy()
        q[1] = np.inf  # a diverged state is named by coordinate
        with pytest.raises(NonFiniteError, match=r"q\[1\] \(bob\.y\)"):
            target.evaluate(0.0, q, ex.qd0)


def test_a_nan_push_between_the_checks_is_named_in_a_compiled_skier_run():
    """A push-off that is NaN for 3 ms between the 201 points where it is checked: the
    compiled run stops with the push force and the time, not a singular matrix."""
    p = sk.SkierParams()
    base = sk.stand_in_push_force(p, p.phase_time)

    def F(tau):
        return float("nan") if 0.301 <= tau <= 0.304 else base(tau)

    with pytest.raises(NonFiniteError, match=r"force 'push'.*t=0\.30"):
        sk.simulate_run(p, strokes=1, push_force=F, dt_out=0.1)


@pytest.mark.parametrize("kwargs, name", [
    ({"rtol": float("nan")}, "rtol"), ({"atol": 0.0}, "atol"), ({"h": 1e-5}, "h"), ({"rtol": "1e-8"}, "rtol"),
    ({"atol": float("inf")}, "atol"), ({"h": float("nan")}, "h"),
])
def test_tolerances_and_step_are_validated_by_name(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        sk.simulate_run(strokes=1, **kwargs)


# -- 4. one validation helper for every number ------------------------------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda: sk.SkierParams(mass="75"), "mass"), (lambda: sk.SkierParams(mass=True), "mass"),
    (lambda: sk.SkierParams(friction=float("inf")), "friction"), (lambda: sk.SkierParams(air_drag=1), "air_drag"),
    (lambda: sk.simulate_run(strokes=1, dt_out="0.01"), "dt_out"), (lambda: sk.simulate_run(strokes=1, v0=True), "v0"),
    (lambda: sk.simulate_run(strokes=1, compiled="no"), "compiled"), (lambda: sk.simulate_run(strokes=1, n_out=2.5), "n_out"),
    (lambda: sk.simulate_run(strokes=2.5), "strokes"), (lambda: sk.simulate_run(strokes=float("nan")), "strokes"),
    (lambda: sk.simulate_run(strokes=1, force_scale="1"), "force_scale"),
    (lambda: sk.sweep(lambda r: 1, pd.DataFrame({"a": [1]}), scheduler="serial", n_workers=1.5), "n_workers"),
    (lambda: sk.load_force_data(sk.default_data_path(), dt_rtol=float("nan")), "dt_rtol"),
])
def test_bools_strings_nan_and_non_integers_are_refused_by_name(call, name):
    with pytest.raises(ValueError, match=rf"^{name}:"):
        call()


def test_check_number_accepts_integer_valued_floats_and_numpy_scalars():
    assert check_number("strokes", 2.0, integer=True) == 2 and isinstance(check_number("n", np.int64(3), integer=True), int)
    assert check_number("x", np.float32(0.5)) == 0.5
    for bad in (True, np.bool_(False), "1", None, float("nan"), [1.0]):
        with pytest.raises(ValueError, match="^x:"):
            check_number("x", bad)
    with pytest.raises(ValueError, match=r"^x: must be in \[0, 1\]"):
        check_number("x", 2, low=0, high=1)


# -- 6. a work budget ----------------------------------------------------------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda: sk.simulate_run(strokes=1, force_scale=1e6), "force_scale"),
    (lambda: sk.simulate_run(sk.SkierParams(mass=1e10), strokes=1), "mass"),
    (lambda: sk.simulate_run(strokes=1, push_force=lambda tau: 1e30), "push_force"),
    (lambda: sk.simulate_run(strokes=1, dt_out=1e-9), "dt_out"),
    (lambda: sk.simulate_run(strokes=1, n_out=10**9), "n_out"),
    (lambda: sk.simulate_run(strokes=100, n_out=50_000), "dt_out/n_out"),
])
def test_implausible_inputs_are_refused_before_running(call, name):
    with pytest.raises(ValueError, match=rf"^{name}"):
        call()


@pytest.mark.parametrize("budget", [{"max_evaluations": 200}, {"max_wall_time": 1e-3}])
def test_a_run_beyond_its_budget_stops_naming_it(budget):
    name = next(iter(budget))
    with pytest.raises(BudgetExceededError, match=rf"^{name}: .*stroke 1") as err:
        sk.simulate_run(strokes=2, dt_out=0.1, **budget)
    assert err.value.budget == name


# -- 3. sweep rows isolated -------------------------------------------------------------------------------
def test_sweep_rows_are_validated_on_their_own_and_written_with_failures(tmp_path):
    """pandas stores [1, 1, NaN] as floats: 1.0 runs as one stroke, NaN fails only its row;
    a string among numbers fails its row and the Parquet file is written all the same."""
    grid = pd.DataFrame({"strokes": [1, 1, np.nan], "skating_angle_deg": [50.0, "wide", 50.0]})
    res = sk.sweep_skier(grid, scheduler="serial", progress=False, output=tmp_path / "s.parquet",
                         solver={"dt_out": 0.1})
    assert res.frame["status"].tolist() == ["ok", "error", "error"]
    assert res.frame["error"][1].startswith("ValueError: skating_angle_deg: must be a number, got 'wide'")
    assert res.frame["error"][2].startswith("ValueError: strokes: must be a number, got NaN")
    back = sk.read_sweep(tmp_path / "s.parquet")
    assert back.frame["status"].tolist() == ["ok", "error", "error"]
    assert back.frame["skating_angle_deg"].tolist() == ["50.0", "wide", "50.0"]
    assert back.frame["mean_speed"][0] == res.frame["mean_speed"][0]


def _crash_on_negative(row):
    if row["x"] < 0:
        import ctypes

        ctypes.string_at(0)  # SIGSEGV: the worker process dies
    return {"y": 2 * row["x"]}


@pytest.mark.slow
def test_a_dying_worker_is_reported_with_its_reason():
    """A row that kills its worker (SIGSEGV, as a damaged library did) fails alone, with the
    fault report the worker left (before: a bare KilledWorker)."""
    pytest.importorskip("distributed")
    res = sk.sweep(_crash_on_negative, pd.DataFrame({"x": [1.0, -1.0]}), n_workers=1, progress=False)
    assert res.frame["status"].tolist() == ["ok", "error"]
    msg = res.frame["error"][1]
    assert "Fatal Python error" in msg and "Segmentation fault" in msg, msg


# -- 7, 8 and own force data -------------------------------------------------------------------------------
def _recording(tmp_path, name="rec.csv", header=None, keep=(0, 1, 2, 3)):
    lines = sk.default_data_path().read_text().splitlines()
    head = (header or lines[0]).split(",")
    rows = [",".join(r.split(",")[k] for k in keep) for r in lines[1:]]
    p = tmp_path / name
    p.write_text("\n".join([",".join(head[k] for k in keep)] + rows) + "\n")
    return p


def test_push_fit_cache_is_keyed_on_content_not_mtime(tmp_path):
    """A same-size rewrite with the modification time kept is refit (it was served stale)."""
    p = _recording(tmp_path)
    a = sk.push_force_from_data(p, 1.0)
    st = p.stat()
    head, *rows = p.read_text().splitlines()
    digits = str.maketrans("12", "21")  # the forces change, the time column and the size do not
    p.write_text("\n".join([head] + [r.split(",", 1)[0] + "," + r.split(",", 1)[1].translate(digits)
                                     for r in rows]) + "\n")
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert p.stat().st_size == st.st_size and p.stat().st_mtime_ns == st.st_mtime_ns
    b = sk.push_force_from_data(p, 1.0)
    assert a.sha256 != b.sha256
    assert a.fit.a0 != b.fit.a0


def test_fast_loader_equals_the_careful_one_bit_for_bit():
    """pandas' C reader (the fast path) parses the committed file exactly as Python's float."""
    from skilib.data import forcedata as fd

    path = fd.default_data_path()
    df = fd.load_force_data(path)
    rows = [r.split(",") for r in path.read_text().splitlines()[1:]]
    ref = fd._to_numbers(rows, list(range(2, len(rows) + 2)), list(df.columns), path)
    np.testing.assert_array_equal(df.to_numpy(), ref)
    assert df.attrs["sha256"] == json.loads(fd.default_metadata_path().read_text())["sha256"]


def test_a_huge_kilonewton_cell_is_named_not_turned_into_inf(tmp_path):
    p = tmp_path / "kn.csv"
    p.write_text("t_s,force_left_kN,force_right_kN\n0.000,1.0,1.0\n0.001,1e306,1.0\n0.002,1.0,1.0\n")
    with pytest.raises(ValueError, match=rf"^{p}: line 3, column 'force_left': 1e\+306 kN overflows"):
        sk.load_force_data(p)


def test_own_column_names_and_single_plate_recordings(tmp_path):
    """A recording with its own header is read through ``columns=``; a single-plate one (one
    force column) is fitted on that column; an unknown mapped name is named."""
    fd = sk.data
    std = fd.load_force_data(_recording(tmp_path))
    own = _recording(tmp_path, "own.csv", header="zeit [s],links [N],rechts [N],reibung [N]")
    df = fd.load_force_data(own, columns={"time": "zeit", "left": "links", "right": "rechts"})
    assert list(df.columns[:3]) == ["t", "force_left", "force_right"] and "reibung" in df.columns
    np.testing.assert_array_equal(df[["t", "force_left", "force_right"]].to_numpy(),
                                  std[["t", "force_left", "force_right"]].to_numpy())
    single = _recording(tmp_path, "plate.csv", header="time_s,Fz_N,x,y", keep=(0, 1))
    push = fd.push_force_from_data(single, 1.0, columns={"time": "time_s", "force": "Fz_N"})
    assert push.pearson_r > 0.9 and push.source == str(single.resolve())
    assert fd.load_force_data(single, columns={"time": "time", "force": "Fz"})["force"].equals(
        fd.load_force_data(single, columns={"time": "time_s", "force": "Fz_N"})["force"])  # 'name_unit' matches too
    with pytest.raises(ValueError, match="'Fy'.* given in columns= are not in the header"):
        fd.load_force_data(single, columns={"time": "time_s", "force": "Fy"})
    with pytest.raises(ValueError, match="^columns: unknown key 'speed'"):
        fd.load_force_data(single, columns={"time": "time_s", "speed": "Fz_N"})


@pytest.mark.slow
def test_push_duration_mismatch_is_an_error_and_the_source_file_is_recorded(tmp_path):
    """A push fitted for a 1.0 s phase run with a 0.8 s phase was silently cut short: now an
    error naming both times; ``time_scaled`` stretches it explicitly, and the run records the
    recording's path and sha256."""
    import hashlib

    rec = _recording(tmp_path)
    push = sk.push_force_from_data(rec, 1.0)
    with pytest.raises(ValueError, match=r"^push_force: fitted for a phase of 1 s.*phase_time is 0.8 s"):
        sk.simulate_run(strokes=1, phase_time=0.8, c_ext=0.2, push_force=push)
    res = sk.simulate_run(strokes=1, phase_time=0.8, c_ext=0.2, push_force=push.time_scaled(0.8), dt_out=0.1)
    sha = hashlib.sha256(rec.read_bytes()).hexdigest()
    assert res.info["force_file"] == str(rec.resolve()) and res.info["force_sha256"] == sha
    assert str(rec.resolve()) in res.info["force_source"] and sha in res.info["force_source"]
    default = sk.simulate_run(strokes=1, dt_out=0.1)
    assert default.info["force_sha256"] == json.loads(sk.default_metadata_path().read_text())["sha256"]


@pytest.mark.slow
def test_a_batch_whose_worker_dies_runs_again_row_by_row():
    """Rows in batches (one Dask task per ``batch`` rows) give the table of one task per row; a
    batch whose worker dies is run again row by row: its other rows succeed, the row that
    killed it fails alone with the worker's fault report."""
    pytest.importorskip("distributed")
    grid = pd.DataFrame({"x": [1.0, 2.0, -1.0, 3.0, 4.0, 5.0, 6.0]})
    res = sk.sweep(_crash_on_negative, grid, n_workers=1, batch=3, progress=False)
    assert res.frame["status"].tolist() == ["ok", "ok", "error", "ok", "ok", "ok", "ok"]
    assert res.frame["y"].drop(2).tolist() == [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
    assert "Segmentation fault" in res.frame["error"][2], res.frame["error"][2]
    with pytest.raises(ValueError, match="batch"):
        sk.sweep(_crash_on_negative, grid, batch=0, progress=False)
