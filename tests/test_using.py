"""The book page "Using this compendium" (book/using.md): every ``python`` and ``bash`` block
runs as written, at small settings, in a scratch folder that holds the repository's notebooks
and a copy of the committed SYNTHETIC force data as "your" ``my_force.csv``."""
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
    for what in ("papermill", "run_notebook", "push_force_from_data", 'if __name__ == "__main__":', "[lab]"):
        assert what in text, what


@pytest.fixture()
def scratch(tmp_path):
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks", ignore=shutil.ignore_patterns("results", ".ipynb*"))
    from skilib.data.forcedata import default_data_path

    shutil.copy(default_data_path(), tmp_path / "my_force.csv")
    return tmp_path


@pytest.mark.parametrize("i", range(len(blocks())))
def test_snippet_runs(scratch, i):
    lang, code = blocks()[i]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if lang == "python":
        script = scratch / (re.search(r"# (\w+\.py)", code).group(1) if re.match(r"# \w+\.py", code) else f"snippet{i}.py")
        script.write_text(code)
        cmd = [sys.executable, script.name]
    else:
        cmd = ["bash", "-ec", code]
    r = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"block {i} ({lang}) failed:\n{code}\n--- stderr:\n{r.stderr[-3000:]}"
