"""Every Python snippet of the README runs as written: the blocks, in their order, as one
script in a fresh folder (they build on each other: ``sk`` and ``pd`` come from earlier
blocks), with this checkout's package."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), re.M | re.S)


def test_the_readme_snippets_run_as_written(tmp_path):
    blocks = readme_blocks()
    assert len(blocks) >= 5
    script = tmp_path / "readme.py"
    # the last expression of a block is shown by a notebook, printed here
    script.write_text("\n\n".join(blocks), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "results" / "grid.parquet").is_file() and (tmp_path / "run.c3d").is_file()
