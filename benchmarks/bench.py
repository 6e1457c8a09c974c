#!/usr/bin/env python
"""skilib's speed and memory targets, measured (``make bench``).

    python benchmarks/bench.py            # everything (~3 min on 2 cores)
    python benchmarks/bench.py --quick    # skip the numeric-engine run and the sweep scaling
    python benchmarks/bench.py --only free_steady   # just these rows (names: --help)

Prints one table and writes it as JSON to ``benchmarks/results/`` (``latest.json`` and a
time-stamped copy; with ``--only``, the time-stamped copy alone).  Every time is the median of several repetitions after a warm-up.

Targets:
- one right-hand side of the skier (assemble M, Cq, Qe, Qv, Qd and solve the 35 × 35
  system of eq. 101) within 3× of a bare ``numpy.linalg.solve`` of a 35 × 35 system;
- table 9's ten-stroke run end to end in ≤ 1 s (stretch 0.3 s) with max |C| ≤ 1e-6, and in
  ≤ 0.03 s (0.03 of Exudyn's 1.18–1.20 s for the same run), stepped and by quadrature in the
  skier's one coordinate (``reduced=True``);
- peak memory of that run ≤ 200 MB (the peak resident set of a fresh process that
  imports skilib and does the run: libraries included, nothing subtracted);
- a sweep on 2 Dask workers ≥ 1.7× faster than on 1;
- the free skater's steady state (``free_steady_state()``, defaults) in ≤ 50 ms;
- the edged skater's steady state (``edge_steady_state(multipliers=False)``, defaults) in
  ≤ 0.1 s (compiled kernels, cached: ≈ 0.12 s here; the numeric engine ≈ 16 s), and with its
  multipliers (the stroke map's derivatives by central differences);
- one optimisation of the free skater's technique at 200 W (``optimize_technique``, two seeded
  starts on a 2-worker Dask cluster) in < 5 min;
- the same optimum by collocation (``method="collocation"``, one start, IPOPT with CasADi's exact
  derivatives) in ≤ 5 s per power, a front of five powers in ≤ 30 s (the program is built by
  the first power and reused), beside the shooting optimum with the same start;
- the edged skater's optimum by collocation (40 intervals, from the default technique) in ≤ 5 s
  per power after the first, a front of four powers (60–150 W) in ≤ 30 s, beside its shooting
  optimum at 90 W from the same start;
- the free-control optimum (``optimal_control``, 100 intervals) solved in ≤ 30 s per power;
- the questions people come for, each in a fresh process (``questions``; the kernels' disk
  caches warm, CasADi's programs built by the process): the least power for 6 m/s
  (``required_power(model, 6.0, method="collocation")``) of the free and the edged skater in
  ≤ 10 s, a second speed (5.8 m/s) in the same process in ≤ 3 s (warm-started from the first
  answer, ``warm=``; the cold second speed beside it), and ``optimal_control("free",
  600)`` in ≤ 20 s; each row shows the time measured before the work on speed began ("before");
- the force loader on a large SYNTHETIC CSV (~220 MB, generated at bench time in a
  temporary folder) close to ``pandas.read_csv`` in time and peak memory.
The peer for scale: the same skier reduced to its coordinate s with
sympy.physics.mechanics (KanesMethod) and lambdify (``kane_peer.py``).
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"


def median_time(fn, *, repeat=5, number=1, warmup=1):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        ts.append((time.perf_counter() - t0) / number)
    return statistics.median(ts)


def skier_state():
    """The skier's sliding system at τ = 0.3 s of a table 9 stroke, with a consistent state."""
    from skilib import SkierParams
    from skilib.data.push import default_push_force
    from skilib.models.thesis import SkierModel, ski_heading
    from skilib.engine.solver import consistent_initial_conditions

    p = SkierParams()
    h, side = ski_heading(p, 0)
    model = SkierModel(p, h, side, np.zeros(3), default_push_force(p.phase_time))
    system = model.system(1)
    qd_guess = np.zeros(system.nq)
    qd_guess[:3] = 2.0 * model.e
    q, qd = consistent_initial_conditions(system, 0.3, model.pose(0.3, 0.4), qd_guess, independent=[0])
    return system, q, qd


def bench_rhs(backends):
    """µs per right-hand side: the numeric engine and each compiled backend, and a bare solve."""
    from skilib.engine.codegen import compile_system
    from skilib.engine.options import baumgarte

    system, q, qd = skier_state()
    alpha, beta = baumgarte(0.05)
    n = system.nq + system.nc
    rng = np.random.default_rng(0)
    K = rng.normal(size=(n, n))
    K = K + K.T + n * np.eye(n)
    b = rng.normal(size=n)
    out = {"system_size": n,
           "bare_solve_us": 1e6 * median_time(lambda: np.linalg.solve(K, b), number=20000, warmup=1),
           "numeric_rhs_us": 1e6 * median_time(lambda: system.accelerations(0.3, q, qd, alpha, beta), number=300)}
    ref = system.accelerations(0.3, q, qd, alpha, beta)[0]
    for be in backends:
        c = compile_system(system, backend=be)
        err = float(np.abs(c.accelerations(0.3, q, qd, alpha, beta)[0] - ref).max())
        out[f"{be}_rhs_us"] = 1e6 * median_time(lambda: c.accelerations(0.3, q, qd, alpha, beta), number=20000)
        out[f"{be}_max_abs_diff_vs_numeric"] = err
    return out


class _SolveIvpSteps:
    """Within it, every stroke segment is stepped by solve_ivp, as before the loop in C
    (``Stroke.in_c`` answers False): the reference of the C-stepped rows."""

    def __enter__(self):
        from skilib.strokes.stroke import Stroke

        self.saved = Stroke.in_c
        Stroke.in_c = lambda self, system, mode: False

    def __exit__(self, *exc):
        from skilib.strokes.stroke import Stroke

        Stroke.in_c = self.saved


def _read_tables(res):
    """A run's frame and strokes table, read (a result builds its DataFrames when first read): the
    table 9 row times the run with them, what a reader of table 9 asks for."""
    res.frame, res.strokes
    return res


def bench_long_run(compiled, repeat):
    import skilib as sk
    from skilib.models.thesis.cases import TABLE9  # the long run of table 9

    def timed():
        res = sk.simulate_run(**TABLE9.kwargs(), compiled=compiled)  # warm-up: loads (or compiles) kernels
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            res = _read_tables(sk.simulate_run(**TABLE9.kwargs(), compiled=compiled))
            times.append(time.perf_counter() - t0)
        return statistics.median(times), res

    if compiled:  # in turn with the sequential loop (each stroke tabulated before the next is
        # integrated): this machine's speed drifts by more than their difference between two blocks
        from skilib.models.thesis.run import ThesisSkating

        # and the same run with its sliding segments by quadrature in s (``reduced=True``)
        res = sk.simulate_run(**TABLE9.kwargs(), compiled=True)
        fast = sk.simulate_run(**TABLE9.kwargs(), reduced=True)
        times = {True: [], False: [], "reduced": []}
        try:
            for _ in range(max(repeat, 9)):
                for overlap in (True, False, "reduced"):
                    ThesisSkating.overlap_tables = overlap is not False
                    t0 = time.perf_counter()
                    if overlap == "reduced":
                        fast = _read_tables(sk.simulate_run(**TABLE9.kwargs(), reduced=True))
                    else:
                        res = _read_tables(sk.simulate_run(**TABLE9.kwargs(), compiled=True))
                    times[overlap].append(time.perf_counter() - t0)
        finally:
            ThesisSkating.overlap_tables = True
        seconds, sequential = statistics.median(times[True]), statistics.median(times[False])
        paired = statistics.median([a / b for a, b in zip(times[True], times[False])])
        reduced = dict(seconds=statistics.median(times["reduced"]), rhs_evaluations=int(fast.info["nfev"]),
                       paired=statistics.median([a / b for a, b in zip(times["reduced"], times[True])]),
                       max_rel_diff=max(float((fast.frame[c] - res.frame[c]).abs().max()
                                              / max(res.frame[c].abs().max(), 1.0))
                                        for c in res.frame.columns if res.frame[c].dtype.kind == "f"))
    else:
        seconds, res = timed()
    out = {"seconds": seconds, "rhs_evaluations": int(res.info["nfev"]),
           "max_constraint_norm": float(res.frame["constraint_norm"].max()),
           "mean_speed_stroke10": float(res.strokes["mean_speed"].iloc[-1])}
    if compiled:  # the sequential loop beside it; the same run with solve_ivp's steps, and the
        # thesis skier's steady state both ways
        out["sequential_seconds"], out["overlap_ratio"] = sequential, paired
        out["reduced"] = reduced
        with _SolveIvpSteps():
            out["solve_ivp_seconds"], ref = timed()
        out["max_rel_diff_vs_solve_ivp"] = float(np.abs(res.strokes.mean_speed - ref.strokes.mean_speed).max()
                                                 / ref.strokes.mean_speed.abs().max())
        # the bare one-DOF limit: the same motion as one ODE in s (skilib.models.thesis.one_dof), same solver
        from skilib.models.thesis.one_dof import one_dof_run

        kw = TABLE9.kwargs()
        solver = dict(rtol=res.info["rtol"], atol=res.info["atol"], max_step=res.params.phase_time / 50)
        one, out["one_dof_rhs_evaluations"] = one_dof_run(res.params, strokes=kw["strokes"], v0=kw["v0"], **solver)
        out["one_dof_seconds"] = median_time(lambda: one_dof_run(res.params, strokes=kw["strokes"], v0=kw["v0"],
                                                                 **solver), repeat=repeat, warmup=0)
        out["one_dof_max_rel_diff"] = float(max(abs(o["mean_speed"] - m) for o, m in zip(one, res.strokes.mean_speed))
                                            / res.strokes.mean_speed.abs().max())
        sk.steady_state()
        out["steady_seconds"] = median_time(sk.steady_state, repeat=repeat, warmup=0)
        with _SolveIvpSteps():
            out["steady_solve_ivp_seconds"] = median_time(sk.steady_state, repeat=repeat, warmup=0)
    return out


_MEMORY_PROBE = r"""
import json, resource, sys, tracemalloc
import skilib as sk
from skilib.models.thesis.cases import TABLE9
run = TABLE9.kwargs()
trace = sys.argv[1] == "heap"
if trace:  # tracemalloc's own bookkeeping inflates the RSS: measured in a separate process
    tracemalloc.start()
res = sk.simulate_run(**run, compiled=sys.argv[2] == "compiled")
out = {"max_constraint_norm": float(res.frame.constraint_norm.max())}
if trace:
    out["python_heap_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
else:
    # VmHWM: the peak resident set of this process image (ru_maxrss would also count the
    # parent that spawned it, which Linux carries across fork and exec)
    hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")]
    out["peak_rss_mb"] = (int(hwm[0].split()[1]) if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024
    out["modules"] = sorted(m for m in ("sympy", "numba", "matplotlib") if m in sys.modules)
print(json.dumps(out))
"""


def bench_memory(compiled=True):
    """Peak memory of the long run in a fresh process (kernels already in the disk cache):
    the peak RSS of the whole process, and the Python heap peak of the run (tracemalloc)."""
    out = {}
    for what in ("rss", "heap"):
        proc = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, what, "compiled" if compiled else "numeric"],
                              capture_output=True, text=True, check=True)
        out.update(json.loads(proc.stdout.strip().splitlines()[-1]))
    return out


def bench_free_steady(repeat):
    """``free_steady_state()`` with its defaults, after a warm-up that loads (or compiles) its kernels."""
    import skilib as sk

    ss = sk.free_steady_state()
    sk.free_steady_state(multiplier=True)  # builds the variational equations' functions
    # a call of ~10 ms: fifteen repetitions at least, so that the median is not one slow call's
    return {"seconds": median_time(sk.free_steady_state, repeat=max(repeat, 15), warmup=0), "u0": ss.u0,
            # with its frame and strokes table read (built at their first reading)
            "seconds_tables": median_time(lambda: _read_tables(sk.free_steady_state()), repeat=max(repeat, 15),
                                          warmup=0),
            "stroke_maps": ss.iterations, "coarse_maps": ss.coarse_maps,
            "seconds_multiplier": median_time(lambda: sk.free_steady_state(multiplier=True), repeat=repeat, warmup=0)}


def bench_edge_steady(repeat):
    """``edge_steady_state(multipliers=False)`` with its defaults (the compiled kernels, which
    assemble the friction on the snow's load; the kernel is traced and compiled by the first call)."""
    import skilib as sk

    ss = sk.edge_steady_state(multipliers=False)
    return {"seconds": median_time(lambda: sk.edge_steady_state(multipliers=False), repeat=repeat, warmup=0),
            "seconds_multipliers": median_time(sk.edge_steady_state, repeat=repeat, warmup=0),
            "seconds_variational": median_time(lambda: sk.edge_steady_state(jacobian="variational"), repeat=repeat,
                                               warmup=1),
            "stroke_maps": ss.iterations, "u0": ss.u0}


def bench_optimum(power=200.0, starts=2):
    """One ``optimize_technique("free", power)``: ``starts`` seeded starts on a 2-worker LocalCluster."""
    from skilib.studies.optimum import optimize_technique

    t0 = time.perf_counter()
    o = optimize_technique("free", power=power, starts=starts, seed=0, scheduler=None, n_workers=2)
    return {"seconds": time.perf_counter() - t0, "power": power, "starts": starts, "progress_speed": o.progress_speed,
            "evaluations": len(o.evaluations), "failed": int((o.evaluations.status != "ok").sum()), "x": o.x}


def bench_collocation(powers=(100.0, 200.0, 300.0, 400.0, 500.0)):
    """``optimize_technique("free", P, method="collocation", starts=1)`` at each power, in one
    process: the first call traces the model and builds the program (CasADi's exact derivatives),
    the others reuse it.  Beside it, the shooting optimum at 200 W with the same single start."""
    from skilib.studies.optimum import optimize_technique

    rows = []
    for P in powers:
        t0 = time.perf_counter()
        o = optimize_technique("free", power=P, method="collocation", starts=1)
        rows.append({"power": P, "seconds": time.perf_counter() - t0, "speed": o.progress_speed,
                     "feasible": o.feasible, "resimulation_error": o.solution.resimulation_error,
                     "ipopt_seconds": o.solution.solve_time})
    t0 = time.perf_counter()
    sh = optimize_technique("free", power=200.0, starts=1)
    shooting = {"seconds": time.perf_counter() - t0, "speed": sh.progress_speed}
    return {"powers": rows, "front_seconds": sum(r["seconds"] for r in rows), "shooting_200": shooting}


def bench_edge_collocation(powers=(60.0, 90.0, 120.0, 150.0)):
    """``optimize_technique("edge", P, method="collocation", starts=0, x0=default)`` at each power
    (its default mesh, 40 intervals), in one process: the first call builds the program.  Beside
    it, the shooting optimum at 90 W from the same start."""
    import skilib as sk
    from skilib.studies.optimum import EDGE_BOUNDS, optimize_technique

    base = sk.EdgeSkaterParams(cm_height=0.834)
    x0 = {n: getattr(sk.EdgeSkaterParams(), n) for n in EDGE_BOUNDS}
    rows = []
    for P in powers:
        t0 = time.perf_counter()
        o = optimize_technique("edge", power=P, params=base, method="collocation", starts=0, x0=x0)
        rows.append({"power": P, "seconds": time.perf_counter() - t0, "speed": o.progress_speed,
                     "feasible": o.feasible, "resimulation_error": o.solution.resimulation_error,
                     "ipopt_seconds": o.solution.solve_time, "nodes": o.solution.nodes})
    t0 = time.perf_counter()
    sh = optimize_technique("edge", power=90.0, params=base, starts=0, x0=x0)
    shooting = {"seconds": time.perf_counter() - t0, "speed": sh.progress_speed}
    return {"powers": rows, "front_seconds": sum(r["seconds"] for r in rows), "shooting_90": shooting}


def bench_control(powers=(400.0, 500.0, 600.0, 700.0, 800.0), nodes=100, control_nodes=25, params=None):
    """``optimal_control("free", P)`` (metabolic budget) on ``nodes`` intervals, laws free as
    splines on ``control_nodes``, at each power of a front, in one process: the first power builds
    the program (CasADi's expansion and exact Hessian), the others reuse it.  Each row splits the
    time into the law-based start, IPOPT (all its solves: the coarse mesh's, the fine one's, and a
    fine solve from the coarse solution that failed, when it did) and the rest (chiefly the
    re-simulation).  ``params``: the free skater's (default: the study's)."""
    from skilib.ocp import optimal_control

    rows = []
    for P in powers:
        t0 = time.perf_counter()
        s = optimal_control("free", P, nodes=nodes, control_nodes=control_nodes, params=params)
        c = s.coarse  # IPOPT's time on the coarse mesh, and on a fine solve from it that failed
        rows.append({"power": P, "seconds": time.perf_counter() - t0,
                     "ipopt_seconds": s.solve_time + c.get("solve_time", 0.0) + c.get("fine_time", 0.0),
                     "restarted": bool(c.get("restarted", False)),
                     "law_seconds": s.law_seconds, "build_seconds": s.build_seconds, "iterations": s.iterations,
                     "status": s.status, "speed": s.progress_speed, "law_based_speed": s.law_based.progress_speed,
                     "gain": s.gain_relative, "resimulation_error": s.resimulation_error, "success": s.success,
                     "caps_binding": [k for k, v in s.caps_active.items() if v["active"]]})
    return {"powers": rows, "nodes": nodes, "control_nodes": control_nodes,
            "front_seconds": sum(r["seconds"] for r in rows)}


def bench_control_poles(powers=(600.0,), nodes=100, control_nodes=25):
    """``bench_control`` for the free skater with V2 poles (150 N per pole from touch-down for
    0.30 s), each pole's push free too."""
    import skilib as sk

    return bench_control(powers, nodes, control_nodes, params=sk.FreeSkaterParams(pole_force_max=150.0))


#: one question in a fresh process; prints JSON {"seconds": [...], ...} on its last line
_QUESTION = r"""
import json, sys, time
what = sys.argv[1]
t0 = time.perf_counter()
import skilib
if what == "control":
    from skilib.ocp import optimal_control
    s = optimal_control("free", 600.0)
    print(json.dumps({"seconds": [time.perf_counter() - t0], "speed": [s.progress_speed]}))
else:
    from skilib.studies.optimum import required_power
    secs, power, first = [], [], None
    # 6 m/s cold; 5.8 m/s warm from it (its solution's primal-dual point, no seeded start); 5.8 m/s
    # cold again (the screen of seeded starts reused), the reference the warm answer is set beside
    for v, warm in ((6.0, False), (5.8, True), (5.8, False)):
        r = required_power(what, v, method="collocation", **(dict(warm=first, starts=0) if warm else {}))
        secs.append(time.perf_counter() - t0)
        power.append(r.budget_power)
        first = r if first is None else first
        t0 = time.perf_counter()
    print(json.dumps({"seconds": secs, "power": power}))
"""

#: the times of these questions measured before the work on speed began (2 cores, a fresh process,
#: kernel caches warm): the least power for 6 m/s by shooting, free control at 600 W
QUESTIONS_BEFORE = {"free": 37.0, "edge": 174.0, "control": 37.0}
#: the same rows with Hermite–Simpson's compressed midpoints (``skilib.ocp.collocation.SEPARATED``
#: False; 2026-12-05, this table's questions run once, right after the separated form's 6.8, 20.9,
#: 4.7 and 28.8 s, skilib imported before the clock started): least power for 6 m/s, the edged
#: skater's cold second speed, free control [s]
QUESTIONS_COMPRESSED = {"free": 7.7, "edge": 25.3, "edge_cold": 7.7, "control": 36.2}
#: the same rows with CasADi's Hessian of the whole program (``skilib.ocp.hessian.POINT_HESSIAN``
#: False, set after the import; 2026-12-05, two runs each, in turn with the point blocks' 6.4–6.6,
#: 20.3–21.7, 5.6–5.8 and 20.2–21.3 s): the lower of the two [s]
QUESTIONS_WHOLE_HESSIAN = {"free": 6.7, "edge": 19.0, "edge_cold": 4.7, "control": 29.8}
#: the same rows with the one point's Jacobian and Hessian, before the edged skater's continuation
#: took adaptive steps and carried Jacobians (2026-12-05, fresh processes, kernel caches warm; the
#: free skater's and free control's rows do not use the continuation) [s]
QUESTIONS_UNIFORM_CONTINUATION = {"free": 5.4, "edge": 19.7, "edge_cold": 5.6, "control": 16.4}
#: the periodic strokes before the frame in array operations, the prepared touch-down impact, the
#: kept stances and the interpolants only where split (medians of this table's rows, run in turn
#: with the new code, 3 pairs, 2 cores, 2026-12-02): free skater [ms], edged skater without and
#: with its multipliers [s]
STEADY_BEFORE = {"free": 53.0, "edge": 0.12, "edge_multipliers": 0.19}
#: the same rows with the C kernels' dense elimination of eq. 101 (before the bit masks; medians of
#: nine, two runs in turn with the sparse one, 2 cores, 2026-12-06): free [ms], edged [s]
STEADY_DENSE_ELIMINATION = {"free": 30.6, "edge": 0.105, "edge_multipliers": 0.169}
#: the same rows with every stroke map's signed works split (before the maps that are not
#: tabulated left them unsplit; medians, two runs in turn with the unsplit maps, 2 cores,
#: 2026-12-06): free [ms], edged [s]
STEADY_SPLIT_EVERY_MAP = {"free": 26.0, "edge": 0.101, "edge_multipliers": 0.159}
#: the free skater's row with the secant alone (six stroke maps, before the inverse quadratic
#: steps) and the maps' touch-downs with their rows' kinetic energies (medians of 30, twelve runs
#: in turn with the new search in one process, 2 cores, 2026-12-06: 15.1 against 12.9 ms) [ms]
STEADY_SECANT_ONLY = {"free": 15.1}
#: the free skater's row with every stroke map at the run's tolerance (before the coarse maps far
#: from the fixed point; medians of 15, ten runs in turn with the coarse maps in one process, 2
#: cores, 2026-12-07: 12.33 against 9.67 ms) [ms]
STEADY_NO_COARSE_MAPS = {"free": 12.3}
#: table 9's run with each output point's segment found by a Python loop, every step interpolant
#: built eagerly and the push-off column called point by point, over the run without them
#: (medians of 5, eight runs in turn in one process, 2 cores, 2026-12-06: 169.8 / 153.7 ms)
LONG_RUN_PYTHON_PER_POINT = 1.09
#: the questions with MUMPS's automatic ordering (``mumps_pivot_order`` 7, before AMD was set in
#: ``skilib.ocp.stroke.IPOPT_OPTIONS``; fresh processes, two runs each, 2026-12-06, the unsplit
#: maps in) [s]
QUESTIONS_MUMPS_AUTO = {"free": 4.6, "edge": 12.4, "edge_cold": 6.0, "control": 15.9}


#: table 9's run, the free and the edged skater's periodic strokes with a frame's output points
#: evaluated one by one from Python and its joint reactions' rotations point by point, over the same
#: with both in one call into C and in array operations (medians of 15, run in turn, 2 cores,
#: 2026-12-06: 188.6 / 165.0 ms, 29.8 / 28.8 ms, 90.9 / 87.0 ms)
POINTS_ONE_BY_ONE = {"long_run": 1.14, "free": 1.03, "edge": 1.05}


#: Exudyn's time for table 9's run, the same work in one run (1.18–1.20 s measured before the work
#: on speed began, 2 cores): the table 9 rows' ratio is to its middle [s]
EXUDYN_TABLE9 = 1.19

#: the engine's Sobol study at N = 16 384 on 2 workers: 4 × its N = 4096 row (8.4 min, 2026-12-06,
#: each row's periodic stroke without its tables), and the kept file's own run before (79 min)
SOBOL_16384_ENGINE = "≈ 34 min (kept file: 79 min)"


def bench_questions():
    """Each question in its own fresh process (the import counted): ``required_power(model, 6.0,
    method="collocation")`` then 5.8 m/s in the same process, for the free and the edged
    skater, and ``optimal_control("free", 600)``.  A first process steps both skaters once and asks
    each question once, so that the kernels' and the programs' compiled point functions' disk
    caches are warm, as they are for a user's second session."""
    warm = ("import skilib as sk; sk.free_steady_state(); sk.edge_steady_state(); "
            "from skilib.studies.optimum import required_power; from skilib.ocp import optimal_control; "
            "[required_power(m, 6.0, method='collocation') for m in ('free', 'edge')]; optimal_control('free', 600.0)")
    subprocess.run([sys.executable, "-c", warm], check=True, capture_output=True)
    out = {}
    for what in ("free", "edge", "control"):
        proc = subprocess.run([sys.executable, "-c", _QUESTION, what], capture_output=True, text=True, check=True)
        out[what] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def bench_sobol_reduced(n=16384):
    """The same study at N = 16 384 (114 688 periodic strokes) by quadrature in the skier's one
    degree of freedom (``sobol_study(method="reduced")``; the engine for a row it does not cover),
    on this machine's cores, and its widest interval."""
    return bench_sobol(n, method="reduced")


def bench_sobol(n=4096, method="engine"):
    """The sensitivity chapter's Sobol design at N = 4096 (28 672 periodic strokes of the thesis
    skier) through ``skilib.sweep`` on this machine's cores, timed (its outputs are not kept:
    ``scripts/sobol_study.py`` keeps them), and the widest 95 % interval of its indices."""
    from skilib.models.thesis.sobol_study import SOBOL_RANGES, SOBOL_SEED, sobol_study
    from skilib.studies.sensitivity import sobol_design, sobol_indices

    t0 = time.perf_counter()
    frame, info = sobol_study(n, progress=False, method=method)
    wall = time.perf_counter() - t0
    widest = 0.0
    design = sobol_design(dict(SOBOL_RANGES), n, seed=SOBOL_SEED)
    for y in ("mean_speed", "mean_power"):
        si = sobol_indices(design, frame[y], seed=SOBOL_SEED)
        widest = max(widest, float(si[["S1_conf", "ST_conf"]].to_numpy().max()))
    return {"n": n, "runs": len(frame), "seconds": wall, "n_workers": info.get("n_workers"), "widest_conf": widest,
            "method": method, "paths": info.get("paths")}


def bench_peer(repeat):
    """KanesMethod + lambdify on the single coordinate s against skilib, one sliding phase."""
    sys.path.insert(0, str(HERE))
    import kane_peer

    import skilib as sk
    from skilib.data.push import default_push_force
    from skilib.models.thesis import ski_heading

    p = sk.SkierParams()
    h, _ = ski_heading(p, 0)
    v0 = 3.0  # fast enough that the ski slides forward throughout (the peer knows no sticking)
    res = sk.simulate_phase(p, v0=v0, n_out=101)
    if len(res.events):
        raise RuntimeError("the comparison phase has stick/slip switches; the peer cannot follow it")
    tau = res.frame["tau"].to_numpy()
    rhs, t_derive, t_lambdify = kane_peer.derive(p, h, default_push_force(p.phase_time).fit)
    s_peer, nfev = kane_peer.integrate(rhs, v0, tau)
    t_peer = median_time(lambda: kane_peer.integrate(rhs, v0, tau), repeat=repeat)
    t_skilib = median_time(lambda: sk.simulate_phase(p, v0=v0, n_out=101), repeat=repeat)
    return {"kane_derive_s": t_derive, "kane_lambdify_s": t_lambdify, "kane_integrate_s": t_peer,
            "kane_rhs_evaluations": int(nfev), "skilib_phase_s": t_skilib,
            "skilib_rhs_evaluations": int(res.info["nfev"]),
            "max_abs_s_difference_m": float(np.abs(s_peer - res.frame["s"].to_numpy()).max())}


def bench_sweep(n_runs=32, strokes=6, repeat=5):
    """The same sweep on a LocalCluster of 1 and of 2 workers (workers warmed up first); the
    median of ``repeat`` sweeps each, since a few seconds of work on a shared machine vary."""
    import logging

    import pandas as pd
    from distributed import Client, LocalCluster

    import skilib as sk

    grid = pd.DataFrame({"skating_angle_deg": np.linspace(30.0, 70.0, n_runs),
                         "force_scale": np.tile([0.75, 1.0, 1.25, 1.5], n_runs // 4 + 1)[:n_runs]})
    out = {"runs": n_runs, "strokes": strokes, "repeat": repeat}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                          silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
            sk.sweep(grid.iloc[:workers], strokes=1, scheduler=client, progress=False)  # imports, kernels
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                res = sk.sweep_skier(grid, strokes=strokes, scheduler=client, progress=False)
                times.append(time.perf_counter() - t0)
                if res.info["n_failed"]:
                    raise RuntimeError(f"sweep failures: {res.failed[['run', 'error']].to_dict('records')}")
            out[f"{workers}_worker_s"] = statistics.median(times)
            out[f"{workers}_worker_all_s"] = times
    out["speedup"] = out["1_worker_s"] / out["2_worker_s"]
    return out


_LOADER_PROBE = r"""
import json, resource, sys, time
path, how = sys.argv[1], sys.argv[2]
import pandas as pd
from skilib.data.forcedata import load_force_data
t0 = time.perf_counter()
df = load_force_data(path) if how == "skilib" else pd.read_csv(path)
dt = time.perf_counter() - t0
print(json.dumps({"seconds": dt, "rows": len(df), "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def synthetic_large_csv(folder: Path, target_mb: float = 220.0) -> Path:
    """A large SYNTHETIC force file for the loader benchmark: the committed synthetic record
    repeated (time continued) to about ``target_mb`` MB, written into ``folder``."""
    from skilib.data.forcedata import default_data_path

    lines = default_data_path().read_text().splitlines()
    header, rows = lines[0], [r.split(",", 1) for r in lines[1:]]
    dt = float(rows[1][0]) - float(rows[0][0])
    path = folder / "synthetic_large_force.csv"
    k = 0
    with open(path, "w") as f:
        f.write(header + "\n")
        while f.tell() < target_mb * 1e6:
            f.write("".join(f"{(k + i) * dt:.4f},{rest}\n" for i, (_, rest) in enumerate(rows)))
            k += len(rows)
    return path


def bench_loader(target_mb: float = 220.0):
    """``load_force_data`` against ``pandas.read_csv`` on a large SYNTHETIC file, each in a
    fresh process (time and peak resident memory, imports included)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="skilib-bench-") as d:
        path = synthetic_large_csv(Path(d), target_mb)
        out = {"file_mb": path.stat().st_size / 1e6}
        for how in ("skilib", "pandas"):
            proc = subprocess.run([sys.executable, "-c", _LOADER_PROBE, str(path), how], capture_output=True,
                                  text=True, check=True)
            out[how] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def table(r) -> str:
    rhs, lr, mem, peer, sw = r.get("rhs"), r.get("long_run"), r.get("memory"), r.get("peer"), r.get("sweep")
    rows = []
    if rhs:
        rows.append(("bare numpy.linalg.solve, %d×%d [µs]" % (rhs["system_size"], rhs["system_size"]),
                     f"{rhs['bare_solve_us']:.1f}", ""))
        rows.append(("RHS, numeric engine (before) [µs]", f"{rhs['numeric_rhs_us']:.0f}",
                     f"{rhs['numeric_rhs_us'] / rhs['bare_solve_us']:.0f}× solve"))
        for be in r["backends"]:
            rows.append((f"RHS, compiled '{be}' [µs]", f"{rhs[be + '_rhs_us']:.1f}",
                         f"{rhs[be + '_rhs_us'] / rhs['bare_solve_us']:.2f}× solve (target ≤ 3)"))
    if "numeric" in r:
        nr = r["numeric"]
        rows.append(("table 9 run, numeric engine (before) [s]", f"{nr['seconds']:.2f}",
                     f"{nr['rhs_evaluations']} RHS, max|C| {nr['max_constraint_norm']:.1e}"))
    if "numeric_memory" in r:
        nm = r["numeric_memory"]
        rows.append(("table 9 run peak RSS, numeric engine (before) [MB]", f"{nm['peak_rss_mb']:.0f}",
                     f"Python heap peak of the run {nm['python_heap_peak_mb']:.1f} MB"))
    if lr:
        rows.append(("table 9 run, compiled (default) [s]", f"{lr['seconds']:.3f}",
                     f"target ≤ 0.03; the run with its frame and strokes table read; {lr['rhs_evaluations']} RHS; "
                     "sliding segments stepped in C"
                     + (f"; each stroke tabulated in a second thread while the next is integrated (the sequential "
                        f"loop, run in turn: {lr['sequential_seconds']:.3f} s; paired ratio "
                        f"{lr['overlap_ratio']:.2f})" if "sequential_seconds" in lr else "")
                     + "; the output "
                     f"points one by one from Python (before): {POINTS_ONE_BY_ONE['long_run']:g}× this time; their "
                     f"segments, step interpolants and push-off point by point (before): "
                     f"{LONG_RUN_PYTHON_PER_POINT:g}× this time"))
        if "reduced" in lr:
            rd = lr["reduced"]
            rows.append(("table 9 run by quadrature in s (reduced=True) [s]", f"{rd['seconds']:.4f}",
                         f"{rd['seconds'] / EXUDYN_TABLE9:.3f}× Exudyn's {EXUDYN_TABLE9:g} s for the same run "
                         f"(target ≤ 0.03); the run with its frame and strokes table read; {rd['paired']:.2f}× "
                         f"the stepped run's time (paired, in turn); {rd['rhs_evaluations']} evaluations of "
                         f"eq. 101 (stepped: {lr['rhs_evaluations']}); frame columns differ by "
                         f"{rd['max_rel_diff']:.1e} of their largest value"))
        if "solve_ivp_seconds" in lr:
            rows.append(("table 9 run, compiled, every step by solve_ivp [s]", f"{lr['solve_ivp_seconds']:.3f}",
                         f"{lr['solve_ivp_seconds'] / lr['seconds']:.2f}× the C steps' time; stroke speeds "
                         f"differ by {lr['max_rel_diff_vs_solve_ivp']:.1e} (rel.)"))
            rows.append(("table 9 run as one ODE in s (bare one-DOF limit, Python RHS) [s]",
                         f"{lr['one_dof_seconds']:.3f}",
                         f"{lr['one_dof_rhs_evaluations']} RHS of one state (the engine: {lr['rhs_evaluations']} of 36); "
                         f"stroke speeds differ by {lr['one_dof_max_rel_diff']:.1e} (rel.)"))
            rows.append(("thesis skier steady state, C steps / solve_ivp [ms]",
                         f"{1e3 * lr['steady_seconds']:.0f} / {1e3 * lr['steady_solve_ivp_seconds']:.0f}",
                         "the run of each point of the sensitivity chapter's Sobol design"))
        rows.append(("table 9 run max |C|", f"{lr['max_constraint_norm']:.1e}", "target ≤ 1e-6"))
    if mem:
        rows.append(("table 9 run peak RSS, fresh process [MB]", f"{mem['peak_rss_mb']:.0f}",
                     f"target ≤ 200; Python heap peak of the run {mem['python_heap_peak_mb']:.1f} MB"))
    sb = r.get("sobol_reduced")
    if sb:
        rows.append((f"Sobol design N = {sb['n']}, {sb['runs']} periodic strokes, by quadrature [min]",
                     f"{sb['seconds'] / 60:.1f}", f"target ≤ 20; {sb['n_workers']} workers; rows by path {sb['paths']}; "
                     f"the engine's: {SOBOL_16384_ENGINE} (extrapolated from N = 4096); widest 95 % interval "
                     f"±{sb['widest_conf']:.3f}"))
    sb = r.get("sobol")
    if sb:
        rows.append((f"Sobol design N = {sb['n']}, {sb['runs']} periodic strokes [min]", f"{sb['seconds'] / 60:.1f}",
                     f"target ≤ 10; {sb['n_workers']} workers; widest 95 % interval ±{sb['widest_conf']:.3f} "
                     "(target ≤ 0.02)"))
    fs = r.get("free_steady")
    if fs:
        rows.append(("free skater steady state [ms]", f"{1e3 * fs['seconds']:.1f}",
                     f"target ≤ 10; before {STEADY_BEFORE['free']:g} ms, {STEADY_DENSE_ELIMINATION['free']:g} ms (dense "
                     f"elimination), {STEADY_SPLIT_EVERY_MAP['free']:g} ms (every map split), "
                     f"{STEADY_SECANT_ONLY['free']:g} ms (the secant alone), {STEADY_NO_COARSE_MAPS['free']:g} ms (every "
                     f"map at the run's tolerance); {fs['stroke_maps']} stroke maps, {fs.get('coarse_maps', 0)} of them "
                     f"coarse (the last one tabulated), u0 {fs['u0']:.4f} m/s"
                     + (f"; {1e3 * fs['seconds_tables']:.1f} ms with its frame and strokes table read (built when "
                        "first read)" if "seconds_tables" in fs else "")))
        if "seconds_multiplier" in fs:
            rows.append(("free skater steady state with its multiplier Φ′(u0), variational [ms]",
                         f"{1e3 * fs['seconds_multiplier']:.0f}", "no target; the stroke map's slope from the "
                         "variational equations (one more stroke, stepped in Python with CasADi's derivatives)"))
    es = r.get("edge_steady")
    if es:
        rows.append(("edged skater steady state [s]", f"{es['seconds']:.2f}",
                     f"target ≤ 0.1; before {STEADY_BEFORE['edge']:g} s, {STEADY_DENSE_ELIMINATION['edge']:g} s (dense "
                     f"elimination), {STEADY_SPLIT_EVERY_MAP['edge']:g} s (every map split); {es['stroke_maps']} stroke maps, compiled, "
                     f"u0 {es['u0']:.4f} m/s"))
        if "seconds_multipliers" in es:
            rows.append(("edged skater steady state with its multipliers [s]", f"{es['seconds_multipliers']:.2f}",
                         f"target ≤ 0.1; before {STEADY_BEFORE['edge_multipliers']:g} s, "
                         f"{STEADY_DENSE_ELIMINATION['edge_multipliers']:g} s (dense elimination), "
                         f"{STEADY_SPLIT_EVERY_MAP['edge_multipliers']:g} s (every map split); the periodic stroke and the "
                         "stroke map's derivatives by differences"))
        if "seconds_variational" in es:
            rows.append(("edged skater steady state with its multipliers, variational Jacobian [s]",
                         f"{es['seconds_variational']:.2f}", "no target; the accurate path (the Jacobian exact to "
                         "the integration tolerance; differences ~2e-7): one stroke with four directions"))
    co = r.get("collocation")
    if co:
        per = max(x["seconds"] for x in co["powers"])
        rows.append(("optimum by collocation, slowest power (first: builds) [s]", f"{per:.1f}",
                     f"target ≤ 5; " + ", ".join(f"{x['power']:g} W {x['speed']:.6f} m/s" for x in co["powers"])))
        rows.append(("optimum by collocation, front of five powers [s]", f"{co['front_seconds']:.1f}",
                     f"target ≤ 30; max re-simulation error "
                     f"{max(x['resimulation_error'] for x in co['powers']):.1e}"))
        sh = co["shooting_200"]
        rows.append(("optimum by shooting, 200 W, one start, serial [s]", f"{sh['seconds']:.0f}",
                     f"{sh['speed']:.6f} m/s (collocation "
                     f"{next(x['speed'] for x in co['powers'] if x['power'] == 200.0):.6f})"))
    ec = r.get("edge_collocation")
    if ec:
        first, later = ec["powers"][0], ec["powers"][1:]
        rows.append(("edged skater's optimum by collocation, first power (builds) [s]", f"{first['seconds']:.1f}",
                     f"{first['nodes']} intervals; " + ", ".join(f"{x['power']:g} W {x['speed']:.7f} m/s"
                                                                for x in ec["powers"])))
        rows.append(("edged skater's optimum by collocation, slowest later power [s]",
                     f"{max(x['seconds'] for x in later):.1f}" if later else "–", "target ≤ 5"))
        rows.append(("edged skater's optimum by collocation, front of four powers [s]", f"{ec['front_seconds']:.1f}",
                     f"target ≤ 30; max re-simulation error {max(x['resimulation_error'] for x in ec['powers']):.1e}"))
        sh = ec["shooting_90"]
        rows.append(("edged skater's optimum by shooting, 90 W, same start [s]", f"{sh['seconds']:.0f}",
                     f"{sh['speed']:.7f} m/s (collocation "
                     f"{next(x['speed'] for x in ec['powers'] if x['power'] == 90.0):.7f})"))
    ct = r.get("control")
    if ct and "powers" in ct:
        first, later = ct["powers"][0], ct["powers"][1:]
        rows.append((f"free control, {ct['nodes']} intervals, first power (builds) [s]", f"{first['seconds']:.1f}",
                     f"build {first['build_seconds']:.1f} s, law-based start {first['law_seconds']:.1f} s, IPOPT "
                     f"{first['ipopt_seconds']:.1f} s"))
        rows.append((f"free control, {ct['nodes']} intervals, IPOPT per power, slowest [s]",
                     f"{max(x['ipopt_seconds'] for x in ct['powers']):.1f}",
                     "target ≤ 30; fine iterations " + ", ".join(str(x["iterations"]) + (" (restarted)" if x.get("restarted")
                                                                              else "") for x in ct["powers"])))
        rows.append((f"free control, {ct['nodes']} intervals, later power, slowest [s]",
                     f"{max(x['seconds'] for x in later):.1f}" if later else "–",
                     "with its law-based start and re-simulation"))
        rows.append((f"free control, front of {len(ct['powers'])} powers [s]", f"{ct['front_seconds']:.1f}",
                     ", ".join(f"{x['power']:g} W {x['speed']:.4f} m/s ({100 * x['gain']:+.2f} %)" for x in ct["powers"])))
    cp = r.get("control_poles")
    if cp and "powers" in cp:
        x = cp["powers"][0]
        rows.append((f"free control with V2 poles, push free, {cp['nodes']} intervals, {x['power']:g} W [s]",
                     f"{x['seconds']:.1f}", f"IPOPT {x['ipopt_seconds']:.1f} s, fine iterations {x['iterations']}; "
                     f"{x['speed']:.4f} m/s ({100 * x['gain']:+.2f} % over the sin² push's optimum)"))
    op = r.get("optimum")
    if op:
        rows.append((f"optimum technique at {op['power']:g} W, {op['starts']} starts, 2 workers [s]",
                     f"{op['seconds']:.0f}", f"target ≤ 300; {op['evaluations']} steady states ({op['failed']} failed), "
                                            f"{op['progress_speed']:.3f} m/s along the course"))
    if peer:
        rows.append(("peer: KanesMethod derive + lambdify [s]", f"{peer['kane_derive_s'] + peer['kane_lambdify_s']:.2f}",
                     "once per model"))
        rows.append(("peer: one phase, 1-coordinate ODE [s]", f"{peer['kane_integrate_s']:.3f}",
                     f"{peer['kane_rhs_evaluations']} RHS"))
        rows.append(("skilib: same phase, 18 coordinates [s]", f"{peer['skilib_phase_s']:.3f}",
                     f"{peer['skilib_rhs_evaluations']} RHS; reactions, energies, output frame"))
        rows.append(("peer vs skilib, max |Δs| [m]", f"{peer['max_abs_s_difference_m']:.1e}", ""))
    if sw:
        rows.append((f"sweep {sw['runs']} runs × {sw['strokes']} strokes, 1 worker [s]", f"{sw['1_worker_s']:.2f}", ""))
        rows.append((f"sweep {sw['runs']} runs × {sw['strokes']} strokes, 2 workers [s]", f"{sw['2_worker_s']:.2f}",
                     f"speed-up {sw['speedup']:.2f}× (target ≥ 1.7)"))
    qs = r.get("questions")
    if qs:
        for m, who in (("free", "free skater"), ("edge", "edged skater")):
            x = qs[m]
            rows.append((f"least power for 6 m/s, {who}, collocation, fresh process [s]", f"{x['seconds'][0]:.1f}",
                         f"target ≤ 10; before {QUESTIONS_BEFORE[m]:g} s (shooting), "
                         f"{QUESTIONS_COMPRESSED[m]:g} s (compressed midpoints), {QUESTIONS_WHOLE_HESSIAN[m]:g} s "
                         f"(whole-program Hessian), {QUESTIONS_UNIFORM_CONTINUATION[m]:g} s (uniform continuation), "
                         f"{QUESTIONS_MUMPS_AUTO[m]:g} s (MUMPS's own ordering); {x['power'][0]:.2f} W"))
            rows.append((f"least power for 5.8 m/s after 6 m/s, {who}, same process, warm [s]",
                         f"{x['seconds'][1]:.2f}", f"target ≤ 3; {x['power'][1]:.6f} W (warm from 6 m/s: "
                         f"the solution's primal-dual point, no seeded start)"))
            if len(x["seconds"]) > 2:
                before = (f" (compressed midpoints {QUESTIONS_COMPRESSED['edge_cold']:g} s, whole-program Hessian "
                          f"{QUESTIONS_WHOLE_HESSIAN['edge_cold']:g} s, uniform continuation "
                          f"{QUESTIONS_UNIFORM_CONTINUATION['edge_cold']:g} s, MUMPS's own ordering "
                          f"{QUESTIONS_MUMPS_AUTO['edge_cold']:g} s)" if m == "edge" else "")
                rows.append((f"least power for 5.8 m/s after 6 m/s, {who}, same process, cold [s]",
                             f"{x['seconds'][2]:.1f}", f"the seeded starts, screen reused{before}; {x['power'][2]:.6f} "
                             f"W, warm − cold {x['power'][1] - x['power'][2]:+.1e} W"))
        x = qs["control"]
        rows.append(("optimal_control('free', 600), fresh process [s]", f"{x['seconds'][0]:.1f}",
                     f"target ≤ 20; before {QUESTIONS_BEFORE['control']:g} s, {QUESTIONS_COMPRESSED['control']:g} s "
                     f"(compressed midpoints), {QUESTIONS_WHOLE_HESSIAN['control']:g} s (whole-program Hessian), "
                     f"{QUESTIONS_UNIFORM_CONTINUATION['control']:g} s (uniform continuation), "
                     f"{QUESTIONS_MUMPS_AUTO['control']:g} s (MUMPS's own ordering); "
                     f"{x['speed'][0]:.4f} m/s"))
    ld = r.get("loader")
    if ld:
        for how in ("skilib", "pandas"):
            x = ld[how]
            rows.append((f"force loader, {how}, {ld['file_mb']:.0f} MB SYNTHETIC CSV [s]", f"{x['seconds']:.2f}",
                         f"peak RSS {x['peak_rss_mb']:.0f} MB" + (" (target: close to pandas)" if how == "skilib"
                                                                   else "")))
    judged = [(a, b, *judge(b, c), c) for a, b, c in rows]
    r["table"] = [dict(quantity=a, value=b, target=t, passed=ok, note=c) for a, b, t, ok, c in judged]
    w = max(len(a) for a, _, _ in rows)
    v = max(len(b) for _, b, _ in rows)
    tw = max(len("target"), *(len(t) for _, _, t, _, _ in judged))
    mark = {True: "pass", False: "FAIL", None: "—"}
    lines = [f"{'quantity':{w}s}  {'value':>{v}s}  {'target':{tw}s}  pass  note", "-" * (w + v + tw + 46)]
    lines += [f"{a:{w}s}  {b:>{v}s}  {t:{tw}s}  {mark[ok]:4s}  {c}" for a, b, t, ok, c in judged]
    return "\n".join(lines)


_TARGET = re.compile(r"(?:([-+0-9.e]+)×[^()]*\()?target ([≤≥]) ([-+0-9.e]+)")


def judge(value: str, note: str) -> tuple[str, bool | None]:
    """The target written in a row's note ("target ≤ 3", "speed-up 1.67× (target ≥ 1.7)") and
    whether it is met: by the "N×" ratio just before "(target", else by the row's value.
    A row without a target is ("—", None); a target in words ("target: close to pandas") is
    shown and not judged (None)."""
    m = _TARGET.search(note)
    if m is None:
        words = re.search(r"target: ([^)]*)", note)
        return (words.group(1) if words else "—"), None
    measured, rel, bound = float(m.group(1) or value), m.group(2), float(m.group(3))
    return f"{rel} {m.group(3)}{'×' if m.group(1) else ''}", (measured <= bound) if rel == "≤" else (measured >= bound)


def git_commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


#: the rows, in the order they run (``--only`` picks some)
STEPS = ("rhs", "long_run", "memory", "free_steady", "edge_steady", "optimum", "collocation", "edge_collocation",
         "control", "control_poles", "questions", "peer", "loader",
         "numeric", "numeric_memory", "sweep", "sobol", "sobol_reduced")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the numeric-engine long run and the sweep scaling")
    ap.add_argument("--repeat", type=int, default=5, help="repetitions per timing (median reported)")
    ap.add_argument("--only", nargs="+", choices=STEPS, metavar="NAME",
                    help=f"run just these rows ({', '.join(STEPS)}); writes no latest.json")
    args = ap.parse_args(argv)
    from skilib.engine.codegen import c_compiler, default_backend

    backends = [b for b in ("c", "numba") if b != "c" or c_compiler()]
    r = {"commit": git_commit(), "date": _dt.datetime.now().isoformat(timespec="seconds"),
         "machine": {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count(),
                     "numpy": np.__version__},
         "default_backend": default_backend(), "backends": backends, "repeat": args.repeat}
    steps = [("rhs", lambda: bench_rhs(backends)),
             ("long_run", lambda: bench_long_run(True, args.repeat)),
             ("memory", bench_memory),
             ("free_steady", lambda: bench_free_steady(args.repeat)),
             ("edge_steady", lambda: bench_edge_steady(min(args.repeat, 3))),
             ("optimum", bench_optimum),
             ("collocation", bench_collocation),
             ("edge_collocation", bench_edge_collocation),
             ("control", bench_control),
             ("control_poles", bench_control_poles),
             ("questions", bench_questions),
             ("peer", lambda: bench_peer(args.repeat)),
             ("loader", bench_loader)]
    if not args.quick or args.only:
        steps += [("numeric", lambda: bench_long_run(False, 3)), ("numeric_memory", lambda: bench_memory(False)),
                  ("sweep", bench_sweep), ("sobol", bench_sobol),
                  ("sobol_reduced", bench_sobol_reduced)]
    if args.only:
        steps = [(name, fn) for name, fn in steps if name in args.only]
    for name, fn in steps:
        t0 = time.perf_counter()
        print(f"[bench] {name} …", file=sys.stderr, flush=True)
        r[name] = fn()
        print(f"[bench] {name} done in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    text = table(r)
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    paths = [RESULTS / f"bench-{stamp}.json"] + ([] if args.only else [RESULTS / "latest.json"])
    for path in paths:
        path.write_text(json.dumps(r, indent=2))
    print(f"[bench] written {paths[-1]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
