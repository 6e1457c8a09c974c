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
from dataclasses import dataclass, fields, replace

import numpy as np

from ...engine.timefunctions import TimeFunction
from ...engine.validation import check_bool, check_number
from ...strokes.laws import dip, power_law, smooth_turn

__all__ = ["FreeSkaterParams", "FreeLaws", "default_laws", "with_overrides", "MAX_REACH"]

#: how far the centre of mass may be from the ski's origin [m] (a leg's reach; larger is refused)
MAX_REACH = 1.3


@dataclass(frozen=True)
class FreeSkaterParams:
    """Every parameter of the free skater, with its default (book: The free skater).

    body_mass M [kg], ski_mass m_s [kg], stroke_time T [s], skating_angle_deg a (the V-angle
    between the skis at touch-down), steer_deg Δψ (the ski's inward turn during a stroke),
    offset_start h0 and offset_end h1 [m] (the centre of mass's lateral offset towards the
    inside), offset_exponent p, cm_height z̄ and cm_dip Δz [m], friction_coefficient μ,
    air_drag, air_density ρ [kg/m³], cda CdA [m²], g [m/s²]; the ski's box and the body's
    principal inertias about its sagittal (x), frontal (y) and vertical (z) axes [kg m²] (they
    change the drivers' torques, not the motion).
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

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "air_drag":
                object.__setattr__(self, f.name, check_bool(f.name, v))
            elif f.name == "body_inertia":
                a = np.asarray(v, dtype=float) if not isinstance(v, str) else None
                if a is None or a.shape != (3,) or not np.all(np.isfinite(a)) or not np.all(a > 0):
                    raise ValueError(f"body_inertia: must be three positive inertias [kg m²], got {v!r}")
                object.__setattr__(self, f.name, tuple(float(x) for x in a))
            elif f.name in ("steer_deg", "cm_dip", "friction_coefficient", "offset_start", "offset_end"):
                object.__setattr__(self, f.name, check_number(f.name, v))
            else:
                object.__setattr__(self, f.name, check_number(f.name, v, positive=True))
        if not 0 < self.skating_angle_deg < 180:
            raise ValueError(f"skating_angle_deg: must be between 0 and 180 degrees, got {self.skating_angle_deg}")
        if self.friction_coefficient < 0:
            raise ValueError(f"friction_coefficient: must be >= 0, got {self.friction_coefficient}")
        if not 0 <= self.cm_dip < self.cm_height:
            raise ValueError(f"cm_dip: must be >= 0 and below cm_height ({self.cm_height} m), got {self.cm_dip}")
        for name in ("offset_start", "offset_end"):
            reach = math.hypot(getattr(self, name), self.cm_height)
            if reach > MAX_REACH:
                raise ValueError(f"{name}: the centre of mass would be {reach:.3g} m from the ski, beyond a leg's "
                                 f"reach ({MAX_REACH} m)")

    @property
    def weight(self) -> float:
        return self.body_mass * self.g


@dataclass(frozen=True)
class FreeLaws:
    """The laws of a right-ski stroke as time functions of τ with two derivatives (each
    ``law(τ) -> (f, ḟ, f̈)``): ``heading`` ψ [rad], ``offset`` h [m] (towards the inside,
    along the ski's left normal n), ``height`` z [m].  A left stroke mirrors heading and
    offset."""

    heading: TimeFunction
    offset: TimeFunction
    height: TimeFunction

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
    """``params`` (default ``FreeSkaterParams()``) with the given fields replaced (validated)."""
    p = FreeSkaterParams() if params is None else params
    if not isinstance(p, FreeSkaterParams):
        raise ValueError(f"params: must be a FreeSkaterParams, got {type(p).__name__}")
    return replace(p, **{k: v for k, v in over.items() if v is not None})
