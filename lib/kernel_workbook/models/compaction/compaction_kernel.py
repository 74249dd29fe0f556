"""Memory compaction as 3.4-3.6 did it (``mm/compaction.c``), one ``compact_zone()`` per task, resumable.

A task's ``struct compact_control`` is its row of ``ac`` (``AC.migrate_pfn``,
``AC.free_pfn``, ``AC.start_free_pfn``, ``AC.wrapped``, ``AC.contended``,
``AC.page``...); the pages it has isolated are in ``cm[a]`` (to migrate, at
most ``COMPACT_CLUSTER_MAX``) and ``cf[a]`` (free pages taken by the free
scanner).  :func:`compact_zone_begin` is the set-up of ``compact_zone()``
(``compaction_suitable()``, where the scanners start); each
:func:`compact_zone_step` is one turn of its loop: ``compact_finished()``,
``isolate_migratepages()``, ``migrate_pages()`` with ``compaction_alloc()``
calling ``isolate_freepages()``, and with patch 7 ``compact_capture_page()``;
:func:`compact_zone_end` releases what is left (``release_freepages()``).
Several tasks compacting at once interleave step by step, which is where
7db8889a's shared ``zone->compact_cached_free_pfn`` goes wrong.

The variants (``I.compact_cached_free_pfn``: 0 none, 1 7db8889a, 2 fixed;
``I.compact_checklock_irqsave``; ``I.compact_capture_page``;
``I.compact_order_failed``) switch the lines the patches change.

(*) ``int(0)``, ``bool(True)`` where a compiled function is called with a constant: Numba compiles one
specialization per literal argument, so a literal at one call site and a variable at another compile the
callee (and every leaf inlined into it) twice; a value shares one (docs/models/compaction.md, "Speed").
"""

from ..engine import sibling, kernel_no_nrt as kernel, leaf_no_nrt as leaf
from .layout import (AC, CACHE, COMPACT, FREE_LIST_MAX, I, ISOLATE, KIND, MAX_ORDER, MIGRATE_PCPTYPES, MT,
                     PAGEBLOCK_NR_PAGES, PAGEBLOCK_ORDER, PG, PGF, SWAP_CLUSTER_MAX, VM, Z, F)

_zk = sibling(__name__, "zone_kernel")
_pk = sibling(__name__, "pages_kernel")
zone_watermark_ok = _zk.zone_watermark_ok
fragmentation_index = _zk.fragmentation_index
split_free_page = _zk.split_free_page
free_pages = _zk.free_pages
nr_free_order = _zk.nr_free_order
fl_idx = _zk.fl_idx
next_free_head = _zk.next_free_head
isolate_lru = _pk.isolate_lru
putback_lru = _pk.putback_lru
migrate_page_move = _pk.migrate_page_move
count_kind = _pk.count_kind

CACHE_NONE = CACHE.CACHE_NONE
CACHE_7DB8889A = CACHE.CACHE_7DB8889A
CACHE_FIXED = CACHE.CACHE_FIXED


# ----------------------------------------------------------------------------------------- deferral


@kernel
def compaction_deferred(z, pi, order):
    """``compaction_deferred()``: skip compaction for ``1 << compact_defer_shift`` attempts after a failure."""
    if pi[I.compact_order_failed] and order < z[Z.compact_order_failed]:
        return False
    limit = 1 << z[Z.compact_defer_shift]
    z[Z.compact_considered] += 1
    if z[Z.compact_considered] > limit:
        z[Z.compact_considered] = limit
    return z[Z.compact_considered] < limit


@kernel
def defer_compaction(z, pi, order):
    z[Z.compact_considered] = 0
    z[Z.compact_defer_shift] += 1
    if order < z[Z.compact_order_failed]:
        z[Z.compact_order_failed] = order
    if z[Z.compact_defer_shift] > pi[I.compact_max_defer_shift]:
        z[Z.compact_defer_shift] = pi[I.compact_max_defer_shift]


@kernel
def compaction_defer_reset(z, order):
    """A high-order page was allocated after compaction: stop deferring."""
    z[Z.compact_considered] = 0
    z[Z.compact_defer_shift] = 0
    if order >= z[Z.compact_order_failed]:
        z[Z.compact_order_failed] = order + 1


# ----------------------------------------------------------------------------------------- suitability


@kernel
def compaction_suitable(nf, z, pi, order):
    """``compaction_suitable()``: SKIPPED (too little free memory, or failure due to lack of memory),
    PARTIAL (the allocation would succeed now) or CONTINUE."""
    if order < 0:
        return COMPACT.COMPACT_CONTINUE
    watermark = z[Z.wmark_low] + (2 << order)
    if not zone_watermark_ok(nf, z, 0, watermark):
        return COMPACT.COMPACT_SKIPPED
    fragindex = fragmentation_index(nf, order)
    if fragindex >= 0 and fragindex <= pi[I.extfrag_threshold]:
        return COMPACT.COMPACT_SKIPPED
    if fragindex == -1000 and zone_watermark_ok(nf, z, order, watermark):
        return COMPACT.COMPACT_PARTIAL
    return COMPACT.COMPACT_CONTINUE


@kernel
def start_free_pfn(pi):
    """The free scanner's starting point for a full run: the zone's end rounded down to a pageblock."""
    return pi[I.nr_pages] & ~(PAGEBLOCK_NR_PAGES - 1)


@leaf
def need_resched(ac, z, a):
    """``need_resched()`` of task ``a``: more runnable tasks than CPUs and its slice used up."""
    return z[Z.runnable] > z[Z.nr_cpus_now] and ac[AC.slice_ns, a] >= z[Z.sched_slice_ns]


@leaf
def charge(ac, a, ns):
    ns = int(ns)
    ac[AC.cpu_ns, a] += ns
    ac[AC.slice_ns, a] += ns
    ac[AC.budget_ns, a] -= ns


@kernel
def suitable_migration_target(pg, pb, pfn):
    mt = pb[pfn >> PAGEBLOCK_ORDER]
    if mt == MT.MIGRATE_RESERVE:
        return False
    if pg[pfn, PG.kind] == KIND.FREE and pg[pfn, PG.order] >= PAGEBLOCK_ORDER:
        return True
    return mt == MT.MIGRATE_MOVABLE


# ----------------------------------------------------------------------------------------- the free scanner


@kernel
def isolate_freepages_block(pg, fl, nf, pb, z, vm, pi, pf, ac, cf, a, start, end):
    """Take every free page of [start, end) (split into order-0 pages) onto the task's free list.

    The kernel looks at every pfn; so does the count of pfns scanned (and the CPU it is charged), but the
    model goes from one free block to the next through the index of free block heads in ``nf``, as
    looking at a pfn that heads no free block changes nothing.
    """
    isolated_total = 0
    stopped = 0  # the pfn that stopped the walk (the task's free list full) is scanned too
    p = next_free_head(nf, start, end)
    while p < end:
        o = pg[p, PG.order]
        n = ac[AC.nr_freepages, a]
        if n + (1 << o) > FREE_LIST_MAX:
            stopped = 1
            break
        # int(): values, not literals, so that capture's call shares the compiled specialization
        got = split_free_page(pg, fl, nf, pb, z, p, int(-1), int(0))
        if got > 0:
            for k in range(got):
                pg[p + k, PG.kind] = KIND.CC_FREE
                pg[p + k, PG.owner] = a
                cf[a, n + k] = p + k
            ac[AC.nr_freepages, a] = n + got
            z[Z.nr_cc_free] += got
            isolated_total += got
            p = next_free_head(nf, p + got, end)  # a block of a higher order than the pageblock ends past end
        else:
            p = next_free_head(nf, p + 1, end)
    nr_scanned = p - start + stopped
    vm[VM.compact_free_scanned] += nr_scanned
    vm[VM.compact_isolated] += isolated_total
    charge(ac, a, nr_scanned * pf[F.scan_pfn_ns])
    return isolated_total


@kernel
def isolate_freepages(pg, fl, nf, pb, z, vm, pi, pf, ac, cf, a):
    """``isolate_freepages()``: walk down from ``free_pfn`` a pageblock at a time until enough free pages."""
    cache = pi[I.compact_cached_free_pfn]
    order = ac[AC.order, a]
    n = pi[I.nr_pages]
    pfn = ac[AC.free_pfn, a]
    low_pfn = ac[AC.migrate_pfn, a] + PAGEBLOCK_NR_PAGES
    high_pfn = min(low_pfn, pfn)
    while pfn > low_pfn and ac[AC.nr_migratepages, a] > ac[AC.nr_freepages, a]:
        if cache == CACHE_7DB8889A and order > 0 and (ac[AC.wrapped, a] == 0 or
                                                      z[Z.compact_cached_free_pfn] > ac[AC.start_free_pfn, a]):
            # 7db8889a: skip ahead if another task is compacting lower down
            pfn = min(pfn, z[Z.compact_cached_free_pfn])
        if pfn < n and suitable_migration_target(pg, pb, pfn):
            if pi[I.compact_checklock_irqsave] and ac[AC.sync, a] == 0 and need_resched(ac, z, a):
                # compact_trylock_irqsave() on zone->lock fails: async compaction gives up the walk
                ac[AC.contended, a] = 1
                break
            end = min(pfn + PAGEBLOCK_NR_PAGES, n)
            isolated = isolate_freepages_block(pg, fl, nf, pb, z, vm, pi, pf, ac, cf, a, pfn, end)
            if isolated > 0:
                high_pfn = max(high_pfn, pfn)
                if order > 0 and (cache == CACHE_7DB8889A or (cache == CACHE_FIXED and ac[AC.wrapped, a] != 0)):
                    z[Z.compact_cached_free_pfn] = high_pfn
        pfn -= PAGEBLOCK_NR_PAGES
    ac[AC.free_pfn, a] = high_pfn
    if cache == CACHE_FIXED and order > 0 and ac[AC.wrapped, a] == 0 and \
            z[Z.compact_cached_free_pfn] == start_free_pfn(pi):
        z[Z.compact_cached_free_pfn] = high_pfn


# ----------------------------------------------------------------------------------------- the migrate scanner


@kernel
def isolate_migratepages(pg, lh, pb, z, vm, pi, pf, ac, cm, a):
    """``isolate_migratepages()`` + ``isolate_migratepages_range()``: up to 32 LRU pages of one pageblock."""
    low_pfn = ac[AC.migrate_pfn, a]
    end_pfn = (low_pfn + PAGEBLOCK_NR_PAGES) & ~(PAGEBLOCK_NR_PAGES - 1)
    if end_pfn > ac[AC.free_pfn, a]:
        ac[AC.migrate_pfn, a] = end_pfn
        return ISOLATE.ISOLATE_NONE
    sync = ac[AC.sync, a]
    backoff = pi[I.compact_checklock_irqsave]
    if need_resched(ac, z, a):
        ac[AC.slice_ns, a] = 0  # cond_resched() before taking zone->lru_lock: the task yields the CPU
    nr_scanned = 0
    cost = pf[F.scan_pfn_ns]
    pfn = low_pfn
    if sync == 0 and pb[pfn >> PAGEBLOCK_ORDER] != MT.MIGRATE_MOVABLE:
        # async compaction only scans MOVABLE pageblocks (migrate_async_suitable())
        nr_scanned += 1
        pfn = end_pfn
    while pfn < end_pfn:
        if need_resched(ac, z, a):
            if backoff and sync == 0:
                ac[AC.contended, a] = 1
                break
            ac[AC.slice_ns, a] = 0  # cond_resched(): give the CPU away, take the lock again
        nr_scanned += 1
        charge(ac, a, cost)
        kind = pg[pfn, PG.kind]
        if kind == KIND.FREE and pg[pfn, PG.order] >= 0:
            skip = 1 << pg[pfn, PG.order]
            nr_scanned += skip - 1
            charge(ac, a, cost * (skip - 1))
            pfn += skip
            continue
        f = pg[pfn, PG.flags]
        if (f & PGF.lru) == 0:
            if kind == KIND.HUGE and pg[pfn, PG.order] > 0:
                pfn += 1 << pg[pfn, PG.order]  # a transparent huge page: skipped whole
                continue
            pfn += 1
            continue
        if sync == 0 and (f & PGF.writeback) != 0 and pg[pfn, PG.stamp] > z[Z.tick]:
            pfn += 1  # ISOLATE_ASYNC_MIGRATE: an async compactor does not take pages under writeback
            continue
        isolate_lru(pg, lh, z, pfn)
        cm[a, ac[AC.nr_migratepages, a]] = pfn
        ac[AC.nr_migratepages, a] += 1
        if ac[AC.nr_migratepages, a] == SWAP_CLUSTER_MAX:
            break
        pfn += 1
    vm[VM.compact_migrate_scanned] += nr_scanned
    ac[AC.migrate_pfn, a] = pfn
    return ISOLATE.ISOLATE_SUCCESS


# ----------------------------------------------------------------------------------------- migration


@kernel
def free_isolated(pg, fl, nf, pb, z, vm, pi, pfn):
    """A page that was isolated (to migrate or as a free target) goes straight back to the buddy lists."""
    kind = pg[pfn, PG.kind]
    if kind == KIND.CC_FREE:
        z[Z.nr_cc_free] -= 1
    else:
        count_kind(z, kind, -1)
    free_pages(pg, fl, nf, pb, z, vm, pi, pfn, 0)


@kernel
def migrate_pages(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, ac, cm, cf, a):
    """``migrate_pages()`` with ``compaction_alloc()``: returns -1 on -ENOMEM (no free page to move to)."""
    moved = 0
    failed = 0
    enomem = False
    n = ac[AC.nr_migratepages, a]
    for i in range(n):
        old = cm[a, i]
        if old < 0:
            continue
        if ac[AC.nr_freepages, a] == 0:
            isolate_freepages(pg, fl, nf, pb, z, vm, pi, pf, ac, cf, a)
            if ac[AC.nr_freepages, a] == 0:
                enomem = True
                break
        k = ac[AC.nr_freepages, a] - 1
        new = cf[a, k]
        ac[AC.nr_freepages, a] = k
        cm[a, i] = -1
        kind = pg[old, PG.kind]
        if kind == KIND.ANON and pg[old, PG.owner] < 0:
            # the page was freed from under us (its process exited): nothing to move
            pg[old, PG.flags] = 0
            z[Z.nr_isolated] -= 1
            free_isolated(pg, fl, nf, pb, z, vm, pi, old)
            free_isolated(pg, fl, nf, pb, z, vm, pi, new)
            moved += 1
            continue
        if (pg[old, PG.flags] & PGF.writeback) != 0 and pg[old, PG.stamp] > z[Z.tick]:
            # under writeback: neither MIGRATE_ASYNC nor MIGRATE_SYNC_LIGHT waits; the target page is freed
            putback_lru(pg, lh, z, old)
            free_isolated(pg, fl, nf, pb, z, vm, pi, new)
            failed += 1
            charge(ac, a, pf[F.scan_pfn_ns])
            continue
        z[Z.nr_cc_free] -= 1
        migrate_page_move(pg, lh, oh, z, old, new)
        free_pages(pg, fl, nf, pb, z, vm, pi, old, 0)
        moved += 1
        charge(ac, a, pf[F.migrate_page_ns])
    if enomem:
        for i in range(n):
            old = cm[a, i]
            if old >= 0:
                putback_lru(pg, lh, z, old)
                cm[a, i] = -1
                failed += 1
    ac[AC.nr_migratepages, a] = 0
    vm[VM.compact_blocks_moved] += 1
    vm[VM.compact_pages_moved] += moved
    vm[VM.compact_pagemigrate_failed] += failed
    if enomem:
        return -1
    return moved


# ----------------------------------------------------------------------------------------- capture (patch 7)


@kernel
def compact_capture_page(pg, fl, nf, pb, z, vm, pi, ac, a):
    """``compact_capture_page()``: take a free page of the caller's order as soon as one forms."""
    if ac[AC.page, a] >= 0:
        return
    order = ac[AC.order, a]
    mt = ac[AC.migratetype, a]
    lo = mt
    hi = mt + 1
    if mt == MT.MIGRATE_MOVABLE:
        lo = 0
        hi = MIGRATE_PCPTYPES
    for m in range(lo, hi):
        for o in range(order, MAX_ORDER):
            pfn = fl[fl_idx(m, o)]
            if pfn < 0:
                continue
            if pi[I.compact_checklock_irqsave] and ac[AC.sync, a] == 0 and need_resched(ac, z, a):
                ac[AC.contended, a] = 1
                return
            got = split_free_page(pg, fl, nf, pb, z, pfn, order, m)
            if got > 0:
                for k in range(got):
                    pg[pfn + k, PG.kind] = KIND.CC_FREE
                    pg[pfn + k, PG.owner] = a
                z[Z.nr_cc_free] += got
                ac[AC.page, a] = pfn
                vm[VM.compact_captured] += 1
                return


# ----------------------------------------------------------------------------------------- compact_zone()


@kernel
def compact_finished(nf, z, pi, ac, a, direct):
    """``compact_finished()`` of the kernel variant (7db8889a's wrap-around, patch 7's capture)."""
    cache = pi[I.compact_cached_free_pfn]
    order = ac[AC.order, a]
    if ac[AC.free_pfn, a] <= ac[AC.migrate_pfn, a]:
        if cache != CACHE_NONE and order > 0 and ac[AC.wrapped, a] == 0:
            # we started partway through; restart at the end
            f = start_free_pfn(pi)
            z[Z.compact_cached_free_pfn] = f
            ac[AC.free_pfn, a] = f
            ac[AC.wrapped, a] = 1
            return COMPACT.COMPACT_CONTINUE
        return COMPACT.COMPACT_COMPLETE
    if cache != CACHE_NONE and ac[AC.wrapped, a] != 0 and ac[AC.free_pfn, a] <= ac[AC.start_free_pfn, a]:
        return COMPACT.COMPACT_COMPLETE
    if order < 0:
        return COMPACT.COMPACT_CONTINUE
    watermark = z[Z.wmark_low] + (1 << order)
    if not zone_watermark_ok(nf, z, order, watermark):
        return COMPACT.COMPACT_CONTINUE
    if pi[I.compact_capture_page] and direct:
        if ac[AC.page, a] >= 0:
            return COMPACT.COMPACT_PARTIAL
        return COMPACT.COMPACT_CONTINUE
    mt = ac[AC.migratetype, a]
    for o in range(order, MAX_ORDER):
        # as posted, patch 7 looks at free_area[cc->order] on every turn of this loop
        oo = order if pi[I.compact_capture_page] else o
        if nf[fl_idx(mt, oo)] > 0:
            return COMPACT.COMPACT_PARTIAL
        if oo >= PAGEBLOCK_ORDER and nr_free_order(nf, oo) > 0:
            return COMPACT.COMPACT_PARTIAL
    return COMPACT.COMPACT_CONTINUE


@kernel
def compact_zone_begin(nf, z, pi, ac, a, order, mt, sync):
    """Set up ``compact_zone()``; returns COMPACT_CONTINUE, or SKIPPED/PARTIAL if it should not run."""
    ac[AC.order, a] = order
    ac[AC.migratetype, a] = mt
    ac[AC.sync, a] = sync
    ac[AC.nr_migratepages, a] = 0
    ac[AC.nr_freepages, a] = 0
    ac[AC.contended, a] = 0
    ac[AC.wrapped, a] = 0
    ac[AC.slice_ns, a] = 0
    ret = compaction_suitable(nf, z, pi, order)
    if ret == COMPACT.COMPACT_PARTIAL or ret == COMPACT.COMPACT_SKIPPED:
        return ret
    ac[AC.migrate_pfn, a] = 0
    if pi[I.compact_cached_free_pfn] != CACHE_NONE and order > 0:
        ac[AC.free_pfn, a] = z[Z.compact_cached_free_pfn]
        ac[AC.start_free_pfn, a] = ac[AC.free_pfn, a]
    else:
        ac[AC.free_pfn, a] = start_free_pfn(pi)
        ac[AC.start_free_pfn, a] = ac[AC.free_pfn, a]
    return COMPACT.COMPACT_CONTINUE


@kernel
def compact_zone_step(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, ac, cm, cf, a, direct):
    """One turn of ``compact_zone()``'s loop; returns COMPACT_CONTINUE or the run's result."""
    ret = compact_finished(nf, z, pi, ac, a, direct)
    if ret != COMPACT.COMPACT_CONTINUE:
        return ret
    iso = isolate_migratepages(pg, lh, pb, z, vm, pi, pf, ac, cm, a)
    if iso == ISOLATE.ISOLATE_ABORT:
        return COMPACT.COMPACT_PARTIAL
    if iso == ISOLATE.ISOLATE_NONE:
        return COMPACT.COMPACT_CONTINUE
    if ac[AC.nr_migratepages, a] > 0:
        err = migrate_pages(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, ac, cm, cf, a)
        if err < 0:
            return COMPACT.COMPACT_PARTIAL
    else:
        vm[VM.compact_blocks_moved] += 1
    if pi[I.compact_capture_page] and direct:
        compact_capture_page(pg, fl, nf, pb, z, vm, pi, ac, a)
    return COMPACT.COMPACT_CONTINUE


@kernel
def compact_zone_end(pg, fl, nf, pb, lh, z, vm, pi, ac, cm, cf, a):
    """``release_freepages()`` and put back what was isolated but not migrated."""
    for k in range(ac[AC.nr_freepages, a]):
        free_isolated(pg, fl, nf, pb, z, vm, pi, cf[a, k])
    ac[AC.nr_freepages, a] = 0
    for i in range(ac[AC.nr_migratepages, a]):
        p = cm[a, i]
        if p >= 0:
            putback_lru(pg, lh, z, p)
            cm[a, i] = -1
    ac[AC.nr_migratepages, a] = 0


@kernel
def compact_zone_full(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, ac, cm, cf, a, order, mt, sync):
    """A whole ``compact_zone()`` run by task ``a``, start to end (``/proc/sys/vm/compact_memory`` for
    ``order`` -1); returns the COMPACT result."""
    ret = compact_zone_begin(nf, z, pi, ac, a, order, mt, sync)
    while ret == COMPACT.COMPACT_CONTINUE:
        ret = compact_zone_step(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, ac, cm, cf, a, bool(True))  # a value (*)
    compact_zone_end(pg, fl, nf, pb, lh, z, vm, pi, ac, cm, cf, a)
    return ret


__all__ = ["compact_zone_full", "compaction_deferred", "defer_compaction", "compaction_defer_reset",
           "compaction_suitable", "compact_zone_begin", "compact_zone_step", "compact_zone_end", "compact_finished",
           "isolate_freepages", "isolate_migratepages", "migrate_pages", "compact_capture_page", "CACHE_NONE",
           "CACHE_7DB8889A", "CACHE_FIXED"]
