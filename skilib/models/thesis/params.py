"""Parameters of the thesis's skier (tables 6–9, eqs. 147–159, 187–188) and the rules that
place a stroke: which ski, its heading, the plane in which the leg turns.

The modelling decisions behind the defaults (body frames, the V-angle reading of the
skating angle, the push plane) are written in the book's chapters "The skier model" and
"Differences from the thesis".
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields

import numpy as np

from ...engine.timefunctions import Polynomial
from ...strokes.laws import SIDES, linear, side_of
from ...strokes.params import check_slope
from ...engine.validation import check_bool, check_choice, check_number

__all__ = ["SkierParams", "BOUNDS", "ski_heading", "push_plane_direction", "ANGLE_CONVENTIONS",
           "PUSH_DIRECTIONS"]

ANGLE_CONVENTIONS = ("v_angle", "from_x")
PUSH_DIRECTIONS = ("travel", "ski", "across")

#: the plausible range [low, high] of every number of ``SkierParams`` (inclusive, SI units
#: as in the field list).  Far outside a human skier (a 1e10 kg skier, a 1 km leg) the
#: integrator would grind for minutes before failing; such values are refused by name.
#: The physical conditions (leg reach, leg angle, skating angle) are checked beside.  slope_deg
#: is an open range, |α| < 45° (``skilib.strokes.params.SLOPE_RANGE``).
BOUNDS = {
    "mass": (1.0, 500.0), "lower_leg": (1e-3, 5.0), "upper_leg": (1e-3, 5.0), "ski_mass": (1e-3, 50.0),
    "ski_length": (1e-2, 10.0), "ski_width": (1e-3, 1.0), "ski_height": (1e-3, 1.0),
    "shank_mass_fraction": (0.0, 1.0), "ankle_offset": (0.0, 5.0), "friction": (0.0, 1e4), "g": (0.0, 100.0),
    "air_density": (0.0, 100.0), "cda": (0.0, 100.0), "leg_extension0": (0.0, 10.0), "c_ext": (-100.0, 100.0),
    "leg_angle0_deg": (-90.0, 90.0), "c_rot_deg": (-1e4, 1e4), "phase_time": (0.0, 100.0),
    "skating_angle_deg": (-180.0, 180.0), "slope_deg": (-45.0, 45.0),
}


@dataclass(frozen=True)
class SkierParams:
    """Every parameter of the skier model (book: The skier model, Parameters), with the thesis's defaults.

    Skier and equipment
        ===========================================  =================================================================
        mass                                         M, skier mass without the ski [kg] (table 6)
        lower_leg, upper_leg                         L2, L3 [m] (table 6)
        ski_mass, ski_length, ski_width, ski_height  the ski box (ours; eqs. 147–149)
        shank_mass_fraction                          m2 / M (anthropometric shank fraction, ours)
        ankle_offset                                 l1, shank origin → ankle along the leg [m]; None → L2/2 (eq. 120)
        ===========================================  =================================================================

    External forces
        ==========================  ======================================================
        friction                    constant Coulomb friction magnitude [N] (table 8 mean)
        gravity, g                  gravity on/off and its magnitude [m/s²]
        slope_deg                   α [deg], the course's inclination, rising along X (the
                                    direction of travel; default 0, the flat of the thesis;
                                    α < 0 downhill): gravity g(−sin α, 0, −cos α) in the
                                    course frame, whose z is normal to the snow
        air_drag, air_density, cda  drag ½ ρ CdA |v| v at the CM (off by default, §5.3)
        ==========================  ======================================================

    Prescribed leg motion (one active phase of duration T)
        ==============  ===============================================================
        leg_extension0  ℓ0, ankle → CM distance at τ = 0 [m] (eq. 187)
        c_ext           C_ext [m/s]: ℓ(τ) = ℓ0 + C_ext τ (eq. 187)
        leg_angle0_deg  γ0, leg inclination from vertical at τ = 0 [deg] (eq. 188)
        c_rot_deg       C_rot [deg/s]: γ(τ) = γ0 + C_rot τ (eq. 188)
        phase_time      T [s] (table 7)
        push_direction  horizontal direction d the leg leans towards: 'travel' (global
                        X, default), 'ski' (the ski's heading), 'across' (normal to the
                        ski, towards the other ski)
        ==============  ===============================================================

    Skating angle
        =================  ============================================================
        skating_angle_deg  the tables' skating angle [deg]
        angle_convention   'v_angle' (default): the angle between the skis, each ski at
                           ±angle/2 from X; 'from_x': each ski at ±angle from X
        =================  ============================================================

    Defaults of the phase parameters are table 9's long run (T = 1 s, 50°, C_ext = 0.2 m/s,
    C_rot = 22.5 °/s).  Non-physical values raise ValueError naming the field: a bool or
    a string where a number is expected, NaN, inf, and numbers outside ``BOUNDS`` (e.g.
    mass in [1, 500] kg, ski_mass ≤ 50 kg, friction ≤ 10 kN, phase_time ≤ 100 s).
    """

    mass: float = 75.0
    lower_leg: float = 0.4
    upper_leg: float = 0.5
    ski_mass: float = 1.5
    ski_length: float = 1.90
    ski_width: float = 0.045
    ski_height: float = 0.03
    shank_mass_fraction: float = 0.0465
    ankle_offset: float | None = None
    friction: float = 5.305
    gravity: bool = True
    g: float = 9.81
    air_drag: bool = False
    air_density: float = 1.2
    cda: float = 0.55
    leg_extension0: float = 0.5
    c_ext: float = 0.2
    leg_angle0_deg: float = 0.0
    c_rot_deg: float = 22.5
    phase_time: float = 1.0
    skating_angle_deg: float = 50.0
    angle_convention: str = "v_angle"
    push_direction: str = "travel"
    slope_deg: float = 0.0

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in ("gravity", "air_drag"):
                object.__setattr__(self, f.name, check_bool(f.name, v))
            elif f.name in ("angle_convention", "push_direction"):
                continue
            elif v is None and f.name == "ankle_offset":
                continue
            elif f.name == "slope_deg":  # an open range: |α| < 45°
                object.__setattr__(self, f.name, check_slope(v))
            else:  # a number: not a bool, a string, NaN or inf
                object.__setattr__(self, f.name, check_number(f.name, v))
        if self.angle_convention not in ANGLE_CONVENTIONS:
            raise ValueError(f"angle_convention: must be one of {ANGLE_CONVENTIONS}, got {self.angle_convention!r}")
        if self.push_direction not in PUSH_DIRECTIONS:
            raise ValueError(f"push_direction: must be one of {PUSH_DIRECTIONS}, got {self.push_direction!r}")
        for name in ("mass", "ski_mass", "lower_leg", "upper_leg", "ski_length", "ski_width",
                     "ski_height", "leg_extension0", "phase_time", "air_density"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}: must be > 0, got {getattr(self, name)!r}")
        for name in ("friction", "g", "cda"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}: must be >= 0, got {getattr(self, name)!r}")
        if not 0 < self.shank_mass_fraction < 1:
            raise ValueError(f"shank_mass_fraction: must be in (0, 1), got {self.shank_mass_fraction!r}")
        if self.ankle_offset is not None and not 0 < self.ankle_offset <= self.lower_leg:
            raise ValueError(
                f"ankle_offset: the ankle must lie on the shank, 0 < l1 <= L2 = {self.lower_leg}, "
                f"got {self.ankle_offset!r}")
        # each field in its own plausible range before the conditions that combine fields, so
        # that an absurd value (a 1e12 m leg) is named itself, not through the leg's reach
        for name, (lo, hi) in BOUNDS.items():
            v = getattr(self, name)
            if v is not None and not lo <= v <= hi:
                raise ValueError(f"{name}: {v!r} is outside the plausible range [{lo:g}, {hi:g}] "
                                 "(skilib.models.thesis.params.BOUNDS)")
        # Skating angle: both readings must leave each ski heading forward (|h| < 90°).
        hi = 180.0 if self.angle_convention == "v_angle" else 90.0
        if not 0 < self.skating_angle_deg < hi:
            raise ValueError(
                f"skating_angle_deg: must be in (0, {hi:g}) deg with angle_convention="
                f"{self.angle_convention!r}, got {self.skating_angle_deg!r}")
        # Leg extension: R³ = R¹ + ℓ u is the hip/CM on the leg axis, the shank runs from the
        # ankle (R¹) to the knee and the upper leg from the knee to the hip, so a two-segment
        # leg reaches ankle–hip distances |L2 − L3| <= ℓ <= L2 + L3 (triangle inequality).
        # ℓ is linear in τ, so checking τ = 0 and τ = T covers the phase.
        lo, top = abs(self.lower_leg - self.upper_leg), self.lower_leg + self.upper_leg
        tol = 1e-12 * top
        if not lo - tol <= self.leg_extension0 <= top + tol:
            raise ValueError(
                f"leg_extension0: ℓ0 = {self.leg_extension0} m is outside the leg's reach "
                f"[|L2 - L3|, L2 + L3] = [{lo:g}, {top:g}] m")
        lT = self.leg_extension0 + self.c_ext * self.phase_time
        if not lo - tol <= lT <= top + tol:
            raise ValueError(
                f"c_ext: the leg extension law reaches ℓ(T) = ℓ0 + C_ext·T = {lT:.6g} m, outside "
                f"the leg's reach [|L2 - L3|, L2 + L3] = [{lo:g}, {top:g}] m")
        # Leg angle: the hip must stay above the ankle (cos γ > 0) for the whole phase.
        if not -90.0 < self.leg_angle0_deg < 90.0:
            raise ValueError(f"leg_angle0_deg: γ0 must be in (-90, 90) deg, got {self.leg_angle0_deg!r}")
        gT = self.leg_angle0_deg + self.c_rot_deg * self.phase_time
        if not -90.0 < gT < 90.0:
            raise ValueError(
                f"c_rot_deg: the leg would reach γ(T) = γ0 + C_rot·T = {gT:.6g} deg; the leg "
                "must stay above the ski, |γ| < 90 deg")

    # -- derived quantities -------------------------------------------------------------
    @property
    def shank_mass(self) -> float:
        """m2 (an anthropometric shank fraction of M; the thesis gives none)."""
        return self.shank_mass_fraction * self.mass

    @property
    def body_mass(self) -> float:
        """m3 = M − m2: the upper leg carrying the rest of the body."""
        return self.mass - self.shank_mass

    @property
    def l1(self) -> float:
        """Shank origin → ankle distance (eq. 120; default L2/2)."""
        return 0.5 * self.lower_leg if self.ankle_offset is None else float(self.ankle_offset)

    @property
    def total_mass(self) -> float:
        """Skier plus ski [kg]."""
        return self.mass + self.ski_mass

    # -- the leg laws: the one place eqs. 187–188 are written ----------------------------
    # (built once per parameter set: a run asks for them at every output point; the parameters
    # are frozen, so the cached law cannot go stale)
    @functools.cached_property
    def leg_length_law(self) -> Polynomial:
        """ℓ(τ) = ℓ0 + C_ext τ [m] (eq. 187), a time function with its derivatives."""
        return linear(self.leg_extension0, self.c_ext)

    @functools.cached_property
    def leg_angle_law(self) -> Polynomial:
        """γ(τ) = γ0 + C_rot τ [rad] (eq. 188), the leg's inclination from the vertical."""
        return linear(math.radians(self.leg_angle0_deg), math.radians(self.c_rot_deg))

    def leg_length(self, tau):
        """ℓ(τ), ℓ̇, ℓ̈ (eq. 187)."""
        v, vd, vdd = self.leg_length_law(tau)
        return float(v), float(vd), float(vdd)

    def leg_angle(self, tau):
        """γ(τ), γ̇, γ̈ in radians (eq. 188)."""
        v, vd, vdd = self.leg_angle_law(tau)
        return float(v), float(vd), float(vdd)


def ski_heading(params: SkierParams, stroke: int, first_ski: str = "right"):
    """Heading h (rad, from global X, positive to the left) and side of stroke k = 0, 1, ….

    ⚑ (book: The skier model, Skating angle and stroke change): with 'v_angle' each ski heads ±(skating angle)/2 from X; with 'from_x'
    ±(skating angle).  The right ski points to the right (h < 0); strokes alternate.
    """
    if not isinstance(params, SkierParams):
        raise ValueError(f"params: must be a SkierParams, got {params!r}")
    first_ski = check_choice("first_ski", first_ski, SIDES)
    stroke = check_number("stroke", stroke, integer=True, nonnegative=True)
    half = params.skating_angle_deg / 2.0 if params.angle_convention == "v_angle" else params.skating_angle_deg
    side = side_of(first_ski, stroke)
    return (-1.0 if side == "right" else 1.0) * math.radians(half), side


def push_plane_direction(params: SkierParams, heading: float, side: str) -> np.ndarray:
    """Horizontal unit vector d of the plane in which the leg turns (C15–C17; book: The skier model).

    'travel': global X; 'ski': the ski's heading e; 'across': the ski's normal pointing to
    the other ski (the skier's weight goes inwards while the ski is pushed outwards).
    ``heading`` [rad] in [−π, π], ``side`` one of ``SIDES``.
    """
    if not isinstance(params, SkierParams):
        raise ValueError(f"params: must be a SkierParams, got {params!r}")
    heading = check_number("heading", heading, low=-math.pi, high=math.pi, unit="rad")
    side = check_choice("side", side, SIDES)
    e = np.array([math.cos(heading), math.sin(heading), 0.0])
    if params.push_direction == "travel":
        return np.array([1.0, 0.0, 0.0])
    if params.push_direction == "ski":
        return e
    inward = 1.0 if side == "right" else -1.0  # right ski: the left normal (+Y side)
    return inward * np.array([-e[1], e[0], 0.0])
