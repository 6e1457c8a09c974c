"""Two computations at once on two cores: one in a forked process, the other in this one.

A question asked by collocation has two independent first steps: the screen of seeded starts
(shooting steady states: NumPy and the C stepper) and the construction of the nonlinear program
(CasADi's expansion of the collocated stroke and its exact Jacobian and Hessian).  Each takes
seconds to tens of seconds, and neither needs the other.  They cannot share one process's
threads: CasADi's symbolic objects are not thread-safe (their reference counts and sparsity
caches are shared without locks), so a thread building a program beside another touching any
CasADi object could corrupt both.  A process has its own memory, so :func:`beside` runs the
numerical one (``there``: its result must pickle) in a child made by ``os.fork`` and the
symbolic one (``here``: its result, such as a built program, stays in this process) here.

The child is this process's copy at the moment of the fork: it computes exactly what this
process would (the same code, state and inputs), so the result is the same bit for bit as
calling ``there()`` in turn (checked in the test suite on the coach's question).  Warnings the
child raises are raised again here, in their order.  What the child learns beyond its result
(its caches) is not kept.

Where forking is not safe or brings nothing the two run in turn, ``there()`` first: without
``os.fork`` (Windows), off Linux (macOS's system libraries are not fork-safe), with another
thread running in this process (a fork copies only the calling thread, whose locks another
thread may hold: a Jupyter kernel runs several), on one core, or where ``SKILIB_FORK=0``.  If
the child fails for any reason (an exception, a result that does not pickle, a crash),
``there()`` runs again here, so its exception, if any, is raised here with its own traceback.
"""
from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import warnings

__all__ = ["beside", "can_fork"]


def can_fork() -> tuple[bool, str]:
    """(whether :func:`beside` forks here, why not if it does not)."""
    if os.environ.get("SKILIB_FORK", "1") == "0":
        return False, "SKILIB_FORK=0"
    if not hasattr(os, "fork") or not sys.platform.startswith("linux"):
        return False, f"no safe os.fork on {sys.platform}"
    if threading.active_count() != 1:
        return False, f"{threading.active_count()} threads run in this process"
    if (os.cpu_count() or 1) < 2:
        return False, "one core"
    return True, ""


def _child(there, w: int) -> None:
    """In the forked child: run ``there``, write (status, result, warnings) pickled to the pipe
    ``w``, and end the process without running this process's exit handlers (they belong to the
    parent: its temporary folders, its open files)."""
    code = 0
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                payload = ("ok", there())
            except BaseException as exc:  # reported; the parent runs there() itself
                payload = ("error", f"{type(exc).__name__}: {exc}")
        shown = [(w_.message, w_.category, w_.filename, w_.lineno) for w_ in caught]
        try:
            blob = pickle.dumps((*payload, shown), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # a result or a warning that does not pickle
            blob = pickle.dumps(("error", f"unpicklable result: {exc}", []), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(w, "wb") as f:
            f.write(blob)
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def beside(there, here, *, fork: bool | None = None):
    """(``there()``, ``here()``), ``there`` run in a forked child process while ``here`` runs in
    this one (the module's docstring).  ``there``'s result must pickle; ``here``'s does not need
    to.  ``fork``: None forks where :func:`can_fork` says it is safe, False runs the two in turn
    (the reference), True forks or raises ``RuntimeError`` saying why it cannot.  An exception of
    ``here`` ends the child and is raised; one of ``there`` is raised as ``there()`` raises it in
    this process."""
    ok, why = can_fork()
    if fork is True and not ok:
        raise RuntimeError(f"beside: cannot fork here ({why})")
    if not (ok if fork is None else fork):
        first = there()
        return first, here()
    r, w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(r)
        _child(there, w)
    os.close(w)
    try:
        second = here()
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.close(r)
        os.waitpid(pid, 0)
        raise
    with os.fdopen(r, "rb") as f:
        blob = f.read()
    _, status = os.waitpid(pid, 0)
    try:
        kind, first, shown = pickle.loads(blob)
    except Exception:  # the child died before its result was written
        kind, first, shown = "error", f"the child process ended with status {status}", []
    if kind != "ok":
        return there(), second  # raises here what it raised there, or computes what the child could not send
    for message, category, filename, lineno in shown:
        warnings.warn_explicit(message, category, filename, lineno)
    return first, second
