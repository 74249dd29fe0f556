"""Run the disk/CFQ model: validate, draw the random numbers, pack the arrays, run the event loop, wrap.

``simulate(params, workload, seed=0, engine="jit")`` is deterministic for a
seed: every random number (think-time jitter, random offsets, page-cache
hits, small shifts of where each file starts) is drawn here from
``engine.rng(seed)`` before the loop runs; the loop draws nothing.  The
knobs reach the loop through :func:`pack` only -- the function the model's
``ModelSpec`` names and ``tests/test_knob_packing.py`` checks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields

import numpy as np

from ...errors import WorkbookParameterError
from ..engine import KernelGroup, check_engine, rng
from .analytic import seek_table_ns
from .layout import FI_, LAYOUT, PR_, Q_, R_, S_, SP_, ST_, WC_, EV_, FIFO, RA_, WL
from .params import DiskParams, IOParams
from .result import Result
from .workload import IOWorkload

NU = 4096  # uniforms per process (used cyclically)

KERNELS = KernelGroup("kernel_workbook.models.cfq",
                      modules=("elevator_kernel", "cfq_kernel", "disk_kernel", "blk_core_kernel", "event_loop"),
                      entry="event_loop:run", what="disk/CFQ model, event loop")
"""The kernel source files of the model and their entry (``engine`` runs them compiled or as Python)."""


@dataclass
class Arrays:
    """The kernel's arrays for one run (their columns: ``layout``)."""

    P: np.ndarray
    S: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    QR: np.ndarray
    ST: np.ndarray
    EL: np.ndarray
    EV: np.ndarray
    SP: np.ndarray
    RA: np.ndarray
    WC: np.ndarray
    WW: np.ndarray
    DC: np.ndarray
    SEEK: np.ndarray
    PR: np.ndarray
    FI: np.ndarray
    U: np.ndarray

    def args(self) -> tuple:
        return tuple(getattr(self, f.name) for f in fields(self))

    def copy(self) -> "Arrays":
        """Fresh copies of every array but the (read-only) seek table."""
        return Arrays(**{f.name: (getattr(self, f.name) if f.name == "SEEK" else getattr(self, f.name).copy())
                         for f in fields(self)})


# --------------------------------------------------------------------------- parameters -> P

def _per_process_depth(workload: IOWorkload) -> list[int]:
    # requests a process can have in flight: its files' depths, or an aio-stress thread's io units
    return [pr.iocb_pool if pr.iocb_pool > 0 else sum(s.depth for s in pr.streams) for pr in workload.processes]


def pack(params: IOParams, workload: IOWorkload, log_events: int = 0, audit: bool = False) -> tuple:
    """The int64 parameter array ``P`` (and the unused float array) of a run, in the kernel's units.

    Every knob goes through its declaration (:data:`layout.LAYOUT`); the
    derived slots are the sizes of the workload and the disk's geometry.
    """
    d = params.disk
    return LAYOUT.pack(
        params, jiffy_ns=10**9 // params.HZ, rot_ns=d.rot_ns, sectors_per_track=d.sectors_per_track,
        if_ps_per_sector=d.if_ps_per_sector, t_max_ns=int(workload.t_max_s * 1e9), log_cap=int(log_events),
        nproc=len(workload.processes), nreq=max(1, workload.total_requests), nu=NU, audit=int(bool(audit)))


# --------------------------------------------------------------------------- the workload -> PR, FI

_SEEK_CACHE: dict = {}


def _seek(d: DiskParams) -> np.ndarray:
    key = (d.cylinders, d.seek_track_ms, d.seek_avg_ms, d.seek_full_ms)
    t = _SEEK_CACHE.get(key)
    if t is None:
        if len(_SEEK_CACHE) > 16:
            _SEEK_CACHE.clear()
        t = _SEEK_CACHE[key] = seek_table_ns(d)
    return t


def _turn_tables(streams: list, g: np.random.Generator) -> list:
    """For each file whose turns are drawn, how far (sectors) each of its extents lies from its regular place.

    Files taking turns on the same region (same first round, stride and turn length) share one random order
    per round, a permutation, so no two of them land in one turn; other files get ``None``.
    """
    tables: list = [None] * len(streams)
    groups: dict = {}
    for f, s in enumerate(streams):
        if s.draw_turns:
            key = (s.start_sector - s.place * s.window_sectors, s.extent_stride_sectors, s.window_sectors)
            groups.setdefault(key, []).append(f)
    for (_, stride, win), files in groups.items():
        n = stride // win
        rounds = max(-(-streams[f].length_sectors // streams[f].extent_sectors) for f in files)
        order = np.argsort(g.random((rounds, n)), axis=1)  # order[k, t]: the turn of place t in round k
        for f in files:
            t = streams[f].place
            tables[f] = (order[:, t] - t) * win
    return tables


def _processes(workload: IOWorkload, disk: DiskParams, g: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``PR`` and ``FI`` of the workload; each file's start is shifted by a draw of ``g`` (and the order of
    files taking turns drawn from it, :func:`_turn_tables`)."""
    procs = workload.processes
    nfile = sum(len(pr.streams) for pr in procs)
    jitter = g.random(nfile)
    tables = _turn_tables([s for pr in procs for s in pr.streams], g)
    ntab = max([len(t) for t in tables if t is not None] + [0])
    FI = np.zeros((nfile, len(FI_) + ntab), dtype=np.int64)
    PR = np.zeros((len(procs), len(PR_)), dtype=np.int64)
    capacity = disk.capacity_sectors
    f = 0
    for i, pr in enumerate(procs):
        PR[i, PR_.f0] = f
        for s in pr.streams:
            shift = (int(jitter[f] * (s.start_jitter_sectors + 1)) // 8) * 8 if s.start_jitter_sectors else 0
            if s.extent_sectors > 0:  # whole rounds of extents: files taking turns keep their own places
                shift = (shift // s.extent_stride_sectors) * s.extent_stride_sectors
            start = s.start_sector + shift
            if start + s.span_sectors > capacity:
                raise WorkbookParameterError(
                    f"processes[{i}] stream at sector {s.start_sector}", start + s.span_sectors,
                    f"a file inside the disk ({capacity} sectors, {disk.capacity_gb:.0f} GB)")
            row = FI[f]
            row[FI_.start] = start
            row[FI_.len] = s.length_sectors
            row[FI_.req] = s.request_kb * 2
            # aio-stress shares its io units among its files: a file may hold any of them
            row[FI_.depth] = pr.iocb_pool if pr.iocb_pool > 0 else s.depth
            row[FI_.write] = int(s.write)
            row[FI_.sync] = int(s.sync)
            row[FI_.random] = int(s.random)
            row[FI_.total] = s.total_requests
            row[FI_.pc_ppm] = int(round(s.page_cache_hit * 1e6))
            row[FI_.proc] = i
            row[FI_.ext] = s.extent_sectors
            row[FI_.stride] = s.extent_stride_sectors
            if tables[f] is not None:
                row[FI_.wtab] = len(FI_)
                row[len(FI_):len(FI_) + len(tables[f])] = tables[f]
            f += 1
        row = PR[i]
        row[PR_.f1] = f
        row[PR_.think] = int(round(pr.think_us * 1e3))
        row[PR_.think_jit] = int(round(pr.think_jitter_us * 1e3))
        row[PR_.sleep] = int(round(pr.sleep_after_submit_us * 1e3))
        row[PR_.sleep_jit] = int(round(pr.sleep_jitter_us * 1e3))
        row[PR_.page_ns] = int(round(pr.cpu_per_page_us * 1e3))
        row[PR_.prio] = pr.ioprio
        row[PR_.t_start] = int(round(pr.start_us * 1e3))
        row[PR_.pool] = pr.iocb_pool
        row[PR_.iter] = pr.io_iter
        row[PR_.batch] = pr.max_io_submit
    return PR, FI


def build_arrays(params: IOParams, workload: IOWorkload, seed=0, log_events: int = 0, audit: bool = False) -> Arrays:
    """Validate, draw the run's random numbers, and lay out the kernel's arrays."""
    if not isinstance(params, IOParams):
        raise WorkbookParameterError("params", type(params).__name__, "an IOParams")
    if not isinstance(workload, IOWorkload):
        raise WorkbookParameterError("workload", type(workload).__name__,
                                     "an IOWorkload (see kernel_workbook.heuristics.cfq)")
    params.validate()
    workload.validate()
    if isinstance(log_events, bool) or not isinstance(log_events, (int, np.integer)) or log_events < 0:
        raise WorkbookParameterError("log_events", log_events, "an integer >= 0")
    g = rng(seed)
    d = params.disk
    P, _ = pack(params, workload, log_events, audit)
    PR, FI = _processes(workload, d, g)
    U = g.random((len(workload.processes), NU))
    nproc = len(workload.processes)
    depth = _per_process_depth(workload)
    maxq, inflight_max = max(depth) + 1, sum(depth) + 1
    SP = np.zeros((d.spindles, len(SP_)), dtype=np.int64)
    SP[:, SP_.busy_until] = -1
    return Arrays(
        P=P,
        S=np.zeros(len(S_), dtype=np.int64),
        R=np.zeros((max(1, workload.total_requests), len(R_)), dtype=np.int64),
        Q=np.zeros((nproc + 1, len(Q_)), dtype=np.int64),  # one sync queue per process, one shared async queue
        QR=np.zeros((nproc + 1, maxq), dtype=np.int64),
        ST=np.zeros((len(WL), len(ST_)), dtype=np.int64),
        EL=np.zeros((len(FIFO), inflight_max), dtype=np.int64),
        EV=np.zeros((max(1, log_events), len(EV_)), dtype=np.int64),
        SP=SP,
        RA=np.zeros((d.spindles, max(1, d.read_segments), len(RA_)), dtype=np.int64),
        WC=np.zeros((d.write_cache_extents, len(WC_)), dtype=np.int64),
        WW=np.zeros(inflight_max, dtype=np.int64),
        DC=np.zeros(d.ncq_depth + 1, dtype=np.int64),
        SEEK=_seek(d),
        PR=PR,
        FI=FI,
        U=U,
    )


# --------------------------------------------------------------------------- running

def run_arrays(a: Arrays, engine: str = "jit", verbose: bool = True) -> int:
    """Run the event loop on ``a`` (in place); returns the simulated end time (ns)."""
    return int(KERNELS.run(*a.args(), engine=engine, verbose=verbose))


def is_compiled() -> bool:
    """Has this process compiled (or loaded from the cache) the event loop yet?"""
    return KERNELS.is_compiled()


def simulate(params: IOParams, workload: IOWorkload, seed=0, engine: str = "jit", log_events: int = 0,
             verbose: bool = True, audit: bool = False) -> Result:
    """Run ``workload`` on the device and elevator of ``params``; deterministic for a seed.

    Parameters
    ----------
    params : IOParams
        Scheduler, its knobs, the disk and HZ.
    workload : IOWorkload
        From ``kernel_workbook.heuristics.cfq.tiobench`` or ``.aio_stress``.
    seed : int or numpy.random.Generator
        Everything random comes from it (``engine.rng``).
    engine : "jit" | "python"
        The compiled event loop, or the same source run as plain Python
        (slow: small cases, tests, the benchmark's baseline).  The model has
        no independent reference implementation; ``"reference"`` is refused.
    log_events : int
        Keep the first ``log_events`` scheduler events (for timelines).
    verbose : bool
        Say so when the first call compiles the event loop.
    audit : bool
        Check the invariants after every event (counts never negative and
        consistent, time never backward); ``counters["audit_violations"]``.
    """
    check_engine(engine)
    a = build_arrays(params, workload, seed, log_events, audit)
    t0 = time.perf_counter()
    end = run_arrays(a, engine, verbose)
    return Result(params=params, workload=workload, seed=seed, arrays=a, sim_time_s=end / 1e9,
                  wall_s=time.perf_counter() - t0)


__all__ = ["simulate", "pack", "build_arrays", "run_arrays", "Arrays", "KERNELS", "is_compiled", "NU"]
