"""The jitted kernel of the NUMA balancing model (private: use :func:`..numa.simulate`).

It mirrors kernel/sched/fair.c (3.19/4.0: ``task_tick_numa``, ``task_numa_work``,
``task_numa_fault``, ``task_numa_group``, ``task_numa_placement``,
``update_task_scan_period``, ``task_numa_migrate``), mm/memory.c
(``do_numa_page``) and mm/migrate.c (``migrate_misplaced_page`` and its rate
limit) over the packed arrays of :mod:`._numa_layout`.  The hot path (an
access that takes a hinting fault) is written as one function, because every
numba call copies its array arguments; :mod:`._numa_reference` keeps one
function per kernel function and a test checks both give identical results.

No random number is drawn here: every draw comes in as an array from
:func:`..numa.simulate` (``numpy.random.default_rng(seed)``).  The kernel is
resumable: it advances the state by ``nsteps`` ticks and returns, so the
wrapper can draw the next chunk of randomness and collect samples.
"""

from __future__ import annotations

import sys

import numpy as np

from ._jit import borrowed
from ._numa_layout import (
    C_ACCESSES, C_ALLOC_MISS, C_FAIL_BUSY, C_FAIL_ISOLATE, C_FAIL_MIGRATE, C_FAIL_NODEFULL, C_FAIL_RATELIMIT,
    C_GROUP_JOINS, C_HINT_FAULTS, C_HINT_FAULTS_LOCAL, C_HUGE_PTE_UPDATES, C_MIGRATE_ATTEMPTS, C_N,
    C_NO_GROUP_FAULTS, C_NUMA_MIGRATE_CALLS, C_PAGES_MIGRATED, C_PERIOD_OUT_OF_RANGE, C_PGMIGRATE_FAIL,
    C_PGMIGRATE_SUCCESS, C_POOL_OVERFLOW, C_PTE_UPDATES, C_REMOTE_ACCESSES, C_SCANS, C_SEARCH_CPUS, C_SHARED_FAULTS,
    C_TASK_MOVES, C_TASK_SWAPS, C_TLB_FLUSHES, C_TLB_IPIS, C_WANDERS, C_WP_FAULTS, FA_BUFCPU, FA_BUFMEM, FA_CPU,
    FA_MEM, GI_ACTIVE, GI_ALIVE, GI_NR_TASKS, GI_TOTAL_FAULTS, KF_ACCESS_US, KF_COST_FAULT, KF_COST_IPI,
    KF_COST_MIGRATE, KF_COST_MOVE, KF_COST_PTE, KF_COST_SEARCH, KF_COST_TICK, KF_COST_UNMAP, KF_COST_WP,
    KF_FAULTS_PER_UNIT, KF_FLUSHES_PER_MIGRATION, KF_IO_US, KF_ISOLATE_FAIL, KF_MIGRATE_FAIL, KF_REMOTE_COST,
    KF_SWEEP_US, KF_SYS_PER_ACCESS, KF_WANDER_P, KI_CPUS_PER_NODE, KI_HIGH_WMARK_PAGES, KI_IMBALANCE_PCT,
    KI_MAX_SCAN_WINDOW, KI_MIGRATE_FAIL, KI_MIGRATE_INTERVAL, KI_NODES, KI_NO_GROUP_RULE, KI_PROT_NONE,
    KI_RATELIMIT_PAGES, KI_SAMPLE_STEPS, KI_SCAN_PERIOD_MAX, KI_SCAN_PERIOD_MIN, KI_SCAN_SIZE_MB,
    KI_SCAN_SIZE_PAGES, KI_SLOTS, KI_THRESHOLD, KI_TICK_MS, KI_UNIT_HUGE, KI_UNIT_PAGES, LG_ADMITTED, LG_DST, LG_MS,
    LG_OK, LG_PAGES, MEMO_W, MI_LAZY, MI_LIVE, MI_NEXT_SCAN, MI_OFFSET, MI_RSS, MI_SEQ, NI_FREE, NI_NR_RUNNING,
    NI_RL_NEXT, NI_RL_NR, NI_TASKS, NI_WIN_MIGRATED, NI_WIN_MIGRATED_MAX, SB_FAULT, SB_IPI, SB_MIGRATE, SB_OTHER,
    SB_PLACE, SB_SCAN, SB_WP, TF_DEBT, TF_FINISH, TF_FRAC, TF_IO, TF_NODE_STAMP, TF_RUNTIME, TF_SYS, TF_USER,
    TI_CUR_UNIT, TI_DONE, TI_GROUP, TI_HAS_FAULTS, TI_LAST_PLACE_US, TI_LAST_RUN_US, TI_LOC0, TI_LOC1, TI_LOC2,
    TI_MIGRATE_RETRY, TI_MM, TI_MOVES, TI_NODE, TI_PAGES_MIGRATED, TI_PERIOD, TI_PERIOD_MAX, TI_PHASE, TI_POS,
    TI_PREF, TI_REP, TI_RIDX, TI_SCAN_SEQ, TI_TOTAL_FAULTS, U_DIRTY, U_LAST_NID, U_LAST_PID, U_MARKED, U_NODE,
    U_OTHER_TICK, U_TOUCH_TICK, U_TOUCH_TID, U_WRITE, W_GROUP, W_TASK, X_BEST, X_EPOCH, X_EV_IDX, X_LOG_IDX, X_MEMO,
)


def _jit(fn):
    """``numba.njit(cache=True)``; the identity in the plain-Python copy of this file (``_jit.pure``), which
    runs *the same loop* without Numba: the baseline of the speed benchmark."""
    if getattr(sys.modules.get(fn.__module__), "__kwb_pure__", False):
        return fn
    from numba import njit

    return njit(cache=True)(fn)


_borrow = borrowed(__name__)
SWEEP = 0
LOAD_AVG_MAX = 47742  # kernel/sched/fair.c: runnable average of a task that always runs
MSEC_PER_SEC = 1000
HPAGE_PAGES = 512  # HPAGE_PMD_NR; task_numa_work() aligns scan chunks to HPAGE_SIZE


@_jit
def _cdiv(a, b):
    """C integer division (truncates toward zero), as in ``diff = (diff * ratio) / NUMA_PERIOD_SLOTS``."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# ---------------------------------------------------------------- scan window arithmetic
@_jit
def task_nr_scan_windows(ki, rss_pages):
    nr_scan_pages = ki[KI_SCAN_SIZE_PAGES]
    rss = rss_pages if rss_pages > 0 else nr_scan_pages
    rss = ((rss + nr_scan_pages - 1) // nr_scan_pages) * nr_scan_pages
    return rss // nr_scan_pages


@_jit
def task_scan_min(ki, rss_pages):
    windows = 1
    if ki[KI_SCAN_SIZE_MB] < ki[KI_MAX_SCAN_WINDOW]:
        windows = ki[KI_MAX_SCAN_WINDOW] // ki[KI_SCAN_SIZE_MB]
    floor = MSEC_PER_SEC // windows
    scan = ki[KI_SCAN_PERIOD_MIN] // task_nr_scan_windows(ki, rss_pages)
    return max(floor, scan)


@_jit
def task_scan_max(ki, rss_pages):
    smin = task_scan_min(ki, rss_pages)
    smax = ki[KI_SCAN_PERIOD_MAX] // task_nr_scan_windows(ki, rss_pages)
    return max(smin, smax)


# ---------------------------------------------------------------- weights (cached, kept exact)
@_jit
def _refresh_tw(ki, ti, tfa, wts, ctr, t):
    """task_weight(t, nid) for every node: changes only when task_numa_placement() updates the task's faults."""
    total = ti[t, TI_TOTAL_FAULTS]
    for nid in range(ki[KI_NODES]):
        if ti[t, TI_HAS_FAULTS] == 0 or total <= 0:
            wts[W_TASK, t, nid] = 0
        else:
            wts[W_TASK, t, nid] = _cdiv(1000 * (tfa[FA_MEM, t, nid, 0] + tfa[FA_MEM, t, nid, 1]), total)
    ctr[X_EPOCH] += 1


@_jit
def _refresh_gw(ki, gi, gfa, wts, ctr, g):
    """group_weight() of group g for every node: changes with its members' placements and with joins."""
    total = gi[g, GI_TOTAL_FAULTS]
    for nid in range(ki[KI_NODES]):
        if total <= 0:
            wts[W_GROUP, g, nid] = 0
        else:
            wts[W_GROUP, g, nid] = _cdiv(1000 * (gfa[FA_MEM, g, nid, 0] + gfa[FA_MEM, g, nid, 1]), total)
    ctr[X_EPOCH] += 1


@_jit
def _gw_of(ti, wts, t, nid):
    g = ti[t, TI_GROUP]
    return 0 if g < 0 else wts[W_GROUP, g, nid]


# ---------------------------------------------------------------- costs
@_jit
def _charge(tf, sysb, t, us, cause):
    tf[t, TF_DEBT] += us
    tf[t, TF_SYS] += us
    sysb[cause] += us


@_jit
def _flush_tlb(ki, kf, mi, ctr, tf, sysb, t, mm, nflush):
    """flush_tlb_page()/flush_tlb_range(): IPIs to the other CPUs in mm_cpumask."""
    cpus = ki[KI_NODES] * ki[KI_CPUS_PER_NODE]
    in_mask = mi[mm, MI_LIVE] + mi[mm, MI_LAZY]
    if in_mask > cpus:
        in_mask = cpus
    targets = in_mask - 1
    mi[mm, MI_LAZY] = 0  # lazy-TLB CPUs leave the mask when the IPI reaches them (leave_mm)
    if targets <= 0:
        return
    ctr[C_TLB_FLUSHES] += int(nflush)
    ctr[C_TLB_IPIS] += int(nflush) * targets
    _charge(tf, sysb, t, kf[KF_COST_IPI] * targets * nflush, SB_IPI)


# ---------------------------------------------------------------- scheduler placement
@_jit
def _nt_remove(ni, n, t):
    c = ni[n, NI_TASKS]
    j = 1
    while j <= c and ni[n, NI_TASKS + j] != t:
        j += 1
    while j < c:
        ni[n, NI_TASKS + j] = ni[n, NI_TASKS + j + 1]
        j += 1
    ni[n, NI_TASKS] = c - 1


@_jit
def _nt_insert(ni, n, t):
    c = ni[n, NI_TASKS]
    j = c
    while j >= 1 and ni[n, NI_TASKS + j] > t:
        ni[n, NI_TASKS + j + 1] = ni[n, NI_TASKS + j]
        j -= 1
    ni[n, NI_TASKS + j + 1] = t
    ni[n, NI_TASKS] = c + 1


@_jit
def _move_task(ti, ni, ctr, t, dst):
    ctr[X_EPOCH] += 1
    src = ti[t, TI_NODE]
    ni[src, NI_NR_RUNNING] -= 1
    ni[dst, NI_NR_RUNNING] += 1
    ti[t, TI_NODE] = dst
    _nt_remove(ni, src, t)
    _nt_insert(ni, dst, t)


@_jit
def load_too_imbalanced(src_load, dst_load, orig_src, orig_dst, imbalance_pct):
    # capacities are equal on every node, so they cancel
    if dst_load < src_load:
        src_load, dst_load = dst_load, src_load
    imb = dst_load * 100 - src_load * imbalance_pct
    if imb <= 0:
        return False
    if orig_dst < orig_src:
        orig_src, orig_dst = orig_dst, orig_src
    old_imb = orig_dst * 100 - orig_src * imbalance_pct
    return imb > old_imb


@_jit
def task_numa_find_cpu(ki, ti, ni, wts, ctr, t, src, dst, taskimp, groupimp):
    """task_numa_find_cpu() + task_numa_compare() at node granularity.

    ``ctr[X_BEST:X_BEST+3]`` = best_imp, best_task (-1 idle CPU, -2 none), best_node; updated in place.
    One idle CPU stands for all idle CPUs of the node; then every task on ``dst`` is a swap candidate.
    """
    cpus = ki[KI_CPUS_PER_NODE]
    pct = ki[KI_IMBALANCE_PCT]
    src_nr = ni[src, NI_NR_RUNNING]
    dst_nr = ni[dst, NI_NR_RUNNING]
    src_rq1 = src_nr <= cpus  # every CPU of the node runs at most one task
    dst_rq1 = dst_nr <= cpus
    p_group = ti[t, TI_GROUP]
    for j in range(ni[dst, NI_TASKS] + 1):
        if j == 0:
            c = -1
            if dst_nr >= cpus:
                continue  # no idle CPU on dst
        else:
            c = ni[dst, NI_TASKS + j]
            if c == t:
                continue
        imp = groupimp if p_group >= 0 else taskimp
        moveimp = imp
        if c >= 0:
            c_group = ti[c, TI_GROUP]
            if c_group == p_group:
                imp = taskimp + wts[W_TASK, c, src] - wts[W_TASK, c, dst]
                if c_group >= 0:
                    imp -= _cdiv(imp, 16)
            elif c_group >= 0:
                imp += wts[W_GROUP, c_group, src] - wts[W_GROUP, c_group, dst]
            else:
                imp += wts[W_TASK, c, src] - wts[W_TASK, c, dst]
        best_imp = ctr[X_BEST]
        if imp <= best_imp and moveimp <= best_imp:
            continue
        if c < 0:
            if src_nr <= cpus and not (dst_nr < cpus):  # Is there capacity at our destination?
                continue
        elif imp > best_imp and src_rq1 and dst_rq1:
            ctr[X_BEST] = imp
            ctr[X_BEST + 1] = c
            ctr[X_BEST + 2] = dst
            continue
        # balance:
        dst_load = dst_nr + 1
        src_load = src_nr - 1
        if moveimp > imp and moveimp > best_imp:
            if not load_too_imbalanced(src_load, dst_load, src_nr, dst_nr, pct):
                ctr[X_BEST] = moveimp - 1
                ctr[X_BEST + 1] = -1
                ctr[X_BEST + 2] = dst
                continue
        if imp <= best_imp:
            continue
        if c >= 0:
            dst_load -= 1
            src_load += 1
        if load_too_imbalanced(src_load, dst_load, src_nr, dst_nr, pct):
            continue
        ctr[X_BEST] = imp
        ctr[X_BEST + 1] = c
        ctr[X_BEST + 2] = dst


@_jit
def _charge_search(ki, kf, tf, ctr, sysb, t, nodes):
    """The CPU time of one task_numa_migrate() call that searched ``nodes`` nodes: update_numa_stats() of the
    source, then update_numa_stats() and task_numa_compare() on every CPU of each node searched."""
    cpus = ki[KI_CPUS_PER_NODE] * (1 + 2 * nodes)
    ctr[C_NUMA_MIGRATE_CALLS] += 1
    ctr[C_SEARCH_CPUS] += cpus
    _charge(tf, sysb, t, kf[KF_COST_SEARCH] * cpus, SB_PLACE)


@_jit
def task_numa_migrate(ki, kf, ti, tf, ni, mi, gi, wts, ctr, sysb, t):
    """task_numa_migrate(): move the task to its preferred node, or swap it with a task there."""
    N = ki[KI_NODES]
    src = ti[t, TI_NODE]
    pref = ti[t, TI_PREF]
    # Nothing this search reads has changed since the task's last failed search from the same
    # preferred node: it would fail the same way and set the same preferred node.  Skip computing it
    # (the kernel would search again, so its cost is still charged).
    memo = X_MEMO + MEMO_W * t
    if ctr[memo] == ctr[X_EPOCH] and ctr[memo + 1] == pref:
        ti[t, TI_PREF] = ctr[memo + 2]
        _charge_search(ki, kf, tf, ctr, sysb, t, ctr[memo + 3])
        return
    taskweight = wts[W_TASK, t, src]
    groupweight = _gw_of(ti, wts, t, src)
    ctr[X_BEST] = 0
    ctr[X_BEST + 1] = -2
    ctr[X_BEST + 2] = -1
    env_dst = pref
    taskimp = wts[W_TASK, t, pref] - taskweight
    groupimp = _gw_of(ti, wts, t, pref) - groupweight
    task_numa_find_cpu(ki, ti, ni, wts, ctr, t, src, pref, taskimp, groupimp)
    nodes = 1
    if ctr[X_BEST + 1] == -2:
        for nid in range(N):
            if nid == src or nid == pref:
                continue
            taskimp = wts[W_TASK, t, nid] - taskweight
            groupimp = _gw_of(ti, wts, t, nid) - groupweight
            if taskimp < 0 and groupimp < 0:
                continue
            env_dst = nid
            nodes += 1
            task_numa_find_cpu(ki, ti, ni, wts, ctr, t, src, nid, taskimp, groupimp)
    _charge_search(ki, kf, tf, ctr, sysb, t, nodes)
    g = ti[t, TI_GROUP]
    if g >= 0:
        nid = src if ctr[X_BEST + 1] == -2 else env_dst
        if gi[g, GI_ACTIVE + nid] != 0:
            ti[t, TI_PREF] = env_dst  # sched_setnuma(p, env.dst_nid)
    if ctr[X_BEST + 1] == -2:
        ctr[memo] = ctr[X_EPOCH]
        ctr[memo + 1] = pref
        ctr[memo + 2] = ti[t, TI_PREF]
        ctr[memo + 3] = nodes
        return
    # "Reset the scan period if the task is being rescheduled on an alternative node to recheck if the
    # tasks is now properly placed": the only place besides the controller that sets numa_scan_period
    # (a move by the load balancer or a wake-up elsewhere leaves it alone)
    ti[t, TI_PERIOD] = task_scan_min(ki, mi[ti[t, TI_MM], MI_RSS])
    ti[t, TI_MOVES] += 1
    _charge(tf, sysb, t, kf[KF_COST_MOVE], SB_PLACE)
    best_task = ctr[X_BEST + 1]
    best_node = ctr[X_BEST + 2]
    _move_task(ti, ni, ctr, t, best_node)
    if best_task == -1:
        ctr[C_TASK_MOVES] += 1
    else:
        _move_task(ti, ni, ctr, best_task, src)
        ctr[C_TASK_SWAPS] += 1


@_jit
def numa_migrate_preferred(ki, kf, ti, tf, ni, mi, gi, wts, ctr, sysb, t, now_ms):
    if ti[t, TI_PREF] == -1 or ti[t, TI_HAS_FAULTS] == 0:
        return
    interval = min(MSEC_PER_SEC, ti[t, TI_PERIOD] // 16)
    ti[t, TI_MIGRATE_RETRY] = now_ms + interval
    if ti[t, TI_NODE] == ti[t, TI_PREF]:
        return
    task_numa_migrate(ki, kf, ti, tf, ni, mi, gi, wts, ctr, sysb, t)


# ---------------------------------------------------------------- the period controller
@_jit
def _check_period(ki, ti, mi, ctr, t):
    rss = mi[ti[t, TI_MM], MI_RSS]
    p = ti[t, TI_PERIOD]
    if p < task_scan_min(ki, rss) or p > max(ti[t, TI_PERIOD_MAX], task_scan_max(ki, rss)):
        ctr[C_PERIOD_OUT_OF_RANGE] += 1


@_jit
def update_task_scan_period(ki, ti, mi, ctr, t, shared, private, now_ms):
    remote = ti[t, TI_LOC0]
    local = ti[t, TI_LOC1]
    slots = ki[KI_SLOTS]
    thresh = ki[KI_THRESHOLD]
    if local + shared == 0 or (ki[KI_MIGRATE_FAIL] != 0 and ti[t, TI_LOC2] != 0):
        # scan slower; numa_faults_locality[] is *not* cleared on this path (as in the kernel)
        ti[t, TI_PERIOD] = min(ti[t, TI_PERIOD_MAX], ti[t, TI_PERIOD] << 1)
        mi[ti[t, TI_MM], MI_NEXT_SCAN] = now_ms + ti[t, TI_PERIOD]
        _check_period(ki, ti, mi, ctr, t)
        return
    period_slot = (ti[t, TI_PERIOD] + slots - 1) // slots
    ratio = (local * slots) // max(local + remote, 1)
    if ratio >= thresh:
        slot = ratio - thresh
        if slot == 0:
            slot = 1
        diff = slot * period_slot
    else:
        diff = -(thresh - ratio) * period_slot
        den = max(private + shared, 1)
        ratio = (private * slots + den - 1) // den
        diff = _cdiv(diff * ratio, slots)
    rss = mi[ti[t, TI_MM], MI_RSS]
    lo = task_scan_min(ki, rss)
    hi = task_scan_max(ki, rss)
    p = ti[t, TI_PERIOD] + diff
    if p < lo:
        p = lo
    if p > hi:
        p = hi
    ti[t, TI_PERIOD] = p
    ti[t, TI_LOC0] = 0
    ti[t, TI_LOC1] = 0
    ti[t, TI_LOC2] = 0
    _check_period(ki, ti, mi, ctr, t)


@_jit
def update_numa_active_node_mask(ki, gi, gfa, g):
    N = ki[KI_NODES]
    max_faults = 0
    for nid in range(N):
        f = gfa[FA_CPU, g, nid, 0] + gfa[FA_CPU, g, nid, 1]
        if f > max_faults:
            max_faults = f
    for nid in range(N):
        f = gfa[FA_CPU, g, nid, 0] + gfa[FA_CPU, g, nid, 1]
        if gi[g, GI_ACTIVE + nid] == 0:
            if f > _cdiv(max_faults * 6, 16):
                gi[g, GI_ACTIVE + nid] = 1
        elif f < _cdiv(max_faults * 3, 16):
            gi[g, GI_ACTIVE + nid] = 0


@_jit
def task_numa_placement(ki, kf, ti, tf, ni, mi, gi, tfa, gfa, wts, ctr, sysb, t, now_ms):
    mm = ti[t, TI_MM]
    seq = mi[mm, MI_SEQ]
    if ti[t, TI_SCAN_SEQ] == seq:
        return
    ti[t, TI_SCAN_SEQ] = seq
    ti[t, TI_PERIOD_MAX] = task_scan_max(ki, mi[mm, MI_RSS])
    total_faults = ti[t, TI_LOC0] + ti[t, TI_LOC1]
    # numa_get_avg_runtime()
    now_us = now_ms * 1000 + 1
    runtime = np.int64(tf[t, TF_RUNTIME])
    if ti[t, TI_LAST_PLACE_US] != 0:
        delta = runtime - ti[t, TI_LAST_RUN_US]
        period = now_us - ti[t, TI_LAST_PLACE_US]
    else:
        delta = LOAD_AVG_MAX
        period = LOAD_AVG_MAX
    ti[t, TI_LAST_RUN_US] = runtime
    ti[t, TI_LAST_PLACE_US] = now_us
    g = ti[t, TI_GROUP]
    N = ki[KI_NODES]
    max_faults = 0
    max_nid = -1
    max_gfaults = 0
    max_gnid = -1
    ft0 = 0
    ft1 = 0
    for nid in range(N):
        faults = 0
        gfaults = 0
        for priv in range(2):
            buf = tfa[FA_BUFMEM, t, nid, priv]
            diff = buf - tfa[FA_MEM, t, nid, priv] // 2
            if priv == 0:
                ft0 += buf
            else:
                ft1 += buf
            tfa[FA_BUFMEM, t, nid, priv] = 0
            f_weight = (delta << 16) // (period + 1)
            f_weight = (f_weight * tfa[FA_BUFCPU, t, nid, priv]) // (total_faults + 1)
            f_diff = f_weight - tfa[FA_CPU, t, nid, priv] // 2
            tfa[FA_BUFCPU, t, nid, priv] = 0
            tfa[FA_MEM, t, nid, priv] += diff
            tfa[FA_CPU, t, nid, priv] += f_diff
            faults += tfa[FA_MEM, t, nid, priv]
            ti[t, TI_TOTAL_FAULTS] += diff
            if g >= 0:
                gfa[FA_MEM, g, nid, priv] += diff
                gfa[FA_CPU, g, nid, priv] += f_diff
                gi[g, GI_TOTAL_FAULTS] += diff
                gfaults += gfa[FA_MEM, g, nid, priv]
        if faults > max_faults:
            max_faults = faults
            max_nid = nid
        if gfaults > max_gfaults:
            max_gfaults = gfaults
            max_gnid = nid
    _refresh_tw(ki, ti, tfa, wts, ctr, t)
    if g >= 0:
        _refresh_gw(ki, gi, gfa, wts, ctr, g)
    update_task_scan_period(ki, ti, mi, ctr, t, ft0, ft1, now_ms)
    if g >= 0:
        update_numa_active_node_mask(ki, gi, gfa, g)
        max_nid = max_gnid
    if max_faults > 0:
        if max_nid != ti[t, TI_PREF]:
            ti[t, TI_PREF] = max_nid
        if ti[t, TI_NODE] != ti[t, TI_PREF]:
            numa_migrate_preferred(ki, kf, ti, tf, ni, mi, gi, wts, ctr, sysb, t, now_ms)


@_jit
def task_numa_group(ki, ti, tf, task_mm, gi, tfa, gfa, wts, ctr, t, last_nid, last_pid, priv):
    N = ki[KI_NODES]
    if ti[t, TI_GROUP] < 0:
        g = t  # a group's id is the id of the task that created it
        gi[g, GI_NR_TASKS] = 1
        gi[g, GI_TOTAL_FAULTS] = ti[t, TI_TOTAL_FAULTS]
        gi[g, GI_ALIVE] = 1
        for nid in range(N):
            gi[g, GI_ACTIVE + nid] = 0
            for pv in range(2):
                gfa[FA_MEM, g, nid, pv] = tfa[FA_MEM, t, nid, pv]
                gfa[FA_CPU, g, nid, pv] = tfa[FA_CPU, t, nid, pv]
        gi[g, GI_ACTIVE + ti[t, TI_NODE]] = 1
        ti[t, TI_GROUP] = g
        _refresh_gw(ki, gi, gfa, wts, ctr, g)
    # tsk = cpu_rq(cpu)->curr; if (!cpupid_match_pid(tsk, cpupid)) goto no_join: the task that made the
    # last hinting fault must be the one running on that CPU right now -- still on the node it faulted
    # from, and not asleep (a thread waiting for its I/O is not any CPU's curr)
    o = last_pid
    if ti[o, TI_DONE] != 0 or ti[o, TI_NODE] != last_nid or tf[o, TF_IO] > 0.0:
        return priv
    grp = ti[o, TI_GROUP]
    if grp < 0:
        return priv
    my = ti[t, TI_GROUP]
    if grp == my:
        return priv
    if gi[my, GI_NR_TASKS] > gi[grp, GI_NR_TASKS]:
        return priv
    if gi[my, GI_NR_TASKS] == gi[grp, GI_NR_TASKS] and my > grp:
        return priv
    join = task_mm[o] == task_mm[t]  # threads of one process always join; TNF_SHARED never (private maps)
    priv = 0 if join else 1
    if not join:
        return priv
    for nid in range(N):
        for pv in range(2):
            gfa[FA_MEM, my, nid, pv] -= tfa[FA_MEM, t, nid, pv]
            gfa[FA_MEM, grp, nid, pv] += tfa[FA_MEM, t, nid, pv]
            gfa[FA_CPU, my, nid, pv] -= tfa[FA_CPU, t, nid, pv]
            gfa[FA_CPU, grp, nid, pv] += tfa[FA_CPU, t, nid, pv]
    gi[my, GI_TOTAL_FAULTS] -= ti[t, TI_TOTAL_FAULTS]
    gi[grp, GI_TOTAL_FAULTS] += ti[t, TI_TOTAL_FAULTS]
    gi[my, GI_NR_TASKS] -= 1
    gi[grp, GI_NR_TASKS] += 1
    if gi[my, GI_NR_TASKS] == 0:
        gi[my, GI_ALIVE] = 0
    ti[t, TI_GROUP] = grp
    _refresh_gw(ki, gi, gfa, wts, ctr, my)
    _refresh_gw(ki, gi, gfa, wts, ctr, grp)
    ctr[C_GROUP_JOINS] += 1
    return priv


# ---------------------------------------------------------------- mm/migrate.c
@_jit
def migrate_misplaced_page(ki, kf, ti, tf, ni, mi, ctr, sysb, ua, ev_u, mlog, t, unit, dst, step, now_ms):
    pages = ki[KI_UNIT_PAGES]
    huge = ki[KI_UNIT_HUGE] != 0
    ctr[C_MIGRATE_ATTEMPTS] += pages
    # numamigrate_update_ratelimit()
    if now_ms > ni[dst, NI_RL_NEXT]:
        ni[dst, NI_RL_NR] = 0
        ni[dst, NI_RL_NEXT] = now_ms + ki[KI_MIGRATE_INTERVAL]
        ni[dst, NI_WIN_MIGRATED] = 0
    ok = False
    admitted = ni[dst, NI_RL_NR] <= ki[KI_RATELIMIT_PAGES]
    if not admitted:
        ctr[C_FAIL_RATELIMIT] += pages
    else:
        ni[dst, NI_RL_NR] += pages
        if ctr[X_EV_IDX] >= ev_u.shape[0]:
            ctr[C_POOL_OVERFLOW] += 1
            ctr[X_EV_IDX] = 0
        u = ev_u[ctr[X_EV_IDX]]
        ctr[X_EV_IDX] += 1
        # migrate_balanced_pgdat(): the destination must stay above its high watermark
        if not (ni[dst, NI_FREE] > ki[KI_HIGH_WMARK_PAGES] + pages):
            ctr[C_FAIL_NODEFULL] += pages
            if huge:
                ctr[C_PGMIGRATE_FAIL] += pages
        elif huge and ua[U_OTHER_TICK, unit] >= step - 1:
            # numamigrate_isolate_page(): a THP must have page_count == 3; another thread is faulting on it
            ctr[C_FAIL_BUSY] += pages
            ctr[C_PGMIGRATE_FAIL] += pages
        elif u < kf[KF_ISOLATE_FAIL]:
            ctr[C_FAIL_ISOLATE] += pages
            if huge:
                ctr[C_PGMIGRATE_FAIL] += pages
        elif (not huge) and u < kf[KF_ISOLATE_FAIL] + (1.0 - kf[KF_ISOLATE_FAIL]) * kf[KF_MIGRATE_FAIL]:
            ctr[C_FAIL_MIGRATE] += pages
            ctr[C_PGMIGRATE_FAIL] += pages
            _charge(tf, sysb, t, kf[KF_COST_UNMAP], SB_MIGRATE)  # isolated and tried, then put back
        else:
            ok = True
    if mlog.shape[0] > 0 and ctr[X_LOG_IDX] < mlog.shape[0]:
        i = ctr[X_LOG_IDX]
        mlog[i, LG_MS] = now_ms
        mlog[i, LG_DST] = dst
        mlog[i, LG_PAGES] = pages
        mlog[i, LG_ADMITTED] = 1 if admitted else 0
        mlog[i, LG_OK] = 1 if ok else 0
        ctr[X_LOG_IDX] = i + 1
    if not ok:
        return False
    src = ua[U_NODE, unit]
    ni[src, NI_FREE] += pages
    ni[dst, NI_FREE] -= pages
    ua[U_NODE, unit] = dst
    ctr[C_PAGES_MIGRATED] += pages
    ctr[C_PGMIGRATE_SUCCESS] += pages
    ni[dst, NI_WIN_MIGRATED] += pages
    if ni[dst, NI_WIN_MIGRATED] > ni[dst, NI_WIN_MIGRATED_MAX]:
        ni[dst, NI_WIN_MIGRATED_MAX] = ni[dst, NI_WIN_MIGRATED]
    # remove_migration_pte() builds a clean pte for a base page, writable only if the migration entry was
    # (the pte's write bit at unmap time); migrate_misplaced_transhuge_page() installs
    # maybe_pmd_mkwrite(pmd_mkdirty(entry), vma): writable and dirty (a heap vma is VM_WRITE)
    if huge:
        ua[U_DIRTY, unit] = 1
        ua[U_WRITE, unit] = 1
    else:
        ua[U_DIRTY, unit] = 0
    _charge(tf, sysb, t, kf[KF_COST_MIGRATE], SB_MIGRATE)
    _flush_tlb(ki, kf, mi, ctr, tf, sysb, t, ti[t, TI_MM], kf[KF_FLUSHES_PER_MIGRATION])
    return True


# ---------------------------------------------------------------- the scanner
@_jit
def task_numa_work(ki, kf, ti, tf, mi, ctr, sysb, mm_start, mm_end, ua, t, now_ms):
    mm = ti[t, TI_MM]
    if now_ms < mi[mm, MI_NEXT_SCAN]:
        return
    mi[mm, MI_NEXT_SCAN] = now_ms + ti[t, TI_PERIOD]  # cmpxchg(&mm->numa_next_scan, ...) always wins here
    tf[t, TF_NODE_STAMP] += 2.0 * ki[KI_TICK_MS] * 1000.0  # p->node_stamp += 2 * TICK_NSEC
    up = ki[KI_UNIT_PAGES]
    u0 = mm_start[mm]
    nunits = mm_end[mm] - u0
    start = mi[mm, MI_OFFSET]  # in units from the mm start
    if start >= nunits:
        mi[mm, MI_SEQ] += 1  # reset_ptenuma_scan()
        start = 0
    pages = ki[KI_SCAN_SIZE_PAGES]
    nr_pte_updates = 0
    fell_off = True
    while start < nunits:
        # end = ALIGN(start + (pages << PAGE_SHIFT), HPAGE_SIZE), in pages, then in units
        end_pages = start * up + pages
        end_pages = ((end_pages + HPAGE_PAGES - 1) // HPAGE_PAGES) * HPAGE_PAGES
        end = (end_pages + up - 1) // up
        if end > nunits:
            end = nunits
        if end <= start:
            end = start + 1
        updated = 0
        for u in range(u0 + start, u0 + end):
            if ua[U_NODE, u] >= 0 and ua[U_MARKED, u] == 0:
                ua[U_MARKED, u] = 1
                updated += 1
        if updated > 0:
            nr_pte_updates += updated
            _flush_tlb(ki, kf, mi, ctr, tf, sysb, t, mm, 1.0)  # change_protection_range(): flush_tlb_range()
        if nr_pte_updates > 0:
            pages -= (end - start) * up
        start = end
        if pages <= 0:
            fell_off = False
            break
    if fell_off:
        mi[mm, MI_SEQ] += 1
        mi[mm, MI_OFFSET] = 0
    else:
        mi[mm, MI_OFFSET] = start
    ctr[C_SCANS] += 1
    if nr_pte_updates > 0:
        ctr[C_PTE_UPDATES] += nr_pte_updates * up
        if ki[KI_UNIT_HUGE] != 0:
            ctr[C_HUGE_PTE_UPDATES] += nr_pte_updates * (up // HPAGE_PAGES)
        _charge(tf, sysb, t, kf[KF_COST_PTE] * nr_pte_updates, SB_SCAN)


@_jit
def task_tick_numa(ki, kf, ti, tf, mi, ctr, sysb, mm_start, mm_end, ua, t, now_ms):
    period_us = ti[t, TI_PERIOD] * 1000.0
    if tf[t, TF_RUNTIME] - tf[t, TF_NODE_STAMP] > period_us:
        if tf[t, TF_NODE_STAMP] == 0.0:
            ti[t, TI_PERIOD] = task_scan_min(ki, mi[ti[t, TI_MM], MI_RSS])
            ti[t, TI_PERIOD_MAX] = task_scan_max(ki, mi[ti[t, TI_MM], MI_RSS])
        tf[t, TF_NODE_STAMP] += ti[t, TI_PERIOD] * 1000.0
        if now_ms >= mi[ti[t, TI_MM], MI_NEXT_SCAN]:
            task_numa_work(ki, kf, ti, tf, mi, ctr, sysb, mm_start, mm_end, ua, t, now_ms)


# ---------------------------------------------------------------- an access on the slow path
@_jit
def _alloc_unit(ki, ti, ni, mi, ctr, ua, t, unit):
    """First touch: the page allocator takes the local node, else the next node with room."""
    N = ki[KI_NODES]
    pages = ki[KI_UNIT_PAGES]
    nid = ti[t, TI_NODE]
    chosen = -1
    for i in range(N):
        n = (nid + i) % N
        if ni[n, NI_FREE] - pages >= ki[KI_HIGH_WMARK_PAGES]:
            chosen = n
            break
    if chosen < 0:
        chosen = nid  # validated sizes make this unreachable; allocate anyway (kswapd would reclaim)
        for n in range(N):
            if ni[n, NI_FREE] > ni[chosen, NI_FREE]:
                chosen = n
    if chosen != nid:
        ctr[C_ALLOC_MISS] += 1
    ua[U_NODE, unit] = chosen
    ni[chosen, NI_FREE] -= pages
    mi[ti[t, TI_MM], MI_RSS] += pages
    ua[U_WRITE, unit] = 1
    ua[U_DIRTY, unit] = 1
    ua[U_LAST_NID, unit] = -1  # page_cpupid_reset_last()
    ua[U_LAST_PID, unit] = -1


@_jit
def _touch(ki, kf, ti, tf, task_mm, ni, mi, gi, tfa, gfa, wts, ctr, sysb, ua, ev_u, mlog, t, unit, write, kind,
           step, now_ms):
    """One access on the slow path: first touch, or a hinting fault (do_numa_page -> task_numa_fault),
    or a write-protect fault.  Returns the access's CPU cost.  The kernel functions it runs are written
    out here, in order, because every numba call copies its array arguments."""
    ctr[C_ACCESSES] += 1
    if kf[KF_SYS_PER_ACCESS] > 0.0:
        _charge(tf, sysb, t, kf[KF_SYS_PER_ACCESS], SB_OTHER)
    if ua[U_TOUCH_TID, unit] != t:
        ua[U_OTHER_TICK, unit] = ua[U_TOUCH_TICK, unit]
        ua[U_TOUCH_TID, unit] = t
    ua[U_TOUCH_TICK, unit] = step
    if ua[U_NODE, unit] < 0:
        _alloc_unit(ki, ti, ni, mi, ctr, ua, t, unit)
    elif ua[U_MARKED, unit] != 0:
        # ---- do_numa_page() (mm/memory.c) ----
        fpu = int(kf[KF_FAULTS_PER_UNIT])
        ctr[C_HINT_FAULTS] += fpu
        ua[U_MARKED, unit] = 0
        _charge(tf, sysb, t, kf[KF_COST_FAULT], SB_FAULT)
        page_nid = ua[U_NODE, unit]
        this_nid = ti[t, TI_NODE]
        local = 1 if page_nid == this_nid else 0
        if local:
            ctr[C_HINT_FAULTS_LOCAL] += fpu
        rule = ki[KI_NO_GROUP_RULE]
        if rule == 0:
            no_group = ua[U_WRITE, unit] == 0  # !pte_write(pte)
        elif rule == 1:
            no_group = True  # pte_write() after pte_modify(pte, vma->vm_page_prot): always false
        elif rule == 2:
            no_group = ua[U_DIRTY, unit] == 0  # !pte_dirty(pte)
        else:
            no_group = False  # !(vma->vm_flags & VM_WRITE): a heap is writable
        if no_group:
            ctr[C_NO_GROUP_FAULTS] += fpu
        if ki[KI_PROT_NONE] != 0:
            ua[U_WRITE, unit] = 0  # pte_modify(pte, vma->vm_page_prot): read-only again
        last_nid = ua[U_LAST_NID, unit]
        last_pid = ua[U_LAST_PID, unit]
        # ---- numa_migrate_prep() -> mpol_misplaced() -> should_numa_migrate_memory() ----
        ua[U_LAST_NID, unit] = this_nid  # page_cpupid_xchg_last()
        ua[U_LAST_PID, unit] = t
        g = ti[t, TI_GROUP]
        if last_pid >= 0 and last_nid != this_nid:
            move = False  # two-stage filter
        elif last_pid == t:
            move = True  # private fault
        elif g < 0:
            move = True  # shared fault, no numa_group yet
        elif gi[g, GI_ACTIVE + this_nid] == 0:
            move = False
        elif gi[g, GI_ACTIVE + page_nid] == 0:
            move = True
        else:
            move = (gfa[FA_MEM, g, this_nid, 0] + gfa[FA_MEM, g, this_nid, 1]) < _cdiv(
                (gfa[FA_MEM, g, page_nid, 0] + gfa[FA_MEM, g, page_nid, 1]) * 3, 4)
        migrated = False
        failed = False
        mem_node = page_nid
        if move and page_nid != this_nid:
            migrated = migrate_misplaced_page(ki, kf, ti, tf, ni, mi, ctr, sysb, ua, ev_u, mlog, t, unit, this_nid,
                                              step, now_ms)
            if migrated:
                mem_node = this_nid
            else:
                failed = True
        # ---- task_numa_fault() (kernel/sched/fair.c) ----
        pages = ki[KI_UNIT_PAGES]
        cpu_node = ti[t, TI_NODE]
        if ti[t, TI_HAS_FAULTS] == 0:
            ti[t, TI_HAS_FAULTS] = 1
            ti[t, TI_TOTAL_FAULTS] = 0
            ti[t, TI_LOC0] = 0
            ti[t, TI_LOC1] = 0
            ti[t, TI_LOC2] = 0
        if last_pid < 0:
            priv = 1
        else:
            priv = 1 if last_pid == t else 0
            if priv == 0 and not no_group:
                # task_numa_group() returns at once when both tasks already share a group (the common
                # case once a process has grouped); test that here and skip the call
                my = ti[t, TI_GROUP]
                if not (my >= 0 and ti[last_pid, TI_GROUP] == my):
                    priv = task_numa_group(ki, ti, tf, task_mm, gi, tfa, gfa, wts, ctr, t, last_nid, last_pid,
                                           priv)
        if priv == 0:
            ctr[C_SHARED_FAULTS] += fpu
        g = ti[t, TI_GROUP]
        if priv == 0 and local == 0 and g >= 0 and gi[g, GI_ACTIVE + cpu_node] != 0 \
                and gi[g, GI_ACTIVE + mem_node] != 0:
            local = 1
        if ti[t, TI_SCAN_SEQ] != mi[ti[t, TI_MM], MI_SEQ]:
            task_numa_placement(ki, kf, ti, tf, ni, mi, gi, tfa, gfa, wts, ctr, sysb, t, now_ms)
        if now_ms > ti[t, TI_MIGRATE_RETRY] and ti[t, TI_PREF] != -1:  # numa_migrate_preferred()
            ti[t, TI_MIGRATE_RETRY] = now_ms + min(MSEC_PER_SEC, ti[t, TI_PERIOD] // 16)
            if ti[t, TI_NODE] != ti[t, TI_PREF]:
                task_numa_migrate(ki, kf, ti, tf, ni, mi, gi, wts, ctr, sysb, t)
        if migrated:
            ti[t, TI_PAGES_MIGRATED] += pages
        if failed and ki[KI_MIGRATE_FAIL] != 0:
            ti[t, TI_LOC2] += pages
        tfa[FA_BUFMEM, t, mem_node, priv] += pages
        tfa[FA_BUFCPU, t, cpu_node, priv] += pages
        if local != 0:
            ti[t, TI_LOC1] += pages
        else:
            ti[t, TI_LOC0] += pages
    if write != 0:
        if ua[U_WRITE, unit] == 0:
            # do_wp_page(): the write after a PROT_NONE hinting fault (or to a never-written page)
            ctr[C_WP_FAULTS] += int(kf[KF_FAULTS_PER_UNIT])
            _charge(tf, sysb, t, kf[KF_COST_WP], SB_WP)
            ua[U_WRITE, unit] = 1
        ua[U_DIRTY, unit] = 1
    node = ti[t, TI_NODE]
    if kind == SWEEP:
        c = kf[KF_SWEEP_US] * max(1, ni[node, NI_NR_RUNNING])  # the node's bandwidth is shared
    else:
        c = kf[KF_ACCESS_US]
    if ua[U_NODE, unit] != node:
        ctr[C_REMOTE_ACCESSES] += 1
        c = c * kf[KF_REMOTE_COST]
    return c


# ---------------------------------------------------------------- the loop
@_jit
def _simulate_kernel(ki, kf, task_mm, task_phase0, task_nphases, phase_kind, phase_start, phase_end, phase_reps,
                     phase_shared, phase_write, mm_start, mm_end, mm_sh_start, mm_sh_end,
                     ti, tf, tfa, gi, gfa, wts, ni, mi, ctr, sysb, ua, step0, nsteps, rot, acc_u, ev_u, wander_u,
                     smp_cnt, smp_period, smp_node, smp_min, smp_max, smp_idx, mlog):
    """Advance the simulation ``nsteps`` ticks from ``step0``; returns the ticks run (fewer if all threads finished)."""
    # Views without reference counting: every call that passes an array costs an atomic increment and
    # decrement otherwise, and a hinting fault passes twenty of them (the caller holds the arrays throughout)
    ki, kf, task_mm, ti, tf, tfa, gi, gfa = _borrow(ki), _borrow(kf), _borrow(task_mm), _borrow(ti), _borrow(tf), \
        _borrow(tfa), _borrow(gi), _borrow(gfa)
    wts, ni, mi, ctr, sysb, ua, ev_u, mlog = _borrow(wts), _borrow(ni), _borrow(mi), _borrow(ctr), _borrow(sysb), \
        _borrow(ua), _borrow(ev_u), _borrow(mlog)
    mm_start, mm_end = _borrow(mm_start), _borrow(mm_end)
    T = task_mm.shape[0]
    N = ki[KI_NODES]
    cpus = ki[KI_CPUS_PER_NODE]
    tick_ms = ki[KI_TICK_MS]
    tick_us = tick_ms * 1000.0
    sample_steps = ki[KI_SAMPLE_STEPS]
    wander_p = kf[KF_WANDER_P]
    io_us = kf[KF_IO_US]
    sys_per_access = kf[KF_SYS_PER_ACCESS]
    sweep_us = kf[KF_SWEEP_US]
    access_us = kf[KF_ACCESS_US]
    remote_cost = kf[KF_REMOTE_COST]
    for s in range(nsteps):
        step = step0 + s
        now_ms = step * tick_ms
        # wake-ups on another node (select_idle_sibling / idle balancing), for threads that sleep
        if wander_p > 0.0 and N > 1:
            for t in range(T):
                if ti[t, TI_DONE] != 0:
                    continue
                if wander_u[s, t, 0] < wander_p:
                    dst = int(wander_u[s, t, 1] * (N - 1))
                    if dst >= N - 1:
                        dst = N - 2
                    if dst >= ti[t, TI_NODE]:
                        dst += 1
                    if ni[dst, NI_NR_RUNNING] < cpus:
                        _move_task(ti, ni, ctr, t, dst)
                        mi[ti[t, TI_MM], MI_LAZY] += 1  # the CPU it left keeps the mm lazily
                        ctr[C_WANDERS] += 1
        alive = 0
        off = rot[s]
        for k in range(T):
            t = (off + k) % T
            if ti[t, TI_DONE] != 0:
                continue
            alive += 1
            if tf[t, TF_RUNTIME] - tf[t, TF_NODE_STAMP] > ti[t, TI_PERIOD] * 1000.0:
                task_tick_numa(ki, kf, ti, tf, mi, ctr, sysb, mm_start, mm_end, ua, t, now_ms)
            nr = ni[ti[t, TI_NODE], NI_NR_RUNNING]
            share = 1.0 if nr <= cpus else cpus / nr  # CPU share, fixed for the tick
            wall = tick_us
            cpu_used = 0.0
            last = task_phase0[t] + task_nphases[t]
            # the task's clocks live in locals for the tick (stored back before any call that reads them)
            debt = tf[t, TF_DEBT]
            io = tf[t, TF_IO]
            frac = tf[t, TF_FRAC]
            user = tf[t, TF_USER]
            runtime = tf[t, TF_RUNTIME]
            cur = ti[t, TI_CUR_UNIT]
            while wall > 1e-6:
                if debt > 0.0:
                    use = min(debt, wall * share)
                    debt -= use
                    runtime += use
                    cpu_used += use
                    wall -= use if share == 1.0 else use / share
                    continue
                if io > 0.0:
                    use = min(io, wall)
                    io -= use
                    wall -= use
                    continue
                if cur < 0:
                    # the next access (the phase list, as the workload describes it)
                    ph = ti[t, TI_PHASE]
                    while ph < last and ti[t, TI_REP] >= phase_reps[ph]:
                        ph += 1
                        ti[t, TI_PHASE] = ph
                        ti[t, TI_REP] = 0
                        ti[t, TI_POS] = 0
                    if ph >= last:
                        ti[t, TI_DONE] = 1
                        tf[t, TF_FINISH] = now_ms * 1000.0 + (tick_us - wall)
                        ni[ti[t, TI_NODE], NI_NR_RUNNING] -= 1
                        _nt_remove(ni, ti[t, TI_NODE], t)
                        ctr[X_EPOCH] += 1
                        mi[ti[t, TI_MM], MI_LIVE] -= 1
                        break
                    kind = phase_kind[ph]
                    if kind == SWEEP:
                        unit = phase_start[ph] + ti[t, TI_POS]
                        ti[t, TI_POS] += 1
                        if ti[t, TI_POS] >= phase_end[ph] - phase_start[ph]:
                            ti[t, TI_POS] = 0
                            ti[t, TI_REP] += 1
                        write = 1  # bzero()
                    else:
                        r = ti[t, TI_RIDX]
                        if r >= acc_u.shape[1]:
                            ctr[C_POOL_OVERFLOW] += 1
                            r = 0
                        u1 = acc_u[t, r, 0]
                        u2 = acc_u[t, r, 1]
                        ti[t, TI_RIDX] = r + 1
                        p = phase_shared[ph]
                        mm = task_mm[t]
                        if u1 < p:
                            n = mm_sh_end[mm] - mm_sh_start[mm]
                            kk = int(u1 / p * n)
                            if kk >= n:
                                kk = n - 1
                            unit = mm_sh_start[mm] + kk
                        else:
                            n = phase_end[ph] - phase_start[ph]
                            kk = int((u1 - p) / (1.0 - p) * n)
                            if kk >= n:
                                kk = n - 1
                            unit = phase_start[ph] + kk
                        ti[t, TI_REP] += 1
                        write = 1 if u2 < phase_write[ph] else 0
                    cur = unit
                    ti[t, TI_CUR_UNIT] = unit
                    if (ua[U_NODE, unit] >= 0 and ua[U_MARKED, unit] == 0 and (write == 0 or ua[U_WRITE, unit] != 0)
                            and sys_per_access == 0.0):
                        # fast path: resident, no hinting fault, no write-protect fault
                        ctr[C_ACCESSES] += 1
                        if ua[U_TOUCH_TID, unit] != t:
                            ua[U_OTHER_TICK, unit] = ua[U_TOUCH_TICK, unit]
                            ua[U_TOUCH_TID, unit] = t
                        ua[U_TOUCH_TICK, unit] = step
                        if write != 0:
                            ua[U_DIRTY, unit] = 1
                        here = ti[t, TI_NODE]
                        c = sweep_us * max(1, ni[here, NI_NR_RUNNING]) if kind == SWEEP else access_us
                        if ua[U_NODE, unit] != here:
                            ctr[C_REMOTE_ACCESSES] += 1
                            c = c * remote_cost
                        frac = c
                    else:
                        tf[t, TF_DEBT] = debt
                        tf[t, TF_RUNTIME] = runtime
                        frac = _touch(ki, kf, ti, tf, task_mm, ni, mi, gi, tfa, gfa, wts, ctr, sysb, ua, ev_u, mlog,
                                      t, unit, write, kind, step, now_ms)
                        debt = tf[t, TF_DEBT]
                    continue
                use = min(frac, wall * share)
                frac -= use
                user += use
                runtime += use
                cpu_used += use
                wall -= use if share == 1.0 else use / share
                if frac <= 0.0:
                    cur = -1
                    ti[t, TI_CUR_UNIT] = -1
                    io = io_us
            tf[t, TF_DEBT] = debt
            tf[t, TF_IO] = io
            tf[t, TF_FRAC] = frac
            tf[t, TF_USER] = user
            tf[t, TF_RUNTIME] = runtime
            if kf[KF_COST_TICK] > 0.0:
                # scheduler_tick(), accounting: paid in the next tick, like any kernel debt
                _charge(tf, sysb, t, kf[KF_COST_TICK] * cpu_used / 1000.0, SB_OTHER)
        if sample_steps > 0 and (step + 1) % sample_steps == 0 and smp_idx[0] < smp_cnt.shape[0]:
            i = smp_idx[0]
            for c in range(C_N):
                smp_cnt[i, c] = ctr[c]
            for t in range(T):
                smp_period[i, t] = ti[t, TI_PERIOD]
                smp_node[i, t] = ti[t, TI_NODE]
                rss = mi[ti[t, TI_MM], MI_RSS]
                smp_min[i, t] = task_scan_min(ki, rss)
                smp_max[i, t] = task_scan_max(ki, rss)
            smp_idx[0] = i + 1
        if alive == 0:
            return s
    return nsteps
