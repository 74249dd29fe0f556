"""The NUMA balancing model: reference = jitted, invariants, kernel arithmetic, bad parameters."""

from dataclasses import replace

import numpy as np
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.models.numa import MACHINES, Machine, NumaParams, kernel_params, simulate
from kernel_workbook.models.numa import layout as L
from kernel_workbook.models.numa import reference as ref
from kernel_workbook.heuristics.numa.autonumabench import autonumabench
from kernel_workbook.heuristics.numa.xfs_repair import xfs_repair


def small_numa01(**kw):
    return autonumabench("NUMA01", unit_thps=16, passes_scale=0.1, **kw)


def small_xfs(machine="dave-vm-fake4-16", **kw):
    return xfs_repair(machine, unit_pages=2048, seconds=20, accesses_per_s=800, sys_us_per_access=40.0, **kw)


SMALL_CASES = [
    ("NUMA01", "3.19.0 vanilla"),
    ("NUMA01", "4.0.0-rc1 vanilla"),
    ("NUMA01", "4.0.0-rc1 slowscan-v2"),
    ("NUMA01_THREADLOCAL", "4.0.0-rc1 ptewrite-v1r20"),
    ("NUMA02_SMT", "3.19.0 vanilla"),
    ("xfs-dave", "4.0-rc4"),
    ("xfs-mel", "4.0.0-rc1 slowscan-v2"),
    ("xfs-mel", "3.19+VM_WRITE"),
]


def make(name):
    if name == "xfs-dave":
        return small_xfs("dave-vm-fake4-16")
    if name == "xfs-mel":
        return small_xfs("mel-4socket-48")
    return autonumabench(name, unit_thps=16, passes_scale=0.05)


@pytest.mark.parametrize("wl,kernel", SMALL_CASES)
def test_reference_equals_jitted(wl, kernel):
    w = make(wl)
    # a tight rate limit and some failures so those paths run too
    p = kernel_params(kernel, ratelimit_pages=8192, migrate_pages_fail_prob=0.05, cost_sched_tick_us=3.0)
    a = simulate(p, w, seed=11, verbose=False, log_migrations=200)
    b = simulate(p, w, seed=11, engine="reference", log_migrations=200)
    assert a.counters == b.counters
    assert a.times == b.times
    assert np.array_equal(a.final_unit_node, b.final_unit_node)
    assert a.periods.equals(b.periods)
    assert a.tasks.equals(b.tasks)
    assert a.migration_log.equals(b.migration_log)
    # the case exercised something: faults were taken and pages moved
    assert a.counters["numa_hint_faults"] > 0 and a.counters["numa_pages_migrated"] > 0


def test_deterministic_for_a_seed_and_seeds_differ():
    w = small_xfs()
    p = kernel_params("4.0.0-rc1 vanilla")
    a, b, c = (simulate(p, w, seed=s, verbose=False) for s in (5, 5, 6))
    assert a.counters == b.counters and a.times == b.times
    assert a.counters != c.counters


@pytest.mark.parametrize("wl,kernel", [("NUMA01", "4.0.0-rc1 vanilla"), ("xfs-mel", "3.19.0 vanilla")])
def test_pages_conserved_per_node(wl, kernel):
    w = make(wl)
    m = w.params["machine"]
    r = simulate(kernel_params(kernel), w, seed=2, verbose=False)
    assert r.counters["numa_pages_migrated"] > 0
    node_pages = m.node_mem_mb * 256 - int(round(w.prefill_mb * 256))
    on_node = np.bincount(r.final_unit_node[r.final_unit_node >= 0], minlength=m.nr_nodes) * w.unit_pages
    assert np.array_equal(node_pages - r.final_node_free_pages, on_node)
    # every page touched is somewhere; none is lost or duplicated by migration
    assert on_node.sum() == (r.final_unit_node >= 0).sum() * w.unit_pages


def _replay_windows(log, interval):
    """Pages migrated to each node in each rate-limit window, windows as numamigrate_update_ratelimit() opens them."""
    next_window, in_window, worst = {}, {}, {}
    for row in log.itertuples():
        n = row.dst_node
        if row.t_ms > next_window.get(n, 0):
            next_window[n] = row.t_ms + interval
            in_window[n] = 0
        if row.migrated:
            in_window[n] = in_window.get(n, 0) + row.pages
            worst[n] = max(worst.get(n, 0), in_window[n])
    return worst


@pytest.mark.parametrize("ratelimit", [2048, 32768])
def test_migrations_never_exceed_the_rate_limit_in_any_window(ratelimit):
    w = autonumabench("NUMA01", unit_thps=2, passes_scale=0.1)
    p = kernel_params("4.0.0-rc1 vanilla", ratelimit_pages=ratelimit)
    r = simulate(p, w, seed=4, verbose=False, log_migrations=2_000_000)
    log = r.migration_log
    assert len(log) < 2_000_000, "log too short to replay every window"
    worst = _replay_windows(log, p.migrate_interval_millisecs)
    # the kernel checks nr_pages > ratelimit_pages *before* adding, so one unit may go over
    bound = ratelimit + w.unit_pages
    assert max(worst.values()) <= bound
    assert max(r.migrate_window_max_pages) <= bound
    if ratelimit == 2048:
        assert r.counters["migrate_fail_ratelimit"] > 0, "the tight limit must bind for the test to mean anything"


@pytest.mark.parametrize("wl,kernel", [("NUMA01", "3.19.0 vanilla"), ("NUMA01", "4.0.0-rc1 slowscan-v2"),
                                       ("xfs-mel", "4.0.0-rc1 vanilla"), ("NUMA02_SMT", "3.19.0 vanilla")])
def test_period_stays_within_task_scan_min_and_max(wl, kernel):
    r = simulate(kernel_params(kernel), make(wl), seed=3, verbose=False, sample_ms=20)
    per = r.periods
    assert len(per) > 100
    assert (per["numa_scan_period_ms"] >= per["task_scan_min_ms"]).all()
    assert (per["numa_scan_period_ms"] <= per["task_scan_max_ms"]).all()
    assert r.counters["period_out_of_range"] == 0
    assert per["numa_scan_period_ms"].nunique() > 1, "the controller never moved the period"


@pytest.mark.parametrize("kernel", ["3.19.0 vanilla", "4.0.0-rc1 vanilla", "4.0.0-rc1 slowscan-v2"])
def test_one_node_has_no_remote_faults_and_no_migrations(kernel):
    one = MACHINES["one-node"]
    w = xfs_repair(one, unit_pages=2048, seconds=20, accesses_per_s=800, wander_per_s=5.0)
    r = simulate(kernel_params(kernel), w, seed=1, verbose=False)
    c = r.counters
    assert c["numa_hint_faults"] > 0
    assert c["numa_hint_faults_local"] == c["numa_hint_faults"]
    assert c["numa_pages_migrated"] == 0 and c["pgmigrate_success"] == 0 and c["migrate_attempt_pages"] == 0
    assert c["remote_accesses"] == 0 and c["sched_wanders"] == 0


def test_one_node_autonumabench_too():
    one = Machine("uma48", nr_nodes=1, cpus_per_node=48, node_mem_mb=65536, high_wmark_mb=64.0,
                  node_bandwidth_mbs=5000.0, remote_access_cost=1.5)
    w = autonumabench("NUMA01", one, unit_thps=16, passes_scale=0.05)
    r = simulate(kernel_params("4.0.0-rc1 vanilla"), w, seed=1, verbose=False)
    assert r.counters["numa_hint_faults_local"] == r.counters["numa_hint_faults"] > 0
    assert r.counters["numa_pages_migrated"] == 0


# ---------------------------------------------------------------- the kernel's arithmetic
def _sim(rss_pages=0, w=None, **params):
    """A reference Sim (one mm unless ``w`` says otherwise), for testing single kernel functions."""
    from kernel_workbook.models.numa import initial_state, machine_of, pack

    p = NumaParams().with_(**params)
    w = w if w is not None else small_xfs("mel-4socket-48")
    m = machine_of(w)
    ki, kf = pack(p, w, m, 1, 0)
    s = initial_state(p, w, m)
    s.mi[0, L.MI.rss] = rss_pages
    st = dict(ti=s.ti, tf=s.tf, t_fmem=s.tfa[0], t_fcpu=s.tfa[1], t_bmem=s.tfa[2], t_bcpu=s.tfa[3], gi=s.gi,
              g_faults=s.gfa[0], g_fcpu=s.gfa[1], g_active=s.gi[:, L.GI.active:], ni=s.ni, mi=s.mi, cnt=s.ctr,
              sysb=s.sysb, mlog=np.zeros((0, 5), np.int64), mlog_idx=np.zeros(1, np.int64),
              **{k: s.ua[:, i] for i, k in enumerate(["u_node", "u_marked", "u_write", "u_dirty"])},
              **{k: s.ub[:, i] for i, k in enumerate(["u_last_nid", "u_last_pid", "u_pvec_cpu", "u_pvec_gen",
                                                       "u_pvec_pages"])})
    wd = dict(task_mm=w.task_mm, task_phase0=w.task_phase0, task_nphases=w.task_nphases, phase_kind=w.phase_kind,
              phase_start=w.phase_start, phase_end=w.phase_end, phase_reps=w.phase_reps,
              phase_shared=w.phase_shared_frac, phase_write=w.phase_write_frac, mm_start=w.mm_start,
              mm_end=w.mm_end, mm_sh_start=w.mm_shared_start, mm_sh_end=w.mm_shared_end)
    return ref.Sim(ki, kf, wd, st, (np.zeros(1, np.int64), np.zeros((8, 1, 2)), np.zeros(1), 0, np.zeros((1, 1, 2))))


def test_window_arithmetic_matches_the_kernel_example():
    # kernel-heuristics.md 3.1: RSS 4 GiB -> 16 windows: scan_min = max(100, 62) = 100, scan_max = 60000/16
    s = _sim(rss_pages=4 << 18)
    t = s.tasks[0]
    assert s.task_nr_scan_windows(4 << 18) == 16
    assert s.task_scan_min(t) == 100
    assert s.task_scan_max(t) == 3750
    s0 = _sim(rss_pages=0)  # empty mm: one window
    assert s0.task_scan_min(s0.tasks[0]) == 1000 and s0.task_scan_max(s0.tasks[0]) == 60000


@pytest.mark.parametrize("local,remote,shared,private,period,expect", [
    (80, 20, 0, 100, 1000, 1100),  # ratio 8 >= 7: one slot slower
    (70, 30, 0, 100, 1000, 1100),  # ratio 7: slot 0 counts as 1
    (100, 0, 0, 100, 1000, 1300),  # ratio 10: three slots
    (30, 70, 0, 100, 1000, 600),  # ratio 3: four slots faster, all private
    (30, 70, 90, 10, 1000, 960),  # mostly shared: ceil(10*10/100)=1 tenth of -400
    (10, 90, 0, 100, 200, 100),  # 200 - 6*20 = 80: clamped to task_scan_min
    (0, 100, 0, 100, 200, 400),  # local + shared == 0: no interesting faults, scan slower
])
def test_update_task_scan_period(local, remote, shared, private, period, expect):
    s = _sim(rss_pages=4 << 18)
    t = s.tasks[0]
    t.numa_scan_period = period
    t.numa_scan_period_max = s.task_scan_max(t)
    t.numa_faults_locality = [remote, local, 0]
    s.update_task_scan_period(t, shared, private, now_ms=0)
    assert t.numa_scan_period == expect
    cleared = [0, 0, 0] if local + shared else [remote, local, 0]  # the slow-down path keeps them
    assert t.numa_faults_locality == cleared


def test_slow_scan_on_migration_failure_doubles_and_keeps_the_counters():
    s = _sim(rss_pages=4 << 18, TNF_MIGRATE_FAIL=True)
    t = s.tasks[0]
    t.numa_scan_period, t.numa_scan_period_max = 400, s.task_scan_max(t)
    t.numa_faults_locality = [10, 90, 1]  # very local, but one failed migration
    s.update_task_scan_period(t, 0, 100, now_ms=5000)
    assert t.numa_scan_period == 800
    assert s.mms[0].numa_next_scan == 5800
    assert t.numa_faults_locality == [10, 90, 1], "the kernel returns without clearing numa_faults_locality"
    s.update_task_scan_period(t, 0, 100, now_ms=6000)
    s.update_task_scan_period(t, 0, 100, now_ms=7000)
    s.update_task_scan_period(t, 0, 100, now_ms=8000)
    assert t.numa_scan_period == s.task_scan_max(t)  # capped at numa_scan_period_max
    s3 = _sim(rss_pages=4 << 18, TNF_MIGRATE_FAIL=False)  # 3.19 ignores locality[2]
    t3 = s3.tasks[0]
    t3.numa_scan_period, t3.numa_scan_period_max = 400, s3.task_scan_max(t3)
    t3.numa_faults_locality = [10, 90, 1]
    s3.update_task_scan_period(t3, 0, 100, now_ms=5000)
    assert t3.numa_scan_period == 480  # ratio 9: two slots of 40 slower


def test_two_stage_filter_and_groups():
    s = _sim(rss_pages=1 << 18)
    t = s.tasks[0]
    pg = ref.Page(0, 1, 1, 1, -1, -1, -1, 0, 0)
    assert s.should_numa_migrate_memory(t, pg, 0, 1)  # first fault: last_cpupid unset -> private
    assert (pg.last_nid, pg.last_pid) == (1, 0)
    pg.last_nid, pg.last_pid = 2, 3
    assert not s.should_numa_migrate_memory(t, pg, 0, 1)  # previous fault from another node
    pg.last_nid, pg.last_pid = 1, 3
    assert s.should_numa_migrate_memory(t, pg, 0, 1)  # shared, no numa group: migrate
    t.numa_group = 0
    g = s.groups[0]
    g.active_nodes = [1, 1, 0, 0]
    g.faults = [[100, 0], [80, 0], [0, 0], [0, 0]]
    pg.last_nid, pg.last_pid = 1, 3
    assert s.should_numa_migrate_memory(t, pg, 0, 1) is False  # both active, 80 >= 3/4 of 100
    g.faults = [[100, 0], [70, 0], [0, 0], [0, 0]]
    pg.last_nid, pg.last_pid = 1, 3
    assert s.should_numa_migrate_memory(t, pg, 0, 1) is True
    pg.last_nid, pg.last_pid = 2, 3
    assert s.should_numa_migrate_memory(t, pg, 0, 2) is False  # destination not active


# ---------------------------------------------------------------- the thread's mechanism, end to end
def test_always_read_only_never_groups_and_pte_write_does():
    w = small_numa01()
    a = simulate(kernel_params("3.19.0 vanilla"), w, seed=1, verbose=False)
    b = simulate(kernel_params("4.0.0-rc1 vanilla"), w, seed=1, verbose=False)
    assert a.counters["group_joins"] > 0 and a.counters["no_group_faults"] == 0
    assert b.counters["group_joins"] == 0 and b.counters["no_group_faults"] == b.counters["numa_hint_faults"]
    # (how many pages each kernel then migrates is the reproduction's to score, at its own unit size: with 16
    # huge pages a unit, no pagevec ever holds one, and the small run's ranking is not the thread's)


def test_slowscan_scans_less_when_migrations_fail():
    w = small_numa01()
    p = kernel_params("4.0.0-rc1 vanilla", isolate_lru_fail_prob=0.2)
    a = simulate(p, w, seed=1, verbose=False)
    b = simulate(replace(p, TNF_MIGRATE_FAIL=True), w, seed=1, verbose=False)
    assert a.counters["migrate_fail_isolate"] > 0
    assert b.counters["numa_pte_updates"] < 0.7 * a.counters["numa_pte_updates"]


def test_prot_none_write_faults_only_in_4_0():
    w = small_numa01()
    a = simulate(kernel_params("3.19.0 vanilla"), w, seed=1, verbose=False)
    b = simulate(kernel_params("4.0.0-rc1 ptewrite-v1r20"), w, seed=1, verbose=False)
    assert a.counters["wp_faults"] == 0
    assert b.counters["wp_faults"] > 0


# ---------------------------------------------------------------- numa groups and TNF_NO_GROUP
def _faulting_pair(s):
    """Tasks 0 and 1 of one mm, both with fault statistics, task 1 running on node 1."""
    t, o = s.tasks[0], s.tasks[1]
    for x in (t, o):
        x.has_faults = 1
    o.node = 1
    return t, o


def test_a_shared_fault_groups_through_the_last_cpupid():
    # 3.19, pte_write: a fault on a page task 1 faulted last (from node 1) makes task 0 a group and, the
    # other task being in a group too, joins the bigger or equal one (task_numa_group())
    s = _sim(rss_pages=1 << 18)
    t, o = _faulting_pair(s)
    s.task_numa_fault(o, -1, -1, 1, 1, 1, False, False, False, now_ms=0)  # o's first fault: private, no group
    assert o.numa_group == -1
    s.task_numa_fault(o, 1, 0, 1, 1, 1, False, False, False, now_ms=0)  # o on a page t faulted: o gets a group
    assert o.numa_group == 1 and s.groups[1].nr_tasks == 1
    s.task_numa_fault(t, 1, 1, 1, 1, 0, False, False, False, now_ms=0)  # t on a page o faulted: t joins o's
    assert t.numa_group == 1 and s.groups[1].nr_tasks == 2
    assert s.cnt[L.CT.group_joins] == 1


def test_tnf_no_group_never_calls_task_numa_group():
    s = _sim(rss_pages=1 << 18)
    t, o = _faulting_pair(s)
    s.task_numa_fault(o, 1, 0, 1, 1, 1, True, False, False, now_ms=0)
    s.task_numa_fault(t, 1, 1, 1, 1, 0, True, False, False, now_ms=0)
    assert t.numa_group == o.numa_group == -1 and s.cnt[L.CT.group_joins] == 0
    # the fault is still counted shared (priv = 0): the buffers say so
    assert t.faults_buf_mem[1][0] == 1 and t.faults_buf_mem[1][1] == 0


def test_group_join_needs_the_last_faulter_running_on_its_cpu():
    # task_numa_group(): tsk = cpu_rq(cpu)->curr must be the task of last_cpupid; a thread asleep on I/O is not
    s = _sim(rss_pages=1 << 18)
    t, o = _faulting_pair(s)
    s.task_numa_group(o, 0, 0, 0)  # o makes its group (t is on node 0, running)
    assert o.numa_group == 1
    o.io = 50.0  # o now waits for its I/O
    assert s.task_numa_group(t, 1, 1, 0) == 0 and t.numa_group == 0 and s.groups[1].nr_tasks == 1
    o.io = 0.0
    o.node = 2  # woken elsewhere: not on the CPU it faulted from
    assert s.task_numa_group(t, 1, 1, 0) == 0 and s.groups[1].nr_tasks == 1
    o.node = 1
    s.groups[0].nr_tasks = 1
    assert s.task_numa_group(t, 1, 1, 0) == 0 and t.numa_group == 1 and s.groups[1].nr_tasks == 2


def test_groupless_shared_faults_migrate_after_the_two_stage_filter():
    # should_numa_migrate_memory() without p->numa_group: a shared page whose last fault came from this node moves
    s = _sim(rss_pages=1 << 18)
    t = s.tasks[0]
    pg = ref.Page(2, 1, 0, 1, 0, 5, -1, 0, 0)
    assert s.should_numa_migrate_memory(t, pg, 2, 0) is True and (pg.last_nid, pg.last_pid) == (0, 0)
    pg.last_nid, pg.last_pid = 3, 5
    assert s.should_numa_migrate_memory(t, pg, 2, 0) is False


# ---------------------------------------------------------------- the scan period: slow-scan and resets
def _task_that_moves(s):
    """Task 0 on node 0, preferring node 2 where all its faults are and a CPU is idle."""
    t = s.tasks[0]
    t.has_faults = 1
    t.numa_preferred_nid = 2
    t.faults_mem = [[0, 0], [0, 0], [0, 100], [0, 0]]
    t.total_numa_faults = 100
    return t


def test_only_task_numa_migrate_resets_the_period():
    s = _sim(rss_pages=4 << 18, TNF_MIGRATE_FAIL=True)
    t = _task_that_moves(s)
    t.numa_scan_period = 1600
    s.move_task(t, 1)  # the scheduler waking it elsewhere (a wander): the period stays
    assert t.numa_scan_period == 1600
    s.task_numa_migrate(t)  # the NUMA balancer moving it to its preferred node: reset to task_scan_min
    assert t.node == 2 and t.numa_scan_period == s.task_scan_min(t) == 100
    assert s.cnt[L.CT.numa_task_moves] == 1


def test_slowscan_keeps_doubling_after_a_reset_because_locality_2_stays():
    s = _sim(rss_pages=4 << 18, TNF_MIGRATE_FAIL=True)
    t = _task_that_moves(s)
    t.numa_scan_period, t.numa_scan_period_max = 400, s.task_scan_max(t)
    t.numa_faults_locality = [10, 90, 1]  # one failed migration
    s.update_task_scan_period(t, 0, 100, now_ms=0)
    assert t.numa_scan_period == 800
    s.task_numa_migrate(t)
    assert t.numa_scan_period == 100 and t.numa_faults_locality[2] == 1
    s.update_task_scan_period(t, 0, 100, now_ms=1000)  # very local faults, yet it doubles again
    assert t.numa_scan_period == 200


# ---------------------------------------------------------------- costs
def test_migration_costs_copy_unmap_and_an_ipi_per_cpu_of_the_mm():
    p = kernel_params("4.0.0-rc1 vanilla", cost_sched_tick_us=0.0)
    one_mm = simulate(p, autonumabench("NUMA02", unit_thps=16, passes_scale=0.05), seed=1, verbose=False)
    two_mm = simulate(p, small_numa01(), seed=1, verbose=False)
    for r in (one_mm, two_mm):
        c = r.counters
        assert c["numa_pages_migrated"] > 0 and c["migrate_fail_permanent"] == 0
        thp = c["numa_pages_migrated"] / 512
        want = c["numa_pages_migrated"] * p.cost_migrate_page_us + thp * p.cost_migrate_unmap_us
        assert abs(c["sys_migrate_s"] * 1e6 - want) < 1e-6 * want
        assert abs(c["sys_ipi_s"] * 1e6 - c["tlb_ipis"] * p.cost_tlb_flush_ipi_us) < 1e-3
    # the IPIs of one flush reach every other CPU the mm runs on: 48 threads in one mm, 24 in each of two
    # (fewer once threads finish; more while CPUs a thread left still hold the mm lazily)
    one, two = (r.counters["tlb_ipis"] / r.counters["tlb_flushes"] for r in (one_mm, two_mm))
    assert 40 <= one <= 47 and 20 <= two <= 30 and one > 1.5 * two


def test_task_placement_searches_and_moves_are_charged():
    p = kernel_params("3.19.0 vanilla")
    r = simulate(p, small_numa01(), seed=1, verbose=False)
    c = r.counters
    assert c["numa_migrate_calls"] > 0 and c["numa_search_cpus"] >= 36 * c["numa_migrate_calls"]
    moves = c["numa_task_moves"] + c["numa_task_swaps"]
    # the load balancer's moves (load_balance() -> stop_one_cpu() for a running task) cost a move each too
    want = c["numa_search_cpus"] * p.cost_numa_search_us + (moves + c["lb_task_moves"]) * p.cost_task_move_us
    assert moves > 0 and abs(c["sys_place_s"] * 1e6 - want) < 1e-6 * want


def test_a_migrated_huge_page_is_mapped_writable_and_dirty():
    # migrate_misplaced_transhuge_page(): maybe_pmd_mkwrite(pmd_mkdirty(entry)); a base page comes back clean
    w = autonumabench("NUMA02", unit_thps=16, passes_scale=0.05)
    s = _sim(w=w, TNF_NO_GROUP="always_read_only", numa_hint_pte="PROT_NONE", isolate_lru_fail_prob=0.0)
    t = s.tasks[0]
    pg = s.pages[0]
    pg.nid, pg.write, pg.dirty = 1, 0, 0
    assert s.migrate_misplaced_page(t, 0, 0, step=100, now_ms=400) == w.unit_pages
    assert (pg.nid, pg.write, pg.dirty) == (0, 1, 1)
    s2 = _sim(isolate_lru_fail_prob=0.0)
    pg2 = s2.pages[0]
    pg2.nid, pg2.write, pg2.dirty = 1, 0, 1
    assert s2.migrate_misplaced_page(s2.tasks[0], 0, 0, step=100, now_ms=400) == s2.ki[L.I.unit_pages]
    assert (pg2.nid, pg2.write, pg2.dirty) == (0, 0, 0)


def test_python_engine_is_the_same_loop():
    # the benchmark's baseline: the jitted kernel's own source run as plain Python
    w = autonumabench("NUMA02_SMT", unit_thps=16, passes_scale=0.03)
    p = kernel_params("4.0.0-rc1 slowscan-v2", cost_sched_tick_us=3.0)
    a = simulate(p, w, seed=5, verbose=False)
    b = simulate(p, w, seed=5, engine="python")
    assert a.counters == b.counters and a.times == b.times and a.periods.equals(b.periods)


# ---------------------------------------------------------------- bad parameters name themselves
@pytest.mark.parametrize("field,value", [
    ("numa_balancing_scan_period_min_ms", 0), ("numa_balancing_scan_period_max_ms", 10),
    ("numa_balancing_scan_size_mb", -256), ("numa_balancing_scan_delay_ms", -1),
    ("NUMA_PERIOD_THRESHOLD", 11), ("ratelimit_pages", 0), ("migrate_interval_millisecs", 0),
    ("TNF_NO_GROUP", "pte_young"), ("numa_hint_pte", "_PAGE_GLOBAL"), ("isolate_lru_fail_prob", 1.5),
    ("cost_tlb_flush_ipi_us", -1.0), ("tick_ms", 0), ("TNF_MIGRATE_FAIL", "yes"),
])
def test_bad_params_name_the_knob(field, value):
    with pytest.raises(WorkbookParameterError, match=field):
        NumaParams(**{field: value})


def test_bad_inputs_name_themselves():
    with pytest.raises(WorkbookParameterError, match="kernel"):
        kernel_params("5.0 vanilla")
    with pytest.raises(WorkbookParameterError, match="machine"):
        autonumabench("NUMA02", "no-such-box")
    with pytest.raises(WorkbookParameterError, match="unit_thps"):
        autonumabench("NUMA02", unit_thps=0)
    with pytest.raises(WorkbookParameterError, match="bhash"):
        xfs_repair(bhash=0)
    with pytest.raises(WorkbookParameterError, match="seed"):
        simulate(NumaParams(), small_xfs(), seed=-1)
    with pytest.raises(WorkbookParameterError, match="engine"):
        simulate(NumaParams(), small_xfs(), engine="cuda")
    with pytest.raises(WorkbookParameterError, match="remote_access_cost"):
        Machine("x", 2, 4, 1024, 8.0, 1000.0, 0.5)
    tiny = Machine("tiny", nr_nodes=2, cpus_per_node=4, node_mem_mb=512, high_wmark_mb=8.0,
                   node_bandwidth_mbs=1000.0, remote_access_cost=1.5)
    with pytest.raises(WorkbookParameterError, match="workload"):
        simulate(NumaParams(), xfs_repair(tiny), seed=0)


def test_result_names_counters_as_the_kernel_does():
    r = simulate(NumaParams(), small_xfs(), seed=0, verbose=False)
    assert list(r.vmstat) == ["numa_hit", "numa_miss", "numa_pte_updates", "numa_huge_pte_updates",
                              "numa_hint_faults", "numa_hint_faults_local", "numa_pages_migrated",
                              "pgmigrate_success", "pgmigrate_fail"]
    assert set(r.times) >= {"user_s", "system_s", "elapsed_s"}
    f = r.df_faults()
    assert list(f.columns) == ["t_s", "local", "remote", "migrated", "failed"]
    assert f["local"].sum() + f["remote"].sum() == r.samples["numa_hint_faults"].iloc[-1] > 0


def test_numa_balancing_off_stops_scanning_faults_and_migrations_on_every_engine():
    """kernel.numa_balancing=0: task_tick_fair() never calls task_tick_numa(), so nothing is marked, no hinting
    fault is taken, nothing migrates -- and the threads still run their work (remote accesses included)."""
    w = autonumabench("NUMA01", unit_thps=16, passes_scale=0.05)
    on = simulate(kernel_params("3.19.0 vanilla"), w, seed=3, verbose=False)
    off_p = kernel_params("3.19.0 vanilla", numa_balancing=False)
    off = simulate(off_p, w, seed=3, verbose=False)
    ref = simulate(off_p, w, seed=3, engine="reference")
    assert on.counters["numa_hint_faults"] > 0 and on.counters["numa_pages_migrated"] > 0
    for k in ("numa_pte_updates", "numa_hint_faults", "numa_pages_migrated", "numa_scans", "numa_task_moves"):
        assert off.counters[k] == 0, k
    assert off.counters["remote_accesses"] > 0 and off.times["finished"]
    assert off.counters == ref.counters and off.times == ref.times


# ---------------------------------------------------------------- issue 11: the kernel's isolation check and balancer
def test_a_page_waiting_in_a_pagevec_fails_isolation_until_the_pagevec_drains():
    # mm/swap.c __lru_cache_add() (3.19/4.0): a new or migrated page waits in its CPU's lru_add_pvec with an
    # extra reference and PageLRU clear; mm/migrate.c numamigrate_isolate_page() -> isolate_lru_page() fails
    s = _sim(w=autonumabench("NUMA02", unit_thps=1, passes_scale=0.05))
    t, pg = s.tasks[0], s.pages[0]
    pg.nid = 1
    s.lru_cache_add(t, pg, 1, 1)  # its first touch put the THP in the pagevec
    assert s.pvec_waiting(pg) == 1
    assert s.migrate_misplaced_page(t, 0, 0, step=100, now_ms=400) == 0
    assert s.cnt[L.CT.migrate_fail_isolate] == 512 and s.cnt[L.CT.pgmigrate_fail] == 512
    for u in range(1, s.ki[L.I.PAGEVEC_SIZE] + 1):  # the CPU adds PAGEVEC_SIZE more pages: the pagevec drains
        s.lru_cache_add(t, s.pages[u], 1, 1)
    assert s.pvec_waiting(pg) == 0
    assert s.migrate_misplaced_page(t, 0, 0, step=101, now_ms=404) == 512
    assert pg.nid == 0 and s.pvec_waiting(pg) == 1  # putback_lru_page(new_page): the new page waits in turn


def test_only_the_last_pages_of_a_base_page_unit_wait_in_the_pagevec():
    # page by page: a 64-page unit fills and drains the pagevec four times; the pages added after the last drain
    # wait (PageLRU clear) and fail isolate_lru_page(), the others migrate
    s = _sim(isolate_lru_fail_prob=0.0)  # small_xfs: 2048-page units
    t, pg = s.tasks[0], s.pages[0]
    size = s.ki[L.I.PAGEVEC_SIZE]
    up = s.ki[L.I.unit_pages]
    t.pvec_n = 3
    s.lru_cache_add(t, pg, up, up)
    left = (3 + up - 1) % size + 1
    assert t.pvec_n == left and s.pvec_waiting(pg) == left
    pg.nid = 1
    moved = s.migrate_misplaced_page(t, 0, 0, step=100, now_ms=400)
    assert moved == up - left and s.cnt[L.CT.migrate_fail_isolate] == left
    assert s.cnt[L.CT.pgmigrate_fail] == 0  # numamigrate_isolate_page() failing is not counted for a base page
    assert s.cnt[L.CT.mm_migrate_pages] == up - left  # one migrate_pages() call per isolated page
    assert pg.nid == 0  # most of its pages moved: the unit goes with them


def test_a_page_pinned_by_direct_io_fails_every_pass_and_is_not_counted_in_pgmigrate_fail():
    # migrate_pages(MIGRATE_ASYNC): migrate_page_move_mapping() finds page_count() above what it expects (the
    # get_user_pages() pin of another thread's pread()) -> -EAGAIN on each of the passes; each pass allocates a
    # target page and unmaps/flushes/remaps; 3.19/4.0 return the leftover but count only nr_failed
    w = small_xfs("mel-4socket-48")
    w = replace(w, dio_pages=float(w.unit_pages * w.nr_units))  # every page pinned while a read waits
    s = _sim(w=w, isolate_lru_fail_prob=0.0)
    t, other, pg = s.tasks[0], s.tasks[1], s.pages[0]
    s.mms[0].rss = w.unit_pages * w.nr_units
    pg.nid, pg.pvec_cpu = 1, -1
    other.io = 1000.0  # another thread waits on its direct read
    up = s.ki[L.I.unit_pages]
    assert s.migrate_misplaced_page(t, 0, 0, step=100, now_ms=400) == 0
    passes = s.ki[L.I.migrate_pages_passes]
    assert s.cnt[L.CT.migrate_fail_eagain] == up and s.cnt[L.CT.pgmigrate_fail] == 0
    assert s.cnt[L.CT.migrate_retry_unmaps] == up * passes and s.cnt[L.CT.numa_hit] == up * passes
    assert s.cnt[L.CT.tlb_flushes] == up * passes and pg.nid == 1
    other.io = 0.0  # the read completed: nothing pins it any more
    s.ev_idx = 0
    waiting = s.pvec_waiting(pg)  # putback_lru_page() after the last pass: the last page put back waits in turn
    assert waiting >= 1
    assert s.migrate_misplaced_page(t, 0, 0, step=200, now_ms=900) == up - waiting


def test_the_rate_limit_admits_pages_one_by_one():
    # numamigrate_update_ratelimit(pgdat, 1) per base page: admitted while the window's count is <= ratelimit_pages
    s = _sim(isolate_lru_fail_prob=0.0, ratelimit_pages=100)
    t, pg = s.tasks[0], s.pages[0]
    pg.nid, pg.pvec_cpu = 1, -1
    s.nodes[0].numabalancing_migrate_next_window = 10 ** 9
    s.nodes[0].numabalancing_migrate_nr_pages = 90
    moved = s.migrate_misplaced_page(t, 0, 0, step=100, now_ms=400)
    assert moved == 11 and s.cnt[L.CT.migrate_fail_ratelimit] == s.ki[L.I.unit_pages] - 11


def test_pagevec_isolation_failures_need_the_pagevec():
    w = autonumabench("NUMA01", unit_thps=1, passes_scale=0.02)
    a = simulate(kernel_params("4.0.0-rc1 vanilla"), w, seed=1, verbose=False)
    b = simulate(kernel_params("4.0.0-rc1 vanilla", PAGEVEC_SIZE=1), w, seed=1, verbose=False)
    assert a.counters["migrate_fail_isolate"] > 0
    assert b.counters["migrate_fail_isolate"] == 0
    assert a.counters["migrate_fail_busy"] == b.counters["migrate_fail_busy"] == 0  # no THP pins in the workload


def test_the_load_balancer_pulls_a_task_to_an_idle_node_against_its_placement():
    # kernel/sched/fair.c load_balance(): a node with idle CPUs pulls from the busiest one; a task that does not
    # improve its locality goes after cache_nice_tries failed attempts; its numa_scan_period stays
    s = _sim(w=small_numa01())
    for p in [p for p in s.tasks if p.node == 1][:2]:
        s.move_task(p, 0)  # node 0: 14 tasks on 12 CPUs, node 1: 10
    moved = [p for p in s.tasks if p.node == 0]
    for p in moved:
        p.numa_preferred_nid, p.has_faults = 0, 1  # all of them prefer where they are
    periods = {p.tid: p.numa_scan_period for p in moved}
    for _ in range(s.ki[L.I.cache_nice_tries]):
        s.load_balance()
    assert s.nodes[0].nr_running == 14 and s.cnt[L.CT.lb_task_moves] == 0
    s.load_balance()
    assert s.cnt[L.CT.lb_task_moves] >= 1 and s.nodes[0].nr_running <= 13
    gone = [p for p in moved if p.node != 0]
    assert gone and all(p.numa_scan_period == periods[p.tid] for p in gone)


def test_the_load_balancer_moves_a_task_towards_its_preferred_node_at_once():
    s = _sim(w=small_numa01())
    for p in [p for p in s.tasks if p.node == 1][:2]:
        s.move_task(p, 0)
    p = next(p for p in s.tasks if p.node == 0)
    p.numa_preferred_nid, p.has_faults = 1, 1  # migrate_improves_locality()
    s.load_balance()
    assert p.node == 1 and s.cnt[L.CT.lb_task_moves] == 1


def test_the_load_balancer_does_nothing_when_the_nodes_are_even_and_can_be_turned_off():
    s = _sim(w=small_numa01())
    for _ in range(10):
        s.load_balance()
    assert s.cnt[L.CT.lb_task_moves] == 0
    w = small_xfs("mel-4socket-48", wander_per_s=2.0)
    on = simulate(kernel_params("3.19.0 vanilla"), w, seed=3, verbose=False)
    off = simulate(kernel_params("3.19.0 vanilla", load_balance=False), w, seed=3, verbose=False)
    assert off.counters["lb_task_moves"] == 0
    assert on.counters["lb_task_moves"] > 0


@pytest.mark.parametrize("kernel", ["3.19.0 vanilla", "4.0.0-rc1 vanilla"])
def test_reference_equals_jitted_with_pagevecs_and_the_balancer(kernel):
    w = autonumabench("NUMA01", unit_thps=4, passes_scale=0.02)  # 4 huge pages a unit: 4 pagevec entries
    p = kernel_params(kernel)
    a = simulate(p, w, seed=5, verbose=False)
    b = simulate(p, w, seed=5, engine="reference")
    assert a.counters == b.counters and a.times == b.times
    assert a.counters["migrate_fail_isolate"] > 0


@pytest.mark.parametrize("kernel", ["3.19.0 vanilla", "4.0.0-rc1 slowscan-v2"])
def test_reference_equals_jitted_with_direct_io_pins_and_partial_migrations(kernel):
    w = replace(xfs_repair("mel-4socket-48", unit_pages=64, seconds=8, accesses_per_s=4000), dio_pages=300.0)
    p = kernel_params(kernel, ratelimit_pages=4096, isolate_lru_fail_prob=0.01, migrate_pages_fail_prob=0.01)
    a = simulate(p, w, seed=7, verbose=False, log_migrations=100)
    b = simulate(p, w, seed=7, engine="reference", log_migrations=100)
    assert a.counters == b.counters and a.times == b.times and a.migration_log.equals(b.migration_log)
    c = a.counters
    assert c["migrate_fail_eagain"] > 0 and c["migrate_fail_permanent"] > 0
    assert c["pgmigrate_fail"] == c["migrate_fail_permanent"]  # -EAGAIN leftovers are not counted
    assert c["mm_migrate_pages"] == c["numa_pages_migrated"] + c["migrate_fail_eagain"] + c["migrate_fail_permanent"]


def _fake_numa_sim(**params):
    """A reference Sim of Dave Chinner's numa=fake=4 guest: no SLIT, so no NUMA level and no sd_numa."""
    return _sim(w=small_xfs("dave-vm-fake4-16"), **params)


def test_machines_declare_their_numa_levels():
    # kernel/sched/core.c sched_init_numa(): one level per distinct remote distance; numa=fake without a SLIT
    # (arch/x86/mm/numa_emulation.c) gives every pair of nodes LOCAL_DISTANCE -> 'if (!level) return;'
    assert MACHINES["mel-4socket-48"].sched_domains_numa_levels == 1
    assert Machine().sched_domains_numa_levels == 1
    assert MACHINES["dave-vm-fake4-16"].sched_domains_numa_levels == 0
    assert MACHINES["one-node"].sched_domains_numa_levels == 0
    assert _fake_numa_sim().ki[L.I.sched_domains_numa_levels] == 0
    assert _sim().ki[L.I.sched_domains_numa_levels] == 1


def test_without_a_numa_level_task_numa_migrate_gives_up_and_prefers_the_task_node():
    # kernel/sched/fair.c task_numa_migrate(): no sd_numa -> p->numa_preferred_nid = task_node(p); -EINVAL,
    # before update_numa_stats() or any task_numa_compare(): the task stays, nothing is searched or charged
    s = _fake_numa_sim()
    p = s.tasks[0]
    p.numa_preferred_nid = (p.node + 1) % s.N
    node, sys_before = p.node, list(s.sysb)
    s.task_numa_migrate(p)
    assert p.node == node and p.numa_preferred_nid == node
    assert s.sysb == sys_before
    assert s.cnt[L.CT.numa_migrate_calls] == s.cnt[L.CT.numa_task_moves] == s.cnt[L.CT.numa_task_swaps] == 0


def test_without_sd_numa_the_load_balancer_ignores_the_preferred_node():
    # migrate_improves_locality() is false without SD_NUMA, and the top domain's cache_nice_tries is sd_init()'s
    # non-NUMA one (1): a task preferring the idle node waits like any other
    s = _fake_numa_sim(cache_nice_tries=5)
    assert s.nodes[0].nr_running == s.nodes[1].nr_running
    for p in [p for p in s.tasks if p.node == 1][:2]:
        s.move_task(p, 0)  # node 0: two tasks more than node 1
    for p in s.tasks:
        if p.node == 0:
            p.numa_preferred_nid, p.has_faults = 1, 1
    busiest_over = s.nodes[0].nr_running > s.cpus
    waits = L.SD_DIE_CACHE_NICE_TRIES + (0 if busiest_over else 2)
    for _ in range(waits):
        s.load_balance()
    assert s.cnt[L.CT.lb_task_moves] == 0
    s.load_balance()
    assert s.cnt[L.CT.lb_task_moves] >= 1


def test_a_machine_without_a_numa_level_never_moves_a_task_by_numa_balancing():
    w = small_xfs("dave-vm-fake4-16")
    for kernel in ("3.19.0 vanilla", "4.0-rc4"):
        r = simulate(kernel_params(kernel), w, seed=2, verbose=False)
        c = r.counters
        assert c["numa_hint_faults"] > 0  # the scanner and the hinting faults still run
        assert c["numa_task_moves"] == c["numa_task_swaps"] == c["numa_migrate_calls"] == 0
        mel = replace(MACHINES["dave-vm-fake4-16"], sched_domains_numa_levels=1)
        r1 = simulate(kernel_params(kernel), w, seed=2, machine_name=mel, verbose=False)
        assert r1.counters["numa_migrate_calls"] > 0  # the same guest with a NUMA level does search


def _simulate_module():
    import sys

    return sys.modules["kernel_workbook.models.numa.simulate"]


def test_skipping_draws_leaves_the_generator_as_drawing_them():
    # integers() keeps half of a 64-bit output for its next draw; advance() drops it unless _skip puts it back
    S = _simulate_module()
    for seed in range(20):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        assert np.array_equal(a.integers(0, 7, size=5), b.integers(0, 7, size=5))
        drawn = a.random(1000)
        assert np.array_equal(b.random(10), drawn[:10])
        S._skip(b, 990)
        assert a.bit_generator.state == b.bit_generator.state
        assert np.array_equal(a.integers(0, 7, size=9), b.integers(0, 7, size=9))
        assert np.array_equal(a.random(100), b.random(100))


def _key(r):
    return (r.counters, r.times, r.sample_rows.tobytes(), r.periods.to_dict("list"), r.tasks.to_dict("list"),
            r.final_unit_node.tobytes())


def test_a_chunk_that_reads_past_the_migration_draws_drawn_runs_again_on_the_whole_pool(monkeypatch):
    # xfs_repair's direct-I/O pins draw one number per pinned migration, from the front of the pool
    S = _simulate_module()
    w = xfs_repair("mel-4socket-48", unit_pages=512, seconds=30, accesses_per_s=5000, wander_per_s=2.0)
    p = kernel_params("4.0.0-rc1 vanilla")
    monkeypatch.setattr(S, "_can_skip", lambda g: False)
    whole = simulate(p, w, seed=3, verbose=False)
    assert whole.counters["migrate_fail_eagain"] > 0  # migration draws were read
    monkeypatch.undo()
    assert _key(simulate(p, w, seed=3, verbose=False)) == _key(whole)
    # none drawn up front: every chunk that reads one runs again
    calls = []
    chunk = S._chunk
    monkeypatch.setattr(S, "_chunk", lambda *a: calls.append(1) or chunk(*a))
    monkeypatch.setattr(S, "EV_DRAWN_FRAC", 10**9)
    monkeypatch.setattr(S, "EV_DRAWN_MIN", 0)
    again = simulate(p, w, seed=3, verbose=False)
    assert len(calls) > whole.times["simulated_s"] / 10 + 1  # more calls than chunks: some ran again
    assert _key(again) == _key(whole)
