"""The zone: buddy free lists per order and migratetype, pageblocks, watermarks, lists of pages.

Mirrors ``mm/page_alloc.c`` of 3.4-3.6:

* :func:`free_one_page` -- ``__free_one_page()``: merge with the buddy
  (``page_idx ^ (1 << order)``) while it is free at the same order, then
  put the block at the tail of its list when the next-higher buddy is free
  (6dda9d55bf, 2.6.37), else at the head;
* :func:`rmqueue` -- ``__rmqueue()``: ``__rmqueue_smallest()`` on the
  requested migratetype, then ``__rmqueue_fallback()`` (the largest block of
  the fallback types first; from ``pageblock_order / 2`` up, or for a
  RECLAIMABLE request, move the block's free pages and claim the block when
  at least half of it was free), then MIGRATE_RESERVE;
* :func:`expand` -- ``expand()``: the unused halves go back on the lists;
* :func:`zone_watermark_ok` -- ``__zone_watermark_ok()``: the free pages
  less the request must stay above ``mark``, and above ``mark >> o`` after
  taking away the pages of every order below ``o``;
* :func:`fragmentation_index` -- ``__fragmentation_index()`` of
  ``mm/vmstat.c`` (what ``compaction_suitable()`` compares with
  ``sysctl_extfrag_threshold``);
* :func:`split_free_page` -- ``split_free_page()`` / ``capture_free_page()``.

Free lists are circular doubly linked lists threaded through the page
table (``PG.fl_next``/``PG.fl_prev``); a free block's head carries its order
(``PG.order``) and the list it is on (``PG.owner``). The LRU lists, the
reclaimable slab list, the dirty list and each process's list of pages use
the same kind of list (:func:`ll_add`, :func:`ll_del`, :func:`ll_replace`).
"""

from ..engine import kernel_no_nrt as kernel, leaf_no_nrt as leaf
from .layout import (HEAD_BITS, I, KIND, LRU, MAX_ORDER, MIGRATE_PCPTYPES, MT, NF_HEADS, PAGEBLOCK_NR_PAGES,
                     PAGEBLOCK_ORDER, PG, PGF, VM, Z)

# ----------------------------------------------------------------------------------------- generic lists


@leaf
def ll_add(pg, nxt, prv, heads, h, pfn, tail):
    """Add ``pfn`` to the circular list ``heads[h]`` (at the head, or the tail)."""
    head = heads[h]
    if head < 0:
        pg[pfn, nxt] = pfn
        pg[pfn, prv] = pfn
        heads[h] = pfn
        return
    last = pg[head, prv]
    pg[pfn, nxt] = head
    pg[pfn, prv] = last
    pg[last, nxt] = pfn
    pg[head, prv] = pfn
    if not tail:
        heads[h] = pfn


@leaf
def ll_del(pg, nxt, prv, heads, h, pfn):
    n = pg[pfn, nxt]
    if n == pfn:
        heads[h] = -1
    else:
        p = pg[pfn, prv]
        pg[p, nxt] = n
        pg[n, prv] = p
        if heads[h] == pfn:
            heads[h] = n
    pg[pfn, nxt] = -1
    pg[pfn, prv] = -1


@leaf
def ll_replace(pg, nxt, prv, heads, h, old, new):
    """``new`` takes ``old``'s place in its list (migration keeps a page's position)."""
    n = pg[old, nxt]
    if n == old:
        pg[new, nxt] = new
        pg[new, prv] = new
    else:
        p = pg[old, prv]
        pg[new, nxt] = n
        pg[new, prv] = p
        pg[p, nxt] = new
        pg[n, prv] = new
    if heads[h] == old:
        heads[h] = new
    pg[old, nxt] = -1
    pg[old, prv] = -1


# ----------------------------------------------------------------------------------------- free lists


@leaf
def fl_idx(mt, order):
    return mt * MAX_ORDER + order


@leaf
def fl_add(pg, fl, nf, pfn, order, mt, tail):
    pg[pfn, PG.order] = order
    pg[pfn, PG.owner] = mt
    ll_add(pg, PG.fl_next, PG.fl_prev, fl, fl_idx(mt, order), pfn, tail)
    nf[fl_idx(mt, order)] += 1
    # int(): a pfn read from the int32 page table is an int32 in the Python engine, where 1 << 31 overflows
    nf[NF_HEADS + pfn // HEAD_BITS] |= 1 << int(pfn % HEAD_BITS)


@leaf
def fl_del(pg, fl, nf, pfn):
    order = pg[pfn, PG.order]
    mt = pg[pfn, PG.owner]
    ll_del(pg, PG.fl_next, PG.fl_prev, fl, fl_idx(mt, order), pfn)
    nf[fl_idx(mt, order)] -= 1
    nf[NF_HEADS + pfn // HEAD_BITS] &= ~(1 << int(pfn % HEAD_BITS))
    pg[pfn, PG.order] = -1
    pg[pfn, PG.owner] = -1


@leaf
def is_free_head(nf, pfn):
    """``pfn`` heads a listed free block: the index's answer to ``PageBuddy(page)`` (kind FREE, order >= 0)."""
    return (nf[NF_HEADS + pfn // HEAD_BITS] >> (pfn % HEAD_BITS)) & 1 != 0


@leaf
def next_free_head(nf, pfn, end):
    """The first pfn from ``pfn`` on that heads a listed free block, or ``end`` if none is below ``end``
    (``pfn`` itself when it is at or past ``end``).  Reads 32 pfns of the index at a time."""
    if pfn >= end:
        return pfn
    while pfn < end:
        w = nf[NF_HEADS + pfn // HEAD_BITS] >> (pfn % HEAD_BITS)
        if w != 0:
            while (w & 1) == 0:
                w >>= 1
                pfn += 1
            return min(pfn, end)
        pfn = (pfn // HEAD_BITS + 1) * HEAD_BITS
    return end


@leaf
def nr_free_order(nf, order):
    s = 0
    for mt in range(4):
        s += nf[mt * MAX_ORDER + order]
    return s


@leaf
def is_buddy(pg, pfn, order, n):
    """``page_is_buddy()``: ``pfn`` is in the zone, free, the head of a block of exactly ``order``."""
    if pfn < 0 or pfn >= n:
        return False
    return pg[pfn, PG.kind] == KIND.FREE and pg[pfn, PG.order] == order


@kernel
def set_kind(pg, pfn, order, kind):
    for k in range(1 << order):
        pg[pfn + k, PG.kind] = kind


@leaf
def free_one_page(pg, fl, nf, z, pi, pfn, order, mt):
    """``__free_one_page()``: merge ``pfn`` (a block of ``order``) with its free buddies, list it.

    The caller has set every page of the block to KIND.FREE and counted
    nothing yet; the zone's free pages grow by ``1 << order`` here.
    """
    n = pi[I.nr_pages]
    z[Z.nr_free] += 1 << order
    while order < MAX_ORDER - 1:
        buddy = pfn ^ (1 << order)
        if not is_buddy(pg, buddy, order, n):
            break
        fl_del(pg, fl, nf, buddy)
        pfn = pfn & buddy
        order += 1
    # a block whose next-higher buddy is free goes to the tail: it is likely to merge soon
    tail = False
    if order < MAX_ORDER - 2:
        combined = pfn & ~((1 << order))
        higher = combined ^ (1 << (order + 1))
        if is_buddy(pg, higher, order + 1, n):
            tail = True
    fl_add(pg, fl, nf, pfn, order, mt, tail)


@leaf
def free_pages(pg, fl, nf, pb, z, vm, pi, pfn, order):
    """``__free_pages()`` of an allocated block: back to the buddy lists of its pageblock's type."""
    for k in range(1 << order):
        pg[pfn + k, PG.kind] = KIND.FREE
        pg[pfn + k, PG.flags] = 0
        pg[pfn + k, PG.owner] = -1
        pg[pfn + k, PG.order] = -1
    vm[VM.pgfree] += 1 << order
    free_one_page(pg, fl, nf, z, pi, pfn, order, pb[pfn >> PAGEBLOCK_ORDER])


@leaf
def expand(pg, fl, nf, pfn, low, high, mt):
    """``expand()``: keep ``pfn`` at order ``low``, return the upper halves of the block to ``mt``'s lists."""
    size = 1 << high
    while high > low:
        high -= 1
        size >>= 1
        fl_add(pg, fl, nf, pfn + size, high, mt, False)


@leaf
def rmqueue_smallest(pg, fl, nf, order, mt):
    for cur in range(order, MAX_ORDER):
        pfn = fl[fl_idx(mt, cur)]
        if pfn < 0:
            continue
        fl_del(pg, fl, nf, pfn)
        expand(pg, fl, nf, pfn, order, cur, mt)
        return pfn
    return -1


@kernel
def move_freepages_block(pg, fl, nf, pi, pfn, mt):
    """``move_freepages_block()``: every free block of ``pfn``'s pageblock onto ``mt``'s lists; pages moved."""
    start = pfn & ~(PAGEBLOCK_NR_PAGES - 1)
    end = min(start + PAGEBLOCK_NR_PAGES, pi[I.nr_pages])
    moved = 0
    p = start
    while p < end:
        if pg[p, PG.kind] == KIND.FREE and pg[p, PG.order] >= 0:
            o = pg[p, PG.order]
            fl_del(pg, fl, nf, p)
            fl_add(pg, fl, nf, p, o, mt, False)
            moved += 1 << o
            p += 1 << o
        else:
            p += 1
    return moved


@leaf
def fallback_type(start_mt, i):
    """``fallbacks[start_mt][i]`` of 3.4 (MIGRATE_RESERVE is tried last, by ``rmqueue``)."""
    if start_mt == MT.MIGRATE_UNMOVABLE:
        return MT.MIGRATE_RECLAIMABLE if i == 0 else MT.MIGRATE_MOVABLE
    if start_mt == MT.MIGRATE_RECLAIMABLE:
        return MT.MIGRATE_UNMOVABLE if i == 0 else MT.MIGRATE_MOVABLE
    return MT.MIGRATE_RECLAIMABLE if i == 0 else MT.MIGRATE_UNMOVABLE


@kernel
def rmqueue_fallback(pg, fl, nf, pb, vm, pi, order, start_mt):
    """``__rmqueue_fallback()``: steal the largest free block of another type, maybe claim its pageblock."""
    for cur in range(MAX_ORDER - 1, order - 1, -1):
        for i in range(2):
            mt = fallback_type(start_mt, i)
            pfn = fl[fl_idx(mt, cur)]
            if pfn < 0:
                continue
            vm[VM.extfrag_fallbacks] += 1
            claimed = False
            if cur >= (PAGEBLOCK_ORDER >> 1) or start_mt == MT.MIGRATE_RECLAIMABLE:
                pages = move_freepages_block(pg, fl, nf, pi, pfn, start_mt)
                if pages >= (1 << (PAGEBLOCK_ORDER - 1)):
                    pb[pfn >> PAGEBLOCK_ORDER] = start_mt
                    claimed = True
                mt = start_mt
            fl_del(pg, fl, nf, pfn)
            if cur >= PAGEBLOCK_ORDER:
                for b in range(1 << (cur - PAGEBLOCK_ORDER)):
                    pb[(pfn >> PAGEBLOCK_ORDER) + b] = start_mt
                claimed = True
            if not claimed:
                vm[VM.extfrag_fragmenting] += 1
            expand(pg, fl, nf, pfn, order, cur, mt)
            return pfn
    return -1


@leaf
def rmqueue(pg, fl, nf, pb, vm, pi, order, mt):
    """``__rmqueue()``: the requested type, then the fallbacks, then MIGRATE_RESERVE."""
    pfn = rmqueue_smallest(pg, fl, nf, order, mt)
    if pfn < 0 and mt != MT.MIGRATE_RESERVE:
        pfn = rmqueue_fallback(pg, fl, nf, pb, vm, pi, int(order), mt)  # int(): one specialization for every order
        if pfn < 0:
            pfn = rmqueue_smallest(pg, fl, nf, order, MT.MIGRATE_RESERVE)
    return pfn


# ----------------------------------------------------------------------------------------- watermarks


@leaf
def watermark_ok_free(nf, order, mark, free_pages):
    """``__zone_watermark_ok()`` (no lowmem_reserve: one zone; no ALLOC_HIGH/HARDER)."""
    mn = mark
    free_pages -= (1 << order) - 1
    if free_pages <= mn:
        return False
    for o in range(order):
        free_pages -= nr_free_order(nf, o) << o
        mn >>= 1
        if free_pages <= mn:
            return False
    return True


@leaf
def zone_watermark_ok(nf, z, order, mark):
    return watermark_ok_free(nf, order, mark, z[Z.nr_free])


@kernel
def fragmentation_index(nf, order):
    """``__fragmentation_index()`` (mm/vmstat.c): -1000 if a block of ``order`` is free, else 0..1000."""
    total_blocks = 0
    free_pages = 0
    suitable = 0
    for o in range(MAX_ORDER):
        blocks = nr_free_order(nf, o)
        total_blocks += blocks
        free_pages += blocks << o
        if o >= order:
            suitable += blocks << (o - order)
    if total_blocks == 0:
        return 0
    if suitable > 0:
        return -1000
    requested = 1 << order
    return 1000 - (1000 + (free_pages * 1000) // requested) // total_blocks


@kernel
def split_free_page(pg, fl, nf, pb, z, pfn, alloc_order, mt_capture):
    """``split_free_page()``/``capture_free_page()``: take a free block off the lists if the watermark allows.

    The order-0 low watermark plus the block must stay free (3.4-3.6).
    Returns the pages taken (0 if refused).  A block of at least
    ``pageblock_order - 1`` makes its pageblock(s) MOVABLE.  With
    ``alloc_order >= 0`` (capture) the block above ``alloc_order`` goes back
    to ``mt_capture``'s lists (``expand``).
    """
    order = pg[pfn, PG.order]
    if not zone_watermark_ok(nf, z, 0, z[Z.wmark_low] + (1 << order)):
        return 0
    fl_del(pg, fl, nf, pfn)
    # NR_FREE_PAGES drops by the whole block even when capture returns part of it (as posted in
    # patch 7; one of the reasons it was reverted in 3.8): the leak is kept so the checks can add it back
    z[Z.nr_free] -= 1 << order
    taken = 1 << order
    if alloc_order >= 0 and alloc_order < order:
        expand(pg, fl, nf, pfn, alloc_order, order, mt_capture)
        z[Z.nr_free_leak] += (1 << order) - (1 << alloc_order)
        taken = 1 << alloc_order
    if order >= PAGEBLOCK_ORDER - 1:
        b0 = pfn >> PAGEBLOCK_ORDER
        nb = max(1, (1 << order) >> PAGEBLOCK_ORDER)
        for b in range(b0, b0 + nb):
            if pb[b] != MT.MIGRATE_RESERVE:
                pb[b] = MT.MIGRATE_MOVABLE
    return taken


@leaf
def get_page_from_freelist(pg, fl, nf, pb, z, vm, pi, order, mt, mark):
    """The allocator's zone loop for our one zone: the watermark check, then ``buffered_rmqueue()``."""
    if not zone_watermark_ok(nf, z, order, mark):
        return -1
    pfn = rmqueue(pg, fl, nf, pb, vm, pi, order, mt)
    if pfn < 0:
        return -1
    z[Z.nr_free] -= 1 << order
    vm[VM.pgalloc_normal] += 1 << order
    return pfn


@kernel
def get_page_from_freelist_cold(pg, fl, nf, pb, z, vm, pi, order, mt, mark):
    """:func:`get_page_from_freelist` compiled once, called by the rare callers (the slow path)."""
    return get_page_from_freelist(pg, fl, nf, pb, z, vm, pi, order, mt, mark)


# ----------------------------------------------------------------------------------------- allocated pages


@leaf
def lru_add(pg, lh, z, lst, pfn):
    """Add ``pfn`` at the head (young end) of list ``lst`` (file LRU, anon LRU, reclaimable slab)."""
    ll_add(pg, PG.lru_next, PG.lru_prev, lh, lst, pfn, False)
    pg[pfn, PG.flags] |= PGF.lru
    if lst == LRU.LRU_FILE:
        z[Z.nr_file] += 1
    elif lst == LRU.LRU_ANON:
        z[Z.nr_anon] += 1
    else:
        z[Z.nr_slab] += 1


@leaf
def lru_del(pg, lh, z, lst, pfn):
    ll_del(pg, PG.lru_next, PG.lru_prev, lh, lst, pfn)
    pg[pfn, PG.flags] &= ~PGF.lru
    if lst == LRU.LRU_FILE:
        z[Z.nr_file] -= 1
    elif lst == LRU.LRU_ANON:
        z[Z.nr_anon] -= 1
    else:
        z[Z.nr_slab] -= 1


@leaf
def lru_of(kind):
    if kind == KIND.FILE:
        return LRU.LRU_FILE
    if kind == KIND.ANON:
        return LRU.LRU_ANON
    return LRU.SLAB_RECLAIMABLE


@kernel
def count_free_pages(pg, pi):
    """Pages on the buddy lists, counted from the page table (for the invariant checks)."""
    s = 0
    for p in range(pi[I.nr_pages]):
        if pg[p, PG.kind] == KIND.FREE:
            s += 1
    return s


__all__ = ["free_one_page", "free_pages", "rmqueue", "expand", "zone_watermark_ok", "watermark_ok_free",
           "fragmentation_index", "split_free_page", "get_page_from_freelist", "get_page_from_freelist_cold", "ll_add",
           "ll_del", "ll_replace",
           "lru_add", "lru_del", "lru_of", "nr_free_order", "fl_add", "fl_del", "set_kind", "MIGRATE_PCPTYPES"]


@leaf
def next_u(z, rnd):
    """The next of the run's pre-drawn uniforms (drawn outside the kernel from the run's seed)."""
    i = z[Z.rnd]
    z[Z.rnd] = i + 1 if i + 1 < rnd.shape[0] else 0
    return rnd[i]
