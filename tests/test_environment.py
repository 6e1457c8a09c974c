"""environment.yml (conda) and pyproject.toml (pip) list the same dependencies."""
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _norm(spec: str) -> str:
    return re.sub(r"\s+", "", spec).lower().replace("_", "-")


def test_environment_yml_matches_pyproject():
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pip_deps = {_norm(d) for d in py["dependencies"]}
    for extra in py.get("optional-dependencies", {}).values():
        pip_deps |= {_norm(d) for d in extra}
    conda, section = set(), None
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if re.match(r"^\S", line):
            section = line.split(":")[0]
            continue
        m = re.match(r"^\s{2}- ([A-Za-z0-9_.\-\[\]]+.*)$", line)
        if section == "dependencies" and m and not m.group(1).startswith(("python", "pip")):
            conda.add(_norm(m.group(1)))
    assert pip_deps == conda, f"only in pyproject: {pip_deps - conda}; only in environment.yml: {conda - pip_deps}"
