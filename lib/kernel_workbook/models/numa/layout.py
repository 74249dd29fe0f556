"""The NUMA kernel's arrays, laid out from names (no index is numbered by hand).

The kernel keeps its state in a few integer and float arrays (Numba compiles
plain arrays best); every name below is one column, the comment the kernel
field it stands for.  The parameter arrays come from the knob declaration
(:data:`PARAMS`): the kernel reads ``ki[I.numa_balancing_scan_period_min_ms]``
and ``kf[FP.isolate_lru_fail_prob]``; the run-time values the wrapper
derives from the machine and the workload (the costs per simulated unit, the
unit's size) are derived slots of the same arrays, named for what they hold.
The independent reference (:mod:`.reference`) uses objects with the same
field names instead.
"""

from __future__ import annotations

from collections import namedtuple

from ..layout import ParamLayout, enum, slots, width
from .params import NumaParams

# ---- per task, int64 [T, width(TI)] ----
TI = slots("TI", [
    "mm",  # p->mm
    "node",  # task_node(p): node of the CPU it runs on
    "pref",  # p->numa_preferred_nid (-1 none)
    "group",  # p->numa_group (-1 none)
    "scan_seq",  # p->numa_scan_seq
    "period",  # p->numa_scan_period, ms
    "period_max",  # p->numa_scan_period_max, ms
    "migrate_retry",  # p->numa_migrate_retry, ms
    "phase",  # index of the current phase (global phase index)
    "rep",  # repetitions of the current phase done
    "pos",  # SWEEP: next unit offset in the phase; RANDOM: accesses done in this rep block
    "done",  # 1 when the thread has finished its work
    "has_faults",  # p->numa_faults_memory allocated (first hinting fault seen)
    "ridx",  # next random access draw of this task in the current chunk
    "last_run_us",  # p->last_sum_exec_runtime, us
    "last_place_us",  # p->last_task_numa_placement (wall), us; 0 = never
    "cur_unit",  # unit being accessed (-1 none)
    "total_faults",  # p->total_numa_faults
    "pages_migrated",  # p->numa_pages_migrated
    "loc0", "loc1", "loc2",  # p->numa_faults_locality[0..2]: remote, local, failed migrations (4.0 slowscan)
    "moves",  # NUMA task migrations of this task (task_numa_migrate success)
    "cur_write",  # current access writes
    "pvec_n", "pvec_gen",  # the task's CPU's lru_add_pvec: entries in it, and how often it was drained
])
TI_N = width(TI)

# ---- per task, float64 [T, width(TF)] ----
TF = slots("TF", [
    "runtime",  # p->se.sum_exec_runtime, us
    "node_stamp",  # p->node_stamp, us of runtime
    "frac",  # CPU us left of the current access
    "debt",  # kernel CPU us owed (charged, not yet run)
    "user", "sys",  # user and system CPU us
    "finish",  # wall us when the thread finished (0 = not yet)
    "io",  # I/O wait us left after the current access
])
TF_N = width(TF)

# ---- per numa group, int64 [G, GI.active + nodes] (group ids are task ids of their creator) ----
GI = slots("GI", [
    "nr_tasks",  # grp->nr_tasks
    "total_faults",  # grp->total_faults
    "alive",  # refcount > 0
    "active",  # gi[g, GI.active + nid]: grp->active_nodes
])

# ---- fault statistics: tfa int64 [4, T, nodes, 2] (task), gfa int64 [2, G, nodes, 2] (group) ----
FA = enum("FA", [
    "mem",  # p->numa_faults_memory / grp->faults
    "cpu",  # p->numa_faults_cpu / grp->faults_cpu
    "bufmem",  # p->numa_faults_buffer_memory
    "bufcpu",  # p->numa_faults_buffer_cpu
])

# ---- cached weights, wts int64 [2, T, nodes]: task_weight() and group_weight() (per group id) ----
W = enum("W", "task group")

# ---- per unit, ua int8 [units, width(UA)]: what every access reads, four bytes a unit, so that the table stays in
# the first-level cache even when accesses jump across the whole address space (the xfs_repair-like load) ----
UA = slots("UA", [
    "node",  # page_to_nid() (-1: not yet touched)
    "marked",  # pte is PROT_NONE / _PAGE_NUMA
    "write",  # pte_write()
    "dirty",  # pte_dirty()
])
UA_N = width(UA)

# ---- per unit, ub int64 [units, width(UB)]: what only a hinting fault or a migration reads ----
UB = slots("UB", [
    "last_nid", "last_pid",  # page_cpupid_last(): node and task (-1 unset)
    "pvec_cpu", "pvec_gen",  # the lru_add_pvec its last pages wait in (task id standing for its CPU; -1: none)
    # and that pagevec's drain count when they went in (mm/swap.c __lru_cache_add())
    "pvec_pages",  # how many of the unit's pages (THPs for a THP unit) still wait there, PageLRU clear
])
UB_N = width(UB)

# ---- per node, int64 [N, NI.tasks + 1 + T] ----
NI = slots("NI", [
    "free",  # free pages (base pages)
    "rl_nr",  # pgdat->numabalancing_migrate_nr_pages
    "rl_next",  # pgdat->numabalancing_migrate_next_window, ms
    "nr_running",  # tasks running on the node
    "win_migrated",  # pages migrated to the node in the current rate-limit window
    "win_migrated_max",  # max of the above over all windows
    "lb_failed",  # sd->nr_balance_failed of the NUMA domain, as seen from this node's idle CPUs
    "tasks",  # ni[n, NI.tasks] = count, then the ids of the tasks running on n, ascending
])

# ---- per mm, int64 [M, width(MI)] ----
MI = slots("MI", [
    "next_scan",  # mm->numa_next_scan, ms
    "offset",  # mm->numa_scan_offset, units from mm start
    "seq",  # mm->numa_scan_seq
    "rss",  # get_mm_rss(), base pages
    "lazy",  # CPUs left in mm_cpumask (lazy TLB) since the last flush
    "live",  # threads of the mm still running
])
MI_N = width(MI)

# ---- counters, int64: kernel units (pages, faults), named as /proc/vmstat names them (or plainly) ----
COUNTER_NAMES = [
    "numa_pte_updates", "numa_huge_pte_updates", "numa_hint_faults", "numa_hint_faults_local",
    "numa_pages_migrated", "pgmigrate_success", "pgmigrate_fail",
    "migrate_fail_ratelimit",  # refused by numamigrate_update_ratelimit() (pages)
    "migrate_fail_nodefull",  # refused by migrate_balanced_pgdat(): destination below high_wmark + nr (pages)
    "migrate_fail_isolate",  # isolate_lru_page() failed: PageLRU clear in a CPU's lru_add_pvec (pages)
    "migrate_fail_busy",  # THP with page_count != 3: pinned by get_user_pages() (direct I/O) (pages)
    "migrate_fail_eagain",  # base pages still -EAGAIN after migrate_pages()' last pass: pinned by another thread's
    # direct I/O (page_count != expected in migrate_page_move_mapping()); NOT in pgmigrate_fail in 3.19/4.0
    "migrate_fail_permanent",  # base pages migrate_pages() failed for good (-EBUSY...): counted in pgmigrate_fail
    "mm_migrate_pages",  # trace_mm_migrate_pages events: migrate_pages() calls (one per isolated base page)
    "migrate_retry_unmaps",  # try_to_unmap() passes that ended in -EAGAIN and were undone (each flushed the TLB)
    "numa_task_moves",  # task_numa_migrate() moved a task to an idle CPU
    "numa_task_swaps",  # task_numa_migrate() swapped two tasks
    "wp_faults",  # write-protect faults after a PROT_NONE hinting fault
    "tlb_flushes", "tlb_ipis",  # TLB flushes that sent IPIs, and the IPIs (target CPUs summed over flushes)
    "accesses", "remote_accesses",  # simulated accesses (units touched), and those to another node
    "numa_hit",  # page allocations on the node asked for (zone_statistics(): one per allocation, a THP is one):
    # first touches on the local node and every migrate_pages() pass's target page
    "numa_miss",  # first-touch allocations that fell back to another node (numa_miss = numa_foreign), pages
    "numa_scans",  # task_numa_work() passes that scanned
    "no_group_faults",  # hinting faults flagged TNF_NO_GROUP
    "shared_faults",  # hinting faults counted shared (priv = 0)
    "group_joins",  # task_numa_group() joins
    "migrate_attempt_pages",  # migrate_misplaced_page() calls (pages)
    "period_out_of_range",  # period set outside [task_scan_min, task_scan_max] (must stay 0)
    "sched_wanders",  # scheduler moved a thread to another node (not NUMA balancing)
    "lb_task_moves",  # load_balance() of the NUMA domain moved a task to another node
    "rng_pool_overflow",  # a pre-drawn random pool ran out (a bug in the wrapper's bound; must stay 0)
    "numa_migrate_calls",  # task_numa_migrate() calls (numa_migrate_preferred() finding the task off its node)
    "numa_search_cpus",  # CPUs those calls examined: update_numa_stats() and task_numa_compare() per CPU
]
C_N = len(COUNTER_NAMES)
MEMO_W = 4  # epoch, preferred node, outcome and nodes searched of a task's last failed search
# sd->cache_nice_tries of a domain that is neither SD_SHARE_CPUCAPACITY, SD_SHARE_PKG_RESOURCES nor SD_NUMA
# (kernel/sched/core.c sd_init(), 3.16+: the 'else' branch, the DIE level): the top domain of a machine without
# a NUMA level (Machine.sched_domains_numa_levels == 0)
SD_DIE_CACHE_NICE_TRIES = 1
# the counter array carries the kernel's cursors and scratch after the counters
CT = slots("CT", [
    *COUNTER_NAMES,
    "ev_idx",  # next migration draw in the chunk's pool
    "log_idx",  # next row of the migration log
    "best:3",  # task_numa_migrate()'s best_imp, best_task, best_node
    "epoch",  # bumped whenever something task_numa_migrate() reads changes
    "memo",  # MEMO_W per task from here: its last failed search
])

# ---- system time by cause, float64 [width(SB)], us ----
SB = slots("SB", [
    "fault",  # hinting faults (do_numa_page, task_numa_fault)
    "scan",  # PTE scanning (change_prot_numa)
    "migrate",  # copying pages (migrate_pages)
    "ipi",  # waiting for TLB-flush IPIs (native_flush_tlb_others)
    "wp",  # write-protect faults after PROT_NONE hinting faults
    "other",  # not NUMA balancing: scheduler ticks, the workload's own system calls
    "place",  # task placement: task_numa_migrate() searches, migrate_task_to()/migrate_swap()
])
SB_N = width(SB)
SYS_NAMES = ["sys_fault_s", "sys_scan_s", "sys_migrate_s", "sys_ipi_s", "sys_wp_s", "sys_other_s", "sys_place_s"]

# ---- parameters: every packed knob of NumaParams, then what the wrapper derives for the run ----
PARAMS = ParamLayout(
    NumaParams,
    derived_int=[
        "nr_nodes", "cpus_per_node", "sched_domains_numa_levels",  # the machine
        "scan_size_pages",  # numa_balancing_scan_size_mb << 8 (4 KiB pages)
        "unit_pages", "unit_huge",  # base pages per simulated unit; units are THPs
        "high_wmark_pages",  # the machine's high watermark per node, pages
        "sample_steps",  # ticks between samples
        "log_cap",  # capacity of the migration log (0 = no log)
    ],
    derived_float=[
        "cost_fault_unit_us",  # cost_hint_fault_us x the hinting faults one unit stands for
        "cost_pte_unit_us",  # cost_pte_update_ns x 1e-3 x the PTEs or PMDs one unit takes to mark
        "cost_migrate_unit_us",  # cost_migrate_page_us x pages + cost_migrate_unmap_us x faults per unit
        "cost_wp_unit_us",  # cost_wp_fault_us x faults per unit
        "flushes_per_migration",  # TLB flushes one migrated THP unit costs (twice per THP)
        "cost_base_page_us",  # a migrated base page: cost_migrate_page_us + cost_migrate_unmap_us
        "dio_pages",  # pages of each in-flight direct I/O other threads touch too (the workload's)
        "faults_per_unit",  # kernel hinting faults (or migrations) one simulated unit stands for
        "access_us",  # CPU us of a local access, node bandwidth not shared (RANDOM phases)
        "sweep_us",  # CPU us of a local sweep of one unit by a thread alone on its node
        "remote_cost",  # the machine's remote_access_cost
        "io_us",  # I/O wait per access (the workload's)
        "wander_p",  # probability per tick that a thread wakes on another node
        "sys_per_access",  # system us per access (the workload's own system calls, e.g. direct I/O)
        "cost_unmap_page_us",  # cost_migrate_unmap_us: one try_to_unmap() + remove_migration_ptes() pass of a base page
    ],
)
I, FP = PARAMS.I, PARAMS.F  # the kernel reads ki[I.<knob>] and kf[FP.<knob>]

# ---- migration log columns, int64 [log_cap, width(LG)] ----
LG = slots("LG", [
    "ms", "dst", "pages",
    "admitted",  # pages that passed numamigrate_update_ratelimit()
    "ok",  # pages migrated
])
LG_N = width(LG)

# ---- the kernel's arguments, bundled: named tuples of arrays (Numba passes each as one argument) ----
Workload = namedtuple("Workload", "task_mm task_phase0 task_nphases phase_kind phase_start phase_end phase_reps "
                                  "phase_shared phase_write mm_start mm_end mm_sh_start mm_sh_end")
State = namedtuple("State", "ti tf tfa gi gfa wts ni mi ctr sysb ua ub")
Draws = namedtuple("Draws", "rot acc_u ev_u wander_u")  # this chunk's random numbers, drawn by the wrapper
Samples = namedtuple("Samples", "cnt period node min max idx")  # what the chunk records every sample_steps ticks
