"""The thesis skier's periodic stroke by quadrature in its one degree of freedom
(``skilib.models.thesis.reduced``) against the multibody engine's periodic stroke and against
the one-DOF ODE integrated stroke by stroke; the cases it refuses, and the sweep's path for them.

Tolerances.  The engine's periodic stroke (DOP853 at rtol = atol = 1e-10, the fixed point to
|Φ(u) − u| ≤ 1e-10 m/s) has its own error, measured as ~4e-12 relative on the Sobol study's rows
(``skilib.models.thesis.sobol_study.computation_error``); the quadrature's is that of Chebyshev
series resolved to 1e-14 of their largest coefficient.  Their difference is the engine's error:
1e-10, above it by a factor of more than ten.
"""
import numpy as np
import pandas as pd
import pytest

import skilib as sk
from skilib.models.thesis.model import SkierModel
from skilib.models.thesis.one_dof import OneDofStroke, one_dof_run
from skilib.models.thesis.params import ski_heading
from skilib.models.thesis.push import ScaledPush, thesis_push_force
from skilib.models.thesis.reduced import reduced_steady_means
from skilib.strokes.quadrature import NotReducible
from skilib.models.thesis.sobol_study import SOBOL_SOLVER
from skilib.models.thesis.steady import steady_means

#: the quadrature against the engine's periodic stroke: the margin rule of tests/conftest.py ("Margins")
pytestmark = pytest.mark.cross_path


def test_the_quadrature_is_the_engines_periodic_stroke(measured, sobol_sample):
    """On 12 rows spread over the Sobol design (skating angle 30–70°, phase 0.7–1.5 s, force ×0.5–1.5,
    friction 0–20 N, mass 60–90 kg) and at table 9: u0, the mean speed and the mean push power by
    quadrature equal the engine's periodic stroke to the engine's own error (module docstring)."""
    cases = [(sk.SkierParams(), 1.0, {})] + [(p, fs, SOBOL_SOLVER) for p, fs in sobol_sample(12, params=True)]
    worst = {"u0": 0.0, "mean_speed": 0.0, "mean_power": 0.0}
    for p, fs, kw in cases:
        fast, ref = reduced_steady_means(p, force_scale=fs, **kw), steady_means(p, force_scale=fs, **kw)
        assert fast.iterations == 0 and abs(fast.residual) <= 1e-14 * fast.u0
        for k in worst:
            worst[k] = max(worst[k], abs(getattr(fast, k) / getattr(ref, k) - 1.0))
    for k, err in worst.items():
        measured.check(f"periodic stroke by quadrature vs the engine's, {k} (relative)", err, 1e-10)


def test_the_fixed_point_closes_the_one_dof_ode(measured):
    """Two strokes of the one-DOF ODE (solve_ivp, rtol = atol = 1e-13) from the quadrature's u0:
    the second starts at u0 again (the stroke change along the ski closes the map) and both have
    the quadrature's mean speed; an independent integration of the same equation."""
    p = sk.SkierParams(skating_angle_deg=55.0, friction=12.0)
    fast = reduced_steady_means(p, force_scale=0.8)
    push = ScaledPush(thesis_push_force(p, p.phase_time)[0], 0.8)
    out, _ = one_dof_run(p, strokes=2, v0=fast.u0, push_force=push, rtol=1e-13, atol=1e-13)
    measured.check("one-DOF ODE from the quadrature's u0: the next stroke's start speed (relative)",
                   abs(out[1]["s_dot_start"] / fast.u0 - 1.0), 1e-12)
    measured.check("one-DOF ODE from the quadrature's u0: each stroke's mean speed (relative)",
                   max(abs(o["mean_speed"] / fast.mean_speed - 1.0) for o in out), 1e-12)


def test_the_series_are_converged(monkeypatch, measured):
    """The Chebyshev series are resolved: forcing the highest degree (512) changes u0 and the
    means by rounding only."""
    import skilib.models.thesis.reduced as reduced

    p = sk.SkierParams(skating_angle_deg=40.0, phase_time=1.3)
    a = reduced_steady_means(p, force_scale=1.2)
    monkeypatch.setattr(reduced, "_DEGREES", (512,))
    b = reduced_steady_means(p, force_scale=1.2)
    measured.check("quadrature at its chosen degree vs degree 512, u0 and the means (relative)",
                   max(abs(getattr(a, k) / getattr(b, k) - 1.0) for k in ("u0", "mean_speed", "mean_power")), 1e-13)


def test_the_many_point_kinematics_are_the_one_point_ones(measured):
    """``OneDofStroke.kinematics_at`` and ``driving_at`` (arrays) against ``_kinematics`` and
    ``driving`` (one phase time at a time) at 41 phase times, both skis."""
    p = sk.SkierParams(skating_angle_deg=48.0)
    push = thesis_push_force(p, p.phase_time)[0]
    worst = 0.0
    for k in (0, 1):
        st = OneDofStroke(SkierModel(p, *ski_heading(p, k), np.zeros(3), push))
        tau = np.linspace(0.0, p.phase_time, 41)
        kin, D = st.kinematics_at(tau), st.driving_at(tau)
        for j, t in enumerate(tau):
            (u, udd), cd, cdd = st._kinematics(float(t))
            for a, b in ((kin["u"][j], u), (kin["udd"][j], udd), (kin["cd"][j], cd), (kin["cdd"][j], cdd)):
                worst = max(worst, float(np.abs(a - b).max()))
            worst = max(worst, abs(D[j] - st.driving(float(t), 0.0)) / abs(st.mass * 9.81))
    measured.check("many-point vs one-point kinematics and driving force (relative to the weight)", worst, 1e-13)


def test_what_the_quadrature_does_not_follow_is_refused_by_name():
    """Air drag, another stroke-change rule, a ski that stops in its periodic stroke and a push-off
    that is not smooth: ``NotReducible`` (a ValueError) saying why."""
    with pytest.raises(NotReducible, match="air_drag"):
        reduced_steady_means(sk.SkierParams(air_drag=True))
    with pytest.raises(NotReducible, match="stroke_change"):
        reduced_steady_means(sk.SkierParams(), stroke_change="speed_kept")
    with pytest.raises(NotReducible, match="stops or slides back"):
        reduced_steady_means(sk.SkierParams(friction=60.0), force_scale=0.3)
    p = sk.SkierParams()
    with pytest.raises(NotReducible, match="not resolved"):
        reduced_steady_means(p, push_force=lambda tau: 300.0 * (np.asarray(tau) < 0.4 * p.phase_time))
    with pytest.raises(ValueError, match="v0"):
        reduced_steady_means(p, v0=3.0)


def test_a_reduced_sweep_takes_the_engines_path_where_the_quadrature_does_not_hold():
    """``sweep_skier(method="reduced")``: rows the quadrature covers say path "reduced" and give
    ``reduced_steady_means``'s numbers; a row with air drag says "engine" and gives the engine's
    (``steady_means``) bit for bit.  ``method`` is checked by name before any run."""
    rows = pd.DataFrame({"skating_angle_deg": [40.0, 40.0], "air_drag": [False, True]})
    out = sk.sweep_skier(rows, strokes="steady", outputs=("mean_speed", "u0"), method="reduced",
                         scheduler="serial", progress=False).frame
    assert list(out["path"]) == ["reduced", "engine"]
    fast = reduced_steady_means(sk.SkierParams(skating_angle_deg=40.0))
    ref = steady_means(sk.SkierParams(skating_angle_deg=40.0, air_drag=True))
    assert (out["mean_speed"].iloc[0], out["u0"].iloc[0]) == (fast.mean_speed, fast.u0)
    assert (out["mean_speed"].iloc[1], out["u0"].iloc[1]) == (ref.mean_speed, ref.u0)
    for kw in (dict(method="quadrature", strokes="steady", outputs=("u0",)), dict(method="reduced", strokes=3),
               dict(method="reduced", strokes="steady"), dict(method="reduced", strokes="steady", outputs=("nfev",))):
        with pytest.raises(ValueError, match="method"):
            sk.sweep_skier(rows, scheduler="serial", progress=False, **kw)
