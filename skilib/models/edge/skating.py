"""The edged skater's strokes as the shared run loop sees them (``skilib.models.edge.model``): alternating strokes joined at
touch-down, integrated, book-kept and tabulated by the machinery every skating model shares
(``skilib.strokes``).

Touch-down at τ = T.  The new ski (side s′) lands ``landing_offset`` d0 outside the centre of
mass, which keeps its position: its origin P′ = (X_B, Y_B, 0) − s′ d0 n′ − x_f e′ with e′, n′
the axes of its heading ψ′(0), so the leg starts ℓ0′ = √(d0² + Z_B²) long (refused beyond
``max_leg_length``).  The velocities change by the plastic change of ski of
``skilib.strokes.touchdown``: the old ski merges into B with momentum conserved, the new ski
leaves B with the common velocity, and the engine's impact projects both, mass-weighted, onto
the new stance's rows (the laws are at rest at τ = 0, so the loss is ≥ 0); both shares are
reported.

``EdgeSkating`` is what ``skilib.models.edge.run`` (the runs) and ``skilib.models.edge.steady``
(the periodic stroke) both build on; a run that refuses falls raises ``Fall`` at the stroke.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ...engine.bodies import ROTATIONS
from ...engine.options import Integrator, Stabilization
from ...engine.validation import check_bool, check_choice, check_number
from ...strokes.frame import column, column_extreme, output_grid
from ...strokes.kept import KeptLast
from ...strokes.laws import SIDES, side_of, side_sign
from ...strokes.poles import with_pole_works
from ...strokes.result import SimResult
from ...strokes.run import EVENT_COLUMNS, RunSettings, Skating
from ...strokes.stroke import MAX_STEP_DIVISOR, Budget, CallBudget
from ...strokes.touchdown import plastic_change
from .model import EDGE_WORK_TERMS, EdgeSkaterModel
from .balance import BalanceRule, touchdown_measure
from .params import EDGE_PARAMETER_BOUNDS, EdgeLaws, EdgeSkaterParams, with_edge_overrides

_EZ = np.array([0.0, 0.0, 1.0])

__all__ = ["EdgeSkating", "EdgeRunOptions", "edge_run_options", "Fall"]


class Fall(Exception):
    """A fall seen inside a run that refuses falls (``EdgeRunOptions.falls``); ``simulate_edge``
    turns it into a ``SkaterFalls`` naming the parameter."""

    def __init__(self, stroke: int, t: float, reason: str):
        super().__init__(reason)
        self.stroke, self.t, self.reason = stroke, t, reason

_CHANGE_COLUMNS = ["stroke", "t", "ke_before", "ke_after", "ke_loss", "ke_loss_merge", "ke_loss_projection",
                   "u_before", "u_after", "cm_height", "leg_start", "landing_offset", "touchdown_residual"]


@dataclass(frozen=True)
class EdgeRunOptions:
    """``simulate_edge``'s checked options."""
    params: EdgeSkaterParams
    strokes: int
    v0: float
    lean_rate: float
    first_ski: str
    rotation: str
    stabilization: Stabilization
    integrator: Integrator
    grid: np.ndarray
    budget: Budget
    balance: BalanceRule | None = None
    compiled: bool = True
    #: refuse a touch-down whose leg would reach beyond max_leg_length (False: the periodic
    #: stroke's search, which checks the reach of the stroke it finds, ``check_admissible``)
    reach: bool = True
    #: the right stroke's laws (``EdgeLaws``; None: the params' laws, the leg's from the ℓ0 of
    #: each touch-down)
    laws: EdgeLaws | None = None
    #: the first stroke's touch-down state x = (u, φ̇, z_B, d) (``EdgeSkating.start_from``; None:
    #: (v0, lean_rate, params.cm_height, params.landing_offset))
    start_state: tuple | None = None
    #: refuse a fall (the leg pulls, the lean beyond max_lean_deg, the snow pulls, the ski stops,
    #: a touch-down out of reach): ``Fall`` at the stroke, for ``simulate_edge`` to name (False:
    #: report them, ``min_leg_force`` < 0, as the open-loop experiments need)
    falls: bool = False


def edge_run_options(params, *, strokes, v0, lean_rate=0.0, first_ski, rotation, stabilization, method, rtol, atol, h, alpha, beta,
                     dt_out, n_out, max_evaluations, max_wall_time, balance=None,
                     compiled: bool = True, reach: bool = True, laws: EdgeLaws | None = None,
                     start_state=None, falls: bool = False) -> EdgeRunOptions:
    p = with_edge_overrides(params)
    strokes = check_number("strokes", strokes, integer=True, low=1, high=10_000)
    v0 = check_number("v0", v0, low=0.0, high=50.0, unit="m/s")
    if v0 <= 0.0:
        raise ValueError(f"v0: the edged skater's ski must glide at the start, v0 > 0 m/s, got {v0!r} (a stuck ski "
                         "is not modelled)")
    lean_rate = check_number("lean_rate", lean_rate, low=-20.0, high=20.0, unit="rad/s")
    first_ski = check_choice("first_ski", first_ski, SIDES)
    rotation = check_choice("rotation", rotation, tuple(ROTATIONS))
    stab = Stabilization.make(stabilization, h=h, alpha=alpha, beta=beta)
    integ = Integrator.make(method, rtol=rtol, atol=atol, max_step=p.stroke_time / MAX_STEP_DIVISOR,
                            stabilization=stab)
    budget = CallBudget(check_number("max_evaluations", max_evaluations, integer=True, low=1),
                    None if max_wall_time is None else check_number("max_wall_time", max_wall_time, positive=True,
                                                                    unit="s"))
    if balance is not None and not isinstance(balance, BalanceRule):
        raise ValueError(f"balance: must be None (a fixed landing offset), a BalanceRule or, in simulate_edge, "
                         f"'{DESIGNED}' (a rule designed for the periodic stroke), got {balance!r}")
    if balance is not None and p.leg_start is not None:
        raise ValueError(f"balance: with leg_start = {p.leg_start:g} m the crouch places the foot (the ski lands where "
                         "the leg reaches); a balance rule cannot place it too: give balance None or leg_start None")
    if laws is not None and not isinstance(laws, EdgeLaws):
        raise ValueError(f"laws: must be None (the params' laws) or an EdgeLaws, got {type(laws).__name__}")
    if start_state is not None:
        start_state = tuple(float(v) for v in start_state)
        if len(start_state) != 4 or not all(math.isfinite(v) for v in start_state) or start_state[0] <= 0 \
                or start_state[2] <= 0:
            raise ValueError(f"start_state: must be (u > 0 m/s, lean rate rad/s, CM height > 0 m, landing offset m), "
                             f"got {start_state!r}")
    return EdgeRunOptions(p, strokes, v0, lean_rate, first_ski, rotation, stab, integ, output_grid(p.stroke_time, dt_out, n_out),
                          budget, balance, check_bool("compiled", compiled), check_bool("reach", reach), laws,
                          start_state, check_bool("falls", falls))


class EdgeSkating(Skating):
    """The edged skater as the shared run loop sees it (``skilib.strokes.run``)."""

    work_terms = EDGE_WORK_TERMS
    power_term = "work_leg"
    change_columns = tuple(_CHANGE_COLUMNS)
    #: the leg pushes (min_leg_force ≥ 0), the snow pushes (min_snow_load ≥ 0), the leg within
    #: reach (max_leg_length ≤ max_leg_length), the lean within max_lean_deg, the ski glides
    admissibility = {"min_leg_force": ("leg_force", "min"), "min_snow_load": ("snow_load", "min"),
                     "max_leg_length": ("leg_length", "max"), "max_abs_lean_deg": ("lean_deg", "max"),
                     "min_lean_deg": ("lean_deg", "min"), "min_ski_speed": ("u", "min")}

    #: (``overlap_tables`` stays False: its strokes are many short segments stepped in C between
    #: Python phases and touch-downs, and a run that overlapped their tables with the next stroke
    #: measured 1.15× slower, each return from C waiting for the worker to give Python's lock back)

    def __init__(self, o: EdgeRunOptions):
        self.o = o
        self.stroke_time = o.params.stroke_time
        self.work_terms = with_pole_works(EDGE_WORK_TERMS, o.params)  # with poles, their works balance the energy too
        self.stroke_now = 0  # the stroke being integrated (1-based; 0 before the run)
        #: (model, its compiled systems) that ``start_from`` built, by (ℓ0, d0), the last
        #: START_MODELS kept: the stroke maps of a search or of differences that move only u or φ̇
        #: start from the same model
        self._start_models = KeptLast(self.START_MODELS)

    #: how many start models (and their compiled systems) ``start_from`` keeps
    START_MODELS = 8

    def start(self, u):
        """The first stroke at the origin from (u, the run's lean rate, params.cm_height (with
        ``leg_start``: √(ℓs² − d0²), ``EdgeSkaterParams.first_height``), params.landing_offset), or from the options' ``start_state`` with its speed u
        (``start_from``)."""
        p = self.o.params
        self.stroke_now = 1
        if p.leg_start is not None and self.o.reach and p.leg_start + max(p.leg_extension, 0.0) > p.max_leg_length:
            raise ValueError(f"max_leg_length: the leg would reach {p.leg_start + max(p.leg_extension, 0.0):.4g} m in "
                             f"every stroke (leg_start {p.leg_start:g} m, leg_extension {p.leg_extension:g} m), beyond "
                             f"max_leg_length = {p.max_leg_length:g} m")
        if self.o.start_state is not None:
            return self.start_from((u, *self.o.start_state[1:]))
        return self.start_from((u, self.o.lean_rate, p.first_height(), p.landing_offset))

    def start_from(self, x):
        """A stroke on the first ski at the origin from the touch-down state x = (u, φ̇, z_B, d):
        the ski and the CM moving at u along the ski, the CM at height z_B leaning in over the
        landing offset d (lean φ0 = atan(d / z_B), the leg ℓ0 = √(d² + z_B²) long) and turning
        about the ski's axis at the lean rate φ̇ [rad/s, + inwards]: Ṙ_B = u e + ℓ0 φ̇ (s cos φ0 n
        − sin φ0 ẑ).  Every row's velocity equation holds (ψ̇(0) = ℓ̇(0) = 0)."""
        u, lean_rate, z, d = (float(v) for v in x)
        p = self.o.params
        ell0 = math.hypot(d, z)
        self.check_leg_law(ell0, "the start")
        model = self._start_model(ell0, d)
        q = model.pose(0.0)
        e, n = model.axes(0.0)
        phi = math.atan2(d, z)
        qd = np.zeros(model.nq)
        qd[:3] = u * e
        qd[model.cm] = u * e + ell0 * lean_rate * (model.sign * math.cos(phi) * n - math.sin(phi) * _EZ)
        return model, q, qd

    def _start_model(self, ell0: float, d: float) -> EdgeSkaterModel:
        """The first ski's model at the origin with its leg ℓ0 long and the ski d0 outside the CM:
        built once per (ℓ0, d0) (the model depends on nothing else of x; the same numbers make the
        same model, so a kept one gives the same stroke bit for bit)."""
        return self._start_models.get((ell0, d), lambda: (EdgeSkaterModel(
            self.o.params, self.o.first_ski, np.zeros(3), ell0, self.o.rotation, d, laws=self.o.laws), {}))[0]

    def systems(self, model):
        """A kept start model's compiled systems, shared by the strokes that start from it (None,
        a stroke's own, for any other model)."""
        kept = self._start_models.peek((model.leg_start, model.landing_offset))
        return kept[1] if kept is not None and kept[0] is model else None

    @staticmethod
    def state_of(model: EdgeSkaterModel, q, qd) -> np.ndarray:
        """The touch-down state x = (u, φ̇, z_B, d) of a stroke's (q, q̇) at τ = 0, mirrored to
        the stance's side (φ̇ > 0 inwards, d > 0 with the CM inside, on either side): the stroke
        map's variables.  With a fixed landing offset d is always the parameter; with a balance
        rule it is the rule's choice, and part of the state."""
        e, n = model.axes(0.0)
        r, v = np.asarray(q)[model.cm] - q[:3], np.asarray(qd)[model.cm] - qd[:3]
        y, z = model.sign * float(r @ n), float(r @ _EZ)
        yd, zd = model.sign * float(v @ n), float(v @ _EZ)
        return np.array([model.ski_speed(0.0, q, qd), (yd * z - y * zd) / (y * y + z * z),
                         float(np.asarray(q)[model.cm][2]), y])

    def landing_offset(self, k, old: EdgeSkaterModel, q, qd) -> float:
        """d0 of the touch-down that starts stroke k: the parameter (a fixed landing offset), the
        crouch's (with ``leg_start`` ℓs: where a leg ℓs long reaches from the CM's height z_B,
        d0 = √(ℓs² − z_B²)), or the balance rule's for the CM's state just before it
        (``skilib.models.edge.balance``)."""
        rule, p = self.o.balance, self.o.params
        if p.leg_start is not None:
            z = float(np.asarray(q)[old.cm][2])
            if not z < p.leg_start:
                raise ValueError(f"leg_start: at the touch-down that starts stroke {k + 1} (t = {k * self.stroke_time:.6g} "
                                 f"s) the centre of mass is {z:.4g} m high, not below the leg's length at touch-down, "
                                 f"{p.leg_start:g} m: the new leg cannot reach the snow")
            return p.crouch_offset(z)
        if rule is None:
            return p.landing_offset
        d = rule.landing_offset(touchdown_measure(self.o.params, side_of(self.o.first_ski, k), q, qd, old))
        lo, hi = EDGE_PARAMETER_BOUNDS["landing_offset"]
        if not lo <= d <= hi:
            raise ValueError(f"balance: at the touch-down that starts stroke {k + 1} (t = {k * self.stroke_time:.6g} s) the "
                             f"rule asks for a landing offset of {d:.4g} m, outside [{lo:g}, {hi:g}] m: the skater "
                             "cannot recover by placing the foot")
        return d

    def landed(self, k, old: EdgeSkaterModel, q, offset: float):
        """Stroke k's model and q at τ = 0: the new ski ``offset`` outside the CM, which keeps its
        place."""
        p = self.o.params
        side = side_of(self.o.first_ski, k)
        R_b = np.asarray(q)[old.cm]
        ell0 = math.hypot(offset, R_b[2])
        if self.o.reach and ell0 + max(p.leg_extension, 0.0) > p.max_leg_length:
            raise ValueError(f"max_leg_length: at the touch-down that starts stroke {k + 1} (t = {k * self.stroke_time:.6g} s) "
                             f"the centre of mass is {R_b[2]:.4g} m high and the ski lands {offset:.4g} m outside it, so "
                             f"the leg would reach {ell0 + max(p.leg_extension, 0.0):.4g} m in the stroke, beyond "
                             f"{p.max_leg_length:g} m")
        self.check_leg_law(ell0, f"the touch-down that starts stroke {k + 1} (t = {k * self.stroke_time:.6g} s)")
        e, n = EdgeSkaterModel.touchdown_axes(p, side, self.o.laws)
        P = np.array([R_b[0], R_b[1], 0.0]) - side_sign(side) * offset * n - p.fore_aft * e
        new = EdgeSkaterModel(p, side, P, ell0, self.o.rotation, offset, laws=self.o.laws)
        q1 = new.pose(0.0)
        q1[new.cm] = R_b  # exactly where it was (pose gives it to rounding)
        return new, q1

    #: how far a given leg law's ℓ(0) may lie from the ℓ0 a touch-down puts the leg at [m]: the
    #: collocation's truncation of a periodic stroke's touch-down height, far below a millimetre
    LEG_LAW_TOL = 1e-6

    def check_leg_law(self, ell0: float, where: str) -> None:
        """With laws given (``laws``), the leg's law must start where the touch-down puts the leg,
        ℓ(0) = ℓ0 = √(d0² + z_B²): a ValueError naming ``laws`` and ``where`` otherwise (the pose
        would not be on the leg's row; nothing is moved to make it so)."""
        if self.o.laws is None:
            return
        start = float(self.o.laws.leg(0.0)[0])
        if abs(start - ell0) > self.LEG_LAW_TOL:
            raise ValueError(f"laws: the leg's law starts at ℓ(0) = {start:.9g} m, but at {where} the centre of mass's "
                             f"height and the landing offset put the leg at ℓ0 = {ell0:.9g} m")

    def touch_down(self, k, model, q, qd):
        self.stroke_now = k + 1
        if self.o.falls:
            try:
                new, q1 = self.landed(k, model, q, self.landing_offset(k, model, q, qd))
            except ValueError as exc:  # an offset outside 0–0.6 m, a leg beyond its reach
                raise Fall(k + 1, k * self.stroke_time, f"at its touch-down: {exc}") from exc
        else:
            new, q1 = self.landed(k, model, q, self.landing_offset(k, model, q, qd))
        p, T = self.o.params, self.stroke_time
        c = plastic_change(model.system(1), q, qd, new.system(1), q1, body_mass=p.body_mass, ski_mass=p.ski_mass,
                           ski=slice(0, model.ski.nq), cm=model.cm)
        change = dict(stroke=k + 1, t=k * T, ke_before=c.ke_before, ke_after=c.ke_after, ke_loss=c.ke_loss,
                      ke_loss_merge=c.ke_loss_merge, ke_loss_projection=c.ke_loss_projection,
                      u_before=model.ski_speed(T, q, qd), u_after=new.ski_speed(0.0, q1, c.qd), cm_height=q1[new.cm][2],
                      leg_start=new.leg_start, landing_offset=new.landing_offset,
                      touchdown_residual=c.impact.residual)
        return new, q1, c.qd, change

    def check_fall(self, k, frame) -> None:
        """With ``falls``: a ``Fall`` at stroke k + 1 if on its output grid the leg pulls (the
        time where F crosses 0, linear between the grid's points) or the lean passes
        ``max_lean_deg`` (the first such point)."""
        if not self.o.falls:
            return
        T, p = self.stroke_time, self.o.params
        tau, F = column(frame, "tau"), column(frame, "leg_force")
        pulls = np.flatnonzero(F < 0)
        if pulls.size:
            i = int(pulls[0])
            t = tau[i] if i == 0 else tau[i - 1] + (tau[i] - tau[i - 1]) * F[i - 1] / (F[i - 1] - F[i])
            raise Fall(k + 1, k * T + float(t), f"the leg would pull (F < 0; the least leg force {F.min():.4g} N): "
                                                 "a leg only pushes")
        lean = np.abs(column(frame, "lean_deg"))
        beyond = np.flatnonzero(lean > p.max_lean_deg)
        if beyond.size:
            i = int(beyond[0])
            raise Fall(k + 1, k * T + float(tau[i]), f"the leg leans {lean.max():.4g}° from the vertical, beyond "
                                                      f"max_lean_deg = {p.max_lean_deg:g}°")

    def summary(self, k, model, y0, y_end, frame, change):
        """The drivers' mean powers (leg, fore–aft, heading) and their sum, the skier's
        mechanical power (``mean_power``); the touch-down's loss and shares.  With ``falls``, a
        stroke whose leg pulls or leans too far ends the run (``check_fall``)."""
        self.check_fall(k, frame)
        n, T = model.nq, self.stroke_time
        ix = {w: 2 * n + model.extra_states.index(w) for w in ("work_leg", "work_fore_aft", "work_heading")}
        works = {w: float(y_end[i] - y0[i]) for w, i in ix.items()}
        return dict(mean_leg_power=works["work_leg"] / T, mean_fore_aft_power=works["work_fore_aft"] / T,
                    mean_heading_power=works["work_heading"] / T, mean_power=sum(works.values()) / T,
                    ke_loss_at_start=change["ke_loss"] if change else 0.0,
                    ke_loss_merge_at_start=change["ke_loss_merge"] if change else 0.0,
                    ke_loss_projection_at_start=change["ke_loss_projection"] if change else 0.0,
                    max_abs_lean_deg=column_extreme(np.abs(column(frame, "lean_deg")), "max"),
                    max_nonholonomic_norm=column_extreme(frame["nonholonomic_norm"], "max"))

    def settings(self) -> RunSettings:
        o = self.o
        return RunSettings(o.stabilization, o.integrator, o.grid, o.compiled, o.budget)

    def result(self, tables, t_start) -> SimResult:
        o, st = self.o, self.o.stabilization
        info = dict(model="edge", method=o.integrator.method, rtol=o.integrator.rtol, atol=o.integrator.atol,
                    alpha=st.alpha, beta=st.beta, stabilization=st.kind, rotation=o.rotation, compiled=o.compiled,
                    v0=o.v0, first_ski=o.first_ski, touchdown="plastic", nfev=tables.nfev,
                    work_terms=EDGE_WORK_TERMS, runtime_s=time.perf_counter() - t_start)
        return SimResult(**tables.result_tables(_CHANGE_COLUMNS, EVENT_COLUMNS), params=o.params,
                         models=tables.models, info=info)
