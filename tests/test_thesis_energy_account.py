"""The energy account of the calibrated periodic stroke and the measured ranking of its losses
(``skilib.models.thesis.energy.energy_account``, ``loss_ranking``; book: Results).  Every term is
checked against something it was not computed from: the work–energy theorem (closure), a quadrature
of the frame's multipliers, closed forms of eqs. 187–188 and of Coulomb friction, and the
model's one degree of freedom (gravity does no work along the horizontal ski line)."""
import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.integrate import simpson

import skilib as sk
from skilib.models.thesis.calibrate import Calibration
from skilib.models.thesis.energy import ACCOUNT_TERMS, RANKING_SWITCHES, energy_account, loss_ranking

FAST = dict(dt_out=0.05, rtol=1e-10, atol=1e-10)
#: a fine output grid for the quadratures of the frame (Simpson's error ~ dt⁴ of a smooth integrand)
FINE = dict(dt_out=1e-3, rtol=1e-10, atol=1e-10)


@pytest.fixture(scope="module")
def cal():
    return sk.calibrate_force_scale(**FAST)


@pytest.fixture(scope="module")
def account(cal):
    return energy_account(cal.steady).set_index("term")


@pytest.fixture(scope="module")
def ranking(cal):
    return loss_ranking(cal).set_index("switch")


@pytest.fixture(scope="module")
def fine(cal):
    """The periodic stroke again, on a fine output grid (one stroke from ṡ = u0)."""
    return sk.simulate_run(cal.params, strokes=1, v0=cal.steady.u0, force_scale=cal.force_scale, **FINE)


def test_account_closes(account, cal, measured):
    """W_push = Σ terms (work–energy theorem over a stroke and its change): each term is measured
    on its own, so the residual is the integration error; ≤ 1e-6 of the push work."""
    assert list(account.index) == ["work_push", *(k for k, _ in ACCOUNT_TERMS)]
    push = account.J["work_push"]
    assert push == pytest.approx(cal.steady.strokes.work_push.iloc[0], rel=0, abs=0)
    measured.check("|W_push − Σ terms| / W_push, calibrated periodic stroke", account.attrs["closure"], 1e-6, "rel.")
    measured.check("|residual| / W_push (the closure row)", abs(account.J["residual"]) / push, 1e-6, "rel.")
    # the rows add up to the push work, in J, in W (÷ T) and in percent
    others = account.drop(index="work_push")
    measured.check("Σ rows − W_push [J]", abs(others.J.sum() - push), 1e-9 * push, "J")
    measured.check("Σ rows [%] − 100", abs(others.percent.sum() - 100.0), 1e-9, "%")
    T = cal.params.phase_time if cal.params else sk.SkierParams().phase_time
    measured.allclose("W column = J / T", account.W, account.J / T, rtol=1e-15, unit="rel.")
    # the steady state stores nothing from one stroke start to the next
    measured.check("KE stored, periodic stroke", abs(account.J["ke_stored"]), 1e-6, "J")
    measured.check("PE change, periodic stroke (the same start pose)", abs(account.J["pe_change"]), 1e-9, "J")
    measured.check("scleronomic rows' work (exact constraints do none)", abs(account.J["joints"]), 1e-8, "J")


def test_driver_split_adds_up(cal, measured):
    """The two drivers' works, integrated as states of their own, add up to the drivers' work."""
    s = cal.steady.strokes.iloc[0]
    measured.check("W_C14 + W_C15–17 − W_drivers", abs(s.work_leg_extension + s.work_leg_rotation - s.work_drivers),
                   1e-10 * abs(s.work_push), "J")


def test_extension_driver_work_closed_form(fine, measured):
    """C14 is |R³ − R¹| − ℓ(τ) = 0 (eq. 144, 187), so its power λ·C_t = −λ ℓ̇ = F_leg C_ext and
    W_C14 = C_ext ∫ F_leg dτ: Simpson's rule over the frame's leg force against the integrated state."""
    f, p = fine.frame, fine.params
    quad = p.c_ext * simpson(f.leg_drive_force.to_numpy(), x=f.tau.to_numpy())
    work = fine.strokes.work_leg_extension.iloc[0]
    assert abs(work) > 1.0                      # a real term, not a zero compared with a zero
    measured.allclose("W_C14: integrated state vs C_ext ∫ F_leg dτ (Simpson, dτ = 1 ms)", work, quad, rtol=1e-7,
                      unit="rel.")


def test_rotation_driver_work_quadrature(fine, measured):
    """W_C15–17 = ∫ Σ_r λ_r C_t,r dτ over the orientation rows: the multipliers of the frame and
    C_t of the constraint jet at each output point, by Simpson's rule, against the integrated state."""
    f = fine.frame
    assert (f["mode"] == 1).all()               # the ski slides forward: no stick row in the frame
    model = fine.models[0]
    system = model.system(1)
    rows = system.rows("leg_orientation")
    n = model.nq
    q = f[[f"q{j}" for j in range(n)]].to_numpy(float)
    lam = f[[f"lam{j}" for j in range(rows.start, rows.stop)]].to_numpy(float)
    power = np.array([lam[i] @ system.constraint_jet(tau, q[i]).t[rows] for i, tau in enumerate(f.tau)])
    quad = simpson(power, x=f.tau.to_numpy())
    work = fine.strokes.work_leg_rotation.iloc[0]
    assert abs(work) > 1.0
    measured.allclose("W_C15–17: integrated state vs ∫ λ·C_t dτ (Simpson, dτ = 1 ms)", work, quad, rtol=1e-7,
                      unit="rel.")


def test_reset_energy_closed_form(account, cal, measured):
    """The pose reset drops the shank origin from l1 cos γ(T) to l1 cos γ0 and the upper body (the
    CM, body 3) from ℓ(T) cos γ(T) to ℓ0 cos γ0 (eqs. 187–188; the ski stays on z = 0):
    PE⁻ − PE⁺ = m3 g (ℓ(T) cos γ(T) − ℓ0 cos γ0) + m2 g l1 (cos γ(T) − cos γ0)."""
    p = cal.params or sk.SkierParams()
    T = p.phase_time
    (lT, _, _), (gT, _, _) = p.leg_length(T), p.leg_angle(T)
    l0, g0 = p.leg_extension0, math.radians(p.leg_angle0_deg)
    closed = p.body_mass * p.g * (lT * math.cos(gT) - l0 * math.cos(g0)) + p.shank_mass * p.g * p.l1 * (
        math.cos(gT) - math.cos(g0))
    measured.allclose("PE dropped with the pose reset vs its closed form", account.J["pe_loss_reset"], closed,
                      rtol=1e-8, unit="rel.")


def test_friction_row_is_coulomb_work(account, cal, measured):
    """Constant Coulomb friction μ along a ski that slides forward all stroke takes μ s(T)."""
    s = cal.steady.strokes.iloc[0]
    assert s.min_ski_speed > 0
    p = cal.params or sk.SkierParams()
    measured.allclose("friction row vs μ s(T)", account.J["friction"], p.friction * s.s_end, rtol=1e-8, unit="rel.")


def test_friction_off_raises_speed_and_its_row_is_zero(cal, ranking, measured):
    """μ = 0 at the same push-off scale: faster along the course and in mean CM speed, and the
    friction row of its energy account is exactly zero (the account still closes)."""
    row = ranking.loc["friction"]
    assert row.outcome == "steady state"
    measured.exceeds("speed along the course gained with μ = 0", row.d_progress_speed, 0.0, "rel.")
    measured.exceeds("mean CM speed gained with μ = 0", row.d_mean_speed, 0.0, "rel.")
    p = cal.params or sk.SkierParams()
    st = sk.steady_state(replace(p, friction=0.0), force_scale=cal.force_scale, u0_guess=cal.steady.u0,
                         **cal.run_kwargs)
    acc = energy_account(st).set_index("term")
    assert acc.J["friction"] == 0.0
    measured.check("closure with μ = 0", acc.attrs["closure"], 1e-6, "rel.")
    measured.allclose("ranking's μ = 0 speed vs its steady state", row.progress_speed,
                      st.strokes.progress_speed.iloc[0], rtol=1e-12, unit="rel.")


def test_ranking_baseline_is_the_plain_steady_state(cal, ranking, measured):
    """The baseline row is the steady state at the calibrated scale, found again from rest."""
    plain = sk.steady_state(cal.params, force_scale=cal.force_scale, **cal.run_kwargs)
    b = ranking.loc["baseline"]
    measured.allclose("baseline speed along the course vs steady_state", b.progress_speed,
                      plain.strokes.progress_speed.iloc[0], rtol=1e-8, unit="rel.")
    measured.allclose("baseline mean CM speed vs steady_state", b.mean_speed, plain.mean_speed, rtol=1e-8, unit="rel.")
    measured.allclose("baseline mean push power vs steady_state", b.mean_power, plain.mean_power, rtol=1e-8,
                      unit="rel.")
    assert b.d_progress_speed == b.d_mean_speed == b.d_mean_power == 0.0


def test_gravity_does_no_work_on_the_ski_line(ranking, measured):
    """With the leg's motion prescribed, the one degree of freedom is s along the horizontal ski
    line; gravity's generalized force on it, m g ẑ·∂R/∂s, is zero.  So g = 0 leaves the speed and
    the push power as they are: the energy dropped with the pose reset is paid by the drivers."""
    g = ranking.loc["gravity"]
    assert g.outcome == "steady state"
    measured.check("speed along the course, g = 0 vs g", abs(g.d_progress_speed), 1e-8, "rel.")
    measured.check("mean push power, g = 0 vs g", abs(g.d_mean_power), 1e-6, "W")


def test_ranking_rows_say_what_they_measure(ranking):
    """One row per switch after the baseline; a switch this model cannot make measures nothing."""
    assert list(ranking.index) == ["baseline", *RANKING_SWITCHES]
    for key in ("pose_reset", "air_drag"):      # the thesis's model has no drag (§5.3); the pose always resets
        assert np.isnan(ranking.loc[key, "progress_speed"]) and ranking.loc[key, "outcome"].startswith("not ")
    # a vertical leg (C_rot = 0) pushes straight up: nothing drives the ski along the course
    assert ranking.loc["leg_rotation", "progress_speed"] < ranking.loc["baseline", "progress_speed"]
    # rank 1 is the measured row that gains the most speed along the course
    measured_rows = ranking[ranking["rank"].notna()]
    assert measured_rows["rank"].idxmin() == measured_rows.d_progress_speed.idxmax()


def test_a_mechanism_the_baseline_lacks_is_not_measured(cal):
    """Friction switched off in a skier without friction is no measurement: the row says so."""
    p = cal.params or sk.SkierParams()
    frictionless = replace(p, friction=0.0)
    st = sk.steady_state(frictionless, force_scale=cal.force_scale, u0_guess=cal.steady.u0, **cal.run_kwargs)
    cal0 = Calibration(cal.force_scale, st.mean_speed, st, cal.evaluations, frictionless, dict(cal.run_kwargs))
    row = loss_ranking(cal0, switches=("friction",)).set_index("switch").loc["friction"]
    assert row.outcome.startswith("not measured") and np.isnan(row.progress_speed)


def test_bad_input_names_the_parameter(cal):
    with pytest.raises(ValueError, match="steady"):
        energy_account(cal)
    with pytest.raises(ValueError, match="steady"):
        energy_account(cal.steady.result)
    with pytest.raises(ValueError, match="cal"):
        loss_ranking(cal.steady)
    with pytest.raises(ValueError, match="switches"):
        loss_ranking(cal, switches="friction")
    with pytest.raises(ValueError, match="switches"):
        loss_ranking(cal, switches=("wind",))
