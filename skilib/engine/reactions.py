"""Joint reactions from the Lagrange multipliers: the thesis's reason to use them (ch. 3).

The generalized constraint force is Qc = −Cqᵀλ (eq. 68).  Restricted to one constraint's
rows and one of its bodies it is equipollent to a force F = (Qc)_R acting at the
constraint's reaction point P (u = Aū from the centre of mass) and a moment N about P with
Gᵀ(N + u × F) = (Qc)_θ: eqs. 80–81 read backwards, the Newton–Euler form of the joint
force (Haug 1989).  With Euler parameters Gᵀ is 4 × 3 of full column rank and (Qc)_θ lies in
its range, so the four equations are consistent and solved exactly.
"""
from __future__ import annotations

import numpy as np

__all__ = ["JointReaction", "joint_reactions"]


class JointReaction:
    """Force and moment of constraint ``constraint`` on ``body``, global components; the rows,
    body columns and reaction point are looked up once, so that many instants are cheap."""

    def __init__(self, system, constraint, body):
        c = system.constraint(constraint) if isinstance(constraint, str) else constraint
        self.name, self.body = c.name, body
        self.rows = system.rows(c.name)
        try:
            self.ubar = next(np.asarray(u, dtype=float) for b, u in c.reaction_points if b is body)
        except StopIteration:
            raise ValueError(f"constraint '{c.name}' has no reaction point on body "
                             f"'{getattr(body, 'name', body)}'") from None
        self.cols = system.slice(body)
        self.rot = body.rotation

    def __call__(self, q, Cq, lam):
        """(F, N) at many instants: q (k × nq), Cq (k × nc × nq) or only this constraint's block
        (k × rows × body columns), lam (k × nc).  One instant: 1-D q and lam, 2-D Cq."""
        q, lam = np.asarray(q, dtype=float), np.asarray(lam, dtype=float)
        single = q.ndim == 1
        if single:
            q, Cq, lam = q[None], np.asarray(Cq)[None], lam[None]
        r, c = self.rows, self.cols
        block = Cq if Cq.shape[1:] == (r.stop - r.start, c.stop - c.start) else Cq[:, r, c]
        Qc = -np.einsum("prb,pr->pb", block, lam[:, r])
        F = Qc[:, :3]
        th = q[:, c][:, 3:]
        A, G = self.rot.A_G_stack(th)  # every point's A(θ), G(θ), bit for bit
        GT = np.swapaxes(G, 1, 2)
        try:
            if G.shape[2] != 3:
                raise np.linalg.LinAlgError("Euler parameters: Gᵀ is 4 × 3")
            M_cm = np.linalg.solve(GT, Qc[:, 3:, None])[..., 0]
        except np.linalg.LinAlgError:
            # least squares: exact for Euler parameters, and for ZXZ angles at θ = 0 (a body whose
            # angles are driven one by one, e.g. a flat ski) the moment about the axis that the
            # singular G cannot see is not determined by (Qc)_θ; lstsq gives the minimal one
            M_cm = np.array([np.linalg.lstsq(g, b, rcond=None)[0] for g, b in zip(GT, Qc[:, 3:])])
        # u × F component by component: the products and differences np.cross forms, without
        # its axis handling (the same operations, the same bits)
        u = A @ self.ubar
        N = M_cm - np.stack([u[:, 1] * F[:, 2] - u[:, 2] * F[:, 1], u[:, 2] * F[:, 0] - u[:, 0] * F[:, 2],
                             u[:, 0] * F[:, 1] - u[:, 1] * F[:, 0]], axis=1)
        return (F[0], N[0]) if single else (F, N)


def joint_reactions(system, constraint, q, Cq, lam) -> dict:
    """{body name: (F, N)} of one constraint on each of its (non-ground) bodies at many
    instants (see ``JointReaction``)."""
    c = system.constraint(constraint) if isinstance(constraint, str) else constraint
    return {b.name: JointReaction(system, c, b)(q, Cq, lam) for b, _ in c.reaction_points if b is not None}
