"""Collocation with exact derivatives (``skilib.ocp``): Hermite–Simpson on the engine's CasADi
terms, checked against a closed form, against the shooting steady state of the same model, and
against the optimality conditions of the shooting model at the collocated optimum.

- A minimum-effort transfer of a damped, sprung slider (``skilib.ocp.examples``: a rigid body
  held on the X axis by five rows, a spring–damper to the origin and a control force along X):
  the least ∫F² dt between two states of rest is dᵀW⁻¹d, W the controllability Gramian of
  ẋ = Ax + Bu over [0, T], d = x_T − e^{AT}x_0 (computed by Van Loan's matrix exponential).
  The collocated cost converges to it at the scheme's fourth order.
- The free skater's periodic stroke of one technique, collocated (a square program: the stroke,
  its plastic touch-down and the mirror closing the period), against the shooting steady state
  (``free_steady_state``, rtol 1e-10): u0, progress speed and mean power converge at fourth order.
- The collocated optimum at 200 W, re-simulated, meets the first-order conditions of the
  shooting model: ∇v = μ∇P over the parameters inside their bounds (central differences of
  steady states), and the Lagrangian rises towards the bound that is active.

Tolerances.  Hermite–Simpson's error is O(h⁴); the measured errors are written beside each
bound, and the observed order is asserted ≥ 3.7 between successive meshes (the theoretical 4,
less what the finest mesh's rounding takes).  The shooting steady state's own error is ≈ 1e-10.
The optimality check differences steady states at a step of 1e-4 of each parameter's range:
truncation ≈ 1e-8 of the gradient, the steady states' noise 1e-10/1e-4 ≈ 1e-6 m/s per unit.
"""

import numpy as np
import pytest

pytest.importorskip("casadi")

import skilib as sk  # noqa: E402
from skilib.models.free.collocation import FreeStroke  # noqa: E402
from skilib.ocp import collocate_stroke  # noqa: E402
from skilib.ocp.examples import least_effort, least_effort_transfer  # noqa: E402
from skilib.studies.optimum import FREE_BOUNDS, optimize_technique  # noqa: E402

TRUNCATED = ("the difference is Hermite–Simpson's truncation error on this mesh (its order is asserted beside it),"
             ' fixed by the mesh, not by rounding; the tolerance bounds the error measured at this mesh.  Under '
             "OpenBLAS's Prescott kernels the error changed by at most 1e-7 of itself, so no margin against "
             'another processor is needed')

ORDER = 3.7                 # observed order between meshes, ≥ (theory: 4)


def _order(errors):
    e = np.asarray(errors, dtype=float)
    return np.log2(e[:-1] / e[1:])


# --------------------------------------------------------------------------- the closed form
def test_the_running_integral_is_simpsons_sum(measured):
    """``HermiteSimpson.running_integral`` (the budget's energy accumulated interval by interval)
    on a mesh of 7 intervals over [0, 1.3]: with the time itself as the integrand, ∫ t³ dt is
    exact (Simpson's rule integrates cubics exactly), every partial sum w_k equals t_k⁴/4, and the
    last equals ``simpson_rows``; ∫ t⁴ dt carries Simpson's error exactly, S − I = h⁴ T f⁗/2880
    with h = T/N (f⁗ = 24 is constant)."""
    import casadi as ca

    from skilib.ocp.collocation import HermiteSimpson
    from skilib.ocp.examples import SLIDER, sprung_slider
    from skilib.engine.codegen.casadi_terms import casadi_terms

    N, T = 7, 1.3
    opti = ca.Opti()
    hs = HermiteSimpson(opti, casadi_terms(sprung_slider()), N, T, controls=(opti.variable(1, N + 1),
                                                                           opti.variable(1, N)))
    tk, tm = hs.tau_knots, hs.tau_mid
    for power, exact in ((3, lambda t: t**4 / 4), (4, lambda t: t**5 / 5)):
        end, w = hs.running_integral(tk**power, tm**power)
        # the slider at rest with no force satisfies the mesh's equations; w is then fixed by its rows
        opti.set_initial(hs.Q[0, :], SLIDER["start"][0])
        hs.start_midpoints()  # the midpoints on the knots' interpolants (the spring must not vanish there)
        opti.subject_to(hs.V[:, 0] == 0)
        opti.minimize(0)
        opti.solver("ipopt", {"print_time": False}, {"print_level": 0, "sb": "yes", "tol": 1e-12})
        wv = np.ravel(opti.solve().value(w))
        want = exact(np.linspace(0.0, T, N + 1))
        simpson = float(ca.evalf(hs.simpson_rows(tk**power, tm**power)))
        if power == 3:
            measured.check("running ∫t³ vs t⁴/4 at every knot", np.max(np.abs(wv - want)), 1e-14)
            measured.check("running ∫t³ end vs simpson_rows", abs(wv[-1] - simpson), 1e-14)
        else:
            err = (T / N) ** 4 * T / 2880 * 24  # S − I of Simpson on N panels of width h = T/N
            measured.check("running ∫t⁴ end − T⁵/5 vs Simpson's error term", abs((wv[-1] - want[-1]) - err), 1e-14)
            measured.check("running ∫t⁴ end vs simpson_rows", abs(wv[-1] - simpson), 1e-14)
def test_a_least_effort_transfer_converges_to_its_closed_form(measured):
    """The least ∫F² dt moving a sprung, damped slider between two states of rest, collocated on
    4 meshes, converges to the closed form dᵀW⁻¹d at fourth order, its force to u*(t) at second
    order, and the rows' slack stays zero (the holding rows are linear)."""
    J, u_star = least_effort()
    errors, forces = [], []
    for N in (5, 10, 20, 40):
        r = least_effort_transfer(N)
        assert r["status"] == "Solve_Succeeded", r["status"]
        errors.append(abs(r["cost"] - J) / J)
        want = np.array([u_star(ti) for ti in r["t"]])
        forces.append(np.max(np.abs(r["force"] - want)) / np.max(np.abs(want)))
        measured.check("rows' slack max|γ|, |μ|", r["max_slack"], 1e-12, where=f"N = {N}")
    measured.check("least effort at N = 40 vs dᵀW⁻¹d", errors[-1], 2e-8, "rel.", argued=TRUNCATED)
    measured.exceeds("observed order of the cost's error", _order(errors), ORDER)
    # the control itself converges at second order (knot and midpoint values are separate
    # variables; measured 1.9e-4 at N = 40, ratio 4.0 per halving)
    measured.check("force at the knots vs u*(t), N = 40", forces[-1], 2.5e-4, "rel. to max|u*|", argued=TRUNCATED)
    measured.exceeds("observed order of the force's error", _order(forces), 1.9)


# --------------------------------------------------------------------------- the free skater
@pytest.fixture(scope="module")
def shooting():
    return sk.free_steady_state()


@pytest.fixture(scope="module")
def stroke():
    return FreeStroke()


def test_the_collocated_periodic_stroke_is_the_shooting_steady_state(stroke, shooting, measured):
    """One technique (the defaults) collocated on 10, 20 and 40 intervals — the stroke, the
    plastic touch-down onto the mirrored start — converges to the shooting steady state: the
    touch-down speed u0, the progress speed and the leg's mean power, at fourth order."""
    err = {k: [] for k in ("u0", "progress", "power")}
    for N in (10, 20, 40):
        s = collocate_stroke(stroke, nodes=N, max_nodes=N)
        assert s.status == "Solve_Succeeded", s.status
        err["u0"].append(abs(s.u0 / shooting.u0 - 1))
        err["progress"].append(abs(s.progress_speed / shooting.progress_speed - 1))
        err["power"].append(abs(s.mean_power / shooting.mean_power - 1))
        measured.check("rows' slack max|γ|, |μ| (truncation)", s.max_slack, 2e-5 * (10 / N) ** 4, where=f"N = {N}", argued=TRUNCATED)
    measured.check("u0, N = 40, vs free_steady_state", err["u0"][-1], 1e-7, "rel.", argued=TRUNCATED)
    measured.check("progress speed, N = 40, vs free_steady_state", err["progress"][-1], 1e-7, "rel.", argued=TRUNCATED)
    measured.check("leg's mean power, N = 40, vs free_steady_state", err["power"][-1], 5e-7, "rel.", argued=TRUNCATED)
    for k, e in err.items():
        measured.exceeds(f"observed order, {k}", _order(e), ORDER)


def test_every_collocated_stroke_is_resimulated(stroke, measured):
    """A collocated stroke is re-simulated by the model's own simulator from its start: the speed
    and power agree within the tolerance asked (1e-4), and the simulated touch-down gives the
    start's u0 back (the stroke is periodic)."""
    s = collocate_stroke(stroke, nodes=20, max_nodes=20)
    assert s.success and s.resimulation_ok
    measured.check("re-simulated speed and power vs collocated", s.resimulation_error, 1e-4, "rel.")
    measured.check("re-simulated u after touch-down vs u0", abs(s.resimulated["u_after"] / s.u0 - 1), 1e-5, "rel.")


def test_the_separated_midpoints_solve_the_compressed_forms_program(stroke, monkeypatch, measured):
    """The free skater's fastest stroke at 200 W (its five technique parameters free, 20
    intervals) with the midpoints' q_m, v_m as variables held to the Hermite interpolants
    (``SEPARATED``, the default) and with the interpolants substituted (the compressed form): the
    same program's optimum, so speed and power agree to IPOPT's tolerance (tol 1e-10 on the
    scaled KKT error; 1e-8 relative is asked, measured 2e-15) and the technique to 1e-6;
    CasADi's Hessian of the separated program's whole Lagrangian has fewer than half the
    instructions."""
    from skilib.ocp import collocation
    from skilib.ocp import stroke as programs

    sol, size = {}, {}
    for separated in (False, True):
        monkeypatch.setattr(collocation, "SEPARATED", separated)
        sol[separated] = s = collocate_stroke(stroke, bounds=FREE_BOUNDS, power=200.0, nodes=20, max_nodes=20)
        assert s.success and [m["nodes"] for m in s.meshes] == [20]
        program = programs._PROGRAMS[s.warm_point["key"]]
        assert program.hs.separated is separated
        size[separated] = _whole_hessian(program).n_instructions()
    a, b = sol[False], sol[True]
    measured.check("separated vs compressed: progress speed (rel.)", abs(b.progress_speed / a.progress_speed - 1), 1e-8)
    measured.check("separated vs compressed: mean power (rel.)", abs(b.mean_power / a.mean_power - 1), 1e-8)
    measured.check("separated vs compressed: technique (rel. to each range)",
                   max(abs(b.x[n] - a.x[n]) / (hi - lo) for n, (lo, hi) in FREE_BOUNDS.items()), 1e-6)
    assert size[True] < 0.5 * size[False]  # a count of the program's instructions: no rounding in it


@pytest.fixture(scope="module")
def optimum():
    return optimize_technique("free", power=200.0, method="collocation", starts=1, nodes=20)


def _steady(params, **x):
    ss = sk.free_steady_state(params.__class__(**{**params.__dict__, **x}))
    return ss.progress_speed, ss.mean_power


def test_the_collocated_optimum_meets_the_shooting_models_optimality_conditions(optimum, measured):
    """At the collocated optimum (200 W, the five technique parameters free), the shooting model's
    own gradients (central differences of steady states) satisfy the first-order conditions:
    ∇v = μ ∇P over the parameters inside their bounds, and at a parameter on a bound the
    Lagrangian v − μP does not rise into the feasible side."""
    assert optimum.feasible and optimum.method == "collocation"
    p, b = optimum.params, optimum.bounds
    grad = {}
    for n in b:
        h = 1e-4 * (b[n][1] - b[n][0])
        x = getattr(p, n)
        hi, lo = min(x + h, b[n][1] + 0.0), max(x - h, b[n][0] + 0.0)
        vp, Pp = _steady(p, **{n: hi})
        vm, Pm = _steady(p, **{n: lo})
        grad[n] = ((vp - vm) / (hi - lo), (Pp - Pm) / (hi - lo))
    lo_tol = 1e-3
    inside = [n for n in b if b[n][0] + lo_tol * (b[n][1] - b[n][0]) < getattr(p, n) < b[n][1] - lo_tol * (b[n][1] - b[n][0])]
    on = [n for n in b if n not in inside]
    gv = np.array([grad[n][0] for n in inside])
    gP = np.array([grad[n][1] for n in inside])
    mu = float(gv @ gP / (gP @ gP))
    scale = np.array([b[n][1] - b[n][0] for n in inside])
    measured.check("|∇v − μ∇P| / |∇v| over the free parameters (unit ranges)",
                   np.linalg.norm((gv - mu * gP) * scale) / np.linalg.norm(gv * scale), 1e-4, "rel.")
    for n in on:
        dL = grad[n][0] - mu * grad[n][1]
        into = 1.0 if getattr(p, n) <= b[n][0] + lo_tol * (b[n][1] - b[n][0]) else -1.0  # the feasible side
        measured.check(f"Lagrangian's slope into the bound's feasible side, {n}", into * dL * (b[n][1] - b[n][0]),
                       1e-6, "m/s per range")
    vs, Ps = _steady(p)
    measured.check("collocated speed vs the shooting steady state at the optimum", abs(optimum.progress_speed / vs - 1),
                   1e-5, "rel.", argued=TRUNCATED)


def test_a_program_ipopt_does_not_solve_is_not_an_optimum(stroke):
    """IPOPT stopped after 3 iterations: the result says so (success False, IPOPT's status, the
    largest constraint violation), never an optimum."""
    s = collocate_stroke(stroke, bounds=FREE_BOUNDS, power=200.0, nodes=20, max_nodes=20, ipopt={"max_iter": 3})
    assert not s.success
    assert s.status == "Maximum_Iterations_Exceeded"
    assert s.max_violation > 0


@pytest.mark.parametrize("kwargs, name", [
    (dict(bounds={"body_mass": (60, 80)}, power=200.0), "bounds"),
    (dict(bounds={"stroke_time": (1.0, 0.5)}, power=200.0), "bounds"),
    (dict(bounds={"stroke_time": (1.0, 1.5)}, power=200.0), "bounds"),   # the start 0.8 s outside
    (dict(bounds=FREE_BOUNDS, power=-5.0), "power"),
    (dict(bounds=FREE_BOUNDS), "power"),
    (dict(nodes=2), "nodes"),
    (dict(nodes=20, max_nodes=10), "max_nodes"),
    (dict(bounds=FREE_BOUNDS, power=200.0, budget="gross"), "budget"),
    (dict(bounds=FREE_BOUNDS, power=200.0, x0={"cm_height": 1.0}), "x0"),
    (dict(bounds=FREE_BOUNDS, power=200.0, speed=5.0), "^speed: give a power budget or a speed"),
    (dict(speed=5.0), "^speed: holding a speed needs free parameters"),
    (dict(bounds=FREE_BOUNDS, speed=-5.0), "^speed"),
])
def test_bad_arguments_are_named(stroke, kwargs, name):
    with pytest.raises(ValueError, match=name):
        collocate_stroke(stroke, **kwargs)


@pytest.mark.parametrize("kwargs, name", [
    (dict(model="thesis"), "method"), (dict(speed="cm"), "speed"), (dict(power=None), "power"),
    (dict(method="newton"), "method"), (dict(options={"tol": 1e-8}), "options"), (dict(scheduler=None), "scheduler"),
])
def test_collocation_refuses_what_it_does_not_transcribe(kwargs, name):
    args = dict(model="free", power=200.0, method="collocation", starts=1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        optimize_technique(**args)


@pytest.mark.parametrize("kwargs, name", [
    (dict(model="thesis"), "^method: collocation is transcribed"), (dict(speed_kind="cm"), "^speed"),
    (dict(method="newton"), "^method"), (dict(fd_step=1e-4), "^fd_step"), (dict(speed_tol=1e-6), "^speed_tol"),
    (dict(method="shooting", nodes=20), "^nodes"), (dict(n_workers=2), "n_workers"),
])
def test_the_coachs_question_by_collocation_refuses_what_it_does_not_use(kwargs, name):
    args = dict(model="free", speed=5.0, method="collocation", starts=1)
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        sk.required_power(**args)


# --------------------------------------------------------------------------- a warm start
def test_a_neighbouring_power_from_the_optimums_solution_is_the_cold_answer(optimum, measured):
    """A second question in the same process, 210 W after the 200 W optimum, solved from the
    optimum's primal-dual point (``warm``, no seeded start): the same technique as the cold
    question from a seeded start (speed to 1e-9, each parameter to 1e-6 of its range), in fewer
    IPOPT iterations, and the same bits when asked twice.  Both solve one program to IPOPT's tol
    1e-10 (scaled KKT), so they differ by the solver's convergence only."""
    kw = dict(power=210.0, method="collocation", nodes=20)
    warm = optimize_technique("free", starts=0, warm=optimum, **kw)
    again = optimize_technique("free", starts=0, warm=optimum, **kw)
    cold = optimize_technique("free", starts=1, **kw)
    assert warm.feasible and cold.feasible
    first = warm.solution.meshes[0]
    assert first["warm"] and first["status"] == "Solve_Succeeded"
    measured.check("warm vs cold optimum's speed at 210 W", abs(warm.optimized_speed / cold.optimized_speed - 1), 1e-9,
                   "rel.")
    worst = max(abs(warm.x[n] - cold.x[n]) / (hi - lo) for n, (lo, hi) in warm.bounds.items())
    measured.check("warm vs cold optimum's technique at 210 W", worst, 1e-6, "of each range")
    cold_iterations = int(cold.starts["nit"].iloc[0])
    assert first["iterations"] < cold_iterations, (first["iterations"], cold_iterations)
    assert again.optimized_speed == warm.optimized_speed and again.x == warm.x


def test_another_programs_solution_is_a_first_guess_and_the_dual_holds(optimum, measured):
    """The 200 W optimum warm-starts the coach's question at its own speed: another program (the
    speed held, the power minimised), so its trajectory is only the first guess (``warm`` False in
    the mesh's row), and the answer is the dual's: 200 W back (to 1e-8: both programs to IPOPT's
    tol 1e-10, the speed and the power constraints each to ≈ 1e-12)."""
    r = sk.required_power("free", optimum.progress_speed, method="collocation", nodes=20, starts=0, warm=optimum)
    assert not r.solution.meshes[0]["warm"]
    measured.check("least power at the 200 W optimum's speed, warm-guessed", abs(r.budget_power / 200.0 - 1), 1e-8,
                   "rel.")


def test_a_bad_warm_start_is_refused_by_name(optimum):
    with pytest.raises(ValueError, match="^warm: must be None"):
        optimize_technique("free", 200.0, method="collocation", starts=0, warm={"stroke_time": 0.8})
    with pytest.raises(ValueError, match="^warm: a collocated solution starts only method='collocation'"):
        optimize_technique("free", 200.0, method="shooting", starts=0, warm=optimum)
    with pytest.raises(ValueError, match="^x0, warm"):
        optimize_technique("free", 200.0, method="collocation", starts=0, warm=optimum, x0={"stroke_time": 0.8})
    with pytest.raises(ValueError, match="^warm: an optimum of the 'free' model"):
        sk.required_power("edge", 5.0, method="collocation", starts=0, warm=optimum)
    with pytest.raises(ValueError, match="^warm: a solution of FreeSkaterParams"):
        sk.required_power("edge", 5.0, method="collocation", starts=0, warm=optimum.solution)


def _whole_hessian(program):
    """CasADi's Hessian of a program's whole expanded Lagrangian: (x, p, σ, λ) -> its upper triangle."""
    import casadi as ca

    x, p, f, g = (program._nlp[k] for k in ("x", "p", "f", "g"))
    lf, lg = ca.SX.sym("lam_f"), ca.SX.sym("lam_g", g.shape[0])
    return ca.Function("whole", [x, p, lf, lg], [ca.triu(ca.hessian(lf * f + ca.dot(lg, g), x)[0])])


def _hessians(program, seed):
    """(the program's ``nlp_hess_l``, CasADi's Hessian of its whole Lagrangian) at a random point."""
    mine, whole = program.solver.get_function("nlp_hess_l"), _whole_hessian(program)
    x, p, g = (program._nlp[k] for k in ("x", "p", "g"))
    rng = np.random.default_rng(seed)
    args = (1 + 0.1 * rng.standard_normal(x.shape[0]), rng.standard_normal(p.shape[0]), 0.7,
            rng.standard_normal(g.shape[0]))
    return mine(*args).full(), whole(*args).full()


def _stroke_program(adapter, nodes, **question):
    from skilib.engine.codegen.casadi_terms import require_casadi
    from skilib.ocp import stroke as programs

    x0, b, power, target, budget, opts, fv, _ = programs._question(
        adapter, question.get("bounds"), question.get("power"), None, question.get("budget", "net"), nodes, nodes, 1.0,
        None, None, question.get("speed"), None)
    return programs._program(require_casadi(), adapter, b, power, nodes, opts, budget, fv, target)[1]


def _case_program(case, monkeypatch):
    """The program of a derivative test's ``case`` (the processes' program caches keep it): the free
    skater's fastest stroke at 200 W (separated and compressed midpoints), the edged skater's least
    power for 6 m/s (10 intervals each) or free control's coarse program (20 intervals)."""
    from skilib.engine.codegen.casadi_terms import require_casadi
    from skilib.ocp import collocation, control
    from skilib.ocp.stroke import IPOPT_OPTIONS, check_limit
    from skilib.ocp.technique import stroke_adapter
    from skilib.studies.optimum import EDGE_BOUNDS, default_params

    model = case.split("-")[0]
    adapter = stroke_adapter(model, default_params(model))
    if case == "free-compressed":
        monkeypatch.setattr(collocation, "SEPARATED", False)
    if case == "free-control":
        return control._program(require_casadi(), adapter, 20, 5, adapter.caps_class(), control.DEFAULT_SMOOTHNESS,
                                {**IPOPT_OPTIONS, **control.CONTROL_IPOPT}, "metabolic", None,
                                check_limit(None, adapter))
    if model == "edge":
        return _stroke_program(adapter, 10, bounds=EDGE_BOUNDS, speed=6.0, budget="metabolic")
    return _stroke_program(adapter, 10, bounds=FREE_BOUNDS, power=200.0, budget="metabolic")


# the edged skater's program is the largest: CasADi's own derivatives of it, the reference, take
# 7–10 s, so it runs with the slow checks (``make check``) and in the book's verification run
DERIVATIVE_CASES = ["free", "free-compressed", pytest.param("edge", marks=pytest.mark.slow), "free-control"]


@pytest.mark.parametrize("case", DERIVATIVE_CASES)
def test_the_lagrangians_hessian_from_one_points_blocks_is_casadis(case, monkeypatch, measured):
    """``skilib.ocp.hessian``: the Hessian IPOPT is given (one point's block of the equations of
    motion, the rows and their normals, mapped over the mesh and carried through the points'
    arguments by the chain rule; CasADi's for the rest) equals CasADi's exact Hessian of the whole
    expanded Lagrangian, at a random point with random multipliers (``_case_program``'s four
    programs).  Both are exact derivatives of the same expressions summed in another order: they
    differ by rounding, measured 2e-16 to 3e-15 of the largest entry; 1e-13 is asked."""
    program = _case_program(case, monkeypatch)
    assert program.solver.get_function("nlp_hess_l").name() == "nlp_hess_l"
    assert program.solver.get_function("nlp_hess_l").class_name() == "MXFunction"  # the blocks', not CasADi's
    mine, whole = _hessians(program, 20261205)
    measured.check(f"{case}: one point's blocks vs the whole Lagrangian's Hessian (rel. to its largest entry)",
                   np.max(np.abs(mine - whole)) / np.max(np.abs(whole)), 1e-13)


@pytest.mark.parametrize("case", DERIVATIVE_CASES)
def test_the_constraints_jacobian_from_one_points_blocks_is_casadis(case, monkeypatch, measured):
    """``skilib.ocp.hessian``: the constraints' Jacobian IPOPT is given, ∂g_r/∂x + E diag_k(∂F/∂w)
    J_φ with E = ∂g/∂F found from the program, and the Lagrangian's gradients in x and p from it,
    equal CasADi's exact derivatives of the whole expanded program at a random point with random
    multipliers, on the same sparsity (the same four programs).  Exact derivatives summed in
    another order: measured 0 to 1e-15 of the largest entry; 1e-13 is asked."""
    import casadi as ca

    program = _case_program(case, monkeypatch)
    jac, grad = (program.solver.get_function(n) for n in ("nlp_jac_g", "nlp_grad"))
    assert jac.class_name() == grad.class_name() == "MXFunction"  # the blocks', not CasADi's
    x, p, f, g = (program._nlp[k] for k in ("x", "p", "f", "g"))
    lf, lg = ca.SX.sym("lam_f"), ca.SX.sym("lam_g", g.shape[0])
    ell = lf * f + ca.dot(lg, g)
    whole = ca.Function("whole", [x, p, lf, lg], [g, ca.jacobian(g, x), f, ca.gradient(ell, x), ca.gradient(ell, p)])
    rng = np.random.default_rng(20261205)
    args = (1 + 0.1 * rng.standard_normal(x.shape[0]), rng.standard_normal(p.shape[0]), 0.7,
            rng.standard_normal(g.shape[0]))
    ref = [v.full() for v in whole(*args)]
    mine = [v.full() for v in jac(*args[:2])] + [v.full() for v in grad(*args)]
    # nlp_jac_g: g, ∂g/∂x; nlp_grad: f, g, ∇ₓℓ, ∇_pℓ
    pairs = {"g": (mine[0], ref[0]), "jac_g_x": (mine[1], ref[1]), "f": (mine[2], ref[2]), "g (grad)": (mine[3], ref[0]),
             "grad_x": (mine[4], ref[3]), "grad_p": (mine[5], ref[4])}
    for name, (a, b) in pairs.items():
        assert a.shape == b.shape, name
        if b.size:
            measured.check(f"{case}: one point's blocks vs the whole program: {name} (rel. to its largest entry)",
                           np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300), 1e-13)
    # every entry CasADi's Jacobian can hold, IPOPT's can (on these programs: the same pattern)
    assert whole.sparsity_out(1).is_subset(jac.sparsity_out(1))


def _tiny_program(entry: str):
    """A one-variable-per-point Opti program in which F(w) = (w², sin w) mapped over three points
    enters g as ``entry`` says: "linear" (3 F₁ − F₂ + x), "nonlinear" (F₁²), "coefficient"
    (x F₁) or "objective" (f = ΣF₁)."""
    import casadi as ca

    from skilib.ocp.hessian import PointRows

    opti = ca.Opti()
    X = opti.variable(1, 3)
    w = ca.SX.sym("w")
    F = ca.Function("square_sine", [w], [w ** 2, ca.sin(w)])
    a, b = F.map(3)(X)
    f = ca.sumsqr(X)
    if entry == "linear":
        opti.subject_to(ca.vec(3 * a - b + X) == 0)
    elif entry == "nonlinear":
        opti.subject_to(ca.vec(a ** 2) == 0)
    elif entry == "coefficient":
        opti.subject_to(ca.vec(X * a) == 0)
    else:
        f = f + ca.sum2(a)
    opti.minimize(f)
    return opti, [PointRows(F, (X,), 3, (a, b))]


@pytest.mark.parametrize("entry", ["nonlinear", "coefficient", "objective"])
def test_a_point_function_that_enters_other_than_linearly_is_refused_by_name(entry):
    """The chain rule of ``skilib.ocp.hessian`` holds only for outputs entering g linearly with
    constant coefficients and not the objective: anything else is a ValueError naming the function."""
    import casadi as ca

    from skilib.ocp.hessian import PointDerivatives

    opti, groups = _tiny_program(entry)
    with pytest.raises(ValueError, match="'square_sine'"):
        PointDerivatives(ca, opti.x, opti.p, opti.f, opti.g, groups)


def test_the_tiny_programs_point_derivatives_are_its_closed_form(measured):
    """g = 3w² − sin w + w at each of three points, f = Σw²: ∂g/∂x = diag(6w − cos w + 1), and
    ∇²(σf + λᵀg) = diag(2σ + λ(6 + sin w)) (closed forms, to rounding)."""
    import casadi as ca

    from skilib.ocp.hessian import PointDerivatives

    opti, groups = _tiny_program("linear")
    d = PointDerivatives(ca, opti.x, opti.p, opti.f, opti.g, groups)
    xv, lam, sigma = np.array([0.3, -1.1, 2.0]), np.array([0.5, -2.0, 1.5]), 0.7
    g, J = (v.full() for v in d.jacobian()(xv, []))
    H = d.hessian()(xv, [], sigma, lam).full()
    measured.check("tiny program: g against its closed form", np.max(np.abs(g.ravel() - (3 * xv ** 2 - np.sin(xv) + xv))),
                   1e-13)
    measured.check("tiny program: ∂g/∂x against its closed form", np.max(np.abs(J - np.diag(6 * xv - np.cos(xv) + 1))),
                   1e-13)
    measured.check("tiny program: ∇²(σf + λᵀg) against its closed form",
                   np.max(np.abs(H - np.diag(2 * sigma + lam * (6 + np.sin(xv))))), 1e-13)
