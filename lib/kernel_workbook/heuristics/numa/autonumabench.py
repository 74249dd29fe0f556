"""Andrea Arcangeli's autonumabench (autonuma-benchmark), as the NUMA model's workloads.

What each test does (numa01.c / numa02.c of autonuma-benchmark, read for this
workbook; the sizes are the benchmark's own):

* **NUMA01** — ``fork()`` first, so two processes, each with ``NR_CPUS/2``
  threads and its *own* 3 GB ``malloc`` buffer.  Every thread first zeroes the
  whole buffer (``bzero(p_global, SIZE)``), then zeroes it again 50 times: all
  threads of a process write all of its memory.  The thread calls this
  "adversarial": no placement makes the memory local to every thread.
* **NUMA01_THREADLOCAL** — numa01 built with ``-DTHREAD_ALLOC``: after the
  shared first pass each thread zeroes only its ``SIZE/THREADS`` slice, 1000
  times.
* **NUMA02** — one process, ``NR_CPUS`` threads, a 1 GB buffer; each thread
  zeroes its ``SIZE/THREADS`` slice ``TOTALSIZE/SIZE`` = 800 times.  Its first
  touch is its own, so memory starts local.
* **NUMA02_SMT** — numa02 with ``NR_CPUS/2`` threads.

Memory is simulated in transparent huge pages (the 2015 autonumabench vmstat
shows ``numa_huge_pte_updates`` x 512 making up almost all of
``numa_pte_updates``).  ``unit_thps=k`` makes one simulated unit stand for k
huge pages: k times fewer units, counts multiplied back by k (the CI-sized
runs use this).  Slices that do not end on a unit boundary share their edge
units with the neighbouring thread, as in the real program.
"""

from __future__ import annotations

import numpy as np

from ...errors import WorkbookParameterError
from ...models.numa import HPAGE_PMD_NR, PAGE_SIZE, SWEEP, NumaWorkload, machine

GB = 1 << 30
THP_BYTES = HPAGE_PMD_NR * PAGE_SIZE

NUMA01_SIZE = 3 * GB  # numa01.c SIZE
NUMA01_PASSES = 50  # numa01.c: nr = 50 without THREAD_ALLOC
NUMA01_THREADLOCAL_PASSES = 1000  # numa01.c: nr = 1000 with THREAD_ALLOC
NUMA02_SIZE = 1 * GB  # numa02.c SIZE
NUMA02_PASSES = (4 * GB * 200) // GB  # numa02.c TOTALSIZE / SIZE

WORKLOADS = ("NUMA01", "NUMA01_THREADLOCAL", "NUMA02", "NUMA02_SMT")


def _check(machine_name, unit_thps, passes_scale):
    m = machine(machine_name)
    if not (isinstance(unit_thps, (int, np.integer)) and unit_thps >= 1):
        raise WorkbookParameterError("unit_thps", unit_thps, "a positive integer (huge pages per simulated unit)")
    if not (0 < passes_scale <= 1):
        raise WorkbookParameterError("passes_scale", passes_scale, "in (0, 1]")
    return m


def _slice_units(i: int, size: int, threads: int, unit_bytes: int) -> tuple[int, int]:
    ts = size // threads
    a = (i * ts) // unit_bytes
    b = -(-((i + 1) * ts) // unit_bytes)
    return a, max(b, a + 1)


def _build(name, m, procs, threads, size, phases_of, unit_thps, setup_s, description, params):
    unit_bytes = unit_thps * THP_BYTES
    units = -(-size // unit_bytes)
    T = procs * threads
    task_mm = np.repeat(np.arange(procs), threads).astype(np.int64)
    # clone() puts each new thread on the idlest CPU: round-robin over the nodes
    task_node0 = (np.arange(T) % m.nr_nodes).astype(np.int64)
    kinds, starts, ends, reps = [], [], [], []
    task_phase0, task_nphases = [], []
    for t in range(T):
        p, i = divmod(t, threads)
        base = p * units
        task_phase0.append(len(kinds))
        ph = phases_of(i, units, unit_bytes)
        for a, b, r in ph:
            kinds.append(SWEEP)
            starts.append(base + a)
            ends.append(base + b)
            reps.append(r)
        task_nphases.append(len(ph))
    P = len(kinds)
    mm_start = (np.arange(procs) * units).astype(np.int64)
    mm_end = mm_start + units
    return NumaWorkload(
        name=name, unit_pages=unit_thps * HPAGE_PMD_NR, unit_huge=True,
        task_mm=task_mm, task_node0=task_node0,
        task_phase0=np.array(task_phase0, np.int64), task_nphases=np.array(task_nphases, np.int64),
        phase_kind=np.array(kinds, np.int64), phase_start=np.array(starts, np.int64),
        phase_end=np.array(ends, np.int64), phase_reps=np.array(reps, np.int64),
        phase_shared_frac=np.zeros(P), phase_write_frac=np.ones(P),
        mm_start=mm_start, mm_end=mm_end, mm_shared_start=mm_start.copy(), mm_shared_end=mm_end.copy(),
        access_us=0.0, setup_s=setup_s, max_seconds=params.pop("max_seconds"),
        description=description, params=params,
    )


def numa01(machine_name="mel-4socket-48", *, unit_thps: int = 1, passes_scale: float = 1.0,
           setup_s: float = 0.0, max_seconds: float = 4000.0) -> NumaWorkload:
    """NUMA01: 2 processes x NR_CPUS/2 threads, each process zeroing its own 3 GB buffer from every thread."""
    m = _check(machine_name, unit_thps, passes_scale)
    threads = max(1, m.nr_cpus // 2)
    passes = max(1, int(round(NUMA01_PASSES * passes_scale)))

    def phases(i, units, ub):
        return [(0, units, 1), (0, units, passes)]

    return _build("NUMA01", m, 2, threads, NUMA01_SIZE, phases, unit_thps, setup_s,
                  f"2 processes x {threads} threads; each thread zeroes its process's 3 GB buffer {passes + 1} times",
                  dict(machine=m, unit_thps=unit_thps, passes_scale=passes_scale, max_seconds=max_seconds))


def numa01_threadlocal(machine_name="mel-4socket-48", *, unit_thps: int = 1, passes_scale: float = 1.0,
                       setup_s: float = 0.0, max_seconds: float = 4000.0) -> NumaWorkload:
    """NUMA01_THREADLOCAL: as NUMA01, but after one shared pass each thread zeroes only its own slice."""
    m = _check(machine_name, unit_thps, passes_scale)
    threads = max(1, m.nr_cpus // 2)
    passes = max(1, int(round(NUMA01_THREADLOCAL_PASSES * passes_scale)))

    def phases(i, units, ub):
        a, b = _slice_units(i, NUMA01_SIZE, threads, ub)
        return [(0, units, 1), (a, min(b, units), passes)]

    return _build("NUMA01_THREADLOCAL", m, 2, threads, NUMA01_SIZE, phases, unit_thps, setup_s,
                  f"2 processes x {threads} threads; one shared pass, then {passes} passes over a private slice",
                  dict(machine=m, unit_thps=unit_thps, passes_scale=passes_scale, max_seconds=max_seconds))


def numa02(machine_name="mel-4socket-48", *, unit_thps: int = 1, passes_scale: float = 1.0, smt: bool = False,
           setup_s: float = 0.0, max_seconds: float = 1000.0) -> NumaWorkload:
    """NUMA02 (NR_CPUS threads) or NUMA02_SMT (NR_CPUS/2): each thread zeroes its slice of 1 GB 800 times."""
    m = _check(machine_name, unit_thps, passes_scale)
    threads = max(1, m.nr_cpus // 2) if smt else m.nr_cpus
    passes = max(1, int(round(NUMA02_PASSES * passes_scale)))

    def phases(i, units, ub):
        a, b = _slice_units(i, NUMA02_SIZE, threads, ub)
        return [(a, min(b, units), passes)]

    name = "NUMA02_SMT" if smt else "NUMA02"
    return _build(name, m, 1, threads, NUMA02_SIZE, phases, unit_thps, setup_s,
                  f"1 process x {threads} threads; each zeroes its slice of 1 GB {passes} times",
                  dict(machine=m, unit_thps=unit_thps, passes_scale=passes_scale, smt=smt,
                       max_seconds=max_seconds))


def numa02_smt(machine_name="mel-4socket-48", **kw) -> NumaWorkload:
    return numa02(machine_name, smt=True, **kw)


def autonumabench(name: str, machine_name="mel-4socket-48", **kw) -> NumaWorkload:
    """One autonumabench test by the name mmtests prints (``NUMA01`` ... ``NUMA02_SMT``)."""
    makers = {"NUMA01": numa01, "NUMA01_THREADLOCAL": numa01_threadlocal, "NUMA01_THEADLOCAL": numa01_threadlocal,
              "NUMA02": numa02, "NUMA02_SMT": numa02_smt}
    if name not in makers:
        raise WorkbookParameterError("workload", name, "one of " + ", ".join(WORKLOADS))
    return makers[name](machine_name, **kw)
