"""Is an answer within what skiers have been measured to do?

A model answers any question it is asked: 12 m/s on the flat is "feasible" for the free skater
if its drivers may give 767 W.  ``plausibility`` sets a steady state's or an optimum's numbers
beside measured human ranges and returns a warning for each number outside its range, with the
range's source.  A warning does not change ``feasible`` (the model's own constraints): it says
that the answer lies where no measurement can confirm it.

The ranges (``MEASURED``) are the measured values themselves, not widened, but for one derived
from them (the poleless cycle rate):

- net mechanical power per body mass ≤ 8.35 W/kg: the peak propulsive power over a 15 km
  skating race (mean 3.35 ± 0.23 W/kg), Gløersen et al. (2018), *Front Physiol* 9:1631.
- peak leg force ≤ 1.5 body weights: V2 on the flat 1.1–1.4, V1 1.2–1.5 (pressure insoles),
  "The cross-country skier's push-off force explored on selected techniques", *Studia
  Sportiva* (Masaryk University).
- cycle rate (two strokes, one with each leg) 0.5–0.9 Hz: G3 (V2) skating, Sandbakk et al.
  (2012), Nilsson et al. (2004); without poles cycles are about 30 % shorter (Sandbakk, Ettema &
  Holmberg 2013), so a poleless rate up to 0.9/0.7 ≈ 1.29 Hz is within measurement too.
- each ski's angle to the direction of travel 10–20° on the flat (|slope| < 1°; larger uphill):
  Smith et al. (1989), Bilodeau et al. (1992).  The models' ``skating_angle_deg`` is the V
  between the skis, twice this angle.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

__all__ = ["Range", "MEASURED", "Implausible", "plausibility"]


@dataclass(frozen=True)
class Range:
    """A measured range: ``low``–``high`` in ``unit`` (None: no limit on that side), its source."""

    quantity: str
    low: float | None
    high: float | None
    unit: str
    source: str


MEASURED = {
    "net_power_per_kg": Range("net mechanical power per body mass", None, 8.35, "W/kg",
                              "Gløersen et al. (2018), Front Physiol 9:1631: 8.35 W/kg peak, 3.35 W/kg mean "
                              "propulsive power over a 15 km skating race"),
    "peak_leg_force_bw": Range("peak leg force", None, 1.5, "body weights",
                               "pressure insoles, Studia Sportiva (Masaryk Univ.): V2 on the flat 1.1–1.4, "
                               "V1 1.2–1.5 body weights"),
    "cycle_rate": Range("cycle rate (two strokes)", 0.5, 0.9, "Hz",
                        "G3 (V2) skating, Sandbakk et al. (2012), Nilsson et al. (2004)"),
    "cycle_rate_no_poles": Range("cycle rate (two strokes), skating without poles", 0.5, 0.9 / 0.7, "Hz",
                                 "G3 rates (Sandbakk et al. 2012, Nilsson et al. 2004) with cycles about 30 % "
                                 "shorter without poles (Sandbakk, Ettema & Holmberg 2013, Eur J Appl Physiol "
                                 "113:1979)"),
    "ski_angle_deg": Range("each ski's angle to the direction of travel, on the flat", 10.0, 20.0, "deg",
                           "Smith et al. (1989), Bilodeau et al. (1992)"),
}


@dataclass(frozen=True)
class Implausible:
    """A number outside its measured range: ``key`` of ``MEASURED``, the value, the range."""

    key: str
    value: float
    range: Range

    def __str__(self) -> str:
        r = self.range
        span = (f"{r.low:g}–{r.high:g}" if r.low is not None and r.high is not None
                else f"≤ {r.high:g}" if r.high is not None else f"≥ {r.low:g}")
        return (f"{r.quantity} {self.value:.3g} {r.unit} is outside the measured {span} {r.unit} "
                f"({r.source})")

    def as_dict(self) -> dict:
        return dict(key=self.key, value=self.value, message=str(self), **{f"range_{k}": v for k, v in
                                                                          asdict(self.range).items()})


def _mass(params) -> float:
    return float(getattr(params, "body_mass", None) or params.mass)


def _stroke_time(params) -> float:
    return float(getattr(params, "stroke_time", None) or params.phase_time)


def plausibility(params, *, mean_power: float, peak_leg_force_bw: float = math.nan) -> list:
    """The ``Implausible`` of each number of a steady stroke outside its measured range
    (``MEASURED``): the net mean power per body mass, the peak leg force [body weights], the
    cycle rate 1/(2T) (T the stroke time: ``stroke_time``, the thesis's ``phase_time``; the
    poleless range where ``pole_force_max`` is 0 or absent) and, on the flat (|slope| < 1°), each
    ski's angle to the direction of travel, half ``skating_angle_deg``.  NaN numbers are not
    judged.  ``params`` is the model's parameter set (any of the three models)."""
    found = []

    def judge(key, value):
        r = MEASURED[key]
        if math.isfinite(value) and ((r.low is not None and value < r.low) or (r.high is not None and value > r.high)):
            found.append(Implausible(key, float(value), r))

    judge("net_power_per_kg", float(mean_power) / _mass(params))
    judge("peak_leg_force_bw", float(peak_leg_force_bw))
    poles = float(getattr(params, "pole_force_max", 0.0) or 0.0) > 0.0
    judge("cycle_rate" if poles else "cycle_rate_no_poles", 1.0 / (2.0 * _stroke_time(params)))
    if abs(float(getattr(params, "slope_deg", 0.0))) < 1.0:
        judge("ski_angle_deg", float(params.skating_angle_deg) / 2.0)
    return found
