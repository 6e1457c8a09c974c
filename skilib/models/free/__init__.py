"""The free skater (book: The free skater): a knife-edge ski that steers, a centre of mass placed
relative to the ski by prescribed laws, and the leg force as an output; run by the stroke
machinery every skating model shares (``skilib.strokes``).

params (``FreeSkaterParams``, ``FreeLaws``: its parameters and laws), model
(``FreeSkaterModel``: the bodies, rows and forces of one stroke), run (``simulate_free``: strokes
joined at touch-down), steady (``free_steady_state``: the periodic stroke), technique (the free
skater as the optimizer sees it: ``FREE_BOUNDS``, ``snow_load_margin``).
"""
from . import model, params, run, steady, technique
from .model import FreeSkaterModel
from .params import FreeLaws, FreeSkaterParams, default_laws
from .run import simulate_free, touch_down
from .steady import FreeSteadyState, free_steady_state

__all__ = ["FreeSkaterParams", "FreeLaws", "default_laws", "FreeSkaterModel", "simulate_free", "touch_down",
           "FreeSteadyState", "free_steady_state", "model", "params", "run", "steady", "technique"]
