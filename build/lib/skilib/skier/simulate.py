"""Runs of the thesis's skier (kept as a module path; the pieces live in ``skilib.skier``:
``run``, ``stroke``, ``frame``, ``work``, ``push``, ``result``)."""
from .push import STAND_IN_PEAK_BW, ScaledPush, stand_in_push_force  # noqa: F401
from .result import SimResult
from .run import simulate_phase, simulate_run
from .stroke import MAX_STEP_DIVISOR  # noqa: F401

__all__ = ["SimResult", "simulate_phase", "simulate_run", "stand_in_push_force"]
