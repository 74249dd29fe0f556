"""The sweep engine on Dask: runs per second, and the speed-up from one worker process to two (``make bench``).

Target (issue 16): a sweep on a ``LocalCluster`` of 2 worker processes is at
least 1.8 times as fast as on 1, on the 2-core machine the workbook is
developed on (the ideal is 2: the client and the scheduler share those two
cores with the workers, and each task costs Dask a few milliseconds).

What is timed: a whole sweep of a real model, kept in memory (no file), with
the engine's defaults (runs per task chosen from how long a run takes), on a
cluster started and warmed beforehand (one untimed sweep: each worker
imports the model and loads Numba's on-disk cache, so the timed sweeps skip
the lone first task).  Starting a cluster (about 3 s) and a cold Numba
compile are not in these figures.  The model is the first of the registry
that has its ``MODEL``.  A third benchmark puts one run in each task: Dask
tasks per second.

Clusters are started inside the timed function, once per pyperf process, so
the other suites' processes (which build every suite's benchmarks) never
start one.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import sys
import time

from kernel_workbook.bench import Bench

# per model: a grid of ordinary runs (knobs the thread argues about, two of its kernels).  256 runs, about 1.5 s
# on one worker: a sweep costs Dask a fixed 50-100 ms whatever its size (the spec scattered, the workers asked
# whether they are warm, the table built), which two workers cannot share; a 32-run sweep (0.2 s) measured
# 1.4-1.5x for that reason alone, where the sweeps a person runs (the sensitivity notebook's, kwb sweep's) last
# seconds to hours
GRIDS = {
    "cfq": dict(knobs={"cfq_slice_idle": [0, 8]}, variants=["3.16", "3.0"], seeds=range(64)),
}

_clients: dict[int, object] = {}


def _client(workers: int):
    from kernel_workbook.sweep import connect

    if workers not in _clients:
        cm = connect(workers=workers)
        _clients[workers] = cm.__enter__()
        atexit.register(cm.__exit__, None, None, None)
    return _clients[workers]


def _sweep_timer(grid, workers: int, chunk=None):
    from kernel_workbook.sweep import run_sweep
    from kernel_workbook.sweep.worker import run_one

    warmed = []

    def time_func(loops: int) -> float:
        if not warmed:
            # compile (or load the cache) in this process first, so that no worker compiles; then the workers
            # import the model and load Numba's cache in one untimed sweep
            with contextlib.redirect_stdout(io.StringIO()):
                run_one(grid.model, grid.runs[0], grid.workload_kw, "jit")
            run_sweep(grid, client=_client(workers), progress=False, chunk=chunk)
            warmed.append(True)
        c = _client(workers)
        t0 = time.perf_counter()
        for _ in range(loops):
            run_sweep(grid, client=c, progress=False, chunk=chunk)
        return time.perf_counter() - t0
    return time_func


def _model():
    from kernel_workbook import heuristic

    names = heuristic.names()
    return heuristic.model(names[0]) if names else None


def benchmarks() -> list[Bench]:
    from kernel_workbook.sweep import product

    spec = _model()
    if spec is None:
        print("sweep bench: no model has its MODEL yet; nothing to measure", file=sys.stderr)
        return []
    if spec.name in GRIDS:
        grid = product(spec, **GRIDS[spec.name])
    else:
        grid = product(spec, {}, variants=list(spec.variants)[:2] or None, seeds=range(16))
    n = float(len(grid))
    what = f"{spec.name}, {len(grid)} runs"
    return [
        Bench(f"sweep: {what} on 2 worker processes vs 1 (target >= 1.8x)", _sweep_timer(grid, 2), n, "runs",
              baseline="the same sweep on 1 worker process", baseline_time_func=_sweep_timer(grid, 1),
              baseline_items=n, target_ratio=1.8),
        Bench(f"sweep: {what}, one run per Dask task, 2 worker processes (tasks per second)",
              _sweep_timer(grid, 2, chunk=1), n, "tasks"),
    ]
