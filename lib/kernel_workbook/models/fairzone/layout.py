"""The fair-zone allocator kernel's arrays, laid out from names (no index is numbered by hand).

The kernel (:mod:`.allocator_kernel`) takes numbers only; this module names
every column.  ``ZF`` indexes the rows of ``Z`` (one per zone), ``ST`` the
state vector ``S`` (its last part is the global counters, named as
``/proc/vmstat`` names them, or plainly where the kernel has none), ``PHF``
the workload's phase table, ``PRF`` the per-phase results, ``TRF`` the
allocation trace and ``SMF`` the zone samples.  The parameter arrays come
from the knob declaration (:data:`PARAMS`: ``p[I.ALLOC_FAIR]``,
``f[FP.kswapd_pages_per_ms]``).  Changing this file changes compiled code; the
engine's stale-cache check hashes it with the kernel.
"""

from __future__ import annotations

from ..layout import ParamLayout, enum, flags, slots, width
from .params import FairZoneParams

# ----------------------------------------------------------------------------- kernel enums and flags
ZONE = enum("Zone", "DMA DMA32 Normal")  # enum zone_type (include/linux/mmzone.h), the node's zones
NZ = len(ZONE)
ZONE_NAMES = ZONE._fields
LRU = enum("LRU", "inactive active")  # LRU_INACTIVE_FILE, LRU_ACTIVE_FILE
PG = flags("PG", "referenced active dirty writeback reclaim")  # page flags PG_* (include/linux/page-flags.h)
KS = enum("KS", "sleep run nap")  # kswapd(): asleep in schedule(), in balance_pgdat(), kswapd_try_to_sleep()'s nap
ALLOC = flags("ALLOC", "WMARK_LOW FAIR DIRTY CONSIDER_DIRTY")  # alloc_flags (mm/internal.h); ALLOC_WMARK_MIN is
#                                                              "LOW unset"; CONSIDER_DIRTY: ALLOC_WMARK_LOW && __GFP_WRITE
OP = enum("OP", "seq_write rand_write seq_read rand_read delete idle other")  # the workload's phase operations

# ----------------------------------------------------------------------------- per-zone fields: rows of Z
ZF = slots("ZF", [
    "managed",  # zone->managed_pages
    "free",  # NR_FREE_PAGES
    "wmin", "wlow", "whigh",  # zone->watermark[WMARK_MIN/LOW/HIGH]
    "gap",  # kswapd balance gap, min(low, managed / KSWAPD_ZONE_BALANCE_GAP_RATIO)
    "batch",  # NR_ALLOC_BATCH (signed)
    "depleted",  # ZONE_FAIR_DEPLETED bit of zone->flags
    "fair_enabled",  # zoneref->fair_enabled (patch 3/4)
    "batch_reset",  # what reset_alloc_batches() sets NR_ALLOC_BATCH to
    "nr_inactive", "nr_active",  # NR_INACTIVE_FILE, NR_ACTIVE_FILE (nr_inactive + lru indexes the list)
    "nr_dirty", "nr_writeback",  # NR_FILE_DIRTY, NR_WRITEBACK
    "nr_other",  # pages held by the kernel and user space (not on the file LRU)
    "dirty_limit_cached",  # zone->dirty_limit_cached (patch 4/4)
    "dirty_balance_reserve",  # zone->dirty_balance_reserve, calculate_totalreserve_pages()
    "head_i", "tail_i", "head_a", "tail_a",  # LRU lists: newest and oldest page id (-1 empty); head_i + 2*lru
    "pgalloc", "pgscan_kswapd", "pgsteal_kswapd", "pgscan_direct", "pgsteal_direct",  # per-zone /proc/vmstat
    "pgactivate", "pgdeactivate",  # by zone (the kernel counts them globally)
    "evict_n", "evict_age_us",  # pages reclaimed (kswapd + direct) and the sum of their ages
    "free_min_seen",  # lowest free - (WMARK_MIN + lowmem_reserve[classzone]) after a fast-path allocation
    "fast_below_min",  # fast-path allocations that left the zone below its min watermark (must stay 0)
    "last_reset_ns", "nr_resets",  # the batch's last reset, and how many
])
NZF = width(ZF)

# ----------------------------------------------------------------------------- global counters, then the state vector S
COUNTER_NAMES = (
    "pgalloc", "pgactivate", "pgdeactivate", "pgrefill", "pageoutrun", "allocstall",
    "kswapd_low_wmark_hit_quickly", "kswapd_high_wmark_hit_quickly",
    "kswapd_wakeups",  # wake_up_interruptible() of kswapd
    "slowpath",  # __alloc_pages_slowpath() entries
    "get_page_from_freelist",  # calls (passes over the zonelist)
    "zonelist_scanned",  # zonelist entries visited
    "watermark_checks",  # zone_watermark_ok() calls
    "batch_reads",  # zone_page_state(NR_ALLOC_BATCH) reads in the fair pass (vanilla)
    "depleted_flag_reads",  # zone_is_fair_depleted() tests (patch 3/4)
    "batch_updates",  # __mod_zone_page_state(NR_ALLOC_BATCH, -1)
    "batch_resets", "batch_reset_zones",  # reset_alloc_batches() calls, zones it wrote
    "fair_pass_fails",  # ALLOC_FAIR passes that found no page
    "zonelist_rescans",  # zonelist_rescan / goto retry
    "dirty_checks", "dirty_limit_calcs", "dirty_fails",  # zone_dirty_ok() calls, limits computed, zones skipped
    "zone_switches",  # an allocation from another zone than the thread's previous one
    "pagecache_hits", "pagecache_misses",
    "write_throttles",  # balance_dirty_pages() pauses
    "pgscan_kswapd", "pgsteal_kswapd", "pgscan_direct", "pgsteal_direct",
    "nr_dirtied", "nr_written",
    "fastpath_allocs",  # allocations served by the first (fast-path) get_page_from_freelist pass
    "pages_freed",  # pages freed by file deletion
)
NC = len(COUNTER_NAMES)
ST = slots("ST", [
    "now",  # simulated time, ns
    "ks_state", "ks_nap_end", "ks_last",  # kswapd: KS state, end of its nap (ns), last budget update (ns)
    "ks_classzone",  # pgdat->classzone_idx of the wakeup
    "ks_priority",  # sc.priority (DEF_PRIORITY = 12 down to 0)
    "ks_last_pass",  # pages scanned by kswapd's last balance_pgdat pass
    "dq_head", "dq_wb", "dq_tail",  # dirty FIFO: oldest not yet under writeback, oldest under writeback, next free
    "nr_dirty", "nr_writeback",  # global NR_FILE_DIRTY, NR_WRITEBACK
    "wb_last", "wb_credit",  # writeback: last progress (ns), completions earned not yet used (milli-pages)
    "events",  # page accesses done
    "trace_n", "sample_n", "next_sample",  # rows written, ns of the next sample
    "phase",  # phase being run
    "prev_zone",  # zone of the previous allocation (any thread)
    "nr_threads",
    "seq_throttle_ns",  # time writers spent throttled in balance_dirty_pages
    "direct_stall_ns",  # time allocators spent in direct reclaim
    "oom",  # allocations that found no page even after direct reclaim (must stay 0)
    "next_bg",  # ns of the next background step (kswapd, writeback, sample)
    "ks_busy",  # ns: kswapd's current pass ends (KS.run)
    "wb_next",  # ns of the next writeback step
    *COUNTER_NAMES,
])
NS = width(ST)
COUNTERS_AT = getattr(ST, COUNTER_NAMES[0])  # S[COUNTERS_AT:COUNTERS_AT + NC] are the counters, in COUNTER_NAMES order

# ----------------------------------------------------------------------------- parameters, from the knob declaration
PARAMS = ParamLayout(FairZoneParams, derived_int="swap_cluster_max trace_cap trace_start sample_ns sample_cap")
I, FP = PARAMS.I, PARAMS.F  # the kernel reads P[I.<knob>] and F[FP.<knob>] (its float array is F)

# ----------------------------------------------------------------------------- the workload's phases: rows of PH
PHF = slots("PHF", [
    "op",  # OP
    "threads",
    "file0",  # first page id of thread 0's file
    "file_pages",  # pages per file (files back to back)
    "ops",  # random operations per thread (random phases) / duration ns (idle)
    "chunk",  # pages a thread handles before another may run (a read-ahead window)
    "dt_miss", "dt_hit", "dt_write",  # ns per page that misses, hits, is written into the page cache
    "u0",  # first index of this phase's random numbers in U
    "kind",  # tiobench phase for the report (0 SeqWrite, 1 RandWrite, 2 SeqRead, 3 RandRead, -1 other)
    "run",  # which tiobench run (thread count) it belongs to
])
NPH = width(PHF)
# per-phase results: rows of PR, then every counter of COUNTER_NAMES counted over the phase
PRF = slots("PRF", ["t0", "t1", "hits", "misses", "allocs", "alloc_dma32", "alloc_normal", "scan",
                    f"counters:{NC}"])
NPR = width(PRF)

# ----------------------------------------------------------------------------- allocation trace: rows of TR
TRF = slots("TRF", [
    "ns", "zone",  # when, and the zone allocated from
    "batch_dma32", "batch_normal", "free_dma32", "free_normal",
    "reset",  # 1 if this allocation reset the batches
    "path",  # 0 fast path, 1 rescan / retry, 2 slow path, 3 direct reclaim
    "depleted",  # ZONE_FAIR_DEPLETED bits (1 DMA32, 2 Normal)
])
NT = width(TRF)

# ----------------------------------------------------------------------------- zone samples: rows of SM (float64)
SMF = slots("SMF", ["ns", f"free:{NZ}", f"batch:{NZ}", f"inactive:{NZ}", f"active:{NZ}", f"dirty:{NZ}",
                    f"pgalloc:{NZ}", f"pgscan:{NZ}", "ks_state", "writeback"])
NSM = width(SMF)
