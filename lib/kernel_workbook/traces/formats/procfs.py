"""``/proc/buddyinfo``, ``/proc/pagetypeinfo``, ``/proc/zoneinfo`` and ``/proc/meminfo`` (and per-node meminfo)."""

from __future__ import annotations

import re

from ..procfs import parse_buddyinfo, parse_meminfo, parse_pagetypeinfo, parse_zoneinfo
from ._head import Head

KINDS = {"buddyinfo": parse_buddyinfo, "pagetypeinfo": parse_pagetypeinfo, "zoneinfo": parse_zoneinfo,
         "meminfo": parse_meminfo}

# Where the former sniff chain asked it: no capture matches another text format's sniff too.
PRIORITY = 150

_PAGETYPEINFO_RE = re.compile(r"^(Page block order|Free pages count per migrate type)", re.M)
_BUDDYINFO_RE = re.compile(r"^Node\s+\d+,\s*zone\s+\S+\s+\d", re.M)
_ZONEINFO_RE = re.compile(r"^Node\s+\d+,\s*zone\s+\S+\s*$", re.M)
_MEMINFO_RE = re.compile(r"^(Node \d+ )?MemTotal:", re.M)


def sniff(head: Head) -> str | None:
    text = head.text
    # pagetypeinfo first: its 'Number of blocks type' table has buddyinfo's rows ('Node 0, zone DMA 1 7 ...');
    # buddyinfo's rows and zoneinfo's 'Node 0, zone DMA' headers never match each other's pattern
    if _PAGETYPEINFO_RE.search(text):
        return "pagetypeinfo"
    if _BUDDYINFO_RE.search(text):
        return "buddyinfo"
    if _ZONEINFO_RE.search(text):
        return "zoneinfo"
    if _MEMINFO_RE.search(text):
        return "meminfo"
    return None
