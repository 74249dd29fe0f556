"""A page's life: allocated for someone, put on its lists, moved by migration, released.

An allocated block's head carries its order (``PG.order``), its kind
(kernel unmovable or reclaimable slab, page cache, anonymous, a huge page)
and its owner (a build process, the stress test, or the dirty list of page
cache waiting for writeback: ``oh[owner]`` is the head of that owner's list,
threaded through ``PG.own_next``/``PG.own_prev``).  Page cache and anonymous
pages sit on their LRU (``lh[LRU.LRU_FILE]``, ``lh[LRU.LRU_ANON]``), the
reclaimable slab on its own list for the shrinker.

Migration (``migrate_page_move``) gives the new page the old one's kind,
flags, owner and place in the owner's list, and puts it at the head of its
LRU as ``putback_lru_page()`` does; a page whose owner exited while it was
isolated is freed by the migration instead ("freed from under us").
"""

from ..engine import sibling, kernel_no_nrt as kernel, leaf_no_nrt as leaf
from .layout import KIND, LRU, PG, PGF, Z

_zk = sibling(__name__, "zone_kernel")  # the same mode as this module: compiled, or plain Python
free_pages = _zk.free_pages
ll_add = _zk.ll_add
ll_del = _zk.ll_del
ll_replace = _zk.ll_replace
lru_add = _zk.lru_add
lru_del = _zk.lru_del
lru_of = _zk.lru_of


@leaf
def own_add(pg, oh, o, pfn):
    ll_add(pg, PG.own_next, PG.own_prev, oh, o, pfn, True)
    pg[pfn, PG.owner] = o


@leaf
def own_del(pg, oh, pfn):
    o = pg[pfn, PG.owner]
    if o >= 0:
        ll_del(pg, PG.own_next, PG.own_prev, oh, o, pfn)
        pg[pfn, PG.owner] = -1


@leaf
def count_kind(z, kind, delta):
    if kind == KIND.UNMOVABLE:
        z[Z.nr_unmovable] += delta
    elif kind == KIND.HUGE:
        z[Z.nr_huge] += delta


@leaf
def page_new(pg, lh, oh, z, pfn, order, kind, owner, flags, stamp):
    """Set up an allocated block: kind on every page, order/flags/owner on the head, onto its lists.

    ``stamp``: the tick it is made (``z[Z.tick]``; see ``PG`` in layout.py)."""
    for k in range(1 << order):
        pg[pfn + k, PG.kind] = kind
        pg[pfn + k, PG.order] = -1
        pg[pfn + k, PG.flags] = 0
        pg[pfn + k, PG.owner] = -1
    pg[pfn, PG.order] = order
    pg[pfn, PG.flags] = flags | PGF.head
    pg[pfn, PG.stamp] = stamp
    count_kind(z, kind, 1 << order)
    if order == 0 and (kind == KIND.FILE or kind == KIND.ANON or kind == KIND.RECLAIMABLE):
        lru_add(pg, lh, z, lru_of(kind), pfn)
    if owner >= 0:
        own_add(pg, oh, owner, pfn)
    if flags & PGF.dirty:
        z[Z.nr_dirty] += 1
    if flags & PGF.tree:
        z[Z.nr_tree] += 1
    elif flags & PGF.bigfile:
        z[Z.nr_bigfile] += 1


@leaf
def page_release(pg, fl, nf, pb, lh, oh, z, vm, pi, pfn):
    """Free an allocated block: off its lists, counters down, back to the buddy allocator."""
    kind = pg[pfn, PG.kind]
    order = pg[pfn, PG.order]
    if order < 0:
        order = 0
    f = pg[pfn, PG.flags]
    if f & PGF.lru:
        lru_del(pg, lh, z, lru_of(kind), pfn)
    if f & PGF.dirty:
        z[Z.nr_dirty] -= 1
    if f & PGF.isolated:
        z[Z.nr_isolated] -= 1
    if f & PGF.tree:
        z[Z.nr_tree] -= 1
    elif f & PGF.bigfile:
        z[Z.nr_bigfile] -= 1
    own_del(pg, oh, pfn)
    count_kind(z, kind, -(1 << order))
    free_pages(pg, fl, nf, pb, z, vm, pi, pfn, order)


@kernel
def page_new_cold(pg, lh, oh, z, pfn, order, kind, owner, flags, stamp):
    """:func:`page_new` compiled once, called where it runs rarely (huge pages)."""
    page_new(pg, lh, oh, z, pfn, order, kind, owner, flags, stamp)


@kernel
def page_release_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, pfn):
    """:func:`page_release` compiled once, called where it runs rarely (huge pages)."""
    page_release(pg, fl, nf, pb, lh, oh, z, vm, pi, pfn)


@kernel
def isolate_lru(pg, lh, z, pfn):
    """Take an LRU page off its list for migration (``__isolate_lru_page()`` + ``del_page_from_lru_list()``)."""
    lru_del(pg, lh, z, lru_of(pg[pfn, PG.kind]), pfn)
    pg[pfn, PG.flags] |= PGF.isolated
    z[Z.nr_isolated] += 1


@kernel
def putback_lru(pg, lh, z, pfn):
    """``putback_lru_page()``: a page that was not migrated goes back to the head of its LRU."""
    pg[pfn, PG.flags] &= ~PGF.isolated
    z[Z.nr_isolated] -= 1
    lru_add(pg, lh, z, lru_of(pg[pfn, PG.kind]), pfn)


@kernel
def migrate_page_move(pg, lh, oh, z, old, new):
    """``migrate_page_copy()`` and the remap: ``new`` becomes ``old``; ``old`` is left to be freed."""
    kind = pg[old, PG.kind]
    pg[new, PG.kind] = kind
    pg[new, PG.order] = 0
    f = pg[old, PG.flags] & ~(PGF.isolated | PGF.lru)
    pg[new, PG.flags] = f | PGF.head
    pg[new, PG.stamp] = pg[old, PG.stamp]
    o = pg[old, PG.owner]
    pg[new, PG.owner] = o
    if o >= 0:
        ll_replace(pg, PG.own_next, PG.own_prev, oh, o, old, new)
        pg[old, PG.owner] = -1
    z[Z.nr_isolated] -= 1
    lru_add(pg, lh, z, lru_of(kind), new)
    # the old page no longer belongs to anyone; the caller frees it
    pg[old, PG.flags] = PGF.head
    if f & PGF.dirty:
        pass  # the dirty state moved with the page: nr_dirty is unchanged


@kernel
def release_owner(pg, fl, nf, pb, lh, oh, z, vm, pi, o):
    """A process exits (or the test frees its pages): free everything on owner ``o``'s list.

    Pages isolated by a compactor at that moment are orphaned instead; the
    compactor frees them when it comes to migrate them.
    """
    freed = 0
    while oh[o] >= 0:
        pfn = oh[o]
        if pg[pfn, PG.flags] & PGF.isolated:
            own_del(pg, oh, pfn)
            continue
        order = pg[pfn, PG.order]
        freed += 1 << (order if order > 0 else 0)
        page_release(pg, fl, nf, pb, lh, oh, z, vm, pi, pfn)
    return freed


@kernel
def count_lists(pg, lh, lst, n_expected):
    """Walk list ``lst`` (for the invariant checks): its length, or -1 if it does not close."""
    h = lh[lst]
    if h < 0:
        return 0
    c = 1
    p = pg[h, PG.lru_next]
    while p != h:
        c += 1
        if c > n_expected + 1:
            return -1
        p = pg[p, PG.lru_next]
    return c


__all__ = ["own_add", "own_del", "page_new", "page_release", "page_new_cold", "page_release_cold", "isolate_lru",
           "putback_lru", "migrate_page_move",
           "release_owner", "count_lists", "LRU"]
