"""Knobs of the fair-zone allocator model, declared once, named as the kernel names them.

* :class:`Machine` -- one node: its zones' sizes (``managed_pages``), the
  memory the kernel and user space hold, the device's write rate and
  kswapd's reclaim speed.  Presets in :data:`MACHINES`.
* :class:`FairZoneParams` -- the kernel: ``ALLOC_FAIR`` and the
  ``NR_ALLOC_BATCH`` formula, patch 3/4's ``ZONE_FAIR_DEPLETED`` /
  ``fair_enabled``, ``zone_dirty_ok``, kswapd's wake mark and balance gap,
  ``min_free_kbytes``, ``lowmem_reserve_ratio``, the dirty limits.  Each
  kernel of the 2014 thread is a named flag set in :data:`VARIANTS`
  (:func:`variant_params`).
* :class:`AllocatorCosts` -- what each unit of the allocator's counted work
  costs the allocating CPU (assumptions, priced outside the kernel).

Where the mechanism reference and the thread's patches differ, the patches as
posted win (patch 3/4 resets batches to ``managed_pages >> 2`` and excludes a
DMA zone smaller than ``node_present_pages >> 4``); docs/models/fairzone.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import WorkbookParameterError
from ..knobs import Knobs, knob, nested

PAGE_SIZE = 4096  # bytes
PAGES_PER_MB = 256
DEF_PRIORITY = 12  # mm/vmscan.c
SWAP_CLUSTER_MAX = 32  # include/linux/swap.h
RATELIMIT_PAGES = 32  # mm/page-writeback.c ratelimit_pages: balance_dirty_pages_ratelimited() checks this often
KSWAPD_ZONE_BALANCE_GAP_RATIO = 100  # mm/vmscan.c (3.x): the gap is at most 1% of the zone

_PAGE_ALLOC = "mm/page_alloc.c"
_VMSCAN = "mm/vmscan.c"
_WRITEBACK = "mm/page-writeback.c"


def pages_per_unit_of(params) -> int:
    """The model's resolution U of a parameter set (1 when a caller hands over something without it)."""
    return int(getattr(params, "pages_per_unit", 1))


def units_from_pages(pages: int, u: int) -> int:
    """A page count as a count of units of ``u`` pages, to the nearest unit (halves up, for either sign).

    Nearest, not floor or ceil: a unit-level test ``free > mark`` stops allocating at ``mark`` units, within
    ``u / 2`` pages either side of where the page-level test stops, so no threshold is biased one way.
    At ``u = 1`` it is the identity.
    """
    return (2 * int(pages) + u) // (2 * u)


def _units_per_ns_from_per_ms(v, params) -> float:
    # kswapd's speed is pages per time; a unit is U pages, so it gets through U times fewer units per ns
    return v / 1e6 / pages_per_unit_of(params)


def _units_per_ns_from_mb_s(v, params) -> float:
    # the device completes U times fewer units than pages per ns
    return v * PAGES_PER_MB / 1e9 / pages_per_unit_of(params)


def _ns_per_unit_from_us(v, params) -> float:
    # direct reclaim costs its task per page scanned; a unit scanned is U pages scanned
    return v * 1000.0 * pages_per_unit_of(params)


def _ns_from_ms(v, params) -> int:
    return int(v) * 1_000_000


def _ns_from_centisecs(v, params) -> int:
    return int(v) * 10_000_000


def _units_from_bytes(v, params) -> int:
    pages = -(-int(v) // PAGE_SIZE)  # DIV_ROUND_UP(vm_dirty_bytes, PAGE_SIZE)
    if pages == 0:
        return 0  # 0 is "not set": the ratio rules
    # a set limit stays set (at least one unit) whatever the resolution
    return max(1, units_from_pages(pages, pages_per_unit_of(params)))


def _units_from_mb(v, params) -> int:
    # at least one page (one unit) may be under writeback, or the flusher could never start
    return max(1, units_from_pages(max(1, int(v * PAGES_PER_MB)), pages_per_unit_of(params)))


@dataclass(frozen=True)
class Machine(Knobs):
    """One NUMA node (the thread's machines have one) and the hardware the model needs.

    Zone sizes are in MB of ``managed_pages`` (present pages minus what the
    kernel reserved at boot).  ``normal_mb=None`` gives ZONE_NORMAL the rest
    of ``ram_mb``.
    """

    name: str = "desktop-2014"
    ram_mb: int = knob(8192, unit="MB", kernel="node_present_pages", source="mm/page_alloc.c free_area_init_node()",
                       range=(1, 1 << 22), widget=(1024, 16384, 512), packed=False, doc="the node's memory")
    dma_mb: float = knob(15.5, unit="MB", kernel="zone->managed_pages (ZONE_DMA)",
                         source="mm/page_alloc.c free_area_init_core()", range=(0.0, None), widget=(0, 16, 0.5),
                         packed=False, doc="ZONE_DMA, below 16 MB")
    dma32_mb: float = knob(3000.0, unit="MB", kernel="zone->managed_pages (ZONE_DMA32)",
                           source="mm/page_alloc.c free_area_init_core()", range=(0.0, None), widget=(0, 4096, 16),
                           packed=False, doc="ZONE_DMA32, 16 MB - 4 GB less the PCI hole")
    normal_mb: float | None = knob(None, unit="MB", kernel="zone->managed_pages (ZONE_NORMAL)",
                                   source="mm/page_alloc.c free_area_init_core()", range=(0.0, None),
                                   widget=(0, 16384, 64), packed=False, optional=True, kind="float",
                                   doc="ZONE_NORMAL; None: ram_mb less the other zones and the holes")
    hole_mb: float = knob(200.0, unit="MB", kernel="node_spanned_pages - node_present_pages - reserved",
                          source="mm/page_alloc.c calculate_node_totalpages()", range=(0.0, None), packed=False,
                          doc="firmware, PCI hole, kernel image, memmap: memory no zone manages")
    other_mb: float = knob(400.0, unit="MB", kernel="NR_SLAB_* + NR_PAGETABLE + NR_ANON_PAGES",
                           source="include/linux/mmzone.h enum zone_stat_item", range=(0.0, None), packed=False,
                           doc="held by the kernel (slab, page tables) and user space, not on the file LRU")
    cpus: int = knob(4, unit="CPUs", kernel="nr_cpu_ids", source="kernel/smp.c", range=(1, 4096), packed=False,
                     doc="allocations run on them (per-cpu vmstat drift is not modelled)")
    writeback_mb_s: float = knob(120.0, unit="MB/s", kernel="bdi write bandwidth",
                                 source="mm/page-writeback.c bdi_update_write_bandwidth()", range=(0.001, None),
                                 widget=(10, 400, 5), to_kernel=_units_per_ns_from_mb_s, packed="float",
                                 doc="the device completes writeback at this rate (SeqWrite's); kernel: units per ns")
    kswapd_pages_per_ms: float = knob(1000.0, unit="pages/ms", kernel="kswapd's scan rate",
                                      source="mm/vmscan.c shrink_page_list()", range=(0.001, None),
                                      widget=(50, 5000, 50), to_kernel=_units_per_ns_from_per_ms, packed="float",
                                      doc="pages kswapd scans per ms of its CPU (clean page cache; a priori ~1 us a "
                                          "page, not fitted: the vanilla column shows no trace of it above ~30 "
                                          "pages/ms, docs/models/fairzone.md); kernel: units per ns")
    direct_reclaim_us_per_page: float = knob(1.0, unit="us/page", kernel="direct reclaim cost",
                                             source="mm/vmscan.c try_to_free_pages()", range=(0.0, None),
                                             widget=(0, 10, 0.1), to_kernel=_ns_per_unit_from_us, packed="float",
                                             doc="time an allocating task spends per page it scans in direct "
                                                 "reclaim; kernel: ns per unit")
    note: str = ""

    @property
    def managed_mb(self) -> tuple[float, float, float]:
        normal = self.normal_mb
        if normal is None:
            normal = self.ram_mb - self.dma_mb - self.dma32_mb - self.hole_mb
        return (float(self.dma_mb), float(self.dma32_mb), float(normal))

    def check(self) -> None:
        """What no single knob can say: zones fit their node, something is left for the file LRU."""
        for name, v in zip(("dma_mb", "dma32_mb", "normal_mb"), self.managed_mb):
            if v > self.ram_mb:
                raise WorkbookParameterError(name, v, f"at most the node's ram_mb={self.ram_mb} (a zone cannot be "
                                                      "bigger than its node)")
            if v < 0:
                raise WorkbookParameterError(name, v, "MB >= 0 (ram_mb less dma_mb, dma32_mb and hole_mb is negative)")
        if sum(self.managed_mb) + self.hole_mb > self.ram_mb + 1e-6:
            raise WorkbookParameterError("dma32_mb", self.dma32_mb,
                                         f"zones and holes summing to at most ram_mb={self.ram_mb}")
        if sum(self.managed_mb) <= 0:
            raise WorkbookParameterError("ram_mb", self.ram_mb, "a node with at least one populated zone")
        if self.other_mb >= sum(self.managed_mb) - 16:
            raise WorkbookParameterError("other_mb", self.other_mb, "MB, at least 16 MB less than the managed memory")


MACHINES: dict[str, Machine] = {
    "desktop-2014": Machine(
        note="Mel Gorman's 'small single-node machine' / 'mid-range desktop' (2014): 8 GB, one node, DMA32 "
             "and Normal both populated; DMA32's size is refitted by the reproduction on the vanilla spread"),
    "laptop-2014": Machine(
        name="laptop-2014", ram_mb=4096, dma32_mb=3000.0, writeback_mb_s=75.0,
        note="Mel's laptop (4 GB): most of memory is DMA32, Normal is the ~1 GB above 4 GB"),
    "johannes-2014": Machine(
        name="johannes-2014",
        note="Johannes Weiner's test machine: not described in the thread beyond 'single node'; assumed the same "
             "class as Mel's desktop, DMA32's size refitted on his vanilla velocity"),
    "node-4g": Machine(
        name="node-4g", ram_mb=4096, dma32_mb=2048.0, hole_mb=0.0, other_mb=0.0, normal_mb=2032.5,
        note="a plain 4 GiB node (1 M pages) for the benchmark"),
    "small-2g": Machine(
        name="small-2g", ram_mb=2048, dma32_mb=1900.0, normal_mb=0.0, hole_mb=132.5, other_mb=100.0,
        note="2 GB: no ZONE_NORMAL -- one fair-eligible zone, so patch 3/4 turns the fair policy off"),
}


def machine(name_or_machine) -> Machine:
    if isinstance(name_or_machine, Machine):
        return name_or_machine
    if name_or_machine not in MACHINES:
        raise WorkbookParameterError("machine", name_or_machine, "one of " + ", ".join(MACHINES))
    return MACHINES[name_or_machine]


NR_ALLOC_BATCH_FORMULAS = ("high-low", "managed>>shift", "custom")
THP_CHOICES = ("always", "madvise", "never")
RECLAIM_WRITEPAGE = ("always", "kswapd_tail_dirty")
ZONE_DIRTY_OK = ("off", "each", "cached")


@dataclass(frozen=True)
class FairZoneParams(Knobs):
    """One kernel's page allocator, kswapd and dirty limits.  Defaults: 3.16-rc1 vanilla."""

    name: str = "3.16-rc1"  # label for captions and tables
    machine: Machine = nested(Machine(), source="the node and its device")
    # --- the fair zone allocation policy, mm/page_alloc.c ---
    ALLOC_FAIR: bool = knob(True, source=f"{_PAGE_ALLOC} get_page_from_freelist()",
                            doc="fair pass over the local zones first (81c0a2bb515f, 3.12; the ALLOC_FAIR flag 3.14)")
    ZONE_FAIR_DEPLETED: bool = knob(False, source=f"{_PAGE_ALLOC} get_page_from_freelist() (patch 3/4)",
                                    doc="patch 3/4: test a zone flag set when the batch reaches 0; fair_enabled "
                                        "zonerefs; stop at a non-fair zoneref; reset only when a watermark failed "
                                        "or every batch is spent")
    fair_enabled_dma_shift: int = knob(4, kernel="node_present_pages >> 4",
                                       source=f"{_PAGE_ALLOC} zoneref_set_zone() (patch 3/4)", range=(0, 30),
                                       packed=False, doc="DMA is not fair if its managed pages are below "
                                                         "node_present_pages >> this")
    fair_depleted_test: str = knob("==0", choices=("<=0", "==0"),
                                   source=f"{_PAGE_ALLOC} buffered_rmqueue() (patch 3/4)",
                                   doc="the depletion test: '== 0' as posted, '<= 0' as fixed in Sep 2014")
    NR_ALLOC_BATCH: str = knob("high-low", choices=NR_ALLOC_BATCH_FORMULAS,
                               source=f"{_PAGE_ALLOC} __setup_per_zone_wmarks(), reset_alloc_batches()",
                               doc="the batch: high - low (3.12-3.16), managed_pages >> shift (patch 3/4, "
                                   "bigbatches), or a custom size")
    nr_alloc_batch_shift: int = knob(2, kernel="managed_pages >> 2", source=f"{_PAGE_ALLOC} reset_alloc_batches()",
                                     range=(0, 20), widget=(0, 12, 1),
                                     doc="the shift of the 'managed>>shift' batch (ignored by the other formulas)")
    nr_alloc_batch_pages: int = knob(1024, unit="pages", kernel="NR_ALLOC_BATCH",
                                     source=f"{_PAGE_ALLOC} reset_alloc_batches()", range=(1, None),
                                     widget=(32, 65536, 32), doc="the 'custom' batch (ignored by the other formulas)")
    remote_spill_pass: bool = knob(True, kernel="zonelist_rescan", source=f"{_PAGE_ALLOC} __alloc_pages_nodemask()",
                                   doc="3a025760fc15 (3.14): reset + one unfair pass before the slow path; False is "
                                       "bigbatches1node (on one node, straight to the slow path)")
    nr_online_nodes: int = knob(1, source="include/linux/nodemask.h num_online_nodes()", range=(1, 1024))
    zone_dirty_ok: str = knob("each", choices=ZONE_DIRTY_OK, source=f"{_WRITEBACK} zone_dirty_ok()",
                              doc="__GFP_WRITE spreading (3.3+): off (3.0), every check, or patch 4/4's cached limit "
                                  "(dirty_limit_cached + ALLOC_DIRTY rescan)")
    # --- watermarks, mm/page_alloc.c ---
    min_free_kbytes: int | None = knob(None, unit="KiB", source=f"{_PAGE_ALLOC} init_per_zone_wmark_min()",
                                       tunable="/proc/sys/vm/min_free_kbytes",
                                       range=(128, 4 * 1024 * 1024), widget=(128, 262144, 128), optional=True,
                                       kind="int",
                                       packed=False, doc="None: int_sqrt(lowmem_kbytes * 16), as the kernel sets it")
    transparent_hugepage: str = knob("always", choices=THP_CHOICES,
                                     kernel="CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS / _MADVISE (sysfs default)",
                                     source="mm/huge_memory.c set_recommended_min_free_kbytes() (3.0, 3.16)",
                                     packed=False,
                                     doc="THP built with 'always' or 'madvise' (khugepaged enabled): at boot "
                                         "min_free_kbytes is raised to 2 free pageblocks per populated zone plus "
                                         "MIGRATE_PCPTYPES^2 pageblocks per zone, at most 5% of lowmem (67584 KiB "
                                         "on a node with DMA, DMA32 and Normal); 'never': the int_sqrt formula alone")
    lowmem_reserve_ratio: tuple = knob((256, 256, 32), kernel="sysctl_lowmem_reserve_ratio",
                                       tunable="/proc/sys/vm/lowmem_reserve_ratio",
                                       source=f"{_PAGE_ALLOC} setup_per_zone_lowmem_reserve()",
                                       doc="DMA, DMA32, Normal")
    # --- kswapd, mm/vmscan.c ---
    kswapd_wake_at: str = knob("high", choices=("low", "high"), kernel="zone_balanced()",
                               source=f"{_PAGE_ALLOC} wakeup_kswapd()",
                               doc="kswapd is woken below the low (3.0) or the high watermark (3.12+)")
    kswapd_balance_gap: bool = knob(True, kernel="KSWAPD_ZONE_BALANCE_GAP_RATIO",
                                    source=f"{_VMSCAN} kswapd_shrink_zone()",
                                    doc="balance to high + min(low, managed/100), or to high")
    kswapd_stop_with_reserve: bool = knob(False, kernel="lowmem_reserve[end_zone]",
                                          source=f"{_VMSCAN} balance_pgdat()",
                                          doc="3.0: balance_pgdat() stops when every zone up to end_zone is above high "
                                              "+ lowmem_reserve[end_zone] (all_zones_ok); 3.11+: pgdat_balanced(), "
                                              "each zone as its own classzone (no reserve).  The check before and "
                                              "after kswapd's nap never adds one (3.0 sleeping_prematurely(), 3.16 "
                                              "prepare_kswapd_sleep())")
    kswapd_raise_priority: bool = knob(True, kernel="sc.priority, sc.nr_to_reclaim",
                                       source=f"{_VMSCAN} balance_pgdat(), kswapd_shrink_zone()",
                                       doc="3.11+: each zone reclaims up to max(SWAP_CLUSTER_MAX, high) a pass, the "
                                           "priority raised until a zone is scanned that much; 3.0: nr_to_reclaim = "
                                           "ULONG_MAX, 'goto loop_again' at priority 12 once 32 pages are reclaimed")
    balance_congestion_wait: bool = knob(False, kernel="congestion_wait(BLK_RW_ASYNC, HZ/10)",
                                         source=f"{_VMSCAN} balance_pgdat() (3.0)",
                                         doc="3.0: a priority pass below DEF_PRIORITY - 2 that scanned and left the "
                                             "node unbalanced naps until a write completes (at most HZ/10), unless "
                                             "a zone is under its min watermark; 3.11+ has no such nap there")
    reclaim_writepage: str = knob("kswapd_tail_dirty", choices=RECLAIM_WRITEPAGE, kernel="pageout()",
                                  source=f"{_VMSCAN} shrink_page_list(), shrink_inactive_list()",
                                  doc="a dirty file page at the inactive tail: 'always' (3.0) -- reclaim writes it "
                                      "(pageout(), PG_reclaim) unless referenced; 'kswapd_tail_dirty' (3.11+) -- "
                                      "only kswapd, only in a zone flagged ZONE_TAIL_LRU_DIRTY (a batch scanned all "
                                      "dirty and unqueued), else PG_reclaim and back on the list")
    kswapd_nap_ms: int = knob(100, unit="ms", kernel="HZ/10", source=f"{_VMSCAN} kswapd_try_to_sleep()",
                              range=(0, 10 ** 6), widget=(0, 1000, 10), to_kernel=_ns_from_ms, packed="int",
                              doc="schedule_timeout(HZ/10); kernel: ns")
    kswapd_stays_awake: bool = knob(False, kernel="(what-if)", source=f"{_VMSCAN} kswapd_try_to_sleep()",
                                    doc="WHAT-IF, not a kernel: no nap while a zone is below high + gap (the regime "
                                        "Johannes Weiner described in 2013: 'kswapd does not go to sleep')")
    # --- dirty limits, mm/page-writeback.c ---
    vm_dirty_ratio: int = knob(20, unit="%", source=f"{_WRITEBACK} global_dirty_limits()", range=(1, 100),
                               tunable="/proc/sys/vm/dirty_ratio")
    vm_dirty_bytes: int = knob(0, unit="bytes", source=f"{_WRITEBACK} global_dirty_limits(), zone_dirty_limit()",
                               tunable="/proc/sys/vm/dirty_bytes",
                               range=(0, 1 << 40), widget=(0, 1 << 30, 1 << 22), to_kernel=_units_from_bytes,
                               packed="int", doc="when set, the dirty limit in bytes instead of vm_dirty_ratio "
                                                 "(DIV_ROUND_UP(vm_dirty_bytes, PAGE_SIZE)); kernel: units of it")
    dirty_background_ratio: int = knob(10, unit="%", source=f"{_WRITEBACK} global_dirty_limits()", range=(0, 100),
                                       tunable="/proc/sys/vm/dirty_background_ratio")
    dirty_expire_centisecs: int = knob(3000, unit="centisecs", kernel="dirty_expire_interval",
                                       tunable="/proc/sys/vm/dirty_expire_centisecs",
                                       source="fs/fs-writeback.c wb_writeback()", range=(1, 10 ** 7),
                                       to_kernel=_ns_from_centisecs, packed="int", doc="kernel: ns")
    writeback_inflight_mb: float = knob(64.0, unit="MB", kernel="nr_requests x max_sectors",
                                        source="block/blk-core.c get_request()", range=(0.004, None),
                                        widget=(4, 512, 4), to_kernel=_units_from_mb, packed="int",
                                        doc="pages under writeback at once (the device queue); kernel: units")
    # --- the model's resolution (not a kernel variable) ---
    pages_per_unit: int = knob(1, unit="pages", kernel="(model resolution, not a kernel variable)",
                               source="the model: one simulated page-cache unit is U contiguous 4 KiB pages of "
                                      "one file (docs/models/fairzone.md, 'Resolution: pages per unit')",
                               range=(1, 512), widget=(1, 64, 1),
                               doc="U: each simulated unit stands for U pages of one file, allocated together from "
                                   "one zone, on one LRU position, dirtied and written back together; every page "
                                   "count the kernel uses is converted to units and every counter is reported in "
                                   "pages again.  Approximates U consecutive order-0 allocations (a read-ahead "
                                   "window, a SWAP_CLUSTER_MAX batch) as one; 1 is the page model itself")

    def check(self) -> None:
        if len(self.lowmem_reserve_ratio) != 3 or any(
                not (isinstance(r, int) and not isinstance(r, bool) and r >= 1) for r in self.lowmem_reserve_ratio):
            raise WorkbookParameterError("lowmem_reserve_ratio", self.lowmem_reserve_ratio, "three integers >= 1")
        # a populated zone smaller than one unit would vanish from the node (no page of it could be allocated)
        u = self.pages_per_unit
        for name, mb in zip(("dma_mb", "dma32_mb", "normal_mb"), self.machine.managed_mb):
            pages = int(round(mb * PAGES_PER_MB))
            if 0 < pages < u:
                raise WorkbookParameterError("pages_per_unit", u, f"pages per unit, at most the smallest populated "
                                                                  f"zone ({name}: {pages} pages)")

    @property
    def fair_mode(self) -> int:
        """0: no fair policy; 1: ALLOC_FAIR as 3.14-3.16-rc1; 2: with ZONE_FAIR_DEPLETED (patch 3/4)."""
        if not self.ALLOC_FAIR:
            return 0
        return 2 if self.ZONE_FAIR_DEPLETED else 1


# Each kernel of the thread as a flag set on top of the 3.16-rc1 defaults.
VARIANTS: dict[str, dict] = {
    "3.0": dict(ALLOC_FAIR=False, zone_dirty_ok="off", kswapd_wake_at="low", kswapd_stop_with_reserve=True,
                kswapd_raise_priority=False, balance_congestion_wait=True, reclaim_writepage="always"),
    # the kernels of Johannes Weiner's 2013 round-robin changelog (81c0a2bb515f): 3.11-rc before the series (Mel
    # Gorman's 3.11 kswapd, zone order, kswapd woken below low), and with it (3.12: the batches reset where the
    # slow path wakes kswapd, now below high; no unfair retry before it, which 3.14 added)
    "3.11-rc": dict(ALLOC_FAIR=False, kswapd_wake_at="low"),
    "3.12": dict(remote_spill_pass=False),
    "3.16-rc1": dict(),
    "fairzone": dict(ZONE_FAIR_DEPLETED=True, NR_ALLOC_BATCH="managed>>shift", nr_alloc_batch_shift=2),
    "lessdirty": dict(ZONE_FAIR_DEPLETED=True, NR_ALLOC_BATCH="managed>>shift", nr_alloc_batch_shift=2,
                      zone_dirty_ok="cached"),
    "bigbatches": dict(NR_ALLOC_BATCH="managed>>shift", nr_alloc_batch_shift=2),
    "bigbatches1node": dict(NR_ALLOC_BATCH="managed>>shift", nr_alloc_batch_shift=2, remote_spill_pass=False),
}
VARIANT_DOC = {
    "3.0": "3.0: first zone above the low watermark, no fairness, no dirty spreading; kswapd woken below low, "
           "balanced with lowmem_reserve, restarted at priority 12, writing dirty pages, napping in congestion_wait",
    "3.11-rc": "3.11-rc (before 81c0a2bb515f): first zone above the low watermark, no fairness; Mel Gorman's 3.11 "
               "kswapd, woken below low",
    "3.12": "3.12 (81c0a2bb515f): batches of high - low, reset where the slow path wakes kswapd (below high)",
    "3.16-rc1": "3.16-rc1 vanilla: ALLOC_FAIR pass with NR_ALLOC_BATCH = high - low, reset and one unfair "
                "retry when it fails (3.14-3.16-rc1); zone_dirty_ok() on every check",
    "fairzone": "patch 3/4: ZONE_FAIR_DEPLETED, fair_enabled zonerefs, reset to managed_pages >> 2 only when a "
                "watermark failed or every batch is spent, no fairness on a single-zone node",
    "lessdirty": "patches 3/4 + 4/4: fairzone and zone_dirty_ok() on a cached limit (dirty_limit_cached, "
                 "ALLOC_DIRTY rescan)",
    "bigbatches": "Johannes Weiner: 3.16-rc1 with only the batch raised to managed_pages >> 2",
    "bigbatches1node": "bigbatches, and on one node no unfair spill pass: straight to the slow path",
}


def variant_params(variant: str = "3.16-rc1", machine_name="desktop-2014", **overrides) -> FairZoneParams:
    """The named kernel on a machine, with any knob overridden (``min_free_kbytes=...``, ``dma32_mb=...``)."""
    if variant not in VARIANTS:
        raise WorkbookParameterError("variant", variant, "one of " + ", ".join(VARIANTS))
    p = FairZoneParams(name=variant, machine=machine(machine_name))
    p = p.with_(**VARIANTS[variant])
    return p.with_(**overrides) if overrides else p


def validate(p: FairZoneParams) -> None:
    """Raise :class:`WorkbookParameterError` naming the first bad knob."""
    if not isinstance(p, FairZoneParams):
        raise WorkbookParameterError("params", type(p).__name__, "a FairZoneParams (see variant_params())")
    p.validate()


# --------------------------------------------------------------------------- the allocator's CPU cost (assumptions)

_COST = "assumption (a 2014 desktop CPU); the model counts the work, only its price is assumed"


@dataclass(frozen=True)
class AllocatorCosts(Knobs):
    """What each unit of the allocator's counted work costs the allocating CPU (ns).

    These are assumptions, not measurements: orders of magnitude of 2014
    desktop CPUs for a cached load (a few ns), an atomic read-modify-write of
    a shared counter (tens of ns), and a cold cache line (~100 ns).  The model
    counts the work exactly; only the price is assumed.  ``zone_switch_ns`` is
    Mel Gorman's "cache effect of switching zones" (the per-cpu free list of
    the other zone, its ``struct zone`` lines and cache-cold pages): named
    separately so that its share of any predicted change can be shown alone.
    """

    get_page_from_freelist_ns: float = knob(10.0, unit="ns", source=f"{_PAGE_ALLOC} get_page_from_freelist()",
                                            range=(0.0, None), packed=False, doc=f"per call; {_COST}")
    zonelist_entry_ns: float = knob(2.0, unit="ns", source=f"{_PAGE_ALLOC} for_each_zone_zonelist_nodemask",
                                    range=(0.0, None), packed=False, doc=f"per zone visited; {_COST}")
    watermark_check_ns: float = knob(5.0, unit="ns", source=f"{_PAGE_ALLOC} zone_watermark_ok()", range=(0.0, None),
                                     packed=False, doc=f"NR_FREE_PAGES read and compare; {_COST}")
    batch_read_ns: float = knob(5.0, unit="ns", source=f"{_PAGE_ALLOC} zone_page_state(NR_ALLOC_BATCH)",
                                range=(0.0, None), packed=False, doc=f"a counter line other CPUs write; {_COST}")
    depleted_flag_read_ns: float = knob(1.0, unit="ns", source=f"{_PAGE_ALLOC} zone_is_fair_depleted()",
                                        range=(0.0, None), packed=False, doc=f"a read-mostly bit; {_COST}")
    batch_update_ns: float = knob(4.0, unit="ns", source="mm/vmstat.c __mod_zone_page_state()", range=(0.0, None),
                                  packed=False, doc=f"per-cpu, spills now and then; {_COST}")
    batch_reset_zone_ns: float = knob(40.0, unit="ns", source=f"{_PAGE_ALLOC} reset_alloc_batches()",
                                      range=(0.0, None), packed=False,
                                      doc=f"mod_zone_page_state() with irqs off: an atomic on the shared counter; "
                                          f"{_COST}")
    dirty_check_ns: float = knob(8.0, unit="ns", source=f"{_WRITEBACK} zone_dirty_ok()", range=(0.0, None),
                                 packed=False, doc=f"the comparison (its counters read); {_COST}")
    dirty_limit_calc_ns: float = knob(20.0, unit="ns", source=f"{_WRITEBACK} zone_dirty_limit()", range=(0.0, None),
                                      packed=False, doc=f"five vmstat counters and a division; {_COST}")
    slowpath_ns: float = knob(300.0, unit="ns", source=f"{_PAGE_ALLOC} __alloc_pages_slowpath()", range=(0.0, None),
                              packed=False, doc=f"wake_all_kswapds, gfp_to_alloc_flags, a retry; {_COST}")
    kswapd_wakeup_ns: float = knob(1000.0, unit="ns", source=f"{_VMSCAN} wakeup_kswapd()", range=(0.0, None),
                                   packed=False, doc=f"wake_up_interruptible() of kswapd; {_COST}")
    zone_switch_ns: float = knob(0.0, unit="ns", source="(Mel Gorman's cache effect of switching zones)",
                                 range=(0.0, None), packed=False,
                                 doc="ASSUMPTION, per allocation from another zone than the last")


COST_TERMS = {
    # cost knob -> the counter (layout.COUNTER_NAMES) it multiplies
    "get_page_from_freelist_ns": "get_page_from_freelist",
    "zonelist_entry_ns": "zonelist_scanned",
    "watermark_check_ns": "watermark_checks",
    "batch_read_ns": "batch_reads",
    "depleted_flag_read_ns": "depleted_flag_reads",
    "batch_update_ns": "batch_updates",
    "batch_reset_zone_ns": "batch_reset_zones",
    "dirty_check_ns": "dirty_checks",
    "dirty_limit_calc_ns": "dirty_limit_calcs",
    "slowpath_ns": "slowpath",
    "kswapd_wakeup_ns": "kswapd_wakeups",
    "zone_switch_ns": "zone_switches",
}


def allocator_cost_ns(counters: dict, costs: AllocatorCosts, allocations: int | None = None,
                      exclude: tuple = ()) -> float:
    """The allocator's CPU per allocated page (ns) under ``costs``; ``exclude`` leaves terms out."""
    n = allocations if allocations is not None else counters.get("pgalloc", 0)
    if not n:
        return 0.0
    total = 0.0
    for f, c in COST_TERMS.items():
        if f in exclude:
            continue
        total += getattr(costs, f) * float(counters.get(c, 0))
    return total / n
