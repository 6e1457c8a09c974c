"""One solve of the equations of motion and every term it used.

``MultibodySystem.evaluate`` and ``CompiledSystem.evaluate`` both return an ``Evaluation``:
the solution of eq. 101, ::

    [ M   Cqᵀ ] [ q̈ ]   [ Qe + Qv                         ]
    [ Cq   0  ] [ λ  ] = [ Qd − 2α(Cq q̇ + Ct) − β² C      ]

together with M, Qv, C, Cq, Ċ = Cq q̇ + Ct, Qd (eq. 97), the generalized force of each force
element (eqs. 80–83) and the powers a work–energy balance needs.  Powers, reactions and
residuals computed from it therefore belong to the very state and solve that the
integrator used.

The compiled kernel's ``Evaluation`` is one object whose arrays are views of the kernel's
buffers: the next ``evaluate`` call overwrites it (no allocation per call).  Keep values
with ``copy()``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["Evaluation", "EvaluationStack", "stack_evaluations", "row_dot"]


class Evaluation:
    """The terms of eq. 101 at (t, q, q̇) and its solution (q̈, λ).

    Attributes
    ----------
    t, q, qd
        the instant and state evaluated.
    alpha, beta
        the Baumgarte parameters of the solve (eqs. 99–100).
    qdd, lam
        q̈ and the Lagrange multipliers λ (one per constraint row).
    M
        mass matrix (eqs. 40–46).
    Qv
        quadratic-velocity vector (eqs. 84–92).
    C, Cq, Cdot
        constraint vector, Jacobian and Ċ = Cq q̇ + Ct (eqs. 93–96).
    quad
        −Qd, so that Qd = −quad (eq. 97).
    forces
        {force name: generalized force Q_f} (eqs. 80–83).
    force_names
        the force names in the order of ``powers``.
    powers
        one vector [Q_f·q̇ for each force; −λ_r (Cq q̇)_r for each row; λ_r Ct_r for each
        row]: the power of each force, of each row's constraint force Qc = −Cqᵀλ (§3.5), and
        the part of it that the rows' explicit time dependence makes (λ_r Ct_r).
    """

    __slots__ = ("t", "q", "qd", "alpha", "beta", "qdd", "lam", "M", "Qv", "C", "Cq", "Cdot", "quad",
                 "forces", "force_names", "powers")

    def __init__(self, *, t, q, qd, alpha, beta, qdd, lam, M, Qv, C, Cq, Cdot, quad, forces, force_names,
                 powers):
        self.t, self.q, self.qd, self.alpha, self.beta = t, q, qd, alpha, beta
        self.qdd, self.lam, self.M, self.Qv = qdd, lam, M, Qv
        self.C, self.Cq, self.Cdot, self.quad = C, Cq, Cdot, quad
        self.forces, self.force_names, self.powers = forces, force_names, powers

    # -- derived terms (computed on request) --------------------------------------------
    @property
    def Ct(self) -> np.ndarray:
        """∂C/∂t = Ċ − Cq q̇."""
        return self.Cdot - self.Cq @ self.qd

    @property
    def Qd(self) -> np.ndarray:
        """Qd = −Ctt − (Cq q̇)_q q̇ − 2 Cqt q̇ (eq. 97)."""
        return -self.quad

    @property
    def nf(self) -> int:
        return len(self.force_names)

    @property
    def force_power(self) -> dict:
        """{force name: Q_f · q̇} [W]."""
        return dict(zip(self.force_names, self.powers[: self.nf]))

    @property
    def row_power(self) -> np.ndarray:
        """Power of each constraint row's force, −λ_r (Cq q̇)_r [W]."""
        m = len(self.lam)
        return self.powers[self.nf: self.nf + m]

    @property
    def row_power_ct(self) -> np.ndarray:
        """λ_r Ct_r of each row [W] (non-zero for rheonomic rows: drivers)."""
        m = len(self.lam)
        return self.powers[self.nf + m: self.nf + 2 * m]

    @property
    def constraint_force(self) -> np.ndarray:
        """Qc = −Cqᵀλ (eq. 68)."""
        return -self.Cq.T @ self.lam

    @property
    def kinetic_energy(self) -> float:
        """½ q̇ᵀ M q̇ with this evaluation's M."""
        return 0.5 * float(self.qd @ self.M @ self.qd)

    def copy(self) -> "Evaluation":
        """An independent copy (a compiled kernel's evaluation is overwritten by its next call)."""
        return Evaluation(
            t=float(self.t), q=np.array(self.q), qd=np.array(self.qd), alpha=self.alpha, beta=self.beta,
            qdd=np.array(self.qdd), lam=np.array(self.lam), M=np.array(self.M), Qv=np.array(self.Qv),
            C=np.array(self.C), Cq=np.array(self.Cq), Cdot=np.array(self.Cdot), quad=np.array(self.quad),
            forces={k: np.array(v) for k, v in self.forces.items()}, force_names=tuple(self.force_names),
            powers=np.array(self.powers))


class EvaluationStack:
    """The ``Evaluation`` of one system at k points, its arrays stacked along a first axis of
    length k (``stack_evaluations``): t (k,), q, qd, qdd (k, nq), lam, C, Cdot (k, nc), M (k, nq, nq),
    Cq (k, nc, nq), forces {name: (k, nq)}, powers (k, ·); with ``row_power`` and
    ``kinetic_energy`` per point.  What a table of many points computes in array operations
    (``skilib.strokes.frame``) reads from it."""

    def __init__(self, *, t, q, qd, qdd, lam, M, C, Cq, Cdot, forces, force_names, powers):
        self.t, self.q, self.qd, self.qdd, self.lam, self.M = t, q, qd, qdd, lam, M
        self.C, self.Cq, self.Cdot, self.forces, self.force_names, self.powers = C, Cq, Cdot, forces, force_names, powers

    @property
    def row_power(self) -> np.ndarray:
        """−λ_r (Cq q̇)_r of each row at each point (k, nc) [W]."""
        nf, m = len(self.force_names), self.lam.shape[1]
        return self.powers[:, nf: nf + m]

    @property
    def kinetic_energy(self) -> np.ndarray:
        """½ q̇ᵀ M q̇ at each point (k,) [J]."""
        return 0.5 * row_dot(np.einsum("ki,kij->kj", self.qd, self.M), self.qd)


def row_dot(a, b) -> np.ndarray:
    """aₖ · bₖ for every row k of two (k, n) arrays: a stack's dot products point by point."""
    return np.einsum("ki,ki->k", a, b)


def stack_evaluations(system, t, q, qd, alpha=0.0, beta=0.0, *, c_points: bool = True) -> EvaluationStack:
    """``system.evaluate`` at the points (t[k], q[k], qd[k]) (t (k,), q and qd (k, nq)), each
    evaluation's arrays copied into one ``EvaluationStack`` (a compiled system's evaluation is
    overwritten by its next call).  The solve is the system's own, point by point: the stack's
    numbers are those of the single evaluations bit for bit.  A compiled system whose kernel a
    loop in C can call (``CompiledSystem.evaluate_many``) is evaluated at every point in one call
    into C, the same kernel calls, the same bits; ``c_points=False`` takes the points one by one
    from Python (the reference)."""
    t = np.asarray(t, dtype=float)
    k = len(t)
    if not k:
        raise ValueError("t: no points to evaluate")
    many = getattr(system, "evaluate_many", None)  # a compiled system: every point in one call into C
    stacked = many(t, q, qd, alpha, beta) if many is not None and c_points else None
    if stacked is not None:
        forces = stacked.pop("forces")
        return EvaluationStack(t=t, q=np.asarray(q, dtype=float), qd=np.asarray(qd, dtype=float), forces=forces,
                               force_names=tuple(forces), **stacked)
    first = system.evaluate(t[0], q[0], qd[0], alpha, beta)
    names = tuple(first.force_names)
    fields = ("qdd", "lam", "M", "C", "Cq", "Cdot", "powers")
    out = {f: np.empty((k,) + np.shape(getattr(first, f))) for f in fields}
    forces = {f: np.empty((k,) + np.shape(first.forces[f])) for f in names}
    for j in range(k):
        e = first if j == 0 else system.evaluate(t[j], q[j], qd[j], alpha, beta)
        for f in fields:
            out[f][j] = getattr(e, f)
        for f in names:
            forces[f][j] = e.forces[f]
    return EvaluationStack(t=t, q=np.asarray(q, dtype=float), qd=np.asarray(qd, dtype=float), forces=forces,
                           force_names=names, **out)


def power_vector(forces: dict, qd, lam, Cq, Cdot) -> np.ndarray:
    """[Q_f·q̇ per force; −λ_r (Cq q̇)_r; λ_r Ct_r] from the terms of one evaluation."""
    cqqd = Cq @ qd
    return np.concatenate([np.array([Q @ qd for Q in forces.values()], dtype=float),
                           -lam * cqqd, lam * (Cdot - cqqd)])
