"""``fio --minimal`` / ``--output-format=terse`` (terse versions 2 to 5): one ``;``-separated line per job."""

from __future__ import annotations

import re

from ..fio_terse import parse_fio_terse
from ._head import Head

KINDS = {"fio-terse": parse_fio_terse}

# Before perf stat: a terse line is ';'-separated numbers, which perf stat's counter line (-x';') matches too
# (fio-3.33-minimal-description.txt in tests/fixtures/real-captures does).
PRIORITY = 30

_OPENING_RE = re.compile(r"(?:[3-5];fio-[^;\n]*|2;[^;\n]+;\d+;\d+);")


def sniff(head: Head) -> str | None:
    return "fio-terse" if _OPENING_RE.match(head.start) else None
