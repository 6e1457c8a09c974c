"""The periodic stroke by collocation: one mirrored stroke, its touch-down and its technique in one
nonlinear program, solved by IPOPT with CasADi's exact derivatives (the book's chapter "Optimal
control").

A skating model supplies a *stroke adapter* (the free skater's: ``skilib.models.free.collocation``)
that states its stroke once, symbolically: its system's CasADi terms with the laws as controls
(``skilib.engine.controls``), the laws' values as expressions of the technique's parameters, how
the period closes (the touch-down of the other ski, mirrored back onto this side), the speed,
the power, and what a ski and a leg can do (inequality rows).  ``collocate_stroke`` then builds

    maximise    v(x, z)                       (the progress speed, ΔX_B / T)
    subject to  the collocated stroke z (``skilib.ocp.collocation.HermiteSimpson``),
                the touch-down closing the period,
                P(x, z) = P_budget              (the mean power; omitted without a budget),
                g(x, z) ≥ 0                     (the model's admissibility),
                x within its bounds

over the technique x (the parameters in ``bounds``; the others fixed at ``x0``/the params) and
every variable z of the mesh.  With no parameter free the program is square: the periodic stroke
of one technique, the collocation's counterpart of the shooting steady state.

Every solution is re-simulated by the model's own simulator (the shooting steady state at the
technique found, from the collocated touch-down speed): the speed and the power must agree with
the collocated ones within ``resimulation_tol`` (relative).  If they do not, the mesh is doubled
and the program solved again from the last solution, up to ``max_nodes``; the result says how
far apart they were (``resimulation_error``) and whether the tolerance was met.

A program IPOPT does not solve (infeasible caps, a budget no technique reaches, too few
iterations) is never reported as an optimum: the result has ``success=False``, IPOPT's return
status and the largest constraint violation at its last iterate.
"""
from __future__ import annotations

import contextlib
import contextvars
import ctypes
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..engine.codegen.casadi_terms import require_casadi
from ..engine.validation import check_bool, check_number
from ..physiology.force_velocity import limits_of
from .adapter import SkiStroke
from . import collocation
from .collocation import HermiteSimpson
from . import compiled, hessian

__all__ = ["collocate_stroke", "StrokeSolution", "IPOPT_OPTIONS", "IPOPT_ALLOWED", "check_ipopt", "BUDGETS", "PowerBudget", "MeshProgram", "regrid",
           "resimulation_error", "check_budget", "one_blas_thread", "ipopt_progress", "prepare_stroke", "program_built",
           "programs_built", "ipopt_bar"]

#: what a budget counts (as ``skilib.studies.optimum.BUDGETS``): the model's net mean power (its
#: ``work`` over T: the free skater's leg), the actuators' positive work per time, or their
#: metabolic power Σ(W⁺/η⁺ + |W⁻|/η⁻)/T, or the whole physiological cost (``skilib.physiology``)
BUDGETS = ("net", "positive", "metabolic", "physiological")

#: IPOPT's options (tol: the scaled KKT error; one thread, MUMPS), quiet.  MUMPS orders the KKT
#: matrix by approximate minimum degree (``mumps_pivot_order`` 0, AMD) rather than its automatic
#: choice (7): measured on two cores, the edged skater's least power for 6 m/s 12.1–12.6 s → 9.4–9.8 s,
#: free control at 600 W 15.9 → 13.9 s, the same optima to IPOPT's tolerance (the power 4e-13 apart,
#: the speed 1.5e-11); 7 is the reference, an ``ipopt=`` key like the others
IPOPT_OPTIONS = {"print_level": 0, "tol": 1e-10, "acceptable_tol": 1e-8, "max_iter": 500, "sb": "yes",
                 "mumps_pivot_order": 0}
#: IPOPT's settings for a start from a neighbouring question's solution (``collocate_stroke(warm=)``):
#: its primal-dual point taken as it is (IPOPT's warm start, the point and multipliers pushed off
#: their bounds by no more than 1e-9) and the barrier parameter started at 1e-8, about where that
#: solve ended (its tol 1e-10), not at IPOPT's 0.1, which would first pull the point back into the
#: interior.  Measured on the edged skater's least power, 6.0 → 5.8 m/s: 6 iterations against 24–33
#: from a cold start, or 25 from the neighbour's trajectory as a first guess alone.
WARM_IPOPT = {"warm_start_init_point": "yes", "mu_init": 1e-8, "warm_start_bound_push": 1e-9,
              "warm_start_mult_bound_push": 1e-9, "warm_start_slack_bound_push": 1e-9}

#: the IPOPT options an ``ipopt=`` dict may set, with what each takes: ("int", low, high),
#: ("real", low (excluded), high) or a tuple of the words allowed.  Those skilib sets
#: (``IPOPT_OPTIONS``, ``skilib.ocp.control.CONTROL_IPOPT``) and the usual termination, output
#: and barrier settings; any other key is refused by name (IPOPT would stop inside CasADi).
IPOPT_ALLOWED = {
    "max_iter": ("int", 0, None), "acceptable_iter": ("int", 0, None), "print_level": ("int", 0, 12),
    "print_frequency_iter": ("int", 1, None), "mumps_scaling": ("int", -2, 77), "mumps_pivot_order": ("int", 0, 7),
    "tol": ("real", 0.0, None), "acceptable_tol": ("real", 0.0, None), "constr_viol_tol": ("real", 0.0, None),
    "dual_inf_tol": ("real", 0.0, None), "compl_inf_tol": ("real", 0.0, None), "mu_init": ("real", 0.0, None),
    "max_cpu_time": ("real", 0.0, None), "max_wall_time": ("real", 0.0, None), "bound_push": ("real", 0.0, 0.5),
    "bound_frac": ("real", 0.0, 0.5),
    "sb": ("yes", "no"), "mu_strategy": ("monotone", "adaptive"), "warm_start_init_point": ("yes", "no"),
    "hessian_approximation": ("exact", "limited-memory"),
    "nlp_scaling_method": ("none", "user-scaling", "gradient-based", "equilibration-based"),
    "linear_solver": ("mumps", "ma27", "ma57", "ma77", "ma86", "ma97", "pardiso", "spral"),
}


def check_ipopt(ipopt) -> dict:
    """``ipopt`` (None or a dict of IPOPT options) checked against ``IPOPT_ALLOWED``: a
    ValueError naming ``ipopt`` and the key for an unknown key or a value of the wrong kind or
    range, before IPOPT runs.  Returns a copy ({} for None)."""
    if ipopt is None:
        return {}
    if not isinstance(ipopt, dict):
        raise ValueError(f"ipopt: must be None or a dict of IPOPT options, got {ipopt!r}")
    for k, v in ipopt.items():
        spec = IPOPT_ALLOWED.get(k)
        if spec is None:
            raise ValueError(f"ipopt: {k!r} is not an IPOPT option skilib passes on; allowed: "
                             f"{', '.join(sorted(IPOPT_ALLOWED))}")
        if spec[0] == "int":
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise ValueError(f"ipopt: {k} must be an integer, got {v!r}")
            check_number(f"ipopt: {k}", int(v), low=spec[1], high=spec[2])
        elif spec[0] == "real":
            check_number(f"ipopt: {k}", v, positive=True, high=spec[2])
        elif v not in spec:
            raise ValueError(f"ipopt: {k} must be one of {spec}, got {v!r}")
    return dict(ipopt)


@dataclass
class StrokeSolution:
    """One collocated periodic stroke (``collocate_stroke``).

    - x : the technique {name: value}, every law parameter (the free ones at their optimum).
    - params : the model's parameters at x.
    - progress_speed [m/s], mean_power [W] (the net: the free skater's leg), budget_power [W]
      (what ``budget`` counts), u0 [m/s] (the ski's speed after touch-down), stroke_time [s]: the
      collocated values; complementarity : max min(p⁺, p⁻) of the budget's split [W] (``PowerBudget``).
    - success : IPOPT solved it (``status``) and the re-simulation agrees (``resimulated``).
    - status : IPOPT's return status; iterations; max_violation : the largest constraint
      residual at the last iterate; solve_time [s] (all meshes).
    - nodes : the mesh's intervals of the last solve; max_slack : the rows' slack there.
    - resimulated : {progress_speed, mean_power, u0} of the model's own simulator at x;
      resimulation_error : the largest relative difference of speed and power; resimulation_ok.
    - trajectory : {tau, q, v, a, lam, u} over the knots and midpoints (``HermiteSimpson.solution``).
    - meshes : one row per solve (nodes, status, iterations, speed, power, error, time).
    - force_velocity_margin : with a ``force_velocity`` limit, the least F_max(ℓ̇) − F over the
      knots and midpoints [body weights] (a row ≥ 0 of the program; 0 where it binds); NaN without.
    - warm_point : the last program's key and IPOPT's primal-dual point at its end (x, lam_x,
      lam_g): what ``collocate_stroke(warm=)`` starts a neighbouring question from.
    """

    x: dict
    params: object
    progress_speed: float
    mean_power: float
    u0: float
    stroke_time: float
    success: bool
    status: str
    iterations: int
    max_violation: float
    solve_time: float
    nodes: int
    max_slack: float
    budget: str
    power: float | None
    resimulated: dict = field(default_factory=dict)
    resimulation_error: float = math.nan
    resimulation_ok: bool = False
    trajectory: dict = field(default_factory=dict, repr=False)
    meshes: list = field(default_factory=list, repr=False)
    peak_leg_force_bw: float = math.nan
    budget_power: float = math.nan
    complementarity: float = math.nan
    force_velocity_margin: float = math.nan
    warm_point: dict = field(default_factory=dict, repr=False)


#: the simulator's column of each budget's power (``skilib.strokes.work``)
RESIMULATED_POWER = {"net": "mean_power", "positive": "mean_positive_power", "metabolic": "metabolic_power",
                     "physiological": "metabolic_total"}


def resimulation_error(res: dict, speed: float, net_power: float, budget_power: float, budget: str) -> float:
    """The largest relative difference between the simulator's progress speed, net power and
    budget power (``res``) and the collocated ones (NaN without a re-simulation)."""
    if not res:
        return math.nan
    errs = [abs(res["progress_speed"] / speed - 1), abs(res["mean_power"] / net_power - 1)]
    if budget != "net":
        errs.append(abs(res[RESIMULATED_POWER[budget]] / budget_power - 1))
    return float(max(errs))


def _check_bounds(adapter, x0: dict, bounds: dict | None) -> dict:
    bounds = {} if bounds is None else bounds
    if not isinstance(bounds, dict):
        raise ValueError(f"bounds: must be a dict name → (low, high), got {bounds!r}")
    out = {}
    for n, b in bounds.items():
        if n not in adapter.law_parameters:
            raise ValueError(f"bounds: {n!r} is not a parameter of the {adapter.name}'s laws; collocation optimises "
                             f"{', '.join(adapter.law_parameters)}")
        if isinstance(b, (str, bytes, dict)) or not hasattr(b, "__len__") or len(b) != 2:
            raise ValueError(f"bounds: {n} must be a pair (low, high), got {b!r}")
        lo, hi = (check_number(f"bounds: {n}", v) for v in b)
        if not lo < hi:
            raise ValueError(f"bounds: {n} must be (low, high) with low < high, got {b!r}")
        if not lo <= x0[n] <= hi:
            raise ValueError(f"bounds: {n}'s start {x0[n]:g} is outside ({lo:g}, {hi:g})")
        out[n] = (lo, hi)
    return out


def _question(adapter, bounds, power, x0, budget, nodes, max_nodes, resimulation_tol, ipopt, force_velocity, speed,
              warm):
    """``collocate_stroke``'s arguments checked (ValueError naming them) and resolved: (the
    technique x0 with the start's values, the checked bounds, the power or speed, "power" or
    "speed", the budget, IPOPT's options, the limit, the re-simulation's tolerance)."""
    ipopt = check_ipopt(ipopt)
    force_velocity = check_limit(force_velocity, adapter)
    start = x0
    if warm is not None:
        if not isinstance(warm, StrokeSolution):
            raise ValueError(f"warm: must be None or a StrokeSolution (a collocated solution), got {type(warm).__name__}")
        if start is None:
            start = {k: warm.x[k] for k in (bounds or {}) if k in warm.x}
    x0 = adapter.technique()
    if start is not None:
        if not isinstance(start, dict):
            raise ValueError(f"x0: must be None or a dict name → value, got {start!r}")
        for k, v in start.items():
            if k not in (bounds or {}):
                raise ValueError(f"x0: {k!r} is not among the free parameters {list(bounds or {})}")
            x0[k] = check_number(f"x0: {k}", v)
    b = _check_bounds(adapter, x0, bounds)
    if power is not None:
        power = check_number("power", power, positive=True, unit="W")
    target = "power"
    if speed is not None:
        if power is not None:
            raise ValueError("speed: give a power budget or a speed to hold, not both")
        if not b:
            raise ValueError("speed: holding a speed needs free parameters (bounds) to choose")
        power, target = check_number("speed", speed, positive=True, unit="m/s"), "speed"
    budget = check_budget(budget)
    for name, v in (("nodes", nodes), ("max_nodes", max_nodes)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 4:
            raise ValueError(f"{name}: must be an integer ≥ 4, got {v!r}")
    if max_nodes < nodes:
        raise ValueError(f"max_nodes: must be ≥ nodes ({nodes}), got {max_nodes}")
    resimulation_tol = check_number("resimulation_tol", resimulation_tol, positive=True)
    if power is None and b:
        raise ValueError("power: a technique with free parameters needs a power budget (the speed rises with the "
                         "power)")
    opts = dict(IPOPT_OPTIONS, **(ipopt or {}))
    return x0, b, power, target, budget, opts, force_velocity, resimulation_tol


def collocate_stroke(adapter, *, bounds: dict | None = None, power: float | None = None, x0: dict | None = None,
                     budget: str = "net", nodes: int = 20, max_nodes: int = 80, resimulation_tol: float = 1e-4,
                     ipopt: dict | None = None, progress: bool = False, force_velocity=None,
                     speed: float | None = None, steady=None, warm: StrokeSolution | None = None) -> StrokeSolution:
    """The periodic stroke of ``adapter`` (the module's docstring), fastest at mean power
    ``power`` [W] over the parameters in ``bounds`` ({name: (low, high)}; none: the stroke of the
    adapter's technique, a square system), on a mesh of ``nodes`` intervals, doubled while the
    re-simulation differs by more than ``resimulation_tol`` (relative), up to ``max_nodes``.

    ``x0`` ({name: value}) starts the free parameters elsewhere than the adapter's technique
    (the first guess is the model's shooting steady state there).  ``speed`` [m/s] instead of
    ``power`` asks the coach's question: the least ``budget`` power over the free parameters that
    holds that progress speed.  ``budget`` (``BUDGETS``:
    "net", "positive", "metabolic", "physiological"; ``PowerBudget``) is what ``power`` counts.  ``ipopt`` adds
    to ``IPOPT_OPTIONS``.  ``force_velocity`` (None, or a ``skilib.physiology.ForceVelocityLimit``):
    the leg's force–velocity margin (``SkiStroke.force_velocity_margin``) is a row ≥ 0 at every
    knot and midpoint, and the solution's least value is reported.  ``progress``: a bar on stderr counting IPOPT's iterations, over every
    mesh solved, with the mesh's intervals (``ipopt_progress``; the result is the same bit for
    bit).  ``steady``: (params, steady state), the shooting stroke at x0 if the caller has it (a
    screen of starts), the first guess instead of computing it again (``same_steady``: used only
    where its parameters are x0's).

    ``warm``: a ``StrokeSolution`` of a neighbouring question (another speed, power or bounds, the
    same adapter's program: the same model structure, mesh, free parameters, budget and limit),
    the first solve started from its primal-dual point (``WARM_IPOPT``; its technique is the start
    unless ``x0`` is given).  Where it is another program's, its trajectory is the first guess
    instead; where the warm solve fails, the mesh is solved again from that guess.  It follows
    the neighbour's optimum: a local optimum elsewhere is found only from other starts.  Each
    mesh's row says whether it was started warm.  ValueError on bad arguments, naming them."""
    progress = check_bool("progress", progress)
    ca = require_casadi()
    x0, b, power, target, budget, opts, force_velocity, resimulation_tol = _question(
        adapter, bounds, power, x0, budget, nodes, max_nodes, resimulation_tol, ipopt, force_velocity, speed, warm)
    guess, meshes, t_all = (None if warm is None else warm.trajectory or None), [], 0.0
    point = None if warm is None else warm.warm_point
    n = int(nodes)
    with ipopt_progress(progress, "collocate_stroke"):
        while True:
            sol = _solve(ca, adapter, x0, b, power, n, opts, guess, budget, force_velocity, target, steady, point)
            t_all += sol["time"]
            res = adapter.resimulate(sol["x"], sol["trajectory"]) if sol["solved"] else {}
            err = resimulation_error(res, sol["speed"], sol["power"], sol["budget_power"], budget)
            meshes.append(dict(nodes=n, status=sol["status"], iterations=sol["iterations"], speed=sol["speed"],
                               power=sol["power"], budget_power=sol["budget_power"], resimulation_error=err,
                               time=sol["time"], warm=sol["warm"]))
            if sol["warm"] and not sol["solved"]:  # the neighbour's point did not lead here: a first guess only
                point = None
                continue
            point = None  # a finer mesh is another program: its first guess is this solution's trajectory
            if not sol["solved"] or err <= resimulation_tol or 2 * n > max_nodes:
                break
            guess, n = sol["trajectory"], 2 * n
            x0 = {**x0, **{k: sol["x"][k] for k in b}}
    ok = bool(sol["solved"] and err <= resimulation_tol)
    return StrokeSolution(budget_power=sol["budget_power"], complementarity=sol["complementarity"],
                          force_velocity_margin=sol["force_velocity_margin"],
                          x=sol["x"], params=adapter.params_at(sol["x"]), progress_speed=sol["speed"],
                          mean_power=sol["power"], u0=sol["u0"], stroke_time=sol["x"]["stroke_time"], success=ok,
                          status=sol["status"], iterations=sol["iterations"], max_violation=sol["violation"],
                          solve_time=t_all, nodes=n, max_slack=sol["max_slack"], budget=budget,
                          power=power if target == "power" else None,
                          resimulated=res, resimulation_error=err, resimulation_ok=bool(err <= resimulation_tol),
                          trajectory=sol["trajectory"], meshes=meshes, peak_leg_force_bw=sol["peak_leg_force_bw"],
                          warm_point=sol["point"])


class PowerBudget:
    """The budgeted energy E of a collocated stroke, constrained E = P T (``BUDGETS``).

    "net": the adapter's ``work`` (the free skater's leg).  "positive" and "metabolic": each
    actuator's power p (``adapter.actuators``, ``adapter.actuator_power``) at the knots and
    midpoints is split p = p⁺ − p⁻ with p± ≥ 0 variables, W± = Simpson(p±), and E = Σ W⁺ or
    Σ (W⁺/η⁺ + W⁻/η⁻).  At a solution the split is complementary (min(p⁺, p⁻) = 0: a budget
    spent on both at once buys nothing), which ``complementarity`` measures; W± then integrate
    max(±p, 0) with an error O(h²) where p changes sign, beside O(h⁴) elsewhere.

    "physiological": the whole cost of ``skilib.physiology.cost`` — the metabolic work with the
    arms' actuators (``adapter.pole_names``) at ``eta_positive_arms``, plus T × (swing(T) + rest)
    (functions of T alone) and c_r R, R the force developed by the pushing leg and each pole
    (``adapter.developed_forces``) over the 2N + 1 points in time order: its first value plus
    Σ max(F_j+1 − F_j, 0), each max a variable D ≥ 0, D ≥ F_j+1 − F_j (tight at a solution, as
    the split is: a budget spent on slack buys nothing; ``complementarity`` includes
    min(D, D − ΔF)).  The shooting model reads the same sum off its output grid with each sampled
    extreme refined to its parabola's vertex; here a peak between two points is missed by O(h²)
    of the force's curvature.

    E is Simpson's sum accumulated interval by interval (``HermiteSimpson.running_integral``),
    so the budget's row stays local; ``work`` (the net work, reported) is the sum itself."""

    def __init__(self, opti, hs, adapter, kind: str):
        ca = require_casadi()
        self.kind, self.parts, self.hs = kind, [], hs
        if kind == "net":
            fs = [hs.one_point(adapter.actuator_power(a)) for a in adapter.net_actuators]
            fk, fm = (sum(hs.point(f, knots=k) for f in fs) for k in (True, False))
            self.work = hs.simpson_rows(fk, fm)  # the same rows, summed: ``adapter.work``
        else:
            self.work = adapter.work(hs)
            eta_p, eta_n = adapter.efficiencies()
            arms = getattr(adapter, "pole_names", ()) if kind == "physiological" else ()
            fk = fm = 0
            for name in adapter.actuators:
                f = hs.one_point(adapter.actuator_power(name))
                pk, pm = hs.point(f, knots=True), hs.point(f, knots=False)
                Pk, Nk = opti.variable(1, hs.N + 1), opti.variable(1, hs.N + 1)
                Pm, Nm = opti.variable(1, hs.N), opti.variable(1, hs.N)
                opti.subject_to(ca.vec(pk - Pk + Nk) == 0)
                opti.subject_to(ca.vec(pm - Pm + Nm) == 0)
                opti.subject_to(ca.vec(ca.horzcat(Pk, Nk, Pm, Nm)) >= 0)
                if kind == "positive":
                    fk, fm = fk + Pk, fm + Pm
                else:
                    eta = adapter.base.eta_positive_arms if name in arms else eta_p
                    fk, fm = fk + Pk / eta + Nk / eta_n, fm + Pm / eta + Nm / eta_n
                self.parts.append((pk, pm, Pk, Nk, Pm, Nm))
        self.rates = (fk, fm)
        self.rises, extra, fixed = [], None, 0
        if kind == "physiological":
            p = adapter.base
            T = hs.T
            fixed = 2 * p.body_mass * (p.swing_cost_a * T + p.swing_cost_b / (16 * T**3)) + p.body_mass * p.resting_rate * T
            extra = 0
            for Fk, Fm in adapter.developed_forces(hs):
                # the rises knot → midpoint and midpoint → next knot, each max(ΔF, 0) a variable
                D1, D2 = opti.variable(1, hs.N), opti.variable(1, hs.N)
                d1, d2 = Fm - Fk[:, :-1], Fk[:, 1:] - Fm
                opti.subject_to(ca.vec(ca.horzcat(D1, D2)) >= 0)
                opti.subject_to(ca.vec(ca.horzcat(D1 - d1, D2 - d2)) >= 0)
                extra = extra + p.force_rate_cost * (D1 + D2)
                fixed = fixed + p.force_rate_cost * Fk[0, 0]
                self.rises.append((d1, d2, D1, D2))
        self.extra = 0 if extra is None else extra
        w_end, self.running = hs.running_integral(fk, fm, extra)
        self.energy = w_end + fixed

    def initial(self, opti, p) -> None:
        """Start the split at max(±p, 0) of the initial guess, and the accumulated energy at the
        guess's running sum."""
        ca = require_casadi()
        for d1, d2, D1, D2 in self.rises:
            f = ca.Function("d", [opti.x, opti.p], [d1, d2])
            v1, v2 = (np.asarray(v, dtype=float) for v in f(opti.debug.value(opti.x, opti.initial()), p))
            opti.set_initial(D1, np.maximum(v1, 0))
            opti.set_initial(D2, np.maximum(v2, 0))
        for pk, pm, Pk, Nk, Pm, Nm in self.parts:
            f = ca.Function("p", [opti.x, opti.p], [pk, pm])
            vk, vm = (np.asarray(v, dtype=float) for v in f(opti.debug.value(opti.x, opti.initial()), p))
            for var, val in ((Pk, np.maximum(vk, 0)), (Nk, np.maximum(-vk, 0)), (Pm, np.maximum(vm, 0)),
                             (Nm, np.maximum(-vm, 0))):
                opti.set_initial(var, val)
        f = ca.Function("w", [opti.x, opti.p], [self.hs.interval_sums(*self.rates) + self.extra])
        dw = np.ravel(np.asarray(f(opti.debug.value(opti.x, opti.initial()), p), dtype=float))
        opti.set_initial(self.running, np.concatenate([[0.0], np.cumsum(dw)]))

    def complementarity(self):
        """max min(p⁺, p⁻) over the actuators and points [W] (0 for "net"); with "physiological"
        also max min(D, D − ΔF) of the force's rises [N]."""
        ca = require_casadi()
        if not self.parts:
            return ca.MX(0)
        return ca.mmax(ca.vertcat(*[ca.vec(ca.fmin(Pk, Nk)) for _, _, Pk, Nk, _, _ in self.parts]
                                  + [ca.vec(ca.fmin(Pm, Nm)) for _, _, _, _, Pm, Nm in self.parts]
                                  + [ca.vec(ca.fmin(D, D - d)) for d1, d2, D1, D2 in self.rises
                                     for d, D in ((d1, D1), (d2, D2))]))


def _least(values) -> float:
    """The least of the finite values (NaN: a limb that does not push there), NaN if none."""
    v = np.ravel(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    return float(v.min()) if v.size else math.nan


def check_limit(limit, adapter):
    """None, or a ``skilib.physiology.ForceVelocityLimit`` for an adapter whose stroke has the
    leg's extension speed; a ValueError naming ``force_velocity`` otherwise."""
    if limit is None:
        return None
    from ..physiology.force_velocity import ForceVelocityLimit, limits_of

    if not isinstance(limit, (ForceVelocityLimit, tuple, list)):
        raise ValueError(f"force_velocity: must be None or a skilib.physiology.ForceVelocityLimit, got "
                         f"{type(limit).__name__}")
    limits = limits_of(limit)
    if type(adapter).leg_push is SkiStroke.leg_push:
        raise ValueError(f"force_velocity: the {adapter.name}'s collocated stroke has no leg extension speed")
    if any(x.limb == "arms" for x in limits) and not adapter.poled:
        raise ValueError(f"force_velocity: the arms' limit needs poles (pole_force_max > 0); the {adapter.name}'s "
                         "stroke here has none")
    return tuple(limits)


def check_budget(budget) -> str:
    if not isinstance(budget, str) or budget not in BUDGETS:
        raise ValueError(f"budget: must be one of {BUDGETS}, got {budget!r}")
    return budget


def one_blas_thread(ca) -> bool:
    """Put the OpenBLAS that CasADi's wheel bundles for IPOPT's MUMPS (loaded with the IPOPT
    plugin) on one thread; True if it was found.

    With its default of one thread per core, MUMPS's dense kernels on this project's programs
    (≈ 10⁴ variables, banded) gain nothing and spin: measured on 2 cores, free control at 100
    intervals spent 109 s of system time in 166 s of IPOPT, and the threads' summation order
    changed the iterates (385 iterations instead of 124 from the same start), so a solve was not
    reproducible.  On one thread IPOPT's path is the same on every run.  The numpy's own BLAS
    is a separate library, untouched.

    The wheel holds the library under several names as copies, not links; only the one already
    loaded is set (RTLD_NOLOAD: a copy opened afresh would be a second, unused OpenBLAS)."""
    found = False
    for path in sorted(Path(ca.__file__).parent.glob("libcasadi-tp-openblas*")):
        try:
            lib = ctypes.CDLL(str(path), mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
            lib.openblas_set_num_threads(1)
        except (OSError, AttributeError):
            continue
        found = True
    return found


#: the bar of the ``progress=True`` call running in this thread (``collocate_stroke``,
#: ``skilib.ocp.control.optimal_control``), or None: each IPOPT iteration of every program solved
#: meanwhile (``MeshProgram.run``) is one step of it
_IPOPT_BAR = contextvars.ContextVar("skilib_ipopt_bar", default=None)


def ipopt_bar():
    """The bar ``ipopt_progress`` opened in this context, or None (work forked to another process
    is not counted on it, so it runs here while a bar is open)."""
    return _IPOPT_BAR.get()


@contextlib.contextmanager
def ipopt_progress(enabled: bool, who: str):
    """While the block runs, a bar on stderr (``skilib.strokes.run.progress_bar``, named ``who``)
    counting the IPOPT iterations of every program solved in this thread, with the program and
    its mesh's intervals beside it; nothing when ``enabled`` is False (a bar already open, an outer
    call's, goes on counting).  It only counts: every program is built with the same iteration
    callback (``MeshProgram.compile``) with a bar or without, so no number depends on it."""
    if not check_bool("progress", enabled):
        yield None
        return
    from ..strokes.run import progress_bar

    bar = progress_bar(None, who, " IPOPT iterations", True)
    token = _IPOPT_BAR.set(bar)
    try:
        yield bar
    finally:
        _IPOPT_BAR.reset(token)
        bar.close()


def _iteration_counter(ca, nx: int, ng: int):
    """A ``casadi.Callback`` for nlpsol's ``iteration_callback`` (IPOPT calls it with the iterate
    at its start, iteration 0, and after each iteration): one step of the bar in ``_IPOPT_BAR``,
    if any, for each iteration after the start (``start()`` before each solve), so that a solve
    adds IPOPT's ``iter_count``.  It reads none of its inputs and always answers 0 (go on); an
    error of the bar is swallowed, since a callback that raises would stop IPOPT."""

    class IterationCounter(ca.Callback):
        def __init__(self):
            ca.Callback.__init__(self)
            self.at_start = True
            self.construct("ipopt_iterations", {})

        def start(self):
            self.at_start = True

        def get_n_in(self):
            return ca.nlpsol_n_out()

        def get_n_out(self):
            return 1

        def get_name_in(self, i):
            return ca.nlpsol_out(i)

        def get_name_out(self, i):
            return "ret"

        def get_sparsity_in(self, i):
            name = ca.nlpsol_out(i)
            if name == "f":
                return ca.Sparsity.scalar()
            if name in ("x", "lam_x"):
                return ca.Sparsity.dense(nx)
            if name in ("g", "lam_g"):
                return ca.Sparsity.dense(ng)
            return ca.Sparsity(0, 0)

        def eval(self, arg):
            bar = _IPOPT_BAR.get()
            if self.at_start:  # iteration 0: the starting point
                self.at_start = False
            elif bar is not None:
                try:
                    bar.update(1)
                except Exception:  # noqa: BLE001 - a bar's failure must not stop the solve
                    pass
            return [0]

    return IterationCounter()


class MeshProgram:
    """A nonlinear program stated in a ``casadi.Opti`` around a ``HermiteSimpson`` mesh ``hs``:
    ``compile`` expands it to CasADi's SX graph once (its exact Jacobian and Hessian) and builds
    IPOPT; ``run`` solves it from the Opti's initial values and returns the mesh's trajectory
    beside the ``extra`` outputs asked for at compile time.  The law-based stroke and the free
    control (``skilib.ocp.control``) are both such programs."""

    def compile(self, name: str, opts: dict, extra: list) -> None:
        ca, opti, hs = self.ca, self.opti, self.hs
        nlp = ca.Function("nlp", [opti.x, opti.p], [opti.f, opti.g]).expand()
        xs, ps = ca.SX.sym("x", opti.x.shape[0]), ca.SX.sym("p", opti.p.shape[0])
        f, g = nlp(xs, ps)
        # every program counts its iterations for a bar (``ipopt_progress``), one open or not: the
        # same solver either way; the callback is kept alive beside it
        self.label, self.counter = name, _iteration_counter(ca, xs.shape[0], g.shape[0])
        self._nlp, self._opts, self._warm_solver = {"x": xs, "p": ps, "f": f, "g": g}, dict(opts), None
        # IPOPT's derivatives from one point's blocks (``skilib.ocp.hessian``), CasADi's where switched off
        cache, exact = {}, opts.get("hessian_approximation", "exact") == "exact"
        if hessian.POINT_JACOBIAN or (hessian.POINT_HESSIAN and exact):
            blocks = hessian.PointDerivatives(ca, opti.x, opti.p, opti.f, opti.g, hs.point_rows)
            if hessian.POINT_JACOBIAN:
                g_fun = ca.Function("nlp_g", [xs, ps], [g])
                cache["nlp_jac_g"] = blocks.jacobian(g_fun)
                cache["nlp_grad"] = blocks.gradient(ca.Function("nlp_f", [xs, ps], [f]), g_fun)
            if hessian.POINT_HESSIAN and exact:
                cache["nlp_hess_l"] = blocks.hessian()
        self.solver = ca.nlpsol(name, "ipopt", self._nlp,
                                {"print_time": False, "error_on_fail": False, "ipopt": opts,
                                 "iteration_callback": self.counter, "cache": cache})
        one_blas_thread(ca)
        self.bounds = ca.Function("bounds", [opti.p], [opti.lbg, opti.ubg])
        self.n_extra = len(extra)
        self.out = ca.Function("out", [opti.x, opti.p],
                               list(extra) + [hs.Q, hs.V, hs.A, hs.L, hs.Qm, hs.Vm, hs.Am, hs.Lm, hs.U, hs.Um,
                                              hs.tau_knots, hs.tau_mid, hs.Mu]
                               + ([hs.G] if hs.G is not None else []))

    def warm_solver(self):
        """IPOPT on the same program started from a neighbouring solution's primal-dual point
        (``WARM_IPOPT``), built when first asked for.  Its derivatives are the cold solver's own
        functions (nlpsol's ``cache``), so it costs no new expansion and evaluates the same
        Jacobian and Hessian."""
        if self._warm_solver is None:
            ca = self.ca
            fns = {n: self.solver.get_function(n) for n in self.solver.get_function()}
            self._warm_solver = ca.nlpsol(f"{self.label}_warm", "ipopt", self._nlp,
                                          {"print_time": False, "error_on_fail": False,
                                           "ipopt": {**self._opts, **WARM_IPOPT}, "cache": fns,
                                           "iteration_callback": self.counter})
        return self._warm_solver

    def run(self, p, warm: dict | None = None) -> dict:
        """Solve from the Opti's initial values with parameters ``p``, or with ``warm`` (a
        ``point``: x, lam_x, lam_g of a solve of this program) from that primal-dual point by the
        ``warm_solver``: {x (the solution vector), extra (the extra outputs, arrays), traj
        (``HermiteSimpson.solution``'s arrays with max_slack), solved, status, iterations,
        violation (the largest constraint residual), time, point (x, lam_x, lam_g at the end)}."""
        opti, N = self.opti, self.hs.N
        lbg, ubg = (np.ravel(np.asarray(v, dtype=float)) for v in self.bounds(p))
        bar = _IPOPT_BAR.get()
        if bar is not None:
            bar.set_postfix_str(f"{self.label} program, {N} intervals{', warm' if warm else ''}")
        self.counter.start()
        if warm is None:
            solver, start = self.solver, dict(x0=opti.debug.value(opti.x, opti.initial()))
        else:
            solver, start = self.warm_solver(), dict(x0=warm["x"], lam_x0=warm["lam_x"], lam_g0=warm["lam_g"])
        t0 = time.perf_counter()
        r = solver(p=p, lbg=lbg, ubg=ubg, **start)
        elapsed = time.perf_counter() - t0
        stats = solver.stats()
        gv = np.ravel(np.asarray(r["g"]))
        out = [np.asarray(v, dtype=float) for v in self.out(r["x"], p)]

        def interleave(k, m):
            z = np.zeros((k.shape[0], 2 * N + 1))
            z[:, 0::2], z[:, 1::2] = k, m
            return z.T

        mesh = out[self.n_extra:]
        Q, V, A, L, Qm, Vm, Am, Lm, U, Um, tk, tm, Mu = mesh[:13]
        slack = [np.abs(Mu).max()] + ([np.abs(mesh[13]).max()] if len(mesh) > 13 else [])
        traj = dict(tau=interleave(tk, tm)[:, 0], q=interleave(Q, Qm), v=interleave(V, Vm), a=interleave(A, Am),
                    lam=interleave(L, Lm), u=interleave(U, Um), max_slack=float(max(slack)))
        return dict(x=r["x"], extra=out[: self.n_extra], traj=traj, solved=bool(stats.get("success", False)),
                    status=str(stats.get("return_status", "unknown")), iterations=int(stats.get("iter_count", -1)),
                    violation=float(np.max(np.concatenate([[0.0], lbg - gv, gv - ubg]))), time=elapsed,
                    point={k: np.ravel(np.asarray(r[k], dtype=float)) for k in ("x", "lam_x", "lam_g")})


class _Program(MeshProgram):
    """One nonlinear program of ``adapter``'s stroke on ``nodes`` intervals with the parameters
    ``free`` set free (scaled to [0, 1] within bounds that are parameters of the program), the
    other law parameters and the budget also parameters: built once (CasADi's expansion to SX and
    its exact Jacobian and Hessian take seconds) and solved for any budget, bounds and fixed
    technique.  ``budget``: whether the power is constrained."""

    def __init__(self, ca, adapter, nodes: int, free: tuple, budget: bool, opts: dict, budget_kind: str = "net",
                 force_velocity=None, target: str = "power"):
        self.ca, self.adapter, self.free, N = ca, adapter, free, nodes
        opti = self.opti = ca.Opti()
        names = adapter.law_parameters
        self.fixed = {k: opti.parameter() for k in names if k not in free}
        self.lo, self.hi = (opti.parameter(len(free)), opti.parameter(len(free))) if free else (None, None)
        self.power = opti.parameter()
        #: the period's own variables (the edged skater's leg length at touch-down), shared by the laws
        self.extra = adapter.period_variables(opti)
        if free:
            # the free parameters lifted, one copy per knot made equal, and the laws' values at the
            # points variables equal to the laws: every equation stays local to its interval, so the
            # program's Jacobian and Hessian are banded (a parameter shared by every point would
            # make their rows dense, and CasADi's derivatives cost grow as N²)
            self.xv = opti.variable(len(free), N + 1)
            opti.subject_to(ca.vec(self.xv[:, 1:] - self.xv[:, :-1]) == 0)
            opti.subject_to(opti.bounded(0, self.xv[:, 0], 1))
            x_knots = {k: (self.lo[free.index(k)] + (self.hi[free.index(k)] - self.lo[free.index(k)])
                           * self.xv[free.index(k), :] if k in free else self.fixed[k]) for k in names}
            x_knots.update(self.extra)
            x_mid = {k: (v[:, :N] if k in free else v) for k, v in x_knots.items()}
            T_knots, T_mid = x_knots["stroke_time"], x_mid["stroke_time"]
            self.Uk, self.Um = opti.variable(adapter.terms.nu, N + 1), opti.variable(adapter.terms.nu, N)
            hs = self.hs = HermiteSimpson(opti, adapter.terms, N, T_mid, controls=(self.Uk, self.Um),
                                          force_scale=adapter.force_scale, mesh=adapter.program_mesh(N, x_mid))
            opti.subject_to(ca.vec(self.Uk - adapter.controls(x_knots, hs.tau_knots, T_knots)) == 0)
            opti.subject_to(ca.vec(self.Um - adapter.controls(x_mid, hs.tau_mid, T_mid)) == 0)
            x = {k: (v[0, 0] if k in free else v) for k, v in x_knots.items()}
        else:
            self.xv = None
            x = {**self.fixed, **self.extra}
            T = x["stroke_time"]
            hs = self.hs = HermiteSimpson(opti, adapter.terms, N, T, controls=lambda tau: adapter.controls(x, tau, T),
                                          force_scale=adapter.force_scale, mesh=adapter.program_mesh(N, x))
        adapter.close_period(opti, hs, x)
        speed = adapter.progress_speed(hs)
        self.budget = PowerBudget(opti, hs, adapter, budget_kind)
        mean_power, budget_power = self.budget.work / hs.T, self.budget.energy / hs.T
        if budget and target == "speed":  # the coach's question: the speed held (``power`` is the target speed)
            opti.subject_to((speed - self.power) / self.power == 0)
        elif budget:  # E = P T: linear in T, so T's row of the Hessian stays sparse
            opti.subject_to((self.budget.energy - self.power * hs.T) / self.power == 0)
        # a row of the technique alone (every parameter fixed) is checked before solving
        self.fixed_rows = {}
        for name, g in adapter.admissibility(hs, x).items():
            if ca.depends_on(g, opti.x):
                opti.subject_to(g >= 0)
            else:
                self.fixed_rows[name] = ca.Function(name, [opti.p], [g])
        margin = ca.MX.nan(1, 2 * N + 1)
        if force_velocity is not None:  # what each limb can push at the speed it extends, at every point
            per_point = []
            for limit in limits_of(force_velocity):
                rows, at = adapter.force_velocity_margin(hs, limit)
                opti.subject_to(ca.vec(rows) >= 0)
                per_point.append(at)
            margin = ca.vertcat(*per_point)
        if free and target == "speed":
            opti.minimize(budget_power / adapter.force_scale)  # the least power [W], scaled near 1
        elif free:
            opti.minimize(-speed)
        elif budget_kind != "net":
            # the stroke is fixed, but the split p = p⁺ − p⁻ (and each rise's variable D) may sit
            # anywhere above max(±p, 0) (max(ΔF, 0)): the least energy puts every one on it, so the
            # budget's power is the stroke's own (with objective 0 the split was left where IPOPT's
            # iterations ended: the free skater's metabolic 927 W against its 332 W)
            opti.minimize(self.budget.energy / adapter.force_scale)
        else:
            opti.minimize(0)
        self.x = x
        self.compile("stroke", opts, [speed, mean_power, ca.vertcat(*(x[k] for k in names)), budget_power,
                                      self.budget.complementarity(),
                                      # a leading 0: the output is never empty (the free skater has no extra)
                                      ca.vertcat(ca.MX(0.0), *self.extra.values()), margin])

    def parameters(self, x0: dict, bounds: dict, power) -> list:
        """The program's parameter vector, in Opti's order: fixed values, lows, highs, power."""
        opti = self.opti
        for k, par in self.fixed.items():
            opti.set_value(par, x0[k])
        if self.free:
            opti.set_value(self.lo, [bounds[k][0] for k in self.free])
            opti.set_value(self.hi, [bounds[k][1] for k in self.free])
        opti.set_value(self.power, 1.0 if power is None else power)
        return opti.debug.value(opti.p, opti.value_parameters())

    def initial(self, x0: dict, bounds: dict, guess: dict) -> np.ndarray:
        opti, hs = self.opti, self.hs
        extra = guess.get("extra", {})
        for k, var in self.extra.items():
            opti.set_initial(var, extra[k])
        if self.free:
            N = hs.N
            col = np.array([(x0[k] - bounds[k][0]) / (bounds[k][1] - bounds[k][0]) for k in self.free])
            opti.set_initial(self.xv, np.repeat(col[:, None], N + 1, axis=1))
            T, xe = x0["stroke_time"], {**x0, **extra}
            tau = hs.mesh.times(T)
            opti.set_initial(self.Uk, self.adapter.controls(xe, self.ca.DM(tau[0::2]).T, T))
            opti.set_initial(self.Um, self.adapter.controls(xe, self.ca.DM(tau[1::2]).T, T))
        hs.initial(guess)
        return opti.debug.value(opti.x, opti.initial())

    def solve(self, x0: dict, bounds: dict, power, guess: dict | None, warm: dict | None = None) -> dict:
        """Solve with the technique ``x0`` (the fixed parameters' values; the free ones' start),
        the ``bounds`` and the ``power`` (or speed) asked, from ``guess`` (a trajectory) or, with
        ``warm``, from a solve's primal-dual point (``run``)."""
        ca, hs = self.ca, self.hs
        p = self.parameters(x0, bounds, power)
        for name, f in self.fixed_rows.items():
            low = float(np.min(np.asarray(f(p))))
            if low < 0:
                raise ValueError(f"{name}: falls to {low:.6g} (it must stay ≥ 0) for the technique "
                                 f"{ {k: x0[k] for k in self.fixed} }: the {self.adapter.name} cannot skate it")
        if warm is None:
            self.initial(x0, bounds, guess)
            self.budget.initial(self.opti, p)
        r = self.run(p, warm)
        speed, mean_power, xval, budget_power, complementarity, extra, margin = r["extra"]
        # IPOPT relaxes bounds by 1e-8 (bound_relax_factor): a free parameter may end that far
        # outside its range, and is put back on it
        xs = dict(zip(self.adapter.law_parameters, map(float, np.ravel(xval))))
        for k in self.free:
            xs[k] = min(max(xs[k], bounds[k][0]), bounds[k][1])
        traj = r["traj"]
        traj["T"] = xs["stroke_time"]
        traj["extra"] = dict(zip(self.extra, map(float, np.ravel(extra)[1:])))
        # the margin at each point in the trajectory's order (knots and midpoints interleaved)
        # the least margin over the limbs at each point, in time order (NaN where none pushes)
        margin = np.atleast_2d(np.asarray(margin, dtype=float))
        with np.errstate(invalid="ignore"):
            traj["force_velocity_margin"] = np.array([_least(c) for c in margin.T])
        return dict(x=xs, speed=speed.item(), power=mean_power.item(), budget_power=budget_power.item(),
                    complementarity=complementarity.item(), force_velocity_margin=_least(margin),
                    u0=self.adapter.u0(traj), solved=r["solved"],
                    status=r["status"], iterations=r["iterations"], violation=r["violation"], time=r["time"],
                    trajectory=traj, max_slack=traj["max_slack"], peak_leg_force_bw=self.adapter.peak_leg_force_bw(traj),
                    point=r["point"])


#: the programs built, by the adapter's structure (``structure_key``: everything its program bakes
#: in), the mesh, the free parameters, whether the power is budgeted and IPOPT's options
_PROGRAMS: dict = {}


def _program(ca, adapter, bounds, power, nodes, opts, budget_kind, force_velocity, target):
    """(key, program): the program of ``adapter``'s stroke on ``nodes`` intervals with ``bounds``'
    parameters free, built if this process has not built it (``_PROGRAMS``)."""
    key = _key(adapter, bounds, power, nodes, opts, budget_kind, force_velocity, target)
    if key not in _PROGRAMS:
        _PROGRAMS[key] = _Program(ca, adapter, nodes, key[2], key[3], opts, budget_kind, force_velocity, target)
    return key, _PROGRAMS[key]


def _key(adapter, bounds, power, nodes, opts, budget_kind, force_velocity, target) -> tuple:
    """The key of a program in ``_PROGRAMS``: the adapter's structure (``program_key``: everything
    its program bakes in), the mesh, the free parameters, whether the power is budgeted, IPOPT's
    options, the budget, the limit and the question."""
    free = tuple(bounds)
    return (adapter.program_key(nodes), nodes, free, power is not None and bool(free), tuple(sorted(opts.items())),
            budget_kind, force_velocity, target, collocation.SEPARATED, hessian.POINT_HESSIAN,
            hessian.POINT_JACOBIAN, compiled.COMPILED)


def prepare_stroke(adapter, *, bounds: dict | None = None, power: float | None = None, budget: str = "net",
                   nodes: int = 20, ipopt: dict | None = None, force_velocity=None, speed: float | None = None,
                   x0: dict | None = None) -> bool:
    """Build the program ``collocate_stroke`` with these arguments solves first (on ``nodes``
    intervals), without solving it: whether it had to be built (False where this process has
    it).  The arguments are checked as ``collocate_stroke`` checks them (the program does not
    depend on ``x0``, the start, which must lie within ``bounds``).  A caller with other
    work to do first (a screen of starts) builds the program beside it
    (``skilib.studies.beside``)."""
    ca = require_casadi()
    x0, b, power, target, budget, opts, force_velocity, _ = _question(
        adapter, bounds, power, x0, budget, nodes, nodes, 1.0, ipopt, force_velocity, speed, None)
    n = len(_PROGRAMS)
    _program(ca, adapter, b, power, int(nodes), opts, budget, force_velocity, target)
    return len(_PROGRAMS) > n


def programs_built() -> bool:
    """Whether this process has built any collocated stroke's program (a fresh one has none:
    asking ``program_built`` there need not trace a model)."""
    return bool(_PROGRAMS)


def program_built(adapter, *, bounds: dict | None = None, power: float | None = None, budget: str = "net",
                  nodes: int = 20, ipopt: dict | None = None, force_velocity=None, speed: float | None = None,
                  x0: dict | None = None) -> bool:
    """Whether this process has built the program ``prepare_stroke`` with these arguments builds."""
    x0, b, power, target, budget, opts, force_velocity, _ = _question(
        adapter, bounds, power, x0, budget, nodes, nodes, 1.0, ipopt, force_velocity, speed, None)
    return _key(adapter, b, power, int(nodes), opts, budget, force_velocity, target) in _PROGRAMS


def _solve(ca, adapter, x0, bounds, power, nodes, opts, guess, budget_kind="net", force_velocity=None,
           target="power", steady=None, warm=None) -> dict:
    """One nonlinear program on ``nodes`` intervals (built once per structure, mesh, free
    parameters and budget: ``_PROGRAMS``); returns its numbers, solved or not, and its ``point``
    with the program's key.  ``warm``: a solution's ``warm_point``; used (IPOPT from that
    primal-dual point) where it is this program's, else ignored."""
    key, program = _program(ca, adapter, bounds, power, nodes, opts, budget_kind, force_velocity, target)
    if warm and _same_program(warm.get("key"), key):
        out = program.solve(x0, bounds, power, None, warm)
        out["warm"] = True
    else:
        first = adapter.guess(x0, nodes, steady) if guess is None else regrid(guess, adapter.guess_mesh(nodes, adapter.params_at(x0)))
        out = program.solve(x0, bounds, power, first)
        out["warm"] = False
    out["point"]["key"] = key
    return out


def _same_program(a, b) -> bool:
    """Whether two programs' keys (``_solve``) are the same program (False where they cannot even
    be compared)."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # a key holding arrays: compared element by element
        return False


def regrid(traj: dict, mesh) -> dict:
    """A solution's arrays interpolated, in τ/T, onto the knots and midpoints of ``mesh`` (a
    ``skilib.ocp.mesh.PhasedMesh``, at the solution's stroke time): the next mesh's first guess.
    Phased meshes with the same breaks keep each point in its phase."""
    s_old = traj["tau"] / traj["T"]
    s_new = mesh.times(traj["T"]) / traj["T"]
    out = {k: np.column_stack([np.interp(s_new, s_old, col) for col in np.asarray(traj[k]).T])
           for k in ("q", "v", "a", "lam", "u") if k in traj}
    out["s"] = s_new
    out["extra"] = dict(traj.get("extra", {}))  # the period's own variables (``SkiStroke.period_variables``)
    return out
