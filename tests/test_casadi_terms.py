"""The engine's terms of eq. 101 as CasADi functions (``skilib.engine.codegen.casadi_terms``) and
the controls an optimal-control transcription chooses (``skilib.engine.controls``).

Checked against the numeric engine, an independent code path (numpy on the engine's components,
no sympy, no CasADi): the terms M, Qv, C, Cq, Ċ = Cq q̇ + Ct, Cquad = −Qd and each force's Q at
consistent states with moving bodies and at perturbed states; the implicit residual of eq. 101
at the engine's (q̈, λ); the symbolically solved (q̈, λ); CasADi's exact Jacobians of the
residual with respect to q and q̇ against central differences of the numeric engine's residual;
a ControlLaw or ControlSignal evaluated at the values of an ordinary law or pulse against the
system built with that law or pulse; one CasADi function for every system of one structure.

Tolerances.  The CasADi terms evaluate the engine's own expressions (traced by sympy, then
converted node by node) in another order: a few ε of each term's scale, bounded by 10⁻¹² in
numpy's allclose criterion (rtol = atol = 10⁻¹²).  The residual at the engine's solution is the
engine's solve's rounding, a few ε of max|M q̈|: bounded by 10⁻¹² of it.  ``accelerations``
solves the augmented matrix with CasADi's solve of an SX matrix (a sparse QR written out as an
expression, its ordering fixed by the sparsity pattern before any value is known): its own residual
is measured up to 2.4·10⁻¹³ of max|M q̈| (the engine's LU: 10⁻¹⁵), bounded by 10⁻¹¹, which the
augmented matrix's condition number (up to 4·10⁴, the double pendulum) turns into 2.5·10⁻⁹ of
max|q̈| from the engine's (at most 1.3·10⁻¹¹ of max|q̈| and max|λ| on the others): bounded by
10⁻⁸, far above the terms' 10⁻¹²; a transcription takes the residual, not this solve.  The central
differences of step h = 10⁻⁶ err by O(h²) ≈ 10⁻¹² plus rounding ε|r|/h ≈ 10⁻¹⁰ of the residual's
scale |r| (up to ≈ 700 N on the skaters): measured up to 1.6·10⁻⁸ of max|∂r/∂x|, bounded by 10⁻⁶.
Measured for the terms, ≤ 2·10⁻¹⁵; the residual at the engine's solution, ≤ 10⁻¹⁵ of max|M q̈|.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

ca = pytest.importorskip("casadi")

import skilib as sk  # noqa: E402
from skilib.engine import SineSquaredPulse, Strut, examples  # noqa: E402
from skilib.engine.codegen import compile_system  # noqa: E402
from skilib.engine.codegen.casadi_terms import BLOCKS, casadi_terms  # noqa: E402
from skilib.engine.controls import ControlLaw, ControlSignal  # noqa: E402
from skilib.models.edge import EdgeSkaterParams  # noqa: E402
from skilib.models.edge.model import EdgeSkaterModel  # noqa: E402
from skilib.models.free.model import FreeSkaterModel  # noqa: E402
from skilib.models.free.params import FreeLaws, FreeSkaterParams, default_laws  # noqa: E402
from test_load_friction import _block_on_incline  # noqa: E402

#: the CasADi terms against the numeric engine: the margin rule of tests/conftest.py ("Margins")
pytestmark = pytest.mark.cross_path

TERMS = 1e-12       # CasADi terms vs the numeric engine (numpy's allclose, rtol = atol)
RESIDUAL = 1e-12    # the residual at the engine's (q̈, λ), relative to max|M q̈|
SOLVE = 1e-8        # CasADi's symbolic solve vs the engine's, relative to max|q̈| and max|λ|
SOLVE_RESIDUAL = 1e-11  # the residual at CasADi's own solve, relative to max|M q̈|
DERIVATIVE = 1e-6   # exact Jacobians vs central differences (h = 1e-6), relative to max|J|
STEP = 1e-6
SLOPE = dict(slope_deg=2.0, air_drag=True)
FREE_CONTROLS = ("heading", "offset", "height")


# -- the systems ---------------------------------------------------------------------------------------
@dataclass
class Case:
    system: sk.MultibodySystem
    t: float
    q: np.ndarray
    qd: np.ndarray


def _on_ski(model, system, tau, u):
    """A flat-ski model's consistent state at τ: the ski's origin held at its pose's (X, Y), the
    ski gliding at u along itself (0 for the stuck mode) and B drifting sideways, projected onto
    the rows (``consistent_initial_conditions``: the least change of this guess)."""
    e, n = model.axes(tau)
    qd = np.zeros(model.nq)
    qd[:3] = u * e
    qd[model.cm] = u * e + 0.3 * n
    q, qd = sk.consistent_initial_conditions(system, tau, model.pose(tau), qd)
    return Case(system, tau, q, qd)


def _strut_on_a_mass(magnitude, rotation="zxz"):
    """A free body pushed by a ski pole from a tip in the snow (no rows: nc = 0), with gravity."""
    body = sk.RigidBody("skier", 70.0, [12.0, 11.0, 3.0], points={"shoulder": [0.1, -0.2, 0.5]}, rotation=rotation)
    pole = Strut("pole", body, [0.0, 0.0, 0.0], [-0.8, 0.3, 0.0], magnitude, hand_offset=(0.0, 0.25, 1.45),
                 hand_follows=(True, True, False))
    return sk.MultibodySystem([body], [], [sk.Gravity(), pole])


def _build_cases():
    out = {}
    ex = examples.pendulum(angle_rates=(0.4, 0.9, -0.6))
    out["pendulum (ZXZ)"] = Case(ex.system, 0.3, ex.q0, ex.qd0)
    ex = examples.heavy_top()
    out["heavy top (Euler parameters)"] = Case(ex.system, 0.3, ex.q0, ex.qd0)
    ex = examples.double_pendulum()
    out["double pendulum"] = Case(ex.system, 0.3, ex.q0, ex.qd0)
    free = FreeSkaterModel(FreeSkaterParams(**SLOPE), "right", np.zeros(3), None)
    for mode, u in ((1, 4.0), (-1, -1.5), (0, 0.0)):
        out[f"free skater, mode {mode}"] = _on_ski(free, free.system(mode), 0.37, u)
    poled = FreeSkaterModel(FreeSkaterParams(**SLOPE, pole_force_max=150.0, pole_start=0.1), "right", np.zeros(3), None)
    plant = _on_ski(poled, poled.system(1), 0.1, 4.0)
    poles = poled.phase_model("poles", 0.1, plant.q, plant.qd)
    out["free skater with poles (Strut, sin² pulse)"] = _on_ski(poles, poles.system(1), 0.25, 4.0)
    p = EdgeSkaterParams(cm_height=0.8341)
    edge = EdgeSkaterModel(p, "right", np.zeros(3), math.hypot(p.cm_height, p.landing_offset))
    out["edged skater (LoadFriction on the snow)"] = _on_ski(edge, edge.system(1), 0.3, 4.0)
    for law in (dict(sign=1), dict(smoothing=0.3)):
        system, q = _block_on_incline(math.radians(20.0), 0.3, 30.0, math.radians(35.0), **law)
        qd = np.zeros(7)
        qd[0] = 1.5
        out[f"block, LoadFriction {law}"] = Case(system, 0.0, q, qd)
    rng = np.random.default_rng(7)
    system = _strut_on_a_mass(SineSquaredPulse(300.0, 0.1, 0.4))
    q = np.array([0.2, -0.1, 1.0, 0.3, 1.2, -0.4])
    out["mass with a pole (no rows)"] = Case(system, 0.25, q, rng.normal(size=6))
    return out


@pytest.fixture(scope="module")
def cases():
    return _build_cases()


CASE_NAMES = ("pendulum (ZXZ)", "heavy top (Euler parameters)", "double pendulum", "free skater, mode 1",
              "free skater, mode -1", "free skater, mode 0", "free skater with poles (Strut, sin² pulse)",
              "edged skater (LoadFriction on the snow)", "block, LoadFriction {'sign': 1}",
              "block, LoadFriction {'smoothing': 0.3}", "mass with a pole (no rows)")


# -- the numeric engine's terms (numpy, no trace) -------------------------------------------------------
def _numeric_terms(system, t, q, qd, lam):
    """The numeric engine's M, Qv, C, Cq, Ċ, Cquad and each force's Q (a load force's b λ_k)."""
    s = system.state(t, q, qd)
    jet = system.constraint_jet(t, q, qd, state=s)
    load = {id(f) for f in system.load_forces}
    forces = {f.name: (f.per_load(s) * lam[f.index] if id(f) in load else f.generalized(s)) for f in system.forces}
    return dict(M=system.mass_matrix(q), Qv=system.quadratic_velocity(q, qd), C=jet.val, Cq=jet.J, Cvel=jet.vel,
                Cquad=jet.quad), forces


def _numeric_residual(system, t, q, qd, qdd, lam):
    """(M q̈ + Cqᵀλ − Qv − ΣQ_f, Cq q̈ + Cquad) from the numeric engine's terms, one vector."""
    T, forces = _numeric_terms(system, t, q, qd, lam)
    Q = sum(forces.values(), np.zeros(system.nq))
    return np.concatenate([T["M"] @ qdd + T["Cq"].T @ lam - T["Qv"] - Q, T["Cq"] @ qdd + T["Cquad"]])


def _dm(x, shape=None):
    a = np.array(ca.DM(x), dtype=float)
    return a.reshape(shape) if shape is not None else a.ravel()


def _check_terms(measured, terms, system, t, q, qd, lam, what, u=None):
    """Every block of the CasADi function and each force's Q against the numeric engine's."""
    ref, ref_forces = _numeric_terms(system, t, q, qd, lam)
    got = terms(t, q, qd, u)
    for k in ("M", "Qv", "C", "Cq", "Cvel", "Cquad"):
        assert got[k].shape == (ref[k].shape if ref[k].ndim == 2 else (ref[k].size, 1)), k
        if ref[k].size == 0:  # no rows
            continue
        measured.allclose("CasADi M, Qv, C, Cq, Ċ, Cquad vs the numeric engine", _dm(got[k], ref[k].shape), ref[k],
                          rtol=TERMS, atol=TERMS, where=f"{what}: {k}")
    got_forces = terms.forces(t, q, qd, lam, u)
    assert set(got_forces) == set(ref_forces) == set(terms.force_names)
    for name, Q in ref_forces.items():
        measured.allclose("CasADi Q_f (a load's b λ_k) vs the numeric engine", _dm(got_forces[name]), Q,
                          rtol=TERMS, atol=TERMS, where=f"{what}: {name}")


# -- 1. the terms, the residual and the solve --------------------------------------------------------
@pytest.mark.parametrize("name", CASE_NAMES)
def test_the_casadi_terms_are_the_numeric_engines(name, cases, rng, measured):
    """At a consistent state with moving bodies and at a perturbed one (every row violated, other
    velocities): M, Qv, C, Cq, Ċ = Cq q̇ + Ct, Cquad = −Qd and each force's Q (a friction on a
    row's load: b λ_k) of the CasADi function equal the numeric engine's to 10⁻¹² (numpy's
    allclose, rtol = atol); for pendulums, the heavy top in Euler parameters, the free skater in
    its three friction modes on a 2° climb with drag, with its poles (struts with a sin² push),
    the edged skater and a block with friction on a row's load (fixed and tanh-smoothed sign), and
    a body pushed by a pole with no rows at all."""
    c = cases[name]
    terms = casadi_terms(c.system)
    e = c.system.evaluate(c.t, c.q, c.qd)
    _check_terms(measured, terms, c.system, c.t, c.q, c.qd, e.lam, f"{name}, consistent")
    q = c.q + 0.02 * rng.normal(size=c.q.size)
    qd = c.qd + 0.5 * rng.normal(size=c.q.size)
    lam = e.lam + rng.normal(size=e.lam.size)
    _check_terms(measured, terms, c.system, c.t + 0.05, q, qd, lam, f"{name}, perturbed")
    assert np.array_equal(terms.holonomic, c.system.holonomic_rows)
    assert np.array_equal(terms.velocity, c.system.velocity_rows)


@pytest.mark.parametrize("name", CASE_NAMES)
def test_the_residual_vanishes_at_the_engines_solution_and_the_solve_agrees(name, cases, measured):
    """The implicit equations of motion (eq. 101 as residuals: M q̈ + Cqᵀλ − Σ b λ_k − Qv − ΣQ_f and
    Cq q̈ + Cquad) vanish at the numeric engine's q̈ and λ to 10⁻¹² of max|M q̈|; CasADi's own
    symbolic solve of the augmented matrix leaves a residual below 10⁻¹¹ of max|M q̈| and gives the
    engine's q̈ and λ to 10⁻⁸ of max|q̈| and max|λ| (its residual times the matrix's condition
    number: measured ≤ 2.5·10⁻⁹)."""
    c = cases[name]
    terms = casadi_terms(c.system)
    e = c.system.evaluate(c.t, c.q, c.qd)
    dyn, rows = terms.residual(c.t, c.q, c.qd, e.qdd, e.lam)
    scale = np.abs(e.M @ e.qdd).max()
    measured.exceeds("max|M q̈| (the residual's scale)", scale, 1e-3)
    measured.check("residual of the dynamics at the engine's (q̈, λ)", np.abs(_dm(dyn)).max() / scale, RESIDUAL,
                   "× max|M q̈|", where=name)
    if c.system.nc:
        measured.check("residual of the acceleration rows at the engine's q̈", np.abs(_dm(rows)).max() / scale,
                       RESIDUAL, "× max|M q̈|", where=name)
    qdd, lam = terms.accelerations(c.t, c.q, c.qd)
    own = np.concatenate([_dm(x) for x in terms.residual(c.t, c.q, c.qd, _dm(qdd), _dm(lam))])
    measured.check("residual at CasADi's own symbolic solve", np.abs(own).max() / scale, SOLVE_RESIDUAL,
                   "× max|M q̈|", where=name)
    # two backward-stable solves of one system differ by at most its condition number times the sum
    # of their relative residuals (the forward-error bound), here with the residuals measured
    aug = np.block([[e.M, e.Cq.T], [e.Cq, np.zeros((c.system.nc, c.system.nc))]]) if c.system.nc else e.M
    engine_residual = np.abs(np.concatenate([_dm(dyn), _dm(rows)] if c.system.nc else [_dm(dyn)])).max()
    bound = np.linalg.cond(aug) * ((np.abs(own).max() + engine_residual) / scale + np.finfo(float).eps)
    measured.check("CasADi's symbolic solve: q̈ vs the engine's",
                   np.abs(_dm(qdd) - e.qdd).max() / np.abs(e.qdd).max(), min(SOLVE, bound), "× max|q̈|", where=name,
                   argued="κ(augmented matrix) × (the two solves' relative residuals + ε), capped at 1e-8")
    if c.system.nc:
        measured.check("CasADi's symbolic solve: λ vs the engine's",
                       np.abs(_dm(lam) - e.lam).max() / np.abs(e.lam).max(), min(SOLVE, bound), "× max|λ|", where=name,
                       argued="κ(augmented matrix) × (the two solves' relative residuals + ε), capped at 1e-8")


# -- 2. exact derivatives -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", CASE_NAMES)
def test_exact_jacobians_of_the_residual_are_central_differences_of_the_engine(name, cases, rng, measured):
    """CasADi's Jacobians ∂r/∂q and ∂r/∂q̇ of the residual r (both parts), at a perturbed state
    (every term moving) with the engine's (q̈, λ) held fixed, equal central differences
    (h = 10⁻⁶) of the same residual built from the numeric engine's terms, to 10⁻⁶ of max|J|:
    the derivatives an optimizer gets are those of the engine's equations."""
    c = cases[name]
    terms = casadi_terms(c.system)
    e = c.system.evaluate(c.t, c.q, c.qd)
    n = c.system.nq
    state = [c.q + 0.02 * rng.normal(size=n), c.qd + 0.5 * rng.normal(size=n)]
    x = ca.SX.sym("x", n)
    for wrt, k in (("q", 0), ("q̇", 1)):
        args = list(state)
        args[k] = x
        r = ca.vertcat(*terms.residual(c.t, *args, e.qdd, e.lam))
        J = _dm(ca.Function("J", [x], [ca.jacobian(r, x)])(state[k]), (r.shape[0], n))
        fd = np.zeros_like(J)
        for i in range(n):
            plus, minus = list(state), list(state)
            plus[k], minus[k] = state[k].copy(), state[k].copy()
            plus[k][i] += STEP
            minus[k][i] -= STEP
            fd[:, i] = (_numeric_residual(c.system, c.t, *plus, e.qdd, e.lam)
                        - _numeric_residual(c.system, c.t, *minus, e.qdd, e.lam)) / (2 * STEP)
        measured.exceeds("max|∂r/∂x| (the Jacobian's scale)", np.abs(fd).max(), 1e-3, where=f"{name}, ∂/∂{wrt}")
        measured.check("CasADi ∂r/∂q, ∂r/∂q̇ vs central differences of the engine",
                       np.abs(J - fd).max() / np.abs(fd).max(), DERIVATIVE, "× max|J|", where=f"{name}, ∂/∂{wrt}")


# -- 3. controls -----------------------------------------------------------------------------------------
def _law_values(laws: dict, names, t) -> np.ndarray:
    """u: each named law's (f, ḟ, f̈) at t (a signal: its value), in the order ``names``."""
    out = []
    for name in names:
        v = laws[name](t)
        out.extend(np.ravel(v).astype(float) if isinstance(v, tuple) else [float(v)])
    return np.array(out)


def test_a_control_law_takes_the_values_of_the_law_it_stands_for(cases, rng, measured):
    """The free skater with its three laws (heading, offset, height) left open as ControlLaws,
    asked for in another order than the trace meets them: evaluated with u = the default laws'
    (f, ḟ, f̈) at τ, its CasADi terms (M, Qv, C, Cq, Ċ, Cquad, each force's Q: the friction μN reads
    the height law's f̈) equal the numeric engine's of the skater built with the default laws, at
    the consistent states of modes +1 and 0 and at perturbed ones, to 10⁻¹², and the residual
    vanishes at that engine's (q̈, λ); the friction's derivative with respect to the control z̈ is
    exactly ∂Q/∂z̈ = Q M/((M + m_s) g cos α + M z̈)."""
    p = FreeSkaterParams(**SLOPE)
    laws = default_laws(p)
    laws = {"heading": laws.heading, "offset": laws.offset, "height": laws.height}
    model = FreeSkaterModel(p, "right", np.zeros(3), FreeLaws(*(ControlLaw(n) for n in FREE_CONTROLS)))
    order = ("height", "heading", "offset")
    for mode in (1, 0):
        ref = cases[f"free skater, mode {mode}"]
        terms = casadi_terms(model.system(mode), controls=order)
        assert terms.controls == tuple((n, 3) for n in order) and terms.nu == 9
        assert [terms.control_slice(n) for n in order] == [slice(0, 3), slice(3, 6), slice(6, 9)]
        u = _law_values(laws, order, ref.t)
        e = ref.system.evaluate(ref.t, ref.q, ref.qd)
        _check_terms(measured, terms, ref.system, ref.t, ref.q, ref.qd, e.lam, f"mode {mode:+d}, consistent", u=u)
        dyn, rows = terms.residual(ref.t, ref.q, ref.qd, e.qdd, e.lam, u)
        measured.check("residual with the controls at the engine's (q̈, λ) of the ordinary laws",
                       np.abs(np.concatenate([_dm(dyn), _dm(rows)])).max() / np.abs(e.M @ e.qdd).max(), RESIDUAL,
                       "× max|M q̈|", where=f"mode {mode:+d}")
        t = ref.t + 0.11
        q, qd = ref.q + 0.02 * rng.normal(size=ref.q.size), ref.qd + 0.5 * rng.normal(size=ref.q.size)
        _check_terms(measured, terms, ref.system, t, q, qd, e.lam, f"mode {mode:+d}, perturbed",
                     u=_law_values(laws, order, t))
    # the control z̈ in the friction: ∂Q/∂z̈ = Q M / N, N = (M + m_s) g cos α + M z̈
    ref = cases["free skater, mode 1"]
    terms = casadi_terms(model.system(1), controls=order)
    uu = ca.SX.sym("u", 9)
    QF = terms(ref.t, ref.q, ref.qd, uu)["QF"][terms.force_names.index("friction"), :]
    u = _law_values(laws, order, ref.t)
    dQ = _dm(ca.Function("dQ", [uu], [ca.jacobian(QF, uu)[:, terms.control_slice("height").start + 2]])(u))
    zdd = u[terms.control_slice("height")][2]
    N = (p.body_mass + p.ski_mass) * p.g * math.cos(math.radians(p.slope_deg)) + p.body_mass * zdd
    Q = ref.system.evaluate(ref.t, ref.q, ref.qd).forces["friction"]
    measured.allclose("∂Q_friction/∂z̈ (exact) vs Q M / N", dQ, Q * p.body_mass / N, rtol=TERMS, atol=TERMS)


@pytest.fixture(scope="module")
def driven():
    """A pendulum whose spin ψ about its body z axis is driven by a law, pushed by a line force
    from a ground point: (build(law, magnitude), consistent (t, q, q̇) with the ordinary laws)."""
    def build(law, magnitude, length=0.8):
        bob = sk.RigidBody("bob", 1.3, [2e-3, 3e-3, 4e-3], points={"pivot": [-length, 0.0, 0.0]})
        cons = [sk.Spherical("pivot", bob, "pivot", None, [0.0, 0.0, 0.0]), sk.CoordinateDriver("spin", bob, 5, law)]
        push = sk.LineForce("push", bob, [0.0, 0.0, 0.0], None, [0.5, 0.4, 0.3], magnitude)
        return sk.MultibodySystem([bob], cons, [sk.Gravity(), push])

    system = build(sk.Harmonic(0.2, 0.5, 3.0, 0.1), SineSquaredPulse(20.0, 0.1, 0.5))
    t = 0.3
    q, qd = sk.consistent_initial_conditions(system, t, [0.5, 0.1, -0.6, 0.3, 1.3, 0.0],
                                             [0.2, -0.4, 0.1, 0.7, -0.5, 0.0])
    return build, t, q, qd


LAWS = {"Harmonic": sk.Harmonic(0.2, 0.5, 3.0, 0.1), "Polynomial": sk.Polynomial([0.1, -0.4, 1.5, 0.7])}


@pytest.mark.parametrize("law", list(LAWS))
def test_a_control_law_on_a_coordinate_driver_and_a_control_signal_on_a_force(law, driven, rng, measured):
    """A CoordinateDriver whose law is a ControlLaw and a LineForce whose magnitude is a
    ControlSignal, evaluated with u = (f, ḟ, f̈) of a Harmonic or Polynomial law and the value of a
    sin² pulse: the CasADi terms (the driver's row, its Ct and Cquad; the force's Q) equal the
    numeric engine's of the system built with that law and that pulse, to 10⁻¹², at random
    states and times; the residual vanishes at that engine's (q̈, λ); exactly in u, the driver's
    row q_ψ − f has ∂(C, Ċ, Cquad)/∂(f, ḟ, f̈) = −I and the force ∂Q/∂F = Q/F."""
    build, t0, q0, qd0 = driven
    pulse = SineSquaredPulse(20.0, 0.1, 0.5)
    ref = build(LAWS[law], pulse)
    terms = casadi_terms(build(ControlLaw("spin"), ControlSignal("push")))
    assert terms.controls == (("spin", 3), ("push", 1))  # the trace's order: rows, then forces
    values = {"spin": LAWS[law], "push": pulse}
    for k in range(4):
        t = t0 if k == 0 else rng.uniform(0.0, 1.0)
        q = q0 if k == 0 else q0 + 0.05 * rng.normal(size=6)
        qd = qd0 if k == 0 else qd0 + 0.5 * rng.normal(size=6)
        u = _law_values(values, ("spin", "push"), t)
        e = ref.evaluate(t, q, qd)
        _check_terms(measured, terms, ref, t, q, qd, e.lam, f"{law}, state {k}", u=u)
        dyn, rows = terms.residual(t, q, qd, e.qdd, e.lam, u)
        measured.check("residual with the controls at the engine's (q̈, λ) of the ordinary law",
                       np.abs(np.concatenate([_dm(dyn), _dm(rows)])).max() / np.abs(e.M @ e.qdd).max(), RESIDUAL,
                       "× max|M q̈|", where=f"{law}, state {k}")
    # exact derivatives in u: the driver's row q_ψ − f(t) has ∂(C, Ċ, Cquad)/∂(f, ḟ, f̈) = −I, and
    # the line force is linear in its magnitude, ∂Q/∂F = Q/F
    uu = ca.SX.sym("u", 4)
    T = terms(t0, q0, qd0, uu)
    row = ref.rows("spin").start
    rows = ca.vertcat(T["C"][row], T["Cvel"][row], T["Cquad"][row])
    u = _law_values(values, ("spin", "push"), t0)
    J = _dm(ca.Function("J", [uu], [ca.jacobian(rows, uu)])(u), (3, 4))
    measured.allclose("∂(C, Ċ, Cquad)/∂(f, ḟ, f̈) of the driver's row vs −I", J[:, :3], -np.eye(3),
                      atol=TERMS)
    assert np.array_equal(J[:, 3], np.zeros(3))
    QF = T["QF"][terms.force_names.index("push"), :]
    dQ = _dm(ca.Function("dQ", [uu], [ca.jacobian(QF, uu)[:, 3]])(u))
    measured.allclose("∂Q_push/∂F vs Q/F (a line force is linear in its magnitude)", dQ,
                      ref.evaluate(t0, q0, qd0).forces["push"] / pulse(t0), rtol=TERMS, atol=TERMS)


def test_the_controls_argument_orders_u_and_names_what_is_wrong(driven, measured):
    """``controls=`` sets where each control sits in u (``control_slice``): the same values in
    either order give the same terms; a name the system lacks, a control left unnamed, a repeated
    name or a bare string is a ValueError naming it."""
    build, t, q, qd = driven
    system = build(ControlLaw("spin"), ControlSignal("push"))
    a = casadi_terms(system, controls=("spin", "push"))
    b = casadi_terms(system, controls=("push", "spin"))
    assert a.function is not b.function  # another layout of u, another function
    assert (a.control_slice("spin"), a.control_slice("push")) == (slice(0, 3), slice(3, 4))
    assert (b.control_slice("push"), b.control_slice("spin")) == (slice(0, 1), slice(1, 4))
    spin, push = np.array([0.3, -0.2, 1.1]), np.array([12.0])
    ta, tb = a(t, q, qd, np.concatenate([spin, push])), b(t, q, qd, np.concatenate([push, spin]))
    for k in BLOCKS:
        measured.allclose("terms with u in either order", _dm(tb[k]), _dm(ta[k]), rtol=TERMS, atol=TERMS, where=k)
    with pytest.raises(ValueError, match=r"has no \['extra'\]"):
        casadi_terms(system, controls=("spin", "push", "extra"))
    with pytest.raises(ValueError, match=r"\['push'\] not named"):
        casadi_terms(system, controls=("spin",))
    with pytest.raises(ValueError, match="distinct control names"):
        casadi_terms(system, controls=("spin", "push", "spin"))
    with pytest.raises(ValueError, match="distinct control names"):
        casadi_terms(system, controls="spin")
    with pytest.raises(ValueError, match="no control 'height'"):
        a.control_slice("height")


# -- 4. refusals -------------------------------------------------------------------------------------------
def test_what_does_not_trace_or_has_no_value_is_refused_by_name(driven):
    """Each a ValueError naming the offending force, path or control: a PointForce or Torque (an
    arbitrary callable of the state), a FromCallables driver law or a plain-callable magnitude
    (evaluated numerically), a friction on a load with the run-time sliding sign, a law and a
    signal of one name; a ControlLaw or ControlSignal asked for a number, the numeric engine and
    compile_system on a system holding a control; an empty u (the controls left out), q, q̇ or c,
    which CasADi would read as zeros."""
    build, t, q, qd = driven
    bob = build(0.0, SineSquaredPulse(1.0, 0.0, 1.0)).bodies[0]
    gravity = sk.Gravity()
    pivot = sk.Spherical("pivot", bob, "pivot", None, [0.0, 0.0, 0.0])
    user = sk.PointForce("user_push", bob, [0.0, 0.0, 0.0], lambda s: np.array([1.0, 0.0, 0.0]))
    with pytest.raises(ValueError, match="forces user_push: not traceable"):
        casadi_terms(sk.MultibodySystem([bob], [pivot], [gravity, user]))
    twist = sk.Torque("twist", bob, lambda s: np.array([0.0, 0.0, 1.0]))
    with pytest.raises(ValueError, match="forces twist: not traceable"):
        casadi_terms(sk.MultibodySystem([bob], [pivot], [twist, gravity]))
    law = sk.FromCallables(np.sin, np.cos, lambda x: -np.sin(x))
    with pytest.raises(ValueError, match="constraints/1/law: evaluated numerically"):
        casadi_terms(build(law, SineSquaredPulse(1.0, 0.0, 1.0)))
    with pytest.raises(ValueError, match="forces/1/magnitude: evaluated numerically"):
        casadi_terms(build(0.2, lambda t: 3.0))
    block, _ = _block_on_incline(0.3, 0.2, 0.0, 0.0)  # sign=None: sgn(v) at run time
    with pytest.raises(ValueError, match="forces friction: not traceable"):
        casadi_terms(block)
    with pytest.raises(ValueError, match="forces/1/magnitude: two controls are named 'spin'"):
        casadi_terms(build(ControlLaw("spin"), ControlSignal("spin")))
    for x in (0.3, np.float64(0.3), np.array(0.3), 1):
        with pytest.raises(ValueError, match="spin: a control law has no value"):
            ControlLaw("spin")(x)
    with pytest.raises(ValueError, match="push: a control signal has no value"):
        ControlSignal("push")(0.3)
    with pytest.raises(ValueError, match="a control's name must be an identifier"):
        ControlLaw("not a name")
    with_control = build(ControlLaw("spin"), SineSquaredPulse(1.0, 0.0, 1.0))
    with pytest.raises(ValueError, match="spin: a control law has no value"):
        with_control.evaluate(t, q, qd)
    with pytest.raises(ValueError, match="controls spin: a system with a ControlLaw or ControlSignal cannot"):
        compile_system(with_control, backend="python")
    with pytest.raises(ValueError, match="controls push: a system with a ControlLaw or ControlSignal cannot"):
        compile_system(build(0.2, ControlSignal("push")), backend="python")
    # CasADi reads an empty input as zeros: the controls left out (u's default) would silently be
    # f = ḟ = f̈ = 0, and an empty q, q̇ or c all zeros; each is refused by name instead
    terms = casadi_terms(build(ControlLaw("spin"), ControlSignal("push")))
    for call in (lambda: terms(t, q, qd), lambda: terms.residual(t, q, qd, np.zeros(6), np.zeros(4)),
                 lambda: terms.accelerations(t, q, qd), lambda: terms.forces(t, q, qd, np.zeros(4), np.zeros(0))):
        with pytest.raises(ValueError, match=r"u: empty, where the terms take 4 values \(the controls spin, push"):
            call()
    u = np.zeros(4)
    for name, args, kw in (("q", (t, [], qd, u), {}), ("qd", (t, q, np.zeros(0), u), {}),
                           ("c", (t, q, qd, u), {"c": []})):
        with pytest.raises(ValueError, match=f"{name}: empty, where the terms take"):
            terms(*args, **kw)
    assert float(terms(t, q, qd, [0.0, 0.0, 2.5, 0.0])["Cquad"][3]) == -2.5  # the driver's row: Cquad = −f̈


# -- 5. one function per structure ------------------------------------------------------------------------
def test_one_casadi_function_serves_every_system_of_one_structure(measured):
    """Pendulums of two lengths, masses and gravities (and swing states): one CasADi function,
    two parameter vectors c; each system's terms and solve equal its numeric engine's (one's
    parameters at the other's state give another mass matrix); another rotation parametrization is
    another function."""
    a = examples.pendulum(length=0.8, mass=1.3, angle_deg=60.0, angle_rates=(0.4, 0.9, -0.6))
    b = examples.pendulum(length=1.1, mass=2.1, angle_deg=35.0, angle_rates=(-0.3, 0.5, 0.2), g=9.7)
    ta, tb = casadi_terms(a.system), casadi_terms(b.system)
    assert ta.function is tb.function
    assert ta.params.shape == tb.params.shape and not np.array_equal(ta.params, tb.params)
    for ex, terms, what in ((a, ta, "ℓ = 0.8 m"), (b, tb, "ℓ = 1.1 m")):
        e = ex.system.evaluate(0.3, ex.q0, ex.qd0)
        _check_terms(measured, terms, ex.system, 0.3, ex.q0, ex.qd0, e.lam, what)
        qdd, lam = terms.accelerations(0.3, ex.q0, ex.qd0)
        measured.check("one function, each system's q̈ vs its numeric engine",
                       np.abs(_dm(qdd) - e.qdd).max() / np.abs(e.qdd).max(), SOLVE, "× max|q̈|", where=what)
    # the numbers live in c, not in the function: b's state with a's parameters is another pendulum
    M_b = b.system.mass_matrix(b.q0)
    measured.exceeds("|M| at b's state: a's parameters vs b's", np.abs(_dm(ta(0.3, b.q0, b.qd0)["M"], M_b.shape)
                                                                         - M_b).max(), 0.5, "kg")
    assert casadi_terms(examples.pendulum(rotation="euler_parameters").system).function is not ta.function
