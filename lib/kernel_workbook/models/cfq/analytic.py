"""Closed forms of the model's mechanisms: the disk's seek curve and rates, CFQ's scaled slice.

The event loop uses :func:`seek_table_ns` (its ``SEEK`` array); the rest
serves teaching tables and the analytic checks of the tests.

The seek curve is a function of the cylinder distance ``d``: 0 for ``d = 0``;
from ``seek_track_ms`` growing with ``sqrt(d)`` to ``seek_avg_ms`` at a third
of the stroke (the arm accelerates then coasts: Ruemmler & Wilkes, "An
introduction to disk drive modeling", 1994), then linearly to
``seek_full_ms``.
"""

from __future__ import annotations

import numpy as np

from ...errors import WorkbookParameterError
from .params import CFQParams, DiskParams, IOParams, SECTOR


def seek_ms(d: DiskParams, distance_cyl) -> np.ndarray:
    """Seek time (ms) over ``distance_cyl`` cylinders (array-friendly)."""
    x = np.asarray(distance_cyl, dtype=float)
    third = max(2.0, d.cylinders / 3.0)
    short = d.seek_track_ms + (d.seek_avg_ms - d.seek_track_ms) * np.sqrt(np.clip(x - 1, 0, None) / (third - 1))
    long_ = d.seek_avg_ms + (d.seek_full_ms - d.seek_avg_ms) * (x - third) / max(1.0, d.cylinders - third)
    out = np.where(x <= third, short, long_)
    return np.where(x <= 0, 0.0, out)


def seek_table_ns(d: DiskParams, max_distance: int | None = None) -> np.ndarray:
    """int64 seek times (ns) for every cylinder distance 0..max_distance (the kernel's ``SEEK``)."""
    n = d.cylinders if max_distance is None else min(d.cylinders, int(max_distance))
    return np.rint(seek_ms(d, np.arange(n + 1)) * 1e6).astype(np.int64)


def sequential_rate_mb_s(d: DiskParams) -> float:
    """What one sequential stream gets from the media (MB/s): the analytic bound."""
    return d.sectors_per_track * SECTOR * d.rpm / 60.0 / 1e6


def random_op_ms(d: DiskParams, distance_cyl: float, kb: float = 4.0) -> float:
    """Expected time of one random op without reordering: seek + half a turn + transfer (ms)."""
    return float(seek_ms(d, distance_cyl)) + 0.5 * 60e3 / d.rpm + kb * 1024 / (sequential_rate_mb_s(d) * 1e3)


def scaled_slice_ms(cfq: CFQParams, busy_queues: int, HZ: int = 1000, ioprio: int = 4) -> float:
    """A sync queue's slice in steady state (ms): ``cfq_scaled_cfqq_slice()`` with the busy-queue
    average caught up at ``busy_queues``, in the kernel's integer jiffies.

    The jiffies are the knobs' own conversions (the ones the event loop is
    given), so this table and the simulation cannot disagree.
    """
    if isinstance(busy_queues, bool) or not isinstance(busy_queues, (int, np.integer)) or busy_queues < 1:
        raise WorkbookParameterError("busy_queues", busy_queues, "an integer >= 1")
    p = IOParams(cfq=cfq, HZ=HZ)
    j = {n: CFQParams.knob(n).kernel_value(getattr(cfq, n), p)
         for n in ("cfq_slice_sync", "cfq_slice_idle", "cfq_target_latency")}
    sync, idle, target = j["cfq_slice_sync"], j["cfq_slice_idle"], j["cfq_target_latency"]
    slc = sync + (sync // 5) * (4 - ioprio)  # cfq_prio_slice(): CFQ_SLICE_SCALE = 5
    if cfq.cfq_latency:
        expect = sync * busy_queues
        if expect > target:
            low = min(slc, 2 * idle * slc // sync)
            slc = max(slc * target // expect, low)
    return slc * 1000.0 / HZ


__all__ = ["seek_ms", "seek_table_ns", "sequential_rate_mb_s", "random_op_ms", "scaled_slice_ms"]
