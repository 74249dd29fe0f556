"""The NUMA balancing model: how fast it simulates (``make bench``).

Targets (issue 6):

* a default NUMA02 run (3.19, the real sizes, seed 1) in <= 50 ms once compiled
  (``runs`` per second >= 20);
* >= 10 million simulated accesses per second on one core;
* the jitted kernel >= 100x "a pure-Python reference of the same loop".

The access rate depends on how many accesses take a hinting fault, so it is
reported for a fault-light load (NUMA01_THREADLOCAL, the real size) and a
fault-heavy one (NUMA01 under 4.0-rc1) separately.

Which pure-Python baseline: the ratio is measured against the jitted kernel's
*own source run without Numba* (``simulate(..., engine="python")``: the file
``balancing_kernel.py`` loaded a second time with its decorator the identity, fed
the same inputs).  That is the same loop, statement for statement.  The
object-based reference (``engine="reference"``, :mod:`kernel_workbook.models.numa.reference`) is
written independently for the identity tests; it is about three times faster
than the flat source as plain Python (attribute access beats NumPy scalar
indexing), so the last benchmark reports the ratio against it too, without a
target.
"""

from __future__ import annotations

import time

from kernel_workbook.bench import Bench


def benchmarks() -> list[Bench]:
    from kernel_workbook.models.numa import kernel_params, simulate
    from kernel_workbook.heuristics.numa.autonumabench import autonumabench
    from kernel_workbook.heuristics.numa.xfs_repair import xfs_repair

    k319 = kernel_params("3.19.0 vanilla")
    krc1 = kernel_params("4.0.0-rc1 vanilla")
    numa02 = autonumabench("NUMA02")
    threadlocal = autonumabench("NUMA01_THREADLOCAL")
    numa01 = autonumabench("NUMA01", passes_scale=0.25)
    numa02_s = autonumabench("NUMA02", passes_scale=0.04)
    xfs = xfs_repair("mel-4socket-48", unit_pages=512, seconds=10, accesses_per_s=5000, wander_per_s=0.2)

    def accesses(p, w):
        return simulate(p, w, seed=1, verbose=False).counters["accesses"]  # also compiles / loads the cache

    def timer(p, w, engine="jit"):
        def run(loops: int) -> float:
            t0 = time.perf_counter()
            for _ in range(loops):
                simulate(p, w, seed=1, verbose=False, engine=engine)
            return time.perf_counter() - t0
        return run

    n02s, nxfs = accesses(k319, numa02_s), accesses(krc1, xfs)
    return [
        Bench("numa: default NUMA02 run, 3.19 (target <= 50 ms/run)", timer(k319, numa02), 1, "runs",
              target_per_s=20.0),
        Bench("numa: accesses, NUMA01_THREADLOCAL full size (few faults)", timer(k319, threadlocal),
              accesses(k319, threadlocal), "accesses", target_per_s=10e6),
        Bench("numa: accesses, NUMA01 4.0-rc1, a quarter of its passes (many faults)", timer(krc1, numa01),
              accesses(krc1, numa01), "accesses", target_per_s=10e6),
        Bench("numa: NUMA02 (4% of its passes), jitted vs the same kernel source without Numba", timer(k319, numa02_s),
              n02s, "accesses", baseline="same loop as plain Python (engine='python')",
              baseline_time_func=timer(k319, numa02_s, "python"), baseline_items=n02s, target_ratio=100.0),
        Bench("numa: xfs_repair-like 4.0-rc1 (512-page units, 10 s), jitted vs the same kernel source without Numba",
              timer(krc1, xfs), nxfs, "accesses", baseline="same loop as plain Python (engine='python')",
              baseline_time_func=timer(krc1, xfs, "python"), baseline_items=nxfs, target_ratio=100.0),
        Bench("numa: xfs_repair-like 4.0-rc1, jitted vs the object-based reference (no target)", timer(krc1, xfs),
              nxfs, "accesses", baseline="object-based reference (engine='reference')",
              baseline_time_func=timer(krc1, xfs, "reference"), baseline_items=nxfs),
    ]
