"""procps' ``vmstat``: the sampled table and its listings (``-d``, ``-s``, ``-p``, ``-D``), English or translated."""

from __future__ import annotations

import re

from .._vmstat_l10n import delocalize_partition, looks_like_translated_disk_summary
from ..vmstat import (delocalize, parse_vmstat, parse_vmstat_disk, parse_vmstat_disk_summary, parse_vmstat_partition,
                      parse_vmstat_summary)
from ._head import Head

KINDS = {
    "vmstat": parse_vmstat,
    "vmstat-d": parse_vmstat_disk,
    "vmstat-s": parse_vmstat_summary,
    "vmstat-p": parse_vmstat_partition,
    "vmstat-D": parse_vmstat_disk_summary,
}

# The first text format, as in the former sniff chain; no capture matches another text format's sniff too.  Its
# five listings are told apart inside sniff, in one fixed order.
PRIORITY = 110

_TABLE_RE = re.compile(r"^ *-*procs-* |^ *r +b +swpd", re.M)
_DISK_RE = re.compile(r"^disk- ", re.M)
_TRANSLATED_DISK_RE = re.compile(r"\S+[ \t]+-{2,}\S[^\n]*\n[ \t]+\D")
_SUMMARY_RE = re.compile(r"^ *\d+ +(?:[KMGB]|[KMG]i?B|k|m|g)? *total memory", re.M)
_TRANSLATED_SUMMARY_RES = (re.compile(r"(?: *\d+ +(?:[KMGB]|[KMG]i?B) +\S[^\n]*\n){3}"),
                           re.compile(r"(?:[^\n:]+: +\d+ +(?:[KMGB]|[KMG]i?B) *\n){3}"))
_DISK_SUMMARY_RE = re.compile(r"^ *\d+ disks *\n *\d+ partitions *$", re.M)
_PARTITION_RE = re.compile(r"^\S+[ \t]+reads[ \t]+read sectors[ \t]+writes[ \t]+requested writes[ \t]*$", re.M)


def sniff(head: Head) -> str | None:
    # one order among the five: a table's header is asked first, the partition listing's last, as before
    text = head.text
    if _TABLE_RE.search(text) or delocalize(text)[1] is not None:
        return "vmstat"
    if _DISK_RE.search(text) or _TRANSLATED_DISK_RE.match(head.start):
        return "vmstat-d"
    if _SUMMARY_RE.search(text) or any(r.match(text) for r in _TRANSLATED_SUMMARY_RES):
        # the second and third: a translated vmstat -s ('24684096 K mémoire totale', pl_PL's 'Pamięć razem:
        # 24684096 K'), its first lines in kB
        return "vmstat-s"
    if _DISK_SUMMARY_RE.search(text) or looks_like_translated_disk_summary(text):
        return "vmstat-D"
    if _PARTITION_RE.search(text) or delocalize_partition(text)[1] is not None:
        return "vmstat-p"
    return None
