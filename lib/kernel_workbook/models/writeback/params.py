"""The knobs of the writeback/reclaim model, each declared once and named after the kernel's own variable.

:class:`WritebackParams` holds the 2.6.23 tunables the 2007 thread talks
about (``vm_dirty_ratio``, ``dirty_background_ratio``, the pdflush periods,
``nr_requests``), the throttles as flags, and the CPU and disk costs the
model needs:

==============================  =====================================================
knob                            the code it switches
==============================  =====================================================
``kswapd_swapwrite``            c4e2d7dd (Dec 2002, "Give kswapd writeback higher
                                priority than pdflush"); later ``PF_SWAPWRITE``:
                                ``may_write_to_queue()`` lets kswapd write to a
                                congested queue, and kswapd blocks in
                                ``get_request_wait()`` when it is full
``kswapd_congestion_wait``      the nap of ``balance_pgdat()`` and
                                ``try_to_free_pages()``: ``congestion_wait(WRITE, HZ/10)``
                                below ``DEF_PRIORITY - 2``; off is Fengguang Wu's
                                "without congestion_wait" thought experiment
``throttle_vm_writeout``        2.6.23: ``shrink_zone()`` ends in ``throttle_vm_writeout()``
``bdp_nonblocking``             Fengguang Wu's one-line patch of the thread:
                                ``.nonblocking = 1`` in ``balance_dirty_pages()``'s
                                ``writeback_control``
==============================  =====================================================

The kernels of the thread are :data:`VARIANTS`; :func:`params_for` gives
one with knobs changed.  The workload (machine, memory split, load) is
:class:`~.workload.WritebackLoad`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import WorkbookParameterError
from ..knobs import Knobs, knob


def _cs_to_ms(v, p):
    return int(v) * 10


@dataclass(frozen=True)
class WritebackParams(Knobs):
    """One kernel: the dirty limits, pdflush, the request queue, the reclaim throttles, the costs."""

    # ---- the dirty limits and pdflush (mm/page-writeback.c, 2.6.23)
    vm_dirty_ratio: int = knob(
        10, unit="%", kernel="vm_dirty_ratio", range=(5, 100), widget=(5, 100, 1),
        source="mm/page-writeback.c get_dirty_limits(), balance_dirty_pages()",
        doc="dirty + writeback share of dirtyable memory at which a writer must write (10 from 2.6.22; 40 before)")
    dirty_background_ratio: int = knob(
        5, unit="%", kernel="dirty_background_ratio", range=(1, 100), widget=(1, 50, 1),
        source="mm/page-writeback.c get_dirty_limits(), background_writeout()",
        doc="dirty share at which pdflush starts background writeout (5 from 2.6.22; 10 before)")
    dirty_writeback_centisecs: int = knob(
        500, unit="cs", kernel="dirty_writeback_interval", range=(10, 100000), widget=(50, 3000, 50),
        to_kernel=_cs_to_ms, packed="int", source="mm/page-writeback.c wb_timer_fn(), wb_kupdate()",
        doc="period of pdflush's kupdate pass (packed in ms)")
    dirty_expire_centisecs: int = knob(
        3000, unit="cs", kernel="dirty_expire_interval", range=(10, 100000), widget=(100, 6000, 100),
        to_kernel=_cs_to_ms, packed="int", source="mm/page-writeback.c wb_kupdate() older_than_this",
        doc="age at which kupdate writes a dirty page (packed in ms)")
    bdp_nonblocking: bool = knob(
        False, kernel="writeback_control.nonblocking in balance_dirty_pages()",
        source="mm/page-writeback.c balance_dirty_pages() (Fengguang Wu's patch, Oct 2007)",
        doc="a throttled writer stops at a congested queue instead of filling it and blocking")

    # ---- the request queue (block/ll_rw_blk.c, 2.6.23)
    nr_requests: int = knob(
        128, unit="", kernel="q->nr_requests", range=(4, 8192), widget=(4, 512, 4),
        source="block/ll_rw_blk.c BLKDEV_MAX_RQ, blk_queue_congestion_threshold()",
        doc="request slots of the one queue every zone writes through")
    max_sectors_kb: int = knob(
        512, unit="KiB", kernel="q->max_sectors", range=(4, 4096), widget=(4, 1024, 4),
        source="include/linux/blkdev.h BLK_DEF_MAX_SECTORS; block/ll_rw_blk.c ll_back_merge_fn()",
        doc="the largest request a run of contiguous pages merges into (packed in pages)",
        to_kernel=lambda v, p: max(1, int(v) // 4), packed="int")

    # ---- reclaim (mm/vmscan.c, 2.6.23)
    kswapd_swapwrite: bool = knob(
        True, kernel="PF_SWAPWRITE (current_is_kswapd() in 2002)",
        source="mm/vmscan.c may_write_to_queue() (c4e2d7dd, Dec 2002)",
        doc="kswapd may write to a congested queue, and blocks when it is full")
    kswapd_congestion_wait: bool = knob(
        True, kernel="congestion_wait(WRITE, HZ/10) in balance_pgdat()/try_to_free_pages()",
        source="mm/vmscan.c balance_pgdat(), try_to_free_pages()",
        doc="reclaim naps below DEF_PRIORITY - 2 until a queue uncongests or the timeout")
    throttle_vm_writeout: bool = knob(
        True, kernel="throttle_vm_writeout()", source="mm/page-writeback.c throttle_vm_writeout(), "
                                                      "mm/vmscan.c shrink_zone()",
        doc="after each zone shrink, wait while writeback exceeds 110% of the dirty limit")
    congestion_wait_ms: int = knob(
        100, unit="ms", kernel="HZ/10", range=(1, 10000), widget=(1, 500, 1),
        source="mm/backing-dev.c congestion_wait()", doc="the longest nap of congestion_wait()")
    min_free_kbytes: int | None = knob(
        None, unit="KiB", kernel="min_free_kbytes", range=(128, 1048576), widget=(128, 65536, 128), optional=True,
        packed=False, source="mm/page_alloc.c init_per_zone_pages_min(), setup_per_zone_pages_min()",
        doc="None: sqrt(lowmem KiB x 16), as the kernel sets it at boot")

    # ---- costs (the hardware; assumed or calibrated, never kernel variables)
    scan_page_ns: float = knob(
        2000.0, unit="ns", kernel="shrink_page_list() per page", range=(10.0, 1e6), widget=(100.0, 20000.0, 100.0),
        source="mm/vmscan.c shrink_inactive_list(), shrink_page_list() (calibrated on the 2002 'before' run)",
        doc="CPU time kswapd spends on one page it scans")
    disk_write_mb_s: float = knob(
        60.0, unit="MB/s", kernel="(the disk's sequential write rate)", range=(1.0, 10000.0),
        widget=(5.0, 300.0, 5.0), packed=False,
        source="models/cfq DiskParams.media_rate_mb_s (calibrated on the 'before' side of the thread)",
        doc="sequential write rate of the disk; a reclaim write pays a seek from the cfq disk model")


# The kernels of the thread as flag sets.
_OLD_LIMITS = dict(vm_dirty_ratio=40, dirty_background_ratio=10)  # the 2.5/2.6.21 defaults
VARIANTS: dict[str, dict] = {
    "before c4e2d7dd": dict(kswapd_swapwrite=False, throttle_vm_writeout=False, bdp_nonblocking=False,
                            kswapd_congestion_wait=True, **_OLD_LIMITS),
    "after c4e2d7dd": dict(kswapd_swapwrite=True, throttle_vm_writeout=False, bdp_nonblocking=False,
                           kswapd_congestion_wait=True, **_OLD_LIMITS),
    "2.6.23": dict(kswapd_swapwrite=True, throttle_vm_writeout=True, bdp_nonblocking=False,
                   kswapd_congestion_wait=True),
    "2.6.23 without congestion_wait": dict(kswapd_swapwrite=True, throttle_vm_writeout=True, bdp_nonblocking=False,
                                           kswapd_congestion_wait=False),
    "2.6.23 + nonblocking": dict(kswapd_swapwrite=True, throttle_vm_writeout=True, bdp_nonblocking=True,
                                 kswapd_congestion_wait=True),
}
VARIANT_NOTES = {
    "before c4e2d7dd": "2.5.52 before Dec 2002: kswapd skips a congested queue like any allocator (40/10 limits)",
    "after c4e2d7dd": "c4e2d7dd: kswapd may use all of the queue and blocks on it (40/10 limits)",
    "2.6.23": "2.6.23: PF_SWAPWRITE, 10/5 limits, throttle_vm_writeout() after each zone shrink",
    "2.6.23 without congestion_wait": "2.6.23 with reclaim's congestion_wait nap removed (Fengguang's estimate)",
    "2.6.23 + nonblocking": "2.6.23 with the thread's patch: balance_dirty_pages() writes nonblocking",
}
DEFAULT_VARIANT = "2.6.23"


def params_for(variant: str = DEFAULT_VARIANT, **knobs) -> WritebackParams:
    """The knobs of kernel ``variant`` (one of :data:`VARIANTS`), with ``knobs`` changed."""
    if variant not in VARIANTS:
        raise WorkbookParameterError("variant", variant, "one of " + ", ".join(VARIANTS))
    return WritebackParams().with_(**{**VARIANTS[variant], **knobs})


__all__ = ["WritebackParams", "VARIANTS", "VARIANT_NOTES", "DEFAULT_VARIANT", "params_for"]
