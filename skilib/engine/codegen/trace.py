"""Tracing a system with sympy: its structure key, its parameters, and the generated
straight-line code of eq. 101's terms (see ``skilib.engine.codegen``)."""
from __future__ import annotations

import copy

import numpy as np

from ..bodies import RigidBody
from ..constraints import Constraint
from ..controls import ControlLaw, ControlSignal, is_control_symbol
from ..forces import AxisForce, ConstantForce, Drag, Gravity, LineForce, SpringDamper
from ..kinematics import State
from ..load_friction import LoadFriction
from ..strut import Strut
from ..system import MultibodySystem
from ..timefunctions import Constant, Harmonic, Polynomial, RotationPath, Stack

__all__ = []


# (a ControlLaw traces as its symbols, which only the CasADi functions take: ``skilib.engine.controls``)
_TRACEABLE_LAWS = (Constant, Polynomial, Harmonic, RotationPath, Stack, ControlLaw)
_TRACEABLE_FORCES = (Gravity, ConstantForce, LineForce, AxisForce, Drag, SpringDamper, Strut)
# objects whose attributes are walked for parameters (their float data become c[k])
_PARAM_OBJECTS = (Constraint, LoadFriction) + _TRACEABLE_LAWS + _TRACEABLE_FORCES


def traceable_force(f) -> bool:
    """Whether a force element is generated into the kernel: a traceable class, or Coulomb
    friction on a load (``LoadFriction``) whose sliding sign is fixed or smoothed (its
    per-unit-load row b, a column of eq. 101's matrix: ``load_rows``)."""
    if isinstance(f, LoadFriction):
        return f.traceable
    return isinstance(f, _TRACEABLE_FORCES) or _declared(f)


def _declared(v) -> bool:
    """A force element outside the engine that declares itself traceable (a class attribute
    ``TRACED = True``): its ``generalized`` is written with the state's operations only, so it
    traces like the engine's own, and its float attributes become kernel parameters."""
    return getattr(type(v), "TRACED", False) is True


def load_rows(forces) -> list:
    """For each traced force, the global index k of the row whose multiplier is its load
    (``LoadFriction``: its generated row is b, Q_f = b λ_k), or −1 (an ordinary force, Q_f)."""
    return [f.index if hasattr(f, "per_load") else -1 for f in forces]


# -- walking a system: structure key, parameter values, symbolic clone ----------------
class Walk:
    """One pass over a system's bodies, constraints and traceable forces.

    Collects the structure key and the parameter values in a fixed order; with
    ``symbolic=True`` it also builds a clone of the system whose parameters are symbols.
    """

    def __init__(self, system: MultibodySystem, symbolic: bool):
        self.symbolic = symbolic
        self.key: list = []
        self.values: list = []
        #: path → (first index, count) of its numbers in ``values`` (``CompiledSystem.moved``)
        self.where: dict = {}
        self.opaque: dict = {}  # id(callable) -> path (numeric inputs)
        self.controls: dict = {}  # a control's name -> its size (``skilib.engine.controls``), in walk order
        self._bodies = {id(b): i for i, b in enumerate(system.bodies)}
        self._clones: list = []
        self.traced_forces = [i for i, f in enumerate(system.forces) if traceable_force(f)]
        self.key.append(("nq", system.nq, "nc", system.nc))
        bodies = [self._body(b, ("bodies", i)) for i, b in enumerate(system.bodies)]
        self._clones = bodies
        cons = [self._value(c, ("constraints", i)) for i, c in enumerate(system.constraints)]
        forces = [self._value(system.forces[i], ("forces", i)) for i in self.traced_forces]
        self.key.append(("forces", tuple(type(f).__name__ for f in system.forces), tuple(self.traced_forces)))
        # forces on a row's load: their column k, load sign and sliding law (fixed ±1 or tanh)
        # change the generated layout and the driver's assembly, whatever their attributes say
        self.key.append(("load columns", tuple((i, f.index, f.load_sign, f.sign, "tanh" if f.sign is None else "fixed")
                                              for i, f in enumerate(system.forces)
                                              if isinstance(f, LoadFriction) and f.traceable)))
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
        start = len(self.values)
        self.values.extend(np.asarray(v, dtype=float)[mask].tolist())
        self.where[path] = (start, len(self.values) - start)
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
            self.where[path] = (len(self.values), 1)
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
        if isinstance(v, (ControlLaw, ControlSignal)):
            size = self.controls.setdefault(v.name, v.SIZE)
            if size != v.SIZE:
                raise ValueError(f"{'/'.join(map(str, path))}: two controls are named {v.name!r} (a law and a signal)")
        signal = _is_signal(v)
        traceable = (_traceable_law(v) if isinstance(v, _TRACEABLE_LAWS)
                     else isinstance(v, _PARAM_OBJECTS) or _declared(v))
        if traceable or signal:
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


def resolve(system, path):
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
        if _traceable_law(fn):
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



def _traceable_law(fn) -> bool:
    """Whether a law can be traced symbolically: a Constant, Polynomial or Harmonic, or a
    RotationPath or Stack made of them (their inner laws are called with the symbolic t;
    anything else would bake that law's numbers into the kernel, so it becomes a numeric
    input instead)."""
    if isinstance(fn, RotationPath):
        return _traceable_law(fn.angle)
    if isinstance(fn, Stack):
        return all(_traceable_law(f) for f in fn.laws)
    return isinstance(fn, _TRACEABLE_LAWS)


def trace_blocks(walk: Walk, system):
    """The system's terms of eq. 101 as sympy arrays of the symbols t, q[i], qd[i], c[k] (the
    parameters, ``walk.values``) and p[k] (the numeric inputs, the state's ``inputs``); returns
    (blocks, tracing state).  Shared by the generated kernels (``trace_system``) and the CasADi
    functions of the optimal-control transcriptions (``skilib.engine.codegen.symbolic``)."""
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
    # a traced force's row of QF is its Q_f; a load force's (LoadFriction) is its b, Q_f = b λ_k,
    # which the driver subtracts into column k of the matrix (``load_rows``)
    QF = np.zeros((max(len(clone.forces), 1), n), dtype=object)
    for i, f in enumerate(clone.forces):
        QF[i] = f.per_load(s) if hasattr(f, "per_load") else f.generalized(s)
    blocks["QF"] = QF
    return blocks, s


def _symbols(exprs) -> set:
    """The symbols of sympy expressions, each shared subexpression visited once (``free_symbols``
    walks a subexpression again wherever it is shared: the terms of eq. 101 share most of theirs)."""
    seen, found, stack = set(), set(), list(exprs)
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if e.is_Symbol:
            found.add(e)
        else:
            stack.extend(e.args)
    return found


def refuse_controls(blocks, what: str) -> None:
    """A ValueError naming the controls (``skilib.engine.controls``) a system's terms hold: they
    have values only in an optimal-control transcription, not in ``what``."""
    import sympy as sp

    names = sorted({str(x).split(":")[1] for x in _symbols(sp.sympify(e) for arr in blocks.values()
                                                             for e in arr.ravel()) if is_control_symbol(x)})
    if names:
        raise ValueError(f"controls {', '.join(names)}: a system with a ControlLaw or ControlSignal cannot be "
                         f"evaluated in {what}; only its CasADi functions take controls "
                         "(skilib.engine.codegen.casadi_terms)")


def trace_system(walk: Walk, system, language: str):
    """Trace the system's terms with sympy; returns (meta, generated function source)."""
    blocks, s = trace_blocks(walk, system)
    refuse_controls(blocks, "a compiled kernel")
    clone = walk.clone
    body, n_ops = _generate(blocks, language)
    rows = load_rows(clone.forces)
    meta = dict(inputs=s.inputs, n_inputs=s._n_inputs, n_params=len(walk.values), n_ops=n_ops,
                shapes={k: v.shape for k, v in blocks.items()},
                load_rows=rows + [-1] * (blocks["QF"].shape[0] - len(rows)))
    return meta, body


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

