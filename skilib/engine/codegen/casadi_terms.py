"""CasADi functions of a system's terms of eq. 101, from the same trace as the generated kernels.

``casadi_terms(system)`` traces the system's components with sympy once (``trace_blocks``: the
walk that turns every stored number into a parameter c[k], the tracing state), converts the
expressions node by node into CasADi's SX graph and returns a ``CasadiTerms``: the function

    terms(t, q, q̇, c, u) -> M, Qv, C, Cq, Cvel, Cquad, QF

(M the mass matrix, Qv the quadratic-velocity force, C the rows' values, Cq their Jacobian,
Cvel = Cq q̇ + Ct their velocity residual, Cquad the acceleration rows' quadratic terms,
Cq q̈ = −Cquad, and one row of QF per traced force: its generalized force Q_f, or for a friction
on a row's load its force per unit load b, Q_f = b λ_k), which CasADi differentiates exactly.
``u`` holds the system's controls (``skilib.engine.controls``), c the parameters (their values
``params``, so that a transcription may also leave some free).

What does not trace is refused by name (a ValueError): a force element whose generalized force
is an arbitrary callable of the state (``PointForce``, ``Torque``), a driver law or magnitude
that would be evaluated numerically (a ``FromCallables``, a plain callable), a friction on a
load whose sliding sign is the run-time sgn(v).  The compiled kernels evaluate those in Python at
every call; an optimal-control transcription needs every term as an expression.

CasADi is an optional dependency (``pip install skilib[ocp]``); only this module and
``skilib.ocp`` import it.
"""
from __future__ import annotations

import numpy as np

from ..system import MultibodySystem
from .trace import Walk, load_rows, trace_blocks

__all__ = ["casadi_terms", "CasadiTerms", "BLOCKS", "require_casadi"]

#: the terms, in the order the function returns them
BLOCKS = ("M", "Qv", "C", "Cq", "Cvel", "Cquad", "QF")

_CACHE: dict = {}  # (structure key, controls) -> (casadi Function, meta); the functions are pure


def require_casadi():
    """The casadi module, or an ImportError that says how to install it."""
    try:
        import casadi
    except ImportError as exc:  # pragma: no cover - the test environment installs it
        raise ImportError("optimal control needs CasADi: pip install 'skilib[ocp]' (casadi with IPOPT)") from exc
    return casadi


class CasadiTerms:
    """A system's terms of eq. 101 as a CasADi function (the module's docstring).

    - function : ``terms(t, q, qd, c, u)`` → (M, Qv, C, Cq, Cvel, Cquad, QF).
    - params : the parameter values c of this system (its stored numbers, in the walk's order).
    - controls : ((name, size), …): the controls in u, each a law's (f, ḟ, f̈) (size 3) or a
      signal's value (size 1), in the order asked for; ``nu`` their total size.
    - load_rows : for each row of QF, the row k whose multiplier is its load (−1: an ordinary force).
    - holonomic, velocity : the indices of the position-level rows C(q, t) = 0 and of the
      velocity rows B q̇ + b = 0 (for which C is zero).
    - force_names, constraint_names : the traced forces (QF's rows) and the rows' labels.
    """

    def __init__(self, function, params, controls, load_rows, holonomic, velocity, nq, nc, force_names):
        self.function, self.params = function, np.asarray(params, dtype=float)
        self.controls, self.load_rows = tuple(controls), tuple(load_rows)
        self.holonomic, self.velocity = np.asarray(holonomic, int), np.asarray(velocity, int)
        self.nq, self.nc, self.force_names = nq, nc, tuple(force_names)

    @property
    def nu(self) -> int:
        return sum(size for _, size in self.controls)

    def control_slice(self, name: str) -> slice:
        """Where control ``name`` sits in u."""
        k = 0
        for n, size in self.controls:
            if n == name:
                return slice(k, k + size)
            k += size
        raise ValueError(f"control: the system has no control {name!r}; it has {[n for n, _ in self.controls]}")

    def __call__(self, t, q, qd, u=None, c=None) -> dict:
        """The terms at (t, q, q̇) for controls u (default none) and parameters c (default
        ``params``): a dict of CasADi values (DM for numbers, SX/MX for symbols).

        An empty input where the function takes values is a ValueError: CasADi would read it as
        zeros (u left out of a system with controls: every f, ḟ, f̈ = 0)."""
        u = np.zeros(0) if u is None else u
        c = self.params if c is None else c
        for name, x, size in (("t", t, 1), ("q", q, self.nq), ("qd", qd, self.nq), ("c", c, len(self.params)),
                              ("u", u, self.nu)):
            if size and (x.numel() if hasattr(x, "numel") else np.size(x)) == 0:
                what = f" (the controls {', '.join(n for n, _ in self.controls)}, in control_slice's order)" \
                    if name == "u" else ""
                raise ValueError(f"{name}: empty, where the terms take {size} value{'s' if size > 1 else ''}{what}; "
                                 "CasADi would read an empty input as zeros")
        return dict(zip(BLOCKS, self.function(t, q, qd, c, u)))

    def residual(self, t, q, qd, qdd, lam, u=None, c=None):
        """The index-1 equations of motion as residuals (the augmented eq. 101, written
        implicitly for a transcription): (dynamics, acceleration rows) with

            dynamics = M q̈ + Cqᵀλ − Σ_load b_f λ_k − (Qv + Σ Q_f),   rows = Cq q̈ + Cquad.

        Both vanish exactly where ``MultibodySystem.evaluate`` (α = β = 0) gives q̈ and λ."""
        T = self(t, q, qd, u, c)
        Qsum, Mq = T["Qv"], T["M"] @ qdd + T["Cq"].T @ lam
        for f, k in enumerate(self.load_rows[: len(self.force_names)]):
            if k >= 0:
                Mq = Mq - T["QF"][f, :].T * lam[k]
            else:
                Qsum = Qsum + T["QF"][f, :].T
        return Mq - Qsum, T["Cq"] @ qdd + T["Cquad"]

    def forces(self, t, q, qd, lam, u=None, c=None) -> dict:
        """{name: Q_f} of every traced force (a load's b scaled by its multiplier)."""
        T = self(t, q, qd, u, c)
        return {name: (T["QF"][f, :].T * lam[k] if k >= 0 else T["QF"][f, :].T)
                for f, (name, k) in enumerate(zip(self.force_names, self.load_rows))}

    def augmented(self, t, q, qd, u=None, c=None, alpha: float = 0.0, beta: float = 0.0):
        """(K, b): the augmented matrix of eq. 101 and its right-hand side, K (q̈, λ) = b, with
        Baumgarte's terms in the acceleration rows (Cq q̈ = −Cquad − 2α Cvel − β² C, eq. 103); a
        friction on row k's load moves to column k (−b_f, Q_f = b_f λ_k)."""
        ca = require_casadi()
        T = self(t, q, qd, u, c)
        m = self.nc
        Ct = T["Cq"].T
        cols = [Ct[:, r] for r in range(m)]
        rhs = T["Qv"]
        for f, k in enumerate(self.load_rows[: len(self.force_names)]):
            if k >= 0:
                cols[k] = cols[k] - T["QF"][f, :].T
            else:
                rhs = rhs + T["QF"][f, :].T
        K = ca.vertcat(ca.horzcat(T["M"], *cols), ca.horzcat(T["Cq"], ca.DM.zeros(m, m)))
        # (at α = β = 0 CasADi drops the zero terms: the expression is −Cquad itself)
        return K, ca.vertcat(rhs, -T["Cquad"] - 2.0 * alpha * T["Cvel"] - beta * beta * T["C"])

    def accelerations(self, t, q, qd, u=None, c=None):
        """(q̈, λ) from the augmented matrix of eq. 101, solved symbolically (α = β = 0)."""
        ca = require_casadi()
        n, m = self.nq, self.nc
        x = ca.solve(*self.augmented(t, q, qd, u, c))
        return x[:n], x[n: n + m]


def casadi_terms(system: MultibodySystem, controls=None) -> CasadiTerms:
    """The system's CasADi terms (``CasadiTerms``; the module's docstring).

    ``controls``: the names of the system's controls in the order u holds them (default: the
    order the trace meets them); a name the system does not have, or a control of the system
    not named, is a ValueError.  A component that does not trace is a ValueError naming it.

    >>> import numpy as np
    >>> from skilib.engine import examples
    >>> ex = examples.pendulum(angle_deg=30.0)
    >>> terms = casadi_terms(ex.system)
    >>> qdd, lam = terms.accelerations(0.0, ex.q0, ex.qd0)
    >>> e = ex.system.evaluate(0.0, ex.q0, ex.qd0)
    >>> bool(np.allclose(np.array(qdd).ravel(), e.qdd, atol=1e-12) and np.allclose(np.array(lam).ravel(), e.lam, atol=1e-12))
    True
    """
    if not isinstance(system, MultibodySystem):
        raise ValueError(f"system: expected a MultibodySystem, got {type(system).__name__}")
    walk = Walk(system, symbolic=False)
    untraced = [f.name if hasattr(f, "name") else type(f).__name__
                for i, f in enumerate(system.forces) if i not in walk.traced_forces]
    if untraced:
        raise ValueError(f"forces {', '.join(map(str, untraced))}: not traceable (an arbitrary callable of the state, or "
                         "a friction whose sliding sign is sgn(v) at run time); CasADi needs every force as an "
                         "expression")
    found = dict(walk.controls)
    names = tuple(found) if controls is None else tuple(controls)
    if isinstance(controls, str) or len(set(names)) != len(names):
        raise ValueError(f"controls: must be distinct control names, got {controls!r}")
    missing, unnamed = [n for n in names if n not in found], [n for n in found if n not in names]
    if missing or unnamed:
        raise ValueError(f"controls: the system's controls are {list(found)}; "
                         + (f"it has no {missing}" if missing else f"{unnamed} not named"))
    ctrl = tuple((n, found[n]) for n in names)
    key = (repr(walk.key), ctrl)
    if key not in _CACHE:
        _CACHE[key] = _build(system, ctrl)
    function, meta = _CACHE[key]
    return CasadiTerms(function, walk.values, ctrl, meta["load_rows"], system.holonomic_rows, system.velocity_rows,
                       system.nq, system.nc, meta["force_names"])


def _build(system, controls):
    """Trace the system and convert its terms to one CasADi function."""
    ca = require_casadi()
    walk = Walk(system, symbolic=True)
    blocks, state = trace_blocks(walk, system)
    if state.inputs:
        paths = ["/".join(map(str, path)) for path, _, _ in state.inputs]
        raise ValueError(f"{', '.join(paths)}: evaluated numerically (a law or magnitude that is not a Constant, "
                         "Polynomial, Harmonic, traceable signal or control); CasADi needs it as an expression")
    n, m = system.nq, system.nc
    t, q, qd = ca.SX.sym("t"), ca.SX.sym("q", n), ca.SX.sym("qd", n)
    c = ca.SX.sym("c", len(walk.values))
    nu = sum(size for _, size in controls)
    u = ca.SX.sym("u", nu)
    table = {"t": t}
    table.update({f"q[{i}]": q[i] for i in range(n)})
    table.update({f"qd[{i}]": qd[i] for i in range(n)})
    table.update({f"c[{k}]": c[k] for k in range(len(walk.values))})
    k = 0
    for name, size in controls:
        table.update({f"u:{name}:{j}": u[k + j] for j in range(size)})
        k += size
    conv = _Converter(ca, table)
    out = []
    for name in BLOCKS:
        arr = blocks[name]
        shape = arr.shape if arr.ndim == 2 else (arr.shape[0], 1)
        M = ca.SX.zeros(*shape)
        for idx in np.ndindex(arr.shape):
            e = arr[idx]
            if e != 0:
                M[idx if arr.ndim == 2 else (idx[0], 0)] = conv(e)
        out.append(M)
    nf = len(walk.clone.forces)
    f = ca.Function("terms", [t, q, qd, c, u], out, ["t", "q", "qd", "c", "u"], list(BLOCKS))
    rows = load_rows(walk.clone.forces)
    return f, dict(load_rows=rows + [-1] * (blocks["QF"].shape[0] - len(rows)),
                   force_names=[getattr(x, "name", type(x).__name__) for x in walk.clone.forces][:nf])


class _Converter:
    """sympy expression → CasADi SX, node by node with a memo (a shared subexpression is
    converted once, so CasADi's graph keeps sympy's sharing)."""

    def __init__(self, ca, table):
        import sympy as sp

        self.ca, self.sp, self.table, self.memo = ca, sp, table, {}
        self.unary = {sp.sin: ca.sin, sp.cos: ca.cos, sp.tan: ca.tan, sp.tanh: ca.tanh, sp.exp: ca.exp,
                      sp.log: ca.log, sp.asin: ca.asin, sp.acos: ca.acos, sp.atan: ca.atan, sp.Abs: ca.fabs,
                      sp.sign: ca.sign, sp.sinh: ca.sinh, sp.cosh: ca.cosh}

    def __call__(self, e):
        sp = self.sp
        e = sp.sympify(e)
        if e in self.memo:
            return self.memo[e]
        if e.is_Symbol:
            if e.name not in self.table:
                raise ValueError(f"symbol {e.name}: not an input of the system's terms")
            out = self.table[e.name]
        elif e.is_Number or e in (sp.pi, sp.E):
            out = float(e)
        elif e.is_Add:
            out = 0
            for a in e.args:
                out = out + self(a)
        elif e.is_Mul:
            out = 1
            for a in e.args:
                out = out * self(a)
        elif e.is_Pow:
            b, x = e.args
            if x == sp.Rational(1, 2):
                out = self.ca.sqrt(self(b))
            elif x == -1:
                out = 1 / self(b)
            elif x.is_Integer and int(x) > 0:
                out = self.ca.power(self(b), int(x)) if int(x) > 2 else self(b) * self(b) if int(x) == 2 else self(b)
            else:
                out = self.ca.power(self(b), self(x))
        elif e.func == sp.atan2:
            out = self.ca.atan2(self(e.args[0]), self(e.args[1]))
        elif e.func in self.unary:
            out = self.unary[e.func](self(e.args[0]))
        else:
            raise ValueError(f"{e.func.__name__}: a function the CasADi conversion does not know (in {e})")
        self.memo[e] = out
        return out
