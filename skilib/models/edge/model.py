"""The edged skater: a leg that only pushes, along itself, from the ski's edge (the book's
chapter "The edged skater").

The free skater places its centre of mass relative to the ski with three drivers, so its "leg"
force may point anywhere and carry any roll moment, and its snow load is prescribed.  Here the
body is an inverted pendulum over the ski's edge: a massless leg from the binding P (the ski's
origin, on its axis) to the centre of mass, whose length across the ski is prescribed and whose
lean is free, in the spirit of the speed-skating models of Fintelman, den Braver & Schwab (2011)
and van der Kruk et al. (2017).

Bodies: the stance ski (a box, x̄ along it) and the body B (a point mass at the CM, held upright:
its posture drivers take no work).  Stance on side s (+1 right, −1 left), e the ski's axis, n
its left normal, r = R_B − P, τ ∈ [0, T]::

    ski on the snow:  z_P = 0, flat, heading ψ(τ) = s(−a/2 + Δψ σ(τ/T))
    knife edge:       n · Ṙ_P = 0                                  (a velocity row)
    fore–aft:         e · r = x_f                                   (the CM over the binding)
    leg:              |r − (e·r) e| = ℓ(τ) = ℓ0 + Δℓ σ(τ/T)         (across the ski's axis)

Nothing holds the lean φ of r⊥ = r − (e·r)e from the vertical (the ski's edging angle): two
velocity freedoms, the ski's speed u along itself and the lean rate.  The leg's multiplier is
the force along r⊥/ℓ, F = −λ_leg (F > 0: the leg pushes the CM away from the edge); its power
is F ℓ̇.  Forces: gravity (g(−sin α, 0, −cos α) on a course rising at α = ``slope_deg``
along X), air drag at the CM, and Coulomb friction μN along the ski against
its sliding, N the snow row's multiplier (``skilib.engine.LoadFriction``): the real load, which
includes the leg's push, solved with q̈ and λ in one linear system.

A stroke starts at touch-down: the new ski lands ``landing_offset`` d0 outside the CM (for the
right ski, to the CM's right), fore–aft x_f, heading ψ(0), and ℓ0 = √(d0² + z_B²) follows from
the CM's height z_B then (``skilib.models.edge.run``: the plastic change of ski of
``skilib.strokes.touchdown``).

Admissible motion (``point_columns``, per stroke in the run's table): the leg pushes (F ≥ 0), the
snow pushes (N ≥ 0; a solve with N < 0 is refused by ``LoadFriction``), the leg stays within
``max_leg_length`` and the lean within ``max_lean_deg``.  The ski keeps gliding: a stuck ski
(u = 0) is not modelled and is refused, naming the time.
"""
from __future__ import annotations

import math

import numpy as np

from ...engine.axis_drivers import AxialOffsetDriver, RadialDistanceDriver
from ...engine.bodies import ROTATIONS
from ...engine.load_friction import LoadFriction
from ...engine.evaluation import row_dot
from ...engine.rotation import ZXZ
from ...engine.system import MultibodySystem
from ...strokes.laws import SIDES, mirrored, side_sign, smooth_turn
from ...strokes.poles import Poled, pole_columns, pole_columns_stack
from ...strokes.ski import FlatSki
from ...strokes.work import extra_states
from .params import EdgeLaws, EdgeSkaterParams

__all__ = ["EdgeSkaterModel", "EDGE_WORK_TERMS", "EDGE_ACTUATORS", "SkiStopped"]

_EZ = np.array([0.0, 0.0, 1.0])

#: the edged skater's works over a stroke [J]: the three drivers (leg, fore–aft, heading), the
#: forces, the edge and the snow, B's posture drivers and the rest (Euler-parameter norms)
EDGE_WORK_TERMS = ("work_leg", "work_fore_aft", "work_heading", "work_friction", "work_gravity", "work_drag",
                   "work_edge", "work_posture", "work_other")
#: the edged skater's actuators, the drivers a muscle works (leg, fore–aft, heading): the cost of
#: work counts their positive and negative works (``skilib.strokes.work``)
EDGE_ACTUATORS = ("work_leg", "work_fore_aft", "work_heading")


class SkiStopped(ValueError):
    """The edged skater's ski stopped gliding (u = 0): a stuck ski is not modelled."""


class _EdgeRows:
    """Where the edged skater's rows sit in a system: leg, fore_aft, edge, snow, heading and
    posture (lists of slices), the rest, and the CM's x in q."""

    def __init__(self, model, system):
        self.stick = None
        self.leg, self.fore_aft = system.rows("leg"), system.rows("fore_aft")
        self.edge, self.snow = system.rows("edge"), system.rows("snow")
        self.heading = [system.rows(n) for n in model.heading_rows]
        self.posture = [system.rows(n) for n in model.posture_rows]
        self.model = np.arange(system.nc)
        self.cm = model.cm.start
        named = {r for sl in [self.leg, self.fore_aft, self.edge, self.snow, *self.heading, *self.posture]
                 for r in range(sl.start, sl.stop)}
        self.other = [slice(r, r + 1) for r in range(system.nc) if r not in named]

    def stick_index(self) -> int:
        raise SkiStopped("the edged skater has no stuck mode")


def heading_law(params: EdgeSkaterParams):
    """The ski's heading ψ(τ) of the parameters' technique on the right ski (mirrored on the
    left): half the V-angle outwards at touch-down, turned in by the steer over the stroke
    (``smooth_turn``)."""
    return smooth_turn(-math.radians(params.skating_angle_deg) / 2, math.radians(params.steer_deg), params.stroke_time)


class EdgeSkaterModel(Poled, FlatSki):
    """One stroke of the edged skater on side ``side``, its ski's origin at ``start_point`` and
    its leg ``leg_start`` ℓ0 long across the ski at τ = 0 and the ski ``landing_offset`` d0
    outside the CM then (default ``params.landing_offset``; the module's docstring).  Implements
    what ``skilib.strokes.stroke.Stroke`` needs of a model; its systems are evaluated by the
    compiled kernels or the numeric engine (``simulate_edge``'s ``compiled``), which both
    assemble the friction on the snow's load as a column of eq. 101.

    With poles (``params.pole_force_max`` > 0; ``skilib.strokes.poles``) the stroke has phases,
    the poles' works are two more works and actuators, and the snow row's load carries what the
    poles do not."""

    #: the drivers whose positive and negative works are integrated (the cost of work)
    actuators = EDGE_ACTUATORS
    #: the works of the leg: its length driver and the fore–aft driver, the two that act between
    #: the binding and the CM (``skilib.strokes.poles.pole_summary``)
    LEG_WORKS = ("work_leg", "work_fore_aft")
    extra_states = extra_states(EDGE_WORK_TERMS, EDGE_ACTUATORS)
    REACTIONS = ()
    N_FRAME_ROWS = 0

    def __init__(self, params: EdgeSkaterParams, side: str, start_point, leg_start: float, rotation: str = "zxz",
                 landing_offset: float | None = None, laws: EdgeLaws | None = None):
        if side not in SIDES:
            raise ValueError(f"side: must be one of {SIDES}, got {side!r}")
        if rotation not in ROTATIONS:
            raise ValueError(f"rotation: must be one of {tuple(ROTATIONS)}, got {rotation!r}")
        self.params = p = params
        self.side, self.sign, self.rotation = side, side_sign(side), rotation
        self.P = np.array(start_point, dtype=float)
        self.leg_start = float(leg_start)
        #: where the ski landed across the CM at τ = 0 [m] (``params.landing_offset`` unless a
        #: landing rule chose another)
        self.landing_offset = p.landing_offset if landing_offset is None else float(landing_offset)
        if laws is None:
            laws = EdgeLaws(heading_law(p), smooth_turn(self.leg_start, p.leg_extension, p.stroke_time))
        elif not isinstance(laws, EdgeLaws):
            raise ValueError(f"laws: must be None (the params' laws) or an EdgeLaws, got {type(laws).__name__}")
        self.laws = laws
        self.heading_law = mirrored(laws.heading, self.sign)
        self.leg_law = laws.leg
        rows, self.forces_common = self.build_on_snow(p, rotation)
        O, ex = np.zeros(3), [1.0, 0.0, 0.0]
        self.constraints = (
            *rows,
            AxialOffsetDriver("fore_aft", self.ski, O, ex, self.body, O, p.fore_aft),
            RadialDistanceDriver("leg", self.ski, O, ex, self.body, O, self.leg_law),
        )
        self._systems = {}
        self.count_pole_works(EDGE_WORK_TERMS, EDGE_ACTUATORS)

    @staticmethod
    def touchdown_axes(params: EdgeSkaterParams, side: str, laws: EdgeLaws | None = None):
        """(e, n) of a stroke on ``side`` at τ = 0, as ``axes(0.0)`` of its model gives them: they
        follow from the heading's law alone, not from where the ski lands or the leg's length, so
        a touch-down places the new ski with them before its model is built."""
        law = heading_law(params) if laws is None else laws.heading
        h = float(mirrored(law, side_sign(side))(0.0)[0])
        return np.array([math.cos(h), math.sin(h), 0.0]), np.array([-math.sin(h), math.cos(h), 0.0])

    # -- what the stroke machinery needs --------------------------------------------------
    def system(self, mode: int, anchor=None) -> MultibodySystem:
        """The system sliding forwards (mode +1) or backwards (−1): friction μN along the ski
        against the sliding, N the snow row's load.  Mode 0 (stuck) is not modelled."""
        if mode not in (1, -1):
            raise SkiStopped("the edged skater's ski stopped gliding: a stuck ski is not modelled")
        if mode not in self._systems:
            fric = LoadFriction("friction", self.ski, np.zeros(3), [1.0, 0.0, 0.0], "snow",
                                mu=self.params.friction_coefficient, load_sign=-1, sign=mode)
            self._systems[mode] = MultibodySystem(self.bodies, self.constraints, self.forces_common + [fric])
        return self._systems[mode]

    def friction_limit(self, tau) -> float:
        """Asked by the stroke machinery only when the ski's speed reaches zero: refused."""
        raise SkiStopped(f"the edged skater's ski stopped gliding at τ = {float(tau):.6g} s (u = 0): a stuck ski "
                         "is not modelled (the technique does not glide)")

    def stick_anchor(self, tau, q):
        return None

    def rows(self, system) -> _EdgeRows:
        return _EdgeRows(self, system)

    def work_terms(self, rows: _EdgeRows) -> dict:
        return {"work_leg": ((), [rows.leg], False), "work_fore_aft": ((), [rows.fore_aft], False),
                "work_heading": ((), rows.heading, False), "work_friction": (("friction",), [], False),
                "work_gravity": (("gravity",), [], False), "work_drag": (("drag",), [], False),
                "work_edge": ((), [rows.edge, rows.snow], False), "work_posture": ((), rows.posture, False),
                "work_other": ((), rows.other, False), **self.pole_work_terms()}

    def pose(self, tau: float = 0.0) -> np.ndarray:
        """The coordinates at τ (0: touch-down) with the leg leaning inwards at the landing
        offset: R_B = P + x_f e + s d0 n + z ẑ, z = √(ℓ(τ)² − d0²)."""
        p = self.params
        e, n = self.axes(tau)
        ell = float(self.leg_law(tau)[0])
        z = math.sqrt(ell * ell - self.landing_offset ** 2)
        R_b = self.P + p.fore_aft * e + self.sign * self.landing_offset * n + z * _EZ
        rot = self.ski.rotation
        if rot is ZXZ:
            return np.concatenate([self.P, [self.heading(tau), 0.0, 0.0], R_b, [0.0, 0.0, 0.0]])
        c, s = math.cos(self.heading(tau)), math.sin(self.heading(tau))
        A = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        return np.concatenate([self.P, rot.from_matrix(A), R_b, rot.from_matrix(np.eye(3))])

    def leg_vector(self, q) -> np.ndarray:
        """r⊥ = r − (e·r) e, r = R_B − P: the leg across the ski's axis."""
        q = np.asarray(q)
        e = self.ski_direction(q)
        r = q[self.cm] - q[:3]
        return r - (e @ r) * e

    def lean_deg(self, q) -> float:
        """The lean of the leg from the vertical [°], positive towards the inside (the CM on
        the side of the next ski: +n for the right ski)."""
        e = self.ski_direction(q)
        n = np.cross(_EZ, e)
        v = self.leg_vector(q)
        return math.degrees(math.atan2(self.sign * float(v @ n), float(v @ _EZ)))

    def point_columns(self, e, seg, tau, q, qd) -> dict:
        """u; the leg force F along the leg (> 0 pushing), its length, its extension speed ℓ̇ (the
        leg law's rate: the row holds the length to it) and lean, the leg's power
        F ℓ̇ (its row's), the fore–aft and heading drivers' power; leg_fx, leg_fy, leg_fz, the
        force of the leg and fore–aft drivers on B [N]; the snow's load N (the snow row's
        multiplier), friction μN, drag, the edge's lateral force; the poles' force on B and power
        (``skilib.strokes.poles.pole_columns``; 0 without poles or out of their contact)."""
        rows, p = seg.rows, self.params
        leg = -float(e.lam[rows.leg][0])
        i3 = self.cm.start
        drivers = [rows.leg, rows.fore_aft]
        leg_vec = -sum(e.Cq[sl, i3: i3 + 3].T @ e.lam[sl] for sl in drivers)
        ski_e = self.ski_direction(q)
        drag = float(np.linalg.norm(e.forces["drag"][self.cm])) if "drag" in e.forces else 0.0
        power = e.row_power
        return {"u": float(qd[:3] @ ski_e), "leg_force": leg, "leg_force_bw": leg / p.weight,
                "leg_length": float(np.linalg.norm(self.leg_vector(q))),
                "leg_extension_speed": float(self.leg_law(tau)[1]), "lean_deg": self.lean_deg(q),
                "leg_power": float(power[rows.leg].sum()), "fore_aft_power": float(power[rows.fore_aft].sum()),
                "heading_power": float(sum(power[sl].sum() for sl in rows.heading)),
                "snow_load": -float(e.lam[rows.snow][0]), "snow_load_bw": -float(e.lam[rows.snow][0]) / p.weight,
                "friction_force": float(e.forces["friction"][:3] @ ski_e), "drag_force": drag,
                "edge_force": -float(e.lam[rows.edge][0]), "nonholonomic_norm": float(abs(e.Cdot[rows.edge][0])),
                "leg_fx": float(leg_vec[0]), "leg_fy": float(leg_vec[1]), "leg_fz": float(leg_vec[2]),
                **pole_columns(e, self.cm, qd)}

    def point_columns_stack(self, E, seg, tau, q, qd) -> dict:
        """``point_columns`` at every point of one segment's ``EvaluationStack`` ``E`` (τ (k,),
        q and q̇ (k, nq)): the same columns as arrays, in array operations (the frame's fast path;
        tested against ``point_columns`` point by point)."""
        rows, p, i3 = seg.rows, self.params, self.cm.start
        leg = -E.lam[:, rows.leg][:, 0]
        leg_vec = -sum(np.einsum("kri,kr->ki", E.Cq[:, sl, i3: i3 + 3], E.lam[:, sl]) for sl in (rows.leg, rows.fore_aft))
        ski_e = self.ski_directions(q)
        r = q[:, self.cm] - q[:, :3]
        across = r - row_dot(ski_e, r)[:, None] * ski_e  # ``leg_vector``
        lean = np.degrees(np.arctan2(self.sign * row_dot(across, np.cross(_EZ, ski_e)), across[:, 2]))
        drag = np.linalg.norm(E.forces["drag"][:, self.cm], axis=1) if "drag" in E.forces else np.zeros(len(tau))
        power = E.row_power
        snow = -E.lam[:, rows.snow][:, 0]
        return {"u": row_dot(qd[:, :3], ski_e), "leg_force": leg, "leg_force_bw": leg / p.weight,
                "leg_length": np.linalg.norm(across, axis=1),
                "leg_extension_speed": np.array([float(self.leg_law(t)[1]) for t in tau]), "lean_deg": lean,
                "leg_power": power[:, rows.leg].sum(axis=1), "fore_aft_power": power[:, rows.fore_aft].sum(axis=1),
                "heading_power": sum(power[:, sl].sum(axis=1) for sl in rows.heading),
                "snow_load": snow, "snow_load_bw": snow / p.weight,
                "friction_force": row_dot(E.forces["friction"][:, :3], ski_e), "drag_force": drag,
                "edge_force": -E.lam[:, rows.edge][:, 0], "nonholonomic_norm": np.abs(E.Cdot[:, rows.edge][:, 0]),
                "leg_fx": leg_vec[:, 0], "leg_fy": leg_vec[:, 1], "leg_fz": leg_vec[:, 2],
                **pole_columns_stack(E, self.cm, qd)}
