"""The three-body skier of Bruzzo (2012), ch. 4–5, assembled from the engine's components.

Bodies (thesis §4.2, eqs. 147–159; book: The skier model)

    =  ==========  ========================================================
    1  ski         box m1 × (length, width, height), long axis = body x̄
    2  shank       slender rod m2 = 0.0465 M, length L2, long axis = body x̄
    3  upper body  slender rod m3 = M − m2, length L3, long axis = body x̄;
                   its origin is the skier's centre of mass (CM)
    =  ==========  ========================================================

Coordinates q = [R¹ φ¹ θ¹ ψ¹ | R² φ² θ² ψ² | R³ φ³ θ³ ψ³] (eq. 107), 18 in all; 17
constraint rows (eq. 146) leave one degree of freedom, s, the ski's travel along its line.

Rotation coordinates.  ``rotation='zxz'`` (default) is the thesis's model above.
``rotation='euler_parameters'`` gives every body four Euler parameters instead
(q = [R¹ p¹ | R² p² | R³ p³], 21 coordinates; Haug 1989): the bodies, body
frames, forces and constraint rows are the same, except that the ski's orientation
(C3–C5), which ZXZ holds by driving its three angles one by one, is held by one
orientation driver A¹ = Rz(h) (three rows, named ``ski_orientation``); the system adds
one normalization row pᵀp − 1 = 0 per body after all the model's rows (17 + 3 rows).
Both give the same motion; Euler parameters have no gimbal lock.

Body frames (gimbal lock; book: Differences from the thesis).  The thesis puts the legs' long axes on body z̄
(eqs. 120, 127–128).  A vertical leg then has θ = 0, the ZXZ singularity, and bodies 2 and
3 are not driven angle by angle, so here the long axis (ankle → hip) is body x̄, body z̄ is
the normal n = ẑ × d of the push plane (horizontal) and ȳ = z̄ × x̄.  Since z̄ stays
horizontal, A₃₃ = cos θ = 0: θ² = θ³ = 90° for every leg angle, as far from the
singularity as ZXZ allows.  The ski keeps the thesis's frame (x̄ along the ski, z̄ up,
A¹ = Rz(h)); its θ¹ = 0 is harmless because C3–C5 drive its three angles one by one.

Constraints (tables 2–5; ⚑ marks a change explained in the book's Differences from the thesis)

    =======  =  =========================================================================
    C1          R¹_z = 0                                    (eq. 111)
    C2       ⚑  (R¹ − P)·n_line = 0, n_line = (−sin h, cos h, 0): the line through the
                stroke's start point P with heading h       (eq. 112 moved to P)
    C3–C5       φ¹ = h, θ¹ = 0, ψ¹ = 0                       (eqs. 113–115; with Euler
                parameters A¹ = Rz(h) by an orientation driver)
    C6–C8       spherical ankle: R¹ = R² − l1 u, u the leg axis (eqs. 117–124)
    C9–C13      prismatic knee, shank/upper body axes parallel, aligned, no relative spin
                (eqs. 126–142)
    C14         |R³ − R¹| = ℓ(τ) = ℓ0 + C_ext τ              (eqs. 144, 187)
    C15–C17  ⚑  orientation of body 2: x̄² = u(τ) = cos γ ẑ + sin γ d, z̄² = n,
                γ(τ) = γ0 + C_rot τ                          (eq. 188; replaces eq. 145)
    =======  =  =========================================================================

Forces (§4.7, §5.3): push-off F(τ) at the CM along (R³ − R¹)/|R³ − R¹| (eqs. 179–181);
Coulomb friction of constant magnitude along the ski (eqs. 171–178 with the direction of
the book's errata: along the ski's own axis x̄¹); gravity on every body (g(−sin α, 0, −cos α)
on a course rising at α = ``slope_deg`` along X; the flat, α = 0, by default); optional air drag
½ ρ CdA |v| v at the CM.  Time τ inside a stroke runs from 0 to the phase time T.

C14 acts between the ski origin and the CM directly (eq. 144), so the leg's axial load is
its multiplier (``leg_drive_force`` in the simulation output); the ankle and knee
reactions carry only what the drivers leave to them.  The push-off F is the whole measured
leg force applied at the CM while gravity also acts (eqs. 179–181): C14 absorbs the
difference F − (weight component along the leg) and the CM height stays prescribed.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ...engine.bodies import RigidBody, box_inertia, rod_inertia
from ...engine.codegen import compile_system
from ...engine.constraints import (
    DistanceDriver,
    FixedCoordinate,
    OrientationDriver,
    PointOnPlane,
    Prismatic,
    Spherical,
)
from ...engine.evaluation import row_dot
from ...engine.forces import ConstantForce, Drag, Gravity, LineForce
from ...engine.rotation import ZXZ, rot_z
from ...engine.solver import consistent_initial_conditions
from ...engine.system import MultibodySystem
from ...engine.timefunctions import Constant, RotationPath

from ...engine.bodies import ROTATIONS
from ...strokes.kept import KeptLast
from ...strokes.laws import SIDES
from ...strokes.quadrature import PosePath
from ...strokes.params import course_gravity
from ...engine.validation import check_array, check_number
from .params import SkierParams, push_plane_direction
from .rows import EXTRA_STATES, SkierRows, thesis_work_terms

__all__ = ["SkierModel", "StrokeStart"]

_EZ = np.array([0.0, 0.0, 1.0])
#: (params, heading, side, rotation) → the pose path at P = 0 (``SkierModel.one_dof_path``): two
#: per parameter set, one per ski
_pose_paths = KeptLast(16)

#: (params, heading, side, rotation) → ``_parts`` of a push-off: the strokes on one ski share them
#: while their push-off has the same numbers (``_same_numbers``)
_model_parts = KeptLast(16)
#: (params, heading, side, rotation, friction mode) → (the push-off, the first such compiled system):
#: ``SkierModel.compiled_system`` moves it to a later stroke whose push-off has the same numbers
_compiled = KeptLast(32)


def _same_numbers(a, b) -> bool:
    """Whether two push-offs are the same numbers: the same object, or dataclasses of one type
    whose fields are equal (arrays element by element, bit for bit; nested dataclasses alike).
    Anything else is compared by identity: a callable's numbers are not known."""
    if a is b:
        return True
    if type(a) is not type(b) or not dataclasses.is_dataclass(a):
        return False
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and x.dtype == y.dtype
                    and x.shape == y.shape and x.tobytes() == y.tobytes()):
                return False
        elif dataclasses.is_dataclass(x):
            if not _same_numbers(x, y):
                return False
        elif isinstance(x, (float, int, str, bool, type(None))):
            if type(x) is not type(y) or (x != y and not (x != x and y != y)):
                return False
        elif x is not y and not (isinstance(x, tuple) and isinstance(y, tuple) and repr(x) == repr(y)):
            return False
    return True


def _friction_vector(p: SkierParams, e, mode: int) -> np.ndarray:
    """Kinetic friction −mode·μ·e on the ski (eqs. 171–178, along the ski axis)."""
    return -float(mode) * p.friction * e


def _parts(p: SkierParams, h: float, side: str, rotation: str, push_force) -> dict:
    """A stroke's bodies, constraints but C2, forces and directions (``SkierModel``'s attributes):
    they depend on the parameters, the ski's heading and side, the rotation coordinates and the
    push-off, not on the start point, and are only read once built (their arrays read-only)."""
    e = np.array([math.cos(h), math.sin(h), 0.0])
    n_line = np.array([-math.sin(h), math.cos(h), 0.0])
    d = push_plane_direction(p, h, side)
    n = np.cross(_EZ, d)
    # Leg frame at γ = 0: x̄ = ẑ (long axis), ȳ = n × ẑ (= d), z̄ = n.
    A_leg0 = np.column_stack([_EZ, np.cross(n, _EZ), n])
    # ZXZ angles as in the thesis (18 coordinates, eq. 107), or Euler parameters (21)
    rot = ROTATIONS[rotation]
    ski = RigidBody("ski", p.ski_mass, box_inertia(p.ski_mass, p.ski_length, p.ski_width, p.ski_height), rotation=rot)
    shank = RigidBody("shank", p.shank_mass, rod_inertia(p.shank_mass, p.lower_leg, axis=0),
                      points={"ankle": [-p.l1, 0.0, 0.0]}, rotation=rot)
    upper = RigidBody("upper", p.body_mass, rod_inertia(p.body_mass, p.upper_leg, axis=0), rotation=rot)
    O = np.zeros(3)
    ex, ey = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    leg_orientation = RotationPath(A_leg0, n, p.leg_angle_law)
    if rotation == "zxz":  # the thesis's C3–C5: the three angles one by one (eqs. 113–115)
        ski_orientation = (FixedCoordinate("C3", ski, 3, h), FixedCoordinate("C4", ski, 4, 0.0),
                           FixedCoordinate("C5", ski, 5, 0.0))
        names = SkierModel.CONSTRAINT_NAMES
    else:  # Euler parameters are not angles: hold A¹ = Rz(h), the same three conditions
        ski_orientation = (OrientationDriver("ski_orientation", ski, Constant(rot_z(h))),)
        names = SkierModel.CONSTRAINT_NAMES_EP
    joints = (Spherical("ankle", ski, O, shank, "ankle"),                                  # C6–C8
              Prismatic("knee", shank, O, ex, upper, O, ex, normal_i=ey, normal_j=ey),     # C9–C13
              DistanceDriver("C14", ski, O, upper, O, p.leg_length_law),
              OrientationDriver("leg_orientation", shank, leg_orientation))                # C15–C17
    # F(τ) along (R³ − R¹)/|R³ − R¹| at the CM (eqs. 179–181), no reaction on the ski
    forces = [LineForce("push", upper, O, ski, O, push_force)]
    if p.gravity:
        forces.append(Gravity(g=course_gravity(p.g, p.slope_deg)))
    if p.air_drag:
        forces.append(Drag("drag", upper, O, rho=p.air_density, cda=p.cda))
    # kinetic friction −mode·μ·e on the ski (eqs. 171–178, along the ski axis)
    friction = {mode: ConstantForce("friction", ski, np.zeros(3), _friction_vector(p, e, mode)) for mode in (1, -1)}
    for a in (e, n_line, d, n, A_leg0):
        a.flags.writeable = False
    return dict(e=e, n_line=n_line, d=d, n=n, A_leg0=A_leg0, rotation=rotation, ski=ski, shank=shank, upper=upper,
                bodies=(ski, shank, upper), nq=sum(b.nq for b in (ski, shank, upper)),
                cm=slice(ski.nq + shank.nq, ski.nq + shank.nq + 3), leg_orientation=leg_orientation,
                constraint_names=names, C1=FixedCoordinate("C1", ski, 2, 0.0), ski_orientation=ski_orientation,
                joints=joints, _forces_common=forces, _friction=friction, push_force=push_force)


class StrokeStart:
    """A stroke's admissible states at τ = 0, s = 0: q⁰ (polished by Newton–Raphson from the
    exact pose) and every velocity that solves Cq q̇ = −Ct, q̇ = a + ṡ b with ṡ the ski's speed.

    C1–C17 hold the start point P only in C2, through R¹ − P: the constraints are invariant
    under a translation of every body by P in the snow plane, their Jacobian and Ct do not
    depend on P, and so q⁰ − shift(P), a and b are the same for every stroke of one heading and
    side.  A run computes them once per (heading, side) (``SkierModel.stroke_start``) instead of
    once per stroke; ``q(P)`` puts them at a stroke's P.  Nor do they depend on the push-off (a
    force, not a constraint).  Its arrays are read-only: one start serves many runs
    (``skilib.models.thesis.run``).
    """

    def __init__(self, model: "SkierModel"):
        sysm = model.system(1)
        q0 = consistent_initial_conditions(sysm, 0.0, model.pose(0.0, 0.0), independent=[0], velocities=False)[0]
        jet = sysm.constraint_jet(0.0, q0)
        lhs = np.vstack([jet.J, model.ski_speed_row()])     # [Cq; e′ on Ṙ¹]: square, one DOF
        rhs = np.zeros((lhs.shape[0], 2))
        rhs[:-1, 0], rhs[-1, 1] = -jet.t, 1.0
        ab = np.linalg.solve(lhs, rhs)
        self.at_rest, self.per_speed = ab[:, 0], ab[:, 1]  # a (ṡ = 0) and b = ∂q̇/∂ṡ
        self._positions = np.concatenate([np.arange(i, i + 3) for i in (0, model.ski.nq, model.cm.start)])
        self.q_rel = q0.copy()
        self.q_rel[self._positions] -= np.tile(model.P, 3)
        self.leg_axis0 = model.leg_axis(0.0)[0]
        self.cm = model.cm
        for a in (ab, self.at_rest, self.per_speed, self.q_rel, self.leg_axis0, self._positions):
            a.flags.writeable = False

    def q(self, P) -> np.ndarray:
        """q⁰ of the stroke starting at P."""
        q = self.q_rel.copy()
        q[self._positions] += np.tile(np.asarray(P, dtype=float), 3)
        return q

    def qd(self, sdot: float) -> np.ndarray:
        """The admissible q̇ at τ = 0 whose ski speed is ṡ."""
        return self.at_rest + sdot * self.per_speed


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
        if not isinstance(params, SkierParams):
            raise ValueError(f"params: must be a SkierParams, got {params!r}")
        self.params = p = params
        self.heading = check_number("heading", heading, low=-math.pi, high=math.pi, unit="rad")
        self.side = side
        self.P = np.array(check_array("start_point", start_point))
        if self.P.shape != (3,) or abs(self.P[2]) > 1e-12:
            raise ValueError(f"start_point: must be a 3-vector on the snow plane z = 0, got {start_point!r}")
        self.push_force = push_force
        # everything but the start point P is the same for every stroke of one ski: built once
        # and shared (``_parts``); C2, the line through P, is this stroke's own
        key = (p, self.heading, side, rotation)
        parts = _model_parts.peek(key)
        if parts is None or not _same_numbers(parts["push_force"], push_force):  # built for this push-off
            parts = _parts(p, self.heading, side, rotation, push_force)
            _model_parts.put(key, parts)
        self.__dict__.update({k: v for k, v in parts.items()
                              if k not in ("C1", "ski_orientation", "joints", "push_force")})
        self.constraints = (parts["C1"], PointOnPlane("C2", self.ski, np.zeros(3), self.P, self.n_line),
                            *parts["ski_orientation"], *parts["joints"])
        self._systems = {}
        self._one_dof_path = None

    # -- forces ----------------------------------------------------------------------
    def friction_force_vector(self, mode: int) -> np.ndarray:
        """Kinetic friction −mode·μ·e on the ski (eqs. 171–178, along the ski axis)."""
        return _friction_vector(self.params, self.e, mode)

    def system(self, mode: int, s_stick: float | None = None) -> MultibodySystem:
        """The multibody system for friction mode +1, −1 (sliding) or 0 (stuck at s_stick)."""
        if mode in (1, -1):
            if mode not in self._systems:
                forces = self._forces_common + [self._friction[mode]]
                self._systems[mode] = MultibodySystem(self.bodies, self.constraints, forces)
            return self._systems[mode]
        if mode != 0 or s_stick is None:
            raise ValueError(f"mode must be +1, -1 or 0 with s_stick, got {mode!r}, {s_stick!r}")
        stick = PointOnPlane("stick", self.ski, np.zeros(3), self.P + s_stick * self.e, self.e)
        return MultibodySystem(self.bodies, self.constraints + (stick,), self._forces_common)

    def compiled_system(self, mode: int, s_stick: float | None = None):
        """The compiled system of friction mode +1, −1 or 0 (stuck at ``s_stick``;
        ``skilib.engine.codegen``).  This ski's first such system in the process is compiled;
        every later one is that one moved to its own start point and stick anchor
        (``CompiledSystem.moved``): the strokes of one ski are built alike from the same numbers
        (parameters, heading, side, rotation coordinates and a push-off of the same numbers,
        ``_same_numbers``), so C2's and the stick row's points are their only different numbers
        (tested against a compilation, bit for bit)."""
        system = self.system(mode, s_stick)
        key = (self.params, self.heading, self.side, self.rotation, mode)
        push, first = _compiled.get(key, lambda: (self.push_force, compile_system(system)))
        if first.system is system:
            return first
        if not _same_numbers(push, self.push_force):  # another push-off: compiled anew, kept instead
            first = compile_system(system)
            _compiled.put(key, (self.push_force, first))
            return first
        numbers = {("constraints", 1, "P"): self.P}
        if mode == 0:  # the stick row, after the model's own
            numbers[("constraints", len(self.constraints), "P")] = self.P + s_stick * self.e
        return first.moved(system, numbers)

    # -- what a stroke integration needs (skilib.strokes.stroke) ---------------------------
    #: the extra ODE states of a stroke: the works, the integrals, projection_energy
    extra_states = EXTRA_STATES
    #: reactions in the frame: (column prefix, constraint, body attribute, with moments)
    REACTIONS = (("ankle", "ankle", "shank", False), ("knee", "knee", "upper", True))

    def rows(self, system) -> SkierRows:
        return SkierRows(self, system)

    def work_terms(self, rows) -> dict:
        return thesis_work_terms(rows)

    def ski_speed(self, tau, q, qd) -> float:
        """ṡ, the ski's speed along its line."""
        return float(np.asarray(qd)[:3] @ self.e)

    def ski_speed_row(self) -> np.ndarray:
        """ṡ = row · q̇ with this constant row (the ski keeps its line): the stroke's event ṡ = 0 can
        then be watched in compiled code (``skilib.strokes.stroke``)."""
        row = np.zeros(self.nq)
        row[:3] = self.e
        return row

    def ski_acceleration(self, tau, q, qd, qdd) -> float:
        return float(np.asarray(qdd)[:3] @ self.e)

    def write_c3d(self, result, path):
        """``SimResult.to_c3d`` of a run of this model (``skilib.models.thesis.c3d.write_run``)."""
        from .c3d import write_run

        return write_run(result, path)

    def stick_anchor(self, tau, q) -> float:
        return self.s_of(q)

    def friction_limit(self, tau) -> float:
        """μ, the friction's magnitude (table 8 mean): constant."""
        return self.params.friction

    #: λ columns in the frame: C1…C17 in either parametrization
    N_FRAME_ROWS = 17

    def point_columns(self, e, seg, tau, q, qd) -> dict:
        """The push-off F(τ) [N], its power F·Ṙ³ [W] and the friction along e [N] at one point."""
        i3 = self.cm.start
        fric = (e.forces["friction"][:3] @ self.e) if seg.mode else -e.lam[seg.rows.stick_index()]
        return {"push_force": float(self.push_force(tau)), "push_power": e.forces["push"][i3: i3 + 3] @ qd[i3: i3 + 3],
                "friction_force": fric}

    def point_columns_stack(self, E, seg, tau, q, qd) -> dict:
        """``point_columns`` at every point of one segment's ``EvaluationStack`` ``E``: the same
        columns as arrays (the frame's fast path; tested against ``point_columns``)."""
        i3 = self.cm.start
        fric = E.forces["friction"][:, :3] @ self.e if seg.mode else -E.lam[:, seg.rows.stick_index()]
        at = getattr(self.push_force, "at_points", None)  # a PushForce at every point in one call
        push = at(tau) if at is not None else np.array([float(self.push_force(t)) for t in tau])
        return {"push_force": push,
                "push_power": row_dot(E.forces["push"][:, i3: i3 + 3], qd[:, i3: i3 + 3]),
                "friction_force": fric}

    def grid_columns(self, grid, q, qd, lam, segments) -> dict:
        """s, ṡ, the leg's length and angle, and C14's push on the CM (−λ of C14)."""
        p = self.params
        return {"s": (q[:, :3] - self.P) @ self.e, "s_dot": qd[:, :3] @ self.e,
                "leg_length": p.leg_length_law.values(grid),
                "leg_angle_deg": p.leg_angle0_deg + p.c_rot_deg * grid,
                "leg_drive_force": -lam[:, segments[0].system.rows("C14").start]}

    def stroke_start(self) -> StrokeStart:
        """The admissible states at τ = 0, s = 0 (``StrokeStart``; the same for every P)."""
        return StrokeStart(self)

    # -- prescribed kinematics (exact, for initial conditions and checks) ---------------
    def leg_axis(self, tau):
        """u(τ) = cos γ ẑ + sin γ d with u̇, ü (C15–C17)."""
        g, gd, gdd = self.params.leg_angle(tau)
        u = math.cos(g) * _EZ + math.sin(g) * self.d
        ug = -math.sin(g) * _EZ + math.cos(g) * self.d  # ∂u/∂γ
        return u, gd * ug, gdd * ug - gd * gd * u

    def pose(self, tau: float, s: float, P=None) -> np.ndarray:
        """The exact coordinates q(τ, s) satisfying C1–C17 (and the normalization rows); ``P``: the
        stroke's start point (default its own)."""
        p = self.params
        u = self.leg_axis(tau)[0]
        ell = p.leg_length(tau)[0]
        R1 = (self.P if P is None else P) + s * self.e
        A_leg = self.leg_orientation(tau)[0]
        rot = self.ski.rotation
        ang = rot.from_matrix(A_leg)
        ski = [self.heading, 0.0, 0.0] if rot is ZXZ else rot.from_matrix(rot_z(self.heading))
        return np.concatenate([R1, ski, R1 + p.l1 * u, ang, R1 + ell * u, ang])

    @property
    def one_dof_reason(self) -> str | None:
        """Why a sliding segment of this stroke is not a quadrature in s (``skilib.strokes.quadrature``),
        or None: with air drag the ski's acceleration depends on its speed."""
        return "air_drag: the ski's acceleration depends on its speed" if self.params.air_drag else None

    @property
    def one_dof_key(self) -> tuple:
        """Everything the ski's acceleration s̈(τ) of a sliding segment depends on (not the start
        point): its ski, laws and push-off (``skilib.strokes.quadrature``)."""
        return self.params, self.heading, self.side, self.rotation, self.push_force

    def one_dof_path(self) -> PosePath:
        """q(τ, s) = q⁰(τ) + s ê of this stroke on [0, T] (``skilib.strokes.quadrature.PosePath``;
        ê moves every body by e, ``skilib.models.thesis.one_dof``): the exact pose at P = 0 as
        Chebyshev series, kept per (params, heading, side, rotation), moved to this stroke's P."""
        positions = np.concatenate([np.arange(i, i + 3) for i in (0, self.ski.nq, self.cm.start)])
        E = np.zeros(self.nq)
        E[positions] = np.tile(self.e, 3)

        def build():
            return PosePath(lambda t: self.pose(t, 0.0, np.zeros(3)), self.params.phase_time, E)

        if self._one_dof_path is None:  # this stroke's: the kept path moved to its P, once
            offset = np.zeros(self.nq)
            offset[positions] = np.tile(self.P, 3)
            self._one_dof_path = _pose_paths.get((self.params, self.heading, self.side, self.rotation),
                                                 build).shifted(offset)
        return self._one_dof_path

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
