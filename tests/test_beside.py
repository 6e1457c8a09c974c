"""``skilib.studies.beside``: one computation in a forked process while another runs here.

A forked child is safe only in a process with one thread; pytest's workers run several, so each
check runs in a fresh interpreter (as the command line does) and reports back as JSON.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from skilib.studies.beside import beside, can_fork

_CHECKS = r"""
import json, os, threading, warnings
from skilib.studies.beside import beside, can_fork

out = {"can_fork": can_fork()[0], "parent": os.getpid()}

def pid_and_warning():
    warnings.warn("from there", UserWarning)
    return os.getpid()

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    there, here = beside(pid_and_warning, lambda: os.getpid())
out["there_pid"], out["here_pid"] = there, here
out["warnings"] = [str(w.message) for w in caught]

ran_here = []
def fails():
    ran_here.append(os.getpid())
    raise ValueError("bad point 3")
try:
    beside(fails, lambda: 1)
except ValueError as exc:
    out["there_error"] = str(exc)
out["there_error_ran_here"] = ran_here == [os.getpid()]

ran_here.clear()
def unpicklable():
    ran_here.append(os.getpid())
    return lambda: 42
f, _ = beside(unpicklable, lambda: 0)
out["unpicklable"] = [f(), ran_here == [os.getpid()]]

try:
    beside(lambda: __import__("time").sleep(30), lambda: 1 / 0)
except ZeroDivisionError:
    out["here_error"] = True
try:
    os.waitpid(-1, os.WNOHANG)
    out["children_left"] = True
except ChildProcessError:
    out["children_left"] = False

stop = threading.Event()
t = threading.Thread(target=stop.wait)
t.start()
out["with_thread"] = list(can_fork())
try:
    beside(lambda: 1, lambda: 2, fork=True)
except RuntimeError as exc:
    out["forced"] = str(exc)
out["in_turn_pid"] = beside(lambda: os.getpid(), lambda: 0)[0]
stop.set()
t.join()
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def checks():
    proc = subprocess.run([sys.executable, "-c", _CHECKS], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_there_runs_in_another_process_its_warnings_raised_here(checks):
    if not checks["can_fork"]:
        pytest.skip("this platform runs the two in turn")
    assert checks["there_pid"] != checks["parent"]
    assert checks["here_pid"] == checks["parent"]
    assert checks["warnings"] == ["from there"]


def test_a_failing_or_unpicklable_there_is_run_again_here(checks):
    assert checks["there_error"] == "bad point 3"
    assert checks["there_error_ran_here"]
    assert checks["unpicklable"] == [42, True]


def test_a_failing_here_ends_the_child(checks):
    assert checks["here_error"]
    assert not checks["children_left"]


def test_another_thread_means_in_turn(checks):
    ok, why = checks["with_thread"]
    assert not ok and "2 threads" in why
    assert "cannot fork here (2 threads" in checks["forced"]
    assert checks["in_turn_pid"] == checks["parent"]


def test_in_turn_when_told(monkeypatch):
    monkeypatch.setenv("SKILIB_FORK", "0")
    assert can_fork() == (False, "SKILIB_FORK=0")
    order = []
    assert beside(lambda: order.append("there") or 1, lambda: order.append("here") or 2) == (1, 2)
    assert order == ["there", "here"]


def test_the_program_is_built_beside_the_screen_only_where_it_does_not_take_a_start():
    """What the coach's question builds beside its screen (``_program_beside``): the edged
    skater's program for its technique bounds (it does not depend on the start) as work to do;
    with the crouch free (``EDGE_CROUCH_BOUNDS``, the program takes the first start's ℓs:
    ``program_takes_start``) nothing, and a crouch fixed in the parameters builds it again."""
    from dataclasses import replace

    from skilib.models.edge import technique as edge
    from skilib.studies.optimum import _program_beside

    base = edge.default_params()
    assert not edge.program_takes_start(base, tuple(edge.EDGE_BOUNDS))
    assert edge.program_takes_start(base, tuple(edge.EDGE_CROUCH_BOUNDS))
    assert not edge.program_takes_start(replace(base, leg_start=0.75), tuple(edge.EDGE_CROUCH_BOUNDS))
    ask = dict(power=None, params=None, budget="net", nodes=None, force_velocity=None, target=6.0)
    assert callable(_program_beside("edge", dict(edge.EDGE_BOUNDS), **ask))
    assert _program_beside("edge", dict(edge.EDGE_CROUCH_BOUNDS), **ask) is None


def test_a_fresh_process_traces_the_model_beside_the_screen_not_before_it():
    """In a process that has built no program the question does not trace the model to learn
    that its program is not built (seconds of sympy and CasADi before the screen can start): the
    work beside the screen traces it.  Traced there, an argument the program refuses (nodes=1)
    is left to the starts (the work returns None), as before."""
    code = ("import sys\n"
            "from skilib.models.edge import technique as edge\n"
            "from skilib.studies.optimum import _program_beside\n"
            "ask = dict(power=None, params=None, budget='net', force_velocity=None, target=6.0)\n"
            "work = _program_beside('edge', dict(edge.EDGE_BOUNDS), nodes=None, **ask)\n"
            "print(callable(work), 'sympy' in sys.modules, 'casadi' in sys.modules)\n"
            "print(_program_beside('edge', dict(edge.EDGE_BOUNDS), nodes=1, **ask)())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "True False False" and out[1] == "None"
