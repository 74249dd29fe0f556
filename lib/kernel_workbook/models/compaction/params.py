"""The knobs of the compaction model, each declared once and named after the kernel's own variable.

:class:`CompactionParams` holds what the kernel decides with: the 3.4-3.6
tunables (``sysctl_extfrag_threshold``, ``COMPACT_MAX_DEFER_SHIFT``,
``min_free_kbytes``, ``vm_swappiness``, the dirty limits, CFS's time
slice) and the changes the 2012 thread argues about as flags, each naming
the commit or patch it switches:

==============================  =====================================================
knob                            the code it switches
==============================  =====================================================
``compact_cached_free_pfn``     ``"none"``: every order > 0 run starts its free scanner
                                at the zone's end (3.3-3.5); ``"7db8889a"``: it starts
                                where the last one left off, skipping ahead to other
                                tasks' positions (3.6-rc1); ``"fixed"``: Mel Gorman's
                                patch 2 of V5 (no skip-ahead, cache updated only when
                                a wrapped scanner isolates or an unwrapped one finishes)
``reclaim_order_0``             fe2c2a10 (3.4): reclaim isolates single pages, not the
                                order-aligned block around each page, and kswapd
                                balances at order 0 once compaction is suitable
``kswapd_compact_pgdat``        7be62de99adc (3.5): kswapd compacts (async) after
                                balancing at a high order
``compact_order_failed``        3.4: only the failed order and higher are deferred
``compact_checklock_irqsave``   c67fe3752abe, patch 3 of V5: async compaction backs
                                off when it should reschedule or a lock is contended
``gfp_no_kswapd``               ``__GFP_NO_KSWAPD`` in ``GFP_TRANSHUGE``: THP faults do
                                not wake kswapd, and a THP fault whose compaction was
                                deferred or contended fails at once; patch 5 removes the
                                flag (kswapd woken) and fails any movable non-
                                ``__GFP_REPEAT`` request instead
``reclaim_scale_defer_shift``   patch 6 (83fde0f22872): reclaim/compaction reclaims
                                ``(2 << order) << compact_defer_shift`` pages while
                                the order keeps failing
``compact_capture_page``        patch 7 (1fb3f8ca0e92): compaction takes a suitable
                                free page for its caller as soon as one forms
==============================  =====================================================

The kernels of the thread are :data:`VARIANTS`; :func:`params_for` gives
one with knobs changed.  The workload (machine, build load, the test's
pacing) is :class:`~.workload.StressHighalloc`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import WorkbookParameterError
from ..knobs import Knobs, knob

CACHE_CHOICES = ("none", "7db8889a", "fixed")


def _ns(v, p):
    return int(round(v))


@dataclass(frozen=True)
class CompactionParams(Knobs):
    """One kernel's allocator, reclaim and compaction, as the 2012 thread's kernels had them."""

    # ---- the thread's changes, as flags
    compact_cached_free_pfn: str = knob(
        "fixed", choices=CACHE_CHOICES, kernel="zone->compact_cached_free_pfn",
        source="mm/compaction.c isolate_freepages(), compact_finished(), compact_zone() (7db8889a; V5 patch 2)",
        doc="where an order > 0 compaction starts its free scanner")
    reclaim_order_0: bool = knob(
        True, kernel="fe2c2a10: isolate_lru_pages() order, balance_pgdat() testorder",
        source="mm/vmscan.c isolate_lru_pages(), balance_pgdat() (fe2c2a10, 3.4)",
        doc="reclaim single pages; kswapd balances at order 0 once compaction is suitable")
    kswapd_compact_pgdat: bool = knob(
        True, kernel="compact_pgdat() from balance_pgdat()",
        source="mm/vmscan.c balance_pgdat(), mm/compaction.c compact_pgdat() (7be62de99adc, 3.5)",
        doc="kswapd runs async compaction after balancing for a high order")
    compact_order_failed: bool = knob(
        True, kernel="zone->compact_order_failed",
        source="mm/compaction.c compaction_deferred(), defer_compaction() (3.4)",
        doc="defer only the failed order and higher")
    compact_checklock_irqsave: bool = knob(
        True, kernel="compact_checklock_irqsave(), cc->contended",
        source="mm/compaction.c compact_checklock_irqsave() (c67fe3752abe, V5 patch 3)",
        doc="async compaction aborts when it should reschedule or a lock is contended")
    gfp_no_kswapd: bool = knob(
        True, kernel="__GFP_NO_KSWAPD",
        source="include/linux/gfp.h GFP_TRANSHUGE, mm/page_alloc.c __alloc_pages_slowpath() (V5 patches 1 and 5)",
        doc="THP faults do not wake kswapd (False: patch 5, the flag removed)")
    reclaim_scale_defer_shift: bool = knob(
        False, kernel="should_continue_reclaim() pages_for_compaction <<= compact_defer_shift",
        source="mm/vmscan.c should_continue_reclaim() (83fde0f22872, V5 patch 6)",
        doc="reclaim more for compaction while the order keeps failing")
    compact_capture_page: bool = knob(
        False, kernel="compact_capture_page(), cc->page",
        source="mm/compaction.c compact_capture_page(), mm/page_alloc.c capture_free_page() (1fb3f8ca0e92, V5 patch 7)",
        doc="compaction hands a suitable free page to its caller as soon as one forms")

    # ---- tunables
    compact_max_defer_shift: int = knob(
        6, unit="", kernel="COMPACT_MAX_DEFER_SHIFT", range=(0, 10), widget=(0, 10, 1),
        source="mm/compaction.c defer_compaction()", doc="at most 2^shift attempts skip compaction")
    extfrag_threshold: int = knob(
        500, unit="", kernel="sysctl_extfrag_threshold", range=(0, 1000), widget=(0, 1000, 50),
        tunable="/proc/sys/vm/extfrag_threshold",
        source="mm/compaction.c compaction_suitable()",
        doc="a fragmentation index at or below it means 'reclaim, do not compact'")
    min_free_kbytes: int | None = knob(
        None, unit="KiB", kernel="min_free_kbytes", range=(128, 1048576), widget=(1024, 262144, 1024),
        tunable="/proc/sys/vm/min_free_kbytes",
        optional=True, packed=False,
        source="mm/page_alloc.c init_per_zone_wmark_min(), mm/huge_memory.c set_recommended_min_free_kbytes()",
        doc="None: as 3.x computes it with THP (max of sqrt(16 x lowmem KiB) and khugepaged's recommendation)")
    vm_swappiness: int = knob(
        60, unit="", kernel="vm_swappiness", range=(0, 100), widget=(0, 100, 5),
        tunable="/proc/sys/vm/swappiness",
        source="mm/vmscan.c get_scan_count()", doc="weight of anonymous pages in reclaim")
    vfs_cache_pressure: int = knob(
        100, unit="%", kernel="sysctl_vfs_cache_pressure", range=(0, 10000), widget=(0, 1000, 10),
        tunable="/proc/sys/vm/vfs_cache_pressure",
        source="fs/dcache.c shrink_dcache_memory(), fs/inode.c shrink_icache_memory() -> mm/vmscan.c shrink_slab()",
        doc="how hard the dentry and inode caches are shrunk against the page cache")
    dirty_expire_centisecs: int = knob(
        3000, unit="cs", kernel="dirty_expire_interval", range=(100, 100000), widget=(500, 6000, 100),
        tunable="/proc/sys/vm/dirty_expire_centisecs",
        source="mm/page-writeback.c, fs/fs-writeback.c wb_writeback()", doc="age at which dirty pages are written")
    dirty_background_ratio: int = knob(
        10, unit="%", kernel="dirty_background_ratio", range=(1, 100), widget=(1, 50, 1),
        tunable="/proc/sys/vm/dirty_background_ratio",
        source="mm/page-writeback.c global_dirty_limits()", doc="dirty share that starts background writeback")
    sched_min_granularity_ns: int = knob(
        750000, unit="ns", kernel="sysctl_sched_min_granularity", range=(100000, 100000000),
        tunable="/proc/sys/kernel/sched_min_granularity_ns",
        widget=(100000, 10000000, 50000), source="kernel/sched/fair.c __sched_period(), update_sysctl()",
        doc="a task's share of the period once a CPU's runqueue holds more than sched_nr_latency tasks "
            "(scaled by 1 + ilog2(CPUs) at boot)")
    sched_latency_ns: int = knob(
        6000000, unit="ns", kernel="sysctl_sched_latency", range=(1000000, 1000000000),
        tunable="/proc/sys/kernel/sched_latency_ns",
        widget=(1000000, 50000000, 1000000), source="kernel/sched/fair.c __sched_period(), sched_slice()",
        doc="the period CFS shares among the tasks of a CPU's runqueue (scaled by 1 + ilog2(CPUs) at boot)")

    # ---- costs of the work (the hardware), in the kernel's units
    migrate_page_ns: float = knob(
        6000.0, unit="ns", kernel="migrate_pages() per page", range=(100.0, 1e6), widget=(500.0, 50000.0, 500.0),
        source="mm/migrate.c unmap_and_move(): unmap, copy 4 KiB, remap (an assumed cost)",
        doc="CPU time to migrate one page")
    scan_pfn_ns: float = knob(
        40.0, unit="ns", kernel="isolate_migratepages_range()/isolate_freepages_block() per pfn",
        range=(1.0, 10000.0), widget=(5.0, 500.0, 5.0), source="mm/compaction.c (an assumed cost)",
        doc="CPU time for a scanner to look at one pfn")
    reclaim_page_ns: float = knob(
        1500.0, unit="ns", kernel="shrink_page_list() per page", range=(10.0, 1e6), widget=(100.0, 20000.0, 100.0),
        source="mm/vmscan.c shrink_inactive_list() (an assumed cost)", doc="CPU time to scan and reclaim one page")

    def check(self):
        if self.sched_min_granularity_ns > self.sched_latency_ns:
            raise WorkbookParameterError("sched_min_granularity_ns", self.sched_min_granularity_ns,
                                         f"<= sched_latency_ns ({self.sched_latency_ns})")


# The kernels of the thread as flag sets.  revert-v5 / contended-v5 / capture-v5 are the
# columns of its tables (patch 1; patches 1-3; patches 1-7); the steps between are the
# patches it describes; 3.3.6 and the akpm tree of April 2012 are the reference figures.
_V36 = dict(compact_order_failed=True, reclaim_order_0=True, kswapd_compact_pgdat=True)
VARIANTS: dict[str, dict] = {
    "3.3.6": dict(compact_cached_free_pfn="none", reclaim_order_0=False, kswapd_compact_pgdat=False,
                  compact_order_failed=False, compact_checklock_irqsave=False, gfp_no_kswapd=True,
                  reclaim_scale_defer_shift=False, compact_capture_page=False),
    "akpm tree": dict(compact_cached_free_pfn="none", reclaim_order_0=True, kswapd_compact_pgdat=False,
                      compact_order_failed=True, compact_checklock_irqsave=False, gfp_no_kswapd=True,
                      reclaim_scale_defer_shift=False, compact_capture_page=False),
    "revert-v5": dict(compact_cached_free_pfn="7db8889a", compact_checklock_irqsave=False, gfp_no_kswapd=True,
                      reclaim_scale_defer_shift=False, compact_capture_page=False, **_V36),
    "fixcache-v5": dict(compact_cached_free_pfn="fixed", compact_checklock_irqsave=False, gfp_no_kswapd=True,
                        reclaim_scale_defer_shift=False, compact_capture_page=False, **_V36),
    "contended-v5": dict(compact_cached_free_pfn="fixed", compact_checklock_irqsave=True, gfp_no_kswapd=True,
                         reclaim_scale_defer_shift=False, compact_capture_page=False, **_V36),
    "nokswapd-v5": dict(compact_cached_free_pfn="fixed", compact_checklock_irqsave=True, gfp_no_kswapd=False,
                        reclaim_scale_defer_shift=False, compact_capture_page=False, **_V36),
    "scaled-v5": dict(compact_cached_free_pfn="fixed", compact_checklock_irqsave=True, gfp_no_kswapd=False,
                      reclaim_scale_defer_shift=True, compact_capture_page=False, **_V36),
    "capture-v5": dict(compact_cached_free_pfn="fixed", compact_checklock_irqsave=True, gfp_no_kswapd=False,
                       reclaim_scale_defer_shift=True, compact_capture_page=True, **_V36),
}
VARIANT_NOTES = {
    "3.3.6": "3.3.6: lumpy-style order-aligned reclaim, kswapd balances at the allocation's order",
    "akpm tree": "April 2012 -mm (3.4 era): fe2c2a10 in, no cached free pfn, no kswapd compaction",
    "revert-v5": "linux-next/mmotm of 3.6-rc2 with patch 1 (the __GFP_NO_KSWAPD removal reverted)",
    "fixcache-v5": "patches 1-2: 7db8889a fixed",
    "contended-v5": "patches 1-3: + async compaction backs off on contention",
    "nokswapd-v5": "patches 1-5: + __GFP_NO_KSWAPD removed again",
    "scaled-v5": "patches 1-6: + reclaim scaled by compact_defer_shift",
    "capture-v5": "patches 1-7: + capture",
}
DEFAULT_VARIANT = "contended-v5"


def params_for(variant: str = DEFAULT_VARIANT, **knobs) -> CompactionParams:
    """The knobs of kernel ``variant`` (one of :data:`VARIANTS`), with ``knobs`` changed."""
    if variant not in VARIANTS:
        raise WorkbookParameterError("variant", variant, "one of " + ", ".join(VARIANTS))
    return CompactionParams().with_(**{**VARIANTS[variant], **knobs})


__all__ = ["CompactionParams", "VARIANTS", "VARIANT_NOTES", "DEFAULT_VARIANT", "params_for", "CACHE_CHOICES"]
