"""CFQ (and noop, deadline) in front of a rotating disk or a RAID: the model of two threads.

The public surface::

    from kernel_workbook.models.cfq import IOParams, simulate
    from kernel_workbook.models.cfq_params import CFQParams, cfq_for_kernel
    from kernel_workbook.models.disk import PRESETS
    from kernel_workbook.workloads import tiobench, aio_stress

    p = IOParams(scheduler="cfq", cfq=cfq_for_kernel("3.16"), disk=PRESETS["desktop-2014"])
    r = simulate(p, tiobench.seqread(8), seed=1)
    r.throughput_mb_s, r.threads, r.iostat(), r.events, r.counters

``simulate`` validates (a bad knob raises ``WorkbookParameterError`` naming
it), draws every random number from ``numpy.random.default_rng(seed)``,
runs the compiled event loop (``_sim_kernel.run``; the first call in a
process compiles it, or loads it from Numba's cache, and says so) and wraps
the arrays into frames whose columns are named as the kernel and sysstat
name them.  ``_simulate_reference`` runs the very same loop as plain Python.

:func:`seqread_throughput` is the small entry point other models call (the
fair-zone allocator model adds its per-page CPU cost through it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import WorkbookParameterError
from ..workloads.blockio import IOWorkload
from ._jit import run_announced
from . import _cfq_layout as L
from .cfq_params import CFQParams, DeadlineParams, IOParams, cfq_for_kernel, ms_to_jiffies
from .disk import SECTOR, DiskParams, seek_table_ns

__all__ = ["IOParams", "CFQParams", "DeadlineParams", "Result", "simulate", "seqread_throughput",
           "cfq_for_kernel", "EVENT_NAMES", "MB"]

MB = 1024 * 1024  # tiotest and aio-stress print MB/s in units of 2^20 bytes
NU = 4096  # uniforms per process (reused cyclically)
SCHED_ID = {"noop": 0, "deadline": 1, "cfq": 2}
EVENT_NAMES = {
    L.EV_SET_ACTIVE: "set_active", L.EV_EXPIRE: "slice_expired", L.EV_DISPATCH: "dispatch",
    L.EV_COMPLETE: "complete", L.EV_ARM_IDLE: "arm_idle", L.EV_IDLE_FIRE: "idle_timer_fired",
    L.EV_PREEMPT: "preempt", L.EV_DEEP_SET: "mark_deep", L.EV_DEEP_CLEAR: "clear_deep",
    L.EV_IDLE_WINDOW: "idle_window", L.EV_SET_SLICE: "set_slice", L.EV_WORKLOAD: "workload_slice",
    L.EV_INSERT: "insert",
}
WL_TYPE_NAMES = {L.ASYNC_WORKLOAD: "ASYNC", L.SYNC_NOIDLE_WORKLOAD: "SYNC_NOIDLE", L.SYNC_WORKLOAD: "SYNC"}

_COUNTERS = {
    "preempt": L.S_C_PREEMPT, "arm_idle": L.S_C_ARM_IDLE, "idle_timer_fired": L.S_C_IDLE_FIRED,
    "set_active": L.S_C_SLICES, "mark_deep": L.S_C_DEEP_SET, "clear_deep": L.S_C_DEEP_CLEAR,
    "dispatched": L.S_C_DISPATCH, "completed": L.S_C_COMPLETE, "idle_ns": L.S_C_IDLE_NS,
    "destage_ops": L.S_C_DESTAGE, "cache_hits": L.S_C_CACHE_HIT, "media_ops": L.S_C_MEDIA_OPS,
    "write_cache_full": L.S_C_WC_FULL, "hw_tag": L.S_HW_TAG, "events": L.S_EVENTS,
    "audit_violations": L.S_AUDIT, "audit_first_code": L.S_AUDIT_CODE,
}


# --------------------------------------------------------------------------- parameters -> arrays

def _jiffies(ms: float, default_ms: float, hz_expr, HZ: int, minimum: int = 0) -> int:
    """A CFQ time in jiffies: the kernel's HZ expression for the default, msecs_to_jiffies otherwise."""
    if abs(ms - default_ms) < 1e-12:
        j = hz_expr(HZ)
    else:
        j = ms_to_jiffies(ms, HZ)
    return max(j, minimum)


def _param_array(p: IOParams, w: IOWorkload, nreq: int, maxq: int, log_cap: int, audit: bool = False) -> np.ndarray:
    c, d, dl, HZ = p.cfq, p.disk, p.deadline, p.HZ
    P = np.zeros(L.P_N, dtype=np.int64)
    P[L.P_SCHED] = SCHED_ID[p.scheduler]
    P[L.P_HZ] = HZ
    P[L.P_JIF] = 10**9 // HZ
    P[L.P_QUANTUM] = c.cfq_quantum
    P[L.P_FIFO_EXP_SYNC] = _jiffies(c.cfq_fifo_expire_sync, 125.0, lambda h: h // 8, HZ, 1)
    P[L.P_FIFO_EXP_ASYNC] = _jiffies(c.cfq_fifo_expire_async, 250.0, lambda h: h // 4, HZ, 1)
    P[L.P_BACK_MAX] = c.cfq_back_max
    P[L.P_BACK_PENALTY] = c.cfq_back_penalty
    # cfq_init(): "could be 0 on HZ < 1000 setups" -> 1 jiffy
    P[L.P_SLICE_SYNC] = _jiffies(c.cfq_slice_sync, 100.0, lambda h: h // 10, HZ, 1)
    P[L.P_SLICE_ASYNC] = _jiffies(c.cfq_slice_async, 40.0, lambda h: max(1, h // 25), HZ, 1)
    P[L.P_SLICE_ASYNC_RQ] = c.cfq_slice_async_rq
    P[L.P_SLICE_IDLE] = _jiffies(c.cfq_slice_idle, 8.0, lambda h: max(1, h // 125), HZ, 0)
    P[L.P_GROUP_IDLE] = _jiffies(c.cfq_group_idle, 8.0, lambda h: max(1, h // 125), HZ, 0)
    P[L.P_LATENCY] = int(bool(c.cfq_latency))
    P[L.P_TARGET_LATENCY] = _jiffies(c.cfq_target_latency, 300.0, lambda h: h * 3 // 10, HZ, 1)
    P[L.P_HIST_DIVISOR] = c.cfq_hist_divisor
    P[L.P_MARK_DEEP] = int(bool(c.cfq_mark_cfqq_deep))
    P[L.P_DEEP_FAST_CLEAR] = int(bool(c.cfq_clear_cfqq_deep_fast_device))
    P[L.P_DEEP_CLEAR_ALWAYS] = int(bool(c.cfq_clear_cfqq_deep_unconditional))
    P[L.P_DEEP_PATLASOV] = int(bool(c.patlasov_2011))
    P[L.P_PREEMPT_IDLE_QUEUE] = int(bool(c.cfq_should_preempt_idle_queue))
    P[L.P_TTIME_BIG] = int(bool(c.cfq_io_thinktime_big))
    P[L.P_PROMOTE_SYNC] = int(bool(c.cfq_may_dispatch_promote_sync))
    P[L.P_DL_READ_EXPIRE] = ms_to_jiffies(dl.read_expire, HZ)
    P[L.P_DL_WRITE_EXPIRE] = ms_to_jiffies(dl.write_expire, HZ)
    P[L.P_DL_WRITES_STARVED] = dl.writes_starved
    P[L.P_DL_FIFO_BATCH] = dl.fifo_batch
    P[L.P_NSPIN] = d.spindles
    P[L.P_STRIPE] = d.stripe_kb * 2
    P[L.P_SPT] = d.sectors_per_track
    P[L.P_HEADS] = d.heads
    P[L.P_TROT] = d.rot_ns
    P[L.P_WRITE_SETTLE] = int(round(d.write_settle_ms * 1e6))
    P[L.P_CMD_OVH] = int(round(d.cmd_overhead_us * 1e3))
    P[L.P_IF_PS_SECT] = int(round(SECTOR * 1e6 / d.interface_mb_s))
    P[L.P_NCQ_DEPTH] = d.ncq_depth
    P[L.P_NCQ_REORDER] = int(bool(d.ncq_reorder))
    P[L.P_NCQ_MAX_AGE] = int(round(d.ncq_max_age_ms * 1e6))
    P[L.P_RA_SECT] = d.readahead_kb * 2
    P[L.P_RA_SEGS] = d.read_segments
    P[L.P_WC_ON] = int(bool(d.write_cache))
    P[L.P_WC_CAP] = d.write_cache_kb * 2
    P[L.P_WC_EXT] = d.write_cache_extents
    P[L.P_T_MAX] = int(w.t_max_s * 1e9)
    P[L.P_LOG_CAP] = log_cap
    P[L.P_PAGE_SECT] = 8
    P[L.P_NPROC] = len(w.processes)
    P[L.P_NFILE] = sum(len(pr.streams) for pr in w.processes)
    P[L.P_NREQ] = nreq
    P[L.P_MAXQ] = maxq
    P[L.P_NU] = NU
    P[L.P_NONROT] = int(bool(d.nonrot))
    P[L.P_CYLS] = d.cylinders
    P[L.P_WC_COALESCE] = int(bool(d.write_coalesce))
    P[L.P_MEDIA_OVH] = int(round(d.media_overhead_us * 1e3))
    P[L.P_AUDIT] = int(bool(audit))
    return P


@dataclass
class Arrays:
    """The kernel's arrays for one run (see ``_cfq_layout``)."""

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

    def args(self):
        return (self.P, self.S, self.R, self.Q, self.QR, self.ST, self.EL, self.EV, self.SP, self.RA, self.WC,
                self.WW, self.DC, self.SEEK, self.PR, self.FI, self.U)


_SEEK_CACHE: dict = {}


def _seek(d: DiskParams) -> np.ndarray:
    key = (d.cylinders, d.seek_track_ms, d.seek_avg_ms, d.seek_full_ms)
    t = _SEEK_CACHE.get(key)
    if t is None:
        if len(_SEEK_CACHE) > 16:
            _SEEK_CACHE.clear()
        t = _SEEK_CACHE[key] = seek_table_ns(d)
    return t


def build_arrays(params: IOParams, workload: IOWorkload, seed: int, log_events: int = 0, audit: bool = False) -> Arrays:
    """Validate, draw the run's random numbers, and lay out the kernel's arrays."""
    params.validate()
    workload.validate()
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise WorkbookParameterError("seed", seed, "a non-negative integer")
    if log_events < 0:
        raise WorkbookParameterError("log_events", log_events, "an integer >= 0")
    d = params.disk
    rng = np.random.default_rng(int(seed))
    procs = workload.processes
    nproc = len(procs)
    nfile = sum(len(pr.streams) for pr in procs)
    nreq = max(1, workload.total_requests)
    # requests a process can have in flight: its files' depths, or an aio-stress thread's io units
    per_proc = [pr.iocb_pool if pr.iocb_pool > 0 else sum(s.depth for s in pr.streams) for pr in procs]
    maxq = max(per_proc) + 1
    inflight_max = sum(per_proc) + 1
    P = _param_array(params, workload, nreq, maxq, log_events, audit)
    capacity = d.capacity_sectors
    FI = np.zeros((nfile, L.FI_NF), dtype=np.int64)
    PR = np.zeros((nproc, L.PR_NF), dtype=np.int64)
    jitter = rng.random(nfile)
    f = 0
    for i, pr in enumerate(procs):
        PR[i, L.PR_F0] = f
        for s in pr.streams:
            shift = (int(jitter[f] * (s.start_jitter_sectors + 1)) // 8) * 8 if s.start_jitter_sectors else 0
            start = s.start_sector + shift
            if start + s.length_sectors > capacity:
                raise WorkbookParameterError(
                    f"processes[{i}] stream at sector {s.start_sector}", start + s.length_sectors,
                    f"a file inside the disk ({capacity} sectors, {d.capacity_gb:.0f} GB)")
            FI[f, L.FI_START] = start
            FI[f, L.FI_LEN] = s.length_sectors
            FI[f, L.FI_REQ] = s.request_kb * 2
            # aio-stress shares its io units among its files: a file may hold any of them
            FI[f, L.FI_DEPTH] = pr.iocb_pool if pr.iocb_pool > 0 else s.depth
            FI[f, L.FI_WRITE] = int(s.write)
            FI[f, L.FI_SYNC] = int(s.sync)
            FI[f, L.FI_RANDOM] = int(s.random)
            FI[f, L.FI_TOTAL] = s.total_requests
            FI[f, L.FI_PC_PPM] = int(round(s.page_cache_hit * 1e6))
            FI[f, L.FI_PROC] = i
            f += 1
        PR[i, L.PR_F1] = f
        PR[i, L.PR_THINK] = int(round(pr.think_us * 1e3))
        PR[i, L.PR_THINK_JIT] = int(round(pr.think_jitter_us * 1e3))
        PR[i, L.PR_SLEEP] = int(round(pr.sleep_after_submit_us * 1e3))
        PR[i, L.PR_SLEEP_JIT] = int(round(pr.sleep_jitter_us * 1e3))
        PR[i, L.PR_PAGE_NS] = int(round(pr.cpu_per_page_us * 1e3))
        PR[i, L.PR_PRIO] = pr.ioprio
        PR[i, L.PR_T_START] = int(round(pr.start_us * 1e3))
        PR[i, L.PR_POOL] = pr.iocb_pool
        PR[i, L.PR_ITER] = pr.io_iter
        PR[i, L.PR_BATCH] = pr.max_io_submit
    U = rng.random((nproc, NU))
    nspin = d.spindles
    return Arrays(
        P=P,
        S=np.zeros(L.S_N, dtype=np.int64),
        R=np.zeros((nreq, L.R_NF), dtype=np.int64),
        Q=np.zeros((nproc + 1, L.Q_NF), dtype=np.int64),
        QR=np.zeros((nproc + 1, maxq), dtype=np.int64),
        ST=np.zeros((3, L.ST_NF), dtype=np.int64),
        EL=np.zeros((3, inflight_max), dtype=np.int64),
        EV=np.zeros((max(1, log_events), L.EV_NF), dtype=np.int64),
        SP=np.zeros((nspin, L.SP_NF), dtype=np.int64) + np.array(
            [-1 if k == L.SP_BUSY_UNTIL else 0 for k in range(L.SP_NF)], dtype=np.int64),
        RA=np.zeros((nspin, max(1, d.read_segments), 2), dtype=np.int64),
        WC=np.zeros((d.write_cache_extents, L.WC_NF), dtype=np.int64),
        WW=np.zeros(inflight_max, dtype=np.int64),
        DC=np.zeros(d.ncq_depth + 1, dtype=np.int64),
        SEEK=_seek(d),
        PR=PR,
        FI=FI,
        U=U,
    )


# --------------------------------------------------------------------------- running the kernel

def _kernel():
    from . import _sim_kernel

    return _sim_kernel


def is_compiled() -> bool:
    """Has this process compiled (or loaded from cache) the event loop yet?"""
    return bool(_kernel().run.signatures)


def _run_compiled(a: Arrays, verbose: bool = True) -> None:
    run_announced(_kernel().run, a.args(), "disk/CFQ model, event loop", verbose)


def _simulate_reference(a: Arrays):
    """The same event loop run as plain Python (``_jit.pure``): slow, for tests and the benchmark."""
    from ._jit import pure

    return pure("_sim_kernel").run(*a.args())


# --------------------------------------------------------------------------- results

@dataclass
class Result:
    """One simulated run.

    Attributes
    ----------
    params, workload, seed :
        What it ran with (``caption()`` echoes them).
    throughput_mb_s : float
        The benchmark's figure (MB/s in units of 2^20 B): tiobench's total
        bytes over the time the last thread took; aio-stress's sum of its
        threads' rates (as the thread's "aggregate throughput").
    threads : DataFrame
        One row per process: ``thread, name, requests, MB, start_s, end_s,
        elapsed_s, MB/s``.
    counters : dict
        Named as CFQ's blktrace messages and blkio files: ``set_active``
        (slices), ``preempt``, ``arm_idle``, ``idle_timer_fired``,
        ``mark_deep``, ``clear_deep``, ``dispatched``, ``completed``,
        ``idle_ns``; the device's ``media_ops``, ``cache_hits``,
        ``destage_ops``, ``write_cache_full``; ``hw_tag``; ``events``.
    """

    params: IOParams
    workload: IOWorkload
    seed: int
    arrays: Arrays = field(repr=False)
    sim_time_s: float = 0.0
    wall_s: float = 0.0

    # ---- headline numbers
    @property
    def throughput_mb_s(self) -> float:
        t = self.threads
        if not len(t):
            return float("nan")
        if self.workload.meta.get("aggregate") == "sum_of_threads":
            return float(t["MB/s"].sum())
        span = float(t["end_s"].max() - t["start_s"].min())
        return float(t["MB"].sum() / span) if span > 0 else float("nan")

    @property
    def threads(self) -> pd.DataFrame:
        PR = self.arrays.PR
        now = self.arrays.S[L.S_NOW]
        rows = []
        for i, pr in enumerate(self.workload.processes):
            st = PR[i, L.PR_T_START] / 1e9
            end = PR[i, L.PR_T_END] if PR[i, L.PR_T_END] >= 0 else now
            el = end / 1e9 - st
            mb = PR[i, L.PR_BYTES] / MB
            rows.append({"thread": i, "name": pr.name, "requests": int(PR[i, L.PR_REQS]), "MB": mb,
                         "start_s": st, "end_s": end / 1e9, "elapsed_s": el,
                         "MB/s": mb / el if el > 0 else float("nan")})
        return pd.DataFrame(rows, columns=["thread", "name", "requests", "MB", "start_s", "end_s", "elapsed_s",
                                           "MB/s"])

    @property
    def finished(self) -> bool:
        """Did every process finish before ``workload.t_max_s``?"""
        return bool((self.arrays.PR[:, L.PR_STATE] == L.PS_DONE).all())

    @property
    def counters(self) -> dict:
        S = self.arrays.S
        return {k: int(S[i]) for k, i in _COUNTERS.items()}

    # ---- per request
    @property
    def requests(self) -> pd.DataFrame:
        """Every request issued: ``rid, thread, file, sector, sectors, write, sync, state, cached,
        t_issue_ms, t_insert_ms, t_dispatch_ms, t_complete_ms, await_ms, svctm_ms`` (times from the
        start; ``state``: done, page-cache, elevator, device)."""
        R = self.arrays.R[: int(self.arrays.S[L.S_NEXT_RID])]
        st = np.array(["free", "elevator", "device", "done", "page-cache"])[R[:, L.R_STATE]]

        def ms(col):
            v = R[:, col].astype(float) / 1e6
            v[R[:, col] < 0] = np.nan
            return v

        ins, dis, com = ms(L.R_T_INSERT), ms(L.R_T_DISPATCH), ms(L.R_T_COMPLETE)
        return pd.DataFrame({
            "rid": np.arange(len(R)), "thread": R[:, L.R_PROC], "file": R[:, L.R_FILE], "sector": R[:, L.R_SECT],
            "sectors": R[:, L.R_NSECT], "write": R[:, L.R_WRITE].astype(bool), "sync": R[:, L.R_SYNC].astype(bool),
            "state": st, "cached": R[:, L.R_CACHED].astype(bool),
            "t_issue_ms": ms(L.R_T_ISSUE), "t_insert_ms": ins, "t_dispatch_ms": dis, "t_complete_ms": com,
            "await_ms": com - ins, "svctm_ms": com - dis,
        })

    def await_percentiles(self, q=(50, 90, 99, 100)) -> pd.DataFrame:
        """Completion latency (insert to complete, iostat's ``await``) by direction.

        Columns: ``op`` (read/write), ``n``, then ``p50 p90 p99 p100`` in ms.
        """
        R = self.arrays.R[: int(self.arrays.S[L.S_NEXT_RID])]
        done = R[:, L.R_STATE] == L.RS_DONE
        lat = (R[:, L.R_T_COMPLETE] - R[:, L.R_T_INSERT]) / 1e6
        rows = []
        for op, m in (("read", R[:, L.R_WRITE] == 0), ("write", R[:, L.R_WRITE] != 0)):
            sel = lat[done & m]
            row = {"op": op, "n": int(sel.size)}
            for x in q:
                row[f"p{x}"] = float(np.percentile(sel, x)) if sel.size else float("nan")
            rows.append(row)
        return pd.DataFrame(rows)

    def iostat(self, interval_s: float = 1.0, device: str = "sda") -> pd.DataFrame:
        """``iostat -x`` of the run, one row per interval, columns named as sysstat 9-11 prints them.

        Columns: ``device, r/s, w/s, rkB/s, wkB/s, avgrq-sz, avgqu-sz, await,
        r_await, w_await, %util, sample, elapsed`` -- the names
        ``kernel_workbook.traces`` gives a real ``iostat -x`` capture, so the
        two draw on one chart.  As in ``/proc/diskstats``: a request counts
        from its insertion into the queue (``blk_account_io_start``) to its
        completion; ``%util`` is the time with at least one counted; page
        cache hits never reach the disk and are not counted.
        """
        if not interval_s > 0:
            raise WorkbookParameterError("interval_s", interval_s, "a positive number of seconds")
        R = self.arrays.R[: int(self.arrays.S[L.S_NEXT_RID])]
        R = R[R[:, L.R_STATE] == L.RS_DONE]
        T = int(interval_s * 1e9)
        end = int(self.arrays.S[L.S_NOW])
        n = max(1, -(-end // T))
        ins = R[:, L.R_T_INSERT]
        com = R[:, L.R_T_COMPLETE]
        k = np.minimum(com // T, n - 1)
        wr = R[:, L.R_WRITE] != 0
        kb = R[:, L.R_NSECT] / 2.0
        lat = (com - ins) / 1e6
        cnt_r = np.bincount(k[~wr], minlength=n)
        cnt_w = np.bincount(k[wr], minlength=n)
        kb_r = np.bincount(k[~wr], weights=kb[~wr], minlength=n)
        kb_w = np.bincount(k[wr], weights=kb[wr], minlength=n)
        lat_r = np.bincount(k[~wr], weights=lat[~wr], minlength=n)
        lat_w = np.bincount(k[wr], weights=lat[wr], minlength=n)
        sect = np.bincount(k, weights=R[:, L.R_NSECT].astype(float), minlength=n)
        # time-integral of requests in the queue, and time with any, per interval
        ev_t = np.concatenate([ins, com])
        ev_d = np.concatenate([np.ones(len(ins), np.int64), -np.ones(len(com), np.int64)])
        order = np.lexsort((-ev_d, ev_t))
        ev_t, ev_d = ev_t[order], ev_d[order]
        level = np.cumsum(ev_d)
        bounds = np.arange(n + 1, dtype=np.int64) * T
        pts = np.concatenate([ev_t, bounds])
        lv = np.concatenate([level, np.full(n + 1, -1)])
        o2 = np.argsort(pts, kind="stable")
        pts, lv = pts[o2], lv[o2]
        # carry the level forward over the boundary points
        cur = 0
        levels = np.empty_like(lv)
        for i in range(len(lv)):
            if lv[i] >= 0:
                cur = lv[i]
            levels[i] = cur
        dt = np.diff(pts, append=pts[-1])
        which = np.minimum(pts // T, n - 1)
        area = np.bincount(which, weights=levels * dt, minlength=n)
        busy = np.bincount(which, weights=(levels > 0) * dt, minlength=n)
        secs = interval_s
        tot = cnt_r + cnt_w
        with np.errstate(invalid="ignore", divide="ignore"):
            df = pd.DataFrame({
                "device": device,
                "r/s": cnt_r / secs, "w/s": cnt_w / secs, "rkB/s": kb_r / secs, "wkB/s": kb_w / secs,
                "avgrq-sz": np.where(tot > 0, sect / np.maximum(tot, 1), 0.0),
                "avgqu-sz": area / T,
                "await": np.where(tot > 0, (lat_r + lat_w) / np.maximum(tot, 1), 0.0),
                "r_await": np.where(cnt_r > 0, lat_r / np.maximum(cnt_r, 1), 0.0),
                "w_await": np.where(cnt_w > 0, lat_w / np.maximum(cnt_w, 1), 0.0),
                "%util": np.minimum(100.0, busy / T * 100.0),
                "sample": np.arange(1, n + 1),
                "elapsed": np.arange(1, n + 1) * interval_s,
            })
        df.attrs.update({"source": f"model: {self.caption()}", "format": "iostat", "version": "sysstat 9-11"})
        return df

    # ---- the scheduler's own log
    @property
    def events(self) -> pd.DataFrame:
        """The event log (``log_events`` rows at most): ``t_ms, event, queue, thread, a, b``.

        ``event`` is named after CFQ's blktrace message or function
        (``set_active``, ``set_slice`` (a = slice in jiffies),
        ``workload_slice`` (a = tree, b = slice), ``dispatch`` (a = rid, b =
        sector), ``complete``, ``insert``, ``arm_idle`` (a = jiffies),
        ``idle_timer_fired``, ``slice_expired`` (a = timed_out), ``preempt``
        (a = the queue preempted), ``mark_deep``, ``clear_deep``,
        ``idle_window`` (a = 0/1)).  For noop and deadline ``queue`` is the
        thread.
        """
        n = int(self.arrays.S[L.S_LOG_N])
        E = self.arrays.EV[:n]
        nproc = len(self.workload.processes)
        q = E[:, 2]
        thread = np.where((q >= 0) & (q < nproc), q, -1)
        return pd.DataFrame({"t_ms": E[:, 0] / 1e6, "event": [EVENT_NAMES.get(int(c), str(c)) for c in E[:, 1]],
                             "queue": q, "thread": thread, "a": E[:, 3], "b": E[:, 4]})

    def caption(self) -> str:
        """The knobs of the run in one line (OSTEP's ARG lines)."""
        p, c = self.params, self.params.cfq
        s = f"{p.scheduler} on {p.disk.name}, HZ={p.HZ}, seed={self.seed}; {self.workload.description}"
        if p.scheduler == "cfq":
            flags = []
            if not c.cfq_mark_cfqq_deep:
                flags.append("no mark_deep")
            if not c.cfq_clear_cfqq_deep_fast_device:
                flags.append("w/o 8e1ac6655104")
            if c.cfq_clear_cfqq_deep_unconditional:
                flags.append("always clear deep")
            if c.patlasov_2011:
                flags.append("+2011 patch")
            s += (f"; target_latency={c.cfq_target_latency:g} ms, slice_sync={c.cfq_slice_sync:g} ms, "
                  f"slice_idle={c.cfq_slice_idle:g} ms, low_latency={int(c.cfq_latency)}, quantum={c.cfq_quantum}"
                  + (", " + ", ".join(flags) if flags else ""))
        return s


def simulate(params: IOParams, workload: IOWorkload, seed: int = 0, log_events: int = 0,
             verbose: bool = True, audit: bool = False) -> Result:
    """Run ``workload`` on the device and elevator of ``params``; deterministic for a seed.

    Parameters
    ----------
    params : IOParams
        Scheduler, its knobs, the disk and HZ.
    workload : IOWorkload
        From ``kernel_workbook.workloads.tiobench`` or ``.aio_stress``.
    seed : int
        Everything random (think-time jitter, random offsets, page-cache
        hits, file placement) comes from ``numpy.random.default_rng(seed)``.
    log_events : int
        Keep the first ``log_events`` scheduler events (for timelines).
    verbose : bool
        Say so when the first call compiles the event loop.
    audit : bool
        Check the invariants after every event (counts never negative and
        consistent, time never backward); ``counters["audit_violations"]``.
    """
    if not isinstance(params, IOParams):
        raise WorkbookParameterError("params", type(params).__name__, "an IOParams")
    if not isinstance(workload, IOWorkload):
        raise WorkbookParameterError("workload", type(workload).__name__, "an IOWorkload (see kernel_workbook.workloads)")
    a = build_arrays(params, workload, seed, log_events, audit)
    t0 = time.perf_counter()
    _run_compiled(a, verbose=verbose)
    wall = time.perf_counter() - t0
    return Result(params=params, workload=workload, seed=int(seed), arrays=a,
                  sim_time_s=float(a.S[L.S_NOW]) / 1e9, wall_s=wall)


def simulate_reference(params: IOParams, workload: IOWorkload, seed: int = 0, log_events: int = 0,
                       audit: bool = False) -> Result:
    """:func:`simulate` through the pure-Python copy of the loop (slow; small cases only)."""
    a = build_arrays(params, workload, seed, log_events, audit)
    t0 = time.perf_counter()
    _simulate_reference(a)
    return Result(params=params, workload=workload, seed=int(seed), arrays=a,
                  sim_time_s=float(a.S[L.S_NOW]) / 1e9, wall_s=time.perf_counter() - t0)


def seqread_throughput(params: IOParams, readers: int, cpu_cost_per_page: float | None = None,
                       seeds=(0,), ram_mb: int = 4096, mb_total: float = 256.0) -> float:
    """Mean tiobench SeqRead throughput (MB/s) for ``readers`` threads: the hook for other models.

    Parameters
    ----------
    params : IOParams
        Device, elevator and knobs (e.g. from ``reproduce.seqread_2014.desktop_params()``).
    readers : int
        tiobench threads.
    cpu_cost_per_page : float, optional
        Microseconds of CPU each reader spends per page before it submits
        its next read-ahead window (page allocation, page-cache insertion).
        The fair-zone allocator model passes its own per-page cost here; by
        default the workload's (``tiobench.seqread``).
    seeds : iterable of int
        One run per seed; the result is their mean.
    """
    from ..workloads import tiobench

    kw = {} if cpu_cost_per_page is None else {"cpu_per_page_us": float(cpu_cost_per_page)}
    if cpu_cost_per_page is not None and not cpu_cost_per_page >= 0:
        raise WorkbookParameterError("cpu_cost_per_page", cpu_cost_per_page, "microseconds >= 0")
    w = tiobench.seqread(int(readers), ram_mb=ram_mb, mb_total=mb_total, **kw)
    vals = [simulate(params, w, seed=int(s), verbose=False).throughput_mb_s for s in seeds]
    return float(np.mean(vals))
