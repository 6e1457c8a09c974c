"""``ProjectedRK``: an explicit Runge–Kutta method whose state is projected onto the
constraints after every accepted step, as a ``scipy.integrate.OdeSolver`` that
``solve_ivp(method=ProjectedRK, project=...)`` accepts, so that ``solve_ivp``'s event
location, ``t_eval`` and dense output work with it unchanged."""
from __future__ import annotations

import numpy as np
from scipy.integrate import DOP853, RK23, RK45, OdeSolver

from .options import RK_METHODS

__all__ = ["ProjectedRK"]

_RK = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853}


class ProjectedRK(OdeSolver):
    """Steps ``rk`` (one of 'RK45', 'RK23', 'DOP853') and replaces every accepted state by
    ``project(t, y, True)`` (e.g. a ``skilib.engine.projection.Projector``); the next step
    starts from the projected state and its derivative.

    Dense output is the step's own Runge–Kutta interpolant, before the projection: within a
    step it is off the constraints by the step's drift (≤ the tolerance), so points that are
    kept should be projected (``Projector.path``).  Events are therefore located on the
    interpolant, as ``solve_ivp`` does for any method.
    """

    def __init__(self, fun, t0, y0, t_bound, *, project, rk: str = "DOP853", rtol=1e-3, atol=1e-6,
                 max_step=np.inf, first_step=None, vectorized=False, **extraneous):
        # a subclass of one of them (``skilib.strokes.work.signed_method``) is taken as it is
        cls = rk if isinstance(rk, type) and issubclass(rk, tuple(_RK.values())) else _RK.get(rk) \
            if isinstance(rk, str) else None
        if cls is None:
            raise ValueError(f"rk: ProjectedRK steps an explicit Runge-Kutta method {RK_METHODS}, got {rk!r}")
        if extraneous:
            raise ValueError(f"ProjectedRK: unknown options {sorted(extraneous)}")
        super().__init__(fun, t0, y0, t_bound, vectorized)
        self.inner = cls(fun, t0, y0, t_bound, rtol=rtol, atol=atol, max_step=max_step,
                             first_step=first_step, vectorized=vectorized)
        self.project = project
        self._raw = None  # the step's (y, f) before projection, for its dense output

    def _step_impl(self):
        rk = self.inner
        rk.step()
        if rk.status == "failed":
            self.nfev = rk.nfev
            return False, "the Runge-Kutta step failed (step size too small)"
        self._raw = (rk.y, rk.f)
        rk.y = self.project(rk.t, rk.y, True)
        rk.f = rk.fun(rk.t, rk.y)  # the derivative belongs to the projected state
        self.t, self.y = rk.t, rk.y
        self.nfev = rk.nfev
        return True, None

    def _dense_output_impl(self):
        rk = self.inner
        proj = rk.y, rk.f
        rk.y, rk.f = self._raw  # the interpolant of the step as it was taken
        try:
            dense = rk.dense_output()
        finally:
            rk.y, rk.f = proj
            self.nfev = rk.nfev
        return dense
