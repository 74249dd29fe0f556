"""Automatic NUMA balancing (kernel/sched/fair.c, mm/migrate.c, 3.19 and 4.0) as a seeded simulation.

The model replays the 2015 thread "mm: numa: Slow PTE scan rate if migration
failures occur": threads touch memory; every scan period a thread of the mm
runs ``task_numa_work()`` and makes the next ``numa_balancing_scan_size_mb``
of populated memory PROT_NONE; the next touch takes a hinting fault
(``do_numa_page()``); the two-stage filter (``should_numa_migrate_memory()``)
and numa groups decide whether the page moves (``migrate_misplaced_page()``,
rate limited per node); ``task_numa_fault()`` counts the fault local or
remote, private or shared, and once per pass ``task_numa_placement()`` runs
the period controller ``update_task_scan_period()`` and may move the task
(``task_numa_migrate()``).  Costs turn the events into system time; remote
accesses slow user work; elapsed time is when the last thread finishes.

Public API::

    from kernel_workbook.models.numa import simulate, kernel_params, MACHINES
    from kernel_workbook.workloads.autonumabench import numa02
    r = simulate(kernel_params("4.0.0-rc1 vanilla"), numa02("mel-4socket-48"), seed=1)
    r.vmstat          # numa_pte_updates, numa_hint_faults, ... (kernel units)
    r.times           # user_s, system_s, elapsed_s
    r.df_scan_period()  # per-task numa_scan_period over time

Everything random is drawn here with ``numpy.random.default_rng(seed)`` and
passed to the jitted kernel (:mod:`._numa_kernel`) as arrays, chunk by chunk;
``engine="reference"`` runs the pure-Python reference (:mod:`._numa_reference`)
on the same draws and gives identical results.
"""

from __future__ import annotations

import functools
import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import WorkbookParameterError
from . import _numa_layout as L
from .numa_params import (
    HINT_PTE, HPAGE_PMD_NR, KERNEL_DOC, KERNELS, MACHINES, NO_GROUP_RULE_DOC, NO_GROUP_RULES, PAGE_SIZE, RANDOM,
    SWEEP, Machine, NumaParams, NumaWorkload, kernel_params, machine, validate_workload,
)

__all__ = [
    "HINT_PTE", "KERNELS", "KERNEL_DOC", "MACHINES", "NO_GROUP_RULES", "NO_GROUP_RULE_DOC", "Machine",
    "NumaParams", "NumaResult", "NumaWorkload", "kernel_params", "machine", "simulate", "VMSTAT_COUNTERS",
]

VMSTAT_COUNTERS = ["numa_pte_updates", "numa_huge_pte_updates", "numa_hint_faults", "numa_hint_faults_local",
                   "numa_pages_migrated", "pgmigrate_success", "pgmigrate_fail"]

_compiled = False


@dataclass
class NumaResult:
    """What one run gives back.  Counters are in the kernel's units (pages, faults).

    Attributes
    ----------
    counters : dict
        Every counter of :data:`._numa_layout.COUNTER_NAMES` (the vmstat ones
        named as in ``/proc/vmstat``), plus ``sys_*_s`` (system time by cause).
    times : dict
        ``user_s``, ``system_s`` (summed over threads, CPU seconds),
        ``elapsed_s`` (last thread done, plus the workload's ``setup_s``),
        ``finished`` (all threads done before ``max_seconds``).
    tasks : DataFrame
        One row per thread: ``task, mm, node, preferred_nid, numa_group,
        numa_scan_period_ms, numa_pages_migrated, task_moves, user_s,
        system_s, finish_s``.
    samples : DataFrame
        One row per sample: ``t_s`` and the cumulative counters.
    periods : DataFrame
        Long: ``t_s, task, numa_scan_period_ms, task_scan_min_ms,
        task_scan_max_ms, node``.
    migration_log : DataFrame or None
        With ``log_migrations=n``: the first n ``migrate_misplaced_page()``
        calls: ``t_ms, dst_node, pages, admitted, migrated``.
    """

    params: NumaParams
    workload: NumaWorkload
    machine: Machine
    seed: int
    counters: dict
    times: dict
    task_arrays: dict  # the columns of ``tasks``
    sample_rows: np.ndarray  # [samples, 1 + counters]
    period_rows: list  # per sample: (t_s, period, scan_min, scan_max, node) arrays
    final_unit_node: np.ndarray
    final_node_free_pages: np.ndarray
    migrate_window_max_pages: np.ndarray
    migration_log: pd.DataFrame | None = None
    wall_s: float = 0.0
    engine: str = "jit"
    notes: list = field(default_factory=list)

    # the frames are built when first asked for: a run in a parameter sweep rarely needs them
    @functools.cached_property
    def tasks(self) -> pd.DataFrame:
        return pd.DataFrame(self.task_arrays)

    @functools.cached_property
    def samples(self) -> pd.DataFrame:
        cols = ["t_s"] + L.COUNTER_NAMES
        return pd.DataFrame(self.sample_rows.reshape(-1, len(cols)), columns=cols)

    @functools.cached_property
    def periods(self) -> pd.DataFrame:
        cols = ["t_s", "task", "numa_scan_period_ms", "task_scan_min_ms", "task_scan_max_ms", "node"]
        rows = self.period_rows
        if not rows:
            return pd.DataFrame(columns=cols)
        T = len(rows[0][1])
        return pd.DataFrame({
            "t_s": np.repeat([r[0] for r in rows], T),
            "task": np.tile(np.arange(T), len(rows)),
            "numa_scan_period_ms": np.concatenate([r[1] for r in rows]),
            "task_scan_min_ms": np.concatenate([r[2] for r in rows]),
            "task_scan_max_ms": np.concatenate([r[3] for r in rows]),
            "node": np.concatenate([r[4] for r in rows]),
        }, columns=cols)

    @property
    def vmstat(self) -> dict:
        """The ``/proc/vmstat`` NUMA counters of the run."""
        return {k: self.counters[k] for k in VMSTAT_COUNTERS}

    @property
    def local_percent(self) -> float:
        f = self.counters["numa_hint_faults"]
        return 100.0 * self.counters["numa_hint_faults_local"] / f if f else float("nan")

    def caption(self) -> str:
        """The run's parameters in one line, for table captions (OSTEP's ARG lines)."""
        return (f"{self.workload.name} on {self.machine.name}, seed {self.seed}: {self.params.describe()}; "
                f"unit = {self.workload.unit_pages} pages{' (THP)' if self.workload.unit_huge else ''}")

    def df_vmstat(self) -> pd.DataFrame:
        """Columns ``counter, value``: the vmstat counters, in kernel units."""
        return pd.DataFrame({"counter": list(self.vmstat), "value": list(self.vmstat.values())})

    def df_scan_period(self, tasks=None) -> pd.DataFrame:
        """Columns ``t_s, task, numa_scan_period_ms, task_scan_min_ms, task_scan_max_ms, node``."""
        d = self.periods
        return d if tasks is None else d[d["task"].isin(list(tasks))]

    def df_faults(self) -> pd.DataFrame:
        """Per sample interval: ``t_s, local, remote, migrated, failed`` (faults and migrations, kernel units)."""
        s = self.samples
        if s.empty:
            return pd.DataFrame(columns=["t_s", "local", "remote", "migrated", "failed"])
        faults = s["numa_hint_faults"].diff().fillna(s["numa_hint_faults"])
        local = s["numa_hint_faults_local"].diff().fillna(s["numa_hint_faults_local"])
        fpu = max(1, self.workload.faults_per_unit)
        up = self.workload.unit_pages
        mig = s["numa_pages_migrated"].diff().fillna(s["numa_pages_migrated"]) / up * fpu
        fail_cols = ["migrate_fail_ratelimit", "migrate_fail_nodefull", "migrate_fail_isolate", "migrate_fail_busy",
                     "migrate_fail_migrate_pages"]
        fails = s[fail_cols].sum(axis=1)
        failed = fails.diff().fillna(fails) / up * fpu
        return pd.DataFrame({"t_s": s["t_s"], "local": local, "remote": faults - local,
                             "migrated": mig, "failed": failed})


_KERNEL_SOURCES = ("_numa_kernel.py", "_numa_layout.py", "_jit.py")  # _jit.py: borrowed(), compiled in
_cache_checked = False


def _drop_stale_kernel_cache() -> None:
    """Remove Numba's cache of ``_numa_kernel`` when the kernel or its layout changed.

    Numba keys the on-disk cache of a function on its own file, but the kernel
    compiles the column constants of ``_numa_layout.py`` (and ``_jit.borrowed``)
    into its machine code: after an edit of those alone it would load stale code.  A hash of both
    sources, kept beside the cache, decides (the same guard as
    :func:`._jit.drop_stale_cache` for the disk/CFQ kernels).
    """
    global _cache_checked
    if _cache_checked:
        return
    _cache_checked = True
    import hashlib
    from pathlib import Path

    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for name in _KERNEL_SOURCES:
        h.update((here / name).read_bytes())
    digest = h.hexdigest()
    cache = here / "__pycache__"
    stamp = cache / "kwb_numa_kernel.sha256"
    try:
        if stamp.exists() and stamp.read_text().strip() == digest:
            return
        if cache.is_dir():
            for f in cache.iterdir():
                if f.name.startswith("_numa_kernel.") and f.suffix in (".nbi", ".nbc"):
                    f.unlink()
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest + "\n")
    except OSError:  # read-only install: Numba then caches elsewhere or not at all
        pass


ENGINES = ("jit", "pure", "reference")


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise WorkbookParameterError("engine", engine, "'jit', 'pure' or 'reference'")


def _constants(p: NumaParams, w: NumaWorkload, m: Machine, sample_steps: int, log_cap: int):
    ki = np.zeros(L.KI_N, np.int64)
    kf = np.zeros(L.KF_N, np.float64)
    up = int(w.unit_pages)
    huge = bool(w.unit_huge)
    fpu = w.faults_per_unit
    ki[L.KI_NODES] = m.nr_nodes
    ki[L.KI_CPUS_PER_NODE] = m.cpus_per_node
    ki[L.KI_SCAN_PERIOD_MIN] = p.numa_balancing_scan_period_min_ms
    ki[L.KI_SCAN_PERIOD_MAX] = p.numa_balancing_scan_period_max_ms
    ki[L.KI_SCAN_DELAY] = p.numa_balancing_scan_delay_ms
    ki[L.KI_SCAN_SIZE_PAGES] = p.numa_balancing_scan_size_mb << 8  # MB in 4 KiB pages
    ki[L.KI_SCAN_SIZE_MB] = p.numa_balancing_scan_size_mb
    ki[L.KI_MAX_SCAN_WINDOW] = p.MAX_SCAN_WINDOW
    ki[L.KI_SLOTS] = p.NUMA_PERIOD_SLOTS
    ki[L.KI_THRESHOLD] = p.NUMA_PERIOD_THRESHOLD
    ki[L.KI_IMBALANCE_PCT] = p.numa_imbalance_pct
    ki[L.KI_RATELIMIT_PAGES] = p.ratelimit_pages
    ki[L.KI_MIGRATE_INTERVAL] = p.migrate_interval_millisecs
    ki[L.KI_MIGRATE_FAIL] = int(bool(p.TNF_MIGRATE_FAIL))
    ki[L.KI_NO_GROUP_RULE] = NO_GROUP_RULES.index(p.TNF_NO_GROUP)
    ki[L.KI_PROT_NONE] = int(p.numa_hint_pte == "PROT_NONE")
    ki[L.KI_TICK_MS] = p.tick_ms
    ki[L.KI_UNIT_PAGES] = up
    ki[L.KI_UNIT_HUGE] = int(huge)
    ki[L.KI_HIGH_WMARK_PAGES] = int(round(m.high_wmark_mb * 256))
    ki[L.KI_SAMPLE_STEPS] = sample_steps
    ki[L.KI_LOG_CAP] = log_cap
    entries = up // HPAGE_PMD_NR if huge else up  # PMDs or PTEs one unit takes to mark
    kf[L.KF_ISOLATE_FAIL] = p.isolate_lru_fail_prob
    kf[L.KF_MIGRATE_FAIL] = p.migrate_pages_fail_prob
    kf[L.KF_COST_FAULT] = p.cost_hint_fault_us * fpu
    kf[L.KF_COST_PTE] = p.cost_pte_update_ns * 1e-3 * entries
    # a migrated unit: every base page copied, and one unmap/remap per page (base) or per THP
    kf[L.KF_COST_MIGRATE] = p.cost_migrate_page_us * up + p.cost_migrate_unmap_us * fpu
    kf[L.KF_COST_UNMAP] = p.cost_migrate_unmap_us * fpu
    kf[L.KF_COST_SEARCH] = p.cost_numa_search_us
    kf[L.KF_COST_MOVE] = p.cost_task_move_us
    kf[L.KF_COST_IPI] = p.cost_tlb_flush_ipi_us
    kf[L.KF_COST_WP] = p.cost_wp_fault_us * fpu
    # try_to_unmap() flushes once per base page; the THP path flushes twice (pmdp_clear_flush + flush_tlb_range)
    kf[L.KF_FLUSHES_PER_MIGRATION] = 2.0 * fpu if huge else float(fpu)
    kf[L.KF_FAULTS_PER_UNIT] = fpu
    kf[L.KF_ACCESS_US] = w.access_us
    unit_bytes = up * PAGE_SIZE
    kf[L.KF_SWEEP_US] = unit_bytes / (m.node_bandwidth_mbs * 2**20) * 1e6
    kf[L.KF_REMOTE_COST] = m.remote_access_cost
    kf[L.KF_IO_US] = w.io_us_per_access
    kf[L.KF_WANDER_P] = -math.expm1(-w.wander_per_s * p.tick_ms / 1000.0)
    kf[L.KF_COST_TICK] = p.cost_sched_tick_us
    kf[L.KF_SYS_PER_ACCESS] = w.sys_us_per_access
    return ki, kf


@dataclass
class _State:
    """The kernel's packed state (see :mod:`._numa_layout`)."""

    ti: np.ndarray
    tf: np.ndarray
    tfa: np.ndarray
    gi: np.ndarray
    gfa: np.ndarray
    wts: np.ndarray
    ni: np.ndarray
    mi: np.ndarray
    ctr: np.ndarray
    sysb: np.ndarray
    ua: np.ndarray


def _initial_state(p: NumaParams, w: NumaWorkload, m: Machine) -> _State:
    T, U, M, N = w.nr_tasks, w.nr_units, w.nr_mm, m.nr_nodes
    ti = np.zeros((T, L.TI_N), np.int64)
    ti[:, L.TI_MM] = w.task_mm
    ti[:, L.TI_NODE] = w.task_node0
    ti[:, L.TI_PREF] = -1
    ti[:, L.TI_GROUP] = -1
    ti[:, L.TI_PERIOD] = p.numa_balancing_scan_delay_ms  # __sched_fork(): numa_scan_period = scan_delay
    ti[:, L.TI_PHASE] = w.task_phase0
    ti[:, L.TI_CUR_UNIT] = -1
    tf = np.zeros((T, L.TF_N), np.float64)
    tfa = np.zeros((4, T, N, 2), np.int64)
    gi = np.zeros((T, L.GI_N + N), np.int64)
    gfa = np.zeros((2, T, N, 2), np.int64)
    wts = np.zeros((2, T, N), np.int64)
    ni = np.zeros((N, L.NI_N + T + 2), np.int64)
    node_pages = m.node_mem_mb * 256
    ni[:, L.NI_FREE] = node_pages - int(round(w.prefill_mb * 256))
    ni[:, L.NI_NR_RUNNING] = np.bincount(w.task_node0, minlength=N)
    for t in range(T):  # the tasks on each node, in task order
        n = int(w.task_node0[t])
        ni[n, L.NI_TASKS] += 1
        ni[n, L.NI_TASKS + ni[n, L.NI_TASKS]] = t
    mi = np.zeros((M, L.MI_N), np.int64)
    mi[:, L.MI_NEXT_SCAN] = p.numa_balancing_scan_delay_ms
    mi[:, L.MI_LIVE] = np.bincount(w.task_mm, minlength=M)
    ctr = np.zeros(L.X_MEMO + L.MEMO_W * T, np.int64)
    ctr[L.X_MEMO:] = -1
    sysb = np.zeros(L.SB_N, np.float64)
    ua = np.zeros((L.U_N, U), np.int64)
    ua[L.U_NODE] = -1
    ua[L.U_LAST_NID] = -1
    ua[L.U_LAST_PID] = -1
    ua[L.U_TOUCH_TID] = -1
    ua[L.U_TOUCH_TICK] = -10
    ua[L.U_OTHER_TICK] = -10
    return _State(ti, tf, tfa, gi, gfa, wts, ni, mi, ctr, sysb, ua)


def _pool_bounds(p: NumaParams, w: NumaWorkload, m: Machine, kf, nsteps: int) -> tuple[int, int]:
    """Upper bounds on the random draws one chunk can consume (migration draws, random accesses per task)."""
    chunk_us = nsteps * p.tick_ms * 1000.0
    has_random = bool((w.phase_kind == RANDOM).any())
    acc = 1
    if has_random:
        per = w.access_us + w.io_us_per_access
        acc = int(chunk_us / per) + 2
    # migration draws <= hinting faults <= units marked before + during the chunk
    scan_units = (p.numa_balancing_scan_size_mb << 8) // w.unit_pages + 2
    floor_ms = max(1, 1000 // max(1, p.MAX_SCAN_WINDOW // p.numa_balancing_scan_size_mb)
                   if p.numa_balancing_scan_size_mb < p.MAX_SCAN_WINDOW else 1000)
    scans = w.nr_mm * (min(nsteps, nsteps * p.tick_ms // floor_ms + 1) + 1)
    marks = w.nr_units + scans * min(scan_units + 2 * HPAGE_PMD_NR // w.unit_pages + 2, w.nr_units)
    # ... and <= accesses
    sweep_us = kf[L.KF_SWEEP_US]
    accesses = 0
    for t in range(w.nr_tasks):
        kinds = w.phase_kind[w.task_phase0[t]: w.task_phase0[t] + w.task_nphases[t]]
        if (kinds == RANDOM).any():
            accesses += acc
        if (kinds == SWEEP).any():
            accesses += int(chunk_us / max(sweep_us, 1e-9)) + 2
    return int(min(marks, accesses) + 16), acc


def simulate(params: NumaParams, workload: NumaWorkload, seed: int = 0, machine_name=None, *,
             sample_ms: int = 1000, chunk_s: float = 10.0, log_migrations: int = 0, engine: str = "jit",
             verbose: bool | None = None) -> NumaResult:
    """Run one kernel (``params``) on one workload; deterministic for a given ``seed``.

    ``machine_name`` defaults to the machine the workload was built for
    (``workload.params["machine"]``).  ``sample_ms`` sets how often the
    counters and every task's ``numa_scan_period`` are sampled.
    ``log_migrations`` keeps the first n ``migrate_misplaced_page()`` calls
    (for the rate-limit check).  ``engine="pure"`` runs the jitted kernel's own
    source as plain Python (the benchmark's baseline); ``engine="reference"``
    runs the object-based pure-Python reference, written independently (the
    identity tests).  Both are slow.
    """
    global _compiled
    if not isinstance(params, NumaParams):
        raise WorkbookParameterError("params", type(params).__name__, "a NumaParams (see kernel_params())")
    if not isinstance(workload, NumaWorkload):
        raise WorkbookParameterError("workload", type(workload).__name__, "a NumaWorkload (kernel_workbook.workloads)")
    _check_engine(engine)
    m = machine(machine_name if machine_name is not None else workload.params.get("machine", "mel-4socket-48"))
    validate_workload(workload, m)
    if not (isinstance(seed, (int, np.integer)) and seed >= 0):
        raise WorkbookParameterError("seed", seed, "an integer >= 0")
    if not (isinstance(sample_ms, (int, np.integer)) and sample_ms >= params.tick_ms):
        raise WorkbookParameterError("sample_ms", sample_ms, f"an integer >= tick_ms ({params.tick_ms})")
    if not (chunk_s > 0):
        raise WorkbookParameterError("chunk_s", chunk_s, "> 0 s")
    if not (isinstance(log_migrations, (int, np.integer)) and log_migrations >= 0):
        raise WorkbookParameterError("log_migrations", log_migrations, "an integer >= 0")
    if (workload.phase_kind == RANDOM).any() and workload.access_us + workload.io_us_per_access <= 0:
        raise WorkbookParameterError("workload.access_us", workload.access_us,
                                     "> 0 (with io_us_per_access) for random-access phases")

    sample_steps = max(1, sample_ms // params.tick_ms)
    chunk_steps = max(sample_steps, int(round(chunk_s * 1000 / params.tick_ms)) // sample_steps * sample_steps)
    max_steps = int(math.ceil(workload.max_seconds * 1000 / params.tick_ms))
    ki, kf = _constants(params, workload, m, sample_steps, log_migrations)
    st = _initial_state(params, workload, m)
    T, N = workload.nr_tasks, m.nr_nodes
    rng = np.random.default_rng(seed)
    mlog = np.zeros((log_migrations, L.LG_N), np.int64)
    wander = kf[L.KF_WANDER_P] > 0 and N > 1

    if engine == "jit":
        _drop_stale_kernel_cache()
        from ._numa_kernel import _simulate_kernel as step_fn
        if not _compiled:
            if verbose is None or verbose:
                print("kernel_workbook.models.numa: compiling the NUMA balancing kernel (numba; cached after the "
                      "first time)...", file=sys.stdout, flush=True)
    elif engine == "pure":
        from ._jit import pure

        step_fn = pure("_numa_kernel")._simulate_kernel  # the same source without Numba
    else:
        from ._numa_reference import simulate_chunk as step_fn

    smp_rows, per_rows = [], []
    t0 = time.perf_counter()
    step = 0
    finished = False
    while step < max_steps:
        nsteps = min(chunk_steps, max_steps - step)
        rot = rng.integers(0, T, size=nsteps).astype(np.int64)
        pool, acc = _pool_bounds(params, workload, m, kf, nsteps)
        ev_u = rng.random(pool)
        acc_u = rng.random((T, acc, 2)) if (workload.phase_kind == RANDOM).any() else np.zeros((T, 1, 2))
        wander_u = rng.random((nsteps, T, 2)) if wander else np.zeros((1, 1, 2))
        st.ti[:, L.TI_RIDX] = 0
        st.ctr[L.X_EV_IDX] = 0
        nsmp = nsteps // sample_steps + 1
        smp_cnt = np.zeros((nsmp, L.C_N), np.int64)
        smp_period = np.zeros((nsmp, T), np.int64)
        smp_node = np.zeros((nsmp, T), np.int64)
        smp_min = np.zeros((nsmp, T), np.int64)
        smp_max = np.zeros((nsmp, T), np.int64)
        smp_idx = np.zeros(1, np.int64)
        ran = step_fn(ki, kf, workload.task_mm, workload.task_phase0, workload.task_nphases, workload.phase_kind,
                      workload.phase_start, workload.phase_end, workload.phase_reps, workload.phase_shared_frac,
                      workload.phase_write_frac, workload.mm_start, workload.mm_end, workload.mm_shared_start,
                      workload.mm_shared_end, st.ti, st.tf, st.tfa, st.gi, st.gfa, st.wts, st.ni, st.mi, st.ctr,
                      st.sysb, st.ua, np.int64(step), np.int64(nsteps), rot, acc_u, ev_u, wander_u,
                      smp_cnt, smp_period, smp_node, smp_min, smp_max, smp_idx, mlog)
        if engine == "jit":
            _compiled = True
        k = int(smp_idx[0])
        for i in range(k):
            t_s = ((step // sample_steps) + i + 1) * sample_steps * params.tick_ms / 1000.0
            row = np.empty(1 + L.C_N)
            row[0] = t_s
            row[1:] = smp_cnt[i]
            smp_rows.append(row)
            per_rows.append((t_s, smp_period[i].copy(), smp_min[i].copy(), smp_max[i].copy(), smp_node[i].copy()))
        step += int(ran)
        if ran < nsteps:
            finished = True
            break
    wall = time.perf_counter() - t0
    ti, tf, ni, cnt, sysb = st.ti, st.tf, st.ni, st.ctr, st.sysb
    if cnt[L.C_POOL_OVERFLOW]:
        raise RuntimeError("numa model: a pre-drawn random pool ran out (report this; the bound in _pool_bounds is wrong)")

    counters = {name: int(cnt[i]) for i, name in enumerate(L.COUNTER_NAMES)}
    for i, name in enumerate(L.SYS_NAMES):
        counters[name] = float(sysb[i]) / 1e6
    done = ti[:, L.TI_DONE] == 1
    finish = np.where(done, tf[:, L.TF_FINISH], step * params.tick_ms * 1000.0)
    times = {
        "user_s": float(tf[:, L.TF_USER].sum()) / 1e6,
        "system_s": float(tf[:, L.TF_SYS].sum()) / 1e6,
        "elapsed_s": float(finish.max()) / 1e6 + workload.setup_s,
        "finished": bool(done.all()),
        "simulated_s": step * params.tick_ms / 1000.0,
    }
    task_arrays = {
        "task": np.arange(T), "mm": ti[:, L.TI_MM].copy(), "node": ti[:, L.TI_NODE].copy(),
        "preferred_nid": ti[:, L.TI_PREF].copy(), "numa_group": ti[:, L.TI_GROUP].copy(),
        "numa_scan_period_ms": ti[:, L.TI_PERIOD].copy(), "numa_pages_migrated": ti[:, L.TI_PAGES_MIGRATED].copy(),
        "task_moves": ti[:, L.TI_MOVES].copy(), "user_s": tf[:, L.TF_USER] / 1e6, "system_s": tf[:, L.TF_SYS] / 1e6,
        "finish_s": finish / 1e6,
    }
    sample_rows = np.array(smp_rows, dtype=float).reshape(-1, 1 + L.C_N)
    log = None
    if log_migrations:
        n = int(cnt[L.X_LOG_IDX])
        log = pd.DataFrame(mlog[:n], columns=["t_ms", "dst_node", "pages", "admitted", "migrated"])
    notes = []
    if not finished:
        notes.append(f"stopped at max_seconds={workload.max_seconds} before every thread finished")
    return NumaResult(params, workload, m, int(seed), counters, times, task_arrays, sample_rows, per_rows,
                      st.ua[L.U_NODE].copy(), ni[:, L.NI_FREE].copy(), ni[:, L.NI_WIN_MIGRATED_MAX].copy(), log,
                      wall, engine, notes)


def df_runs(results: list[NumaResult], kernel: str | None = None) -> pd.DataFrame:
    """Long frame ``kernel, row, value, seed`` of several runs, for :func:`kernel_workbook.tables.compare`.

    Rows: the vmstat counters, ``numa_hint_local_percent``, ``user_s``,
    ``system_s``, ``elapsed_s``.
    """
    recs = []
    for r in results:
        k = kernel or r.params.describe()
        vals = dict(r.vmstat)
        vals["numa_hint_local_percent"] = r.local_percent
        vals.update({k2: r.times[k2] for k2 in ("user_s", "system_s", "elapsed_s")})
        for row, v in vals.items():
            recs.append({"kernel": k, "row": row, "value": float(v), "seed": r.seed})
    return pd.DataFrame(recs, columns=["kernel", "row", "value", "seed"])
