"""The page allocator's fair zone policy (mm/page_alloc.c, 3.0 - 3.16) as a seeded simulation.

One node with zones DMA, DMA32 and Normal (sizes as knobs), watermarks from
``min_free_kbytes`` as ``__setup_per_zone_wmarks()`` computes them,
``lowmem_reserve``, per-zone file LRU lists (inactive, active) with each
page's allocation time, dirty and writeback counts; the allocation fast path
of each kernel of the 2014 thread (:data:`VARIANTS`); kswapd woken below the
low or high watermark and reclaiming the oldest pages to high + the balance
gap, at a stated speed; writeback at the device's rate; tiobench's use of
the page cache as the workload (:mod:`kernel_workbook.workloads.pagecache`).

Public API::

    from kernel_workbook.models.fairzone import simulate, variant_params
    from kernel_workbook.workloads.pagecache import tiobench
    r = simulate(variant_params("fairzone"), tiobench(size_fraction=0.8, threads=(4,)), seed=1)
    r.vmstat           # pgalloc_dma32, pgalloc_normal, pgscan_kswapd_normal, pgactivate, ... (kernel names)
    r.df_zones()       # per zone: watermarks, batch, allocations, scans, velocity, age at eviction
    r.df_work()        # the allocator's work per allocation (zonelist entries, watermark checks, resets ...)
    r.df_trace()       # allocation by allocation: zone, NR_ALLOC_BATCH, free pages, resets (for pictures)

Everything random (the order in which threads run, random offsets) is drawn
with ``numpy.random.default_rng(seed)`` here and passed to the kernel;
``engine="reference"`` runs the same loop as plain Python (``_jit.pure``)
and gives identical arrays.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import WorkbookParameterError
from ..workloads.pagecache import PHASE_NAMES, PageCacheWorkload
from ._jit import run_announced
from . import _fairzone_layout as L
from .fairzone_params import (
    COST_TERMS, MACHINES, PAGES_PER_MB, VARIANT_DOC, VARIANTS, AllocatorCosts, FairZoneParams, Machine,
    ZoneSetup, allocator_cost_ns, machine, validate, variant_params, zone_setup,
)

__all__ = [
    "AllocatorCosts", "COST_TERMS", "FairZoneParams", "FairZoneResult", "MACHINES", "Machine", "VARIANTS",
    "VARIANT_DOC", "allocator_cost_ns", "machine", "simulate", "variant_params", "zone_setup",
]

ZONES = L.ZONE_NAMES


def _kernel():
    from . import _fairzone_kernel

    return _fairzone_kernel


def is_compiled() -> bool:
    return bool(_kernel().run.signatures)


@dataclass
class Arrays:
    """Everything the kernel reads and writes (layout: ``_fairzone_layout``)."""

    Z: np.ndarray
    LR: np.ndarray
    ZL: np.ndarray
    S: np.ndarray
    P: np.ndarray
    F: np.ndarray
    PH: np.ndarray
    PR: np.ndarray
    U: np.ndarray
    PZ: np.ndarray
    PFL: np.ndarray
    PPREV: np.ndarray
    PNEXT: np.ndarray
    PT: np.ndarray
    DQ: np.ndarray
    DQT: np.ndarray
    TC: np.ndarray
    TL: np.ndarray
    TR: np.ndarray
    SM: np.ndarray

    def args(self):
        return (self.Z, self.LR, self.ZL, self.S, self.P, self.F, self.PH, self.PR, self.U, self.PZ, self.PFL,
                self.PPREV, self.PNEXT, self.PT, self.DQ, self.DQT, self.TC, self.TL, self.TR, self.SM)

    def copy(self) -> "Arrays":
        return Arrays(**{k: getattr(self, k).copy() for k in self.__dataclass_fields__})


def build_arrays(params: FairZoneParams, workload: PageCacheWorkload, seed: int = 0, trace: int = 0,
                 trace_start: int = 0, sample_ms: float = 1000.0, sample_cap: int = 4000) -> tuple[Arrays, ZoneSetup]:
    """The kernel's input arrays for one run (validates, draws the random numbers)."""
    validate(params)
    if not isinstance(workload, PageCacheWorkload):
        raise WorkbookParameterError("workload", type(workload).__name__,
                                     "a PageCacheWorkload (kernel_workbook.workloads.pagecache)")
    if not (isinstance(trace, int) and trace >= 0):
        raise WorkbookParameterError("trace", trace, "rows >= 0")
    if not sample_ms > 0:
        raise WorkbookParameterError("sample_ms", sample_ms, "ms > 0")
    zs = zone_setup(params)
    m = params.machine
    Z = np.zeros((L.NZ, L.NZF), np.int64)
    Z[:, L.Z_MANAGED] = zs.managed
    Z[:, L.Z_NR_OTHER] = zs.other
    Z[:, L.Z_FREE] = zs.managed - zs.other
    Z[:, L.Z_WMIN] = zs.wmark_min
    Z[:, L.Z_WLOW] = zs.wmark_low
    Z[:, L.Z_WHIGH] = zs.wmark_high
    Z[:, L.Z_GAP] = zs.balance_gap
    Z[:, L.Z_BATCH] = zs.batch if params.ALLOC_FAIR else 0
    Z[:, L.Z_BATCH_RESET] = zs.batch if params.ALLOC_FAIR else 0
    Z[:, L.Z_FAIR_ENABLED] = zs.fair_enabled if params.ZONE_FAIR_DEPLETED else 1
    Z[:, L.Z_DIRTY_BALANCE_RESERVE] = zs.dirty_balance_reserve
    Z[:, L.Z_DIRTY_LIMIT_CACHED] = 0  # a new struct zone field: zero until the first failed check refreshes it
    for c in (L.Z_HEAD_I, L.Z_TAIL_I, L.Z_HEAD_A, L.Z_TAIL_A):
        Z[:, c] = -1
    Z[:, L.Z_FREE_MIN_SEEN] = 1 << 62
    Z[:, L.Z_LAST_RESET_NS] = -1
    S = np.zeros(L.NS, np.int64)
    S[L.S_KS_STATE] = L.KS_SLEEP
    S[L.S_KS_PRIORITY] = 12
    S[L.S_KS_CLASSZONE] = int(zs.zonelist[0])
    S[L.S_NR_THREADS] = workload.max_threads
    P = np.zeros(L.NP, np.int64)
    P[L.P_FAIR] = params.fair_mode
    P[L.P_BATCH_MODE] = ("high-low", "managed>>shift", "custom").index(params.NR_ALLOC_BATCH)
    P[L.P_BATCH_SHIFT] = params.nr_alloc_batch_shift
    P[L.P_BATCH_PAGES] = params.nr_alloc_batch_pages
    P[L.P_RETRY] = 0 if params.remote_spill_pass else 2
    P[L.P_DIRTY] = ("off", "each", "cached").index(params.zone_dirty_ok)
    P[L.P_WAKE_HIGH] = 1 if params.kswapd_wake_at == "high" else 0
    P[L.P_BALANCE_GAP] = 1 if params.kswapd_balance_gap else 0
    P[L.P_KSWAPD_CLASSZONE] = 1 if params.kswapd_stop_with_reserve else 0
    P[L.P_RAISE_PRIORITY] = 1 if params.kswapd_raise_priority else 0
    P[L.P_NAP_NS] = int(params.kswapd_nap_ms) * 1_000_000
    P[L.P_NR_ONLINE_NODES] = params.nr_online_nodes
    P[L.P_SWAP_CLUSTER_MAX] = 32
    P[L.P_DIRTY_RATIO] = params.vm_dirty_ratio
    P[L.P_DIRTY_BG_RATIO] = params.dirty_background_ratio
    P[L.P_DIRTY_EXPIRE_NS] = int(params.dirty_expire_centisecs) * 10_000_000
    P[L.P_WB_INFLIGHT] = max(1, int(params.writeback_inflight_mb * PAGES_PER_MB))
    P[L.P_TRACE_CAP] = trace
    P[L.P_TRACE_START] = trace_start
    P[L.P_SAMPLE_NS] = max(1, int(sample_ms * 1e6))
    P[L.P_SAMPLE_CAP] = sample_cap
    P[L.P_FAIR_ZERO_TEST] = 1 if params.fair_depleted_test == "==0" else 0
    P[L.P_ZONE_SWITCH_PER_THREAD] = 1
    P[L.P_KSWAPD_STAYS_AWAKE] = 1 if params.kswapd_stays_awake else 0
    F = np.zeros(L.NF, np.float64)
    F[L.F_KSWAPD_PAGES_PER_NS] = m.kswapd_pages_per_ms / 1e6
    F[L.F_WB_PAGES_PER_NS] = m.writeback_mb_s * PAGES_PER_MB / 1e9
    F[L.F_DIRECT_NS_PER_PAGE] = m.direct_reclaim_us_per_page * 1000.0
    rng = np.random.default_rng(seed)
    U = rng.random(max(1, workload.random_draws()))
    PH = np.zeros((len(workload.phases), L.NPH), np.int64)
    u = 0
    held = 0  # pages the OP_OTHER phases have added so far: each draw is a level around other_mb, not a walk
    for i, ph in enumerate(workload.phases):
        ops = ph.ops
        if ph.op == L.OP_OTHER:
            level = int(round(rng.normal(0.0, ph.ops)))
            level = max(level, -int(zs.other.sum()))
            ops = level - held
            held = level
        PH[i] = [ph.op, ph.threads, ph.file0, ph.file_pages, ops, ph.chunk, ph.dt_miss_ns, ph.dt_hit_ns,
                 ph.dt_write_ns, u, ph.kind, ph.run]
        if ph.op in (L.OP_SEQ_WRITE, L.OP_SEQ_READ):
            u += ph.threads * (-(-ph.file_pages // max(ph.chunk, 1))) + 1
        elif ph.op in (L.OP_RAND_WRITE, L.OP_RAND_READ):
            u += 2 * ph.threads * ph.ops
    npages = workload.max_pages
    maxt = max(workload.max_threads, 1)
    arrays = Arrays(
        Z=Z, LR=zs.lowmem_reserve.copy(), ZL=zs.zonelist.copy(), S=S, P=P, F=F, PH=PH,
        PR=np.zeros((len(workload.phases), L.NPR), np.int64), U=U,
        PZ=np.full(npages, -1, np.int8), PFL=np.zeros(npages, np.int8),
        PPREV=np.full(npages, -1, np.int32), PNEXT=np.full(npages, -1, np.int32), PT=np.zeros(npages, np.int64),
        DQ=np.zeros(npages + 1, np.int32), DQT=np.zeros(npages + 1, np.int64),
        TC=np.zeros(2 * maxt, np.int64), TL=np.full(maxt, -1, np.int64),
        TR=np.zeros((max(trace, 1), L.NT), np.int64), SM=np.zeros((max(sample_cap, 1), L.NSM), np.float64),
    )
    return arrays, zs


def _run_compiled(a: Arrays, verbose: bool = True) -> None:
    run_announced(_kernel().run, a.args(), "fair-zone model, allocator loop", verbose)


def run_reference(a: Arrays) -> None:
    """The same loop as plain Python (slow: small cases, tests and the benchmark's baseline)."""
    from ._jit import pure

    pure("_fairzone_kernel").run(*a.args())


def simulate(params: FairZoneParams, workload: PageCacheWorkload, seed: int = 0, trace: int = 0,
             trace_start: int = 0, sample_ms: float = 1000.0, sample_cap: int = 4000, engine: str = "jit",
             verbose: bool = True) -> "FairZoneResult":
    """Run ``workload`` on the node and allocator of ``params``; deterministic for a seed.

    Parameters
    ----------
    params : FairZoneParams
        The kernel and the machine (:func:`variant_params`).
    workload : PageCacheWorkload
        :func:`kernel_workbook.workloads.pagecache.tiobench` and friends.
    seed : int
        Seeds ``numpy.random.default_rng`` for the thread interleaving and random offsets.
    trace : int
        Record this many allocations (zone, NR_ALLOC_BATCH, free pages, resets), from allocation ``trace_start``.
    sample_ms, sample_cap : float, int
        Zone samples (free, batch, LRU sizes, dirty, allocations, scans) every ``sample_ms`` of simulated time.
    engine : str
        ``"jit"`` (Numba) or ``"reference"`` (the same source as plain Python).
    """
    if engine not in ("jit", "reference"):
        raise WorkbookParameterError("engine", engine, "'jit' or 'reference'")
    a, zs = build_arrays(params, workload, seed, trace, trace_start, sample_ms, sample_cap)
    t0 = time.perf_counter()
    if engine == "jit":
        _run_compiled(a, verbose)
    else:
        run_reference(a)
    return FairZoneResult(params=params, workload=workload, seed=int(seed), arrays=a, setup=zs,
                          wall_s=time.perf_counter() - t0)


# --------------------------------------------------------------------------- results

@dataclass
class FairZoneResult:
    """One run.  Counters are in the kernel's units (pages, events) and carry its names."""

    params: FairZoneParams
    workload: PageCacheWorkload
    seed: int
    arrays: Arrays
    setup: ZoneSetup
    wall_s: float = 0.0
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def elapsed_s(self) -> float:
        return float(self.arrays.S[L.S_NOW]) / 1e9

    @property
    def counters(self) -> dict:
        """Every global counter of ``_fairzone_layout.COUNTER_NAMES``, plus ``oom`` and the stall times."""
        S = self.arrays.S
        d = {name: int(S[L.S_C0 + i]) for i, name in enumerate(L.COUNTER_NAMES)}
        d["oom"] = int(S[L.S_OOM])
        d["direct_reclaim_stall_ns"] = int(S[L.S_DIRECT_STALL_NS])
        d["dirty_throttle_ns"] = int(S[L.S_SEQ_THROTTLE_NS])
        return d

    @property
    def vmstat(self) -> dict:
        """/proc/vmstat as the kernel would print it for this run (per-zone counters named per zone)."""
        Z = self.arrays.Z
        c = self.counters
        d = {}
        for z, zn in enumerate(ZONES):
            n = zn.lower()
            d[f"pgalloc_{n}"] = int(Z[z, L.Z_PGALLOC])
        d["pgalloc_movable"] = 0
        for z, zn in enumerate(ZONES):
            n = zn.lower()
            d[f"pgscan_kswapd_{n}"] = int(Z[z, L.Z_PGSCAN_KSWAPD])
            d[f"pgsteal_kswapd_{n}"] = int(Z[z, L.Z_PGSTEAL_KSWAPD])
            d[f"pgscan_direct_{n}"] = int(Z[z, L.Z_PGSCAN_DIRECT])
            d[f"pgsteal_direct_{n}"] = int(Z[z, L.Z_PGSTEAL_DIRECT])
        for k in ("pgactivate", "pgdeactivate", "pgrefill", "pageoutrun", "allocstall",
                  "kswapd_low_wmark_hit_quickly", "kswapd_high_wmark_hit_quickly", "nr_dirtied", "nr_written"):
            d[k] = c[k]
        d["nr_alloc_batch"] = int(Z[:, L.Z_BATCH].sum())
        d["nr_dirty"] = int(self.arrays.S[L.S_NR_DIRTY])
        d["nr_writeback"] = int(self.arrays.S[L.S_NR_WRITEBACK])
        d["nr_free_pages"] = int(Z[:, L.Z_FREE].sum())
        d["nr_inactive_file"] = int(Z[:, L.Z_NR_INACTIVE].sum())
        d["nr_active_file"] = int(Z[:, L.Z_NR_ACTIVE].sum())
        return d

    def spread(self) -> dict:
        """Allocations per zone and as percentages (the thread's "DMA32 allocs / Normal allocs")."""
        v = self.vmstat
        tot = v["pgalloc_dma"] + v["pgalloc_dma32"] + v["pgalloc_normal"] + v["pgalloc_movable"]
        out = {"DMA32 allocs": v["pgalloc_dma32"], "Normal allocs": v["pgalloc_normal"],
               "Movable allocs": v["pgalloc_movable"]}
        for k in list(out):
            out[k + " %"] = 100.0 * out[k] / tot if tot else float("nan")
        return out

    def velocity(self) -> dict:
        """mmtests' "Zone X velocity": pages scanned (kswapd + direct) per second of the run, by zone."""
        Z = self.arrays.Z
        t = self.elapsed_s
        return {f"Zone {zn.lower()} velocity": (float(Z[z, L.Z_PGSCAN_KSWAPD] + Z[z, L.Z_PGSCAN_DIRECT]) / t
                                                if t > 0 else float("nan"))
                for z, zn in enumerate(ZONES)}

    def df_zones(self) -> pd.DataFrame:
        """One row per zone.

        Columns: ``zone, managed, min, low, high, balance_gap,
        lowmem_reserve_normal, nr_alloc_batch_reset, fair_enabled, free, nr_inactive_file,
        nr_active_file, nr_dirty, nr_writeback, pgalloc, pgscan, pgsteal, velocity,
        pgactivate, batch_resets, evicted, age_at_eviction_s, free_min_slack, fastpath_below_min``.
        """
        Z = self.arrays.Z
        zs = self.setup
        t = self.elapsed_s
        rows = []
        for z, zn in enumerate(ZONES):
            scan = int(Z[z, L.Z_PGSCAN_KSWAPD] + Z[z, L.Z_PGSCAN_DIRECT])
            ev = int(Z[z, L.Z_EVICT_N])
            rows.append({
                "zone": zn, "managed": int(zs.managed[z]), "min": int(zs.wmark_min[z]), "low": int(zs.wmark_low[z]),
                "high": int(zs.wmark_high[z]), "balance_gap": int(zs.balance_gap[z]),
                "lowmem_reserve_normal": int(zs.lowmem_reserve[z, L.ZONE_NORMAL]),
                "nr_alloc_batch_reset": int(Z[z, L.Z_BATCH_RESET]), "fair_enabled": int(Z[z, L.Z_FAIR_ENABLED]),
                "free": int(Z[z, L.Z_FREE]), "nr_inactive_file": int(Z[z, L.Z_NR_INACTIVE]),
                "nr_active_file": int(Z[z, L.Z_NR_ACTIVE]), "nr_dirty": int(Z[z, L.Z_NR_DIRTY]),
                "nr_writeback": int(Z[z, L.Z_NR_WRITEBACK]), "pgalloc": int(Z[z, L.Z_PGALLOC]), "pgscan": scan,
                "pgsteal": int(Z[z, L.Z_PGSTEAL_KSWAPD] + Z[z, L.Z_PGSTEAL_DIRECT]),
                "velocity": scan / t if t > 0 else float("nan"), "pgactivate": int(Z[z, L.Z_PGACTIVATE]),
                "batch_resets": int(Z[z, L.Z_NR_RESETS]), "evicted": ev,
                "age_at_eviction_s": (float(Z[z, L.Z_EVICT_AGE_US]) / ev / 1e6) if ev else float("nan"),
                "free_min_slack": int(Z[z, L.Z_FREE_MIN_SEEN]) if Z[z, L.Z_FREE_MIN_SEEN] < (1 << 61) else None,
                "fastpath_below_min": int(Z[z, L.Z_FAST_BELOW_MIN]),
            })
        return pd.DataFrame(rows)

    def df_work(self) -> pd.DataFrame:
        """The allocator's work: ``counter, total, per_allocation`` (the fast-path cost patch 3/4 removes)."""
        c = self.counters
        n = max(c["pgalloc"], 1)
        names = ["get_page_from_freelist", "zonelist_scanned", "watermark_checks", "batch_reads",
                 "depleted_flag_reads", "batch_updates", "batch_resets", "batch_reset_zones", "fair_pass_fails",
                 "zonelist_rescans", "dirty_checks", "dirty_limit_calcs", "dirty_fails", "slowpath",
                 "kswapd_wakeups", "allocstall", "zone_switches"]
        return pd.DataFrame([{"counter": k, "total": c[k], "per_allocation": c[k] / n} for k in names])

    def allocator_cost_ns(self, costs: AllocatorCosts | None = None, exclude: tuple = ()) -> float:
        """CPU per allocated page (ns) that the counted work costs under ``costs``."""
        return allocator_cost_ns(self.counters, costs or AllocatorCosts(), exclude=exclude)

    def df_phases(self) -> pd.DataFrame:
        """One row per workload phase.

        Columns: ``run, threads, phase, t0_s, t1_s, seconds, pages, MB_s, hits, misses,
        hit_pct, allocs, allocs_dma32, allocs_normal, pgscan``.  ``MB_s`` is the pages the
        phase touched over its duration (tiobench's figure for the sequential phases).
        """
        a = self.arrays
        rows = []
        for i, ph in enumerate(self.workload.phases):
            if ph.op == L.OP_DELETE:
                continue
            t0, t1 = a.PR[i, L.PR_T0] / 1e9, a.PR[i, L.PR_T1] / 1e9
            h, m = int(a.PR[i, L.PR_HITS]), int(a.PR[i, L.PR_MISSES])
            pages = h + m
            rows.append({"run": ph.run, "threads": ph.threads, "phase": PHASE_NAMES.get(ph.kind, "other"),
                         "t0_s": t0, "t1_s": t1, "seconds": t1 - t0, "pages": pages,
                         "MB_s": (pages / PAGES_PER_MB) / (t1 - t0) if t1 > t0 else float("nan"),
                         "hits": h, "misses": m, "hit_pct": 100.0 * h / pages if pages else float("nan"),
                         "allocs": int(a.PR[i, L.PR_ALLOCS]), "allocs_dma32": int(a.PR[i, L.PR_ALLOC_DMA32]),
                         "allocs_normal": int(a.PR[i, L.PR_ALLOC_NORMAL]), "pgscan": int(a.PR[i, L.PR_SCAN])})
        return pd.DataFrame(rows)

    def phase_counters(self, phase: str = "SeqRead", threads: int | None = None) -> dict:
        """The counters of :data:`_fairzone_layout.COUNTER_NAMES`, summed over the phases named ``phase``
        (``SeqWrite``, ``RandWrite``, ``SeqRead``, ``RandRead``), optionally of one thread count."""
        a = self.arrays
        tot = np.zeros(L.NC, np.int64)
        for i, ph in enumerate(self.workload.phases):
            if PHASE_NAMES.get(ph.kind) == phase and (threads is None or ph.threads == threads):
                tot += a.PR[i, L.PR_C0:L.PR_C0 + L.NC]
        return {name: int(tot[i]) for i, name in enumerate(L.COUNTER_NAMES)}

    def df_trace(self) -> pd.DataFrame:
        """The recorded allocations.

        Columns: ``t_ms, zone, nr_alloc_batch_dma32, nr_alloc_batch_normal, free_dma32, free_normal,
        reset, path, depleted_dma32, depleted_normal``; ``path`` is ``fast``, ``retry`` (a rescan after
        a failed fair pass), ``slow`` (the slow path) or ``direct`` (after direct reclaim).
        """
        n = int(self.arrays.S[L.S_TRACE_N])
        T = self.arrays.TR[:n]
        paths = np.array(["fast", "retry", "slow", "direct"])
        return pd.DataFrame({
            "t_ms": T[:, L.T_NS] / 1e6, "zone": np.array(ZONES)[T[:, L.T_ZONE]],
            "nr_alloc_batch_dma32": T[:, L.T_BATCH_DMA32], "nr_alloc_batch_normal": T[:, L.T_BATCH_NORMAL],
            "free_dma32": T[:, L.T_FREE_DMA32], "free_normal": T[:, L.T_FREE_NORMAL],
            "reset": T[:, L.T_RESET].astype(bool), "path": paths[T[:, L.T_PATH]],
            "depleted_dma32": (T[:, L.T_DEPLETED] & 1).astype(bool),
            "depleted_normal": (T[:, L.T_DEPLETED] & 2).astype(bool),
        })

    def df_samples(self) -> pd.DataFrame:
        """Zone samples in long form: ``t_s, zone, free, nr_alloc_batch, nr_inactive_file, nr_active_file,
        nr_dirty, pgalloc, pgscan, other, managed`` (one row per sample and zone)."""
        n = int(self.arrays.S[L.S_SAMPLE_N])
        SM = self.arrays.SM[:n]
        Z = self.arrays.Z
        frames = []
        for z, zn in enumerate(ZONES):
            frames.append(pd.DataFrame({
                "t_s": SM[:, L.SM_NS] / 1e9, "zone": zn, "free": SM[:, L.SM_FREE + z],
                "nr_alloc_batch": SM[:, L.SM_BATCH + z], "nr_inactive_file": SM[:, L.SM_INACTIVE + z],
                "nr_active_file": SM[:, L.SM_ACTIVE + z], "nr_dirty": SM[:, L.SM_DIRTY + z],
                "pgalloc": SM[:, L.SM_PGALLOC + z], "pgscan": SM[:, L.SM_PGSCAN + z],
                "other": float(Z[z, L.Z_NR_OTHER]), "managed": float(Z[z, L.Z_MANAGED])}))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def caption(self) -> str:
        p = self.params
        zs = self.setup
        mb = [m / PAGES_PER_MB for m in zs.managed]
        batch = ("high-low" if p.NR_ALLOC_BATCH == "high-low" else
                 f"managed>>{p.nr_alloc_batch_shift}" if p.NR_ALLOC_BATCH == "managed>>shift"
                 else f"{p.nr_alloc_batch_pages} pages")
        return (f"{p.name}: ALLOC_FAIR={int(p.ALLOC_FAIR)}, ZONE_FAIR_DEPLETED={int(p.ZONE_FAIR_DEPLETED)}, "
                f"NR_ALLOC_BATCH={batch}, zone_dirty_ok={p.zone_dirty_ok}, kswapd wakes below {p.kswapd_wake_at}; "
                f"{p.machine.name}: DMA {mb[0]:.0f} MB, DMA32 {mb[1]:.0f} MB, Normal {mb[2]:.0f} MB, "
                f"min_free_kbytes={zs.min_free_kbytes}; {self.workload.description}; seed {self.seed}")


def check_conservation(result: FairZoneResult) -> pd.DataFrame:
    """free + file LRU + other = managed, for every sample and zone (``ok`` column)."""
    s = result.df_samples()
    s["ok"] = (s["free"] + s["nr_inactive_file"] + s["nr_active_file"] + s["other"]) == s["managed"]
    return s
