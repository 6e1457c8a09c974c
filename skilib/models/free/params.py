"""The free skater's parameters and its laws of a stroke (book: The free skater).

Stance on side s (+1 right, −1 left), τ ∈ [0, T] the time in the stroke, σ the smoothstep of
``skilib.strokes.laws``::

    heading            ψ(τ) = s(−a/2 + Δψ σ(τ/T))
    lateral offset     h(τ) = s(h0 + (h1 − h0)(τ/T)^p)   (the centre of mass towards the inside)
    height             z(τ) = z̄ − Δz sin²(πτ/T)

Any other law is a ``FreeLaws`` of time functions with two derivatives.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ...engine.timefunctions import TimeFunction
from ...strokes.params import check_fields
from ...strokes.poles import POLE_PARAMETER_BOUNDS, check_poles
from ...strokes.laws import dip, power_law, smooth_turn
from ...physiology.cost import PHYSIOLOGY_BOUNDS, PHYSIOLOGY_DEFAULTS

__all__ = ["FreeSkaterParams", "FreeLaws", "default_laws", "with_overrides", "MAX_REACH", "PARAMETER_BOUNDS",
           "MAX_LEG_FORCE_BW"]

#: how far the centre of mass may be from the ski's origin [m] (a leg's reach; larger is refused)
MAX_REACH = 1.3

#: the plausible range [low, high] (inclusive, SI units as in the field list) of every number of
#: ``FreeSkaterParams``; a value outside is refused by name.  The reasons:
#:
#: - body_mass 20–200 kg: a child on skis to the heaviest adult (elite skiers weigh 60–90 kg).
#: - ski_mass 0.2–5 kg: a skate ski with its binding (and the boot, ≈ 1–2 kg in all) carried by
#:   the stance leg.
#: - stroke_time 0.2–3 s: one leg's push and glide lasts ≈ 0.5–1.5 s in V1 and V2 skating
#:   (cycle rates of ≈ 0.5–0.9 Hz; the thesis's phases are 0.7–1.4 s, its table 7); below 0.2 s
#:   the prescribed laws move the centre of mass at tens of g (at 1 ms: a leg force of 1e5 body
#:   weights), above 3 s a stroke is a glide on one ski, not skating.
#: - skating_angle_deg 1–120°: the V between the skis is ≈ 20–40° on the flat and wider uphill;
#:   120° (each ski 60° off the direction of travel) is beyond the steepest herringbone.  At 0°
#:   the skis are parallel and nothing pushes.
#: - steer_deg −45–45°: the ski turns inwards by a few to ≈ 20° during a stroke; ±45° is a
#:   quarter turn each way.  The ski must still point forwards at the end of the stroke,
#:   |a/2 − Δψ| < 90° (checked beside).
#: - offset_start, offset_end −0.3–1.2 m: the centre of mass up to 0.3 m outside the ski (a leg
#:   leaning out) and inside it as far as the leg reaches (``MAX_REACH``, checked beside with the
#:   height: at z̄ = 0.95 m that is 0.89 m).
#: - offset_exponent 1–8: the offset h ∝ (τ/T)^p; p < 1 would start the centre of mass with an
#:   infinite sideways velocity, p > 8 puts the whole shift into the stroke's last tenth.
#: - cm_height 0.4–1.3 m: the centre of mass of a standing adult is ≈ 0.55 of the stature
#:   (0.9–1.1 m), a child's or a deep crouch's lower; higher than a leg's reach is refused.
#: - cm_dip 0–0.4 m: a knee bend lowers the centre of mass by at most ≈ 0.3–0.4 m (and the dip
#:   must leave it above the snow: Δz < z̄, checked beside).
#: - friction_coefficient 0–0.3: ski on snow is μ ≈ 0.02–0.1 (wet or very cold snow at the top);
#:   0 is the frictionless check, 0.3 a wide margin.
#: - air_density 0.3–2 kg/m³: 1.2 at sea level, ≈ 0.9 at 3000 m, ≈ 1.5 at −40 °C.
#: - cda 0.05–2 m²: a skier's drag area is ≈ 0.2–0.6 m² (crouched to upright).
#: - g 1–30 m/s²: the Earth's 9.78–9.83 with room for thought experiments (the Moon's 1.6).
#: - ski_length 0.5–3 m, ski_width 0.02–0.2 m, ski_height 0.005–0.2 m: a skate ski is
#:   1.7–1.95 m long, 4–5 cm wide and 2–3 cm thick (the box gives the ski's inertia only).
#: - body_inertia 0.01–100 kg m² each: a 75 kg body's principal inertias are ≈ 11–13 kg m² about
#:   the horizontal axes and ≈ 1.5 about the vertical (they change the drivers' torques, not the
#:   motion); each must also be at most the sum of the other two, as for every rigid body.
#: - slope_deg −45–45° (open: |α| < 45°): the course's inclination, rising along X; World Cup
#:   climbs reach ≈ 15–20° (``skilib.strokes.params.SLOPE_RANGE``).
#: - eta_positive 0.05–1, eta_negative 0.1–5: a muscle turns ≈ 0.25 of its metabolic energy into
#:   positive work and absorbs negative work at ≈ 1/1.2 of it (conventional values); positive
#:   work cannot be done at more than 100 % efficiency, and 0.05 and 5 are wide margins.
#: - eta_positive_arms, swing_cost_a, swing_cost_b, force_rate_cost, resting_rate: the physiology
#:   of the whole cost (``skilib.physiology.PHYSIOLOGY_BOUNDS``, with the reasons).
#: - pole_force_max 0–1000 N, pole_start 0–3 s, pole_contact_time 0.01–3 s: the poles
#:   (``skilib.strokes.poles.POLE_PARAMETER_BOUNDS``, with the reasons); the contact must end
#:   within the stroke, pole_start + pole_contact_time ≤ stroke_time (checked beside).
PARAMETER_BOUNDS = {
    "body_mass": (20.0, 200.0), "ski_mass": (0.2, 5.0), "stroke_time": (0.2, 3.0),
    "skating_angle_deg": (1.0, 120.0), "steer_deg": (-45.0, 45.0), "offset_start": (-0.3, 1.2),
    "offset_end": (-0.3, 1.2), "offset_exponent": (1.0, 8.0), "cm_height": (0.4, 1.3), "cm_dip": (0.0, 0.4),
    "friction_coefficient": (0.0, 0.3), "air_density": (0.3, 2.0), "cda": (0.05, 2.0), "g": (1.0, 30.0),
    "ski_length": (0.5, 3.0), "ski_width": (0.02, 0.2), "ski_height": (0.005, 0.2), "body_inertia": (0.01, 100.0),
    "slope_deg": (-45.0, 45.0), "eta_positive": (0.05, 1.0), "eta_negative": (0.1, 5.0), **PHYSIOLOGY_BOUNDS,
    **POLE_PARAMETER_BOUNDS,
}

#: the largest leg force a run accepts, in body weights M g (``simulate_free``'s
#: ``max_leg_force_bw``): measured leg forces in skating peak at ≈ 1.5–2.5 body weights, and the
#: largest a human leg bears (landing from a jump) are ≈ 5–10; within the optimum's bounds
#: (``skilib.models.free.technique.FREE_BOUNDS``) the model stays below 4.  The cap plays the part of
#: the thesis's skier's bound on its push-off (``skilib.models.thesis.push.MAX_PUSH_BODY_WEIGHTS``).
MAX_LEG_FORCE_BW = 10.0


@dataclass(frozen=True)
class FreeSkaterParams:
    """Every parameter of the free skater, with its default (book: The free skater).

    body_mass M [kg], ski_mass m_s [kg], stroke_time T [s], skating_angle_deg a (the V-angle
    between the skis at touch-down), steer_deg Δψ (the ski's inward turn during a stroke),
    offset_start h0 and offset_end h1 [m] (the centre of mass's lateral offset towards the
    inside), offset_exponent p, cm_height z̄ and cm_dip Δz [m], friction_coefficient μ,
    air_drag, air_density ρ [kg/m³], cda CdA [m²], g [m/s²]; the ski's box and the body's
    principal inertias about its sagittal (x), frontal (y) and vertical (z) axes [kg m²] (they
    change the drivers' torques, not the motion); slope_deg α [°], the course's inclination, rising
    along X, the direction of travel (default 0, the flat; α < 0 downhill; gravity is
    g(−sin α, 0, −cos α) in the course frame, book: The free skater); eta_positive η⁺ (0.25) and
    eta_negative η⁻ (1.2), the muscles' efficiencies of positive and negative work, conventional
    values: the cost of work of the drivers (leg, heading), metabolic_power =
    Σ(W⁺/η⁺ + |W⁻|/η⁻)/T (they change no motion); the physiology of the whole cost (``skilib.physiology``, which cites each default; they
    change no motion): eta_positive_arms (the arms' η⁺ on the poles), swing_cost_a [W/kg] and
    swing_cost_b [W/(kg Hz⁴)] (swinging the legs), force_rate_cost [J/N] (developing force),
    resting_rate [W/kg]; pole_force_max F_p,max [N] per pole (0, the
    default: no poles), pole_start t_p [s] and pole_contact_time t_c [s]: the poles' push
    F_p,max sin²(π(τ − t_p)/t_c) while their tips are in the snow (``skilib.strokes.poles``).

    Every number must lie in its plausible range, ``PARAMETER_BOUNDS`` (with the reasons; e.g.
    stroke_time 0.2–3 s, skating_angle_deg 1–120°, body_mass 20–200 kg, friction_coefficient
    0–0.3), and the geometry must hold: the centre of mass within a leg's reach of the ski
    (``MAX_REACH``), above the snow (cm_dip < cm_height) and the ski pointing forwards at the end
    of the stroke.  Anything else (a bool or a string for a number, NaN, inf, a value outside its
    range) raises ValueError naming the field.
    """

    body_mass: float = 75.0
    ski_mass: float = 1.5
    stroke_time: float = 0.8
    skating_angle_deg: float = 40.0
    steer_deg: float = 10.0
    offset_start: float = 0.05
    offset_end: float = 0.35
    offset_exponent: float = 2.0
    cm_height: float = 0.95
    cm_dip: float = 0.05
    friction_coefficient: float = 0.02
    air_drag: bool = True
    air_density: float = 1.2
    cda: float = 0.55
    g: float = 9.81
    ski_length: float = 1.90
    ski_width: float = 0.045
    ski_height: float = 0.03
    body_inertia: tuple = (11.0, 12.0, 1.5)
    slope_deg: float = 0.0
    eta_positive: float = 0.25
    eta_negative: float = 1.2
    eta_positive_arms: float = PHYSIOLOGY_DEFAULTS["eta_positive_arms"]
    swing_cost_a: float = PHYSIOLOGY_DEFAULTS["swing_cost_a"]
    swing_cost_b: float = PHYSIOLOGY_DEFAULTS["swing_cost_b"]
    force_rate_cost: float = PHYSIOLOGY_DEFAULTS["force_rate_cost"]
    resting_rate: float = PHYSIOLOGY_DEFAULTS["resting_rate"]
    pole_force_max: float = 0.0
    pole_start: float = 0.0
    pole_contact_time: float = 0.30

    def __post_init__(self):
        check_fields(self, PARAMETER_BOUNDS)
        # the ranges, the offsets' last: for them the leg's reach (with the height) says more
        ranged = [n for n in PARAMETER_BOUNDS if n != "body_inertia" and n not in POLE_PARAMETER_BOUNDS]
        for name in sorted(ranged, key=lambda n: n in ("offset_start", "offset_end")):
            if name in ("offset_start", "offset_end"):
                reach = math.hypot(getattr(self, name), self.cm_height)
                if reach > MAX_REACH:
                    raise ValueError(f"{name}: the centre of mass would be {reach:.3g} m from the ski, beyond a "
                                     f"leg's reach ({MAX_REACH} m)")
            lo, hi = PARAMETER_BOUNDS[name]
            v = getattr(self, name)
            if not lo <= v <= hi:
                raise ValueError(f"{name}: {v!r} is outside the plausible range [{lo:g}, {hi:g}] (see "
                                 "skilib.models.free.params.PARAMETER_BOUNDS)")
        if not self.cm_dip < self.cm_height:
            raise ValueError(f"cm_dip: must be below cm_height ({self.cm_height} m), got {self.cm_dip}")
        end = self.skating_angle_deg / 2 - self.steer_deg
        if not abs(end) < 90.0:
            raise ValueError(f"steer_deg: the ski would end the stroke {abs(end):g}° off the direction of travel "
                             f"(skating_angle_deg/2 − steer_deg = {end:g}°); it must still point forwards, within "
                             "90°")
        check_poles(self)  # the poles' ranges, with the contact within the stroke

    @property
    def weight(self) -> float:
        return self.body_mass * self.g


@dataclass(frozen=True)
class FreeLaws:
    """The laws of a right-ski stroke as time functions of τ with two derivatives (each
    ``law(τ) -> (f, ḟ, f̈)``): ``heading`` ψ [rad], ``offset`` h [m] (towards the inside,
    along the ski's left normal n), ``height`` z [m].  A left stroke mirrors heading and
    offset.  ``pole`` (with poles): each pole's push [N] while planted, a
    ``skilib.strokes.poles.PolePush``; None: the params' sin² push."""

    heading: TimeFunction
    offset: TimeFunction
    height: TimeFunction
    pole: object = None

    def __post_init__(self):
        for name in ("heading", "offset", "height"):
            law = getattr(self, name)
            if not isinstance(law, TimeFunction):
                raise ValueError(f"laws.{name}: must be a time function with its two derivatives "
                                 f"(Polynomial, FromCallables, ...), got {law!r}")


def default_laws(p: FreeSkaterParams) -> FreeLaws:
    """The default laws (book: The free skater): a smooth inward steer, a lateral offset
    growing as (τ/T)^p, and a sinking and rising centre of mass."""
    T = p.stroke_time
    return FreeLaws(smooth_turn(-math.radians(p.skating_angle_deg) / 2, math.radians(p.steer_deg), T),
                    power_law(p.offset_start, p.offset_end, T, p.offset_exponent),
                    dip(p.cm_height, p.cm_dip, T))


def with_overrides(params: FreeSkaterParams | None, **over) -> FreeSkaterParams:
    """``params`` (default ``FreeSkaterParams()``) with the given fields replaced (validated);
    ``params`` itself where none is (a frozen dataclass, checked when it was built)."""
    p = FreeSkaterParams() if params is None else params
    if not isinstance(p, FreeSkaterParams):
        raise ValueError(f"params: must be a FreeSkaterParams, got {type(p).__name__}")
    over = {k: v for k, v in over.items() if v is not None}
    return replace(p, **over) if over else p
