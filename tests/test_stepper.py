"""DOP853 stepped in C around a compiled kernel (``solve_dynamics(stepper='c')``) takes SciPy's
steps: the same run as ``solve_ivp`` to rounding, on the thesis's skier and a pendulum."""
import numpy as np
import pytest

import skilib as sk
from skilib.engine import examples
from skilib.engine.codegen import c_compiler, compile_system
from skilib.engine.codegen.stepper import why_not
from skilib.models.thesis.cases import TABLE9
from skilib.models.thesis.model import SkierModel
from skilib.models.thesis.run import initial_state, options_of
from skilib.models.thesis.params import ski_heading

pytestmark = [pytest.mark.skipif(c_compiler() is None, reason="no C compiler"), pytest.mark.cross_path]


@pytest.fixture(scope="module")
def skier():
    """The table 9 skier's sliding system (C kernel) and its consistent start at 2 m/s."""
    kw = {k: v for k, v in TABLE9.kwargs().items() if k not in ("strokes", "v0")}
    o = options_of(sk.SkierParams(), kw)
    hdg, side = ski_heading(o.params, 0, o.first_ski)
    model = SkierModel(o.params, hdg, side, np.zeros(3), o.push)
    q0, qd0 = initial_state(model, 2.0)
    return compile_system(model.system(1), backend="c"), q0, qd0


def test_the_skier_in_c_is_scipy_s_run(skier, measured):
    """A 0.6 s slide with Baumgarte's terms: as many accepted steps (their times drift apart by
    ~1e-6 s: the error estimate is a difference of stages, whose rounding the two loops form in
    another order, and the step-size factor passes it on), and at 51 output times q, q̇, q̈ and λ
    agree with solve_ivp's to ≤ 1e-9 relative."""
    system, q0, qd0 = skier
    assert why_not(system) is None
    kw = dict(method="DOP853", rtol=1e-10, atol=1e-10, h=0.01)
    steps_py = sk.solve_dynamics(system, (0.0, 0.6), q0, qd0, **kw)
    steps_c = sk.solve_dynamics(system, (0.0, 0.6), q0, qd0, stepper="c", **kw)
    assert abs(len(steps_c.t) - len(steps_py.t)) <= 1 and len(steps_py.t) > 20
    grid = np.linspace(0.0, 0.6, 51)
    a = sk.solve_dynamics(system, (0.0, 0.6), q0, qd0, stepper="c", t_eval=grid, **kw)
    b = sk.solve_dynamics(system, (0.0, 0.6), q0, qd0, t_eval=grid, **kw)
    for name in ("q", "qd", "qdd", "lam"):
        x, y = getattr(a, name), getattr(b, name)
        measured.check("skier at 51 times, C steps vs solve_ivp", np.abs(x - y).max() / np.abs(y).max(), 1e-9,
                       "rel.", where=name)
    assert a.constraint_norm.max() < 1e-8


def test_the_pendulum_in_c_keeps_its_energy_and_is_scipy_s(measured):
    """The §4 pendulum in Euler parameters released from 60°, without stabilization: energy and
    constraint kept over 2 s, and the final state is solve_ivp's to rounding."""
    ex = examples.pendulum(angle_deg=60.0, rotation="euler_parameters")
    system = compile_system(ex.system, backend="c")
    kw = dict(method="DOP853", rtol=1e-10, atol=1e-12, stabilization="none")
    a = sk.solve_dynamics(system, (0.0, 2.0), ex.q0, ex.qd0, stepper="c", **kw)
    b = sk.solve_dynamics(system, (0.0, 2.0), ex.q0, ex.qd0, **kw)
    energy = [ex.energy(q, v) for q, v in zip(a.q, a.qd)]
    measured.check("pendulum energy drift over 2 s, C steps", abs(energy[-1] - energy[0]), 1e-7, "J")
    measured.check("pendulum max |C| over 2 s, C steps", a.constraint_norm.max(), 1e-8, "m")
    measured.check("pendulum final q, C steps vs solve_ivp", np.abs(a.q[-1] - b.q[-1]).max(), 1e-11)
    measured.check("pendulum final q̇, C steps vs solve_ivp", np.abs(a.qd[-1] - b.qd[-1]).max(), 1e-10, "1/s")


def test_what_c_cannot_step_is_refused_by_name(skier):
    system, q0, qd0 = skier
    run = dict(stepper="c", rtol=1e-8, atol=1e-8)
    with pytest.raises(ValueError, match="method: only DOP853"):
        sk.solve_dynamics(system, (0.0, 0.1), q0, qd0, method="RK45", **run)
    with pytest.raises(ValueError, match="events: are located by solve_ivp"):
        sk.solve_dynamics(system, (0.0, 0.1), q0, qd0, method="DOP853", events=lambda t, y: y[0], **run)
    with pytest.raises(ValueError, match="stabilization: projection"):
        sk.solve_dynamics(system, (0.0, 0.1), q0, qd0, method="DOP853", stabilization="projection", **run)
    with pytest.raises(ValueError, match="not a compiled system with the C backend"):
        sk.solve_dynamics(system.system, (0.0, 0.1), q0, qd0, method="DOP853", **run)
    with pytest.raises(ValueError, match="stepper: 'scipy' or 'c'"):
        sk.solve_dynamics(system, (0.0, 0.1), q0, qd0, stepper="fortran")
    with pytest.raises(ValueError, match="t_eval"):
        sk.solve_dynamics(system, (0.0, 0.1), q0, qd0, method="DOP853", t_eval=[0.0, 0.2], **run)


def test_a_run_stepped_in_c_is_the_solve_ivp_run(monkeypatch, measured):
    """Two strokes of the thesis's skier (a stick phase, ṡ = 0 events, a stroke change), compiled:
    its sliding segments stepped in C and the same run with every segment stepped by solve_ivp
    take the same number of evaluations and agree in every frame column to ≤ 1e-9 (× the
    column's scale), in the events' τ to 1e-12 s and in the strokes' mean speeds to 1e-12."""
    from skilib.strokes.stroke import Stroke

    kw = dict(strokes=2, phase_time=0.5, skating_angle_deg=50.0, c_ext=0.4, c_rot_deg=45.0, dt_out=0.01)
    used = []
    in_c = Stroke.in_c
    monkeypatch.setattr(Stroke, "in_c", lambda self, system, mode: used.append(in_c(self, system, mode)) or used[-1])
    a = sk.simulate_run(sk.SkierParams(), compiled=True, **kw)
    assert any(used) and len(a.events) >= 1
    monkeypatch.setattr(Stroke, "in_c", lambda self, system, mode: False)
    b = sk.simulate_run(sk.SkierParams(), compiled=True, **kw)
    assert a.info["nfev"] == b.info["nfev"]
    cols = [c for c in b.frame.columns if b.frame[c].dtype.kind == "f"]
    for c in cols:
        measured.check("run frame columns, C steps vs solve_ivp", np.abs(a.frame[c] - b.frame[c]).max()
                       / max(1.0, np.abs(b.frame[c]).max()), 1e-9, "× scale", where=c)
    measured.check("event times, C steps vs solve_ivp", np.abs(a.events.tau.values - b.events.tau.values).max(),
                   1e-12, "s")
    measured.allclose("stroke mean speeds, C steps vs solve_ivp", a.strokes.mean_speed, b.strokes.mean_speed,
                      rtol=1e-12)


def test_a_budget_used_up_in_c_is_refused_by_name():
    from skilib.engine.errors import BudgetExceededError

    with pytest.raises(BudgetExceededError, match="max_evaluations: the run used its budget of 500"):
        sk.simulate_run(strokes=2, compiled=True, max_evaluations=500)


def _both(monkeypatch, run):
    """``run()`` with the sliding segments stepped in C, again with every segment by solve_ivp,
    and a reference: solve_ivp at rtol = atol = ``TIGHT`` (``run(rtol=..., atol=...)``)."""
    from skilib.strokes.stroke import Stroke

    used, in_c = [], Stroke.in_c
    monkeypatch.setattr(Stroke, "in_c", lambda self, system, mode: used.append(in_c(self, system, mode)) or used[-1])
    a = run()
    assert any(used)
    monkeypatch.setattr(Stroke, "in_c", lambda self, system, mode: False)
    return a, run(), run(rtol=TIGHT, atol=TIGHT)


#: the reference's tolerances: 100 times tighter than the runs' 1e-10, so its own error (≈ 1e-11 of
#: a column's scale) is a tenth of theirs or less
TIGHT = 1e-12
#: the columns' rounding floor [× scale]: where the integration error vanishes (a column that is 0)
FLOOR = 1e-12

ARGUED = ("two DOP853 runs at rtol = atol = 1e-10 whose steps differ by rounding (the error estimate is a "
          "difference of stages: its last bits, summed in another order by C and by SciPy's OpenBLAS gemv, "
          "change the step factor), so two discretisations of one solution with errors of one size: the C "
          "run's error, against the reference at rtol 1e-12, at most twice solve_ivp's")

#: the stroke means of |v_x|, |v_y| integrate a kink at each zero of v_x, v_y, whose quadrature
#: error depends on where a step falls (it changes by a factor 8 between the two loops' runs), so
#: the two runs' errors are not of one size.  Their bound is the quadrature's: ∫|v| is a state
#: under the error control that feeds back into nothing, so its global error is at most the sum of
#: the local errors, n_steps (atol + rtol |∫|v||), per run; the mean divides it by the stroke time
KINKED = ("mean_abs_vx", "mean_abs_vy")
KINK_ARGUED = "a quadrature state's global error ≤ Σ local errors, n_steps (atol + rtol |∫|v||), for each run"
#: DOP853's evaluations per step (12 stages, the last reused as the next step's first: at least 12)
STAGES = 12


def _scaled(x, y, scale):
    return np.nanmax(np.abs(np.asarray(x, float) - np.asarray(y, float))) / scale


def _same_run(a, b, ref, measured, who):
    """Every frame column, every stroke's works, speeds and powers, and the events (each × its
    column's scale, max(1, |column|)).  The two runs do not take the same steps on every processor
    (ARGUED), so they are compared through their integration errors against ``ref``: per table,
    e_a and e_b, the largest errors over its columns.  The C run is as accurate as solve_ivp's
    (e_a ≤ 2 e_b + FLOOR): another method, a wrong coefficient or a lost event would make it
    orders of magnitude less so, while |a − b| ≤ e_a + e_b holds for any two runs and tests
    nothing.  The kinked means (KINKED) are compared directly, within their quadrature bound."""
    tables = {"frame columns": (a.frame, b.frame, ref.frame),
              "stroke summaries": (a.strokes, b.strokes, ref.strokes)}
    duration = b.frame.groupby("stroke").t.agg(lambda t: t.max() - t.min()).min()  # the shortest stroke [s]
    n_steps = b.info["nfev"] / STAGES
    for name, (ta, tb, tr) in tables.items():
        cols = [c for c in tb.columns if tb[c].dtype.kind == "f" and tb[c].notna().any()]
        for c in cols:
            assert (ta[c].isna() == tb[c].isna()).all(), c
        scale = {c: max(1.0, np.nanmax(np.abs(tb[c]))) for c in cols}
        smooth = [c for c in cols if c not in KINKED]
        e_a = max(_scaled(ta[c], tr[c], scale[c]) for c in smooth)
        e_b = max(_scaled(tb[c], tr[c], scale[c]) for c in smooth)
        measured.check(f"{who} {name}, C run's integration error vs twice solve_ivp's", e_a, 2 * e_b + FLOOR,
                       "× scale", argued=ARGUED)
        # the comparison is not vacuous: the runs' own errors are small (≤ 1e4 rtol over two strokes)
        measured.check(f"{who} {name}, integration error of the runs", e_b, 1e-6, "× scale")
        for c in [c for c in cols if c in KINKED]:
            integral = np.nanmax(np.abs(tb[c])) * duration
            bound = 2 * n_steps * (b.info["atol"] + b.info["rtol"] * integral) / duration / scale[c]
            measured.check(f"{who} {name}, kinked means, C steps vs solve_ivp", _scaled(ta[c], tb[c], scale[c]),
                           bound, "× scale", where=c, argued=KINK_ARGUED)
    assert len(a.events) == len(b.events) == len(ref.events)
    if len(b.events):
        measured.check(f"{who} event times, C steps vs solve_ivp", np.abs(a.events.tau.values - b.events.tau.values)
                       .max(), 1e-9, "s")


def test_the_free_skater_in_c_is_the_solve_ivp_run(monkeypatch, measured):
    """Two strokes of the free skater from rest (its ski stops and sticks: events on a ski whose
    line turns, ṡ = x̄_ski · Ṙ_ski; the leg's and the heading's positive and negative works, which
    the error norm does not see and which are split where their rate changes sign): the run
    stepped in C is the solve_ivp run in every frame column and stroke summary within the two runs' integration
    errors (``_same_run``), the events' times to 1e-9 s."""
    a, b, ref = _both(monkeypatch, lambda **tol: sk.simulate_free(strokes=2, **tol))
    assert len(b.events) >= 1 and (b.strokes["work_leg_negative"] < 0).all()
    _same_run(a, b, ref, measured, "free skater")


def test_the_free_skater_with_poles_in_c_is_the_solve_ivp_run(monkeypatch, measured):
    """With the poles: during their contact the phase may end early by the event X_B − X_T = 0,
    watched in C beside the ski's speed; the run is solve_ivp's as above."""
    p = sk.FreeSkaterParams(pole_force_max=150.0)
    a, b, ref = _both(monkeypatch, lambda **tol: sk.simulate_free(p, strokes=2, v0=3.0, **tol))
    assert (b.strokes["work_poles"] > 0).all()
    _same_run(a, b, ref, measured, "free skater with poles")


def test_the_edged_skater_in_c_is_the_solve_ivp_run(monkeypatch, measured):
    """Two strokes of the edged skater from its periodic touch-down: its friction on the snow's load (N ≥ 0 checked at every
    evaluation, in C as in the compiled system) and its signed works, stepped in C, give the
    solve_ivp run within their integration errors (``_same_run``)."""
    # the periodic stroke's touch-down at the defaults, rounded (tests/test_edge_compiled.py): it stays upright
    p = sk.EdgeSkaterParams(cm_height=0.8341)
    a, b, ref = _both(monkeypatch, lambda **tol: sk.simulate_edge(p, strokes=2, v0=3.6785, lean_rate=-0.3436, **tol))
    _same_run(a, b, ref, measured, "edged skater")


def test_a_pulling_load_in_c_is_the_compiled_system_s_error():
    """A block on a plane lifted off it (the load N < 0) stepped in C: the compiled system's own
    NegativeLoadError, naming the force, the row and the load."""
    from skilib.engine import NegativeLoadError, LoadFriction

    block = sk.RigidBody("block", 2.0, sk.box_inertia(2.0, 0.3, 0.2, 0.1), rotation="euler_parameters")
    bottom = [0.0, 0.0, -0.05]
    cons = [sk.PointOnPlane("floor", block, bottom, [0, 0, 0], [0, 0, 1]),
            sk.PointOnPlane("side", block, [0, 0, 0], [0, 0, 0], [0, 1, 0]),
            sk.OrientationDriver("level", block, sk.RotationPath(np.eye(3), [0, 0, 1], 0.0))]
    forces = [sk.Gravity((0.0, 0.0, -9.81)), sk.ConstantForce("lift", block, [0, 0, 0], [0.0, 0.0, 30.0]),
              LoadFriction("friction", block, bottom, [1, 0, 0], "floor", mu=0.3, sign=1)]
    system = compile_system(sk.MultibodySystem([block], cons, forces), backend="c")
    assert why_not(system) is None
    q = np.concatenate([[0.0, 0.0, 0.05], sk.EulerParameters.from_matrix(np.eye(3))])
    qd = np.zeros(7)
    qd[0] = 1.0
    with pytest.raises(NegativeLoadError, match=r"force 'friction'.*row 0 of constraint 'floor'.*N = -10.38"):
        sk.solve_dynamics(system, (0.0, 0.5), q, qd, stepper="c", method="DOP853", rtol=1e-8, atol=1e-8)
