"""Frames and prose as a person reads them: HTML tables in the lab, aligned text everywhere else.

:class:`Table` wraps a frame: JupyterLab shows it as an HTML table (a pandas
``Styler``) with one number format per column, units in the headers, signed
changes coloured, and missing values shown as a dash that a note under the
table explains; its ``text/plain`` form -- what nbval compares in a checked
cell, and what a terminal prints -- holds exactly the same formatted values.
:class:`Prose` is Markdown with the same two faces.  The lab lays out and
wraps both itself, so nothing here counts characters; the mmtests tables
alone stay preformatted text, exactly as mmtests prints them
(``tables.render``).

Number formats, decided per column so a column never mixes ``1.697587e+08``
with ``28362752.00``: whole numbers with thousands separators; other
numbers with thousands separators and two decimals (where the whole column is
below 1, the decimals that give its smallest number three significant digits); a column named as a change (``*_delta_pct``, ``pub d%``, ...) or
listed in ``signed`` with its sign, coloured (green/red where positive is
better, as in mmtests' percentages: ``better=True``; blue/orange where the
sign only says up or down).
"""

from __future__ import annotations

import hashlib
import html
import math
import re
from typing import Callable, Iterable

import pandas as pd

DASH = "–"
NO_MATH = "tex2jax_ignore mathjax_ignore"
"""Classes that keep the lab's MathJax off a block: a shell's ``f1_$I f2_$I`` is not a formula."""

# column names the workbook's frames share: the header a person reads (unit in brackets)
HEADERS = {
    "published_delta_pct": "published change (%)",
    "model_delta_pct": "model change (%)",
    "pub d%": "published change (%)",
    "model d%": "model change (%)",
    "|err| pts": "|error| (points)",
    "noise_pts": "noise (points)",
}
SIGNED = {"published_delta_pct", "model_delta_pct", "pub d%", "model d%", "delta_pct", "change_pct", "pct",
          "change %", "change (%)"}

_GREEN, _RED, _BLUE, _ORANGE = "#1a7f37", "#c62828", "#1f5fa8", "#b35900"


def _finite(s: pd.Series) -> list[float]:
    out = []
    for v in s:
        if isinstance(v, bool) or v is None:
            continue
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if math.isfinite(f):
            out.append(f)
    return out


def _is_numeric(s: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(s):
        return False
    if pd.api.types.is_numeric_dtype(s):
        return True
    vals = [v for v in s if not _missing(v)]
    return bool(vals) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)


def _missing(v) -> bool:
    if v is None:
        return True
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _label(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def number_format(values: Iterable[float], signed: bool = False) -> Callable[[float], str]:
    """One format for a whole column of numbers (module docstring)."""
    vals = list(values)
    sign = "+" if signed else ""
    # a change is read beside another change: always with decimals, so +38 stands as +38.00 beside +3.00
    if not signed and vals and all(float(v).is_integer() for v in vals) and max(abs(v) for v in vals) < 1e15:
        return lambda v: f"{v:{sign},.0f}"
    m = max((abs(v) for v in vals), default=0.0)
    if m >= 1 or m == 0:
        return lambda v: f"{v:{sign},.2f}"
    smallest = min(abs(v) for v in vals if v)
    d = min(6, max(2, 2 - math.floor(math.log10(smallest))))  # three significant digits of the smallest
    return lambda v: f"{v:{sign}.{d}f}"


class Table:
    """``df`` shown as an HTML table in the lab and as aligned text elsewhere.

    ``units``: ``{column: unit}``, written into the header (``published (MB/s)``);
    ``formats``: ``{column: format string or function}`` instead of the column's
    own number format; ``signed``: columns shown with their sign and coloured
    (``True``: every column; the columns named as changes are, anyway); ``better``: True when a
    positive change is better (mmtests' percentages), so signs are coloured
    green and red; ``index``: show the frame's index; ``caption``: a title
    above; ``na``: what a missing value means (the note under the table, or
    ``{column: meaning}``; a table with a missing value and no ``na`` says only
    that the cell is empty);
    ``notes``: more lines under the table; ``rows``: each row is a quantity of
    its own (counters down the side, runs across), so each row gets its
    number format instead of each column.
    """

    def __init__(self, df: pd.DataFrame, *, units: dict | None = None, formats: dict | None = None,
                 signed: Iterable[str] | bool = (), better: bool = False, index: bool = False, caption: str = "",
                 na: str | dict | None = None, notes: Iterable[str] = (), headers: dict | None = None,
                 rows: bool = False):
        self.df = df
        self.units = dict(units or {})
        self.formats = dict(formats or {})
        names = {str(c) for c in df.columns}
        self.signed = names if signed is True else (set(map(str, signed or ())) | (SIGNED & names))
        self.better = better
        self.index = index
        self.caption = caption
        self.na = na
        self.notes = list(notes)
        self.headers = {**HEADERS, **(headers or {})}
        self.rows = rows

    # ---- the cells as strings
    def _header(self, col) -> str:
        if isinstance(col, tuple):  # a pivot's columns: their levels side by side
            return " ".join(_label(x) for x in col)
        name = self.headers.get(str(col), str(col))
        unit = self.units.get(col)
        return f"{name} ({unit})" if unit else name

    def _formatter(self, col) -> Callable:
        s = self.df[col]
        given = self.formats.get(col)
        if isinstance(given, str):
            fmt = given
            given = lambda v: fmt.format(v)  # noqa: E731
        if given is None and pd.api.types.is_bool_dtype(s):
            given = lambda v: "yes" if v else "no"  # noqa: E731
        if given is None and _is_numeric(s):
            given = number_format(_finite(s), signed=str(col) in self.signed)
        if given is None:
            given = str
        return lambda v: DASH if _missing(v) else given(v)

    def strings(self) -> pd.DataFrame:
        """The frame as the table shows it: every cell a string, the headers with their units."""
        if getattr(self, "_strings", None) is not None:
            return self._strings
        cols = list(self.df.columns)
        if self.rows:  # each row a quantity of its own (counters down the side): one format per row
            body = []
            for _, r in self.df.iterrows():
                f = number_format(_finite(r)) if _is_numeric(r) else str
                body.append([DASH if _missing(v) else f(v) for v in r])
            out = pd.DataFrame(body, index=self.df.index, columns=range(len(cols)))
        else:
            fmts = [self._formatter(c) for c in cols]
            out = pd.DataFrame({i: [fmts[i](v) for v in self.df[c]] for i, c in enumerate(cols)},
                               index=self.df.index, columns=range(len(cols)))
        out.columns = [self._header(c) for c in cols]
        self._strings = out
        return out

    def _has_missing(self) -> bool:
        return any(_missing(v) for c in self.df.columns for v in self.df[c])

    def footnotes(self) -> list[str]:
        out = []
        if isinstance(self.na, dict):  # a meaning per column
            for c in self.df.columns:
                if any(_missing(v) for v in self.df[c]):
                    out.append(f"{DASH} in {self._header(c)}: {self.na.get(c, 'no value')}")
        elif self._has_missing():
            out.append(f"{DASH} {self.na}" if self.na else f"{DASH} no value")
        return out + self.notes

    # ---- the two faces
    def text(self) -> str:
        """Aligned text (what nbval compares and a terminal prints): the same strings as the HTML table."""
        s = self.strings()
        body = s.to_string(index=self.index) if len(s.columns) else "(no columns)"
        if not len(s):
            body = "(no rows) " + ", ".join(s.columns)
        lines = ([self.caption] if self.caption else []) + [body] + self.footnotes()
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.text()

    __str__ = __repr__

    def _repr_pretty_(self, p, cycle):
        p.text(self.text())

    def styler(self):
        """The pandas ``Styler`` of the HTML table (columns styled by position: two may share a header)."""
        s = self.strings().copy()
        labels = list(s.columns)
        s.columns = range(len(labels))
        cols = list(self.df.columns)
        numeric = [j for j, c in enumerate(cols) if _is_numeric(self.df[c])]
        signed = [j for j, c in enumerate(cols) if str(c) in self.signed]
        long_text = [j for j in range(len(cols)) if j not in numeric and len(s) and s[j].str.len().max() > 32]
        up, down = (_GREEN, _RED) if self.better else (_BLUE, _ORANGE)

        def colours(d: pd.DataFrame) -> pd.DataFrame:
            out = pd.DataFrame("", index=d.index, columns=d.columns)
            for j in signed:
                v = d[j]
                out[j] = [f"color: {up}" if x.startswith("+") and x.strip("+0.,") else
                          f"color: {down}" if x.startswith(("-", "\u2212")) and x.strip("-\u22120.,") else ""
                          for x in v]
            return out

        for j in range(len(cols)):
            if j not in numeric:
                s[j] = s[j].map(_html_text)
        st = s.style.relabel_index([_html_header(h) for h in labels], axis="columns")
        st = st.set_uuid(f"kwb{hashlib.sha1(self.text().encode()).hexdigest()[:10]}")  # stable from run to run
        if not self.index:
            st = st.hide(axis="index")
        if signed:
            st = st.apply(colours, axis=None)
        styles = [
            {"selector": "td, th", "props": "padding: 2px 6px; vertical-align: top"},
            {"selector": "th", "props": "text-align: left; white-space: normal"},
            {"selector": "caption", "props": "caption-side: top; text-align: left; font-weight: bold; "
                                             "padding-bottom: 4px"},
            {"selector": "", "props": "font-variant-numeric: tabular-nums; border-collapse: collapse; "
                                      "margin-bottom: 4px"},
            # labels (a row, a kernel) wrap only between their words, where the table needs it to fit
            {"selector": "td", "props": "text-align: left; white-space: normal"},
            {"selector": "span.kwb-nw", "props": "white-space: nowrap"},
        ]
        styles += [{"selector": f"td.col{j}", "props": "white-space: nowrap"} for j in numeric]
        styles += [{"selector": f"td.col{j}", "props": "text-align: right"} for j in numeric]
        styles += [{"selector": f"td.col{j}", "props": "white-space: normal; min-width: 20em; max-width: 40em"}
                   for j in long_text]
        st = st.set_table_styles(styles)
        if self.caption:
            st = st.set_caption(html.escape(self.caption))
        return st

    def _repr_html_(self) -> str:
        notes = "".join(f"<div style='font-size: 90%'>{html.escape(n)}</div>" for n in self.footnotes())
        return f"<div class='kwb-table {NO_MATH}'>{self.styler().to_html()}{notes}</div>"


def _html_header(label: str) -> str:
    """A header as HTML: it may break after an underscore (``kswapd_congestion_wait_s`` over three lines),
    so that a table of a dozen counters keeps each column as narrow as its numbers."""
    return html.escape(label).replace("_", "_<wbr>")


def _html_text(cell: str) -> str:
    """A text cell as HTML: it may wrap between its words but never inside one (``3.16.0-rc1`` stays whole:
    the browser would break it after its hyphen)."""
    words = html.escape(cell).split(" ")
    if len(words) < 2:
        return words[0]
    return " ".join(f"<span class='kwb-nw'>{w}</span>" if re.search(r"[-/]", w) else w for w in words)


class Prose:
    """Markdown prose (numbers in sentences): rendered in the lab, the same text elsewhere.  A ``$`` outside
    a code span is a dollar sign (``f1_$I`` in a command line), never the start of a formula."""

    def __init__(self, text: str):
        self.text = text

    @classmethod
    def bullets(cls, items) -> "Prose":
        """A Markdown list, one ``* item`` line per item (a miss, a note, a variant with what it does)."""
        return cls("\n".join(f"* {item}" for item in items))

    def _repr_markdown_(self) -> str:
        parts = self.text.split("`")
        return "`".join(p if i % 2 else p.replace("$", "\\$") for i, p in enumerate(parts))

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def _repr_pretty_(self, p, cycle):
        p.text(self.text)


class Text(str):
    """A string (printed, compared, searched as one) that a notebook shows as the Markdown ``md``."""

    md: str = ""

    def __new__(cls, text: str, md: str | None = None):
        obj = super().__new__(cls, text)
        obj.md = text if md is None else md
        return obj

    def _repr_markdown_(self) -> str:
        return self.md

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


class Preformatted:
    """Text whose layout is its meaning (an mmtests table): shown exactly, in a monospace block that scrolls
    sideways rather than wrap (``wrap``: prose with aligned parts, whose long lines wrap at a space)."""

    def __init__(self, text: str, title: str = "", wrap: bool = False):
        self.text, self.title, self.wrap = text, title, wrap

    def __repr__(self) -> str:
        return (self.title + "\n" if self.title else "") + self.text

    __str__ = __repr__

    def _repr_pretty_(self, p, cycle):
        p.text(repr(self))

    def _repr_html_(self) -> str:
        head = f"<b>{html.escape(self.title)}</b>" if self.title else ""
        ws = "pre-wrap" if self.wrap else "pre; overflow-x: auto"
        return (f"<div class='{NO_MATH}'>{head}<pre style='white-space: {ws}; margin: 2px 0 8px 0'>"
                f"{html.escape(self.text)}</pre></div>")


class Listing:
    """Entries of a heading and a sentence (a reproduction's misses with their reasons): an HTML list in the
    lab; as text, each heading then its sentence indented beneath it."""

    def __init__(self, items: Iterable[tuple[str, str]]):
        self.items = list(items)

    def __repr__(self) -> str:
        return "\n".join(f"  {h} —\n    {t}" for h, t in self.items) if self.items else "  none"

    __str__ = __repr__

    def _repr_pretty_(self, p, cycle):
        p.text(repr(self))

    def _repr_html_(self) -> str:
        if not self.items:
            return "<p>none</p>"
        return (f"<ul class='{NO_MATH}'>" + "".join(f"<li><b>{html.escape(h)}</b> — {html.escape(t)}</li>"
                                                   for h, t in self.items) + "</ul>")


class Attached(dict):
    """A dict for ``df.attrs`` whose values (model runs) ride along with a frame uncopied.

    pandas deep-copies ``attrs`` into every frame derived from one (a column, ``set_index``, ``.T``): two
    model runs there (numpy arrays) were copied about 1,300 times a redraw, most of the 2014 allocator
    explorer's 200 ms.  The runs are never changed after they are made, so every copy may be this one.
    """

    def __deepcopy__(self, memo) -> "Attached":
        return self


def show(df: pd.DataFrame, **kw) -> Table:
    """``Table(df, **kw)``: the last line of a cell shows it as a table (a notebook's ``display`` of a frame)."""
    return Table(df, **kw)


__all__ = ["Table", "Prose", "Text", "Preformatted", "Listing", "show", "number_format", "HEADERS", "DASH"]
