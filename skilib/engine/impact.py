"""Plastic (perfectly inelastic) impact: the velocity jump when velocity constraints become active.

When a body point lands on a surface, or an edge is set down on the snow, rows that were
not enforced before the instant t are enforced after it.  Over the impact the positions do
not change, the finite forces do no finite impulse, and the constraint forces −Cqᵀλ
(eq. 68) become impulsive: integrating the first rows of eq. 101 over the vanishing impact
time gives M(q̇⁺ − q̇⁻) = −Cqᵀν with ν = ∫λ dt the impulse of the multipliers.  A plastic
impact leaves the velocities on the rows, Cq q̇⁺ + Ct = 0 (holonomic rows, eq. 95) and
B q̇⁺ + b = 0 (velocity rows), so that ::

    [ M   Cqᵀ ] [ q̇⁺ ]   [ M q̇⁻ ]
    [ Cq   0  ] [ ν  ] = [ −Ct  ]

with the augmented matrix of eq. 101 (Cq and Ct stand for all enforced rows, B and b
included).  q̇⁺ is the velocity closest to q̇⁻ in the kinetic-energy metric that the rows
allow: the impact is the mass-weighted projection of q̇⁻ onto them (Pfeiffer & Glocker 1996,
*Multibody Dynamics with Unilateral Contacts*), the velocity step of the coordinate
projection (``skilib.engine.projection``).

Energy.  With Δ = q̇⁻ − q̇⁺, MΔ = Cqᵀν and Cq q̇⁺ = −Ct, ::

    T⁻ − T⁺ = ½ ΔᵀMΔ − Ctᵀν

so that for rows without explicit time dependence (Ct = 0: a fixed ground, a knife edge
with b = 0) the loss is the kinetic energy of the lost velocity, ½ ΔᵀMΔ ≥ 0 (Carnot's
theorem); a moving constraint (Ct ≠ 0) also gives the bodies the energy Ctᵀν, which may
exceed the loss (a driver that is faster than the body accelerates it).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .constraints import EulerParameterNorm
from .errors import RedundantConstraintError, SingularSystemError
from .projection import velocity_projector
from .reactions import joint_reactions
from .validation import check_array, check_number

__all__ = ["ImpactResult", "ImpactSite", "impact"]

#: a row whose part independent of the rows before it is smaller than this × max(1, max|Cq|)
#: is redundant (the tolerance of ``MultibodySystem.check_rank``)
RANK_TOL = 1e-9


@dataclass(frozen=True)
class ImpactResult:
    """The velocities after a plastic impact, the impulses and the energies.

    Attributes
    ----------
    t, q
        the instant [s] and the coordinates (unchanged by the impact).
    qd_minus, qd
        the velocities before (q̇⁻) and after (q̇⁺) the impact.
    rows
        indices of the enforced rows in the system's row order (the Euler-parameter
        normalization rows always among them).
    impulses
        ν, one entry per row of the system (zero on rows not enforced) [N s for a row in
        metres, N m s for a row in radians]: M(q̇⁺ − q̇⁻) = −Cqᵀν, the impulsive form of
        Qc = −Cqᵀλ (eq. 68), with the multipliers' sign.
    constraint_impulses
        {constraint name: ν over its rows} for every constraint with an enforced row.
    generalized_impulse
        P = −Cqᵀν = M(q̇⁺ − q̇⁻), the impulse on the coordinates.
    ke_before, ke_after
        T⁻ = ½ q̇⁻ᵀM q̇⁻ and T⁺ = ½ q̇⁺ᵀM q̇⁺ [J].
    ke_lost
        T⁻ − T⁺ evaluated as ½ ΔᵀMΔ − Ctᵀν with Δ = q̇⁻ − q̇⁺ [J]: ≥ 0 when the enforced rows
        have Ct = 0 (without the cancellation of T⁻ − T⁺).
    residual
        max |Cq q̇⁺ + Ct| over the enforced rows.
    position_residual
        max |C| over the enforced holonomic rows at q (the impact assumes the contact is
        closed there; this says how closely it is).
    """

    t: float
    q: np.ndarray
    qd_minus: np.ndarray
    qd: np.ndarray
    rows: np.ndarray
    impulses: np.ndarray
    constraint_impulses: dict
    generalized_impulse: np.ndarray
    ke_before: float
    ke_after: float
    ke_lost: float
    residual: float
    position_residual: float
    Cq: np.ndarray = field(repr=False)
    system: object = field(repr=False)

    def joint_impulse(self, constraint) -> dict:
        """{body name: (linear impulse J, angular impulse H)} of one constraint on each of its
        bodies, global components [N s, N m s]: ν read as the multipliers of
        ``joint_reactions`` (eq. 68), J acting at the constraint's reaction point and H
        about it."""
        return joint_reactions(self.system, constraint, self.q, self.Cq, self.impulses)


def impact(system, q, qd_minus, *, t=0.0, rows=None) -> ImpactResult:
    """The plastic impact of ``system`` at (t, q) with the velocities ``qd_minus`` before it.

    Solves [M Cqᵀ; Cq 0][q̇⁺; ν] = [M q̇⁻; −Ct] (the augmented matrix of eq. 101) for the
    enforced rows, holonomic (Cq q̇ + Ct = 0, eq. 95) and velocity rows (B q̇ + b = 0), with
    M, Cq and Ct from the system's own ``mass_matrix`` and ``constraint_jet``.  The impulse
    on the coordinates is M(q̇⁺ − q̇⁻) = −Cqᵀν (eq. 68's Qc = −Cqᵀλ integrated over the
    impact); positions do not change.  The energy lost is T⁻ − T⁺ = ½ΔᵀMΔ − Ctᵀν with
    Δ = q̇⁻ − q̇⁺, i.e. ½ΔᵀMΔ ≥ 0 when Ct = 0 (see the module's docstring).

    Parameters
    ----------
    system
        a ``MultibodySystem`` (or a compiled one) holding the rows that act after the impact.
    q, qd_minus
        coordinates and velocities before the impact (nq entries each, finite).
    t
        the instant [s] (for rows that depend on time: drivers, moving surfaces).
    rows
        the rows to enforce: None for all of them, else a sequence of constraint names,
        constraints and row indices (a name or constraint stands for all its rows).  The
        Euler-parameter normalization rows are always enforced: without them the mass
        matrix of a body in Euler parameters is singular.

    Raises ``ValueError`` naming a bad argument, ``RedundantConstraintError`` naming the
    first enforced row that depends on the ones before it, and ``GimbalLockError`` at a ZXZ
    singularity of a body whose angles are free.

    >>> import numpy as np
    >>> from skilib.engine import RigidBody, PointOnPlane, MultibodySystem, impact
    >>> ball = RigidBody("ball", 2.0, [1e-3] * 3)
    >>> system = MultibodySystem([ball], [PointOnPlane("floor", ball, [0, 0, 0], [0, 0, 0], [0, 0, 1])])
    >>> q = [0.0, 0.0, 0.0, 0.0, np.pi / 2, 0.0]                # ZXZ angles away from θ = 0
    >>> r = impact(system, q, [1.0, 0.0, -3.0, 0.0, 0.0, 0.0])
    >>> r.qd[:3].round(12).tolist(), round(r.ke_lost, 12)     # ½ m v_n² = ½ · 2 · 3²
    ([1.0, 0.0, 0.0], 9.0)
    """
    return ImpactSite(system, q, t=t, rows=rows).apply(qd_minus)


class ImpactSite:
    """The plastic impact of ``system`` at (t, q) prepared for any velocities before it: M, the
    enforced rows' Cq and Ct, their independence checked and the augmented matrix
    [M Cqᵀ; Cq 0] factorized once (``impact`` is ``ImpactSite(system, q, t=t,
    rows=rows).apply(qd_minus)``).  A stance that lands at the same pose stroke after stroke
    (or at a translation of it, for rows that see only relative positions) prepares its site
    once and applies it at every touch-down.  The arguments and errors are ``impact``'s."""

    def __init__(self, system, q, *, t=0.0, rows=None):
        self.t = t = check_number("t", t, unit="s")
        self.system, n = system, system.nq
        q = check_array("q", q, ndim=1)
        if q.shape != (n,):
            raise ValueError(f"q: must have {n} entries, got shape {q.shape}")
        self.q = q
        self.enforced = enforced = _enforced_rows(system, rows)
        system.check_gimbal(t, q)
        self.M = M = np.asarray(system.mass_matrix(q), dtype=float)
        jet = system.constraint_jet(t, q, np.zeros(n))  # J = Cq (B), t = Ct (b)
        self.Cq_all, self.Ct_all = np.atleast_2d(jet.J).reshape(-1, n), np.atleast_1d(jet.t)
        self.Cq, self.Ct = Cq, Ct = self.Cq_all[enforced], self.Ct_all[enforced]
        _check_independent(system, Cq, enforced, t)
        self.solve = velocity_projector(M, Cq, Ct)
        hol = np.intersect1d(enforced, system.holonomic_rows)
        self.position_residual = float(np.abs(np.atleast_1d(jet.val)[hol]).max()) if len(hol) else 0.0
        on = set(enforced.tolist())  # the constraints with an enforced row, and their rows
        self.named = [(c.name, sl) for c in system.constraints
                      for sl in (system.rows(c.name),) if on.intersection(range(sl.start, sl.stop))]

    def apply(self, qd_minus, *, q=None) -> ImpactResult:
        """The impact of the velocities ``qd_minus`` (nq entries, finite) before it.  ``q``: the
        coordinates to report (default the site's); only a pose with the same M, Cq and Ct (a
        translation, for rows that see only relative positions) may be given."""
        n, M, Cq, Ct, enforced = self.system.nq, self.M, self.Cq, self.Ct, self.enforced
        v0 = check_array("qd_minus", qd_minus, ndim=1)
        if v0.shape != (n,):
            raise ValueError(f"qd_minus: must have {n} entries, got shape {v0.shape}")
        qd, nu = self.solve(v0)
        if not (np.all(np.isfinite(qd)) and np.all(np.isfinite(nu))):
            raise SingularSystemError(f"impact at t={self.t:.6g} s: the augmented matrix [M Cqᵀ; Cq 0] of the "
                                      f"{len(enforced)} enforced rows is singular (M not positive definite "
                                      "on the velocities the rows allow)")
        impulses = np.zeros(len(self.Ct_all))
        impulses[enforced] = nu
        delta = v0 - qd
        ke_before, ke_after = 0.5 * float(v0 @ M @ v0), 0.5 * float(qd @ M @ qd)
        ke_lost = 0.5 * float(delta @ M @ delta) - float(Ct @ nu)
        residual = float(np.abs(Cq @ qd + Ct).max()) if len(enforced) else 0.0
        by_name = {name: impulses[sl].copy() for name, sl in self.named}
        return ImpactResult(t=self.t, q=self.q if q is None else np.asarray(q, dtype=float), qd_minus=v0, qd=qd,
                            rows=enforced, impulses=impulses, constraint_impulses=by_name,
                            generalized_impulse=-Cq.T @ nu, ke_before=ke_before, ke_after=ke_after, ke_lost=ke_lost,
                            residual=residual, position_residual=self.position_residual, Cq=self.Cq_all,
                            system=self.system)


def _enforced_rows(system, rows) -> np.ndarray:
    """Sorted indices of the rows to enforce: all, or those named by ``rows`` and the
    Euler-parameter normalization rows."""
    m = system.nc
    if rows is None:
        return np.arange(m)
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
        raise ValueError(f"rows: must be None or a sequence of constraint names, constraints and row "
                         f"indices, got {rows!r}")
    chosen = []
    for item in rows:
        if isinstance(item, (bool, np.bool_)):
            raise ValueError(f"rows: {item!r} is not a row index (a bool)")
        if isinstance(item, (int, np.integer)):
            if not 0 <= item < m:
                raise ValueError(f"rows: row index {item} is not one of the system's {m} rows")
            chosen.append(int(item))
        elif isinstance(item, str) or hasattr(item, "name"):
            name = item if isinstance(item, str) else item.name
            if not isinstance(name, str):
                raise ValueError(f"rows: {item!r} is neither a constraint, its name nor a row index")
            sl = system.rows(name)  # ValueError naming an unknown constraint
            chosen.extend(range(sl.start, sl.stop))
        else:
            raise ValueError(f"rows: {item!r} is neither a constraint, its name nor a row index")
    labels = system.constraint_labels
    seen = set()
    for k in chosen:
        if k in seen:
            raise ValueError(f"rows: row {labels[k]} is given twice")
        seen.add(k)
    for c in system.constraints:
        if isinstance(c, EulerParameterNorm):
            sl = system.rows(c.name)
            seen.update(range(sl.start, sl.stop))
    return np.array(sorted(seen), dtype=int)


def _check_independent(system, Cq, enforced, t) -> None:
    """``RedundantConstraintError`` naming the first enforced row that depends on the rows
    before it (singular values of the enforced Jacobian, then the first rank drop)."""
    if not len(enforced):
        return
    tol = RANK_TOL * max(1.0, float(np.abs(Cq).max()))
    if np.linalg.svd(Cq, compute_uv=False).min() >= tol:
        return
    labels = system.constraint_labels
    for k in range(len(enforced)):
        if np.linalg.svd(Cq[: k + 1], compute_uv=False).min() < tol:
            raise RedundantConstraintError(
                f"impact at t={t:.6g} s: constraint row {labels[enforced[k]]} is linearly dependent on the "
                f"enforced rows before it (Jacobian rank {k} after {k + 1} rows)")
