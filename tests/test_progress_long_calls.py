"""Progress bars of the long calls that had none: IPOPT's programs (``collocate_stroke``,
``optimal_control``), the edged skater's periodic stroke (``edge_steady_state``) and its runs
(``simulate_edge``).

Each ``progress=True`` shows a bar on stderr counting what the call does (IPOPT's iterations,
stroke maps, strokes) and returns the same result bit for bit as ``progress=False`` (the
timings aside); a ``progress`` that is not a bool is refused by name before anything runs.  The
smallest meshes and fewest starts the other tests use keep the file short."""
from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

#: fields and keys that time a call: the only numbers a bar may change
TIMINGS = {"solve_time", "time", "fine_time", "law_seconds", "build_seconds", "runtime_s"}


def assert_same(a, b, where="result"):
    """``a`` and ``b`` equal bit for bit (NaN where NaN), field by field and key by key, the
    timings (``TIMINGS``) and the splines (``laws``, made from the trajectory compared) aside."""
    if isinstance(a, pd.DataFrame):
        assert isinstance(b, pd.DataFrame) and list(a.columns) == list(b.columns) and a.equals(b), where
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            if f.name not in TIMINGS and f.name != "laws":
                assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for k in a:
            if k not in TIMINGS:
                assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{k}]")
    elif isinstance(a, (np.ndarray, float, complex, np.floating, np.complexfloating)):
        x, y = np.asarray(a), np.asarray(b)
        assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"), where
    else:
        assert a == b, where


def _final(err: str) -> str:
    """The bar's last state (tqdm rewrites its line with a carriage return)."""
    return re.split(r"[\r\n]+", err.strip())[-1]


# --------------------------------------------------------------------------- IPOPT's programs
@pytest.mark.slow  # two free-control programs built and solved twice (≈ 17 s): `make check`
def test_optimal_control_progress_counts_ipopt_iterations_and_changes_nothing(capsys):
    """``optimal_control(progress=True)`` (the free skater at 600 W, 10 intervals, splines on 2,
    no seeded start; free control stopped after 15 iterations, which spares the re-simulation of
    its splines): the bar counts every IPOPT iteration, the law-based start's (solved) and the
    free control's, and the result is the same bit for bit as without it."""
    pytest.importorskip("casadi")
    from skilib.ocp import optimal_control

    kw = dict(nodes=10, control_nodes=2, starts=0, ipopt={"max_iter": 15})
    quiet = optimal_control("free", 600.0, **kw)
    assert capsys.readouterr().err == ""
    loud = optimal_control("free", 600.0, progress=True, **kw)
    err = capsys.readouterr().err
    done = (sum(m["iterations"] for m in loud.law_based.meshes) + loud.iterations
            + loud.coarse.get("iterations", 0) + loud.coarse.get("fine_iterations", 0))
    assert "stroke program, 20 intervals" in err and "control program, 10 intervals" in err
    assert _final(err).startswith(f"optimal_control: {done} IPOPT iterations ")
    assert quiet.law_based.success and quiet.iterations == 15
    assert_same(loud, quiet)
    with pytest.raises(ValueError, match=r"^progress: must be True or False"):
        optimal_control("free", 600.0, progress="yes", **kw)


def test_collocate_stroke_progress_counts_ipopt_iterations_and_changes_nothing(capsys):
    """``collocate_stroke(progress=True)`` (the free skater's fastest stroke at 600 W metabolic
    on 20 intervals): the bar ends at IPOPT's iteration count, and the stroke is the same bit for
    bit as without it."""
    pytest.importorskip("casadi")
    from skilib.models.free.collocation import FreeStroke
    from skilib.ocp import collocate_stroke
    from skilib.studies.optimum import FREE_BOUNDS

    kw = dict(bounds=FREE_BOUNDS, power=600.0, budget="metabolic", nodes=20, max_nodes=20)
    quiet = collocate_stroke(FreeStroke(), **kw)
    assert capsys.readouterr().err == ""
    loud = collocate_stroke(FreeStroke(), progress=True, **kw)
    err = capsys.readouterr().err
    assert quiet.status == "Solve_Succeeded" and quiet.iterations > 5
    assert _final(err).startswith(f"collocate_stroke: {loud.iterations} IPOPT iterations ")
    assert "stroke program, 20 intervals" in _final(err)
    assert_same(loud, quiet)
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match=r"^progress: must be True or False"):
            collocate_stroke(None, progress=bad)  # refused before any adapter is used


@pytest.mark.slow
def test_the_collocated_optimizer_shows_ipopt_iterations_and_changes_nothing(capsys):
    """``optimize_technique(method="collocation", progress=True)`` (the free skater at 200 W
    metabolic, one seeded start, 10 intervals): the bar counts its starts' IPOPT iterations, and the
    optimum is the same bit for bit as without it."""
    pytest.importorskip("casadi")
    from skilib.studies.optimum import optimize_technique

    kw = dict(method="collocation", budget="metabolic", starts=1, seed=0, nodes=10)
    quiet = optimize_technique("free", 200.0, **kw)
    assert capsys.readouterr().err == ""
    loud = optimize_technique("free", 200.0, progress=True, **kw)
    final = _final(capsys.readouterr().err)
    assert final.startswith("optimize_technique: ") and " IPOPT iterations " in final, final
    assert int(re.search(r"(\d+) IPOPT iterations", final).group(1)) > 0
    assert_same(dict(loud.x), dict(quiet.x))
    assert_same((loud.progress_speed, loud.mean_power, loud.budget_power, loud.feasible),
                (quiet.progress_speed, quiet.mean_power, quiet.budget_power, quiet.feasible))


# --------------------------------------------------------------------------- the edged skater
def test_edge_steady_state_progress_counts_stroke_maps_and_changes_nothing(capsys):
    """``edge_steady_state(progress=True)``: the bar counts the stroke maps (the search's and the
    periodic stroke's tabulation; no multipliers asked), and the periodic stroke is the same bit
    for bit as without it."""
    from skilib.models.edge.steady import edge_steady_state

    quiet = edge_steady_state(multipliers=False)
    assert capsys.readouterr().err == ""
    loud = edge_steady_state(multipliers=False, progress=True)
    err = capsys.readouterr().err
    assert _final(err).startswith(f"edge_steady_state: {loud.iterations + 1} stroke maps ")
    assert "max|Φ(x) − x|" in err
    assert_same(loud, quiet)
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match=r"^progress: must be True or False"):
            edge_steady_state(progress=bad)


def test_simulate_edge_progress_shows_the_search_and_the_strokes_and_changes_nothing(capsys):
    """``simulate_edge(progress=True)`` from the periodic stroke (a solver setting no other test
    uses, so that its search runs here): a bar over the search's stroke maps, then one over the
    strokes; the run is the same bit for bit as without it (found again from the cache)."""
    from skilib.models.edge.run import simulate_edge

    kw = dict(strokes=2, max_wall_time=598.5)
    loud = simulate_edge(progress=True, **kw)
    err = capsys.readouterr().err
    assert "edge_steady_state: " in err and " stroke maps " in err
    assert _final(err).startswith("strokes: 100%") and "2/2" in _final(err)
    quiet = simulate_edge(**kw)
    assert capsys.readouterr().err == ""
    for name in ("frame", "strokes", "changes", "events"):
        assert_same(getattr(loud, name), getattr(quiet, name), name)
    assert_same(loud.info, quiet.info, "info")
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match=r"^progress: must be True or False"):
            simulate_edge(progress=bad, **kw)


def test_the_command_line_shows_the_edged_skaters_search(capsys):
    """``skilib steady --model edge --progress``: the search's bar on stderr, and the answer on
    stdout the same to the character as with ``--no-progress``."""
    from skilib.cli import main

    argv = ["steady", "--model", "edge", "--format", "json"]
    assert main(argv + ["--no-progress"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""
    assert main(argv + ["--progress"]) == 0
    loud = capsys.readouterr()
    assert _final(loud.err).startswith("edge_steady_state: ") and " stroke maps " in _final(loud.err)
    assert loud.out == quiet.out
