"""The inverse mode (skilib.models.thesis.inverse; Bruzzo et al. 2016): a forward simulation's motion,
prescribed, gives back its push force and joint loads through the one-coordinate equation
along the ski and eq. 101."""
import numpy as np
import pytest

import skilib as sk
from skilib.models.thesis.inverse import Motion, inverse_dynamics, motion_from_c3d, motion_from_result
from skilib.models.thesis.markers import stroke_rows


@pytest.fixture(scope="module")
def fine_run():
    """Two strokes at 1 kHz output, integrated to 1e-12 so the data are exact to ~1e-11 m."""
    p = sk.SkierParams()
    return sk.simulate_run(p, strokes=2, dt_out=0.001, rtol=1e-12, atol=1e-12)


def _rel(inv, frame, col, ok):
    return np.abs(inv[col].to_numpy() - frame[col].to_numpy())[ok].max() / np.abs(frame[col]).max()


def test_inverse_recovers_push_force_and_joint_loads(fine_run):
    f = fine_run.frame.iloc[stroke_rows(fine_run.frame)]
    inv = inverse_dynamics(motion_from_result(fine_run), fine_run.params)
    ok = np.isfinite(inv["push_force"].to_numpy())
    assert ok.mean() > 0.8  # undetermined only where the leg is nearly vertical or the ski stuck
    assert _rel(inv, f, "push_force", ok) < 1e-6
    for col in ("leg_drive_force", "ankle_Fx", "ankle_Fz", "knee_Fx", "knee_Fz"):
        assert _rel(inv, f, col, ok) < 1e-6, col
    # the model's s̈ from eq. 101 with the recovered F is the measured one
    assert np.nanmax(np.abs(inv["s_ddot_model"] - inv["s_ddot"])) < 1e-6
    # where F is undetermined, the lever u·e is small: the push hardly acts along the ski
    assert np.all(np.abs(inv["lever"][~ok & (np.abs(inv["s_dot"]) > 1e-3)]) < 0.05)


def test_inverse_through_c3d_file(fine_run, tmp_path):
    """Through the file (float32 markers) the error is the file's rounding amplified by two
    derivatives; smoothing brings it to the per-cent level."""
    pytest.importorskip("ezc3d")
    from skilib.models.thesis.c3d import read_run

    back = read_run(fine_run.to_c3d(tmp_path / "fine.c3d"))
    f = fine_run.frame.iloc[stroke_rows(fine_run.frame)]
    inv = inverse_dynamics(motion_from_c3d(back), back.skier_params(), smoothing=1e-9, joint_loads=False)
    ok = np.isfinite(inv["push_force"].to_numpy())
    rms = np.sqrt(np.mean((inv["push_force"].to_numpy() - f["push_force"].to_numpy())[ok] ** 2))
    assert rms / f["push_force"].abs().max() < 1e-2


def test_inverse_of_a_known_motion():
    """Independent check: a ski sliding at constant acceleration a with the leg held still
    (u = const) needs (M_total a + μ)/(u·e) along the leg, by Newton's law along the ski."""
    p = sk.SkierParams(friction=5.0)
    t = np.linspace(0.0, 1.0, 201)
    a, v0 = 0.7, 1.0
    e = np.array([1.0, 0.0, 0.0])
    s = v0 * t + 0.5 * a * t ** 2
    u = np.array([np.sin(0.3), 0.0, np.cos(0.3)])
    ski = s[:, None] * e
    motion = Motion(t, ski, ski + 0.8 * u, np.tile(e, (len(t), 1)))
    inv = inverse_dynamics(motion, p, joint_loads=False)
    expect = (p.total_mass * a + p.friction) / u[0]
    np.testing.assert_allclose(inv["push_force"], expect, rtol=1e-8)
