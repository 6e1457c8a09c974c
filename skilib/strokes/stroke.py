"""The integration of one stroke τ ∈ [0, T] of the thesis's skier, with friction at zero speed.

The ski feels Coulomb friction of constant magnitude μ (table 8 mean) along its axis,
opposing its velocity.  At ṡ = 0 the friction takes whatever value in [−μ, μ] keeps the ski
at rest (static = kinetic magnitude), so friction alone never drives the ski backwards.  This
is integrated exactly, as a hybrid system, not regularised: sliding forwards (friction −μe),
sliding backwards (+μe) and stuck (one more constraint row, (R¹ − P − s* e)·e = 0, whose
multiplier is the static friction force).  A sliding segment ends at the event ṡ = 0; the
next mode is the one whose acceleration is consistent (slide in the direction of the net
driving force if it exceeds μ, else stick).  A stuck segment ends when the needed friction
reaches μ.  The events are located by ``solve_ivp``, also with projection (``ProjectedRK``); a
compiled segment the loop in C can take (``Stroke.in_c``: the sliding segments of every skater,
with Baumgarte's terms) is stepped there with SciPy's steps, and its events located the same way.

The machinery serves any skier model with one ski on the snow (the thesis's skier, the free
skater).  A model gives: ``nq``; ``system(mode, anchor=None)`` (mode ±1 sliding, 0 stuck at
``anchor``); ``rows(system)`` (an object with ``model`` (row indices of the model itself),
``stick`` (the stick rows' slice or None), ``cm`` (index of the centre of mass's x in q) and
``stick_index()``); ``work_terms(rows)`` (``WorkLedger`` terms) and ``extra_states``;
``ski_speed(tau, q, qd)``, ``ski_acceleration(tau, q, qd, qdd)``, ``stick_anchor(tau, q)`` and
``friction_limit(tau)`` (the largest friction force; 0 = frictionless).
"""
from __future__ import annotations

import math
import time
from typing import Callable, NamedTuple

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from ..engine.codegen import compile_system
from ..engine.codegen.stepper import StepperFailure, dop853_steps, why_not
from ..engine.errors import BudgetExceededError, IntegrationError
from ..engine.integrators import ProjectedRK, signed_method
from ..engine.options import Integrator, Stabilization
from ..engine.projection import Projector
from ..engine.validation import check_bool, check_number
from .quadrature import NotReducible, quadrature_segment
from .work import WorkLedger

__all__ = ["Segment", "Stroke", "Budget", "CallBudget", "stroke_rhs", "MAX_STEP_DIVISOR", "DEFAULT_MAX_WALL_TIME"]

#: the default wall-time budget of one call of a model's run or steady state [s]: a stroke takes
#: ≈ 0.05–2 s, so ten minutes is hundreds to thousands of strokes; a call that takes longer is
#: grinding (None lifts the limit)
DEFAULT_MAX_WALL_TIME = 600.0

_SPEED_EPS = 1e-12  # |ṡ| below this is "at rest" when a stroke starts
_EPS = np.finfo(float).eps  # solve_ivp locates an event to 4 ε
#: the integrator's step is at most T / MAX_STEP_DIVISOR, so that the ski's speed cannot
#: cross zero twice inside one step unseen by the event detection
MAX_STEP_DIVISOR = 50.0


class Budget:
    """A run's work budget: at most ``max_evaluations`` evaluations of eq. 101 and
    ``max_wall_time`` seconds (None: no limit), an integer >= 1 and a time > 0.  ``charge`` is
    called once per evaluation."""

    def __init__(self, max_evaluations: int, max_wall_time: float | None = None):
        max_evaluations = check_number("max_evaluations", max_evaluations, integer=True, positive=True)
        if max_wall_time is not None:
            max_wall_time = check_number("max_wall_time", max_wall_time, positive=True, unit="s")
        self.max_evaluations, self.max_wall_time = int(max_evaluations), max_wall_time
        self.used = 0
        self.t0 = time.perf_counter()
        self.where = ""

    def start(self) -> None:
        self.used, self.t0 = 0, time.perf_counter()

    @property
    def left(self) -> int:
        """Evaluations left before the budget is used."""
        return max(self.max_evaluations - self.used, 0)

    def charge_many(self, tau, count: int) -> None:
        """``count`` evaluations made by compiled code that ended at τ = ``tau`` (it stops at
        ``left``): charged at once, the wall clock checked after them."""
        self.used += int(count) - 1
        self.charge(tau)
        if self.max_wall_time is not None:
            self.check_clock(tau)

    def charge(self, tau) -> None:
        self.used += 1
        if self.used > self.max_evaluations:
            raise BudgetExceededError(
                f"max_evaluations: the run used its budget of {self.max_evaluations} evaluations of eq. 101 "
                f"at {self.where}τ = {float(tau):.6g} s; raise max_evaluations, or check the inputs "
                "(forces, masses, tolerances) that make the integrator take so many steps", budget="max_evaluations")
        if self.max_wall_time is not None and not self.used & 63:
            self.check_clock(tau)

    def check_clock(self, tau) -> None:
        """``BudgetExceededError`` if the run has taken more than ``max_wall_time``."""
        spent = time.perf_counter() - self.t0
        if spent > self.max_wall_time:
            raise BudgetExceededError(
                f"max_wall_time: the run took more than {self.max_wall_time:g} s ({spent:.3g} s) at "
                f"{self.where}τ = {float(tau):.6g} s", budget="max_wall_time")


class CallBudget(Budget):
    """The ``Budget`` with its wall clock running from the call's start: the shared loops call
    ``start`` before a run and before each evaluation of the stroke map, which here restarts only
    the count of evaluations, so that ``max_wall_time`` bounds the whole call (a periodic
    stroke's every evaluation included)."""

    def start(self) -> None:
        self.used = 0


class Segment(NamedTuple):
    """A piece of a stroke in one friction mode."""
    start: float            # τ at its start [s]
    end: float              # τ at its end [s]
    mode: int               # +1 / −1 sliding forwards / backwards, 0 stuck
    s_stick: float | None   # the stuck ski's s [m] (mode 0)
    system: object          # the (compiled) multibody system of the mode
    path: Callable          # y(τ) inside the segment (projected with stabilization='projection')
    rows: object            # the model's rows of this system (``model.rows``)


def stroke_rhs(system, ledger: WorkLedger, cm: int, n: int, n_extra: int, alpha: float, beta: float,
               budget=None, signed=()):
    """dy/dτ for y = [q; q̇; extra states (works, ``INTEGRALS``, projection_energy, signed
    works)], one ``evaluate`` per call (each charged to ``budget``, a ``Budget``, if given).
    ``signed``: (i, jp) per actuator, i its work's row of the ledger, jp and jp + 1 the indices
    in y of its positive and negative parts (rates max(r_i, 0), min(r_i, 0))."""
    W, i3, k, nw = ledger.W, cm, 2 * n, len(ledger.names)
    out = np.zeros(2 * n + n_extra)  # the projection_energy rate stays 0
    evaluate, sqrt = system.evaluate, math.sqrt
    charge = budget.charge if budget is not None else (lambda t: None)

    def rhs(t, y):
        charge(t)
        qd = y[n: k]
        e = evaluate(t, y[:n], qd, alpha, beta)
        out[:n] = qd
        out[n: k] = e.qdd
        r = W @ e.powers
        out[k: k + nw] = r
        for i, jp in signed:
            v = r[i]
            out[jp] = v if v > 0.0 else 0.0
            out[jp + 1] = v if v < 0.0 else 0.0
        vx, vy, vz = qd[i3], qd[i3 + 1], qd[i3 + 2]
        out[k + nw] = sqrt(vx * vx + vy * vy + vz * vz)
        out[k + nw + 1] = abs(vx)
        out[k + nw + 2] = abs(vy)
        return out.copy()

    return rhs


def _signed_columns(model, n: int) -> list:
    """(actuator, jp) for each of ``model``'s actuators: jp and jp + 1 are the indices of its
    positive and negative works in a stroke's y = [q; q̇; extra states] (n coordinates), last
    among the extra states (``signed_method``, ``dop853_steps(signed=)``)."""
    names = model.extra_states
    return [(a, 2 * n + names.index(f"{a}_positive")) for a in getattr(model, "actuators", ())]


class Stroke:
    """Integrates one stroke of ``model`` (see the module docstring) segment by segment."""

    def __init__(self, model, stabilization: Stabilization, integrator: Integrator, compiled: bool,
                 budget: Budget | None = None, stroke_number: int | None = None, systems: dict | None = None,
                 reduced: bool = False):
        self.model = model
        #: the sliding segments by quadrature in the model's one degree of freedom
        #: (``skilib.strokes.quadrature``) instead of the integrator's steps
        self.reduced = check_bool("reduced", reduced)
        self.budget = budget
        if budget is not None and stroke_number is not None:
            budget.where = f"stroke {stroke_number}, "
        self.stab, self.integ = stabilization, integrator
        self.alpha, self.beta = stabilization.alpha, stabilization.beta
        self.compiled = compiled
        self.n = model.nq
        self.nfev = 0
        self.n_projections = 0
        # the compiled systems of modes ±1, built once per stroke, or kept in ``systems`` for the
        # strokes of models whose systems are the same (the free skater's strokes on one side)
        self._sliding = {} if systems is None else systems
        #: the model of the phase being integrated (``run``) and its compiled systems
        self.active, self._phase_systems = model, {}
        #: the phases that ended early, (name, τ) (a pole's contact: ``skilib.strokes.poles``)
        self.phase_ends = []
        #: whether a segment stepped in C splits the signed works (``run(works=)``)
        self.split_works = True

    def system(self, mode, s_stick=None):
        """The (compiled, when asked) multibody system of a friction mode in the current phase."""
        model = self.active
        if not self.compiled:
            return model.system(mode, s_stick)
        if mode == 0:  # a stick row at its own s*: a new system each time (same kernel)
            if hasattr(model, "compiled_system"):
                return model.compiled_system(0, s_stick)
            return compile_system(model.system(mode, s_stick))
        cache = self._sliding if model is self.model else self._phase_systems
        if mode not in cache:  # a model may give its compiled systems itself (one moved from another)
            cache[mode] = (model.compiled_system(mode) if hasattr(model, "compiled_system")
                           else compile_system(model.system(mode)))
        return cache[mode]

    def evaluate(self, system, tau, y):
        n = self.n
        return system.evaluate(tau, y[:n], y[n: 2 * n], self.alpha, self.beta)

    def sdd(self, system, tau, y) -> float:
        n = self.n
        return float(self.model.ski_acceleration(tau, y[:n], y[n: 2 * n], self.evaluate(system, tau, y).qdd))

    def decide_mode(self, tau, y) -> int:
        """Friction mode at ṡ = 0: slide where the net force beats friction, else stick."""
        if self.active.friction_limit(tau) == 0.0:
            return 1 if self.sdd(self.system(1), tau, y) >= 0.0 else -1
        if self.sdd(self.system(1), tau, y) > 0.0:
            return 1
        if self.sdd(self.system(-1), tau, y) < 0.0:
            return -1
        return 0

    def _event(self, system, rows, mode):
        m, n = self.active, self.n
        if mode == 0:
            i_stick = rows.stick_index()

            def ev(t, y):  # the static friction needed reaches its limit
                return m.friction_limit(t) - abs(self.evaluate(system, t, y).lam[i_stick])
            ev.direction = -1
        else:
            def ev(t, y):  # the ski's speed along itself reaches zero
                return m.ski_speed(t, y[:n], y[n: 2 * n])
            ev.direction = -mode
        ev.terminal = True
        return ev

    def segment(self, mode, tau, y, T, dense: bool = True):
        """Integrate one friction mode from (τ, y) to T or to its event (``dense``: keep the
        interpolant y(τ) as the segment's ``path``, else ``path`` is None; the steps, and so y at
        the end and at the event, do not depend on it)."""
        m, n = self.active, self.n
        s_stick = None
        if mode == 0:
            s_stick = m.stick_anchor(tau, y[:n])
            system = self.system(0, s_stick)
            # at rest: with the stick row the system has no freedom left and the velocity
            # equations fix q̇ (they set the ~1e-15 residual ṡ of the event to exactly 0)
            jet = system.constraint_jet(tau, y[:n], y[n: 2 * n])
            y[n: 2 * n] = np.linalg.solve(jet.J, -jet.t)
        else:
            system = self.system(mode)
        rows = m.rows(system)
        ledger = WorkLedger(m.work_terms(rows), self.evaluate(system, tau, y).force_names, system.nc)
        if self.reduced:
            self._check_reducible(system)
            end, path, y_end, hit = quadrature_segment(self, system, rows, ledger, mode, tau, y, T, dense,
                                                       s_stick=s_stick)
            return Segment(tau, end, mode, s_stick, system, path, rows), y_end, hit
        if self.in_c(system, mode):
            return self._segment_in_c(system, rows, ledger, mode, tau, y, T, dense)
        # the actuators' positive and negative works, last among the extra states (``signed_method``)
        names, k = m.extra_states, 2 * n
        columns = _signed_columns(m, n)
        signed = [(ledger.names.index(a), jp) for a, jp in columns]
        rhs = stroke_rhs(system, ledger, rows.cm, n, len(names), self.alpha, self.beta, self.budget, signed)
        ig = self.integ
        method = signed_method(ig.method, k + len(names) - 2 * len(columns),
                               [(k + names.index(a), jp) for a, jp in columns])
        events = [self._event(system, rows, mode)]
        phase_event = m.phase_event(system) if hasattr(m, "phase_event") else None
        if phase_event is not None:  # the phase may end before its time (a pole lifted early)
            events.append(phase_event)
        opts = dict(rtol=ig.rtol, atol=ig.atol, max_step=ig.max_step, dense_output=dense, events=events)
        projector = None
        if self.stab.projects:
            projector = Projector(system, tol=self.stab.projection_tol,
                                  energy_index=2 * n + m.extra_states.index("projection_energy"))
            sol = solve_ivp(rhs, (tau, T), y, method=ProjectedRK, rk=method, project=projector, **opts)
        else:
            sol = solve_ivp(rhs, (tau, T), y, method=method, **opts)
        self.nfev += sol.nfev
        if sol.status == -1:
            raise IntegrationError(f"integration failed at τ={sol.t[-1]:.6g} s: {sol.message}")
        t_end, y_end, hit, path = sol.t[-1], sol.y[:, -1].copy(), sol.status == 1, sol.sol
        if projector is not None:
            if hit:  # the event's state, read from the step's interpolant, onto the constraints
                y_end = projector(t_end, y_end, True)
            self.n_projections += projector.count
            path = projector.path(sol.sol) if dense else None
        if hit and len(sol.t_events) > 1 and sol.t_events[1].size:  # the phase's own event: it ends here
            hit = "phase"
        return Segment(tau, t_end, mode, s_stick, system, path, rows), y_end, hit

    def in_c(self, system, mode) -> bool:
        """Whether this segment is stepped in C (``skilib.engine.codegen.stepper``): a sliding
        segment of a compiled system the stepper takes, with DOP853 and Baumgarte's terms (or
        none), a phase that may end early only by an event linear in y (``linear``: a pole's
        contact), and the ski's speed a constant row of q̇
        (``ski_speed_row``: the thesis skier) or the ski's own axis · its velocity
        (``ski_speed_axis``: a ski whose line turns); otherwise ``solve_ivp`` steps it."""
        m = self.active
        phase = m.phase_event(system) if hasattr(m, "phase_event") else None
        return (self.compiled and mode != 0 and self.integ.method == "DOP853" and not self.stab.projects
                and (phase is None or hasattr(phase, "linear"))
                and (hasattr(m, "ski_speed_row") or hasattr(m, "ski_speed_axis"))
                and why_not(system) is None)

    def _check_reducible(self, system) -> None:
        """``NotReducible`` naming ``reduced`` where a segment cannot be a quadrature
        (``skilib.strokes.quadrature``): a model without a pose path in one coordinate, the
        numeric engine, a system the C points cannot evaluate, a phase that may end early, or
        actuators whose signed works the quadrature does not split."""
        m = self.active
        if not hasattr(m, "one_dof_path"):
            reason = "the model has no pose path in one coordinate"
        elif getattr(m, "one_dof_reason", None) is not None:
            reason = m.one_dof_reason
        elif not self.compiled:
            reason = "it evaluates eq. 101 with the compiled kernel (compiled=True)"
        elif why_not(system) is not None:
            reason = f"the system cannot be evaluated in C: {why_not(system)}"
        elif hasattr(m, "phase_event"):
            reason = "a phase of the stroke may end at an event"
        elif getattr(m, "actuators", ()):
            reason = "the actuators' positive and negative works are not split by the quadrature"
        else:
            return
        raise NotReducible(f"reduced: a segment is not a quadrature here: {reason}")

    def _segment_in_c(self, system, rows, ledger, mode, tau, y, T, dense):
        """``segment`` stepped in C: SciPy's DOP853 steps (``dop853_steps``), the event located on
        the last step's interpolant by ``brentq`` as ``solve_ivp`` locates it."""
        m, n = self.active, self.n
        ev = axis = None
        if hasattr(m, "ski_speed_row"):
            ev = np.zeros(len(y))
            ev[n: 2 * n] = m.ski_speed_row()
        else:
            body, i = m.ski_speed_axis()
            axis = (body, n + i)
        phase = m.phase_event(system) if hasattr(m, "phase_event") else None
        event2 = None if phase is None else (*phase.linear, phase.direction)
        # the actuators' W⁺, W⁻: split as signed_method splits them
        signed = [(ledger.names.index(a), jp) for a, jp in _signed_columns(m, n)]
        ig, budget = self.integ, self.budget
        try:
            run = dop853_steps(system, (tau, T), y, alpha=self.alpha, beta=self.beta, rtol=ig.rtol, atol=ig.atol,
                               max_step=ig.max_step, dense=dense, work_rates=ledger.W, cm=rows.cm, event=ev,
                               event_axis=axis, event_direction=-mode, event2=event2, signed=signed,
                               split=self.split_works,
                               max_eval=budget.left + 1 if budget is not None else 10**12)
        except StepperFailure as exc:
            self.nfev += exc.nfev
            if exc.status == 3 and budget is not None:
                budget.charge_many(exc.t, exc.nfev)
            raise IntegrationError(f"integration failed at τ={exc.t:.6g} s: {exc}") from exc
        self.nfev += run.nfev
        if budget is not None:
            budget.charge_many(run.t[-1], run.nfev)
        t, Y = run.t, run.y
        step, hit = run.event_step(), False
        if step is not None:  # solve_ivp's solve_event_equation, on the event step's interpolant
            events = [(lambda s: m.ski_speed(s, *np.split(step(s)[: 2 * n], 2)), True),
                      (lambda s: phase(s, step(s)), "phase")]
            roots = [(brentq(g, step.t_old, step.t, xtol=4 * _EPS, rtol=4 * _EPS), what)
                     for bit, (g, what) in zip((1, 2), events) if run.which & bit]
            root, hit = min(roots, key=lambda r: r[0])  # the first of them ends the segment, as in solve_ivp
            t, Y = t.copy(), Y.copy()
            t[-1], Y[-1] = root, step(root)
        path = run.solution(t) if dense else None
        return Segment(tau, float(t[-1]), mode, None, system, path, rows), Y[-1].copy(), hit

    def run(self, y0, T, dense: bool = True, works: bool = True):
        """Integrate τ ∈ [0, T] from y0; returns (segments, y(T), events (τ, old, new mode)).
        ``dense=False`` skips the segments' interpolants (``path`` None): for the end state only
        (DOP853's interpolant costs three more evaluations of eq. 101 per step).  ``works=False``
        (with ``dense=False``) leaves the actuators' positive and negative works unsplit where a
        segment is stepped in C (``dop853_steps(split=False)``) and NaN in y(T) on every path:
        a stroke map reads only q, q̇ at the end, which are the same bit for bit.

        A model with ``phases(T)`` ((name, τ_end), …) is integrated phase by phase, the phase
        named None with the model itself and any other with ``model.phase_model(name, τ, q, q̇)``
        built at the phase's start (its own forces: poles in the snow); a phase model's
        ``phase_event(system)`` may end its phase early (recorded in ``phase_ends``).  The
        friction mode carries over from one phase to the next."""
        n, m = self.n, self.model
        works = check_bool("works", works)
        if dense and not works:
            raise ValueError("works: the signed works are left unsplit only without interpolants (dense=False)")
        self.split_works = works
        tau, y = 0.0, np.array(y0, dtype=float)
        phases = m.phases(T) if hasattr(m, "phases") else ((None, T),)
        segments, events, mode = [], [], None
        for name, end in phases:
            if end <= tau and end < T:  # a phase that an earlier one's early end left empty
                continue
            self.active = m if name is None else m.phase_model(name, tau, y[:n], y[n: 2 * n])
            self._phase_systems = {}
            if mode is None:
                sd = m.ski_speed(tau, y[:n], y[n: 2 * n])
                mode = (1 if sd > 0 else -1) if abs(sd) > _SPEED_EPS else self.decide_mode(tau, y)
            tau, y, mode = self._phase(name, tau, y, end, mode, dense, segments, events)
        self.active = m
        if not works:  # not split: no number to read
            for _, jp in _signed_columns(m, n):
                y[jp: jp + 2] = np.nan
        return segments, y, events

    def _phase(self, name, tau, y, end, mode, dense, segments, events):
        """One phase from (τ, y) to ``end``: friction-mode segments appended to ``segments``, the
        switches to ``events``; returns (τ, y, mode) at its end."""
        for _ in range(10000):
            seg, y_end, hit = self.segment(mode, tau, y, end, dense)
            segments.append(seg)
            if hit == "phase":
                self.phase_ends.append((name, seg.end))
                return seg.end, y_end, mode
            if not hit or seg.end >= end:
                return seg.end, y_end, mode
            old = mode
            if mode == 0:  # leave the stuck state in the direction of the net driving force (= λ_stick)
                lam = self.evaluate(seg.system, seg.end, y_end).lam
                mode = 1 if lam[seg.rows.stick_index()] > 0 else -1
            else:  # ṡ = 0: reverse, stick, or (grazing) keep sliding the same way
                mode = self.decide_mode(seg.end, y_end)
            events.append((seg.end, old, mode))
            tau, y = seg.end, y_end
        raise IntegrationError("more than 10000 stick/slip switches in one stroke (Zeno behaviour?)")
