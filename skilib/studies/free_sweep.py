"""Sweeps of the free skater (``skilib.models.free.model``): parameters by name, one summary row per run.

:class:`FreeRun` is a row function for the generic sweep: ``sweep(FreeRun("steady"), df)`` (or
``skilib.sweep(FreeRun(), df)``) calls it once per row of ``df``, whose columns are
``FreeSkaterParams`` fields (skating_angle_deg, steer_deg, stroke_time, friction_coefficient,
...) and the run's ``v0`` and ``first_ski``.  A row is summarised either by its periodic stroke
(``strokes="steady"``, :func:`skilib.models.free.run.free_steady_state`) or by the last stroke
of a run of ``strokes`` strokes from ``v0`` (:func:`skilib.models.free.run.simulate_free`).
A row with an unknown name or a value ``FreeSkaterParams`` refuses fails alone, with the name
in its error.

>>> import pandas as pd
>>> from skilib.studies import sweep
>>> from skilib.studies.free_sweep import FreeRun
>>> res = sweep(FreeRun(2), pd.DataFrame({"steer_deg": [5.0, 10.0], "v0": [2.0, 2.0]}),
...             scheduler="serial", progress=False)
>>> list(res.frame.status)
['ok', 'ok']
"""
from __future__ import annotations

import time
from dataclasses import fields

from ..engine.validation import check_number
from ..models.free.params import FreeSkaterParams
from .sweeps import STEADY, plain

__all__ = ["FreeRun", "free_summary", "FREE_PARAMETER_COLUMNS", "FREE_RUN_COLUMNS", "FREE_STEADY_COLUMNS"]

#: what a row may hold: every FreeSkaterParams field and the run's start (v0, first_ski)
FREE_PARAMETER_COLUMNS = tuple(f.name for f in fields(FreeSkaterParams)) + ("v0", "first_ski")
#: a run of N strokes: its last stroke
FREE_RUN_COLUMNS = (
    "u0",                 # the ski's speed along itself at the start of the stroke [m/s]
    "mean_speed",         # time average of |Ṙ_B| over the stroke [m/s]
    "mean_vx",            # CM travel along X / stroke time [m/s]
    "mean_power",         # the leg's work / stroke time [W]
    "peak_leg_force_bw",  # largest |leg force| over the stroke [body weights]
    "ke_loss",            # kinetic energy lost at the touch-down that starts the stroke [J]
    "energy_residual",    # max over the run's strokes of |ΔKE − ΣW| [J]
    "runtime_s",
)
#: the periodic stroke (ke_loss: lost at the touch-down that ends it, = KE at its end − at its
#: start), with the stroke map's residual |Φ(u0) − u0| [m/s] and the strokes the root finder ran
FREE_STEADY_COLUMNS = FREE_RUN_COLUMNS + ("residual", "iterations")
#: keywords of simulate_free a FreeRun may fix for every row (and free_steady_state's own)
_RUN_OPTIONS = ("laws", "rotation", "stabilization", "method", "rtol", "atol", "h", "alpha", "beta", "compiled",
                "dt_out", "n_out", "max_evaluations", "max_wall_time", "max_leg_force_bw", "admissibility",
                "touchdown")
_STEADY_OPTIONS = ("u_guess", "tol", "max_iter")


def free_summary(row: dict, *, strokes=STEADY, **options) -> dict:
    """One free-skater run for the parameter row ``row``, summarised.

    ``row``: FreeSkaterParams fields, ``v0`` and ``first_ski`` (``v0`` is ignored for the
    periodic stroke, which sets its own start).  ``strokes``: "steady" (``FREE_STEADY_COLUMNS``)
    or a number of strokes from ``v0`` (``FREE_RUN_COLUMNS``, of the last stroke).
    ``options``: simulate_free keywords (and, for "steady", u_guess, tol, max_iter).
    Raises ValueError naming an unknown row entry, and what the model raises.
    """
    p = {str(k): plain(v) for k, v in row.items()}
    unknown = sorted(set(p) - set(FREE_PARAMETER_COLUMNS))
    if unknown:
        raise ValueError(f"row: unknown name(s) {unknown}; allowed: {list(FREE_PARAMETER_COLUMNS)}")
    run_kw = {k: p.pop(k) for k in ("v0", "first_ski") if k in p}
    if isinstance(p.get("body_inertia"), list):
        p["body_inertia"] = tuple(p["body_inertia"])
    params = FreeSkaterParams(**p)
    t0 = time.perf_counter()
    if strokes == STEADY:
        from ..models.free.steady import free_steady_state

        run_kw.pop("v0", None)
        ss = free_steady_state(params, **run_kw, **options)
        last = ss.strokes.iloc[0]
        return {"u0": ss.u0, "mean_speed": ss.mean_speed, "mean_vx": float(last["mean_vx"]),
                "mean_power": ss.mean_power, "peak_leg_force_bw": ss.peak_leg_force_bw,
                "ke_loss": float(last["ke_end"] - last["ke_start"]),
                "energy_residual": float(abs(last["energy_residual"])), "runtime_s": time.perf_counter() - t0,
                "residual": ss.residual, "iterations": ss.iterations}
    from ..models.free.run import simulate_free

    options = {k: v for k, v in options.items() if k not in _STEADY_OPTIONS}
    res = simulate_free(params, strokes=strokes, **run_kw, **options)
    st = res.strokes
    last = st.iloc[-1]
    return {"u0": float(last["u_start"]), "mean_speed": float(last["mean_speed"]), "mean_vx": float(last["mean_vx"]),
            "mean_power": float(last["mean_power"]), "peak_leg_force_bw": float(last["peak_leg_force_bw"]),
            "ke_loss": float(last["ke_loss_at_start"]), "energy_residual": float(st["energy_residual"].abs().max()),
            "runtime_s": time.perf_counter() - t0}


class FreeRun:
    """The free skater's row function: ``FreeRun(strokes, **options)(row)`` is
    ``free_summary(row, strokes=strokes, **options)``.  Picklable (a module-level class
    holding plain values), so Dask ships it to its workers.

    strokes : "steady" (default): each row's periodic stroke (``free_steady_state``); or an
        integer N: the last stroke of a run of N strokes from the row's ``v0`` (default 0).
    options : keywords of ``simulate_free`` (rtol, atol, method, compiled, n_out, laws, ...)
        and, with "steady", of ``free_steady_state`` (u_guess, tol, max_iter).
    """

    def __init__(self, strokes=STEADY, **options):
        if not (isinstance(strokes, str) and strokes == STEADY):
            if isinstance(strokes, str):
                raise ValueError(f"strokes: must be 'steady' or an integer >= 1, got {strokes!r}")
            strokes = check_number("strokes", strokes, integer=True, low=1, high=10_000)
        allowed = _RUN_OPTIONS + (_STEADY_OPTIONS if strokes == STEADY else ())
        bad = sorted(set(options) - set(allowed))
        if bad:
            raise ValueError(f"{bad[0]}: not an option of FreeRun({strokes!r}) (allowed: {list(allowed)})")
        self.strokes = strokes
        self.options = dict(options)

    @property
    def outputs(self) -> tuple:
        """The summary's columns, in order."""
        return FREE_STEADY_COLUMNS if self.strokes == STEADY else FREE_RUN_COLUMNS

    def __call__(self, row: dict) -> dict:
        return free_summary(row, strokes=self.strokes, **self.options)

    def __repr__(self):
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"FreeRun({self.strokes!r}{opts})"
