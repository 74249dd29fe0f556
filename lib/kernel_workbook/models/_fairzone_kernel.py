"""The fair-zone allocator model's event loop: one node, its zones, kswapd, writeback and a page-cache workload.

Plain arrays in, plain arrays out (layout: :mod:`._fairzone_layout`).  The
functions mirror the kernel's, named after them:

* ``get_page_from_freelist`` / ``alloc_page`` -- the allocation fast path of
  each variant (``P_FAIR``: none as in 3.0, ``ALLOC_FAIR`` as in
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
counted (``C_ZONELIST_SCANNED``, ``C_WMARK_CHECKS``...) and priced outside,
so that the cost assumptions cannot change what the allocator does.

The same source runs compiled (Numba) or as plain Python (``_jit.pure``):
that copy is the pure-Python reference the tests compare against.
"""

from __future__ import annotations

from . import _fairzone_layout as L
from ._jit import borrowed, drop_stale_cache, kernel, leaf

KERNEL_SOURCES = ("_fairzone_layout.py", "_fairzone_kernel.py", "_jit.py")
if not __name__.endswith("_pure"):
    # Numba keys its cache on this file alone; the layout's constants are compiled in too
    drop_stale_cache(KERNEL_SOURCES, "kwb_fairzone_kernel.sha256")

# counter slots in S
C_PGALLOC = L.S_C0 + L.C_PGALLOC
C_PGACTIVATE = L.S_C0 + L.C_PGACTIVATE
C_PGDEACTIVATE = L.S_C0 + L.C_PGDEACTIVATE
C_PGREFILL = L.S_C0 + L.C_PGREFILL
C_PAGEOUTRUN = L.S_C0 + L.C_PAGEOUTRUN
C_ALLOCSTALL = L.S_C0 + L.C_ALLOCSTALL
C_LOW_QUICK = L.S_C0 + L.C_KSWAPD_LOW_WMARK_HIT_QUICKLY
C_HIGH_QUICK = L.S_C0 + L.C_KSWAPD_HIGH_WMARK_HIT_QUICKLY
C_KSWAPD_WAKEUPS = L.S_C0 + L.C_KSWAPD_WAKEUPS
C_SLOWPATH = L.S_C0 + L.C_SLOWPATH
C_GFPL = L.S_C0 + L.C_GFPL_CALLS
C_ZL_SCANNED = L.S_C0 + L.C_ZONELIST_SCANNED
C_WMARK = L.S_C0 + L.C_WMARK_CHECKS
C_BATCH_READS = L.S_C0 + L.C_BATCH_READS
C_FLAG_READS = L.S_C0 + L.C_FLAG_READS
C_BATCH_UPDATES = L.S_C0 + L.C_BATCH_UPDATES
C_RESETS = L.S_C0 + L.C_BATCH_RESETS
C_RESET_ZONES = L.S_C0 + L.C_BATCH_RESET_ZONES
C_FAIR_FAILS = L.S_C0 + L.C_FAIR_FAILS
C_RESCANS = L.S_C0 + L.C_RESCANS
C_DIRTY_CHECKS = L.S_C0 + L.C_DIRTY_CHECKS
C_DIRTY_CALCS = L.S_C0 + L.C_DIRTY_LIMIT_CALCS
C_DIRTY_FAILS = L.S_C0 + L.C_DIRTY_FAILS
C_SWITCHES = L.S_C0 + L.C_ZONE_SWITCHES
C_HITS = L.S_C0 + L.C_HITS
C_MISSES = L.S_C0 + L.C_MISSES
C_THROTTLES = L.S_C0 + L.C_WRITE_THROTTLES
C_SCAN_K = L.S_C0 + L.C_PGSCAN_KSWAPD
C_STEAL_K = L.S_C0 + L.C_PGSTEAL_KSWAPD
C_SCAN_D = L.S_C0 + L.C_PGSCAN_DIRECT
C_STEAL_D = L.S_C0 + L.C_PGSTEAL_DIRECT
C_DIRTIED = L.S_C0 + L.C_NR_DIRTIED
C_WRITTEN = L.S_C0 + L.C_NR_WRITTEN
C_FAST = L.S_C0 + L.C_FAST_ALLOCS
C_FREED = L.S_C0 + L.C_FREED

# alloc_flags (mm/internal.h); ALLOC_WMARK_MIN is "LOW unset"
A_WMARK_LOW = 1
A_FAIR = 2  # ALLOC_FAIR
A_DIRTY = 4  # ALLOC_DIRTY (patch 4/4)
A_CONSIDER_DIRTY = 8  # consider_zone_dirty: ALLOC_WMARK_LOW && __GFP_WRITE (3.3 - 3.16-rc1)

DEF_PRIORITY = 12
BIG = 1 << 62
# Views without reference counting (compiled mode; the identity in the pure copy): every call that passes an
# array would otherwise cost an atomic increment and decrement, most of the fast path's time.
borrow = borrowed(__name__)


# ============================================================================ LRU lists (include/linux/mm_inline.h)

@leaf
def lru_add(Z, PPREV, PNEXT, z, lru, pid):
    """add_page_to_lru_list(): the page becomes the newest (head) of list ``lru`` of zone ``z``."""
    hs = L.Z_HEAD_I + 2 * lru
    head = Z[z, hs]
    PPREV[pid] = -1
    PNEXT[pid] = head
    if head >= 0:
        PPREV[head] = pid
    else:
        Z[z, hs + 1] = pid
    Z[z, hs] = pid
    Z[z, L.Z_NR_INACTIVE + lru] += 1


@leaf
def lru_add_tail(Z, PPREV, PNEXT, z, lru, pid):
    """The page becomes the oldest of the list (rotate_reclaimable_page())."""
    hs = L.Z_HEAD_I + 2 * lru
    tail = Z[z, hs + 1]
    PNEXT[pid] = -1
    PPREV[pid] = tail
    if tail >= 0:
        PNEXT[tail] = pid
    else:
        Z[z, hs] = pid
    Z[z, hs + 1] = pid
    Z[z, L.Z_NR_INACTIVE + lru] += 1


@leaf
def lru_del(Z, PPREV, PNEXT, z, lru, pid):
    """del_page_from_lru_list()."""
    hs = L.Z_HEAD_I + 2 * lru
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
    Z[z, L.Z_NR_INACTIVE + lru] -= 1


# ============================================================================ watermarks and dirty limits

@leaf
def watermark_ok(Z, LR, z, mark_slot, classzone):
    """__zone_watermark_ok() for order 0: free pages above the mark plus lowmem_reserve[classzone]."""
    return Z[z, L.Z_FREE] > Z[z, mark_slot] + LR[z, classzone]


@leaf
def zone_dirty_limit(Z, P, z):
    """zone_dirty_limit() (mm/page-writeback.c, 3.14-3.16): vm_dirty_ratio % of the zone's dirtyable memory."""
    free = Z[z, L.Z_FREE]
    r = Z[z, L.Z_DIRTY_BALANCE_RESERVE]
    dirtyable = free - (r if r < free else free) + Z[z, L.Z_NR_INACTIVE] + Z[z, L.Z_NR_ACTIVE]
    return P[L.P_DIRTY_RATIO] * dirtyable // 100


@leaf
def global_dirtyable(Z):
    """global_dirtyable_memory() (3.14+): free - dirty_balance_reserve + file LRU pages, summed over zones."""
    free = 0
    res = 0
    lru = 0
    for z in range(L.NZ):
        free += Z[z, L.Z_FREE]
        res += Z[z, L.Z_DIRTY_BALANCE_RESERVE]
        lru += Z[z, L.Z_NR_INACTIVE] + Z[z, L.Z_NR_ACTIVE]
    return free - (res if res < free else free) + lru


# ============================================================================ the allocator

@kernel
def reset_alloc_batches(Z, S, P, ZL, now):
    """reset_alloc_batches(): NR_ALLOC_BATCH back to its reset value.

    3.14-3.16-rc1 walk the zonelist (every zone is local on one node); patch
    3/4 walks ``node_zones[0..preferred]`` and clears ``ZONE_FAIR_DEPLETED``.
    Either way every populated zone of the node; the depleted bits are only
    ever set by patch 3/4.
    """
    S[C_RESETS] += 1
    for k in range(ZL.shape[0]):
        z = ZL[k]
        Z[z, L.Z_BATCH] = Z[z, L.Z_BATCH_RESET]
        Z[z, L.Z_DEPLETED] = 0
        Z[z, L.Z_NR_RESETS] += 1
        Z[z, L.Z_LAST_RESET_NS] = now
        S[C_RESET_ZONES] += 1


@leaf
def buffered_rmqueue(Z, LR, S, P, z, flags, classzone):
    """Take one page from zone ``z``: NR_FREE_PAGES, NR_ALLOC_BATCH (and ZONE_FAIR_DEPLETED), pgalloc."""
    Z[z, L.Z_FREE] -= 1
    fair = P[L.P_FAIR]
    if fair == 1:
        Z[z, L.Z_BATCH] -= 1
        S[C_BATCH_UPDATES] += 1
    elif fair == 2 and Z[z, L.Z_FAIR_ENABLED] != 0:
        Z[z, L.Z_BATCH] -= 1
        S[C_BATCH_UPDATES] += 1
        b = Z[z, L.Z_BATCH]
        if (b == 0 if P[L.P_FAIR_ZERO_TEST] != 0 else b <= 0) and Z[z, L.Z_DEPLETED] == 0:
            Z[z, L.Z_DEPLETED] = 1
    Z[z, L.Z_PGALLOC] += 1
    S[C_PGALLOC] += 1
    slack = Z[z, L.Z_FREE] - Z[z, L.Z_WMIN] - LR[z, classzone]
    if slack < Z[z, L.Z_FREE_MIN_SEEN]:
        Z[z, L.Z_FREE_MIN_SEEN] = slack
    if (flags & A_WMARK_LOW) != 0 and slack < 0:
        Z[z, L.Z_FAST_BELOW_MIN] += 1


@leaf
def get_page_from_freelist(Z, LR, S, P, ZL, flags, classzone, now):
    """get_page_from_freelist(): walk the zonelist once (and again where the variant rescans).

    Returns ``(zone, flags)``: the zone a page was taken from (-1 if none)
    and the flags left (patch 3/4 clears ALLOC_FAIR here, patch 4/4 ALLOC_DIRTY).
    """
    S[C_GFPL] += 1
    fair_mode = P[L.P_FAIR]
    mark = L.Z_WLOW if (flags & A_WMARK_LOW) != 0 else L.Z_WMIN
    nr_fair_skipped = 0
    nr_fair_eligible = 0
    nr_fail_watermark = 0
    nr_fail_dirty = 0
    while True:
        for k in range(ZL.shape[0]):
            z = ZL[k]
            S[C_ZL_SCANNED] += 1
            if (flags & A_FAIR) != 0:
                if fair_mode == 2:
                    # patch 3/4: a zone not eligible for fairness ends the fair pass
                    if Z[z, L.Z_FAIR_ENABLED] == 0:
                        break
                    nr_fair_eligible += 1
                    S[C_FLAG_READS] += 1
                    if Z[z, L.Z_DEPLETED] != 0:
                        nr_fair_skipped += 1
                        continue
                else:
                    # 3.14-3.16-rc1: every zone is local on one node; skip an expired batch
                    S[C_BATCH_READS] += 1
                    if Z[z, L.Z_BATCH] <= 0:
                        continue
            if (flags & A_CONSIDER_DIRTY) != 0:
                S[C_DIRTY_CHECKS] += 1
                S[C_DIRTY_CALCS] += 1
                if Z[z, L.Z_NR_DIRTY] + Z[z, L.Z_NR_WRITEBACK] > zone_dirty_limit(Z, P, z):
                    S[C_DIRTY_FAILS] += 1
                    continue
            if (flags & A_DIRTY) != 0:
                S[C_DIRTY_CHECKS] += 1
                if Z[z, L.Z_NR_DIRTY] + Z[z, L.Z_NR_WRITEBACK] > Z[z, L.Z_DIRTY_LIMIT_CACHED]:
                    nr_fail_dirty += 1
                    S[C_DIRTY_FAILS] += 1
                    Z[z, L.Z_DIRTY_LIMIT_CACHED] = zone_dirty_limit(Z, P, z)
                    S[C_DIRTY_CALCS] += 1
                    continue
            S[C_WMARK] += 1
            if not watermark_ok(Z, LR, z, mark, classzone):
                nr_fail_watermark += 1
                continue
            buffered_rmqueue(Z, LR, S, P, z, flags, classzone)
            return z, flags
        rescan = False
        if (flags & A_FAIR) != 0 and fair_mode == 2:
            # patch 3/4: the fair pass failed; reset only if a watermark failed or every batch is spent
            S[C_FAIR_FAILS] += 1
            flags &= ~A_FAIR
            if P[L.P_NR_ONLINE_NODES] > 1:
                rescan = True
            if nr_fail_watermark > 0 or nr_fair_eligible == nr_fair_skipped:
                rescan = True
                reset_alloc_batches(Z, S, P, ZL, now)
        if (flags & A_DIRTY) != 0 and nr_fail_dirty > 0:
            # patch 4/4: some zone was over its (cached) dirty limit: drop the spreading, rescan
            flags &= ~A_DIRTY
            rescan = True
        if not rescan:
            return -1, flags
        S[C_RESCANS] += 1


@kernel
def wakeup_kswapd(Z, LR, S, P, z, classzone, now):
    """wakeup_kswapd(): wake the node's kswapd if it sleeps and zone ``z`` is below its wake mark."""
    if Z[z, L.Z_MANAGED] == 0:
        return
    st = S[L.S_KS_STATE]
    if st == L.KS_RUN:
        return  # !waitqueue_active(): kswapd is awake already
    if P[L.P_WAKE_HIGH] != 0:
        if Z[z, L.Z_FREE] > Z[z, L.Z_WHIGH]:  # zone_balanced(zone, order, 0, 0) (3.12+)
            return
    else:
        if Z[z, L.Z_FREE] > Z[z, L.Z_WLOW]:  # zone_watermark_ok_safe(zone, order, low, 0, 0) (3.0)
            return
    if st == L.KS_NAP:
        S[C_LOW_QUICK] += 1  # woken during the short sleep: "low watermark hit quickly"
    S[L.S_KS_STATE] = L.KS_RUN
    S[L.S_KS_BUSY] = now
    S[L.S_KS_PRIORITY] = DEF_PRIORITY
    S[L.S_KS_CLASSZONE] = classzone
    S[C_KSWAPD_WAKEUPS] += 1
    S[L.S_NEXT_BG] = now


@kernel
def shrink_zone(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, z, nr_to_scan, is_kswapd, now):
    """shrink_zone() for the file LRU: deactivate if the inactive list is low, then scan the oldest pages.

    Returns ``(scanned, reclaimed)`` of the inactive list.
    """
    # shrink_active_list() when inactive_file_is_low(): active > inactive
    nact = Z[z, L.Z_NR_ACTIVE]
    if nact > Z[z, L.Z_NR_INACTIVE]:
        n = nr_to_scan if nr_to_scan < nact else nact
        for _ in range(n):
            pid = Z[z, L.Z_TAIL_A]
            lru_del(Z, PPREV, PNEXT, z, L.LRU_ACTIVE, pid)
            PFL[pid] = PFL[pid] & ~(L.PG_ACTIVE | L.PG_REFERENCED)
            lru_add(Z, PPREV, PNEXT, z, L.LRU_INACTIVE, pid)
        S[C_PGREFILL] += n
        S[C_PGDEACTIVATE] += n
        Z[z, L.Z_PGDEACTIVATE] += n
    # shrink_inactive_list() / shrink_page_list()
    nin = Z[z, L.Z_NR_INACTIVE]
    n = nr_to_scan if nr_to_scan < nin else nin
    scanned = 0
    reclaimed = 0
    for _ in range(n):
        pid = Z[z, L.Z_TAIL_I]
        lru_del(Z, PPREV, PNEXT, z, L.LRU_INACTIVE, pid)
        scanned += 1
        fl = PFL[pid]
        if (fl & (L.PG_DIRTY | L.PG_WRITEBACK)) != 0:
            # kswapd does not write file pages (3.2+): PG_reclaim, back on the list
            PFL[pid] = fl | L.PG_RECLAIM
            lru_add(Z, PPREV, PNEXT, z, L.LRU_INACTIVE, pid)
            continue
        # clean: reclaimed, even if referenced (PAGEREF_RECLAIM_CLEAN for unmapped page cache)
        PZ[pid] = -1
        PFL[pid] = 0
        Z[z, L.Z_FREE] += 1
        reclaimed += 1
        Z[z, L.Z_EVICT_N] += 1
        Z[z, L.Z_EVICT_AGE_US] += (now - PT[pid]) // 1000
    if is_kswapd:
        Z[z, L.Z_PGSCAN_KSWAPD] += scanned
        Z[z, L.Z_PGSTEAL_KSWAPD] += reclaimed
        S[C_SCAN_K] += scanned
        S[C_STEAL_K] += reclaimed
    else:
        Z[z, L.Z_PGSCAN_DIRECT] += scanned
        Z[z, L.Z_PGSTEAL_DIRECT] += reclaimed
        S[C_SCAN_D] += scanned
        S[C_STEAL_D] += reclaimed
    return scanned, reclaimed


@leaf
def lru_pages(Z, z):
    return Z[z, L.Z_NR_INACTIVE] + Z[z, L.Z_NR_ACTIVE]


@kernel
def pgdat_balanced(Z, LR, P, classzone):
    """pgdat_balanced() for order 0: every zone up to classzone at its high watermark.

    Zones with nothing on the LRU count as balanced (the kernel's
    ``!zone_reclaimable()``); 3.0 also adds lowmem_reserve[classzone]
    (``P_KSWAPD_CLASSZONE``), 3.16 checks each zone as its own classzone.
    """
    for z in range(classzone + 1):
        if Z[z, L.Z_MANAGED] == 0 or lru_pages(Z, z) == 0:
            continue
        res = LR[z, classzone] if P[L.P_KSWAPD_CLASSZONE] != 0 else 0
        if Z[z, L.Z_FREE] <= Z[z, L.Z_WHIGH] + res:
            return False
    return True


@kernel
def gap_balanced(Z, P, classzone):
    """Every zone with pages on its LRU at high + balance gap (kswapd_shrink_zone()'s target)."""
    for z in range(classzone + 1):
        if Z[z, L.Z_MANAGED] == 0 or lru_pages(Z, z) == 0:
            continue
        gap = Z[z, L.Z_GAP] if P[L.P_BALANCE_GAP] != 0 else 0
        if Z[z, L.Z_FREE] <= Z[z, L.Z_WHIGH] + gap:
            return False
    return True


@kernel
def balance_pass(Z, LR, S, P, PZ, PFL, PPREV, PNEXT, PT, now):
    """One priority iteration of balance_pgdat().  Returns ``(pages scanned, balanced)``."""
    classzone = S[L.S_KS_CLASSZONE]
    end_zone = -1
    for z in range(classzone, -1, -1):
        if Z[z, L.Z_MANAGED] == 0 or lru_pages(Z, z) == 0:
            continue
        if Z[z, L.Z_FREE] <= Z[z, L.Z_WHIGH]:  # !zone_balanced(zone, order, 0, 0)
            end_zone = z
            break
    if end_zone < 0:
        return 0, True
    S[C_PAGEOUTRUN] += 1
    prio = S[L.S_KS_PRIORITY]
    raise_priority = True
    scanned = 0
    reclaimed = 0
    swap_cluster_max = P[L.P_SWAP_CLUSTER_MAX]
    for z in range(end_zone + 1):
        if Z[z, L.Z_MANAGED] == 0 or lru_pages(Z, z) == 0:
            continue
        # kswapd_shrink_zone(): skip a zone above high + balance gap (+ lowmem_reserve[classzone])
        gap = Z[z, L.Z_GAP] if P[L.P_BALANCE_GAP] != 0 else 0
        if Z[z, L.Z_FREE] > Z[z, L.Z_WHIGH] + gap + LR[z, end_zone]:
            raise_priority = False
            continue
        # get_scan_count(): size >> priority, nothing at all for a small zone until the priority rises
        nr = lru_pages(Z, z) >> prio
        if nr == 0:
            continue
        sc, rc = shrink_zone(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, z, nr, True, now)
        scanned += sc
        reclaimed += rc
        target = Z[z, L.Z_WHIGH] if Z[z, L.Z_WHIGH] > swap_cluster_max else swap_cluster_max
        if scanned >= target:
            raise_priority = False
    balanced = pgdat_balanced(Z, LR, P, classzone)
    if not balanced:
        if P[L.P_RAISE_PRIORITY] != 0:
            if (raise_priority or reclaimed == 0) and prio > 0:
                prio -= 1
        else:
            # 3.0: after SWAP_CLUSTER_MAX pages, "goto loop_again" at DEF_PRIORITY
            if reclaimed >= swap_cluster_max:
                prio = DEF_PRIORITY
            elif prio > 0:
                prio -= 1
        S[L.S_KS_PRIORITY] = prio
    S[L.S_KS_LAST_PASS] = scanned
    return scanned, balanced


@kernel
def kswapd_advance(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, now):
    """Run kswapd up to ``now``: passes of balance_pgdat at its CPU speed, the short nap, sleep."""
    rate = F[L.F_KSWAPD_PAGES_PER_NS]
    while True:
        st = S[L.S_KS_STATE]
        if st == L.KS_SLEEP:
            return
        if st == L.KS_NAP:
            t = S[L.S_KS_NAP_END]
            if now < t:
                return
            # kswapd_try_to_sleep(), after the HZ/10 nap: balanced -> sleep until woken
            if pgdat_balanced(Z, LR, P, S[L.S_KS_CLASSZONE]):
                S[L.S_KS_STATE] = L.KS_SLEEP
                return
            S[C_HIGH_QUICK] += 1
            S[L.S_KS_STATE] = L.KS_RUN
            S[L.S_KS_BUSY] = t
            S[L.S_KS_PRIORITY] = DEF_PRIORITY
            continue
        t = S[L.S_KS_BUSY]
        if t > now:
            return
        scanned, balanced = balance_pass(Z, LR, S, P, PZ, PFL, PPREV, PNEXT, PT, now)
        cost = scanned if scanned > 0 else 1
        t += int(cost / rate)
        S[L.S_KS_BUSY] = t
        if balanced:
            if P[L.P_KSWAPD_STAYS_AWAKE] != 0 and not gap_balanced(Z, P, S[L.S_KS_CLASSZONE]):
                # no nap while a zone is below high + gap: look again a scheduler tick (1 ms) later
                S[L.S_KS_BUSY] = t + 1000000
                S[L.S_KS_PRIORITY] = DEF_PRIORITY
                continue
            S[L.S_KS_STATE] = L.KS_NAP
            S[L.S_KS_NAP_END] = t + P[L.P_NAP_NS]
            S[L.S_KS_PRIORITY] = DEF_PRIORITY


@kernel
def direct_reclaim(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, now):
    """try_to_free_pages(): the allocating task reclaims SWAP_CLUSTER_MAX pages from its zonelist.

    Returns the pages reclaimed; the time it took is added to the task's clock.
    """
    S[C_ALLOCSTALL] += 1
    target = P[L.P_SWAP_CLUSTER_MAX]
    got = 0
    scanned_all = 0
    prio = DEF_PRIORITY
    while prio >= 0 and got < target:
        for k in range(ZL.shape[0]):
            z = ZL[k]
            if lru_pages(Z, z) == 0:
                continue
            nr = lru_pages(Z, z) >> prio
            if nr == 0:
                continue
            sc, rc = shrink_zone(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, z, nr, False, now)
            got += rc
            scanned_all += sc
            if got >= target:
                break
        prio -= 1
    stall = int(scanned_all * F[L.F_DIRECT_NS_PER_PAGE])
    S[L.S_DIRECT_STALL_NS] += stall
    S[L.S_NOW] += stall
    return got


@leaf
def alloc_page(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, TR, gfp_write, now):
    """__alloc_pages_nodemask() for one order-0 page-cache page.  Returns ``(zone, path)``."""
    classzone = ZL[0]  # the preferred zone: the first populated zone of the zonelist
    flags = A_WMARK_LOW
    fair_mode = P[L.P_FAIR]
    if fair_mode == 1:
        flags |= A_FAIR
    elif fair_mode == 2 and Z[classzone, L.Z_FAIR_ENABLED] != 0:
        flags |= A_FAIR  # preferred_zoneref->fair_enabled
    if gfp_write:
        if P[L.P_DIRTY] == 1:
            flags |= A_CONSIDER_DIRTY
        elif P[L.P_DIRTY] == 2:
            flags |= A_DIRTY
    resets0 = S[C_RESETS]
    path = 0
    while True:
        z, flags = get_page_from_freelist(Z, LR, S, P, ZL, flags, classzone, now)
        if z >= 0:
            if path == 0:
                S[C_FAST] += 1
            return z, path, S[C_RESETS] != resets0
        if fair_mode == 1 and (flags & A_FAIR) != 0:
            # 3.14-3.16-rc1: the fair pass failed: reset the local batches, try once more without fairness
            S[C_FAIR_FAILS] += 1
            reset_alloc_batches(Z, S, P, ZL, now)
            flags &= ~A_FAIR
            if P[L.P_RETRY] == 2 and P[L.P_NR_ONLINE_NODES] == 1:
                break  # bigbatches1node: no unfair spill pass on one node, straight to the slow path
            S[C_RESCANS] += 1
            path = 1
            continue
        break
    # __alloc_pages_slowpath()
    S[C_SLOWPATH] += 1
    path = 2
    for k in range(ZL.shape[0]):
        wakeup_kswapd(Z, LR, S, P, ZL[k], classzone, now)
    tries = 0
    while True:
        z, f2 = get_page_from_freelist(Z, LR, S, P, ZL, 0, classzone, now)
        if z >= 0:
            return z, path, S[C_RESETS] != resets0
        path = 3
        got = direct_reclaim(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, now)
        tries += 1
        if got == 0 and tries > 4:
            # nothing left to reclaim: take any free page ignoring watermarks (ALLOC_NO_WATERMARKS)
            best = -1
            for k in range(ZL.shape[0]):
                zz = ZL[k]
                if Z[zz, L.Z_FREE] > 0 and (best < 0 or Z[zz, L.Z_FREE] > Z[best, L.Z_FREE]):
                    best = zz
            if best >= 0:
                buffered_rmqueue(Z, LR, S, P, best, 0, classzone)
                return best, path, S[C_RESETS] != resets0
            S[L.S_OOM] += 1
            return -1, path, S[C_RESETS] != resets0


# ============================================================================ writeback and dirty throttling

@kernel
def writeback_advance(Z, S, P, F, PZ, PFL, PPREV, PNEXT, DQ, DQT, now):
    """The device completes writeback at its rate; the flusher issues the oldest dirty pages.

    The flusher runs while dirty pages exceed ``dirty_background_ratio`` of
    dirtyable memory, or while the oldest dirty page is older than
    ``dirty_expire_interval`` (wb_writeback() / wb_check_old_data_flush()).
    """
    cap = DQ.shape[0]
    last = S[L.S_WB_LAST]
    S[L.S_WB_LAST] = now
    if S[L.S_NR_WRITEBACK] > 0:
        S[L.S_WB_CREDIT] += int((now - last) * F[L.F_WB_PAGES_PER_NS] * 1000.0)
        while S[L.S_WB_CREDIT] >= 1000 and S[L.S_DQ_WB] < S[L.S_DQ_HEAD]:
            pid = DQ[S[L.S_DQ_WB] % cap]
            S[L.S_DQ_WB] += 1
            z = PZ[pid]
            fl = PFL[pid]
            if z >= 0 and (fl & L.PG_WRITEBACK) != 0:
                S[L.S_WB_CREDIT] -= 1000
                Z[z, L.Z_NR_WRITEBACK] -= 1
                S[L.S_NR_WRITEBACK] -= 1
                S[C_WRITTEN] += 1
                if (fl & L.PG_RECLAIM) != 0 and (fl & L.PG_ACTIVE) == 0:
                    # end_page_writeback() -> rotate_reclaimable_page(): to the tail, reclaimable next
                    lru_del(Z, PPREV, PNEXT, z, L.LRU_INACTIVE, pid)
                    lru_add_tail(Z, PPREV, PNEXT, z, L.LRU_INACTIVE, pid)
                PFL[pid] = fl & ~(L.PG_WRITEBACK | L.PG_RECLAIM)
        if S[L.S_NR_WRITEBACK] == 0:
            S[L.S_WB_CREDIT] = 0
    else:
        S[L.S_WB_CREDIT] = 0
    if S[L.S_NR_DIRTY] == 0:
        return
    bg = P[L.P_DIRTY_BG_RATIO] * global_dirtyable(Z) // 100
    expire_before = (now - P[L.P_DIRTY_EXPIRE_NS]) // 1000000  # ms
    inflight = P[L.P_WB_INFLIGHT]
    while S[L.S_NR_WRITEBACK] < inflight and S[L.S_DQ_HEAD] < S[L.S_DQ_TAIL]:
        slot = S[L.S_DQ_HEAD] % cap
        if S[L.S_NR_DIRTY] <= bg and DQT[slot] > expire_before:
            break
        pid = DQ[slot]
        S[L.S_DQ_HEAD] += 1
        z = PZ[pid]
        fl = PFL[pid]
        if z >= 0 and (fl & L.PG_DIRTY) != 0:
            PFL[pid] = (fl & ~L.PG_DIRTY) | L.PG_WRITEBACK
            Z[z, L.Z_NR_DIRTY] -= 1
            Z[z, L.Z_NR_WRITEBACK] += 1
            S[L.S_NR_DIRTY] -= 1
            S[L.S_NR_WRITEBACK] += 1


@leaf
def set_page_dirty(Z, S, PFL, DQ, DQT, z, pid, now):
    """__set_page_dirty(): account the page and queue it for the flusher (oldest first)."""
    PFL[pid] |= L.PG_DIRTY
    Z[z, L.Z_NR_DIRTY] += 1
    S[L.S_NR_DIRTY] += 1
    S[C_DIRTIED] += 1
    cap = DQ.shape[0]
    slot = S[L.S_DQ_TAIL] % cap
    DQ[slot] = pid
    DQT[slot] = now // 1000000
    S[L.S_DQ_TAIL] += 1


@kernel
def compact_dirty_queue(PZ, PFL, S, DQ, DQT):
    """Drop stale entries (pages no longer dirty or under writeback) when the FIFO is full."""
    cap = DQ.shape[0]
    w = S[L.S_DQ_WB]
    out = w
    head_new = -1
    for i in range(S[L.S_DQ_WB], S[L.S_DQ_TAIL]):
        if i == S[L.S_DQ_HEAD]:
            head_new = out
        pid = DQ[i % cap]
        fl = PFL[pid]
        if PZ[pid] >= 0 and (fl & (L.PG_DIRTY | L.PG_WRITEBACK)) != 0:
            DQ[out % cap] = pid
            DQT[out % cap] = DQT[i % cap]
            out += 1
    if head_new < 0:
        head_new = out
    S[L.S_DQ_HEAD] = head_new
    S[L.S_DQ_TAIL] = out


# ============================================================================ background: kswapd, writeback, samples

@kernel
def sample(Z, S, SM, now):
    n = S[L.S_SAMPLE_N]
    SM[n, L.SM_NS] = now
    for z in range(L.NZ):
        SM[n, L.SM_FREE + z] = Z[z, L.Z_FREE]
        SM[n, L.SM_BATCH + z] = Z[z, L.Z_BATCH]
        SM[n, L.SM_INACTIVE + z] = Z[z, L.Z_NR_INACTIVE]
        SM[n, L.SM_ACTIVE + z] = Z[z, L.Z_NR_ACTIVE]
        SM[n, L.SM_DIRTY + z] = Z[z, L.Z_NR_DIRTY]
        SM[n, L.SM_PGALLOC + z] = Z[z, L.Z_PGALLOC]
        SM[n, L.SM_PGSCAN + z] = Z[z, L.Z_PGSCAN_KSWAPD] + Z[z, L.Z_PGSCAN_DIRECT]
    SM[n, L.SM_KS_STATE] = S[L.S_KS_STATE]
    SM[n, L.SM_WRITEBACK] = S[L.S_NR_WRITEBACK]
    S[L.S_SAMPLE_N] = n + 1


@kernel
def background(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, SM, now):
    """Everything that runs beside the workload, up to ``now``; sets the time of the next step."""
    st = S[L.S_KS_STATE]
    if st != L.KS_SLEEP:
        kswapd_advance(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, now)
    if now >= S[L.S_WB_NEXT]:
        if S[L.S_NR_DIRTY] + S[L.S_NR_WRITEBACK] > 0:
            writeback_advance(Z, S, P, F, PZ, PFL, PPREV, PNEXT, DQ, DQT, now)
        else:
            S[L.S_WB_LAST] = now
        S[L.S_WB_NEXT] = now + 50000  # 50 us steps
    while now >= S[L.S_NEXT_SAMPLE] and S[L.S_SAMPLE_N] < P[L.P_SAMPLE_CAP]:
        sample(Z, S, SM, S[L.S_NEXT_SAMPLE])
        S[L.S_NEXT_SAMPLE] += P[L.P_SAMPLE_NS]
    nxt = S[L.S_WB_NEXT]
    if S[L.S_NR_DIRTY] + S[L.S_NR_WRITEBACK] == 0:
        nxt = BIG
    st = S[L.S_KS_STATE]
    if st == L.KS_RUN:
        t = S[L.S_KS_BUSY]
        nxt = t if t < nxt else nxt
    elif st == L.KS_NAP:
        t = S[L.S_KS_NAP_END]
        nxt = t if t < nxt else nxt
    if S[L.S_SAMPLE_N] < P[L.P_SAMPLE_CAP]:
        t = S[L.S_NEXT_SAMPLE]
        nxt = t if t < nxt else nxt
    S[L.S_NEXT_BG] = nxt


@kernel
def throttle_writer(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, SM):
    """balance_dirty_pages(): the writer waits while dirty + writeback pages exceed vm_dirty_ratio.

    Like balance_dirty_pages_ratelimited(), one pause covers the next
    SWAP_CLUSTER_MAX (32) pages the writer dirties.
    """
    rate = F[L.F_WB_PAGES_PER_NS]
    waited = False
    for _ in range(100000):
        thresh = P[L.P_DIRTY_RATIO] * global_dirtyable(Z) // 100
        over = S[L.S_NR_DIRTY] + S[L.S_NR_WRITEBACK] - thresh + P[L.P_SWAP_CLUSTER_MAX]
        if over < 0:
            break
        waited = True
        dt = int((over + 1) / rate)
        if dt < 50000:
            dt = 50000
        now = S[L.S_NOW] + dt
        S[L.S_NOW] = now
        S[L.S_SEQ_THROTTLE_NS] += dt
        S[L.S_WB_NEXT] = now
        background(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, SM, now)
    if waited:
        S[C_THROTTLES] += 1


# ============================================================================ the workload

@kernel
def change_other(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, delta, now):
    """Memory outside the file LRU (slab, page tables, processes) grows or shrinks by ``delta`` pages.

    Spread over the zones by size; growing takes free pages (reclaiming the
    oldest page cache when a zone would fall below its high watermark),
    shrinking frees them.
    """
    total = 0
    for z in range(L.NZ):
        total += Z[z, L.Z_MANAGED]
    for z in range(L.NZ):
        if Z[z, L.Z_MANAGED] == 0:
            continue
        n = delta * Z[z, L.Z_MANAGED] // total
        if n < 0:
            n = -n if -n < Z[z, L.Z_NR_OTHER] else Z[z, L.Z_NR_OTHER]
            Z[z, L.Z_NR_OTHER] -= n
            Z[z, L.Z_FREE] += n
            continue
        for _ in range(64):
            short = Z[z, L.Z_WHIGH] + n - Z[z, L.Z_FREE]
            if short <= 0 or lru_pages(Z, z) == 0:
                break
            shrink_zone(Z, S, P, PZ, PFL, PPREV, PNEXT, PT, z, short + P[L.P_SWAP_CLUSTER_MAX], False, now)
        room = Z[z, L.Z_FREE] - Z[z, L.Z_WMIN]
        if n > room:
            n = room if room > 0 else 0
        Z[z, L.Z_NR_OTHER] += n
        Z[z, L.Z_FREE] -= n

@kernel
def free_file_pages(Z, S, PZ, PFL, PPREV, PNEXT, first, count):
    """truncate_inode_pages() of removed files: every cached page goes back to the free lists."""
    for pid in range(first, first + count):
        z = PZ[pid]
        if z < 0:
            continue
        fl = PFL[pid]
        lru = L.LRU_ACTIVE if (fl & L.PG_ACTIVE) != 0 else L.LRU_INACTIVE
        lru_del(Z, PPREV, PNEXT, z, lru, pid)
        if (fl & L.PG_DIRTY) != 0:
            Z[z, L.Z_NR_DIRTY] -= 1
            S[L.S_NR_DIRTY] -= 1
        if (fl & L.PG_WRITEBACK) != 0:
            Z[z, L.Z_NR_WRITEBACK] -= 1
            S[L.S_NR_WRITEBACK] -= 1
        PZ[pid] = -1
        PFL[pid] = 0
        Z[z, L.Z_FREE] += 1
        S[C_FREED] += 1


@leaf
def access_page(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, TL, TR, SM, pid, write, thread,
                dt_hit, dt_miss, dt_write):
    """One 4 KiB read() or write() of page ``pid`` by ``thread``: the page cache, the allocator, the clock."""
    if write and (S[C_DIRTIED] & 31) == 0:
        # balance_dirty_pages_ratelimited(): every 32 pages dirtied, check the limit
        thresh = P[L.P_DIRTY_RATIO] * global_dirtyable(Z) // 100
        if S[L.S_NR_DIRTY] + S[L.S_NR_WRITEBACK] >= thresh:
            throttle_writer(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, SM)
    z = PZ[pid]
    hit = z >= 0
    if write:
        dt = dt_write
    elif hit:
        dt = dt_hit
    else:
        dt = dt_miss
    now = S[L.S_NOW] + dt
    S[L.S_NOW] = now
    S[L.S_EVENTS] += 1
    if now >= S[L.S_NEXT_BG]:
        background(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, SM, now)
    if hit:
        S[C_HITS] += 1
        # mark_page_accessed()
        fl = PFL[pid]
        if (fl & L.PG_ACTIVE) == 0 and (fl & L.PG_REFERENCED) != 0:
            lru_del(Z, PPREV, PNEXT, z, L.LRU_INACTIVE, pid)
            PFL[pid] = (fl | L.PG_ACTIVE) & ~L.PG_REFERENCED
            lru_add(Z, PPREV, PNEXT, z, L.LRU_ACTIVE, pid)
            S[C_PGACTIVATE] += 1
            Z[z, L.Z_PGACTIVATE] += 1
        elif (fl & L.PG_REFERENCED) == 0:
            PFL[pid] = fl | L.PG_REFERENCED
    else:
        S[C_MISSES] += 1
        z, path, reset = alloc_page(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, TR, write, now)
        if z < 0:
            return
        now = S[L.S_NOW]  # direct reclaim may have taken time
        prev = TL[thread]
        if prev >= 0 and prev != z:
            S[C_SWITCHES] += 1
        TL[thread] = z
        PZ[pid] = z
        PT[pid] = now
        PFL[pid] = L.PG_REFERENCED  # add_to_page_cache_lru(), then mark_page_accessed()
        lru_add(Z, PPREV, PNEXT, z, L.LRU_INACTIVE, pid)
        na = S[C_PGALLOC]
        if na >= P[L.P_TRACE_START] and S[L.S_TRACE_N] < P[L.P_TRACE_CAP]:
            n = S[L.S_TRACE_N]
            TR[n, L.T_NS] = now
            TR[n, L.T_ZONE] = z
            TR[n, L.T_BATCH_DMA32] = Z[L.ZONE_DMA32, L.Z_BATCH]
            TR[n, L.T_BATCH_NORMAL] = Z[L.ZONE_NORMAL, L.Z_BATCH]
            TR[n, L.T_FREE_DMA32] = Z[L.ZONE_DMA32, L.Z_FREE]
            TR[n, L.T_FREE_NORMAL] = Z[L.ZONE_NORMAL, L.Z_FREE]
            TR[n, L.T_RESET] = 1 if reset else 0
            TR[n, L.T_PATH] = path
            TR[n, L.T_DEPLETED] = Z[L.ZONE_DMA32, L.Z_DEPLETED] + 2 * Z[L.ZONE_NORMAL, L.Z_DEPLETED]
            S[L.S_TRACE_N] = n + 1
    if write and (PFL[pid] & L.PG_DIRTY) == 0:
        if S[L.S_DQ_TAIL] - S[L.S_DQ_WB] >= DQ.shape[0]:
            compact_dirty_queue(PZ, PFL, S, DQ, DQT)
        set_page_dirty(Z, S, PFL, DQ, DQT, z, pid, now)


@kernel
def run(Z, LR, ZL, S, P, F, PH, PR, U, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, TC, TL, TR, SM):
    """Run every phase of the workload table ``PH``; per-phase results in ``PR``."""
    Z = borrow(Z)
    LR = borrow(LR)
    ZL = borrow(ZL)
    S = borrow(S)
    P = borrow(P)
    F = borrow(F)
    PH = borrow(PH)
    PR = borrow(PR)
    U = borrow(U)
    PZ = borrow(PZ)
    PFL = borrow(PFL)
    PPREV = borrow(PPREV)
    PNEXT = borrow(PNEXT)
    PT = borrow(PT)
    DQ = borrow(DQ)
    DQT = borrow(DQT)
    TC = borrow(TC)
    TL = borrow(TL)
    TR = borrow(TR)
    SM = borrow(SM)
    maxt = TL.shape[0]
    for ph in range(PH.shape[0]):
        op = PH[ph, L.PH_OP]
        nthreads = PH[ph, L.PH_THREADS]
        file0 = PH[ph, L.PH_FILE0]
        fp = PH[ph, L.PH_FILE_PAGES]
        chunk = PH[ph, L.PH_CHUNK]
        dt_miss = PH[ph, L.PH_DT_MISS]
        dt_hit = PH[ph, L.PH_DT_HIT]
        dt_write = PH[ph, L.PH_DT_WRITE]
        u = PH[ph, L.PH_U0]
        S[L.S_PHASE] = ph
        PR[ph, L.PR_T0] = S[L.S_NOW]
        h0 = S[C_HITS]
        m0 = S[C_MISSES]
        a0 = S[C_PGALLOC]
        ad0 = Z[L.ZONE_DMA32, L.Z_PGALLOC]
        an0 = Z[L.ZONE_NORMAL, L.Z_PGALLOC]
        sc0 = S[C_SCAN_K] + S[C_SCAN_D]
        for i in range(L.NC):
            PR[ph, L.PR_C0 + i] = S[L.S_C0 + i]
        write = op == L.OP_SEQ_WRITE or op == L.OP_RAND_WRITE
        if op == L.OP_SEQ_WRITE or op == L.OP_SEQ_READ:
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
                    access_page(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, TL, TR, SM,
                                base + off, write, t, dt_hit, dt_miss, dt_write)
                TC[t] = end
                if end >= fp:
                    TC[maxt + j] = TC[maxt + alive - 1]
                    alive -= 1
        elif op == L.OP_RAND_WRITE or op == L.OP_RAND_READ:
            total = nthreads * PH[ph, L.PH_OPS]
            for _ in range(total):
                t = int(U[u] * nthreads)
                off = int(U[u + 1] * fp)
                u += 2
                if t >= nthreads:
                    t = nthreads - 1
                if off >= fp:
                    off = fp - 1
                access_page(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, TL, TR, SM,
                            file0 + t * fp + off, write, t, dt_hit, dt_miss, dt_write)
        elif op == L.OP_DELETE:
            free_file_pages(Z, S, PZ, PFL, PPREV, PNEXT, file0, nthreads * fp)
        elif op == L.OP_OTHER:
            change_other(Z, LR, S, P, F, ZL, PZ, PFL, PPREV, PNEXT, PT, PH[ph, L.PH_OPS], S[L.S_NOW])
        elif op == L.OP_IDLE:
            end_t = S[L.S_NOW] + PH[ph, L.PH_OPS]
            step = 1000000  # 1 ms
            while S[L.S_NOW] < end_t:
                now = S[L.S_NOW] + step
                if now > end_t:
                    now = end_t
                S[L.S_NOW] = now
                background(Z, LR, S, P, F, PZ, PFL, PPREV, PNEXT, PT, DQ, DQT, SM, now)
        PR[ph, L.PR_T1] = S[L.S_NOW]
        PR[ph, L.PR_HITS] = S[C_HITS] - h0
        PR[ph, L.PR_MISSES] = S[C_MISSES] - m0
        PR[ph, L.PR_ALLOCS] = S[C_PGALLOC] - a0
        PR[ph, L.PR_ALLOC_DMA32] = Z[L.ZONE_DMA32, L.Z_PGALLOC] - ad0
        PR[ph, L.PR_ALLOC_NORMAL] = Z[L.ZONE_NORMAL, L.Z_PGALLOC] - an0
        PR[ph, L.PR_SCAN] = S[C_SCAN_K] + S[C_SCAN_D] - sc0
        for i in range(L.NC):
            PR[ph, L.PR_C0 + i] = S[L.S_C0 + i] - PR[ph, L.PR_C0 + i]
