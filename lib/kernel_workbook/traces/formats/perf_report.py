"""``perf report --stdio``: its table, and (by name only: ``kind="perf-report-callgraph"``) its call-graph trees."""

from __future__ import annotations

import re

from ..perfreport import parse_perf_report, parse_perf_report_callgraph
from ._head import Head

KINDS = {"perf-report": parse_perf_report, "perf-report-callgraph": parse_perf_report_callgraph}

# Where the former sniff chain asked it: no capture matches another text format's sniff too.
PRIORITY = 130

_HEADER_RE = re.compile(r"^# (Overhead|Children)\s", re.M)


def sniff(head: Head) -> str | None:
    return "perf-report" if _HEADER_RE.search(head.text) else None
