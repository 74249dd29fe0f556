"""The NUMA model's workload: tasks, address spaces and how each thread touches them (plain arrays).

The generators (autonumabench, the xfs_repair-like load) live in
``kernel_workbook.heuristics.numa`` and build these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...errors import WorkbookParameterError
from ..layout import enum
from .params import HPAGE_PMD_NR, PAGE_SIZE, Machine

# Access patterns of a thread's phase -- SWEEP: bzero(), every unit of [start, end) in order, `reps` times;
# RANDOM: pointer chasing, `reps` accesses, each to a random unit (shared region or the thread's own)
ACCESS = enum("ACCESS", "SWEEP RANDOM")
SWEEP, RANDOM = ACCESS.SWEEP, ACCESS.RANDOM


@dataclass(frozen=True)
class NumaWorkload:
    """Tasks, address spaces and access patterns, as plain arrays.

    Memory is simulated in *units* of ``unit_pages`` base pages: a unit is a
    transparent huge page (``unit_huge``, ``unit_pages`` = 512 x k) or a group
    of base pages.  A unit faults, migrates and is scanned as one; every count
    is reported in the kernel's units (pages, faults), i.e. multiplied by what
    a unit stands for.  Scaling a workload down means coarser units (fewer of
    them, same bytes, same ratios).

    Per task (arrays of length ``nr_tasks``): ``task_mm`` (its address space),
    ``task_phase0``/``task_nphases`` (its phases in the phase arrays),
    ``task_node0`` (node it starts on).  Per phase: ``phase_kind`` (SWEEP or
    RANDOM), ``phase_start``/``phase_end`` (units, global index),
    ``phase_reps`` (sweeps, or accesses for RANDOM), ``phase_shared_frac``
    (RANDOM: probability an access goes to the mm's shared region
    ``mm_shared_start:mm_shared_end`` instead of the phase's own range),
    ``phase_write_frac`` (probability an access writes).  Per mm:
    ``mm_start``/``mm_end`` (its units, contiguous).
    """

    name: str
    unit_pages: int  # base pages per simulated unit
    unit_huge: bool  # units are THPs (PMD-mapped): a fault or a PMD update per 512 pages
    task_mm: np.ndarray
    task_node0: np.ndarray
    task_phase0: np.ndarray
    task_nphases: np.ndarray
    phase_kind: np.ndarray
    phase_start: np.ndarray
    phase_end: np.ndarray
    phase_reps: np.ndarray
    phase_shared_frac: np.ndarray
    phase_write_frac: np.ndarray
    mm_start: np.ndarray
    mm_end: np.ndarray
    mm_shared_start: np.ndarray
    mm_shared_end: np.ndarray
    access_us: float  # CPU us a local access to one unit costs when the node's bandwidth is not shared
    #                   (SWEEP: derived from Machine.node_bandwidth_mbs if <= 0)
    io_us_per_access: float = 0.0  # us of I/O wait after each access (off CPU; xfs_repair's direct reads)
    sys_us_per_access: float = 0.0  # us of system time per access outside NUMA balancing (its I/O syscalls)
    wander_per_s: float = 0.0  # times per second a thread wakes on another node (select_idle_sibling/idle balance)
    dio_pages: float = 0.0  # pages of each in-flight direct I/O (pinned by get_user_pages() while the thread
    #                         waits) that other threads touch too: a hinting fault on one cannot migrate it
    setup_s: float = 0.0  # s of elapsed time outside the simulated threads (fork, malloc, exit)
    max_seconds: float = 3600.0  # stop the simulation here even if threads have work left
    prefill_mb: float = 0.0  # MB per node already in use (page cache, other processes) at the start
    description: str = ""
    params: dict = field(default_factory=dict)  # the generator's arguments, echoed in captions

    @property
    def nr_tasks(self) -> int:
        return int(len(self.task_mm))

    @property
    def nr_units(self) -> int:
        return int(self.mm_end.max()) if len(self.mm_end) else 0

    @property
    def nr_mm(self) -> int:
        return int(len(self.mm_start))

    @property
    def faults_per_unit(self) -> int:
        """Kernel hinting faults (or migrations) one simulated unit stands for."""
        return self.unit_pages // HPAGE_PMD_NR if self.unit_huge else self.unit_pages


def validate_workload(w: NumaWorkload, m: Machine) -> None:
    T = w.nr_tasks
    if T < 1:
        raise WorkbookParameterError("workload.nr_tasks", T, "at least one task")
    if not (isinstance(w.unit_pages, (int, np.integer)) and w.unit_pages >= 1):
        raise WorkbookParameterError("workload.unit_pages", w.unit_pages, "a positive integer")
    if w.unit_huge and w.unit_pages % HPAGE_PMD_NR:
        raise WorkbookParameterError("workload.unit_pages", w.unit_pages, "a multiple of 512 for THP units")
    for n in ("task_mm", "task_node0", "task_phase0", "task_nphases"):
        if len(getattr(w, n)) != T:
            raise WorkbookParameterError(f"workload.{n}", len(getattr(w, n)), f"{T} entries (one per task)")
    if (w.task_node0 < 0).any() or (w.task_node0 >= m.nr_nodes).any():
        raise WorkbookParameterError("workload.task_node0", w.task_node0.tolist()[:8], f"nodes in 0..{m.nr_nodes - 1}")
    if (w.task_mm < 0).any() or (w.task_mm >= w.nr_mm).any():
        raise WorkbookParameterError("workload.task_mm", w.task_mm.tolist()[:8], f"mm ids in 0..{w.nr_mm - 1}")
    P = len(w.phase_kind)
    for n in ("phase_start", "phase_end", "phase_reps", "phase_shared_frac", "phase_write_frac"):
        if len(getattr(w, n)) != P:
            raise WorkbookParameterError(f"workload.{n}", len(getattr(w, n)), f"{P} entries (one per phase)")
    if ((w.phase_end - w.phase_start) < 1).any():
        raise WorkbookParameterError("workload.phase_end", "empty range", "phase_end > phase_start")
    if not (w.access_us >= 0 and math.isfinite(w.access_us)):
        raise WorkbookParameterError("workload.access_us", w.access_us, "a cost >= 0 (us)")
    if w.io_us_per_access < 0:
        raise WorkbookParameterError("workload.io_us_per_access", w.io_us_per_access, ">= 0 us")
    if not (w.sys_us_per_access >= 0 and math.isfinite(w.sys_us_per_access)):
        raise WorkbookParameterError("workload.sys_us_per_access", w.sys_us_per_access, ">= 0 us")
    if w.wander_per_s < 0:
        raise WorkbookParameterError("workload.wander_per_s", w.wander_per_s, ">= 0 per second")
    if not (w.dio_pages >= 0 and math.isfinite(w.dio_pages)):
        raise WorkbookParameterError("workload.dio_pages", w.dio_pages, ">= 0 pages")
    if not (0 < w.max_seconds <= 10 * 86400):
        raise WorkbookParameterError("workload.max_seconds", w.max_seconds, "in (0, 864000] s")
    need_pages = w.nr_units * w.unit_pages * PAGE_SIZE / 2**20
    have = m.nr_nodes * (m.node_mem_mb - m.high_wmark_mb - w.prefill_mb)
    if need_pages > have:
        raise WorkbookParameterError("workload", f"{need_pages:.0f} MB",
                                     f"at most {have:.0f} MB (the machine's memory above the watermarks)")
