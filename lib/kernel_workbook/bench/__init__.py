"""Benchmarks, measured with pyperf (``make bench`` / ``kwb bench``).

Each suite module in :data:`SUITES` has a ``benchmarks()`` function returning
:class:`Bench` objects.  ``kwb bench`` runs them all in pyperf worker processes
(``python -m kernel_workbook.bench.run``), then prints::

    {"results": [{"name", "ours_per_s", "baseline", "baseline_per_s", "ratio", "unit"}]}

``ours_per_s`` is items per second (bytes, requests, allocations...: ``unit``
says which); ``baseline`` names what we are measured against (jc, FlameGraph,
the pure-Python reference of a model...) and ``ratio`` is ours / baseline.
Targets are written beside each benchmark and checked here, not in timed
tests.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

# name -> module; a module is imported only when the benchmarks run.
SUITES: dict[str, str] = {
    "tables": "kernel_workbook.bench.tables_bench",
    "traces": "kernel_workbook.bench.traces_bench",
    "cfq": "kernel_workbook.bench.cfq_bench",
    "numa": "kernel_workbook.bench.numa_bench",
    "fairzone": "kernel_workbook.bench.fairzone_bench",
    "compaction": "kernel_workbook.bench.compaction_bench",
    "sweep": "kernel_workbook.bench.sweep_bench",
    "explorers": "kernel_workbook.bench.explorer_bench",
    "writeback": "kernel_workbook.bench.writeback_bench",
}


@dataclass
class Bench:
    name: str
    time_func: Callable[[int], float]  # pyperf bench_time_func: loops -> seconds
    items: float  # items processed by one call
    unit: str  # what an item is
    baseline: str | None = None
    baseline_time_func: Callable[[int], float] | None = None
    baseline_items: float | None = None
    target_ratio: float | None = None  # ours/baseline we promise, if any
    target_per_s: float | None = None  # absolute throughput we promise, if any



def copy_arrays(arrays: dict) -> dict:
    """A fresh copy of a kernel's named arrays."""
    return {k: v.copy() for k, v in arrays.items()}


def kernel_timer(fn, arrays: dict, order) -> Callable[[int], float]:
    """pyperf time function: ``fn(*arrays in order)`` on fresh copies of ``arrays`` each loop, timing the call alone.

    A kernel writes into its arrays, so every loop must start from the same state; the copy is not timed.
    """
    import time

    def run(loops: int) -> float:
        total = 0.0
        for _ in range(loops):
            b = copy_arrays(arrays)
            t0 = time.perf_counter()
            fn(*(b[k] for k in order))
            total += time.perf_counter() - t0
        return total
    return run


def all_benchmarks(only: list[str] | None = None) -> list[Bench]:
    out = []
    for key, mod in SUITES.items():
        if only and key not in only:
            continue
        out.extend(importlib.import_module(mod).benchmarks())
    return out
