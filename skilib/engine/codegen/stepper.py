"""SciPy's DOP853 stepped in C around a compiled kernel: ``dop853_steps``.

``solve_ivp`` calls Python between the twelve stages of every DOP853 step: the engine's
right-hand side (``MultibodySystem.evaluate`` or a compiled kernel's) and SciPy's own stage
arithmetic.  With a C kernel the right-hand side itself costs ≈ 9 µs; the Python around it
costs more than that.  ``dop853.c`` is the same method (Hairer, Nørsett and Wanner, *Solving
ODEs I*, sec. II.10) with SciPy's step-size decisions, stage by stage, and its tableau written
from ``scipy.integrate._ivp.dop853_coefficients`` when the library is built: a run through it
takes SciPy's steps to rounding (the sums are formed in another order), and its interpolants
are SciPy's ``Dop853DenseOutput`` of the same coefficients.

It integrates eq. 101 with Baumgarte's terms (eqs. 99–101) for a compiled system whose
right-hand side is all in the kernel: no numeric inputs, no untraced force, no force on a
load; a body whose ZXZ angle θ may reach 0 or π is watched as the compiled system watches it
(|sin θ| < ``gimbal_tol`` at any evaluation raises its ``GimbalLockError``).  ``why_not`` names
what keeps a system out.
"""
from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from .kernel import c_library

__all__ = ["dop853_steps", "why_not", "StepperFailure"]

_HERE = Path(__file__).resolve().parent
_LIB: list = []  # the built library, once per process


class StepperFailure(RuntimeError):
    """The compiled loop stopped before the end: ``status`` 2 (step too small), 3 (evaluation
    budget) or the kernel's code (its solve failed) at time ``t``."""

    def __init__(self, message, status, t):
        super().__init__(message)
        self.status, self.t = status, t


def _tableau() -> str:
    """The C definitions of SciPy's DOP853 tableau and step-size constants (exact: each number is
    printed with repr, which round-trips)."""
    from scipy.integrate import DOP853
    from scipy.integrate._ivp import dop853_coefficients as d, rk

    def vec(name, a):
        return f"static const double {name}[{len(a)}] = {{{', '.join(repr(float(x)) for x in a)}}};"

    def mat(name, a):
        rows = ", ".join("{" + ", ".join(repr(float(x)) for x in r) + "}" for r in a)
        return f"static const double {name}[{a.shape[0]}][{a.shape[1]}] = {{{rows}}};"

    return "\n".join([
        f"#define N_STAGES {d.N_STAGES}", f"#define N_STAGES_EXTENDED {d.N_STAGES_EXTENDED}",
        f"#define INTERPOLATOR_POWER {d.INTERPOLATOR_POWER}",
        f"#define ERROR_ESTIMATOR_ORDER {DOP853.error_estimator_order}",
        f"#define SAFETY {float(rk.SAFETY)!r}", f"#define MIN_FACTOR {float(rk.MIN_FACTOR)!r}",
        f"#define MAX_FACTOR {float(rk.MAX_FACTOR)!r}",
        mat("A", d.A), vec("B", d.B), vec("C", d.C), vec("E3", d.E3), vec("E5", d.E5), mat("D", d.D)])


def _library():
    if not _LIB:
        src = (_HERE / "dop853.c").read_text().replace('#include "dop853_tableau.h"', _tableau())
        lib = c_library("dop853_", src)
        dbl, ptr, lng = ctypes.c_double, ctypes.c_void_p, ctypes.c_long
        lib.dop853.restype = ctypes.c_int
        lib.dop853.argtypes = [ptr, ptr, ctypes.c_int, dbl, dbl, dbl, dbl, ptr, dbl, dbl, dbl, ptr, lng, lng,
                               ptr, ctypes.c_int, dbl, ptr, ptr, ptr, ptr, ptr, ptr, ptr]
        _LIB.append(lib)
    return _LIB[0]


def why_not(system) -> str | None:
    """Why ``system`` cannot be stepped in C (None: it can)."""
    ctx = getattr(system, "kernel_context", None)
    if ctx is None:
        return "it is not a compiled system with the C backend (compile_system(system, backend='c'))"
    if system.kernel.n_inputs:
        return (f"{system.kernel.n_inputs} of its kernel's inputs are evaluated in Python at each call (a law "
                "or force magnitude sympy cannot trace)")
    if system.numeric_forces:
        return f"forces {[f.name for f in system.numeric_forces]} are evaluated by the numeric engine"
    if system.load_forces:
        return f"forces {[f.name for f in system.load_forces]} on a constraint's load are checked after every solve"
    other = [b.name for b in system.gimbal_checked if b.rotation.__name__ != "ZXZ"]
    if other:
        return f"bodies {other} may reach their rotation's singularity, and only ZXZ angles are checked in C"
    return None


def dop853_steps(system, t_span, y0, *, alpha: float = 0.0, beta: float = 0.0, rtol: float = 1e-3,
                 atol: float = 1e-6, max_step: float = np.inf, dense: bool = False, max_eval: int = 10**9,
                 chunk: int = 2048):
    """Integrate y = [q; q̇] of the compiled ``system`` over ``t_span`` with DOP853 in C.

    Returns (t, Y, F, nfev): the accepted steps' times (with the start) and states [step,
    component], and with ``dense`` the steps' interpolant coefficients F [step, 7, component]
    (``scipy.integrate._ivp.rk.Dop853DenseOutput``), else None.  A system ``why_not`` refuses is
    a ``ValueError`` naming the reason; a failed step is a ``StepperFailure``."""
    reason = why_not(system)
    if reason is not None:
        raise ValueError(f"system: cannot be stepped in C: {reason}")
    lib = _library()
    eom, ctx, _keep = system.kernel_context
    t0, tf = float(t_span[0]), float(t_span[1])
    m = 2 * system.nq
    y = np.array(y0, dtype=float)
    if y.shape != (m,):
        raise ValueError(f"y0: needs {m} entries (q and q̇), got shape {y.shape}")
    work = np.zeros(24 * m)
    theta = np.array([system.slice(b).start + 4 for b in system.gimbal_checked], dtype=np.intc)
    h = ctypes.c_double(0.0)
    n_steps, nfev, t_fail = ctypes.c_long(0), ctypes.c_long(0), ctypes.c_double(np.nan)
    ts, Ys, Fs, total = [np.array([t0])], [y[None, :]], [], 0
    t = t0
    while True:
        tb, yb = np.zeros(chunk + 1), np.zeros((chunk + 1, m))
        fb = np.zeros((chunk, 7, m)) if dense else None
        status = lib.dop853(eom, ctx, system.nq, float(alpha), float(beta), t, tf, y.ctypes.data, float(rtol),
                            float(atol), float(max_step), ctypes.byref(h), chunk, int(max_eval) - total,
                            theta.ctypes.data, len(theta), float(system.gimbal_tol), tb.ctypes.data, yb.ctypes.data, fb.ctypes.data if dense else None,
                            ctypes.byref(n_steps), ctypes.byref(nfev), ctypes.byref(t_fail), work.ctypes.data)
        k = n_steps.value
        total += nfev.value
        ts.append(tb[1: k + 1])
        Ys.append(yb[1: k + 1])
        if dense:
            Fs.append(fb[:k])
        if status == 1:  # the chunk is full: go on from its last step, with the step size it chose
            t, y = float(tb[k]), yb[k].copy()
            continue
        if status == 1000:
            raise system.gimbal_error(t_fail.value, work[23 * m: 23 * m + system.nq].copy())
        if status != 0:
            what = {2: "the step size fell below SciPy's smallest", 3: f"max_eval: {max_eval} evaluations used"}
            raise StepperFailure(f"DOP853 in C stopped at t = {t_fail.value:.6g} s: "
                                 f"{what.get(status, f'the kernel could not solve eq. 101 (code {status})')}",
                                 status, t_fail.value)
        break
    return np.concatenate(ts), np.vstack(Ys), (np.concatenate(Fs) if dense else None), total
