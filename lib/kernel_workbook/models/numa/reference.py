"""Pure-Python reference of the NUMA balancing kernel, written with objects.

This is the readable version: one class per kernel structure (``Task`` for
``task_struct``, ``NumaGroup``, ``Node`` for ``pg_data_t``, ``Mm``, ``Page``)
and one method-like function per kernel function, in the kernel's words.  It
consumes the same pre-drawn random arrays in the same order as the jitted
kernel (:mod:`.balancing_kernel`), so both give identical results; a test checks
it, and ``make bench`` reports how much faster the jitted one is.

:func:`simulate_chunk` has the jitted kernel's signature: it builds the
objects from the arrays, runs the ticks, and writes the state back.
"""

from __future__ import annotations

from .layout import C_N, CT, FA, FP, GI, I, MI, NI, SB, SD_DIE_CACHE_NICE_TRIES, TF, TI, UA, UB
from .workload import SWEEP  # the access pattern enum, generated in workload.py

LOAD_AVG_MAX = 47742
MSEC_PER_SEC = 1000
HPAGE_PAGES = 512


def cdiv(a: int, b: int) -> int:
    """C division: truncate toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


class Task:
    """The NUMA fields of ``struct task_struct`` plus the thread's progress."""

    def __init__(self, tid, ti, tf, fmem, fcpu, bmem, bcpu, N):
        self.tid = tid
        self.mm = int(ti[TI.mm])
        self.node = int(ti[TI.node])
        self.numa_preferred_nid = int(ti[TI.pref])
        self.numa_group = int(ti[TI.group])
        self.numa_scan_seq = int(ti[TI.scan_seq])
        self.numa_scan_period = int(ti[TI.period])
        self.numa_scan_period_max = int(ti[TI.period_max])
        self.numa_migrate_retry = int(ti[TI.migrate_retry])
        self.phase = int(ti[TI.phase])
        self.rep = int(ti[TI.rep])
        self.pos = int(ti[TI.pos])
        self.done = int(ti[TI.done])
        self.has_faults = int(ti[TI.has_faults])
        self.ridx = int(ti[TI.ridx])
        self.last_sum_exec_runtime = int(ti[TI.last_run_us])
        self.last_task_numa_placement = int(ti[TI.last_place_us])
        self.cur_unit = int(ti[TI.cur_unit])
        self.total_numa_faults = int(ti[TI.total_faults])
        self.numa_pages_migrated = int(ti[TI.pages_migrated])
        self.numa_faults_locality = [int(ti[TI.loc0]), int(ti[TI.loc1]), int(ti[TI.loc2])]
        self.moves = int(ti[TI.moves])
        self.cur_write = int(ti[TI.cur_write])
        self.pvec_n = int(ti[TI.pvec_n])  # this CPU's lru_add_pvec: pages waiting in it
        self.pvec_gen = int(ti[TI.pvec_gen])  # and how often __pagevec_lru_add() drained it
        self.sum_exec_runtime = float(tf[TF.runtime])
        self.node_stamp = float(tf[TF.node_stamp])
        self.frac = float(tf[TF.frac])
        self.debt = float(tf[TF.debt])
        self.user = float(tf[TF.user])
        self.sys = float(tf[TF.sys])
        self.finish = float(tf[TF.finish])
        self.io = float(tf[TF.io])
        # numa_faults[NUMA_MEM/CPU/MEMBUF/CPUBUF][node][priv]
        self.faults_mem = [[int(fmem[n, p]) for p in range(2)] for n in range(N)]
        self.faults_cpu = [[int(fcpu[n, p]) for p in range(2)] for n in range(N)]
        self.faults_buf_mem = [[int(bmem[n, p]) for p in range(2)] for n in range(N)]
        self.faults_buf_cpu = [[int(bcpu[n, p]) for p in range(2)] for n in range(N)]

    def store(self, ti, tf, fmem, fcpu, bmem, bcpu):
        ti[TI.mm] = self.mm
        ti[TI.node] = self.node
        ti[TI.pref] = self.numa_preferred_nid
        ti[TI.group] = self.numa_group
        ti[TI.scan_seq] = self.numa_scan_seq
        ti[TI.period] = self.numa_scan_period
        ti[TI.period_max] = self.numa_scan_period_max
        ti[TI.migrate_retry] = self.numa_migrate_retry
        ti[TI.phase] = self.phase
        ti[TI.rep] = self.rep
        ti[TI.pos] = self.pos
        ti[TI.done] = self.done
        ti[TI.has_faults] = self.has_faults
        ti[TI.ridx] = self.ridx
        ti[TI.last_run_us] = self.last_sum_exec_runtime
        ti[TI.last_place_us] = self.last_task_numa_placement
        ti[TI.cur_unit] = self.cur_unit
        ti[TI.total_faults] = self.total_numa_faults
        ti[TI.pages_migrated] = self.numa_pages_migrated
        ti[TI.loc0], ti[TI.loc1], ti[TI.loc2] = self.numa_faults_locality
        ti[TI.moves] = self.moves
        ti[TI.cur_write] = self.cur_write
        ti[TI.pvec_n], ti[TI.pvec_gen] = self.pvec_n, self.pvec_gen
        tf[TF.runtime] = self.sum_exec_runtime
        tf[TF.node_stamp] = self.node_stamp
        tf[TF.frac] = self.frac
        tf[TF.debt] = self.debt
        tf[TF.user] = self.user
        tf[TF.sys] = self.sys
        tf[TF.finish] = self.finish
        tf[TF.io] = self.io
        for n in range(len(self.faults_mem)):
            for p in range(2):
                fmem[n, p] = self.faults_mem[n][p]
                fcpu[n, p] = self.faults_cpu[n][p]
                bmem[n, p] = self.faults_buf_mem[n][p]
                bcpu[n, p] = self.faults_buf_cpu[n][p]


class NumaGroup:
    def __init__(self, gi, faults, fcpu, active, N):
        self.nr_tasks = int(gi[GI.nr_tasks])
        self.total_faults = int(gi[GI.total_faults])
        self.alive = int(gi[GI.alive])
        self.faults = [[int(faults[n, p]) for p in range(2)] for n in range(N)]
        self.faults_cpu = [[int(fcpu[n, p]) for p in range(2)] for n in range(N)]
        self.active_nodes = [int(active[n]) for n in range(N)]

    def store(self, gi, faults, fcpu, active):
        gi[GI.nr_tasks] = self.nr_tasks
        gi[GI.total_faults] = self.total_faults
        gi[GI.alive] = self.alive
        for n in range(len(self.faults)):
            active[n] = self.active_nodes[n]
            for p in range(2):
                faults[n, p] = self.faults[n][p]
                fcpu[n, p] = self.faults_cpu[n][p]


class Node:
    def __init__(self, row):
        self.free = int(row[NI.free])
        self.numabalancing_migrate_nr_pages = int(row[NI.rl_nr])
        self.numabalancing_migrate_next_window = int(row[NI.rl_next])
        self.nr_running = int(row[NI.nr_running])
        self.win_migrated = int(row[NI.win_migrated])
        self.win_migrated_max = int(row[NI.win_migrated_max])
        self.nr_balance_failed = int(row[NI.lb_failed])  # sd->nr_balance_failed seen from this node

    def store(self, row):
        row[NI.free] = self.free
        row[NI.rl_nr] = self.numabalancing_migrate_nr_pages
        row[NI.rl_next] = self.numabalancing_migrate_next_window
        row[NI.nr_running] = self.nr_running
        row[NI.win_migrated] = self.win_migrated
        row[NI.win_migrated_max] = self.win_migrated_max
        row[NI.lb_failed] = self.nr_balance_failed


class Mm:
    def __init__(self, row, start, end, sh_start, sh_end):
        self.numa_next_scan = int(row[MI.next_scan])
        self.numa_scan_offset = int(row[MI.offset])
        self.numa_scan_seq = int(row[MI.seq])
        self.rss = int(row[MI.rss])
        self.lazy = int(row[MI.lazy])
        self.live = int(row[MI.live])
        self.start, self.end = int(start), int(end)
        self.sh_start, self.sh_end = int(sh_start), int(sh_end)

    def store(self, row):
        row[MI.next_scan] = self.numa_next_scan
        row[MI.offset] = self.numa_scan_offset
        row[MI.seq] = self.numa_scan_seq
        row[MI.rss] = self.rss
        row[MI.lazy] = self.lazy
        row[MI.live] = self.live


class Page:
    """A simulated unit: where it lives and what its pte says."""

    __slots__ = ("nid", "prot_none", "write", "dirty", "last_nid", "last_pid", "pvec_cpu", "pvec_gen", "pvec_pages")

    def __init__(self, nid, prot_none, write, dirty, last_nid, last_pid, pvec_cpu, pvec_gen, pvec_pages):
        self.nid = int(nid)
        self.prot_none = int(prot_none)
        self.write = int(write)
        self.dirty = int(dirty)
        self.last_nid = int(last_nid)
        self.last_pid = int(last_pid)
        self.pvec_cpu = int(pvec_cpu)  # the CPU (task) whose lru_add_pvec holds it; -1: on the LRU
        self.pvec_gen = int(pvec_gen)  # that pagevec's drain count when the page went in
        self.pvec_pages = int(pvec_pages)  # how many of its pages (THPs) wait there with PageLRU clear


class Sim:
    """One chunk of the simulation over objects."""

    def __init__(self, ki, kf, w, st, rnd):
        self.ki = [int(x) for x in ki]
        self.kf = [float(x) for x in kf]
        k = self.ki
        self.N = k[I.nr_nodes]
        self.cpus = k[I.cpus_per_node]
        self.w = w
        self.st = st
        self.rot, self.acc_u, self.ev_u, self.ev_idx, self.wander_u = rnd
        self.cnt = [int(x) for x in st["cnt"]]
        self.sysb = [float(x) for x in st["sysb"]]
        N = self.N
        T = len(w["task_mm"])
        self.tasks = [Task(t, st["ti"][t], st["tf"][t], st["t_fmem"][t], st["t_fcpu"][t], st["t_bmem"][t],
                           st["t_bcpu"][t], N) for t in range(T)]
        self.groups = [NumaGroup(st["gi"][g], st["g_faults"][g], st["g_fcpu"][g], st["g_active"][g], N)
                       for g in range(T)]
        self.nodes = [Node(st["ni"][n]) for n in range(N)]
        self.mms = [Mm(st["mi"][m], w["mm_start"][m], w["mm_end"][m], w["mm_sh_start"][m], w["mm_sh_end"][m])
                    for m in range(len(w["mm_start"]))]
        self.pages = [Page(*(st[k][u] for k in ("u_node", "u_marked", "u_write", "u_dirty", "u_last_nid",
                                                  "u_last_pid", "u_pvec_cpu",
                                                  "u_pvec_gen", "u_pvec_pages")))
                      for u in range(len(st["u_node"]))]
        self.mlog = st["mlog"]
        self.mlog_idx = int(st["mlog_idx"][0])

    def store(self):
        st = self.st
        for t, task in enumerate(self.tasks):
            task.store(st["ti"][t], st["tf"][t], st["t_fmem"][t], st["t_fcpu"][t], st["t_bmem"][t], st["t_bcpu"][t])
        for g, grp in enumerate(self.groups):
            grp.store(st["gi"][g], st["g_faults"][g], st["g_fcpu"][g], st["g_active"][g])
        for n, node in enumerate(self.nodes):
            node.store(st["ni"][n])
        for m, mm in enumerate(self.mms):
            mm.store(st["mi"][m])
        for u, pg in enumerate(self.pages):
            for key, val in (("u_node", pg.nid), ("u_marked", pg.prot_none), ("u_write", pg.write),
                             ("u_dirty", pg.dirty), ("u_last_nid", pg.last_nid), ("u_last_pid", pg.last_pid),
                             ("u_pvec_cpu", pg.pvec_cpu), ("u_pvec_gen", pg.pvec_gen),
                             ("u_pvec_pages", pg.pvec_pages)):
                st[key][u] = val
        st["cnt"][:] = self.cnt
        st["sysb"][:] = self.sysb
        st["mlog_idx"][0] = self.mlog_idx

    # ------------------------------------------------------------ window arithmetic
    def task_nr_scan_windows(self, rss):
        nr_scan_pages = self.ki[I.scan_size_pages]
        if not rss:
            rss = nr_scan_pages
        rss = -(-rss // nr_scan_pages) * nr_scan_pages
        return rss // nr_scan_pages

    def task_scan_min(self, p: Task):
        k = self.ki
        windows = 1
        if k[I.numa_balancing_scan_size_mb] < k[I.MAX_SCAN_WINDOW]:
            windows = k[I.MAX_SCAN_WINDOW] // k[I.numa_balancing_scan_size_mb]
        floor = MSEC_PER_SEC // windows
        scan = k[I.numa_balancing_scan_period_min_ms] // self.task_nr_scan_windows(self.mms[p.mm].rss)
        return max(floor, scan)

    def task_scan_max(self, p: Task):
        smin = self.task_scan_min(p)
        smax = self.ki[I.numa_balancing_scan_period_max_ms] // self.task_nr_scan_windows(self.mms[p.mm].rss)
        return max(smin, smax)

    # ------------------------------------------------------------ weights
    def task_faults(self, p, nid):
        return p.faults_mem[nid][0] + p.faults_mem[nid][1]

    def task_weight(self, p, nid):
        if not p.has_faults or p.total_numa_faults <= 0:
            return 0
        return cdiv(1000 * self.task_faults(p, nid), p.total_numa_faults)

    def group_faults(self, p, nid):
        if p.numa_group < 0:
            return 0
        g = self.groups[p.numa_group]
        return g.faults[nid][0] + g.faults[nid][1]

    def group_weight(self, p, nid):
        if p.numa_group < 0:
            return 0
        g = self.groups[p.numa_group]
        if g.total_faults <= 0:
            return 0
        return cdiv(1000 * (g.faults[nid][0] + g.faults[nid][1]), g.total_faults)

    # ------------------------------------------------------------ accounting
    def charge(self, p, us, cause):
        p.debt += us
        p.sys += us
        self.sysb[cause] += us

    def flush_tlb(self, p, nflush):
        mm = self.mms[p.mm]
        cpus = self.N * self.cpus
        in_mask = min(mm.live + mm.lazy, cpus)
        targets = in_mask - 1
        mm.lazy = 0
        if targets <= 0:
            return
        self.cnt[CT.tlb_flushes] += int(nflush)
        self.cnt[CT.tlb_ipis] += int(nflush) * targets
        self.charge(p, self.kf[FP.cost_tlb_flush_ipi_us] * targets * nflush, SB.ipi)

    def move_task(self, p, dst):
        self.nodes[p.node].nr_running -= 1
        self.nodes[dst].nr_running += 1
        p.node = dst

    # ------------------------------------------------------------ the CFS load balancer (NUMA domain)
    def load_balance(self):
        """rebalance_domains() -> load_balance() from an idle CPU of each node, as the kernel module's docstring
        describes (find_busiest_group(), can_migrate_task() with migrate_improves_locality(),
        need_active_balance())."""
        k = self.ki
        sd_numa = k[I.sched_domains_numa_levels] > 0
        for dst in range(self.N):
            here = self.nodes[dst]
            if here.nr_running >= self.cpus:
                continue
            busiest = max((n for n in range(self.N) if n != dst), key=lambda n: (self.nodes[n].nr_running, -n))
            if self.nodes[busiest].nr_running - here.nr_running < 2:
                here.nr_balance_failed = 0
                continue
            on = [p for p in self.tasks if not p.done and p.node == busiest]
            # migrate_improves_locality() is false unless the domain is SD_NUMA
            pick = next((p for p in on if p.has_faults and p.numa_preferred_nid == dst), None) if sd_numa else None
            if pick is None:
                here.nr_balance_failed += 1
                nice = k[I.cache_nice_tries] if sd_numa else SD_DIE_CACHE_NICE_TRIES  # sd_init()
                tries = nice + (0 if self.nodes[busiest].nr_running > self.cpus else 2)
                if here.nr_balance_failed <= tries:
                    continue
                pick = on[0]
            here.nr_balance_failed = 0
            self.move_task(pick, dst)
            self.mms[pick.mm].lazy += 1
            self.cnt[CT.lb_task_moves] += 1
            self.charge(pick, self.kf[FP.cost_task_move_us], SB.place)

    # ------------------------------------------------------------ task placement
    def load_too_imbalanced(self, src_load, dst_load, orig_src, orig_dst):
        pct = self.ki[I.numa_imbalance_pct]
        if dst_load < src_load:
            src_load, dst_load = dst_load, src_load
        imb = dst_load * 100 - src_load * pct
        if imb <= 0:
            return False
        if orig_dst < orig_src:
            orig_src, orig_dst = orig_dst, orig_src
        return imb > orig_dst * 100 - orig_src * pct

    def task_numa_compare(self, env, p, cur, taskimp, groupimp):
        """One candidate on the destination node: cur is a Task, or None for an idle CPU."""
        src, dst = env["src_nid"], env["dst_nid"]
        src_nr, dst_nr = self.nodes[src].nr_running, self.nodes[dst].nr_running
        imp = groupimp if p.numa_group >= 0 else taskimp
        moveimp = imp
        if cur is not None:
            if cur.numa_group == p.numa_group:
                imp = taskimp + self.task_weight(cur, src) - self.task_weight(cur, dst)
                if cur.numa_group >= 0:
                    imp -= cdiv(imp, 16)
            elif cur.numa_group >= 0:
                imp += self.group_weight(cur, src) - self.group_weight(cur, dst)
            else:
                imp += self.task_weight(cur, src) - self.task_weight(cur, dst)
        if imp <= env["best_imp"] and moveimp <= env["best_imp"]:
            return
        if cur is None:
            if src_nr <= self.cpus and not (dst_nr < self.cpus):
                return
        elif imp > env["best_imp"] and src_nr <= self.cpus and dst_nr <= self.cpus:
            env.update(best_imp=imp, best_task=cur.tid, best_node=dst)
            return
        dst_load, src_load = dst_nr + 1, src_nr - 1
        if moveimp > imp and moveimp > env["best_imp"]:
            if not self.load_too_imbalanced(src_load, dst_load, src_nr, dst_nr):
                env.update(best_imp=moveimp - 1, best_task=-1, best_node=dst)
                return
        if imp <= env["best_imp"]:
            return
        if cur is not None:
            dst_load -= 1
            src_load += 1
        if self.load_too_imbalanced(src_load, dst_load, src_nr, dst_nr):
            return
        env.update(best_imp=imp, best_task=-1 if cur is None else cur.tid, best_node=dst)

    def task_numa_find_cpu(self, env, p, taskimp, groupimp):
        dst = env["dst_nid"]
        if self.nodes[dst].nr_running < self.cpus:
            self.task_numa_compare(env, p, None, taskimp, groupimp)
        for c in self.tasks:
            if c.done or c.node != dst or c is p:
                continue
            self.task_numa_compare(env, p, c, taskimp, groupimp)

    def task_numa_migrate(self, p):
        if self.ki[I.sched_domains_numa_levels] == 0:  # no sd_numa: the kernel gives up before searching
            p.numa_preferred_nid = p.node
            return
        env = dict(src_nid=p.node, dst_nid=p.numa_preferred_nid, best_imp=0, best_task=-2, best_node=-1)
        taskweight = self.task_weight(p, env["src_nid"])
        groupweight = self.group_weight(p, env["src_nid"])
        taskimp = self.task_weight(p, env["dst_nid"]) - taskweight
        groupimp = self.group_weight(p, env["dst_nid"]) - groupweight
        self.task_numa_find_cpu(env, p, taskimp, groupimp)
        nodes = 1
        if env["best_task"] == -2:
            for nid in range(self.N):
                if nid == env["src_nid"] or nid == p.numa_preferred_nid:
                    continue
                taskimp = self.task_weight(p, nid) - taskweight
                groupimp = self.group_weight(p, nid) - groupweight
                if taskimp < 0 and groupimp < 0:
                    continue
                env["dst_nid"] = nid
                nodes += 1
                self.task_numa_find_cpu(env, p, taskimp, groupimp)
        # update_numa_stats() of the source, then of each node searched plus task_numa_compare() on its CPUs
        cpus = self.cpus * (1 + 2 * nodes)
        self.cnt[CT.numa_migrate_calls] += 1
        self.cnt[CT.numa_search_cpus] += cpus
        self.charge(p, self.kf[FP.cost_numa_search_us] * cpus, SB.place)
        if p.numa_group >= 0:
            nid = env["src_nid"] if env["best_task"] == -2 else env["dst_nid"]
            if self.groups[p.numa_group].active_nodes[nid]:
                p.numa_preferred_nid = env["dst_nid"]  # sched_setnuma()
        if env["best_task"] == -2:
            return
        p.numa_scan_period = self.task_scan_min(p)  # the kernel's only period reset outside the controller
        p.moves += 1
        self.charge(p, self.kf[FP.cost_task_move_us], SB.place)
        src = p.node
        if env["best_task"] == -1:
            self.move_task(p, env["best_node"])
            self.cnt[CT.numa_task_moves] += 1
        else:
            other = self.tasks[env["best_task"]]
            self.move_task(p, env["best_node"])
            self.move_task(other, src)
            self.cnt[CT.numa_task_swaps] += 1

    def numa_migrate_preferred(self, p, now_ms):
        if p.numa_preferred_nid == -1 or not p.has_faults:
            return
        p.numa_migrate_retry = now_ms + min(MSEC_PER_SEC, p.numa_scan_period // 16)
        if p.node == p.numa_preferred_nid:
            return
        self.task_numa_migrate(p)

    # ------------------------------------------------------------ period controller
    def check_period(self, p):
        if p.numa_scan_period < self.task_scan_min(p) or \
                p.numa_scan_period > max(p.numa_scan_period_max, self.task_scan_max(p)):
            self.cnt[CT.period_out_of_range] += 1

    def update_task_scan_period(self, p, shared, private, now_ms):
        k = self.ki
        remote, local = p.numa_faults_locality[0], p.numa_faults_locality[1]
        slots, thresh = k[I.NUMA_PERIOD_SLOTS], k[I.NUMA_PERIOD_THRESHOLD]
        if local + shared == 0 or (k[I.TNF_MIGRATE_FAIL] and p.numa_faults_locality[2]):
            p.numa_scan_period = min(p.numa_scan_period_max, p.numa_scan_period << 1)
            self.mms[p.mm].numa_next_scan = now_ms + p.numa_scan_period
            self.check_period(p)
            return
        period_slot = -(-p.numa_scan_period // slots)
        ratio = (local * slots) // max(local + remote, 1)
        if ratio >= thresh:
            diff = max(ratio - thresh, 1) * period_slot
        else:
            diff = -(thresh - ratio) * period_slot
            den = max(private + shared, 1)
            ratio = -(-(private * slots) // den)
            diff = cdiv(diff * ratio, slots)
        p.numa_scan_period = min(max(p.numa_scan_period + diff, self.task_scan_min(p)), self.task_scan_max(p))
        p.numa_faults_locality = [0, 0, 0]
        self.check_period(p)

    def update_numa_active_node_mask(self, g):
        cpu = [g.faults_cpu[n][0] + g.faults_cpu[n][1] for n in range(self.N)]
        max_faults = max([0] + cpu)
        for n in range(self.N):
            if not g.active_nodes[n]:
                if cpu[n] > cdiv(max_faults * 6, 16):
                    g.active_nodes[n] = 1
            elif cpu[n] < cdiv(max_faults * 3, 16):
                g.active_nodes[n] = 0

    def task_numa_placement(self, p, now_ms):
        mm = self.mms[p.mm]
        if p.numa_scan_seq == mm.numa_scan_seq:
            return
        p.numa_scan_seq = mm.numa_scan_seq
        p.numa_scan_period_max = self.task_scan_max(p)
        total_faults = p.numa_faults_locality[0] + p.numa_faults_locality[1]
        now_us = now_ms * 1000 + 1
        runtime = int(p.sum_exec_runtime)
        if p.last_task_numa_placement:
            delta = runtime - p.last_sum_exec_runtime
            period = now_us - p.last_task_numa_placement
        else:
            delta = period = LOAD_AVG_MAX
        p.last_sum_exec_runtime = runtime
        p.last_task_numa_placement = now_us
        grp = self.groups[p.numa_group] if p.numa_group >= 0 else None
        max_faults, max_nid, max_gf, max_gnid = 0, -1, 0, -1
        fault_types = [0, 0]
        for nid in range(self.N):
            faults = gfaults = 0
            for priv in range(2):
                diff = p.faults_buf_mem[nid][priv] - p.faults_mem[nid][priv] // 2
                fault_types[priv] += p.faults_buf_mem[nid][priv]
                p.faults_buf_mem[nid][priv] = 0
                f_weight = (delta << 16) // (period + 1)
                f_weight = (f_weight * p.faults_buf_cpu[nid][priv]) // (total_faults + 1)
                f_diff = f_weight - p.faults_cpu[nid][priv] // 2
                p.faults_buf_cpu[nid][priv] = 0
                p.faults_mem[nid][priv] += diff
                p.faults_cpu[nid][priv] += f_diff
                faults += p.faults_mem[nid][priv]
                p.total_numa_faults += diff
                if grp is not None:
                    grp.faults[nid][priv] += diff
                    grp.faults_cpu[nid][priv] += f_diff
                    grp.total_faults += diff
                    gfaults += grp.faults[nid][priv]
            if faults > max_faults:
                max_faults, max_nid = faults, nid
            if gfaults > max_gf:
                max_gf, max_gnid = gfaults, nid
        self.update_task_scan_period(p, fault_types[0], fault_types[1], now_ms)
        if grp is not None:
            self.update_numa_active_node_mask(grp)
            max_nid = max_gnid
        if max_faults:
            if max_nid != p.numa_preferred_nid:
                p.numa_preferred_nid = max_nid
            if p.node != p.numa_preferred_nid:
                self.numa_migrate_preferred(p, now_ms)

    def task_numa_group(self, p, last_nid, last_pid, priv):
        if p.numa_group < 0:
            g = self.groups[p.tid]
            g.nr_tasks, g.total_faults, g.alive = 1, p.total_numa_faults, 1
            g.faults = [list(x) for x in p.faults_mem]
            g.faults_cpu = [list(x) for x in p.faults_cpu]
            g.active_nodes = [0] * self.N
            g.active_nodes[p.node] = 1
            p.numa_group = p.tid
        tsk = self.tasks[last_pid]  # cpu_rq(cpu)->curr must be the last faulting task: there, and not asleep
        if tsk.done or tsk.node != last_nid or tsk.io > 0.0:
            return priv
        if tsk.numa_group < 0 or tsk.numa_group == p.numa_group:
            return priv
        my, grp = self.groups[p.numa_group], self.groups[tsk.numa_group]
        if my.nr_tasks > grp.nr_tasks:
            return priv
        if my.nr_tasks == grp.nr_tasks and p.numa_group > tsk.numa_group:
            return priv
        join = tsk.mm == p.mm
        priv = 0 if join else 1
        if not join:
            return priv
        for nid in range(self.N):
            for pv in range(2):
                my.faults[nid][pv] -= p.faults_mem[nid][pv]
                grp.faults[nid][pv] += p.faults_mem[nid][pv]
                my.faults_cpu[nid][pv] -= p.faults_cpu[nid][pv]
                grp.faults_cpu[nid][pv] += p.faults_cpu[nid][pv]
        my.total_faults -= p.total_numa_faults
        grp.total_faults += p.total_numa_faults
        my.nr_tasks -= 1
        grp.nr_tasks += 1
        if my.nr_tasks == 0:
            my.alive = 0
        p.numa_group = tsk.numa_group
        self.cnt[CT.group_joins] += 1
        return priv

    def task_numa_fault(self, p, last_nid, last_pid, page_nid, pages, local, no_group, migrated, failed, now_ms):
        """task_numa_fault() once per page: ``migrated`` pages now on p's node, ``failed`` tried and left on
        ``page_nid`` (TNF_MIGRATE_FAIL), the rest of ``pages`` not tried."""
        cpu_node = p.node
        if not p.has_faults:
            p.has_faults = 1
            p.total_numa_faults = 0
            p.numa_faults_locality = [0, 0, 0]
        if last_pid < 0:
            priv = 1
        else:
            priv = 1 if last_pid == p.tid else 0
            if not priv and not no_group:
                priv = self.task_numa_group(p, last_nid, last_pid, priv)
        if not priv:
            self.cnt[CT.shared_faults] += int(self.kf[FP.faults_per_unit])
        this_nid = cpu_node
        local_moved = local_stayed = local
        if not priv and not local and p.numa_group >= 0:
            act = self.groups[p.numa_group].active_nodes
            if act[cpu_node]:
                local_moved = 1 if act[this_nid] else 0
                local_stayed = 1 if act[page_nid] else 0
        self.task_numa_placement(p, now_ms)
        if now_ms > p.numa_migrate_retry:
            self.numa_migrate_preferred(p, now_ms)
        stayed = pages - migrated
        if migrated:
            p.numa_pages_migrated += migrated
            p.faults_buf_mem[this_nid][priv] += migrated
            p.numa_faults_locality[1 if local_moved else 0] += migrated
        if failed and self.ki[I.TNF_MIGRATE_FAIL]:
            p.numa_faults_locality[2] += failed
        if stayed:
            p.faults_buf_mem[page_nid][priv] += stayed
            p.numa_faults_locality[1 if local_stayed else 0] += stayed
        p.faults_buf_cpu[cpu_node][priv] += pages

    # ------------------------------------------------------------ mm/migrate.c
    def draw(self):
        if self.ev_idx >= len(self.ev_u):
            self.cnt[CT.rng_pool_overflow] += 1
            self.ev_idx = 0
        u = float(self.ev_u[self.ev_idx])
        self.ev_idx += 1
        return u

    def pinned_by_dio(self, p, n):
        """Expected pages of n pinned by the other threads' in-flight direct I/O (get_user_pages())."""
        dio = self.kf[FP.dio_pages]
        if dio <= 0.0:
            return 0.0
        mm = self.mms[p.mm]
        nio = sum(1 for o in self.tasks if o is not p and o.mm == p.mm and not o.done and o.io > 0.0)
        if nio == 0 or mm.rss <= 0:
            return 0.0
        return n * min(1.0, nio * dio / mm.rss)

    def migrate_misplaced_page(self, p, unit, dst, step, now_ms):
        """Returns the pages that moved; see the jitted kernel's docstring for the reasons the others fail."""
        k, kf = self.ki, self.kf
        pages, huge = k[I.unit_pages], bool(k[I.unit_huge])
        g = HPAGE_PAGES if huge else 1  # a THP moves or fails whole
        n = pages // g
        node, pg = self.nodes[dst], self.pages[unit]
        self.cnt[CT.migrate_attempt_pages] += pages
        # numamigrate_update_ratelimit(pgdat, g), granule by granule
        if now_ms > node.numabalancing_migrate_next_window:
            node.numabalancing_migrate_nr_pages = 0
            node.numabalancing_migrate_next_window = now_ms + k[I.migrate_interval_millisecs]
            node.win_migrated = 0
        admitted = min(n, max(0, (k[I.ratelimit_pages] - node.numabalancing_migrate_nr_pages) // g + 1))
        node.numabalancing_migrate_nr_pages += admitted * g
        self.cnt[CT.migrate_fail_ratelimit] += (n - admitted) * g
        # migrate_balanced_pgdat(pgdat, g)
        bal = min(admitted, max(0, (node.free - k[I.high_wmark_pages] - 1) // g))
        nodefull = admitted - bal
        self.cnt[CT.migrate_fail_nodefull] += nodefull * g
        # isolate_lru_page(): PageLRU is clear on a page still in a pagevec
        iso_fail = min(bal, self.pvec_waiting(pg))
        iso = bal - iso_fail
        if iso > 0 and kf[FP.isolate_lru_fail_prob] > 0.0:
            kk = min(iso, int(iso * kf[FP.isolate_lru_fail_prob] + self.draw()))
            iso_fail += kk
            iso -= kk
        self.cnt[CT.migrate_fail_isolate] += iso_fail * g
        pinned = perm = 0
        if iso > 0:
            lam = self.pinned_by_dio(p, iso * g)
            if lam > 0.0:
                pinned = min(iso, int(lam + self.draw()))
            if not huge:
                self.cnt[CT.mm_migrate_pages] += iso
                if kf[FP.migrate_pages_fail_prob] > 0.0 and iso > pinned:
                    perm = min(iso - pinned, int((iso - pinned) * kf[FP.migrate_pages_fail_prob] + self.draw()))
        migrated = iso - pinned - perm
        passes = k[I.migrate_pages_passes]
        if huge:
            self.cnt[CT.migrate_fail_busy] += pinned * g
            self.cnt[CT.pgmigrate_fail] += (nodefull + iso_fail + pinned) * g
        else:
            self.cnt[CT.migrate_fail_eagain] += pinned
            self.cnt[CT.migrate_fail_permanent] += perm
            self.cnt[CT.pgmigrate_fail] += perm
            if pinned:  # every pass: a target page allocated, an unmap, a TLB flush, a remap
                self.cnt[CT.migrate_retry_unmaps] += pinned * passes
                self.cnt[CT.numa_hit] += pinned * passes
                self.charge(p, kf[FP.cost_unmap_page_us] * pinned * passes, SB.migrate)
                self.flush_tlb(p, 1.0 * pinned * passes)
            self.cnt[CT.numa_hit] += migrated + perm
        if self.mlog.shape[0] > 0 and self.mlog_idx < self.mlog.shape[0]:
            self.mlog[self.mlog_idx] = (now_ms, dst, pages, admitted * g, migrated * g)
            self.mlog_idx += 1
        if not huge and iso > 0:  # putback_lru_page() of old, new, unused target and failed pages on this CPU
            self.lru_cache_add(p, pg, 2 * migrated + 2 * perm + (passes + 1) * pinned, migrated + perm + pinned)
        if migrated == 0:
            return 0
        moved = migrated * g
        if 2 * migrated >= n:  # the unit goes where most of its pages are (its few stray pages with it)
            self.nodes[pg.nid].free += pages
            node.free -= pages
            pg.nid = dst
        self.cnt[CT.numa_pages_migrated] += moved
        self.cnt[CT.pgmigrate_success] += moved
        node.win_migrated += moved
        node.win_migrated_max = max(node.win_migrated_max, node.win_migrated)
        if huge:  # maybe_pmd_mkwrite(pmd_mkdirty(entry), vma); one allocation per THP
            pg.dirty = pg.write = 1
            self.cnt[CT.numa_hit] += migrated
            self.lru_cache_add(p, pg, migrated, migrated)
            self.charge(p, kf[FP.cost_migrate_unit_us] * migrated / n, SB.migrate)
            self.flush_tlb(p, kf[FP.flushes_per_migration] * migrated / n)
        else:  # remove_migration_pte(): a clean pte, write as the migration entry was
            pg.dirty = 0
            self.charge(p, kf[FP.cost_base_page_us] * migrated, SB.migrate)
            self.flush_tlb(p, 1.0 * migrated)
        return moved

    # ------------------------------------------------------------ mm/swap.c
    def lru_cache_add(self, p, pg, entries, live):
        """__lru_cache_add() of 3.19/4.0 for each of ``entries`` pages: drain the CPU's lru_add_pvec when full,
        then add the page; ``live`` of them are pg's pages that stay mapped.  Record how many of those wait in
        the pagevec after its last drain (the last entries added, in proportion)."""
        size = self.ki[I.PAGEVEC_SIZE]
        total = p.pvec_n + entries
        if total > size:
            drains = (total - 1) // size
            p.pvec_gen += drains
            left = total - size * drains
            waiting = min(live, -((-left * live) // entries))
        else:
            left, waiting = total, live
        p.pvec_n = left
        if waiting > 0:
            pg.pvec_cpu, pg.pvec_gen, pg.pvec_pages = p.tid, p.pvec_gen, waiting
        else:
            pg.pvec_cpu, pg.pvec_pages = -1, 0

    def pvec_waiting(self, pg):
        if pg.pvec_cpu < 0 or self.tasks[pg.pvec_cpu].pvec_gen != pg.pvec_gen:
            return 0
        return pg.pvec_pages

    def should_numa_migrate_memory(self, p, pg, src_nid, dst_nid):
        last_nid, last_pid = pg.last_nid, pg.last_pid
        pg.last_nid, pg.last_pid = dst_nid, p.tid
        if last_pid >= 0 and last_nid != dst_nid:
            return False
        if last_pid == p.tid:
            return True
        if p.numa_group < 0:
            return True
        g = self.groups[p.numa_group]
        if not g.active_nodes[dst_nid]:
            return False
        if not g.active_nodes[src_nid]:
            return True
        return self.group_faults(p, dst_nid) < cdiv(self.group_faults(p, src_nid) * 3, 4)

    def do_numa_page(self, p, unit, step, now_ms):
        k, kf = self.ki, self.kf
        pg = self.pages[unit]
        fpu = int(kf[FP.faults_per_unit])
        self.cnt[CT.numa_hint_faults] += fpu
        pg.prot_none = 0
        self.charge(p, kf[FP.cost_fault_unit_us], SB.fault)
        page_nid, this_nid = pg.nid, p.node
        local = 1 if page_nid == this_nid else 0
        if local:
            self.cnt[CT.numa_hint_faults_local] += fpu
        rule = k[I.TNF_NO_GROUP]
        no_group = {0: pg.write == 0, 1: True, 2: pg.dirty == 0}.get(rule, False)
        if no_group:
            self.cnt[CT.no_group_faults] += fpu
        if k[I.numa_hint_pte]:
            pg.write = 0
        last_nid, last_pid = pg.last_nid, pg.last_pid
        target = -1
        if self.should_numa_migrate_memory(p, pg, page_nid, this_nid) and page_nid != this_nid:
            target = this_nid
        pages = k[I.unit_pages]
        migrated = failed = 0
        if target >= 0:
            migrated = self.migrate_misplaced_page(p, unit, target, step, now_ms)
            failed = pages - migrated
        self.task_numa_fault(p, last_nid, last_pid, page_nid, pages, local, no_group, migrated, failed, now_ms)

    # ------------------------------------------------------------ scanner
    def task_numa_work(self, p, now_ms):
        k = self.ki
        mm = self.mms[p.mm]
        if now_ms < mm.numa_next_scan:
            return
        mm.numa_next_scan = now_ms + p.numa_scan_period
        p.node_stamp += 2.0 * k[I.tick_ms] * 1000.0
        up = k[I.unit_pages]
        nunits = mm.end - mm.start
        start = mm.numa_scan_offset
        if start >= nunits:
            mm.numa_scan_seq += 1
            start = 0
        pages = k[I.scan_size_pages]
        nr_pte_updates = 0
        fell_off = True
        while start < nunits:
            end_pages = start * up + pages
            end_pages = -(-end_pages // HPAGE_PAGES) * HPAGE_PAGES
            end = min(-(-end_pages // up), nunits)
            if end <= start:
                end = start + 1
            updated = 0
            for u in range(mm.start + start, mm.start + end):
                pg = self.pages[u]
                if pg.nid >= 0 and not pg.prot_none:
                    pg.prot_none = 1
                    updated += 1
            if updated:
                nr_pte_updates += updated
                self.flush_tlb(p, 1.0)
            if nr_pte_updates:
                pages -= (end - start) * up
            start = end
            if pages <= 0:
                fell_off = False
                break
        if fell_off:
            mm.numa_scan_seq += 1
            mm.numa_scan_offset = 0
        else:
            mm.numa_scan_offset = start
        self.cnt[CT.numa_scans] += 1
        if nr_pte_updates:
            self.cnt[CT.numa_pte_updates] += nr_pte_updates * up
            if k[I.unit_huge]:
                self.cnt[CT.numa_huge_pte_updates] += nr_pte_updates * (up // HPAGE_PAGES)
            self.charge(p, self.kf[FP.cost_pte_unit_us] * nr_pte_updates, SB.scan)

    def task_tick_numa(self, p, now_ms):
        if p.sum_exec_runtime - p.node_stamp > p.numa_scan_period * 1000.0:
            if p.node_stamp == 0.0:
                p.numa_scan_period = self.task_scan_min(p)
                p.numa_scan_period_max = self.task_scan_max(p)
            p.node_stamp += p.numa_scan_period * 1000.0
            if now_ms >= self.mms[p.mm].numa_next_scan:
                self.task_numa_work(p, now_ms)

    # ------------------------------------------------------------ accesses
    def alloc_page(self, p, pg):
        pages = self.ki[I.unit_pages]
        wm = self.ki[I.high_wmark_pages]
        chosen = next((n for n in ((p.node + i) % self.N for i in range(self.N))
                       if self.nodes[n].free - pages >= wm), -1)
        if chosen < 0:
            chosen = p.node
            for n in range(self.N):
                if self.nodes[n].free > self.nodes[chosen].free:
                    chosen = n
        entries = pages // HPAGE_PAGES if self.ki[I.unit_huge] else pages  # one allocation per page or THP
        self.cnt[CT.numa_miss if chosen != p.node else CT.numa_hit] += entries
        pg.nid = chosen
        self.nodes[chosen].free -= pages
        self.mms[p.mm].rss += pages
        pg.write = pg.dirty = 1
        pg.last_nid = pg.last_pid = -1
        self.lru_cache_add(p, pg, entries, entries)  # lru_cache_add_active_or_unevictable()

    def next_access(self, p):
        w = self.w
        last = w["task_phase0"][p.tid] + w["task_nphases"][p.tid]
        while p.phase < last and p.rep >= w["phase_reps"][p.phase]:
            p.phase += 1
            p.rep = p.pos = 0
        if p.phase >= last:
            return -1, 0
        ph = p.phase
        if w["phase_kind"][ph] == SWEEP:
            unit = int(w["phase_start"][ph]) + p.pos
            p.pos += 1
            if p.pos >= w["phase_end"][ph] - w["phase_start"][ph]:
                p.pos = 0
                p.rep += 1
            return unit, 1
        r = p.ridx
        if r >= self.acc_u.shape[1]:
            self.cnt[CT.rng_pool_overflow] += 1
            r = 0
        u1, u2 = float(self.acc_u[p.tid, r, 0]), float(self.acc_u[p.tid, r, 1])
        p.ridx = r + 1
        share = float(w["phase_shared"][ph])
        mm = self.mms[p.mm]
        if u1 < share:
            n = mm.sh_end - mm.sh_start
            unit = mm.sh_start + min(int(u1 / share * n), n - 1)
        else:
            n = int(w["phase_end"][ph] - w["phase_start"][ph])
            unit = int(w["phase_start"][ph]) + min(int((u1 - share) / (1.0 - share) * n), n - 1)
        p.rep += 1
        return unit, 1 if u2 < w["phase_write"][ph] else 0

    def touch(self, p, unit, write, kind, step, now_ms):
        kf = self.kf
        pg = self.pages[unit]
        self.cnt[CT.accesses] += 1
        if kf[FP.sys_per_access] > 0.0:
            self.charge(p, kf[FP.sys_per_access], SB.other)
        if pg.nid < 0:
            self.alloc_page(p, pg)
        elif pg.prot_none:
            self.do_numa_page(p, unit, step, now_ms)
        if write:
            if not pg.write:
                self.cnt[CT.wp_faults] += int(kf[FP.faults_per_unit])
                self.charge(p, kf[FP.cost_wp_unit_us], SB.wp)
                pg.write = 1
            pg.dirty = 1
        if kind == SWEEP:
            c = kf[FP.sweep_us] * max(1, self.nodes[p.node].nr_running)
        else:
            c = kf[FP.access_us]
        if pg.nid != p.node:
            self.cnt[CT.remote_accesses] += 1
            c = c * kf[FP.remote_cost]
        return c

    # ------------------------------------------------------------ the loop
    def run(self, step0, nsteps, smp):
        k, kf = self.ki, self.kf
        T, N = len(self.tasks), self.N
        tick_ms = k[I.tick_ms]
        tick_us = tick_ms * 1000.0
        sample_steps = k[I.sample_steps]
        wander_p = kf[FP.wander_p]
        for s in range(nsteps):
            step = step0 + s
            now_ms = step * tick_ms
            if wander_p > 0.0 and N > 1:
                for p in self.tasks:
                    if p.done:
                        continue
                    if self.wander_u[s, p.tid, 0] < wander_p:
                        dst = min(int(self.wander_u[s, p.tid, 1] * (N - 1)), N - 2)
                        if dst >= p.node:
                            dst += 1
                        if self.nodes[dst].nr_running < self.cpus:
                            self.move_task(p, dst)
                            self.mms[p.mm].lazy += 1
                            self.cnt[CT.sched_wanders] += 1
            period = N * self.cpus  # sd->balance_interval = sd_weight ms
            if k[I.load_balance] and N > 1 and now_ms // period != (now_ms + tick_ms) // period:
                self.load_balance()
            alive = 0
            for kk in range(T):
                p = self.tasks[(int(self.rot[s]) + kk) % T]
                if p.done:
                    continue
                alive += 1
                if self.ki[I.numa_balancing]:  # task_tick_fair(): only while numabalancing_enabled
                    self.task_tick_numa(p, now_ms)
                nr = self.nodes[p.node].nr_running
                share = 1.0 if nr <= self.cpus else self.cpus / nr
                wall = tick_us
                cpu_used = 0.0
                while wall > 1e-6 and not p.done:
                    if p.debt > 0.0:
                        use = min(p.debt, wall * share)
                        p.debt -= use
                        p.sum_exec_runtime += use
                        cpu_used += use
                        wall -= use / share
                        continue
                    if p.io > 0.0:
                        use = min(p.io, wall)
                        p.io -= use
                        wall -= use
                        continue
                    if p.cur_unit < 0:
                        unit, write = self.next_access(p)
                        if unit < 0:
                            p.done = 1
                            p.finish = now_ms * 1000.0 + (tick_us - wall)
                            self.nodes[p.node].nr_running -= 1
                            self.mms[p.mm].live -= 1
                            break
                        p.cur_unit = unit
                        p.frac = self.touch(p, unit, write, self.w["phase_kind"][p.phase], step, now_ms)
                        continue
                    use = min(p.frac, wall * share)
                    p.frac -= use
                    p.user += use
                    p.sum_exec_runtime += use
                    cpu_used += use
                    wall -= use / share
                    if p.frac <= 0.0:
                        p.cur_unit = -1
                        p.io = kf[FP.io_us]
                if kf[FP.cost_sched_tick_us] > 0.0:
                    self.charge(p, kf[FP.cost_sched_tick_us] * cpu_used / 1000.0, SB.other)
            if sample_steps > 0 and (step + 1) % sample_steps == 0 and smp["idx"][0] < smp["cnt"].shape[0]:
                i = smp["idx"][0]
                smp["cnt"][i, :] = self.cnt[:C_N]
                for p in self.tasks:
                    smp["period"][i, p.tid] = p.numa_scan_period
                    smp["node"][i, p.tid] = p.node
                    smp["min"][i, p.tid] = self.task_scan_min(p)
                    smp["max"][i, p.tid] = self.task_scan_max(p)
                smp["idx"][0] = i + 1
            if alive == 0:
                return s
        return nsteps


def simulate_chunk(ki, kf, wl, st, step0, nsteps, draws, smp, mlog):
    """Same signature and effect as :func:`.balancing_kernel.run`, in plain Python.

    ``wts`` (weight caches) and the node task lists in ``ni`` belong to the jitted kernel; the
    reference computes weights and finds the tasks of a node directly.
    """
    task_mm, task_phase0, task_nphases, phase_kind = wl.task_mm, wl.task_phase0, wl.task_nphases, wl.phase_kind
    phase_start, phase_end, phase_reps, phase_shared = wl.phase_start, wl.phase_end, wl.phase_reps, wl.phase_shared
    phase_write, mm_start, mm_end, mm_sh_start, mm_sh_end = (wl.phase_write, wl.mm_start, wl.mm_end, wl.mm_sh_start,
                                                             wl.mm_sh_end)
    ti, tf, tfa, gi, gfa, wts, ni, mi, ctr, sysb, ua, ub = st
    rot, acc_u, ev_u, wander_u = draws
    smp_cnt, smp_period, smp_node, smp_min, smp_max, smp_idx = smp
    w = dict(task_mm=task_mm, task_phase0=task_phase0, task_nphases=task_nphases, phase_kind=phase_kind,
             phase_start=phase_start, phase_end=phase_end, phase_reps=phase_reps, phase_shared=phase_shared,
             phase_write=phase_write, mm_start=mm_start, mm_end=mm_end, mm_sh_start=mm_sh_start, mm_sh_end=mm_sh_end)
    st = dict(ti=ti, tf=tf, t_fmem=tfa[FA.mem], t_fcpu=tfa[FA.cpu], t_bmem=tfa[FA.bufmem],
              t_bcpu=tfa[FA.bufcpu], gi=gi, g_faults=gfa[FA.mem], g_fcpu=gfa[FA.cpu],
              g_active=gi[:, GI.active:], ni=ni, mi=mi, cnt=ctr, sysb=sysb, u_node=ua[:, UA.node],
              u_marked=ua[:, UA.marked], u_write=ua[:, UA.write], u_dirty=ua[:, UA.dirty],
              u_last_nid=ub[:, UB.last_nid], u_last_pid=ub[:, UB.last_pid], u_pvec_cpu=ub[:, UB.pvec_cpu],
              u_pvec_gen=ub[:, UB.pvec_gen], u_pvec_pages=ub[:, UB.pvec_pages], mlog=mlog,
              mlog_idx=ctr[CT.log_idx:CT.log_idx + 1])
    sim = Sim(ki, kf, w, st, (rot, acc_u, ev_u, int(ctr[CT.ev_idx]), wander_u))
    smp = dict(cnt=smp_cnt, period=smp_period, node=smp_node, min=smp_min, max=smp_max, idx=smp_idx)
    ran = sim.run(int(step0), int(nsteps), smp)
    sim.store()
    ctr[CT.ev_idx] = sim.ev_idx
    ctr[CT.log_idx] = sim.mlog_idx
    return ran
