#!/usr/bin/env python3
"""Write the SYNTHETIC V2-skating leg-force data set of the skilib compendium.

Bruzzo (2012, §5.3) drove the skier model with leg forces recorded at 1 kHz by
force plates in the ski bindings (Vuokatti, December 2011) and took the
ski-snow friction from the same recording (table 8). That recording is not
public. This script makes a stand-in: a 20 s, 1 kHz, two-leg trial that
*looks like* such a recording. Every number in it comes from the model below
and the random seed -- none of it was measured.

Model (per leg, legs alternating, one push per leg per cycle of ~1 s):
  * contact phase of ~0.66 s: a smooth (C2) curve through four extrema --
    loading peak at ski plant, dip while gliding, main push-off peak, release
    to zero -- joined by quintic "smootherstep" segments, so every extremum
    has exactly the drawn height; plus a short damped ski vibration after the
    plant and band-limited glide noise;
  * swing phase: no load;
  * sensor: per-channel baseline offset with a slow linear drift, white
    amplifier noise and a little 50 Hz mains hum.
Friction channel (along the ski): a small friction coefficient times the
total leg load, a damped transient at every ski plant, a brief reversal
around each push-off peak, band-limited noise and a small offset; its parameters were chosen so that its statistics
resemble table 8 of Bruzzo (2012) (mean ~5 N, excursions of a few tens of N).
Nothing here is shaped to make a simulation result match the thesis.

Usage:  python data/generate_synthetic_force.py [--out DIR] [--seed N]
or, from Python, ``generate(out_dir, seed=...)``. The default output is this
script's own folder; with the default seed the committed files are
reproduced byte for byte (fixed '%.4f' CSV format, sorted JSON).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
from pathlib import Path

import numpy as np

DEFAULT_SEED = 20111201  # the month of the thesis's measurements; any fixed value would do
CSV_NAME = "synthetic_force_v2.csv"
META_NAME = "synthetic_force_v2.json"
FLOAT_FORMAT = "%.4f"
COLUMNS = ("t_s", "force_left_N", "force_right_N", "friction_N")

# Every model parameter, recorded verbatim in the metadata file.
PARAMS = {
    "duration_s": 20.0,
    "sampling_rate_hz": 1000.0,
    "body_mass_kg": 75.0,
    "g_m_s2": 9.81,
    # timing (per leg): time between successive plants of the same leg
    "cycle_period_mean_s": 1.0,
    "cycle_period_sd_s": 0.03,
    "contact_duration_mean_s": 0.66,
    "contact_duration_sd_s": 0.025,
    "right_leg_lag_sd_s": 0.015,        # right plant = left plant + half cycle + N(0, sd)
    "first_left_plant_range_s": [-0.9, -0.6],
    # push shape, heights in body weights (BW), positions as fractions of contact
    "loading_peak_bw_range": [1.12, 1.22],
    "dip_bw_range": [0.78, 0.92],
    "push_peak_bw_range": [1.22, 1.36],
    "loading_peak_at_mean": 0.13,
    "loading_peak_at_sd": 0.015,
    "dip_at_mean": 0.38,
    "dip_at_sd": 0.03,
    "push_peak_at_mean": 0.74,
    "push_peak_at_sd": 0.02,
    # ski vibration after plant: A e^{-tau/decay} sin(2 pi f tau)
    "plant_vibration_amp_N": 15.0,
    "plant_vibration_freq_hz": 22.0,
    "plant_vibration_decay_s": 0.035,
    # glide noise during contact: AR(1), stationary sd and correlation time
    "glide_noise_sd_N": 5.0,
    "glide_noise_tau_s": 0.005,
    # sensor
    "offset_range_N": [-5.0, 5.0],
    "drift_range_N_per_s": [-0.15, 0.15],
    "white_noise_sd_N": 2.0,
    "mains_freq_hz": 50.0,
    "mains_amp_N": 0.6,
    # friction channel
    "friction_coefficient": 0.008,
    "friction_plant_transient_mean_N": 16.0,
    "friction_plant_transient_sd_N": 4.0,
    "friction_plant_transient_freq_hz": 7.0,
    "friction_plant_transient_decay_s": 0.06,
    # brief reversal of the along-ski force around the push-off peak (Gaussian dip)
    "friction_pushoff_dip_mean_N": 14.0,
    "friction_pushoff_dip_sd_N": 3.0,
    "friction_pushoff_dip_width_s": 0.03,
    "friction_noise_sd_N": 3.0,
    "friction_noise_tau_s": 0.01,
    "friction_offset_range_N": [-0.5, 0.5],
}


def _smootherstep(x: np.ndarray) -> np.ndarray:
    """Quintic 0->1 ramp with zero first and second derivative at both ends."""
    x = np.clip(x, 0.0, 1.0)
    return x * x * x * (x * (6.0 * x - 15.0) + 10.0)


def push_shape(tau: np.ndarray, push: dict) -> np.ndarray:
    """Noise-free leg force of one push in body weights; 0 outside the contact."""
    s = np.asarray(tau, dtype=float) / push["duration_s"]
    knots_s = [0.0, push["loading_peak_at"], push["dip_at"], push["push_peak_at"], 1.0]
    knots_f = [0.0, push["loading_peak_bw"], push["dip_bw"], push["push_peak_bw"], 0.0]
    out = np.zeros_like(s)
    for (s0, s1), (f0, f1) in zip(zip(knots_s[:-1], knots_s[1:]), zip(knots_f[:-1], knots_f[1:])):
        seg = (s >= s0) & (s < s1)
        out[seg] = f0 + (f1 - f0) * _smootherstep((s[seg] - s0) / (s1 - s0))
    return out


def _ar1(rng: np.random.Generator, n: int, sd: float, tau_s: float, dt: float) -> np.ndarray:
    """Stationary AR(1) (discretised Ornstein-Uhlenbeck) noise with standard deviation sd."""
    phi = math.exp(-dt / tau_s)
    innov = rng.standard_normal(n) * sd * math.sqrt(1.0 - phi * phi)
    out = np.empty(n)
    x = rng.standard_normal() * sd
    for i in range(n):
        x = phi * x + innov[i]
        out[i] = x
    return out


def _draw_pushes(rng: np.random.Generator, p: dict) -> list[dict]:
    """Plant times, durations and shape parameters of every push touching the record."""
    pushes = []
    lo, hi = p["first_left_plant_range_s"]
    t_left = rng.uniform(lo, hi)
    while t_left < p["duration_s"]:
        period = rng.normal(p["cycle_period_mean_s"], p["cycle_period_sd_s"])
        t_right = t_left + 0.5 * period + rng.normal(0.0, p["right_leg_lag_sd_s"])
        for leg, t_plant in (("left", t_left), ("right", t_right)):
            push = {
                "leg": leg,
                "t_plant_s": t_plant,
                "duration_s": rng.normal(p["contact_duration_mean_s"], p["contact_duration_sd_s"]),
                "loading_peak_bw": rng.uniform(*p["loading_peak_bw_range"]),
                "dip_bw": rng.uniform(*p["dip_bw_range"]),
                "push_peak_bw": rng.uniform(*p["push_peak_bw_range"]),
                "loading_peak_at": rng.normal(p["loading_peak_at_mean"], p["loading_peak_at_sd"]),
                "dip_at": rng.normal(p["dip_at_mean"], p["dip_at_sd"]),
                "push_peak_at": rng.normal(p["push_peak_at_mean"], p["push_peak_at_sd"]),
                "friction_transient_N": rng.normal(p["friction_plant_transient_mean_N"],
                                                   p["friction_plant_transient_sd_N"]),
                "friction_dip_N": rng.normal(p["friction_pushoff_dip_mean_N"],
                                             p["friction_pushoff_dip_sd_N"]),
            }
            if push["t_plant_s"] < p["duration_s"] and push["t_plant_s"] + push["duration_s"] > 0.0:
                pushes.append(push)
        t_left += period
    return pushes


def simulate(seed: int = DEFAULT_SEED, params: dict | None = None) -> tuple[dict, list[dict]]:
    """Return the channels (name -> array, SI units) and the list of drawn pushes."""
    p = dict(PARAMS if params is None else params)
    rng = np.random.default_rng(seed)
    fs = p["sampling_rate_hz"]
    dt = 1.0 / fs
    n = int(round(p["duration_s"] * fs))
    t = np.arange(n) * dt
    bw = p["body_mass_kg"] * p["g_m_s2"]

    pushes = _draw_pushes(rng, p)
    true_force = {"left": np.zeros(n), "right": np.zeros(n)}
    contact = {"left": np.zeros(n, bool), "right": np.zeros(n, bool)}
    friction_transient = np.zeros(n)
    for push in pushes:
        tau = t - push["t_plant_s"]
        on = (tau >= 0.0) & (tau < push["duration_s"])
        vib = (p["plant_vibration_amp_N"] * np.exp(-tau[on] / p["plant_vibration_decay_s"])
               * np.sin(2.0 * math.pi * p["plant_vibration_freq_hz"] * tau[on]))
        true_force[push["leg"]][on] += bw * push_shape(tau[on], push) + vib
        contact[push["leg"]] |= on
        after = tau >= 0.0
        friction_transient[after] += (
            push["friction_transient_N"] * np.exp(-tau[after] / p["friction_plant_transient_decay_s"])
            * np.cos(2.0 * math.pi * p["friction_plant_transient_freq_hz"] * tau[after]))
        tau_peak = tau - push["push_peak_at"] * push["duration_s"]
        friction_transient -= push["friction_dip_N"] * np.exp(
            -0.5 * (tau_peak / p["friction_pushoff_dip_width_s"]) ** 2)

    channels = {"t": t}
    for leg in ("left", "right"):
        offset = rng.uniform(*p["offset_range_N"])
        drift = rng.uniform(*p["drift_range_N_per_s"])
        mains_phase = rng.uniform(0.0, 2.0 * math.pi)
        glide = _ar1(rng, n, p["glide_noise_sd_N"], p["glide_noise_tau_s"], dt) * contact[leg]
        white = rng.standard_normal(n) * p["white_noise_sd_N"]
        mains = p["mains_amp_N"] * np.sin(2.0 * math.pi * p["mains_freq_hz"] * t + mains_phase)
        channels[f"force_{leg}"] = true_force[leg] + glide + offset + drift * t + white + mains

    mu_load = p["friction_coefficient"] * (true_force["left"] + true_force["right"])
    fr_noise = _ar1(rng, n, p["friction_noise_sd_N"], p["friction_noise_tau_s"], dt)
    fr_offset = rng.uniform(*p["friction_offset_range_N"])
    channels["friction"] = mu_load + friction_transient + fr_noise + fr_offset
    return channels, pushes


def _csv_bytes(channels: dict) -> bytes:
    data = np.column_stack([channels["t"], channels["force_left"], channels["force_right"],
                            channels["friction"]])
    lines = [",".join(COLUMNS)]
    fmt = ",".join([FLOAT_FORMAT] * data.shape[1])
    lines.extend(fmt % tuple(row) for row in data)
    return ("\n".join(lines) + "\n").encode("ascii")


def generate(out_dir: str | Path | None = None, seed: int = DEFAULT_SEED) -> tuple[Path, Path]:
    """Write ``synthetic_force_v2.csv`` and its metadata JSON into ``out_dir``.

    Returns the two paths. Deterministic: the same seed gives the same bytes.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: must be a non-negative integer, got {seed!r}")
    out = Path(__file__).resolve().parent if out_dir is None else Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    channels, pushes = simulate(int(seed))
    csv_bytes = _csv_bytes(channels)
    csv_path = out / CSV_NAME
    csv_path.write_bytes(csv_bytes)

    bw = PARAMS["body_mass_kg"] * PARAMS["g_m_s2"]
    truth = [{
        "leg": q["leg"],
        "t_plant_s": round(q["t_plant_s"], 6),
        "contact_duration_s": round(q["duration_s"], 6),
        "loading_peak_N": round(q["loading_peak_bw"] * bw, 4),
        "push_peak_N": round(q["push_peak_bw"] * bw, 4),
    } for q in pushes]
    meta = {
        "provenance": "synthetic",
        "title": "SYNTHETIC V2 ski-skating leg forces and ski-snow friction (not measured data)",
        "description": (
            "Synthetic stand-in for the non-public force-plate recording used by Bruzzo (2012), "
            "section 5.3. Generated by a model with a fixed random seed; no value was measured."),
        "generator": "data/generate_synthetic_force.py",
        "seed": int(seed),
        "parameters": PARAMS,
        "file": CSV_NAME,
        "sha256": hashlib.sha256(csv_bytes).hexdigest(),
        "float_format": FLOAT_FORMAT,
        "columns": list(COLUMNS),
        "units": {"t": "s", "force_left": "N", "force_right": "N", "friction": "N"},
        "column_descriptions": {
            "t": "time from the start of the trial",
            "force_left": "resultant force of the left leg on the left ski binding (synthetic)",
            "force_right": "resultant force of the right leg on the right ski binding (synthetic)",
            "friction": "along-ski ski-snow friction force, positive opposing motion (synthetic)",
        },
        "sampling_rate_hz": PARAMS["sampling_rate_hz"],
        "n_samples": int(channels["t"].size),
        "body_mass_kg": PARAMS["body_mass_kg"],
        "body_weight_N": round(bw, 6),
        "ground_truth_pushes": truth,
    }
    meta_path = out / META_NAME
    meta_path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="ascii")
    return csv_path, meta_path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: the folder of this script)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help=f"random seed (default {DEFAULT_SEED}, the committed data set)")
    args = parser.parse_args(argv)
    csv_path, meta_path = generate(args.out, seed=args.seed)
    print(f"wrote {csv_path} and {meta_path} (SYNTHETIC data, seed {args.seed})")


if __name__ == "__main__":
    main()
