"""The fair-zone allocator model's event loop: one node, its zones, kswapd, writeback and a page-cache workload.

Plain arrays in, plain arrays out (layout: :mod:`.layout`).  The
functions mirror the kernel's, named after them:

* ``get_page_from_freelist`` / ``alloc_page`` -- the allocation fast path of
  each variant (:func:`fair_mode_of`: none as in 3.0, ``ALLOC_FAIR`` as in
  3.14-3.16-rc1, or as patch 3/4 with ``ZONE_FAIR_DEPLETED`` and
  ``fair_enabled``), the retry after a failed fair pass, then
  ``__alloc_pages_slowpath`` (wake kswapd, allocate at the min watermark,
  direct reclaim);
* ``balance_pass`` -- one priority iteration of ``balance_pgdat`` with
  ``kswapd_shrink_zone``'s balance gap and lowmem reserve, and
  ``kswapd_try_to_sleep``'s short nap (``kswapd_advance``);
* ``shrink_zone`` -- ``shrink_active_list`` when the inactive file list is
  low, then ``shrink_inactive_list`` from the oldest page: clean pages are
  reclaimed (an unmapped page-cache page is reclaimed even if referenced,
  ``PAGEREF_RECLAIM_CLEAN``), dirty and writeback pages are rotated;
* ``mark_page_accessed``, ``zone_dirty_ok`` (every check, or the cached
  limit of patch 4/4), ``balance_dirty_pages`` (writers wait while dirty +
  writeback pages exceed the limit) and a flusher that writes the oldest
  dirty pages back at the device's rate.

Time advances with the workload (ns per page hit, missed or written, from
the phase table); kswapd's passes take ``pages scanned / kswapd speed`` of
simulated time.  The allocator's own CPU cost does not move the clock: it is
counted (``ST.zonelist_scanned``, ``ST.watermark_checks``...) and priced outside,
so that the cost assumptions cannot change what the allocator does.

Resolution: every "page" of these arrays is a unit of ``P[I.pages_per_unit]``
(U) contiguous pages of one file, allocated, aged, dirtied and written back
together (docs/models/fairzone.md, "Resolution: pages per unit").  Every
page count the kernel is given arrives in units (simulate.py, setup.py); where
a formula of the kernel needs pages (``lru >> priority``, the writeback wait)
it is computed in pages here and converted, so that U = 1 is the page model
itself, bit for bit.  Counters are raw counts of units or events; the result
reports them in pages (layout.COUNTER_UNITS).

The same source runs compiled (Numba) or as plain Python (the shared
engine's ``"python"``): the tests compare the two exactly.
"""

from __future__ import annotations

from ..engine import kernel_no_nrt as kernel, leaf_no_nrt as leaf
from .layout import (
    AC, ALLOC, ALLOC_AT, CORR_AT, COUNTERS_AT, FP, I, KS, LRU, NALLOC, NC, NZ, OP, PG, PHF, PRF, SMF, ST, TRF, ZF, ZONE,
)

DEF_PRIORITY = 12
BIG = 1 << 62
HZ_10_NS = 100_000_000  # HZ/10: congestion_wait()'s timeout in balance_pgdat() and shrink_inactive_list()
# Compiled without reference counting (engine.kernel_no_nrt: no function here allocates an array; every one
# comes from simulate.build_arrays() and lives for the whole call): every call that passes an array would
# otherwise cost an atomic increment and decrement, most of the fast path's time.  For the same reason what
# runs once per unit at 32 pages per unit -- background(), the shrink_* of one SWAP_CLUSTER_MAX chunk, the
# batch reset, the balance tests -- is a leaf, inlined where it is called.


@leaf
def fair_mode_of(P):
    """0: no fair policy (3.0); 1: ALLOC_FAIR as 3.14-3.16-rc1; 2: with ZONE_FAIR_DEPLETED (patch 3/4)."""
    return P[I.ALLOC_FAIR] * (1 + P[I.ZONE_FAIR_DEPLETED])


# ============================================================================ LRU lists (include/linux/mm_inline.h)

@leaf
def lru_add(Z, PPREV, PNEXT, z, lru, pid):
    """add_page_to_lru_list(): the page becomes the newest (head) of list ``lru`` of zone ``z``."""
    hs = ZF.head_i + 2 * lru
    head = Z[z, hs]
    PPREV[pid] = -1
    PNEXT[pid] = head
    if head >= 0:
        PPREV[head] = pid
    else:
        Z[z, hs + 1] = pid
    Z[z, hs] = pid
    Z[z, ZF.nr_inactive + lru] += 1


@leaf
def lru_add_tail(Z, PPREV, PNEXT, z, lru, pid):
    """The page becomes the oldest of the list (rotate_reclaimable_page())."""
    hs = ZF.head_i + 2 * lru
    tail = Z[z, hs + 1]
    PNEXT[pid] = -1
    PPREV[pid] = tail
    if tail >= 0:
        PNEXT[tail] = pid
    else:
        Z[z, hs] = pid
    Z[z, hs + 1] = pid
    Z[z, ZF.nr_inactive + lru] += 1


@leaf
def lru_del(Z, PPREV, PNEXT, z, lru, pid):
    """del_page_from_lru_list()."""
    hs = ZF.head_i + 2 * lru
    p = PPREV[pid]
    n = PNEXT[pid]
    if p >= 0:
        PNEXT[p] = n
    else:
        Z[z, hs] = n
    if n >= 0:
        PPREV[n] = p
    else:
        Z[z, hs + 1] = p
    Z[z, ZF.nr_inactive + lru] -= 1


# ============================================================================ watermarks and dirty limits

@leaf
def watermark_ok(Z, LR, z, mark_slot, classzone):
    """__zone_watermark_ok() for order 0: free pages above the mark plus lowmem_reserve[classzone]."""
    return Z[z, ZF.free] > Z[z, mark_slot] + LR[z, classzone]


@leaf
def zone_dirty_limit(Z, P, z):
    """zone_dirty_limit() (mm/page-writeback.c, 3.14-3.16): vm_dirty_ratio % of the zone's dirtyable memory, or
    with vm_dirty_bytes set, that many pages times the zone's share of the dirtyable memory."""
    free = Z[z, ZF.free]
    r = Z[z, ZF.dirty_balance_reserve]
    dirtyable = free - (r if r < free else free) + Z[z, ZF.nr_inactive] + Z[z, ZF.nr_active]
    if P[I.vm_dirty_bytes] > 0:  # the byte limit, shared out by the zone's dirtyable share
        g = global_dirtyable(Z)
        return P[I.vm_dirty_bytes] * dirtyable // g if g > 0 else 0
    return P[I.vm_dirty_ratio] * dirtyable // 100


@leaf
def global_dirtyable(Z):
    """global_dirtyable_memory() (3.14+): free - dirty_balance_reserve + file LRU pages, summed over zones."""
    free = 0
    res = 0
    lru = 0
    for z in range(NZ):
        free += Z[z, ZF.free]
        res += Z[z, ZF.dirty_balance_reserve]
        lru += Z[z, ZF.nr_inactive] + Z[z, ZF.nr_active]
    return free - (res if res < free else free) + lru


# ============================================================================ the allocator

@leaf
def reset_alloc_batches(Z, S, P, ZL, now):
    """reset_alloc_batches(): NR_ALLOC_BATCH back to its reset value.

    3.14-3.16-rc1 walk the zonelist (every zone is local on one node); patch
    3/4 walks ``node_zones[0..preferred]`` and clears ``ZONE_FAIR_DEPLETED``.
    Either way every populated zone of the node; the depleted bits are only
    ever set by patch 3/4.
    """
    S[ST.batch_resets] += 1
    for k in range(ZL.shape[0]):
        z = ZL[k]
        Z[z, ZF.batch] = Z[z, ZF.batch_reset]
        Z[z, ZF.depleted] = 0
        Z[z, ZF.nr_resets] += 1
        Z[z, ZF.last_reset_ns] = now
        S[ST.batch_reset_zones] += 1


@leaf
def buffered_rmqueue(Z, LR, S, P, z, flags, classzone):
    """Take one page from zone ``z``: NR_FREE_PAGES, NR_ALLOC_BATCH (and ZONE_FAIR_DEPLETED), pgalloc."""
    Z[z, ZF.free] -= 1
    fair = fair_mode_of(P)
    if fair == 1:
        Z[z, ZF.batch] -= 1
        S[ST.batch_updates] += 1
    elif fair == 2 and Z[z, ZF.fair_enabled] != 0:
        Z[z, ZF.batch] -= 1
        S[ST.batch_updates] += 1
        b = Z[z, ZF.batch]
        if (b == 0 if P[I.fair_depleted_test] != 0 else b <= 0) and Z[z, ZF.depleted] == 0:
            Z[z, ZF.depleted] = 1
    Z[z, ZF.pgalloc] += 1
    S[ST.pgalloc] += 1
    slack = Z[z, ZF.free] - Z[z, ZF.wmin] - LR[z, classzone]
    if slack < Z[z, ZF.free_min_seen]:
        Z[z, ZF.free_min_seen] = slack
    if (flags & ALLOC.WMARK_LOW) != 0 and slack < 0:
        Z[z, ZF.fast_below_min] += 1


@leaf
def get_page_from_freelist(Z, LR, S, P, ZL, flags, classzone, now):
    """get_page_from_freelist(): walk the zonelist once (and again where the variant rescans).

    Returns ``(zone, flags)``: the zone a page was taken from (-1 if none)
    and the flags left (patch 3/4 clears ALLOC_FAIR here, patch 4/4 ALLOC_DIRTY).
    """
    S[ST.get_page_from_freelist] += 1
    fair_mode = fair_mode_of(P)
    mark = ZF.wlow if (flags & ALLOC.WMARK_LOW) != 0 else ZF.wmin
    nr_fair_skipped = 0
    nr_fair_eligible = 0
    nr_fail_watermark = 0
    nr_fail_dirty = 0
    while True:
        for k in range(ZL.shape[0]):
            z = ZL[k]
            S[ST.zonelist_scanned] += 1
            if (flags & ALLOC.FAIR) != 0:
                if fair_mode == 2:
                    # patch 3/4: a zone not eligible for fairness ends the fair pass
                    if Z[z, ZF.fair_enabled] == 0:
                        break
                    nr_fair_eligible += 1
                    S[ST.depleted_flag_reads] += 1
                    if Z[z, ZF.depleted] != 0:
                        nr_fair_skipped += 1
                        continue
                else:
                    # 3.14-3.16-rc1: every zone is local on one node; skip an expired batch
                    S[ST.batch_reads] += 1
                    if Z[z, ZF.batch] <= 0:
                        continue
            if (flags & ALLOC.CONSIDER_DIRTY) != 0:
                S[ST.dirty_checks] += 1
                S[ST.dirty_limit_calcs] += 1
                if Z[z, ZF.nr_dirty] + Z[z, ZF.nr_writeback] > zone_dirty_limit(Z, P, z):
                    S[ST.dirty_fails] += 1
                    continue
            if (flags & ALLOC.DIRTY) != 0:
                S[ST.dirty_checks] += 1
                if Z[z, ZF.nr_dirty] + Z[z, ZF.nr_writeback] > Z[z, ZF.dirty_limit_cached]:
                    nr_fail_dirty += 1
                    S[ST.dirty_fails] += 1
                    Z[z, ZF.dirty_limit_cached] = zone_dirty_limit(Z, P, z)
                    S[ST.dirty_limit_calcs] += 1
                    continue
            S[ST.watermark_checks] += 1
            if not watermark_ok(Z, LR, z, mark, classzone):
                nr_fail_watermark += 1
                continue
            buffered_rmqueue(Z, LR, S, P, z, flags, classzone)
            return z, flags
        rescan = False
        if (flags & ALLOC.FAIR) != 0 and fair_mode == 2:
            # patch 3/4: the fair pass failed; reset only if a watermark failed or every batch is spent
            S[ST.fair_pass_fails] += 1
            flags &= ~ALLOC.FAIR
            if P[I.nr_online_nodes] > 1:
                rescan = True
            if nr_fail_watermark > 0 or nr_fair_eligible == nr_fair_skipped:
                rescan = True
                reset_alloc_batches(Z, S, P, ZL, now)
        if (flags & ALLOC.DIRTY) != 0 and nr_fail_dirty > 0:
            # patch 4/4: some zone was over its (cached) dirty limit: drop the spreading, rescan
            flags &= ~ALLOC.DIRTY
            rescan = True
        if not rescan:
            return -1, flags
        S[ST.zonelist_rescans] += 1


@leaf
def wakeup_kswapd(Z, LR, S, P, z, classzone, now):
    """wakeup_kswapd(): wake the node's kswapd if it sleeps and zone ``z`` is below its wake mark."""
    if Z[z, ZF.managed] == 0:
        return
    st = S[ST.ks_state]
    if st == KS.run:
        return  # !waitqueue_active(): kswapd is awake already
    if P[I.kswapd_wake_at] != 0:
        if Z[z, ZF.free] > Z[z, ZF.whigh]:  # zone_balanced(zone, order, 0, 0) (3.12+)
            return
    else:
        if Z[z, ZF.free] > Z[z, ZF.wlow]:  # zone_watermark_ok_safe(zone, order, low, 0, 0) (3.0)
            return
    if st == KS.nap:
        S[ST.kswapd_low_wmark_hit_quickly] += 1  # woken during the short sleep: "low watermark hit quickly"
    S[ST.ks_state] = KS.run
    S[ST.ks_busy] = now
    S[ST.ks_classzone] = classzone
    balance_pgdat_start(S, True)
    S[ST.kswapd_wakeups] += 1
    S[ST.next_bg] = now


@leaf
def shrink_active(Z, S, PFL, PPREV, PNEXT, z, n):
    """shrink_active_list() for file pages: the ``n`` oldest active pages go to the inactive list, unreferenced."""
    nact = Z[z, ZF.nr_active]
    if n > nact:
        n = nact
    for _ in range(n):
        pid = Z[z, ZF.tail_a]
        lru_del(Z, PPREV, PNEXT, z, LRU.active, pid)
        PFL[pid] = PFL[pid] & ~(PG.active | PG.referenced)
        lru_add(Z, PPREV, PNEXT, z, LRU.inactive, pid)
    S[ST.pgrefill] += n
    S[ST.pgdeactivate] += n
    Z[z, ZF.pgdeactivate] += n


@leaf
def pageout(Z, S, PFL, KQ, z, pid):
    """pageout(): reclaim writes a dirty page itself -- SetPageReclaim(), ->writepage() -- so it is under writeback
    at once, on reclaim's write queue ``KQ`` (completed before the flusher's, at the device's rate), and
    end_page_writeback() rotates it to the inactive tail (:func:`writeback_advance`)."""
    PFL[pid] = (PFL[pid] & ~PG.dirty) | PG.writeback | PG.reclaim | PG.pageout
    Z[z, ZF.nr_dirty] -= 1
    Z[z, ZF.nr_writeback] += 1
    S[ST.nr_dirty] -= 1
    S[ST.nr_writeback] += 1
    S[ST.nr_vmscan_write] += 1
    KQ[S[ST.kq_tail] % KQ.shape[0]] = pid
    S[ST.kq_tail] += 1


@leaf
def shrink_inactive(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, KQ, z, nr_to_scan, is_kswapd, now):
    """shrink_inactive_list() / shrink_page_list() on the ``nr_to_scan`` oldest inactive pages of zone ``z``.

    Each page as the variant's source treats it (mm/vmscan.c 3.0, 3.16; ``reclaim_writepage``):

    * under writeback: back on the list.  3.0 leaves it as it is (``keep_lumpy``); 3.11+ sets PG_reclaim, and
      kswapd finding an already-PG_reclaim page in a zone flagged ZONE_WRITEBACK counts it ``nr_immediate``
      (``shrink_inactive_list()`` then naps in congestion_wait());
    * page_check_references(): PG_referenced is tested and cleared; an unmapped page-cache page is reclaimed
      if clean, referenced or not (``PAGEREF_RECLAIM_CLEAN``);
    * dirty: 3.0 writes it (pageout()) unless it was referenced; 3.11+ writes it only from kswapd in a zone
      flagged ZONE_TAIL_LRU_DIRTY (and only unreferenced), else marks it PG_reclaim (NR_VMSCAN_IMMEDIATE) --
      either way it goes back on the list (at its head, putback_lru_pages());
    * clean: reclaimed.

    3.11+: a batch that was all under writeback flags the zone ZONE_WRITEBACK, one that was all dirty and not
    yet queued flags it ZONE_TAIL_LRU_DIRTY.  Returns ``(scanned, reclaimed, nr_immediate)``.
    """
    nin = Z[z, ZF.nr_inactive]
    n = nr_to_scan if nr_to_scan < nin else nin
    old_rules = P[I.reclaim_writepage] == 0  # "always": 3.0
    scanned = 0
    reclaimed = 0
    n_writeback = 0
    n_unqueued = 0
    immediate = 0
    for _ in range(n):
        pid = Z[z, ZF.tail_i]
        lru_del(Z, PPREV, PNEXT, z, LRU.inactive, pid)
        scanned += 1
        fl = PFL[pid]
        if (fl & PG.writeback) != 0:
            n_writeback += 1
            if not old_rules:
                if is_kswapd and (fl & PG.reclaim) != 0 and Z[z, ZF.zone_writeback] != 0:
                    immediate += 1
                else:
                    fl |= PG.reclaim
            PFL[pid] = fl
            lru_add(Z, PPREV, PNEXT, z, LRU.inactive, pid)
            continue
        referenced = (fl & PG.referenced) != 0
        fl &= ~PG.referenced  # TestClearPageReferenced()
        if (fl & PG.dirty) != 0:
            PFL[pid] = fl
            if old_rules:
                write = not referenced
            else:
                n_unqueued += 1
                write = False
                if is_kswapd and Z[z, ZF.zone_tail_dirty] != 0:
                    write = not referenced
                else:
                    PFL[pid] = fl | PG.reclaim  # "Immediately reclaim when written back"
                    S[ST.nr_vmscan_immediate_reclaim] += 1
            if write:
                pageout(Z, S, PFL, KQ, z, pid)
            lru_add(Z, PPREV, PNEXT, z, LRU.inactive, pid)
            continue
        # clean: reclaimed, even if it was referenced (PAGEREF_RECLAIM_CLEAN for unmapped page cache)
        PZ[pid] = -1
        PFL[pid] = 0
        Z[z, ZF.free] += 1
        reclaimed += 1
        Z[z, ZF.evict_n] += 1
        Z[z, ZF.evict_age_us] += (now - PT[pid]) // 1000
    if not old_rules and n > 0:
        if n_writeback == n:
            Z[z, ZF.zone_writeback] = 1
        if n_unqueued == n:
            Z[z, ZF.zone_tail_dirty] = 1
    return scanned, reclaimed, immediate


@leaf
def count_scan(Z, S, z, scanned, reclaimed, is_kswapd):
    if is_kswapd:
        Z[z, ZF.pgscan_kswapd] += scanned
        Z[z, ZF.pgsteal_kswapd] += reclaimed
        S[ST.pgscan_kswapd] += scanned
        S[ST.pgsteal_kswapd] += reclaimed
    else:
        Z[z, ZF.pgscan_direct] += scanned
        Z[z, ZF.pgsteal_direct] += reclaimed
        S[ST.pgscan_direct] += scanned
        S[ST.pgsteal_direct] += reclaimed


@kernel
def shrink_zone(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, KQ, z, nr_to_scan, is_kswapd, now):
    """Reclaim ``nr_to_scan`` pages' worth from zone ``z`` (memory taken outside the LRU, :func:`change_other`):
    deactivate if the inactive file list is low, then scan the oldest inactive pages.

    Returns ``(scanned, reclaimed)`` of the inactive list.
    """
    if Z[z, ZF.nr_active] > Z[z, ZF.nr_inactive]:  # inactive_file_is_low(): active > inactive
        shrink_active(Z, S, PFL, PPREV, PNEXT, z, nr_to_scan)
    scanned, reclaimed, _imm = shrink_inactive(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, KQ, z, nr_to_scan, is_kswapd,
                                               now)
    count_scan(Z, S, z, scanned, reclaimed, is_kswapd)
    return scanned, reclaimed


@kernel
def shrink_zone_prio(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, KQ, z, prio, is_kswapd, nr_to_reclaim, now):
    """shrink_zone() at scan priority ``prio``, as mm/vmscan.c (3.0 - 3.16) sizes it.

    get_scan_count(): each evictable LRU list is scanned ``its own size >> priority`` (file pages only here:
    no swap); shrink_zone() (3.0) / shrink_lruvec() (3.16) walk the lists in SWAP_CLUSTER_MAX chunks, inactive
    file then active file (for_each_evictable_lru), and stop after a round once ``nr_to_reclaim`` pages are
    reclaimed (3.0: kswapd ULONG_MAX, direct reclaim SWAP_CLUSTER_MAX below DEF_PRIORITY; 3.16: kswapd
    max(SWAP_CLUSTER_MAX, high), direct as 3.0 -- the caller passes it, in units); shrink_list(): an active chunk
    only deactivates pages while inactive_file_is_low() (active > inactive), and reclaims nothing itself.  So a
    zone whose file pages sit on the active list is scanned in proportion to its *inactive* list, not to all of
    its pages.  Returns ``(scanned, reclaimed, congestion waits)`` -- the last, the chunks after which
    shrink_inactive_list() naps for nr_immediate pages (3.11+ kswapd).

    In units: ``lru >> priority`` is taken in pages (the list's units x U), as the kernel takes it, and
    scanned in whole units; the pages short of a whole unit are carried to the zone's next scan of that
    list, so that over a run kswapd scans what the kernel's arithmetic says and not less (2.6's
    ``nr_saved_scan`` carried scan counts below SWAP_CLUSTER_MAX the same way).  At U = 1 nothing is carried.
    """
    upp = P[I.pages_per_unit]
    pages_i = ((Z[z, ZF.nr_inactive] * upp) >> prio) + Z[z, ZF.scan_carry_i]
    pages_a = ((Z[z, ZF.nr_active] * upp) >> prio) + Z[z, ZF.scan_carry_a]
    nr_i = pages_i // upp
    nr_a = pages_a // upp
    Z[z, ZF.scan_carry_i] = pages_i - nr_i * upp
    Z[z, ZF.scan_carry_a] = pages_a - nr_a * upp
    chunk = P[I.swap_cluster_max]
    scanned = 0
    reclaimed = 0
    waits = 0
    while nr_i > 0 or nr_a > 0:
        if nr_i > 0:
            n = nr_i if nr_i < chunk else chunk
            nr_i -= n
            sc, rc, imm = shrink_inactive(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, KQ, z, n, is_kswapd, now)
            scanned += sc
            reclaimed += rc
            if imm > 0:
                waits += 1
        if nr_a > 0:
            n = nr_a if nr_a < chunk else chunk
            nr_a -= n
            if Z[z, ZF.nr_active] > Z[z, ZF.nr_inactive]:
                shrink_active(Z, S, PFL, PPREV, PNEXT, z, n)
        if reclaimed >= nr_to_reclaim:
            break
    count_scan(Z, S, z, scanned, reclaimed, is_kswapd)
    return scanned, reclaimed, waits


@leaf
def lru_pages(Z, z):
    return Z[z, ZF.nr_inactive] + Z[z, ZF.nr_active]


@leaf
def node_balanced(Z, classzone):
    """Every zone up to ``classzone`` above its high watermark, each as its own classzone (no lowmem reserve):
    3.0 sleeping_prematurely() and 3.11+ pgdat_balanced() / prepare_kswapd_sleep() for order 0.  Zones with
    nothing on the LRU count as balanced (the kernel's all_unreclaimable / !zone_reclaimable())."""
    for z in range(classzone + 1):
        if Z[z, ZF.managed] == 0 or lru_pages(Z, z) == 0:
            continue
        if Z[z, ZF.free] <= Z[z, ZF.whigh]:
            return False
    return True


@leaf
def gap_balanced(Z, P, classzone):
    """Every zone with pages on its LRU at high + balance gap (kswapd_shrink_zone()'s target)."""
    for z in range(classzone + 1):
        if Z[z, ZF.managed] == 0 or lru_pages(Z, z) == 0:
            continue
        gap = Z[z, ZF.gap] if P[I.kswapd_balance_gap] != 0 else 0
        if Z[z, ZF.free] <= Z[z, ZF.whigh] + gap:
            return False
    return True


@leaf
def balance_pgdat_start(S, new_call):
    """A new balance_pgdat() call, or 3.0's ``goto loop_again`` inside one: PAGEOUTRUN, priority DEF_PRIORITY, the
    round's scan and reclaim totals at 0; a new call also starts with end_zone 0 (ZONE_DMA) until a pass finds
    one (a local of balance_pgdat(), kept across loop_again)."""
    S[ST.pageoutrun] += 1
    S[ST.ks_priority] = DEF_PRIORITY
    S[ST.ks_round_scanned] = 0
    S[ST.ks_round_reclaimed] = 0
    S[ST.ks_done] = 0
    if new_call:
        S[ST.ks_end_zone] = 0


@leaf
def congestion_wait_ns(S, P, F):
    """congestion_wait(BLK_RW_ASYNC, HZ/10): until an async (write) request completes below the queue's congestion
    threshold -- the next SWAP_CLUSTER_MAX pages (a 128 KiB request) of writeback at the device's rate -- or HZ/10
    when no write is in flight (reads free sync requests, which wake only BLK_RW_SYNC waiters)."""
    if S[ST.nr_writeback] > 0:
        dt = int(P[I.swap_cluster_max] / F[FP.writeback_mb_s])  # the rate is units per ns
        return dt if dt < HZ_10_NS else HZ_10_NS
    return HZ_10_NS


@kernel
def balance_pass(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, KQ, now):
    """One priority iteration of balance_pgdat() (mm/vmscan.c 3.0, 3.16).

    end_zone is the highest zone below its high watermark (no reserve); every zone from DMA up to it is shrunk
    unless above high + balance gap + lowmem_reserve[end_zone] ("equal pressure on every zone, unless one zone has
    way too many pages free").  Then, 3.0: done when every zone up to end_zone is above high +
    lowmem_reserve[end_zone] (all_zones_ok; ``kswapd_stop_with_reserve``); else a nap in congestion_wait() below
    DEF_PRIORITY - 2 (``balance_congestion_wait``) unless a zone is under min, and ``goto loop_again`` (priority 12)
    once 32 pages were reclaimed since the last one, else the next priority.  3.11+: each zone reclaims up to
    max(SWAP_CLUSTER_MAX, high); the priority drops unless a zone was scanned that much (or skipped as balanced)
    and something was reclaimed; done when pgdat_balanced() for the waker's classzone, or given up below priority 1.

    Returns ``(pages scanned, outcome, ns of congestion_wait)``: outcome 0 go on, 1 balanced, 2 given up.
    """
    prio = S[ST.ks_priority]
    end_zone = -1
    for z in range(NZ - 1, -1, -1):
        if Z[z, ZF.managed] == 0 or lru_pages(Z, z) == 0:
            continue
        if Z[z, ZF.free] <= Z[z, ZF.whigh]:  # !zone_watermark_ok_safe(zone, order, high, 0, 0)
            end_zone = z
            break
        Z[z, ZF.zone_tail_dirty] = 0  # a balanced zone: not congested, its tail not dirty
    if end_zone < 0:
        return 0, 1, 0
    S[ST.ks_end_zone] = end_zone
    raise_priority = True
    scanned = 0
    reclaimed = 0
    waits = 0
    all_ok = True
    under_min = False
    new_rules = P[I.kswapd_raise_priority] != 0
    for z in range(end_zone + 1):
        if Z[z, ZF.managed] == 0 or lru_pages(Z, z) == 0:
            continue  # all_unreclaimable / !zone_reclaimable(): skipped, counted balanced
        gap = Z[z, ZF.gap] if P[I.kswapd_balance_gap] != 0 else 0
        if Z[z, ZF.free] > Z[z, ZF.whigh] + gap + LR[z, end_zone]:
            raise_priority = False  # kswapd_shrink_zone(): balanced with the gap, nothing to do
        elif (((Z[z, ZF.nr_inactive] * P[I.pages_per_unit]) >> prio) == 0
              and ((Z[z, ZF.nr_active] * P[I.pages_per_unit]) >> prio) == 0):
            pass  # get_scan_count(): nothing at this priority for a small zone until the priority rises
        else:
            if new_rules:
                # kswapd_shrink_zone(): sc->nr_to_reclaim = max(SWAP_CLUSTER_MAX, high_wmark_pages(zone))
                target = Z[z, ZF.whigh] if Z[z, ZF.whigh] > P[I.swap_cluster_max] else P[I.swap_cluster_max]
            else:
                target = BIG  # 3.0: .nr_to_reclaim = ULONG_MAX
            sc, rc, w = shrink_zone_prio(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, KQ, z, prio, True, target, now)
            scanned += sc
            reclaimed += rc
            waits += w
            if new_rules:
                Z[z, ZF.zone_writeback] = 0
                if Z[z, ZF.free] > Z[z, ZF.whigh] + LR[z, end_zone]:
                    Z[z, ZF.zone_tail_dirty] = 0
                if sc >= target:
                    raise_priority = False
        if Z[z, ZF.free] <= Z[z, ZF.whigh] + LR[z, end_zone]:
            all_ok = False
            if Z[z, ZF.free] <= Z[z, ZF.wmin] + LR[z, end_zone]:
                under_min = True
    wait_ns = waits * congestion_wait_ns(S, P, F)
    if not new_rules:
        S[ST.ks_round_scanned] += scanned
        S[ST.ks_round_reclaimed] += reclaimed
        ok = all_ok if P[I.kswapd_stop_with_reserve] != 0 else node_balanced(Z, end_zone)
        if ok:
            return scanned, 1, wait_ns
        if P[I.balance_congestion_wait] != 0 and S[ST.ks_round_scanned] > 0 and prio < DEF_PRIORITY - 2:
            if under_min:
                S[ST.kswapd_skip_congestion_wait] += 1
            else:
                S[ST.kswapd_congestion_wait] += 1
                wait_ns += congestion_wait_ns(S, P, F)
        if S[ST.ks_round_reclaimed] >= P[I.swap_cluster_max] or prio == 0:
            balance_pgdat_start(S, False)  # goto loop_again (after priority 0 too: out, unbalanced, again)
        else:
            S[ST.ks_priority] = prio - 1
        return scanned, 0, wait_ns
    if waits > 0:
        S[ST.kswapd_congestion_wait] += waits
    if raise_priority or reclaimed == 0:
        prio -= 1
    S[ST.ks_priority] = prio
    if node_balanced(Z, S[ST.ks_classzone]):
        return scanned, 1, wait_ns
    if prio < 1:
        return scanned, 2, wait_ns
    return scanned, 0, wait_ns


@kernel
def kswapd_advance(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, KQ, now):
    """Run kswapd up to ``now``: balance_pgdat()'s passes at its CPU speed, then kswapd_try_to_sleep().

    A pass takes ``pages scanned / kswapd speed`` (plus its congestion_wait() naps); allocations go on meanwhile,
    so when balance_pgdat() returns, kswapd_try_to_sleep() looks at the node *then*: every zone up to end_zone
    above high (no reserve: 3.0 sleeping_prematurely(), 3.16 prepare_kswapd_sleep()) and it naps HZ/10, else it
    counts KSWAPD_HIGH_WMARK_HIT_QUICKLY and balances again at once.  After an undisturbed nap the same test
    puts it to sleep until woken, or counts KSWAPD_HIGH_WMARK_HIT_QUICKLY; a wake-up during the nap counts
    KSWAPD_LOW_WMARK_HIT_QUICKLY (:func:`wakeup_kswapd`).  Whether it naps or stays awake is this outcome.
    """
    rate = F[FP.kswapd_pages_per_ms]
    while True:
        st = S[ST.ks_state]
        if st == KS.sleep:
            return
        if st == KS.nap:
            t = S[ST.ks_nap_end]
            if now < t:
                return
            if node_balanced(Z, S[ST.ks_end_zone]):  # the nap ran out: sleep until woken
                S[ST.ks_state] = KS.sleep
                return
            S[ST.kswapd_high_wmark_hit_quickly] += 1
            S[ST.ks_state] = KS.run
            S[ST.ks_busy] = t
            balance_pgdat_start(S, True)
            continue
        t = S[ST.ks_busy]
        if t > now:
            return
        if S[ST.ks_done] != 0:
            # balance_pgdat() returned at t: kswapd_try_to_sleep()
            S[ST.ks_done] = 0
            if P[I.kswapd_stays_awake] != 0 and not gap_balanced(Z, P, S[ST.ks_classzone]):
                # WHAT-IF: no nap while a zone is below high + gap: look again a scheduler tick (1 ms) later
                S[ST.ks_busy] = t + 1000000
                balance_pgdat_start(S, True)
                continue
            if node_balanced(Z, S[ST.ks_end_zone]):
                S[ST.ks_state] = KS.nap
                S[ST.ks_nap_end] = t + P[I.kswapd_nap_ms]
                continue
            S[ST.kswapd_high_wmark_hit_quickly] += 1
            balance_pgdat_start(S, True)
            continue
        scanned, outcome, wait_ns = balance_pass(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, KQ, now)
        # a pass that scanned nothing still takes one page's time (rate is units per ns: a page is 1/U unit)
        cost = scanned if scanned > 0 else 1.0 / P[I.pages_per_unit]
        S[ST.ks_busy] = t + int(cost / rate) + wait_ns
        S[ST.ks_last_pass] = scanned
        if outcome != 0:
            S[ST.ks_done] = 1


@kernel
def direct_reclaim(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, KQ, now):
    """try_to_free_pages() -> do_try_to_free_pages(): from DEF_PRIORITY down, shrink_zones() shrinks every zone of
    the zonelist at that priority (below DEF_PRIORITY each stops once SWAP_CLUSTER_MAX pages are reclaimed), until
    SWAP_CLUSTER_MAX pages are reclaimed.

    Returns the pages reclaimed; the time it took (pages scanned x ``direct_reclaim_us_per_page``) is added to the
    task's clock.
    """
    S[ST.allocstall] += 1
    target = P[I.swap_cluster_max]
    got = 0
    scanned_all = 0
    prio = DEF_PRIORITY
    while prio >= 0 and got < target:
        cap = BIG if prio == DEF_PRIORITY else target
        for k in range(ZL.shape[0]):
            z = ZL[k]
            if lru_pages(Z, z) == 0:
                continue
            if (((Z[z, ZF.nr_inactive] * P[I.pages_per_unit]) >> prio) == 0
                    and ((Z[z, ZF.nr_active] * P[I.pages_per_unit]) >> prio) == 0):
                continue
            sc, rc, _w = shrink_zone_prio(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, KQ, z, prio, False, cap, now)
            got += rc
            scanned_all += sc
        prio -= 1
    stall = int(scanned_all * F[FP.direct_reclaim_us_per_page])
    S[ST.direct_stall_ns] += stall
    S[ST.now] += stall
    return got


@leaf
def fast_path_work(Z, LR, S, P, ZL, flags, classzone):
    """The first pass of get_page_from_freelist() that the next page would make with ``flags``, once kswapd has
    run: does it find a page, and with what work?

    Returns ``(ok, zonelist entries, watermark checks, batch reads, depleted-flag reads, dirty checks, dirty
    limits computed, dirty fails)``, counted as get_page_from_freelist() counts them.  The same tests in the
    same order (fair budget or ZONE_FAIR_DEPLETED, the dirty limit, the watermark), with no side effect: a
    question the model asks about the rest of a unit, not work the kernel does (:func:`count_unit_rest`).

    A zone below its watermark passes if kswapd is awake, or will be woken by the next page that fails (the
    zone is below kswapd's wake mark), and stops only once the zone is above the mark: in the page model
    kswapd's next pass (``lru >> priority`` pages at once, a page-time later) restores such a zone, and the
    pages after it take the fast path; the one page that wakes kswapd is the next unit's allocation here.
    What kswapd does not change -- a dirty limit, a spent budget not reset, a lowmem reserve above the level
    kswapd stops at -- stays.
    """
    fair_mode = fair_mode_of(P)
    mark = ZF.wlow if (flags & ALLOC.WMARK_LOW) != 0 else ZF.wmin
    kswapd_on = S[ST.ks_state] == KS.run
    wake_mark = ZF.whigh if P[I.kswapd_wake_at] != 0 else ZF.wlow
    zl = 0
    wc = 0
    br = 0
    dr = 0
    dc = 0
    dl = 0
    df = 0
    for k in range(ZL.shape[0]):
        z = ZL[k]
        zl += 1
        if (flags & ALLOC.FAIR) != 0:
            if fair_mode == 2:
                if Z[z, ZF.fair_enabled] == 0:
                    break
                dr += 1
                if Z[z, ZF.depleted] != 0:
                    continue
            else:
                br += 1
                if Z[z, ZF.batch] <= 0:
                    continue
        if (flags & ALLOC.CONSIDER_DIRTY) != 0:
            dc += 1
            dl += 1
            if Z[z, ZF.nr_dirty] + Z[z, ZF.nr_writeback] > zone_dirty_limit(Z, P, z):
                df += 1
                continue
        if (flags & ALLOC.DIRTY) != 0:
            dc += 1
            if Z[z, ZF.nr_dirty] + Z[z, ZF.nr_writeback] > Z[z, ZF.dirty_limit_cached]:
                df += 1
                dl += 1
                continue
        wc += 1
        if watermark_ok(Z, LR, z, mark, classzone):
            return True, zl, wc, br, dr, dc, dl, df
        if kswapd_on or Z[z, ZF.free] <= Z[z, wake_mark]:
            # where kswapd stops: pgdat_balanced()'s high watermark (3.0: plus lowmem_reserve[classzone])
            stop = Z[z, ZF.whigh]
            if P[I.kswapd_stop_with_reserve] != 0:
                stop += LR[z, S[ST.ks_classzone] if kswapd_on else classzone]
            if stop >= Z[z, mark] + LR[z, classzone]:
                return True, zl, wc, br, dr, dc, dl, df
    return False, zl, wc, br, dr, dc, dl, df


@leaf
def count_unit_rest(Z, LR, S, P, ZL, flags, classzone, snap):
    """What the other U - 1 pages of this allocation's unit do, where it differs from what this page did.

    A unit stands for U pages allocated one after another.  The allocator's counters (layout.ALLOC_COUNTERS)
    are reported U times, as if every page had done this page's work -- right when this page took the fast
    path, and right when the state that made it fail persists for the next page (every zone over its dirty
    limit, below a watermark kswapd is not restoring, or, without a reset, its budget still spent).  But when
    this page renewed the state -- a reset of spent budgets, kswapd woken to restore a zone -- the rest of the
    unit takes the fast path: for each counter the correction ``(fast-path work - this page's work)`` is
    accumulated (``<counter>_unit_corr``), and the result reports ``U x raw + (U - 1) x corr``.  ``snap``
    holds the counters before this allocation.  At U = 1 nothing reported depends on it.
    """
    if (S[ST.fair_pass_fails] == snap[AC.fair_pass_fails] and S[ST.zonelist_rescans] == snap[AC.zonelist_rescans]
            and S[ST.slowpath] == snap[AC.slowpath]):
        return  # the fast path served it (a reset never comes without a failed fair pass)
    ok, zl, wc, br, dr, dc, dl, df = fast_path_work(Z, LR, S, P, ZL, flags, classzone)
    if not ok:
        return  # the state persists: every page of the unit does what this one did
    # in ALLOC_COUNTERS order: a fast-path allocation makes one call and no exceptional work
    fast = (1, zl, wc, br, dr, dc, dl, df, 1, 0, 0, 0, 0, 0)
    for i in range(NALLOC):
        S[CORR_AT[i]] += fast[i] - (S[ALLOC_AT[i]] - snap[i])
    d = S[ST.batch_resets] - snap[AC.batch_resets]
    if d > 0:
        for k in range(ZL.shape[0]):  # a reset writes every populated zone
            Z[ZL[k], ZF.nr_resets_unit_corr] -= d


@leaf
def alloc_page(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, KQ, TR, gfp_write, now):
    """__alloc_pages_nodemask() for one order-0 page-cache page.  Returns ``(zone, path)``."""
    classzone = ZL[0]  # the preferred zone: the first populated zone of the zonelist
    flags = ALLOC.WMARK_LOW
    fair_mode = fair_mode_of(P)
    if fair_mode == 1:
        flags |= ALLOC.FAIR
    elif fair_mode == 2 and Z[classzone, ZF.fair_enabled] != 0:
        flags |= ALLOC.FAIR  # preferred_zoneref->fair_enabled
    if gfp_write:
        if P[I.zone_dirty_ok] == 1:
            flags |= ALLOC.CONSIDER_DIRTY
        elif P[I.zone_dirty_ok] == 2:
            flags |= ALLOC.DIRTY
    resets0 = S[ST.batch_resets]
    flags0 = flags
    # layout.ALLOC_COUNTERS before this allocation (count_unit_rest)
    snap = (S[ALLOC_AT[0]], S[ALLOC_AT[1]], S[ALLOC_AT[2]], S[ALLOC_AT[3]], S[ALLOC_AT[4]], S[ALLOC_AT[5]],
            S[ALLOC_AT[6]], S[ALLOC_AT[7]], S[ALLOC_AT[8]], S[ALLOC_AT[9]], S[ALLOC_AT[10]], S[ALLOC_AT[11]],
            S[ALLOC_AT[12]], S[ALLOC_AT[13]])
    path = 0
    while True:
        z, flags = get_page_from_freelist(Z, LR, S, P, ZL, flags, classzone, now)
        if z >= 0:
            if path == 0:
                S[ST.fastpath_allocs] += 1
            count_unit_rest(Z, LR, S, P, ZL, flags0, classzone, snap)
            return z, path, S[ST.batch_resets] != resets0
        if fair_mode == 1 and (flags & ALLOC.FAIR) != 0:
            # 3.14-3.16-rc1: the fair pass failed: reset the local batches, try once more without fairness
            S[ST.fair_pass_fails] += 1
            reset_alloc_batches(Z, S, P, ZL, now)
            flags &= ~ALLOC.FAIR
            if P[I.remote_spill_pass] == 0 and P[I.nr_online_nodes] == 1:
                break  # bigbatches1node: no unfair spill pass on one node, straight to the slow path
            S[ST.zonelist_rescans] += 1
            path = 1
            continue
        break
    # __alloc_pages_slowpath()
    S[ST.slowpath] += 1
    path = 2
    for k in range(ZL.shape[0]):
        wakeup_kswapd(Z, LR, S, P, ZL[k], classzone, now)
    tries = 0
    while True:
        z, f2 = get_page_from_freelist(Z, LR, S, P, ZL, 0, classzone, now)
        if z >= 0:
            count_unit_rest(Z, LR, S, P, ZL, flags0, classzone, snap)
            return z, path, S[ST.batch_resets] != resets0
        path = 3
        got = direct_reclaim(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, KQ, now)
        tries += 1
        if got == 0 and tries > 4:
            # nothing left to reclaim: take any free page ignoring watermarks (ALLOC_NO_WATERMARKS)
            best = -1
            for k in range(ZL.shape[0]):
                zz = ZL[k]
                if Z[zz, ZF.free] > 0 and (best < 0 or Z[zz, ZF.free] > Z[best, ZF.free]):
                    best = zz
            if best >= 0:
                buffered_rmqueue(Z, LR, S, P, best, 0, classzone)
                count_unit_rest(Z, LR, S, P, ZL, flags0, classzone, snap)
                return best, path, S[ST.batch_resets] != resets0
            S[ST.oom] += 1
            count_unit_rest(Z, LR, S, P, ZL, flags0, classzone, snap)
            return -1, path, S[ST.batch_resets] != resets0


# ============================================================================ writeback and dirty throttling

@leaf
def end_page_writeback(Z, S, PFL, PPREV, PNEXT, z, pid):
    """end_page_writeback(): the page is clean; one marked PG_reclaim goes to the inactive tail, reclaimable next
    (rotate_reclaimable_page())."""
    fl = PFL[pid]
    Z[z, ZF.nr_writeback] -= 1
    S[ST.nr_writeback] -= 1
    S[ST.nr_written] += 1
    if (fl & PG.reclaim) != 0 and (fl & PG.active) == 0:
        lru_del(Z, PPREV, PNEXT, z, LRU.inactive, pid)
        lru_add_tail(Z, PPREV, PNEXT, z, LRU.inactive, pid)
    PFL[pid] = fl & ~(PG.writeback | PG.reclaim | PG.pageout)


@kernel
def writeback_advance(Z, S, P, F, PZ, PFL, PPREV, PNEXT, DQ, DQT, KQ, now):
    """The device completes writeback at its rate; the flusher issues the oldest dirty pages.

    The flusher runs while dirty pages exceed ``dirty_background_ratio`` of
    dirtyable memory, or while the oldest dirty page is older than
    ``dirty_expire_interval`` (wb_writeback() / wb_check_old_data_flush()).
    Pages reclaim wrote itself (pageout(), queue ``KQ``) were issued before the
    flusher's next ones and complete first.
    """
    cap = DQ.shape[0]
    last = S[ST.wb_last]
    S[ST.wb_last] = now
    if S[ST.nr_writeback] > 0:
        S[ST.wb_credit] += int((now - last) * F[FP.writeback_mb_s] * 1000.0)
        kcap = KQ.shape[0]
        while S[ST.wb_credit] >= 1000 and S[ST.kq_done] < S[ST.kq_tail]:
            pid = KQ[S[ST.kq_done] % kcap]
            S[ST.kq_done] += 1
            z = PZ[pid]
            fl = PFL[pid]
            if z >= 0 and (fl & PG.writeback) != 0 and (fl & PG.pageout) != 0:
                S[ST.wb_credit] -= 1000
                end_page_writeback(Z, S, PFL, PPREV, PNEXT, z, pid)
        while S[ST.wb_credit] >= 1000 and S[ST.dq_wb] < S[ST.dq_head]:
            pid = DQ[S[ST.dq_wb] % cap]
            S[ST.dq_wb] += 1
            z = PZ[pid]
            fl = PFL[pid]
            if z >= 0 and (fl & PG.writeback) != 0 and (fl & PG.pageout) == 0:
                S[ST.wb_credit] -= 1000
                end_page_writeback(Z, S, PFL, PPREV, PNEXT, z, pid)
        if S[ST.nr_writeback] == 0:
            S[ST.wb_credit] = 0
    else:
        S[ST.wb_credit] = 0
    if S[ST.nr_dirty] == 0:
        return
    bg = P[I.dirty_background_ratio] * global_dirtyable(Z) // 100
    expire_before = (now - P[I.dirty_expire_centisecs]) // 1000000  # ms
    inflight = P[I.writeback_inflight_mb]
    while S[ST.nr_writeback] < inflight and S[ST.dq_head] < S[ST.dq_tail]:
        slot = S[ST.dq_head] % cap
        if S[ST.nr_dirty] <= bg and DQT[slot] > expire_before:
            break
        pid = DQ[slot]
        S[ST.dq_head] += 1
        z = PZ[pid]
        fl = PFL[pid]
        if z >= 0 and (fl & PG.dirty) != 0:
            PFL[pid] = (fl & ~PG.dirty) | PG.writeback
            Z[z, ZF.nr_dirty] -= 1
            Z[z, ZF.nr_writeback] += 1
            S[ST.nr_dirty] -= 1
            S[ST.nr_writeback] += 1


@leaf
def set_page_dirty(Z, S, PFL, DQ, DQT, z, pid, now):
    """__set_page_dirty(): account the page and queue it for the flusher (oldest first)."""
    PFL[pid] |= PG.dirty
    Z[z, ZF.nr_dirty] += 1
    S[ST.nr_dirty] += 1
    S[ST.nr_dirtied] += 1
    cap = DQ.shape[0]
    slot = S[ST.dq_tail] % cap
    DQ[slot] = pid
    DQT[slot] = now // 1000000
    S[ST.dq_tail] += 1


@kernel
def compact_dirty_queue(PZ, PFL, S, DQ, DQT):
    """Drop stale entries (pages no longer dirty or under writeback) when the FIFO is full."""
    cap = DQ.shape[0]
    w = S[ST.dq_wb]
    out = w
    head_new = -1
    for i in range(S[ST.dq_wb], S[ST.dq_tail]):
        if i == S[ST.dq_head]:
            head_new = out
        pid = DQ[i % cap]
        fl = PFL[pid]
        if PZ[pid] >= 0 and (fl & (PG.dirty | PG.writeback)) != 0:
            DQ[out % cap] = pid
            DQT[out % cap] = DQT[i % cap]
            out += 1
    if head_new < 0:
        head_new = out
    S[ST.dq_head] = head_new
    S[ST.dq_tail] = out


# ============================================================================ background: kswapd, writeback, samples

@kernel
def sample(Z, S, SM, now):
    n = S[ST.sample_n]
    SM[n, SMF.ns] = now
    for z in range(NZ):
        SM[n, SMF.free + z] = Z[z, ZF.free]
        SM[n, SMF.batch + z] = Z[z, ZF.batch]
        SM[n, SMF.inactive + z] = Z[z, ZF.nr_inactive]
        SM[n, SMF.active + z] = Z[z, ZF.nr_active]
        SM[n, SMF.dirty + z] = Z[z, ZF.nr_dirty]
        SM[n, SMF.pgalloc + z] = Z[z, ZF.pgalloc]
        SM[n, SMF.pgscan + z] = Z[z, ZF.pgscan_kswapd] + Z[z, ZF.pgscan_direct]
    SM[n, SMF.ks_state] = S[ST.ks_state]
    SM[n, SMF.writeback] = S[ST.nr_writeback]
    S[ST.sample_n] = n + 1


@leaf
def background(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, KQ, SM, now):
    """Everything that runs beside the workload, up to ``now``; sets the time of the next step."""
    st = S[ST.ks_state]
    # kswapd_advance() returns at once, touching nothing, while kswapd sleeps, naps or is inside a pass: test
    # that here and save the call (at 32 pages per unit a unit comes every 32 us, a pass takes hundreds)
    if (st == KS.nap and now >= S[ST.ks_nap_end]) or (st == KS.run and now >= S[ST.ks_busy]):
        kswapd_advance(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, KQ, now)
    if now >= S[ST.wb_next]:
        if S[ST.nr_dirty] + S[ST.nr_writeback] > 0:
            writeback_advance(Z, S, P, F, PZ, PFL, PPREV, PNEXT, DQ, DQT, KQ, now)
        else:
            S[ST.wb_last] = now
        S[ST.wb_next] = now + 50000  # 50 us steps
    while now >= S[ST.next_sample] and S[ST.sample_n] < P[I.sample_cap]:
        sample(Z, S, SM, S[ST.next_sample])
        S[ST.next_sample] += P[I.sample_ns]
    nxt = S[ST.wb_next]
    if S[ST.nr_dirty] + S[ST.nr_writeback] == 0:
        nxt = BIG
    st = S[ST.ks_state]
    if st == KS.run:
        t = S[ST.ks_busy]
        nxt = t if t < nxt else nxt
    elif st == KS.nap:
        t = S[ST.ks_nap_end]
        nxt = t if t < nxt else nxt
    if S[ST.sample_n] < P[I.sample_cap]:
        t = S[ST.next_sample]
        nxt = t if t < nxt else nxt
    S[ST.next_bg] = nxt


@leaf
def global_dirty_thresh(Z, P):
    """global_dirty_limits() (mm/page-writeback.c): DIV_ROUND_UP(vm_dirty_bytes, PAGE_SIZE) if set, else
    vm_dirty_ratio % of the dirtyable memory."""
    if P[I.vm_dirty_bytes] > 0:
        return P[I.vm_dirty_bytes]
    return P[I.vm_dirty_ratio] * global_dirtyable(Z) // 100


@kernel
def throttle_writer(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, KQ, SM):
    """balance_dirty_pages(): the writer waits while dirty + writeback pages exceed vm_dirty_ratio.

    Like balance_dirty_pages_ratelimited(), one pause covers the next
    ratelimit_pages (32) pages the writer dirties (``P[I.dirty_ratelimit]``, in units).
    """
    rate = F[FP.writeback_mb_s]
    waited = False
    for _ in range(100000):
        thresh = global_dirty_thresh(Z, P)
        over = S[ST.nr_dirty] + S[ST.nr_writeback] - thresh + P[I.dirty_ratelimit]
        if over < 0:
            break
        waited = True
        # wait for over + 1 units to complete: writeback completes whole units, so nothing shorter can bring
        # the count under the limit (at U = 1, over + 1 pages; waiting for one page at U > 1 would only wake
        # the writer twenty times per unit to find the count unchanged)
        dt = int((over + 1) / rate)
        if dt < 50000:
            dt = 50000
        now = S[ST.now] + dt
        S[ST.now] = now
        S[ST.seq_throttle_ns] += dt
        S[ST.wb_next] = now
        background(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, KQ, SM, now)
    if waited:
        S[ST.write_throttles] += 1


# ============================================================================ the workload

@kernel
def change_other(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, KQ, delta, now):
    """Memory outside the file LRU (slab, page tables, processes) grows or shrinks by ``delta`` pages.

    Spread over the zones by size; growing takes free pages (reclaiming the
    oldest page cache when a zone would fall below its high watermark),
    shrinking frees them.
    """
    total = 0
    for z in range(NZ):
        total += Z[z, ZF.managed]
    for z in range(NZ):
        if Z[z, ZF.managed] == 0:
            continue
        n = delta * Z[z, ZF.managed] // total
        if n < 0:
            n = -n if -n < Z[z, ZF.nr_other] else Z[z, ZF.nr_other]
            Z[z, ZF.nr_other] -= n
            Z[z, ZF.free] += n
            continue
        for _ in range(64):
            short = Z[z, ZF.whigh] + n - Z[z, ZF.free]
            if short <= 0 or lru_pages(Z, z) == 0:
                break
            shrink_zone(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, KQ, z, short + P[I.swap_cluster_max], False, now)
        room = Z[z, ZF.free] - Z[z, ZF.wmin]
        if n > room:
            n = room if room > 0 else 0
        Z[z, ZF.nr_other] += n
        Z[z, ZF.free] -= n

@kernel
def free_file_pages(Z, S, PZ, PFL, PPREV, PNEXT, first, count):
    """truncate_inode_pages() of removed files: every cached page goes back to the free lists."""
    for pid in range(first, first + count):
        z = PZ[pid]
        if z < 0:
            continue
        fl = PFL[pid]
        lru = LRU.active if (fl & PG.active) != 0 else LRU.inactive
        lru_del(Z, PPREV, PNEXT, z, lru, pid)
        if (fl & PG.dirty) != 0:
            Z[z, ZF.nr_dirty] -= 1
            S[ST.nr_dirty] -= 1
        if (fl & PG.writeback) != 0:
            Z[z, ZF.nr_writeback] -= 1
            S[ST.nr_writeback] -= 1
        PZ[pid] = -1
        PFL[pid] = 0
        Z[z, ZF.free] += 1
        S[ST.pages_freed] += 1


@leaf
def access_page(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, KQ, TL, TR, SM, pid, write, thread,
                dt_hit, dt_miss, dt_write):
    """One 4 KiB read() or write() of page ``pid`` by ``thread`` (U of them: unit ``pid``): the page cache, the
    allocator, the clock."""
    if write and (S[ST.nr_dirtied] % P[I.dirty_ratelimit]) == 0:
        # balance_dirty_pages_ratelimited(): every 32 pages dirtied (in units), check the limit
        thresh = global_dirty_thresh(Z, P)
        if S[ST.nr_dirty] + S[ST.nr_writeback] >= thresh:
            throttle_writer(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, KQ, SM)
    z = PZ[pid]
    hit = z >= 0
    if write:
        dt = dt_write
    elif hit:
        dt = dt_hit
    else:
        dt = dt_miss
    now = S[ST.now] + dt
    S[ST.now] = now
    S[ST.events] += 1
    if now >= S[ST.next_bg]:
        background(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, KQ, SM, now)
    if hit:
        S[ST.pagecache_hits] += 1
        # mark_page_accessed()
        fl = PFL[pid]
        if (fl & PG.active) == 0 and (fl & PG.referenced) != 0:
            lru_del(Z, PPREV, PNEXT, z, LRU.inactive, pid)
            PFL[pid] = (fl | PG.active) & ~PG.referenced
            lru_add(Z, PPREV, PNEXT, z, LRU.active, pid)
            S[ST.pgactivate] += 1
            Z[z, ZF.pgactivate] += 1
        elif (fl & PG.referenced) == 0:
            PFL[pid] = fl | PG.referenced
    else:
        S[ST.pagecache_misses] += 1
        z, path, reset = alloc_page(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, KQ, TR, write, now)
        if z < 0:
            return
        now = S[ST.now]  # direct reclaim may have taken time
        prev = TL[thread]
        if prev >= 0 and prev != z:
            S[ST.zone_switches] += 1
        last = S[ST.prev_zone]
        if last >= 0 and last != z:
            # the allocator moved from zone `last` to `z`.  At U pages per unit the move falls at a unit's edge;
            # in the page model it falls inside a unit U - 1 times in U, and this thread's pages there go
            # last, ..., z: one switch inside, one fewer or more at its edge (layout.COUNTER_UNITS)
            S[ST.zone_switch_splits] += 1 + (1 if prev != last else 0) - (1 if prev != z else 0)
        S[ST.prev_zone] = z
        TL[thread] = z
        PZ[pid] = z
        PT[pid] = now
        PFL[pid] = PG.referenced  # add_to_page_cache_lru(), then mark_page_accessed()
        lru_add(Z, PPREV, PNEXT, z, LRU.inactive, pid)
        na = S[ST.pgalloc]
        if na >= P[I.trace_start] and S[ST.trace_n] < P[I.trace_cap]:
            n = S[ST.trace_n]
            TR[n, TRF.ns] = now
            TR[n, TRF.zone] = z
            TR[n, TRF.batch_dma32] = Z[ZONE.DMA32, ZF.batch]
            TR[n, TRF.batch_normal] = Z[ZONE.Normal, ZF.batch]
            TR[n, TRF.free_dma32] = Z[ZONE.DMA32, ZF.free]
            TR[n, TRF.free_normal] = Z[ZONE.Normal, ZF.free]
            TR[n, TRF.reset] = 1 if reset else 0
            TR[n, TRF.path] = path
            TR[n, TRF.depleted] = Z[ZONE.DMA32, ZF.depleted] + 2 * Z[ZONE.Normal, ZF.depleted]
            S[ST.trace_n] = n + 1
    if write and (PFL[pid] & PG.dirty) == 0:
        if S[ST.dq_tail] - S[ST.dq_wb] >= DQ.shape[0]:
            compact_dirty_queue(PZ, PFL, S, DQ, DQT)
        set_page_dirty(Z, S, PFL, DQ, DQT, z, pid, now)


@kernel
def run(Z, LR, ZL, S, P, F, PH, PR, U, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, KQ, TC, TL, TR, SM):
    """Run every phase of the workload table ``PH``; per-phase results in ``PR``."""
    maxt = TL.shape[0]
    for ph in range(PH.shape[0]):
        op = PH[ph, PHF.op]
        nthreads = PH[ph, PHF.threads]
        file0 = PH[ph, PHF.file0]
        fp = PH[ph, PHF.file_pages]
        chunk = PH[ph, PHF.chunk]
        dt_miss = PH[ph, PHF.dt_miss]
        dt_hit = PH[ph, PHF.dt_hit]
        dt_write = PH[ph, PHF.dt_write]
        u = PH[ph, PHF.u0]
        S[ST.phase] = ph
        PR[ph, PRF.t0] = S[ST.now]
        h0 = S[ST.pagecache_hits]
        m0 = S[ST.pagecache_misses]
        a0 = S[ST.pgalloc]
        ad0 = Z[ZONE.DMA32, ZF.pgalloc]
        an0 = Z[ZONE.Normal, ZF.pgalloc]
        sc0 = S[ST.pgscan_kswapd] + S[ST.pgscan_direct]
        for i in range(NC):
            PR[ph, PRF.counters + i] = S[COUNTERS_AT + i]
        write = op == OP.seq_write or op == OP.rand_write
        if op == OP.seq_write or op == OP.seq_read:
            for t in range(nthreads):
                TC[t] = 0
                TC[maxt + t] = t
            alive = nthreads
            while alive > 0:
                j = int(U[u] * alive)
                u += 1
                if j >= alive:
                    j = alive - 1
                t = TC[maxt + j]
                start = TC[t]
                end = start + chunk
                if end > fp:
                    end = fp
                base = file0 + t * fp
                for off in range(start, end):
                    access_page(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, KQ, TL, TR, SM,
                                base + off, write, t, dt_hit, dt_miss, dt_write)
                TC[t] = end
                if end >= fp:
                    TC[maxt + j] = TC[maxt + alive - 1]
                    alive -= 1
        elif op == OP.rand_write or op == OP.rand_read:
            total = nthreads * PH[ph, PHF.ops]
            for _ in range(total):
                t = int(U[u] * nthreads)
                off = int(U[u + 1] * fp)
                u += 2
                if t >= nthreads:
                    t = nthreads - 1
                if off >= fp:
                    off = fp - 1
                access_page(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, KQ, TL, TR, SM,
                            file0 + t * fp + off, write, t, dt_hit, dt_miss, dt_write)
        elif op == OP.delete:
            free_file_pages(Z, S, PZ, PFL, PPREV, PNEXT, file0, nthreads * fp)
        elif op == OP.other:
            change_other(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, KQ, PH[ph, PHF.ops], S[ST.now])
        elif op == OP.idle:
            end_t = S[ST.now] + PH[ph, PHF.ops]
            step = 1000000  # 1 ms
            while S[ST.now] < end_t:
                now = S[ST.now] + step
                if now > end_t:
                    now = end_t
                S[ST.now] = now
                background(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, KQ, SM, now)
        PR[ph, PRF.t1] = S[ST.now]
        PR[ph, PRF.hits] = S[ST.pagecache_hits] - h0
        PR[ph, PRF.misses] = S[ST.pagecache_misses] - m0
        PR[ph, PRF.allocs] = S[ST.pgalloc] - a0
        PR[ph, PRF.alloc_dma32] = Z[ZONE.DMA32, ZF.pgalloc] - ad0
        PR[ph, PRF.alloc_normal] = Z[ZONE.Normal, ZF.pgalloc] - an0
        PR[ph, PRF.scan] = S[ST.pgscan_kswapd] + S[ST.pgscan_direct] - sc0
        for i in range(NC):
            PR[ph, PRF.counters + i] = S[COUNTERS_AT + i] - PR[ph, PRF.counters + i]
