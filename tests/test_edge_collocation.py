"""The edged skater by collocation (``skilib.models.edge.collocation``): its periodic stroke and its
optimum technique, checked against the shooting model of the same skater.

- One technique (the defaults), collocated as a square program — the stroke with the leg's
  length at touch-down a variable of the period, the plastic touch-down onto the mirrored start,
  the landing offset and the kept CM height — against the shooting stroke map's fixed point
  (``edge_steady_state``, rtol 1e-10): the touch-down state (u, φ̇, z_B), the progress speed and
  the drivers' mean power converge at fourth order (Hermite–Simpson).
- The collocated stroke re-simulated by the model's own stroke map from its touch-down state
  gives that state back (Φ(x) = x to the truncation error) and the same speed and power.
- The collocated optimum at 240 W metabolic (the five technique parameters free within
  ``EDGE_BOUNDS``) meets the shooting model's first-order conditions: over the parameters inside
  their bounds the speed's gradient lies in the span of the gradients of the power and of the
  active margins (central differences of shooting steady states), with multipliers of the right
  sign.
- Free control of its heading and leg (``optimal_control("edge", ...)`` at the same 240 W
  metabolic, 20 intervals, splines on 5, started from that optimum): the splines run as the
  simulator's laws from the collocated touch-down state give the same speed and powers, return
  to that state after the touch-down, push with the leg and load the snow on the simulator's
  own grid, close the energy balance, and are no slower than the law-based optimum they started
  from.

Tolerances.  The errors of the square program are written beside their bounds; the observed
order is asserted ≥ 3.7 between successive meshes, as for the free skater.  The steady states'
own error is ≈ 1e-10, so central differences at 1e-4 of a parameter's range carry ≈ 1e-6 of noise
per unit of gradient.
"""
import numpy as np
import pytest

pytest.importorskip("casadi")

import skilib as sk  # noqa: E402
from skilib.models.edge.collocation import EdgeStroke  # noqa: E402
from skilib.ocp import collocate_stroke, optimal_control  # noqa: E402
from skilib.studies.optimum import EDGE_BOUNDS, EDGE_MARGINS, edge_margins, optimize_technique  # noqa: E402

TRUNCATED = ("the difference is Hermite–Simpson's truncation error on this mesh (its order is asserted beside it),"
             ' fixed by the mesh, not by rounding; the tolerance bounds the error measured at this mesh.  Under '
             "OpenBLAS's Prescott kernels the error changed by at most 2e-6 of itself, so no margin against "
             'another processor is needed (the re-simulations: the collocated controls integrated at rtol 1e-10, '
             "so what remains is the mesh's error)")

ORDER = 3.7


def _order(errors):
    e = np.asarray(errors, dtype=float)
    return np.log2(e[:-1] / e[1:])


def _base():
    # the first touch-down at the periodic stroke's height (the shooting optimum's base): the
    # leg's reach is checked there when the params are made
    return sk.EdgeSkaterParams(cm_height=0.834)


@pytest.fixture(scope="module")
def shooting():
    return sk.edge_steady_state(_base(), multipliers=False)


@pytest.fixture(scope="module")
def stroke():
    return EdgeStroke(_base())


@pytest.mark.slow
def test_the_collocated_periodic_stroke_is_the_shooting_fixed_point(stroke, shooting, measured):
    """The default technique collocated on 10 and 20 intervals converges to the shooting stroke
    map's fixed point at fourth order: the touch-down state, the progress speed and the drivers'
    mean power; the landing offset is the parameter exactly.  (On 40 intervals the errors fall
    by 16 again, 1e-7 and below: measured once, not rebuilt here, the program's build being the
    test's cost.)"""
    err = {k: [] for k in ("u0", "lean_rate", "height", "progress", "power")}
    for N in (10, 20):
        s = collocate_stroke(stroke, nodes=N, max_nodes=N)
        assert s.status == "Solve_Succeeded", s.status
        x = stroke.touchdown_state(s.trajectory)
        assert x[3] == pytest.approx(shooting.x0[3], abs=1e-12)
        err["u0"].append(abs(x[0] / shooting.x0[0] - 1))
        err["lean_rate"].append(abs(x[1] / shooting.x0[1] - 1))
        err["height"].append(abs(x[2] / shooting.x0[2] - 1))
        err["progress"].append(abs(s.progress_speed / shooting.progress_speed - 1))
        err["power"].append(abs(s.mean_power / shooting.mean_power - 1))
    measured.check("u0, N = 20, vs edge_steady_state", err["u0"][-1], 1e-6, "rel.", argued=TRUNCATED)
    measured.check("lean rate at touch-down, N = 20", err["lean_rate"][-1], 1e-6, "rel.", argued=TRUNCATED)
    measured.check("CM height at touch-down, N = 20", err["height"][-1], 1e-6, "rel.", argued=TRUNCATED)
    measured.check("progress speed, N = 20, vs edge_steady_state", err["progress"][-1], 1e-6, "rel.", argued=TRUNCATED)
    measured.check("drivers' mean power, N = 20, vs edge_steady_state", err["power"][-1], 1e-6, "rel.", argued=TRUNCATED)
    for k, e in err.items():
        measured.exceeds(f"observed order, {k}", _order(e), ORDER)


@pytest.mark.slow
def test_the_collocated_stroke_resimulated_is_periodic(stroke, measured):
    """The model's own stroke map run from the collocated touch-down state returns to it (the
    ski's speed after the plastic touch-down is u0 again) with the collocated speed and power."""
    s = collocate_stroke(stroke, nodes=20, max_nodes=20)
    assert s.success and s.resimulation_ok
    measured.check("re-simulated speed and power vs collocated, N = 20", s.resimulation_error, 1e-5, "rel.")
    measured.check("re-simulated u after touch-down vs u0, N = 20", abs(s.resimulated["u_after"] / s.u0 - 1), 1e-5,
                   "rel.")


@pytest.fixture(scope="module")
def optimum():
    x0 = {n: getattr(sk.EdgeSkaterParams(), n) for n in EDGE_BOUNDS}
    return optimize_technique("edge", power=240.0, params=_base(), starts=0, x0=x0, method="collocation", nodes=20,
                              budget="metabolic")


def _shooting(params, guess, **x):
    ss = sk.edge_steady_state(params.__class__(**{**params.__dict__, **x}), guess=guess, multipliers=False, check=False)
    return np.array([ss.progress_speed, ss.metabolic_power, *edge_margins(ss).values()])


@pytest.mark.slow
def test_the_collocated_optimum_meets_the_shooting_models_optimality_conditions(optimum, measured):
    """At the collocated optimum (240 W metabolic), central differences of the shooting model give
    ∇v = μ∇P + Σ ν_j ∇(−g_j) over the parameters inside their bounds, g_j the margins that are
    active (≈ 0), with ν_j ≥ 0 (a margin held at zero costs speed), and the collocated speed
    is the shooting steady state's at that technique."""
    assert optimum.feasible and optimum.method == "collocation" and optimum.model == "edge"
    p, b = optimum.params, optimum.bounds
    guess = tuple(EdgeStroke(_base()).touchdown_state(optimum.solution.trajectory)[:3])  # the search starts there
    at = _shooting(p, guess)
    measured.check("collocated speed vs the shooting steady state at the optimum",
                   abs(optimum.progress_speed / at[0] - 1), 1e-5, "rel.", argued=TRUNCATED)
    margins = dict(zip(EDGE_MARGINS, at[2:]))
    active = [k for k, g in margins.items() if g < 1e-4]
    # the rows hold at the collocation's points; the shooting stroke at the same technique differs
    # from the collocated one by the truncation error (N = 20: ≈ 1e-6 of the CM's height at
    # touch-down, so of the leg's length at full reach)
    measured.check("margins of the shooting stroke at the optimum below zero (truncation)",
                   max(0.0, -min(margins.values())), 1e-5, "m or body weights or rad", argued=TRUNCATED)
    tol = 1e-3
    inside = [n for n in b if b[n][0] + tol * (b[n][1] - b[n][0]) < getattr(p, n) < b[n][1] - tol * (b[n][1] - b[n][0])]
    assert len(inside) > 1 + len(active)  # the check has something left to test
    G = []
    for n in inside:
        h = 1e-4 * (b[n][1] - b[n][0])
        x = getattr(p, n)
        G.append((_shooting(p, guess, **{n: x + h}) - _shooting(p, guess, **{n: x - h})) / (2 * h) * (b[n][1] - b[n][0]))
    G = np.array(G)  # rows: parameters (per unit range); columns: speed, power, margins
    gv = G[:, 0]
    A = np.column_stack([G[:, 1]] + [-G[:, 2 + EDGE_MARGINS.index(k)] for k in active])
    coef, *_ = np.linalg.lstsq(A, gv, rcond=None)
    measured.check("|∇v − μ∇P + Σν∇g| / |∇v| over the free parameters (unit ranges)",
                   np.linalg.norm(gv - A @ coef) / np.linalg.norm(gv), 1e-3, "rel.")
    assert coef[0] > 0  # more power, more speed
    for k, nu in zip(active, coef[1:]):
        assert nu > -1e-6 * abs(coef[0]), (k, nu)


@pytest.mark.slow
def test_the_collocated_crouch_is_the_fixed_offset_stroke_it_places(measured):
    """The crouch (``leg_start``) collocated: the leg's length at touch-down a law parameter, the
    landing offset the period's variable.  With ℓs the defaults' collocated fixed-offset stroke's
    own ℓ0 (40 intervals), the crouch's square program is that stroke: the same rows with the
    roles of ℓ0 and d0 swapped, both solved to IPOPT's tol 1e-10, so they agree to the solver's
    tolerance, not to the mesh's truncation; and beside the shooting crouch's periodic stroke
    (``edge_steady_state``), its touch-down state to the truncation at 40 intervals."""
    from dataclasses import replace

    p = sk.EdgeSkaterParams()
    fixed = collocate_stroke(EdgeStroke(p), nodes=40, max_nodes=40)
    ls = fixed.trajectory["extra"]["leg_start"]
    pc = replace(p, leg_start=ls)
    stroke = EdgeStroke(pc)
    crouch = collocate_stroke(stroke, nodes=40, max_nodes=40)
    assert fixed.success and crouch.success
    measured.check("crouch vs fixed offset, collocated: progress speed", abs(crouch.progress_speed /
                   fixed.progress_speed - 1), 1e-10, "rel.", argued="one stroke by two square programs, each to "
                   "IPOPT's tol 1e-10 (measured 1.8e-14)")
    measured.check("crouch vs fixed offset, collocated: coordinates at every point",
                   float(np.max(np.abs(np.asarray(crouch.trajectory["q"]) - np.asarray(fixed.trajectory["q"])))),
                   1e-8, "m or rad", argued="as the speed (measured 5e-14)")
    measured.check("the landing offset the crouch's program finds vs the fixed one", abs(
        crouch.trajectory["extra"]["landing_offset"] - p.landing_offset), 1e-10, "m", argued="as the speed (1e-14)")
    ss = sk.edge_steady_state(pc)
    measured.allclose("crouch's touch-down state (u, φ̇, z_B, d): collocated vs shooting",
                      stroke.touchdown_state(crouch.trajectory), ss.x0, rtol=1e-6, atol=1e-7,
                      argued="Hermite–Simpson's truncation at 40 intervals, as the fixed offset's (measured "
                             "≤ 2.7e-8 relative)")


@pytest.mark.slow
def test_a_neighbouring_power_warm_started_is_the_cold_answer(optimum, measured):
    """250 W after the 240 W metabolic optimum, from its primal-dual point (``warm``, no seeded
    start), against the same question solved cold from the defaults' technique: the same speed
    (1e-9) and technique (1e-6 of each range) in fewer IPOPT iterations; both to IPOPT's tol
    1e-10, so they differ by its convergence only."""
    kw = dict(power=250.0, params=_base(), method="collocation", nodes=20, budget="metabolic")
    warm = optimize_technique("edge", starts=0, warm=optimum, **kw)
    cold = optimize_technique("edge", starts=0, x0={n: getattr(sk.EdgeSkaterParams(), n) for n in EDGE_BOUNDS}, **kw)
    assert warm.feasible and cold.feasible and warm.solution.meshes[0]["warm"]
    measured.check("warm vs cold edged optimum's speed at 250 W", abs(warm.optimized_speed / cold.optimized_speed - 1),
                   1e-9, "rel.")
    worst = max(abs(warm.x[n] - cold.x[n]) / (hi - lo) for n, (lo, hi) in warm.bounds.items())
    measured.check("warm vs cold edged optimum's technique at 250 W", worst, 1e-6, "of each range")
    assert warm.solution.meshes[0]["iterations"] < int(cold.starts["nit"].iloc[0])


def test_a_model_without_a_transcription_is_named():
    with pytest.raises(ValueError, match="method"):
        optimize_technique("thesis", power=200.0, method="collocation", starts=1)


@pytest.fixture(scope="module")
def edge_control():
    return optimal_control("edge", 240.0, nodes=20, control_nodes=5, starts=0)


@pytest.mark.slow
def test_free_control_of_the_edged_skater_is_resimulated_and_admissible(edge_control, measured):
    """At 240 W metabolic on 20 intervals (splines on 5): IPOPT solves it, the splines as laws of
    one stroke of the model's stroke map from the collocated touch-down state give the collocated
    speed and powers and return to that state (the stroke is periodic), the leg pushes and the
    snow carries on the simulator's grid, the laws start at rest, and the free stroke is no
    slower than the law-based one."""
    s = edge_control
    assert s.success and s.status == "Solve_Succeeded", s.status
    measured.check("edge free control: re-simulated speed and powers vs collocated", s.resimulation_error, 1e-4, "rel.", argued=TRUNCATED)
    start = EdgeStroke(_base()).touchdown_state(s.trajectory)
    after = s.resimulated["state_after"]
    measured.check("edge free control: touch-down state after one re-simulated stroke vs its start",
                   float(np.max(np.abs(after - start) / np.maximum(np.abs(start), 1e-3))), 1e-4, "rel.", argued=TRUNCATED)
    measured.check("edge free control: energy balance of the re-simulated stroke", s.resimulated["energy_residual"],
                   1e-8, "J")
    assert s.resimulated["min_leg_force_bw"] > 0 and s.resimulated["min_snow_load_bw"] > 0
    assert s.frame["heading_rate_deg_s"].iloc[0] == pytest.approx(0.0, abs=1e-9)
    assert s.frame["extension_speed"].iloc[0] == pytest.approx(0.0, abs=1e-9)
    assert s.progress_speed >= s.law_based.progress_speed
    assert s.budget_power == pytest.approx(240.0, rel=1e-8)
    assert all(v["value"] <= v["cap"] * (1 + 1e-6) for k, v in s.caps_active.items()
               if k in ("peak_leg_force_bw", "heading_rate_deg_s", "extension_speed"))


def test_free_control_names_a_wrong_caps_class():
    from skilib.models.free.collocation import FreeControlCaps

    with pytest.raises(ValueError, match="caps: model .edge. takes EdgeControlCaps"):
        optimal_control("edge", 240.0, caps=FreeControlCaps(), nodes=20, control_nodes=5, starts=0)


def test_a_stroke_from_a_touchdown_state_refuses_bad_input_by_name():
    """``edge_stroke`` (the re-simulation's stroke map): a touch-down state that is not four
    numbers, laws of the wrong kind, and a leg law that does not start where the touch-down puts
    the leg (ℓ(0) = 1 m against √(d0² + z_B²) = 0.858 m) are refused by name before anything runs."""
    from skilib.models.edge.params import EdgeLaws
    from skilib.models.edge.steady import edge_stroke
    from skilib.strokes.laws import smooth_turn

    p = _base()
    x = (3.68, -0.34, 0.834, 0.2)
    with pytest.raises(ValueError, match="^x: "):
        edge_stroke(p, ("fast", 0, 0.8, 0.2))
    with pytest.raises(ValueError, match="^x: "):
        edge_stroke(p, x[:3])
    with pytest.raises(ValueError, match="^laws: must be None"):
        edge_stroke(p, x, laws=(1, 2))
    laws = EdgeLaws(smooth_turn(-0.17, 0.17, p.stroke_time), smooth_turn(1.0, 0.1, p.stroke_time))
    with pytest.raises(ValueError, match="^laws: the leg's law starts at"):
        edge_stroke(p, x, laws=laws)
