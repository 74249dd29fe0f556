"""One executor: the sweeps and the reproductions get their workers from ``kernel_workbook.executor`` alone, and
every worker gets its one setup (``_worker_init``) before any task."""

from __future__ import annotations

import ast
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest

from kernel_workbook import executor

PACKAGE = Path(__file__).resolve().parent.parent / "lib" / "kernel_workbook"

# what starts worker processes (or a cluster's client that hands tasks to some)
MAKERS = {"multiprocessing", "ProcessPoolExecutor", "LocalCluster", "Client", "get_executor", "fork", "Pool"}
# file (relative to the package) -> why it starts processes of its own
ALLOWED = {
    "models/warm.py": "compiles each model once in a fresh interpreter (spawn), before any worker exists: "
                      "processes that run one compile and end, not workers",
}


def _makers(source: str) -> list[str]:
    """Where ``source`` imports or calls something of :data:`MAKERS` (``line N: name``)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "").split(".")[0]] + [a.name for a in node.names]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        out += [f"line {node.lineno}: {n}" for n in names if n in MAKERS]
    return out


def test_the_scan_finds_a_second_pool():
    assert _makers("from concurrent.futures import ProcessPoolExecutor\n") == ["line 1: ProcessPoolExecutor"]
    assert _makers("import multiprocessing as mp\n") == ["line 1: multiprocessing"]
    assert _makers("def f(client):\n    return client.get_executor()\n") == ["line 2: get_executor"]
    assert _makers("from distributed import Client, LocalCluster\n") == ["line 1: Client", "line 1: LocalCluster"]
    assert _makers("from concurrent.futures import ThreadPoolExecutor\n") == []  # threads of this process


def test_only_the_executor_makes_worker_processes():
    found = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        rel = p.relative_to(PACKAGE).as_posix()
        if rel.startswith("executor/") or rel in ALLOWED:
            continue
        if bad := _makers(p.read_text(encoding="utf-8")):
            found[rel] = bad
    assert found == {}, found


@contextmanager
def _recording(calls: list):
    """``executor.workers`` that records what it was asked for and runs the tasks on a thread of this process."""

    @contextmanager
    def fake(n=None, scheduler=None, **kw):
        calls.append({"n": n, "scheduler": scheduler, **kw})
        with ThreadPoolExecutor(1) as pool:
            yield executor._Local(pool, 1, kw.get("env"))

    yield fake


def test_the_sweep_and_the_reproductions_ask_the_executor_for_their_workers(monkeypatch):
    """With ``executor.workers`` replaced, a sweep and a reproduction's other seed bases on 2 workers run
    through the replacement alone, each with its setup (a sweep keeps glibc's heap, a reproduction bounds it),
    and give what they give in this process."""
    import kernel_workbook.reproduce as r
    from kernel_workbook.sweep import product, run_sweep
    from sweep_toy import MODEL

    calls: list = []
    with _recording(calls) as fake:
        monkeypatch.setattr(executor, "workers", fake)
        g = product(MODEL, {"cfq_slice_idle": [0, 8]}, seeds=range(3))
        pd.testing.assert_frame_equal(run_sweep(g, workers=2, progress=False), run_sweep(g, workers=0, progress=False),
                                      check_exact=True)
        assert [(c["n"], c["bounded_heap"]) for c in calls] == [(2, False)]

        def fake_target(seed_base=0):
            rep = r.Reproduction("2011-cfq-deep-idle")
            rep.cells = [{"table": "t", "row": "r", "kernel": "k", "model": float(seed_base)}]
            return rep

        monkeypatch.setattr(r, "_target", lambda thread: fake_target)
        rep = r.reproduce("2011-cfq-deep-idle", seeds=[0, 1, 2], workers=2)
    assert [(c["n"], c["bounded_heap"]) for c in calls] == [(2, False), (2, True)]
    assert {b: cells[0]["model"] for b, (cells, _) in rep.seed_runs.items()} == {1: 1.0, 2: 2.0}


def _mark_setup() -> None:
    os.environ["KWB_TEST_EXECUTOR_SETUP"] = "done"


def _seen(_=None) -> tuple:
    return os.getpid(), executor.in_worker(), os.environ.get("KWB_TEST_EXECUTOR_SETUP"), os.environ.get("WORKBOOK_MODE")


def test_local_workers_are_set_up_before_any_task_and_see_this_process_mode(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "ci")
    with executor.workers(2, setup=(_mark_setup,), env={"WORKBOOK_MODE": "slides"}) as ex:
        assert ex.client is None and ex.n == 2
        seen = ex.map(_seen, range(6))
        done = ex.as_completed()
        for i in range(3):
            done.add(ex.submit(_seen, i))
        later = [res for _, res in done]
    assert len(later) == 3
    assert {s[1:] for s in seen + later} == {(True, "done", "slides")}
    assert os.getpid() not in {s[0] for s in seen}
    assert executor.in_worker() is False and "KWB_TEST_EXECUTOR_SETUP" not in os.environ
    executor.release()  # outside a worker: nothing (no freeze of this process's objects)


def test_where_a_worker_count_or_a_scheduler_sends_the_tasks(monkeypatch):
    from kernel_workbook.errors import WorkbookParameterError

    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    assert executor.where(None, None) is None and executor.where(2, None) is None
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://10.0.0.2:8786")
    assert executor.where(None, None) == "tcp://10.0.0.2:8786" and executor.where(2, None) is None
    with pytest.raises(WorkbookParameterError, match="workers"):
        executor.where(2, "tcp://10.0.0.1:8786")
    with pytest.raises(WorkbookParameterError, match="scheduler"):
        executor.where(None, "not an address")
