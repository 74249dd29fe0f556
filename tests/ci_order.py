"""The order in which ``make test`` hands its files to the pytest-xdist workers: the costliest first.

``make test`` runs ``-n auto --dist loadfile`` on two cores: each worker takes a whole file, and the run ends
when the last file started ends.  xdist's default order (files with the most test items first) starts the
notebooks -- a few cells each, but minutes of simulation -- near the end, so one worker ran a long notebook
alone while the other had nothing left.  Longest first (``--no-loadscope-reorder`` keeps this order) leaves
only short files for the end.

A file's cost is declared below from a measurement of it under pytest; a notebook not declared there is costed
from its own committed execution metadata (the time of each executed cell: a rough figure, taken with whatever
Numba cache and load the machine had then -- 2007's says 192 s, it takes 35 s under nbval); any other file
counts as cheap and keeps its place (collection order) after the costly ones.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Seconds one file takes on a worker of a 2-core run, for the files of 20 s or more.  Measured at dea0a6c
# (contended machine, 2 workers, a fresh clone's empty Numba cache: the first file to run a model pays its
# compile, e.g. ~225 CPU s for fairzone, inside test_exercises' 15-fairzone-variant-sign) with
#   KWB_FIT_CACHE=off WORKBOOK_MODE=ci .venv/bin/python -m pytest FILES -n 2 --dist loadfile --junitxml=X
# and summed per file from X.  Only the order matters: a rough figure is enough, a missing one costs time
# (the end of a run lists the costly files missing here).
TEST_FILE_SECONDS: dict[str, float] = {
    # notebooks under nbval (warm Numba cache; pytest notebooks -n 2 --dist loadfile --nbval-lax --junitxml=X)
    "notebooks/2012-highalloc-compaction.ipynb": 170,
    "notebooks/2015-numa-slow-scan.ipynb": 105,
    "notebooks/2011-cfq-deep-idle.ipynb": 56,
    "notebooks/2014b-seqread-fairzone.ipynb": 48,
    "notebooks/2014a-seqread-cfq.ipynb": 45,
    "notebooks/2007-throttle-vm-writeout.ipynb": 35,
    "notebooks/explore-your-traces.ipynb": 20,
    "notebooks/sensitivity.ipynb": 15,
    # test files (a fresh clone's empty Numba cache)
    "tests/test_exercises.py": 442,
    # 230 s when it compiles fairzone itself; 80 s (74 CPU s) once test_exercises' 15-fairzone-variant-sign has
    # compiled it: declared at 80 so that the two do not start together and compile the same model twice
    "tests/test_fairzone_reproduce.py": 80,
    "tests/browser/test_threads_browser.py": 153,
    "tests/test_traces_fuzz.py": 112,
    "tests/browser/test_slides_browser.py": 94,
    "tests/browser/test_lab_browser.py": 92,
    "tests/test_compaction_speed.py": 90,
    "tests/test_writeback_reproduce.py": 64,
    "tests/test_sweep_cluster.py": 63,
    "tests/test_numa_reproduce.py": 48,
    "tests/test_numa_speed.py": 37,
    "tests/test_compaction_reproduce.py": 34,
    "tests/test_grade_hostile.py": 24,
    "tests/test_reproduce_cfq.py": 22,
    "tests/browser/test_report_browser.py": 20,
    # named undeclared by the clean-clone run at cd8556c (its end-of-run list, seconds on a worker)
    "tests/test_cli.py": 92,
    "tests/test_fairzone_model.py": 76,
    "tests/test_compaction_model.py": 73,
    "tests/test_cfq_ui.py": 55,
    "tests/test_parse.py": 39,
    "tests/test_traces_record.py": 36,
    # named undeclared by the runs of 2026-11-29 (seconds on a loaded worker, an upper bound)
    "tests/test_compaction_boot_cache.py": 80,
    "tests/test_numa_model.py": 25,
    "tests/test_sensitivity_frames.py": 35,
    "tests/test_reproduce_fidelity.py": 40,
}


def _seconds(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


@cache
def notebook_seconds(path: str) -> float:
    """Seconds the notebook's code cells took when it was last executed (nbclient's ``execution`` metadata);
    0 for a notebook without it."""
    try:
        nb = json.loads((ROOT / path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0.0
    total = 0.0
    for cell in nb.get("cells", []):
        ex = cell.get("metadata", {}).get("execution", {})
        if cell.get("cell_type") == "code" and "iopub.execute_input" in ex and "shell.execute_reply" in ex:
            total += (_seconds(ex["shell.execute_reply"]) - _seconds(ex["iopub.execute_input"])).total_seconds()
    return total


def file_cost(path: str) -> float:
    """Expected seconds of one file of the run (``path`` relative to the repository, as in a node id)."""
    if path in TEST_FILE_SECONDS:
        return TEST_FILE_SECONDS[path]
    return notebook_seconds(path) if path.endswith(".ipynb") else 0.0


def scope(nodeid: str) -> str:
    """The file a node id belongs to: what ``--dist loadfile`` keeps on one worker."""
    return nodeid.split("::", 1)[0]


def costliest_first(items: list, nodeid=lambda item: item.nodeid) -> list:
    """``items`` grouped by file, the files in decreasing cost; equal costs (and every cheap file) keep
    the collection order, and the items of a file keep theirs."""
    files: dict[str, list] = {}
    for item in items:
        files.setdefault(scope(nodeid(item)), []).append(item)
    order = sorted(files, key=lambda f: -file_cost(f))  # sorted() is stable
    return [item for f in order for item in files[f]]


# ---- what this run measured: tells when the table above is out of date
UNDECLARED_SECONDS = 20.0


class FileTimes:
    """Seconds per file of this run, summed from the test reports (setup, call and teardown)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, report) -> None:
        f = scope(report.nodeid)
        self.seconds[f] = self.seconds.get(f, 0.0) + getattr(report, "duration", 0.0)

    def undeclared(self) -> list[tuple[str, float]]:
        """Files of this run that took UNDECLARED_SECONDS or more and are not in TEST_FILE_SECONDS."""
        return sorted(((f, s) for f, s in self.seconds.items()
                       if s >= UNDECLARED_SECONDS and f not in TEST_FILE_SECONDS),
                      key=lambda fs: -fs[1])
