"""sysstat's ``iostat`` text (``-x -t -k -m -z -p``, ``--pretty``, ``-c``), sysstat 9 to 12."""

from __future__ import annotations

import re

from ..iostat import parse_iostat, parse_iostat_cpu
from ._head import Head

KINDS = {"iostat": parse_iostat, "iostat-cpu": parse_iostat_cpu}

# Where the former sniff chain asked it: no capture matches another text format's sniff too.
PRIORITY = 120

_BLOCK_RE = re.compile(r"^(avg-cpu:|Device:?\s)", re.M)
_PRETTY_HEADER_RE = re.compile(r"^[ \t]+(?:tps|r/s|rrqm/s|rkB/s|rMB/s)[ \t][^\n]*[ \t]Device[ \t]*$", re.M)
_DEVICE_RE = re.compile(r"^Device|[ \t]Device[ \t]*$", re.M)


def sniff(head: Head) -> str | None:
    text = head.text
    if _BLOCK_RE.search(text) or _PRETTY_HEADER_RE.search(text):  # the second: --pretty, the device name last
        if not _DEVICE_RE.search(text):
            return "iostat-cpu"  # iostat -c: the avg-cpu block alone (the device frame would be empty)
        return "iostat"
    return None
