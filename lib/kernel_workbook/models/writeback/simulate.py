"""``simulate(params, workload, seed=0, engine="jit")``: one run of one kernel on one machine and load.

Validates both knob sets (a bad knob raises ``WorkbookParameterError``
naming it), derives the zones, watermarks and dirty limits (:func:`derive`),
packs the kernel's parameter arrays with the generated layout (:func:`pack`,
the function ``MODEL.pack`` points to) and the block layer's with the
disk/CFQ model's (:func:`block_arrays`), sets up the page table and draws
every random number from the seed (``engine.rng``) before the kernel runs,
runs the kernel group in the chosen engine and wraps the arrays in a
:class:`~.result.Result`.

The request queue is the disk/CFQ model's block layer (``models.cfq``): its
request list, its elevators (2.6.23's CFQ, 2.5.52-mm's deadline, noop) and
its disk (seek table, rotation, write-back cache) under the knobs of
``params.block``.  A page of the file is 8 sectors at its page-cache index:
the file lies at the start of the disk in page-cache order.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import WorkbookParameterError
from ..cfq import LAYOUT as BLOCK_LAYOUT
from ..cfq.layout import EV_, FIFO, PR_, Q_, R_, RA_, S_ as BS_, SP_, ST_, WC_, WL
from ..cfq.simulate import _seek
from ..engine import KernelGroup, RunStopped, check_engine, rng, stop_flag
from ..layout import width
from .layout import AC, NA, NR_RND, NZ, PAGE_SECTORS, PARAMS, PG, PGF, RQW, S, SMP, VM, ZN, ZONE
from .params import WritebackParams
from .result import Result
from .workload import DMA_MB, WritebackLoad

KERNELS = KernelGroup("kernel_workbook.models.writeback",
                      ("page_alloc_kernel", "blk_kernel", "page_writeback_kernel", "vmscan_kernel", "loop_kernel"),
                      entry="loop_kernel:run", what="writeback model (2.6.23 reclaim and writeback)",
                      shares=("kernel_workbook.models.cfq",))
PAGE_KB = 4
ALLOC_BATCH = 32  # pages the load asks for at a time (its pace is alloc_mb_s)
MILLI = 10 ** 3  # percentages travel to the kernel in thousandths of a percent


def disk(params: WritebackParams):
    """The disk of the run (the cfq model's ``DiskParams`` in ``params.block``)."""
    return params.block.disk


def request_rows(params: WritebackParams) -> int:
    """Rows of the block layer's request table: the list's limit for a batching task (3/2 of
    ``nr_requests``), plus one always free to offer ``make_request()``."""
    return 3 * params.block.nr_requests // 2 + 2


def zone_pages(w: WritebackLoad) -> list[int]:
    """Pages of ZONE_DMA, the low zone and the high zone."""
    return [int(DMA_MB * 256), int(w.lowmem_mb * 256), int(w.highmem_mb * 256)]


def min_free_kbytes(params: WritebackParams, w: WritebackLoad) -> int:
    """2.6.23 ``init_per_zone_pages_min()``: ``int_sqrt(lowmem_kbytes * 16)``, clamped to 128..65536."""
    if params.min_free_kbytes is not None:
        return int(params.min_free_kbytes)
    low = (DMA_MB + w.lowmem_mb + (w.highmem_mb if w.arch == "x86_64" else 0.0)) * 1024
    return int(min(max(math.isqrt(int(low * 16)), 128), 65536))


def watermarks(params: WritebackParams, w: WritebackLoad) -> list[tuple[int, int, int]]:
    """``setup_per_zone_pages_min()``: lowmem zones share pages_min by size; highmem gets
    ``present / 1024`` clamped to ``SWAP_CLUSTER_MAX..128``; low = min * 5/4, high = min * 3/2."""
    sizes = zone_pages(w)
    pages_min = min_free_kbytes(params, w) // PAGE_KB
    highmem = w.arch == "i386"
    lowmem_pages = sum(sizes[:2]) + (0 if highmem else sizes[2])
    out = []
    for z, n in enumerate(sizes):
        if n == 0:
            out.append((0, 0, 0))
            continue
        if highmem and z == ZONE.ZONE_HIGH:
            m = min(max(n // 1024, 32), 128)
        else:
            m = pages_min * n // max(1, lowmem_pages)
        out.append((m, m + m // 4, m + m // 2))
    return out


def derive(params: WritebackParams, w: WritebackLoad, audit: bool = False) -> dict:
    """The sizes, limits and times the kernel reads (the derived slots of the layout)."""
    sizes = zone_pages(w)
    n = sum(sizes)
    total = n  # 2.6.23 get_dirty_limits(): vm_total_pages (the mapping may use highmem; nothing mapped)
    dirty_ratio = params.vm_dirty_ratio
    bg_ratio = params.dirty_background_ratio
    if bg_ratio >= dirty_ratio:
        bg_ratio = dirty_ratio // 2
    ratelimit = min(max(total // (w.nr_cpus * 32), 16), 1024)  # 2.6.23 writeback_set_ratelimit()
    pages_per_s = w.alloc_mb_s * 256.0
    interval_ns = int(round(ALLOC_BATCH / pages_per_s * 1e9)) if pages_per_s > 0 else int(w.duration_s * 2e9) + 1
    refs = w.refs_per_s * interval_ns / 1e9 * (100.0 / w.hot_pct) if w.hot_pct > 0 else 0.0
    end_ns = int(round(w.duration_s * 1e9))
    sample_ns = int(round(w.sample_ms * 1e6))
    max_index = n + int(pages_per_s * w.duration_s) + 2 * ALLOC_BATCH + 16
    return dict(
        nr_pages=n, end_ns=end_ns, sample_ns=sample_ns,
        dirty_thresh=dirty_ratio * total // 100, background_thresh=bg_ratio * total // 100,
        ratelimit_pages=ratelimit, nr_cpus=w.nr_cpus, alloc_batch=ALLOC_BATCH, alloc_interval_ns=interval_ns,
        lowmem_pct_milli=int(round(w.lowmem_pct * MILLI)), write_pct_milli=int(round(w.write_pct * MILLI)),
        hot_pct=int(round(w.hot_pct)), refs_per_batch=int(round(refs)),
        audit=int(audit), nr_samples=end_ns // sample_ns + 2, max_index=max_index, async_queue=NA,
        _sizes=sizes, _watermarks=watermarks(params, w),
    )


def congestion_thresholds(params: WritebackParams) -> tuple[int, int]:
    """``blk_queue_congestion_threshold()`` of the queue: ``(on, off)`` in requests (113 and 103 of 128), as the
    block layer's own kernels compute them from ``nr_requests`` (``models/cfq/blk_core_kernel``)."""
    from ..cfq.simulate import KERNELS as BLOCK_KERNELS

    blk = BLOCK_KERNELS.module("blk_core_kernel", "python")
    P = np.zeros(len(BLOCK_LAYOUT.I), np.int64)
    P[BLOCK_LAYOUT.I.nr_requests] = params.value("nr_requests")
    return int(blk.congestion_on_threshold(P)), int(blk.congestion_off_threshold(P))


def pack(params: WritebackParams, workload: WritebackLoad, audit: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's int and float parameter arrays (what ``simulate`` passes; ``MODEL.pack``)."""
    if not isinstance(params, WritebackParams):
        raise WorkbookParameterError("params", type(params).__name__, "a WritebackParams")
    if not isinstance(workload, WritebackLoad):
        raise WorkbookParameterError("workload", type(workload).__name__, "a WritebackLoad")
    d = {k: v for k, v in derive(params, workload, audit).items() if not k.startswith("_")}
    return PARAMS.pack(params, **d)


def block_arrays(params: WritebackParams, w: WritebackLoad, audit: bool = False) -> dict:
    """The block layer's arrays in the disk/CFQ model's layout: its parameters ``P`` packed from
    ``params.block``, its state ``BS``, one request table of :func:`request_rows`, one CFQ queue per
    task and the async queue they share (``Q`` row ``NA``), one ``PR`` row per task (its request
    batching and its place in the request list's wait queue), and the disk's arrays."""
    b = params.block
    d = b.disk
    d_max = max(d.capacity_sectors, 1)
    need = (derive(params, w)["max_index"] + 1) * PAGE_SECTORS
    if need > d_max:
        raise WorkbookParameterError("highmem_mb", w.highmem_mb, f"a machine whose page cache fits on the disk "
                                                                 f"({d.capacity_gb:.0f} GB)")
    rows = request_rows(params)
    P, _ = BLOCK_LAYOUT.pack(b, jiffy_ns=10**9 // b.HZ, rot_ns=d.rot_ns, sectors_per_track=d.sectors_per_track,
                             if_ps_per_sector=d.if_ps_per_sector, t_max_ns=int(round(w.duration_s * 1e9)),
                             log_cap=0, nproc=NA, nreq=rows, nu=1, audit=int(bool(audit)))
    i64 = np.int64
    SP = np.zeros((d.spindles, len(SP_)), i64)
    SP[:, SP_.busy_until] = -1
    R = np.zeros((rows, len(R_)), i64)
    return dict(P=P, BS=np.zeros(len(BS_), i64), R=R, Q=np.zeros((NA + 1, len(Q_)), i64),
                QR=np.zeros((NA + 1, rows), i64), ST=np.zeros((len(WL), len(ST_)), i64),
                EL=np.zeros((len(FIFO), rows), i64), EV=np.zeros((1, len(EV_)), i64), SP=SP,
                RA=np.zeros((d.spindles, max(1, d.read_segments), len(RA_)), i64),
                WC=np.zeros((d.write_cache_extents, len(WC_)), i64), WW=np.zeros(rows, i64),
                DC=np.zeros(d.ncq_depth + 1, i64), SEEK=_seek(d), PR=np.zeros((NA, len(PR_)), i64))


def _smallest(u: np.ndarray, k: int) -> np.ndarray:
    """Indexes of the ``k`` smallest values of ``u``, in increasing order of index (not of value)."""
    if k <= 0:
        return np.empty(0, np.int64)
    if k >= len(u):
        return np.arange(len(u))
    # marked in a mask and read back in order: the sorted indexes without a sort (a sort of the ~700k indexes
    # of a zone was a fifth of the page table's set-up, which is most of a 2007 run)
    chosen = np.zeros(len(u), bool)
    chosen[np.argpartition(u, k - 1)[:k]] = True
    return np.flatnonzero(chosen)


def arrays(params: WritebackParams, w: WritebackLoad, seed=0, audit: bool = False) -> dict:
    """Every array the kernel runs on, fresh: the page table at the start of the run, the uniforms."""
    params.validate()
    w.validate()
    pi, pf = pack(params, w, audit)
    d = derive(params, w, audit)
    g = rng(seed)
    sizes, wm = d["_sizes"], d["_watermarks"]
    n = d["nr_pages"]
    i64 = np.int64
    pg = np.full((n, len(PG)), -1, i64)
    zs = np.zeros((NZ, len(ZN)), i64)
    start = 0
    zone_of = np.empty(n, i64)
    for z in range(NZ):
        zs[z, ZN.present] = sizes[z]
        zs[z, ZN.start] = start
        zs[z, ZN.pages_min], zs[z, ZN.pages_low], zs[z, ZN.pages_high] = wm[z]
        zone_of[start:start + sizes[z]] = z
        start += sizes[z]
    pg[:, PG.zone] = zone_of
    pg[:, PG.flags] = 0
    pg[:, PG.dirtied_ms] = 0
    # the page cache at the start: file_pct of every zone (balanced aging keeps them alike), faulted from the
    # highest zone down, so the high zone holds the lowest (oldest-dirtied) indexes
    u_file, u_dirty, u_hot, u_age = g.random(n), g.random(n), g.random(n), g.random(n)
    fpfn = np.full(d["max_index"], -1, i64)
    idx = 0
    for z in range(NZ - 1, -1, -1):
        lo, hi = int(zs[z, ZN.start]), int(zs[z, ZN.start] + sizes[z])
        keep = max(0, sizes[z] - wm[z][2] - 1)  # the zone starts just above pages_high
        nfile = min(keep, int(round(sizes[z] * w.file_pct / 100.0)))
        # the nfile pages of smallest uniform: the same set a full argsort would take (the draws are distinct
        # floats), found in linear time -- the sort of every page of the machine was most of a run's cost
        pfns = lo + _smallest(u_file[lo:hi], nfile)
        k = len(pfns)
        pg[pfns, PG.index] = np.arange(idx, idx + k)
        fpfn[idx:idx + k] = pfns
        idx += k
    s = np.zeros(len(S), i64)
    s[S.next_index] = idx
    file_pfns = fpfn[:idx]
    flags = np.full(idx, PGF.PG_file, i64)
    dirty = u_dirty[file_pfns] < w.dirty_pct / 100.0
    hot = (file_pfns % 100) < int(round(w.hot_pct))
    flags[dirty] |= PGF.PG_dirty
    flags[hot] |= PGF.PG_active
    pg[file_pfns, PG.flags] = flags
    expire_ms = params.dirty_expire_centisecs * 10
    pg[file_pfns, PG.dirtied_ms] = -(u_age[file_pfns] * expire_ms).astype(i64) - 1
    ns = d["nr_samples"]
    rows = request_rows(params)
    out = dict(
        pg=pg, lh=np.full(NZ * 2, -1, i64), zs=zs, fstk=np.full(n, -1, i64), fpfn=fpfn,
        rqw=np.zeros((rows, len(RQW)), i64), rfree=np.arange(rows, dtype=i64)[::-1].copy(),
        ac=np.zeros((NA, len(AC)), i64), acp=np.full((NA, 4), -1, i64), s=s, vm=np.zeros(width(VM), i64),
        pi=pi, pf=pf, rnd=g.random(NR_RND), tmp=np.zeros(64, i64),
        smp=np.zeros((ns, width(SMP)), i64), qs=np.zeros((ns, NA * NZ), i64), vms=np.zeros((ns, width(VM)), i64),
    )
    s[S.rfree_n] = rows
    out.update(block_arrays(params, w, audit))
    out["stop"] = stop_flag()
    return out


ARG_ORDER = ("pg", "lh", "zs", "fstk", "fpfn", "rqw", "rfree", "ac", "acp", "s", "vm", "pi", "pf", "rnd", "tmp",
             "smp", "qs", "vms", "P", "BS", "R", "Q", "QR", "ST", "EL", "EV", "PR", "SP", "RA", "WC", "WW", "DC", "SEEK",
             "stop")


def simulate(params: WritebackParams, workload: WritebackLoad | None = None, seed=0, engine: str = "jit",
             verbose: bool = True, audit: bool = False) -> Result:
    """Run ``workload`` on kernel ``params``; see the module docstring.

    ``audit=True`` checks the state after every event (pages conserved per
    zone, the queue within ``nr_requests``, every page under writeback in
    exactly one request, none written twice at once) and stops at the first
    violation (``Result.audit()`` says which): for tests on small machines.
    """
    check_engine(engine)
    if engine == "reference":
        raise WorkbookParameterError("engine", engine, "'jit' or 'python' (the writeback model has no "
                                                       "independent reference implementation)")
    if workload is None:
        workload = WritebackLoad()
    a = arrays(params, workload, seed, audit)
    events = KERNELS.run(*(a[k] for k in ARG_ORDER), engine=engine, verbose=verbose)
    if events < 0:
        raise RunStopped("the run was stopped part-way (its thread's stop flag was set)")
    return Result(params=params, workload=workload, seed=seed if not isinstance(seed, np.random.Generator) else None,
                  arrays=a, events=int(events), derived=derive(params, workload))


__all__ = ["simulate", "pack", "derive", "congestion_thresholds", "arrays", "block_arrays", "disk", "request_rows", "zone_pages", "watermarks",
           "min_free_kbytes", "KERNELS", "ARG_ORDER"]
