"""Where a time series starts again inside one file: counters that went down, clocks set back.

The kernel's event counters (``/proc/vmstat``'s ``pgfault``, ``pgscan_kswapd`` ...) only grow while the
machine is up; they go down only when it reboots (a capture that kept running across a reboot, or two
captures appended to one log) or when a 32-bit ``unsigned long`` wraps past 2**32.  Neither case says what
happened between the two snapshots, so a delta or a rate across them would be invented: the series is cut
there into **segments**, each read on its own, and a :class:`~kernel_workbook.errors.SeriesBreakWarning`
names the file, the line and the counter.  A wall clock that goes back (``vmstat -t``, ``iostat -t``, the
``time:`` lines of a series: set by hand or stepped by NTP) is cut the same way.

``elapsed`` stays the seconds since the first record within a segment; across a clock step it goes on from
the end of the segment before by one median interval (the sampling interval of the capture, which the
warning states), so it never goes backwards and never jumps by the size of the step.

Segments are recorded in ``df.attrs["segments"]``, one dict each: ``segment``, ``first_sample``,
``last_sample``, ``line`` (where it starts; None for the first) and ``why`` (None for the first).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import SeriesBreakWarning

#: the most breaks a warning lists one by one
SHOWN = 10


def decreases(values: np.ndarray) -> np.ndarray:
    """Row ``i`` (of a 2-D array of counters, one column each) where some column is lower than in row ``i-1``.

    Returns ``(rows, columns)``: the row indexes where a break starts and, for each, the first column that
    went down.  NaN (a counter a snapshot lacks) is never a decrease."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[0] < 2 or v.shape[1] == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        down = v[1:] < v[:-1]
    rows = np.flatnonzero(down.any(axis=1)) + 1
    cols = down[rows - 1].argmax(axis=1) if rows.size else np.empty(0, dtype=np.int64)
    return rows, cols


def clock_steps(t) -> np.ndarray:
    """Indexes ``i`` where ``t[i] < t[i-1]`` (the clock went back); NaN is never a step."""
    t = np.asarray(t, dtype=float)
    if t.size < 2:
        return np.empty(0, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        return np.flatnonzero(t[1:] < t[:-1]) + 1


def continued_elapsed(t, steps=None) -> np.ndarray:
    """Seconds since the first record, going on across the clock steps at *steps* (default: every index where
    *t* goes back) by one median interval; exactly ``t - t[0]`` when there is none."""
    t = np.asarray(t, dtype=float)
    if t.size == 0:
        return t.copy()
    steps = clock_steps(t) if steps is None else np.asarray(steps, dtype=np.int64)
    out = t - t[0]
    if steps.size:
        d = np.diff(t)
        good = d[np.isfinite(d) & (d > 0)]
        gap = float(np.median(good)) if good.size else 0.0
        offset = np.zeros(t.size)
        for i in steps:
            # the record after the step comes one interval after the one before it
            offset[i:] += (t[i - 1] + offset[i - 1]) - (t[i] + offset[i]) + gap
        out = t - t[0] + offset
    return out


def median_interval(t) -> float:
    d = np.diff(np.asarray(t, dtype=float))
    good = d[np.isfinite(d) & (d > 0)]
    return float(np.median(good)) if good.size else float("nan")


def describe(n: int, starts: list[tuple[int, int | None, str]]) -> list[dict]:
    """``attrs["segments"]`` of a series of *n* records cut at *starts* ``[(record, line, why)]``."""
    starts = sorted(starts)
    firsts = [0] + [s for s, _, _ in starts]
    out = []
    for k, first in enumerate(firsts):
        last = (firsts[k + 1] - 1) if k + 1 < len(firsts) else n - 1
        line, why = (None, None) if k == 0 else starts[k - 1][1:]
        out.append({"segment": k, "first_sample": int(first), "last_sample": int(last), "line": line, "why": why})
    return out


def segment_column(n: int, starts) -> np.ndarray:
    """The segment number of each of *n* records, cut at the record indexes *starts*."""
    seg = np.zeros(n, dtype=np.int64)
    for s in starts:
        seg[int(s):] += 1
    return seg


def warn(source: str, breaks: list[tuple[int | None, str]], what: str, stacklevel: int = 4) -> None:
    """One :class:`SeriesBreakWarning` for the breaks ``[(line, why)]`` of a file."""
    if not breaks:
        return
    shown = "; ".join(f"line {ln}: {why}" if ln is not None else why for ln, why in breaks[:SHOWN])
    more = f"; and {len(breaks) - SHOWN} more" if len(breaks) > SHOWN else ""
    first = breaks[0][0]
    where = f"{source}:{first}" if first is not None else source
    warnings.warn(SeriesBreakWarning(
        f"{where}: {what} starts again {len(breaks)} time(s) ({shown}{more}); it is read as "
        f"{len(breaks) + 1} segments (attrs['segments']), and no delta, rate or elapsed time is taken across a "
        f"break"), stacklevel=stacklevel)


def reset_why(counter: str, before: float, after: float) -> str:
    wrap = " or a wrap past 2**32 of a 32-bit kernel's counter" if before < 2 ** 32 else ""
    return f"{counter} went down from {before:.0f} to {after:.0f} (a reset: a reboot{wrap})"


def step_why(before: float, after: float, gap: float, what: str = "the clock") -> str:
    g = f"; elapsed goes on by one median interval ({gap:g} s)" if gap == gap else ""
    return f"{what} went back {before - after:g} s{g}"
