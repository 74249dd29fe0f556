"""Knobs of the fair-zone allocator model, named as the kernel names them.

* :class:`Machine` -- one node: its zones' sizes (``managed_pages``), the
  memory the kernel and user space hold, the device's write rate and
  kswapd's reclaim speed.  Presets in :data:`MACHINES`.
* :class:`FairZoneParams` -- the kernel: ``ALLOC_FAIR`` and the
  ``NR_ALLOC_BATCH`` formula, patch 3/4's ``ZONE_FAIR_DEPLETED`` /
  ``fair_enabled``, ``zone_dirty_ok``, kswapd's wake mark and balance gap,
  ``min_free_kbytes``, ``lowmem_reserve_ratio``, the dirty ratios.  Each
  kernel of the 2014 thread is a named flag set in :data:`VARIANTS`
  (:func:`variant_params`).
* :func:`zone_setup` -- what ``init_per_zone_wmark_min()``,
  ``__setup_per_zone_wmarks()``, ``setup_per_zone_lowmem_reserve()`` and
  ``calculate_totalreserve_pages()`` compute for a machine (mm/page_alloc.c,
  3.16; checked against the source of that release).

Where ``../shared/kernel-heuristics.md`` §2 and the thread's patches differ,
the patches as posted win (patch 3/4 resets batches to ``managed_pages >> 2``
and excludes a DMA zone smaller than ``node_present_pages >> 4``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

import numpy as np

from ..errors import WorkbookParameterError
from . import _fairzone_layout as L

PAGE_SIZE = 4096  # bytes
PAGES_PER_MB = 256
DEF_PRIORITY = 12  # mm/vmscan.c
SWAP_CLUSTER_MAX = 32  # include/linux/swap.h
KSWAPD_ZONE_BALANCE_GAP_RATIO = 100  # mm/vmscan.c (3.x): the gap is at most 1% of the zone


@dataclass(frozen=True)
class Machine:
    """One NUMA node (the thread's machines have one) and the hardware the model needs.

    Zone sizes are in MB of ``managed_pages`` (present pages minus what the
    kernel reserved at boot).  ``normal_mb=None`` gives ZONE_NORMAL the rest
    of ``ram_mb``.
    """

    name: str = "desktop-2014"
    ram_mb: int = 8192  # MB, node_present_pages of the node
    dma_mb: float = 15.5  # MB, ZONE_DMA managed pages (below 16 MB)
    dma32_mb: float = 3000.0  # MB, ZONE_DMA32 managed pages (16 MB - 4 GB, less the PCI hole)
    normal_mb: float | None = None  # MB, ZONE_NORMAL managed pages; None: ram_mb less the others and the holes
    hole_mb: float = 200.0  # MB of the node that no zone manages (firmware, PCI hole, kernel image, memmap)
    other_mb: float = 400.0  # MB held by the kernel (slab, page tables) and user space, not on the file LRU
    cpus: int = 4  # CPUs: allocations run on them (per-cpu vmstat drift is not modelled)
    writeback_mb_s: float = 120.0  # MB/s the device completes writeback at (SeqWrite's rate)
    kswapd_pages_per_ms: float = 1000.0  # pages kswapd scans per ms of its CPU (shrink_page_list of clean page cache)
    direct_reclaim_us_per_page: float = 1.0  # us an allocating task spends per page it scans in direct reclaim
    note: str = ""

    @property
    def managed_mb(self) -> tuple[float, float, float]:
        normal = self.normal_mb
        if normal is None:
            normal = self.ram_mb - self.dma_mb - self.dma32_mb - self.hole_mb
        return (float(self.dma_mb), float(self.dma32_mb), float(normal))

    def with_(self, **kw) -> "Machine":
        return replace(self, **kw)


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
        name="small-2g", ram_mb=2048, dma32_mb=1900.0, normal_mb=0.0, other_mb=100.0,
        note="2 GB: no ZONE_NORMAL -- one fair-eligible zone, so patch 3/4 turns the fair policy off"),
}


def machine(name_or_machine) -> Machine:
    if isinstance(name_or_machine, Machine):
        return name_or_machine
    if name_or_machine not in MACHINES:
        raise WorkbookParameterError("machine", name_or_machine, "one of " + ", ".join(MACHINES))
    return MACHINES[name_or_machine]


NR_ALLOC_BATCH_FORMULAS = ("high-low", "managed>>shift", "custom")
ZONE_DIRTY_OK = ("off", "each", "cached")


@dataclass(frozen=True)
class FairZoneParams:
    """One kernel's page allocator, kswapd and dirty limits.  Defaults: 3.16-rc1 vanilla."""

    name: str = "3.16-rc1"  # label for captions and tables
    machine: Machine = field(default_factory=Machine)
    # --- the fair zone allocation policy, mm/page_alloc.c ---
    ALLOC_FAIR: bool = True  # fair pass over the local zones first (81c0a2bb515f, 3.12; ALLOC_FAIR flag 3.14)
    ZONE_FAIR_DEPLETED: bool = False  # patch 3/4: test a zone flag set when the batch hits 0; fair_enabled zonerefs;
    #                                   break at a non-fair zoneref; reset only if a watermark failed or all batches spent
    fair_enabled_dma_shift: int = 4  # patch 3/4 zoneref_set_zone(): DMA not fair if managed < node_present_pages >> 4
    fair_depleted_test: str = "==0"  # patch 3/4 buffered_rmqueue(): "== 0" (as posted); "<=0" (Sep 2014 fix)
    NR_ALLOC_BATCH: str = "high-low"  # __setup_per_zone_wmarks()/reset_alloc_batches(): "high-low" (3.12-3.16),
    #                                   "managed>>shift" (patch 3/4, bigbatches: managed_pages >> 2), "custom"
    nr_alloc_batch_shift: int = 2  # the shift of "managed>>shift"
    nr_alloc_batch_pages: int = 1024  # pages, the "custom" batch
    remote_spill_pass: bool = True  # 3a025760fc15 (3.14): reset + one unfair pass before the slow path;
    #                                 False: bigbatches1node (on one node, straight to the slow path)
    nr_online_nodes: int = 1  # nr_online_nodes
    zone_dirty_ok: str = "each"  # __GFP_WRITE spreading (3.3+): "off" (3.0), "each" (zone_dirty_ok() on every
    #                               check), "cached" (patch 4/4: dirty_limit_cached + ALLOC_DIRTY rescan)
    # --- watermarks, mm/page_alloc.c ---
    min_free_kbytes: int | None = None  # KiB; None: init_per_zone_wmark_min() = int_sqrt(lowmem_kbytes * 16)
    lowmem_reserve_ratio: tuple = (256, 256, 32)  # sysctl_lowmem_reserve_ratio (DMA, DMA32, Normal)
    # --- kswapd, mm/vmscan.c ---
    kswapd_wake_at: str = "high"  # wakeup_kswapd(): below "low" (3.0) or "high" (zone_balanced(), 3.12+)
    kswapd_balance_gap: bool = True  # kswapd_shrink_zone(): balance to high + min(low, managed/100)
    kswapd_stop_with_reserve: bool = False  # balance_pgdat() stop test adds lowmem_reserve[classzone] (3.0: True)
    kswapd_raise_priority: bool = True  # 3.16: raise priority until a zone is scanned enough; 3.0: restart at 12
    kswapd_nap_ms: int = 100  # ms, kswapd_try_to_sleep(): schedule_timeout(HZ/10)
    kswapd_stays_awake: bool = False  # WHAT-IF, not a kernel: no nap while a zone is below high + gap (the regime
    #                                   Johannes Weiner described in 2013: "kswapd does not go to sleep")
    # --- dirty limits, mm/page-writeback.c ---
    vm_dirty_ratio: int = 20  # %, vm_dirty_ratio
    dirty_background_ratio: int = 10  # %, dirty_background_ratio
    dirty_expire_centisecs: int = 3000  # centiseconds, dirty_expire_interval
    writeback_inflight_mb: float = 64.0  # MB under writeback at once (device queue, nr_requests x request size)

    def with_(self, **kw) -> "FairZoneParams":
        mkw = {k: kw.pop(k) for k in list(kw) if k in _MACHINE_FIELDS}
        p = replace(self, **kw)
        if mkw:
            p = replace(p, machine=p.machine.with_(**mkw))
        return p

    @property
    def fair_mode(self) -> int:
        if not self.ALLOC_FAIR:
            return 0
        return 2 if self.ZONE_FAIR_DEPLETED else 1


_MACHINE_FIELDS = {f.name for f in fields(Machine)} - {"name"}

# Each kernel of the thread as a flag set on top of the 3.16-rc1 defaults.
VARIANTS: dict[str, dict] = {
    "3.0": dict(ALLOC_FAIR=False, zone_dirty_ok="off", kswapd_wake_at="low", kswapd_stop_with_reserve=True,
                kswapd_raise_priority=False),
    "3.16-rc1": dict(),
    "fairzone": dict(ZONE_FAIR_DEPLETED=True, NR_ALLOC_BATCH="managed>>shift", nr_alloc_batch_shift=2),
    "lessdirty": dict(ZONE_FAIR_DEPLETED=True, NR_ALLOC_BATCH="managed>>shift", nr_alloc_batch_shift=2,
                      zone_dirty_ok="cached"),
    "bigbatches": dict(NR_ALLOC_BATCH="managed>>shift", nr_alloc_batch_shift=2),
    "bigbatches1node": dict(NR_ALLOC_BATCH="managed>>shift", nr_alloc_batch_shift=2, remote_spill_pass=False),
}
VARIANT_DOC = {
    "3.0": "3.0: first zone above the low watermark, no fairness, no dirty spreading; kswapd woken below low",
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
    m = p.machine
    if not isinstance(m, Machine):
        raise WorkbookParameterError("machine", type(m).__name__, "a Machine")
    if not m.ram_mb > 0:
        raise WorkbookParameterError("ram_mb", m.ram_mb, "MB > 0")
    for name, v in (("dma_mb", m.dma_mb), ("dma32_mb", m.dma32_mb), ("normal_mb", m.normal_mb),
                    ("hole_mb", m.hole_mb), ("other_mb", m.other_mb)):
        if v is not None and not (isinstance(v, (int, float)) and v >= 0):
            raise WorkbookParameterError(name, v, "MB >= 0")
    for name, v in zip(("dma_mb", "dma32_mb", "normal_mb"), m.managed_mb):
        if v > m.ram_mb:
            raise WorkbookParameterError(name, v, f"at most the node's ram_mb={m.ram_mb} (a zone cannot be bigger "
                                                  "than its node)")
        if v < 0:
            raise WorkbookParameterError("normal_mb" if name == "normal_mb" else name, v,
                                         "MB >= 0 (ram_mb less dma_mb, dma32_mb and hole_mb is negative)")
    if sum(m.managed_mb) + m.hole_mb > m.ram_mb + 1e-6:
        raise WorkbookParameterError("dma32_mb", m.dma32_mb, f"zones and holes summing to at most ram_mb={m.ram_mb}")
    if sum(m.managed_mb) <= 0:
        raise WorkbookParameterError("ram_mb", m.ram_mb, "a node with at least one populated zone")
    if m.other_mb >= sum(m.managed_mb) - 16:
        raise WorkbookParameterError("other_mb", m.other_mb, "MB, at least 16 MB less than the managed memory")
    for name, v in (("cpus", m.cpus),):
        if not (isinstance(v, int) and v >= 1):
            raise WorkbookParameterError(name, v, "an integer >= 1")
    for name, v in (("writeback_mb_s", m.writeback_mb_s), ("kswapd_pages_per_ms", m.kswapd_pages_per_ms)):
        if not (isinstance(v, (int, float)) and v > 0):
            raise WorkbookParameterError(name, v, "a number > 0")
    if not (isinstance(m.direct_reclaim_us_per_page, (int, float)) and m.direct_reclaim_us_per_page >= 0):
        raise WorkbookParameterError("direct_reclaim_us_per_page", m.direct_reclaim_us_per_page, "us >= 0")
    if p.NR_ALLOC_BATCH not in NR_ALLOC_BATCH_FORMULAS:
        raise WorkbookParameterError("NR_ALLOC_BATCH", p.NR_ALLOC_BATCH, "one of " + ", ".join(NR_ALLOC_BATCH_FORMULAS))
    if not (isinstance(p.nr_alloc_batch_shift, int) and 0 <= p.nr_alloc_batch_shift <= 20):
        raise WorkbookParameterError("nr_alloc_batch_shift", p.nr_alloc_batch_shift, "an integer 0..20")
    if not (isinstance(p.nr_alloc_batch_pages, int) and p.nr_alloc_batch_pages >= 1):
        raise WorkbookParameterError("nr_alloc_batch_pages", p.nr_alloc_batch_pages, "pages >= 1")
    if p.fair_depleted_test not in ("==0", "<=0"):
        raise WorkbookParameterError("fair_depleted_test", p.fair_depleted_test, "'==0' or '<=0'")
    if p.zone_dirty_ok not in ZONE_DIRTY_OK:
        raise WorkbookParameterError("zone_dirty_ok", p.zone_dirty_ok, "one of " + ", ".join(ZONE_DIRTY_OK))
    if p.kswapd_wake_at not in ("low", "high"):
        raise WorkbookParameterError("kswapd_wake_at", p.kswapd_wake_at, "'low' or 'high'")
    if p.min_free_kbytes is not None and not (isinstance(p.min_free_kbytes, int) and 128 <= p.min_free_kbytes
                                              <= 4 * 1024 * 1024):
        raise WorkbookParameterError("min_free_kbytes", p.min_free_kbytes, "KiB, 128 .. 4194304 (or None)")
    if len(p.lowmem_reserve_ratio) != 3 or any(not (isinstance(r, int) and r >= 1) for r in p.lowmem_reserve_ratio):
        raise WorkbookParameterError("lowmem_reserve_ratio", p.lowmem_reserve_ratio, "three integers >= 1")
    for name, v, lo, hi in (("vm_dirty_ratio", p.vm_dirty_ratio, 1, 100),
                            ("dirty_background_ratio", p.dirty_background_ratio, 0, 100),
                            ("dirty_expire_centisecs", p.dirty_expire_centisecs, 1, 10 ** 7),
                            ("kswapd_nap_ms", p.kswapd_nap_ms, 0, 10 ** 6),
                            ("nr_online_nodes", p.nr_online_nodes, 1, 1024),
                            ("fair_enabled_dma_shift", p.fair_enabled_dma_shift, 0, 30)):
        if not (isinstance(v, int) and lo <= v <= hi):
            raise WorkbookParameterError(name, v, f"an integer {lo}..{hi}")
    if not p.writeback_inflight_mb > 0:
        raise WorkbookParameterError("writeback_inflight_mb", p.writeback_inflight_mb, "MB > 0")


def int_sqrt(x: int) -> int:
    """lib/int_sqrt.c: floor of the square root."""
    return math.isqrt(int(x))


@dataclass(frozen=True)
class ZoneSetup:
    """The zones as the kernel sets them up at boot (pages)."""

    managed: np.ndarray  # managed_pages per zone
    min_free_kbytes: int
    wmark_min: np.ndarray
    wmark_low: np.ndarray
    wmark_high: np.ndarray
    balance_gap: np.ndarray
    batch: np.ndarray  # NR_ALLOC_BATCH after boot and after every reset
    lowmem_reserve: np.ndarray  # [zone, classzone]
    dirty_balance_reserve: np.ndarray
    fair_enabled: np.ndarray  # zoneref->fair_enabled (patch 3/4), by zone
    zonelist: np.ndarray  # populated zones, highest first (node order)
    other: np.ndarray  # pages held outside the file LRU, by zone
    node_present_pages: int


def zone_setup(p: FairZoneParams) -> ZoneSetup:
    """Watermarks, reserves and batches of ``p.machine`` as 3.16's mm/page_alloc.c computes them."""
    validate(p)
    m = p.machine
    managed = np.array([int(round(mb * PAGES_PER_MB)) for mb in m.managed_mb], dtype=np.int64)
    present = int(round(m.ram_mb * PAGES_PER_MB))
    # init_per_zone_wmark_min(): lowmem_kbytes = nr_free_buffer_pages() * 4 (all zones up to Normal; at boot
    # the watermarks are still 0, so that is every managed page)
    if p.min_free_kbytes is None:
        mfk = int_sqrt(int(managed.sum()) * 4 * 16)
        mfk = min(max(mfk, 128), 65536)
    else:
        mfk = int(p.min_free_kbytes)
    pages_min = mfk >> 2  # min_free_kbytes >> (PAGE_SHIFT - 10)
    lowmem = int(managed.sum())
    wmin = np.zeros(L.NZ, np.int64)
    wlow = np.zeros(L.NZ, np.int64)
    whigh = np.zeros(L.NZ, np.int64)
    for z in range(L.NZ):
        tmp = pages_min * int(managed[z]) // lowmem if lowmem else 0  # __setup_per_zone_wmarks()
        wmin[z] = tmp
        wlow[z] = tmp + (tmp >> 2)
        whigh[z] = tmp + (tmp >> 1)
    gap = np.array([min(int(wlow[z]), -(-int(managed[z]) // KSWAPD_ZONE_BALANCE_GAP_RATIO)) for z in range(L.NZ)],
                   np.int64)
    if p.NR_ALLOC_BATCH == "high-low":
        batch = whigh - wlow
    elif p.NR_ALLOC_BATCH == "managed>>shift":
        batch = managed >> p.nr_alloc_batch_shift
    else:
        batch = np.where(managed > 0, p.nr_alloc_batch_pages, 0).astype(np.int64)
    # setup_per_zone_lowmem_reserve()
    lr = np.zeros((L.NZ, L.NZ), np.int64)
    ratio = list(p.lowmem_reserve_ratio)
    for j in range(L.NZ):
        mp = int(managed[j])
        idx = j
        while idx:
            idx -= 1
            lr[idx, j] = mp // ratio[idx]
            mp += int(managed[idx])
    # calculate_totalreserve_pages(): the largest reserve plus the high watermark, capped at the zone
    dbr = np.array([min(int(lr[z, z:].max()) + int(whigh[z]), int(managed[z])) for z in range(L.NZ)], np.int64)
    # build_zonelists_node() / zoneref_set_zone() (patch 3/4)
    zonelist = np.array([z for z in range(L.NZ - 1, -1, -1) if managed[z] > 0], np.int64)
    fair = np.zeros(L.NZ, np.int64)
    for z in zonelist:
        ok = True
        if z == L.ZONE_DMA and managed[z] < (present >> p.fair_enabled_dma_shift):
            ok = False
        fair[z] = 1 if ok else 0
    if int(fair.sum()) <= 1 and len(zonelist):
        fair[zonelist[0]] = 0  # a single fair zone: no fair policy at all
    # memory held outside the file LRU, spread over the zones by size
    other_total = int(round(m.other_mb * PAGES_PER_MB))
    other = np.zeros(L.NZ, np.int64)
    if lowmem:
        for z in range(L.NZ):
            other[z] = other_total * int(managed[z]) // lowmem
    return ZoneSetup(managed=managed, min_free_kbytes=mfk, wmark_min=wmin, wmark_low=wlow, wmark_high=whigh,
                     balance_gap=gap, batch=batch, lowmem_reserve=lr, dirty_balance_reserve=dbr, fair_enabled=fair,
                     zonelist=zonelist, other=other, node_present_pages=present)


# --------------------------------------------------------------------------- the allocator's CPU cost (assumptions)

@dataclass(frozen=True)
class AllocatorCosts:
    """What each unit of the allocator's counted work costs the allocating CPU (ns).

    These are assumptions, not measurements: orders of magnitude of 2014
    desktop CPUs for a cached load (a few ns), an atomic read-modify-write
    of a shared counter (tens of ns), and a cold cache line (~100 ns).  The
    model counts the work exactly; only the price is assumed.  ``zone_switch``
    is Mel Gorman's "cache effect of switching zones" (the per-cpu free list
    of the other zone, its ``struct zone`` lines and cache-cold pages):
    named separately so that its share of any predicted change can be shown
    on its own.
    """

    get_page_from_freelist_ns: float = 10.0  # per call (a pass over the zonelist)
    zonelist_entry_ns: float = 2.0  # per zone visited
    watermark_check_ns: float = 5.0  # zone_watermark_ok(): NR_FREE_PAGES read and compare
    batch_read_ns: float = 5.0  # zone_page_state(NR_ALLOC_BATCH): a counter line other CPUs write
    depleted_flag_read_ns: float = 1.0  # zone_is_fair_depleted(): a read-mostly bit
    batch_update_ns: float = 4.0  # __mod_zone_page_state(NR_ALLOC_BATCH, -1): per-cpu, spills now and then
    batch_reset_zone_ns: float = 40.0  # mod_zone_page_state() with irqs off: an atomic on the shared counter
    dirty_check_ns: float = 8.0  # zone_dirty_ok(): the comparison (its counters read)
    dirty_limit_calc_ns: float = 20.0  # zone_dirty_limit(): five vmstat counters and a division
    slowpath_ns: float = 300.0  # __alloc_pages_slowpath() entry: wake_all_kswapds, gfp_to_alloc_flags, a retry
    kswapd_wakeup_ns: float = 1000.0  # wake_up_interruptible() of kswapd
    zone_switch_ns: float = 0.0  # ASSUMPTION (Mel's cache effect), per allocation from another zone than the last


COST_TERMS = {
    # cost field -> counter of _fairzone_layout.COUNTER_NAMES it multiplies
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
