"""The compendium's notebooks: their parameters checked where they arrive, how they are run
(:func:`run_notebook`), and one minus sign in their tables (:func:`minus_signs`).

Each numbered notebook declares its inputs in a cell tagged ``parameters``; papermill
(``papermill nb.ipynb out.ipynb -p skating_angle_deg 40``) puts a cell with the values it was
given right after it.  The notebook's next cell calls :func:`check_parameters` with the
notebook's namespace and the kind of every declared input:

>>> ns = {"quick": False, "strokes": 10, "skating_angle_deg": 40}
>>> spec = {"quick": FLAG, "strokes": count(), "skating_angle_deg": number(0, 180)}
>>> check_parameters(ns, spec)
{'quick': False, 'strokes': 10, 'skating_angle_deg': 40.0}
>>> check_parameters({**ns, "skating_angle": 40}, spec)
Traceback (most recent call last):
...
ValueError: unknown parameter 'skating_angle' (this notebook's parameters: quick, strokes, skating_angle_deg)
>>> check_parameters({**ns, "strokes": 0}, spec)
Traceback (most recent call last):
...
ValueError: parameter strokes: must be an integer >= 1, got 0

A name the notebook does not declare (a misspelt ``-p`` option) is an error naming it, never
a silently ignored setting; so is a value of the wrong kind.  The model's own parameters are
checked again, with their physical limits, by ``SkierParams`` when the notebook builds it.
"""
from __future__ import annotations

import math
import numbers
import re
import types
from pathlib import Path

__all__ = ["check_parameters", "run_notebook", "minus_signs", "number", "count", "choice", "optional", "sequence", "FLAG", "TEXT", "PATH"]

# names IPython (and the papermill kernel) put into every namespace
_IPYTHON = {"In", "Out", "get_ipython", "exit", "quit", "open"}


def _kind(check, text):
    check.text = text
    return check


def number(lo: float = -math.inf, hi: float = math.inf, *, open_lo: bool = False):
    """A finite real number in [lo, hi] (or (lo, hi] with ``open_lo``)."""
    def check(v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"must be a finite number, got {v!r}")
        if v < lo or v > hi or (open_lo and v == lo):
            raise ValueError(f"must be in {'(' if open_lo else '['}{lo:g}, {hi:g}], got {v!r}")
        return float(v)
    return _kind(check, "number")


def count(lo: int = 1):
    """An integer >= lo."""
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"must be an integer >= {lo}, got {v!r}")
        return int(v)
    return _kind(check, "integer")


def choice(*options):
    """One of ``options``."""
    def check(v):
        if v not in options:
            raise ValueError(f"must be one of {options}, got {v!r}")
        return v
    return _kind(check, "choice")


def optional(kind):
    """None or a value of ``kind``."""
    def check(v):
        return None if v is None else kind(v)
    return _kind(check, f"None or {kind.text}")


def sequence(kind, min_len: int = 1):
    """A list (or tuple) of at least ``min_len`` values of ``kind``."""
    def check(v):
        if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)) or len(v) < min_len:
            raise ValueError(f"must be a list of at least {min_len} value(s), got {v!r}")
        return [kind(x) for x in v]
    return _kind(check, f"list of {kind.text}")


def _flag(v):
    if not isinstance(v, bool):
        raise ValueError(f"must be True or False, got {v!r}")
    return v


def _text(v):
    if not isinstance(v, str):
        raise ValueError(f"must be a string, got {v!r}")
    return v


def _path(v):
    if not isinstance(v, (str, Path)) or not str(v):
        raise ValueError(f"must be a path (string), got {v!r}")
    return str(v)


FLAG = _kind(_flag, "True/False")
TEXT = _kind(_text, "string")
PATH = _kind(_path, "path")


def check_parameters(namespace: dict, spec: dict) -> dict:
    """The checked values of the parameters ``spec`` declares, read from ``namespace``.

    namespace : the notebook's ``globals()`` right after the parameters cell and the cell
        papermill injected (so: the declared names, the injected ones, IPython's own).
    spec : {name: kind}; kinds are ``number(lo, hi)``, ``count()``, ``choice(...)``,
        ``optional(kind)``, ``sequence(kind)``, ``FLAG``, ``TEXT``, ``PATH`` or any callable
        that returns the value or raises ValueError.

    Raises ValueError naming an undeclared name (a parameter this notebook does not take), a
    declared one that is missing, or one whose value is not of its kind.  Names starting with
    an underscore, modules and functions are not parameters and are ignored.
    """
    unknown = [k for k, v in namespace.items()
               if k not in spec and k not in _IPYTHON and not k.startswith("_")
               and not isinstance(v, (types.ModuleType, types.FunctionType, type))]
    if unknown:
        raise ValueError(f"unknown parameter{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(repr(k) for k in unknown)} (this notebook's parameters: {', '.join(spec)})")
    out = {}
    for name, kind in spec.items():
        if name not in namespace:
            raise ValueError(f"parameter {name}: missing from the parameters cell")
        try:
            out[name] = kind(namespace[name])
        except ValueError as exc:
            raise ValueError(f"parameter {name}: {exc}") from None
    return out


def _ipc_kernel_manager():
    """A jupyter_client KernelManager on IPC sockets: the kernel then needs no TCP ports and
    prints no warning about unencrypted TCP."""
    from jupyter_client.manager import KernelManager

    class IPCKernelManager(KernelManager):
        def __init__(self, **kwargs):
            kwargs.setdefault("transport", "ipc")
            super().__init__(**kwargs)

    return IPCKernelManager


def run_notebook(notebook, output, parameters: dict | None = None, *, cwd=None, kernel_name: str = "python3",
                 progress: bool = False):
    """Execute ``notebook`` with papermill into ``output`` with ``parameters`` (a dict of the
    notebook's parameters), in the folder ``cwd`` (default: the notebook's).  Returns the
    executed notebook (a papermill/nbformat node); a failing cell raises papermill's
    ``PapermillExecutionError`` naming it.  The same as ``papermill notebook output -p name
    value ...`` on the command line, with the kernel on IPC sockets (no TCP warning)."""
    import papermill as pm

    notebook = Path(notebook)
    return pm.execute_notebook(str(notebook), str(output), parameters=dict(parameters or {}), kernel_name=kernel_name,
                               cwd=str(cwd if cwd is not None else notebook.parent), progress_bar=progress,
                               log_output=False, request_save_on_cell_execute=False,
                               kernel_manager_class=_ipc_kernel_manager())


# a hyphen-minus that is a sign: before a digit (or ".5"), not inside a word or a range such as "35-65"
_SIGN = re.compile(r"(?<![\w.)\]])-(?=\.?\d)")


def minus_signs(table):
    """``table`` (a DataFrame) with every minus sign typeset as U+2212 (−), the sign the thesis's
    quoted values carry, so that a column never mixes "−32 %" and "-38.1%".

    Negative numbers become text (6 significant digits, as pandas shows them); in text, a
    hyphen-minus directly before a digit is replaced unless it follows a letter, digit, point or
    closing bracket (a range "35-65" or a name "C3D-1" keeps its hyphen).

    >>> import pandas as pd
    >>> minus_signs(pd.DataFrame({"a": ["-38.1% (stroke 2)", "35-65 °"], "b": [-17.848, 2.5]})).values.tolist()
    [['−38.1% (stroke 2)', '−17.848'], ['35-65 °', 2.5]]
    """
    def sign(v):
        if isinstance(v, str):
            return _SIGN.sub("\u2212", v)
        if isinstance(v, numbers.Real) and not isinstance(v, bool) and v < 0:
            return "\u2212" + f"{-float(v):.6g}"
        return v

    out = table.copy()
    out.index = out.index.map(sign)
    return out.map(sign) if hasattr(out, "map") else out.applymap(sign)
