"""The thesis's simulated cases and the numbers the compendium compares with, in one place.

Bruzzo (2012), ch. 5, defines its simulations by tables and reports its results in figures
and in the text of §5.3–§5.6 and ch. 6.  This module types each of them once:

Cases (keyword arguments of ``simulate_phase`` / ``simulate_run``)
    ==========  ============================================================================
    ``TABLE7``  the three single phases of table 7 (§5.1), with the leg laws of §5.2 and
                §5.4: C_ext = 0.8, 0.4, 0.2 m/s (eq. 187) and C_rot = 90, 45, 22.5 °/s
                (eq. 188), so that every phase extends the leg by 0.4 m and turns it by 45°.
    ``TABLE9``  the long run of table 9 (§5.6): 10 strokes, T = 1 s, 50°, C_ext = 0.2 m/s,
                C_rot = 22.5 °/s, M = 75 kg, initial speed 0.
    ``FIG42``   fig. 42's comparison: the table 9 run, 40° with half the push-off force and
                50° with half the force, plus 40° with the full force (the compendium's
                fourth corner of the 2 × 2 comparison; the thesis's text names only the
                first three).
    ==========  ============================================================================

Thesis numbers (``ThesisValue``: value, unit, source and the thesis's own wording)
    ``FRICTION_MAX``, ``FRICTION_MEAN``, ``FRICTION_MIN`` (table 8), ``PEARSON_R`` (§5.3,
    fig. 32), ``STEADY_SPEED``, ``LEVEL_OFF_STROKE`` (§5.6, fig. 41), ``MEAN_POWER``
    (§5.6, fig. 44), ``HALF_FORCE_40_VS_50`` and ``HALF_FORCE_50_CHANGE`` (§5.6, fig. 42),
    ``VY_VX_RATIO`` (§5.6, fig. 43, in the thesis's axes: our mean |Ẋ³| / mean |Ẏ³|), ``PHASE_SPEED_ORDER`` (§5.5 and ch. 6),
    ``PHASE3_SLOWS_AT_END`` (§5.5, fig. 38); all of them in ``THESIS_VALUES``.

Nothing here is a result of this compendium; nothing here is tuned.
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["PhaseCase", "RunCase", "ThesisValue", "TABLE7", "TABLE7_LEG_EXTENSION", "TABLE7_LEG_ROTATION_DEG",
           "TABLE9", "FIG42_40_FULL", "FIG42_40_HALF", "FIG42_50_HALF", "FIG42", "RUN_CASES",
           "FRICTION_MAX", "FRICTION_MEAN", "FRICTION_MIN", "PEARSON_R", "STEADY_SPEED", "LEVEL_OFF_STROKE",
           "MEAN_POWER", "HALF_FORCE_40_VS_50", "HALF_FORCE_50_CHANGE", "VY_VX_RATIO", "PHASE_SPEED_ORDER",
           "PHASE3_SLOWS_AT_END", "THESIS_VALUES"]


# -- cases ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PhaseCase:
    """One single active phase of table 7 (§5.1), started from rest on the right ski.

    =================  =====================================================================
    number             the thesis's trial number (1, 2, 3: "first, second, and third trial")
    phase_time         T [s] (table 7)
    skating_angle_deg  skating angle [deg] (table 7)
    c_ext              C_extension [m/s] of eq. 187, ℓ(τ) = ℓ0 + C_ext τ (§5.2)
    c_rot_deg          C_rotation [deg/s] of eq. 188, γ(τ) = γ0 + C_rot τ (§5.4)
    =================  =====================================================================
    """

    number: int
    phase_time: float
    skating_angle_deg: float
    c_ext: float
    c_rot_deg: float
    source: str = "table 7 (§5.1); C_ext eq. 187 (§5.2), C_rot eq. 188 (§5.4)"

    @property
    def name(self) -> str:
        """A short identifier, e.g. ``table7_T0.5``."""
        return f"table7_T{self.phase_time:g}"

    @property
    def leg_extension(self) -> float:
        """ℓ(T) − ℓ0 = C_ext·T [m] (eq. 187)."""
        return self.c_ext * self.phase_time

    @property
    def leg_rotation_deg(self) -> float:
        """γ(T) − γ0 = C_rot·T [deg] (eq. 188)."""
        return self.c_rot_deg * self.phase_time

    def kwargs(self, **overrides) -> dict:
        """Keyword arguments of ``simulate_phase`` (``overrides`` are merged in, e.g. dt_out)."""
        return {"phase_time": self.phase_time, "skating_angle_deg": self.skating_angle_deg,
                "c_ext": self.c_ext, "c_rot_deg": self.c_rot_deg, **overrides}


@dataclass(frozen=True)
class RunCase:
    """A run of alternating strokes (§5.6): table 9's inputs, changed as fig. 42 changes them.

    =================  =================================================================
    name               identifier (``table9``, ``fig42_40_half``, ...)
    strokes            number of strokes (table 9: 10)
    phase_time         T [s] (table 9: 1)
    skating_angle_deg  skating angle [deg] (table 9: 50)
    c_ext              C_length [m/s] of eq. 187 (table 9: 0.2)
    c_rot_deg          C_rotation [deg/s] of eq. 188 (table 9: 22.5)
    force_scale        factor on the push-off force (fig. 42's "half of the force": 0.5)
    v0                 initial speed [m/s] (table 9: 0)
    mass               skier mass M [kg] (table 9: 75), a ``SkierParams`` field
    source             where the thesis defines the case
    =================  =================================================================
    """

    name: str
    strokes: int = 10
    phase_time: float = 1.0
    skating_angle_deg: float = 50.0
    c_ext: float = 0.2
    c_rot_deg: float = 22.5
    force_scale: float = 1.0
    v0: float = 0.0
    mass: float = 75.0
    source: str = "table 9 (§5.6)"

    @property
    def leg_extension(self) -> float:
        """ℓ(T) − ℓ0 = C_ext·T [m] per stroke (eq. 187)."""
        return self.c_ext * self.phase_time

    @property
    def leg_rotation_deg(self) -> float:
        """γ(T) − γ0 = C_rot·T [deg] per stroke (eq. 188)."""
        return self.c_rot_deg * self.phase_time

    def kwargs(self, **overrides) -> dict:
        """Keyword arguments of ``simulate_run`` (strokes, T, angle, C_ext, C_rot, force_scale,
        v0); ``overrides`` are merged in (e.g. ``strokes=3``, solver settings).  The mass is a
        ``SkierParams`` field: see ``params``."""
        return {"strokes": self.strokes, "phase_time": self.phase_time, "skating_angle_deg": self.skating_angle_deg,
                "c_ext": self.c_ext, "c_rot_deg": self.c_rot_deg, "force_scale": self.force_scale, "v0": self.v0,
                **overrides}

    def params(self, **fields):
        """``SkierParams(mass=M, **fields)``: the case's skier."""
        from .params import SkierParams

        return SkierParams(**{"mass": self.mass, **fields})


TABLE7: tuple = (
    PhaseCase(1, 0.5, 70.0, 0.8, 90.0),
    PhaseCase(2, 1.0, 50.0, 0.4, 45.0),
    PhaseCase(3, 2.0, 30.0, 0.2, 22.5),
)
"""Table 7's three single phases (T, skating angle) with eq. 187's C_extension = 0.8, 0.4,
0.2 m/s and eq. 188's C_rotation = 90, 45, 22.5 °/s "for the first, second, and third
trial, respectively"."""

TABLE7_LEG_EXTENSION = 0.4
"""C_ext·T [m], the same in every table 7 case: the leg goes from 0.5 m to 0.9 m ("from a
value of 50% to ultimately 90%", §5.2, fig. 28; eq. 187)."""

TABLE7_LEG_ROTATION_DEG = 45.0
"""C_rot·T [deg], the same in every table 7 case (§5.4, fig. 35; eq. 188)."""

TABLE9 = RunCase("table9")
"""Table 9's long run: M = 75 kg, T = 1 s, C_length = 0.2, C_rotation = 22.5, 10 strokes,
skating angle 50°, initial velocity 0 m/s (§5.6)."""

FIG42_40_HALF = RunCase("fig42_40_half", skating_angle_deg=40.0, force_scale=0.5,
                        source="fig. 42 (§5.6): 10° less skating angle, half of the force")
FIG42_50_HALF = RunCase("fig42_50_half", force_scale=0.5,
                        source="fig. 42 (§5.6): skating angle of 50°, half of the baseline force")
FIG42_40_FULL = RunCase("fig42_40_full", skating_angle_deg=40.0,
                        source="this compendium: the fourth corner of fig. 42's angle × force comparison")

FIG42: tuple = (TABLE9, FIG42_40_HALF, FIG42_50_HALF, FIG42_40_FULL)
"""Fig. 42's comparison: the base case (table 9), 40° with half force, 50° with half force,
then the compendium's 40° with full force."""

RUN_CASES: dict = {c.name: c for c in (TABLE9, FIG42_40_FULL, FIG42_40_HALF, FIG42_50_HALF)}
"""The runs by name."""


# -- thesis numbers -------------------------------------------------------------------------
@dataclass(frozen=True)
class ThesisValue:
    """A number (or a qualitative statement) the thesis reports.

    ========  ============================================================================
    quantity  what it is
    value     the number in ``unit`` (for a statement: the compendium's reading of it, see
              the docstring of each constant)
    unit      its unit ("–" for a pure number)
    source    where the thesis states it (table, figure, section)
    stated    how the thesis states it, as the comparison tables print it
    ========  ============================================================================
    """

    quantity: str
    value: object
    unit: str
    source: str
    stated: str = field(default="")

    def __float__(self) -> float:
        return float(self.value)


FRICTION_MAX = ThesisValue("maximum of the measured friction force", 31.894, "N", "table 8 (§5.3)", "31.894")
FRICTION_MEAN = ThesisValue("average of the measured friction force (the model's constant friction)", 5.305, "N",
                            "table 8 (§5.3)", "5.305")
FRICTION_MIN = ThesisValue("minimum of the measured friction force", -18.7134, "N", "table 8 (§5.3)", "−18.7134")
PEARSON_R = ThesisValue("Pearson coefficient of the Fourier fit of the push-off force", 0.9976, "–",
                        "§5.3, fig. 32", "0.9976")
STEADY_SPEED = ThesisValue("average total velocity of the CM once it has levelled off", 2.47, "m/s",
                           "§5.6, fig. 41", "≈ 2.47")
LEVEL_OFF_STROKE = ThesisValue("stroke after which the average speed per stroke levels off", 6, "stroke",
                               "§5.6, fig. 41", "6")
MEAN_POWER = ThesisValue("average power exerted by the skier when the conditions are stable", 300.0, "W",
                         "§5.6, fig. 44", "≈ 300")
HALF_FORCE_40_VS_50 = ThesisValue(
    "mean speed of 40° with half force relative to 50° with full force (value: its sign, > 0)", 0.0, "–",
    "§5.6, fig. 42; ch. 6", "slightly faster")
"""The thesis: "a slightly superior average velocity by reducing the skating angle 10
degrees, with ... only half of the force"; no number is given, so ``value`` is the bound the
relative change exceeds (0)."""
HALF_FORCE_50_CHANGE = ThesisValue("relative change of the mean speed at 50° when the force is halved", -0.32, "–",
                                   "§5.6, fig. 42; ch. 6", "≈ −32 %")
VY_VX_RATIO = ThesisValue("the thesis's Y component of the CM velocity over its X component, i.e. ours: "
                          "mean |Ẋ³| (travel direction) / mean |Ẏ³| (sideways)", 2.0, "–", "§5.6, fig. 43; table 2",
                          "≈ 2")
"""The thesis: "the Y component of the skier velocity is almost twice larger than the
correspondent in the X direction".  Its table 2 measures the ski's line from the global **Y**
axis, so its Y is the direction of travel, our X: the compendium compares mean |Ẋ³| / mean |Ẏ³|
over a stroke (``vx_vy_ratio``).  The name is the thesis's axes."""

PHASE_SPEED_ORDER = ThesisValue("mean speed of the table 7 cases, slowest first", (1, 2, 3), "case",
                                "§5.5, figs. 37–38; ch. 6", "case 1 < case 2 < case 3")
"""Ch. 6: "When skiers skate with high skating angles and short stride rates, their velocity
is lower than when they skate with smaller skating angles and longer stride rates"."""
PHASE3_SLOWS_AT_END = ThesisValue("the third table 7 case's CM slows down before the end of the phase", True, "–",
                                  "§5.5, fig. 38", "yes")
"""§5.5: the friction shows as "the change in slope in the third case"."""

THESIS_VALUES: dict = {
    "friction_max": FRICTION_MAX, "friction_mean": FRICTION_MEAN, "friction_min": FRICTION_MIN,
    "pearson_r": PEARSON_R, "steady_speed": STEADY_SPEED, "level_off_stroke": LEVEL_OFF_STROKE,
    "mean_power": MEAN_POWER, "half_force_40_vs_50": HALF_FORCE_40_VS_50,
    "half_force_50_change": HALF_FORCE_50_CHANGE, "vy_vx_ratio": VY_VX_RATIO,
    "phase_speed_order": PHASE_SPEED_ORDER, "phase3_slows_at_end": PHASE3_SLOWS_AT_END,
}
"""Every thesis number above, by name."""
