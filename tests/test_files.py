"""Every file skilib writes is written atomically and checked, every file it reads is checked.

Writers (``write_atomic`` and the four that use it: ``write_force_data``, ``write_run``,
``SimResult.to_c3d``, ``sweep(output=)``): an existing file is kept byte for byte unless
``overwrite=True``; a folder or a missing folder is refused by name and nothing is created; a
write that fails (the writer raises, the disk is full, the file does not read back) leaves no
temporary file and the old file intact; a valid write round-trips exactly as before.

Readers (``read_c3d``, ``read_force_data``, ``read_run``, ``load_force_data``, ``read_sweep``):
a truncated, empty, random or missing file or a folder is an error naming the file, never a
silent short read; a CSV cell such as ``1_000`` is refused with its line and column.
"""
from __future__ import annotations

import errno
import hashlib
import os

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ezc3d")

import ezc3d  # noqa: E402

import skilib as sk  # noqa: E402
from skilib.data import c3d  # noqa: E402
from skilib.data.files import check_target, write_atomic  # noqa: E402
from skilib.data.forcedata import load_force_data  # noqa: E402
from skilib.models.thesis import c3d as thesis_c3d  # noqa: E402
from skilib.studies.sweeps import read_sweep  # noqa: E402


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def only(folder, *names):
    """The folder holds exactly ``names`` (no temporary file left behind)."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)


# ---------------------------------------------------------------------------
# write_atomic
# ---------------------------------------------------------------------------

def _text(s):
    return lambda tmp: tmp.write_text(s)


def test_write_atomic_refuses_an_existing_file_without_overwrite(tmp_path):
    p = tmp_path / "a.txt"
    assert write_atomic(p, _text("old")) == p and p.read_text() == "old"
    before = sha(p)
    with pytest.raises(FileExistsError, match=r"a\.txt: exists; pass overwrite=True"):
        write_atomic(p, _text("new"))
    assert sha(p) == before
    with pytest.raises(ValueError, match=r"^overwrite: must be True or False, got 'yes'"):
        write_atomic(p, _text("new"), overwrite="yes")
    assert sha(p) == before
    assert write_atomic(p, _text("new"), overwrite=True) == p and p.read_text() == "new"
    only(tmp_path, "a.txt")


def test_write_atomic_refuses_a_folder_and_a_missing_folder(tmp_path):
    with pytest.raises(IsADirectoryError, match=rf"{tmp_path}: is a folder"):
        write_atomic(tmp_path, _text("x"), overwrite=True)
    missing = tmp_path / "no" / "such" / "a.txt"
    with pytest.raises(FileNotFoundError, match=r"a\.txt: cannot write the file: the folder .*such does not exist"):
        write_atomic(missing, _text("x"))
    (tmp_path / "f").write_text("a file")
    with pytest.raises(NotADirectoryError, match=r"f is not a folder"):
        write_atomic(tmp_path / "f" / "a.txt", _text("x"))
    only(tmp_path, "f")
    # asked for, the folders are made
    assert write_atomic(missing, _text("x"), make_parents=True).read_text() == "x"


@pytest.mark.parametrize("failure", ["raises", "disk_full", "no_file", "empty", "verify_raises", "verify_false"])
def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path, failure):
    p = tmp_path / "a.txt"
    p.write_text("old content")
    before = sha(p)

    def write(tmp):
        if failure == "raises":
            tmp.write_text("half")
            raise RuntimeError("writer crashed")
        if failure == "disk_full":
            tmp.write_text("half")
            raise OSError(errno.ENOSPC, "No space left on device")
        if failure == "no_file":
            return
        tmp.write_text("" if failure == "empty" else "new content")

    def verify(tmp):
        if failure == "verify_raises":
            raise ValueError(f"{tmp}: 3 rows read, 4 written")
        return failure != "verify_false"

    with pytest.raises(OSError) as info:
        write_atomic(p, write, overwrite=True, verify=verify)
    msg = str(info.value)
    assert msg.startswith(f"{p}: ")
    assert ".tmp" not in msg  # the messages name the target, not the temporary file
    expected = {"raises": "RuntimeError: writer crashed", "disk_full": "No space left on device",
                "no_file": "left no file", "empty": "is empty", "verify_raises": "3 rows read, 4 written",
                "verify_false": "does not read back"}[failure]
    assert expected in msg
    if failure == "disk_full":
        assert info.value.errno == errno.ENOSPC
    assert sha(p) == before
    only(tmp_path, "a.txt")


def test_a_writer_refusing_its_input_keeps_its_message_with_the_target_name(tmp_path):
    p = tmp_path / "a.txt"

    def write(tmp):
        raise ValueError(f"{tmp}: C3D needs a uniform time grid")

    with pytest.raises(ValueError, match=rf"^{p}: C3D needs a uniform time grid$"):
        write_atomic(p, write)
    only(tmp_path)


def test_check_target_changes_nothing(tmp_path):
    p = tmp_path / "sub" / "a.txt"
    assert check_target(p, make_parents=True) == p
    only(tmp_path)
    with pytest.raises(TypeError, match=r"^path: "):
        check_target(None)


# ---------------------------------------------------------------------------
# the C3D writers
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def run():
    p = sk.SkierParams()
    return sk.simulate_run(p, strokes=2, dt_out=0.01, push_force=sk.stand_in_push_force(p, p.phase_time))


@pytest.fixture(scope="module")
def force():
    t = np.arange(400) / 1000.0
    return pd.DataFrame({"t": t, "force_left": 300 + 200 * np.sin(7 * t), "force_right": 250 * np.cos(5 * t),
                         "friction": 10 + t})


def _writers(run, force):
    return {
        "write_force_data": lambda p, **kw: c3d.write_force_data(force, p, **kw),
        "write_run": lambda p, **kw: thesis_c3d.write_run(run, p, **kw),
        "to_c3d": lambda p, **kw: run.to_c3d(p, **kw),
    }


WRITERS = ["write_force_data", "write_run", "to_c3d"]


@pytest.mark.parametrize("writer", WRITERS)
def test_c3d_writer_keeps_an_existing_file_unless_overwrite(run, force, tmp_path, writer):
    w = _writers(run, force)[writer]
    p = tmp_path / "x.c3d"
    p.write_bytes(b"an older file")
    before = sha(p)
    with pytest.raises(FileExistsError, match=r"x\.c3d: exists; pass overwrite=True"):
        w(p)
    assert sha(p) == before
    assert w(p, overwrite=True) == p
    assert sha(p) != before and p.read_bytes()[1] == 0x50  # now a C3D file
    only(tmp_path, "x.c3d")


@pytest.mark.parametrize("writer", WRITERS)
def test_c3d_writer_refuses_a_folder_and_a_missing_folder(run, force, tmp_path, writer):
    w = _writers(run, force)[writer]
    with pytest.raises(IsADirectoryError, match=rf"{tmp_path}: is a folder"):
        w(tmp_path, overwrite=True)
    with pytest.raises(FileNotFoundError, match=r"x\.c3d: cannot write the C3D file: the folder .*nope does not"):
        w(tmp_path / "nope" / "x.c3d")
    only(tmp_path)


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("failure", ["raises", "truncated"])
def test_c3d_writer_failure_keeps_the_old_file(run, force, tmp_path, monkeypatch, writer, failure):
    """ezc3d crashes mid-write, or writes a file cut short (a full disk): the read-back check
    sees it, the old file stays and no temporary file is left."""
    w = _writers(run, force)[writer]
    p = tmp_path / "x.c3d"
    w(p)
    before = sha(p)
    real = ezc3d.c3d.write

    def broken(self, path, **kw):
        real(self, path, **kw)
        if failure == "raises":
            raise RuntimeError("iostream error")
        with open(path, "r+b") as fh:
            fh.truncate(os.path.getsize(path) // 2)

    monkeypatch.setattr(ezc3d.c3d, "write", broken)
    with pytest.raises(OSError, match=r"x\.c3d: ") as info:
        w(p, overwrite=True)
    assert ".tmp" not in str(info.value)
    assert ("iostream error" if failure == "raises" else "truncated") in str(info.value)
    assert sha(p) == before
    only(tmp_path, "x.c3d")


def test_force_data_round_trip_is_exact_to_float32(force, tmp_path):
    p = c3d.write_force_data(force, tmp_path / "f.c3d")
    back = load_force_data(p)
    assert list(back.columns) == list(force.columns)
    np.testing.assert_array_equal(back["t"], force["t"])
    for col in ("force_left", "force_right", "friction"):
        np.testing.assert_array_equal(back[col], force[col].to_numpy().astype(np.float32).astype(float))


def test_run_round_trip_is_exact_to_float32(run, tmp_path):
    p = run.to_c3d(tmp_path / "r.c3d")
    back = thesis_c3d.read_run(p)
    f = run.frame.iloc[thesis_c3d.stroke_rows(run.frame)]
    for ch in thesis_c3d.ANALOG_CHANNELS:
        np.testing.assert_array_equal(back.analogs[ch], f[ch].to_numpy().astype(np.float32))
    assert back.skier_params() == run.params
    # to_c3d writes the same bytes as write_run, apart from nothing
    q = thesis_c3d.write_run(run, tmp_path / "w.c3d")
    assert p.read_bytes() == q.read_bytes()


def test_to_c3d_returns_a_path_only_if_the_file_was_written(run, tmp_path, monkeypatch):
    model = type(run.models[0])
    monkeypatch.setattr(model, "write_c3d", lambda self, result, path: path)  # writes nothing
    with pytest.raises(OSError, match=r"x\.c3d: writing the C3D file failed: the writer left no file"):
        run.to_c3d(tmp_path / "x.c3d")
    only(tmp_path)


def test_force_data_is_never_trimmed_padded_or_shifted(force, tmp_path):
    with pytest.raises(ValueError, match=r"^df: 405 samples are not a multiple of the 10 analog samples per point "
                                         r"frame .* would lose the last 5"):
        c3d.write_force_data(pd.concat([force, force.iloc[:5].assign(t=force.t.iloc[:5] + 0.4)],
                                       ignore_index=True), tmp_path / "a.c3d")
    with pytest.raises(ValueError, match=r"^df: column 't' starts at 0\.0005 s, not a whole number"):
        c3d.write_force_data(force.assign(t=force.t + 0.0005), tmp_path / "a.c3d")
    with pytest.raises(ValueError, match=r"^point_rate: 30\.0 Hz must divide the analog rate"):
        c3d.write_force_data(force, tmp_path / "a.c3d", point_rate=30.0)
    big = pd.DataFrame({"t": np.arange(655360) / 1000.0, "force_left": 1.0, "force_right": 2.0})
    with pytest.raises(ValueError, match=r"^df: 65536 point frames from frame 1: a C3D header counts frames up "
                                         r"to 65535"):
        c3d.write_force_data(big, tmp_path / "a.c3d")
    only(tmp_path)
    # a start on a frame and another divisor are fine
    p = c3d.write_force_data(force.assign(t=force.t + 0.02), tmp_path / "b.c3d", point_rate=50.0)
    np.testing.assert_allclose(load_force_data(p)["t"], force.t + 0.02, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------
# the readers
# ---------------------------------------------------------------------------

READERS = {
    "read_c3d": c3d.read_c3d,
    "read_force_data": c3d.read_force_data,
    "load_force_data": load_force_data,
    "read_run": thesis_c3d.read_run,
}


@pytest.fixture(scope="module")
def c3d_files(run, force, tmp_path_factory):
    d = tmp_path_factory.mktemp("c3d")
    return {"force": c3d.write_force_data(force, d / "force.c3d"), "run": run.to_c3d(d / "run.c3d")}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("source", ["force", "run"])
@pytest.mark.parametrize("cut", [0.5, 0.9, "last byte"])
def test_a_truncated_c3d_file_is_refused_by_name(c3d_files, tmp_path, reader, source, cut):
    """Cut to half, to 90 % (ezc3d alone reads fewer frames without a word), or by the last
    byte of the last frame (what follows it is padding of the 512-byte block)."""
    raw = c3d_files[source].read_bytes()
    end = c3d.c3d_layout(raw, "x").size
    assert end <= len(raw)
    p = tmp_path / f"cut_{source}.c3d"
    p.write_bytes(raw[: end - 1 if cut == "last byte" else int(len(raw) * cut)])
    with pytest.raises(ValueError, match=rf"^{p}: truncated: the header declares \d+ frames"):
        READERS[reader](p)


@pytest.mark.parametrize("reader", sorted(READERS))
def test_bad_c3d_files_are_refused_by_name(tmp_path, reader):
    read = READERS[reader]
    empty = tmp_path / "empty.c3d"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match=rf"^{empty}: empty file \(0 bytes\)"):
        read(empty)
    noise = tmp_path / "noise.c3d"
    noise.write_bytes(np.random.default_rng(7).bytes(4096))
    with pytest.raises(ValueError, match=rf"^{noise}: not a C3D file"):
        read(noise)
    short = tmp_path / "short.c3d"
    short.write_bytes(b"\x02\x50" + bytes(100))
    with pytest.raises(ValueError, match=rf"^{short}: 102 bytes, shorter than the 512-byte C3D header"):
        read(short)
    folder = tmp_path / "folder.c3d"
    folder.mkdir()
    with pytest.raises(IsADirectoryError, match=rf"^{folder}: is a folder"):
        read(folder)
    with pytest.raises(FileNotFoundError, match=r"missing\.c3d"):
        read(tmp_path / "missing.c3d")


def test_a_header_that_ezc3d_cannot_read_is_named_with_the_cause(c3d_files, tmp_path):
    """A valid header whose parameter section is noise: ezc3d's own error, with the file's name."""
    raw = bytearray(c3d_files["force"].read_bytes())
    raw[516:1024] = np.random.default_rng(3).bytes(508)
    p = tmp_path / "params.c3d"
    p.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=rf"^{p}: ") as info:
        c3d.read_c3d(p)
    assert info.value.__cause__ is not None or "truncated" in str(info.value) or "frames" in str(info.value)


# ---------------------------------------------------------------------------
# CSV cells
# ---------------------------------------------------------------------------

def _csv(tmp_path, cell, row=2):
    lines = ["t_s,force_left_N,force_right_N"] + [f"{i / 1000:.3f},{10 + i},{20 - i}" for i in range(4)]
    cells = lines[row].split(",")
    cells[1] = cell
    lines[row] = ",".join(cells)
    p = tmp_path / "f.csv"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("cell, what", [
    ("1_000", r"non-numeric value '1_000' \(digit separators"),
    ("1_000.5", "non-numeric value '1_000.5'"),
    ("1e1_0", "non-numeric value '1e1_0'"),
    ("\uff11\uff12", "non-numeric value"),          # full-width digits, float() reads 12
    ("\u0661\u0662", "non-numeric value"),          # Arabic-Indic digits, float() reads 12
    ("", r"empty cell \(missing value\)"),
    ("NA", "non-numeric value 'NA'"),
    ("nan", "non-finite value 'nan'"),
    ("-inf", "non-finite value '-inf'"),
    ("1e999", "non-finite value '1e999'"),
    ("ten", "non-numeric value 'ten'"),
])
def test_a_csv_cell_that_is_not_a_plain_number_is_refused_with_line_and_column(tmp_path, cell, what):
    p = _csv(tmp_path, cell, row=3)
    with pytest.raises(ValueError, match=rf"^{p}: line 4, column 'force_left': {what}"):
        load_force_data(p)


def test_plain_csv_numbers_read_as_before(tmp_path):
    p = _csv(tmp_path, " +1.5E+01 ", row=2)
    df = load_force_data(p)
    assert len(df) == 4 and df["force_left"].tolist() == [10.0, 15.0, 12.0, 13.0]


def test_metadata_rate_must_be_a_number(tmp_path):
    p = _csv(tmp_path, "11", row=2)
    for bad in ("1_000", "1000", True, float("nan"), -1000.0):
        with pytest.raises(ValueError, match=rf"^{p}: metadata 'sampling_rate_hz': expected a positive number"):
            load_force_data(p, metadata={"sampling_rate_hz": bad})
    assert len(load_force_data(p, metadata={"sampling_rate_hz": 1000})) == 4


# ---------------------------------------------------------------------------
# sweep(output=)
# ---------------------------------------------------------------------------

def _box(row):
    return {"area": row["w"] * row["h"]}


GRID = pd.DataFrame({"w": [2.0, 3.0, 4.0], "h": [1.5, 0.5, 1.0]})


def _sweep(path, **kw):
    return sk.sweep(_box, GRID, scheduler="serial", progress=False, output=path, **kw)


def test_sweep_output_keeps_an_existing_file_unless_overwrite(tmp_path):
    p = tmp_path / "s.parquet"
    res = _sweep(p)
    assert res.path == p
    back = read_sweep(p)
    pd.testing.assert_frame_equal(back.frame, res.frame)
    before = sha(p)
    calls = []
    with pytest.raises(FileExistsError, match=r"s\.parquet: exists; pass overwrite=True"):
        sk.sweep(lambda r: calls.append(r) or 1.0, GRID, scheduler="serial", progress=False, output=p)
    assert calls == []  # refused before any row ran
    assert sha(p) == before
    assert _sweep(p, overwrite=True).path == p
    only(tmp_path, "s.parquet")


def test_sweep_output_refuses_a_folder_and_a_csv_name_before_running(tmp_path):
    with pytest.raises(IsADirectoryError, match=rf"{tmp_path}: is a folder"):
        _sweep(tmp_path, overwrite=True)
    with pytest.raises(ValueError, match=r"^output: .*s\.csv names a CSV file"):
        _sweep(tmp_path / "s.csv")
    only(tmp_path)
    # missing folders are made (documented)
    assert _sweep(tmp_path / "a" / "b" / "s.parquet").path.is_file()


@pytest.mark.parametrize("failure", ["raises", "truncated"])
def test_sweep_output_failure_keeps_the_old_file(tmp_path, monkeypatch, failure):
    import pyarrow.parquet as pq

    p = tmp_path / "s.parquet"
    _sweep(p)
    before = sha(p)
    real = pq.write_table

    def broken(table, where, **kw):
        real(table, where, **kw)
        if failure == "raises":
            raise OSError(errno.ENOSPC, "No space left on device")
        with open(where, "r+b") as fh:
            fh.truncate(os.path.getsize(where) // 2)

    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(OSError, match=r"s\.parquet: ") as info:
        _sweep(p, overwrite=True)
    assert ("No space left" if failure == "raises" else "does not read back") in str(info.value)
    assert sha(p) == before
    only(tmp_path, "s.parquet")


def test_read_sweep_refuses_bad_files_by_name(tmp_path):
    p = tmp_path / "s.parquet"
    _sweep(p)
    raw = p.read_bytes()
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(raw[: len(raw) // 2])
    empty = tmp_path / "empty.parquet"
    empty.write_bytes(b"")
    noise = tmp_path / "noise.parquet"
    noise.write_bytes(np.random.default_rng(5).bytes(2048))
    for bad in (cut, empty, noise):
        with pytest.raises(ValueError, match=rf"^{bad}: not a readable Parquet file"):
            read_sweep(bad)
    with pytest.raises(IsADirectoryError, match=rf"^{tmp_path}: is a folder"):
        read_sweep(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"nope\.parquet: no such sweep file"):
        read_sweep(tmp_path / "nope.parquet")
