"""Generated eq. 101 terms equal the numeric engine's, for every component, force and
parametrization; a kernel compiled for one system is exact for every other system of the
same structure (no parameter is baked into the cached code)."""
from pathlib import Path

import numpy as np
import pytest

import skilib as sk
from skilib.engine import codegen
from skilib.engine.codegen import compile_system
from test_constraints import all_constraints

#: the compiled kernels against the engine's numeric evaluation: the margin rule of tests/conftest.py ("Margins")
pytestmark = pytest.mark.cross_path


def _bodies(rotation, scale=1.0):
    b1 = sk.RigidBody("one", 2.0 * scale, [0.15, 0.2 * scale, 0.2], points={"p": [0.1, -0.2 * scale, 0.3]},
                      rotation=rotation)
    b2 = sk.RigidBody("two", 3.0, [0.3 * scale, 0.2, 0.35], points={"p": [-0.3, 0.1, 0.2 * scale]}, rotation=rotation)
    return b1, b2


def _forces(b1, b2, scale=1.0):
    return [sk.Gravity(g=(0.1 * scale, 0.0, -9.81)),
            sk.ConstantForce("const", b1, "p", [1.0 * scale, -2.0, 0.5]),
            sk.LineForce("line", b2, "p", b1, [0.0, 0.1, 0.0], lambda t, a=scale: 3.0 * a + np.sin(t)),
            sk.Drag("drag", b2, [0.1, 0.0, 0.0], rho=1.2, cda=0.5 * scale),
            sk.SpringDamper("spring", b1, "p", b2, [0.0, 0.0, 0.1], 40.0 * scale, 2.0, 0.3)]


def _random_state(rng, system, rotation):
    q = rng.normal(size=system.nq)
    if rotation == "zxz":
        q[[4, 10]] = rng.uniform(0.4, 2.7, size=2)
    return q, rng.normal(size=system.nq), rng.uniform(0, 1)


def _check_terms(measured, compiled, system, t, q, qd, alpha=3.0, beta=4.0):
    """The compiled kernel's Evaluation of eq. 101 against the numeric engine's: every term,
    the solved q̈ and λ, and the powers (one measured quantity each)."""
    got = compiled.evaluate(t, q, qd, alpha, beta)
    ref = system.evaluate(t, q, qd, alpha, beta)
    what = "generated M, Qv, C, Cq, Ċ, Qd, Q vs engine"
    for k in ("M", "Qv", "C", "Cq", "Cdot", "quad"):
        measured.allclose(what, getattr(got, k), getattr(ref, k), rtol=1e-12, atol=1e-12, where=k)
    assert set(got.forces) == set(ref.forces)
    for name, Q in ref.forces.items():
        measured.allclose(what, got.forces[name], Q, rtol=1e-12, atol=1e-12, where=name)
    scale = 1.0 + np.abs(ref.qdd).max() + np.abs(ref.lam).max()
    measured.check("solved q̈ and λ vs engine",
                   max(np.abs(got.qdd - ref.qdd).max(), np.abs(got.lam - ref.lam).max()) / scale, 1e-11, "× scale")
    # the powers left by the same call: Q_f·q̇, −λ_r (Cq q̇)_r and λ_r Ct_r
    ref_pw = np.concatenate([[ref.force_power[f] for f in got.force_names], ref.row_power, ref.row_power_ct])
    measured.check("powers Q·q̇, −λ(Cq q̇), λCt vs engine",
                   np.abs(got.powers - ref_pw).max() / (1.0 + np.abs(ref_pw).max()), 1e-10, "× (1 + max|ref|)")
    return got


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["python", "c"])
@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_generated_terms_match_numeric_engine(rng, rotation, backend, measured):
    """Every generated term of eq. 101 (M, Qv, C, Cq, Ċ, Qd, each force's Q), the kernel's
    solved q̈ and λ and its powers equal the numeric engine's, for every constraint component
    and force, in ZXZ angles and Euler parameters, with the Python and the C backend."""
    if backend == "c" and codegen.c_compiler() is None:
        pytest.skip("no C compiler")
    b1, b2 = _bodies(rotation)
    cons = [c for c in all_constraints(b1, b2) if not isinstance(c, sk.CoordinateDriver) or rotation == "zxz"]
    # a user law that sympy cannot trace becomes a numeric input of the generated code
    opaque = sk.FromCallables(lambda t: 0.4 + np.tanh(t), lambda t: 1 - np.tanh(t) ** 2,
                              lambda t: -2 * np.tanh(t) * (1 - np.tanh(t) ** 2))
    cons.append(sk.DistanceDriver("opaque", b2, [0, 0, 0], None, [1, 1, 1], opaque))
    for c in cons:
        system = sk.MultibodySystem([b1, b2], [c], _forces(b1, b2))
        compiled = compile_system(system, backend=backend)
        assert compiled.backend == backend
        # every force here is traced; the opaque law (3 values) and the LineForce magnitude
        # are the only numeric inputs
        assert not compiled.numeric_forces
        assert compiled.kernel.n_inputs == 1 + 3 * (c.name == "opaque")
        for _ in range(2):
            q, qd, t = _random_state(rng, system, rotation)
            _check_terms(measured, compiled, system, t, q, qd)


@pytest.mark.parametrize("backend", ["python", "c"])
def test_one_kernel_serves_every_system_of_the_same_structure(rng, backend, measured):
    """Different masses, inertias, points, axes, law coefficients and force magnitudes:
    one compiled kernel, and each system's terms still equal its own numeric ones."""
    if backend == "c" and codegen.c_compiler() is None:
        pytest.skip("no C compiler")
    kernels = set()
    for scale in (1.0, 1.7, 0.6):
        b1, b2 = _bodies("zxz", scale)
        ang = sk.Polynomial([0.1 * scale, 0.7, -0.4])
        cons = [sk.Revolute("rev", b1, "p", [0, 0.2 * scale, 1], b2, "p", [0.3, 0.2, 1.0]),
                sk.OrientationDriver("orient", b1, sk.RotationPath(sk.rotation_matrix([0.2, 1.3 * scale, 0.4]),
                                                                    [0.3, 1, 0.2 * scale], ang))]
        system = sk.MultibodySystem([b1, b2], cons, _forces(b1, b2, scale))
        compiled = compile_system(system, backend=backend)
        kernels.add(id(compiled.kernel))
        q, qd, t = _random_state(rng, system, "zxz")
        _check_terms(measured, compiled, system, t, q, qd)
        qdd, lam = system.accelerations(t, q, qd, 3.0, 4.0)
        qdd_c, lam_c = compiled.accelerations(t, q, qd, 3.0, 4.0)
        measured.allclose("solved q̈ vs engine", qdd_c, qdd, rtol=1e-10, atol=1e-10)
        measured.allclose("solved λ vs engine", lam_c, lam, rtol=1e-10, atol=1e-10)
    assert len(kernels) == 1


def test_untraceable_forces_stay_numeric_and_closures_are_not_baked(rng, measured):
    """A PointForce is an arbitrary callable of the state: it is evaluated numerically, so
    two systems whose callables differ only in a closure value give different results."""
    out = []
    for k in (1.0, 5.0):
        b1, b2 = _bodies("zxz")
        f = sk.PointForce("user", b1, "p", lambda s, k=k: np.array([k, 0.0, -k * s.t]))
        system = sk.MultibodySystem([b1, b2], [sk.Spherical("sph", b1, "p", b2, "p")], [f, sk.Gravity()])
        compiled = compile_system(system, use_numba=False)
        assert [g.name for g in compiled.numeric_forces] == ["user"]
        q, qd, t = _random_state(np.random.default_rng(3), system, "zxz")
        qdd, lam = system.accelerations(t, q, qd)
        qdd_c, lam_c = compiled.accelerations(t, q, qd)
        measured.allclose("q̈ with a numeric user force vs engine", qdd_c, qdd, rtol=1e-11, atol=1e-11)
        _check_terms(measured, compiled, system, t, q, qd)  # its Q and power in the Evaluation too
        out.append(qdd_c.copy())
    measured.exceeds("q̈ difference between the two closures", np.abs(out[0] - out[1]).max(), 1e-3)


def test_compiled_system_integrates_like_the_numeric_one(measured):
    """A pendulum integrated with the compiled kernel gives the numeric engine's q and λ."""
    from test_dynamics import pendulum, planar_pendulum_state

    bob, system = pendulum()
    q0, qd0 = sk.consistent_initial_conditions(system, 0.0, planar_pendulum_state(0.8, 1.0),
                                               [0, 0, 0, 1.0, 0.2, -0.5], independent=[3, 4, 5])
    kw = dict(rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 1, 11))
    a = sk.solve_dynamics(system, (0, 1), q0, qd0, **kw)
    b = sk.solve_dynamics(compile_system(system, use_numba=False), (0, 1), q0, qd0, **kw)
    measured.allclose("q: compiled vs numeric run", b.q, a.q, atol=1e-12)
    measured.allclose("λ: compiled vs numeric run", b.lam, a.lam, rtol=1e-10, atol=1e-10)


@pytest.mark.slow
def test_numba_kernel_is_written_to_the_cache_and_reloaded(tmp_path, monkeypatch, rng, measured):
    """With numba the kernel is a module in the cache folder; another process (simulated by
    clearing the in-memory cache) loads it instead of tracing again, with equal results."""
    pytest.importorskip("numba")
    from test_dynamics import pendulum

    monkeypatch.setenv("SKILIB_CACHE_DIR", str(tmp_path))
    codegen.clear_kernel_cache()
    bob, system = pendulum()
    q, qd, t = rng.normal(size=system.nq), rng.normal(size=system.nq), 0.3
    q[4] = 1.0
    first = compile_system(system, use_numba=True)
    assert first.backend == "numba" and first.kernel.path.parent == tmp_path / "kernels"
    assert first.kernel.path.exists()
    a = first.accelerations(t, q, qd, 2.0, 3.0)
    codegen.clear_kernel_cache()
    second = compile_system(system, use_numba=True)
    assert second.kernel is not first.kernel and second.kernel.path == first.kernel.path
    b = second.accelerations(t, q, qd, 2.0, 3.0)
    ref = system.accelerations(t, q, qd, 2.0, 3.0)
    for x, y, r in zip(a, b, ref):
        np.testing.assert_array_equal(x, y)
        measured.allclose("q̈, λ from the reloaded numba kernel vs engine", x, r, rtol=1e-11, atol=1e-11)
    codegen.clear_kernel_cache()


def test_c_kernel_is_cached_on_disk_and_loaded_without_sympy(tmp_path):
    """A second process loads the compiled library instead of tracing: checked in a fresh
    interpreter, which must not even import sympy, and gets the same accelerations."""
    import subprocess
    import sys

    if codegen.c_compiler() is None:
        pytest.skip("no C compiler")
    prog = (
        "import sys, numpy as np\n"
        "from test_dynamics import pendulum\n"
        "from skilib.engine.codegen import compile_system\n"
        "bob, system = pendulum()\n"
        "c = compile_system(system, backend='c')\n"
        "q = np.array([0.5, 0.1, -0.6, 0.2, 1.0, -0.3]); qd = np.array([0.3, -0.2, 0.1, 0.5, -0.4, 0.2])\n"
        "qdd, lam = c.accelerations(0.3, q, qd, 2.0, 3.0)\n"
        "print(repr(qdd.tolist()), repr(lam.tolist()), 'sympy' in sys.modules, c.kernel.path.name)\n"
    )
    env = {**__import__("os").environ, "SKILIB_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(Path(__file__).parent)}
    first = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=env, check=True)
    second = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=env, check=True)
    a, b = first.stdout.split(), second.stdout.split()
    assert a[-2] == "True" and b[-2] == "False"  # traced (sympy) the first time, loaded the second
    assert a[:-2] == b[:-2] and a[-1] == b[-1]
    assert sorted(p.suffix for p in (tmp_path / "kernels").iterdir()) == [".c", ".json", ".so"]


def test_singular_augmented_matrix_is_reported_by_every_backend(rng):
    """Two spherical joints at the same point: dependent rows, a singular eq. 101 matrix."""
    from test_dynamics import pendulum

    bob, system = pendulum()
    twice = sk.MultibodySystem([bob], system.constraints + [sk.Spherical("again", bob, "pivot", None, [0, 0, 0])],
                               system.forces)
    q, qd = rng.normal(size=6), rng.normal(size=6)
    q[4] = 1.0
    backends = ["python", "c"] if codegen.c_compiler() else ["python"]
    for backend in backends:
        cs = compile_system(twice, backend=backend)
        with pytest.raises(sk.SingularSystemError, match="linearly dependent"):
            cs.accelerations(0.0, q, qd)
        if backend == "c":  # the sparse elimination stops at the dense one's column
            ctx = cs.kernel_context[1]
            assert cs.kernel._lib.eom_ctx(0.0, 0.0, 0.0, ctx) == cs.kernel._lib.eom_dense_ctx(0.0, 0.0, 0.0, ctx) > 0


def test_bad_system_argument():
    with pytest.raises(ValueError, match="system: expected a MultibodySystem"):
        compile_system("not a system")
    bob = sk.RigidBody("b", 1.0, [1, 1, 1])
    with pytest.raises(ValueError, match="backend: must be one of"):
        compile_system(sk.MultibodySystem([bob]), backend="fortran")


def test_fourier_push_force_is_compiled_into_the_kernel(rng, measured):
    """The push-off (a Fourier series, eq. 102) writes itself symbolically: no numeric input
    remains, its coefficients are kernel parameters (one kernel for every phase time and
    force scale), and the generated forces equal the numeric ones."""
    from skilib.data.push import default_push_force
    from skilib.models.thesis.push import ScaledPush
    from skilib.models.thesis import SkierModel, SkierParams

    kernels, p = set(), SkierParams()
    for F in (default_push_force(1.0), default_push_force(0.6), ScaledPush(default_push_force(2.0), 0.5)):
        model = SkierModel(p, -0.4, "right", np.zeros(3), F)
        system = model.system(1)
        compiled = compile_system(system, backend="python")
        assert compiled.kernel.n_inputs == 0
        kernels.add((id(compiled.kernel), type(F).__name__))
        q, qd, t = model.pose(0.3, 0.1), rng.normal(size=system.nq), 0.3
        _check_terms(measured, compiled, system, t, q, qd)
    assert len({k for k, _ in kernels}) == 2  # the plain and the scaled push: two structures
    # a scaled plain callable cannot be traced: it stays a numeric input, still exact
    model = SkierModel(p, -0.4, "right", np.zeros(3), ScaledPush(lambda tau: 300.0 + 50.0 * tau, 0.5))
    compiled = compile_system(model.system(1), backend="python")
    assert compiled.kernel.n_inputs == 1
    _check_terms(measured, compiled, model.system(1), 0.3, model.pose(0.3, 0.1), rng.normal(size=18))


def test_a_rotation_path_with_an_untraceable_angle_is_an_input_not_baked(rng, measured):
    """A RotationPath whose angle law is a user's FromCallables: the angle is a numeric input of
    the kernel, so two systems that differ only in that closure share one kernel and each
    equals its own numeric engine (nothing of the first is baked into the kernel)."""
    out = []
    for k in (1.0, -2.0):
        law = sk.FromCallables(lambda t, k=k: k * np.sin(t), lambda t, k=k: k * np.cos(t),
                               lambda t, k=k: -k * np.sin(t))
        b1, b2 = _bodies("euler_parameters")
        system = sk.MultibodySystem([b1, b2], [sk.OrientationDriver("turn", b1, sk.RotationPath(np.eye(3), [0, 0, 1], law))],
                                    [sk.Gravity()])
        compiled = compile_system(system, backend="python")
        q, qd, t = rng.normal(size=system.nq), rng.normal(size=system.nq), 0.7
        _check_terms(measured, compiled, system, t, q, qd)
        out.append(compiled.evaluate(t, q, qd, 3.0, 4.0).C.copy())
    measured.exceeds("C of the two closures differs", np.abs(out[0] - out[1]).max(), 1e-3)
