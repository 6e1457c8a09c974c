"""The edged skater's stroke stated for collocation (``skilib.ocp.stroke``; the book's chapters
"The edged skater" and "Optimal control").

The model is the edged skater of ``skilib.models.edge.model`` on the right ski, its two laws
(heading ψ and the leg's length ℓ across the ski) left open as controls (``ControlLaw``): the
engine's trace gives its equations of motion, with the friction μN on the snow row's load, as
CasADi functions of the laws' values and derivatives.  The laws take the values of the params'
laws (``skilib.models.edge.params``) as expressions of the technique, for s = τ/T::

    ψ = −a/2 + Δψ σ(s),   ℓ = ℓ0 + Δℓ σ(s),   σ = 10s³ − 15s⁴ + 6s⁵

with their first and second time derivatives, so the stroke time T can be free.  ℓ0 is not a
parameter: it is the leg's length at touch-down, √(d0² + z_B²), so it is a variable of the
period (``period_variables``).

The period is the shared mirrored plastic change of ski (``skilib.ocp.adapter.SkiStroke``), with
what the edged skater's touch-down says of the start (``skilib.models.edge.run``): the new ski
lands the landing offset d0 outside the centre of mass, which keeps its place, so at τ = 0

    (R_B − P) · n = d0   (the CM d0 inside the right ski, n its left normal),
    z_B(0) = z_B(T)      (the CM's height is kept through the touch-down),

and the leg's row at τ = 0 then makes ℓ0 = √(d0² + z_B(0)²).  The program has as many equations
as the shooting stroke map's fixed point in (u, φ̇, z_B) (``skilib.models.edge.steady``): with no
free parameter it is square.  Its stability does not matter here: collocation finds the periodic
stroke whatever its multipliers, where the open-loop skater run forwards falls within a few
strokes.

Admissibility, at every knot and midpoint (the shooting optimum's ``EDGE_MARGINS`` there): the
ski slides forwards (u ≥ 0), the leg pushes (F = −λ_leg ≥ 0), the snow pushes (N = −λ_snow ≥ 0),
the leg within reach (ℓ ≤ ℓ_max) and its lean within ``max_lean_deg`` (|(R_B − P)·n| ≤
tan φ_max (Z_B − Z_P), two rows).

The budgets: the drivers' net work (leg, fore–aft and heading: the shooting model's
``mean_power``), or their positive work or metabolic cost (``skilib.ocp.stroke.PowerBudget``).

Free control (``skilib.ocp.optimal_control(model="edge")``): both laws become splines, the
landing offset a number of the program (``control_variables``), within ``EdgeControlCaps``; the
laws' rates are zero at τ = 0, and the solution is re-simulated by one stroke of the model's
stroke map with the splines as its laws (``resimulate_laws``).

With poles (``pole_force_max`` > 0) the two struts push with the params' sin² law while planted
(the snow row's multiplier carries what they do not), and the arms' work joins the drivers' in
every budget (``skilib.ocp.poles``); the mesh has knots at the plant and the lift.

Free control with poles frees the poles' push too (``skilib.ocp.control``), within
``EdgeControlCaps.peak_pole_force``.

The crouch (``EdgeSkaterParams.leg_start`` set): the leg lands ℓs long and the foot where that
leg reaches, so ℓ0 = ℓs is a law parameter (``EDGE_CROUCH_LAW_PARAMETERS``) and the landing offset
d0 the period's variable instead, found by the same two start conditions and the leg's row at
τ = 0 (d0 = √(ℓs² − z_B(0)²)): the same equations with the roles of ℓ0 and d0 swapped, square as
before.  Where ℓs is set free, d0 is held within the landing offset's bounds
(``landing_offset_margin``, two rows), as the shooting optimizer holds it.

Not transcribed: a balance rule (the periodic stroke is the same with one; its stability is the
shooting steady state's business).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ...engine.codegen.casadi_terms import casadi_terms, require_casadi
from ...engine.controls import ControlLaw
from ...ocp.adapter import SkiStroke, check_caps, same_steady
from ...ocp.poles import PoledStroke
from .model import EdgeSkaterModel
from .params import EdgeLaws, EdgeSkaterParams, with_edge_overrides

__all__ = ["EdgeStroke", "EdgeControlCaps", "EDGE_LAW_PARAMETERS", "EDGE_CROUCH_LAW_PARAMETERS"]

#: the technique's parameters the edged skater's laws are made of (the ones collocation may set
#: free; ``skilib.models.edge.technique.EDGE_BOUNDS`` has the same names)
EDGE_LAW_PARAMETERS = ("skating_angle_deg", "stroke_time", "steer_deg", "landing_offset", "leg_extension")
#: with the crouch chosen (``EdgeSkaterParams.leg_start``): ℓs in place of the landing offset, which
#: the period finds (``skilib.models.edge.technique.EDGE_CROUCH_BOUNDS`` has the same names)
EDGE_CROUCH_LAW_PARAMETERS = ("skating_angle_deg", "stroke_time", "steer_deg", "leg_start", "leg_extension")
_CONTROLS = ("heading", "leg")


@dataclass(frozen=True)
class EdgeControlCaps:
    """What the edged skater's free control may do (``skilib.ocp.optimal_control``), each a row ≥ 0
    at every knot and midpoint, beside its admissibility (the leg pushes, the snow pushes, the leg
    within ``max_leg_length``, the lean within ``max_lean_deg``).  The defaults contain every
    technique of the law-based optimum's bounds (``skilib.models.edge.technique.EDGE_BOUNDS``), so free
    control starts inside them and can only gain:

    - stroke_time (0.5, 1.2) s and landing_offset (0.1, 0.3) m: the law-based bounds (the landing
      offset stays a number of the stroke, chosen by the optimizer).
    - heading_deg (−15, 15)°: the law-based ψ runs from −a/2 ∈ [−15°, −5°] by a steer of 0–20°.
    - leg (0.7, 1.3) m: the leg's length across the ski (its reach is the params' max_leg_length,
      an admissibility row); 0.7 m is a deep knee bend.
    - heading_rate_deg_s 120°/s: the law-based fastest turn is 20° × 1.875 / 0.5 s = 75°/s.
    - extension_speed 2.5 m/s: |ℓ̇| (law-based ≤ 0.15 × 1.875 / 0.5 = 0.56 m/s).
    - peak_leg_force_bw 2.5: measured skating leg forces peak at ≈ 1.5–2.5 body weights.
    - peak_pole_force 300 N: each pole's push at most, with poles (measured peak pole forces in
      skating ≈ 150–350 N per pole; ``skilib.strokes.poles.POLE_PARAMETER_BOUNDS``).
    """

    stroke_time: tuple = (0.5, 1.2)
    landing_offset: tuple = (0.1, 0.3)
    heading_deg: tuple = (-15.0, 15.0)
    leg: tuple = (0.7, 1.3)
    heading_rate_deg_s: float = 120.0
    extension_speed: float = 2.5
    peak_leg_force_bw: float = 2.5
    peak_pole_force: float = 300.0

    def __post_init__(self):
        check_caps(self, ("stroke_time", "landing_offset", "heading_deg", "leg"), ("heading_rate_deg_s", "extension_speed", "peak_leg_force_bw", "peak_pole_force"))
        if not 0.2 <= self.stroke_time[0] and self.stroke_time[1] <= 3.0:
            raise ValueError(f"caps.stroke_time: must lie within the model's plausible 0.2–3 s, got {self.stroke_time}")
        if not 0.0 <= self.landing_offset[0] and self.landing_offset[1] <= 0.6:
            raise ValueError(f"caps.landing_offset: must lie within the model's plausible 0–0.6 m, got "
                             f"{self.landing_offset}")
        if self.leg[0] <= self.landing_offset[1]:
            raise ValueError(f"caps.leg: the shortest leg {self.leg[0]:g} m must reach past the widest landing offset "
                             f"{self.landing_offset[1]:g} m (the centre of mass above the snow)")
        if self.peak_leg_force_bw < 1.0:
            raise ValueError(f"caps.peak_leg_force_bw: {self.peak_leg_force_bw:g} body weights cannot carry the body "
                             "(the leg's mean vertical force over a stroke is about one body weight)")


class EdgeStroke(PoledStroke, SkiStroke):
    """The edged skater's stroke adapter for ``skilib.ocp.collocate_stroke`` (the module's
    docstring), for the parameters ``params`` (their law parameters are the technique's start;
    default ``EdgeSkaterParams()``)."""

    name = "edged skater"
    #: at 20 intervals the optimum's speed is 2e-6 below the shooting optimum's (60–120 W), at 40
    #: within 3e-9 of it
    nodes = 40
    law_parameters = EDGE_LAW_PARAMETERS
    #: the drivers a muscle works (``skilib.models.edge.model.EDGE_ACTUATORS``); their net work is
    #: the shooting model's ``mean_power``
    actuators = ("leg", "fore_aft", "heading")
    net_actuators = actuators

    def __init__(self, params: EdgeSkaterParams | None = None):
        p = with_edge_overrides(params)
        #: the crouch chosen: ℓs a law parameter, the landing offset the period's (the module's docstring)
        self.crouched = p.leg_start is not None
        if self.crouched:
            self.law_parameters = EDGE_CROUCH_LAW_PARAMETERS
        self.base = p
        laws = EdgeLaws(ControlLaw("heading"), ControlLaw("leg"))
        self.model = EdgeSkaterModel(p, "right", np.zeros(3), p.leg_length_at(p.cm_height), laws=laws)
        poles = self.attach_poles(self.model)  # before the system is built: its struts
        self.system = self.model.system(1)
        self.terms = casadi_terms(self.system, controls=_CONTROLS + poles)
        if self.poled:  # the arms work too (``skilib.ocp.poles``)
            self.actuators = self.net_actuators = type(self).actuators + self.pole_names
        self.cm = self.model.cm
        self.leg, self.snow = self.system.rows("leg"), self.system.rows("snow")
        #: the multipliers' scale in the programs: the body's weight [N]
        self.force_scale = p.body_mass * p.g
        self.actuator_rows = {"leg": [self.leg], "fore_aft": [self.system.rows("fore_aft")],
                              "heading": [self.system.rows(n) for n in self.model.heading_rows]}

    # -- the technique ------------------------------------------------------------------------
    def period_variables(self, opti) -> dict:
        """ℓ0, the leg's length at touch-down [m], or with the crouch chosen d0, the landing offset
        [m] (the module's docstring)."""
        return {"landing_offset" if self.crouched else "leg_start": opti.variable()}

    def controls(self, x: dict, tau, T):
        """The laws' (f, ḟ, f̈) at the times ``tau`` (a row), heading and leg: 6 × K."""
        ca = require_casadi()
        half, steer = x["skating_angle_deg"] * math.pi / 360, x["steer_deg"] * math.pi / 180
        ell0, dl = x["leg_start"], x["leg_extension"]
        s = tau / T
        sig = 10 * s**3 - 15 * s**4 + 6 * s**5
        sig1, sig2 = (30 * s**2 - 60 * s**3 + 30 * s**4) / T, (60 * s - 180 * s**2 + 120 * s**3) / T**2
        poles = [self.pole_row(tau, x)] if self.poled else []
        return ca.vertcat(-half + steer * sig, steer * sig1, steer * sig2, ell0 + dl * sig, dl * sig1, dl * sig2, *poles)

    # -- the period -----------------------------------------------------------------------------
    def start_conditions(self, opti, hs, x) -> None:
        """The CM the landing offset d0 inside the new ski, its height kept (the module's
        docstring)."""
        ca = require_casadi()
        q0, cm = hs.Q[:, 0], self.cm.start
        n = ca.vertcat(-ca.sin(q0[3]), ca.cos(q0[3]))
        opti.subject_to(ca.dot(q0[cm: cm + 2] - q0[0:2], n) == x["landing_offset"])
        opti.subject_to(hs.Q[cm + 2, 0] == hs.Q[cm + 2, hs.N])

    # -- admissibility ------------------------------------------------------------------------------
    def leg_push(self, hs) -> tuple:
        """(F, ℓ̇) over the knots then the midpoints: the leg row's force (> 0 pushing) and the
        leg law's rate, which the row holds the leg's length to (``EdgeSkaterModel.point_columns``'
        leg_force and leg_extension_speed)."""
        ca = require_casadi()
        return -ca.horzcat(hs.L, hs.Lm)[self.leg.start, :], ca.horzcat(hs.U[4, :], hs.Um[4, :])

    def leg_force_norm(self, hs) -> tuple:
        """|F| of the leg and fore–aft drivers' force on B at the knots and the midpoints [N] (the
        frame's leg_fx, leg_fy, leg_fz)."""
        ca = require_casadi()
        rows = [r for name in ("leg", "fore_aft") for sl in self.actuator_rows[name] for r in range(sl.start, sl.stop)]
        cm = self.cm

        def norm(t, q, v, a, lam, u, T):
            return ca.norm_2(T["Cq"][rows, cm].T @ lam[rows])

        f = hs.one_point(norm)
        return hs.point(f, knots=True), hs.point(f, knots=False)

    def admissibility(self, hs, x, leg_force_cap: float | None = None) -> dict:
        """{name: rows ≥ 0} at the knots and the midpoints (the module's docstring): u, F/(M g),
        N/(M g), ℓ_max − ℓ, and tan φ_max Z ∓ Y of the CM relative to the ski's origin across it;
        with ``leg_force_cap`` [body weights] also cap − F/(M g) (free control's cap)."""
        ca = require_casadi()
        p, cm = self.base, self.cm.start
        weight = p.body_mass * p.g
        lam = ca.horzcat(hs.L, hs.Lm)
        Q = ca.horzcat(hs.Q, hs.Qm)
        ell = ca.horzcat(hs.U[3, :], hs.Um[3, :])
        across = -ca.sin(Q[3, :]) * (Q[cm, :] - Q[0, :]) + ca.cos(Q[3, :]) * (Q[cm + 1, :] - Q[1, :])
        height = Q[cm + 2, :] - Q[2, :]
        tan_max = math.tan(math.radians(p.max_lean_deg))
        rows = {"ski_speed": self.ski_speed(hs), "leg_force": -lam[self.leg.start, :] / weight,
                "snow_load": -lam[self.snow.start, :] / weight, "reach": p.max_leg_length - ell,
                "lean_inwards": tan_max * height - across, "lean_outwards": tan_max * height + across}
        if leg_force_cap is not None:
            rows["max_leg_force_bw"] = leg_force_cap + lam[self.leg.start, :] / weight
        if self.crouched and ca.depends_on(x["leg_start"], hs.opti.x):
            # the crouch optimised: the foot it places held within the landing offset's bounds
            from .technique import EDGE_BOUNDS

            lo, hi = EDGE_BOUNDS["landing_offset"]
            d = x["landing_offset"]
            rows["landing_offset_margin"] = ca.vertcat(d - lo, hi - d)
        return {**{k: ca.vec(v) for k, v in rows.items()}, **self.pole_rows(hs, x)}

    # -- numbers ----------------------------------------------------------------------------------
    def guess(self, x: dict, nodes: int, steady=None) -> dict:
        """A first guess on the 2N + 1 points of the mesh (``mesh``): the shooting periodic stroke
        of the technique x (``edge_steady_state``: its frame's coordinates and velocities,
        interpolated, pinned as the program is), with the accelerations and multipliers of the
        numeric engine there (with the poles planted, of the shooting stroke's phase with them),
        and its ℓ0.  ``steady``: (params, steady state) a caller already has (``same_steady``;
        computed as here, without multipliers or checks), used where its parameters are x's."""
        from .steady import edge_steady_state

        p = self.params_at(x)
        ss = same_steady(steady, p) or edge_steady_state(p, multipliers=False, check=False)
        fr = ss.frame
        d, z0 = float(ss.x0[3]), float(ss.x0[2])  # the touch-down's offset: the params' or the crouch's
        ell0 = math.hypot(d, z0)
        model = EdgeSkaterModel(p, "right", np.zeros(3), ell0, landing_offset=d)
        extra = {"landing_offset": d} if self.crouched else {"leg_start": ell0}
        return self.guess_from_frame(model, fr, nodes, p.stroke_time) | {"extra": extra}

    def touchdown_state(self, traj: dict) -> np.ndarray:
        """(u, φ̇, z_B, d) at τ = 0 of a solution's trajectory: the shooting stroke map's variables
        (``skilib.models.edge.run.EdgeSkating.state_of``)."""
        q, v, cm = traj["q"][0], traj["v"][0], self.cm
        n, ez = np.array([-math.sin(q[3]), math.cos(q[3]), 0.0]), np.array([0.0, 0.0, 1.0])
        r, w = q[cm] - q[:3], v[cm] - v[:3]
        y, z, yd, zd = float(r @ n), float(r @ ez), float(w @ n), float(w @ ez)
        return np.array([self.u0(traj), (yd * z - y * zd) / (y * y + z * z), float(q[cm][2]), y])

    def peak_leg_force_bw(self, traj: dict) -> float:
        """The largest leg force over the knots and midpoints [body weights]."""
        return float(np.max(-np.asarray(traj["lam"])[:, self.leg.start])) / (self.base.body_mass * self.base.g)

    def resimulate(self, x: dict, traj: dict) -> dict:
        """The model's own stroke map (``edge_stroke``: one stroke integrated by the simulator's
        machinery and the plastic touch-down) from the collocated touch-down state
        (``touchdown_state``), with the technique x's laws (``stroke_numbers``)."""
        return self.stroke_numbers(self.params_at(x), traj)

    def stroke_numbers(self, params: EdgeSkaterParams, traj: dict, laws: EdgeLaws | None = None) -> dict:
        """One stroke of ``edge_stroke`` for ``params`` (and ``laws``; None: the params') from the
        touch-down state of ``traj``: its progress speed and powers (the leg's among them), its least leg force and snow
        load [body weights], its energy balance's residual, the ski's speed after the touch-down
        (u0 again if the stroke is periodic) and the state after it.  One stroke only: the
        open-loop skater is unstable, and a second stroke would grow the first one's truncation
        error."""
        from .steady import edge_stroke

        x_td = self.touchdown_state(traj)
        x_next, row = edge_stroke(params, x_td, laws=laws)
        weight = params.body_mass * params.g
        return dict(progress_speed=float(row["progress_speed"]), mean_power=float(row["mean_power"]),
                    mean_leg_power=float(row["mean_leg_power"]),
                    cm_speed=float(row["mean_speed"]), mean_positive_power=float(row["mean_positive_power"]),
                    metabolic_power=float(row["metabolic_power"]), metabolic_total=float(row["metabolic_total"]),
                    min_leg_force_bw=float(row["min_leg_force"]) / weight,
                    min_snow_load_bw=float(row["min_snow_load"]) / weight,
                    energy_residual=abs(float(row["energy_residual"])), u0=float(x_td[0]), u_after=float(x_next[0]),
                    state_after=x_next)

    # -- free control (``skilib.ocp.control``) -------------------------------------------------
    #: free control's laws (``spline_laws``) and caps
    laws_class = EdgeLaws
    caps_class = EdgeControlCaps

    def control_variables(self, opti, caps: EdgeControlCaps) -> dict:
        """The numbers of a stroke free control chooses beside the laws: the landing offset d0,
        within ``caps.landing_offset`` (the period's ``start_conditions`` use it)."""
        d = opti.variable()
        opti.subject_to(opti.bounded(caps.landing_offset[0], d, caps.landing_offset[1]))
        return {"landing_offset": d}

    def control_start(self, solution) -> dict:
        """Those numbers at a law-based ``StrokeSolution`` (free control's start)."""
        return {"landing_offset": solution.x["landing_offset"]}

    def control_period(self, opti, hs) -> None:
        """The laws' rates zero at τ = 0: the drivers do no impulsive work in the plastic impact
        (C_t = 0), as the params' laws (whose σ starts at rest).  The height's return is the
        period's own (``start_conditions``)."""
        opti.subject_to(hs.U[[1, 4], 0] == 0)

    def control_caps(self, hs, caps: EdgeControlCaps) -> dict:
        """The caps as rows ≥ 0 at every knot and midpoint (``EdgeControlCaps``)."""
        ca = require_casadi()
        U = ca.horzcat(hs.U, hs.Um)
        psi, psid, ell, elld = U[0, :], U[1, :], U[3, :], U[4, :]
        rows = {**self.heading_caps(psi, psid, caps), "leg_low": ell - caps.leg[0], "leg_high": caps.leg[1] - ell,
                "extension_speed": (caps.extension_speed**2 - elld**2) / caps.extension_speed**2}
        return {k: ca.vec(v) for k, v in rows.items()}

    def resimulate_laws(self, T: float, laws: EdgeLaws, traj: dict) -> dict:
        """One stroke of the model's stroke map with the splines as laws, stroke time T and the
        collocated landing offset, from the collocated touch-down state (``stroke_numbers``)."""
        d = float(self.touchdown_state(traj)[3])
        return self.stroke_numbers(replace(self.base, stroke_time=float(T), landing_offset=d), traj, laws)

    def push_frame(self, traj: dict):
        """The push over the stroke, one row per knot and midpoint: tau [s], heading_deg and
        heading_rate_deg_s, leg_length [m] and extension_speed ℓ̇ [m/s], lean_deg (from the
        vertical, + inwards), leg_force_bw, snow_load_bw, u [m/s]."""
        import pandas as pd

        weight = self.base.body_mass * self.base.g
        cm = self.cm
        rows = []
        for t, q, v, lam, u in zip(traj["tau"], traj["q"], traj["v"], traj["lam"], traj["u"]):
            n = np.array([-math.sin(q[3]), math.cos(q[3]), 0.0])
            r = q[cm] - q[:3]
            rows.append(dict(tau=t, heading_deg=math.degrees(u[0]), heading_rate_deg_s=math.degrees(u[1]),
                             leg_length=u[3], extension_speed=u[4],
                             lean_deg=math.degrees(math.atan2(float(r @ n), float(r[2]))),
                             leg_force_bw=-lam[self.leg.start] / weight, snow_load_bw=-lam[self.snow.start] / weight,
                             u=float(v[0] * math.cos(q[3]) + v[1] * math.sin(q[3])), **self.pole_columns(u)))
        return pd.DataFrame(rows)

    def caps_report(self, traj: dict, caps: EdgeControlCaps) -> dict:
        """{cap: (the value nearest it at the solution, the cap, whether it binds within 1e-6)}
        over the knots and midpoints, with the admissibility's leg force and snow load (≥ 0)."""
        fr = self.push_frame(traj)
        out = {}

        def add(name, value, cap, on):
            out[name] = dict(value=float(value), cap=float(cap), active=bool(on))

        for name, col, cap in (("peak_leg_force_bw", "leg_force_bw", caps.peak_leg_force_bw),
                               ("heading_rate_deg_s", "heading_rate_deg_s", caps.heading_rate_deg_s),
                               ("extension_speed", "extension_speed", caps.extension_speed)):
            top = fr[col].abs().max()
            add(name, top, cap, top >= cap * (1 - 1e-6))
        add("least_leg_force_bw", fr["leg_force_bw"].min(), 0.0, fr["leg_force_bw"].min() <= 1e-6)
        add("least_snow_load_bw", fr["snow_load_bw"].min(), 0.0, fr["snow_load_bw"].min() <= 1e-6)
        T = traj["T"]
        add("stroke_time", T, min(caps.stroke_time, key=lambda b: abs(T - b)),
            min(abs(T - b) for b in caps.stroke_time) <= 1e-6)
        d = float(self.touchdown_state(traj)[3])
        add("landing_offset", d, min(caps.landing_offset, key=lambda b: abs(d - b)),
            min(abs(d - b) for b in caps.landing_offset) <= 1e-6 * (caps.landing_offset[1] - caps.landing_offset[0]))
        for name, col in (("heading_deg", "heading_deg"), ("leg", "leg_length")):
            lo, hi = getattr(caps, name)
            low, high = fr[col].min(), fr[col].max()
            near, cap = (low, lo) if low - lo < hi - high else (high, hi)
            add(name, near, cap, min(low - lo, hi - high) <= 1e-6 * (hi - lo))
        reach = self.base.max_leg_length
        add("reach", fr["leg_length"].max(), reach, fr["leg_length"].max() >= reach - 1e-6)
        return {**out, **self.pole_caps_report(fr, caps)}
