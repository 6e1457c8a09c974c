import numpy as np
import pytest


@pytest.fixture
def rng():
    """Fixed-seed generator: every random test input is reproducible."""
    return np.random.default_rng(20121122)
