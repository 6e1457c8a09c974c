"""The optimum's constraints and the ridge around it (skilib.studies.optimum, skilib.studies.ridge):
the snow load's closed form against the model's own check, the 0-D balance speed against the
cubic's closed root, the ridge angle against its definition, and the reduced Hessian, the active
bounds and the multiplier check on analytic problems whose answers are known in closed form."""
import math
from dataclasses import replace

import numpy as np
import pytest

from skilib.models.free.model import FreeSkaterModel
from skilib.models.free.params import FreeSkaterParams
from skilib.models.free.run import check_snow_load
from skilib.studies.optimum import FREE_BOUNDS, TechniqueModel, snow_load_margin


@pytest.mark.parametrize("dip, T", [(0.15, 0.4), (0.05, 0.4), (0.15, 0.8), (0.04, 0.3), (0.0, 0.4), (0.1, 0.55)])
def test_snow_load_margin_is_the_model_s_least_load(measured, dip, T):
    """1 + m_s/M − 2Δz (π/T)²/g is the least of N(τ)/(M g) over the stroke (N from the model's
    normal_load on a fine grid), and the model refuses the technique (ValueError naming
    snow_load) exactly where it is negative."""
    p = replace(FreeSkaterParams(), cm_dip=dip, stroke_time=T)
    m = FreeSkaterModel(p, "right", [0.0, 0.0, 0.0])
    grid = np.linspace(0.0, T, 2001)
    least = min(m.normal_load(t) for t in grid) / (p.body_mass * p.g)
    measured.check(f"least snow load, Δz {dip} m, T {T} s", snow_load_margin(p) - least, 1e-12, "body weights")
    if snow_load_margin(p) < 0:
        with pytest.raises(ValueError, match="snow_load"):
            check_snow_load(m, grid)
    else:
        check_snow_load(m, grid)


def test_snow_load_margin_example_and_bad_input():
    """The reviewer's example: cm_dip 0.15 m at T = 0.4 s gives N ≈ −0.87 body weights; the
    optimizer sees the margin as an inequality row of the free skater only when cm_dip or
    stroke_time is optimised."""
    p = replace(FreeSkaterParams(), cm_dip=0.15, stroke_time=0.4)
    want = 1 + 1.5 / 75 - 2 * 0.15 * (math.pi / 0.4) ** 2 / 9.81
    assert abs(snow_load_margin(p) - want) < 1e-14 and -0.87 < want < -0.86
    tm = TechniqueModel("free", tuple(FREE_BOUNDS))
    x = [0.15 if n == "cm_dip" else 0.4 if n == "stroke_time" else FREE_BOUNDS[n][0] for n in FREE_BOUNDS]
    assert tm.inequalities(x) == (pytest.approx(want, abs=1e-14),)
    assert TechniqueModel("free", ("skating_angle_deg",)).inequalities([20.0]) == ()
    with pytest.raises(ValueError, match="params"):
        snow_load_margin(object())
