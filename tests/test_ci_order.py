"""make test hands the costliest files to the xdist workers first (tests/ci_order.py, tests/conftest.py)."""

from __future__ import annotations

import json
import re

import ci_order
from ci_order import ROOT, TEST_FILE_SECONDS, costliest_first, file_cost, notebook_seconds


def test_every_declared_test_file_exists():
    """A renamed or removed file would silently fall back to 'cheap' and start last."""
    assert TEST_FILE_SECONDS
    missing = [f for f in TEST_FILE_SECONDS if not (ROOT / f).is_file()]
    assert missing == []


def test_every_notebook_carries_the_cell_times_its_cost_is_read_from():
    """Executed notebooks keep nbclient's per-cell times; a notebook stripped of them would count as free."""
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    free = [nb.name for nb in notebooks if notebook_seconds(str(nb.relative_to(ROOT))) <= 0]
    assert free == []


def test_notebook_seconds_sums_the_executed_cells(tmp_path, monkeypatch):
    nb = tmp_path / "x.ipynb"
    cell = {"cell_type": "code", "metadata": {"execution": {"iopub.execute_input": "2026-01-01T00:00:01.5Z",
                                                            "shell.execute_reply": "2026-01-01T00:00:04Z"}}}
    other = [{"cell_type": "markdown", "metadata": {}}, {"cell_type": "code", "metadata": {}}]
    nb.write_text(json.dumps({"cells": [cell, cell, *other]}))
    monkeypatch.setattr(ci_order, "ROOT", tmp_path)
    notebook_seconds.cache_clear()
    try:
        assert notebook_seconds("x.ipynb") == 5.0
        assert notebook_seconds("absent.ipynb") == 0.0
    finally:
        notebook_seconds.cache_clear()


def test_costliest_file_first_items_of_a_file_together_cheap_files_in_collection_order(monkeypatch):
    costs = {"tests/a.py": 0.0, "nb/long.ipynb": 90.0, "tests/b.py": 0.0, "tests/mid.py": 30.0}
    monkeypatch.setattr(ci_order, "file_cost", costs.__getitem__)
    ids = ["tests/a.py::t1", "nb/long.ipynb::Cell 0", "tests/b.py::t", "tests/mid.py::t[1]", "tests/a.py::t2",
           "nb/long.ipynb::Cell 1", "tests/mid.py::t[2]"]
    assert costliest_first(ids, nodeid=str) == [
        "nb/long.ipynb::Cell 0", "nb/long.ipynb::Cell 1", "tests/mid.py::t[1]", "tests/mid.py::t[2]",
        "tests/a.py::t1", "tests/a.py::t2", "tests/b.py::t"]


def test_this_run_is_ordered_by_the_hook(request):
    """The collection this session runs (a worker's, under xdist) is grouped by file, costliest first."""
    files = []
    for item in request.session.items:
        f = ci_order.scope(item.nodeid)
        if not files or files[-1] != f:
            files.append(f)
    assert len(files) == len(set(files)), "a file's items are split"
    costs = [file_cost(f) for f in files]
    assert costs == sorted(costs, reverse=True)


def test_make_test_keeps_this_order_under_xdist():
    """xdist's default (--loadscope-reorder) would sort the files again, by number of items."""
    target = re.search(r"^test:.*?(?=^\S)", (ROOT / "Makefile").read_text(), re.M | re.S).group(0)
    assert "--dist loadfile" in target and "--no-loadscope-reorder" in target


def test_the_run_names_the_costly_test_files_the_table_does_not_know():
    from types import SimpleNamespace as R

    declared = next(iter(TEST_FILE_SECONDS))
    times = ci_order.FileTimes()
    for nodeid, s in [("tests/test_new.py::a", 15.0), ("tests/test_new.py::b", 6.0), ("tests/test_quick.py::a", 1.0),
                      (f"{declared}::a", 99.0), ("notebooks/x.ipynb::Cell 0", 50.0)]:
        times.add(R(nodeid=nodeid, duration=s))
    assert times.undeclared() == [("notebooks/x.ipynb", 50.0), ("tests/test_new.py", 21.0)]


def test_a_declared_cost_wins_over_a_notebooks_metadata():
    declared = next(f for f in TEST_FILE_SECONDS if f.endswith(".ipynb"))
    assert file_cost(declared) == TEST_FILE_SECONDS[declared]
    undeclared = [str(nb.relative_to(ROOT)) for nb in sorted((ROOT / "notebooks").glob("*.ipynb"))
                  if str(nb.relative_to(ROOT)) not in TEST_FILE_SECONDS]
    assert undeclared and all(file_cost(f) == notebook_seconds(f) > 0 for f in undeclared)
