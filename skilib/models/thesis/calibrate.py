"""A one-number calibration of the thesis's skier: the push-off scale that gives the thesis's
steady speed, and the thesis's other figures as predictions at that scale.

The push-off force behind every absolute number of the compendium is a fit of *synthetic*
force-plate data (book: Data provenance); the thesis's measured curve is lost.  Scaling the
push-off by one factor s (``simulate_run``'s ``force_scale``) so that the steady speed equals
the thesis's 2.47 m/s (§5.6, fig. 41; ``cases.STEADY_SPEED``) removes the largest unknown
with one number.  The steady speed is the periodic stroke's mean CM speed
(``skilib.steady_state``), the state the thesis's long run levels off to; it is found as a
function of s and solved for s with Brent's method (``scipy.optimize.brentq``).  Everything
else — mean power (fig. 44), the half-force and 40° comparisons (fig. 42), the stroke at
which a run from rest levels off (fig. 41), the ratio of the velocity components (fig. 43),
the energy lost at a change of ski — is then a prediction (``thesis_predictions``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from ...engine.validation import check_number
from .cases import STEADY_SPEED
from .params import SkierParams
from .run import simulate_run
from ...strokes.periodic import NoSteadyState
from .steady import SteadyState, change_after, steady_state
from .summary import level_off_stroke

__all__ = ["Calibration", "calibrate_force_scale", "thesis_predictions"]


@dataclass
class Calibration:
    """The result of ``calibrate_force_scale``.

    - force_scale : the push-off scale s with steady mean speed = target_speed.
    - target_speed : the speed calibrated to [m/s] (default: the thesis's 2.47 m/s).
    - steady : the ``SteadyState`` at force_scale (its ``mean_speed`` is the target to the
      tolerance, its ``mean_power`` the first prediction).
    - evaluations : DataFrame of every steady state computed: force_scale, mean_speed, u0.
    - run_kwargs : the ``simulate_run`` keywords used (without force_scale).
    """

    force_scale: float
    target_speed: float
    steady: SteadyState = field(repr=False)
    evaluations: pd.DataFrame = field(repr=False)
    params: SkierParams | None = field(default=None, repr=False)
    run_kwargs: dict = field(default_factory=dict, repr=False)

    @property
    def speed_error(self) -> float:
        """steady mean speed − target [m/s]."""
        return self.steady.mean_speed - self.target_speed


def calibrate_force_scale(params: SkierParams | None = None, *, target_speed: float = STEADY_SPEED.value,
                          scale_guess: float = 1.0, xtol: float = 1e-12, **run_kwargs) -> Calibration:
    """The push-off scale s whose steady state (``steady_state``) has mean CM speed ``target_speed``.

    Parameters
    ----------
    params : SkierParams (default: table 9's skier).
    target_speed : steady mean CM speed to reach [m/s]; default the thesis's 2.47 m/s (§5.6, fig. 41).
    scale_guess : first s tried.  The speed is close to proportional to s, so the second is
        s·target/v(s); the bracket is widened by 25 % steps until the speed error changes sign.
    xtol : Brent's tolerance on s (``scipy.optimize.brentq``; rtol at its smallest).
    run_kwargs : ``simulate_run`` / ``steady_state`` keywords (skating_angle_deg, stroke_change,
        solver settings, ...); not force_scale, strokes or v0.

    A scale whose steady state is out of reach (``NoSteadyState``, see ``steady_state``) is
    halved until one is found; ``NoSteadyState`` if none is (e.g. a stroke-change rule that
    loses no speed without air drag: every stroke then adds about the same speed).
    ValueError on bad arguments.

    Examples
    --------
    >>> import skilib as sk
    >>> p = sk.SkierParams()
    >>> cal = sk.calibrate_force_scale(p, push_force=sk.stand_in_push_force(p, p.phase_time), dt_out=0.05)
    >>> abs(cal.steady.mean_speed - 2.47) < 1e-6
    True
    """
    for k in ("force_scale", "strokes", "v0"):
        if k in run_kwargs:
            raise ValueError(f"{k}: set by calibrate_force_scale, not an argument")
    target_speed = check_number("target_speed", target_speed, positive=True, unit="m/s")
    scale_guess = check_number("scale_guess", scale_guess, positive=True)
    xtol = check_number("xtol", xtol, positive=True)
    cache: dict = {}

    def steady(s):
        if s not in cache:
            near = min(cache, key=lambda k: abs(k - s)) if cache else None
            guess = cache[near].u0 if near is not None else None
            cache[s] = steady_state(params, force_scale=float(s), u0_guess=guess, **run_kwargs)
        return cache[s]

    def err(s):
        return steady(s).mean_speed - target_speed

    def err_or_none(s):  # None: no steady state within reach (too fast, see steady_state's max_speed)
        try:
            return err(s)
        except NoSteadyState:
            return None

    a = float(scale_guess)
    fa = err_or_none(a)
    for _ in range(10):
        if fa is not None:
            break
        a *= 0.5
        fa = err_or_none(a)
    else:
        raise NoSteadyState(f"calibrate_force_scale: no steady state at any force scale down to {a:.3g}")
    b = a * target_speed / (fa + target_speed) if fa + target_speed > 0 else 2 * a
    fb = err_or_none(b)
    for _ in range(80):
        if fb is None:
            b = 0.5 * (a + b)
        elif fa * fb <= 0:
            break
        else:
            a, fa = b, fb
            b = b * (1.25 if fb < 0 else 0.8)
        fb = err_or_none(b)
    else:
        raise RuntimeError(f"calibrate_force_scale: no force scale brackets {target_speed} m/s (last {b:.4g})")
    s = brentq(err, min(a, b), max(a, b), xtol=xtol, rtol=4 * np.finfo(float).eps) if fa * fb < 0 else (a if fa == 0 else b)
    ev = pd.DataFrame([dict(force_scale=k, mean_speed=v.mean_speed, u0=v.u0) for k, v in cache.items()])
    return Calibration(float(s), float(target_speed), steady(s), ev, params, dict(run_kwargs))


def thesis_predictions(cal: Calibration, *, half_fraction: float = 0.5, other_angle_deg: float | None = None,
                       strokes: int = 10) -> dict:
    """The thesis's §5.6 figures predicted at a calibration's force scale s.

    Every quantity is a steady state (``steady_state``) except the level-off stroke, which
    needs a run from rest (``strokes`` strokes, ``summary.level_off_stroke`` at 2 %; None if it
    does not level off, or if the run cannot be made: ``speed_kept`` has no change for a slow CM):

    - mean_power: steady mean push power at s [W] (fig. 44: ≈ 300 W)
    - half_force_change: steady speed at half_fraction·s over that at s, minus 1 (fig. 42: −32 %)
    - other_angle_half_vs_full: steady speed at other_angle (default: the angle − 10°) and
      half_fraction·s over that at the angle and s, minus 1 (fig. 42:
      "slightly faster", > 0)
    - vx_vy_ratio: mean |Ẋ³| / mean |Ẏ³| of the steady stroke (fig. 43: "the Y component
      … almost twice" the X component — the thesis's Y axis is our X,
      the direction of travel)
    - level_off_stroke: the run from rest's first stroke whose mean speed changes by < 2 %
      (fig. 41: after about six strokes)
    - ke_loss_per_change, pe_loss_per_change: energies lost at each change of ski in the steady
      state [J] (negative: gained)

    A steady state that is not found (``NoSteadyState`` or no convergence) gives NaN.
    """
    kw = dict(cal.run_kwargs)
    params = cal.params if cal.params is not None else SkierParams()
    angle = kw.get("skating_angle_deg") or params.skating_angle_deg
    other = angle - 10.0 if other_angle_deg is None else other_angle_deg
    st = cal.steady

    def speed(**over):
        try:
            return steady_state(params, u0_guess=st.u0 * half_fraction, **{**kw, **over}).mean_speed
        except RuntimeError:  # NoSteadyState, or no convergence within steady_state's max_iter
            return float("nan")

    half = speed(force_scale=cal.force_scale * half_fraction)
    other_half = speed(force_scale=cal.force_scale * half_fraction, skating_angle_deg=other)
    try:
        run = simulate_run(params, strokes=strokes, force_scale=cal.force_scale, **kw)
        level, speeds = level_off_stroke(run), run.strokes.mean_speed.to_numpy()
    except ValueError:  # 'speed_kept' from rest: a slow CM has no change that keeps its speed
        level, speeds = None, np.array([])
    row = st.strokes.iloc[0]
    ch = change_after(st.result)
    return dict(force_scale=cal.force_scale, steady_speed=st.mean_speed, mean_power=st.mean_power,
                half_force_change=half / st.mean_speed - 1.0, other_angle_deg=other,
                other_angle_half_vs_full=other_half / st.mean_speed - 1.0,
                vx_vy_ratio=float(row.mean_abs_vx / row.mean_abs_vy), level_off_stroke=level,
                ke_loss_per_change=float(ch["ke_loss"]), pe_loss_per_change=float(ch["pe_loss"]),
                run_mean_speeds=speeds)
