"""The edged skater (beyond the thesis): a leg that only pushes, along itself, from the ski's
edge; the body an inverted pendulum whose lean is free (book: The edged skater).  Its module
``technique`` is the skater as the optimizer sees it (``EDGE_BOUNDS``, ``EDGE_MARGINS``)."""
from .balance import BalanceRule, hof_rule, touchdown_measure
from .model import EDGE_WORK_TERMS, EdgeSkaterModel, SkiStopped
from .params import EDGE_PARAMETER_BOUNDS, EdgeSkaterParams
from .run import SkaterFalls, simulate_edge
from .steady import EdgeSteadyState, edge_steady_state

__all__ = ["EdgeSkaterParams", "EdgeSkaterModel", "simulate_edge", "SkaterFalls", "edge_steady_state", "EdgeSteadyState", "SkiStopped", "EDGE_WORK_TERMS",
           "EDGE_PARAMETER_BOUNDS",
           "BalanceRule", "hof_rule", "touchdown_measure"]
