"""What every skating model's stroke adapter shares: a flat ski and a body B whose period closes
by the plastic change of ski, mirrored (the book's chapter "Optimal control").

The models with a swing ski (the free skater, the edged skater) change ski the same way
(``skilib.strokes.touchdown``): the old ski merges into B, (M + m_s) v_c = M Ṙ_B + m_s Ṙ_s; the
new ski, on the other side, leaves B at v_c; the plastic impact projects the velocities,
mass-weighted, onto the new stance's rows.  The next stroke is this one's mirror image
(Y → −Y), so the state after the touch-down, mirrored, is this stroke's start.  With S the
mirror (``MIRROR``: Y and every ZXZ angle negated) the period closes by the projection's KKT
conditions at τ = 0::

    M(q₀)(q̇₀ − q̇_c) + C_q(q₀)ᵀ ν = 0,   C_q(q₀) q̇₀ + C_t = 0,   q̇_c = (S₃v_c, 0, S₃v_c, 0)

(ν the impulses), the start on its rows with the ski's origin at X = Y = 0 (nothing in the
equations depends on where the ski is) and what the model's touch-down says of the pose
(``start_conditions``: where the new ski lands beside the centre of mass, which keeps its
place).

``SkiStroke`` states these once; a model's adapter adds its system (``model``, ``system``,
``terms``), its laws as expressions of the technique (``controls``), its admissibility and its
re-simulation (``skilib.models.free.collocation``, ``skilib.models.edge.collocation``).
"""
from __future__ import annotations

import math
from dataclasses import fields, replace

import numpy as np

from ..engine.codegen.casadi_terms import require_casadi
from ..engine.validation import check_number

__all__ = ["SkiStroke", "MIRROR", "check_caps", "same_steady"]

#: the mirror Y → −Y on the coordinates of the ski and B (positions: Y negated; ZXZ angles: all
#: three negated, S R_z(φ) S = R_z(−φ), S R_x(θ) S = R_x(−θ))
MIRROR = np.array([1.0, -1.0, 1.0, -1.0, -1.0, -1.0] * 2)


def check_caps(caps, pairs: tuple, positives: tuple) -> None:
    """Check a frozen caps dataclass of free control in place: each field of ``pairs`` a pair
    (low, high) of numbers with low < high (stored as floats), each of ``positives`` a number > 0;
    a ValueError naming ``caps.<field>`` otherwise."""
    for name in pairs:
        v = getattr(caps, name)
        if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or len(v) != 2:
            raise ValueError(f"caps.{name}: must be a pair (low, high), got {v!r}")
        lo, hi = (check_number(f"caps.{name}", x) for x in v)
        if not lo < hi:
            raise ValueError(f"caps.{name}: must be (low, high) with low < high, got {v!r}")
        object.__setattr__(caps, name, (lo, hi))
    for name in positives:
        object.__setattr__(caps, name, check_number(f"caps.{name}", getattr(caps, name), positive=True))



def same_steady(steady, params):
    """The steady state of ``steady`` = (its parameters, the steady state), a shooting stroke a
    caller already has (the screened starts of ``optimize_technique``), if its parameters are
    ``params`` field for field; else None (the guess computes its own: a stroke of other
    parameters is never taken for this one's)."""
    if steady is None:
        return None
    have, ss = steady
    try:
        same = type(have) is type(params) and have == params
    except ValueError:  # a field that compares element-wise (an array)
        same = False
    return ss if bool(same) else None

class SkiStroke:
    """The shared part of a stroke adapter for ``skilib.ocp.collocate_stroke`` (the module's
    docstring).  A subclass sets ``name``, ``law_parameters``, ``actuators`` (the drivers a
    muscle works), ``net_actuators`` (those whose net work is the model's ``mean_power``) and,
    on construction, ``base`` (the params), ``model``, ``system``, ``terms`` (its CasADi terms),
    ``cm`` (B's position in q), ``force_scale`` (the multipliers' scale, a body weight) and
    ``actuator_rows`` ({actuator: [row slices]}); for free control also ``laws_class`` (its laws'
    container, one ``QuinticSpline`` per law) and ``caps_class``."""

    name = "skater"
    #: the mesh (intervals) whose truncation leaves the optimum's speed within 1e-6 (relative) of
    #: the shooting optimum's (measured per model; ``optimize_technique``'s default)
    nodes = 20
    law_parameters: tuple = ()
    #: whether the stroke has poles (``skilib.ocp.poles.PoledStroke``)
    poled = False
    actuators: tuple = ()
    net_actuators: tuple = ()

    def structure_key(self) -> tuple:
        """What a program of this stroke bakes in: every parameter but the laws' (those are the
        program's parameters), so a program built once serves every technique and budget."""
        return (type(self).__name__,) + tuple((f.name, getattr(self.base, f.name)) for f in fields(self.base)
                                              if f.name not in self.law_parameters)

    # -- the technique ------------------------------------------------------------------------
    def technique(self) -> dict:
        return {k: float(getattr(self.base, k)) for k in self.law_parameters}

    def params_at(self, x: dict):
        return replace(self.base, **{k: float(v) for k, v in x.items() if k in self.law_parameters})

    def period_variables(self, opti) -> dict:
        """Variables of the period that are neither law parameters nor the mesh's, {name:
        variable} (none here); the laws may use them (``controls``' x has them)."""
        return {}

    # -- the period -----------------------------------------------------------------------------
    def close_period(self, opti, hs, x: dict | None = None) -> None:
        """The start on the rows with the ski at the origin, its velocities the mirrored plastic
        touch-down of the end (the module's docstring), and the model's ``start_conditions``."""
        ca = require_casadi()
        p, N = self.base, hs.N
        hs.on_rows(0)
        self.pin(opti, hs)
        v_end = hs.V[:, N]
        S3 = ca.DM(np.diag(MIRROR[:3]))
        vc = S3 @ (p.body_mass * v_end[self.cm] + p.ski_mass * v_end[0:3]) / (p.body_mass + p.ski_mass)
        qd_c = ca.vertcat(vc, ca.DM.zeros(3), vc, ca.DM.zeros(3))
        T0 = hs.terms_at(0)
        nu = opti.variable(self.terms.nc)
        opti.subject_to(T0["M"] @ (hs.V[:, 0] - qd_c) + T0["Cq"].T @ nu == 0)
        self.start_conditions(opti, hs, x)

    def pin(self, opti, hs) -> None:
        """Fix the stroke's place on the snow, which nothing else in its equations fixes: the
        ski's origin at X = Y = 0 at τ = 0."""
        opti.subject_to(hs.Q[0, 0] == 0)
        opti.subject_to(hs.Q[1, 0] == 0)

    def shift_guess(self, tau, q) -> np.ndarray:
        """A guess's coordinates (points × n at the times ``tau``) moved along X and Y to be
        pinned as ``pin`` pins the program: the ski's origin at X = Y = 0 at τ = 0."""
        q = q.copy()
        xy = q[0, 0:2].copy()
        q[:, 0:2] -= xy
        q[:, self.cm.start:self.cm.start + 2] -= xy
        return q

    def guess_from_frame(self, model, frame, nodes: int, T: float) -> dict:
        """A first guess on the 2N + 1 points of ``mesh(nodes)`` from a shooting stroke's ``frame``
        (stroke time T) of ``model``: its coordinates and velocities interpolated and pinned as the
        program is (``shift_guess``), with the accelerations and multipliers of the numeric engine
        there (``point_system``: the system that holds at each time)."""
        tau = self.guess_mesh(nodes, model.params).times(T)
        tau_f = frame["tau"].to_numpy()
        q = np.column_stack([np.interp(tau, tau_f, frame[f"q{i}"]) for i in range(model.nq)])
        v = np.column_stack([np.interp(tau, tau_f, frame[f"qd{i}"]) for i in range(model.nq)])
        system = self.point_system(model, frame)
        ev = [system(t).evaluate(float(t), qi, vi) for t, qi, vi in zip(tau, q, v)]
        return dict(s=tau / T, q=self.shift_guess(tau, q), v=v, a=np.array([e.qdd for e in ev]),
                    lam=np.array([e.lam for e in ev]))

    def point_system(self, model, frame):
        """τ → the system of ``model`` that holds at τ in its shooting stroke ``frame``: the sliding
        ski's (friction mode +1) throughout."""
        system = model.system(1)
        return lambda tau: system

    def mesh(self, nodes: int):
        """The mesh of ``nodes`` intervals (``skilib.ocp.mesh.PhasedMesh``): even here."""
        from .mesh import PhasedMesh

        return PhasedMesh(nodes)

    def program_mesh(self, nodes: int, x: dict):
        """A program's mesh with the technique ``x`` (its law parameters, as the program has them):
        ``mesh`` here (a poled stroke's lift moves with its contact time)."""
        return self.mesh(nodes)

    def guess_mesh(self, nodes: int, params):
        """The mesh whose points a program of ``params``' technique has (``program_mesh``): a first
        guess's times; ``mesh`` here."""
        return self.mesh(nodes)

    def program_key(self, nodes: int) -> tuple:
        """What a program of this stroke on ``nodes`` intervals bakes in: ``structure_key`` and
        its mesh's phases."""
        return self.structure_key() + (self.mesh(nodes).key(),)

    def start_conditions(self, opti, hs, x) -> None:
        """What the model's touch-down says of the start's pose beyond its rows (nothing here)."""

    def progress_speed(self, hs):
        """ΔX_B / T over the stroke."""
        i = self.cm.start
        return (hs.Q[i, hs.N] - hs.Q[i, 0]) / hs.T

    # -- power and work ---------------------------------------------------------------------------
    def actuator_power(self, name: str):
        """The power of actuator ``name`` (its rows, ``actuator_rows``) as a one-point function
        (t, q, v, a, λ, u, terms) → Σ λ_r C_t,r.

        On the rows (C_q v + C_t = 0) this is the rows' power −Σ λ_r (C_q v)_r that the simulator
        integrates; written with C_t = Cvel − C_q v it stays exact at the midpoints too, where
        the Hermite interpolant of the velocity leaves the rows by O(h³) and −λ·(C_q v) would
        carry that violation times a force of a body weight into the work."""
        ca = require_casadi()
        idx = [r for sl in self.actuator_rows[name] for r in range(sl.start, sl.stop)]

        def power(t, q, v, a, lam, u, T):
            return ca.dot(lam[idx], (T["Cvel"] - T["Cq"] @ v)[idx])

        return power

    def efficiencies(self) -> tuple:
        """(η⁺, η⁻) of the params (the cost of work, ``skilib.strokes.work``)."""
        return self.base.eta_positive, self.base.eta_negative

    def work(self, hs):
        """The net work of ``net_actuators`` over the stroke, their rows' power integrated by
        Simpson's rule (its mean over T is the model's ``mean_power``)."""
        return sum(hs.simpson(hs.one_point(self.actuator_power(a))) for a in self.net_actuators)

    def ski_speed(self, hs):
        """u = e·Ṙ_ski at the knots and midpoints (one row), e = (cos ψ, sin ψ, 0) of the flat ski."""
        ca = require_casadi()
        along = hs.one_point(lambda t, q, v, a, lam, u, T: ca.dot(v[0:3], ca.vertcat(ca.cos(q[3]), ca.sin(q[3]), 0)))
        return ca.horzcat(hs.point(along, knots=True), hs.point(along, knots=False))

    # -- what the leg can push (``skilib.physiology.force_velocity``) ----------------------------
    def leg_push(self, hs) -> tuple:
        """(F, ℓ̇): the leg's force along itself [N] (> 0 pushing) and its extension speed [m/s],
        each one row over the knots then the midpoints, as the shooting model's frame defines its
        ``leg_force`` and ``leg_extension_speed``; a model without them raises ValueError."""
        raise ValueError(f"force_velocity: the {self.name}'s collocated stroke has no leg extension speed")

    def force_velocity_margin(self, hs, limit) -> tuple:
        """(rows, per_point): F_max(ℓ̇) − F/(M g) [body weights], the limit's margin
        (``ForceVelocityLimit.margin``) written in CasADi, the same expression the shooting model's
        frame is checked with, so a collocated stroke is held to the limit at every point where
        its dynamics are collocated.  rows: the constraint's values; per_point: the margin at the
        2N + 1 points in time order (knots and midpoints interleaved), NaN where the limb does not
        push.  The leg (``leg_push``) at every point; each arm (``arm_push``, with poles) at the
        contact's points, the least of the two poles' margins there."""
        ca = require_casadi()
        weight = self.base.body_mass * self.base.g

        def margin(F, speed):
            x = ca.fmax(speed, 0) / limit.speed_max
            return limit.force_iso_bw * (1 - x) / (1 + limit.curvature * x) - F / weight

        N = hs.N
        if limit.limb == "arms":
            (a, b), pushes = self.arm_push(hs)
            rows = [margin(F, v) for F, v in pushes]
            least = rows[0]
            for r in rows[1:]:
                least = ca.fmin(least, r)
            per_point = ca.horzcat(ca.MX.nan(1, a), least, ca.MX.nan(1, 2 * N - b))  # points a..b push
            return ca.horzcat(*rows), per_point
        F, speed = self.leg_push(hs)
        rows = margin(F, speed)
        cols = []
        for k in range(N):
            cols += [rows[:, k], rows[:, N + 1 + k]]
        return rows, ca.horzcat(*cols, rows[:, N])

    def arm_push(self, hs) -> tuple:
        """The arms' push and extension speed over the contact (``skilib.ocp.poles.PoledStroke``);
        a stroke without poles has none."""
        raise ValueError(f"force_velocity: the arms' limit needs poles; the {self.name}'s stroke has none")

    def developed_forces(self, hs) -> list:
        """[(F at the knots, F at the midpoints)] [N] of each force whose development the
        physiological cost charges (``skilib.physiology.cost``), as the shooting model's
        ``physiology_columns`` reads them off its frame: the pushing leg's |F| on B
        (``leg_force_norm``) and, with poles, each pole's push (the poles' control, the terms'
        last)."""
        forces = [self.leg_force_norm(hs)]
        if self.poled:
            forces += [(hs.U[-1, :], hs.Um[-1, :])] * len(self.pole_names)
        return forces

    def leg_force_norm(self, hs) -> tuple:
        """|F| [N] of the leg's force on B at the knots and the midpoints (its frame's |(leg_fx,
        leg_fy, leg_fz)|): each model's own."""
        raise ValueError(f"budget: the {self.name}'s collocated stroke has no leg force to develop")

    # -- free control (``skilib.ocp.control``) -------------------------------------------------
    def heading_caps(self, psi, psid, caps) -> dict:
        """The ski's heading within ``caps.heading_deg`` and its rate within
        ``caps.heading_rate_deg_s``, as rows ≥ 0 of the heading's values and rates."""
        lo, hi = (math.radians(v) for v in caps.heading_deg)
        rate = math.radians(caps.heading_rate_deg_s)
        return {"heading_low": psi - lo, "heading_high": hi - psi, "heading_rate": (rate**2 - psid**2) / rate**2}

    def spline_laws(self, traj: dict):
        """The solution's laws as ``QuinticSpline`` through its control knots (the right stroke's;
        ``traj["control_knots"]``: one row per knot, at the times ``traj["control_tau"]``, (f, ḟ, f̈)
        of each law in turn), as the model's ``laws_class``; with poles its ``pole`` the push
        through ``traj["pole_knots"]`` at ``traj["pole_tau"]`` (a ``PolePush``)."""
        from ..engine.timefunctions import QuinticSpline
        from ..strokes.poles import PolePush

        def splines(z, tau):
            return [QuinticSpline(tau, z[:, 3 * i], z[:, 3 * i + 1], z[:, 3 * i + 2]) for i in range(z.shape[1] // 3)]

        pole = {"pole": PolePush(splines(traj["pole_knots"], traj["pole_tau"])[0])} if "pole_knots" in traj else {}
        return self.laws_class(*splines(traj["control_knots"], traj["control_tau"]), **pole)

    def spline_rows(self, bernstein: dict) -> dict:
        """Rows ≥ 0 of free control on its laws' accelerations over whole spline intervals, from
        their Bernstein coefficients ({law: 4 × K}, ``skilib.ocp.control.acceleration_bernstein``):
        none here."""
        return {}

    def control_mesh_timed(self) -> bool:
        """Whether free control's mesh depends on the stroke time it is sized for
        (``control_mesh``'s ``T``): not for an even mesh."""
        return False

    def control_mesh(self, control_nodes: int, r: int, T: float | None = None):
        """Free control's mesh: ``control_nodes`` spline intervals of r dynamics intervals each
        (``skilib.ocp.mesh.PhasedMesh``; even here, for any stroke time ``T``)."""
        from .mesh import PhasedMesh

        return PhasedMesh(control_nodes * r)

    def u0(self, traj: dict) -> float:
        """The ski's speed along itself at τ = 0 of a solution's trajectory."""
        q, v = traj["q"][0], traj["v"][0]
        return float(v[0] * math.cos(q[3]) + v[1] * math.sin(q[3]))
