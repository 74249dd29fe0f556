"""The knobs of the writeback/reclaim model, each declared once and named after the kernel's own variable.

:class:`WritebackParams` holds the 2.6.23 tunables the 2007 thread talks
about (``vm_dirty_ratio``, ``dirty_background_ratio``, the pdflush periods),
the throttles as flags, the CPU cost of scanning a page, and the block layer
(``block``): the disk/CFQ model's :class:`~kernel_workbook.models.cfq.IOParams`
-- the elevator (``scheduler``), ``HZ``, ``nr_requests``, ``max_sectors_kb``,
CFQ's and deadline's tunables and the disk -- whose knobs are reached by
their own names (``params_for("2.6.23", scheduler="noop", nr_requests=64)``):

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
``scheduler``,                  the elevator of the kernel: 2.5.52-mm's deadline (the
``deadline_rbtree_2002``        2002 kernels), 2.6.23's CFQ (the default of its
                                ``block/Kconfig.iosched``)
==============================  =====================================================

The kernels of the thread are :data:`VARIANTS`; :func:`params_for` gives
one with knobs changed.  The workload (machine, memory split, load) is
:class:`~.workload.WritebackLoad`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import WorkbookParameterError
from ..cfq import SERVER_SATA_2011, CFQParams, IOParams
from ..knobs import Knobs, knob, nested


def _cs_to_ms(v, p):
    return int(v) * 10


@dataclass(frozen=True)
class WritebackParams(Knobs):
    """One kernel: the dirty limits, pdflush, the request queue, the reclaim throttles, the costs."""

    # ---- the dirty limits and pdflush (mm/page-writeback.c, 2.6.23)
    vm_dirty_ratio: int = knob(
        10, unit="%", kernel="vm_dirty_ratio", range=(5, 100), widget=(5, 100, 1),
        tunable="/proc/sys/vm/dirty_ratio",
        source="mm/page-writeback.c get_dirty_limits(), balance_dirty_pages()",
        doc="dirty + writeback share of dirtyable memory at which a writer must write (10 from 2.6.22; 40 before)")
    dirty_background_ratio: int = knob(
        5, unit="%", kernel="dirty_background_ratio", range=(1, 100), widget=(1, 50, 1),
        tunable="/proc/sys/vm/dirty_background_ratio",
        source="mm/page-writeback.c get_dirty_limits(), background_writeout()",
        doc="dirty share at which pdflush starts background writeout (5 from 2.6.22; 10 before)")
    dirty_writeback_centisecs: int = knob(
        500, unit="cs", kernel="dirty_writeback_interval", range=(10, 100000), widget=(50, 3000, 50),
        tunable="/proc/sys/vm/dirty_writeback_centisecs",
        to_kernel=_cs_to_ms, packed="int", source="mm/page-writeback.c wb_timer_fn(), wb_kupdate()",
        doc="period of pdflush's kupdate pass (packed in ms)")
    dirty_expire_centisecs: int = knob(
        3000, unit="cs", kernel="dirty_expire_interval", range=(10, 100000), widget=(100, 6000, 100),
        tunable="/proc/sys/vm/dirty_expire_centisecs",
        to_kernel=_cs_to_ms, packed="int", source="mm/page-writeback.c wb_kupdate() older_than_this",
        doc="age at which kupdate writes a dirty page (packed in ms)")
    bdp_nonblocking: bool = knob(
        False, kernel="writeback_control.nonblocking in balance_dirty_pages()",
        source="mm/page-writeback.c balance_dirty_pages() (Fengguang Wu's patch, Oct 2007)",
        doc="a throttled writer stops at a congested queue instead of filling it and blocking")

    # ---- reclaim (mm/vmscan.c, 2.6.23)
    kswapd_swapwrite: bool = knob(
        True, kernel="PF_SWAPWRITE (current_is_kswapd() in 2002)",
        source="mm/vmscan.c may_write_to_queue() (c4e2d7dd, Dec 2002)",
        doc="kswapd may write to a congested queue, and blocks when it is full")
    kswapd_congestion_wait: bool = knob(
        True, kernel="congestion_wait(WRITE, HZ/10) in balance_pgdat()/try_to_free_pages()",
        source="mm/vmscan.c balance_pgdat(), try_to_free_pages()",
        doc="reclaim naps below DEF_PRIORITY - 2 until a queue uncongests or the timeout")
    balance_pgdat_2002: bool = knob(
        False, kernel="balance_pgdat(), try_to_free_pages() of 2.5.36 .. 2.5.70",
        source="mm/vmscan.c of 2.5 (read in patches against 2.5.36 and 2.5.70 on lkml/linux-mm: the same loop)",
        doc="the 2002 reclaim loop: priority 12 down to 1, max_scan = max(nr_inactive >> priority, 2 x pages "
            "wanted), a nap after every pass that left a zone short; off: 2.6.23's (naps only below "
            "DEF_PRIORITY - 2, kswapd starts over once it freed SWAP_CLUSTER_MAX)")
    throttle_vm_writeout: bool = knob(
        True, kernel="throttle_vm_writeout()", source="mm/page-writeback.c throttle_vm_writeout(), "
                                                      "mm/vmscan.c shrink_zone()",
        doc="after each zone shrink, wait while writeback exceeds 110% of the dirty limit")
    congestion_wait_ms: int = knob(
        100, unit="ms", kernel="HZ/10", range=(1, 10000), widget=(1, 500, 1),
        source="mm/backing-dev.c congestion_wait()", doc="the longest nap of congestion_wait()")
    min_free_kbytes: int | None = knob(
        None, unit="KiB", kernel="min_free_kbytes", range=(128, 1048576), widget=(128, 65536, 128), optional=True,
        tunable="/proc/sys/vm/min_free_kbytes",
        packed=False, source="mm/page_alloc.c init_per_zone_pages_min(), setup_per_zone_pages_min()",
        doc="None: sqrt(lowmem KiB x 16), as the kernel sets it at boot")

    # ---- the cost of reclaim (the CPU; not a kernel variable)
    scan_page_ns: float = knob(
        2000.0, unit="ns", kernel="shrink_page_list() per page", range=(10.0, 1e6), widget=(100.0, 20000.0, 100.0),
        source="mm/vmscan.c shrink_inactive_list(), shrink_page_list() (the reproduction derives it from the thread)",
        doc="CPU time kswapd spends on one page it scans")

    # ---- the block layer: the disk/CFQ model's request list, elevators and disk (block/ll_rw_blk.c, 2.6.23)
    block: IOParams = nested(
        IOParams(scheduler="cfq", HZ=250, cfq=CFQParams(
            cfq_quantum=4, cfq_latency=False, cfq_group_idle=0.0, cfq_io_thinktime_big=False,
            cfq_may_dispatch_promote_sync=False, cfq_mark_cfqq_deep=False, cfq_clear_cfqq_deep_fast_device=False,
            cfq_should_preempt_idle_queue=False),
            disk=SERVER_SATA_2011.with_(media_rate_mb_s=60.0, ncq_depth=1)),
        source="block/ll_rw_blk.c, block/elevator.c, block/cfq-iosched.c of 2.6.23 (models/cfq)",
        doc="the one request queue every zone writes through: 2.6.23's CFQ (cfq_quantum = 4; low_latency, group "
            "idling and the deep-queue marks came later), CONFIG_HZ = 250 (kernel/Kconfig.hz default), and a 7200 "
            "rpm disk (the cfq model's server-sata-2011 data sheet) writing 60 MB/s with no command queueing")

    @property
    def HZ(self) -> int:
        """``CONFIG_HZ`` of the block layer (its knobs' conversions to jiffies read it from the set they pack)."""
        return self.block.HZ


# The kernels of the thread as flag sets.  The 2002 kernels are akpm's 2.5.52-mm: the 2.5/2.6.21 dirty limits,
# CONFIG_HZ = 1000 (include/asm-i386/param.h of 2.5), the rbtree deadline that was 2.5's default elevator
# (blk_init_queue(): elevator_init(q, &iosched_deadline); rbtree-iosched.patch in 2.5.52-mm2), and 2.5's reclaim loop.
_OLD_LIMITS = dict(vm_dirty_ratio=40, dirty_background_ratio=10)
# HZ is written as a power: the check for published literals cannot tell this kernel constant from the thread's
# "1000MB/s" (a figure that reaches the model only through the reproduction's published())
HZ_2_5 = 10 ** 3  # include/asm-i386/param.h of 2.5: HZ 1000
_ELV_2002 = dict(scheduler="deadline", deadline_rbtree_2002=True, HZ=HZ_2_5, balance_pgdat_2002=True)
VARIANTS: dict[str, dict] = {
    "before c4e2d7dd": dict(kswapd_swapwrite=False, throttle_vm_writeout=False, bdp_nonblocking=False,
                            kswapd_congestion_wait=True, **_OLD_LIMITS, **_ELV_2002),
    "after c4e2d7dd": dict(kswapd_swapwrite=True, throttle_vm_writeout=False, bdp_nonblocking=False,
                           kswapd_congestion_wait=True, **_OLD_LIMITS, **_ELV_2002),
    "2.6.23": dict(kswapd_swapwrite=True, throttle_vm_writeout=True, bdp_nonblocking=False,
                   kswapd_congestion_wait=True),
    "2.6.23 without congestion_wait": dict(kswapd_swapwrite=True, throttle_vm_writeout=True, bdp_nonblocking=False,
                                           kswapd_congestion_wait=False),
    "2.6.23 + nonblocking": dict(kswapd_swapwrite=True, throttle_vm_writeout=True, bdp_nonblocking=True,
                                 kswapd_congestion_wait=True),
}
VARIANT_NOTES = {
    "before c4e2d7dd": "2.5.52-mm before Dec 2002: kswapd skips a congested queue like any allocator (40/10 limits, "
                       "the rbtree deadline elevator)",
    "after c4e2d7dd": "c4e2d7dd: kswapd may use all of the queue and blocks on it (40/10 limits, the rbtree deadline)",
    "2.6.23": "2.6.23: PF_SWAPWRITE, 10/5 limits, throttle_vm_writeout() after each zone shrink, CFQ",
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
