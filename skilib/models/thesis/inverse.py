"""The inverse mode: from a measured motion to the leg force and the joint loads.

Bruzzo, Schwab, Ohtonen, Kolehmainen, Lindinger & Linnamo (2016), "A multibody dynamic
model of the cross-country ski-skating technique", *Sports Engineering* 19:91, the
thesis's follow-up, runs the model the other way round: the motion measured in the lab
(the ski's and the centre of mass's trajectories) is prescribed, and the forces that
produce it are computed.

For the thesis's model the computation is exact and needs no optimisation.  The model has
one degree of freedom, the ski's travel s along its line (C1–C17 leave one, §4.8).  A
virtual displacement δs moves all three bodies by e δs (R¹ = P + s e, R² = R¹ + l1 u,
R³ = R¹ + ℓ u; no orientation depends on s, and the drivers C14–C17 depend on τ only), so
the constraint forces do no work on it and eq. 101 projected on δs is the one-coordinate
equation along the ski

    m1 R̈¹·e + m2 R̈²·e + m3 R̈³·e = F (u·e) − sign(ṡ) μ + f_drag·e          (∗)

(gravity has no component along the horizontal e; μ the friction magnitude, eqs. 171–178;
f_drag the air drag at the CM when it is on).  Every acceleration on the left follows from
the measured trajectories: R¹ from the ski markers (the midpoint of tip and tail), R³ from
the CM marker, u = (R³ − R¹)/|R³ − R¹| and R̈² = R̈¹ + l1 ü.  (∗) then gives F (u·e), the
push's component along the ski, at every sample, and F itself where the lever u·e is not
small: at the start of a stroke the leg is vertical (γ = 0, eq. 188), u·e = 0 and the push
acts only on C14 — the motion does not show F there (``min_lever``).  While the ski is
stuck (ṡ = 0) friction is static and unknown, and F is not determined either.

With F known, the joint loads follow from eq. 101 itself: the model of the stroke is
evaluated at the measured q, q̇ with that F, which gives the multipliers λ (C14's
``leg_drive_force``, the ankle and knee reactions, eq. 68) and q̈; its s̈ must equal the
measured one (a check of the measured motion against the model's prescribed leg laws).

The trajectories are differentiated with splines (``scipy.interpolate``), one per stroke
(the CM jumps at a stroke change): an interpolating quintic spline when ``smoothing=0``
(exact data: the error is the spline's, O(h⁴) in s̈), or a cubic smoothing spline with
penalty ``smoothing`` (``make_smoothing_spline``'s λ) for noisy markers.  The book's
notebook "Seeing the skier" shows the error against the smoothing for 1 mm marker noise.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.interpolate import make_interp_spline, make_smoothing_spline

from ...engine.validation import check_array, check_bool, check_increasing, check_number
from .model import SkierModel
from .params import SkierParams

__all__ = ["Motion", "motion_from_c3d", "motion_from_result", "inverse_dynamics"]

#: the least ski-origin-to-CM distance |R³ − R¹| [m] a motion may show: a leg far shorter than
#: any human's (the thesis's ℓ is 0.5–0.7 m) has no direction u (the CM sits on the ski)
MIN_LEG = 1e-3
#: the least number of samples in one stroke: the splines' second derivative needs three
#: (a quadratic); the smoothing spline needs five
MIN_SAMPLES, MIN_SAMPLES_SMOOTHING = 3, 5


def _check_track(name, values, t):
    """An (n, 3) array of finite coordinates, or a ``ValueError`` naming ``name``, the row and its time."""
    n = len(t)
    a = check_array(name, values, finite=False)
    if a.shape != (n, 3):
        raise ValueError(f"{name}: must be an ({n}, 3) array (one row per time of t), got shape {a.shape}")
    bad = ~np.all(np.isfinite(a), axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name}: non-finite coordinates {a[i].tolist()} at row {i} (t = {float(t[i])!r} s)")
    return a


class Motion:
    """A measured motion: times t [s], ski origin R¹ (n, 3), CM R³ (n, 3), ski direction e
    (n, 3) [unit], and the start time of every stroke (``stroke_t0``, ascending; the first is
    t[0]).

    Checked on construction (``ValueError`` naming the argument and the row or time): t
    strictly increasing and finite; ski, cm, ski_dir (n, 3) arrays of finite numbers; ski_dir
    never zero; the CM at least ``MIN_LEG`` (1 mm) from the ski origin; stroke_t0 strictly
    increasing, its first t[0], each stroke at least ``MIN_SAMPLES`` (3) samples long."""

    def __init__(self, t, ski, cm, ski_dir, stroke_t0=None):
        t = check_increasing("t", t, unit="s")
        if len(t) < MIN_SAMPLES:
            raise ValueError(f"t: a motion needs at least {MIN_SAMPLES} samples (the splines' second "
                             f"derivative), got {len(t)}")
        self.t = t
        self.ski = _check_track("ski", ski, t)
        self.cm = _check_track("cm", cm, t)
        e = _check_track("ski_dir", ski_dir, t)
        norm = np.linalg.norm(e, axis=1)
        if not np.all(norm > 0):
            i = int(np.argmin(norm > 0))
            raise ValueError(f"ski_dir: zero direction at row {i} (t = {float(t[i])!r} s)")
        self.ski_dir = e / norm[:, None]
        leg = np.linalg.norm(self.cm - self.ski, axis=1)
        if not np.all(leg >= MIN_LEG):
            i = int(np.argmin(leg >= MIN_LEG))
            raise ValueError(f"cm: the CM is {leg[i]:.3g} m from the ski origin at row {i} (t = {float(t[i])!r} s), "
                             f"less than {MIN_LEG:g} m: the leg has no direction")
        if stroke_t0 is None:
            self.stroke_t0 = np.array([t[0]])
        else:
            t0 = check_increasing("stroke_t0", np.atleast_1d(check_array("stroke_t0", stroke_t0)), unit="s")
            if len(t0) == 0 or t0[0] != t[0]:
                raise ValueError(f"stroke_t0: the first stroke must start at t[0] = {float(t[0])!r} s, got "
                                 f"{float(t0[0]) if len(t0) else 'none'!r}")
            self.stroke_t0 = t0
        counts = np.bincount(np.searchsorted(self.stroke_t0, t, side="right"), minlength=len(self.stroke_t0) + 1)[1:]
        if np.any(counts < MIN_SAMPLES):
            k = int(np.argmax(counts < MIN_SAMPLES))
            raise ValueError(f"stroke_t0: stroke {k + 1} (from t = {float(self.stroke_t0[k])!r} s) has {counts[k]} samples, "
                             f"fewer than {MIN_SAMPLES}")

    @classmethod
    def from_markers(cls, t, markers, stroke_t0=None):
        """From SKI_TIP, SKI_TAIL and CM marker trajectories [m]."""
        tip, tail = np.asarray(markers["SKI_TIP"]), np.asarray(markers["SKI_TAIL"])
        return cls(t, 0.5 * (tip + tail), markers["CM"], tip - tail, stroke_t0)


def motion_from_c3d(run) -> Motion:
    """The motion of a ``skilib.models.thesis.c3d.C3DRun`` (markers and "Stroke change" events)."""
    ch = run.events.loc[run.events["label"] == "Stroke change", "t"].to_numpy()
    return Motion.from_markers(run.t, run.markers, np.concatenate([[run.t[0]], np.sort(ch)]))


def motion_from_result(result) -> Motion:
    """The exact (double precision) motion of a ``SimResult``, as the markers would record it."""
    from .markers import skeleton

    sk = skeleton(result)
    t0 = result.frame.groupby("stroke")["t"].min().to_numpy()
    return Motion.from_markers(sk.t, sk.points, t0)


def _derivatives(t, X, smoothing):
    """X, Ẋ, Ẍ at t from a spline of each column of X."""
    if smoothing == 0:
        spl = [make_interp_spline(t, X[:, j], k=7 if len(t) > 7 else len(t) - 1) for j in range(X.shape[1])]
    else:
        spl = [make_smoothing_spline(t, X[:, j], lam=smoothing) for j in range(X.shape[1])]
    return [np.column_stack([s.derivative(d)(t) if d else s(t) for s in spl]) for d in (0, 1, 2)]


def inverse_dynamics(motion: Motion, params: SkierParams | None = None, *, smoothing: float = 0.0,
                     min_lever: float = 0.05, v_stick: float = 1e-3, joint_loads: bool = True) -> pd.DataFrame:
    """Push force and joint loads of the thesis's model from a measured motion (module docstring).

    Parameters
    ----------
    motion : Motion (``Motion.from_markers``, ``motion_from_c3d``, ``motion_from_result``)
    params : the skier's masses, l1, friction, drag (default ``SkierParams()``)
    smoothing : 0 for an interpolating quintic spline (exact data), > 0 for a cubic smoothing
        spline with this penalty λ [m² s³ per unit curvature², scipy's ``lam``]
    min_lever : |u·e| below which F is not reported (NaN): the push then hardly acts along
        the ski and (∗) does not determine it; in [0, 1]
    v_stick : |ṡ| [m/s] below which the ski counts as stuck (F not determined); >= 0
    joint_loads : also evaluate eq. 101 with the recovered F (leg_drive_force, ankle and
        knee reactions, the model's s̈)

    Returns
    -------
    DataFrame, one row per sample: t, stroke (1, 2, …), tau, s, s_dot, s_ddot, lever (u·e),
    drive_along_ski = F (u·e) [N], push_force F [N] (NaN where undetermined), and with
    ``joint_loads`` leg_drive_force, ankle_Fx/y/z, knee_Fx/y/z [N] and s_ddot_model.
    """
    if not isinstance(motion, Motion):
        raise ValueError(f"motion: must be a Motion (Motion.from_markers, motion_from_c3d, motion_from_result), "
                         f"got {motion!r}")
    if params is not None and not isinstance(params, SkierParams):
        raise ValueError(f"params: must be a SkierParams or None, got {params!r}")
    smoothing = check_number("smoothing", smoothing, nonnegative=True)
    min_lever = check_number("min_lever", min_lever, nonnegative=True, high=1.0)
    v_stick = check_number("v_stick", v_stick, nonnegative=True, unit="m/s")
    joint_loads = check_bool("joint_loads", joint_loads)
    p = SkierParams() if params is None else params
    m = motion
    n = len(m.t)
    if smoothing > 0:
        counts = np.bincount(np.searchsorted(m.stroke_t0, m.t, side="right"))[1:]
        if np.any(counts < MIN_SAMPLES_SMOOTHING):
            k = int(np.argmax(counts < MIN_SAMPLES_SMOOTHING))
            raise ValueError(f"smoothing: a smoothing spline needs {MIN_SAMPLES_SMOOTHING} samples per stroke; "
                             f"stroke {k + 1} (from t = {float(m.stroke_t0[k])!r} s) has {counts[k]}")
    stroke = np.searchsorted(m.stroke_t0, m.t, side="right")
    out = {k: np.full(n, np.nan) for k in ("tau", "s", "s_dot", "s_ddot", "lever", "drive_along_ski", "push_force")}
    models = {}
    for k in np.unique(stroke):
        idx = np.flatnonzero(stroke == k)
        t = m.t[idx]
        e = m.ski_dir[idx].mean(axis=0)
        e[2] = 0.0
        e /= np.linalg.norm(e)
        R1, V1, A1 = _derivatives(t, m.ski[idx], smoothing)
        R3, V3, A3 = _derivatives(t, m.cm[idx], smoothing)
        d, dd, ddd = R3 - R1, V3 - V1, A3 - A1
        ell = np.linalg.norm(d, axis=1)
        u = d / ell[:, None]
        elld = np.einsum("ij,ij->i", u, dd)
        ud = (dd - elld[:, None] * u) / ell[:, None]
        elldd = np.einsum("ij,ij->i", ud, dd) + np.einsum("ij,ij->i", u, ddd)
        udd = (ddd - elldd[:, None] * u - 2 * elld[:, None] * ud) / ell[:, None]
        A2 = A1 + p.l1 * udd
        lhs = (p.ski_mass * A1 + p.shank_mass * A2 + p.body_mass * A3) @ e
        sdot = V1 @ e
        friction = -np.sign(sdot) * p.friction
        drag = 0.0
        if p.air_drag:
            drag = -0.5 * p.air_density * p.cda * np.linalg.norm(V3, axis=1) * (V3 @ e)
        lever = u @ e
        drive = lhs - friction - drag
        F = drive / np.where(lever == 0, np.nan, lever)
        F[(np.abs(lever) < min_lever) | (np.abs(sdot) < v_stick)] = np.nan
        out["tau"][idx] = t - t[0]
        out["s"][idx] = (R1 - R1[0]) @ e
        out["s_dot"][idx], out["s_ddot"][idx] = sdot, A1 @ e
        out["lever"][idx], out["drive_along_ski"][idx], out["push_force"][idx] = lever, drive, F
        models[k] = (idx, e, np.array([R1[0, 0], R1[0, 1], 0.0]), sdot)
    df = pd.DataFrame({"t": m.t, "stroke": stroke, **out})
    if joint_loads:
        _joint_loads(df, models, p)
    return df


def _joint_loads(df, models, p):
    """Evaluate eq. 101 of each stroke's model at the measured state with the recovered F."""
    from ...engine.reactions import JointReaction

    cols = ("leg_drive_force", "ankle_Fx", "ankle_Fy", "ankle_Fz", "knee_Fx", "knee_Fy", "knee_Fz", "s_ddot_model")
    res = {c: np.full(len(df), np.nan) for c in cols}
    for k, (idx, e, P, sdot) in models.items():
        tau = df["tau"].to_numpy()[idx]
        F = df["push_force"].to_numpy()[idx]
        Fd = np.where(np.isfinite(F), F, 0.0)
        heading = math.atan2(e[1], e[0])
        side = "right" if heading < 0 else "left"

        def push(x, tau=tau, Fd=Fd):
            return float(np.interp(x, tau, Fd))

        model = SkierModel(p, heading, side, P, push)
        s = df["s"].to_numpy()[idx]
        for j, i in enumerate(idx):
            if not np.isfinite(F[j]):
                continue
            mode = 1 if sdot[j] > 0 else -1
            sysm = model.system(mode)
            q = model.pose(tau[j], s[j])
            jet = sysm.constraint_jet(tau[j], q)
            row = np.zeros(sysm.nq)
            row[:3] = model.e
            qd = np.linalg.solve(np.vstack([jet.J, row]), np.concatenate([-jet.t, [sdot[j]]]))
            ev = sysm.evaluate(tau[j], q, qd, 0.0, 0.0)
            res["s_ddot_model"][i] = ev.qdd[:3] @ model.e
            res["leg_drive_force"][i] = -ev.lam[sysm.rows("C14").start]
            for pre, c, body in (("ankle", "ankle", model.shank), ("knee", "knee", model.upper)):
                r = JointReaction(sysm, c, body)
                Fr, _ = r(q[None], ev.Cq[r.rows, r.cols][None], ev.lam[None])
                for a, ax in enumerate("xyz"):
                    res[f"{pre}_F{ax}"][i] = Fr[0, a]
    for c in cols:
        df[c] = res[c]
