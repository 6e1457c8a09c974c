"""The poles in collocation (``skilib.ocp.poles``): the skating models' strokes with V2 poles, a
stroke in phases (before the plant, planted, lifted) stated as one program on a mesh with knots at
the plant and the lift (``skilib.ocp.mesh.PhasedMesh``), checked against the shooting model, which
integrates the phases one after the other.

- The phased mesh: its interval starts and widths are the points ``times`` lists, and a doubled
  mesh halves every interval (nested), so errors fall at the scheme's order; with a knot at the
  lift the V2 stroke's error is smaller than on the even mesh, whose intervals straddle it.
- One technique with poles, collocated as a square program on 10, 20 and 40 intervals, against the
  shooting steady state with poles (rtol 1e-10): the touch-down speed, the progress speed and the
  mean power (the leg's and the arms') converge at fourth order — the free skater with the poles
  planted at 0.1 s (three phases), the edged skater with them planted at touch-down (two).
- The poles' work, integrated over the collocated stroke from the struts' power F±·Ṙ_B, against
  the shooting stroke's ``work_poles`` (its integrated states), at fourth order.
- The collocated optimum with poles (the free skater, 200 W net) meets the shooting model's
  first-order conditions (central differences of steady states with poles).
- Free control with the poles' push a spline of the contact (both skaters): re-simulated by the
  model's simulator with the splines as its laws and its poles' push, periodic, zero outside the
  contact, within its cap, and no slower than the law-based optimum it starts from.

Tolerances: each bound is the measured error with its margin, written beside it; the observed
order is asserted ≥ 3.7 (theory 4), as for the strokes without poles.
"""
import math

import numpy as np
import pytest

pytest.importorskip("casadi")

import skilib as sk  # noqa: E402
from skilib.models.edge.collocation import EdgeStroke  # noqa: E402
from skilib.models.free.collocation import FreeStroke  # noqa: E402
from skilib.ocp import collocate_stroke, optimal_control  # noqa: E402
from skilib.ocp.mesh import PhasedMesh  # noqa: E402
from skilib.studies.optimum import optimize_technique  # noqa: E402
from skilib.strokes.poles import POLE_WORK_TERMS  # noqa: E402

TRUNCATED = ("the difference is Hermite–Simpson's truncation error on this mesh (its order is asserted beside it),"
             ' fixed by the mesh, not by rounding; the tolerance bounds the error measured at this mesh.  Under '
             "OpenBLAS's Prescott kernels the error changed by at most 2e-6 of itself, so no margin against "
             'another processor is needed (the re-simulations: the collocated controls integrated at rtol 1e-10, '
             "so what remains is the mesh's error)")

ORDER = 3.7
#: the cases: the free skater's 150 N poles planted at 0.1 s; the edged skater's 20 N from touch-down
#: with a longer reach (the default technique with stronger poles leaves the leg's reach)
CASES = {
    "free": (FreeStroke, sk.FreeSkaterParams(pole_force_max=150.0, pole_start=0.1),
             lambda p: sk.free_steady_state(p)),
    "edge": (EdgeStroke, sk.EdgeSkaterParams(pole_force_max=20.0, max_leg_length=1.1),
             lambda p: sk.edge_steady_state(p, multipliers=False)),
}
#: the bounds at 40 intervals, relative to the shooting steady state (measured: free u0 2.1e-7,
#: progress 2.8e-7, power 4.6e-7, pole work 4.0e-7; edge 1.0e-7, 1.2e-7, 9.6e-8 and 9.9e-7)
AT_40 = {"free": {"u0": 3e-7, "progress": 4e-7, "power": 6e-7, "pole work": 6e-7},
         "edge": {"u0": 2e-7, "progress": 2e-7, "power": 2e-7, "pole work": 1.5e-6}}


def _order(errors):
    e = np.asarray(errors, dtype=float)
    return np.log2(e[:-1] / e[1:])


def test_a_phased_mesh_has_knots_at_its_breaks_and_nests_when_doubled(measured):
    """Knots fall on the breaks; ``intervals`` (CasADi) and ``times`` (numbers) give the same
    points; doubling the mesh halves every interval."""
    import casadi as ca

    T, breaks = 0.83, (0.1, 0.4)
    for N in (10, 20, 40):
        m = PhasedMesh.split(N, breaks, T)
        starts, widths = (np.ravel(np.asarray(ca.evalf(v))) for v in m.intervals(T))
        t = m.times(T)
        # a sum of up to N widths (each ≤ T) is within N u T of its exact value (u = ε/2 per addition,
        # on partial sums ≤ T, and each width's own rounding), and a midpoint adds two more roundings
        sums = N * np.finfo(float).eps * T
        why = "a sum of N terms ≤ T rounds by at most N ε T"
        measured.check(f"interval starts vs the listed knots, N = {N}", np.max(np.abs(starts - t[0:-1:2])), sums, "s",
                       argued=why)
        measured.check(f"midpoints vs the listed midpoints, N = {N}",
                       np.max(np.abs(starts + widths / 2 - t[1::2])), sums + 2 * np.finfo(float).eps * T, "s",
                       argued=why)
        measured.check(f"the widths sum to T, N = {N}", abs(widths.sum() - T), sums, "s", argued=why)
        for b in breaks:
            measured.check(f"knot at the break {b} s, N = {N}", abs(t[2 * m.knot(b)] - b), 0.0, "s")
        fine = PhasedMesh.split(2 * N, breaks, T).times(T)
        measured.check(f"the doubled mesh's even knots are this mesh's points, N = {N}", np.max(np.abs(fine[0::2] - t)),
                       1e-15, "s")


def test_a_mesh_moved_to_other_break_times_is_the_mesh_split_there(measured):
    """A program's mesh with its lift at a variable's value (``at_breaks``, the poles' contact time
    free): evaluated at a value, its intervals are those of the mesh with that break and the same
    counts, bit for bit; a break that is a row of one value per interval gives the same; the
    numbers it was split at stay its key."""
    import casadi as ca

    T, counts = 0.83, (6, 14)
    m = PhasedMesh(20, (0.3,), counts)
    lift = ca.SX.sym("lift")
    moved = m.at_breaks((lift,))
    got = ca.Function("f", [lift], list(moved.intervals(T)))(0.37)
    ref = PhasedMesh(20, (0.37,), counts).intervals(T)
    for g, r, what in zip(got, ref, ("starts", "widths")):
        measured.check(f"{what} at the break 0.37 s vs the mesh split there", np.max(np.abs(np.asarray(ca.evalf(g))
                       - np.asarray(ca.evalf(r)))), 0.0, "s")
    row = ca.Function("g", [lift], list(m.at_breaks((ca.repmat(lift, 1, 20),)).intervals(T)))(0.37)
    measured.check("a row of the break per interval vs one break", np.max(np.abs(np.asarray(row[0]) - np.asarray(got[0]))),
                   0.0, "s")
    assert moved.key() == m.key() and moved.breaks == (0.3,) and m.break_times is None
    with pytest.raises(ValueError, match="times: one per break"):
        m.at_breaks((0.3, 0.5))


@pytest.mark.slow
def test_a_knot_at_the_lift_beats_the_even_mesh(measured):
    """The free skater's V2 stroke (150 N from touch-down, lifted at 0.3 s of 0.8 s) collocated on
    10 and 20 intervals, with the phased mesh (a knot at the lift) and with the even mesh, whose
    intervals there straddle the lift (0.3 s is no multiple of 0.08 or 0.04 s): against the
    shooting steady state the phased mesh's speed error is the smaller, by the factor written
    beside each bound (measured 22 and 5): across the lift the push's second derivative jumps."""
    params = sk.FreeSkaterParams(pole_force_max=150.0)
    ss = sk.free_steady_state(params)

    class Even(FreeStroke):
        """The same stroke on the even mesh (the plant, at τ = 0, is its first knot)."""

        def mesh(self, nodes):
            return PhasedMesh(nodes)

        def program_mesh(self, nodes, x):
            return PhasedMesh(nodes)

        def guess_mesh(self, nodes, params):
            return PhasedMesh(nodes)

        def pin(self, opti, hs):
            opti.subject_to(hs.Q[self.cm.start, 0] == 0)
            opti.subject_to(hs.Q[self.cm.start + 1, 0] == 0)

        def pole_rows(self, hs, x=None):
            return {}

        def program_key(self, nodes):
            return ("even",) + super().program_key(nodes)

    for N, factor in ((10, 10.0), (20, 3.0)):
        phased, even = (abs(collocate_stroke(cls(params), nodes=N, max_nodes=N).progress_speed / ss.progress_speed - 1)
                        for cls in (FreeStroke, Even))
        measured.exceeds(f"even mesh's speed error / phased mesh's, N = {N}", even / phased, factor)


def _pole_work(adapter, traj) -> float:
    """Σ over the poles of ∫ F±·Ṙ_B dτ by Simpson's rule on the solution's knots and midpoints,
    from the struts' generalized forces at the solution's points (the terms, evaluated)."""
    names = adapter.terms.force_names
    tau = traj["tau"]
    p = []
    for t, q, v, u in zip(tau, traj["q"], traj["v"], traj["u"]):
        QF = np.asarray(adapter.terms(t, q, v, u)["QF"])
        p.append(sum(QF[names.index(n)] @ v for n in adapter.pole_names))
    p = np.asarray(p)
    h = tau[2::2] - tau[0:-2:2]
    return float(np.sum(h / 6 * (p[0:-2:2] + 4 * p[1::2] + p[2::2])))


@pytest.mark.slow
@pytest.mark.parametrize("model", list(CASES))
def test_the_collocated_stroke_with_poles_is_the_shooting_steady_state(model, measured):
    """One technique with poles, collocated on 10, 20 and 40 intervals, converges at fourth order
    to the shooting steady state with poles: u0, the progress speed, the mean power (leg and arms)
    and the poles' work."""
    cls, params, steady = CASES[model]
    ss = steady(params)
    row = ss.strokes.iloc[0]
    shooting = {"u0": ss.u0, "progress": ss.progress_speed,
                "power": ss.mean_power, "pole work": sum(row[w] for w in POLE_WORK_TERMS)}
    adapter = cls(params)
    assert adapter.poled and adapter.mesh(20).phased
    err = {k: [] for k in shooting}
    for N in (10, 20, 40):
        s = collocate_stroke(adapter, nodes=N, max_nodes=N)
        assert s.status == "Solve_Succeeded", s.status
        got = {"u0": s.u0, "progress": s.progress_speed, "power": s.mean_power,
               "pole work": _pole_work(adapter, s.trajectory)}
        for k in shooting:
            err[k].append(abs(got[k] / shooting[k] - 1))
    measured.exceeds(f"{model}: the poles' work over the stroke [J]", shooting["pole work"], 5.0, "J")
    for k, e in err.items():
        measured.check(f"{model}: {k}, N = 40, vs the shooting steady state with poles", e[-1], AT_40[model][k], "rel.", argued=TRUNCATED)
        measured.exceeds(f"{model}: observed order, {k}", _order(e), ORDER)


@pytest.mark.slow
def test_the_collocated_optimum_with_poles_meets_the_shooting_models_optimality_conditions(measured):
    """The free skater with poles (150 N from touch-down) at 200 W net (the leg's and the arms'
    work), on 40 intervals: at the collocated optimum the shooting model's own gradients satisfy
    ∇v = μ∇P over the parameters inside their bounds, and the Lagrangian does not rise into a
    bound's feasible side; the collocated speed and power are the shooting steady state's there.

    The steady states are sought from the collocated touch-down speed: with a prescribed pole
    force, whose power F·Ṙ_B grows with the speed, one technique has more than one periodic
    stroke (at this optimum's technique, from u = 3 m/s the secant finds 3.47 m/s at 63 W; the
    optimum's is 6.79 m/s at 200 W)."""
    params = sk.FreeSkaterParams(pole_force_max=150.0)
    opt = optimize_technique("free", power=200.0, method="collocation", starts=1, nodes=40, params=params)
    assert opt.feasible and opt.solution.success
    p, b = opt.params, opt.bounds

    def steady(**x):
        ss = sk.free_steady_state(p.__class__(**{**p.__dict__, **x}), u_guess=opt.solution.u0)
        return ss.progress_speed, ss.mean_power

    grad = {}
    for n in b:
        h = 1e-4 * (b[n][1] - b[n][0])
        x = getattr(p, n)
        hi, lo = min(x + h, b[n][1]), max(x - h, b[n][0])
        (vp, Pp), (vm, Pm) = steady(**{n: hi}), steady(**{n: lo})
        grad[n] = ((vp - vm) / (hi - lo), (Pp - Pm) / (hi - lo))
    tol = 1e-3
    inside = [n for n in b if b[n][0] + tol * (b[n][1] - b[n][0]) < getattr(p, n) < b[n][1] - tol * (b[n][1] - b[n][0])]
    assert inside, "no parameter inside its bounds: the conditions say nothing"
    gv, gP = np.array([grad[n][0] for n in inside]), np.array([grad[n][1] for n in inside])
    mu = float(gv @ gP / (gP @ gP))
    scale = np.array([b[n][1] - b[n][0] for n in inside])
    measured.check("|∇v − μ∇P| / |∇v| over the free parameters, with poles",
                   np.linalg.norm((gv - mu * gP) * scale) / np.linalg.norm(gv * scale), 1e-4, "rel.")
    for n in (n for n in b if n not in inside):
        into = 1.0 if getattr(p, n) <= b[n][0] + tol * (b[n][1] - b[n][0]) else -1.0
        measured.check(f"Lagrangian's slope into the bound's feasible side, {n}, with poles",
                       into * (grad[n][0] - mu * grad[n][1]) * (b[n][1] - b[n][0]), 1e-6, "m/s per range")
    vs, Ps = steady()
    measured.check("collocated speed vs the shooting steady state at the optimum, with poles",
                   abs(opt.progress_speed / vs - 1), 1e-5, "rel.", argued=TRUNCATED)
    measured.check("the shooting steady state's power at the optimum vs the budget", abs(Ps / 200.0 - 1), 1e-4, "rel.")


#: each of the poles' law parameters set free alone under a budget 5 % above the technique's own
#: power: the mesh and the bound on the speed's and the power's relative difference from the
#: shooting steady state at the value found (measured on 40 intervals: free, F_p,max 3.0e-7 and
#: 5.1e-7, t_c 3.1e-7 and 5.5e-7; edge, F_p,max 1.7e-7 and 1.6e-7, t_c 3.0e-7 and 2.3e-7)
FREE_POLE = {"free": (40, 1e-6), "edge": (40, 6e-7)}


@pytest.mark.parametrize("model, name", [("free", "pole_force_max"),
                                         # each ≈ 16 s: the contact time and the edged skater's in `make check`
                                         pytest.param("free", "pole_contact_time", marks=pytest.mark.slow),
                                         pytest.param("edge", "pole_force_max", marks=pytest.mark.slow),
                                         pytest.param("edge", "pole_contact_time", marks=pytest.mark.slow)])
def test_a_poles_law_parameter_set_free_spends_the_budget_in_the_shooting_model(model, name, measured):
    """The poles' peak push F_p,max and contact time t_c are law parameters of a poled stroke
    (``POLE_LAW_PARAMETERS``; the lift, a knot of the mesh, moves with t_c): one set free alone
    under a budget 5 % above the technique's own power makes the program square in it, and the
    value found is the budget's root in the shooting model: the shooting steady state there
    spends the budget and skates the collocated speed (Hermite–Simpson's truncation error on the
    mesh), with a stronger or longer push than the technique's."""
    from dataclasses import replace

    from skilib.ocp.poles import POLE_LAW_PARAMETERS

    cls, params, steady = CASES[model]
    own = steady(params).mean_power
    adapter = cls(params)
    assert adapter.law_parameters[-len(POLE_LAW_PARAMETERS):] == POLE_LAW_PARAMETERS
    assert not set(POLE_LAW_PARAMETERS) & set(cls(replace(params, pole_force_max=0.0)).law_parameters)
    nodes, bound = FREE_POLE[model]
    bounds = {"pole_force_max": (5.0, 300.0), "pole_contact_time": (0.1, 0.5)}
    s = collocate_stroke(adapter, bounds={name: bounds[name]}, power=1.05 * own, nodes=nodes, max_nodes=nodes)
    assert s.success and s.status == "Solve_Succeeded", s.status
    found = s.x[name]
    measured.exceeds(f"{model}: {name} found above the technique's own", found - getattr(params, name), 0.0,
                     "N" if name == "pole_force_max" else "s")
    at = replace(params, **{name: found})
    ss = sk.free_steady_state(at, u_guess=s.u0) if model == "free" else steady(at)
    measured.check(f"{model}, {name} free: shooting speed there vs collocated",
                   abs(ss.progress_speed / s.progress_speed - 1), bound, "rel.", argued=TRUNCATED)
    measured.check(f"{model}, {name} free: shooting power there vs the budget", abs(ss.mean_power / (1.05 * own) - 1),
                   bound, "rel.", argued=TRUNCATED)


#: free control with poles: the V2 case for the free skater at 600 W metabolic, the edged skater's
#: 20 N poles at 300 W metabolic (splines on 5 intervals, one start).  The free skater's program is
#: not convex: on 20 intervals IPOPT reached a slower local optimum on an AMD EPYC with its own
#: OpenBLAS kernels (5.9094 m/s, re-simulated to 1.1e-3) and 5.9290 m/s with the Haswell and Prescott
#: kernels; on 30 intervals all three reach 5.92903 m/s (re-simulated to 7e-6)
CONTROL = {"free": (sk.FreeSkaterParams(pole_force_max=150.0), 600.0, 30),
           "edge": (sk.EdgeSkaterParams(pole_force_max=20.0, max_leg_length=1.1), 300.0, 20)}


@pytest.mark.slow
@pytest.mark.parametrize("model", list(CONTROL))
def test_free_control_with_poles_is_resimulated_and_no_slower(model, measured):
    """Free control with the pole's push a spline of the contact: the model's simulator, with the
    splines as its laws and the push as its poles' magnitude, gives the collocated speed and
    powers and returns to the collocated touch-down; the push is 0 outside the contact and at the
    plant and the lift, and within [0, cap] at every point; the stroke is no slower than the
    law-based optimum with the params' sin² push it started from."""
    params, power, nodes = CONTROL[model]
    s = optimal_control(model, power, params=params, nodes=nodes, control_nodes=5, starts=1)
    assert s.success and s.status == "Solve_Succeeded", s.status
    measured.check(f"{model}: re-simulated speed and powers vs collocated", s.resimulation_error, 1e-4, "rel.", argued=TRUNCATED)
    measured.check(f"{model}: re-simulated u after touch-down vs u0", abs(s.resimulated["u_after"] / s.u0 - 1), 1e-5,
                   "rel.")
    measured.exceeds(f"{model}: free control's gain over the law-based optimum with poles", s.gain, 0.0, "m/s")
    fr = s.frame
    plant, lift = params.pole_start, params.pole_start + params.pole_contact_time
    outside = fr.loc[(fr["tau"] < plant) | (fr["tau"] >= lift), "pole_force"]
    ends = fr.loc[np.isin(fr["tau"], [plant]) | np.isclose(fr["tau"], lift, rtol=0, atol=1e-12), "pole_force"]
    measured.check(f"{model}: the push outside the contact and at the plant and the lift", np.abs(np.r_[outside, ends]),
                   0.0, "N")
    measured.check(f"{model}: the push below zero at the points", max(0.0, -fr["pole_force"].min()), 0.0, "N")
    measured.check(f"{model}: the largest push beside the cap", max(0.0, fr["pole_force"].max() - s.caps.peak_pole_force),
                   0.0, "N")


def test_what_collocation_cannot_take_with_poles_is_named():
    """A contact that ends with the stroke (no phase after the lift) names the contact time; a
    cap on the push that is not a positive number names it; a push given to a model without poles,
    or one that is not a ``PolePush``, names the laws' pole."""
    from skilib.engine.timefunctions import QuinticSpline
    from skilib.models.free.collocation import FreeControlCaps
    from skilib.models.free.params import default_laws
    from skilib.strokes.poles import PolePush

    with pytest.raises(ValueError, match="pole_contact_time"):
        FreeStroke(sk.FreeSkaterParams(pole_force_max=150.0, pole_start=0.5, pole_contact_time=0.3))
    with pytest.raises(ValueError, match="caps.peak_pole_force"):
        FreeControlCaps(peak_pole_force=0.0)
    push = PolePush(QuinticSpline([0.0, 0.3], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]))
    plain = sk.FreeSkaterParams()
    laws = default_laws(plain)
    with pytest.raises(ValueError, match="laws.pole"):
        sk.simulate_free(plain, strokes=1, laws=sk.FreeLaws(laws.heading, laws.offset, laws.height, pole=push))
    with pytest.raises(ValueError, match="laws.pole"):
        sk.simulate_free(sk.FreeSkaterParams(pole_force_max=150.0), strokes=1,
                         laws=sk.FreeLaws(laws.heading, laws.offset, laws.height, pole=lambda t: 100.0))
    assert math.isfinite(FreeStroke(sk.FreeSkaterParams(pole_force_max=150.0)).terms.nu)
