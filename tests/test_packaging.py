"""The install files agree with each other."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[ ;]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_mirrors_pyproject():
    pp = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in pp["dependencies"]}
    for extra in pp["optional-dependencies"].values():
        wanted |= {_name(r) for r in extra}
    env = (ROOT / "environment.yml").read_text()
    listed = {_name(m) for m in re.findall(r"^\s+- ([A-Za-z][\w.-]*[^\n]*)$", env, re.M)}
    missing = wanted - listed - {"python", "pip"}
    assert not missing, f"environment.yml lacks {sorted(missing)}"
    assert '-e ".[lab,test]"' in env and "-c constraints.txt" in env


def test_every_dependency_is_pinned_in_constraints():
    pp = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = {_name(ln) for ln in (ROOT / "constraints.txt").read_text().splitlines() if "==" in ln}
    names = {_name(r) for r in pp["dependencies"]}
    for extra in pp["optional-dependencies"].values():
        names |= {_name(r) for r in extra}
    assert names <= pins, f"not pinned: {sorted(names - pins)}"


def test_ci_runs_make_test_and_nothing_else():
    run = (ROOT / ".ci" / "run").read_text()
    cmds = [ln.strip() for ln in run.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    assert cmds[-1] == "exec make test"
