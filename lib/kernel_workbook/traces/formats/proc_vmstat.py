"""``/proc/vmstat``: one snapshot, or a series of them (``time:`` lines, ``date`` lines, mmtests' monitor)."""

from __future__ import annotations

import re

from ..procvmstat import parse_proc_vmstat
from ._head import Head

KINDS = {"proc-vmstat": parse_proc_vmstat}

# Late, as in the former sniff chain: one 'nr_free_pages 123' line anywhere is enough, so the formats known by
# a header are asked first.
PRIORITY = 170

_COUNTER_LINE_RE = re.compile(r"^(nr_free_pages|nr_\w+|pgpgin|pgfault|pgscan_\w+|pgsteal_\w+|numa_\w+) -?\d+\s*$",
                              re.M)


def sniff(head: Head) -> str | None:
    return "proc-vmstat" if _COUNTER_LINE_RE.search(head.text) else None
