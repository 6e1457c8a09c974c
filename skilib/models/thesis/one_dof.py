"""The thesis's skier as one ODE in its independent coordinate s (coordinate partitioning).

C1–C17 leave the skier one degree of freedom, the ski's travel s along its line, and the
prescribed pose gives every coordinate in closed form: q(τ, s) = q₀(τ) + s ê, where ê moves
every body by the ski direction e (R¹ = P + s e, R² = R¹ + l₁ u(τ), R³ = R¹ + ℓ(τ) u(τ),
eqs. 187–188; ``SkierModel.pose``).  The translation ê is an admissible virtual displacement
of every constraint at fixed τ (Cq ê = 0), so the multipliers do no work along it, and
projecting eq. 101 on ê (d'Alembert; Haug 1989, §6.3) leaves, with the bodies' frames at their
centres of mass (M's translational blocks mᵢ I, no coupling to the rotations):

    m s̈ = F(τ) e·u − m₂ l₁ e·ü − m₃ e·(ℓu)¨ + m e·g − mode·μ + e·D(ṡ e + (ℓu)˙)

with m = m₁ + m₂ + m₃, F the push along the leg at the CM (eqs. 179–181), g the course's
gravity, μ the kinetic friction along the ski (mode = sign ṡ; eqs. 171–178) and D the air drag
at the CM.  With ṡ = 0 the ski sticks while the net driving force is within μ (the stick
row's multiplier in the multibody model is that force).

``OneDofStroke`` integrates it with the same solver options and friction-mode logic as the
multibody stroke; ``one_dof_run`` joins strokes by the stroke change ``along_ski``
(e′·ΔṘ³ = 0: ṡ⁺ = e′·(ṡ⁻ e + (ℓu)˙(T) − (ℓu)˙′(0)), since Ṙ³ = ṡ e + (ℓu)˙).  It is the
"bare" limit of a long run: the same motion with one state instead of 36, and an independent
derivation against which the multibody engine's run is tested.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.integrate import solve_ivp

from ...engine.errors import IntegrationError
from ...strokes.params import course_gravity
from .model import SkierModel
from .params import SkierParams, ski_heading

#: the stick/slip switches one stroke may make before it is refused (the multibody stroke's limit)
MAX_SWITCHES = 10000

__all__ = ["OneDofStroke", "one_dof_run"]


class OneDofStroke:
    """One stroke of ``model`` (a ``SkierModel``) as the ODE s̈ = (driving force − mode μ)/m
    (module docstring).  ``sdd(τ, ṡ, mode)`` is the ski's acceleration; ``run`` integrates a
    stroke from ṡ(0)."""

    def __init__(self, model: SkierModel):
        p = self.params = model.params
        self.model, self.e = model, model.e
        self.m2, self.m3 = model.shank.mass, model.upper.mass
        self.mass = sum(b.mass for b in model.bodies)
        self.weight_e = self.mass * float(np.dot(course_gravity(p.g, p.slope_deg), self.e)) if p.gravity else 0.0
        self.mu = float(p.friction)
        self.drag = 0.5 * p.air_density * p.cda if p.air_drag else 0.0

    def cm_offset(self, tau):
        """(ℓu)˙ and (ℓu)¨: the CM's velocity and acceleration relative to the ski."""
        return self._kinematics(tau)[1:]

    def _kinematics(self, tau):
        u, ud, udd = self.model.leg_axis(tau)
        ell, elld, elldd = self.params.leg_length(tau)
        return (u, udd), elld * u + ell * ud, elldd * u + 2.0 * elld * ud + ell * udd

    def kinematics_at(self, tau: np.ndarray) -> dict:
        """``_kinematics`` at many phase times at once, for the quadratures of
        ``skilib.models.thesis.reduced``: arrays (n, 3) of u, ü, (ℓu)˙, (ℓu)¨ and (n,) of ℓ̇
        (the laws evaluated point by point, u(τ) = cos γ ẑ + sin γ d as ``SkierModel.leg_axis``)."""
        tau = np.asarray(tau, dtype=float)
        g, gd, gdd = np.array([self.params.leg_angle(float(t)) for t in tau]).T
        ell, elld, elldd = np.array([self.params.leg_length(float(t)) for t in tau]).T
        d, z = self.model.d, np.array([0.0, 0.0, 1.0])
        u = np.outer(np.cos(g), z) + np.outer(np.sin(g), d)
        ug = -np.outer(np.sin(g), z) + np.outer(np.cos(g), d)  # ∂u/∂γ
        ud = gd[:, None] * ug
        udd = gdd[:, None] * ug - (gd * gd)[:, None] * u
        return dict(u=u, udd=udd, cd=elld[:, None] * u + ell[:, None] * ud,
                    cdd=elldd[:, None] * u + 2.0 * elld[:, None] * ud + ell[:, None] * udd, elld=elld)

    def driving_at(self, tau: np.ndarray, kin: dict | None = None, F: np.ndarray | None = None) -> np.ndarray:
        """``driving`` without air drag at many phase times (its force depends on τ alone);
        ``kin`` (``kinematics_at``) and ``F`` (the push-off) at ``tau`` where the caller has them."""
        if self.drag:
            raise ValueError("driving_at: with air drag the driving force depends on the ski's speed")
        kin = self.kinematics_at(tau) if kin is None else kin
        e = self.e
        F = np.asarray(self.model.push_force(np.asarray(tau, dtype=float)), dtype=float) if F is None else F
        return F * (kin["u"] @ e) - self.m2 * self.params.l1 * (kin["udd"] @ e) - self.m3 * (kin["cdd"] @ e) \
            + self.weight_e

    def driving(self, tau, sdot) -> float:
        """The net force along e without friction [N]."""
        return self._driving(tau, sdot, self._kinematics(tau))

    def _driving(self, tau, sdot, kin) -> float:
        e = self.e
        (u, udd), cd, cdd = kin
        f = (float(self.model.push_force(tau)) * (e @ u) - self.m2 * self.params.l1 * (e @ udd)
             - self.m3 * (e @ cdd) + self.weight_e)
        if self.drag:
            v = sdot * e + cd
            f -= self.drag * math.sqrt(v @ v) * (e @ v)
        return float(f)

    def sdd(self, tau, sdot, mode) -> float:
        """s̈ in friction mode +1, −1 (sliding) or 0 (stuck: 0)."""
        return 0.0 if mode == 0 else (self.driving(tau, sdot) - mode * self.mu) / self.mass

    def decide_mode(self, tau) -> int:
        """At ṡ = 0: slide where the net force beats friction, else stick (the multibody
        stroke's rule)."""
        d = self.driving(tau, 0.0)
        if self.mu == 0.0:
            return 1 if d >= 0.0 else -1
        return 1 if d - self.mu > 0.0 else (-1 if d + self.mu < 0.0 else 0)

    def run(self, sdot0, *, method="DOP853", rtol=1e-8, atol=1e-8, max_step=np.inf):
        """ṡ(T) and ∫|Ṙ³| dτ over the stroke from ṡ(0) = ``sdot0``, and the (τ, mode) events.

        States: ṡ and ∫|Ṙ³| dτ (s itself enters nothing)."""
        T = self.params.phase_time
        tau, y = 0.0, np.array([float(sdot0), 0.0])
        mode = int(np.sign(y[0])) if y[0] != 0.0 else self.decide_mode(0.0)
        events, nfev = [], 0
        while tau < T:
            if len(events) > MAX_SWITCHES:
                raise IntegrationError(f"one-DOF stroke: more than {MAX_SWITCHES} stick/slip switches by "
                                       f"τ = {tau!r} s (Zeno behaviour?)")
            def rhs(t, y, mode=mode):
                kin = self._kinematics(t)
                v = y[0] * self.e + kin[1]
                sdd = 0.0 if mode == 0 else (self._driving(t, y[0], kin) - mode * self.mu) / self.mass
                return [sdd, math.sqrt(v @ v)]

            if mode == 0:
                def ev(t, y):  # the static friction needed reaches its limit
                    return self.mu - abs(self.driving(t, 0.0))
                ev.direction = -1
            else:
                def ev(t, y):  # the ski stops
                    return y[0]
                ev.direction = -mode
            ev.terminal = True
            sol = solve_ivp(rhs, (tau, T), y, method=method, rtol=rtol, atol=atol, max_step=max_step, events=ev)
            nfev += sol.nfev
            tau, y = sol.t[-1], sol.y[:, -1].copy()
            if sol.status == 1:
                y[0] = 0.0
                # leaving the stuck state: the event says |driving| has risen through μ, so the ski
                # slides the way the driving force pushes (the multibody stroke's rule, by λ_stick);
                # deciding again from d − μ > 0 would let a rounding of −2e-15 keep it stuck, and the
                # event, already at zero, would fire again at the same τ without end
                new = (1 if self.driving(tau, 0.0) > 0.0 else -1) if mode == 0 else self.decide_mode(tau)
                events.append((tau, mode, new))
                mode = new
        return y[0], y[1], events, nfev


def one_dof_run(params: SkierParams | None = None, *, strokes=10, v0=0.0, first_ski="right", push_force=None,
                **solver):
    """A long run of alternating strokes as the one-DOF ODE (module docstring): a list of one
    dict per stroke (s_dot_start, s_dot_end, mean_speed = ∫|Ṙ³| dτ / T, events) and the
    evaluations of the right-hand side.  ``push_force`` defaults to the run's (table 9's fit)."""
    from .push import thesis_push_force

    p = SkierParams() if params is None else params
    push = thesis_push_force(p, p.phase_time)[0] if push_force is None else push_force
    out, nfev, sdot, prev = [], 0, float(v0), None
    for k in range(strokes):
        hdg, side = ski_heading(p, k, first_ski)
        st = OneDofStroke(SkierModel(p, hdg, side, np.zeros(3), push))
        if prev is not None:  # along_ski: e′·(Ṙ³⁺ − Ṙ³⁻) = 0
            v_old = sdot * prev.e + prev.cm_offset(p.phase_time)[0]
            sdot = float(st.e @ (v_old - st.cm_offset(0.0)[0]))
        start = sdot
        sdot, dist, events, n = st.run(start, **solver)
        nfev += n
        out.append(dict(stroke=k + 1, s_dot_start=start, s_dot_end=sdot, mean_speed=dist / p.phase_time,
                        events=events))
        prev = st
    return out, nfev
