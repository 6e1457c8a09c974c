"""The faster paths of a steady state against the paths they replace.

- the frame's model columns in array operations (``point_columns_stack``) against the point-by-point
  reference (``point_columns``), for the free, the edged and the thesis's skier, sliding, stuck
  and with poles: the same columns, the same NaNs, the numbers to 1e-12;
- the stacked evaluations against single ones, bit for bit;
- a touch-down's impact prepared once (``ImpactSite``) and applied at a translated pose against
  ``impact`` at that pose;
- the C stepper's interpolants built only where the signed works need them: the same steps and
  states bit for bit, three evaluations fewer for every step not split;
- a stroke map that is not tabulated with its signed works unsplit: the same end state and the same
  periodic strokes bit for bit;
- the screen of seeded starts run in a forked process while the collocated program is built
  (``skilib.studies.beside``): the same starts, and the same coach's answer, bit for bit;
- the thesis skier's periodic stroke found without its tables (``steady_means``, what the Sobol
  study asks for) against ``steady_state``: the same u0, means, residual and iterations bit for bit;
- a run that tabulates each stroke in a second thread while it integrates the next
  (``Skating.overlap_tables``) against the sequential loop: the same tables bit for bit, and the
  errors raised in the sequential loop's order.
"""
from __future__ import annotations

import functools
import json
import subprocess
import sys
import threading

import numpy as np
import pandas as pd
import pytest

import skilib as sk
import skilib.strokes.run as strokes_run
from skilib.engine import ImpactSite, impact
from skilib.engine.evaluation import stack_evaluations
from skilib.engine.projection import project_velocities, velocity_projector
from skilib.models.free.run import STANCE_CACHE_SIZE, FreeSkating, free_options_of, stance_of
from skilib.models.free.params import with_overrides
from skilib.strokes.frame import column_extreme, frame_of, stroke_columns


def _frames(monkeypatch, run):
    """The frame of ``run()`` with the stacked columns and with the point-by-point reference."""
    fast = run().frame
    monkeypatch.setattr(strokes_run, "stroke_columns", functools.partial(stroke_columns, stacked=False))
    slow = run().frame
    monkeypatch.undo()
    return fast, slow


def _compare(measured, what, fast, slow, tol=1e-12):
    assert list(fast.columns) == list(slow.columns), what
    worst = 0.0
    for c in fast.columns:
        a, b = fast[c].to_numpy(), slow[c].to_numpy()
        if a.dtype.kind not in "fiu":
            assert (a == b).all(), f"{what}: column {c}"
            continue
        a, b = a.astype(float), b.astype(float)
        assert np.array_equal(np.isnan(a), np.isnan(b)), f"{what}: the NaNs of column {c}"
        ok = ~np.isnan(b)
        if ok.any():
            worst = max(worst, float((np.abs(a[ok] - b[ok]) / np.maximum(1.0, np.abs(b[ok]))).max()))
    measured.check(f"{what}: stacked frame vs point by point, every column", worst, tol, "rel.")


_POLES = dict(pole_force_max=150.0, pole_start=0.1, pole_contact_time=0.3)


@pytest.mark.parametrize("params", [{}, _POLES], ids=["free", "free with poles"])
def test_free_skater_frame_stacked_equals_point_by_point(monkeypatch, measured, params):
    """The free skater's frame, its columns in array operations against point by point, without
    and with poles: every column to 1e-12 (rel. above 1), the same NaNs."""
    p = sk.FreeSkaterParams(**params)
    fast, slow = _frames(monkeypatch, lambda: sk.simulate_free(p, strokes=2, v0=3.0))
    _compare(measured, f"free skater {params or 'default'}", fast, slow)


@pytest.mark.parametrize("params", [{}, dict(pole_force_max=20.0, max_leg_length=1.1)],
                         ids=["edged", "edged with poles"])
def test_edge_skater_frame_stacked_equals_point_by_point(monkeypatch, measured, params):
    """The edged skater's periodic run, its frame in array operations against point by point,
    without and with poles: every column to 1e-12."""
    p = sk.EdgeSkaterParams(**params)
    fast, slow = _frames(monkeypatch, lambda: sk.simulate_edge(p, strokes=2))
    _compare(measured, f"edged skater {params or 'default'}", fast, slow)


def test_thesis_skier_frame_stacked_equals_point_by_point_sliding_both_ways(monkeypatch, measured):
    """The thesis's skier on a 5 % climb, its ski sliding forwards and back: the stacked frame
    against point by point to 1e-12."""
    fast, slow = _frames(monkeypatch, lambda: sk.simulate_run(sk.SkierParams(slope_deg=5.0), strokes=2))
    assert set(fast["mode"]) == {1, -1}, "the run must slide forwards and back"
    _compare(measured, "thesis skier", fast, slow)


def test_stuck_ski_frame_stacked_equals_point_by_point(monkeypatch, measured):
    """A free skater whose ski stops and sticks (a narrow V on a climb, friction 0.1): the stuck
    segments' columns (the stick row's friction) too."""
    p = sk.FreeSkaterParams(skating_angle_deg=30.0, slope_deg=3.0, friction_coefficient=0.1)
    run = lambda: sk.simulate_free(p, strokes=3, v0=0.5, admissibility="report")  # noqa: E731
    fast, slow = _frames(monkeypatch, run)
    assert set(fast["mode"]) == {0, 1}, "the run must slide and stick"
    _compare(measured, "free skater, ski stopping", fast, slow)


def test_stacked_evaluations_are_the_single_ones_bit_for_bit(measured):
    """Five evaluations of eq. 101 stacked against the single ones: the arrays copied exactly,
    ½q̇ᵀMq̇ and the rows' powers to a few ulp."""
    skating = FreeSkating(free_options_of(with_overrides(None), {}))
    model, q, qd = skating.start(2.0)
    system = model.system(1)
    t = np.linspace(0.0, 0.3, 5)
    Q, QD = np.tile(q, (5, 1)) + 1e-3 * t[:, None], np.tile(qd, (5, 1))
    E = stack_evaluations(system, t, Q, QD, 5.0, 5.0)
    worst = 0.0
    for j in range(5):
        e = system.evaluate(t[j], Q[j], QD[j], 5.0, 5.0)
        for f in ("qdd", "lam", "M", "C", "Cq", "Cdot", "powers"):
            worst = max(worst, float(np.abs(getattr(E, f)[j] - getattr(e, f)).max()))
        worst = max(worst, abs(E.kinetic_energy[j] - e.kinetic_energy) / e.kinetic_energy)
        worst = max(worst, float(np.abs(E.row_power[j] - e.row_power).max()))
    measured.check("stacked evaluations vs single ones (kinetic energy rel.)", worst, 1e-14,
                   argued="the arrays are copies (0); ½q̇ᵀMq̇ sums in another order (a few ulp)")


def test_impact_site_at_a_translated_pose_is_the_impact_there(measured):
    """A stance lands at a translation of its pose: its impact prepared once at the origin gives
    the impact ``impact`` computes at the translated pose."""
    skating = FreeSkating(free_options_of(with_overrides(None), {}))
    stance = skating.stance("left")
    system = stance.model.system(1)
    shift = np.zeros(system.nq)
    P = np.array([37.25, -4.5, 0.0])
    shift[:3], shift[stance.model.cm] = P, P
    q1 = stance.q + shift
    rng = np.random.default_rng(20261202)  # the seed, recorded
    worst = {"q̇⁺": 0.0, "ν": 0.0, "energy": 0.0}
    for _ in range(5):
        v = rng.normal(size=system.nq)
        a, b = stance.site.apply(v, q=q1), impact(system, q1, v)
        worst["q̇⁺"] = max(worst["q̇⁺"], float(np.abs(a.qd - b.qd).max()))
        worst["ν"] = max(worst["ν"], float(np.abs(a.impulses - b.impulses).max() / np.abs(b.impulses).max()))
        worst["energy"] = max(worst["energy"], abs(a.ke_lost - b.ke_lost) / b.ke_before)
        assert np.array_equal(a.q, q1) and a.residual <= 1e-12
    for k, err in worst.items():
        measured.check(f"impact prepared at the stance's pose vs impact at a translation: {k}", err, 1e-12)


def test_velocity_projector_is_project_velocities(measured):
    """The augmented matrix factorized once and solved for several q̇ against a solve per q̇:
    the same q̇⁺ and ν to 1e-12, and q̇⁺ on the rows."""
    rng = np.random.default_rng(7)
    A = rng.normal(size=(6, 6))
    M, Cq, Ct = A @ A.T + 6 * np.eye(6), rng.normal(size=(2, 6)), rng.normal(size=2)
    solve = velocity_projector(M, Cq, Ct)
    err = 0.0
    for _ in range(3):
        v = rng.normal(size=6)
        (a, na), (b, nb) = solve(v), project_velocities(M, Cq, Ct, v)
        err = max(err, float(np.abs(a - b).max()), float(np.abs(na - nb).max()))
        measured.check("projected velocities on the rows", np.abs(Cq @ a + Ct).max(), 1e-12)
    measured.check("velocity_projector vs project_velocities", err, 1e-12)


def test_stances_are_kept_per_parameter_set():
    p = sk.FreeSkaterParams()
    a = stance_of(p, "right", None, "zxz")
    assert stance_of(sk.FreeSkaterParams(), "right", None, "zxz") is a  # equal frozen params: the same stance
    assert stance_of(sk.FreeSkaterParams(stroke_time=0.9), "right", None, "zxz") is not a
    laws = sk.FreeSkaterModel(p, "right", np.zeros(3)).laws
    assert stance_of(p, "right", laws, "zxz") is not stance_of(p, "right", laws, "zxz")  # given laws: never kept
    for k in range(STANCE_CACHE_SIZE + 1):
        stance_of(sk.FreeSkaterParams(stroke_time=0.8 + 0.01 * k), "right", None, "zxz")
    assert stance_of(p, "right", None, "zxz") is not a  # pushed out by newer ones


def test_the_edged_skater_s_kept_start_models_give_the_same_bits(monkeypatch):
    """The edged skater's stroke maps start from a model kept per (ℓ0, d0), with its compiled
    systems (``EdgeSkating._start_model``, ``systems``): the maps of the search's and the
    multipliers' differences that move only u or φ̇ reuse one.  Against a model and systems built
    anew for every map: the same fixed point, multipliers and tables bit for bit, and fewer
    models and compilations (7 of 40 and of 20 at the defaults)."""
    import skilib.strokes.stroke as stroke_module
    from skilib.models.edge.model import EdgeSkaterModel
    from skilib.models.edge.skating import EdgeSkating

    built = {"model": 0, "compile": 0}
    init, compile_ = EdgeSkaterModel.__init__, stroke_module.compile_system

    def counted_init(self, *a, **k):
        built["model"] += 1
        init(self, *a, **k)

    def counted_compile(*a, **k):
        built["compile"] += 1
        return compile_(*a, **k)

    monkeypatch.setattr(EdgeSkaterModel, "__init__", counted_init)
    monkeypatch.setattr(stroke_module, "compile_system", counted_compile)
    kept = sk.edge_steady_state()
    kept_counts = dict(built)
    built.update(model=0, compile=0)

    def fresh(self, ell0, d):
        return EdgeSkaterModel(self.o.params, self.o.first_ski, np.zeros(3), ell0, self.o.rotation, d, laws=self.o.laws)

    monkeypatch.setattr(EdgeSkating, "_start_model", fresh)
    monkeypatch.setattr(EdgeSkating, "systems", lambda self, model: None)
    anew = sk.edge_steady_state()
    assert np.array_equal(kept.x0, anew.x0) and np.array_equal(kept.multipliers, anew.multipliers)
    assert kept.iterations == anew.iterations and kept.residual.tolist() == anew.residual.tolist()
    assert kept.frame.equals(anew.frame) and kept.strokes.equals(anew.strokes)
    assert kept_counts["model"] < built["model"] and kept_counts["compile"] < built["compile"]


def test_steady_state_asked_again_is_the_same_bit_for_bit():
    a, b = sk.free_steady_state(), sk.free_steady_state()
    assert a.u0 == b.u0 and a.iterations == b.iterations
    assert a.frame.equals(b.frame) and a.strokes.equals(b.strokes)


def test_interpolants_only_where_split_same_steps_fewer_evaluations(measured):
    """A stroke map without dense output has its interpolants built only for the steps whose
    signed works are split: y at every step is the dense run's bit for bit, and each other step
    saves exactly DOP853's three extra stages."""
    skating = FreeSkating(free_options_of(with_overrides(None), {}))
    settings = skating.settings()
    model, q, qd = skating.start(2.0)
    runs = {}
    for dense in (True, False):
        settings.budget.start()
        stroke, y0, segments, y_end, events = strokes_run.integrate_stroke(skating, settings, 0, model, q, qd, dense)
        runs[dense] = (stroke.nfev, y_end)
    assert np.array_equal(runs[True][1], runs[False][1])
    saved = runs[True][0] - runs[False][0]
    assert saved > 0 and saved % 3 == 0
    measured.check("stroke map's end state, interpolants only where split vs everywhere",
                   np.abs(runs[True][1] - runs[False][1]).max(), 1e-15)


def test_a_stroke_map_without_the_split_is_the_same_map_bit_for_bit():
    """A stroke map that is not tabulated leaves its signed works unsplit (``works=False``): for the
    free and the edged skater stepped in C, every state but W⁺, W⁻ at the stroke's end is the split
    run's bit for bit (the steps do not see them), W⁺, W⁻ are NaN (no number to misread), and the
    split steps' interpolants are not built (three evaluations fewer each).  The periodic strokes
    found through such maps are the ones found with every map split, bit for bit."""
    from skilib.models.edge import steady as edge_steady
    from skilib.models.edge.run import edge_run_options
    from skilib.models.edge.skating import EdgeSkating

    edge = EdgeSkating(edge_run_options(sk.EdgeSkaterParams(), strokes=1, v0=3.7,
                                        **{**edge_steady._solver({}), "reach": False}))
    free = FreeSkating(free_options_of(with_overrides(None), {}))
    for skating, start in ((free, free.start(2.0)), (edge, edge.start_from((3.7, -0.35, 0.835, 0.2)))):
        settings = skating.settings()
        model, q, qd = start
        runs = {}
        for works in (True, False):
            settings.budget.start()
            stroke, _, _, y_end, _ = strokes_run.integrate_stroke(skating, settings, 0, model, q, qd, False, works)
            runs[works] = (stroke.nfev, y_end)
        signed = np.zeros(len(y_end), dtype=bool)
        for a in model.actuators:
            j = 2 * model.nq + model.extra_states.index(f"{a}_positive")
            signed[j: j + 2] = True
        assert signed.any() and np.isnan(runs[False][1][signed]).all()
        assert np.array_equal(runs[True][1][~signed], runs[False][1][~signed])
        saved = runs[True][0] - runs[False][0]
        assert saved > 0 and saved % 3 == 0
    with pytest.raises(ValueError, match="works: the signed works are left unsplit only without interpolants"):
        strokes_run.integrate_stroke(free, free.settings(), 0, *free.start(2.0), True, False)
    with pytest.raises(ValueError, match="^works: must be True or False"):
        strokes_run.integrate_stroke(free, free.settings(), 0, *free.start(2.0), False, "no")
    # the fixed points through unsplit maps against those through split ones
    split = functools.partial(strokes_run.integrate_stroke, works=True)
    found = {}
    for name, patch in (("unsplit", None), ("split", split)):
        with pytest.MonkeyPatch.context() as mp:
            if patch is not None:
                import skilib.strokes.periodic as periodic

                mp.setattr(periodic, "integrate_stroke", lambda *a, **k: split(*a, **{**k, "works": True}))
                mp.setattr(edge_steady, "integrate_stroke", lambda *a, **k: split(*a, **{**k, "works": True}))
            f, e = sk.free_steady_state(), sk.edge_steady_state()
        found[name] = (f.u0, f.frame, e.x0, e.multipliers, e.frame)
    a, b = found["unsplit"], found["split"]
    assert a[0] == b[0] and np.array_equal(a[2], b[2]) and np.array_equal(a[3], b[3])
    for fa, fb in ((a[1], b[1]), (a[4], b[4])):
        num = fa.select_dtypes("number").columns
        assert np.array_equal(fa[num].to_numpy(), fb[num].to_numpy(), equal_nan=True)


def test_a_stroke_maps_touch_down_without_its_row_is_the_touch_down_bit_for_bit():
    """A stroke map reads only the next stroke's start (``Skating.next_start``): the free skater's
    touch-down under either rule without its row (the plastic rule's kinetic energies not
    evaluated) gives the row's model and q, q̇ bit for bit, and the periodic stroke found
    through it is the one found through the whole touch-down, bit for bit."""
    for rule in ("plastic", "along_ski"):
        free = FreeSkating(free_options_of(with_overrides(None), {"touchdown": rule}))
        settings = free.settings()
        model, q, qd = free.start(2.0)
        settings.budget.start()
        y_end = strokes_run.integrate_stroke(free, settings, 0, model, q, qd, False, False)[3]
        n = model.nq
        whole = free.touch_down(1, model, y_end[:n], y_end[n: 2 * n])
        short = free.next_start(1, model, y_end[:n], y_end[n: 2 * n])
        assert short[0].side == whole[0].side and np.array_equal(short[1], whole[1]) and np.array_equal(short[2], whole[2])
    fast = sk.free_steady_state()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(FreeSkating, "next_start", lambda self, k, m, q, qd: self.touch_down(k, m, q, qd)[:3])
        slow = sk.free_steady_state()
    assert FreeSkating.next_start is not strokes_run.Skating.next_start  # the free skater's own was measured
    assert (fast.u0, fast.residual, fast.iterations) == (slow.u0, slow.residual, slow.iterations)
    assert fast.history == slow.history


@pytest.mark.parametrize("model", ["free", "edge"])
def test_step_path_is_odesolution_bit_for_bit(monkeypatch, model):
    """A stroke's path over its C steps evaluated in one array expression (``StepPath``) against
    SciPy's ``OdeSolution`` over the same interpolants, at the output grid, at the steps' own
    times (where OdeSolution picks the earlier step) and at one time: the same bits, the split
    steps (``SignedDense``: the signed works split at the net work's turning points, a step's
    points together) included.  The edged skater's leg turns its power's sign in most steps."""
    from scipy.integrate import OdeSolution

    from skilib.engine.codegen.stepper import StepPath

    if model == "free":
        skating = FreeSkating(free_options_of(with_overrides(None), {}))
        settings = skating.settings()
        m, q, qd = skating.start(2.0)
        settings.budget.start()
        _, _, segments, _, _ = strokes_run.integrate_stroke(skating, settings, 0, m, q, qd, True)
        grid = settings.grid
    else:  # the segments of the edged skater's first stroke, as its run tabulates them
        seen, tabulate = {}, strokes_run.tabulate_stroke

        def captured(skating, settings, k, m, stroke, y0, segments, *a):
            seen.setdefault("segments", segments)
            seen.setdefault("grid", settings.grid)
            return tabulate(skating, settings, k, m, stroke, y0, segments, *a)

        monkeypatch.setattr(strokes_run, "tabulate_stroke", captured)
        sk.simulate_edge(strokes=1)
        segments, grid = seen["segments"], seen["grid"]
    path = segments[0].path
    assert isinstance(path, StepPath) and (~path._plain).any(), "a path with split steps"
    ref = OdeSolution(path.ts, path.interpolants)
    grid = np.concatenate([grid[grid <= segments[0].end], path.ts, path.ts[::-1][:5]])
    on_split = ~path._plain[np.clip(np.searchsorted(path.ts, grid, side="left") - 1, 0, len(path._plain) - 1)]
    assert on_split.sum() >= 5, "points on split steps"
    assert np.array_equal(path(grid), ref(grid))
    assert np.array_equal(path(grid[7]), ref(grid[7]))
    # the interpolants, built when asked for, read as a list's: length, negative index, iteration
    steps = path.interpolants
    assert len(steps) == len(path.ts) - 1 and steps[-1] is steps[len(steps) - 1] and len(list(steps)) == len(steps)
    with pytest.raises(IndexError):
        steps[len(steps)]


def test_the_push_at_every_point_is_the_push_called_point_by_point_bit_for_bit():
    """The frame's push-off column in one call (``PushForce.at_points``: the scalar path's
    recurrence element-wise) against the push called at each point, bit for bit, on a grid with
    the phase's ends and rounding overshoots of 1e-10 T; a point outside the phase is refused
    with the call's own message."""
    from skilib.data.push import default_push_force

    push = default_push_force(0.8)
    T = push.phase_time
    tau = np.concatenate([np.linspace(0.0, T, 161), [-1e-10 * T, T * (1 + 1e-10), 0.3 * T]])
    assert np.array_equal(push.at_points(tau), np.array([float(push(t)) for t in tau]))
    with pytest.raises(ValueError, match=r"^tau: phase time\(s\) outside"):
        push.at_points(np.array([0.1, T + 0.01]))


_BESIDE = r"""
import json, os, sys
import numpy as np
import pandas as pd
import skilib.studies.optimum as opt
from skilib.ocp import stroke
from skilib.studies.beside import can_fork

what = sys.argv[1]
def digest(r):
    return [float(r.budget_power).hex(), float(r.progress_speed).hex()] + [float(v).hex() for v in r.x.values()]

def screen(beside):
    tm = opt.TechniqueModel("free", tuple(opt.FREE_BOUNDS), None, None, "progress", "net")
    lo, hi = (np.array([b[i] for b in opt.FREE_BOUNDS.values()]) for i in (0, 1))
    pts = opt._screened_starts(tm, lo, hi, 2, 0, beside=beside)
    rows = [{k: (float(v).hex() if isinstance(v, float) else v) for k, v in e.items()} for e in tm.log]
    steady = [[float(v).hex() for v in (ss.mean_power, ss.u0, ss.strokes.iloc[0]["mean_vx"])]
              for _, ss in tm.screened_steady]
    return dict(pts=[float(v).hex() for v in np.ravel(pts)], rows=rows, steady=steady)

out = {"can_fork": can_fork()[0]}
if what == "screen":
    out["forked"] = screen(lambda: os.getpid())
    opt._SCREENED.clear()
    out["in_turn"] = screen(None)
else:
    out["forked"] = digest(opt.required_power("free", 6.0, method="collocation"))
    opt._SCREENED.clear()
    stroke._PROGRAMS.clear()
    os.environ["SKILIB_FORK"] = "0"
    out["in_turn"] = digest(opt.required_power("free", 6.0, method="collocation"))
print(json.dumps(out))
"""


def _beside(what):
    proc = subprocess.run([sys.executable, "-c", _BESIDE, what], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if not out["can_fork"]:
        pytest.skip("this platform runs the screen and the program's construction in turn")
    return out


def test_screen_in_a_forked_process_is_the_screen_in_turn_bit_for_bit():
    """The free skater's screen of seeded starts run in a forked process beside other work
    (``_screened_starts(beside=)``, in a fresh interpreter: one thread) against the screen run
    in turn: the same points, log rows and steady states, bit for bit."""
    out = _beside("screen")
    assert out["forked"] == out["in_turn"]
    assert len(out["forked"]["steady"]) == 2


@pytest.mark.slow
def test_coach_question_with_the_program_built_beside_the_screen_is_the_same_bit_for_bit():
    """The free skater's least power for 6 m/s by collocation with its program built while the
    screen runs in a forked process, against both in turn (``SKILIB_FORK=0``, every cache
    cleared): the same power, speed and technique, bit for bit."""
    out = _beside("question")
    assert out["forked"] == out["in_turn"]


def test_steady_means_are_the_steady_states_bit_for_bit(monkeypatch, sobol_sample):
    """The thesis skier's periodic stroke found without its tables (``steady_means``) against
    ``steady_state`` on rows of the Sobol design (with little and with much friction; each search's
    first map from rest) and at table 9: u0, the mean speed and power, the residual and the number of stroke
    maps equal bit for bit (the means are the stroke's integrals at its end, the same stroke);
    no stroke is tabulated or integrated again."""
    from skilib.models.thesis.sobol_study import SOBOL_SOLVER
    from skilib.models.thesis.steady import steady_means, steady_state
    import skilib.strokes.periodic as periodic

    cases = [(sk.SkierParams(), 1.0, {})] + [(p, fs, SOBOL_SOLVER) for p, fs in sobol_sample(8, params=True)]
    full = [steady_state(p, force_scale=fs, **kw) for p, fs, kw in cases]
    assert all(f.history["u"].iloc[0] == 0.0 for f in full)  # each search's first map starts from rest
    assert any(p.friction < 2.0 for p, _, _ in cases) and any(p.friction > 10.0 for p, _, _ in cases)

    def refuse(*a, **k):
        raise AssertionError("a stroke tabulated")

    maps = []
    integrate = periodic.integrate_stroke
    monkeypatch.setattr(periodic, "tabulate_stroke", refuse)
    monkeypatch.setattr(periodic, "integrate_stroke", lambda *a, **k: maps.append(a[6]) or integrate(*a, **k))
    for (p, fs, kw), f in zip(cases, full):
        maps.clear()
        m = steady_means(p, force_scale=fs, **kw)
        assert (m.u0, m.mean_speed, m.mean_power, m.residual, m.iterations) == \
               (f.u0, f.mean_speed, f.mean_power, f.residual, f.iterations)
        assert len(maps) == m.iterations and not any(maps)  # one stroke per map, none with dense output


def test_a_steady_sweep_of_the_means_is_the_full_sweep_bit_for_bit(sobol_sample):
    """``sweep_skier(strokes="steady", outputs=...)`` asked only for the means (the Sobol study's
    outputs) gives the full sweep's columns bit for bit; a run from rest asked for some columns
    gives those of its full summary."""
    from skilib.models.thesis.sobol_study import SOBOL_SOLVER
    from skilib.studies.skier_sweep import MEANS_COLUMNS, run_summary

    rows = sobol_sample(4)
    full = sk.sweep_skier(rows, strokes="steady", solver=SOBOL_SOLVER, scheduler="serial", progress=False).frame
    cols = [c for c in MEANS_COLUMNS if c != "runtime_s"]
    lean = sk.sweep_skier(rows, strokes="steady", solver=SOBOL_SOLVER, outputs=cols, scheduler="serial",
                          progress=False).frame
    assert [c for c in lean.columns if c in MEANS_COLUMNS] == cols
    for c in cols:
        assert np.array_equal(lean[c].to_numpy(), full[c].to_numpy()), c
    row = dict(rows.iloc[0])
    some = run_summary(row, strokes=2, outputs=("mean_speed", "distance_x"))
    whole = run_summary(row, strokes=2)
    assert some == {k: whole[k] for k in ("mean_speed", "distance_x")}


def test_stacked_rotation_matrices_are_the_point_by_point_ones_bit_for_bit():
    """ZXZ's A and G at many points at once (what the joint reactions of a frame take) equal
    ``A`` and ``G`` point by point bit for bit: the same operations on the same numbers, across
    every quadrant and near θ = 0; and Euler parameters' (a loop) too."""
    from skilib.engine.rotation import ZXZ

    from skilib.engine.rotation import EulerParameters

    rng = np.random.default_rng(20261206)
    th = np.vstack([rng.uniform(-7.0, 7.0, (400, 3)), [[0.0, 0.0, 0.0], [1.0, 1e-12, -2.0]]])
    p = rng.standard_normal((50, 4))  # Euler parameters, not normalized (A normalizes)
    for rot, x in ((ZXZ, th), (EulerParameters, p)):
        A, G = rot.A_stack(x), rot.G_stack(x)
        assert all(np.array_equal(A[k], rot.A(t)) and np.array_equal(G[k], rot.G(t)) for k, t in enumerate(x))


def _evaluations_one_by_one(system, t, q, qd, alpha, beta):
    out = []
    for j in range(len(t)):
        e = system.evaluate(t[j], q[j], qd[j], alpha, beta).copy()
        out.append(e)
    return out


def test_points_evaluated_in_c_are_the_point_by_point_evaluations_bit_for_bit(rng):
    """``CompiledSystem.evaluate_many`` (eq. 101 at many points in one call into C) gives each
    field of ``evaluate`` point by point bit for bit: a pendulum in ZXZ angles at random states,
    and a block whose friction acts on its floor row's load; a point where the load pulls raises
    the same ``NegativeLoadError`` as one evaluation there."""
    import math

    from test_load_friction import _block_on_incline

    from skilib.engine import NegativeLoadError, examples
    from skilib.engine.codegen import compile_system
    from skilib.engine.rotation import EulerParameters

    ex = examples.pendulum(angle_deg=40.0)
    pend = compile_system(ex.system, backend="c")
    k = 25
    t = np.linspace(0.0, 1.0, k)
    q = ex.q0 + 0.3 * rng.standard_normal((k, pend.nq))
    qd = 0.5 * rng.standard_normal((k, pend.nq))

    def block(P, phi):  # the incline's block on the flat, its friction's direction fixed (compilable)
        return compile_system(_block_on_incline(0.0, 0.3, P, phi, sign=1)[0], backend="c")

    slide = block(20.0, 0.4)
    qb = np.tile(np.concatenate([[0.4, 0.0, 0.05], EulerParameters.from_matrix(np.eye(3))]), (k, 1))
    qdb = np.zeros((k, 7))
    qdb[:, 0] = np.linspace(0.5, 2.0, k)
    for system, qq, qqd in ((pend, q, qd), (slide, qb, qdb)):
        many = system.evaluate_many(t, qq, qqd, 3.0, 4.0)
        assert many is not None
        for j, e in enumerate(_evaluations_one_by_one(system, t, qq, qqd, 3.0, 4.0)):
            for f in ("qdd", "lam", "M", "C", "Cq", "Cdot", "powers"):
                assert np.array_equal(many[f][j], getattr(e, f)), f
            for name in e.force_names:
                assert np.array_equal(many["forces"][name][j], e.forces[name]), name
    lifted = block(60.0, math.pi)  # pulled up harder than its weight: the floor's load would pull
    with pytest.raises(NegativeLoadError) as one:
        lifted.evaluate(t[0], qb[0], qdb[0])
    with pytest.raises(NegativeLoadError) as many:
        lifted.evaluate_many(t, qb, qdb)
    assert str(many.value) == str(one.value)


def test_frames_tabulated_in_c_are_the_point_by_point_frames_bit_for_bit(monkeypatch):
    """A stroke's frame with eq. 101 evaluated at its output points in one call into C is the
    frame of the points evaluated one by one from Python, every column bit for bit: table 9's
    start (stuck, then sliding) for the thesis skier, the free and the edged skater's periodic
    strokes."""
    import skilib.strokes.frame as frame_module
    from skilib.engine.evaluation import stack_evaluations
    from skilib.models.thesis.cases import TABLE9

    runs = (lambda: sk.simulate_run(**{**TABLE9.kwargs(), "strokes": 2}).frame,
            lambda: sk.free_steady_state().frame, lambda: sk.edge_steady_state(multipliers=False).frame)
    for run in runs:
        fast = run()
        monkeypatch.setattr(frame_module, "stack_evaluations", functools.partial(stack_evaluations, c_points=False))
        slow = run()
        monkeypatch.setattr(frame_module, "stack_evaluations", stack_evaluations)
        pd.testing.assert_frame_equal(fast, slow, check_exact=True)


def _tabulating_threads(monkeypatch) -> list:
    """The names of the threads that tabulate the strokes of the runs that follow."""
    names, tabulate = [], strokes_run.tabulate_stroke

    def recorded(*a, **k):
        names.append(threading.current_thread().name)
        return tabulate(*a, **k)

    monkeypatch.setattr(strokes_run, "tabulate_stroke", recorded)
    return names


@pytest.mark.parametrize("model", ["thesis", "free"])
def test_overlapped_tables_are_the_sequential_loop_s_bits(monkeypatch, model):
    """Each stroke tabulated in a second thread while the next is integrated: the frame, the
    strokes, the changes, the events and the evaluations are the sequential loop's, bit for bit.
    The thesis skier's run starts from rest (its first stroke slides back, sticks and slides on:
    two friction switches); the free skater's strokes alternate their stances."""
    from skilib.models.thesis.cases import TABLE9
    from skilib.models.thesis.run import ThesisSkating

    cls, run = {"thesis": (ThesisSkating, lambda: sk.simulate_run(**dict(TABLE9.kwargs(), strokes=4))),
                "free": (FreeSkating, lambda: sk.simulate_free(strokes=4))}[model]
    assert cls.overlap_tables
    threads = _tabulating_threads(monkeypatch)
    overlapped = run()
    assert len(threads) == 4 and all(t.startswith("skilib-tables") for t in threads)
    monkeypatch.setattr(cls, "overlap_tables", False)
    del threads[:]
    sequential = run()
    assert threads == ["MainThread"] * 4
    for name in ("frame", "strokes", "changes", "events"):
        pd.testing.assert_frame_equal(getattr(overlapped, name), getattr(sequential, name), check_exact=True)
    assert overlapped.info["nfev"] == sequential.info["nfev"]
    if model == "thesis":
        assert len(overlapped.events) == 2


def test_a_run_stepped_in_python_keeps_the_sequential_loop(monkeypatch):
    """Steps that Python takes (here RK45, which the C stepper does not) hold the interpreter
    lock: such a run tabulates each stroke in its own thread, after the stroke."""
    threads = _tabulating_threads(monkeypatch)
    sk.simulate_run(strokes=2, phase_time=1.0, skating_angle_deg=50.0, c_ext=0.2, c_rot_deg=22.5, v0=2.0,
                    method="RK45", rtol=1e-6, atol=1e-6)
    assert threads == ["MainThread"] * 2


@pytest.mark.parametrize("overlap", [True, False])
@pytest.mark.parametrize("later", ["steps", "touch_down"])
def test_an_error_in_a_stroke_s_tables_is_raised_before_the_later_strokes(monkeypatch, overlap, later):
    """The sequential loop tabulates stroke 2 before it lands stroke 3 or integrates it; a run that
    overlaps them raises stroke 2's error all the same, not the later failure: the budget spent
    in stroke 3's steps, or its touch-down."""
    from skilib.engine.errors import BudgetExceededError
    from skilib.models.thesis.run import ThesisSkating

    monkeypatch.setattr(ThesisSkating, "overlap_tables", overlap)
    summary, touch_down = ThesisSkating.summary, ThesisSkating.touch_down

    def refused(self, k, *a):
        if k == 1:
            raise ValueError("stroke 2's tables refused")
        return summary(self, k, *a)

    kw = dict(phase_time=1.0, skating_angle_deg=50.0, c_ext=0.2, c_rot_deg=22.5, v0=2.0)
    two = sk.simulate_run(strokes=2, **kw).info["nfev"]
    if later == "steps":  # stroke 3 needs about a thousand evaluations more: the budget stops it
        kw["max_evaluations"] = two + 50
        with pytest.raises(BudgetExceededError):
            sk.simulate_run(strokes=4, **kw)
    else:
        def fails(self, k, *a):
            if k == 2:
                raise ValueError("stroke 3's touch-down failed")
            return touch_down(self, k, *a)

        monkeypatch.setattr(ThesisSkating, "touch_down", fails)
    monkeypatch.setattr(ThesisSkating, "summary", refused)
    with pytest.raises(ValueError, match="stroke 2's tables refused"):
        sk.simulate_run(strokes=4, **kw)


def test_kept_last_keeps_the_most_recently_used():
    """``KeptLast``: a value is built once per key, a use moves it to the back, the oldest is
    dropped beyond ``size``; ``peek`` reads without counting as a use."""
    from skilib.strokes.kept import KeptLast

    built = []

    def build(k):
        return lambda: built.append(k) or f"value {k}"

    kept = KeptLast(2)
    assert kept.get("a", build("a")) == "value a" and kept.get("b", build("b")) == "value b"
    assert kept.get("a", build("a")) == "value a" and built == ["a", "b"]  # kept: not built again
    assert kept.peek("b") == "value b"  # not a use: b stays the oldest
    kept.get("c", build("c"))  # drops b, the least recently used
    assert kept.peek("b") is None and kept.peek("a") == "value a" and len(kept) == 2
    for bad in (0, 1.5, None):
        with pytest.raises(ValueError, match="size"):
            KeptLast(bad)


def test_the_thesis_skier_s_kept_stroke_starts_are_a_fresh_build_s_bits():
    """The admissible states at touch-down (``StrokeStart``) are kept per (params, heading, side,
    rotation) across runs: a second run with another push-off scale, v0 and stroke count reuses
    them, and a kept start is a fresh build's bit for bit, built with another push-off and at
    another start point; its arrays are read-only."""
    from skilib.models.thesis import run as thesis_run
    from skilib.models.thesis.model import SkierModel
    from skilib.models.thesis.params import ski_heading

    kw = dict(phase_time=1.0, skating_angle_deg=47.0, c_ext=0.2, c_rot_deg=22.5)
    sk.simulate_run(strokes=2, v0=1.0, **kw)
    o = thesis_run.options_of(None, kw)
    keys = [(o.params, *ski_heading(o.params, k, o.first_ski), o.rotation) for k in (0, 1)]
    kept = [thesis_run._stroke_starts.peek(key) for key in keys]
    assert all(s is not None for s in kept)
    sk.simulate_run(strokes=3, v0=2.0, force_scale=0.5, **kw)
    assert [thesis_run._stroke_starts.peek(key) for key in keys] == kept  # the same objects
    for (params, hdg, side, rot), start in zip(keys, kept):
        fresh = SkierModel(params, hdg, side, np.array([3.0, -2.0, 0.0]), lambda tau: 0.0 * tau,
                           rotation=rot).stroke_start()
        for name in ("at_rest", "per_speed", "q_rel", "leg_axis0"):
            assert np.array_equal(getattr(start, name), getattr(fresh, name)), name
        with pytest.raises(ValueError, match="read-only"):
            start.at_rest[0] = 1.0


def test_positions_alone_are_the_consistent_initial_conditions_bits():
    """``consistent_initial_conditions(velocities=False)``: the same positions, bit for bit, without
    the velocity solve."""
    from skilib.engine.solver import consistent_initial_conditions
    from skilib.models.thesis.model import SkierModel

    model = SkierModel(sk.SkierParams(), 0.4, "right", np.zeros(3), lambda tau: 0.0 * tau)
    q_guess = model.pose(0.0, 0.0) + 1e-6
    q, qd = consistent_initial_conditions(model.system(1), 0.0, q_guess, independent=[0])
    q_only, none = consistent_initial_conditions(model.system(1), 0.0, q_guess, independent=[0], velocities=False)
    assert np.array_equal(q, q_only) and none is None and qd is not None


@pytest.mark.parametrize("model", ["thesis", "edge"])
def test_a_run_s_one_frame_is_its_strokes_frames_concatenated(monkeypatch, model):
    """A run builds one DataFrame of its strokes' columns at its end: it is the DataFrames of each
    stroke (``stroke_frame``) concatenated, and the strokes rows, changes and events read off
    those DataFrames are the same, every value and type exactly.  The thesis skier's run starts
    from rest (a slide back, a stick: three friction modes in one stroke); the edged skater's
    strokes alternate their sides."""
    from skilib.models.thesis.cases import TABLE9
    from skilib.strokes.frame import stroke_frame

    run = {"thesis": lambda: sk.simulate_run(**dict(TABLE9.kwargs(), strokes=3)),
           "edge": lambda: sk.simulate_edge(strokes=3)}[model]
    one = run()
    monkeypatch.setattr(strokes_run, "stroke_columns", stroke_frame)  # a DataFrame per stroke, as before
    monkeypatch.setattr(strokes_run, "frame_of", lambda frames: pd.concat(frames, ignore_index=True))
    per_stroke = run()
    for table in ("frame", "strokes", "changes", "events"):
        pd.testing.assert_frame_equal(getattr(one, table), getattr(per_stroke, table), check_exact=True)


def test_strokes_whose_columns_differ_are_concatenated_as_pandas_does():
    """``frame_of`` stacks strokes of the same columns itself, and hands strokes whose columns
    differ in name or type to ``pandas.concat`` (which fills and widens): either way the frame is
    the concatenation of their DataFrames."""
    a = {"t": np.array([0.0, 0.5]), "stroke": np.array([1, 1]), "side": np.array(["left"] * 2, dtype=object)}
    b = {"t": np.array([1.0, 1.5]), "stroke": np.array([2, 2]), "side": np.array(["right"] * 2, dtype=object)}
    wider = dict(b, extra=np.array([3.0, np.nan]))
    floats = dict(b, stroke=np.array([2.0, 2.5]))
    for strokes in ([a, b], [a, wider], [a, floats], [a]):
        expected = pd.concat([pd.DataFrame(s) for s in strokes], ignore_index=True)
        pd.testing.assert_frame_equal(frame_of(strokes), expected, check_exact=True)


def test_a_column_s_extremes_are_pandas_min_and_max():
    """``column_extreme`` is a Series' min() and max(): NaN left out, NaN when all are NaN; any
    other ``how`` is refused."""
    for values in ([3.0, -1.0, 2.0], [np.nan, 4.0, -2.5, np.nan], [np.nan, np.nan], [-0.0, 0.0]):
        s = pd.Series(values, dtype=float)
        for how in ("min", "max"):
            got, want = column_extreme(s, how), float(getattr(s, how)())
            assert got == want or (np.isnan(got) and np.isnan(want)), (values, how)
    with pytest.raises(ValueError, match="how"):
        column_extreme([1.0], "mean")


def test_a_result_s_tables_are_built_when_first_read_and_kept(monkeypatch):
    """A run's and a steady state's DataFrames are built at their first reading, once: none is
    built by the call; the first reading builds it, the second returns the same object; a result
    pickled before any reading unpickles to the same tables, exactly; ``dataclasses.replace``
    copies them."""
    import dataclasses
    import pickle

    from skilib.models.free import steady as free_steady

    res = sk.simulate_free(strokes=2)
    copy = pickle.loads(pickle.dumps(res))  # before any table is read
    for table in ("frame", "strokes", "changes", "events"):
        pd.testing.assert_frame_equal(getattr(copy, table), getattr(res, table), check_exact=True)
    built = []
    monkeypatch.setattr(strokes_run, "frame_of", lambda frames: built.append("frame") or frame_of(frames))
    res = sk.simulate_free(strokes=2)
    assert built == []
    frame = res.frame
    assert built == ["frame"] and res.frame is frame
    again = dataclasses.replace(res, info={})
    pd.testing.assert_frame_equal(again.strokes, res.strokes, check_exact=True)
    monkeypatch.undo()  # a steady state pickled: its tables built by the library's own functions
    ss = free_steady.free_steady_state()
    assert "_frame_table" in vars(ss) and not isinstance(vars(ss)["_frame_table"], pd.DataFrame)
    pd.testing.assert_frame_equal(pickle.loads(pickle.dumps(ss)).frame, ss.frame, check_exact=True)
    assert ss.frame is ss.frame and isinstance(vars(ss)["_frame_table"], pd.DataFrame)


def test_a_compiled_system_moved_to_another_start_point_is_its_compilation_bit_for_bit():
    """The thesis skier's strokes on one ski share every part but C2, the line through their start
    point P, and the stick row at its anchor: a stroke's compiled system moved from the ski's first
    one (``CompiledSystem.moved``, ``SkierModel.compiled_system``) has its own compilation's
    kernel and numbers, and evaluates eq. 101 to the same bits, sliding either way and stuck; with
    a push-off object of the same numbers it is moved, with another curve compiled anew."""
    from skilib.engine.codegen import compile_system
    from skilib.models.thesis.model import SkierModel
    from skilib.models.thesis.params import ski_heading
    from skilib.models.thesis.push import thesis_push_force

    from skilib.models.thesis.push import ScaledPush

    p = sk.SkierParams(skating_angle_deg=44.0)
    h, side = ski_heading(p, 1, "right")
    # the push-off: one object, another object of the same numbers (moved), another curve (compiled)
    base = thesis_push_force(p, p.phase_time)[0]
    pushes = (base, base, thesis_push_force(p, p.phase_time)[0], ScaledPush(base, 0.5), base)
    for P, push in zip(((0.0, 0.0), (3.5, -1.25), (10.0, 4.0), (-2.0, 1.0), (7.0, 7.0)), pushes):
        m = SkierModel(p, h, side, np.array([*P, 0.0]), push)
        start = m.stroke_start()
        q, qd = start.q(m.P), start.qd(2.5)
        for mode, s_stick in ((1, None), (-1, None), (0, 0.7), (0, -2.25)):
            moved, fresh = m.compiled_system(mode, s_stick), compile_system(m.system(mode, s_stick))
            assert moved.kernel is fresh.kernel and np.array_equal(moved.c, fresh.c)
            a = moved.evaluate(0.4, q, qd, 20.0, 800.0)
            a = (a.qdd.copy(), a.lam.copy(), a.powers.copy())
            b = fresh.evaluate(0.4, q, qd, 20.0, 800.0)
            assert all(np.array_equal(x, y) for x, y in zip(a, (b.qdd, b.lam, b.powers)))
    with pytest.raises(ValueError, match="constraints/1/nowhere"):
        moved.moved(m.system(-1), {("constraints", 1, "nowhere"): 1.0})
