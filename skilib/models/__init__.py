"""The skating models, one subpackage each, all built from ``skilib.engine`` and run by the
stroke machinery they share (``skilib.strokes``):

- ``thesis``: the thesis's three-body skier (Bruzzo 2012, ch. 4–5): a prescribed push-off force
  along a leg whose length and angle are prescribed (eqs. 187–188), the ski on a straight line;
- ``free``: the free skater: a knife-edge ski that steers and a centre of mass placed relative
  to it, the leg force an output;
- ``edge``: the edged skater: a leg that only pushes, along itself, from the ski's edge, the body
  an inverted pendulum whose lean is free, friction on the snow's real load.

A new model is one more subpackage here.  It supplies its multibody system of one stroke (a
class with what ``skilib.strokes.stroke.Stroke`` reads: ``nq``, ``cm``, ``extra_states``,
``system(mode)``, ``rows``, ``work_terms``, the ski's speed and acceleration, the friction
limit, the frame's columns), its touch-down and its outputs as a ``skilib.strokes.run.Skating``,
and its parameters; the run loop, the periodic stroke, the frames and summaries are the shared
ones.  Its ``technique`` module is the model as the optimizer (``skilib.studies.optimum``) sees
it: the technique parameters with their human bounds, the admissibility margins and the
parameters it starts from, under the same names in every model (``PARAMS``,
``TECHNIQUE_BOUNDS``, ``PARAMETER_BOUNDS``, ``default_params``, ``SET_BY_OPTIMIZER``,
``option_functions``, ``MARGINS``, ``margins``, ``inequalities``).
"""
from . import edge, free, thesis

__all__ = ["edge", "free", "thesis"]
