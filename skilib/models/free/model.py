"""The free skater: a knife-edge ski, a centre of mass that never jumps, and the leg force as
an output (the book's chapter "The free skater").

The thesis's skier runs its ski on a straight line, restarts every stroke from its own pose
and is driven by a prescribed force along the leg.  Here, in the spirit of the speed-skating
models of Fintelman, den Braver & Schwab (2011) and van der Kruk et al. (2017) and of the
thesis's own inverse mode (Bruzzo et al. 2016), the stance ski is a knife edge
(``skilib.engine.KnifeEdge``) that follows a steered curve, the skier's centre of mass is
*placed* relative to the ski by prescribed laws, and the leg force is what the placement
drivers' multipliers say it must be.

Bodies: the stance ski (a box, its frame x̄ along the ski, ȳ = n its lateral axis, z̄ up) and
the skier's body B (origin at the centre of mass, held upright and facing +X).  Stance on side
s (+1 right, −1 left), τ ∈ [0, T] the time in the stroke, σ(x) = 10x³ − 15x⁴ + 6x⁵::

    ski on the snow:   R_ski,z = 0, flat, heading ψ(τ) = s(−a/2 + Δψ σ(τ/T))
    knife edge:        n · Ṙ_ski = 0                                   (a velocity row)
    placement (leg):   R_B − R_ski − h(τ) n − z(τ) ẑ = 0,  h(τ) = s(h0 + (h1 − h0)(τ/T)^p),
                       z(τ) = z̄ − Δz sin²(πτ/T)

One velocity degree of freedom: u, the ski's speed along itself.  Forces: gravity,
g(−sin α, 0, −cos α) on a course rising at α along X (``slope_deg``; the frame is the course's,
z normal to the snow); friction μN along the ski against its sliding,
N = (M + m_s) g cos α + M z̈(τ) (the snow's load from the prescribed height, known in advance;
with drag off it equals the snow row's multiplier); air drag ½ ρ CdA |v| v at the centre of
mass.  At u = 0 the ski sticks (one more velocity row, no
velocity along the ski, whose multiplier is the static friction) until the needed friction
reaches μN, as for the thesis's skier (``skilib.strokes.stroke``).

Touch-down at τ = T: the other ski lands under the centre of mass (its position continuous;
the new ski at −h′(0) n′ − z′(0) ẑ from it), by one of two rules (``simulate_free``'s
``touchdown``; ``skilib.models.free.run``):

- "along_ski" (the earlier rule, kept for comparison): the velocities satisfy the new stroke's rows and the centre of
  mass keeps its velocity along the new ski, e′·(Ṙ_B⁺ − Ṙ_B⁻) = 0; the edge takes the rest.
  The swing ski is part of B, so the old stance ski's ½ m_s u² vanishes and the new ski
  appears moving with the centre of mass: the rule can create energy.
- "plastic" (the default): one plastic impact of the whole system.  The old stance ski merges into B with
  momentum conserved, (M + m_s) v_c = M Ṙ_B⁻ + m_s Ṙ_s⁻, losing
  ½ M m_s/(M + m_s) |Ṙ_B⁻ − Ṙ_s⁻|² (and the ski's spin); the new ski leaves B at v_c, and the
  plastic impact of the new stance's rows (``skilib.engine.impact``, the augmented matrix of
  eq. 101) projects the velocities onto them, mass-weighted, losing ½ΔᵀMΔ − Ctᵀν (≥ 0 when the
  drivers are still at τ = 0, Ct = 0, as for the default laws).  At τ = T the relative velocity
  is the placement's, Ṙ_B − Ṙ_s = ḣ(T) n + h ψ̇(T) ∂n/∂ψ + ż(T) ẑ, so with the default laws
  (ψ̇(T) = ż(T) = 0, ḣ(T) = p (h1 − h0)/T) the merge loses ½ M m_s/(M + m_s) ḣ(T)² at every
  touch-down, whatever the speed (0.41 J with the defaults).

The kinetic energy of B and the stance ski before, minus after, is reported as lost at
touch-down (``ke_loss``), and under "plastic" its two shares (``ke_loss_merge``,
``ke_loss_projection``).

Admissibility.  The laws are prescribed, so nothing in the equations keeps the motion one a ski
and a leg can make; what the drivers demand is reported (``FreeSkaterModel.point_columns``):

- the snow's load N(τ) = (M + m_s) g cos α + M z̈(τ) (``snow_load``) must be ≥ 0: a ski pressed
  on the snow, not pulled into it; for the default height law z̈ = −2Δz (π/T)² cos(2πτ/T), so
  N ≥ 0 throughout needs 2Δz (π/T)² ≤ (1 + m_s/M) g cos α (at τ = 0 and T).  Below zero the friction
  μN would push the ski forwards.  A run refuses it (``skilib.models.free.run.check_snow_load``).
- the leg force F on B (the placement drivers' force, −C_q,Bᵀ λ_leg) acts at the centre of mass
  and its reaction −F at the ski's origin R_ski (the binding, the contact point on the knife
  edge).  The pair is not collinear unless F lies along r = R_B − R_ski = h n + z ẑ: the
  angle between F and r (``leg_angle_deg``) says how far the force is from a pin-jointed leg's.
- the pair's moment about R_ski is r × F; its component about the ski's axis e,
  M_roll = e · (r × F) = h F_z − z F_n (F_n = F · n, F_z = F · ẑ; F's component along e has no
  moment about e), is a roll moment the knife edge cannot carry (``roll_moment``).  A ski of
  width w carries it only by moving the snow's load off its axis: N d = M_roll, the centre of
  pressure at d = M_roll / N along n (``cop_offset``), which must lie within ±w/2.

Only N ≥ 0 is enforced.  The leg force's angle and the centre of pressure are reported, not
refused: they measure what the model leaves out (a flat knife edge that cannot roll, a body held
upright, no ankle), not a law its equations break; with the defaults the leg force is up to
≈ 14° off the line and the centre of pressure up to ≈ 0.24 m off the axis of a 45 mm ski.
"""
from __future__ import annotations

import copy
import math

import numpy as np

from ...engine.bodies import ROTATIONS
from ...engine.constraints import RelativePointDriver
from ...engine.controls import ControlLaw
from ...engine.forces import AxisForce, Force, point_generalized_force
from ...engine.nonholonomic import KnifeEdge
from ...engine.evaluation import row_dot
from ...engine.rotation import ZXZ
from ...engine.strut import Strut
from ...engine.system import MultibodySystem
from ...engine.timefunctions import Constant, Harmonic, Polynomial, Stack
from ...strokes.laws import SIDES, mirrored, side_sign
from ...strokes.params import slope_factors
from ...strokes.poles import Poled, pole_columns, pole_columns_stack
from ...strokes.ski import FlatSki
from ...strokes.work import extra_states
from .params import FreeLaws, FreeSkaterParams, default_laws

__all__ = ["FreeSkaterModel", "FREE_WORK_TERMS", "FREE_ACTUATORS"]

_EZ = np.array([0.0, 0.0, 1.0])


#: the forces whose power is friction's: the sliding ski's μN and, with the poles in the snow,
#: what their vertical force takes off it
_FRICTION_FORCES = ("friction", "pole_left_unloading", "pole_right_unloading")


class _FreeRows:
    """Where the free skater's rows sit: ``model`` (all but the stick row), ``stick``, ``leg``
    (the placement drivers), ``edge``, ``snow`` (the ski's height row), ``heading`` (the ski's
    orientation drivers), ``posture`` (B's orientation drivers), ``cm`` (B's x in q)."""

    def __init__(self, model, system):
        names = [c.name for c in system.constraints]
        self.stick = system.rows("stick") if "stick" in names else None
        self.leg, self.edge, self.snow = system.rows("leg"), system.rows("edge"), system.rows("snow")
        self.heading = [system.rows(n) for n in model.heading_rows]
        self.posture = [system.rows(n) for n in model.posture_rows]
        keep = np.ones(system.nc, dtype=bool)
        if self.stick is not None:
            keep[self.stick] = False
        self.model = np.nonzero(keep)[0]
        self.cm = model.cm.start
        others = {r for sl in [self.leg, self.edge, self.snow, *self.heading, *self.posture]
                  + ([self.stick] if self.stick is not None else []) for r in range(sl.start, sl.stop)}
        self.other = [slice(r, r + 1) for r in range(system.nc) if r not in others]  # e.g. EP norm rows

    def stick_index(self) -> int:
        return self.stick.start


#: the free skater's works over a stroke [J]
FREE_WORK_TERMS = ("work_leg", "work_friction", "work_gravity", "work_drag", "work_edge", "work_heading",
                   "work_posture", "work_other")
#: the free skater's actuators, the drivers a muscle works: the placement drivers (the leg) and
#: the ski's heading drivers; the cost of work counts their positive and negative works
#: (``skilib.strokes.work``).  B's posture drivers hold a body that does not turn.
FREE_ACTUATORS = ("work_leg", "work_heading")


class FreeSkaterModel(Poled, FlatSki):
    """One stroke of the free skater on side ``side`` with its ski's origin at ``start_point``
    at τ = 0 (see the module docstring), built from the engine's components.

    Implements what ``skilib.strokes.stroke.Stroke`` needs of a model, so the free skater is
    integrated, book-kept and tabulated by the same machinery as the thesis's skier.

    With poles (``params.pole_force_max`` > 0; ``skilib.strokes.poles``) the stroke has phases,
    the poles' works are two more works and actuators, and while they push the snow's load is
    N = (M + m_s) g cos α + M z̈ − Σ F±,z: the sliding friction loses μ Σ F±,z (``_PoleUnloading``).
    """

    #: the works of the leg (the placement drivers), for ``skilib.strokes.poles.pole_summary``
    LEG_WORKS = ("work_leg",)

    #: the drivers whose positive and negative works are integrated (the cost of work)
    actuators = FREE_ACTUATORS
    extra_states = extra_states(FREE_WORK_TERMS, FREE_ACTUATORS)
    REACTIONS = ()
    N_FRAME_ROWS = 0

    def __init__(self, params: FreeSkaterParams, side: str, start_point, laws: FreeLaws | None = None,
                 rotation: str = "zxz"):
        if side not in SIDES:
            raise ValueError(f"side: must be one of {SIDES}, got {side!r}")
        if rotation not in ROTATIONS:
            raise ValueError(f"rotation: must be one of {tuple(ROTATIONS)}, got {rotation!r}")
        self.params = p = params
        self.side = side
        self.sign = side_sign(side)
        self.laws = laws if laws is not None else default_laws(p)
        self.given_laws = laws  # None: the default laws of ``params``
        self.rotation = rotation
        self.P = np.array(start_point, dtype=float)
        self.heading_law = mirrored(self.laws.heading, self.sign)
        self.offset_law = mirrored(self.laws.offset, self.sign)
        self.height_law = self.laws.height
        #: g cos α [m/s²]: gravity's component normal to the snow (exactly g on the flat)
        self.g_normal = p.g * slope_factors(p.slope_deg)[1]
        rows, self.forces_common = self.build_on_snow(p, rotation)
        O = np.zeros(3)
        self.constraints = (
            *rows,
            RelativePointDriver("leg", self.ski, O, self.body, O, Stack(0.0, self.offset_law, self.height_law)),
        )
        self._systems = {}
        self.count_pole_works(FREE_WORK_TERMS, FREE_ACTUATORS)

    def moved(self, start_point) -> "FreeSkaterModel":
        """The same stroke with its ski's origin at ``start_point``: a copy sharing the laws,
        bodies, constraints, forces and built systems, none of which depends on where the ski
        starts (the rows hold the ski on the snow and the centre of mass relative to the ski;
        only ``pose`` uses the start point)."""
        new = copy.copy(self)
        new.P = np.array(start_point, dtype=float)
        return new

    # -- laws -----------------------------------------------------------------------------
    def normal_load(self, tau) -> float:
        """N = (M + m_s) g cos α + M z̈(τ): the snow's load under the ski [N] (α the course's
        inclination, ``slope_deg``)."""
        p = self.params
        return (p.body_mass + p.ski_mass) * self.g_normal + p.body_mass * float(self.height_law(tau)[2])

    def friction_limit(self, tau) -> float:
        """μ N(τ), the largest friction force [N]; asked only when the ski's speed reaches zero.
        With the poles in the snow N depends on the motion, and a stuck ski is not modelled then:
        refused, naming the time."""
        if getattr(self, "tips", None) is not None:
            raise ValueError(f"pole_force_max: the free skater's ski stopped at τ = {float(tau):.6g} s with the poles "
                             "in the snow (u = 0); a stuck ski under the poles' load is not modelled")
        return self.params.friction_coefficient * self.normal_load(tau)

    # -- systems --------------------------------------------------------------------------
    def system(self, mode: int, anchor=None) -> MultibodySystem:
        """The system for friction mode +1, −1 (sliding) or 0 (stuck: no velocity along the ski)."""
        if mode not in self._systems:
            if mode in (1, -1):
                fric = AxisForce("friction", self.ski, np.zeros(3), [1.0, 0.0, 0.0],
                                 _Friction(self, -float(mode)))
                unload = [_PoleUnloading(f"{f.name}_unloading", f, self.ski, float(mode) * self.params.friction_coefficient)
                          for f in self.forces_common if isinstance(f, Strut)]
                self._systems[mode] = MultibodySystem(self.bodies, self.constraints,
                                                      self.forces_common + [fric] + unload)
            elif mode == 0:
                stick = KnifeEdge("stick", self.ski, np.zeros(3), [1.0, 0.0, 0.0])
                self._systems[mode] = MultibodySystem(self.bodies, self.constraints + (stick,), self.forces_common)
            else:
                raise ValueError(f"mode must be +1, -1 or 0, got {mode!r}")
        return self._systems[mode]

    def pose(self, tau: float) -> np.ndarray:
        """The exact coordinates at τ with the ski's origin at ``start_point``."""
        e, n = self.axes(tau)
        R_ski = self.P
        R_b = R_ski + float(self.offset_law(tau)[0]) * n + float(self.height_law(tau)[0]) * _EZ
        rot = self.ski.rotation
        if rot is ZXZ:
            return np.concatenate([R_ski, [self.heading(tau), 0.0, 0.0], R_b, [0.0, 0.0, 0.0]])
        return np.concatenate([R_ski, rot.from_matrix(_rot_z(self.heading(tau))), R_b, rot.from_matrix(np.eye(3))])

    # -- what the stroke machinery needs --------------------------------------------------
    def rows(self, system) -> _FreeRows:
        return _FreeRows(self, system)

    def work_terms(self, rows: _FreeRows) -> dict:
        stick = [rows.stick] if rows.stick is not None else []
        return {"work_leg": ((), [rows.leg], False), "work_friction": (_FRICTION_FORCES, stick, False),
                "work_gravity": (("gravity",), [], False), "work_drag": (("drag",), [], False),
                "work_edge": ((), [rows.edge, rows.snow], False), "work_heading": ((), rows.heading, False),
                "work_posture": ((), rows.posture, False), "work_other": ((), rows.other, False),
                **self.pole_work_terms()}

    def stick_anchor(self, tau, q):
        return None

    def point_columns(self, e, seg, tau, q, qd) -> dict:
        """The leg force on B (the placement drivers' force, N and body weights), the leg's
        power (of its force on both bodies) and F·(Ṙ_B − Ṙ_ski), friction along the ski,
        drag, the snow's normal force (the snow row's multiplier), the edge's lateral force and
        residual, and what says whether a ski and a leg can do it (module docstring,
        "Admissibility"):

        - snow_load N = (M + m_s) g cos α + M z̈(τ) [N] (the load friction uses) and snow_load_bw =
          N / (M g); with drag off it equals snow_force, with drag on snow_force is N minus the
          drag's vertical component.
        - leg_angle_deg = atan2(|r × F|, r · F) [°], r = R_B − R_ski, F the leg force on B: 0
          for a force pushing along the line from the ski's origin to the centre of mass, 180
          for one pulling along it.
        - leg_force F·r̂ [N]: the leg force's component along r = R_B − R_ski (the line from the
          ski's origin to the centre of mass, the leg's line; > 0 pushing) and
          leg_extension_speed ℓ̇ = r̂·(Ṙ_B − Ṙ_ski) [m/s], the rate of |r|: what the leg pushes
          and how fast it extends (``skilib.physiology.force_velocity``).
        - roll_moment M_roll = e · (r × F) [N m], e the ski's axis: the drivers' moment about
          the ski's axis at its origin.
        - cop_offset d = M_roll / N [m] along n (the ski's left): where the snow's load must act
          for the ski to carry M_roll; NaN where N ≤ 0 (no load, no centre of pressure).
        """
        rows, i3 = seg.rows, self.cm.start
        leg = -e.Cq[rows.leg, i3: i3 + 3].T @ e.lam[rows.leg]
        v_rel = qd[i3: i3 + 3] - qd[:3]
        ski_e = self.ski_direction(q)
        fric = (sum(e.forces[f][:3] for f in _FRICTION_FORCES if f in e.forces) @ ski_e) if seg.mode \
            else -e.lam[rows.stick_index()]
        drag = float(np.linalg.norm(e.forces["drag"][i3: i3 + 3])) if "drag" in e.forces else 0.0
        poles = pole_columns(e, self.cm, qd)
        load = self.normal_load(tau) - poles["pole_fz"]  # the poles carry part of the weight
        r = q[i3: i3 + 3] - q[:3]
        r_hat = r / np.linalg.norm(r)
        moment = np.cross(r, leg)
        roll = float(ski_e @ moment)
        return {"u": float(qd[:3] @ ski_e), "leg_fx": leg[0], "leg_fy": leg[1], "leg_fz": leg[2],
                "leg_force_bw": float(np.linalg.norm(leg)) / self.params.weight,
                "leg_force": float(leg @ r_hat), "leg_extension_speed": float(r_hat @ v_rel),
                "leg_power": float(e.row_power[rows.leg].sum()), "leg_power_translational": float(leg @ v_rel),
                "friction_force": float(fric), "drag_force": drag,
                "snow_force": float(-e.lam[rows.snow][0]), "edge_force": float(-e.lam[rows.edge][0]),
                "nonholonomic_norm": float(abs(e.Cdot[rows.edge][0])),
                "snow_load": load, "snow_load_bw": load / self.params.weight,
                "leg_angle_deg": math.degrees(math.atan2(float(np.linalg.norm(moment)), float(r @ leg))),
                "roll_moment": roll, "cop_offset": roll / load if load > 0 else math.nan, **poles}

    def point_columns_stack(self, E, seg, tau, q, qd) -> dict:
        """``point_columns`` at every point of one segment's ``EvaluationStack`` ``E`` (τ (k,),
        q and q̇ (k, nq)): the same columns as arrays, in array operations (the frame's fast path;
        tested against ``point_columns`` point by point)."""
        rows, i3 = seg.rows, self.cm.start
        leg = -np.einsum("kri,kr->ki", E.Cq[:, rows.leg, i3: i3 + 3], E.lam[:, rows.leg])
        v_rel = qd[:, i3: i3 + 3] - qd[:, :3]
        ski_e = self.ski_directions(q)
        if seg.mode:
            fric = row_dot(sum(E.forces[f][:, :3] for f in _FRICTION_FORCES if f in E.forces), ski_e)
        else:
            fric = -E.lam[:, rows.stick_index()]
        drag = np.linalg.norm(E.forces["drag"][:, i3: i3 + 3], axis=1) if "drag" in E.forces else np.zeros(len(tau))
        poles = pole_columns_stack(E, self.cm, qd)
        load = np.array([self.normal_load(t) for t in tau]) - poles["pole_fz"]
        r = q[:, i3: i3 + 3] - q[:, :3]
        r_hat = r / np.linalg.norm(r, axis=1)[:, None]
        moment = np.cross(r, leg)
        roll = row_dot(ski_e, moment)
        cop = np.full(len(tau), math.nan)
        np.divide(roll, load, out=cop, where=load > 0)
        return {"u": row_dot(qd[:, :3], ski_e), "leg_fx": leg[:, 0], "leg_fy": leg[:, 1], "leg_fz": leg[:, 2],
                "leg_force_bw": np.linalg.norm(leg, axis=1) / self.params.weight,
                "leg_force": row_dot(leg, r_hat), "leg_extension_speed": row_dot(r_hat, v_rel),
                "leg_power": E.row_power[:, rows.leg].sum(axis=1), "leg_power_translational": row_dot(leg, v_rel),
                "friction_force": fric, "drag_force": drag,
                "snow_force": -E.lam[:, rows.snow][:, 0], "edge_force": -E.lam[:, rows.edge][:, 0],
                "nonholonomic_norm": np.abs(E.Cdot[:, rows.edge][:, 0]),
                "snow_load": load, "snow_load_bw": load / self.params.weight,
                "leg_angle_deg": np.degrees(np.arctan2(np.linalg.norm(moment, axis=1), row_dot(r, leg))),
                "roll_moment": roll, "cop_offset": cop, **poles}


class _Friction:
    """−mode · μ N(τ), N = (M + m_s) g cos α + M z̈(τ): the sliding ski's friction along x̄ (signed),
    a callable of τ.  It holds its numbers and the height law itself, so that code generation
    traces it (``symbolic``) with each number a kernel parameter."""

    def __init__(self, model, sign):
        p = model.params
        self.scale = np.array([sign * p.friction_coefficient, p.body_mass + p.ski_mass, model.g_normal, p.body_mass])
        self.height = model.height_law

    def __call__(self, tau):
        k, m, g, M = self.scale
        return k * (m * g + M * float(self.height(tau)[2]))

    def symbolic(self, tau):
        if not isinstance(self.height, (Constant, Polynomial, Harmonic, ControlLaw)):
            raise NotImplementedError("a user's height law is evaluated numerically")
        k, m, g, M = self.scale
        return k * (m * g + M * self.height(tau)[2])


class _PoleUnloading(Force):
    """What the poles take off the sliding ski's friction: the snow's load loses the strut's
    vertical force F_z, so the friction −mode μ N e gains +mode μ F_z e, e the ski's axis, at
    the ski's origin (``scale`` = mode μ).  Written with the state's operations, so it is traced
    into the kernels (``TRACED``) with the strut's numbers."""

    TRACED = True

    def __init__(self, name, strut, ski, scale):
        self.name, self.strut, self.ski, self.scale = name, strut, ski, float(scale)
        self.origin, self.axis = np.zeros(3), np.array([1.0, 0.0, 0.0])

    def generalized(self, s):
        Q = np.zeros(s.nq, dtype=s.dtype)
        Fz = self.strut.force(s)[2]
        point_generalized_force(s, self.ski, self.origin, self.scale * Fz * s.vector(self.ski, self.axis).val, Q)
        return Q


def _rot_z(h):
    c, s = math.cos(h), math.sin(h)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
