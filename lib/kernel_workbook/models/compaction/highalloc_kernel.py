"""The stress-highalloc run: boot, the build load, the test's passes, kswapd and every compactor, tick by tick.

:func:`run` is the whole simulation over pre-allocated arrays and pre-drawn
uniforms; it draws nothing itself, so the seed fixes the run.  Each tick
(``I.tick_ns``):

1. the build load (while the builds run): compile processes start, fault
   their anonymous memory in over their life and exit (their page tables and
   stack are unmovable kernel pages); the builds read files into the page
   cache (``pgpgin``) and write object files (dirty page cache), grow the
   dentry/inode slab and a little unmovable kernel memory; re-read pages are
   marked referenced; THP faults start (``GFP_TRANSHUGE``);
2. the flusher writes dirty pages back (``dirty_expire_centisecs``,
   ``dirty_background_ratio``);
3. the test starts its next attempt when its time comes (one every
   ``I.test_delay_ns``, a pass of ``I.test_count`` attempts);
4. every task with work -- kswapd, the test, the THP faults -- gets the CPU
   share the runnable tasks leave it and runs in turns, one step each (a
   pass of reclaim, a turn of compaction), so that compactors interleave;
5. finished allocations are booked; a pass ends by freeing the test's pages;
   after pass 2 the builds are killed, the system synced and the caches
   dropped, then the test runs once more at rest;
6. every ``I.sample_every`` ticks the buddy lists, pagetypeinfo, pageblock
   types and the vmstat counters are sampled.
"""

from ..engine import sibling, kernel_no_nrt as kernel, leaf_no_nrt as leaf
from .layout import (AC, ACC, ACTOR, ATT, AUDIT, F, I, KIND, LRU, MAX_ORDER, MT, NF_HEADS, NR_MT,
                     PAGEBLOCK_NR_PAGES, PAGEBLOCK_ORDER, PG, PGF, PHASE, PR, RUN, SAMPLE, STEP, TR, VM, Z)

_zk = sibling(__name__, "zone_kernel")
_pk = sibling(__name__, "pages_kernel")
_vk = sibling(__name__, "vmscan_kernel")
_sk = sibling(__name__, "slowpath_kernel")
fl_add = _zk.fl_add
move_freepages_block = _zk.move_freepages_block
get_page_from_freelist = _zk.get_page_from_freelist
get_page_from_freelist_cold = _zk.get_page_from_freelist_cold
nr_free_order = _zk.nr_free_order
next_u = _zk.next_u
page_new = _pk.page_new
page_new_cold = _pk.page_new_cold
release_owner = _pk.release_owner
page_release = _pk.page_release
page_release_cold = _pk.page_release_cold
wakeup_kswapd = _vk.wakeup_kswapd
try_to_free_pages_now = _vk.try_to_free_pages_now
kswapd_step = _vk.kswapd_step
writeback = _vk.writeback
drop_caches = _vk.drop_caches
alloc_begin = _sk.alloc_begin
alloc_step = _sk.alloc_step


@kernel
def init_zone(pg, fl, nf, pb, z, pi):
    """Boot: every page free in MAX_ORDER blocks, every pageblock MOVABLE, the first ones MIGRATE_RESERVE
    (``setup_zone_migrate_reserve()``: ``min_wmark`` rounded up to pageblocks, at most 2)."""
    n = pi[I.nr_pages]
    for p in range(n):
        pg[p, PG.kind] = KIND.FREE
        pg[p, PG.order] = -1
        pg[p, PG.owner] = -1
        pg[p, PG.flags] = 0
        for r in (PG.fl_next, PG.fl_prev, PG.lru_next, PG.lru_prev, PG.own_next, PG.own_prev):
            pg[p, r] = -1
    for b in range(pi[I.nr_pageblocks]):
        pb[b] = MT.MIGRATE_MOVABLE
    for i in range(fl.shape[0]):
        fl[i] = -1
    for i in range(nf.shape[0]):
        nf[i] = 0
    step = 1 << (MAX_ORDER - 1)
    for p in range(0, n, step):
        fl_add(pg, fl, nf, p, MAX_ORDER - 1, MT.MIGRATE_MOVABLE, True)
    z[Z.nr_free] = n
    for b in range(pi[I.reserve_blocks]):
        pb[b] = MT.MIGRATE_RESERVE
        move_freepages_block(pg, fl, nf, pi, b * PAGEBLOCK_NR_PAGES, MT.MIGRATE_RESERVE)
    z[Z.wmark_min] = pi[I.wmark_min]
    z[Z.wmark_low] = pi[I.wmark_low]
    z[Z.wmark_high] = pi[I.wmark_high]
    z[Z.balance_gap] = pi[I.balance_gap]
    z[Z.compact_cached_free_pfn] = n & ~(PAGEBLOCK_NR_PAGES - 1)
    z[Z.compact_order_failed] = MAX_ORDER  # as a zone starts
    z[Z.nr_cpus_now] = pi[I.nr_cpus]


@kernel
def alloc_small_slowpath(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, mt):
    """What an order-0 allocation does when the low watermark refuses it: wake kswapd, try the min
    watermark, reclaim directly (at most four times).  Returns the pfn taken off the lists, or -1."""
    wakeup_kswapd(nf, z, 0)
    # int(): a value, not a literal, so that every caller shares one compiled specialization of the callee
    pfn = get_page_from_freelist_cold(pg, fl, nf, pb, z, vm, pi, int(0), mt, z[Z.wmark_min])
    tries = 0
    while pfn < 0 and tries < 4:
        try_to_free_pages_now(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, ACTOR.LOAD, 0)
        pfn = get_page_from_freelist_cold(pg, fl, nf, pb, z, vm, pi, int(0), mt, z[Z.wmark_min])
        tries += 1
    return pfn


@leaf
def alloc_small(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, kind, mt, owner, flags):
    """An order-0 allocation of the build load (or boot): fast path, kswapd, the min watermark, direct
    reclaim.  Returns the pfn, or -1 if memory could not be found (the page is not allocated).

    A leaf, with the slow path a call: the build load makes most of a run's allocations, and a compiled
    call passing these twelve arrays cost more than the fast path it ran.  Where allocations are rare,
    :func:`alloc_small_cold` is called instead (every inlined copy costs compile time)."""
    pfn = get_page_from_freelist(pg, fl, nf, pb, z, vm, pi, 0, mt, z[Z.wmark_low])
    if pfn < 0:
        pfn = alloc_small_slowpath(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, mt)
        if pfn < 0:
            return -1
    page_new(pg, lh, oh, z, pfn, 0, kind, owner, flags, z[Z.tick])
    return pfn


@kernel
def alloc_small_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, kind, mt, owner, flags):
    """:func:`alloc_small` compiled once, called for the rare allocations (kernel memory, slab, THP fallback)."""
    return alloc_small(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, kind, mt, owner, flags)


@kernel
def boot(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, tmp):
    """What the kernel holds after boot: unmovable pages, allocated one by one as early boot does."""
    for _ in range(pi[I.boot_unmovable]):
        alloc_small_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, KIND.UNMOVABLE, MT.MIGRATE_UNMOVABLE,
                         int(-1), 0)
    # the tests before (kernbench, vmr-stream, sysbench) used the memory and deleted most of what they wrote:
    # fill the zone with page cache and its dentries and inodes, then free all but prefill_pages of it in an
    # order unrelated to the pages' places (their LRU order, shuffled) -- memory that has aged: free, but in
    # small blocks scattered over the zone, beside the cache that is left
    slab = 0.0
    while z[Z.nr_free] > z[Z.wmark_high] + z[Z.balance_gap]:
        alloc_small(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, KIND.FILE, MT.MIGRATE_MOVABLE, -1, 0)
        slab += pf[F.slab_per_file]
        while slab >= 1.0:
            slab -= 1.0
            alloc_small_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, KIND.RECLAIMABLE, MT.MIGRATE_RECLAIMABLE,
                             int(-1), 0)
    shuffle_lru(pg, lh, z, rnd, tmp, LRU.LRU_FILE)
    shuffle_lru(pg, lh, z, rnd, tmp, LRU.SLAB_RECLAIMABLE)
    keep_slab = z[Z.nr_slab] * pi[I.prefill_pages] // max(z[Z.nr_file], 1)
    while z[Z.nr_file] > pi[I.prefill_pages] and lh[LRU.LRU_FILE] >= 0:
        page_release_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, lh[LRU.LRU_FILE])
    while z[Z.nr_slab] > keep_slab and lh[LRU.SLAB_RECLAIMABLE] >= 0:
        page_release_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, lh[LRU.SLAB_RECLAIMABLE])
    z[Z.kswapd_awake] = 0
    z[Z.kswapd_order] = 0


@kernel
def shuffle_lru(pg, lh, z, rnd, tmp, lst):
    """Put list ``lst`` in a random order: the LRU order of a cache left by earlier work is not the
    physical order it was allocated in (many CPUs, frees and reallocations in between)."""
    n = 0
    h = lh[lst]
    while lh[lst] >= 0:
        p = lh[lst]
        tmp[n] = p
        n += 1
        _zk.ll_del(pg, PG.lru_next, PG.lru_prev, lh, lst, p)
    for i in range(n - 1, 0, -1):
        j = int(next_u(z, rnd) * (i + 1))
        if j > i:
            j = i
        t = tmp[i]
        tmp[i] = tmp[j]
        tmp[j] = t
    for i in range(n):
        _zk.ll_add(pg, PG.lru_next, PG.lru_prev, lh, lst, tmp[i], False)
    _ = h


@leaf
def take(acc, k, rate):
    """Whole events due this tick at ``rate`` per tick (the fraction carries over)."""
    acc[k] += rate
    n = int(acc[k])
    acc[k] -= n
    return n


@kernel
def spawn_proc(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, pr):
    for p in range(pi[I.procs_max]):
        if pr[PR.alive, p] == 0:
            life = pi[I.proc_life_ticks]
            life = int(life * (0.5 + next_u(z, rnd)))
            if life < 1:
                life = 1
            pr[PR.alive, p] = 1
            pr[PR.start_tick, p] = z[Z.tick]
            pr[PR.end_tick, p] = z[Z.tick] + life
            pr[PR.anon_target, p] = pi[I.proc_anon_pages]
            pr[PR.anon_done, p] = 0
            pr[PR.anon_next_tick, p] = z[Z.tick]
            # page tables and the kernel stack: this zone's share, in thousandths of a page per process
            kp = pi[I.proc_kernel_pages]
            nk = kp // 1000
            if next_u(z, rnd) * 1000 < kp % 1000:
                nk += 1
            for _ in range(nk):
                alloc_small_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, KIND.UNMOVABLE, MT.MIGRATE_UNMOVABLE,
                                 p, 0)
            return p
    return -1


@leaf
def load_tick(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, pr, acc):
    """One tick of the kernel builds but their new page cache (:func:`file_tick`); returns the refaults due."""
    now = z[Z.now]
    for _ in range(take(acc, ACC.spawn, pf[F.proc_spawn_per_tick])):
        spawn_proc(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, pr)
    tick = z[Z.tick]
    for p in range(pi[I.procs_max]):
        if pr[PR.alive, p] == 0:
            continue
        if tick >= pr[PR.end_tick, p]:
            release_owner(pg, fl, nf, pb, lh, oh, z, vm, pi, p)
            pr[PR.alive, p] = 0
            continue
        if tick < pr[PR.anon_next_tick, p]:
            continue  # no page due yet (a process faults its anon pages in evenly over its life)
        life = pr[PR.end_tick, p] - pr[PR.start_tick, p]
        target = pr[PR.anon_target, p]
        due = target * (tick - pr[PR.start_tick, p] + 1) // life
        while pr[PR.anon_done, p] < due:
            if alloc_small(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, KIND.ANON, MT.MIGRATE_MOVABLE, p, 0) < 0:
                break
            pr[PR.anon_done, p] += 1
        # the first tick whose due count passes anon_done: a failed fault leaves it at or before this tick
        if target > 0:
            pr[PR.anon_next_tick, p] = pr[PR.start_tick, p] - 1 + -(-(pr[PR.anon_done, p] + 1) * life // target)
        else:
            pr[PR.anon_next_tick, p] = pr[PR.end_tick, p]
    for _ in range(take(acc, ACC.unmovable, pf[F.unmovable_per_tick])):
        alloc_small_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, KIND.UNMOVABLE, MT.MIGRATE_UNMOVABLE,
                         int(-1), 0)
    # the builds' re-reads (headers, sources make reads again): a page still cached is referenced
    # (mark_page_accessed()); one reclaim evicted is read from disk again -- a refault.  A re-read falls on any
    # page of the trees, cached or evicted, alike
    n = pi[I.nr_pages]
    refaults = 0
    for _ in range(take(acc, ACC.hot, pf[F.hot_per_tick])):
        e = z[Z.tree_evicted]
        if e > 0 and next_u(z, rnd) * (z[Z.nr_tree] + e) < e:
            z[Z.tree_evicted] = e - 1
            refaults += 1
            continue
        p = int(next_u(z, rnd) * n)
        if p < n and pg[p, PG.kind] == KIND.FILE and (pg[p, PG.flags] & PGF.lru) != 0:
            pg[p, PG.flags] |= PGF.referenced
    _ = now
    return refaults


@leaf
def file_tick(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, acc, n_read, n_new_read, n_write, n_extra, extra_flags,
              extra_slab):
    """This tick's new page cache, three streams through one allocation site (a leaf: inlined once):

    * ``n_read`` pages the builds read (``pgpgin``), the first ``n_new_read`` of them new files (the rest
      refaults), each new file with its share of dentries and inodes;
    * ``n_write`` pages the builds write (object files: dirty, on the dirty list);
    * ``n_extra`` pages of the script itself with ``extra_flags``: the trees it copies (dirty, with their
      dentries and inodes if ``extra_slab``), the large file ``dd`` writes (dirty) or ``cat`` reads back
      (``pgpgin``).

    Returns how many of the script's pages were allocated."""
    dirty_list = pi[I.procs_max] + 1
    done = 0
    for stream in range(3):
        if stream == 0:
            cnt, flags, nslab, pgin = n_read, PGF.tree, n_new_read, True
        elif stream == 1:
            cnt, flags, nslab, pgin = n_write, PGF.dirty | PGF.tree, n_write, False
        else:
            cnt, flags, nslab, pgin = n_extra, extra_flags, n_extra if extra_slab else 0, \
                (extra_flags & PGF.dirty) == 0
        owner = dirty_list if flags & PGF.dirty else -1
        for i in range(cnt):
            if alloc_small(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, KIND.FILE, MT.MIGRATE_MOVABLE, owner,
                           flags) >= 0:
                if pgin:
                    vm[VM.pgpgin] += 4
                if stream == 2:
                    done += 1
            if i < nslab:
                for _ in range(take(acc, ACC.slab, pf[F.slab_per_file])):
                    alloc_small_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, KIND.RECLAIMABLE,
                                     MT.MIGRATE_RECLAIMABLE, int(-1), 0)
    return done


@kernel
def free_flagged(pg, fl, nf, pb, lh, oh, z, vm, pi, mask):
    """``rm -rf``: free every page-cache page carrying one of the ``mask`` flags (truncation drops dirty and
    written-back pages alike; a page a compactor holds isolated stays until it is put back)."""
    for p in range(pi[I.nr_pages]):
        f = pg[p, PG.flags]
        if pg[p, PG.kind] == KIND.FILE and (f & PGF.head) != 0 and (f & mask) != 0 and (f & PGF.isolated) == 0:
            pg[p, PG.flags] = f & ~PGF.writeback
            page_release_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, p)


@kernel
def kill_builds(pg, fl, nf, pb, lh, oh, z, vm, pi, pr):
    for p in range(pi[I.procs_max]):
        if pr[PR.alive, p]:
            release_owner(pg, fl, nf, pb, lh, oh, z, vm, pi, p)
            pr[PR.alive, p] = 0


@kernel
def random_live_proc(z, rnd, pi, pr):
    n = 0
    for p in range(pi[I.procs_max]):
        n += pr[PR.alive, p]
    if n == 0:
        return -1
    k = int(next_u(z, rnd) * n)
    for p in range(pi[I.procs_max]):
        if pr[PR.alive, p]:
            if k == 0:
                return p
            k -= 1
    return -1


@kernel
def thp_done(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, pr, a):
    """A THP fault ended: the huge page is mapped, or the fault falls back to small pages."""
    p = ac[AC.owner, a]
    pfn = ac[AC.page, a]
    alive = p >= 0 and pr[PR.alive, p] != 0
    if pfn >= 0:
        vm[VM.thp_fault_alloc] += 1
        page_new_cold(pg, lh, oh, z, pfn, int(PAGEBLOCK_ORDER), KIND.HUGE, p if alive else -1, 0, z[Z.tick])
        if not alive:
            page_release_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, pfn)
    else:
        vm[VM.thp_fault_fallback] += 1
        if alive:
            for _ in range(PAGEBLOCK_NR_PAGES):
                if alloc_small_cold(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, KIND.ANON, MT.MIGRATE_MOVABLE, p,
                                    0) < 0:
                    break
    ac[AC.step, a] = STEP.IDLE


@kernel
def record_trace(tr, z, pi, ac, a):
    k = z[Z.trace_n]
    if k >= pi[I.trace_max]:
        return
    tr[TR.t_ns, k] = z[Z.now]
    tr[TR.actor, k] = a
    tr[TR.migrate_pfn, k] = ac[AC.migrate_pfn, a]
    tr[TR.free_pfn, k] = ac[AC.free_pfn, a]
    tr[TR.cached_pfn, k] = z[Z.compact_cached_free_pfn]
    tr[TR.sync, k] = ac[AC.sync, a]
    tr[TR.wrapped, k] = ac[AC.wrapped, a]
    z[Z.trace_n] = k + 1


@kernel
def is_compacting(ac, a):
    s = ac[AC.step, a]
    return s == STEP.ASYNC_COMPACT or s == STEP.SYNC_COMPACT or s == STEP.KSWAPD_COMPACT


@leaf
def run_tasks(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, cm, cf, tr, budget):
    """Every task with work runs in turns, one step each, until its CPU for this tick is used."""
    na = pi[I.nr_actors]
    for a in range(na):
        if a == ACTOR.LOAD:
            continue
        if ac[AC.budget_ns, a] < 0:
            ac[AC.budget_ns, a] += budget  # a step that overran last tick is paid for now
        else:
            ac[AC.budget_ns, a] = budget
    busy = True
    while busy:
        busy = False
        for a in range(na):
            if a == ACTOR.LOAD or ac[AC.budget_ns, a] <= 0:
                continue
            if a == ACTOR.KSWAPD:
                if z[Z.kswapd_awake] == 0 or z[Z.now] < z[Z.kswapd_nap_until]:
                    continue
                z[Z.kswapd_steps] += 1
                if kswapd_step(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, cm, cf):
                    busy = True
                    if is_compacting(ac, a):
                        record_trace(tr, z, pi, ac, a)
                continue
            s = ac[AC.step, a]
            if s == STEP.IDLE or s == STEP.DONE:
                continue
            ac[AC.budget_ns, a] -= 1  # every step costs something, so the loop ends
            z[Z.task_steps] += 1
            alloc_step(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, cm, cf, a)
            if is_compacting(ac, a):
                record_trace(tr, z, pi, ac, a)
            busy = True


@kernel
def sample(pg, nf, pb, z, vm, pi, bud, ptf, ptb, vms, smp, pbs):
    k = z[Z.sample_n]
    if k >= pi[I.nr_samples]:
        return
    for o in range(MAX_ORDER):
        bud[k, o] = nr_free_order(nf, o)
        for mt in range(NR_MT):
            ptf[k, mt, o] = nf[mt * MAX_ORDER + o]
    for mt in range(NR_MT):
        ptb[k, mt] = 0
    for b in range(pi[I.nr_pageblocks]):
        ptb[k, pb[b]] += 1
        pbs[k, b] = pb[b]
    for v in range(vm.shape[0]):
        vms[k, v] = vm[v]
    smp[k, SAMPLE.t_ns] = z[Z.now]
    smp[k, SAMPLE.phase] = z[Z.phase]
    smp[k, SAMPLE.nr_free] = z[Z.nr_free]
    smp[k, SAMPLE.nr_file] = z[Z.nr_file]
    smp[k, SAMPLE.nr_anon] = z[Z.nr_anon]
    smp[k, SAMPLE.nr_slab] = z[Z.nr_slab]
    smp[k, SAMPLE.nr_unmovable] = z[Z.nr_unmovable]
    smp[k, SAMPLE.nr_huge] = z[Z.nr_huge]
    smp[k, SAMPLE.nr_dirty] = z[Z.nr_dirty]
    smp[k, SAMPLE.nr_cc_free] = z[Z.nr_cc_free]
    z[Z.sample_n] = k + 1
    _ = pg


@leaf
def test_tick(pg, fl, nf, pb, lh, oh, z, vm, pi, ac, att):
    """Start the test's next attempt when it is due (``msdelay`` after the previous one started)."""
    a = ACTOR.TEST
    s = ac[AC.step, a]
    if s != STEP.IDLE:
        return
    if z[Z.test_done] >= z[Z.test_count] or z[Z.now] < z[Z.test_next_ns]:
        return
    z[Z.test_next_ns] += pi[I.test_delay_ns]
    if z[Z.test_next_ns] < z[Z.now]:
        z[Z.test_next_ns] = z[Z.now]
    alloc_begin(pg, fl, nf, pb, z, vm, pi, ac, a, pi[I.highalloc_order], MT.MIGRATE_MOVABLE, pi[I.test_no_kswapd],
                pi[I.test_noretry], pi[I.test_repeat])


@kernel
def test_done(pg, lh, oh, z, pi, ac, att):
    """Book a finished attempt; a page the test got is pinned until the end of the pass."""
    a = ACTOR.TEST
    k = z[Z.att_n]
    att[ATT.phase, k] = z[Z.phase]
    att[ATT.start_ns, k] = ac[AC.started_ns, a]
    att[ATT.end_ns, k] = z[Z.now]
    att[ATT.path, k] = ac[AC.result, a]
    att[ATT.cpu_ns, k] = ac[AC.cpu_ns, a]
    pfn = ac[AC.page, a]
    att[ATT.ok, k] = 1 if pfn >= 0 else 0
    if pfn >= 0:
        page_new_cold(pg, lh, oh, z, pfn, ac[AC.order, a], KIND.HUGE, pi[I.procs_max], 0, z[Z.tick])
        z[Z.test_ok] += 1
    z[Z.att_n] = k + 1
    z[Z.test_done] += 1
    ac[AC.step, a] = STEP.IDLE


@kernel
def start_pass(z, pi, phase):
    z[Z.phase] = phase
    z[Z.test_done] = 0
    z[Z.test_ok] = 0
    z[Z.test_count] = pi[I.test_count]
    z[Z.test_next_ns] = z[Z.now]


@kernel
def audit_zone(pg, fl, nf, pb, lh, z, pi, ac, cm):
    """Check the zone (tests turn this on): returns an AUDIT code, AUDIT_OK if all is well."""
    n = pi[I.nr_pages]
    # pages conserved: every page is free, held by someone, or isolated by a compactor
    held = z[Z.nr_free] + z[Z.nr_free_leak] + z[Z.nr_file] + z[Z.nr_anon] + z[Z.nr_slab] + z[Z.nr_unmovable] + \
        z[Z.nr_huge] + z[Z.nr_cc_free] + z[Z.nr_isolated]
    if held != n:
        return AUDIT.AUDIT_CONSERVATION
    # the index of free block heads says what the page table says, pfn by pfn
    for p in range(n):
        if _zk.is_free_head(nf, p) != (pg[p, PG.kind] == KIND.FREE and pg[p, PG.order] >= 0):
            return AUDIT.AUDIT_HEADS
    free = 0
    heads = 0
    p = 0
    while p < n:
        if pg[p, PG.kind] == KIND.FREE:
            o = pg[p, PG.order]
            if o < 0:
                return AUDIT.AUDIT_BLOCK  # a free page that is not inside a listed block
            if p & ((1 << o) - 1) != 0:
                return AUDIT.AUDIT_ALIGNMENT
            for k in range(1, 1 << o):
                if pg[p + k, PG.kind] != KIND.FREE or pg[p + k, PG.order] >= 0:
                    return AUDIT.AUDIT_BLOCK
            if o < MAX_ORDER - 1:
                b = p ^ (1 << o)
                if b < n and pg[b, PG.kind] == KIND.FREE and pg[b, PG.order] == o:
                    return AUDIT.AUDIT_UNMERGED
            free += 1 << o
            heads += 1
            p += 1 << o
        else:
            p += 1
    if free != z[Z.nr_free] + z[Z.nr_free_leak]:
        return AUDIT.AUDIT_FREE_COUNT
    listed = 0
    for i in range(NF_HEADS):
        listed += nf[i]
    if listed != heads:
        return AUDIT.AUDIT_LIST_COUNT
    for lst in range(3):
        c = _pk.count_lists(pg, lh, lst, n)
        want = z[Z.nr_file] if lst == LRU.LRU_FILE else (z[Z.nr_anon] if lst == LRU.LRU_ANON else z[Z.nr_slab])
        if c != want:
            return AUDIT.AUDIT_LRU
    # the scanners: pages isolated to migrate lie below the free scanner; the migrate scanner stops
    # within a pageblock of it
    for a in range(pi[I.nr_actors]):
        s = ac[AC.step, a]
        if s == STEP.ASYNC_COMPACT or s == STEP.SYNC_COMPACT or s == STEP.KSWAPD_COMPACT:
            if ac[AC.migrate_pfn, a] > ac[AC.free_pfn, a] + PAGEBLOCK_NR_PAGES:
                return AUDIT.AUDIT_SCANNERS
            for i in range(ac[AC.nr_migratepages, a]):
                if cm[a, i] >= 0 and cm[a, i] >= ac[AC.free_pfn, a]:
                    return AUDIT.AUDIT_SCANNERS
    _ = fl
    _ = pb
    return AUDIT.AUDIT_OK


@kernel
def rested_watermarks(z, pi):
    """``echo 1024 > /proc/sys/vm/min_free_kbytes`` before the rested pass: ``setup_per_zone_wmarks()`` again."""
    z[Z.wmark_min] = pi[I.wmark_min_rested]
    z[Z.wmark_low] = pi[I.wmark_low_rested]
    z[Z.wmark_high] = pi[I.wmark_high_rested]
    z[Z.balance_gap] = pi[I.balance_gap_rested]


@kernel
def before_rested(pg, fl, nf, pb, lh, oh, z, vm, pi, tick):
    """``rm largefile``; ``echo 3 > /proc/sys/vm/drop_caches`` (the model writes what is still dirty first, as
    the sync of a quiet system would); ``echo 1024 > min_free_kbytes``; then the pause before the rested pass."""
    free_flagged(pg, fl, nf, pb, lh, oh, z, vm, pi, int(PGF.bigfile | PGF.reread))
    writeback(pg, oh, z, vm, pi, True)
    drop_caches(pg, fl, nf, pb, lh, oh, z, vm, pi)
    rested_watermarks(z, pi)
    z[Z.phase] = PHASE.GAP
    z[Z.phase_end_tick] = tick + pi[I.rested_gap_ticks]


@kernel
def script_tick(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, acc, phase, n_read, n_new_read, n_write):
    """This tick's page cache: the builds' (``n_read``, ``n_write``) and the script's own at the disk's speed:
    the trees it copies (SETUP), the file ``dd`` writes (DD), the pages ``cat`` must read back (CAT).  Returns
    True when the script's step of this phase is done."""
    n_extra = 0
    flags = 0
    slab = False
    left = 0
    if phase == PHASE.SETUP or phase == PHASE.DD or phase == PHASE.CAT:
        total = pi[I.setup_pages] if phase == PHASE.SETUP else pi[I.bigfile_pages]
        left = total - z[Z.script_done]
        disk = take(acc, ACC.disk, pf[F.disk_pages_per_tick])
        if phase == PHASE.CAT:
            # cat reads the file from its start.  dd's pages went onto the LRU in file order and reclaim takes the
            # oldest first, so the pages it evicted are the file's first ones: an offset below that count is
            # read from disk (and its page evicts the next-oldest, the sequential re-read's cascade), one above
            # is still cached and costs no disk time (at most 16 disk reads' worth a tick)
            evicted = pi[I.bigfile_pages] - z[Z.nr_bigfile]
            off = z[Z.script_done]
            hits = 0
            while off < total and hits < 16 * disk + 16:
                if off < evicted:
                    if n_extra >= disk:
                        break
                    n_extra += 1
                else:
                    hits += 1
                off += 1
            z[Z.script_done] = off
            flags = PGF.reread
        else:
            n_extra = min(disk, left)
            flags = PGF.dirty | (PGF.tree if phase == PHASE.SETUP else PGF.bigfile)
            slab = phase == PHASE.SETUP
    done = file_tick(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, acc, n_read, n_new_read, n_write, n_extra,
                     flags, slab)
    if phase == PHASE.SETUP or phase == PHASE.DD:
        z[Z.script_done] += n_extra
        _ = done
    if phase == PHASE.SETUP or phase == PHASE.DD or phase == PHASE.CAT:
        return z[Z.script_done] >= (pi[I.setup_pages] if phase == PHASE.SETUP else pi[I.bigfile_pages])
    return False


@kernel
def run(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, cm, cf, pr, acc, att, tr, bud, ptf, ptb, vms, smp, pbs, tmp,
        stop, stages):
    """The stress-highalloc run; returns the number of ticks simulated (0 for the boot alone, -1 if ``stop[0]``
    was set by another thread part-way: an explorer's run ahead the person no longer needs, engine.stop_flag).

    ``stages``: ``RUN.BOOT | RUN.TICKS`` for the whole run; ``RUN.BOOT`` boots the zone and stops, ``RUN.TICKS``
    runs the test on a zone booted before (simulate() keeps booted zones: a tenth of a run, the same for every
    kernel and knob that boot does not read, boot_cache.py)."""
    if stages & RUN.BOOT:
        init_zone(pg, fl, nf, pb, z, pi)
        boot(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, tmp)
    if (stages & RUN.TICKS) == 0:
        return 0
    for a in range(pi[I.nr_actors]):
        ac[AC.step, a] = STEP.IDLE
        ac[AC.page, a] = -1
        ac[AC.owner, a] = -1
    z[Z.phase] = PHASE.SETUP
    z[Z.script_done] = 0
    tick_ns = pi[I.tick_ns]
    last = 0
    for tick in range(pi[I.nr_ticks]):
        if stop[0] != 0:
            return -1
        last = tick
        z[Z.tick] = tick
        z[Z.now] = tick * tick_ns
        phase = z[Z.phase]
        load = phase == PHASE.SETUP or phase == PHASE.WARMUP or phase == PHASE.PASS_1 or phase == PHASE.PASS_2 or \
            phase == PHASE.WAIT
        if phase == PHASE.WARMUP and tick >= z[Z.phase_end_tick]:
            start_pass(z, pi, PHASE.PASS_1)
            phase = PHASE.PASS_1
        # the CPU: the builds' runnable processes and our tasks share nr_cpus
        active = 0
        for a in range(pi[I.nr_actors]):
            if a != ACTOR.LOAD and ac[AC.step, a] != STEP.IDLE and ac[AC.step, a] != STEP.DONE:
                active += 1
        runnable = active + (pi[I.build_procs] if load else 0)
        if runnable < 1:
            runnable = 1
        z[Z.runnable] = runnable
        # sched_slice() (kernel/sched/fair.c): the period of a CPU's runqueue shared by the tasks on it --
        # __sched_period(nr_running) is sysctl_sched_latency, or nr_running * min_granularity past
        # sched_nr_latency -- with the runnable tasks spread over the CPUs
        per_cpu = (runnable + pi[I.nr_cpus] - 1) // pi[I.nr_cpus]
        period = pi[I.sched_latency_ns] * pi[I.sched_factor]
        gran = pi[I.sched_min_granularity_ns] * pi[I.sched_factor]
        if per_cpu * gran > period:
            period = per_cpu * gran
        z[Z.sched_slice_ns] = period // per_cpu
        budget = tick_ns
        if runnable > pi[I.nr_cpus]:
            budget = tick_ns * pi[I.nr_cpus] // runnable
        n_read = 0
        n_new = 0
        n_write = 0
        if load:
            refaults = load_tick(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, pr, acc)
            n_new = take(acc, ACC.file_in, pf[F.file_in_per_tick])
            n_read = n_new + refaults
            n_write = take(acc, ACC.file_out, pf[F.file_out_per_tick])
            for _ in range(take(acc, ACC.thp, pf[F.thp_per_tick])):
                for a in range(ACTOR.THP, pi[I.nr_actors]):
                    if ac[AC.step, a] == STEP.IDLE:
                        ac[AC.owner, a] = random_live_proc(z, rnd, pi, pr)
                        alloc_begin(pg, fl, nf, pb, z, vm, pi, ac, a, int(PAGEBLOCK_ORDER), MT.MIGRATE_MOVABLE,
                                    int(1), int(1), int(0))  # values: the test's call shares the specialization
                        break
        step_done = script_tick(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, acc, phase, n_read, n_new, n_write)
        writeback(pg, oh, z, vm, pi, False)
        if phase == PHASE.PASS_1 or phase == PHASE.PASS_2 or phase == PHASE.RESTED:
            test_tick(pg, fl, nf, pb, lh, oh, z, vm, pi, ac, att)
        if z[Z.kswapd_awake]:
            active += 1
        run_tasks(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, cm, cf, tr, budget)
        for a in range(ACTOR.THP, pi[I.nr_actors]):
            if ac[AC.step, a] == STEP.DONE:
                thp_done(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, pr, a)
        if ac[AC.step, ACTOR.TEST] == STEP.DONE:
            test_done(pg, lh, oh, z, pi, ac, att)
        if tick % pi[I.sample_every] == 0:
            sample(pg, nf, pb, z, vm, pi, bud, ptf, ptb, vms, smp, pbs)
        # the script's steps
        if phase == PHASE.SETUP and step_done:
            z[Z.phase] = PHASE.WARMUP  # the copies are made and the builds started: "Sleeping 5 minutes"
            z[Z.phase_end_tick] = tick + pi[I.warmup_ticks]
        elif (phase == PHASE.PASS_1 or phase == PHASE.PASS_2 or phase == PHASE.RESTED) and \
                z[Z.test_done] >= z[Z.test_count] and ac[AC.step, ACTOR.TEST] == STEP.IDLE:
            sample(pg, nf, pb, z, vm, pi, bud, ptf, ptb, vms, smp, pbs)  # the pass's pages still held
            release_owner(pg, fl, nf, pb, lh, oh, z, vm, pi, pi[I.procs_max])
            if phase == PHASE.PASS_1:
                start_pass(z, pi, PHASE.PASS_2)
                z[Z.test_next_ns] = z[Z.now] + pi[I.pass_gap_ns]  # "sleep 5" between the passes
            elif phase == PHASE.PASS_2:
                z[Z.phase] = PHASE.WAIT  # "sleep 5", then "Waiting ... for 180 seconds": the builds go on
                z[Z.phase_end_tick] = tick + pi[I.wait_ticks]
            else:
                z[Z.phase] = PHASE.END
                break
        elif phase == PHASE.WAIT and tick >= z[Z.phase_end_tick]:
            # killall make cc1 updatedb; rm -rf the trees
            kill_builds(pg, fl, nf, pb, lh, oh, z, vm, pi, pr)
            free_flagged(pg, fl, nf, pb, lh, oh, z, vm, pi, int(PGF.tree))
            z[Z.tree_evicted] = 0
            z[Z.script_done] = 0
            if pi[I.bigfile_pages] > 0:
                z[Z.phase] = PHASE.DD
            else:
                before_rested(pg, fl, nf, pb, lh, oh, z, vm, pi, tick)
        elif phase == PHASE.DD and step_done:
            z[Z.script_done] = 0
            z[Z.phase] = PHASE.CAT
        elif phase == PHASE.CAT and step_done:
            before_rested(pg, fl, nf, pb, lh, oh, z, vm, pi, tick)
        elif phase == PHASE.GAP and tick >= z[Z.phase_end_tick]:
            start_pass(z, pi, PHASE.RESTED)
        if pi[I.audit]:
            bad = audit_zone(pg, fl, nf, pb, lh, z, pi, ac, cm)
            if bad != AUDIT.AUDIT_OK:
                z[Z.audit_fail] = bad
                z[Z.audit_tick] = tick
                break
    sample(pg, nf, pb, z, vm, pi, bud, ptf, ptb, vms, smp, pbs)
    return last + 1
