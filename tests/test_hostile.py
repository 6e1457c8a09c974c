"""Hostile inputs at every public entry point of the engine, the shared stroke machinery and the
thesis's skier: a table of (function, valid keywords, what each argument accepts), and for every
argument each hostile value (NaN, ±inf, a negative number, zero, a string, None, a bool, a
wrong-shape array).  Each must be refused with a ValueError or TypeError raised by skilib's own
code (not deep inside NumPy, SciPy or pandas) whose message names the argument.  A value an
argument legitimately takes is listed in the table with the reason.

Every refused value must be refused before any integration, so the table runs in seconds; a
case that starts integrating is stopped after ``CASE_SECONDS`` and fails.
"""
from __future__ import annotations

import os
import re
import signal
import socket
import stat
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest

import skilib as sk
from skilib.cli import build_parser, join_negative_values, main
from skilib.data.c3d import read_c3d, write_force_data
from skilib.data.files import check_target, save_text
from skilib.models.thesis.c3d import read_run, write_run
from skilib.engine.options import Integrator, Stabilization
from skilib.strokes.periodic import periodic_stroke, secant_fixed_point
from skilib.strokes.run import RunSettings, run_strokes
from skilib.strokes.stroke import Budget

NAN, INF = float("nan"), float("inf")
SKILIB = os.path.dirname(sk.__file__)
CASE_SECONDS = 20.0

#: the hostile values of a number, by label
SCALAR = {"nan": NAN, "+inf": INF, "-inf": -INF, "negative": -1.0, "zero": 0.0, "string": "1",
          "none": None, "bool": True}
#: the hostile values of a choice (a string from a list) or a flag
CHOICE = {"unknown": "sideways", "none": None, "number": 1, "bool": True, "nan": NAN}
FLAG = {"string": "no", "none": None, "number": 1, "nan": NAN}


@dataclass
class Arg:
    """What an argument accepts: ``kind`` 'number', 'array' (``shape``: a valid one), 'choice' or
    'flag'; ``allowed``: {hostile label: why the value is legitimate}; ``extra``: more hostile
    values {label: value}."""
    kind: str = "number"
    shape: tuple = ()
    allowed: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def hostile(self):
        if self.kind == "number":
            values = dict(SCALAR)
        elif self.kind == "choice":
            values = dict(CHOICE)
        elif self.kind == "flag":
            values = dict(FLAG)
        else:
            base = np.ones(self.shape)
            values = {"nan": _with(base, NAN), "+inf": _with(base, INF), "-inf": _with(base, -INF),
                      "string": "1", "none": None, "bool": True,
                      "wrong shape": np.ones(self.shape[:-1] + (self.shape[-1] + 1,)) if self.shape else
                      np.ones(2)}
        values.update(self.extra)
        return {k: v for k, v in values.items() if k not in self.allowed}


def _with(a, x):
    a = a.copy()
    a.flat[a.size // 2] = x
    return a


#: the course's inclination [°]: the flat and downhill are legitimate, |α| ≥ 45° is not
SLOPE = Arg("number", allowed={"zero": "the flat", "negative": "downhill"},
            extra={"45": 45.0, "-45": -45.0, "-50": -50.0, "a string number": "3"})


def number(**allowed):
    return Arg("number", allowed=allowed)


def nonneg(**extra_allowed):
    """A number >= 0: zero is legitimate (the reason is the keyword 'zero')."""
    return Arg("number", allowed=extra_allowed)


def array(shape, **allowed):
    return Arg("array", shape=shape, allowed=allowed)


ANY_SIGN = {"negative": "any sign is legitimate", "zero": "zero is legitimate"}


# -- valid objects the table's calls need ----------------------------------------------------------
def _body():
    return sk.RigidBody("b", 1.0, [1.0, 1.0, 1.0], points={"p": [0.0, 0.0, 0.5]})


def _motion_arrays(n=30):
    t = np.linspace(0.0, 1.0, n)
    s = 1.0 * t + 0.5 * t**2
    ski = np.column_stack([s, np.zeros(n), np.zeros(n)])
    gamma = 0.3 * t
    cm = ski + np.column_stack([0.7 * np.sin(gamma), np.zeros(n), 0.7 * np.cos(gamma)])
    ski_dir = np.tile([1.0, 0.0, 0.0], (n, 1))
    return dict(t=t, ski=ski, cm=cm, ski_dir=ski_dir, stroke_t0=np.array([0.0, 0.5]))


def _motion():
    return sk.Motion(**_motion_arrays())


def _params():
    return sk.SkierParams()


def _push(tau):
    return 100.0


class _Skating(sk.Skating):
    """A skating model that is never reached: every hostile argument is refused first."""
    stroke_time = 1.0

    def start(self, u):  # pragma: no cover - reached only if a check is missing
        raise AssertionError("the run started")


def _settings():
    return RunSettings(Stabilization.make("baumgarte", h=0.05), Integrator.make("DOP853"),
                       np.linspace(0.0, 1.0, 3), False, Budget(1000))


def _g(u):
    return 0.5 - 0.5 * u, None


# (label, function, valid keywords (a callable giving fresh ones), {argument: Arg})
TABLE = [
    # -- engine --------------------------------------------------------------------------------
    ("RigidBody", sk.RigidBody, lambda: dict(name="b", mass=1.0, inertia=[1.0, 1.0, 1.0]),
     {"mass": number(), "inertia": Arg("array", (3,), allowed={"zero": "a point mass"},
                                       extra={"negative": [-1.0, 1.0, 1.0], "3x3 not symmetric":
                                              [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]}),
      "name": Arg("choice", allowed={"unknown": "any non-empty name"}, extra={"empty": ""})}),
    ("RigidBody points", sk.RigidBody, lambda: dict(name="b", mass=1.0, inertia=[1.0, 1.0, 1.0],
                                                    points={"p": [0.0, 0.0, 0.0]}),
     {"points": Arg("choice", allowed={"unknown": "not a dict"},
                    extra={"nan": {"p": [NAN, 0, 0]}, "wrong shape": {"p": [0, 0]}, "string": {"p": "abc"}})}),
    ("box_inertia", sk.box_inertia, lambda: dict(mass=2.0, lx=1.0, ly=0.5, lz=0.2),
     {"mass": number(), "lx": number(zero="a plate"), "ly": number(zero="a plate"),
      "lz": number(zero="a plate")}),
    ("rod_inertia", sk.rod_inertia, lambda: dict(mass=2.0, length=1.0, axis=2),
     {"mass": number(), "length": number(zero="a point mass"),
      "axis": Arg("number", allowed={"zero": "axis 0 is x"}, extra={"3": 3, "1.5": 1.5})}),
    ("rotation_matrix", sk.rotation_matrix, lambda: dict(angles=[0.1, 0.2, 0.3]),
     {"angles": array((3,), **ANY_SIGN)}),
    ("MultibodySystem", sk.MultibodySystem, lambda: dict(bodies=[_body()], gimbal_tol=1e-3),
     {"gimbal_tol": number()}),
    ("Gravity", sk.Gravity, lambda: dict(g=(0.0, 0.0, -9.81)), {"g": array((3,), **ANY_SIGN)}),
    ("ConstantForce", sk.ConstantForce, lambda: dict(name="f", body=_body(), point="p", vector=[1.0, 0, 0]),
     {"vector": array((3,), **ANY_SIGN)}),
    ("Drag", sk.Drag, lambda: dict(name="drag", body=_body(), point="p", rho=1.2, cda=0.55),
     {"rho": number(), "cda": number(zero="no drag")}),
    ("SpringDamper", sk.SpringDamper, lambda: dict(name="spring", body_i=_body(), point_i="p", body_j=None,
                                                   point_j=[0, 0, 0], stiffness=10.0, damping=1.0, rest_length=0.1),
     {"stiffness": number(zero="a damper alone"), "damping": number(zero="an undamped spring"),
      "rest_length": number(zero="a spring of zero rest length")}),
    ("AxialFriction", sk.AxialFriction, lambda: dict(name="fric", body=_body(), point="p", axis=[1.0, 0, 0],
                                                     magnitude=5.0, smoothing=0.0),
     {"magnitude": number(zero="frictionless"), "smoothing": number(zero="Coulomb friction, no smoothing"),
      "axis": array((3,), negative="any direction")}),
    ("Torque", sk.Torque, lambda: dict(name="tq", body=_body(), torque=lambda s: [0.0, 0.0, 1.0]),
     {"torque": Arg("choice", extra={"an array": [0.0, 0.0, 1.0]})}),
    ("DistanceDriver", sk.DistanceDriver, lambda: dict(name="d", body_i=None, point_i=[0, 0, 0], body_j=_body(),
                                                       point_j="p", length=1.0),
     {"length": number()}),
    ("FixedCoordinate", sk.FixedCoordinate, lambda: dict(name="c", body=_body(), index=3, value=0.5),
     {"index": Arg("number", allowed={"zero": "coordinate 0 is x"}, extra={"6": 6, "1.5": 1.5}),
      "value": number(**ANY_SIGN)}),
    ("PointOnPlane", sk.PointOnPlane, lambda: dict(name="pl", body=_body(), point="p", origin=[0, 0, 0],
                                                   normal=[0, 0, 1.0]),
     {"origin": array((3,), **ANY_SIGN), "normal": Arg("array", (3,), allowed={"negative": "any direction"},
                                                       extra={"zero vector": [0.0, 0.0, 0.0]})}),
    ("PointOnLine", sk.PointOnLine, lambda: dict(name="ln", body=_body(), point="p", origin=[0, 0, 0],
                                                 direction=[1.0, 0, 0]),
     {"direction": Arg("array", (3,), allowed={"negative": "any direction"},
                       extra={"zero vector": [0.0, 0.0, 0.0]})}),
    ("RollingDisk", sk.RollingDisk, lambda: dict(name="disk", body=_body(), radius=0.3),
     {"radius": number()}),
    ("Constant", sk.Constant, lambda: dict(value=1.0), {"value": number(**ANY_SIGN)}),
    ("Harmonic", sk.Harmonic, lambda: dict(offset=0.0, amplitude=1.0, omega=1.0, phase=0.0),
     {k: number(**ANY_SIGN) for k in ("offset", "amplitude", "omega", "phase")}),
    ("Polynomial", sk.Polynomial, lambda: dict(coeffs=[1.0, 2.0], t0=0.0),
     {"coeffs": Arg("array", (2,), allowed={"wrong shape": "any number of coefficients", **ANY_SIGN},
                    extra={"empty": []}),
      "t0": number(**ANY_SIGN)}),
    ("baumgarte", sk.baumgarte, lambda: dict(h=0.05), {"h": number()}),
    # its ``kind`` is a public function's ``stabilization`` (solve_dynamics, simulate_run), tested there
    ("Stabilization.make", Stabilization.make, lambda: dict(kind="baumgarte", h=0.05),
     {"h": number(), "alpha": number(zero="no velocity feedback", none="the default 1/h"),
      "beta": number(zero="no position feedback", negative="β enters squared", none="the default √2/h")}),
    ("Stabilization.make projection", Stabilization.make, lambda: dict(kind="projection", projection_tol=1e-12),
     {"projection_tol": number()}),
    ("Integrator.make", Integrator.make, lambda: dict(method="DOP853", rtol=1e-8, atol=1e-8, max_step=0.1),
     {"rtol": number(), "atol": number(), "max_step": number(**{"+inf": "no limit"}),
      "method": Arg("choice")}),
    ("solve_dynamics", sk.solve_dynamics,
     lambda: dict(system=sk.MultibodySystem([_body()]), t_span=(0.0, 1.0), q0=[0, 0, 0, 0, 1.0, 0],
                  qd0=np.zeros(6), rtol=1e-8, atol=1e-8, h=0.05, max_step=0.1, initial_tol=1e-8),
     {"t_span": Arg("array", (2,), allowed=dict(ANY_SIGN)), "q0": array((6,), **ANY_SIGN),
      "qd0": array((6,), **ANY_SIGN), "rtol": number(), "atol": number(), "h": number(),
      "max_step": number(**{"+inf": "no limit"}), "initial_tol": number(),
      "method": Arg("choice"), "stabilization": Arg("choice")}),
    ("consistent_initial_conditions", sk.consistent_initial_conditions,
     lambda: dict(system=sk.MultibodySystem([_body()]), t0=0.0, q_guess=[0, 0, 0, 0, 1.0, 0], tol=1e-12,
                  max_iter=20),
     {"t0": number(**ANY_SIGN), "q_guess": array((6,), **ANY_SIGN), "tol": number(),
      "max_iter": Arg("number", extra={"1.5": 1.5})}),
    ("project", sk.project,
     lambda: dict(system=sk.MultibodySystem([_body()]), t=0.0, q=[0, 0, 0, 0, 1.0, 0], qd=np.zeros(6),
                  tol=1e-12, max_iter=20),
     {"t": number(**ANY_SIGN), "q": array((6,), **ANY_SIGN), "qd": array((6,), **ANY_SIGN), "tol": number(),
      "max_iter": Arg("number", extra={"1.5": 1.5})}),
    # -- the shared stroke machinery --------------------------------------------------------------
    ("output_grid", sk.output_grid, lambda: dict(T=1.0, dt_out=0.1, n_out=None),
     {"T": number(), "dt_out": number()}),
    ("output_grid n_out", sk.output_grid, lambda: dict(T=1.0, dt_out=0.1, n_out=11),
     {"n_out": Arg("number", allowed={"none": "use dt_out"}, extra={"1.5": 1.5})}),
    ("linear", sk.linear, lambda: dict(a=1.0, b=2.0), {"a": number(**ANY_SIGN), "b": number(**ANY_SIGN)}),
    ("smooth_turn", sk.smooth_turn, lambda: dict(start=0.1, change=0.2, T=1.0),
     {"start": number(**ANY_SIGN), "change": number(**ANY_SIGN), "T": number()}),
    ("power_law", sk.power_law, lambda: dict(start=0.1, end=0.2, T=1.0, p=1.5),
     {"start": number(**ANY_SIGN), "end": number(**ANY_SIGN), "T": number(),
      "p": number(zero="a constant (end)")}),
    ("dip", sk.dip, lambda: dict(mean=1.0, depth=0.1, T=1.0),
     {"mean": number(**ANY_SIGN), "depth": number(**ANY_SIGN), "T": number()}),
    ("side_of", sk.side_of, lambda: dict(first_ski="right", k=1),
     {"first_ski": Arg("choice"), "k": Arg("number", allowed={"zero": "the first stroke"}, extra={"1.5": 1.5})}),
    ("mirrored", sk.mirrored, lambda: dict(law=sk.linear(1.0, 2.0), sign=-1.0),
     {"sign": Arg("number", allowed={"negative": "-1, the left side's sign"}, extra={"2": 2.0, "-2": -2.0})}),
    ("Budget", sk.Budget, lambda: dict(max_evaluations=100, max_wall_time=10.0),
     {"max_evaluations": Arg("number", extra={"1.5": 1.5}), "max_wall_time": number(none="no limit")}),
    ("RunSettings", sk.RunSettings,
     lambda: dict(stabilization=Stabilization.make(), integrator=Integrator.make(), grid=np.linspace(0, 1, 3),
                  compiled=False, budget=Budget(100)),
     {"grid": Arg("array", (3,), allowed={"wrong shape": "any number of points >= 2"},
                  extra={"unsorted": [0.0, 0.6, 0.3], "one point": [0.0], "negative": [-1.0, 0.0, 1.0]}),
      "compiled": Arg("flag"), "stabilization": Arg("choice"), "integrator": Arg("choice"),
      "budget": Arg("choice")}),
    ("run_strokes", run_strokes, lambda: dict(skating=_Skating(), settings=_settings(), strokes=1, v0=0.0),
     {"strokes": Arg("number", extra={"1.5": 1.5}), "v0": number(**ANY_SIGN)}),
    ("periodic_stroke", periodic_stroke,
     lambda: dict(skating=_Skating(), settings=_settings(), u_guess=0.0, tol=1e-10, max_iter=10, max_speed=30.0,
                  who="test"),
     {"u_guess": number(**ANY_SIGN), "tol": number(), "max_iter": Arg("number", extra={"1.5": 1.5, "1": 1}),
      "max_speed": number()}),
    ("secant_fixed_point", secant_fixed_point,
     lambda: dict(g=_g, ua=0.0, tol=1e-10, max_iter=10, max_speed=30.0, who="test"),
     {"ua": number(**ANY_SIGN), "tol": number(), "max_iter": Arg("number", extra={"1.5": 1.5, "1": 1}),
      "max_speed": number()}),
    ("LoadFriction", sk.LoadFriction, lambda: dict(name="f", body=_body(), point="p", axis=[1.0, 0, 0],
                                                   constraint="floor", mu=0.1),
     {"mu": number(zero="frictionless"), "min_speed": number(), "smoothing": number(zero="Coulomb, no smoothing"),
      "axis": array((3,), negative="any direction"),
      "row": Arg("number", allowed={"zero": "the first row"}, extra={"1.5": 1.5})}),
    ("AxialOffsetDriver", sk.AxialOffsetDriver, lambda: dict(name="a", body_i=_body(), point_i=[0, 0, 0],
                                                             axis_i=[1.0, 0, 0], body_j=None, point_j=[0, 0, 0],
                                                             offset=0.1),
     {"offset": number(**ANY_SIGN), "axis_i": array((3,), negative="any direction")}),
    ("RadialDistanceDriver", sk.RadialDistanceDriver, lambda: dict(name="r", body_i=_body(), point_i=[0, 0, 0],
                                                                   axis_i=[1.0, 0, 0], body_j=None,
                                                                   point_j=[0, 0, 0], distance=0.9),
     {"distance": number(), "axis_i": array((3,), negative="any direction")}),
    # -- the edged skater ----------------------------------------------------------------------------
    ("EdgeSkaterParams", sk.EdgeSkaterParams, lambda: dict(),
     {**{k: number() for k in ("body_mass", "ski_mass", "stroke_time", "skating_angle_deg", "max_leg_length",
                               "cm_height", "max_lean_deg", "air_density", "cda", "g", "ski_length", "ski_width",
                               "ski_height")},
      **{k: number(**ANY_SIGN) for k in ("steer_deg", "leg_extension", "fore_aft")},
      "landing_offset": number(zero="the ski lands under the CM"), "friction_coefficient": number(zero="frictionless"),
      "air_drag": Arg("flag"), "body_inertia": array((3,)), "slope_deg": SLOPE,
      "eta_positive": number(), "eta_negative": number()}),
    # the muscles' efficiencies of the cost of work (the free skater's other fields: test_free_skater.py)
    ("FreeSkaterParams", sk.FreeSkaterParams, lambda: dict(), {"eta_positive": number(), "eta_negative": number()}),
    ("simulate_edge", sk.simulate_edge, lambda: dict(strokes=1, v0=3.0),
     {"v0": number(), "lean_rate": number(**ANY_SIGN), "strokes": Arg("number", extra={"1.5": 1.5}),
      "first_ski": Arg("choice"), "dt_out": number(), "rtol": number(), "max_wall_time": number(none="no limit")}),
    ("edge_steady_state", sk.edge_steady_state, lambda: dict(),
     {"tol": number(), "max_iter": Arg("number", extra={"1.5": 1.5, "1": 1}), "guess": array((3,)),
      "multipliers": Arg("flag"), "check": Arg("flag")}),
    # -- the thesis's skier -------------------------------------------------------------------------
    ("SkierParams", sk.SkierParams, lambda: dict(),
     {**{k: number() for k in ("mass", "lower_leg", "upper_leg", "ski_mass", "ski_length", "ski_width",
                               "ski_height", "shank_mass_fraction", "leg_extension0", "phase_time",
                               "air_density", "skating_angle_deg")},
      "ankle_offset": number(none="L2/2"),
      **{k: number(zero=why) for k, why in (("friction", "a frictionless ski"), ("g", "no gravity"),
                                             ("cda", "no drag"))},
      "c_ext": number(zero="a leg of constant length", negative="the leg shortens (within reach)"),
      "leg_angle0_deg": number(**ANY_SIGN),
      "c_rot_deg": number(zero="a leg at a constant angle", negative="the leg turns back (|γ| < 90°)"),
      "gravity": Arg("flag"), "air_drag": Arg("flag"), "angle_convention": Arg("choice"),
      "push_direction": Arg("choice"), "slope_deg": SLOPE}),
    ("ski_heading", sk.ski_heading, lambda: dict(params=_params(), stroke=0, first_ski="right"),
     {"stroke": Arg("number", allowed={"zero": "the first stroke"}, extra={"1.5": 1.5}),
      "first_ski": Arg("choice"), "params": Arg("choice")}),
    ("push_plane_direction", sk.push_plane_direction, lambda: dict(params=_params(), heading=-0.4, side="right"),
     {"heading": number(**ANY_SIGN), "side": Arg("choice")}),
    ("stand_in_push_force", sk.stand_in_push_force, lambda: dict(params=_params(), phase_time=1.0),
     {"phase_time": number()}),
    ("SkierModel", sk.SkierModel, lambda: dict(params=_params(), heading=-0.4, side="right",
                                               start_point=np.zeros(3), push_force=_push),
     {"heading": number(**ANY_SIGN), "side": Arg("choice"), "start_point": array((3,), **ANY_SIGN),
      "rotation": Arg("choice"), "push_force": Arg("choice", extra={"a number": 100.0})}),
    ("simulate_run", sk.simulate_run, lambda: dict(strokes=1, dt_out=0.5),
     {"strokes": Arg("number", extra={"1.5": 1.5}), "v0": number(**ANY_SIGN),
      "force_scale": number(zero="no push"), "dt_out": number(), "rtol": number(), "atol": number(),
      "h": number(), "alpha": number(zero="no velocity feedback", none="the default 1/h"),
      "beta": number(zero="no position feedback", negative="β enters squared", none="the default √2/h"),
      "projection_tol": number(),
      "max_evaluations": Arg("number", extra={"1.5": 1.5}), "max_wall_time": number(none="no limit"),
      "phase_time": number(none="params.phase_time"), "skating_angle_deg": number(none="params'"),
      "c_ext": number(none="params'", zero="a leg of constant length"),
      "c_rot_deg": number(none="params'", zero="a leg at a constant angle",
                          negative="the leg turns back (|γ| < 90°)"),
      "first_ski": Arg("choice"), "rotation": Arg("choice"), "stabilization": Arg("choice"),
      "stroke_change": Arg("choice"), "method": Arg("choice"), "compiled": Arg("flag")}),
    ("simulate_run n_out", sk.simulate_run, lambda: dict(strokes=1, n_out=3),
     {"n_out": Arg("number", allowed={"none": "use dt_out"}, extra={"1.5": 1.5})}),
    ("steady_state", sk.steady_state, lambda: dict(dt_out=0.5),
     {"u0_guess": number(none="from rest", **ANY_SIGN), "tol": number(),
      "max_iter": Arg("number", extra={"1.5": 1.5, "1": 1}), "max_speed": number()}),
    ("calibrate_force_scale", sk.calibrate_force_scale, lambda: dict(dt_out=0.5),
     {"target_speed": number(), "scale_guess": number(), "xtol": number()}),
    ("resistance_power", sk.resistance_power, lambda: dict(speed=2.0, friction=5.0, cda=0.5, air_density=1.2),
     {"speed": Arg("number", allowed={"zero": "standing still", "negative": "P(−v) = −P(v), skiing backwards"}),
      "friction": number(zero="no friction", none="params.friction"),
      "cda": number(zero="no drag", none="params.cda"),
      "air_density": number(zero="no air", none="params.air_density")}),
    ("resistance_power array", sk.resistance_power, lambda: dict(speed=np.array([1.0, 2.0, 3.0])),
     {"speed": Arg("array", (3,), allowed={"wrong shape": "any shape"})}),
    ("power_balance_speed", sk.power_balance_speed,
     lambda: dict(power=20.0, friction=5.0, cda=0.5, air_density=1.2),
     {"power": number(zero="standing still"), "friction": number(zero="no friction", none="params.friction"),
      "cda": number(zero="no drag", none="params.cda"),
      "air_density": number(zero="no air", none="params.air_density")}),
    ("leg_laws_for", sk.leg_laws_for, lambda: dict(phase_time=1.0, extension=0.2, rotation_deg=22.5),
     {"phase_time": number(), "extension": number(**ANY_SIGN), "rotation_deg": number(**ANY_SIGN)}),
    ("Motion", sk.Motion, _motion_arrays,
     {"t": Arg("array", (30,), allowed={"negative": "any clock",
                                        "wrong shape": "t's length sets n; the others are checked against it"},
               extra={"2-D": np.linspace(0.0, 1.0, 30)[:, None],"unsorted": np.r_[0.0, 0.2, 0.1, np.linspace(0.3, 1.0, 27)],
                      "repeated": np.r_[0.0, 0.1, 0.1, np.linspace(0.3, 1.0, 27)]}),
      "ski": Arg("array", (30, 3)), "cm": Arg("array", (30, 3), extra={"on the ski": _motion_arrays()["ski"]}),
      "ski_dir": Arg("array", (30, 3), extra={"zero vector": np.zeros((30, 3))}),
      "stroke_t0": Arg("array", (2,), allowed={"wrong shape": "any number of strokes",
                                               "none": "one stroke from t[0]"},
                       extra={"unsorted": [0.5, 0.0], "repeated": [0.0, 0.5, 0.5], "before t[0]": [-1.0, 0.5],
                              "after t[-1]": [0.0, 2.0], "first after t[0]": [0.1, 0.5]})}),
    ("inverse_dynamics", sk.inverse_dynamics, lambda: dict(motion=_motion(), smoothing=0.0, min_lever=0.05,
                                                           v_stick=1e-3, joint_loads=False),
     {"smoothing": number(zero="an interpolating spline"), "min_lever": number(zero="report F everywhere"),
      "v_stick": number(zero="no stuck samples"), "joint_loads": Arg("flag"),
      "motion": Arg("choice"), "params": Arg("choice", allowed={"none": "SkierParams()"})}),
]

CASES = [(label, fn, kwargs, arg, bad_label, bad)
         for label, fn, kwargs, args in TABLE for arg, spec in args.items()
         for bad_label, bad in spec.hostile().items()]
IDS = [f"{label}-{arg}-{bad_label}" for label, _, _, arg, bad_label, _ in CASES]


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout


def outcome(fn, kwargs, arg, bad):
    """None if the call refuses ``bad`` as it should, else what went wrong."""
    kw = dict(kwargs())
    kw[arg] = bad
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    try:
        fn(**kw)
    except _Timeout:
        return f"no error within {CASE_SECONDS:g} s (it started computing)"
    except (ValueError, TypeError) as err:
        tb = err.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        where = tb.tb_frame.f_code.co_filename
        if not where.startswith(SKILIB):
            return f"{type(err).__name__} raised in {where}: {err}"
        if arg not in str(err):
            return f"message does not name {arg!r}: {err}"
        return None
    except Exception as err:  # noqa: BLE001 - the point is to see which
        return f"{type(err).__name__}: {err}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return "accepted"


@pytest.mark.parametrize("label, fn, kwargs, arg, bad_label, bad", CASES, ids=IDS)
def test_hostile_value_is_refused_by_name(label, fn, kwargs, arg, bad_label, bad):
    problem = outcome(fn, kwargs, arg, bad)
    assert problem is None, f"{label}({arg}={bad!r}) [{bad_label}]: {problem}"


CHEAP = {"RigidBody", "RigidBody points", "box_inertia", "rod_inertia", "rotation_matrix", "MultibodySystem",
         "Gravity", "ConstantForce", "Drag", "SpringDamper", "AxialFriction", "Torque", "DistanceDriver",
         "FixedCoordinate", "PointOnPlane", "PointOnLine", "RollingDisk", "Constant", "Harmonic", "Polynomial",
         "baumgarte", "Stabilization.make", "Stabilization.make projection", "Integrator.make", "output_grid",
         "output_grid n_out", "linear", "smooth_turn", "power_law", "dip", "side_of", "mirrored", "Budget",
         "RunSettings", "secant_fixed_point", "SkierParams", "ski_heading", "push_plane_direction",
         "stand_in_push_force", "SkierModel", "resistance_power", "resistance_power array", "power_balance_speed",
         "leg_laws_for", "Motion", "consistent_initial_conditions", "project", "LoadFriction", "AxialOffsetDriver",
         "RadialDistanceDriver", "EdgeSkaterParams"}


@pytest.mark.parametrize("label, fn, kwargs", [(label, fn, kw) for label, fn, kw, _ in TABLE if label in CHEAP],
                         ids=[label for label, *_ in TABLE if label in CHEAP])
def test_the_tables_valid_keywords_are_accepted(label, fn, kwargs):
    fn(**kwargs())


# -- the engine's and the inverse mode's checks, case by case --------------------------------------
def test_an_inertia_that_no_mass_distribution_has_is_refused():
    """Principal moments (1, 1, 3): 3 > 1 + 1 breaks the triangle inequality; a rod's (1, 1, 0)
    and a plate's (1, 1, 2) are its equality cases and stay accepted."""
    with pytest.raises(ValueError, match=r"^body 'thigh': inertia's principal moments .* triangle inequality"):
        sk.RigidBody("thigh", 1.0, [1.0, 1.0, 3.0])
    rotated = sk.rotation_matrix([0.3, 0.7, -0.2]) @ np.diag([1.0, 1.0, 3.0]) @ sk.rotation_matrix([0.3, 0.7, -0.2]).T
    with pytest.raises(ValueError, match="triangle inequality"):
        sk.RigidBody("thigh", 1.0, rotated)
    sk.RigidBody("rod", 1.0, sk.rod_inertia(1.0, 0.5, axis=0))
    sk.RigidBody("plate", 1.0, sk.box_inertia(1.0, 0.5, 0.3, 0.0))
    with pytest.raises(ValueError, match=r"^body 'thigh': mass: must be a number, got '1'"):
        sk.RigidBody("thigh", "1", [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"^mass: must be > 0, got -2"):
        sk.box_inertia(-2.0, 1.0, 1.0, 1.0)


def test_a_nan_angle_is_named():
    with pytest.raises(ValueError, match=r"^angles: non-finite value nan at index 1"):
        sk.rotation_matrix([0.1, NAN, 0.3])


@pytest.mark.parametrize("bad, match", [
    (dict(t=np.r_[0.0, 0.2, 0.1, np.linspace(0.3, 1.0, 27)]),
     r"^t: must be increasing; decreases at index 2: t\[1\] = 0\.2 s, t\[2\] = 0\.1 s"),
    (dict(t=np.r_[0.0, 0.1, 0.1, np.linspace(0.3, 1.0, 27)]), r"^t: must be increasing; repeated at index 2"),
    (dict(cm=_with(_motion_arrays()["cm"], NAN)), r"^cm: non-finite coordinates .* at row 15 \(t = 0\.51"),
    (dict(cm=_motion_arrays()["ski"]), r"^cm: the CM is 0 m from the ski origin at row 0 \(t = 0\.0 s\)"),
    (dict(stroke_t0=[0.5, 0.0]), r"^stroke_t0: must be increasing; decreases at index 1"),
    (dict(stroke_t0=[0.0, 0.99]), r"^stroke_t0: stroke 2 \(from t = 0\.99 s\) has 1 samples"),
    (dict(ski_dir=np.zeros((30, 3))), r"^ski_dir: zero direction at row 0"),
])
def test_a_motion_names_the_argument_and_the_row(bad, match):
    with pytest.raises(ValueError, match=match):
        sk.Motion(**(_motion_arrays() | bad))


def test_a_motion_of_two_samples_is_refused():
    m = {k: (v[:2] if k != "stroke_t0" else None) for k, v in _motion_arrays().items()}
    with pytest.raises(ValueError, match=r"^t: a motion needs at least 3 samples"):
        sk.Motion(**m)


def test_a_smoothing_spline_needs_five_samples_per_stroke():
    m = sk.Motion(**(_motion_arrays() | dict(stroke_t0=[0.0, 0.9])))  # stroke 2: 3 samples
    with pytest.raises(ValueError, match=r"^smoothing: .* stroke 2 .* has 3"):
        sk.inverse_dynamics(m, smoothing=1e-6, joint_loads=False)


@pytest.mark.parametrize("kwargs, match", [
    (dict(tol=INF), r"^tol: must be finite"), (dict(max_speed=-1.0), r"^max_speed: must be > 0"),
    (dict(max_speed=INF), r"^max_speed: must be finite"), (dict(u0_guess=True), r"^u0_guess: must be a number"),
])
def test_steady_state_refuses_tolerances_that_would_call_anything_converged(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sk.steady_state(**kwargs)


def test_resistance_power_refuses_nan_and_no_resistance_buys_no_speed():
    with pytest.raises(ValueError, match=r"^speed: must be finite, got nan"):
        sk.resistance_power(NAN)
    with pytest.raises(ValueError, match=r"^friction, cda: "):
        sk.power_balance_speed(10.0, friction=0.0, cda=0.0)
    assert sk.power_balance_speed(0.0, friction=0.0, cda=0.0) == 0.0



# -- the file layer: what a writer may replace, and what it may write -------------------------------
def _force(n=20):
    return pd.DataFrame({"t": np.arange(n) * 0.01, "force_left": np.ones(n), "force_right": np.full(n, 2.0)})


@pytest.fixture(scope="module")
def short_run():
    return sk.simulate_run(strokes=1, dt_out=0.05)


def _make(kind, path):
    """Something that is not a regular file at ``path`` (a FIFO, a socket, a character device
    like /dev/null, a link to a file, a folder); returns the S_IS* test it must still pass."""
    if kind == "FIFO":
        os.mkfifo(path)
        return stat.S_ISFIFO
    if kind == "socket":  # bound by its name relative to the folder: AF_UNIX paths are short
        cwd = os.getcwd()
        os.chdir(path.parent)
        try:
            s = socket.socket(socket.AF_UNIX)
            s.bind(path.name)
            s.close()
        finally:
            os.chdir(cwd)
        return stat.S_ISSOCK
    if kind == "character device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # /dev/null's numbers, in tmp_path
        except PermissionError:  # pragma: no cover - the tests run as root
            pytest.skip("mknod needs root")
        return stat.S_ISCHR
    if kind == "symbolic link":
        real = path.with_name("real" + path.suffix)
        real.write_bytes(b"keep me")
        path.symlink_to(real)
        return stat.S_ISLNK
    path.mkdir()
    return stat.S_ISDIR


#: (what is at the target, the exception, what the message says)
SPECIAL = [("FIFO", FileExistsError, r"is a FIFO \(named pipe\), not a regular file"),
           ("socket", FileExistsError, r"is a socket, not a regular file"),
           ("character device", FileExistsError, r"is a character device, not a regular file"),
           ("symbolic link", FileExistsError, r"is a symbolic link to .*real\.\w+; .*give the real path"),
           ("folder", IsADirectoryError, r"is a folder")]

#: every writer, its file name, and a call writing ``path`` with ``overwrite``
WRITERS = {
    "write_force_data": ("x.c3d", lambda run, p, ow: write_force_data(_force(), p, overwrite=ow)),
    "write_run": ("x.c3d", lambda run, p, ow: write_run(run, p, overwrite=ow)),
    "to_c3d": ("x.c3d", lambda run, p, ow: run.to_c3d(p, overwrite=ow)),
    "save_text": ("x.txt", lambda run, p, ow: save_text("text", p, overwrite=ow)),
    "sweep": ("x.parquet", lambda run, p, ow: sk.sweep(lambda row: 1.0, pd.DataFrame({"a": [1.0]}),
                                                       scheduler="serial", progress=False, output=p, overwrite=ow)),
}


@pytest.mark.parametrize("overwrite", [True, False])
@pytest.mark.parametrize("kind, exc, says", SPECIAL, ids=[k for k, *_ in SPECIAL])
@pytest.mark.parametrize("writer", WRITERS)
def test_only_a_regular_file_is_ever_replaced(short_run, tmp_path, writer, kind, exc, says, overwrite):
    """A FIFO, a socket, a device, a link or a folder at the target is refused by name, with or
    without overwrite=True, and is still there, of its kind, afterwards (a link's file unchanged)."""
    name, write = WRITERS[writer]
    p = tmp_path / name
    is_kind = _make(kind, p)
    with pytest.raises(exc) as err:
        write(short_run, p, overwrite)
    assert type(err.value) is exc
    assert re.search(f"^{re.escape(str(p))}: {says}", str(err.value)), str(err.value)
    assert is_kind(os.lstat(p).st_mode)
    if kind == "symbolic link":
        assert p.with_name("real" + p.suffix).read_bytes() == b"keep me"
    assert sorted(x.name for x in tmp_path.iterdir()) == sorted([name] + (["real" + p.suffix] if kind == "symbolic link"
                                                                            else []))


@pytest.mark.parametrize("device", ["/dev/null", "/dev/full"])
def test_a_system_device_is_refused_by_the_check(device):
    """The check alone (it changes nothing): a device is never a file to replace."""
    before = os.stat(device)
    with pytest.raises(FileExistsError, match=f"^{device}: is a character device, not a regular file"):
        check_target(device, overwrite=True)
    assert os.stat(device).st_rdev == before.st_rdev and stat.S_ISCHR(os.stat(device).st_mode)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_replaced_file_keeps_its_permission_bits(short_run, tmp_path, writer):
    """overwrite=True replaces a read-only (0o444) file, and it is read-only again afterwards."""
    name, write = WRITERS[writer]
    p = tmp_path / name
    p.write_bytes(b"old")
    os.chmod(p, 0o444)
    write(short_run, p, True)
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o444 and p.read_bytes() != b"old"


@pytest.mark.parametrize("writer", ["write_force_data", "write_run", "to_c3d"])
@pytest.mark.parametrize("name, says", [("x.txt", r"got the suffix '\.txt'"), ("x", "got no suffix")])
def test_a_c3d_writer_refuses_a_name_that_is_not_c3d(short_run, tmp_path, writer, name, says):
    with pytest.raises(ValueError, match=f"^{re.escape(str(tmp_path / name))}: the C3D file needs a name ending in "
                                          rf"\.c3d \(any case\), {says}"):
        WRITERS[writer][1](short_run, tmp_path / name, False)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("writer", ["write_force_data", "write_run", "to_c3d"])
def test_an_upper_case_c3d_name_is_a_c3d_file(short_run, tmp_path, writer):
    """ezc3d appends .c3d to any other name; the file is written under the name given."""
    p = WRITERS[writer][1](short_run, tmp_path / "RUN.C3D", False)
    assert p == tmp_path / "RUN.C3D" and [x.name for x in tmp_path.iterdir()] == ["RUN.C3D"]
    assert read_c3d(p)["data"]["analogs"].shape[1] >= 2


def _set(col, i, v):
    def f(d):
        d = d.astype({col: float})
        d.loc[i, col] = v
        return d
    return f


#: (label, the frame's change, exception, message)
FORCE_CASES = [
    ("NaN sample", _set("force_left", 5, NAN), r"^df: column 'force_left', sample 5 \(t = 0\.05 s\): nan N is not a force"),
    ("inf sample", _set("force_right", 7, INF), r"^df: column 'force_right', sample 7 \(t = 0\.07 s\): inf N"),
    ("absurd sample", _set("force_left", 3, -1e13), r"^df: column 'force_left', sample 3 .*-1e\+13 N .*beyond ±1e\+12 N"),
    ("no channel", lambda d: d[["t"]], r"^df: no force column besides 't'"),
    ("repeated column", lambda d: pd.concat([d, d[["force_left"]]], axis=1),
     r"^df: column\(s\) \['force_left'\] appear more than once"),
    ("text column", lambda d: d.assign(note=["a"] * len(d)), r"^df: column\(s\) \['note'\] are not numbers"),
    ("one sample", lambda d: d.iloc[:1], r"^df: force data needs at least 2 samples, got 1$"),
    ("NaN time", _set("t", 4, NAN), r"^df: column 't', sample 4: time nan is not a finite number"),
]


@pytest.mark.parametrize("change, match", [c[1:] for c in FORCE_CASES], ids=[c[0] for c in FORCE_CASES])
def test_write_force_data_refuses_what_is_not_force_data(tmp_path, change, match):
    with pytest.raises(ValueError, match=match):
        write_force_data(change(_force()), tmp_path / "f.c3d")
    assert list(tmp_path.iterdir()) == []


def _with_frame(run, change):
    import copy

    r = copy.copy(run)
    r.frame = change(run.frame.copy())
    return r


@pytest.mark.parametrize("result, exc, match", [
    (lambda run: None, TypeError, r"^result: expected a run \(simulate_run's SimResult\), got NoneType"),
    (lambda run: _with_frame(run, lambda f: f.iloc[:0]), ValueError, r"^result: the run's frame is empty"),
    (lambda run: _with_frame(run, _set("stroke", 3, NAN)), ValueError,
     r"^result: the frame's column 'stroke' at row 3 is nan, not a finite stroke number"),
    (lambda run: _with_frame(run, _set("t", 2, NAN)), ValueError, r"^result: the frame's column 't' at row 2 is nan"),
], ids=["None", "empty frame", "NaN stroke", "NaN time"])
def test_write_run_refuses_what_is_not_a_run(short_run, tmp_path, result, exc, match):
    with pytest.raises(exc, match=match) as err:
        write_run(result(short_run), tmp_path / "r.c3d")
    assert type(err.value) is exc and list(tmp_path.iterdir()) == []


# -- the command line: every output checked before the run, negative numbers are values ------------
@pytest.fixture
def no_run(monkeypatch):
    """The run must not start: every case here is refused before it."""
    import skilib.models.thesis.run as run_module

    def never(*a, **k):  # pragma: no cover - reached only if a check is missing
        raise AssertionError("the run started")
    monkeypatch.setattr(run_module, "simulate_run", never)


CLI_CASES = [  # (arguments after `run --strokes 1`, with {d} the folder; stderr's one error line)
    (["--out", ""], r"--out: needs a file name, got ''"),
    (["--out", "{d}/x.txt"], r"--out: {d}/x\.txt: the --out file needs a name ending in \.c3d \(any case\), got the "
                             r"suffix '\.txt'"),
    (["--out", "{d}/x.c3d", "--csv", "{d}/s.txt"], r"--csv: {d}/s\.txt: .* needs a name ending in \.csv"),
    (["--out", "{d}/dir/"], r"--out: {d}/dir/: ends with '/', a folder"),
    (["--out", "{d}/x.c3d", "--dt-out", "1e308"], r"--dt-out: 1e\+308 s is longer than a stroke \(1 s, phase_time\)"),
    (["--out", "{d}/x.c3d", "--v0", "-nan"], r"argument --v0: '-nan' is not a number"),
    (["--out", "{d}/fifo.c3d", "--overwrite"], r"--out: {d}/fifo\.c3d: is a FIFO \(named pipe\), not a regular file"),
    (["--out", "{d}/x.c3d", "--csv", "{d}/fifo.csv", "--overwrite"], r"--csv: {d}/fifo\.csv: is a FIFO"),
]


@pytest.mark.parametrize("args, says", CLI_CASES, ids=[" ".join(a) for a, _ in CLI_CASES])
def test_run_refuses_its_outputs_before_it_computes(tmp_path, capsys, no_run, args, says):
    os.mkfifo(tmp_path / "fifo.c3d")
    os.mkfifo(tmp_path / "fifo.csv")
    d = str(tmp_path)
    assert main(["run", "--strokes", "1", *[a.replace("{d}", d) for a in args]]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("error:") == 1, err
    assert re.search(says.replace("{d}", re.escape(d)), err), err
    assert sorted(x.name for x in tmp_path.iterdir()) == ["fifo.c3d", "fifo.csv"]
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo.c3d").st_mode)


@pytest.mark.parametrize("command", [["steady", "--list-params"], ["optimum", "--power", "100"]])
def test_steady_and_optimum_never_replace_a_fifo(tmp_path, capsys, command):
    p = tmp_path / "out.txt"
    os.mkfifo(p)
    assert main([*command, "--out", str(p), "--overwrite"]) == 2
    assert re.search(rf"--out: {re.escape(str(p))}: is a FIFO", capsys.readouterr().err)
    assert stat.S_ISFIFO(os.stat(p).st_mode)


@pytest.mark.parametrize("value", ["-1e308", "-1", "-0.5", "-.5", "-1E3"])
def test_a_negative_number_is_an_options_value(value):
    argv = ["run", "--strokes", "1", "--out", "x.c3d", "--v0", value]
    assert join_negative_values(argv)[-1] == f"--v0={value}"
    assert build_parser().parse_args(join_negative_values(argv)).v0 == float(value)


def test_a_huge_negative_speed_is_refused_by_the_model_not_taken_for_an_option(tmp_path, capsys):
    assert main(["run", "--strokes", "1", "--out", str(tmp_path / "x.c3d"), "--v0", "-1e308"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"error: v0: must be in \[-50, 50\] m/s, got -1e\+308 m/s", err), err
    assert list(tmp_path.iterdir()) == []


def test_dt_out_does_what_the_help_says(tmp_path, capsys):
    """--dt-out 0.3 with a stroke of T = 1 s: round(T/0.3) = 3 steps of 1/3 s, frames at 3 Hz."""
    text = build_parser()._subparsers._group_actions[0].choices["run"].format_help()
    assert "round(T/S)" in " ".join(text.split())
    p = tmp_path / "RUN.C3D"
    assert main(["run", "--strokes", "1", "--dt-out", "0.3", "--out", str(p)]) == 0
    back = read_run(p)
    np.testing.assert_allclose(np.diff(back.t), 1 / 3, rtol=1e-6)
    assert [x.name for x in tmp_path.iterdir()] == ["RUN.C3D"]
