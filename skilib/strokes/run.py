"""A run of alternating strokes, for any skating model: the loop every model shares.

A run is strokes k = 0, 1, …, each integrated by ``Stroke`` (friction modes, events), tabulated
by ``stroke_columns`` (the run's frame is built once, at its end: ``frame_of``) and summarised
in one row, joined by the model's touch-down rule.  What a
model supplies is a ``Skating`` (subclass it):

- ``stroke_time`` T [s] and ``work_terms`` (the works whose sum is ΔKE) and ``power_term``
  (the work whose mean over T is the stroke's ``mean_power``);
- ``start(u)``: the first stroke's model and its (q, q̇) at τ = 0 with the ski's speed u along
  itself;
- ``touch_down(k, model, q, qd)``: the model of stroke k ≥ 1 and its (q, q̇) at τ = 0 after the
  previous stroke (``model``) ended at (q, q̇), and the change's row (``change_columns``);
- ``start_speed(model, q, qd)``: the ski's speed along itself at τ = 0 (the stroke map's
  variable, ``skilib.strokes.periodic``);
- ``summary(k, model, y0, y_end, frame, change)``: the model's own columns of the stroke's row
  (the shared ones come from ``stroke_summary``); ``frame`` is the stroke's columns, {name:
  array over its output grid} (``stroke_columns``: read them with ``column`` and
  ``column_extreme``, which take a DataFrame too);
- ``admissibility``: {summary column: (frame column, "min" or "max")}: the extremes over the
  stroke that say whether it is one the model admits (the ski keeps gliding, the snow pushes,
  the leg force stays within reach of a human);
- on the stroke's model, optionally ``actuators`` (names among its works, e.g. "work_leg"):
  their positive and negative works are integrated too (``skilib.strokes.work``) and the
  stroke's row gets their cost (``cost_columns``; the model's params hold ``eta_positive`` and
  ``eta_negative``);
- optionally ``systems(model)``: a dict in which the compiled systems of strokes that share
  them are kept (``None``: each stroke compiles its own);
- optionally ``overlap_tables = True``: the model's touch-down and its tabulation share no
  state that either of them writes, and consecutive strokes share no compiled system, so a run
  may tabulate stroke k in a second thread while stroke k + 1 is integrated (below).

Overlapping tables and steps.  With compiled systems a stroke's steps run in C, which lets go of
Python's global interpreter lock (``ctypes``), and its tabulation (the frame: eq. 101 at the
output points, reactions; the row) is Python and NumPy: on a second core they overlap.
``run_strokes`` then does, per stroke, the steps of stroke k, the touch-down that starts stroke
k + 1, and hands stroke k's tabulation to one worker thread while it steps stroke k + 1; each
tabulation is waited for before the next is handed over, so the tables are appended in stroke
order.  Every number is computed by the same operations on the same inputs, so the tables are
the sequential loop's bit for bit (tested); an error raised by stroke k's tabulation is raised
before any error of the later touch-down or steps, as the sequential loop would.  The
sequential loop stays the path of the numeric engine, of another integrator than DOP853 and of
projection (their steps are Python's and hold the lock), of sliding segments by quadrature
(``reduced``: its arithmetic is NumPy's and holds the lock too), of one stroke, and of a model
that does not declare ``overlap_tables``.

``RunSettings`` holds the solver's choices, checked once by the model's run function.
"""
from __future__ import annotations

import functools
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..engine.forces import Gravity
from ..engine.options import Integrator, Stabilization
from ..engine.validation import check_bool, check_increasing, check_number
from .frame import column, column_extreme, frame_of, stroke_columns
from .result import LazyTable
from ..physiology.cost import physiological_cost
from .poles import POLE_WORK_TERMS, POLES, Poled, pole_summary
from .stroke import Budget, Stroke
from .work import cost_of_work, signed_names

__all__ = ["Skating", "RunSettings", "RunTables", "run_strokes", "integrate_stroke", "tabulate_stroke", "stroke_means",
           "stroke_summary", "cost_columns", "physiology_columns", "climb_work", "EVENT_COLUMNS", "progress_bar"]

#: the columns of a run's ``events`` table (one row per friction-mode switch)
EVENT_COLUMNS = ["stroke", "tau", "t", "mode_before", "mode_after"]


@dataclass(frozen=True)
class RunSettings:
    """The solver's choices of a run: stabilization, integrator, the output grid of one stroke
    (τ values, at least two, increasing from 0), whether the systems are compiled, the work
    budget, and whether sliding segments are solved by quadrature in the model's one coordinate
    (``reduced``, ``skilib.strokes.quadrature``); each is checked on construction (``ValueError``
    naming it)."""
    stabilization: Stabilization
    integrator: Integrator
    grid: np.ndarray
    compiled: bool
    budget: Budget
    #: the sliding segments by quadrature in the model's one coordinate (``skilib.strokes.quadrature``)
    reduced: bool = False

    def __post_init__(self):
        for name, kind in (("stabilization", Stabilization), ("integrator", Integrator), ("budget", Budget)):
            if not isinstance(getattr(self, name), kind):
                raise ValueError(f"{name}: must be a {kind.__name__}, got {getattr(self, name)!r}")
        check_bool("compiled", self.compiled)
        check_bool("reduced", self.reduced)
        grid = check_increasing("grid", self.grid, unit="s")
        if len(grid) < 2 or grid[0] != 0.0:
            raise ValueError(f"grid: the output times of a stroke must be at least two, from τ = 0, got {self.grid!r}")


class Skating:
    """What a skating model gives the shared run loop (module docstring).  Subclass it."""

    stroke_time: float
    work_terms: tuple = ()
    power_term: str = ""
    change_columns: tuple = ()
    admissibility: dict = {}
    #: whether the periodic stroke's search takes inverse quadratic steps (``secant_fixed_point``'s
    #: ``quadratic``): for a smooth, curved stroke map; a model whose map is affine or kinked says no
    quadratic_steps: bool = True
    #: whether the periodic stroke's search integrates its first strokes, far from the fixed point,
    #: at a coarse tolerance (``skilib.strokes.periodic.COARSE_RTOL``): where the map is smooth
    #: enough that a coarse value steers the search as well as the run's; the values the search
    #: stops on are the run's tolerance either way
    coarse_maps: bool = False
    #: whether a run may tabulate stroke k in a second thread while it integrates stroke k + 1
    #: (the module docstring): a model says so where its touch-down and tabulation are independent
    overlap_tables: bool = False

    def start(self, u: float):
        raise NotImplementedError

    def touch_down(self, k: int, model, q, qd):
        raise NotImplementedError

    def next_start(self, k: int, model, q, qd):
        """Stroke k's model and (q, q̇) after the touch-down, ``touch_down``'s without the change's
        row (what a stroke map reads); a model overrides it where the row costs."""
        return self.touch_down(k, model, q, qd)[:3]

    def start_speed(self, model, q, qd) -> float:
        return float(model.ski_speed(0.0, q, qd))

    def summary(self, k: int, model, y0, y_end, frame, change) -> dict:
        return {}

    def systems(self, model):
        return None


@dataclass
class RunTables:
    """The tables of a run before the model wraps them (``SimResult``): frames and rows per
    stroke, change and event, the stroke models, and the integrator's counts."""
    frames: list
    strokes: list
    changes: list
    events: list
    models: list
    nfev: int = 0
    n_projections: int = 0

    def frame(self) -> pd.DataFrame:
        """The run's frame: the strokes' columns (``frames``: ``stroke_columns``' dicts) in one
        DataFrame (``frame_of``)."""
        return frame_of(self.frames)

    def result_tables(self, change_columns=None, event_columns=None) -> dict:
        """A result's tables, each built when first read (``LazyTable``): frame and strokes, and
        with their columns given, changes (``change_columns``) and events (``event_columns``)
        (a run's four; a steady state's first two)."""
        out = dict(frame=LazyTable(frame_of, self.frames), strokes=LazyTable(pd.DataFrame, self.strokes))
        if change_columns is not None:
            out["changes"] = LazyTable(pd.DataFrame, self.changes, columns=change_columns)
        if event_columns is not None:
            out["events"] = LazyTable(pd.DataFrame, self.events, columns=event_columns)
        return out


def stroke_summary(skating: Skating, k: int, model, y0, y_end, frame) -> dict:
    """The columns every model's strokes table has (T = ``skating.stroke_time``):

    mean_speed (time average of the centre of mass's speed |Ṙ|), progress_speed = mean_vx
    (its X displacement, along the course, over T), mean_vy, distance_x, mean_power (the mean
    of ``power_term``'s work rate), ke_start, ke_end, every work, projection_energy, the
    work–energy residual ΔKE − ΣW − projection_energy, max_constraint_norm, mean_climb_power
    (``climb_work`` / T: the power spent lifting the skier on a course that rises along X, 0 on
    the flat), and the model's ``admissibility`` columns (extremes of frame columns over the
    stroke).
    """
    T, n, cm = skating.stroke_time, model.nq, model.cm
    W = {key: y_end[2 * n + i] for i, key in enumerate(model.extra_states)}
    q, qd, q0, qd0 = y_end[:n], y_end[n: 2 * n], y0[:n], y0[n: 2 * n]
    system = model.system(1)
    ke_start, ke_end = system.kinetic_energy(q0, qd0), system.kinetic_energy(q, qd)
    works = {key: W[key] for key in skating.work_terms}
    residual = ke_end - ke_start - sum(works.values()) - W["projection_energy"]
    progress = float(q[cm][0] - q0[cm][0]) / T
    extremes = {key: column_extreme(frame[col], how) for key, (col, how) in skating.admissibility.items()}
    climb = climb_work(system, q0, q)
    signed = signed_names(getattr(model, "actuators", ()))  # last, with the cost of work (``cost_columns``)
    mean_speed, mean_power = stroke_means(skating, model, y_end)
    return dict(stroke=k + 1, side=model.side, mean_speed=mean_speed, mean_vx=progress,
                progress_speed=progress, mean_vy=float(q[cm][1] - q0[cm][1]) / T,
                mean_power=mean_power, distance_x=float(q[cm][0] - q0[cm][0]),
                mean_abs_vx=W["int_abs_vx"] / T, mean_abs_vy=W["int_abs_vy"] / T,
                ke_start=ke_start, ke_end=ke_end, **{key: W[key] for key in model.extra_states
                                                     if key.startswith("work_") and key not in signed},
                projection_energy=W["projection_energy"], energy_residual=residual,
                max_constraint_norm=column_extreme(frame["constraint_norm"], "max"), mean_climb_power=climb / T, **extremes)


def stroke_means(skating: Skating, model, y_end) -> tuple:
    """(mean_speed, mean_power) of a stroke from its end state alone: the integral of the centre
    of mass's speed and ``power_term``'s work, extra states of the integration, over T.  The
    strokes table's columns (``stroke_summary``), and a periodic stroke's found without tables
    (``skilib.strokes.periodic.periodic_stroke(tables=False)``)."""
    T, k = skating.stroke_time, 2 * model.nq
    return (y_end[k + model.extra_states.index("int_speed")] / T,
            y_end[k + model.extra_states.index(skating.power_term)] / T)


def cost_columns(skating: Skating, model, y_end) -> dict:
    """The cost of work of a stroke of a model that names ``actuators`` (``skilib.strokes.work``:
    each one's work_<a>_positive and work_<a>_negative, work_positive, work_negative,
    mean_positive_power, metabolic_power and gross_efficiency, with the efficiencies
    ``params.eta_positive`` and ``params.eta_negative``); {} for a model that names none."""
    actuators = getattr(model, "actuators", ())
    if not actuators:
        return {}
    p = model.params
    return cost_of_work(_extra(model, y_end), actuators, skating.stroke_time, p.eta_positive, p.eta_negative)


def physiology_columns(skating: Skating, model, y_end, frame) -> dict:
    """The whole physiological cost of a stroke (``skilib.physiology``: the work with the arms'
    own η⁺, swinging the legs, developing the leg's and each pole's force, resting) for a model
    that names actuators and whose params hold the physiology fields; {} for any other.  The
    forces developed are read off the stroke's frame: the leg's |(leg_fx, leg_fy, leg_fz)| and
    each pole's push ``pole_force``, on the output grid."""
    actuators = getattr(model, "actuators", ())
    p = model.params
    if not actuators or not hasattr(p, "resting_rate"):
        return {}
    forces = {"leg": np.linalg.norm(np.column_stack([column(frame, c) for c in ("leg_fx", "leg_fy", "leg_fz")]),
                                    axis=1)}
    if getattr(model, "poled", False):
        forces.update({name: column(frame, "pole_force") for name, _ in POLES})
    return physiological_cost(_extra(model, y_end), actuators, forces, skating.stroke_time, p, arms=POLE_WORK_TERMS,
                              tau=column(frame, "tau"))


def _extra(model, y_end) -> dict:
    """The stroke's extra states at its end by name (the works, the integrals, ...)."""
    k = 2 * model.nq
    return {key: float(y_end[k + i]) for i, key in enumerate(model.extra_states)}


def climb_work(system, q0, q) -> float:
    """−(the work of gravity's X component) from ``q0`` to ``q`` [J]: Σ mᵢ g sin α (xᵢ − xᵢ₀)
    over the bodies gravity acts on, with gravity g(−sin α, 0, −cos α) on a course rising at α
    along X.  Gravity is uniform, so its work is exact from the bodies' displacements (no
    quadrature): on the flat it is 0 (exactly), uphill the share of the skier's work that goes
    into height along the course.  ``system``: the stroke's ``MultibodySystem``."""
    w = 0.0
    for f in system.forces:
        if not isinstance(f, Gravity) or f.g[0] == 0.0:
            continue
        for b in f.bodies if f.bodies is not None else system.bodies:
            i = system.slice(b).start
            w -= b.mass * float(f.g[0]) * float(q[i] - q0[i])
    return w + 0.0


def integrate_stroke(skating: Skating, settings: RunSettings, k: int, model, q, qd, dense: bool = True,
                     works: bool = True):
    """Stroke k (0-based) of ``model`` from (q, q̇) at τ = 0: (the ``Stroke``, y0, its segments,
    y at τ = T, its friction switches (τ, old, new mode)).  ``dense``, ``works``: ``Stroke.run``'s
    (``works=False``: the signed works NaN at τ = T, for a stroke map that reads only q, q̇)."""
    stroke = Stroke(model, settings.stabilization, settings.integrator, settings.compiled,
                    budget=settings.budget, stroke_number=k + 1, systems=skating.systems(model),
                    reduced=settings.reduced)
    y0 = np.concatenate([q, qd, np.zeros(len(model.extra_states))])
    segments, y_end, events = stroke.run(y0, skating.stroke_time, dense, works)
    return stroke, y0, segments, y_end, events


def tabulate_stroke(skating: Skating, settings: RunSettings, k: int, model, stroke, y0, segments, y_end, events,
                    change, tables: RunTables) -> None:
    """Append stroke k's frame, its strokes row and its friction switches to ``tables``."""
    T = skating.stroke_time
    tables.nfev += stroke.nfev
    tables.n_projections += stroke.n_projections
    tables.events += [dict(stroke=k + 1, tau=te, t=k * T + te, mode_before=a, mode_after=b) for te, a, b in events]
    frame = stroke_columns(model, stroke, segments, settings.grid, y_end, k + 1, k * T)
    tables.frames.append(frame)
    row = stroke_summary(skating, k, model, y0, y_end, frame)
    row.update(skating.summary(k, model, y0, y_end, frame, change))
    if isinstance(model, Poled):
        row.update(pole_summary(model, stroke, y0, y_end, frame, T))
        if model.poled:  # the skier's mechanical power: the drivers' and the arms' on the poles
            row["mean_power"] += row["mean_pole_power"]
    row.update(cost_columns(skating, model, y_end))
    row.update(physiology_columns(skating, model, y_end, frame))
    tables.strokes.append(row)
    tables.models.append(model)


class _NoBar:
    """What ``progress_bar`` gives when it shows nothing."""

    def update(self, n=1):
        pass

    def set_postfix_str(self, s=""):
        pass

    def close(self):
        pass


def progress_bar(total: int, desc: str, unit: str, enabled: bool):
    """A tqdm progress bar on stderr (``total`` steps of ``unit``), or one that shows nothing
    when not ``enabled`` or tqdm is not installed."""
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, mininterval=0.5, dynamic_ncols=True)


def run_strokes(skating: Skating, settings: RunSettings, *, strokes: int, v0: float,
                progress: bool = False) -> RunTables:
    """``strokes`` strokes of ``skating``: the first from ``skating.start(v0)``, each next one
    from the model's touch-down after the last; ``strokes`` an integer >= 1, ``v0`` a finite
    speed [m/s].  ``progress``: show a bar on stderr (strokes done, the last one's mean speed
    in m/s).  A model with ``overlap_tables`` and compiled systems has each stroke tabulated in a
    second thread while the next is integrated (the module docstring; the same tables)."""
    strokes = check_number("strokes", strokes, integer=True, positive=True)
    v0 = check_number("v0", v0, unit="m/s")
    progress = check_bool("progress", progress)
    if not isinstance(settings, RunSettings):
        raise ValueError(f"settings: must be a RunSettings, got {settings!r}")
    tables = RunTables([], [], [], [], [])
    settings.budget.start()
    bar = progress_bar(strokes, "strokes", "stroke", progress)
    # only where the steps can run in C (``Stroke.in_c``): steps in Python would hold the lock, and
    # so does a quadrature's arithmetic (``reduced``: two threads of NumPy calls measured 1.2× the
    # time of one)
    overlap = (skating.overlap_tables and strokes > 1 and settings.compiled and not settings.reduced
               and settings.integrator.method == "DOP853" and not settings.stabilization.projects)
    # one worker per run: nothing outlives the run (a forked process or a nested run has its own)
    with ThreadPoolExecutor(1, thread_name_prefix="skilib-tables") if overlap else nullcontext() as pool:
        pending = None

        def shown():  # the bar after a stroke's row is in
            bar.set_postfix_str(f"mean speed {tables.strokes[-1]['mean_speed']:.3f} m/s")
            bar.update(1)

        def tabulated():  # wait for the stroke handed over last (its error, if any, is raised here)
            nonlocal pending
            if pending is not None:
                done, pending = pending, None
                done.result()
                shown()

        model, q, qd = skating.start(v0)
        change = None
        for k in range(strokes):
            try:
                stroke, y0, segments, y_end, events = integrate_stroke(skating, settings, k, model, q, qd)
            except BaseException:
                tabulated()  # the stroke before: its error first, as the sequential loop raises it
                raise
            tabulated()
            tabulate = functools.partial(tabulate_stroke, skating, settings, k, model, stroke, y0, segments, y_end,
                                         events, change, tables)
            q, qd = y_end[: model.nq], y_end[model.nq: 2 * model.nq]
            if pool is None:
                tabulate()
                shown()
            if k + 1 < strokes:
                try:
                    model, q, qd, change = skating.touch_down(k + 1, model, q, qd)
                except BaseException:
                    if pool is not None:  # stroke k's tables (and their error) come first
                        tabulate()
                    raise
                tables.changes.append(change)
            if pool is not None:
                pending = pool.submit(tabulate)
        tabulated()
    bar.close()
    return tables
