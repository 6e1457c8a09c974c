"""The skier against a second, independent derivation: sympy.physics.mechanics.

``benchmarks/kane_peer.py`` writes the skier of one phase as a user of KanesMethod would,
reduced to its single coordinate s (the skier-model chapter's kinematics, the same push-off series).  Kane's
method and skilib's 18-coordinate eq. 101 with 17 multipliers must give the same s(t) —
here on a phase whose ski keeps sliding forwards (the peer knows no sticking) and on a
phase with air drag switched off and a tilted start.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import skilib as sk
from skilib.data.push import default_push_force
from skilib.models.thesis import ski_heading
from skilib.models.thesis.cases import TABLE7

#: the engine against sympy's KanesMethod, an independent derivation: the margin rule of tests/conftest.py ("Margins")
pytestmark = pytest.mark.cross_path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
kane_peer = pytest.importorskip("kane_peer")


@pytest.mark.parametrize("case", [
    dict(params={}, v0=3.0),
    dict(params=dict(TABLE7[0].kwargs(), friction=2.0), v0=2.5),
    dict(params=dict(leg_angle0_deg=10.0, c_rot_deg=20.0, mass=62.0, gravity=False), v0=4.0),
])
def test_kanes_method_gives_skilibs_s_of_t(case, measured):
    """The skier's s(τ) on three sliding phases (the default one, table 7's T = 0.5 s phase
    with 2 N friction, a 62 kg skier without gravity from a tilted leg) against
    `sympy.physics.mechanics.KanesMethod` on one coordinate."""
    p = sk.SkierParams(**case["params"])
    res = sk.simulate_phase(p, v0=case["v0"], n_out=81)
    assert len(res.events) == 0 and res.frame["s_dot"].min() > 0  # sliding forwards throughout
    h, _ = ski_heading(p, 0)
    rhs, _, _ = kane_peer.derive(p, h, default_push_force(p.phase_time).fit)
    s, _ = kane_peer.integrate(rhs, case["v0"], res.frame["tau"].to_numpy())
    measured.check("s(τ): skilib vs KanesMethod", np.abs(s - res.frame["s"].to_numpy()).max(), 1e-8, "m")
    a, b = res.frame["s"].iloc[-1], s[-1]
    measured.check("final s: skilib vs KanesMethod", abs(a - b) / max(abs(a), abs(b)), 1e-9, "rel.")  # as math.isclose
