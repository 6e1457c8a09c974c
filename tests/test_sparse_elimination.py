"""The C kernels' sparse elimination of eq. 101 against the dense one it replaces.

The generated C driver solves eq. 101 by Gaussian elimination with partial pivoting.  ``eom``
visits only the entries its bit masks say may be non-zero (``eom_driver.c``); ``eom_dense``,
kept in every kernel as the reference, visits them all.  What ``eom`` skips are the updates
x − l·0 and x − 0·y, which leave x as it is, and it does the others in the same order, so the
two give the same accelerations, multipliers and powers bit for bit (zeros compare equal
whatever their sign).  Checked here at every state the Python side of four models' runs
solves (each output point of the frame, the touch-downs, the start conditions: 82 to 547
states a model, along real strokes): the thesis's skier, the free skater, the edged skater (the friction
on the snow's load: a column of the matrix) and the edged skater with poles.  A singular matrix
stops both at the same column (``test_codegen``'s singular system).
"""
import numpy as np
import pytest

import skilib as sk
from skilib.engine import codegen
from skilib.engine.codegen.compiled import CompiledSystem

pytestmark = pytest.mark.skipif(codegen.c_compiler() is None, reason="no C compiler: no C kernels")


@pytest.fixture
def compared(monkeypatch):
    """Every C solve of the test's runs done again by ``eom_dense`` on the same inputs, and
    compared: a namespace whose ``counts`` are {model: states compared}, the model being
    ``model`` when the state was solved."""
    from types import SimpleNamespace

    seen = SimpleNamespace(model=None, counts={})
    solve = CompiledSystem._solve

    def both(self, t, q, qd, alpha, beta):
        x = solve(self, t, q, qd, alpha, beta)
        if self.backend != "c":
            return x
        sparse = (x.copy(), self._pw.copy(), self._out["QF"].copy())
        code = self.kernel._lib.eom_dense_ctx(float(t), float(alpha), float(beta), self.kernel_context[1])
        dense = (self._rhs, self._pw, self._out["QF"])
        assert code == 0, f"eom_dense found eq. 101 singular at t = {t} where eom solved it"
        for a, b, what in zip(sparse, dense, ("q̈ and λ", "powers", "forces")):
            assert np.array_equal(a, b), f"{what} at t = {t}: largest difference {np.abs(a - b).max():.3g}"
        seen.counts[seen.model] = seen.counts.get(seen.model, 0) + 1
        return x

    monkeypatch.setattr(CompiledSystem, "_solve", both)
    # a frame's output points one by one through ``_solve`` (not in one call into C), so that each is compared
    monkeypatch.setattr(CompiledSystem, "evaluate_many", lambda self, *args, **kwargs: None)
    return seen


def test_the_sparse_elimination_is_the_dense_one_bit_for_bit(compared):
    runs = {
        "thesis skier": lambda: sk.simulate_run(strokes=2),
        "free skater": lambda: sk.simulate_free(strokes=2),
        "edged skater": lambda: sk.simulate_edge(strokes=1, v0=3.6785, lean_rate=-0.3436),
        "edged skater with poles": lambda: sk.simulate_edge(sk.EdgeSkaterParams(pole_force_max=150.0), strokes=1,
                                                            v0=3.6785, lean_rate=-0.3436),
    }
    for name, run in runs.items():
        compared.model = name
        run()
    seen = compared.counts
    assert set(seen) == set(runs) and min(seen.values()) >= 50, seen  # measured: 82 to 547 states a model

