"""Where the push-off work goes, and the power a speed needs against friction and drag alone.

``power_breakdown``  per stroke (and for the periodic stroke of ``steady_state``): the push-off
                     work split into the kinetic energy lost at the change of ski that ends the
                     stroke, the potential energy lost with the pose reset at that change (the
                     CM drops from ℓ(T) cos γ(T) to ℓ0 cos γ0, eqs. 187–188), the work taken by
                     friction (eqs. 171–178), drag and the leg drivers (C14–C17), the kinetic
                     energy stored from one stroke start to the next (zero in the steady state),
                     and a residual of the constraint stabilization and the integration.
``resistance_power`` P = F_μ v + ½ ρ C_dA v³, the power that friction and air drag take at a
                     steady speed v: the power balance of van Ingen Schenau, de Koning and de
                     Groot (1990, *Med Sci Sports Exerc* 22:718) and Moxnes, Sandbakk and Hausken
                     (2014, *Open Access J Sports Med* 5:89) without the kinetic-energy term,
                     with F_μ = μ m g the thesis's constant friction force (table 8's mean).
``power_balance_speed``  its inverse: the steady speed a mean power buys against friction and
                     drag alone (no energy lost at the changes of ski), the baseline the
                     multibody model's speed–power curve is drawn against.
"""
from __future__ import annotations


import numpy as np
import pandas as pd
from scipy.optimize import brentq

from ...engine.validation import check_array, check_number
from .params import SkierParams

__all__ = ["BREAKDOWN_TERMS", "power_breakdown", "resistance_power", "power_balance_speed"]

#: the terms of ``power_breakdown`` that add up to the push-off work, in stacking order
BREAKDOWN_TERMS = ("ke_loss_change", "pe_loss_reset", "friction", "drag", "drivers", "ke_stored", "residual")


def power_breakdown(result) -> pd.DataFrame:
    """Where each stroke's push-off work goes [J per stroke], one row per stroke.

    ``result`` is a ``SimResult`` (any stroke-change rule) or a ``SteadyState`` (its periodic
    stroke).  Every stroke is followed by a change of ski: the run's own (``changes``), or for
    the last stroke the change the run would make next (``steady.change_after``).  Columns:

    - work_push: W_push, the push-off's work over the stroke (integrated power F·Ṙ³)
    - ke_loss_change: KE⁻ − KE⁺ at the following change (``changes.ke_loss``)
    - pe_loss_reset: Σ mᵢ g Δzᵢ lost with the pose reset at that change (``changes.pe_loss``)
    - friction, drag: −W_friction, −W_drag (integrated works)
    - drivers: −W_drivers: the work the leg drivers C14–C17 absorb
    - ke_stored: KE at the start of the next stroke − KE at the start of this one
    - residual: −(W_joints + projection + ΔKE − ΣW) + (−W_gravity − pe_loss_reset): the
      work of the scleronomic joints under Baumgarte stabilization, the
      projections' energy, the work–energy residual of ``energy_balance`` and the
      mismatch between the integrated gravity work and the potential energy
      dropped at the change (all at the integrator's tolerance)
    - balance: work_push − Σ(terms): zero when the change's energies join the strokes'
      (KE⁻ of the change = KE at the stroke's end) — the test of this function
    - mean_speed, period: the stroke's mean CM speed [m/s] and T [s] (J per stroke / T = W)
    """
    from .steady import change_after

    res = getattr(result, "result", result)
    st = res.strokes.set_index("stroke")
    eb = res.energy_balance().set_index("stroke")
    changes = res.changes.set_index("stroke")
    rows = []
    n = len(st)
    for k in st.index:
        ch = changes.loc[k + 1] if k < n else pd.Series(change_after(res))
        s = st.loc[k]
        terms = dict(
            ke_loss_change=float(ch["ke_loss"]), pe_loss_reset=float(ch["pe_loss"]),
            friction=-float(s["work_friction"]), drag=-float(s["work_drag"]), drivers=-float(s["work_drivers"]),
            ke_stored=float(ch["ke_after"] - s["ke_start"]),
            residual=-float(s["work_joints"] + s["projection_energy"] + eb.loc[k, "residual"])
            + (-float(s["work_gravity"]) - float(ch["pe_loss"])),
        )
        total = sum(terms.values())
        rows.append(dict(stroke=int(k), work_push=float(s["work_push"]), **terms,
                         balance=float(s["work_push"]) - total, ke_end=float(s["ke_end"]),
                         ke_before_change=float(ch["ke_before"]), mean_speed=float(s["mean_speed"]),
                         period=res.params.phase_time))
    return pd.DataFrame(rows)


def _resistance(params, friction, cda, air_density):
    """(F_μ, ½ ρ C_dA) from ``params`` and the overrides, each checked (finite, >= 0)."""
    if params is not None and not isinstance(params, SkierParams):
        raise ValueError(f"params: must be a SkierParams or None, got {params!r}")
    p = SkierParams() if params is None else params
    if friction is not None:
        check_number("friction", friction, nonnegative=True, unit="N")
    if cda is not None:
        check_number("cda", cda, nonnegative=True, unit="m²")
    if air_density is not None:
        check_number("air_density", air_density, nonnegative=True, unit="kg/m³")
    F = p.friction if friction is None else float(friction)
    k = 0.5 * (p.air_density if air_density is None else air_density) * (p.cda if cda is None else cda)
    return F, k


def resistance_power(speed, params: SkierParams | None = None, *, friction=None, cda=None, air_density=None):
    """P = F_μ v + ½ ρ C_dA v³ [W]: friction and air drag at a steady speed v [m/s].

    F_μ = μ m g is the constant friction force (default ``params.friction``, the thesis's
    5.305 N of table 8), ρ and C_dA default to ``params.air_density`` and ``params.cda``
    (1.2 kg/m³, 0.55 m²; Spring et al. 1988 measured 0.65 m² upright).  ``cda=0`` leaves
    friction alone.  ``speed`` is a number or an array of finite numbers (a negative speed
    gives −P: skiing backwards); F_μ, C_dA and ρ finite and >= 0.

    >>> round(float(resistance_power(2.47, friction=5.305, cda=0.55, air_density=1.2)), 2)
    18.08
    """
    F, k = _resistance(params, friction, cda, air_density)
    v = check_array("speed", speed)
    return F * v + k * v ** 3


def power_balance_speed(power, params: SkierParams | None = None, *, friction=None, cda=None, air_density=None):
    """The steady speed v [m/s] with ``resistance_power(v) = power`` (the power balance of
    van Ingen Schenau et al. 1990 and Moxnes et al. 2014 at constant speed); P is increasing in
    v, so the root is unique.  Arrays are solved element by element.

    >>> round(float(power_balance_speed(18.08, friction=5.305, cda=0.55, air_density=1.2)), 2)
    2.47
    """
    F, k = _resistance(params, friction, cda, air_density)
    P = check_array("power", power)
    if np.any(P < 0):
        raise ValueError(f"power: must be finite and >= 0 W, got {power!r}")

    if F == 0 and k == 0 and np.any(P > 0):
        raise ValueError(f"friction, cda: with no friction and no drag no power is taken at any steady speed; "
                         f"power {power!r} W buys no finite speed")

    def one(p):
        if p == 0:
            return 0.0
        hi = p / F if F > 0 else (p / k) ** (1 / 3)
        return brentq(lambda v: F * v + k * v ** 3 - p, 0.0, hi * (1 + 1e-12) + 1e-12, xtol=1e-14, rtol=1e-15)

    out = np.vectorize(one, otypes=[float])(P)
    return float(out) if out.ndim == 0 else out
