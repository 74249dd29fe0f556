"""``perf report --stdio``: flat overhead tables and children/self tables with call graphs.

The columns come from the ``# Overhead  Command ...`` header and their
extents from the dotted line under it (``# ........  .......``), so
``--sort`` orders, ``-n`` (``Samples``), ``--children`` (``Children
Self``) and names with spaces all read right.  Call-graph trees (``---sym``,
``|--40.12%--sym``, perf 3.x's ``--- sym`` and ``|--99.50%-- sym``) become a
parent/child frame.  Several events in one report (``# Samples: ... of event
'cycles'``) are told apart by ``event``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._common import guarded, fail, locale_number, read_source, set_attrs, warn_skipped

_EVENT_RE = re.compile(r"^# Samples: *(\S+)\s+of event '([^']*)'")
_BRANCH_RE = re.compile(r"--(\d+(?:\.\d+)?)%--\s*")
_SPACE_AFTER_MARK = re.compile(r"(---|%--) ")
_SYM_TYPE_RE = re.compile(r"^\[(.)\] (.*)$")
_INDENTED_PCT_RE = re.compile(r"^\s+\d+(?:\.\d+)?%")  # compiled once: re.match looks its cache up on every call


@dataclass
class PerfReport:
    """``entries``: one row per table line; ``callgraph``: one row per call-graph node."""

    entries: pd.DataFrame
    callgraph: pd.DataFrame


@guarded
def parse_perf_report(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """The table of a ``perf report --stdio`` (flat or ``--children``).

    Returns
    -------
    DataFrame
        ``event`` (from ``# Samples: N of event 'E'``), then the report's own
        columns: ``Overhead`` or ``Children`` and ``Self`` (percent, float),
        ``Samples``/``Period`` when shown (float), ``Command``, ``Shared
        Object``, ``Symbol`` (without its ``[k]``/``[.]`` marker), and
        ``symbol_type`` (``k`` kernel, ``.`` user, as perf marks them).
        ``attrs``: ``source``, ``format="perf-report"``, ``samples`` per event
        (as printed, e.g. ``1K``), ``columns``.
    """
    return read_perf_report(src, source, max_bytes).entries


@guarded
def parse_perf_report_callgraph(src, source: str | None = None, max_bytes: int | None = None) -> pd.DataFrame:
    """The call-graph trees under the entries of a ``perf report --stdio -g``.

    Returns
    -------
    DataFrame
        ``entry`` (row of :func:`parse_perf_report` it hangs under), ``node``
        (0-based id), ``parent`` (node id, -1 for the first frame under the
        entry), ``depth`` (0 for the first frame), ``symbol`` and ``pct`` (the
        branch percentage perf printed, NaN on a straight chain).
    """
    return read_perf_report(src, source, max_bytes).callgraph


@guarded
def read_perf_report(src, source: str | None = None, max_bytes: int | None = None) -> PerfReport:
    """Both frames of a ``perf report --stdio``."""
    text, name = read_source(src, source, max_bytes)
    lines = text.split("\n")
    event = ""
    samples = {}
    cols = spans = None
    header_line = None
    entries = []
    nodes = []
    stack: list[tuple[int, int]] = []  # (column, node)
    last_entry = -1
    prose: list[int] = []  # lines of an author's text after a table (a report pasted into a mail)
    after_prose = False
    for i, ln in enumerate(lines):
        if ln.startswith("#"):
            after_prose = False
            m = _EVENT_RE.match(ln)
            if m:
                event = m.group(2)
                samples[event] = m.group(1)
                continue
            body = ln[1:]
            if header_line is not None and re.fullmatch(r"[ .]+", body) and "." in body:
                spans = [(m.start() + 1, m.end() + 1) for m in re.finditer(r"\.+", body)]
                names = []
                hl = header_line
                for k, (a, b) in enumerate(spans):
                    end = spans[k + 1][0] if k + 1 < len(spans) else len(hl)
                    names.append(hl[a:end].strip())
                cols = names
                header_line = None
                continue
            if re.match(r"^#\s+(Overhead|Children|Samples|Period|Command|Shared Object|Symbol)\b", ln):
                header_line = ln
            continue
        if not ln.strip():
            continue
        if cols is None:
            raise fail(name, text, ("line", i + 1), "a '# Overhead ...' header with its dotted line first", ln)
        if entries and ln[:1] not in (" ", "\t") and not _entry_like(ln):
            # perf right-aligns the first column, so every line of its table starts with a blank: a line at the
            # margin after the table is the text of whoever pasted it ('So the copy dominates.'), left out
            # with a warning, and so is the rest of its paragraph
            prose.append(i)
            after_prose = True
            continue
        if after_prose:
            if not _entry_like(ln) and not ln.lstrip()[:1] in "|-":
                prose.append(i)  # the paragraph goes on
                continue
            raise fail(name, text, ("line", i + 1), "a report entry under its '# Overhead ...' header (the text at "
                       f"line {prose[-1] + 1} ended the table)", ln)
        first = ln.lstrip()
        if first[0] in "|-" or (ln.startswith("  ") and not _INDENTED_PCT_RE.match(ln)):
            if last_entry < 0:
                raise fail(name, text, ("line", i + 1), "a report entry before its call graph", ln)
            _graph_line(ln, last_entry, nodes, stack)
            continue
        rec = _entry(ln, cols, spans)
        if rec is None:
            raise fail(name, text, ("line", i + 1), f"a report line with columns {', '.join(cols)}", ln)
        rec["event"] = event
        entries.append(rec)
        last_entry = len(entries) - 1
        stack.clear()
    if cols is None:
        raise fail(name, text, None, "a perf report --stdio header ('# Overhead' and its dotted line)", text[:80])
    warn_skipped(name, [k + 1 for k in prose], [lines[k] for k in prose],
                 "perf report lines (text after the table: perf starts each of its lines with a blank or '#')")
    order = ["event"] + [c for c in cols if c != "Symbol"] + (["Symbol", "symbol_type"] if "Symbol" in cols else [])
    ent = pd.DataFrame(entries, columns=order)
    cg = pd.DataFrame(nodes, columns=["entry", "node", "parent", "depth", "symbol", "pct"])
    for c in ("entry", "node", "parent", "depth"):
        cg[c] = cg[c].astype(np.int64)
    cg["pct"] = cg["pct"].astype(float)
    set_attrs(ent, name, "perf-report", None, None, samples=samples, columns=cols)
    set_attrs(cg, name, "perf-report-callgraph", None, None)
    return PerfReport(ent, cg)


_ENTRY_START_RE = re.compile(r"^\s*\d+(?:[.,]\d+)?%")


def _entry_like(ln: str) -> bool:
    """A line that starts as perf's table rows do, with a percentage (a damaged one is an error, not text)."""
    return bool(_ENTRY_START_RE.match(ln))


_NUMERIC = {"Overhead", "Children", "Self", "Samples", "Period", "sys", "usr", "guest sys", "guest usr"}


def _entry(ln: str, cols, spans):
    rec = {}
    for k, c in enumerate(cols):
        a = spans[k][0]
        b = spans[k + 1][0] if k + 1 < len(spans) else len(ln)
        if k == 0:
            a = 0
        v = ln[a:b].strip() if k + 1 < len(spans) else ln[a:].strip()
        if c in _NUMERIC:
            try:
                rec[c] = locale_number(v.rstrip("%"))
            except ValueError:
                return None
        elif c == "Symbol":
            m = _SYM_TYPE_RE.match(v)
            rec["Symbol"], rec["symbol_type"] = (m.group(2), m.group(1)) if m else (v, "")
        else:
            rec[c] = v
    return rec


def _graph_line(ln: str, entry: int, nodes: list, stack: list) -> None:
    # perf 3.x prints "--- sym" and "|--99.50%-- sym": drop that space so the columns line up as in 4.x+
    s = ln.rstrip()
    if "-- " in s:  # both marks end in '--' (most lines have neither: the substitution costs a Python call each)
        s = _SPACE_AFTER_MARK.sub(r"\1", s)
    if not s.strip(" |"):
        return
    k = s.find("---")
    if k >= 0 and not s[:k].strip(" |"):
        col = k + 3
        rest = s[col:]
        m = _BRANCH_RE.match("--" + rest[0:]) if rest.startswith("-") else None
        sym = rest.lstrip(" ")
        col += len(rest) - len(sym)
        stack.clear()
        _add(nodes, entry, -1, 0, sym, np.nan)
        stack.append((col, len(nodes) - 1))
        return
    m = _BRANCH_RE.search(s)
    if m and not s[:m.start()].strip(" |"):
        mc = m.start() - 1
        sym = s[m.end():]
        col = m.end()
        while stack and stack[-1][0] > mc:
            stack.pop()
        parent = stack[-1][1] if stack and stack[-1][0] == mc else (stack[-1][1] if stack else -1)
        depth = nodes[parent][3] + 1 if parent >= 0 and nodes[parent][0] == entry else 0
        _add(nodes, entry, parent, depth, sym, float(m.group(1)))
        stack.append((col, len(nodes) - 1))
        return
    lead = len(s) - len(s.lstrip(" |"))
    sym = s[lead:]
    col = lead
    while stack and stack[-1][0] > col:
        stack.pop()
    if stack and stack[-1][0] == col:
        parent = stack.pop()[1]
    else:
        parent = stack[-1][1] if stack else -1
    depth = nodes[parent][3] + 1 if parent >= 0 else 0
    _add(nodes, entry, parent, depth, sym.strip(), np.nan)
    stack.append((col, len(nodes) - 1))


def _add(nodes, entry, parent, depth, sym, pct):
    nodes.append([entry, len(nodes), parent, depth, sym.strip(), pct])
