"""Optimal control with exact derivatives (the book's chapter "Optimal control"): the engine's
equations as CasADi functions (``skilib.engine.codegen.casadi_terms``), their Hermite–Simpson
collocation (``collocation``) and the periodic stroke of a skating model as one nonlinear
program solved by IPOPT (``stroke``).

CasADi is an optional dependency: ``pip install 'skilib[ocp]'``.  Importing this package does
not import it; building a problem does.
"""
from .collocation import HermiteSimpson
from .stroke import IPOPT_OPTIONS, StrokeSolution, collocate_stroke

__all__ = ["HermiteSimpson", "collocate_stroke", "StrokeSolution", "IPOPT_OPTIONS"]
