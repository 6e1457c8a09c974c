"""Force-plate data: loading and validation (``forcedata``) and the Fourier fit of thesis
eq. 102 (``fourier``)."""
from . import forcedata, fourier

__all__ = ["forcedata", "fourier"]
