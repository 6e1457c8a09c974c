"""The ``skilib`` command: the jobs people run without a notebook.

::

    skilib steady  [--model thesis|free|edge] [--param NAME=VALUE ...] [--format table|csv|json] [--out FILE]
    skilib optimum --power W  | --speed M_PER_S  [--model free|edge|thesis] [--budget net|positive|metabolic|
                   physiological] [--seed N] [--starts N] [--force-velocity F_ISO_BW,V_MAX[,C]]
                   [--arm-force-velocity F_ISO_BW,V_MAX[,C]]
    skilib technique --speed M_PER_S [--model free|edge] [--slope-percent P] [--switch-off TERM ...]
                   [--budget B] [--seed N] [--starts N]
    skilib run     --strokes N --out run.c3d [--param NAME=VALUE ...] [--csv strokes.csv]
    skilib run     --model edge --strokes N [--v0 M_PER_S] [--balance fixed|designed] [--csv strokes.csv]

``python -m skilib`` is the same command.  ``--param`` sets a field of the model's parameters
(``SkierParams`` for the thesis's skier, ``FreeSkaterParams`` for the free skater,
``EdgeSkaterParams`` for the edged skater; ``skilib steady --list-params`` lists them with their
defaults and units).  Every answer names what its power counts and the model's assumptions that
change it (air drag, friction, the course's slope, poles); ``optimum`` marks each technique
parameter on or within 1 % of a bound (``at_bound``): there the answer is the bound's, not the
model's choice.  A number is written as in
Python without underscores (75, 0.5, 1e-3); NaN and infinities are refused.

The answers use one vocabulary (``skilib.vocabulary``), each with its unit: ``progress_speed`` the
distance along the course (X) per time; ``cm_speed`` the time average of the centre of mass's
speed |Ṙ| over the stroke (a steady state's ``mean_speed``); ``mean_power`` the net mean power of
the drivers ``power_counts`` names; ``mean_leg_power`` the leg's alone.  ``skating_angle_deg`` is
the V between the two skis (each ski at half of it from the course; the thesis's skier with
``angle_convention=from_x``: each ski's angle from the course).

Exit status: 0 success; 2 a usage error or a value the model refuses (the message, no
traceback); 1 a model failure (no periodic stroke, a run over its work budget, an integration
that stops, a non-finite state).  Every output is checked before anything is computed: an
empty name, a name ending in "/", a folder that does not exist, a suffix that is not the
format's (``run``: ``--out`` ends in .c3d, ``--csv`` in .csv, any case; the units file
``<stem>.units.json`` beside a CSV is checked as well), anything but a regular
file at the name (a link, a device, a FIFO) and, without ``--overwrite``, a file that exists
are refused (``skilib.data.files.check_target``).  Outputs are written to a temporary file
beside the target and then renamed over it; a replaced file keeps its permission bits.

A negative number is an option's value (``--v0 -1``, ``--v0 -1e308``), never an option.
"""
from __future__ import annotations

import argparse
import difflib
import io
import json
import math
import re
import sys
import textwrap
from dataclasses import MISSING, dataclass, fields, replace
from pathlib import Path

from .data.files import check_target, write_atomic
from .vocabulary import UNIT_FALLBACK, doc_units

__all__ = ["main", "build_parser", "ParamInfo", "param_infos", "parse_params", "parse_number", "UsageError"]

#: the models whose parameters ``--param`` sets: model name → (module, dataclass name)
PARAM_CLASSES = {"thesis": ("skilib.models.thesis.params", "SkierParams"),
                 "free": ("skilib.models.free.params", "FreeSkaterParams"),
                 "edge": ("skilib.models.edge.params", "EdgeSkaterParams")}

#: what each model's mean power (the "net" budget) counts
POWER_COUNTS = {"thesis": "the push-off's mean power (the leg force's work on the leg's extension)",
                "free": "the leg's placement drivers' mean power (the heading driver is not counted), plus the "
                        "arms' on the poles when pole_force_max > 0",
                "edge": "the drivers' mean power (leg, fore–aft, heading), plus the arms' on the poles when "
                        "pole_force_max > 0"}
#: what a parameter's name does not say, shown beside it in the help's listing
_V = "the V between the two skis, each at half of it from the course"
PARAM_NOTES = {("thesis", "skating_angle_deg"): _V + "; with angle_convention=from_x each ski's angle from it",
               ("free", "skating_angle_deg"): _V, ("edge", "skating_angle_deg"): _V}
#: what ``cm_speed`` is in the answers (a steady state's and an optimum's: the stroke's time average)
CM_SPEED_TEXT = "time average of the CM's speed |Ṙ| over the stroke (the steady state's mean_speed)"
#: what each budget counts beyond that (``skilib.studies.optimum.BUDGETS``)
BUDGET_COUNTS = {"net": "net mechanical power: {counts}",
                 "positive": "positive work only, ΣW⁺/T of every actuator (legs' drivers and arms)",
                 "metabolic": "the cost of work, Σ(W⁺/η⁺ + |W⁻|/η⁻)/T of every actuator (eta_positive, "
                              "eta_negative, eta_positive_arms)",
                 "physiological": "the whole physiological cost: the cost of work, swinging the legs, developing "
                                  "force and resting metabolism (skilib.physiology)"}

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+]?\d+")
#: a token that is a negative number (or a signed NaN/inf, refused by ``parse_number`` by name)
_NEGATIVE = re.compile(r"-(?:\d|\.\d|inf|nan)", re.I)
_TRUE, _FALSE = ("true", "yes", "on"), ("false", "no", "off")


class UsageError(Exception):
    """A command line the program refuses (exit status 2)."""


# --------------------------------------------------------------------------- numbers
def parse_number(text: str, name: str) -> float:
    """``text`` as a finite float, written as a plain decimal or exponent number (``75``,
    ``-0.5``, ``1e-3``); ``UsageError`` naming ``name`` otherwise (``1_000``, ``nan``, ``inf``,
    ``0x10``, ``1e999`` are refused)."""
    s = text.strip()
    if not _NUMBER.fullmatch(s):
        raise UsageError(f"{name}: {text!r} is not a number (write e.g. 75, 0.5 or 1e-3)")
    x = float(s)
    if not math.isfinite(x):
        raise UsageError(f"{name}: {text!r} is not a finite number")
    return x


def _argtype(name, check):
    """An argparse type: ``check(text)``, its ``UsageError`` as argparse's error (which names
    the option itself)."""
    def convert(text):
        try:
            return check(text)
        except UsageError as e:
            raise argparse.ArgumentTypeError(str(e).split(": ", 1)[-1]) from None
    convert.__name__ = name  # argparse names the type in its messages
    return convert


def _positive(name, unit):
    def check(text):
        x = parse_number(text, name)
        if not x > 0:
            raise UsageError(f"{name}: must be > 0 {unit}, got {text!r}")
        return x
    return _argtype(name, check)


def _slope_percent(text):
    """``--slope-percent P``: a gradient within ±100 % (45°)."""
    x = parse_number(text, "--slope-percent")
    if not -100.0 <= x <= 100.0:
        raise UsageError(f"--slope-percent: must be within ±100 % (a gradient of 45°), got {text!r}")
    return x


def _limit(option, limb, who):
    def parse(text):
        """``F_ISO_BW,V_MAX[,CURVATURE]``: a ``ForceVelocityLimit`` of ``limb`` (its own checks name
        the field that is wrong)."""
        from .physiology.force_velocity import ForceVelocityLimit

        parts = [t.strip() for t in text.split(",")]
        if len(parts) not in (2, 3):
            raise UsageError(f"{option}: must be F_ISO_BW,V_MAX or F_ISO_BW,V_MAX,CURVATURE ({who} isometric force "
                             f"in body weights, the extension speed it pushes no more at in m/s, and 0 for the "
                             f"straight line or 4 for Hill's hyperbola), got {text!r}")
        values = [parse_number(t, option) for t in parts]
        try:
            return ForceVelocityLimit(*values, limb=limb)
        except ValueError as e:
            raise UsageError(f"{option}: {e}") from None
    return parse


_force_velocity = _limit("--force-velocity", "leg", "one leg's")
_arm_force_velocity = _limit("--arm-force-velocity", "arms", "one arm's")


def _limits(args):
    """The limits given (``--force-velocity``, ``--arm-force-velocity``): None, one, or a tuple."""
    given = tuple(x for x in (args.force_velocity, args.arm_force_velocity) if x is not None)
    return None if not given else given[0] if len(given) == 1 else given


def _limits_meta(args) -> dict:
    return {opt: None if lim is None else dict(force_iso_bw=lim.force_iso_bw, speed_max=lim.speed_max,
                                               curvature=lim.curvature)
            for opt, lim in (("force_velocity", args.force_velocity), ("arm_force_velocity", args.arm_force_velocity))}


def _method_option(p) -> None:
    p.add_argument("--method", choices=("auto", "shooting", "collocation"), default="auto",
                   help="auto (default: collocation for the free and edged skaters when the ocp extra is "
                        "installed, shooting otherwise; the answer says which ran), shooting (the steady "
                        "state's optimizer: the reference, a minute or more) or collocation (one IPOPT program "
                        "per start, seconds), each answer re-simulated by the model's own simulator")


def _method_used(args) -> str:
    """The method ``--method`` runs for this question (``skilib.studies.optimum.resolve_method``
    for auto), for the answer's header."""
    if args.method != "auto":
        return args.method
    from .studies.optimum import resolve_method

    method, why = resolve_method(args.model)
    return f"{method} (auto: {why})"


def _limit_options(p) -> None:
    p.add_argument("--force-velocity", type=_argtype("--force-velocity", _force_velocity), default=None,
                   metavar="F_ISO_BW,V_MAX[,C]",
                   help="the leg's force-velocity limit as a constraint (free and edge): one leg's isometric "
                        "force [body weights], the extension speed at which it pushes no more [m/s], and the "
                        "curvature (0, the default: a straight line; 4: Hill's hyperbola); no default profile")
    p.add_argument("--arm-force-velocity", type=_argtype("--arm-force-velocity", _arm_force_velocity), default=None,
                   metavar="F_ISO_BW,V_MAX[,C]",
                   help="each arm's force-velocity limit on its pole, with poles: its isometric push [body "
                        "weights], the speed of the hand from the tip at which it pushes no more [m/s], the "
                        "curvature; no default profile")


def _real(name):
    return _argtype(name, lambda text: parse_number(text, name))


def _count(name, low):
    def check(text):
        if not _INTEGER.fullmatch(text.strip()) or int(text) < low:
            raise UsageError(f"{name}: must be an integer >= {low}, got {text!r}")
        return int(text)
    return _argtype(name, check)


# --------------------------------------------------------------------------- parameters
@dataclass(frozen=True)
class ParamInfo:
    """One field of a model's parameters as the command line sees it: name, default, unit
    ("-" dimensionless, "" none: a switch or a choice), kind ("number", "optional number",
    "switch", "choice", "text", "numbers") and, for a choice, its values."""
    name: str
    default: object
    unit: str
    kind: str
    choices: tuple = ()

    def default_text(self) -> str:
        d = self.default
        if d is None:
            return "none"
        if isinstance(d, bool):
            return "true" if d else "false"
        if isinstance(d, tuple):
            return ",".join(f"{v:g}" for v in d)
        return f"{d:g}" if isinstance(d, float) else str(d)

    def unit_text(self) -> str:
        if self.kind == "switch":
            return "true|false"
        if self.kind == "choice":
            return "|".join(self.choices)
        return self.unit or "-"


def _param_class(model: str):
    import importlib

    module, name = PARAM_CLASSES[model]
    return getattr(importlib.import_module(module), name)


def param_infos(model: str) -> list:
    """The ``ParamInfo`` of every field of ``model``'s parameters ("thesis": ``SkierParams``,
    "free": ``FreeSkaterParams``), in the dataclass's order: default from the dataclass, unit
    from its docstring (else ``UNIT_FALLBACK``, else "deg" for a name ending in ``_deg``)."""
    import importlib

    cls = _param_class(model)
    module = importlib.import_module(cls.__module__)
    doc = doc_units(cls)
    out = []
    for f in fields(cls):
        default = f.default if f.default is not MISSING else (
            f.default_factory() if f.default_factory is not MISSING else None)
        ann = str(f.type).replace(" ", "")
        choices = tuple(getattr(module, f.name.upper() + "S", ()) or ())
        if ann == "bool":
            kind = "switch"
        elif ann == "str":
            kind = "choice" if choices else "text"
        elif ann in ("float|None", "Optional[float]"):
            kind = "optional number"
        elif ann in ("tuple", "list") or ann.startswith("tuple"):
            kind = "numbers"
        else:
            kind = "number"
        unit = ""
        if kind in ("number", "optional number", "numbers"):
            unit = doc.get(f.name) or UNIT_FALLBACK.get(f.name) or ("deg" if f.name.endswith("_deg") else "")
        out.append(ParamInfo(f.name, default, unit, kind, choices if kind == "choice" else ()))
    return out


def _convert(info: ParamInfo, text: str):
    name, low = info.name, text.strip().lower()
    if info.kind == "switch":
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise UsageError(f"{name}: {text!r} is not a switch (write true or false)")
    if info.kind in ("choice", "text"):
        return text
    if info.kind == "optional number" and low == "none":
        return None
    if info.kind == "numbers":
        return tuple(parse_number(t, name) for t in text.split(","))
    return parse_number(text, name)


def parse_params(model: str, items) -> dict:
    """{field: value} of ``--param NAME=VALUE`` items for ``model``; ``UsageError`` naming an
    unknown field (with close matches), a malformed item or a value that is not of the field's
    kind.  The values themselves are checked by the parameters' class."""
    infos = {p.name: p for p in param_infos(model)}
    out = {}
    for item in items or ():
        name, eq, value = item.partition("=")
        name = name.strip()
        if not eq or not name:
            raise UsageError(f"--param: write NAME=VALUE, got {item!r}")
        if name not in infos:
            close = difflib.get_close_matches(name, list(infos), n=3, cutoff=0.6)
            hint = (f"did you mean {', '.join(close)}?" if close
                    else f"the {model} model's parameters: {', '.join(infos)}")
            raise UsageError(f"--param: unknown parameter {name!r} of the {model} model; {hint}")
        if name in out:
            raise UsageError(f"--param: {name} given twice")
        out[name] = _convert(infos[name], value)
    return out


def make_params(model: str, items):
    """The model's parameters with the ``--param`` items (its ``ValueError`` on a refused value)."""
    return _param_class(model)(**parse_params(model, items))


def _wrap_items(items, indent: str, width: int = 88) -> str:
    """``items`` joined by ", " in lines of at most ``width`` characters, broken between items."""
    lines, line = [], ""
    for item in items:
        if line and len(indent) + len(line) + len(item) + 2 > width:
            lines.append(line + ",")
            line = ""
        line = f"{line}, {item}" if line else item
    return "\n".join(indent + x for x in lines + [line])


def params_listing(model: str, compact: bool = False) -> str:
    """The parameters of ``model`` as text: one per line (name, default, unit), or wrapped."""
    infos = param_infos(model)
    cls = _param_class(model).__name__
    if compact:
        return _wrap_items([f"{p.name}={p.default_text()}" + (f" [{p.unit}]" if p.unit not in ("", "-") else "")
                            for p in infos], "  ")
    w = max(len(p.name) for p in infos)
    lines = [f"  {p.name:<{w}}  {p.default_text():>10}  {p.unit_text()}"
             + (f"  ({PARAM_NOTES[model, p.name]})" if (model, p.name) in PARAM_NOTES else "") for p in infos]
    return f"{model} model ({cls}; --param NAME=VALUE; default, unit):\n" + "\n".join(lines)


# --------------------------------------------------------------------------- output
@dataclass
class Row:
    quantity: str
    value: object
    unit: str
    description: str = ""


def _json_value(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if hasattr(v, "item"):  # a numpy scalar
        return _json_value(v.item())
    return v


def render(rows, fmt: str, meta: dict) -> str:
    """The rows as a human table, CSV (quantity,value,unit; full precision) or JSON
    ({**meta, "results": {quantity: value}, "units": {quantity: unit}})."""
    if fmt == "json":
        doc = dict(meta, results={r.quantity: _json_value(r.value) for r in rows},
                   units={r.quantity: r.unit for r in rows})
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        import csv

        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["quantity", "value", "unit"])
        for r in rows:
            w.writerow([r.quantity, repr(_json_value(r.value)) if isinstance(r.value, float) else r.value, r.unit])
        return buf.getvalue()
    def shown(v):
        return f"{v:.6g}" if isinstance(v, float) else str(v)
    wq = max(len(r.quantity) for r in rows)
    wv = max(len(shown(r.value)) for r in rows)
    wu = max(len(r.unit) for r in rows)
    head = [f"{k}: {v}" for k, v in meta.items() if k != "parameters"]
    if meta.get("parameters"):
        head.append("parameters: " + ", ".join(f"{k}={v}" for k, v in meta["parameters"].items()))
    body = [f"{r.quantity:<{wq}}  {shown(r.value):>{wv}}  {r.unit:<{wu}}  {r.description}".rstrip() for r in rows]
    return "\n".join(head + [""] + body) + "\n"


def _check_target(path, overwrite: bool, what: str, suffixes=None):
    """``path`` as a Path, refused (``UsageError``, before any work) if it is empty, exists
    without ``overwrite``, is a folder, a link or not a regular file, has a suffix not in
    ``suffixes``, or its folder does not exist (``skilib.data.files.check_target``)."""
    if path is None:
        return None
    if not path.strip():
        raise UsageError(f"{what}: needs a file name, got {path!r}")
    try:
        return check_target(path, overwrite=overwrite, what=f"{what} file", suffixes=suffixes)
    except (OSError, ValueError) as e:
        raise UsageError(f"{what}: {e}".replace("pass overwrite=True", "give --overwrite")) from None


def _write_atomic(path: Path, write, overwrite: bool, *, atomic: bool = True):
    """``write(tmp)`` to a temporary file beside ``path``, moved onto it when complete
    (``skilib.data.files.write_atomic``; refused if ``path`` appeared meanwhile, without ``overwrite``);
    ``atomic=False``: ``write(path)`` is itself an atomic writer (``SimResult.to_c3d``)."""
    try:
        return write_atomic(path, write, overwrite=overwrite) if atomic else write(path)
    except (FileExistsError, IsADirectoryError) as e:
        raise UsageError(f"{e}".replace("pass overwrite=True", "give --overwrite")) from None


def _emit(text: str, out, overwrite: bool):
    if out is None:
        sys.stdout.write(text)
    else:
        _write_atomic(out, lambda p: p.write_text(text, encoding="utf-8"), overwrite)


def assumptions(model: str, params) -> dict:
    """The model's assumptions that change its answers, as {name: value} (JSON) — air drag on or
    off with its ρ and C_dA, the snow's friction (the thesis's constant force [N]; the skaters'
    coefficient μ on the snow's load), the course's slope [°], the poles' peak force [N] — and
    their one-line summary for the text table."""
    out = {"air_drag": bool(params.air_drag)}
    if params.air_drag:
        out.update(air_density=float(params.air_density), cda=float(params.cda))
    if model == "thesis":
        out["friction"] = float(params.friction)
    else:
        out["friction_coefficient"] = float(params.friction_coefficient)
    out["slope_deg"] = float(params.slope_deg)
    if model != "thesis":
        out["pole_force_max"] = float(params.pole_force_max)
    return out


def assumptions_text(model: str, found: dict) -> str:
    words = [f"air drag on (ρ = {found['air_density']:g} kg/m³, C_dA = {found['cda']:g} m²)" if found["air_drag"]
             else "air drag off" + (" (the thesis's choice)" if model == "thesis" else "")]
    words.append(f"friction {found['friction']:g} N (constant)" if model == "thesis"
                 else f"friction μ = {found['friction_coefficient']:g} on the snow's load")
    words.append(f"slope {found['slope_deg']:g}°")
    if model != "thesis":
        words.append(f"poles {found['pole_force_max']:g} N peak each" if found["pole_force_max"] > 0 else "no poles")
    return ", ".join(words)


def _warnings(meta: dict, found: list, fmt: str) -> None:
    """The plausibility warnings into ``meta``: JSON a list of dicts (empty if none), the table
    one line each above the numbers (CSV holds the numbers only)."""
    if fmt == "json":
        meta["warnings"] = [w.as_dict() for w in found]
    else:
        for k, w in enumerate(found, 1):
            meta[f"warning {k}"] = str(w)


def _progress_on(args) -> bool:
    return sys.stderr.isatty() if args.progress is None else bool(args.progress)


def _has_casadi() -> bool:
    """Whether CasADi (the ``ocp`` extra) is installed: the variational equations need it."""
    import importlib.util

    return importlib.util.find_spec("casadi") is not None


def cmd_steady(args) -> int:
    if args.list_params:
        infos = param_infos(args.model)
        rows = [Row(p.name, p.default, p.unit_text(), p.kind) for p in infos]
        if args.format == "table":
            text = params_listing(args.model) + "\n"
        else:
            text = render(rows, args.format, dict(model=args.model))
        _emit(text, _check_target(args.out, args.overwrite, "--out"), args.overwrite)
        return 0
    out = _check_target(args.out, args.overwrite, "--out")
    over = parse_params(args.model, args.param)
    params = _param_class(args.model)(**over)
    on = _progress_on(args)
    if args.model == "free":
        from .models.free.steady import free_steady_state

        # its stability: Φ′(u0) by the variational equations, where CasADi is installed (skilib[ocp])
        ss = free_steady_state(params, progress=on, multiplier=_has_casadi())
        row = ss.strokes.iloc[0]
        rows = [Row("progress_speed", ss.progress_speed, "m/s", "distance along the course (X) per time"),
                Row("cm_speed", ss.mean_speed, "m/s", CM_SPEED_TEXT),
                Row("mean_power", ss.mean_power, "W", "net mean power of the leg (and the arms' with poles)"),
                Row("mean_leg_power", ss.mean_leg_power, "W", "net mean power of the leg (its placement drivers)"),
                Row("stroke_time", params.stroke_time, "s", "one stroke"),
                Row("distance_per_stroke", float(row["distance_x"]), "m", "along the course"),
                Row("u0", ss.u0, "m/s", "ski speed along itself at every touch-down"),
                Row("min_ski_speed", float(row["min_ski_speed"]), "m/s", "least ski speed over the stroke"),
                Row("peak_leg_force_bw", ss.peak_leg_force_bw, "body weights", "largest leg force"),
                Row("metabolic_power", float(row["metabolic_power"]), "W", "the cost of work (η⁺, η⁻)"),
                Row("metabolic_total", float(row["metabolic_total"]), "W",
                    "the whole physiological cost (work, leg swing, force rate, rest)"),
                Row("multiplier", ss.multiplier, "-",
                    "Φ′(u0), the stroke map's slope at the periodic stroke (|·| < 1: a run approaches it; NaN "
                    "without CasADi)"),
                Row("residual", ss.residual, "m/s", "|Φ(u0) − u0|"),
                Row("iterations", ss.iterations, "-", "strokes simulated")]
    elif args.model == "edge":
        from .models.edge.steady import edge_steady_state

        ss = edge_steady_state(params, progress=on)
        row = ss.strokes.iloc[0]
        rows = [Row("progress_speed", ss.progress_speed, "m/s", "distance along the course (X) per time"),
                Row("cm_speed", ss.mean_speed, "m/s", CM_SPEED_TEXT),
                Row("mean_power", ss.mean_power, "W", "net mean power of the drivers (leg, fore–aft, heading; and "
                    "the arms' with poles)"),
                Row("mean_leg_power", ss.mean_leg_power, "W", "net mean power of the leg (its extension)"),
                Row("stroke_time", params.stroke_time, "s", "one stroke"),
                Row("distance_per_stroke", float(row["distance_x"]), "m", "along the course"),
                Row("u0", ss.u0, "m/s", "ski speed along itself at every touch-down"),
                Row("min_ski_speed", float(row["min_ski_speed"]), "m/s", "least ski speed over the stroke"),
                Row("peak_leg_force_bw", ss.peak_leg_force_bw, "body weights", "largest leg force"),
                Row("min_leg_force", ss.min_leg_force, "N", "least leg force (the leg only pushes: ≥ 0)"),
                Row("max_abs_lean_deg", ss.max_abs_lean_deg, "deg", "largest lean of the body"),
                Row("metabolic_power", ss.metabolic_power, "W", "the cost of work (η⁺, η⁻)"),
                Row("metabolic_total", ss.metabolic_total, "W",
                    "the whole physiological cost (work, leg swing, force rate, rest)"),
                Row("largest_multiplier", float(abs(ss.multipliers).max()), "-",
                    "largest |eigenvalue| of the stroke map (> 1: the open-loop stroke is unstable)"),
                Row("residual", float(abs(ss.residual).max()), "-", "max |Φ(x0) − x0| (m/s, rad/s, m)"),
                Row("iterations", ss.iterations, "-", "stroke maps evaluated")]
    else:
        from .models.thesis.steady import steady_state

        ss = steady_state(params, progress=on)
        row = ss.strokes.iloc[0]
        rows = [Row("progress_speed", ss.progress_speed, "m/s", "distance along the course (X) per time"),
                Row("cm_speed", ss.mean_speed, "m/s", CM_SPEED_TEXT),
                Row("mean_power", ss.mean_power, "W", "net mean push-off power"),
                Row("mean_leg_power", ss.mean_leg_power, "W", "net mean power of the leg (the push-off)"),
                Row("stroke_time", params.phase_time, "s", "one active phase"),
                Row("distance_per_stroke", float(row["distance_x"]), "m", "along the course"),
                Row("u0", ss.u0, "m/s", "ski speed along the ski at the start of every stroke"),
                Row("min_ski_speed", float(row["min_ski_speed"]), "m/s", "least ski speed over the stroke"),
                Row("residual", ss.residual, "m/s", "Φ(u0) − u0"),
                Row("iterations", ss.iterations, "-", "strokes simulated")]
    found = assumptions(args.model, params)
    meta = dict(command="steady", model=args.model, power_counts=POWER_COUNTS[args.model],
                assumptions=found if args.format == "json" else assumptions_text(args.model, found))
    from .studies.plausible import plausibility

    _warnings(meta, plausibility(params, mean_power=ss.mean_power,
                                 peak_leg_force_bw=float(getattr(ss, "peak_leg_force_bw", math.nan))), args.format)
    meta["parameters"] = over
    _emit(render(rows, args.format, meta), out, args.overwrite)
    return 0


def cmd_optimum(args) -> int:
    out = _check_target(args.out, args.overwrite, "--out")
    over = parse_params(args.model, args.param)
    base = _param_class(args.model)(**over)
    kw = dict(seed=args.seed, params=base, budget=args.budget, progress=_progress_on(args))
    if args.starts is not None:
        kw["starts"] = args.starts
    if _limits(args) is not None:
        kw["force_velocity"] = _limits(args)
    if args.method != "shooting":
        kw["method"] = args.method
    method = _method_used(args)
    if args.speed is not None:
        from .studies.optimum import required_power

        opt = required_power(args.model, args.speed, **kw)
        target = dict(speed=args.speed)
    else:
        from .studies.optimum import optimize_technique

        opt = optimize_technique(args.model, args.power, **kw)
        target = dict(power=args.power)
    units = {p.name: p.unit for p in param_infos(args.model)}
    least = args.speed is not None
    chosen = "cm_speed" if opt.speed == "cm" else "progress_speed"
    which = f" (the {'target' if least else 'greatest'} speed)"
    rows = [Row("progress_speed", opt.progress_speed, "m/s", "distance along the course (X) per time"
                + (which if chosen == "progress_speed" else "")),
            Row("cm_speed", opt.cm_speed, "m/s", CM_SPEED_TEXT + (which if chosen == "cm_speed" else "")),
            Row("mean_power", opt.mean_power, "W", "net mean power of the steady state (see power_counts)"),
            Row("mean_leg_power", opt.mean_leg_power, "W", "net mean power of the leg alone"),
            Row("budget_power", opt.budget_power, "W", f"the {'least ' if least else ''}power of the {opt.budget} "
                "budget"),
            Row("peak_leg_force_bw", opt.peak_leg_force_bw, "body weights", "largest leg force"),
            Row("feasible", bool(opt.feasible), "-", "the target met to the tolerance")]
    if _limits(args) is not None:
        rows.append(Row("force_velocity_margin", opt.force_velocity_margin, "body weights",
                        "the stroke's least margin to the limbs' force–velocity limits (0: a limit binds)"))
    at = opt.at_bound
    rows += [Row(n, float(v), units.get(n, ""), "technique at the optimum (bounds "
                 f"{opt.bounds[n][0]:g}–{opt.bounds[n][1]:g})" + (f" AT ITS {at[n].upper()} BOUND" if n in at else ""))
             for n, v in opt.x.items()]
    found = assumptions(args.model, base)
    counts = BUDGET_COUNTS[args.budget].format(counts=POWER_COUNTS[args.model])
    meta = dict(command="optimum", model=args.model, **target, optimized_speed=chosen, budget=args.budget,
                power_counts=counts, seed=args.seed, method=method, **_limits_meta(args),
                assumptions=found if args.format == "json" else assumptions_text(args.model, found))
    if args.format == "json":
        meta["at_bound"] = at
    else:
        meta["at_bound"] = (", ".join(f"{n} ({s})" for n, s in at.items()) + " — within 1 % of a bound: the "
                            "bound's answer, not the model's choice") if at else "none"
    _warnings(meta, opt.warnings, args.format)
    meta["parameters"] = over
    _emit(render(rows, args.format, meta), out, args.overwrite)
    if not opt.feasible:
        print("skilib optimum: no start met the target to the tolerance; the closest point is shown"
              + (f": {opt.reason}" if getattr(opt, "reason", "") else ""), file=sys.stderr)
        return 1
    return 0


def cmd_technique(args) -> int:
    """The technique of least whole cost at a speed (``skilib.studies.choose_technique``): the row
    a coach reads, each quantity with its unit from the vocabulary."""
    from .studies.technique_choice import choose_technique
    from .vocabulary import QUANTITIES, unit_of

    out = _check_target(args.out, args.overwrite, "--out")
    over = parse_params(args.model, args.param)
    base = _param_class(args.model)(**over)
    if "slope_deg" in over:
        raise UsageError("--param slope_deg: the course's gradient is --slope-percent here (the study's own "
                         "input, in %)")
    row = choose_technique(args.model, args.speed, slope_percent=args.slope_percent, params=base,
                           budget=args.budget, switched_off=tuple(args.switch_off or ()), starts=args.starts,
                           seed=args.seed, progress=_progress_on(args), force_velocity=_limits(args),
                           **({"method": args.method} if args.method != "shooting" else {}))
    text = {"budget_power": f"the least power of the {args.budget} budget that holds the speed",
            "at_bound": "technique parameters within 1 % of a bound: there the bound answers, not the model",
            "binding": "admissibility margins at zero: what stops the technique going further"}
    rows = []
    for k, v in row.items():
        if k in ("model", "budget"):
            continue
        unit = unit_of(k, base)
        meaning = text.get(k, QUANTITIES[k][1] if k in QUANTITIES else "technique at the optimum")
        if isinstance(v, float) and math.isnan(v):
            meaning = "not in this stroke (no poles)"
        rows.append(Row(k, v if isinstance(v, str) else (bool(v) if isinstance(v, bool) else float(v)), unit,
                        meaning))
    found = assumptions(args.model, replace(base, slope_deg=math.degrees(math.atan(args.slope_percent / 100.0))))
    counts = BUDGET_COUNTS[args.budget].format(counts=POWER_COUNTS[args.model])
    meta = dict(command="technique", model=args.model, speed=args.speed, slope_percent=args.slope_percent,
                budget=args.budget, power_counts=counts, seed=args.seed, starts=args.starts, method=_method_used(args),
                **_limits_meta(args),
                assumptions=found if args.format == "json" else assumptions_text(args.model, found))
    # the bounds the answer presses on, at the top as in ``optimum``: there the bound answers
    meta["at_bound"] = (row["at_bound"] + (" — within 1 % of a bound: the bound's answer, not the model's choice"
                                           if args.format != "json" else "")) if row["at_bound"] else "none"
    meta["parameters"] = over
    _emit(render(rows, args.format, meta), out, args.overwrite)
    if not row["feasible"]:
        print("skilib technique: no start met the speed to the tolerance; the closest technique is shown",
              file=sys.stderr)
        return 1
    return 0


#: ``run``'s options of the thesis's skier only, with their defaults there
_THESIS_RUN_OPTIONS = {"force_scale": 1.0, "stroke_change": "along_ski", "reduced": False}


def _check_run_options(args) -> None:
    """``run``'s options that do not apply to ``--model``, refused by name before anything runs:
    the edged skater writes no C3D (``--out``) and has no push-off force scale, stroke-change
    rule or quadrature (``--reduced``); the thesis's skier has no balance rule, and needs ``--out``."""
    if args.model == "edge":
        given = [f"--{k.replace('_', '-')}" for k in (*_THESIS_RUN_OPTIONS, "out") if getattr(args, k) is not None]
        if given:
            raise UsageError(f"{', '.join(given)}: the thesis's skier's only (C3D markers, push-off force, stroke "
                             "change, quadrature); the edged skater's run writes its per-stroke table with --csv "
                             "FILE.csv")
        return
    if args.balance is not None:
        raise UsageError("--balance: the edged skater's landing rule (--model edge); the thesis's skier has none")
    if args.out is None:
        raise UsageError("--out: the thesis's skier's run is written as a C3D file: give --out FILE.c3d")
    for k, v in _THESIS_RUN_OPTIONS.items():
        if getattr(args, k) is None:
            setattr(args, k, v)


def _check_csv(args, out):
    """``--csv`` and its units file (``<stem>.units.json``) checked as outputs, before any work."""
    csv_path = _check_target(args.csv, args.overwrite, "--csv", suffixes=(".csv",))
    if csv_path is None:
        return None
    if out is not None and csv_path.resolve() == out.resolve():
        raise UsageError("--csv: the same file as --out")
    from .data.files import units_sidecar

    _check_target(str(units_sidecar(csv_path)), args.overwrite, "--csv's units file")
    return csv_path


def _save_strokes(res, csv_path, overwrite: bool) -> None:
    """The per-stroke table as CSV with its units file (``skilib.data.files.save_table``)."""
    from .data.files import save_table

    try:
        save_table(res.strokes, csv_path, overwrite=overwrite, units=res.units, index=False)
    except (FileExistsError, IsADirectoryError) as e:
        raise UsageError(f"{e}".replace("pass overwrite=True", "give --overwrite")) from None


def cmd_run(args) -> int:
    _check_run_options(args)
    if args.model == "edge":
        return _run_edge(args)
    out = _check_target(args.out, args.overwrite, "--out", suffixes=(".c3d",))
    csv_path = _check_csv(args, out)
    from .data.c3d import ezc3d_module

    ezc3d_module()  # the C3D writer is there, before a long run
    over = parse_params(args.model, args.param)
    params = _param_class(args.model)(**over)
    if args.dt_out > params.phase_time:
        raise UsageError(f"--dt-out: {args.dt_out:g} s is longer than a stroke ({params.phase_time:g} s, phase_time): "
                         "the run would keep only the strokes' ends; give at most the stroke time")
    from .models.thesis.run import simulate_run

    res = simulate_run(params, strokes=args.strokes, v0=0.0 if args.v0 is None else args.v0,
                       force_scale=args.force_scale, dt_out=args.dt_out,
                       first_ski=args.first_ski, stroke_change=args.stroke_change, reduced=args.reduced,
                       progress=_progress_on(args))
    _write_atomic(out, lambda p: res.to_c3d(p, overwrite=args.overwrite), args.overwrite, atomic=False)
    if csv_path is not None:
        _save_strokes(res, csv_path, args.overwrite)
    rows = _run_rows(res) + [Row("c3d", str(out), "", "")]
    if csv_path is not None:
        rows.append(Row("csv", str(csv_path), "", "per-stroke table (units: <stem>.units.json)"))
    sys.stdout.write(render(rows, args.format, dict(command="run", model=args.model,
                                                    power_counts=POWER_COUNTS[args.model], parameters=over)))
    return 0


def _run_rows(res) -> list:
    """The answer of ``run``: its length, time and distance, and its last stroke's speeds and powers
    (the names of the strokes table, ``skilib.vocabulary``)."""
    st = res.strokes
    last = st.iloc[-1]
    return [Row("strokes", int(len(st)), "-", ""),
            Row("duration", float(res.frame["t"].iloc[-1]), "s", ""),
            Row("distance_x", float(st["distance_x"].sum()), "m", "along the course (X), the strokes' sum"),
            Row("last_progress_speed", float(last["progress_speed"]), "m/s",
                "last stroke's distance along the course (X) per time"),
            Row("last_cm_speed", float(last["mean_speed"]), "m/s",
                "last stroke's time average of the CM's speed |Ṙ| (its mean_speed)"),
            Row("last_mean_power", float(last["mean_power"]), "W", "last stroke's net mean power (see power_counts)"),
            Row("last_mean_leg_power", float(last.get("mean_leg_power", last["mean_power"])), "W",
                "last stroke's net mean power of the leg")]


def _run_edge(args) -> int:
    """``skilib run --model edge``: ``simulate_edge(params, strokes=N)`` from the periodic stroke
    (``--v0``: from that speed), ``--balance designed`` with the landing rule designed for it; its
    per-stroke table with --csv (and the units file)."""
    csv_path = _check_csv(args, None)
    over = parse_params(args.model, args.param)
    params = _param_class(args.model)(**over)
    if args.dt_out > params.stroke_time:
        raise UsageError(f"--dt-out: {args.dt_out:g} s is longer than a stroke ({params.stroke_time:g} s, "
                         "stroke_time): the run would keep only the strokes' ends; give at most the stroke time")
    from .models.edge.run import simulate_edge

    res = simulate_edge(params, strokes=args.strokes, v0="periodic" if args.v0 is None else args.v0,
                        dt_out=args.dt_out, first_ski=args.first_ski,
                        balance="designed" if args.balance == "designed" else None, progress=_progress_on(args))
    if csv_path is not None:
        _save_strokes(res, csv_path, args.overwrite)
    rows = _run_rows(res)
    if csv_path is not None:
        rows.append(Row("csv", str(csv_path), "", "per-stroke table (units: <stem>.units.json)"))
    meta = dict(command="run", model="edge", start="periodic stroke" if args.v0 is None else f"v0 = {args.v0:g} m/s",
                balance=args.balance or "fixed", power_counts=POWER_COUNTS["edge"], parameters=over)
    sys.stdout.write(render(rows, args.format, meta))
    return 0


# --------------------------------------------------------------------------- the parser
class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions wrapped, epilogs (the parameter tables) as written."""

    def _fill_text(self, text, width, indent):
        return text if "\n" in text else textwrap.fill(text, min(width, 88), initial_indent=indent,
                                                        subsequent_indent=indent)


def _common(p, *, model_choices, model_default, out_help):
    p.add_argument("--model", choices=model_choices, default=model_default,
                   help=f"the model (default {model_default})")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="set a parameter of the model (repeatable; units below)")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                   help="output: a human table (default), CSV (quantity,value,unit) or JSON, full precision")
    if out_help:
        p.add_argument("--out", metavar="FILE", help=out_help)
    p.add_argument("--overwrite", action="store_true", help="replace output files that exist")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: when stderr is a terminal)")


def _epilog(models) -> str:
    return "\n\n".join(params_listing(m) for m in models) + (
        "\n\nA number is written as 75, 0.5 or 1e-3 (no underscores, NaN or inf); a switch as\n"
        "true or false; ankle_offset may be none (L2/2).")


def _optimum_epilog() -> str:
    from .studies.optimum import EDGE_BOUNDS, FREE_BOUNDS, THESIS_BOUNDS

    parts = []
    for model, bounds in (("free", FREE_BOUNDS), ("edge", EDGE_BOUNDS), ("thesis", THESIS_BOUNDS)):
        units = {p.name: p.unit for p in param_infos(model)}
        parts.append(f"optimised ({model}; bounds):\n" + _wrap_items(
            [f"{n} {lo:g}–{hi:g} {units.get(n, '')}".rstrip() for n, (lo, hi) in bounds.items()], "  "))
    return ("\n".join(parts) + "\n--param sets the parameters not optimised.\n\n"
            + _epilog(("free", "edge", "thesis")))


def build_parser() -> argparse.ArgumentParser:
    """The ``skilib`` command's parser."""
    top = argparse.ArgumentParser(
        prog="skilib", formatter_class=_Formatter,
        description="A multibody model of cross-country ski skating (a reimplementation of Bruzzo 2012): "
                    "steady states [m/s, W], optimum techniques and long runs to C3D from the command line.",
        epilog="Parameters (--param NAME=VALUE; default and unit):\n\n thesis (SkierParams):\n"
               + params_listing("thesis", compact=True) + "\n\n free (FreeSkaterParams):\n"
               + params_listing("free", compact=True) + "\n\n edge (EdgeSkaterParams):\n"
               + params_listing("edge", compact=True)
               + "\n\nExit status: 0 success, 2 usage error or refused value, 1 model failure.\n"
                 "`skilib COMMAND --help` for each command.")
    from . import __version__

    top.add_argument("--version", action="version", version=f"skilib {__version__}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("steady", formatter_class=_Formatter,
                       help="the steady state (periodic stroke): speed [m/s], power [W], stroke time [s]",
                       description="The steady state of a model, the periodic stroke a long run approaches: mean "
                                   "and progress speed [m/s], mean power [W], stroke time [s], distance per "
                                   "stroke [m] (skilib.steady_state / skilib.free_steady_state).",
                       epilog=_epilog(("thesis", "free", "edge")))
    _common(p, model_choices=("thesis", "free", "edge"), model_default="thesis",
            out_help="write the output to FILE instead of stdout")
    p.add_argument("--list-params", action="store_true",
                   help="list the model's parameters (name, default, unit) and exit")
    p.set_defaults(handler=cmd_steady)

    p = sub.add_parser("optimum", formatter_class=_Formatter,
                       help="the fastest technique at a mean power [W], or the least power for a speed [m/s]",
                       description="The optimum technique (skilib.optimize_technique): the fastest steady "
                                   "skating [m/s] at a mean power --power [W], or the least mean power [W] that "
                                   "reaches the speed --speed [m/s]; seeded, deterministic.",
                       epilog=_optimum_epilog())
    _common(p, model_choices=("free", "edge", "thesis"), model_default="free",
            out_help="write the output to FILE instead of stdout")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--power", type=_positive("--power", "W"), metavar="W",
                        help="mean power budget [W], > 0")
    target.add_argument("--speed", type=_positive("--speed", "m/s"), metavar="M_PER_S",
                        help="target speed along the course [m/s], > 0: the least power that reaches it")
    p.add_argument("--budget", choices=tuple(BUDGET_COUNTS), default="net",
                   help="what the power counts (default net): net mechanical power; positive work; the "
                        "metabolic cost of work; the whole physiological cost (free and edge)")
    p.add_argument("--seed", type=_count("--seed", 0), default=0, metavar="N", help="seed of the starting points (default 0)")
    p.add_argument("--starts", type=_count("--starts", 1), default=None, metavar="N",
                   help="number of seeded starts (default: the function's, 4)")
    _limit_options(p)
    _method_option(p)
    p.set_defaults(handler=cmd_optimum)

    from .studies.technique_choice import SWITCHES

    p = sub.add_parser("technique", formatter_class=_Formatter,
                       help="the technique a skier would choose at a speed [m/s]: the least whole cost [W]",
                       description="The technique of least whole physiological cost (work, leg swing, force "
                                   "rate, rest) that holds --speed [m/s] on a gradient of --slope-percent [%] "
                                   "(skilib.studies.choose_technique): stroke time [s], cycle rate [Hz], push-off "
                                   "time [s], V [deg], peak forces [body weights], each cost term [W], gross "
                                   "efficiency, the bounds and margins that bind; seeded, deterministic.",
                       epilog=_epilog(("free", "edge")))
    _common(p, model_choices=("free", "edge"), model_default="free",
            out_help="write the output to FILE instead of stdout")
    p.add_argument("--speed", type=_positive("--speed", "m/s"), metavar="M_PER_S", required=True,
                   help="the speed along the course to hold [m/s], > 0")
    p.add_argument("--slope-percent", type=_argtype("--slope-percent", _slope_percent), default=0.0, metavar="P",
                   help="the course's gradient [%%] (default 0: flat), within ±100")
    p.add_argument("--switch-off", action="append", choices=tuple(SWITCHES), metavar="TERM",
                   help=f"set a cost term to zero (repeatable: {', '.join(SWITCHES)}): what it decides")
    p.add_argument("--budget", choices=tuple(BUDGET_COUNTS), default="physiological",
                   help="what the cost counts (default: the whole physiological cost)")
    p.add_argument("--seed", type=_count("--seed", 0), default=0, metavar="N", help="seed of the starting points (default 0)")
    p.add_argument("--starts", type=_count("--starts", 1), default=1, metavar="N",
                   help="number of seeded starts (default 1)")
    _limit_options(p)
    _method_option(p)
    p.set_defaults(handler=cmd_technique)

    from .models.thesis.run import STROKE_CHANGE_RULES

    p = sub.add_parser("run", formatter_class=_Formatter,
                       help="a long run: the thesis's skier to C3D (markers [mm], forces [N]), the edged skater "
                            "to CSV",
                       description="A run of alternating strokes.  The thesis's skier (default; skilib.simulate_run) "
                                   "is written as a C3D file (--out: markers in mm, analog forces in N, stroke "
                                   "events); the edged skater (--model edge; skilib.simulate_edge, from its periodic "
                                   "stroke unless --v0 is given) has no C3D layout: --out is refused, its run is "
                                   "answered in numbers and written with --csv.  --csv writes the per-stroke table "
                                   "(speeds [m/s], powers [W], works [J]) and beside it <stem>.units.json, the unit "
                                   "of every column.",
                       epilog=_epilog(("thesis", "edge")))
    _common(p, model_choices=("thesis", "edge"), model_default="thesis", out_help=None)
    p.add_argument("--strokes", type=_count("--strokes", 1), required=True, metavar="N", help="number of strokes (>= 1)")
    p.add_argument("--out", metavar="FILE.c3d", help="the C3D file to write (the thesis's skier: required; the "
                                                     "edged skater: refused)")
    p.add_argument("--csv", metavar="FILE.csv", help="also write the per-stroke table as CSV, and the unit of each "
                                                     "column as FILE.units.json")
    p.add_argument("--v0", type=_real("--v0"), default=None, metavar="M_PER_S",
                   help="initial ski speed [m/s] (default: thesis 0; edge the periodic stroke's start)")
    p.add_argument("--balance", choices=("fixed", "designed"), default=None,
                   help="edge only: the landing offset fixed (default: open loop, up to 50 strokes from the periodic "
                        "stroke) or chosen by the rule designed for the periodic stroke (stable, any --v0 of 3–5.5 m/s)")
    p.add_argument("--force-scale", type=_real("--force-scale"), default=None, metavar="X",
                   help="thesis only: multiplies the push-off force [-] (default 1)")
    p.add_argument("--dt-out", type=_positive("--dt-out", "s"), default=0.01, metavar="S",
                   help="output step [s] (default 0.01), at most the stroke time T (phase_time): each stroke "
                        "is cut into round(T/S) equal steps, so the step used is T/round(T/S) (0.3 with T = 1 s "
                        "gives 1/3 s) and the C3D frame rate is round(T/S)/T Hz, not necessarily an integer")
    p.add_argument("--first-ski", choices=("right", "left"), default="right", help="the first stroke's ski")
    p.add_argument("--stroke-change", choices=STROKE_CHANGE_RULES, default=None,
                   help="thesis only: the rule from one stroke to the next (default along_ski)")
    p.add_argument("--reduced", action="store_const", const=True, default=None,
                   help="thesis only: each stroke by quadrature in the skier's one coordinate s instead of the "
                        "integrator's steps (faster; the same run to the stepped run's error, ~1e-10; needs air "
                        "drag off)")
    p.set_defaults(handler=cmd_run)
    return top


def join_negative_values(argv) -> list:
    """``argv`` with a negative number after a long option joined to it (``--v0 -1e308`` →
    ``--v0=-1e308``): argparse would take ``-1e308`` for an option.  Nothing after ``--``."""
    argv, out, i = list(argv), [], 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return out + argv[i:]
        if (a.startswith("--") and "=" not in a and i + 1 < len(argv) and isinstance(argv[i + 1], str)
                and _NEGATIVE.match(argv[i + 1])):
            out.append(f"{a}={argv[i + 1]}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def main(argv=None) -> int:
    """Run the ``skilib`` command with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    from .engine.errors import InconsistentInitialConditions, NonFiniteError, RedundantConstraintError

    parser = build_parser()
    try:
        args = parser.parse_args(join_negative_values(sys.argv[1:] if argv is None else argv))
    except SystemExit as e:  # --help, --version, argparse's usage errors (status 2)
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    prog = f"skilib {args.command}"
    try:
        return args.handler(args)
    except UsageError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except (NonFiniteError, InconsistentInitialConditions, RedundantConstraintError) as e:
        print(f"{prog}: model failure: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except (RuntimeError, ArithmeticError) as e:
        print(f"{prog}: model failure: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    except ImportError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
