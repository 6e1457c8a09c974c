"""What a leg or an arm can push at the speed it extends: the force–velocity limit (chapter
*Choosing a technique*).

The work a cost counts is an average; a muscle's limit is instantaneous.  Allinger & van den
Bogert (1997, *Med Sci Sports Exerc* 29:279) showed for speed skating that a limit of the leg's
force at the speed it extends, beside the average power, is what turns a flat optimum with the
stroke on its bounds into a determined one.  The limit here:

    F_max(v) = F_iso (1 − v/v_max) / (1 + c v/v_max)        for v ≥ 0 (the leg lengthens: it pushes)
    F_max(v) = F_iso                                          for v < 0 (the leg is shortened under load)

- v : the leg's extension speed ℓ̇ [m/s], the rate of the distance from the foot (the ski) to
  the centre of mass (the skaters' ``leg_extension_speed``);
- F_iso : the one leg's isometric force [body weights], ``force_iso_bw``;
- v_max : the extension speed at which it can push no more [m/s], ``speed_max``;
- c : the curvature, c = 1/k = F_iso/a of Hill's (1938) (F + a)(v + b) = (F_iso + a) b with
  b = k v_max.  c = 0 is the straight line that loaded multi-joint leg extensions (jumps, leg
  press, cycling) show (Jaric 2015, *Int J Sports Med* 36:699; Samozino et al. 2014; a leg
  press over 5–86 % of v_max: the linear model preferred over Hill's, *Sports Med Open* 2023,
  doi 10.1186/s40798-023-00598-0); c = 4 (a/F_iso = 0.25, the value McMahon's *Muscles,
  Reflexes, and Locomotion* (1984) normalises Hill's equation with; Hill's frog muscle: 0.22)
  is a single muscle's hyperbola.  The default is the straight line; beyond v_max the line goes
  on below zero (no push is possible there, and a margin says how far).
- The lengthening side is taken as isometric: a muscle resists lengthening with more than
  F_iso, so this side of the limit is on the safe side (it may flag a stroke a skier could do;
  it never passes one the leg could not).

A stroke's **force–velocity margin** is F_max(ℓ̇) − F∥ at each output point, F∥ the leg's
force along itself (body weights, ≥ 0 where the leg can push what the stroke asks of it); its
least value over the stroke says whether the technique is within the leg's means.

**The arms** (``limb="arms"``): each arm pushes on its pole with the pole's push F_p, and
extends at the rate of its pole's tip-to-hand distance (``<pole>_extension_speed``:
``skilib.strokes.poles.pole_columns``); one limit, the same curve in the same units (body
weights, m/s), holds each arm, and a stroke's margin is the least over both poles while they
push.  The arms' limit has no default either: no arm profile of skiers' poling with its numbers
is at hand here.

F_iso and v_max have **no default**.  The published profiles of leg extension are of both legs
in jumps, with the centre of mass's speed (Samozino et al.), and the numbers seen for this
compendium are relative ones (e.g. F_iso from the linear extrapolation 23 % above the
measured isometric force of international downhill skiers, Rahmani et al. 2001, *Eur J Appl
Physiol* 84:227); a one-leg skating profile must be given by the user with its source.  The
curvature's default, 0, is the shape, not a number fitted to skating.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..engine.validation import check_number

__all__ = ["ForceVelocityLimit", "FORCE_VELOCITY_BOUNDS", "force_velocity_margin", "ForceVelocityViolation",
           "check_force_velocity", "HILL_CURVATURE", "LIMBS", "limits_of", "ARM_FORCE_ISO_BOUNDS"]

#: the limbs a limit may hold: the pushing leg, or each arm on its pole
LIMBS = ("leg", "arms")

#: c = F_iso/a of a single muscle's Hill hyperbola, a/F_iso = 0.25 (McMahon 1984)
HILL_CURVATURE = 4.0
#: the plausible range (inclusive) of each field: one leg's isometric force 0.5–6 body weights
#: (a leg that cannot hold the body up to more than a heavy squat's twice), the speed at which
#: it can push no more 0.5–10 m/s (leg extension in a jump reaches a few m/s), the curvature
#: 0–20 (0: the straight line; 4: Hill's a/F_iso = 0.25; 20: a/F_iso = 0.05, a strongly bent hyperbola)
FORCE_VELOCITY_BOUNDS = {"force_iso_bw": (0.5, 6.0), "speed_max": (0.5, 10.0), "curvature": (0.0, 20.0)}
#: an arm's isometric push on its pole, 0.1–3 body weights (measured peak pole forces in V2 are a
#: few tenths of a body weight; a strong arm's isometric push a body weight or so)
ARM_FORCE_ISO_BOUNDS = (0.1, 3.0)


@dataclass(frozen=True)
class ForceVelocityLimit:
    """A limb's force–velocity limit (module docstring): F_iso ``force_iso_bw`` [body weights],
    v_max ``speed_max`` [m/s], curvature c (0: linear, ``HILL_CURVATURE``: Hill's a/F_iso = 0.25),
    ``limb`` "leg" (default: the pushing leg) or "arms" (each arm on its pole).

    Examples
    --------
    >>> lim = ForceVelocityLimit(force_iso_bw=2.0, speed_max=3.0)
    >>> float(lim.capacity(0.0)), float(lim.capacity(1.5)), float(lim.capacity(3.0))
    (2.0, 1.0, 0.0)
    """

    force_iso_bw: float
    speed_max: float
    curvature: float = 0.0
    limb: str = "leg"

    def __post_init__(self):
        if not isinstance(self.limb, str) or self.limb not in LIMBS:
            raise ValueError(f"limb: must be one of {LIMBS}, got {self.limb!r}")
        for name, (lo, hi) in FORCE_VELOCITY_BOUNDS.items():
            if name == "force_iso_bw" and self.limb == "arms":
                lo, hi = ARM_FORCE_ISO_BOUNDS
            unit = {"force_iso_bw": "body weights", "speed_max": "m/s", "curvature": ""}[name]
            v = check_number(name, getattr(self, name), unit=unit)
            if not lo <= v <= hi:
                raise ValueError(f"{name}: must be in [{lo:g}, {hi:g}]{' ' + unit if unit else ''} (the "
                                 f"plausible range, FORCE_VELOCITY_BOUNDS), got {v!r}")
            object.__setattr__(self, name, v)

    @property
    def hill_a(self) -> float:
        """Hill's a [body weights]: F_iso/c (inf for the straight line)."""
        return self.force_iso_bw / self.curvature if self.curvature else math.inf

    @property
    def hill_b(self) -> float:
        """Hill's b [m/s]: v_max/c (inf for the straight line)."""
        return self.speed_max / self.curvature if self.curvature else math.inf

    def capacity(self, speed):
        """F_max(v) [body weights] at extension speeds v [m/s] (scalar or array): the most the
        leg can push; ≤ 0 at and beyond v_max."""
        v = np.asarray(speed, dtype=float)
        if not np.all(np.isfinite(v)):
            raise ValueError("speed: extension speeds must be finite [m/s]")
        x = np.maximum(v, 0.0) / self.speed_max
        return self.force_iso_bw * (1.0 - x) / (1.0 + self.curvature * x)

    def margin(self, force_bw, speed):
        """F_max(v) − F [body weights]: ≥ 0 where the leg can push F (body weights, along
        itself) while extending at v [m/s]."""
        F = np.asarray(force_bw, dtype=float)
        if not np.all(np.isfinite(F)):
            raise ValueError("force_bw: leg forces must be finite [body weights]")
        return self.capacity(speed) - F


def limits_of(limits) -> tuple:
    """A tuple of limits from one ``ForceVelocityLimit`` or a sequence of them, at most one per
    limb; ValueError naming ``force_velocity`` otherwise."""
    one = isinstance(limits, ForceVelocityLimit)
    seq = (limits,) if one else tuple(limits) if isinstance(limits, (tuple, list)) else None
    if not seq or not all(isinstance(x, ForceVelocityLimit) for x in seq):
        raise ValueError(f"force_velocity: must be None, a skilib.physiology.ForceVelocityLimit or a tuple of them "
                         f"(one per limb), got {limits!r}")
    limbs = [x.limb for x in seq]
    if len(set(limbs)) != len(limbs):
        raise ValueError(f"force_velocity: one limit per limb, got the limbs {limbs}")
    return seq


def force_velocity_margin(frame: pd.DataFrame, limit: ForceVelocityLimit, *, weight: float) -> pd.DataFrame:
    """The force–velocity margin of a skater's run (the ``frame`` of ``simulate_free``,
    ``simulate_edge`` or a steady state): one row per output point with ``stroke``, ``tau``,
    ``leg_extension_speed`` ℓ̇ [m/s], ``leg_force_bw`` F∥ = leg_force / ``weight`` (the force
    along the leg) [body weights], ``leg_force_capacity_bw`` = F_max(ℓ̇) and
    ``force_velocity_margin`` = F_max − F∥ [body weights].  ``weight``: the skier's body
    weight M g [N] (the params' ``weight``).  A frame without ``leg_force`` and
    ``leg_extension_speed`` (the thesis skier's) is refused by name.

    For the arms (``limit.limb == "arms"``): ``pole_force_bw`` (each pole's push / ``weight``),
    ``pole_extension_speed`` (that of the pole whose margin is the least), ``pole_force_capacity_bw``
    and ``force_velocity_margin``, the least over both poles, at the points where they push; a
    frame without poles is refused by name."""
    if not isinstance(limit, ForceVelocityLimit):
        raise ValueError(f"limit: must be a ForceVelocityLimit, got {type(limit).__name__}")
    weight = check_number("weight", weight, positive=True, unit="N")
    if limit.limb == "arms":
        return _arm_margin(frame, limit, weight)
    need = ("stroke", "tau", "leg_force", "leg_extension_speed")
    missing = [c for c in need if c not in getattr(frame, "columns", ())]
    if missing:
        raise ValueError(f"frame: needs the columns {missing} (a free or edged skater's run); the thesis "
                         "skier's push-off has no leg extension speed")
    bw = frame["leg_force"].to_numpy(dtype=float) / weight
    v = frame["leg_extension_speed"].to_numpy(dtype=float)
    cap = limit.capacity(v)
    return pd.DataFrame({"stroke": frame["stroke"].to_numpy(), "tau": frame["tau"].to_numpy(dtype=float),
                         "leg_extension_speed": v, "leg_force_bw": bw, "leg_force_capacity_bw": cap,
                         "force_velocity_margin": cap - bw})


def _arm_margin(frame, limit, weight) -> pd.DataFrame:
    from ..strokes.poles import POLES

    need = ("stroke", "tau", "pole_force") + tuple(f"{name}_extension_speed" for name, _ in POLES)
    missing = [c for c in need if c not in getattr(frame, "columns", ())]
    if missing:
        raise ValueError(f"frame: needs the columns {missing} (a run with poles, pole_force_max > 0) for the arms' "
                         "limit")
    pushing = frame["pole_force"].to_numpy(dtype=float) > 0.0
    f = frame[pushing]
    bw = f["pole_force"].to_numpy(dtype=float) / weight
    speeds = np.column_stack([f[f"{name}_extension_speed"].to_numpy(dtype=float) for name, _ in POLES])
    caps = limit.capacity(speeds)
    k = np.argmin(caps, axis=1)  # the pole whose arm extends faster is the nearer its limit
    rows = np.arange(len(f))
    return pd.DataFrame({"stroke": f["stroke"].to_numpy(), "tau": f["tau"].to_numpy(dtype=float),
                         "pole_extension_speed": speeds[rows, k], "pole_force_bw": bw,
                         "pole_force_capacity_bw": caps[rows, k], "force_velocity_margin": caps[rows, k] - bw})


class ForceVelocityViolation(ValueError):
    """A stroke asks a leg or an arm for more than it can push at the speed it extends."""

    def __init__(self, stroke: int, tau: float, margin: float, force: float, capacity: float, speed: float,
                 limb: str = "leg"):
        self.stroke, self.tau, self.margin, self.limb = stroke, tau, margin, limb
        who = "the leg" if limb == "leg" else "an arm"
        less = "less extension" if limb == "leg" else "a lighter or shorter push of the poles"
        super().__init__(
            f"force_velocity_margin: stroke {stroke} asks {who} for {force:.4g} body weights at τ = {tau:.4g} s "
            f"while it extends at {speed:.4g} m/s, where it can push {capacity:.4g} (margin {margin:.4g} body "
            f"weights): a shorter stroke, a lower speed or {less} asks less of it")


def check_force_velocity(frame: pd.DataFrame, limit: ForceVelocityLimit, *, weight: float,
                         admissibility: str = "refuse") -> pd.DataFrame:
    """Each stroke's least force–velocity margin [body weights] and where it is (τ), as a table
    ``stroke, min_force_velocity_margin, tau_min_margin`` (a stroke in which the arms never push
    has no row for their limit).  ``admissibility="refuse"`` raises
    ``ForceVelocityViolation`` (a ValueError) for the first stroke whose margin is below zero,
    naming it, τ, the force, the capacity and the speed; ``"report"`` returns the table only."""
    if admissibility not in ("refuse", "report"):
        raise ValueError(f"admissibility: must be 'refuse' or 'report', got {admissibility!r}")
    m = force_velocity_margin(frame, limit, weight=weight)
    part = "leg" if limit.limb == "leg" else "pole"
    if m.empty:  # the arms never push: nothing is asked of them
        return pd.DataFrame(columns=["stroke", "min_force_velocity_margin", "tau_min_margin"])
    rows = []
    for k, g in m.groupby("stroke", sort=True):
        i = int(np.argmin(g["force_velocity_margin"].to_numpy()))
        r = g.iloc[i]
        if admissibility == "refuse" and r["force_velocity_margin"] < 0:
            raise ForceVelocityViolation(int(k), float(r["tau"]), float(r["force_velocity_margin"]),
                                         float(r[f"{part}_force_bw"]), float(r[f"{part}_force_capacity_bw"]),
                                         float(r[f"{part}_extension_speed"]), limit.limb)
        rows.append({"stroke": int(k), "min_force_velocity_margin": float(r["force_velocity_margin"]),
                     "tau_min_margin": float(r["tau"])})
    return pd.DataFrame(rows, columns=["stroke", "min_force_velocity_margin", "tau_min_margin"])
