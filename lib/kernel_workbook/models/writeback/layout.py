"""The kernel arrays of the writeback model, laid out by name (never by hand-numbered constants).

* ``pg`` -- one row per page frame, the fields of ``struct page`` the model
  keeps (``PG``): its zone, its flags (``PGF``: ``PG_lru``, ``PG_active``,
  ``PG_dirty``, ``PG_writeback``, ``PG_reclaim``, ``PG_referenced``), the LRU
  links, its index in the page cache, when it was dirtied, and the next page
  of the request that writes it (``rq_next``: the request's bio chain);
* ``zs`` -- one row per zone, the fields of ``struct zone`` (``ZN``);
* ``rqw`` -- for each request of the block layer (a row of the disk/CFQ
  model's ``R``), the writeback side of it (``RQW``): who queued it, the zone
  of its first page, the chain of its pages; ``rfree`` the requests not in use;
* ``ac`` / ``acp`` -- one row per task (``ACTOR``: kswapd, pdflush, the
  load): where it is in its loop (``AC``) and the page it holds while it
  sleeps in ``get_request_wait()``;
* ``s`` -- the machine's clock and global state (``S``), ``vm`` the
  ``/proc/vmstat`` counters as 2.6.23 names them (``VM``, per-zone counters
  occupy one slot per zone).

The request queue itself -- the request list, the elevator, the disk -- is the
disk/CFQ model's (``models.cfq.blk_core_kernel``): its arrays (``P``, ``BS``
for its state, ``R``, ``Q``, ``QR``, ``ST``, ``EL``, ``EV``, ``SP``, ``RA``,
``WC``, ``WW``, ``DC``, ``SEEK``, ``PR``) have that model's layout.
"""

from __future__ import annotations

from ..layout import ParamLayout, enum, flags, slots
from .params import WritebackParams

SWAP_CLUSTER_MAX = 32  # include/linux/swap.h
DEF_PRIORITY = 12  # mm/vmscan.c
MAX_WRITEBACK_PAGES = 1024  # mm/page-writeback.c: the chunk of background_writeout() and wb_kupdate()
NR_RND = 1 << 16  # pre-drawn uniforms, reused cyclically
NZ = 3
PAGE_SECTORS = 8  # PAGE_SIZE / 512: a page of the file is a bio of 8 sectors

# enum zone_type: ZONE_DMA, then the low zone (NORMAL on i386, DMA32 on x86_64), then the high one
# (HIGHMEM on i386, NORMAL on x86_64): the zones a GFP_KERNEL allocation may use are 0..ZONE_LOW
ZONE = enum("ZONE", "ZONE_DMA ZONE_LOW ZONE_HIGH")

# page flags the model keeps (include/linux/page-flags.h)
PGF = flags("PGF", "PG_lru PG_active PG_dirty PG_writeback PG_reclaim PG_referenced PG_file")

# the columns of a page
PG = slots("PG", "zone flags lru_next lru_prev index dirtied_ms rq_next")

# the LRU lists of a zone: list id = zone * 2 + lru
LRU = enum("LRU", "LRU_ACTIVE LRU_INACTIVE")

# struct zone
ZN = slots("ZN", """present start nr_free nr_active nr_inactive nr_dirty nr_writeback
    pages_min pages_low pages_high nr_scan_active nr_scan_inactive pages_scanned all_unreclaimable""")

# who runs: kswapd, one pdflush thread (one writes a queue at a time: writeback_acquire()), the load
ACTOR = enum("ACTOR", "KSWAPD PDFLUSH LOAD")
NA = len(ACTOR)

# where a task is
STATE = enum("STATE", "RUNNING SLEEPING CONGESTION_WAIT REQUEST_WAIT")

# what a task was doing when it went to sleep (how it resumes)
MODE = enum("MODE", "IDLE BALANCE_PGDAT TRY_TO_FREE_PAGES ALLOCATE BALANCE_DIRTY_PAGES BACKGROUND_WRITEOUT")

# a task's row: its loop's state (balance_pgdat/try_to_free_pages share the reclaim fields)
AC = slots("AC", """state mode wake_at cpu_ns priority zone end_zone total_scanned nr_reclaimed all_zones_ok
    may_writepage throttle pend_n cw_ns rqw_ns need ratelimit_count pages_written kick zonelist
    cw_count since next_batch""")

# the writeback side of a block-layer request: who queued it, the zone of its first page, its pages' chain
RQW = slots("RQW", "owner zone head tail npages")

# the machine's state
S = slots("S", """now end nr_dirty nr_writeback next_index dirty_exceeded pd_cursor next_kupdate kupdate_due sample_n
    next_sample rnd_i alloc_fail alloc_done audit_fail rfree_n congestion_clear_seen""")

# /proc/vmstat of 2.6.23 (per-zone counters: one slot per zone, ZONE order)
VM = slots("VM", """pgscan_kswapd:3 pgscan_direct:3 pgsteal:3 kswapd_steal pgrotated pgactivate pgdeactivate
    allocstall pageoutrun nr_vmscan_write pgpgout kswapd_writes pdflush_writes bdp_writes""")

# one sample of the run
SMP = slots("SMP", """t_ns kswapd_cpu_ns nr_free:3 nr_dirty:3 nr_writeback:3 q_count q_congested
    load_cw_ns kswapd_cw_ns kswapd_rqw_ns disk_busy_ns""")

PARAMS = ParamLayout(
    WritebackParams,
    derived_int="""nr_pages end_ns sample_ns dirty_thresh background_thresh ratelimit_pages nr_cpus alloc_batch
        alloc_interval_ns lowmem_pct_milli write_pct_milli hot_pct refs_per_batch audit nr_samples max_index
        async_queue""",
)
I = PARAMS.I
F = PARAMS.F

__all__ = ["ZONE", "PGF", "PG", "LRU", "ZN", "ACTOR", "NA", "STATE", "MODE", "AC", "RQW", "S", "VM", "SMP",
           "PARAMS", "I", "F", "SWAP_CLUSTER_MAX", "DEF_PRIORITY", "MAX_WRITEBACK_PAGES", "NR_RND", "NZ", "PAGE_SECTORS"]
