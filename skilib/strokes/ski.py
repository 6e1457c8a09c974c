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

__all__ = ["FlatSki"]


class FlatSki:
    """Mixin: the flat ski's axes, speed and acceleration (the module's docstring)."""

    def heading(self, tau) -> float:
        """ψ(τ) [rad], the ski's heading from the law."""
        return float(self.heading_law(tau)[0])

    def axes(self, tau):
        """e (along the ski) and n (its left normal) at τ from the heading law."""
        h = self.heading(tau)
        return np.array([math.cos(h), math.sin(h), 0.0]), np.array([-math.sin(h), math.cos(h), 0.0])

    def ski_direction(self, q) -> np.ndarray:
        return self.ski.rotation.A(np.asarray(q)[3: self.ski.nq])[:, 0]

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
        heading = np.degrees(np.array([math.atan2(*self.ski_direction(qk)[1::-1]) for qk in q]))
        return {"ski_heading_deg": heading}
