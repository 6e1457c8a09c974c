"""The edged skater's parameters and its laws of a stroke (book: The edged skater).

Stance on side s (+1 right, −1 left), τ ∈ [0, T] the time in the stroke, σ the smoothstep of
``skilib.strokes.laws``::

    heading       ψ(τ) = s(−a/2 + Δψ σ(τ/T))     (as the free skater's)
    fore–aft      x_f(τ) = x_f                    (the CM over the binding by default)
    leg           ℓ(τ) = ℓ0 + Δℓ σ(τ/T)           (its length across the ski's axis)

Where the foot lands, two ways (a technique chooses one):

- **the landing offset** (``leg_start`` None, the default): the new ski lands ``landing_offset``
  d0 outside the centre of mass, so ℓ0 = √(d0² + z_B²) follows from the CM's height z_B at
  touch-down, and the periodic stroke sets that height;
- **the crouch** (``leg_start`` ℓs set): the new leg lands ℓs long, bent as the skater chooses, and
  the ski lands where a leg that long reaches from the CM's height, d0 = √(ℓs² − z_B²); ℓ0 = ℓs
  at every touch-down, and the periodic stroke sets d0 instead.  The first stroke of a run
  starts with the leg ℓs long and the ski ``landing_offset`` outside, the CM at √(ℓs² − d0²)
  (``cm_height`` is not used).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

from ...strokes.params import check_fields
from ...strokes.poles import POLE_PARAMETER_BOUNDS, check_poles
from ...physiology.cost import PHYSIOLOGY_BOUNDS, PHYSIOLOGY_DEFAULTS

__all__ = ["EdgeSkaterParams", "EdgeLaws", "EDGE_PARAMETER_BOUNDS", "with_edge_overrides"]

#: the plausible range [low, high] (inclusive, SI units) of every number of ``EdgeSkaterParams``;
#: a value outside is refused by name.  As the free skater's (``skilib.models.free.params``)
#: where the names agree; the others:
#:
#: - landing_offset 0–0.6 m: the new ski lands beside the centre of mass, at most a long step
#:   outside it (at 0 the leg stands vertical and nothing tips the body).
#: - leg_extension −0.3–0.5 m: the leg's change of length across the ski over a stroke; a knee
#:   and hip extend it by a few tenths of a metre at most.
#: - max_leg_length 0.6–1.3 m: the longest the leg may get, from the binding to the centre of
#:   mass (≈ 0.55 of the stature plus a little, ≈ 1.0–1.1 m for an adult).
#: - fore_aft −0.3–0.3 m: the centre of mass ahead of (+) or behind the binding along the ski.
#: - cm_height 0.4–1.3 m: the centre of mass's height at the first touch-down of a run.
#: - leg_start 0.3–1.3 m (or None): the leg's length at every touch-down, from the binding to the
#:   centre of mass, when the crouch, not the landing offset, places the foot (module docstring).
#: - max_lean_deg 10–85°: the largest edging angle (the leg's lean from the vertical) admitted.
#: - slope_deg −45–45° (open: |α| < 45°), as the free skater's: the course's inclination.
#: - eta_positive 0.05–1, eta_negative 0.1–5, as the free skater's: the muscles' efficiencies.
#: - eta_positive_arms, swing_cost_a, swing_cost_b, force_rate_cost, resting_rate, as the free
#:   skater's: the physiology of the whole cost (``skilib.physiology.PHYSIOLOGY_BOUNDS``).
#: - pole_force_max 0–1000 N, pole_start 0–3 s, pole_contact_time 0.01–3 s, as the free
#:   skater's: the poles (``skilib.strokes.poles``); pole_start + pole_contact_time ≤ stroke_time.
EDGE_PARAMETER_BOUNDS = {
    "body_mass": (20.0, 200.0), "ski_mass": (0.2, 5.0), "stroke_time": (0.2, 3.0),
    "skating_angle_deg": (1.0, 120.0), "steer_deg": (-45.0, 45.0), "landing_offset": (0.0, 0.6),
    "leg_extension": (-0.3, 0.5), "max_leg_length": (0.6, 1.3), "fore_aft": (-0.3, 0.3), "cm_height": (0.4, 1.3), "leg_start": (0.3, 1.3),
    "max_lean_deg": (10.0, 85.0), "friction_coefficient": (0.0, 0.3), "air_density": (0.3, 2.0),
    "cda": (0.05, 2.0), "g": (1.0, 30.0), "ski_length": (0.5, 3.0), "ski_width": (0.02, 0.2),
    "ski_height": (0.005, 0.2), "body_inertia": (0.01, 100.0), "slope_deg": (-45.0, 45.0),
    "eta_positive": (0.05, 1.0), "eta_negative": (0.1, 5.0), **PHYSIOLOGY_BOUNDS, **POLE_PARAMETER_BOUNDS,
}


@dataclass(frozen=True)
class EdgeSkaterParams:
    """Every parameter of the edged skater, with its default (book: The edged skater).

    body_mass M [kg], ski_mass m_s [kg], stroke_time T [s], skating_angle_deg a (between the
    skis at touch-down; 20° by default: much wider, the CM's velocity, which follows the old ski,
    meets the new edge so obliquely that the impact throws the skater into an inward lean it
    cannot recover from), steer_deg Δψ, landing_offset d0 [m] (the new ski lands d0 outside the
    CM), leg_extension Δℓ [m], max_leg_length ℓ_max [m], fore_aft x_f [m], cm_height [m] (the
    CM's height at a run's first touch-down), max_lean_deg (the largest lean admitted),
    friction_coefficient μ, air_drag, air_density ρ, cda C_dA, g; the ski's box and the body's
    principal inertias (they change the drivers' torques, not the motion); slope_deg α [°], the
    course's inclination, rising along X, the direction of travel (default 0, the flat; α < 0
    downhill; gravity is g(−sin α, 0, −cos α) in the course frame, book: The edged skater);
    eta_positive η⁺ (0.25) and eta_negative η⁻ (1.2), the muscles' efficiencies of positive and
    negative work, conventional values: the cost of work of the drivers (leg, fore–aft,
    heading), metabolic_power = Σ(W⁺/η⁺ + |W⁻|/η⁻)/T (they change no motion); the physiology of the whole cost (``skilib.physiology``, which cites each default; they
    change no motion): eta_positive_arms (the arms' η⁺ on the poles), swing_cost_a [W/kg] and
    swing_cost_b [W/(kg Hz⁴)] (swinging the legs), force_rate_cost [J/N] (developing force),
    resting_rate [W/kg]; pole_force_max
    F_p,max [N] per pole (0, the default: no poles), pole_start t_p [s], pole_contact_time t_c [s]:
    the poles' push F_p,max sin²(π(τ − t_p)/t_c) (``skilib.strokes.poles``); leg_start ℓs [m]
    (None, the default: the ski lands ``landing_offset`` outside the CM): the leg's length at
    every touch-down, the crouch, which then places the foot (the module's docstring).

    Every number must lie in ``EDGE_PARAMETER_BOUNDS``; the leg must reach at the first
    touch-down, √(d0² + cm_height²) + max(Δℓ, 0) ≤ ℓ_max (with ``leg_start``: d0 < ℓs, the first
    ski within the leg's length; a run refuses ℓs + max(Δℓ, 0) > ℓ_max at its start, and the
    optimizer holds it by its reach margin), and the ski must point forwards at the end of the
    stroke (|a/2 − Δψ| < 90°).  Anything else raises ValueError naming the field.
    """

    body_mass: float = 75.0
    ski_mass: float = 1.5
    stroke_time: float = 0.8
    skating_angle_deg: float = 20.0
    steer_deg: float = 10.0
    landing_offset: float = 0.20
    leg_extension: float = 0.10
    max_leg_length: float = 1.05
    fore_aft: float = 0.0
    cm_height: float = 0.90
    max_lean_deg: float = 60.0
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
    leg_start: float | None = None

    def __post_init__(self):
        check_fields(self, EDGE_PARAMETER_BOUNDS, optional=("leg_start",))
        for name, (lo, hi) in EDGE_PARAMETER_BOUNDS.items():
            v = getattr(self, name)
            if name == "leg_start" and v is None:
                continue
            if name != "body_inertia" and not lo <= v <= hi:
                raise ValueError(f"{name}: {v!r} is outside the plausible range [{lo:g}, {hi:g}] (see "
                                 "skilib.models.edge.params.EDGE_PARAMETER_BOUNDS)")
        if self.leg_start is not None:
            if not self.landing_offset < self.leg_start:
                raise ValueError(f"landing_offset: the first ski lands {self.landing_offset:g} m outside the CM, not "
                                 f"within the leg's length at touch-down, leg_start = {self.leg_start:g} m")
            # the reach, ℓs + Δℓ ≤ ℓ_max in every stroke, is a run's to refuse at its first touch-down
            # (``EdgeSkating.start``) and an optimizer's margin: a technique beside it stays constructible
        else:
            reach = self.leg_length_at(self.cm_height) + max(self.leg_extension, 0.0)
            if reach > self.max_leg_length:
                raise ValueError(f"max_leg_length: the leg would reach {reach:.4g} m in the first stroke (landing_offset "
                                 f"{self.landing_offset:g} m, cm_height {self.cm_height:g} m, leg_extension "
                                 f"{self.leg_extension:g} m), beyond max_leg_length = {self.max_leg_length:g} m")
        end = self.skating_angle_deg / 2 - self.steer_deg
        if not abs(end) < 90.0:
            raise ValueError(f"steer_deg: the ski would end the stroke {abs(end):g}° off the direction of travel; it "
                             "must still point forwards, within 90°")
        check_poles(self)

    @property
    def weight(self) -> float:
        return self.body_mass * self.g

    def leg_length_at(self, cm_height: float) -> float:
        """ℓ0 = √(d0² + z_B²) [m]: the leg's length across the ski at touch-down when the centre
        of mass is at height z_B and the new ski lands d0 = ``landing_offset`` outside it."""
        return math.hypot(self.landing_offset, cm_height)

    def crouch_offset(self, z_b: float) -> float:
        """d0 = √(ℓs² − z_B²) [m]: where the ski lands, with ``leg_start`` ℓs, when the centre of mass
        is z_B high (z_B < ℓs: the caller refuses a CM above the leg's length)."""
        return math.sqrt(self.leg_start ** 2 - z_b ** 2)

    def first_height(self) -> float:
        """The CM's height at a run's first touch-down [m]: ``cm_height``, or with ``leg_start``
        √(ℓs² − d0²) (the leg ℓs long, the ski d0 outside)."""
        if self.leg_start is None:
            return self.cm_height
        return math.sqrt(self.leg_start ** 2 - self.landing_offset ** 2)


class EdgeLaws(NamedTuple):
    """The laws of a right-ski stroke as time functions of τ with two derivatives (each
    ``law(τ) -> (f, ḟ, f̈)``): ``heading`` ψ [rad] (a left stroke mirrors it) and ``leg`` ℓ [m],
    the leg's length across the ski.  The params' laws (the module's docstring) unless a model
    is given others: an optimal-control transcription leaves both open
    (``skilib.engine.controls.ControlLaw``).  ``pole`` (with poles): each pole's push [N] while
    planted, a ``skilib.strokes.poles.PolePush``; None: the params' sin² push."""

    heading: object
    leg: object
    pole: object = None


def with_edge_overrides(params: EdgeSkaterParams | None, **over) -> EdgeSkaterParams:
    """``params`` (default ``EdgeSkaterParams()``) with the given fields replaced (validated)."""
    p = EdgeSkaterParams() if params is None else params
    if not isinstance(p, EdgeSkaterParams):
        raise ValueError(f"params: must be an EdgeSkaterParams, got {type(p).__name__}")
    return replace(p, **{k: v for k, v in over.items() if v is not None})
