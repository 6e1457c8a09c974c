"""The poles in a collocated stroke (the book's chapters "Poles, hills and the cost of work" and
"Optimal control").

V2 skating's poles (``skilib.strokes.poles``) are two massless struts from their tips in the snow
to the hands beside the centre of mass, pushing along themselves with F_p(τ) =
F_p,max sin²(π(τ − t_p)/t_c) while planted, t_p ≤ τ ≤ t_p + t_c.  The shooting stroke integrates
this in phases, with the struts in the system only while planted.  The transcription states it
once, on one system:

- the struts are in the system for the whole stroke, their magnitude a control (``POLE_CONTROL``)
  that is F_p(τ) in the contact and 0 outside it (a strut of magnitude 0 exerts nothing, and
  takes nothing off the ski's friction), so the stroke's equations are the shooting phases';
- the mesh has a knot at the plant and at the lift (``skilib.ocp.mesh.PhasedMesh``), so no
  interval straddles the push's switch and Hermite–Simpson keeps its order; F_p,max and t_c are
  law parameters (``POLE_LAW_PARAMETERS``), and with t_c free the lift's knot moves with it
  (``program_mesh``: the contact's intervals stretch, their count stays);
- the tips are planted beside the hands at the plant: T± = (X_B, Y_B ± (w_h + w_p), 0) at
  τ = t_p.  Nothing else in the equations depends on where the skier is, so the program puts
  B at X = Y = 0 at the plant (not the ski at τ = 0), and the tips are the numbers
  (0, ±(w_h + w_p), 0);
- the shooting stroke lifts a pole early if its hand falls behind its tip (X_B < X_T); the
  program instead keeps X_B ≥ X_T through the contact, a row that binds only for a skier who
  moves backwards;
- each pole is an actuator, its power F±·Ṙ_B (the struts' generalized force times q̇: the tips
  do not move); with poles the net budget counts the leg's and the arms' work, as the shooting
  stroke's ``mean_power`` does;
- free control (``skilib.ocp.control``) frees the push too: the control is then a spline of the
  contact, and the re-simulation gives the model's poles that spline as their push
  (``skilib.strokes.poles.PolePush``).
"""
from __future__ import annotations

import math

import numpy as np

from ..engine.codegen.casadi_terms import require_casadi
from ..engine.controls import ControlSignal
from ..strokes.poles import POLES, pole_tips
from .mesh import PhasedMesh

__all__ = ["PoledStroke", "POLE_CONTROL", "POLE_LAW_PARAMETERS"]

#: the name of the poles' magnitude in the terms' controls (both poles push alike)
POLE_CONTROL = "pole"
#: the poles' law parameters a collocated program may set free beside the model's: each pole's
#: peak push F_p,max [N] and the contact time t_c [s] (the lift t_p + t_c, a knot of the mesh,
#: moves with it: ``program_mesh``); the plant t_p stays fixed (the program is pinned there)
POLE_LAW_PARAMETERS = ("pole_force_max", "pole_contact_time")


class PoledStroke:
    """Mixin for a ``skilib.ocp.adapter.SkiStroke`` whose model has poles
    (``skilib.strokes.poles.Poled``; the module's docstring).  Call ``attach_poles`` before the
    model's system is built; without poles (F_p,max = 0) nothing changes."""

    poled = False
    pole_names: tuple = ()

    def attach_poles(self, model) -> tuple:
        """Give ``model`` the two struts with ``POLE_CONTROL`` as their magnitude and their tips
        planted beside B at X = Y = 0; returns the controls to add to the terms' (none without
        poles)."""
        p = model.params
        self.poled = p.pole_force_max > 0.0
        if not self.poled:
            return ()
        self.plant, self.lift = float(p.pole_start), float(p.pole_start + p.pole_contact_time)
        if not self.lift < p.stroke_time:
            raise ValueError(f"pole_contact_time: collocation needs the poles lifted before the stroke ends; "
                             f"pole_start + pole_contact_time = {self.lift:g} s, stroke_time {p.stroke_time:g} s")
        model.forces_common = list(model.forces_common) + model.pole_forces(pole_tips(np.zeros(3)),
                                                                           law=ControlSignal(POLE_CONTROL))
        self.pole_names = tuple(name for name, _ in POLES)
        # the peak push and the contact time are law parameters: one program serves every F_p,max > 0
        # and t_c, and an optimizer may set them free (``pole_row``, ``program_mesh``)
        self.law_parameters = tuple(self.law_parameters) + POLE_LAW_PARAMETERS  # the model's own (its crouch's)
        return (POLE_CONTROL,)

    # -- the mesh and the pin ---------------------------------------------------------------------
    def _breaks(self, lift=None) -> tuple:
        """The mesh's knots of the contact: the plant (where it comes after touch-down) and the
        lift (``lift``: another lift, a number or an expression; default the params')."""
        lift = self.lift if lift is None else lift
        return (self.plant, lift) if self.plant > 0 else (lift,)

    def mesh(self, nodes: int) -> PhasedMesh:
        """With poles, knots at the plant (if after touch-down) and the lift, the phases' intervals
        in proportion to their durations at the params' stroke time; else the even mesh."""
        if not self.poled:
            return PhasedMesh(nodes)
        return PhasedMesh.split(nodes, self._breaks(), self.base.stroke_time)

    def program_mesh(self, nodes: int, x: dict) -> PhasedMesh:
        """A program's mesh (``mesh``) with the lift at t_p + x["pole_contact_time"] (a number, a
        program parameter, or set free the row of its lifted copies at the intervals): the
        contact's intervals stretch with t_c, the phases' counts stay those split at the params'."""
        mesh = self.mesh(nodes)
        if not self.poled:
            return mesh
        return mesh.at_breaks(self._breaks(self.plant + x["pole_contact_time"]))

    def guess_mesh(self, nodes: int, params) -> PhasedMesh:
        """The mesh's points where a program of ``params``' technique has them (``program_mesh``
        at its t_c): a first guess's times."""
        if not self.poled:
            return super().guess_mesh(nodes, params)
        return PhasedMesh(nodes, self._breaks(float(params.pole_start + params.pole_contact_time)),
                          self.mesh(nodes).counts)

    def control_mesh_timed(self) -> bool:
        """With poles, free control's phases are sized for a stroke time (``control_mesh``)."""
        return self.poled

    def control_mesh(self, control_nodes: int, r: int, T: float | None = None) -> PhasedMesh:
        """Free control's mesh: with poles, ``control_nodes`` spline intervals split at the plant
        and the lift in proportion to the phases' durations at the stroke time ``T`` (None, or a
        stroke that ends at the lift: the params' stroke time), at least one a phase, each cut
        into r dynamics intervals, so every phase holds whole spline intervals; else the even mesh.

        The split is fixed when the program is built, the stroke time is not: a stroke that ends
        far from ``T`` has its phases' intervals out of proportion.  ``optimal_control`` sizes the
        fine program for the coarse optimum's stroke time.  Measured on the free skater with V2
        poles at 600 W metabolic, 100 intervals, splines on 25: sized for the params' 0.8 s, IPOPT
        stopped at 500 iterations twice; sized for the coarse optimum's 0.4 s, 43 iterations.
        Sized for 0.4 s from the start instead (the coarse program too), free control ended at
        longer strokes (1.3 s on 20 intervals, the 2.0 s cap on 40) whose splines the simulator
        refused: between the points, or in the second stroke, the snow's load fell below zero."""
        if not self.poled:
            return super().control_mesh(control_nodes, r, T)
        T = self.base.stroke_time if T is None or not T > self.lift else float(T)
        return PhasedMesh.split(control_nodes, self._breaks(), T, least=1).refined(r)

    def pin(self, opti, hs) -> None:
        """With poles, B at X = Y = 0 at the plant (the tips are planted there); else the ski's
        origin at X = Y = 0 at τ = 0."""
        if not self.poled:
            return super().pin(opti, hs)
        k, i = hs.mesh.knot(self.plant), self.cm.start
        opti.subject_to(hs.Q[i, k] == 0)
        opti.subject_to(hs.Q[i + 1, k] == 0)

    def shift_guess(self, tau, q) -> np.ndarray:
        """A guess's coordinates (points × n, at the times ``tau``) moved along X and Y so that it
        is pinned as the program is (``pin``)."""
        if not self.poled:
            return super().shift_guess(tau, q)
        i = self.cm.start
        xy = np.array([np.interp(self.plant, tau, q[:, i]), np.interp(self.plant, tau, q[:, i + 1])])
        q = q.copy()
        q[:, 0:2] -= xy
        q[:, i:i + 2] -= xy
        return q

    def point_system(self, model, frame):
        """With poles, τ → the shooting stroke's system with the struts planted (their tips where
        ``frame``'s centre of mass is at the plant) in the contact, the sliding ski's outside it."""
        plain = super().point_system(model, frame)
        if not self.poled:
            return plain
        tau_f = frame["tau"].to_numpy()
        at = [np.interp(self.plant, tau_f, frame[f"q{i}"]) for i in range(model.nq)]
        planted = model.phase_model("poles", self.plant, at, None).system(1)
        lift = float(model.params.pole_start + model.params.pole_contact_time)  # the frame's own contact
        return lambda tau: planted if self.plant <= tau <= lift else plain(tau)

    # -- the push ---------------------------------------------------------------------------------
    def pole_row(self, tau, x: dict):
        """F_p(τ) per pole at the times ``tau`` (a row): the sin² push in the contact, 0 outside,
        its peak ``x["pole_force_max"]`` and contact ``x["pole_contact_time"]`` the technique's (each a
        number, a program parameter or, set free, a row of the lifted copies at the times; the
        times ``tau`` lie on ``program_mesh``, so each point stays in its phase)."""
        ca = require_casadi()
        tc = x["pole_contact_time"]
        push = x["pole_force_max"] * ca.sin(math.pi / tc * (tau - self.plant)) ** 2
        return ca.if_else((tau >= self.plant) * (tau <= self.plant + tc), push, 0 * tau)

    def pole_knots(self, tau) -> np.ndarray:
        """The params' push F_p sin²(π(τ − t_p)/t_c) and its two derivatives at the times ``tau``
        within the contact (numbers, one row per time): free control's start."""
        p = self.base
        w = math.pi / p.pole_contact_time
        x = w * (np.asarray(tau, dtype=float) - self.plant)
        F = p.pole_force_max
        return np.column_stack([F * np.sin(x) ** 2, F * w * np.sin(2 * x), 2 * F * w**2 * np.cos(2 * x)])

    def pole_push(self, u) -> float:
        """Each pole's push [N] in a point's controls ``u`` (0 without poles)."""
        return float(u[self.terms.control_slice(POLE_CONTROL)][0]) if self.poled else 0.0

    def pole_columns(self, u) -> dict:
        """{pole_force: each pole's push [N]} of a point's controls ``u`` for a push frame ({}
        without poles)."""
        return {"pole_force": self.pole_push(u)} if self.poled else {}

    def pole_caps_report(self, frame, caps) -> dict:
        """With poles, {peak_pole_force: {value, cap, active}}: the largest push in ``frame``
        (a push frame) beside ``caps.peak_pole_force``; {} without."""
        if not self.poled:
            return {}
        top = float(frame["pole_force"].max())
        return {"peak_pole_force": dict(value=top, cap=float(caps.peak_pole_force),
                                        active=bool(top >= caps.peak_pole_force * (1 - 1e-6)))}

    def pole_force(self, name: str):
        """Pole ``name``'s generalized force as a one-point function's body (t, q, v, a, λ, u, terms)."""
        f = self.terms.force_names.index(name)

        def force(t, q, v, a, lam, u, T):
            return T["QF"][f, :].T
        return force

    def actuator_power(self, name: str):
        """A pole's power F±·Ṙ_B = Q±ᵀq̇ (its strut's generalized force: the tip does not move);
        a driver's as ``SkiStroke.actuator_power``."""
        if name not in self.pole_names:
            return super().actuator_power(name)
        force = self.pole_force(name)
        ca = require_casadi()

        def power(t, q, v, a, lam, u, T):
            return ca.dot(force(t, q, v, a, lam, u, T), v)
        return power

    def pole_lift_z(self, hs):
        """Σ F±,z, the poles' vertical push on B at the knots and midpoints (one row, the knots'
        then the midpoints'), 0 without poles: what the poles take off the snow's load."""
        ca = require_casadi()
        if not self.poled:
            return 0
        z = self.cm.start + 2
        fz = hs.one_point(lambda *a: sum(self.pole_force(n)(*a)[z] for n in self.pole_names))
        return ca.horzcat(hs.point(fz, knots=True), hs.point(fz, knots=False))

    def arm_push(self, hs) -> tuple:
        """((k_a, k_b), [(F, ℓ̇) per pole]): the contact's points in time order (knots and
        midpoints interleaved, points k_a to k_b: from the midpoint after the plant's knot to the
        one before the lift's; at those two knots the push is 0, and an arm that pushes nothing is
        not held to a speed) and, at each, the
        pole's push F [N] (the poles' control) and its arm's extension speed ℓ̇ = û·(Ẋ_B, Ẏ_B, 0)
        [m/s], û the unit vector from the tip (0, ±(w_h + w_p), 0) to the hand (X_B, Y_B ± w_h, z_h)
        (``pin``; ``skilib.strokes.poles.pole_columns``' ``<pole>_extension_speed``).  Without poles
        a ValueError naming ``force_velocity``."""
        if not self.poled:
            raise ValueError(f"force_velocity: the arms' limit needs poles (pole_force_max > 0); the {self.name}'s "
                             "stroke here has none")
        ca = require_casadi()
        from ..strokes.poles import HAND_HEIGHT, POLES, TIP_OUTWARD

        mesh, i = hs.mesh, self.cm.start
        k0, k1 = mesh.knot(self.plant), mesh.knot(self.lift)

        def interleave(knots, mids):
            cols = [mids[:, k0]]
            for k in range(k0 + 1, k1):
                cols += [knots[:, k], mids[:, k]]
            return ca.horzcat(*cols)

        X, Y = interleave(hs.Q[i:i + 1, :], hs.Qm[i:i + 1, :]), interleave(hs.Q[i + 1:i + 2, :], hs.Qm[i + 1:i + 2, :])
        Xd, Yd = interleave(hs.V[i:i + 1, :], hs.Vm[i:i + 1, :]), interleave(hs.V[i + 1:i + 2, :], hs.Vm[i + 1:i + 2, :])
        F = interleave(hs.U[-1:, :], hs.Um[-1:, :])
        out = []
        for _, side in POLES:
            dy = Y - side * TIP_OUTWARD
            out.append((F, (X * Xd + dy * Yd) / ca.sqrt(X**2 + dy**2 + HAND_HEIGHT**2)))
        return (2 * k0 + 1, 2 * k1 - 1), out

    def pole_rows(self, hs, x: dict | None = None) -> dict:
        """With poles, {name: rows ≥ 0}: each hand not behind its tip through the contact,
        X_B − X_T ≥ 0 (X_T = 0, ``pin``; the plant's knot, where it is 0, left out), and the
        stroke not shorter than the contact, T − (t_p + t_c) ≥ 0."""
        if not self.poled:
            return {}
        ca = require_casadi()
        mesh, i = hs.mesh, self.cm.start
        k0, k1 = mesh.knot(self.plant), mesh.knot(self.lift)
        ahead = ca.horzcat(hs.Q[i, k0 + 1:k1 + 1], hs.Qm[i, k0:k1])
        lift = self.lift if x is None else self.plant + x["pole_contact_time"]  # None: the params' (free control)
        return {"pole_hand_ahead_of_tip": ca.vec(ahead), "pole_contact_within_stroke": hs.T - lift}
