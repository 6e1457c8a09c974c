"""Drawings and animations (skilib.plot) show the model's own geometry and stay light."""
import numpy as np
import pytest

import skilib as sk
from skilib import plot
from skilib.models.thesis.markers import Skeleton, skeleton


@pytest.fixture(scope="module")
def skel():
    p = sk.SkierParams()
    return skeleton(sk.simulate_run(p, strokes=2, push_force=sk.stand_in_push_force(p, p.phase_time)))


def test_drawn_lines_are_the_model_bodies(skel):
    """The 3-D drawing's lines end at the model's points: ski of length L, shank of L2 from
    the ankle, upper-body rod of L3 centred on the CM."""
    p = sk.SkierParams()
    ax = plot.draw_model(skel, 40)
    lines = {}
    for ln in ax.get_lines():
        x, y, z = ln.get_data_3d()
        if len(x) == 2:
            lines.setdefault(round(float(np.hypot(np.hypot(np.diff(x), np.diff(y)), np.diff(z))[0]), 9), ln)
    for length in (p.ski_length, p.lower_leg, p.upper_leg):
        assert round(length, 9) in lines, (length, sorted(lines))
    texts = " ".join(t.get_text() for t in ax.texts)
    for group in ("C1", "C2", "C3–C5", "C6–C8", "C9–C13", "C14", "C15–C17"):
        assert group in texts, group


def test_pose_sequence_and_a_model_agnostic_skeleton():
    """Any Skeleton is drawn: a two-point pendulum-like description, views 3d/top/side."""
    t = np.linspace(0, 1, 11)
    a = np.column_stack([t, 0 * t, 0 * t])
    b = a + np.column_stack([np.sin(t), 0 * t, np.cos(t)])
    s = Skeleton(t, {"ANKLE": a, "CM": b}, [("leg", "ANKLE", "CM")], stroke=np.ones(11, dtype=int))
    for view in ("3d", "top", "side"):
        ax = plot.pose_sequence(s, n=4, view=view)
        drawn = [ln for ln in ax.get_lines() if ln.get_color() == "0.4"]
        assert len(drawn) == 4
    x, y = drawn[-1].get_data()  # side view, last pose: the segment from a to b at t = 1
    np.testing.assert_allclose([x[0], y[0], x[1], y[1]], [a[-1, 0], a[-1, 2], b[-1, 0], b[-1, 2]])


def test_animation_is_an_offline_player_of_modest_size(skel):
    html = plot.animation_html(plot.animate(skel, max_frames=12, dpi=40))
    assert 'class="anim-controls"' in html and "<script" in html
    assert "http" not in html.replace("http://www.w3.org", "")  # no network: icons are characters
    assert "fa fa-" not in html
    assert html.count("data:image/png;base64") == 12
    assert len(html) < 2e6
