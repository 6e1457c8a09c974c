"""The Verification chapter's machinery: the `measured` fixture and scripts/verification_report.py.

No physics here.  Hand-made records become the expected table rows (formatting, sections, cases,
a failed test marked); every test function of the verification files measures through
`measured` or is exempt with a reason; `measured` compares exactly as numpy's allclose does;
book/verification.md includes every section of the generated file and pastes no number itself.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import Measured, _Recorder

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "book" / "verification.md"


@pytest.fixture(scope="module")
def vr():
    spec = importlib.util.spec_from_file_location("verification_report", ROOT / "scripts" / "verification_report.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def check(nodeid, quantity, value, bound, unit="", relation="<=", passed=True, n=1):
    return dict(nodeid=nodeid, quantity=quantity, value=value, bound=bound, unit=unit, relation=relation,
                passed=passed, n=n, bound_min=bound, bound_max=bound)


def entry(nodeid, outcome="passed", doc="", message=""):
    file, func = nodeid.split("/", 1)[1].split("::")
    return dict(nodeid=nodeid, file=file, function=func.split("[")[0], case=None, doc=doc, outcome=outcome,
                duration_s=0.1, message=message)


ROT = "tests/test_rotation.py::test_G_bar_is_At_G"
FD = "tests/test_constraints.py::test_jacobian_ct_and_qd_against_finite_differences"
PERIOD = "tests/test_dynamics.py::test_large_amplitude_pendulum_period_is_elliptic"
DRIFT = "tests/test_euler_parameters.py::test_drift_none_grows_baumgarte_bounded_projection_exact"
RECUR = "tests/test_fourier.py::test_scalar_recurrence_equals_the_written_out_series"


@pytest.fixture()
def records():
    tests = [entry(ROT, doc="Ḡ = AᵀG (eq. 30) gives | the printed eq. 31."),
             entry(FD + "[0]", doc="Cq against differences."), entry(FD + "[1]", doc="Cq against differences."),
             entry(PERIOD, "failed", doc="The period is elliptic.", message="AssertionError: period ..."),
             entry(DRIFT, doc="Drift grows."),
             entry(RECUR + "[1]", doc="Recurrence."), entry(RECUR + "[10]", doc="Recurrence."),
             entry("tests/test_rotation.py::test_not_in_any_file", doc="Unknown to the script.")]
    checks = [check(ROT, "Ḡ vs AᵀG", 4.321e-14, 1e-12, n=20),
              check(FD + "[0]", "Cq vs differences", 2.6e-10, 1e-9, n=5),
              check(FD + "[1]", "Cq vs differences", 1.1e-10, 1e-9, n=5),
              check(FD + "[1]", "Ċ vs Cq q̇ + Ct", 0.0, 1e-12, n=5),
              check(PERIOD, "period vs 4√(ℓₑ/g) K", 3.2e-6, 1e-6, "rel.", passed=False),
              check(DRIFT, "none: max|C| ratio", 57.3, 10.0, relation=">"),
              check(RECUR + "[1]", "recurrence vs series", 5e-14, 1e-13),
              check(RECUR + "[10]", "recurrence vs series", 2e-13, 1e-12),
              check("tests/test_rotation.py::test_not_in_any_file", "x", 1e-3, 0.05)]
    meta = dict(date="2026-01-02 03:04 UTC", duration_s=153.4, exitstatus=1, python="3.11.7", numpy="2.4.6",
                platform="Linux", cpus=2, args=[], commit="abc1234", changed_files=["a.py"])
    return dict(meta=meta, tests=tests, checks=checks)


def section(text, slug):
    return text.split(f"<!-- section {slug} -->\n", 1)[1].split(f"<!-- end {slug} -->", 1)[0]


def plain(text):
    """The generated Markdown without its HTML for line breaking (nowrap numbers, <wbr> names)."""
    text = re.sub(r'<span style="white-space:nowrap">(.*?)</span>', r"\1", text)
    return text.replace("<wbr>", "").replace("<code>", "`").replace("</code>", "`").replace("\\_", "_")


def test_records_become_the_expected_rows(vr, records):
    """Formatting (4.3e-14, 1e-12, > 10, units), one row per quantity, cases merged to the
    largest error, a failed test and its failing comparison marked, a case-dependent
    tolerance marked †, an unknown test kept rather than dropped."""
    html = vr.render(records)
    assert '<span style="white-space:nowrap">4.3e-14</span>' in html  # no line break inside a number
    text = plain(html)
    rot = section(text, "rotations")
    assert ("| `test_rotation.py::test_G_bar_is_At_G` | Ḡ = AᵀG (eq. 30) gives \\| the printed eq. 31. "
            "| Ḡ vs AᵀG | 1e-12 | 4.3e-14 |") in rot
    con = section(text, "constraints")
    assert ("| `test_constraints.py::test_jacobian_ct_and_qd_against_finite_differences` (2 cases) "
            "| Cq against differences. | Cq vs differences | 1e-9 | 2.6e-10 |") in con
    assert "|  |  | Ċ vs Cq q̇ + Ct | 1e-12 | 0 |" in con
    cons = section(text, "conservation")
    assert "`test_dynamics.py::test_large_amplitude_pendulum_period_is_elliptic` **failed**" in cons
    assert "| 1e-6 rel. | **3.2e-6 rel. (fails)** |" in cons
    assert "| none: max\\|C\\| ratio | \\> 10 | 57 |" in section(text, "parametrizations")
    fourier = section(text, "fourier")
    assert "(2 cases)" in fourier and "| recurrence vs series | 1e-13† | 5.0e-14 |" in fourier
    assert "† The tolerance depends on the case" in fourier
    assert "`test_rotation.py::test_not_in_any_file`" in text  # shown, not dropped
    run = text.split("<!-- run -->\n", 1)[1].split("<!-- end run -->", 1)[0]
    assert "commit `abc1234` with uncommitted changes in 1 files" in run
    assert "8 tests (6 test functions) with 9 measured quantities" in run and "**1 failed**" in run
    assert "in 2.6 min (153 s)" in run
    # every section of the page has its slice, in order
    assert [m for m in re.findall(r"<!-- section ([\w-]+) -->", text)] == [s.slug for s in vr.SECTIONS]


def test_an_argued_tolerance_is_marked_and_its_reason_printed(vr, records):
    """A comparison that carries ``argued`` gets ‡ beside its tolerance and its reason under the
    section's table, once per quantity, whichever case carried it."""
    records["checks"][1]["argued"] = "the difference's own error bound h²/6 max|y‴|."
    text = plain(vr.render(records))
    con = section(text, "constraints")
    assert "| Cq vs differences | 1e-9‡ | 2.6e-10 |" in con
    assert "‡ The error may come within a factor of ten of this tolerance" in con
    assert con.count("- Cq vs differences: the difference's own error bound h²/6 max\\|y‴\\|.") == 1
    assert "‡" not in section(text, "rotations")


def test_number_formats(vr):
    assert [vr.fmt(x) for x in (4.321e-14, 0.0342, 57.3, 1234.0, 0.0, -2.3e-9, 1.5e5)] == \
        ["4.3e-14", "0.034", "57", "1234", "0", "−2.3e-9", "1.5e5"]
    assert vr.fmt(0.0016, sci=True) == "1.6e-3"
    assert [vr.fmt_bound(x) for x in (1e-9, 2e-7, 0.05, 1 + 1e-9, 2.6789012345678e-6, 10.0)] == \
        ["1e-9", "2e-7", "0.05", "1.000000001", "2.7e-6", "10"]


def test_skipped_run_shows_no_numbers(vr):
    text = vr.render_skipped("--no-verification")
    assert "were not run in this build (--no-verification)" in text
    for s in vr.SECTIONS:
        assert "Not measured in this build" in section(text, s.slug)
    assert not re.search(r"\d\.\de-\d", text)


def test_drift_table_and_its_numbers_come_from_the_csv(vr, tmp_path):
    csv = tmp_path / "01_verification.csv"
    csv.write_text("system,rotation,stabilization,max|C| [m],RHS evaluations,wall time [s]\n"
                   "pendulum,ZXZ,none,1.2e-4,3000,0.5\npendulum,ZXZ,baumgarte,1.5e-8,36000,5.634\n"
                   "pendulum,ZXZ,projection,6e-14,3000,0.9\npendulum,Euler parameters,none,2e-4,2000,0.4\n")
    lines = [plain(line) for line in vr.drift_table(csv)]
    assert lines[:5] == ["Each cell gives ZXZ / Euler parameters (EP).", "", "**pendulum**", "",
                         "| quantity | none (ZXZ / EP) | baumgarte (ZXZ / EP) | projection (ZXZ / EP) |"]
    assert "| max\\|C\\| \\[m\\] | 1.2e-4 / 2.0e-4 | 1.5e-8 / – | 6.0e-14 / – |" in lines
    assert "| RHS evaluations | 3000 / 2000 | 36000 / – | 3000 / – |" in lines
    assert "| wall time \\[s\\] | 0.50 / 0.40 | 5.63 / – | 0.90 / – |" in lines
    numbers = "\n".join(vr.drift_numbers(csv, tmp_path / "absent.csv"))
    assert "2.0e-4 m without stabilization, 1.5e-8 m with Baumgarte, 6.0e-14 m with projection" in numbers
    assert "baumgarte 12.00 (ZXZ); projection 1.00 (ZXZ)" in numbers  # EP has no Baumgarte run here


def test_every_physics_test_reaches_the_page(vr):
    """Each test function of the verification files measures through `measured` (and has a
    docstring and a section), or is exempt with a reason; every test file is classified."""
    assert vr.coverage_problems() == []
    assert len(vr.measured_tests()) >= 60


def test_page_includes_every_section_and_pastes_no_number(vr):
    page = PAGE.read_text(encoding="utf-8")
    assert "_generated/verification_drift.md" in page
    assert ":start-after: <!-- run -->" in page and ":end-before: <!-- end run -->" in page
    pos = 0
    for s in vr.SECTIONS:
        head = page.find(f"\n## {s.title}\n", pos)
        assert head >= 0, f"book/verification.md: no heading '## {s.title}' (in the order of SECTIONS)"
        inc = page.find(f":start-after: <!-- section {s.slug} -->\n:end-before: <!-- end {s.slug} -->", head)
        nxt = page.find("\n## ", head + 1)
        assert head < inc and (nxt < 0 or inc < nxt), f"section '{s.title}' does not include its table"
        pos = inc
    # measured numbers have two significant digits (4.3e-14); settings are written 1e-6
    pasted = re.findall(r"\d\.\d+e[-+]?\d+", page)
    assert not pasted, f"book/verification.md pastes numbers by hand: {pasted[:5]}"
    tables = [line for line in page.splitlines() if line.startswith("|")]
    assert not tables, f"book/verification.md has a table of its own (tables are generated): {tables[:2]}"


# -- the measured fixture ------------------------------------------------------------------
#: these tests place errors near their tolerance on purpose: the margin rule is tested in test_margins.py
ON_THE_BOUND = "the criterion itself is under test"

@pytest.mark.parametrize("rtol, atol", [(0.0, 1e-9), (1e-6, 0.0), (1e-10, 1e-10), (1e-12, 1e-6)])
def test_measured_allclose_is_numpys_allclose(rtol, atol):
    """Measured.allclose passes exactly when np.allclose(actual, desired, rtol, atol) does, on
    differences placed just inside and just outside the bound."""
    g = np.random.default_rng(7)
    m = Measured("x", None)
    for _ in range(200):
        d = g.normal(size=5) * 10.0 ** g.integers(-3, 4)
        d[g.integers(0, 5)] = 0.0 if g.random() < 0.2 else d[0]
        bound = atol + rtol * np.abs(d)
        a = d + g.choice([-1, 1], size=5) * bound * g.uniform(0.5, 1.5, size=5) * (g.random(5) < 0.5)
        expect = bool(np.allclose(a, d, rtol=rtol, atol=atol))
        try:
            m.allclose("q", a, d, rtol=rtol, atol=atol, argued=ON_THE_BOUND)
            got = True
        except AssertionError:
            got = False
        assert got == expect, (a, d)


def test_measured_asserts_with_a_clear_message_and_keeps_the_worst(tmp_path):
    rec = _Recorder(tmp_path / "r.json")
    m = Measured("tests/test_x.py::test_y", rec)
    m.check("speed", 2e-10, 1e-9, "m/s", argued=ON_THE_BOUND)
    m.check("speed", 5e-10, 1e-9, "m/s", argued=ON_THE_BOUND)
    m.exceeds("ratio", 57.0, 10.0)
    with pytest.raises(AssertionError, match=r"speed \(leg\): error 3\.000e-09 m/s exceeds the tolerance <= 1\.000e-09"):
        m.check("speed", 3e-9, 1e-9, "m/s", where="leg", argued=ON_THE_BOUND)
    with pytest.raises(AssertionError, match="NaN|nan"):
        m.check("force", np.array([1.0, np.nan]), 1.0)
    with pytest.raises(AssertionError, match=r"ratio: 5\.000e\+00 does not exceed 1\.000e\+01"):
        m.exceeds("ratio", 5.0, 10.0)
    kept = {c["quantity"]: c for c in rec.checks.values()}
    assert kept["speed"]["n"] == 3 and kept["speed"]["value"] == 3e-9 and kept["speed"]["passed"] is False
    assert kept["ratio"]["value"] == 5.0 and kept["ratio"]["relation"] == ">"
    assert np.isnan(kept["force"]["value"])


def test_a_recording_session_writes_the_records(tmp_path):
    """End to end: pytest with SKILIB_VERIFICATION_OUT set writes the records, the docstring's
    first paragraph and the run's metadata."""
    out = tmp_path / "records.json"
    env = {**os.environ, "SKILIB_VERIFICATION_OUT": str(out)}
    node = "tests/test_rotation.py::test_G_bar_is_At_G"
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", node], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:]
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [t["nodeid"] for t in data["tests"]] == [node] and data["tests"][0]["outcome"] == "passed"
    assert data["tests"][0]["doc"].startswith("Ḡ = AᵀG")
    (c,) = data["checks"]
    assert c["n"] == 20 and c["passed"] and c["relation"] == "<=" and c["bound"] == 1e-14
    assert {"date", "commit", "python", "numpy", "duration_s"} <= set(data["meta"])
