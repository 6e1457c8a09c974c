"""The variational equations of eq. 101 (``skilib.engine.codegen.variational``) and the stroke
maps' Jacobians built on them: against closed forms (a linear spring–damper slider and the
Baumgarte dynamics of its held coordinates, their matrix exponentials and its Fréchet
derivative) and against central differences of flows and stroke maps integrated at tight
tolerances."""
import numpy as np
import pytest
import scipy.linalg as sl
from scipy.integrate import solve_ivp

pytest.importorskip("casadi")

from skilib.engine.bodies import RigidBody  # noqa: E402
from skilib.engine.codegen.casadi_terms import casadi_terms  # noqa: E402
from skilib.engine.codegen.variational import variational_flow  # noqa: E402
from skilib.engine.constraints import FixedCoordinate  # noqa: E402
from skilib.engine.forces import SpringDamper  # noqa: E402
from skilib.engine.system import MultibodySystem  # noqa: E402
from skilib.engine import examples  # noqa: E402

MASS, STIFFNESS, DAMPING = 2.0, 3.0, 0.8
ALPHA, BETA = 5.0, 7.0
SPAN = 1.5


def slider(stiffness=STIFFNESS):
    """A body on a spring–damper to the origin (rest length 0) along X, its other coordinates
    held by rows: ẍ = −(k x + c ẋ)/m, and each held coordinate's drift obeys Baumgarte's
    q̈ = −2α q̇ − β² q (eq. 103)."""
    body = RigidBody("slider", MASS, [0.1, 0.1, 0.1])
    rows = [FixedCoordinate(f"hold{i}", body, i, 0.0) for i in (1, 2, 3, 4, 5)]
    return MultibodySystem([body], rows, [SpringDamper("spring", None, [0, 0, 0], body, [0, 0, 0], stiffness,
                                                       DAMPING)])


def _start(n):
    q, qd = np.zeros(n), np.zeros(n)
    q[0], qd[0] = 1.0, -0.4  # x stays positive over the span: the spring's direction is +X throughout
    return q, qd


def test_slider_flow_jacobian_is_the_matrix_exponential(measured):
    """The linear slider's flow Jacobian, all twelve directions at once, against exp(A T) for
    (x, ẋ) and Baumgarte's exp for each held coordinate; no coupling between them."""
    system = slider()
    n = system.nq
    q, qd = _start(n)
    r = variational_flow(system, (0.0, SPAN), q, qd, np.eye(2 * n), alpha=ALPHA, beta=BETA, rtol=1e-12, atol=1e-12)
    A = np.array([[0.0, 1.0], [-STIFFNESS / MASS, -DAMPING / MASS]])
    E = sl.expm(A * SPAN)
    measured.check("slider's y(T) vs exp(A T) y0", np.abs(r.y[[0, n]] - E @ [q[0], qd[0]]).max(), 1e-10, "m, m/s")
    measured.check("slider's ∂(x, ẋ)(T)/∂(x, ẋ)(0) vs exp(A T)", np.abs(r.S[np.ix_([0, n], [0, n])] - E).max(),
                   1e-10)
    B = sl.expm(np.array([[0.0, 1.0], [-BETA ** 2, -2 * ALPHA]]) * SPAN)
    for i in range(1, n):  # each held coordinate decays by Baumgarte's terms alone
        measured.check("held coordinate's ∂(qᵢ, q̇ᵢ)(T)/∂(qᵢ, q̇ᵢ)(0) vs Baumgarte's exp",
                       np.abs(r.S[np.ix_([i, n + i], [i, n + i])] - B).max(), 1e-10)
    # and x does not feel a held coordinate's drift, nor the held ones x's motion
    off = np.ones((2 * n, 2 * n), bool)
    for i in range(n):
        for a in (i, n + i):
            off[a, [i, n + i]] = False
    measured.check("slider's coupling between the coordinates (none)", np.abs(r.S[off]).max(), 1e-10)


def test_slider_parameter_direction_is_the_frechet_derivative(measured):
    """∂y(T)/∂k from the parameters' direction D_c: the trace's parameters of the systems built at
    k ± h (linear in k: their difference is exact) against the Fréchet derivative of exp(A T)."""
    h = 1e-3
    cp, cm = casadi_terms(slider(STIFFNESS + h)).params, casadi_terms(slider(STIFFNESS - h)).params
    dc = (cp - cm) / (2 * h)
    assert np.count_nonzero(dc) == 1  # the stiffness is one stored number
    system = slider()
    n = system.nq
    q, qd = _start(n)
    r = variational_flow(system, (0.0, SPAN), q, qd, np.zeros(2 * n), dc, alpha=ALPHA, beta=BETA, rtol=1e-12,
                         atol=1e-12)
    A = np.array([[0.0, 1.0], [-STIFFNESS / MASS, -DAMPING / MASS]])
    dA = np.array([[0.0, 0.0], [-1.0 / MASS, 0.0]])
    _, dE = sl.expm_frechet(A * SPAN, dA * SPAN)
    measured.check("slider's ∂(x, ẋ)(T)/∂k vs the Fréchet derivative of exp(A T)",
                   np.abs(r.S[[0, n], 0] - dE @ [q[0], qd[0]]).max(), 1e-10, "m/(N/m)")


def test_pendulum_flow_jacobian_against_central_differences(measured):
    """A nonlinear flow (the spherical pendulum at 60°, swinging) against central differences of
    the numeric engine's flow (``MultibodySystem.evaluate``, DOP853 at rtol 1e-13) along unit
    directions: steps of 1e-5 leave O(h²) of a few 1e-9 and rounding
    ~1e-13/1e-5 = 1e-8."""
    ex = examples.pendulum(angle_deg=60.0)
    system, n = ex.system, ex.system.nq
    qd0 = np.array(ex.qd0, dtype=float)
    span = (0.0, 0.6)

    def flow(y0):
        def rhs(t, y):
            return np.concatenate([y[n:], system.evaluate(t, y[:n], y[n:], ALPHA, BETA).qdd])
        return solve_ivp(rhs, span, y0, method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]

    y0 = np.concatenate([ex.q0, qd0])
    rng = np.random.default_rng(20261206)
    D = rng.standard_normal((2 * n, 3))  # three directions at once, each of unit length
    D /= np.linalg.norm(D, axis=0)
    r = variational_flow(system, span, ex.q0, qd0, D, alpha=ALPHA, beta=BETA, rtol=1e-12, atol=1e-12)
    h = 1e-5
    fd = np.column_stack([(flow(y0 + h * d) - flow(y0 - h * d)) / (2 * h) for d in D.T])
    measured.check("pendulum's flow Jacobian (3 directions) vs central differences", np.abs(r.S - fd).max(),
                   1e-6)
    measured.check("pendulum's y(T) vs the numeric engine's", np.abs(r.y - flow(y0)).max(), 1e-9)


def test_variational_flow_refuses_bad_input():
    """Directions, spans and states of the wrong shape, and a system with controls, are
    ValueErrors naming what is wrong."""
    system = slider()
    n = system.nq
    q, qd = _start(n)
    with pytest.raises(ValueError, match="dy"):
        variational_flow(system, (0.0, 1.0), q, qd, np.eye(n))
    with pytest.raises(ValueError, match="dc"):
        variational_flow(system, (0.0, 1.0), q, qd, np.eye(2 * n), np.ones(3))
    with pytest.raises(ValueError, match="t_span"):
        variational_flow(system, (1.0, 1.0), q, qd, np.eye(2 * n))
    with pytest.raises(ValueError, match="qd"):
        variational_flow(system, (0.0, 1.0), q, qd[:-1], np.eye(2 * n))
    from skilib.ocp.examples import sprung_slider
    with pytest.raises(ValueError, match="controls"):
        variational_flow(sprung_slider(), (0.0, 1.0), q, qd, np.eye(2 * n))


# -- the stroke maps' Jacobians ---------------------------------------------------------------------
import skilib as sk  # noqa: E402
from skilib.models.edge.steady import _STEPS, _jacobians, _solver, _variational_jacobians, edge_stroke_map  # noqa: E402
from skilib.models.edge.skating import EdgeSkating, edge_run_options  # noqa: E402
from skilib.models.free.params import with_overrides  # noqa: E402
from skilib.models.free.run import FreeSkating, free_options_of  # noqa: E402
from skilib.strokes.run import integrate_stroke  # noqa: E402

#: the reference strokes' integration tolerance: differences of strokes at h carry ~rtol/h
TIGHT = dict(rtol=1e-12, atol=1e-12)


def test_free_stroke_map_slope_against_central_differences(measured):
    """Φ′(u0) of the free skater by the variational equations (``free_steady_state(multiplier=True)``)
    against central differences of the stroke map stepped in C at rtol 1e-12, h = 1e-4 m/s:
    O(h²) truncation ~1e-8, rounding ~1e-12/1e-4 = 1e-8."""
    ss = sk.free_steady_state(multiplier=True)
    skating = FreeSkating(free_options_of(with_overrides(None), dict(TIGHT)))
    settings = skating.settings()

    def phi(u):
        model, q, qd = skating.start(u)
        settings.budget.start()
        y = integrate_stroke(skating, settings, 0, model, q, qd, False, works=False)[3]
        n = model.nq
        new, q1, qd1, _ = skating.touch_down(1, model, y[:n], y[n: 2 * n])
        return skating.start_speed(new, q1, qd1)

    h = 1e-4
    fd = (phi(ss.u0 + h) - phi(ss.u0 - h)) / (2 * h)
    measured.check("free skater's Φ′(u0), variational vs central differences", abs(ss.multiplier - fd), 1e-6)
    assert 0.0 < ss.multiplier < 1.0  # the periodic stroke attracts the runs near it (thesis fig. 41)
    assert np.isnan(sk.free_steady_state().multiplier)  # not asked: not computed
    with pytest.raises(ValueError, match="multiplier"):
        sk.free_steady_state(multiplier="yes")


def test_edge_stroke_map_jacobians_against_central_differences(measured):
    """A = ∂Φ/∂x and M = ∂m/∂x of the edged skater at its periodic stroke, variational against
    central differences of maps stepped in C at rtol 1e-12 and the Newton steps (1e-6 m/s,
    1e-6 rad/s, 1e-7 m): truncation O(h²) ~1e-9 (ten times the steps leave 1.6e-7, a hundredth
    of it at these), rounding ~rtol/h bounded by 1e-5 but far below where neighbouring strokes
    take the same steps; the entries reach 10."""
    x0 = sk.edge_steady_state(multipliers=False).x0
    p = sk.EdgeSkaterParams()
    phi = edge_stroke_map(EdgeSkating(edge_run_options(p, strokes=1, v0=float(x0[0]), **{**_solver(dict(TIGHT)), "reach": False})))
    A, M = _variational_jacobians(phi, x0)
    A_fd, M_fd = _jacobians(phi, x0, _STEPS)
    measured.check("edged skater's ∂Φ/∂x, variational vs central differences", np.abs(A - A_fd).max(), 1e-6,
                   "mixed (m/s, rad/s, m per unit x)")
    measured.check("edged skater's ∂m/∂x (touch-down measure), variational vs central differences",
                   np.abs(M - M_fd).max(), 1e-6, "mixed")
    # with a fixed landing offset the next offset is the parameter whatever x: its row is 0 (read
    # back from the landed pose: to the touch-down's differences' rounding)
    measured.check("edged skater's ∂d′/∂x with a fixed offset (zero)", np.abs(A[3]).max(), 1e-8, "m per unit x")


def test_edge_multipliers_by_either_jacobian(measured):
    """``edge_steady_state``'s multipliers from the variational Jacobian against those from the
    central differences it takes by default (~2e-7 apart in the entries); a method it does not
    know is a ValueError naming ``jacobian``."""
    a = sk.edge_steady_state()
    b = sk.edge_steady_state(jacobian="variational")
    measured.check("edged skater's multipliers, variational vs differences",
                   np.abs(np.sort_complex(a.multipliers) - np.sort_complex(b.multipliers)).max(), 1e-6)
    with pytest.raises(ValueError, match="jacobian"):
        sk.edge_steady_state(jacobian="exact")


def test_stroke_map_jacobian_refuses_a_stroke_in_phases():
    """A stroke with the poles in the snow runs in phases (their forces start and stop): the
    variational Jacobian covers one phase and says so."""
    with pytest.raises(ValueError, match="one mode in one phase"):
        sk.free_steady_state(sk.FreeSkaterParams(pole_force_max=150.0, pole_start=0.1, pole_contact_time=0.3),
                             multiplier=True)


def test_free_long_runs_approach_the_periodic_stroke_at_its_multiplier(measured):
    """Runs started 1 cm/s above and below the periodic stroke's u0 (``simulate_free``, five strokes
    each) approach it stroke by stroke: the ratio of successive distances e_{k+1}/e_k is
    Φ′(u0) + ½Φ″(u0) e_k + O(e_k²), so the intercept of its straight-line fit against e_k is
    Φ′(u0), here against the variational one.  The O(e²) terms over |e| ≤ 0.01 m/s and the runs'
    integration error over e (~1e-10/5e-3) leave ~1e-8."""
    ss = sk.free_steady_state(multiplier=True)
    e_k, ratio = [], []
    for d in (0.01, -0.01):
        e = sk.simulate_free(strokes=5, v0=ss.u0 + d).strokes["u_start"].to_numpy() - ss.u0
        e_k += list(e[:-1])
        ratio += list(e[1:] / e[:-1])
    slope, intercept = np.polyfit(e_k, ratio, 1)
    measured.check("free skater's runs: the intercept of e_{k+1}/e_k vs Φ′(u0) (variational)",
                   abs(intercept - ss.multiplier), 1e-6)
    assert slope < 0  # ½Φ″ < 0: a faster start converges a little faster (measured −2.9e-3 s/m)
