"""Knobs of the automatic NUMA balancing model, named as the kernel names them.

Three frozen dataclasses describe one simulation:

* :class:`NumaParams` — the kernel: sysctls and constants of
  ``kernel/sched/fair.c`` and ``mm/migrate.c`` (3.19 / 4.0), the switches that
  tell the kernels of the 2015 thread apart, failure probabilities and the
  cost assumptions that turn events into system time;
* :class:`Machine` — nodes, CPUs, memory, watermarks and memory bandwidth;
* :class:`NumaWorkload` — tasks, address spaces and how each thread touches
  them (built by :mod:`kernel_workbook.heuristics.numa.autonumabench` and
  :mod:`kernel_workbook.heuristics.numa.xfs_repair`).

Every field says its unit and the kernel file and function it mirrors.
Defaults are the kernel's defaults; the cost constants are physical priors,
each with its reason in :data:`COST_PRIORS` (the reproduction fits only the
per-CPU overhead on the 3.19 column and keeps the per-event costs at these
priors, see :mod:`kernel_workbook.heuristics.numa.numa_2015`).

Where this model departs from the mechanism reference (docs/models/numa.md), the kernel
source wins: ``migrate_ratelimited()`` was dead code from 3.13 on (commit
9e645ab6d089, "sched/numa: Continue PTE scanning even if migrate rate
limited", as Mel's 2015 patch "mm: numa: Remove migrate_ratelimited" says), so
no kernel of the thread skips PTE scanning while a node is rate limited.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import WorkbookParameterError
from ..knobs import Knobs, knob

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
class NumaParams(Knobs):
    """One kernel: its NUMA-balancing knobs, the thread's switches, and cost assumptions."""

    # --- sysctls, kernel/sched/fair.c (/proc/sys/kernel/numa_balancing_*) ---
    numa_balancing: bool = knob(True, kernel="numabalancing_enabled",
                                tunable="/proc/sys/kernel/numa_balancing",
                                source="kernel/sched/fair.c task_tick_fair(); kernel/sched/core.c "
                                       "set_numabalancing_state()",
                                doc="off: task_tick_numa() never runs, so no PTE is "
                                    "made PROT_NONE and no hinting fault, migration or task placement follows")
    numa_balancing_scan_period_min_ms: int = knob(
        1000, unit="ms", kernel="sysctl_numa_balancing_scan_period_min", source="kernel/sched/fair.c task_scan_min()",
        tunable="/proc/sys/kernel/numa_balancing_scan_period_min_ms",
        range=(1, 10 ** 7), widget=(100, 5000, 100))
    numa_balancing_scan_period_max_ms: int = knob(
        60000, unit="ms", kernel="sysctl_numa_balancing_scan_period_max", source="kernel/sched/fair.c task_scan_max()",
        tunable="/proc/sys/kernel/numa_balancing_scan_period_max_ms",
        range=(1, 10 ** 8), widget=(1000, 120000, 1000))
    numa_balancing_scan_size_mb: int = knob(
        256, unit="MB", kernel="sysctl_numa_balancing_scan_size", source="kernel/sched/fair.c task_numa_work()",
        tunable="/proc/sys/kernel/numa_balancing_scan_size_mb",
        range=(1, 1 << 20), widget=(16, 2048, 16), doc="populated address space made PROT_NONE per pass")
    numa_balancing_scan_delay_ms: int = knob(
        1000, unit="ms", kernel="sysctl_numa_balancing_scan_delay",
        tunable="/proc/sys/kernel/numa_balancing_scan_delay_ms",
        source="kernel/sched/fair.c __sched_fork(), task_numa_work()", range=(0, 10 ** 7), widget=(0, 5000, 100),
        doc="before an mm's first scan")
    # --- constants, kernel/sched/fair.c ---
    MAX_SCAN_WINDOW: int = knob(2560, unit="MB/s", source="kernel/sched/fair.c task_scan_min()", range=(1, 1 << 20),
                                doc="cap on the PTE scan rate")
    NUMA_PERIOD_SLOTS: int = knob(10, source="kernel/sched/fair.c update_task_scan_period()", range=(1, 1000),
                                  doc="the period moves in tenths")
    NUMA_PERIOD_THRESHOLD: int = knob(7, source="kernel/sched/fair.c update_task_scan_period()", range=(1, 1000),
                                      doc="slots of local faults below which scanning speeds up")
    numa_imbalance_pct: int = knob(112, unit="%", kernel="100 + (sd->imbalance_pct - 100) / 2",
                                   source="kernel/sched/fair.c task_numa_migrate()", range=(100, 1000),
                                   doc="for the NUMA domain")
    # --- the CFS load balancer of the NUMA domain, kernel/sched/fair.c load_balance() (3.19/4.0) ---
    load_balance: bool = knob(True, kernel="rebalance_domains() -> load_balance()",
                              source="kernel/sched/fair.c rebalance_domains(), load_balance(), find_busiest_group()",
                              doc="an idle CPU balances the NUMA domain every sd->balance_interval (sd_weight ms: "
                                  "the machine's CPUs) and pulls a task from the busiest node; nothing in 3.19/4.0 "
                                  "resists a move against NUMA placement (sched_feat NUMA_RESIST_LOWER is false)")
    cache_nice_tries: int = knob(2, kernel="sd->cache_nice_tries",
                                 source="kernel/sched/core.c sd_init() (SD_NUMA); kernel/sched/fair.c "
                                        "need_active_balance()", range=(0, 1000),
                                 doc="failed balance attempts before load_balance() pulls a cache-hot task; after "
                                     "cache_nice_tries + 2 it moves the running task itself (active balance)")
    # --- mm/migrate.c, migrate_misplaced_page() and numamigrate_update_ratelimit() ---
    ratelimit_pages: int = knob(128 << (20 - 12), unit="pages", source="mm/migrate.c numamigrate_update_ratelimit()",
                                range=(1, 1 << 30), widget=(2048, 327680, 2048),
                                doc="base pages per window per destination node (128 MB)")
    migrate_interval_millisecs: int = knob(100, unit="ms", source="mm/migrate.c numamigrate_update_ratelimit()",
                                           range=(1, 10 ** 6), doc="length of a rate-limit window")
    # --- the switches that tell the thread's kernels apart ---
    TNF_MIGRATE_FAIL: bool = knob(False, kernel="numa_faults_locality[2]",
                                  source="kernel/sched/fair.c update_task_scan_period() (slowscan-v2)",
                                  doc="any failed migration in a window doubles the period")
    TNF_NO_GROUP: str = knob("pte_write", choices=NO_GROUP_RULES, source="mm/memory.c do_numa_page()",
                             doc="the rule that flags a hinting fault TNF_NO_GROUP")
    numa_hint_pte: str = knob("_PAGE_NUMA", choices=HINT_PTE, kernel="pte_modify(pte, vma->vm_page_prot)",
                              source="mm/memory.c do_numa_page()",
                              doc="_PAGE_NUMA (3.19: the fault keeps the write bit) or PROT_NONE (4.0: read-only "
                                  "after the fault, so the next write takes a write-protect fault)")
    # --- mm/swap.c: the per-CPU pagevec a new or migrated page waits in before it is on the LRU ---
    PAGEVEC_SIZE: int = knob(14, unit="pages", kernel="PAGEVEC_SIZE",
                             source="include/linux/pagevec.h; mm/swap.c __lru_cache_add()", range=(1, 1 << 20),
                             doc="3.19/4.0 __lru_cache_add(): a page (a THP is one entry: the PageCompound drain came "
                                 "in 4.8) waits in the CPU's lru_add_pvec, holding a reference with PageLRU clear, "
                                 "until PAGEVEC_SIZE pages fill it and __pagevec_lru_add() moves them all to the LRU; "
                                 "until then isolate_lru_page() fails (mm/migrate.c numamigrate_isolate_page())")
    # --- mm/migrate.c migrate_pages(): MIGRATE_ASYNC for a misplaced page, with its retry passes ---
    migrate_pages_passes: int = knob(10, kernel="for (pass = 0; pass < 10 && retry; pass++)",
                                     source="mm/migrate.c migrate_pages()", range=(1, 1000),
                                     doc="passes over a page that returns -EAGAIN (trylock_page() failed, or "
                                         "migrate_page_move_mapping() found page_count() above what it expects: "
                                         "a get_user_pages() pin).  Every pass allocates a target page "
                                         "(numa_hit), and a pinned page is unmapped, its TLB flushed and remapped "
                                         "each time; what is still -EAGAIN after the last pass is returned as "
                                         "not migrated but not counted in pgmigrate_fail (3.19/4.0: "
                                         "'rc = nr_failed + retry', PGMIGRATE_FAIL counts nr_failed)")
    # --- other failure causes of a migration, as probabilities (explorer knobs; 0 in every reproduction) ---
    isolate_lru_fail_prob: float = knob(0.0, unit="probability", kernel="isolate_lru_page() != 0",
                                        source="mm/migrate.c numamigrate_isolate_page()", range=(0.0, 1.0),
                                        widget=(0.0, 0.2, 0.005),
                                        doc="per page: a page on the LRU isolated at that moment by someone else "
                                            "(reclaim, compaction): neither runs in the thread's runs (no memory "
                                            "pressure), so 0; the pagevec case is modelled page by page "
                                            "(PAGEVEC_SIZE). Not counted in pgmigrate_fail for a base page")
    migrate_pages_fail_prob: float = knob(0.0, unit="probability", kernel="unmap_and_move() == -EBUSY",
                                          source="mm/migrate.c __unmap_and_move(), migrate_pages()",
                                          range=(0.0, 1.0), widget=(0.0, 0.2, 0.005),
                                          doc="per isolated base page: a permanent failure, PageWriteback() under "
                                              "MIGRATE_ASYNC (-EBUSY, before the unmap); counted in "
                                              "pgmigrate_fail.  An anonymous page is under writeback only when "
                                              "swapped, which no run of the thread does, so 0.  (A locked or "
                                              "pinned page is -EAGAIN, not this: see migrate_pages_passes)")
    # --- costs: system time per event.  Every default is a physical prior (COST_PRIORS); the reproduction
    #     fits only what the 3.19 column identifies (cost_sched_tick_us).  The unit-scaled costs are packed
    #     per simulated unit by the wrapper (derived slots), the per-event ones as they are ---
    cost_hint_fault_us: float = knob(1.5, unit="us", source="mm/memory.c do_numa_page(), do_huge_pmd_numa_page()",
                                     range=(0.0, 1e6), packed=False, doc=COST_PRIORS["cost_hint_fault_us"])
    cost_pte_update_ns: float = knob(20.0, unit="ns", source="mm/mprotect.c change_prot_numa()", range=(0.0, 1e6),
                                     packed=False, doc=COST_PRIORS["cost_pte_update_ns"])
    cost_migrate_page_us: float = knob(1.0, unit="us", source="mm/migrate.c migrate_page_copy()", range=(0.0, 1e6),
                                       packed=False, doc=COST_PRIORS["cost_migrate_page_us"])
    cost_migrate_unmap_us: float = knob(2.0, unit="us", source="mm/migrate.c migrate_pages()", range=(0.0, 1e6),
                                        packed=False, doc=COST_PRIORS["cost_migrate_unmap_us"])
    cost_tlb_flush_ipi_us: float = knob(1.5, unit="us", source="arch/x86/mm/tlb.c native_flush_tlb_others()",
                                        range=(0.0, 1e6), doc=COST_PRIORS["cost_tlb_flush_ipi_us"])
    cost_wp_fault_us: float = knob(1.0, unit="us", source="mm/memory.c do_wp_page()", range=(0.0, 1e6),
                                   packed=False, doc=COST_PRIORS["cost_wp_fault_us"])
    cost_numa_search_us: float = knob(0.2, unit="us", source="kernel/sched/fair.c task_numa_compare()",
                                      range=(0.0, 1e6), doc=COST_PRIORS["cost_numa_search_us"])
    cost_task_move_us: float = knob(10.0, unit="us", source="kernel/sched/core.c migrate_task_to(), migrate_swap()",
                                    range=(0.0, 1e6), doc=COST_PRIORS["cost_task_move_us"])
    cost_sched_tick_us: float = knob(0.0, unit="us per ms of CPU", source="kernel/sched/core.c scheduler_tick()",
                                     range=(0.0, 1e6), doc=COST_PRIORS["cost_sched_tick_us"])
    # --- model time step ---
    tick_ms: int = knob(4, unit="ms", kernel="a jiffy at HZ=250", source="kernel/sched/fair.c task_tick_numa()",
                        range=(1, 100), doc="ms per simulated scheduler tick")

    def check(self) -> None:
        if self.numa_balancing_scan_period_max_ms < self.numa_balancing_scan_period_min_ms:
            raise WorkbookParameterError("numa_balancing_scan_period_max_ms", self.numa_balancing_scan_period_max_ms,
                                         f">= numa_balancing_scan_period_min_ms ({self.numa_balancing_scan_period_min_ms})")
        if self.NUMA_PERIOD_THRESHOLD > self.NUMA_PERIOD_SLOTS:
            raise WorkbookParameterError("NUMA_PERIOD_THRESHOLD", self.NUMA_PERIOD_THRESHOLD,
                                         f"an integer in 1..NUMA_PERIOD_SLOTS ({self.NUMA_PERIOD_SLOTS})")

    def describe(self) -> str:
        """One line per knob that differs from the 3.19 default (the ARG lines of the run)."""
        ch = self.changed()
        return ", ".join(f"{k}={v!r}" for k, v in ch.items()) or "3.19 defaults"


def validate_params(p: NumaParams) -> None:
    if not isinstance(p, NumaParams):
        raise WorkbookParameterError("params", type(p).__name__, "a NumaParams (see kernel_params())")
    p.validate()


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
    return (base or NumaParams()).with_(**{**KERNELS[kernel], **overrides})


@dataclass(frozen=True)
class Machine(Knobs):
    """A NUMA machine: ``nr_nodes`` nodes of ``cpus_per_node`` CPUs and ``node_mem_mb`` each."""

    name: str = "machine"
    nr_nodes: int = knob(4, kernel="nr_node_ids", source="mm/page_alloc.c", range=(1, 64), packed=False)
    cpus_per_node: int = knob(12, kernel="cpumask_of_node()", source="include/linux/topology.h", range=(1, 4096),
                              packed=False)
    node_mem_mb: int = knob(32768, unit="MB", kernel="pgdat->node_present_pages", source="mm/page_alloc.c",
                            range=(1, 1 << 30), packed=False)
    high_wmark_mb: float = knob(48.0, unit="MB", kernel="high_wmark_pages() summed over the node's zones",
                                source="mm/migrate.c migrate_balanced_pgdat()", range=(0.0, None), packed=False)
    node_bandwidth_mbs: float = knob(5000.0, unit="MB/s", kernel="(hardware)", source="the memory controller",
                                     range=(1e-9, None), packed=False,
                                     doc="what a node's memory controller gives the threads running on it (bzero); "
                                         "shared")
    remote_access_cost: float = knob(1.6, unit="x", kernel="(hardware)", source="the interconnect",
                                     range=(1.0, None), packed=False, doc="a remote access's time over a local one's")
    sched_domains_numa_levels: int = knob(
        1, unit="levels", kernel="sched_domains_numa_levels",
        source="kernel/sched/core.c sched_init_numa(); arch/x86/mm/numa_emulation.c numa_emulation()",
        range=(0, 64), packed=False,
        doc="NUMA levels of the scheduler's domain tree: one per distinct remote node distance; 0 when every node "
            "distance is LOCAL_DISTANCE, and then no CPU has an sd_numa domain (task_numa_migrate() gives up, the "
            "load balancer's top domain is not SD_NUMA)")
    note: str = ""

    def check(self) -> None:
        if not (self.high_wmark_mb < self.node_mem_mb):
            raise WorkbookParameterError("high_wmark_mb", self.high_wmark_mb, f"in [0, node_mem_mb={self.node_mem_mb})")

    @property
    def nr_cpus(self) -> int:
        return self.nr_nodes * self.cpus_per_node


# Presets.  Where each number comes from is in MACHINE_SOURCES: the thread's own words, a data sheet (the
# kernel's or the hardware's documented behaviour), or an assumption; the reproduction re-fits bandwidth and remote
# cost on the 3.19 column (autonumabench User times).
MACHINES: dict[str, Machine] = {
    "mel-4socket-48": Machine(
        name="mel-4socket-48", nr_nodes=4, cpus_per_node=12, node_mem_mb=32768, high_wmark_mb=48.0,
        node_bandwidth_mbs=5000.0, remote_access_cost=1.6,
        note="Mel Gorman's machine, given in the thread only as '4 socket bare-metal machine with 48 cores' "
             "(autonumabench, xfsrepair); its memory is an assumption"),
    "dave-vm-fake4-16": Machine(
        name="dave-vm-fake4-16", nr_nodes=4, cpus_per_node=4, node_mem_mb=4096, high_wmark_mb=16.0,
        node_bandwidth_mbs=5000.0, remote_access_cost=1.0, sched_domains_numa_levels=0,
        note="Dave Chinner's KVM guest: -smp 16 -m 16384, numa=fake=4 (4 GB per node; fake nodes share "
             "the host's memory, so a 'remote' access costs what a local one does)"),
    "one-node": Machine(
        name="one-node", nr_nodes=1, cpus_per_node=16, node_mem_mb=16384, high_wmark_mb=16.0,
        node_bandwidth_mbs=5000.0, remote_access_cost=1.0, sched_domains_numa_levels=0,
        note="a UMA machine: NUMA balancing has nothing to do"),
}
MACHINE_FIELDS = ("nr_nodes", "cpus_per_node", "node_mem_mb", "high_wmark_mb", "node_bandwidth_mbs",
                  "remote_access_cost", "sched_domains_numa_levels")
# (kind, why) per preset and field; kind is "thread" (the thread says it), "data sheet" (documented behaviour of
# the kernel or the hardware), "assumption" (nothing says it), or "fitted" (the reproduction sets it on 3.19)
MACHINE_SOURCES: dict[str, dict[str, tuple[str, str]]] = {
    "mel-4socket-48": {
        "nr_nodes": ("thread", "'4 socket bare-metal machine': one node per socket"),
        "cpus_per_node": ("thread", "'with 48 cores': 48 / 4 sockets"),
        "node_mem_mb": ("assumption", "the thread gives no memory size; 32 GB a socket holds autonumabench (NUMA01: "
                                      "2 x 3 GB) and the xfs_repair-like cache with room to spare"),
        "high_wmark_mb": ("assumption", "of the assumed memory (mm/page_alloc.c: min_free_kbytes ~ "
                                        "sqrt(16 x lowmem KB), the high mark 1.5x the min, spread over the nodes)"),
        "node_bandwidth_mbs": ("fitted", "the 3.19 User times of the four autonumabench tests (the preset's 5000 "
                                         "MB/s is only the fit's start)"),
        "remote_access_cost": ("fitted", "the 3.19 User times of the four autonumabench tests"),
        "sched_domains_numa_levels": ("data sheet", "a 4-socket machine's SLIT has one remote distance, so "
                                                    "sched_init_numa() (kernel/sched/core.c) builds one NUMA level"),
    },
    "dave-vm-fake4-16": {
        "nr_nodes": ("thread", "'numa=fake=4' on the guest's command line (Dave, 2015-03-09)"),
        "cpus_per_node": ("thread", "'-smp 16' over the 4 fake nodes"),
        "node_mem_mb": ("thread", "'-m 16384' over 4 nodes; Linus: 'a fake-numa thing with just 4GB per node'"),
        "high_wmark_mb": ("assumption", "mm/page_alloc.c's watermarks for 16 GB, spread over the nodes"),
        "node_bandwidth_mbs": ("assumption", "unused by the xfs_repair-like load, whose access time is its own"),
        "remote_access_cost": ("data sheet", "numa=fake splits one node's memory (arch/x86/mm/numa_emulation.c): "
                                             "every fake node is the same DRAM, so no access is slower"),
        "sched_domains_numa_levels": (
            "data sheet", "no SLIT in the guest, so numa_emulation() (arch/x86/mm/numa_emulation.c) gives every pair "
                          "of fake nodes on the one physical node LOCAL_DISTANCE; sched_init_numa() (kernel/sched/"
                          "core.c, 3.19/4.0) finds no distance above it and returns at 'if (!level)': no NUMA "
                          "level, no sd_numa, so task_numa_migrate() sets numa_preferred_nid = task_node(p) and "
                          "returns -EINVAL, and migrate_improves_locality() is false (no SD_NUMA)"),
    },
    "one-node": {**{f: ("assumption", "an illustration, not a machine of the thread") for f in MACHINE_FIELDS},
                 "sched_domains_numa_levels": ("data sheet", "one node: sched_init_numa() finds no remote distance "
                                                             "(kernel/sched/core.c)")},
}


def machine_sources(name_or_machine):
    """Where each number of a machine preset comes from.  Columns: ``parameter, value, unit, source, why``."""
    import pandas as pd

    m = machine(name_or_machine)
    src = MACHINE_SOURCES.get(m.name, {})
    units = {"node_mem_mb": "MB", "high_wmark_mb": "MB", "node_bandwidth_mbs": "MB/s", "remote_access_cost": "x",
             "sched_domains_numa_levels": "levels"}
    rows = [{"parameter": f, "value": getattr(m, f), "unit": units.get(f, ""),
             "source": src.get(f, ("assumption", ""))[0], "why": src.get(f, ("assumption", "not stated"))[1]}
            for f in MACHINE_FIELDS]
    return pd.DataFrame(rows, columns=["parameter", "value", "unit", "source", "why"])


def machine(name_or_machine) -> Machine:
    if isinstance(name_or_machine, Machine):
        return name_or_machine
    if name_or_machine not in MACHINES:
        raise WorkbookParameterError("machine", name_or_machine, "a Machine or one of " + ", ".join(MACHINES))
    return MACHINES[name_or_machine]
