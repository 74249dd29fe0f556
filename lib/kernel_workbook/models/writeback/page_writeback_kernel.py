"""Writers and their throttles: ``mm/page-writeback.c``, ``mm/pdflush.c``, ``mm/backing-dev.c`` of 2.6.23.

* :func:`congestion_wait` -- sleep until any queue clears its write
  congestion, or ``HZ/10``;
* :func:`write_pages` -- ``writeback_inodes()`` -> ``mpage_writepages()`` of
  the one big file: dirty pages in page-cache order from the inode's
  ``writeback_index`` (``range_cyclic``), each a bio the block layer merges
  into the request before it; a nonblocking writer stops at a congested queue
  (``wbc->encountered_congestion``), a blocking one sleeps in
  ``get_request_wait()`` when the request list is full;
* :func:`background_writeout_step` -- pdflush: ``background_writeout()``
  chunks of ``MAX_WRITEBACK_PAGES`` while dirty pages exceed the background
  threshold (or reclaim asked for pages: ``wakeup_pdflush(nr)``), and
  ``wb_kupdate()`` every ``dirty_writeback_interval`` for pages older than
  ``dirty_expire_interval``;
* :func:`balance_dirty_pages_step` -- a writer over ``vm_dirty_ratio`` writes
  ``write_chunk`` pages itself (nonblocking with the thread's patch) and
  naps in ``congestion_wait()`` until under the limit or its duty is done;
* :func:`throttle_vm_writeout` -- 2.6.23's end of ``shrink_zone()``: wait
  while writeback exceeds the dirty limit plus a tenth.

``get_dirty_limits()`` of 2.6.23 depends only on ``vm_total_pages`` here (no
mapped pages after the mappers died; the mapping may use highmem), so
``simulate.py`` computes both thresholds once.
"""

from ..engine import kernel_no_nrt as kernel, leaf_no_nrt as leaf, sibling
from .layout import AC, ACTOR, F, I, MAX_WRITEBACK_PAGES, MODE, PG, PGF, S, STATE, VM

_blk = sibling(__name__, "blk_kernel")


@leaf
def congestion_wait(ac, pi, a, now):
    """``congestion_wait(WRITE, HZ/10)``: ``blk_kernel.end_request`` wakes the sleeper early."""
    ac[a, AC.state] = STATE.CONGESTION_WAIT
    ac[a, AC.wake_at] = now + pi[I.congestion_wait_ms] * 1000000
    ac[a, AC.since] = now
    ac[a, AC.cw_count] += 1


@leaf
def wakeup_pdflush(ac, nr, now):
    """``wakeup_pdflush(nr)``: an idle pdflush starts writing (``nr`` pages at least)."""
    ac[ACTOR.PDFLUSH, AC.kick] += nr
    if ac[ACTOR.PDFLUSH, AC.state] == STATE.SLEEPING:
        ac[ACTOR.PDFLUSH, AC.state] = STATE.RUNNING
        ac[ACTOR.PDFLUSH, AC.wake_at] = now


@kernel
def write_pages(pg, zs, fpfn, rqw, rfree, ac, acp, s, vm, pi, a, nr_to_write, nonblocking, older_than_ms, now,
                P, BS, R, Q, QR, ST, EL, EV, PR):
    """Write up to ``nr_to_write`` dirty pages from the writeback cursor.

    Returns ``(written, why)``: why 0 = nothing more to write, 1 = stopped at a
    congested queue (nonblocking), 2 = asleep in ``get_request_wait()``, 3 = wrote them all.
    """
    n_idx = s[S.next_index]
    written = 0
    if n_idx == 0:
        return 0, 0
    for _ in range(n_idx):
        if written >= nr_to_write:
            return written, 3
        idx = s[S.pd_cursor]
        pfn = fpfn[idx]
        if pfn < 0:
            s[S.pd_cursor] = (idx + 1) % n_idx
            continue
        f = pg[pfn, PG.flags]
        if (f & PGF.PG_dirty) == 0 or (f & PGF.PG_writeback) != 0:
            s[S.pd_cursor] = (idx + 1) % n_idx
            continue
        if older_than_ms >= 0 and pg[pfn, PG.dirtied_ms] > older_than_ms:
            s[S.pd_cursor] = (idx + 1) % n_idx
            continue
        if nonblocking and _blk.queue_congested(BS):
            return written, 1
        s[S.pd_cursor] = (idx + 1) % n_idx
        _blk.set_page_writeback(pg, zs, s, vm, pfn)
        written += 1
        if a == ACTOR.PDFLUSH:
            vm[VM.pdflush_writes] += 1
        else:
            vm[VM.bdp_writes] += 1
        if not _blk.submit_page(pg, rqw, rfree, s, pi, a, pfn, True, P, BS, R, Q, QR, ST, EL, EV, PR):
            _blk.block_on_request(ac, acp, BS, PR, a, pfn, now)
            return written, 2
    return written, 0


@leaf
def background_writeout_step(pg, zs, fpfn, rqw, rfree, ac, acp, s, vm, pi, now, P, BS, R, Q, QR, ST, EL, EV, PR):
    """One chunk of pdflush's work; it then naps, sleeps, or goes on at once."""
    a = ACTOR.PDFLUSH
    if now >= s[S.next_kupdate]:  # wb_timer_fn(): the kupdate pass is due
        s[S.kupdate_due] = 1
        while s[S.next_kupdate] <= now:
            s[S.next_kupdate] += pi[I.dirty_writeback_centisecs] * 1000000
    if s[S.nr_dirty] > pi[I.background_thresh] or ac[a, AC.kick] > 0:
        written, why = write_pages(pg, zs, fpfn, rqw, rfree, ac, acp, s, vm, pi, a, MAX_WRITEBACK_PAGES, True, -1,
                                   now, P, BS, R, Q, QR, ST, EL, EV, PR)
        ac[a, AC.kick] = max(0, ac[a, AC.kick] - written)
        if why == 1:
            congestion_wait(ac, pi, a, now)
            return
        if written > 0:
            ac[a, AC.wake_at] = now
            return
        ac[a, AC.kick] = 0
    if s[S.kupdate_due] == 1:
        older = now // 1000000 - pi[I.dirty_expire_centisecs]
        written, why = write_pages(pg, zs, fpfn, rqw, rfree, ac, acp, s, vm, pi, a, MAX_WRITEBACK_PAGES, True,
                                   older, now, P, BS, R, Q, QR, ST, EL, EV, PR)
        if why == 1:
            congestion_wait(ac, pi, a, now)
            return
        if why == 3:
            ac[a, AC.wake_at] = now
            return
        s[S.kupdate_due] = 0
    ac[a, AC.state] = STATE.SLEEPING
    ac[a, AC.wake_at] = s[S.next_kupdate]


@leaf
def balance_dirty_pages_step(pg, zs, fpfn, rqw, rfree, ac, acp, s, vm, pi, a, now, P, BS, R, Q, QR, ST, EL, EV, PR):
    """One turn of ``balance_dirty_pages()``'s loop; returns True when the writer may go on dirtying."""
    over = s[S.nr_dirty] + s[S.nr_writeback] > pi[I.dirty_thresh]
    if not over:
        s[S.dirty_exceeded] = 0
        if s[S.nr_dirty] > pi[I.background_thresh]:
            wakeup_pdflush(ac, 0, now)
        return True
    s[S.dirty_exceeded] = 1
    chunk = pi[I.ratelimit_pages] + pi[I.ratelimit_pages] // 2  # sync_writeback_pages()
    if s[S.nr_dirty] > 0:
        written, why = write_pages(pg, zs, fpfn, rqw, rfree, ac, acp, s, vm, pi, a,
                                   chunk - ac[a, AC.pages_written], pi[I.bdp_nonblocking] != 0, -1, now, P, BS, R, Q, QR, ST, EL, EV, PR)
        ac[a, AC.pages_written] += written
        if why == 2:
            return False  # asleep in get_request_wait(); the loop resumes here
        if s[S.nr_dirty] + s[S.nr_writeback] <= pi[I.dirty_thresh] or ac[a, AC.pages_written] >= chunk:
            if s[S.nr_dirty] > pi[I.background_thresh]:
                wakeup_pdflush(ac, 0, now)
            return True
    congestion_wait(ac, pi, a, now)
    return False


@leaf
def throttle_vm_writeout(ac, s, pi, a, now):
    """2.6.23: wait while ``NR_WRITEBACK`` exceeds the dirty limit + 10%; True when it must wait."""
    if pi[I.throttle_vm_writeout] == 0:
        return False
    thresh = pi[I.dirty_thresh] + pi[I.dirty_thresh] // 10
    if s[S.nr_writeback] <= thresh:
        return False
    ac[a, AC.throttle] = 1
    congestion_wait(ac, pi, a, now)
    return True


__all__ = ["congestion_wait", "write_pages", "background_writeout_step", "balance_dirty_pages_step",
           "throttle_vm_writeout", "wakeup_pdflush", "F", "MODE"]
