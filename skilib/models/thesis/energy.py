"""Where the push-off work goes, and the power a speed needs against friction and drag alone.

``power_breakdown``  per stroke (and for the periodic stroke of ``steady_state``): the push-off
                     work split into the kinetic energy lost at the change of ski that ends the
                     stroke, the potential energy lost with the pose reset at that change (the
                     CM drops from ℓ(T) cos γ(T) to ℓ0 cos γ0, eqs. 187–188), the work taken by
                     friction (eqs. 171–178), drag and the leg drivers (C14–C17), the kinetic
                     energy stored from one stroke start to the next (zero in the steady state),
                     and a residual of the constraint stabilization and the integration.
``energy_account``   the periodic stroke's energy table, term by term (J per stroke, W, % of the
                     push work): the push work, each leg driver's work (C14, C15–C17) and the
                     scleronomic rows', friction, drag, the kinetic energy lost at the change of ski,
                     the potential energy dropped with the pose reset, the potential and kinetic
                     energy kept from one stroke start to the next, and the residual — every term
                     measured on its own, so the residual is the closure of the work–energy
                     theorem over a stroke and its change (the integrator's error).
``loss_ranking``     the measured ranking of causes: each loss mechanism switched off in turn at
                     the same push-off scale, and the steady state's speed and power.
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

import math

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from ...engine.validation import check_array, check_number
from ...strokes.params import slope_factors
from .params import SkierParams

__all__ = ["downhill_speed", "BREAKDOWN_TERMS", "ACCOUNT_TERMS", "power_breakdown", "energy_account", "loss_ranking", "resistance_power",
           "power_balance_speed"]

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
    - drivers: −W_drivers: the work the leg drivers C14–C17 absorb (outside the terms, split:
      leg_extension = −W_C14 and leg_rotation = −W_C15–17; ``energy_account`` has every term)
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
                         balance=float(s["work_push"]) - total, leg_extension=-float(s["work_leg_extension"]),
                         leg_rotation=-float(s["work_leg_rotation"]), ke_end=float(s["ke_end"]),
                         ke_before_change=float(ch["ke_before"]), mean_speed=float(s["mean_speed"]),
                         period=res.params.phase_time))
    return pd.DataFrame(rows)


#: the rows of ``energy_account`` after the push work: (key, label); each is energy taken from the
#: push per stroke [J] (negative: supplied), and they add up to the push work with the residual
ACCOUNT_TERMS = (
    ("leg_extension", "leg-extension driver C14 (eq. 187)"),
    ("leg_rotation", "leg-rotation driver C15–C17 (eq. 188)"),
    ("joints", "scleronomic rows C1–C13 (ski line and heading, ankle, knee)"),
    ("friction", "friction (eqs. 171–178)"),
    ("drag", "air drag"),
    ("ke_loss_change", "kinetic energy lost at the change of ski"),
    ("pe_loss_reset", "potential energy dropped with the pose reset"),
    ("pe_change", "potential energy change, stroke start to next start"),
    ("ke_stored", "kinetic energy stored, stroke start to next start"),
    ("projection", "kinetic energy removed by the projections"),
    ("residual", "residual: push work − Σ terms above (the closure)"),
)


def energy_account(steady) -> pd.DataFrame:
    """Where the push-off work of the periodic stroke goes: one row per term, in J per stroke,
    W (J per stroke ÷ T) and % of the push work; ``attrs["closure"]`` = |residual| / W_push.

    ``steady`` is a ``SteadyState`` (``steady_state``, or ``Calibration.steady``).  Over one stroke
    and the change of ski that ends it (``steady.change_after``), from the state at τ = 0 to the
    next stroke's state at τ = 0, the work–energy theorem reads

        W_push = −W_C14 − W_C15–17 − W_C1–13 − W_friction − W_drag + (KE⁻ − KE⁺) + (PE⁻ − PE⁺)
                 + ΔPE + ΔKE − W_projection,

    with every work integrated exactly as a state of the stroke's ODE (``skilib.strokes.work``):
    the push F·Ṙ³ (eqs. 179–181), the leg's extension driver C14 (power λ·C_t = F_leg ℓ̇,
    eq. 187), its rotation driver C15–C17 (eq. 188), the scleronomic rows C1–C13 (zero for exact
    constraints; Baumgarte's drift only), Coulomb friction (eqs. 171–178) and air drag; KE⁻ − KE⁺
    and PE⁻ − PE⁺ are the kinetic energy lost at the change of ski and the potential energy
    dropped when the next stroke starts from the short vertical leg ℓ0, γ0 (the CM falls from
    ℓ(T) cos γ(T) to ℓ0 cos γ0, eqs. 187–188); ΔPE, ΔKE are the changes from one stroke start to
    the next (zero in the steady state on the flat; on a course rising at α along X, ``slope_deg``,
    the potential energy is m g (z cos α + x sin α) and ΔPE is the climb, M g sin α per metre
    along X).  Each term is measured on its own (energies from the
    states, works from the integrals), so the ``residual`` row, W_push minus the sum of the
    others, is the closure of the theorem: the integration error, not a fitted rest.  Rows
    (``ACCOUNT_TERMS``) count energy taken from the push (negative: supplied, as the
    leg-extension driver does).

    Columns: term (key), label, J (per stroke), W (J ÷ T), percent (of W_push).
    ``ValueError`` naming ``steady`` if it is not a ``SteadyState``.
    """
    from .run import potential_energy
    from .steady import SteadyState, change_after

    if not isinstance(steady, SteadyState):
        raise ValueError(f"steady: must be a SteadyState (steady_state or Calibration.steady), got "
                         f"{type(steady).__name__}")
    res = steady.result
    s = res.strokes.iloc[0]
    ch = change_after(res)
    model = res.models[0]
    n = model.nq
    start = res.frame.iloc[0]
    q0 = start[[f"q{j}" for j in range(n)]].to_numpy(float)
    # the next stroke's start: the change's new pose (stroke_change), its PE from the same bodies
    pe_start = potential_energy(model, q0)
    pe_end = potential_energy(model, res.frame.iloc[-1][[f"q{j}" for j in range(n)]].to_numpy(float))
    pe_next = pe_end - float(ch["pe_loss"])
    terms = dict(
        leg_extension=-float(s["work_leg_extension"]), leg_rotation=-float(s["work_leg_rotation"]),
        joints=-float(s["work_joints"]), friction=-float(s["work_friction"]), drag=-float(s["work_drag"]),
        ke_loss_change=float(ch["ke_loss"]), pe_loss_reset=float(ch["pe_loss"]), pe_change=pe_next - pe_start,
        ke_stored=float(ch["ke_after"]) - float(s["ke_start"]), projection=-float(s["projection_energy"]),
    )
    terms = {k: v + 0.0 for k, v in terms.items()}  # a term that is −0.0 (no drag: −(0.0)) reads 0.0
    push = float(s["work_push"])
    terms["residual"] = push - sum(terms.values())
    T = res.params.phase_time
    labels = dict(ACCOUNT_TERMS)
    rows = [dict(term="work_push", label="push-off work W_push (eqs. 179–181)", J=push)]
    rows += [dict(term=k, label=labels[k], J=v) for k, v in terms.items()]
    out = pd.DataFrame(rows)
    out["W"] = out["J"] / T
    out["percent"] = 100.0 * out["J"] / push
    out.attrs["closure"] = abs(terms["residual"]) / abs(push)
    out.attrs["period"] = T
    return out


#: the switches of ``loss_ranking``: key -> (what is switched off, how)
RANKING_SWITCHES = ("friction", "air_drag", "gravity", "leg_extension", "leg_rotation", "change_keeps_speed",
                    "pose_reset")


def loss_ranking(cal, *, switches=RANKING_SWITCHES) -> pd.DataFrame:
    """Each loss mechanism switched off in turn at the calibration's push-off scale: the steady
    state's speed along the course (mean Ẋ³), mean CM speed |Ṙ³| and mean push power F·Ṙ³, and
    their changes against the baseline (``cal.steady``), one row per switch.

    ``cal`` is a ``Calibration`` (``calibrate_force_scale``); its params, force scale and run
    keywords are kept, and one thing is changed per row:

    - friction: μ = 0 (``SkierParams.friction``, eqs. 171–178)
    - air_drag: drag off (``SkierParams.air_drag``); the thesis has none (§5.3), so with the
      default parameters there is nothing to switch off and the row says so
    - gravity: g = 0 (``SkierParams.gravity``): no lift of the CM during the stroke and nothing
      dropped with the pose reset at the change (eqs. 187–188)
    - leg_extension: C_ext = 0 (eq. 187: the leg keeps ℓ0)
    - leg_rotation: C_rot = 0 (eq. 188: the leg stays at γ0)
    - change_keeps_speed: the change of ski keeps the CM's speed (``stroke_change='speed_kept'``)
      instead of absorbing its velocity across the new ski (``'along_ski'``)
    - pose_reset: not a switch of this model: every stroke starts from ℓ0, γ0 (eqs. 187–188
      restart at τ = 0); keeping the end pose would let ℓ and γ grow from stroke to stroke out
      of the leg's reach.  The row says so and measures nothing.

    A switched-off state without a periodic stroke (``NoSteadyState``, or a stroke the model
    refuses) is a row with NaN speeds and the reason in ``outcome``.  Columns: switch, setting,
    progress_speed, mean_speed, mean_power, u0, outcome, their changes d_progress_speed,
    d_mean_speed (relative) and d_mean_power (W), and rank (1: the largest gain of speed along
    the course when switched off; none for the baseline and the rows that measure nothing).
    A mechanism the baseline does not have (friction 0, no gravity, no air drag) is not measured
    either.  ``ValueError`` naming ``cal`` or ``switches``.
    """
    from dataclasses import replace

    from ...strokes.periodic import NoSteadyState
    from .calibrate import Calibration
    from .steady import steady_state

    if not isinstance(cal, Calibration):
        raise ValueError(f"cal: must be a Calibration (calibrate_force_scale), got {type(cal).__name__}")
    if isinstance(switches, str) or not all(k in RANKING_SWITCHES for k in switches):
        raise ValueError(f"switches: must be a sequence of {RANKING_SWITCHES}, got {switches!r}")
    params = cal.params if cal.params is not None else SkierParams()
    kw = {**cal.run_kwargs, "force_scale": cal.force_scale}
    base = cal.steady

    def measured(st):
        s = st.strokes.iloc[0]
        return dict(progress_speed=float(s["progress_speed"]), mean_speed=st.mean_speed, mean_power=st.mean_power,
                    u0=st.u0)

    rows = [dict(switch="baseline", setting=f"calibrated push-off × {cal.force_scale:.6g}", **measured(base),
                 outcome="steady state")]
    plans = {
        "friction": ("μ = 0", dict(params=replace(params, friction=0.0)) if params.friction > 0 else None),
        "air_drag": ("air drag off", dict(params=replace(params, air_drag=False)) if params.air_drag else None),
        "gravity": ("g = 0 (no lift, nothing dropped at the reset)",
                    dict(params=replace(params, gravity=False)) if params.gravity and params.g > 0 else None),
        "leg_extension": ("C_ext = 0", dict(c_ext=0.0)),
        "leg_rotation": ("C_rot = 0", dict(c_rot_deg=0.0)),
        "change_keeps_speed": ("stroke_change = 'speed_kept'", dict(stroke_change="speed_kept")),
        "pose_reset": ("keep the end pose at the change", None),
    }
    why_not = {"friction": "not measured: the baseline has no friction (params.friction 0)",
               "gravity": "not measured: the baseline has no gravity (params.gravity False or g 0)",
               "air_drag": "not measured: the baseline has no air drag (params.air_drag False, as the thesis, §5.3)",
               "pose_reset": "not a switch of this model: every stroke starts from ℓ0, γ0 (eqs. 187–188); keeping "
                             "the end pose would let ℓ and γ grow out of the leg's reach"}
    for key in switches:
        setting, change = plans[key]
        if change is None:
            rows.append(dict(switch=key, setting=setting, outcome=why_not[key]))
            continue
        p = change.pop("params", params)
        try:
            st = steady_state(p, u0_guess=base.u0, **{**kw, **change})
        except (NoSteadyState, ValueError, RuntimeError) as exc:  # no periodic stroke within reach
            rows.append(dict(switch=key, setting=setting, outcome=f"no steady state ({str(exc).split(': ', 1)[-1]})"))
            continue
        rows.append(dict(switch=key, setting=setting, **measured(st), outcome="steady state"))
    out = pd.DataFrame(rows, columns=["switch", "setting", "progress_speed", "mean_speed", "mean_power", "u0",
                                      "outcome"])
    b = out.iloc[0]
    out["d_progress_speed"] = out["progress_speed"] / b["progress_speed"] - 1.0
    out["d_mean_speed"] = out["mean_speed"] / b["mean_speed"] - 1.0
    out["d_mean_power"] = out["mean_power"] - b["mean_power"]
    # rank 1: the switch that gains the most speed along the course (the costliest mechanism);
    # the baseline and the rows that measure nothing are not ranked
    ranked = out.index[1:][out["d_progress_speed"].iloc[1:].notna().to_numpy()]
    order = out.loc[ranked, "d_progress_speed"].rank(ascending=False, method="min")
    out["rank"] = pd.Series(order, dtype="Int64").reindex(out.index)
    return out


def _resistance(params, friction, cda, air_density):
    """(F, ½ ρ C_dA) from ``params`` and the overrides, each checked (finite, >= 0): F = F_μ +
    (m + m_s) g sin α, the friction force and the slope's pull on the skier and the ski
    (α = ``params.slope_deg``; exactly F_μ on the flat, < 0 downhill where the slope pulls harder
    than friction)."""
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
    sin_a = slope_factors(p.slope_deg)[0]
    if sin_a != 0.0:  # the climbing force; nothing added on the flat, so its numbers stay bit for bit
        F += p.total_mass * p.g * sin_a
    k = 0.5 * (p.air_density if air_density is None else air_density) * (p.cda if cda is None else cda)
    return F, k


def resistance_power(speed, params: SkierParams | None = None, *, friction=None, cda=None, air_density=None):
    """P = F_μ v + ½ ρ C_dA v³ + (m + m_s) g sin α · v [W]: friction, air drag and the climb at a
    steady speed v [m/s] on a course rising at α = ``params.slope_deg`` along X (0, the flat, by
    default: no climbing term).

    F_μ = μ m g is the constant friction force (default ``params.friction``, the thesis's
    5.305 N of table 8; the thesis's friction is a constant force, so it does not change with
    the slope), ρ and C_dA default to ``params.air_density`` and ``params.cda``
    (1.2 kg/m³, 0.55 m²; Spring et al. 1988 measured 0.65 m² upright).  ``cda=0`` leaves
    friction alone.  ``speed`` is a number or an array of finite numbers (a negative speed
    gives −P: skiing backwards); F_μ, C_dA and ρ finite and >= 0.

    >>> round(float(resistance_power(2.47, friction=5.305, cda=0.55, air_density=1.2)), 2)
    18.08
    """
    F, k = _resistance(params, friction, cda, air_density)
    v = check_array("speed", speed)
    return F * v + k * v ** 3


def downhill_speed(P, F, k):
    """The positive root v of F v + k v³ = P for F < 0 (a slope that pulls harder than friction):
    one root ≥ √(−F/k) (below it F v + k v³ ≤ 0 ≤ P); none without drag (k = 0: a ValueError
    naming ``params``)."""
    if k == 0.0:
        raise ValueError(f"params: downhill steeper than friction (F = {F:.6g} N < 0) with no air drag: the "
                         "skier accelerates without end, there is no steady speed")
    a = math.sqrt(-F / k)
    if P == 0.0:
        return a
    b = (P / k) ** (1.0 / 3.0)
    return brentq(lambda v: F * v + k * v ** 3 - P, a, (a + b) * (1 + 1e-12) + 1e-12, xtol=1e-14, rtol=1e-15)


def power_balance_speed(power, params: SkierParams | None = None, *, friction=None, cda=None, air_density=None):
    """The steady speed v [m/s] with ``resistance_power(v) = power`` (the power balance of
    van Ingen Schenau et al. 1990 and Moxnes et al. 2014 at constant speed, with the climb on a
    course rising at ``params.slope_deg``); P is increasing in v where it is positive, so the root
    is unique (downhill steeper than friction, the root above √(−F/k), ``downhill_speed``).
    Arrays are solved element by element.

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
        if F < 0:  # downhill, the slope pulling harder than friction
            return downhill_speed(float(p), F, k)
        if p == 0:
            return 0.0
        hi = p / F if F > 0 else (p / k) ** (1 / 3)
        return brentq(lambda v: F * v + k * v ** 3 - p, 0.0, hi * (1 + 1e-12) + 1e-12, xtol=1e-14, rtol=1e-15)

    out = np.vectorize(one, otypes=[float])(P)
    return float(out) if out.ndim == 0 else out
