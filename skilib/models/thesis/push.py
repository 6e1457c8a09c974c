"""The push-off F(τ) that drives the thesis's skier along its leg (§5.3, eqs. 179–181)."""
from __future__ import annotations

import math

import numpy as np

from ...engine.validation import check_number
from .params import SkierParams

__all__ = ["STAND_IN_PEAK_BW", "MAX_PUSH_BODY_WEIGHTS", "MAX_FORCE_SCALE", "stand_in_push_force", "ScaledPush",
           "thesis_push_force", "check_push_force", "push_provenance"]

#: the largest push-off accepted, in body weights of the skier (M g): measured leg forces in
#: skating peak near 1–2 body weights; 20 leaves room for any experiment and refuses the
#: absurd (a 1e30 N push), which would only make the integrator grind
MAX_PUSH_BODY_WEIGHTS = 20.0
#: the largest ``force_scale`` accepted
MAX_FORCE_SCALE = 10.0
#: points of the phase at which a push-off is checked
_N_CHECK = 201

#: the stand-in push-off curve's peak, in body weights (see stand_in_push_force)
STAND_IN_PEAK_BW = 1.2


def stand_in_push_force(params: SkierParams, phase_time: float):
    """STAND-IN push-off F(τ) = 1.2 M g sin(πτ/T): a smooth half-sine of peak 1.2 body weights.

    Not data: an analytic alternative to the Fourier fit of the (synthetic) force-plate
    push-off of thesis §5.3 / fig. 32 (``skilib.data.push.default_push_force``); pass it
    as ``push_force``.  ``phase_time`` T > 0 [s].
    """
    if not isinstance(params, SkierParams):
        raise ValueError(f"params: must be a SkierParams, got {params!r}")
    check_number("phase_time", phase_time, positive=True, unit="s")
    peak = STAND_IN_PEAK_BW * params.mass * params.g
    T = float(phase_time)

    def F(tau):
        return peak * math.sin(math.pi * tau / T)

    return F


class ScaledPush:
    """c·F(τ): the push-off scaled by ``force_scale`` (fig. 42's "half force" is c = 0.5).
    Compiled into the kernel when F can write itself symbolically (the Fourier fit)."""

    def __init__(self, base, scale: float):
        self.base, self.scale = base, scale

    def __call__(self, tau):
        return self.scale * self.base(tau)

    def symbolic(self, tau):
        if not callable(getattr(type(self.base), "symbolic", None)):
            raise NotImplementedError("the scaled push-off is a plain callable")
        return self.scale * self.base.symbolic(tau)


def thesis_push_force(params: SkierParams, phase_time: float):
    """The push-off used when ``push_force=None``: returns (F(τ), description).

    The Fourier fit (eq. 102) of the representative push-off of the SYNTHETIC force-plate
    data set, stretched to the phase (thesis fig. 32): ``skilib.data.push.default_push_force``.
    It is the curve of the synthetic 75 kg skier and does not scale with ``params.mass``.
    """
    from ...data.push import default_push_force as fitted

    F = fitted(phase_time)
    return F, ("skilib.data.push.default_push_force: Fourier fit of SYNTHETIC force-plate data "
               f"({F.source}, sha256 {F.sha256})")


def push_provenance(F, T):
    """(file, sha256) of a push-off fitted from a recording (``PushForce``), else (None, None).

    A ``PushForce`` carries the phase time it was stretched to (thesis fig. 32); run with
    another phase it would be cut short or called beyond its end, so that is an error naming
    both times (``PushForce.time_scaled(T)`` gives the stretched push explicitly).
    """
    fitted_for = getattr(F, "phase_time", None)
    if fitted_for is not None and hasattr(F, "fit") and abs(float(fitted_for) - T) > 1e-9 * T:
        raise ValueError(f"push_force: fitted for a phase of {float(fitted_for):g} s, but the run's phase_time is "
                         f"{T:g} s; pass push_force.time_scaled({T:g}) to stretch it, or fit it for {T:g} s")
    source = getattr(F, "source", None)
    if source is not None and hasattr(F, "fit"):
        return str(source), getattr(F, "sha256", None)
    return None, None


def check_push_force(F, T, params: SkierParams | None = None) -> None:
    """A ``ValueError`` naming ``push_force`` unless F is a callable giving finite forces on
    [0, T] (sampled at 201 points) of at most ``MAX_PUSH_BODY_WEIGHTS`` body weights."""
    if not callable(F):
        raise ValueError(f"push_force: must be None or a callable of phase time τ [s] -> N, got {F!r}")
    limit = MAX_PUSH_BODY_WEIGHTS * params.mass * params.g if params is not None and params.g > 0 else None
    taus = [T * i / (_N_CHECK - 1) for i in range(_N_CHECK)]
    at = getattr(F, "at_points", None)  # a PushForce: every point in one call, each the call's value
    if at is not None:
        values = np.asarray(at(np.array(taus)), dtype=float)
        if values.shape == (_N_CHECK,) and np.all(np.isfinite(values)) and \
                (limit is None or float(np.abs(values).max()) <= limit):
            return  # every point passes; otherwise the loop below names the first that fails
    for i, tau in enumerate(taus):
        try:
            v = float(F(tau))
        except Exception as exc:  # noqa: BLE001 - report any failure of the user's callable
            raise ValueError(f"push_force: calling it at τ = {tau} s failed: {exc}") from exc
        if not math.isfinite(v):
            raise ValueError(f"push_force: returned {v!r} at τ = {tau} s; expected a finite force in N")
        if limit is not None and abs(v) > limit:
            raise ValueError(f"push_force: {v:.6g} N at τ = {tau:g} s (after force_scale) exceeds "
                             f"{MAX_PUSH_BODY_WEIGHTS:g} body weights ({limit:.6g} N), the plausible bound "
                             "(skilib.models.thesis.push.MAX_PUSH_BODY_WEIGHTS)")
