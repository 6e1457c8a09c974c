"""The plastic change of ski that skating models with a swing ski share.

Before touch-down the stance ski S (mass m_s, velocity Ṙ_s⁻, spin ω_s⁻) carries the body B
(mass M, velocity Ṙ_B⁻; B is held upright and does not turn).  The change is one plastic impact
of the whole system, in two steps:

1. Merge.  The old stance ski joins B in a perfectly inelastic merge that conserves momentum::

       (M + m_s) v_c = M Ṙ_B⁻ + m_s Ṙ_s⁻

   losing ΔT_merge = ½ M m_s/(M + m_s) |Ṙ_B⁻ − Ṙ_s⁻|² + ½ ω_s⁻ᵀ I_s ω_s⁻ ≥ 0 (König's
   theorem: the two masses' relative motion, and the ski's spin, which the merged body, held
   upright by B's posture drivers, cannot keep).
2. Split and project.  The new ski leaves the merged body with its velocity (Ṙ_s′ = Ṙ_B = v_c,
   no spin; free of cost), and the plastic impact of the new stance's rows
   (``skilib.engine.impact``) projects these velocities, mass-weighted, onto the rows:
   ΔT_proj = ½ΔᵀMΔ − Ctᵀν, ≥ 0 when the rows are at rest at the instant (Ct = 0).

KE lost at touch-down = ΔT_merge + ΔT_proj = T(B + old ski)⁻ − T(B + new ski)⁺.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine.impact import ImpactResult, ImpactSite

__all__ = ["PlasticChange", "plastic_change"]


@dataclass(frozen=True)
class PlasticChange:
    """The plastic change of ski (the module's docstring).

    - qd : q̇⁺ of the new stance's system (the impact's).
    - common_velocity : v_c [m/s], the merged body's velocity.
    - qd_split : q̇_c, the new ski and B both at v_c, neither turning (the projection's input).
    - ke_before : T⁻ of B and the old stance ski (its spin included) [J].
    - ke_merged : ½ (M + m_s)|v_c|² [J], after the merge (and the split).
    - ke_loss_merge, ke_loss_projection, ke_loss : the shares and the total T⁻ − T⁺ [J].
    - ke_after : T⁺ of B and the new stance ski [J].
    - impact : the ``ImpactResult`` (impulses ν, residual max|Cq q̇⁺ + Ct|, ...).
    """

    qd: np.ndarray
    common_velocity: np.ndarray
    qd_split: np.ndarray
    ke_before: float
    ke_merged: float
    ke_loss_merge: float
    ke_loss_projection: float
    ke_after: float
    ke_loss: float
    impact: ImpactResult


def plastic_change(old_system, q, qd, new_system, q_new, *, body_mass: float, ski_mass: float, ski: slice,
                   cm: slice, t: float = 0.0, site: ImpactSite | None = None,
                   energies: bool = True) -> PlasticChange:
    """The plastic change from the old stance (``old_system`` at q, q̇; the ski's coordinates
    ``ski``, B's position ``cm``, the same slices in both systems) to the new stance
    (``new_system`` at ``q_new``, its time ``t``): the merge, the split and the impact.

    ``site``: the new stance's impact prepared once (``skilib.engine.ImpactSite``) at a pose with
    the same mass matrix and rows as ``q_new`` (a stance whose rows see only relative positions,
    landed at a translation of its pose); None prepares it here at ``q_new``.  T⁺ is the new
    system's kinetic energy at (q_new, q̇⁺), the number the next stroke starts from.
    ``energies`` False: the kinetic energies before and after are NaN (not evaluated; q̇⁺ the
    same bits): for a stroke map, which reads only the next stroke's start."""
    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    M, ms = body_mass, ski_mass
    ke_before = old_system.kinetic_energy(q, qd) if energies else float("nan")
    v_c = (M * qd[cm] + ms * qd[ski][:3]) / (M + ms)
    ke_merged = 0.5 * (M + ms) * float(v_c @ v_c)
    qd_split = np.zeros(len(q_new))  # neither body turns: the angles' rates (or ṗ) are zero
    qd_split[ski.start: ski.start + 3], qd_split[cm] = v_c, v_c
    if site is None:
        site = ImpactSite(new_system, q_new, t=t)
    r = site.apply(qd_split, q=q_new)
    # T⁺ as the next stroke's start reads it (the system's kinetic energy at q_new): the site's
    # ½ q̇⁺ᵀ M q̇⁺ is M at the prepared pose, equal to rounding only
    ke_after = new_system.kinetic_energy(q_new, r.qd) if energies else float("nan")
    return PlasticChange(qd=r.qd, common_velocity=v_c, qd_split=qd_split, ke_before=ke_before, ke_merged=ke_merged,
                         ke_loss_merge=ke_before - ke_merged, ke_loss_projection=r.ke_lost, ke_after=ke_after,
                         ke_loss=ke_before - ke_after, impact=r)
