"""The thesis's three-body skier (ch. 4–5), built from ``skilib.engine``: parameters, model,
push-off, stroke integration and runs."""
from .model import ROTATIONS, SIDES, SkierModel, SkierParams, push_plane_direction, ski_heading
from .simulate import SimResult, simulate_phase, simulate_run, stand_in_push_force

__all__ = ["ROTATIONS", "SIDES", "SkierModel", "SkierParams", "push_plane_direction", "ski_heading",
           "SimResult", "simulate_phase", "simulate_run", "stand_in_push_force"]
