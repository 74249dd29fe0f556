"""The jitted kernel of the NUMA balancing model (private: use :func:`..numa.simulate`).

One function per kernel function it mirrors (kernel/sched/fair.c 3.19/4.0,
mm/memory.c, mm/migrate.c), over the packed arrays of :mod:`._numa_layout`.
No random numbers are drawn here: every draw comes in as an array from
:func:`..numa.simulate` (``numpy.random.default_rng(seed)``).  The kernel is
resumable: it advances the state by ``nsteps`` ticks and returns, so the
wrapper can draw the next chunk of randomness and collect samples.

The same logic, written with objects, is :mod:`._numa_reference`; a test
checks both give identical results.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._numa_layout import (
    C_ACCESSES, C_ALLOC_MISS, C_FAIL_BUSY, C_FAIL_ISOLATE, C_FAIL_MIGRATE, C_FAIL_NODEFULL, C_FAIL_RATELIMIT,
    C_GROUP_JOINS, C_HINT_FAULTS, C_HINT_FAULTS_LOCAL, C_HUGE_PTE_UPDATES, C_MIGRATE_ATTEMPTS, C_NO_GROUP_FAULTS,
    C_PAGES_MIGRATED, C_PERIOD_OUT_OF_RANGE, C_POOL_OVERFLOW, C_PGMIGRATE_FAIL, C_PGMIGRATE_SUCCESS, C_PTE_UPDATES,
    C_REMOTE_ACCESSES, C_SCANS, C_SHARED_FAULTS, C_TASK_MOVES, C_TASK_SWAPS, C_TLB_FLUSHES, C_TLB_IPIS, C_WANDERS,
    C_WP_FAULTS, GI_ALIVE, GI_NR_TASKS, GI_TOTAL_FAULTS, KF_ACCESS_US, KF_COST_FAULT, KF_COST_IPI,
    KF_COST_MIGRATE, KF_COST_PTE, KF_COST_WP, KF_FAULTS_PER_UNIT, KF_FLUSHES_PER_MIGRATION, KF_IO_US,
    KF_ISOLATE_FAIL, KF_MIGRATE_FAIL, KF_REMOTE_COST, KF_SWEEP_US, KF_WANDER_P, KI_CPUS_PER_NODE,
    KI_HIGH_WMARK_PAGES, KI_IMBALANCE_PCT, KI_LOG_CAP, KI_MAX_SCAN_WINDOW, KI_MIGRATE_FAIL, KI_MIGRATE_INTERVAL,
    KI_NO_GROUP_RULE, KI_NODES, KI_PROT_NONE, KI_RATELIMIT_PAGES, KI_SAMPLE_STEPS, KI_SCAN_DELAY,
    KI_SCAN_PERIOD_MAX, KI_SCAN_PERIOD_MIN, KI_SCAN_SIZE_MB, KI_SCAN_SIZE_PAGES, KI_SLOTS, KI_THRESHOLD,
    KI_TICK_MS, KI_UNIT_HUGE, KI_UNIT_PAGES, LG_ADMITTED, LG_DST, LG_MS, LG_OK, LG_PAGES, MI_LAZY, MI_LIVE,
    MI_NEXT_SCAN, MI_OFFSET, MI_RSS, MI_SEQ, NI_FREE, NI_NR_RUNNING, NI_RL_NEXT, NI_RL_NR, NI_WIN_MIGRATED,
    NI_WIN_MIGRATED_MAX, SB_FAULT, SB_IPI, SB_MIGRATE, SB_SCAN, SB_WP, TF_DEBT, TF_FINISH, TF_FRAC, TF_IO,
    TF_NODE_STAMP, TF_RUNTIME, TF_SYS, TF_USER, TI_CUR_UNIT, TI_CUR_WRITE, TI_DONE, TI_GROUP, TI_HAS_FAULTS,
    TI_LAST_PLACE_US, TI_LAST_RUN_US, TI_LOC0, TI_LOC1, TI_LOC2, TI_MIGRATE_RETRY, TI_MM, TI_MOVES, TI_NODE,
    TI_PAGES_MIGRATED, TI_PERIOD, TI_PERIOD_MAX, TI_PHASE, TI_POS, TI_PREF, TI_REP, TI_RIDX, TI_SCAN_SEQ,
    TI_TOTAL_FAULTS,
)

JIT = dict(cache=True)
SWEEP = 0
LOAD_AVG_MAX = 47742  # kernel/sched/fair.c: runnable average of a task that always runs
MSEC_PER_SEC = 1000
HPAGE_PAGES = 512  # HPAGE_PMD_NR; task_numa_work() aligns scan chunks to HPAGE_SIZE


@njit(**JIT)
def _cdiv(a, b):
    """C integer division (truncates toward zero), as in ``diff = (diff * ratio) / NUMA_PERIOD_SLOTS``."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# ---------------------------------------------------------------- scan window arithmetic
@njit(**JIT)
def task_nr_scan_windows(ki, rss_pages):
    nr_scan_pages = ki[KI_SCAN_SIZE_PAGES]
    rss = rss_pages if rss_pages > 0 else nr_scan_pages
    rss = ((rss + nr_scan_pages - 1) // nr_scan_pages) * nr_scan_pages
    return rss // nr_scan_pages


@njit(**JIT)
def task_scan_min(ki, rss_pages):
    windows = 1
    if ki[KI_SCAN_SIZE_MB] < ki[KI_MAX_SCAN_WINDOW]:
        windows = ki[KI_MAX_SCAN_WINDOW] // ki[KI_SCAN_SIZE_MB]
    floor = MSEC_PER_SEC // windows
    scan = ki[KI_SCAN_PERIOD_MIN] // task_nr_scan_windows(ki, rss_pages)
    return max(floor, scan)


@njit(**JIT)
def task_scan_max(ki, rss_pages):
    smin = task_scan_min(ki, rss_pages)
    smax = ki[KI_SCAN_PERIOD_MAX] // task_nr_scan_windows(ki, rss_pages)
    return max(smin, smax)


# ---------------------------------------------------------------- weights
@njit(**JIT)
def task_weight(ti, t_fmem, t, nid):
    if ti[t, TI_HAS_FAULTS] == 0:
        return 0
    total = ti[t, TI_TOTAL_FAULTS]
    if total <= 0:
        return 0
    return _cdiv(1000 * (t_fmem[t, nid, 0] + t_fmem[t, nid, 1]), total)


@njit(**JIT)
def group_faults(g_faults, g, nid):
    return g_faults[g, nid, 0] + g_faults[g, nid, 1]


@njit(**JIT)
def group_weight(ti, gi, g_faults, t, nid):
    g = ti[t, TI_GROUP]
    if g < 0 or gi[g, GI_TOTAL_FAULTS] <= 0:
        return 0
    return _cdiv(1000 * group_faults(g_faults, g, nid), gi[g, GI_TOTAL_FAULTS])


# ---------------------------------------------------------------- costs
@njit(**JIT)
def _charge(tf, sysb, t, us, cause):
    tf[t, TF_DEBT] += us
    tf[t, TF_SYS] += us
    sysb[cause] += us


@njit(**JIT)
def _flush_tlb(ki, kf, mi, cnt, tf, sysb, t, mm, nflush):
    """flush_tlb_page()/flush_tlb_range(): IPIs to the other CPUs in mm_cpumask."""
    cpus = ki[KI_NODES] * ki[KI_CPUS_PER_NODE]
    in_mask = mi[mm, MI_LIVE] + mi[mm, MI_LAZY]
    if in_mask > cpus:
        in_mask = cpus
    targets = in_mask - 1
    mi[mm, MI_LAZY] = 0  # lazy-TLB CPUs leave the mask when the IPI reaches them (leave_mm)
    if targets <= 0:
        return
    cnt[C_TLB_FLUSHES] += int(nflush)
    cnt[C_TLB_IPIS] += int(nflush) * targets
    _charge(tf, sysb, t, kf[KF_COST_IPI] * targets * nflush, SB_IPI)


# ---------------------------------------------------------------- scheduler placement
@njit(**JIT)
def _move_task(ti, ni, mi, t, dst):
    src = ti[t, TI_NODE]
    ni[src, NI_NR_RUNNING] -= 1
    ni[dst, NI_NR_RUNNING] += 1
    ti[t, TI_NODE] = dst


@njit(**JIT)
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


@njit(**JIT)
def task_numa_find_cpu(ki, ti, ni, gi, t_fmem, g_faults, t, src, dst, taskimp, groupimp, best):
    """task_numa_find_cpu() + task_numa_compare() at node granularity.

    ``best`` = [best_imp, best_task (-1 idle CPU, -2 none), best_node]; updated in place.
    Every task on ``dst`` is a swap candidate; one idle CPU stands for all idle CPUs.
    """
    T = ti.shape[0]
    cpus = ki[KI_CPUS_PER_NODE]
    pct = ki[KI_IMBALANCE_PCT]
    src_nr = ni[src, NI_NR_RUNNING]
    dst_nr = ni[dst, NI_NR_RUNNING]
    src_rq1 = src_nr <= cpus  # every CPU of the node runs at most one task
    dst_rq1 = dst_nr <= cpus
    p_group = ti[t, TI_GROUP]
    for c in range(-1, T):
        if c >= 0:
            if ti[c, TI_DONE] != 0 or ti[c, TI_NODE] != dst or c == t:
                continue
        elif dst_nr >= cpus:
            continue  # no idle CPU on dst
        imp = groupimp if p_group >= 0 else taskimp
        moveimp = imp
        if c >= 0:
            c_group = ti[c, TI_GROUP]
            if c_group == p_group:
                imp = taskimp + task_weight(ti, t_fmem, c, src) - task_weight(ti, t_fmem, c, dst)
                if c_group >= 0:
                    imp -= _cdiv(imp, 16)
            else:
                if c_group >= 0:
                    imp += group_weight(ti, gi, g_faults, c, src) - group_weight(ti, gi, g_faults, c, dst)
                else:
                    imp += task_weight(ti, t_fmem, c, src) - task_weight(ti, t_fmem, c, dst)
        if imp <= best[0] and moveimp <= best[0]:
            continue
        cur = c
        if cur < 0:
            # Is there capacity at our destination?
            if src_nr <= cpus and not (dst_nr < cpus):
                continue
        elif imp > best[0] and src_rq1 and dst_rq1:
            best[0] = imp
            best[1] = cur
            best[2] = dst
            continue
        # balance:
        dst_load = dst_nr + 1
        src_load = src_nr - 1
        if moveimp > imp and moveimp > best[0]:
            if not load_too_imbalanced(src_load, dst_load, src_nr, dst_nr, pct):
                best[0] = moveimp - 1
                best[1] = -1
                best[2] = dst
                continue
        if imp <= best[0]:
            continue
        if cur >= 0:
            dst_load -= 1
            src_load += 1
        if load_too_imbalanced(src_load, dst_load, src_nr, dst_nr, pct):
            continue
        best[0] = imp
        best[1] = cur
        best[2] = dst


@njit(**JIT)
def task_numa_migrate(ki, ti, ni, mi, gi, t_fmem, g_faults, g_active, cnt, t):
    """task_numa_migrate(): move the task towards its preferred node, or swap it with a task there."""
    N = ki[KI_NODES]
    src = ti[t, TI_NODE]
    pref = ti[t, TI_PREF]
    taskweight = task_weight(ti, t_fmem, t, src)
    groupweight = group_weight(ti, gi, g_faults, t, src)
    best = np.empty(3, np.int64)
    best[0] = 0
    best[1] = -2
    best[2] = -1
    env_dst = pref
    taskimp = task_weight(ti, t_fmem, t, pref) - taskweight
    groupimp = group_weight(ti, gi, g_faults, t, pref) - groupweight
    task_numa_find_cpu(ki, ti, ni, gi, t_fmem, g_faults, t, src, pref, taskimp, groupimp, best)
    if best[1] == -2:
        for nid in range(N):
            if nid == src or nid == pref:
                continue
            taskimp = task_weight(ti, t_fmem, t, nid) - taskweight
            groupimp = group_weight(ti, gi, g_faults, t, nid) - groupweight
            if taskimp < 0 and groupimp < 0:
                continue
            env_dst = nid
            task_numa_find_cpu(ki, ti, ni, gi, t_fmem, g_faults, t, src, nid, taskimp, groupimp, best)
    g = ti[t, TI_GROUP]
    if g >= 0:
        nid = src if best[1] == -2 else env_dst
        if g_active[g, nid] != 0:
            ti[t, TI_PREF] = env_dst  # sched_setnuma(p, env.dst_nid)
    if best[1] == -2:
        return
    ti[t, TI_PERIOD] = task_scan_min(ki, mi[ti[t, TI_MM], MI_RSS])
    ti[t, TI_MOVES] += 1
    if best[1] == -1:
        _move_task(ti, ni, mi, t, best[2])
        cnt[C_TASK_MOVES] += 1
    else:
        other = best[1]
        _move_task(ti, ni, mi, t, best[2])
        _move_task(ti, ni, mi, other, src)
        cnt[C_TASK_SWAPS] += 1


@njit(**JIT)
def numa_migrate_preferred(ki, ti, ni, mi, gi, t_fmem, g_faults, g_active, cnt, t, now_ms):
    if ti[t, TI_PREF] == -1 or ti[t, TI_HAS_FAULTS] == 0:
        return
    interval = min(MSEC_PER_SEC, ti[t, TI_PERIOD] // 16)
    ti[t, TI_MIGRATE_RETRY] = now_ms + interval
    if ti[t, TI_NODE] == ti[t, TI_PREF]:
        return
    task_numa_migrate(ki, ti, ni, mi, gi, t_fmem, g_faults, g_active, cnt, t)


# ---------------------------------------------------------------- the period controller
@njit(**JIT)
def _check_period(ki, ti, mi, cnt, t):
    rss = mi[ti[t, TI_MM], MI_RSS]
    p = ti[t, TI_PERIOD]
    if p < task_scan_min(ki, rss) or p > max(ti[t, TI_PERIOD_MAX], task_scan_max(ki, rss)):
        cnt[C_PERIOD_OUT_OF_RANGE] += 1


@njit(**JIT)
def update_task_scan_period(ki, ti, mi, cnt, t, shared, private, now_ms):
    remote = ti[t, TI_LOC0]
    local = ti[t, TI_LOC1]
    slots = ki[KI_SLOTS]
    thresh = ki[KI_THRESHOLD]
    if local + shared == 0 or (ki[KI_MIGRATE_FAIL] != 0 and ti[t, TI_LOC2] != 0):
        # scan slower; numa_faults_locality[] is *not* cleared on this path (as in the kernel)
        ti[t, TI_PERIOD] = min(ti[t, TI_PERIOD_MAX], ti[t, TI_PERIOD] << 1)
        mi[ti[t, TI_MM], MI_NEXT_SCAN] = now_ms + ti[t, TI_PERIOD]
        _check_period(ki, ti, mi, cnt, t)
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
    _check_period(ki, ti, mi, cnt, t)


@njit(**JIT)
def update_numa_active_node_mask(ki, g_fcpu, g_active, g):
    N = ki[KI_NODES]
    max_faults = 0
    for nid in range(N):
        f = g_fcpu[g, nid, 0] + g_fcpu[g, nid, 1]
        if f > max_faults:
            max_faults = f
    for nid in range(N):
        f = g_fcpu[g, nid, 0] + g_fcpu[g, nid, 1]
        if g_active[g, nid] == 0:
            if f > _cdiv(max_faults * 6, 16):
                g_active[g, nid] = 1
        elif f < _cdiv(max_faults * 3, 16):
            g_active[g, nid] = 0


@njit(**JIT)
def task_numa_placement(ki, ti, tf, ni, mi, gi, t_fmem, t_fcpu, t_bmem, t_bcpu, g_faults, g_fcpu, g_active,
                        cnt, t, now_ms):
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
            diff = t_bmem[t, nid, priv] - t_fmem[t, nid, priv] // 2
            if priv == 0:
                ft0 += t_bmem[t, nid, priv]
            else:
                ft1 += t_bmem[t, nid, priv]
            t_bmem[t, nid, priv] = 0
            f_weight = (delta << 16) // (period + 1)
            f_weight = (f_weight * t_bcpu[t, nid, priv]) // (total_faults + 1)
            f_diff = f_weight - t_fcpu[t, nid, priv] // 2
            t_bcpu[t, nid, priv] = 0
            t_fmem[t, nid, priv] += diff
            t_fcpu[t, nid, priv] += f_diff
            faults += t_fmem[t, nid, priv]
            ti[t, TI_TOTAL_FAULTS] += diff
            if g >= 0:
                g_faults[g, nid, priv] += diff
                g_fcpu[g, nid, priv] += f_diff
                gi[g, GI_TOTAL_FAULTS] += diff
                gfaults += g_faults[g, nid, priv]
        if faults > max_faults:
            max_faults = faults
            max_nid = nid
        if gfaults > max_gfaults:
            max_gfaults = gfaults
            max_gnid = nid
    update_task_scan_period(ki, ti, mi, cnt, t, ft0, ft1, now_ms)
    if g >= 0:
        update_numa_active_node_mask(ki, g_fcpu, g_active, g)
        max_nid = max_gnid
    if max_faults > 0:
        if max_nid != ti[t, TI_PREF]:
            ti[t, TI_PREF] = max_nid
        if ti[t, TI_NODE] != ti[t, TI_PREF]:
            numa_migrate_preferred(ki, ti, ni, mi, gi, t_fmem, g_faults, g_active, cnt, t, now_ms)


@njit(**JIT)
def task_numa_group(ki, ti, task_mm, gi, t_fmem, t_fcpu, g_faults, g_fcpu, g_active, cnt, t, last_nid, last_pid,
                    priv):
    N = ki[KI_NODES]
    if ti[t, TI_GROUP] < 0:
        g = t  # a group's id is the id of the task that created it
        gi[g, GI_NR_TASKS] = 1
        gi[g, GI_TOTAL_FAULTS] = ti[t, TI_TOTAL_FAULTS]
        gi[g, GI_ALIVE] = 1
        for nid in range(N):
            g_active[g, nid] = 0
            for pv in range(2):
                g_faults[g, nid, pv] = t_fmem[t, nid, pv]
                g_fcpu[g, nid, pv] = t_fcpu[t, nid, pv]
        g_active[g, ti[t, TI_NODE]] = 1
        ti[t, TI_GROUP] = g
    # tsk = cpu_rq(cpu)->curr must still be the task that made the last access
    o = last_pid
    if ti[o, TI_DONE] != 0 or ti[o, TI_NODE] != last_nid:
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
            g_faults[my, nid, pv] -= t_fmem[t, nid, pv]
            g_faults[grp, nid, pv] += t_fmem[t, nid, pv]
            g_fcpu[my, nid, pv] -= t_fcpu[t, nid, pv]
            g_fcpu[grp, nid, pv] += t_fcpu[t, nid, pv]
    gi[my, GI_TOTAL_FAULTS] -= ti[t, TI_TOTAL_FAULTS]
    gi[grp, GI_TOTAL_FAULTS] += ti[t, TI_TOTAL_FAULTS]
    gi[my, GI_NR_TASKS] -= 1
    gi[grp, GI_NR_TASKS] += 1
    if gi[my, GI_NR_TASKS] == 0:
        gi[my, GI_ALIVE] = 0
    ti[t, TI_GROUP] = grp
    cnt[C_GROUP_JOINS] += 1
    return priv


@njit(**JIT)
def task_numa_fault(ki, kf, ti, tf, task_mm, ni, mi, gi, t_fmem, t_fcpu, t_bmem, t_bcpu, g_faults, g_fcpu,
                    g_active, cnt, t, last_nid, last_pid, mem_node, pages, local, no_group, migrated, failed,
                    now_ms):
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
            priv = task_numa_group(ki, ti, task_mm, gi, t_fmem, t_fcpu, g_faults, g_fcpu, g_active, cnt, t,
                                   last_nid, last_pid, priv)
    if priv == 0:
        cnt[C_SHARED_FAULTS] += int(kf[KF_FAULTS_PER_UNIT])
    g = ti[t, TI_GROUP]
    if priv == 0 and local == 0 and g >= 0 and g_active[g, cpu_node] != 0 and g_active[g, mem_node] != 0:
        local = 1
    task_numa_placement(ki, ti, tf, ni, mi, gi, t_fmem, t_fcpu, t_bmem, t_bcpu, g_faults, g_fcpu, g_active,
                        cnt, t, now_ms)
    if now_ms > ti[t, TI_MIGRATE_RETRY]:
        numa_migrate_preferred(ki, ti, ni, mi, gi, t_fmem, g_faults, g_active, cnt, t, now_ms)
    if migrated:
        ti[t, TI_PAGES_MIGRATED] += pages
    if failed and ki[KI_MIGRATE_FAIL] != 0:
        ti[t, TI_LOC2] += pages
    t_bmem[t, mem_node, priv] += pages
    t_bcpu[t, cpu_node, priv] += pages
    if local != 0:
        ti[t, TI_LOC1] += pages
    else:
        ti[t, TI_LOC0] += pages


# ---------------------------------------------------------------- mm/migrate.c
@njit(**JIT)
def migrate_misplaced_page(ki, kf, ti, tf, ni, mi, cnt, sysb, u_node, u_dirty, u_other_tick, ev_u, ev_idx,
                           mlog, mlog_idx, t, unit, dst, step, now_ms):
    pages = ki[KI_UNIT_PAGES]
    huge = ki[KI_UNIT_HUGE] != 0
    cnt[C_MIGRATE_ATTEMPTS] += pages
    # numamigrate_update_ratelimit()
    if now_ms > ni[dst, NI_RL_NEXT]:
        ni[dst, NI_RL_NR] = 0
        ni[dst, NI_RL_NEXT] = now_ms + ki[KI_MIGRATE_INTERVAL]
        ni[dst, NI_WIN_MIGRATED] = 0
    ok = False
    admitted = ni[dst, NI_RL_NR] <= ki[KI_RATELIMIT_PAGES]
    if not admitted:
        cnt[C_FAIL_RATELIMIT] += pages
    else:
        ni[dst, NI_RL_NR] += pages
        if ev_idx[0] >= ev_u.shape[0]:
            cnt[C_POOL_OVERFLOW] += 1
            ev_idx[0] = 0
        u = ev_u[ev_idx[0]]
        ev_idx[0] += 1
        # migrate_balanced_pgdat(): the destination must stay above its high watermark
        if not (ni[dst, NI_FREE] > ki[KI_HIGH_WMARK_PAGES] + pages):
            cnt[C_FAIL_NODEFULL] += pages
            if huge:
                cnt[C_PGMIGRATE_FAIL] += pages
        elif huge and u_other_tick[unit] >= step - 1:
            # numamigrate_isolate_page(): a THP must have page_count == 3; another thread is faulting on it
            cnt[C_FAIL_BUSY] += pages
            cnt[C_PGMIGRATE_FAIL] += pages
        elif u < kf[KF_ISOLATE_FAIL]:
            cnt[C_FAIL_ISOLATE] += pages
            if huge:
                cnt[C_PGMIGRATE_FAIL] += pages
        elif (not huge) and u < kf[KF_ISOLATE_FAIL] + (1.0 - kf[KF_ISOLATE_FAIL]) * kf[KF_MIGRATE_FAIL]:
            cnt[C_FAIL_MIGRATE] += pages
            cnt[C_PGMIGRATE_FAIL] += pages
        else:
            ok = True
    if mlog.shape[0] > 0 and mlog_idx[0] < mlog.shape[0]:
        i = mlog_idx[0]
        mlog[i, LG_MS] = now_ms
        mlog[i, LG_DST] = dst
        mlog[i, LG_PAGES] = pages
        mlog[i, LG_ADMITTED] = 1 if admitted else 0
        mlog[i, LG_OK] = 1 if ok else 0
        mlog_idx[0] = i + 1
    if not ok:
        return False
    src = u_node[unit]
    ni[src, NI_FREE] += pages
    ni[dst, NI_FREE] -= pages
    u_node[unit] = dst
    cnt[C_PAGES_MIGRATED] += pages
    cnt[C_PGMIGRATE_SUCCESS] += pages
    ni[dst, NI_WIN_MIGRATED] += pages
    if ni[dst, NI_WIN_MIGRATED] > ni[dst, NI_WIN_MIGRATED_MAX]:
        ni[dst, NI_WIN_MIGRATED_MAX] = ni[dst, NI_WIN_MIGRATED]
    # remove_migration_pte() builds a clean pte for a base page; the THP path sets pmd_mkdirty()
    u_dirty[unit] = 1 if huge else 0
    _charge(tf, sysb, t, kf[KF_COST_MIGRATE], SB_MIGRATE)
    _flush_tlb(ki, kf, mi, cnt, tf, sysb, t, ti[t, TI_MM], kf[KF_FLUSHES_PER_MIGRATION])
    return True


@njit(**JIT)
def should_numa_migrate_memory(ti, gi, g_faults, g_active, u_last_nid, u_last_pid, t, unit, src_nid, dst_nid):
    last_nid = u_last_nid[unit]
    last_pid = u_last_pid[unit]
    u_last_nid[unit] = dst_nid  # page_cpupid_xchg_last()
    u_last_pid[unit] = t
    if last_pid >= 0 and last_nid != dst_nid:
        return False  # two-stage filter
    if last_pid == t:
        return True  # private fault
    g = ti[t, TI_GROUP]
    if g < 0:
        return True  # shared fault, no numa_group yet
    if g_active[g, dst_nid] == 0:
        return False
    if g_active[g, src_nid] == 0:
        return True
    return group_faults(g_faults, g, dst_nid) < _cdiv(group_faults(g_faults, g, src_nid) * 3, 4)


@njit(**JIT)
def do_numa_page(ki, kf, ti, tf, task_mm, ni, mi, gi, t_fmem, t_fcpu, t_bmem, t_bcpu, g_faults, g_fcpu, g_active,
                 cnt, sysb, u_node, u_marked, u_write, u_dirty, u_last_nid, u_last_pid, u_other_tick, ev_u, ev_idx,
                 mlog, mlog_idx, t, unit, step, now_ms):
    fpu = int(kf[KF_FAULTS_PER_UNIT])
    cnt[C_HINT_FAULTS] += fpu
    u_marked[unit] = 0
    _charge(tf, sysb, t, kf[KF_COST_FAULT], SB_FAULT)
    page_nid = u_node[unit]
    this_nid = ti[t, TI_NODE]
    local = 1 if page_nid == this_nid else 0
    if local:
        cnt[C_HINT_FAULTS_LOCAL] += fpu
    rule = ki[KI_NO_GROUP_RULE]
    if rule == 0:
        no_group = u_write[unit] == 0
    elif rule == 1:
        no_group = True
    elif rule == 2:
        no_group = u_dirty[unit] == 0
    else:
        no_group = False
    if no_group:
        cnt[C_NO_GROUP_FAULTS] += fpu
    if ki[KI_PROT_NONE] != 0:
        u_write[unit] = 0  # pte_modify(pte, vma->vm_page_prot): read-only again
    last_nid = u_last_nid[unit]
    last_pid = u_last_pid[unit]
    target = -1
    if should_numa_migrate_memory(ti, gi, g_faults, g_active, u_last_nid, u_last_pid, t, unit, page_nid, this_nid):
        if page_nid != this_nid:
            target = this_nid
    migrated = False
    failed = False
    mem_node = page_nid
    if target >= 0:
        migrated = migrate_misplaced_page(ki, kf, ti, tf, ni, mi, cnt, sysb, u_node, u_dirty, u_other_tick, ev_u,
                                          ev_idx, mlog, mlog_idx, t, unit, target, step, now_ms)
        if migrated:
            mem_node = target
        else:
            failed = True
    task_numa_fault(ki, kf, ti, tf, task_mm, ni, mi, gi, t_fmem, t_fcpu, t_bmem, t_bcpu, g_faults, g_fcpu,
                    g_active, cnt, t, last_nid, last_pid, mem_node, ki[KI_UNIT_PAGES], local, no_group, migrated,
                    failed, now_ms)


# ---------------------------------------------------------------- the scanner
@njit(**JIT)
def task_numa_work(ki, kf, ti, tf, mi, cnt, sysb, mm_start, mm_end, u_node, u_marked, t, now_ms):
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
            if u_node[u] >= 0 and u_marked[u] == 0:
                u_marked[u] = 1
                updated += 1
        if updated > 0:
            nr_pte_updates += updated
            _flush_tlb(ki, kf, mi, cnt, tf, sysb, t, mm, 1.0)  # change_protection_range(): flush_tlb_range()
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
    cnt[C_SCANS] += 1
    if nr_pte_updates > 0:
        cnt[C_PTE_UPDATES] += nr_pte_updates * up
        if ki[KI_UNIT_HUGE] != 0:
            cnt[C_HUGE_PTE_UPDATES] += nr_pte_updates * (up // HPAGE_PAGES)
        _charge(tf, sysb, t, kf[KF_COST_PTE] * nr_pte_updates, SB_SCAN)


@njit(**JIT)
def task_tick_numa(ki, kf, ti, tf, mi, cnt, sysb, mm_start, mm_end, u_node, u_marked, t, now_ms):
    period_us = ti[t, TI_PERIOD] * 1000.0
    if tf[t, TF_RUNTIME] - tf[t, TF_NODE_STAMP] > period_us:
        if tf[t, TF_NODE_STAMP] == 0.0:
            ti[t, TI_PERIOD] = task_scan_min(ki, mi[ti[t, TI_MM], MI_RSS])
            ti[t, TI_PERIOD_MAX] = task_scan_max(ki, mi[ti[t, TI_MM], MI_RSS])
        tf[t, TF_NODE_STAMP] += ti[t, TI_PERIOD] * 1000.0
        if now_ms >= mi[ti[t, TI_MM], MI_NEXT_SCAN]:
            task_numa_work(ki, kf, ti, tf, mi, cnt, sysb, mm_start, mm_end, u_node, u_marked, t, now_ms)


# ---------------------------------------------------------------- accesses
@njit(**JIT)
def _alloc_unit(ki, ti, ni, mi, cnt, u_node, u_write, u_dirty, u_last_nid, u_last_pid, t, unit):
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
        cnt[C_ALLOC_MISS] += 1
    u_node[unit] = chosen
    ni[chosen, NI_FREE] -= pages
    mi[ti[t, TI_MM], MI_RSS] += pages
    u_write[unit] = 1
    u_dirty[unit] = 1
    u_last_nid[unit] = -1  # page_cpupid_reset_last()
    u_last_pid[unit] = -1


@njit(**JIT)
def _next_access(ti, cnt, task_mm, task_phase0, task_nphases, phase_kind, phase_start, phase_end, phase_reps,
                 phase_shared, phase_write, mm_sh_start, mm_sh_end, acc_u, t):
    """The unit the thread touches next (-1 when its work is done) and whether it writes."""
    last = task_phase0[t] + task_nphases[t]
    ph = ti[t, TI_PHASE]
    while ph < last and ti[t, TI_REP] >= phase_reps[ph]:
        ph += 1
        ti[t, TI_PHASE] = ph
        ti[t, TI_REP] = 0
        ti[t, TI_POS] = 0
    if ph >= last:
        return -1, 0
    if phase_kind[ph] == SWEEP:
        unit = phase_start[ph] + ti[t, TI_POS]
        ti[t, TI_POS] += 1
        if ti[t, TI_POS] >= phase_end[ph] - phase_start[ph]:
            ti[t, TI_POS] = 0
            ti[t, TI_REP] += 1
        return unit, 1
    r = ti[t, TI_RIDX]
    if r >= acc_u.shape[1]:
        cnt[C_POOL_OVERFLOW] += 1
        r = 0
    u1 = acc_u[t, r, 0]
    u2 = acc_u[t, r, 1]
    ti[t, TI_RIDX] = r + 1
    p = phase_shared[ph]
    mm = task_mm[t]
    if u1 < p:
        n = mm_sh_end[mm] - mm_sh_start[mm]
        k = int(u1 / p * n)
        if k >= n:
            k = n - 1
        unit = mm_sh_start[mm] + k
    else:
        n = phase_end[ph] - phase_start[ph]
        k = int((u1 - p) / (1.0 - p) * n)
        if k >= n:
            k = n - 1
        unit = phase_start[ph] + k
    ti[t, TI_REP] += 1
    return unit, 1 if u2 < phase_write[ph] else 0


@njit(**JIT)
def _touch(ki, kf, ti, tf, task_mm, ni, mi, gi, t_fmem, t_fcpu, t_bmem, t_bcpu, g_faults, g_fcpu, g_active,
           cnt, sysb, u_node, u_marked, u_write, u_dirty, u_last_nid, u_last_pid, u_touch_tid, u_touch_tick,
           u_other_tick, ev_u, ev_idx, mlog, mlog_idx, t, unit, write, kind, step, now_ms):
    """One access: allocate on first touch, take a hinting fault on a marked unit; returns its CPU cost."""
    cnt[C_ACCESSES] += 1
    if u_touch_tid[unit] != t:
        u_other_tick[unit] = u_touch_tick[unit]
        u_touch_tid[unit] = t
    u_touch_tick[unit] = step
    if u_node[unit] < 0:
        _alloc_unit(ki, ti, ni, mi, cnt, u_node, u_write, u_dirty, u_last_nid, u_last_pid, t, unit)
    elif u_marked[unit] != 0:
        do_numa_page(ki, kf, ti, tf, task_mm, ni, mi, gi, t_fmem, t_fcpu, t_bmem, t_bcpu, g_faults, g_fcpu,
                     g_active, cnt, sysb, u_node, u_marked, u_write, u_dirty, u_last_nid, u_last_pid, u_other_tick,
                     ev_u, ev_idx, mlog, mlog_idx, t, unit, step, now_ms)
    if write != 0:
        if u_write[unit] == 0:
            # do_wp_page(): the write after a PROT_NONE hinting fault (or to a never-written page)
            cnt[C_WP_FAULTS] += int(kf[KF_FAULTS_PER_UNIT])
            _charge(tf, sysb, t, kf[KF_COST_WP], SB_WP)
            u_write[unit] = 1
        u_dirty[unit] = 1
    node = ti[t, TI_NODE]
    if kind == SWEEP:
        c = kf[KF_SWEEP_US] * max(1, ni[node, NI_NR_RUNNING])  # the node's bandwidth is shared
    else:
        c = kf[KF_ACCESS_US]
    if u_node[unit] != node:
        cnt[C_REMOTE_ACCESSES] += 1
        c = c * kf[KF_REMOTE_COST]
    return c


# ---------------------------------------------------------------- the loop
@njit(**JIT)
def _simulate_kernel(ki, kf, task_mm, task_phase0, task_nphases, phase_kind, phase_start, phase_end, phase_reps,
                     phase_shared, phase_write, mm_start, mm_end, mm_sh_start, mm_sh_end,
                     ti, tf, t_fmem, t_fcpu, t_bmem, t_bcpu, gi, g_faults, g_fcpu, g_active, ni, mi, cnt, sysb,
                     u_node, u_marked, u_write, u_dirty, u_last_nid, u_last_pid, u_touch_tid, u_touch_tick,
                     u_other_tick, step0, nsteps, rot, acc_u, ev_u, ev_idx, wander_u,
                     smp_cnt, smp_period, smp_node, smp_min, smp_max, smp_idx, mlog, mlog_idx):
    """Advance the simulation ``nsteps`` ticks from ``step0``; returns the ticks run (fewer if all threads finished)."""
    T = task_mm.shape[0]
    N = ki[KI_NODES]
    cpus = ki[KI_CPUS_PER_NODE]
    tick_ms = ki[KI_TICK_MS]
    tick_us = tick_ms * 1000.0
    sample_steps = ki[KI_SAMPLE_STEPS]
    wander_p = kf[KF_WANDER_P]
    io_us = kf[KF_IO_US]
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
                        _move_task(ti, ni, mi, t, dst)
                        mi[ti[t, TI_MM], MI_LAZY] += 1  # the CPU it left keeps the mm lazily
                        cnt[C_WANDERS] += 1
        alive = 0
        off = rot[s]
        for k in range(T):
            t = (off + k) % T
            if ti[t, TI_DONE] != 0:
                continue
            alive += 1
            if tf[t, TF_RUNTIME] - tf[t, TF_NODE_STAMP] > ti[t, TI_PERIOD] * 1000.0:
                task_tick_numa(ki, kf, ti, tf, mi, cnt, sysb, mm_start, mm_end, u_node, u_marked, t, now_ms)
            nr = ni[ti[t, TI_NODE], NI_NR_RUNNING]
            share = 1.0 if nr <= cpus else cpus / nr  # CPU share, fixed for the tick
            wall = tick_us
            while wall > 1e-6 and ti[t, TI_DONE] == 0:
                if tf[t, TF_DEBT] > 0.0:
                    use = min(tf[t, TF_DEBT], wall * share)
                    tf[t, TF_DEBT] -= use
                    tf[t, TF_RUNTIME] += use
                    wall -= use / share
                    continue
                if tf[t, TF_IO] > 0.0:
                    use = min(tf[t, TF_IO], wall)
                    tf[t, TF_IO] -= use
                    wall -= use
                    continue
                if ti[t, TI_CUR_UNIT] < 0:
                    # fast path: the next unit of a sweep, already resident, not marked, writable
                    ph = ti[t, TI_PHASE]
                    if (ph < task_phase0[t] + task_nphases[t] and phase_kind[ph] == SWEEP
                            and ti[t, TI_REP] < phase_reps[ph]):
                        unit = phase_start[ph] + ti[t, TI_POS]
                        if u_node[unit] >= 0 and u_marked[unit] == 0 and u_write[unit] != 0:
                            ti[t, TI_POS] += 1
                            if ti[t, TI_POS] >= phase_end[ph] - phase_start[ph]:
                                ti[t, TI_POS] = 0
                                ti[t, TI_REP] += 1
                            cnt[C_ACCESSES] += 1
                            if u_touch_tid[unit] != t:
                                u_other_tick[unit] = u_touch_tick[unit]
                                u_touch_tid[unit] = t
                            u_touch_tick[unit] = step
                            u_dirty[unit] = 1
                            here = ti[t, TI_NODE]
                            c = kf[KF_SWEEP_US] * max(1, ni[here, NI_NR_RUNNING])
                            if u_node[unit] != here:
                                cnt[C_REMOTE_ACCESSES] += 1
                                c = c * kf[KF_REMOTE_COST]
                            ti[t, TI_CUR_UNIT] = unit
                            tf[t, TF_FRAC] = c
                            continue
                    unit, write = _next_access(ti, cnt, task_mm, task_phase0, task_nphases, phase_kind, phase_start,
                                               phase_end, phase_reps, phase_shared, phase_write, mm_sh_start,
                                               mm_sh_end, acc_u, t)
                    if unit < 0:
                        ti[t, TI_DONE] = 1
                        tf[t, TF_FINISH] = now_ms * 1000.0 + (tick_us - wall)
                        ni[ti[t, TI_NODE], NI_NR_RUNNING] -= 1
                        mi[ti[t, TI_MM], MI_LIVE] -= 1
                        break
                    kind = phase_kind[ti[t, TI_PHASE]]
                    ti[t, TI_CUR_UNIT] = unit
                    tf[t, TF_FRAC] = _touch(ki, kf, ti, tf, task_mm, ni, mi, gi, t_fmem, t_fcpu, t_bmem, t_bcpu,
                                            g_faults, g_fcpu, g_active, cnt, sysb, u_node, u_marked, u_write,
                                            u_dirty, u_last_nid, u_last_pid, u_touch_tid, u_touch_tick,
                                            u_other_tick, ev_u, ev_idx, mlog, mlog_idx, t, unit, write, kind,
                                            step, now_ms)
                    continue
                use = min(tf[t, TF_FRAC], wall * share)
                tf[t, TF_FRAC] -= use
                tf[t, TF_USER] += use
                tf[t, TF_RUNTIME] += use
                wall -= use / share
                if tf[t, TF_FRAC] <= 0.0:
                    ti[t, TI_CUR_UNIT] = -1
                    tf[t, TF_IO] = io_us
        if sample_steps > 0 and (step + 1) % sample_steps == 0 and smp_idx[0] < smp_cnt.shape[0]:
            i = smp_idx[0]
            for c in range(cnt.shape[0]):
                smp_cnt[i, c] = cnt[c]
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
