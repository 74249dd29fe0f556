"""pyperf's result files (``pyperf ... -o result.json``): one JSON document with ``"benchmarks"`` or ``"runs"``."""

from __future__ import annotations

from ..pyperf_json import parse_pyperf_json
from ._head import Head

KINDS = {"pyperf-json": parse_pyperf_json}

# The last JSON document: "runs" and "benchmarks" are common words, so any document a more particular JSON
# format claims is that format's.
PRIORITY = 50


def sniff(head: Head) -> str | None:
    if head.json_document and ('"benchmarks"' in head.start or '"runs"' in head.start):
        return "pyperf-json"
    return None
