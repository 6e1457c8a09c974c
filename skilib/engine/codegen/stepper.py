"""SciPy's DOP853 stepped in C around a compiled kernel: ``dop853_steps``.

``solve_ivp`` calls Python between the twelve stages of every DOP853 step: the engine's
right-hand side (``MultibodySystem.evaluate`` or a compiled kernel's) and SciPy's own stage
arithmetic; with a C kernel that Python costs more than the kernel's own solve of eq. 101
(``make bench``).  ``dop853.c`` is the same method (Hairer, Nørsett and Wanner, *Solving
ODEs I*, sec. II.10) with SciPy's step-size decisions, stage by stage, and its tableau written
from ``scipy.integrate._ivp.dop853_coefficients`` when the library is built: a run through it
takes SciPy's steps to rounding (the sums are formed in another order: the step times drift
apart by rounding that the error estimate passes on, the states at equal times agree to
rounding), and its interpolants are SciPy's ``Dop853DenseOutput`` of the same coefficients.
A stroke's extra states (work rates, speed integrals, the actuators' signed works) and its
terminal event (the ski's speed ṡ = e·Ṙ, e fixed or the ski's own turning axis) are formed in
the loop too (``skilib.strokes.stroke``).

It integrates eq. 101 with Baumgarte's terms (eqs. 99–101) for a compiled system whose
right-hand side is all in the kernel: no numeric inputs, no untraced force; a friction on a
constraint's load is checked at every evaluation as the compiled system checks it (N ≥ 0, else
its ``NegativeLoadError``); a body whose ZXZ angle θ may reach 0 or π is watched as the
compiled system watches it (|sin θ| < ``gimbal_tol`` at any evaluation raises its
``GimbalLockError``).  ``why_not`` names
what keeps a system out.
"""
from __future__ import annotations

import ctypes
from pathlib import Path
from typing import NamedTuple

import numpy as np
from scipy.integrate import OdeSolution

from .kernel import c_library

__all__ = ["dop853_steps", "why_not", "StepperFailure", "StepperRun", "evaluate_points"]

_HERE = Path(__file__).resolve().parent
_LIB: list = []  # the built library, once per process


class StepperFailure(RuntimeError):
    """The compiled loop stopped before the end: ``status`` 2 (step too small), 3 (evaluation
    budget) or the kernel's code (its solve failed) at time ``t``."""

    def __init__(self, message, status, t, nfev=0):
        super().__init__(message)
        self.status, self.t, self.nfev = status, t, nfev


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
        i = ctypes.c_int
        lib.dop853.argtypes = [ptr, ptr, i, i, ptr, i, i, i, dbl, dbl, dbl, dbl, ptr, dbl, dbl, dbl, ptr, lng, lng,
                               ptr, i, dbl, ptr, ptr, dbl, ptr, dbl, dbl, ptr, ptr, ptr, ptr, ptr, i, i, ptr, i, ptr, ptr,
                               ptr, i, ptr, ptr, ptr, ptr]
        lib.eval_points.restype = ctypes.c_int
        lib.eval_points.argtypes = [ptr, ptr, i, i, i, i, i, ptr, ptr, i, dbl, dbl] + [ptr] * 7 + [ptr]
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
    other = [b.name for b in system.gimbal_checked if b.rotation.__name__ != "ZXZ"]
    if other:
        return f"bodies {other} may reach their rotation's singularity, and only ZXZ angles are checked in C"
    return None


class StepperRun(NamedTuple):
    """What ``dop853_steps`` returns: the accepted steps' times (the start first) and states
    [step, component]; with ``dense`` their interpolant coefficients F [step, 7, component]
    (``scipy.integrate._ivp.rk.Dop853DenseOutput``), else None; the evaluations of eq. 101;
    ``event``: None, or (t_old, t, y_old, F) of the step in which the event changed sign (the
    last step); ``pieces``: {step k: [(j, jp, poly, breaks), ...]} of the steps whose signed works
    were split (``skilib.engine.integrators.SignedDense``); ``which``: the events that changed sign
    in that step (bit 1 ``event``, bit 2 ``event2``)."""
    t: np.ndarray
    y: np.ndarray
    F: np.ndarray | None
    nfev: int
    event: tuple | None
    pieces: dict = {}
    which: int = 0

    def _step(self, k, t_old, t, y_old, F):
        from scipy.integrate._ivp.rk import Dop853DenseOutput

        from ..integrators import SignedDense

        d = Dop853DenseOutput(t_old, t, y_old, F)
        return SignedDense(d, self.pieces[k], y_old) if k in self.pieces else d

    def event_step(self):
        """The interpolant of the step in which the event changed sign (None without one)."""
        return None if self.event is None else self._step(len(self.t) - 2, *self.event)

    def solution(self, t=None):
        """The steps' interpolants as SciPy's ``OdeSolution`` over the times ``t`` (default
        ``self.t``; a caller that ends the last step early at an event passes its times)."""
        if self.F is None:
            raise ValueError("solution: the steps were taken without dense=True")
        ts = self.t
        return StepPath(ts if t is None else t, _StepInterpolants(self, len(ts) - 1), self)


class _StepInterpolants:
    """A run's step interpolants as ``OdeSolution`` reads them (``len``, ``[k]``, iteration), each
    built when first asked for: a frame evaluated on a grid reads the plain steps' coefficients
    in one array expression (``StepPath``) and never needs most of them."""

    def __init__(self, run: StepperRun, n: int):
        self._run, self._n, self._made = run, n, {}

    def __len__(self):
        return self._n

    def __getitem__(self, k):
        k = range(self._n)[k]  # negative indices, and IndexError beyond, as a list's
        if k not in self._made:
            r = self._run
            self._made[k] = r._step(k, r.t[k], r.t[k + 1], r.y[k], r.F[k])
        return self._made[k]

    def __iter__(self):
        return (self[k] for k in range(self._n))


class StepPath(OdeSolution):
    """SciPy's ``OdeSolution`` over a C run's steps (``StepperRun.solution``) whose call at many
    times evaluates the plain DOP853 steps' interpolants together: ``Dop853DenseOutput``'s nesting
    y = y_old + x(F₀ + (1 − x)(F₁ + x(…))) with x = (τ − t_old)/h, the same operations on each
    point in one array expression, so the values are ``OdeSolution``'s bit for bit; a step whose
    signed works were split keeps its own interpolant (``SignedDense``)."""

    def __init__(self, ts, interpolants, run: StepperRun):
        super().__init__(ts, interpolants)
        self._t_old, self._h = run.t[:-1], run.t[1:] - run.t[:-1]
        self._y_old, self._F = run.y[:-1], run.F
        self._plain = np.ones(len(run.t) - 1, dtype=bool)
        self._plain[list(run.pieces)] = False

    def __call__(self, t):
        t = np.asarray(t)
        if t.ndim != 1 or not self.ascending:
            return super().__call__(t)
        seg = np.searchsorted(self.ts_sorted, t, side=self.side) - 1  # OdeSolution's choice of step
        np.clip(seg, 0, self.n_segments - 1, out=seg)
        out = np.empty((len(t), self._y_old.shape[1]))
        plain = self._plain[seg]
        s = seg[plain]
        x = ((t[plain] - self._t_old[s]) / self._h[s])[:, None]
        F = self._F[s]
        y = np.zeros((len(s), out.shape[1]))
        for i in range(F.shape[1]):  # reversed(F), as Dop853DenseOutput._call_impl
            y += F[:, F.shape[1] - 1 - i]
            if i % 2 == 0:
                y *= x
            else:
                y *= 1 - x
        out[plain] = y + self._y_old[s]
        for k in np.flatnonzero(~plain):
            out[k] = self.interpolants[seg[k]](t[k])
        return out.T


def dop853_steps(system, t_span, y0, *, alpha: float = 0.0, beta: float = 0.0, rtol: float = 1e-3,
                 atol: float = 1e-6, max_step: float = np.inf, dense: bool = False, max_eval: int = 10**9,
                 work_rates=None, cm: int | None = None, event=None, event_axis=None, event_direction: float = 0.0,
                 event2=None, signed=(), split: bool = True, chunk: int = 512) -> StepperRun:
    """Integrate y = [q; q̇; w] of the compiled ``system`` over ``t_span`` with DOP853 in C.

    Without ``work_rates`` y0 is [q; q̇].  A stroke's y0 carries its extra states w after them
    (``skilib.strokes.stroke``): their rates are ``work_rates`` @ the kernel's powers (an array
    [work, power]), then, if ``cm`` (the index of the centre of mass's x in q) is given, the
    centre of mass's |v|, |vx| and |vy|, then zeros.  ``event``: coefficients c of a terminal
    event g = c · y, in ``event_direction`` (``solve_ivp``'s event.direction); ``event_axis``
    (body, i_v): g gains the body's x axis · y[i_v: i_v + 3] (a ski's speed along its own line
    when the line turns).  ``event2``: (index i, offset, direction) of a second terminal event
    g₂ = y[i] + offset (a phase that may end early: a pole's contact).  ``signed``: (i, jp) per
    actuator, i its work rate's row of ``work_rates``, jp and jp + 1 the indices in y of its
    positive and negative works, which the error norm does not see and which are split exactly
    in a step whose stage rates change sign (``skilib.engine.integrators.signed_method``, the
    same split).  ``split=False`` leaves them unsplit, numbers that mean nothing (for a caller that
    needs only the end state's q, q̇ and net works, a stroke map, and says so: ``Stroke.run(works=False)``
    sets them NaN at the stroke's end); the steps, and every other state, are the same bit for
    bit, the interpolants of the split steps are not built (three fewer evaluations each).  A system
    ``why_not`` refuses is a ``ValueError`` naming the reason; a failed step a ``StepperFailure``;
    a ZXZ singularity the system's ``GimbalLockError``."""
    reason = why_not(system)
    if reason is not None:
        raise ValueError(f"system: cannot be stepped in C: {reason}")
    lib = _library()
    ctx_eom, ctx, _keep = system.kernel_context
    t0, tf = float(t_span[0]), float(t_span[1])
    n = system.nq
    y = np.array(y0, dtype=float)
    W = np.zeros((0, 0)) if work_rates is None else np.ascontiguousarray(work_rates, dtype=float)
    m = len(y)
    if m < 2 * n or (work_rates is None and m != 2 * n) or m < 2 * n + W.shape[0] + (3 if cm is not None else 0):
        raise ValueError(f"y0: needs {2 * n} entries (q and q̇) and room for the extra states, got {m}")
    ev = None if event is None else np.ascontiguousarray(event, dtype=float)
    if ev is not None and ev.shape != (m,):
        raise ValueError(f"event: needs {m} coefficients, got shape {ev.shape}")
    ev2, ev2_off, ev2_dir = None, 0.0, 0.0
    if event2 is not None:
        i2, ev2_off, ev2_dir = int(event2[0]), float(event2[1]), float(event2[2])
        if not 0 <= i2 < m:
            raise ValueError(f"event2: its index {i2} is not in the state of {m} entries")
        ev2 = np.zeros(m)
        ev2[i2] = 1.0
    which = ctypes.c_int(0)
    axis = None
    if event_axis is not None:
        body, i_v = event_axis
        kind = {"ZXZ": 1, "EulerParameters": 2}.get(body.rotation.__name__)
        if kind is None:
            raise ValueError(f"event_axis: body '{body.name}' has rotation {body.rotation.__name__}, not ZXZ or Euler "
                             "parameters")
        axis = np.array([system.slice(body).start + 3, int(i_v), kind], dtype=np.intc)
    signed = [(int(i), int(jp)) for i, jp in signed]
    if len(signed) > 30:
        raise ValueError(f"signed: at most 30 actuators, got {len(signed)}")
    pairs = np.array(signed, dtype=np.intc).reshape(-1, 2)
    n_checked = m - 2 * len(signed)
    if signed and (pairs[:, 1].min() < n_checked or sorted(pairs[:, 1]) != list(range(n_checked, m, 2))):
        raise ValueError(f"signed: the positive and negative works must be the last {2 * len(signed)} states")
    loads = system.load_forces  # N = load_sign λ_k ≥ 0 at every evaluation, as the compiled system checks it
    load_index = np.array([f.index for f in loads], dtype=np.intc)
    load_sign = np.array([f.load_sign for f in loads], dtype=float)
    work = np.zeros(24 * m)
    theta = np.array([system.slice(b).start + 4 for b in system.gimbal_checked], dtype=np.intc)
    F_event = np.zeros((7, m))
    h = ctypes.c_double(0.0)
    n_steps, nfev, t_fail = ctypes.c_long(0), ctypes.c_long(0), ctypes.c_double(np.nan)
    # a split step needs its interpolant: with signed works and no dense output, the C loop
    # builds only the interpolants of the steps it flags (three evaluations fewer per other step)
    split = bool(split) and bool(signed)
    dense_all, dense = dense, dense or split
    ts, Ys, Fs, flags, total = [np.array([t0])], [y[None, :]], [], [], 0
    t = t0
    while True:
        # the loop writes every row it reports (ts, ys; with dense_all every step's F), and only
        # those are read: no zeroing of the buffers (F's chunk is ~1.4 MB), except F's when only
        # the split steps' interpolants are built (the rest are returned as zeros)
        tb, yb = np.empty(chunk + 1), np.empty((chunk + 1, m))
        fb = (np.empty if dense_all else np.zeros)((chunk, 7, m)) if dense else None
        flb = np.zeros(chunk, dtype=np.intc)
        status = lib.dop853(ctx_eom, ctx, n, m, W.ctypes.data, W.shape[0], W.shape[1] if W.size else 0,
                            -1 if cm is None else int(cm), float(alpha), float(beta), t, tf, y.ctypes.data,
                            float(rtol), float(atol), float(max_step), ctypes.byref(h), chunk, int(max_eval) - total,
                            theta.ctypes.data, len(theta), float(system.gimbal_tol),
                            None if ev is None else ev.ctypes.data, None if axis is None else axis.ctypes.data,
                            float(event_direction), None if ev2 is None else ev2.ctypes.data, ev2_off, ev2_dir,
                            ctypes.byref(which), F_event.ctypes.data, tb.ctypes.data, yb.ctypes.data,
                            fb.ctypes.data if dense else None, int(dense_all), n_checked, pairs.ctypes.data, len(pairs),
                            flb.ctypes.data if split else None, load_index.ctypes.data, load_sign.ctypes.data,
                            len(loads), ctypes.byref(n_steps), ctypes.byref(nfev),
                            ctypes.byref(t_fail), work.ctypes.data)
        k = n_steps.value
        total += nfev.value
        ts.append(tb[1: k + 1])
        Ys.append(yb[1: k + 1])
        if dense:
            Fs.append(fb[:k])
        flags.append(flb[:k])
        if status == 1:  # the chunk is full: go on from its last step, with the step size it chose
            t, y = float(tb[k]), yb[k].copy()
            continue
        if status == 1000:
            raise system.gimbal_error(t_fail.value, work[23 * m: 23 * m + n].copy())
        if status == 1001:  # the compiled system's own check names the force, the row and the load
            yf = work[23 * m: 23 * m + m]
            system.evaluate(t_fail.value, yf[:n], yf[n: 2 * n], alpha, beta)
        if status not in (0, 4):
            what = {2: "the step size fell below SciPy's smallest", 3: f"max_eval: {max_eval} evaluations used",
                    1001: "a friction's load went negative"}
            raise StepperFailure(f"DOP853 in C stopped at t = {t_fail.value:.6g} s: "
                                 f"{what.get(status, f'the kernel could not solve eq. 101 (code {status})')}",
                                 status, t_fail.value, total)
        break
    t_all, Y, F = np.concatenate(ts), np.vstack(Ys), np.concatenate(Fs) if dense else None
    pieces = _split_signed(t_all, Y, F, np.concatenate(flags), pairs, n) if split else {}
    hit = (float(t_all[-2]), float(t_all[-1]), Y[-2].copy(), F_event) if status == 4 else None
    return StepperRun(t_all, Y, F, total, hit, pieces, which.value if status == 4 else 0)


def evaluate_points(system, t, q, qd, alpha: float = 0.0, beta: float = 0.0):
    """Eq. 101 of the compiled ``system`` at the points (t[j], q[j], qd[j]) in one call into C
    (``eval_points`` of dop853.c: the kernel's eom at each point, its buffers copied out stacked):
    {"qdd", "lam", "M", "C", "Cq", "Cdot", "QF", "powers"}, each with the points first, equal bit
    for bit to the system's ``evaluate`` point by point (the same kernel call on the same
    numbers).  None where a point fails (the kernel's solve, a non-finite result): the caller
    evaluates point by point, and the failing point raises the system's own error.  The system
    must be one ``why_not`` lets through (no inputs or forces evaluated in Python)."""
    reason = why_not(system)
    if reason is not None:
        raise ValueError(f"system: cannot be evaluated in C: {reason}")
    lib = _library()
    ctx_eom, ctx, _keep = system.kernel_context
    t = np.ascontiguousarray(t, dtype=float)
    k, n, nc = len(t), system.nq, system.nc
    Y = np.ascontiguousarray(np.hstack([np.reshape(q, (k, n)), np.reshape(qd, (k, n))]), dtype=float)
    nqf = system.kernel.shapes["QF"][0]
    npw = nqf + 2 * nc
    out = dict(X=np.empty((k, n + nc)), M=np.empty((k, n, n)), C=np.empty((k, nc)), Cq=np.empty((k, nc, n)),
               Cdot=np.empty((k, nc)), QF=np.empty((k, nqf, n)), powers=np.empty((k, npw)))
    failed = ctypes.c_int(-1)
    status = lib.eval_points(ctx_eom, ctx, n, nc, nqf, npw, k, t.ctypes.data, Y.ctypes.data, 2 * n, float(alpha),
                             float(beta), out["X"].ctypes.data, out["M"].ctypes.data, out["C"].ctypes.data,
                             out["Cq"].ctypes.data, out["Cdot"].ctypes.data, out["QF"].ctypes.data,
                             out["powers"].ctypes.data, ctypes.byref(failed))
    if status:
        return None
    X = out.pop("X")
    return dict(qdd=X[:, :n], lam=X[:, n:], **out)


def _split_signed(t, Y, F, flags, pairs, n):
    """The signed works of the steps whose stage rates changed sign, split as ``signed_method``
    splits them (``split_dop853_steps``: every such step of every actuator in one call, from its
    interpolant's coefficients), and every later state's W⁺, W⁻ moved by the change (they
    feed nothing back: rates, steps and the error norm do not see them).  Y is changed in place;
    returns the pieces per step."""
    from ..integrators import split_dop853_steps

    which = [(p, np.nonzero(flags >> p & 1)[0]) for p in range(len(pairs))]
    which = [(p, ks) for p, ks in which if len(ks)]
    if not which:
        return {}
    cols = [2 * n + int(pairs[p][0]) for p, _ in which]
    coef, breaks, wp, wn = split_dop853_steps(np.concatenate([Y[ks, j] for (_, ks), j in zip(which, cols)]),
                                              np.concatenate([F[ks, :, j] for (_, ks), j in zip(which, cols)]))
    pieces, at = {}, 0
    for (p, ks), j in zip(which, cols):
        jp, b = int(pairs[p][1]), slice(at, at + len(ks))
        at += len(ks)
        # each step's unsplit increments, replaced by the split ones from the next state on
        for col, inc in ((jp, Y[ks, jp] + wp[b] - Y[ks + 1, jp]), (jp + 1, Y[ks, jp + 1] + wn[b] - Y[ks + 1, jp + 1])):
            shift = np.zeros(len(t))
            shift[ks + 1] = inc
            Y[:, col] += np.cumsum(shift)
        for k, c, br in zip(ks, coef[b], breaks[b]):
            pieces.setdefault(int(k), []).append((j, jp, c, br))
    return pieces
