"""``fio --output-format=json`` (also ``json+``), and ``normal,json``: the text report, then the JSON."""

from __future__ import annotations

import re

from ..fio import parse_fio_json
from ._head import Head

KINDS = {"fio-json": parse_fio_json}

# Before fio-terse: fio's --output-format takes a list ('terse,json'), and a file holding both is read as its
# JSON, as in the former sniff chain.  No capture is both perf stat -j and fio: after it, as before.
PRIORITY = 20

_VERSION_KEY_RE = re.compile(r'^\s*"fio version"\s*:', re.M)
_OPENING_BRACE_RE = re.compile(r"^\{", re.M)


def sniff(head: Head) -> str | None:
    if _VERSION_KEY_RE.search(head.text) and _OPENING_BRACE_RE.search(head.text):
        return "fio-json"  # the JSON may follow fio's text report
    if head.json_document and ('"fio version"' in head.start or '"jobs"' in head.start):
        return "fio-json"
    return None
