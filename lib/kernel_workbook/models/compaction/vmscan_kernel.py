"""Reclaim as 3.3-3.6 did it (``mm/vmscan.c``): shrink_zone, kswapd's balance_pgdat, direct reclaim.

* :func:`get_scan_count` -- how many pages of each LRU one pass scans:
  ``size >> priority``, split between anon and file by ``vm_swappiness`` and
  the recently-scanned / recently-rotated ratios (``reclaim_stat``), all
  anon when file + free pages are below the high watermark;
* :func:`shrink_list` -- ``shrink_inactive_list()`` + ``shrink_page_list()``
  from the cold end: referenced pages rotate, dirty page cache is kept
  (kswapd below ``DEF_PRIORITY - 2`` writes it), unreferenced anonymous
  pages are swapped out; without fe2c2a10 an order > 0 reclaimer also takes
  the LRU pages of the order-aligned block around each page ("lumpy",
  stopping at the first page it cannot take);
* :func:`shrink_zone_round` -- one pass of ``shrink_zone()`` (the loop over
  the LRUs, stopping early for a direct reclaimer that has its 32 pages);
* :func:`should_continue_reclaim` -- reclaim/compaction: keep reclaiming
  until ``2 << order`` pages (patch 6: shifted left by
  ``compact_defer_shift`` while the order keeps failing) or compaction is
  suitable;
* :func:`compaction_ready` -- a direct reclaimer of a costly order stops as
  soon as compaction could run (e0c23279);
* :func:`direct_reclaim_step` -- ``do_try_to_free_pages()``, one priority
  pass per step; :func:`kswapd_step` -- ``balance_pgdat()``: reclaim until
  the zone is balanced at ``testorder`` (fe2c2a10: order 0 once compaction
  is suitable), then (7be62de99adc) compact;
* :func:`shrink_slab` -- the dentry/inode caches shrink in proportion to the
  LRU pages scanned; :func:`writeback` and :func:`drop_caches`.

(*) ``int(0)``, ``bool(True)`` where a compiled function is called with a constant: Numba compiles one
specialization per literal argument, so a literal at one call site and a variable at another compile the
callee (and every leaf inlined into it) twice; a value shares one (docs/models/compaction.md, "Speed").
"""

from ..engine import sibling, kernel_no_nrt as kernel, leaf_no_nrt as leaf
from .layout import (AC, ACTOR, COMPACT, DEF_PRIORITY, F, I, KIND, LRU, MT, PAGE_ALLOC_COSTLY_ORDER, PG, PGF, STEP,
                     STEP_OVERHEAD_NS, SWAP_CLUSTER_MAX, VM, Z)

_zk = sibling(__name__, "zone_kernel")
_pk = sibling(__name__, "pages_kernel")
_ck = sibling(__name__, "compaction_kernel")
zone_watermark_ok = _zk.zone_watermark_ok
lru_del = _zk.lru_del
lru_add = _zk.lru_add
next_u = _zk.next_u
page_release = _pk.page_release
page_release_cold = _pk.page_release_cold
own_del = _pk.own_del
compaction_suitable = _ck.compaction_suitable
compaction_deferred = _ck.compaction_deferred
defer_compaction = _ck.defer_compaction
compact_zone_begin = _ck.compact_zone_begin
compact_zone_step = _ck.compact_zone_step
compact_zone_end = _ck.compact_zone_end
charge = _ck.charge


@kernel
def write_page(pg, oh, z, vm, pi, pfn):
    """The page goes to disk: clean, under writeback for ``writeback_ns``, off the dirty list."""
    pg[pfn, PG.flags] = (pg[pfn, PG.flags] & ~PGF.dirty) | PGF.writeback
    # the first tick at which the writeback has ended, rounded up (see PG in layout.py)
    pg[pfn, PG.stamp] = z[Z.tick] + (pi[I.writeback_ns] + pi[I.tick_ns] - 1) // pi[I.tick_ns]
    z[Z.nr_dirty] -= 1
    own_del(pg, oh, pfn)
    # pgpgout counts KiB of block writes (data, journal, metadata); kept to 1/1000 KiB
    z[Z.pgpgout_milli] += pi[I.pgpgout_milli_per_page]
    vm[VM.pgpgout] += z[Z.pgpgout_milli] // 1000
    z[Z.pgpgout_milli] %= 1000
    vm[VM.nr_written] += 1


@leaf
def reclaim_page(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, pfn, lst, is_kswapd, priority):
    """``shrink_page_list()`` for one page taken off the cold end of ``lst``: 1 if it was freed."""
    # one place that keeps the page and one that frees it: this leaf is inlined, and every inlined copy of a
    # leaf costs compile time
    f = pg[pfn, PG.flags]
    keep = True
    if lst == LRU.LRU_FILE:
        if f & PGF.referenced:
            pg[pfn, PG.flags] = f & ~PGF.referenced  # activated: back to the young end
            z[Z.rs_rotated_file] += 1
        elif (f & PGF.writeback) != 0 and pg[pfn, PG.stamp] > z[Z.tick]:
            pass
        elif f & PGF.dirty:
            if is_kswapd and priority < DEF_PRIORITY - 2:
                write_page(pg, oh, z, vm, pi, pfn)  # kswapd's pageout(); the page is reclaimed later
        else:
            keep = False
            if f & PGF.tree:
                z[Z.tree_evicted] += 1  # a page of the trees the builds may read again (a refault)
    else:
        # anonymous: page_referenced() of a build's page, or out to swap
        if next_u(z, rnd) < pf[F.anon_hot]:
            z[Z.rs_rotated_anon] += 1
        else:
            vm[VM.pswpout] += 1
            vm[VM.pgpgout] += 4
            keep = False
    if keep:
        lru_add(pg, lh, z, lst, pfn)
        return 0
    page_release(pg, fl, nf, pb, lh, oh, z, vm, pi, pfn)
    return 1



@kernel
def shrink_list(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, lst, nr_to_scan, is_kswapd, priority, order):
    """Scan ``nr_to_scan`` pages from the cold end of ``lst``; returns (scanned, reclaimed)."""
    scanned = 0
    reclaimed = 0
    lumpy = pi[I.reclaim_order_0] == 0 and order > 0
    for _ in range(nr_to_scan):
        head = lh[lst]
        if head < 0:
            break
        pfn = pg[head, PG.lru_prev]
        kind = pg[pfn, PG.kind]
        # isolate_lru_pages() before fe2c2a10 (lumpy): after the page, the pages of the order-aligned block
        # around it, in pfn order, up to the first that is not on this LRU.  One loop reclaims them all, so
        # that reclaim_page (a leaf) is compiled once here.
        start = pfn & ~((1 << order) - 1) if lumpy else pfn
        end = start + (1 << order) if lumpy else pfn
        nxt = start  # the next pfn of the block to look at
        c = pfn
        while c >= 0:
            lru_del(pg, lh, z, lst, c)
            scanned += 1
            reclaimed += reclaim_page(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, c, lst, is_kswapd, priority)
            c = -1
            while nxt < end:
                cand = nxt
                nxt += 1
                if cand == pfn:
                    continue
                ck = pg[cand, PG.kind]
                if ck == KIND.FREE:
                    continue
                if (pg[cand, PG.flags] & PGF.lru) == 0 or ck != kind:
                    z[Z.lumpy_failed] += 1
                    nxt = end
                    break
                c = cand
                break
    if lst == LRU.LRU_FILE:
        z[Z.rs_scanned_file] += scanned
    else:
        z[Z.rs_scanned_anon] += scanned
    return scanned, reclaimed


@kernel
def get_scan_count(z, pi, priority):
    """``get_scan_count()``: (file, anon) pages to scan at ``priority``."""
    anon = z[Z.nr_anon]
    file = z[Z.nr_file]
    if file + z[Z.nr_free] <= z[Z.wmark_high]:
        return 0, anon >> priority
    if z[Z.rs_scanned_anon] > anon // 4:
        z[Z.rs_scanned_anon] //= 2
        z[Z.rs_rotated_anon] //= 2
    if z[Z.rs_scanned_file] > file // 4:
        z[Z.rs_scanned_file] //= 2
        z[Z.rs_rotated_file] //= 2
    anon_prio = pi[I.vm_swappiness]
    file_prio = 200 - anon_prio
    ap = (anon_prio + 1) * (z[Z.rs_scanned_anon] + 1) // (z[Z.rs_rotated_anon] + 1)
    fp = (file_prio + 1) * (z[Z.rs_scanned_file] + 1) // (z[Z.rs_rotated_file] + 1)
    den = ap + fp + 1
    nfile = (file >> priority) * fp // den
    nanon = (anon >> priority) * ap // den
    return nfile, nanon


@kernel
def shrink_slab(pg, fl, nf, pb, lh, oh, z, vm, pi, scanned):
    """``shrink_slab()``: free reclaimable slab in proportion to the LRU pages just scanned (seeks = 2)
    and to what the shrinkers report (``vfs_cache_pressure``)."""
    lru_pages = z[Z.nr_file] + z[Z.nr_anon]
    # the dentry/inode shrinkers report their freeable objects scaled by vfs_cache_pressure / 100
    delta = (4 * scanned // 2) * (z[Z.nr_slab] * pi[I.vfs_cache_pressure] // 100) // (lru_pages + 1)
    vm[VM.slabs_scanned] += delta
    freed = 0
    for _ in range(delta):
        head = lh[LRU.SLAB_RECLAIMABLE]
        if head < 0:
            break
        pfn = pg[head, PG.lru_prev]
        page_release_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, pfn)
        freed += 1
    return freed


@kernel
def shrink_zone_round(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, priority, is_kswapd, order, nr_to_reclaim):
    """One pass of ``shrink_zone()``'s loop over the LRUs: (scanned, reclaimed)."""
    nfile, nanon = get_scan_count(z, pi, priority)
    scanned = 0
    reclaimed = 0
    while nfile > 0 or nanon > 0:
        if nanon > 0:
            n = min(nanon, SWAP_CLUSTER_MAX)
            nanon -= n
            s, r = shrink_list(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, LRU.LRU_ANON, n, is_kswapd, priority,
                               order)
            scanned += s
            reclaimed += r
        if nfile > 0:
            n = min(nfile, SWAP_CLUSTER_MAX)
            nfile -= n
            s, r = shrink_list(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, LRU.LRU_FILE, n, is_kswapd, priority,
                               order)
            scanned += s
            reclaimed += r
        if reclaimed >= nr_to_reclaim and priority < DEF_PRIORITY:
            break
    if is_kswapd:
        vm[VM.pgscan_kswapd_normal] += scanned
        vm[VM.pgsteal_kswapd_normal] += reclaimed
    else:
        vm[VM.pgscan_direct_normal] += scanned
        vm[VM.pgsteal_direct_normal] += reclaimed
    return scanned, reclaimed


@kernel
def should_continue_reclaim(nf, z, pi, order, priority, round_reclaimed, round_scanned, total_reclaimed, repeat):
    """Reclaim/compaction: reclaim until compaction can run or ``pages_for_compaction`` are free."""
    if not (order > PAGE_ALLOC_COSTLY_ORDER or (order > 0 and priority < DEF_PRIORITY - 2)):
        return False
    if repeat:
        if round_reclaimed == 0 and round_scanned == 0:
            return False
    elif round_reclaimed == 0:
        return False
    pages_for_compaction = 2 << order
    if pi[I.reclaim_scale_defer_shift] and z[Z.compact_order_failed] <= order:
        pages_for_compaction <<= z[Z.compact_defer_shift]
    inactive = z[Z.nr_file] + z[Z.nr_anon]
    if total_reclaimed < pages_for_compaction and inactive > pages_for_compaction:
        return True
    s = compaction_suitable(nf, z, pi, order)
    if s == COMPACT.COMPACT_PARTIAL or s == COMPACT.COMPACT_CONTINUE:
        return False
    return True


@kernel
def compaction_ready(nf, z, pi, order):
    """``compaction_ready()``: free memory is plenty for compaction: a costly-order reclaimer stops."""
    watermark = z[Z.wmark_high] + z[Z.balance_gap] + (2 << order)
    ok = zone_watermark_ok(nf, z, 0, watermark)
    if compaction_deferred(z, pi, order):
        return ok
    if compaction_suitable(nf, z, pi, order) == COMPACT.COMPACT_SKIPPED:
        return False
    return ok


@kernel
def direct_reclaim_begin(ac, vm, a):
    vm[VM.allocstall] += 1
    ac[AC.priority, a] = DEF_PRIORITY
    ac[AC.reclaimed, a] = 0
    ac[AC.progress, a] = 0
    ac[AC.shrinking, a] = 0
    ac[AC.scanned, a] = 0
    ac[AC.aborted, a] = 0


@kernel
def direct_reclaim_step(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, a):
    """``do_try_to_free_pages()`` (3.6), a priority pass per step; returns True when reclaim is over
    (``AC.progress``: ``did_some_progress``).

    Each pass is ``shrink_zones()``: a reclaimer of a costly order skips the zone when ``compaction_ready()``
    (``aborted_reclaim``) -- and 3.6 does not leave the priority loop for that: every pass asks again, and
    each ask goes through ``compaction_deferred()``, which counts one more considered attempt.  Otherwise
    ``shrink_zone()`` -> ``shrink_lruvec()`` reclaims in rounds while ``should_continue_reclaim()`` says
    so.  Then ``shrink_slab()`` with the pages the pass scanned (``SWAP_CLUSTER_MAX`` when none), whose
    freed pages count as reclaimed (``reclaim_state->reclaimed_slab``), and the exit on
    ``sc->nr_reclaimed >= sc->nr_to_reclaim`` (``SWAP_CLUSTER_MAX``)."""
    order = ac[AC.order, a]
    while True:
        priority = ac[AC.priority, a]
        if ac[AC.shrinking, a] == 0:
            ac[AC.scanned, a] = 0
            if order > PAGE_ALLOC_COSTLY_ORDER and compaction_ready(nf, z, pi, order):
                ac[AC.aborted, a] = 1
            else:
                ac[AC.shrinking, a] = 1
        if ac[AC.shrinking, a]:
            while True:
                # bool(), int(): values, not literals, so that kswapd and direct reclaim share one compiled
                # specialization of shrink_zone_round() and what it calls
                s, r = shrink_zone_round(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, priority, bool(False), order,
                                         int(SWAP_CLUSTER_MAX))
                ac[AC.reclaimed, a] += r
                ac[AC.scanned, a] += s
                charge(ac, a, s * pf[F.reclaim_page_ns] + STEP_OVERHEAD_NS)
                if not should_continue_reclaim(nf, z, pi, order, priority, r, s, ac[AC.reclaimed, a],
                                               ac[AC.gfp_repeat, a]):
                    break
                if ac[AC.budget_ns, a] <= 0:
                    return False  # the same priority again at the next turn (shrink_lruvec's restart)
            ac[AC.shrinking, a] = 0
        scanned = ac[AC.scanned, a]
        ac[AC.reclaimed, a] += shrink_slab(pg, fl, nf, pb, lh, oh, z, vm, pi, max(scanned, SWAP_CLUSTER_MAX))
        if ac[AC.reclaimed, a] >= SWAP_CLUSTER_MAX or priority == 0:
            break
        ac[AC.priority, a] = priority - 1
        if scanned > 0:
            return False  # the next priority at the task's next turn
        charge(ac, a, STEP_OVERHEAD_NS)  # a pass that only asked compaction_ready() and shrank the slab
    # did_some_progress: the pages reclaimed; else 1 if reclaim was aborted for compaction, or the zone still
    # has LRU pages (all_unreclaimable() is false): only an empty zone makes no progress (zone->all_unreclaimable
    # is kswapd's verdict after scanning six times its reclaimable pages; the model has no such scan count)
    progress = ac[AC.reclaimed, a]
    if progress == 0 and (ac[AC.aborted, a] != 0 or z[Z.nr_file] + z[Z.nr_anon] > 0):
        progress = 1
    ac[AC.progress, a] = progress
    return True


@kernel
def try_to_free_pages_now(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, a, order):
    """Direct reclaim of a build's order-0 allocation, run to the end at once."""
    ac[AC.order, a] = order
    ac[AC.gfp_repeat, a] = 0
    direct_reclaim_begin(ac, vm, a)
    for _ in range(DEF_PRIORITY + 1):
        ac[AC.budget_ns, a] = 1 << 60
        if direct_reclaim_step(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, a):
            break
    return ac[AC.progress, a]


# ----------------------------------------------------------------------------------------- kswapd


@kernel
def wakeup_kswapd(nf, z, order):
    """``wakeup_kswapd()``: raise kswapd's order; wake it unless the zone is fine at the low watermark."""
    if z[Z.kswapd_order] < order:
        z[Z.kswapd_order] = order
    if z[Z.kswapd_awake]:
        return
    if zone_watermark_ok(nf, z, order, z[Z.wmark_low]):
        return
    z[Z.kswapd_awake] = 1
    z[Z.kswapd_priority] = DEF_PRIORITY
    z[Z.kswapd_reclaimed] = 0
    z[Z.kswapd_shrinking] = 0


@kernel
def kswapd_testorder(nf, z, pi, order):
    if pi[I.reclaim_order_0] and order > 0 and compaction_suitable(nf, z, pi, order) != COMPACT.COMPACT_SKIPPED:
        return 0
    return order


@kernel
def kswapd_step(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, cm, cf):
    """One turn of kswapd: a pass of ``balance_pgdat()`` at its priority, or a turn of its compaction.

    Returns True when kswapd did something (it still has work), False when it sleeps.
    """
    a = ACTOR.KSWAPD
    if z[Z.kswapd_awake] == 0 or z[Z.now] < z[Z.kswapd_nap_until]:
        return False
    if ac[AC.step, a] == STEP.KSWAPD_COMPACT:
        ret = compact_zone_step(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, ac, cm, cf, a, bool(False))  # a value (*)
        if ret == COMPACT.COMPACT_CONTINUE:
            return True
        compact_zone_end(pg, fl, nf, pb, lh, z, vm, pi, ac, cm, cf, a)
        order = ac[AC.order, a]
        ok = zone_watermark_ok(nf, z, order, z[Z.wmark_low])
        if ok and order >= z[Z.compact_order_failed]:
            z[Z.compact_order_failed] = order + 1
        ac[AC.step, a] = STEP.IDLE
        z[Z.kswapd_awake] = 0
        z[Z.kswapd_order] = 0
        return True
    if ac[AC.step, a] != STEP.KSWAPD_BALANCE:
        ac[AC.step, a] = STEP.KSWAPD_BALANCE
        vm[VM.pageoutrun] += 1
    order = z[Z.kswapd_order]
    testorder = kswapd_testorder(nf, z, pi, order)
    high = z[Z.wmark_high]
    if z[Z.kswapd_shrinking] or not zone_watermark_ok(nf, z, testorder, high + z[Z.balance_gap]):
        priority = z[Z.kswapd_priority]
        if z[Z.kswapd_shrinking] == 0:
            z[Z.kswapd_scanned] = 0
        s, r = shrink_zone_round(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, priority, bool(True), order,
                                 int(1 << 60))  # values: direct reclaim's call shares the specialization
        charge(ac, a, s * pf[F.reclaim_page_ns] + STEP_OVERHEAD_NS)
        z[Z.kswapd_reclaimed] += r
        z[Z.kswapd_scanned] += s
        # shrink_lruvec() is kswapd's too: at an order above PAGE_ALLOC_COSTLY_ORDER it stays in the zone while
        # should_continue_reclaim() says so, counting sc->nr_reclaimed since balance_pgdat()'s loop_again (3.6
        # has no kswapd exception; 3.7 added one for patch 6's scaling after kswapd spun on it)
        if should_continue_reclaim(nf, z, pi, order, priority, r, s, z[Z.kswapd_reclaimed], int(0)):
            z[Z.kswapd_shrinking] = 1
            return True
        z[Z.kswapd_shrinking] = 0
        s = z[Z.kswapd_scanned]
        shrink_slab(pg, fl, nf, pb, lh, oh, z, vm, pi, s)
        if zone_watermark_ok(nf, z, testorder, high):
            return kswapd_balanced(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, ac, order)
        if z[Z.kswapd_reclaimed] >= SWAP_CLUSTER_MAX:
            z[Z.kswapd_priority] = DEF_PRIORITY  # loop_again
            z[Z.kswapd_reclaimed] = 0
        elif priority > 0:
            z[Z.kswapd_priority] = priority - 1
            if s > 0 and priority - 1 < DEF_PRIORITY - 2 and not zone_watermark_ok(nf, z, order, z[Z.wmark_min]):
                pass  # under the min watermark: kswapd_skip_congestion_wait
            elif s > 0 and priority - 1 < DEF_PRIORITY - 2:
                z[Z.kswapd_nap_until] = z[Z.now] + 100000000  # congestion_wait(BLK_RW_ASYNC, HZ/10)
        elif order > 0:
            # a whole sweep freed less than SWAP_CLUSTER_MAX: give up the high order
            z[Z.kswapd_order] = 0
            z[Z.kswapd_priority] = DEF_PRIORITY
            z[Z.kswapd_reclaimed] = 0
        else:
            # nothing left to reclaim (zone->all_unreclaimable): kswapd sleeps until woken again
            ac[AC.step, a] = STEP.IDLE
            z[Z.kswapd_awake] = 0
            z[Z.kswapd_order] = 0
        return True
    return kswapd_balanced(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, ac, order)


@kernel
def kswapd_balanced(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, ac, order):
    """The end of ``balance_pgdat()`` for a balanced zone: the order > 0 checks, compaction, then sleep."""
    a = ACTOR.KSWAPD
    if order > 0:
        if pi[I.reclaim_order_0] and compaction_suitable(nf, z, pi, order) == COMPACT.COMPACT_SKIPPED:
            z[Z.kswapd_priority] = DEF_PRIORITY  # not enough free memory to compact: reclaim more
            z[Z.kswapd_reclaimed] = 0
            return True
        if not zone_watermark_ok(nf, z, 0, z[Z.wmark_high]):
            z[Z.kswapd_order] = 0
            z[Z.kswapd_priority] = DEF_PRIORITY
            return True
        if pi[I.kswapd_compact_pgdat] and not zone_watermark_ok(nf, z, order, z[Z.wmark_low]):
            # compact_pgdat(): async, never deferred from here; cc.migratetype is 0 (not set by kswapd)
            if not compaction_deferred(z, pi, order):
                ret = compact_zone_begin(nf, z, pi, ac, a, order, MT.MIGRATE_UNMOVABLE, int(0))  # a value (*)
                if ret == COMPACT.COMPACT_CONTINUE:
                    ac[AC.page, a] = -1
                    ac[AC.step, a] = STEP.KSWAPD_COMPACT
                    return True
    ac[AC.step, a] = STEP.IDLE
    z[Z.kswapd_awake] = 0
    z[Z.kswapd_order] = 0
    return True


# ----------------------------------------------------------------------------------------- writeback, drop_caches


@leaf
def writeback(pg, oh, z, vm, pi, all_pages):
    """The flusher: write dirty pages older than ``dirty_expire_centisecs``, or the oldest while
    dirty pages exceed ``dirty_background_ratio`` of the dirtyable memory (``all_pages``: sync)."""
    d = pi[I.procs_max] + 1  # the dirty list's owner slot
    expire = pi[I.dirty_expire_centisecs] * 10000000
    bg = pi[I.dirty_background_ratio] * (z[Z.nr_free] + z[Z.nr_file]) // 100
    written = 0
    while oh[d] >= 0:
        pfn = oh[d]
        if not all_pages and pg[pfn, PG.stamp] * pi[I.tick_ns] + expire > z[Z.now] and z[Z.nr_dirty] <= bg:
            break
        write_page(pg, oh, z, vm, pi, pfn)
        written += 1
    return written


@kernel
def drop_caches(pg, fl, nf, pb, lh, oh, z, vm, pi):
    """``echo 3 > /proc/sys/vm/drop_caches`` after ``sync``: clean page cache and the dentry/inode slab.

    Runs once, but frees most of the zone: ``page_release`` is inlined here."""
    for lst in (LRU.LRU_FILE, LRU.SLAB_RECLAIMABLE):
        while lh[lst] >= 0:
            pfn = lh[lst]
            pg[pfn, PG.flags] &= ~PGF.writeback
            page_release(pg, fl, nf, pb, lh, oh, z, vm, pi, pfn)


__all__ = ["shrink_zone_round", "shrink_list", "get_scan_count", "shrink_slab", "should_continue_reclaim",
           "compaction_ready", "direct_reclaim_begin", "direct_reclaim_step", "try_to_free_pages_now",
           "wakeup_kswapd", "kswapd_step", "writeback", "drop_caches"]
