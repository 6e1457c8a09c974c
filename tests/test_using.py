"""The book page "Using this compendium" (book/using.md): every ``python`` and ``bash`` block
runs as written, at small settings, from the root of a scratch copy of the repository (the
notebooks, the Makefile, the project's ``.venv`` linked in, and a copy of the committed
SYNTHETIC force data as "your" ``runs/my_force.csv``), with a PATH that does not contain the
venv: the page must name ``.venv/bin/...`` or ``make`` itself. A ``python`` block that starts with
``# runs/name.py`` is saved there and run as the page says, ``.venv/bin/python runs/name.py``.
Everything the blocks write must land in ``runs/`` (git ignores it)."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("papermill")
ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "book" / "using.md"
BLOCK = re.compile(r"^```(python|bash)\n(.*?)^```", re.S | re.M)


def blocks():
    return [(lang, code) for lang, code in BLOCK.findall(PAGE.read_text())]


def test_the_page_has_the_four_snippets():
    found = blocks()
    assert len(found) >= 4, found
    text = PAGE.read_text()
    for what in ("papermill", "run_notebook", "push_force_from_data", 'if __name__ == "__main__":', "[lab]", "skilib steady", "optimum --speed"):
        assert what in text, what


def only_sources(folder, names):
    """copytree's ignore: what a build or a kernel leaves in notebooks/ (results, checkpoints,
    IPC socket files of a running kernel) is not copied; only regular files and folders are."""
    skip = {"results", ".ipynb_checkpoints", "__pycache__"}
    return [n for n in names if n in skip or not (os.path.isfile(os.path.join(folder, n))
                                                    or os.path.isdir(os.path.join(folder, n)))]


@pytest.fixture()
def scratch(tmp_path):
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks", ignore=only_sources)
    for name in ("Makefile", "pyproject.toml"):  # copy2 keeps the times: make sees the venv as up to date
        shutil.copy2(ROOT / name, tmp_path / name)
    for name in (".venv", "data"):
        (tmp_path / name).symlink_to(ROOT / name)
    from skilib.data.forcedata import default_data_path

    (tmp_path / "runs").mkdir()
    shutil.copy(default_data_path(), tmp_path / "runs" / "my_force.csv")
    return tmp_path


def test_copying_the_notebooks_skips_sockets_and_build_outputs(tmp_path):
    """A kernel's IPC socket in notebooks/ (a book build running in the same checkout) must not
    break the copy (copytree raises on a socket)."""
    import socket

    src = tmp_path / "nb"
    (src / "results").mkdir(parents=True)
    (src / "a.ipynb").write_text("{}")
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(src / "kernel-1.sock"))
    try:
        shutil.copytree(src, tmp_path / "copy", ignore=only_sources)
    finally:
        s.close()
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["a.ipynb"]


@pytest.mark.slow
@pytest.mark.parametrize("i", range(len(blocks())))
def test_snippet_runs(scratch, i):
    lang, code = blocks()[i]
    venv_bin = {str(Path(sys.executable).parent), str((ROOT / ".venv" / "bin"))}
    path = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d not in venv_bin]
    env = dict(os.environ, PATH=os.pathsep.join(path))
    env.pop("VIRTUAL_ENV", None)
    if lang == "python":
        named = re.match(r"# (runs/\w+\.py)\n", code)
        assert named, f"block {i}: a python block starts with the file it is saved as, # runs/name.py"
        (scratch / named.group(1)).write_text(code)
        cmd = [".venv/bin/python", named.group(1)]
    else:
        cmd = ["bash", "-ec", code]
    def outside_runs():  # files a block left outside runs/ (bytecode caches and kernel sockets aside)
        return {p for p in scratch.rglob("*") if p.relative_to(scratch).parts[0] != "runs"
                and "__pycache__" not in p.parts and (p.is_file() or p.is_dir())}

    before = outside_runs()
    r = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"block {i} ({lang}) failed:\n{code}\n--- stderr:\n{r.stderr[-3000:]}"
    after = outside_runs()
    assert not sorted(after - before), f"block {i} wrote outside runs/: {sorted(after - before)}"
    assert any((scratch / "runs").rglob("*")), f"block {i}: nothing in runs/"
