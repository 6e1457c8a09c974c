"""What a run of any skating model returns: its tables, one row per output time, stroke,
change of ski and friction switch."""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..vocabulary import HasUnits

__all__ = ["SimResult"]


class LazyTable:
    """A table given as the call that builds it, ``build(*args, **kwargs)``: a result's field
    (``TableField``) holds it until the table is first read.  The arguments are the run's own
    arrays and rows, kept as they were when the run ended (nothing writes them afterwards)."""

    def __init__(self, build, *args, **kwargs):
        self.build, self.args, self.kwargs = build, args, kwargs

    def __call__(self):
        return self.build(*self.args, **self.kwargs)


class TableField:
    """A dataclass field of a result that holds a DataFrame, or a ``LazyTable`` that builds it at
    the field's first reading (then kept): a study that reads only a result's numbers (its means,
    its u0) builds no DataFrame it does not read, and a result pickles (into a worker process,
    say) with its tables' arrays and rows rather than their DataFrames.  The field has no default."""

    def __set_name__(self, owner, name):
        self.name, self.slot = name, f"_{name}_table"

    def __get__(self, obj, owner=None):
        if obj is None:  # on the class: no default value (dataclasses reads this)
            raise AttributeError(self.name)
        value = obj.__dict__[self.slot]
        if isinstance(value, LazyTable):
            value = obj.__dict__[self.slot] = value()
        return value

    def __set__(self, obj, value):
        obj.__dict__[self.slot] = value


@dataclass
class SimResult(HasUnits):
    """What a run returns (``simulate_run``, ``simulate_phase``, ``simulate_free``).  The columns
    listed here are the thesis's skier's; each model documents its own in its run function.

    - frame : DataFrame, one row per output time (uniform grid in each stroke; the instant of
      a stroke change appears twice, as the end of one stroke and the start of the next).
      Columns: t, tau, stroke, side, mode (+1/−1 sliding, 0 stuck), s, s_dot,
      ski_x/y/z, cm_x/y/z, cm_vx/vy/vz, cm_speed = |Ṙ³|, ski_speed, leg_length,
      leg_angle_deg, push_force = F(τ) [N], push_power = F·Ṙ³ [W], friction_force (along
      the ski's heading e, N), kinetic_energy, work_* (cumulative within the stroke),
      projection_energy (kinetic energy changed by the coordinate projections, cumulative
      within the stroke; 0 unless stabilization='projection'), constraint_norm = max|Cᵢ|
      and velocity_constraint_norm = max|Cq q̇ + Ct|ᵢ over the model's rows (C1–C17, and
      with Euler parameters the three normalization rows), q0…q17 and qd0…qd17 (ZXZ; with
      Euler parameters q0…q20 and qd0…qd20, body blocks [R p] of 7), lam0…lam16 (C1…C17
      in either parametrization), leg_drive_force (= −λ of C14: the extension driver's
      push on the CM along the leg), ankle_Fx/y/z (ski on shank at the ankle),
      knee_Fx/y/z and knee_Mx/y/z (shank on the upper body, at and about the CM), global
      components.
    - strokes : DataFrame, one row per stroke: stroke, side, heading_deg, mean_speed
      (time average of |Ṙ³|), mean_power (time average of F·Ṙ³), distance_x (CM X
      travel), ke_loss_at_start, projection_energy, and more (mean |v_x|, |v_y|,
      energies and works).
    - changes : DataFrame, one row per stroke change (KE before/after, CM height jump).
    - events : DataFrame of friction mode switches (stick/slip) inside strokes.
    - units (property) : {column: unit} of every column of the four tables (``skilib.vocabulary``;
      "-" for a number without dimension, a count or a label).

    A run computes every number of the four tables; each DataFrame is built from them when it is
    first read (``TableField``), the same DataFrame bit for bit as one built at once.
    """

    frame: pd.DataFrame = TableField()
    strokes: pd.DataFrame = TableField()
    changes: pd.DataFrame = TableField()
    events: pd.DataFrame = TableField()
    params: object
    models: list = field(repr=False)
    info: dict = field(default_factory=dict)

    def to_c3d(self, path, *, overwrite: bool = False):
        """Write the run as a C3D motion-capture file (markers, analog forces, events, parameters;
        the thesis's skier only: ``skilib.models.thesis.c3d.write_run``).

        The file is written atomically (``skilib.data.files.write_atomic``): an existing
        ``path`` is replaced only with ``overwrite=True`` (else ``FileExistsError``), its folder
        must exist, and on any failure an existing file is left as it was.  Returns the
        ``Path`` written, only once the file is complete under that name."""
        from ..data.files import check_target, write_atomic

        write = getattr(self.models[0], "write_c3d", None) if self.models else None
        if write is None:
            raise ValueError(f"to_c3d: runs of {type(self.models[0]).__name__ if self.models else 'no model'} "
                             "have no C3D layout (only the thesis's skier's markers are defined)")
        path = check_target(path, overwrite=overwrite, what="C3D file", suffixes=(".c3d",))
        # the model writes (and checks) a new file in a temporary folder; it takes the name
        # ``path`` only when complete
        return write_atomic(path, lambda tmp: write(self, tmp), overwrite=overwrite, what="C3D file", suffixes=(".c3d",))

    def energy_balance(self) -> pd.DataFrame:
        """Per stroke: ΔKE and the sum of the works (push, friction, gravity, drag, drivers,
        joints) and of the projections' kinetic-energy change, with the residual ΔKE − ΣW."""
        st = self.strokes
        terms = self.info["work_terms"]
        works = st[list(terms) + ["projection_energy"]]
        out = st[["stroke", "ke_start", "ke_end"]].copy()
        out["delta_ke"] = st["ke_end"] - st["ke_start"]
        out["total_work"] = works.sum(axis=1)
        out["residual"] = out["delta_ke"] - out["total_work"]
        return out
