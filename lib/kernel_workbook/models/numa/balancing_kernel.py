"""The jitted kernel of the NUMA balancing model (use :func:`.simulate.simulate`).

It mirrors kernel/sched/fair.c (3.19/4.0: ``task_tick_numa``, ``task_numa_work``,
``task_numa_fault``, ``task_numa_group``, ``task_numa_placement``,
``update_task_scan_period``, ``task_numa_migrate``), mm/memory.c
(``do_numa_page``) and mm/migrate.c (``migrate_misplaced_page`` and its rate
limit) over the packed arrays of :mod:`.layout`.  Every function that runs on
an access or a tick (the slow-path access ``_touch``, ``migrate_misplaced_page``,
``_alloc_unit``, ``task_tick_numa`` and the small helpers they call) is a
``leaf``, inlined into ``run``: a Numba call passes every array as its whole
descriptor (about 150 words for ``_touch``) and increfs each one, which cost
more than the fault itself.  Functions that run once per scan pass or
placement stay calls.  :mod:`.reference` keeps one function per kernel
function and a test checks both give identical results.

No random number is drawn here: every draw comes in as an array from
:func:`.simulate.simulate` (``numpy.random.default_rng(seed)``).  The kernel is
resumable: it advances the state by ``nsteps`` ticks and returns, so the
wrapper can draw the next chunk of randomness and collect samples.
"""

from __future__ import annotations

import numpy as np

from ..engine import borrowed, kernel, leaf
from .layout import C_N, CT, FA, FP, GI, I, LG, MEMO_W, MI, NI, SB, SD_DIE_CACHE_NICE_TRIES, TF, TI, UA, UB, W
from .workload import SWEEP  # the access pattern enum, generated in workload.py

_borrow = borrowed(__name__)
LOAD_AVG_MAX = 47742  # kernel/sched/fair.c: runnable average of a task that always runs
MSEC_PER_SEC = 1000
HPAGE_PAGES = 512  # HPAGE_PMD_NR; task_numa_work() aligns scan chunks to HPAGE_SIZE


@leaf
def _cdiv(a, b):
    """C integer division (truncates toward zero), as in ``diff = (diff * ratio) / NUMA_PERIOD_SLOTS``."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# ---------------------------------------------------------------- scan window arithmetic
@leaf
def task_nr_scan_windows(ki, rss_pages):
    nr_scan_pages = ki[I.scan_size_pages]
    rss = rss_pages if rss_pages > 0 else nr_scan_pages
    rss = ((rss + nr_scan_pages - 1) // nr_scan_pages) * nr_scan_pages
    return rss // nr_scan_pages


@leaf
def task_scan_min(ki, rss_pages):
    windows = 1
    if ki[I.numa_balancing_scan_size_mb] < ki[I.MAX_SCAN_WINDOW]:
        windows = ki[I.MAX_SCAN_WINDOW] // ki[I.numa_balancing_scan_size_mb]
    floor = MSEC_PER_SEC // windows
    scan = ki[I.numa_balancing_scan_period_min_ms] // task_nr_scan_windows(ki, rss_pages)
    return max(floor, scan)


@leaf
def task_scan_max(ki, rss_pages):
    smin = task_scan_min(ki, rss_pages)
    smax = ki[I.numa_balancing_scan_period_max_ms] // task_nr_scan_windows(ki, rss_pages)
    return max(smin, smax)


# ---------------------------------------------------------------- weights (cached, kept exact)
@kernel
def _refresh_tw(ki, ti, tfa, wts, ctr, t):
    """task_weight(t, nid) for every node: changes only when task_numa_placement() updates the task's faults."""
    total = ti[t, TI.total_faults]
    for nid in range(ki[I.nr_nodes]):
        if ti[t, TI.has_faults] == 0 or total <= 0:
            wts[W.task, t, nid] = 0
        else:
            wts[W.task, t, nid] = _cdiv(1000 * (tfa[FA.mem, t, nid, 0] + tfa[FA.mem, t, nid, 1]), total)
    ctr[CT.epoch] += 1


@kernel
def _refresh_gw(ki, gi, gfa, wts, ctr, g):
    """group_weight() of group g for every node: changes with its members' placements and with joins."""
    total = gi[g, GI.total_faults]
    for nid in range(ki[I.nr_nodes]):
        if total <= 0:
            wts[W.group, g, nid] = 0
        else:
            wts[W.group, g, nid] = _cdiv(1000 * (gfa[FA.mem, g, nid, 0] + gfa[FA.mem, g, nid, 1]), total)
    ctr[CT.epoch] += 1


@kernel
def _gw_of(ti, wts, t, nid):
    g = ti[t, TI.group]
    return 0 if g < 0 else wts[W.group, g, nid]


# ---------------------------------------------------------------- costs
@leaf
def _charge(tf, sysb, t, us, cause):
    tf[t, TF.debt] += us
    tf[t, TF.sys] += us
    sysb[cause] += us


@leaf
def _flush_tlb(ki, kf, mi, ctr, tf, sysb, t, mm, nflush):
    """flush_tlb_page()/flush_tlb_range(): IPIs to the other CPUs in mm_cpumask."""
    cpus = ki[I.nr_nodes] * ki[I.cpus_per_node]
    in_mask = mi[mm, MI.live] + mi[mm, MI.lazy]
    if in_mask > cpus:
        in_mask = cpus
    targets = in_mask - 1
    mi[mm, MI.lazy] = 0  # lazy-TLB CPUs leave the mask when the IPI reaches them (leave_mm)
    if targets <= 0:
        return
    ctr[CT.tlb_flushes] += int(nflush)
    ctr[CT.tlb_ipis] += int(nflush) * targets
    _charge(tf, sysb, t, kf[FP.cost_tlb_flush_ipi_us] * targets * nflush, SB.ipi)


# ---------------------------------------------------------------- scheduler placement
@kernel
def _nt_remove(ni, n, t):
    c = ni[n, NI.tasks]
    j = 1
    while j <= c and ni[n, NI.tasks + j] != t:
        j += 1
    while j < c:
        ni[n, NI.tasks + j] = ni[n, NI.tasks + j + 1]
        j += 1
    ni[n, NI.tasks] = c - 1


@kernel
def _nt_insert(ni, n, t):
    c = ni[n, NI.tasks]
    j = c
    while j >= 1 and ni[n, NI.tasks + j] > t:
        ni[n, NI.tasks + j + 1] = ni[n, NI.tasks + j]
        j -= 1
    ni[n, NI.tasks + j + 1] = t
    ni[n, NI.tasks] = c + 1


@kernel
def _move_task(ti, ni, ctr, t, dst):
    ctr[CT.epoch] += 1
    src = ti[t, TI.node]
    ni[src, NI.nr_running] -= 1
    ni[dst, NI.nr_running] += 1
    ti[t, TI.node] = dst
    _nt_remove(ni, src, t)
    _nt_insert(ni, dst, t)


@kernel
def load_balance(ki, kf, ti, tf, ni, mi, ctr, sysb):
    """The CFS load balancer of the NUMA domain, run from an idle CPU of each node (kernel/sched/fair.c, 3.19/4.0:
    rebalance_domains() -> load_balance() -> find_busiest_group(), detach_tasks()/can_migrate_task(),
    need_active_balance()), at node granularity with equal-weight tasks:

    * a node with an idle CPU looks at the busiest node; it is balanced (find_busiest_group(): the local group
      as loaded, or calculate_imbalance()/fix_small_imbalance() finding that one task would not narrow the gap)
      unless the busiest node runs at least two tasks more;
    * can_migrate_task(): a task moves at once if the move improves its locality (migrate_improves_locality():
      NUMA_FAVOUR_HIGHER, the destination is its preferred node, or for a grouped task one of the group's active
      nodes while its source is not); otherwise load_balance() fails -- a queued task is cache hot, a lone
      running one cannot be detached -- and sd->nr_balance_failed grows; above cache_nice_tries a queued task
      goes anyway, above cache_nice_tries + 2 need_active_balance() moves the running task (stop_one_cpu());
    * nothing resists a move against NUMA placement (migrate_degrades_locality() is off: NUMA_RESIST_LOWER is
      false), and the move leaves numa_scan_period alone (only task_numa_migrate() resets it).
    * on a machine without a NUMA level (``sched_domains_numa_levels == 0``, e.g. numa=fake without a SLIT) the
      top domain is not SD_NUMA: migrate_improves_locality() returns false for every task, and cache_nice_tries
      is that domain's (sd_init(): SD_DIE_CACHE_NICE_TRIES), not the NUMA domain's knob.

    Which task of the busiest node goes when none improves its locality: the lowest task id (the kernel takes
    the busiest CPU's task; with equal loads find_busiest_queue() keeps the first CPU it saw).
    """
    N = ki[I.nr_nodes]
    cpus = ki[I.cpus_per_node]
    sd_numa = ki[I.sched_domains_numa_levels] > 0
    tries = ki[I.cache_nice_tries] if sd_numa else SD_DIE_CACHE_NICE_TRIES
    for dst in range(N):
        local = ni[dst, NI.nr_running]
        if local >= cpus:
            continue  # no idle CPU on this node: nothing balances from here at the idle interval
        busiest = -1
        for n in range(N):
            if n != dst and (busiest < 0 or ni[n, NI.nr_running] > ni[busiest, NI.nr_running]):
                busiest = n
        if busiest < 0 or ni[busiest, NI.nr_running] - local < 2:
            ni[dst, NI.lb_failed] = 0
            continue
        pick = -1
        if sd_numa:  # migrate_improves_locality(): false unless env->sd->flags & SD_NUMA
            for j in range(1, ni[busiest, NI.tasks] + 1):
                c = ni[busiest, NI.tasks + j]
                if ti[c, TI.has_faults] != 0 and ti[c, TI.pref] == dst:
                    pick = c
                    break
        if pick < 0:
            ni[dst, NI.lb_failed] += 1
            limit = tries if ni[busiest, NI.nr_running] > cpus else tries + 2
            if ni[dst, NI.lb_failed] <= limit:
                continue
            pick = ni[busiest, NI.tasks + 1]
        ni[dst, NI.lb_failed] = 0
        _move_task(ti, ni, ctr, pick, dst)
        mi[ti[pick, TI.mm], MI.lazy] += 1  # the CPU it left keeps the mm lazily
        ctr[CT.lb_task_moves] += 1
        _charge(tf, sysb, pick, kf[FP.cost_task_move_us], SB.place)


@kernel
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


@kernel
def task_numa_find_cpu(ki, ti, ni, wts, ctr, t, src, dst, taskimp, groupimp):
    """task_numa_find_cpu() + task_numa_compare() at node granularity.

    ``ctr[CT.best:CT.best+3]`` = best_imp, best_task (-1 idle CPU, -2 none), best_node; updated in place.
    One idle CPU stands for all idle CPUs of the node; then every task on ``dst`` is a swap candidate.
    """
    cpus = ki[I.cpus_per_node]
    pct = ki[I.numa_imbalance_pct]
    src_nr = ni[src, NI.nr_running]
    dst_nr = ni[dst, NI.nr_running]
    src_rq1 = src_nr <= cpus  # every CPU of the node runs at most one task
    dst_rq1 = dst_nr <= cpus
    p_group = ti[t, TI.group]
    for j in range(ni[dst, NI.tasks] + 1):
        if j == 0:
            c = -1
            if dst_nr >= cpus:
                continue  # no idle CPU on dst
        else:
            c = ni[dst, NI.tasks + j]
            if c == t:
                continue
        imp = groupimp if p_group >= 0 else taskimp
        moveimp = imp
        if c >= 0:
            c_group = ti[c, TI.group]
            if c_group == p_group:
                imp = taskimp + wts[W.task, c, src] - wts[W.task, c, dst]
                if c_group >= 0:
                    imp -= _cdiv(imp, 16)
            elif c_group >= 0:
                imp += wts[W.group, c_group, src] - wts[W.group, c_group, dst]
            else:
                imp += wts[W.task, c, src] - wts[W.task, c, dst]
        best_imp = ctr[CT.best]
        if imp <= best_imp and moveimp <= best_imp:
            continue
        if c < 0:
            if src_nr <= cpus and not (dst_nr < cpus):  # Is there capacity at our destination?
                continue
        elif imp > best_imp and src_rq1 and dst_rq1:
            ctr[CT.best] = imp
            ctr[CT.best + 1] = c
            ctr[CT.best + 2] = dst
            continue
        # balance:
        dst_load = dst_nr + 1
        src_load = src_nr - 1
        if moveimp > imp and moveimp > best_imp:
            if not load_too_imbalanced(src_load, dst_load, src_nr, dst_nr, pct):
                ctr[CT.best] = moveimp - 1
                ctr[CT.best + 1] = -1
                ctr[CT.best + 2] = dst
                continue
        if imp <= best_imp:
            continue
        if c >= 0:
            dst_load -= 1
            src_load += 1
        if load_too_imbalanced(src_load, dst_load, src_nr, dst_nr, pct):
            continue
        ctr[CT.best] = imp
        ctr[CT.best + 1] = c
        ctr[CT.best + 2] = dst


@kernel
def _charge_search(ki, kf, tf, ctr, sysb, t, nodes):
    """The CPU time of one task_numa_migrate() call that searched ``nodes`` nodes: update_numa_stats() of the
    source, then update_numa_stats() and task_numa_compare() on every CPU of each node searched."""
    cpus = ki[I.cpus_per_node] * (1 + 2 * nodes)
    ctr[CT.numa_migrate_calls] += 1
    ctr[CT.numa_search_cpus] += cpus
    _charge(tf, sysb, t, kf[FP.cost_numa_search_us] * cpus, SB.place)


@kernel
def task_numa_migrate(ki, kf, ti, tf, ni, mi, gi, wts, ctr, sysb, t):
    """task_numa_migrate(): move the task to its preferred node, or swap it with a task there."""
    if ki[I.sched_domains_numa_levels] == 0:
        # no sd_numa on the source CPU: "if (unlikely(!sd)) { p->numa_preferred_nid = task_node(p); return
        # -EINVAL; }" -- before any update_numa_stats() or task_numa_find_cpu(), so nothing is searched
        ti[t, TI.pref] = ti[t, TI.node]
        return
    N = ki[I.nr_nodes]
    src = ti[t, TI.node]
    pref = ti[t, TI.pref]
    # Nothing this search reads has changed since the task's last failed search from the same
    # preferred node: it would fail the same way and set the same preferred node.  Skip computing it
    # (the kernel would search again, so its cost is still charged).
    memo = CT.memo + MEMO_W * t
    if ctr[memo] == ctr[CT.epoch] and ctr[memo + 1] == pref:
        ti[t, TI.pref] = ctr[memo + 2]
        _charge_search(ki, kf, tf, ctr, sysb, t, ctr[memo + 3])
        return
    taskweight = wts[W.task, t, src]
    groupweight = _gw_of(ti, wts, t, src)
    ctr[CT.best] = 0
    ctr[CT.best + 1] = -2
    ctr[CT.best + 2] = -1
    env_dst = pref
    taskimp = wts[W.task, t, pref] - taskweight
    groupimp = _gw_of(ti, wts, t, pref) - groupweight
    task_numa_find_cpu(ki, ti, ni, wts, ctr, t, src, pref, taskimp, groupimp)
    nodes = 1
    if ctr[CT.best + 1] == -2:
        for nid in range(N):
            if nid == src or nid == pref:
                continue
            taskimp = wts[W.task, t, nid] - taskweight
            groupimp = _gw_of(ti, wts, t, nid) - groupweight
            if taskimp < 0 and groupimp < 0:
                continue
            env_dst = nid
            nodes += 1
            task_numa_find_cpu(ki, ti, ni, wts, ctr, t, src, nid, taskimp, groupimp)
    _charge_search(ki, kf, tf, ctr, sysb, t, nodes)
    g = ti[t, TI.group]
    if g >= 0:
        nid = src if ctr[CT.best + 1] == -2 else env_dst
        if gi[g, GI.active + nid] != 0:
            ti[t, TI.pref] = env_dst  # sched_setnuma(p, env.dst_nid)
    if ctr[CT.best + 1] == -2:
        ctr[memo] = ctr[CT.epoch]
        ctr[memo + 1] = pref
        ctr[memo + 2] = ti[t, TI.pref]
        ctr[memo + 3] = nodes
        return
    # "Reset the scan period if the task is being rescheduled on an alternative node to recheck if the
    # tasks is now properly placed": the only place besides the controller that sets numa_scan_period
    # (a move by the load balancer or a wake-up elsewhere leaves it alone)
    ti[t, TI.period] = task_scan_min(ki, mi[ti[t, TI.mm], MI.rss])
    ti[t, TI.moves] += 1
    _charge(tf, sysb, t, kf[FP.cost_task_move_us], SB.place)
    best_task = ctr[CT.best + 1]
    best_node = ctr[CT.best + 2]
    _move_task(ti, ni, ctr, t, best_node)
    if best_task == -1:
        ctr[CT.numa_task_moves] += 1
    else:
        _move_task(ti, ni, ctr, best_task, src)
        ctr[CT.numa_task_swaps] += 1


@kernel
def numa_migrate_preferred(ki, kf, ti, tf, ni, mi, gi, wts, ctr, sysb, t, now_ms):
    if ti[t, TI.pref] == -1 or ti[t, TI.has_faults] == 0:
        return
    interval = min(MSEC_PER_SEC, ti[t, TI.period] // 16)
    ti[t, TI.migrate_retry] = now_ms + interval
    if ti[t, TI.node] == ti[t, TI.pref]:
        return
    task_numa_migrate(ki, kf, ti, tf, ni, mi, gi, wts, ctr, sysb, t)


# ---------------------------------------------------------------- the period controller
@kernel
def _check_period(ki, ti, mi, ctr, t):
    rss = mi[ti[t, TI.mm], MI.rss]
    p = ti[t, TI.period]
    if p < task_scan_min(ki, rss) or p > max(ti[t, TI.period_max], task_scan_max(ki, rss)):
        ctr[CT.period_out_of_range] += 1


@kernel
def update_task_scan_period(ki, ti, mi, ctr, t, shared, private, now_ms):
    remote = ti[t, TI.loc0]
    local = ti[t, TI.loc1]
    slots = ki[I.NUMA_PERIOD_SLOTS]
    thresh = ki[I.NUMA_PERIOD_THRESHOLD]
    if local + shared == 0 or (ki[I.TNF_MIGRATE_FAIL] != 0 and ti[t, TI.loc2] != 0):
        # scan slower; numa_faults_locality[] is *not* cleared on this path (as in the kernel)
        ti[t, TI.period] = min(ti[t, TI.period_max], ti[t, TI.period] << 1)
        mi[ti[t, TI.mm], MI.next_scan] = now_ms + ti[t, TI.period]
        _check_period(ki, ti, mi, ctr, t)
        return
    period_slot = (ti[t, TI.period] + slots - 1) // slots
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
    rss = mi[ti[t, TI.mm], MI.rss]
    lo = task_scan_min(ki, rss)
    hi = task_scan_max(ki, rss)
    p = ti[t, TI.period] + diff
    if p < lo:
        p = lo
    if p > hi:
        p = hi
    ti[t, TI.period] = p
    ti[t, TI.loc0] = 0
    ti[t, TI.loc1] = 0
    ti[t, TI.loc2] = 0
    _check_period(ki, ti, mi, ctr, t)


@kernel
def update_numa_active_node_mask(ki, gi, gfa, g):
    N = ki[I.nr_nodes]
    max_faults = 0
    for nid in range(N):
        f = gfa[FA.cpu, g, nid, 0] + gfa[FA.cpu, g, nid, 1]
        if f > max_faults:
            max_faults = f
    for nid in range(N):
        f = gfa[FA.cpu, g, nid, 0] + gfa[FA.cpu, g, nid, 1]
        if gi[g, GI.active + nid] == 0:
            if f > _cdiv(max_faults * 6, 16):
                gi[g, GI.active + nid] = 1
        elif f < _cdiv(max_faults * 3, 16):
            gi[g, GI.active + nid] = 0


@kernel
def task_numa_placement(ki, kf, ti, tf, ni, mi, gi, tfa, gfa, wts, ctr, sysb, t, now_ms):
    mm = ti[t, TI.mm]
    seq = mi[mm, MI.seq]
    if ti[t, TI.scan_seq] == seq:
        return
    ti[t, TI.scan_seq] = seq
    ti[t, TI.period_max] = task_scan_max(ki, mi[mm, MI.rss])
    total_faults = ti[t, TI.loc0] + ti[t, TI.loc1]
    # numa_get_avg_runtime()
    now_us = now_ms * 1000 + 1
    runtime = np.int64(tf[t, TF.runtime])
    if ti[t, TI.last_place_us] != 0:
        delta = runtime - ti[t, TI.last_run_us]
        period = now_us - ti[t, TI.last_place_us]
    else:
        delta = LOAD_AVG_MAX
        period = LOAD_AVG_MAX
    ti[t, TI.last_run_us] = runtime
    ti[t, TI.last_place_us] = now_us
    g = ti[t, TI.group]
    N = ki[I.nr_nodes]
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
            buf = tfa[FA.bufmem, t, nid, priv]
            diff = buf - tfa[FA.mem, t, nid, priv] // 2
            if priv == 0:
                ft0 += buf
            else:
                ft1 += buf
            tfa[FA.bufmem, t, nid, priv] = 0
            f_weight = (delta << 16) // (period + 1)
            f_weight = (f_weight * tfa[FA.bufcpu, t, nid, priv]) // (total_faults + 1)
            f_diff = f_weight - tfa[FA.cpu, t, nid, priv] // 2
            tfa[FA.bufcpu, t, nid, priv] = 0
            tfa[FA.mem, t, nid, priv] += diff
            tfa[FA.cpu, t, nid, priv] += f_diff
            faults += tfa[FA.mem, t, nid, priv]
            ti[t, TI.total_faults] += diff
            if g >= 0:
                gfa[FA.mem, g, nid, priv] += diff
                gfa[FA.cpu, g, nid, priv] += f_diff
                gi[g, GI.total_faults] += diff
                gfaults += gfa[FA.mem, g, nid, priv]
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
        if max_nid != ti[t, TI.pref]:
            ti[t, TI.pref] = max_nid
        if ti[t, TI.node] != ti[t, TI.pref]:
            numa_migrate_preferred(ki, kf, ti, tf, ni, mi, gi, wts, ctr, sysb, t, now_ms)


@kernel
def task_numa_group(ki, ti, tf, task_mm, gi, tfa, gfa, wts, ctr, t, last_nid, last_pid, priv):
    N = ki[I.nr_nodes]
    if ti[t, TI.group] < 0:
        g = t  # a group's id is the id of the task that created it
        gi[g, GI.nr_tasks] = 1
        gi[g, GI.total_faults] = ti[t, TI.total_faults]
        gi[g, GI.alive] = 1
        for nid in range(N):
            gi[g, GI.active + nid] = 0
            for pv in range(2):
                gfa[FA.mem, g, nid, pv] = tfa[FA.mem, t, nid, pv]
                gfa[FA.cpu, g, nid, pv] = tfa[FA.cpu, t, nid, pv]
        gi[g, GI.active + ti[t, TI.node]] = 1
        ti[t, TI.group] = g
        _refresh_gw(ki, gi, gfa, wts, ctr, g)
    # tsk = cpu_rq(cpu)->curr; if (!cpupid_match_pid(tsk, cpupid)) goto no_join: the task that made the
    # last hinting fault must be the one running on that CPU right now -- still on the node it faulted
    # from, and not asleep (a thread waiting for its I/O is not any CPU's curr)
    o = last_pid
    if ti[o, TI.done] != 0 or ti[o, TI.node] != last_nid or tf[o, TF.io] > 0.0:
        return priv
    grp = ti[o, TI.group]
    if grp < 0:
        return priv
    my = ti[t, TI.group]
    if grp == my:
        return priv
    if gi[my, GI.nr_tasks] > gi[grp, GI.nr_tasks]:
        return priv
    if gi[my, GI.nr_tasks] == gi[grp, GI.nr_tasks] and my > grp:
        return priv
    join = task_mm[o] == task_mm[t]  # threads of one process always join; TNF_SHARED never (private maps)
    priv = 0 if join else 1
    if not join:
        return priv
    for nid in range(N):
        for pv in range(2):
            gfa[FA.mem, my, nid, pv] -= tfa[FA.mem, t, nid, pv]
            gfa[FA.mem, grp, nid, pv] += tfa[FA.mem, t, nid, pv]
            gfa[FA.cpu, my, nid, pv] -= tfa[FA.cpu, t, nid, pv]
            gfa[FA.cpu, grp, nid, pv] += tfa[FA.cpu, t, nid, pv]
    gi[my, GI.total_faults] -= ti[t, TI.total_faults]
    gi[grp, GI.total_faults] += ti[t, TI.total_faults]
    gi[my, GI.nr_tasks] -= 1
    gi[grp, GI.nr_tasks] += 1
    if gi[my, GI.nr_tasks] == 0:
        gi[my, GI.alive] = 0
    ti[t, TI.group] = grp
    _refresh_gw(ki, gi, gfa, wts, ctr, my)
    _refresh_gw(ki, gi, gfa, wts, ctr, grp)
    ctr[CT.group_joins] += 1
    return priv


# ---------------------------------------------------------------- mm/swap.c: the per-CPU LRU pagevec
@leaf
def lru_cache_add(ki, ti, ub, t, unit, entries, live):
    """mm/swap.c __lru_cache_add() of 3.19/4.0, ``entries`` times: ``if (!pagevec_space(pvec))
    __pagevec_lru_add(pvec); pagevec_add(pvec, page);`` -- each page waits in its CPU's lru_add_pvec (PageLRU
    clear, one extra reference) until the pagevec is full and the next page drains all of them to the LRU.  A THP
    is one entry (PageCompound pages drain at once only from 4.8).  The model's task stands for its CPU.

    ``live`` of the entries are pages of ``unit`` that stay mapped (a first touch's pages; after a migration the
    new pages and the pages put back, beside the freed old or target pages that also pass through the
    pagevec).  Page by page, what is left in the pagevec after the last drain are the last entries added; the
    unit records how many of its live pages that is (in proportion, when freed pages are mixed in), so a later
    migration finds exactly that many failing isolate_lru_page() until this pagevec drains again."""
    size = ki[I.PAGEVEC_SIZE]
    total = ti[t, TI.pvec_n] + entries
    if total > size:
        drains = (total - 1) // size
        ti[t, TI.pvec_gen] += drains
        left = total - size * drains
        waiting = min(live, -((-left * live) // entries))
    else:
        left = total
        waiting = live
    ti[t, TI.pvec_n] = left
    if waiting > 0:
        ub[unit, UB.pvec_cpu] = t
        ub[unit, UB.pvec_gen] = ti[t, TI.pvec_gen]
        ub[unit, UB.pvec_pages] = waiting
    else:
        ub[unit, UB.pvec_cpu] = -1
        ub[unit, UB.pvec_pages] = 0


@leaf
def _pvec_waiting(ti, ub, unit):
    """How many of the unit's pages have PageLRU clear: still in the pagevec they went into, not drained since."""
    c = ub[unit, UB.pvec_cpu]
    if c < 0 or ti[c, TI.pvec_gen] != ub[unit, UB.pvec_gen]:
        return 0
    return ub[unit, UB.pvec_pages]


@leaf
def _draw(ctr, ev_u):
    if ctr[CT.ev_idx] >= ev_u.shape[0]:
        ctr[CT.rng_pool_overflow] += 1
        ctr[CT.ev_idx] = 0
    u = ev_u[ctr[CT.ev_idx]]
    ctr[CT.ev_idx] += 1
    return u


@leaf
def _pinned_by_dio(ki, kf, ti, tf, mi, t, n):
    """Expected pages of ``n`` that another thread's in-flight direct I/O pins (get_user_pages() holds them until the
    I/O completes): the mm's threads waiting on I/O now, ``dio_pages`` each, over the mm's pages.  Which pages are
    pinned does not depend on which one faults, so the count is drawn in aggregate (page by page in expectation)."""
    if kf[FP.dio_pages] <= 0.0:
        return 0.0
    mm = ti[t, TI.mm]
    nio = 0
    for o in range(ti.shape[0]):
        if o != t and ti[o, TI.mm] == mm and ti[o, TI.done] == 0 and tf[o, TF.io] > 0.0:
            nio += 1
    if nio == 0 or mi[mm, MI.rss] <= 0:
        return 0.0
    return n * min(1.0, nio * kf[FP.dio_pages] / mi[mm, MI.rss])


# ---------------------------------------------------------------- mm/migrate.c
@leaf
def migrate_misplaced_page(ki, kf, ti, tf, ni, mi, ctr, sysb, ua, ub, ev_u, mlog, t, unit, dst, step, now_ms):
    """migrate_misplaced_page() (base pages) or migrate_misplaced_transhuge_page() (a THP unit), page by page in
    aggregate: returns how many of the unit's pages moved; the rest failed, each for the first reason it met:

    * numamigrate_update_ratelimit(pgdat, 1) per base page (per THP: HPAGE_PMD_NR): admitted while the node's
      window count is at most ratelimit_pages;
    * migrate_balanced_pgdat(): the destination must stay above its high watermark plus the page;
    * isolate_lru_page(): fails for a page still in a CPU's lru_add_pvec (PageLRU clear) -- those the unit
      recorded (lru_cache_add()) -- or isolated by someone else at that moment (the explorer knob);
    * migrate_pages(MIGRATE_ASYNC), one call per isolated base page: a page pinned by another thread's in-flight
      direct I/O is -EAGAIN on every one of its migrate_pages_passes passes (each allocates a target page, unmaps,
      flushes the TLB and remaps), then left in place: not counted in pgmigrate_fail; a permanent failure
      (-EBUSY, the explorer knob) is.  A THP pinned that way fails numamigrate_isolate_page()'s page_count() != 3.

    A trylock_page() failure is -EAGAIN too, but in these runs only do_wp_page() and another migration lock an
    anonymous page, for microseconds, never across all the passes: no page fails that way.
    The failed pages stay where they were; the unit is placed where most of its pages are."""
    pages = ki[I.unit_pages]
    huge = ki[I.unit_huge] != 0
    g = HPAGE_PAGES if huge else 1  # the granule: a THP moves or fails whole, a base page alone
    n = pages // g
    ctr[CT.migrate_attempt_pages] += pages
    # numamigrate_update_ratelimit(pgdat, g) per granule: admitted while the window's count is <= ratelimit_pages
    if now_ms > ni[dst, NI.rl_next]:
        ni[dst, NI.rl_nr] = 0
        ni[dst, NI.rl_next] = now_ms + ki[I.migrate_interval_millisecs]
        ni[dst, NI.win_migrated] = 0
    admitted = min(n, max(0, (ki[I.ratelimit_pages] - ni[dst, NI.rl_nr]) // g + 1))
    ni[dst, NI.rl_nr] += admitted * g
    ctr[CT.migrate_fail_ratelimit] += (n - admitted) * g
    # migrate_balanced_pgdat(pgdat, g): free above high_wmark + g, granule after granule
    bal = min(admitted, max(0, (ni[dst, NI.free] - ki[I.high_wmark_pages] - 1) // g))
    nodefull = admitted - bal
    ctr[CT.migrate_fail_nodefull] += nodefull * g
    # isolate_lru_page(): PageLRU clear while a page waits in a CPU's lru_add_pvec
    iso_fail = min(bal, _pvec_waiting(ti, ub, unit))
    iso = bal - iso_fail
    if iso > 0 and kf[FP.isolate_lru_fail_prob] > 0.0:  # isolated by reclaim or compaction at that moment
        k = min(iso, int(iso * kf[FP.isolate_lru_fail_prob] + _draw(ctr, ev_u)))
        iso_fail += k
        iso -= k
    ctr[CT.migrate_fail_isolate] += iso_fail * g
    pinned = 0
    perm = 0
    if iso > 0:
        lam = _pinned_by_dio(ki, kf, ti, tf, mi, t, iso * g)
        if lam > 0.0:
            pinned = min(iso, int(lam + _draw(ctr, ev_u)))  # THP: numamigrate_isolate_page()'s page_count != 3
        if not huge:
            ctr[CT.mm_migrate_pages] += iso  # trace_mm_migrate_pages(): one migrate_pages() call per page
            if kf[FP.migrate_pages_fail_prob] > 0.0 and iso > pinned:
                perm = min(iso - pinned, int((iso - pinned) * kf[FP.migrate_pages_fail_prob] + _draw(ctr, ev_u)))
    migrated = iso - pinned - perm
    passes = ki[I.migrate_pages_passes]
    if huge:  # migrate_misplaced_transhuge_page(): out_fail counts PGMIGRATE_FAIL for a THP not isolated
        ctr[CT.migrate_fail_busy] += pinned * g
        ctr[CT.pgmigrate_fail] += (nodefull + iso_fail + pinned) * g
    else:
        ctr[CT.migrate_fail_eagain] += pinned
        ctr[CT.migrate_fail_permanent] += perm
        ctr[CT.pgmigrate_fail] += perm  # nr_failed: -EAGAIN leftovers (retry) are not counted
        if pinned > 0:  # every pass: a target page, an unmap, a TLB flush, a remap
            ctr[CT.migrate_retry_unmaps] += pinned * passes
            ctr[CT.numa_hit] += pinned * passes
            _charge(tf, sysb, t, kf[FP.cost_unmap_page_us] * pinned * passes, SB.migrate)
            _flush_tlb(ki, kf, mi, ctr, tf, sysb, t, ti[t, TI.mm], 1.0 * pinned * passes)
        ctr[CT.numa_hit] += migrated + perm  # alloc_misplaced_dst_page()
    if mlog.shape[0] > 0 and ctr[CT.log_idx] < mlog.shape[0]:
        i = ctr[CT.log_idx]
        mlog[i, LG.ms] = now_ms
        mlog[i, LG.dst] = dst
        mlog[i, LG.pages] = pages
        mlog[i, LG.admitted] = admitted * g
        mlog[i, LG.ok] = migrated * g
        ctr[CT.log_idx] = i + 1
    if not huge and iso > 0:
        # putback_lru_page() into this CPU's pagevec: a moved page's old and new page, a -EBUSY page and its unused
        # target, every pass's unused target of a pinned page and then the page itself
        lru_cache_add(ki, ti, ub, t, unit, 2 * migrated + 2 * perm + (passes + 1) * pinned, migrated + perm + pinned)
    if migrated == 0:
        return 0
    moved = migrated * g
    # the unit goes where most of its pages are; the few that stayed are placed with it (pages are conserved per
    # node with the units' placement; the counters are the pages')
    if 2 * migrated >= n:
        ni[ua[unit, UA.node], NI.free] += pages
        ni[dst, NI.free] -= pages
        ua[unit, UA.node] = dst
    ctr[CT.numa_pages_migrated] += moved
    ctr[CT.pgmigrate_success] += moved
    ni[dst, NI.win_migrated] += moved
    if ni[dst, NI.win_migrated] > ni[dst, NI.win_migrated_max]:
        ni[dst, NI.win_migrated_max] = ni[dst, NI.win_migrated]
    # remove_migration_pte() builds a clean pte for a base page, writable only if the migration entry was
    # (the pte's write bit at unmap time); migrate_misplaced_transhuge_page() installs
    # maybe_pmd_mkwrite(pmd_mkdirty(entry), vma): writable and dirty (a heap vma is VM_WRITE)
    if huge:
        ua[unit, UA.dirty] = 1
        ua[unit, UA.write] = 1
        ctr[CT.numa_hit] += migrated  # one allocation per THP
        # "Take an isolate reference and put new page on the LRU": putback_lru_page(new_page) on this CPU
        lru_cache_add(ki, ti, ub, t, unit, migrated, migrated)
        _charge(tf, sysb, t, kf[FP.cost_migrate_unit_us] * migrated / n, SB.migrate)
        _flush_tlb(ki, kf, mi, ctr, tf, sysb, t, ti[t, TI.mm], kf[FP.flushes_per_migration] * migrated / n)
    else:
        ua[unit, UA.dirty] = 0
        _charge(tf, sysb, t, kf[FP.cost_base_page_us] * migrated, SB.migrate)
        _flush_tlb(ki, kf, mi, ctr, tf, sysb, t, ti[t, TI.mm], 1.0 * migrated)  # try_to_unmap(): once per page
    return moved


# ---------------------------------------------------------------- the scanner
@kernel
def task_numa_work(ki, kf, ti, tf, mi, ctr, sysb, mm_start, mm_end, ua, t, now_ms):
    mm = ti[t, TI.mm]
    if now_ms < mi[mm, MI.next_scan]:
        return
    mi[mm, MI.next_scan] = now_ms + ti[t, TI.period]  # cmpxchg(&mm->numa_next_scan, ...) always wins here
    tf[t, TF.node_stamp] += 2.0 * ki[I.tick_ms] * 1000.0  # p->node_stamp += 2 * TICK_NSEC
    up = ki[I.unit_pages]
    u0 = mm_start[mm]
    nunits = mm_end[mm] - u0
    start = mi[mm, MI.offset]  # in units from the mm start
    if start >= nunits:
        mi[mm, MI.seq] += 1  # reset_ptenuma_scan()
        start = 0
    pages = ki[I.scan_size_pages]
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
            if ua[u, UA.node] >= 0 and ua[u, UA.marked] == 0:
                ua[u, UA.marked] = 1
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
        mi[mm, MI.seq] += 1
        mi[mm, MI.offset] = 0
    else:
        mi[mm, MI.offset] = start
    ctr[CT.numa_scans] += 1
    if nr_pte_updates > 0:
        ctr[CT.numa_pte_updates] += nr_pte_updates * up
        if ki[I.unit_huge] != 0:
            ctr[CT.numa_huge_pte_updates] += nr_pte_updates * (up // HPAGE_PAGES)
        _charge(tf, sysb, t, kf[FP.cost_pte_unit_us] * nr_pte_updates, SB.scan)


@leaf
def task_tick_numa(ki, kf, ti, tf, mi, ctr, sysb, mm_start, mm_end, ua, t, now_ms):
    period_us = ti[t, TI.period] * 1000.0
    if tf[t, TF.runtime] - tf[t, TF.node_stamp] > period_us:
        if tf[t, TF.node_stamp] == 0.0:
            ti[t, TI.period] = task_scan_min(ki, mi[ti[t, TI.mm], MI.rss])
            ti[t, TI.period_max] = task_scan_max(ki, mi[ti[t, TI.mm], MI.rss])
        tf[t, TF.node_stamp] += ti[t, TI.period] * 1000.0
        if now_ms >= mi[ti[t, TI.mm], MI.next_scan]:
            task_numa_work(ki, kf, ti, tf, mi, ctr, sysb, mm_start, mm_end, ua, t, now_ms)


# ---------------------------------------------------------------- an access on the slow path
@leaf
def _alloc_unit(ki, ti, ni, mi, ctr, ua, ub, t, unit):
    """First touch: the page allocator takes the local node, else the next node with room."""
    N = ki[I.nr_nodes]
    pages = ki[I.unit_pages]
    nid = ti[t, TI.node]
    chosen = -1
    for i in range(N):
        n = (nid + i) % N
        if ni[n, NI.free] - pages >= ki[I.high_wmark_pages]:
            chosen = n
            break
    if chosen < 0:
        chosen = nid  # validated sizes make this unreachable; allocate anyway (kswapd would reclaim)
        for n in range(N):
            if ni[n, NI.free] > ni[chosen, NI.free]:
                chosen = n
    entries = pages // HPAGE_PAGES if ki[I.unit_huge] != 0 else pages  # zone_statistics(): one per allocation
    if chosen != nid:
        ctr[CT.numa_miss] += entries
    else:
        ctr[CT.numa_hit] += entries
    ua[unit, UA.node] = chosen
    ni[chosen, NI.free] -= pages
    mi[ti[t, TI.mm], MI.rss] += pages
    ua[unit, UA.write] = 1
    ua[unit, UA.dirty] = 1
    ub[unit, UB.last_nid] = -1  # page_cpupid_reset_last()
    ub[unit, UB.last_pid] = -1
    # do_anonymous_page() / do_huge_pmd_anonymous_page(): lru_cache_add_active_or_unevictable()
    lru_cache_add(ki, ti, ub, t, unit, entries, entries)


@leaf
def _touch(ki, kf, ti, tf, task_mm, ni, mi, gi, tfa, gfa, wts, ctr, sysb, ua, ub, ev_u, mlog, t, unit, write, kind,
           step, now_ms):
    """One access on the slow path: first touch, or a hinting fault (do_numa_page -> task_numa_fault),
    or a write-protect fault.  Returns the access's CPU cost.  The kernel functions it runs are written
    out here, in order, because every numba call copies its array arguments."""
    ctr[CT.accesses] += 1
    if kf[FP.sys_per_access] > 0.0:
        _charge(tf, sysb, t, kf[FP.sys_per_access], SB.other)
    if ua[unit, UA.node] < 0:
        _alloc_unit(ki, ti, ni, mi, ctr, ua, ub, t, unit)
    elif ua[unit, UA.marked] != 0:
        # ---- do_numa_page() (mm/memory.c) ----
        fpu = int(kf[FP.faults_per_unit])
        ctr[CT.numa_hint_faults] += fpu
        ua[unit, UA.marked] = 0
        _charge(tf, sysb, t, kf[FP.cost_fault_unit_us], SB.fault)
        page_nid = ua[unit, UA.node]
        this_nid = ti[t, TI.node]
        local = 1 if page_nid == this_nid else 0
        if local:
            ctr[CT.numa_hint_faults_local] += fpu
        rule = ki[I.TNF_NO_GROUP]
        if rule == 0:
            no_group = ua[unit, UA.write] == 0  # !pte_write(pte)
        elif rule == 1:
            no_group = True  # pte_write() after pte_modify(pte, vma->vm_page_prot): always false
        elif rule == 2:
            no_group = ua[unit, UA.dirty] == 0  # !pte_dirty(pte)
        else:
            no_group = False  # !(vma->vm_flags & VM_WRITE): a heap is writable
        if no_group:
            ctr[CT.no_group_faults] += fpu
        if ki[I.numa_hint_pte] != 0:
            ua[unit, UA.write] = 0  # pte_modify(pte, vma->vm_page_prot): read-only again
        last_nid = ub[unit, UB.last_nid]
        last_pid = ub[unit, UB.last_pid]
        # ---- numa_migrate_prep() -> mpol_misplaced() -> should_numa_migrate_memory() ----
        ub[unit, UB.last_nid] = this_nid  # page_cpupid_xchg_last()
        ub[unit, UB.last_pid] = t
        g = ti[t, TI.group]
        if last_pid >= 0 and last_nid != this_nid:
            move = False  # two-stage filter
        elif last_pid == t:
            move = True  # private fault
        elif g < 0:
            move = True  # shared fault, no numa_group yet
        elif gi[g, GI.active + this_nid] == 0:
            move = False
        elif gi[g, GI.active + page_nid] == 0:
            move = True
        else:
            move = (gfa[FA.mem, g, this_nid, 0] + gfa[FA.mem, g, this_nid, 1]) < _cdiv(
                (gfa[FA.mem, g, page_nid, 0] + gfa[FA.mem, g, page_nid, 1]) * 3, 4)
        # page by page: `migrated` of the unit's pages moved (their mem_node is this node, TNF_MIGRATED), `failed`
        # were tried and stayed (TNF_MIGRATE_FAIL), the rest were not misplaced or did not pass the filter
        pages = ki[I.unit_pages]
        migrated = 0
        failed = 0
        if move and page_nid != this_nid:
            migrated = migrate_misplaced_page(ki, kf, ti, tf, ni, mi, ctr, sysb, ua, ub, ev_u, mlog, t, unit, this_nid,
                                              step, now_ms)
            failed = pages - migrated
        # ---- task_numa_fault() (kernel/sched/fair.c), once per page ----
        cpu_node = ti[t, TI.node]
        if ti[t, TI.has_faults] == 0:
            ti[t, TI.has_faults] = 1
            ti[t, TI.total_faults] = 0
            ti[t, TI.loc0] = 0
            ti[t, TI.loc1] = 0
            ti[t, TI.loc2] = 0
        if last_pid < 0:
            priv = 1
        else:
            priv = 1 if last_pid == t else 0
            if priv == 0 and not no_group:
                # task_numa_group() returns at once when both tasks already share a group (the common
                # case once a process has grouped); test that here and skip the call
                my = ti[t, TI.group]
                if not (my >= 0 and ti[last_pid, TI.group] == my):
                    priv = task_numa_group(ki, ti, tf, task_mm, gi, tfa, gfa, wts, ctr, t, last_nid, last_pid,
                                           priv)
        if priv == 0:
            ctr[CT.shared_faults] += fpu
        g = ti[t, TI.group]
        # "if (!priv && !local && p->numa_group && node_isset(cpu_node, ...) && node_isset(mem_node, ...))
        # local = 1": for the moved pages mem_node is this node, for the others the page's
        local_m = local
        local_s = local
        if priv == 0 and local == 0 and g >= 0 and gi[g, GI.active + cpu_node] != 0:
            local_m = 1 if gi[g, GI.active + this_nid] != 0 else 0
            local_s = 1 if gi[g, GI.active + page_nid] != 0 else 0
        if ti[t, TI.scan_seq] != mi[ti[t, TI.mm], MI.seq]:
            task_numa_placement(ki, kf, ti, tf, ni, mi, gi, tfa, gfa, wts, ctr, sysb, t, now_ms)
        if now_ms > ti[t, TI.migrate_retry] and ti[t, TI.pref] != -1:  # numa_migrate_preferred()
            ti[t, TI.migrate_retry] = now_ms + min(MSEC_PER_SEC, ti[t, TI.period] // 16)
            if ti[t, TI.node] != ti[t, TI.pref]:
                task_numa_migrate(ki, kf, ti, tf, ni, mi, gi, wts, ctr, sysb, t)
        stay = pages - migrated
        if migrated > 0:
            ti[t, TI.pages_migrated] += migrated
            tfa[FA.bufmem, t, this_nid, priv] += migrated
            if local_m != 0:
                ti[t, TI.loc1] += migrated
            else:
                ti[t, TI.loc0] += migrated
        if failed > 0 and ki[I.TNF_MIGRATE_FAIL] != 0:
            ti[t, TI.loc2] += failed
        if stay > 0:
            tfa[FA.bufmem, t, page_nid, priv] += stay
            if local_s != 0:
                ti[t, TI.loc1] += stay
            else:
                ti[t, TI.loc0] += stay
        tfa[FA.bufcpu, t, cpu_node, priv] += pages
    if write != 0:
        if ua[unit, UA.write] == 0:
            # do_wp_page(): the write after a PROT_NONE hinting fault (or to a never-written page)
            ctr[CT.wp_faults] += int(kf[FP.faults_per_unit])
            _charge(tf, sysb, t, kf[FP.cost_wp_unit_us], SB.wp)
            ua[unit, UA.write] = 1
        ua[unit, UA.dirty] = 1
    node = ti[t, TI.node]
    if kind == SWEEP:
        c = kf[FP.sweep_us] * max(1, ni[node, NI.nr_running])  # the node's bandwidth is shared
    else:
        c = kf[FP.access_us]
    remote = ua[unit, UA.node] != node  # no branch on this coin either (see run())
    ctr[CT.remote_accesses] += remote
    return c * (kf[FP.remote_cost] if remote else 1.0)


@leaf
def _run_for(need, wall, share, full):
    """A thread with ``need`` us of CPU work left and ``wall`` us left of its tick, at CPU ``share``: the CPU time
    it runs and the wall time that takes.  ``full`` (the node's CPUs are not oversubscribed, share is exactly
    1.0) skips the * share and / share, which sat on the tick's longest chain of dependent floating-point
    operations."""
    if full:
        use = min(need, wall)
        return use, use
    use = min(need, wall * share)
    return use, use / share


# ---------------------------------------------------------------- the loop
@kernel
def run(ki, kf, wl, st, step0, nsteps, draws, smp, mlog):
    """Advance the simulation ``nsteps`` ticks from ``step0``; returns the ticks run (fewer if all threads finished).

    ``wl``, ``st``, ``draws`` and ``smp`` are the named tuples of arrays of :mod:`.layout` (the workload, the
    state, this chunk's random draws, the samples it writes).
    """
    task_mm, task_phase0, task_nphases, phase_kind = wl.task_mm, wl.task_phase0, wl.task_nphases, wl.phase_kind
    phase_start, phase_end, phase_reps, phase_shared = wl.phase_start, wl.phase_end, wl.phase_reps, wl.phase_shared
    phase_write, mm_start, mm_end, mm_sh_start, mm_sh_end = wl.phase_write, wl.mm_start, wl.mm_end, wl.mm_sh_start, \
        wl.mm_sh_end
    ti, tf, tfa, gi, gfa, wts, ni, mi, ctr, sysb, ua, ub = st.ti, st.tf, st.tfa, st.gi, st.gfa, st.wts, st.ni, \
        st.mi, st.ctr, st.sysb, st.ua, st.ub
    rot, acc_u, ev_u, wander_u = draws.rot, draws.acc_u, draws.ev_u, draws.wander_u
    smp_cnt, smp_period, smp_node, smp_min, smp_max, smp_idx = smp.cnt, smp.period, smp.node, smp.min, smp.max, \
        smp.idx
    # Views without reference counting: every call that passes an array costs an atomic increment and
    # decrement otherwise, and a hinting fault passes twenty of them (the caller holds the arrays throughout)
    ki, kf, task_mm, ti, tf, tfa, gi, gfa = _borrow(ki), _borrow(kf), _borrow(task_mm), _borrow(ti), _borrow(tf), \
        _borrow(tfa), _borrow(gi), _borrow(gfa)
    wts, ni, mi, ctr, sysb, ua, ev_u, mlog = _borrow(wts), _borrow(ni), _borrow(mi), _borrow(ctr), _borrow(sysb), \
        _borrow(ua), _borrow(ev_u), _borrow(mlog)
    ub = _borrow(ub)
    mm_start, mm_end = _borrow(mm_start), _borrow(mm_end)
    T = task_mm.shape[0]
    N = ki[I.nr_nodes]
    cpus = ki[I.cpus_per_node]
    tick_ms = ki[I.tick_ms]
    tick_us = tick_ms * 1000.0
    sample_steps = ki[I.sample_steps]
    wander_p = kf[FP.wander_p]
    io_us = kf[FP.io_us]
    sys_per_access = kf[FP.sys_per_access]
    sweep_us = kf[FP.sweep_us]
    access_us = kf[FP.access_us]
    remote_cost = kf[FP.remote_cost]
    # read once: the compiler cannot keep them in registers itself, since any store to another int64 or float64
    # array might alias them
    numa_on = ki[I.numa_balancing] != 0
    tick_cost = kf[FP.cost_sched_tick_us]
    # the scheduler-tick charge of a tick's CPU time: a thread that ran the whole tick used the same CPU time as
    # the thread before (tick_us, on a fault-light load), and the same product and quotient follow.  Kept in an
    # array: with locals the compiler turns the test into a select and divides every time anyway
    memo = np.full(2, -1.0)  # cpu_used, its charge
    for s in range(nsteps):
        step = step0 + s
        now_ms = step * tick_ms
        # wake-ups on another node (select_idle_sibling / idle balancing), for threads that sleep
        if wander_p > 0.0 and N > 1:
            for t in range(T):
                if ti[t, TI.done] != 0:
                    continue
                if wander_u[s, t, 0] < wander_p:
                    dst = int(wander_u[s, t, 1] * (N - 1))
                    if dst >= N - 1:
                        dst = N - 2
                    if dst >= ti[t, TI.node]:
                        dst += 1
                    if ni[dst, NI.nr_running] < cpus:
                        _move_task(ti, ni, ctr, t, dst)
                        mi[ti[t, TI.mm], MI.lazy] += 1  # the CPU it left keeps the mm lazily
                        ctr[CT.sched_wanders] += 1
        # rebalance_domains(): an idle CPU balances the NUMA domain every sd->balance_interval = sd_weight ms
        if ki[I.load_balance] != 0 and N > 1 and (now_ms // (N * cpus)) != ((now_ms + tick_ms) // (N * cpus)):
            load_balance(ki, kf, ti, tf, ni, mi, ctr, sysb)
        alive = 0
        off = rot[s]
        t = off - 1
        for k in range(T):
            t += 1  # (off + k) % T, without a division per thread
            if t == T:
                t = 0
            if ti[t, TI.done] != 0:
                continue
            alive += 1
            # task_tick_fair(): task_tick_numa() only while numabalancing_enabled (kernel.numa_balancing)
            if numa_on and tf[t, TF.runtime] - tf[t, TF.node_stamp] > ti[t, TI.period] * 1000.0:
                task_tick_numa(ki, kf, ti, tf, mi, ctr, sysb, mm_start, mm_end, ua, t, now_ms)
            nr = ni[ti[t, TI.node], NI.nr_running]
            share = 1.0 if nr <= cpus else cpus / nr  # CPU share, fixed for the tick
            full = nr <= cpus  # share is exactly 1.0 (see _run_for)
            wall = tick_us
            cpu_used = 0.0
            last = task_phase0[t] + task_nphases[t]
            # the task's clocks live in locals for the tick (stored back before any call that reads them)
            debt = tf[t, TF.debt]
            io = tf[t, TF.io]
            frac = tf[t, TF.frac]
            user = tf[t, TF.user]
            runtime = tf[t, TF.runtime]
            cur = ti[t, TI.cur_unit]
            while wall > 1e-6:
                if debt > 0.0:
                    use, took = _run_for(debt, wall, share, full)
                    debt -= use
                    runtime += use
                    cpu_used += use
                    wall -= took
                    continue
                if io > 0.0:
                    use = min(io, wall)
                    io -= use
                    wall -= use
                    continue
                if cur < 0:
                    # the next access (the phase list, as the workload describes it)
                    ph = ti[t, TI.phase]
                    while ph < last and ti[t, TI.rep] >= phase_reps[ph]:
                        ph += 1
                        ti[t, TI.phase] = ph
                        ti[t, TI.rep] = 0
                        ti[t, TI.pos] = 0
                    if ph >= last:
                        ti[t, TI.done] = 1
                        tf[t, TF.finish] = now_ms * 1000.0 + (tick_us - wall)
                        ni[ti[t, TI.node], NI.nr_running] -= 1
                        _nt_remove(ni, ti[t, TI.node], t)
                        ctr[CT.epoch] += 1
                        mi[ti[t, TI.mm], MI.live] -= 1
                        break
                    kind = phase_kind[ph]
                    if kind == SWEEP:
                        unit = phase_start[ph] + ti[t, TI.pos]
                        ti[t, TI.pos] += 1
                        if ti[t, TI.pos] >= phase_end[ph] - phase_start[ph]:
                            ti[t, TI.pos] = 0
                            ti[t, TI.rep] += 1
                        write = 1  # bzero()
                    else:
                        r = ti[t, TI.ridx]
                        if r >= acc_u.shape[1]:
                            ctr[CT.rng_pool_overflow] += 1
                            r = 0
                        u1 = acc_u[t, r, 0]
                        u2 = acc_u[t, r, 1]
                        ti[t, TI.ridx] = r + 1
                        p = phase_shared[ph]
                        mm = task_mm[t]
                        # The shared region or the thread's own, by u1 < p: a coin the branch predictor loses
                        # once in three.  Both units are computed and one is picked, with the same arithmetic as
                        # each branch had (the clamps to [0, n] before int() only keep the unpicked one finite,
                        # and leave the picked one as it was: it lies in [0, n] already, or int() gave n - 1).
                        n_sh = mm_sh_end[mm] - mm_sh_start[mm]
                        n_own = phase_end[ph] - phase_start[ph]
                        x_sh = 0.0
                        if p > 0.0:
                            x_sh = min(u1 / p * n_sh, float(n_sh))
                        x_own = 0.0
                        if p < 1.0:
                            x_own = min(max((u1 - p) / (1.0 - p) * n_own, 0.0), float(n_own))
                        unit_sh = mm_sh_start[mm] + min(int(x_sh), n_sh - 1)
                        unit_own = phase_start[ph] + min(int(x_own), n_own - 1)
                        unit = unit_sh if u1 < p else unit_own
                        ti[t, TI.rep] += 1
                        write = int(u2 < phase_write[ph])
                    cur = unit
                    ti[t, TI.cur_unit] = unit
                    if (ua[unit, UA.node] >= 0 and ua[unit, UA.marked] == 0 and (write == 0 or ua[unit, UA.write] != 0)
                            and sys_per_access == 0.0):
                        # fast path: resident, no hinting fault, no write-protect fault
                        ctr[CT.accesses] += 1
                        if write != 0:
                            ua[unit, UA.dirty] = 1
                        here = ti[t, TI.node]
                        c = sweep_us * max(1, ni[here, NI.nr_running]) if kind == SWEEP else access_us
                        # remote or not is a coin too: no branch (c * 1.0 is c)
                        remote = ua[unit, UA.node] != here
                        ctr[CT.remote_accesses] += remote
                        frac = c * (remote_cost if remote else 1.0)
                    else:
                        tf[t, TF.debt] = debt
                        tf[t, TF.runtime] = runtime
                        frac = _touch(ki, kf, ti, tf, task_mm, ni, mi, gi, tfa, gfa, wts, ctr, sysb, ua, ub, ev_u, mlog,
                                      t, unit, write, kind, step, now_ms)
                        debt = tf[t, TF.debt]
                    continue
                use, took = _run_for(frac, wall, share, full)
                frac -= use
                user += use
                runtime += use
                cpu_used += use
                wall -= took
                if frac <= 0.0:
                    cur = -1
                    ti[t, TI.cur_unit] = -1
                    io = io_us
            tf[t, TF.io] = io
            tf[t, TF.frac] = frac
            tf[t, TF.user] = user
            tf[t, TF.runtime] = runtime
            if tick_cost > 0.0:
                # scheduler_tick(), accounting: paid in the next tick, like any kernel debt (_charge() written out)
                if cpu_used == memo[0]:
                    charge = memo[1]
                else:
                    charge = tick_cost * cpu_used / 1000.0
                    memo[0] = cpu_used
                    memo[1] = charge
                debt += charge
                tf[t, TF.sys] += charge
                sysb[SB.other] += charge
            tf[t, TF.debt] = debt
        if sample_steps > 0 and (step + 1) % sample_steps == 0 and smp_idx[0] < smp_cnt.shape[0]:
            i = smp_idx[0]
            for c in range(C_N):
                smp_cnt[i, c] = ctr[c]
            for t in range(T):
                smp_period[i, t] = ti[t, TI.period]
                smp_node[i, t] = ti[t, TI.node]
                rss = mi[ti[t, TI.mm], MI.rss]
                smp_min[i, t] = task_scan_min(ki, rss)
                smp_max[i, t] = task_scan_max(ki, rss)
            smp_idx[0] = i + 1
        if alive == 0:
            return s
    return nsteps
