"""The package's layout holds: the engine stands alone, the models share the stroke machinery
instead of copying it, and every name has one home.

``skilib.engine`` knows nothing of skis and loads no pandas, Dask or SALib; the models, data and
studies subpackages (and the benchmarks and scripts) use only the engine's public names, so that
the engine can change inside without breaking its applications.  The static import graph of
``skilib`` (module level and inside functions) has no cycle, no module imports another's
underscore name, no module is only a list of imports (a package's ``__init__`` is its front
door and may be), and each public name is defined once and reachable from ``skilib`` and from
its subpackage."""
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "skilib" / "engine"
PACKAGE = ROOT / "skilib"


def _outside_engine():
    files = [p for p in PACKAGE.rglob("*.py") if ENGINE not in p.parents]
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
            "apps = sorted(m for m in sys.modules if m.startswith(('skilib.models', 'skilib.strokes', 'skilib.data', 'skilib.studies')))\n"
            "print(heavy, apps)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[] []", out


def test_the_engine_source_knows_nothing_of_skis():
    words = ("ski", "skier", "stroke", "push")
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in ENGINE.rglob("*.py")
            for i, line in enumerate(p.read_text().splitlines(), 1)
            if any(w in line.lower().replace("skilib", "") for w in words) and "import" in line]
    assert not hits, hits


# -- the import graph ---------------------------------------------------------------------------
def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str):
    """(line, imported module, imported names) of every import statement of module ``name``,
    at module level and inside functions; relative imports resolved."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name, ()
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            yield node.lineno, base, tuple(a.name for a in node.names)


def _graph() -> dict:
    """Module → the skilib modules it imports (a submodule where ``from pkg import sub`` names
    one, else the package's ``__init__``)."""
    edges = {}
    for name in MODULES:
        out = set()
        for _, mod, names in _imports(name):
            if not mod.startswith("skilib"):
                continue
            subs = [f"{mod}.{n}" for n in names if f"{mod}.{n}" in MODULES]
            out.update(subs)
            if len(subs) < len(names) or not names:
                out.add(mod)
        edges[name] = out - {name}
    return edges


def test_the_import_graph_has_no_cycle():
    graph = _graph()
    assert {"skilib.strokes.run", "skilib.models.thesis.run", "skilib.models.free.run"} <= set(graph)
    state, stack = {}, []

    def visit(m):  # depth-first search; a grey node met again closes a cycle
        state[m] = "grey"
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == "grey":
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(n):] + [n]))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = "black"

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_the_cycle_check_sees_a_cycle(tmp_path):
    """The search above on a made-up graph with a cycle through a function-level import."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}}
    state = {}

    def has_cycle(m):
        state[m] = "grey"
        for n in graph[m]:
            if state.get(n) == "grey" or (n not in state and has_cycle(n)):
                return True
        state[m] = "black"
        return False

    assert has_cycle("a")
    # and the real import reader finds imports inside functions
    assert ("skilib.models.thesis.c3d", ("write_run",)) in [(m, n) for _, m, n in _imports("skilib.models.thesis.model")]


def test_no_module_imports_an_underscore_name_of_another():
    bad = [f"{name}:{line} imports {n} from {mod}" for name in MODULES for line, mod, names in _imports(name)
           if mod.startswith("skilib") for n in names if n.startswith("_") and not n.startswith("__")]
    assert not bad, "\n".join(bad)


def test_no_module_is_only_imports():
    """A module whose only statements are imports (besides a docstring and ``__all__``) is a
    re-export shim: every name would have two homes.  Packages' ``__init__`` files are exempt."""
    shims = []
    for name, path in MODULES.items():
        if path.name == "__init__.py":
            continue
        body = ast.parse(path.read_text()).body
        rest = [n for n in body if not isinstance(n, (ast.Import, ast.ImportFrom))
                and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
                and not (isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in n.targets))]
        if not rest:
            shims.append(name)
    assert not shims, shims


def test_the_engine_imports_nothing_else_of_skilib():
    bad = [f"{name}:{line} imports {mod}" for name in MODULES if name.startswith("skilib.engine")
           for line, mod, _ in _imports(name) if mod.startswith("skilib") and not mod.startswith("skilib.engine")]
    assert not bad, bad


def _defined(path: Path) -> set:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_every_public_name_has_one_home():
    """A module's ``__all__`` lists only what the module defines (no re-exports outside the
    packages' ``__init__``), and no two modules define the same public name."""
    import importlib

    homes = {}
    for name, path in MODULES.items():
        if path.name == "__init__.py":
            continue
        mod = importlib.import_module(name)
        for n in getattr(mod, "__all__", ()):
            assert n in _defined(path), f"{name}.__all__ lists {n!r}, which it does not define"
            homes.setdefault(n, []).append(name)
    twice = {n: m for n, m in homes.items() if len(m) > 1}
    assert not twice, twice


def test_subpackage_names_are_reachable_from_skilib():
    """Every name a subpackage exports (its ``__all__`` without the modules) is the same object
    from ``skilib`` and from the subpackage, and ``skilib`` lists exactly those."""
    import importlib
    import types

    import skilib

    for package, names in skilib._NAMES.items():
        pkg = importlib.import_module(package)
        exported = [n for n in pkg.__all__ if not isinstance(getattr(pkg, n), types.ModuleType)]
        assert sorted(exported) == sorted(names), package
        for n in names:
            assert getattr(skilib, n) is getattr(pkg, n), (package, n)


def test_the_models_are_folders_on_the_shared_machinery():
    """One folder per model under ``skilib/models``, each running its strokes through the shared
    loop (``skilib.strokes.run``) and finding its periodic stroke through ``skilib.strokes.periodic``."""
    models = sorted(p.name for p in (PACKAGE / "models").iterdir() if (p / "__init__.py").is_file())
    assert models == ["edge", "free", "thesis"]
    graph = _graph()
    for m in models:
        assert "skilib.strokes.run" in graph[f"skilib.models.{m}.run"], m
        assert "skilib.strokes.periodic" in graph[f"skilib.models.{m}.steady"], m
