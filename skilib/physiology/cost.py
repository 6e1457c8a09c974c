"""The metabolic cost of a skating stroke: what a skier pays besides the work (chapter
*Choosing a technique*).

A stroke of duration T costs, in watts,

    P_met = P_work + P_swing + P_rate + P_rest

- **work** (Margaria 1968; the cost every model already counts, ``skilib.strokes.work``):
  P_work = Σ_a (W⁺_a/η⁺_a + |W⁻_a|/η⁻)/T over the actuators a, with η⁺ = ``eta_positive`` for
  the legs' drivers and η⁺ = ``eta_positive_arms`` for the poles (the arms).  The arms' default
  is the legs' 0.25: no measurement separates the arms' muscle efficiency from the legs' in
  skiing (the gross efficiencies with and without poles, 14.9 % and 13.5 % in G3 at 5 %,
  Sandbakk, Ettema & Holmberg 2013, are whole-body figures).
- **swinging the legs** (Doke, Donelan & Kuo 2005, *J Exp Biol* 208:439): swinging one leg
  costs, net of rest, 0.41 W/kg of body mass at 0.5 Hz and 2.10 W/kg at 1.1 Hz, growing with
  f⁴.  The two points fix c(f) = a + b f⁴ (``swing_fit``: a = 0.335 W/kg, b = 1.206 W/(kg Hz⁴)).
  In skating each leg swings once per cycle of two strokes, f = 1/(2T), and both legs swing:
  P_swing = 2 M (a + b f⁴).  Assumed: the swing's amplitude is that of Doke's protocol (the
  models have no swinging leg whose amplitude could say otherwise).
- **developing force** (van der Zee & Kuo 2021, *J Exp Biol* 224:jeb233965): cyclic knee
  torque of 22 N m at 2.5 Hz cost 46.8 W net, of which 40 % was the force-rate cost: 18.7 W
  for 22 N m × 2.5 Hz = 55 N m/s of rising torque, 0.340 J per N m of torque developed.  A leg
  force F along the hip–foot line makes a knee torque F d; d = 0.16 m, the knee's distance from
  that line at a leg length of 1.0 m with thigh and shank of 0.525 m each (√(0.525² − 0.5²)),
  gives 0.340 × 0.16 = 0.0545 J per newton of leg force developed (``force_rate_cost``).
  P_rate = c_r Σ_f R_f/T, R_f = ∫ max(Ḟ_f, 0) dτ the force developed over the stroke by the
  pushing leg and by each pole (its rise from zero at touch-down or at the plant included).
  Assumed: the linear force-rate cost (the cost per cycle proportional to the force developed),
  and the arms' push at the leg's coefficient per newton (no arm measurement).
- **resting metabolism**: 1 MET = 3.5 mL O₂ kg⁻¹ min⁻¹ (Jetté, Sidney & Blümchen 1990,
  *Clin Cardiol* 13:555) at 20.1 J per mL O₂ is 1.17 W/kg: P_rest = M × ``resting_rate``, so that
  the gross efficiency (the actuators' net work over the whole cost) is the measured one's kind
  (14–17 %, Sandbakk, Hegge & Ettema 2013).

No default is fitted to a skating result: each comes from the source named beside it.
``PHYSIOLOGY_BOUNDS`` gives the range each may be set in (a model's params hold them).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["DOKE_2005", "swing_fit", "SWING_A", "SWING_B", "KNEE_FORCE_RATE_COST", "KNEE_MOMENT_ARM",
           "FORCE_RATE_COST", "RESTING_RATE",
           "PHYSIOLOGY_DEFAULTS", "PHYSIOLOGY_BOUNDS", "PHYSIOLOGY_COLUMNS", "swing_power", "force_developed",
           "physiological_cost"]

#: Doke, Donelan & Kuo (2005): the net cost of swinging one leg [W per kg of body mass] at two
#: frequencies [Hz], the ends of their measured range
DOKE_2005 = ((0.5, 0.41), (1.1, 2.10))


def swing_fit(points=DOKE_2005) -> tuple[float, float]:
    """(a, b) of c(f) = a + b f⁴ through two (f [Hz], c [W/kg]) points."""
    (f1, c1), (f2, c2) = points
    b = (c2 - c1) / (f2**4 - f1**4)
    return c1 - b * f1**4, b


#: a [W/kg] and b [W/(kg Hz⁴)] of one leg's swing through Doke's two points
SWING_A = swing_fit()[0]
SWING_B = swing_fit()[1]
#: van der Zee & Kuo (2021): 40 % of 46.8 W for 22 N m × 2.5 Hz of rising knee torque [J/(N m)]
KNEE_FORCE_RATE_COST = 0.40 * 46.8 / (22.0 * 2.5)
#: the knee's distance from the hip–foot line [m] at a leg length of 1.0 m, thigh = shank = 0.525 m
KNEE_MOMENT_ARM = math.sqrt(0.525**2 - 0.5**2)
#: the cost of developing a newton of leg (or pole) force [J/N]
FORCE_RATE_COST = KNEE_FORCE_RATE_COST * KNEE_MOMENT_ARM
#: 1 MET: 3.5 mL O₂ per kg and minute at 20.1 J per mL [W/kg]
RESTING_RATE = 3.5 * 20.1 / 60.0

#: the physiology fields of a skating model's params and their defaults
PHYSIOLOGY_DEFAULTS = {"eta_positive_arms": 0.25, "swing_cost_a": SWING_A, "swing_cost_b": SWING_B,
                       "force_rate_cost": FORCE_RATE_COST, "resting_rate": RESTING_RATE}
#: their plausible ranges (inclusive): an efficiency 0.05–1 as the legs'; the swing's constant
#: 0–5 W/kg and its f⁴ coefficient 0–20 W/(kg Hz⁴) (Doke's fit: 0.33 and 1.2), the force-rate
#: cost 0–1 J/N (the fit: 0.055), the resting rate 0–5 W/kg (1 MET: 1.17); 0 switches a term off
PHYSIOLOGY_BOUNDS = {"eta_positive_arms": (0.05, 1.0), "swing_cost_a": (0.0, 5.0), "swing_cost_b": (0.0, 20.0),
                     "force_rate_cost": (0.0, 1.0), "resting_rate": (0.0, 5.0)}

#: the columns ``physiological_cost`` adds to a stroke's row [W, except the efficiency]
PHYSIOLOGY_COLUMNS = ("metabolic_work", "metabolic_swing", "metabolic_force_rate", "metabolic_rest",
                      "metabolic_total", "gross_efficiency_total")

def swing_power(stroke_time: float, body_mass: float, a: float = SWING_A, b: float = SWING_B) -> float:
    """Both legs swinging once per cycle of two strokes: 2 M (a + b f⁴), f = 1/(2T) [W]."""
    f = 1.0 / (2.0 * stroke_time)
    return 2.0 * body_mass * (a + b * f**4)


def force_developed(force, tau=None) -> float:
    """∫ max(Ḟ, 0) dτ over a stroke from a force's samples [N]: its first value (the rise from
    zero when the push begins) plus every rise between samples, each interior extreme of the
    samples refined to the vertex of the parabola through it and its two neighbours (at times
    ``tau``; default a uniform grid).  A smooth peak between two samples is then missed by
    O(h³) of the force's third derivative, not O(h²), and the result moves smoothly with the
    force (an optimizer's finite differences see no jitter as a peak slides along the grid)."""
    F = np.asarray(force, dtype=float)
    if F.ndim != 1 or F.size == 0:
        raise ValueError(f"force: must be a non-empty series of samples, got shape {F.shape}")
    if not np.all(np.isfinite(F)):
        raise ValueError("force: samples must be finite")
    t = np.arange(F.size, dtype=float) if tau is None else np.asarray(tau, dtype=float)
    if t.shape != F.shape or not np.all(np.diff(t) > 0):
        raise ValueError(f"tau: must be increasing times, one per sample ({F.size}), got shape {t.shape}")
    d = np.diff(F)
    rise = max(F[0], 0.0) + float(np.sum(np.maximum(d, 0.0)))
    for i in np.flatnonzero((d[:-1] > 0) & (d[1:] < 0)) + 1:  # a peak: the rise into it reaches the vertex
        rise += _vertex(t[i - 1:i + 2], F[i - 1:i + 2]) - F[i]
    for i in np.flatnonzero((d[:-1] < 0) & (d[1:] > 0)) + 1:  # a trough: the rise out of it starts lower
        rise += F[i] - _vertex(t[i - 1:i + 2], F[i - 1:i + 2])
    return float(rise)


def _vertex(t, y) -> float:
    """The extreme value of the parabola through three points (t increasing)."""
    h1, h2 = t[1] - t[0], t[2] - t[1]
    s0, s2 = (y[0] - y[1]) / h1, (y[2] - y[1]) / h2
    alpha = (s2 + s0) / (h1 + h2)
    beta = s2 - alpha * h2
    return float(y[1] - beta * beta / (4.0 * alpha))


def physiological_cost(works: dict, actuators, forces: dict, stroke_time: float, params, arms=(),
                       tau=None) -> dict:
    """The physiological cost of one stroke (module docstring), as the row's columns
    ``PHYSIOLOGY_COLUMNS`` [W]:

    - works : ``work_<a>_positive`` and ``work_<a>_negative`` [J] of each actuator ``a``
      (``skilib.strokes.work``); actuators : their names; arms : those of them that are the
      arms (the poles' works, at ``eta_positive_arms``);
    - forces : {name: the force's samples over the stroke [N]} of the pushing leg and of each
      pole, at the times ``tau`` (``force_developed``);
    - params : a skating model's params (body_mass, eta_positive, eta_negative and the
      ``PHYSIOLOGY_DEFAULTS`` fields).

    gross_efficiency_total is the actuators' net work over the whole cost, Σ(W⁺ + W⁻)/(P_met T)."""
    T, p = stroke_time, params
    met, net = 0.0, 0.0
    for a in actuators:  # the order and the arithmetic of ``cost_of_work``: equal with equal η⁺
        wp, wn = float(works[f"{a}_positive"]), float(works[f"{a}_negative"])
        eta = p.eta_positive_arms if a in arms else p.eta_positive
        met += wp / eta + abs(wn) / p.eta_negative
        net += wp + wn
    work = met / T
    swing = swing_power(T, p.body_mass, p.swing_cost_a, p.swing_cost_b)
    rate = p.force_rate_cost * sum(force_developed(F, tau) for F in forces.values()) / T
    rest = p.body_mass * p.resting_rate
    total = work + swing + rate + rest
    return dict(metabolic_work=work, metabolic_swing=swing, metabolic_force_rate=rate, metabolic_rest=rest,
                metabolic_total=total, gross_efficiency_total=net / (total * T) if total > 0 else math.nan)
