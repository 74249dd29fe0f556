"""The result of one disk/CFQ run: frames named as iostat, tiotest and CFQ's blktrace name them.

Every frame is computed here from the kernel's arrays, so nothing outside
the model reads a raw column (``ui`` and ``reproduce`` use these).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...errors import WorkbookParameterError
from .layout import EV_, EVT, PR_, PS, R_, RS, S_, WL
from .params import PRESETS, IOParams
from .workload import IOWorkload

MB = 1024 * 1024  # tiotest and aio-stress print MB/s in units of 2^20 bytes
EVENT_NAMES = {v: k for k, v in EVT._asdict().items() if k != "none"}
"""Event code -> name (CFQ's blktrace message or function)."""
WL_TYPE_NAMES = {WL.ASYNC_WORKLOAD: "ASYNC", WL.SYNC_NOIDLE_WORKLOAD: "SYNC_NOIDLE", WL.SYNC_WORKLOAD: "SYNC"}
"""Service tree (``wl_type_t``) -> short name, for the ``a`` column of ``set_active`` events."""

_COUNTERS = {
    "preempt": S_.c_preempt, "arm_idle": S_.c_arm_idle, "idle_timer_fired": S_.c_idle_fired,
    "set_active": S_.c_slices, "mark_deep": S_.c_deep_set, "clear_deep": S_.c_deep_clear,
    "dispatched": S_.c_dispatch, "completed": S_.c_complete, "idle_ns": S_.c_idle_ns,
    "destage_ops": S_.c_destage, "cache_hits": S_.c_cache_hit, "media_ops": S_.c_media_ops,
    "write_cache_full": S_.c_wc_full, "hw_tag": S_.hw_tag, "events": S_.events,
    "audit_violations": S_.audit, "audit_first_code": S_.audit_code,
    "sleeprq": S_.c_sleeprq, "rl_count_max": S_.rl_count_max,
}


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
        ``destage_ops``, ``write_cache_full``; ``hw_tag``; ``events``; the
        request list's ``sleeprq`` (blktrace's ``block_sleeprq``: a process
        slept in ``get_request()``) and ``rl_count_max`` (the most requests
        of one direction allocated at once: at most ``nr_requests`` x 3/2).
    """

    params: IOParams
    workload: IOWorkload
    seed: object  # the int given, or the numpy Generator
    arrays: object = field(repr=False)  # simulate.Arrays: the kernel's arrays (see layout)
    sim_time_s: float = 0.0
    wall_s: float = 0.0

    # ---- headline numbers
    def _spans(self):
        """Each process's start and end (s; one still running ends now), MB moved and MB/s (NaN before it
        ran), from the arrays (one row a process): ``threads`` and ``throughput_mb_s``, which an explorer
        asks for after every slider move, share them."""
        PR = self.arrays.PR
        start = PR[:, PR_.t_start] / 1e9
        end = np.where(PR[:, PR_.t_end] >= 0, PR[:, PR_.t_end], self.arrays.S[S_.now]) / 1e9
        mb = PR[:, PR_.bytes] / MB
        el = end - start
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(el > 0, mb / np.where(el > 0, el, 1.0), np.nan)
        return start, end, mb, rate

    @property
    def throughput_mb_s(self) -> float:
        if not len(self.workload.processes):
            return float("nan")
        start, end, mb, rate = self._spans()
        if self.workload.meta.get("aggregate") == "sum_of_threads":
            return float(np.nansum(rate))
        span = float(end.max() - start.min())
        return float(mb.sum() / span) if span > 0 else float("nan")

    @property
    def threads(self) -> pd.DataFrame:
        start, end, mb, rate = self._spans()
        return pd.DataFrame({
            "thread": np.arange(len(start)), "name": [p.name for p in self.workload.processes],
            "requests": self.arrays.PR[:, PR_.reqs].astype(int), "MB": mb, "start_s": start, "end_s": end,
            "elapsed_s": end - start, "MB/s": rate},
            columns=["thread", "name", "requests", "MB", "start_s", "end_s", "elapsed_s", "MB/s"])

    @property
    def finished(self) -> bool:
        """Did every process finish before ``workload.t_max_s``?"""
        return bool((self.arrays.PR[:, PR_.state] == PS.done).all())

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
        R = self.arrays.R[: int(self.arrays.S[S_.next_rid])]
        st = np.array([n.replace("_", "-") for n in RS._fields])[R[:, R_.state]]

        def ms(col):
            v = R[:, col].astype(float) / 1e6
            v[R[:, col] < 0] = np.nan
            return v

        ins, dis, com = ms(R_.t_insert), ms(R_.t_dispatch), ms(R_.t_complete)
        return pd.DataFrame({
            "rid": np.arange(len(R)), "thread": R[:, R_.proc], "file": R[:, R_.file], "sector": R[:, R_.sect],
            "sectors": R[:, R_.nsect], "write": R[:, R_.write].astype(bool), "sync": R[:, R_.sync].astype(bool),
            "state": st, "cached": R[:, R_.cached].astype(bool),
            "t_issue_ms": ms(R_.t_issue), "t_insert_ms": ins, "t_dispatch_ms": dis, "t_complete_ms": com,
            "await_ms": com - ins, "svctm_ms": com - dis,
        })

    def await_ms(self, op: str = "read", q=(50, 90, 99, 100)) -> np.ndarray:
        """Percentiles ``q`` of the completion latency (insert to complete, ms) of the finished
        ``op`` ("read" or "write") requests; NaN where there are none."""
        if op not in ("read", "write"):
            raise ValueError(f"await_ms: op must be 'read' or 'write', not {op!r}")
        R = self.arrays.R[: int(self.arrays.S[S_.next_rid])]
        m = (R[:, R_.state] == RS.done) & ((R[:, R_.write] != 0) == (op == "write"))
        sel = (R[m, R_.t_complete] - R[m, R_.t_insert]) / 1e6
        return np.percentile(sel, list(q)) if sel.size else np.full(len(q), np.nan)

    def await_percentiles(self, q=(50, 90, 99, 100)) -> pd.DataFrame:
        """Completion latency (insert to complete, iostat's ``await``) by direction.

        Columns: ``op`` (read/write), ``n``, then ``p50 p90 p99 p100`` in ms.
        """
        R = self.arrays.R[: int(self.arrays.S[S_.next_rid])]
        done = R[:, R_.state] == RS.done
        rows = []
        for op in ("read", "write"):
            n = int((done & ((R[:, R_.write] != 0) == (op == "write"))).sum())
            rows.append({"op": op, "n": n, **{f"p{x}": float(v) for x, v in zip(q, self.await_ms(op, q))}})
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
        R = self.arrays.R[: int(self.arrays.S[S_.next_rid])]
        R = R[R[:, R_.state] == RS.done]
        T = int(interval_s * 1e9)
        end = int(self.arrays.S[S_.now])
        n = max(1, -(-end // T))
        ins = R[:, R_.t_insert]
        com = R[:, R_.t_complete]
        k = np.minimum(com // T, n - 1)
        wr = R[:, R_.write] != 0
        kb = R[:, R_.nsect] / 2.0
        lat = (com - ins) / 1e6
        cnt_r = np.bincount(k[~wr], minlength=n)
        cnt_w = np.bincount(k[wr], minlength=n)
        kb_r = np.bincount(k[~wr], weights=kb[~wr], minlength=n)
        kb_w = np.bincount(k[wr], weights=kb[wr], minlength=n)
        lat_r = np.bincount(k[~wr], weights=lat[~wr], minlength=n)
        lat_w = np.bincount(k[wr], weights=lat[wr], minlength=n)
        sect = np.bincount(k, weights=R[:, R_.nsect].astype(float), minlength=n)
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
        # (a forward fill: the last event's level at or before each point, 0 before the first event)
        last = np.where(lv >= 0, np.arange(len(lv)), -1)
        np.maximum.accumulate(last, out=last)
        levels = np.where(last >= 0, lv[np.maximum(last, 0)], 0)
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
        t_ms, names, q, a, b = self.event_columns()
        nproc = len(self.workload.processes)
        thread = np.where((q >= 0) & (q < nproc), q, -1)
        return pd.DataFrame({"t_ms": t_ms, "event": names, "queue": q, "thread": thread, "a": a, "b": b})

    def event_columns(self) -> tuple:
        """:attr:`events`' columns ``t_ms, event, queue, a, b`` as arrays (``event`` a list of names), without
        the frame: a timeline redraw walks them in Python (the frame's columns cost as much as the walk)."""
        n = int(self.arrays.S[S_.log_n])
        E = self.arrays.EV[:n]
        names = [EVENT_NAMES.get(c, str(c)) for c in E[:, EV_.code].tolist()]
        return E[:, EV_.t] / 1e6, names, E[:, EV_.who], E[:, EV_.a], E[:, EV_.b]

    def caption(self) -> str:
        """The run in one line: the machine, every knob that differs from it and the seed
        (OSTEP's ARG lines, from ``params.echo``), then the workload."""
        p = self.params
        base = IOParams(disk=PRESETS.get(p.disk.name, p.disk))
        seed = self.seed if isinstance(self.seed, (int, np.integer)) else "a Generator"
        return f"{p.scheduler} on {p.disk.name}: {p.echo(base, seed=seed)}; {self.workload.description}"

    # ---- for sweeps
    def summary(self) -> dict:
        """The run's scalar outputs, named as the tools and CFQ's log name them (what a sweep keeps).

        ``MB/s`` (the benchmark's figure), ``r_await`` and ``w_await`` (ms,
        iostat's mean over the run), ``r_await_p50``/``p90``/``p99`` (ms),
        ``finished``, then every counter of :attr:`counters`.
        """
        R = self.arrays.R[: int(self.arrays.S[S_.next_rid])]
        done = R[:, R_.state] == RS.done
        lat = (R[:, R_.t_complete] - R[:, R_.t_insert]) / 1e6
        rd, wr = lat[done & (R[:, R_.write] == 0)], lat[done & (R[:, R_.write] != 0)]
        out = {"MB/s": self.throughput_mb_s,
               "r_await": float(rd.mean()) if rd.size else float("nan"),
               "w_await": float(wr.mean()) if wr.size else float("nan")}
        for x in (50, 90, 99):
            out[f"r_await_p{x}"] = float(np.percentile(rd, x)) if rd.size else float("nan")
        out["finished"] = self.finished
        out.update(self.counters)
        return out


__all__ = ["Result", "MB", "EVENT_NAMES", "WL_TYPE_NAMES"]
