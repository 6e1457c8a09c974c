"""The thesis model's big artefacts, computed: the numbers behind the book's "How to read these
numbers" box (book/results.md includes it; scripts/reading_numbers.py writes it).

The three-body skier of ch. 4–5 reproduces the thesis, and with it some features that are
the model's, not skiing's.  ``model_artefacts`` measures each of them on the thesis's own
cases (``skilib.models.thesis.cases``):

- a single 2 s push from rest (table 7's third phase) reaches a CM speed no skier reaches
  in one push: the push-off acts for the whole phase on a skier without swing phase;
- at each change of ski the new stroke keeps only the CM velocity along the new ski
  (``skilib.models.thesis.run.stroke_change``), so a large share of the kinetic energy vanishes in
  the change (the long run's ``changes`` table);
- at each change the leg laws restart, so the CM jumps down from ℓ(T) cos γ(T) to
  ℓ0 cos γ0 above the ankle (eqs. 187–188);
- the push-off is an external force applied at the CM along the leg (eqs. 179–181), so the
  body weight is carried by the push, not by the joints: the ankle and knee forces stay
  below M g.
"""
from __future__ import annotations

import pandas as pd

from . import cases
from .summary import joint_force_magnitudes, level_off_stroke

__all__ = ["ARTEFACT_COLUMNS", "model_artefacts", "artefact_runs", "artefacts_markdown"]

ARTEFACT_COLUMNS = ["key", "artefact", "value", "unit", "computed_from", "why"]


def artefact_runs(params=None, *, dt_out: float = 0.01):
    """The two runs the artefacts are measured on: (table 7's third phase, table 9's long run).

    ``params`` is a ``SkierParams`` (None: the thesis's defaults, M = 75 kg for table 9)."""
    from .params import SkierParams
    from .run import simulate_phase, simulate_run

    phase = simulate_phase(params or SkierParams(), **cases.TABLE7[2].kwargs(dt_out=dt_out))
    run = simulate_run(params or cases.TABLE9.params(), **cases.TABLE9.kwargs(dt_out=dt_out))
    return phase, run


def model_artefacts(phase=None, run=None, params=None) -> pd.DataFrame:
    """One row per artefact of the thesis model: ``key``, ``artefact`` (a sentence), ``value``,
    ``unit``, ``computed_from`` (which run and column) and ``why`` (its cause in the model).

    ``phase`` and ``run`` are the results of ``artefact_runs`` (computed if None).  Rows:

    - ``push_speed``: CM speed at the end of table 7's third phase (one 2 s push from
      rest) [m/s];
    - ``ke_loss``: share of the kinetic energy lost at the change of ski into the long
      run's level-off stroke, 1 − KE_after/KE_before [%];
    - ``cm_drop``: how far the CM drops at that change, −Δz_CM [m];
    - ``knee_force``: the largest knee force of the long run as a share of M g [%];
    - ``ankle_force``: the largest ankle force of the long run as a share of M g [%].
    """
    if phase is None or run is None:
        p, r = artefact_runs(params)
        phase = p if phase is None else phase
        run = r if run is None else run
    end = phase.frame.iloc[-1]
    k = level_off_stroke(run) or int(run.strokes.stroke.iloc[-1])
    ch = run.changes[run.changes.stroke == k]
    if ch.empty:  # level-off at stroke 1: no change into it; use the last change
        ch = run.changes.iloc[[-1]]
        k = int(ch.stroke.iloc[0])
    ch = ch.iloc[0]
    weight = run.params.mass * run.params.g
    j = joint_force_magnitudes(run.frame)
    c3 = cases.TABLE7[2]
    rows = [
        ("push_speed", f"one {c3.phase_time:g} s push from rest (table 7, third phase) reaches",
         float(end.cm_speed), "m/s", "table 7 case 3: |v_CM| at τ = T",
         "the push-off acts on the CM for the whole phase, with no swing phase and no limit on the leg's power"),
        ("ke_loss", f"of the kinetic energy is lost at each change of ski (change into stroke {k}, the long run's level-off)",
         100.0 * (1.0 - ch.ke_after / ch.ke_before), "%", "table 9 run: 1 − ke_after/ke_before of `changes`",
         "the new ski keeps only the CM velocity along its own direction, the rest is lost at once: the change of ski is an impact"),
        ("cm_drop", f"the CM drops at each change of ski (change into stroke {k})",
         float(-ch.cm_z_jump), "m", "table 9 run: −cm_z_jump of `changes`",
         "the leg jumps back from ℓ(T), γ(T) to ℓ0, γ0 (eqs. 187–188): the CM falls from ℓ(T) cos γ(T) to ℓ0 cos γ0 above the ankle"),
        ("knee_force", "largest knee force of the long run, as a share of the body weight M g",
         100.0 * float(j.knee.max()) / weight, "%", "table 9 run: max |knee_F| / (M g)",
         "the push is an external force on the CM along the leg (eqs. 179–181): it carries the weight, the joints do not"),
        ("ankle_force", "largest ankle force of the long run, as a share of the body weight M g",
         100.0 * float(j.ankle.max()) / weight, "%", "table 9 run: max |ankle_F| / (M g)",
         "as for the knee: the leg is a driven constraint, and the push-off bypasses it"),
    ]
    return pd.DataFrame(rows, columns=ARTEFACT_COLUMNS)


def artefacts_markdown(table: pd.DataFrame) -> str:
    """The artefacts as a Markdown table (number | what | why), numbers to 3 significant digits."""
    def num(v, unit):
        s = f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
        return f"{s} {unit}" if unit != "%" else f"{s} %"

    lines = ["| number | what | why (in the model) |", "|---|---|---|"]
    for r in table.itertuples():
        lines.append(f"| **{num(r.value, r.unit)}** | {r.artefact} | {r.why} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(artefacts_markdown(model_artefacts()))
