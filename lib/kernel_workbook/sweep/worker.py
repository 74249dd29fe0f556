"""What runs inside a worker process: the task, and what the process counts about itself.

A task runs a few :class:`~.grid.Run` s of one model and sends back only
their summaries (``{output: value}``), never a run's arrays.

Compile once per process, not per task: a worker is a long-lived process with
one thread, and it receives the sweep's
:class:`~kernel_workbook.models.spec.ModelSpec` once (scattered), whose
functions pickle *by reference* to their modules; so the model's module, and
the Numba dispatchers in it, are imported once per process and every later
task calls the functions already compiled (or loaded from Numba's on-disk
cache, which all processes of one installation share).  The process counts Numba's
``numba:compile`` events (real compiles, not cache loads) and its tasks, so
a test, ``kwb sweep`` and :func:`~.run.worker_stats` can show that later
tasks compile nothing.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
import time

_LOCK = threading.Lock()
_NUMBA = {"compiles": 0, "compile_s": 0.0}  # this process's Numba compiles (functions) and seconds compiling
_MODELS: dict[str, dict] = {}  # model name -> what this process's tasks of that model did
_listening = False


def _listen_to_numba() -> None:
    """Count Numba compiles in this process (once per process)."""
    global _listening
    if _listening:
        return
    with _LOCK:
        if _listening:
            return
        try:
            from numba.core import event
        except ImportError:  # no Numba: nothing to count
            _listening = True
            return

        class _Counter(event.Listener):
            depth = 0
            t0 = 0.0

            def on_start(self, ev):
                if self.depth == 0:
                    self.t0 = time.perf_counter()
                self.depth += 1

            def on_end(self, ev):
                self.depth -= 1
                _NUMBA["compiles"] += 1  # every function compiled, callees included
                if self.depth == 0:
                    _NUMBA["compile_s"] += time.perf_counter() - self.t0

        event.register("numba:compile", _Counter())  # for the life of the process
        _listening = True


def run_one(spec, run, workload_kw: dict, engine: str) -> dict:
    """One run's summary: ``spec.run`` with the run's kernel, workload, seed and knobs."""
    return spec.run(variant=run.variant, workload=run.workload, seed=run.seed, knobs=run.knob_dict(),
                    workload_kw=workload_kw, engine=engine)


def task(spec, runs: list, workload_kw: dict, engine: str) -> dict:
    """A Dask task: ``{"outputs": [(grid index, outputs), ...], "last_run_s": seconds}`` for ``runs``.

    The client submits it through :func:`kernel_workbook.config.call_in_env` with its own mode (which sets a
    workload's default size), so that a run on a cluster is the run of the client's process.

    ``last_run_s`` (how long the last run took, after any compile) lets the
    client choose how many runs to put in one task; it is not stored.

    What a model prints while it runs (Numba's first-compile notice) is not
    passed on: it would land in the middle of the client's progress bar; the
    process's counters say how long compiling took instead.
    """
    _listen_to_numba()
    compiles0, compile_s0 = _NUMBA["compiles"], _NUMBA["compile_s"]
    t0 = time.perf_counter()
    out = []
    with _quiet():
        for r in runs:
            t1 = time.perf_counter()
            try:
                out.append((r.index, run_one(spec, r, workload_kw, engine)))
            except Exception as e:  # say which run, keep the exception (its type, message and traceback)
                if hasattr(e, "add_note"):
                    e.add_note(f"in sweep run {r.index}: variant={r.variant!r}, workload={r.workload!r}, "
                               f"seed={r.seed}, " + ", ".join(f"{k}={v!r}" for k, v in r.knobs))
                raise
    t2 = time.perf_counter()
    dt = t2 - t0
    compiled = _NUMBA["compiles"] - compiles0
    with _LOCK:
        st = _MODELS.setdefault(spec.name, {"tasks": 0, "runs": 0, "first_task_s": None, "compiles_first_task": 0,
                                            "compiles_later": 0, "compile_s": 0.0, "run_s": 0.0})
        if st["tasks"] == 0:
            st["first_task_s"] = dt
            st["compiles_first_task"] = compiled
        else:
            st["compiles_later"] += compiled  # what "compile once per worker" says must stay 0
        st["tasks"] += 1
        st["runs"] += len(runs)
        st["compile_s"] += _NUMBA["compile_s"] - compile_s0
        st["run_s"] += dt
    return {"outputs": out, "last_run_s": t2 - t1}


_quiet_depth = 0
_real_stdout = None


@contextlib.contextmanager
def _quiet():
    """Drop what tasks print while any task of this process runs.

    ``contextlib.redirect_stdout`` alone is not safe with several task
    threads (a worker started with ``--nthreads 2``): two overlapping
    redirections restore each other's buffer and leave ``sys.stdout`` pointing
    at a dead one.  So the first task in swaps it out and the last one out
    puts it back.
    """
    global _quiet_depth, _real_stdout
    with _LOCK:
        if _quiet_depth == 0:
            _real_stdout, sys.stdout = sys.stdout, io.StringIO()
        _quiet_depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _quiet_depth -= 1
            if _quiet_depth == 0:
                sys.stdout, _real_stdout = _real_stdout, None


def process_stats() -> list[dict]:
    """This process's counters, one dict per model it ran (see :func:`~.run.worker_stats`)."""
    return [{"pid": os.getpid(), "model": m, **st} for m, st in sorted(_MODELS.items())]


def identity() -> dict:
    """What must match between the client and its workers for results to be the same bit for bit."""
    import platform

    import numpy

    from .. import __version__

    try:
        import numba

        nb = numba.__version__
    except ImportError:
        nb = None
    return {"kernel_workbook": __version__, "sources": _source_digest(), "numpy": numpy.__version__, "numba": nb,
            "python": platform.python_version(), "machine": platform.machine()}


def _source_digest() -> str:
    import hashlib
    from pathlib import Path

    # what a run executes: the models, the workload generators their specs name, this engine
    pkg = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for sub in ("models", "workloads", "sweep"):
        for p in sorted((pkg / sub).rglob("*.py")):
            h.update(str(p.relative_to(pkg)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


__all__ = ["task", "run_one", "process_stats", "identity"]
