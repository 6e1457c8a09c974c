"""Example systems built from the engine's public parts, with their invariants.

Small multibody systems whose motion is known independently of the engine: the tests, the
notebook ``01_theory_checks`` and the README use them (in the spirit of sympy's and PyDy's
``models`` modules).  Each function returns an :class:`Example`: the ``system``, consistent
initial conditions ``q0``, ``qd0`` (C = 0 and Cq q̇ + Ct = 0, eqs. 19/95 of Bruzzo 2012,
solved by ``consistent_initial_conditions``), the ``bodies`` by name, the ``params`` used,
and the example's invariants as methods (``energy`` for all; ``angular_momentum_z`` where
the vertical through the fixed point is an axis of symmetry; the heavy top's L₃ as well).

* :func:`pendulum` — a bob on a massless rod from a spherical joint at the origin;
* :func:`heavy_top` — a symmetric top on a spherical pivot, its axis passing through the
  vertical (where ZXZ angles lock);
* :func:`double_pendulum` — a 3-D double pendulum of spherical joints whose links carry
  point masses, the system of Al-Zube (2004) in absolute coordinates.

>>> import numpy as np
>>> from skilib.engine import examples
>>> ex = examples.pendulum(length=0.8, mass=1.3, angle_deg=60.0)
>>> bool(np.allclose(ex.q0[:3], [0.8 * np.sin(np.pi / 3), 0.0, -0.4]))   # the bob, 60° out
True
>>> print(f"{ex.energy(ex.q0, ex.qd0):.4f} J")    # at rest: m g z = 1.3 · 9.81 · (−0.4)
-5.1012 J
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .bodies import RigidBody
from .constraints import Spherical
from .forces import Gravity
from .rotation import ZXZ
from .solver import consistent_initial_conditions
from .system import MultibodySystem

__all__ = ["Example", "HeavyTop", "DoublePendulum", "pendulum", "heavy_top", "double_pendulum"]


@dataclass
class Example:
    """A system with consistent initial conditions and its invariants.

    Attributes
    ----------
    system : MultibodySystem
    q0, qd0
        consistent initial coordinates and velocities at t = 0
    bodies : {name: RigidBody}
    params
        the parameters the example was built with (SI units), and derived ones
    """

    system: MultibodySystem
    q0: np.ndarray
    qd0: np.ndarray
    bodies: dict
    params: dict = field(default_factory=dict)

    @property
    def g(self) -> float:
        return float(self.params["g"])

    def potential_energy(self, q) -> float:
        """Σ m g z of the centres of mass (gravity −g ẑ, zero at z = 0), J."""
        return float(sum(b.mass * self.g * q[self.system.slice(b)][2] for b in self.bodies.values()))

    def energy(self, q, qd) -> float:
        """Total energy T + V (J): kinetic energy of all bodies plus Σ m g z."""
        return float(self.system.kinetic_energy(q, qd) + self.potential_energy(q))

    def angular_momentum(self, q, qd) -> np.ndarray:
        """Angular momentum of all bodies about the global origin, global components."""
        return sum(b.angular_momentum(q[self.system.slice(b)], qd[self.system.slice(b)])
                   for b in self.bodies.values())

    def angular_momentum_z(self, q, qd) -> float:
        """L_z, the vertical component of the angular momentum about the origin: an invariant
        wherever the only external forces are gravity and reactions at the origin."""
        return float(self.angular_momentum(q, qd)[2])


def _hanging_frame(angle):
    """Body x from the pivot towards the bob at ``angle`` from the downward vertical in the
    x–z plane; body z = −global y (the swing axis of a planar swing), body y = z × x."""
    bx = np.array([np.sin(angle), 0.0, -np.cos(angle)])
    bz = np.array([0.0, -1.0, 0.0])
    return np.column_stack([bx, np.cross(bz, bx), bz])


def pendulum(length=0.8, mass=1.3, inertia=2e-3, angle_deg=60.0, rotation="zxz", g=9.81,
             angle_rates=(0.0, 0.0, 0.0)) -> Example:
    """A bob on a massless rod, hung from a spherical joint at the origin.

    The bob (``mass`` kg, central inertia ``inertia`` kg m² about every axis) has its point
    'pivot' at ū = (−length, 0, 0): body x runs from the pivot towards the bob and body z is
    the swing axis (global −y) of a planar swing, so the ZXZ angle θ stays at 90° in that
    swing, far from gimbal lock.  It starts ``angle_deg`` from the downward vertical in the
    global x–z plane (x > 0), with the angular velocity ω = G(θ)θ̇ that the ZXZ angle rates
    ``angle_rates`` = (φ̇, θ̇, ψ̇) give there (eq. 29); any rates take the swing out of the
    plane, making it a spherical pendulum.  ``rotation`` = "euler_parameters" gives the bob
    Euler parameters, started in the same physical state.

    Invariants: the energy ½mṘ² + ½ω̄ᵀĪω̄ + mgz and L_z (gravity and the pivot reaction
    have no moment about the vertical through the pivot).  A planar swing of amplitude θ₀
    has the period 4√(ℓₑ/g) K(sin θ₀/2), ℓₑ = (I + mℓ²)/(mℓ).

    >>> from skilib.engine import examples, solve_dynamics
    >>> ex = examples.pendulum(angle_deg=60.0)
    >>> res = solve_dynamics(ex.system, (0.0, 2.0), ex.q0, ex.qd0, method="DOP853", rtol=1e-10, atol=1e-12)
    >>> energy = [ex.energy(q, v) for q, v in zip(res.q, res.qd)]
    >>> bool(abs(energy[-1] - energy[0]) < 1e-6 and res.constraint_norm.max() < 1e-8)
    True
    """
    bob = RigidBody("bob", mass, [inertia] * 3, points={"pivot": [-length, 0.0, 0.0]}, rotation=rotation)
    system = MultibodySystem([bob], [Spherical("pivot", bob, "pivot", None, [0.0, 0.0, 0.0])],
                             [Gravity((0.0, 0.0, -g))])
    angle = np.radians(angle_deg)
    A = _hanging_frame(angle)
    omega = ZXZ.G(ZXZ.from_matrix(A)) @ np.asarray(angle_rates, dtype=float)
    th = bob.rotation.from_matrix(A)
    arm = length * A[:, 0]
    q = np.concatenate([arm, th])
    qd = np.concatenate([np.cross(omega, arm), bob.rotation.rates(th, omega)])
    q0, qd0 = consistent_initial_conditions(system, 0.0, q, qd)
    return Example(system, q0, qd0, {"bob": bob},
                   dict(length=length, mass=mass, inertia=inertia, angle_deg=angle_deg, rotation=rotation,
                        g=g, angle_rates=tuple(angle_rates), omega0=omega))


@dataclass
class HeavyTop(Example):
    """The heavy symmetric top of :func:`heavy_top` with its three invariants."""

    @property
    def top(self) -> RigidBody:
        return self.bodies["top"]

    def axial_momentum(self, q, qd) -> float:
        """L₃ = (J ω)·a, the angular momentum along the symmetry axis a (body z), J = AĪAᵀ."""
        rot = self.top.rotation
        A = rot.A(q[3:])
        w = rot.G(q[3:]) @ qd[3:]
        return float((A @ self.top.inertia @ A.T @ w) @ A[:, 2])

    def cos_tilt(self, q) -> float:
        """u = cos(tilt) = a · ẑ of the symmetry axis."""
        return float(self.top.rotation.A(q[3:])[2, 2])

    def invariants(self, q, qd):
        """(E, L_z, L₃, u): energy, vertical and axial angular momentum about the pivot
        (the first three constant), and u = cos(tilt)."""
        return self.energy(q, qd), self.angular_momentum_z(q, qd), self.axial_momentum(q, qd), self.cos_tilt(q)

    def nutation_roots(self, q=None, qd=None):
        """(u₁, u₂): the two roots in [−1, 1] of the top's cubic
        f(u) = (α − βu)(1 − u²) − (b − au)², a = L₃/I₁, b = L_z/I₁, α = 2E′/I₁, β = 2mgl/I₁,
        E′ = E − L₃²/(2I₃) (Goldstein, Classical Mechanics, §5.7), between which u stays;
        from the state (q, q̇), by default the initial one."""
        q = self.q0 if q is None else q
        qd = self.qd0 if qd is None else qd
        P = self.params
        E, Lz, L3, _ = self.invariants(q, qd)
        a, b = L3 / P["I1"], Lz / P["I1"]
        alpha = 2 * (E - 0.5 * L3**2 / P["I3"]) / P["I1"]
        beta = 2 * P["m"] * P["g"] * P["l"] / P["I1"]
        roots = np.roots([beta, -(alpha + a * a), 2 * a * b - beta, alpha - b * b])
        roots = np.sort(roots[np.abs(roots.imag) < 1e-9].real)
        u1, u2 = roots[(roots > -1 - 1e-9) & (roots < 1 + 1e-9)][-2:]
        return float(u1), float(u2)


def heavy_top(rotation="euler_parameters", mass=1.0, length=0.05, transverse_inertia=1.5e-3,
              axial_inertia=2.0e-3, tilt_deg=5.0, spin=60.0, tip_rate=1.5, g=9.81) -> HeavyTop:
    """A heavy symmetric top on a spherical pivot at the origin, its axis passing through
    the vertical once per nutation.

    The top (``mass`` kg, central inertias diag(I_t, I_t, I₃), symmetry axis = body z) has
    its point 'tip' at ū = (0, 0, −length): the centre of mass sits ``length`` above the
    pivot along the axis.  It starts ``tilt_deg`` from the vertical in the x–z plane,
    spinning at ``spin`` rad/s about its axis a, with a transverse rate about body x chosen
    so that L_z = L₃ (then u = cos(tilt) = 1 is a root of the top's cubic, so the axis passes
    exactly through the vertical, the gimbal lock of ZXZ angles, θ = 0) and ``tip_rate``
    rad/s about global y.

    Invariants: the energy E, the angular momentum about the vertical L_z and about the
    symmetry axis L₃, all about the pivot; u = cos(tilt) stays between the roots u₁ and
    u₂ = 1 of the cubic (Goldstein, Classical Mechanics, §5.7).  ``params`` holds
    m, l, It, I1 = I_t + ml² (transverse, about the pivot), I3 and g.
    """
    m, l, It, I3 = mass, length, transverse_inertia, axial_inertia
    top = RigidBody("top", m, [It, It, I3], points={"tip": [0.0, 0.0, -l]}, rotation=rotation)
    system = MultibodySystem([top], [Spherical("pivot", top, "tip", None, [0.0, 0.0, 0.0])],
                             [Gravity((0.0, 0.0, -g))])
    th0 = np.radians(tilt_deg)
    a = np.array([np.sin(th0), 0.0, np.cos(th0)])  # symmetry axis
    xb = np.array([np.cos(th0), 0.0, -np.sin(th0)])
    A = np.column_stack([xb, [0.0, 1.0, 0.0], a])
    I1 = It + m * l**2
    # the transverse rate about xb that makes L_z = L_3 (u = 1 a root of the cubic)
    w_x = -I3 * spin * (1 - np.cos(th0)) / (I1 * np.sin(th0))
    w = spin * a + w_x * xb + tip_rate * np.array([0.0, 1.0, 0.0])
    rot = top.rotation
    th = rot.from_matrix(A)
    q = np.concatenate([l * a, th])
    qd = np.concatenate([np.cross(w, l * a), rot.rates(th, w)])
    q0, qd0 = consistent_initial_conditions(system, 0.0, q, qd)
    return HeavyTop(system, q0, qd0, {"top": top},
                    dict(m=m, l=l, It=It, I1=I1, I3=I3, g=g, rotation=rotation, tilt_deg=tilt_deg, spin=spin,
                         tip_rate=tip_rate))


# the links of Al-Zube's double pendulum: (segment, distance from its proximal joint, mass)
ALZUBE_POINT_MASSES = ((0, 0.4, 0.5), (0, 1.0, 1.0), (1, 0.5, 0.3), (1, 0.8, 0.8))


def _unit(th, ph):
    return np.array([np.cos(ph) * np.sin(th), np.sin(ph) * np.sin(th), np.cos(th)])


def _unit_rate(th, ph, thd, phd):
    return np.array([
        np.cos(ph) * np.cos(th) * thd - np.sin(ph) * np.sin(th) * phd,
        np.sin(ph) * np.cos(th) * thd + np.cos(ph) * np.sin(th) * phd,
        -np.sin(th) * thd,
    ])


@dataclass
class DoublePendulum(Example):
    """The double pendulum of :func:`double_pendulum`; ``params['links']`` holds each link's
    (mass, d = distance of the centre of mass from the proximal joint, I_t)."""

    def absolute_state(self, X, V):
        """Skilib's (q, q̇) of the minimal state X = (θ₁, θ₂, Φ₁, Φ₂), V = Ẋ (θ from +z, so
        θ = π hangs straight down; Φ the azimuth), without any polishing.

        Link s has the unit vector e_s = (cos Φ sin θ, sin Φ sin θ, cos θ); its orientation is
        [e_s, n_s, e_s × n_s] with n_s = ẑ × e_s / |ẑ × e_s| (body z horizontal), its angular
        velocity ω_s = e_s × ė_s (no spin about the link), its centre of mass at joint + d e_s.
        """
        lengths, links = self.params["lengths"], self.params["links"]
        S = len(lengths)
        q = np.zeros(self.system.nq)
        qd = np.zeros(self.system.nq)
        joint, joint_vel = np.zeros(3), np.zeros(3)
        for s, b in enumerate(self.bodies.values()):
            d = links[s][1]
            e = _unit(X[s], X[S + s])
            ed = _unit_rate(X[s], X[S + s], V[s], V[S + s])
            n = np.cross([0.0, 0.0, 1.0], e)
            n /= np.linalg.norm(n)
            A = np.column_stack([e, n, np.cross(e, n)])
            th = b.rotation.from_matrix(A)
            omega = np.cross(e, ed)
            sl = self.system.slice(b)
            q[sl] = np.concatenate([joint + d * e, th])
            qd[sl] = np.concatenate([joint_vel + d * ed, b.rotation.rates(th, omega)])
            joint = joint + lengths[s] * e
            joint_vel = joint_vel + lengths[s] * ed
        return q, qd


def double_pendulum(lengths=(1.0, 0.8), point_masses=ALZUBE_POINT_MASSES,
                    angles=(np.pi - 0.9, np.pi - 1.2, 0.0, 0.8), rates=(0.5, -1.0, 2.0, 3.0),
                    axial_fraction=0.05, g=9.81, rotation="zxz") -> DoublePendulum:
    """A 3-D double pendulum of spherical joints ('shoulder' at the origin, 'elbow'), each
    link carrying point masses on its axis: the two-segment pendulum of Al-Zube (2004),
    whose minimal-coordinate equations (his eqs. 3.14, 4.9, 4.10) are the reference.

    ``point_masses`` lists (segment, distance z_p from the segment's proximal joint, mass
    m_p).  Link s is then a rigid body ('link1', 'link2') of mass m = Σ m_p with its centre
    of mass at d = Σ m_p z_p / m along its axis (body x), transverse central inertia
    I_t = Σ m_p (z_p − d)² and a small axial J_a = ``axial_fraction`` · I_t (J_a = 0 would make
    the mass matrix singular; it does not change the motion, since every force on the link
    acts on its axis and the axial spin starts at zero).  Points: 'proximal' (−d, 0, 0),
    'distal' (L − d, 0, 0) and 'mass<p>' for the p-th entry of ``point_masses``.

    The start is the minimal state X = ``angles`` = (θ₁, θ₂, Φ₁, Φ₂) (θ from +z, θ = π hangs
    down; Φ the azimuth), V = ``rates`` (see :meth:`DoublePendulum.absolute_state`), then
    ``consistent_initial_conditions`` holding the rotational coordinates.  The defaults are a
    large, genuinely 3-D motion that keeps sin θ ≥ 0.3.

    Invariants: the energy, and L_z about the shoulder (the system is symmetric about the
    vertical through it).
    """
    lengths = np.asarray(lengths, dtype=float)
    bodies, links = [], []
    for s, L in enumerate(lengths):
        ms = [(z, m) for ss, z, m in point_masses if ss == s]
        mass = sum(m for _, m in ms)
        d = sum(m * z for z, m in ms) / mass
        It = sum(m * (z - d) ** 2 for z, m in ms)
        links.append((mass, d, It))
        pts = {"proximal": [-d, 0.0, 0.0], "distal": [L - d, 0.0, 0.0]}
        for p, (ss, z, _) in enumerate(point_masses):
            if ss == s:
                pts[f"mass{p}"] = [z - d, 0.0, 0.0]
        bodies.append(RigidBody(f"link{s + 1}", mass, [axial_fraction * It, It, It], points=pts, rotation=rotation))
    joints = [Spherical("shoulder", None, [0.0, 0.0, 0.0], bodies[0], "proximal"),
              Spherical("elbow", bodies[0], "distal", bodies[1], "proximal")]
    system = MultibodySystem(bodies, joints, [Gravity((0.0, 0.0, -g))])
    ex = DoublePendulum(system, None, None, {b.name: b for b in bodies},
                        dict(lengths=lengths, point_masses=tuple(point_masses), angles=tuple(angles),
                             rates=tuple(rates), axial_fraction=axial_fraction, g=g, rotation=rotation,
                             links=tuple(links)))
    q, qd = ex.absolute_state(np.asarray(angles, float), np.asarray(rates, float))
    rot = [i for b in bodies for i in range(system.slice(b).start + 3, system.slice(b).stop)]
    ex.q0, ex.qd0 = consistent_initial_conditions(system, 0.0, q, qd,
                                                  independent=rot if rotation == "zxz" else ())
    return ex
