"""A run's sliding segments by quadrature in the thesis skier's one degree of freedom
(``simulate_run(reduced=True)``, ``skilib.strokes.quadrature``) against the same run stepped by
DOP853 (the reference), and the quadrature's own parts against closed forms and numpy.

Tolerances.  The stepped run integrates eq. 101 with Baumgarte's terms at rtol = atol = 1e-10
per step; over table 9's ten strokes (about 750 steps) its global error is at most of order
1e-8 of a column's size if every step's error added up, and measures ~2e-10.  The quadrature's
own error is its series' tails, below 1e-12 of the largest integrand (``RATE_TAIL``).  So the two
runs agree to the stepped run's error: 1e-8 of each column's largest value (at least 1 in its
unit: a column that is rounding, the joints' work or a knee moment, is compared with the forces
and works it is made of).
"""
import math

import numpy as np
import pytest
from numpy.polynomial import chebyshev as C

import skilib as sk
import skilib.strokes.quadrature as quad
from skilib.engine.options import Integrator, Stabilization
from skilib.models.thesis.cases import TABLE9
from skilib.models.thesis.model import SkierModel
from skilib.models.thesis.params import ski_heading
from skilib.models.thesis.push import thesis_push_force
from skilib.strokes.quadrature import NotReducible, antiderivative, basis
from skilib.strokes.stroke import Stroke

#: the two runs' difference, relative to each column's largest value (module docstring)
RUN_TOL = 1e-8
RUN_ARGUED = ("the stepped run's global error: 1e-10 per step over ~750 steps, at most ~1e-8 of a column "
              "(measured ~2e-10)")


def _worst(a, b, columns):
    """The largest difference of the columns, each relative to its largest |value| (at least 1)."""
    worst, where = 0.0, ""
    for c in columns:
        x, y = np.asarray(a[c], dtype=float), np.asarray(b[c], dtype=float)
        err = float(np.abs(x - y).max() / max(np.abs(y).max(), 1.0))
        if err > worst:
            worst, where = err, c
    return worst, where


def _floats(frame):
    return [c for c in frame.columns if frame[c].dtype.kind == "f"]


@pytest.fixture(scope="module")
def table9_runs():
    return sk.simulate_run(**TABLE9.kwargs(), reduced=True), sk.simulate_run(**TABLE9.kwargs())


@pytest.mark.cross_path
def test_table9_by_quadrature_is_the_stepped_run(measured, table9_runs):
    """Table 9's ten strokes from rest (the first slides back, sticks and slides on): every column
    of the frame, the strokes table and the stroke changes, and the friction switches' times, by
    quadrature equal the stepped run's to its own error (module docstring)."""
    fast, ref = table9_runs
    assert list(fast.frame.columns) == list(ref.frame.columns) and len(fast.frame) == len(ref.frame)
    assert (fast.frame["mode"].to_numpy() == ref.frame["mode"].to_numpy()).all()
    switches = ["stroke", "mode_before", "mode_after"]
    assert fast.events[switches].equals(ref.events[switches])
    for what, a, b in (("frame", fast.frame, ref.frame), ("strokes table", fast.strokes, ref.strokes),
                       ("stroke changes", fast.changes, ref.changes)):
        err, col = _worst(a, b, _floats(b))
        measured.check(f"table 9 by quadrature vs stepped, {what}: largest column difference (relative)", err,
                       RUN_TOL, where=col, argued=RUN_ARGUED)
    measured.check("table 9 by quadrature vs stepped: friction switch times", np.abs(
        fast.events["tau"].to_numpy() - ref.events["tau"].to_numpy()).max(), RUN_TOL, "s", argued=RUN_ARGUED)
    assert fast.info["reduced"] is True and fast.info["nfev"] < ref.info["nfev"] / 4


def test_a_run_by_quadrature_closes_the_work_energy_balance(measured, table9_runs):
    """Each stroke's kinetic-energy change equals the sum of its works (the push-off, friction,
    gravity, the drivers and the joints): the works are integrals of the kernel's powers along the
    quadrature's motion, the kinetic energy is evaluated at its ends, so the balance is an
    independent check of both (eqs. 40–46; ``skilib.strokes.work``)."""
    fast, _ = table9_runs
    scale = float(fast.strokes["work_push"].abs().max())
    measured.check("table 9 by quadrature: work–energy residual per stroke, relative to the push-off's work",
                   fast.energy_balance()["residual"].abs().max() / scale, 1e-10)


@pytest.mark.cross_path
def test_other_settings_by_quadrature_are_the_stepped_runs(measured):
    """Three strokes from 2 m/s with Euler parameters, the left ski first, a 3° climb and 0.8 of
    the force, and with ZXZ at 40° and 1.2 s; three strokes from rest with 0.3 of the force (the
    ski stops and sticks within a stroke); two strokes from sliding back at 1 m/s: the friction
    switches, frames and strokes tables by quadrature equal the stepped runs' (module docstring)."""
    cases = [dict(rotation="euler_parameters", first_ski="left", force_scale=0.8,
                  params=sk.SkierParams(slope_deg=3.0), strokes=3, v0=2.0),
             dict(skating_angle_deg=40.0, phase_time=1.2, strokes=3, v0=2.0),
             dict(force_scale=0.3, strokes=3), dict(strokes=2, v0=-1.0)]
    worst = 0.0
    for kw in cases:
        fast, ref = sk.simulate_run(reduced=True, **kw), sk.simulate_run(**kw)
        assert fast.events[["stroke", "mode_before", "mode_after"]].equals(
            ref.events[["stroke", "mode_before", "mode_after"]])
        worst = max(worst, float(np.abs(fast.events["tau"].to_numpy() - ref.events["tau"].to_numpy()).max(
            initial=0.0)))
        for a, b in ((fast.frame, ref.frame), (fast.strokes, ref.strokes)):
            worst = max(worst, _worst(a, b, _floats(b))[0])
    measured.check("runs by quadrature vs stepped (Euler parameters, a slope, 40°, stick/slip, sliding back): "
                   "largest column or switch-time difference (relative)", worst, RUN_TOL, argued=RUN_ARGUED)


def test_the_pose_path_is_the_exact_pose(measured):
    """The pose path's q⁰(τ) + s ê equals ``SkierModel.pose`` at 40 phase times and travels, and
    its q̇⁰(τ) solves the velocity equations Cq q̇ = −Ct with the ski at rest (ṡ = 0).  The
    derivative of a 64-point interpolant amplifies its values' rounding by up to 64² (Markov's
    inequality): ~6e-12 m/s for coordinates of a few units over T = 1 s, the tolerance 1e-11."""
    p = sk.SkierParams()
    model = SkierModel(p, *ski_heading(p, 1, "right"), np.array([3.0, -1.0, 0.0]), thesis_push_force(p, 1.0)[0])
    path = model.one_dof_path()
    rng = np.random.default_rng(3)
    tau, s = rng.uniform(0.0, p.phase_time, 40), rng.uniform(-5.0, 5.0, 40)
    Q0, QD0 = path.at(tau)
    q_err = max(float(np.abs(Q0[j] + s[j] * path.E - model.pose(tau[j], s[j])).max()) for j in range(len(tau)))
    system = model.system(1)
    v_err = 0.0
    for j in range(len(tau)):
        jet = system.constraint_jet(tau[j], Q0[j])
        v_err = max(v_err, float(np.abs(jet.J @ QD0[j] + jet.t).max()), abs(float(model.ski_speed_row() @ QD0[j])))
    measured.check("pose path vs the exact pose, q", q_err, 1e-13, "m, rad")
    measured.check("pose path: Cq q̇⁰ + Ct and the ski's speed at rest", v_err, 1e-11, "m/s")


def test_the_series_helpers_are_numpys(measured):
    """``basis`` (Tⱼ(x) = cos(j arccos x)) and ``antiderivative`` equal numpy's ``chebval`` and
    ``chebint(lbnd=-1)`` on random series of 130 coefficients, and the series of a polynomial
    interpolated at Chebyshev points (``series``) is its own coefficients."""
    rng = np.random.default_rng(7)
    c = rng.normal(size=(130, 3)) / (1.0 + np.arange(130))[:, None] ** 2
    x = np.concatenate([[-1.0, 1.0], rng.uniform(-1.0, 1.0, 200)])
    measured.check("basis @ c vs chebval", np.abs(basis(x, 130) @ c - C.chebval(x, c).T).max(), 1e-13)
    measured.check("antiderivative vs chebint(lbnd=-1)",
                   np.abs(antiderivative(c, 0.37) - 0.37 * C.chebint(c, lbnd=-1.0)).max(), 1e-14)
    poly = rng.normal(size=9)
    values = C.chebval(C.chebpts1(64), poly)
    measured.check("series of a degree-8 polynomial at 64 Chebyshev points vs its coefficients",
                   np.abs(quad.series(values)[:9] - poly).max() + np.abs(quad.series(values)[9:]).max(), 1e-14)


@pytest.mark.cross_path
def test_the_run_s_series_are_converged(measured, monkeypatch, table9_runs):
    """Forcing 512 Chebyshev points per segment changes the run by rounding: its series at the
    first number tried (96 points) have converged."""
    fast, _ = table9_runs
    monkeypatch.setattr(quad, "DEGREES", (512,))
    monkeypatch.setattr(quad, "_canonical", quad.KeptLast(32))
    fine = sk.simulate_run(**TABLE9.kwargs(), reduced=True)
    err, col = _worst(fine.frame, fast.frame, _floats(fast.frame))
    measured.check("table 9 by quadrature, 512 vs 96 points: largest column difference (relative)", err, 1e-10,
                   where=col)


def test_a_speed_dependent_force_is_refused_by_the_check_not_by_a_flag(monkeypatch):
    """With air drag the ski's acceleration depends on its speed.  ``simulate_run`` refuses
    ``reduced=True`` by name; and with the model's own refusal switched off, the three canonical
    states' accelerations differ and the segment refuses itself (``NotReducible``)."""
    p = sk.SkierParams(air_drag=True)
    with pytest.raises(ValueError, match="reduced: with air drag"):
        sk.simulate_run(p, strokes=1, v0=3.0, reduced=True)
    monkeypatch.setattr(SkierModel, "one_dof_reason", None)
    model = SkierModel(p, *ski_heading(p, 0, "right"), np.zeros(3), thesis_push_force(p, 1.0)[0])
    stab = Stabilization.make("baumgarte", h=0.05, alpha=None, beta=None, projection_tol=1e-12)
    stroke = Stroke(model, stab, Integrator.make("DOP853", rtol=1e-10, atol=1e-10, max_step=0.02, stabilization=stab),
                    True, reduced=True)
    start = model.stroke_start()
    y0 = np.concatenate([start.q(model.P), start.qd(3.0), np.zeros(len(model.extra_states))])
    with pytest.raises(NotReducible, match="depends on the ski's speed"):
        stroke.run(y0, p.phase_time)


def test_reduced_refuses_bad_input():
    """``reduced`` must be True or False, and needs the compiled kernel."""
    with pytest.raises(ValueError, match="reduced"):
        sk.simulate_run(strokes=1, reduced="yes")
    with pytest.raises(ValueError, match="reduced: .*compiled=True"):
        sk.simulate_run(strokes=1, reduced=True, compiled=False)


def test_a_run_by_quadrature_is_the_same_bits_with_its_kept_numbers_or_without():
    """A run's kept numbers (the pose paths, the canonical accelerations and powers, the basis
    matrices) are functions of their keys alone: the run asked again, and asked with every kept
    number dropped, gives the same frame and strokes table bit for bit."""
    kw = dict(TABLE9.kwargs(), strokes=4)
    first = sk.simulate_run(**kw, reduced=True)
    again = sk.simulate_run(**kw, reduced=True)
    import skilib.models.thesis.model as model_module

    for kept in (quad._canonical, quad._bases, model_module._pose_paths):
        kept.clear()
    fresh = sk.simulate_run(**kw, reduced=True)
    for other in (again, fresh):
        assert other.frame.equals(first.frame) and other.strokes.equals(first.strokes)
    assert not math.isnan(first.strokes["mean_speed"].iloc[-1])
