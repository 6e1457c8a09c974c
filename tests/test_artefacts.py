"""The numbers of the book's "How to read these numbers" box (``skilib.models.thesis.artefacts``), each
checked against a computation that does not go through the function's own route: the
output frame instead of the stroke-change table, the leg laws (eqs. 187–188) instead of the
simulated CM, positions instead of velocities, the force components instead of the summary."""
import numpy as np
import pytest

from skilib.models.thesis import cases
from skilib.models.thesis.artefacts import artefact_runs, artefacts_markdown, model_artefacts
from skilib.models.thesis.summary import level_off_stroke


@pytest.fixture(scope="module")
def runs():
    phase, run = artefact_runs()
    return phase, run, model_artefacts(phase, run).set_index("key")


def _change_rows(run, k):
    """The frame's last row of stroke k − 1 and first row of stroke k."""
    f = run.frame
    return f[f.stroke == k - 1].iloc[-1], f[f.stroke == k].iloc[0]


def test_one_push_speed_is_the_cm_displacement_rate(runs, measured):
    """The speed a 2 s push from rest reaches (table 7, case 3) equals the rate of change of the
    CM position at τ = T (second-order backward difference of the frame's cm_x/y/z)."""
    phase, _, a = runs
    f = phase.frame
    h = float(f.tau.iloc[-1] - f.tau.iloc[-2])
    X = f[["cm_x", "cm_y", "cm_z"]].to_numpy()
    v = (3 * X[-1] - 4 * X[-2] + X[-3]) / (2 * h)
    measured.allclose("push speed vs |dR_CM/dt| from positions", a.loc["push_speed", "value"], np.linalg.norm(v),
                      rtol=1e-3, unit="m/s")
    assert phase.params.phase_time == cases.TABLE7[2].phase_time == 2.0


def test_ke_loss_is_the_kinetic_energy_jump_in_the_frame(runs, measured):
    """The share of kinetic energy lost at the change into the level-off stroke equals
    1 − KE(first row of the stroke)/KE(last row of the previous one), from the frame."""
    _, run, a = runs
    k = level_off_stroke(run)
    before, after = _change_rows(run, k)
    measured.allclose("KE loss [%] vs 1 − KE_after/KE_before from the frame", a.loc["ke_loss", "value"],
                      100 * (1 - after.kinetic_energy / before.kinetic_energy), rtol=1e-9, unit="%")
    ch = run.changes.set_index("stroke").loc[k]
    measured.allclose("KE loss [%] vs the changes table", a.loc["ke_loss", "value"],
                      100 * ch.ke_loss / ch.ke_before, rtol=1e-12, unit="%")


def test_cm_drop_follows_from_the_leg_laws(runs, measured):
    """The CM drop at a change equals ℓ(T) cos γ(T) − ℓ0 cos γ0 (eqs. 187–188: the ankle stays
    on the snow, the leg jumps back to its initial length and angle), and the frame's jump."""
    _, run, a = runs
    p, T = run.params, run.params.phase_time
    lT, gT = p.leg_extension0 + p.c_ext * T, np.radians(p.leg_angle0_deg + p.c_rot_deg * T)
    laws = lT * np.cos(gT) - p.leg_extension0 * np.cos(np.radians(p.leg_angle0_deg))
    measured.allclose("CM drop vs ℓ(T) cos γ(T) − ℓ0 cos γ0", a.loc["cm_drop", "value"], laws, atol=1e-8, unit="m")
    before, after = _change_rows(run, level_off_stroke(run))
    measured.allclose("CM drop vs z_CM jump in the frame", a.loc["cm_drop", "value"], before.cm_z - after.cm_z,
                      atol=1e-12, unit="m")


def test_joint_forces_stay_below_body_weight_because_the_push_carries_it(runs, measured):
    """max |F_knee| and max |F_ankle| over the long run, as a share of M g, recomputed from the
    force components; both below M g, while the push-off on the CM exceeds M g."""
    _, run, a = runs
    f, weight = run.frame, run.params.mass * run.params.g
    for joint in ("knee", "ankle"):
        F = np.sqrt(sum(f[f"{joint}_F{c}"].to_numpy() ** 2 for c in "xyz"))
        measured.allclose(f"max |F_{joint}| / (M g) [%] vs the components", a.loc[f"{joint}_force", "value"],
                          100 * F.max() / weight, rtol=1e-12, unit="%")
        measured.exceeds(f"M g − max |F_{joint}|", weight - F.max(), 0.0, "N")
    measured.exceeds("max push-off force − M g", f.push_force.max() - weight, 0.0, "N")


def test_box_table_shows_every_number(runs):
    _, _, a = runs
    text = artefacts_markdown(a.reset_index())
    assert text.count("\n") == len(a) + 2 and "…" not in text
    for v in a.value:
        assert f"{v:.3g}" in text
