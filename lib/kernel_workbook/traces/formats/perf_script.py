"""``perf script`` samples (``comm pid [cpu] time: [period] event:``), with or without their stacks."""

from __future__ import annotations

import re

from ..perfscript import parse_perf_script_samples
from ._head import Head

KINDS = {"perf-script": parse_perf_script_samples}

# Late, as in the former sniff chain: one sample line anywhere in the first 80 lines is enough, so the formats
# known by a header are asked first.
PRIORITY = 160

# line-bounded, applied line by line to the first lines only (no pattern can backtrack across a whole file:
# sniffing stays linear whatever the input)
_SAMPLE_LINE_RE = re.compile(r"[ \t]*\S[^\n]*?[ \t]+-?\d+(?:/-?\d+)?[ \t]+(?:\[\d+\][ \t]+)?\d+\.\d+:[ \t]+"
                             r"(?:\d+[ \t]+)?\S+?:(?:[ \t]|$)")


def sniff(head: Head) -> str | None:
    if any(_SAMPLE_LINE_RE.match(ln[:400]) for ln in head.text.split("\n", 80)[:80]):
        return "perf-script"
    return None
