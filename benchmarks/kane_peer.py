"""The peer for scale: the skier of one phase as a user would write it with
``sympy.physics.mechanics`` (KanesMethod) and ``lambdify``, reduced to its single
coordinate s.

Kinematics from the book's skier-model chapter alone: the ski slides on its line, R¹ = P + s e; the leg axis is
u(τ) = L.z of a frame L turned by γ(τ) = γ0 + C_rot τ about n = ẑ × d (d = X, the default
push plane); the shank's centre is R¹ + l1 u, the CM R¹ + ℓ(τ) u with ℓ = ℓ0 + C_ext τ.
Loads: the push-off F(τ) u at the CM (F the same Fourier series skilib uses, written out
symbolically), kinetic friction −μ e on the ski (the peer only knows the sliding-forward
mode, so it is compared on a phase that never stops), gravity.  Kane's equations give one
second-order ODE for s, integrated with the same solve_ivp settings as skilib.
"""
from __future__ import annotations

import math
import time

import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp
from sympy.physics.mechanics import KanesMethod, Particle, Point, ReferenceFrame, RigidBody, dynamicsymbols, inertia


def derive(params, heading: float, push_fit):
    """KanesMethod for the sliding skier; returns (f(t, y) → ẏ, seconds to derive, to lambdify)."""
    p = params
    t0 = time.perf_counter()
    t = dynamicsymbols._t
    s, v = dynamicsymbols("s v")
    N = ReferenceFrame("N")
    gamma = math.radians(p.leg_angle0_deg) + math.radians(p.c_rot_deg) * t
    ell = p.leg_extension0 + p.c_ext * t
    L = N.orientnew("L", "Axis", (gamma, N.y))      # turns ẑ towards d = X
    e = math.cos(heading) * N.x + math.sin(heading) * N.y
    O = Point("O")
    O.set_vel(N, 0)
    ski = O.locatenew("ski", s * e)
    shank_cm = ski.locatenew("shank_cm", p.l1 * L.z)
    body_cm = ski.locatenew("body_cm", ell * L.z)
    for pt in (ski, shank_cm, body_cm):
        pt.set_vel(N, pt.pos_from(O).dt(N).subs(s.diff(t), v))
    m2, m3 = p.shank_mass, p.body_mass
    I2, I3 = m2 * p.lower_leg**2 / 12, m3 * p.upper_leg**2 / 12   # slender rods, long axis L.z
    bodies = [Particle("ski", ski, p.ski_mass),
              RigidBody("shank", shank_cm, L, m2, (inertia(L, I2, I2, 0), shank_cm)),
              RigidBody("body", body_cm, L, m3, (inertia(L, I3, I3, 0), body_cm))]
    fit = push_fit
    phi = 2 * sp.pi / fit.period * (t - fit.t0)
    F = fit.a0 + sum(a * sp.sin(k * phi) + b * sp.cos(k * phi)
                     for k, (a, b) in enumerate(zip(fit.a, fit.b), start=1))
    g = p.g if p.gravity else 0.0
    loads = [(body_cm, F * L.z), (ski, -p.friction * e),
             (ski, -p.ski_mass * g * N.z), (shank_cm, -m2 * g * N.z), (body_cm, -m3 * g * N.z)]
    kane = KanesMethod(N, q_ind=[s], u_ind=[v], kd_eqs=[s.diff(t) - v])
    kane.kanes_equations(bodies, loads)
    M, f = kane.mass_matrix_full, kane.forcing_full
    t1 = time.perf_counter()
    sym_t, sym_s, sym_v = sp.symbols("t s v")
    subs = {s: sym_s, v: sym_v}
    Mf = sp.lambdify((sym_t, sym_s, sym_v), M.xreplace(subs).subs(t, sym_t), "numpy")
    ff = sp.lambdify((sym_t, sym_s, sym_v), f.xreplace(subs).subs(t, sym_t), "numpy")
    t2 = time.perf_counter()

    def rhs(tau, y):
        return np.linalg.solve(np.asarray(Mf(tau, y[0], y[1]), float), np.asarray(ff(tau, y[0], y[1]), float).ravel())

    return rhs, t1 - t0, t2 - t1


def integrate(rhs, v0: float, tau_out, *, method="DOP853", rtol=1e-10, atol=1e-10):
    sol = solve_ivp(rhs, (0.0, float(tau_out[-1])), [0.0, v0], method=method, rtol=rtol, atol=atol, t_eval=tau_out)
    if sol.status != 0:
        raise RuntimeError(f"peer integration failed: {sol.message}")
    return sol.y[0], sol.nfev
