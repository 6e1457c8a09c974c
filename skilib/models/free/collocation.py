"""The free skater's stroke stated for collocation (``skilib.ocp.stroke``; the book's chapter
"Optimal control").

The model is the free skater of ``skilib.models.free.model`` on the right ski, its three laws
(heading ψ, lateral offset h, height z) left open as controls (``ControlLaw``): the engine's trace
gives its equations of motion as CasADi functions of the laws' values and derivatives.  Here the
laws take the values of the default laws (``skilib.models.free.params.default_laws``) as
expressions of the technique's parameters, for s = τ/T::

    ψ = −a/2 + Δψ σ(s),  σ = 10s³ − 15s⁴ + 6s⁵
    h = h0 + (h1 − h0) s^p
    z = z̄ − Δz sin²(π s)

with their first and second time derivatives, so the stroke time T can be free.

The period closes at τ = T with the plastic touch-down of the model (``skilib.models.free.run``):
the old ski merges into B, (M + m_s) v_c = M Ṙ_B + m_s Ṙ_s; the new ski, on the left, leaves B at
v_c and the impact projects the velocities, mass-weighted, onto the new stance's rows.  The left
stroke is the mirror image (Y → −Y) of the right one, so the state after touch-down, mirrored,
is this stroke's start: with S the mirror (Y and every ZXZ angle negated,
``skilib.ocp.adapter.MIRROR``)

    M(q₀)(q̇₀ − q̇_c) + C_q(q₀)ᵀ ν = 0,   C_q(q₀) q̇₀ + C_t = 0,   q̇_c = (S₃v_c, 0, S₃v_c, 0)

(the KKT conditions of the projection, ν its impulses), and the start pose satisfies the rows at
τ = 0 with the ski's origin at X = Y = 0 (the equations do not depend on where the ski is: the
new ski lands under the centre of mass, which keeps its position): the period every model with a
swing ski shares, ``skilib.ocp.adapter.SkiStroke``.  The ski's speed along itself at τ = 0 is then
the steady state's u0.

Admissibility, at every knot: the ski slides forwards (u ≥ 0, the friction mode the program
assumes), the snow carries the ski (N = (M + m_s) g cos α + M z̈ ≥ 0, as
``skilib.models.free.technique.snow_load_margin``) and the leg force stays below
``MAX_LEG_FORCE_BW`` body weights, as ``simulate_free`` refuses above it.

The budgets: the leg's net work (``work``, the shooting model's ``mean_power``), or the
actuators' (leg and heading) positive work or metabolic cost (``actuators``,
``actuator_power``; ``skilib.ocp.stroke.PowerBudget``).

With poles (``pole_force_max`` > 0) the two struts push with the params' sin² law while planted,
the snow's load loses their vertical force, and the arms' work joins the leg's in every budget
(``skilib.ocp.poles``); the mesh has knots at the plant and the lift.

Free control with poles frees the poles' push too (``skilib.ocp.control``), within
``FreeControlCaps.peak_pole_force``.

Not transcribed: the "along_ski" touch-down.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ...engine.codegen.casadi_terms import casadi_terms, require_casadi
from ...engine.controls import ControlLaw
from ...ocp.adapter import SkiStroke, check_caps, same_steady
from ...ocp.poles import PoledStroke
from ...strokes.params import slope_factors
from .model import FreeSkaterModel
from .params import MAX_LEG_FORCE_BW, MAX_REACH, FreeLaws, FreeSkaterParams, with_overrides

__all__ = ["FreeStroke", "FreeControlCaps", "LAW_PARAMETERS"]

#: the technique's parameters the laws are made of (the ones collocation may set free)
LAW_PARAMETERS = ("skating_angle_deg", "stroke_time", "steer_deg", "offset_start", "offset_end", "cm_height", "cm_dip")
_CONTROLS = ("heading", "offset", "height")


@dataclass(frozen=True)
class FreeControlCaps:
    """What a skier's free control may do (``skilib.ocp.optimal_control``), each a row ≥ 0 at every
    knot and midpoint.  The defaults contain every technique of the law-based optimum's bounds
    (``skilib.models.free.technique.FREE_BOUNDS`` with the default laws), so the free control starts
    inside them and can only gain:

    - stroke_time (0.4, 2.0) s: the law-based bounds.
    - heading_deg (−35, 35)°: the ski's heading; the law-based ψ runs from −a/2 ∈ [−35°, −5°]
      by a steer of 0–25°.
    - offset (0, 0.6) m: the centre of mass's lateral offset (law-based: 0.05 → 0.1–0.6 m).
    - height (0.80, 0.95) m: the centre of mass's height (law-based: 0.95 m, a dip ≤ 0.15 m).
    - heading_rate_deg_s 120°/s: the law-based fastest turn is 25° × 1.875 / 0.4 s = 117°/s.
    - extension_speed 2.5 m/s: |ℓ̇| of the leg's length ℓ = √(h² + z²) (law-based ≤ ≈ 2.5 m/s).
    - peak_leg_force_bw 2.5: measured skating leg forces peak at ≈ 1.5–2.5 body weights; the
      law-based optima stay below 1.3.
    - peak_pole_force 300 N: each pole's push at most, with poles (measured peak pole forces in
      skating ≈ 150–350 N per pole; ``skilib.strokes.poles.POLE_PARAMETER_BOUNDS``).
    - reach ``MAX_REACH`` (1.3 m): the leg's length at most.
    """

    stroke_time: tuple = (0.4, 2.0)
    heading_deg: tuple = (-35.0, 35.0)
    offset: tuple = (0.0, 0.6)
    height: tuple = (0.80, 0.95)
    heading_rate_deg_s: float = 120.0
    extension_speed: float = 2.5
    peak_leg_force_bw: float = 2.5
    reach: float = MAX_REACH
    peak_pole_force: float = 300.0

    def __post_init__(self):
        check_caps(self, ("stroke_time", "heading_deg", "offset", "height"), ("heading_rate_deg_s", "extension_speed", "peak_leg_force_bw", "reach", "peak_pole_force"))
        lo, hi = self.stroke_time
        if not 0.2 <= lo and hi <= 3.0:
            raise ValueError(f"caps.stroke_time: must lie within the model's plausible 0.2–3 s, got {self.stroke_time}")
        if self.peak_leg_force_bw < 1.0:
            raise ValueError(f"caps.peak_leg_force_bw: {self.peak_leg_force_bw:g} body weights cannot carry the body "
                             "(the leg's mean vertical force over a stroke is about one body weight)")
        if self.height[0] <= 0 or math.hypot(self.offset[0], self.height[0]) > self.reach:
            raise ValueError(f"caps.height: the lowest centre of mass {self.height[0]:g} m must be above the snow "
                             f"and within the reach {self.reach:g} m")


class FreeStroke(PoledStroke, SkiStroke):
    """The free skater's stroke adapter for ``skilib.ocp.collocate_stroke`` (the module's
    docstring), for the parameters ``params`` (their law parameters are the technique's start).
    The period, the actuators' power and the net work are ``skilib.ocp.adapter.SkiStroke``'s."""

    name = "free skater"
    law_parameters = LAW_PARAMETERS
    #: the drivers a muscle works (``skilib.models.free.model.FREE_ACTUATORS``): their positive and
    #: negative works make the "positive" and "metabolic" budgets; the leg's net work is the
    #: shooting model's ``mean_power``
    actuators = ("leg", "heading")
    net_actuators = ("leg",)

    def __init__(self, params: FreeSkaterParams | None = None):
        p = with_overrides(params)
        if not (p.offset_exponent == 1.0 or p.offset_exponent >= 2.0):
            raise ValueError(f"offset_exponent: collocation needs ḧ finite at τ = 0, p = 1 or p ≥ 2, got "
                             f"{p.offset_exponent:g}")
        self.base = p
        laws = FreeLaws(*(ControlLaw(n) for n in _CONTROLS))
        self.model = FreeSkaterModel(p, "right", np.zeros(3), laws)
        poles = self.attach_poles(self.model)  # before the system is built: its struts
        self.system = self.model.system(1)
        self.terms = casadi_terms(self.system, controls=_CONTROLS + poles)
        if self.poled:  # the arms work too (``skilib.ocp.poles``)
            self.actuators = type(self).actuators + self.pole_names
            self.net_actuators = type(self).net_actuators + self.pole_names
        self.leg = self.system.rows("leg")
        self.cm = self.model.cm
        #: the multipliers' scale in the programs: the body's weight [N]
        self.force_scale = p.body_mass * p.g
        self.actuator_rows = {"leg": [self.leg], "heading": [self.system.rows(n) for n in self.model.heading_rows]}

    # -- the technique ------------------------------------------------------------------------
    def controls(self, x: dict, tau, T):
        """The laws' (f, ḟ, f̈) at the times ``tau`` (a row), heading, offset, height: 9 × K."""
        ca = require_casadi()
        p = self.base
        half, steer = x["skating_angle_deg"] * math.pi / 360, x["steer_deg"] * math.pi / 180
        h0, h1, pw, zbar, dz = x["offset_start"], x["offset_end"], p.offset_exponent, x["cm_height"], x["cm_dip"]
        s = tau / T
        sig = 10 * s**3 - 15 * s**4 + 6 * s**5
        sig1, sig2 = 30 * s**2 - 60 * s**3 + 30 * s**4, 60 * s - 180 * s**2 + 120 * s**3
        if pw == 1.0:
            off = [h0 + (h1 - h0) * s, (h1 - h0) / T + 0 * s, 0 * s]
        else:
            off = [h0 + (h1 - h0) * s**pw, (h1 - h0) * pw * s ** (pw - 1) / T, (h1 - h0) * pw * (pw - 1) * s ** (pw - 2) / T**2]
        w = 2 * math.pi / T
        poles = [self.pole_row(tau, x)] if self.poled else []
        rows = [-half + steer * sig, steer * sig1 / T, steer * sig2 / T**2, *off,
                zbar - dz / 2 + dz / 2 * ca.cos(w * tau), -dz / 2 * w * ca.sin(w * tau), -dz / 2 * w**2 * ca.cos(w * tau), *poles]
        # a law whose entry is constant in τ (ψ̇ with no steer, ḧ of a linear offset) is a number
        # or a parameter: spread it over the row of times
        return ca.vertcat(*[r if hasattr(r, "shape") and r.shape[1] == tau.shape[1] else r + 0 * tau for r in rows])

    def _leg_force(self, t, q, v, a, lam, u, T):
        leg, cm = slice(self.leg.start, self.leg.stop), self.cm
        return -T["Cq"][leg, cm].T @ lam[leg]

    def leg_push(self, hs) -> tuple:
        """(F·r̂, ℓ̇ = r̂·(Ṙ_B − Ṙ_ski)) over the knots then the midpoints, r = R_B − R_ski: the
        leg force's component along the line from the ski's origin to the centre of mass and the
        rate of that line's length (``FreeSkaterModel.point_columns``' leg_force and
        leg_extension_speed)."""
        ca = require_casadi()
        cm = self.cm

        def unit(q):
            r = q[cm] - q[0:3]
            return r / ca.norm_2(r)

        force = hs.one_point(lambda t, q, v, a, lam, u, T: ca.dot(self._leg_force(t, q, v, a, lam, u, T), unit(q)))
        speed = hs.one_point(lambda t, q, v, a, lam, u, T: ca.dot(unit(q), v[cm] - v[0:3]))
        return tuple(ca.horzcat(hs.point(f, knots=True), hs.point(f, knots=False)) for f in (force, speed))

    def leg_force_norm(self, hs) -> tuple:
        """|F| of the leg's force on B (the placement drivers') at the knots and the midpoints [N]."""
        ca = require_casadi()
        f = hs.one_point(lambda *a: ca.norm_2(self._leg_force(*a)))
        return hs.point(f, knots=True), hs.point(f, knots=False)

    def admissibility(self, hs, x, leg_force_cap: float = MAX_LEG_FORCE_BW) -> dict:
        """{name: rows ≥ 0} at the knots and the midpoints: u (the ski slides forwards), N/(M g)
        (the snow carries it), cap² − |F_leg|²/(M g)² (the leg force within ``leg_force_cap``
        body weights, by default ``MAX_LEG_FORCE_BW`` as ``simulate_free`` refuses above it).
        Both kinds of point: the dynamics are collocated at both, so a law free between the
        knots (``skilib.ocp.control``) could otherwise pull the ski into the snow at a midpoint,
        where the friction μN would then push it forwards."""
        ca = require_casadi()
        p = self.base
        weight = p.body_mass * p.g
        cos_a = slope_factors(p.slope_deg)[1]
        force = hs.one_point(lambda *a: ca.sumsqr(self._leg_force(*a)))
        speed = self.ski_speed(hs)
        zdd = ca.horzcat(hs.U[8, :], hs.Um[8, :])
        # the poles carry part of the weight: N = (M + m_s) g cos α + M z̈ − Σ F±,z
        load = ((p.body_mass + p.ski_mass) * p.g * cos_a + p.body_mass * zdd - self.pole_lift_z(hs)) / weight
        F2 = ca.horzcat(hs.point(force, knots=True), hs.point(force, knots=False))
        return {"ski_speed": ca.vec(speed), "snow_load": ca.vec(load),
                "max_leg_force_bw": ca.vec(leg_force_cap**2 - F2 / weight**2), **self.pole_rows(hs, x)}

    # -- numbers ----------------------------------------------------------------------------------
    def guess(self, x: dict, nodes: int, steady=None) -> dict:
        """A first guess on the 2N + 1 points of the mesh (``mesh``): the shooting steady state of
        the technique x (its frame's coordinates and velocities, interpolated, pinned as the
        program is), with the accelerations and multipliers of the numeric engine there (with the
        poles planted, of the shooting stroke's phase with them).  ``steady``: (params, steady
        state) a caller already has (``same_steady``), used where its parameters are x's."""
        from .steady import free_steady_state

        p = self.params_at(x)
        ss = same_steady(steady, p) or free_steady_state(p)
        fr = ss.frame
        model = FreeSkaterModel(p, "right", np.zeros(3))
        return self.guess_from_frame(model, fr, nodes, p.stroke_time)

    def peak_leg_force_bw(self, traj: dict) -> float:
        """The largest leg force over the knots and midpoints [body weights]."""
        leg, cm = slice(self.leg.start, self.leg.stop), self.cm
        F = []
        for t, q, v, lam, u in zip(traj["tau"], traj["q"], traj["v"], traj["lam"], traj["u"]):
            Cq = np.asarray(self.terms(t, q, v, u)["Cq"])
            F.append(np.linalg.norm(-Cq[leg, cm].T @ lam[leg]))
        return float(max(F)) / (self.base.body_mass * self.base.g)

    def resimulate(self, x: dict, traj: dict) -> dict:
        """The model's own simulator (``simulate_free``, two strokes, plastic touch-down) from
        the collocated start (the ski's speed u0 at τ = 0 of ``traj``): the first stroke's
        progress speed, mean power and the leg's share of it (``FreeSteadyState.mean_leg_power``), and the ski's speed after its touch-down (u0 again if
        the stroke is periodic); with poles also the arms' mean power mean_pole_power [W] and the
        poles' share of the propulsion pole_share (``skilib.strokes.poles.pole_summary``)."""
        from .run import simulate_free

        u0 = self.u0(traj)
        r = simulate_free(self.params_at(x), strokes=2, v0=u0)
        st = r.strokes
        poles = {k: float(st[k].iloc[0]) for k in ("mean_pole_power", "pole_share")} if self.poled else {}
        return dict(progress_speed=float(st["mean_vx"].iloc[0]), mean_power=float(st["mean_power"].iloc[0]),
                    mean_leg_power=float(st["mean_power"].iloc[0] - st["mean_pole_power"].iloc[0]),
                    cm_speed=float(st["mean_speed"].iloc[0]), mean_positive_power=float(st["mean_positive_power"].iloc[0]),
                    metabolic_power=float(st["metabolic_power"].iloc[0]),
                    metabolic_total=float(st["metabolic_total"].iloc[0]),
                    u0=float(u0), u_after=float(st["u_start"].iloc[1]), **poles)

    # -- free control (``skilib.ocp.control``) -------------------------------------------------
    #: free control's laws (``spline_laws``) and caps
    laws_class = FreeLaws
    caps_class = FreeControlCaps

    def control_variables(self, opti, caps: FreeControlCaps) -> dict:
        """The numbers of a stroke free control chooses beside the laws: none for the free skater
        (its new ski lands under the centre of mass, where its laws put it)."""
        return {}

    def control_start(self, solution) -> dict:
        return {}

    def control_period(self, opti, hs) -> None:
        """What free laws must do at touch-down: their rates zero at τ = 0 (the drivers do no
        impulsive work there, C_t = 0), and the height back where it started, z(T) = z(0): the
        new ski lands under the centre of mass, whose height above it is the new stroke's z(0),
        so z(T) ≠ z(0) would move the centre of mass vertically at touch-down and hand it the
        potential energy M g (z(0) − z(T)) for nothing (the laws of ``default_laws`` are
        periodic in z, and ``simulate_free`` reports such a jump as ``cm_jump``)."""
        opti.subject_to(hs.U[[1, 4, 7], 0] == 0)
        opti.subject_to(hs.U[6, hs.N] - hs.U[6, 0] == 0)

    def spline_rows(self, bernstein: dict) -> dict:
        """The height law's share of the snow's load, (M + m_s) g cos α + M z̈ ≥ 0, over every
        spline interval, not only at the points: on the Bernstein coefficients of z̈, which bound
        it (``skilib.ocp.control.acceleration_bernstein``).  Between two points a spline's z̈ can
        dip where the collocation does not look, and ``simulate_free`` refuses a height law whose
        load falls below zero anywhere.  (The poles' part of the load, −Σ F±,z, depends on the
        motion and is held at the points.)"""
        ca = require_casadi()
        p = self.base
        cos_a = slope_factors(p.slope_deg)[1]
        load = ((p.body_mass + p.ski_mass) * p.g * cos_a + p.body_mass * bernstein["height"]) / (p.body_mass * p.g)
        return {"snow_load_between_points": ca.vec(load)}

    def control_caps(self, hs, caps: FreeControlCaps) -> dict:
        """The caps as rows ≥ 0 at every knot and midpoint (``FreeControlCaps``)."""
        ca = require_casadi()
        U = ca.horzcat(hs.U, hs.Um)
        psi, psid, h, hd, z, zd = U[0, :], U[1, :], U[3, :], U[4, :], U[6, :], U[7, :]
        ell2 = h**2 + z**2
        ext = (h * hd + z * zd) ** 2 / ell2
        rows = {**self.heading_caps(psi, psid, caps), "offset_low": h - caps.offset[0],
                "offset_high": caps.offset[1] - h, "height_low": z - caps.height[0], "height_high": caps.height[1] - z,
                "extension_speed": (caps.extension_speed**2 - ext) / caps.extension_speed**2,
                "reach": caps.reach**2 - ell2}
        return {k: ca.vec(v) for k, v in rows.items()}

    def resimulate_laws(self, T: float, laws: FreeLaws, traj: dict) -> dict:
        """``simulate_free`` with the splines as laws (two strokes from the ski's speed u0 at τ = 0
        of ``traj``, stroke time T): the first stroke's progress speed and mean power, the speed
        after its touch-down; with poles also mean_pole_power [W] and pole_share (as ``resimulate``)."""
        from .run import simulate_free

        u0 = self.u0(traj)
        r = simulate_free(replace(self.base, stroke_time=float(T)), strokes=2, v0=u0, laws=laws)
        st = r.strokes
        poles = {k: float(st[k].iloc[0]) for k in ("mean_pole_power", "pole_share")} if self.poled else {}
        return dict(**poles, progress_speed=float(st["mean_vx"].iloc[0]), mean_power=float(st["mean_power"].iloc[0]),
                    cm_speed=float(st["mean_speed"].iloc[0]), u0=float(u0), u_after=float(st["u_start"].iloc[1]),
                    mean_positive_power=float(st["mean_positive_power"].iloc[0]),
                    metabolic_power=float(st["metabolic_power"].iloc[0]),
                    peak_leg_force_bw=float(st["peak_leg_force_bw"].iloc[0]),
                    energy_residual=float(st["energy_residual"].abs().max()),
                    cm_jump=float(r.changes["cm_jump"].abs().max()))

    def push_frame(self, traj: dict):
        """The push over the stroke, one row per knot and midpoint: tau [s], heading_deg and
        heading_rate_deg_s, offset [m] and offset_rate [m/s], height [m] and height_rate [m/s],
        extension_speed ℓ̇ [m/s], leg_fx/fy/fz [N] and leg_force_bw, snow_load_bw, u [m/s]; with
        poles pole_force, each pole's push [N]."""
        import pandas as pd

        p = self.base
        weight = p.body_mass * p.g
        cos_a = slope_factors(p.slope_deg)[1]
        leg, cm = slice(self.leg.start, self.leg.stop), self.cm
        rows = []
        for t, q, v, lam, u in zip(traj["tau"], traj["q"], traj["v"], traj["lam"], traj["u"]):
            Cq = np.asarray(self.terms(t, q, v, u)["Cq"])
            F = -Cq[leg, cm].T @ lam[leg]
            h, hd, z, zd = u[3], u[4], u[6], u[7]
            rows.append(dict(tau=t, heading_deg=math.degrees(u[0]), heading_rate_deg_s=math.degrees(u[1]),
                             offset=h, offset_rate=hd, height=z, height_rate=zd,
                             extension_speed=(h * hd + z * zd) / math.hypot(h, z),
                             leg_fx=F[0], leg_fy=F[1], leg_fz=F[2], leg_force_bw=float(np.linalg.norm(F)) / weight,
                             snow_load_bw=((p.body_mass + p.ski_mass) * p.g * cos_a + p.body_mass * u[8]) / weight,
                             u=float(v[0] * math.cos(q[3]) + v[1] * math.sin(q[3])), **self.pole_columns(u)))
        return pd.DataFrame(rows)

    def caps_report(self, traj: dict, caps: FreeControlCaps) -> dict:
        """{cap: (largest value at the solution, the cap, whether it binds within 1e-6)} over
        the knots and midpoints."""
        fr = self.push_frame(traj)
        T = traj["T"]
        out = {}

        def add(name, value, cap, on):
            out[name] = dict(value=float(value), cap=float(cap), active=bool(on))

        add("peak_leg_force_bw", fr["leg_force_bw"].max(), caps.peak_leg_force_bw,
            fr["leg_force_bw"].max() >= caps.peak_leg_force_bw * (1 - 1e-6))
        add("heading_rate_deg_s", fr["heading_rate_deg_s"].abs().max(), caps.heading_rate_deg_s,
            fr["heading_rate_deg_s"].abs().max() >= caps.heading_rate_deg_s * (1 - 1e-6))
        add("extension_speed", fr["extension_speed"].abs().max(), caps.extension_speed,
            fr["extension_speed"].abs().max() >= caps.extension_speed * (1 - 1e-6))
        add("stroke_time", T, caps.stroke_time[0] if T < sum(caps.stroke_time) / 2 else caps.stroke_time[1],
            min(abs(T - b) for b in caps.stroke_time) <= 1e-6)
        for name, col, scale in (("heading_deg", "heading_deg", 1.0), ("offset", "offset", 1.0), ("height", "height", 1.0)):
            lo, hi = getattr(caps, name)
            low, high = fr[col].min(), fr[col].max()
            near = low if low - lo < hi - high else high
            add(name, near, lo if near is low else hi, min(low - lo, hi - high) <= 1e-6 * (hi - lo) * scale)
        return {**out, **self.pole_caps_report(fr, caps)}
