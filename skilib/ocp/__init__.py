"""Optimal control with exact derivatives (the book's chapter "Optimal control"): the engine's
equations as CasADi functions (``skilib.engine.codegen.casadi_terms``), their Hermite–Simpson
collocation (``collocation``), the periodic stroke of a skating model as one nonlinear
program solved by IPOPT (``stroke``: the laws' parameters free) and the stroke with its laws
free as trajectories (``control``).

CasADi is an optional dependency: ``pip install 'skilib[ocp]'``.  Importing this package does
not import it; building a problem does.
"""
from .collocation import HermiteSimpson
from .control import ControlSolution, optimal_control
from .stroke import IPOPT_OPTIONS, StrokeSolution, collocate_stroke

__all__ = ["HermiteSimpson", "collocate_stroke", "StrokeSolution", "IPOPT_OPTIONS", "optimal_control",
           "ControlSolution"]
