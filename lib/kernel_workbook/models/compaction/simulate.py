"""``simulate(params, workload, seed=0, engine="jit")``: one stress-highalloc run of one kernel.

Validates both knob sets (a bad knob raises ``WorkbookParameterError``
naming it), derives the slice's sizes and rates from the workload
(:func:`derive`), packs the kernel's parameter arrays with the generated
layout (:func:`pack`, the function ``MODEL.pack`` points to), draws every
random number from the seed (``engine.rng``) before the kernel runs, runs
the kernel group in the chosen engine and wraps the arrays in a
:class:`~.result.Result`.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import WorkbookParameterError
from ..engine import KernelGroup, RunStopped, check_engine, rng, stop_flag
from . import boot_cache
from .layout import (AC, ACC, ATT, FREE_LIST_MAX, LRU, MAX_ORDER, NR_MT, PAGE_SIZE, PAGEBLOCK_NR_PAGES, PARAMS, PG,
                     PG_DTYPE, PR, RUN, SAMPLE, TR, VM, Z, nf_size)
from .params import CompactionParams
from .result import Result
from .workload import StressHighalloc

KERNELS = KernelGroup("kernel_workbook.models.compaction",
                      ("zone_kernel", "pages_kernel", "compaction_kernel", "vmscan_kernel", "slowpath_kernel",
                       "highalloc_kernel"),
                      entry="highalloc_kernel:run", what="compaction model (stress-highalloc)")
NR_THP_TASKS = 4  # THP faults in the slow path at once (the build load's processes, khugepaged)
NR_RND = 1 << 16  # pre-drawn uniforms, reused cyclically
TRACE_MAX = 60000  # scanner positions kept for the picture of the scanners


def min_free_kbytes(params: CompactionParams, w: StressHighalloc) -> int:
    """``min_free_kbytes`` as 3.x sets it with THP: ``int_sqrt(lowmem_kbytes * 16)`` clamped to 128..65536,
    raised to khugepaged's ``set_recommended_min_free_kbytes()`` (2 free pageblocks per zone plus
    ``MIGRATE_PCPTYPES^2`` per zone), capped at 5% of memory."""
    if params.min_free_kbytes is not None:
        return int(params.min_free_kbytes)
    lowmem_kb = int(w.machine_mb * 1024)
    base = min(max(int(math.isqrt(lowmem_kb * 16)), 128), 65536)
    nr_zones = 2 if w.machine_mb <= 3584 else 3  # DMA + DMA32 (+ Normal above the 4 GiB hole)
    recommended = PAGEBLOCK_NR_PAGES * nr_zones * 2 + PAGEBLOCK_NR_PAGES * nr_zones * 3 * 3
    recommended = min(recommended * 4, lowmem_kb * 5 // 100)
    return max(base, recommended)


def derive(params: CompactionParams, w: StressHighalloc, audit: bool = False) -> dict:
    """The slice's sizes, watermarks, clock and per-tick rates (the derived slots of the layout)."""
    n = int(w.zone_mb * 256) // 1024 * 1024
    if n < 4 * PAGEBLOCK_NR_PAGES:
        raise WorkbookParameterError("zone_mb", w.zone_mb, ">= 8 MB (four pageblocks)")
    share = (n / 256.0) / w.machine_mb
    tick_s = w.tick_ms / 1000.0
    tick_ns = int(round(w.tick_ms * 1e6))
    pages_min = min_free_kbytes(params, w) // 4
    wmin = max(int(pages_min * share), 8)
    wlow = wmin + wmin // 4
    whigh = wmin + wmin // 2
    count = max(1, int(round(w.count * share)))
    delay_ns = int(round(w.ms_delay * 1e6 * w.count / count))
    # every build process is here (the CPU competition and the churn are the machine's); each brings this
    # zone its share of its memory
    procs = w.build_procs
    procs_max = 2 * procs + 4
    total_s = w.elapsed_s()
    # room for passes three times their paced length (attempts that take longer than ms_delay)
    nr_ticks = int(math.ceil((total_s + 2 * 3 * w.pass_s() + 60.0) / tick_s))
    rested_min = max(int(w.rested_min_free_kbytes // 4 * share), 8)
    sample_every = max(1, int(round(w.sample_s / tick_s)))
    return dict(
        nr_pages=n, nr_pageblocks=n // PAGEBLOCK_NR_PAGES, nr_ticks=nr_ticks, tick_ns=tick_ns,
        nr_actors=3 + NR_THP_TASKS, nr_samples=int(nr_ticks // sample_every) + 16, sample_every=sample_every,
        warmup_ticks=int(round(w.warmup_s / tick_s)), test_count=count, test_delay_ns=delay_ns,
        rested_gap_ticks=int(round(w.rested_gap_s / tick_s)), wmark_min=wmin, wmark_low=wlow, wmark_high=whigh,
        balance_gap=min(wlow, (n + 99) // 100), reserve_blocks=min(2, -(-wmin // PAGEBLOCK_NR_PAGES)),
        nr_cpus=w.nr_cpus, build_procs=w.build_procs, sched_factor=1 + int(math.log2(min(w.nr_cpus, 8))),
        procs_max=procs_max, proc_anon_pages=int(round(w.compile_anon_mb * 256 * share)),
        proc_kernel_pages=int(round(w.proc_kernel_pages * share * 1000)),
        proc_life_ticks=max(1, int(round(w.compile_s / tick_s))),
        boot_unmovable=int(n * w.boot_unmovable_pct / 100.0), prefill_pages=int(n * w.initial_page_cache_pct / 100.0),
        pgpgout_milli_per_page=int(round(w.pgpgout_per_dirty_page * 1000)),
        test_no_kswapd=int(w.highalloc_gfpflags == "GFP_ALLOC_LIKE_THP"),
        test_noretry=int(w.highalloc_gfpflags == "GFP_ALLOC_LIKE_THP"),
        test_repeat=int(w.highalloc_gfpflags == "GFP_ALLOC_LIKE_HUGETLB"), audit=int(audit),
        writeback_ns=int(round(w.writeback_ms * 1e6)),
        trace_max=TRACE_MAX, highalloc_order=w.highalloc_order,
        file_in_per_tick=w.page_ins_kb_s / 4.0 * share * tick_s,
        file_out_per_tick=w.dirty_pages_s * share * tick_s,
        proc_spawn_per_tick=procs / w.compile_s * tick_s,
        slab_per_file=(w.dentry_bytes + w.inode_bytes) / (PAGE_SIZE * w.file_pages),
        unmovable_per_tick=w.unmovable_kb_s / 4.0 * share * tick_s,
        thp_per_tick=w.thp_faults_s * share * tick_s, hot_per_tick=w.hot_refs_s * share * tick_s,
        anon_hot=w.anon_hot,
        setup_pages=int((w.nr_kernels + 1) * w.tree_mb * 256 * share),
        bigfile_pages=int(w.machine_mb * 256 * share) if w.end_dd else 0,
        disk_pages_per_tick=w.disk_mb_s * 256 * share * tick_s,
        wait_ticks=int(round((w.pass_gap_s + w.wait_s) / tick_s)), pass_gap_ns=int(round(w.pass_gap_s * 1e9)),
        wmark_min_rested=rested_min, wmark_low_rested=rested_min + rested_min // 4,
        wmark_high_rested=rested_min + rested_min // 2,
        balance_gap_rested=min(rested_min + rested_min // 4, (n + 99) // 100),
        _share=share, _total_s=total_s, _min_free_kbytes=min_free_kbytes(params, w),
    )


def pack(params: CompactionParams, workload: StressHighalloc, audit: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's int and float parameter arrays (what ``simulate`` passes; ``MODEL.pack``)."""
    if not isinstance(params, CompactionParams):
        raise WorkbookParameterError("params", type(params).__name__, "a CompactionParams")
    if not isinstance(workload, StressHighalloc):
        raise WorkbookParameterError("workload", type(workload).__name__, "a StressHighalloc")
    d = {k: v for k, v in derive(params, workload, audit).items() if not k.startswith("_")}
    return PARAMS.pack(params, **d)


def arrays(params: CompactionParams, workload: StressHighalloc, seed=0, audit: bool = False) -> dict:
    """Every array the kernel runs on, fresh, with the run's uniforms drawn from ``seed``."""
    params.validate()
    workload.validate()
    pi, pf = pack(params, workload, audit)
    d = derive(params, workload, audit)
    g = rng(seed)
    n, nb, na = d["nr_pages"], d["nr_pageblocks"], d["nr_actors"]
    ns = d["nr_samples"]
    i64 = np.int64
    return dict(
        pg=np.full((n, len(PG)), -1, PG_DTYPE), fl=np.full(NR_MT * MAX_ORDER, -1, i64), nf=np.zeros(nf_size(n), i64),
        pb=np.zeros(nb, i64), lh=np.full(len(LRU), -1, i64), oh=np.full(d["procs_max"] + 2, -1, i64),
        z=np.zeros(len(Z), i64), vm=np.zeros(len(VM), i64), pi=pi, pf=pf, rnd=g.random(NR_RND),
        ac=np.zeros((len(AC), na), i64), cm=np.full((na, 32), -1, i64), cf=np.full((na, FREE_LIST_MAX), -1, i64),
        pr=np.zeros((len(PR), d["procs_max"]), i64), acc=np.zeros(len(ACC), np.float64),
        att=np.zeros((len(ATT), 3 * d["test_count"] + 8), i64), tr=np.zeros((len(TR), TRACE_MAX), i64),
        bud=np.zeros((ns, MAX_ORDER), i64), ptf=np.zeros((ns, NR_MT, MAX_ORDER), i64),
        ptb=np.zeros((ns, NR_MT), i64), vms=np.zeros((ns, len(VM)), i64), smp=np.zeros((ns, len(SAMPLE)), i64),
        pbs=np.zeros((ns, nb), i64), tmp=np.zeros(n, i64), stop=stop_flag(),
    )


ARG_ORDER = ("pg", "fl", "nf", "pb", "lh", "oh", "z", "vm", "pi", "pf", "rnd", "ac", "cm", "cf", "pr", "acc", "att",
             "tr", "bud", "ptf", "ptb", "vms", "smp", "pbs", "tmp", "stop")


def simulate(params: CompactionParams, workload: StressHighalloc | None = None, seed=0, engine: str = "jit",
             verbose: bool = True, audit: bool = False) -> Result:
    """Run the stress-highalloc test on kernel ``params``; see the package docstring.

    A zone booted for the same seed and boot's inputs before is not booted again (``boot_cache``).

    ``audit=True`` checks the zone after every tick (pages conserved, buddy
    invariants, the scanners) and stops at the first violation
    (``Result.audit()`` says which): for tests on small zones.
    """
    check_engine(engine)
    if workload is None:
        workload = StressHighalloc()
    a = arrays(params, workload, seed, audit)
    args = [a[k] for k in ARG_ORDER]
    # boot once per boot's inputs: later runs (another kernel, a knob boot does not read) start from a copy
    k = boot_cache.key(a, seed, engine)
    if boot_cache.BOOTED.restore(k, a):
        ticks = KERNELS.run(*args, RUN.TICKS, engine=engine, verbose=verbose)
    else:
        fresh = {n: a[n].copy() for n in boot_cache.UNTOUCHED}
        KERNELS.run(*args, RUN.BOOT, engine=engine, verbose=verbose)
        boot_cache.BOOTED.keep_zone(k, a, fresh)
        ticks = KERNELS.function(engine)(*args, RUN.TICKS)  # one run: the progress bar counts one
    if ticks < 0:
        raise RunStopped("the run was stopped part-way (its thread's stop flag was set)")
    return Result(params=params, workload=workload, seed=seed if not isinstance(seed, np.random.Generator) else None,
                  arrays=a, ticks=int(ticks), derived=derive(params, workload))


__all__ = ["simulate", "pack", "derive", "arrays", "min_free_kbytes", "KERNELS", "ARG_ORDER"]
