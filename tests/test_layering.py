"""The layering of docs/ARCHITECTURE.md, enforced by import-linter's contracts in pyproject.toml.

tables at the bottom; models and traces on tables at most and independent of
each other; workloads, sweep, reproduce above them; ui, exercises and the CLI
on top.  A contract broken by a new import fails here, naming the import.
"""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports() -> str:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe, "import-linter's lint-imports is not installed in this environment (the [test] extra installs it)"
    return exe


def test_import_contracts_are_kept():
    r = subprocess.run([_lint_imports(), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 broken" in r.stdout


def _lint_copy(tmp_path, edit) -> str:
    """lint-imports on a copy of the package changed by ``edit(package_dir)``: its report."""
    pkg = tmp_path / "lib" / "kernel_workbook"
    shutil.copytree(ROOT / "lib" / "kernel_workbook", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    edit(pkg)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    env = {"PYTHONPATH": str(tmp_path / "lib"), "PATH": str(Path(sys.executable).parent)}
    r = subprocess.run([_lint_imports(), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                       env=env)
    assert r.returncode != 0, r.stdout
    return r.stdout


def _append(path: Path, line: str) -> None:
    with open(path, "a") as f:
        f.write("\n" + line + "\n")


def test_a_forbidden_import_breaks_the_contract(tmp_path):
    """The contract is not vacuous: a copy of the package where tables imports ui is refused."""
    out = _lint_copy(tmp_path, lambda pkg: _append(pkg / "tables" / "__init__.py",
                                                   "from ..ui import charts as _layering_probe  # noqa"))
    assert "kernel_workbook.tables is not allowed to import kernel_workbook.ui" in out


def test_one_model_importing_another_breaks_their_independence(tmp_path):
    out = _lint_copy(tmp_path, lambda pkg: _append(pkg / "models" / "numa" / "params.py",
                                                   "from ..compaction import params as _probe  # noqa"))
    assert "kernel_workbook.models.numa.params -> kernel_workbook.models.compaction.params" in out


def test_a_new_module_must_be_given_a_layer(tmp_path):
    """The layers contract is exhaustive: a module nobody placed is refused, not silently allowed anything."""
    out = _lint_copy(tmp_path, lambda pkg: (pkg / "newcomer.py").write_text("X = 1\n"))
    assert "kernel_workbook.newcomer" in out and "not listed as layers" in out


def test_a_new_heuristic_and_its_kernel_mirror_are_under_the_contracts_without_an_edit(tmp_path):
    """Adding a heuristic touches its folders, not pyproject.toml (issue 34): a new folder under heuristics/ or
    models/ is held independent of the others by the wildcard contracts, so an import between them is refused."""
    def edit(pkg):
        for where, other in (("heuristics", "numa"), ("models", "compaction")):
            (pkg / where / "newcomer").mkdir()
            (pkg / where / "newcomer" / "__init__.py").write_text(f"from ..{other} import __name__ as _probe  # noqa\n")

    out = _lint_copy(tmp_path, edit)
    assert "kernel_workbook.heuristics.newcomer -> kernel_workbook.heuristics.numa" in out
    assert "kernel_workbook.models.newcomer -> kernel_workbook.models.compaction" in out
