"""``iostat -o JSON``: one JSON document with a ``"sysstat"`` key."""

from __future__ import annotations

from ..iostat import parse_iostat
from ._head import Head

KINDS = {"iostat": parse_iostat}

# Before pyperf-json, whose keys ("runs", "benchmarks") are common words.  No capture is both a fio and an iostat
# document: after fio-json, as in the former sniff chain.
PRIORITY = 40


def sniff(head: Head) -> str | None:
    return "iostat" if head.json_document and '"sysstat"' in head.start else None
