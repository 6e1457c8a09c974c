"""The thesis skier's periodic stroke by quadrature, in its one degree of freedom.

Without air drag the ski's acceleration does not depend on the state: the one-DOF equation of
``skilib.models.thesis.one_dof`` (the constraints' virtual displacement ê, d'Alembert; Haug 1989,
§6.3) reads, while the ski slides forwards (friction mode +1),

    m s̈(τ) = D(τ) − μ,   D(τ) = F(τ) e·u − m₂ l₁ e·ü − m₃ e·(ℓu)¨ + m e·g,

a function of the phase time τ alone.  So one stroke from ṡ(0) = u is a quadrature,
ṡ(τ) = u + A(τ) with A(τ) = ∫₀^τ s̈, and the stroke change ``along_ski`` (e′·ΔṘ³ = 0, with
Ṙ³ = ṡ e + (ℓu)˙) makes the stroke map affine,

    Φ(u) = e′·(ṡ(T) e + (ℓu)˙(T) − (ℓu)˙′(0)) = (e′·e) u + e′·(A(T) e + (ℓu)˙(T) − (ℓu)˙′(0)),

whose fixed point u0 = β / (1 − e′·e) is the periodic stroke (e′·e = cos of the angle between
the skis, below 1).  Its means are two more quadratures:

    mean_speed = (1/T) ∫₀^T |ṡ e + (ℓu)˙| dτ,   mean_power = (1/T) ∫₀^T F (ṡ e·u + ℓ̇) dτ

(the push F u acts at the CM, whose velocity along u is ṡ e·u + ℓ̇, since u·u̇ = 0).

Every integrand is smooth in τ (the Fourier push-off, eq. 102; the linear laws, eqs. 187–188):
each is interpolated at Chebyshev points on [0, T] (``numpy.polynomial.Chebyshev``) and integrated
exactly, its degree doubled until the last coefficients fall below ``CHEBYSHEV_TAIL`` of the
largest (``skilib.strokes.quadrature``, which also solves a long run's sliding segments this way).  That error is far below the multibody engine's (DOP853 at rtol = atol = 1e-10 and
Baumgarte: about 4e-12 relative on the Sobol study's rows), so the two agree to the engine's
error (``tests/test_reduced.py``).

It holds only where its assumptions do, and refuses (``NotReducible``, a ValueError) otherwise:
air drag on (s̈ then depends on ṡ), another stroke-change rule, a ski that stops or slides back
in the periodic stroke (ṡ ≤ 0 somewhere: stick/slip), an integrand the interpolation does not
resolve (a push-off that is not smooth), or no fixed point.  The multibody engine
(``steady_means``) is the path for those, and the reference for all.
"""
from __future__ import annotations

import numpy as np
from numpy.polynomial import Chebyshev
from numpy.polynomial.chebyshev import chebpts1

from ...strokes.quadrature import NotReducible, resolved, series
from .model import SkierModel
from .one_dof import OneDofStroke
from .params import SkierParams, ski_heading
from .run import options_of
from .steady import SteadyMeans

__all__ = ["reduced_steady_means"]

#: the degrees tried, in turn
_DEGREES = (64, 128, 256, 512)


def reduced_steady_means(params: SkierParams | None = None, **run_kwargs) -> SteadyMeans:
    """The periodic stroke's u0, mean_speed and mean_power by quadrature (the module's
    docstring), for ``steady_means``'s arguments (``run_kwargs``: simulate_run's keywords; the
    push-off, its scale, the first ski and the stroke-change rule are read from them, the
    solver's are not used: nothing is integrated).  ``residual`` is Φ(u0) − u0 (rounding) and
    ``iterations`` 0 (no stroke map).  ``NotReducible`` where the quadrature does not hold."""
    for k in ("strokes", "v0"):
        if k in run_kwargs:
            raise ValueError(f"{k}: set by reduced_steady_means (the periodic stroke), not an argument")
    o = options_of(params, run_kwargs)
    p, T = o.params, o.params.phase_time
    if p.air_drag:
        raise NotReducible("air_drag: with air drag the ski's acceleration depends on its speed")
    if o.stroke_change != "along_ski":
        raise NotReducible(f"stroke_change: {o.stroke_change!r} does not make the stroke map affine")
    this, nxt = (OneDofStroke(SkierModel(p, *ski_heading(p, k, o.first_ski), np.zeros(3), o.push, rotation=o.rotation))
                 for k in (0, 1))
    e, domain = this.e, [0.0, T]
    alpha = float(nxt.e @ e)
    if not alpha < 1.0:
        raise NotReducible(f"skating_angle_deg: the skis are parallel (e′·e = {alpha!r}): no fixed point")
    offset = this.cm_offset(T)[0] - nxt.cm_offset(0.0)[0]  # (ℓu)˙(T) − (ℓu)˙′(0)
    for deg in _DEGREES:
        tau = T * (chebpts1(deg + 1) + 1.0) / 2.0  # the Chebyshev points on [0, T]
        kin = this.kinematics_at(tau)
        F = np.asarray(o.push(tau), dtype=float)
        sdd = Chebyshev(series((this.driving_at(tau, kin, F) - this.mu) / this.mass), domain)
        A = sdd.integ(lbnd=0.0)
        beta = float(nxt.e @ (A(T) * e + offset))
        u0 = beta / (1.0 - alpha)
        sdot = u0 + A(tau)
        speed = series(np.linalg.norm(sdot[:, None] * e + kin["cd"], axis=1))
        power = series(F * (sdot * (kin["u"] @ e) + kin["elld"]))
        if all(resolved(c) for c in (sdd.coef, speed, power)):
            break
    else:
        raise NotReducible(f"the stroke's integrands are not resolved by a Chebyshev series of degree "
                           f"{_DEGREES[-1]} on [0, {T:g}] s (a push-off that is not smooth)")
    # sliding forwards throughout: ṡ = u0 + A(τ) > 0 (else stick/slip: the engine's path)
    least = float(np.min(u0 + A(np.linspace(0.0, T, 2001))))
    if not (u0 > 0.0 and least > 0.0):
        raise NotReducible(f"the ski's speed reaches {min(u0, least):.4g} m/s in the periodic stroke: it stops or "
                           "slides back (stick/slip), which the quadrature does not follow")
    mean_speed = Chebyshev(speed, domain).integ(lbnd=0.0)(T) / T
    mean_power = Chebyshev(power, domain).integ(lbnd=0.0)(T) / T
    return SteadyMeans(u0=float(u0), mean_speed=float(mean_speed), mean_power=float(mean_power),
                       residual=float(alpha * u0 + beta - u0), iterations=0)
