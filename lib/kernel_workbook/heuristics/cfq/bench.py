"""The disk/CFQ model: how fast the event loop runs (``make bench``).

* the compiled event loop against the same source run as Python (the
  model engine's ``"python"``), on the notebook's case (tiobench SeqRead, 8
  readers, CFQ, the desktop), timing the loop alone on fresh copies of the
  same arrays; target: the compiled loop at least 100 times faster;
* simulated requests per second on the 2011 RAID run (eight aio-stress with
  usleep, CFQ: the busiest scheduler path);
* one slider update of the notebook's explorer at its default size:
  SeqRead with 1..16 readers through ``simulate`` and the frames (what a
  widget change recomputes); target: 50 ms or less, i.e. 20 updates/s.
"""

from __future__ import annotations

import time

from kernel_workbook.bench import Bench


def _loop_timer(case, run):
    """pyperf time function: ``run(arrays)`` on a fresh copy of ``case`` each loop, timing the run alone."""
    def time_func(loops: int) -> float:
        total = 0.0
        for _ in range(loops):
            a = case.copy()
            t0 = time.perf_counter()
            run(a)
            total += time.perf_counter() - t0
        return total
    return time_func


def benchmarks() -> list[Bench]:
    from kernel_workbook.models.cfq import DESKTOP_2014, KERNELS, RAID_LSI1078_2011, IOParams, build_arrays, \
        cfq_for_kernel
    from kernel_workbook.heuristics.cfq.charts import READERS, df_readers_sweep
    from . import aio_stress, tiobench

    run, run_python = KERNELS.function("jit"), KERNELS.function("python")
    desk = IOParams(cfq=cfq_for_kernel("3.16"), disk=DESKTOP_2014)
    case = build_arrays(desk, tiobench.seqread(8, mb_total=64), seed=1)
    nreq = float(case.R.shape[0])
    run(*case.copy().args())  # compile (or load from the cache) outside the timing

    jitted = _loop_timer(case, lambda a: run(*a.args()))
    python = _loop_timer(case, lambda a: run_python(*a.args()))

    raid = IOParams(cfq=cfq_for_kernel("3.1"), disk=RAID_LSI1078_2011)
    big = build_arrays(raid, aio_stress.patlasov_2011(usleep_us=1000, file_mb=4), seed=1)

    raid_run = _loop_timer(big, lambda a: run(*a.args()))

    df_readers_sweep(desk)  # warm

    def slider(loops: int) -> float:
        t0 = time.perf_counter()
        for _ in range(loops):
            df_readers_sweep(desk, READERS)
        return time.perf_counter() - t0

    return [
        Bench("cfq.event loop: tiobench SeqRead, 8 readers, CFQ (compiled)", jitted, nreq, "requests",
              baseline="pure-Python reference (same source)", baseline_time_func=python, target_ratio=100.0),
        Bench("cfq.event loop: 8 x aio-stress + usleep on the LSI RAID, CFQ", raid_run, float(big.R.shape[0]),
              "requests", target_per_s=200_000.0),
        Bench("cfq.slider update: SeqRead 1..16 readers, 64 MB each, simulate + frames", slider, 1.0, "updates",
              target_per_s=20.0),
    ]
