"""Read the comparison tables that mail text carries.

:func:`parse_text` finds every table in a mail (or a whole thread) and returns
one row per cell (see :mod:`.cells` for the columns).  It reads what mmtests
printed in any era and what people pasted around it:

* two-row headers of kernel names (``3.16.0-rc1`` over ``vanilla``), matched to
  the columns by position, with blank header cells and names that overflowed
  their field (``vanillaptewrite-v1r20``);
* rows ``Stat  Metric  value ( pct%) ...`` with or without the percentage
  (also ``value (pct pct)`` as AMD's scheduler tables print it, with rows
  labelled by a bare count, ``  1:``, and tabs read as 8-column stops),
  rows with no statistic (``DMA32 allocs  11099122 ...``), percentage-only
  cells (``37.1%``), durations (``4m04s``), significance marks (``* -1.2%*``);
* mail quoting (``> ``, ``> > ``), ``...`` elisions between header and rows;
* spacing the archive collapsed (``0.00 ( 0.00%)38.00 (38.00%)``,
  ``Page Outs8042076``, ``980.6341218.131``, ``contended-v5capture-v5``):
  repaired, and every repair is written into the table's ``notes``;
* ``perf stat`` in a locale that groups thousands with ``.`` and marks the decimal with ``,``
  (``43.367.405,59 msec task-clock ... ( +-  0,01% )``: the ``,`` in the spread tells the locale), read
  so and noted; pasted output marked ``| `` at the start of each line;
* ``perf stat`` lines with ``( +- x% )`` (also ``137.195 +- 0.419 seconds ...``,
  a multiplexing share ``(66.67%)`` after it, noted, and the spread printed on
  the next ``#`` line; ``msec`` values are given in seconds) and ``/proc/vmstat`` dumps
  (``name value`` lines, several dumps under ``label:`` lines become one
  table with a column per label);
* the kernel test robot's (lkp-tests) ``%stddev  %change  %stddev`` comparisons: kind ``lkp``, one column
  per commit (the heads over the ``----`` rule), ``± x%`` in ``stddev_pct``, the printed ``%change`` in
  ``pct`` (a change in points, ``+1.5``, leaves it NaN, noted); a header or row the mail software broke is an
  error naming its line; its ``fail:runs  %reproduction  fail:runs`` tables count failed runs, no values,
  and are left out with a :class:`~kernel_workbook.errors.SkippedLinesWarning` naming them;
* ``MMTests Statistics: duration`` / ``vmstat`` sections, with the kernel
  header under the section line or (mmtests of 2011) above it;
* mmtests of 2011's ``+/-`` rows, the spread of the row above (stat ``+/-``);
* mmtests' ``--print-ratio`` tables: ``Ratio op  1.00 (0.00%) (+0.12s)`` cells (the normalised difference,
  ``(NaNs)`` when not computed, is kept in ``notes``) and the ``Gmean``/``Dmean``/``Dmin``/``Dmax Higher``
  (or ``Lower``) rows mmtests prints under them without percentages (pct NaN, noted);
* rows the mail software broke in two (an undecoded quoted-printable ``=`` at
  the end, or a format=flowed line ending in a space): joined, and noted;
* headers that do not line up with their cells: a blank line between header
  and rows (only a header that lines up), a header printed narrower than the
  cells (names cut at the edges of the names above them), names run together
  in a duration/vmstat header (split as an earlier header prints them apart).

* kernel names run together in the header (``3.0.0-vanilla3.16.0-rc1-cfq600``:
  mmtests prints fixed-width fields, so a name that fills its field touches the
  one before it), split at the column edges of the rows below when the run
  ends exactly on an edge (else at a shared suffix), noted in ``notes``;
* hand-typed header names with a space in them (``6.9-rc2(with ">")``: words one space apart inside one
  column's field, in a header that names every column) and a title over each field of a row label of
  several fields (``Test  Metric  Parallelism  tip  sis_short``), noted;
* a sub-heading such as ``(SNC on)`` between header and rows (taken across like a blank line), and between
  rows (``(SNC off)``): the rows under it, in the same columns, keep the names of the header above, noted;
* blank cells (mmtests prints an undefined value as spaces of the field's width): where the other rows line
  up and each cell of the short row ends on a column edge, the blank columns are missing values (NaN,
  ``text`` empty), noted; a blank last column looks like a row cut short and stays an error;
* an author's annotation after a row (``<-- this one``, ``# note``, ``(!)``),
  kept in the table's ``annotations`` (``[{"line": n, "text": ...}]``) and in
  no value.

A table of two or more columns whose kernel names are unknown (posted without a header, or under a line
that does not line up as one) is kept with ``kernel == ""`` and an :class:`UnnamedColumnsWarning` naming its
first line; a one-column table (a perf stat block, a /proc/vmstat dump) is one run and has no name to lose.

Prose is not a table and is skipped.  Inside a table nothing is skipped: a
row with the wrong number of cells, a non-numeric cell (``72.x8``), a row cut
short (fewer cells than the widest row or than the header has kernels), a
header with no rows, or a line of nothing but value cells under a row (the row
broken in two without a format=flowed mark) raises
:class:`~kernel_workbook.errors.WorkbookParseError` naming the line.  The one
exception is the truncation rule: a table row on the
last line of a text that does not end in a newline may have been cut anywhere
(even inside a number), so it is dropped with a
:class:`~kernel_workbook.errors.TruncatedTraceWarning` and the rows above it are
kept.
"""

from __future__ import annotations

import itertools
import re
import statistics
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import SkippedLinesWarning, TruncatedTraceWarning, UnnamedColumnsWarning, WorkbookParseError
from .cells import cells_frame

# --- tokens -------------------------------------------------------------

# printf's %e and %g print an exponent with its sign ("1.792e+08"); without the sign "1e020083" is a
# damaged number, not 1e20083, so only the signed form is a number
_NUM = r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]\d{1,3})?"
_NANTOK = r"[-+]?(?:nan|inf)"
# "value ( pct%)" as mmtests prints it; "value (pct pct)" as the AMD scheduler folks' scripts print it
# mmtests --print-ratio adds a third part to each cell, the normalised difference, printed " (%+.2fs)" in
# Compare.pm's _generateRenderRatioTable ("0.80 (-20.07%) (-0.45s)", "(NaNs)" when it was not computed)
_CMP = re.compile(
    rf"(?P<val>{_NUM}|{_NANTOK})\s*(?P<open>[(*])\s*(?P<pct>{_NUM}|{_NANTOK})(?:%|\s?pct)\s*(?P<close>[)*])"
    rf"(?:\s*\(\s*(?P<norm>{_NUM}|{_NANTOK})s\))?",
    re.I,
)
_NUM_RE = re.compile(rf"^(?:{_NUM}|{_NANTOK})$", re.I)
_PCT_RE = re.compile(rf"^({_NUM})%$")
_DUR_RE = re.compile(r"^(?:(\d+)h)?(\d+)m(\d+(?:\.\d+)?)s$")
_GLUED_RE = re.compile(r"^\d+\.\d+(?:\d+\.\d+)+$")
_LABEL_GLUE_RE = re.compile(rf"^(.*?[A-Za-z)\]])({_NUM}%?)$")
_PERF_VAL = r"\d[\d,]*(?:\.\d+)?"
# the event runs to a '#' (perf's metric comment) or to the spread; the comment runs to the spread, '(' included
# when no '+-' follows it: each part stops at a character, so the match is linear in the line (a lazy '.*?' before
# another lazy '.*?' retried the second from every character of the first: a line of '#'s took minutes)
_PERF_TAIL = r"\s+(?P<event>\S[^#(]*?)\s*(?:#(?:[^(]|\((?!\s*\+-))*)?\(\s*\+-\s*"
_PERF_RE = re.compile(
    rf"^\s*(?P<val>{_PERF_VAL}|<not counted>|<not supported>)"
    rf"(?:\s+\+-\s+(?P<abs>{_PERF_VAL}))?"  # perf since 4.x: "137.195 +- 0.419 seconds time elapsed"
    + _PERF_TAIL + r"(?P<pct>\d+(?:\.\d+)?)%\s*\)"
    r"(?:\s*\(\s*(?P<mux>\d+(?:\.\d+)?)%\s*\))?\s*$"  # the share of the run a multiplexed counter ran
)
# perf in a locale that groups thousands with '.' and marks the decimal with ',' (de_DE): "43.367.405,59 msec
# task-clock ... ( +-  0,01% )".  perf prints the spread with two decimals, so a ',' in it tells the locale;
# the line is read in that locale only then (never "12.250.330.486" as 12.25: _PERF_RE needs a space after it)
_PERF_EU_VAL = r"\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+(?:,\d+)?"
_PERF_EU_RE = re.compile(
    rf"^\s*(?P<val>{_PERF_EU_VAL}|<not counted>|<not supported>)"
    rf"(?:\s+\+-\s+(?P<abs>{_PERF_EU_VAL}))?"
    + _PERF_TAIL + r"(?P<pct>\d+,\d+)%\s*\)"
    r"(?:\s*\(\s*(?P<mux>\d+(?:,\d+)?)%\s*\))?\s*$"
)
# a counter whose "( +- x% )" perf printed on the next line, under its second metric ("#  0.78 stalled ...")
_PERF_HEAD_RE = re.compile(
    rf"^\s*(?:{_PERF_VAL}|{_PERF_EU_VAL}|<not counted>|<not supported>)\s+[A-Za-z][\w:/.-]*\s+#")
_QUOTE_RE = re.compile(r"^((?:[ \t]{0,2}>[ ]?)+)")
# "| " before each line of pasted output (perf stat, as some authors mark it): no quote, no part of the text
_PASTE_RE = re.compile(r"^\|(?: |$)")
_ELLIPSIS_RE = re.compile(r"^\s*(?:\.\.\.+|\[\s*\.\.\.\s*\]|<snip>|\[\s*snip[^\]]*\])\s*$", re.I)
_COUNTER_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_STAT_RE = re.compile(
    r"^(?:Min|Max|Mean|Amean|Hmean|Gmean|Stddev|HStddev|CoeffVar|HCoeffVar|Median|TrimMean|Range|"
    # Dmean/Dmin/Dmax: the --print-ratio summary rows; Sub*: setSummarySubselection; Significant:
    # --print-significance; Samples-[a,b) and Samples%-[a,b): the names in Stat.pm's stat_names
    r"D(?:mean|min|max)|Significant|Sub[AH]mean(?:CI(?:-Low|-High)?)?|Samples%?-\[[^\]\s]*\)|"
    r"Pctile[-.][\d.]*\d-CI-(?:Low|High)|"
    r"Time|Ratio|Samples|B[AH]?[Mm]ean[-.]\d+(?:\.\d+)?|Pctile[-.][\d.]+|[AH]meanCI(?:-Low|-High)?|"
    r"(?:Min|Max)-\d+(?:\.\d+)?|Best\d+(?:\.\d+)?%[AHG]?[Mm]ean|Percentile-\d+(?:\.\d+)?)$"
)
_SECTION_RE = re.compile(r"^MMTests Statistics:\s*(\S+)", re.I)
# An author's note after a row: "<-- this one", "# note", "(!)", "!!", "*** regression", "// why", "^ here".
# After a plain row it must open with one of these marks (a word could be the row's label); after
# 'value ( pct%)' cells any text that does not start like a number or a cell is one.
_ANNOT_MARK_RE = re.compile(r"(?<!\s)\s+((?:<-+|<=+|<<|-+>|=+>|#|//|\(!+\)|!+|\*{2,}|\^+|\?{2,})(?:\s.*|$|[^\d\s(].*))$")
# a number with damage in it: digits on both sides of a stray letter or of doubled points
_DAMAGED_RE = re.compile(r"[-+]?\d[\d.]*(?:[A-Za-z]|\.\.+)[\d.]*\d%?")
_NOT_ANNOT_RE = re.compile(r"^(?:[-+]?[\d.]|\(\s*[-+]?[\d.]|[*]\s*[-+]?[\d.]|[-+]?(?:nan|inf)\b)", re.I)
_SPREAD_LABEL = "+/-"
# a line such as "(SNC on)" that heads the rows under it: the same columns in another setting
_SUBHEAD_RE = re.compile(r"^\(\s*[^()\d\s][^()]*\)$")
_VERSIONISH = re.compile(r"^v?\d+(?:\.\d+)*\.?(?:-rc\d+)?(?:[-.][A-Za-z0-9]+)*$")


def _decimals(tok: str) -> int:
    m = re.search(r"\.(\d+)", tok)
    return len(m.group(1)) if m else 0


def _num(tok: str) -> float:
    t = tok.lower().lstrip("+")
    if t in ("nan", "-nan"):
        return float("nan")
    return float(t)


def _dur_seconds(tok: str) -> float | None:
    m = _DUR_RE.match(tok)
    if not m:
        return None
    h = int(m.group(1) or 0)
    return h * 3600 + int(m.group(2)) * 60 + float(m.group(3))


def _value_token(tok: str) -> dict | None:
    """A plain value cell: number, percentage or duration."""
    if _NUM_RE.match(tok):
        return {"value": _num(tok), "unit": "", "decimals": _decimals(tok)}
    m = _PCT_RE.match(tok)
    if m:
        return {"value": _num(m.group(1)), "unit": "%", "decimals": _decimals(tok)}
    s = _dur_seconds(tok)
    if s is not None:
        return {"value": s, "unit": "s", "decimals": _decimals(tok)}
    return None


def _split_glued(tok: str, d: int) -> list[str] | None:
    """``980.6341218.131`` with 3 decimals -> ``980.634``, ``1218.131``."""
    parts = tok.split(".")
    if d <= 0 or len(parts[-1]) != d:
        return None
    out, cur = [], parts[0]
    for mid in parts[1:-1]:
        if len(mid) <= d:
            return None
        out.append(f"{cur}.{mid[:d]}")
        cur = mid[d:]
    out.append(f"{cur}.{parts[-1]}")
    return out


# --- lines --------------------------------------------------------------


@dataclass(eq=False)  # compared by identity: a line is itself (field-by-field equality made list scans slow)
class _Line:
    no: int  # 1-based
    depth: int
    text: str  # de-quoted, right-stripped
    raw: str
    kind: str = "other"  # blank | compare | plain | perfstat | ellipsis | joined | badcmp | long | other
    label: str = ""
    cells: list = field(default_factory=list)
    note: str = ""
    annotation: str = ""  # an author's note after the row's cells, kept apart from every value
    line_notes: list = field(default_factory=list)  # for the table's notes: damage undone here, perf's extras
    locale: str = ""  # "eu": a perf stat line printed with '.' thousands and ',' decimals


def _dequote(raw: str) -> tuple[int, str]:
    # a tab is read as the mail reader shows it, to the next multiple of 8 columns: tables typed with tabs
    # then line up as they did for the reader (positions decide which header name heads which column)
    if len(raw) > MAX_ROW_CHARS:
        return 0, raw  # no table row, and no work on it (its tabs expanded, a 5 MB line of them grew to 40)
    m = _QUOTE_RE.match(raw)
    depth, body = (m.group(1).count(">"), raw[m.end():]) if m else (0, raw)
    return depth, _PASTE_RE.sub("", body, count=1).rstrip().expandtabs(8)


#: The longest line read as a table row.  RFC 5322 limits a mail's lines to 998 characters; a table printed by
#: mmtests or perf is a few hundred wide.  A longer line (a data dump, a hostile input) is text, and no pattern is
#: tried on it: every line costs time linear in its length.
MAX_ROW_CHARS = 16384
#: The longest token of a table row (a cell, a word of a label, a kernel name): mmtests pads its fields to 20 or so.
MAX_TOKEN_CHARS = 256
#: The most cells a table row holds: one per kernel compared (mmtests prints a handful, lkp four or five).
MAX_ROW_CELLS = 1024


def _classify(ln: _Line) -> None:
    text = ln.text
    if not text.strip():
        ln.kind = "blank"
        return
    if len(text) > MAX_ROW_CHARS or max(map(len, text.split())) > MAX_TOKEN_CHARS:
        ln.kind = "long"  # too long a line, or a token, for any table row, header or title (see MAX_ROW_CHARS)
        return
    if _ELLIPSIS_RE.match(text):
        ln.kind = "ellipsis"
        return
    m = _PERF_RE.match(text) if "+-" in text else None
    eu = m is None and "+-" in text and _PERF_EU_RE.match(text)
    m = m or eu
    if m:
        def plain(t):  # the number as Python reads it
            return t.replace(".", "").replace(",", ".") if eu else t.replace(",", "")

        val = m.group("val")
        event = m.group("event").strip()
        _perf_row(ln, m, val, bool(eu), event, float(plain(m.group("pct"))))
        if m.group("abs"):
            ln.line_notes.append(f"line {ln.no}: perf's spread of {event!r} also in its unit: +- {m.group('abs')}")
        if m.group("mux"):
            ln.line_notes.append(f"line {ln.no}: perf counted {event!r} for {m.group('mux')}% of the run "
                                 f"(multiplexed) and scaled it up")
        return
    matches = list(_CMP.finditer(text))
    if matches:
        label = text[: matches[0].start()].rstrip()
        # a row label has a letter in it, or is mmtests 2011's "+/-" (the spread of the row above it), or is
        # a bare count ("  1:", "  512") as the AMD scheduler tables label clients and workers
        named = (bool(re.search(r"[A-Za-z]", label)) or label.strip() == _SPREAD_LABEL
                 or bool(re.fullmatch(r"\s*\d+:?", label)))
        gaps_ok = all(text[a.end(): b.start()].strip() == "" for a, b in zip(matches, matches[1:]))
        tail = text[matches[-1].end():]
        if tail.strip() and tail[:1].isspace() and not _NOT_ANNOT_RE.match(tail.strip()):
            ln.annotation = tail.strip()  # "<-- this one": the author's, not a cell
            tail = ""
        ends = not tail
        # a cell whose number is damaged ("72.x8"): the regex finds "8 (" and the rest would join the label
        touching = re.search(r"\S*$", text[: matches[0].start()]).group(0)
        if touching and re.search(r"\d", touching) and label.strip() and named:
            ln.kind = "badcmp"
            ln.label = label
            ln.note = f"non-numeric cell {touching + matches[0].group('val')!r}"
            return
        if label.strip() and named and gaps_ok and ends:
            ln.kind = "compare"
            ln.label = label
            for mt in matches:
                sig = mt.group("open") == "*" or mt.group("close") == "*"
                ln.cells.append(
                    {
                        "value": _num(mt.group("val")),
                        "pct": _num(mt.group("pct")),
                        "sig": sig,
                        "unit": "",
                        "text": text[mt.start(): mt.end("close")].strip(),
                        "decimals": _decimals(mt.group("val")),
                        "start": mt.start(),
                        "end": mt.end(),
                        "pct_decimals": _decimals(mt.group("pct")),
                        "pct_width": len(text[text.index(mt.group("open"), mt.start("val")) + 1: mt.start("pct")])
                        + len(mt.group("pct")),
                        "stddev_pct": float("nan"),
                    }
                )
            norms = [mt.group("norm") for mt in matches]
            if any(norms):  # kept, in no value column: the frame has no column for it
                ln.line_notes.append(f"line {ln.no}: mmtests --print-ratio's normalised difference of "
                                     f"{label.strip()!r}, per column: " + ", ".join(f"{x}s" for x in norms))
            return
        if label.strip() and named:
            ln.kind = "badcmp"
            ln.label = label
            if not ends:
                ln.note = f"the row ends in {tail.strip()!r} after its last 'value ( pct%)' cell"
            else:
                bad = next(text[a.end(): b.start()].strip() for a, b in zip(matches, matches[1:])
                           if text[a.end(): b.start()].strip())
                ln.note = f"non-numeric cell {bad!r} between 'value ( pct%)' cells"
            return
    # plain: label then value tokens, then perhaps an author's note ("# note", "<-- this one")
    am = _ANNOT_MARK_RE.search(text)
    annotation = ""
    if am and re.search(r"\d\S*\s*$", text[: am.start()]):
        annotation = am.group(1).strip()
        text = text[: am.start()]
    toks = [(mt.group(0), mt.start(), mt.end()) for mt in re.finditer(r"\S+", text)]
    i = len(toks)
    while i > 0:  # the value tokens at the end of the line (collected by index: linear in the line)
        tok = toks[i - 1][0]
        if _value_token(tok) is not None or _GLUED_RE.match(tok):
            i -= 1
            if len(toks) - i > MAX_ROW_CELLS:
                return  # more numbers than any table has columns: a dump of numbers, text
        else:
            break
    vals: list[tuple[str, int, int]] = toks[i:]
    # A token like 980.6341218.131 is two numbers the archive ran together, but
    # only when the row's other values say how many decimals each has (3.19.0
    # is a kernel version, not 3.1 and 9.0).
    decs = [_decimals(t) for t, _, _ in vals if not _GLUED_RE.match(t) and "." in t]
    d = statistics.mode(decs) if decs else 0
    for k in range(len(vals) - 1, -1, -1):
        if _GLUED_RE.match(vals[k][0]) and not _split_glued(vals[k][0], d):
            i += k + 1
            vals = vals[k + 1:]
            break
    label_toks = toks[:i]
    if label_toks and _DAMAGED_RE.fullmatch(label_toks[-1][0]) \
            and not re.fullmatch(r"v?\d+(?:\.\d+)+(?:-\S+)?", label_toks[-1][0]) \
            and re.search(r"[A-Za-z]", text[: label_toks[-1][1]]):
        ln.kind = "badplain"  # "2..5", "72.x8", "1x020083" where the row's numbers are: damage, not label
        ln.label = text[: label_toks[-1][1]].rstrip()
        ln.note = f"non-numeric cell {label_toks[-1][0]!r}"
        return
    if not vals or not label_toks:
        return
    label = text[: label_toks[-1][2]]
    if not re.search(r"[A-Za-z]", label) or label.rstrip().endswith((",", ";")):
        return
    cells = []
    for tok, a, b in vals:
        if _GLUED_RE.match(tok):
            pieces = _split_glued(tok, d)
            pos = a
            for p in pieces:
                v = _value_token(p)
                cells.append({**v, "pct": float("nan"), "sig": False, "text": p, "start": pos, "end": pos + len(p),
                              "stddev_pct": float("nan"), "glued": tok})
                pos += len(p)
            continue
        v = _value_token(tok)
        cells.append({**v, "pct": float("nan"), "sig": False, "text": tok, "start": a, "end": b,
                      "stddev_pct": float("nan")})
    ln.kind = "plain"
    ln.label = label
    ln.cells = cells
    ln.annotation = annotation


# --- tables -------------------------------------------------------------


@dataclass
class _Block:
    kind: str
    depth: int
    rows: list  # of _Line
    notes: list = field(default_factory=list)
    header: list = field(default_factory=list)  # of _Line
    kernels: list = field(default_factory=list)
    label_title: str = ""
    title: str = ""
    title_line: int = 0
    kernels_from: int = 0
    ncols: int = 0
    layout: dict = field(default_factory=dict)

    @property
    def first(self) -> int:
        return min([r.no for r in self.rows] + [h.no for h in self.header])

    @property
    def last(self) -> int:
        return max(r.no for r in self.rows)


def _err(source, ln: _Line, expected: str) -> WorkbookParseError:
    return WorkbookParseError(source, ln.no, expected, ln.raw.strip())


def _col_edges(block: _Block) -> list[int]:
    n = block.ncols
    ends = [[] for _ in range(n)]
    for r in block.rows:
        if len(r.cells) == n:
            for j, c in enumerate(r.cells):
                ends[j].append(c["end"])
    return [int(statistics.median(e)) if e else 0 for e in ends]


def _repair_row(ln: _Line, n: int, block: _Block) -> None:
    """Split a value the archive glued to the label (``Outs8042076``)."""
    if ln.kind != "plain" or len(ln.cells) != n - 1:
        return
    toks = list(re.finditer(r"\S+", ln.label))
    if not toks:
        return
    last = toks[-1]
    m = _LABEL_GLUE_RE.match(last.group(0))
    if not m or re.search(r"\d", m.group(1).rsplit(None, 1)[-1]):
        return  # "110x99122" is a damaged number, not a value glued to a word ("Outs8042076")
    num = m.group(2)
    v = _value_token(num)
    if v is None:
        return
    start = last.start() + len(m.group(1))
    ln.cells.insert(0, {**v, "pct": float("nan"), "sig": False, "text": num, "start": start,
                        "end": start + len(num), "stddev_pct": float("nan")})
    ln.label = ln.label[:start]
    block.notes.append(f"line {ln.no}: value {num!r} glued to the label {last.group(0)!r} by the archive; split off")


def _fill_blank_cells(ln: _Line, n: int, block: _Block) -> None:
    """mmtests prints an undefined value as spaces as wide as the field.  A row short of cells whose cells
    each end on a column edge of the other rows (which all line up) has blank columns there: they are read as
    missing (NaN) and noted.  The last column must be there: a row cut short looks like blank last columns."""
    if ln.kind not in ("compare", "plain") or not ln.cells or len(ln.cells) >= n:
        return
    full = [r for r in block.rows if len(r.cells) == n]
    if len(full) < 2:
        return
    edges = _col_edges(block)
    if any(abs(c["end"] - e) > 1 for r in full for c, e in zip(r.cells, edges)):
        return  # the other rows do not line up: no telling which column is blank
    cols = []
    for c in ln.cells:
        at = [j for j, e in enumerate(edges) if abs(c["end"] - e) <= 1]
        if len(at) != 1 or (cols and at[0] <= cols[-1]):
            return
        cols.append(at[0])
    if cols[-1] != n - 1:
        return
    blank = [j for j in range(n) if j not in cols]
    cells = dict(zip(cols, ln.cells))
    nan = float("nan")
    ln.cells = [cells.get(j) or {"value": nan, "pct": nan, "sig": False, "unit": "", "text": "", "decimals": 0,
                                 "start": edges[j], "end": edges[j], "stddev_pct": nan, "blank": True}
                for j in range(n)]
    block.notes.append(f"line {ln.no}: column(s) {', '.join(str(j + 1) for j in blank)} of {n} blank (mmtests "
                       f"prints an undefined value as spaces); read as missing (NaN)")


def _header_tokens(ln: _Line) -> list[tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in re.finditer(r"\S+", ln.text)]


def _assign_header(ln: _Line, edges: list[int], cell_w: int, others: list[str], label_starts=frozenset()):
    """Match a header line to the columns by position; None if it is not a header.

    ``label_starts``: the columns where the words of the rows' labels start (``Test  Metric  Parallelism``
    titles a label of three fields only if each title starts where a field of the labels does)."""
    n = len(edges)
    starts = [e - cell_w for e in edges]
    toks = _header_tokens(ln)
    if not toks:
        return None
    label_title = ""
    notes: list[str] = []
    # the title of the row-label column, at the margin: before the first field, or ending in ':' ("Clients:")
    # with one name after it per column (a lone "name: value" line is no header)
    if not ln.text[:1].isspace() and (toks[0][2] <= starts[0]
                                      or (toks[0][0].endswith(":") and n >= 2 and len(toks) == n + 1)):
        label_title = toks[0][0]
        toks = toks[1:]
        # a label of several fields may have a title per field, each over its field
        titles = list(itertools.takewhile(lambda t: t[2] <= starts[0] and any(abs(t[1] - x) <= 1 for x in label_starts),
                                          toks))
        if titles:
            label_title = " ".join([label_title] + [t for t, _, _ in titles])
            toks = toks[len(titles):]
            notes.append(f"line {ln.no}: the row labels have {len(titles) + 1} fields, titled {label_title!r}")
    if not toks:
        return None
    # a hand-typed name with a space in it ('6.9-rc2(with ">")'): words one space apart inside one column's
    # field are one name; mmtests pads its names apart, so this never joins two of its names
    cols_of = [[j for j in range(n) if a < edges[j] and b > starts[j]] for _, a, b in toks]
    k = 0
    while k + 1 < len(toks):
        (t1, a1, _), (t2, a2, b2) = toks[k], toks[k + 1]
        if n >= 2 and a2 - toks[k][2] == 1 and len(cols_of[k]) == 1 and cols_of[k] == cols_of[k + 1]:
            toks[k:k + 2] = [(f"{t1} {t2}", a1, b2)]
            cols_of[k:k + 2] = [cols_of[k]]
        else:
            k += 1
    # a word ending in ':' ',' ';' or opening '(' is prose or a "key: value" line, except inside a name
    # ("nocg, nopatch"); a name may not hold a "key: value" either
    if any(t.endswith((":", ",", ";")) or t.startswith(("(", "[")) or re.search(r"[:;]\s", t) for t, _, _ in toks):
        return None
    spaced = [t for t, _, _ in toks if " " in t]
    notes.extend(f"line {ln.no}: header name {t!r} has a space in it; read as one name" for t in spaced)
    if any(re.fullmatch(r"[-=_~*#]{3,}", t) for t, _, _ in toks):
        return None  # a rule ("=====") under a header is not a header: cut into "names" it made nonsense
    out = [""] * n
    ends: list[int | None] = [None] * n
    tol = 2
    pending = list(toks)
    while pending:
        tok, a, b = pending.pop(0)
        cols = [j for j in range(n) if a < edges[j] and b > starts[j]]
        if not cols:
            return None
        # right-aligned in one column (possibly overflowing leftwards)
        aligned = [j for j in cols if abs(b - edges[j]) <= tol]
        if len(cols) == 1 or (aligned and not any(a < edges[j] < b - tol for j in cols)):
            j = aligned[-1] if aligned else cols[-1]
            if out[j]:
                return None
            out[j] = tok
            ends[j] = b
            continue
        # names run together ("3.0.0-vanilla3.16.0-rc1-vanilla"): mmtests prints fixed-width fields, so
        # a name that fills its field touches the one before it.  The run ends on a column's edge and
        # starts inside the first column's field: cut it at the edges of the columns it spans.
        # Only exactly on the edges: a name off by a column would be cut inside ("3.0.0-van", "illa3.16").
        inner = [edges[j] for j in cols[:-1]]
        cuts = [a] + inner + [b]
        pieces = [(tok[x - a: y - a], x, y) for x, y in zip(cuts, cuts[1:])]
        if (b == edges[cols[-1]] and inner and a >= starts[cols[0]] and all(a < e < b for e in inner)
                and all(p[:1].isalnum() and p[-1:].isalnum() for p, _, _ in pieces)):
            notes.append(f"line {ln.no}: header names run together ({tok!r}); split at the column edges of the "
                         f"rows below into {', '.join(repr(p) for p, _, _ in pieces)}")
            pending[0:0] = pieces
            continue
        # a field that overflowed into its left neighbour: split at that column's edge
        split = next((edges[j] for j in cols if a + 2 <= edges[j] <= b - 2), None)
        if split is None:
            return None
        left, right = tok[: split - a], tok[split - a:]
        evidence = any(o == left or (o.endswith(left[-3:]) and len(left) >= 3) for o in others + [t for t, _, _ in toks if t != tok])
        if not evidence:
            return None
        notes.append(f"line {ln.no}: header name {tok!r} overflowed its field; read as {left!r} and {right!r}")
        pending[0:0] = [(left, a, split), (right, split, b)]
    if spaced and not all(out):
        return None  # words read as one name only in a header that names every column: else it is prose
    return out, ends, label_title, notes


def _suffix_split(tokens: list[str], n: int) -> tuple[list[str], str] | None:
    """``revert-v5 contended-v5capture-v5`` -> three names sharing ``-v5``."""
    if len(tokens) >= n:
        return None
    ends = [t for t in tokens]
    for k in range(min(len(t) for t in ends), 1, -1):
        suf = ends[0][-k:]
        if not all(t.endswith(suf) for t in ends) or not re.search(r"[-_.]", suf):
            continue
        out = []
        for t in tokens:
            pieces = [p + suf for p in t.split(suf) if p]
            out.extend(pieces)
        if len(out) == n:
            return out, suf
    return None


def _find_header(block: _Block, lines: list[_Line], start_idx: int, source, known=()) -> None:
    """Look above the block's first row for one or two header rows and a title."""
    n = block.ncols
    edges = _col_edges(block)
    cols_sorted = sorted(edges)
    spacing = [b - a for a, b in zip(cols_sorted, cols_sorted[1:])]
    pct_w = 0
    if block.kind == "compare":
        widths = [c.get("pct_width", 0) for r in block.rows for c in r.cells
                  if not c.get("blank") and not c.get("no_pct")]
        pct_w = statistics.mode(widths) if widths else 6
    if spacing:
        cell_w = int(statistics.median(spacing))
    else:
        cell_w = 12 + (pct_w + 4 if block.kind == "compare" else 0)
    block.layout = {"edges": edges, "cell_width": cell_w}
    dev = [abs(c["end"] - edges[j]) for r in block.rows if len(r.cells) == n for j, c in enumerate(r.cells)]
    if dev and max(dev) > 2:
        # cells do not line up: hand-typed, or spacing the archive collapsed
        block.layout["irregular"] = True
    if block.kind == "compare":
        block.layout["compare_width"] = pct_w
        block.layout["field_width"] = cell_w - pct_w - 4
    else:
        block.layout["field_width"] = cell_w
    label_w = (edges[0] - cell_w) if edges else 0
    block.layout["label_width"] = label_w
    indents = [len(r.label) - len(r.label.lstrip()) for r in block.rows]
    block.layout["indent"] = statistics.mode(indents)
    pdec = [c["pct_decimals"] for r in block.rows for c in r.cells if "pct_decimals" in c]
    if pdec:
        block.layout["pct_decimals"] = statistics.mode(pdec)
    short = [c["text"] for r in block.rows for c in r.cells if c["unit"] == "s" and c["value"] % 60 < 10]
    if short:
        block.layout["duration_zero_pad"] = all(re.search(r"m0\d", t) for t in short)
    stat_starts = []
    for r in block.rows:
        toks = r.label.split()
        if len(toks) == 2 and _STAT_RE.match(toks[0]):
            lead = len(r.label) - len(r.label.lstrip())
            stat_starts.append(r.label.index(toks[1], lead + len(toks[0])) - lead)
    if stat_starts:
        block.layout["stat_width"] = statistics.mode(stat_starts) - 1
        block.layout["row_width"] = label_w - block.layout["indent"] - block.layout["stat_width"] - 1

    def up(k):  # walk upwards, stepping over an elision and over lines joined onto the line above
        while k >= 0 and lines[k].kind in ("ellipsis", "joined") and lines[k].depth == block.depth:
            k -= 1
        return k

    i = up(start_idx - 1)
    section = None
    if (i >= 0 and lines[i].depth == block.depth and lines[i].kind == "other"
            and _SECTION_RE.match(lines[i].text.strip())):
        # mmtests of 2011 printed the kernel header above its "MMTests Statistics:" line, not under it
        section, i = lines[i], up(i - 1)
    gap = None
    if (not section and i >= 1 and _SUBHEAD_RE.match(lines[i].text.strip()) and lines[i].depth == block.depth
            and lines[i - 1].kind == "other" and lines[i - 1].depth == block.depth):
        # "(SNC on)" between header and rows: a sub-heading of the rows, taken across like a blank line
        gap, i = lines[i], i - 1
    elif (not section and i >= 1 and lines[i].kind == "blank" and lines[i].depth == block.depth
            and lines[i - 1].kind == "other" and lines[i - 1].depth == block.depth
            and lines[i - 1].text[:1].isspace()):
        # a blank line between an (indented) header and its rows: the header is taken across it only
        # if it lines up with the columns, never by the looser rules below
        gap, i = lines[i], i - 1
    cand = []
    j = i
    while j >= 0 and len(cand) < 2:
        ln = lines[j]
        if ln.depth != block.depth or ln.kind not in ("other", "joined"):
            break
        if ln.kind == "other":
            cand.append(ln)
        j -= 1
    headers: list[tuple[_Line, list[str], list]] = []
    label_title = ""
    label_starts = {m.start() for r in block.rows for m in re.finditer(r"\S+", r.label)}
    others: list[str] = []
    for ln in cand:
        others.extend(t for t, _, _ in _header_tokens(ln))
    for ln in cand:
        if headers and not ln.text[:1].isspace():
            break  # mmtests indents both header rows: a line at the margin above a header is its title
        res = _assign_header(ln, edges, cell_w, others, label_starts)
        if res is None:
            break
        names, ends, lt, notes = res
        headers.append((ln, names, ends))
        label_title = label_title or lt
        block.notes.extend(notes)
    if gap is not None:
        if headers:
            block.notes.append(f"line {gap.no}: a blank line between the header and the rows" if gap.kind == "blank"
                               else f"line {gap.no}: {gap.text.strip()!r} between the header and the rows, a "
                                    f"sub-heading of the rows")
        else:
            cand, i = [], i + 1  # no header across the blank line: as if none had been looked for
    if not headers and cand:
        # collapsed spacing: positions do not line up, but the names may still be there
        ln = cand[0]
        toks = [t for t, _, _ in _header_tokens(ln)]
        if ln.text[:1].isspace() and toks and all(_kernelish(t) for t in toks):
            top = cand[1] if len(cand) == 2 and cand[1].text[:1].isspace() else None
            names = _names_off_the_columns(ln, toks, n, known, block.notes, top)
            if names:
                headers.append((ln, names, [None] * n))
                # the line above may be the header's first row (kernel version over name), as far off
                ttoks = [t for t, _, _ in _header_tokens(top)] if top else []
                tnames = (_names_off_the_columns(top, ttoks, n, known, block.notes)
                          if ttoks and top.text[:1].isspace() and all(_kernelish(t) for t in ttoks) else None)
                if tnames:
                    headers.append((top, tnames, [None] * n))
            else:
                if len(toks) < n and len(toks) > 0:
                    raise _err(source, ln, f"{n} kernel names for the {n} columns of the table below it (found {len(toks)})")
                elif len(toks) > n:
                    raise _err(source, block.rows[0], f"{len(toks)} value cells, one per kernel name of the header "
                                                      f"at line {ln.no} (found {n}): the rows are cut short")
        elif len(cand) == 2 and all(c.text[:1].isspace() for c in cand):
            top = [t for t, _, _ in _header_tokens(cand[1])]
            if len(top) >= 2 and len(top) == len(toks) and all(_kernelish(t) for t in top):
                if len(toks) == n:  # a two-row header off the columns: the names in order, as above
                    headers.extend([(ln, toks, [None] * n), (cand[1], top, [None] * n)])
                    block.notes.append(f"lines {cand[1].no}-{ln.no}: header does not line up with the columns; "
                                       f"names taken in order")
                else:
                    raise _err(source, block.rows[0] if len(toks) > n else ln,
                               f"{len(toks)} value cells, one per kernel name of the header at lines "
                               f"{cand[1].no}-{ln.no} (found {n})" if len(toks) > n else
                               f"{n} kernel names for the {n} columns of the table below it (found {len(toks)})")
    headers.reverse()  # top row first
    block.header = [h for h, _, _ in headers]
    block.label_title = label_title
    if headers:
        block.kernels = [" ".join(p for p in parts if p) for parts in zip(*[names for _, names, _ in headers])]
        block.layout["header"] = [names for _, names, _ in headers]
        block.layout["header_ends"] = [e for _, _, e in headers]
    # title: the section line, else the line right above the header (or the block), if it is text
    k = section.no - 1 if section else block.header[0].no - 2 if block.header else i  # a line's index is no - 1
    if k >= 0 and lines[k].depth == block.depth and lines[k].kind == "other" and lines[k].text.strip():
        block.title = lines[k].text.strip()
        block.title_line = lines[k].no


def _names_off_the_columns(ln: _Line, toks: list[str], n: int, known, notes: list, top=None) -> list[str] | None:
    """The ``n`` kernel names of a header line that does not line up with the columns, or None.

    ``top`` is the header row above it, if any."""
    if len(toks) == n:
        notes.append(f"line {ln.no}: header does not line up with the columns; names taken in order")
        return toks
    # Names longer than their field run together ("rc6-stats-v5r1rc6-numacore-20121123..."): mmtests
    # prints its duration and vmstat sections with narrower fields than the comparison above them, whose
    # header has the same names apart.  Split only where such a header says each name ends.
    ends = set(itertools.accumulate(len(t) for t in toks))
    for line_no, names in known:
        if len(names) == n and "".join(names) == "".join(toks) and ends <= set(itertools.accumulate(map(len, names))):
            notes.append(f"line {ln.no}: header names run together ({' '.join(toks)!r}); split as the header "
                         f"at line {line_no} prints them apart")
            return list(names)
    # mmtests of 2012 printed header fields narrower than the cells under them, so the header has columns
    # of its own: where the row above has its n names apart, their ends are the edges to cut this row at
    grid = [b for _, _, b in _header_tokens(top)] if top is not None and n > 1 else []
    if len(grid) == n:
        res = _assign_header(ln, grid, int(statistics.median(b - a for a, b in zip(grid, grid[1:]))), [])
        if res and all(res[0]) and not res[2]:
            notes.extend(res[3])
            notes.append(f"line {ln.no}: header does not line up with the columns; its names read at the edges "
                         f"of the names above them (line {top.no})")
            return res[0]
    res = _suffix_split(toks, n)
    if res:
        names, suf = res
        notes.append(f"line {ln.no}: header names run together ({' '.join(toks)!r}); split after the shared suffix {suf!r}")
        return names
    return None


def _known_headers(tables: list[_Block]) -> list[tuple[int, list[str]]]:
    """(line, names) of the header rows of *tables* that print every name apart."""
    return [(h.no, names) for t in tables for h, names in zip(t.header, t.layout.get("header", []))
            if h.text.split()[-len(names):] == names]


def _kernelish(tok: str) -> bool:
    return bool(re.search(r"[\d-]", tok) or tok in ("vanilla",)) and not tok.endswith((":", ",", ".", ";"))


def _row_label(label: str) -> tuple[str, str]:
    toks = label.split()
    if len(toks) == 2 and _STAT_RE.match(toks[0]):
        return toks[0], toks[1]
    if len(toks) == 2 and toks[1] in _TRAILING_STATS:  # mmtests duration rows: "Elapsed min", "User mean"
        return toks[1], toks[0]
    return "", " ".join(toks)


# mmtests of 2013 printed the statistic after the row name ("User    min" ... "User    range"); every one of
# them must be read the same way, or "range" becomes a row of its own named "User range"
_TRAILING_STATS = {"min", "max", "mean", "amean", "hmean", "gmean", "stddev", "median", "range"}


def parse_text(text: str, source: str | None = None) -> pd.DataFrame:
    src = source or "<text>"
    if not isinstance(text, str):
        raise WorkbookParseError(src, None, "text (str)", type(text).__name__)
    nul = text.find("\x00")
    if nul >= 0:  # a NUL inside "0.\x0088" would otherwise read as 0.88
        raise WorkbookParseError(src, text.count("\n", 0, nul) + 1, "text without NUL bytes", "a NUL byte")
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return _parse_text(text, source)
    except WorkbookParseError:
        raise
    except RecursionError:
        raise WorkbookParseError(src, None, "a table nested less deeply", "nesting past the recursion limit") \
            from None
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, ArithmeticError, AttributeError,
            statistics.StatisticsError) as e:  # the net under the checks: still one error type, with the cause
        raise WorkbookParseError(src, None, "tables parse_text can read", f"{type(e).__name__}: {e}") from None


def _parse_text(text: str, source: str | None = None) -> pd.DataFrame:
    """Every table in ``text``, one row per cell.

    Parameters
    ----------
    text : str
        Mail text, a whole thread, or mmtests output.
    source : str, optional
        Name used in error messages and ``df.attrs["source"]``.

    Returns
    -------
    DataFrame
        Columns as :data:`kernel_workbook.tables.cells.CELL_COLUMNS`:
        ``table, stat, row, kernel, value, pct, sig, unit, text, decimals,
        col, order, line, quote, kind, stddev_pct``.  ``df.attrs["tables"]``
        maps each table number to its metadata: ``first_line``,
        ``last_line``, ``header_lines``, ``title``, ``section``, ``kind``,
        ``kernels``, ``label_title``, ``kernels_from``, ``quote``,
        ``layout`` (measured widths, for rendering it back) and ``notes``
        (every repair of archive damage).

    Raises
    ------
    WorkbookParseError
        For a row with the wrong number of cells, a non-numeric cell, a row
        cut short, or a table header with no rows.

    Warns
    -----
    UnnamedColumnsWarning
        A table of two or more columns kept without kernel names.
    ~kernel_workbook.errors.SkippedLinesWarning
        A kernel test robot ``fail:runs`` table, left out.
    ~kernel_workbook.errors.TruncatedTraceWarning
        A table row on a last line without newline, dropped.
    """
    src = source or "<text>"
    lines = []
    for no, raw in enumerate(text.splitlines(), 1):
        depth, body = _dequote(raw)
        ln = _Line(no, depth, body, raw)
        _classify(ln)
        lines.append(ln)
    _unwrap(lines)
    _plain_perf_stat(lines)
    _drop_cut_last_row(text, lines, src)

    lkp = _lkp_tables(lines, text, src)

    blocks: list[tuple[_Block, int]] = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.kind not in ("compare", "plain", "perfstat"):
            i += 1
            continue
        prev = lines[i - 1] if i else None
        if prev is not None and prev.depth == ln.depth and _BAD_ROW.get(prev.kind, ("",))[0] == ln.kind:
            raise _err(src, prev, f"{_BAD_ROW[prev.kind][1]} like the rows below it: " + prev.note)
        block = _Block(ln.kind, ln.depth, [ln])
        start = i
        i += 1
        while i < len(lines):
            nx = lines[i]
            if nx.kind == "joined":
                i += 1
                continue
            if nx.depth != block.depth:
                break
            if nx.kind == block.kind:
                block.rows.append(nx)
                i += 1
                continue
            if nx.kind in ("ellipsis", "joined"):
                i += 1
                continue
            if block.kind == "perfstat" and nx.kind == "blank" and i + 1 < len(lines) and lines[i + 1].kind == "perfstat":
                i += 1
                continue
            if _BAD_ROW.get(nx.kind, ("",))[0] == block.kind:
                raise _err(src, nx, f"{_BAD_ROW[nx.kind][1]} like the rows above it: " + nx.note)
            if block.kind == "compare" and _ratio_summary_row(nx):
                block.rows.append(nx)
                i += 1
                continue
            if block.kind == "compare" and nx.kind == "plain" and len(nx.cells) >= 2:
                raise _err(src, nx, f"'value ( pct%)' cells like the rows above it (line {block.rows[-1].no})")
            if block.kind in ("compare", "plain") and nx.kind == "other" and _only_cells(nx.text):
                # the end of a row the mail software broke without marking it (no format=flowed space): the row
                # above would be read short and these cells lost
                raise _err(src, nx, f"a table row with its label; this line holds only value cells, the rest of "
                                    f"the row on line {block.rows[-1].no} broken off by the mail software")
            break
        blocks.append((block, start))

    tables: list[_Block] = []
    known: list[tuple[int, list[str]]] = []  # (line, names) of the headers read so far that print names apart
    for block, start in blocks:
        if block.kind == "plain":
            _settle_plain(block, lines, start, src, known)
        elif block.kind == "compare":
            _settle_columns(block, lines, start, src, known)
        elif block.kind == "perfstat":
            block.ncols = 1
            block.kernels = [""]
            eu = [r.no for r in block.rows if r.locale]
            if eu:
                block.notes.append(f"lines {eu[0]}-{eu[-1]}: perf stat printed in a locale that groups "
                                   f"thousands with '.' and marks the decimal with ',' ('43.367.405,59' is "
                                   f"43367405.59); read so")
        if block.kind == "plain" and not _plain_is_table(block):
            continue  # lines that merely end in a number are prose
        if block.kind == "compare" and len(block.rows) < 2 and not block.header:
            continue  # a lone line with a "(x%)" in it is prose
        if block.kind == "plain" and not block.header and block.ncols >= 2 and not block.kernels:
            _inherit(block, tables)
        if not block.header and block.kind in ("compare", "plain"):
            _continue_under_subheading(block, lines, start, tables)
        tables.append(block)
        known.extend(_known_headers([block]))  # kept as the tables come: a long thread was quadratic in them

    _check_dangling_headers(lines, tables, src)
    tables = _merge_vmstat(tables) + lkp
    tables.sort(key=lambda b: b.first)
    for t in tables:
        _warn_unnamed(t, lines, src)
    return _to_frame(tables, src)


# The summary rows mmtests --print-ratio prints under its "Ratio <op>" rows, labelled so in Compare.pm's
# _generateRenderRatioTable: each value is followed by undef, undef, which PrintGeneric prints as spaces
_RATIO_SUMMARY_RE = re.compile(r"^\s*(?:Gmean|Dmean|Dmin|Dmax)\s+(?:Higher|Lower)$")


def _ratio_summary_row(ln: _Line) -> bool:
    """A ``Gmean Higher`` row under ``Ratio`` rows: a row of the table whose percentages mmtests leaves blank,
    taken into it (cells without a percentage, NaN) and noted; any other row of bare numbers there is an
    error."""
    if ln.kind != "plain" or not _RATIO_SUMMARY_RE.match(ln.label):
        return False
    ln.kind = "compare"
    for c in ln.cells:
        c["no_pct"] = True
    ln.line_notes.append(f"line {ln.no}: {ln.label.strip()!r} is a summary of the --print-ratio table, which mmtests "
                         f"prints without percentages (pct NaN)")
    return True


def _warn_unnamed(t: _Block, lines: list[_Line], src: str) -> None:
    """A table of several columns whose columns have no names is kept, its kernels empty, but never silently:
    its columns cannot be told apart without them.  A table of one column (a perf stat block, a /proc/vmstat
    dump) is one run: nothing to tell apart, no warning."""
    if t.ncols < 2 or (t.kernels and all(t.kernels)):
        return
    above = lines[t.first - 2] if t.first >= 2 else None
    if above is None or above.kind != "other" or above.depth != t.depth or not above.text.strip():
        why = "there is no header above it"
    elif re.fullmatch(r"[-=_~*#]{3,}", above.text.strip()):
        why = f"line {above.no} above it is a rule; a header above a rule is not read"
    elif above.no == t.title_line and (_SECTION_RE.match(above.text.strip()) or not above.text[:1].isspace()):
        why = f"there is no header above it, only its title on line {above.no} ({above.text.strip()[:60]!r})"
    else:
        why = f"line {above.no} above it ({above.text.strip()[:60]!r}) does not line up with the columns as a header"
    empty = [str(j + 1) for j, k in enumerate(t.kernels or [""] * t.ncols) if not k]
    shown = ", ".join(empty[:10]) + (f" and {len(empty) - 10} more" if len(empty) > 10 else "")
    warnings.warn(UnnamedColumnsWarning(
        f"{src}:{t.first}: the table at lines {t.first}-{t.last} has no kernel name for column(s) "
        f"{shown} of {t.ncols}: {why}; its kernels are left empty"), stacklevel=4)


def _only_cells(text: str) -> bool:
    """Nothing but value cells: the second half of a row the mail software broke in two."""
    rest = _CMP.sub(" ", text).split()
    return bool(text.strip()) and all(_value_token(t) is not None for t in rest)


def _unwrap(lines: list[_Line]) -> None:
    """Join the rows that mail software broke in two, noting each join on the row.

    * quoted-printable soft line breaks the archive did not decode: the row ends in ``=`` and the
      rest of it is on the next line, which carries no quote marks of its own (often it is empty);
    * format=flowed: a line ending in a space continues on the next line.  Only a row whose next line
      is nothing but value cells, or a kernel-name header line whose next line is more kernel names
      above the rows, is joined: anything else that ends in a space is left as it is.
    The line that was joined on becomes ``joined``: it neither ends the table nor is read again.
    """
    for a, b in zip(lines, lines[1:]):
        if a.kind == "joined" or b.kind == "joined":
            continue
        if a.kind == "other" and _PERF_HEAD_RE.match(a.text) and b.text.lstrip().startswith("#"):
            joined = _Line(a.no, a.depth, a.text + " " + b.text.strip(), a.raw)
            _classify(joined)
            if joined.kind == "perfstat":
                joined.line_notes.append(f"lines {a.no}-{b.no}: perf printed the counter's second metric and its "
                                         f"spread on line {b.no}; joined")
                a.__dict__.update(joined.__dict__)
                b.kind, b.text, b.cells, b.depth = "joined", "", [], a.depth
            continue
        if re.search(r"[\d)*%]=$", a.text) and a.kind not in ("compare", "plain", "perfstat"):  # not "====="
            joined = _Line(a.no, a.depth, a.text[:-1] + b.raw.rstrip(), a.raw)
            _classify(joined)
            if joined.kind in ("compare", "plain"):
                joined.line_notes.append(f"line {a.no}: a quoted-printable soft line break ('=' at the end) the "
                                      f"archive left undecoded; joined with line {b.no}")
                a.__dict__.update(joined.__dict__)
                b.kind, b.text, b.cells, b.depth = "joined", "", [], a.depth
            continue
        if not (a.raw.endswith(" ") and b.depth == a.depth and b.kind not in ("blank", "ellipsis")):
            continue
        if a.kind in ("compare", "plain") and _only_cells(b.text):
            joined = _Line(a.no, a.depth, a.text + " " + b.text, a.raw)
            _classify(joined)
            if joined.kind != a.kind or len(joined.cells) <= len(a.cells):
                continue
        elif (a.kind == "other" and a.text[:1].isspace() and not b.text[:1].isspace()
              and all(_kernelish(t) for t in a.text.split() + b.text.split())
              and any(n.kind in ("compare", "plain") for n in lines[b.no: b.no + 2])):
            joined = _Line(a.no, a.depth, a.text + " " + b.text, a.raw)
            _classify(joined)
        else:
            continue
        joined.line_notes.append(f"lines {a.no}-{b.no}: one line the mail software broke in two (line {a.no} ends "
                              f"in a space, format=flowed); joined")
        a.__dict__.update(joined.__dict__)
        b.kind, b.text, b.cells, b.depth = "joined", "", [], a.depth


# a plain `perf stat` report (no -r: no spread on its lines) is read under its title only: without a spread a
# counter line ('   1,812,010,034      cycles   #    2.000 GHz') would pass for prose elsewhere
_PERF_TITLE_RE = re.compile(r"^\s*Performance counter stats for\b")
_PERF_PLAIN_RE = re.compile(
    rf"^\s*(?P<val>{_PERF_VAL}|<not counted>|<not supported>)\s+"
    r"(?P<event>(?:msec\s+)?[^\s#(\[]+(?:\s+\(msec\))?|seconds (?:time elapsed|user|sys))"
    r"\s*(?:#[^(\[]*)?(?:[\[(]\s*(?P<mux>\d+(?:\.\d+)?)%\s*[\])])?\s*$")
# a counter's second metric on a line of its own ('      #    0.78  stalled cycles per insn')
_PERF_METRIC_LINE_RE = re.compile(r"^\s+#\s*-?\d[\d.,]*\s+\S[^(\[]*(?:[\[(]\s*\d+(?:\.\d+)?%\s*[\])])?\s*$")


def _plain_perf_stat(lines: list[_Line]) -> None:
    """The counter lines of the reports ``perf stat`` prints without ``-r``, under their ``Performance counter
    stats for '...':`` title, become ``perfstat`` rows (no spread: ``stddev_pct`` NaN), up to the first line that
    is no counter, metric or blank (the ``seconds time elapsed``, ``user`` and ``sys`` lines are rows too).  A
    counter's further metric on a line of its own is kept with it (``joined``)."""
    i = 0
    while i < len(lines):
        if lines[i].kind != "other" or not _PERF_TITLE_RE.match(lines[i].text):
            i += 1
            continue
        depth = lines[i].depth
        j = i + 1
        blanks = 0
        while j < len(lines) and lines[j].depth == depth and blanks <= 2:
            ln = lines[j]
            j += 1
            if ln.kind == "blank":
                blanks += 1
                continue
            if ln.kind in ("perfstat", "joined"):
                blanks = 0
                continue
            if ln.kind != "other" and ln.kind != "plain":
                break
            m = _PERF_PLAIN_RE.match(ln.text)
            if m:
                _perf_row(ln, m, m.group("val"), False, m.group("event").strip(), float("nan"))
                blanks = 0
                continue
            if _PERF_METRIC_LINE_RE.match(ln.text) and blanks == 0:
                ln.kind, ln.cells = "joined", []
                continue
            break
        i = j


def _perf_row(ln: _Line, m, val: str, eu: bool, event: str, spread: float) -> None:
    """Make *ln* a ``perfstat`` row of one cell: the count *val* of *event* (``msec`` values in seconds, as every
    time in a table), its spread in percent (NaN when perf printed none)."""
    def plain(t):  # the number as Python reads it
        return t.replace(".", "").replace(",", ".") if eu else t.replace(",", "")

    msec = event.startswith("msec") or event.endswith("(msec)")
    unit = "s" if event.startswith("seconds") or msec else "events"
    value = float("nan") if val.startswith("<") else float(plain(val))
    if msec:
        value /= 1000  # "35,107,951.20 msec cpu-clock": a time, and times are in seconds
    ln.kind = "perfstat"
    ln.label = event
    ln.locale = "eu" if eu else ""
    ln.cells = [{"value": value, "pct": float("nan"), "sig": False, "unit": unit, "text": val,
                 "decimals": _decimals(plain(val)), "start": m.start("val"), "end": m.end("val"),
                 "stddev_pct": spread}]


#: a damaged row's kind -> (the kind of the table it sits in, what that table's rows are)
_BAD_ROW = {"badcmp": ("compare", "a table row of 'value ( pct%)' cells"),
            "badplain": ("plain", "a table row of numbers")}


def _drop_cut_last_row(text: str, lines: list[_Line], src: str) -> None:
    """The truncation rule: a last line without its newline may have been cut anywhere, even inside a
    number; when it is a table row (after rows of its table, or a 'value ( pct%)' row) it is dropped with a
    :class:`TruncatedTraceWarning`, and the rows before it are kept.  Prose is left alone."""
    if not lines or text.endswith(("\n", "\r")):
        return
    last = lines[-1]
    if last.kind in ("blank", "other", "ellipsis", "joined"):
        return
    prev = next((ln for ln in reversed(lines[:-1]) if ln.kind not in ("ellipsis", "joined")), None)
    joins = prev is not None and prev.depth == last.depth and prev.kind in ("compare", "plain", "perfstat")
    if last.kind in ("compare", "badcmp", "perfstat") or (last.kind in ("plain", "badplain") and joins):
        warnings.warn(TruncatedTraceWarning(
            f"{src}:{last.no}: truncated last line {last.raw.strip()[:60]!r} (no newline: the text was cut "
            f"there), dropped; the rows before it were kept"), stacklevel=4)
        last.kind = "other"
        last.cells = []


_NOT_A_LABEL = re.compile(r"^(?:---|\+\+\+|@@|diff\s|index\s|[A-Z][A-Za-z-]*:\s)")


def _plain_is_table(block: _Block) -> bool:
    """Do these consecutive lines that end in numbers make a table?

    Two rows at least, and none of them a mail or diff header.  A one-column
    block must also look like one: values right-aligned in a column, or
    every label ending in ':' or '=' (``Hits = 9789987``, ``pte_dirty: 5m20s``).
    """
    if block.kind == "vmstat":
        return True
    if len(block.rows) < 2 or any(_NOT_A_LABEL.match(r.label) for r in block.rows):
        return False
    if block.ncols >= 2:
        return True
    ends = {r.cells[-1]["end"] for r in block.rows}
    if max(ends) - min(ends) <= 1:
        return True
    return all(r.label.rstrip().endswith((":", "=")) for r in block.rows)


def _settle_columns(block: _Block, lines, start, src, known) -> None:
    counts = [len(r.cells) for r in block.rows]
    n = max(counts)  # a row is cut short, never long: the widest row has every column
    block.ncols = n
    for r in block.rows:
        if len(r.cells) != n:
            _repair_row(r, n, block)
            _fill_blank_cells(r, n, block)
        if len(r.cells) != n:
            raise _err(src, r, f"{n} value cells, as the other rows of the table starting at line {block.rows[0].no} "
                               f"(found {len(r.cells)})")
    _find_header(block, lines, start, src, known)


def _settle_plain(block: _Block, lines, start, src, known) -> None:
    # /proc/vmstat dump: lowercase counter names, one integer each
    if all(len(r.cells) == 1 and _COUNTER_RE.match(r.label.strip()) and r.cells[0]["decimals"] == 0
           and r.cells[0]["unit"] == "" for r in block.rows):
        if len(block.rows) >= 3:
            block.kind = "vmstat"
            block.ncols = 1
            _vmstat_label(block, lines, start)
            return
    if max(len(r.cells) for r in block.rows) > 1:
        n = max(len(r.cells) for r in block.rows)
        block.ncols = n
        for r in block.rows:
            if len(r.cells) != n:
                _repair_row(r, n, block)
                _fill_blank_cells(r, n, block)
        _find_header(block, lines, start, src, known)
        n = block.ncols
        for r in block.rows:
            if len(r.cells) != n:
                raise _err(src, r, f"{n} value cells, as the other rows of the table starting at line "
                                   f"{block.rows[0].no} (found {len(r.cells)})")
        return
    block.ncols = 1
    _find_header(block, lines, start, src, known)


def _vmstat_label(block: _Block, lines, start) -> None:
    k = start - 1
    while k >= 0 and lines[k].kind == "blank" and lines[k].depth == block.depth:
        k -= 1
    if k >= 0 and lines[k].depth == block.depth and lines[k].kind == "other":
        t = lines[k].text.strip()
        block.title = t
        block.title_line = lines[k].no
        if t.endswith(":") and len(t) <= 40 and " " not in t.rstrip(":").strip():
            block.kernels = [t[:-1].strip()]
            return
    block.kernels = [""]


def _inherit(block: _Block, tables: list[_Block]) -> None:
    for prev in reversed(tables):
        if prev.depth == block.depth and prev.ncols == block.ncols and prev.kernels and prev.header:
            block.kernels = list(prev.kernels)
            block.kernels_from = prev.header[0].no
            block.notes.append(
                f"no header; kernel names taken from the header at line {prev.header[0].no} "
                f"(mmtests prints its monitor sections under the comparison they belong to)"
            )
            return
    block.kernels = [""] * block.ncols


def _continue_under_subheading(block: _Block, lines, start, tables) -> None:
    """Rows under a sub-heading ("(SNC off)") right after the rows of a table in the same columns: the same
    kernels in another setting, so they keep the names of that table's header."""
    sub = lines[start - 1] if start else None
    prev = tables[-1] if tables else None
    if (sub is None or not _SUBHEAD_RE.match(sub.text.strip()) or prev is None or not prev.header
            or prev.kind != block.kind or len({prev.depth, block.depth, sub.depth}) > 1 or prev.ncols != block.ncols
            or prev.last != sub.no - 1 or not all(prev.kernels)
            or any(abs(a - b) > 2 for a, b in zip(_col_edges(prev), _col_edges(block)))):
        return
    block.kernels = list(prev.kernels)
    block.kernels_from = prev.header[0].no
    block.notes.append(f"line {sub.no}: {sub.text.strip()!r} heads more rows of the table above in the same "
                       f"columns; kernel names taken from its header at line {prev.header[0].no}")


def _merge_vmstat(tables: list[_Block]) -> list[_Block]:
    out: list[_Block] = []
    for t in tables:
        p = out[-1] if out else None
        if (p is not None and t.kind == "vmstat" and p.kind == "vmstat" and p.depth == t.depth
                and all(k for k in p.kernels) and t.kernels[0] and t.title_line
                and t.title_line - p.last <= 3):
            p.rows.extend(t.rows)
            p.kernels = p.kernels + t.kernels
            p.notes.append(f"line {t.title_line}: the dump under {t.title!r} is a further column of this table")
            p.ncols += 1
            continue
        out.append(t)
    return out


# --- kernel test robot (lkp-tests) comparisons ---------------------------------------------------------
#
#   d000e073ca2a08ab 89359897983825dbfc08578e7ee          <- the commits compared, one per column
#   ---------------- ---------------------------
#            %stddev     %change         %stddev
#                \          |                \
#        21281 ±147%    +197.5%      63313 ± 84%  numa-meminfo.node0.Shmem
#       263173           -11.7%     232411        will-it-scale.per_process_ops
#         3.32 ± 46%      +1.5        4.82 ± 13%  perf-profile.calltrace...   <- a change in points, no '%'

_LKP_HEAD_RE = re.compile(r"^\s*%stddev\s+%change\b")
_LKP_VAL = r"[-+]?\d+(?:\.\d+)?(?:e[-+]\d+)?"
_LKP_CELL = rf"(?P<v{{c}}>{_LKP_VAL})(?:\s*±\s*(?P<sd{{c}}>\d+(?:\.\d+)?)%)?"
_LKP_CHANGE = rf"(?P<ch{{c}}>[-+]\d+(?:\.\d+)?(?:e[-+]\d+)?%?)"


def _lkp_row_re(k: int) -> re.Pattern:
    cells = _LKP_CELL.format(c=0) + "".join(rf"\s+{_LKP_CHANGE.format(c=c)}\s+{_LKP_CELL.format(c=c)}"
                                           for c in range(1, k))
    return re.compile(rf"^\s*{cells}\s+(?P<metric>[A-Za-z]\S*)\s*$", re.I)


def _lkp_tables(lines: list[_Line], text: str, src: str) -> list[_Block]:
    """The kernel test robot's comparison tables, one column per commit.  Their lines become kind ``lkp``,
    read by no other rule."""
    _lkp_fail_tables(lines, src)
    out = []
    for i, head in enumerate(lines):
        if head.kind != "other" or not _LKP_HEAD_RE.match(head.text):
            continue
        if not re.fullmatch(r"\s*%stddev(?:\s+%change\s+%stddev)+\s*", head.text):
            raise _err(src, head, "a kernel test robot (lkp-tests) header '%stddev  %change  %stddev ...' whole on "
                                  "one line (the mail software broke it and its rows)")
        k = head.text.count("%change") + 1
        row_re = _lkp_row_re(k)
        block = _Block("lkp", head.depth, [], header=[head], ncols=k)
        top = i
        while top > 0 and lines[top - 1].kind == "lkp-fail" and lines[top - 1].depth == head.depth:
            top -= 1  # a fail:runs table right above, under the same commit heads
        above = [ln for ln in lines[max(0, top - 2): top] if ln.depth == head.depth]
        if (len(above) == 2 and re.fullmatch(r"\s*-{8,}(?:\s+-{8,})*\s*", above[1].text)
                and len(above[0].text.split()) == k):
            block.header = above + [head]
            block.kernels = above[0].text.split()
        else:
            block.kernels = [""] * k  # warned about with every table without names
        j = i + 1
        if j < len(lines) and lines[j].depth == head.depth and re.fullmatch(r"\s*\\(?:\s+\|\s+\\)+\s*", lines[j].text):
            block.header.append(lines[j])
            j += 1
        absolute = []
        while j < len(lines) and lines[j].depth == head.depth:
            ln = lines[j]
            m = row_re.match(ln.text)
            if m is None:
                nxt = next((x for x in lines[j:] if x.kind != "blank"), None)
                if ln.kind == "blank" and block.rows and nxt is not None and nxt.depth == head.depth \
                        and row_re.match(nxt.text):
                    j += 1  # lkp parts groups of rows (perf-profile ...) by a blank line: still the same commits
                    continue
                if ln is lines[-1] and not text.endswith(("\n", "\r")):
                    break  # the truncation rule (below): a cut last line is no evidence of damage
                if re.match(r"\s*[-+]?\.?\d", ln.text):  # a row's start: damage, or the table would end unseen
                    raise _err(src, ln, f"a kernel test robot row ('value [± x%]  change  value [± y%]  metric', "
                                        f"{k} commits) like the rows under the header at line {head.no}")
                break
            cells = []
            for c in range(k):
                val, sd, ch = m.group(f"v{c}"), m.group(f"sd{c}"), m.group(f"ch{c}") if c else None
                if ch and not ch.endswith("%"):
                    absolute.append(ln.no)
                cells.append({"value": float(val), "pct": float(ch[:-1]) if ch and ch.endswith("%") else float("nan"),
                              "sig": False, "unit": "", "text": ln.text[m.start(f"v{c}"): m.end(f"sd{c}") + 1 if sd
                                                                       else m.end(f"v{c}")],
                              "decimals": _decimals(val.split("e")[0]), "start": m.start(f"v{c}"),
                              "end": m.end(f"v{c}"), "stddev_pct": float(sd) if sd else float("nan")})
            ln.kind, ln.label, ln.cells = "lkp", m.group("metric"), cells
            block.rows.append(ln)
            j += 1
        cut = lines[-1] if not text.endswith(("\n", "\r")) else None
        if cut is not None and (block.rows[-1:] == [cut] or (lines[j:] == [cut] and cut.depth == head.depth
                                                             and re.match(r"\s*[-+]?\.?\d", cut.text))):
            warnings.warn(TruncatedTraceWarning(
                f"{src}:{cut.no}: truncated last line {cut.raw.strip()[:60]!r} (no newline: the text was cut "
                f"there), dropped; the rows before it were kept"), stacklevel=4)
            if block.rows[-1:] == [cut]:
                block.rows.pop()
            cut.kind, cut.cells = "other", []
        if not block.rows:
            raise _err(src, lines[j] if j < len(lines) else head,
                       f"kernel test robot rows under the header at line {head.no}")
        for h in block.header:
            h.kind = "lkp"
        block.notes.append(
            f"line {head.no}: a kernel test robot (lkp-tests) comparison: kernel is the commit over each column, "
            f"stddev_pct its printed '± x%' (NaN where none is printed), pct the printed %change against the first "
            f"commit (+ is a larger value, not mmtests' + is better)")
        if absolute:
            block.notes.append(f"line(s) {', '.join(map(str, absolute))}: the change is printed in points "
                               f"(no '%'), pct left NaN")
        out.append(block)
    return out


_LKP_FAIL_HEAD_RE = re.compile(r"^\s*fail:runs(?:\s+%reproduction\s+fail:runs)+\s*$")
_LKP_FAIL_ROW_RE = re.compile(r"^\s*(?:\d*:\d+\s+)(?:-?\d+%\s+\d*:\d+\s+)+\S+\s*$")


def _lkp_fail_tables(lines: list[_Line], src: str) -> None:
    """The robot's ``fail:runs  %reproduction  fail:runs`` tables count failed runs (``7:50``), no measured
    value: not read, but never skipped without a word.  Their lines become kind ``lkp-fail``."""
    for i, head in enumerate(lines):
        if head.kind != "other" or not _LKP_FAIL_HEAD_RE.match(head.text):
            continue
        j = i + 1
        while j < len(lines) and lines[j].depth == head.depth and (
                _LKP_FAIL_ROW_RE.match(lines[j].text) or re.fullmatch(r"\s*\|(?:\s+\|)+\s*", lines[j].text)):
            j += 1
        for ln in lines[i:j]:
            ln.kind = "lkp-fail"
        warnings.warn(SkippedLinesWarning(
            f"{src}:{head.no}: a kernel test robot fail:runs table (lines {head.no}-{lines[j - 1].no}) is not read: "
            f"its cells count failed runs ('7:50'), they are no measured values"), stacklevel=5)


def _check_dangling_headers(lines, tables, src) -> None:
    used = {h.no for t in tables for h in t.header} | {t.title_line for t in tables}
    for a, b in zip(lines, lines[1:]):
        if a.no in used or b.no in used:
            continue
        if a.kind != "other" or b.kind != "other" or a.depth != b.depth:
            continue
        ta, tb = a.text.split(), b.text.split()
        if len(ta) < 2 or len(tb) < 1 or len(a.text) - len(a.text.lstrip()) < 4:
            continue
        if not all(_VERSIONISH.match(t) and re.search(r"\d\.\d|\d\.$", t) for t in ta):
            continue
        if not b.text[:1].isspace() or any(t.endswith((":", ",", ";", ")")) for t in tb):
            continue
        # a two-row kernel header; is there a table under it?
        k = b.no  # the index of the line after b (a line's index is its number - 1)
        while k < len(lines) and lines[k].kind in ("ellipsis", "joined"):
            k += 1
        if k < len(lines) and lines[k].kind == "badcmp" and lines[k].depth == b.depth:
            raise _err(src, lines[k], "a table row of 'value ( pct%)' cells under the kernel header at lines "
                                      f"{a.no}-{b.no}: " + lines[k].note)
        if k >= len(lines) or lines[k].kind not in ("compare", "plain") or lines[k].depth != b.depth:
            where = lines[k] if k < len(lines) else b
            raise WorkbookParseError(
                src, where.no if k < len(lines) else b.no,
                f"table rows under the kernel header at lines {a.no}-{b.no} (the table is cut short)",
                where.raw.strip() if k < len(lines) else "<end of text>",
            )


def _to_frame(tables: list[_Block], src: str) -> pd.DataFrame:
    records = []
    meta = {}
    for tid, t in enumerate(tables, 1):
        kernels = t.kernels or [""] * t.ncols
        spread: list[int] = []
        if t.kind == "vmstat":
            # rows of several dumps: column follows the dump they came from
            order_of: dict[str, int] = {}
            bounds = _vmstat_bounds(t)
            for r in t.rows:
                col = bounds(r.no)
                name = r.label.strip()
                if name not in order_of:
                    order_of[name] = len(order_of)
                c = r.cells[0]
                records.append(_record(tid, "", name, kernels[col], c, col, order_of[name], r, "vmstat"))
        else:
            above = None
            for order, r in enumerate(t.rows):
                stat, row = _row_label(r.label) if t.kind not in ("perfstat", "lkp") else ("", r.label.strip())
                if row == _SPREAD_LABEL and not stat and above is not None:
                    # mmtests of 2011 printed each row's spread on the line under it, labelled only "+/-"
                    stat, row = _SPREAD_LABEL, above
                    spread.append(r.no)
                else:
                    above = row
                for col, c in enumerate(r.cells):
                    records.append(_record(tid, stat, row, kernels[col], c, col, order, r, t.kind))
        section = ""
        m = _SECTION_RE.match(t.title or "")
        if m:
            section = m.group(1).lower()
        stats = {_row_label(r.label)[0] for r in t.rows}
        meta[tid] = {
            "first_line": t.first,
            "last_line": t.last,
            "header_lines": [h.no for h in t.header],
            "title": t.title,
            "title_line": t.title_line,
            "section": section,
            "kind": t.kind,
            "kernels": list(kernels),
            "label_title": t.label_title,
            "kernels_from": t.kernels_from,
            "quote": t.depth,
            "layout": t.layout,
            "has_header": bool(t.header),
            "notes": [n for ln in t.header + t.rows for n in ln.line_notes] + list(t.notes) + (
                [f"lines {', '.join(map(str, spread))}: each '+/-' row is the spread of the row above it "
                 f"(mmtests of 2011); read as stat '+/-' of that row"] if spread else []),
            "annotations": [{"line": r.no, "text": r.annotation} for r in t.rows if r.annotation],
            "era": _guess_era(stats, t.layout) if t.kind != "lkp" else "",
            "row_lines": [r.no for r in t.rows],
        }
    df = cells_frame(records, meta)
    df.attrs["source"] = src
    return df


def _vmstat_bounds(t: _Block):
    starts = []
    prev = None
    for r in t.rows:
        if prev is not None and r.no - prev > 1:
            starts.append(r.no)
        prev = r.no
    starts = [t.rows[0].no] + starts

    def col_of(no):
        c = 0
        for k, s in enumerate(starts):
            if no >= s:
                c = k
        return min(c, t.ncols - 1)

    return col_of


def _guess_era(stats: set[str], layout: dict) -> str:
    cw = layout.get("compare_width")
    if "Amean" in stats or "Hmean" in stats:
        return "current" if cw and cw >= 7 else "2015"
    return "2014" if (cw or 6) <= 6 else "current"


def _record(tid, stat, row, kernel, c, col, order, ln: _Line, kind) -> dict:
    return {
        "table": tid,
        "stat": stat,
        "row": row,
        "kernel": kernel,
        "value": c["value"],
        "pct": c["pct"],
        "sig": c["sig"],
        "unit": c["unit"],
        "text": c["text"],
        "decimals": c["decimals"],
        "col": col,
        "order": order,
        "line": ln.no,
        "quote": ln.depth,
        "kind": kind,
        "stddev_pct": c["stddev_pct"],
    }


def parse_file(path: str | Path, max_bytes: int | None = None) -> pd.DataFrame:
    """:func:`parse_text` on a file; errors name the file (and the line, where there is one).

    Only a regular file is read, and at most *max_bytes* (``KWB_MAX_DECOMPRESSED``, 96 MiB, by default): a FIFO
    or ``/dev/zero`` is an error, not a hang.  The text is UTF-8 (a BOM is dropped) or UTF-16 with a BOM (a mail
    saved on Windows); bytes that are neither, or a NUL byte (a binary file), are an error naming the line: a
    mail's numbers are never read through a guessed encoding."""
    from ..inputs import read_capped

    p = Path(path)
    data = read_capped(p, str(p), max_bytes)
    enc, skip = ("utf-16", 0) if data[:2] in (b"\xff\xfe", b"\xfe\xff") else \
        ("utf-8", 3 if data[:3] == b"\xef\xbb\xbf" else 0)
    try:
        text = str(memoryview(data)[skip:], enc, "strict")
    except UnicodeDecodeError as e:
        line = None if enc == "utf-16" else data[:skip + e.start].count(b"\n") + 1
        raise WorkbookParseError(str(p), line, "UTF-8 text (or UTF-16 with a byte-order mark)",
                                 repr(e.object[max(0, e.start - 10): e.end + 10])) from None
    del data
    text = text.removeprefix("\ufeff")
    nul = text.find("\x00")
    if nul >= 0:
        raise WorkbookParseError(str(p), text.count("\n", 0, nul) + 1, "text without NUL bytes (a mail, not a "
                                 "binary file)", text[max(0, nul - 20): nul + 20])
    return parse_text(text, source=str(p))


parse_text.__doc__ = _parse_text.__doc__
