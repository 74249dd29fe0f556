"""``perf stat`` text and CSV (default, ``-r``, ``-a``, ``-A``, ``-I``, ``-x``, ``--metric-only``, ``--topdown``)."""

from __future__ import annotations

import re

from ..perfstat import parse_perf_stat
from ._head import Head

KINDS = {"perf-stat": parse_perf_stat}

# After fio-terse, whose lines its counter-line pattern (a number, then two ';'-separated fields) takes too.
# Among the text formats where the former sniff chain asked it: no capture matches another of their sniffs.
PRIORITY = 140

_CSV_HEADER_RE = re.compile(r"^ ?time,(?:[^,\n]+,)*[^,\n]*$|^(?:cpu|core|die|socket|node|cluster|cache),(?:cpus|ctrs)?",
                            re.M)
_VMSTAT_NAMES_RE = re.compile(r"^ *r +b ", re.M)
_INTERVAL_HEADER_RE = re.compile(r"^#\s+time\s+(?:\S+\s+){0,2}counts\s", re.M)
_COUNTER_LINE_RE = re.compile(
    r"^(?:\s*\d+\.\d+([,;|\t]))?(?:(?:CPU\d+|S\d+[-\w]*|N\d+|[^\s\d<#,;|\t][^,;|\t\n]*?-\d+)([,;|\t])(?:\d+[,;|\t])?)?"
    r"(-?[\d.]+|<not (?:counted|supported)>)(?P<sep>[,;|\t])[^,;|\t\n]*(?P=sep)[^,;|\t\n]+(?P=sep)", re.M)


def sniff(head: Head) -> str | None:
    text = head.text
    if _CSV_HEADER_RE.search(text) and not _VMSTAT_NAMES_RE.search(text):
        return "perf-stat"  # the header of perf stat -x, --metric-only (--topdown): time, aggregation, metrics
    if "Performance counter stats" in text or _INTERVAL_HEADER_RE.search(text) or _COUNTER_LINE_RE.search(text):
        return "perf-stat"
    return None
