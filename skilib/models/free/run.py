"""Runs of the free skater (``skilib.models.free.model``): alternating strokes joined at
touch-down.  The strokes are integrated, book-kept and tabulated by the machinery every skating
model shares (``skilib.strokes``); this module supplies the touch-down, by one of two rules
(``TOUCHDOWN_RULES``, the model's docstring):

- "along_ski" (kept for comparison): the velocities satisfy the new stroke's rows and the centre of
  mass keeps its velocity along the new ski, e′ · (Ṙ_B⁺ − Ṙ_B⁻) = 0.  The old stance ski's
  kinetic energy vanishes with it and the new ski, part of B in the swing, appears moving with
  the centre of mass: the rule can create energy.
- "plastic" (the default): one plastic impact of the whole system, in two steps.

  1. Merge.  The old stance ski (velocity Ṙ_s⁻, angular velocity ω_s⁻ = ψ̇(T) ẑ) joins B
     (Ṙ_B⁻; B's orientation is held by its posture drivers, ω_B = 0) in a perfectly inelastic
     merge that conserves momentum::

         (M + m_s) v_c = M Ṙ_B⁻ + m_s Ṙ_s⁻

     and loses ΔT_merge = ½ M m_s/(M + m_s) |Ṙ_B⁻ − Ṙ_s⁻|² + ½ ω_s⁻ᵀ I_s ω_s⁻ ≥ 0: the
     relative motion of two point masses (König's theorem) and the ski's spin, which the
     merged body, held upright and not turning by B's posture drivers, cannot keep (their
     impulsive torque takes it; with the default heading law ψ̇(T) = 0 and this part is 0).
  2. Split and project.  The new ski leaves the merged body with its velocity: Ṙ_s′ = Ṙ_B =
     v_c and no angular velocity, at no cost in energy.  The plastic impact of the new
     stance's rows (``skilib.engine.impact``: the knife edge, the snow, the heading and
     posture drivers, the leg's placement drivers) projects these velocities, mass-weighted,
     onto Cq q̇⁺ + Ct = 0 by the augmented matrix of eq. 101::

         [ M   Cqᵀ ] [ q̇⁺ ]   [ M q̇_c ]
         [ Cq   0  ] [ ν  ] = [ −Ct   ]

     and the kinetic energy changes by ΔT_proj = T_c − T⁺ = ½ ΔᵀMΔ − Ctᵀν, Δ = q̇_c − q̇⁺
     (Carnot's theorem with moving rows).  For the default laws ḣ(0) = ż(0) = ψ̇(0) = 0, so
     Ct = 0 at τ = 0 and ΔT_proj = ½ΔᵀMΔ ≥ 0; a law whose drivers move at τ = 0 adds the
     drivers' impulsive work Ctᵀν, of either sign.

  KE lost at touch-down = ΔT_merge + ΔT_proj = T(B + old ski)⁻ − T(B + new ski)⁺.
"""
from __future__ import annotations

import functools
import inspect
import threading
import time
from dataclasses import dataclass

import numpy as np

from ...engine.bodies import ROTATIONS
from ...engine.impact import ImpactSite
from ...engine.options import Integrator, Stabilization
from ...engine.solver import consistent_initial_conditions
from ...engine.validation import check_bool, check_choice, check_number
from ...strokes.frame import column, column_extreme, output_grid
from ...strokes.kept import KeptLast
from ...strokes.laws import SIDES, side_of
from ...strokes.result import SimResult
from ...strokes.run import EVENT_COLUMNS, RunSettings, Skating, run_strokes
from ...strokes.stroke import DEFAULT_MAX_WALL_TIME, MAX_STEP_DIVISOR, Budget, CallBudget
from ...strokes.touchdown import PlasticChange, plastic_change
from ...strokes.poles import with_pole_works
from .model import FREE_WORK_TERMS, FreeSkaterModel
from .params import MAX_LEG_FORCE_BW, FreeLaws, FreeSkaterParams, with_overrides

__all__ = ["simulate_free", "leg_power_translational", "ski_spin_energy", "touch_down", "plastic_touch_down", "PlasticTouchDown", "TOUCHDOWN_RULES", "Stance", "FreeSkating", "FreeRunOptions", "free_run_options", "free_options_of",
           "check_leg_force", "check_snow_load", "ADMISSIBILITY"]

#: what a run does with a technique whose snow load N = (M + m_s) g + M z̈(τ) falls below zero
#: somewhere on its output grid (``simulate_free``'s ``admissibility``): refuse it before
#: integrating ("raise", the default), or run it and report N in the frame ("report")
ADMISSIBILITY = ("raise", "report")

#: the touch-down rules (``simulate_free``'s ``touchdown``; the module's docstring): "plastic"
#: (the default) is one plastic impact of the whole system (merge of the old ski into B, then the
#: projection onto the new rows); "along_ski" keeps the centre of mass's velocity along the new
#: ski (the earlier rule, kept for comparison: it can create energy)
TOUCHDOWN_RULES = ("plastic", "along_ski")

_CHANGE_COLUMNS = ["stroke", "t", "ke_before", "ke_after", "ke_loss", "ke_loss_merge", "ke_loss_projection",
                   "u_before", "u_after", "cm_jump", "touchdown_residual"]


@dataclass(frozen=True)
class PlasticTouchDown(PlasticChange):
    """The plastic touch-down (the module's docstring, rule "plastic") of the stance after a
    stroke of ``old`` ending at (q⁻, q̇⁻): the shared ``PlasticChange`` (``skilib.strokes.touchdown``:
    qd = q̇⁺, the common velocity, the split velocities, the energies and shares, the impact)
    with the new stroke's ``model`` and its ``q`` at τ = 0."""

    model: FreeSkaterModel = None
    q: np.ndarray = None


class Stance:
    """The strokes on one side, built once: the model with its ski's origin at the global origin,
    its consistent pose at τ = 0 there, the velocity rows at that pose and the compiled systems.
    A stroke on this side anywhere else is this model moved (``FreeSkaterModel.moved``): its pose
    is this one translated, and its rows, which see only the ski's height and orientation and the
    centre of mass relative to the ski, are the same."""

    def __init__(self, params: FreeSkaterParams, side: str, laws: FreeLaws | None, rotation: str):
        self.model = m = FreeSkaterModel(params, side, np.zeros(3), laws, rotation)
        system = m.system(1)
        self.q = consistent_initial_conditions(system, 0.0, m.pose(0.0), independent=[0, 1], velocities=False)[0]
        jet = system.constraint_jet(0.0, self.q)
        self.e, n = m.axes(0.0)
        self.offset = float(m.offset_law(0.0)[0]) * n  # the centre of mass from the ski's origin, sideways
        along_ski, along_cm = np.zeros(m.nq), np.zeros(m.nq)
        along_ski[:3], along_cm[m.cm] = self.e, self.e
        # the velocity rows and one more: the ski's (start) or the centre of mass's (touch-down)
        # velocity along the ski; one degree of freedom, so either fixes every velocity
        self.start_rows = np.vstack([jet.J, along_ski])
        self.land_rows = np.vstack([jet.J, along_cm])
        self.ct = -np.array(jet.t, dtype=float)
        # the plastic touch-down's impact at this pose: every touch-down on this side lands at a
        # translation of it, where M, Cq and Ct are the same (the class docstring)
        self.site = ImpactSite(system, self.q)
        self.compiled = {}  # the compiled systems of the strokes on this side (``Stroke``'s ``systems``)

    def start(self, u: float):
        """The model at the origin and its q, q̇ at τ = 0 with the ski's speed u along itself."""
        qd = np.linalg.solve(self.start_rows, np.concatenate([self.ct, [u]]))
        return self.model, self.q.copy(), qd

    def placed(self, old: FreeSkaterModel, q):
        """This side's model and its q at τ = 0 with the centre of mass where ``old``'s is at q:
        the new ski lands under it (positions are continuous at touch-down)."""
        P = q[old.cm] - self.offset
        P[2] = 0.0
        new = self.model.moved(P)
        q1 = self.q.copy()
        q1[:3] += P
        q1[new.cm] += P
        return new, q1

    def land(self, old: FreeSkaterModel, q, qd):
        """The touch-down "along_ski" of this side's ski after a stroke of ``old`` ending at
        (q, q̇) (see ``touch_down``)."""
        new, q1 = self.placed(old, q)
        qd1 = np.linalg.solve(self.land_rows, np.concatenate([self.ct, [self.e @ qd[old.cm]]]))
        return new, q1, qd1

    def land_plastic(self, old: FreeSkaterModel, q, qd, energies: bool = True) -> PlasticTouchDown:
        """The plastic touch-down of this side's ski after a stroke of ``old`` ending at (q, q̇)
        (the module's docstring): the old ski merges into B, the new ski leaves B at the common
        velocity, and ``skilib.engine.impact`` projects onto the new stance's rows at τ = 0.
        ``energies``: ``plastic_change``'s (False: the kinetic energies NaN, the state the same)."""
        p = old.params
        new, q1 = self.placed(old, q)
        c = plastic_change(old.system(1), q, qd, self.model.system(1), q1, body_mass=p.body_mass, ski_mass=p.ski_mass,
                           ski=slice(0, old.ski.nq), cm=old.cm, site=self.site, energies=energies)
        return PlasticTouchDown(**vars(c), model=new, q=q1)

    def residual(self, qd1) -> float:
        """max |Cq q̇ + Ct| of this stance's rows at τ = 0 for the velocities q̇1 (the rows see
        neither where the ski is nor the velocities, so Cq and Ct are those at ``self.q``)."""
        return float(np.abs(self.start_rows[:-1] @ qd1 - self.ct).max())


#: the most stances kept per thread (``stance_of``): a study of many parameter sets builds a new one
#: for each; the last few are the ones asked again
STANCE_CACHE_SIZE = 16

_stances = threading.local()


def stance_of(params: FreeSkaterParams, side: str, laws: FreeLaws | None, rotation: str) -> Stance:
    """The ``Stance`` of (params, side, rotation) with the default laws (``laws`` None), built once
    per thread and kept (the last ``STANCE_CACHE_SIZE``): a steady state or a run asked again, or
    with one number changed and changed back, reuses its pose, its rows, its impact and its
    compiled systems.  The key is the frozen params themselves, so nothing a caller changes
    can leave a stale stance; a stance's compiled systems hold one evaluation buffer each, so a
    thread has its own.  With laws given (objects a caller may change in place) a new stance
    is built at every call."""
    if laws is not None:
        return Stance(params, side, laws, rotation)
    cache = getattr(_stances, "by_key", None)
    if cache is None:
        cache = _stances.by_key = KeptLast(STANCE_CACHE_SIZE)
    return cache.get((params, side, rotation), lambda: Stance(params, side, laws, rotation))


def touch_down(old: FreeSkaterModel, q, qd, side: str, touchdown: str = "plastic"):
    """The next stroke's model and state (model, q, q̇) at τ = 0: the other ski (on ``side``)
    lands under the centre of mass, which keeps its position.  ``touchdown`` (``TOUCHDOWN_RULES``):
    "plastic" (default), one plastic impact of the whole system (``plastic_touch_down``);
    "along_ski", the centre of mass keeps its velocity along the new ski and the edge takes the
    rest."""
    touchdown = check_choice("touchdown", touchdown, TOUCHDOWN_RULES)
    stance = stance_of(old.params, side, old.given_laws, old.rotation)
    if touchdown == "along_ski":
        return stance.land(old, q, qd)
    r = stance.land_plastic(old, q, qd)
    return r.model, r.q, r.qd


def plastic_touch_down(old: FreeSkaterModel, q, qd, side: str) -> PlasticTouchDown:
    """The plastic touch-down of the ski on ``side`` after a stroke of ``old`` ending at (q, q̇),
    with its merge, its impact and their energies (``PlasticTouchDown``; the module's docstring)."""
    side = check_choice("side", side, SIDES)
    return stance_of(old.params, side, old.given_laws, old.rotation).land_plastic(old, q, qd)


def _where(frame, i: int) -> str:
    """Where row i of a stroke's ``frame`` lies, for a message: its t, stroke and τ."""
    return (f"t = {column(frame, 't')[i]:.6g} s (stroke {int(column(frame, 'stroke')[i])}, "
            f"τ = {column(frame, 'tau')[i]:.6g} s)")


def check_leg_force(frame, params: FreeSkaterParams, cap: float) -> None:
    """A ``ValueError`` naming ``max_leg_force_bw`` if the leg force of a stroke's ``frame`` (a
    DataFrame or ``stroke_columns``' dict) exceeds ``cap`` body weights anywhere on its output
    grid, with the time and the force."""
    f = column(frame, "leg_force_bw")
    if not len(f) or not np.nanmax(f) > cap:
        return
    i = int(np.nanargmax(f))
    raise ValueError(f"max_leg_force_bw: the leg force reaches {f[i]:.6g} body weights ({f[i] * params.weight:.6g} N) "
                     f"at {_where(frame, i)}, "
                     f"above the cap of {cap:g} body weights: no human leg pushes so hard; check the technique "
                     f"(stroke_time {params.stroke_time:g} s, cm_dip {params.cm_dip:g} m, steer_deg "
                     f"{params.steer_deg:g}°, the laws) or raise max_leg_force_bw")


def check_snow_load(model: FreeSkaterModel, grid, stroke: int = 1, t0: float = 0.0, default_law: bool = True) -> None:
    """A ``ValueError`` naming ``snow_load`` if the snow's load N(τ) = (M + m_s) g cos α + M z̈(τ)
    (``FreeSkaterModel.normal_load``, the model's docstring; α the course's inclination,
    ``slope_deg``, cos α = 1 on the flat) of ``model``'s stroke (number
    ``stroke``, starting at t = ``t0``) is below zero at a τ of ``grid``, with the least value
    (in N and body weights M g), where it is and the stroke's parameters.  N depends on the
    height law alone, not on the motion, so it is checked before anything is integrated, and
    every stroke of a run (both sides share the height law) has the same N(τ).  ``default_law``:
    the height law is the default dip (the message then says what cm_dip and stroke_time give).

    N < 0 means the height law lowers the centre of mass faster than gravity can,
    z̈ < −(1 + m_s/M) g cos α: the snow would have to pull the ski down, and the friction μN would
    push it forwards.  For the default law z̈ = −2Δz (π/T)² cos(2πτ/T), the least N is at τ = 0
    and T, and N ≥ 0 throughout needs 2Δz (π/T)² ≤ (1 + m_s/M) g cos α."""
    p = model.params
    tau = np.asarray(grid, dtype=float)
    load = np.array([model.normal_load(t) for t in tau])
    i = int(np.argmin(load))
    if not load[i] < 0.0:
        return
    g = "g" if p.slope_deg == 0.0 else "g cos α"
    on = "" if p.slope_deg == 0.0 else f" on the slope α = {p.slope_deg:g}°"
    need = 2 * p.cm_dip * (np.pi / p.stroke_time) ** 2
    hint = (f"the default law needs 2 cm_dip (π/stroke_time)² ≤ (1 + m_s/M) {g}, here cm_dip {p.cm_dip:g} m and "
            f"stroke_time {p.stroke_time:g} s give {need:.4g} m/s²" if default_law
            else "the height law must dip less or more slowly")
    raise ValueError(f"snow_load: the snow's load N = (M + m_s) {g} + M z̈ falls to {load[i]:.6g} N "
                     f"({load[i] / p.weight:.4g} body weights) at τ = {tau[i]:.6g} s of stroke {stroke} "
                     f"(t = {t0 + tau[i]:.6g} s; every stroke repeats it){on}: the height law lowers the centre of "
                     f"mass faster than gravity can (z̈ = {float(model.height_law(tau[i])[2]):.4g} m/s² < "
                     f"−(1 + m_s/M) {g} = {-(1 + p.ski_mass / p.body_mass) * model.g_normal:.4g} m/s²), so the snow "
                     f"would pull the ski down; {hint} (admissibility='report' runs it anyway)")


def check_pole_load(frame, params: FreeSkaterParams) -> None:
    """A ``ValueError`` naming ``pole_force_max`` if, with the poles in the snow, the snow's load
    N = (M + m_s) g cos α + M z̈ − Σ F±,z of a stroke's ``frame`` falls below zero on its output
    grid: the poles would lift the skier off the ski and the friction μN push the ski forwards.
    ``frame``: a DataFrame or ``stroke_columns``' dict."""
    load = column(frame, "snow_load")
    i = int(np.argmin(load))
    if not load[i] < 0.0:
        return
    raise ValueError(f"pole_force_max: with the poles carrying {column(frame, 'pole_fz')[i]:.6g} N of the skier's "
                     f"weight the snow's load falls to {load[i]:.6g} N at {_where(frame, i)}: the poles would lift the "
                     "skier off the "
                     f"ski; pole_force_max = {params.pole_force_max:g} N per pole is too large for this technique "
                     "(admissibility='report' runs it anyway)")


@dataclass(frozen=True)
class FreeRunOptions:
    """The checked options of a run of the free skater (``simulate_free``'s keywords)."""
    params: FreeSkaterParams
    laws: FreeLaws | None
    strokes: int
    v0: float
    first_ski: str
    rotation: str
    stabilization: Stabilization
    integrator: Integrator
    grid: np.ndarray
    compiled: bool
    budget: Budget
    max_leg_force_bw: float = MAX_LEG_FORCE_BW
    admissibility: str = "raise"
    touchdown: str = "plastic"


def free_run_options(params, *, strokes, v0, first_ski, laws, rotation, stabilization, method, rtol, atol, h, alpha, beta,
             compiled, dt_out, n_out, max_evaluations, max_wall_time, max_leg_force_bw,
             admissibility="raise", touchdown="plastic") -> FreeRunOptions:
    p = with_overrides(params)
    strokes = check_number("strokes", strokes, integer=True, low=1, high=10_000)
    v0 = check_number("v0", v0, low=-50.0, high=50.0, unit="m/s")
    first_ski = check_choice("first_ski", first_ski, SIDES)
    rotation = check_choice("rotation", rotation, tuple(ROTATIONS))
    if laws is not None and not isinstance(laws, FreeLaws):
        raise ValueError(f"laws: must be None or a FreeLaws, got {type(laws).__name__}")
    stab = Stabilization.make(stabilization, h=h, alpha=alpha, beta=beta)
    T = p.stroke_time
    integ = Integrator.make(method, rtol=rtol, atol=atol, max_step=T / MAX_STEP_DIVISOR, stabilization=stab)
    cap = check_number("max_leg_force_bw", max_leg_force_bw, finite=False, low=1.0, unit="body weights")
    budget = CallBudget(check_number("max_evaluations", max_evaluations, integer=True, low=1),
                        None if max_wall_time is None
                        else check_number("max_wall_time", max_wall_time, positive=True, unit="s"))
    return FreeRunOptions(p, laws, strokes, v0, first_ski, rotation, stab, integ, output_grid(T, dt_out, n_out),
                    check_bool("compiled", compiled), budget, cap,
                    check_choice("admissibility", admissibility, ADMISSIBILITY),
                    check_choice("touchdown", touchdown, TOUCHDOWN_RULES))


def ski_spin_energy(model: FreeSkaterModel, q, qd) -> float:
    """½ ω_sᵀ I_s ω_s [J], the stance ski's rotational kinetic energy: the system's kinetic energy
    less the two bodies' translational parts (B does not turn: its posture drivers hold it)."""
    p, cm = model.params, model.cm
    return float(model.system(1).kinetic_energy(q, qd) - 0.5 * p.body_mass * qd[cm] @ qd[cm]
                 - 0.5 * p.ski_mass * qd[:3] @ qd[:3])


def leg_power_translational(model: FreeSkaterModel, y0, y_end, frame, T: float) -> float:
    """The stroke's mean leg power in the usual sense, (1/T)∫ F·(Ṙ_B − Ṙ_ski) dτ [W], F the leg
    force on B: the force times the velocity of the CM relative to the binding.

    It is not the placement drivers' power (``mean_power``, their rows' power −λᵀ(Cq q̇) on both
    bodies): with r = R_B − R_ski = h n(ψ) + z ẑ, Ṙ_B − Ṙ_ski = ḣ n + ż ẑ + h ψ̇ ∂n/∂ψ, and the
    rows' power is F·(ḣ n + ż ẑ) only; the rest, h ψ̇ F·∂n/∂ψ, is the leg's moment turning the
    ski, which the heading driver balances (with the ski's spin: the edge, the snow and friction
    act at the ski's origin and have no moment about it).  So, exactly::

        ∫ F·(Ṙ_B − Ṙ_ski) dτ = W_leg + W_heading − Δ(½ ω_sᵀ I_s ω_s)

    from the works integrated with the stroke (exact to the integrator's tolerance); the frame's
    ``leg_power_translational`` integrates to the same (the tests check it by quadrature)."""
    n = model.nq
    q0, qd0, q1, qd1 = y0[:n], y0[n: 2 * n], y_end[:n], y_end[n: 2 * n]
    k = 2 * n
    names = model.extra_states
    w_leg, w_head = (float(y_end[k + names.index(w)] - y0[k + names.index(w)]) for w in ("work_leg", "work_heading"))
    return (w_leg + w_head - (ski_spin_energy(model, q1, qd1) - ski_spin_energy(model, q0, qd0))) / T


class FreeSkating(Skating):
    """The free skater as the shared run loop sees it (``skilib.strokes.run``): the strokes of
    each side are one ``Stance`` moved, joined by ``Stance.land``."""

    work_terms = FREE_WORK_TERMS
    power_term = "work_leg"
    change_columns = tuple(_CHANGE_COLUMNS)
    coarse_maps = True  # its map is smooth: a coarse value of it steers the search as the run's does
    #: a stroke's tabulation reads only its own side's stance (model, compiled systems), and the
    #: next stroke is on the other side: the run may overlap them (``skilib.strokes.run``)
    overlap_tables = True
    #: the ski glides (u > 0), the snow pushes (its row's multiplier, min_snow_force, and the
    #: load friction uses, min_snow_load, both ≥ 0), the leg's largest force [body weights], its
    #: largest angle off the line from the ski's origin to the centre of mass [°]
    admissibility = {"min_ski_speed": ("u", "min"), "min_snow_force": ("snow_force", "min"),
                     "peak_leg_force_bw": ("leg_force_bw", "max"), "min_snow_load": ("snow_load", "min"),
                     "max_leg_angle_deg": ("leg_angle_deg", "max")}

    def __init__(self, o: FreeRunOptions):
        self.o = o
        self.stroke_time = o.params.stroke_time
        self.stances = {}
        self.work_terms = with_pole_works(FREE_WORK_TERMS, o.params)  # with poles, their works balance the energy too

    def check_snow_load(self) -> None:
        """``check_snow_load`` of this run's strokes on its output grid (the first ski's model;
        the other side's has the same height law and so the same N(τ))."""
        check_snow_load(self.stance(self.o.first_ski).model, self.o.grid, default_law=self.o.laws is None)

    def stance(self, side) -> Stance:
        if side not in self.stances:
            self.stances[side] = stance_of(self.o.params, side, self.o.laws, self.o.rotation)
        return self.stances[side]

    def start(self, u):
        return self.stance(self.o.first_ski).start(u)

    def touch_down(self, k, model, q, qd):
        """Stroke k's model and state after the touch-down by the run's rule, and the change's
        row: ke_before, ke_after, ke_loss = ke_before − ke_after [J]; under "plastic" its shares
        ke_loss_merge and ke_loss_projection (``PlasticTouchDown``), under "along_ski" NaN (that
        rule is neither a merge nor a projection: the old ski's energy vanishes and the new
        ski's appears, and only the total is defined); u_before, u_after [m/s]; cm_jump [m];
        touchdown_residual = max|Cq q̇ + Ct| of the new rows after the touch-down."""
        T = self.stroke_time
        new, q1, qd1, r = self._landed(k, model, q, qd, energies=True)
        if r is not None:  # plastic
            merge, proj, resid = r.ke_loss_merge, r.ke_loss_projection, r.impact.residual
            ke_b, ke_a = r.ke_before, r.ke_after
        else:
            merge = proj = float("nan")
            resid = self.stance(side_of(self.o.first_ski, k)).residual(qd1)
            ke_b, ke_a = model.system(1).kinetic_energy(q, qd), new.system(1).kinetic_energy(q1, qd1)
        change = dict(stroke=k + 1, t=k * T, ke_before=ke_b, ke_after=ke_a, ke_loss=ke_b - ke_a,
                      ke_loss_merge=merge, ke_loss_projection=proj,
                      u_before=model.ski_speed(T, q, qd), u_after=new.ski_speed(0.0, q1, qd1),
                      cm_jump=float(np.linalg.norm(q1[new.cm] - q[model.cm])), touchdown_residual=resid)
        return new, q1, qd1, change

    def next_start(self, k, model, q, qd):
        """``touch_down``'s model and state, bit for bit, without its row: the plastic rule's
        kinetic energies are not evaluated (a stroke map reads only the next start)."""
        return self._landed(k, model, q, qd, energies=False)[:3]

    def _landed(self, k, model, q, qd, energies: bool):
        """Stroke k's model and (q, q̇) after the touch-down by the run's rule, and the plastic
        rule's ``PlasticTouchDown`` (None under "along_ski")."""
        stance = self.stance(side_of(self.o.first_ski, k))
        if self.o.touchdown == "plastic":
            r = stance.land_plastic(model, q, qd, energies=energies)
            return r.model, r.q, r.qd, r
        return (*stance.land(model, q, qd), None)

    def systems(self, model):
        return self.stance(model.side).compiled

    def summary(self, k, model, y0, y_end, frame, change):
        check_leg_force(frame, self.o.params, self.o.max_leg_force_bw)
        if model.poled and self.o.admissibility == "raise":
            check_pole_load(frame, self.o.params)
        n, T = model.nq, self.stroke_time
        none = 0.0 if self.o.touchdown == "plastic" else float("nan")  # no touch-down before the first stroke
        return dict(mean_leg_power_translational=leg_power_translational(model, y0, y_end, frame, T),u_start=model.ski_speed(0.0, y0[:n], y0[n: 2 * n]), u_end=model.ski_speed(T, y_end[:n], y_end[n: 2 * n]),
                    ke_loss_at_start=change["ke_loss"] if change else 0.0,
                    ke_loss_merge_at_start=change["ke_loss_merge"] if change else none,
                    ke_loss_projection_at_start=change["ke_loss_projection"] if change else none,
                    max_nonholonomic_norm=column_extreme(frame["nonholonomic_norm"], "max"),
                    max_abs_cop_offset=column_extreme(np.abs(column(frame, "cop_offset")), "max"))

    def settings(self) -> RunSettings:
        o = self.o
        return RunSettings(o.stabilization, o.integrator, o.grid, o.compiled, o.budget)

    def result(self, tables, t_start) -> SimResult:
        """The ``SimResult`` of a run's tables."""
        o, st = self.o, self.o.stabilization
        info = dict(model="free", method=o.integrator.method, rtol=o.integrator.rtol, atol=o.integrator.atol,
                    alpha=st.alpha, beta=st.beta, stabilization=st.kind, rotation=o.rotation, compiled=o.compiled,
                    v0=o.v0, first_ski=o.first_ski, touchdown=o.touchdown, nfev=tables.nfev, work_terms=FREE_WORK_TERMS,
                    runtime_s=time.perf_counter() - t_start)
        return SimResult(**tables.result_tables(_CHANGE_COLUMNS, EVENT_COLUMNS), params=o.params,
                         models=tables.models, info=info)


def simulate_free(params: FreeSkaterParams | None = None, *, strokes: int, v0: float = 0.0, first_ski: str = "right",
                  laws: FreeLaws | None = None, rotation: str = "zxz", stabilization: str = "baumgarte",
                  method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-10, h: float = 0.05, alpha=None,
                  beta=None, compiled: bool = True, dt_out: float = 0.01, n_out: int | None = None,
                  max_evaluations: int = 5_000_000, max_wall_time: float | None = DEFAULT_MAX_WALL_TIME,
                  max_leg_force_bw: float = MAX_LEG_FORCE_BW, admissibility: str = "raise",
                  touchdown: str = "plastic") -> SimResult:
    """A run of the free skater: ``strokes`` alternating strokes, the first on ``first_ski``
    with its ski's origin at the global origin and speed u = ``v0`` along itself.

    - params : FreeSkaterParams (defaults of the book's chapter "The free skater").
    - laws : None for the default laws, or a ``FreeLaws`` of time functions (with derivatives).
    - rotation, stabilization, method, rtol, atol, h, alpha, beta, compiled, dt_out, n_out,
      max_evaluations : as ``skilib.simulate_run``.
    - max_wall_time : the call's wall-time budget [s] (default ``DEFAULT_MAX_WALL_TIME``, ten
      minutes; None: no limit); beyond it ``BudgetExceededError`` (a RuntimeError) names the
      time and the stroke.
    - max_leg_force_bw : the largest leg force accepted [body weights] (default
      ``MAX_LEG_FORCE_BW`` = 10: skating leg forces peak at ≈ 1.5–2.5; ≥ 1, ``math.inf`` lifts
      it); a stroke whose leg force exceeds it on the output grid raises ValueError naming
      ``max_leg_force_bw``, the time and the force (in body weights and N).
    - admissibility : "raise" (default) or "report" (``ADMISSIBILITY``): a technique whose
      snow load N = (M + m_s) g + M z̈(τ) is below zero on the output grid (the snow would pull
      the ski down and the friction μN push it forwards) is refused before anything is
      integrated with a ValueError naming ``snow_load``, the stroke, τ and N (in N and body
      weights) (``check_snow_load``); "report" runs it and reports N in the frame (``snow_load``)
      and the strokes table (``min_snow_load``), for looking at what such a law does.  Refusing
      is the default because a run of such a law is no motion of a ski on the snow.  The leg
      force's angle and the centre of pressure are reported, never refused.
    - touchdown : the touch-down rule (``TOUCHDOWN_RULES``, the module's docstring):
      "plastic" (default) is one plastic impact of the whole system, the old ski merged into B
      with momentum conserved, then the mass-weighted projection onto the new stance's rows
      (``skilib.engine.impact``), which loses energy whenever the drivers are still at τ = 0
      (Ct = 0, as for the default laws); "along_ski" keeps the centre of mass's velocity along
      the new ski (the earlier rule, for comparison; it can create energy: the old ski's
      energy vanishes, the new ski appears at the centre of mass's velocity).  Anything else
      is a ValueError naming ``touchdown``.

    The parameters must be plausible (``FreeSkaterParams``: e.g. stroke_time 0.2–3 s), so that
    no run grinds on an impossible technique.

    Returns a ``SimResult``: ``frame`` (one row per output time: t, stroke, side, ski_x/y,
    ski_heading_deg, u, cm_x/y/z, cm_vx/vy/vz, cm_speed = |Ṙ_B|, leg_fx/fy/fz (the leg's force
    on B), leg_force_bw, leg_power, friction_force, drag_force, snow_force, edge_force,
    constraint_norm, nonholonomic_norm, snow_load [N] and snow_load_bw (N = (M + m_s) g cos α + M z̈),
    leg_angle_deg (the leg force's angle off the line from the ski's origin to the centre of
    mass), roll_moment [N m] (the drivers' moment about the ski's axis at its origin) and
    cop_offset [m] (the centre of pressure that carries it, along the ski's left normal; NaN where
    N ≤ 0) — see ``FreeSkaterModel.point_columns`` — works, q…, qd…), ``strokes`` (u_start,
    mean_speed, mean_vx, mean_power (the placement drivers' power: the power budget),
    mean_leg_power_translational (the leg power F·(Ṙ_B − Ṙ_ski), ``leg_power_translational``),
    peak_leg_force_bw, min_ski_speed, min_snow_force,
    min_snow_load [N], max_leg_angle_deg, max_abs_cop_offset [m] (NaN where N ≤ 0 throughout),
    ke_loss_at_start and its shares ke_loss_merge_at_start, ke_loss_projection_at_start (NaN
    under "along_ski"), each work and the energy_residual, and the cost of the drivers' work
    (leg, heading; ``skilib.strokes.work``): work_leg_positive, work_leg_negative,
    work_heading_positive, work_heading_negative, work_positive, work_negative [J],
    mean_positive_power, metabolic_power [W] and gross_efficiency; with poles the poles are two more
    actuators; and the poles' columns, ``skilib.strokes.poles.pole_summary``: work_poles,
    work_legs, mean_pole_power, impulse_poles_x, impulse_leg_x, pole_share, pole_lift; the frame
    then has pole_fx/fy/fz and pole_power, and snow_load loses the poles' vertical force) and
    ``changes`` (one row per
    touch-down: ke_before, ke_after, ke_loss and its shares ke_loss_merge, ke_loss_projection,
    u_before, u_after, cm_jump, touchdown_residual; ``FreeSkating.touch_down``).

    Examples
    --------
    >>> import skilib as sk
    >>> res = sk.simulate_free(strokes=2, v0=3.0)
    >>> bool(res.strokes["energy_residual"].abs().max() < 1e-6 and res.frame["nonholonomic_norm"].max() < 1e-8)
    True
    """
    t_start = time.perf_counter()
    o = free_run_options(params, strokes=strokes, v0=v0, first_ski=first_ski, laws=laws, rotation=rotation,
                 stabilization=stabilization, method=method, rtol=rtol, atol=atol, h=h, alpha=alpha, beta=beta,
                 compiled=compiled, dt_out=dt_out, n_out=n_out, max_evaluations=max_evaluations,
                 max_wall_time=max_wall_time, max_leg_force_bw=max_leg_force_bw, admissibility=admissibility,
                 touchdown=touchdown)
    skating = FreeSkating(o)
    if o.admissibility == "raise":
        skating.check_snow_load()
    return skating.result(run_strokes(skating, skating.settings(), strokes=o.strokes, v0=o.v0), t_start)


@functools.cache
def _simulate_free_signature() -> inspect.Signature:
    """``simulate_free``'s signature, read once (``inspect.signature`` costs ~30 µs a call)."""
    return inspect.signature(simulate_free)


def free_options_of(params, kwargs: dict, strokes: int = 1, v0: float = 0.0) -> FreeRunOptions:
    """``simulate_free``'s checked options of ``strokes`` strokes from u = ``v0`` with its keywords
    ``kwargs`` (its defaults for the others; an unknown keyword is a TypeError, as in a call of
    simulate_free)."""
    bound = _simulate_free_signature().bind(params, strokes=strokes, v0=v0, **kwargs)
    bound.apply_defaults()
    args = dict(bound.arguments)
    return free_run_options(args.pop("params"), **args)
