"""The leg's force–velocity limit (skilib.physiology.force_velocity) and the two skaters' leg
extension speed it is evaluated at.

- The curve: its ends (F_iso at v = 0, zero at v_max), Hill's hyperbola (F + a)(v + b) =
  (F_iso + a) b for the curvature c = F_iso/a, the straight line for c = 0, the lengthening side
  at F_iso.
- The skaters' ``leg_extension_speed`` against central differences of the leg's length from the
  frame's own columns (an independent path: positions, not the law's derivative), each to the
  truncation error of the difference, bounded from the data's third differences.
- The free skater's ``leg_force`` (along the leg) from the frame's force components and positions.
- The margin of a synthetic frame by hand; a stroke beyond the limit refused by name, or reported.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import skilib as sk
from skilib.physiology import (HILL_CURVATURE, ForceVelocityLimit, ForceVelocityViolation, check_force_velocity,
                               force_velocity_margin)


@pytest.fixture(scope="module")
def free_state():
    return sk.free_steady_state()


@pytest.fixture(scope="module")
def edge_state():
    return sk.edge_steady_state()


@pytest.mark.parametrize("c", [0.0, 1.0, HILL_CURVATURE, 20.0])
def test_the_curve_ends_at_the_isometric_force_and_at_v_max(measured, c):
    """F_max(0) = F_iso and F_max(v_max) = 0 for the straight line and three hyperbolas; the
    curve falls with the speed, is held at F_iso when the leg lengthens under load (v < 0) and
    is negative beyond v_max."""
    lim = ForceVelocityLimit(force_iso_bw=2.3, speed_max=3.7, curvature=c)
    measured.check(f"c = {c:g}: F_max(0) vs F_iso", abs(float(lim.capacity(0.0)) - 2.3), 0.0, "BW")
    measured.check(f"c = {c:g}: F_max(v_max) vs 0", abs(float(lim.capacity(3.7))), 1e-15, "BW")
    assert float(lim.capacity(-0.8)) == 2.3  # lengthening: held at the isometric force
    v = np.linspace(0.0, 3.7, 101)
    assert np.all(np.diff(lim.capacity(v)) < 0)  # falls with the speed
    assert float(lim.capacity(4.0)) < 0  # beyond v_max no push is possible


def test_hills_hyperbola_for_a_positive_curvature(measured):
    """(F + a)(v + b) = (F_iso + a) b with a = F_iso/c, b = v_max/c (Hill 1938): for c = 4,
    a/F_iso = 0.25; at v = v_max/2 the force is F_iso/6 (by hand: 0.5/(1 + 2))."""
    lim = ForceVelocityLimit(force_iso_bw=2.0, speed_max=3.0, curvature=HILL_CURVATURE)
    a, b = lim.hill_a, lim.hill_b
    assert (a, b) == (0.5, 0.75)
    v = np.linspace(0.0, 3.0, 31)
    F = lim.capacity(v)
    measured.allclose("(F + a)(v + b) vs (F_iso + a) b, 31 speeds", (F + a) * (v + b), (2.0 + a) * b, rtol=1e-14)
    measured.check("F_max(v_max/2) vs F_iso/6 by hand", abs(float(lim.capacity(1.5)) - 2.0 / 6.0), 1e-15, "BW")


def test_the_straight_line_for_zero_curvature(measured):
    """c = 0: F_max(v) = F_iso (1 − v/v_max) at nine speeds; the margin is capacity − force."""
    lim = ForceVelocityLimit(force_iso_bw=2.0, speed_max=4.0)
    v = np.linspace(0.0, 4.0, 9)
    measured.allclose("F_max(v) vs F_iso (1 − v/v_max)", lim.capacity(v), 2.0 * (1 - v / 4.0), atol=1e-15,
                      unit="BW")
    assert math.isinf(lim.hill_a) and math.isinf(lim.hill_b)
    # the margin is capacity minus force, pointwise
    measured.allclose("margin vs capacity − force by hand", lim.margin([0.5, 1.0, 3.0], [0.0, 2.0, 1.0]),
                      [1.5, 0.0, -1.5], atol=1e-15, unit="BW")


@pytest.mark.parametrize("field, value, match", [
    ("force_iso_bw", -1.0, r"force_iso_bw: must be in \[0.5, 6\] body weights"),
    ("force_iso_bw", 0.0, r"force_iso_bw"),
    ("force_iso_bw", float("nan"), r"force_iso_bw"),
    ("speed_max", float("inf"), r"speed_max"),
    ("speed_max", 0.0, r"speed_max: must be in \[0.5, 10\] m/s"),
    ("curvature", -0.5, r"curvature: must be in \[0, 20\]"),
    ("curvature", "hill", r"curvature"),
])
def test_bad_fields_are_refused_by_name(field, value, match):
    kw = {"force_iso_bw": 2.0, "speed_max": 3.0, "curvature": 0.0, field: value}
    with pytest.raises(ValueError, match=match):
        ForceVelocityLimit(**kw)


def test_bad_arguments_are_refused_by_name(edge_state):
    lim = ForceVelocityLimit(force_iso_bw=2.0, speed_max=3.0)
    with pytest.raises(ValueError, match="speed: extension speeds must be finite"):
        lim.capacity([0.0, float("nan")])
    with pytest.raises(ValueError, match="force_bw: leg forces must be finite"):
        lim.margin([float("inf")], [0.0])
    with pytest.raises(ValueError, match="limit: must be a ForceVelocityLimit"):
        force_velocity_margin(edge_state.frame, (2.0, 3.0), weight=700.0)
    with pytest.raises(ValueError, match="weight"):
        force_velocity_margin(edge_state.frame, lim, weight=-1.0)
    with pytest.raises(ValueError, match=r"frame: needs the columns \['leg_force', 'leg_extension_speed'\]"):
        force_velocity_margin(edge_state.frame.drop(columns=["leg_force", "leg_extension_speed"]), lim, weight=700.0)
    with pytest.raises(ValueError, match="admissibility: must be 'refuse' or 'report'"):
        check_force_velocity(edge_state.frame, lim, weight=700.0, admissibility="warn")


ARGUED = ("the central difference's truncation h²/6 |ℓ'''| at its largest, with ℓ''' estimated by the "
          "samples' third differences (accurate to O(h)); the error comes within a factor 1.0–1.05 of it where "
          "|ℓ'''| peaks, so the bound is twice it")


def truncation_bound(h, x):
    """A bound of the central difference's error on samples x at step h: h²/6 max|x'''|, x'''
    estimated by the samples' third differences (the leg's length is smooth within a stroke)."""
    third = np.abs(np.diff(x, 3)).max() / h**3
    return h * h / 6.0 * third


def one_stroke(frame):
    g = frame[frame["stroke"] == frame["stroke"].iloc[0]]
    tau = g["tau"].to_numpy(dtype=float)
    h = float(np.diff(tau).mean())
    assert np.allclose(np.diff(tau), h, rtol=1e-9, atol=1e-12)
    return g, h


def test_edge_extension_speed_is_the_rate_of_the_legs_length(measured, edge_state):
    """ℓ̇ (the law's rate) against central differences of the leg's length across the ski,
    |r⊥| from the positions: equal within the difference's truncation bound (×2) plus the
    constraint's rounding over h."""
    g, h = one_stroke(edge_state.frame)
    ell = g["leg_length"].to_numpy()
    fd = (ell[2:] - ell[:-2]) / (2 * h)
    err = np.abs(g["leg_extension_speed"].to_numpy()[1:-1] - fd).max()
    bound = 2 * truncation_bound(h, ell) + 2 * float(g["constraint_norm"].max()) / h
    measured.check("ℓ̇ vs central differences of |r⊥|", err, bound, "m/s", argued=ARGUED)


def test_free_extension_speed_and_force_along_the_leg(measured, free_state):
    """The free skater's ℓ̇ against central differences of |R_B − R_ski| from the frame's
    positions; its leg_force equals (leg_fx, leg_fy, leg_fz)·r̂ from the same columns."""
    g, h = one_stroke(free_state.frame)
    r = g[["cm_x", "cm_y", "cm_z"]].to_numpy() - g[["ski_x", "ski_y", "ski_z"]].to_numpy()
    ell = np.linalg.norm(r, axis=1)
    fd = (ell[2:] - ell[:-2]) / (2 * h)
    err = np.abs(g["leg_extension_speed"].to_numpy()[1:-1] - fd).max()
    bound = 2 * truncation_bound(h, ell)
    measured.check("ℓ̇ vs central differences of |R_B − R_ski|", err, bound, "m/s", argued=ARGUED)
    along = np.einsum("ij,ij->i", g[["leg_fx", "leg_fy", "leg_fz"]].to_numpy(), r / ell[:, None])
    measured.allclose("leg_force vs F·r̂ from the frame", g["leg_force"].to_numpy(), along, rtol=1e-12)
    # the force along the leg is at most its magnitude
    weight = sk.FreeSkaterParams().weight
    assert np.all(g["leg_force"].to_numpy() <= g["leg_force_bw"].to_numpy() * weight * (1 + 1e-12))


def test_the_margin_of_a_synthetic_frame_by_hand(measured):
    """Synthetic: two strokes of three points; weight 1000 N; F_iso 2, v_max 2 (linear)."""
    frame = pd.DataFrame({"stroke": [1, 1, 1, 2, 2, 2], "tau": [0.0, 0.1, 0.2] * 2,
                          "leg_force": [1000.0, 1500.0, 500.0, 1000.0, 1200.0, 100.0],
                          "leg_extension_speed": [0.0, 0.5, 1.0, 0.0, 1.0, 1.9]})
    lim = ForceVelocityLimit(force_iso_bw=2.0, speed_max=2.0)
    m = force_velocity_margin(frame, lim, weight=1000.0)
    # capacities 2, 1.5, 1 | 2, 1, 0.1; forces 1, 1.5, 0.5 | 1, 1.2, 0.1
    measured.allclose("margins vs by hand", m["force_velocity_margin"], [1.0, 0.0, 0.5, 1.0, -0.2, 0.0],
                      atol=1e-15, unit="BW")
    table = check_force_velocity(frame, lim, weight=1000.0, admissibility="report")
    assert table["stroke"].tolist() == [1, 2]
    measured.allclose("each stroke's least margin vs by hand", table["min_force_velocity_margin"], [0.0, -0.2],
                      atol=1e-15, unit="BW")
    assert table["tau_min_margin"].tolist() == [0.1, 0.1]
    with pytest.raises(ForceVelocityViolation, match=r"stroke 2 asks the leg for 1.2 body weights at τ = 0.1 s "
                                                     r"while it extends at 1 m/s, where it can push 1 "):
        check_force_velocity(frame, lim, weight=1000.0)


def test_the_edged_skaters_stroke_within_and_beyond_a_limit(measured, edge_state):
    """The periodic stroke's least margin equals the least of capacity − F/(M g) over its
    frame, computed here from the frame; a weak leg refuses the stroke by name."""
    p = sk.EdgeSkaterParams()
    f = edge_state.frame
    strong = ForceVelocityLimit(force_iso_bw=3.0, speed_max=3.0)
    by_hand = (3.0 * (1 - f["leg_extension_speed"] / 3.0) - f["leg_force"] / p.weight).min()
    table = check_force_velocity(f, strong, weight=p.weight)
    measured.check("least margin vs from the frame by hand", abs(table["min_force_velocity_margin"].min() - by_hand),
                   1e-12 * abs(by_hand), "BW")
    assert by_hand > 0
    weak = ForceVelocityLimit(force_iso_bw=1.0, speed_max=1.0)
    with pytest.raises(ForceVelocityViolation, match=r"force_velocity_margin: stroke 1 asks the leg for"):
        check_force_velocity(f, weak, weight=p.weight)


def test_the_optimizers_refuse_a_limit_they_cannot_use():
    lim = ForceVelocityLimit(force_iso_bw=2.0, speed_max=3.0)
    with pytest.raises(ValueError, match="force_velocity: the thesis model's push-off has no leg extension speed"):
        sk.optimize_technique("thesis", 200.0, force_velocity=lim)
    with pytest.raises(ValueError, match="force_velocity: must be None, a skilib.physiology.ForceVelocityLimit or a "
                                         "tuple of them"):
        sk.required_power("free", 5.0, force_velocity=(2.0, 3.0))
    with pytest.raises(ValueError, match=r"force_velocity: one limit per limb, got the limbs \['leg', 'leg'\]"):
        sk.required_power("free", 5.0, force_velocity=(lim, lim))
    with pytest.raises(ValueError, match="limb: must be one of"):
        ForceVelocityLimit(force_iso_bw=2.0, speed_max=3.0, limb="arm")
    with pytest.raises(ValueError, match="force_velocity: the thesis model's push-off has no leg extension speed"):
        sk.optimize_technique("thesis", 200.0, method="collocation", force_velocity=lim)


@pytest.mark.parametrize("value, says", [
    ("9,1", "argument --force-velocity: force_iso_bw: must be in [0.5, 6] body weights"),
    ("2", "argument --force-velocity: must be F_ISO_BW,V_MAX or F_ISO_BW,V_MAX,CURVATURE"),
    ("2,3,-1", "argument --force-velocity: curvature: must be in [0, 20]"),
    ("2,x", "--force-velocity"),
])
def test_the_cli_refuses_a_bad_limit_by_name(capsys, value, says):
    from skilib.cli import main

    assert main(["optimum", "--power", "200", "--force-velocity", value]) == 2
    assert says in capsys.readouterr().err


def test_the_cli_refuses_the_limit_for_the_thesis_skier(capsys):
    from skilib.cli import main

    assert main(["optimum", "--power", "200", "--model", "thesis", "--force-velocity", "2,3"]) == 2
    assert "force_velocity: the thesis model's push-off has no leg extension speed" in capsys.readouterr().err


#: the free skater at its 200 W optimum's stroke time, turn and offset (rounded), optimising its
#: V and its dip from that optimum's: a small problem whose optimum the limit can move
FREE_BASE = dict(stroke_time=0.4, steer_deg=5.5, offset_end=0.285)
FREE_TWO = {"skating_angle_deg": (10.0, 70.0), "cm_dip": (0.0, 0.15)}
FREE_X0 = {"skating_angle_deg": 15.4, "cm_dip": 0.002}
#: SLSQP's tolerance on the speed (optimize_technique's ftol) [m/s] and on the constraints
#: (power_tol, relative): two optima of the same problem agree to these, not to rounding, for the
#: extra row changes SLSQP's least-squares subproblems
FTOL, CTOL = 1e-8, 1e-8


def free_optimum(limit=None):
    from dataclasses import replace

    p0 = replace(sk.FreeSkaterParams(), **FREE_BASE)
    return sk.optimize_technique("free", 200.0, bounds=FREE_TWO, params=p0, starts=1, x0=FREE_X0,
                                 force_velocity=limit)


@pytest.mark.slow
def test_the_optimizer_keeps_the_stroke_within_the_limit(measured):
    """With a limit the free optimum at 200 W breaks (its least margin −1.3e-4 body weights for
    F_iso 1.3, v_max 1.5), the constrained optimum meets it — its margin ≥ 0 to the constraint
    tolerance and no more than 1e-6 above: the limit binds — and is no faster than the free
    optimum (a maximum over a subset), to SLSQP's speed tolerance.  A limit far from the stroke
    (F_iso 3, v_max 3) leaves the optimum's speed as it was.  About 30 s."""
    free = free_optimum()
    tight = ForceVelocityLimit(force_iso_bw=1.3, speed_max=1.5)
    from skilib.studies.optimum import TechniqueModel

    tm = TechniqueModel("free", tuple(FREE_TWO), free.base, None, "progress", "net", tight)
    before = tm.values([free.x[n] for n in FREE_TWO])["force_velocity_margin"]
    measured.exceeds("the free optimum's violation of the limit", -before, 1e-5, "BW")
    bound = free_optimum(tight)
    assert bound.feasible and bound.force_velocity is tight
    measured.check("the constrained optimum's margin below 0", max(-bound.force_velocity_margin, 0.0), CTOL, "BW",
                   argued="the optimizer's constraint tolerance (power_tol)")
    measured.check("the constrained optimum's margin above 0 (the limit binds)", max(bound.force_velocity_margin, 0.0),
                   1e-6, "BW", argued="SLSQP ends on the active constraint to its tolerance")
    measured.check("constrained speed above the free optimum's", max(bound.progress_speed - free.progress_speed, 0.0),
                   FTOL, "m/s", argued="SLSQP's ftol on the speed")
    margin = check_force_velocity(sk.free_steady_state(bound.params).frame, tight, weight=bound.params.weight,
                                  admissibility="report")["min_force_velocity_margin"].min()
    measured.check("the answer's margin vs the steady state's recomputed", abs(margin - bound.force_velocity_margin),
                   1e-9, "BW", argued="the secant's tolerance on u0 (1e-10 m/s) moves the stroke's forces by less")
    loose = free_optimum(ForceVelocityLimit(force_iso_bw=3.0, speed_max=3.0))
    assert loose.force_velocity_margin > 1.0
    measured.check("a loose limit's optimum speed vs the free optimum's", abs(loose.progress_speed - free.progress_speed),
                   FTOL, "m/s", argued="SLSQP's ftol on the speed: the extra inactive row changes its subproblems")


def test_the_edged_skaters_technique_logs_its_margin_as_an_inequality(measured, edge_state):
    """The optimizer's view of the edged skater with a limit: the logged margin is the periodic
    stroke's least margin recomputed from its frame, and it is the last inequality row, after
    the four of the edged skater's admissibility."""
    from skilib.studies.optimum import EDGE_MARGINS, TechniqueModel, default_params

    lim = ForceVelocityLimit(force_iso_bw=2.0, speed_max=2.0, curvature=HILL_CURVATURE)
    tm = TechniqueModel("edge", ("stroke_time",), default_params("edge"), None, "progress", "net", lim)
    x = [default_params("edge").stroke_time]
    row = tm.values(x)
    ss = sk.edge_steady_state(default_params("edge"))
    by_hand = check_force_velocity(ss.frame, lim, weight=sk.EdgeSkaterParams().weight,
                                   admissibility="report")["min_force_velocity_margin"].min()
    measured.check("logged margin vs the periodic stroke's recomputed", abs(row["force_velocity_margin"] - by_hand),
                   1e-9, "BW", argued="two searches for the same periodic stroke agree to the secant's tolerance")
    rows = tm.inequalities(x)
    assert len(rows) == len(EDGE_MARGINS) + 1 and rows[-1] == row["force_velocity_margin"]


# -- the limit in collocation (skilib.ocp) ------------------------------------------------------------


def shooting_margins(adapter, sol, limit):
    """The shooting model's own margin at each collocated point: its ``point_columns`` (the frame's
    ``leg_force`` and ``leg_extension_speed``) from the numeric engine evaluated at the collocated
    (τ, q, q̇), then ``ForceVelocityLimit.margin``: an independent path (NumPy, the engine's
    multipliers) to the program's CasADi expression."""
    from types import SimpleNamespace

    from skilib.models.edge.model import EdgeSkaterModel
    from skilib.models.free.model import FreeSkaterModel

    tr, p = sol.trajectory, sol.params
    if adapter.name == "free skater":
        model = FreeSkaterModel(p, "right", np.zeros(3))
    else:
        model = EdgeSkaterModel(p, "right", np.zeros(3), tr["extra"]["leg_start"], landing_offset=p.landing_offset)
    system = model.system(1)
    seg = SimpleNamespace(rows=model.rows(system), mode=1)
    out = []
    for t, q, v in zip(tr["tau"], tr["q"], tr["v"]):
        c = model.point_columns(system.evaluate(t, q, v), seg, t, q, v)
        out.append(float(limit.margin(c["leg_force"] / p.weight, c["leg_extension_speed"])))
    return np.array(out)


@pytest.mark.parametrize("model", ["free", "edge"])
def test_the_collocated_margin_is_the_shooting_models_at_the_same_stroke(measured, model):
    """The periodic stroke of each skater's default technique collocated with a Hill limit as a
    row (F_iso 3, v_max 3 m/s, c = 4: inactive): at each of its 41 knots and midpoints the
    program's margin equals the shooting model's own (``shooting_margins``: the frame's columns
    from the numeric engine at the same states) to rounding, and the least of them equals the
    shooting steady state's least margin over its output grid to the collocation's truncation."""
    pytest.importorskip("casadi")
    from skilib.ocp import collocate_stroke
    from skilib.ocp.technique import stroke_adapter

    limit = ForceVelocityLimit(force_iso_bw=3.0, speed_max=3.0, curvature=HILL_CURVATURE)
    adapter = stroke_adapter(model)
    sol = collocate_stroke(adapter, force_velocity=limit)
    assert sol.success
    here = sol.trajectory["force_velocity_margin"]
    there = shooting_margins(adapter, sol, limit)
    measured.allclose(f"{model}: the program's margin vs the shooting model's, 41 points", here, there, atol=1e-12,
                      unit="BW", argued="the same formula in CasADi and NumPy; the multipliers of the program and "
                                        "of the engine's solve at the same state agree to IPOPT's residual (1e-10 "
                                        "of a body weight)")
    assert sol.force_velocity_margin == here.min() > 0
    ss = sk.free_steady_state(sol.params) if model == "free" else sk.edge_steady_state(sol.params)
    grid = check_force_velocity(ss.frame, limit, weight=sol.params.weight, admissibility="report")
    measured.check(f"{model}: least margin, collocated vs the shooting steady state's",
                   abs(sol.force_velocity_margin - grid["min_force_velocity_margin"].min()), 1e-6, "BW",
                   argued="Hermite–Simpson's truncation on 20 intervals and the two grids' different points (the "
                          "least margin of a smooth curve sampled at h differs by O(h²) of its curvature)")


@pytest.mark.slow
def test_collocation_holds_the_optimum_to_the_limit(measured):
    """The free skater's two-parameter problem of the shooting test above, by collocation: with
    the tight limit the collocated optimum meets it (its least margin ≥ 0 to IPOPT's tolerance,
    and within 1e-5 of 0: the limit binds; IPOPT's interior point leaves an active row with a
    small multiplier a slack of μ/z), its re-simulated stroke is within the limit to the
    truncation, and the limit moves the dip to the value the shooting optimum moves it to."""
    pytest.importorskip("casadi")
    from dataclasses import replace

    p0 = replace(sk.FreeSkaterParams(), **FREE_BASE)
    tight = ForceVelocityLimit(force_iso_bw=1.3, speed_max=1.5)
    coll = sk.optimize_technique("free", 200.0, bounds=FREE_TWO, params=p0, starts=1, x0=FREE_X0,
                                 method="collocation", force_velocity=tight)
    assert coll.feasible and coll.force_velocity is tight
    measured.check("the collocated optimum's margin below 0", max(-coll.force_velocity_margin, 0.0), 1e-8, "BW",
                   argued="IPOPT's constraint tolerance")
    measured.check("the collocated optimum's margin above 0 (the limit binds)", max(coll.force_velocity_margin, 0.0),
                   1e-5, "BW", argued="IPOPT ends an active row of small multiplier at a slack ≈ μ/z")
    again = check_force_velocity(sk.free_steady_state(coll.params).frame, tight, weight=coll.params.weight,
                                 admissibility="report")["min_force_velocity_margin"].min()
    measured.check("its re-simulated stroke's margin below 0", max(-again, 0.0), 1e-6, "BW",
                   argued="the collocation's truncation and the shooting grid's other points")
    shoot = free_optimum(tight)
    measured.check("the limited optimum's dip, collocation vs shooting", abs(coll.x["cm_dip"] - shoot.x["cm_dip"]),
                   1e-6, "m", argued="the optimum moves with the 20-interval mesh's truncation (speed 6e-6 "
                                     "relative) and the least margin's grid")


# -- the arms (each arm on its pole) -------------------------------------------------------------------

#: V2 poles on the free skater: each pole's peak push, its plant and contact [N, s, s]
POLED = dict(pole_force_max=150.0, pole_contact_time=0.25, pole_start=0.05)


@pytest.fixture(scope="module")
def poled_state():
    from dataclasses import replace

    return sk.free_steady_state(replace(sk.FreeSkaterParams(), **POLED))


def test_each_arms_extension_speed_is_the_rate_of_its_poles_length(measured, poled_state):
    """Each pole's ``<pole>_extension_speed`` against central differences of its tip-to-hand
    distance from the frame's positions: the tip planted at τ = t_p beside the hand, (X_B, Y_B ±
    (w_h + w_p), 0) there, the hand (X_B, Y_B ± w_h, z_h); equal within the difference's
    truncation bound (×2) at the contact's interior points."""
    from skilib.strokes.poles import HAND_HEIGHT, HAND_WIDTH, POLES, TIP_OUTWARD

    g, h = one_stroke(poled_state.frame)
    tau = g["tau"].to_numpy()
    X, Y = g["cm_x"].to_numpy(), g["cm_y"].to_numpy()
    tp, tc = POLED["pole_start"], POLED["pole_contact_time"]
    inside = np.flatnonzero((tau > tp + 1.5 * h) & (tau < tp + tc - 1.5 * h))
    assert len(inside) > 15
    for name, side in POLES:
        tip = np.array([np.interp(tp, tau, X), np.interp(tp, tau, Y) + side * (HAND_WIDTH + TIP_OUTWARD), 0.0])
        d = np.sqrt((X - tip[0]) ** 2 + (Y + side * HAND_WIDTH - tip[1]) ** 2 + HAND_HEIGHT**2)
        fd = (d[inside + 1] - d[inside - 1]) / (2 * h)
        err = np.abs(g[f"{name}_extension_speed"].to_numpy()[inside] - fd).max()
        window = d[inside.min() - 1: inside.max() + 2]
        measured.check(f"{name}: the arm's extension speed vs central differences of |H − T|", err,
                       2 * truncation_bound(h, window), "m/s", argued=ARGUED)
    assert np.all(g.loc[g["pole_force"] == 0.0, [f"{n}_extension_speed" for n, _ in POLES]].to_numpy() == 0.0)


def test_the_arms_margin_of_a_synthetic_frame_by_hand(measured):
    """Synthetic: one stroke of four points, weight 1000 N, an arm of F_iso 0.5, v_max 2 m/s
    (linear); the margin is the least over the two poles where they push, none where they do
    not; a stroke beyond the limit is refused naming an arm."""
    frame = pd.DataFrame({"stroke": [1, 1, 1, 1], "tau": [0.0, 0.1, 0.2, 0.3],
                          "pole_force": [0.0, 200.0, 300.0, 80.0],
                          "pole_left_extension_speed": [0.0, 0.5, 1.0, 1.8],
                          "pole_right_extension_speed": [0.0, 1.0, 0.4, 1.0]})
    arm = ForceVelocityLimit(force_iso_bw=0.5, speed_max=2.0, limb="arms")
    m = force_velocity_margin(frame, arm, weight=1000.0)
    # pushing at 0.1, 0.2, 0.3 s: capacities min(0.375, 0.25), min(0.25, 0.4), min(0.05, 0.25); forces 0.2, 0.3, 0.08
    measured.allclose("arm margins vs by hand", m["force_velocity_margin"], [0.05, -0.05, -0.03], atol=1e-15,
                      unit="BW")
    assert m["tau"].tolist() == [0.1, 0.2, 0.3]
    with pytest.raises(ForceVelocityViolation, match=r"stroke 1 asks an arm for 0.3 body weights at τ = 0.2 s"):
        check_force_velocity(frame, arm, weight=1000.0)
    rest = frame.assign(pole_force=0.0)
    assert check_force_velocity(rest, arm, weight=1000.0).empty  # nothing asked of the arms
    with pytest.raises(ValueError, match=r"frame: needs the columns \['pole_force'"):
        force_velocity_margin(frame.drop(columns=["pole_force"]), arm, weight=1000.0)
    with pytest.raises(ValueError, match=r"force_iso_bw: must be in \[0.1, 3\] body weights"):
        ForceVelocityLimit(force_iso_bw=4.0, speed_max=2.0, limb="arms")


def test_the_technique_logs_the_least_margin_over_both_limbs(measured, poled_state):
    """The optimizer's view with a limit per limb: the logged margin is the least of the leg's
    and the arms' margins of the periodic stroke, each recomputed from its frame."""
    from dataclasses import replace

    from skilib.studies.optimum import TechniqueModel

    p = replace(sk.FreeSkaterParams(), **POLED)
    leg = ForceVelocityLimit(force_iso_bw=3.0, speed_max=3.0)
    arm = ForceVelocityLimit(force_iso_bw=0.5, speed_max=4.0, limb="arms")
    tm = TechniqueModel("free", ("stroke_time",), p, None, "progress", "net", (leg, arm))
    row = tm.values([p.stroke_time])
    each = [check_force_velocity(poled_state.frame, lim, weight=p.weight, admissibility="report")
            ["min_force_velocity_margin"].min() for lim in (leg, arm)]
    assert each[1] < each[0]  # the arms bind here
    measured.check("logged margin vs the least of the two recomputed", abs(row["force_velocity_margin"] - min(each)),
                   1e-9, "BW", argued="two searches for the same periodic stroke agree to the secant's tolerance")


def test_the_collocated_arm_margin_is_the_shooting_models_at_the_same_stroke(measured, poled_state):
    """The free skater's V2 stroke collocated with an arm's Hill limit (F_iso 1, v_max 3 m/s,
    c = 4) as rows: at each point of the contact where the poles push, the program's margin
    equals the shooting model's own (``pole_columns`` of the planted system, the numeric engine at
    the collocated states) to rounding; its least equals the steady state's least over the
    output grid to the two grids' difference."""
    pytest.importorskip("casadi")
    from dataclasses import replace

    from skilib.models.free.model import FreeSkaterModel
    from skilib.ocp import collocate_stroke
    from skilib.ocp.technique import stroke_adapter
    from skilib.strokes.poles import POLES, pole_columns

    p = replace(sk.FreeSkaterParams(), **POLED)
    arm = ForceVelocityLimit(force_iso_bw=1.0, speed_max=3.0, curvature=HILL_CURVATURE, limb="arms")
    adapter = stroke_adapter("free", p)
    sol = collocate_stroke(adapter, force_velocity=arm)
    assert sol.success
    tr = sol.trajectory
    m = tr["force_velocity_margin"]
    contact = np.flatnonzero(np.isfinite(m))
    model = FreeSkaterModel(sol.params, "right", np.zeros(3))
    plant = int(np.argmin(np.abs(tr["tau"] - adapter.plant)))  # the plant's knot, just before the contact's points
    assert plant == contact[0] - 1
    planted = model.phase_model("poles", adapter.plant, tr["q"][plant], None).system(1)
    here, there = [], []
    for j in contact:
        t, q, v = tr["tau"][j], tr["q"][j], tr["v"][j]
        c = pole_columns(planted.evaluate(t, q, v), model.cm, v)
        if c["pole_force"] > 0:
            caps = [float(arm.capacity(c[f"{n}_extension_speed"])) for n, _ in POLES]
            there.append(min(caps) - c["pole_force"] / p.weight)
            here.append(m[j])
    assert len(here) >= 10
    measured.allclose("the program's arm margin vs the shooting model's, contact points", here, there, atol=1e-12,
                      unit="BW", argued="the same formula in CasADi and NumPy at the same states")
    # the least of a smooth curve sampled at spacing h misses its minimum by at most h²/8 |m''|:
    # the collocation's points are ≈ 10× further apart than the frame's
    fm = force_velocity_margin(poled_state.frame, arm, weight=p.weight)
    fm = fm[fm["stroke"] == fm["stroke"].iloc[0]]
    hf = float(np.diff(fm["tau"]).mean())
    curvature = np.abs(np.diff(fm["force_velocity_margin"].to_numpy(), 2)).max() / hf**2
    hc = float(np.diff(tr["tau"][contact]).max())
    measured.check("least arm margin, collocated vs the shooting steady state's",
                   abs(sol.force_velocity_margin - fm["force_velocity_margin"].min()),
                   2 * curvature * (hc**2 + hf**2) / 8, "BW",
                   argued="each grid misses the curve's minimum by at most h²/8 |m''|, |m''| from the frame's "
                          "second differences, twice that bound")
