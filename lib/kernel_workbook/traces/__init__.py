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

A folder (an mmtests log tree or a ``kwb record`` bundle) loads as a
:class:`Bundle`.  Time series share three columns: ``sample`` (record
number), ``time`` (epoch seconds, when the file carries times) and
``elapsed`` (seconds since the first record).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pandas as pd

from ..errors import WorkbookInputWarning, WorkbookParseError
from ._common import (MAX_DECOMPRESSED, SkippedLinesWarning, TruncatedTraceWarning, UndecodableBytesWarning, guarded,
                      read_source, strip_latency_prefix)
from .bundle import Bundle, open_bundle
from .derived import (compaction_summary, df_iostat_await, df_numa, df_reclaim, df_reclaim_2007, numa_summary,
                      reclaim_summary)
from .fio import parse_fio_json
from .fio_terse import parse_fio_terse
from .iostat import parse_iostat, parse_iostat_cpu, read_iostat
from .mmtests import MONITOR_KINDS, scan_log_tree, split_monitor_name
from .perfreport import parse_perf_report, parse_perf_report_callgraph, read_perf_report
from .perfscript import PerfScript, fold, folded_text, parse_folded, parse_perf_script, parse_perf_script_samples
from .perfstat import parse_perf_stat
from .procfs import parse_buddyinfo, parse_meminfo, parse_pagetypeinfo, parse_zoneinfo
from .procvmstat import df_deltas, df_rates, parse_proc_vmstat
from .pyperf_json import parse_pyperf_json
from ._vmstat_l10n import delocalize_partition, looks_like_translated_disk_summary
from .vmstat import (delocalize, parse_vmstat, parse_vmstat_disk, parse_vmstat_disk_summary, parse_vmstat_partition,
                     parse_vmstat_summary)

#: kind -> parser returning a DataFrame
PARSERS = {
    "vmstat": parse_vmstat,
    "vmstat-d": parse_vmstat_disk,
    "vmstat-s": parse_vmstat_summary,
    "vmstat-p": parse_vmstat_partition,
    "vmstat-D": parse_vmstat_disk_summary,
    "proc-vmstat": parse_proc_vmstat,
    "iostat": parse_iostat,
    "iostat-cpu": parse_iostat_cpu,
    "perf-stat": parse_perf_stat,
    "perf-script": parse_perf_script_samples,
    "folded": parse_folded,
    "perf-report": parse_perf_report,
    "perf-report-callgraph": parse_perf_report_callgraph,
    "buddyinfo": parse_buddyinfo,
    "pagetypeinfo": parse_pagetypeinfo,
    "zoneinfo": parse_zoneinfo,
    "meminfo": parse_meminfo,
    "fio-json": parse_fio_json,
    "fio-terse": parse_fio_terse,
    "pyperf-json": parse_pyperf_json,
}

KINDS = tuple(PARSERS)

# line-bounded patterns, applied line by line to the first lines only (no pattern can backtrack across
# a whole file: sniffing stays linear whatever the input)
_PERF_SCRIPT_RE = re.compile(r"[ \t]*\S[^\n]*?[ \t]+-?\d+(?:/-?\d+)?[ \t]+(?:\[\d+\][ \t]+)?\d+\.\d+:[ \t]+"
                             r"(?:\d+[ \t]+)?\S+?:(?:[ \t]|$)")
_PROC_VMSTAT_RE = re.compile(r"^(nr_free_pages|nr_\w+|pgpgin|pgfault|pgscan_\w+|pgsteal_\w+|numa_\w+) -?\d+\s*$",
                             re.M)


def _perf_script_like(text: str) -> bool:
    return any(_PERF_SCRIPT_RE.match(ln[:400]) for ln in text.split("\n", 80)[:80])


def _folded_like(h: str) -> bool:
    first = h.split("\n", 1)[0][:20000]
    stack, _, count = first.rpartition(" ")
    return bool(stack) and ";" in stack and count.isdigit()


def sniff(text: str, name: str = "") -> str | None:
    """Guess the kind of a trace from its first few KB (and its file name); None if unknown."""
    head, _ = strip_latency_prefix(text[:8192])
    h = head.lstrip()
    if re.search(r'^\s*\{[^\n]*"counter-value"\s*:', head, re.M):
        return "perf-stat"  # perf stat -j: one JSON object a line, maybe after the workload's messages
    if re.search(r'^\s*"fio version"\s*:', head, re.M) and re.search(r"^\{", head, re.M):
        return "fio-json"  # --output-format=normal,json: the text report, then the JSON
    if re.match(r"(?:[3-5];fio-[^;\n]*|2;[^;\n]+;\d+;\d+);", h):
        return "fio-terse"  # before perf stat -x';', whose lines it would pass for
    if h.startswith("{"):
        if '"fio version"' in h or '"jobs"' in h:
            return "fio-json"
        if '"sysstat"' in h:
            return "iostat"
        if '"benchmarks"' in h or '"runs"' in h:
            return "pyperf-json"
        return None
    if re.search(r"^ *-*procs-* |^ *r +b +swpd", head, re.M) or delocalize(head)[1] is not None:
        return "vmstat"
    if re.search(r"^disk- ", head, re.M) or re.match(r"\S+[ \t]+-{2,}\S[^\n]*\n[ \t]+\D", h):
        return "vmstat-d"  # the second: a translated vmstat -d ('Disk- ---Lesevorgänge--- ...')
    if re.search(r"^ *\d+ +(?:[KMGB]|[KMG]i?B|k|m|g)? *total memory", head, re.M) or \
            re.match(r"(?: *\d+ +(?:[KMGB]|[KMG]i?B) +\S[^\n]*\n){3}", head) or \
            re.match(r"(?:[^\n:]+: +\d+ +(?:[KMGB]|[KMG]i?B) *\n){3}", head):
        # the second and third: a translated vmstat -s ('24684096 K mémoire totale', pl_PL's 'Pamięć razem:
        # 24684096 K'), its first lines in kB
        return "vmstat-s"
    if re.search(r"^ *\d+ disks *\n *\d+ partitions *$", head, re.M) or looks_like_translated_disk_summary(head):
        return "vmstat-D"
    if re.search(r"^\S+[ \t]+reads[ \t]+read sectors[ \t]+writes[ \t]+requested writes[ \t]*$", head, re.M) or \
            delocalize_partition(head)[1] is not None:
        return "vmstat-p"
    if re.search(r"^(avg-cpu:|Device:?\s)", head, re.M) or \
            re.search(r"^[ \t]+(?:tps|r/s|rrqm/s|rkB/s|rMB/s)[ \t][^\n]*[ \t]Device[ \t]*$", head, re.M):
        if not re.search(r"^Device|[ \t]Device[ \t]*$", head, re.M):
            return "iostat-cpu"  # iostat -c: the avg-cpu block alone (the device frame would be empty)
        return "iostat"  # the second: iostat --pretty, the device name last
    if re.search(r"^# (Overhead|Children)\s", head, re.M):
        return "perf-report"
    if re.search(r"^ ?time,(?:[^,\n]+,)*[^,\n]*$|^(?:cpu|core|die|socket|node|cluster|cache),(?:cpus|ctrs)?",
                 head, re.M) and not re.search(r"^ *r +b ", head, re.M):
        return "perf-stat"  # the header of perf stat -x, --metric-only (--topdown): time, aggregation, metrics
    if "Performance counter stats" in head or re.search(r"^#\s+time\s+(?:\S+\s+){0,2}counts\s", head, re.M) or \
            re.search(r"^(?:\s*\d+\.\d+([,;|\t]))?(?:(?:CPU\d+|S\d+[-\w]*|N\d+|[^\s\d<#,;|\t][^,;|\t\n]*?-\d+)([,;|\t])(?:\d+[,;|\t])?)?"
                      r"(-?[\d.]+|<not (?:counted|supported)>)(?P<sep>[,;|\t])[^,;|\t\n]*(?P=sep)[^,;|\t\n]+(?P=sep)",
                      head, re.M):
        return "perf-stat"
    if re.search(r"^(Page block order|Free pages count per migrate type)", head, re.M):
        return "pagetypeinfo"
    if re.search(r"^Node\s+\d+,\s*zone\s+\S+\s+\d", head, re.M):
        return "buddyinfo"
    if re.search(r"^Node\s+\d+,\s*zone\s+\S+\s*$", head, re.M):
        return "zoneinfo"
    if re.search(r"^(Node \d+ )?MemTotal:", head, re.M):
        return "meminfo"
    if _perf_script_like(head):
        return "perf-script"
    if _PROC_VMSTAT_RE.search(head):
        return "proc-vmstat"
    if _folded_like(h):
        return "folded"
    base = Path(name).name if name else ""
    if base:  # an mmtests log name says what it holds even when its content is too short to tell
        mon, _ = split_monitor_name(base)
        if mon in MONITOR_KINDS:
            return MONITOR_KINDS[mon]
    return None


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
