"""Per-run summaries of a skier simulation that the chapters report.

==========================  =======================================================================
``constraint_groups``       the largest violation of each group of the skier's constraint rows
                            along a run, the compendium's analogue of the thesis's appendix C
                            (figs. 45–47, §5.5: "fulfillment of the constraints imposed").
``level_off_stroke``        the stroke at which the mean speed per stroke stops changing, the
                            quantity the thesis reads off fig. 41 (§5.6: "after the sixth stroke").
``joint_force_magnitudes``  |F| at the ankle and the knee from the frame's reaction columns.
==========================  =======================================================================
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["CONSTRAINT_GROUPS", "constraint_groups", "level_off_stroke", "joint_force_magnitudes"]

CONSTRAINT_GROUPS: dict = {
    "ski–ground C1–C5": ("C1", "C2", "C3", "C4", "C5"),
    "ankle C6–C8": ("ankle",),
    "knee C9–C13": ("knee",),
    "drivers C14–C17": ("C14", "leg_orientation"),
}
"""The skier's constraint rows by group (ch. 4): the ski on the snow (C1–C5, eqs. 150–156),
the ankle's spherical joint (C6–C8), the knee (C9–C13) and the rheonomic drivers of the leg
(C14, eq. 187; C15–C17, eq. 188).  Keys are the column names of ``constraint_groups``; values
the names of the constraints (row labels up to their ``[i]``) in each group."""


def constraint_groups(result, groups: dict | None = None) -> pd.DataFrame:
    """Largest |Cᵢ| and |Cq q̇ + Ct|ᵢ of each group of constraint rows at every output time.

    ``result`` is what ``simulate_phase`` / ``simulate_run`` return (ZXZ or Euler parameters).
    Each stroke's rows of the frame are evaluated on that stroke's model (the sliding system:
    the stuck-ski row is not one of the model's rows).  Returns a DataFrame with ``tau``,
    ``stroke`` and, per group g, a column g (position level, in m for rows measuring lengths,
    dimensionless on direction cosines) and a column "g (velocity)".  Rows outside every
    group (the Euler parameters' normalization rows) are not reported.
    """
    groups = CONSTRAINT_GROUPS if groups is None else groups
    f = result.frame
    out = []
    for k, model in enumerate(result.models, start=1):
        system = model.system(1)
        comp = [lab.split("[")[0] for lab in system.constraint_labels]
        sel = {g: [i for i, c in enumerate(comp) if c in names] for g, names in groups.items()}
        fk = f[f.stroke == k]
        Q = fk[[f"q{j}" for j in range(system.nq)]].to_numpy()
        V = fk[[f"qd{j}" for j in range(system.nq)]].to_numpy()
        for tau, q, v in zip(fk.tau, Q, V):
            jet = system.constraint_jet(tau, q, v)
            row = {"tau": tau, "stroke": k}
            for g, rows in sel.items():
                row[g] = np.abs(jet.val[rows]).max()
                row[g + " (velocity)"] = np.abs(jet.vel[rows]).max()
            out.append(row)
    return pd.DataFrame(out)


def level_off_stroke(strokes, rel_change: float = 0.02):
    """The first stroke whose mean speed differs from the previous stroke's by less than
    ``rel_change`` (relative), or None if none does within the run.

    ``strokes`` is a run's ``strokes`` table (or the run itself).  The thesis reads its
    levelling-off after the sixth stroke from fig. 41 (§5.6) without stating a criterion;
    this is the compendium's.
    """
    st = getattr(strokes, "strokes", strokes)
    rel = st.mean_speed.pct_change().abs()
    return next((int(k) for k, r in zip(st.stroke, rel) if r < rel_change), None)


def joint_force_magnitudes(frame) -> pd.DataFrame:
    """|F| [N] of the ankle force (ski on shank) and of the knee force (shank on the upper
    body) at every row of a run's frame, from the Lagrange multipliers' reactions."""
    ankle = np.sqrt(frame.ankle_Fx**2 + frame.ankle_Fy**2 + frame.ankle_Fz**2)
    knee = np.sqrt(frame.knee_Fx**2 + frame.knee_Fy**2 + frame.knee_Fz**2)
    return pd.DataFrame({"ankle": ankle, "knee": knee})
