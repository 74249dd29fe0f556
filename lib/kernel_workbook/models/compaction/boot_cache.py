"""Booted zones kept per boot's inputs, so that a run starts from a copy instead of booting again.

Boot (``highalloc_kernel.init_zone`` and ``boot``: every page free, the kernel's
unmovable pages, the page cache of the tests before, aged and mostly freed) is a
tenth of a 1 GB run, and it is the same for every kernel of the thread and every
knob of the 2012 explorer but ``min_free_kbytes``: boot allocates and frees
order-0 pages only, so it never reaches compaction, kswapd (woken at most, and
put back to sleep at its end), lumpy reclaim or the test, and it reads none of
the build load's rates.  :data:`IGNORED_INT` and :data:`IGNORED_FLOAT` name the
parameter slots boot does not read; every other slot, the seed and the arrays'
shapes key a booted zone (a slot left out of these lists only costs a boot).
``tests/test_compaction_boot_cache.py`` boots with every ignored slot changed
and checks that nothing differs, and that a run from a kept zone is the run
that boots, to the bit.

A kept zone is copies of the arrays boot writes (:data:`STATE`); boot leaves
the other arrays as ``arrays()`` made them (checked before a zone is kept).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from .layout import F, I

# what boot writes (the page table and its lists, the zone, vmstat, the load's row of ac, the shuffle's scratch)
STATE = ("pg", "fl", "nf", "pb", "lh", "z", "vm", "ac", "tmp")
# arrays boot is handed but leaves as they are: a new run's fresh ones are kept (their size follows the build load)
UNTOUCHED = ("oh",)

# parameter slots boot never reads: compaction and its deferral (boot's allocations are order 0, which never
# compact), lumpy reclaim (order > 0 only), the clock and what the test, the build load, the flusher, kswapd's
# writeout and the script read after boot
IGNORED_INT = (
    "compact_cached_free_pfn", "reclaim_order_0", "kswapd_compact_pgdat", "compact_order_failed",
    "compact_checklock_irqsave", "gfp_no_kswapd", "reclaim_scale_defer_shift", "compact_capture_page",
    "compact_max_defer_shift", "extfrag_threshold", "nr_ticks", "tick_ns", "nr_samples", "sample_every",
    "warmup_ticks", "test_count", "test_delay_ns", "rested_gap_ticks", "build_procs", "sched_factor", "procs_max",
    "proc_anon_pages", "proc_kernel_pages", "proc_life_ticks", "writeback_ns", "trace_max", "highalloc_order",
    "pgpgout_milli_per_page", "test_no_kswapd", "test_noretry", "test_repeat", "audit", "setup_pages",
    "bigfile_pages", "wait_ticks", "pass_gap_ns", "wmark_min_rested", "wmark_low_rested", "wmark_high_rested",
    "balance_gap_rested",
)
IGNORED_FLOAT = ("migrate_page_ns", "scan_pfn_ns", "file_in_per_tick", "file_out_per_tick", "proc_spawn_per_tick",
                 "unmovable_per_tick", "thp_per_tick", "hot_per_tick", "disk_pages_per_tick")
_IGNORED_I = np.array([getattr(I, n) for n in IGNORED_INT], dtype=np.intp)
_IGNORED_F = np.array([getattr(F, n) for n in IGNORED_FLOAT], dtype=np.intp)

KEEP = 8  # booted zones kept (a 1 GB zone is 14 MB): the explorer's, and the reproduction's kernels at each seed


def key(a: dict, seed, engine: str):
    """What a booted zone depends on, or None when it cannot be kept (a seed given as a Generator)."""
    if isinstance(seed, np.random.Generator):
        return None
    pi = a["pi"].copy()
    pi[_IGNORED_I] = 0
    pf = a["pf"].copy()
    pf[_IGNORED_F] = 0.0
    shapes = tuple((k, a[k].shape) for k in STATE + ("rnd",))
    return engine, int(seed), shapes, pi.tobytes(), pf.tobytes()


class BootCache:
    """At most :data:`KEEP` booted zones, the least recently used dropped first; safe across threads (the explorer
    makes runs ahead on one)."""

    def __init__(self, keep: int = KEEP):
        self.keep = keep
        self._zones: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0

    def restore(self, k, a: dict) -> bool:
        """Copy the booted zone ``k`` into the run's arrays ``a``; False if none is kept."""
        if k is None:
            return False
        with self._lock:
            zone = self._zones.get(k)
            if zone is None:
                return False
            self._zones.move_to_end(k)
            self.hits += 1
        for name in STATE:
            np.copyto(a[name], zone[name])
        return True

    def keep_zone(self, k, a: dict, fresh: dict) -> None:
        """Keep the zone ``a`` has just booted (``fresh``: what ``arrays()`` made of the arrays boot must not touch)."""
        if k is None or any(not np.array_equal(a[n], fresh[n]) for n in UNTOUCHED):
            return
        zone = {name: a[name].copy() for name in STATE}
        with self._lock:
            self._zones[k] = zone
            self._zones.move_to_end(k)
            while len(self._zones) > self.keep:
                self._zones.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._zones.clear()


BOOTED = BootCache()

__all__ = ["BOOTED", "BootCache", "key", "STATE", "UNTOUCHED", "IGNORED_INT", "IGNORED_FLOAT", "KEEP"]
