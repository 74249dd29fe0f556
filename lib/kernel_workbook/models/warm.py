"""Compile every model's Numba kernels once, before parallel workers need them (``make test``).

Each model's entry function is compiled lazily on its first call and cached on disk (:mod:`.engine`).  Under
``pytest -n 2`` both workers reach the heavy models in the first minutes, and two processes that miss the cache at
the same time both compile: the fair-zone kernel alone costs about 250 CPU-s cold, so a duplicate is minutes of a
25-minute CI run.  ``python -m kernel_workbook.models.warm`` runs one small simulation of every model, the models
spread over ``--jobs`` processes costliest first, so that the workers only ever load from the cache.  Cold
compile costs measured on the 2-core CI machine (CPU-s, ``NUMBA_CACHE_DIR`` empty): :data:`COMPILE_CPU_S`; they
only order the work, a model missing from it is compiled last.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from .. import heuristic

COMPILE_CPU_S = {"fairzone": 250, "compaction": 111, "cfq": 54, "writeback": 51, "numa": 37}


def plan(jobs: int = 2) -> list[list[str]]:
    """Every model (one a heuristic), dealt to ``jobs`` processes: costliest first, each to the least loaded process."""
    load = [0.0] * max(1, jobs)
    out: list[list[str]] = [[] for _ in load]
    for name in sorted(heuristic.names(), key=lambda n: -COMPILE_CPU_S.get(n, 0)):
        i = load.index(min(load))
        out[i].append(name)
        load[i] += COMPILE_CPU_S.get(name, 0)
    return [p for p in out if p]


def warm(names: list[str]) -> list[tuple[str, float]]:
    """Run each model's default variant and workload once (compiling or loading its kernels); CPU-s per model."""
    done = []
    for name in names:
        t = time.process_time()
        heuristic.model(name).run()
        done.append((name, time.process_time() - t))
    return done


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kernel_workbook.models.warm", description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    parts = plan(a.jobs)
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter each: no half-imported Numba state forked
    with ProcessPoolExecutor(len(parts), mp_context=ctx) as ex:
        for done in ex.map(warm, parts):
            for name, cpu in done:
                print(f"warm: {name} ready ({cpu:.0f} CPU-s)", flush=True)
    print(f"warm: every model's kernels compiled or loaded in {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
