"""The machine's clock: the disk, kswapd, pdflush and the load, each running when its time comes.

:func:`run` sets up the zones (free stacks, LRU lists in fault order) from
the page table ``simulate.py`` fills, then takes the earliest of: the disk
(a media operation ending, or a request completing: ``blk_kernel.end_request``),
CFQ's idle timer, a sample of the counters, or a task's wake-up, until the end
of the run.  On equal times the disk goes first, then the timer, the sample,
the tasks in ``ACTOR`` order, so a run is the same for a given seed.  After a
task's step the block layer hands what it queued to the disk
(``__generic_unplug_device()``).

The load (``ACTOR.LOAD``) allocates ``alloc_batch`` pages every
``alloc_interval_ns``: ``__alloc_pages()`` tries each zone of its zonelist
above ``pages_low``, wakes kswapd, tries above ``pages_min``, then enters
direct reclaim (``try_to_free_pages()``, ``allocstall``); what it allocates
is page cache, dirtied at ``write_pct`` (``balance_dirty_pages_ratelimited()``
every ``ratelimit_pages``, 8 while ``dirty_exceeded``), and it references
its hot set (``mark_page_accessed()``).

Every kernel and leaf of this model is compiled without Numba's reference
counting (``engine.kernel_no_nrt``, ``leaf_no_nrt``): no kernel allocates an
array, and the atomic updates of the counts of the arrays handed on at every
call were three quarters of a compiled run (akpm's test on 64 MB: 2.4 ms
with them, 0.5 ms without).
"""

import numpy as np

from ..cfq.layout import I as BI, NEXT, R_, RS, S_ as BS_, SP_
from ..engine import kernel_module, kernel_no_nrt as kernel, sibling
from .layout import AC, ACTOR, F, I, MODE, NA, NR_RND, NZ, PG, PGF, RQW, S, SMP, STATE, VM, ZN, ZONE

_pa = sibling(__name__, "page_alloc_kernel")
_blk = sibling(__name__, "blk_kernel")
_wb = sibling(__name__, "page_writeback_kernel")
_vm = sibling(__name__, "vmscan_kernel")
_dk = kernel_module(__name__, "kernel_workbook.models.cfq.disk_kernel")
_cfq = kernel_module(__name__, "kernel_workbook.models.cfq.cfq_kernel")
_cfqloop = kernel_module(__name__, "kernel_workbook.models.cfq.event_loop")

NEVER = np.int64(1) << np.int64(62)
WHO_DISK = -2
WHO_SAMPLE = -3
WHO_IDLE_TIMER = -4


@kernel
def setup(pg, lh, zs, fstk, fpfn, s):
    """Free stacks and LRU lists from the page table (a page with an index is page cache)."""
    n = pg.shape[0]
    for z in range(NZ):
        zs[z, ZN.nr_free] = 0
        zs[z, ZN.nr_active] = 0
        zs[z, ZN.nr_inactive] = 0
    for h in range(lh.shape[0]):
        lh[h] = -1
    nd = 0
    for pfn in range(n):
        z = pg[pfn, PG.zone]
        idx = pg[pfn, PG.index]
        if idx < 0:
            pg[pfn, PG.flags] = 0
            fstk[zs[z, ZN.start] + zs[z, ZN.nr_free]] = pfn
            zs[z, ZN.nr_free] += 1
    # the LRU in fault order: lowest index first, so the oldest page is at the tail (the page cache's indexes
    # are 0..next_index-1: fpfn beyond them is room for the run's allocations, still empty)
    for idx in range(s[S.next_index]):
        pfn = fpfn[idx]
        if pfn < 0:
            continue
        f = pg[pfn, PG.flags]
        _pa.lru_add(pg, lh, zs, pfn, (f & PGF.PG_active) != 0, False)
        if (f & PGF.PG_dirty) != 0:
            zs[pg[pfn, PG.zone], ZN.nr_dirty] += 1
            nd += 1
    s[S.nr_dirty] = nd


@kernel
def audit(pg, zs, rqw, ac, s, pi, P, BS, R):
    """0 when the state is consistent; else a code naming what is wrong."""
    tot = 0
    for z in range(NZ):
        if zs[z, ZN.nr_free] + zs[z, ZN.nr_active] + zs[z, ZN.nr_inactive] != zs[z, ZN.present]:
            return 10 + z  # pages conserved per zone
        if zs[z, ZN.nr_free] < 0 or zs[z, ZN.nr_dirty] < 0 or zs[z, ZN.nr_writeback] < 0:
            return 20 + z
        tot += zs[z, ZN.present]
    if tot != pg.shape[0]:
        return 30
    if BS[BS_.rl_count_async] > 3 * P[BI.nr_requests] // 2 or BS[BS_.rl_count_async] < 0 or s[S.rfree_n] <= 0:
        return 40  # the request list within 3/2 of nr_requests (batching), and a request row always free
    inq = 0
    nreq = 0
    for k in range(R.shape[0]):
        st = R[k, R_.state]
        if st == RS.elevator or st == RS.device:
            inq += rqw[k, RQW.npages]
            nreq += 1
        elif rqw[k, RQW.npages] != 0:
            return 51  # a finished request still holding pages
    if nreq != BS[BS_.rl_count_async]:
        return 41  # every allocated request is in the elevator or the device
    for a in range(NA):
        inq += ac[a, AC.pend_n]
    if inq != s[S.nr_writeback]:
        return 50  # every page under writeback is in exactly one request (or held by a sleeper)
    return s[S.audit_fail]


@kernel
def wakeup_kswapd(ac, vm, now):
    a = ACTOR.KSWAPD
    if ac[a, AC.state] == STATE.SLEEPING:
        vm[VM.pageoutrun] += 1
        _vm.restart_balance_pgdat(ac)
        ac[a, AC.state] = STATE.RUNNING
        ac[a, AC.wake_at] = now


@kernel
def pick_zone(zs, top, which):
    """The first zone of the zonelist (``top`` down to DMA) above its ``which`` watermark, or -1."""
    for z in range(top, -1, -1):
        if zs[z, ZN.present] == 0:
            continue
        if _pa.zone_watermark_ok(zs, z, zs[z, which]):
            return z
    return -1


@kernel
def load_allocate(pg, lh, zs, fstk, fpfn, ac, s, vm, pi, rnd, now):
    """The load's batch: allocate until done, until reclaim is needed, or until balance_dirty_pages."""
    a = ACTOR.LOAD
    if ac[a, AC.need] == 0:
        if now < ac[a, AC.next_batch]:
            ac[a, AC.wake_at] = ac[a, AC.next_batch]
            return
        ac[a, AC.need] = pi[I.alloc_batch]
        ac[a, AC.next_batch] = now + pi[I.alloc_interval_ns]
        n = pg.shape[0]
        for _ in range(pi[I.refs_per_batch]):  # the hot set is referenced
            r = rnd[s[S.rnd_i] % NR_RND]
            s[S.rnd_i] += 1
            pfn = int(r * n)
            if pfn % 100 < pi[I.hot_pct] and pg[pfn, PG.index] >= 0:
                _pa.mark_page_accessed(pg, lh, zs, VM.pgactivate, vm, pfn)
    while ac[a, AC.need] > 0:
        r = rnd[s[S.rnd_i] % NR_RND]
        s[S.rnd_i] += 1
        top = ZONE.ZONE_LOW if r * 100000.0 < pi[I.lowmem_pct_milli] else ZONE.ZONE_HIGH
        while top > 0 and zs[top, ZN.present] == 0:
            top -= 1
        z = pick_zone(zs, top, ZN.pages_low)
        if z < 0:
            wakeup_kswapd(ac, vm, now)
            z = pick_zone(zs, top, ZN.pages_min)
        if z < 0:  # __alloc_pages(): direct reclaim
            vm[VM.allocstall] += 1
            ac[a, AC.mode] = MODE.TRY_TO_FREE_PAGES
            ac[a, AC.priority] = 12
            ac[a, AC.zone] = -1
            ac[a, AC.zonelist] = top
            ac[a, AC.total_scanned] = 0
            ac[a, AC.nr_reclaimed] = 0
            ac[a, AC.may_writepage] = 1
            ac[a, AC.wake_at] = now
            return
        pfn = _pa.rmqueue(zs, fstk, z)
        idx = s[S.next_index]
        s[S.next_index] = idx + 1
        fpfn[idx] = pfn
        pg[pfn, PG.index] = idx
        pg[pfn, PG.flags] = PGF.PG_file
        _pa.lru_add(pg, lh, zs, pfn, False, False)  # add_to_page_cache_lru()
        ac[a, AC.need] -= 1
        s[S.alloc_done] += 1
        r2 = rnd[s[S.rnd_i] % NR_RND]
        s[S.rnd_i] += 1
        if r2 * 100000.0 < pi[I.write_pct_milli]:
            pg[pfn, PG.flags] |= PGF.PG_dirty  # set_page_dirty()
            pg[pfn, PG.dirtied_ms] = now // 1000000
            zs[z, ZN.nr_dirty] += 1
            s[S.nr_dirty] += 1
            ac[a, AC.ratelimit_count] += 1
            limit = 8 if s[S.dirty_exceeded] != 0 else pi[I.ratelimit_pages]
            if ac[a, AC.ratelimit_count] >= limit:  # balance_dirty_pages_ratelimited()
                ac[a, AC.ratelimit_count] = 0
                ac[a, AC.pages_written] = 0
                ac[a, AC.mode] = MODE.BALANCE_DIRTY_PAGES
                ac[a, AC.wake_at] = now
                return
    ac[a, AC.wake_at] = max(now, ac[a, AC.next_batch])


@kernel
def run_actor(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, pf, rnd, tmp, a, now,
              P, BS, R, Q, QR, ST, EL, EV, PR):
    if ac[a, AC.state] == STATE.CONGESTION_WAIT:
        ac[a, AC.cw_ns] += now - ac[a, AC.since]
        ac[a, AC.state] = STATE.RUNNING
        if ac[a, AC.throttle] != 0:  # throttle_vm_writeout()'s loop: check again
            ac[a, AC.throttle] = 0
            if _wb.throttle_vm_writeout(ac, s, pi, a, now):
                return
    if ac[a, AC.state] == STATE.SLEEPING and a != ACTOR.PDFLUSH:
        return
    if a == ACTOR.PDFLUSH:
        ac[a, AC.state] = STATE.RUNNING
        _wb.background_writeout_step(pg, zs, fpfn, rqw, rfree, ac, acp, s, vm, pi, now, P, BS, R, Q, QR, ST, EL, EV, PR)
        return
    cost = 0
    if a == ACTOR.KSWAPD:
        cost = _vm.balance_pgdat_step(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, pf, tmp, now,
                                      P, BS, R, Q, QR, ST, EL, EV, PR)
    else:
        m = ac[a, AC.mode]
        if m == MODE.TRY_TO_FREE_PAGES:
            cost, res = _vm.try_to_free_pages_step(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, pf,
                                                   tmp, a, now, P, BS, R, Q, QR, ST, EL, EV, PR)
            if res != 0:
                ac[a, AC.mode] = MODE.ALLOCATE
                if res < 0:  # out of memory: the model counts the allocations it drops
                    s[S.alloc_fail] += ac[a, AC.need]
                    ac[a, AC.need] = 0
        elif m == MODE.BALANCE_DIRTY_PAGES:
            if _wb.balance_dirty_pages_step(pg, zs, fpfn, rqw, rfree, ac, acp, s, vm, pi, a, now, P, BS, R, Q, QR, ST, EL, EV, PR):
                ac[a, AC.mode] = MODE.ALLOCATE
                ac[a, AC.wake_at] = now
            return
        else:
            load_allocate(pg, lh, zs, fstk, fpfn, ac, s, vm, pi, rnd, now)
            return
    ac[a, AC.cpu_ns] += cost
    st = ac[a, AC.state]
    if st == STATE.RUNNING:
        if ac[a, AC.wake_at] <= now or a == ACTOR.LOAD:
            ac[a, AC.wake_at] = now + cost
        else:
            ac[a, AC.wake_at] = max(ac[a, AC.wake_at], now + cost)
    elif st == STATE.REQUEST_WAIT:
        ac[a, AC.since] = now + cost  # asleep once its CPU time is spent


@kernel
def sample(zs, rqw, ac, s, smp, qs, vms, vm, now, BS, R, SP):
    k = s[S.sample_n]
    if k >= smp.shape[0]:
        return
    smp[k, SMP.t_ns] = now
    smp[k, SMP.kswapd_cpu_ns] = ac[ACTOR.KSWAPD, AC.cpu_ns]
    for z in range(NZ):
        smp[k, SMP.nr_free + z] = zs[z, ZN.nr_free]
        smp[k, SMP.nr_dirty + z] = zs[z, ZN.nr_dirty]
        smp[k, SMP.nr_writeback + z] = zs[z, ZN.nr_writeback]
    smp[k, SMP.q_count] = BS[BS_.rl_count_async]
    smp[k, SMP.q_congested] = BS[BS_.rl_congested_async]
    smp[k, SMP.load_cw_ns] = ac[ACTOR.LOAD, AC.cw_ns]
    smp[k, SMP.kswapd_cw_ns] = ac[ACTOR.KSWAPD, AC.cw_ns]
    smp[k, SMP.kswapd_rqw_ns] = ac[ACTOR.KSWAPD, AC.rqw_ns]
    busy = 0
    for sp in range(SP.shape[0]):
        busy += SP[sp, SP_.busy_ns]
    smp[k, SMP.disk_busy_ns] = busy
    for r in range(R.shape[0]):  # who holds the queue's requests: owner x zone of the first page
        st = R[r, R_.state]
        if st == RS.elevator or st == RS.device:
            qs[k, rqw[r, RQW.owner] * NZ + rqw[r, RQW.zone]] += 1
    for v in range(vms.shape[1]):
        vms[k, v] = vm[v]
    s[S.sample_n] = k + 1


@kernel
def run(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, pf, rnd, tmp, smp, qs, vms,
        P, BS, R, Q, QR, ST, EL, EV, PR, SP, RA, WC, WW, DC, SEEK, stop):
    """The whole run; returns the number of events processed (-1 if ``stop[0]`` was set by another thread
    part-way: an explorer's run ahead the person no longer needs, engine.stop_flag)."""
    setup(pg, lh, zs, fstk, fpfn, s)
    _cfqloop.init_state(P, BS, Q, PR)
    BS[BS_.last_merge] = -1
    BS[BS_.dl_last_sector] = -1
    s[S.end] = pi[I.end_ns]
    s[S.next_kupdate] = pi[I.dirty_writeback_centisecs] * 1000000
    for a in range(NA):
        ac[a, AC.state] = STATE.RUNNING
        ac[a, AC.wake_at] = 0
    ac[ACTOR.KSWAPD, AC.state] = STATE.SLEEPING
    ac[ACTOR.KSWAPD, AC.mode] = MODE.IDLE
    ac[ACTOR.KSWAPD, AC.wake_at] = NEVER
    ac[ACTOR.LOAD, AC.mode] = MODE.ALLOCATE
    ac[ACTOR.PDFLUSH, AC.mode] = MODE.BACKGROUND_WRITEOUT
    events = 0
    end = pi[I.end_ns]
    while True:
        if stop[0] != 0:
            return -1
        t = NEVER
        who = -1
        td, kind, idx = _dk.dev_next_event(P, BS, R, SP, DC)
        if td >= 0:
            t = td
            who = WHO_DISK
        tt = BS[BS_.idle_timer]
        if tt >= 0 and tt < t:
            t = tt
            who = WHO_IDLE_TIMER
        if s[S.next_sample] < t:
            t = s[S.next_sample]
            who = WHO_SAMPLE
        for a in range(NA):
            st = ac[a, AC.state]
            if st == STATE.RUNNING or st == STATE.CONGESTION_WAIT or (st == STATE.SLEEPING and a == ACTOR.PDFLUSH):
                if ac[a, AC.wake_at] < t:
                    t = ac[a, AC.wake_at]
                    who = a
        if t > end:
            break
        now = t
        s[S.now] = now
        BS[BS_.now] = now
        events += 1
        if who == WHO_DISK:
            if kind == NEXT.spindle_op_end:
                _dk.spin_op_end(P, BS, R, SP, RA, WC, WW, DC, SEEK, idx, now)
            else:
                _blk.end_request(pg, lh, zs, rqw, rfree, ac, acp, s, vm, pi, idx, now,
                                 P, BS, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK, PR)
        elif who == WHO_IDLE_TIMER:
            if _cfq.cfq_idle_slice_timer(P, BS, Q, ST, EV):
                _blk.run_queue(P, BS, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)
        elif who == WHO_SAMPLE:
            sample(zs, rqw, ac, s, smp, qs, vms, vm, now, BS, R, SP)
            s[S.next_sample] += pi[I.sample_ns]
        else:
            run_actor(pg, lh, zs, fstk, fpfn, rqw, rfree, ac, acp, s, vm, pi, pf, rnd, tmp, who, now, P, BS, R, Q, QR, ST, EL, EV, PR)
            _blk.run_queue(P, BS, R, Q, QR, ST, EL, EV, SP, RA, WC, WW, DC, SEEK)
        if pi[I.audit] != 0 and s[S.audit_fail] == 0:
            r = audit(pg, zs, rqw, ac, s, pi, P, BS, R)
            if r != 0:
                s[S.audit_fail] = r
                break
    s[S.now] = end
    return events
