"""Page reclaim: ``mm/vmscan.c`` of 2.6.23 (and of 2.5.52 before c4e2d7dd, by flag).

* :func:`may_write_to_queue` -- kswapd with ``PF_SWAPWRITE`` (c4e2d7dd) may
  write to a congested queue; anyone may write to an uncongested one;
* :func:`pageout` -- ``clear_page_dirty_for_io()``, ``SetPageReclaim()`` and
  ``writepage()`` of one page, a one-page bio the block layer merges into a
  queued request or queues anew; when the request list is full the writer
  sleeps in ``get_request_wait()`` (only kswapd gets there: the others saw the
  congestion first);
* :func:`shrink_inactive_list` -- ``isolate_lru_pages()`` from the tail
  (``pgscan_kswapd_<zone>`` / ``pgscan_direct_<zone>``) and
  ``shrink_page_list()``: a page under writeback is kept, a referenced one
  activated, a dirty one written when ``may_write_to_queue()`` allows (and
  kept), a clean one freed (``pgsteal_<zone>``, ``kswapd_steal``); kept
  pages go back to the head of the list;
* :func:`shrink_active_list` -- refill the inactive list from the active tail;
* :func:`shrink_zone` -- ``nr_scan_active/inactive += (size >> priority) + 1``
  in ``SWAP_CLUSTER_MAX`` batches (no early exit in 2.6.23);
* :func:`balance_pgdat_step` / :func:`try_to_free_pages_step` -- one zone of
  kswapd's or direct reclaim's priority loop, with its
  ``congestion_wait(WRITE, HZ/10)`` below ``DEF_PRIORITY - 2`` and 2.6.23's
  ``throttle_vm_writeout()`` after each zone.

When kswapd sleeps in ``get_request_wait()`` mid-batch, the batch ends
there: the pages it had not looked at go back to the tail of the list
uncounted (the kernel would look at them after waking).
"""

from ..engine import kernel_no_nrt as kernel, leaf_no_nrt as leaf, sibling
from .layout import (AC, ACTOR, DEF_PRIORITY, F, I, LRU, MODE, NZ, PG, PGF, S, STATE, SWAP_CLUSTER_MAX, VM,
                     ZN)

_pa = sibling(__name__, "page_alloc_kernel")
_blk = sibling(__name__, "blk_kernel")
_wb = sibling(__name__, "page_writeback_kernel")

PAGE_KEEP = 0
PAGE_SUCCESS = 1
PAGE_BLOCKED = 2


@leaf
def may_write_to_queue(BS, pi, a):
    if a == ACTOR.KSWAPD and pi[I.kswapd_swapwrite] != 0:
        return True  # current->flags & PF_SWAPWRITE
    return not _blk.queue_congested(BS)  # !bdi_write_congested(bdi)


@leaf
def pageout(pg, zs, rqw, rfree, ac, acp, s, vm, pi, a, pfn, now, P, BS, R, Q, QR, ST, EL, EV, PR):
    if not may_write_to_queue(BS, pi, a):
        return PAGE_KEEP
    _blk.set_page_writeback(pg, zs, s, vm, pfn)
    pg[pfn, PG.flags] |= PGF.PG_reclaim
    vm[VM.nr_vmscan_write] += 1
    if a == ACTOR.KSWAPD:
        vm[VM.kswapd_writes] += 1
    if not _blk.submit_page(pg, rqw, rfree, s, pi, a, pfn, True, P, BS, R, Q, QR, ST, EL, EV, PR):
        _blk.block_on_request(ac, acp, BS, PR, a, pfn, now)
        return PAGE_BLOCKED
    return PAGE_SUCCESS


@leaf
def shrink_active_list(pg, lh, zs, vm, z, nr_to_scan):
    """Move up to ``nr_to_scan`` pages from the active tail: referenced ones back to the head, the rest
    to the inactive list (``pgdeactivate``)."""
    n = 0
    for _ in range(nr_to_scan):
        pfn = _pa.lru_tail(pg, lh, z, LRU.LRU_ACTIVE)
        if pfn < 0:
            break
        n += 1
        _pa.lru_del(pg, lh, zs, pfn)
        if (pg[pfn, PG.flags] & PGF.PG_referenced) != 0:
            pg[pfn, PG.flags] &= ~PGF.PG_referenced
            _pa.lru_add(pg, lh, zs, pfn, True, False)
        else:
            _pa.lru_add(pg, lh, zs, pfn, False, False)
            vm[VM.pgdeactivate] += 1
    return n


@kernel
def shrink_inactive_list(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, tmp, a, z, nr_to_scan, now, P, BS, R, Q, QR, ST, EL, EV, PR):
    """Returns ``(scanned, reclaimed)``; the task may be left asleep in ``get_request_wait()``."""
    n = 0
    for _ in range(nr_to_scan):  # isolate_lru_pages()
        pfn = _pa.lru_tail(pg, lh, z, LRU.LRU_INACTIVE)
        if pfn < 0:
            break
        _pa.lru_del(pg, lh, zs, pfn)
        tmp[n] = pfn
        n += 1
    reclaimed = 0
    scanned = n
    j = 0
    while j < n:
        pfn = tmp[j]
        j += 1
        f = pg[pfn, PG.flags]
        keep = True
        if (f & PGF.PG_writeback) != 0:
            keep = True
        elif (f & PGF.PG_referenced) != 0:
            pg[pfn, PG.flags] &= ~PGF.PG_referenced  # page_referenced() -> activate_locked
            _pa.lru_add(pg, lh, zs, pfn, True, False)
            vm[VM.pgactivate] += 1
            continue
        elif (f & PGF.PG_dirty) != 0:
            if ac[a, AC.may_writepage] != 0:
                r = pageout(pg, zs, rqw, rfree, ac, acp, s, vm, pi, a, pfn, now, P, BS, R, Q, QR, ST, EL, EV, PR)
                if r == PAGE_BLOCKED:
                    _pa.lru_add(pg, lh, zs, pfn, False, False)
                    for k in range(n - 1, j - 1, -1):  # the rest, unlooked-at, back to the tail
                        _pa.lru_add(pg, lh, zs, tmp[k], False, True)
                    scanned = j
                    break
        else:
            keep = False
        if keep:
            _pa.lru_add(pg, lh, zs, pfn, False, False)  # putback_lru_pages(): the head
        else:
            _pa.free_page(pg, zs, fstk, fpfn, pfn)
            reclaimed += 1
    if a == ACTOR.KSWAPD:
        vm[VM.pgscan_kswapd + z] += scanned
        vm[VM.kswapd_steal] += reclaimed
    else:
        vm[VM.pgscan_direct + z] += scanned
    vm[VM.pgsteal + z] += reclaimed
    zs[z, ZN.pages_scanned] += scanned
    return scanned, reclaimed


@kernel
def shrink_zone(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, tmp, a, z, priority, now, P, BS, R, Q, QR, ST, EL, EV, PR):
    """Returns ``(pages looked at, scanned, reclaimed)``."""
    zs[z, ZN.nr_scan_active] += (zs[z, ZN.nr_active] >> priority) + 1
    nr_active = zs[z, ZN.nr_scan_active]
    if nr_active >= SWAP_CLUSTER_MAX:
        zs[z, ZN.nr_scan_active] = 0
    else:
        nr_active = 0
    zs[z, ZN.nr_scan_inactive] += (zs[z, ZN.nr_inactive] >> priority) + 1
    nr_inactive = zs[z, ZN.nr_scan_inactive]
    if nr_inactive >= SWAP_CLUSTER_MAX:
        zs[z, ZN.nr_scan_inactive] = 0
    else:
        nr_inactive = 0
    looked = 0
    scanned = 0
    reclaimed = 0
    while nr_active > 0 or nr_inactive > 0:
        if nr_active > 0:
            k = min(nr_active, SWAP_CLUSTER_MAX)
            nr_active -= k
            looked += shrink_active_list(pg, lh, zs, vm, z, k)
        if nr_inactive > 0:
            k = min(nr_inactive, SWAP_CLUSTER_MAX)
            nr_inactive -= k
            sc, rc = shrink_inactive_list(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, tmp, a, z, k, now,
                                          P, BS, R, Q, QR, ST, EL, EV, PR)
            looked += sc
            scanned += sc
            reclaimed += rc
            if ac[a, AC.state] == STATE.REQUEST_WAIT:
                break
    return looked, scanned, reclaimed


@kernel
def shrink_zone_2002(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, tmp, a, z, max_scan, to_reclaim, now,
                     P, BS, R, Q, QR, ST, EL, EV, PR):
    """2.5's shrink_zone(zone, max_scan, gfp_mask, to_reclaim): refill the inactive list in proportion to the
    active one (``to_reclaim * nr_active / (2 * nr_inactive)`` + 1 into the refill counter, SWAP_CLUSTER_MAX
    at a time), then shrink_cache(): batches of SWAP_CLUSTER_MAX from the inactive tail until ``max_scan``
    pages were looked at or ``to_reclaim`` freed.  Returns ``(pages looked at, scanned, reclaimed)``."""
    zs[z, ZN.nr_scan_active] += to_reclaim * zs[z, ZN.nr_active] // (2 * (zs[z, ZN.nr_inactive] | 1)) + 1
    looked = 0
    if zs[z, ZN.nr_scan_active] > SWAP_CLUSTER_MAX:
        zs[z, ZN.nr_scan_active] -= SWAP_CLUSTER_MAX
        looked += shrink_active_list(pg, lh, zs, vm, z, SWAP_CLUSTER_MAX)
    scanned = 0
    reclaimed = 0
    while scanned < max_scan and reclaimed < to_reclaim:
        sc, rc = shrink_inactive_list(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, tmp, a, z,
                                      min(SWAP_CLUSTER_MAX, max_scan - scanned), now, P, BS, R, Q, QR, ST, EL, EV, PR)
        looked += sc
        scanned += sc
        reclaimed += rc
        if sc == 0 or ac[a, AC.state] == STATE.REQUEST_WAIT:
            break
    return looked, scanned, reclaimed


@leaf
def zone_balanced(zs, z):
    return zs[z, ZN.present] == 0 or _pa.zone_watermark_ok(zs, z, zs[z, ZN.pages_high])


@leaf
def restart_balance_pgdat(ac):
    a = ACTOR.KSWAPD
    ac[a, AC.mode] = MODE.BALANCE_PGDAT
    ac[a, AC.priority] = DEF_PRIORITY
    ac[a, AC.zone] = -1
    ac[a, AC.total_scanned] = 0
    ac[a, AC.nr_reclaimed] = 0
    ac[a, AC.may_writepage] = 1  # !laptop_mode


@leaf
def end_zone_of(zs, priority):
    """The highest zone that is not balanced at ``pages_high`` (kswapd scans it and everything below)."""
    for z in range(NZ - 1, -1, -1):
        if zs[z, ZN.present] == 0:
            continue
        if zs[z, ZN.all_unreclaimable] != 0 and priority != DEF_PRIORITY:
            continue
        if not zone_balanced(zs, z):
            return z
    return -1


@leaf
def balance_pgdat_2002_step(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, pf, tmp, now, P, BS, R, Q, QR, ST, EL, EV, PR):
    """One zone of 2.5's ``balance_pgdat()`` (2.5.36 .. 2.5.70): for priority 12 down to 1, every zone below
    ``pages_high`` is shrunk (``max_scan = max(nr_inactive >> priority, 2 * to_reclaim)``, stopping once
    ``to_reclaim = pages_high - free`` pages are freed), and after every pass that left a zone short kswapd
    naps (``blk_congestion_wait(WRITE, HZ/10)``); after priority 1, or once every zone is balanced, kswapd
    sleeps until an allocator wakes it.  Returns the CPU time of the step (ns)."""
    a = ACTOR.KSWAPD
    if ac[a, AC.mode] == MODE.IDLE:  # balance_pgdat() returned after priority 1's nap: kswapd sleeps
        ac[a, AC.state] = STATE.SLEEPING
        ac[a, AC.wake_at] = s[S.end]
        return 0
    if ac[a, AC.zone] < 0:  # the start of a priority pass
        ac[a, AC.zone] = 0
        ac[a, AC.all_zones_ok] = 1
    z = ac[a, AC.zone]
    pr = ac[a, AC.priority]
    cost = 0
    to_reclaim = zs[z, ZN.pages_high] - zs[z, ZN.nr_free]
    if zs[z, ZN.present] > 0 and to_reclaim > 0:
        ac[a, AC.all_zones_ok] = 0
        max_scan = max(zs[z, ZN.nr_inactive] >> pr, 2 * to_reclaim)
        looked, sc, rc = shrink_zone_2002(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, tmp, a, z, max_scan,
                                          to_reclaim, now, P, BS, R, Q, QR, ST, EL, EV, PR)
        cost = int(looked * pf[F.scan_page_ns])
        ac[a, AC.total_scanned] += sc
        ac[a, AC.nr_reclaimed] += rc
    ac[a, AC.zone] = z + 1
    if ac[a, AC.zone] >= NZ:  # the end of a priority pass
        ac[a, AC.zone] = -1
        if ac[a, AC.all_zones_ok] == 1:
            ac[a, AC.mode] = MODE.IDLE  # balanced: kswapd sleeps
            ac[a, AC.state] = STATE.SLEEPING
            ac[a, AC.wake_at] = s[S.end]
            return cost
        if pr > 1:
            ac[a, AC.priority] = pr - 1
        if ac[a, AC.state] == STATE.RUNNING:
            if pi[I.kswapd_congestion_wait] != 0:
                _wb.congestion_wait(ac, pi, a, now + cost)
            if pr == 1:  # the priority loop is done: after the nap kswapd sleeps until woken
                ac[a, AC.mode] = MODE.IDLE
    return cost


@kernel
def balance_pgdat_step(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, pf, tmp, now, P, BS, R, Q, QR, ST, EL, EV, PR):
    """One zone of ``balance_pgdat()``; returns the CPU time it took (ns)."""
    a = ACTOR.KSWAPD
    if pi[I.balance_pgdat_2002] != 0:
        return balance_pgdat_2002_step(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, pf, tmp, now, P, BS, R, Q, QR, ST, EL, EV, PR)
    if ac[a, AC.zone] < 0:  # the start of a priority pass
        ez = end_zone_of(zs, ac[a, AC.priority])
        if ez < 0:  # every zone at pages_high: kswapd sleeps until an allocator wakes it
            ac[a, AC.mode] = MODE.IDLE
            ac[a, AC.state] = STATE.SLEEPING
            ac[a, AC.wake_at] = s[S.end]
            return 0
        ac[a, AC.end_zone] = ez
        ac[a, AC.zone] = 0
        ac[a, AC.all_zones_ok] = 1
    z = ac[a, AC.zone]
    pr = ac[a, AC.priority]
    cost = 0
    if zs[z, ZN.present] > 0 and not (zs[z, ZN.all_unreclaimable] != 0 and pr != DEF_PRIORITY):
        if not zone_balanced(zs, z):
            ac[a, AC.all_zones_ok] = 0
        looked, sc, rc = shrink_zone(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, tmp, a, z, pr, now,
                                     P, BS, R, Q, QR, ST, EL, EV, PR)
        cost = int(looked * pf[F.scan_page_ns])
        ac[a, AC.total_scanned] += sc
        ac[a, AC.nr_reclaimed] += rc
        if zs[z, ZN.pages_scanned] >= 6 * (zs[z, ZN.nr_active] + zs[z, ZN.nr_inactive]):
            zs[z, ZN.all_unreclaimable] = 1
        ts, nr = ac[a, AC.total_scanned], ac[a, AC.nr_reclaimed]
        if ts > SWAP_CLUSTER_MAX * 2 and ts > nr + nr // 2:
            ac[a, AC.may_writepage] = 1
    ac[a, AC.zone] = z + 1
    if ac[a, AC.state] == STATE.RUNNING:
        _wb.throttle_vm_writeout(ac, s, pi, a, now + cost)
    if ac[a, AC.zone] > ac[a, AC.end_zone]:  # the end of a priority pass
        ac[a, AC.zone] = -1
        ok = ac[a, AC.all_zones_ok] == 1
        nap = (not ok and ac[a, AC.total_scanned] > 0 and pr < DEF_PRIORITY - 2
               and pi[I.kswapd_congestion_wait] != 0)
        if ok or ac[a, AC.nr_reclaimed] >= SWAP_CLUSTER_MAX or pr == 0:
            restart_balance_pgdat(ac)  # "goto loop_again" (when all were ok, the next pass finds them so: sleep)
        else:
            ac[a, AC.priority] = pr - 1
        if nap and ac[a, AC.state] == STATE.RUNNING:
            _wb.congestion_wait(ac, pi, a, now + cost)
    return cost


@leaf
def try_to_free_pages_2002_step(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, pf, tmp, a, now, P, BS, R, Q, QR, ST, EL, EV, PR):
    """One zone of 2.5's ``try_to_free_pages()`` / ``shrink_caches()``: for priority 12 down to 1, the zones
    from the allocation's down are shrunk for ``SWAP_CLUSTER_MAX`` pages (``max_scan = max(nr_inactive >>
    priority, 2 * SWAP_CLUSTER_MAX)``) until that many are freed; after a pass that failed,
    ``wakeup_bdflush(scanned)`` and a nap (``blk_congestion_wait(WRITE, HZ/10)``); after priority 1 the
    allocation fails.  Returns ``(cost ns, 1 done / 0 go on / -1 failed)``."""
    z = ac[a, AC.zone]
    pr = ac[a, AC.priority]
    cost = 0
    if z < 0:
        z = ac[a, AC.zonelist]
    if zs[z, ZN.present] > 0 and zs[z, ZN.pages_high] - zs[z, ZN.nr_free] >= 0:
        max_scan = max(zs[z, ZN.nr_inactive] >> pr, 2 * SWAP_CLUSTER_MAX)
        looked, sc, rc = shrink_zone_2002(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, tmp, a, z, max_scan,
                                          SWAP_CLUSTER_MAX, now, P, BS, R, Q, QR, ST, EL, EV, PR)
        cost = int(looked * pf[F.scan_page_ns])
        ac[a, AC.total_scanned] += max_scan  # 2.5 counts the pages it meant to scan
        ac[a, AC.nr_reclaimed] += rc
        if ac[a, AC.nr_reclaimed] >= SWAP_CLUSTER_MAX:
            ac[a, AC.zone] = -1
            return cost, 1
    ac[a, AC.zone] = z - 1
    if z - 1 >= 0:
        return cost, 0
    ac[a, AC.zone] = -1  # the end of a pass over the zonelist
    ts = ac[a, AC.total_scanned]
    if ts == 0:
        return cost, 1  # "All zones had enough free memory"
    _wb.wakeup_pdflush(ac, ts, now + cost)
    if pr == 1:
        return cost, (1 if ac[a, AC.nr_reclaimed] > 0 else -1)
    ac[a, AC.priority] = pr - 1
    ac[a, AC.total_scanned] = 0
    if pi[I.kswapd_congestion_wait] != 0 and ac[a, AC.state] == STATE.RUNNING:
        _wb.congestion_wait(ac, pi, a, now + cost)
    return cost, 0


@kernel
def try_to_free_pages_step(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, pf, tmp, a, now, P, BS, R, Q, QR, ST, EL, EV, PR):
    """One zone of direct reclaim's priority loop; returns ``(cost ns, 1 done / 0 go on / -1 failed)``."""
    if pi[I.balance_pgdat_2002] != 0:
        return try_to_free_pages_2002_step(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, pf, tmp, a, now,
                                           P, BS, R, Q, QR, ST, EL, EV, PR)
    z = ac[a, AC.zone]
    pr = ac[a, AC.priority]
    top = ac[a, AC.zonelist]  # the highest zone this allocation may use
    cost = 0
    if z < 0:
        z = top
    if zs[z, ZN.present] > 0 and not (zs[z, ZN.all_unreclaimable] != 0 and pr != DEF_PRIORITY):
        looked, sc, rc = shrink_zone(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, tmp, a, z, pr, now,
                                     P, BS, R, Q, QR, ST, EL, EV, PR)
        cost = int(looked * pf[F.scan_page_ns])
        ac[a, AC.total_scanned] += sc
        ac[a, AC.nr_reclaimed] += rc
    ac[a, AC.zone] = z - 1
    if ac[a, AC.state] == STATE.RUNNING:
        _wb.throttle_vm_writeout(ac, s, pi, a, now + cost)
    if z - 1 >= 0:
        return cost, 0
    # the end of a priority pass over the zonelist
    ac[a, AC.zone] = -1
    if ac[a, AC.nr_reclaimed] >= SWAP_CLUSTER_MAX:
        return cost, 1
    ts = ac[a, AC.total_scanned]
    if ts > SWAP_CLUSTER_MAX + SWAP_CLUSTER_MAX // 2:
        _wb.wakeup_pdflush(ac, ts, now + cost)
        ac[a, AC.may_writepage] = 1
    if pr == 0:
        return cost, (1 if ac[a, AC.nr_reclaimed] > 0 else -1)
    ac[a, AC.priority] = pr - 1
    if ts > 0 and pr < DEF_PRIORITY - 2 and pi[I.kswapd_congestion_wait] != 0 and ac[a, AC.state] == STATE.RUNNING:
        _wb.congestion_wait(ac, pi, a, now + cost)
    return cost, 0


__all__ = ["may_write_to_queue", "pageout", "shrink_zone", "shrink_inactive_list", "shrink_active_list",
           "balance_pgdat_step", "try_to_free_pages_step", "restart_balance_pgdat"]
