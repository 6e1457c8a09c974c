#!/usr/bin/env python
"""Feed every public function and class of skilib bad values, one numeric argument at a time.

For each public callable (``skilib.__all__``) whose required arguments this script can supply
(``REQUIRED`` below), and for each of its arguments whose default is a number, the call is made
with that argument replaced by each of NaN, +inf, −inf, −1, 0, 1e12, the string "1", True and
None, every other argument at its default.  Each outcome is classed:

- **clear**: a ValueError/TypeError/OSError (or subclass) raised from skilib's own code whose
  message names the argument;
- **unclear**: any other exception (raised from NumPy/SciPy/pandas, or not naming the argument);
- **accepted**: the call returned (may be right: zero friction is a valid input; read the list);
- **hang**: no answer within ``--timeout`` seconds.

    .venv/bin/python scripts/hostile_sweep.py [--timeout 20] [--only NAME] [--show unclear,accepted,hang]

Prints one line per case that is not clear and the counts.  A development tool: the test suite
asserts the refusals it relies on in tests/test_hostile*.py.
"""
from __future__ import annotations

import argparse
import collections
import inspect
import signal
import sys
import traceback
import warnings
from pathlib import Path

import numpy as np

import skilib

PACKAGE = Path(skilib.__file__).resolve().parent
BAD = {"nan": float("nan"), "inf": float("inf"), "-inf": -float("inf"), "neg": -1.0, "zero": 0, "huge": 1e12,
       "str": "1", "bool": True, "none": None}
_t = np.linspace(0.0, 1.0, 101)
REQUIRED = {  # a valid value for each required argument name the sweep can fill
    "strokes": 1, "phase_time": 1.0, "T": 1.0, "t": _t, "y": np.sin(2 * np.pi * _t) + 2.0, "n_harmonics": 3,
    "side": "right", "mass": 1.0, "lx": 1.0, "ly": 1.0, "lz": 1.0, "angles": np.zeros(3), "power": 200.0,
}
SKIP = {"optimize_technique", "speed_power_front", "sweep", "sweep_skier", "calibrate_force_scale",
        "required_power"}  # minutes per good call: covered by their own tests


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def classify(call, name, timeout):
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
        return "accepted", ""
    except Hang:
        return "hang", ""
    except Exception as exc:  # noqa: BLE001 - classifying is the point
        last = Path(traceback.extract_tb(exc.__traceback__)[-1].filename).resolve()
        ours = PACKAGE in last.parents
        ok = isinstance(exc, (ValueError, TypeError, OSError)) and ours and name in str(exc)
        return ("clear" if ok else "unclear"), f"{type(exc).__name__}: {str(exc)[:110]} [{last.name}]"
    finally:
        signal.alarm(0)


def callables(only=None):
    for n in sorted(set(skilib.__all__)):
        obj = getattr(skilib, n)
        if n in SKIP or (only and n not in only) or not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError):
            continue
        params = [p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        required = [p.name for p in params if p.default is inspect.Parameter.empty]
        if any(r not in REQUIRED for r in required):
            continue
        numeric = [p.name for p in params if isinstance(p.default, (int, float)) and not isinstance(p.default, bool)]
        numeric += [r for r in required if isinstance(REQUIRED[r], (int, float))]
        if numeric:
            yield n, obj, {r: REQUIRED[r] for r in required}, numeric


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=int, default=20)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--show", default="unclear,accepted,hang")
    a = ap.parse_args(argv)
    show = set(a.show.split(","))
    counts, per = collections.Counter(), collections.Counter()
    for n, obj, base, numeric in callables(a.only):
        for arg in numeric:
            for label, bad in BAD.items():
                kind, msg = classify(lambda: obj(**{**base, arg: bad}), arg, a.timeout)
                counts[kind] += 1
                per[n, kind] += 1
                if kind in show:
                    print(f"{kind:9s} {n}({arg}={label}) {msg}", flush=True)
    print(dict(counts), "cases:", sum(counts.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
