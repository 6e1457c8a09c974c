"""Poles for the skating models on a flat ski: V2 skating, one double-pole push with every leg
push (the book's chapter "Poles, hills and the cost of work").

Each pole, with the arm that pushes on it, is a massless strut (``skilib.engine.Strut``) from
its tip in the snow to the hand.  In the course frame (X along the course, Z normal to the
snow), the hands are beside the centre of mass at a fixed height::

    H± = (X_B, Y_B ± w_h, z_h),   w_h = 0.25 m, z_h = 1.45 m      (+: the left hand)

and with a point-mass body the force acts at the centre of mass: the hand gives its direction
only.  At τ = t_p after touch-down (``pole_start``) each tip is planted beside its hand,
w_p = 0.10 m outwards, T± = (X_H, Y_H ± w_p, 0), and stays in the snow until
τ = t_p + t_c (``pole_contact_time``, t_p + t_c ≤ T).  Each pole pushes along itself,

    F± = F_p(τ) (H± − T±)/|H± − T±|,   F_p(τ) = F_p,max sin²(π(τ − t_p)/t_c)

(``pole_force_max`` F_p,max per pole; 0, the default, is skating without poles, the thesis's
case).  A model's laws may give the push instead (their ``pole``, a ``PolePush``: the spline that
free control chooses, ``skilib.ocp.control``); F_p,max > 0 then only says that the skier poles.  The poles' power Σ F±·Ṙ_B is the arms' work (the tips do not move); each pole's
positive and negative works are integrated with the stroke (its cost of work,
``skilib.strokes.work``).  The poles carry part of the weight: in the edged skater the snow
row's multiplier sees it, in the free skater the snow's load loses Σ F±,z.

A pole whose hand falls behind its tip along X (the skier moving backwards) would push the
skier back: the contact then ends early, at the τ where X_H = X_T (an event located by the
integrator), the pole's force is never turned into a pull, and the stroke reports where
(``pole_lift``).  At planting X_H = X_T, so the force starts along the pole's plane with no X
component and tilts forwards as the skier passes the tip.

The stroke is integrated in phases (``skilib.strokes.stroke``): before the plant, with the
poles in the snow (a copy of the stroke's model whose systems have the two struts), after the
lift.  With F_p,max = 0 there are no phases, no pole states and no pole forces: the stroke is
bit for bit the one without poles.
"""
from __future__ import annotations

import copy
import math

import numpy as np

from ..engine.evaluation import row_dot
from ..engine.strut import SineSquaredPulse, Strut
from ..engine.validation import check_number
from .frame import column
from .work import extra_states

__all__ = ["HAND_HEIGHT", "HAND_WIDTH", "TIP_OUTWARD", "POLES", "POLE_WORK_TERMS", "POLE_PARAMETER_BOUNDS",
           "check_poles", "pole_tips", "Poled", "PolePush", "pole_lift_event", "pole_columns", "pole_impulse_share",
           "pole_summary", "POLE_SUMMARY_COLUMNS", "with_pole_works"]

#: the hands' height above the snow z_h [m] (a skier's hands in V2 at pole plant)
HAND_HEIGHT = 1.45
#: each hand's distance beside the centre of mass w_h [m]
HAND_WIDTH = 0.25
#: each tip's distance outwards of its hand w_p [m]
TIP_OUTWARD = 0.10
#: the poles: name and side (+1 left: +Y, −1 right)
POLES = (("pole_left", 1.0), ("pole_right", -1.0))
#: the poles' works over a stroke [J], each an actuator (its positive and negative works)
POLE_WORK_TERMS = ("work_pole_left", "work_pole_right")

#: the plausible ranges of the pole parameters (inclusive): pole_force_max 0–1000 N per pole
#: (measured peak pole forces in skating are ≈ 150–350 N per pole, ≈ 0.2–0.5 body weights;
#: 1000 N is a wide margin), pole_start 0–3 s and pole_contact_time 0.01–3 s (a pole's
#: contact lasts ≈ 0.2–0.4 s; the stroke's own range is 0.2–3 s); besides, t_p + t_c ≤ T
POLE_PARAMETER_BOUNDS = {"pole_force_max": (0.0, 1000.0), "pole_start": (0.0, 3.0),
                         "pole_contact_time": (0.01, 3.0)}


def with_pole_works(terms, params) -> tuple:
    """``terms`` (work or actuator names) followed by the poles' works (``POLE_WORK_TERMS``) when
    ``params`` skates with poles (pole_force_max > 0), else ``terms`` unchanged: what a model's
    works, actuators and energy balance name."""
    return tuple(terms) + (POLE_WORK_TERMS if params.pole_force_max > 0.0 else ())


def check_poles(params) -> None:
    """The pole parameters of ``params`` within ``POLE_PARAMETER_BOUNDS`` and, with poles
    (F_p,max > 0), the contact within the stroke, t_p + t_c ≤ T; else a ValueError naming the
    parameter."""
    for name, (lo, hi) in POLE_PARAMETER_BOUNDS.items():
        v = check_number(name, getattr(params, name))
        if not lo <= v <= hi:
            raise ValueError(f"{name}: {v!r} is outside the plausible range [{lo:g}, {hi:g}] (see "
                             "skilib.strokes.poles.POLE_PARAMETER_BOUNDS)")
    end = params.pole_start + params.pole_contact_time
    # without poles (F_p,max = 0) the contact's timing means nothing: a short stroke stays valid
    if params.pole_force_max > 0.0 and end > params.stroke_time * (1.0 + 1e-12):
        raise ValueError(f"pole_contact_time: the poles would stay in the snow until τ = pole_start + "
                         f"pole_contact_time = {end:g} s, beyond the stroke (stroke_time {params.stroke_time:g} s); "
                         "the contact must end within the stroke")


def pole_tips(cm) -> dict:
    """Each pole's tip {name: (X, Y, 0)} planted beside its hand when the centre of mass is at
    ``cm``: T± = (X_B, Y_B ± (w_h + w_p), 0)."""
    x, y = float(cm[0]), float(cm[1])
    return {name: np.array([x, y + side * (HAND_WIDTH + TIP_OUTWARD), 0.0]) for name, side in POLES}


class Poled:
    """Mixin for a flat-ski model (``skilib.strokes.ski.FlatSki``) with ``params`` holding
    pole_force_max, pole_start and pole_contact_time: the stroke's phases and the model of the
    phase with the poles in the snow (the module's docstring)."""

    @property
    def poled(self) -> bool:
        """Whether this model skates with poles (pole_force_max > 0)."""
        return self.params.pole_force_max > 0.0

    def phases(self, T: float) -> tuple:
        """The stroke's phases ((name, τ_end), …) over [0, T]: None, the model itself, before
        the plant and after the lift; "poles" with the poles in the snow."""
        if not self.poled:
            return ((None, T),)
        p = self.params
        t1 = min(p.pole_start + p.pole_contact_time, T)
        out = [("poles", t1)] if p.pole_start == 0.0 else [(None, p.pole_start), ("poles", t1)]
        if t1 < T:
            out.append((None, T))
        return tuple(out)

    def phase_model(self, name: str, tau: float, q, qd):
        """The model of phase ``name`` ("poles") starting at τ with (q, q̇): a copy of this model
        (``tips``: where the poles were planted, ``pole_tips`` of the centre of mass now) whose
        common forces have the two struts, with its own cache of systems."""
        if name != "poles":
            raise ValueError(f"phase: unknown phase {name!r}")
        new = copy.copy(self)
        new.tips = pole_tips(np.asarray(q)[self.cm])
        new.planted = float(tau)
        new.forces_common = list(self.forces_common) + self.pole_forces(new.tips, law=self.pole_law())
        new._systems = {}
        return new

    def phase_event(self, system):
        """With the poles in the snow, the event of their contact ending early
        (``pole_lift_event``); None otherwise."""
        return pole_lift_event(self) if getattr(self, "tips", None) is not None else None

    def pole_law(self):
        """The poles' push per pole: the laws' ``pole`` (a ``PolePush``) if the model's laws give
        one, else None (the params' sin² push)."""
        return getattr(getattr(self, "laws", None), "pole", None)

    def check_pole_law(self) -> None:
        """The laws' ``pole``, if any, a ``PolePush`` for a model with poles; else a ValueError
        naming it (a push for poles the params do not have would be dropped)."""
        law = self.pole_law()
        if law is not None and not isinstance(law, PolePush):
            raise ValueError(f"laws.pole: must be None (the params' sin² push) or a PolePush, got {law!r}")
        if law is not None and not self.poled:
            raise ValueError("laws.pole: a push for the poles, but the params have none (pole_force_max = 0)")

    def pole_forces(self, tips: dict, law=None) -> list:
        """The two struts with their tips at ``tips`` (``pole_tips``), pushing with ``law`` (a
        magnitude of time; default the params' sin² push, ``SineSquaredPulse``)."""
        p = self.params
        if law is None:
            law = SineSquaredPulse(p.pole_force_max, p.pole_start, p.pole_contact_time)
        return [Strut(name, self.body, np.zeros(3), tips[name], law, hand_offset=(0.0, side * HAND_WIDTH, HAND_HEIGHT),
                      hand_follows=(True, True, False)) for name, side in POLES]

    def count_pole_works(self, work_terms, actuators) -> None:
        """With poles, the poles' works join the model's works and actuators (``actuators``,
        ``extra_states``); without, the class's stay (the stroke's states bit for bit).  Checks
        the laws' push (``check_pole_law``)."""
        self.check_pole_law()
        if self.poled:
            self.actuators = with_pole_works(actuators, self.params)
            self.extra_states = extra_states(with_pole_works(work_terms, self.params), self.actuators)

    def pole_work_terms(self) -> dict:
        """The poles' work terms of ``work_terms`` (with poles): each pole's force's power."""
        if not self.poled:
            return {}
        return {term: ((name,), [], False) for term, (name, _) in zip(POLE_WORK_TERMS, POLES)}


class PolePush:
    """A pole's push F(τ) [N] given as a law of the contact with two derivatives (``law(τ) ->
    (F, Ḟ, F̈)``, e.g. the ``QuinticSpline`` free control chooses; ``skilib.ocp.control``): a
    strut's magnitude, its value.  Asked only while the pole is planted; a negative value is
    the strut's to refuse (``skilib.engine.Strut``)."""

    def __init__(self, law):
        if not callable(law):
            raise ValueError(f"law: a pole's push must be a law of τ giving (F, Ḟ, F̈), got {law!r}")
        self.law = law

    def __call__(self, t):
        return float(self.law(t)[0])

    def __repr__(self):
        return f"PolePush({self.law!r})"


def pole_lift_event(model):
    """The event of a pole's contact ending early: X_B − X_T falls through zero (the hand, at
    the centre of mass's X, behind the tip: the pole would push the skier back).  Terminal,
    direction −1 (at the plant it is 0 and grows as the skier passes the tip)."""
    i = model.cm.start
    x_tip = float(next(iter(model.tips.values()))[0])

    def ev(t, y):
        return y[i] - x_tip
    ev.terminal, ev.direction = True, -1
    ev.linear = (i, -x_tip)  # g = y[i] + offset: watched in compiled code too (``skilib.strokes.stroke``)
    return ev


def pole_columns(e, cm: slice, qd) -> dict:
    """The poles' force on the body (sum of both; zero outside their contact) [N], their power
    Σ F±·Ṙ_B [W] and pole_force, each pole's push |F±| [N] (the two push alike), from one
    ``Evaluation`` ``e``; and each pole's ``<pole>_extension_speed`` [m/s], the rate of the
    distance from its tip to its hand, û·Ḣ = û·(Ẋ_B, Ẏ_B, 0) with û = F±/|F±| (the pole's line,
    tip to hand): the speed the arm extends at while it pushes (``skilib.physiology.force_velocity``),
    0 where the pole does not push."""
    F, push = np.zeros(3), 0.0
    v = np.asarray(qd, dtype=float)[cm]
    speeds = {}
    for name, _ in POLES:
        s = 0.0
        if name in e.forces:
            f = e.forces[name][cm]
            F = F + f
            push = float(np.linalg.norm(f))
            if push > 0.0:
                s = float((f[0] * v[0] + f[1] * v[1]) / push)
        speeds[f"{name}_extension_speed"] = s
    return {"pole_fx": float(F[0]), "pole_fy": float(F[1]), "pole_fz": float(F[2]),
            "pole_power": float(F @ v), "pole_force": push, **speeds}


def pole_columns_stack(E, cm: slice, qd) -> dict:
    """``pole_columns`` at every point of an ``EvaluationStack`` ``E`` (q̇ (k, nq)): the same
    columns as arrays of k."""
    k = len(E.t)
    F, push = np.zeros((k, 3)), np.zeros(k)
    v = np.asarray(qd, dtype=float)[:, cm]
    speeds = {}
    for name, _ in POLES:
        s = np.zeros(k)
        if name in E.forces:
            f = E.forces[name][:, cm]
            F = F + f
            push = np.linalg.norm(f, axis=1)
            np.divide(f[:, 0] * v[:, 0] + f[:, 1] * v[:, 1], push, out=s, where=push > 0.0)
        speeds[f"{name}_extension_speed"] = s
    return {"pole_fx": F[:, 0], "pole_fy": F[:, 1], "pole_fz": F[:, 2],
            "pole_power": row_dot(F, v), "pole_force": push, **speeds}


def pole_impulse_share(frame) -> dict:
    """The positive X-impulses of the poles' and the leg's forces on the body over a stroke
    (∫max(F_x, 0) dτ by the trapezoidal rule on the stroke's output grid, ``pole_fx`` and
    ``leg_fx``) [N s], and the poles' share of the propulsion, I⁺_poles / (I⁺_poles + I⁺_leg)
    (NaN if neither pushes forwards).  On the grid: the share is good to the grid's resolution
    of the push (≈ 1e-3 with the default 0.01 s)."""
    tau = column(frame, "tau")
    ip, il = (_trapezoid(np.maximum(column(frame, c), 0.0), tau) for c in ("pole_fx", "leg_fx"))
    share = ip / (ip + il) if ip + il > 0 else math.nan
    return {"impulse_poles_x": ip, "impulse_leg_x": il, "pole_share": share}


#: the pole columns of a strokes table of a model with poles (``pole_summary``)
POLE_SUMMARY_COLUMNS = ("work_poles", "work_legs", "mean_pole_power", "impulse_poles_x", "impulse_leg_x",
                        "pole_share", "pole_lift")


def pole_summary(model, stroke, y0, y_end, frame, T: float) -> dict:
    """The pole columns of a stroke's row (``POLE_SUMMARY_COLUMNS``): work_poles, the poles'
    work Σ∫F±·Ṙ_B dτ [J] (0 without poles), work_legs, the leg's drivers' work (the model's
    ``LEG_WORKS``) [J], mean_pole_power [W], the positive X-impulses and the poles' share of
    the propulsion (``pole_impulse_share``), pole_lift, the τ at which the poles' contact ended
    early [s] (NaN: it lasted its time, or no poles)."""
    k, names = 2 * model.nq, model.extra_states
    work = {w: float(y_end[k + names.index(w)] - y0[k + names.index(w)]) for w in names
            if w in POLE_WORK_TERMS or w in model.LEG_WORKS}
    poles = sum(work.get(w, 0.0) for w in POLE_WORK_TERMS)
    lifts = [tau for name, tau in getattr(stroke, "phase_ends", ()) if name == "poles"]
    return dict(work_poles=poles, work_legs=sum(work[w] for w in model.LEG_WORKS), mean_pole_power=poles / T,
                **pole_impulse_share(frame), pole_lift=lifts[0] if lifts else math.nan)


def _trapezoid(y, x) -> float:
    return float(np.sum(0.5 * (y[1:] + y[:-1]) * np.diff(x)))
