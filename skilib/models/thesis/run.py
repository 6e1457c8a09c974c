"""Runs of the thesis's skier: one active phase (§5.5, table 7) and long runs of alternating
strokes (§5.6, table 9, figs. 39–44).

Stroke change (not written down in the thesis; the rules are defined in the book's chapter
"The skier model", section "Skating angle and stroke change", and discussed in "Differences
from the thesis").  At τ = T the next stroke starts on the other ski from its own prescribed
pose at τ = 0 (ℓ = ℓ0, γ = γ0).  The new ski is put where the CM keeps its horizontal
position (the ski is on z = 0 and the pose fixes the CM height, so the height jumps by
ℓ0 cos γ0 − ℓ(T) cos γ(T); it is reported, with the potential energy it removes).  With the
pose fixed, the model's one degree of freedom leaves one number to choose, the new ski speed
ṡ⁺: every admissible velocity solves Cq q̇⁺ = −Ct (17 rows) and then Ṙ³⁺ = ṡ⁺ e′ + w, with
e′ the new ski's heading and w = (ℓu)˙(0) the prescribed velocity of the CM relative to the
ski (eqs. 187–188).  ``STROKE_CHANGE_RULES`` name the three rules that fix ṡ⁺:

=======================  =================================================================
``along_ski`` (default)  e′·(Ṙ³⁺ − Ṙ³⁻) = 0: the CM keeps its velocity along the new ski;
                         the rest is taken by the ski's edge (a plastic impact).
``ski_speed_kept``       ṡ⁺ = ṡ⁻: the new ski starts at the old ski's final speed.
``speed_kept``           |Ṙ³⁺| = |Ṙ³⁻|: the CM's speed is carried over (the forward root).
=======================  =================================================================

Since Ṙ³⁺ − Ṙ³⁻ = ṡ⁺ e′ + (w − Ṙ³⁻) and |e′| = 1, the jump's squared norm is a parabola in ṡ⁺
whose minimum is where its component along e′ vanishes: ``along_ski`` gives the smallest
CM velocity jump |ΔṘ³| of every admissible rule (the other two included).  The kinetic energy
lost (or gained) is reported per change.
"""
from __future__ import annotations

import inspect
import math
import time
from dataclasses import dataclass, replace

import numpy as np

from ...engine.bodies import ROTATIONS
from ...engine.options import Integrator, Stabilization
from ...engine.validation import check_bool, check_choice, check_number
from ...strokes.frame import output_grid
from ...strokes.laws import SIDES
from ...strokes.kept import KeptLast
from ...strokes.params import slope_factors
from ...strokes.result import SimResult
from ...strokes.run import EVENT_COLUMNS, RunSettings, Skating, run_strokes
from ...strokes.stroke import MAX_STEP_DIVISOR, Budget
from .model import SkierModel
from .params import SkierParams, ski_heading
from .push import MAX_FORCE_SCALE, ScaledPush, check_push_force, push_provenance, thesis_push_force
from .rows import BALANCE_TERMS

__all__ = ["simulate_run", "simulate_phase", "initial_state", "stroke_change", "STROKE_CHANGE_RULES", "ThesisSkating",
           "RunOptions", "run_options", "options_of", "change_row", "potential_energy"]

#: the stroke-change rules (module docstring): the condition that fixes the new ski speed ṡ⁺
STROKE_CHANGE_RULES = ("along_ski", "ski_speed_kept", "speed_kept")

_CHANGE_COLUMNS = ["stroke", "t", "ke_before", "ke_after", "ke_loss", "pe_loss", "cm_z_jump", "s_dot_before",
                   "s_dot_after", "cm_speed_before", "cm_speed_after", "cm_v_along_before", "cm_v_along_after",
                   "cm_v_jump"]
#: bounds of a run's size: strokes, output points per stroke and in all, initial speed [m/s]
MAX_STROKES = 10_000
MAX_OUTPUT_ROWS = 2_000_000
MAX_V0 = 50.0
#: the default work budget of a run: evaluations of eq. 101 (a table 9 stroke takes ~5e3)
DEFAULT_MAX_EVALUATIONS = 5_000_000
#: the stroke starts kept in this process (``ThesisSkating``): two per parameter set (one per ski)
STROKE_STARTS = 16
#: (params, heading, side, rotation) → ``StrokeStart``: the admissible states at touch-down depend
#: on nothing else (not on the push-off, nor on where the ski lands), so a run or a steady state
#: asked again, or with only the force, v0 or the number of strokes changed, reuses them
_stroke_starts = KeptLast(STROKE_STARTS)


def initial_state(model, v0, start=None):
    """Consistent q, q̇ at τ = 0 with s = 0 and ṡ = v0: the pose polished by Newton–Raphson and
    the velocities of ``model.stroke_start()`` (or ``start``, one of the same heading and side)."""
    start = model.stroke_start() if start is None else start
    return start.q(model.P), start.qd(float(v0))


def stroke_change(params, heading, side, push_force, q_end, qd_end, rotation="zxz", rule="along_ski", s_dot_end=None,
                  start=None):
    """The next stroke's model and its initial state (the stroke-change rules above).

    ``rule`` is one of ``STROKE_CHANGE_RULES``; ``s_dot_end`` is the old ski's speed ṡ⁻ (needed
    by ``ski_speed_kept`` only).  The new velocities are q̇⁺ = a + ṡ⁺ b, the solutions of
    Cq q̇ = −Ct with the ski's speed e′·Ṙ¹ = ṡ⁺, and the rule picks ṡ⁺.  ``speed_kept`` raises
    ``ValueError`` if no ṡ⁺ gives |Ṙ³⁺| = |Ṙ³⁻| (the old CM speed below the new pose's
    prescribed velocity across the ski).  ``start``: the new stroke's ``StrokeStart`` if known
    (one per heading and side serves every stroke; otherwise it is computed).
    """
    if rule not in STROKE_CHANGE_RULES:
        raise ValueError(f"stroke_change: must be one of {STROKE_CHANGE_RULES}, got {rule!r}")
    if start is None:  # the admissible states at τ = 0 do not depend on the start point
        start = SkierModel(params, heading, side, np.zeros(3), push_force, rotation=rotation).stroke_start()
    u0 = start.leg_axis0
    R3 = q_end[start.cm]
    P = np.array([R3[0] - params.leg_extension0 * u0[0], R3[1] - params.leg_extension0 * u0[1], 0.0])
    model = SkierModel(params, heading, side, P, push_force, rotation=rotation)
    q0 = start.q(P)
    a, b = start.at_rest, start.per_speed                # q̇⁺ = a + ṡ⁺ b
    v_old = np.asarray(qd_end[model.cm], dtype=float)
    w, e3 = a[model.cm], b[model.cm]                     # Ṙ³⁺ = w + ṡ⁺ e3 (e3 = e′)
    if rule == "along_ski":                              # e′·(Ṙ³⁺ − Ṙ³⁻) = 0
        sdot = float(model.e @ (v_old - w) / (model.e @ e3))
    elif rule == "ski_speed_kept":                       # ṡ⁺ = ṡ⁻
        if s_dot_end is None:
            raise ValueError("stroke_change: rule 'ski_speed_kept' needs s_dot_end, the old ski's speed")
        sdot = float(s_dot_end)
    else:                                                # |Ṙ³⁺|² = |Ṙ³⁻|², the larger root
        A, B, C = e3 @ e3, 2.0 * (e3 @ w), w @ w - v_old @ v_old
        disc = B * B - 4.0 * A * C
        if disc < 0:
            raise ValueError(f"stroke_change: rule 'speed_kept' has no solution: the CM speed {math.sqrt(v_old @ v_old):.4g}"
                             f" m/s is below the new pose's velocity across the ski")
        sdot = float((-B + math.sqrt(disc)) / (2.0 * A))
    return model, q0, a + sdot * b


@dataclass(frozen=True)
class RunOptions:
    """The validated options of a run (see ``simulate_run``)."""
    params: SkierParams
    strokes: int
    push: object
    source: str
    stabilization: Stabilization
    integrator: Integrator
    grid: np.ndarray
    v0: float
    first_ski: str
    force_scale: float
    compiled: bool
    rotation: str
    budget: Budget = None
    force_file: str | None = None
    force_sha256: str | None = None
    stroke_change: str = "along_ski"
    reduced: bool = False

    def settings(self) -> RunSettings:
        return RunSettings(self.stabilization, self.integrator, self.grid, self.compiled, self.budget, self.reduced)

    def result(self, tables, t_start) -> SimResult:
        """The ``SimResult`` of a run's tables (``skilib.strokes.run.RunTables``)."""
        info = dict(self.info(), nfev=tables.nfev, n_projections=tables.n_projections,
                    work_terms=BALANCE_TERMS, runtime_s=time.perf_counter() - t_start)
        return SimResult(**tables.result_tables(_CHANGE_COLUMNS, EVENT_COLUMNS), params=self.params,
                         models=tables.models, info=info)

    def info(self) -> dict:
        st, ig = self.stabilization, self.integrator
        return dict(force_source=self.source, force_file=self.force_file, force_sha256=self.force_sha256,
                    force_scale=self.force_scale, max_evaluations=self.budget.max_evaluations,
                    max_wall_time=self.budget.max_wall_time, method=ig.method, rtol=ig.rtol,
                    atol=ig.atol, alpha=st.alpha, beta=st.beta, v0=self.v0, first_ski=self.first_ski,
                    compiled=self.compiled, rotation=self.rotation, stabilization=st.kind,
                    projection_tol=st.projection_tol if st.projects else None, stroke_change=self.stroke_change,
                    reduced=self.reduced)


def run_options(params, *, strokes, phase_time, skating_angle_deg, c_ext, c_rot_deg, push_force, v0, first_ski,
                force_scale, dt_out, n_out, method, rtol, atol, h, alpha, beta, compiled, rotation,
                stabilization, projection_tol, max_evaluations=DEFAULT_MAX_EVALUATIONS,
                max_wall_time=None, stroke_change="along_ski", reduced=False) -> RunOptions:
    """Check every argument of ``simulate_run`` once (``ValueError`` naming it)."""
    params = SkierParams() if params is None else params
    if not isinstance(params, SkierParams):
        raise ValueError(f"params: must be a SkierParams, got {type(params).__name__}")
    over = {k: v for k, v in (("phase_time", phase_time), ("skating_angle_deg", skating_angle_deg),
                              ("c_ext", c_ext), ("c_rot_deg", c_rot_deg)) if v is not None}
    params = replace(params, **over)
    strokes = check_number("strokes", strokes, integer=True, low=1, high=MAX_STROKES)
    first_ski = check_choice("first_ski", first_ski, SIDES)
    v0 = check_number("v0", v0, low=-MAX_V0, high=MAX_V0, unit="m/s")
    force_scale = check_number("force_scale", force_scale, low=0.0, high=MAX_FORCE_SCALE)
    compiled = check_bool("compiled", compiled)
    reduced = check_bool("reduced", reduced)
    if reduced and not compiled:
        raise ValueError("reduced: the quadrature evaluates eq. 101 with the compiled kernel; it needs compiled=True")
    if reduced and params.air_drag:
        raise ValueError("reduced: with air drag the ski's acceleration depends on its speed, so a sliding segment "
                         "is not a quadrature; use reduced=False")
    rotation = check_choice("rotation", rotation, tuple(ROTATIONS))
    max_evaluations = check_number("max_evaluations", max_evaluations, integer=True, positive=True)
    if max_wall_time is not None:
        max_wall_time = check_number("max_wall_time", max_wall_time, positive=True, unit="s")
    T = params.phase_time
    if push_force is None:
        base, source = thesis_push_force(params, T)
    else:
        base, source = push_force, "user callable"
    file, sha = push_provenance(base, T)
    if push_force is not None and file is not None:
        source = f"user PushForce: {base.provenance}"
    push = base if force_scale == 1.0 else ScaledPush(base, float(force_scale))
    check_push_force(push, T, params)
    if not (isinstance(stroke_change, str) and stroke_change in STROKE_CHANGE_RULES):
        raise ValueError(f"stroke_change: must be one of {STROKE_CHANGE_RULES}, got {stroke_change!r}")
    stab = Stabilization.make(stabilization, h=h, alpha=alpha, beta=beta, projection_tol=projection_tol)
    integ = Integrator.make(method, rtol=rtol, atol=atol, max_step=T / MAX_STEP_DIVISOR, stabilization=stab)
    grid = output_grid(T, dt_out, n_out)
    if strokes * len(grid) > MAX_OUTPUT_ROWS:
        raise ValueError(f"dt_out/n_out: {strokes} strokes x {len(grid)} output points = {strokes * len(grid)} rows, "
                         f"more than {MAX_OUTPUT_ROWS}; use a coarser output grid or fewer strokes")
    return RunOptions(params, strokes, push, source, stab, integ, grid, v0, first_ski, force_scale, compiled, rotation,
                      Budget(max_evaluations, max_wall_time), file, sha, stroke_change, reduced)


class ThesisSkating(Skating):
    """The thesis's skier as the shared run loop sees it (``skilib.strokes.run``): strokes of
    ``SkierModel`` joined by the stroke-change rule of ``options``."""

    work_terms = BALANCE_TERMS
    power_term = "work_push"
    change_columns = tuple(_CHANGE_COLUMNS)
    #: the ski's least speed along itself over the stroke (≤ 0: it stopped or slid back)
    admissibility = {"min_ski_speed": ("s_dot", "min")}
    #: the secant alone: without air drag the stroke map is affine (``skilib.models.thesis.reduced``),
    #: where the secant's step is exact, and the search starts from rest, whose stroke sticks first
    #: (a kink at u = 0) that a quadratic through it would bend towards (measured on 40 rows of the
    #: Sobol design: 4 stroke maps in 28 of them with the secant, 5 with the quadratic steps)
    quadratic_steps = False
    #: a stroke's tabulation reads only its own model, compiled systems and rows, and the
    #: touch-down builds the next stroke's model: the run may overlap them (``skilib.strokes.run``)
    overlap_tables = True

    def __init__(self, options: RunOptions):
        self.o = options
        self.stroke_time = options.params.phase_time
        self._first, self._first_systems = None, {}

    def _start_of(self, hdg, side, model=None):
        """The ``StrokeStart`` of the ski (heading, side): one per ski of the run, not one per
        stroke, and kept in the process for the next run with these params (``_stroke_starts``)."""
        o = self.o

        def build():
            return (model or SkierModel(o.params, hdg, side, np.zeros(3), o.push, rotation=o.rotation)).stroke_start()

        return _stroke_starts.get((o.params, hdg, side, o.rotation), build)

    def start(self, u):
        o = self.o
        if self._first is None:  # the first stroke's model does not depend on u
            hdg, side = ski_heading(o.params, 0, o.first_ski)
            self._first = SkierModel(o.params, hdg, side, np.zeros(3), o.push, rotation=o.rotation)
        first = self._first
        return first, *initial_state(first, u, self._start_of(first.heading, first.side, first))

    def touch_down(self, k, model, q, qd):
        o = self.o
        hdg, side = ski_heading(o.params, k, o.first_ski)
        new, q1, qd1 = stroke_change(o.params, hdg, side, o.push, q, qd, o.rotation, o.stroke_change,
                                     model.sdot_of(qd), self._start_of(hdg, side))
        return new, q1, qd1, change_row(k, o.params.phase_time, model, q, qd, new, q1, qd1)

    def start_speed(self, model, q, qd):
        return model.sdot_of(qd)

    def systems(self, model):
        # the first stroke's model is the stroke map's, evaluated again and again: its compiled
        # systems of modes ±1 are kept (every later stroke has a model of its own)
        return self._first_systems if model is self._first else None

    def summary(self, k, model, y0, y_end, frame, change):
        n = model.nq
        q, qd = y_end[:n], y_end[n: 2 * n]
        return dict(heading_deg=math.degrees(model.heading), ke_loss_at_start=change["ke_loss"] if change else 0.0,
                    s_end=model.s_of(q), s_dot_start=model.sdot_of(y0[n: 2 * n]), s_dot_end=model.sdot_of(qd),
                    cm_speed_end=float(np.linalg.norm(qd[model.cm])),
                    cm_z_jump_at_start=change["cm_z_jump"] if change else 0.0)


def potential_energy(model, q) -> float:
    """Σ mᵢ g zᵢ of the model's bodies [J] (0 without gravity); on a course rising at α
    (``slope_deg``) along X, Σ mᵢ g (zᵢ cos α + xᵢ sin α), the height above the origin in the
    course frame (−g·r, gravity g(−sin α, 0, −cos α))."""
    p = model.params
    if not p.gravity:
        return 0.0
    sysm = model.system(1)
    if p.slope_deg == 0.0:
        return float(sum(b.mass * p.g * q[sysm.slice(b)][2] for b in model.bodies))
    s, c = slope_factors(p.slope_deg)
    return float(sum(b.mass * p.g * (q[sysm.slice(b)][2] * c + q[sysm.slice(b)][0] * s) for b in model.bodies))


def change_row(k, T, model, q, qd, new, q1, qd1) -> dict:
    """The stroke change before stroke k + 1 (0-based k ≥ 1): energies, speeds and jumps.

    ke_loss = KE⁻ − KE⁺ (kinetic energy lost; negative if gained), pe_loss = the potential
    energy Σ mᵢ g zᵢ lost with the pose reset, cm_v_along_* = e′·Ṙ³ on the new ski's heading e′,
    cm_v_jump = |Ṙ³⁺ − Ṙ³⁻|.
    """
    ke_before, ke_after = model.system(1).kinetic_energy(q, qd), new.system(1).kinetic_energy(q1, qd1)
    cm = new.cm
    return dict(stroke=k + 1, t=k * T, ke_before=ke_before, ke_after=ke_after,
                ke_loss=ke_before - ke_after, pe_loss=potential_energy(model, q) - potential_energy(new, q1),
                cm_z_jump=q1[cm][2] - q[cm][2], s_dot_before=model.sdot_of(qd),
                s_dot_after=new.sdot_of(qd1), cm_speed_before=float(np.linalg.norm(qd[cm])),
                cm_speed_after=float(np.linalg.norm(qd1[cm])), cm_v_along_before=float(new.e @ qd[cm]),
                cm_v_along_after=float(new.e @ qd1[cm]), cm_v_jump=float(np.linalg.norm(qd1[cm] - qd[cm])))


def simulate_run(params: SkierParams | None = None, *, strokes: int, phase_time=None, skating_angle_deg=None,
                 c_ext=None, c_rot_deg=None, push_force=None, v0: float = 0.0, first_ski: str = "right",
                 force_scale: float = 1.0, dt_out: float = 0.01, n_out: int | None = None,
                 method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-10, h: float = 0.05,
                 alpha=None, beta=None, compiled: bool = True, rotation: str = "zxz",
                 stabilization: str = "baumgarte", projection_tol: float = 1e-12,
                 max_evaluations: int = DEFAULT_MAX_EVALUATIONS, max_wall_time: float | None = None,
                 stroke_change: str = "along_ski", reduced: bool = False, progress: bool = False) -> SimResult:
    """A run of alternating strokes (thesis §5.6, table 9), joined by the stroke-change rule.

    Parameters
    ----------
    params : SkierParams (default SkierParams()).
    strokes : number of strokes (≥ 1).
    phase_time, skating_angle_deg, c_ext, c_rot_deg : T [s], skating angle [deg],
        C_ext [m/s] (eq. 187), C_rot [deg/s] (eq. 188); None keeps the value in params.
        The combination is validated by SkierParams (ValueError naming the field).
    push_force : None for the default curve (the Fourier fit of the SYNTHETIC force-plate
        push-off, ``skilib.data.push.default_push_force``), or any callable F(τ) [N] of the
        phase time τ ∈ [0, T]: the magnitude applied along the leg (eqs. 179–181).  It is
        sampled at 201 points of the phase and refused (ValueError naming ``push_force``) if
        a value is not finite or, scaled, exceeds ``MAX_PUSH_BODY_WEIGHTS`` = 20 body weights
        of the skier (skilib.models.thesis.push).  A ``PushForce`` fitted from a recording must be
        fitted for this phase time (else an error naming both; ``PushForce.time_scaled``
        stretches it); its file and sha256 are recorded in ``info`` (``force_file``,
        ``force_sha256``), as are the default data set's.
    force_scale : multiplies the push-off (fig. 42's "half force" is 0.5); in [0, 10].
    v0 : initial ski speed ṡ along the first ski [m/s], |v0| ≤ 50.
    first_ski : 'right' (default, heading −angle/2) or 'left'.
    dt_out / n_out : output grid step, or number of output points per stroke (at most
        100 000 per stroke and 2 000 000 in the whole run).
    method, rtol, atol : ``solve_ivp`` integrator and tolerances (``Integrator``).
    h, alpha, beta : Baumgarte stabilisation (eqs. 99–101), α = 1/h, β = √2/h (§3.8).  The
        constraint errors then obey C̈ + 2αĊ + β²C = 0, modes (−1 ± i)/h.  The default
        h = 0.05 s lets them decay 20 times per second while keeping them out of the
        explicit integrator's stiff range: h = 0.01 s doubles the run time and changes s,
        speeds and means by < 1e-9 (constraint drift stays below 1e-10 either way).
    compiled : evaluate eq. 101 with the generated, compiled kernel (``skilib.engine.codegen``,
        C by default; the first run on a machine traces and compiles it in a few seconds,
        later runs load it from the cache).  False uses the numeric engine: the same
        equations, tens of times slower for the whole run (`make bench` measures the ratio); results agree to round-off (a
        test checks it).
    rotation : 'zxz' (default: the thesis's ZXZ angles, 18 coordinates) or
        'euler_parameters' (21 coordinates, 17 + 3 rows; no gimbal lock).  The frame's
        q/qd columns follow the coordinates (q0…q17 or q0…q20); every other column means
        the same in both.
    stabilization : 'baumgarte' (default; h, alpha, beta above), 'projection' (no
        Baumgarte terms; ``ProjectedRK`` projects positions onto C = 0 and velocities onto
        Cq q̇ = −Ct after every accepted step, to ``projection_tol`` in max|C|; needs an
        explicit Runge–Kutta ``method``: DOP853, RK45, RK23; the kinetic energy it changes
        is ``projection_energy`` per stroke), or 'none' (α = β = 0: the constraints drift).
    stroke_change : the rule that hands one stroke over to the next (module docstring; book:
        The skier model, "Skating angle and stroke change"): 'along_ski' (default: the CM keeps
        its velocity along the new ski), 'ski_speed_kept' (the new ski starts at the old ski's
        final speed ṡ) or 'speed_kept' (the CM keeps its speed |Ṙ³|).  ``changes`` reports each
        change's kinetic energy lost (``ke_loss``; negative: gained) and potential energy lost
        with the pose reset (``pe_loss``).
    reduced : solve the sliding segments by quadrature in the skier's one coordinate s instead
        of the integrator's steps (``skilib.strokes.quadrature``; default False, the stepped run,
        which stays the reference).  The pose is q⁰(τ) + s ê, and without air drag the ski's
        acceleration depends on the phase time alone, so a segment is a few integrals of
        Chebyshev series fitted to the compiled kernel's own eq. 101.  It agrees with the stepped
        run to that run's error (about 1e-10 of a column on table 9; the tests bound it by 1e-8)
        and takes a tenth of its evaluations of eq. 101.  A stuck ski's segment is a quadrature
        too (its pose prescribed, its end where the static friction reaches its limit), so the
        integrator's options (method, rtol, atol, stabilization) are not used; ``info`` records
        ``reduced``.
        Needs ``compiled=True`` and air drag off (a ValueError naming ``reduced`` otherwise); a
        push-off the series cannot resolve, or a force that turns out to depend on the speed, raises
        ``NotReducible`` (a ValueError) naming the phase times.
    max_evaluations, max_wall_time : the run's work budget: evaluations of eq. 101 (default
        5 000 000; a table 9 stroke takes a few thousand) and wall-clock seconds (default
        None: no limit).  A run that exceeds either stops with ``BudgetExceededError``
        naming it, the stroke and the phase time reached.
    progress : a bar on stderr, one step per stroke (its mean speed in m/s); off by default.

    Numbers are checked by ``skilib.engine.validation.check_number``: a bool, a string,
    NaN, inf or an out-of-range value is a ValueError naming the argument (``compiled``
    must be True or False).

    Examples
    --------
    Two strokes of table 9's technique with the stand-in push-off: the speed builds up and
    the work–energy balance closes.

    >>> import skilib as sk
    >>> p = sk.SkierParams()
    >>> res = sk.simulate_run(p, strokes=2, push_force=sk.stand_in_push_force(p, p.phase_time))
    >>> bool(res.strokes["mean_speed"].iloc[1] > res.strokes["mean_speed"].iloc[0] > 0)
    True
    >>> bool(res.energy_balance()["residual"].abs().max() < 1e-6)
    True
    """
    t_start = time.perf_counter()
    o = run_options(params, strokes=strokes, phase_time=phase_time, skating_angle_deg=skating_angle_deg,
                    c_ext=c_ext, c_rot_deg=c_rot_deg, push_force=push_force, v0=v0, first_ski=first_ski,
                    force_scale=force_scale, dt_out=dt_out, n_out=n_out, method=method, rtol=rtol, atol=atol,
                    h=h, alpha=alpha, beta=beta, compiled=compiled, rotation=rotation,
                    stabilization=stabilization, projection_tol=projection_tol, max_evaluations=max_evaluations,
                    max_wall_time=max_wall_time, stroke_change=stroke_change, reduced=reduced)
    tables = run_strokes(ThesisSkating(o), o.settings(), strokes=o.strokes, v0=o.v0, progress=progress)
    return o.result(tables, t_start)


def options_of(params, run_kwargs: dict, strokes: int = 1, v0: float = 0.0) -> RunOptions:
    """``simulate_run``'s checked options for ``strokes`` strokes from ṡ = ``v0`` with its keywords
    ``run_kwargs`` (its defaults for the others; an unknown keyword is a TypeError, as in a call
    of simulate_run)."""
    bound = inspect.signature(simulate_run).bind(params, strokes=strokes, v0=v0, **run_kwargs)
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    arguments.pop("progress")  # how a run is shown, not what is run
    return run_options(**arguments)


def simulate_phase(params: SkierParams | None = None, *, phase_time=None, skating_angle_deg=None, c_ext=None,
                   c_rot_deg=None, push_force=None, v0: float = 0.0, **kwargs) -> SimResult:
    """One active phase (thesis §5.5, table 7): ``simulate_run`` with one stroke.

    Starts with the ski origin at the global origin on the right ski (heading −angle/2 with
    the default convention) unless ``first_ski='left'``; keywords as ``simulate_run``.
    """
    return simulate_run(params, strokes=1, phase_time=phase_time, skating_angle_deg=skating_angle_deg,
                        c_ext=c_ext, c_rot_deg=c_rot_deg, push_force=push_force, v0=v0, **kwargs)
