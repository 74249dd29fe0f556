"""The check every model's tests share: no numeric literal in the model or its reproduction equals a
published figure (published numbers reach a model only through ``published()``)."""

from __future__ import annotations

import ast
from pathlib import Path

from kernel_workbook.tables import published

PACKAGE = Path(__file__).resolve().parent.parent / "lib" / "kernel_workbook"


def published_figures(*threads: str) -> set[float]:
    return {round(float(v), 6) for th in threads for v in published(th)["value"].dropna()}


def _trivial(v: float) -> bool:
    # Integers below 1000 and half-steps below 100 (kernel constants such as 7, 10, 100, 512; data-sheet
    # values such as 2.0) cannot be told apart from a table's value.
    return abs(v) < 1e-3 or (v == int(v) and abs(v) < 1000) or (v * 2 == int(v * 2) and abs(v) < 100)


def literals_equal_to_published(files: list[str], threads: tuple[str, ...]) -> list[str]:
    """``file:line value`` for every non-trivial int/float literal of ``files`` (paths under the package)
    that equals a figure published in ``threads``."""
    figures = published_figures(*threads)
    hits = []
    for f in files:
        for node in ast.walk(ast.parse((PACKAGE / f).read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                    and not isinstance(node.value, bool):
                v = float(node.value)
                if not _trivial(v) and round(v, 6) in figures:
                    hits.append(f"{f}:{node.lineno} {node.value}")
    return hits
