"""Hermite–Simpson collocation of a constrained multibody system's index-1 equations of motion.

On a mesh of N intervals of width h over [t0, t0 + T] (T may be a decision variable) every knot k
has the coordinates q_k, velocities v_k, accelerations a_k and multipliers λ_k as variables,
every interval its midpoint's a_m and λ_m; the midpoint's position and velocity are the cubic
Hermite interpolants (Betts 2010, §4.5)::

    q_m = (q_k + q_k+1)/2 + h/8 (v_k − v_k+1),     v_m = (v_k + v_k+1)/2 + h/8 (a_k − a_k+1)

and Simpson's rule joins the knots::

    q_k+1 − q_k = h/6 (v_k + 4 v_m + v_k+1) + C_q,hol(q_k+1)ᵀ γ_k
    v_k+1 − v_k = h/6 (a_k + 4 a_m + a_k+1) + C_q(q_k+1)ᵀ μ_k

At every knot and midpoint the augmented eq. 101 holds as residuals (``CasadiTerms.residual``:
M a + C_qᵀλ − Q = 0 and C_q a + Cquad = 0, the multipliers algebraic variables), and at every
knot after the first the rows themselves: C(q_k) = 0 (the holonomic rows) and C_q v_k + C_t = 0
(every row; the first knot's are the problem's to set, ``on_rows``).  With the acceleration rows
these would over-determine the knots by the truncation error; the slack vectors γ_k (one per
holonomic row) and μ_k (one per row), which move a knot along the rows' normals, absorb it
(Posa, Kuindersma & Tedrake 2016, "Optimization and stabilization of trajectories for
constrained dynamical systems", ICRA, §III) and vanish to the scheme's order: they are reported
(``max_slack``).

By default q_m and v_m are variables of their own held to these interpolants by equality rows
(the "separated" form beside Betts's "compressed" one; ``separated=False`` substitutes them).
The two programs have the same solutions; the separated one is larger but its derivatives are
much smaller: a midpoint's equations of motion then depend on that point's own variables, so
their Hessian is one point's block, where substituted they couple two knots' coordinates,
velocities, accelerations and the interval's width.  Measured on the edged skater's program
(40 intervals): the Hessian of the Lagrangian 3.8 instead of 9.0 million instructions, built in
7 s instead of 19 s, and each IPOPT iteration about a third quicker.

Integrals over the mesh use the same rule, Σ h/6 (f_k + 4 f_m + f_k+1) (``simpson``): the work
of a row or a force, exactly as a state ẇ = f would be collocated.

Everything per point is one CasADi function mapped over the knots and over the midpoints, so
the problem's graph grows with N only by the maps' sizes and its exact first and second
derivatives are those of the one-point functions.  The class builds into a ``casadi.Opti``; a
problem (a periodic stroke, a transfer between states) adds its boundary conditions, bounds,
objective and controls.
"""
from __future__ import annotations

import numpy as np

from ..engine.codegen.casadi_terms import CasadiTerms, require_casadi
from .hessian import PointRows
from .mesh import PhasedMesh

__all__ = ["HermiteSimpson", "SEPARATED"]

#: the form the programs of ``skilib.ocp.stroke`` and ``skilib.ocp.control`` are built in
#: (``HermiteSimpson``'s ``separated``); part of their programs' keys, so a changed value builds anew
SEPARATED = True


class HermiteSimpson:
    """The collocated equations of motion of ``terms`` (a ``CasadiTerms``) on ``nodes`` intervals
    of [t0, t0 + T] in ``opti`` (the module's docstring).

    - T : the duration, a number or an Opti expression (a free stroke time), or a row of one per
      interval (1 × N; the caller constrains them equal): a free T then enters each interval's
      equations through its own copy, so no row of the program's derivatives is dense.
    - controls : a function of a row of times τ (1 × K) giving the controls there (nu × K, CasADi),
      or the controls' values at the knots and midpoints (a pair of nu × (N + 1) and nu × N), or
      None for a system without controls.
    - c : the parameters (default ``terms.params``), numbers.
    - force_scale : the multipliers' scale [N] (they are ``force_scale`` × variables of order 1,
      and the dynamics' residual is divided by it), e.g. the body's weight.
    - mesh : a ``skilib.ocp.mesh.PhasedMesh`` of ``nodes`` intervals whose knots fall on fixed
      times (a force switching on and off); default the even mesh, h = T/N.
    - separated : the midpoints' q_m, v_m variables held to the interpolants (True), or the
      interpolants themselves (False; the module's docstring); default ``SEPARATED``.
      ``initial`` starts them on the interpolants of the knots' first guess; a caller that sets
      the knots' initial values itself calls ``start_midpoints`` after.

    ``Q``, ``V``, ``A``, ``L`` are the knots' variables (n or m × (N + 1)); ``Qm``, ``Vm``
    (variables, or with ``separated=False`` the interpolants ``Qh``, ``Vh`` themselves), ``Am``,
    ``Lm`` the midpoints'; ``tau_knots``, ``tau_mid`` their times and
    ``U``, ``Um`` their controls.  ``point(name)`` maps a one-point function over both.
    """

    def __init__(self, opti, terms: CasadiTerms, nodes: int, T, *, controls=None, c=None, t0=0.0,
                 force_scale: float = 1.0, mesh=None, separated: bool | None = None):
        ca = require_casadi()
        if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or nodes < 2:
            raise ValueError(f"nodes: must be an integer ≥ 2 (the mesh's intervals), got {nodes!r}")
        self.ca, self.opti, self.terms, self.N, self.t0 = ca, opti, terms, int(nodes), t0
        n, m, N = terms.nq, terms.nc, int(nodes)
        self.c = np.asarray(terms.params if c is None else c, dtype=float)
        rows = getattr(T, "shape", (1, 1))
        if rows not in ((1, 1), (1, N)):
            raise ValueError(f"T: must be a duration or a row of one per interval (1 × {N}), got {rows[0]} × {rows[1]}")
        # a row of durations keeps a free T local to each interval (the caller makes them equal):
        # the program's Jacobian and Hessian stay banded, none of their rows dense
        if mesh is not None and mesh.N != N:
            raise ValueError(f"mesh: has {mesh.N} intervals, the collocation {N}")
        self.T = T if rows == (1, 1) else T[0, 0]
        self.mesh = mesh if mesh is not None else PhasedMesh(N)
        self.Q, self.V = opti.variable(n, N + 1), opti.variable(n, N + 1)
        # the multipliers are variables scaled by ``force_scale`` (forces of ~1e3 N beside
        # coordinates of ~1 m make IPOPT's steps poorly conditioned), as is the dynamics' residual
        self.force_scale = float(force_scale)
        self.Lv, self.Lmv = opti.variable(m, N + 1), opti.variable(m, N)
        self.A, self.L = opti.variable(n, N + 1), self.force_scale * self.Lv
        self.Am, self.Lm = opti.variable(n, N), self.force_scale * self.Lmv
        self.hol = list(terms.holonomic)
        self.G = opti.variable(len(self.hol), N) if self.hol else None
        self.Mu = opti.variable(m, N)
        if self.mesh.phased:
            # knots at the phases' breaks (``PhasedMesh``): each interval its own start and width
            starts, self.h = mesh.intervals(T)
            h = self.h
            self.tau_knots = t0 + ca.horzcat(starts, starts[0, N - 1] + h[0, N - 1])
            self.tau_mid = t0 + starts + h / 2
        else:
            self.h = h = T / N
            h_knots = h if rows == (1, 1) else ca.horzcat(h, h[0, N - 1])
            self.tau_knots = t0 + h_knots * ca.DM(np.arange(N + 1)).T
            self.tau_mid = t0 + h * ca.DM(np.arange(N) + 0.5).T
        self._controls = controls
        if isinstance(controls, tuple):  # the controls' values themselves (knots, midpoints)
            self.U, self.Um = controls
        else:
            self.U, self.Um = self.controls(self.tau_knots, N + 1), self.controls(self.tau_mid, N)
        Q0, Q1, V0, V1 = self.Q[:, :-1], self.Q[:, 1:], self.V[:, :-1], self.V[:, 1:]
        #: the cubic Hermite interpolants at the midpoints (expressions of the knots and h)
        self.Qh = (Q0 + Q1) / 2 + self._times(h / 8, V0 - V1)
        self.Vh = (V0 + V1) / 2 + self._times(h / 8, self.A[:, :-1] - self.A[:, 1:])
        separated = SEPARATED if separated is None else separated
        if not isinstance(separated, bool):
            raise ValueError(f"separated: must be True or False, got {separated!r}")
        self.separated = separated
        if separated:  # the midpoints' own variables, held to the interpolants
            self.Qm, self.Vm = opti.variable(n, N), opti.variable(n, N)
            opti.subject_to(ca.vec(self.Qm - self.Qh) == 0)
            opti.subject_to(ca.vec(self.Vm - self.Vh) == 0)
        else:
            self.Qm, self.Vm = self.Qh, self.Vh
        self._fn = self._point_functions()
        # the equations of motion at the knots and the midpoints
        #: the rows that are one point's function mapped over the points (``skilib.ocp.hessian``)
        self.point_rows = []
        for knots in (True, False):
            dyn, acc = self.point("residual", knots=knots)
            opti.subject_to(ca.vec(dyn) / self.force_scale == 0)
            opti.subject_to(ca.vec(acc) == 0)
            self.point_rows.append(PointRows(self._fn["residual"], self._point_args(knots), N + 1 if knots else N,
                                             (dyn, acc)))
        # Simpson's rule, with the knots' slack along the rows' normals
        args = (self.tau_knots[:, 1:], Q1, V1, self.U[:, 1:], self.G if self.G is not None else ca.DM.zeros(0, N),
                self.Mu)
        nq_hol, nq_all = self._fn["normals"].map(N)(*args)
        opti.subject_to(ca.vec(Q1 - Q0 - self._times(h / 6, V0 + 4 * self.Vm + V1) - nq_hol) == 0)
        opti.subject_to(ca.vec(V1 - V0 - self._times(h / 6, self.A[:, :-1] + 4 * self.Am + self.A[:, 1:]) - nq_all) == 0)
        self.point_rows.append(PointRows(self._fn["normals"], args, N, (nq_hol, nq_all)))
        # the rows at the knots after the first
        C, Cvel = self._fn["rows"].map(N)(*args[:4])
        if self.hol:
            opti.subject_to(ca.vec(C) == 0)
        opti.subject_to(ca.vec(Cvel) == 0)
        self.point_rows.append(PointRows(self._fn["rows"], args[:4], N, (C, Cvel)))

    def _times(self, h, M):
        """h M with h a number or a row (one per interval, column by column)."""
        if getattr(h, "shape", (1, 1)) == (1, 1):
            return h * M
        return self.ca.repmat(h, M.shape[0], 1) * M

    def controls(self, tau, count):
        if self._controls is None:
            return self.ca.DM.zeros(0, count)
        u = self._controls(tau)
        if u.shape != (self.terms.nu, count):
            raise ValueError(f"controls: must give {self.terms.nu} × {count} values at {count} times, got "
                             f"{u.shape[0]} × {u.shape[1]}")
        return u

    def _point_functions(self) -> dict:
        """The one-point functions: residual (eq. 101 implicit), rows (C_hol, C_vel), normals
        (C_q,holᵀγ, C_qᵀμ), terms."""
        ca, terms = self.ca, self.terms
        n, m, nu = terms.nq, terms.nc, terms.nu
        t, q, v, a, lam, u = (ca.SX.sym("t"), ca.SX.sym("q", n), ca.SX.sym("v", n), ca.SX.sym("a", n),
                              ca.SX.sym("lam", m), ca.SX.sym("u", nu))
        g, mu = ca.SX.sym("g", len(self.hol)), ca.SX.sym("mu", m)
        T = terms(t, q, v, u, self.c)
        dyn, acc = terms.residual(t, q, v, a, lam, u, self.c)
        C = T["C"][self.hol] if self.hol else ca.SX.zeros(0, 1)
        Cq_hol = T["Cq"][self.hol, :] if self.hol else ca.SX.zeros(0, n)
        return dict(residual=ca.Function("residual", [t, q, v, a, lam, u], [dyn, acc]),
                    rows=ca.Function("rows", [t, q, v, u], [C, T["Cvel"]]),
                    normals=ca.Function("normals", [t, q, v, u, g, mu], [Cq_hol.T @ g, T["Cq"].T @ mu]))

    def _point_args(self, knots: bool) -> tuple:
        """(t, q, v, a, λ, u) at the knots or the midpoints, one column per point."""
        if knots:
            return (self.tau_knots, self.Q, self.V, self.A, self.L, self.U)
        return (self.tau_mid, self.Qm, self.Vm, self.Am, self.Lm, self.Um)

    def point(self, name, *, knots: bool, extra=()):
        """A one-point function (``functions``' or ``extra``: a CasADi Function of (t, q, v, a,
        λ, u)) mapped over the knots (``knots=True``) or the midpoints."""
        f = self._fn[name] if isinstance(name, str) else name
        return f.map(self.N + 1 if knots else self.N)(*self._point_args(knots)[: f.n_in()])

    def one_point(self, f):
        """A CasADi Function of (t, q, v, a, λ, u) built from ``f(t, q, v, a, lam, u, terms)``,
        a Python function of SX symbols and the point's terms (a dict), returning one
        expression (e.g. a row's power)."""
        ca, terms = self.ca, self.terms
        n, m, nu = terms.nq, terms.nc, terms.nu
        t, q, v, a, lam, u = (ca.SX.sym("t"), ca.SX.sym("q", n), ca.SX.sym("v", n), ca.SX.sym("a", n),
                              ca.SX.sym("lam", m), ca.SX.sym("u", nu))
        return ca.Function("f", [t, q, v, a, lam, u], [f(t, q, v, a, lam, u, terms(t, q, v, u, self.c))])

    def simpson(self, f):
        """Σ h/6 (f_k + 4 f_m + f_k+1) of a one-point Function f (``one_point``) over the mesh."""
        fk = self.point(f, knots=True)
        fm = self.point(f, knots=False)
        return self.ca.sum2(self._times(self.h / 6, fk[:, :-1] + fk[:, 1:] + 4 * fm))

    def initial(self, guess: dict) -> None:
        """Set the mesh's variables from a guess on its 2N + 1 points in time order (q, v, a,
        lam: points × n or m)."""
        q, v, a, lam = (np.asarray(guess[k], dtype=float) for k in ("q", "v", "a", "lam"))
        o = self.opti
        o.set_initial(self.Q, q[0::2].T)
        o.set_initial(self.V, v[0::2].T)
        o.set_initial(self.A, a[0::2].T)
        o.set_initial(self.Am, a[1::2].T)
        o.set_initial(self.Lv, lam[0::2].T / self.force_scale)
        o.set_initial(self.Lmv, lam[1::2].T / self.force_scale)
        self.start_midpoints()

    def start_midpoints(self) -> None:
        """Start the separated midpoints' q_m, v_m on the interpolants of the knots' initial
        values (the point the compressed form starts from; the parameters' values must be set);
        nothing for the compressed form."""
        if not self.separated:
            return
        ca, o = self.ca, self.opti
        qm, vm = (np.reshape(np.asarray(o.debug.value(ca.vec(x), o.initial() + o.value_parameters()), dtype=float),
                             self.Qh.shape, order="F") for x in (self.Qh, self.Vh))
        o.set_initial(self.Qm, qm)
        o.set_initial(self.Vm, vm)

    def simpson_rows(self, fk, fm):
        """Σ h/6 (f_k + 4 f_m + f_k+1) of values given at the knots (1 × (N + 1)) and midpoints."""
        return self.ca.sum2(self.interval_sums(fk, fm))

    def interval_sums(self, fk, fm):
        """h/6 (f_k + 4 f_m + f_k+1), one per interval (1 × N), of values at the knots and midpoints."""
        return self._times(self.h / 6, fk[:, :-1] + fk[:, 1:] + 4 * fm)

    def running_integral(self, fk, fm, extra=None):
        """Σ h/6 (f_k + 4 f_m + f_k+1) of values at the knots (1 × (N + 1)) and midpoints as the
        last of N + 1 variables w, w_0 = 0 and w_k+1 − w_k = h/6 (f_k + 4 f_m + f_k+1): (w_N, w).

        The same sum as ``simpson_rows``, but each row of the program touches one interval.  A
        budget E = P T written with the sum itself is one row through every point of the mesh;
        CasADi then colours the program's Jacobian with as many colours as that row has entries,
        and building its exact derivatives takes tens of seconds at 100 intervals.  ``extra``
        (1 × N): an amount added to each interval's increment (a sum over the intervals that is
        not a rate's integral, kept local the same way)."""
        ca, opti = self.ca, self.opti
        w = opti.variable(1, self.N + 1)
        opti.subject_to(w[0, 0] == 0)
        step = self.interval_sums(fk, fm) + (0 if extra is None else extra)
        opti.subject_to(ca.vec(w[:, 1:] - w[:, :-1] - step) == 0)
        return w[0, self.N], w

    def on_rows(self, k: int = 0) -> None:
        """Put knot k on the rows: C = 0 (holonomic) and C_q v + C_t = 0 (every row)."""
        C, Cvel = self._fn["rows"](self.tau_knots[k], self.Q[:, k], self.V[:, k], self.U[:, k])
        if self.hol:
            self.opti.subject_to(C == 0)
        self.opti.subject_to(Cvel == 0)

    def terms_at(self, k: int) -> dict:
        """The terms of eq. 101 at knot k (CasADi expressions)."""
        return self.terms(self.tau_knots[k], self.Q[:, k], self.V[:, k], self.U[:, k], self.c)

    # -- after the solve ---------------------------------------------------------------------
    def solution(self, sol) -> dict:
        """The solution's arrays in time order over the 2N + 1 points (knots and midpoints):
        tau, q, v, a, lam (points × n or m), u (points × nu), and max_slack (the largest |γ|,
        |μ|: the rows' correction, of the scheme's truncation order)."""
        def val(x):
            x = x if isinstance(x, self.ca.MX) else np.asarray(x, dtype=float)
            return np.atleast_2d(np.asarray(sol.value(x) if isinstance(x, self.ca.MX) else x, dtype=float))

        def interleave(knots, mids):
            k, mm = val(knots), val(mids)
            k = k.reshape(-1, self.N + 1) if k.size else np.zeros((0, self.N + 1))
            mm = mm.reshape(-1, self.N) if mm.size else np.zeros((0, self.N))
            out = np.zeros((k.shape[0], 2 * self.N + 1))
            out[:, 0::2], out[:, 1::2] = k, mm
            return out.T

        slack = [np.abs(val(self.Mu)).max()] + ([np.abs(val(self.G)).max()] if self.G is not None else [])
        return dict(tau=interleave(self.tau_knots, self.tau_mid)[:, 0], q=interleave(self.Q, self.Qm),
                    v=interleave(self.V, self.Vm), a=interleave(self.A, self.Am), lam=interleave(self.L, self.Lm),
                    u=interleave(self.U, self.Um), max_slack=float(max(slack)))
