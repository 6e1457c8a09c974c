"""What a skating technique costs a skier and what the muscles allow: the physiological cost
of a stroke (``cost``)."""
from .cost import (DOKE_2005, FORCE_RATE_COST, PHYSIOLOGY_BOUNDS, PHYSIOLOGY_COLUMNS, PHYSIOLOGY_DEFAULTS,
                   RESTING_RATE, SWING_A, SWING_B, force_developed, physiological_cost, swing_power, swing_fit)

__all__ = ["DOKE_2005", "FORCE_RATE_COST", "PHYSIOLOGY_BOUNDS", "PHYSIOLOGY_COLUMNS", "PHYSIOLOGY_DEFAULTS",
           "RESTING_RATE", "SWING_A", "SWING_B", "force_developed", "physiological_cost", "swing_power", "swing_fit"]
