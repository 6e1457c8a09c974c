"""Generated eq. 101 terms equal the numeric engine's, for every component and parametrization."""
import numpy as np
import pytest

import skilib as sk
from skilib.codegen import compile_system
from test_constraints import all_constraints


@pytest.mark.parametrize("rotation", ["zxz", "euler_parameters"])
def test_generated_terms_match_numeric_engine(rng, rotation):
    b1 = sk.RigidBody("one", 2.0, [0.1, 0.2, 0.15], points={"p": [0.1, -0.2, 0.3]}, rotation=rotation)
    b2 = sk.RigidBody("two", 3.0, [0.3, 0.1, 0.25], points={"p": [-0.3, 0.1, 0.2]}, rotation=rotation)
    cons = [c for c in all_constraints(b1, b2) if not isinstance(c, sk.CoordinateDriver) or rotation == "zxz"]
    # a user law that sympy cannot trace becomes a numeric input of the generated code
    opaque = sk.FromCallables(lambda t: 0.4 + np.tanh(t), lambda t: 1 - np.tanh(t) ** 2,
                              lambda t: -2 * np.tanh(t) * (1 - np.tanh(t) ** 2))
    cons.append(sk.DistanceDriver("opaque", b2, [0, 0, 0], None, [1, 1, 1], opaque))
    for c in cons:
        system = sk.MultibodySystem([b1, b2], [c], [sk.Gravity()])
        compiled = compile_system(system, use_numba=False)
        # only the opaque law is a numeric input; polynomials and rotation paths are traced
        assert len(compiled.inputs) == (c.name == "opaque")
        for _ in range(2):
            q = rng.normal(size=system.nq)
            if rotation == "zxz":
                q[[4, 10]] = rng.uniform(0.4, 2.7, size=2)
            qd = rng.normal(size=system.nq)
            t = rng.uniform(0, 1)
            out = compiled._evaluate(t, q, qd)
            jet = system.constraint_jet(t, q, qd)
            ref = {"M": system.mass_matrix(q), "Qv": system.quadratic_velocity(q, qd), "C": jet.val,
                   "Cq": jet.J, "Cvel": jet.vel, "Cquad": jet.quad}
            for k, v in ref.items():
                np.testing.assert_allclose(out[k], v, rtol=1e-12, atol=1e-12, err_msg=f"{c.name}: {k}")


def test_compiled_system_integrates_like_the_numeric_one():
    from test_dynamics import pendulum, planar_pendulum_state

    bob, system = pendulum()
    q0, qd0 = sk.consistent_initial_conditions(system, 0.0, planar_pendulum_state(0.8, 1.0),
                                               [0, 0, 0, 1.0, 0.2, -0.5], independent=[3, 4, 5])
    kw = dict(rtol=1e-10, atol=1e-12, t_eval=np.linspace(0, 1, 11))
    a = sk.solve_dynamics(system, (0, 1), q0, qd0, **kw)
    b = sk.solve_dynamics(compile_system(system, use_numba=False), (0, 1), q0, qd0, **kw)
    np.testing.assert_allclose(b.q, a.q, atol=1e-12)
    np.testing.assert_allclose(b.lam, a.lam, rtol=1e-10, atol=1e-10)
