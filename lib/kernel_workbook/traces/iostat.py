"""``iostat`` output (sysstat 9 to 12): text reports and ``-o JSON``.

Text: the ``Linux ...`` banner, optional ``-t`` time lines, the ``avg-cpu``
block and the ``Device`` block of each report.  Device columns are read from
each ``Device`` header, so every layout works: the old ``-x``
(``rrqm/s wrqm/s r/s w/s rsec/s|rkB/s|rMB/s ... avgrq-sz avgqu-sz await
r_await w_await svctm %util``, with ``Device:`` and a colon), sysstat 11.5's
(``... aqu-sz rareq-sz wareq-sz svctm %util``), sysstat 12's grouped layout
(``r/s rkB/s rrqm/s %rrqm r_await rareq-sz w/s ... d/s ... f/s f_await aqu-sz
%util``) and the basic report (``tps kB_read/s ...``), also as ``--pretty`` prints them (the device name
last, ``-x``'s columns in groups of lines; ``-h``'s rounded ``285.9k`` is
refused).  Decimal commas (a
``LANG=de_DE`` run) and every ``-t`` date style sysstat prints
(``11/21/26 05:25:02``, ``11/21/2026 05:25:02 AM``, ``21.11.2026 05:25:02``,
ISO 8601 with ``S_TIME_FORMAT=ISO``) are read; a day-first date is recognised
when a day above 12 appears, from a dotted date, or from a 4-digit year on a
24-hour clock (``25/11/2026 03:29:01``: fr_FR, es_ES, it_IT...; glibc's
month-first locales print a 2-digit year, C, or AM/PM, en_US).  A run that
starts with a ``Linux`` banner has its first report since boot unless it was
``iostat -y`` (sysstat 12 marks the skipped report with one more blank line);
each banner of runs appended to one log starts a since-boot report again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import segments
from ..errors import WorkbookParseError
from ._common import (guarded, fail, fast_numbers, line_anchored_matches, line_matches, read_source, set_attrs,
                      strip_latency_prefix, unglue_restart, warn_truncated)

_BANNER_RE = re.compile(r"^(\S+) (\S+) \(([^)]*)\)\s+(\S+)\s+(\S+)?\s*(?:\((\d+) CPU\))?")
_TS_RES = [
    (re.compile(r"^\s*(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})([+-]\d{4}|Z)?\s*$"), "iso"),
    (re.compile(r"^\s*(\d{1,2})/(\d{1,2})/(\d{2,4})\s+(\d{1,2}):(\d{2}):(\d{2})(?:\s*([AaPp][Mm]))?\s*$"), "slash"),
    (re.compile(r"^\s*(\d{1,2})\.(\d{1,2})\.(\d{2,4})\s+(\d{1,2}):(\d{2}):(\d{2})\s*$"), "dot"),
    (re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})\s+(\d{1,2}):(\d{2}):(\d{2})\s*$"), "ymd"),
]


@dataclass
class Iostat:
    """Both frames of an iostat report."""

    devices: pd.DataFrame
    cpu: pd.DataFrame


#: Texts longer than this (and ASCII) take the one-pass numba path; shorter ones the line-by-line one.
FAST_MIN = 20000


@guarded
def parse_iostat(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``iostat [-x] [-t] [-k|-m] [-z] [-p]`` text or ``-o JSON``: the device lines.

    Returns
    -------
    DataFrame
        One row per device per report: ``device``, then sysstat's own column
        names for the layout in the file (for example ``r/s rkB/s rrqm/s
        %rrqm r_await rareq-sz w/s wkB/s wrqm/s %wrqm w_await wareq-sz d/s
        dkB/s drqm/s %drqm d_await dareq-sz f/s f_await aqu-sz %util`` in
        sysstat 12; ``rrqm/s wrqm/s r/s w/s rkB/s wkB/s avgrq-sz avgqu-sz
        await r_await w_await svctm %util`` in sysstat 9-11), then
        ``sample`` (report number, 0 = since boot), ``since_boot`` (bool),
        ``timestamp`` (datetime64, with ``-t``), ``time`` (epoch seconds, when
        the zone is known or from the mmtests latency prefix) and
        ``elapsed`` (seconds since the first report, when times are known).
        ``attrs``: ``source``, ``format="iostat"``, ``version`` (the layout:
        ``"sysstat 12"``, ``"sysstat 11.5"``, ``"sysstat 9-11"``,
        ``"basic"``), ``timezone``, ``kernel``, ``host``, ``ncpu``.
    """
    return read_iostat(src, source, max_bytes).devices


@guarded
def parse_iostat_cpu(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """The ``avg-cpu`` block of each report.

    Returns
    -------
    DataFrame
        ``%user %nice %system %iowait %steal %idle`` (as the header names
        them), ``sample``, ``since_boot`` and the time columns of
        :func:`parse_iostat`.
    """
    return read_iostat(src, source, max_bytes).cpu


@guarded
def read_iostat(src, source: str | None = None, max_bytes: int | None = None) -> Iostat:
    """Both frames (devices and avg-cpu) of an iostat text or JSON report."""
    text, name = read_source(src, source, max_bytes)
    if text.lstrip().startswith("{"):
        return _parse_json(text, name)
    text, stamps = strip_latency_prefix(text)
    text, cuts = unglue_restart(text, name, r"Linux \S+ \([^)\n]*\)", r"[^\n]*?[\d.,]", literal="Linux ")
    # The one-pass path first: it never reads a --pretty file (see _fast_iostat), so when it succeeds the
    # --pretty check, a Python loop over every 'Device' of the log (13 ms of a 10 MB one), is not needed.
    # Otherwise the order is as it always was: a --pretty file is put in the usual layout, then read.
    fast = _fast_iostat(text, name)
    if fast is None and line_matches(text, _PRETTY_RE, "Device"):
        text = _unpretty(text, name)
        fast = _fast_iostat(text, name)
    if fast is not None:
        return _finish(name, text, stamps, *fast)
    lines = text.split("\n")
    restarts = {text.count("\n", 0, c) for c in cuts}
    banner = {}
    report = -1
    opened = False
    ts_raw: dict[int, str] = {}
    ts_line: dict[int, int] = {}
    cpu_cols = None
    cpu_rows: list[tuple[int, str, int]] = []
    dev_header = None
    headers: list[list[str]] = []
    dev_hdr_idx: list[int] = []
    names: list[str] = []
    rests: list[str] = []
    rep: list[int] = []
    lno: list[int] = []
    groups: set[int] = set()  # indexes (in names) of -g group lines
    state = 0  # 0 idle, 1 expecting a cpu line, 2 in a device block
    for i, ln in enumerate(lines):
        if not ln or ln.isspace():
            state = 0
            continue
        if state and i in restarts:
            state = 0  # a new run glued to a record cut short (unglue_restart dropped the record, and warned)
        if state == 2:
            # -g prints a device group's line with a leading blank (' ALL  12.12 ...'), a device's without
            group = ln[0] == " " and ln[1:2] not in (" ", "\t", "") and dev_header is not None and \
                len(ln.split()) == len(dev_header) + 1
            if ln[0] not in " \t" or group:
                parts = ln.split(None, 1)
                if group:
                    groups.add(len(names))
                names.append(parts[0])
                rests.append(parts[1] if len(parts) > 1 else "")
                rep.append(report)
                lno.append(i)
                dev_hdr_idx.append(len(headers) - 1)
                continue
            state = 0
        if state == 1:
            cpu_rows.append((report, ln, i))
            state = 0
            continue
        if ln.startswith("avg-cpu:"):
            # a report opens at its time line, else at its avg-cpu block: under -c (no Device block
            # between them) each avg-cpu is the next report
            if opened != "ts":
                report += 1
            opened = "cpu"
            cpu_cols = ln.split()[1:]
            state = 1
            continue
        if ln.startswith("Device"):
            if not opened:
                report += 1
            opened = False
            dev_header = ln.split()[1:]
            if not headers or headers[-1] != dev_header:
                headers.append(dev_header)
            state = 2
            continue
        if ln.startswith("Linux ") or (report < 0 and not banner):
            m = _BANNER_RE.match(ln)
            if m and not _TS_RES[1][0].match(ln):
                # a second banner: another run appended to the same log; its reports carry on counting
                banner = banner or {"kernel": f"{m.group(1)} {m.group(2)}", "host": m.group(3),
                                    "date": m.group(4), "ncpu": int(m.group(6)) if m.group(6) else None}
                opened = False
                continue
        if any(r.match(ln) for r, _ in _TS_RES):
            report += 1
            opened = "ts"
            ts_raw[report] = ln.strip()
            ts_line[report] = i
            continue
        raise fail(name, text, ("line", i + 1), "an iostat banner, time, 'avg-cpu:' or 'Device' line", ln)
    if not names and not cpu_rows:
        raise fail(name, text, None, "an iostat report with an 'avg-cpu:' or 'Device' block", text[:80])
    decimal_comma = any("," in r for r in rests[:50]) or any("," in r[1] for r in cpu_rows[:50])
    # devices, one numeric block per header layout
    frames = []
    rep_a = np.array(rep, dtype=np.int64)
    hdr_a = np.array(dev_hdr_idx, dtype=np.int64)
    lno_a = np.array(lno, dtype=np.int64)
    names_a = np.array(names, dtype=object)
    for h, cols in enumerate(headers):
        sel = np.flatnonzero(hdr_a == h)
        if not sel.size:
            continue
        rs = [rests[j] for j in sel] if len(headers) > 1 else rests
        block = "\n".join(rs)
        if decimal_comma:
            block = block.replace(",", ".")
        arr = fast_numbers(block)
        if arr is None or arr.size != sel.size * len(cols):
            arr, sel = _slow_rows(name, text, lines, rs, sel, lno_a, cols, decimal_comma)
        df = pd.DataFrame(arr.reshape(len(sel), len(cols)), columns=cols)
        df.insert(0, "device", names_a[sel])
        if groups:
            df.insert(1, "group", np.isin(sel, list(groups)))
        df["sample"] = rep_a[sel]
        df["_line"] = lno_a[sel]
        frames.append(df)
    dev = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["device", "sample"])
    cpu = _cpu_frame(name, text, cpu_cols, cpu_rows, decimal_comma)
    return _finish(name, text, stamps, dev, cpu, ts_raw, ts_line, headers, banner)


# --pretty (and -h) put the device name last, and split -x's columns into groups of lines
_PRETTY_RE = re.compile(r"^[ \t]+\S[^\n]*[ \t]Device[ \t]*$", re.M)
_HUMAN_RE = re.compile(r"\d[kMGTPE%]$")
_HUMAN_EXPECTED = ("plain numbers: iostat -h (and --human) prints values rounded to a unit it picks ('285.9k', "
                   "'65.8%'); record without -h (--pretty alone is read)")


def _expected(plain: str, tokens: list[str]) -> str:
    # --human without --pretty keeps the usual layout, so only its values say what went wrong
    return _HUMAN_EXPECTED if any(_HUMAN_RE.search(v) for v in tokens) else plain


def _unpretty(text: str, name: str) -> str:
    """``iostat --pretty`` in the usual layout, line numbers kept: each report's groups (``r/s ... Device``,
    ``w/s ... Device``, ...) are joined onto the first group's lines, under one ``Device`` header, and the
    other groups' lines are blanked.  ``-h`` values (``285.9k``, ``65.8%``) are refused: sysstat rounded them
    to a unit of its choosing."""
    lines = text.split("\n")
    blocks = []  # [header line, columns, [(line, device, values)]] of one report, in order
    out = list(lines)
    full: list[str] = []  # the columns of the last whole report

    def flush(final=False):
        if not blocks:
            return
        h0, _, rows0 = blocks[0]
        devs = [d for _, d, _ in rows0]
        cols = [c for b in blocks for c in b[1]]
        short = [d for _, d, _ in blocks[-1][2]] != devs or (full and cols != full and cols == full[:len(cols)])
        if final and short and not "".join(lines[blocks[-1][2][-1][0] + 1:] if blocks[-1][2] else []).strip():
            # the file ends inside this report (a group, or a group's devices, missing): drop the report
            warn_truncated(name, h0 + 1, "iostat --pretty report (the file ends before its last group)")
            for h, _, rows in blocks:
                out[h] = ""
                for ln, _, _ in rows:
                    out[ln] = ""
            blocks.clear()
            return
        full[:] = cols
        for h, _, rows in blocks[1:]:
            if [d for _, d, _ in rows] != devs:
                raise fail(name, text, ("line", h + 1), "the devices of the first --pretty group ("
                           + " ".join(devs[:8]) + ") in the same order under each group of the report", lines[h])
        out[h0] = "Device " + " ".join(c for b in blocks for c in b[1])
        for k, (ln, d, _) in enumerate(rows0):
            out[ln] = d + " " + " ".join(v for b in blocks for v in b[2][k][2])
        for h, _, rows in blocks[1:]:
            out[h] = ""
            for ln, _, _ in rows:
                out[ln] = ""
        blocks.clear()

    i = 0
    while i < len(lines):
        ln = lines[i]
        if _PRETTY_RE.match(ln):
            cols = ln.split()[:-1]
            if any(set(cols) & set(b[1]) for b in blocks):
                flush()  # the same columns again: the next report (-d prints no avg-cpu or time between them)
            rows = []
            j = i + 1
            while j < len(lines) and lines[j].strip():
                t = lines[j].split()
                if any(_HUMAN_RE.search(v) for v in t[:-1]):
                    raise fail(name, text, ("line", j + 1), _HUMAN_EXPECTED, lines[j])
                rows.append((j, t[-1], t[:-1]))
                j += 1
            blocks.append([i, cols, rows])
            i = j
            continue
        if ln.strip():
            if _HUMAN_RE.search(ln.rstrip()) and blocks == [] and re.match(r"^\s+[\d.]+%", ln):
                raise fail(name, text, ("line", i + 1), _HUMAN_EXPECTED, ln)
            flush()  # an avg-cpu block, a time or a banner: the report's device groups are over
        i += 1
    flush(final=True)
    return "\n".join(out)


def _finish(name, text, stamps, dev, cpu, ts_raw, ts_line, headers, banner) -> Iostat:
    ts, tz = _timestamps(ts_raw, name, text, ts_line)
    boot = _since_boot_reports(text, dev, cpu)
    dev = _times(dev, ts, tz, stamps, boot)
    cpu = _times(cpu, ts, tz, stamps, boot)
    segs = _clock_steps(name, (dev, cpu), ts_line)
    if segs is not None:
        banner = {**banner, "segments": segs}
    cols = set(headers[0]) if headers else set()
    ver = ("sysstat 12" if "d/s" in cols or "%rrqm" in cols and "rareq-sz" in cols and "svctm" not in cols
           or "areq-sz" in cols or "kB_w+d/s" in cols  # -s, the short layout of sysstat 12
           else "sysstat 11.5" if "aqu-sz" in cols
           else "sysstat 9-11" if "avgqu-sz" in cols
           else "basic" if "tps" in cols else None)
    tzname = None if tz is None else ("UTC" if tz == 0 else f"UTC{tz / -3600:+.1f}h")
    for df in (dev, cpu):
        set_attrs(df, name, "iostat" if df is dev else "iostat-cpu", ver, tzname, **banner)
    return Iostat(dev, cpu)


def _fast_iostat(text: str, name: str):
    """One pass for the common layouts: numpy classifies the lines, numba reads the numbers.

    Returns the pieces :func:`_finish` takes, or None to let the general (line by line) path handle
    anything unusual, including every error, which it reports with its line.

    It returns None for every ``--pretty`` text, which :func:`read_iostat` relies on to skip its --pretty
    check when this path succeeds: a --pretty header (``   r/s ... Device``) opens with a blank, so it is
    classed as an avg-cpu numbers line, which must follow an ``avg-cpu:`` header and hold numbers only,
    and 'Device' is no number.
    """
    if len(text) <= FAST_MIN or not text.isascii():  # a short text is read as fast line by line
        return None
    from ._fastscan import line_spans, parse_rows, same_lines

    b = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    n = b.size
    starts, ends = line_spans(b)
    nonempty = ends > starts
    fb = np.where(nonempty, b[np.minimum(starts, n - 1)], 0)

    def startswith(idx, word):
        w = np.frombuffer(word.encode(), dtype=np.uint8)
        ok = (ends[idx] - starts[idx]) >= w.size
        idx = idx[ok]
        pos = starts[idx][:, None] + np.arange(w.size)[None, :]
        return idx[(b[pos] == w[None, :]).all(axis=1)]

    dev_hdr = startswith(np.flatnonzero(fb == ord("D")), "Device")
    cpu_hdr = startswith(np.flatnonzero(fb == ord("a")), "avg-cpu:")
    if not dev_hdr.size and not cpu_hdr.size:
        return None
    kind = np.zeros(starts.size, dtype=np.int8)  # 0 blank, 1 dev hdr, 2 cpu hdr, 3 cpu row, 4 ts, 5 dev row, 6 banner
    kind[dev_hdr] = 1
    kind[cpu_hdr] = 2
    spaced = np.flatnonzero((fb == 32) | (fb == 9))
    kind[spaced] = 3
    other = np.flatnonzero(nonempty & (kind == 0))
    banner = {}
    for i in other[fb[other] == ord("L")]:
        m = _BANNER_RE.match(text[starts[i]:ends[i]])
        if m and text.startswith("Linux ", starts[i]):
            banner = banner or {"kernel": f"{m.group(1)} {m.group(2)}", "host": m.group(3), "date": m.group(4),
                                "ncpu": int(m.group(6)) if m.group(6) else None}
            kind[i] = 6
    other = other[kind[other] == 0]
    digit = other[(fb[other] >= 48) & (fb[other] <= 57)]
    ts_raw, ts_line = {}, {}
    ts_idx = []
    for i in digit:
        ln = text[starts[i]:ends[i]]
        if any(r.match(ln) for r, _ in _TS_RES):
            ts_idx.append(i)
    ts_idx = np.array(ts_idx, dtype=np.int64)
    kind[ts_idx] = 4
    kind[(kind == 0) & nonempty] = 5
    idx = np.arange(starts.size)
    last_dev = np.maximum.accumulate(np.where(kind == 1, idx, -1))
    last_blank = np.maximum.accumulate(np.where((kind == 0) | (kind == 2) | (kind == 4), idx, -1))
    dev_rows = np.flatnonzero(kind == 5)
    if dev_rows.size and not (last_dev[dev_rows] > last_blank[dev_rows]).all():
        return None
    cpu_rows = np.flatnonzero(kind == 3)
    if cpu_rows.size and not (cpu_rows > 0).all() or cpu_rows.size and not (kind[cpu_rows - 1] == 2).all():
        return None
    if ts_idx.size:
        boundary = kind == 4
    elif cpu_hdr.size:
        boundary = kind == 2
    else:
        boundary = kind == 1
    report = np.cumsum(boundary) - 1
    # one layout per file (several, e.g. runs with other options appended, take the general path); compared
    # as bytes, since a Python string per header line cost a quarter of the parse
    if not same_lines(b, starts[dev_hdr], ends[dev_hdr]) or not same_lines(b, starts[cpu_hdr], ends[cpu_hdr]):
        return None
    headers = [text[starts[dev_hdr[0]]:ends[dev_hdr[0]]].split()[1:]] if dev_hdr.size else []
    cols = headers[0] if headers else []
    comma = bool(dev_rows.size) and "," in text[starts[dev_rows[0]]:ends[dev_rows[0]]] or \
        bool(cpu_rows.size) and "," in text[starts[cpu_rows[0]]:ends[cpu_rows[0]]]
    if dev_rows.size:
        vals, name_end, bad = parse_rows(b, starts[dev_rows], ends[dev_rows], len(cols), True, comma)
        if bad >= 0:
            return None
        dev = pd.DataFrame(vals, columns=cols)
        names = [text[s0:e0] for s0, e0 in zip(starts[dev_rows].tolist(), name_end.tolist())]
        dev.insert(0, "device", pd.Series(names, dtype=object))
        dev["sample"] = report[dev_rows]
        dev["_line"] = dev_rows
    else:
        dev = pd.DataFrame(columns=["device", "sample"])
    if cpu_rows.size:
        ccols = text[starts[cpu_hdr[0]]:ends[cpu_hdr[0]]].split()[1:]  # a cpu row follows a header
        vals, _, bad = parse_rows(b, starts[cpu_rows], ends[cpu_rows], len(ccols), False, comma)
        if bad >= 0:
            return None
        cpu = pd.DataFrame(vals, columns=ccols)
        cpu["sample"] = report[cpu_rows]
        cpu["_line"] = cpu_rows
    else:
        cpu = pd.DataFrame(columns=["sample"])
    for i in ts_idx:
        ts_raw[int(report[i])] = text[starts[i]:ends[i]].strip()
        ts_line[int(report[i])] = int(i)
    return dev, cpu, ts_raw, ts_line, headers, banner


_BANNER_LINE_RE = re.compile(r"^Linux \S+ \([^)]*\)[^\n]*$", re.M)


def _banner_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each match of :data:`_BANNER_LINE_RE`, exactly as ``finditer`` gives them, the pattern
    tried only where a line holds ``Linux `` (``finditer`` tried it at every character: half the parse of a
    10 MB log, for its one banner)."""
    return [m.span() for m in line_anchored_matches(text, _BANNER_LINE_RE, "Linux ")]


def _since_boot_reports(text: str, dev, cpu) -> set:
    """The reports computed since boot: the first of each run (each ``Linux ...`` banner starts one: logs
    of several runs appended), unless the run was ``iostat -y``.  sysstat 12 prints the report -y skips as
    one more blank line under the banner (two blank lines before the first report instead of one, in the
    text and the JSON layouts alike); without a banner, the first report is taken as the since-boot one."""
    banners = _banner_spans(text)
    if not banners:
        return {0}
    lines = np.concatenate([df["_line"].to_numpy(dtype=np.int64) for df in (dev, cpu) if "_line" in df.columns]
                           + [np.empty(0, dtype=np.int64)])
    samples = np.concatenate([df["sample"].to_numpy(dtype=np.int64) for df in (dev, cpu) if "_line" in df.columns]
                             + [np.empty(0, dtype=np.int64)])
    boot = set()
    for start, end in banners:
        after = text[end + 1:end + 200]
        blanks = len(after) - len(after.lstrip("\n"))
        first = np.flatnonzero(lines > text.count("\n", 0, start))
        if first.size and blanks < 2:
            boot.add(int(samples[first].min()))
    return boot


def _times(df, ts, tz, stamps, boot=frozenset({0})):
    df = df.copy()
    df["since_boot"] = df["sample"].isin(boot)
    if ts is not None:
        df["timestamp"] = df["sample"].map(ts).astype("datetime64[ns]")
        if tz is not None:
            df["time"] = df["timestamp"].astype("int64") / 1e9 - tz
    if stamps is not None and "_line" in df.columns:
        df["time"] = stamps[df["_line"].to_numpy(), 0]
    if "time" in df.columns and len(df):
        df["elapsed"] = df["time"] - df["time"].min()
    elif "timestamp" in df.columns and len(df):
        df["elapsed"] = (df["timestamp"] - df["timestamp"].min()).dt.total_seconds()
    return df.drop(columns=["_line"], errors="ignore")


def _clock_steps(name, frames, ts_line) -> list[dict] | None:
    """Cut the reports where the clock went back (``-t`` set back by hand or by NTP; see :mod:`.segments`):
    ``elapsed`` goes on across the step by one median interval instead of starting again at 0 or going
    negative, and one warning names the lines.  Returns ``attrs["segments"]`` (by report), None without
    times."""
    dev, cpu = frames
    col = "time" if any("time" in f.columns for f in frames) else (
        "timestamp" if any("timestamp" in f.columns for f in frames) else None)
    if col is None:
        return None
    per = pd.concat([f[["sample", col]] for f in frames if col in f.columns and len(f)])
    if not len(per):
        return None
    first = per.groupby("sample", sort=True)[col].first()
    clock = first.to_numpy(dtype=float) if col == "time" else \
        (first - first.iloc[0]).dt.total_seconds().to_numpy()
    steps = segments.clock_steps(clock)
    reports = first.index.to_numpy()
    if not steps.size:
        return segments.describe(len(reports), [])
    gap = segments.median_interval(clock)
    breaks = [(ts_line[int(reports[r])] + 1 if int(reports[r]) in ts_line else None,
               segments.step_why(clock[r - 1], clock[r], gap)) for r in steps]
    segments.warn(name, breaks, "the iostat series", stacklevel=6)
    elapsed = dict(zip(reports.tolist(), segments.continued_elapsed(clock, steps)))
    for f in frames:
        if "elapsed" in f.columns and len(f):
            if col == "time" and f["time"].nunique() != f["sample"].nunique():
                # mmtests' stamps: a time per line; each line keeps its offset from its report's first
                f["elapsed"] = f["sample"].map(elapsed) + (f["time"] - f["sample"].map(
                    f.groupby("sample")["time"].first()))
            else:
                f["elapsed"] = f["sample"].map(elapsed).to_numpy(dtype=float)
    desc = segments.describe(len(reports), [(int(r), b[0], b[1]) for r, b in zip(steps, breaks)])
    for d in desc:  # by report number, as 'sample' counts them
        d["first_sample"], d["last_sample"] = int(reports[d["first_sample"]]), int(reports[d["last_sample"]])
    return desc


def _slow_rows(name, text, lines, rs, sel, lno_a, cols, decimal_comma):
    out = []
    keep = []
    for k, (r, j) in enumerate(zip(rs, sel)):
        t = (r.replace(",", ".") if decimal_comma else r).split()
        ok = len(t) == len(cols)
        if ok:
            try:
                vals = [float(x) for x in t]
            except ValueError:
                ok = False
        if not ok:
            ln = int(lno_a[j])
            if k == len(rs) - 1 and len(t) < len(cols) and all(not x.strip() for x in lines[ln + 1:]):
                warn_truncated(name, ln + 1, f"iostat device line ({len(t) + 1} of {len(cols) + 1} fields)")
                break
            raise fail(name, text, ("line", ln + 1),
                       _expected(f"a device name and {len(cols)} numbers ({' '.join(cols)})", t), lines[ln])
        out.append(vals)
        keep.append(j)
    return np.array(out, dtype=float).reshape(len(out), len(cols)), np.array(keep, dtype=np.int64)


def _cpu_frame(name, text, cols, rows, decimal_comma):
    if not rows:
        return pd.DataFrame(columns=["sample"])
    vals = []
    reps = []
    lns = []
    for k, (r, ln, i) in enumerate(rows):
        t = (ln.replace(",", ".") if decimal_comma else ln).split()
        try:
            v = [float(x) for x in t]
        except ValueError:
            v = None
        if v is None or len(v) != len(cols):
            if k == len(rows) - 1 and (v is None or len(v) < len(cols)) and i >= len(text.split("\n", i + 2)) - 2:
                warn_truncated(name, i + 1, "avg-cpu line")
                break
            raise fail(name, text, ("line", i + 1), _expected(f"{len(cols)} numbers ({' '.join(cols)})", t), ln)
        vals.append(v)
        reps.append(r)
        lns.append(i)
    df = pd.DataFrame(np.array(vals, dtype=float).reshape(len(vals), len(cols)), columns=cols)
    df["sample"] = np.array(reps, dtype=np.int64)
    df["_line"] = np.array(lns, dtype=np.int64)
    return df


def _timestamps(raw: dict[int, str], name, text, where):
    """Map report -> Timestamp, and the UTC offset in seconds when printed (ISO) else None."""
    if not raw:
        return None, None
    out = {}
    tz = None
    parsed = {}
    day_first = None
    for k, s in raw.items():
        for r, kind in _TS_RES:
            m = r.match(s)
            if m:
                parsed[k] = (kind, m.groups())
                break
    kinds = {v[0] for v in parsed.values()}
    if "slash" in kinds:
        slash = [g for kd, g in parsed.values() if kd == "slash"]
        firsts = [int(g[0]) for g in slash]
        seconds = [int(g[1]) for g in slash]
        # Which locale printed it, when no day above 12 says so: glibc's slashed dates are month first with a
        # 2-digit year (C/POSIX, %m/%d/%y) or with AM/PM (en_US, %m/%d/%Y %r), and day first with a 4-digit
        # year on a 24-hour clock (fr_FR, es_ES, it_IT, pt_BR, en_IN: %d/%m/%Y %T).  Reading 05/11/2026
        # 03:29:01 month first put a fr_FR capture of 5 November in May.
        four_24h = all(len(g[2]) == 4 and not g[6] for g in slash)
        day_first = max(firsts) > 12 or (four_24h and max(seconds) <= 12)
        if max(firsts) > 12 and max(seconds) > 12:
            k = next(k for k, (kd, g) in parsed.items() if kd == "slash" and int(g[1]) > 12)
            raise fail(name, text, ("line", where[k] + 1), "dates in one order (a day above 12 appears both "
                       "first and second)", raw[k])
    for k, (kind, g) in parsed.items():
        try:
            if kind == "iso":
                ts = pd.Timestamp(f"{g[0]} {g[1]}")
                if g[2]:
                    off = 0 if g[2] == "Z" else (int(g[2][1:3]) * 3600 + int(g[2][3:5]) * 60) * (
                        1 if g[2][0] == "+" else -1)
                    tz = off
            elif kind == "ymd":
                ts = pd.Timestamp(int(g[0]), int(g[1]), int(g[2]), int(g[3]), int(g[4]), int(g[5]))
            else:
                a, b, y, hh, mm, ss = (int(x) for x in g[:6])
                if kind == "dot" or (kind == "slash" and day_first):
                    d, mo = a, b
                else:
                    mo, d = a, b
                if y < 100:
                    y += 2000 if y < 70 else 1900
                if kind == "slash" and g[6]:
                    pm = g[6].lower() == "pm"
                    hh = (hh % 12) + (12 if pm else 0)
                ts = pd.Timestamp(y, mo, d, hh, mm, ss)
        except ValueError:
            raise fail(name, text, ("line", where[k] + 1), "a valid date and time", raw[k]) from None
        out[k] = ts
    return out, tz


def _parse_json(text: str, name: str) -> Iostat:
    """``iostat -o JSON``, checked against the document sysstat writes (``print_gal_header()`` in common.c,
    ``write_json_cpu_stat()``, ``write_json_ext_stat()`` and ``write_json_basic_stat()`` in iostat.c)::

        {"sysstat": {"hosts": [{"nodename": str, "sysname": str, "release": str, "machine": str,
                                "number-of-cpus": int, "date": str,
                                "statistics": [{"timestamp": str (-t),
                                                "avg-cpu": {"user" "nice" "system" "iowait" "steal" "idle": number},
                                                "disk": [{"disk_device": str, <the layout's fields>: number}]}]}]}}

    sysstat writes one host, at least one report when it writes any, numbers only (``%.2f``), each key once,
    and every disk of a run with the same fields.  Anything else is an error naming its path in the document
    (``$.sysstat.hosts[0].statistics[3].disk[1]["r/s"]``) and its line: a string, ``NaN``, ``Infinity`` or
    ``1e400`` where a number belongs, a disk entry that is not an object, an empty ``statistics``, a second
    host, a duplicate key."""
    if len(text) > FAST_MIN and text.isascii():
        fast = _fast_json(text, name)
        if fast is not None:
            return fast
    host, devs, cpus, disk_keys, raw, where = _json_walk(text, name)
    dev_vals = np.array([v for _, v, _ in devs], dtype=float).reshape(len(devs), len(disk_keys or []))
    return _json_frames(text, name, host, disk_keys, dev_vals, [d for d, _, _ in devs],
                        np.array([r for _, _, r in devs], dtype=np.int64), cpus, raw, where)


def _json_walk(text: str, name: str):
    """The checked document: ``(host, devs [(device, values, report)], cpus [[numbers..., report]], disk keys,
    timestamps {report: text}, their lines {report: line index})``."""
    try:
        doc = json.loads(text, object_pairs_hook=_JsonObject.of, parse_constant=_not_a_number)
    except json.JSONDecodeError as e:
        if "Expecting" in e.msg and e.pos >= len(text.rstrip()) - 1:
            raise fail(name, text, e.pos, "complete iostat JSON (the file is cut)") from None
        raise fail(name, text, e.pos, f"iostat -o JSON ({e.msg})") from None
    chk = _JsonCheck(text, name, doc)
    root = chk.obj(doc, "$", {"sysstat"}, "the iostat -o JSON document, {\"sysstat\": {\"hosts\": [...]}}")
    top = chk.obj(root["sysstat"], "$.sysstat", {"hosts"}, "sysstat's object, {\"hosts\": [...]}")
    hosts = chk.arr(top["hosts"], "$.sysstat.hosts", "the list of hosts")
    if len(hosts) != 1:
        where = "$.sysstat.hosts" + ("[1]" if hosts else "")
        raise chk.error(where, "one host", f"{len(hosts)} hosts", "sysstat writes the machine iostat ran on; two "
                                                                  "machines' captures are two files")
    hp = "$.sysstat.hosts[0]"
    host = chk.obj(hosts[0], hp, set(_HOST_FIELDS), "a host object with " + ", ".join(_HOST_FIELDS))
    for key, kind in _HOST_FIELDS.items():
        chk.value(host[key], f"{hp}[{key!r}]", kind)
    stats = chk.arr(host["statistics"], f"{hp}.statistics", "the list of reports")
    if not stats:
        raise chk.error(f"{hp}.statistics", "at least one report", "[]", "sysstat writes none only when "
                                                                          "interrupted before its first: the "
                                                                          "capture holds nothing")
    devs, cpus = [], []
    disk_keys = None
    raw, where = {}, {}
    pos = 0
    for k, st in enumerate(stats):
        sp = f"{hp}.statistics[{k}]"
        st = chk.obj(st, sp, None, "a report object with 'timestamp', 'avg-cpu' and 'disk'", allowed=_REPORT_FIELDS)
        ts = st.get("timestamp")
        if ts is not None:
            chk.value(ts, f"{sp}['timestamp']", str)
            raw[k] = ts
            pos = max(text.find('"timestamp"', pos), 0)
            where[k] = text.count("\n", 0, pos)
            pos += 1
        if "avg-cpu" in st:
            cp = f"{sp}['avg-cpu']"
            c = chk.obj(st["avg-cpu"], cp, set(_CPU_FIELDS), "the avg-cpu object with " + ", ".join(_CPU_FIELDS))
            cpus.append([chk.number(c[f], f"{cp}[{f!r}]") for f in _CPU_FIELDS] + [k])
        if "disk" in st:
            dp = f"{sp}.disk"
            for j, d in enumerate(chk.arr(st["disk"], dp, "the list of disks")):
                ep = f"{dp}[{j}]"
                if disk_keys is None:
                    d = chk.obj(d, ep, None, "a disk object with 'disk_device' and numbers")
                    disk_keys = [x for x in d if x != "disk_device"]
                    first_disk = ep
                d = chk.obj(d, ep, {"disk_device", *disk_keys}, f"a disk object with the fields of the first "
                            f"({first_disk}): disk_device, " + ", ".join(disk_keys))
                dev = chk.value(d["disk_device"], f"{ep}['disk_device']", str)
                vals = [d[x] for x in disk_keys]
                if not _all_numbers(vals):
                    for x, v in zip(disk_keys, vals):
                        chk.number(v, f"{ep}[{x!r}]")
                devs.append((dev, vals, k))
    return host, devs, cpus, disk_keys, raw, where


def _json_frames(text, name, host, disk_keys, dev_vals, dev_names, dev_sample, cpus, raw, where) -> Iostat:
    """The frames of the checked document (:func:`_json_walk`), the disks' numbers a row each."""
    keys = [_JSON_NAMES.get(x, x) for x in disk_keys or []]
    if len(dev_names):
        dev = pd.DataFrame(dev_vals, columns=keys)
        dev.insert(0, "device", pd.Series(dev_names))
        dev["sample"] = dev_sample
    else:
        dev = pd.DataFrame(columns=["device", *keys, "sample"])
    if len(cpus):
        cpu = pd.DataFrame(np.array(cpus, dtype=float), columns=["%" + f for f in _CPU_FIELDS] + ["sample"])
        cpu["sample"] = cpu["sample"].astype(np.int64)
    else:
        cpu = pd.DataFrame(columns=["sample"])
    unknown = [v for v in raw.values() if not any(r.match(v) for r, _ in _TS_RES)]
    if unknown:
        k = next(k for k, v in raw.items() if v == unknown[0])
        raise fail(name, text, ("line", where[k] + 1), "an iostat timestamp (MM/DD/YY HH:MM:SS, a locale's date "
                   "and time, or ISO 8601)", unknown[0])
    ts, tz = _timestamps(raw, name, text, where)
    # sysstat 12 prints the report -y skips as a blank line at the head of 'statistics'
    omit = bool(re.search(r'"statistics":\s*\[[ \t]*\n[ \t]*\n', text))

    def fix(df):
        if "sample" in df.columns:
            if ts is not None:
                df["timestamp"] = df["sample"].map(ts).astype("datetime64[ns]")
                if tz is not None:
                    df["time"] = df["timestamp"].astype("int64") / 1e9 - tz
            df["since_boot"] = (df["sample"] == 0) & (not omit)
        return df

    dev, cpu = fix(dev), fix(cpu)
    meta = {"kernel": f"{host['sysname']} {host['release']}".strip(), "host": host["nodename"],
            "date": host["date"], "ncpu": host["number-of-cpus"]}
    tzname = None if tz is None else ("UTC" if tz == 0 else f"UTC{tz / -3600:+.1f}h")
    set_attrs(dev, name, "iostat", "sysstat JSON", tzname, **meta)
    set_attrs(cpu, name, "iostat-cpu", "sysstat JSON", tzname, **meta)
    return Iostat(dev, cpu)


_JSON_STATS_RE = re.compile(r'"statistics":\s*\[[ \t]*\n')
# a field of a report's line holding a number: '"r/s": 45.65', '"util": 0.81}', '"avg-cpu":  {"user": 14.77'
_JSON_NUM_FIELD_RE = re.compile(r'(.*?:\s*(?:\{"[^"]*":\s*)?)(-?\d+(?:\.\d+)?)(\}?\]?)')
_JSON_KEY_RE = re.compile(r'"([^"\\]*)":')
_JSON_REPORT_END_RE = re.compile(r"^[ \t]*\},[ \t]*$", re.M)


def _fast_json(text: str, name: str) -> Iostat | None:
    """``iostat -o JSON`` (no ``-t``): every report the lines of the first, only the numbers changing, read by
    numba (:func:`~._fastperf.scan_fields`, a line's fields split at its commas) up to the last report; the
    document made of the header, the first report and what the scan left (the last report and the closing
    lines, or whatever stopped it) is checked and read by :func:`_json_walk` as a whole file is.  The reports
    scanned are the first one's lines with other numbers (JSON numbers, at most 15 digits), so what the walk
    checks in the first holds for them.  None for anything else (timestamps, a first report the walk refuses,
    disks whose fields come in another order), which the walk then reads or refuses as before."""
    from ._fastperf import JSON_NUMBER, Field, scan_fields

    if '"timestamp"' in text:
        return None
    m = _JSON_STATS_RE.search(text, 0, 65536)
    if m is None:
        return None
    end = _JSON_REPORT_END_RE.search(text, m.end(), m.end() + 65536)
    if end is None:
        return None
    first_end = end.end() + 1
    report = [ln for ln in text[m.end():first_end].split("\n") if ln.strip()]
    if not report or report[-1].strip() != "},":
        return None
    template, disks, cpu_line = [], [], None
    for ln in report:
        line = []
        for f in ln.strip().split(","):
            f = f.strip()
            num = _JSON_NUM_FIELD_RE.fullmatch(f)
            line.append(Field(JSON_NUMBER, num.group(1), num.group(3)) if num else f)
        # each number's key: the last before it ('"avg-cpu":  {"user": ' holds two)
        numbers = [(_JSON_KEY_RE.findall(x[0]) or [None])[-1] for x in line if isinstance(x, tuple)]
        if numbers and ln.strip().startswith('"avg-cpu"'):
            if cpu_line is not None or tuple(numbers) != _CPU_FIELDS:
                return None
            cpu_line = len(template)
        elif numbers:
            disks.append((len(template), numbers))
        template.append(line)
    if disks and any(d[1] != disks[0][1] for d in disks):
        return None  # fields in another order: the walk reads them by the first disk's names
    scan = scan_fields(text, ",", template, text.count("\n") // len(report) + 2, partial=True, start=m.end())
    if scan is None or scan[3] < 2:
        return None
    numbers, _, _, done, rest = scan
    head = text[:m.end()]
    try:
        host, devs, cpus, disk_keys, raw, where = _json_walk(head + text[m.end():first_end] + text[rest:], name)
    except WorkbookParseError:
        return None
    if raw or (disks and disk_keys != disks[0][1]):
        return None
    per = numbers.size // done
    nums = numbers.reshape(done, per)
    # where each number of a report sits: the lines' numbers in the order of the text
    at, pos = {}, 0
    for j, line in enumerate(template):
        n = sum(isinstance(x, tuple) for x in line)
        at[j] = np.arange(pos, pos + n)
        pos += n
    first_devs = [d for d in devs if d[2] == 0]
    if len(first_devs) != len(disks) or (cpu_line is not None) != any(c[-1] == 0 for c in cpus):
        return None
    later_devs = [d for d in devs if d[2] > 0]
    dev_pos = np.concatenate([at[j] for j, _ in disks]) if disks else np.zeros(0, dtype=np.int64)
    fast_dev = nums[:, dev_pos].reshape(done * len(disks), -1) if disks else np.zeros((0, 0))
    if disks and not np.array_equal(fast_dev[:len(disks)], np.array([v for _, v, _ in first_devs], dtype=float)):
        return None
    dev_vals = np.concatenate([fast_dev, np.array([v for _, v, _ in later_devs], dtype=float).reshape(
        len(later_devs), fast_dev.shape[1])]) if disks else np.zeros((0, len(disk_keys or [])))
    names = [d for d, _, _ in first_devs] * done + [d for d, _, _ in later_devs]
    sample = np.concatenate([np.repeat(np.arange(done, dtype=np.int64), len(disks)),
                             np.array([r + done - 1 for _, _, r in later_devs], dtype=np.int64)])
    if cpu_line is not None:
        fast_cpu = np.column_stack([nums[:, at[cpu_line]], np.arange(done)])
        later = np.array([c[:-1] + [c[-1] + done - 1] for c in cpus if c[-1] > 0], dtype=float).reshape(-1, 7)
        cpus = np.concatenate([fast_cpu, later])
    else:
        cpus = []
    return _json_frames(text, name, host, disk_keys, dev_vals, names, sample, cpus, {}, {})


_HOST_FIELDS = {"nodename": str, "sysname": str, "release": str, "machine": str, "number-of-cpus": int,
                "date": str, "statistics": list}
_REPORT_FIELDS = ("timestamp", "avg-cpu", "disk")
_CPU_FIELDS = ("user", "nice", "system", "iowait", "steal", "idle")
_NUMBER_TYPES = frozenset({int, float})


def _all_numbers(vals) -> bool:
    return set(map(type, vals)) <= _NUMBER_TYPES and all(v == v and abs(v) != float("inf") for v in vals)


class _NotANumber:
    """What ``NaN``, ``Infinity`` and ``-Infinity`` read as: no JSON number (RFC 8259), and never sysstat's."""

    def __init__(self, literal: str):
        self.literal = literal

    def __repr__(self) -> str:
        return self.literal


def _not_a_number(literal: str) -> _NotANumber:
    return _NotANumber(literal)


class _JsonObject(dict):
    """A JSON object that remembers a key it held twice (``json.loads`` keeps the last and says nothing)."""

    duplicate = None

    @classmethod
    def of(cls, pairs):
        d = cls(pairs)
        if len(d) != len(pairs):
            seen = set()
            for key, _ in pairs:
                if key in seen:
                    d.duplicate = key
                    break
                seen.add(key)
        return d


class _JsonCheck:
    """Type checks with the path of what is checked; an error names the path and, read again with the pure-Python
    scanner (which knows where each object starts), the line."""

    def __init__(self, text: str, name: str, doc):
        self.text, self.name, self.doc = text, name, doc

    def error(self, path: str, expected: str, found: str, why: str = "", again: bool = False):
        """*again*: the path names a key written twice; the line is the second's."""
        line, raw = _json_line(self.text, path, again)
        return WorkbookParseError(self.name, line, f"{expected} at {path}" + (f" ({why})" if why else ""),
                                  found if again else (raw or found))

    def obj(self, v, path, keys, expected, allowed=None):
        if not isinstance(v, dict):
            raise self.error(path, expected, _short(v))
        if v.duplicate is not None:
            raise self.error(f"{path}[{v.duplicate!r}]", "each key once", f"{v.duplicate!r} twice",
                             "sysstat writes each key of an object once; a JSON reader keeps the last of two",
                             again=True)
        if keys is not None:
            missing = [k for k in keys if k not in v]
            if missing:
                raise self.error(path, expected, f"no {missing[0]!r}")
        allowed = keys if allowed is None else set(allowed)
        if allowed is not None:
            extra = [k for k in v if k not in allowed]
            if extra:
                raise self.error(f"{path}[{extra[0]!r}]", expected, _short(v[extra[0]]),
                                 f"sysstat writes no {extra[0]!r} there")
        return v

    def arr(self, v, path, expected):
        if not isinstance(v, list):
            raise self.error(path, f"{expected}, a JSON array", _short(v))
        return v

    def value(self, v, path, kind):
        ok = isinstance(v, kind) and not isinstance(v, bool)
        if not ok:
            what = {str: "a string", int: "a whole number", list: "a JSON array"}[kind]
            raise self.error(path, what, _short(v))
        return v

    def number(self, v, path) -> float:
        if type(v) not in _NUMBER_TYPES:
            raise self.error(path, "a number", _short(v), "sysstat prints %.2f")
        f = float(v)
        if f != f or abs(f) == float("inf"):
            raise self.error(path, "a finite number", _short(v), "sysstat prints %.2f")
        return f


def _short(v) -> str:
    if isinstance(v, _NotANumber):
        return v.literal
    try:
        s = json.dumps(v, default=repr)
    except (ValueError, TypeError, RecursionError):
        s = repr(v)
    return s if len(s) <= 80 else s[:77] + "..."


def _last_key(path: str) -> str | None:
    m = re.search(r"\[('[^']*'|\"[^\"]*\")\]$", path)
    return m.group(1)[1:-1] if m else None


def _json_line(text: str, path: str, again: bool = False) -> tuple[int | None, str | None]:
    """The line of *path* (``$.a.b[2]['c']``) in the JSON *text*, and the value there as written when the path
    ends in a key (``1e400``, which reads as inf): read again with the pure-Python scanner, which records where
    each object and array starts (only when there is an error to report)."""
    from json import decoder, scanner

    starts: dict[int, int] = {}

    def obj(s_and_end, *a, **k):
        res = decoder.JSONObject(s_and_end, *a, **k)
        starts[id(res[0])] = s_and_end[1] - 1
        return res

    def arr(s_and_end, *a, **k):
        res = decoder.JSONArray(s_and_end, *a, **k)
        starts[id(res[0])] = s_and_end[1] - 1
        return res

    try:
        dec = json.JSONDecoder(object_pairs_hook=_JsonObject.of, parse_constant=_not_a_number)
        dec.parse_object, dec.parse_array = obj, arr
        dec.scan_once = scanner.py_make_scanner(dec)
        doc = dec.decode(text)
    except (ValueError, RecursionError):
        return None, None
    node, pos = doc, starts.get(id(doc))
    raw = None
    for key, idx in re.findall(r"\.([\w-]+)|\[(\d+|'[^']*'|\"[^\"]*\")\]", path):
        k = key or (idx[1:-1] if idx[:1] in "'\"" else int(idx))
        try:
            child = node[k]
        except (KeyError, IndexError, TypeError):
            return None, None
        if isinstance(k, str) and pos is not None:
            at = text.find(json.dumps(k), pos)  # the key, after the start of its object
            if again and at >= 0 and k == _last_key(path):
                nxt = text.find(json.dumps(k), at + 1)  # a key written twice: its second
                at = nxt if nxt >= 0 else at
            pos = at if at >= 0 else pos
            m = re.compile(r'"(?:[^"\\]|\\.)*"\s*:\s*([^,}\]\s]+)').match(text, pos) if at >= 0 else None
            raw = m.group(1) if m and not m.group(1).startswith(("{", "[")) else None
        else:
            raw = None
        node = child
        pos = starts.get(id(node), pos)
    return (None if pos is None else text.count("\n", 0, pos) + 1), raw


#: sysstat's JSON keys that differ from its text column names.
_JSON_NAMES = {"util": "%util", "rrqm": "%rrqm", "wrqm": "%wrqm", "drqm": "%drqm"}
