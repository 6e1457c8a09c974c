"""The kinematics of a flat ski on the snow that several skating models share.

A model that has a ski body ``self.ski`` lying flat on the snow with its heading prescribed by
``self.heading_law`` (a time function of τ, mirrored for the side) gets from ``FlatSki`` its
axes and the ski's speed and acceleration along itself, u = e·Ṙ_ski and
u̇ = e·R̈_ski + (ω × e)·Ṙ_ski, the variables of the stroke machinery's friction modes
(``skilib.strokes.stroke``), and the heading column of a stroke's frame.
"""
from __future__ import annotations

import math

import numpy as np

from ..engine.bodies import ROTATIONS, RigidBody, box_inertia
from ..engine.constraints import CoordinateDriver, FixedCoordinate, OrientationDriver
from ..engine.forces import Drag, Gravity
from ..engine.nonholonomic import KnifeEdge
from ..engine.timefunctions import Constant, RotationPath
from .params import course_gravity

__all__ = ["FlatSki"]

_EZ = np.array([0.0, 0.0, 1.0])


class FlatSki:
    """Mixin: the flat ski's bodies and rows, its axes, speed and acceleration (the module's
    docstring)."""

    def build_on_snow(self, p, rotation: str):
        """The stance ski (a box of ``p``'s ski dimensions) and the body B (a point of mass
        ``p.body_mass`` at the CM with ``p.body_inertia``), in ``rotation``, and the rows every
        flat-ski model has: the ski on the snow (its height row ``snow`` and, in ZXZ angles, its
        θ and ψ held), its heading driven by ``self.heading_law`` (rows ``heading_rows``), B held
        upright (``posture_rows``) and the knife edge at the ski's origin (``edge``); with the
        common forces, gravity (tilted for the course's inclination ``p.slope_deg``:
        g(−sin α, 0, −cos α), ``skilib.strokes.params.course_gravity``) and (``p.air_drag``) air
        drag at the CM.  Sets ski, body,
        bodies, nq, cm (B's position in q); returns (rows, forces)."""
        rot = ROTATIONS[rotation]
        self.ski = RigidBody("ski", p.ski_mass, box_inertia(p.ski_mass, p.ski_length, p.ski_width, p.ski_height),
                             rotation=rot)
        self.body = RigidBody("body", p.body_mass, list(p.body_inertia), rotation=rot)
        self.bodies = (self.ski, self.body)
        self.nq = self.ski.nq + self.body.nq
        self.cm = slice(self.ski.nq, self.ski.nq + 3)
        O = np.zeros(3)
        if rotation == "zxz":  # flat ski: θ and ψ held, φ the heading; B: all three angles held
            ski_or = (FixedCoordinate("ski_theta", self.ski, 4, 0.0), FixedCoordinate("ski_psi", self.ski, 5, 0.0),
                      CoordinateDriver("ski_heading", self.ski, 3, self.heading_law))
            posture = tuple(FixedCoordinate(f"body_{a}", self.body, k, 0.0)
                            for a, k in (("phi", 3), ("theta", 4), ("psi", 5)))
        else:
            ski_or = (OrientationDriver("ski_heading", self.ski, RotationPath(np.eye(3), _EZ, self.heading_law)),)
            posture = (OrientationDriver("body_posture", self.body, Constant(np.eye(3))),)
        self.heading_rows = tuple(c.name for c in ski_or)
        self.posture_rows = tuple(c.name for c in posture)
        rows = (FixedCoordinate("snow", self.ski, 2, 0.0), *ski_or, *posture, KnifeEdge("edge", self.ski, O, [0.0, 1.0, 0.0]))
        forces = [Gravity(g=course_gravity(p.g, p.slope_deg))]
        if p.air_drag:
            forces.append(Drag("drag", self.body, O, rho=p.air_density, cda=p.cda))
        return rows, forces

    def heading(self, tau) -> float:
        """ψ(τ) [rad], the ski's heading from the law."""
        return float(self.heading_law(tau)[0])

    def axes(self, tau):
        """e (along the ski) and n (its left normal) at τ from the heading law."""
        h = self.heading(tau)
        return np.array([math.cos(h), math.sin(h), 0.0]), np.array([-math.sin(h), math.cos(h), 0.0])

    def ski_direction(self, q) -> np.ndarray:
        return self.ski.rotation.A(np.asarray(q)[3: self.ski.nq])[:, 0]

    def ski_directions(self, q) -> np.ndarray:
        """``ski_direction`` at k states at once (q: k × nq; k × 3), bit for bit the same (the
        rotation's ``A_stack``)."""
        return self.ski.rotation.A_stack(np.asarray(q)[:, 3: self.ski.nq])[:, :, 0]

    def ski_speed_axis(self):
        """u = x̄_ski · Ṙ_ski as (the ski body, the index of Ṙ_ski's x in q̇): the stroke's event u = 0
        on a ski whose line turns, watched in compiled code (``skilib.strokes.stroke``)."""
        return self.ski, 0

    def ski_speed(self, tau, q, qd) -> float:
        """u = e · Ṙ_ski, the ski's speed along itself."""
        return float(np.asarray(qd)[:3] @ self.ski_direction(q))

    def ski_acceleration(self, tau, q, qd, qdd) -> float:
        """u̇ = e · R̈_ski + (ω × e) · Ṙ_ski."""
        rot, k = self.ski.rotation, self.ski.nq
        e = self.ski_direction(q)
        w = rot.G(np.asarray(q)[3:k]) @ np.asarray(qd)[3:k]
        return float(np.asarray(qdd)[:3] @ e + np.cross(w, e) @ np.asarray(qd)[:3])

    def grid_columns(self, grid, q, qd, lam, segments) -> dict:
        heading = np.degrees(np.array([math.atan2(ey, ex) for ex, ey in self.ski_directions(q)[:, :2].tolist()]))
        return {"ski_heading_deg": heading}
