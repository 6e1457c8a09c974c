"""The stroke-change rules, the energy at each change, the power breakdown and the one-number
calibration (book: The skier model, "Skating angle and stroke change"; Differences from the
thesis).  Compiled runs of a few strokes at loose tolerances."""
import math

import numpy as np
import pytest

import skilib as sk
from skilib.models.thesis import cases
from skilib.models.thesis.energy import BREAKDOWN_TERMS
from skilib.models.thesis.run import STROKE_CHANGE_RULES, stroke_change
from skilib.strokes import NoSteadyState

FAST = dict(dt_out=0.05, rtol=1e-9, atol=1e-9)


@pytest.fixture(scope="module")
def runs():
    return {rule: sk.simulate_run(strokes=3, stroke_change=rule, **FAST) for rule in STROKE_CHANGE_RULES}


def _end_start(res, k):
    """Frame rows at the end of stroke k and at the start of stroke k + 1."""
    f = res.frame
    return f[f.stroke == k].iloc[-1], f[f.stroke == k + 1].iloc[0]


def test_rule_names_and_validation():
    assert STROKE_CHANGE_RULES == ("along_ski", "ski_speed_kept", "speed_kept")
    with pytest.raises(ValueError, match="stroke_change"):
        sk.simulate_run(strokes=2, stroke_change="elastic", **FAST)


@pytest.mark.parametrize("rule", STROKE_CHANGE_RULES)
def test_defining_equation_holds_at_every_change(runs, rule, measured):
    """Each rule's condition on the new velocity, read from the frame on either side of every
    change: e′·ΔṘ³ = 0 (along_ski), Δṡ = 0 (ski_speed_kept), Δ|Ṙ³| = 0 (speed_kept); and the new
    pose keeps the CM's horizontal position with the new ski at s = 0."""
    res = runs[rule]
    assert res.info["stroke_change"] == rule and len(res.changes) == 2
    for k in (1, 2):
        a, b = _end_start(res, k)
        h = math.radians(res.strokes.heading_deg.iloc[k])       # the new ski's heading e′
        e = np.array([math.cos(h), math.sin(h), 0.0])
        va, vb = a[["cm_vx", "cm_vy", "cm_vz"]].to_numpy(float), b[["cm_vx", "cm_vy", "cm_vz"]].to_numpy(float)
        if rule == "along_ski":          # e′·(Ṙ³⁺ − Ṙ³⁻) = 0
            measured.check(f"{rule}: e′·(Ṙ³⁺ − Ṙ³⁻), change {k}", e @ (vb - va), 1e-9, "m/s")
        elif rule == "ski_speed_kept":   # ṡ⁺ = ṡ⁻
            measured.check(f"{rule}: ṡ⁺ − ṡ⁻, change {k}", b.s_dot - a.s_dot, 1e-9, "m/s")
        else:                            # |Ṙ³⁺| = |Ṙ³⁻|
            measured.check(f"{rule}: |Ṙ³⁺| − |Ṙ³⁻|, change {k}", np.linalg.norm(vb) - np.linalg.norm(va), 1e-9, "m/s")
        # the new pose: the CM keeps its horizontal position, the ski is on its line at s = 0
        measured.check(f"{rule}: CM horizontal position jump, change {k}", [b.cm_x - a.cm_x, b.cm_y - a.cm_y], 1e-9, "m")
        measured.check(f"{rule}: new ski's s at the change {k}", b.s, 1e-9, "m")


@pytest.mark.parametrize("rule", STROKE_CHANGE_RULES)
def test_energy_balance_at_every_change(runs, rule, measured):
    """KE and PE of the change agree with the strokes on either side, and the PE lost is
    m₃ g Δz of the CM plus m₂ g Δz of the shank (the ski stays on z = 0)."""
    res = runs[rule]
    p, st, ch = res.params, res.strokes, res.changes
    m3, m2 = res.models[0].upper.mass, res.models[0].shank.mass
    l1 = p.lower_leg / 2 if p.ankle_offset is None else p.ankle_offset
    for i, k in enumerate((1, 2)):
        row = ch.iloc[i]
        measured.check(f"{rule}: KE⁻ of change {k} − KE at the end of stroke {k}", row.ke_before - st.ke_end.iloc[k - 1], 1e-9, "J")
        measured.check(f"{rule}: KE⁺ of change {k} − KE at the start of stroke {k + 1}", row.ke_after - st.ke_start.iloc[k], 1e-9, "J")
        measured.check(f"{rule}: KE lost − (KE⁻ − KE⁺), change {k}", row.ke_loss - (row.ke_before - row.ke_after), 1e-9, "J")
        a, b = _end_start(res, k)
        g_end, g0 = math.radians(a.leg_angle_deg), math.radians(b.leg_angle_deg)
        shank_dz = l1 * (math.cos(g0) - math.cos(g_end))
        pe = -(m3 * p.g * (b.cm_z - a.cm_z) + m2 * p.g * shank_dz)
        measured.check(f"{rule}: PE lost − (m₃ g Δz_CM + m₂ g Δz_shank), change {k}", row.pe_loss - pe, 1e-9, "J")


@pytest.mark.parametrize("rule", STROKE_CHANGE_RULES)
def test_power_breakdown_sums_to_push_work(runs, rule, measured):
    """The push-off work of every stroke against KE lost at the change + PE lost with the pose
    reset + friction + drag + drivers + KE stored + residual, each taken from its own table."""
    br = sk.power_breakdown(runs[rule])
    assert list(br.stroke) == [1, 2, 3]
    total = br[list(BREAKDOWN_TERMS)].sum(axis=1)
    measured.check(f"{rule}: W_push − Σ terms per stroke", total - br.work_push, 1e-9, "J")
    measured.check(f"{rule}: stabilization and integration residual per stroke", br.residual, 1e-6, "J")
    measured.check(f"{rule}: KE at a stroke's end − KE⁻ of the next change", br.ke_end - br.ke_before_change, 1e-9, "J")


def test_along_ski_has_the_smallest_cm_velocity_jump(runs, measured):
    """On the same state, of all admissible new velocities (one parameter, ṡ⁺), the rule that
    keeps e′·Ṙ³ gives the smallest |ΔṘ³| — smaller than the other two rules'."""
    res = runs["along_ski"]
    model = res.models[1]
    a, _ = _end_start(res, 2)
    q = a[[f"q{j}" for j in range(model.nq)]].to_numpy(float)
    qd = a[[f"qd{j}" for j in range(model.nq)]].to_numpy(float)
    hdg, side = sk.ski_heading(res.params, 2, "right")
    jumps = {}
    for rule in STROKE_CHANGE_RULES:
        new, q1, qd1 = stroke_change(res.params, hdg, side, model.push_force, q, qd, rule=rule,
                                     s_dot_end=model.sdot_of(qd))
        jumps[rule] = np.linalg.norm(qd1[new.cm] - qd[model.cm])
        if rule == "along_ski":
            best, base = qd1, new
    measured.exceeds("|ΔṘ³| of ski_speed_kept − |ΔṘ³| of along_ski", jumps["ski_speed_kept"] - jumps["along_ski"], 0.0, "m/s")
    measured.exceeds("|ΔṘ³| of speed_kept − |ΔṘ³| of along_ski", jumps["speed_kept"] - jumps["along_ski"], 0.0, "m/s")
    # and against every other admissible ṡ⁺: the jump is a parabola in ṡ⁺ with its minimum there
    _, _, b1 = stroke_change(res.params, hdg, side, model.push_force, q, qd, rule="ski_speed_kept", s_dot_end=1.0)
    _, _, b0 = stroke_change(res.params, hdg, side, model.push_force, q, qd, rule="ski_speed_kept", s_dot_end=0.0)
    direction = (b1 - b0)[base.cm]
    measured.check("∂Ṙ³⁺/∂ṡ⁺ − e′ (ṡ⁺ moves the CM's velocity only along the new ski)", direction - base.e, 1e-12, "–")
    others = [np.linalg.norm(best[base.cm] + d * direction - qd[model.cm]) for d in (-0.3, -0.01, 0.01, 0.3)]
    measured.exceeds("|ΔṘ³| at ṡ⁺ ± d − |ΔṘ³| of along_ski", np.array(others) - jumps["along_ski"], 0.0, "m/s")


def test_speed_kept_raises_without_solution():
    res = sk.simulate_run(strokes=1, **FAST)
    model = res.models[0]
    q = res.frame[[f"q{j}" for j in range(model.nq)]].iloc[-1].to_numpy(float)
    qd = np.zeros(model.nq)        # a CM at rest: slower than the new pose's velocity across the ski
    hdg, side = sk.ski_heading(res.params, 1, "right")
    with pytest.raises(ValueError, match="speed_kept"):
        stroke_change(res.params, hdg, side, model.push_force, q, qd, rule="speed_kept")


def test_calibration_reaches_the_thesis_speed(measured):
    """brentq on the steady state's mean speed returns a force scale whose steady speed is the
    thesis's 2.47 m/s (§5.6, fig. 41); the periodic stroke stores no kinetic energy."""
    cal = sk.calibrate_force_scale(**FAST)
    measured.check("steady mean speed − 2.47 m/s at the calibrated force", cal.steady.mean_speed - cases.STEADY_SPEED.value, 1e-6, "m/s")
    assert 0 < cal.force_scale < 1      # the synthetic push-off is stronger than the thesis's
    br = sk.power_breakdown(cal.steady)
    measured.check("KE stored over the periodic stroke", br.ke_stored.iloc[0], 1e-6, "J")
    measured.check("W_push − Σ terms, periodic stroke", br.balance.iloc[0], 1e-9, "J")


def test_no_steady_state_when_the_change_keeps_the_ski_speed():
    """Without air drag, a change that keeps ṡ loses no speed: every stroke adds about the same."""
    with pytest.raises(NoSteadyState):
        sk.steady_state(stroke_change="ski_speed_kept", **FAST)


def test_power_balance_baseline(measured):
    """P = F v + ½ ρ C_dA v³ and its inverse (van Ingen Schenau et al. 1990) round-trip."""
    p = sk.SkierParams()
    v = np.array([1.0, 2.47, 6.0])
    P = sk.resistance_power(v, p)
    assert np.allclose(P, p.friction * v + 0.5 * p.air_density * p.cda * v**3, rtol=1e-15)
    measured.allclose("power_balance_speed(resistance_power(v)) vs v", sk.power_balance_speed(P, p), v, rtol=1e-12, unit="m/s")
    assert sk.power_balance_speed(0.0, p) == 0.0
    assert abs(sk.power_balance_speed(100.0, p, cda=0.0) - 100.0 / p.friction) < 1e-9
    with pytest.raises(ValueError):
        sk.power_balance_speed(-1.0, p)


@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_one_stroke_start_serves_every_start_point(rotation, measured):
    """C1–C17 hold P only through R¹ − P: the admissible states at τ = 0 of a stroke starting at
    P are those of the stroke at the origin moved by P. The start computed once at the origin,
    put at a far P, satisfies C(q) = 0 and Cq q̇ = −Ct of the model built at P, has the ski
    speed asked for, and is the state Newton–Raphson finds from that model's own pose."""
    from skilib.engine.solver import consistent_initial_conditions
    from skilib.models.thesis.model import SkierModel
    from skilib.models.thesis.params import ski_heading

    p = sk.SkierParams()
    hdg, side = ski_heading(p, 1)
    push = lambda tau: 500.0  # noqa: E731 - the push does not enter the constraints
    start = SkierModel(p, hdg, side, np.zeros(3), push, rotation=rotation).stroke_start()
    P = np.array([1234.5, -87.25, 0.0])
    model = SkierModel(p, hdg, side, P, push, rotation=rotation)
    sysm = model.system(1)
    q, qd = start.q(P), start.qd(4.5)
    jet = sysm.constraint_jet(0.0, q)
    scale = np.abs(P).max()
    measured.check("max |C(q⁰)| of the start moved to P, relative to |P|", np.abs(jet.val).max() / scale, 1e-14,
                   where=rotation)
    measured.check("max |Cq q̇ + Ct| at the moved start", np.abs(jet.J @ qd + jet.t).max(), 1e-12, "m/s", where=rotation)
    measured.check("ski speed of q̇ − 4.5", abs(model.sdot_of(qd) - 4.5), 1e-14, "m/s", where=rotation)
    q_newton = consistent_initial_conditions(sysm, 0.0, model.pose(0.0, 0.0), independent=[0])[0]
    measured.check("moved start vs Newton–Raphson at P, relative to |P|", np.abs(q - q_newton).max() / scale, 1e-14,
                   where=rotation)
