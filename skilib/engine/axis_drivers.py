"""Drivers of a point's cylindrical coordinates about a body's axis.

For a point P_j of body j, a point P_i and a unit axis a = A_i ā of body i, and
d = r_Pj − r_Pi, the point's axial and radial coordinates about the axis are::

    x = a·d,        ρ = |d⊥|,  d⊥ = d − (a·d) a

``AxialOffsetDriver``  a·d − x(t) = 0      1 row: the point's place along the axis
``RadialDistanceDriver``  |d⊥| − ρ(t) = 0  1 row: its distance from the axis

A massless strut from P_i to P_j whose length across the axis is prescribed (a leg in the
plane normal to a ski) is the radial driver: its multiplier λ gives the force −λ d⊥/ρ on
body j (the strut's push along d⊥/ρ is −λ), and on body i the opposite force at P_i with,
where a·d ≠ 0, the moment of the axis's turning (the product rule of the jets,
``skilib.engine.kinematics``, gives exact Jacobians and Qd).  The lean of d⊥ about the axis is
left free: these drivers fix two of the point's three cylindrical coordinates.
"""
from __future__ import annotations

from .constraints import Constraint, body_point, unit_vector
from .kinematics import dot, norm, stack, time_jet, times
from .timefunctions import TimeFunction, as_time_function
from .validation import check_number

__all__ = ["AxialOffsetDriver", "RadialDistanceDriver"]


class _AxisDriver(Constraint):
    n = 1

    def __init__(self, name, body_i, point_i, axis_i, body_j, point_j, law, *, positive: bool, law_name: str):
        if body_i is None:
            raise ValueError(f"{name}: the axis must belong to a body (body_i)")
        self.name = name
        self.bodies = (body_i, body_j)
        self.ui, self.uj = body_point(body_i, point_i), body_point(body_j, point_j)
        self.axis = unit_vector(axis_i, f"{name}: axis_i")
        if not isinstance(law, TimeFunction) and not callable(law):
            law = check_number(f"{name}: {law_name}", law, positive=positive, unit="m")
        self.law = as_time_function(law, f"{name}: {law_name}")
        self.reaction_points = ((body_i, self.ui), (body_j, self.uj))

    def _parts(self, s):
        bi, bj = self.bodies
        d = s.point(bj, self.uj) - s.point(bi, self.ui)
        a = s.vector(bi, self.axis)
        f, fd, fdd = s.law(self.law)
        return d, a, time_jet(f, fd, fdd, s.nq)


class AxialOffsetDriver(_AxisDriver):
    """a·(r_Pj − r_Pi) = x(t): point P_j of body j is x(t) along body i's axis ā from P_i."""

    def __init__(self, name, body_i, point_i, axis_i, body_j, point_j, offset):
        super().__init__(name, body_i, point_i, axis_i, body_j, point_j, offset, positive=False, law_name="offset")

    def jet(self, s):
        d, a, x = self._parts(s)
        return stack([dot(a, d) - x])


class RadialDistanceDriver(_AxisDriver):
    """|d − (a·d) a| = ρ(t), d = r_Pj − r_Pi: point P_j of body j is ρ(t) from body i's axis ā
    through P_i (a strut across the axis of prescribed length; its multiplier λ makes the force
    −λ d⊥/ρ on body j)."""

    def __init__(self, name, body_i, point_i, axis_i, body_j, point_j, distance):
        super().__init__(name, body_i, point_i, axis_i, body_j, point_j, distance, positive=True, law_name="distance")

    def jet(self, s):
        d, a, rho = self._parts(s)
        perp = d - times(dot(a, d), a)
        return stack([norm(perp) - rho])
