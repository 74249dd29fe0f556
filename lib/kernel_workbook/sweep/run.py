"""Running a sweep: in this process, or as tasks of the executor's workers, with a progress bar.

:func:`run_sweep` takes a :class:`~.grid.Grid` and gives its table (one row
per run, see :mod:`.store`), in grid order whatever order the runs finished
in, so the same grid and seeds give the same table bit for bit in this
process, on local worker processes or on a Dask cluster of many machines
(:mod:`kernel_workbook.executor` makes the workers, for the reproductions too).
With ``out`` the table is written to Parquet as runs finish, and runs already
in the file are not run again.

On workers, the first task runs alone (until every worker has run the
model once): it compiles the model with Numba (or loads it from the on-disk
cache) and fills that cache, so the other workers of the machine load it
instead of compiling it too; then the remaining runs are submitted, a
bounded number in flight at a time.  On a Dask cluster the workers are first
asked which code they run (it must be this process's), the model's spec is
sent once per worker, and each says what it compiled (:func:`worker_stats`).
"""

from __future__ import annotations

import functools
import itertools
import json
import time
import uuid

import pandas as pd

from .. import executor
from ..errors import WorkbookParameterError
from . import worker
from .cluster import check_workers, need_dask
from .grid import Grid
from .store import SweepStore
from .worker import identity, process_stats, run_one, task

FLUSH_S = 5.0  # write finished runs at least this often...
FLUSH_N = 256  # ...or as soon as this many are waiting


def run_sweep(grid: Grid, out=None, *, client=None, scheduler: str | None = None, workers: int | None = None,
              engine: str = "jit", progress: bool = True, chunk: int | None = None, log=None) -> pd.DataFrame:
    """Run every run of ``grid`` not yet in ``out``; the grid's table (see :meth:`.store.SweepStore.finish`).

    Where it runs: ``client`` (a ``distributed.Client``); else ``scheduler``;
    else ``workers=0``: in this process; ``workers=N``: N local worker
    processes (:func:`kernel_workbook.executor.workers`); neither:
    ``$DASK_SCHEDULER_ADDRESS`` if set, else one local process per core.
    ``chunk``: runs per task (default: as many as make a task last about 0.2 s,
    timed on the first task, since sending a task costs a few milliseconds;
    fewer towards the end, so that the workers finish together).
    ``log`` receives one-line notes (where it runs, compile times).

    Columns: ``variant, workload``, the grid's knobs, ``seed``, then the
    model's outputs named as the kernel counts them; index: the run's
    position in the grid; ``attrs["sweep"]``: model, knobs, units, sources.
    """
    if not isinstance(grid, Grid):
        raise WorkbookParameterError("grid", type(grid).__name__, "a Grid (sweep.product, one_at_a_time or sample)")
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
        raise WorkbookParameterError("chunk", chunk, "a whole number of runs per task >= 1 (None: chosen from "
                                     "how long a run takes)")
    from ..models.engine import check_engine

    check_engine(engine)
    workers = check_workers(workers)
    store = SweepStore(out, grid, engine)
    todo = store.todo()
    say = log or (lambda line: None)
    if out is not None and len(todo) < len(grid):
        say(f"{len(grid) - len(todo)} of {len(grid)} runs already in {out}")
    bar = _bar(len(grid), len(grid) - len(todo), grid.model.name, progress)
    writer = _Writer(store, bar)
    try:
        if todo:
            if client is None and workers == 0 and scheduler is None:
                _in_process(grid, todo, engine, writer)
            else:
                if client is None:
                    need_dask()  # a cluster, or local workers: a spec travels with cloudpickle (executor)
                # each worker imports the engine's task once, with the local server, and the model on its first
                # task; its heap keeps glibc's thresholds (a run is small and short: speed is worth more)
                with executor.workers(workers, scheduler, client=client, bounded_heap=False,
                                      preload=(worker.__name__,), check=_check_same_code) as ex:
                    _on_workers(ex, grid, todo, engine, chunk, writer, say)
    finally:
        writer.flush()
        if bar is not None:
            bar.close()
    return store.finish()


class _Writer:
    """Finished runs, written to the store in batches."""

    def __init__(self, store: SweepStore, bar):
        self.store, self.bar = store, bar
        self.pending: list = []
        self.last = time.monotonic()

    def add(self, results: list) -> None:
        self.pending.extend(results)
        if self.bar is not None:
            self.bar.update(len(results))
        if len(self.pending) >= FLUSH_N or time.monotonic() - self.last >= FLUSH_S:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.store.append(self.pending)
            self.pending = []
        self.last = time.monotonic()


def _bar(total: int, initial: int, desc: str, progress: bool):
    from ..progress import progress as bar

    return bar(total, desc, unit="run", initial=initial, enabled=progress)


def _in_process(grid: Grid, todo: list, engine: str, writer: _Writer) -> None:
    spec = grid.model
    for r in todo:
        try:
            writer.add([(r, run_one(spec, r, grid.workload_kw, engine))])
        except Exception as e:
            if hasattr(e, "add_note"):
                e.add_note(f"in sweep run {r.index}: variant={r.variant!r}, workload={r.workload!r}, seed={r.seed}, "
                           + ", ".join(f"{k}={v!r}" for k, v in r.knobs))
            raise


_verified: set = set()  # (scheduler, worker) pairs whose code was checked: a worker's code does not change
_run_s: dict = {}  # (model, workload_kw, engine) -> seconds of one run, timed on the last first task


def _check_same_code(client) -> None:
    mine = _my_identity()
    sched = client.scheduler.address
    new = [w for w in client.nthreads() if (sched, w) not in _verified]
    if not new:
        return
    theirs = client.run(identity, workers=new)
    bad = {w: {k: v for k, v in ident.items() if mine.get(k) != v} for w, ident in theirs.items()}
    bad = {w: d for w, d in bad.items() if d}
    if bad:
        w, d = next(iter(bad.items()))
        raise WorkbookParameterError("scheduler", w, "workers running the same kernel_workbook, numpy, numba and "
                                     f"Python as this process (results must be the same bit for bit); {w} differs: "
                                     + ", ".join(f"{k}={v!r} here {mine.get(k)!r}" for k, v in d.items()))
    _verified.update((sched, w) for w in new)


@functools.lru_cache(maxsize=1)
def _my_identity() -> dict:
    return identity()


def _all_warm(client, model: str) -> bool:
    """Has every worker already run a task of ``model`` (imported it, compiled or loaded its cache)?"""
    stats = client.run(process_stats)
    return bool(stats) and all(any(row["model"] == model for row in rows) for rows in stats.values())


def _on_workers(ex, grid: Grid, todo: list, engine: str, chunk: int | None, writer: _Writer, say) -> None:
    client = ex.client  # a Dask cluster's (None: the executor's local processes, new for this sweep)
    # on Dask, the spec once per worker; its functions pickle by reference to their modules, so a worker imports
    # the model (and its Numba dispatchers) once and every task calls the same compiled functions
    ref = grid.model if client is None else client.scatter(grid.model, broadcast=True, hash=False)
    by_index = {r.index: r for r in todo}
    token = uuid.uuid4().hex[:8]
    inflight: set = set()
    timing = (grid.model.name, json.dumps(grid.workload_kw, sort_keys=True, default=repr), engine)

    def submit(runs):
        f = ex.submit(task, ref, runs, grid.workload_kw, engine,
                      key=f"kwb-sweep-{grid.model.name}-{token}-{runs[0].index}")
        inflight.add(f)
        return f

    def done(f, result) -> None:
        inflight.discard(f)
        writer.add([(by_index[i], o) for i, o in result["outputs"]])

    say(f"running on {ex.n if client is None else len(client.nthreads())} worker process(es)")
    try:
        rest = todo
        warm = client is not None and _all_warm(client, grid.model.name)
        if not warm or (chunk is None and timing not in _run_s):
            # the first task alone: it compiles (or loads Numba's cache) and fills the cache for the other
            # workers; two runs, so the second is timed without the compile.  Skipped once every worker has
            # run the model and a run's time is known: it would keep the other workers idle for nothing
            head = todo[:chunk or 2]
            t0 = time.perf_counter()
            first = submit(head)
            result = first.result()
            done(first, result)
            _run_s[timing] = result["last_run_s"]
            if engine == "jit":
                say(f"first task (compiling with Numba or loading its cache, then {len(head)} run(s)) took "
                    f"{time.perf_counter() - t0:.1f} s")
            rest = todo[len(head):]
        if chunk is not None:
            chunks = iter([rest[i:i + chunk] for i in range(0, len(rest), chunk)])
        else:
            sizes = _guided_chunks(_run_s[timing], len(rest), ex.n)
            if max(sizes, default=1) > 1:
                say(f"up to {max(sizes)} runs per task (a run takes {_run_s[timing] * 1e3:.1f} ms; sending a task "
                    f"costs a few milliseconds)")
            ends = list(itertools.accumulate(sizes))
            chunks = iter([rest[e - s:e] for s, e in zip(sizes, ends)])
        # a bounded number in flight (a million-run grid is not a million futures at once); results are
        # gathered as they complete, in batches, not one round trip per task
        window = max(8 * ex.n, 32)
        ac = ex.as_completed()
        for runs in chunks:
            ac.add(submit(runs))
            if ac.count() >= window:
                break
        for batch in ac.batches():
            for f, result in batch:
                done(f, result)
                nxt = next(chunks, None)
                if nxt is not None:
                    ac.add(submit(nxt))
    finally:
        ex.cancel(inflight)


TASK_S = 0.2  # aim for tasks at least this long: Dask's own cost is a few ms per task (measured: 5-10 ms on 2 cores)


def _guided_chunks(run_s: float, n: int, nthreads: int) -> list[int]:
    """Runs per task, task by task: a task of about ``TASK_S`` while there is plenty left, then smaller ones.

    Each task takes at most an ``1 / (2 * nthreads)`` share of the runs not yet
    given out (guided self-scheduling), so the last tasks are single runs and
    no worker is left with a long task while the others idle at the end.
    """
    want = max(1, int(TASK_S / max(run_s, 1e-6)))
    sizes, left = [], n
    while left > 0:
        s = max(1, min(want, -(-left // (2 * nthreads))))
        sizes.append(s)
        left -= s
    return sizes


def worker_stats(client) -> pd.DataFrame:
    """What each worker process did, per model: one row per worker and model it ran.

    Columns: ``worker, pid, model, tasks, runs, first_task_s``,
    ``compiles_first_task`` (functions Numba compiled during that process's
    first task of the model: 0 when it loaded them from Numba's on-disk
    cache), ``compiles_later`` (compiled in any later task: 0 is "compiled
    once per worker, not per task"), ``compile_s, run_s``.
    """
    cols = ["worker", "pid", "model", "tasks", "runs", "first_task_s", "compiles_first_task", "compiles_later",
            "compile_s", "run_s"]
    rows = [{"worker": w, **row} for w, per_model in sorted(client.run(process_stats).items()) for row in per_model]
    return pd.DataFrame(rows, columns=cols)


__all__ = ["run_sweep", "worker_stats"]
