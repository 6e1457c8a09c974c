"""The package's layout holds: the engine stands alone, and nothing outside it reaches into it.

``skilib.engine`` knows nothing of skis and loads no pandas, Dask or SALib; the skier, data and
studies subpackages (and the benchmarks and scripts) use only the engine's public names, so that
the engine can change inside without breaking its applications."""
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "skilib" / "engine"
# the old module paths: one-line re-exports that warn
SHIMS = {"rotation", "kinematics", "bodies", "timefunctions", "constraints", "forces", "errors", "system",
         "solver", "codegen", "simulate", "forcedata", "fourier", "sweeps", "sensitivity"}


def _outside_engine():
    files = [p for p in (ROOT / "skilib").rglob("*.py")
             if ENGINE not in p.parents and not (p.parent == ROOT / "skilib" and p.stem in SHIMS)]
    return files + sorted((ROOT / "benchmarks").glob("*.py")) + sorted((ROOT / "scripts").glob("*.py"))


def _engine_private_names() -> set:
    """Every underscore name the engine defines: module-level names and attributes set on self."""
    names = set()
    for p in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _private_uses(path: Path, private: set):
    """Underscore names imported from the engine, and attributes `x._name` (x not self/cls)
    whose name is one of the engine's private names."""
    tree = ast.parse(path.read_text(), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and "engine" in node.module.split("."):
            out += [f"{path.name}:{node.lineno} imports {a.name}" for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")]
        if isinstance(node, ast.Attribute) and node.attr in private:
            base = node.value
            if not (isinstance(base, ast.Name) and base.id in ("self", "cls")):
                out.append(f"{path.name}:{node.lineno} reads .{node.attr}")
    return out


def test_nothing_outside_the_engine_touches_its_private_names():
    files = _outside_engine()
    assert len(files) > 10  # the walk found the package
    private = _engine_private_names()
    assert {"_solve", "_pw", "_gimbal_checked", "_slices"} <= private  # the walk sees the engine
    bad = [u for p in files for u in _private_uses(p, private)]
    assert not bad, "private engine names used outside skilib.engine:\n" + "\n".join(bad)


def test_the_engine_imports_no_application_and_no_heavy_dependency():
    code = ("import sys, skilib.engine\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'dask', 'distributed', 'SALib', 'sympy'})\n"
            "apps = sorted(m for m in sys.modules if m.startswith(('skilib.skier', 'skilib.data', 'skilib.studies')))\n"
            "print(heavy, apps)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[] []", out


def test_the_engine_source_knows_nothing_of_skis():
    words = ("ski", "skier", "stroke", "push")
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in ENGINE.rglob("*.py")
            for i, line in enumerate(p.read_text().splitlines(), 1)
            if any(w in line.lower().replace("skilib", "") for w in words) and "import" in line]
    assert not hits, hits


def test_old_module_paths_still_work_and_warn():
    code = ("import warnings\nwarnings.simplefilter('error')\nimport skilib\n"
            "from skilib.engine.solver import solve_dynamics\n"
            "try:\n    import skilib.solver\nexcept DeprecationWarning as w:\n    print('warned', w)\n"
            "warnings.simplefilter('ignore')\nimport skilib.solver, skilib.simulate, skilib.fourier\n"
            "print(skilib.solver.solve_dynamics is solve_dynamics, skilib.simulate.simulate_run is skilib.simulate_run,"
            " skilib.fourier.fit is skilib.data.fourier.fit)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "warned skilib.solver is deprecated; import skilib.engine.solver" in out
    assert out.strip().endswith("True True True")
