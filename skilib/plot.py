"""Pictures of a model: labelled 3-D drawings, pose sequences and animations (matplotlib, any backend).

Every function draws a :class:`skilib.models.thesis.markers.Skeleton` — named points, segments and
force arrows per time — so any model that can describe itself that way is drawn by the same
code; ``skeleton(result)`` gives the thesis's skier (Bruzzo 2012, §4.2; book: The skier
model).  The thesis's pose figures (figs. 28 and 39: the skier over one stroke and over a
run) are redrawn from the simulation by :func:`pose_sequence`.

Animations (:func:`animate`) are matplotlib ``FuncAnimation`` objects; :func:`animation_html`
turns one into self-contained HTML with the frames as embedded PNGs and a JavaScript
player (``to_jshtml``): it plays offline, without a video codec.
"""
from __future__ import annotations

import re

import matplotlib.pyplot as plt  # the caller's backend (Agg when headless, inline in notebooks)
import numpy as np
from matplotlib import animation

from .engine.validation import check_bool, check_choice, check_number

__all__ = ["draw_model", "pose_sequence", "animate", "animation_html", "SEGMENT_STYLE"]

#: colour and width of each segment label (others: grey)
SEGMENT_STYLE = {"ski": ("#1f4e79", 4.0), "shank": ("#c0504d", 5.0), "upper body": ("#9bbb59", 3.0)}
_POINT_STYLE = {"ANKLE": "o", "KNEE": "s", "CM": "*", "HIP": "*"}


def _check_skeleton(skel, needs=()) -> int:
    """The number of samples of ``skel``, or a ValueError if it is not a Skeleton (times, points,
    segments: ``skilib.models.thesis.markers.skeleton(result)`` makes one) or lacks a point
    named in ``needs``."""
    if not all(hasattr(skel, a) for a in ("t", "points", "segments", "position")):
        raise ValueError(f"skel: expected a Skeleton (skilib.models.thesis.markers.skeleton(result)), "
                         f"got {type(skel).__name__}")
    n = len(skel.t)
    if n < 1:
        raise ValueError("skel: has no samples")
    missing = [p for p in needs if p not in skel.points]
    if missing:
        raise ValueError(f"skel: has no point {missing[0]!r} (its points: {', '.join(skel.points)})")
    return n


def _check_row(name: str, i, n: int) -> int:
    return check_number(name, i, integer=True, low=0, high=n - 1)


def _style(label):
    return SEGMENT_STYLE.get(label, ("0.4", 2.0))


def _equal_3d(ax, lo, hi):
    """Equal scales on X, Y, Z (Z from the snow up)."""
    c, r = 0.5 * (lo + hi), 0.5 * max(hi[:2] - lo[:2]) + 0.05
    top = max(hi[2] + 0.1, 0.5)
    ax.set_xlim(c[0] - r, c[0] + r)
    ax.set_ylim(c[1] - r, c[1] + r)
    ax.set_zlim(0.0, top)
    ax.set_box_aspect((1, 1, top / (2 * r)))


def _segments(ax, skel, i, alpha=1.0, three_d=True, plane=(0, 1)):
    arts = []
    for label, a, b in skel.segments:
        pa, pb = skel.position(a)[i], skel.position(b)[i]
        col, lw = _style(label)
        xyz = np.array([pa, pb]).T
        arts += ax.plot(*(xyz if three_d else xyz[list(plane)]), color=col, lw=lw, alpha=alpha,
                        solid_capstyle="round")
    return arts


def draw_model(skel, i: int = 0, ax=None, labels: bool = True, force_scale: float = 5e-4):
    """A labelled 3-D view of the model at sample ``i``: bodies, joints and, with ``labels``,
    the constraint groups (``skel.labels``), the push-off arrow at the CM (scale
    ``force_scale`` m per N) and the global axes.  Returns the axes."""
    i = _check_row("i", i, _check_skeleton(skel))
    labels = check_bool("labels", labels)
    force_scale = check_number("force_scale", force_scale, nonnegative=True, unit="m/N")
    if ax is None:
        fig = plt.figure(figsize=(7.5, 6.5))
        ax = fig.add_subplot(projection="3d")
    _segments(ax, skel, i)
    for name, pos in skel.points.items():
        p = pos[i]
        ax.scatter(*p, marker=_POINT_STYLE.get(name, "."), s=60 if name in _POINT_STYLE else 15, color="k", zorder=5)
    if "push" in skel.arrows:
        o, f = skel.arrows["push"]
        ax.quiver(*o[i], *(f[i] * force_scale), color="#e46c0a", lw=2, arrow_length_ratio=0.15)
    if labels:
        where = {}
        for label, a, b in skel.segments:
            where[label] = 0.5 * (skel.position(a)[i] + skel.position(b)[i])
        where.update({k: v[i] for k, v in skel.points.items()})
        offs = {"ski": (0.35, -0.25, 0.0), "ANKLE": (0.15, 0.3, -0.05), "KNEE": (0.3, 0.2, 0.05),
                "CM": (0.3, 0.3, 0.3), "shank": (-0.7, -0.3, -0.1), "upper body": (-0.7, -0.3, 0.45)}
        for k, text in skel.labels.items():
            if k in where:
                p = where[k]
                d = np.array(offs.get(k, (0.2, 0.2, 0.1)))
                ax.plot(*np.array([p, p + d]).T, color="0.5", lw=0.7)
                ax.text(*(p + d), text, fontsize=7.5)
        if "push" in skel.arrows:
            o, f = skel.arrows["push"]
            ax.text(*(o[i] + f[i] * force_scale), " push-off F(τ) along the leg", fontsize=7.5, color="#e46c0a")
    lo, hi = skel.bounds()
    sel = [v[i] for v in (*skel.points.values(), *skel.extra.values())]
    _equal_3d(ax, np.min(sel, axis=0) - 0.2, np.max(sel, axis=0) + 0.2)
    ax.set_xlabel("X [m]")
    ax.set_ylabel("Y [m]")
    ax.set_zlabel("Z [m]")
    return ax


def pose_sequence(skel, n: int = 8, ax=None, view: str = "3d", rows=None):
    """The model at ``n`` instants spread over the skeleton's times (or at ``rows``), the later
    ones darker, with the CM path and the ski tracks: the thesis's figs. 28 and 39.

    view : '3d', 'top' (X–Y) or 'side' (X–Z).  Returns the axes.
    """
    n_samples = _check_skeleton(skel, needs=("CM",))
    view = check_choice("view", view, ("3d", "top", "side"))
    if rows is None:
        n = check_number("n", n, integer=True, positive=True)
        rows = np.linspace(0, n_samples - 1, n).round().astype(int)
    else:
        rows = np.asarray([_check_row(f"rows[{k}]", r, n_samples) for k, r in enumerate(np.atleast_1d(rows))], dtype=int)
    three_d = view == "3d"
    plane = {"top": (0, 1), "side": (0, 2), "3d": (0, 1)}[view]
    if ax is None:
        fig = plt.figure(figsize=(8, 5))
        ax = fig.add_subplot(projection="3d") if three_d else fig.add_subplot()
    cm = skel.points["CM"]
    ax.plot(*(cm.T if three_d else cm.T[list(plane)]), color="k", lw=0.8, ls="--", label="CM path")
    if "ANKLE" in skel.points:
        for k in np.unique(skel.stroke if skel.stroke is not None else [0]):
            sel = skel.stroke == k if skel.stroke is not None else slice(None)
            a = skel.points["ANKLE"][sel]
            ax.plot(*(a.T if three_d else a.T[list(plane)]), color="#1f4e79", lw=0.8, alpha=0.6)
    for j, i in enumerate(rows):
        _segments(ax, skel, i, alpha=0.25 + 0.75 * (j + 1) / len(rows), three_d=three_d, plane=plane)
    if three_d:
        lo, hi = skel.bounds()
        _equal_3d(ax, lo, hi)
        ax.set_xlabel("X [m]")
        ax.set_ylabel("Y [m]")
        ax.set_zlabel("Z [m]")
    else:
        ax.set_aspect("equal")
        ax.set_xlabel("X [m]")
        ax.set_ylabel("Y [m]" if view == "top" else "Z [m]")
    ax.legend(loc="upper left", fontsize=8)
    return ax


def animate(skel, *, max_frames: int = 60, interval_ms: float | None = None, dpi: int = 60,
            force_scale: float = 5e-4, figsize=(9.0, 4.0)):
    """An animation of the skeleton: a 3-D view and a top view with the ski tracks, the CM
    path so far and the push-off arrow at the CM (``force_scale`` m per N).

    At most ``max_frames`` frames, evenly spread over the times (subsampled to keep the
    embedded HTML light); ``interval_ms`` defaults to real time.  Returns a FuncAnimation
    (its figure closed, so notebooks show only the player).
    """
    n = _check_skeleton(skel, needs=("CM",))
    max_frames = check_number("max_frames", max_frames, integer=True, positive=True)
    dpi = check_number("dpi", dpi, integer=True, positive=True)
    force_scale = check_number("force_scale", force_scale, nonnegative=True, unit="m/N")
    if interval_ms is not None:
        interval_ms = check_number("interval_ms", interval_ms, positive=True, unit="ms")
    rows = np.unique(np.linspace(0, n - 1, min(max_frames, n)).round().astype(int))
    if interval_ms is None:
        interval_ms = 1000.0 * (skel.t[-1] - skel.t[0]) / max(1, len(rows) - 1)
    fig = plt.figure(figsize=figsize, dpi=dpi)
    ax3 = fig.add_subplot(1, 2, 1, projection="3d")
    ax2 = fig.add_subplot(1, 2, 2)
    lo, hi = skel.bounds()
    cm, ankle = skel.points["CM"], skel.points.get("ANKLE", skel.points["CM"])

    def frame(j):
        i = rows[j]
        ax3.cla()
        ax2.cla()
        _segments(ax3, skel, i)
        ax3.plot(*cm[: i + 1].T, color="k", lw=0.8, ls="--")
        _equal_3d(ax3, np.array([cm[i, 0] - 1.2, cm[i, 1] - 1.2, 0]), np.array([cm[i, 0] + 1.2, cm[i, 1] + 1.2, 1.2]))
        ax3.set_xlabel("X [m]")
        ax3.set_ylabel("Y [m]")
        ax3.set_zlabel("Z [m]")
        ax2.plot(cm[:, 0], cm[:, 1], color="0.85", lw=0.8)
        ax2.plot(cm[: i + 1, 0], cm[: i + 1, 1], color="k", lw=1.0, ls="--", label="CM path")
        for k in np.unique(skel.stroke[: i + 1]) if skel.stroke is not None else [0]:
            sel = np.flatnonzero(skel.stroke[: i + 1] == k) if skel.stroke is not None else slice(0, i + 1)
            ax2.plot(ankle[sel, 0], ankle[sel, 1], color="#1f4e79", lw=1.5, alpha=0.7)
        _segments(ax2, skel, i, three_d=False)
        if "push" in skel.arrows:
            o, f = skel.arrows["push"]
            v = f[i] * force_scale
            ax3.quiver(*o[i], *v, color="#e46c0a", lw=2, arrow_length_ratio=0.15)
            ax2.annotate("", o[i, :2] + v[:2], o[i, :2], arrowprops=dict(arrowstyle="->", color="#e46c0a", lw=2))
        ax2.set_xlim(lo[0] - 0.5, hi[0] + 0.5)
        ax2.set_ylim(lo[1] - 0.5, hi[1] + 0.5)
        ax2.set_aspect("equal")
        ax2.set_xlabel("X [m]")
        ax2.set_ylabel("Y [m]")
        ax2.set_title(f"t = {skel.t[i]:.2f} s", fontsize=9)
        return []

    anim = animation.FuncAnimation(fig, frame, frames=len(rows), interval=interval_ms, blit=False)
    plt.close(fig)
    return anim


def animation_html(anim, default_mode: str = "once") -> str:
    """Self-contained HTML of an animation: PNG frames and matplotlib's JavaScript player
    (``to_jshtml``), no network and no video codec.  ``default_mode``: 'once', 'loop' or 'reflect'."""
    if not isinstance(anim, animation.Animation):
        raise ValueError(f"anim: expected a matplotlib animation (skilib.plot.animate), got {type(anim).__name__}")
    default_mode = check_choice("default_mode", default_mode, ("once", "loop", "reflect"))
    html = anim.to_jshtml(default_mode=default_mode)
    # matplotlib's player links Font Awesome from a CDN for its button icons: drop the link
    # and write the icons as plain characters, so that nothing comes from the network
    html = re.sub(r"<link[^>]*font-awesome[^>]*>", "", html, flags=re.S)
    for cls, ch in _ICONS.items():
        html = html.replace(f'<i class="{cls}"></i>', ch)
    return html


_ICONS = {"fa fa-minus": "&minus;", "fa fa-plus": "+", "fa fa-fast-backward": "&#x23EE;",
          "fa fa-step-backward": "&#x23F4;&#x7C;", "fa fa-play fa-flip-horizontal": "&#x25C0;",
          "fa fa-pause": "&#x23F8;", "fa fa-play": "&#x25B6;", "fa fa-step-forward": "&#x7C;&#x23F5;",
          "fa fa-fast-forward": "&#x23ED;"}
