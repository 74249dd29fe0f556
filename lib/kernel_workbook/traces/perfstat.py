"""``perf stat`` output, perf 3.x to 6.x.

The default layout (``1,234,567      cycles   # 3.2 GHz   ( +- 1.23% )  (50.01%)``),
``-r N`` (``( +- x% )`` and ``a +- b seconds time elapsed``), ``-a``
(``'system wide'``), ``-A`` (a ``CPU<n>`` first column), ``-I`` (a time first
column, ``#  time  counts unit events`` header), ``-x<sep>`` (CSV, any
separator), tracepoint events (``migrate:mm_migrate_pages``),
``<not supported>`` and ``<not counted>``, multiplexing percentages (perf 3.x
prints them as ``[83.34%]``), metric comments after ``#``, thousands
separators, and several reports in one file (a mail quoting three runs).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..errors import WorkbookParseError
from ._common import guarded, fail, is_number, locale_number, read_source, set_attrs, warn_skipped, warn_truncated

COLUMNS = ["block", "time", "cpu", "event", "value", "unit", "counted", "variance_pct", "run_time",
           "enabled_pct", "metric_value", "metric_unit"]

_HDR_RE = re.compile(r"Performance counter stats for (?:'(.*)'|(system wide)|(.+?))\s*(?:\((\d+) runs\))?:")
# A count as perf prints it under any locale: grouped by ',', '.', a space, U+00A0, U+202F or "'",
# with a decimal point or comma.  The token's extent only; what it means depends on the file's locale.
_NUM = r"-?\d{1,3}(?:[,. \u00a0\u202f']\d{3})+(?:[.,]\d+)?|-?\d+(?:[.,]\d+)?"
_VALUE = r"(?P<value>" + _NUM + r"|<not counted>|<not supported>)"
# aggregation prefixes: -A (CPU3), --per-socket (S0), --per-die (S0-D0), --per-core (S0-D0-C1),
# --per-cluster (S0-D0-CLS0), --per-cache (S0-D0-L3-ID0), --per-node (N0), with their CPU count
_AGG = r"CPU\d+|S\d+(?:-D\d+)?(?:-(?:C|CLS|L\d+-ID)\d+)?|N\d+"
_AGG_RE = re.compile(r"^(?:" + _AGG + r")$")
# --per-thread labels a line with the thread's comm and tid ('memfd:sealed-91-21447', 'kworker/0:0H-kblockd-10')
_THREAD = r"[^\s\d<#(\[][^\n]*?-\d+"
_THREAD_RE = re.compile(r"^" + _THREAD + r"$")
_LINE_RE = re.compile(
    r"^\s*(?:(?P<time>\d+\.\d+)\s+)?(?:(?P<cpu>" + _AGG + r")\s+(?:(?P<ncpu>\d+)\s+)?|(?P<thread>" + _THREAD
    + r")\s+)?" + _VALUE + r"\s+(?P<names>[^#(\[]*?)\s*(?P<rest>(?:#|\(|\[).*)?$")
# what starts a counter line: anything else inside a report is perf's prose (hints, nmi_watchdog advice)
_COUNTER_START_RE = re.compile(r"^\s*(?:\d+\.\d+\s+)?(?:(?:" + _AGG + r")\s+(?:\d+\s+)?|" + _THREAD
                               + r"\s+(?=\d|<not ))?(?:\d|<not )")
_ELAPSED_RE = re.compile(r"^\s*(?P<v>[\d.,]+)(?:\s*\+-\s*(?P<sd>[\d.,]+))?\s+seconds\s+(?P<what>time elapsed|user|sys)"
                         r"(?:\s*\(\s*\+-\s*(?P<var>[\d.,]+)%\s*\))?\s*$")
_VAR_RE = re.compile(r"\(\s*\+-\s*([\d.,]+)%\s*\)")
_VAR_LINE_RE = re.compile(r"^\s*\(\s*\+-\s*([\d.,]+)%\s*\)\s*$")
_ENABLED_RE = re.compile(r"[\[(]\s*([\d.,]+)%\s*[\])]\s*$")
_METRIC_RE = re.compile(r"#\s*(-?\d[\d.,]*)(?=[\s%]|$)\s*([^(\[]*?)\s*(?=\(|\[|$)")
# an indented '#  1.48  stalled cycles per insn  [83.27%]': the second metric of the counter above
# perf 3.x prints the counter's running share as '[83.27%]' there; perf 4+ prints, after the counter's last metric,
# its '( +- x% )' of -r and its '(62.49%)' when multiplexed (stat-display.c: print_noise and print_running after
# the metrics), so that '#  0.28  stalled cycles per insn  ( +-  0.07% )  (62.49%)' speaks for the counter
_METRIC_LINE_RE = re.compile(r"^\s+#\s*(-?\d[\d.,']*)\s+([^(\[]*?)\s*(?:\[\s*([\d.,]+)%\s*\])?\s*"
                             r"(?:\(\s*\+-\s*([\d.,]+)%\s*\))?\s*(?:\(\s*([\d.,]+)%\s*\))?\s*$")
_OLD_UNIT_RE = re.compile(r"^\((msec|ns|us|ms|seconds)\)\s*")
_REST_RE = re.compile(r"^(?:\(\s*\+-\s*[\d.,]+%\s*\)|[\[(]\s*[\d.,]+%\s*[\])]|#[^()\[\]]*|\s+)*$")
#: the units perf prints between a count and its event (task-clock msec, duration_time ns, energy Joules)
UNITS = {"msec", "ms", "ns", "us", "usec", "sec", "seconds", "Joules", "J", "MiB", "KiB", "GiB", "MB", "kB",
         "Watts", "W", "Hz", "MHz", "GHz", "%", "Bytes", "B"}


def _locale(text: str) -> str:
    """The decimal mark of the file: ',' when its numbers say so (``1,002345678 seconds``, ``0,49 msec``,
    ``1.234,56``), else '.' (the C locale)."""
    # -I's interval time is printed '%lu.%09lu' whatever the locale (LC_ALL=de_DE: '0.500607702  499,77 msec'):
    # it says nothing of the file's decimal mark, and taken for one it read 499,77 as 49977
    lines = [_INTERVAL_RE.sub("", ln, count=1) for ln in text[:2000000].split("\n", 20000)[:20000]]
    probe = "\n".join(ln for ln in lines if "seconds time elapsed" in ln or "msec" in ln or "CPUs utilized" in ln) \
        or "\n".join(lines)[:200000]
    comma = re.search(r"\d,(?:\d{1,2}|\d{4,})(?!\d)|\d\.\d{3},\d", probe)
    dot = re.search(r"\d\.(?:\d{1,2}|\d{4,})(?!\d)|\d,\d{3}\.\d", probe)
    return "," if comma and not dot else "."


# a count as a locale that groups thousands prints it; which mark groups is the file's, never a line's
_GROUPED_COMMA_RE = re.compile(r"^[ \t]*(?:\d+\.\d+[ \t]+)?(?:\S+[ \t]+)?-?\d{1,3}(?:,\d{3})+(?:\.\d+)?[ \t]", re.M)
_GROUPED_DOT_RE = re.compile(r"^[ \t]*(?:\d+\.\d+[ \t]+)?(?:\S+[ \t]+)?-?\d{1,3}(?:\.\d{3})+(?:,\d+)?[ \t]", re.M)


def _grouping(text: str, dec: str) -> tuple[str | None, int | None]:
    """The mark this file groups thousands with (``','`` in en_US, ``'.'`` in de_DE; None when no count shows
    one, as in the C locale) and the line of the first count that shows it.  perf prints every count of a
    report in one locale, so a count grouped otherwise (``123.456 page-faults`` in a file of ``1,234,567
    cycles``) is damage or a paste from another run: read per line it was taken for 123.456."""
    head = text[:2000000]
    rx = _GROUPED_COMMA_RE if dec == "." else _GROUPED_DOT_RE
    mark = "," if dec == "." else "."
    for m in rx.finditer(head):
        ln = m.group(0)
        if not ln.lstrip().startswith("#"):
            return mark, head.count("\n", 0, m.start()) + 1
    return None, None


def _count(tok: str, dec: str, group: str | None) -> float:
    """A counter's value in the file's locale; a count grouped with the file's decimal mark is refused
    (:class:`_OtherGrouping`), never read as a decimal number."""
    t = tok.strip()
    if group is not None:
        other = "." if group == "," else ","
        if re.fullmatch(r"-?\d{1,3}(?:" + re.escape(other) + r"\d{3})+", t):
            raise _OtherGrouping(t)
    return _number(t, dec)


class _OtherGrouping(ValueError):
    """A count grouped with the mark the rest of its file uses for decimals."""


def _number(tok: str, dec: str) -> float:
    """A count in the file's locale; ValueError when it is not one (never a guess)."""
    t = tok.strip()
    for g in (" ", "\u00a0", "\u202f", "'", "," if dec == "." else "."):
        t = t.replace(g, "")
    if dec == ",":
        t = t.replace(",", ".")
    if not re.fullmatch(r"-?\d+(?:\.\d+)?", t):
        raise ValueError(tok)
    return float(t)


@guarded
def parse_perf_stat(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """Parse ``perf stat`` output (default layout, ``-r``, ``-a``, ``-A``, ``-I``, ``-x`` or ``-j``).

    Returns
    -------
    DataFrame
        One row per counter line: ``block`` (which report in the file, from
        0), ``time`` (``-I`` interval end, seconds; NaN otherwise), ``cpu``
        (``-A``/``--per-socket`` label, ``--per-thread``'s ``comm-tid``, or empty), ``event`` (as perf names it,
        e.g. ``task-clock``, ``migrate:mm_migrate_pages``), ``value``
        (float; NaN when not counted), ``unit`` (``msec`` or empty),
        ``counted`` (``counted``, ``not counted``, ``not supported``),
        ``variance_pct`` (the ``( +- x% )`` of ``-r``), ``run_time`` (CSV
        only), ``enabled_pct`` (share of the time the counter ran when
        multiplexed), ``metric_value`` and ``metric_unit`` (the comment after
        ``#``, e.g. ``0.276`` ``CPUs utilized``).  The summary lines become
        rows too: events ``time elapsed``, ``user``, ``sys`` in unit
        ``seconds`` (``variance_pct`` and, in ``metric_value``, the ``+- b``
        standard deviation of ``-r``).
        ``attrs``: ``source``, ``format="perf-stat"``, ``version`` (``"perf 3.x"``
        when ``[xx%]`` brackets are seen, ``"perf 5.x+"`` for ``a +- b seconds``,
        else None), ``target`` (``system wide`` or the command), ``runs``,
        ``csv`` (bool), ``json`` (bool).

        The workload's own messages on the same stream (``perf stat -I 1000 -x, dd ... 2> log`` holds
        ``dd``'s ``records in`` lines between the intervals) are left out with a
        :class:`SkippedLinesWarning` naming their lines; ``-j`` (perf 6.x, one JSON object a line) fills
        the same columns, ``cpu`` labelled as the text layout labels it (``CPU0``, ``S0``, ``S0-D0-C1``).
        ``-I --summary`` prints the run's totals after the intervals (under ``Performance counter stats``, or
        with ``summary`` for the time under ``-x``): they are the next ``block``, ``time`` NaN.
    """
    text, name = read_source(src, source, max_bytes)
    if _JSON_LINE_RE.search(text[:65536]):
        if len(text) > FAST_MIN and text.isascii():
            fast = _fast_json_intervals(text, name)
            if fast is not None:
                return fast
        return _parse_json_lines(text, text.split("\n"), name)
    # the first lines that look like perf's: a workload's messages ('200000+0 records in') may come first
    head = [ln for ln in _first_lines(text, 200) if ln.strip() and not ln.lstrip().startswith("#")][:50]
    sample = next((ln for ln in head if not _foreign(ln)), head[0] if head else "")
    seps = [s for s in (",", ";", "|", "\t") if sample.count(s) >= 3 or (
        sample.count(s) and "Performance counter stats" not in text and _csv_metric_head(sample, s))]
    if seps and "Performance counter stats" not in sample and "Performance counter stats" not in text[:65536]:
        if len(text) > FAST_MIN and text.isascii():
            fast = _fast_intervals(text, name, seps[0])
            if fast is not None:
                return fast
        return _parse_csv(text, text.split("\n"), name, seps[0])
    dec = _locale(text)
    group, group_line = _grouping(text, dec)
    if dec == "." and group is None and len(text) > FAST_MIN and text.isascii():
        fast = _fast_text_intervals(text, name)
        if fast is not None:
            return fast
    lines = text.split("\n")
    has_header = bool(_HDR_RE.search(text)) or bool(_INTERVAL_HDR_RE.search(text))
    strict = not has_header  # in a file of perf stat output alone, every counter line must read
    recs = []
    block = -1
    target = None
    runs = None
    ver = None
    interval = False
    skipped: list[int] = []

    def bad(i, ln, what):
        return fail(name, text, ("line", i + 1), what, ln)

    for i, ln in enumerate(lines):
        s = ln.strip()
        if s.startswith("#") and _INTERVAL_HDR_RE.match(s):
            strict = True  # -I header: the counter lines follow
            interval = True
            continue
        if s.startswith("#") and re.match(r"^#\s+time\s", s) and "counts" not in s:
            raise bad(i, ln, "perf stat -I output with counts ('#  time  counts unit events'): the --metric-only "
                      "text layout names its columns by metric and pads them with spaces that the names also "
                      "hold; record it with -x, (CSV), which is read")
        mc = _METRIC_LINE_RE.match(ln)
        if mc and recs and recs[-1]["event"] != "time elapsed":
            # a counter's further metric on a line of its own, under the first (the text layout of
            # the CSV's ',,,,1.48,stalled cycles per insn'): a row of that counter, as the CSV gives it
            try:
                mval = _number(mc.group(1), dec)
            except ValueError:
                raise bad(i, ln, "a metric line '#  <value> <metric name>' under its counter") from None
            prev = recs[-1]
            recs.append(_metric_of(prev, mval, mc.group(2).strip(),
                                   enabled_pct=_number(mc.group(3), dec) if mc.group(3) else np.nan))
            counter = next((r for r in reversed(recs) if r["counted"] != "metric"), None)
            if counter is not None:
                if mc.group(4):
                    counter["variance_pct"] = _number(mc.group(4), dec)
                if mc.group(5):
                    counter["enabled_pct"] = _number(mc.group(5), dec)
            continue
        if strict and recs and ln[:1].isspace() and s.startswith("#") and recs[-1]["event"] != "time elapsed":
            raise bad(i, ln, "a metric line '#  <value> <metric name> [(<enabled>%)]' under its counter")
        if not s or s.startswith("#") or len(s) > 1000:  # no perf stat line is that long: prose
            continue
        m = _HDR_RE.search(s)
        if m:
            if interval:
                # -I --summary: the totals after the intervals are a report of their own, not intervals
                # (their lines carry no time) and not more of the intervals' block
                block = max(block, 0) + 1
                interval = False
            else:
                block += 1
            strict = True
            target = m.group(1) or m.group(2) or m.group(3)
            runs = int(m.group(4)) if m.group(4) else runs
            continue
        m = _ELAPSED_RE.match(ln)
        if m:
            if m.group("sd"):
                ver = "perf 5.x+"
            try:
                v = _number(m.group("v"), dec)
                sd = _number(m.group("sd"), dec) if m.group("sd") else np.nan
                var = _number(m.group("var"), dec) if m.group("var") else np.nan
            except ValueError:
                raise bad(i, ln, "'<seconds> [+- <sd>] seconds time elapsed'") from None
            recs.append({"block": max(block, 0), "time": np.nan, "cpu": "", "event": m.group("what"),
                         "value": v, "unit": "seconds", "counted": "counted",
                         "variance_pct": var, "run_time": np.nan, "enabled_pct": np.nan,
                         "metric_value": sd, "metric_unit": "+- seconds" if m.group("sd") else ""})
            if m.group("what") == "time elapsed" and has_header:
                strict = False  # the report is over; what follows in a mail is prose again
            continue
        mv = _VAR_LINE_RE.match(ln)
        if mv and recs:  # perf 6 puts the ( +- x% ) of a long line on a line of its own
            if np.isnan(recs[-1]["variance_pct"]):
                recs[-1]["variance_pct"] = _number(mv.group(1), dec)
            continue
        if interval and not _INTERVAL_RE.match(ln):
            # under -I every counter line starts with its interval time: this line is the workload's
            # ('3000000+0 records in'), which perf stat's stream interleaves with the intervals
            skipped.append(i)
            continue
        if not _COUNTER_START_RE.match(ln):
            continue  # perf's hints ("Some events weren't counted...") and prose
        m = _LINE_RE.match(ln)
        expected = "a perf stat counter line '<count> [unit] <event> [# <metric>] [( +- x% )] [(enabled%)]'"
        if not m or not m.group("names"):
            if strict:
                raise bad(i, ln, expected)
            continue
        v = m.group("value").strip()
        names = m.group("names").split()
        rest = m.group("rest") or ""
        unit = ""
        old = _OLD_UNIT_RE.match(rest)
        if old and len(names) == 1:  # perf 3.x: "1708.76 task-clock (msec)"
            unit = old.group(1)
            rest = rest[old.end():]
        ok = len(names) == 1 or (len(names) == 2 and names[0] in UNITS and not unit)
        if any(_PLAIN_RE.fullmatch(n) for n in names):
            ok = False  # an event is never named by a number: a --metric-only row of values, or damage
        try:
            value = _count(v, dec, group) if v[0] != "<" else np.nan
        except _OtherGrouping:
            raise bad(i, ln, f"a count grouped as the rest of this file groups it: thousands with {group!r} (line "
                      f"{group_line}), so {v!r} is neither a count perf printed here nor a number with "
                      f"{len(v.rsplit(dec if dec != group else '.', 1)[-1])} decimals (perf prints a count with 0 "
                      f"or 2)") from None
        except ValueError:
            ok = False
        met = _METRIC_RE.search(rest)
        if ok and rest:
            ok = bool(_REST_RE.match(rest)) and ("#" not in rest or met is not None or
                                                  not re.search(r"#\s*-?\d", rest))
            if met:
                try:
                    metric_value = _number(met.group(1), dec)
                except ValueError:
                    ok = False
        if not ok:
            if strict:
                raise bad(i, ln, expected)
            continue
        if len(names) == 2:
            unit, event = names
        else:
            event = names[0]
        counted = "counted" if v[0] != "<" else v.strip("<>")
        var = _VAR_RE.search(rest)
        en = _ENABLED_RE.search(rest)
        if en and "[" in en.group(0):
            ver = ver or "perf 3.x"
        metric_unit = met.group(2).strip() if met else ""
        recs.append({"block": max(block, 0), "time": _f(m.group("time")), "cpu": m.group("cpu") or m.group("thread")
                     or "",
                     "event": event, "value": value, "unit": unit, "counted": counted,
                     "variance_pct": _number(var.group(1), dec) if var else np.nan,
                     "run_time": np.nan, "enabled_pct": _number(en.group(1), dec) if en else np.nan,
                     "metric_value": metric_value if met else np.nan, "metric_unit": metric_unit})
    if not recs:
        raise fail(name, text, None, "perf stat counter lines ('<value> [unit] <event>')", text[:80])
    warn_skipped(name, [i + 1 for i in skipped], [lines[i] for i in skipped],
                 "perf stat -I counter lines ('<interval time> <count> [unit] <event>')")
    df = pd.DataFrame(recs, columns=COLUMNS)
    return set_attrs(df, name, "perf-stat", ver, None, target=target, runs=runs, csv=False, json=False,
                     decimal=dec, grouping=group)


_INTERVAL_RE = re.compile(r"^\s*\d+\.\d+\s")
# the -I header; with -A or --per-* the aggregation's own columns come before counts ('time CPU counts',
# 'time socket cpus counts'), and --per-thread's 'comm-pid'
_INTERVAL_HDR_RE = re.compile(r"^#\s+time\s+(?:(?:CPU|core|die|socket|node|cluster|cache|comm-pid)\s+(?:cpus\s+)?)?"
                              r"counts\b", re.M)


def _first_lines(text: str, n: int) -> list[str]:
    """``text.split("\\n")[:n]`` without splitting (or copying) the rest of the text."""
    end = -1
    for _ in range(n):
        end = text.find("\n", end + 1)
        if end < 0:
            return text.split("\n")[:n]
    return text[:end].split("\n")


def _foreign(ln: str) -> bool:
    """A line perf stat never prints in its -x output: a workload's message on the same stream
    (``200000+0 records in``, ``204800000 bytes (205 MB, 195 MiB) copied, 0.12 s, 1.7 GB/s``).  Perf's
    first field (a count, an interval time, a CPU label or a header name) holds no blank."""
    s = ln.strip()
    if not s or s.startswith(("#", "{")):
        return False
    first = re.split(r"[,;|\t]", s, maxsplit=1)[0].strip()
    if not re.search(r"\s", first) or is_number(first) or first.startswith("<not "):
        return False
    # the --metric-only header names metrics, with blanks ('insn per cycle,stalled cycles per insn,')
    return not any(sep in s and _csv_metric_head(s, sep) for sep in (",", ";", "|", "\t"))


# the start of a counter line cut short: a value (or <not ...) and at most a piece of a name
_CUT_RE = re.compile(r"^\s*(?:\d+\.\d+\s+)?(?:\d[\d,.']*|<not[^>]*>?)(?:\s+\S*)?\s*$")


def _metric_of(prev: dict, value: float, unit: str, **over) -> dict:
    """A further metric of the counter record ``prev`` (perf prints it on a line of its own): a row of
    that counter with no count of its own."""
    return {**prev, "value": np.nan, "unit": "", "counted": "metric", "variance_pct": np.nan, "run_time": np.nan,
            "enabled_pct": np.nan, "metric_value": value, "metric_unit": unit, **over}


def _complete(ln: str) -> bool:
    m = _LINE_RE.match(ln)
    return bool(m and m.group("names") and m.group("names").split())


def _f(s):
    if s is None or s == "":
        return np.nan
    try:
        return locale_number(s)
    except ValueError:
        return np.nan


def _parse_csv(text, lines, name, sep):
    recs = []
    block = 0
    summary = False  # in the totals -I --summary prints after the intervals
    meta = None  # the --metric-only header, once seen: (has_time, aggregation key, metric names)
    glued = False
    group = None  # the metric group (perf 6.5+: ',<run>,<enabled>,,,,TopdownL1') whose metrics follow
    skipped: list[int] = []
    data_lines = [i for i, ln in enumerate(lines) if ln.strip() and not ln.strip().startswith("#")]
    last = data_lines[-1] if data_lines else -1
    for i, ln in enumerate(lines):
        s = ln.strip()
        if not s:
            continue
        if s.startswith("#"):
            if "started on" in s and recs:
                block += 1
            continue
        if _foreign(ln):
            skipped.append(i)  # the workload's message, not perf's
            continue
        f = [x.strip() for x in s.split(sep)]

        def bad(expected, f=f, i=i, ln=ln):
            return fail(name, text, ("line", i + 1), expected, ln)

        head = _metric_header(f, s.endswith(sep)) if meta is not None or not recs else None
        if head is not None:
            meta, was_glued = head
            glued = glued or was_glued
            continue
        if meta is not None:
            recs.extend(_metric_row(f, s.endswith(sep), meta, block, i, i == last, name, bad))
            continue
        grp = _group_line(f)
        if grp is not None and (grp["kind"] != "metric" or group is not None):
            if grp["kind"] == "header":
                group = grp
                continue
            own = grp["run"] is not None  # a metric of another event of the group carries that event's running
            rec = {"block": block, "time": grp["time"] if grp["time"] == grp["time"] else group["time"],
                   "cpu": grp["cpu"] or group["cpu"], "event": "", "value": np.nan, "unit": "", "counted": "metric",
                   "variance_pct": grp["var"] if own else group["var"],
                   "run_time": grp["run"] if own else group["run"], "enabled_pct": grp["pct"] if own else group["pct"],
                   "metric_value": grp["value"], "metric_unit": grp["unit"], "metricgroup": group["name"]}
            if grp["thresh"]:
                rec["metric_threshold"] = grp["thresh"]
            recs.append(rec)
            continue
        group = None  # a counter line ends a metric group
        k = 0
        t = np.nan
        cpu = ""
        if len(f) >= 4 and f[0] == "summary" and recs and not summary:
            block += 1  # -I --summary: the totals, 'summary' in the time column, are a report of their own
            summary = True
        if len(f) >= 4 and f[0] == "summary" and summary:
            k = 1
        elif len(f) >= 4 and is_number(f[0]) and (_is_val(f[1]) and not _is_val(f[3]) or (
                re.fullmatch(r"\d+\.\d+", f[0]) and (_AGG_RE.match(f[1]) or _THREAD_RE.match(f[1])))):
            t = _f(f[0])
            k = 1
        if len(f) > k + 3 and _THREAD_RE.match(f[k]) and not _AGG_RE.match(f[k]) and _is_val(f[k + 1]):
            cpu = f[k]  # --per-thread: comm-tid
            k += 1
        elif len(f) > k + 3 and _AGG_RE.match(f[k]):
            cpu = f[k]
            k += 1
            if len(f) > k + 3 and f[k].isdigit() and _is_val(f[k + 1]):
                k += 1  # number of CPUs aggregated
        cont = _continuation(f)
        if cont is not None:
            if not recs:
                raise bad("a counter line before the metric line that continues it (perf prints a counter's "
                          "further metrics on lines of their own, the counter fields left empty)")
            ct, ccpu, mval, munit = cont
            prev = recs[-1]
            recs.append(_metric_of(prev, mval, munit, time=prev["time"] if np.isnan(ct) else ct,
                                   cpu=ccpu or prev["cpu"]))
            continue
        if f and not any(f):
            continue  # a line of separators only: nothing on it
        if len(f) < k + 3 or not _is_val(f[k]) or not f[k + 2]:
            raise bad(f"perf stat -x'{sep}' fields: value{sep}unit{sep}event{sep}...")
        v, unit, event = f[k], f[k + 1], f[k + 2]
        rest = f[k + 3:]
        var = np.nan
        if rest and rest[0].endswith("%"):
            var = _field(rest[0][:-1], "the variance '<x>%' of -r", bad)
            rest = rest[1:]
        run_time = _field(rest[0], "the counter's run time (ns)", bad) if len(rest) > 0 else np.nan
        enabled = _field(rest[1], "the percentage of time the counter ran", bad) if len(rest) > 1 else np.nan
        mval = _field(rest[2], "the metric value", bad) if len(rest) > 2 else np.nan
        munit = rest[3] if len(rest) > 3 else ""
        if len(rest) > 4 and any(rest[4:]):
            raise bad(f"at most value{sep}unit{sep}event{sep}[variance%{sep}]run{sep}enabled%{sep}metric{sep}"
                      f"metric unit")
        counted = "counted" if not v.startswith("<") else v.strip("<>")
        recs.append({"block": block, "time": t, "cpu": cpu, "event": event,
                     "value": _f(v) if counted == "counted" else np.nan, "unit": unit, "counted": counted,
                     "variance_pct": var, "run_time": run_time, "enabled_pct": enabled, "metric_value": mval,
                     "metric_unit": munit})
    if not recs:
        if meta is not None:
            raise fail(name, text, None, "metric values under the perf stat --metric-only header (perf printed "
                       "no metric name it could compute: without hardware counters, in a VM, its rows are "
                       "empty)", text[:80])
        raise fail(name, text, None, "perf stat -x lines", text[:80])
    warn_skipped(name, [i + 1 for i in skipped], [lines[i] for i in skipped],
                 f"perf stat -x'{sep}' lines (value{sep}unit{sep}event{sep}...)")
    more = list(dict.fromkeys(k for r in recs for k in r if k not in COLUMNS))  # metricgroup, metric_threshold
    df = pd.DataFrame(recs, columns=COLUMNS + more)
    for c in more:  # text columns, empty where a row has none (as cpu and unit are)
        df[c] = df[c].fillna("")
    extra = {"metric_only": True, "metrics": list(meta[2])} if meta is not None else {"metric_only": False}
    if glued:
        extra["notes"] = ["perf 6.1 prints the --per-socket/--per-die header without a separator after 'cpus' "
                          "('socket,cpus' + first metric): the first metric name was split off 'cpus'"]
    return set_attrs(df, name, "perf-stat", None, None, target=None, runs=None, csv=True, json=False, separator=sep,
                     **extra)


#: a text longer than this (characters) is tried with :func:`_fast_intervals` first: its first 64 KiB are read line
#: by line in any case
FAST_MIN = 1 << 17


def _head(text: str) -> tuple[str, list[str]]:
    """The first 64 KiB of *text* (to a line's end) that a fast path reads line by line, and its lines."""
    cut = text.find("\n", 65535)
    head = text[:cut + 1] if cut >= 0 else text
    return head, head.split("\n")


def _first_interval(first: pd.DataFrame) -> int:
    """The rows of the first interval (those at its time)."""
    return int((first["time"] == first["time"].iat[0]).sum())


def _offset(lines: list[str], i: int) -> int:
    """Where line *i* of *lines* starts in their text."""
    return sum(len(ln) + 1 for ln in lines[:i])


def _fast_intervals(text: str, name: str, sep: str) -> pd.DataFrame | None:
    """``perf stat -I <ms> -x<sep>``: every interval the same counters, only the numbers changing, read by numba
    (:func:`~._fastperf.scan_fields`).  The line reader reads the first 64 KiB; every later line must be the
    next line of its first interval with other numbers (``time,value,unit,event,run,enabled,metric,metric unit``,
    every counter counted).  A dict a line took 17x the file's memory for 10**6 lines.  None for anything else
    (``<not counted>``, a workload's message, a comment, ``--summary``, -A/--per-* labels, -r, metric groups,
    --metric-only, a field more or less), which the line reader then reads, warns about or refuses as before."""
    import warnings

    from ._fastperf import NUMBER, NUMBER_OR_EMPTY, TEXT, scan_fields

    head, lines = _head(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            first = _parse_csv(head, lines, name, sep)
        except (WorkbookParseError, Warning):
            return None
    if (list(first.columns) != COLUMNS or first.attrs.get("metric_only") or (first["block"] != 0).any()
            or (first["counted"] != "counted").any() or (first["cpu"] != "").any()
            or first["variance_pct"].notna().any() or first["time"].isna().any()):
        return None
    n_first = _first_interval(first)
    data = [i for i, ln in enumerate(lines) if ln.strip() and not ln.strip().startswith("#")]
    if n_first < 1 or len(data) != len(first) or (first["time"].iloc[:n_first] != first["time"].iat[0]).any():
        return None
    template = []
    for i, row in zip(data[:n_first], first.itertuples()):
        f = [x.strip() for x in lines[i].split(sep)]
        if len(f) != 8 or not f[3] or _is_val(f[3]) or (f[2], f[3], f[7]) != (row.unit, row.event, row.metric_unit):
            return None
        # the metric's unit is any text: perf scales it from interval to interval (/sec, K/sec, M/sec)
        template.append([NUMBER, NUMBER, f[2], f[3], NUMBER_OR_EMPTY, NUMBER_OR_EMPTY, NUMBER_OR_EMPTY, TEXT])
    start = _offset(lines, data[0])  # after the comments before the first counter line
    scan = scan_fields(text, sep, template, text.count("\n") // n_first + 2, start=start)
    if scan is None:
        return None
    numbers, units, distinct, n, _ = scan
    t, value, run, enabled, metric = numbers.reshape(n, 5).T
    df = _repeated(first, n_first, t, value, run, enabled, metric,
                   pd.array(distinct, dtype=first["metric_unit"].dtype).take(units))
    return set_attrs(df, name, "perf-stat", None, None, target=None, runs=None, csv=True, json=False, separator=sep,
                     metric_only=False)


def _fast_text_intervals(text: str, name: str) -> pd.DataFrame | None:
    """``perf stat -I <ms>`` in the C locale (no thousands grouped, a decimal point): every interval the same
    counters, a line each (``<time> <count> [unit] <event> [# <metric> <metric unit>]``), only the numbers, the
    blanks between them and the metric's unit changing, read by numba (:func:`~._fastperf.scan_fields`, fields
    between runs of blanks).  The line reader reads the first 64 KiB; every later line must be the next line of
    its first interval.  None for anything else (``<not counted>``, ``(50.00%)`` when multiplexed, -A/--per-*
    labels, -r, metric lines of their own, a workload's message, a comment, ``--summary``), which the line reader
    then reads, warns about or refuses as before."""
    import warnings

    from ._fastperf import NUMBER, TEXT, UNSIGNED, UNSIGNED_DECIMAL, scan_fields

    head, lines = _head(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            first = parse_perf_stat(head, source=name)
        except (WorkbookParseError, Warning):
            return None
    if (first.attrs.get("csv") or first.attrs.get("json") or first.attrs.get("version") is not None
            or first.attrs.get("target") is not None or first.attrs.get("decimal") != "."
            or first.attrs.get("grouping") is not None or (first["block"] != 0).any()
            or (first["counted"] != "counted").any() or (first["cpu"] != "").any() or first["time"].isna().any()
            or first["variance_pct"].notna().any() or first["enabled_pct"].notna().any()):
        return None
    data = [i for i, ln in enumerate(lines) if ln.strip() and not ln.strip().startswith("#")]
    if not data or len(data) != len(first):
        return None
    n_first = _first_interval(first)
    template = []
    for i, row in zip(data[:n_first], first.itertuples()):
        f = lines[i].split()
        line = [UNSIGNED_DECIMAL, UNSIGNED] + ([row.unit] if row.unit else []) + [row.event]
        if f[:len(line)][2:] != line[2:]:
            return None
        if row.metric_unit:
            line += ["#", NUMBER, TEXT]
            if len(f) < len(line) or f[len(line) - 3] != "#":
                return None
        elif len(f) != len(line):
            return None
        template.append(line)
    # the numbers of each template line: its time and count, and its metric's value where it has one
    shape = [sum(not isinstance(x, str) and x != TEXT for x in line) for line in template]
    start = _offset(lines, data[0])
    scan = scan_fields(text, " ", template, text.count("\n") // n_first + 2, start=start)
    if scan is None:
        return None
    numbers, units, distinct, n, _ = scan
    # the numbers of each line in the order of the text: time, count and, with a metric, its value
    counts = np.array(shape)[np.arange(n) % n_first]
    ends = np.cumsum(counts)
    t = numbers[ends - counts]
    value = numbers[ends - counts + 1]
    metric = np.full(n, np.nan)
    has = counts == 3
    metric[has] = numbers[ends[has] - 1]
    texts = pd.array(distinct + [""], dtype=first["metric_unit"].dtype)
    code = np.full(n, len(distinct))
    code[has] = units
    df = _repeated(first, n_first, t, value, np.full(n, np.nan), np.full(n, np.nan), metric, texts.take(code))
    return set_attrs(df, name, "perf-stat", None, None, target=None, runs=None, csv=False, json=False, decimal=".",
                     grouping=None)


def _repeated(first: pd.DataFrame, n_first: int, t, value, run, enabled, metric, metric_unit) -> pd.DataFrame:
    """The frame of a fast path's lines: each the next of the first interval's *n_first* rows of *first* (its
    event, unit, cpu, counted), with the numbers and metric units read."""
    n = len(t)
    every = np.arange(n) % n_first
    col = {c: first[c].array[:n_first].take(every) for c in ("cpu", "event", "unit", "counted")}
    return pd.DataFrame({"block": np.zeros(n, dtype=first["block"].dtype), "time": t, "cpu": col["cpu"],
                         "event": col["event"], "value": value, "unit": col["unit"], "counted": col["counted"],
                         "variance_pct": np.full(n, np.nan), "run_time": run, "enabled_pct": enabled,
                         "metric_value": metric, "metric_unit": metric_unit}, copy=False)


# perf stat -I -j's keys in the order perf 6.x prints them (stat-display.c print_counter_value_json and friends)
_JSON_INTERVAL_KEYS = ("interval", "counter-value", "unit", "event", "event-runtime", "pcnt-running", "metric-value",
                       "metric-unit")
_JSON_FIELD_RE = re.compile(r'^(\{?"([a-z-]+)" : )("?)(.*?)("?\}?)$')


def _fast_json_intervals(text: str, name: str) -> pd.DataFrame | None:
    """``perf stat -I <ms> -j``: every interval the same counters, one object a line with the same keys in the same
    order, only the numbers and the metric's unit changing, read by numba (:func:`~._fastperf.scan_fields`, the
    object's fields split at its commas).  The JSON reader reads the first 64 KiB; every later line must be the
    next line of its first interval with other numbers.  None for anything else (another key or spacing, -A or
    --per-* keys, -r's variance, ``<not counted>``, an escape in a text, a workload's message), which the JSON
    reader then reads, warns about or refuses as before."""
    import warnings

    from ._fastperf import JSON_NUMBER, LITERAL, NUMBER, TEXT, Field, scan_fields

    head, lines = _head(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            first = _parse_json_lines(head, lines, name)
        except (WorkbookParseError, Warning):
            return None
    if list(first.columns) != COLUMNS or (first["counted"] != "counted").any():
        return None
    n_first = _first_interval(first)
    data = [i for i, ln in enumerate(lines) if ln.strip()]
    if len(data) != len(first) or (first["time"].iloc[:n_first] != first["time"].iat[0]).any():
        return None
    kinds = {"interval": NUMBER, "counter-value": NUMBER, "event-runtime": NUMBER, "pcnt-running": NUMBER,
             "metric-value": NUMBER, "metric-unit": TEXT, "unit": LITERAL, "event": LITERAL}
    template = []
    for i in data[:n_first]:
        fields = []
        for f in lines[i].strip().split(","):
            m = _JSON_FIELD_RE.match(f.strip())
            if m is None or "\\" in f:
                return None
            fields.append((m.group(2), m))
        if tuple(k for k, _ in fields) != _JSON_INTERVAL_KEYS:
            return None
        line = []
        for k, m in fields:
            if kinds[k] == LITERAL:
                line.append(m.group(0))
            else:  # a number in quotes is read by float(), a bare one by json.loads
                kind = kinds[k] if kinds[k] != NUMBER or m.group(3) else JSON_NUMBER
                line.append(Field(kind, m.group(1) + m.group(3), m.group(5)))
        template.append(line)
    start = _offset(lines, data[0])
    scan = scan_fields(text, ",", template, text.count("\n") // n_first + 2, start=start)
    if scan is None:
        return None
    numbers, units, distinct, n, _ = scan
    t, value, run, enabled, metric = numbers.reshape(n, 5).T
    # perf prints metric-value 0 beside an empty unit for a counter it could not count: the JSON reader's NaN
    if "" in distinct:
        metric[units == distinct.index("")] = np.nan
    df = _repeated(first, n_first, t, value, run, enabled, metric,
                   pd.array(distinct, dtype=first["metric_unit"].dtype).take(units))
    return set_attrs(df, name, "perf-stat", None, None, target=None, runs=None, csv=False, json=True)


#: the first header fields of perf stat -x --metric-only: interval time, aggregation (-A, --per-*), its count
_AGG_KEYS = ("cpu", "core", "die", "socket", "node", "cluster", "cache", "comm-pid", "thread")
_COUNT_KEYS = ("cpus", "ctrs")
_PLAIN_RE = re.compile(r"-?\d+(?:[.,]\d+)?")


def _csv_metric_head(line: str, sep: str) -> bool:
    """Is *line* the header of ``perf stat -x<sep> --metric-only`` (it may have fewer than 3 separators)?"""
    s = line.strip()
    f = [x.strip() for x in s.split(sep)]
    return _metric_header(f, s.endswith(sep)) is not None and (s.endswith(sep) or f[0] in ("time",) + _AGG_KEYS)


def _metric_header(f: list[str], trailing: bool):
    """The --metric-only CSV header (``time,core,cpus,retiring,bad speculation,...,``) as
    ((has_time, aggregation key, metric names), glued); None when *f* is not one."""
    if trailing:
        f = f[:-1]
    if not f or not all(f) or any(_PLAIN_RE.fullmatch(x) or x.startswith("<not") for x in f):
        return None
    k = 0
    has_time = f[0] == "time"
    k += has_time
    agg = None
    glued = False
    if k < len(f) and f[k] in _AGG_KEYS:
        agg = f[k]
        k += 1
        if k < len(f) and f[k] in _COUNT_KEYS:
            k += 1
        elif k < len(f) and f[k][:4] in _COUNT_KEYS:  # perf 6.1: "socket,cpus" glued to the first metric
            f = f[:k] + [f[k][4:]] + f[k + 1:]
            glued = True
    if not has_time and agg is None and len(f) < 1:
        return None
    names = tuple(f[k:])
    if not has_time and agg is None and any(x in _AGG_KEYS + _COUNT_KEYS + ("time",) for x in names):
        return None
    return (has_time, agg, names), glued


def _metric_row(f, trailing, meta, block, i, is_last, name, bad):
    """One --metric-only CSV row: a record per metric named in the header."""
    has_time, agg, names = meta
    cells = f[:-1] if trailing else list(f)
    k = 0
    t = np.nan
    cpu = ""
    want = ("time, " if has_time else "") + (f"{agg}, " if agg else "") + "then one value per metric ("
    want += ", ".join(names) + ")"
    if has_time:
        if not cells or not re.fullmatch(r"\d+\.\d+", cells[0]):
            raise bad("a perf stat --metric-only row: " + want)
        t = float(cells[0])
        k = 1
    if agg is not None:
        if len(cells) <= k or not cells[k] or (agg != "comm-pid" and not _AGG_RE.match(cells[k])):
            raise bad("a perf stat --metric-only row: " + want)
        cpu = cells[k]
        k += 1
        if cpu[0] in "SN":  # --per-socket/-die/-core/-node ids carry the count of CPUs aggregated
            if len(cells) <= k or not cells[k].isdigit():
                raise bad("a perf stat --metric-only row: " + want + f", after {cpu} its count of CPUs")
            k += 1
    vals = cells[k:]
    n = len(names)
    if len(vals) > n and not any(vals):
        vals = vals[:n]  # perf <6.2 prints an empty cell, without a header, for each counter it could not count
    elif len(vals) < n:
        if is_last:
            warn_truncated(name, i + 1, f"perf stat --metric-only row ({len(vals)} of {n} values)")
            return []
        raise bad(f"{n} metric values, one per name of the --metric-only header (found {len(vals)}): " + want)
    elif len(vals) > n:
        raise bad(f"{n} metric values, one per name of the --metric-only header (found {len(vals)}: perf prints "
                  f"a cell without a header for a counter it could not count, so these values cannot be matched "
                  f"to their names)")
    out = []
    for unit, v in zip(names, vals):
        if v and not _PLAIN_RE.fullmatch(v):
            raise bad(f"a number for the metric {unit!r} (or an empty cell)")
        out.append({"block": block, "time": t, "cpu": cpu, "event": "", "value": np.nan, "unit": "",
                    "counted": "metric", "variance_pct": np.nan, "run_time": np.nan, "enabled_pct": np.nan,
                    "metric_value": float(v.replace(",", ".")) if v else np.nan, "metric_unit": unit})
    return out


def _group_line(f: list[str]) -> dict | None:
    """A line of a metric group, as perf 6.5+ prints its default groups under ``-x`` (``print_metricgroup_header_csv``
    and ``new_line_csv`` in stat-display.c, four fields for the counter's, five with a cgroup):

    * the group's header, the running of its metric event then the name: ``,225849327050,100.00,,,,TopdownL1``
      (``,1.23%`` before the running under ``-r``; perf 6.12 ends it with one more separator);
    * a metric of another event of the group, with that event's running: ``,648266,100.00,,,24.0,%  tma_retiring``;
    * a metric under the header: ``,,,,,70.1,%  tma_backend_bound`` (perf 6.12 adds its threshold class: ``,bad``).

    Returns a dict (``kind`` header or metric, ``time``, ``cpu``, ``var``, ``run``, ``pct``, ``name`` or ``value``,
    ``unit``, ``thresh``), or None.  The last form is a group's only under a header: the caller knows."""
    k = 0
    t = np.nan
    cpu = ""
    if len(f) > k + 1 and re.fullmatch(r"\d+\.\d+", f[k]) and (f[k + 1] == "" or _AGG_RE.match(f[k + 1])):
        t = float(f[k])
        k += 1
    if len(f) > k and _AGG_RE.match(f[k]):
        cpu = f[k]
        k += 1
        if len(f) > k and f[k].isdigit():
            k += 1
    g = f[k:]
    if len(g) < 4 or g[0] != "":
        return None
    rest = g[1:]
    var = np.nan
    if rest and rest[0].endswith("%") and _PLAIN_RE.fullmatch(rest[0][:-1]):
        var = float(rest[0][:-1])
        rest = rest[1:]
    out = {"time": t, "cpu": cpu, "var": var, "run": None, "pct": np.nan, "name": "", "value": np.nan, "unit": "",
           "thresh": ""}

    def metric(tail):  # value, unit [, threshold class]
        if len(tail) in (2, 3) and _PLAIN_RE.fullmatch(tail[0]) and tail[1] and not _PLAIN_RE.fullmatch(tail[1]):
            return {**out, "kind": "metric", "value": float(tail[0]), "unit": tail[1],
                    "thresh": tail[2] if len(tail) == 3 else ""}
        return None

    if len(rest) >= 4 and rest[0].isdigit() and re.fullmatch(r"\d+(?:\.\d+)?", rest[1]):
        out.update(run=float(rest[0]), pct=float(rest[1]))
        tail = rest[2:]
        named = tail[:-1] if tail and tail[-1] == "" else tail
        if len(named) >= 4 and not any(named[:-1]) and named[-1] and not _PLAIN_RE.fullmatch(named[-1]):
            return {**out, "kind": "header", "name": named[-1]}
        if len(tail) >= 4 and tail[0] == "" and tail[1] == "":
            return metric(tail[2:])
        return None
    if np.isnan(var) and len(rest) >= 6 and not any(rest[:4]):
        return metric(rest[4:])
    return None


def _continuation(f: list[str]):
    """A further metric of the counter above (``,,,,,1.48,stalled cycles per insn``): the counter fields
    empty, the metric value and unit last.  Returns (time, cpu, value, unit) or None."""
    if len(f) < 4 or not f[-1] or _PLAIN_RE.fullmatch(f[-1]) or (f[-2] and not _PLAIN_RE.fullmatch(f[-2])):
        return None
    k = 0
    t = np.nan
    cpu = ""
    if re.fullmatch(r"\d+\.\d+", f[0]):
        t = float(f[0])
        k = 1
    if _AGG_RE.match(f[k]):
        cpu = f[k]
        k += 1
        if f[k].isdigit():
            k += 1
    gap = f[k:-2]
    if len(gap) < 2 or any(gap):
        return None
    return t, cpu, float(f[-2].replace(",", ".")) if f[-2] else np.nan, f[-1]


def _field(s: str, what: str, bad) -> float:
    if s == "":
        return np.nan
    try:
        return locale_number(s)
    except ValueError:
        raise bad(f"{what}: a number or an empty field") from None


def _is_val(s: str) -> bool:
    return s.startswith("<not") or is_number(s)


# ---------------------------------------------------------------- perf stat -j (--json-output)

# perf 6.x -j prints one object a line, every counter line holding "counter-value"
_JSON_LINE_RE = re.compile(r'^\s*\{[^\n]*"counter-value"\s*:', re.M)
#: the aggregation keys of -j and the label the text layout prints for them (-A's "cpu" : "3" is CPU3)
_JSON_AGG = ("cpu", "core", "die", "socket", "node", "cluster", "cache", "thread")
_JSON_KEYS = {"interval", "counter-value", "unit", "event", "event-runtime", "pcnt-running", "variance",
              "metric-value", "metric-unit", "aggregate-number", *_JSON_AGG}


def _parse_json_lines(text: str, lines: list[str], name: str) -> pd.DataFrame:
    """``perf stat -j``: one JSON object per counter (a further metric of a counter is an object of its own,
    with ``metric-value`` and ``metric-unit`` only); other lines are the workload's and are left out."""
    import json

    recs = []
    skipped: list[int] = []
    last = max((i for i, ln in enumerate(lines) if ln.strip()), default=-1)
    for i, ln in enumerate(lines):
        s = ln.strip()
        if not s:
            continue
        if not s.startswith("{"):
            skipped.append(i)
            continue

        def bad(expected, i=i, ln=ln):
            return fail(name, text, ("line", i + 1), expected, ln)

        try:
            o = json.loads(s)
        except ValueError as e:
            if i == last and not text.endswith("\n"):
                # read_source leaves a cut last line to the JSON reader: here it is one record of many
                warn_truncated(name, i + 1, "perf stat -j line")
                break
            raise bad(f"one perf stat -j JSON object per line ({e})") from None
        if not isinstance(o, dict):
            raise bad("a perf stat -j counter object ({\"counter-value\" : ..., \"event\" : ...})")
        # keys of later perfs ("metric-threshold", "cgroup") become columns of their own, never dropped
        more = {k.replace("-", "_"): v for k, v in o.items() if k not in _JSON_KEYS}
        t = _json_float(o.get("interval"), "the interval time", bad)
        cpu = ""
        for k in _JSON_AGG:
            if k in o:
                cpu = f"CPU{o[k]}" if k == "cpu" else str(o[k])
        if "counter-value" not in o:
            if not recs or "metric-unit" not in o:
                raise bad("a perf stat -j object with 'counter-value' (or a further metric of the counter above, "
                          "with 'metric-value' and 'metric-unit')")
            prev = recs[-1]
            recs.append(_metric_of(prev, _json_float(o.get("metric-value"), "the metric value", bad),
                                   str(o.get("metric-unit") or ""), time=prev["time"] if np.isnan(t) else t,
                                   cpu=cpu or prev["cpu"], **more))
            continue
        v = str(o["counter-value"]).strip()
        counted = v.strip("<>") if v.startswith("<not") else "counted"
        if not isinstance(o.get("event"), str) or not o["event"]:
            raise bad("a perf stat -j counter object with its 'event' name")
        mu = o.get("metric-unit") or ""
        recs.append({"block": 0, "time": t, "cpu": cpu, "event": o["event"],
                     "value": _json_float(v, "the counter value", bad) if counted == "counted" else np.nan,
                     "unit": o.get("unit") or "", "counted": counted,
                     "variance_pct": _json_float(o.get("variance"), "the variance", bad),
                     "run_time": _json_float(o.get("event-runtime"), "the event run time", bad),
                     "enabled_pct": _json_float(o.get("pcnt-running"), "the percentage running", bad),
                     # perf prints metric-value 0 beside an empty unit for a counter it could not count
                     "metric_value": _json_float(o.get("metric-value"), "the metric value", bad) if mu else np.nan,
                     "metric_unit": mu, **more})
    if not recs:
        raise fail(name, text, None, "perf stat -j lines ({\"counter-value\" : ..., \"event\" : ...})", text[:80])
    warn_skipped(name, [i + 1 for i in skipped], [lines[i] for i in skipped],
                 "perf stat -j JSON objects (one a line)")
    extra = list(dict.fromkeys(k for r in recs for k in r if k not in COLUMNS))
    df = pd.DataFrame(recs, columns=COLUMNS + extra)
    return set_attrs(df, name, "perf-stat", None, None, target=None, runs=None, csv=False, json=True)


def _json_float(v, what: str, bad) -> float:
    """A number of a -j object (perf prints counts as strings, "147.691721"); NaN when absent, else an error."""
    if v is None or v == "":
        return np.nan
    if isinstance(v, bool) or not isinstance(v, (int, float, str)) or (
            isinstance(v, str) and not _JSON_NUM_RE.fullmatch(v)):
        raise bad(f"{what}: a number")
    return float(v)


_JSON_NUM_RE = re.compile(r"\s*-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\s*")
