"""No module of the package is imported by a name held in a string, outside the few places that must and say why.

The heuristics are found by listing their folders (``heuristic._entry_points``: the plug-in point); everything
else reaches code by importing it, so import-linter sees every dependency.  The places that resolve a name are
listed below with their reason; a new ``import_module``/``__import__`` or a ``"kernel_workbook.x:y"`` string
anywhere else fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "lib" / "kernel_workbook"

# file (relative to the package) -> why it resolves a module by name
ALLOWED = {
    "heuristic.py": "the plug-in point: the heuristics' folders and installed plug-ins' entry points",
    "models/engine.py": "the kernel loader: one source imported twice, compiled and as plain Python (engine='python')",
    "reproduce/fit_cache.py": "reading a stored fit back: a dataclass named in the file, kernel_workbook's only",
    "exercises/runner.py": "an expression the student's kernel (another process) evaluates to hand its answers back",
    "ui/charts.py": "Altair's own API module for its schema version (not ours)",
}
TARGET = re.compile(r"^kernel_workbook(\.\w+)+:\w+$")  # "module:attribute" of ours


def _offences(path: Path) -> list[str]:
    out = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in ("import_module", "__import__", "spec_from_file_location"):
                out.append(f"line {node.lineno}: {name}()")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and TARGET.match(node.value):
            out.append(f"line {node.lineno}: {node.value!r}")
    return out


def test_no_module_of_ours_is_imported_by_a_string_outside_the_named_places():
    found = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        rel = p.relative_to(PACKAGE).as_posix()
        if rel not in ALLOWED and (bad := _offences(p)):
            found[rel] = bad
    assert found == {}, found


def test_the_named_places_still_need_their_exception():
    """An exception that nothing uses any more is removed, so the list stays the truth."""
    for rel in ALLOWED:
        text = (PACKAGE / rel).read_text(encoding="utf-8")
        assert re.search(r"import_module|__import__|entry_points|spec_from_file_location", text), rel


def test_the_check_finds_a_string_import(tmp_path):
    p = tmp_path / "x.py"
    p.write_text('import importlib\nf = getattr(importlib.import_module("kernel_workbook.ui"), "x")\n'
                 'T = "kernel_workbook.heuristics.cfq.charts:cfq_explorer"\n')
    assert len(_offences(p)) == 2
