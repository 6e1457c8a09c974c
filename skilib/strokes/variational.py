"""The stroke map's derivative from the variational equations, not from differences of strokes.

A skating model's stroke map is x′ = Φ(x) = after(flow(start(x))): ``start`` puts the skier on
the ski at touch-down from the map's variables x (a pose, velocities and, where x moves the
foot, the stroke model's own numbers: e.g. the edged skater's leg length at touch-down), the
flow integrates the stroke over τ ∈ [0, T], and ``after`` applies the touch-down on the other
ski and reads the next x (``skilib.strokes.periodic``).  By the chain rule

    ∂Φ/∂x = D_after(y(T)) · ∂y(T)/∂(y0, c) · (∂y0/∂x, ∂c/∂x).

The middle factor is the stroke's variational flow (``skilib.engine.codegen.variational``:
the variational equations integrated with the motion, exact derivatives of the same trace the
kernels come from).  The outer factors are algebraic maps (no integration: a pose, a plastic
impact, a projection), whose central differences are good to ~1e-10 at steps of ~1e-5: the
rounding a difference of two strokes carries (their integration error over the step, ~rtol/h,
about 1e-5 of the entries at rtol = 1e-10 and h = 1e-5) is not in them.

The flow covers a stroke of one friction mode in one phase (the skier sliding forwards to the
touch-down, no pole in the snow): a stroke whose integration switches mode or phase is a
ValueError saying so; its Jacobian is the differences' (the slow path stays the reference).
"""
from __future__ import annotations

import numpy as np

from ..engine.codegen.casadi_terms import casadi_terms
from ..engine.codegen.variational import variational_flow
from .run import RunSettings, integrate_stroke

__all__ = ["stroke_map_jacobian", "ALGEBRAIC_STEP"]

#: the relative step of the central differences of the algebraic start and touch-down maps
ALGEBRAIC_STEP = 1e-5


def stroke_map_jacobian(skating, settings: RunSettings, start, after, x, *, rtol: float = 1e-12,
                        atol: float = 1e-12) -> tuple:
    """(Φ(x), ∂Φ/∂x) of the stroke map after ∘ flow ∘ start at x (the module's docstring).

    - start : x -> (model, q, q̇) at τ = 0 (the stroke's model may depend on x through its
      numbers, not its structure).
    - after : (model, q, q̇ at τ = T) -> the map's outputs (a vector: x′, and whatever else the
      caller differentiates with it, e.g. a measure taken just before the touch-down).
    - settings : the run's (its stabilization's Baumgarte gains are the flow's; its budget bounds
      the one stroke integrated to check the stroke's modes and phases).
    - rtol, atol : the variational flow's DOP853 tolerances (on the motion and the derivatives).

    Returns (after at the variational flow's end state, the Jacobian: outputs × len(x)).  A stroke
    of more than one friction mode or phase is a ValueError (the module's docstring).
    """
    x = np.array(x, dtype=float).ravel()
    if not np.all(np.isfinite(x)):
        raise ValueError(f"x: must be finite, got {x!r}")
    model, q, qd = start(x)
    n, T = model.nq, skating.stroke_time
    settings.budget.start()
    stroke, _, segments, _, events = integrate_stroke(skating, settings, 0, model, q, qd, False, works=False)
    phases = model.phases(T) if hasattr(model, "phases") else ((None, T),)
    if len(segments) != 1 or events or len(phases) != 1 or stroke.phase_ends:
        raise ValueError(f"x: the stroke from x = {np.round(x, 8).tolist()} has {len(segments)} friction-mode "
                         f"segments in {len(phases)} phases; the variational Jacobian covers one mode in one phase "
                         "(take the map's differences)")
    mode = segments[0].mode
    system = model.system(mode)
    terms = casadi_terms(system)
    # the start's derivatives: its pose, velocities and the stroke model's numbers, by central differences
    dy0, dc = np.empty((2 * n, x.size)), np.empty((len(terms.params), x.size))
    for k in range(x.size):
        h = ALGEBRAIC_STEP * max(1.0, abs(x[k]))
        d = np.zeros(x.size)
        d[k] = h
        (mp, qp, qdp), (mm, qm, qdm) = start(x + d), start(x - d)
        tp, tm = casadi_terms(mp.system(mode)), casadi_terms(mm.system(mode))
        if tp.function is not terms.function or tm.function is not terms.function:
            raise ValueError(f"x: a change of x[{k}] changes the stroke model's structure, not only its numbers")
        dy0[:, k] = (np.concatenate([qp, qdp]) - np.concatenate([qm, qdm])) / (2 * h)
        dc[:, k] = (tp.params - tm.params) / (2 * h)
    st = settings.stabilization
    flow = variational_flow(system, (0.0, T), q, qd, dy0, dc, alpha=st.alpha, beta=st.beta, rtol=rtol, atol=atol,
                            max_step=settings.integrator.max_step)
    y = flow.y
    out = np.asarray(after(model, y[:n].copy(), y[n:].copy()), dtype=float).ravel()
    J = np.empty((out.size, x.size))
    for k in range(x.size):  # after's derivative along each column of the flow's
        s = flow.S[:, k]
        scale = np.abs(s).max()
        if scale == 0.0:
            J[:, k] = 0.0
            continue
        h = ALGEBRAIC_STEP / scale * max(1.0, np.abs(y).max())
        yp, ym = y + h * s, y - h * s
        J[:, k] = (np.asarray(after(model, yp[:n], yp[n:]), dtype=float).ravel()
                   - np.asarray(after(model, ym[:n], ym[n:]), dtype=float).ravel()) / (2 * h)
    return out, J
