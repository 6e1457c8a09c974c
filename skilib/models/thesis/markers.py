"""Where the thesis's skier is: marker positions and a drawable skeleton, from the model's geometry and q.

The drawings (``skilib.plot``) and the C3D export (``skilib.models.thesis.c3d``) need the skier as
points in space, not as coordinates.  This module turns a simulated run into a
model-agnostic :class:`Skeleton`: named points per output time, segments joining them
(one per body), force arrows; a later model supplies its own ``Skeleton`` and is drawn and
exported by the same code.

Points of the thesis model (Bruzzo 2012, §4.2, eqs. 107–124, 144; book: The skier model)

    - ANKLE: R¹, the ski's origin: the spherical ankle sits on the ski's centre (C6–C8)
    - SKI_TIP: R¹ + (L_ski/2) x̄¹; SKI_TAIL: R¹ − (L_ski/2) x̄¹ (the ski box, eqs. 147–149)
    - KNEE: the shank's far end, R¹ + L2 u (the shank is a rod of length L2 from the ankle)
    - CM: R³, the upper body's origin, which the thesis takes as the skier's centre of
      mass (eq. 144: the distance ℓ(τ) of C14 runs from the ski to R³)
    - HIP: R³ as well: the model has no trunk, the CM sits on the leg axis at the hip
      (R³ = R¹ + ℓ u, the leg's reach |L2 − L3| ≤ ℓ ≤ L2 + L3); a model with a
      trunk gives the two different positions

u = (R³ − R¹)/|R³ − R¹| is the leg axis (x̄² = x̄³, C9–C13, C15–C17).  The upper body is
drawn as what the model makes it, a rod of length L3 centred on R³ along u, so that the
prismatic knee (C9–C13) shows as the overlap of the shank and the upper-body rod.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Skeleton", "MARKERS", "skeleton", "stroke_rows"]

#: the marker names of the thesis model, in the order they are exported
MARKERS = ("SKI_TIP", "SKI_TAIL", "ANKLE", "KNEE", "HIP", "CM")


@dataclass
class Skeleton:
    """A model as drawable geometry over time (model-agnostic).

    - t : (n,) times [s]
    - points : name -> (n, 3) positions [m] (the markers)
    - segments : (label, point_a, point_b) lines between points, one per drawn body part;
      ``point_a``/``point_b`` name entries of ``points`` or of ``extra``
    - extra : name -> (n, 3) further positions used only by segments (not markers)
    - arrows : name -> (origin (n, 3), force vector (n, 3) [N])
    - stroke : (n,) stroke number of each time (0 where the model has no strokes)
    - labels : free text labels of the model's parts for the drawings (e.g. constraint groups)
    """

    t: np.ndarray
    points: dict
    segments: list
    extra: dict = field(default_factory=dict)
    arrows: dict = field(default_factory=dict)
    stroke: np.ndarray | None = None
    labels: dict = field(default_factory=dict)

    def position(self, name) -> np.ndarray:
        return self.points[name] if name in self.points else self.extra[name]

    def take(self, idx) -> "Skeleton":
        """The skeleton at the rows ``idx`` only."""
        idx = np.asarray(idx)
        return Skeleton(self.t[idx], {k: v[idx] for k, v in self.points.items()}, list(self.segments),
                        {k: v[idx] for k, v in self.extra.items()},
                        {k: (o[idx], f[idx]) for k, (o, f) in self.arrows.items()},
                        None if self.stroke is None else self.stroke[idx], dict(self.labels))

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        allp = np.concatenate([*self.points.values(), *self.extra.values()])
        return allp.min(axis=0), allp.max(axis=0)


def stroke_rows(frame) -> np.ndarray:
    """Row indices of a result's frame on one uniform time grid: the duplicated instant of a
    stroke change keeps the start of the new stroke, not the end of the old one."""
    t = frame["t"].to_numpy()
    keep = np.ones(len(t), dtype=bool)
    keep[:-1] = t[1:] > t[:-1]
    return np.flatnonzero(keep)


def skeleton(result, rows=None) -> Skeleton:
    """The thesis model of a ``SimResult`` as a :class:`Skeleton` (points: see the module).

    rows : frame row indices (default: :func:`stroke_rows`, one row per instant).
    Arrows: ``push`` = F(τ) u at the CM (the push-off along the leg, eqs. 179–181),
    ``friction`` = the friction force along the ski at the ankle (eqs. 171–178).

    >>> import skilib as sk
    >>> p = sk.SkierParams()
    >>> res = sk.simulate_phase(p, push_force=sk.stand_in_push_force(p, p.phase_time))
    >>> sk_ = skeleton(res)
    >>> import numpy as np
    >>> d = np.linalg.norm(sk_.points["CM"] - sk_.points["ANKLE"], axis=1)   # = ℓ(τ), eq. 187
    >>> bool(np.allclose(d, res.frame["leg_length"].to_numpy()[stroke_rows(res.frame)], atol=1e-8))
    True
    """
    f = result.frame
    rows = stroke_rows(f) if rows is None else np.asarray(rows)
    f = f.iloc[rows]
    p = result.params
    R1 = f[["ski_x", "ski_y", "ski_z"]].to_numpy()
    R3 = f[["cm_x", "cm_y", "cm_z"]].to_numpy()
    stroke = f["stroke"].to_numpy()
    e = np.array([result.models[k - 1].e for k in stroke])
    leg = R3 - R1
    u = leg / np.linalg.norm(leg, axis=1)[:, None]
    half = 0.5 * p.ski_length
    points = {
        "SKI_TIP": R1 + half * e, "SKI_TAIL": R1 - half * e, "ANKLE": R1.copy(),
        "KNEE": R1 + p.lower_leg * u, "HIP": R3.copy(), "CM": R3.copy(),
    }
    extra = {"UPPER_LOW": R3 - 0.5 * p.upper_leg * u, "UPPER_TOP": R3 + 0.5 * p.upper_leg * u}
    segments = [("ski", "SKI_TAIL", "SKI_TIP"), ("shank", "ANKLE", "KNEE"), ("upper body", "UPPER_LOW", "UPPER_TOP")]
    arrows = {"push": (R3.copy(), f["push_force"].to_numpy()[:, None] * u),
              "friction": (R1.copy(), f["friction_force"].to_numpy()[:, None] * e)}
    labels = {
        "ski": "body 1: ski (C1 R¹z = 0, C2 on its line, C3–C5 heading)",
        "ANKLE": "ankle: spherical joint C6–C8",
        "KNEE": "knee: prismatic joint C9–C13",
        "CM": "CM R³: C14 |R³ − R¹| = ℓ(τ)",
        "shank": "body 2: shank, C15–C17 leg orientation γ(τ)",
        "upper body": "body 3: upper body (mass M − m2)",
    }
    return Skeleton(f["t"].to_numpy(), points, segments, extra, arrows, stroke, labels)
