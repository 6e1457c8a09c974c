"""Generated code for the terms of eq. 101: one compiled function per system.

The numeric engine evaluates M, Qv, C, Cq, Ct and Qd through many small numpy operations
(``skilib.kinematics``).  Here the very same component code is traced once with sympy
symbols for q, q̇ and t, the expressions are reduced by common-subexpression elimination
(``sympy.cse``), printed as straight-line Python, and compiled with numba when it is
installed (otherwise executed as plain Python).  A driver law that cannot be traced
symbolically (an arbitrary callable) becomes an input evaluated numerically at each call.
Applied forces stay numeric (they may be arbitrary user callables).

``compile_system(system)`` returns an object with the same ``accelerations`` as the
system, to pass to ``solve_dynamics`` in its place.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from .kinematics import State
from .system import MultibodySystem

__all__ = ["compile_system", "CompiledSystem"]


class _TracingState(State):
    """A State whose coordinates, velocities and time are sympy symbols."""

    dtype = object

    def __init__(self, system):
        q = np.array(sp.symbols(f"q0:{system.nq}"), dtype=object)
        qd = np.array(sp.symbols(f"qd0:{system.nq}"), dtype=object)
        super().__init__(system, sp.Symbol("t"), q, qd)
        self.inputs = []  # (law, symbols of f, ḟ, f̈) evaluated numerically at run time

    def law(self, fn):
        try:
            out = fn(self.t)
            for part in out:  # traceable laws give sympy expressions or numbers
                np.asarray(part, dtype=object)
            return out
        except (TypeError, ValueError, AttributeError):
            pass
        f, fd, fdd = (np.asarray(v, dtype=float) for v in fn(0.0))
        k = len(self.inputs)
        syms = [np.array(sp.symbols(f"law{k}_{d}_0:{max(f.size, 1)}"), dtype=object).reshape(f.shape)
                for d in range(3)]
        self.inputs.append((fn, syms))
        return tuple(syms)


def _as_expr_array(a, shape):
    return np.asarray(a, dtype=object).reshape(shape)


class CompiledSystem:
    """A ``MultibodySystem`` whose eq. 101 terms come from generated code.

    Everything else (bookkeeping, forces, checks) is delegated to the wrapped system.
    """

    def __init__(self, system: MultibodySystem, use_numba: bool | None = None):
        self.system = system
        n, m = system.nq, system.nc
        s = _TracingState(system)
        M = system.mass_matrix(s.q)
        Qv = system.quadratic_velocity(s.q, s.qd)
        jet = system.constraint_jet(s.t, s.q, s.qd, state=s)
        blocks = {
            "M": _as_expr_array(M, (n, n)),
            "Qv": _as_expr_array(Qv, (n,)),
            "C": _as_expr_array(jet.val, (m,)),
            "Cq": _as_expr_array(jet.J, (m, n)),
            "Cvel": _as_expr_array(jet.vel, (m,)),
            "Cquad": _as_expr_array(jet.quad, (m,)),
        }
        self.inputs = s.inputs
        self.n_inputs = sum(3 * max(np.size(syms[0]), 1) for _, syms in s.inputs)
        self._shapes = {k: v.shape for k, v in blocks.items()}
        self._fn, self.n_ops, self.backend = self._generate(blocks, s, use_numba)
        self._out = {k: np.zeros(v.shape) for k, v in blocks.items()}
        self._p = np.zeros(max(self.n_inputs, 1))

    # -- code generation ----------------------------------------------------------
    def _generate(self, blocks, s, use_numba):
        targets, exprs = [], []
        for name, arr in blocks.items():
            for idx in np.ndindex(arr.shape):
                e = sp.sympify(arr[idx])
                if e != 0:
                    targets.append((name, idx))
                    exprs.append(e)
        subs = {sym: sp.Symbol(f"q[{i}]") for i, sym in enumerate(s.q)}
        subs.update({sym: sp.Symbol(f"qd[{i}]") for i, sym in enumerate(s.qd)})
        subs[s.t] = sp.Symbol("t")
        k = 0
        for _, syms in s.inputs:
            for part in syms:
                for sym in np.ravel(part):
                    subs[sym] = sp.Symbol(f"p[{k}]")
                    k += 1
        replacements, reduced = sp.cse(exprs, symbols=sp.numbered_symbols("x"))
        from sympy.printing.pycode import PythonCodePrinter

        printer = PythonCodePrinter({"fully_qualified_modules": True})

        def pr(e):
            return printer.doprint(e.xreplace(subs))

        lines = ["def generated(t, q, qd, p, M, Qv, C, Cq, Cvel, Cquad):"]
        lines += [f"    {sym} = {pr(e)}" for sym, e in replacements]
        for (name, idx), e in zip(targets, reduced):
            lines.append(f"    {name}[{', '.join(map(str, idx))}] = {pr(e)}")
        lines.append("    return 0")
        src = "\n".join(lines)
        namespace = {"math": __import__("math")}
        exec(compile(src, "<skilib.codegen>", "exec"), namespace)
        fn, backend = namespace["generated"], "python"
        if use_numba or use_numba is None:
            try:
                import numba

                fn, backend = numba.njit(cache=False, fastmath=False)(fn), "numba"
            except ImportError:
                if use_numba:
                    raise
        self.source = src
        return fn, len(replacements) + len(reduced), backend

    # -- run time -----------------------------------------------------------------
    def _evaluate(self, t, q, qd):
        k = 0
        p = self._p
        for fn, syms in self.inputs:
            for part in fn(t):
                a = np.ravel(np.asarray(part, dtype=float))
                p[k : k + a.size] = a
                k += a.size
        o = self._out
        self._fn(t, q, qd, p, o["M"], o["Qv"], o["C"], o["Cq"], o["Cvel"], o["Cquad"])
        return o

    def accelerations(self, t, q, qd, alpha=0.0, beta=0.0):
        """Solve eq. 101 for (q̈, λ) with generated M, Qv, C, Cq, Ct, Qd."""
        sysm = self.system
        sysm.check_gimbal(t, q)
        o = self._evaluate(t, q, qd)
        n, m = sysm.nq, sysm.nc
        K = np.zeros((n + m, n + m))
        K[:n, :n] = o["M"]
        K[:n, n:] = o["Cq"].T
        K[n:, :n] = o["Cq"]
        rhs = np.empty(n + m)
        rhs[:n] = sysm.generalized_forces(t, q, qd) + o["Qv"]
        rhs[n:] = -o["Cquad"] - 2.0 * alpha * o["Cvel"] - beta * beta * o["C"]
        try:
            x = np.linalg.solve(K, rhs)
        except np.linalg.LinAlgError:
            from .errors import SingularSystemError

            raise SingularSystemError(sysm._singular_message(t, q, K)) from None
        return x[:n], x[n:]

    def __getattr__(self, name):
        return getattr(self.system, name)


def compile_system(system: MultibodySystem, *, use_numba: bool | None = None) -> CompiledSystem:
    """Generate (and, with numba, compile) the eq. 101 terms of ``system``."""
    return CompiledSystem(system, use_numba=use_numba)
