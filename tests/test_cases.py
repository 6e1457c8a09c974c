"""The thesis's cases and numbers (skilib.models.thesis.cases), the leg laws chosen from the phase
time (skilib.models.thesis.laws, eqs. 187–188) and the per-run summaries (skilib.models.thesis.summary).

The leg laws are checked on the simulated geometry (|R³ − R¹| and the leg's inclination at
the end of a phase), the constraint groups against the simulation's own constraint norms.
"""
from __future__ import annotations

import dataclasses
import inspect
import math

import numpy as np
import pandas as pd
import pytest

from skilib.models.thesis import SkierParams
from skilib.models.thesis.cases import (FIG42, RUN_CASES, TABLE7, TABLE7_LEG_EXTENSION, TABLE7_LEG_ROTATION_DEG, TABLE9,
                                THESIS_VALUES, ThesisValue)
from skilib.models.thesis.laws import leg_laws_for, with_leg_laws
from skilib.models.thesis import simulate_phase, simulate_run
from skilib.models.thesis.summary import CONSTRAINT_GROUPS, constraint_groups, joint_force_magnitudes, level_off_stroke

_cache: dict = {}


def two_strokes():
    if "run" not in _cache:
        _cache["run"] = simulate_run(TABLE9.params(), **TABLE9.kwargs(strokes=2, dt_out=0.05))
    return _cache["run"]


# -- cases -------------------------------------------------------------------------------
def test_cases_are_frozen_and_their_kwargs_fit_the_simulations():
    case = TABLE7[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        case.phase_time = 3.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        TABLE9.strokes = 3
    phase_sig, run_sig = inspect.signature(simulate_phase), inspect.signature(simulate_run)
    for c in TABLE7:
        phase_sig.bind(SkierParams(), **c.kwargs(dt_out=0.1))
        SkierParams(**c.kwargs())  # inside the leg's reach (the constructor validates)
    for c in FIG42:
        run_sig.bind(c.params(), **c.kwargs())
        SkierParams(**{k: v for k, v in c.kwargs().items() if k not in ("strokes", "force_scale", "v0")})
    assert TABLE9.kwargs(strokes=3)["strokes"] == 3 and TABLE9.strokes == 10
    assert TABLE9.params().mass == TABLE9.mass
    assert RUN_CASES["table9"] is TABLE9 and FIG42[0] is TABLE9
    assert [c.name for c in TABLE7] == ["table7_T0.5", "table7_T1", "table7_T2"]


def test_table7_cases_share_one_end_pose_and_order_as_the_thesis_argues():
    """Table 7 (§5.1): the shorter phase goes with the larger angle; eqs. 187–188: C·T is the
    same in every case."""
    assert [c.number for c in TABLE7] == [1, 2, 3]
    assert np.all(np.diff([c.phase_time for c in TABLE7]) > 0)
    assert np.all(np.diff([c.skating_angle_deg for c in TABLE7]) < 0)
    for c in TABLE7:
        assert c.leg_extension == pytest.approx(TABLE7_LEG_EXTENSION, abs=1e-15)
        assert c.leg_rotation_deg == pytest.approx(TABLE7_LEG_ROTATION_DEG, abs=1e-12)
    # fig. 42 changes only the angle and the force of table 9's run
    for c in FIG42:
        assert {f.name for f in dataclasses.fields(c) if getattr(c, f.name) != getattr(TABLE9, f.name)} <= \
            {"name", "skating_angle_deg", "force_scale", "source"}


def test_thesis_values_name_unit_and_source():
    assert len(THESIS_VALUES) >= 10
    for key, v in THESIS_VALUES.items():
        assert isinstance(v, ThesisValue), key
        assert v.quantity and v.unit and v.stated, key
        assert any(w in v.source for w in ("table", "fig.", "§", "ch.")), (key, v.source)
    fr = [THESIS_VALUES[k].value for k in ("friction_min", "friction_mean", "friction_max")]
    assert fr == sorted(fr)                       # table 8: min < mean < max
    assert float(THESIS_VALUES["steady_speed"]) == THESIS_VALUES["steady_speed"].value
    assert -0.5 < THESIS_VALUES["half_force_50_change"].value < 0   # "not by 50 %"
    assert 0 < THESIS_VALUES["pearson_r"].value < 1
    # the defaults of the skier are the thesis's (table 8 mean friction; table 9 is the default phase)
    p = SkierParams()
    assert p.friction == THESIS_VALUES["friction_mean"].value
    assert (p.phase_time, p.skating_angle_deg, p.c_ext, p.c_rot_deg, p.mass) == \
        (TABLE9.phase_time, TABLE9.skating_angle_deg, TABLE9.c_ext, TABLE9.c_rot_deg, TABLE9.mass)


# -- leg laws ----------------------------------------------------------------------------
def test_leg_laws_reproduce_table7_and_keep_table9s_pose():
    for c in TABLE7:
        c_ext, c_rot = leg_laws_for(c.phase_time, extension=TABLE7_LEG_EXTENSION, rotation_deg=TABLE7_LEG_ROTATION_DEG)
        assert (c_ext, c_rot) == (c.c_ext, c.c_rot_deg)
        # eqs. 187–188 at τ = T from the skier's own start pose: ℓ(T) = 0.9 m, γ(T) = 45°
        p = SkierParams(phase_time=c.phase_time, c_ext=c_ext, c_rot_deg=c_rot)
        assert p.leg_extension0 + c_ext * c.phase_time == pytest.approx(0.9, abs=1e-15)
        assert p.leg_angle0_deg + c_rot * c.phase_time == pytest.approx(45.0, abs=1e-12)
    assert leg_laws_for(TABLE9.phase_time) == (TABLE9.c_ext, TABLE9.c_rot_deg)
    df = pd.DataFrame({"phase_time": [0.7, 1.0, 1.5], "mass": [75.0, 60.0, 90.0]})
    out = with_leg_laws(df)
    assert list(df.columns) == ["phase_time", "mass"]  # the input is not modified
    assert np.allclose(out.c_ext * out.phase_time, TABLE9.leg_extension, rtol=0, atol=1e-15)
    assert np.allclose(out.c_rot_deg * out.phase_time, TABLE9.leg_rotation_deg, rtol=0, atol=1e-13)
    for T, ce, cr in zip(out.phase_time, out.c_ext, out.c_rot_deg):
        assert (ce, cr) == leg_laws_for(T)
    with pytest.raises(ValueError, match="phase_time"):
        leg_laws_for(0.0)
    with pytest.raises(ValueError, match="phase_time"):
        with_leg_laws(pd.DataFrame({"phase_time": [1.0, -0.5]}))


def test_leg_laws_reach_the_end_pose_in_the_simulated_geometry(measured):
    """A phase of a length the thesis did not simulate (T = 0.8 s) with the leg laws of
    table 7's end pose: at τ = T the simulated |R³ − R¹| is 0.9 m (eq. 187) and the leg is
    45° from vertical (eq. 188)."""
    T = 0.8
    c_ext, c_rot = leg_laws_for(T, extension=TABLE7_LEG_EXTENSION, rotation_deg=TABLE7_LEG_ROTATION_DEG)
    res = simulate_phase(SkierParams(), phase_time=T, skating_angle_deg=50.0, c_ext=c_ext, c_rot_deg=c_rot,
                         dt_out=0.1)
    end = res.frame.iloc[-1]
    assert end.tau == pytest.approx(T)
    r = np.array([end[f"q{j}"] for j in (12, 13, 14)]) - np.array([end[f"q{j}"] for j in (0, 1, 2)])
    measured.check("|R³ − R¹| at τ = T vs 0.9 m", abs(np.linalg.norm(r) - 0.9), 1e-9, "m")
    measured.check("leg angle at τ = T vs 45°", abs(math.degrees(math.acos(r[2] / np.linalg.norm(r))) - 45.0), 1e-7,
                   "°")


# -- summaries ---------------------------------------------------------------------------
def test_constraint_groups_partition_the_rows_and_give_the_runs_norms(measured):
    """The four groups (C1–C5, ankle, knee, drivers) hold every constraint row of the model
    once; the largest of their maxima at each output time is the run's own max|Cᵢ| and
    max|Cq q̇ + Ct|ᵢ (two strokes of table 9's run)."""
    res = two_strokes()
    for model in res.models:
        comp = [lab.split("[")[0] for lab in model.system(1).constraint_labels]
        counts = {g: sum(c in names for c in comp) for g, names in CONSTRAINT_GROUPS.items()}
        assert counts == {"ski–ground C1–C5": 5, "ankle C6–C8": 3, "knee C9–C13": 5, "drivers C14–C17": 4}
        assert sum(counts.values()) == len(comp)
    cg = constraint_groups(res)
    f = res.frame
    assert len(cg) == len(f) and np.array_equal(cg.tau, f.tau) and np.array_equal(cg.stroke, f.stroke)
    pos = cg[list(CONSTRAINT_GROUPS)].max(axis=1).to_numpy()
    vel = cg[[g + " (velocity)" for g in CONSTRAINT_GROUPS]].max(axis=1).to_numpy()
    measured.allclose("max over groups vs constraint_norm", pos, f.constraint_norm.to_numpy(), rtol=1e-6, atol=1e-15,
                      unit="m")
    measured.allclose("max over groups vs velocity_constraint_norm", vel, f.velocity_constraint_norm.to_numpy(),
                      rtol=1e-6, atol=1e-15, unit="m/s")


def test_level_off_stroke_and_joint_forces():
    st = pd.DataFrame({"stroke": [1, 2, 3, 4, 5], "mean_speed": [1.0, 1.5, 1.7, 1.72, 1.73]})
    assert level_off_stroke(st) == 4            # 1.72/1.7 − 1 ≈ 1.2 % < 2 %
    assert level_off_stroke(st, rel_change=0.01) == 5   # 0.6 % < 1 %
    assert level_off_stroke(st.iloc[:3]) is None
    res = two_strokes()
    assert level_off_stroke(res) == level_off_stroke(res.strokes)
    j = joint_force_magnitudes(res.frame)
    f = res.frame
    assert np.allclose(j.ankle, np.linalg.norm(f[["ankle_Fx", "ankle_Fy", "ankle_Fz"]].to_numpy(), axis=1))
    assert np.allclose(j.knee, np.linalg.norm(f[["knee_Fx", "knee_Fy", "knee_Fz"]].to_numpy(), axis=1))
