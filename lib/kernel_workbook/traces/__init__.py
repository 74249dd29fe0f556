"""Real traces as tidy DataFrames: ``load(path, kind=None)``.

Every parser returns a pandas DataFrame whose columns keep the tool's own
names (mapped from the header, never by position) and records ``source``,
``format``, ``version`` (when the output shows it) and ``timezone`` in
``df.attrs``.  Bad input raises :class:`kernel_workbook.errors.WorkbookParseError`
(file, line, expected shape) and nothing else; a file cut in the middle of a
record yields every complete record and a :class:`TruncatedTraceWarning`;
gzip input is inflated as a stream with a cap (``KWB_MAX_DECOMPRESSED``, 96 MiB).
Nothing is evaluated or unpickled.

=====================  ==========================================================
kind                   reads
=====================  ==========================================================
``vmstat``             ``vmstat [-n -t -w -a] N`` (procps 3.2 .. procps-ng 4)
``vmstat-d``           ``vmstat -d``
``vmstat-s``           ``vmstat -s``
``vmstat-p``           ``vmstat -p PARTITION``
``vmstat-D``           ``vmstat -D`` (disk summary)
``proc-vmstat``        ``/proc/vmstat``, one snapshot or a ``time:`` series
``iostat``             ``iostat [-x -t -k -m -z] N`` (sysstat 9..12), ``-o JSON``
``iostat-cpu``         the avg-cpu block of the same
``perf-stat``          ``perf stat`` (default, ``-r``, ``-a``, ``-A``, ``-I``, ``-x``, ``-j``)
``perf-script``        ``perf script`` samples (:func:`parse_perf_script` for stacks too)
``folded``             folded stacks (``a;b;c 12``)
``perf-report``        ``perf report --stdio`` table
``perf-report-callgraph`` its call-graph trees
``buddyinfo``          ``/proc/buddyinfo``
``pagetypeinfo``       ``/proc/pagetypeinfo``
``zoneinfo``           ``/proc/zoneinfo``
``meminfo``            ``/proc/meminfo`` and per-node meminfo
``fio-json``           ``fio --output-format=json`` (``json+``, ``normal,json``)
``fio-terse``          ``fio --minimal`` / ``--output-format=terse`` (terse versions 2-5)
``pyperf-json``        pyperf result files
=====================  ==========================================================

Each kind belongs to a format module of :mod:`kernel_workbook.traces.formats` (its sniff, its priority among
the others, its parser); ``load`` and :func:`sniff` read the list there, which says how to add a format.

A folder (an mmtests log tree or a ``kwb record`` bundle) loads as a
:class:`Bundle`.  Time series share three columns: ``sample`` (record
number), ``time`` (epoch seconds, when the file carries times) and
``elapsed`` (seconds since the first record).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import WorkbookInputWarning, WorkbookParseError
from ._common import (MAX_DECOMPRESSED, SkippedLinesWarning, TruncatedTraceWarning, UndecodableBytesWarning, guarded,
                      read_source)
from .bundle import Bundle, open_bundle
from .derived import (compaction_summary, df_iostat_await, df_numa, df_reclaim, df_reclaim_2007, numa_summary,
                      reclaim_summary)
from .fio import parse_fio_json
from .fio_terse import parse_fio_terse
from .formats import KINDS, PARSERS, sniff
from .iostat import parse_iostat, parse_iostat_cpu, read_iostat
from .mmtests import scan_log_tree
from .perfreport import parse_perf_report, parse_perf_report_callgraph, read_perf_report
from .perfscript import PerfScript, fold, folded_text, parse_folded, parse_perf_script, parse_perf_script_samples
from .perfstat import parse_perf_stat
from .procfs import parse_buddyinfo, parse_meminfo, parse_pagetypeinfo, parse_zoneinfo
from .procvmstat import df_deltas, df_rates, parse_proc_vmstat
from .pyperf_json import parse_pyperf_json
from .vmstat import (parse_vmstat, parse_vmstat_disk, parse_vmstat_disk_summary, parse_vmstat_partition,
                     parse_vmstat_summary)


def load(path, kind: str | None = None, max_bytes: int | None = None):
    """Load a trace file as a DataFrame (or a folder as a :class:`Bundle`).

    Parameters
    ----------
    path : str or Path (or the text itself)
        A file, plain or gzip (by content), or a folder: an mmtests log tree
        or a ``kwb record`` bundle.
    kind : str, optional
        One of :data:`KINDS`; sniffed from the content and name when None.

    Returns
    -------
    DataFrame
        As the parser of *kind* documents it; ``attrs`` holds ``source``,
        ``format``, ``version``, ``timezone``.
    """
    is_name = isinstance(path, os.PathLike) or (isinstance(path, str) and path and "\n" not in path
                                                 and len(path) < 4096 and path.strip() == path)
    if is_name:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            return open_bundle(path)
        if st is None and (isinstance(path, os.PathLike) or "/" in path or path.endswith(
                (".gz", ".txt", ".log", ".json", ".csv", ".out"))):
            raise WorkbookParseError(str(path), None, "an existing file or folder", "no such file")
    if kind is not None and kind not in PARSERS:
        from ..errors import WorkbookParameterError

        raise WorkbookParameterError("kind", kind, "one of " + ", ".join(KINDS))
    return _load_file(path, kind, max_bytes)


@guarded
def _load_file(path, kind, max_bytes):
    text, name = read_source(path, None, max_bytes)
    if kind is None:
        kind = sniff(text, name)
        if kind is None:
            what = "an empty file" if not text.strip() else text.lstrip()[:80]
            raise WorkbookParseError(name, None, "a known trace format (" + ", ".join(KINDS) + ")", what)
    return PARSERS[kind](text, source=name)


def shipped_captures() -> Path:
    """``data/traces``: the real captures that come with the workbook."""
    from ..paths import data_dir

    return data_dir() / "traces"


__all__ = [
    "Bundle", "KINDS", "MAX_DECOMPRESSED", "PARSERS", "PerfScript", "SkippedLinesWarning", "TruncatedTraceWarning",
    "UndecodableBytesWarning", "WorkbookInputWarning",
    "compaction_summary", "df_deltas", "df_iostat_await", "df_numa", "df_rates", "df_reclaim",
    "df_reclaim_2007", "fold", "folded_text", "load", "numa_summary", "open_bundle", "parse_buddyinfo",
    "parse_fio_json", "parse_fio_terse", "parse_folded", "parse_iostat", "parse_iostat_cpu", "parse_meminfo",
    "parse_pagetypeinfo", "parse_perf_report", "parse_perf_report_callgraph", "parse_perf_script",
    "parse_perf_script_samples", "parse_perf_stat", "parse_proc_vmstat", "parse_pyperf_json",
    "parse_vmstat", "parse_vmstat_disk", "parse_vmstat_disk_summary", "parse_vmstat_partition",
    "parse_vmstat_summary", "parse_zoneinfo", "read_iostat",
    "read_perf_report", "reclaim_summary", "scan_log_tree", "shipped_captures", "sniff",
]
