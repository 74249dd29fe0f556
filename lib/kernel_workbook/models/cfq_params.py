"""The knobs of the elevators, named as the kernel names them.

:class:`CFQParams` holds CFQ's tunables (``block/cfq-iosched.c``, the
``static`` defaults at the top of the file and the sysfs files in
``/sys/block/<dev>/queue/iosched/``) in milliseconds as sysfs shows them,
and the *variants* the threads measure as flags.  :class:`DeadlineParams`
holds ``block/deadline-iosched.c``'s.  :class:`IOParams` is the whole
parameter set of one simulation: scheduler, its knobs, the device and HZ.

Kernel versions are presets: :func:`cfq_for_kernel` (``"3.0"``, ``"3.1"``,
``"3.16"``).  What differs between them, as far as it matters here, is
marked in each flag's docstring; what is recalled rather than read in the
source is said so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

from ..errors import WorkbookParameterError
from .disk import DESKTOP_2014, DiskParams

SCHEDULERS = ("noop", "deadline", "cfq")
HZ_VALUES = (100, 250, 300, 1000)


@dataclass(frozen=True)
class CFQParams:
    """CFQ's tunables (ms, as sysfs shows them) and the variants of the threads.

    Times are converted to jiffies as the sysfs store does
    (``msecs_to_jiffies``: rounded up).
    """

    cfq_quantum: int = 8  # requests; cfq_quantum, block/cfq-iosched.c cfq_may_dispatch()
    cfq_fifo_expire_sync: float = 125.0  # ms; cfq_fifo_expire[1] = HZ/8, cfq_check_fifo()
    cfq_fifo_expire_async: float = 250.0  # ms; cfq_fifo_expire[0] = HZ/4, cfq_check_fifo()
    cfq_back_max: int = 16 * 1024  # KiB; cfq_back_max, cfq_choose_req()
    cfq_back_penalty: int = 2  # cfq_back_penalty, cfq_choose_req()
    cfq_slice_sync: float = 100.0  # ms; cfq_slice[1] = HZ/10, cfq_prio_slice()
    cfq_slice_async: float = 40.0  # ms; cfq_slice[0] = HZ/25, cfq_prio_slice()
    cfq_slice_async_rq: int = 2  # cfq_slice_async_rq, cfq_prio_to_maxrq()
    cfq_slice_idle: float = 8.0  # ms; cfq_slice_idle = HZ/125, cfq_arm_slice_timer()
    cfq_group_idle: float = 8.0  # ms; cfq_group_idle = HZ/125, cfq_select_queue() check_group_idle
    cfq_latency: bool = True  # sysfs low_latency; cfq_scaled_cfqq_slice(), cfq_may_dispatch()
    cfq_target_latency: float = 300.0  # ms; HZ*3/10, cfq_group_slice() (Mel Gorman's patch: 600)
    cfq_hist_divisor: int = 4  # cfq_hist_divisor, cfq_group_get_avg_queues()

    # ---- variants (flags); each names the code it switches
    cfq_mark_cfqq_deep: bool = True
    """cfq_update_idle_window(): ``if (cfqq->queued[0] + cfqq->queued[1] >= 4)
    cfq_mark_cfqq_deep(cfqq);`` (commit 76280aff1c7e).  False is the 2011
    thread's experiment with those two lines commented out."""

    cfq_clear_cfqq_deep_fast_device: bool = True
    """cfq_select_queue(): the block commit 8e1ac6655104 added -- a seeky
    queue with ``idle_window`` that empties while its slice is new or less
    than half used loses ``deep`` and ``idle_window`` ("the device is much
    faster than the queue can deliver").  False is "3.1.0-rc2 w/o
    8e1ac6655104"."""

    cfq_clear_cfqq_deep_unconditional: bool = False
    """cfq_select_queue(): the same block with its half-slice condition
    commented out (the 2011 thread's "always clear deep" experiment)."""

    patlasov_2011: bool = False
    """The 2011 patch as the cover letter describes it (its diff is not in the
    thread; this is our reading, [I]).  It replaces the 8e1ac6655104 block
    of cfq_select_queue(): where the active queue empties with nothing in
    flight (cfq_completed_request(), before cfq_arm_slice_timer()), the
    device is judged faster than the queue if the mean service time of its
    requests this slice is below its think time (ns).  Then ``deep`` and
    ``idle_window`` are cleared and the queue is resorted to SYNC_NOIDLE
    *at once*, and the verdict is remembered, so that its next batch does
    not mark it ``deep`` again in cfq_update_idle_window() -- the "time
    gap" in which preemption is off.  A queue never seen to be faster than
    the device keeps 76280aff1c7e's marking."""

    cfq_should_preempt_idle_queue: bool = True
    """cfq_should_preempt(): "An idle queue should not be idle now for some
    reason" -- an empty active queue that should not idle is preempted.  In
    4.2's source [V]; present in 3.1 is recalled [R]."""

    cfq_io_thinktime_big: bool = True
    """3.3+: cfq_should_idle() and cfq_select_queue()/cfq_should_wait_busy()
    also consult the service tree's and the group's think time
    (cfq_io_thinktime_big()).  3.0/3.1 have only the per-process think time
    [R for the version]."""

    cfq_may_dispatch_promote_sync: bool = True
    """cfq_may_dispatch(): a sync queue that is the only busy sync queue has no
    dispatch limit ("useful for aiostress test")."""

    def validate(self) -> CFQParams:
        for f in ("cfq_fifo_expire_sync", "cfq_fifo_expire_async", "cfq_slice_sync", "cfq_slice_async",
                  "cfq_target_latency"):
            v = getattr(self, f)
            if not (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0):
                raise WorkbookParameterError(f, v, "a time in ms > 0 (sysfs refuses 0)")
        for f in ("cfq_slice_idle", "cfq_group_idle"):
            v = getattr(self, f)
            if not (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0):
                raise WorkbookParameterError(f, v, "a time in ms >= 0")
        for f, lo in (("cfq_quantum", 1), ("cfq_back_max", 0), ("cfq_back_penalty", 1),
                      ("cfq_slice_async_rq", 1), ("cfq_hist_divisor", 1)):
            v = getattr(self, f)
            if not isinstance(v, int) or isinstance(v, bool) or v < lo:
                raise WorkbookParameterError(f, v, f"an integer >= {lo}")
        return self

    def with_(self, **kw) -> CFQParams:
        bad = set(kw) - {f.name for f in fields(self)}
        if bad:
            k = sorted(bad)[0]
            raise WorkbookParameterError(k, kw[k], "a field of CFQParams")
        return replace(self, **kw).validate()


@dataclass(frozen=True)
class DeadlineParams:
    """block/deadline-iosched.c tunables (sysfs ``iosched/``)."""

    read_expire: float = 500.0  # ms; HZ/2, deadline_check_fifo()
    write_expire: float = 5000.0  # ms; 5*HZ, deadline_check_fifo()
    writes_starved: int = 2  # deadline_dispatch_requests(): reads may starve writes this often
    fifo_batch: int = 16  # requests per sector-ordered batch, deadline_dispatch_requests()

    def validate(self) -> DeadlineParams:
        for f in ("read_expire", "write_expire"):
            v = getattr(self, f)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise WorkbookParameterError(f, v, "a time in ms > 0")
        for f in ("writes_starved", "fifo_batch"):
            v = getattr(self, f)
            if not isinstance(v, int) or isinstance(v, bool) or v < (0 if f == "writes_starved" else 1):
                raise WorkbookParameterError(f, v, "a non-negative integer" if f == "writes_starved" else "an integer >= 1")
        return self


def cfq_for_kernel(version: str, **overrides) -> CFQParams:
    """CFQ as in a kernel version: ``"3.0"``, ``"3.1"`` (the 2011 thread) or ``"3.16"`` (2014).

    All three have the same defaults (HZ-relative constants, 300 ms target
    latency, low_latency on).  3.0/3.1 lack the 3.3 think-time checks of the
    service tree and the group (``cfq_io_thinktime_big=False``).
    """
    v = str(version)
    if v in ("3.0", "3.0.0", "3.1", "3.1.0-rc2"):
        base = CFQParams(cfq_io_thinktime_big=False)
    elif v in ("3.16", "3.16.0-rc1", "3.16.0-rc2"):
        base = CFQParams()
    else:
        raise WorkbookParameterError("version", version, "one of 3.0, 3.1, 3.16")
    return base.with_(**overrides) if overrides else base


@dataclass(frozen=True)
class IOParams:
    """Everything one simulation needs besides the workload.

    ``scheduler`` is the elevator (``/sys/block/<dev>/queue/scheduler``);
    ``HZ`` is ``CONFIG_HZ`` (CFQ's clock: its times are whole jiffies).
    """

    scheduler: str = "cfq"  # noop | deadline | cfq
    cfq: CFQParams = field(default_factory=CFQParams)
    deadline: DeadlineParams = field(default_factory=DeadlineParams)
    disk: DiskParams = DESKTOP_2014
    HZ: int = 1000  # CONFIG_HZ

    def validate(self) -> IOParams:
        if self.scheduler not in SCHEDULERS:
            raise WorkbookParameterError("scheduler", self.scheduler, "one of " + ", ".join(SCHEDULERS))
        if self.HZ not in HZ_VALUES:
            raise WorkbookParameterError("HZ", self.HZ, "one of " + ", ".join(map(str, HZ_VALUES)))
        if not isinstance(self.cfq, CFQParams):
            raise WorkbookParameterError("cfq", type(self.cfq).__name__, "a CFQParams")
        if not isinstance(self.disk, DiskParams):
            raise WorkbookParameterError("disk", type(self.disk).__name__, "a DiskParams")
        self.cfq.validate()
        self.deadline.validate()
        self.disk.validate()
        return self

    def with_(self, **kw) -> IOParams:
        """A copy with fields changed; CFQ and disk knobs may be given directly by name.

        ``p.with_(cfq_target_latency=600, rpm=5400, scheduler="deadline")``.
        """
        top, cfq, dl, disk = {}, {}, {}, {}
        names_cfq = {f.name for f in fields(CFQParams)}
        names_dl = {f.name for f in fields(DeadlineParams)}
        names_disk = {f.name for f in fields(DiskParams)}
        for k, v in kw.items():
            if k in {"scheduler", "HZ", "cfq", "deadline", "disk"}:
                top[k] = v
            elif k in names_cfq:
                cfq[k] = v
            elif k in names_dl:
                dl[k] = v
            elif k in names_disk:
                disk[k] = v
            else:
                raise WorkbookParameterError(k, v, "a knob of IOParams, CFQParams, DeadlineParams or DiskParams")
        out = replace(self, **top)
        if cfq:
            out = replace(out, cfq=replace(out.cfq, **cfq))
        if dl:
            out = replace(out, deadline=replace(out.deadline, **dl))
        if disk:
            out = replace(out, disk=replace(out.disk, **disk))
        return out.validate()


def ms_to_jiffies(ms: float, HZ: int) -> int:
    """msecs_to_jiffies(): rounds up."""
    return int(math.ceil(ms * HZ / 1000.0 - 1e-9))


def scaled_slice_ms(cfq: CFQParams, busy_queues: int, HZ: int = 1000, ioprio: int = 4) -> float:
    """A sync queue's slice in steady state (ms): cfq_scaled_cfqq_slice() with the busy-queue
    average caught up at ``busy_queues``, in the kernel's integer jiffies.

    For teaching tables; the event loop computes it itself (``_sched_kernel``).
    """
    if busy_queues < 1:
        raise WorkbookParameterError("busy_queues", busy_queues, "an integer >= 1")
    j = lambda ms, default, expr: expr(HZ) if abs(ms - default) < 1e-12 else ms_to_jiffies(ms, HZ)
    sync = max(1, j(cfq.cfq_slice_sync, 100.0, lambda h: h // 10))
    idle = j(cfq.cfq_slice_idle, 8.0, lambda h: max(1, h // 125))
    target = j(cfq.cfq_target_latency, 300.0, lambda h: h * 3 // 10)
    slc = sync + (sync // 5) * (4 - ioprio)
    if cfq.cfq_latency:
        expect = sync * busy_queues
        if expect > target:
            low = min(slc, 2 * idle * slc // sync)
            slc = max(slc * target // expect, low)
    return slc * 1000.0 / HZ
