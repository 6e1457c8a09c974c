"""Free control: the laws of a stroke as trajectories chosen by the optimizer (the book's chapter
"Optimal control").

Where the law-based optimum (``skilib.ocp.stroke``) chooses a few numbers of prescribed laws,
here each law — for the free skater the ski's heading ψ, the centre of mass's lateral offset h
and its height z — is a C² quintic spline through the mesh's knots
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
which of them bind at the solution is reported (``caps_active``).  At τ = 0 the laws' rates are
zero: at touch-down the drivers then do no impulsive work (C_t = 0 in the plastic impact), as
with the default laws; a law still moving at touch-down would be paid there by an impulse whose
work no power budget counts.

The program starts from the law-based optimum at the same power and mesh (which is inside the
caps by construction of their defaults, so the free control can only gain), and its solution is
re-simulated by the model's simulator with the splines as its laws.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..engine.codegen.casadi_terms import require_casadi
from ..engine.timefunctions import QUINTIC_HERMITE, quintic_basis
from ..engine.validation import check_number
from .collocation import HermiteSimpson
from .stroke import IPOPT_OPTIONS, StrokeSolution, collocate_stroke

__all__ = ["optimal_control", "ControlSolution", "jerk_gram", "DEFAULT_SMOOTHNESS"]

#: ε of the smoothness penalty [m/s per (rad² or m²)/s⁶]: at the law-based optima of the free
#: skater it costs ≈ 1e-5 of the speed (the penalty is reported with every solution)
DEFAULT_SMOOTHNESS = 1e-7


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

    - progress_speed [m/s], mean_power [W], stroke_time [s], u0 [m/s]: the solution's.
    - penalty : the smoothness term ε Σ (1/T)∫ f‴² dt at the solution [m/s].
    - frame : the push over the stroke, one row per knot and midpoint (``tau``, the laws and
      their rates, the leg force, the snow's load, the ski's speed, the leg's extension speed).
    - law_based : the law-based optimum at the same power and mesh (a ``StrokeSolution``), the
      start; gain : progress_speed − its speed [m/s]; gain_relative.
    - caps : the caps used; caps_active : {cap: {value, cap, active}}: the largest value at the
      solution beside its cap, and whether it binds.
    - status, success, iterations, max_violation, solve_time, nodes, max_slack: as for a
      ``StrokeSolution``; success needs IPOPT's success and the re-simulation's agreement.
    - resimulated, resimulation_error, resimulation_ok: the model's simulator with the
      splines as laws, from the collocated start.
    - laws : the splines (a ``FreeLaws`` of ``QuinticSpline``).
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


class _ControlProgram:
    """The free-control program of ``adapter`` on ``nodes`` intervals (the module's docstring),
    built once per structure, mesh, caps and smoothness; the power is its parameter."""

    def __init__(self, ca, adapter, nodes: int, caps, smoothness: float, opts: dict):
        self.ca, self.adapter, N = ca, adapter, nodes
        opti = self.opti = ca.Opti()
        nu, nl = adapter.terms.nu, adapter.terms.nu // 3
        self.power = opti.parameter()
        self.Tk = opti.variable(1, N)  # the stroke time, one copy per interval (made equal)
        opti.subject_to(ca.vec(self.Tk[:, 1:] - self.Tk[:, :-1]) == 0)
        lo, hi = caps.stroke_time
        opti.subject_to(opti.bounded(lo, self.Tk[0, 0], hi))
        self.Uk = opti.variable(nu, N + 1)
        h = self.Tk / N
        Um, jerk = [], 0
        G = ca.DM(jerk_gram())
        mid = [quintic_basis(0.5, d) for d in range(3)]
        for i in range(nl):
            f, fd, fdd = (self.Uk[3 * i + j, :] for j in range(3))
            c = [f[:, :-1], h * fd[:, :-1], h**2 * fdd[:, :-1], f[:, 1:], h * fd[:, 1:], h**2 * fdd[:, 1:]]
            Um += [sum(mid[d][j] * c[j] for j in range(6)) / h**d for d in range(3)]
            C = ca.vertcat(*c)
            jerk = jerk + ca.sum2(ca.sum1(C * (G @ C)) / h**5)
        self.Um = ca.vertcat(*Um)
        hs = self.hs = HermiteSimpson(opti, adapter.terms, N, self.Tk, controls=(self.Uk, self.Um))
        adapter.close_period(opti, hs)
        adapter.start_at_rest(opti, hs)
        speed, work = adapter.progress_speed(hs), adapter.work(hs)
        opti.subject_to((work - self.power * hs.T) / self.power == 0)
        rows = adapter.admissibility(hs, None, leg_force_cap=caps.peak_leg_force_bw)
        rows.update(adapter.control_caps(hs, caps))
        for g in rows.values():
            opti.subject_to(g >= 0)
        penalty = smoothness * jerk / hs.T
        opti.minimize(-speed + penalty)
        self.rows = rows
        nlp = ca.Function("nlp", [opti.x, opti.p], [opti.f, opti.g]).expand()
        xs, ps = ca.SX.sym("x", opti.x.shape[0]), ca.SX.sym("p", opti.p.shape[0])
        f, g = nlp(xs, ps)
        self.solver = ca.nlpsol("control", "ipopt", {"x": xs, "p": ps, "f": f, "g": g},
                                {"print_time": False, "error_on_fail": False, "ipopt": opts})
        self.bounds = ca.Function("bounds", [opti.p], [opti.lbg, opti.ubg])
        self.out = ca.Function("out", [opti.x, opti.p],
                               [speed, work / hs.T, penalty, hs.T, hs.Q, hs.V, hs.A, hs.L, hs.Qm, hs.Vm, hs.Am, hs.Lm,
                                hs.U, hs.Um, hs.tau_knots, hs.tau_mid, hs.Mu] + ([hs.G] if hs.G is not None else []))
        self.cap_rows = ca.Function("caps", [opti.x, opti.p], list(rows.values()))

    def solve(self, power: float, start: StrokeSolution) -> dict:
        opti, hs = self.opti, self.hs
        opti.set_value(self.power, power)
        p = opti.debug.value(opti.p, opti.value_parameters())
        tr = start.trajectory
        opti.set_initial(self.Tk, np.full((1, hs.N), start.stroke_time))
        opti.set_initial(self.Uk, tr["u"][0::2].T)
        for name, knots, mids in (("q", hs.Q, None), ("v", hs.V, None), ("a", hs.A, hs.Am), ("lam", hs.L, hs.Lm)):
            opti.set_initial(knots, tr[name][0::2].T)
            if mids is not None:
                opti.set_initial(mids, tr[name][1::2].T)
        w0 = opti.debug.value(opti.x, opti.initial())
        lbg, ubg = (np.ravel(np.asarray(v, dtype=float)) for v in self.bounds(p))
        t0 = time.perf_counter()
        r = self.solver(x0=w0, p=p, lbg=lbg, ubg=ubg)
        elapsed = time.perf_counter() - t0
        stats = self.solver.stats()
        gv = np.ravel(np.asarray(r["g"]))
        out = [np.asarray(v, dtype=float) for v in self.out(r["x"], p)]
        N = hs.N

        def interleave(k, m):
            z = np.zeros((k.shape[0], 2 * N + 1))
            z[:, 0::2], z[:, 1::2] = k, m
            return z.T

        Q, V, A, L, Qm, Vm, Am, Lm, U, Um, tk, tm, Mu = out[4:17]
        slack = [np.abs(Mu).max()] + ([np.abs(out[17]).max()] if len(out) > 17 else [])
        traj = dict(tau=interleave(tk, tm)[:, 0], q=interleave(Q, Qm), v=interleave(V, Vm), a=interleave(A, Am),
                    lam=interleave(L, Lm), u=interleave(U, Um), max_slack=float(max(slack)), T=out[3].item())
        cap_use = {name: float(np.min(np.asarray(v))) for name, v in zip(self.rows, self.cap_rows(r["x"], p))}
        return dict(speed=out[0].item(), power=out[1].item(), penalty=out[2].item(), T=out[3].item(), traj=traj,
                    solved=bool(stats.get("success", False)), status=str(stats.get("return_status", "unknown")),
                    iterations=int(stats.get("iter_count", -1)),
                    violation=float(np.max(np.concatenate([[0.0], lbg - gv, gv - ubg]))), time=elapsed,
                    margins=cap_use, knots=U)


_PROGRAMS: dict = {}


def optimal_control(model: str = "free", power: float = 200.0, *, params=None, caps=None, nodes: int = 100,
                    smoothness: float = DEFAULT_SMOOTHNESS, resimulation_tol: float = 1e-4,
                    ipopt: dict | None = None) -> ControlSolution:
    """The fastest stroke of ``model`` at mean power ``power`` [W] with its laws free (the
    module's docstring): the free skater's heading, lateral offset and height as C² quintic
    splines on ``nodes`` intervals, the stroke time free, within ``caps``
    (``skilib.models.free.collocation.FreeControlCaps``, default its defaults), the objective
    the progress speed less ``smoothness`` × the laws' mean squared jerk.

    Starts from the law-based optimum at the same power and mesh (``collocate_stroke`` with
    ``skilib.studies.optimum.FREE_BOUNDS``), returned as ``law_based``, and re-simulates the
    solution by ``simulate_free`` with the splines as laws.  A program IPOPT does not solve is
    returned with ``success=False`` and IPOPT's status, never as an optimum.  ValueError naming
    the argument on bad input (model, power, caps, nodes, smoothness)."""
    ca = require_casadi()
    if model != "free":
        raise ValueError(f"model: free control is transcribed for the free skater ('free'), got {model!r}")
    from ..models.free.collocation import FreeControlCaps, FreeStroke
    from ..studies.optimum import FREE_BOUNDS

    power = check_number("power", power, positive=True, unit="W")
    caps = FreeControlCaps() if caps is None else caps
    if not isinstance(caps, FreeControlCaps):
        raise ValueError(f"caps: must be a FreeControlCaps, got {type(caps).__name__}")
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or not 4 <= nodes <= 400:
        raise ValueError(f"nodes: must be an integer in [4, 400], got {nodes!r}")
    smoothness = check_number("smoothness", smoothness, positive=True)
    resimulation_tol = check_number("resimulation_tol", resimulation_tol, positive=True)
    adapter = FreeStroke(params)
    start = collocate_stroke(adapter, bounds=dict(FREE_BOUNDS), power=power, nodes=int(nodes), max_nodes=int(nodes),
                             resimulation_tol=resimulation_tol, ipopt=ipopt)
    if not start.success:
        raise RuntimeError(f"optimal_control: the law-based optimum at {power:g} W, its start, was not found "
                           f"(IPOPT: {start.status}, re-simulation error {start.resimulation_error:.3g})")
    opts = dict(IPOPT_OPTIONS, **(ipopt or {}))
    key = (adapter.structure_key(), int(nodes), caps, smoothness, tuple(sorted(opts.items())))
    if key not in _PROGRAMS:
        _PROGRAMS[key] = _ControlProgram(ca, adapter, int(nodes), caps, smoothness, opts)
    sol = _PROGRAMS[key].solve(power, start)
    laws = adapter.spline_laws(sol["traj"])
    res = adapter.resimulate_laws(sol["T"], laws, adapter.u0(sol["traj"])) if sol["solved"] else {}
    err = (max(abs(res["progress_speed"] / sol["speed"] - 1), abs(res["mean_power"] / sol["power"] - 1))
           if res else math.nan)
    ok = bool(sol["solved"] and err <= resimulation_tol)
    active = adapter.caps_report(sol["traj"], caps)
    return ControlSolution(progress_speed=sol["speed"], mean_power=sol["power"], stroke_time=sol["T"],
                           u0=adapter.u0(sol["traj"]), penalty=sol["penalty"], frame=adapter.push_frame(sol["traj"]),
                           law_based=start, gain=sol["speed"] - start.progress_speed,
                           gain_relative=sol["speed"] / start.progress_speed - 1, caps=caps, caps_active=active,
                           status=sol["status"], success=ok, iterations=sol["iterations"],
                           max_violation=sol["violation"], solve_time=sol["time"], nodes=int(nodes),
                           max_slack=sol["traj"]["max_slack"], power=power, resimulated=res, resimulation_error=err,
                           resimulation_ok=bool(err <= resimulation_tol), laws=laws, trajectory=sol["traj"])
