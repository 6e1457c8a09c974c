"""The edged skater with the compiled kernels (``simulate_edge(compiled=True)``, the default)
against the numeric engine: the kernels assemble the friction on the snow's load as a column of
eq. 101, so a run and the periodic stroke are the same to the integration's tolerance.

Tolerances.  The two engines compute the same arithmetic in different orders, so their
right-hand sides differ by rounding (≈ 10⁻¹⁴ relative); DOP853's step-size control at
rtol = atol = 10⁻¹⁰ then chooses slightly different steps, and the states differ by a fraction
of the integration tolerance over a stroke (measured ≈ 5·10⁻¹¹ of the largest value of each
column).  10⁻⁹ relative bounds them with margin.
"""
import numpy as np
import pytest

from skilib.models.edge import EdgeSkaterParams, edge_steady_state, simulate_edge
from skilib.models.edge.skating import EdgeSkating, edge_run_options
from skilib.models.edge.steady import edge_stroke_map

#: the edged skater's compiled system against its numeric one: the margin rule of tests/conftest.py ("Margins")
pytestmark = pytest.mark.cross_path

#: the periodic stroke's touch-down at the defaults (``edge_steady_state().x0``, rounded): a
#: start that stays upright for the stroke
U0, LEAN_RATE0, CM_HEIGHT0 = 3.6785, -0.3436, 0.8341
TOL = 1e-9


@pytest.fixture(scope="module")
def runs():
    p = EdgeSkaterParams(cm_height=CM_HEIGHT0)
    return {c: simulate_edge(p, strokes=1, v0=U0, lean_rate=LEAN_RATE0, compiled=c) for c in (True, False)}


def test_a_compiled_stroke_is_the_numeric_engines(runs, measured):
    """One stroke from the periodic stroke's start, compiled and numeric: the CM's path, the ski's
    speed u, the leg force and the snow's load on the output grid, and the drivers' mean power,
    equal to 10⁻⁹ of each column's largest value (the integration's tolerance, not rounding:
    the two engines' step sizes differ by rounding)."""
    fast, slow = runs[True], runs[False]
    assert fast.info["compiled"] is True and slow.info["compiled"] is False
    assert np.array_equal(fast.frame["t"].to_numpy(), slow.frame["t"].to_numpy())
    for col in ("cm_x", "cm_y", "cm_z", "u", "leg_force", "snow_load", "friction_force"):
        a, b = fast.frame[col].to_numpy(float), slow.frame[col].to_numpy(float)
        measured.check("compiled vs numeric stroke: frame columns", np.abs(a - b).max() / np.abs(b).max(), TOL,
                       "× max|ref|", where=col)
    measured.allclose("compiled vs numeric stroke: mean_power", fast.strokes["mean_power"].iloc[0],
                      slow.strokes["mean_power"].iloc[0], rtol=TOL, unit="W")
    measured.allclose("compiled vs numeric stroke: work of the friction", fast.strokes["work_friction"].iloc[0],
                      slow.strokes["work_friction"].iloc[0], rtol=TOL, unit="J")


def test_the_compiled_periodic_stroke_is_a_fixed_point_of_the_numeric_map(measured):
    """The periodic stroke found with the compiled kernels, x0 = (u, φ̇, z_B, d), is a fixed point
    of the numeric engine's stroke map too: Φ_numeric(x0) = x0 to 10⁻⁹ (the search's 10⁻¹⁰ on
    the compiled map plus the two engines' integration differences)."""
    steady = edge_steady_state(multipliers=False, compiled=True)
    measured.check("compiled periodic stroke: max|Φ_compiled(x0) − x0|", np.abs(steady.residual).max(), 1e-10,
                   "mixed (m/s, rad/s, m)")
    o = edge_run_options(steady.params, strokes=1, v0=float(steady.x0[0]), first_ski="right", rotation="zxz",
                         stabilization="baumgarte", method="DOP853", rtol=1e-10, atol=1e-10, h=0.05, alpha=None,
                         beta=None, dt_out=0.01, n_out=None, max_evaluations=5_000_000, max_wall_time=600.0,
                         compiled=False)
    x1 = edge_stroke_map(EdgeSkating(o))(steady.x0)[0]
    measured.check("compiled periodic stroke: max|Φ_numeric(x0) − x0|", np.abs(x1 - steady.x0).max(), TOL,
                   "mixed (m/s, rad/s, m)")
    measured.allclose("compiled periodic stroke: u0 vs the run's start", steady.x0[0], U0, atol=1e-4, unit="m/s",
                      argued="U0 is the periodic u0 rounded to four decimals: |u0 − U0| ≤ 5e-5 by the rounding alone")
