"""Free control: the laws of a stroke as trajectories chosen by the optimizer (the book's chapter
"Optimal control").

Where the law-based optimum (``skilib.ocp.stroke``) chooses a few numbers of prescribed laws,
here each law — for the free skater the ski's heading ψ, the centre of mass's lateral offset h
and its height z; for the edged skater the heading and the leg's length ℓ, with its landing offset
a number of the program — is a C² quintic spline through the mesh's knots
(``skilib.engine.timefunctions.QuinticSpline``), its value, rate and acceleration at every knot
variables of the program.  On each interval the spline is the quintic Hermite interpolant of
its two knots, so the midpoint's values (which the collocation needs) are exact linear
combinations of the knots', and the law's jerk is a quadratic whose square integrates exactly:

    ∫ f‴² dt = Σ_k cₖᵀ G cₖ / h⁵,   G_ij = ∫₀¹ B_i‴ B_j‴ ds,   cₖ = (f_k, h ḟ_k, h² f̈_k, f_k+1, h ḟ_k+1, h² f̈_k+1)

The objective is the progress speed less a smoothness penalty, v − ε Σ_laws (1/T)∫ f‴² dt
(``smoothness`` ε, the laws in rad and m): a penalty on the jerk, not on the mesh, so refining
the mesh cannot buy speed with kinks, and the spline handed to the simulator is the one the
program saw.  The penalty's size is reported in m/s (``penalty``): it must be small beside the
speed (the book states both).

The stroke time is free.  The model's caps (``caps``: the laws' ranges, the heading's rate, the
leg's extension speed, the peak leg force, the reach) are rows ≥ 0 at every knot and midpoint;
which of them bind at the solution is reported (``caps_active``).  The period asks of the laws
what the touch-down needs (``adapter.control_period``; for the free skater: the laws' rates zero
at τ = 0, so the drivers do no impulsive work in the plastic impact, C_t = 0, and the height back
at its start, so the centre of mass does not jump at touch-down — a jump would give it potential
energy that no budget counts).

With poles (``skilib.ocp.poles``) each pole's push is free too: a quintic spline on the control
knots of the contact, zero outside it, 0 at the plant and the lift (rising and falling there),
within [0, ``caps.peak_pole_force``] at every point, its jerk (in body weights) in the penalty.
The mesh then has knots at the plant and the lift, each phase holding whole spline intervals
(``adapter.control_mesh``), and the splines' knots are not evenly spaced.

The budget counts every actuator's work ("positive", "metabolic", or "physiological": the whole
cost, ``skilib.ocp.stroke.PowerBudget``): with the leg's net work alone the optimizer would drive
the stroke with the ski's heading.  A leg's force–velocity limit (``force_velocity``) is a row at
every point.

The program starts from the law-based optimum at the same power (which is inside the caps by
construction of their defaults, so the free control can only gain), and its solution is
re-simulated by the model's simulator with the splines as its laws.  On a mesh with more spline
intervals than ``COARSE_CONTROL_NODES`` (and a multiple of it) the same program on that many
spline intervals, as many collocation intervals per spline interval, is solved first from the
law-based optimum, and its splines start the fine program: they are exactly splines of the finer
knots too (``refine_knots``), so the fine program starts near its optimum and takes its
iterations where each is cheap.  The laws' knots are
coarser than the dynamics' mesh (``control_nodes`` of ``nodes``: each control interval holds
several collocation intervals), so the dynamics see every wiggle a spline can make; with the
laws as fine as the mesh, the program finds strokes whose laws swing between the collocation
points, where no equation looks.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..engine.codegen.casadi_terms import require_casadi
from ..engine.timefunctions import QUINTIC_HERMITE, QuinticSpline, quintic_basis
from ..engine.validation import check_bool, check_number
from . import collocation, compiled, hessian
from .collocation import HermiteSimpson
from .stroke import (IPOPT_OPTIONS, MeshProgram, check_ipopt, check_limit, PowerBudget, StrokeSolution, check_budget, ipopt_progress,
                     ipopt_bar, regrid, resimulation_error)

__all__ = ["optimal_control", "ControlSolution", "jerk_gram", "DEFAULT_SMOOTHNESS", "CONTROL_IPOPT", "refine_knots",
           "coarse_mesh", "COARSE_CONTROL_NODES", "acceleration_bernstein"]

#: ε of the smoothness penalty [m/s per (rad² or m²)/s⁶]: at the free skater's free-control optimum
#: at 600 W metabolic it costs ≈ 0.05 % of the speed (the penalty is reported with every
#: solution), and it makes the solution the mesh's: 40 and 100 intervals give the same speed to
#: 2e-7, where ε = 1e-7 leaves IPOPT 500 iterations short of converging at 80 and 100
DEFAULT_SMOOTHNESS = 1e-6


#: IPOPT's options for free control, over ``IPOPT_OPTIONS``.  The program starts at the law-based
#: optimum, a good start, so the barrier starts small (mu_init; IPOPT's 0.1 first pushes the
#: iterate far from it: the objective wandered to the wrong sign and back); MUMPS without its own
#: scaling (the program's rows are scaled by the force scale and the budget; with MUMPS's scaling
#: 77 the fine solve took 288 iterations); and the scaled KKT error to 3e-9.  Why 3e-9: on the
#: flat ridge of the optimum (the smoothness penalty is the only curvature along it) IPOPT's steps
#: stall where the scaled dual infeasibility is 1.0–1.6e-9, the linear solves' accuracy, not the
#: residual's evaluation (whose rounding is 4e-13 there); a tolerance at that floor makes the
#: iteration count a lottery of rounding: the same program with three exact derivatives that
#: differ only in their last bits (the whole program's, the Hessian from one point's block, both
#: from it) took 53, 34 and 44 iterations at 1e-9, and 24, 25 and 24 at 3e-9 (23 each at 1e-8).
#: The speed at 3e-9 is within 1e-8 (relative) of the speed at 1e-9 (itself the same in the three
#: to 5e-13), a twentieth of the mesh's own error (40 and 100 intervals agree to 2e-7); at 1e-8
#: it is 1e-7 off, half the mesh's error, too close.  Measured on the free skater at 600 W
#: metabolic, 100 intervals, splines on 25, started from its law-based optimum on 20 intervals.
#: Should another processor's floor lie above 3e-9, ``acceptable_tol`` (1e-8, fifteen iterations
#: in a row) still ends the solve, as "Solved_To_Acceptable_Level"
CONTROL_IPOPT = {"tol": 3e-9, "mu_init": 1e-5, "mumps_scaling": 0}


def jerk_gram() -> np.ndarray:
    """G_ij = ∫₀¹ B_i‴(s) B_j‴(s) ds of the quintic Hermite basis (exact, by polynomial
    integration)."""
    C = QUINTIC_HERMITE
    for _ in range(3):
        C = C[:, 1:] * np.arange(1, C.shape[1])
    G = np.zeros((6, 6))
    for i in range(6):
        for j in range(6):
            prod = np.polynomial.polynomial.polymul(C[i], C[j])
            G[i, j] = sum(c / (k + 1) for k, c in enumerate(prod))
    return G


@dataclass
class ControlSolution:
    """A stroke with free control (``optimal_control``).

    - progress_speed [m/s], mean_power [W] (the leg's net), budget_power [W] (what ``budget``
      counts: "positive" or "metabolic", every actuator's), stroke_time [s], u0 [m/s]: the
      solution's; complementarity : the budget split's max min(p⁺, p⁻) [W].
    - penalty : the smoothness term ε Σ (1/T)∫ f‴² dt at the solution [m/s].
    - frame : the push over the stroke, one row per knot and midpoint (``tau``, the laws and
      their rates, the leg force, the snow's load, the ski's speed, the leg's extension speed).
    - law_based : the law-based optimum at the same power (a ``StrokeSolution``, on the model's
      own mesh ``SkiStroke.nodes``, where its speed is within 1e-6 of the shooting optimum's), the
      start; gain : progress_speed − its speed [m/s]; gain_relative.
    - caps : the caps used; caps_active : {cap: {value, cap, active}}: the largest value at the
      solution beside its cap, and whether it binds.
    - status, success, iterations, max_violation, solve_time, nodes, max_slack: as for a
      ``StrokeSolution``; success needs IPOPT's success and the re-simulation's agreement.
    - resimulated, resimulation_error, resimulation_ok: the model's simulator with the
      splines as laws, from the collocated start.
    - laws : the splines (a ``FreeLaws`` or ``EdgeLaws`` of ``QuinticSpline``; with poles their
      ``pole``, the push, a ``skilib.strokes.poles.PolePush``).
    - law_seconds : the law-based start's time [s]; build_seconds : building the program (its
      expansion and exact derivatives; 0 when a program of the same structure, mesh, caps and
      options was built before in this process) [s]; solve_time is IPOPT's.
    - coarse : the coarser mesh's solve that started this one (``coarse_mesh``: nodes,
      control_nodes, iterations, solve_time, speed; fine_status, IPOPT's status of the fine
      program from it; restarted: whether the fine program, not solved from it, was solved again
      from ``law_based``, with fine_iterations and fine_time of the failed solve), or {} (started
      from ``law_based``, on a mesh with no coarser one, or the coarse program not solved).
    - resimulation_refused : the simulator's reason when it refused to run the solution's splines
      (a ValueError's message: e.g. between the program's points the snow's load falls below
      zero), "" otherwise; a refused solution is not a success.
    - force_velocity_margin : with a ``force_velocity`` limit, the least F_max(ℓ̇) − F over the
      knots and midpoints [body weights] (≥ 0, a row of the program); NaN without.
    """

    progress_speed: float
    mean_power: float
    stroke_time: float
    u0: float
    penalty: float
    frame: pd.DataFrame = field(repr=False)
    law_based: StrokeSolution = field(repr=False)
    gain: float = math.nan
    gain_relative: float = math.nan
    caps: object = None
    caps_active: dict = field(default_factory=dict)
    status: str = ""
    success: bool = False
    iterations: int = -1
    max_violation: float = math.nan
    solve_time: float = math.nan
    nodes: int = 0
    max_slack: float = math.nan
    power: float = math.nan
    resimulated: dict = field(default_factory=dict)
    resimulation_error: float = math.nan
    resimulation_ok: bool = False
    laws: object = field(default=None, repr=False)
    trajectory: dict = field(default_factory=dict, repr=False)
    budget: str = "metabolic"
    budget_power: float = math.nan
    complementarity: float = math.nan
    law_seconds: float = math.nan
    build_seconds: float = math.nan
    coarse: dict = field(default_factory=dict)
    resimulation_refused: str = ""
    force_velocity_margin: float = math.nan


class _ControlProgram(MeshProgram):
    """The free-control program of ``adapter`` on ``nodes`` intervals (the module's docstring),
    built once per structure, mesh, caps and smoothness; the power is its parameter.

    The splines' knots are every r-th knot of the dynamics' mesh (r = nodes/control_nodes), whose
    phases (``adapter.control_mesh``: with poles, knots at the plant and the lift) hold whole
    control intervals; each control interval holds r dynamics intervals of one width, so the
    quintic basis at their points is the same fractions of it.  With poles the push of each pole
    is a spline of its own on the control knots of the contact (``adapter.plant`` to
    ``adapter.lift``), zero outside it: it starts and ends at 0 (rising at the plant, falling at
    the lift), stays within [0, ``caps.peak_pole_force``] at every point, and its jerk, in body
    weights, joins the penalty."""

    def __init__(self, ca, adapter, nodes: int, control_nodes: int, caps, smoothness: float, opts: dict, budget: str,
                 T_mesh: float | None = None, force_velocity=None):
        self.ca, self.adapter, N, K = ca, adapter, nodes, control_nodes
        r = self.r = N // K  # dynamics intervals per control interval
        mesh = adapter.control_mesh(K, r, T_mesh)
        opti = self.opti = ca.Opti()
        nl = sum(1 for _, size in adapter.terms.controls if size == 3)  # the laws (f, ḟ, f̈ each)
        self.power = opti.parameter()
        self.Tk = opti.variable(1, N)  # the stroke time, one copy per interval (made equal)
        opti.subject_to(ca.vec(self.Tk[:, 1:] - self.Tk[:, :-1]) == 0)
        lo, hi = caps.stroke_time
        opti.subject_to(opti.bounded(lo, self.Tk[0, 0], hi))
        self.Z = opti.variable(3 * nl, K + 1)  # the splines' (f, ḟ, f̈) at the control knots
        Tc = self.Tk[0, ::r]  # each control interval's copy of T (its first dynamics interval's)
        hc = r * mesh.intervals(self.Tk)[1][0, ::r]  # each control interval's width
        # the basis at the 2r + 1 dynamics points of a control interval (s = j / 2r) and its derivatives
        basis = [[quintic_basis(j / (2 * r), d) for j in range(2 * r + 1)] for d in range(3)]
        knots, mids, jerk, bern = [], [], 0, {}
        for i, (name, _) in enumerate(adapter.terms.controls[:nl]):
            at, J, bern[name] = _spline_points(ca, self.Z[3 * i:3 * i + 3, :], hc, Tc, basis, r)
            jerk = jerk + ca.sum2(J)
            for d in range(3):
                knots.append([at[d][j][:, k] for k in range(K) for j in range(0, 2 * r, 2)] + [at[d][2 * r][:, K - 1]])
                mids.append([at[d][j][:, k] for k in range(K) for j in range(1, 2 * r, 2)])
        self.Zp, self.pole_span = None, None
        rows = {}
        if adapter.poled:
            c0, c1 = mesh.knot(adapter.plant) // r, mesh.knot(adapter.lift) // r
            self.pole_span = (c0, c1)
            # each pole's push (F, Ḟ, F̈) at the contact's control knots; it starts and ends unloaded,
            # F = 0 at the plant and the lift as numbers (an equality would leave rounding's sign to IPOPT)
            self.Fp, self.Dp = opti.variable(1, c1 - c0 - 1), opti.variable(2, c1 - c0 + 1)
            self.Zp = ca.vertcat(ca.horzcat(0, self.Fp, 0), self.Dp)
            scale = adapter.force_scale  # its jerk in body weights
            at, J, _ = _spline_points(ca, self.Zp / scale, hc[:, c0:c1], Tc[:, c0:c1], basis, r)
            jerk = jerk + ca.sum2(J)
            value = [[scale * at[0][j][:, k - c0] if c0 <= k < c1 else 0 * hc[0, k] for j in range(2 * r + 1)]
                     for k in range(K)]
            knots.append([value[k][j] for k in range(K) for j in range(0, 2 * r, 2)] + [0 * hc[0, K - 1]])
            mids.append([value[k][j] for k in range(K) for j in range(1, 2 * r, 2)])
            # rising at the plant and falling at the lift; within its cap
            opti.subject_to(self.Zp[1, 0] >= 0)
            opti.subject_to(self.Zp[1, -1] <= 0)
            inside = ca.horzcat(*[value[k][j] for k in range(c0, c1) for j in range(2 * r + 1)]) / caps.peak_pole_force
            rows.update(pole_force_low=ca.vec(inside), pole_force_high=ca.vec(1 - inside))
        self.Uk = ca.vertcat(*[ca.horzcat(*row) for row in knots])
        self.Um = ca.vertcat(*[ca.horzcat(*row) for row in mids])
        hs = self.hs = HermiteSimpson(opti, adapter.terms, N, self.Tk, controls=(self.Uk, self.Um),
                                      force_scale=adapter.force_scale, mesh=mesh)
        # the stroke's numbers beside the laws that free control chooses too (the edged skater's
        # landing offset; none for the free skater)
        self.xc = adapter.control_variables(opti, caps)
        adapter.close_period(opti, hs, self.xc)
        adapter.control_period(opti, hs)
        speed = adapter.progress_speed(hs)
        self.budget = PowerBudget(opti, hs, adapter, budget)
        opti.subject_to((self.budget.energy - self.power * hs.T) / self.power == 0)
        rows.update(adapter.admissibility(hs, None, leg_force_cap=caps.peak_leg_force_bw))
        rows.update(adapter.control_caps(hs, caps))
        # what the laws' accelerations must do between the points too (the free skater's snow)
        rows.update(adapter.spline_rows(bern))
        margin = ca.MX.nan(1, 1)
        if force_velocity is not None:  # what each limb can push at the speed it extends, at every point
            least = []
            for limit in force_velocity:
                g, _ = adapter.force_velocity_margin(hs, limit)
                rows[f"force_velocity_{limit.limb}"] = ca.vec(g)
                least.append(ca.mmin(g))
            margin = ca.mmin(ca.vertcat(*least))
        for g in rows.values():
            opti.subject_to(g >= 0)
        penalty = smoothness * jerk
        opti.minimize(-speed + penalty)
        self.compile("control", opts, [speed, self.budget.work / hs.T, penalty, hs.T, self.budget.energy / hs.T,
                                       self.budget.complementarity(), margin])
        self.zfun = ca.Function("z", [opti.x, opti.p], [self.Z] + ([self.Zp] if self.Zp is not None else []))
        # a leading 0: the output is never empty (the free skater has no such numbers)
        self.xcfun = ca.Function("xc", [opti.x, opti.p], [ca.vertcat(ca.MX(0.0), *self.xc.values())])

    def knot_times(self, T: float) -> np.ndarray:
        """The control knots' times for the stroke time T (every r-th knot of the mesh)."""
        return self.hs.mesh.times(T)[0::2 * self.r]

    def solve(self, power: float, start: StrokeSolution, coarse: dict | None = None) -> dict:
        """Solve at ``power`` from the law-based optimum ``start``, or, given ``coarse`` (this
        program's solve on a coarser mesh), from that: its splines at this program's knots
        (``refine_knots``) and its mesh interpolated."""
        opti, hs, adapter = self.opti, self.hs, self.adapter
        opti.set_value(self.power, power)
        p = opti.debug.value(opti.p, opti.value_parameters())
        nz = self.Z.shape[0]
        if coarse is None:
            tr, T, numbers = regrid(start.trajectory, hs.mesh), start.stroke_time, adapter.control_start(start)
            tau = self.knot_times(T)
            knots = tr["u"][0::2 * self.r, :nz]
            pole = adapter.pole_knots(tau[self.pole_span[0]:self.pole_span[1] + 1]) if self.Zp is not None else None
        else:
            ct = coarse["traj"]
            tr, T, numbers = regrid(ct, hs.mesh), coarse["T"], ct["control_numbers"]
            tau = self.knot_times(T)
            knots = refine_knots(ct["control_knots"], ct["control_tau"], tau)
            pole = (refine_knots(ct["pole_knots"], ct["pole_tau"], tau[self.pole_span[0]:self.pole_span[1] + 1])
                    if self.Zp is not None else None)
        opti.set_initial(self.Tk, np.full((1, hs.N), T))
        opti.set_initial(self.Z, knots.T)
        if pole is not None:
            opti.set_initial(self.Fp, pole[1:-1, 0][None, :])
            opti.set_initial(self.Dp, pole[:, 1:].T)
        for k, v in numbers.items():
            opti.set_initial(self.xc[k], v)
        hs.initial(tr)
        self.budget.initial(opti, p)
        r = self.run(p)
        speed, power, penalty, T, budget_power, complementarity, margin = (v.item() for v in r["extra"])
        traj = r["traj"]
        traj["T"] = T
        z = self.zfun(r["x"], p)  # one output is a matrix, more a list
        z = [np.asarray(v, dtype=float).T for v in (z if isinstance(z, (list, tuple)) else [z])]
        traj["control_knots"], traj["control_tau"] = z[0], self.knot_times(T)
        if self.Zp is not None:
            traj["pole_knots"] = z[1]
            traj["pole_tau"] = traj["control_tau"][self.pole_span[0]:self.pole_span[1] + 1]
        traj["control_numbers"] = dict(zip(self.xc, np.ravel(np.asarray(self.xcfun(r["x"], p), dtype=float))[1:]))
        return dict(speed=speed, power=power, penalty=penalty, T=T, traj=traj, budget_power=budget_power,
                    complementarity=complementarity, force_velocity_margin=margin, solved=r["solved"], status=r["status"],
                    iterations=r["iterations"], violation=r["violation"], time=r["time"])


def _spline_points(ca, Z, hc, Tc, basis, r):
    """A quintic spline's (f, ḟ, f̈) at the 2r + 1 dynamics points of each of its control
    intervals, ``at[d][j]`` (1 × k, interval by interval), from its knots ``Z`` (3 × (k + 1))
    over intervals of widths ``hc`` (1 × k); each interval's (1/T)∫ f‴² dt (1 × k, ``Tc``
    each interval's copy of T): Σ cᵀ G c / (h⁵ T) with G ``jerk_gram``, local to the interval,
    so no row of the program's Hessian runs through every knot; and the Bernstein coefficients of
    f̈ on each interval (4 × k, ``acceleration_bernstein``)."""
    f, fd, fdd = Z[0, :], Z[1, :], Z[2, :]
    c = [f[:, :-1], hc * fd[:, :-1], hc**2 * fdd[:, :-1], f[:, 1:], hc * fd[:, 1:], hc**2 * fdd[:, 1:]]
    C = ca.vertcat(*c)
    jerk = ca.sum1(C * (ca.DM(jerk_gram()) @ C)) / (hc**5 * Tc)
    at = [[sum(basis[d][j][b] * c[b] for b in range(6)) / hc**d for j in range(2 * r + 1)] for d in range(3)]
    bern = (ca.DM(acceleration_bernstein()) @ C) / ca.repmat(hc**2, 4, 1)
    return at, jerk, bern


def acceleration_bernstein() -> np.ndarray:
    """E (4 × 6): the Bernstein coefficients of B_b″(s) on s ∈ [0, 1] for the quintic Hermite
    basis, so that a spline interval's f̈(s) = Σ_j β_j C(3, j) s^j (1 − s)^(3−j) with
    β = E c / h², c = (f_k, h ḟ_k, h² f̈_k, f_k+1, h ḟ_k+1, h² f̈_k+1).  A cubic lies between the
    least and the largest of its Bernstein coefficients (their convex hull holds its graph), and
    it equals the first and the last at the interval's ends: a row on the β bounds f̈ over the
    whole interval, not only at the collocation's points."""
    C = QUINTIC_HERMITE
    for _ in range(2):
        C = C[:, 1:] * np.arange(1, C.shape[1])  # B_b″ as cubics: 6 × 4 monomial coefficients
    # monomial → Bernstein of degree 3: β_j = Σ_{i ≤ j} C(j, i)/C(3, i) a_i
    T = np.array([[math.comb(j, i) / math.comb(3, i) if i <= j else 0.0 for j in range(4)] for i in range(4)])
    return (C @ T).T


def refine_knots(z: np.ndarray, tau_c, tau) -> np.ndarray:
    """The splines through the knots ``z`` ((Kc + 1) × 3 n: f, ḟ, f̈ of each of n laws at the times
    ``tau_c``) given at the times ``tau`` (within them): the same C² piecewise quintics exactly
    where ``tau`` holds every time of ``tau_c`` (a quintic on a coarse interval is its own quintic
    Hermite interpolant on every finer one), their quintic interpolant at ``tau`` otherwise."""
    tau_c, tau = np.asarray(tau_c, dtype=float), np.asarray(tau, dtype=float)
    if tau.min() < tau_c[0] or tau.max() > tau_c[-1] * (1 + 1e-12):
        raise ValueError(f"tau: the knots [{tau.min():g}, {tau.max():g}] s must lie within the splines' "
                         f"[{tau_c[0]:g}, {tau_c[-1]:g}] s")
    out = np.zeros((len(tau), z.shape[1]))
    for i in range(z.shape[1] // 3):
        spline = QuinticSpline(tau_c, z[:, 3 * i], z[:, 3 * i + 1], z[:, 3 * i + 2])
        out[:, 3 * i:3 * i + 3] = [spline(min(t, tau_c[-1])) for t in tau]
    return out


#: the spline intervals of the coarse mesh that starts a finer one (``coarse_mesh``)
COARSE_CONTROL_NODES = 5


def coarse_mesh(nodes: int, control_nodes: int):
    """(nodes, control_nodes) of the coarser program whose solution starts free control on
    ``nodes`` and ``control_nodes``: the same intervals per spline interval on
    ``COARSE_CONTROL_NODES`` spline intervals, when that divides ``control_nodes`` and is fewer;
    None otherwise (the program starts from the law-based optimum itself)."""
    Kc = COARSE_CONTROL_NODES
    if control_nodes <= Kc or control_nodes % Kc:
        return None
    return nodes // control_nodes * Kc, Kc


_PROGRAMS: dict = {}


def _program(ca, adapter, nodes, control_nodes, caps, smoothness, opts, budget, T_mesh=None, force_velocity=None):
    """The free-control program of this structure, mesh (its phases sized for ``T_mesh``:
    ``adapter.control_mesh``), caps and options, built once."""
    mesh = adapter.control_mesh(int(control_nodes), int(nodes) // int(control_nodes), T_mesh).key()
    key = (adapter.program_key(int(nodes)), mesh, int(nodes), int(control_nodes), caps, smoothness,
           tuple(sorted(opts.items())), budget, force_velocity, collocation.SEPARATED,
           hessian.POINT_HESSIAN, hessian.POINT_JACOBIAN, compiled.COMPILED)
    if key not in _PROGRAMS:
        _PROGRAMS[key] = _ControlProgram(ca, adapter, int(nodes), int(control_nodes), caps, smoothness, opts, budget,
                                         T_mesh, force_velocity)
    return _PROGRAMS[key]


def optimal_control(model: str = "free", power: float = 600.0, *, budget: str = "metabolic", params=None, caps=None,
                    nodes: int = 100, control_nodes: int = 25, smoothness: float = DEFAULT_SMOOTHNESS,
                    resimulation_tol: float = 1e-4, ipopt: dict | None = None, starts: int = 4,
                    seed: int = 0, progress: bool = False, force_velocity=None) -> ControlSolution:
    """The fastest stroke of ``model`` at mean power ``power`` [W] with its laws free (the
    module's docstring): ``model`` "free" (the free skater's heading, lateral offset and height)
    or "edge" (the edged skater's heading and leg length, and its landing offset) as C² quintic
    splines on ``nodes`` intervals, the stroke time free, within ``caps``
    (``skilib.models.free.collocation.FreeControlCaps`` or
    ``skilib.models.edge.collocation.EdgeControlCaps``, default their defaults), the objective
    the progress speed less ``smoothness`` × the laws' mean squared jerk.  ``params``: the
    model's parameters (default ``skilib.studies.optimum.default_params``).

    Starts from the law-based optimum at the same power and budget, found on the model's own mesh
    and interpolated onto this one (``optimize_technique`` by
    collocation over ``FREE_BOUNDS`` or ``EDGE_BOUNDS`` of ``skilib.studies.optimum`` from the
    params' technique and ``starts`` seeded starts: the law-based problem has several local
    optima of nearly equal speed), returned as ``law_based``, and re-simulates the solution by
    the model's simulator with the splines as laws (``simulate_free``; the edged skater's stroke
    map, one stroke from the collocated touch-down state).  The law-based optimum runs in a forked
    copy of the process while this one builds the free-control programs that do not wait for it
    (``skilib.studies.beside``; in turn where forking is not safe): the same numbers either way,
    bit for bit.  A program IPOPT does not solve is
    returned with ``success=False`` and IPOPT's status, never as an optimum.  ``ipopt`` adds to
    ``IPOPT_OPTIONS`` and ``CONTROL_IPOPT`` (its keys and values checked before anything runs,
    ``skilib.ocp.stroke.check_ipopt``: ``IPOPT_ALLOWED``).  ``progress``: a bar on stderr counting
    IPOPT's iterations, those of the law-based starts' programs and of the free-control programs
    (coarse, fine), with the program solving and its mesh's intervals (``skilib.ocp.stroke.ipopt_progress``;
    the result is the same bit for bit).  ``force_velocity`` (None, or a
    ``skilib.physiology.ForceVelocityLimit``, or one per limb): each limb's force–velocity margin is a row ≥ 0 at every
    knot and midpoint, of the law-based start's program too, and its least value is the result's
    ``force_velocity_margin``.  ValueError naming the argument on bad input (model,
    power, caps, nodes, smoothness, progress)."""
    progress = check_bool("progress", progress)
    ipopt = check_ipopt(ipopt)
    ca = require_casadi()
    if model not in ("free", "edge"):
        raise ValueError(f"model: free control is transcribed for the free skater ('free') and the edged skater "
                         f"('edge'), got {model!r}")
    from ..studies.beside import beside, can_fork
    from ..studies.optimum import EDGE_BOUNDS, FREE_BOUNDS, default_params, optimize_technique
    from .technique import stroke_adapter

    power = check_number("power", power, positive=True, unit="W")
    if check_budget(budget) == "net":
        raise ValueError("budget: free control needs a budget that counts every actuator's work ('positive', "
                         "'metabolic' or 'physiological'); with the leg's net work alone ('net') the optimizer drives the stroke with "
                         "the ski's heading, whose work that budget does not count")
    params = default_params(model) if params is None else params
    adapter = stroke_adapter(model, params)
    force_velocity = check_limit(force_velocity, adapter)
    caps = adapter.caps_class() if caps is None else caps
    if not isinstance(caps, adapter.caps_class):
        raise ValueError(f"caps: model {model!r} takes {adapter.caps_class.__name__}, got {type(caps).__name__}")
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or not 4 <= nodes <= 400:
        raise ValueError(f"nodes: must be an integer in [4, 400], got {nodes!r}")
    if (isinstance(control_nodes, bool) or not isinstance(control_nodes, (int, np.integer)) or control_nodes < 2
            or nodes % control_nodes):
        raise ValueError(f"control_nodes: must be an integer ≥ 2 that divides nodes ({nodes}), got {control_nodes!r}")
    smoothness = check_number("smoothness", smoothness, positive=True)
    resimulation_tol = check_number("resimulation_tol", resimulation_tol, positive=True)
    base = adapter.technique()
    bounds = dict(FREE_BOUNDS if model == "free" else EDGE_BOUNDS)
    # the law-based optimum on the model's own mesh (``SkiStroke.nodes``: its speed within 1e-6 of
    # the shooting optimum's), interpolated onto this mesh as the start: its seeded starts on the
    # finer mesh cost minutes and change its speed by less than that
    opts = {**IPOPT_OPTIONS, **CONTROL_IPOPT, **(ipopt or {})}
    mesh = coarse_mesh(int(nodes), int(control_nodes))

    def law_based():
        t0 = time.perf_counter()
        law = optimize_technique(model, power=power, bounds=bounds, params=params, budget=budget,
                                 method="collocation", starts=starts, seed=seed, x0={k: base[k] for k in bounds},
                                 force_velocity=force_velocity)
        return law, time.perf_counter() - t0

    def build():
        """The programs that do not wait for the law-based optimum: the coarse one, and the fine
        one where its mesh is even (with poles it is sized for the coarse optimum's stroke time)."""
        t0 = time.perf_counter()
        coarse_program = (_program(ca, adapter, *mesh, caps, smoothness, opts, budget, force_velocity=force_velocity)
                          if mesh else None)
        if not adapter.control_mesh_timed():
            _program(ca, adapter, nodes, control_nodes, caps, smoothness, opts, budget, None, force_velocity)
        return coarse_program, time.perf_counter() - t0

    with ipopt_progress(progress, "optimal_control"):
        # the law-based optimum (shooting screens and IPOPT, a program of its own) in a forked copy
        # of this process while this one builds free control's programs (``skilib.studies.beside``)
        forked = ipopt_bar() is None and can_fork()[0]
        if forked:
            (law, law_seconds), (coarse_program, build_seconds) = beside(law_based, build, fork=True)
        else:
            law, law_seconds = law_based()
        start = law.solution
        if not start.success:
            raise RuntimeError(f"optimal_control: the law-based optimum at {power:g} W, its start, was not found "
                               f"(IPOPT: {start.status}, re-simulation error {start.resimulation_error:.3g})")
        if not forked:  # in turn: built once the start is known to exist
            coarse_program, build_seconds = build()
        # the coarse mesh's optimum starts the fine one: the law-based start is far from free
        # control's optimum, and IPOPT's way there costs fewer iterations where each is cheap
        coarse = coarse_program.solve(power, start) if coarse_program is not None else None
        if coarse is not None and not coarse["solved"]:
            coarse = None
        # with poles the fine mesh's phases are sized for the coarse optimum's stroke time: sized for
        # the params', a stroke that ends far from it is meshed out of proportion (measured on the free
        # skater with V2 poles at 600 W metabolic, 100 intervals: 500 iterations without converging,
        # against 43 sized for the coarse optimum's 0.4 s)
        t0 = time.perf_counter()
        program = _program(ca, adapter, nodes, control_nodes, caps, smoothness, opts, budget,
                           coarse["T"] if coarse is not None else None, force_velocity)
        build_seconds += time.perf_counter() - t0
        sol = program.solve(power, start, coarse)
        if coarse is not None:
            coarse = dict(nodes=mesh[0], control_nodes=mesh[1], iterations=coarse["iterations"],
                          solve_time=coarse["time"], speed=coarse["speed"], fine_status=sol["status"], restarted=False)
            if not sol["solved"]:
                # IPOPT did not finish from the coarse solution: solve again from the law-based start
                coarse.update(restarted=True, fine_iterations=sol["iterations"], fine_time=sol["time"])
                sol = program.solve(power, start)
    laws = adapter.spline_laws(sol["traj"])
    refused = ""
    try:
        res = adapter.resimulate_laws(sol["T"], laws, sol["traj"]) if sol["solved"] else {}
    except ValueError as exc:
        # the simulator refuses the splines where the program did not look: between the points, a
        # law may leave what the rows hold at them (the snow's load, say); not an optimum then
        res, refused = {}, str(exc)
    err = resimulation_error(res, sol["speed"], sol["power"], sol["budget_power"], budget)
    ok = bool(sol["solved"] and err <= resimulation_tol)
    active = adapter.caps_report(sol["traj"], caps)
    return ControlSolution(progress_speed=sol["speed"], mean_power=sol["power"], stroke_time=sol["T"],
                           u0=adapter.u0(sol["traj"]), penalty=sol["penalty"], frame=adapter.push_frame(sol["traj"]),
                           law_based=start, gain=sol["speed"] - start.progress_speed,
                           gain_relative=sol["speed"] / start.progress_speed - 1, caps=caps, caps_active=active,
                           status=sol["status"], success=ok, iterations=sol["iterations"],
                           max_violation=sol["violation"], solve_time=sol["time"], nodes=int(nodes),
                           max_slack=sol["traj"]["max_slack"], power=power, budget=budget,
                           budget_power=sol["budget_power"], complementarity=sol["complementarity"],
                           resimulated=res, resimulation_error=err,
                           resimulation_ok=bool(err <= resimulation_tol), laws=laws, trajectory=sol["traj"],
                           law_seconds=law_seconds, build_seconds=build_seconds,
                           coarse=coarse or {}, resimulation_refused=refused,
                           force_velocity_margin=sol["force_velocity_margin"])
