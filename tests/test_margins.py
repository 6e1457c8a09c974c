"""Cross-path comparisons under other processors' kernels (``make check``; CI runs it).

Bit-for-bit identity is promised only on one machine (chapter *Using this compendium*,
"Reproducibility"): NumPy's and SciPy's products go through OpenBLAS, which picks its kernels
by processor, and another kernel sums in another order.  The tests marked ``cross_path`` compare
one quantity along two code paths, or with a kept result; here they run again, in a subprocess,
with ``OPENBLAS_CORETYPE`` set to

- ``Prescott``: OpenBLAS's oldest x86-64 kernels (SSE3, no FMA), the farthest from the AVX-512
  kernels this machine's OpenBLAS picks, so the widest other order of rounding;
- ``Haswell``: AVX2 with FMA, the kernels of most laptops and cloud machines of the last decade.

Each run records every comparison (``SKILIB_VERIFICATION_OUT``), and the test prints the
error/tolerance ratios, largest first, and fails if a comparison failed or came within a
factor of ten of its tolerance (ratio > 0.1) without an argued tolerance (``argued=``, tests/conftest.py).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MARGIN, OUT_ENV, _closeness

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ("Prescott", "Haswell")


def ratios(records: dict) -> list[dict]:
    """Each kept comparison of a cross-path test with its error/tolerance ratio, largest first."""
    out = []
    for c in records["checks"]:
        if not c.get("cross_path") or c["relation"] == ">":
            continue
        out.append(dict(c, ratio=_closeness(c["value"], c["bound"], c["relation"])))
    return sorted(out, key=lambda c: -c["ratio"])


def offending(rows: list[dict]) -> list[dict]:
    """The comparisons that failed, or came nearer than ``MARGIN`` to their tolerance unargued."""
    return [c for c in rows if not c["passed"] or (c["ratio"] > MARGIN and not c.get("argued"))]


def table(rows: list[dict]) -> str:
    lines = [f"{'ratio':>8}  {'error':>10}  {'tolerance':>10}  argued  test | quantity"]
    for c in rows:
        lines.append(f"{c['ratio']:8.3f}  {c['value']:10.3e}  {c['bound']:10.3e}  {'yes' if c.get('argued') else '-':>6}  "
                     f"{c['nodeid'].split('/')[-1]} | {c['quantity']}")
    return "\n".join(lines)


@pytest.mark.check
@pytest.mark.parametrize("kernel", KERNELS)
def test_cross_path_comparisons_keep_their_margin_on_another_kernel(kernel, tmp_path):
    """Every cross-path comparison, run under another OpenBLAS kernel: passes, and stays below a
    tenth of its tolerance unless the tolerance is argued."""
    out = tmp_path / "records.json"
    env = dict(os.environ, OPENBLAS_CORETYPE=kernel, **{OUT_ENV: str(out)})
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "cross_path", "-n", "2",
           "--dist", "loadgroup", "tests"]
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.exists(), f"OPENBLAS_CORETYPE={kernel}: pytest wrote no records\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
    rows = ratios(json.loads(out.read_text()))
    assert rows, f"OPENBLAS_CORETYPE={kernel}: no cross-path comparison was recorded"
    print(f"\nOPENBLAS_CORETYPE={kernel}: {len(rows)} cross-path comparisons\n{table(rows)}")
    bad = offending(rows)
    assert run.returncode == 0 and not bad, (
        f"OPENBLAS_CORETYPE={kernel}: pytest exit {run.returncode}; comparisons failed or without margin:\n"
        f"{table(bad)}\n{run.stdout[-3000:]}")


def test_the_list_finds_a_comparison_without_margin():
    """The selection itself: an unargued ratio above 0.1 or a failure is listed, an argued one
    and a comfortable one are not, and non-cross-path checks are left out."""
    rec = {"checks": [
        dict(nodeid="a", quantity="near", value=0.5, bound=1.0, relation="<=", passed=True, argued="", cross_path=True),
        dict(nodeid="b", quantity="argued", value=0.9, bound=1.0, relation="<=", passed=True, argued="why",
             cross_path=True),
        dict(nodeid="c", quantity="far", value=0.01, bound=1.0, relation="<=", passed=True, argued="", cross_path=True),
        dict(nodeid="d", quantity="failed", value=2.0, bound=1.0, relation="<=", passed=False, argued="why",
             cross_path=True),
        dict(nodeid="e", quantity="closed form", value=0.9, bound=1.0, relation="<=", passed=True, argued="",
             cross_path=False)]}
    rows = ratios(rec)
    assert [c["quantity"] for c in rows] == ["failed", "argued", "near", "far"]
    assert [c["quantity"] for c in offending(rows)] == ["failed", "near"]


def test_every_comparison_keeps_its_margin_or_argues_it():
    """The rule on every test, not only the cross-path ones: an error above a tenth of its
    tolerance fails without ``argued``, passes with it, and an error past the tolerance fails
    either way."""
    from conftest import Measured

    m = Measured("unit", None)
    assert m.check("far", 0.05, 1.0) == 0.05
    with pytest.raises(AssertionError, match=r"near: error 5\.000e-01 is 0\.50 of its tolerance.*argued="):
        m.check("near", 0.5, 1.0)
    assert m.check("near, argued", 0.5, 1.0, argued="half the step") == 0.5
    with pytest.raises(AssertionError, match="exceeds the tolerance"):
        m.check("past", 2.0, 1.0, argued="half the step")
    with pytest.raises(AssertionError, match="of its tolerance"):
        m.allclose("near, allclose", 1.0 + 5e-9, 1.0, rtol=1e-8)
