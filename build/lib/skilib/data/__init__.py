"""Force-plate data: loading and validation (``forcedata``), the push-offs and their fitted
force (``push``, re-exported by ``forcedata``) and the Fourier fit of thesis eq. 102
(``fourier``)."""
from . import forcedata, fourier, push

__all__ = ["forcedata", "fourier", "push"]
