"""environment.yml (conda) and pyproject.toml (pip) list the same dependencies.

A dependency may sit in environment.yml's conda list or in its ``pip:`` sub-list (for
packages installed from PyPI); either way it must be the same requirement as in pyproject.
"""
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _norm(spec: str) -> str:
    return re.sub(r"\s+", "", spec).lower().replace("_", "-")


def environment_yml_requirements(text: str) -> tuple[set, set]:
    """(conda requirements, pip requirements) of environment.yml's dependencies."""
    conda, pip, section, in_pip = set(), set(), None, False
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if re.match(r"^\S", line):
            section, in_pip = line.split(":")[0], False
            continue
        if section != "dependencies":
            continue
        top = re.match(r"^\s{2}- (.+)$", line)
        if top:
            in_pip = top.group(1).strip() == "pip:"
            if not in_pip and not top.group(1).startswith(("python", "pip")):
                conda.add(_norm(top.group(1)))
            continue
        sub = re.match(r"^\s{4,}- (.+)$", line)
        if in_pip and sub and not sub.group(1).startswith("-e"):
            pip.add(_norm(sub.group(1)))
    return conda, pip


def test_environment_yml_matches_pyproject():
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pip_deps = {_norm(d) for d in py["dependencies"]}
    for extra in py.get("optional-dependencies", {}).values():
        pip_deps |= {_norm(d) for d in extra}
    conda, pip = environment_yml_requirements((ROOT / "environment.yml").read_text())
    assert not conda & pip, f"listed twice in environment.yml: {conda & pip}"
    env = conda | pip
    assert pip_deps == env, f"only in pyproject: {pip_deps - env}; only in environment.yml: {env - pip_deps}"


def test_parser_sees_both_lists():
    text = "name: x\ndependencies:\n  - python>=3.10\n  - numpy>=1\n  - pip\n  - pip:\n      # c\n      - foo>=2\n      - -e .\n"
    assert environment_yml_requirements(text) == ({"numpy>=1"}, {"foo>=2"})
