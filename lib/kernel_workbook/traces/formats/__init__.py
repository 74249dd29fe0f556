"""The trace formats :func:`kernel_workbook.traces.load` reads: one module per format, listed in :data:`FORMATS`.

A format module exports

``KINDS``
    ``{kind: parser}``: the names ``load(path, kind=...)`` accepts for it and the function that parses each
    (``parser(text_or_path, source=None, max_bytes=None) -> DataFrame``).  Two formats may share a kind when
    they are two layouts of one tool's output read by one parser (``perf stat -j`` and ``perf stat``).
``sniff(head) -> kind | None``
    Whether a trace is this format, from its :class:`~._head.Head` (the first 8 KB and the file's name): the
    kind it is, or None.
``PRIORITY``
    Where its sniff is asked, lowest first, for the formats whose sniffs overlap; its comment says which.
    Below :data:`TEXT_FORMATS`: the formats a JSON document may be; a head that opens with ``{`` which none
    of them claims is no known format.

Adding a format: write its module here, add it to :data:`FORMATS`, and put a capture of it (with its
provenance) in ``tests/fixtures/traces/``; the tests that go over the formats find it from this list.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from ..mmtests import MONITOR_KINDS, split_monitor_name
from . import (fio_json, fio_terse, folded, iostat, iostat_json, perf_report, perf_script, perf_stat, perf_stat_json,
               proc_vmstat, procfs, pyperf_json, vmstat)
from ._head import Head

#: Every format, in the order :data:`KINDS` (and so ``kwb parse --kind`` and the error for an unknown
#: format) lists their kinds.
FORMATS: list[ModuleType] = [vmstat, proc_vmstat, iostat, iostat_json, perf_stat, perf_stat_json, perf_script,
                             folded, perf_report, procfs, fio_json, fio_terse, pyperf_json]

#: The priority from which formats read text: a JSON document none of the formats before claimed is no known
#: format (the text formats' line patterns would match lines inside it, and its file name would be taken at
#: its word).
TEXT_FORMATS = 100

#: The formats in the order their sniffs are asked.
BY_PRIORITY: list[ModuleType] = sorted(FORMATS, key=lambda f: f.PRIORITY)

#: kind -> parser returning a DataFrame
PARSERS = {}
for _f in FORMATS:
    for _kind, _parse in _f.KINDS.items():
        PARSERS.setdefault(_kind, _parse)
del _f, _kind, _parse

KINDS = tuple(PARSERS)


def claim(text: str, name: str = "") -> tuple[ModuleType | None, str | None]:
    """The format whose sniff claims a trace, and the kind it says; ``(None, None)`` if none does.

    When no content is recognised, an mmtests log's file name says its kind (the format is then None).
    """
    head = Head(text, name)
    for fmt in BY_PRIORITY:
        if fmt.PRIORITY >= TEXT_FORMATS and head.json_document:
            break
        kind = fmt.sniff(head)
        if kind is not None:
            return fmt, kind
    if head.json_document:
        return None, None
    base = Path(name).name if name else ""
    if base:  # an mmtests log name says what it holds even when its content is too short to tell
        mon, _ = split_monitor_name(base)
        if mon in MONITOR_KINDS:
            return None, MONITOR_KINDS[mon]
    return None, None


def sniff(text: str, name: str = "") -> str | None:
    """Guess the kind of a trace from its first few KB (and its file name); None if unknown."""
    return claim(text, name)[1]


__all__ = ["BY_PRIORITY", "FORMATS", "Head", "KINDS", "PARSERS", "TEXT_FORMATS", "claim", "sniff"]
