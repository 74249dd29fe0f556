"""Run the NUMA model: check, lay out, then advance the kernel chunk by chunk with fresh random draws.

Everything random is drawn here with ``numpy.random.default_rng(seed)`` (or
the Generator given) and passed to the kernel as arrays, a chunk at a time,
so the kernel can be resumed and sampled.  ``engine="python"`` runs the
jitted kernel's own source without Numba (the benchmark's baseline);
``engine="reference"`` runs the object-based reference written independently
(:mod:`.reference`); all three give identical results.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from ...errors import WorkbookParameterError
from ..engine import KernelGroup, check_engine, rng
from .layout import (
    C_N, COUNTER_NAMES, CT, GI, LG_N, MEMO_W, MI, MI_N, NI, PARAMS, SB_N, SYS_NAMES, TF, TF_N, TI, TI_N, UA, UA_N, UB,
    UB_N, Draws, Samples, State, Workload,
)
from .params import HPAGE_PMD_NR, PAGE_SIZE, Machine, NumaParams, machine
from .result import NumaResult
from .workload import RANDOM, SWEEP, NumaWorkload, validate_workload

def _reference_chunk(*args, **kw):
    """The independent implementation (``engine="reference"``), imported only when a run asks for it."""
    from .reference import simulate_chunk

    return simulate_chunk(*args, **kw)


KERNEL = KernelGroup("kernel_workbook.models.numa", ("balancing_kernel",), "balancing_kernel:run",
                     what="NUMA balancing model, the scheduler-tick loop", reference=_reference_chunk)


def machine_of(workload: NumaWorkload, machine_name=None) -> Machine:
    """The machine a run uses: ``machine_name``, else the one the workload was built for."""
    return machine(machine_name if machine_name is not None else workload.params.get("machine", "mel-4socket-48"))


def derived(params: NumaParams, w: NumaWorkload, m: Machine, sample_steps: int = 1, log_cap: int = 0) -> dict:
    """The derived slots of the kernel's parameter arrays: what the machine and the workload make of the knobs."""
    up = int(w.unit_pages)
    huge = bool(w.unit_huge)
    fpu = w.faults_per_unit
    entries = up // HPAGE_PMD_NR if huge else up  # PMDs or PTEs one unit takes to mark
    return dict(
        nr_nodes=m.nr_nodes, cpus_per_node=m.cpus_per_node, sched_domains_numa_levels=m.sched_domains_numa_levels,
        scan_size_pages=params.numa_balancing_scan_size_mb << 8,
        unit_pages=up, unit_huge=int(huge), high_wmark_pages=int(round(m.high_wmark_mb * 256)),
        sample_steps=sample_steps, log_cap=log_cap,
        cost_fault_unit_us=params.cost_hint_fault_us * fpu,
        cost_pte_unit_us=params.cost_pte_update_ns * 1e-3 * entries,
        # a migrated unit: every base page copied, and one unmap/remap per page (base) or per THP
        cost_migrate_unit_us=params.cost_migrate_page_us * up + params.cost_migrate_unmap_us * fpu,
        cost_wp_unit_us=params.cost_wp_fault_us * fpu,
        # the THP path flushes twice (pmdp_clear_flush + flush_tlb_range); try_to_unmap() once per base page
        flushes_per_migration=2.0 * fpu if huge else float(fpu),
        cost_base_page_us=params.cost_migrate_page_us + params.cost_migrate_unmap_us,
        dio_pages=w.dio_pages,
        faults_per_unit=fpu, access_us=w.access_us,
        sweep_us=up * PAGE_SIZE / (m.node_bandwidth_mbs * 2**20) * 1e6,
        remote_cost=m.remote_access_cost, io_us=w.io_us_per_access,
        wander_p=-math.expm1(-w.wander_per_s * params.tick_ms / 1000.0),
        sys_per_access=w.sys_us_per_access,
        cost_unmap_page_us=params.cost_migrate_unmap_us,
    )


def pack(params: NumaParams, workload: NumaWorkload, machine_name=None, sample_steps: int = 1,
         log_cap: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's int and float parameter arrays: every knob in its declared slot, then the derived slots."""
    m = machine_of(workload, machine_name)
    return PARAMS.pack(params, **derived(params, workload, m, sample_steps, log_cap))


def initial_state(p: NumaParams, w: NumaWorkload, m: Machine) -> State:
    """The kernel's state before the first tick: every task on its start node, nothing touched."""
    T, U, M, N = w.nr_tasks, w.nr_units, w.nr_mm, m.nr_nodes
    ti = np.zeros((T, TI_N), np.int64)
    ti[:, TI.mm] = w.task_mm
    ti[:, TI.node] = w.task_node0
    ti[:, TI.pref] = -1
    ti[:, TI.group] = -1
    ti[:, TI.period] = p.numa_balancing_scan_delay_ms  # __sched_fork(): numa_scan_period = scan_delay
    ti[:, TI.phase] = w.task_phase0
    ti[:, TI.cur_unit] = -1
    ni = np.zeros((N, NI.tasks + T + 2), np.int64)
    ni[:, NI.free] = m.node_mem_mb * 256 - int(round(w.prefill_mb * 256))
    ni[:, NI.nr_running] = np.bincount(w.task_node0, minlength=N)
    for t in range(T):  # the tasks on each node, in task order
        n = int(w.task_node0[t])
        ni[n, NI.tasks] += 1
        ni[n, NI.tasks + ni[n, NI.tasks]] = t
    mi = np.zeros((M, MI_N), np.int64)
    mi[:, MI.next_scan] = p.numa_balancing_scan_delay_ms
    mi[:, MI.live] = np.bincount(w.task_mm, minlength=M)
    ctr = np.zeros(CT.memo + MEMO_W * T, np.int64)
    ctr[CT.memo:] = -1
    ua = np.zeros((U, UA_N), np.int8)  # unit-major: an access reads one cache line, not one per field
    ua[:, UA.node] = -1
    ub = np.full((U, UB_N), -1, np.int64)
    ub[:, UB.pvec_gen] = 0
    ub[:, UB.pvec_pages] = 0
    return State(ti=ti, tf=np.zeros((T, TF_N), np.float64), tfa=np.zeros((4, T, N, 2), np.int64),
                 gi=np.zeros((T, GI.active + N), np.int64), gfa=np.zeros((2, T, N, 2), np.int64),
                 wts=np.zeros((2, T, N), np.int64), ni=ni, mi=mi, ctr=ctr, sysb=np.zeros(SB_N, np.float64), ua=ua,
                 ub=ub)


def workload_arrays(w: NumaWorkload) -> Workload:
    return Workload(w.task_mm, w.task_phase0, w.task_nphases, w.phase_kind, w.phase_start, w.phase_end, w.phase_reps,
                    w.phase_shared_frac, w.phase_write_frac, w.mm_start, w.mm_end, w.mm_shared_start, w.mm_shared_end)


def pool_bounds(p: NumaParams, w: NumaWorkload, sweep_us: float, nsteps: int) -> tuple[int, int]:
    """Upper bounds on the random draws one chunk can consume (migration draws, random accesses per task)."""
    return _pool_bounds(p, w, sweep_us, nsteps, _task_kinds(w))


def _task_kinds(w: NumaWorkload) -> tuple[int, int]:
    """How many tasks have a RANDOM phase, and how many a SWEEP phase: what bounds a chunk's accesses (counted
    once per run, not per chunk)."""
    kinds = [w.phase_kind[a: a + n] for a, n in zip(w.task_phase0, w.task_nphases)]
    return sum(bool((k == RANDOM).any()) for k in kinds), sum(bool((k == SWEEP).any()) for k in kinds)


def _pool_bounds(p: NumaParams, w: NumaWorkload, sweep_us: float, nsteps: int, kinds: tuple[int, int]):
    chunk_us = nsteps * p.tick_ms * 1000.0
    acc = 1
    if (w.phase_kind == RANDOM).any():
        acc = int(chunk_us / (w.access_us + w.io_us_per_access)) + 2
    # migration draws <= hinting faults <= units marked before + during the chunk
    scan_units = (p.numa_balancing_scan_size_mb << 8) // w.unit_pages + 2
    floor_ms = max(1, 1000 // max(1, p.MAX_SCAN_WINDOW // p.numa_balancing_scan_size_mb)
                   if p.numa_balancing_scan_size_mb < p.MAX_SCAN_WINDOW else 1000)
    scans = w.nr_mm * (min(nsteps, nsteps * p.tick_ms // floor_ms + 1) + 1)
    marks = w.nr_units + scans * min(scan_units + 2 * HPAGE_PMD_NR // w.unit_pages + 2, w.nr_units)
    # ... and <= accesses: a task with a RANDOM phase draws at most acc, one with a SWEEP phase touches at most
    # a unit per sweep_us
    n_random, n_sweep = kinds
    accesses = n_random * acc + n_sweep * (int(chunk_us / max(sweep_us, 1e-9)) + 2)
    # a migration draws at most three numbers (isolated by someone else, pinned by direct I/O, -EBUSY)
    return int(3 * min(marks, accesses) + 16), acc


def _check(params, workload, seed, sample_ms, chunk_s, log_migrations) -> None:
    if not isinstance(params, NumaParams):
        raise WorkbookParameterError("params", type(params).__name__, "a NumaParams (see kernel_params())")
    if not isinstance(workload, NumaWorkload):
        raise WorkbookParameterError("workload", type(workload).__name__,
                                     "a NumaWorkload (kernel_workbook.heuristics.numa)")
    if not (isinstance(sample_ms, (int, np.integer)) and sample_ms >= params.tick_ms):
        raise WorkbookParameterError("sample_ms", sample_ms, f"an integer >= tick_ms ({params.tick_ms})")
    if not (chunk_s > 0):
        raise WorkbookParameterError("chunk_s", chunk_s, "> 0 s")
    if not (isinstance(log_migrations, (int, np.integer)) and log_migrations >= 0):
        raise WorkbookParameterError("log_migrations", log_migrations, "an integer >= 0")
    if (workload.phase_kind == RANDOM).any() and workload.access_us + workload.io_us_per_access <= 0:
        raise WorkbookParameterError("workload.access_us", workload.access_us,
                                     "> 0 (with io_us_per_access) for random-access phases")


class _Draws:
    """One chunk's random numbers, in the order every engine consumes them, drawn into buffers kept for the run.

    A fresh array per chunk costs more than its numbers: the allocator hands back new pages, and the first
    write to each page faults (a megabyte a chunk on the xfs_repair-like load).  ``Generator.random(out=...)``
    fills the same values as ``Generator.random(size)``.

    The migration draws (``ev_u``) are a pool sized by an upper bound (:func:`pool_bounds`), and a chunk reads
    only its first few per cent (a draw per migration of a page pinned by direct I/O), in order; they were a
    third of every number drawn.  So only the first ``ev_n`` are drawn and the generator is advanced past the
    rest (PCG64 jumps ahead in O(log n)): every later number is the one the whole pool would have left.  A run
    with a chunk that reads beyond ``ev_n`` runs again from its start, drawing every pool whole
    (:func:`simulate`): a copy of the state before each chunk, to run only that chunk again, cost more than
    the numbers it saves.
    """

    def __init__(self, workload, T: int):
        self.T = T
        self.random_phases = bool((workload.phase_kind == RANDOM).any())
        self.buf = {}
        self.no_acc = np.zeros((T, 1, 2))
        self.no_wander = np.zeros((1, 1, 2))

    def _out(self, name: str, shape: tuple) -> np.ndarray:
        n = int(np.prod(shape))
        b = self.buf.get(name)
        if b is None or b.size < n:
            b = self.buf[name] = np.empty(n)
        return b[:n].reshape(shape)

    def draw(self, g: np.random.Generator, pool: int, acc: int, nsteps: int, wander: bool,
             ev_n: int | None = None) -> Draws:
        T = self.T
        rot = g.integers(0, T, size=nsteps).astype(np.int64, copy=False)
        if ev_n is None or ev_n >= pool:
            ev_u = g.random(out=self._out("ev", (pool,)))
        else:
            ev_u = g.random(out=self._out("ev", (ev_n,)))
            _skip(g, pool - ev_n)
        acc_u = g.random(out=self._out("acc", (T, acc, 2))) if self.random_phases else self.no_acc
        wander_u = g.random(out=self._out("wander", (nsteps, T, 2))) if wander else self.no_wander
        return Draws(rot=rot, acc_u=acc_u, ev_u=ev_u, wander_u=wander_u)


def _can_skip(g: np.random.Generator) -> bool:
    """Whether ``g`` can jump over doubles: PCG64 (``default_rng``), where one double is one step."""
    return type(g.bit_generator) is np.random.PCG64


def _skip(g: np.random.Generator, n: int) -> None:
    """``g`` as after ``g.random(n)``.  ``advance()`` also drops the half of a 64-bit output that ``integers()``
    keeps for its next 32-bit draw (``has_uint32``); ``random()`` never touches it, so it is put back."""
    bg = g.bit_generator
    before = bg.state
    bg.advance(n)
    after = bg.state
    after["has_uint32"], after["uinteger"] = before["has_uint32"], before["uinteger"]
    bg.state = after


# The migration draws a chunk draws before running (the rest of its pool skipped): an eighth of the pool, and a
# floor for short chunks; the CI-size reproduction of 2015 reads at most 5 % of a chunk's pool
EV_DRAWN_FRAC = 8
EV_DRAWN_MIN = 1024


def _samples(nsteps: int, sample_steps: int, T: int) -> Samples:
    nsmp = nsteps // sample_steps + 1
    return Samples(cnt=np.zeros((nsmp, C_N), np.int64), period=np.zeros((nsmp, T), np.int64),
                   node=np.zeros((nsmp, T), np.int64), min=np.zeros((nsmp, T), np.int64),
                   max=np.zeros((nsmp, T), np.int64), idx=np.zeros(1, np.int64))


def _collect(smp: Samples, step: int, sample_steps: int, tick_ms: int, smp_rows: list, per_rows: list) -> None:
    """Append the chunk's samples: one block of rows ``t_s, counters...`` and a ``(t_s, period, min, max, node)``
    tuple per sample (views of one copy per chunk; the kernel reuses ``smp``)."""
    n = int(smp.idx[0])
    if n == 0:
        return
    k = np.arange(step // sample_steps + 1, step // sample_steps + 1 + n, dtype=np.int64)
    t_s = (k * sample_steps * tick_ms) / 1000.0  # as ((step // sample_steps) + i + 1) * sample_steps * tick_ms / 1000
    rows = np.empty((n, 1 + C_N))
    rows[:, 0] = t_s
    rows[:, 1:] = smp.cnt[:n]
    smp_rows.append(rows)
    period, lo, hi, node = smp.period[:n].copy(), smp.min[:n].copy(), smp.max[:n].copy(), smp.node[:n].copy()
    per_rows.extend(zip(t_s.tolist(), period, lo, hi, node))


def simulate(params: NumaParams, workload: NumaWorkload, seed=0, machine_name=None, *,
             sample_ms: int = 1000, chunk_s: float = 10.0, log_migrations: int = 0, engine: str = "jit",
             verbose: bool | None = None) -> NumaResult:
    """Run one kernel (``params``) on one workload; deterministic for a given ``seed`` (int or Generator).

    ``machine_name`` defaults to the machine the workload was built for
    (``workload.params["machine"]``).  ``sample_ms`` sets how often the
    counters and every task's ``numa_scan_period`` are sampled.
    ``log_migrations`` keeps the first n ``migrate_misplaced_page()`` calls
    (for the rate-limit check).  ``engine``: ``"jit"``, ``"python"`` (the
    same source without Numba) or ``"reference"`` (the object-based one).
    """
    _check(params, workload, seed, sample_ms, chunk_s, log_migrations)
    check_engine(engine)
    m = machine_of(workload, machine_name)
    validate_workload(workload, m)
    g = rng(seed)
    start = g.bit_generator.state if _can_skip(g) else None
    r = _run(params, workload, m, seed, g, start is not None, sample_ms, chunk_s, log_migrations, engine, verbose)
    if r is None:  # a chunk read past the migration draws drawn (never seen): the run again, drawing every one
        g.bit_generator.state = start
        r = _run(params, workload, m, seed, g, False, sample_ms, chunk_s, log_migrations, engine, verbose)
    return r


def _run(params, workload, m, seed, g, skip: bool, sample_ms, chunk_s, log_migrations, engine, verbose):
    """:func:`simulate`'s run from the generator ``g``; with ``skip``, each chunk draws only the front of its
    migration draws (:class:`_Draws`), and a run whose chunk reads past them returns None."""
    sample_steps = max(1, sample_ms // params.tick_ms)
    chunk_steps = max(sample_steps, int(round(chunk_s * 1000 / params.tick_ms)) // sample_steps * sample_steps)
    max_steps = int(math.ceil(workload.max_seconds * 1000 / params.tick_ms))
    ki, kf = pack(params, workload, m, sample_steps, log_migrations)
    st = initial_state(params, workload, m)
    wl = workload_arrays(workload)
    T, N = workload.nr_tasks, m.nr_nodes
    mlog = np.zeros((log_migrations, LG_N), np.int64)
    wander = kf[PARAMS.F.wander_p] > 0 and N > 1
    step_fn = KERNEL.function(engine)
    smp_rows, per_rows = [], []
    kinds = _task_kinds(workload)
    bounds = {}  # nsteps -> pool_bounds(): only the last chunk differs
    draws_of = _Draws(workload, T)
    smp = _samples(chunk_steps, sample_steps, T)  # large enough for every chunk; the kernel appends from idx 0
    t0 = time.perf_counter()
    step, finished = 0, False
    while step < max_steps:
        nsteps = min(chunk_steps, max_steps - step)
        if nsteps not in bounds:
            bounds[nsteps] = _pool_bounds(params, workload, kf[PARAMS.F.sweep_us], nsteps, kinds)
        pool, acc = bounds[nsteps]
        ev_n = min(pool, pool // EV_DRAWN_FRAC + EV_DRAWN_MIN) if skip else pool
        draws = draws_of.draw(g, pool, acc, nsteps, wander, ev_n)
        ran = _chunk(engine, step_fn, (ki, kf, wl, st, np.int64(step), np.int64(nsteps), draws, smp, mlog), verbose)
        if ev_n < pool and st.ctr[CT.rng_pool_overflow]:
            return None
        _collect(smp, step, sample_steps, params.tick_ms, smp_rows, per_rows)
        step += int(ran)
        if ran < nsteps:
            finished = True
            break
    return _result(params, workload, m, seed, st, step, finished, smp_rows, per_rows, mlog, log_migrations,
                   time.perf_counter() - t0, engine)


def _chunk(engine: str, step_fn, args: tuple, verbose) -> int:
    """One chunk of the kernel from the state in ``args`` (the per-chunk draw indices and samples reset)."""
    st, smp = args[3], args[7]
    st.ti[:, TI.ridx] = 0
    st.ctr[CT.ev_idx] = 0
    smp.idx[0] = 0
    if engine == "jit" and args[4] == 0 and verbose is not False:
        return KERNEL.run(*args, engine="jit", verbose=True)
    return step_fn(*args)


def _result(params, workload, m, seed, st: State, step: int, finished: bool, smp_rows, per_rows, mlog,
            log_migrations: int, wall: float, engine: str) -> NumaResult:
    ti, tf, ni, cnt, sysb = st.ti, st.tf, st.ni, st.ctr, st.sysb
    if cnt[CT.rng_pool_overflow]:
        raise RuntimeError("numa model: a pre-drawn random pool ran out (report this; pool_bounds is wrong)")
    counters = {name: int(cnt[i]) for i, name in enumerate(COUNTER_NAMES)}
    for i, name in enumerate(SYS_NAMES):
        counters[name] = float(sysb[i]) / 1e6
    done = ti[:, TI.done] == 1
    finish = np.where(done, tf[:, TF.finish], step * params.tick_ms * 1000.0)
    times = {
        "user_s": float(tf[:, TF.user].sum()) / 1e6,
        "system_s": float(tf[:, TF.sys].sum()) / 1e6,
        "elapsed_s": float(finish.max()) / 1e6 + workload.setup_s,
        "finished": bool(done.all()),
        "simulated_s": step * params.tick_ms / 1000.0,
    }
    task_arrays = {
        "task": np.arange(workload.nr_tasks), "mm": ti[:, TI.mm].copy(), "node": ti[:, TI.node].copy(),
        "preferred_nid": ti[:, TI.pref].copy(), "numa_group": ti[:, TI.group].copy(),
        "numa_scan_period_ms": ti[:, TI.period].copy(), "numa_pages_migrated": ti[:, TI.pages_migrated].copy(),
        "task_moves": ti[:, TI.moves].copy(), "user_s": tf[:, TF.user] / 1e6, "system_s": tf[:, TF.sys] / 1e6,
        "finish_s": finish / 1e6,
    }
    sample_rows = np.concatenate(smp_rows) if smp_rows else np.zeros((0, 1 + C_N))
    log = None
    if log_migrations:
        n = int(cnt[CT.log_idx])
        log = pd.DataFrame(mlog[:n], columns=["t_ms", "dst_node", "pages", "admitted", "migrated"])
    notes = [] if finished else [f"stopped at max_seconds={workload.max_seconds} before every thread finished"]
    return NumaResult(params, workload, m, seed if isinstance(seed, (int, np.integer)) else -1, counters, times,
                      task_arrays, sample_rows, per_rows, st.ua[:, UA.node].astype(np.int64), ni[:, NI.free].copy(),
                      ni[:, NI.win_migrated_max].copy(), log, wall, engine, notes)


def is_compiled() -> bool:
    return KERNEL.is_compiled()
