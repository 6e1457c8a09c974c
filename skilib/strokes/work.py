"""Work–energy bookkeeping of a stroke of any skating model, keyed by name.

The works a model names (the push-off, friction, gravity, drag, the joints, the drivers) are integrated
as extra states of the ODE, as are ∫|Ṙ³| dτ (for the mean speed) and ∫|Ẋ³|, ∫|Ẏ³| dτ.  Each
work rate is a sum of powers that one ``Evaluation`` of eq. 101 already holds (Q_f·q̇ of a
force, −λ_r (Cq q̇)_r of a constraint row), so a fixed matrix maps ``Evaluation.powers`` to
the rates.  Since q̇ᵀQv = −½q̇ᵀṀq̇ for a Lagrangian system, d(KE)/dt is the sum of these
powers, which the tests check.

The cost of work.  A muscle does positive work at an efficiency η⁺ and absorbs negative work at
a cost |W⁻|/η⁻, so a model may name *actuators* (drivers among its works) whose positive and
negative parts W⁺ = ∫max(P, 0) dτ and W⁻ = ∫min(P, 0) dτ are integrated as extra states too
(``signed_names``: ``work_<actuator>_positive``, ``work_<actuator>_negative``, appended after
every other extra state, so no other state moves).  They are not linear in the powers: their
rates max(r, 0), min(r, 0) of the work's rate r have a kink where r changes sign, which an
explicit Runge–Kutta step integrates only to O(h²).  ``signed_method`` makes the step exact there
without touching the steps: the error control (and the first step) sees only the other states,
so the steps, and every other state, are bit for bit those of a run without the signed works;
a step over which the rate's stages change sign splits the net work's increment at the zeros
of its interpolant's derivative (the sign changes of r), so W⁺ and W⁻ are exact to the
integrator's tolerance, and W⁺ + W⁻ = W to rounding.  (An implicit method integrates the two
rates as plain states: its error control sees the kink and steps through it.)  ``cost_of_work``
turns them into the metabolic power Σ(W⁺/η⁺ + |W⁻|/η⁻)/T and the gross efficiency.
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import DOP853, RK23, RK45
from scipy.integrate._ivp.base import DenseOutput
from scipy.integrate._ivp.common import select_initial_step

__all__ = ["INTEGRALS", "extra_states", "WorkLedger", "signed_names", "signed_method", "cost_of_work",
           "COST_COLUMNS"]

#: time integrals of the CM's speed and of |v_x|, |v_y| [m]
INTEGRALS = ("int_speed", "int_abs_vx", "int_abs_vy")


def signed_names(actuators) -> tuple:
    """``work_<a>_positive``, ``work_<a>_negative`` for each actuator's work ``work_<a>``."""
    return tuple(f"{a}_{part}" for a in actuators for part in ("positive", "negative"))


def extra_states(work_terms, actuators=()) -> tuple:
    """Every extra state after q, q̇: the works, the integrals, projection_energy (zero rate;
    it takes the projections' jumps) and, last, the positive and negative parts of the works
    of ``actuators`` (names among ``work_terms``; ``signed_names``)."""
    unknown = [a for a in actuators if a not in tuple(work_terms)]
    if unknown:
        raise ValueError(f"actuators: {unknown} are not among the works {tuple(work_terms)}")
    return tuple(work_terms) + INTEGRALS + ("projection_energy",) + signed_names(actuators)


#: the cost-of-work columns of a strokes table, after each actuator's W⁺ and W⁻ (``cost_of_work``)
COST_COLUMNS = ("work_positive", "work_negative", "mean_positive_power", "metabolic_power", "gross_efficiency")


def cost_of_work(works: dict, actuators, T: float, eta_positive: float, eta_negative: float) -> dict:
    """The cost of a stroke's work from ``works`` (holding ``work_<a>_positive`` and
    ``work_<a>_negative`` [J] of each actuator ``work_<a>``): each actuator's W⁺ and W⁻, their
    sums work_positive ΣW⁺ and work_negative ΣW⁻ [J], mean_positive_power ΣW⁺/T [W],
    metabolic_power Σ(W⁺/η⁺ + |W⁻|/η⁻)/T [W] and gross_efficiency (ΣW⁺ + ΣW⁻)/(P_met T), the
    actuators' net work over the metabolic energy (NaN where no work is done)."""
    out, pos, neg, met = {}, 0.0, 0.0, 0.0
    for a in actuators:
        wp, wn = float(works[f"{a}_positive"]), float(works[f"{a}_negative"])
        out[f"{a}_positive"], out[f"{a}_negative"] = wp, wn
        pos, neg = pos + wp, neg + wn
        met += wp / eta_positive + abs(wn) / eta_negative
    out.update(work_positive=pos, work_negative=neg, mean_positive_power=pos / T, metabolic_power=met / T,
               gross_efficiency=(pos + neg) / met if met > 0 else float("nan"))
    return out



class WorkLedger:
    """The matrix W with (work rates in the order of ``terms``) = W @ Evaluation.powers.

    terms : {work name: (force names, row slices, ct)}: the work's rate is the sum of those
        forces' powers Q_f·q̇ and of those rows' powers −λ_r (Cq q̇)_r (with ``ct``, of their
        λ_r Ct_r instead).  force_names, nc : the evaluation's forces and number of rows.
    """

    def __init__(self, terms: dict, force_names, nc: int):
        nf = len(force_names)
        self.names = tuple(terms)
        self.W = np.zeros((len(terms), nf + 2 * nc))
        for i, (forces, row_slices, ct) in enumerate(terms.values()):
            for f in forces:
                if f in force_names:
                    self.W[i, list(force_names).index(f)] = 1.0
            base = nf + nc if ct else nf
            for r in row_slices:
                self.W[i, base + r.start: base + r.stop] = 1.0

    def rates(self, evaluation) -> np.ndarray:
        return self.W @ evaluation.powers


_RK = {"RK45": RK45, "RK23": RK23, "DOP853": DOP853}


class _SignedDense(DenseOutput):
    """A step's interpolant whose signed-work components are the exact split of the net work's
    interpolant at the zeros of its derivative (``pieces``: (j, jp, poly, breaks) per work)."""

    def __init__(self, base, pieces, y_old):
        super().__init__(base.t_old, base.t)
        self.base, self.pieces, self.y_old = base, pieces, y_old

    def _call_impl(self, t):
        y = np.array(self.base(t), dtype=float)
        x = (np.asarray(t, dtype=float) - self.t_old) / (self.t - self.t_old)
        for j, jp, poly, breaks in self.pieces:
            wp, wn = _split(poly, breaks, x)
            y[jp] = self.y_old[jp] + wp
            y[jp + 1] = self.y_old[jp + 1] + wn
        return y


def _split(poly, breaks, x):
    """(∫max, ∫min) of the rate of the net work poly(x) over [0, x], split at ``breaks``."""
    x = np.asarray(x, dtype=float)
    wp, wn = np.zeros_like(x), np.zeros_like(x)
    for a, b in zip(breaks[:-1], breaks[1:]):
        d = poly(np.clip(x, a, b)) - poly(a)
        wp, wn = wp + np.maximum(d, 0.0), wn + np.minimum(d, 0.0)
    return wp, wn


def signed_method(method: str, n_checked: int, pairs):
    """The explicit Runge–Kutta class ``method`` ('RK45', 'RK23', 'DOP853') whose steps see only
    the first ``n_checked`` components of y and whose signed works are exact across a sign
    change (the module docstring).  ``pairs``: (j, jp) per actuator, j its net work's index in
    y, jp and jp + 1 those of its positive and negative parts.

    DOP853's error control would see the kink of max(r, 0) and step through it with small
    steps (and other steps than a run without the signed works); here the steps are the
    unsigned run's, bit for bit, and a step whose stage rates r_i of a work change sign is split:
    its net work's dense interpolant w(x) (degree ≤ 7, fitted exactly through 9 points) has its
    derivative's real zeros in (0, 1) as breaks, and W⁺, W⁻ take the positive and negative
    increments of w between them (a root placed δ off costs ~|ṙ| δ²/2).  The step's interpolant
    gives the same split at any τ inside it (events, the frame).  Other methods are returned as
    they are (their error control sees the kink)."""
    base = _RK.get(method)
    if base is None or not pairs:
        return method
    pairs = tuple((int(j), int(jp)) for j, jp in pairs)
    nodes = 0.5 - 0.5 * np.cos(np.pi * np.arange(9) / 8)  # Chebyshev–Lobatto on [0, 1]

    class Signed(base):
        def __init__(self, fun, t0, y0, t_bound, first_step=None, **kw):
            super().__init__(fun, t0, y0, t_bound, first_step=first_step, **kw)
            self._dense = None
            if first_step is None and n_checked < self.n:
                m, tail = n_checked, np.array(self.y[n_checked:])
                self.h_abs = select_initial_step(lambda t, y: self.fun(t, np.concatenate([y, tail]))[:m], self.t,
                                                 self.y[:m], t_bound, self.max_step, self.f[:m], self.direction,
                                                 self.error_estimator_order, self.rtol, self.atol)

        def _estimate_error_norm(self, K, h, scale):
            return super()._estimate_error_norm(np.ascontiguousarray(K[:, :n_checked]), h, scale[:n_checked])

        def _step_impl(self):
            self._dense, t = None, self.t
            ok, message = super()._step_impl()
            if ok:
                self.t_old = t  # as ``OdeSolver.step`` sets it after this returns
                self._split_step()
            return ok, message

        def _split_step(self):
            K, pieces, dense = self.K, [], None
            for j, jp in pairs:
                r = K[:, j]
                if r.min() >= 0.0 or r.max() <= 0.0:
                    continue  # no sign change: max(r_i, 0), min(r_i, 0) are the stages' own, exact
                if dense is None:
                    dense = super()._dense_output_impl()
                h = self.t - self.t_old
                w = np.array([dense(self.t_old + x * h)[j] for x in nodes[1:-1]])
                w = np.concatenate([[self.y_old[j]], w, [self.y[j]]])
                poly = np.polynomial.Polynomial.fit(nodes, w, 8, domain=[0.0, 1.0], window=[0.0, 1.0])
                roots = poly.deriv().roots()
                roots = np.sort(roots.real[(np.abs(roots.imag) <= 1e-9) & (roots.real > 0.0) & (roots.real < 1.0)])
                breaks = np.concatenate([[0.0], roots, [1.0]])
                wp, wn = _split(poly, breaks, 1.0)
                y = np.array(self.y)
                y[jp], y[jp + 1] = self.y_old[jp] + float(wp), self.y_old[jp + 1] + float(wn)
                self.y = y
                pieces.append((j, jp, poly, breaks))
            if pieces:
                self._dense = _SignedDense(dense, pieces, np.array(self.y_old))

        def _dense_output_impl(self):
            return self._dense if self._dense is not None else super()._dense_output_impl()

    Signed.__name__ = f"Signed{base.__name__}"
    return Signed
