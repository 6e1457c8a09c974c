"""One point's derivative functions compiled to C once per machine (``skilib.ocp.compiled``): the
compiled function gives CasADi's virtual machine's numbers bit for bit (alone, mapped over points,
and as a whole program's solution), a library loaded from the cache is a freshly built one's, and
a damaged or stale library is rebuilt with a warning, never loaded."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import skilib as sk
from skilib.engine.codegen import c_compiler

pytestmark = pytest.mark.skipif(c_compiler() is None, reason="no C compiler")
ca = pytest.importorskip("casadi")

ROOT = Path(__file__).resolve().parent.parent

# a one-point function like the programs' (a Hessian and a gradient of ωᵀF(w)), its numbers printed
_PROBE = textwrap.dedent("""
    import json, warnings
    warnings.simplefilter("always")
    import casadi as ca, numpy as np
    from skilib.ocp.compiled import compiled_function
    w, om = ca.SX.sym("w", 3), ca.SX.sym("om", 2)
    F = ca.vertcat(ca.sin(w[0] * w[1]) + w[2] ** 3, ca.exp(w[2]) * w[0] / (1 + w[1] ** 2))
    H, g = ca.hessian(ca.dot(om, F), w)
    f = compiled_function(ca, ca.Function("point_probe", [w, om], [H, g]))
    out = f.map(4)(np.arange(12.0).reshape(3, 4) / 7 - 0.5, np.arange(8.0).reshape(2, 4) / 3 - 1)
    print(json.dumps([f.class_name()] + [np.asarray(v.full()).ravel().tolist() for v in out]))
""")


def _probe(cache):
    env = {**os.environ, "SKILIB_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=600)


def _point_function():
    w, om = ca.SX.sym("w", 3), ca.SX.sym("om", 2)
    F = ca.vertcat(ca.sin(w[0] * w[1]) + w[2] ** 3, ca.exp(w[2]) * w[0] / (1 + w[1] ** 2))
    H, g = ca.hessian(ca.dot(om, F), w)
    return ca.Function("point_probe", [w, om], [H, g])


def test_a_compiled_point_function_is_the_virtual_machine_s_bit_for_bit(tmp_path, monkeypatch):
    """The generated C (the same operations in the same order, no -ffast-math) against the SX
    function it was generated from: equal bits at 200 random points, one by one and mapped."""
    from skilib.ocp.compiled import compiled_function

    monkeypatch.setenv("SKILIB_CACHE_DIR", str(tmp_path))
    fn = _point_function()
    fast = compiled_function(ca, fn)
    assert fast.class_name() != fn.class_name() and fast.name() == fn.name()
    assert [fast.sparsity_out(i) == fn.sparsity_out(i) for i in range(2)] == [True, True]
    rng = np.random.default_rng(7)
    W, OM = rng.standard_normal((3, 200)), rng.standard_normal((2, 200))
    for a, b in zip(fast.map(200)(W, OM), fn.map(200)(W, OM)):
        assert np.array_equal(a.full(), b.full())
    for k in range(0, 200, 37):
        for a, b in zip(fast(W[:, k], OM[:, k]), fn(W[:, k], OM[:, k])):
            assert np.array_equal(a.full(), b.full())
    monkeypatch.setattr("skilib.ocp.compiled.COMPILED", False)
    assert compiled_function(ca, fn) is fn  # the reference: the virtual machine


def test_a_compiler_that_fails_leaves_the_virtual_machine_with_a_warning(tmp_path, monkeypatch):
    """CC=/nonexistent/cc with an empty cache: the function is not compiled, a
    ``BackendFallbackWarning`` names the compiler, and the SX function itself is returned."""
    from skilib.engine.codegen.kernel import BackendFallbackWarning
    from skilib.ocp import compiled

    monkeypatch.setenv("SKILIB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CC", "/nonexistent/cc")
    monkeypatch.setattr(compiled, "_LOADED", {})
    fn = _point_function()
    with pytest.warns(BackendFallbackWarning, match=r"point_probe: not compiled .*/nonexistent/cc"):
        assert compiled.compiled_function(ca, fn) is fn


def test_a_program_with_compiled_point_functions_solves_to_the_same_bits(monkeypatch):
    """The free skater's fastest stroke for 200 W on 12 intervals, its Jacobian and Hessian from
    compiled point functions and from the virtual machine (two programs: the switch is in the
    program's key): the same iterations, the same solution bit for bit."""
    from skilib.models.free.collocation import FreeStroke
    from skilib.ocp import collocate_stroke
    from skilib.studies.optimum import FREE_BOUNDS

    solved = {}
    for on in (True, False):
        monkeypatch.setattr("skilib.ocp.compiled.COMPILED", on)
        s = collocate_stroke(FreeStroke(), bounds=FREE_BOUNDS, power=200.0, nodes=12, max_nodes=12)
        solved[on] = s
    a, b = solved[True], solved[False]
    assert a.iterations == b.iterations and a.x == b.x
    assert a.progress_speed == b.progress_speed and a.mean_power == b.mean_power


def test_a_cached_library_is_a_fresh_one_and_a_damaged_or_stale_one_is_rebuilt(tmp_path):
    """A fresh process compiles the function into the cache; the next loads it (no new file, no
    warning) with the same numbers bit for bit; a truncated library and metadata of another
    library (a stale one) are named in a ``KernelCacheWarning`` and rebuilt, never loaded (a
    truncated library mapped would kill the process), with the same numbers again."""
    first = _probe(tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    kind, *numbers = json.loads(first.stdout)
    assert kind != "SXFunction" and "KernelCacheWarning" not in first.stderr
    kernels = tmp_path / "kernels"
    so = next(kernels.glob("casadi_*.so"))
    files = sorted(p.name for p in kernels.iterdir())
    again = _probe(tmp_path)
    assert again.returncode == 0 and again.stdout == first.stdout and "Warning" not in again.stderr
    assert sorted(p.name for p in kernels.iterdir()) == files  # loaded, not compiled again
    meta = so.with_suffix(".json")
    damages = {"truncated": lambda: os.truncate(so, so.stat().st_size // 3),
               "stale": lambda: meta.write_text(json.dumps({**json.loads(meta.read_text()), "digest": "0" * 32}))}
    for what, damage in damages.items():
        damage()
        rebuilt = _probe(tmp_path)
        assert rebuilt.returncode == 0, (what, rebuilt.stderr[-2000:])
        assert rebuilt.stdout == first.stdout, what
        assert "KernelCacheWarning" in rebuilt.stderr and "rebuilding" in rebuilt.stderr, what
        assert str(so if what == "truncated" else meta) in rebuilt.stderr, what
        assert sorted(p.name for p in kernels.iterdir()) == files, what  # no temporary files left
    assert len(numbers) == 2 and all(np.all(np.isfinite(v)) for v in numbers)
