"""``/proc/vmstat``: one snapshot or a series of snapshots.

A series is what mmtests' ``watch-proc-vmstat.sh`` writes (``time: <epoch>``
then the file, every interval) and what the shell loop of the 2007 thread
reads; snapshots without ``time:`` lines are split where the first counter
name comes round again.  The stamp lines people's own loops print between
snapshots are read too: ``date`` (``Wed Nov 25 03:30:50 UTC 2026``),
``date -R``, ``date +%s`` (a bare epoch), ``date -Iseconds`` and
``date '+%F %T'``, also framed by ``===``/``---`` (``echo "=== $(date)"``).  Counter names are whatever the kernel printed:
2.6.23's ``pgscan_kswapd_dma32``, ``pgsteal_normal``, ``kswapd_steal``; 3.x's
``pgsteal_kswapd_*``, ``compact_*``, ``numa_*``, ``thp_*``; 6.x's
``pgscan_kswapd``, ``pgsteal_anon``...  Lines a mail or shell session adds
(prompts, ``grep`` commands) are refused unless ``lenient=True``.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from . import segments
from ._common import (guarded, fail, line_of, read_source, read_stamp, set_attrs, stamp_epoch,
                      strip_latency_prefix, unglue_restart, warn_skipped, warn_truncated)

_LINE_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*) (-?\d+)[ \t]*$", re.M)
_TIME_RE = re.compile(r"^time: *(\d+(?:\.\d+)?)[ \t]*$", re.M)
_ANY_RE = re.compile(r"^[^\n]*\S[^\n]*$", re.M)

#: Counters that are gauges (a level, not an event count): every ``nr_*``
#: plus the few others the kernel prints; deltas make no sense for them.
GAUGE_PREFIXES = ("nr_", "workingset_nodes")
GAUGES = {"nr_free_pages", "numa_foreign"} - {"numa_foreign"}


def is_gauge(counter: str) -> bool:
    """True for ``nr_*`` levels (and the thresholds); False for event counters."""
    return counter.startswith(GAUGE_PREFIXES) or counter.endswith(("_threshold",)) or counter in GAUGES


@guarded
def parse_proc_vmstat(src, source: str | None = None, max_bytes: int | None = None,
                      lenient: bool = False) -> pd.DataFrame:
    """Parse one or more ``/proc/vmstat`` snapshots.

    Returns
    -------
    DataFrame
        Wide: one row per snapshot, one int64 column per counter in the
        order the kernel printed them (a counter missing from a snapshot is
        NaN, and the column is then float), plus ``time`` (epoch seconds from
        ``time:`` lines or the mmtests latency prefix, when present),
        ``elapsed`` (seconds since the first snapshot) and ``sample`` (0-based).
        ``attrs``: ``source``, ``format="proc-vmstat"``, ``version`` (a guess
        at the kernel generation from the counter names: ``"2.6"``,
        ``"3.x-4.7"`` (zone LRUs), ``"4.8+"`` (node LRUs, ``pgscan_kswapd``)),
        ``timezone="UTC"`` when times are present.  Under dated stamp lines
        there is also ``timestamp`` (the wall clock as printed); ``time`` then
        needs the zone on the line (an offset or a known abbreviation), and
        ``timezone`` is that zone.
    """
    text, name = read_source(src, source, max_bytes)
    text, stamps = strip_latency_prefix(text)
    text, cuts = unglue_restart(text, name, r"time: *\d", r"[A-Za-z_][A-Za-z0-9_]*(?: -?\d*)?", literal="time:")
    if stamps is None and not cuts and len(text) > FAST_MIN and text.startswith("time:") and text.isascii():
        fast = _fast_series(text, name)
        if fast is not None:
            return fast
    counters = [(m.start(), m.group(1), m.group(2)) for m in _LINE_RE.finditer(text)]
    times = [(m.start(), float(m.group(1))) for m in _TIME_RE.finditer(text)]
    n_lines = sum(1 for _ in _ANY_RE.finditer(text))
    walls: dict[int, tuple] = {}  # position -> (wall clock, zone) of a dated stamp line
    if n_lines != len(counters) + len(times):
        known = {p for p, *_ in counters} | {p for p, _ in times}
        for m in _ANY_RE.finditer(text):
            if m.start() not in known:
                st = read_stamp(m.group(0))
                if st is not None and st[0] is None:
                    times.append((m.start(), st[1]))  # date +%s: the epoch itself
                    known.add(m.start())
                elif st is not None:
                    walls[m.start()] = st
        times = sorted(times + [(p, stamp_epoch(w, z)) for p, (w, z) in walls.items()])
        known |= set(walls)
    if n_lines != len(counters) + len(times):
        bad = [m for m in _ANY_RE.finditer(text) if m.start() not in known]
        last_nonblank = list(_ANY_RE.finditer(text))[-1]
        if len(bad) == 1 and bad[0].start() == last_nonblank.start() and not text.endswith("\n") \
                and re.match(r"^[A-Za-z_][A-Za-z0-9_]*( -?\d*)?$", bad[0].group(0)):
            warn_truncated(name, text.count("\n", 0, bad[0].start()) + 1, "/proc/vmstat line")
        elif lenient:
            # the same warning as every other parser's: a caller filters one class, and the message says
            # which lines were left out, so that nothing is dropped unseen
            warn_skipped(name, [line_of(text, m.start()) for m in bad], [m.group(0) for m in bad],
                         "'<counter> <value>' or a time stamp line (/proc/vmstat)", stacklevel=4)
        else:
            raise fail(name, text, bad[0].start(), "'<counter> <value>' or a time stamp line ('time: <epoch>', "
                       "a bare epoch, date's 'Wed Nov 25 03:30:50 UTC 2026', ISO 8601) (/proc/vmstat)")
    if not counters:
        raise fail(name, text, None, "at least one '<counter> <value>' line (/proc/vmstat)", text[:80])
    pos = np.fromiter((c[0] for c in counters), dtype=np.int64, count=len(counters))
    names = [c[1] for c in counters]
    values = np.array([c[2] for c in counters], dtype=object)
    try:
        vals = values.astype(np.int64)
    except OverflowError:  # a counter past 2**63 (never seen, but do not crash)
        vals = values.astype(np.float64)
    if times:
        tpos = np.array([t[0] for t in times], dtype=np.int64)
        snap = np.searchsorted(tpos, pos) - 1
        if (snap < 0).any():  # counters before the first time: line form their own snapshot
            snap = snap + 1
            tvals = np.concatenate([[np.nan], [t[1] for t in times]])
        else:
            tvals = np.array([t[1] for t in times])
    else:
        first = names[0]
        is_first = np.fromiter((n == first for n in names), dtype=bool, count=len(names))
        snap = np.cumsum(is_first) - 1
        tvals = None
    long = pd.DataFrame({"snap": snap, "counter": names, "value": vals})
    if long.duplicated(["snap", "counter"]).any():
        d = long[long.duplicated(["snap", "counter"])].index[0]
        raise fail(name, text, int(pos[d]), "each counter once per snapshot (a 'time:' line between snapshots)")
    order = list(dict.fromkeys(names))
    wide = long.pivot(index="snap", columns="counter", values="value").reindex(columns=order)
    wide.columns.name = None
    if cuts:
        # a snapshot cut where a new run starts (its cut line already warned about) is partial: drop it
        before = np.searchsorted(pos, np.array(cuts, dtype=np.int64)) - 1
        wide = wide.drop(index=sorted({int(snap[b]) for b in before if b >= 0}), errors="ignore")
    if len(wide) > 1 and wide.iloc[-1].isna().any() and wide.iloc[-2].notna().all():
        # the last snapshot lacks counters the one before had: the file was cut inside it
        missing = wide.columns[wide.iloc[-1].isna().to_numpy()]
        warn_truncated(name, text.count("\n") + 1, f"/proc/vmstat snapshot (it lacks {len(missing)} counters, "
                       f"from {missing[0]}); the snapshot was dropped")
        wide = wide.iloc[:-1]
    full = wide.notna().all()
    wide = wide.astype({c: vals.dtype for c in wide.columns[full.to_numpy()]})
    used = wide.index.to_numpy()
    extra: dict[str, np.ndarray] = {}
    zone = "UTC"
    if walls:
        # the snapshots' wall clocks as printed; time (epoch) only where the line gave its zone
        wpos = [p for p, _ in times]
        wall = np.array([walls[p][0] if p in walls else pd.NaT for p in wpos], dtype="datetime64[ns]")
        if len(tvals) == len(wpos) + 1:
            wall = np.concatenate([np.array([pd.NaT], dtype="datetime64[ns]"), wall])
        extra["timestamp"] = wall[used]
        zones = {z for _, z in walls.values()}
        zone = zones.pop() if len(zones) == 1 else "MIXED"
        tvals = np.asarray(tvals, dtype=float)
        if np.isnan(tvals[used]).all():
            tvals = None  # no zone anywhere: wall clocks only
    if tvals is not None:
        extra["time"] = tvals[used]
    elif stamps is not None:
        first_line = np.array([text.count("\n", 0, int(pos[np.flatnonzero(snap == s)[0]])) for s in used])
        extra["time"] = stamps[first_line, 0]
    if "timestamp" in extra and "time" not in extra:
        clock = (extra["timestamp"] - extra["timestamp"][0]) / np.timedelta64(1, "s")
    else:
        clock = extra.get("time")

    def counter_line(r, c):
        names_a = np.asarray(names, dtype=object)
        at = np.flatnonzero((snap == used[r]) & (names_a == c))
        return line_of(text, int(pos[at[0]])) if at.size else None

    def clock_line(r):
        return line_of(text, int(pos[np.flatnonzero(snap == used[r])[0]])) - 1

    segs, elapsed = _segments(name, wide, clock, counter_line, clock_line)
    if elapsed is not None:
        extra["elapsed"] = elapsed
    extra["sample"] = np.arange(len(wide))
    wide = pd.concat([wide.reset_index(drop=True), pd.DataFrame(extra)], axis=1)
    return set_attrs(wide, name, "proc-vmstat", _version(order), zone if "time" in wide.columns or walls else None,
                     segments=segs)


def _version(names) -> str | None:
    """The kernel generation the counter names point to (see :func:`parse_proc_vmstat`)."""
    cols = set(names)
    if "pgscan_kswapd" in cols or "pgsteal_kswapd" in cols:
        return "4.8+"
    if "kswapd_steal" in cols:
        return "2.6"
    if any(c.startswith("pgsteal_kswapd_") for c in cols):
        return "3.x-4.7"
    return None


#: Texts longer than this (ASCII, starting with a 'time:' line) try the one-pass reader first.
FAST_MIN = 20000


class _Break(Exception):
    """The series starts again somewhere: the general reader names the lines."""


def _fast_series(text: str, name: str) -> pd.DataFrame | None:
    """The series mmtests' ``watch-proc-vmstat.sh`` writes (``time: <epoch>``, then the same counters in the
    same order every time), read by numba into the frame's columns without a string per line: a regex match a
    line took 9 s and 21x the file's size for 10**6 lines.  None for anything else (other stamp lines, a
    counter missing, added or moved, a cut snapshot, a counter reset or the clock going back), which the
    general reader then reads, warns about or refuses as before."""
    from ._fastscan import scan_series

    first = _TIME_RE.match(text)
    if first is None:
        return None
    nxt = text.find("\ntime:", first.end())
    names = [m.group(1) for m in _LINE_RE.finditer(text, first.end(), nxt if nxt >= 0 else len(text))]
    if not names or len(set(names)) != len(names):
        return None
    scan = scan_series(text, names, text.count("\ntime:") + 1)
    if scan is None:
        return None
    vals, times = scan
    wide = pd.DataFrame(vals.T, columns=pd.Index(names), copy=False)

    def stop(*_):
        raise _Break

    try:
        segs, elapsed = _segments(name, wide, times, stop, stop)
    except _Break:
        return None
    extra = {"time": times, "elapsed": elapsed, "sample": np.arange(len(wide))}
    wide = pd.concat([wide, pd.DataFrame(extra)], axis=1)
    return set_attrs(wide, name, "proc-vmstat", _version(names), "UTC", segments=segs)


def _segments(name: str, wide: pd.DataFrame, clock, counter_line, clock_line):
    """The segments of a series (see :mod:`.segments`): cut where an event counter went down or the clock went
    back, with one warning naming the lines.  Returns ``(attrs["segments"], elapsed or None)``;
    ``counter_line(row, counter)`` and ``clock_line(row)`` give the line numbers of a break."""
    ev = [c for c in wide.columns if not is_gauge(c) and pd.api.types.is_numeric_dtype(wide[c])]
    rows, cols = segments.decreases(wide[ev].to_numpy(dtype=float)) if ev else ([], [])
    starts: dict[int, tuple[int | None, str]] = {}
    for r, c in zip(rows, cols):
        r = int(r)
        col = ev[int(c)]
        before, after = float(wide[col].iloc[r - 1]), float(wide[col].iloc[r])
        starts[r] = (counter_line(r, col) if len(starts) < segments.SHOWN else None,
                     segments.reset_why(col, before, after))
    elapsed = None
    if clock is not None:
        clock = np.asarray(clock, dtype=float)
        steps = segments.clock_steps(clock)
        gap = segments.median_interval(clock)
        for r in steps:
            r = int(r)
            why = segments.step_why(clock[r - 1], clock[r], gap)
            starts[r] = (clock_line(r), why) if r not in starts else (starts[r][0], starts[r][1] + "; " + why)
        elapsed = segments.continued_elapsed(clock, steps)
    breaks = sorted(starts.items())
    segments.warn(name, [b for _, b in breaks], "the /proc/vmstat series", stacklevel=5)
    return segments.describe(len(wide), [(r, ln, why) for r, (ln, why) in breaks]), elapsed


def counter_columns(df: pd.DataFrame) -> list[str]:
    """The counter columns of a /proc/vmstat frame (not ``time``, ``elapsed``, ``sample``)."""
    meta = {"time", "elapsed", "sample", "run", "iteration", "test", "interval", "segment"}
    return [c for c in df.columns if c not in meta and pd.api.types.is_numeric_dtype(df[c])]


def segment_ids(df: pd.DataFrame) -> tuple[np.ndarray, list[dict]]:
    """The segment of each row of a /proc/vmstat frame, and their description (see :mod:`.segments`).

    A segment ends where an event counter went down (a reboot, or a 32-bit wrap), where the clock (``time``)
    went back, and where ``run``, ``iteration`` or ``test`` changes (the logs a :class:`~.bundle.Bundle`
    stacks): no interval spans two segments.  Read from the values, not from ``attrs``, so that a frame that
    was filtered, concatenated or built by hand is cut the same way.  The description numbers the samples by
    row (``first_sample``, ``last_sample``), as the frames :func:`df_deltas` returns do."""
    n = len(df)
    starts: dict[int, str] = {}
    for key in ("run", "iteration", "test"):
        if key in df.columns and n > 1:
            v = df[key].to_numpy()
            for r in np.flatnonzero(v[1:] != v[:-1]) + 1:
                starts.setdefault(int(r), f"{key} changes from {v[r - 1]!r} to {v[r]!r}")
    ev = [c for c in counter_columns(df) if not is_gauge(c)]
    rows, cols = segments.decreases(df[ev].to_numpy(dtype=float)) if ev else ([], [])
    for r, c in zip(rows, cols):
        r = int(r)
        starts.setdefault(r, segments.reset_why(ev[int(c)], float(df[ev[int(c)]].iloc[r - 1]),
                                                float(df[ev[int(c)]].iloc[r])))
    if "time" in df.columns:
        t = df["time"].to_numpy(dtype=float)
        gap = segments.median_interval(t)
        for r in segments.clock_steps(t):
            starts.setdefault(int(r), segments.step_why(t[r - 1], t[r], gap))
    ids = segments.segment_column(n, sorted(starts))
    return ids, segments.describe(n, [(r, None, why) for r, why in sorted(starts.items())])


def segments_text(desc: list[dict]) -> str:
    """``attrs["segments"]`` in words: which samples each segment holds and why it starts."""
    if len(desc) <= 1:
        return "one segment" + (f" (samples {desc[0]['first_sample']}-{desc[0]['last_sample']})" if desc else "")
    return f"{len(desc)} segments: " + "; ".join(
        f"samples {d['first_sample']}-{d['last_sample']}" + (f" (after: {d['why']})" if d["why"] else "")
        for d in desc)


def _across(seg: np.ndarray) -> np.ndarray:
    """The intervals (row i-1 to row i, for i >= 1) that span two segments."""
    return seg[1:] != seg[:-1]


def df_deltas(df: pd.DataFrame, gauges: bool = False) -> pd.DataFrame:
    """Per-interval differences of the event counters of a /proc/vmstat series.

    Returns one row per interval (``len(df) - 1`` rows): the counters'
    differences (gauges such as ``nr_free_pages`` are dropped unless
    ``gauges=True``, in which case their level at the end of the interval is
    kept), ``interval`` (seconds, when ``time`` is known) and ``time``/``elapsed``
    at the end of the interval, ``sample``, and ``segment`` (see :func:`segment_ids`): an interval that spans
    two segments (a counter reset, a clock set back) has no delta, NaN, never a negative one.
    ``attrs["segments"]`` says which samples each segment holds.
    """
    cols = counter_columns(df)
    ev = [c for c in cols if not is_gauge(c)]
    seg, desc = segment_ids(df)
    across = _across(seg)
    d = df[ev].astype(float).diff().iloc[1:].reset_index(drop=True)
    d.loc[across, :] = np.nan
    parts = [d]
    if gauges:
        g = [c for c in cols if is_gauge(c)]
        parts.append(df[g].iloc[1:].reset_index(drop=True))
    extra = {}
    for c in ("time", "elapsed"):
        if c in df.columns:
            extra[c] = df[c].iloc[1:].to_numpy()
    if "time" in df.columns:
        iv = df["time"].diff().iloc[1:].to_numpy()
        extra["interval"] = np.where(across, np.nan, iv)
    extra["sample"] = np.arange(1, len(df))
    extra["segment"] = seg[1:]
    parts.append(pd.DataFrame(extra))
    out = pd.concat(parts, axis=1)
    out.attrs = dict(df.attrs)
    out.attrs["segments"] = desc
    return out


def df_rates(df: pd.DataFrame) -> pd.DataFrame:
    """Event counters per second over each interval (needs ``time``); see :func:`df_deltas`."""
    d = df_deltas(df)
    if "interval" not in d.columns:
        from ..errors import WorkbookParameterError

        raise WorkbookParameterError("df", "a series without times", "a /proc/vmstat series with 'time:' lines")
    ev = [c for c in d.columns if c not in ("time", "elapsed", "interval", "sample", "segment")]
    iv = d["interval"].where(d["interval"] > 0)
    rest = [c for c in d.columns if c not in ev]
    out = pd.concat([d[ev].div(iv, axis=0), d[rest]], axis=1)
    out.attrs = dict(d.attrs)
    return out
