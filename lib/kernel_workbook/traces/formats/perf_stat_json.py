"""``perf stat -j``: one JSON object a line (``{"counter-value" : ...}``), maybe after the workload's messages."""

from __future__ import annotations

import re

from ..perfstat import parse_perf_stat
from ._head import Head

KINDS = {"perf-stat": parse_perf_stat}

# Among the JSON formats (below TEXT_FORMATS): a file of these lines alone opens with '{' like a JSON document,
# and the text formats are never asked about one.  First of all, as in the former sniff chain: the workload's
# messages printed before the lines (dd's 'records in') may look like anything.
PRIORITY = 10

_OBJECT_LINE_RE = re.compile(r'^\s*\{[^\n]*"counter-value"\s*:', re.M)


def sniff(head: Head) -> str | None:
    return "perf-stat" if _OBJECT_LINE_RE.search(head.text) else None
