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
PG = flags("PG", "referenced active dirty writeback reclaim pageout")  # page flags PG_* (include/linux/page-flags.h);
#   pageout: the model's mark of a page reclaim wrote (pageout()), on the reclaim write queue KQ, not the flusher's
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
    "nr_resets_unit_corr",  # the unit correction of nr_resets (ALLOC_COUNTERS)
    "scan_carry_i", "scan_carry_a",  # pages of `lru >> priority` not yet scanned for want of a whole unit
    "zone_writeback", "zone_tail_dirty",  # zone->flags ZONE_WRITEBACK, ZONE_TAIL_LRU_DIRTY (3.11+)
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
    "nr_vmscan_write",  # pages reclaim wrote itself (pageout())
    "nr_vmscan_immediate_reclaim",  # dirty pages reclaim marked PG_reclaim and put back (3.11+)
    "kswapd_skip_congestion_wait",  # balance_pgdat() skipped its nap: a zone was under min (3.0)
    "kswapd_congestion_wait",  # kswapd's congestion_wait() naps (balance_pgdat() 3.0, shrink_inactive_list() 3.11+)
    # at each change of the allocating zone (any thread), the switches the page model would add because the
    # change falls inside a unit, given the allocating thread's previous zone (access_page(); COUNTER_UNITS)
    "zone_switch_splits",
)
# The allocator's counters that each page of a unit makes for itself, except where the unit's first page renewed
# the state (a reset of spent budgets, kswapd woken): then the rest of the unit takes the fast path.  For each,
# <name>_unit_corr accumulates, over such allocations, (the fast-path work of the next page) - (the work done):
# reported = U x raw + (U - 1) x corr (allocator_kernel.count_unit_rest; COUNTER_UNITS).
ALLOC_COUNTERS = ("get_page_from_freelist", "zonelist_scanned", "watermark_checks", "batch_reads",
                  "depleted_flag_reads", "dirty_checks", "dirty_limit_calcs", "dirty_fails", "fastpath_allocs",
                  "fair_pass_fails", "batch_resets", "batch_reset_zones", "zonelist_rescans", "slowpath")
COUNTER_NAMES = COUNTER_NAMES + tuple(f"{n}_unit_corr" for n in ALLOC_COUNTERS)
NC = len(COUNTER_NAMES)
ST = slots("ST", [
    "now",  # simulated time, ns
    "ks_state", "ks_nap_end", "ks_last",  # kswapd: KS state, end of its nap (ns), last budget update (ns)
    "ks_classzone",  # pgdat->classzone_idx of the wakeup
    "ks_end_zone",  # end_zone of the running (or last) balance_pgdat(): the classzone kswapd_try_to_sleep() checks
    "ks_round_scanned", "ks_round_reclaimed",  # 3.0: total_scanned, sc.nr_reclaimed since loop_again
    "ks_done",  # 1: balance_pgdat() returns when kswapd's current pass ends (kswapd_try_to_sleep() is next)
    "ks_priority",  # sc.priority (DEF_PRIORITY = 12 down to 0)
    "ks_last_pass",  # pages scanned by kswapd's last balance_pgdat pass
    "dq_head", "dq_wb", "dq_tail",  # dirty FIFO: oldest not yet under writeback, oldest under writeback, next free
    "kq_done", "kq_tail",  # reclaim's write queue KQ (pageout()): oldest not yet completed, next free
    "nr_dirty", "nr_writeback",  # global NR_FILE_DIRTY, NR_WRITEBACK
    "wb_last", "wb_credit",  # writeback: last progress (ns), completions earned not yet used (milli-pages)
    "events",  # page accesses done
    "trace_n", "sample_n", "next_sample",  # rows written, ns of the next sample
    "phase",  # phase being run
    "prev_zone",  # zone of the previous allocation (any thread; -1 before the first)
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
ALLOC_AT = tuple(getattr(ST, n) for n in ALLOC_COUNTERS)  # their slots in S, and their corrections' slots
CORR_AT = tuple(getattr(ST, n + "_unit_corr") for n in ALLOC_COUNTERS)
NALLOC = len(ALLOC_COUNTERS)
AC = enum("AC", ALLOC_COUNTERS)  # positions in ALLOC_COUNTERS (alloc_page()'s snapshot of them)
# alloc_page() builds its snapshot and count_unit_rest() the fast path's work as 14-tuples in this order
assert ALLOC_COUNTERS[:9] == ("get_page_from_freelist", "zonelist_scanned", "watermark_checks", "batch_reads",
                              "depleted_flag_reads", "dirty_checks", "dirty_limit_calcs", "dirty_fails",
                              "fastpath_allocs") and NALLOC == 14

# ----------------------------------------------------------------------------- parameters, from the knob declaration
# swap_cluster_max and dirty_ratelimit are the kernel's 32-page constants in units (simulate.pack)
PARAMS = ParamLayout(FairZoneParams,
                     derived_int="swap_cluster_max dirty_ratelimit trace_cap trace_start sample_ns sample_cap")
I, FP = PARAMS.I, PARAMS.F  # the kernel reads P[I.<knob>] and F[FP.<knob>] (its float array is F)

# ----------------------------------------------------------------------------- the workload's phases: rows of PH
PHF = slots("PHF", [
    "op",  # OP
    "threads",
    "file0",  # first unit id of thread 0's file
    "file_pages",  # units per file (files back to back)
    "ops",  # random unit accesses per thread (random phases) / duration ns (idle) / units (other)
    "chunk",  # units a thread handles before another may run (a read-ahead window)
    "dt_miss", "dt_hit", "dt_write",  # ns per unit that misses, hits, is written into the page cache
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

# ----------------------------------------------------------------------------- back to pages: what each output counts
# The kernel's arrays hold units of `pages_per_unit` (U) pages (docs/models/fairzone.md, "Resolution: pages per
# unit").  Every output keeps the kernel's meaning in pages; result.py applies this table, and only it, to say so.
# How a raw count becomes the reported one:
PAGES = "pages"  # x U: it counts pages, or something each of the U pages does for itself
PER_ALLOC = "per allocation"  # x U, less the work a unit's first page did to renew the state: U raw + (U-1) corr
EVENTS = "events"  # as counted: it happens when a threshold is crossed, as often per page whatever U is
PER_CLUSTER = "per SWAP_CLUSTER_MAX"  # x (swap_cluster_max units x U / 32): one per 32 pages reclaimed
PER_RATELIMIT = "per ratelimit"  # x (dirty_ratelimit units x U / 32): one per 32 pages dirtied
TIME = "ns"  # as counted: time keeps its unit (time per unit is U x time per page)
SPLIT = "events + split units"  # as counted, plus (U-1)/U x zone_switch_splits
INTERNAL = "internal"  # a correction the conversion uses; not reported

_ALLOC_WHY = ("each of the U pages makes its own allocation the same way, except when the unit's first page renewed "
              "the state -- reset spent budgets, woke kswapd to restore a zone -- and the rest of the unit takes "
              "the fast path: its exceptional work then counts once and the fast path's U - 1 times")
_RENEW_WHY = ("an event when it renews the state (a reset of spent budgets: once per round of budgets; a slow path "
              "that wakes kswapd: once until kswapd restores the zone), but repeated by every page while the state "
              "persists (every zone over its dirty limit, below a watermark kswapd is not restoring, or with its "
              "budget spent and not reset): ")

COUNTER_UNITS = {
    # name: (kind, why)
    "pgalloc": (PAGES, "each page of a unit is its own order-0 allocation"),
    "pgactivate": (PAGES, "mark_page_accessed() moves all U pages of the unit to the active list"),
    "pgdeactivate": (PAGES, "shrink_active_list() deactivates U pages per unit"),
    "pgrefill": (PAGES, "active pages scanned"),
    "pageoutrun": (EVENTS, "one per balance_pgdat() call (3.0: per 'goto loop_again', each a round of priority "
                           "passes); a pass scans lru >> priority pages whatever the unit"),
    "allocstall": (PER_CLUSTER, "one direct reclaim per failed allocation, which frees SWAP_CLUSTER_MAX pages that "
                                "serve the next allocations: one per 32 pages at any U dividing 32"),
    "kswapd_low_wmark_hit_quickly": (EVENTS, "kswapd woken during its HZ/10 nap: once per nap"),
    "kswapd_high_wmark_hit_quickly": (EVENTS, "a zone unbalanced after the nap: once per nap"),
    "kswapd_wakeups": (EVENTS, "wake_up_interruptible() only wakes a sleeping kswapd: once per sleep, however many "
                               "pages then find it awake"),
    "get_page_from_freelist": (PER_ALLOC, _ALLOC_WHY),
    "zonelist_scanned": (PER_ALLOC, _ALLOC_WHY),
    "watermark_checks": (PER_ALLOC, _ALLOC_WHY),
    "batch_reads": (PER_ALLOC, _ALLOC_WHY),
    "depleted_flag_reads": (PER_ALLOC, _ALLOC_WHY),
    "batch_updates": (PAGES, "NR_ALLOC_BATCH -= 1 for every page taken"),
    "dirty_checks": (PER_ALLOC, _ALLOC_WHY),
    "dirty_limit_calcs": (PER_ALLOC, _ALLOC_WHY),
    "dirty_fails": (PER_ALLOC, _ALLOC_WHY),
    "fastpath_allocs": (PER_ALLOC, _ALLOC_WHY),
    "slowpath": (PER_ALLOC, _RENEW_WHY + "bigbatches1node enters it once per round of budgets (an event), every "
                                        "kernel for every page while no zone passes its low watermark"),
    "batch_resets": (PER_ALLOC, _RENEW_WHY + "the brief's threshold event, mixed with a per-page part"),
    "batch_reset_zones": (PER_ALLOC, _RENEW_WHY + "zones written per reset, as batch_resets"),
    "fair_pass_fails": (PER_ALLOC, _RENEW_WHY + "as batch_resets"),
    "zonelist_rescans": (PER_ALLOC, _RENEW_WHY + "a rescan follows a failed fair pass (or patch 4/4's dirty "
                                                 "rescan): as batch_resets"),
    "zone_switches": (SPLIT, "a thread moves to another zone when a budget or watermark is crossed: events. But "
                             "the page model's crossing falls inside a unit (U - 1 times in U), splitting it between "
                             "two zones, which a unit cannot be: its thread then switches 1 + [prev != X] - "
                             "[prev != Y] more times (X the old zone, Y the new, prev the thread's previous zone: 0 "
                             "for a lone thread, about 1 with many). Counted at each crossing "
                             "(zone_switch_splits). Still an estimate: half the time the page model splits the "
                             "unit before the crossing, whose thread's *next* zone decides; taken as alike"),
    "zone_switch_splits": (INTERNAL, "the correction of zone_switches"),
    "pagecache_hits": (PAGES, "pages found in the page cache"),
    "pagecache_misses": (PAGES, "pages not found"),
    "write_throttles": (PER_RATELIMIT, "balance_dirty_pages_ratelimited() checks once per 32 pages dirtied; a pause "
                                       "follows a check"),
    "pgscan_kswapd": (PAGES, "pages scanned"),
    "pgsteal_kswapd": (PAGES, "pages reclaimed"),
    "pgscan_direct": (PAGES, "pages scanned"),
    "pgsteal_direct": (PAGES, "pages reclaimed"),
    "nr_dirtied": (PAGES, "pages dirtied"),
    "nr_written": (PAGES, "pages written back"),
    "pages_freed": (PAGES, "pages freed"),
    "nr_vmscan_write": (PAGES, "pages written"),
    "nr_vmscan_immediate_reclaim": (PAGES, "pages marked"),
    "kswapd_skip_congestion_wait": (EVENTS, "one per balance_pgdat() pass that would nap"),
    "kswapd_congestion_wait": (EVENTS, "one per nap"),
    **{n + "_unit_corr": (INTERNAL, f"the correction of {n}") for n in ALLOC_COUNTERS},
    # the result's counters beyond COUNTER_NAMES
    "oom": (PAGES, "allocations that found no page (not OOM kills, which the model does not make): each of the U "
                   "pages would fail alike; must stay 0"),
    "direct_reclaim_stall_ns": (TIME, "time"),
    "dirty_throttle_ns": (TIME, "time"),
}
assert set(COUNTER_NAMES) <= set(COUNTER_UNITS), set(COUNTER_NAMES) - set(COUNTER_UNITS)
assert all(COUNTER_UNITS[n][0] == PER_ALLOC for n in ALLOC_COUNTERS)

# fields of the other outputs that hold page counts (x U); every other field is a time, flag, id or state
ZF_PAGES = ("managed", "free", "wmin", "wlow", "whigh", "gap", "batch", "batch_reset", "nr_inactive", "nr_active",
            "nr_dirty", "nr_writeback", "nr_other", "dirty_limit_cached", "dirty_balance_reserve", "pgalloc",
            "pgscan_kswapd", "pgsteal_kswapd", "pgscan_direct", "pgsteal_direct", "pgactivate", "pgdeactivate",
            "evict_n", "evict_age_us",  # a sum over the pages evicted of their age
            "free_min_seen", "fast_below_min")
ZF_PER_ALLOC = {"nr_resets": "nr_resets_unit_corr"}  # per zone, as batch_resets
ST_PAGES = ("nr_dirty", "nr_writeback")  # the global gauges /proc/vmstat prints
PRF_PAGES = ("hits", "misses", "allocs", "alloc_dma32", "alloc_normal", "scan")
SMF_PAGES = ("free", "batch", "inactive", "active", "dirty", "pgalloc", "pgscan", "writeback")
TRF_PAGES = ("batch_dma32", "batch_normal", "free_dma32", "free_normal")
