"""Array layout of the fair-zone allocator kernel (indices into plain int64/float64 arrays).

The kernel (:mod:`._fairzone_kernel`) takes numbers only; this module names
every slot.  Zone slots ``Z_*`` index the rows of ``Z`` (one row per zone:
``ZONE_DMA``, ``ZONE_DMA32``, ``ZONE_NORMAL``), state slots ``S_*`` the
vector ``S``, integer parameters ``P_*`` and float parameters ``F_*`` the
vectors ``P`` and ``F``; ``PH_*`` the rows of the phase table of the
workload; ``T_*`` the columns of the trace.  Counter slots carry the name
``/proc/vmstat`` gives them (``COUNTER_NAMES``).

Changing this file changes compiled code: :func:`._jit.drop_stale` hashes it
together with the kernel.
"""

from __future__ import annotations

# ----------------------------------------------------------------------------- zones (include/linux/mmzone.h)
ZONE_DMA = 0
ZONE_DMA32 = 1
ZONE_NORMAL = 2
NZ = 3
ZONE_NAMES = ("DMA", "DMA32", "Normal")

# per-zone slots (rows of Z)
Z_MANAGED = 0  # zone->managed_pages
Z_FREE = 1  # NR_FREE_PAGES
Z_WMIN = 2  # zone->watermark[WMARK_MIN]
Z_WLOW = 3  # zone->watermark[WMARK_LOW]
Z_WHIGH = 4  # zone->watermark[WMARK_HIGH]
Z_GAP = 5  # kswapd balance gap, min(low, managed / KSWAPD_ZONE_BALANCE_GAP_RATIO)
Z_BATCH = 6  # NR_ALLOC_BATCH (signed)
Z_DEPLETED = 7  # ZONE_FAIR_DEPLETED bit of zone->flags
Z_FAIR_ENABLED = 8  # zoneref->fair_enabled (patch 3/4)
Z_BATCH_RESET = 9  # what reset_alloc_batches() sets NR_ALLOC_BATCH to
Z_NR_INACTIVE = 10  # NR_INACTIVE_FILE
Z_NR_ACTIVE = 11  # NR_ACTIVE_FILE
Z_NR_DIRTY = 12  # NR_FILE_DIRTY
Z_NR_WRITEBACK = 13  # NR_WRITEBACK
Z_NR_OTHER = 14  # pages held by the kernel and user space (not on the file LRU)
Z_DIRTY_LIMIT_CACHED = 15  # zone->dirty_limit_cached (patch 4/4)
Z_DIRTY_BALANCE_RESERVE = 16  # zone->dirty_balance_reserve, calculate_totalreserve_pages()
Z_HEAD_I = 17  # inactive file list: head (newest) page id, -1 if empty
Z_TAIL_I = 18  # inactive file list: tail (oldest)
Z_HEAD_A = 19  # active file list
Z_TAIL_A = 20
Z_PGALLOC = 21  # pgalloc_<zone>
Z_PGSCAN_KSWAPD = 22  # pgscan_kswapd_<zone>
Z_PGSTEAL_KSWAPD = 23  # pgsteal_kswapd_<zone>
Z_PGSCAN_DIRECT = 24  # pgscan_direct_<zone>
Z_PGSTEAL_DIRECT = 25  # pgsteal_direct_<zone>
Z_PGACTIVATE = 26  # activations of this zone's pages (the kernel counts pgactivate globally)
Z_PGDEACTIVATE = 27  # pgdeactivate, by zone
Z_EVICT_N = 28  # pages reclaimed (kswapd + direct), for the age at eviction
Z_EVICT_AGE_US = 29  # sum of their ages (microseconds since allocation)
Z_FREE_MIN_SEEN = 30  # lowest NR_FREE_PAGES - (WMARK_MIN + lowmem_reserve[classzone]) after a fast-path allocation
Z_FAST_BELOW_MIN = 31  # fast-path allocations that left the zone below its min watermark (must stay 0)
Z_LAST_RESET_NS = 32  # when the batch was last reset
Z_NR_RESETS = 33  # batch resets of this zone
NZF = 34

# ----------------------------------------------------------------------------- lists / page flags
LRU_INACTIVE = 0
LRU_ACTIVE = 1
PG_REFERENCED = 1  # PG_referenced
PG_ACTIVE = 2  # PG_active
PG_DIRTY = 4  # PG_dirty
PG_WRITEBACK = 8  # PG_writeback
PG_RECLAIM = 16  # PG_reclaim (rotated by reclaim while dirty / under writeback)

# ----------------------------------------------------------------------------- kswapd states (mm/vmscan.c kswapd())
KS_SLEEP = 0  # schedule(): asleep until wakeup_kswapd()
KS_RUN = 1  # in balance_pgdat()
KS_NAP = 2  # kswapd_try_to_sleep(): schedule_timeout(HZ/10)

# ----------------------------------------------------------------------------- state vector S
S_NOW = 0  # simulated time, ns
S_KS_STATE = 1
S_KS_NAP_END = 2  # ns
S_KS_LAST = 3  # ns, last time kswapd's budget was advanced
S_KS_CLASSZONE = 4  # pgdat->classzone_idx of the wakeup
S_KS_PRIORITY = 5  # sc.priority (DEF_PRIORITY = 12 down to 0)
S_KS_LAST_PASS = 6  # pages scanned by kswapd's last balance_pgdat pass
S_DQ_HEAD = 7  # dirty FIFO: oldest entry not yet under writeback
S_DQ_WB = 8  # oldest entry under writeback
S_DQ_TAIL = 9  # next free slot
S_NR_DIRTY = 10  # global NR_FILE_DIRTY
S_NR_WRITEBACK = 11  # global NR_WRITEBACK
S_WB_LAST = 12  # ns, last time writeback progress was computed
S_WB_CREDIT = 13  # writeback completions earned but not yet used, milli-pages
S_EVENTS = 14  # page accesses done
S_TRACE_N = 15  # trace rows written
S_SAMPLE_N = 16  # samples written
S_NEXT_SAMPLE = 17  # ns of the next sample
S_PHASE = 18  # phase being run
S_PREV_ZONE = 19  # zone of the previous allocation (any thread)
S_NR_THREADS = 20
S_SEQ_THROTTLE_NS = 21  # time writers spent throttled in balance_dirty_pages
S_DIRECT_STALL_NS = 22  # time allocators spent in direct reclaim
S_OOM = 23  # allocations that found no page even after direct reclaim (must stay 0)
S_NEXT_BG = 24  # ns of the next background step (kswapd, writeback, sample)
S_KS_BUSY = 25  # ns: kswapd's current pass ends (KS_RUN)
S_WB_NEXT = 26  # ns of the next writeback step
# counters (global), named as /proc/vmstat (or plainly where the kernel has none)
S_C0 = 27
C_PGALLOC = 0  # every allocation (sum of pgalloc_*)
C_PGACTIVATE = 1  # pgactivate
C_PGDEACTIVATE = 2  # pgdeactivate
C_PGREFILL = 3  # pgrefill (active list scanned)
C_PAGEOUTRUN = 4  # pageoutrun: balance_pgdat passes
C_ALLOCSTALL = 5  # allocstall: direct reclaim entries
C_KSWAPD_LOW_WMARK_HIT_QUICKLY = 6  # kswapd_low_wmark_hit_quickly
C_KSWAPD_HIGH_WMARK_HIT_QUICKLY = 7  # kswapd_high_wmark_hit_quickly
C_KSWAPD_WAKEUPS = 8  # wake_up_interruptible() of kswapd
C_SLOWPATH = 9  # __alloc_pages_slowpath() entries
C_GFPL_CALLS = 10  # get_page_from_freelist() calls (passes over the zonelist)
C_ZONELIST_SCANNED = 11  # zonelist entries visited
C_WMARK_CHECKS = 12  # zone_watermark_ok() calls
C_BATCH_READS = 13  # zone_page_state(NR_ALLOC_BATCH) reads in the fair pass (vanilla)
C_FLAG_READS = 14  # zone_is_fair_depleted() tests (patch 3/4)
C_BATCH_UPDATES = 15  # __mod_zone_page_state(NR_ALLOC_BATCH, -1)
C_BATCH_RESETS = 16  # reset_alloc_batches() calls
C_BATCH_RESET_ZONES = 17  # zones written by reset_alloc_batches()
C_FAIR_FAILS = 18  # ALLOC_FAIR passes that found no page
C_RESCANS = 19  # zonelist rescans (zonelist_rescan / goto retry)
C_DIRTY_CHECKS = 20  # zone_dirty_ok() calls
C_DIRTY_LIMIT_CALCS = 21  # zone_dirty_limit() computations
C_DIRTY_FAILS = 22  # zone skipped for its dirty limit
C_ZONE_SWITCHES = 23  # an allocation from another zone than the thread's previous one
C_HITS = 24  # page-cache hits
C_MISSES = 25  # page-cache misses (allocations for file data)
C_WRITE_THROTTLES = 26  # balance_dirty_pages() pauses
C_PGSCAN_KSWAPD = 27
C_PGSTEAL_KSWAPD = 28
C_PGSCAN_DIRECT = 29
C_PGSTEAL_DIRECT = 30
C_NR_DIRTIED = 31  # nr_dirtied
C_NR_WRITTEN = 32  # nr_written
C_FAST_ALLOCS = 33  # allocations served by the first (fast-path) get_page_from_freelist pass
C_FREED = 34  # pages freed by file deletion
NC = 35
NS = S_C0 + NC

COUNTER_NAMES = (
    "pgalloc", "pgactivate", "pgdeactivate", "pgrefill", "pageoutrun", "allocstall",
    "kswapd_low_wmark_hit_quickly", "kswapd_high_wmark_hit_quickly", "kswapd_wakeups", "slowpath",
    "get_page_from_freelist", "zonelist_scanned", "watermark_checks", "batch_reads", "depleted_flag_reads",
    "batch_updates", "batch_resets", "batch_reset_zones", "fair_pass_fails", "zonelist_rescans",
    "dirty_checks", "dirty_limit_calcs", "dirty_fails", "zone_switches", "pagecache_hits", "pagecache_misses",
    "write_throttles", "pgscan_kswapd", "pgsteal_kswapd", "pgscan_direct", "pgsteal_direct", "nr_dirtied",
    "nr_written", "fastpath_allocs", "pages_freed",
)
assert len(COUNTER_NAMES) == NC

# ----------------------------------------------------------------------------- integer parameters P
P_FAIR = 0  # 0: no fair policy (3.0); 1: ALLOC_FAIR as 3.14-3.16-rc1; 2: as patch 3/4 (fairzone)
P_BATCH_MODE = 1  # 0: high - low; 1: managed_pages >> P_BATCH_SHIFT; 2: P_BATCH_PAGES
P_BATCH_SHIFT = 2
P_BATCH_PAGES = 3
P_RETRY = 4  # after a failed fair pass: 0 reset + unfair retry (3.14); 1 as patch 3/4; 2 reset, then slow path
P_DIRTY = 5  # 0: no zone dirty balancing (3.0); 1: zone_dirty_ok() each check; 2: cached limit + ALLOC_DIRTY
P_WAKE_HIGH = 6  # wakeup_kswapd() wakes below: 0 the low watermark (3.0); 1 the high one (3.12+)
P_BALANCE_GAP = 7  # kswapd balances to high + gap (1) or high (0)
P_KSWAPD_CLASSZONE = 8  # kswapd's balance check adds lowmem_reserve[classzone] (1) or not (0)
P_RAISE_PRIORITY = 9  # 1: balance_pgdat raises priority until a zone is scanned enough (3.16); 0: restarts at 12 (3.0)
P_NAP_NS = 10  # kswapd_try_to_sleep() short sleep, HZ/10
P_NR_ONLINE_NODES = 11  # nr_online_nodes (1: the thread's machines)
P_SWAP_CLUSTER_MAX = 12  # SWAP_CLUSTER_MAX, 32
P_DIRTY_RATIO = 13  # vm_dirty_ratio, %
P_DIRTY_BG_RATIO = 14  # dirty_background_ratio, %
P_DIRTY_EXPIRE_NS = 15  # dirty_expire_interval (centisecs -> ns)
P_WB_INFLIGHT = 16  # pages under writeback at most (device queue)
P_TRACE_CAP = 17  # rows of the allocation trace
P_SAMPLE_NS = 18  # interval of the zone samples
P_SAMPLE_CAP = 19
P_FAIR_ZERO_TEST = 20  # depletion test: 1 "== 0" (patch 3/4), 0 "<= 0"
P_ZONE_SWITCH_PER_THREAD = 21  # count a zone switch per thread (1) or per allocation stream (0)
P_TRACE_START = 22  # allocation number from which the trace records
P_KSWAPD_STAYS_AWAKE = 23  # 1: kswapd does not nap once balanced at high; it sleeps only when every zone is at
#                            high + gap (the regime of Johannes Weiner's 2013 description; a what-if, not a kernel)
NP = 24

# ----------------------------------------------------------------------------- float parameters F
F_KSWAPD_PAGES_PER_NS = 0  # kswapd's reclaim speed: pages scanned per ns of its CPU time
F_WB_PAGES_PER_NS = 1  # writeback completion rate of the device, pages per ns
F_DIRECT_NS_PER_PAGE = 2  # time an allocating task spends per page it scans in direct reclaim
NF = 3

# ----------------------------------------------------------------------------- workload phases PH
OP_SEQ_WRITE = 0  # threads write their files front to back (allocate, dirty)
OP_RAND_WRITE = 1  # random page writes (dirty; allocate on a miss)
OP_SEQ_READ = 2  # threads read their files front to back (allocate on a miss)
OP_RAND_READ = 3  # random page reads
OP_DELETE = 4  # the files are removed: their pages are freed
OP_IDLE = 5  # time passes (kswapd and writeback go on)
OP_OTHER = 6  # the kernel and user space take (PH_OPS > 0) or give back (< 0) pages outside the file LRU
PH_OP = 0
PH_THREADS = 1
PH_FILE0 = 2  # first page id of thread 0's file
PH_FILE_PAGES = 3  # pages per file (files back to back)
PH_OPS = 4  # random operations per thread (random phases) / duration ns (idle)
PH_CHUNK = 5  # pages a thread handles before another may run (a read-ahead window)
PH_DT_MISS = 6  # ns per page that misses the page cache (read from the device)
PH_DT_HIT = 7  # ns per page found in the page cache
PH_DT_WRITE = 8  # ns per page written into the page cache (CPU; writeback throttles it further)
PH_U0 = 9  # first index of this phase's random numbers in U
PH_KIND = 10  # tiobench phase for the per-phase report (0 SeqWrite, 1 RandWrite, 2 SeqRead, 3 RandRead, -1 other)
PH_RUN = 11  # which tiobench run (thread count) it belongs to
NPH = 12
# per-phase results (rows of PR)
PR_T0 = 0  # ns at start
PR_T1 = 1  # ns at end
PR_HITS = 2
PR_MISSES = 3
PR_ALLOCS = 4
PR_ALLOC_DMA32 = 5
PR_ALLOC_NORMAL = 6
PR_SCAN = 7  # pages scanned (kswapd + direct)
PR_C0 = 8  # then every counter of COUNTER_NAMES, counted over the phase
NPR = PR_C0 + NC

# ----------------------------------------------------------------------------- allocation trace T (int64 rows)
T_NS = 0
T_ZONE = 1  # zone allocated from
T_BATCH_DMA32 = 2
T_BATCH_NORMAL = 3
T_FREE_DMA32 = 4
T_FREE_NORMAL = 5
T_RESET = 6  # 1 if this allocation reset the batches
T_PATH = 7  # 0 fast path, 1 rescan / retry, 2 slow path, 3 direct reclaim
T_DEPLETED = 8  # ZONE_FAIR_DEPLETED bits (1 DMA32, 2 Normal)
NT = 9

# ----------------------------------------------------------------------------- zone samples (float64 rows)
SM_NS = 0
SM_FREE = 1  # + zone (3 columns)
SM_BATCH = 4
SM_INACTIVE = 7
SM_ACTIVE = 10
SM_DIRTY = 13
SM_PGALLOC = 16
SM_PGSCAN = 19
SM_KS_STATE = 22
SM_WRITEBACK = 23
NSM = 24
