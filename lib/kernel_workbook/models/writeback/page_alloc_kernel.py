"""Pages, zones and LRU lists: ``mm/page_alloc.c`` and ``mm/swap.c`` of 2.6.23, as far as reclaim needs them.

* :func:`lru_add` / :func:`lru_del` -- ``add_page_to_inactive_list()``,
  ``add_page_to_active_list()``, ``del_page_from_lru()``: circular lists
  threaded through the page table, one pair per zone;
* :func:`rotate_reclaimable_page` -- a page whose reclaim writeback ended
  moves to the tail of the inactive list, where reclaim finds it next
  (``pgrotated``);
* :func:`mark_page_accessed` -- referenced twice on the inactive list:
  activated;
* :func:`free_page` -- ``free_hot_cold_page()`` / ``free_pages_bulk()``, which
  also clears the zone's ``pages_scanned`` and ``all_unreclaimable``;
* :func:`rmqueue` -- ``get_page_from_freelist()`` with a watermark.

A zone's free pages are a stack (``fstk[start : start + nr_free]``): order 0
only, so the buddy lists add nothing here.
"""

from ..engine import leaf_no_nrt as leaf
from .layout import LRU, PG, PGF, ZN


@leaf
def lru_add(pg, lh, zs, pfn, active, tail):
    """Put ``pfn`` on its zone's active or inactive list, at the head (new, kept) or the tail (rotated)."""
    z = pg[pfn, PG.zone]
    h = z * 2 + (LRU.LRU_ACTIVE if active else LRU.LRU_INACTIVE)
    head = lh[h]
    if head < 0:
        pg[pfn, PG.lru_next] = pfn
        pg[pfn, PG.lru_prev] = pfn
        lh[h] = pfn
    else:
        last = pg[head, PG.lru_prev]
        pg[pfn, PG.lru_next] = head
        pg[pfn, PG.lru_prev] = last
        pg[last, PG.lru_next] = pfn
        pg[head, PG.lru_prev] = pfn
        if not tail:
            lh[h] = pfn
    pg[pfn, PG.flags] |= PGF.PG_lru
    if active:
        pg[pfn, PG.flags] |= PGF.PG_active
        zs[z, ZN.nr_active] += 1
    else:
        pg[pfn, PG.flags] &= ~PGF.PG_active
        zs[z, ZN.nr_inactive] += 1


@leaf
def lru_del(pg, lh, zs, pfn):
    z = pg[pfn, PG.zone]
    active = (pg[pfn, PG.flags] & PGF.PG_active) != 0
    h = z * 2 + (LRU.LRU_ACTIVE if active else LRU.LRU_INACTIVE)
    n = pg[pfn, PG.lru_next]
    if n == pfn:
        lh[h] = -1
    else:
        p = pg[pfn, PG.lru_prev]
        pg[p, PG.lru_next] = n
        pg[n, PG.lru_prev] = p
        if lh[h] == pfn:
            lh[h] = n
    pg[pfn, PG.lru_next] = -1
    pg[pfn, PG.lru_prev] = -1
    pg[pfn, PG.flags] &= ~PGF.PG_lru
    if active:
        zs[z, ZN.nr_active] -= 1
    else:
        zs[z, ZN.nr_inactive] -= 1


@leaf
def lru_tail(pg, lh, z, lru):
    """The page at the tail of a list (the oldest: reclaim takes from here), or -1."""
    head = lh[z * 2 + lru]
    if head < 0:
        return -1
    return pg[head, PG.lru_prev]


@leaf
def rotate_reclaimable_page(pg, lh, zs, vm_pgrotated, vm, pfn):
    """``rotate_reclaimable_page()`` (mm/swap.c): an inactive page's reclaim writeback ended: to the tail."""
    f = pg[pfn, PG.flags]
    if (f & PGF.PG_lru) != 0 and (f & PGF.PG_active) == 0:
        lru_del(pg, lh, zs, pfn)
        lru_add(pg, lh, zs, pfn, False, True)
        vm[vm_pgrotated] += 1


@leaf
def mark_page_accessed(pg, lh, zs, vm_pgactivate, vm, pfn):
    """``mark_page_accessed()``: inactive+referenced -> active; else set referenced."""
    f = pg[pfn, PG.flags]
    if (f & PGF.PG_lru) == 0:
        return
    if (f & PGF.PG_active) == 0 and (f & PGF.PG_referenced) != 0:
        lru_del(pg, lh, zs, pfn)
        lru_add(pg, lh, zs, pfn, True, False)
        pg[pfn, PG.flags] &= ~PGF.PG_referenced
        vm[vm_pgactivate] += 1
    else:
        pg[pfn, PG.flags] |= PGF.PG_referenced


@leaf
def free_page(pg, zs, fstk, fpfn, pfn):
    """The page leaves the page cache and goes back to its zone's free pages."""
    z = pg[pfn, PG.zone]
    idx = pg[pfn, PG.index]
    if idx >= 0:
        fpfn[idx] = -1
    pg[pfn, PG.index] = -1
    pg[pfn, PG.flags] = 0
    fstk[zs[z, ZN.start] + zs[z, ZN.nr_free]] = pfn
    zs[z, ZN.nr_free] += 1
    zs[z, ZN.pages_scanned] = 0  # free_pages_bulk(): the zone is reclaimable again
    zs[z, ZN.all_unreclaimable] = 0


@leaf
def rmqueue(zs, fstk, z):
    """Take a free page of zone ``z`` (the caller checked the watermark)."""
    zs[z, ZN.nr_free] -= 1
    return fstk[zs[z, ZN.start] + zs[z, ZN.nr_free]]


@leaf
def zone_watermark_ok(zs, z, mark):
    """``zone_watermark_ok()`` for order 0: free pages above the mark after this allocation."""
    return zs[z, ZN.present] > 0 and zs[z, ZN.nr_free] - 1 > mark
