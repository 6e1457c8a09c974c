"""The Hessian of a collocated program's Lagrangian assembled from one point's block.

IPOPT's exact Hessian ∇²ₓ(σ f + λᵀg) is what costs a collocated program its construction: CasADi
differentiates the whole expanded graph twice (the free skater's free-control program on 100
intervals: 4.2 million instructions, 7.5 of its 11 s).  But most of g is one function F of one
point's arguments w_k = φ_k(x) mapped over the mesh's points (the equations of motion at every
knot and midpoint, ``HermiteSimpson``), and for such rows the chain rule gives, with ω_k the
point's multipliers (λ of its rows, times the rows' scale),

    ∇²ₓ Σ_k ω_kᵀ F(φ_k(x)) = J_φᵀ diag_k(∇²_w ℓ(w_k, ω_k)) J_φ + ∇²ₓ Σ_k γ_kᵀ φ_k(x)|_{γ_k fixed},

    ℓ(w, ω) = ωᵀ F(w),   γ_k = ∇_w ℓ(w_k, ω_k),   J_φ = ∂(φ_1, …, φ_K)/∂x.

So ∇²_w ℓ is differentiated once, for one point (a few thousand instructions), and evaluated at
every point by a map; the arguments φ_k (slices of the variables, the controls' splines, the
times of a free stroke time) are small expressions whose own Jacobian and Hessian CasADi forms
in milliseconds.  The remaining rows and the objective keep CasADi's Hessian of their own graph.

``lagrangian_hessian`` returns the function nlpsol calls ``nlp_hess_l`` (inputs x, p, σ, λ;
output the upper triangle), which ``MeshProgram.compile`` hands to IPOPT through nlpsol's
``cache``.  It equals CasADi's own to rounding (``tests/test_collocation.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PointRows", "lagrangian_hessian", "POINT_HESSIAN"]

#: the collocated programs' (``skilib.ocp.stroke``, ``skilib.ocp.control``) Hessian from one point's
#: blocks (True) or CasADi's of the whole program (False, the reference); part of their programs'
#: keys, so a changed value builds anew
POINT_HESSIAN = True


@dataclass(frozen=True)
class PointRows:
    """Rows of an Opti program in which a one-point ``function`` (a CasADi Function of column
    arguments) mapped over ``count`` points enters linearly: ``args`` are its arguments at every
    point (Opti expressions, argument i of size ``function.size1_in(i)`` × count), ``values`` the
    mapped outputs as the program uses them (one Opti expression per output, n × count), and
    ``rows`` where they went: (output index, first row in the program's g, scale), row
    first + k·n + i of g holding scale × output[i] at point k (``vec`` of the n × count matrix)
    plus terms of other variables (Simpson's rule beside a row's normals)."""

    function: object
    args: tuple
    count: int
    values: tuple
    rows: tuple


def _one_point(ca, rows: PointRows):
    """hpt(w, ω) = (∇²_w ℓ, ∇_w ℓ), ℓ = Σⱼ ωⱼᵀ Fⱼ(w): one point's block, differentiated once."""
    F = rows.function
    ins = [ca.SX.sym(f"w{i}", F.size1_in(i)) for i in range(F.n_in())]
    w = ca.vertcat(*ins)
    outs = F(*ins)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    om = [ca.SX.sym(f"om{k}", F.size1_out(j)) for k, (j, _, _) in enumerate(rows.rows)]
    ell = sum(ca.dot(o, outs[j]) for o, (j, _, _) in zip(om, rows.rows))
    H, grad = ca.hessian(ell, w)
    return ca.Function("point_hessian", [w, ca.vertcat(*om)], [H, grad]), w.shape[0]


def lagrangian_hessian(ca, x, p, f, g, groups) -> object:
    """``nlp_hess_l`` of the Opti program min f s.t. g (variables ``x``, parameters ``p``: the
    Opti's MX expressions) with the terms of ``groups`` (``PointRows``) by their one-point blocks
    and the rest by CasADi's Hessian of the program with those terms set to zero (module
    docstring): a Function (x, p, lam_f, lam_g) -> the upper triangle of ∇²ₓ(lam_f f + lam_gᵀ g)."""
    xs, ps = ca.SX.sym("x", x.shape[0]), ca.SX.sym("p", p.shape[0])
    ng = g.shape[0]
    X, P = ca.MX.sym("x", x.shape[0]), ca.MX.sym("p", p.shape[0])
    LF, LG = ca.MX.sym("lam_f"), ca.MX.sym("lam_g", ng)
    H = 0
    for rows in groups:
        K = rows.count
        hpt, nw = _one_point(ca, rows)
        # the arguments at every point: nw × K, an expression of (x, p) expanded once
        W = ca.vertcat(*rows.args)
        w_fun = ca.Function("point_args", [x, p], [W]).expand()
        Ws = w_fun(xs, ps)
        gam = ca.SX.sym("gamma", nw, K)
        J = ca.Function("point_args_jac", [xs, ps], [ca.jacobian(ca.vec(Ws), xs)])
        Hphi = ca.Function("point_args_hess", [xs, ps, gam], [ca.hessian(ca.dot(ca.vec(gam), ca.vec(Ws)), xs)[0]])
        om = [scale * ca.reshape(LG[first: first + rows.function.size1_out(j) * K], rows.function.size1_out(j), K)
              for j, first, scale in rows.rows]
        Hb, Gb = hpt.map(K)(w_fun(X, P), ca.vertcat(*om))
        Jm = J(X, P)
        H = H + ca.mtimes([Jm.T, ca.diagcat(*ca.horzsplit(Hb, nw)), Jm]) + Hphi(X, P, Gb)
    # the rest: the program with every group's terms zero
    values = [v for rows in groups for v in rows.values]
    g_rest = ca.graph_substitute(g, values, [ca.MX.zeros(v.sparsity()) for v in values]) if values else g
    rest = ca.Function("rest", [x, p], [f, g_rest]).expand()
    fr, gr = rest(xs, ps)
    lf, lg = ca.SX.sym("lam_f"), ca.SX.sym("lam_g", ng)
    h_rest = ca.Function("rest_hessian", [xs, ps, lf, lg], [ca.hessian(lf * fr + ca.dot(lg, gr), xs)[0]])
    H = H + h_rest(X, P, LF, LG)
    return ca.Function("nlp_hess_l", [X, P, LF, LG], [ca.triu(H)], ["x", "p", "lam_f", "lam_g"],
                       ["triu_hess_gamma_x_x"])
