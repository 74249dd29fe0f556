"""The one request queue every zone writes through: ``block/ll_rw_blk.c`` of 2.6.23 and a disk behind it.

* :func:`get_request` -- a free slot of the ``nr_requests``, or none (the
  caller then blocks in ``get_request_wait()`` or, writing nonblocking,
  gives up); the queue is marked write-congested when
  ``count >= blk_queue_congestion_threshold()`` ("on": ``nr - nr/8 + 1``);
* :func:`submit_page` -- ``submit_bio()`` of one page: merged at the back of
  the last queued request when it continues it (``ll_back_merge_fn()``, up to
  ``max_sectors``), else a new request;
* :func:`end_request` -- the disk finished the request at the head:
  ``end_page_writeback()`` on its pages (``rotate_reclaimable_page()`` for the
  ones reclaim wrote), the slot is freed, ``clear_bdi_congested()`` below the
  "off" threshold (``nr - nr/8 - nr/16 - 1``) wakes every ``congestion_wait()``
  sleeper, and the oldest task in ``get_request_wait()`` gets the slot;
* :func:`start_head` -- the disk serves the queue in order; a request that
  does not continue the previous one pays a seek (the time of a random 4 KiB
  write of the cfq model's disk, computed in ``simulate.py``).
"""

from ..engine import leaf_no_nrt as leaf, sibling
from .layout import AC, ACTOR, I, NA, PG, PGF, RQ, S, STATE, VM, ZN

_pa = sibling(__name__, "page_alloc_kernel")


@leaf
def queue_slot_free(rq, nrq):
    for k in range(nrq):
        if rq[k, RQ.npages] == 0:
            return k
    return -1


@leaf
def set_congestion(s, pi):
    if s[S.q_count] >= pi[I.congestion_on]:
        s[S.q_congested] = 1
    s[S.q_full] = 1 if s[S.q_count] >= pi[I.nr_requests] else 0


@leaf
def get_request(rq, qr, s, pi, owner, zone):
    """A new request in the queue, or -1 when all ``nr_requests`` slots are taken."""
    nrq = pi[I.nr_requests]
    if s[S.q_count] >= nrq:
        return -1
    k = queue_slot_free(rq, nrq)
    rq[k, RQ.owner] = owner
    rq[k, RQ.zone] = zone
    rq[k, RQ.npages] = 0
    rq[k, RQ.start_ns] = -1
    rq[k, RQ.done_ns] = -1
    qr[(s[S.q_head] + s[S.q_count]) % nrq] = k
    s[S.q_count] += 1
    set_congestion(s, pi)
    return k


@leaf
def add_page(pg, rq, rqp, k, pfn):
    n = rq[k, RQ.npages]
    rqp[k, n] = pfn
    if n == 0:
        rq[k, RQ.first_index] = pg[pfn, PG.index]
    rq[k, RQ.last_index] = pg[pfn, PG.index]
    rq[k, RQ.npages] = n + 1


@leaf
def try_back_merge(pg, rq, rqp, qr, s, pi, owner, pfn):
    """``ll_back_merge_fn()``: the page continues the last queued request (not yet on the disk)."""
    if s[S.q_count] == 0:
        return False
    nrq = pi[I.nr_requests]
    k = qr[(s[S.q_head] + s[S.q_count] - 1) % nrq]
    if rq[k, RQ.start_ns] >= 0 or rq[k, RQ.owner] != owner or rq[k, RQ.npages] >= pi[I.max_sectors_kb]:
        return False
    if rq[k, RQ.last_index] + 1 != pg[pfn, PG.index] or pg[pfn, PG.index] < 0:
        return False
    add_page(pg, rq, rqp, k, pfn)
    return True


@leaf
def submit_page(pg, rq, rqp, qr, s, pi, owner, pfn):
    """Queue the write of one page under writeback; False when the queue is full (nothing done)."""
    if try_back_merge(pg, rq, rqp, qr, s, pi, owner, pfn):
        return True
    k = get_request(rq, qr, s, pi, owner, pg[pfn, PG.zone])
    if k < 0:
        return False
    add_page(pg, rq, rqp, k, pfn)
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
def start_head(pg, rq, qr, s, pi, now):
    """If the disk is idle and a request waits, the disk starts it: when will it be done?"""
    if s[S.disk_done_at] >= 0 or s[S.q_count] == 0:
        return
    k = qr[s[S.q_head]]
    t = rq[k, RQ.npages] * pi[I.seq_page_ns]
    if rq[k, RQ.first_index] != s[S.disk_last_index] + 1:
        t += pi[I.seek_ns]
    rq[k, RQ.start_ns] = now
    rq[k, RQ.done_ns] = now + t
    s[S.disk_done_at] = now + t


@leaf
def end_request(pg, lh, zs, rq, rqp, qr, ac, acp, s, vm, pi, now):
    """The head request is done: end its pages' writeback, free its slot, wake whoever waits."""
    nrq = pi[I.nr_requests]
    k = qr[s[S.q_head]]
    n = rq[k, RQ.npages]
    for j in range(n):
        pfn = rqp[k, j]
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
    vm[VM.pgpgout] += 4 * n
    s[S.disk_last_index] = rq[k, RQ.last_index]
    rq[k, RQ.npages] = 0
    s[S.q_head] = (s[S.q_head] + 1) % nrq
    s[S.q_count] -= 1
    s[S.disk_done_at] = -1
    s[S.q_full] = 1 if s[S.q_count] >= nrq else 0
    if s[S.q_congested] == 1 and s[S.q_count] < pi[I.congestion_off]:
        s[S.q_congested] = 0  # clear_bdi_congested(): wake every congestion_wait() sleeper
        for a in range(NA):
            if ac[a, AC.state] == STATE.CONGESTION_WAIT:
                ac[a, AC.wake_at] = now
    # the oldest task sleeping in get_request_wait() takes the slot for the request it holds
    w = -1
    for a in range(NA):
        if ac[a, AC.state] == STATE.REQUEST_WAIT and (w < 0 or ac[a, AC.wait_seq] < ac[w, AC.wait_seq]):
            w = a
    if w >= 0:
        for j in range(ac[w, AC.pend_n]):
            submit_page(pg, rq, rqp, qr, s, pi, w, acp[w, j])
        ac[w, AC.pend_n] = 0
        ac[w, AC.rqw_ns] += max(0, now - ac[w, AC.since])
        ac[w, AC.state] = STATE.RUNNING
        ac[w, AC.wake_at] = max(now, ac[w, AC.since])  # not before its CPU time of the step is spent
    start_head(pg, rq, qr, s, pi, now)


@leaf
def block_on_request(ac, acp, s, a, pfn, now):
    """``get_request_wait()``: task ``a`` sleeps holding the page it could not queue."""
    acp[a, ac[a, AC.pend_n]] = pfn
    ac[a, AC.pend_n] += 1
    ac[a, AC.state] = STATE.REQUEST_WAIT
    s[S.wait_seq] += 1
    ac[a, AC.wait_seq] = s[S.wait_seq]
    ac[a, AC.since] = now


__all__ = ["get_request", "submit_page", "start_head", "end_request", "set_page_writeback", "block_on_request",
           "ACTOR"]
