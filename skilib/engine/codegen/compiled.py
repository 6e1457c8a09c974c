"""``CompiledSystem``: a ``MultibodySystem`` whose eq. 101 is evaluated by a compiled kernel."""
from __future__ import annotations

import math

import numpy as np

from ..errors import SingularSystemError
from ..evaluation import Evaluation
from ..finite import nonfinite_error
from ..system import MultibodySystem
from .kernel import KERNELS, check_backend, Kernel, kernel_cache_dir
from .trace import resolve, Walk

__all__ = ['CompiledSystem', 'compile_system']



# -- the public object ----------------------------------------------------------------
class CompiledSystem:
    """A ``MultibodySystem`` whose eq. 101 terms and solve come from a compiled kernel.

    ``equations_of_motion`` and ``accelerations`` have the system's signatures and
    results; ``terms(t, q, qd)`` gives the generated M, Qv, C, Cq, Ċ (= Cq q̇ + Ct),
    −Qd and the traced forces' Q.  Everything else (bookkeeping, checks, energies) is
    delegated to the wrapped system.  ``backend`` is 'c', 'numba' or 'python'.

    Coulomb friction on a row's load (``LoadFriction``, Q_f = b λ_k) is assembled as the
    numeric engine does, as column k of eq. 101's matrix: b is a generated row of QF (in
    ``terms`` that row holds b, per unit multiplier), the driver subtracts it into the column
    and, after the solve, scales it by λ_k, so the ``Evaluation``'s ``forces`` and ``powers``
    hold Q_f = b λ_k and Q_f·q̇ like the numeric engine's; every solve then checks the load
    (``check_load``: ``NegativeLoadError`` for N < 0).  Only a fixed (``sign`` ±1) or smoothed
    (``smoothing`` > 0) sliding direction is generated: a ``LoadFriction`` with sgn(v_t) and
    its ``min_speed`` refusal is refused here, by name (``NotImplementedError``).
    """

    def __init__(self, system: MultibodySystem, backend: str | None = None, use_numba: bool | None = None):
        self.system = system
        for f in getattr(system, "load_forces", ()):  # sgn(v_t) with a min_speed refusal: decided per call
            if not f.traceable:
                raise NotImplementedError(
                    f"force '{f.name}' ({type(f).__name__}) on the load of constraint '{f.constraint}' takes its "
                    "sliding direction sgn(v_t) from the velocity, refusing speeds below min_speed, which a compiled "
                    "kernel does not generate: fix the direction (sign=+1 or -1), smooth it (smoothing > 0), or "
                    "evaluate this system with the numeric engine (compiled=False)")
        backend = check_backend(backend, use_numba)
        walk = Walk(system, symbolic=False)
        key = tuple(walk.key)
        kern = KERNELS.get((key, backend))
        if kern is None:
            kern = KERNELS[(key, backend)] = Kernel(key, system, backend)
        c = np.array(walk.values, dtype=float)
        if c.size != kern.n_params:
            raise RuntimeError(f"kernel {kern.path}: expects {kern.n_params} parameters, the system has "
                               f"{c.size}; delete the kernel cache ({kernel_cache_dir()})")
        self._where, self._traced_index = walk.where, walk.traced_forces
        self._setup(system, kern, c)

    def moved(self, system: MultibodySystem, numbers: dict) -> "CompiledSystem":
        """This compiled system for ``system``, a system built of the same bodies, constraints and
        forces as this one's (the same objects, or equal ones in the same order) but for the
        numbers in ``numbers`` ({path: value}; a path names a component's attribute as the trace
        walks it, e.g. ``("constraints", 1, "P")``): this one's kernel and numbers with those
        replaced, without walking ``system`` again.  The caller vouches that nothing else differs
        (a model whose strokes differ only in their start point: ``skilib.models.thesis.model``);
        the tests compare it with ``compile_system(system)``, bit for bit."""
        c = self.c.copy()
        for path, value in numbers.items():
            if path not in self._where:
                raise ValueError(f"numbers: {'/'.join(map(str, path))} is not a number of this system")
            start, count = self._where[path]
            value = np.ravel(np.asarray(value, dtype=float))
            if value.size != count:
                raise ValueError(f"numbers: {'/'.join(map(str, path))} has {count} numbers, got {value.size}")
            c[start: start + count] = value
        out = object.__new__(CompiledSystem)
        out._where, out._traced_index = self._where, self._traced_index
        out._setup(system, self.kernel, c)
        return out

    def _setup(self, system, kern, c):
        """Everything after the trace's walk: the kernel bound to this system's numbers ``c`` and
        buffers of its own."""
        self.system = system
        self.kernel = kern
        self.backend, self.n_ops, self.source = kern.backend, kern.n_ops, kern.source
        self.c = c
        self._inputs = [(resolve(system, path), kind, shape) for path, kind, shape in kern.inputs]
        self._input_paths = [path for path, _, _ in kern.inputs]
        self.inputs = self._inputs
        #: force elements evaluated by the numeric engine (untraceable callables of the state)
        self.numeric_forces = self._numeric_forces = [f for i, f in enumerate(system.forces)
                                                      if i not in self._traced_index]
        #: force elements compiled into the kernel
        self.traced_forces = self._traced_forces = [system.forces[i] for i in self._traced_index]
        #: forces on a row's load (``LoadFriction``), checked after every solve (N ≥ 0)
        self.load_forces = self._load_forces = list(getattr(system, "load_forces", ()))
        if [f.index for f in self._traced_forces if hasattr(f, "per_load")] != \
                [k for k in kern.load_rows if k >= 0]:
            raise RuntimeError(f"kernel {kern.path}: its load columns {kern.load_rows} are not the system's; delete "
                               f"the kernel cache ({kernel_cache_dir()})")
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
        self._theta = [system.slice(b).start + 4 for b in system.gimbal_checked if b.rotation.__name__ == "ZXZ"]
        self._other_checked = any(b.rotation.__name__ != "ZXZ" for b in system.gimbal_checked)
        self._evaluation = self._build_evaluation()

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

    @property
    def kernel_context(self):
        """(address of the C kernel's ``eom_ctx``, address of its buffer table, the objects that keep
        them alive), for a loop in C around the kernel (``skilib.engine.codegen.stepper``); None for
        the numba and Python backends."""
        return getattr(self._kernel_solve, "context", None)

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
            raise self._failure(t, q, qd)
        if self._load_forces:  # as the numeric engine: a load that pulls is refused, naming the force
            lam = x[self.system.nq:]
            for f in self._load_forces:
                f.check_load(t, lam)
        return x

    def _failure(self, t, q, qd):
        """The error of a failed solve: a ``NonFiniteError`` naming where a NaN or inf entered
        (input law or force, numeric force, body, constraint), else ``SingularSystemError``."""
        labels, k = [], 0
        for (fn, kind, shape), path in zip(self._inputs, self._input_paths):
            size = 1 if kind[0] == "signal" else int(np.prod(shape) if shape else 1)
            obj = {"forces": self.system.forces, "constraints": self.system.constraints}.get(path[0])
            who = f"{path[0][:-1]} '{obj[path[1]].name}'" if obj is not None else str(path[0])
            labels.append((f"{who} ({'.'.join(str(x) for x in path[2:])})", self._p[k: k + size]))
            k += size
        forces = {f.name: Q for f, Q in zip(self._numeric_forces, self._numeric_Q)}
        if self._numeric_forces:
            s = self.system.state(t, q, qd)
            forces = {f.name: f.generalized(s) for f in self._numeric_forces}
        err = nonfinite_error(self.system, t, q, qd, inputs=labels, forces=forces)
        if err is None:  # the generated terms, recomputed on this state
            o = self.terms(t, q, qd)
            traced = {f.name: o["QF"][i] for i, f in enumerate(self._traced_forces)}
            err = nonfinite_error(self.system, t, q, qd, forces=traced, M=o["M"], Qv=o["Qv"], C=o["C"], Cq=o["Cq"],
                                  Cdot=o["Cvel"], quad=o["Cquad"])
        return err or SingularSystemError(self.system.singular_message(t, q, self._K))

    def evaluate(self, t, q, qd, alpha=0.0, beta=0.0) -> Evaluation:
        """Solve eq. 101 with the kernel: the ``Evaluation`` whose arrays are views of the
        kernel's buffers (the same object at every call, overwritten by the next one)."""
        x = self._solve(t, q, qd, alpha, beta)
        e = self._evaluation
        if x is not self._x:  # the Python backends return a new array
            self._x[:] = x
        # the state itself is referenced, not copied: the evaluation is overwritten by the next call anyway
        e.t, e.alpha, e.beta, e.q, e.qd = t, alpha, beta, q, qd
        if self._numeric_forces:  # powers: [traced forces | numeric forces | rows | rows' λCt]
            nf, k, pw, P = self._nf_traced, len(self._numeric_forces), self._pw, self._powers
            P[:nf], P[nf + k:] = pw[:nf], pw[nf:]
            s = self.system.state(t, q, qd)
            for i, f in enumerate(self._numeric_forces):
                Q = f.generalized(s)
                self._numeric_Q[i][:] = Q
                P[nf + i] = Q @ qd
        return e

    def evaluate_many(self, t, q, qd, alpha=0.0, beta=0.0) -> dict | None:
        """Eq. 101 at k points (t (k,), q and q̇ (k, nq)) in one call into C
        (``skilib.engine.codegen.stepper.evaluate_points``): the arrays of ``evaluate`` stacked
        point first, {"qdd", "lam", "M", "C", "Cq", "Cdot", "powers", "forces"}, equal to the
        point-by-point evaluations bit for bit, and checked as they are (the loads N ≥ 0).  None
        where the loop in C does not apply: another backend, inputs or forces evaluated in Python,
        a ZXZ angle at its singularity or a failed solve at some point (``evaluate`` point by
        point then raises the system's own error)."""
        from .stepper import evaluate_points, why_not

        if why_not(self) is not None or self._other_checked:
            return None
        q = np.asarray(q, dtype=float)
        if self._theta and np.any(np.abs(np.sin(q[:, self._theta])) < self.system.gimbal_tol * 1.01):
            return None  # at or near a singularity: the point-by-point check decides (math.sin's rounding)
        out = evaluate_points(self, t, q, qd, alpha, beta)
        if out is None:
            return None
        if self._load_forces:  # as ``_solve``: a load that pulls is refused, at the first point it does
            for j, lam in enumerate(out["lam"]):
                for f in self._load_forces:
                    f.check_load(t[j], lam)
        QF = out.pop("QF")
        out["forces"] = {f.name: QF[:, i] for i, f in enumerate(self._traced_forces)}
        return out

    def _build_evaluation(self):
        """The one Evaluation of this compiled system, on views of the kernel's buffers."""
        n, m, o = self.nq, self.nc, self._out
        self._x = self._rhs  # the C driver solves in place into its right-hand side
        zero = np.zeros(n)  # q, q̇ of the first evaluation; later calls set the caller's arrays
        self._nf_traced = nf = len(self._traced_forces)
        forces = {f.name: o["QF"][i] for i, f in enumerate(self._traced_forces)}
        self._numeric_Q = [np.zeros(n) for _ in self._numeric_forces]
        forces.update({f.name: Q for f, Q in zip(self._numeric_forces, self._numeric_Q)})
        if self._numeric_forces:  # the powers of untraced forces are computed in Python
            k = len(self._numeric_forces)
            self._powers = np.zeros(nf + k + 2 * m)
            powers = self._powers
        else:
            self._powers = powers = self._pw
        return Evaluation(t=0.0, q=zero, qd=zero, alpha=0.0, beta=0.0, qdd=self._x[:n], lam=self._x[n:],
                          M=o["M"], Qv=o["Qv"], C=o["C"], Cq=o["Cq"], Cdot=o["Cvel"], quad=o["Cquad"],
                          forces=forces, force_names=tuple(forces), powers=powers)

    def accelerations(self, t, q, qd, alpha=0.0, beta=0.0):
        """Solve eq. 101 for (q̈, λ) with the compiled kernel (copies)."""
        x = self._solve(t, q, qd, alpha, beta).copy()
        n = self.system.nq
        return x[:n], x[n:]

    # -- the wrapped system's bookkeeping -------------------------------------------
    nq = property(lambda self: self.system.nq)
    nc = property(lambda self: self.system.nc)
    dof = property(lambda self: self.system.dof)
    position_dof = property(lambda self: self.system.position_dof)
    holonomic_rows = property(lambda self: self.system.holonomic_rows)
    velocity_rows = property(lambda self: self.system.velocity_rows)
    velocity_mask = property(lambda self: self.system.velocity_mask)
    bodies = property(lambda self: self.system.bodies)
    constraints = property(lambda self: self.system.constraints)
    forces = property(lambda self: self.system.forces)
    gimbal_tol = property(lambda self: self.system.gimbal_tol)
    gimbal_checked = property(lambda self: self.system.gimbal_checked)
    coordinate_labels = property(lambda self: self.system.coordinate_labels)
    constraint_labels = property(lambda self: self.system.constraint_labels)

    def slice(self, body) -> slice:
        return self.system.slice(body)

    def rows(self, constraint) -> slice:
        return self.system.rows(constraint)

    def body(self, name: str):
        return self.system.body(name)

    def constraint(self, name: str):
        return self.system.constraint(name)

    def state(self, t, q, qd=None):
        return self.system.state(t, q, qd)

    def constraint_jet(self, t, q, qd=None, state=None):
        return self.system.constraint_jet(t, q, qd, state=state)

    def mass_matrix(self, q):
        return self.system.mass_matrix(q)

    def kinetic_energy(self, q, qd) -> float:
        return self.system.kinetic_energy(q, qd)

    def check_rank(self, q, t, tol: float = 1e-9) -> None:
        self.system.check_rank(q, t, tol)

    def check_gimbal(self, t, q) -> None:
        self._check_gimbal(t, q)

    def gimbal_error(self, t, q):
        return self.system.gimbal_error(t, q)

    def singular_message(self, t, q, K) -> str:
        return self.system.singular_message(t, q, K)


def compile_system(system: MultibodySystem, *, backend: str | None = None,
                   use_numba: bool | None = None) -> CompiledSystem:
    """The system with its eq. 101 terms generated and compiled (cached by structure).

    backend : 'c' (a C compiler and ctypes), 'numba', 'python', or None for
        ``default_backend()`` ('c' where a compiler is found).  ``use_numba=True/False``
        is the older spelling of backend='numba'/'python'.

    Examples
    --------
    The compiled pendulum's ``Evaluation`` equals the numeric engine's:

    >>> import numpy as np
    >>> from skilib.engine import examples
    >>> from skilib.engine.codegen import compile_system
    >>> ex = examples.pendulum(angle_deg=30.0)
    >>> fast = compile_system(ex.system, backend="python")
    >>> a = fast.evaluate(0.0, ex.q0, ex.qd0).copy()
    >>> b = ex.system.evaluate(0.0, ex.q0, ex.qd0)
    >>> bool(np.allclose(a.qdd, b.qdd, rtol=1e-12, atol=1e-12) and np.allclose(a.lam, b.lam, rtol=1e-12, atol=1e-12))
    True
    """
    if isinstance(system, CompiledSystem):
        return system
    if not isinstance(system, MultibodySystem):
        raise ValueError(f"system: expected a MultibodySystem, got {type(system).__name__}")
    return CompiledSystem(system, backend=backend, use_numba=use_numba)
