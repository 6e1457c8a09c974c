"""Generated code for eq. 101: one compiled kernel per system *structure*.

The numeric engine evaluates M, Qv, C, Cq, Ct, Qd and Qe through many small numpy
operations (``skilib.engine.kinematics``).  Here the very same component code is traced once
with sympy symbols, reduced by common-subexpression elimination (``sympy.cse``), printed
as straight-line code and compiled: by default as C (sympy's C99 printer, the system's C
compiler, ctypes), or with numba, or run as plain Python where neither exists.  The kernel
also assembles the augmented matrix of eq. 101 and solves it, so one right-hand side is
one call.  Measured on the skier (``make bench``): the C kernel's assemble-and-solve costs
about as much as a bare ``numpy.linalg.solve`` of its 35 × 35 matrix, and, unlike numba,
it brings no compiler into the process (a lighter worker for sweeps).  sympy is imported
only to trace a structure that is not in the cache yet.

Parameters, not constants.  Before tracing, every floating-point number stored in the
system's components (constraint points and axes, driver laws, force magnitudes, body
masses and inertias) is replaced by a symbol ``c[k]``.  The kernel therefore depends only
on the system's *structure* (component types, body references, integer indices, which
inertia entries are zero) and is cached under that structure: a new heading, start point,
skating angle or mass reuses the compiled kernel, and only the parameter vector is
gathered again (microseconds instead of seconds).

What stays numeric.  A driver law that is not a ``Constant``, ``Polynomial`` or
``RotationPath``, and a force magnitude given as a callable (``LineForce``) whose class has
no ``symbolic(t)`` method (the Fourier push-off has one), are evaluated in Python at each
call and enter the kernel as inputs ``p[k]``; a force element
that cannot be traced (``PointForce``, ``Torque``: arbitrary callables of the state) is
evaluated by the numeric engine and added to the right-hand side.  Nothing held in a
closure is ever baked into a cached kernel.
"""
from __future__ import annotations

import copy
import ctypes
import hashlib
import importlib.util
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import types
from pathlib import Path

import numpy as np

from ..bodies import RigidBody
from ..constraints import Constraint
from ..errors import SingularSystemError
from ..forces import ConstantForce, Drag, Gravity, LineForce, SpringDamper
from ..kinematics import Jet, State
from ..system import MultibodySystem
from ..timefunctions import Constant, Polynomial, RotationPath

__all__ = ["compile_system", "CompiledSystem", "clear_kernel_cache", "kernel_cache_dir", "default_backend",
           "c_compiler", "BACKENDS"]

_TRACEABLE_LAWS = (Constant, Polynomial, RotationPath)
_TRACEABLE_FORCES = (Gravity, ConstantForce, LineForce, Drag, SpringDamper)
# objects whose attributes are walked for parameters (their float data become c[k])
_PARAM_OBJECTS = (Constraint,) + _TRACEABLE_LAWS + _TRACEABLE_FORCES

_KERNELS: dict = {}  # structure key -> _Kernel (a cache: kernels are pure functions)


def clear_kernel_cache() -> None:
    """Forget every compiled kernel (they are rebuilt on the next ``compile_system``)."""
    _KERNELS.clear()


# -- walking a system: structure key, parameter values, symbolic clone ----------------
class _Walk:
    """One pass over a system's bodies, constraints and traceable forces.

    Collects the structure key and the parameter values in a fixed order; with
    ``symbolic=True`` it also builds a clone of the system whose parameters are symbols.
    """

    def __init__(self, system: MultibodySystem, symbolic: bool):
        self.symbolic = symbolic
        self.key: list = []
        self.values: list = []
        self.opaque: dict = {}  # id(callable) -> path (numeric inputs)
        self._bodies = {id(b): i for i, b in enumerate(system.bodies)}
        self._clones: list = []
        self.traced_forces = [i for i, f in enumerate(system.forces) if isinstance(f, _TRACEABLE_FORCES)]
        self.key.append(("nq", system.nq, "nc", system.nc))
        bodies = [self._body(b, ("bodies", i)) for i, b in enumerate(system.bodies)]
        self._clones = bodies
        cons = [self._value(c, ("constraints", i)) for i, c in enumerate(system.constraints)]
        forces = [self._value(system.forces[i], ("forces", i)) for i in self.traced_forces]
        self.key.append(("forces", tuple(type(f).__name__ for f in system.forces), tuple(self.traced_forces)))
        self.clone = None
        if symbolic:
            sysc = copy.copy(system)
            sysc.bodies = bodies
            sysc.constraints = cons
            sysc.forces = forces
            sysc._slices = {id(bc): system._slices[id(b)] for bc, b in zip(bodies, system.bodies)}
            self.clone = sysc

    def _symbols(self, n):
        import sympy as sp

        k = len(self.values) - n
        return [sp.Symbol(f"c[{k + j}]") for j in range(n)]

    def _body(self, b: RigidBody, path):
        self.key.append((path, "body", b.rotation.__name__, b.nq))
        m = self._value(float(b.mass), path + ("mass",))
        inertia = self._array(b.inertia, path + ("inertia",), keep_zeros=True)
        points = {k: self._array(v, path + ("points", k), keep_zeros=True) for k, v in sorted(b.points.items())}
        if not self.symbolic:
            return b
        bc = copy.copy(b)
        bc.mass, bc.inertia, bc.points = m, inertia, points
        return bc

    def _array(self, v: np.ndarray, path, keep_zeros: bool):
        mask = (v != 0) if keep_zeros else np.ones(v.shape, dtype=bool)
        self.key.append((path[-1], "f", v.shape, mask.tobytes()))
        self.values.extend(np.asarray(v, dtype=float)[mask].tolist())
        if not self.symbolic:
            return v
        out = np.zeros(v.shape, dtype=object)
        out[mask] = self._symbols(int(mask.sum()))
        return out

    def _value(self, v, path):
        if v is None or isinstance(v, (bool, int, np.integer, str)):
            self.key.append((path[-1], repr(v)))
            return v
        if isinstance(v, (float, np.floating)):
            self.key.append((path[-1], "f"))
            self.values.append(float(v))
            return self._symbols(1)[0] if self.symbolic else v
        if isinstance(v, np.ndarray):
            if v.dtype.kind == "f":
                return self._array(v, path, keep_zeros=False)
            self.key.append((path[-1], v.dtype.str, v.shape, v.tobytes()))
            return v
        if isinstance(v, RigidBody):
            i = self._bodies.get(id(v))
            if i is None:
                raise ValueError(f"{'/'.join(map(str, path))}: body '{v.name}' is not in the system")
            self.key.append((path[-1], "body", i))
            return self._clones[i] if self.symbolic else v
        if isinstance(v, (tuple, list)):
            self.key.append((path[-1], type(v).__name__, len(v)))
            out = [self._value(x, path + (j,)) for j, x in enumerate(v)]
            return type(v)(out) if self.symbolic else v
        if isinstance(v, dict):
            self.key.append((path[-1], "dict", tuple(sorted(v))))
            out = {k: self._value(v[k], path + (k,)) for k in sorted(v)}
            return out if self.symbolic else v
        if isinstance(v, type):
            self.key.append((path[-1], "type", v.__qualname__))
            return v
        signal = _is_signal(v)
        if isinstance(v, _PARAM_OBJECTS) or signal:
            self.key.append((path[-1], "object", type(v).__qualname__))
            clone = copy.copy(v) if self.symbolic else None
            for name in sorted(vars(v)):
                cv = self._value(getattr(v, name), path + (name,))
                if self.symbolic:
                    object.__setattr__(clone, name, cv)  # frozen dataclasses too
            if signal:  # should its symbolic form fail, it is still found as a numeric input
                self.opaque.setdefault(id(v), path)
                if self.symbolic:
                    self.opaque[id(clone)] = path
            return clone if self.symbolic else v
        # an arbitrary callable or object: evaluated numerically, never baked in
        self.key.append((path[-1], "opaque", type(v).__qualname__))
        self.opaque.setdefault(id(v), path)
        return v


def _is_signal(v) -> bool:
    """A prescribed scalar function of time that can write itself as an expression of a
    sympy t: its class defines ``symbolic(t)`` (the Fourier series of the push-off, eq. 102).
    Its float attributes become kernel parameters like those of a driver law."""
    return callable(getattr(type(v), "symbolic", None))


def _resolve(system, path):
    obj = {"bodies": system.bodies, "constraints": system.constraints, "forces": system.forces}[path[0]]
    for step in path[1:]:
        if isinstance(step, int) or isinstance(obj, dict):
            obj = obj[step]
        else:
            obj = getattr(obj, step)
    return obj


class _TracingState(State):
    """A State whose coordinates, velocities and time are sympy symbols."""

    dtype = object

    def __init__(self, system, opaque):
        import sympy as sp

        q = np.array([sp.Symbol(f"q[{i}]") for i in range(system.nq)], dtype=object)
        qd = np.array([sp.Symbol(f"qd[{i}]") for i in range(system.nq)], dtype=object)
        super().__init__(system, sp.Symbol("t"), q, qd)
        self._opaque = opaque
        self.inputs = []  # (path, kind, shape) evaluated numerically at run time
        self._n_inputs = 0

    def _input(self, fn, kind, shape):
        path = self._opaque.get(id(fn))
        if path is None:
            raise TypeError(f"cannot trace {fn!r}: it is not a component attribute")
        import sympy as sp

        size = int(np.prod(shape)) if shape else 1
        k = self._n_inputs
        syms = np.array([sp.Symbol(f"p[{k + j}]") for j in range(size)], dtype=object)
        self._n_inputs += size
        self.inputs.append((path, kind, shape))
        return syms.reshape(shape) if shape else syms[0]

    def law(self, fn):
        if isinstance(fn, _TRACEABLE_LAWS):
            return fn(self.t)
        shapes = [np.shape(v) for v in fn(0.0)]
        return tuple(self._input(fn, ("law", d), shp) for d, shp in enumerate(shapes))

    def signal(self, fn):
        if _is_signal(fn):
            try:
                return fn.symbolic(self.t)
            except NotImplementedError:  # e.g. a scaled user callable: evaluated numerically
                pass
        return self._input(fn, ("signal",), ())


# -- the kernel (generated source, compiled) --------------------------------------------
_PY_DRIVER = '''
def eom(t, q, qd, c, p, alpha, beta, Qx, M, Qv, C, Cq, Cvel, Cquad, QF, K, rhs, pw):
    generated(t, q, qd, c, p, M, Qv, C, Cq, Cvel, Cquad, QF)
    n = q.shape[0]
    m = C.shape[0]
    nf = QF.shape[0]
    for i in range(n):
        for j in range(n):
            K[i, j] = M[i, j]
        s = Qv[i] + Qx[i]
        for f in range(QF.shape[0]):
            s += QF[f, i]
        rhs[i] = s
    for r in range(m):
        for j in range(n):
            K[n + r, j] = Cq[r, j]
            K[j, n + r] = Cq[r, j]
        rhs[n + r] = -Cquad[r] - 2.0 * alpha * Cvel[r] - beta * beta * C[r]
    x = np.linalg.solve(K, rhs)
    for f in range(nf):
        s = 0.0
        for j in range(n):
            s += QF[f, j] * qd[j]
        pw[f] = s
    for r in range(m):
        s = 0.0
        for j in range(n):
            s += Cq[r, j] * qd[j]
        pw[nf + r] = -x[n + r] * s
        pw[nf + m + r] = x[n + r] * (Cvel[r] - s)
    return x
'''

# The drivers assemble eq. 101 and solve it (C: Gaussian elimination with partial
# pivoting, what LAPACK's dgesv does, unblocked: at 35 × 35 blocking buys nothing; it
# returns 0, k + 1 when column k has no non-zero pivot, or −1 for a non-finite result).  They also fill pw with the
# powers a work–energy bookkeeping needs: Q_f·q̇ of each traced force f, −λ_r (Cq q̇)_r of
# each row's constraint force (§3.5: Qc = −Cqᵀλ), and λ_r (Ċ_r − (Cq q̇)_r) = λ_r Ct_r.
_C_DRIVER = '''
int eom(double t, const double *q, const double *qd, const double *c, const double *p,
        double alpha, double beta, const double *Qx, double *M, double *Qv, double *C,
        double *Cq, double *Cvel, double *Cquad, double *QF, double *K, double *x, double *pw)
{
    const int n = NQ, m = NC, nf = NF, nn = NQ + NC;
    int i, j, k, f, r;
    generated(t, q, qd, c, p, M, Qv, C, Cq, Cvel, Cquad, QF);
    for (i = 0; i < n; i++) {
        double s = Qv[i] + Qx[i];
        for (j = 0; j < n; j++) K[i * nn + j] = M[i * n + j];
        for (f = 0; f < nf; f++) s += QF[f * n + i];
        x[i] = s;
    }
    for (r = 0; r < m; r++) {
        for (j = 0; j < n; j++) {
            K[(n + r) * nn + j] = Cq[r * n + j];
            K[j * nn + n + r] = Cq[r * n + j];
        }
        for (j = 0; j < m; j++) K[(n + r) * nn + n + j] = 0.0;
        x[n + r] = -Cquad[r] - 2.0 * alpha * Cvel[r] - beta * beta * C[r];
    }
    for (k = 0; k < nn; k++) {
        int piv = k;
        double big = fabs(K[k * nn + k]);
        for (i = k + 1; i < nn; i++) {
            double a = fabs(K[i * nn + k]);
            if (a > big) { big = a; piv = i; }
        }
        if (!(big > 0.0)) return k + 1;
        if (piv != k) {
            for (j = k; j < nn; j++) {
                double tmp = K[k * nn + j]; K[k * nn + j] = K[piv * nn + j]; K[piv * nn + j] = tmp;
            }
            { double tmp = x[k]; x[k] = x[piv]; x[piv] = tmp; }
        }
        for (i = k + 1; i < nn; i++) {
            double l = K[i * nn + k] / K[k * nn + k];
            if (l != 0.0) {
                for (j = k + 1; j < nn; j++) K[i * nn + j] -= l * K[k * nn + j];
                x[i] -= l * x[k];
            }
        }
    }
    for (i = nn - 1; i >= 0; i--) {
        double s = x[i];
        for (j = i + 1; j < nn; j++) s -= K[i * nn + j] * x[j];
        x[i] = s / K[i * nn + i];
        if (!isfinite(x[i])) return -1;  /* overflow of a nearly singular matrix */
    }
    for (f = 0; f < nf; f++) {
        double s = 0.0;
        for (j = 0; j < n; j++) s += QF[f * n + j] * qd[j];
        pw[f] = s;
    }
    for (r = 0; r < m; r++) {
        double s = 0.0;
        for (j = 0; j < n; j++) s += Cq[r * n + j] * qd[j];
        pw[nf + r] = -x[n + r] * s;
        pw[nf + m + r] = x[n + r] * (Cvel[r] - s);
    }
    return 0;
}

/* eom with its arrays in one table (q qd c p Qx M Qv C Cq Cvel Cquad QF K x pw): a call
   from Python then converts four arguments instead of nineteen */
int eom_ctx(double t, double alpha, double beta, double **a)
{
    return eom(t, a[0], a[1], a[2], a[3], alpha, beta, a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
               a[12], a[13], a[14]);
}

void terms(double t, const double *q, const double *qd, const double *c, const double *p,
           double *M, double *Qv, double *C, double *Cq, double *Cvel, double *Cquad, double *QF)
{
    generated(t, q, qd, c, p, M, Qv, C, Cq, Cvel, Cquad, QF);
}
'''

_FORMAT = 6  # bump when the generated file layout changes
BACKENDS = ("c", "numba", "python")


def kernel_cache_dir() -> Path:
    """Where compiled kernels are kept: $SKILIB_CACHE_DIR, else $XDG_CACHE_HOME/skilib or
    ~/.cache/skilib (subfolder ``kernels``).  Deleting it only costs recompilation."""
    root = os.environ.get("SKILIB_CACHE_DIR")
    if not root:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                            "skilib")
    return Path(root) / "kernels"


def c_compiler() -> str | None:
    """The C compiler for the 'c' backend: $CC, else cc or gcc on the PATH (None if absent)."""
    cc = os.environ.get("CC")
    if cc:
        return shutil.which(cc) or cc
    return shutil.which("cc") or shutil.which("gcc")


def default_backend() -> str:
    """'c' where a C compiler is found, else 'numba' where numba imports, else 'python'."""
    if c_compiler():
        return "c"
    return "numba" if importlib.util.find_spec("numba") is not None else "python"


def _check_backend(backend, use_numba):
    if use_numba is not None:  # the older switch: True = numba, False = plain Python
        if backend is not None:
            raise ValueError("backend, use_numba: give one of them, not both")
        return "numba" if use_numba else "python"
    if backend is None:
        return default_backend()
    if backend not in BACKENDS:
        raise ValueError(f"backend: must be one of {BACKENDS} or None (automatic), got {backend!r}")
    return backend


def _digest(key, backend) -> str:
    tag = (key, _FORMAT, backend, sys.implementation.cache_tag, platform.machine(), np.__version__)
    return hashlib.sha256(repr(tag).encode()).hexdigest()[:32]


class _Kernel:
    """Generated straight-line code for one system structure, compiled by one backend.

    'c': C source (sympy's C99 printer), compiled with the system's C compiler into a
    shared library in the kernel cache and called through ctypes.  'numba': a Python
    module in the cache compiled with ``numba.njit(cache=True)``.  'python': the same
    module executed as plain Python (slow; for machines with neither).  Cached files let
    another process (a notebook, a Dask worker) load a kernel instead of tracing again;
    they are written atomically, so concurrent workers never see half a file.
    """

    def __init__(self, key, system: MultibodySystem, backend: str):
        self.backend = backend
        digest = _digest(key, backend)
        self.path = None
        if backend == "c":
            self._init_c(system, digest)
        else:
            self._init_py(system, digest, backend)
        meta = self.meta
        self.inputs = [tuple(x) if isinstance(x, list) else x for x in meta["inputs"]]
        self.n_inputs, self.n_params, self.n_ops = meta["n_inputs"], meta["n_params"], meta["n_ops"]
        self.shapes = {k: tuple(v) for k, v in meta["shapes"].items()}

    # -- plain Python / numba ------------------------------------------------------
    def _init_py(self, system, digest, backend):
        numba = _numba(backend == "numba")
        path = kernel_cache_dir() / f"k{digest}.py" if numba else None
        mod = _load(path, digest) if path is not None and path.exists() else None
        if mod is None:
            meta, body = _trace(_Walk(system, symbolic=True), system, "python")
            src = _module_source(meta, body, numba is not None)
            mod = _store(path, src, digest) if path is not None else None
            if mod is None:  # no numba, or the cache folder is not writable
                mod = _exec_module(src, cache=False, numba=numba)
        self.meta, self.source, self.path = mod.META, mod.SOURCE, path
        self.fn, self._eom = mod.generated, mod.eom

    def bind(self, o, K, rhs, Qx, c, p, pw):
        """(terms(t, q, qd), solve(t, q, qd, α, β) → x or None if singular) on fixed buffers."""
        if self.backend == "c":
            return self._bind_c(o, K, rhs, Qx, c, p, pw)
        fn, eom = self.fn, self._eom
        args = (o["M"], o["Qv"], o["C"], o["Cq"], o["Cvel"], o["Cquad"], o["QF"])

        def terms(t, q, qd):
            fn(t, q, qd, c, p, *args)

        def solve(t, q, qd, alpha, beta):
            try:
                return eom(t, q, qd, c, p, alpha, beta, Qx, *args, K, rhs, pw)
            except np.linalg.LinAlgError:
                return None

        return terms, solve

    # -- C -----------------------------------------------------------------------------
    def _init_c(self, system, digest):
        folder = kernel_cache_dir()
        so, meta_path = folder / f"k{digest}.so", folder / f"k{digest}.json"
        if not (so.exists() and meta_path.exists()):
            meta, body = _trace(_Walk(system, symbolic=True), system, "c")
            src = _c_source(meta, body)
            try:
                _compile_c(src, so, meta_path, meta)
            except OSError:  # the cache folder is not writable: compile for this process only
                folder = Path(tempfile.mkdtemp(prefix="skilib-kernels-"))
                so, meta_path = folder / so.name, folder / meta_path.name
                _compile_c(src, so, meta_path, meta)
        self.meta = json.loads(meta_path.read_text())
        self.path = so
        self.source = so.with_suffix(".c").read_text() if so.with_suffix(".c").exists() else ""
        self._lib = ctypes.CDLL(str(so))
        dbl, ptr = ctypes.c_double, ctypes.c_void_p
        self._lib.eom.restype = ctypes.c_int
        self._lib.eom.argtypes = [dbl, ptr, ptr, ptr, ptr, dbl, dbl] + [ptr] * 11
        self._lib.eom_ctx.restype = ctypes.c_int
        self._lib.eom_ctx.argtypes = [dbl, dbl, dbl, ptr]
        self._lib.terms.restype = None
        self._lib.terms.argtypes = [dbl] + [ptr] * 11

    def _bind_c(self, o, K, rhs, Qx, c, p, pw):
        nq = self.shapes["Qv"][0]
        qbuf, qdbuf = np.zeros(nq), np.zeros(nq)
        keep = (o, K, rhs, Qx, c, p, pw, qbuf, qdbuf)  # the closures hold the buffers alive
        outs = [o[k].ctypes.data for k in ("M", "Qv", "C", "Cq", "Cvel", "Cquad", "QF")]
        pc, pp, pq, pqd = c.ctypes.data, p.ctypes.data, qbuf.ctypes.data, qdbuf.ctypes.data
        eom, terms_c = self._lib.eom_ctx, self._lib.terms
        table = (ctypes.c_void_p * 15)(pq, pqd, pc, pp, Qx.ctypes.data, *outs, K.ctypes.data, rhs.ctypes.data,
                                       pw.ctypes.data)
        ctx = ctypes.addressof(table)

        def terms(t, q, qd):
            qbuf[:] = q
            qdbuf[:] = qd
            terms_c(t, pq, pqd, pc, pp, *outs)

        def solve(t, q, qd, alpha, beta, _keep=(keep, table)):
            qbuf[:] = q
            qdbuf[:] = qd
            if eom(t, alpha, beta, ctx):
                return None
            return rhs

        return terms, solve


def _trace(walk: _Walk, system, language: str):
    """Trace the system's terms with sympy; returns (meta, generated function source)."""
    clone = walk.clone
    s = _TracingState(clone, walk.opaque)
    n, m = system.nq, system.nc
    blocks = {
        "M": np.asarray(clone.mass_matrix(s.q), dtype=object).reshape(n, n),
        "Qv": np.asarray(clone.quadratic_velocity(s.q, s.qd), dtype=object).reshape(n),
    }
    jet = clone.constraint_jet(s.t, s.q, s.qd, state=s)
    blocks.update(C=np.asarray(jet.val, dtype=object).reshape(m), Cq=np.asarray(jet.J, dtype=object).reshape(m, n),
                  Cvel=np.asarray(jet.vel, dtype=object).reshape(m),
                  Cquad=np.asarray(jet.quad, dtype=object).reshape(m))
    QF = np.zeros((max(len(clone.forces), 1), n), dtype=object)
    for i, f in enumerate(clone.forces):
        QF[i] = f.generalized(s)
    blocks["QF"] = QF
    body, n_ops = _generate(blocks, language)
    meta = dict(inputs=s.inputs, n_inputs=s._n_inputs, n_params=len(walk.values), n_ops=n_ops,
                shapes={k: v.shape for k, v in blocks.items()})
    return meta, body


def _numba(use_numba):
    if not use_numba:
        return None
    import numba

    return numba


def _generate(blocks, language="python"):
    import sympy as sp

    targets, exprs = [], []
    for name, arr in blocks.items():
        for idx in np.ndindex(arr.shape):
            e = sp.sympify(arr[idx])
            if e != 0:
                targets.append((name, idx, arr.shape))
                exprs.append(e)
    replacements, reduced = sp.cse(exprs, symbols=sp.numbered_symbols("x"))
    if language == "c":
        from sympy.printing.c import C99CodePrinter

        printer = C99CodePrinter()
        lines = ["static void generated(double t, const double *q, const double *qd, const double *c,",
                 "                      const double *p, double *M, double *Qv, double *C, double *Cq,",
                 "                      double *Cvel, double *Cquad, double *QF)", "{"]
        lines += [f"    const double {sym} = {printer.doprint(e)};" for sym, e in replacements]
        for (name, idx, shape), e in zip(targets, reduced):
            lines.append(f"    {name}[{int(np.ravel_multi_index(idx, shape))}] = {printer.doprint(e)};")
        lines.append("}")
        return "\n".join(lines), len(replacements) + len(reduced)
    from sympy.printing.pycode import PythonCodePrinter

    printer = PythonCodePrinter({"fully_qualified_modules": True})
    lines = ["def generated(t, q, qd, c, p, M, Qv, C, Cq, Cvel, Cquad, QF):"]
    lines += [f"    {sym} = {printer.doprint(e)}" for sym, e in replacements]
    for (name, idx, _), e in zip(targets, reduced):
        lines.append(f"    {name}[{', '.join(map(str, idx))}] = {printer.doprint(e)}")
    lines.append("    return 0")
    return "\n".join(lines), len(replacements) + len(reduced)


def _c_source(meta, body) -> str:
    shapes = meta["shapes"]
    head = ["/* Generated by skilib.engine.codegen from a system's structure; delete freely (it is a cache). */",
            "#include <math.h>",
            f"#define NQ {shapes['Qv'][0]}", f"#define NC {shapes['C'][0]}", f"#define NF {shapes['QF'][0]}", ""]
    return "\n".join(head + [body, _C_DRIVER])


def _compile_c(src: str, so: Path, meta_path: Path, meta: dict) -> None:
    cc = c_compiler()
    if cc is None:
        raise RuntimeError("backend 'c': no C compiler found (set $CC, or install cc/gcc); "
                           "or use backend='numba' or 'python'")
    so.parent.mkdir(parents=True, exist_ok=True)
    tag = f"{os.getpid()}.{threading.get_ident()}"
    c_file, tmp_so = so.with_suffix(f".{tag}.c"), so.with_suffix(f".{tag}.so")
    c_file.write_text(src)
    # -O2 without -ffast-math: IEEE arithmetic, so results do not depend on the flags' whims
    cmd = [cc, "-O2", "-std=c99", "-shared", "-fPIC", "-o", str(tmp_so), str(c_file), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"backend 'c': compiling the generated kernel failed ({' '.join(cmd)}):\n"
                           f"{proc.stderr[-2000:]}")
    tmp_meta = meta_path.with_suffix(f".{tag}.json")
    tmp_meta.write_text(json.dumps(meta))
    os.replace(c_file, so.with_suffix(".c"))
    os.replace(tmp_meta, meta_path)
    os.replace(tmp_so, so)  # last: the .so's presence means the kernel is complete


def _module_source(meta, body, jit: bool) -> str:
    deco = "@numba.njit(cache=True)\n" if jit else ""
    head = ["# Generated by skilib.engine.codegen from a system's structure; delete freely (it is a cache).",
            "import math", "import numpy as np"] + (["import numba"] if jit else [])
    return "\n".join(head + [f"META = {meta!r}", f"SOURCE = {body!r}", "", deco + body, "",
                             deco + _PY_DRIVER.strip(), ""])


def _exec_module(src, cache, numba):
    mod = types.ModuleType("skilib_kernel")
    if not cache and numba is not None:
        src = src.replace("@numba.njit(cache=True)", "@numba.njit(cache=False)")
    exec(compile(src, "<skilib.engine.codegen>", "exec"), mod.__dict__)
    return mod


def _load(path: Path, digest: str):
    try:
        name = f"skilib_kernel_{digest}"
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # numba's cache re-imports the module by name
        spec.loader.exec_module(mod)
        return mod
    except Exception:  # noqa: BLE001 - a damaged cache file is rebuilt, never trusted
        sys.modules.pop(f"skilib_kernel_{digest}", None)
        return None


def _store(path: Path, src: str, digest: str):
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(src)
        os.replace(tmp, path)  # atomic: concurrent workers never see half a file
    except OSError:
        return None
    return _load(path, digest)


# -- the public object ----------------------------------------------------------------
class CompiledSystem:
    """A ``MultibodySystem`` whose eq. 101 terms and solve come from a compiled kernel.

    ``equations_of_motion`` and ``accelerations`` have the system's signatures and
    results; ``terms(t, q, qd)`` gives the generated M, Qv, C, Cq, Ċ (= Cq q̇ + Ct),
    −Qd and the traced forces' Q.  Everything else (bookkeeping, checks, energies) is
    delegated to the wrapped system.  ``backend`` is 'c', 'numba' or 'python'.
    """

    def __init__(self, system: MultibodySystem, backend: str | None = None, use_numba: bool | None = None):
        self.system = system
        backend = _check_backend(backend, use_numba)
        walk = _Walk(system, symbolic=False)
        key = tuple(walk.key)
        kern = _KERNELS.get((key, backend))
        if kern is None:
            kern = _KERNELS[(key, backend)] = _Kernel(key, system, backend)
        self.kernel = kern
        self.backend, self.n_ops, self.source = kern.backend, kern.n_ops, kern.source
        self.c = np.array(walk.values, dtype=float)
        if self.c.size != kern.n_params:
            raise RuntimeError(f"kernel {kern.path}: expects {kern.n_params} parameters, the system has "
                               f"{self.c.size}; delete the kernel cache ({kernel_cache_dir()})")
        self._inputs = [(_resolve(system, path), kind, shape) for path, kind, shape in kern.inputs]
        self.inputs = self._inputs
        self._numeric_forces = [f for i, f in enumerate(system.forces) if i not in walk.traced_forces]
        self._traced_forces = [system.forces[i] for i in walk.traced_forces]
        n, m = system.nq, system.nc
        self._out = {k: np.zeros(v) for k, v in kern.shapes.items()}
        self._p = np.zeros(max(kern.n_inputs, 1))
        self._K = np.zeros((n + m, n + m))
        self._rhs = np.zeros(n + m)
        self._Qx = np.zeros(n)
        nf = kern.shapes["QF"][0]
        self._pw = np.zeros(nf + 2 * m)
        #: where ``power_terms`` keeps each kind of power (see ``_solve``)
        self.power_slices = dict(forces=slice(0, nf), rows=slice(nf, nf + m), rows_ct=slice(nf + m, nf + 2 * m))
        self._check_finite = kern.backend != "c"
        self._terms, self._kernel_solve = kern.bind(self._out, self._K, self._rhs, self._Qx, self.c, self._p,
                                                    self._pw)
        # ZXZ bodies the system checks for gimbal lock: indices of their θ
        self._theta = [system.slice(b).start + 4 for b in system._gimbal_checked if b.rotation.__name__ == "ZXZ"]
        self._other_checked = any(b.rotation.__name__ != "ZXZ" for b in system._gimbal_checked)

    # -- run time -----------------------------------------------------------------
    def _fill_inputs(self, t):
        p, k = self._p, 0
        for fn, kind, shape in self._inputs:
            if kind[0] == "signal":
                p[k] = fn(t)
                k += 1
            else:
                a = np.ravel(np.asarray(fn(t)[kind[1]], dtype=float))
                p[k: k + a.size] = a
                k += a.size
        return p

    def _check_gimbal(self, t, q):
        tol = self.system.gimbal_tol
        for i in self._theta:
            if abs(math.sin(q[i])) < tol:
                raise self.system.gimbal_error(t, q)
        if self._other_checked:
            self.system.check_gimbal(t, q)

    def _numeric_force_sum(self, t, q, qd):
        Qx = self._Qx
        if self._numeric_forces:
            Qx[:] = 0.0
            s = self.system.state(t, q, qd)
            for f in self._numeric_forces:
                Qx += f.generalized(s)
        return Qx

    def terms(self, t, q, qd) -> dict:
        """The generated terms at (t, q, q̇): M, Qv, C, Cq, Cvel, Cquad and QF (traced forces)."""
        self._fill_inputs(t)
        self._terms(float(t), np.asarray(q, float), np.asarray(qd, float))
        return self._out

    def _solve(self, t, q, qd, alpha, beta):
        """[q̈; λ] of eq. 101.  The C backend returns its own buffer, overwritten by the
        next call: copy what you keep (``accelerations`` does).  The same call leaves in
        ``self._pw`` (slices ``power_slices``) the power Q_f·q̇ of each traced force, the
        power −λ_r (Cq q̇)_r of each row's constraint force and λ_r Ct_r."""
        self._check_gimbal(t, q)
        if q.dtype != np.float64 or qd.dtype != np.float64:
            q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        self._fill_inputs(t)
        self._numeric_force_sum(t, q, qd)
        x = self._kernel_solve(float(t), q, qd, float(alpha), float(beta))
        # (the C driver checks finiteness itself; a NaN or inf anywhere makes the sum non-finite)
        if x is None or (self._check_finite and not math.isfinite(x.sum())):
            raise SingularSystemError(self.system._singular_message(t, q, self._K))
        return x

    def accelerations(self, t, q, qd, alpha=0.0, beta=0.0):
        """Solve eq. 101 for (q̈, λ) with the compiled kernel."""
        x = self._solve(t, q, qd, alpha, beta).copy()
        n = self.system.nq
        return x[:n], x[n:]

    def equations_of_motion(self, t, q, qd, alpha=0.0, beta=0.0):
        """As ``MultibodySystem.equations_of_motion``: (q̈, λ, constraint jet, {force: Q})."""
        x = self._solve(t, q, qd, alpha, beta).copy()
        n = self.system.nq
        o = self._out
        Cq = o["Cq"].copy()
        vel = o["Cvel"].copy()
        jet = Jet(o["C"].copy(), Cq, vel - Cq @ np.asarray(qd, float), vel, o["Cquad"].copy())
        Qf = {f.name: o["QF"][i].copy() for i, f in enumerate(self._traced_forces)}
        if self._numeric_forces:
            s = self.system.state(t, q, qd)
            Qf.update({f.name: f.generalized(s) for f in self._numeric_forces})
        return x[:n], x[n:], jet, Qf

    def __getattr__(self, name):
        return getattr(self.system, name)


def compile_system(system: MultibodySystem, *, backend: str | None = None,
                   use_numba: bool | None = None) -> CompiledSystem:
    """The system with its eq. 101 terms generated and compiled (cached by structure).

    backend : 'c' (a C compiler and ctypes), 'numba', 'python', or None for
        ``default_backend()`` ('c' where a compiler is found).  ``use_numba=True/False``
        is the older spelling of backend='numba'/'python'.
    """
    if isinstance(system, CompiledSystem):
        return system
    if not isinstance(system, MultibodySystem):
        raise ValueError(f"system: expected a MultibodySystem, got {type(system).__name__}")
    return CompiledSystem(system, backend=backend, use_numba=use_numba)
