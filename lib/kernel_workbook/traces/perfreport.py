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

        A long report (``-g``: mostly call-graph lines) is read by numba in one pass
        (:func:`~._fastreport.scan_entries`) when every line is as perf prints it; anything else is read,
        warned about or refused by the line reader, as it would be alone.
    """
    text, name = read_source(src, source, max_bytes)
    if len(text) > FAST_MIN:
        fast = _fast_read(text, name, graph=False)
        if fast is not None:
            return fast.entries
    return _read(text, name).entries


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

        A long report is read by numba in one pass, as :func:`parse_perf_report` says.
    """
    return read_perf_report(src, source, max_bytes).callgraph


@guarded
def read_perf_report(src, source: str | None = None, max_bytes: int | None = None) -> PerfReport:
    """Both frames of a ``perf report --stdio``."""
    text, name = read_source(src, source, max_bytes)
    if len(text) > FAST_MIN:
        fast = _fast_read(text, name, graph=True)
        if fast is not None:
            return fast
    return _read(text, name)


class _Header:
    """What the ``#`` lines said so far: the event and its sample count, the table's columns and their spans."""

    def __init__(self):
        self.event = ""
        self.samples: dict = {}
        self.cols = self.spans = None
        self.header_line = None

    def comment(self, ln: str) -> None:
        """Read the ``#`` line *ln*."""
        m = _EVENT_RE.match(ln)
        if m:
            self.event = m.group(2)
            self.samples[self.event] = m.group(1)
            return
        body = ln[1:]
        if self.header_line is not None and re.fullmatch(r"[ .]+", body) and "." in body:
            spans = [(m.start() + 1, m.end() + 1) for m in re.finditer(r"\.+", body)]
            names = []
            hl = self.header_line
            for k, (a, b) in enumerate(spans):
                end = spans[k + 1][0] if k + 1 < len(spans) else len(hl)
                names.append(hl[a:end].strip())
            self.cols, self.spans = names, spans
            self.header_line = None
            return
        if re.match(r"^#\s+(Overhead|Children|Samples|Period|Command|Shared Object|Symbol)\b", ln):
            self.header_line = ln


def _read(text: str, name: str) -> PerfReport:
    lines = text.split("\n")
    hdr = _Header()
    entries = []
    nodes = []
    stack: list[tuple[int, int]] = []  # (column, node)
    last_entry = -1
    prose: list[int] = []  # lines of an author's text after a table (a report pasted into a mail)
    after_prose = False
    cols = spans = None
    for i, ln in enumerate(lines):
        if ln.startswith("#"):
            after_prose = False
            hdr.comment(ln)
            cols, spans = hdr.cols, hdr.spans
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
        rec["event"] = hdr.event
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
    set_attrs(ent, name, "perf-report", None, None, samples=hdr.samples, columns=cols)
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


#: a text longer than this (characters) is tried with :func:`_fast_read` first
FAST_MIN = 1 << 16


def _fast_read(text: str, name: str, graph: bool) -> PerfReport | None:
    """What :func:`_read` reads (the call graph only with *graph*: else an empty frame), the lines read by numba
    (:func:`~._fastreport.scan_entries`): the
    ``#`` lines and the blank lines before the first row are read here as :func:`_read` reads them, then every
    line goes through the kernel, which hands the ``#`` lines back.  The line reader made a string, a list and a
    dict per line: 8x the file's size at the peak for 10**6 lines of call graphs, at 11 MB/s.  None for anything
    that reader must read (no header, a header whose columns change, a line the kernel does not take, no row)."""
    from ._fastreport import kinds_of, scan_entries

    hdr = _Header()
    pos, n = 0, len(text)
    while pos < n:
        end = text.find("\n", pos)
        end = n if end < 0 else end
        ln = text[pos:end]
        if ln.startswith("#"):
            hdr.comment(ln)
        elif ln.strip():
            break
        pos = end + 1
    cols = hdr.cols
    if pos >= n or cols is None or len(set(cols)) != len(cols) or {"event", "symbol_type"} & set(cols):
        return None
    kinds = kinds_of(cols, _NUMERIC)

    def layout():
        return np.array([a for a, _ in hdr.spans], dtype=np.int64), kinds

    events = [(0, hdr.event)]  # (first row, event) at each '# Samples: ... of event' line

    def on_comment(ln: str, rows: int):
        hdr.comment(ln)
        if hdr.cols != cols:
            return None
        if hdr.event != events[-1][1]:
            events.append((rows, hdr.event))
        return layout()

    table = scan_entries(text, pos, *layout(), on_comment, graph)
    if table is None or table.rows == 0 or (graph and table.n_nodes == 0):
        return None
    rows = table.rows
    ends = [r for r, _ in events[1:]] + [rows]
    event = [e for (r0, e), r1 in zip(events, ends) for _ in range(r1 - r0)]
    data = {"event": event}
    for k, c in enumerate(cols):
        if kinds[k] == 0:
            data[c] = table.nums[:rows, k].copy()
            continue
        # two lists of ints, not a list of pairs: 40 000 two-item lists (tolist() of the (rows, 2) slice) took
        # twice the time of the rest of the frame on the benchmark file
        spans = zip(table.spans[:rows, 2 * k].tolist(), table.spans[:rows, 2 * k + 1].tolist())
        if c == "Symbol":
            data[c] = [text[a:b] for a, b in spans]
            data["symbol_type"] = [chr(t) if t else "" for t in table.symtype[:rows].tolist()]
        else:
            seen: dict = {}  # one string per distinct label (a command, a shared object): rows share it
            data[c] = [seen.setdefault(x, x) for x in (text[a:b] for a, b in spans)]
    order = ["event"] + [c for c in cols if c != "Symbol"] + (["Symbol", "symbol_type"] if "Symbol" in cols else [])
    ent = pd.DataFrame(data, columns=order)
    set_attrs(ent, name, "perf-report", None, None, samples=hdr.samples, columns=cols)
    n = table.n_nodes
    cols_cg = {"entry": table.nodes[:n, 0].copy(), "node": np.arange(n, dtype=np.int64),
               "parent": table.nodes[:n, 1].copy(), "depth": table.nodes[:n, 2].copy()}
    starts, stops, pct = table.nodes[:n, 3].copy(), table.nodes[:n, 4].copy(), table.pct[:n].copy()
    del table  # its arrays hold room for twice the nodes: gone before the symbols' strings are made
    cols_cg["symbol"] = _texts(text, starts, stops)
    cols_cg["pct"] = pct
    del starts, stops  # before pandas copies the strings into its own column
    cg = pd.DataFrame(cols_cg)
    set_attrs(cg, name, "perf-report-callgraph", None, None)
    return PerfReport(ent, cg)


def _texts(text: str, starts: np.ndarray, ends: np.ndarray, step: int = 1 << 16) -> list[str]:
    """``text[a:b]`` for each span, the spans' ints made *step* at a time (all at once, 10**6 of them took more
    memory than the strings)."""
    out: list[str] = []
    for k in range(0, len(starts), step):
        out += [text[a:b] for a, b in zip(starts[k:k + step].tolist(), ends[k:k + step].tolist())]
    return out
