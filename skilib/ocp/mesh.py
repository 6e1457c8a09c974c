"""A stroke's mesh, split into phases at fixed times (the book's chapter "Optimal control").

A stroke whose forces switch on or off at fixed times after touch-down (the poles: planted at
τ = t_p, lifted at t_p + t_c) is collocated with a knot at every switch, so that no interval
straddles one: inside each phase the force is smooth and Hermite–Simpson keeps its fourth order;
an interval across the switch sees a force whose second derivative jumps (the poles' sin² push
at its lift), and the error grows: on the free skater's V2 stroke, 22 times the phased mesh's on
10 intervals and 5 times on 20.

The phases are [b_j, b_j+1] with fixed breaks 0 = b_0 < b_1 < … < b_P and the last phase
[b_P, T] ending at the stroke time T, which may be free: phase j has n_j intervals of equal width,

    h = (b_j+1 − b_j)/n_j,   the last: h = (T − b_P)/n_P,

so the interval widths of the fixed phases are numbers and only the last phase's widths carry T.
Without breaks the mesh is the even one, h = T/N.  A program whose break is a variable (the poles'
lift t_p + t_c with the contact time free) moves it (``at_breaks``): the widths of the phases on
either side then carry that variable as the last phase's carry T, and the counts stay.
"""
from __future__ import annotations

import numpy as np

from ..engine.codegen.casadi_terms import require_casadi

__all__ = ["PhasedMesh"]


class PhasedMesh:
    """N = Σ ``counts`` intervals over [0, T], a knot at each of the fixed times ``breaks``
    (increasing, > 0), phase j holding ``counts[j]`` intervals of equal width (the module's
    docstring).  ``PhasedMesh(N)`` is the even mesh."""

    def __init__(self, nodes: int, breaks=(), counts=None):
        if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or nodes < 2:
            raise ValueError(f"nodes: must be an integer ≥ 2 (the mesh's intervals), got {nodes!r}")
        self.breaks = tuple(float(b) for b in breaks)
        if any(b <= 0 for b in self.breaks) or any(b1 <= b0 for b0, b1 in zip(self.breaks, self.breaks[1:])):
            raise ValueError(f"breaks: must be increasing times > 0, got {breaks!r}")
        counts = (int(nodes),) if counts is None else tuple(int(c) for c in counts)
        if len(counts) != len(self.breaks) + 1 or min(counts) < 1 or sum(counts) != nodes:
            raise ValueError(f"counts: {len(self.breaks) + 1} phases of ≥ 1 interval summing to nodes ({nodes}), "
                             f"got {counts!r}")
        self.N, self.counts = int(nodes), counts
        #: the breaks' times in a program (``at_breaks``): expressions of its variables, or None (the numbers)
        self.break_times = None

    def at_breaks(self, times) -> "PhasedMesh":
        """The same phases with their breaks at ``times`` in ``intervals`` (one per break: a number,
        an expression, or a row of one per interval, as T may be), where a program's break is a
        variable (the poles' lift t_p + t_c with t_c free); ``breaks`` stay the numbers the mesh
        was split at (its key, ``knot``, ``times``)."""
        if len(times) != len(self.breaks):
            raise ValueError(f"times: one per break ({len(self.breaks)}), got {len(times)}")
        out = PhasedMesh(self.N, self.breaks, self.counts)
        out.break_times = tuple(times)
        return out

    @classmethod
    def split(cls, nodes: int, breaks, T: float, least: int = 2) -> "PhasedMesh":
        """The mesh of ``nodes`` intervals with knots at ``breaks``, each phase's intervals in
        proportion to its duration at the stroke time ``T`` (at least ``least`` per phase, the
        last phase taking what rounding leaves).  An even ``nodes`` is split as twice ``nodes``/2
        is, while that leaves ``least`` intervals a phase: the meshes of a doubling sequence are
        nested, each interval halved, so their errors fall at the scheme's order (a fresh rounding
        at every size would change the phases' shares, and the error's constant with them)."""
        ends = (0.0, *map(float, breaks), float(T))
        if not ends[-2] < T:
            raise ValueError(f"T: the stroke time {T:g} s must end after the last break {ends[-2]:g} s")
        if nodes % 2 == 0 and nodes // 2 >= least * len(ends[1:]):
            half = cls.split(nodes // 2, breaks, T, least)
            return cls(nodes, breaks, tuple(2 * c for c in half.counts))
        share = [max(least, round(nodes * (b - a) / T)) for a, b in zip(ends[:-2], ends[1:-1])]
        last = nodes - sum(share)
        if last < least:
            raise ValueError(f"nodes: {nodes} intervals are too few for {len(share) + 1} phases of ≥ {least} "
                             "intervals")
        return cls(nodes, breaks, (*share, last))

    def refined(self, r: int) -> "PhasedMesh":
        """The same phases with every interval cut into ``r`` equal ones."""
        return PhasedMesh(self.N * r, self.breaks, tuple(c * r for c in self.counts))

    @property
    def phased(self) -> bool:
        return bool(self.breaks)

    def intervals(self, T):
        """(starts, widths): each interval's first time and width, rows 1 × N (CasADi), for the
        stroke time ``T`` (a number or expression, or a row of one per interval: interval k of the
        last phase then uses T_k, so a free T stays local to its interval)."""
        ca = require_casadi()
        N = self.N

        def per_interval(e):  # k → the value interval k uses (a row holds one per interval)
            return (lambda k: e[0, k]) if getattr(e, "shape", (1, 1)) == (1, N) else (lambda k: e)

        Tk = per_interval(T)
        bk = [per_interval(b) for b in (self.breaks if self.break_times is None else self.break_times)]
        starts, widths, k = [], [], 0
        for j, n in enumerate(self.counts):
            for i in range(n):
                a = 0.0 if j == 0 else bk[j - 1](k)
                w = (bk[j](k) - a) / n if j < len(self.breaks) else (Tk(k) - a) / n
                starts.append(a + i * w)
                widths.append(w)
                k += 1
        return ca.horzcat(*starts), ca.horzcat(*widths)

    def times(self, T: float) -> np.ndarray:
        """The 2N + 1 points' times (knots and midpoints, in time order) for the stroke time T."""
        ends = (0.0, *self.breaks, float(T))
        pts = [np.linspace(a, b, 2 * n + 1)[:-1] for a, b, n in zip(ends[:-1], ends[1:], self.counts)]
        return np.concatenate(pts + [[float(T)]])

    def knot(self, t: float) -> int:
        """The index of the knot at the break (or 0) ``t``."""
        if t == 0.0:
            return 0
        if t not in self.breaks:
            raise ValueError(f"t: {t!r} is not one of the mesh's breaks {self.breaks}")
        return int(sum(self.counts[: self.breaks.index(t) + 1]))

    def key(self) -> tuple:
        return (self.breaks, self.counts)
