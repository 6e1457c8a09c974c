"""One vocabulary: the name, unit and meaning of every column of every table and of every
number field the package returns, the same name meaning the same thing in every model.

- ``QUANTITIES`` : {name: (unit, meaning)} of the names that stand alone; ``FAMILIES`` : (regex,
  unit, meaning) of the numbered or built names (``q0``…, ``qd0``…, ``lam0``…, ``work_*``,
  ``work_<actuator>_positive``, ``end_<parameter>``).  A unit is a string: "m/s", "W", "J", …;
  "-" for a number without dimension, a count, a flag or a label (text); never "".
- ``units_of(columns, parameters=None)`` : {column: unit}, a ValueError naming the first column
  the vocabulary does not know (``parameters``, a parameters dataclass or its class, adds its
  number fields with their documented units: the optimizer's tables carry the technique's
  parameters and their end points ``end_<name>``).
- ``HasUnits`` : the ``units`` property of the results (``SimResult``, the steady states,
  ``Optimum``): every column of its tables and every number field, with its unit.
- ``parameter_units(cls)`` : {field: unit} of a parameters dataclass, from its docstring
  (``doc_units``), else ``UNIT_FALLBACK``, else "deg" for a name ending in ``_deg``.

The speeds.  ``progress_speed`` is the distance along the course (X) per time [m/s] — how fast
the skier gets on — in every table, result and answer of the command line.  ``mean_speed`` is
the thesis's "mean speed": the time average of the centre of mass's speed |Ṙ| over a stroke
[m/s], which counts the sideways sway as well; ``cm_speed`` is that speed, |Ṙ|, at one instant
in a frame, and in an ``Optimum`` (or an answer of ``skilib optimum``/``steady``) the stroke's
time average, the same number as a steady state's ``mean_speed``.  ``optimized_speed`` is the
one of the two an optimizer maximised (``Optimum.speed``: "progress" or "cm").

The powers.  ``mean_power`` is the net mean power of the drivers each model counts (its power
budget, ``skilib.cli.POWER_COUNTS``): the thesis's skier's push-off; the free skater's leg
(its placement drivers); the edged skater's leg, fore–aft and heading drivers; with poles the
arms' too.  ``mean_leg_power`` is the leg's alone in every model: the push-off (thesis), the
placement drivers (free), the leg's extension F ℓ̇ (edge).

Renamed (the old name is refused with a message naming the new): ``Optimum.mean_speed`` →
``optimized_speed`` (or ``progress_speed``/``cm_speed``); the optimizer's tables' (evaluations,
starts, ``speed_power_front``, scans) ``mean_speed`` column → ``optimized_speed``; the command
line's ``mean_speed`` row → ``cm_speed`` (``steady``) and ``last_mean_speed`` → ``last_cm_speed``
(``run``).
"""
from __future__ import annotations

import inspect
import numbers
import re
from dataclasses import fields, is_dataclass

__all__ = ["QUANTITIES", "FAMILIES", "units_of", "unit_of", "HasUnits", "parameter_units", "doc_units",
           "UNIT_FALLBACK", "RENAMED"]

_LABEL = "-"

#: name → (unit, meaning)
QUANTITIES = {
    # -- time, stroke, labels
    "t": ("s", "time since the run's start"),
    "tau": ("s", "time within the stroke"),
    "stroke": ("-", "stroke number (1-based)"),
    "side": ("-", "the stroke's ski: 'right' or 'left' (text)"),
    "mode": ("-", "friction mode: +1 or −1 sliding, 0 stuck"),
    "mode_before": ("-", "friction mode before the switch"),
    "mode_after": ("-", "friction mode after the switch"),
    "change": ("-", "number of the change of ski"),
    # -- positions and speeds
    "ski_x": ("m", "ski's reference point, X (along the course)"),
    "ski_y": ("m", "ski's reference point, Y (across the course)"),
    "ski_z": ("m", "ski's reference point, Z (up)"),
    "cm_x": ("m", "centre of mass, X (along the course)"),
    "cm_y": ("m", "centre of mass, Y (across the course)"),
    "cm_z": ("m", "centre of mass, Z (up)"),
    "cm_vx": ("m/s", "centre of mass's velocity, X"),
    "cm_vy": ("m/s", "centre of mass's velocity, Y"),
    "cm_vz": ("m/s", "centre of mass's velocity, Z"),
    "cm_speed": ("m/s", "the centre of mass's speed |Ṙ| (frame: at that instant; optimum and the command line: "
                        "its time average over the periodic stroke, a steady state's mean_speed)"),
    "ski_speed": ("m/s", "speed of the ski's reference point"),
    "ski_heading_deg": ("deg", "the ski's heading from the course's X axis"),
    "heading_deg": ("deg", "the stroke's ski heading from the course's X axis (each ski's angle from the course)"),
    "u": ("m/s", "the ski's speed along itself"),
    "s": ("m", "the ski's travel along its heading within the stroke"),
    "s_dot": ("m/s", "the ski's speed along its heading"),
    "s_end": ("m", "s at the stroke's end"),
    "s_dot_start": ("m/s", "ṡ at the stroke's start"),
    "s_dot_end": ("m/s", "ṡ at the stroke's end"),
    "s_dot_before": ("m/s", "ṡ just before the change of ski"),
    "s_dot_after": ("m/s", "ṡ just after the change of ski"),
    "cm_speed_end": ("m/s", "the centre of mass's speed at the stroke's end"),
    "cm_speed_before": ("m/s", "the centre of mass's speed just before the change"),
    "cm_speed_after": ("m/s", "the centre of mass's speed just after the change"),
    "cm_v_along_before": ("m/s", "centre of mass's velocity along the new ski, before the change"),
    "cm_v_along_after": ("m/s", "centre of mass's velocity along the new ski, after the change"),
    "cm_v_jump": ("m/s", "jump of the centre of mass's velocity at the change"),
    "cm_z_jump": ("m", "jump of the centre of mass's height at the change"),
    "cm_z_jump_at_start": ("m", "jump of the centre of mass's height at the change that starts the stroke"),
    "cm_jump": ("m", "jump of the centre of mass's position at the touch-down"),
    "cm_height": ("m", "the centre of mass's height at touch-down"),
    "leg_start": ("m", "the leg's length at touch-down"),
    "landing_offset": ("m", "the new ski lands this far outside the centre of mass"),
    "u_start": ("m/s", "the ski's speed along itself at the stroke's start"),
    "u_end": ("m/s", "the ski's speed along itself at the stroke's end"),
    "u_before": ("m/s", "the ski's speed along itself just before the touch-down"),
    "u_after": ("m/s", "the new ski's speed along itself just after the touch-down"),
    "u0": ("m/s", "the ski's speed along itself at every touch-down of the periodic stroke"),
    # -- speeds of a stroke
    "mean_speed": ("m/s", "the thesis's mean speed: time average of the centre of mass's speed |Ṙ| over the "
                          "stroke (sideways sway included)"),
    "progress_speed": ("m/s", "distance along the course (X) per time: the centre of mass's X travel over the "
                              "stroke's time"),
    "optimized_speed": ("m/s", "the speed the optimizer maximised (or met): progress_speed or cm_speed, as its "
                               "speed says"),
    "target_speed": ("m/s", "the speed asked for"),
    "mean_vx": ("m/s", "centre of mass's X travel per time over the stroke (= progress_speed)"),
    "mean_vy": ("m/s", "centre of mass's Y travel per time over the stroke"),
    "mean_abs_vx": ("m/s", "time average of |Ẋ| of the centre of mass"),
    "mean_abs_vy": ("m/s", "time average of |Ẏ| of the centre of mass"),
    "distance_x": ("m", "the centre of mass's travel along the course (X)"),
    "min_ski_speed": ("m/s", "least ski speed over the stroke"),
    # -- forces
    "push_force": ("N", "the thesis's push-off force F(τ)"),
    "leg_drive_force": ("N", "the extension driver's push on the centre of mass along the leg (−λ of C14)"),
    "friction_force": ("N", "the snow's friction along the ski's heading"),
    "drag_force": ("N", "air drag"),
    "snow_force": ("N", "the snow's force on the ski (its row's multiplier)"),
    "edge_force": ("N", "the snow's sideways force on the ski's edge"),
    "snow_load": ("N", "the snow's load on the ski, N"),
    "snow_load_bw": ("body weights", "the snow's load in body weights"),
    "leg_force": ("N", "the leg's force along itself (> 0 pushing)"),
    "leg_force_bw": ("body weights", "the leg's force in body weights"),
    "leg_fx": ("N", "the leg's force on the body, X"),
    "leg_fy": ("N", "the leg's force on the body, Y"),
    "leg_fz": ("N", "the leg's force on the body, Z"),
    "pole_fx": ("N", "the poles' force on the body, X"),
    "pole_fy": ("N", "the poles' force on the body, Y"),
    "pole_fz": ("N", "the poles' force on the body, Z"),
    "pole_force": ("N", "the poles' push"),
    "arm_limit": ("-", "the force–velocity limit put on each arm, as text (F_iso, v_max)"),
    "pole_left_extension_speed": ("m/s", "the left arm's extension speed: the rate of its pole's tip-to-hand "
                                  "distance while it pushes (0 when not)"),
    "pole_right_extension_speed": ("m/s", "the right arm's extension speed: the rate of its pole's tip-to-hand "
                                   "distance while it pushes (0 when not)"),
    "ankle_Fx": ("N", "ski on shank at the ankle, X"),
    "ankle_Fy": ("N", "ski on shank at the ankle, Y"),
    "ankle_Fz": ("N", "ski on shank at the ankle, Z"),
    "knee_Fx": ("N", "shank on the upper body, X"),
    "knee_Fy": ("N", "shank on the upper body, Y"),
    "knee_Fz": ("N", "shank on the upper body, Z"),
    "knee_Mx": ("N m", "shank on the upper body, moment about X at the centre of mass"),
    "knee_My": ("N m", "shank on the upper body, moment about Y at the centre of mass"),
    "knee_Mz": ("N m", "shank on the upper body, moment about Z at the centre of mass"),
    "roll_moment": ("N m", "the drivers' moment about the ski's axis at its origin"),
    "cop_offset": ("m", "centre of pressure along the ski's left normal (NaN where N ≤ 0)"),
    "max_abs_cop_offset": ("m", "largest |cop_offset| over the stroke"),
    "peak_leg_force_bw": ("body weights", "largest leg force over the stroke"),
    "peak_leg_force_n": ("N", "largest leg force over the stroke"),
    "min_leg_force": ("N", "least leg force over the stroke (the leg only pushes: ≥ 0)"),
    "min_snow_force": ("N", "least snow force over the stroke"),
    "min_snow_load": ("N", "least snow load over the stroke"),
    "impulse_poles_x": ("N s", "the poles' positive X impulse over the stroke"),
    "impulse_leg_x": ("N s", "the leg's positive X impulse over the stroke"),
    "pole_share": ("-", "the poles' share of the positive X impulse"),
    "pole_lift": ("s", "τ at which the poles' contact ended early (NaN: it lasted its time, or no poles)"),
    # -- geometry of the body
    "leg_length": ("m", "the leg's length"),
    "max_leg_length": ("m", "largest leg length over the stroke"),
    "leg_extension_speed": ("m/s", "the leg's extension speed ℓ̇: the rate of the distance from the ski to the "
                                   "centre of mass (edge: across the ski)"),
    "leg_force_capacity_bw": ("body weights", "the most the leg can push at its extension speed (force–velocity "
                                              "limit)"),
    "force_velocity_margin": ("body weights", "the force–velocity limit's capacity minus the leg's force along "
                                              "itself (≥ 0: within the leg's means)"),
    "min_force_velocity_margin": ("body weights", "least force_velocity_margin over the stroke"),
    "tau_min_margin": ("s", "τ at which the stroke's least margin is"),
    "leg_angle_deg": ("deg", "the leg's angle (thesis: inclination from the vertical; free skater: the leg "
                             "force's angle off the line from the ski's origin to the centre of mass)"),
    "max_leg_angle_deg": ("deg", "largest leg_angle_deg over the stroke"),
    "lean_deg": ("deg", "the leg's lean from the vertical, + inwards"),
    "max_abs_lean_deg": ("deg", "largest |lean| over the stroke"),
    "min_lean_deg": ("deg", "least lean over the stroke"),
    # -- powers
    "push_power": ("W", "power of the push-off, F·Ṙ"),
    "leg_power": ("W", "power of the leg's drivers"),
    "leg_power_translational": ("W", "the leg's translational power F·(Ṙ_B − Ṙ_ski)"),
    "fore_aft_power": ("W", "power of the fore–aft driver"),
    "heading_power": ("W", "power of the heading driver"),
    "pole_power": ("W", "power of the arms on the poles"),
    "mean_power": ("W", "net mean power of the drivers the model counts (thesis: push-off; free: the leg's "
                        "placement drivers; edge: leg, fore–aft and heading; with poles the arms' too)"),
    "mean_leg_power": ("W", "net mean power of the leg alone (thesis: push-off; free: placement drivers; "
                            "edge: extension F ℓ̇)"),
    "mean_leg_power_translational": ("W", "time average of the leg's translational power"),
    "mean_fore_aft_power": ("W", "net mean power of the fore–aft driver"),
    "mean_heading_power": ("W", "net mean power of the heading driver"),
    "mean_pole_power": ("W", "net mean power of the arms on the poles"),
    "mean_climb_power": ("W", "power spent lifting the skier on a rising course (0 on the flat)"),
    "mean_positive_power": ("W", "ΣW⁺/T: the actuators' positive work per time"),
    "budget_power": ("W", "the power the budget counts (net, positive, metabolic or physiological)"),
    "power": ("W", "the power budget (NaN/None: no budget)"),
    "power_error": ("W", "budget power − the budget at a start's end"),
    "speed_error": ("m/s", "speed − the target at a start's end"),
    "metabolic_power": ("W", "the cost of work Σ(W⁺/η⁺ + |W⁻|/η⁻)/T"),
    "metabolic_work": ("W", "physiological cost: the work's share"),
    "metabolic_swing": ("W", "physiological cost: swinging the legs"),
    "metabolic_force_rate": ("W", "physiological cost: developing force"),
    "metabolic_rest": ("W", "physiological cost: resting metabolism"),
    "metabolic_total": ("W", "the whole physiological cost (work, leg swing, force rate, rest)"),
    "gross_efficiency": ("-", "(ΣW⁺ + ΣW⁻)/(P_met T): net work over the metabolic energy of work"),
    "gross_efficiency_total": ("-", "net work over the whole physiological cost"),
    # -- energies
    "kinetic_energy": ("J", "kinetic energy"),
    "ke_start": ("J", "kinetic energy at the stroke's start"),
    "ke_end": ("J", "kinetic energy at the stroke's end"),
    "ke_before": ("J", "kinetic energy just before the change of ski"),
    "ke_after": ("J", "kinetic energy just after the change of ski"),
    "ke_loss": ("J", "kinetic energy lost at the change of ski"),
    "ke_loss_merge": ("J", "share of ke_loss: the old ski merged into the body"),
    "ke_loss_projection": ("J", "share of ke_loss: the projection onto the new stance"),
    "ke_loss_at_start": ("J", "kinetic energy lost at the change that starts the stroke"),
    "ke_loss_merge_at_start": ("J", "its merge share"),
    "ke_loss_projection_at_start": ("J", "its projection share"),
    "ke_loss_at_touchdown": ("J", "kinetic energy lost at the touch-down that ends the periodic stroke"),
    "pe_loss": ("J", "potential energy dropped with the pose reset at the change"),
    "projection_energy": ("J", "kinetic energy changed by the coordinate projections"),
    "energy_residual": ("J", "ΔKE − ΣW − projection_energy over the stroke"),
    # -- numerical checks
    "constraint_norm": ("m or -", "max|Cᵢ| over the model's rows (position rows in m, orientation rows without "
                                  "dimension)"),
    "velocity_constraint_norm": ("m/s or 1/s", "max|Cq q̇ + Ct|ᵢ over the model's rows"),
    "max_constraint_norm": ("m or -", "largest constraint_norm over the stroke"),
    "nonholonomic_norm": ("m/s", "largest residual of the no-sideslip rows"),
    "max_nonholonomic_norm": ("m/s", "largest nonholonomic_norm over the stroke"),
    "touchdown_residual": ("m/s", "max|Cq q̇ + Ct| of the new rows after the touch-down"),
    "residual": ("m/s", "|Φ(u0) − u0| of the periodic stroke's search"),
    "iterations": ("-", "count: stroke maps evaluated, or IPOPT's iterations"),
    "coarse_maps": ("-", "count: the strokes of a periodic stroke's search integrated at a coarse tolerance, far "
                         "from the fixed point"),
    "multiplier": ("-", "Φ′(u0), the slope of the stroke map at the periodic stroke (|·| < 1: runs approach it)"),
    # -- the optimizer's tables and results
    "start": ("-", "the start's row (−1: the screening of the seeded candidates)"),
    "run": ("-", "the input row of a sweep"),
    "status": ("-", "'ok' or 'error' (text)"),
    "error": ("-", "the error's message, '' if ok (text)"),
    "message": ("-", "the solver's message (text)"),
    "success": ("-", "the solver reports success (true/false)"),
    "feasible": ("-", "the constraints met to the tolerance (true/false)"),
    "violation": ("-", "largest relative constraint residual"),
    "nit": ("-", "SLSQP iterations"),
    "nfev": ("-", "steady states computed"),
    "skilib_version": ("-", "skilib's version (text)"),
    "leg_force_margin": ("body weights", "least leg force over M g (≥ 0: the leg pushes)"),
    "snow_load_margin": ("body weights", "least snow load over M g (≥ 0: the snow carries)"),
    "reach_margin": ("m", "max_leg_length − the stroke's largest leg length"),
    "lean_margin": ("rad", "max_lean_deg − the stroke's largest lean, in radians"),
    "landing_offset_margin": ("m", "how far the periodic stroke's landing offset lies inside its bounds (the crouch "
                                   "chosen)"),
    "touchdown_height": ("m", "the centre of mass's height at the periodic stroke's touch-down"),
    "speed_tol": ("-", "the speed constraint's tolerance, relative"),
    # -- choosing a technique (skilib.studies.technique_choice)
    "cycle_rate": ("Hz", "cycles (two strokes, one with each leg) per second, 1/(2T)"),
    "push_off_time": ("s", "the time the leg extends under load in a stroke (ℓ̇ > 0 with F > 0)"),
    "peak_pole_force_bw": ("body weights", "each pole's largest push"),
    "slope_percent": ("%", "the course's gradient, 100 tan α"),
    "switched_off": ("-", "the cost terms set to zero (text; 'none')"),
    "binding": ("-", "the admissibility margins at zero: the optimizer's active inequalities (text)"),
    "at_bound": ("-", "the technique parameters within 1 % of a bound (text)"),
    "model": ("-", "the skating model (text: free, edge, thesis)"),
    "poles": ("-", "with poles (V2) or not (true/false)"),
    "budget": ("-", "what the cost counts (text: net, positive, metabolic, physiological)"),
    "reason": ("-", "why a point has no result, in words (text; empty when it has)"),
    # -- collocation and optimal control solutions (skilib.ocp)
    "stroke_time": ("s", "the stroke's time T"),
    "nodes": ("-", "the mesh's intervals"),
    "max_violation": ("-", "largest constraint residual at IPOPT's last iterate (scaled rows)"),
    "max_slack": ("-", "the rows' slack (scaled rows)"),
    "solve_time": ("s", "IPOPT's time"),
    "resimulation_error": ("-", "largest relative difference of speed and power of the re-simulation"),
    "resimulation_ok": ("-", "the re-simulation agrees (true/false)"),
    "complementarity": ("W", "the budget split's max min(p⁺, p⁻)"),
    "penalty": ("m/s", "the smoothness term ε Σ (1/T)∫ f‴² dt"),
    "gain": ("m/s", "progress_speed − the law-based optimum's"),
    "gain_relative": ("-", "gain over the law-based optimum's speed"),
    "law_seconds": ("s", "the law-based start's time"),
    "build_seconds": ("s", "time to build the program"),
}

#: (regex, unit, meaning) of the families of names; the first that matches wins
FAMILIES = (
    (r"q\d+", "m or rad", "generalised coordinate i (body blocks: position R in m, ZXZ angles in rad; with Euler "
                          "parameters [R p], p without dimension)"),
    (r"qd\d+", "m/s or rad/s", "generalised velocity i"),
    (r"lam\d+", "N or N m", "Lagrange multiplier of constraint row i"),
    (r"work_\w+_(positive|negative)", "J", "positive (negative) work of one actuator over the stroke"),
    (r"work_\w+", "J", "work of a force or driver (frame: cumulative within the stroke; strokes: over the stroke)"),
)
_FAMILIES = tuple((re.compile(rx), unit, meaning) for rx, unit, meaning in FAMILIES)

#: the names renamed, old → new (the old one is refused with a message naming the new)
RENAMED = {"Optimum.mean_speed": "Optimum.optimized_speed (or progress_speed, cm_speed)",
           "the optimizer's tables' mean_speed column": "optimized_speed",
           "skilib steady's mean_speed row": "cm_speed",
           "skilib optimum's mean_speed row": "progress_speed and cm_speed (meta speed: the one optimised)",
           "skilib run's last_mean_speed row": "last_cm_speed (and last_progress_speed)"}


def unit_of(name: str, parameters=None) -> str:
    """The unit of column ``name``: the vocabulary's, a family's, or (with ``parameters``) a
    number field's of that parameters dataclass (also as ``end_<field>``); ValueError naming
    ``name`` if none knows it."""
    name = str(name)
    if name in QUANTITIES:
        return QUANTITIES[name][0]
    for rx, unit, _ in _FAMILIES:
        if rx.fullmatch(name):
            return unit
    if parameters is not None:
        known = parameter_units(parameters)
        base = name[4:] if name.startswith("end_") else name
        if base in known:
            return known[base]
    raise ValueError(f"{name}: a column the vocabulary (skilib.vocabulary.QUANTITIES, FAMILIES) does not know; "
                     "give it a unit and a meaning there")


def units_of(columns, parameters=None) -> dict:
    """{column: unit} of ``columns`` (``unit_of`` each); ValueError naming the first unknown."""
    return {str(c): unit_of(c, parameters) for c in columns}


def _is_number(v) -> bool:
    """A number field (bool, int, float or a NumPy scalar), not an array, a text or None."""
    return isinstance(v, numbers.Number) or (hasattr(v, "dtype") and getattr(v, "ndim", 1) == 0)


class HasUnits:
    """The ``units`` of a result: {name: unit} of every column of its tables (``_unit_tables``
    that it has), of its number fields and of the number properties it names
    (``_unit_properties``); the technique's parameters with their units where it has
    ``params`` (the optimizer's tables carry them).  ValueError naming a column the vocabulary
    does not know."""

    _unit_tables = ("frame", "strokes", "changes", "events", "evaluations", "starts")
    _unit_properties = ()

    @property
    def units(self) -> dict:
        params = getattr(self, "params", None)
        params = params if is_dataclass(params) else None
        out = {}
        for table in self._unit_tables:
            t = getattr(self, table, None)
            if t is not None and hasattr(t, "columns"):
                out.update(units_of(t.columns, params))
        names = [f.name for f in fields(self)] if is_dataclass(self) else []
        for name in [*names, *self._unit_properties]:
            if name in out or name in self._unit_tables:
                continue
            if _is_number(getattr(self, name, None)):
                out[name] = unit_of(name, params)
        return out


# -- the parameters' units (their dataclasses' docstrings) -----------------------------------------
#: units of the fields whose class docstring states none beside the name ("-": dimensionless)
UNIT_FALLBACK = {"ski_mass": "kg", "ski_length": "m", "ski_width": "m", "ski_height": "m",
                 "shank_mass_fraction": "-", "air_density": "kg/m³", "cda": "m²", "offset_exponent": "-",
                 "friction_coefficient": "-", "body_inertia": "kg m²", "eta_positive": "-", "eta_negative": "-",
                 "eta_positive_arms": "-", "swing_cost_a": "W/kg", "swing_cost_b": "W/(kg Hz⁴)",
                 "force_rate_cost": "J/N", "resting_rate": "W/kg", "g": "m/s²"}


def doc_units(cls) -> dict:
    """{field: unit} as the class docstring states them: the first ``[unit]`` of the text after
    the field's name (up to the next field name that starts an item: at a line's start or after
    ", ", "; ", " and "); names joined by ", " or by "<symbol> and " share the unit after the
    last (``lower_leg, upper_leg  L2, L3 [m]``, ``offset_start h0 and offset_end h1 [m]``)."""
    doc = inspect.getdoc(cls) or ""
    names = sorted((f.name for f in fields(cls)), key=len, reverse=True)
    alt = "|".join(map(re.escape, names))
    hits = list(re.finditer(rf"(?:^[ \t]*|, |; | and )({alt})\b", doc, re.M))
    units, pending = {}, []
    for i, m in enumerate(hits):
        text = doc[m.end(1): hits[i + 1].start(1) if i + 1 < len(hits) else len(doc)]
        text = re.split(r"\n\s*\n|\n\s*=", text)[0]  # the item ends with its paragraph or table row
        unit = re.search(r"\[([^\]\[]+)\]", text)
        if unit:
            for n in pending + [m.group(1)]:
                units.setdefault(n, unit.group(1).strip())
            pending = []
        elif re.fullmatch(r"\s*(,|\S{1,3}\s+and)?\s*", text):  # joined to the next name
            pending.append(m.group(1))
        else:
            pending = []
    return units


def parameter_units(params) -> dict:
    """{field: unit} of the number fields of a parameters dataclass (or an instance): the
    docstring's (``doc_units``), else ``UNIT_FALLBACK``, else "deg" for a name ending in
    ``_deg`` (a field with none of them is left out); switches and text fields "-"."""
    cls = params if isinstance(params, type) else type(params)
    doc = doc_units(cls)
    out = {}
    for f in fields(cls):
        ann = str(f.type).replace(" ", "")
        if ann in ("bool", "str"):
            out[f.name] = _LABEL
        else:
            unit = doc.get(f.name) or UNIT_FALLBACK.get(f.name) or ("deg" if f.name.endswith("_deg") else "")
            if unit:
                out[f.name] = unit
    return out


def _check() -> None:  # the vocabulary's own rule: every unit a non-empty string
    bad = [n for n, (u, _) in QUANTITIES.items() if not isinstance(u, str) or not u]
    if bad:
        raise AssertionError(f"QUANTITIES without a unit: {bad}")


_check()
