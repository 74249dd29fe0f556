"""The zones as the kernel sets them up at boot: watermarks, reserves, batches, zonelist.

What ``init_per_zone_wmark_min()``, ``__setup_per_zone_wmarks()``,
``setup_per_zone_lowmem_reserve()``, ``calculate_totalreserve_pages()`` and
``build_zonelists_node()`` / ``zoneref_set_zone()`` (patch 3/4) compute for a
machine (mm/page_alloc.c, 3.16; checked against the source of that release).

Everything is computed in pages, as the kernel computes it; :func:`in_units`
then converts the result to the model's resolution (``pages_per_unit``), so
that at one page per unit nothing changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .layout import NZ, ZONE
from .params import KSWAPD_ZONE_BALANCE_GAP_RATIO, PAGES_PER_MB, FairZoneParams, units_from_pages, validate


def int_sqrt(x: int) -> int:
    """lib/int_sqrt.c: floor of the square root."""
    return math.isqrt(int(x))


PAGEBLOCK_NR_PAGES = 512  # pageblock_order = HUGETLB_PAGE_ORDER = 9 on x86-64
MIGRATE_PCPTYPES = 3  # MIGRATE_UNMOVABLE, MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE (include/linux/mmzone.h)


def recommended_min_free_kbytes(managed) -> int:
    """set_recommended_min_free_kbytes() (mm/huge_memory.c, 3.0 and 3.16; run at boot when THP is built with
    'always' or 'madvise'): two free pageblocks per populated zone for MIGRATE_RESERVE, plus MIGRATE_PCPTYPES^2
    pageblocks per zone so that each migratetype can fall back, at most 5% of lowmem (nr_free_buffer_pages() / 20,
    every managed page at boot); KiB."""
    nr_zones = int(sum(1 for m in managed if m > 0))  # for_each_populated_zone()
    rec = PAGEBLOCK_NR_PAGES * nr_zones * 2 + PAGEBLOCK_NR_PAGES * nr_zones * MIGRATE_PCPTYPES * MIGRATE_PCPTYPES
    rec = min(rec, int(sum(int(m) for m in managed)) // 20)
    return rec << 2  # recommended_min <<= (PAGE_SHIFT - 10)


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
        if p.transparent_hugepage != "never":
            mfk = max(mfk, recommended_min_free_kbytes(managed))
    else:
        mfk = int(p.min_free_kbytes)
    pages_min = mfk >> 2  # min_free_kbytes >> (PAGE_SHIFT - 10)
    lowmem = int(managed.sum())
    wmin = np.zeros(NZ, np.int64)
    wlow = np.zeros(NZ, np.int64)
    whigh = np.zeros(NZ, np.int64)
    for z in range(NZ):
        tmp = pages_min * int(managed[z]) // lowmem if lowmem else 0  # __setup_per_zone_wmarks()
        wmin[z] = tmp
        wlow[z] = tmp + (tmp >> 2)
        whigh[z] = tmp + (tmp >> 1)
    gap = np.array([min(int(wlow[z]), -(-int(managed[z]) // KSWAPD_ZONE_BALANCE_GAP_RATIO)) for z in range(NZ)],
                   np.int64)
    if p.NR_ALLOC_BATCH == "high-low":
        batch = whigh - wlow
    elif p.NR_ALLOC_BATCH == "managed>>shift":
        batch = managed >> p.nr_alloc_batch_shift
    else:
        batch = np.where(managed > 0, p.nr_alloc_batch_pages, 0).astype(np.int64)
    # setup_per_zone_lowmem_reserve()
    lr = np.zeros((NZ, NZ), np.int64)
    ratio = list(p.lowmem_reserve_ratio)
    for j in range(NZ):
        mp = int(managed[j])
        idx = j
        while idx:
            idx -= 1
            lr[idx, j] = mp // ratio[idx]
            mp += int(managed[idx])
    # calculate_totalreserve_pages(): the largest reserve plus the high watermark, capped at the zone
    dbr = np.array([min(int(lr[z, z:].max()) + int(whigh[z]), int(managed[z])) for z in range(NZ)], np.int64)
    # build_zonelists_node() / zoneref_set_zone() (patch 3/4)
    zonelist = np.array([z for z in range(NZ - 1, -1, -1) if managed[z] > 0], np.int64)
    fair = np.zeros(NZ, np.int64)
    for z in zonelist:
        ok = True
        if z == ZONE.DMA and managed[z] < (present >> p.fair_enabled_dma_shift):
            ok = False
        fair[z] = 1 if ok else 0
    if int(fair.sum()) <= 1 and len(zonelist):
        fair[zonelist[0]] = 0  # a single fair zone: no fair policy at all
    # memory held outside the file LRU, spread over the zones by size
    other_total = int(round(m.other_mb * PAGES_PER_MB))
    other = np.zeros(NZ, np.int64)
    if lowmem:
        for z in range(NZ):
            other[z] = other_total * int(managed[z]) // lowmem
    return ZoneSetup(managed=managed, min_free_kbytes=mfk, wmark_min=wmin, wmark_low=wlow, wmark_high=whigh,
                     balance_gap=gap, batch=batch, lowmem_reserve=lr, dirty_balance_reserve=dbr, fair_enabled=fair,
                     zonelist=zonelist, other=other, node_present_pages=present)


def in_units(zs: ZoneSetup, u: int) -> ZoneSetup:
    """The zones at a resolution of ``u`` pages per unit: what the kernel's arrays get.

    The kernel's formulas ran in pages (:func:`zone_setup`); each result is converted once here:

    * ``managed`` rounds **down**: a unit is ``u`` contiguous pages, and a zone's last partial unit cannot hold
      one (so conservation, free + LRU + other = managed, holds in whole units);
    * the balance gap, lowmem reserves, NR_ALLOC_BATCH, dirty_balance_reserve and the memory held outside the
      LRU round to the **nearest** unit (:func:`~.params.units_from_pages`): a unit-level test stops within
      ``u / 2`` pages of where the page-level one stops, unbiased either way.  ``high - low`` (the 3.16 batch)
      is taken in pages first, then rounded;
    * the watermarks round as ``min``, then ``low - min`` and ``high - low`` each to the nearest unit: what the
      allocator and kswapd do depends on those steps (a kswapd cycle is ``high - low`` pages of allocation,
      ``low - min`` the slow path's cushion) more than on the levels, and rounding each level alone could
      stretch or shrink a step by a whole unit (at 32 pages, DMA32's 125-page step of a 2 GB node became 96);
    * a reserve can never exceed its zone (calculate_totalreserve_pages() caps it the same way);
    * a zone rounding to no unit at all leaves the zonelist (``FairZoneParams.check`` refuses such a ``u``).

    ``min_free_kbytes`` and ``node_present_pages`` stay in their own units.  ``u = 1`` returns the same values.
    """
    if u == 1:
        return zs
    cv = np.vectorize(lambda x: units_from_pages(int(x), u), otypes=[np.int64])
    managed = zs.managed // u
    dbr = np.minimum(cv(zs.dirty_balance_reserve), managed)
    other = np.minimum(cv(zs.other), managed)
    zonelist = np.array([z for z in zs.zonelist if managed[z] > 0], np.int64)
    fair = np.where(managed > 0, zs.fair_enabled, 0)
    wmin = cv(zs.wmark_min)
    wlow = wmin + cv(zs.wmark_low - zs.wmark_min)
    whigh = wlow + cv(zs.wmark_high - zs.wmark_low)
    return ZoneSetup(managed=managed, min_free_kbytes=zs.min_free_kbytes, wmark_min=wmin,
                     wmark_low=wlow, wmark_high=whigh, balance_gap=cv(zs.balance_gap),
                     batch=cv(zs.batch), lowmem_reserve=cv(zs.lowmem_reserve), dirty_balance_reserve=dbr,
                     fair_enabled=fair, zonelist=zonelist, other=other, node_present_pages=zs.node_present_pages)


def in_pages(zs: ZoneSetup, u: int) -> ZoneSetup:
    """A unit-resolution setup read back in pages (every page count x ``u``): what the model ran with, in the
    units its counters are reported in.  ``in_pages(in_units(zs, 1), 1)`` is ``zs``."""
    if u == 1:
        return zs
    return ZoneSetup(managed=zs.managed * u, min_free_kbytes=zs.min_free_kbytes, wmark_min=zs.wmark_min * u,
                     wmark_low=zs.wmark_low * u, wmark_high=zs.wmark_high * u, balance_gap=zs.balance_gap * u,
                     batch=zs.batch * u, lowmem_reserve=zs.lowmem_reserve * u,
                     dirty_balance_reserve=zs.dirty_balance_reserve * u, fair_enabled=zs.fair_enabled,
                     zonelist=zs.zonelist, other=zs.other * u, node_present_pages=zs.node_present_pages)
