"""Push-offs in a leg-force recording: detection, the representative push and its fitted force.

Bruzzo (2012, §5.3, fig. 32) cuts one representative push-off out of the recorded leg force,
fits it with a Fourier series (eq. 102, judged by Pearson's r, eq. 103; see
:mod:`skilib.data.fourier`) and stretches the fit in time to the simulated phase.  This
module does each step on a frame from :func:`skilib.data.forcedata.load_force_data`;
:func:`default_push_force` is the result for the committed SYNTHETIC data set.  Every name
is also importable from :mod:`skilib.data.forcedata`.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import fourier
from .channels import DEFAULT_DT_RTOL, LEGS, SINGLE, column_mapping, mean_step
from .forcedata import default_data_path, default_metadata_path, load_force_data

__all__ = [
    "DEFAULT_ON_N", "DEFAULT_OFF_N", "DEFAULT_MIN_DURATION_S", "DEFAULT_HARMONICS",
    "detect_pushes", "find_pushes", "representative_push", "RepresentativePush", "fit_push",
    "PushForce", "PHASE_OVERSHOOT", "push_force_from_data", "default_push_fit", "default_push_force",
]

# Push detection defaults (absolute, in N). Swing-phase readings of the
# synthetic set stay within ~15 N of zero (noise + offset), a 75 kg skier's
# push exceeds 800 N: `off` sits well above the noise, `on` (~0.2 body
# weight) well above `off`, so noise can neither start nor split a push.
DEFAULT_ON_N = 150.0
DEFAULT_OFF_N = 40.0
# Shorter supra-threshold bursts (e.g. a pole knocking the binding) are not pushes.
DEFAULT_MIN_DURATION_S = 0.1
# Harmonics of the default push-off fit. Fixed, not tuned to reach a target r:
# 10 harmonics of a ~0.7 s push reach ~14 Hz, which holds the loading and
# push-off peaks and leaves out the ski vibration and sensor noise.
DEFAULT_HARMONICS = 10


# ---------------------------------------------------------------------------
# pushes
# ---------------------------------------------------------------------------

def detect_pushes(t, force, *, on: float = DEFAULT_ON_N, off: float = DEFAULT_OFF_N,
                  min_duration: float = DEFAULT_MIN_DURATION_S) -> pd.DataFrame:
    """Find the pushes of one leg with a threshold-and-hysteresis rule.

    ``t`` [s] must be uniformly sampled (steps within ``DEFAULT_DT_RTOL`` of
    the mean step), ``force`` [N] has the baseline already removed.

    A push is a maximal run of consecutive samples with ``force >= off`` that
    contains at least one sample with ``force >= on`` and lasts at least
    ``min_duration``. This is a Schmitt trigger (armed at ``on``, released
    below ``off``) whose start is moved back to the ``off`` crossing, so both
    ends of a push sit at the same level: the push then closes on itself
    when it is treated as one period of a Fourier series.

    Returns a DataFrame, one row per push, with ``start`` and ``stop``
    (sample indices, ``force[start:stop]`` is the push), ``t_start``,
    ``t_end`` (time of the last sample), ``duration`` (``(stop - start)*dt``,
    the period a Fourier fit of the push uses), ``peak`` [N], ``t_peak``,
    ``impulse`` (``dt * sum(force[start:stop])`` [N s]) and ``complete``
    (False when the push touches either end of the record, i.e. was cut off).
    """
    ta = fourier._as_1d_finite("t", t, min_len=2)
    fa = fourier._as_1d_finite("force", force, min_len=2)
    if ta.size != fa.size:
        raise ValueError(f"t, force: lengths differ ({ta.size} != {fa.size})")
    if np.any(np.diff(ta) <= 0):
        raise ValueError("t: must be strictly increasing")
    for name, v in (("on", on), ("off", off)):
        if not math.isfinite(v):
            raise ValueError(f"{name}: must be finite, got {v!r}")
    if not on > off:
        raise ValueError(f"on: must be greater than off (hysteresis), got on={on}, off={off}")
    if not (math.isfinite(min_duration) and min_duration >= 0):
        raise ValueError(f"min_duration: must be >= 0, got {min_duration!r}")
    dt = mean_step(ta)
    if np.max(np.abs(np.diff(ta) - dt)) > DEFAULT_DT_RTOL * dt:
        raise ValueError(f"t: not uniformly sampled within {DEFAULT_DT_RTOL:.0%} of the mean step")
    above = np.concatenate([[False], fa >= off, [False]])
    edges = np.diff(above.astype(np.int8))
    starts, stops = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    rows = []
    n = fa.size
    for s, e in zip(starts, stops):
        seg = fa[s:e]
        if seg.max() < on or (e - s) * dt < min_duration:
            continue
        k = int(np.argmax(seg))
        rows.append({
            "start": int(s), "stop": int(e), "t_start": float(ta[s]), "t_end": float(ta[e - 1]),
            "duration": (e - s) * dt, "peak": float(seg[k]), "t_peak": float(ta[s + k]),
            "impulse": float(dt * seg.sum()), "complete": bool(s > 0 and e < n),
        })
    cols = ["start", "stop", "t_start", "t_end", "duration", "peak", "t_peak", "impulse", "complete"]
    return pd.DataFrame(rows, columns=cols)


def _baseline(force: np.ndarray, off: float) -> float:
    """Zero reading of an unloaded plate: median of the samples below ``off``."""
    low = force[force < off]
    if low.size == 0:
        raise ValueError(f"off: no sample below off={off} N, cannot estimate the baseline")
    return float(np.median(low))


def find_pushes(frame: pd.DataFrame, *, legs=LEGS, on: float = DEFAULT_ON_N,
                off: float = DEFAULT_OFF_N, min_duration: float = DEFAULT_MIN_DURATION_S,
                subtract_baseline: bool = True) -> pd.DataFrame:
    """:func:`detect_pushes` on each leg of a loaded frame, stacked with a ``leg``
    column and the ``baseline`` [N] subtracted before detection (0 if
    ``subtract_baseline`` is False). Rows are ordered by ``t_start``."""
    parts = []
    for leg in legs:
        if leg not in frame.columns:
            raise ValueError(f"legs: column '{leg}' not in the frame ({list(frame.columns)})")
        f = frame[leg].to_numpy(dtype=float)
        base = _baseline(f, off) if subtract_baseline else 0.0
        p = detect_pushes(frame["t"].to_numpy(dtype=float), f - base, on=on, off=off,
                          min_duration=min_duration)
        p.insert(0, "leg", leg)
        p["baseline"] = base
        parts.append(p)
    out = pd.concat(parts, ignore_index=True)
    return out.sort_values(["t_start", "leg"], kind="stable").reset_index(drop=True)


@dataclass(frozen=True, eq=False)
class RepresentativePush:
    """One push cut out of a recording: ``force`` [N, baseline removed] at
    ``t`` [s from the push's first sample]; ``duration = n*dt``."""

    source: str
    leg: str
    start: int
    stop: int
    t_start: float
    dt: float
    baseline: float
    median_duration: float
    n_candidates: int
    t: np.ndarray = field(repr=False)
    force: np.ndarray = field(repr=False)

    def __post_init__(self):
        for name in ("t", "force"):
            arr = np.array(getattr(self, name), dtype=float)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def duration(self) -> float:
        return self.force.size * self.dt


def representative_push(frame: pd.DataFrame, *, legs=LEGS, on: float = DEFAULT_ON_N,
                        off: float = DEFAULT_OFF_N,
                        min_duration: float = DEFAULT_MIN_DURATION_S) -> RepresentativePush:
    """The representative push-off of a recording (Bruzzo, 2012, fig. 32).

    Choice: among the complete pushes of all ``legs`` (see :func:`find_pushes`,
    baseline removed), the push whose duration is closest to the median
    duration; ties go to the earliest. Why: the push is later stretched to
    the phase time, so its duration is what matters most; the median is not
    moved by an odd stroke; and taking one real push, not an average of
    several, keeps the fit and its Pearson r comparable with the thesis, which
    fitted one portion of its recording.
    """
    pushes = find_pushes(frame, legs=legs, on=on, off=off, min_duration=min_duration)
    src = frame.attrs.get("source", "<frame>")
    done = pushes[pushes["complete"]]
    if done.empty:
        raise ValueError(f"{src}: no complete push found in columns {list(legs)} "
                         f"(on={on} N, off={off} N, min_duration={min_duration} s)")
    med = float(np.median(done["duration"]))
    key = (done["duration"] - med).abs()
    # stable sort on |duration - median| keeps the t_start order for ties
    row = done.loc[key.sort_values(kind="stable").index[0]]
    t = frame["t"].to_numpy(dtype=float)
    f = frame[row["leg"]].to_numpy(dtype=float)
    s, e = int(row["start"]), int(row["stop"])
    dt = mean_step(t)
    return RepresentativePush(
        source=str(src), leg=str(row["leg"]), start=s, stop=e, t_start=float(t[s]), dt=dt,
        baseline=float(row["baseline"]), median_duration=med, n_candidates=int(len(done)),
        t=np.arange(e - s) * dt, force=f[s:e] - row["baseline"])


def fit_push(push: RepresentativePush, n_harmonics: int = DEFAULT_HARMONICS, *,
             method: str = "thesis") -> fourier.FourierFit:
    """Fourier fit (eq. 102) of one push, ``t0 = 0`` and period ``n*dt``
    (the push's duration), so that the eq. 102 sums are exact for the samples."""
    return fourier.fit(push.t, push.force, n_harmonics, period=push.duration, t0=0.0,
                       method=method)


# ---------------------------------------------------------------------------
# the push-off force callable
# ---------------------------------------------------------------------------

#: how far past the phase's ends a push-off accepts τ, relative to the phase time: rounding of a
#: phase time computed as t − t_start, not a stray time (``PushForce``)
PHASE_OVERSHOOT = 1e-9


@dataclass(frozen=True, eq=False)
class PushForce:
    """Push-off force magnitude F(τ) [N] over one phase, τ in [0, phase_time] s.

    The Fourier fit of a measured (here: synthetic) push-off stretched so the
    push spans the phase (Bruzzo, 2012, fig. 32). Calling it outside
    ``[0, phase_time]`` raises ValueError (a stray global time instead of the
    phase time would otherwise pass silently); a rounding overshoot of up to
    ``PHASE_OVERSHOOT * phase_time`` is accepted (every path: a scalar, an array,
    ``at_points``). The fit is not clipped at zero: near the ends of the phase it may dip a few N
    below zero.
    """

    fit: fourier.FourierFit
    phase_time: float
    source_duration: float
    source: str
    #: sha256 of the recording the push was cut from (None if not from a file)
    sha256: str | None = None

    def time_scaled(self, phase_time: float) -> "PushForce":
        """The same push-off stretched to a phase of ``phase_time`` s (thesis fig. 32): the
        explicit way to run a push fitted for one phase time with another."""
        phase_time = fourier._check_positive("phase_time", phase_time)
        return PushForce(fit=self.fit.time_scaled(phase_time, t0=0.0), phase_time=phase_time,
                         source_duration=self.source_duration, source=self.source, sha256=self.sha256)

    @property
    def provenance(self) -> str:
        """Where the push-off comes from: the recording's path and sha256."""
        sha = f", sha256 {self.sha256}" if self.sha256 else ""
        return f"Fourier fit (eq. 102) of the push-off in {self.source}{sha}"

    @property
    def pearson_r(self) -> float:
        """Eq. 103 of the fit against the push's samples."""
        return self.fit.pearson_r

    @property
    def impulse(self) -> float:
        """∫_0^phase_time F dτ [N s] = a0 * phase_time (sines integrate to 0)."""
        return self.fit.a0 * self.phase_time

    @property
    def _accepted(self) -> tuple:
        """The τ a call accepts, [−PHASE_OVERSHOOT T, T + PHASE_OVERSHOOT T]."""
        tol = PHASE_OVERSHOOT * self.phase_time
        return -tol, self.phase_time + tol

    def _check(self, tau) -> np.ndarray:
        tt = np.asarray(tau, dtype=float)
        lo, hi = self._accepted
        if not np.all(np.isfinite(tt)):
            raise ValueError("tau: contains non-finite values")
        if np.any(tt < lo) or np.any(tt > hi):
            raise ValueError(
                f"tau: phase time(s) outside [0, {self.phase_time}] s "
                f"(min {float(tt.min())!r}, max {float(tt.max())!r}); pass the time since the phase start")
        return np.clip(tt, 0.0, self.phase_time)

    def __call__(self, tau):
        if isinstance(tau, float):
            lo, hi = self._accepted
            if lo <= tau <= hi:
                return self.fit._scalar(min(max(tau, 0.0), self.phase_time))  # scalar fast path
        return self.fit.evaluate(self._check(tau))

    def at_points(self, tau) -> np.ndarray:
        """F at every point of the 1-D array ``tau``, each the call's value bit for bit: where
        every point lies within the phase (to the call's ``PHASE_OVERSHOOT``), the scalar path's
        operations element-wise (``FourierFit._scalars``), else the call point by point (which
        refuses a point outside)."""
        tt = np.asarray(tau, dtype=float)
        T = self.phase_time
        lo, hi = self._accepted
        if tt.ndim == 1 and np.all((lo <= tt) & (tt <= hi)):
            return self.fit._scalars(np.minimum(np.maximum(tt, 0.0), T))
        return np.array([float(self(t)) for t in tt])

    def symbolic(self, tau):
        """F as an expression of τ (the stretched fit's series) for code generation.  Unlike
        a call, it neither checks nor clips τ: the simulations integrate within [0, T]."""
        return self.fit.symbolic(tau)

    def derivative(self, tau, order: int = 1):
        """Analytic dF/dτ (order 1) or d²F/dτ² (order 2) in N/s, N/s²."""
        return self.fit.evaluate(self._check(tau), derivative=order)


def _file_stamp(p: Path) -> str:
    """The file's content hash (sha256): the identity of a recording, whatever its mtime."""
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@functools.lru_cache(maxsize=32)
def _cached_push_fit(path: str, stamp: str, metadata_key: str | None, n_harmonics: int,
                     on: float, off: float, min_duration: float,
                     method: str, columns_key=None) -> tuple[fourier.FourierFit, RepresentativePush]:
    """Load + detect + fit, memoised on the file's content and every option.

    ``stamp`` (the file's sha256) is part of the key so an edited file is refit, even one
    rewritten with the same size and modification time.
    """
    if metadata_key is None:
        meta = None
    elif metadata_key.startswith("{"):
        meta = json.loads(metadata_key)
    else:
        meta = metadata_key
    frame = load_force_data(path, meta, columns=None if columns_key is None else dict(columns_key))
    if frame.attrs.get("sha256") != stamp:
        raise ValueError(f"{path}: the file changed while it was read (sha256 {stamp} before, "
                         f"{frame.attrs.get('sha256')} after)")
    legs = tuple(c for c in (*LEGS, SINGLE) if c in frame.columns)  # both legs, or a single plate
    push = representative_push(frame, legs=legs, on=on, off=off, min_duration=min_duration)
    return fit_push(push, n_harmonics, method=method), push


def _push_fit(path, metadata, n_harmonics, on, off, min_duration, method, columns=None):
    p = Path(path).resolve()
    if isinstance(metadata, dict):
        mkey = json.dumps(metadata, sort_keys=True)
    elif metadata is None:
        mkey = None
    else:
        mkey = str(Path(metadata).resolve())
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such force data file")
    ckey = None if columns is None else tuple(sorted(column_mapping(columns).items()))
    stamp = _file_stamp(p)
    fit, push = _cached_push_fit(str(p), stamp, mkey, n_harmonics, float(on), float(off), float(min_duration),
                                 method, ckey)
    return fit, push, stamp


def push_force_from_data(path, phase_time: float, *, metadata=None,
                         n_harmonics: int = DEFAULT_HARMONICS, on: float = DEFAULT_ON_N,
                         off: float = DEFAULT_OFF_N,
                         min_duration: float = DEFAULT_MIN_DURATION_S,
                         method: str = "thesis", columns=None) -> PushForce:
    """F(τ) from a recording: load, pick the representative push
    (:func:`representative_push`, over both legs, or the one force column of a single-plate
    recording), fit eq. 102 with ``n_harmonics`` harmonics and stretch the fit to
    ``phase_time`` seconds (thesis fig. 32).  ``columns`` maps the loader's names to the
    file's (see :func:`skilib.data.forcedata.load_force_data`).  The fit is cached on the
    file's sha256, which the returned :class:`PushForce` records with the path; a run with
    another phase time refuses it (use ``PushForce.time_scaled``)."""
    phase_time = fourier._check_positive("phase_time", phase_time)
    n_harmonics = fourier._check_int("n_harmonics", n_harmonics, minimum=1)
    f, push, sha = _push_fit(path, metadata, n_harmonics, on, off, min_duration, method, columns)
    return PushForce(fit=f.time_scaled(phase_time, t0=0.0), phase_time=phase_time,
                     source_duration=push.duration, source=push.source, sha256=sha)


def default_push_fit(n_harmonics: int = DEFAULT_HARMONICS) -> fourier.FourierFit:
    """Fourier fit of the representative push-off of the committed SYNTHETIC
    data (sha256 checked against its metadata), in the push's own time
    (t0 = 0, period = push duration). Cached."""
    return _push_fit(default_data_path(), default_metadata_path(), n_harmonics, DEFAULT_ON_N,
                     DEFAULT_OFF_N, DEFAULT_MIN_DURATION_S, "thesis")[0]


def default_push_force(phase_time: float, *, n_harmonics: int = DEFAULT_HARMONICS) -> PushForce:
    """The default push-off force F(τ) [N] for a phase of ``phase_time`` s.

    The Fourier fit (eq. 102, ``n_harmonics`` harmonics, eq. 102 sums) of the
    representative push-off of the committed SYNTHETIC data set, stretched so
    the push spans ``[0, phase_time]`` (Bruzzo, 2012, fig. 32). Returns a
    :class:`PushForce`: call it with τ (scalar or array, s); τ outside
    ``[0, phase_time]`` raises ValueError. Its impulse is ``a0*phase_time``,
    i.e. it scales with ``phase_time / push duration``.
    """
    return push_force_from_data(default_data_path(), phase_time,
                                metadata=default_metadata_path(), n_harmonics=n_harmonics)
