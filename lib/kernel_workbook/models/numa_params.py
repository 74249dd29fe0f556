"""Knobs of the automatic NUMA balancing model, named as the kernel names them.

Three frozen dataclasses describe one simulation:

* :class:`NumaParams` — the kernel: sysctls and constants of
  ``kernel/sched/fair.c`` and ``mm/migrate.c`` (3.19 / 4.0), the switches that
  tell the kernels of the 2015 thread apart, failure probabilities and the
  cost assumptions that turn events into system time;
* :class:`Machine` — nodes, CPUs, memory, watermarks and memory bandwidth;
* :class:`NumaWorkload` — tasks, address spaces and how each thread touches
  them (built by :mod:`kernel_workbook.workloads.autonumabench` and
  :mod:`kernel_workbook.workloads.xfs_repair`).

Every field says its unit and the kernel file and function it mirrors.
Defaults are the kernel's defaults; the cost constants are physical priors,
each with its reason in :data:`COST_PRIORS` (the reproduction fits only the
per-CPU overhead on the 3.19 column and keeps the per-event costs at these
priors, see :mod:`kernel_workbook.reproduce.numa_2015`).

Where this model departs from ``../shared/kernel-heuristics.md`` §3, the kernel
source wins: ``migrate_ratelimited()`` was dead code from 3.13 on (commit
9e645ab6d089, "sched/numa: Continue PTE scanning even if migrate rate
limited", as Mel's 2015 patch "mm: numa: Remove migrate_ratelimited" says), so
no kernel of the thread skips PTE scanning while a node is rate limited.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

import numpy as np

from ..errors import WorkbookParameterError

PAGE_SIZE = 4096  # bytes, x86-64 base page
HPAGE_PMD_NR = 512  # base pages in a transparent huge page (2 MiB), include/linux/huge_mm.h

# TNF_NO_GROUP rules, as the thread names them (do_numa_page(), mm/memory.c)
NO_GROUP_RULES = ("pte_write", "always_read_only", "pte_dirty", "VM_WRITE")
NO_GROUP_RULE_DOC = {
    "pte_write": "3.19: TNF_NO_GROUP if !pte_write(pte); _PAGE_NUMA hinting keeps the write bit",
    "always_read_only": "4.0-rc1: the PROT_NONE conversion (4d9424669946) restores vma->vm_page_prot, "
                        "so pte_write() is false on every private page: every fault is TNF_NO_GROUP",
    "pte_dirty": "Linus's fix 53da3bc2ba9e (4.0-rc4): TNF_NO_GROUP if !pte_dirty(pte); "
                 "a base page migrated since its last write is clean",
    "VM_WRITE": "Mel's bea66fbd11af: TNF_NO_GROUP if !(vma->vm_flags & VM_WRITE); a heap is writable",
}
HINT_PTE = ("_PAGE_NUMA", "PROT_NONE")

COST_FIELDS = ("cost_hint_fault_us", "cost_pte_update_ns", "cost_migrate_page_us", "cost_migrate_unmap_us",
               "cost_tlb_flush_ipi_us", "cost_wp_fault_us", "cost_numa_search_us", "cost_task_move_us",
               "cost_sched_tick_us")
# Why each default cost is what it is: physical estimates for a 2015 x86 server (Mel's 4-socket box), stated as
# assumptions.  The reproduction prints this table beside what it fitted.
COST_PRIORS = {
    "cost_hint_fault_us": "a minor fault's entry and exit (~0.5 us) plus do_numa_page(): the pte lock, "
                          "mpol_misplaced() and task_numa_fault() bookkeeping (~1 us)",
    "cost_pte_update_ns": "change_pte_range() rewrites one entry: a locked read-modify-write of a cached line",
    "cost_migrate_page_us": "copying 4 KiB from a remote node at ~4 GB/s (one thread, across the interconnect)",
    "cost_migrate_unmap_us": "isolate_lru_page() (zone LRU lock), lock_page(), the rmap walk of try_to_unmap(), "
                             "installing and removing the migration entry, putback: a few contended cache lines",
    "cost_tlb_flush_ipi_us": "an IPI to another socket and its acknowledgement: the sender writes the APIC once "
                             "per target (physflat: one at a time) and waits in smp_call_function_many(); the "
                             "target takes the interrupt and runs INVLPG (~1-2 us per target on bare metal; more "
                             "in a VM, where each APIC write exits to the hypervisor)",
    "cost_wp_fault_us": "a write fault that only sets the write bit again (do_wp_page() reusing the page)",
    "cost_numa_search_us": "per CPU examined: read its runqueue (update_numa_stats()) and take its rq lock in "
                           "task_numa_compare(): one or two cache-line transfers between sockets",
    "cost_task_move_us": "stop_one_cpu()/stop_two_cpus(): an IPI, two context switches per CPU involved",
    "cost_sched_tick_us": "fitted: the system time a running thread costs outside NUMA balancing",
}


@dataclass(frozen=True)
class NumaParams:
    """One kernel: its NUMA-balancing knobs, the thread's switches, and cost assumptions."""

    # --- sysctls, kernel/sched/fair.c (/proc/sys/kernel/numa_balancing_*) ---
    numa_balancing_scan_period_min_ms: int = 1000  # ms, sysctl_numa_balancing_scan_period_min; task_scan_min()
    numa_balancing_scan_period_max_ms: int = 60000  # ms, sysctl_numa_balancing_scan_period_max; task_scan_max()
    numa_balancing_scan_size_mb: int = 256  # MB of populated address space per pass, task_numa_work()
    numa_balancing_scan_delay_ms: int = 1000  # ms before an mm's first scan, __sched_fork()/task_numa_work()
    # --- constants, kernel/sched/fair.c ---
    MAX_SCAN_WINDOW: int = 2560  # MB/s, cap on the PTE scan rate, task_scan_min()
    NUMA_PERIOD_SLOTS: int = 10  # the period moves in tenths, update_task_scan_period()
    NUMA_PERIOD_THRESHOLD: int = 7  # slots of local faults below which scanning speeds up, update_task_scan_period()
    numa_imbalance_pct: int = 112  # %, 100 + (sd->imbalance_pct - 100) / 2 for the NUMA domain, task_numa_migrate()
    # --- mm/migrate.c, migrate_misplaced_page() and numamigrate_update_ratelimit() ---
    ratelimit_pages: int = 128 << (20 - 12)  # base pages per window per destination node (128 MB), mm/migrate.c
    migrate_interval_millisecs: int = 100  # ms, length of a rate-limit window, mm/migrate.c
    # --- the switches that tell the thread's kernels apart ---
    TNF_MIGRATE_FAIL: bool = False  # slowscan-v2: numa_faults_locality[2]; any failed migration in a
    #                                 window doubles the period, update_task_scan_period() (kernel/sched/fair.c)
    TNF_NO_GROUP: str = "pte_write"  # rule in do_numa_page() (mm/memory.c): one of NO_GROUP_RULES
    numa_hint_pte: str = "_PAGE_NUMA"  # "_PAGE_NUMA" (3.19: the fault keeps the write bit) or "PROT_NONE"
    #                                    (4.0: pte_modify(pte, vma->vm_page_prot) makes it read-only, so the
    #                                    next write takes a write-protect fault), do_numa_page()
    # --- other failure causes of a migration, as probabilities (assumptions) ---
    isolate_lru_fail_prob: float = 0.01  # isolate_lru_page() fails (page on a per-CPU pagevec, or isolated by
    #                                      reclaim/compaction), numamigrate_isolate_page(); not pgmigrate_fail
    migrate_pages_fail_prob: float = 0.0  # MIGRATE_ASYNC gives up on an isolated base page (locked, under
    #                                       writeback, extra reference), migrate_pages(); counted in pgmigrate_fail
    # --- costs: us (or ns) of system time per event.  Every default is a physical prior (the reasoning is in
    #     COST_PRIORS below and in the 2015 notebook); the reproduction fits only what the 3.19 column
    #     identifies (cost_sched_tick_us) and keeps the rest at these priors ---
    cost_hint_fault_us: float = 1.5  # us per NUMA hinting fault (base page or THP): trap entry/exit, pte/pmd lock,
    #                                  mpol_misplaced(), task_numa_fault(); do_numa_page()/do_huge_pmd_numa_page()
    cost_pte_update_ns: float = 20.0  # ns per PTE or PMD made PROT_NONE/_PAGE_NUMA, change_prot_numa()
    #                                   (mm/mprotect.c)
    cost_migrate_page_us: float = 1.0  # us per base page copied to the destination node (4 KiB over the
    #                                    interconnect), migrate_page_copy() (mm/migrate.c)
    cost_migrate_unmap_us: float = 2.0  # us per page or THP moved, without the copy and the IPIs: isolate_lru_page(),
    #                                     page lock, try_to_unmap()'s rmap walk, migration entries and
    #                                     remove_migration_ptes(), putback; migrate_pages() (mm/migrate.c)
    cost_tlb_flush_ipi_us: float = 1.5  # us per CPU that a TLB-flush IPI targets: the sender's APIC write and wait
    #                                     for the ack, the target's interrupt and INVLPG; flush_tlb_page() ->
    #                                     native_flush_tlb_others() (arch/x86/mm/tlb.c) to the CPUs in mm_cpumask
    cost_wp_fault_us: float = 1.0  # us per write-protect fault after a PROT_NONE hinting fault (a fault round trip
    #                                that reuses the page), do_wp_page() (mm/memory.c)
    cost_numa_search_us: float = 0.2  # us per CPU that task_numa_migrate() examines: update_numa_stats() and
    #                                   task_numa_compare() under the remote rq lock (kernel/sched/fair.c)
    cost_task_move_us: float = 10.0  # us per NUMA task move or swap: migrate_task_to()/migrate_swap() wake the
    #                                  stopper thread(s) of one or two CPUs, stop_one_cpu()/stop_two_cpus()
    cost_sched_tick_us: float = 0.0  # system us per ms of CPU a thread runs, outside NUMA balancing:
    #                                  scheduler_tick() (kernel/sched/core.c), accounting, interrupts (fitted)
    # --- model time step ---
    tick_ms: int = 4  # ms per simulated scheduler tick (a jiffy at HZ=250), task_tick_numa()

    def __post_init__(self):
        validate_params(self)

    def describe(self) -> str:
        """One line per knob that differs from the 3.19 default (the ARG lines of the run)."""
        base = NumaParams()
        out = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if getattr(self, f.name) != getattr(base, f.name)]
        return ", ".join(out) or "3.19 defaults"


def validate_params(p: NumaParams) -> None:
    def need(name, ok, expected):
        if not ok:
            raise WorkbookParameterError(name, getattr(p, name), expected)

    ints_pos = ["numa_balancing_scan_period_min_ms", "numa_balancing_scan_period_max_ms",
                "numa_balancing_scan_size_mb", "MAX_SCAN_WINDOW", "NUMA_PERIOD_SLOTS", "ratelimit_pages",
                "migrate_interval_millisecs", "tick_ms"]
    for n in ints_pos:
        v = getattr(p, n)
        need(n, isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0, "a positive integer")
    need("numa_balancing_scan_delay_ms", isinstance(p.numa_balancing_scan_delay_ms, (int, np.integer))
         and p.numa_balancing_scan_delay_ms >= 0, "an integer >= 0 (ms)")
    need("numa_balancing_scan_period_max_ms", p.numa_balancing_scan_period_max_ms >= p.numa_balancing_scan_period_min_ms,
         f">= numa_balancing_scan_period_min_ms ({p.numa_balancing_scan_period_min_ms})")
    need("NUMA_PERIOD_THRESHOLD", isinstance(p.NUMA_PERIOD_THRESHOLD, (int, np.integer))
         and 0 < p.NUMA_PERIOD_THRESHOLD <= p.NUMA_PERIOD_SLOTS, f"an integer in 1..NUMA_PERIOD_SLOTS ({p.NUMA_PERIOD_SLOTS})")
    need("numa_imbalance_pct", isinstance(p.numa_imbalance_pct, (int, np.integer)) and p.numa_imbalance_pct >= 100,
         "an integer >= 100 (%)")
    need("TNF_NO_GROUP", p.TNF_NO_GROUP in NO_GROUP_RULES, "one of " + ", ".join(NO_GROUP_RULES))
    need("numa_hint_pte", p.numa_hint_pte in HINT_PTE, "one of " + ", ".join(HINT_PTE))
    need("TNF_MIGRATE_FAIL", isinstance(p.TNF_MIGRATE_FAIL, (bool, np.bool_)), "True or False")
    for n in ("isolate_lru_fail_prob", "migrate_pages_fail_prob"):
        v = getattr(p, n)
        need(n, isinstance(v, (int, float)) and 0.0 <= v <= 1.0, "a probability in [0, 1]")
    for n in COST_FIELDS:
        v = getattr(p, n)
        need(n, isinstance(v, (int, float)) and math.isfinite(v) and v >= 0, "a finite cost >= 0")
    need("tick_ms", p.tick_ms <= 100, "at most 100 ms")


# The kernels of the thread.  Each is 3.19's defaults plus the switches that changed.
KERNELS: dict[str, dict] = {
    "3.19.0 vanilla": dict(TNF_NO_GROUP="pte_write", numa_hint_pte="_PAGE_NUMA", TNF_MIGRATE_FAIL=False),
    "4.0.0-rc1 vanilla": dict(TNF_NO_GROUP="always_read_only", numa_hint_pte="PROT_NONE", TNF_MIGRATE_FAIL=False),
    "4.0.0-rc1 slowscan-v2": dict(TNF_NO_GROUP="always_read_only", numa_hint_pte="PROT_NONE", TNF_MIGRATE_FAIL=True),
    "4.0.0-rc1 ptewrite-v1r20": dict(TNF_NO_GROUP="pte_dirty", numa_hint_pte="PROT_NONE", TNF_MIGRATE_FAIL=False),
    "4.0-rc4": dict(TNF_NO_GROUP="pte_dirty", numa_hint_pte="PROT_NONE", TNF_MIGRATE_FAIL=False),
    "4.0-rc4+VM_WRITE": dict(TNF_NO_GROUP="VM_WRITE", numa_hint_pte="PROT_NONE", TNF_MIGRATE_FAIL=False),
    "3.19+pte_dirty": dict(TNF_NO_GROUP="pte_dirty", numa_hint_pte="_PAGE_NUMA", TNF_MIGRATE_FAIL=False),
    "3.19+VM_WRITE": dict(TNF_NO_GROUP="VM_WRITE", numa_hint_pte="_PAGE_NUMA", TNF_MIGRATE_FAIL=False),
}
KERNEL_DOC = {
    "3.19.0 vanilla": "last good kernel: _PAGE_NUMA hinting, TNF_NO_GROUP from !pte_write",
    "4.0.0-rc1 vanilla": "PROT_NONE hinting (4d9424669946): pte_write false after every fault, so no numa groups",
    "4.0.0-rc1 slowscan-v2": "4.0-rc1 + Mel's series: a failed migration in a window doubles the scan period",
    "4.0.0-rc1 ptewrite-v1r20": "4.0-rc1 + Linus's test: TNF_NO_GROUP from !pte_dirty",
    "4.0-rc4": "Dave's rc4: pte_dirty rule (53da3bc2ba9e), no slow-scan patch yet",
    "4.0-rc4+VM_WRITE": "rc4 with Mel's VM_WRITE test",
    "3.19+pte_dirty": "Dave's test: 3.19 with 53da3bc2ba9e applied",
    "3.19+VM_WRITE": "Dave's test: 3.19 with Mel's VM_WRITE test",
}


def kernel_params(kernel: str, base: NumaParams | None = None, **overrides) -> NumaParams:
    """The :class:`NumaParams` of one kernel of the thread (``KERNELS``), on top of ``base``."""
    if kernel not in KERNELS:
        raise WorkbookParameterError("kernel", kernel, "one of " + ", ".join(KERNELS))
    return replace(base or NumaParams(), **{**KERNELS[kernel], **overrides})


@dataclass(frozen=True)
class Machine:
    """A NUMA machine: ``nr_nodes`` nodes of ``cpus_per_node`` CPUs and ``node_mem_mb`` each."""

    name: str
    nr_nodes: int  # nodes (nr_node_ids)
    cpus_per_node: int  # CPUs per node (cpumask_of_node)
    node_mem_mb: int  # MB of memory per node (pgdat->node_present_pages)
    high_wmark_mb: float  # MB, high watermark summed over the node's zones, migrate_balanced_pgdat() (mm/migrate.c)
    node_bandwidth_mbs: float  # MB/s a node's memory controller gives the threads running on it (bzero); shared
    remote_access_cost: float  # time of a remote access / time of a local one (>= 1)
    note: str = ""

    def __post_init__(self):
        for n in ("nr_nodes", "cpus_per_node", "node_mem_mb"):
            v = getattr(self, n)
            if not (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0):
                raise WorkbookParameterError(n, v, "a positive integer")
        if self.nr_nodes > 64:
            raise WorkbookParameterError("nr_nodes", self.nr_nodes, "at most 64")
        if not (0 <= self.high_wmark_mb < self.node_mem_mb):
            raise WorkbookParameterError("high_wmark_mb", self.high_wmark_mb, f"in [0, node_mem_mb={self.node_mem_mb})")
        if not (self.node_bandwidth_mbs > 0 and math.isfinite(self.node_bandwidth_mbs)):
            raise WorkbookParameterError("node_bandwidth_mbs", self.node_bandwidth_mbs, "a positive bandwidth (MB/s)")
        if not (self.remote_access_cost >= 1.0 and math.isfinite(self.remote_access_cost)):
            raise WorkbookParameterError("remote_access_cost", self.remote_access_cost, "a ratio >= 1")

    @property
    def nr_cpus(self) -> int:
        return self.nr_nodes * self.cpus_per_node


# Presets.  Sizes are the thread's; bandwidth and remote cost are first guesses that the
# reproduction re-fits on the 3.19 column (autonumabench User times).
MACHINES: dict[str, Machine] = {
    "mel-4socket-48": Machine(
        "mel-4socket-48", nr_nodes=4, cpus_per_node=12, node_mem_mb=32768, high_wmark_mb=48.0,
        node_bandwidth_mbs=5000.0, remote_access_cost=1.6,
        note="Mel Gorman's 4-socket bare-metal machine with 48 cores (autonumabench, xfsrepair)"),
    "dave-vm-fake4-16": Machine(
        "dave-vm-fake4-16", nr_nodes=4, cpus_per_node=4, node_mem_mb=4096, high_wmark_mb=16.0,
        node_bandwidth_mbs=5000.0, remote_access_cost=1.0,
        note="Dave Chinner's KVM guest: -smp 16 -m 16384, numa=fake=4 (4 GB per node; fake nodes share "
             "the host's memory, so a 'remote' access costs what a local one does)"),
    "one-node": Machine(
        "one-node", nr_nodes=1, cpus_per_node=16, node_mem_mb=16384, high_wmark_mb=16.0,
        node_bandwidth_mbs=5000.0, remote_access_cost=1.0, note="a UMA machine: NUMA balancing has nothing to do"),
}


def machine(name_or_machine) -> Machine:
    if isinstance(name_or_machine, Machine):
        return name_or_machine
    if name_or_machine not in MACHINES:
        raise WorkbookParameterError("machine", name_or_machine, "a Machine or one of " + ", ".join(MACHINES))
    return MACHINES[name_or_machine]


# Access patterns of a thread's phase
SWEEP = 0  # bzero(): every unit of [start, end) in order, `reps` times
RANDOM = 1  # pointer chasing: `reps` accesses, each to a random unit (shared region or the thread's own)


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
    if not (0 < w.max_seconds <= 10 * 86400):
        raise WorkbookParameterError("workload.max_seconds", w.max_seconds, "in (0, 864000] s")
    need_pages = w.nr_units * w.unit_pages * PAGE_SIZE / 2**20
    have = m.nr_nodes * (m.node_mem_mb - m.high_wmark_mb - w.prefill_mb)
    if need_pages > have:
        raise WorkbookParameterError("workload", f"{need_pages:.0f} MB",
                                     f"at most {have:.0f} MB (the machine's memory above the watermarks)")
