"""A high-order allocation through ``__alloc_pages_nodemask()`` and ``__alloc_pages_slowpath()`` (3.4-3.6).

The stress test's ``GFP_HIGHUSER_MOVABLE`` requests and the build load's THP
faults (``GFP_TRANSHUGE``: ``__GFP_NORETRY``, and ``__GFP_NO_KSWAPD`` until
patch 5) go through the same steps, one task (a row of ``ac``) each, resumed
every tick until they end:

1. the fast path at the low watermark; the slow path wakes kswapd (unless
   ``__GFP_NO_KSWAPD``) and retries at the min watermark;
2. ``__alloc_pages_direct_compact()``, async: skipped while
   ``compaction_deferred()``; a page captured by compaction (patch 7) or one
   found on the free lists afterwards is a success and resets the deferral;
3. a request whose compaction was deferred or contended fails now if it has
   ``__GFP_NO_KSWAPD`` (revert-v5, contended-v5) -- or, with patch 5, if it is
   movable and not ``__GFP_REPEAT``;
4. ``__alloc_pages_direct_reclaim()`` and a retry at the min watermark; no
   progress fails an order > ``PAGE_ALLOC_COSTLY_ORDER`` request that may
   not fail quietly; ``should_alloc_retry()`` is false for these orders;
5. sync compaction, then failure (``nopage``); a failed sync compaction
   defers compaction (``defer_compaction()``).

``AC.result`` says which step gave the page or why it failed (:data:`PATH`).

(*) ``int(0)``, ``bool(True)`` where a compiled function is called with a constant: Numba compiles one
specialization per literal argument, so a literal at one call site and a variable at another compile the
callee (and every leaf inlined into it) twice; a value shares one (docs/models/compaction.md, "Speed").
"""

from ..engine import sibling, kernel_no_nrt as kernel
from .layout import AC, COMPACT, I, KIND, MT, PAGE_ALLOC_COSTLY_ORDER, PATH, STEP, VM, Z

_zk = sibling(__name__, "zone_kernel")
_ck = sibling(__name__, "compaction_kernel")
_vk = sibling(__name__, "vmscan_kernel")
get_page_from_freelist = _zk.get_page_from_freelist_cold  # the slow path runs rarely: called, not inlined
compaction_deferred = _ck.compaction_deferred
defer_compaction = _ck.defer_compaction
compaction_defer_reset = _ck.compaction_defer_reset
compact_zone_begin = _ck.compact_zone_begin
compact_zone_step = _ck.compact_zone_step
compact_zone_end = _ck.compact_zone_end
wakeup_kswapd = _vk.wakeup_kswapd
direct_reclaim_begin = _vk.direct_reclaim_begin
direct_reclaim_step = _vk.direct_reclaim_step

DEFERRED = COMPACT.COMPACT_DEFERRED  # compaction did not run: compaction_deferred()


@kernel
def finish(ac, a, pfn, path):
    ac[AC.page, a] = pfn
    ac[AC.result, a] = path
    ac[AC.step, a] = STEP.DONE


@kernel
def alloc_begin(pg, fl, nf, pb, z, vm, pi, ac, a, order, mt, no_kswapd, noretry, repeat):
    """Start an allocation of ``1 << order`` pages for task ``a``; it may finish at once.

    ``no_kswapd``: the request carries ``__GFP_NO_KSWAPD`` (only where the kernel has the flag)."""
    no_kswapd = no_kswapd and pi[I.gfp_no_kswapd] != 0
    ac[AC.order, a] = order
    ac[AC.migratetype, a] = mt
    ac[AC.gfp_no_kswapd, a] = no_kswapd
    ac[AC.gfp_repeat, a] = repeat
    ac[AC.deferred, a] = 0
    ac[AC.contended, a] = 0
    ac[AC.page, a] = -1
    ac[AC.result, a] = -1
    ac[AC.cpu_ns, a] = 0
    ac[AC.started_ns, a] = z[Z.now]
    ac[AC.gfp_noretry, a] = noretry
    pfn = get_page_from_freelist(pg, fl, nf, pb, z, vm, pi, order, mt, z[Z.wmark_low])
    if pfn >= 0:
        finish(ac, a, pfn, PATH.PATH_FAST)
        return
    if not no_kswapd:
        wakeup_kswapd(nf, z, order)
    pfn = get_page_from_freelist(pg, fl, nf, pb, z, vm, pi, order, mt, z[Z.wmark_min])
    if pfn >= 0:
        finish(ac, a, pfn, PATH.PATH_MIN)
        return
    direct_compact_begin(pg, fl, nf, pb, z, vm, pi, ac, a, int(0))  # a value (*)


@kernel
def direct_compact_begin(pg, fl, nf, pb, z, vm, pi, ac, a, sync):
    """``__alloc_pages_direct_compact()`` up to the start of ``compact_zone()``."""
    order = ac[AC.order, a]
    ac[AC.step, a] = STEP.SYNC_COMPACT if sync else STEP.ASYNC_COMPACT
    if compaction_deferred(z, pi, order):
        ac[AC.deferred, a] = 1
        vm[VM.compact_deferred] += 1
        direct_compact_done(pg, fl, nf, pb, z, vm, pi, ac, a, int(DEFERRED))  # a value (*)
        return
    vm[VM.compact_stall] += 1
    ret = compact_zone_begin(nf, z, pi, ac, a, order, ac[AC.migratetype, a], sync)
    if ret != COMPACT.COMPACT_CONTINUE:
        direct_compact_done(pg, fl, nf, pb, z, vm, pi, ac, a, ret)


@kernel
def nopage_now(pi, ac, a):
    """Fail instead of reclaiming: compaction was deferred or contended and the caller asked for it."""
    if ac[AC.deferred, a] == 0 and ac[AC.contended, a] == 0:
        return False
    if pi[I.gfp_no_kswapd]:
        return ac[AC.gfp_no_kswapd, a] != 0  # (deferred || contended) && (gfp_mask & __GFP_NO_KSWAPD)
    return ac[AC.migratetype, a] == MT.MIGRATE_MOVABLE and ac[AC.gfp_repeat, a] == 0  # patch 5


@kernel
def direct_compact_done(pg, fl, nf, pb, z, vm, pi, ac, a, ret):
    """The rest of ``__alloc_pages_direct_compact()`` and what the slow path does next."""
    order = ac[AC.order, a]
    sync = ac[AC.step, a] == STEP.SYNC_COMPACT
    if ret != DEFERRED:
        captured = ac[AC.page, a]
        if captured >= 0:
            z[Z.nr_cc_free] -= 1 << order
            compaction_defer_reset(z, order)
            vm[VM.compact_success] += 1
            finish(ac, a, captured, PATH.PATH_CAPTURE_SYNC if sync else PATH.PATH_CAPTURE_ASYNC)
            return
        if ret != COMPACT.COMPACT_SKIPPED:
            pfn = get_page_from_freelist(pg, fl, nf, pb, z, vm, pi, order, ac[AC.migratetype, a], z[Z.wmark_min])
            if pfn >= 0:
                compaction_defer_reset(z, order)
                vm[VM.compact_success] += 1
                finish(ac, a, pfn, PATH.PATH_COMPACT_SYNC if sync else PATH.PATH_COMPACT_ASYNC)
                return
            vm[VM.compact_fail] += 1
            if sync:
                defer_compaction(z, pi, order)
    if ac[AC.contended, a]:
        vm[VM.compact_contended] += 1
    if sync:
        finish(ac, a, -1, PATH.FAIL_SYNC)
        return
    if nopage_now(pi, ac, a):
        finish(ac, a, -1, PATH.FAIL_DEFERRED if ac[AC.deferred, a] else PATH.FAIL_CONTENDED)
        return
    ac[AC.step, a] = STEP.DIRECT_RECLAIM
    direct_reclaim_begin(ac, vm, a)


@kernel
def direct_reclaim_done(pg, fl, nf, pb, z, vm, pi, ac, a):
    order = ac[AC.order, a]
    pfn = get_page_from_freelist(pg, fl, nf, pb, z, vm, pi, order, ac[AC.migratetype, a], z[Z.wmark_min])
    if pfn >= 0:
        finish(ac, a, pfn, PATH.PATH_RECLAIM)
        return
    if ac[AC.progress, a] == 0 and ac[AC.gfp_noretry, a] == 0 and order > PAGE_ALLOC_COSTLY_ORDER:
        finish(ac, a, -1, PATH.FAIL_NO_PROGRESS)  # no progress, may not go OOM: nopage
        return
    direct_compact_begin(pg, fl, nf, pb, z, vm, pi, ac, a, int(1))  # should_alloc_retry() is false: sync compaction


@kernel
def alloc_step(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, cm, cf, a):
    """One turn of task ``a``'s allocation; returns False once it is DONE (or was never started)."""
    step = ac[AC.step, a]
    if step == STEP.ASYNC_COMPACT or step == STEP.SYNC_COMPACT:
        ret = compact_zone_step(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, ac, cm, cf, a, bool(True))  # a value (*)
        if ret != COMPACT.COMPACT_CONTINUE:
            compact_zone_end(pg, fl, nf, pb, lh, z, vm, pi, ac, cm, cf, a)
            direct_compact_done(pg, fl, nf, pb, z, vm, pi, ac, a, ret)
        return ac[AC.step, a] != STEP.DONE
    if step == STEP.DIRECT_RECLAIM:
        if direct_reclaim_step(pg, fl, nf, pb, lh, oh, z, vm, pi, pf, rnd, ac, a):
            direct_reclaim_done(pg, fl, nf, pb, z, vm, pi, ac, a)
        return ac[AC.step, a] != STEP.DONE
    return False


__all__ = ["alloc_begin", "alloc_step", "direct_compact_begin", "direct_compact_done", "nopage_now", "KIND"]
