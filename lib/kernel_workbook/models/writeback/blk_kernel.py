"""Pages to requests and back: ``submit_bio()`` and ``end_page_writeback()`` over the disk/CFQ model's block layer.

The request queue -- the request list of ``nr_requests``, the elevator that
sorts and merges, the disk -- is ``models/cfq/blk_core_kernel`` and the
kernels it calls (2.6.23's ``block/ll_rw_blk.c``, ``block/elevator.c``,
``block/cfq-iosched.c``; 2.5.52-mm's deadline).  This module is the
writeback side of it:

* :func:`submit_page` -- ``submit_bio()`` of one page: a bio of 8 sectors at
  the page's place in the file (page-cache index x 8), through
  ``__make_request()`` (:func:`~kernel_workbook.models.cfq.blk_core_kernel.make_request`):
  merged into a queued request or in a new one, or, when the list has no
  request for the task, nothing (the caller sleeps in ``get_request_wait()``
  holding it: :func:`block_on_request`).  The request's pages are chained
  through ``PG.rq_next``; when two requests merge their chains join;
* :func:`end_request` -- the disk completed a request:
  ``end_page_writeback()`` on its pages (``rotate_reclaimable_page()`` for
  the ones reclaim wrote), the request back to the list
  (``blk_finish_request()``), every ``congestion_wait()`` sleeper woken when
  the queue fell below its "off" mark (``clear_bdi_congested()``), the task
  the list woke takes its request;
* :func:`queue_congested` -- ``bdi_write_congested()``.

Every request the writeback tasks queue is an async write of the one shared
async queue (``cfq_async_queue_prio()``: kswapd and pdflush are both
best-effort priority 4), so CFQ merges and sorts them all together.
"""

from ..cfq.layout import PR_, PS, S_ as BS_
from ..engine import kernel_module, kernel_no_nrt as kernel, leaf_no_nrt as leaf, sibling
from .layout import AC, ACTOR, I, NA, PAGE_SECTORS, PG, PGF, RQW, S, STATE, VM, ZN

_pa = sibling(__name__, "page_alloc_kernel")
_blk = kernel_module(__name__, "kernel_workbook.models.cfq.blk_core_kernel")
NO_REQUEST = -1


@leaf
def queue_congested(BS):
    """bdi_write_congested(): the queue's write (async) congestion bit."""
    return BS[BS_.rl_congested_async] != 0


@leaf
def chain_add(pg, rqw, rid, pfn):
    """The page's bio joins request ``rid``'s chain."""
    pg[pfn, PG.rq_next] = -1
    if rqw[rid, RQW.npages] == 0:
        rqw[rid, RQW.head] = pfn
    else:
        pg[rqw[rid, RQW.tail], PG.rq_next] = pfn
    rqw[rid, RQW.tail] = pfn
    rqw[rid, RQW.npages] += 1


@leaf
def chain_join(pg, rqw, rid, other):
    """attempt_merge(): request ``other`` merged into ``rid``; its pages join ``rid``'s chain."""
    if rqw[other, RQW.npages] == 0:
        return
    if rqw[rid, RQW.npages] == 0:
        rqw[rid, RQW.head] = rqw[other, RQW.head]
    else:
        pg[rqw[rid, RQW.tail], PG.rq_next] = rqw[other, RQW.head]
    rqw[rid, RQW.tail] = rqw[other, RQW.tail]
    rqw[rid, RQW.npages] += rqw[other, RQW.npages]
    rqw[other, RQW.npages] = 0


@kernel
def submit_page(pg, rqw, rfree, s, pi, a, pfn, may_merge,
                P, BS, R, Q, QR, ST, EL, EV, PR):
    """``submit_bio()`` of page ``pfn`` (already under writeback) by task ``a``; False when no request was
    left for it (nothing done: the caller sleeps holding the page)."""
    new_rid = rfree[s[S.rfree_n] - 1]
    holder, freed = _blk.make_request(P, BS, R, Q, QR, ST, EL, EV, PR, a, new_rid, pg[pfn, PG.index] * PAGE_SECTORS,
                                      PAGE_SECTORS, 1, 0, pi[I.async_queue], may_merge)
    if holder == NO_REQUEST:
        return False
    if holder == new_rid:
        s[S.rfree_n] -= 1
        rqw[new_rid, RQW.owner] = a
        rqw[new_rid, RQW.zone] = pg[pfn, PG.zone]
        rqw[new_rid, RQW.npages] = 0
    chain_add(pg, rqw, holder, pfn)
    if freed >= 0:
        chain_join(pg, rqw, holder, freed)
        rfree[s[S.rfree_n]] = freed
        s[S.rfree_n] += 1
    return True


@leaf
def set_page_writeback(pg, zs, s, vm, pfn):
    """``clear_page_dirty_for_io()`` + ``set_page_writeback()``: dirty -> writeback."""
    z = pg[pfn, PG.zone]
    f = pg[pfn, PG.flags]
    if (f & PGF.PG_writeback) != 0:  # a page is never under writeback twice: the audit says so if it were
        s[S.audit_fail] = 1
    if (f & PGF.PG_dirty) != 0:
        zs[z, ZN.nr_dirty] -= 1
        s[S.nr_dirty] -= 1
    pg[pfn, PG.flags] = (f & ~PGF.PG_dirty) | PGF.PG_writeback
    zs[z, ZN.nr_writeback] += 1
    s[S.nr_writeback] += 1


@leaf
def block_on_request(ac, acp, BS, PR, a, pfn, now):
    """``get_request_wait()``: task ``a`` sleeps holding the page it could not queue (first in, first woken)."""
    acp[a, ac[a, AC.pend_n]] = pfn
    ac[a, AC.pend_n] += 1
    ac[a, AC.state] = STATE.REQUEST_WAIT
    ac[a, AC.since] = now
    _blk.rq_sleep(BS, PR, a, -1, 0)


@leaf
def run_queue(P, BS, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK):
    """``__generic_unplug_device()``: the elevator hands requests to the disk while it takes them."""
    _blk.run_queue(P, BS, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)


@leaf
def wake_request_waiters(pg, rqw, rfree, ac, acp, s, pi, now, P, BS, R, Q, QR, ST, EL, EV, PR):
    """The task ``freed_request()`` woke becomes a batcher and queues the page it held (2.6.23's
    get_request_wait() does not look for a merge again); the list may put it back to sleep."""
    for a in range(NA):
        if PR[a, PR_.state] != PS.rqwoken:
            continue
        _blk.ioc_set_batching(P, BS, PR, a)
        PR[a, PR_.state] = PS.ready
        pfn = acp[a, 0]
        if not submit_page(pg, rqw, rfree, s, pi, a, pfn, False, P, BS, R, Q, QR, ST, EL, EV, PR):
            _blk.rq_sleep(BS, PR, a, -1, 0)
            continue
        ac[a, AC.pend_n] = 0
        ac[a, AC.rqw_ns] += max(0, now - ac[a, AC.since])
        ac[a, AC.state] = STATE.RUNNING
        ac[a, AC.wake_at] = max(now, ac[a, AC.since])  # not before its CPU time of the step is spent


@kernel
def end_request(pg, lh, zs, rqw, rfree, ac, acp, s, vm, pi, rid, now,
                P, BS, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR):
    """The disk completed request ``rid``: end its pages' writeback, free it, wake whoever waits."""
    n = rqw[rid, RQW.npages]
    pfn = rqw[rid, RQW.head]
    for _ in range(n):
        z = pg[pfn, PG.zone]
        f = pg[pfn, PG.flags]
        if (f & PGF.PG_writeback) == 0:
            s[S.audit_fail] = 2
        pg[pfn, PG.flags] = f & ~PGF.PG_writeback
        zs[z, ZN.nr_writeback] -= 1
        s[S.nr_writeback] -= 1
        if (f & PGF.PG_reclaim) != 0:  # end_page_writeback(): TestClearPageReclaim -> rotate
            pg[pfn, PG.flags] &= ~PGF.PG_reclaim
            _pa.rotate_reclaimable_page(pg, lh, zs, VM.pgrotated, vm, pfn)
        pfn = pg[pfn, PG.rq_next]
    vm[VM.pgpgout] += 4 * n
    rqw[rid, RQW.npages] = 0
    _blk.blk_finish_request(P, BS, R, Q, QR, ST, EV, PR, DC, rid)
    rfree[s[S.rfree_n]] = rid
    s[S.rfree_n] += 1
    if BS[BS_.c_congestion_clear] != s[S.congestion_clear_seen]:
        s[S.congestion_clear_seen] = BS[BS_.c_congestion_clear]
        for a in range(NA):  # clear_bdi_congested(): wake every congestion_wait() sleeper
            if ac[a, AC.state] == STATE.CONGESTION_WAIT:
                ac[a, AC.wake_at] = now
    wake_request_waiters(pg, rqw, rfree, ac, acp, s, pi, now, P, BS, R, Q, QR, ST, EL, EV, PR)
    run_queue(P, BS, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)


__all__ = ["submit_page", "set_page_writeback", "block_on_request", "end_request", "run_queue", "queue_congested",
           "ACTOR"]
