"""Column indices of the packed state arrays shared by the jitted kernel and the wrapper.

The kernel keeps its state in a few integer and float arrays (numba compiles
plain arrays best).  Each name below is one column; the comment names the
kernel field it stands for.  The pure-Python reference
(:mod:`._numa_reference`) uses objects with the same field names instead.
"""

# ---- per task, int64 [T, TI_N] ----
TI_MM = 0  # p->mm
TI_NODE = 1  # task_node(p): node of the CPU it runs on
TI_PREF = 2  # p->numa_preferred_nid (-1 none)
TI_GROUP = 3  # p->numa_group (-1 none)
TI_SCAN_SEQ = 4  # p->numa_scan_seq
TI_PERIOD = 5  # p->numa_scan_period, ms
TI_PERIOD_MAX = 6  # p->numa_scan_period_max, ms
TI_MIGRATE_RETRY = 7  # p->numa_migrate_retry, ms
TI_PHASE = 8  # index of the current phase (global phase index)
TI_REP = 9  # repetitions of the current phase done
TI_POS = 10  # SWEEP: next unit offset in the phase; RANDOM: accesses done in this rep block
TI_DONE = 11  # 1 when the thread has finished its work
TI_HAS_FAULTS = 12  # p->numa_faults_memory allocated (first hinting fault seen)
TI_RIDX = 13  # next random access draw of this task in the current chunk
TI_LAST_RUN_US = 14  # p->last_sum_exec_runtime, us
TI_LAST_PLACE_US = 15  # p->last_task_numa_placement (wall), us; 0 = never
TI_CUR_UNIT = 16  # unit being accessed (-1 none)
TI_TOTAL_FAULTS = 17  # p->total_numa_faults
TI_PAGES_MIGRATED = 18  # p->numa_pages_migrated
TI_LOC0 = 19  # p->numa_faults_locality[0]: remote
TI_LOC1 = 20  # p->numa_faults_locality[1]: local
TI_LOC2 = 21  # p->numa_faults_locality[2]: failed migrations (4.0 slowscan)
TI_MOVES = 22  # NUMA task migrations of this task (task_numa_migrate success)
TI_CUR_WRITE = 23  # current access writes
TI_N = 24

# ---- per task, float64 [T, TF_N] ----
TF_RUNTIME = 0  # p->se.sum_exec_runtime, us
TF_NODE_STAMP = 1  # p->node_stamp, us of runtime
TF_FRAC = 2  # CPU us left of the current access
TF_DEBT = 3  # kernel CPU us owed (charged, not yet run)
TF_USER = 4  # user CPU us
TF_SYS = 5  # system CPU us
TF_FINISH = 6  # wall us when the thread finished (0 = not yet)
TF_IO = 7  # I/O wait us left after the current access
TF_N = 8

# ---- per numa group, int64 [G, GI_N + nodes] (group ids are task ids of their creator) ----
GI_NR_TASKS = 0  # grp->nr_tasks
GI_TOTAL_FAULTS = 1  # grp->total_faults
GI_ALIVE = 2  # refcount > 0
GI_N = 3
GI_ACTIVE = GI_N  # gi[g, GI_ACTIVE + nid]: grp->active_nodes

# ---- fault statistics: tfa int64 [4, T, nodes, 2] (task), gfa int64 [2, G, nodes, 2] (group) ----
FA_MEM = 0  # p->numa_faults_memory / grp->faults
FA_CPU = 1  # p->numa_faults_cpu / grp->faults_cpu
FA_BUFMEM = 2  # p->numa_faults_buffer_memory
FA_BUFCPU = 3  # p->numa_faults_buffer_cpu

# ---- cached weights, wts int64 [2, T, nodes]: task_weight() and group_weight() (per group id) ----
W_TASK = 0
W_GROUP = 1

# ---- per unit, ua int64 [U_N, units] ----
U_NODE = 0  # page_to_nid() (-1: not yet touched)
U_MARKED = 1  # pte is PROT_NONE / _PAGE_NUMA
U_WRITE = 2  # pte_write()
U_DIRTY = 3  # pte_dirty()
U_LAST_NID = 4  # page_cpupid_last(): node (-1 unset)
U_LAST_PID = 5  # page_cpupid_last(): task (-1 unset)
U_TOUCH_TID = 6  # last task that touched it
U_TOUCH_TICK = 7  # tick of that touch
U_OTHER_TICK = 8  # last tick another task touched it (THP page_count check)
U_N = 9

# ---- per node, int64 [N, NI_N] ----
NI_FREE = 0  # free pages (base pages)
NI_RL_NR = 1  # pgdat->numabalancing_migrate_nr_pages
NI_RL_NEXT = 2  # pgdat->numabalancing_migrate_next_window, ms
NI_NR_RUNNING = 3  # tasks running on the node
NI_WIN_MIGRATED = 4  # pages migrated to the node in the current rate-limit window
NI_WIN_MIGRATED_MAX = 5  # max of the above over all windows
NI_N = 6
NI_TASKS = NI_N  # ni[n, NI_TASKS] = count, then the ids of the tasks running on n, ascending

# ---- per mm, int64 [M, MI_N] ----
MI_NEXT_SCAN = 0  # mm->numa_next_scan, ms
MI_OFFSET = 1  # mm->numa_scan_offset, units from mm start
MI_SEQ = 2  # mm->numa_scan_seq
MI_RSS = 3  # get_mm_rss(), base pages
MI_LAZY = 4  # CPUs left in mm_cpumask (lazy TLB) since the last flush
MI_LIVE = 5  # threads of the mm still running
MI_N = 6

# ---- counters, int64 [C_N]; kernel units (pages, faults), not simulated units ----
C_PTE_UPDATES = 0  # numa_pte_updates
C_HUGE_PTE_UPDATES = 1  # numa_huge_pte_updates
C_HINT_FAULTS = 2  # numa_hint_faults
C_HINT_FAULTS_LOCAL = 3  # numa_hint_faults_local
C_PAGES_MIGRATED = 4  # numa_pages_migrated
C_PGMIGRATE_SUCCESS = 5  # pgmigrate_success
C_PGMIGRATE_FAIL = 6  # pgmigrate_fail
C_FAIL_RATELIMIT = 7  # migrations refused by numamigrate_update_ratelimit() (pages)
C_FAIL_NODEFULL = 8  # refused by migrate_balanced_pgdat(): destination below high_wmark + nr (pages)
C_FAIL_ISOLATE = 9  # isolate_lru_page() failed (pages)
C_FAIL_BUSY = 10  # THP with page_count != 3: another thread faulting on it (pages)
C_FAIL_MIGRATE = 11  # migrate_pages() gave up on an isolated base page (pages)
C_TASK_MOVES = 12  # task_numa_migrate() moved a task to an idle CPU
C_TASK_SWAPS = 13  # task_numa_migrate() swapped two tasks
C_WP_FAULTS = 14  # write-protect faults after a PROT_NONE hinting fault
C_TLB_FLUSHES = 15  # TLB flushes that sent IPIs
C_TLB_IPIS = 16  # IPIs sent (target CPUs summed over flushes)
C_ACCESSES = 17  # simulated accesses (units touched)
C_REMOTE_ACCESSES = 18  # of which the unit was on another node
C_ALLOC_MISS = 19  # first-touch allocations that fell back to another node (numa_miss), units
C_SCANS = 20  # task_numa_work() passes that scanned
C_NO_GROUP_FAULTS = 21  # hinting faults flagged TNF_NO_GROUP
C_SHARED_FAULTS = 22  # hinting faults counted shared (priv = 0)
C_GROUP_JOINS = 23  # task_numa_group() joins
C_MIGRATE_ATTEMPTS = 24  # migrate_misplaced_page() calls (pages)
C_PERIOD_OUT_OF_RANGE = 25  # period set outside [task_scan_min, task_scan_max] (must stay 0)
C_WANDERS = 26  # scheduler moved a thread to another node (not NUMA balancing)
C_POOL_OVERFLOW = 27  # a pre-drawn random pool ran out (a bug in the wrapper's bound; must stay 0)
C_NUMA_MIGRATE_CALLS = 28  # task_numa_migrate() calls (numa_migrate_preferred() finding the task off its node)
C_SEARCH_CPUS = 29  # CPUs those calls examined: update_numa_stats() and task_numa_compare() per CPU
C_N = 30
# the counter array also carries the kernel's cursors and scratch after the counters
X_EV_IDX = C_N  # next migration draw in the chunk's pool
X_LOG_IDX = C_N + 1  # next row of the migration log
X_BEST = C_N + 2  # 3 entries: task_numa_migrate()'s best_imp, best_task, best_node
X_EPOCH = C_N + 5  # bumped whenever something task_numa_migrate() reads changes
X_MEMO = C_N + 6  # 4 per task: epoch, preferred node, outcome and nodes searched of its last failed search
MEMO_W = 4

COUNTER_NAMES = [
    "numa_pte_updates", "numa_huge_pte_updates", "numa_hint_faults", "numa_hint_faults_local",
    "numa_pages_migrated", "pgmigrate_success", "pgmigrate_fail", "migrate_fail_ratelimit",
    "migrate_fail_nodefull", "migrate_fail_isolate", "migrate_fail_busy", "migrate_fail_migrate_pages",
    "numa_task_moves", "numa_task_swaps", "wp_faults", "tlb_flushes", "tlb_ipis", "accesses",
    "remote_accesses", "numa_miss_units", "numa_scans", "no_group_faults", "shared_faults",
    "group_joins", "migrate_attempt_pages", "period_out_of_range", "sched_wanders",
    "rng_pool_overflow", "numa_migrate_calls", "numa_search_cpus",
]
assert len(COUNTER_NAMES) == C_N

# ---- system time by cause, float64 [SB_N], us ----
SB_FAULT = 0  # hinting faults (do_numa_page, task_numa_fault)
SB_SCAN = 1  # PTE scanning (change_prot_numa)
SB_MIGRATE = 2  # copying pages (migrate_pages)
SB_IPI = 3  # waiting for TLB-flush IPIs (native_flush_tlb_others)
SB_WP = 4  # write-protect faults after PROT_NONE hinting faults
SB_OTHER = 5  # not NUMA balancing: scheduler ticks, the workload's own system calls
SB_PLACE = 6  # task placement: task_numa_migrate() searches, migrate_task_to()/migrate_swap()
SB_N = 7
SYS_NAMES = ["sys_fault_s", "sys_scan_s", "sys_migrate_s", "sys_ipi_s", "sys_wp_s", "sys_other_s", "sys_place_s"]

# ---- constants passed to the kernel, int64 [KI_N] ----
KI_NODES = 0
KI_CPUS_PER_NODE = 1
KI_SCAN_PERIOD_MIN = 2
KI_SCAN_PERIOD_MAX = 3
KI_SCAN_DELAY = 4
KI_SCAN_SIZE_PAGES = 5
KI_SCAN_SIZE_MB = 6
KI_MAX_SCAN_WINDOW = 7
KI_SLOTS = 8
KI_THRESHOLD = 9
KI_IMBALANCE_PCT = 10
KI_RATELIMIT_PAGES = 11
KI_MIGRATE_INTERVAL = 12
KI_MIGRATE_FAIL = 13  # TNF_MIGRATE_FAIL on
KI_NO_GROUP_RULE = 14  # index in NO_GROUP_RULES
KI_PROT_NONE = 15  # numa_hint_pte == PROT_NONE
KI_TICK_MS = 16
KI_UNIT_PAGES = 17
KI_UNIT_HUGE = 18
KI_HIGH_WMARK_PAGES = 19
KI_SAMPLE_STEPS = 20
KI_LOG_CAP = 21  # capacity of the migration log (0 = no log)
KI_N = 22

# ---- float constants, float64 [KF_N] ----
KF_ISOLATE_FAIL = 0
KF_MIGRATE_FAIL = 1
KF_COST_FAULT = 2  # us per simulated fault (already times faults per unit)
KF_COST_PTE = 3  # us per simulated unit marked
KF_COST_MIGRATE = 4  # us per simulated unit migrated: the copy plus the unmap/remap of each page or THP
KF_COST_IPI = 5  # us per IPI target per flush
KF_COST_WP = 6  # us per simulated write-protect fault
KF_FLUSHES_PER_MIGRATION = 7  # TLB flushes one migrated unit costs
KF_FAULTS_PER_UNIT = 8
KF_ACCESS_US = 9  # CPU us of a local access, node bandwidth not shared (RANDOM phases)
KF_SWEEP_US = 10  # CPU us of a local sweep of one unit by a thread alone on its node
KF_REMOTE_COST = 11
KF_IO_US = 12
KF_WANDER_P = 13  # probability per tick that a thread wakes on another node
KF_COST_TICK = 14  # system us per ms of CPU a thread runs (scheduler_tick and accounting, not NUMA)
KF_SYS_PER_ACCESS = 15  # system us per access (the workload's own system calls, e.g. direct I/O)
KF_COST_UNMAP = 16  # us per simulated unit whose migrate_pages() unmapped it but gave up (no copy)
KF_COST_SEARCH = 17  # us per CPU examined by task_numa_migrate()
KF_COST_MOVE = 18  # us per task move or swap by task_numa_migrate()
KF_N = 19

# migration log columns, int64 [LOG_CAP, LG_N]
LG_MS = 0
LG_DST = 1
LG_PAGES = 2
LG_ADMITTED = 3  # passed numamigrate_update_ratelimit()
LG_OK = 4  # migrated
LG_N = 5
