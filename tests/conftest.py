"""Shared fixtures: a seeded generator, and `measured`, the assertion that is also a measurement.

Every physics or mathematics test compares a result with something it cannot have been tuned
to (an analytic solution, a conservation law, an independent derivation, a finite difference)
through ``measured``: the comparison is asserted exactly as a plain ``assert`` would, and the
error and its tolerance are kept.  If the environment variable ``SKILIB_VERIFICATION_OUT``
names a file, the session writes them there as JSON at its end (with each test's docstring,
its outcome and the run's date, commit and versions); ``scripts/verification_report.py`` turns
that file into the tables of the book's Verification chapter.  Without the variable nothing
is kept and nothing is written.  Under pytest-xdist each worker writes its own file beside it
(``<name>.gw0.json``, ...) and the controlling process merges them into the named one.

Margins.  Every comparison's error must stay below a tenth of its tolerance (``MARGIN``), so that
the other rounding of another processor's kernels (OpenBLAS picks them by CPU) cannot move it
past the tolerance: a tolerance met by a hair on one machine is a fitted number.  A comparison
whose error may come nearer says why with ``argued="..."``: the tolerance derived from the
method (a discretisation order, an integrator's tolerance times a condition, the rounding of a
sum, a statistical interval), or the statement that the bound is not a tolerance at all (an
inequality of the physics such as Coulomb's, a contraction factor).  A comparison of one
quantity computed along two code paths of this project (C steps against solve_ivp, a compiled
kernel against the symbolic one, an independent derivation against the engine, a kept result
against its re-run) is marked ``@pytest.mark.cross_path``; ``tests/test_margins.py`` runs those
tests again under two other OpenBLAS kernels and lists their ratios.
"""
from __future__ import annotations

import datetime
import inspect
import json
import os
import platform
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

OUT_ENV = "SKILIB_VERIFICATION_OUT"
#: a comparison's error must stay below this fraction of its tolerance unless ``argued``
MARGIN = 0.1
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def rng():
    """Fixed-seed generator: every random test input is reproducible."""
    return np.random.default_rng(20121122)


@pytest.fixture
def sobol_sample():
    """``sample(k)``: k rows spread over the sensitivity chapter's Sobol design (N = 16, its seed,
    with the leg laws), a sweep's parameter table; ``sample(k, params=True)``: the same rows as
    (SkierParams, force_scale) pairs."""
    import skilib as sk
    from skilib.models.thesis.laws import with_leg_laws
    from skilib.models.thesis.sobol_study import SOBOL_RANGES, SOBOL_SEED
    from skilib.studies.sensitivity import sobol_design

    def sample(k, params=False):
        design = with_leg_laws(sobol_design(dict(SOBOL_RANGES), 16, seed=SOBOL_SEED))
        rows = design.iloc[np.linspace(0, len(design) - 1, k).round().astype(int)]
        if not params:
            return rows
        return [(sk.SkierParams(**{c: v for c, v in r.items() if c != "force_scale"}), r["force_scale"])
                for r in rows.to_dict("records")]

    return sample


# -- measured: assert an error against its tolerance, and keep both ------------------------
class Measured:
    """The comparisons of one test.  Each method asserts, and records when recording is on.

    ``check(quantity, error, tolerance, unit)``      error <= tolerance (``strict``: <)
    ``allclose(quantity, actual, desired, ...)``     |actual − desired| <= atol + rtol |desired|,
                                                     element-wise, as one error and one tolerance
    ``exceeds(quantity, value, bound, unit)``        value > bound (a margin that must be large)

    ``quantity`` names what is compared ("Cq vs 4th-order differences"); ``unit`` is the unit
    of error and tolerance ("m", "N", "rel." for a relative error, "× scale", ...).  An array
    ``error`` counts by its largest element; NaN fails.  Repeated calls with one quantity (a
    loop over states) are kept as one entry: the call closest to its bound, and the count.

    ``argued``: why the tolerance is what it is, where the error may come within a factor of ten
    of it.  A check whose error exceeds ``MARGIN`` × tolerance without it fails (module
    docstring, "Margins").
    """

    def __init__(self, nodeid: str, recorder: "_Recorder | None", cross_path: bool = False):
        self.nodeid = nodeid
        self._recorder = recorder
        self.cross_path = cross_path

    def check(self, quantity: str, error, tolerance: float, unit: str = "", *, strict: bool = False,
              where: str = "", argued: str = "") -> float:
        err = _largest(error, quantity)
        tol = float(tolerance)
        ok = bool(err < tol) if strict else bool(err <= tol)
        self._keep(quantity, err, tol, unit, "<" if strict else "<=", ok, argued)
        assert ok, (f"{quantity}{_w(where)}: error {err:.3e}{_u(unit)} exceeds the tolerance "
                    f"{'<' if strict else '<='} {tol:.3e}{_u(unit)}")
        if not argued:
            ratio = _closeness(err, tol, "<=")
            assert ratio <= MARGIN, (
                f"{quantity}{_w(where)}: error {err:.3e}{_u(unit)} is {ratio:.2f} of its tolerance {tol:.3e}: a "
                f"comparison needs a margin of {1 / MARGIN:g} (another processor's rounding); tighten the "
                f"computation or derive the tolerance from the method and say so with argued=")
        return err

    def allclose(self, quantity: str, actual, desired, *, rtol: float = 0.0, atol: float = 0.0,
                 unit: str = "", where: str = "", argued: str = "") -> float:
        """numpy's allclose criterion with the rtol and atol written (no hidden defaults).

        atol only: the largest |actual − desired| against atol (in ``unit``);
        rtol only: the largest |actual − desired| / |desired| against rtol ("rel.");
        both: the largest |actual − desired| / (atol/rtol + |desired|) against rtol, the same
        inequality divided by rtol.
        """
        a = np.asarray(actual, dtype=float)
        d = np.asarray(desired, dtype=float)
        if d.shape not in ((), a.shape):
            raise AssertionError(f"{quantity}: shapes differ, actual {a.shape} vs desired {d.shape}")
        if rtol < 0 or atol < 0 or rtol == atol == 0:
            raise ValueError(f"{quantity}: need rtol >= 0, atol >= 0, not both zero (got rtol={rtol}, atol={atol})")
        diff = np.abs(a - d)
        if rtol == 0:
            return self.check(quantity, diff, atol, unit, where=where, argued=argued)
        floor = atol / rtol
        den = floor + np.abs(d)
        with np.errstate(divide="ignore", invalid="ignore"):
            err = np.where(diff == 0, 0.0, diff / den)  # 0/0: equal; x/0: infinitely far
        if atol == 0:
            return self.check(quantity, err, rtol, "rel.", where=where, argued=argued)
        return self.check(quantity, err, rtol, f"× ({_short(floor)} + |ref|)", where=where, argued=argued)

    def exceeds(self, quantity: str, value, bound: float, unit: str = "", *, where: str = "") -> float:
        v = -_largest(-np.asarray(value, dtype=float), quantity)
        b = float(bound)
        ok = bool(v > b)
        self._keep(quantity, v, b, unit, ">", ok, "")
        assert ok, f"{quantity}{_w(where)}: {v:.3e}{_u(unit)} does not exceed {b:.3e}{_u(unit)}"
        return v

    def _keep(self, quantity, value, bound, unit, relation, ok, argued):
        if self._recorder is not None:
            self._recorder.keep(self.nodeid, quantity, value, bound, unit, relation, ok, argued, self.cross_path)


def _largest(error, quantity: str) -> float:
    e = np.asarray(error, dtype=float)
    if e.size == 0:
        raise ValueError(f"{quantity}: the error array is empty, so nothing was compared")
    return float(np.max(e))  # NaN propagates and then fails the comparison


def _u(unit: str) -> str:
    return f" {unit}" if unit else ""


def _short(x: float) -> str:
    """1, 1000, 1e6: a number as one would write it."""
    m, _, e = f"{x:g}".partition("e")
    return f"{m}e{int(e)}" if e else m


def _w(where: str) -> str:
    return f" ({where})" if where else ""


def _closeness(value: float, bound: float, relation: str) -> float:
    """How near a kept value is to its bound (1 = on it, > 1 = beyond it)."""
    if relation == ">":
        return bound / value if value > 0 and bound > 0 else bound - value
    if bound > 0:
        return value / bound
    return 0.0 if value <= 0 else np.inf


class _Recorder:
    """Collects the kept comparisons and the test outcomes; writes them at session end."""

    def __init__(self, path: Path):
        self.path = path
        self.t0 = time.perf_counter()
        self.started = datetime.datetime.now(datetime.timezone.utc)
        self.checks: dict[tuple, dict] = {}
        self.tests: dict[str, dict] = {}

    def keep(self, nodeid, quantity, value, bound, unit, relation, ok, argued="", cross_path=False):
        key = (nodeid, quantity, unit, relation)
        new = dict(nodeid=nodeid, quantity=quantity, value=value, bound=bound, unit=unit, relation=relation,
                   passed=ok, n=1, bound_min=bound, bound_max=bound, argued=argued, cross_path=cross_path)
        old = self.checks.get(key)
        if old is None:
            self.checks[key] = new
            return
        n, passed = old["n"] + 1, old["passed"] and ok
        lo, hi = min(old["bound_min"], bound), max(old["bound_max"], bound)
        c_new, c_old = _closeness(value, bound, relation), _closeness(old["value"], old["bound"], relation)
        if np.isnan(value) or (not np.isnan(old["value"]) and c_new > c_old):
            old.update(value=value, bound=bound, argued=argued)
        old.update(n=n, passed=passed, bound_min=lo, bound_max=hi)

    def report(self, item, rep):
        t = self.tests.setdefault(item.nodeid, dict(
            nodeid=item.nodeid, file=item.path.name, function=getattr(item, "originalname", item.name),
            case=item.callspec.id if hasattr(item, "callspec") else None,
            doc=_first_paragraph(getattr(item, "function", None)), outcome="passed", duration_s=0.0, message=""))
        t["duration_s"] += rep.duration
        if rep.failed:
            t["outcome"] = "failed" if rep.when == "call" else "error"
            t["message"] = (rep.longreprtext or "").strip().splitlines()[-1][:500] if rep.longreprtext else ""
        elif rep.skipped and t["outcome"] == "passed":
            t["outcome"] = "skipped"
            lr = rep.longrepr
            t["message"] = str(lr[2] if isinstance(lr, tuple) else lr)[:500]

    def write(self, session, exitstatus):
        # this process's own xdist role (not the environment's: a test's pytest subprocess inherits
        # PYTEST_XDIST_WORKER from the worker that runs it)
        worker = getattr(session.config, "workerinput", {}).get("workerid")
        if worker:  # one file per worker; the controller merges them (merge_workers)
            path = self.path.with_name(f"{self.path.stem}.{worker}{self.path.suffix}")
            path.write_text(json.dumps(dict(tests=list(self.tests.values()), checks=list(self.checks.values()))))
            return
        tests, checks = list(self.tests.values()), list(self.checks.values())
        for part in sorted(self.path.parent.glob(f"{self.path.stem}.gw*{self.path.suffix}")):
            got = json.loads(part.read_text())
            tests += got["tests"]
            checks += got["checks"]
            part.unlink()
        meta = dict(
            date=self.started.strftime("%Y-%m-%d %H:%M UTC"), duration_s=round(time.perf_counter() - self.t0, 1),
            exitstatus=int(exitstatus), python=platform.python_version(), numpy=np.__version__,
            platform=platform.platform(), cpus=os.cpu_count(), args=list(session.config.invocation_params.args),
            **_git_state())
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(dict(meta=meta, tests=tests, checks=checks), indent=1, ensure_ascii=False))


def _first_paragraph(fn) -> str:
    doc = inspect.getdoc(fn) if fn is not None else None
    return " ".join(doc.split("\n\n")[0].split()) if doc else ""


def _git_state() -> dict:
    def git(*args):
        r = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""

    changed = [line[3:] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()]
    return dict(commit=git("rev-parse", "--short", "HEAD") or "unknown", changed_files=changed)


_KEY = pytest.StashKey["_Recorder | None"]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """How `make test` spreads the suite over the cores (``--dist loadgroup``): the tests of one
    file share a worker, so that its module fixtures are built once, unless a test names its own
    ``xdist_group`` (the notebook runs, each a minute or more); those run first, so that no core
    is left with one long test at the end. Without xdist the marks do nothing."""
    own = [item for item in items if any(item.iter_markers("xdist_group"))]
    rest = [item for item in items if item not in own]
    for item in rest:
        item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    items[:] = own + rest


def pytest_configure(config):
    config.addinivalue_line("markers", "cross_path: compares one quantity along two code paths or with a kept "
                                       "result; its error must stay below a tenth of its tolerance unless argued")
    config.addinivalue_line("markers", "check: slow checks that `make check` runs (and CI), not `make test`")
    config.addinivalue_line("markers", "slow: tests of more than a few seconds each (the notebooks, the README and the "
                                       "usage page as scripts, the long solves): `make check` runs them on every core, "
                                       "`make test` leaves them out; a bare `pytest` runs them")
    path = os.environ.get(OUT_ENV)
    config.stash[_KEY] = _Recorder(Path(path).resolve()) if path else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    recorder = item.config.stash.get(_KEY, None)
    if recorder is not None:
        recorder.report(item, outcome.get_result())


def pytest_sessionfinish(session, exitstatus):
    recorder = session.config.stash.get(_KEY, None)
    if recorder is not None:
        recorder.write(session, exitstatus)


@pytest.fixture
def measured(request):
    """Assert an error against its tolerance and, for the book, record both (see `Measured`)."""
    return Measured(request.node.nodeid, request.config.stash.get(_KEY, None),
                    request.node.get_closest_marker("cross_path") is not None)
