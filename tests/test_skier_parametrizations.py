"""The skier in either rotation parametrization and with either stabilization.

ZXZ angles (18 coordinates) and Euler parameters (21 coordinates, 3 normalization rows)
describe the same bodies, so the two runs must give one motion; Baumgarte stabilization
and coordinate projection are two ways of holding the same DAE on C = 0, so they must
agree too.  Differences are bounded by the integration error: both runs use DOP853 with
rtol = atol = 1e-10 over runs of a few seconds, whose global error on positions of order
1 m stays well below 1e-8 m (measured ~1e-11 m; the tolerance is the issue's).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from skilib.engine.rotation import EulerParameters, rot_z, rotation_matrix
from skilib.models.thesis import SkierModel, SkierParams, ski_heading
from skilib.models.thesis.cases import TABLE7, TABLE9
from skilib.models.thesis import simulate_phase, simulate_run

#: the skier in Euler parameters and with projection against the ZXZ skier: the margin rule of tests/conftest.py ("Margins")
pytestmark = pytest.mark.cross_path

EP = "euler_parameters"
CM = ["cm_x", "cm_y", "cm_z"]
WORKS = ["work_push", "work_friction", "work_gravity", "work_drag", "work_drivers", "work_joints"]
# table 7's shortest phase and a three-stroke run of table 9's kind: both start at rest and
# the ski first slides back; in the phase it reverses directly, in the run it sticks and
# slips forward again (stick/slip switches); the run has two stroke changes
PHASE = TABLE7[0].kwargs(dt_out=0.01)
RUN = {k: v for k, v in TABLE9.kwargs(strokes=3, dt_out=0.02).items() if k not in ("force_scale", "v0")}
_cache: dict = {}


def run(kind, rotation="zxz", stabilization="baumgarte"):
    key = (kind, rotation, stabilization)
    if key not in _cache:
        f = simulate_phase if kind == "phase" else simulate_run
        _cache[key] = f(SkierParams(), rotation=rotation, stabilization=stabilization,
                        **(PHASE if kind == "phase" else RUN))
    return _cache[key]


def max_diff(a, b, cols):
    return np.abs(a.frame[cols].to_numpy() - b.frame[cols].to_numpy()).max()


def orientations(res):
    """A of the three bodies at every output time, from the frame's q columns."""
    out = []
    for k, model in enumerate(res.models):
        rows = res.frame[res.frame["stroke"] == k + 1]
        q = rows[[f"q{j}" for j in range(model.nq)]].to_numpy()
        for b in model.bodies:
            sl = model.system(1).slice(b)
            out.append(np.array([b.rotation.A(qq[sl][3:]) for qq in q]))
    return np.concatenate(out)


# -- the model in Euler parameters --------------------------------------------------------
def test_euler_parameter_model_has_21_coordinates_20_rows_one_dof(measured):
    """The skier in Euler parameters: 21 coordinates, 17 + 3 rows, one DOF, full rank; its
    exact pose satisfies every row and is the ZXZ pose (positions and rotation matrices)."""
    p = SkierParams()
    h, side = ski_heading(p, 0)
    model = SkierModel(p, h, side, np.zeros(3), lambda tau: 500.0, rotation=EP)
    sysm = model.system(1)
    assert (model.nq, sysm.nq, sysm.nc, sysm.dof) == (21, 21, 20, 1)
    assert sysm.constraint_labels[-3:] == ["ski.norm[0]", "shank.norm[0]", "upper.norm[0]"]
    q = model.pose(0.3, 0.1)
    # the exact pose satisfies C1–C17 and the normalization rows, with a full-rank Jacobian
    measured.check("max|C| of the exact pose", np.abs(sysm.constraint_jet(0.3, q).val).max(), 1e-14, strict=True)
    sv = np.linalg.svd(sysm.constraint_jacobian(q, 0.3), compute_uv=False)
    measured.exceeds("σ_min/σ_max of Cq", sv[-1] / sv[0], 1e-3)
    sysm.check_rank(q, 0.3)
    # and describes the same bodies as the ZXZ pose: equal positions and rotation matrices
    zxz = SkierModel(p, h, side, np.zeros(3), lambda tau: 500.0)
    qz = zxz.pose(0.3, 0.1)
    for bz, be in zip(zxz.bodies, model.bodies):
        sz, se = zxz.system(1).slice(bz), sysm.slice(be)
        measured.allclose("positions vs ZXZ pose", q[se][:3], qz[sz][:3], atol=1e-15, unit="m")
        measured.allclose("A(p) vs A(φ, θ, ψ)", EulerParameters.A(q[se][3:]), rotation_matrix(qz[sz][3:]), atol=1e-15,
                          argued="two formulas for entries of size ≤ 1, each a few products and sums of terms ≤ 1 "
                                 "(and p from the angles by sines and cosines): a few ulp apart, 1e-15 ≈ 4.5 u")
    # the stuck system (one more row) keeps the normalization rows last
    stuck = model.system(0, 0.1)
    assert stuck.nc == 21 and stuck.constraint_labels[17] == "stick[0]"


# -- ZXZ vs Euler parameters ---------------------------------------------------------------
@pytest.mark.parametrize("kind", ["phase", "run"])
def test_zxz_and_euler_parameters_give_the_same_motion(kind, measured):
    """ZXZ angles vs Euler parameters on a table 7 phase and on a 3-stroke run with a
    stick/slip switch and two stroke changes: CM path, ski path, velocities, every body's
    rotation matrix, switch times, KE losses and joint loads."""
    a, b = run(kind), run(kind, rotation=EP)
    assert a.info["rotation"] == "zxz" and b.info["rotation"] == EP
    assert len(a.events) >= 1  # a friction switch
    if kind == "run":
        assert a.events["mode_after"].eq(0).any() and len(a.changes) == 2  # sticks and slips; 2 changes
    measured.check("CM path", max_diff(a, b, CM), 1e-8, "m")  # the bound on the CM path
    measured.check("ski path and s", max_diff(a, b, ["s", "ski_x", "ski_y", "ski_z"]), 1e-8, "m")
    measured.check("CM velocity and ṡ", max_diff(a, b, ["cm_vx", "cm_vy", "cm_vz", "s_dot"]), 1e-7, "m/s")
    # every body's orientation, from angles and from Euler parameters
    measured.check("rotation matrices", np.abs(orientations(a) - orientations(b)).max(), 1e-8)
    # the same friction switches and stroke changes
    measured.allclose("switch times", a.events["tau"], b.events["tau"], atol=1e-9, unit="s")
    assert a.events[["mode_before", "mode_after"]].equals(b.events[["mode_before", "mode_after"]])
    if kind == "run":
        measured.allclose("KE loss at the stroke changes", a.changes["ke_loss"].astype(float),
                          b.changes["ke_loss"].astype(float), rtol=1e-8)
    # the same loads: push power and the joint reactions (N, N m)
    for c in ("push_power", "leg_drive_force", "ankle_Fx", "ankle_Fz", "knee_Fy", "knee_Mx", "knee_Mz"):
        scale = max(1.0, np.abs(a.frame[c]).max())
        measured.check("push power and joint loads", np.abs(a.frame[c] - b.frame[c]).max() / scale, 1e-6, "× scale",
                       where=c)
    # the documented columns of SimResult.frame exist in both; q/qd follow the coordinates
    assert {f"q{j}" for j in range(21)} <= set(b.frame.columns) and "q21" not in b.frame.columns
    assert "q18" not in a.frame.columns
    # Euler parameters stay unit (their rows are part of constraint_norm) and the ski flat at h
    measured.check("max|C| with Euler parameters", b.frame["constraint_norm"].max(), 1e-10)
    A = orientations(b)[: len(b.frame[b.frame["stroke"] == 1])]
    measured.allclose("ski rotation matrix vs Rz(heading)", A,
                      np.broadcast_to(rot_z(math.radians(-35.0 if kind == "phase" else -25.0)), A.shape), atol=1e-10)


def test_euler_parameter_run_closes_the_work_energy_balance(measured):
    """ΔKE = ΣW per stroke with Euler parameters, as tests/test_skier.py asks of ZXZ; the
    normalization rows do no work."""
    res = run("run", rotation=EP)
    eb = res.energy_balance()
    dke = np.abs(eb["delta_ke"].to_numpy())
    measured.check("|ΔKE − ΣW| per stroke", np.abs(eb["residual"].to_numpy()) / dke, 1e-6, "× |ΔKE|")
    st = res.strokes
    # the normalization rows carry no multiplier, so they add no work to the joints'
    measured.check("|W_joints| per stroke", np.abs(st["work_joints"].to_numpy()) / dke, 1e-6, "× |ΔKE|")


# -- Baumgarte vs projection ---------------------------------------------------------------
@pytest.mark.parametrize("rotation", ["zxz", EP])
def test_projection_agrees_with_baumgarte_and_holds_the_constraints(rotation, measured):
    """Projection and Baumgarte integrate the same DAE: on the 3-stroke run (ZXZ and Euler
    parameters) the paths and switch times agree to the integration error; the projected
    run sits on C = 0 and Cq q̇ = −Ct at round-off."""
    a, b = run("run", rotation), run("run", rotation, "projection")
    assert b.info["stabilization"] == "projection" and b.info["alpha"] == b.info["beta"] == 0.0
    measured.check("CM path and s", max_diff(a, b, CM + ["s"]), 1e-8, "m")
    measured.allclose("switch times", a.events["tau"], b.events["tau"], atol=1e-9, unit="s")
    measured.check("max|C| with projection", b.frame["constraint_norm"].max(), 1e-10)
    measured.check("max|Cq q̇ + Ct| with projection", b.frame["velocity_constraint_norm"].max(), 1e-10)
    assert b.info["n_projections"] >= 50 * len(b.strokes)  # one per step, max step T/50


@pytest.mark.parametrize("rotation", ["zxz", EP])
def test_projection_energy_is_reported_and_closes_the_balance(rotation, measured):
    """The projections' kinetic-energy change is its own term: ΔKE = ΣW + ΔT_projection per
    stroke and at every output point; per stroke it is at most rtol × KE.

    It removes only what the integration error put off the constraint manifold, so it is
    of the order of the tolerance times the kinetic energy (rtol = 1e-10).
    """
    res = run("run", rotation, "projection")
    st, eb = res.strokes, res.energy_balance()
    measured.check("|ΔKE − ΣW − ΔT_projection| per stroke",
                   np.abs(eb["residual"].to_numpy()) / np.abs(eb["delta_ke"].to_numpy()), 1e-6, "× |ΔKE|")
    measured.check("|ΔT_projection| per stroke", np.abs(st["projection_energy"].to_numpy()) / st["ke_end"].to_numpy(),
                   1e-10, "× KE at stroke end")
    fr = res.frame
    for k in st["stroke"]:
        rows = fr[fr["stroke"] == k]
        w = rows[WORKS + ["projection_energy"]].sum(axis=1).to_numpy()
        ke = rows["kinetic_energy"].to_numpy()
        measured.check("|KE(t) − KE(0) − ΣW(t) − ΔT_projection(t)| at output points",
                       np.abs(ke - ke[0] - w) / np.abs(ke).max(), 1e-6, "× max KE")
    # Baumgarte runs report zero
    assert (run("run", rotation).strokes["projection_energy"] == 0.0).all()


# -- bad names -------------------------------------------------------------------------------
def test_bad_rotation_or_stabilization_names_the_argument():
    with pytest.raises(ValueError, match="rotation"):
        simulate_phase(SkierParams(), rotation="quaternions")
    with pytest.raises(ValueError, match="stabilization"):
        simulate_phase(SkierParams(), stabilization="projected")
    with pytest.raises(ValueError, match="method"):
        simulate_phase(SkierParams(), stabilization="projection", method="Radau")
    with pytest.raises(ValueError, match="alpha, beta"):
        simulate_phase(SkierParams(), stabilization="projection", alpha=10.0)
    with pytest.raises(ValueError, match="projection_tol"):
        simulate_phase(SkierParams(), stabilization="projection", projection_tol=0.0)
    with pytest.raises(ValueError, match="rotation"):
        SkierModel(SkierParams(), 0.0, "right", np.zeros(3), lambda tau: 0.0, rotation="xyz")
