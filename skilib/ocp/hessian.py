"""A collocated program's derivatives assembled from one point's block: IPOPT's Jacobian of the
constraints and Hessian of the Lagrangian.

CasADi's exact derivatives of a whole expanded program are what cost a collocated program its
construction: the free skater's free-control program on 100 intervals took 7.5 of its 11 s to
differentiate twice (4.2 million instructions) and 2.3 s more for the constraints' Jacobian once
(1.9 million).  But most of g is one function F of one point's arguments w_k = φ_k(x) mapped
over the mesh's points (the equations of motion at every knot and midpoint, the rows and their
normals: ``HermiteSimpson``), entering g linearly with constant coefficients,

    g(x) = g_r(x) + E vec(F(w_1), …, F(w_K)),   E = ∂g/∂vec(F(w_k))  (a constant matrix),

and the chain rule gives, with J_φ = ∂(φ_1, …, φ_K)/∂x, ω_k = point k's block of Eᵀλ,
ℓ(w, ω) = ωᵀF(w) and γ_k = ∇_w ℓ(w_k, ω_k),

    ∂g/∂x      = ∂g_r/∂x + E diag_k(∂F/∂w(w_k)) J_φ,
    ∇²ₓ λᵀg    = ∇²ₓ λᵀg_r + J_φᵀ diag_k(∇²_w ℓ(w_k, ω_k)) J_φ + ∇²ₓ Σ_k γ_kᵀ φ_k(x)|_{γ_k fixed}.

So ∂F/∂w and ∇²_w ℓ are differentiated once, for one point (a few thousand instructions), and
evaluated at every point by a map (compiled to C once per machine: ``skilib.ocp.compiled``);
the arguments φ_k (slices of the variables, the controls' splines, the times of a free stroke
time) are small expressions whose own Jacobian and Hessian
CasADi forms in milliseconds; g_r (the program with the points' outputs set to zero: the budget,
the caps, Simpson's rule's linear terms) and the objective keep CasADi's derivatives of their own
graph.  E is not taken on trust: it is CasADi's Jacobian of g with respect to the mapped outputs,
and an output that enters the objective, or g other than linearly with a constant coefficient, is
refused by name (``PointDerivatives``).

``PointDerivatives`` returns the functions nlpsol calls ``nlp_jac_g`` (x, p -> g, ∂g/∂x) and
``nlp_hess_l`` (x, p, σ, λ -> the upper triangle of ∇²ₓ(σ f + λᵀg)), which
``MeshProgram.compile`` hands to IPOPT through nlpsol's ``cache``.  They equal CasADi's own to
rounding (``tests/test_collocation.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

from .compiled import compiled_function

__all__ = ["PointRows", "PointDerivatives", "lagrangian_hessian", "POINT_HESSIAN", "POINT_JACOBIAN"]

#: the collocated programs' (``skilib.ocp.stroke``, ``skilib.ocp.control``) Hessian from one point's
#: blocks (True) or CasADi's of the whole program (False, the reference); part of their programs'
#: keys, so a changed value builds anew
POINT_HESSIAN = True
#: the same for the constraints' Jacobian
POINT_JACOBIAN = True


@dataclass(frozen=True)
class PointRows:
    """A one-point ``function`` (a CasADi Function of column arguments) mapped over ``count``
    points of an Opti program: ``args`` are its arguments at every point (Opti expressions,
    argument i of size ``function.size1_in(i)`` × count) and ``values`` its mapped outputs as the
    program uses them (one Opti expression per output, in the function's order, n × count), each
    entering the program's g linearly with constant coefficients (Simpson's rule adds other
    variables' terms beside a row's normals), and not its objective."""

    function: object
    args: tuple
    count: int
    values: tuple


def _one_point(ca, F, jacobian: bool, hessian: bool):
    """One point's blocks, differentiated once: (∂F_j/∂w for each output j) and (∇²_w ℓ, ∇_w ℓ)
    with ℓ = Σⱼ ω_jᵀ F_j(w), as Functions of w and of (w, ω); and the size of w."""
    ins = [ca.SX.sym(f"w{i}", F.size1_in(i)) for i in range(F.n_in())]
    w = ca.vertcat(*ins)
    outs = F(*ins)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    jac = ca.Function("point_jacobian", [w], [ca.jacobian(o, w) for o in outs]) if jacobian else None
    hess = None
    if hessian:
        om = [ca.SX.sym(f"om{j}", o.shape[0]) for j, o in enumerate(outs)]
        H, grad = ca.hessian(sum(ca.dot(a, o) for a, o in zip(om, outs)), w)
        hess = ca.Function("point_hessian", [w, ca.vertcat(*om)], [H, grad])
    # evaluated at every point in every iteration: compiled to C once per machine (``skilib.ocp.compiled``)
    return (None if jac is None else compiled_function(ca, jac)), \
        (None if hess is None else compiled_function(ca, hess)), w.shape[0]


def _blockdiag(ca, M, width):
    """The K blocks of M = [B_1 … B_K] (each ``width`` columns) on a block diagonal."""
    return ca.diagcat(*ca.horzsplit(M, width))


class PointDerivatives:
    """The Jacobian of g and the Hessian of the Lagrangian of the Opti program min f s.t. g
    (variables ``x``, parameters ``p``: the Opti's MX expressions) with the terms of ``groups``
    (``PointRows``) by their one-point blocks and the rest by CasADi's derivatives of the program
    with those terms set to zero (the module's docstring).

    A group's output that enters f, or g other than linearly with a constant coefficient, is a
    ``ValueError`` naming the group's function: the chain rule above would not hold."""

    def __init__(self, ca, x, p, f, g, groups):
        self.ca, self.groups = ca, list(groups)
        values = [v for rows in self.groups for v in rows.values]
        for rows in self.groups:
            if len(rows.values) != rows.function.n_out():
                raise ValueError(f"groups: {rows.function.name()!r} has {rows.function.n_out()} outputs, "
                                 f"{len(rows.values)} values given")
        # E: g's constant coefficients of the outputs, found by substituting symbols for them
        syms = [ca.MX.sym(f"v{i}", v.sparsity()) for i, v in enumerate(values)]
        g_sub = ca.graph_substitute(g, values, syms) if values else g
        f_sub = ca.graph_substitute(f, values, syms) if values else f
        self.E = []
        for rows, vs in zip(self.groups, self._split(syms)):
            name = rows.function.name()
            V = ca.vertcat(*[ca.vec(s) for s in vs])
            if ca.depends_on(f_sub, V):
                raise ValueError(f"groups: an output of {name!r} enters the objective")
            E = ca.jacobian(g_sub, V)
            if ca.depends_on(E, ca.vertcat(x, p, *[ca.vec(s) for s in syms])):
                raise ValueError(f"groups: an output of {name!r} enters g other than linearly with a constant "
                                 "coefficient")
            self.E.append(ca.sparsify(ca.evalf(E)))
        zero = [ca.MX.zeros(s.sparsity()) for s in syms]
        rest = ca.Function("rest", [x, p], [f, ca.graph_substitute(g_sub, syms, zero) if values else g]).expand()
        self.xs, self.ps = ca.SX.sym("x", x.shape[0]), ca.SX.sym("p", p.shape[0])
        self.f_rest, self.g_rest = rest(self.xs, self.ps)
        # each group's arguments at every point: nw × K, an expression of (x, p) expanded once
        self.w = [ca.Function("point_args", [x, p], [ca.vertcat(*rows.args)]).expand()(self.xs, self.ps)
                  for rows in self.groups]
        self.ng, self.nx, self.np = g.shape[0], x.shape[0], p.shape[0]
        self._xpg, self._jacobians, self._phis, self._points = (x, p, g), {}, {}, {}

    def _split(self, flat):
        out, i = [], 0
        for rows in self.groups:
            out.append(flat[i: i + len(rows.values)])
            i += len(rows.values)
        return out

    def _phi(self, k: int, wrt: str):
        """Group k's arguments at every point and their Jacobian in ``wrt`` ("x" or "p"): Functions of
        (x, p), built once and shared by the Jacobian, the gradient and the Hessian."""
        key = (k, wrt)
        if key not in self._phis:
            ca, W = self.ca, self.w[k]
            v = self.xs if wrt == "x" else self.ps
            self._phis[key] = (ca.Function("point_args", [self.xs, self.ps], [W]),
                               ca.Function("point_args_jac", [self.xs, self.ps], [ca.jacobian(ca.vec(W), v)]))
        return self._phis[key]

    def _point(self, k: int, jacobian: bool, hessian: bool):
        """``_one_point`` of group k's function, built (and compiled) once and shared by the
        Jacobians in x and in p."""
        key = (k, jacobian, hessian)
        if key not in self._points:
            self._points[key] = _one_point(self.ca, self.groups[k].function, jacobian, hessian)
        return self._points[key]

    def _jacobian(self, wrt: str):
        """The Function (x, p) -> ∂g/∂x (``wrt`` "x") or ∂g/∂p ("p"): the rest's plus each
        group's, built once and shared by ``jacobian`` and ``gradient``."""
        if wrt not in self._jacobians:
            ca = self.ca
            v = self.xs if wrt == "x" else self.ps
            X, P = ca.MX.sym("x", self.nx), ca.MX.sym("p", self.np)
            J = ca.Function("rest_jacobian", [self.xs, self.ps], [ca.jacobian(self.g_rest, v)])(X, P)
            for k, (rows, E) in enumerate(zip(self.groups, self.E)):
                jpt, _, nw = self._point(k, True, False)
                args, jac = self._phi(k, wrt)
                blocks = jpt.map(rows.count)(args(X, P))
                blocks = blocks if isinstance(blocks, (list, tuple)) else [blocks]
                B = ca.vertcat(*[_blockdiag(ca, b, nw) for b in blocks])
                J = J + ca.mtimes(E, ca.mtimes(B, jac(X, P)))
            self._jacobians[wrt] = ca.Function(f"jac_g_{wrt}", [X, P], [J])
        return self._jacobians[wrt]

    def _g(self, g):
        ca = self.ca
        return g if g is not None else ca.Function("g", list(self._xpg[:2]), [self._xpg[2]]).expand()

    def jacobian(self, g=None):
        """``nlp_jac_g``: (x, p) -> (g, ∂g/∂x); ``g`` the Function (x, p) -> g where the caller has
        one already expanded (else the program's g, expanded here)."""
        ca = self.ca
        X, P = ca.MX.sym("x", self.nx), ca.MX.sym("p", self.np)
        return ca.Function("nlp_jac_g", [X, P], [self._g(g)(X, P), self._jacobian("x")(X, P)], ["x", "p"],
                           ["g", "jac_g_x"])

    def gradient(self, f, g=None):
        """``nlp_grad``: (x, p, σ, λ) -> (f, g, ∇ₓ(σ f + λᵀg), ∇_p(σ f + λᵀg)), dense; ``f`` (and
        ``g``) the Functions (x, p) -> f (g) where the caller has them expanded."""
        ca = self.ca
        X, P = ca.MX.sym("x", self.nx), ca.MX.sym("p", self.np)
        LF, LG = ca.MX.sym("lam_f"), ca.MX.sym("lam_g", self.ng)
        df = ca.Function("grad_f", [self.xs, self.ps], [ca.gradient(self.f_rest, self.xs),
                                                       ca.gradient(self.f_rest, self.ps)])(X, P)
        gx = LF * df[0] + ca.mtimes(self._jacobian("x")(X, P).T, LG)
        gp = LF * df[1] + ca.mtimes(self._jacobian("p")(X, P).T, LG)
        return ca.Function("nlp_grad", [X, P, LF, LG], [f(X, P), self._g(g)(X, P), ca.densify(gx), ca.densify(gp)],
                           ["x", "p", "lam_f", "lam_g"], ["f", "g", "grad_gamma_x", "grad_gamma_p"])

    def hessian(self):
        """``nlp_hess_l``: (x, p, σ, λ) -> the upper triangle of ∇²ₓ(σ f + λᵀg)."""
        ca = self.ca
        X, P = ca.MX.sym("x", self.nx), ca.MX.sym("p", self.np)
        LF, LG = ca.MX.sym("lam_f"), ca.MX.sym("lam_g", self.ng)
        H = 0
        for k, (rows, W, E) in enumerate(zip(self.groups, self.w, self.E)):
            K = rows.count
            args, jac = self._phi(k, "x")
            _, hpt, nw = self._point(k, False, True)
            gam = ca.SX.sym("gamma", nw, K)
            Hphi = ca.Function("point_args_hess", [self.xs, self.ps, gam],
                               [ca.hessian(ca.dot(ca.vec(gam), ca.vec(W)), self.xs)[0]])
            # ω: each output's block of Eᵀλ, n_j × K, stacked over the outputs point by point
            om, i = [], 0
            lam = ca.mtimes(E.T, LG)
            for j in range(rows.function.n_out()):
                n = rows.function.size1_out(j) * K
                om.append(ca.reshape(lam[i: i + n], rows.function.size1_out(j), K))
                i += n
            Hb, Gb = hpt.map(K)(args(X, P), ca.vertcat(*om))
            Jm = jac(X, P)
            H = H + ca.mtimes([Jm.T, _blockdiag(ca, Hb, nw), Jm]) + Hphi(X, P, Gb)
        lf, lg = ca.SX.sym("lam_f"), ca.SX.sym("lam_g", self.ng)
        h_rest = ca.Function("rest_hessian", [self.xs, self.ps, lf, lg],
                             [ca.hessian(lf * self.f_rest + ca.dot(lg, self.g_rest), self.xs)[0]])
        H = H + h_rest(X, P, LF, LG)
        return ca.Function("nlp_hess_l", [X, P, LF, LG], [ca.triu(H)], ["x", "p", "lam_f", "lam_g"],
                           ["triu_hess_gamma_x_x"])


def lagrangian_hessian(ca, x, p, f, g, groups) -> object:
    """``nlp_hess_l`` of the Opti program min f s.t. g by ``PointDerivatives``."""
    return PointDerivatives(ca, x, p, f, g, groups).hessian()
