"""The steady state of the free skater: its periodic stroke (the fixed point of the stroke map,
``skilib.strokes.periodic``) and the check that it is a gliding skating stroke."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...engine.validation import check_bool, check_number
from ...strokes.frame import column_extreme
from ...strokes.periodic import NoSteadyState, check_fixed_point_args, periodic_stroke
from ...strokes.result import TableField
from ...strokes.variational import stroke_map_jacobian
from ...vocabulary import HasUnits
from .params import FreeSkaterParams, with_overrides
from .run import FreeSkating, free_options_of

__all__ = ["FreeSteadyState", "free_steady_state", "check_gliding"]


@dataclass
class FreeSteadyState(HasUnits):
    """The periodic stroke of the free skater (``free_steady_state``): a stroke from u0 and the
    touch-down give u0 back on the other ski, and the next stroke is the mirror image (Y → −Y).

    - u0 : the ski's speed along itself at every touch-down [m/s] (``v0`` of simulate_free).
    - mean_speed : time average of the centre of mass's speed |Ṙ_B| over the stroke [m/s]; it
      counts the lateral sway as well as the progress.
    - progress_speed : the centre of mass's distance along X (the direction of travel) per time,
      ΔX_B / T [m/s] (``mean_vx`` of the ``strokes`` table): how fast the skier gets on, the
      lateral sway left out.
    - mean_power : time average of the leg's power over the stroke [W].
    - peak_leg_force_bw : the largest leg force over the stroke [body weights].
    - frame, strokes : the periodic stroke's tables (``simulate_free``'s ``frame`` and ``strokes``),
      each built when first read (``skilib.strokes.result.TableField``).
    - iterations : stroke-map evaluations (one simulated stroke each).
    - residual : |Φ(u0) − u0| [m/s].
    - history : every evaluation (u, Φ(u)); the first ones, far from u0, by coarse maps.
    - coarse_maps : the strokes the search integrated at a coarse tolerance
      (``skilib.strokes.periodic.COARSE_LEVELS``: Φ within ~2e-9 m/s of the run's, where
      |Φ(u) − u| was predicted above 1e-4 m/s; within ~2e-11 m/s where above 1e-7 m/s); u0,
      residual and the tables are the run's tolerance.
    - change : the touch-down that ends the periodic stroke, as a row of ``simulate_free``'s
      ``changes`` table (ke_before, ke_after, ke_loss and, under ``touchdown="plastic"``, its
      shares ke_loss_merge and ke_loss_projection [J]; u_after = u0 to the residual).
    - touchdown : the touch-down rule ("along_ski" or "plastic", ``simulate_free``'s).
    - multiplier : Φ′(u0), the stroke map's slope at the periodic stroke, by the variational
      equations (``free_steady_state(multiplier=True)``; NaN otherwise): a run's distance from
      the periodic stroke shrinks by this factor per stroke where |Φ′(u0)| < 1.
    - mean_positive_power, metabolic_power, gross_efficiency (properties, from ``strokes``): the
      cost of the drivers' work (leg, heading), ``skilib.strokes.work``; metabolic_total and
      gross_efficiency_total: the whole physiological cost (``skilib.physiology``).
    - mean_leg_power (property) : the leg's net mean power [W] (its placement drivers'): mean_power
      without the arms' on the poles (= mean_power without poles).
    - units (property) : {name: unit} of its numbers and its tables' columns (``skilib.vocabulary``).
    """

    _unit_properties = ("mean_leg_power", "mean_positive_power", "metabolic_power", "gross_efficiency",
                        "metabolic_total", "gross_efficiency_total")

    u0: float
    mean_speed: float
    progress_speed: float
    mean_power: float
    peak_leg_force_bw: float
    frame: pd.DataFrame = TableField()
    strokes: pd.DataFrame = TableField()
    iterations: int
    residual: float
    history: list
    change: dict
    touchdown: str
    multiplier: float = float("nan")
    coarse_maps: int = 0

    @property
    def mean_leg_power(self) -> float:
        """The leg's net mean power [W]: its placement drivers' (the power budget without the
        arms' on the poles; = mean_power without poles)."""
        return self.mean_power - float(self.strokes["mean_pole_power"].iloc[0])

    @property
    def mean_positive_power(self) -> float:
        """ΣW⁺/T: the drivers' (leg, heading) positive work per time over the stroke [W]."""
        return float(self.strokes["mean_positive_power"].iloc[0])

    @property
    def metabolic_power(self) -> float:
        """Σ(W⁺/η⁺ + |W⁻|/η⁻)/T over the drivers (leg, heading) [W]: the cost of their work with the
        params' eta_positive, eta_negative (``skilib.strokes.work``)."""
        return float(self.strokes["metabolic_power"].iloc[0])

    @property
    def gross_efficiency(self) -> float:
        """(ΣW⁺ + ΣW⁻)/(P_met T): the drivers' net work over the metabolic energy."""
        return float(self.strokes["gross_efficiency"].iloc[0])

    @property
    def metabolic_total(self) -> float:
        """The whole physiological cost of the stroke [W]: the work (the arms at their own η⁺),
        swinging the legs, developing force and resting (``skilib.physiology``)."""
        return float(self.strokes["metabolic_total"].iloc[0])

    @property
    def gross_efficiency_total(self) -> float:
        """(ΣW⁺ + ΣW⁻)/(P_met,total T): the actuators' net work over the whole physiological cost."""
        return float(self.strokes["gross_efficiency_total"].iloc[0])


def free_steady_state(params: FreeSkaterParams | None = None, *, u_guess: float = 3.0, tol: float = 1e-10,
                      max_iter: int = 30, max_speed: float = 30.0, progress: bool = False,
                      multiplier: bool = False, **kwargs) -> FreeSteadyState:
    """The steady state of the free skater: u0 with Φ(u0) = u0, Φ the stroke map (the ski's
    speed at the start of the next stroke after one stroke from u0 and the touch-down), by the
    secant method every skating model shares (``skilib.strokes.periodic``: inverse quadratic
    steps near the fixed point, trust region, ``max_speed``; the strokes far from the fixed point
    integrated at a coarse tolerance, which only steers the search) to |Φ(u) − u| ≤ ``tol``.  ``kwargs`` go to ``simulate_free`` (laws, rotation,
    ``touchdown``: the touch-down rule that closes the stroke map, ...),
    among them its limits: ``max_wall_time`` bounds the whole search (every evaluation of the
    stroke map; default ten minutes, ``BudgetExceededError`` beyond) and ``max_leg_force_bw`` the
    periodic stroke's leg force (default 10 body weights; a ValueError naming it beyond).

    A periodic stroke whose snow load N(τ) = (M + m_s) g + M z̈(τ) falls below zero on its output
    grid is refused before any stroke is integrated, whatever ``admissibility`` says: a
    ValueError naming ``snow_load``, the stroke, τ and N in N and body weights
    (``skilib.models.free.run.check_snow_load``; e.g. cm_dip 0.15 m in a 0.4 s stroke, where
    N(0) ≈ −0.87 body weights).  The snow would pull the ski down and the friction μN push it
    forwards: no skating stroke, and no technique for the optimum
    (``skilib.studies.optimum``, which logs it as an error).

    - u_guess : first iterate [m/s] (> 0); the second is Φ(u_guess).
    - max_iter : stroke-map evaluations at most; max_speed : the iterates must stay within
      |u| ≤ max_speed [m/s].  ``NoSteadyState`` (a RuntimeError) beyond either.
    - progress : a bar on stderr, one step per stroke-map evaluation (u and Φ(u) − u in m/s).
    - multiplier : also Φ′(u0), the stroke map's slope at the periodic stroke (the stability of
      the periodic stroke, thesis §5.6: a run approaches it where |Φ′(u0)| < 1), from the
      variational equations integrated with one more stroke (``skilib.strokes.variational``:
      the derivative of the flow exact to the run's tolerance, the start's and the touch-down's
      by differences of those algebraic maps); it needs CasADi (``skilib[ocp]``).  A stroke that
      switches friction mode is a ValueError (its slope: differences of the map).

    A periodic stroke is a gliding skating stroke only if the ski lands moving forwards
    (u0 > 0) and keeps sliding forwards to the next touch-down (the ski's speed never reaches
    zero).  Any other fixed point (with the default laws, e.g. at skating angles of 10° and 15°: a
    sideways sway at u0 ≈ 0 that hardly progresses along X) raises ``NoSteadyState`` with u0, the
    least ski speed in the stroke and the skating angle.

    Examples
    --------
    >>> import skilib as sk
    >>> ss = sk.free_steady_state()
    >>> bool(ss.residual <= 1e-10 and 0 < ss.progress_speed < ss.mean_speed)
    True
    """
    p = with_overrides(params)
    multiplier = check_bool("multiplier", multiplier)
    u_a, tol, max_iter, max_speed = check_fixed_point_args(u_guess=u_guess, tol=tol, max_iter=max_iter,
                                                           max_speed=max_speed)
    u_a = check_number("u_guess", u_a, positive=True, unit="m/s")  # a gliding stroke starts moving forwards
    for k in ("strokes", "v0"):
        if k in kwargs:
            raise ValueError(f"{k}: set by free_steady_state (one stroke from u), not an argument")
    skating = FreeSkating(free_options_of(p, kwargs))
    skating.check_snow_load()
    found = periodic_stroke(skating, skating.settings(), u_guess=u_a, tol=tol, max_iter=max_iter,
                            max_speed=max_speed, who="free_steady_state", progress=progress)
    row = found.tables.strokes[0]  # the stroke's row as a dict (the table's row, without a Series)
    check_gliding(p, found.u0, found.tables.frames[0], row, found.events)
    change = found.change  # the touch-down after the periodic stroke, from its end state
    slope = _multiplier(skating, found.u0) if multiplier else float("nan")
    return FreeSteadyState(u0=found.u0, mean_speed=float(row["mean_speed"]), progress_speed=float(row["mean_vx"]),
                           mean_power=float(row["mean_power"]), peak_leg_force_bw=float(row["peak_leg_force_bw"]),
                           **found.tables.result_tables(), iterations=found.iterations, residual=abs(found.residual),
                           history=found.history, change=change, touchdown=skating.o.touchdown,
                           multiplier=slope, coarse_maps=found.coarse_maps)


def _multiplier(skating: FreeSkating, u0: float) -> float:
    """Φ′(u0) of the free skater's stroke map from the variational equations (at the run's
    integration tolerance): start(u) and the touch-down's start speed are the algebraic maps
    around the stroke's flow."""
    def after(model, q, qd):
        new, q1, qd1, _ = skating.touch_down(1, model, q, qd)
        return [skating.start_speed(new, q1, qd1)]

    ig = skating.o.integrator
    _, J = stroke_map_jacobian(skating, skating.settings(), lambda x: skating.start(float(x[0])), after, [u0],
                               rtol=ig.rtol, atol=ig.atol)
    return float(J[0, 0])


def check_gliding(p: FreeSkaterParams, u0: float, frame, row, events) -> None:
    """``NoSteadyState`` unless the periodic stroke (from u0; its frame, a DataFrame or
    ``stroke_columns``' dict, its row of the strokes table and its stick/slip events) glides:
    u0 > 0 and the ski's speed along itself stays above zero to the touch-down."""
    u_min = min(u0, column_extreme(frame["u"], "min"), float(row["u_end"]))
    if len(events):  # the ski's speed reached zero between output points
        u_min = min(u_min, 0.0)
    if u0 > 0 and u_min > 0:
        return
    what = ("the ski lands at rest or moving backwards" if u0 <= 0
            else "the ski stops (and slides back) during the stroke")
    raise NoSteadyState(
        f"free_steady_state: no gliding stroke at skating_angle_deg = {p.skating_angle_deg:g}°: the fixed point of "
        f"the stroke map has u0 = {u0:.4g} m/s and the ski's least speed in the stroke is {u_min:.4g} m/s, so "
        f"{what}; the centre of mass progresses at {float(row['mean_vx']):.3g} m/s along X (its mean speed, "
        f"sideways sway included, is {float(row['mean_speed']):.3g} m/s); what moves it back: a wider V (a larger "
        f"skating_angle_deg; with every other parameter at its default, 10° and 15° do not glide and the default "
        f"{FreeSkaterParams().skating_angle_deg:g}° does)")
