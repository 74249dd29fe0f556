"""mmtests log trees: ``<results>/<run>/iter-N/<monitor>-<test>[.gz]`` with ``.start`` files.

mmtests (``shellpacks/monitors.sh``) starts each monitor with
``MONITOR_LOG=${MONITOR_DIR}/${monitor}-${CURRENT_TEST}``, writes the
monitor's output there (gzipped when it stops) and ``date +%s`` then
``/proc/uptime`` to ``${MONITOR_LOG}.start``.  Monitors run "with latency"
prefix every line with ``%16.4f %8.4f %10.4f -- `` (``monitors/latency-output``:
epoch, seconds since start, seconds since the previous line); the parsers
strip it and keep the epoch as ``time``.  ``MONITOR_DIR`` is
``$SHELLPACK_LOG_RUNBASE/iter-$N`` (``run-mmtests.sh``), so a results folder
holds one folder per run name, each with ``iter-0``, ``iter-1``...
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

#: mmtests monitor name -> our format (``kind`` of :func:`kernel_workbook.traces.load`).
MONITOR_KINDS = {
    "vmstat": "vmstat",
    "iostat": "iostat",
    "proc-vmstat": "proc-vmstat",
    "mmtests-vmstat": "proc-vmstat",
    "proc-buddyinfo": "buddyinfo",
    "proc-pagetypeinfo": "pagetypeinfo",
    "proc-zoneinfo": "zoneinfo",
    "proc-meminfo": "meminfo",
    "perf-stat": "perf-stat",
    "perf-event-stat": "perf-stat",
    "perf-time-stat": "perf-stat",
    "perf-script": "perf-script",
    "perf-report": "perf-report",
    "fio": "fio-json",
}

_ITER_RE = re.compile(r"^iter-(\d+)$")
_SKIP_SUFFIXES = (".start", ".pid", ".json", ".md", ".txt.gz.start")


def split_monitor_name(filename: str) -> tuple[str, str]:
    """``proc-vmstat-tiobench.gz`` -> (``proc-vmstat``, ``tiobench``).

    Known monitor names are matched longest first (monitor names contain
    dashes); an unknown one is split at its first dash.
    """
    base = filename[:-3] if filename.endswith(".gz") else filename
    for mon in sorted(MONITOR_KINDS, key=len, reverse=True):
        if base == mon:
            return mon, ""
        if base.startswith(mon + "-"):
            return mon, base[len(mon) + 1:]
    mon, _, test = base.partition("-")
    return mon, test


def parse_start(path: Path) -> tuple[float | None, float | None]:
    """A ``.start`` file: (epoch seconds, uptime seconds) or Nones when unreadable."""
    from ..errors import WorkbookParseError
    from ..inputs import read_capped

    try:  # a regular file of a few bytes: a FIFO or a device named .start is an error, not a hang
        lines = read_capped(path, str(path), 1 << 16).decode("utf-8", "replace").split("\n")
    except WorkbookParseError as e:
        if e.expected in ("an existing, readable file", "a readable file"):
            return None, None
        raise
    epoch = uptime = None
    try:
        epoch = float(lines[0].strip())
    except (ValueError, IndexError):
        pass
    try:
        uptime = float(lines[1].split()[0])
    except (ValueError, IndexError):
        pass
    return epoch, uptime


def scan_log_tree(root) -> pd.DataFrame:
    """Every monitor log under *root* (a run folder, an ``iter-N`` folder, a results folder or a bundle).

    Returns
    -------
    DataFrame
        One row per log: ``run`` (the folder above ``iter-N``, or the
        bundle's folder name), ``iteration`` (int, 0 for a flat bundle),
        ``monitor``, ``test``, ``kind`` (our parser, or empty when unknown),
        ``path``, ``start_time`` (epoch from ``.start``), ``start_uptime``.
    """
    root = Path(root)
    recs = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.name.endswith(_SKIP_SUFFIXES) or p.name.startswith("."):
            continue
        rel = p.relative_to(root).parts
        if any(part.startswith(".") for part in rel):  # hidden folders: kwb record's scratch space, .git
            continue
        it = 0
        run = root.name
        for k, part in enumerate(rel[:-1]):
            m = _ITER_RE.match(part)
            if m:
                it = int(m.group(1))
                run = rel[k - 1] if k > 0 else root.name
        mon, test = split_monitor_name(p.name)
        kind = MONITOR_KINDS.get(mon, "")
        if not kind:
            continue
        base = p.name[:-3] if p.name.endswith(".gz") else p.name
        start = p.with_name(base + ".start")
        st, up = parse_start(start) if start.exists() else (None, None)
        recs.append({"run": run, "iteration": it, "monitor": mon, "test": test, "kind": kind, "path": str(p),
                     "start_time": st, "start_uptime": up})
    return pd.DataFrame(recs, columns=["run", "iteration", "monitor", "test", "kind", "path", "start_time",
                                       "start_uptime"])
