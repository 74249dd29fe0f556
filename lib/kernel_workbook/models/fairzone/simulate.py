"""Run the fair-zone model: validate, lay out the node, draw the random numbers, run the kernel, wrap.

``simulate(params, workload, seed)`` is the public entry; :func:`pack` is
the very function it fills the kernel's parameter arrays with (the model's
``MODEL.pack``, which the generic knob-packing test checks).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from ...errors import WorkbookParameterError
from ..engine import KernelGroup, check_engine, rng
from .layout import KS, NPH, NPR, NS, NSM, NT, NZ, NZF, OP, PARAMS, ST, ZF
from .params import RATELIMIT_PAGES, SWAP_CLUSTER_MAX, FairZoneParams, units_from_pages, validate
from .result import FairZoneResult
from .setup import ZoneSetup, in_pages, in_units, zone_setup
from .workload import PageCacheWorkload

KERNEL = KernelGroup("kernel_workbook.models.fairzone", ("allocator_kernel",), "allocator_kernel:run",
                     what="fair-zone model, allocator loop")


@dataclass
class Arrays:
    """Everything the kernel reads and writes (columns named in :mod:`.layout`)."""

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
    KQ: np.ndarray
    TC: np.ndarray
    TL: np.ndarray
    TR: np.ndarray
    SM: np.ndarray

    def args(self):
        return (self.Z, self.LR, self.ZL, self.S, self.P, self.F, self.PH, self.PR, self.U, self.PZ, self.PFL,
                self.PPREV, self.PNEXT, self.PT, self.DQ, self.DQT, self.KQ, self.TC, self.TL, self.TR, self.SM)

    def copy(self) -> "Arrays":
        return Arrays(**{k: getattr(self, k).copy() for k in self.__dataclass_fields__})


def cluster_units(pages: int, u: int) -> int:
    """One of the kernel's fixed batches of ``pages`` (SWAP_CLUSTER_MAX, the dirty ratelimit) in units: to the
    nearest unit, at least one (a batch of nothing would stop reclaim or check the dirty limit never)."""
    return max(1, units_from_pages(pages, u))


def pack(params: FairZoneParams, workload: PageCacheWorkload | None = None, trace: int = 0, trace_start: int = 0,
         sample_ms: float = 1000.0, sample_cap: int = 4000) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's int and float parameter arrays: every knob in its declared slot and units.

    ``trace_start`` counts allocations (pages); the kernel counts unit allocations, so it gets the unit that
    holds that page.
    """
    u = params.pages_per_unit
    return PARAMS.pack(params, swap_cluster_max=cluster_units(SWAP_CLUSTER_MAX, u),
                       dirty_ratelimit=cluster_units(RATELIMIT_PAGES, u), trace_cap=trace,
                       trace_start=trace_start // u, sample_ns=max(1, int(sample_ms * 1e6)), sample_cap=sample_cap)


def workload_in_units(workload: PageCacheWorkload, u: int) -> PageCacheWorkload:
    """The workload at ``u`` pages per unit (the generators speak pages; the kernel's arrays hold units).

    * file sizes, first ids and the read-ahead chunk round to the nearest unit (at least one unit a file and a
      chunk): tiobench's files and its 32-page window are whole units at any U dividing them;
    * random 4 KiB operations: ``round(ops / U)`` unit accesses per thread, each costing U operations' time,
      so that the pages allocated and the hit rate expected are those of ``ops`` page accesses;
    * time per page becomes time per unit (U x); an idle phase's duration stays ns;
    * an ``other`` phase's ``ops`` (a standard deviation in pages) stays in pages: its level is drawn in
      pages, from the same random numbers as at U = 1, and converted after (:func:`_phases`).

    ``u = 1`` returns the workload itself.
    """
    if u == 1:
        return workload
    out = []
    for ph in workload.phases:
        ch = dict(file_pages=units_from_pages(ph.file_pages, u) if ph.file_pages else 0,
                  file0=units_from_pages(ph.file0, u), chunk=max(1, units_from_pages(ph.chunk, u)),
                  dt_miss_ns=ph.dt_miss_ns * u, dt_hit_ns=ph.dt_hit_ns * u, dt_write_ns=ph.dt_write_ns * u)
        if ph.file_pages:
            ch["file_pages"] = max(1, ch["file_pages"])
        if ph.op in (OP.rand_write, OP.rand_read):
            ch["ops"] = units_from_pages(ph.ops, u)
        out.append(replace(ph, **ch))
    return replace(workload, phases=tuple(out))


def _zones(zs: ZoneSetup, params: FairZoneParams) -> np.ndarray:
    Z = np.zeros((NZ, NZF), np.int64)
    Z[:, ZF.managed] = zs.managed
    Z[:, ZF.nr_other] = zs.other
    Z[:, ZF.free] = zs.managed - zs.other
    Z[:, ZF.wmin] = zs.wmark_min
    Z[:, ZF.wlow] = zs.wmark_low
    Z[:, ZF.whigh] = zs.wmark_high
    Z[:, ZF.gap] = zs.balance_gap
    Z[:, ZF.batch] = zs.batch if params.ALLOC_FAIR else 0
    Z[:, ZF.batch_reset] = zs.batch if params.ALLOC_FAIR else 0
    Z[:, ZF.fair_enabled] = zs.fair_enabled if params.ZONE_FAIR_DEPLETED else 1
    Z[:, ZF.dirty_balance_reserve] = zs.dirty_balance_reserve
    Z[:, ZF.dirty_limit_cached] = 0  # a new struct zone field: zero until the first failed check refreshes it
    for c in (ZF.head_i, ZF.tail_i, ZF.head_a, ZF.tail_a):
        Z[:, c] = -1
    Z[:, ZF.free_min_seen] = 1 << 62
    Z[:, ZF.last_reset_ns] = -1
    return Z


def _phases(workload: PageCacheWorkload, zs: ZoneSetup, g: np.random.Generator, upp: int = 1) -> np.ndarray:
    """The phase table (``workload`` in units, ``zs`` in pages); an OP.other phase's size is drawn here as a
    level around other_mb, not a walk: in pages, then converted to units (``upp`` pages per unit)."""
    PH = np.zeros((len(workload.phases), NPH), np.int64)
    u = 0
    held = 0  # units the OP.other phases have added so far
    for i, ph in enumerate(workload.phases):
        ops = ph.ops
        if ph.op == OP.other:
            level = int(round(g.normal(0.0, ph.ops)))
            level = units_from_pages(max(level, -int(zs.other.sum())), upp)
            ops = level - held
            held = level
        PH[i] = [ph.op, ph.threads, ph.file0, ph.file_pages, ops, ph.chunk, ph.dt_miss_ns, ph.dt_hit_ns,
                 ph.dt_write_ns, u, ph.kind, ph.run]
        if ph.op in (OP.seq_write, OP.seq_read):
            u += ph.threads * (-(-ph.file_pages // max(ph.chunk, 1))) + 1
        elif ph.op in (OP.rand_write, OP.rand_read):
            u += 2 * ph.threads * ph.ops
    return PH


def build_arrays(params: FairZoneParams, workload: PageCacheWorkload, seed=0, trace: int = 0,
                 trace_start: int = 0, sample_ms: float = 1000.0, sample_cap: int = 4000) -> tuple[Arrays, ZoneSetup]:
    """The kernel's input arrays for one run (validates, draws the random numbers), and the zones in units."""
    validate(params)
    if not isinstance(workload, PageCacheWorkload):
        raise WorkbookParameterError("workload", type(workload).__name__,
                                     "a PageCacheWorkload (kernel_workbook.heuristics.fairzone.pagecache)")
    if not (isinstance(trace, int) and trace >= 0):
        raise WorkbookParameterError("trace", trace, "rows >= 0")
    if not sample_ms > 0:
        raise WorkbookParameterError("sample_ms", sample_ms, "ms > 0")
    upp = params.pages_per_unit
    zs_pages = zone_setup(params)  # the kernel's formulas, in pages
    zs = in_units(zs_pages, upp)
    workload = workload_in_units(workload, upp)
    S = np.zeros(NS, np.int64)
    S[ST.ks_state] = KS.sleep
    S[ST.ks_priority] = 12
    S[ST.ks_classzone] = int(zs.zonelist[0])
    S[ST.prev_zone] = -1
    S[ST.nr_threads] = workload.max_threads
    P, F = pack(params, workload, trace, trace_start, sample_ms, sample_cap)
    g = rng(seed)
    U = g.random(max(1, workload.random_draws()))
    PH = _phases(workload, zs_pages, g, upp)
    npages = workload.max_pages
    maxt = max(workload.max_threads, 1)
    arrays = Arrays(
        Z=_zones(zs, params), LR=zs.lowmem_reserve.copy(), ZL=zs.zonelist.copy(), S=S, P=P, F=F, PH=PH,
        PR=np.zeros((len(workload.phases), NPR), np.int64), U=U,
        PZ=np.full(npages, -1, np.int8), PFL=np.zeros(npages, np.int8),
        PPREV=np.full(npages, -1, np.int32), PNEXT=np.full(npages, -1, np.int32), PT=np.zeros(npages, np.int64),
        DQ=np.zeros(npages + 1, np.int32), DQT=np.zeros(npages + 1, np.int64), KQ=np.zeros(npages + 1, np.int32),
        TC=np.zeros(2 * maxt, np.int64), TL=np.full(maxt, -1, np.int64),
        TR=np.zeros((max(trace, 1), NT), np.int64), SM=np.zeros((max(sample_cap, 1), NSM), np.float64),
    )
    return arrays, zs


def is_compiled() -> bool:
    return KERNEL.is_compiled()


def simulate(params: FairZoneParams, workload: PageCacheWorkload, seed=0, trace: int = 0,
             trace_start: int = 0, sample_ms: float = 1000.0, sample_cap: int = 4000, engine: str = "jit",
             verbose: bool = True) -> FairZoneResult:
    """Run ``workload`` on the node and allocator of ``params``; deterministic for a seed.

    At ``params.pages_per_unit`` U > 1 the kernel simulates units of U pages (docs/models/fairzone.md,
    "Resolution: pages per unit"); the result reports pages either way.

    Parameters
    ----------
    params : FairZoneParams
        The kernel and the machine (:func:`variant_params`).
    workload : PageCacheWorkload
        :func:`kernel_workbook.heuristics.fairzone.pagecache.tiobench` and friends.
    seed : int or numpy.random.Generator
        The thread interleaving and random offsets are drawn from it.
    trace : int
        Record this many allocations (zone, NR_ALLOC_BATCH, free pages, resets), from allocation ``trace_start``
        (a page count); at ``params.pages_per_unit`` U > 1 a row is one allocation of U pages.
    sample_ms, sample_cap : float, int
        Zone samples (free, batch, LRU sizes, dirty, allocations, scans) every ``sample_ms`` of simulated time.
    engine : str
        ``"jit"`` (Numba) or ``"python"`` (the same source as plain Python; identical arrays).
    """
    check_engine(engine)
    a, zs = build_arrays(params, workload, seed, trace, trace_start, sample_ms, sample_cap)
    t0 = time.perf_counter()
    KERNEL.run(*a.args(), engine=engine, verbose=verbose)
    return FairZoneResult(params=params, workload=workload, seed=seed if isinstance(seed, int) else -1, arrays=a,
                          setup=in_pages(zs, params.pages_per_unit), wall_s=time.perf_counter() - t0)
