"""The push-off F(τ) that drives the thesis's skier along its leg (§5.3, eqs. 179–181)."""
from __future__ import annotations

import math

from .params import SkierParams

__all__ = ["STAND_IN_PEAK_BW", "stand_in_push_force", "ScaledPush", "default_push_force", "check_push_force"]

#: the stand-in push-off curve's peak, in body weights (see stand_in_push_force)
STAND_IN_PEAK_BW = 1.2


def stand_in_push_force(params: SkierParams, phase_time: float):
    """STAND-IN push-off F(τ) = 1.2 M g sin(πτ/T): a smooth half-sine of peak 1.2 body weights.

    Not data: an analytic alternative to the Fourier fit of the (synthetic) force-plate
    push-off of thesis §5.3 / fig. 32 (``skilib.data.forcedata.default_push_force``); pass it
    as ``push_force``.
    """
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


def default_push_force(params: SkierParams, phase_time: float):
    """The push-off used when ``push_force=None``: returns (F(τ), description).

    The Fourier fit (eq. 102) of the representative push-off of the SYNTHETIC force-plate
    data set, stretched to the phase (thesis fig. 32): ``skilib.data.forcedata.default_push_force``.
    It is the curve of the synthetic 75 kg skier and does not scale with ``params.mass``.
    """
    from ..data.forcedata import default_push_force as fitted

    return fitted(phase_time), "skilib.data.forcedata.default_push_force: Fourier fit of SYNTHETIC force-plate data"


def check_push_force(F, T) -> None:
    """A ``ValueError`` naming ``push_force`` unless F is a callable giving finite forces on [0, T]."""
    if not callable(F):
        raise ValueError(f"push_force: must be None or a callable of phase time τ [s] -> N, got {F!r}")
    for tau in (0.0, 0.5 * T, T):
        try:
            v = float(F(tau))
        except Exception as exc:  # noqa: BLE001 - report any failure of the user's callable
            raise ValueError(f"push_force: calling it at τ = {tau} s failed: {exc}") from exc
        if not math.isfinite(v):
            raise ValueError(f"push_force: returned {v!r} at τ = {tau} s; expected a finite force in N")
