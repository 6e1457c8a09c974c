"""What a skating technique costs a skier and what the muscles allow: the physiological cost
of a stroke (``cost``) and what the leg can push at the speed it extends (``force_velocity``)."""
from .cost import (DOKE_2005, FORCE_RATE_COST, PHYSIOLOGY_BOUNDS, PHYSIOLOGY_COLUMNS, PHYSIOLOGY_DEFAULTS,
                   RESTING_RATE, SWING_A, SWING_B, force_developed, physiological_cost, swing_power, swing_fit)
from .force_velocity import (FORCE_VELOCITY_BOUNDS, HILL_CURVATURE, ForceVelocityLimit, ForceVelocityViolation,
                             check_force_velocity, force_velocity_margin)

__all__ = ["DOKE_2005", "FORCE_RATE_COST", "PHYSIOLOGY_BOUNDS", "PHYSIOLOGY_COLUMNS", "PHYSIOLOGY_DEFAULTS",
           "RESTING_RATE", "SWING_A", "SWING_B", "force_developed", "physiological_cost", "swing_power", "swing_fit",
           "FORCE_VELOCITY_BOUNDS", "HILL_CURVATURE", "ForceVelocityLimit", "ForceVelocityViolation",
           "check_force_velocity", "force_velocity_margin"]
