"""The periodic stroke of the thesis's skier (``skilib.steady_state``; thesis §5.6, fig. 41).

The stroke map Φ takes the ski speed at the start of a stroke to the next stroke's start
speed (one stroke of eq. 101, then the stroke-change rule).  Its fixed point is the steady
state the long run of table 9 approaches: a stroke started there is repeated, mirrored on the
other ski, and the long run's start speeds close in on it.
"""
import numpy as np
import pytest

import skilib as sk
from skilib.models.thesis.steady import stroke_map

CONTRACTION = ('the statement is that the gap shrinks every stroke (ratio < 1); the measured ratio ≈ 0.64 is the '
               "stroke map's contraction at the fixed point, not an error")

SOLVER = dict(dt_out=0.02)


@pytest.fixture(scope="module")
def steady():
    return sk.steady_state(**SOLVER)


def test_fixed_point_of_the_stroke_map(steady, measured):
    """|Φ(u0) − u0| ≤ 1e-10 m/s, evaluated again after the root finder stopped."""
    phi, _ = stroke_map(steady.u0, **SOLVER)
    measured.check("|Φ(u0) − u0| (stroke map, fresh evaluation)", abs(phi - steady.u0), 1e-10, "m/s")
    measured.check("|residual reported by steady_state|", abs(steady.residual), 1e-10, "m/s")
    assert steady.iterations <= 10 and steady.u0 > 0


def test_two_strokes_from_u0_repeat_and_mirror(steady, measured):
    """Two strokes simulated from ṡ = u0: the second starts at u0 again, has the same mean speed
    and power, and is the first one mirrored about the travel direction X (Y → −Y)."""
    run = sk.simulate_run(strokes=2, v0=steady.u0, **SOLVER)
    st = run.strokes
    measured.check("start speed of stroke 2 − u0", abs(st.s_dot_start.iloc[1] - steady.u0), 1e-10, "m/s")
    measured.allclose("mean speed of stroke 2 vs steady mean_speed", st.mean_speed.iloc[1], steady.mean_speed,
                      rtol=1e-9)
    measured.allclose("mean power of stroke 2 vs steady mean_power", st.mean_power.iloc[1], steady.mean_power,
                      rtol=1e-9)
    a, b = (run.frame[run.frame.stroke == k].reset_index(drop=True) for k in (1, 2))
    assert list(a.side.unique()) == ["right"] and list(b.side.unique()) == ["left"]
    measured.allclose("stroke 2 Ẋ³ vs stroke 1 Ẋ³", b.cm_vx, a.cm_vx, rtol=1e-8, atol=1e-8, unit="m/s")
    measured.allclose("stroke 2 Ẏ³ vs −(stroke 1 Ẏ³) (mirror)", b.cm_vy, -a.cm_vy, rtol=1e-8, atol=1e-8, unit="m/s")
    measured.allclose("stroke 2 Y³ travel vs −(stroke 1) (mirror)", b.cm_y - b.cm_y.iloc[0], -(a.cm_y - a.cm_y.iloc[0]),
                      rtol=1e-8, atol=1e-8, unit="m")
    measured.allclose("stroke 2 Z³ vs stroke 1 Z³", b.cm_z, a.cm_z, rtol=1e-8, atol=1e-8, unit="m")


def test_the_long_run_closes_in_on_it(steady, measured):
    """From rest (table 9), the gap u0 − ṡ(start of stroke k) shrinks every stroke."""
    run = sk.simulate_run(strokes=8, **SOLVER)
    gap = steady.u0 - run.strokes.s_dot_start.to_numpy()
    measured.exceeds("min gap u0 − ṡ_start over 8 strokes (approach from below)", gap.min(), 0.0, "m/s")
    measured.check("max ratio of successive gaps", np.max(gap[1:] / gap[:-1]), 0.99, "–", argued=CONTRACTION)
    assert steady.reached_at(run, rel=0.2) is not None and steady.reached_at(run, rel=1e-6) is None


def test_bad_arguments():
    with pytest.raises(ValueError, match="tol"):
        sk.steady_state(tol=0.0)
    with pytest.raises(ValueError, match="strokes"):
        sk.steady_state(strokes=3)
    with pytest.raises(ValueError, match="u0_guess"):
        sk.steady_state(u0_guess=float("nan"))


def test_the_skier_sweep_reports_the_periodic_stroke(steady, measured):
    """``sweep(parameters, strokes="steady")``: each row is that parameter set's steady state."""
    import pandas as pd

    grid = pd.DataFrame({"skating_angle_deg": [50.0, 40.0]})
    sw = sk.sweep_skier(grid, strokes="steady", solver=SOLVER, scheduler="serial", progress=False)
    assert list(sw.frame.status) == ["ok", "ok"], sw.failed
    row = sw.frame.iloc[0]
    measured.allclose("sweep row u0 vs steady_state u0", row.u0, steady.u0, rtol=1e-12)
    measured.allclose("sweep row mean speed vs steady_state", row.mean_speed, steady.mean_speed, rtol=1e-12)
    other = sk.steady_state(skating_angle_deg=40.0, **SOLVER)
    measured.allclose("sweep row (40°) mean speed vs steady_state", sw.frame.mean_speed.iloc[1], other.mean_speed,
                      rtol=1e-12)
    measured.check("|stroke map residual| / u0 of every row", sw.frame.speed_change_last.abs().max(), 1e-9, "rel.")
