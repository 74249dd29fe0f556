"""``vmstat`` output (procps 3.2 to procps-ng 4.x).

Covers the default report and ``-n``, ``-t`` (timestamp and zone), ``-w``
(wide, ``--procs--`` group headers), ``-a`` (``inact active`` instead of
``buff cache``), repeated headers of long runs, the procps-4 ``gu`` column,
``-d`` (per disk), ``-s`` (counters), ``-p`` (one partition), ``-D`` (disk summary)
and mmtests' latency prefix.

Columns are taken from the header line of each block, never by position:
procps 3.2 has no ``st``, procps-ng 4 adds ``gu``, and a file that
concatenates runs of different versions keeps every column (NaN where a
block lacks it).  jc maps the columns by position, so it misreads procps 3.2
(no ``st``) and glues ``gu`` into the timestamp under ``-t``
(``tests/test_traces_vmstat.py`` shows both).

The first report line of ``vmstat`` is the average since boot, not an
interval; it is kept (as vmstat printed it) and flagged by ``since_boot``.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd

from . import segments
from ..errors import WorkbookParseError
from ._vmstat_l10n import delocalize_disk_summary, delocalize_partition, looks_like_translated_disk_summary
from ._common import (_NUMERIC_ZONE_RE, guarded, fail, fast_numbers, line_of, read_source, set_attrs,
                      strip_latency_prefix, token_counts, unglue_restart, warn_truncated, zone_offset)

# "procs -----------memory---------- ..." and "--procs-- -----...-----"; the
# header of names starts with r and b.
_GROUP_RE = re.compile(r"^ *-*procs-* .*$", re.M)
_NAMES_RE = re.compile(r"^ *r +b +\S.*$", re.M)
_BLANK_RE = re.compile(r"^(?: *-*procs-* .*| *r +b +\S.*)$", re.M)
_DISK_GROUP_RE = re.compile(r"^disk- .*$", re.M)


#: Texts longer than this (and ASCII) take the one-pass numba path; shorter ones the line-by-line one.
FAST_MIN = 20000


@guarded
def parse_vmstat(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``vmstat [-n] [-t] [-w] [-a] [interval]`` output.

    Returns
    -------
    DataFrame
        One row per report line, columns as vmstat names them:
        ``r b swpd free buff cache si so bi bo in cs us sy id wa st gu``
        (``inact active`` instead of ``buff cache`` with ``-a``; ``st`` absent
        before procps 3.2.7, ``gu`` from procps-ng 4), then

        * ``timestamp`` (datetime64, wall clock as printed by ``-t``),
        * ``time`` (float, epoch seconds: from the mmtests latency prefix, or
          from ``-t`` when the zone is known),
        * ``elapsed`` (float seconds since the first line, when ``time`` is known),
        * ``sample`` (int, 0-based line number within the report),
        * ``since_boot`` (bool, True on the first line: vmstat computes it
          since boot rather than over the interval).

        ``attrs``: ``source``, ``format="vmstat"``, ``version`` (``"procps-ng 4"`` when
        ``gu`` is seen, ``"procps 3.2"`` when ``st`` is missing, else None),
        ``timezone`` (the zone printed by ``-t``), ``wide``, ``active`` (``-a``),
        ``localized_header`` (the names line as a translated procps-ng printed
        it: ``frei``, ``Cache``...; the columns carry vmstat's English names,
        see :data:`LOCALIZED_NAMES`).
    """
    text, name = read_source(src, source, max_bytes)
    if _DISK_GROUP_RE.search(text[:4000]) and not _NAMES_RE.search(text[:4000]):
        return parse_vmstat_disk(text, source=name)
    if not _NAMES_RE.search(text[:4000]):
        first = next((ln for ln in text.split("\n", 50)[:50] if ln.strip()), "")
        if _partition_header(first) is not None or delocalize_partition(text[:4000])[1] is not None:
            return parse_vmstat_partition(text, source=name)
        if re.match(r"^ *\d+ disks *$", first) or looks_like_translated_disk_summary(text[:4000]):
            return parse_vmstat_disk_summary(text, source=name)
    text, stamps = strip_latency_prefix(text)
    text, _ = unglue_restart(text, name, r"-*procs-* ", r"[ \t\d]*\d", literal="procs")
    text, localized = delocalize(text)
    text = _zone_on_rows(text)
    if text.isascii() and len(text) > FAST_MIN:
        fast = _fast_vmstat(text, name, stamps)
        if fast is not None:
            if localized:
                fast.attrs["localized_header"] = localized
            return fast
    heads = list(_NAMES_RE.finditer(text))
    if not heads:
        raise fail(name, text, None, "a vmstat header line starting with 'r b'", text[:80])
    # Segments of consecutive identical headers: vmstat repeats its header every screenful, and a
    # segment's repeated header lines are blanked (keeping line numbers) so its numbers parse in one go.
    segs: list[list] = []
    for h in heads:
        cols = h.group(0).split()
        if segs and segs[-1][1] == cols:
            continue
        segs.append([h, cols])
    frames = []
    tz = None
    wide = False
    for k, (h, cols) in enumerate(segs):
        end = segs[k + 1][0].start() if k + 1 < len(segs) else len(text)
        before = text[max(0, h.start() - 600):h.start()].rstrip("\n").rsplit("\n", 1)[-1]
        grp = _GROUP_RE.fullmatch(before)
        has_ts = bool(grp) and "timestamp" in before
        wide = wide or (bool(grp) and before.lstrip().startswith("--procs"))
        if cols[-1] not in _KNOWN and cols[-1].isalpha() and cols[-1].isupper():
            has_ts = True
        if has_ts:
            tz = cols[-1]
            cols = cols[:-1]
        start = h.start()
        block = _BLANK_RE.sub("", text[start:end])
        frames.append(_block(text, name, start, block, cols, has_ts, stamps, last=(k + 1 == len(segs))))
    got = [f for f in frames if f is not None]
    df = pd.concat(got, ignore_index=True) if got else pd.DataFrame(
        {c: pd.Series(dtype=np.int64) for c in cols})
    off = zone_offset(tz)
    if "timestamp" in df.columns and off is not None:
        t = df["timestamp"].astype("datetime64[ns]").astype("int64") / 1e9 - off
        if "time" not in df.columns:
            df["time"] = t
    if "time" in df.columns and len(df):
        df["elapsed"] = df["time"] - df["time"].iloc[0]
    df["sample"] = np.arange(len(df))
    df["since_boot"] = df["sample"] == 0
    cols = list(df.columns)
    version = "procps-ng 4" if "gu" in cols else ("procps 3.2" if "st" not in cols else None)
    extra = {"localized_header": localized} if localized else {}
    lines = text.split("\n")
    row_lines = [i for i, ln in enumerate(lines) if re.match(r"[ \t]*-?\d", ln)][:len(df)]
    keys = {}
    hdr = [(h.start(), keys.setdefault(tuple(h.group(0).split()), len(keys))) for h in heads]
    hdr_lines = [text.count("\n", 0, p) for p, _ in hdr]
    extra.update(_runs_and_clock(df, name, row_lines, hdr_lines, [k for _, k in hdr]))
    return set_attrs(df, name, "vmstat", version, tz, wide=wide, active="inact" in cols, **extra)


#: the reports between two headers of one ``vmstat`` run writing to a file: procps prints its header again
#: every ``winhi() - 3`` reports, and winhi() is 24 rows when the output is not a terminal
HEADER_PERIOD = 21


def _runs_and_clock(df: pd.DataFrame, name: str, row_lines, hdr_lines, hdr_keys) -> dict:
    """Mark the first report of every run as ``since_boot`` (runs appended to one log: ``vmstat 1 10 >> log``
    twice), and cut the series where the clock (``-t``, mmtests' stamps) went back (:mod:`.segments`).

    A header is a repeat of its run's header when the reports above it are exactly as many as the run repeats
    it after: 21 (procps writing to a file), or the terminal's period, which two full blocks of the same
    length show.  Any other header (after fewer reports, or with other columns: ``-a`` after a run without)
    starts a new run, whose first report vmstat computed since boot.  Returns the attrs to add: ``runs``
    (``first_sample`` and ``line`` of each run) and ``segments``."""
    row_lines = np.asarray(row_lines, dtype=np.int64)
    hdr_lines = np.asarray(hdr_lines, dtype=np.int64)
    n = len(df)
    out: dict = {}
    if n and hdr_lines.size:
        first_row = np.searchsorted(row_lines, hdr_lines)  # the first report under each header
        counts = np.diff(np.append(first_row, n))
        starts = [0]
        period = None
        for j in range(1, hdr_lines.size):
            if first_row[j] >= n or first_row[j] == first_row[j - 1] and j > 1:
                continue
            ln = counts[j - 1]
            if hdr_keys[j] == hdr_keys[j - 1] and period is None:
                if ln == HEADER_PERIOD or (j + 1 < hdr_lines.size and counts[j] == ln and ln >= 10):
                    period = ln
                    continue
            elif hdr_keys[j] == hdr_keys[j - 1] and ln == period:
                continue
            starts.append(int(first_row[j]))
            period = None
        starts = sorted(set(starts))
        if len(starts) > 1:
            since = np.zeros(n, dtype=bool)
            since[starts] = True
            df["since_boot"] = since
        out["runs"] = [{"first_sample": s, "line": int(row_lines[s]) + 1} for s in starts]
    clock = None
    if "time" in df.columns:
        clock = df["time"].to_numpy(dtype=float)
    elif "timestamp" in df.columns:
        clock = (df["timestamp"] - df["timestamp"].iloc[0]).dt.total_seconds().to_numpy() if n else None
    if clock is not None and n:
        steps = segments.clock_steps(clock)
        if steps.size:
            gap = segments.median_interval(clock)
            breaks = [(int(row_lines[r]) + 1 if r < len(row_lines) else None,
                       segments.step_why(clock[r - 1], clock[r], gap)) for r in steps]
            segments.warn(name, breaks, "the vmstat series", stacklevel=5)
            if "elapsed" in df.columns or "time" in df.columns:
                df["elapsed"] = segments.continued_elapsed(clock, steps)
            out["segments"] = segments.describe(n, [(int(r), b[0], b[1]) for r, b in zip(steps, breaks)])
        else:
            out["segments"] = segments.describe(n, [])
    return out


def _fast_vmstat(text: str, name: str, stamps):
    """The common case (ASCII, one set of columns, integers only) in one pass over the bytes: numba reads the
    numbers straight into the frame's columns and notes the other lines, which must all be vmstat's own headers.

    Returns None (the caller then takes the general path) for -t timestamps or anything unusual; a data line
    that is not as many integers as the header names is left to :func:`_fast_vmstat_rows`, which says which
    line it is, so a damaged file gets the same warning or error as before this path existed.  The path holds
    one byte copy of the text and the columns (a line at a time took 10 s and 9x the file's size for 10**6
    lines; this takes about 1 s and 3.5x)."""
    from ._fastscan import scan_table

    m = _NAMES_RE.search(text)
    if m is None:
        return None
    cols = m.group(0).split()
    if cols[-1] not in _KNOWN:
        return None  # -t's zone, or a name vmstat does not print
    scan = scan_table(text, len(cols))
    if scan is None:
        return None  # decimals or 19 digits: the line-by-line path refuses them
    vals, rows, others, bad, _, _ = scan
    if bad >= 0:
        del scan, vals, rows, others
        return _fast_vmstat_rows(text, name, stamps)
    kinds: dict[str, int] = {}  # a header's text -> 1 names line, 2 group line (vmstat repeats them verbatim)
    wide = False
    names_hdr = []
    for li, s, e in others.tolist():
        ln = text[s:e]
        k = kinds.get(ln)
        if k is None:
            if _NAMES_RE.fullmatch(ln):
                if ln.split() != cols:
                    return None
                k = 1
            elif _GROUP_RE.fullmatch(ln) and "timestamp" not in ln:
                wide = wide or ln.lstrip().startswith("--procs")
                k = 2
            else:
                return None  # junk or another layout: let the general path name it
            kinds[ln] = k
        if k == 1:
            names_hdr.append(li)
    if not names_hdr or (rows.size and rows[0] < names_hdr[0]):
        return None
    return _fast_frame(pd.DataFrame(vals.T, columns=cols, copy=False), name, stamps, rows, names_hdr, wide)


def _fast_frame(df: pd.DataFrame, name: str, stamps, rows, names_hdr, wide: bool) -> pd.DataFrame:
    """The frame of the fast readers: their numbers (*df*, one column per name) with the columns and attrs of
    :func:`parse_vmstat`; *rows* and *names_hdr* are the line indices of the reports and of the names lines."""
    cols = list(df.columns)
    if stamps is not None:
        df["time"] = stamps[rows, 0]
        df["elapsed"] = df["time"] - df["time"].iloc[0] if len(df) else df["time"]
    df["sample"] = np.arange(len(df))
    df["since_boot"] = df["sample"] == 0
    version = "procps-ng 4" if "gu" in cols else ("procps 3.2" if "st" not in cols else None)
    extra = _runs_and_clock(df, name, rows, names_hdr, [0] * len(names_hdr))
    return set_attrs(df, name, "vmstat", version, None, wide=wide, active="inact" in cols, **extra)


def _fast_vmstat_rows(text: str, name: str, stamps):
    """:func:`_fast_vmstat` as it was before :func:`~._fastscan.scan_table`: kept for the files whose data lines
    are not all as the header says, which it reads and reports line by line (a cut last line is a warning,
    another bad line an error naming it)."""
    from ._fastscan import first_nonblank, line_spans, parse_rows

    if _suspect(text):
        return None

    b = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    starts, ends = line_spans(b)
    fb = first_nonblank(b, starts, ends)
    is_data = ((fb >= 48) & (fb <= 57))
    hdr = np.flatnonzero(~is_data & (fb != 0))
    if not hdr.size:
        return None
    # every non-data line must be a group header or a names header, all with the same names
    names_line = None
    cols = None
    wide = False
    for i in hdr:
        ln = text[starts[i]:ends[i]]
        if _NAMES_RE.fullmatch(ln):
            c = ln.split()
            if cols is None:
                cols, names_line = c, i
            elif c != cols:
                return None
        elif _GROUP_RE.fullmatch(ln):
            if "timestamp" in ln:
                return None
            wide = wide or ln.lstrip().startswith("--procs")
        else:
            return None  # junk: let the general path name it
    if cols is None or (cols[-1] not in _KNOWN):
        return None
    rows = np.flatnonzero(is_data)
    if rows.size and rows[0] < names_line:
        return None
    vals, _, bad = parse_rows(b, starts[rows], ends[rows], len(cols))
    if bad >= 0:
        r = int(rows[bad])
        line = text[starts[r]:ends[r]]
        t = line.split()
        if bad == rows.size - 1 and len(t) < len(cols) and not text[ends[r]:].strip() and \
                not text.endswith("\n"):
            warn_truncated(name, r + 1, f"vmstat line ({len(t)} of {len(cols)} fields)")
            vals = vals[:bad]
            rows = rows[:bad]
        else:
            raise fail(name, text, ("line", r + 1), f"{len(cols)} vmstat fields ({' '.join(cols)})", line)
    names_hdr = [int(i) for i in hdr if _NAMES_RE.fullmatch(text[starts[i]:ends[i]])]
    return _fast_frame(pd.DataFrame(vals.astype(np.int64), columns=cols), name, stamps, rows, names_hdr, wide)


#: procps-ng's translated column names (4.0.2's catalogues, read off `LC_ALL=<locale> vmstat -t` and `-wa` on
#: this machine: tests/fixtures/real-captures/README.md); a names line is translated only when every name maps
#: under one locale and the result is one of vmstat's own layouts, so no name is ever guessed
LOCALIZED_NAMES = {
    "de_DE": {"frei": "free", "Cache": "cache", "inakt": "inact", "aktiv": "active"},
    "fr_FR": {"libre": "free", "tampon": "buff", "actif": "active"},
    "es_ES": {"libre": "free", "búf": "buff", "caché": "cache", "activo": "active"},
    "pt_BR": {"livre": "free", "inativ": "inact", "ativo": "active"},
    "pl_PL": {"dz": "r", "bl": "b", "swap": "swpd", "wolna": "free", "bufor": "buff", "uż": "us", "be": "id",
              "io": "wa", "sk": "st", "nieakt": "inact", "akt": "active", "go": "gu"},
    "zh_CN": {"交换": "swpd", "空闲": "free", "缓冲": "buff", "缓存": "cache", "不活动": "inact", "活动": "active"},
    "sv_SE": {"k": "r", "växl": "swpd", "fritt": "free", "vi": "si", "vu": "so", "bu": "bo", "avb": "in",
              "ktxb": "cs", "an": "us", "ia": "id", "vä": "wa", "inakt": "inact", "aktivt": "active", "gä": "gu"},
    "uk_UA": {"кеш": "cache", "активно": "active"},
}
_LAYOUTS = {tuple(f"r b swpd free {m} si so bi bo in cs us sy id wa st{g}".split())
            for m in ("buff cache", "inact active") for g in ("", " gu")}
_LOCAL_NAMES_RE = re.compile(r"^[ \t]*(?:r|dz|k)[ \t]+(?:b|bl)[ \t]+\S[^\n]*$", re.M)


# the same lines as _LOCAL_NAMES_RE after the first: led by the newline, the pattern is tried only where
# the regex engine's literal search finds one, not at every character (4 s of a 83 MB log)
_LOCAL_NAMES_NL_RE = re.compile(r"\n(?P<line>[ \t]*(?:r|dz|k)[ \t]+(?:b|bl)[ \t]+\S[^\n]*)")


class _Line:
    """A match of the ``line`` group of :data:`_LOCAL_NAMES_NL_RE`, as a match of :data:`_LOCAL_NAMES_RE`."""

    __slots__ = ("m",)

    def __init__(self, m):
        self.m = m

    def group(self, _=0):
        return self.m.group("line")

    def start(self):
        return self.m.start("line")

    def end(self):
        return self.m.end("line")


def _local_names_lines(text: str):
    """``_LOCAL_NAMES_RE.finditer(text)``, at the speed of a search for newlines."""
    m = _LOCAL_NAMES_RE.match(text)
    if m:
        yield m
    for m in _LOCAL_NAMES_NL_RE.finditer(text):
        yield _Line(m)


def delocalize(text: str) -> tuple[str, str | None]:
    """Put vmstat's English names on a names line a translated procps-ng printed (``frei``, ``Cache``;
    ``dz bl swap wolna``), and its group line above in English, one line for one line.  Returns the text and
    the first translated names line as printed (None when nothing was translated)."""
    first = None
    out = []
    last = 0
    seen: set[str] = set()  # names lines already found to be English: vmstat repeats its header every 21 lines
    for m in _local_names_lines(text):
        if m.group(0) in seen:
            continue
        names = m.group(0).split()
        zone = names[-1] if (names[-1].isupper() and names[-1].isalpha() or _NUMERIC_ZONE_RE.fullmatch(names[-1])) \
            and names[-1] not in _KNOWN else None
        core = names[:-1] if zone else names
        if tuple(core) in _LAYOUTS:
            seen.add(m.group(0))
            continue
        for table in LOCALIZED_NAMES.values():
            eng = [table.get(n, n) for n in core]
            if tuple(eng) in _LAYOUTS:
                break
        else:
            seen.add(m.group(0))
            continue
        first = first or m.group(0).strip()
        start = m.start()
        prev = text.rfind("\n", 0, start - 1) + 1 if start else 0
        group = text[prev:start - 1] if start else ""
        if group and "---" in group and prev >= last:
            # the group line names the groups in the same language ('proc. ---pamięć---' breaks the header
            # regexes); it carries nothing the names line does not
            wide = group.lstrip().startswith("--")
            g = ("--procs-- -----memory----- ---swap-- -----io---- -system-- -------cpu-------" if wide else
                 "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----")
            out.append(text[last:prev])
            out.append(g + (" -----timestamp-----" if zone else "") + "\n")
        else:
            out.append(text[last:start])
        out.append(" ".join(eng + ([zone] if zone else [])))
        last = m.end()
    if first is None:
        return text, None
    out.append(text[last:])
    return "".join(out), first


# procps 3.2.8 (RHEL 6) -t prints the zone on every row ("... 0 2014-02-04 19:10:42 CET"), not in the header
_ROW_ZONE_RE = re.compile(r"^([ \t]*\d[\d \t]*[ \t]\d{4}-\d\d-\d\d[ \t]+\d\d:\d\d:\d\d)[ \t]+([A-Za-z][A-Za-z0-9+-]{0,9})[ \t]*$",
                          re.M)


def _zone_on_rows(text: str) -> str:
    """Move a zone printed on each row to the names line, where procps-ng prints it; the rest is as is.

    With one zone the times convert as usual; rows in two zones (a DST change inside the file) keep
    their printed timestamps and get no epoch ``time`` (the zone ``MIXED`` says why)."""
    head = text[:2_000_000]
    if ":" not in head:  # no clock printed on a row (the regex would try every digit of a 10 MB log: 70 ms)
        return text
    zones = {m.group(2) for m in _ROW_ZONE_RE.finditer(head)}
    if not zones:
        return text
    zone = zones.pop() if len(zones) == 1 else "MIXED"
    text = _ROW_ZONE_RE.sub(r"\1", text)
    return re.sub(r"^([ \t]*r[ \t]+b[ \t]+swpd\b[^\n]*?)[ \t]*$", lambda m: f"{m.group(1)} {zone}", text, flags=re.M)


# What the C readers (numba, np.fromstring) would silently change: a decimal point (they stop at it)
# or 19+ digits (they saturate at 2**63-1); such text takes the line-by-line path, which refuses it.
_SUSPECT_RE = re.compile(r"\d{19}|[.,]\d")
_DECIMAL_RE = re.compile(r"[.,]\d")
_DIGIT_MASK = bytes(49 if 48 <= i <= 57 else 48 for i in range(256))  # b"1" for an ASCII digit, b"0" else


def _suspect(text: str) -> bool:
    """``_SUSPECT_RE.search(text)``, at memchr speed on ASCII text: the regex tries 19 digits at every digit
    (0.4 s of a 10 MB log); a copy with every digit as '1' is searched for nineteen of them instead."""
    if ("." in text or "," in text) and _DECIMAL_RE.search(text):
        return True
    if not text.isascii():  # \d is any Unicode digit there
        return _SUSPECT_RE.search(text) is not None
    return text.encode("ascii").translate(_DIGIT_MASK).find(b"1" * 19) >= 0


_INT_RE = re.compile(r"-?[0-9]+")

_KNOWN = {"r", "b", "swpd", "free", "buff", "cache", "inact", "active", "si", "so", "bi", "bo", "in", "cs",
          "us", "sy", "id", "wa", "st", "gu"}


def _block(text, name, start, block, cols, has_ts, stamps, last):
    """Parse one segment's data (header lines already blanked); *start* is its offset in *text*."""
    if not block.strip():
        return None
    ncol = len(cols)
    need = ncol + (2 if has_ts else 0)
    counts = token_counts(block)
    nonblank = np.flatnonzero(counts)
    if nonblank.size and (counts[nonblank] == need).all() and not _suspect(block):
        if not has_ts:
            arr = fast_numbers(block, np.int64)
            if arr is not None and arr.size == nonblank.size * ncol:
                df = pd.DataFrame(arr.reshape(nonblank.size, ncol), columns=cols)
                return _finish(df, text, start, nonblank, stamps)
        else:
            try:
                raw = pd.read_csv(io.StringIO(block), sep=r"\s+", header=None, names=cols + ["_d", "_t"],
                                  dtype={"_d": str, "_t": str}, skip_blank_lines=True, engine="c")
            except (ValueError, pd.errors.ParserError):
                raw = None
            if raw is not None and len(raw) == nonblank.size and all(
                    raw[c].dtype.kind in "iu" for c in cols):
                ts = pd.to_datetime(raw["_d"] + " " + raw["_t"], format="%Y-%m-%d %H:%M:%S", errors="coerce")
                if not ts.isna().any():
                    df = raw[cols].astype(np.int64)
                    df["timestamp"] = ts.to_numpy()
                    return _finish(df, text, start, nonblank, stamps)
    return _slow(text, name, start, block.split("\n"), cols, has_ts, stamps, last)


def _finish(df, text, start, idx, stamps):
    if stamps is not None:
        first_line = text.count("\n", 0, start)
        rows = first_line + np.asarray(idx, dtype=np.int64)
        df["time"] = stamps[rows, 0]
    return df


def _slow(text, name, start, lines, cols, has_ts, stamps, last):
    """Line by line, for blocks with timestamps, junk or a cut last line."""
    ncol = len(cols)
    need = ncol + (2 if has_ts else 0)
    rows, ts, idx = [], [], []
    first = line_of(text, start)
    for i, ln in enumerate(lines):
        t = ln.split()
        if not t:
            continue
        if len(t) != need or not all(_INT_RE.fullmatch(x) for x in t[:ncol]):
            rest_blank = all(not x.strip() for x in lines[i + 1:])
            if rest_blank and last and len(t) < need:
                warn_truncated(name, first + i, f"vmstat line ({len(t)} of {need} fields)")
                break
            raise fail(name, text, ("line", first + i),
                       f"{need} vmstat fields ({' '.join(cols)}{' date time' if has_ts else ''})", ln)
        if any(len(x) > 19 for x in t[:ncol]) or any(abs(int(x)) >= 1 << 63 for x in t[:ncol]):
            raise fail(name, text, ("line", first + i), "vmstat numbers that fit in 64 bits", ln)
        vals = [int(x) for x in t[:ncol]]
        rows.append(vals)
        idx.append(i)
        if has_ts:
            ts.append(t[ncol] + " " + t[ncol + 1])
    df = pd.DataFrame(np.array(rows, dtype=np.int64).reshape(len(rows), ncol), columns=cols)
    if has_ts:
        tsv = pd.to_datetime(pd.Series(ts, dtype=object), format="%Y-%m-%d %H:%M:%S", errors="coerce")
        if tsv.isna().any():
            bad = int(np.flatnonzero(tsv.isna().to_numpy())[0])
            raise fail(name, text, ("line", first + idx[bad]), "a timestamp YYYY-MM-DD HH:MM:SS", lines[idx[bad]])
        df["timestamp"] = tsv.to_numpy()
    return _finish(df, text, start, idx, stamps)


@guarded
def parse_vmstat_disk(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``vmstat -d [interval]``.

    Returns
    -------
    DataFrame
        One row per disk per report, columns ``disk``, then the counters named
        by their group and vmstat's name: ``reads_total reads_merged
        reads_sectors reads_ms writes_total writes_merged writes_sectors
        writes_ms IO_cur IO_sec`` (cumulative since boot), ``sample`` (report
        number, from 0) and ``timestamp`` with ``-t``.
    """
    text, name = read_source(src, source, max_bytes)
    if len(text) > FAST_MIN and text.startswith("disk-") and text.isascii():
        fast = _fast_vmstat_disk(text, name)
        if fast is not None:
            return fast
    recs = []
    cols = None
    has_ts = False
    tz = None
    sample = -1
    pending_groups = ["reads", "writes", "IO"]
    group_line = None  # the group line just read: the names line follows it
    localized = None  # the names line of a translated vmstat -d, as printed
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        s = ln.strip()
        if not s:
            continue
        if ln.startswith("disk-") or _DISK_GROUP_LINE_RE.match(ln):
            groups = [g.strip("-") for g in ln.split()[1:]]
            has_ts = "timestamp" in groups
            sample += 1
            cols = None
            pending_groups = groups
            group_line = ln.strip()
            continue
        if cols is None and group_line is not None:
            names = s.split()
            group_line, printed = None, s
            if has_ts or names[-1].isalpha() and names[-1].isupper():
                has_ts = True
                tz = names[-1]
                names = names[:-1]
            if (tuple(names) != DISK_NAMES or pending_groups[:3] != ["reads", "writes", "IO"]) and \
                    len(names) >= 10 and not any(x.isdigit() for x in names):
                # a translated procps-ng ('Disk- ---Lesevorgänge--- ...' / 'gesamt merged Sektoren ms ...',
                # pt_BR even 'DRDOS/s (FAT12)' for 'sec'): vmstat -d prints its ten counters in one order
                localized = localized or printed
                names = list(DISK_NAMES)
                pending_groups = ["reads", "writes", "IO"]
            if len(names) != 10 or len(pending_groups) < 3:
                raise fail(name, text, ("line", i + 1), "vmstat -d's ten column names (total merged sectors ms "
                           "twice, cur sec) under 'disk- reads writes IO'", ln)
            if sample < 0:
                sample = 0
            gnames = []
            sizes = [4, 4, 2]
            gi = 0
            for gsz, g in zip(sizes, pending_groups):
                gnames += [f"{g}_{n}" for n in names[gi:gi + gsz]]
                gi += gsz
            cols = gnames
            continue
        if cols is None:
            raise fail(name, text, ("line", i + 1), "a 'disk-' header before the disk lines", ln)
        t = s.split()
        need = 1 + len(cols) + (2 if has_ts else 0)
        if len(t) != need or not all(x.isdigit() for x in t[1:1 + len(cols)]):
            if i >= len(lines) - 2 and len(t) < need:
                warn_truncated(name, i + 1, "vmstat -d line")
                break
            raise fail(name, text, ("line", i + 1), f"{need} fields: disk {' '.join(cols)}", ln)
        rec = {"disk": t[0], **{c: int(v) for c, v in zip(cols, t[1:])}, "sample": sample}
        if has_ts:
            rec["timestamp"] = pd.Timestamp(t[-2] + " " + t[-1])
        recs.append(rec)
    df = pd.DataFrame(recs)
    return set_attrs(df, name, "vmstat-d", None, tz, **({"localized_header": localized} if localized else {}))


#: vmstat -d's column names under its groups (reads, writes: total merged sectors ms; IO: cur sec)
DISK_NAMES = ("total", "merged", "sectors", "ms", "total", "merged", "sectors", "ms", "cur", "sec")


def _fast_vmstat_disk(text: str, name: str) -> pd.DataFrame | None:
    """``vmstat -d [interval]`` as procps prints it in English without ``-t`` (the same two header lines before
    every report, then a line per disk: its name and ten counters), read by numba straight into the frame's
    columns (:func:`~._fastscan.scan_named_table`), each disk name made once: a dict a line took 12x the file's
    memory for 10**6 lines.  None for anything else (a timestamp, a translated or changed header, a line that is
    not a header nor a disk and ten integers, a cut line), which :func:`parse_vmstat_disk`'s line reader then
    reads, warns about or refuses as before."""
    import sys

    from ._fastscan import scan_named_table

    head = text.split("\n", 2)[:2]
    if len(head) < 2 or [g.strip("-") for g in head[0].split()[1:]] != ["reads", "writes", "IO"] \
            or tuple(head[1].split()) != DISK_NAMES:
        return None
    reports = text.count(head[0] + "\n")
    if text.count("disk-") != reports:
        return None  # a disk named 'disk-...': the line reader takes its line for a header
    scan = scan_named_table(text, len(DISK_NAMES), 2 * reports)
    if scan is None:
        return None
    vals, data_line, spans, others = scan
    # every line that is not a disk must be the two header lines, one after the other, first in the file
    if others.shape[0] != 2 * reports or (data_line.size and data_line[0] < others[0, 0]):
        return None
    h1, h2 = others[0::2], others[1::2]
    if not (h2[:, 0] == h1[:, 0] + 1).all() or not ((h1[:, 2] - h1[:, 1] == len(head[0])).all()
                                                      and (h2[:, 2] - h2[:, 1] == len(head[1])).all()):
        return None
    for (a, b), (c, e) in zip(h1[:, 1:].tolist(), h2[:, 1:].tolist()):
        if text[a:b] != head[0] or text[c:e] != head[1]:
            return None
    disk = np.empty(data_line.size, dtype=object)
    step = 1 << 16
    for k in range(0, data_line.size, step):
        part = spans[k:k + step]
        disk[k:k + step] = [sys.intern(text[a:b]) for a, b in zip(part[:, 0].tolist(), part[:, 1].tolist())]
    cols = [f"{g}_{n}" for g, n in zip(["reads"] * 4 + ["writes"] * 4 + ["IO"] * 2, DISK_NAMES)]
    df = pd.DataFrame(vals.T, columns=cols, copy=False)
    df.insert(0, "disk", disk)
    df["sample"] = np.searchsorted(h1[:, 0], data_line, side="right") - 1
    return set_attrs(df, name, "vmstat-d", None, None)
# the group line of vmstat -d in any language: a first word, then '---name---' groups
_DISK_GROUP_LINE_RE = re.compile(r"^\S+[ \t]+-{2,}\S")


# the unit is K by default, M/G/B (and KiB/MiB/GiB) under -S/--unit, absent in old procps
_SUM_RE = re.compile(r"^ *(\d{1,19}) +(?:(K|M|G|B|KiB|MiB|GiB|KB|MB|GB|k|m|g|pages) +)?(\S.*?) *$")
# pl_PL's catalogue puts the name first: 'Pamięć razem:   24684096 K', 'Przerwań:   30749428'
_SUM_LABEL_FIRST_RE = re.compile(r"^ *(\S[^:]*?): +(\d{1,19})(?: +(K|M|G|B|KiB|MiB|GiB))? *$")


@guarded
def parse_vmstat_summary(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``vmstat -s`` (event counters and memory statistics).

    Returns
    -------
    DataFrame
        One row per counter: ``name`` (as printed, e.g. ``total memory``,
        ``pages paged in``), ``value`` (int), ``unit`` (``K`` or empty) and
        ``sample`` (0 for the first listing; a file holding several
        listings counts them, a listing restarting at ``total memory``).
    """
    text, name = read_source(src, source, max_bytes)
    if len(text) > FAST_MIN and text.isascii():
        fast = _fast_summary(text, name)
        if fast is not None:
            return fast
    return _summary_lines(text, name)


def _summary_line(ln: str):
    m = _SUM_RE.match(ln)
    if m:
        return {"name": m.group(3), "value": int(m.group(1)), "unit": m.group(2) or ""}
    m = _SUM_LABEL_FIRST_RE.match(ln)
    return m and {"name": m.group(1), "value": int(m.group(2)), "unit": m.group(3) or ""}


def _summary_lines(text: str, name: str) -> pd.DataFrame:
    """:func:`parse_vmstat_summary`'s line reader."""
    recs = _listings(text, name, _summary_line, "total memory", "vmstat -s",
                     "'<number> [unit] <name>' (vmstat -s)", "vmstat -s counter lines")
    return set_attrs(pd.DataFrame(recs), name, "vmstat-s")


def _fast_summary(text: str, name: str) -> pd.DataFrame | None:
    """``while :; do vmstat -s; sleep 1; done``: the same listing again and again, only the numbers (and their
    right-aligned padding) changing, read by numba (:func:`~._fastscan.scan_template`): the line reader reads
    the first listing, every later one must be its lines with other numbers.  A dict a line took 16x the
    file's memory for 10**6 lines.  None for anything else (a line renamed, missing, added or moved, another
    unit, a cut listing or line, a translated listing with its label first), which the line reader then reads,
    warns about or refuses as before."""
    import warnings

    from ._fastscan import scan_template

    head = text[:text.find("\n", min(len(text), 1 << 16) - 1) + 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            first = _summary_lines(head, name)
        except (WorkbookParseError, Warning):
            return None
    if first["sample"].max() < 1:
        return None
    first = first[first["sample"] == 0]
    lines = [ln for ln in head.split("\n") if ln.strip()][:len(first)]
    template = []
    for ln, v in zip(lines, first["value"].tolist()):
        m = _SUM_RE.match(ln)
        if m is None or int(m.group(1)) != v or len(m.group(1)) > 18:
            return None
        template.append(["", ln[m.end(1):]])
    rows = len(template)
    scan = scan_template(text, template, text.count("\n") // rows + 2, lead=True, cycle=True)
    if scan is None:
        return None
    values, times = scan
    every = np.tile(np.arange(rows), times.size)
    df = pd.DataFrame({"name": first["name"].array.take(every), "value": values,
                       "unit": first["unit"].array.take(every),
                       "sample": np.repeat(np.arange(times.size, dtype=np.int64), rows)}, copy=False)
    return set_attrs(df, name, "vmstat-s")


def _listings(text: str, name: str, line, first: str, tool: str, expected: str, nothing: str) -> list[dict]:
    """The records of a ``-s``-like listing, one ``<number> <name>`` a line; ``line(ln)`` reads one line
    (a dict with ``name`` and ``value``, or None), and a listing starts again at its ``first`` name, or at a
    name the listing already holds (a translated vmstat names its first line otherwise: 'mémoire totale')."""
    recs = []
    sample = -1
    seen: set = set()
    for i, ln in enumerate(text.split("\n")):
        if not ln.strip():
            continue
        rec = line(ln)
        if not rec:
            raise fail(name, text, ("line", i + 1), expected, ln)
        if rec["value"] >= 1 << 63:
            raise fail(name, text, ("line", i + 1), f"a {tool} count that fits in 64 bits", ln)
        if rec["name"] == first or sample < 0 or rec["name"] in seen:
            sample += 1
            seen.clear()
        seen.add(rec["name"])
        recs.append({**rec, "sample": sample})
    if not recs:
        raise fail(name, text, None, nothing, text[:80])
    return recs


# ---------------------------------------------------------------- vmstat -p PARTITION

#: the column names ``vmstat -p`` prints after the partition name (procps 3.2 to procps-ng 4)
PARTITION_COLUMNS = ("reads", "read sectors", "writes", "requested writes")
_PART_LABEL_RE = re.compile(r"read sectors|requested writes|\S+")
_PART_HEAD_RE = re.compile(r"^(\S+)[ \t]+([A-Za-z].*)$")


def _partition_header(ln: str):
    """``vda   reads   read sectors   writes   requested writes`` -> ("vda", [names]); None if not one."""
    m = _PART_HEAD_RE.match(ln.strip())
    if not m:
        return None
    names = _PART_LABEL_RE.findall(m.group(2))
    if not names or any(n not in PARTITION_COLUMNS for n in names) or len(set(names)) != len(names):
        return None
    return m.group(1), names


@guarded
def parse_vmstat_partition(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``vmstat -p PARTITION [interval [count]]``.

    Returns
    -------
    DataFrame
        One row per report line: ``partition`` (the name in the header, e.g. ``sda1`` or ``vda``), the
        counters under the names vmstat prints (``reads``, ``read sectors``, ``writes``,
        ``requested writes``: cumulative since boot, as in ``/proc/diskstats``), ``sample`` (row number
        from 0, over the whole file).  The columns come from the header line, never by position; a
        file holding reports of several partitions keeps each under its own header.  A translated
        procps-ng's header (``vda lectures secteurs lus écritures écritures dem``) is read through its
        catalogue (:data:`~kernel_workbook.traces._vmstat_l10n.PARTITION_LOCALIZED`), and
        ``attrs["localized_header"]`` keeps it as printed.
    """
    text, name = read_source(src, source, max_bytes)
    text, localized = delocalize_partition(text)
    fast = _partition_fast(text)
    if fast is not None:
        return _partition_frame(fast, name, localized)
    lines = text.split("\n")
    recs = []
    cols = None
    part = None
    last = max((i for i, ln in enumerate(lines) if ln.strip()), default=-1)
    for i, ln in enumerate(lines):
        if not ln.strip():
            continue
        head = _partition_header(ln)
        if head is not None:
            part, cols = head
            continue
        if cols is None:
            raise fail(name, text, ("line", i + 1), "a vmstat -p header '<partition> reads read sectors writes "
                       "requested writes' before the counters", ln)
        t = ln.split()
        if len(t) != len(cols) or not all(x.isdigit() and len(x) <= 19 for x in t):
            if i == last and len(t) < len(cols) and all(x.isdigit() for x in t):
                warn_truncated(name, i + 1, f"vmstat -p line ({len(t)} of {len(cols)} fields)")
                break
            raise fail(name, text, ("line", i + 1),
                       f"{len(cols)} vmstat -p counters ({', '.join(cols)}) under the header of {part}", ln)
        vals = [int(x) for x in t]
        if any(v >= 1 << 63 for v in vals):
            raise fail(name, text, ("line", i + 1), "vmstat -p counters that fit in 64 bits", ln)
        recs.append({"partition": part, **dict(zip(cols, vals))})
    if not recs:
        raise fail(name, text, None, "vmstat -p output (a '<partition> reads read sectors ...' header and "
                   "counter lines)", text[:80])
    return _partition_frame(pd.DataFrame(recs), name, localized)


def _partition_frame(df: pd.DataFrame, name: str, localized) -> pd.DataFrame:
    order = ["partition"] + [c for c in PARTITION_COLUMNS if c in df.columns]
    df = df[order]
    for c in order[1:]:
        if df[c].notna().all():
            df[c] = df[c].astype(np.int64)
    df["sample"] = np.arange(len(df))
    return set_attrs(df, name, "vmstat-p", None, None, partitions=df["partition"].unique().tolist(),
                     **({"localized_header": localized} if localized else {}))


_PART_TEXT_LINE_RE = re.compile(r"^[ \t]*[^0-9\s].*$", re.M)  # a line that is not counters: a header, or damage


def _partition_fast(text: str) -> pd.DataFrame | None:
    """The common ``vmstat -p`` log (one set of columns; ASCII counters of at most 18 digits, as many as the
    header names, on every line under it) as a frame, read in one pass by :func:`~._fastscan.scan_table`
    (no byte masks of the whole text: they held 8x the file's size).  None for anything else, which the general
    loop then reads and, where it must, refuses naming the line.  The loop cost 10 us a line: a 10**6-line log
    took minutes."""
    from ._fastscan import scan_table

    if not text.endswith("\n") or not text.isascii() or "\r" in text:
        return None  # a carriage return separates numbers for the loop's split(), not for the scanner's lines
    first = _PART_TEXT_LINE_RE.search(text)
    if first is None or text[:first.start()].strip():
        return None
    head = _partition_header(first.group(0))
    if head is None:
        return None
    cols = head[1]
    scan = scan_table(text, len(cols), max_digits=18, signed=False)
    if scan is None or scan[3] >= 0:
        return None
    vals, rows, others, _, _, _ = scan
    if not rows.size:
        return None
    parts = []
    known: dict[str, str] = {}
    for _, a, e in others.tolist():
        ln = text[a:e]
        part = known.get(ln)
        if part is None:
            head = _partition_header(ln) if _PART_TEXT_LINE_RE.fullmatch(ln) else None
            if head is None or head[1] != cols:
                return None
            part = known[ln] = head[0]
        parts.append(part)
    under = np.searchsorted(others[:, 0], rows) - 1  # the header above each row
    if (under < 0).any():
        return None
    part = np.array(parts, dtype=object)[under]
    return pd.DataFrame({"partition": part, **{c: vals[k] for k, c in enumerate(cols)}})


# ---------------------------------------------------------------- vmstat -D

#: the lines of ``vmstat -D`` (procps 3.2 to procps-ng 4), in the order it prints them
DISK_SUMMARY_NAMES = ("disks", "partitions", "total reads", "merged reads", "read sectors", "milli reading",
                      "writes", "merged writes", "written sectors", "milli writing", "inprogress IO",
                      "milli spent IO", "milli weighted IO")
_DSUM_RE = re.compile(r"^ *(\d{1,19}) +(\S.*?) *$")


@guarded
def parse_vmstat_disk_summary(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``vmstat -D`` (the disk summary: the ``-s`` of disks).

    Returns
    -------
    DataFrame
        One row per line: ``name`` (as printed: ``disks``, ``partitions``, ``total reads``,
        ``merged reads``, ``read sectors``, ``milli reading``, ``writes``, ``merged writes``,
        ``written sectors``, ``milli writing``, ``inprogress IO``, ``milli spent IO``,
        ``milli weighted IO``), ``value`` (int, as printed: sums over every disk since boot) and
        ``sample`` (0 for the first listing; a file of several listings counts them, a listing starting
        at ``disks``).  A line whose name is not one of these is an error: ``-D`` has no header, its
        names are its header.  No unit is attached: the names say ``milli`` but procps-ng 4.0.2 prints
        ``milli spent IO`` and ``milli weighted IO`` divided by 1000 (58 where ``/proc/diskstats`` says
        58480 ms; ``tests/fixtures/traces/README.md``), so the unit depends on the procps version.
        A translated procps-ng's lines (``10 disques``, pl_PL's ``Dysków: 10``) are read through its
        catalogue (:data:`~kernel_workbook.traces._vmstat_l10n.DISK_SUMMARY_LOCALIZED`) under these
        English names, and ``attrs["language"]`` names the catalogue.
    """
    text, name = read_source(src, source, max_bytes)
    text, language = delocalize_disk_summary(text, DISK_SUMMARY_NAMES)

    def line(ln):
        m = _DSUM_RE.match(ln)
        return m and m.group(2) in DISK_SUMMARY_NAMES and {"name": m.group(2), "value": int(m.group(1))}

    recs = _listings(text, name, line, "disks", "vmstat -D",
                     "'<number> <name>' (vmstat -D), the name one of " + ", ".join(DISK_SUMMARY_NAMES),
                     "vmstat -D lines ('<number> disks', '<number> total reads' ...)")
    return set_attrs(pd.DataFrame(recs), name, "vmstat-D", **({"language": language} if language else {}))
