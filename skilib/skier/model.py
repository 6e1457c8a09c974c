"""The three-body skier of Bruzzo (2012), ch. 4–5, assembled from the engine's components.

Bodies (SPEC §3; thesis §4.2, eqs. 147–159)

    1  ski          box m1 × (length, width, height), long axis = body x̄
    2  shank        slender rod m2 = 0.0465 M, length L2, long axis = body x̄
    3  upper body   slender rod m3 = M − m2, length L3, long axis = body x̄;
                    its origin is the skier's centre of mass (CM)

Coordinates q = [R¹ φ¹ θ¹ ψ¹ | R² φ² θ² ψ² | R³ φ³ θ³ ψ³] (eq. 107), 18 in all; 17
constraint rows (eq. 146) leave one degree of freedom, s, the ski's travel along its line.

Rotation coordinates (issue 7).  ``rotation='zxz'`` (default) is the thesis's model above.
``rotation='euler_parameters'`` gives every body four Euler parameters instead
(q = [R¹ p¹ | R² p² | R³ p³], 21 coordinates; seed 002, eqs. 3.35–3.36): the bodies, body
frames, forces and constraint rows are the same, except that the ski's orientation
(C3–C5), which ZXZ holds by driving its three angles one by one, is held by one
orientation driver A¹ = Rz(h) (three rows, named ``ski_orientation``); the system adds
one normalization row pᵀp − 1 = 0 per body after all the model's rows (17 + 3 rows).
Both give the same motion; Euler parameters have no gimbal lock.

Body frames (SPEC §1, gimbal lock).  The thesis puts the legs' long axes on body z̄
(eqs. 120, 127–128).  A vertical leg then has θ = 0, the ZXZ singularity, and bodies 2 and
3 are not driven angle by angle, so here the long axis (ankle → hip) is body x̄, body z̄ is
the normal n = ẑ × d of the push plane (horizontal) and ȳ = z̄ × x̄.  Since z̄ stays
horizontal, A₃₃ = cos θ = 0: θ² = θ³ = 90° for every leg angle, as far from the
singularity as ZXZ allows.  The ski keeps the thesis's frame (x̄ along the ski, z̄ up,
A¹ = Rz(h)); its θ¹ = 0 is harmless because C3–C5 drive its three angles one by one.

Constraints (tables 2–5, with SPEC's ⚑ changes)

    C1        R¹_z = 0                                    (eq. 111)
    C2  ⚑     (R¹ − P)·n_line = 0, n_line = (−sin h, cos h, 0): the line through the
              stroke's start point P with heading h       (eq. 112 moved to P)
    C3–C5     φ¹ = h, θ¹ = 0, ψ¹ = 0                       (eqs. 113–115; with Euler
              parameters A¹ = Rz(h) by an orientation driver)
    C6–C8     spherical ankle: R¹ = R² − l1 u, u the leg axis (eqs. 117–124)
    C9–C13    prismatic knee, shank/upper body axes parallel, aligned, no relative spin
              (eqs. 126–142)
    C14       |R³ − R¹| = ℓ(τ) = ℓ0 + C_ext τ              (eqs. 144, 187)
    C15–C17 ⚑ orientation of body 2: x̄² = u(τ) = cos γ ẑ + sin γ d, z̄² = n,
              γ(τ) = γ0 + C_rot τ                          (eq. 188; replaces eq. 145)

Forces (§4.7, §5.3): push-off F(τ) at the CM along (R³ − R¹)/|R³ − R¹| (eqs. 179–181);
Coulomb friction of constant magnitude along the ski (eqs. 171–178 with the direction of
SPEC erratum 3: along the ski's own axis x̄¹); gravity on every body; optional air drag
½ ρ CdA |v| v at the CM.  Time τ inside a stroke runs from 0 to the phase time T.

C14 acts between the ski origin and the CM directly (eq. 144), so the leg's axial load is
its multiplier (``leg_drive_force`` in the simulation output); the ankle and knee
reactions carry only what the drivers leave to them.  The push-off F is the whole measured
leg force applied at the CM while gravity also acts (eqs. 179–181): C14 absorbs the
difference F − (weight component along the leg) and the CM height stays prescribed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from ..engine.bodies import RigidBody, box_inertia, rod_inertia
from ..engine.constraints import (
    DistanceDriver,
    FixedCoordinate,
    OrientationDriver,
    PointOnPlane,
    Prismatic,
    Spherical,
)
from ..engine.forces import ConstantForce, Drag, Gravity, LineForce
from ..engine.rotation import ZXZ, EulerParameters, rot_z
from ..engine.system import MultibodySystem
from ..engine.timefunctions import Constant, Polynomial, RotationPath

__all__ = ["SkierParams", "SkierModel", "ski_heading", "push_plane_direction"]

ANGLE_CONVENTIONS = ("v_angle", "from_x")
PUSH_DIRECTIONS = ("travel", "ski", "across")
SIDES = ("right", "left")
#: rotation coordinates of the skier's bodies (issue 7); ZXZ is the thesis's choice
ROTATIONS = {"zxz": ZXZ, "euler_parameters": EulerParameters}
_EZ = np.array([0.0, 0.0, 1.0])


@dataclass(frozen=True)
class SkierParams:
    """Every parameter of the skier model (SPEC §3), with the thesis's defaults.

    Skier and equipment
        mass                M, skier mass without the ski [kg] (table 6)
        lower_leg, upper_leg  L2, L3 [m] (table 6)
        ski_mass, ski_length, ski_width, ski_height  the ski box (ours; eqs. 147–149)
        shank_mass_fraction m2 / M (anthropometric shank fraction, ours)
        ankle_offset        l1, shank origin → ankle along the leg [m]; None → L2/2 (eq. 120)
    External forces
        friction            constant Coulomb friction magnitude [N] (table 8 mean)
        gravity, g          gravity on/off and its magnitude [m/s²]
        air_drag, air_density, cda   drag ½ ρ CdA |v| v at the CM (off by default, §5.3)
    Prescribed leg motion (one active phase of duration T)
        leg_extension0      ℓ0, ankle → CM distance at τ = 0 [m] (eq. 187)
        c_ext               C_ext [m/s]: ℓ(τ) = ℓ0 + C_ext τ (eq. 187)
        leg_angle0_deg      γ0, leg inclination from vertical at τ = 0 [deg] (eq. 188)
        c_rot_deg           C_rot [deg/s]: γ(τ) = γ0 + C_rot τ (eq. 188)
        phase_time          T [s] (table 7)
        push_direction      horizontal direction d the leg leans towards: 'travel' (global
                            X, default), 'ski' (the ski's heading), 'across' (normal to the
                            ski, towards the other ski)
    Skating angle
        skating_angle_deg   the tables' skating angle [deg]
        angle_convention    'v_angle' (default): the angle between the skis, each ski at
                            ±angle/2 from X; 'from_x': each ski at ±angle from X

    Defaults of the phase parameters are table 9's long run (T = 1 s, 50°, C_ext = 0.2 m/s,
    C_rot = 22.5 °/s).  Non-physical values raise ValueError naming the field.
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

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in ("gravity", "air_drag"):
                if not isinstance(v, (bool, np.bool_)):
                    raise ValueError(f"{f.name}: must be True or False, got {v!r}")
            elif f.name in ("angle_convention", "push_direction"):
                continue
            elif v is None and f.name == "ankle_offset":
                continue
            else:
                try:
                    x = float(v)
                except (TypeError, ValueError):
                    raise ValueError(f"{f.name}: must be a number, got {v!r}") from None
                if not math.isfinite(x):
                    raise ValueError(f"{f.name}: must be finite, got {v!r}")
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
        """m2 (SPEC §3: anthropometric shank fraction of M)."""
        return self.shank_mass_fraction * self.mass

    @property
    def body_mass(self) -> float:
        """m3 = M − m2: the upper leg carrying the rest of the body."""
        return self.mass - self.shank_mass

    @property
    def l1(self) -> float:
        """Shank origin → ankle distance (eq. 120; SPEC default L2/2)."""
        return 0.5 * self.lower_leg if self.ankle_offset is None else float(self.ankle_offset)

    @property
    def total_mass(self) -> float:
        """Skier plus ski [kg]."""
        return self.mass + self.ski_mass

    def leg_length(self, tau):
        """ℓ(τ), ℓ̇, ℓ̈ (eq. 187)."""
        return self.leg_extension0 + self.c_ext * tau, self.c_ext, 0.0

    def leg_angle(self, tau):
        """γ(τ), γ̇, γ̈ in radians (eq. 188)."""
        c = math.radians(self.c_rot_deg)
        return math.radians(self.leg_angle0_deg) + c * tau, c, 0.0


def ski_heading(params: SkierParams, stroke: int, first_ski: str = "right"):
    """Heading h (rad, from global X, positive to the left) and side of stroke k = 0, 1, ….

    SPEC §3 ⚑: with 'v_angle' each ski heads ±(skating angle)/2 from X; with 'from_x'
    ±(skating angle).  The right ski points to the right (h < 0); strokes alternate.
    """
    if first_ski not in SIDES:
        raise ValueError(f"first_ski: must be one of {SIDES}, got {first_ski!r}")
    half = params.skating_angle_deg / 2.0 if params.angle_convention == "v_angle" else params.skating_angle_deg
    side = SIDES[(SIDES.index(first_ski) + stroke) % 2]
    return (-1.0 if side == "right" else 1.0) * math.radians(half), side


def push_plane_direction(params: SkierParams, heading: float, side: str) -> np.ndarray:
    """Horizontal unit vector d of the plane in which the leg turns (SPEC §3, C15–C17).

    'travel': global X; 'ski': the ski's heading e; 'across': the ski's normal pointing to
    the other ski (the skier's weight goes inwards while the ski is pushed outwards).
    """
    e = np.array([math.cos(heading), math.sin(heading), 0.0])
    if params.push_direction == "travel":
        return np.array([1.0, 0.0, 0.0])
    if params.push_direction == "ski":
        return e
    inward = 1.0 if side == "right" else -1.0  # right ski: the left normal (+Y side)
    return inward * np.array([-e[1], e[0], 0.0])


class SkierModel:
    """The skier of one active phase (one stroke), built from the engine's components.

    Parameters
    ----------
    params : SkierParams
    heading : float
        Ski heading h [rad] from global X.
    side : 'right' | 'left'
        Which ski (only used for the 'across' push plane and for labelling).
    start_point : 3-vector
        P, the ski origin at s = 0 (on z = 0).
    push_force : callable
        F(τ) [N], the magnitude of the push-off (eqs. 179–181).
    rotation : 'zxz' (default, the thesis's 18 coordinates) | 'euler_parameters' (21)

    Attributes: ``ski``, ``shank``, ``upper`` (bodies), ``e`` (ski direction), ``d``
    (push plane direction), ``n`` (= ẑ × d, the leg's rotation axis), ``constraints``
    (the 17 rows C1–C17, in the thesis's order), ``constraint_names``, ``nq``, ``cm``
    (the slice of q holding R³, the CM).  ``system(mode)`` gives the multibody system for
    the friction mode: +1 sliding forwards, −1 sliding backwards, 0 stuck (an extra row,
    ``stick``, holds the ski at ``s_stick``; its multiplier is then the static friction).
    With Euler parameters the system appends the three normalization rows after them.
    """

    #: names of the constraint components with ZXZ, in row order (C1 … C17)
    CONSTRAINT_NAMES = ("C1", "C2", "C3", "C4", "C5", "ankle", "knee", "C14", "leg_orientation")
    #: the same with Euler parameters: C3–C5 are one orientation driver
    CONSTRAINT_NAMES_EP = ("C1", "C2", "ski_orientation", "ankle", "knee", "C14", "leg_orientation")
    #: the rheonomic drivers C14–C17 (their rows are the last four of the 17)
    DRIVER_NAMES = ("C14", "leg_orientation")

    def __init__(self, params: SkierParams, heading: float, side: str, start_point, push_force,
                 rotation: str = "zxz"):
        if rotation not in ROTATIONS:
            raise ValueError(f"rotation: must be one of {tuple(ROTATIONS)}, got {rotation!r}")
        if side not in SIDES:
            raise ValueError(f"side: must be one of {SIDES}, got {side!r}")
        if not callable(push_force):
            raise ValueError(f"push_force: must be a callable of phase time τ, got {push_force!r}")
        self.params = p = params
        self.heading = float(heading)
        self.side = side
        self.P = np.array(start_point, dtype=float)
        if self.P.shape != (3,) or abs(self.P[2]) > 1e-12:
            raise ValueError(f"start_point: must be a 3-vector on the snow plane z = 0, got {start_point!r}")
        self.push_force = push_force
        h = self.heading
        self.e = np.array([math.cos(h), math.sin(h), 0.0])
        self.n_line = np.array([-math.sin(h), math.cos(h), 0.0])
        self.d = push_plane_direction(p, h, side)
        self.n = np.cross(_EZ, self.d)
        # Leg frame at γ = 0: x̄ = ẑ (long axis), ȳ = n × ẑ (= d), z̄ = n.
        self.A_leg0 = np.column_stack([_EZ, np.cross(self.n, _EZ), self.n])

        # ZXZ angles as in the thesis (18 coordinates, eq. 107), or Euler parameters (21)
        self.rotation = rotation
        rot = ROTATIONS[rotation]
        self.ski = RigidBody("ski", p.ski_mass, box_inertia(p.ski_mass, p.ski_length, p.ski_width, p.ski_height),
                             rotation=rot)
        self.shank = RigidBody("shank", p.shank_mass, rod_inertia(p.shank_mass, p.lower_leg, axis=0),
                               points={"ankle": [-p.l1, 0.0, 0.0]}, rotation=rot)
        self.upper = RigidBody("upper", p.body_mass, rod_inertia(p.body_mass, p.upper_leg, axis=0), rotation=rot)
        self.bodies = (self.ski, self.shank, self.upper)
        self.nq = sum(b.nq for b in self.bodies)
        i3 = self.ski.nq + self.shank.nq
        self.cm = slice(i3, i3 + 3)  # R³ in q
        O = np.zeros(3)
        ex, ey = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
        self.leg_orientation = RotationPath(self.A_leg0, self.n, Polynomial([math.radians(p.leg_angle0_deg),
                                                                            math.radians(p.c_rot_deg)]))
        if rotation == "zxz":  # the thesis's C3–C5: the three angles one by one (eqs. 113–115)
            ski_orientation = (FixedCoordinate("C3", self.ski, 3, h), FixedCoordinate("C4", self.ski, 4, 0.0),
                               FixedCoordinate("C5", self.ski, 5, 0.0))
            self.constraint_names = self.CONSTRAINT_NAMES
        else:  # Euler parameters are not angles: hold A¹ = Rz(h), the same three conditions
            ski_orientation = (OrientationDriver("ski_orientation", self.ski, Constant(rot_z(h))),)
            self.constraint_names = self.CONSTRAINT_NAMES_EP
        self.constraints = (
            FixedCoordinate("C1", self.ski, 2, 0.0),
            PointOnPlane("C2", self.ski, O, self.P, self.n_line),
            *ski_orientation,
            Spherical("ankle", self.ski, O, self.shank, "ankle"),                      # C6–C8
            Prismatic("knee", self.shank, O, ex, self.upper, O, ex, normal_i=ey, normal_j=ey),  # C9–C13
            DistanceDriver("C14", self.ski, O, self.upper, O, Polynomial([p.leg_extension0, p.c_ext])),
            OrientationDriver("leg_orientation", self.shank, self.leg_orientation),   # C15–C17
        )
        # F(τ) along (R³ − R¹)/|R³ − R¹| at the CM (eqs. 179–181), no reaction on the ski
        self._forces_common = [LineForce("push", self.upper, O, self.ski, O, push_force)]
        if p.gravity:
            self._forces_common.append(Gravity(g=(0.0, 0.0, -p.g)))
        if p.air_drag:
            self._forces_common.append(Drag("drag", self.upper, O, rho=p.air_density, cda=p.cda))
        self._systems = {}

    # -- forces ----------------------------------------------------------------------
    def friction_force_vector(self, mode: int) -> np.ndarray:
        """Kinetic friction −mode·μ·e on the ski (eqs. 171–178, along the ski axis)."""
        return -float(mode) * self.params.friction * self.e

    def system(self, mode: int, s_stick: float | None = None) -> MultibodySystem:
        """The multibody system for friction mode +1, −1 (sliding) or 0 (stuck at s_stick)."""
        if mode in (1, -1):
            if mode not in self._systems:
                f = self.friction_force_vector(mode)
                forces = self._forces_common + [ConstantForce("friction", self.ski, np.zeros(3), f)]
                self._systems[mode] = MultibodySystem(self.bodies, self.constraints, forces)
            return self._systems[mode]
        if mode != 0 or s_stick is None:
            raise ValueError(f"mode must be +1, -1 or 0 with s_stick, got {mode!r}, {s_stick!r}")
        stick = PointOnPlane("stick", self.ski, np.zeros(3), self.P + s_stick * self.e, self.e)
        return MultibodySystem(self.bodies, self.constraints + (stick,), self._forces_common)

    # -- prescribed kinematics (exact, for initial conditions and checks) ---------------
    def leg_axis(self, tau):
        """u(τ) = cos γ ẑ + sin γ d with u̇, ü (C15–C17)."""
        g, gd, gdd = self.params.leg_angle(tau)
        u = math.cos(g) * _EZ + math.sin(g) * self.d
        ug = -math.sin(g) * _EZ + math.cos(g) * self.d  # ∂u/∂γ
        return u, gd * ug, gdd * ug - gd * gd * u

    def pose(self, tau: float, s: float) -> np.ndarray:
        """The exact coordinates q(τ, s) satisfying C1–C17 (and the normalization rows)."""
        p = self.params
        u = self.leg_axis(tau)[0]
        ell = p.leg_length(tau)[0]
        R1 = self.P + s * self.e
        A_leg = self.leg_orientation(tau)[0]
        rot = self.ski.rotation
        ang = rot.from_matrix(A_leg)
        ski = [self.heading, 0.0, 0.0] if rot is ZXZ else rot.from_matrix(rot_z(self.heading))
        return np.concatenate([R1, ski, R1 + p.l1 * u, ang, R1 + ell * u, ang])

    def s_of(self, q) -> float:
        """Ski travel s = (R¹ − P)·e."""
        return float((np.asarray(q)[:3] - self.P) @ self.e)

    def sdot_of(self, qd) -> float:
        return float(np.asarray(qd)[:3] @ self.e)

    def cm_velocity_offset(self, tau):
        """(ℓu)˙: the CM velocity relative to the ski, prescribed by C14–C17."""
        p = self.params
        u, ud, _ = self.leg_axis(tau)
        ell, elld, _ = p.leg_length(tau)
        return elld * u + ell * ud
