"""Controls: a driver's law or a force's magnitude left open, to be chosen by an optimal-control
transcription (``skilib.ocp``).

A system built with a ``ControlLaw`` in place of a driver law (or a ``ControlSignal`` in place
of a force's magnitude) is a system whose equations of motion (eq. 101) hold for *any* value of
that law: it has no numbers of its own.  The engine's trace (``skilib.engine.codegen``) writes
each as symbols — a law's value and its two derivatives (f, ḟ, f̈), a signal's value — which the
CasADi functions of the system take as their input ``u`` (``casadi_terms``), in the order of
the names given there.  Every use of one control in a system (a driver's law and a friction
that reads the same law's f̈, say) becomes the same symbols.

Outside a transcription a control has no value: calling it with a number raises a ValueError
naming it, and a generated C or numba kernel refuses a system that holds one
(``skilib.engine.codegen.compile_system``).
"""
from __future__ import annotations

from .timefunctions import TimeFunction

__all__ = ["ControlLaw", "ControlSignal", "is_control_symbol", "control_symbols"]

#: the prefix of every control's symbol name in a trace (a name no other symbol has)
PREFIX = "u:"


def _check_name(name) -> str:
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name: a control's name must be an identifier, got {name!r}")
    return name


def control_symbols(name: str, size: int) -> tuple:
    """The sympy symbols of control ``name``: its value (size 1) or (f, ḟ, f̈) (size 3)."""
    import sympy as sp

    return tuple(sp.Symbol(f"{PREFIX}{name}:{k}") for k in range(size))


def is_control_symbol(symbol) -> bool:
    """Whether a sympy symbol of a trace is a control's."""
    return str(symbol).startswith(PREFIX)


class ControlLaw(TimeFunction):
    """A scalar driver law f(τ) whose value and two derivatives (f, ḟ, f̈) are chosen by an
    optimal-control transcription (the module's docstring)."""

    SIZE = 3

    def __init__(self, name: str):
        self.name = _check_name(name)

    def __call__(self, t):
        if isinstance(t, (int, float)) or hasattr(t, "dtype"):
            raise ValueError(f"{self.name}: a control law has no value outside an optimal-control transcription "
                             f"(asked at t = {t!r}); give the system a law of time to simulate it")
        return control_symbols(self.name, 3)

    def __repr__(self):
        return f"ControlLaw({self.name!r})"


class ControlSignal:
    """A scalar force magnitude chosen by an optimal-control transcription (a ``LineForce`` or
    ``AxisForce`` magnitude; the module's docstring)."""

    SIZE = 1

    def __init__(self, name: str):
        self.name = _check_name(name)

    def __call__(self, t):
        raise ValueError(f"{self.name}: a control signal has no value outside an optimal-control transcription "
                         f"(asked at t = {t!r}); give the force a magnitude of time to simulate it")

    def symbolic(self, t):
        return control_symbols(self.name, 1)[0]

    def __repr__(self):
        return f"ControlSignal({self.name!r})"
