"""The smallest skating model on the shared stroke machinery, with closed forms to test it by.

A sliding block: one rigid box of mass m on the snow, held on the line y = z = 0 and
upright (five coordinate rows), pushed along +X by a constant force F in every stroke against
Coulomb friction μ m g (static = kinetic magnitude) and the drag ½ ρ CdA v².  Strokes
alternate sides with the block going straight on; the touch-down keeps its state.  Its one
velocity degree of freedom obeys

    m v̇ = F − μ m g − k v²,        k = ½ ρ CdA,

so from rest (F > μ m g) v(t) = v* tanh(t k v*/m), x(t) = (m/k) ln cosh(t k v*/m) with the
terminal speed v* = √((F − μ m g)/k), and the periodic stroke (Φ(u0) = u0) starts at u0 = v*.
With F ≤ μ m g the block started at rest stays stuck, the static friction equal to F.

It shows what a model supplies to ``skilib.strokes``: ``BlockModel`` is the system of one
stroke (what ``Stroke`` reads), ``BlockSkating`` the start, touch-down and run of it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..engine.bodies import RigidBody, box_inertia
from ..engine.constraints import FixedCoordinate
from ..engine.forces import AxisForce, ConstantForce, Drag
from ..engine.options import Integrator, Stabilization
from ..engine.system import MultibodySystem
from .frame import output_grid
from .run import RunSettings, Skating
from .stroke import MAX_STEP_DIVISOR, Budget
from .work import extra_states

__all__ = ["BlockParams", "BlockModel", "BlockSkating", "block_settings"]

#: the block's works over a stroke [J]: their sum is its change of kinetic energy
BLOCK_WORK_TERMS = ("work_push", "work_friction", "work_drag", "work_rows")


@dataclass(frozen=True)
class BlockParams:
    """mass m [kg], push F [N], friction coefficient μ, g [m/s²], air density ρ [kg/m³], CdA [m²],
    stroke time T [s]."""
    mass: float = 80.0
    push: float = 60.0
    friction_coefficient: float = 0.03
    g: float = 9.81
    air_density: float = 1.2
    cda: float = 0.5
    stroke_time: float = 0.8

    @property
    def k(self) -> float:
        """½ ρ CdA [kg/m]."""
        return 0.5 * self.air_density * self.cda

    @property
    def terminal_speed(self) -> float:
        """v* = √((F − μ m g)/k) [m/s] (0 if the push does not beat friction)."""
        return math.sqrt(max(0.0, self.push - self.friction_coefficient * self.mass * self.g) / self.k)


class _BlockRows:
    def __init__(self, system):
        names = [c.name for c in system.constraints]
        self.stick = system.rows("stick") if "stick" in names else None
        keep = np.ones(system.nc, dtype=bool)
        if self.stick is not None:
            keep[self.stick] = False
        self.model = np.nonzero(keep)[0]
        self.held = [slice(int(r), int(r) + 1) for r in self.model]
        self.cm = 0

    def stick_index(self) -> int:
        return self.stick.start


class BlockModel:
    """One stroke of the sliding block on ``side`` (module docstring)."""

    extra_states = extra_states(BLOCK_WORK_TERMS)
    REACTIONS = ()
    N_FRAME_ROWS = 0

    def __init__(self, params: BlockParams, side: str):
        self.params, self.side = params, side
        p = params
        self.body = RigidBody("block", p.mass, box_inertia(p.mass, 1.0, 0.1, 0.1))
        self.nq, self.cm = self.body.nq, slice(0, 3)
        O = np.zeros(3)
        self.rows_held = tuple(FixedCoordinate(f"hold{k}", self.body, k, 0.0) for k in (1, 2, 3, 4, 5))
        self.forces = [ConstantForce("push", self.body, O, [p.push, 0.0, 0.0]),
                       Drag("drag", self.body, O, rho=p.air_density, cda=p.cda)]
        self._systems = {}

    def system(self, mode: int, anchor=None) -> MultibodySystem:
        """Mode ±1 sliding (friction ∓μ m g along X), 0 stuck at x = ``anchor``."""
        if mode == 0:
            stick = FixedCoordinate("stick", self.body, 0, anchor)
            return MultibodySystem([self.body], self.rows_held + (stick,), self.forces)
        if mode not in self._systems:
            mu_mg = self.params.friction_coefficient * self.params.mass * self.params.g
            fric = AxisForce("friction", self.body, np.zeros(3), [1.0, 0.0, 0.0], lambda t, f=-mode * mu_mg: f)
            self._systems[mode] = MultibodySystem([self.body], self.rows_held, self.forces + [fric])
        return self._systems[mode]

    def rows(self, system) -> _BlockRows:
        return _BlockRows(system)

    def work_terms(self, rows) -> dict:
        stick = [rows.stick] if rows.stick is not None else []
        return {"work_push": (("push",), [], False), "work_friction": (("friction",), stick, False),
                "work_drag": (("drag",), [], False), "work_rows": ((), rows.held, False)}

    def ski_speed(self, tau, q, qd) -> float:
        return float(qd[0])

    def ski_acceleration(self, tau, q, qd, qdd) -> float:
        return float(qdd[0])

    def stick_anchor(self, tau, q) -> float:
        return float(q[0])

    def friction_limit(self, tau) -> float:
        p = self.params
        return p.friction_coefficient * p.mass * p.g

    def point_columns(self, e, seg, tau, q, qd) -> dict:
        return {}

    def grid_columns(self, grid, q, qd, lam, segments) -> dict:
        return {}


class BlockSkating(Skating):
    """The block's strokes joined by a touch-down that keeps its state (module docstring)."""

    work_terms = BLOCK_WORK_TERMS
    power_term = "work_push"
    change_columns = ("stroke", "ke_loss")
    admissibility = {"min_ski_speed": ("cm_vx", "min")}

    def __init__(self, params: BlockParams):
        self.params, self.stroke_time = params, params.stroke_time
        self.models = {side: BlockModel(params, side) for side in ("right", "left")}

    def start(self, u):
        q, qd = np.zeros(6), np.zeros(6)
        qd[0] = u
        return self.models["right"], q, qd

    def touch_down(self, k, model, q, qd):
        new = self.models["left" if model.side == "right" else "right"]
        return new, q.copy(), qd.copy(), dict(stroke=k + 1, ke_loss=0.0)


def block_settings(params: BlockParams, *, compiled: bool = False, rtol: float = 1e-11, atol: float = 1e-11,
                   dt_out: float = 0.01) -> RunSettings:
    """Solver settings for the block: no stabilization is needed (its rows are linear and met
    exactly), DOP853 at ``rtol``/``atol``."""
    stab = Stabilization.make("none")
    T = params.stroke_time
    integ = Integrator.make("DOP853", rtol=rtol, atol=atol, max_step=T / MAX_STEP_DIVISOR, stabilization=stab)
    return RunSettings(stab, integ, output_grid(T, dt_out, None), compiled, Budget(1_000_000))
