"""Choosing a technique (skilib.studies.technique_choice): the least whole physiological cost at a
speed, its row against closed forms and the stroke it comes from, the resting term that can move
no technique, the swing's cost that moves the stroke time off its bound, and the free skater's
two periodic strokes of one technique."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import skilib as sk
from skilib.physiology import PHYSIOLOGY_COLUMNS, swing_power
from skilib.studies.optimum import FREE_BOUNDS
from skilib.studies.technique_choice import SWITCHES, choose_technique, push_off_time, switch_off, trend, verdict

EPS = np.finfo(float).eps
#: the stroke time alone free, at 5 m/s on the flat (a few seconds)
ONE = {"stroke_time": (0.4, 2.0)}
#: a technique on a 5 % course with two periodic strokes (u0 ≈ 2.58 and ≈ 5.00 m/s)
TWO_STROKES = dict(skating_angle_deg=28.943, stroke_time=0.84409, steer_deg=14.966, offset_end=0.5928,
                   cm_dip=0.017335, pole_force_max=225.26, pole_contact_time=0.27052,
                   slope_deg=math.degrees(math.atan(0.05)))


def test_push_off_time_of_a_hand_made_stroke(measured):
    """The leg extends under load over the intervals where both the extension speed and the
    force are positive: a sine speed (positive on the first half) with a force that is positive
    only from τ = 0.25 T gives T/4 on a grid with those instants on it."""
    T = 0.8
    tau = np.linspace(0.0, T, 801)
    frame = pd.DataFrame(dict(tau=tau, leg_extension_speed=np.sin(2 * np.pi * tau / T),
                              leg_force=np.where(tau < 0.25 * T, -1.0, 700.0)))
    # the force's step sits between two samples: the interval across it has a positive mean
    measured.check("push-off time vs T/4 (+ the one interval across the force's step)",
                   abs(push_off_time(frame) - (0.25 * T + T / 800)), 8 * EPS, "s")


def test_the_row_is_its_periodic_stroke(measured):
    """The least whole cost for 5 m/s with the stroke time free (free skater, flat): the row's
    speed is the target, its cycle rate 1/(2T), its swing term 2 M (a + b f⁴) by hand, its total
    the sum of its terms and the optimizer's budget, its stroke time inside the bounds."""
    row = choose_technique("free", 5.0, bounds=ONE)
    p = sk.FreeSkaterParams(stroke_time=row["stroke_time"])
    assert row["feasible"] and row["switched_off"] == "none" and math.isnan(row["pole_share"])
    measured.check("progress speed vs the 5 m/s asked", abs(row["progress_speed"] - 5.0), 5e-8, "m/s",
                   argued="required_power's speed tolerance is 1e-8 relative: 5e-8 m/s at 5 m/s")
    measured.allclose("cycle rate vs 1/(2T)", row["cycle_rate"], 1 / (2 * row["stroke_time"]), rtol=4 * EPS, unit="Hz")
    measured.allclose("swing term vs 2 M (a + b (1/2T)⁴)", row["metabolic_swing"],
                      swing_power(row["stroke_time"], p.body_mass), rtol=4 * EPS, unit="W")
    measured.allclose("total vs the sum of its terms", row["metabolic_total"],
                      sum(row[c] for c in PHYSIOLOGY_COLUMNS[:4]), rtol=4 * EPS, unit="W")
    measured.allclose("total vs the optimizer's budget power", row["metabolic_total"], row["budget_power"],
                      rtol=4 * EPS, unit="W")
    measured.exceeds("stroke time's distance from the nearer bound (per range)",
                     min(row["stroke_time"] - 0.4, 2.0 - row["stroke_time"]) / 1.6, 0.01)
    assert 0.0 < row["push_off_time"] <= row["stroke_time"]


def test_a_technique_with_two_periodic_strokes(measured):
    """One technique, two periodic strokes: the free skater's stroke map on a 5 % course with
    poles has a slow and a fast fixed point (the speed is not set by the technique alone), each a
    fixed point to the search's tolerance; the search ends at the one nearer its start.  On the
    flat the slow one does not exist: from a slow guess the ski stops under the poles' load."""
    p = sk.FreeSkaterParams(**TWO_STROKES)
    slow, fast = sk.free_steady_state(p, u_guess=2.0), sk.free_steady_state(p, u_guess=6.0)
    for name, ss in (("slow", slow), ("fast", fast)):
        measured.check(f"|Φ(u0) − u0|, the {name} stroke", ss.residual, 1e-10, "m/s",
                       argued="the search stops once |Φ(u) − u| ≤ tol = 1e-10: the residual is the stopping test's")
    measured.exceeds("the two strokes' u0 apart", fast.u0 - slow.u0, 1.0, "m/s")
    measured.exceeds("the fast stroke's whole cost above the slow one's", fast.metabolic_total - slow.metabolic_total,
                     100.0, "W")
    # on the flat the slow stroke does not exist: from a slow guess the ski stops under the poles' load
    flat = sk.FreeSkaterParams(**{**TWO_STROKES, "slope_deg": 0.0})
    with pytest.raises(ValueError, match="^pole_force_max: the free skater's ski stopped"):
        sk.free_steady_state(flat, u_guess=2.0)
    measured.check("|Φ(u0) − u0|, the flat's fast stroke", sk.free_steady_state(flat, u_guess=6.0).residual, 1e-10, "m/s",
                   argued="the search stops once |Φ(u) − u| ≤ tol = 1e-10: the residual is the stopping test's")


@pytest.mark.slow
def test_the_edged_skaters_poled_optimum_is_found_again_from_its_touchdown(measured):
    """The edged skater in V2 at 5 m/s on 2 %, the poles' peak push chosen by collocation: its
    technique has two periodic strokes.  The study's row searches from the touch-down state the
    optimum's re-simulated stroke ended at and ends at the speed asked; from the default guess
    the search ends at the other, more than 1 m/s faster."""
    from dataclasses import replace

    from skilib.models.edge.technique import EDGE_BOUNDS, default_params

    base = replace(default_params(), pole_force_max=205.0, pole_contact_time=0.25)
    bounds = dict(EDGE_BOUNDS, pole_force_max=(10.0, 400.0))
    row = choose_technique("edge", 5.0, slope_percent=2.0, params=base, bounds=bounds, method="collocation")
    assert row["feasible"]
    measured.check("the row's periodic stroke's speed vs the 5 m/s asked", abs(row["progress_speed"] - 5.0), 5e-4,
                   "m/s", argued="a collocated optimum's re-simulation agrees to 1e-4 relative: 5e-4 m/s at 5 m/s")
    p = replace(base, slope_deg=math.degrees(math.atan(0.02)), **{n: row[n] for n in bounds})
    other = sk.edge_steady_state(p, multipliers=False, check=False)
    measured.check("|Φ(x0) − x0| of the stroke from the default guess", np.abs(other.residual), 1e-10, "",
                   argued="the search stops once max|Φ(x) − x| ≤ tol = 1e-10: the residual is the stopping test's")
    measured.exceeds("that stroke's speed above the row's", other.progress_speed - row["progress_speed"], 1.0, "m/s")


def test_a_margin_passed_between_the_mesh_points_is_solved_again_on_a_finer_mesh(monkeypatch):
    """A collocated optimum whose periodic stroke passes a margin beyond the collocation's
    tolerance (the edged skater's leg unloaded under the poles pulls between the mesh's points:
    −6.7e-4 body weights on 40 intervals at 4 m/s on 2 %) is solved again from its own technique on
    a mesh twice as fine, at most ``COLLOCATED_REFINEMENTS`` times, then refused by name
    (``NotAdmissible``).  The optimizer and the margins are stand-ins here: which meshes are asked,
    from where, and what is refused."""
    from types import SimpleNamespace

    import skilib.studies.technique_choice as tc

    asked = []

    def required_power(model, **kw):
        asked.append(dict(nodes=kw.get("nodes"), x0=kw.get("x0"), starts=kw["starts"]))
        n = kw.get("nodes") or 40
        return SimpleNamespace(method="collocation", solution=SimpleNamespace(nodes=n), x={"stroke_time": 0.5 + n / 1000},
                               params=kw["params"], options={})

    monkeypatch.setattr(tc, "required_power", required_power)
    monkeypatch.setattr(tc, "_periodic_stroke_at", lambda model, r: r)
    # O(h²): the margin on 80 intervals is −1.7e-4 (beyond), on 160 −4.2e-5 (within): two refinements, then a row
    monkeypatch.setattr(tc, "_margins", lambda model, ss, p: {"leg_force_margin": -6.7e-4 * (40 / ss.solution.nodes) ** 2})
    with pytest.raises(AttributeError):  # the stand-in stroke has no frame: the row is built after the refinements
        choose_technique("edge", 4.0, slope_percent=2.0, method="collocation")
    assert [a["nodes"] for a in asked] == [None, 80, 160]
    assert asked[1]["x0"] == {"stroke_time": 0.54} and asked[2]["x0"] == {"stroke_time": 0.58}
    assert [a["starts"] for a in asked] == [1, 0, 0]
    # a margin that does not fall with the mesh is refused after the last refinement, naming it
    monkeypatch.setattr(tc, "_margins", lambda model, ss, p: {"leg_force_margin": -6.7e-4, "reach_margin": 0.1})
    asked.clear()
    with pytest.raises(tc.NotAdmissible, match=r"tolerance 0\.0001 on 160 intervals: leg_force_margin -0\.00067$"):
        choose_technique("edge", 4.0, slope_percent=2.0, method="collocation")
    assert [a["nodes"] for a in asked] == [None, 80, 160]


@pytest.mark.slow  # ≈ 15 s of steady states for a row's words: `make check`
def test_an_optimum_not_confirmed_says_why_in_its_row(monkeypatch):
    """A least-cost technique the optimizer could not confirm (``feasible`` False: the speed
    not held, or a collocated start not confirmed by its re-simulation) keeps its numbers in the
    row, with the optimizer's ``reason`` beside them, and a confirmed one an empty reason: a study
    table never shows an unconfirmed point as if it were one.  The free skater at 5 m/s with the
    stroke time alone free; the optimizer's verdict is replaced by a refusal here."""
    from dataclasses import replace

    import skilib.studies.technique_choice as tc

    real = tc.required_power
    why = "no collocated start was solved and confirmed (IPOPT: Maximum_Iterations_Exceeded, re-simulation error 0.2)"
    ok = choose_technique("free", 5.0, bounds=ONE)
    monkeypatch.setattr(tc, "required_power", lambda model, **kw: replace(real(model, **kw), feasible=False, reason=why))
    refused = choose_technique("free", 5.0, bounds=ONE)
    assert ok["feasible"] and ok["reason"] == ""
    assert not refused["feasible"] and refused["reason"] == why
    assert refused["stroke_time"] == ok["stroke_time"] and refused["budget_power"] == ok["budget_power"]


@pytest.mark.slow
def test_the_resting_term_moves_no_technique(measured):
    """Resting metabolism is M × resting_rate whatever the technique: switched off, the least
    cost at 5 m/s (the free skater's five technique parameters) falls by exactly that and the
    technique stays (to SLSQP's tolerance: its iterates see the same gradients, only its stopping
    test on the cost's change may end one iteration apart)."""
    on = choose_technique("free", 5.0)
    off = choose_technique("free", 5.0, switched_off=("rest",))
    rest = sk.FreeSkaterParams().body_mass * sk.FreeSkaterParams().resting_rate
    assert off["metabolic_rest"] == 0.0 and off["switched_off"] == "rest"
    measured.allclose("least cost with rest − without vs M × resting_rate", on["budget_power"] - off["budget_power"], rest,
                      rtol=0.0, atol=1e-3, unit="W",
                      argued="SLSQP's ftol is 1e-8 relative on a cost near 680 W; the two searches may end a step "
                             "apart on a flat minimum, where the cost changes by the square of the step")
    for n, (lo, hi) in FREE_BOUNDS.items():
        measured.allclose(f"{n} with rest vs without (per range)", on[n] / (hi - lo), off[n] / (hi - lo),
                          atol=1e-3, argued="the optimum's position on a flat minimum is known to the square root "
                                            "of the cost's tolerance (√1e-8 × its curvature's scale)")


@pytest.mark.slow
def test_the_swing_cost_lengthens_the_stroke(measured):
    """The swing's f⁴ cost charges short strokes: switched off, the least cost at 5 m/s (free
    skater, five technique parameters) chooses a shorter stroke; with it the stroke time lies
    inside its bounds, and it is a minimum along the speed constraint: holding the stroke time
    5 % either side (the other four free) costs more."""
    whole = choose_technique("free", 5.0)
    no_swing = choose_technique("free", 5.0, switched_off=("swing",))
    measured.exceeds("stroke time with the swing's cost − without", whole["stroke_time"] - no_swing["stroke_time"],
                     0.05, "s")
    lo, hi = FREE_BOUNDS["stroke_time"]
    T = whole["stroke_time"]
    measured.exceeds("stroke time's distance from the nearer bound (per range)", min(T - lo, hi - T) / (hi - lo), 0.01)
    others = {n: b for n, b in FREE_BOUNDS.items() if n != "stroke_time"}
    for side in (0.95, 1.05):
        other = choose_technique("free", 5.0, bounds=others, params=sk.FreeSkaterParams(stroke_time=T * side))
        measured.exceeds(f"least cost at T × {side} − at T*", other["budget_power"] - whole["budget_power"], 0.0, "W")


def test_switching_a_term_off_zeros_its_coefficients():
    """Each switch sets exactly its params' fields to zero and leaves every other."""
    p = sk.FreeSkaterParams()
    for term, fields in SWITCHES.items():
        q = switch_off(p, (term,))
        for f in fields:
            assert getattr(q, f) == 0.0
        assert {k: v for k, v in vars(q).items() if k not in fields} == {k: v for k, v in vars(p).items() if k not in fields}
    assert switch_off(p, ()) is p
    assert switch_off(p, "swing") == switch_off(p, ("swing",))  # one term by its name


def test_trends_and_verdicts_of_hand_made_series():
    """A line's direction, a flat series within the tolerance, a zigzag, too few points; and the
    verdicts beside a published trend."""
    x = [3.5, 5.0, 6.5]
    assert trend(x, [0.43, 0.51, 0.60]) == "rises"
    assert trend(x, [36.0, 31.6, 28.0]) == "falls"
    assert trend(x, [0.50, 0.505, 0.502]) == "flat"
    assert trend(x, [0.5, 0.7, 0.5]) == "mixed"
    assert trend(x, [0.5, np.nan, np.nan]) == "cannot say"
    assert verdict("rises", "rises") == ("agrees", "the model's rises, as measured")
    assert verdict("flat", "rises")[0] == "disagrees"
    assert verdict("mixed", "rises")[0] == "cannot say"
    assert verdict("rises", "rises", missing="no poles")[0:2] == ("cannot say", "no poles")


def test_bad_arguments_are_refused_by_name():
    """An unknown switch, model or budget, a speed that is not positive, a slope out of range."""
    with pytest.raises(ValueError, match="^switched_off: 'legs'"):
        switch_off(sk.FreeSkaterParams(), ("legs",))
    with pytest.raises(ValueError, match="^model: "):
        choose_technique("thesis", 5.0)
    with pytest.raises(ValueError, match="^budget: "):
        choose_technique("free", 5.0, budget="gross")
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="^speed: "):
            choose_technique("free", bad)
    with pytest.raises(ValueError, match="^slope_percent: "):
        choose_technique("free", 5.0, slope_percent=150.0)
    with pytest.raises(ValueError, match="^published: "):
        verdict("rises", "up")


@pytest.mark.slow
def test_the_crouch_chosen_where_no_bound_binds_is_the_landing_offsets_optimum(measured):
    """At 3.5 m/s on 2 % the edged skater's least-cost technique with its landing offset chosen
    (by collocation) has neither the offset nor the leg's extension on a bound.  Asked again with
    the crouch chosen instead (``EDGE_CROUCH_BOUNDS``, by shooting, from that technique and the
    crouch its stroke found), the optimum is the same technique at the same cost: both describe
    the same periodic strokes (the leg's length at touch-down √(d0² + z_B²) is one-to-one with d0
    there), so the same bounds and margins leave the same optimum.  By collocation too (the crouch
    a law parameter of the program, the landing offset its period's variable), to the solver's
    tolerance."""
    from dataclasses import replace

    from skilib.models.edge import technique as et

    fixed = choose_technique("edge", 3.5, slope_percent=2.0, method="collocation")
    assert not any(n in fixed["at_bound"] for n in ("landing_offset", "leg_extension")), fixed["at_bound"]
    x0 = {k: fixed[k] for k in ("skating_angle_deg", "stroke_time", "steer_deg", "leg_extension")}
    x0["leg_start"] = fixed["leg_start"]
    base = replace(et.default_params(), landing_offset=fixed["landing_offset"])
    crouched = choose_technique("edge", 3.5, slope_percent=2.0, bounds=et.EDGE_CROUCH_BOUNDS, params=base, x0=x0,
                                starts=0)
    assert crouched["feasible"] and "reach_margin" in crouched["binding"]
    measured.allclose("least cost: crouch chosen (shooting) vs landing offset chosen (collocation)",
                      crouched["budget_power"], fixed["budget_power"], rtol=1e-5, unit="W",
                      argued="collocation against shooting agree to the re-simulation tolerance, 1e-5 relative "
                             "(measured 3.6e-6)")
    for name, (lo, hi) in et.EDGE_CROUCH_BOUNDS.items():
        measured.allclose(f"{name}: crouch chosen vs landing offset chosen (per range)", crouched[name] / (hi - lo),
                          fixed[name] / (hi - lo), atol=1e-3,
                          argued="a flat minimum's position is known to about the square root of the cost's "
                                 "tolerance (measured ≤ 4e-5 of a range)")
    measured.allclose("the landing offset the crouch's stroke finds vs the one chosen", crouched["landing_offset"],
                      fixed["landing_offset"], atol=1e-3 * 0.2, unit="m",
                      argued="as the parameters: 1e-3 of the landing offset's range (measured 5.5e-5 m)")
    # the crouch chosen by collocation too: the same program up to the roles of ℓ0 and d0 (a law
    # parameter and the period's variable, swapped), both solved to IPOPT's tol 1e-10
    colloc = choose_technique("edge", 3.5, slope_percent=2.0, bounds=et.EDGE_CROUCH_BOUNDS, params=base, x0=x0,
                              starts=0, method="collocation")
    assert colloc["feasible"] and "reach_margin" in colloc["binding"]
    measured.allclose("least cost: crouch chosen vs landing offset chosen, both by collocation",
                      colloc["budget_power"], fixed["budget_power"], rtol=1e-9, unit="W",
                      argued="one program's optimum in two parameterisations, each to IPOPT's tol 1e-10 (scaled "
                             "KKT): the costs agree to that tolerance (measured 7e-16)")
    for name, (lo, hi) in et.EDGE_CROUCH_BOUNDS.items():
        measured.allclose(f"{name}: crouch vs landing offset chosen, both by collocation (per range)",
                          colloc[name] / (hi - lo), fixed[name] / (hi - lo), atol=1e-5,
                          argued="a flat minimum's position to about the square root of the solver's tolerance "
                                 "(measured ≤ 1.2e-7 of a range)")
