"""Folded stacks (``a;b;c 12``), as ``stackcollapse-perf.pl`` and :func:`kernel_workbook.traces.fold` write them."""

from __future__ import annotations

from ..perfscript import parse_folded
from ._head import Head

KINDS = {"folded": parse_folded}

# Last, as in the former sniff chain: 'x;y 1' on the first line is all it asks for.
PRIORITY = 180


def sniff(head: Head) -> str | None:
    first = head.start.split("\n", 1)[0][:20000]
    stack, _, count = first.rpartition(" ")
    return "folded" if stack and ";" in stack and count.isdigit() else None
