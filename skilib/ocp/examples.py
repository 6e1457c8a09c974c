"""A problem of optimal control whose optimum is known in closed form, solved by the same
collocation as the skaters (``HermiteSimpson``): the least-effort transfer of a sprung, damped
slider.  Shared by the tests and the book's chapter "Optimal control".

The slider is a rigid body of mass m held on the X axis by five rows (its Y, Z and three angles),
pulled towards the origin by a spring–damper (stiffness k, damping c) and pushed along X by a
control force F (a ``ControlSignal``): ẍ = (F − k x − c ẋ)/m, a linear system ṡ = A s + B F of
s = (x, ẋ).  Moved from rest at x₀ to rest at x₁ in time T with the least ∫F² dt, its optimum is

    J* = dᵀ W⁻¹ d,   F*(t) = Bᵀ e^{Aᵀ(T − t)} W⁻¹ d,   d = s₁ − e^{AT} s₀,
    W = ∫₀ᵀ e^{Aτ} B Bᵀ e^{Aᵀτ} dτ        (the controllability Gramian)

(Kirk 1970, §5.2; W by Van Loan's block exponential, ``least_effort``).  The spring's line stays
on the X axis (x > 0 throughout), where its force −k x − c ẋ is exactly linear.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from ..engine.bodies import RigidBody
from ..engine.codegen.casadi_terms import casadi_terms, require_casadi
from ..engine.constraints import FixedCoordinate
from ..engine.controls import ControlSignal
from ..engine.forces import AxisForce, SpringDamper
from ..engine.system import MultibodySystem
from .collocation import HermiteSimpson

__all__ = ["sprung_slider", "least_effort", "least_effort_transfer", "SLIDER"]

#: the slider's numbers: mass [kg], stiffness [N/m], damping [N s/m], duration [s], start and end
#: states (x [m], ẋ [m/s])
SLIDER = dict(mass=2.0, stiffness=3.0, damping=0.8, duration=1.5, start=(1.0, 0.0), end=(2.0, 0.0))


def sprung_slider(mass=SLIDER["mass"], stiffness=SLIDER["stiffness"], damping=SLIDER["damping"]) -> MultibodySystem:
    """The slider as an engine system: a rigid body, five holding rows, the spring–damper to the
    origin and the control force ``push`` along X."""
    body = RigidBody("slider", mass, [0.1, 0.1, 0.1])
    rows = [FixedCoordinate(f"hold{i}", body, i, 0.0) for i in (1, 2, 3, 4, 5)]
    forces = [SpringDamper("spring", None, [0, 0, 0], body, [0, 0, 0], stiffness, damping),
              AxisForce("push", body, [0, 0, 0], [1, 0, 0], ControlSignal("push"))]
    return MultibodySystem([body], rows, forces)


def least_effort(mass=SLIDER["mass"], stiffness=SLIDER["stiffness"], damping=SLIDER["damping"],
                 duration=SLIDER["duration"], start=SLIDER["start"], end=SLIDER["end"]):
    """(J*, F*): the least ∫F² dt and the optimal force as a function of t (the module's
    docstring), from the matrix exponentials."""
    A = np.array([[0.0, 1.0], [-stiffness / mass, -damping / mass]])
    B = np.array([[0.0], [1.0 / mass]])
    E = sl.expm(np.block([[-A, B @ B.T], [np.zeros((2, 2)), A.T]]) * duration)
    W = E[2:, 2:].T @ E[:2, 2:]
    d = np.asarray(end, float) - sl.expm(A * duration) @ np.asarray(start, float)
    w = np.linalg.solve(W, d)
    return float(d @ w), lambda t: float((B.T @ sl.expm(A.T * (duration - t)) @ w)[0])


def least_effort_transfer(nodes: int, *, duration=SLIDER["duration"], start=SLIDER["start"], end=SLIDER["end"],
                          system: MultibodySystem | None = None) -> dict:
    """The transfer collocated on ``nodes`` intervals (the force a variable at every knot and
    midpoint) and solved by IPOPT: {cost, force (at the knots), t (the knots), max_slack, status}."""
    ca = require_casadi()
    terms = casadi_terms(sprung_slider() if system is None else system)
    N = int(nodes)
    opti = ca.Opti()
    Uk, Um = opti.variable(1, N + 1), opti.variable(1, N)
    hs = HermiteSimpson(opti, terms, N, duration, controls=(Uk, Um))
    hs.on_rows(0)
    opti.set_initial(hs.Q[0, :], np.linspace(start[0], end[0], N + 1))  # the spring's length must not vanish
    hs.start_midpoints()
    opti.subject_to(hs.Q[0, 0] == start[0])
    opti.subject_to(hs.V[0, 0] == start[1])
    opti.subject_to(hs.Q[0, N] == end[0])
    opti.subject_to(hs.V[0, N] == end[1])
    opti.minimize(hs.simpson_rows(Uk**2, Um**2))
    opti.solver("ipopt", {"print_time": False, "error_on_fail": False},
                {"print_level": 0, "tol": 1e-12, "sb": "yes"})
    sol = opti.solve()
    return dict(cost=float(sol.value(opti.f)), force=np.ravel(sol.value(Uk)), t=np.linspace(0.0, duration, N + 1),
                max_slack=hs.solution(sol)["max_slack"], status=str(opti.stats()["return_status"]))
