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
is this stroke's start: with S the mirror (Y and every ZXZ angle negated, ``MIRROR``)

    M(q₀)(q̇₀ − q̇_c) + C_q(q₀)ᵀ ν = 0,   C_q(q₀) q̇₀ + C_t = 0,   q̇_c = (S₃v_c, 0, S₃v_c, 0)

(the KKT conditions of the projection, ν its impulses), and the start pose satisfies the rows at
τ = 0 with the ski's origin at X = Y = 0 (the equations do not depend on where the ski is: the
new ski lands under the centre of mass, which keeps its position).  The ski's speed along itself
at τ = 0 is then the steady state's u0.

Admissibility, at every knot: the ski slides forwards (u ≥ 0, the friction mode the program
assumes), the snow carries the ski (N = (M + m_s) g cos α + M z̈ ≥ 0, as
``skilib.studies.optimum.snow_load_margin``) and the leg force stays below
``MAX_LEG_FORCE_BW`` body weights, as ``simulate_free`` refuses above it.

Not transcribed yet: the poles (a stroke with phases), the "along_ski" touch-down and the
positive and metabolic budgets (W⁺ and W⁻ separately).
"""
from __future__ import annotations

import math
from dataclasses import fields, replace

import numpy as np

from ...engine.codegen.casadi_terms import casadi_terms, require_casadi
from ...engine.controls import ControlLaw
from ...strokes.params import slope_factors
from .model import FreeSkaterModel
from .params import MAX_LEG_FORCE_BW, FreeLaws, FreeSkaterParams, with_overrides

__all__ = ["FreeStroke", "LAW_PARAMETERS", "MIRROR"]

#: the technique's parameters the laws are made of (the ones collocation may set free)
LAW_PARAMETERS = ("skating_angle_deg", "stroke_time", "steer_deg", "offset_start", "offset_end", "cm_height", "cm_dip")
#: the mirror Y → −Y on the coordinates of the ski and B (positions: Y negated; ZXZ angles: all
#: three negated, S R_z(φ) S = R_z(−φ), S R_x(θ) S = R_x(−θ))
MIRROR = np.array([1.0, -1.0, 1.0, -1.0, -1.0, -1.0] * 2)
_CONTROLS = ("heading", "offset", "height")


class FreeStroke:
    """The free skater's stroke adapter for ``skilib.ocp.collocate_stroke`` (the module's
    docstring), for the parameters ``params`` (their law parameters are the technique's start)."""

    name = "free skater"
    law_parameters = LAW_PARAMETERS

    def __init__(self, params: FreeSkaterParams | None = None):
        p = with_overrides(params)
        if p.pole_force_max > 0:
            raise ValueError("pole_force_max: the poles (a stroke in phases) are not transcribed for collocation yet; "
                             "use the shooting optimum (method='shooting')")
        if not (p.offset_exponent == 1.0 or p.offset_exponent >= 2.0):
            raise ValueError(f"offset_exponent: collocation needs ḧ finite at τ = 0, p = 1 or p ≥ 2, got "
                             f"{p.offset_exponent:g}")
        self.base = p
        laws = FreeLaws(*(ControlLaw(n) for n in _CONTROLS))
        self.model = FreeSkaterModel(p, "right", np.zeros(3), laws)
        self.system = self.model.system(1)
        self.terms = casadi_terms(self.system, controls=_CONTROLS)
        self.leg = self.system.rows("leg")
        self.cm = self.model.cm

    def structure_key(self) -> tuple:
        """What a program of this stroke bakes in: every parameter but the laws' (those are the
        program's parameters), so a program built once serves every technique and budget."""
        return (type(self).__name__,) + tuple((f.name, getattr(self.base, f.name)) for f in fields(self.base)
                                              if f.name not in LAW_PARAMETERS)

    # -- the technique ------------------------------------------------------------------------
    def technique(self) -> dict:
        return {k: float(getattr(self.base, k)) for k in LAW_PARAMETERS}

    def params_at(self, x: dict) -> FreeSkaterParams:
        return replace(self.base, **{k: float(v) for k, v in x.items()})

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
        rows = [-half + steer * sig, steer * sig1 / T, steer * sig2 / T**2, *off,
                zbar - dz / 2 + dz / 2 * ca.cos(w * tau), -dz / 2 * w * ca.sin(w * tau), -dz / 2 * w**2 * ca.cos(w * tau)]
        return ca.vertcat(*[r if hasattr(r, "shape") and r.shape[1] == tau.shape[1] else r + 0 * tau for r in rows])

    # -- the period -----------------------------------------------------------------------------
    def close_period(self, opti, hs) -> None:
        """The start on the rows with the ski at the origin, its velocities the mirrored plastic
        touch-down of the end (the module's docstring)."""
        ca = require_casadi()
        p, N = self.base, hs.N
        hs.on_rows(0)
        opti.subject_to(hs.Q[0, 0] == 0)
        opti.subject_to(hs.Q[1, 0] == 0)
        v_end = hs.V[:, N]
        S3 = ca.DM(np.diag(MIRROR[:3]))
        vc = S3 @ (p.body_mass * v_end[self.cm] + p.ski_mass * v_end[0:3]) / (p.body_mass + p.ski_mass)
        qd_c = ca.vertcat(vc, ca.DM.zeros(3), vc, ca.DM.zeros(3))
        T0 = hs.terms_at(0)
        nu = opti.variable(self.terms.nc)
        opti.subject_to(T0["M"] @ (hs.V[:, 0] - qd_c) + T0["Cq"].T @ nu == 0)

    def progress_speed(self, hs):
        """ΔX_B / T over the stroke."""
        i = self.cm.start
        return (hs.Q[i, hs.N] - hs.Q[i, 0]) / hs.T

    def _leg_power(self, t, q, v, a, lam, u, T):
        ca = require_casadi()
        leg = slice(self.leg.start, self.leg.stop)
        return -ca.dot(lam[leg], (T["Cq"] @ v)[leg])

    def work(self, hs):
        """The leg's work over the stroke: the placement rows' power integrated by Simpson's
        rule (its mean over T is the steady state's ``mean_power``)."""
        return hs.simpson(hs.one_point(self._leg_power))

    def _leg_force(self, t, q, v, a, lam, u, T):
        leg, cm = slice(self.leg.start, self.leg.stop), self.cm
        return -T["Cq"][leg, cm].T @ lam[leg]

    def admissibility(self, hs, x) -> dict:
        """{name: rows ≥ 0} at the knots: u (the ski slides forwards), N/(M g) (the snow carries it),
        cap² − |F_leg|²/(M g)² (the leg force within ``MAX_LEG_FORCE_BW``)."""
        ca = require_casadi()
        p = self.base
        weight = p.body_mass * p.g
        cos_a = slope_factors(p.slope_deg)[1]
        speed = hs.point(hs.one_point(lambda t, q, v, a, lam, u, T: ca.dot(v[0:3], ca.vertcat(ca.cos(q[3]), ca.sin(q[3]), 0))),
                         knots=True)
        zdd = hs.U[8, :]
        load = ((p.body_mass + p.ski_mass) * p.g * cos_a + p.body_mass * zdd) / weight
        force = hs.point(hs.one_point(lambda *a: ca.sumsqr(self._leg_force(*a))), knots=True)
        return {"ski_speed": ca.vec(speed), "snow_load": ca.vec(load),
                "max_leg_force_bw": ca.vec(MAX_LEG_FORCE_BW**2 - force / weight**2)}

    # -- numbers ----------------------------------------------------------------------------------
    def guess(self, x: dict, nodes: int) -> dict:
        """A first guess on 2N + 1 points evenly spaced in τ/T: the shooting steady state of the
        technique x (its frame's coordinates and velocities, interpolated), with the accelerations
        and multipliers of the numeric engine there."""
        from .steady import free_steady_state

        p = self.params_at(x)
        ss = free_steady_state(p)
        fr = ss.frame
        model = FreeSkaterModel(p, "right", np.zeros(3))
        system = model.system(1)
        n, T = model.nq, p.stroke_time
        s = np.linspace(0.0, 1.0, 2 * nodes + 1)
        tau_f = fr["tau"].to_numpy()
        q = np.column_stack([np.interp(s * T, tau_f, fr[f"q{i}"]) for i in range(n)])
        v = np.column_stack([np.interp(s * T, tau_f, fr[f"qd{i}"]) for i in range(n)])
        ev = [system.evaluate(float(si * T), qi, vi) for si, qi, vi in zip(s, q, v)]
        return dict(s=s, q=q, v=v, a=np.array([e.qdd for e in ev]), lam=np.array([e.lam for e in ev]))

    def u0(self, traj: dict) -> float:
        q, v = traj["q"][0], traj["v"][0]
        return float(v[0] * math.cos(q[3]) + v[1] * math.sin(q[3]))

    def peak_leg_force_bw(self, traj: dict) -> float:
        """The largest leg force over the knots and midpoints [body weights]."""
        leg, cm = slice(self.leg.start, self.leg.stop), self.cm
        F = []
        for t, q, v, lam, u in zip(traj["tau"], traj["q"], traj["v"], traj["lam"], traj["u"]):
            Cq = np.asarray(self.terms(t, q, v, u)["Cq"])
            F.append(np.linalg.norm(-Cq[leg, cm].T @ lam[leg]))
        return float(max(F)) / (self.base.body_mass * self.base.g)

    def resimulate(self, x: dict, u0: float) -> dict:
        """The model's own simulator (``simulate_free``, two strokes, plastic touch-down) from
        the collocated start: the first stroke's progress speed and mean power, and the ski's
        speed after its touch-down (u0 again if the stroke is periodic)."""
        from .run import simulate_free

        r = simulate_free(self.params_at(x), strokes=2, v0=u0)
        st = r.strokes
        return dict(progress_speed=float(st["mean_vx"].iloc[0]), mean_power=float(st["mean_power"].iloc[0]),
                    cm_speed=float(st["mean_speed"].iloc[0]),
                    u0=float(u0), u_after=float(st["u_start"].iloc[1]))
