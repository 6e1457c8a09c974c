"""The laws of a stroke that skating models share, and the sides.

A law is a time function of the time in the stroke τ ∈ [0, T] that returns its value and two
derivatives (``skilib.engine.timefunctions.TimeFunction``); any such function can stand in for
one built here.  These builders return the engine's Polynomial and Harmonic wherever they can,
so that code generation traces them with every number a kernel parameter:

- ``linear(a, b)``: a + b τ (the thesis's leg length, eq. 187, and leg angle, eq. 188);
- ``smooth_turn(start, change, T)``: start + change σ(τ/T) with the smoothstep
  σ(x) = 10x³ − 15x⁴ + 6x⁵ (σ(0) = 0, σ(1) = 1, σ′ = σ″ = 0 at both ends): a heading that
  steers from its touch-down value and is at rest at both ends;
- ``power_law(start, end, T, p)``: start + (end − start)(τ/T)^p (a lateral offset);
- ``dip(mean, depth, T)``: mean − depth sin²(πτ/T) (a height that sinks and rises once).

Strokes alternate between the sides ``SIDES``; a stroke on the left is the mirror image
(Y → −Y) of one on the right, so its lateral laws are ``mirrored`` with the side's sign.
"""
from __future__ import annotations

import math

from ..engine.timefunctions import Constant, FromCallables, Harmonic, Polynomial, TimeFunction
from ..engine.validation import check_choice, check_number

__all__ = ["SIDES", "side_of", "side_sign", "linear", "smooth_turn", "power_law", "dip", "mirrored", "Mirrored"]

#: the stance sides; the first stroke is on either, then they alternate
SIDES = ("right", "left")


def side_of(first_ski: str, k: int) -> str:
    """The side of stroke k (0-based) of a run that starts on ``first_ski``."""
    first_ski = check_choice("first_ski", first_ski, SIDES)
    k = check_number("k", k, integer=True, nonnegative=True)
    return SIDES[(SIDES.index(first_ski) + k) % 2]


def side_sign(side: str) -> float:
    """+1 on the right ski, −1 on the left (the sign of a mirrored lateral law)."""
    return 1.0 if side == "right" else -1.0


def linear(a: float, b: float) -> Polynomial:
    """a + b τ (a, b finite)."""
    a, b = check_number("a", a), check_number("b", b)
    return Polynomial([a, b])


def smooth_turn(start: float, change: float, T: float) -> Polynomial:
    """start + change σ(τ/T), σ(x) = 10x³ − 15x⁴ + 6x⁵, as a polynomial in τ (T > 0 [s])."""
    start, change = check_number("start", start), check_number("change", change)
    T = check_number("T", T, positive=True, unit="s")
    return Polynomial([start, 0.0, 0.0, 10 * change / T**3, -15 * change / T**4, 6 * change / T**5])


def power_law(start: float, end: float, T: float, p: float) -> TimeFunction:
    """start + (end − start)(τ/T)^p: a polynomial for an integer p ≥ 1, a constant (``end``) for
    p = 0, else a function with its derivatives (0 at τ = 0 where they would be singular);
    T > 0 [s], p >= 0."""
    start, end = check_number("start", start), check_number("end", end)
    T = check_number("T", T, positive=True, unit="s")
    p = check_number("p", p, nonnegative=True)
    h0, dh = start, end - start
    if float(p).is_integer():
        k = int(p)
        return Polynomial([h0] + [0.0] * (k - 1) + [dh / T**k]) if k >= 1 else Constant(h0 + dh)
    return FromCallables(lambda t: h0 + dh * (t / T) ** p,
                         lambda t: dh * p * t ** (p - 1) / T**p if t > 0 else 0.0,
                         lambda t: dh * p * (p - 1) * t ** (p - 2) / T**p if t > 0 else 0.0)


def dip(mean: float, depth: float, T: float) -> Harmonic:
    """mean − depth sin²(πτ/T) = (mean − depth/2) + (depth/2) cos(2πτ/T) (T > 0 [s])."""
    mean, depth = check_number("mean", mean), check_number("depth", depth)
    T = check_number("T", T, positive=True, unit="s")
    return Harmonic(mean - depth / 2, depth / 2, 2 * math.pi / T)


def mirrored(law, sign):
    """s·f(τ): a Polynomial or Constant stays one (so code generation traces it), any other
    law is wrapped in ``Mirrored``.  ``sign`` is +1 or −1 (``side_sign``)."""
    if check_number("sign", sign) not in (1.0, -1.0):
        raise ValueError(f"sign: must be +1 or -1 (the side's sign), got {sign!r}")
    if not callable(law):
        raise ValueError(f"law: must be a time function of τ giving f, ḟ, f̈, got {law!r}")
    if sign == 1.0:
        return law
    if isinstance(law, Polynomial):
        return Polynomial(sign * law.c, t0=law.t0)
    if isinstance(law, Constant):
        return Constant(sign * law.value)
    return Mirrored(law, sign)


class Mirrored(TimeFunction):
    """s·f(τ) for the side's sign s = ±1."""

    def __init__(self, law, sign):
        self.law, self.sign = law, float(sign)

    def __call__(self, t):
        f, fd, fdd = self.law(t)
        return self.sign * f, self.sign * fd, self.sign * fdd
