"""A segment of a one-degree-of-freedom skier's stroke by quadrature, not by steps.

Coordinate partitioning (Haug 1989, §6.3; Wehage and Haug 1982): where a model's constraints
leave one degree of freedom s and fix every other coordinate as a function of time, its
coordinates are q(τ, s) = q⁰(τ) + s ê, with ê the constant displacement of every body along the
ski (the thesis's skier: R¹ = P + s e, R² = R¹ + l₁ u(τ), R³ = R¹ + ℓ(τ) u(τ), eqs. 187–188;
``skilib.models.thesis.one_dof``).  Its velocities are q̇ = q̇⁰(τ) + ṡ ê.  Without a force that
depends on the speed (air drag), eq. 101 projected on ê gives the ski an acceleration s̈(τ) that
depends on τ alone within one friction mode, so a sliding segment from (τₐ, sₐ, ṡₐ) is a
quadrature:

    ṡ(τ) = ṡₐ + ∫ s̈,   s(τ) = sₐ + ṡₐ (τ − τₐ) + ∬ s̈,

and every extra state of a stroke (the works W = ∫ r dτ, r = W·powers, and ∫|Ṙ³|, ∫|Ẋ³|, ∫|Ẏ³|,
``skilib.strokes.work``) is one more quadrature along that motion.

Nothing here is written by hand for a model: s̈ and the powers are the compiled kernel's own
eq. 101 (``evaluate_points``, all points in one call into C) at states on the constraint
manifold.  The constraints' Jacobian and γ, the bodies' rotations and the forces depend on none of
s, ṡ and the stroke's start point, so neither do s̈ and the multipliers, and every power (Q_f·q̇,
−λ (Cq q̇)) is affine in ṡ.  At the Chebyshev points of [τₐ, T], eq. 101 at (s, ṡ) = (0, 0)
therefore gives s̈ and powers = P0(τ) + ṡ P1(τ), P1 = (Q_f·ê, −λ (Cq ê)), for every motion of the
segment (``canonical``); two more states, (0, 1) and (1, 2) at every eighth point, check both, and
a force that depends on the speed or the position is refused (``NotReducible``).  These numbers
depend only on the ski, its laws and the push-off: one ski's strokes in a run share them.  Each
integrand is interpolated at the Chebyshev points (``series``, the discrete cosine transform) and
integrated exactly, the number of points doubled until every series' last coefficients fall below
its tail bound.  The event ṡ = 0 that ends a sliding segment is the first root of the ṡ series
(``brentq``), and ∫|Ẋ³|, ∫|Ẏ³| are split at the roots of the velocity's series.

The quadrature's own error is far below the integrator's that it replaces (DOP853 at
rtol = atol = 1e-10 and Baumgarte's terms: about 1e-10 of a long run's numbers): the two agree to
the integrator's tolerance, and the stepped run stays the reference (``tests/test_quadrature.py``).
A stuck segment (mode 0) is one too: the stick row holds s ≡ s* and ṡ ≡ 0, the works are the
powers' integrals along the prescribed pose, and its end is the first root of μ − |λ_stick(τ)|,
the static friction needed reaching its limit (``skilib.strokes.stroke``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.polynomial.chebyshev import chebder, chebpts1
from scipy.fft import dct
from scipy.optimize import brentq

from ..engine.codegen.stepper import evaluate_points
from .kept import KeptLast

__all__ = ["PosePath", "quadrature_segment", "NotReducible", "CHEBYSHEV_TAIL", "RATE_TAIL", "SDD_AGREEMENT",
           "DEGREES", "series", "resolved", "basis", "antiderivative"]

#: an interpolant is accepted when its last four Chebyshev coefficients are below this fraction of
#: its largest (a few units of rounding: the series has converged to double precision)
CHEBYSHEV_TAIL = 1e-14
#: the tail bound of the kernel's integrands (s̈, the works' rates, the CM's speed), relative to
#: the largest of their kind in the segment.  Their rounding floor is ~1e-14 of that (one sparse
#: solve of eq. 101 per point), and a rate that should vanish (the joints' power, rounding of
#: products of ~1e3 N and ~1 m/s) has only that floor, so the bound sits above it: a tail of 1e-12
#: changes ṡ, a work or a distance by about 1e-12 of the largest rate times the segment's length,
#: a hundredth of the integrator's own 1e-10 that the quadrature replaces
RATE_TAIL = 1e-12
#: s̈ and the powers at the checking states may differ from the first state's prediction
#: (``canonical``) by this, relative to the largest (rounding: ~1e-14 measured; air drag at a few
#: m/s would differ by ~1e-3)
SDD_AGREEMENT = 1e-9
#: how far a segment's first state may be from the pose path (the integrator's drift off the
#: constraints after a stuck segment is ~1e-12); the quadrature starts on the path
SNAP_TOL = 1e-8
#: the numbers of Chebyshev points tried, in turn
DEGREES = (96, 192, 384, 768)
#: the pose's own interpolation on [0, T] (smooth laws of τ: it converges far earlier)
POSE_POINTS = 64


#: (points, shape, size) → ``basis``'s matrix (kept: a run asks for the same few again and again)
_bases = KeptLast(64)


class NotReducible(ValueError):
    """A stroke or a segment is not a quadrature in the skier's one degree of freedom here (the
    module's docstring): the multibody engine's integration is the path."""


def series(values: np.ndarray) -> np.ndarray:
    """Chebyshev coefficients of the interpolants through ``values`` at ``chebpts1(len(values))``
    (along the first axis: one series per column)."""
    # the discrete cosine transform of the values in the order x_j = cos(π(j + ½)/m): its rounding
    # grows like log m, where the sum of m products behind ``Chebyshev.interpolate`` grows like m
    c = dct(np.asarray(values, dtype=float)[::-1], type=2, axis=0) / len(values)
    c[0] /= 2.0
    return c


def resolved(c: np.ndarray, scale=None, tail: float = CHEBYSHEV_TAIL) -> bool:
    """Whether every series (columns of ``c``) has converged: its last four coefficients at most
    ``tail`` × ``scale`` (default: the series' own largest coefficient)."""
    a = np.abs(np.reshape(c, (len(c), -1)))
    top = a.max(axis=0) if scale is None else np.broadcast_to(scale, a.shape[1:])
    return bool(np.all(a[-4:].max(axis=0) <= tail * top))


def basis(x, size: int) -> np.ndarray:
    """The Chebyshev polynomials T_0 … T_{size−1} at the points x ∈ [−1, 1] (one row per point):
    T_j(x) = cos(j arccos x), every point and degree in one array operation, where Clenshaw's
    recurrence (``chebval``) takes one array operation per degree.  The matrices of point sets
    asked for again (a run's strokes share their Chebyshev points and output grid) are kept."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 0 or x.size < 8:
        return _cosines(x, size)
    return _bases.get((x.tobytes(), x.shape, size), lambda: _cosines(x, size))


def _cosines(x, size):
    theta = np.arccos(np.clip(x, -1.0, 1.0))
    out = np.cos(np.multiply.outer(theta, np.arange(size)))
    out.flags.writeable = False
    return out


def antiderivative(c, half: float = 1.0) -> np.ndarray:
    """The series of ∫₋₁ˣ f (times ``half``, the interval's dτ/dx) of the series ``c`` (along the
    first axis), one degree more: ∫T₀ = T₁, ∫T₁ = T₂/4, ∫Tⱼ = T_{j+1}/(2(j+1)) − T_{j−1}/(2(j−1))
    (Mason and Handscomb 2003, §2.4.4), its constant making it vanish at x = −1.  ``chebint``'s
    own loop over the degrees, in array operations."""
    c = np.asarray(c, dtype=float)
    d = np.zeros((len(c) + 2,) + c.shape[1:])
    d[: len(c)] = c
    out = np.zeros((len(c) + 1,) + c.shape[1:])
    j = np.arange(1, len(c) + 1).reshape((-1,) + (1,) * (c.ndim - 1))
    out[1:] = (d[:-2] - d[2:]) / (2.0 * j)
    out[1] = d[0] - 0.5 * d[2]
    sign = np.where(np.arange(1, len(c) + 1) % 2, -1.0, 1.0).reshape(j.shape)
    out[0] = -np.sum(sign * out[1:], axis=0)  # Tⱼ(−1) = (−1)ʲ
    return out * half


def _padded(*columns) -> np.ndarray:
    """Series of different lengths as the columns of one coefficient matrix (zeros below)."""
    rows = max(len(c) for c in columns)
    out = np.zeros((rows, len(columns)))
    for j, c in enumerate(columns):
        out[: len(c), j] = c
    return out


class PosePath:
    """q⁰(τ) and q̇⁰(τ) on [0, T] as Chebyshev series, and ê: q = q⁰(τ) + s ê, q̇ = q̇⁰(τ) + ṡ ê.

    ``pose(τ)`` gives q⁰ at one τ (the model's exact pose at s = 0); ``E`` is ê.  ``at(τ)``
    gives (q⁰, q̇⁰) at an array of τ, one row per point; ``shifted(offset)`` the same path moved
    by a constant ``offset`` of q (a stroke's start point).  ``NotReducible`` if the pose is not
    resolved by ``POSE_POINTS`` points (an angle that wraps round)."""

    def __init__(self, pose, T: float, E, points: int = POSE_POINTS):
        self.T, self.E = float(T), np.array(E, dtype=float)
        x = chebpts1(points)
        values = np.array([pose(t) for t in self.T * (x + 1.0) / 2.0])
        c = series(values)
        if not resolved(c, scale=np.abs(c).max(axis=0) + 1.0):
            raise NotReducible(f"the pose q(τ, 0) is not resolved by {points} Chebyshev points on [0, {T:g}] s")
        n = c.shape[1]
        self.c = np.hstack([c, np.vstack([chebder(c) * (2.0 / self.T), np.zeros((1, n))])])  # [q⁰ | q̇⁰]
        self.offset = np.zeros(n)
        for a in (self.c, self.E, self.offset):
            a.flags.writeable = False

    def shifted(self, offset) -> "PosePath":
        out = object.__new__(PosePath)
        out.__dict__.update(self.__dict__)
        out.offset = self.offset + np.asarray(offset, dtype=float)
        return out

    def at(self, tau, shifted: bool = True):
        """(q⁰, q̇⁰) at the points ``tau``; ``shifted=False``: the path before its ``offset``."""
        v = basis(2.0 * np.asarray(tau, dtype=float) / self.T - 1.0, len(self.c)) @ self.c
        n = len(self.offset)
        return (v[:, :n] + self.offset if shifted else v[:, :n]), v[:, n:]


def _evaluate(system, t, q, qd, alpha, beta):
    """eq. 101 at the points in one call into C; a point the kernel cannot solve is evaluated
    again by the system itself, whose own error then names it."""
    out = evaluate_points(system, t, q, qd, alpha, beta)
    if out is None:
        for j in range(len(t)):
            system.evaluate(t[j], q[j], qd[j], alpha, beta)
        raise RuntimeError("evaluate_points failed where the system's own evaluation did not")
    return out


#: (the model's ``one_dof_key``, mode, τₐ, T, points) → ``Canonical`` at those points: the strokes
#: of one ski in a run share them
_canonical = KeptLast(32)


class Canonical(NamedTuple):
    """A segment's numbers at its Chebyshev points that hold for every motion (module
    docstring): s̈ and its series (``c_sdd``), ṡ − ṡₐ and s − sₐ − ṡₐ (τ − τₐ) as series
    (``c_sd``, ``c_s``) and at the points (``sd``), q̇⁰ at the points, and the powers
    P0(τ) + ṡ P1(τ); ``resolved``: whether s̈'s series has converged at these points."""
    sdd: np.ndarray
    c_sdd: np.ndarray
    resolved: bool
    c_sd: np.ndarray
    c_s: np.ndarray
    sd: np.ndarray
    qd0: np.ndarray
    P0: np.ndarray
    P1: np.ndarray
    lam: np.ndarray


#: every how many points the third, checking state is evaluated (``canonical``)
CHECK_EVERY = 8


def canonical(system, pose, t, row, stroke, half: float, stuck: bool = False) -> Canonical:
    """s̈ and the affine powers at the points ``t`` (Chebyshev points of an interval of length
    2·``half``), from eq. 101 on the pose path before its offset (the stroke's start point),
    without Baumgarte's terms (zero on the path).  The constraints' Jacobian, their γ (eq. 101),
    the bodies' rotations and the forces do not depend on s, ṡ or the start point (a
    translation), so neither do s̈ nor the multipliers, and the powers Q_f·q̇ and −λ (Cq q̇) are
    affine in ṡ: at (s, ṡ) = (0, 0) every point gives s̈, P0 = the powers and
    P1 = (Q_f·ê, −λ (Cq ê), 0) (a force on a row's load, Q_f = b λ_k: P1 from a second state,
    (0, 1), at every point).  Two more states, (0, 1) and (1, 2) at every ``CHECK_EVERY``-th point,
    check both: s̈ and the powers there must be P0 + ṡ P1's (``SDD_AGREEMENT`` of the largest), or
    ``NotReducible`` (a force that depends on the velocity or the position).  These numbers depend
    on nothing else, bit for bit, so one ski's strokes share them.  A stuck segment (``stuck``: the
    stick row holds s) has s̈ = 0, its rounding not a series to resolve; its multipliers (``lam``)
    hold the static friction needed."""
    Q0, QD0 = pose.at(t, shifted=False)
    E = pose.E
    first = _evaluate(system, t, Q0, QD0, 0.0, 0.0)
    P0, nf, nc = first["powers"], first["QF"].shape[1], first["lam"].shape[1]
    check = slice(None, None, CHECK_EVERY)
    loads = bool(getattr(system, "load_forces", ()))
    states = ((0.0, 1.0, slice(None) if loads else check), (1.0, 2.0, check))
    out = [_evaluate(system, t[w], Q0[w] + s * E, QD0[w] + sd * E, 0.0, 0.0) for s, sd, w in states]
    count = len(t) + sum(len(t[w]) for _, _, w in states)
    stroke.nfev += count
    if stroke.budget is not None:
        stroke.budget.charge_many(float(t[0]), count)
    if loads:
        P1 = out[0]["powers"] - P0
    else:
        P1 = np.zeros_like(P0)
        P1[:, :nf] = first["QF"] @ E
        P1[:, nf: nf + nc] = -first["lam"] * (first["Cq"] @ E)
    sdd = first["qdd"] @ row
    gap_sdd = max(float(np.abs(o["qdd"] @ row - sdd[w]).max()) for o, (_, _, w) in zip(out, states))
    gap_power = max(float(np.abs(o["powers"] - (P0[w] + sd * P1[w])).max()) for o, (_, sd, w) in zip(out, states))
    top = max(float(np.abs(o["powers"]).max()) for o in out)
    if gap_sdd > SDD_AGREEMENT * max(float(np.abs(sdd).max()), 1.0) or gap_power > SDD_AGREEMENT * max(top, 1.0):
        raise NotReducible(f"reduced: the ski's acceleration or a power depends on the ski's speed or position "
                           f"(by {gap_sdd:.3g} m/s², {gap_power:.3g} W at τ ∈ [{t.min():.6g}, {t.max():.6g}] s): a "
                           "force that depends on the velocity; use reduced=False")
    c_sdd = series(sdd)
    c_sd = antiderivative(c_sdd, half)                     # ṡ − ṡₐ
    c_s = antiderivative(c_sd, half)                       # s − sₐ − ṡₐ (τ − τₐ)
    x = chebpts1(len(t))
    if stuck:
        c_sdd = c_sd = c_s = np.zeros(len(t))
    arrays = (sdd, c_sdd, c_sd, c_s, basis(x, len(c_sd)) @ c_sd, QD0, P0, P1, first["lam"])
    for a in arrays:
        a.flags.writeable = False
    converged = stuck or resolved(c_sdd, scale=np.abs(c_sdd).max() + 1e-300, tail=RATE_TAIL)
    return Canonical(sdd, c_sdd, converged, *arrays[2:])


def _roots(c, x, g, direction=0, xtol=1e-15):
    """The roots of the series ``c`` on [−1, 1] where its values ``g`` at the sorted points ``x``
    change sign (``direction`` −1: from > 0 to ≤ 0 only), located by ``brentq`` to ``xtol``."""
    size = len(c)

    def f(z):
        return float(basis(z, size) @ c)

    out = []
    for j in np.nonzero((g[:-1] > 0.0) & (g[1:] <= 0.0) | ((g[:-1] < 0.0) & (g[1:] >= 0.0) & (direction == 0)))[0]:
        out.append(brentq(f, x[j], x[j + 1], xtol=xtol, rtol=4 * np.finfo(float).eps))
    return out


class QuadraturePath:
    """y(τ) = [q; q̇; extra states] inside one segment solved by quadrature (the segment's
    ``path``): every column from its series, at any τ of the segment.

    ``C``: the series of s − sₐ − ṡₐ(τ − τₐ), ṡ − ṡₐ, the extra states' integrals (``plain``:
    their indices) and the antiderivatives of the velocities whose absolute values are integrated
    (``absolute``: index → (column of C, breakpoints, signs of the pieces))."""

    def __init__(self, pose, a, b, s0, sd0, C, plain, absolute, x0):
        self.pose, self.a, self.half = pose, a, 0.5 * (b - a)
        self.s0, self.sd0, self.C, self.plain, self.absolute, self.x0 = s0, sd0, C, plain, absolute, x0
        # each absolute value's integral up to the start of each piece
        self._before = {}
        for j, (col, breaks, signs) in absolute.items():
            V = basis(breaks, len(C)) @ C[:, col]
            self._before[j] = np.concatenate([[0.0], np.cumsum(signs * np.diff(V))]), V

    def __call__(self, tau):
        tau = np.atleast_1d(np.asarray(tau, dtype=float))
        x = (tau - self.a) / self.half - 1.0
        v = basis(x, len(self.C)) @ self.C
        s = self.s0 + self.sd0 * (tau - self.a) + v[:, 0]
        sd = self.sd0 + v[:, 1]
        q0, qd0 = self.pose.at(tau)
        E = self.pose.E
        extras = np.tile(self.x0, (len(tau), 1))
        extras[:, self.plain] += v[:, 2: 2 + len(self.plain)]
        for j, (col, breaks, signs) in self.absolute.items():
            before, V = self._before[j]
            piece = np.clip(np.searchsorted(breaks, x, side="right") - 1, 0, len(signs) - 1)
            extras[:, j] += before[piece] + signs[piece] * (v[:, col] - V[piece])
        return np.hstack([q0 + s[:, None] * E, qd0 + sd[:, None] * E, extras]).T


def quadrature_segment(stroke, system, rows, ledger, mode: int, tau: float, y, T: float, dense: bool,
                       s_stick: float | None = None):
    """One segment of ``stroke.active`` from (τ, y) to T or to its event, by quadrature (module
    docstring): sliding (mode ±1) until ṡ = 0, or stuck (mode 0, at ``s_stick``: s ≡ s*, ṡ ≡ 0)
    until the static friction needed, the stick row's multiplier, reaches the friction's limit.
    Returns (τ at its end, its path y(τ) or None without ``dense``, y at its end, whether the
    event ended it).  The model gives ``one_dof_path()`` (a ``PosePath`` at its
    start point), ``ski_speed_row()`` (ṡ = row·q̇) and its extra states (the works, then
    ``INTEGRALS``, then projection_energy: ``skilib.strokes.work``)."""
    m, n = stroke.active, stroke.n
    pose = m.one_dof_path()
    E, row = pose.E, m.ski_speed_row()
    nw, k = len(ledger.names), 2 * n
    cm = rows.cm
    # where the state is on the path: s from q, ṡ from q̇ (the engine's ski speed row)
    q0a, qd0a = pose.at(np.array([tau]))
    stuck = mode == 0
    s0 = float(s_stick) if stuck else float(row @ (y[:n] - q0a[0]) / (row @ E))
    sd0 = 0.0 if stuck else float(row @ (y[n: k] - qd0a[0]) / (row @ E))
    off = max(float(np.abs(y[:n] - q0a[0] - s0 * E).max()), float(np.abs(y[n: k] - qd0a[0] - sd0 * E).max()))
    if off > SNAP_TOL:  # the quadrature starts on the path: a state off it is not this model's
        raise NotReducible(f"reduced: the state at τ = {tau:.6g} s is {off:.3g} off the pose path q⁰(τ) + s ê")
    a, b = float(tau), float(T)
    half = 0.5 * (b - a)
    key = getattr(m, "one_dof_key", None)
    try:
        hash(key)
    except TypeError:  # a model part that cannot be a key (an unhashable push-off): nothing kept
        key = None
    for points in DEGREES:
        x = chebpts1(points)
        t = a + half * (x + 1.0)
        if key is None:
            canon = canonical(system, pose, t, row, stroke, half, stuck)
        else:
            canon = _canonical.get((key, mode, a, b, points),
                                   lambda: canonical(system, pose, t, row, stroke, half, stuck))
        if not canon.resolved:
            continue
        c_sd, c_s = canon.c_sd, canon.c_s
        SD = sd0 + canon.sd
        QD = canon.qd0 + SD[:, None] * E
        v = QD[:, cm: cm + 3]
        # the works' rates, |Ṙ³|, Ẋ³ and Ẏ³ at the points, as series (one per column)
        rates = (canon.P0 + SD[:, None] * canon.P1) @ ledger.W.T
        c = series(np.hstack([rates, np.sqrt(np.einsum("ij,ij->i", v, v))[:, None], v[:, :2]]))
        top_rate = max(float(np.abs(c[:, :nw]).max()), 1e-300)
        top_v = max(float(np.abs(c[:, nw:]).max()), 1e-300)
        if stuck:  # the static friction needed: the stick row's multiplier
            c_lam = series(canon.lam[:, rows.stick_index()])
        if (resolved(c[:, :nw], scale=top_rate, tail=RATE_TAIL) and resolved(c[:, nw:], scale=top_v, tail=RATE_TAIL)
                and (not stuck or resolved(c_lam, scale=np.abs(c_lam).max() + 1e-300, tail=RATE_TAIL))):
            break
    else:
        raise NotReducible(f"reduced: the segment's integrands on τ ∈ [{a:.6g}, {b:.6g}] s are not resolved by "
                           f"{DEGREES[-1]} Chebyshev points (a push-off or a law that is not smooth); use "
                           "reduced=False")
    # the event: ṡ reaches 0 against the mode (ṡ falling through 0 for mode +1), looked for between
    # the points (finer than the integrator's largest step, between whose ends it looks)
    xs = np.concatenate([[-1.0], x, [1.0]])
    if stuck:  # μ(τ) − |λ_stick(τ)| falls through 0 (the engine's event, ``Stroke._event``)
        def slack(z):
            return m.friction_limit(a + half * (z + 1.0)) - abs(float(basis(z, len(c_lam)) @ c_lam))

        ends = basis(np.array([-1.0, 1.0]), len(c_lam)) @ c_lam
        lam = np.concatenate([ends[:1], canon.lam[:, rows.stick_index()], ends[1:]])
        g = np.array([m.friction_limit(a + half * (z + 1.0)) for z in xs]) - np.abs(lam)
        roots = [brentq(slack, xs[j], xs[j + 1], xtol=1e-15, rtol=4 * np.finfo(float).eps)
                 for j in np.nonzero((g[:-1] > 0.0) & (g[1:] <= 0.0))[0][:1]]
    else:
        g = mode * np.concatenate([[sd0], SD, [sd0 + float(np.sum(c_sd))]])  # T_j(1) = 1
        roots = _roots(mode * c_sd + np.eye(len(c_sd))[0] * mode * sd0, xs, g, direction=-1)
    hit = bool(roots)
    t_end = a + half * (roots[0] + 1.0) if hit else b
    # the extra states: the works and ∫|Ṙ³| as series; ∫|Ẋ³|, ∫|Ẏ³| split where Ẋ³, Ẏ³ change sign
    ints = antiderivative(c, half)
    C = _padded(c_s, c_sd, *ints[:, : nw + 1].T, *ints[:, nw + 1:].T)
    absolute = {}
    for j in (1, 2):
        cv = c[:, nw + j]
        vals = np.concatenate([[basis(-1.0, len(cv)) @ cv], v[:, j - 1], [np.sum(cv)]])
        # where |v| is split matters to second order only (an error δ moves ∫|v| by ~|v̇| δ²)
        breaks = np.array([-1.0, *_roots(cv, xs, vals, xtol=1e-9), 1.0])
        signs = np.sign(basis(0.5 * (breaks[:-1] + breaks[1:]), len(cv)) @ cv)
        absolute[nw + j] = (2 + nw + j, breaks, signs)
    x0 = np.array(y[k:], dtype=float)
    path = QuadraturePath(pose, a, b, s0, sd0, C, list(range(nw + 1)), absolute, x0)
    y_end = path(np.array([t_end]))[:, 0]
    return float(t_end), (path if dense else None), y_end, hit
