"""Every Python snippet of the README runs as written: the blocks, in their order, as one
script in a fresh folder (they build on each other: ``sk`` and ``pd`` come from earlier
blocks), with this checkout's package."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def readme_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), re.M | re.S)


@pytest.mark.slow
def test_the_readme_snippets_run_as_written(tmp_path):
    blocks = readme_blocks()
    assert len(blocks) >= 5
    script = tmp_path / "readme.py"
    # the last expression of a block is shown by a notebook, printed here
    script.write_text("\n\n".join(blocks), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "results" / "grid.parquet").is_file() and (tmp_path / "run.c3d").is_file()


def _section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_what_we_found_is_what_the_model_gives():
    """The README's headline numbers, recomputed: each appears in "What we found" exactly as the
    model gives it, at the precision printed there."""
    import skilib as sk
    from skilib.models.thesis.calibrate import calibrate_force_scale

    found = _section("What we found")
    thesis = sk.steady_state()
    cal = calibrate_force_scale()
    free = sk.free_steady_state()
    expected = {
        "u0": f"**{thesis.u0:.2f} m/s**", "thesis speed": f"**{thesis.mean_speed:.2f} m/s**",
        "thesis power": f"**{thesis.mean_power:.0f} W**", "force scale": f"**{cal.force_scale:.3f}**",
        "calibrated power": f"**{cal.steady.mean_power:.0f} W**", "free speed": f"**{free.mean_speed:.2f} m/s**",
        "free power": f"**{free.mean_power:.1f} W**", "free peak force": f"**{free.peak_leg_force_bw:.2f}**",
    }
    edge = sk.edge_steady_state(multipliers=False)
    expected.update({"edge speed": f"**{edge.progress_speed:.2f} m/s**", "edge power": f"**{edge.mean_power:.1f} W**"})
    account = sk.energy_account(cal.steady).set_index("term").percent
    expected.update({f"{term} share": f"**{account[term]:.0f} %**"
                     for term in ("ke_loss_change", "pe_loss_reset", "friction")})
    missing = {k: v for k, v in expected.items() if v not in found}
    assert not missing, f"README 'What we found' does not show what the model gives: {missing}"
    assert abs(cal.steady.mean_speed - 2.47) < 1e-9  # the calibration's one number in


def test_the_readme_make_commands_are_targets():
    """Every `make ...` line of the README's bash blocks names a target of the Makefile (dry run)."""
    blocks = re.findall(r"^```bash\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), re.M | re.S)
    lines = [ln.split("#")[0].strip() for b in blocks for ln in b.splitlines() if ln.strip().startswith("make ")]
    assert len(lines) >= 4, lines
    for ln in lines:
        done = subprocess.run(ln.replace("make ", "make -n ", 1), shell=True, cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, f"README's `{ln}`: {done.stderr}"
