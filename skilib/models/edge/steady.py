"""The edged skater's periodic stroke: a fixed point of its stroke map in four variables.

A stroke of the edged skater starts at touch-down from x = (u, φ̇, z_B, d): the ski's speed
along itself, the lean rate of the centre of mass about the ski's axis, its height, and the
landing offset d, where it is across the ski (the parameter with a fixed offset; a balance rule
chooses it from the state).  One stroke and the plastic change of ski give the
next stroke's x′ on the other ski, mirrored (``EdgeSkating.state_of``): the stroke map
x′ = Φ(x).  The periodic stroke solves Φ(x0) = x0 by Newton's method with a forward-difference
Jacobian, updated by Broyden's formula while the steps halve the residual
(``skilib.strokes.periodic.newton_fixed_point(broyden=True)``: 11 stroke maps at the defaults
where Newton's takes 16), to max|Φ(x) − x| ≤ ``tol``.  The guess is (u, φ̇, z_B); d starts at
the parameter.

Its stability: the eigenvalues of ∂Φ/∂x at x0 (central differences), the stroke map's
multipliers.  With a fixed landing offset the stroke is an inverted pendulum on open-loop laws,
and at the defaults a multiplier lies outside the unit circle: a run from any other state leaves
the periodic stroke and falls within a few strokes.  Balance by foot placement (a landing offset
chosen at each touch-down from the CM's state, ``skilib.models.edge.balance``) is the skater's
answer: ``poles=`` designs a rule for the periodic stroke and measures the multipliers with it;
``poles="auto"`` keeps the map's stable multipliers and moves its unstable ones inside
(``auto_poles``), the rule ``simulate_edge(balance="designed")`` runs with.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
from dataclasses import dataclass, fields, replace

import numpy as np
import pandas as pd

from ...strokes.periodic import NoSteadyState, newton_fixed_point
from ...engine.validation import check_bool, check_number
from ...strokes.laws import side_of
from ...strokes.result import TableField
from ...strokes.run import RunTables, integrate_stroke, progress_bar, tabulate_stroke
from ...strokes.variational import stroke_map_jacobian
from ...vocabulary import HasUnits
from .balance import BalanceRule, touchdown_measure
from .model import SkiStopped
from .params import EdgeSkaterParams, with_edge_overrides
from .skating import EdgeSkating, edge_run_options

__all__ = ["edge_steady_state", "EdgeSteadyState", "DEFAULT_GUESS", "SOLVER_DEFAULTS", "check_admissible", "edge_stroke_map",
           "edge_stroke", "design_balance", "auto_poles", "AUTO_POLES"]

#: the start of the search (u [m/s], φ̇ [rad/s], z_B [m]): near the defaults' periodic stroke
DEFAULT_GUESS = (3.7, -0.35, 0.835)  # the landing offset is the parameter
#: forward-difference steps of the Jacobian (m/s, rad/s, m): ~1e-6 of each variable's scale,
#: where the periodic stroke's 1e-10 integration tolerance leaves differences good to ~1e-4
_STEPS = (1e-6, 1e-6, 1e-7, 1e-7)
#: where ``poles="auto"`` places the fixed-offset map's unstable multipliers (``auto_poles``), in
#: this order of preference (a value within ``AUTO_GAP`` of a kept multiplier is passed over)
AUTO_POLES = (0.3, 0.2, 0.1, 0.4, 0.5, 0.6, 0.05, 0.15, 0.25, 0.35)
#: the least distance between a placed multiplier and a kept one (single-input pole placement
#: cannot repeat a multiplier, and nearly repeated ones make large gains)
AUTO_GAP = 0.05


@dataclass
class EdgeSteadyState(HasUnits):
    """The periodic stroke of the edged skater.

    - x0 : (u0 [m/s], lean_rate0 [rad/s, + inwards], cm_height0 [m], landing offset d0 [m]) at
      touch-down (d0 is the parameter with a fixed offset, the rule's choice with one); residual :
      Φ(x0) − x0; iterations : stroke maps evaluated; multipliers : the eigenvalues of ∂Φ/∂x
      at x0 (central differences, or the variational equations with ``jacobian="variational"``),
      |·| > 1 unstable (with a fixed offset one of the four is 0:
      the offset does not depend on the state).
    - frame, strokes : one periodic stroke (``simulate_edge``'s tables; strokes also has
      ke_loss_at_touchdown, the loss of the touch-down that ends it); change : that touch-down
      (ke_loss ≥ 0 and its shares).  The tables are built when first read
      (``skilib.strokes.result.TableField``).
    - touchdown_measure : m* = (v_e, v_o, z_B) just before that touch-down (the balance rule's
      reference); balance_rule, balanced_multipliers : the designed rule and the multipliers of
      the map with it (``poles``), else None and NaN.
    - mean_speed, progress_speed (the CM's X displacement over T), mean_power (the drivers'),
      mean_leg_power, min_leg_force, min_snow_load, max_leg_length, max_abs_lean_deg.
    - the cost of work of the drivers (leg, fore–aft, heading; ``skilib.strokes.work``):
      mean_positive_power ΣW⁺/T [W], metabolic_power Σ(W⁺/η⁺ + |W⁻|/η⁻)/T [W] (the params'
      eta_positive, eta_negative) and gross_efficiency (ΣW⁺ + ΣW⁻)/(P_met T); the whole
      physiological cost metabolic_total [W] (work, swinging the legs, developing force, rest:
      ``skilib.physiology``) and gross_efficiency_total, the net work over it.
    - units (property) : {name: unit} of its numbers and its tables' columns (``skilib.vocabulary``).
    """

    _unit_properties = ("u0", "mean_speed", "progress_speed", "mean_power", "mean_leg_power", "mean_heading_power",
                        "min_leg_force", "min_snow_load", "max_leg_length", "max_abs_lean_deg", "ke_loss_at_touchdown",
                        "mean_positive_power", "metabolic_power", "gross_efficiency", "metabolic_total",
                        "gross_efficiency_total", "peak_leg_force_bw")

    params: EdgeSkaterParams
    x0: np.ndarray
    residual: np.ndarray
    iterations: int
    multipliers: np.ndarray
    frame: pd.DataFrame = TableField()
    strokes: pd.DataFrame = TableField()
    change: dict
    touchdown_measure: np.ndarray = None
    balance_rule: BalanceRule | None = None
    balanced_multipliers: np.ndarray = None

    def _stroke(name):  # noqa: N805 -- a property of the periodic stroke's row
        return property(lambda self: float(self.strokes[name].iloc[0]), doc=f"the periodic stroke's {name}")

    mean_speed = _stroke("mean_speed")
    progress_speed = _stroke("progress_speed")
    mean_power = _stroke("mean_power")
    mean_leg_power = _stroke("mean_leg_power")
    mean_heading_power = _stroke("mean_heading_power")
    min_leg_force = _stroke("min_leg_force")
    min_snow_load = _stroke("min_snow_load")
    max_leg_length = _stroke("max_leg_length")
    max_abs_lean_deg = _stroke("max_abs_lean_deg")
    ke_loss_at_touchdown = _stroke("ke_loss_at_touchdown")
    mean_positive_power = _stroke("mean_positive_power")
    metabolic_power = _stroke("metabolic_power")
    gross_efficiency = _stroke("gross_efficiency")
    metabolic_total = _stroke("metabolic_total")
    gross_efficiency_total = _stroke("gross_efficiency_total")
    del _stroke

    @property
    def peak_leg_force_bw(self) -> float:
        """The largest leg force of the periodic stroke [body weights]."""
        return float(self.frame["leg_force_bw"].max())

    @property
    def u0(self) -> float:
        """The ski's speed at touch-down [m/s]."""
        return float(self.x0[0])


def check_admissible(row: dict, params: EdgeSkaterParams, who: str) -> None:
    """Refuse a periodic stroke a leg and a ski cannot make, naming which bound and its value:
    the leg pulls (min_leg_force < 0), the leg beyond max_leg_length, the lean beyond
    max_lean_deg (the snow's load and the ski's speed are refused during the run already)."""
    if row["min_leg_force"] < 0:
        raise ValueError(f"{who}: leg_force: the leg pulls in the periodic stroke (least force "
                         f"{row['min_leg_force']:.4g} N): a leg only pushes")
    if row["max_leg_length"] > params.max_leg_length + 1e-9:
        excess = row["max_leg_length"] - params.max_leg_length
        raise ValueError(f"{who}: max_leg_length: the leg reaches {row['max_leg_length']:.6g} m, {excess:.2g} m "
                         f"beyond {params.max_leg_length:g} m")
    if row["max_abs_lean_deg"] > params.max_lean_deg:
        raise ValueError(f"{who}: max_lean_deg: the leg leans {row['max_abs_lean_deg']:.4g}° from the vertical, beyond "
                         f"{params.max_lean_deg:g}°")


def _numeric(moved: dict) -> bool:
    return all(isinstance(v, float) for v in moved.values())


#: the tolerance of a continuation's waypoints (``_continue``): each is only the next one's
#: guess, and Newton's steps from 1e-6 away reach the last one's ``tol`` in one or two maps
LOOSE_TOL = 1e-6
#: a continuation's waypoints begin their search with the last one's Jacobian (False: differences
#: at every waypoint, the reference the carried one is tested against)
CARRY_JACOBIAN = True


#: a continuation's first (and longest) step in the moved fields, as a fraction of the whole
#: move, and its shortest: a waypoint whose search fails is tried again at half the step
CONTINUATION_STEP = 1 / 4
CONTINUATION_MIN_STEP = 1 / 16


def _continue(base: EdgeSkaterParams, moved: dict, solver: dict, search, step=CONTINUATION_STEP,
              min_step=CONTINUATION_MIN_STEP):
    """The periodic stroke at ``base`` with the fields ``moved`` set, by continuation in λ from 0
    (``base``) to 1 (every field moved): each waypoint's periodic stroke is the next one's guess
    (the waypoints to ``LOOSE_TOL``, the last to the search's own tolerance).  The steps in λ
    adapt: ``step`` at first; a waypoint whose search fails (a stroke the open-loop skater falls
    in, no fixed point in reach) is tried again from the last waypoint found at half the step,
    down to ``min_step``; each success doubles the step again, up to ``step``.  Each waypoint's
    Broyden search begins with the last one's Jacobian (``CARRY_JACOBIAN``: the map changes
    little between neighbouring waypoints, and a step it does not serve has differences again),
    the first with differences.  (x0, residual, stroke maps of the waypoints found) or
    (None, None, 0) where a step shorter than ``min_step`` would be needed."""
    lam, h, total, J = 0.0, float(step), 0, None
    x = np.append(DEFAULT_GUESS, base.landing_offset)
    while True:
        target = min(1.0, lam + h)
        pk = replace(base, **{name: getattr(base, name) + (v - getattr(base, name)) * target
                              for name, v in moved.items()})
        phi_k = edge_stroke_map(EdgeSkating(edge_run_options(pk, strokes=1, v0=float(x[0]), **solver)))
        guess = x.copy()
        guess[3] = pk.landing_offset
        try:  # a waypoint: only the next one's guess
            found, resid, _, used, J_found = search(phi_k, guess, loose=target < 1.0,
                                                    jacobian=J if CARRY_JACOBIAN else None)
        except NoSteadyState:
            h /= 2
            if h < min_step:
                return None, None, 0
            continue
        total += used
        if target == 1.0:
            return found, resid, total
        lam, x, J, h = target, found, J_found, min(2 * h, float(step))


def _from_defaults(p, guess, balance, solver, search, first):
    """The open-loop skater falls within a stroke from a start far from its periodic stroke, so a
    guess made for other parameters may not even run: the periodic stroke by continuation from
    the defaults' (``_continue``), or ``first`` (the search's refusal) raised where there is none
    to make (a rule, a guess of the caller's, nothing moved or a field not a number)."""
    base = EdgeSkaterParams()
    moved = {f.name: getattr(p, f.name) for f in fields(p) if getattr(p, f.name) != getattr(base, f.name)}
    if balance is not None or not moved or tuple(guess) != DEFAULT_GUESS or not _numeric(moved):
        raise first
    x0, resid, n_eval = _continue(base, moved, solver, search)
    if x0 is None:
        raise first
    return x0, resid, n_eval


#: the crouch's secant (``_crouched``): at most this many fixed-offset periodic strokes, and how
#: close the leg at touch-down must come to ℓs [m] before the crouch's own map confirms it
CROUCH_MAX_ITER = 12
CROUCH_TOL = 1e-9
#: the secant's longest step in the landing offset [m]
CROUCH_STEP = 0.02


def _crouched(p, kwargs, warm, search, phi, first, tol):
    """(x0, residual, stroke maps) of the periodic stroke with the leg ``p.leg_start`` = ℓs long at
    every touch-down, found through the fixed-offset periodic strokes: for a landing offset d the
    fixed-offset stroke's leg lands ℓ0(d) = √(d² + z_B(d)²) long, and where ℓ0(d) = ℓs that stroke
    is the crouch's too (the same state, the same touch-down).  The secant method on
    r(d) = ℓ0(d) − ℓs from d = ``landing_offset`` (the first stroke from ``warm``, the caller's
    guess or the default one with its continuation; each next from the last one's touch-down), to
    ``CROUCH_TOL`` (steps of at most ``CROUCH_STEP``), then the crouch's own map from there to the
    search's tolerance.  ``first`` (the direct search's refusal) is raised, with the reason, where
    a fixed-offset stroke cannot be found or the secant does not close."""
    ls = p.leg_start
    fixed_kw = {k: v for k, v in kwargs.items() if k not in ("guess",)}
    maps = 0

    def r(d, warm):
        nonlocal maps
        if not 0.0 <= d < ls:
            raise NoSteadyState(f"the secant asks for a landing offset of {d:.4g} m, outside [0, {ls:g}) m")
        # a run's first height (the periodic stroke does not depend on it) within the leg's reach over d
        reach = max(p.max_leg_length - max(p.leg_extension, 0.0), d)
        q = replace(p, leg_start=None, landing_offset=d, cm_height=min(p.cm_height, math.sqrt(reach ** 2 - d * d)))
        ss = edge_steady_state(q, guess=warm, tol=tol, multipliers=False, check=False, **fixed_kw)
        maps += int(ss.iterations)
        return math.hypot(d, float(ss.x0[2])) - ls, ss.x0

    try:
        d0 = p.landing_offset
        r0, x = r(d0, warm)
        d1 = d0 + (0.01 if d0 + 0.01 < ls else -0.01)
        r1, x = r(d1, tuple(x[:3]))
        for _ in range(CROUCH_MAX_ITER):
            if abs(r1) <= CROUCH_TOL:
                break
            if r1 == r0:
                raise NoSteadyState(f"the leg's length at touch-down does not change with the landing offset near "
                                    f"{d1:.4g} m")
            # a secant step of at most CROUCH_STEP: the fixed-offset stroke of a far offset may not be found
            step = -r1 * (d1 - d0) / (r1 - r0)
            d0, d1, r0 = d1, d1 + max(-CROUCH_STEP, min(CROUCH_STEP, step)), r1
            r1, x = r(d1, tuple(x[:3]))
        else:
            raise NoSteadyState(f"the secant on the landing offset did not close in {CROUCH_MAX_ITER} strokes "
                                f"(the leg lands {r1:+.3g} m from ℓs)")
    except (NoSteadyState, ValueError) as exc:
        raise NoSteadyState(f"{first} (and through the fixed-offset strokes, with the leg {ls:g} m long at "
                            f"touch-down: {exc})") from exc
    x0, resid, _, used, _ = search(phi, np.append(x[:3], d1))
    return x0, resid, maps + used


#: the bar of the ``edge_steady_state(progress=True)`` running in this thread, or None: each
#: stroke map evaluated meanwhile (``edge_stroke_map``) is one step of it
_BAR = contextvars.ContextVar("skilib_edge_steady_bar", default=None)


@contextlib.contextmanager
def _counting_stroke_maps(enabled: bool):
    """While the block runs, a bar on stderr (``progress_bar``) counting the stroke maps evaluated
    in this thread (the search's, the periodic stroke's, the multipliers' and the balance rule's),
    with the last one's max|Φ(x) − x|; nothing when not ``enabled``.  It only counts."""
    if not enabled:
        yield
        return
    bar = progress_bar(None, "edge_steady_state", " stroke maps", True)
    token = _BAR.set(bar)
    try:
        yield
    finally:
        _BAR.reset(token)
        bar.close()


def edge_stroke_map(skating: EdgeSkating):
    """Φ of ``skating`` (its options: solver, balance rule): x -> (x′, payload), x = (u, φ̇, z_B, d)
    after a touch-down on the first ski; payload (model, the stroke's integration, the change,
    m = the CM's ``touchdown_measure`` just before the next touch-down; the integration's signed
    works are NaN unless ``dense``: only a tabulated stroke splits them).  Inside
    ``edge_steady_state(progress=True)`` each evaluation is one step of its bar."""
    settings = skating.settings()

    def phi(x, dense=False):
        model, q, qd = skating.start_from(x)
        settings.budget.start()
        # a map that is not tabulated reads only the end state: the signed works are not split
        out = integrate_stroke(skating, settings, 0, model, q, qd, dense, works=dense)
        n = model.nq
        y_end = out[3]
        m = touchdown_measure(skating.o.params, side_of(skating.o.first_ski, 1), y_end[:n], y_end[n: 2 * n], model)
        new, q1, qd1, change = skating.touch_down(1, model, y_end[:n], y_end[n: 2 * n])
        x_next = skating.state_of(new, q1, qd1)
        bar = _BAR.get()
        if bar is not None:
            bar.set_postfix_str(f"max|Φ(x) − x| {np.max(np.abs(np.subtract(x_next, x))):.2e}")
            bar.update(1)
        return x_next, (model, out, change, m)

    phi.skating = skating  # the map's model, for its Jacobian by the variational equations
    return phi


def _tabulated(skating: EdgeSkating, phi, x):
    """One stroke of the map ``phi`` from x, tabulated as a run's first stroke: (x′, the run's
    tables, the touch-down that ends it, m* just before it); the stroke's row has
    ke_loss_at_touchdown, the loss of that touch-down."""
    x_next, (model, (stroke, y0, segments, y_end, events), change, m_star) = phi(x, dense=True)
    tables = RunTables([], [], [], [], [])
    tabulate_stroke(skating, skating.settings(), 0, model, stroke, y0, segments, y_end, events, None, tables)
    tables.strokes[0]["ke_loss_at_touchdown"] = change["ke_loss"]
    return x_next, tables, change, m_star


def edge_stroke(params: EdgeSkaterParams | None, x, *, laws=None, **kwargs) -> tuple:
    """One stroke of the edged skater from the touch-down state x = (u, φ̇, z_B, d) on the right
    ski and the plastic change of ski that ends it (the stroke map Φ, the module's docstring),
    integrated by ``simulate_edge``'s machinery with its solver keywords ``kwargs`` and the right
    stroke's ``laws`` (an ``EdgeLaws``; None: the params'; given ones must start the leg where the
    touch-down puts it, ``EdgeSkating.check_leg_law``): (x′ = Φ(x),
    the stroke's row of a run's ``strokes`` table as a dict, with ke_loss_at_touchdown).  The leg's
    reach is not refused at the touch-down (the row's max_leg_length says it): a collocated
    stroke with its leg at full reach is re-simulated here (``skilib.models.edge.collocation``)."""
    p = with_edge_overrides(params)
    try:
        x = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"x: must be four numbers (u, lean rate, CM height, landing offset), got {x!r}") from None
    if x.shape != (4,) or not np.all(np.isfinite(x)) or x[0] <= 0 or x[2] <= 0:
        raise ValueError(f"x: must be (u > 0 m/s, lean rate rad/s, CM height > 0 m, landing offset m), got {x!r}")
    skating = EdgeSkating(edge_run_options(p, strokes=1, v0=float(x[0]), laws=laws,
                                           **{**_solver(kwargs), "reach": False}))
    x_next, tables, _, _ = _tabulated(skating, edge_stroke_map(skating), x)
    return x_next, dict(tables.strokes[0])


def _jacobians(phi, x0, steps, method: str = "differences"):
    """A = ∂Φ/∂x and M = ∂m/∂x at x0 (m: the touch-down measure, the payload's last entry) by
    central differences from the same stroke maps (steps ten times the Newton steps: error
    O(h²) ≈ 2e-7 of the entries at the defaults, measured against the variational Jacobian,
    rounding O(ε_stroke/h) below it), or with ``method="variational"`` from the variational
    equations (``_variational_jacobians``)."""
    if method == "variational":
        return _variational_jacobians(phi, x0)
    n = len(x0)
    A, M = np.empty((n, n)), np.empty((n, n))
    for k, h in enumerate(steps):
        d = np.zeros(n)
        d[k] = 10 * h
        (xp, pp), (xm, pm) = phi(x0 + d), phi(x0 - d)
        A[:, k] = (xp - xm) / (2 * d[k])
        M[:, k] = (pp[3] - pm[3]) / (2 * d[k])
    return A, M


def _variational_jacobians(phi, x0):
    """(A, M) of ``edge_stroke_map``'s ``phi`` at x0 from the variational equations
    (``skilib.strokes.variational``: the stroke's flow differentiated exactly to the run's
    integration tolerance; the start from x, the touch-down with the map's rule and the measure
    m just before it are algebraic and differenced).  Its entries agree with central differences
    of the map at the Newton steps to ~1e-8 (entries up to 10) at the defaults."""
    skating = phi.skating
    p, side = skating.o.params, side_of(skating.o.first_ski, 1)

    def after(model, q, qd):
        m = touchdown_measure(p, side, q, qd, model)
        new, q1, qd1, _ = skating.touch_down(1, model, q, qd)
        return np.concatenate([skating.state_of(new, q1, qd1), np.ravel(m)])

    settings = skating.settings()
    _, J = stroke_map_jacobian(skating, settings, skating.start_from, after, x0, rtol=settings.integrator.rtol,
                               atol=settings.integrator.atol)
    n = len(x0)
    return J[:n], J[n:]


#: how ``edge_steady_state`` takes the stroke map's Jacobian for its multipliers and a rule's design
JACOBIANS = ("differences", "variational")


def edge_steady_state(params: EdgeSkaterParams | None = None, *, guess=DEFAULT_GUESS, tol: float = 1e-10,
                      max_iter: int = 30, multipliers: bool = True, balance=None, poles=None,
                      check: bool = True, progress: bool = False, jacobian: str = "differences",
                      **kwargs) -> EdgeSteadyState:
    """The periodic stroke of the edged skater (the module's docstring) from ``guess`` =
    (u [m/s], φ̇ [rad/s], z_B [m]) at touch-down.

    - tol : max|Φ(x) − x| at the fixed point (mixed units: m/s, rad/s, m), in (0, 1e-2].
    - max_iter : stroke maps at most (each Newton step costs five).
    - multipliers : compute ∂Φ/∂x at x0 by central differences (eight more stroke maps) and its
      eigenvalues; False skips them (NaN).
    - balance : None (a fixed landing offset) or a ``BalanceRule`` (the stroke map with the rule;
      its fixed point is the same where the rule's reference is this stroke's).
    - poles : None, four multipliers (|·| < 1) to design a balance rule for, or "auto" (the
      fixed-offset map's stable multipliers kept, its unstable ones moved to 0.3, 0.2, ...:
      ``auto_poles``) (``design_balance``; ten more stroke maps, and eight to measure them): the
      result's ``balance_rule`` and ``balanced_multipliers`` (measured on the map with the rule,
      not the design's).
    - kwargs : ``simulate_edge``'s solver keywords (method, rtol, atol, stabilization, compiled,
      ...); ``compiled=True`` (the default) runs every stroke map with the compiled kernels,
      False with the numeric engine (the same fixed point to ~1e-12, about 30 times slower).
    - jacobian : "differences" (default: central differences of the map, eight stroke maps, ~50 ms
      at the defaults, entries good to ~2e-7) or "variational" (the variational equations:
      ``skilib.strokes.variational``, exact to the integration tolerance, ~1e-8 at the defaults,
      about ten times slower; needs CasADi, ``skilib[ocp]``) for the multipliers, a rule's
      design and the balanced multipliers.  The search's Newton steps take differences either way.
    - progress : a bar on stderr counting the stroke maps evaluated (the search's, its
      continuation's, the periodic stroke's tabulation, the multipliers' and the balance rule's),
      with the last one's max|Φ(x) − x|; off by default.  The result is the same bit for bit.

    The open-loop skater falls within a stroke from a start far from its periodic stroke, so
    where the search from ``guess`` cannot run a stroke and the parameters differ from the
    defaults (numbers only, the default guess, no rule), the periodic stroke is found by
    continuation from the defaults' (steps of a quarter of the changed fields' move, halved after a
    failed waypoint down to a sixteenth, each waypoint's search begun from the last one's
    Jacobian: ``_continue``).  A search
    that still leaves what the model can run (the ski stops, the snow would pull) is
    ``NoSteadyState`` naming the start and why; the search's strokes may start with the leg beyond
    its reach (a run refuses that at a touch-down), the stroke found may not: a fixed point whose
    stroke is not admissible (the leg pulls, reaches too far or leans beyond max_lean_deg) is
    refused by ``check_admissible``; no fixed point within ``max_iter`` is ``NoSteadyState``.
    """
    p = with_edge_overrides(params)
    g = np.array(guess, dtype=float) if not isinstance(guess, str) else None
    if g is None or g.shape != (3,) or not np.all(np.isfinite(g)) or g[0] <= 0 or g[2] <= 0:
        raise ValueError(f"guess: must be (u > 0 m/s, lean rate rad/s, CM height > 0 m), got {guess!r}")
    auto = isinstance(poles, str) and poles == "auto"
    if poles is not None and not auto:
        given = poles
        poles = np.asarray(poles, dtype=complex) if not isinstance(poles, str) else None
        if poles is None or poles.shape != (4,) or not np.all(np.isfinite(poles)) or not np.all(np.abs(poles) < 1):
            raise ValueError(f"poles: must be four multipliers inside the unit circle or 'auto' (the stable ones of "
                             f"the fixed-offset map kept, the unstable ones moved inside), got {given!r}")
    # the search's strokes may start with a leg beyond its reach: the stroke found is checked
    # (``check_admissible``), or its reach is left to the caller's inequality (check=False)
    solver = {**_solver(kwargs), "reach": False}
    tol = check_number("tol", tol, positive=True, high=1e-2)
    max_iter = check_number("max_iter", max_iter, integer=True, low=2)
    check = check_bool("check", check)
    multipliers = check_bool("multipliers", multipliers)
    progress = check_bool("progress", progress)
    if jacobian not in JACOBIANS:
        raise ValueError(f"jacobian: must be one of {JACOBIANS}, got {jacobian!r}")
    skating = EdgeSkating(edge_run_options(p, strokes=1, v0=float(g[0]), balance=balance, **solver))
    phi = edge_stroke_map(skating)

    def search(phi_, start, who="edge_steady_state", loose=False, jacobian=None):
        try:
            return newton_fixed_point(phi_, start, tol=max(tol, LOOSE_TOL) if loose else tol, max_iter=max_iter,
                                      steps=_STEPS, who=who, broyden=True, jacobian=jacobian)
        except NoSteadyState:
            raise
        except ValueError as exc:  # a stroke of the search fell (the snow would pull, the ski stopped, ...)
            raise NoSteadyState(f"{who}: a stroke of the search from x = {np.round(start, 6).tolist()} cannot be "
                                f"run: {exc}") from exc

    with _counting_stroke_maps(progress):
        if p.leg_start is None:
            g = np.append(g, p.landing_offset)  # the landing offset: the parameter with a fixed offset
        elif tuple(guess) != DEFAULT_GUESS and g[2] < p.leg_start:
            # the crouch places the foot: where a leg ℓs long reaches from the given guess's height
            g = np.append(g, p.crouch_offset(g[2]))
        else:  # the default guess's speeds, the foot where the landing offset guesses it: the CM √(ℓs² − d0²) high
            g = np.append(g[:2], (p.first_height(), p.landing_offset))
        try:
            x0, resid, _, n_eval, _ = search(phi, g)
        except NoSteadyState as first:
            if p.leg_start is not None:
                # the crouch's map ends where the next leg cannot reach from a start far from its periodic
                # stroke: the fixed-offset periodic stroke whose leg lands ℓs long is the same stroke
                given = tuple(g[:3]) if tuple(guess) != DEFAULT_GUESS else DEFAULT_GUESS
                x0, resid, n_eval = _crouched(p, kwargs, given, search, phi, first, tol)
            else:
                x0, resid, n_eval = _from_defaults(p, guess, balance, solver, search, first)
        # the periodic stroke once more, with its interpolant for the frame (the same steps)
        _, tables, change, m_star = _tabulated(skating, phi, x0)
        row = tables.strokes[0]
        if check:
            check_admissible(row, p, "edge_steady_state")
        # with a fixed offset, A and M of this map serve the multipliers and the rule's design alike
        jac = _jacobians(phi, x0, _STEPS, jacobian) if (multipliers or poles is not None) and balance is None else None
        if multipliers:
            mult = np.linalg.eigvals(jac[0] if jac is not None else _jacobians(phi, x0, _STEPS, jacobian)[0])
        else:
            mult = np.full(4, np.nan)
        rule, balanced = None, np.full(4, np.nan)
        if poles is not None:
            if auto:  # the fixed-offset map's multipliers decide which to keep
                if jac is None:  # a map with a rule: the fixed offset's Jacobians from its own map
                    fixed = edge_stroke_map(EdgeSkating(edge_run_options(p, strokes=1, v0=float(x0[0]), **solver)))
                    jac = _jacobians(fixed, x0, _STEPS, jacobian)
                poles = auto_poles(np.linalg.eigvals(jac[0]))
            rule = design_balance(p, x0, m_star, solver, poles, jacobians=jac)
            closed = edge_stroke_map(EdgeSkating(edge_run_options(p, strokes=1, v0=float(x0[0]), balance=rule,
                                                                  **solver)))
            balanced = np.linalg.eigvals(_jacobians(closed, x0, _STEPS, jacobian)[0])
        return EdgeSteadyState(params=p, x0=x0, residual=resid, iterations=n_eval, multipliers=mult,
                               **tables.result_tables(), change=change,
                               touchdown_measure=m_star, balance_rule=rule, balanced_multipliers=balanced)


def auto_poles(multipliers) -> np.ndarray:
    """The multipliers ``poles="auto"`` designs a balance rule for, from the fixed-offset stroke
    map's ``multipliers``: the stable ones (|λ| < 1) kept, the unstable ones (|λ| ≥ 1) moved to
    the first of ``AUTO_POLES`` (0.3, 0.2, 0.1, ...) that lie ``AUTO_GAP`` or more from every
    kept one.

    Why keep the stable ones: they are what settles by itself, above all the speed's relaxation
    under friction and drag (≈ 0.96 per stroke at the defaults) and the fixed offset's 0.  Foot
    placement is a poor way to change the speed, and asking it to (the tests' poles
    (0.5, 0.4, 0.3, 0.2)) takes gains whose transient throws a start 0.08 m/s off the periodic
    speed out of the admissible strokes within five; the rule that only balances (at the
    defaults (0.961, 0.3, 0.2, 0)) brings starts from 3.0 to 5.5 m/s back (8 strokes,
    periodic posture; measured for ``simulate_edge(balance="designed")``).  The price: the
    speed settles at the physics' own rate, a few per cent per stroke."""
    lam = np.asarray(multipliers, dtype=complex)
    if lam.shape != (4,) or not np.all(np.isfinite(lam)):
        raise ValueError(f"multipliers: must be four finite multipliers, got {multipliers!r}")
    kept = [complex(v) for v in lam if abs(v) < 1.0]
    placed = []
    for c in AUTO_POLES:
        if len(kept) + len(placed) == 4:
            break
        if all(abs(c - k) >= AUTO_GAP for k in kept):
            placed.append(complex(c))
    return np.array(kept + placed, dtype=complex)


def design_balance(params: EdgeSkaterParams, x0, m_star, solver: dict, poles, *, jacobians=None) -> BalanceRule:
    """The balance rule (``skilib.models.edge.balance``) whose linearised stroke map at the
    periodic stroke x0 (with touch-down measure m*) has the multipliers ``poles``: A = ∂Φ/∂x and
    M = ∂m/∂x from the fixed-offset map (``jacobians`` = (A, M) where the caller has them
    already), b = ∂Φ/∂d0 from two maps with the offset moved by ±1e-5 m (central differences), K
    from ``scipy.signal.place_poles(A, b, poles)`` and g = −Kᵀ solved from gᵀ M = −K."""
    from scipy.signal import place_poles

    d_star = params.landing_offset
    if jacobians is None:
        fixed = edge_stroke_map(EdgeSkating(edge_run_options(params, strokes=1, v0=float(x0[0]), **solver)))
        jacobians = _jacobians(fixed, x0, _STEPS)
    A, M = jacobians
    delta = 1e-5
    moved = [edge_stroke_map(EdgeSkating(edge_run_options(params, strokes=1, v0=float(x0[0]), **solver,
                                                     balance=BalanceRule(d_star + s * delta, tuple(m_star),
                                                                         (0.0,) * 4))))(x0)[0]
             for s in (1.0, -1.0)]
    b = (moved[0] - moved[1]) / (2 * delta)
    K = place_poles(A, b.reshape(4, 1), np.asarray(poles)).gain_matrix.ravel()
    gains = np.linalg.solve(M.T, -K)
    return BalanceRule(offset=d_star, reference=tuple(float(v) for v in m_star), gains=tuple(float(v) for v in gains),
                       poles=tuple(complex(v) for v in poles))


#: the solver keywords ``edge_steady_state`` passes to ``simulate_edge``, with their defaults
SOLVER_DEFAULTS = dict(first_ski="right", rotation="zxz", stabilization="baumgarte", method="DOP853", rtol=1e-10,
                       atol=1e-10, h=0.05, alpha=None, beta=None, dt_out=0.01, n_out=None, max_evaluations=5_000_000,
                       max_wall_time=600.0, compiled=True)


def _solver(kwargs: dict) -> dict:
    """``simulate_edge``'s solver keywords with its defaults for the others."""
    defaults = SOLVER_DEFAULTS
    unknown = set(kwargs) - set(defaults)
    if unknown:
        raise TypeError(f"edge_steady_state: unknown keyword(s) {sorted(unknown)}")
    return {**defaults, **kwargs}
