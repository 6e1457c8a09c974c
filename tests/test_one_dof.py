"""The thesis's skier as one ODE in s (``skilib.models.thesis.one_dof``: the constraints' virtual
translation along the ski, eq. 101 projected on it) against the multibody engine's run of 36
states and 17 multipliers: an independent derivation of the same motion."""
import numpy as np
import skilib as sk
from skilib.models.thesis.cases import TABLE9
from skilib.models.thesis.one_dof import OneDofStroke, one_dof_run
import pytest

#: the multibody skier against its independent one-DOF derivation: the margin rule of tests/conftest.py ("Margins")
pytestmark = pytest.mark.cross_path


def _compare(res, strokes, v0, measured, where):
    p = res.params
    out, nfev = one_dof_run(p, strokes=strokes, v0=v0, rtol=res.info["rtol"], atol=res.info["atol"],
                            max_step=p.phase_time / 50)
    st = res.strokes
    scale = float(st["mean_speed"].abs().max())
    for col in ("s_dot_start", "s_dot_end", "mean_speed"):
        err = max(abs(o[col] - r) for o, r in zip(out, st[col])) / scale
        measured.check(f"one-DOF ODE vs multibody run, {col} (relative to the largest mean speed)", err, 1e-9,
                       where=where)
    ev = [(t, a, b) for o in out for t, a, b in o["events"]]
    assert [(a, b) for _, a, b in ev] == list(zip(res.events.mode_before, res.events.mode_after)), where
    if ev:  # the friction-mode changes (the ski stops, sticks, slides on) at the same phase times
        measured.check("one-DOF vs multibody friction-mode events", np.abs(np.array([t for t, _, _ in ev])
                       - res.events.tau.to_numpy()).max(), 1e-9, "s", where=where)
    return nfev


def test_table9_long_run_is_the_one_dof_ode(measured):
    """Table 9's ten strokes from rest (a backward slide, a stick and the slide on in the first
    stroke; nine stroke changes): every stroke's start and end ski speed and mean CM speed equal
    the one-DOF ODE's (measured: 2e-12 relative), and so do the friction-mode events."""
    kw = TABLE9.kwargs()
    res = sk.simulate_run(**kw)
    _compare(res, kw["strokes"], kw["v0"], measured, "table 9")


def test_slope_and_air_drag_enter_as_derived(measured):
    """Uphill at 4° with air drag at the CM: the weight's component along the ski and the drag
    of the CM's velocity ṡ e + (ℓu)˙ are the one-DOF ODE's terms too."""
    p = sk.SkierParams(slope_deg=4.0, air_drag=True)
    res = sk.simulate_run(p, strokes=3, v0=3.0, rtol=1e-10, atol=1e-10)
    _compare(res, 3, 3.0, measured, "slope 4°, drag")


def test_a_stuck_ski_has_no_acceleration_and_friction_opposes_motion(measured):
    """Stuck: s̈ = 0; sliding forwards and backwards at the same speed differ by 2μ/m only."""
    from skilib.models.thesis.model import SkierModel

    p = sk.SkierParams()
    st = OneDofStroke(SkierModel(p, -0.4, "right", np.zeros(3), lambda tau: 0.0))
    assert st.sdd(0.3, 0.0, 0) == 0.0
    measured.check("s̈(+1) − s̈(−1) + 2μ/m", abs(st.sdd(0.3, 2.0, 1) - st.sdd(0.3, 2.0, -1) + 2.0 * p.friction / st.mass),
                   1e-14, "m/s²")


def test_leaving_the_stuck_state_does_not_hang_on_a_rounding(monkeypatch, measured):
    """At the event that ends a stick (|driving| rises through μ), the ski slides the way the
    driving force pushes, as the multibody stroke decides by λ_stick. Asking d − μ > 0 again there
    let a rounding of −2e-15 (seen under OpenBLAS's Prescott kernels) keep it stuck, and the
    event, already at zero, fired again at the same τ without end. Here ``decide_mode`` says
    "stick" wherever it is asked: the stroke still leaves the stuck state at the same event."""
    kw = TABLE9.kwargs()
    p = sk.simulate_run(**{**kw, "strokes": 1}).params
    ref, _ = one_dof_run(p, strokes=1, v0=kw["v0"], rtol=1e-10, atol=1e-10)
    stick_ends = [(t, a, b) for t, a, b in ref[0]["events"] if a == 0]
    assert stick_ends, "table 9's first stroke sticks and slides on"
    real = OneDofStroke.decide_mode
    monkeypatch.setattr(OneDofStroke, "decide_mode", lambda self, tau: real(self, tau) if tau == 0.0 else 0)
    got, _ = one_dof_run(p, strokes=1, v0=kw["v0"], rtol=1e-10, atol=1e-10)
    left = [(t, a, b) for t, a, b in got[0]["events"] if a == 0]
    assert [(a, b) for _, a, b in left][:1] == [(a, b) for _, a, b in stick_ends][:1]
    measured.check("stick end with decide_mode forced to stick vs the plain run", abs(left[0][0] - stick_ends[0][0]),
                   1e-12, "s")
