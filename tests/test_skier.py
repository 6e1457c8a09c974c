"""The skier model and its simulations (thesis ch. 4–5; book: The skier model).

Every simulated case of the compendium (table 7's three phases, table 9's long run and the
fig. 42 comparison) is run once per session and checked for constraint rank, constraint
drift and the work–energy balance.  The 1-DOF equation of s is derived here again from
the skier-model chapter's kinematics alone and compared with the 18-coordinate model.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from skilib.models.thesis import SkierModel, SkierParams, cases, push_plane_direction, ski_heading
from skilib.engine.codegen import compile_system
from skilib.engine.reactions import JointReaction
from skilib.models.thesis import simulate_phase, simulate_run, stand_in_push_force
from skilib.engine.solver import DynamicsResult

COULOMB = ("Coulomb's inequality, not a tolerance: the stick mode ends where |friction| reaches μ (the event "
           'located to 1e-9 s); the last output point before breakaway sits at 0.997 μ because of the 0.01 s '
           'grid')

TABLE7 = {c.name: c for c in cases.TABLE7}  # table7_T0.5, table7_T1, table7_T2
RUNS = cases.RUN_CASES  # fig. 42: table9 (50°, full force), fig42_40_full, fig42_40_half, fig42_50_half
ALL_CASES = list(TABLE7) + list(RUNS)
_cache: dict = {}


def run_case(name):
    if name not in _cache:
        if name in TABLE7:
            _cache[name] = simulate_phase(SkierParams(), **TABLE7[name].kwargs())
        else:
            c = RUNS[name]
            _cache[name] = simulate_run(c.params(), **c.kwargs())
    return _cache[name]


def q_cols(fr):
    return fr[[f"q{j}" for j in range(18)]].to_numpy()


def qd_cols(fr):
    return fr[[f"qd{j}" for j in range(18)]].to_numpy()


# -- every case: rank, drift, energy ----------------------------------------------------
@pytest.mark.parametrize("case", ALL_CASES)
def test_jacobian_full_row_rank(case, measured):
    """Cq has full row rank along every run (table 7's three phases, table 9's run and
    fig. 42's three others): σ_min/σ_max, every 10th output point."""
    res = run_case(case)
    fr = res.frame
    for k, model in enumerate(res.models):
        rows = fr[fr["stroke"] == k + 1]
        sysm = model.system(1)
        for i in range(0, len(rows), 10):
            q, tau = q_cols(rows)[i], rows["tau"].iloc[i]
            J = sysm.constraint_jacobian(q, tau)
            assert J.shape == (17, 18)
            sv = np.linalg.svd(J, compute_uv=False)
            measured.exceeds("σ_min/σ_max of Cq", sv[-1] / sv[0], 1e-3)
            sysm.check_rank(q, tau)  # raises if a row depends on earlier ones


@pytest.mark.parametrize("case", ALL_CASES)
def test_constraints_hold(case, measured):
    """max|C| and max|Cq q̇ + Ct| along every run (Baumgarte, h = 0.05 s); the leg bodies' θ
    stays 90°, far from gimbal lock."""
    fr = run_case(case).frame
    measured.check("max|C|", fr["constraint_norm"].max(), 1e-6, "m")
    measured.check("max|Cq q̇ + Ct|", fr["velocity_constraint_norm"].max(), 1e-6, "m/s")
    # gimbal-lock choice: the legs' long axis is body x̄ and z̄ is horizontal, so θ = 90°
    measured.allclose("θ of shank and upper leg vs 90°", fr[["q10", "q16"]].to_numpy(), np.pi / 2, atol=1e-8,
                      unit="rad")


@pytest.mark.parametrize("case", ALL_CASES)
def test_work_energy_balance(case, measured):
    """ΔKE = W_push + W_friction + W_gravity + W_drag + W_drivers (+ W_joints ≈ 0) per stroke;
    the same with the drivers' power read as λᵀCt; the joints do no work; the kinetic energy
    at every output point equals the cumulative works."""
    res = run_case(case)
    st = res.strokes
    dke = (st["ke_end"] - st["ke_start"]).to_numpy()
    work = st[["work_push", "work_friction", "work_gravity", "work_drag", "work_drivers", "work_joints"]].sum(axis=1)
    measured.check("|ΔKE − ΣW| per stroke", np.abs(dke - work) / np.abs(dke), 1e-6, "× |ΔKE|")
    # the drivers' power read as λᵀCt (valid when Cq q̇ = −Ct) gives the same work
    work_ct = work - st["work_drivers"] + st["work_drivers_ct"]
    measured.check("|ΔKE − ΣW| with λᵀCt per stroke", np.abs(dke - work_ct) / np.abs(dke), 1e-6, "× |ΔKE|")
    # scleronomic joints do no work; gravity does work only through the prescribed heights
    measured.check("|W_joints| per stroke", np.abs(st["work_joints"]) / np.abs(dke), 1e-6, "× |ΔKE|")
    # kinetic energy at the output points agrees with the cumulative works
    fr = res.frame
    for k in st["stroke"]:
        rows = fr[fr["stroke"] == k]
        w = rows[["work_push", "work_friction", "work_gravity", "work_drag", "work_drivers", "work_joints"]].sum(axis=1)
        ke = rows["kinetic_energy"].to_numpy()
        measured.check("|KE(t) − KE(0) − ΣW(t)| at output points", np.abs(ke - ke[0] - w) / np.abs(ke).max(), 1e-6,
                       "× max KE")


def test_prescribed_leg_motion(measured):
    """|R³ − R¹| = ℓ(τ) (eq. 187) and the leg's inclination from vertical is γ(τ) (eq. 188);
    the leg stays in its push plane, the shank origin on the leg and the ski on its line."""
    case = TABLE7["table7_T1"]
    res = run_case(case.name)
    fr = res.frame
    q = q_cols(fr)
    r = q[:, 12:15] - q[:, 0:3]
    measured.allclose("|R³ − R¹| vs ℓ(τ) (eq. 187)", np.linalg.norm(r, axis=1), 0.5 + case.c_ext * fr["tau"], atol=1e-9,
                      unit="m")
    gam = np.degrees(np.arccos(r[:, 2] / np.linalg.norm(r, axis=1)))
    measured.allclose("leg angle vs γ(τ) (eq. 188)", gam, case.c_rot_deg * fr["tau"], atol=1e-7, unit="°")
    # the leg leans towards the push-plane direction d = X; the shank origin is at l1 on the leg
    assert np.all(r[1:, 0] > 0)
    measured.allclose("leg off its push plane", r[:, 1], 0.0, atol=1e-9, unit="m")
    u = r / np.linalg.norm(r, axis=1)[:, None]
    measured.allclose("shank origin vs R¹ + l1 u", q[:, 6:9], q[:, 0:3] + 0.2 * u, atol=1e-9, unit="m")
    # the ski stays on its line through the origin with heading −25°
    h = math.radians(-25.0)
    measured.allclose("ski off its line", q[:, 1], math.tan(h) * q[:, 0], atol=1e-9, unit="m")
    measured.allclose("ski height", q[:, 2], 0.0, atol=1e-12, unit="m")
    measured.allclose("ski heading vs −25°", q[:, 3], h, atol=1e-12, unit="rad")


# -- the single-coordinate equation of s, derived independently -------------------------
def reduced_s(params, heading, F, v0, tau_out):
    """s(τ) from the one-coordinate Lagrange equation written from the skier-model chapter alone.

    R¹ = P + s e, R² = R¹ + l1 u(τ), R³ = R¹ + ℓ(τ) u(τ), bodies 2 and 3 turn with
    ω = γ̇ n about the fixed axis n, the ski does not turn.  T = ½ m1 ṡ² + ½ m2|ṡe + l1u̇|²
    + ½ m3|ṡe + (ℓu)˙|² + ½(I2 + I3)γ̇², so d/dt ∂T/∂ṡ = Q_s gives
    (m1 + m2 + m3) s̈ + m2 l1 e·ü + m3 e·(ℓu)¨ = F u·e − μ sgn ṡ + D·e   (gravity ⟂ e).
    """
    p = params
    m2 = p.shank_mass_fraction * p.mass
    m3 = p.mass - m2
    Mt = p.ski_mass + m2 + m3
    l1 = p.lower_leg / 2
    e = np.array([math.cos(heading), math.sin(heading), 0.0])
    d = np.array([1.0, 0.0, 0.0])
    z = np.array([0.0, 0.0, 1.0])
    gd = math.radians(p.c_rot_deg)

    def rhs(tau, y):
        s, sd = y
        g = math.radians(p.leg_angle0_deg) + gd * tau
        u = math.cos(g) * z + math.sin(g) * d
        ud = gd * (-math.sin(g) * z + math.cos(g) * d)
        udd = -gd * gd * u
        ell, elld = p.leg_extension0 + p.c_ext * tau, p.c_ext
        w = elld * u + ell * ud
        wd = 2 * elld * ud + ell * udd
        Q = F(tau) * (u @ e) - p.friction * np.sign(sd)
        if p.air_drag:
            v3 = sd * e + w
            Q += -0.5 * p.air_density * p.cda * np.linalg.norm(v3) * (v3 @ e)
        return [sd, (Q - m2 * l1 * (e @ udd) - m3 * (e @ wd)) / Mt]

    sol = solve_ivp(rhs, (0, tau_out[-1]), [0.0, v0], method="DOP853", rtol=1e-13, atol=1e-14, t_eval=tau_out)
    return sol.y[0], sol.y[1]


@pytest.mark.parametrize("friction, v0, drag", [(0.0, 0.0, False), (cases.FRICTION_MEAN.value, 3.0, True)])
def test_reduced_equation_matches_multibody(friction, v0, drag, measured):
    """The skier's s(τ) and ṡ(τ) against the one-coordinate Lagrange equation written from
    the skier-model chapter alone (`reduced_s`), without and with friction and air drag."""
    case = TABLE7["table7_T1"]  # T = 1 s, 50°, C_ext = 0.4 m/s, C_rot = 45 °/s
    T = case.phase_time
    params = SkierParams(friction=friction, air_drag=drag, **case.kwargs())

    def F(tau):
        return 500.0 * math.sin(math.pi * tau / T)

    res = simulate_phase(params, push_force=F, v0=v0)
    fr = res.frame
    if friction:
        assert fr["s_dot"].min() > 0.1  # keeps sliding forwards: friction is −μ throughout
    s_ref, sd_ref = reduced_s(params, math.radians(-25.0), F, v0, fr["tau"].to_numpy())
    measured.check("s vs reduced equation", np.abs(fr["s"].to_numpy() - s_ref).max(), 1e-8, "m")
    measured.check("ṡ vs reduced equation", np.abs(fr["s_dot"].to_numpy() - sd_ref).max(), 1e-8, "m/s")


def test_friction_never_drives_the_ski_backwards(measured):
    """No push, a vertical leg: the ski coasts to rest under friction and stays there.

    With γ ≡ 0 and F ≡ 0 nothing acts along the ski but friction, so s̈ = −μ/(m1 + M) until
    ṡ = 0 at τ* = v0 (m1 + M)/μ, then s stays at v0²(m1 + M)/(2μ).
    """
    params = SkierParams(c_rot_deg=0.0, c_ext=0.2, phase_time=2.0)
    v0 = 0.1
    res = simulate_phase(params, push_force=lambda tau: 0.0, v0=v0, dt_out=0.02)
    fr = res.frame
    Mt = params.mass + params.ski_mass
    a = params.friction / Mt
    tstar = v0 / a
    tau = fr["tau"].to_numpy()
    s_exact = np.where(tau < tstar, v0 * tau - 0.5 * a * tau**2, 0.5 * v0 * v0 / a)
    measured.check("s vs v₀τ − ½aτ² (then at rest)", np.abs(fr["s"] - s_exact).max(), 1e-9, "m", strict=True)
    measured.exceeds("min ṡ", fr["s_dot"].min(), -1e-9, "m/s")
    ev = res.events
    assert list(ev["mode_before"]) == [1] and list(ev["mode_after"]) == [0]
    measured.check("stop time vs τ* = v₀/a", abs(ev["tau"].iloc[0] - tstar), 1e-9, "s", strict=True)
    stuck = fr[fr["mode"] == 0]
    assert len(stuck) > 10
    measured.check("|friction| at rest (nothing to resist)", np.abs(stuck["friction_force"]), 1e-9, "N")


def test_friction_law_along_a_phase(measured):
    """Sliding rows carry friction −μ sgn ṡ and slide the way they say; the first phase of
    table 7 starts by sliding backwards and ends sliding forwards (static friction is checked
    in the next test: this phase never sticks)."""
    res = run_case("table7_T1")
    mu = res.params.friction
    fr = res.frame
    slide = fr[fr["mode"] != 0]
    measured.allclose("sliding friction vs −μ sgn ṡ", slide["friction_force"], -mu * slide["mode"], atol=1e-12,
                      unit="N")
    measured.check("ṡ against the sliding direction", -(slide["s_dot"] * slide["mode"]), 1e-9, "m/s")
    # the first phase starts at rest; the leg swinging forward pushes the ski back harder
    # than friction holds it (kinematics: −m3 e·(ℓu)¨ = −2 m3 ℓ̇ γ̇ cos h at τ = 0)
    assert fr["mode"].iloc[0] == -1 and fr["s_dot"].iloc[1] < 0
    assert res.events["mode_after"].iloc[-1] == 1


def test_static_friction_holds_the_ski_until_the_push_beats_it(measured):
    """A leg tilted by γ0 = 10° that does not turn (C_rot = 0) pushes with F(τ) = kτ.

    With u constant and ℓ̇ constant nothing inertial acts along the ski (ü = 0,
    (ℓu)¨ = 0), so the ski stays at rest held by the static friction −F(τ) u·e while
    F u·e < μ, breaks away at τ* = μ/(k u·e), and then (m1 + M) s̈ = k u·e (τ − τ*):
    s = k u·e (τ − τ*)³ / (6 (m1 + M)), with u·e = sin γ0 cos h.
    """
    k = 60.0
    params = SkierParams(leg_angle0_deg=10.0, c_rot_deg=0.0, c_ext=0.2, phase_time=2.0, skating_angle_deg=50.0)
    res = simulate_phase(params, push_force=lambda tau: k * tau, dt_out=0.01)
    fr = res.frame
    mu, Mt = params.friction, params.mass + params.ski_mass
    ue = math.sin(math.radians(10.0)) * math.cos(math.radians(-25.0))
    tstar = mu / (k * ue)
    assert list(res.events["mode_before"]) == [0] and list(res.events["mode_after"]) == [1]
    measured.check("breakaway time vs τ* = μ/(k u·e)", abs(res.events["tau"].iloc[0] - tstar), 1e-9, "s")
    stuck, tau = fr[fr["mode"] == 0], fr["tau"].to_numpy()
    assert len(stuck) > 40
    measured.allclose("static friction vs −F(τ) u·e", stuck["friction_force"], -k * stuck["tau"] * ue, atol=1e-9,
                      unit="N")
    measured.check("|friction| / μ at rest", np.abs(stuck["friction_force"]) / mu, 1 + 1e-9, argued=COULOMB)
    s_exact = np.where(tau < tstar, 0.0, k * ue * np.clip(tau - tstar, 0, None) ** 3 / (6 * Mt))
    measured.check("s vs k u·e (τ − τ*)³ / 6(m1 + M)", np.abs(fr["s"] - s_exact).max(), 1e-9, "m")


# -- symmetry, stroke change ------------------------------------------------------------
@pytest.mark.parametrize("push_direction", ["travel", "across"])
def test_left_stroke_mirrors_right_stroke(push_direction, measured):
    """A left stroke is the mirror image of the right one (push plane along the travel and
    across it): 15 columns equal, 5 change sign, the ski headings are ∓ half the V-angle."""
    params = SkierParams(push_direction=push_direction, **TABLE7["table7_T0.5"].kwargs())
    F = stand_in_push_force(params, params.phase_time)
    r = simulate_phase(params, push_force=F, v0=0.3, first_ski="right").frame
    left = simulate_phase(params, push_force=F, v0=0.3, first_ski="left").frame
    for c in ("s", "s_dot", "ski_x", "cm_x", "cm_z", "cm_vx", "cm_vz", "cm_speed", "push_power", "friction_force",
              "ankle_Fx", "ankle_Fz", "knee_Fx", "knee_Fz", "mode"):
        measured.allclose("right vs left, symmetric columns (m, m/s, N, W)", r[c], left[c], atol=1e-9, where=c)
    for c in ("ski_y", "cm_y", "cm_vy", "ankle_Fy", "knee_Fy"):
        measured.allclose("right vs −left, mirrored columns (m, m/s, N)", r[c], -left[c], atol=1e-9, where=c)
    measured.allclose("heading right vs −left", r["q3"], -left["q3"], atol=1e-12, unit="rad")  # ∓ angle/2


def test_stroke_change_rule(measured):
    """At each of table 9's nine stroke changes the CM keeps its horizontal position and its
    velocity along the new ski, the new state satisfies C = 0 and Cq q̇ + Ct = 0, and the
    kinetic-energy loss is booked."""
    res = run_case("table9")
    fr, ch = res.frame, res.changes
    assert len(ch) == 9 and list(res.strokes["side"][:3]) == ["right", "left", "right"]
    for k in range(2, 11):
        end = fr[fr["stroke"] == k - 1].iloc[-1]
        start = fr[fr["stroke"] == k].iloc[0]
        assert end["t"] == start["t"] == (k - 1) * 1.0
        model = res.models[k - 1]
        # CM continuous horizontally; its height is set by the new pose (ℓ0 cos γ0 = 0.5 m)
        measured.check("CM horizontal jump at the change",
                       max(abs(end["cm_x"] - start["cm_x"]), abs(end["cm_y"] - start["cm_y"])), 1e-12, "m",
                       strict=True)
        measured.check("CM height vs ℓ0 cos γ0 = 0.5 m", abs(start["cm_z"] - 0.5), 1e-12, "m", strict=True)
        # CM keeps its velocity along the new ski
        v_end = end[["cm_vx", "cm_vy", "cm_vz"]].to_numpy(float)
        v_start = start[["cm_vx", "cm_vy", "cm_vz"]].to_numpy(float)
        measured.check("jump of the CM velocity along the new ski", abs(model.e @ (v_start - v_end)), 1e-10, "m/s",
                       strict=True)
        # the new ski heads the other way (V-angle 50°: ±25°) and starts at s = 0
        assert abs(math.degrees(model.heading)) == pytest.approx(25.0)
        measured.check("s at the start of the stroke", abs(start["s"]), 1e-12, "m", strict=True)
        assert np.sign(model.heading) == -np.sign(res.models[k - 2].heading)
        # the new state satisfies the velocity constraints
        sysm = model.system(1)
        jet = sysm.constraint_jet(0.0, q_cols(fr[fr["stroke"] == k])[0], qd_cols(fr[fr["stroke"] == k])[0])
        measured.check("max|C| of the new state", np.abs(jet.val).max(), 1e-12, "m", strict=True)
        measured.check("max|Cq q̇ + Ct| of the new state", np.abs(jet.vel).max(), 1e-10, "m/s", strict=True)
        row = ch[ch["stroke"] == k].iloc[0]
        measured.check("KE loss booked vs KE before − after",
                       abs(row["ke_loss"] - (end["kinetic_energy"] - start["kinetic_energy"])), 1e-9, "J")
        assert row["ke_loss"] > 0  # a plastic plant only removes energy here
    assert res.strokes["ke_loss_at_start"].iloc[0] == 0.0
    assert np.allclose(res.strokes["ke_loss_at_start"].iloc[1:], ch["ke_loss"])


def test_summary_columns(measured):
    """The frame's push power is F·Ṙ³ with F along the leg; the stroke means are time
    averages (Simpson's rule agrees) and the distances CM differences."""
    res = run_case("table9")
    need = ["t", "stroke", "s", "ski_x", "ski_y", "ski_z", "cm_x", "cm_y", "cm_z", "cm_vx", "cm_vy", "cm_vz",
            "cm_speed", "push_force", "push_power", "friction_force", "constraint_norm"]
    need += [f"q{j}" for j in range(18)] + [f"lam{j}" for j in range(17)]
    assert set(need) <= set(res.frame.columns)
    assert {"stroke", "mean_speed", "mean_power", "distance_x", "ke_loss_at_start"} <= set(res.strokes.columns)
    fr = res.frame
    assert np.allclose(fr["cm_speed"], np.linalg.norm(fr[["cm_vx", "cm_vy", "cm_vz"]].to_numpy(), axis=1))
    # push_power = F·Ṙ³ with F along (R³ − R¹)/|R³ − R¹|
    q, qd = q_cols(fr), qd_cols(fr)
    r = q[:, 12:15] - q[:, 0:3]
    pp = fr["push_force"] * np.einsum("ij,ij->i", r / np.linalg.norm(r, axis=1)[:, None], qd[:, 12:15])
    measured.allclose("push power vs F·Ṙ³", fr["push_power"], pp, atol=1e-9, unit="W")
    # stroke means are time averages over a uniform grid (Simpson agrees with the exact integral)
    from scipy.integrate import simpson
    for k in (1, 5, 10):
        rows = fr[fr["stroke"] == k]
        st = res.strokes[res.strokes["stroke"] == k].iloc[0]
        sp_, pw_ = simpson(rows["cm_speed"], x=rows["tau"]), simpson(rows["push_power"], x=rows["tau"])
        measured.check("mean speed vs Simpson", abs(sp_ - st["mean_speed"]) / abs(st["mean_speed"]), 1e-3, "rel.")
        measured.check("mean power vs Simpson", abs(pw_ - st["mean_power"]) / abs(st["mean_power"]), 1e-3, "rel.")
        measured.check("distance vs CM difference",
                       abs(rows["cm_x"].iloc[-1] - rows["cm_x"].iloc[0] - st["distance_x"]), 1e-12, "m")
    assert np.all(np.diff(fr["t"]) >= 0)


# -- pieces ------------------------------------------------------------------------------
def test_eom_matches_engine_and_reactions_match_engine(measured):
    """The compiled kernel's Evaluation of the skier's eq. 101 (q̈, λ) and the ankle and knee
    reactions computed from it equal the numeric engine's, at one state of the skier."""
    params = SkierParams()
    h, side = ski_heading(params, 0)
    model = SkierModel(params, h, side, np.zeros(3), stand_in_push_force(params, 1.0))
    sysm = model.system(1)
    q = model.pose(0.4, 0.2)
    jet0 = sysm.constraint_jet(0.4, q)
    qd = np.zeros(18)
    qd[:3] = 1.3 * model.e
    qd = np.linalg.lstsq(np.vstack([jet0.J, np.eye(18)[:1]]), np.concatenate([-jet0.t, [qd[0]]]), rcond=None)[0]
    ev = compile_system(sysm).evaluate(0.4, q, qd, 20.0, 28.0).copy()
    qdd, lam = ev.qdd, ev.lam
    qdd_e, lam_e = sysm.accelerations(0.4, q, qd, 20.0, 28.0)
    measured.allclose("q̈ vs engine", qdd, qdd_e, atol=1e-12)
    measured.allclose("λ vs engine", lam, lam_e, atol=1e-9)
    dr = DynamicsResult(t=np.array([0.4]), q=q[None], qd=qd[None], qdd=qdd_e[None], lam=lam_e[None],
                        constraint_norm=np.zeros(1), velocity_constraint_norm=np.zeros(1), system=sysm)
    for name, body in (("ankle", model.shank), ("knee", model.upper)):
        ref = dr.reactions(name)
        ref = ref[ref["body"] == body.name].iloc[0]
        F, N = JointReaction(sysm, name, body)(q, ev.Cq, lam)
        measured.allclose("joint force vs engine", F, ref[["Fx", "Fy", "Fz"]].to_numpy(float), atol=1e-9, unit="N")
        measured.allclose("joint moment vs engine", N, ref[["Mx", "My", "Mz"]].to_numpy(float), atol=1e-9,
                          unit="N m")


def test_headings_and_push_planes():
    p = SkierParams(skating_angle_deg=50.0)
    assert ski_heading(p, 0) == (pytest.approx(math.radians(-25)), "right")
    assert ski_heading(p, 1) == (pytest.approx(math.radians(25)), "left")
    assert ski_heading(p, 0, "left")[1] == "left"
    q = SkierParams(skating_angle_deg=50.0, angle_convention="from_x")
    assert ski_heading(q, 0)[0] == pytest.approx(math.radians(-50))
    h = math.radians(-25)
    assert np.allclose(push_plane_direction(p, h, "right"), [1, 0, 0])
    a = push_plane_direction(dataclasses.replace(p, push_direction="across"), h, "right")
    assert a[1] > 0 and abs(a @ [math.cos(h), math.sin(h), 0]) < 1e-15
    s = push_plane_direction(dataclasses.replace(p, push_direction="ski"), h, "right")
    assert np.allclose(s, [math.cos(h), math.sin(h), 0])


def test_default_force_is_the_fitted_synthetic_curve():
    res = run_case("table7_T1")
    assert "SYNTHETIC" in res.info["force_source"]
    from skilib.data.push import default_push_force
    F = default_push_force(1.0)
    fr = res.frame
    assert np.allclose(fr["push_force"], F(fr["tau"].to_numpy()))


def test_half_force_scales_the_push():
    a, b = run_case("table9").frame, run_case("fig42_50_half").frame
    assert np.allclose(b["push_force"], 0.5 * a["push_force"])


def test_runs_are_deterministic():
    params = SkierParams(**TABLE7["table7_T0.5"].kwargs())
    F = stand_in_push_force(params, params.phase_time)
    a = simulate_phase(params, push_force=F, dt_out=0.05).frame
    b = simulate_phase(params, push_force=F, dt_out=0.05).frame
    assert a.equals(b)


# -- validation --------------------------------------------------------------------------
@pytest.mark.parametrize("field, value", [
    ("mass", -75.0), ("mass", 0.0), ("ski_mass", -1.0), ("lower_leg", 0.0), ("upper_leg", -0.5),
    ("ski_length", 0.0), ("ski_width", -0.01), ("ski_height", 0.0), ("phase_time", 0.0), ("phase_time", -1.0),
    ("skating_angle_deg", 0.0), ("skating_angle_deg", 180.0), ("skating_angle_deg", -30.0),
    ("friction", -1.0), ("shank_mass_fraction", 1.2), ("ankle_offset", 0.5), ("leg_extension0", 1.0),
    ("leg_extension0", 0.05), ("c_ext", 0.5), ("c_ext", -0.45), ("c_rot_deg", 95.0), ("leg_angle0_deg", 90.0),
    ("cda", -0.1), ("air_density", 0.0), ("g", -9.81), ("mass", float("nan")),
    ("angle_convention", "degrees"), ("push_direction", "up"), ("gravity", "yes"),
])
def test_bad_parameters_name_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        SkierParams(**{field: value})


def test_geometric_limits_are_inclusive_and_reasoned():
    # ℓ may reach the straight leg L2 + L3 = 0.9 m exactly (table 7: 0.5 → 0.9 m) ...
    for c in TABLE7.values():
        SkierParams(phase_time=c.phase_time, c_ext=c.c_ext)
    # ... but not beyond it, nor below |L2 − L3|
    with pytest.raises(ValueError, match="c_ext"):
        SkierParams(phase_time=2.0, c_ext=0.2000001)
    with pytest.raises(ValueError, match="skating_angle_deg"):
        SkierParams(angle_convention="from_x", skating_angle_deg=95.0)


def test_simulate_argument_errors():
    with pytest.raises(ValueError, match="phase_time"):
        simulate_phase(SkierParams(), phase_time=-1.0, skating_angle_deg=50, c_ext=0.2, c_rot_deg=22.5)
    with pytest.raises(ValueError, match="c_ext"):
        simulate_phase(SkierParams(), phase_time=1.0, skating_angle_deg=50, c_ext=0.8, c_rot_deg=22.5)
    with pytest.raises(ValueError, match="skating_angle_deg"):
        simulate_run(SkierParams(), strokes=2, phase_time=1.0, skating_angle_deg=190, c_ext=0.2, c_rot_deg=22.5)
    with pytest.raises(ValueError, match="strokes"):
        simulate_run(SkierParams(), strokes=0, phase_time=1.0, skating_angle_deg=50, c_ext=0.2, c_rot_deg=22.5)
    with pytest.raises(ValueError, match="push_force"):
        simulate_phase(SkierParams(), push_force=5.0)
    with pytest.raises(ValueError, match="push_force"):
        simulate_phase(SkierParams(), push_force=lambda tau: float("nan"))
    with pytest.raises(ValueError, match="first_ski"):
        simulate_phase(SkierParams(), first_ski="middle")
    with pytest.raises(ValueError, match="force_scale"):
        simulate_phase(SkierParams(), force_scale=-1.0)


def test_compiled_kernel_and_numeric_engine_give_the_same_run(measured):
    """The generated, compiled eq. 101 (skilib.engine.codegen) and the numeric engine are two
    evaluations of the same equations: a two-stroke run (a stick phase, a slide, a stroke
    change) agrees to round-off amplified by the integration."""
    kw = dict(strokes=2, phase_time=0.5, skating_angle_deg=50.0, c_ext=0.4, c_rot_deg=45.0, dt_out=0.05)
    a = simulate_run(SkierParams(), compiled=True, **kw)
    b = simulate_run(SkierParams(), compiled=False, **kw)
    assert a.info["compiled"] and not b.info["compiled"]
    cols = ["s", "s_dot", "cm_x", "cm_y", "cm_z", "cm_vx", "cm_vy", "push_power", "ankle_Fz", "knee_Mz",
            "work_push", "work_friction"]
    for c in cols:
        scale = max(1.0, np.abs(b.frame[c]).max())
        measured.check("12 frame columns, compiled vs numeric", np.abs(a.frame[c] - b.frame[c]).max() / scale, 1e-8,
                       "× scale", where=c)
    assert a.events[["tau", "mode_before", "mode_after"]].round(9).equals(b.events[["tau", "mode_before", "mode_after"]].round(9))
    measured.allclose("stroke mean speeds, compiled vs numeric", a.strokes.mean_speed, b.strokes.mean_speed, rtol=1e-9)
