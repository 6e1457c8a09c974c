"""Plausibility warnings (``skilib.studies.plausible``): a number outside what skiers have been
measured to do is flagged with its source, a number inside is not, and ``feasible`` is left as
the model's constraints made it."""
from __future__ import annotations

import json

import pytest

import skilib as sk
from skilib.cli import main
from skilib.studies.plausible import MEASURED, plausibility


def test_twelve_metres_a_second_on_the_flat_is_flagged_by_its_power_per_kg():
    """The free skater's least power for 12 m/s on the flat was 767 W at 1.45 body weights: for
    75 kg, 10.2 W/kg, above the 8.35 W/kg peak measured over a skating race (Gløersen et al.
    2018).  The warning names the number, the range and the source."""
    p = sk.FreeSkaterParams()
    found = plausibility(p, mean_power=767.0, peak_leg_force_bw=1.45)
    assert [w.key for w in found] == ["net_power_per_kg"]
    (w,) = found
    assert w.value == pytest.approx(767.0 / p.body_mass, rel=1e-15)
    assert "Gløersen" in str(w) and "8.35" in str(w) and "10.2 W/kg" in str(w)


@pytest.mark.parametrize("over, power, force, keys", [
    ({}, 150.0, 1.2, []),                                               # within every range
    ({"stroke_time": 0.35}, 150.0, 1.2, ["cycle_rate_no_poles"]),       # 1.43 Hz > 0.9/0.7
    ({"stroke_time": 0.35, "pole_force_max": 150.0}, 150.0, 1.2, ["cycle_rate"]),  # 1.43 Hz > 0.9
    ({"stroke_time": 1.1, "pole_force_max": 150.0}, 150.0, 1.2, ["cycle_rate"]),   # 0.45 Hz < 0.5
    ({"skating_angle_deg": 50.0}, 150.0, 1.2, ["ski_angle_deg"]),       # 25° each ski on the flat
    ({"skating_angle_deg": 50.0, "slope_deg": 5.0}, 150.0, 1.2, []),    # uphill: wider V measured
    ({}, 150.0, 1.6, ["peak_leg_force_bw"]),                            # above V1's 1.5
])
def test_each_range_flags_only_its_own_number(over, power, force, keys):
    p = sk.FreeSkaterParams(**over)
    assert [w.key for w in plausibility(p, mean_power=power, peak_leg_force_bw=force)] == keys


def test_every_range_names_a_source_and_its_unit():
    for key, r in MEASURED.items():
        assert r.source and r.unit and (r.low is not None or r.high is not None), key
        assert r.low is None or r.high is None or r.low < r.high, key


def test_the_command_prints_the_warnings_beside_the_answer(capsys):
    """`skilib steady --model free --param stroke_time=0.4`: its peak leg force (the library's,
    1.83 body weights) is above every measured one, and the answer says so; the default stroke
    is within every range."""
    ss = sk.free_steady_state(sk.FreeSkaterParams(stroke_time=0.4))
    assert main(["steady", "--model", "free", "--param", "stroke_time=0.4", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (w,) = doc["warnings"]
    assert w["key"] == "peak_leg_force_bw" and w["value"] == ss.peak_leg_force_bw > 1.5
    assert "Studia Sportiva" in w["message"]
    assert main(["steady", "--model", "free", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["warnings"] == []
    assert main(["steady", "--model", "free", "--param", "stroke_time=0.4"]) == 0
    assert "warning 1: peak leg force 1.83 body weights is outside the measured" in capsys.readouterr().out
