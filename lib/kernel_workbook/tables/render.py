"""Print a table the way mmtests prints it (text), or for a notebook (Markdown, HTML).

Text layout, as mmtests ``Compare.pm`` + ``PrintGeneric.pm``:

* header: ``%{label}s`` then ``%{cell}s`` per kernel, two rows: the run name
  split at its first ``-`` (after an ``-rcN``), i.e. ``3.16.0-rc1`` over
  ``vanilla``;
* rows: ``%-{stat}s %-{op}s`` then per kernel ``%{field}.2f`` and
  `` (%{compare}.2f%%)``; a significant percentage prints as `` *%7.2f%%*``.

A kernel test robot table (kind ``lkp``) prints in the robot's own layout:
the first commit's ``value ± x%``, then per commit its ``%change`` and value.

A table that came from :func:`~kernel_workbook.tables.parse.parse_text`
carries its measured widths (``attrs["tables"][n]["layout"]``), so it prints
back in the widths the mail showed; a computed table takes the era's widths.
"""

from __future__ import annotations

import html
import math
import re
import textwrap

import pandas as pd

from ..errors import WorkbookParameterError
from ..textfit import TABLE_WIDTH
from .eras import get_era

FORMATS = ("text", "markdown", "html")


def fmt_duration(seconds: float, decimals: int = 0) -> str:
    """``244`` -> ``4m04s`` (the format of Dave Chinner's xfs_repair table)."""
    if seconds != seconds:
        return "NaN"
    m, s = divmod(seconds, 60)
    if decimals:
        return f"{int(m)}m{s:0{3 + decimals}.{decimals}f}s"
    return f"{int(m)}m{int(round(s)):02d}s"


def fmt_value(value: float, unit: str = "", decimals: int = 2) -> str:
    if value != value:
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if unit == "s":
        return fmt_duration(value, decimals)
    if unit == "%":
        return f"{value:.{decimals}f}%"
    if unit == "events":
        return f"{value:,.{decimals}f}"
    return f"{value:.{decimals}f}"


def fmt_pct(pct: float, width: int, sig: bool = False, decimals: int = 2) -> str:
    body = f"{pct:{width}.{decimals}f}%"
    return f" *{body}*" if sig else f" ({body})"


def split_run_name(name: str) -> tuple[str, str]:
    """mmtests' two header rows from a run name.

    ``3.16.0-rc1-vanilla`` -> (``3.16.0-rc1``, ``vanilla``); a label that
    already holds both rows (``3.16.0-rc1 vanilla``) splits at the space.
    """
    if " " in name.strip():
        a, b = name.strip().split(" ", 1)
        return a, b
    i = name.find("-")
    if i < 0:
        return name, ""
    if name[i:i + 4][:3] == "-rc" and name[i + 3:i + 4].isdigit():
        j = name.find("-", i + 1)
        if j < 0:
            return name, ""
        i = j
    return name[:i], name[i + 1:]


def _tables(cells: pd.DataFrame, order: list):
    present = list(dict.fromkeys(cells["table"]))
    known = [t for t in order if t in set(present)]
    for tid in known + [t for t in present if t not in set(known)]:
        yield tid, cells[cells["table"] == tid]


def render(cells: pd.DataFrame, era=None, fmt: str = "text", layout: dict | None = None,
           title: bool = False, note: bool = True) -> str:
    """Render every table in ``cells``.

    Parameters
    ----------
    cells : DataFrame
        A cells frame (from ``parse_text``, ``published`` or ``compare``).
    era : str, optional
        ``2014``, ``2015``, ``2017`` or ``current``: widths and names for a
        table that has no measured layout.  Default: the table's own era if it
        has one, else ``current``.
    fmt : {"text", "markdown", "html"}
    layout : dict, optional
        Override widths: ``label_width, stat_width, row_width, field_width,
        compare_width, cell_width``.
    title : bool
        Print the table's title line above it (text) / as a caption.
    note : bool
        Add the significance note under a table that marks significance.
    """
    if fmt not in FORMATS:
        raise WorkbookParameterError("fmt", fmt, "one of " + ", ".join(FORMATS))
    out = []
    metas = cells.attrs.get("tables") or {}
    # pandas deep-copies attrs on every slice; work on a frame without them
    bare = cells.copy(deep=False)
    bare.attrs = {}
    for tid, t in _tables(bare, list(metas)):
        meta = dict(metas.get(tid) or metas.get(str(tid)) or {})
        era_obj = get_era(era or meta.get("era") or "current")
        lay = dict(meta.get("layout") or {})
        if era is not None and not meta.get("layout"):
            lay = {}
        lay.update(layout or {})
        if fmt == "text":
            out.append(_text(t, meta, era_obj, lay, title, note))
        elif fmt == "markdown":
            out.append(_markdown(t, meta, title, note))
        else:
            out.append(_html(t, meta, title, note))
    return "\n\n".join(out) + ("\n" if fmt == "text" and out else "")


def _ordered(t: pd.DataFrame):
    kern = t.drop_duplicates("col").sort_values("col")
    rows = t.drop_duplicates("order").sort_values("order")
    return list(kern["kernel"]), list(kern["col"]), rows


def _header_rows(kernels: list[str], meta: dict) -> list[list[str]]:
    hdr = (meta.get("layout") or {}).get("header")
    if hdr and all(len(r) == len(kernels) for r in hdr):
        return [list(r) for r in hdr]
    parts = [split_run_name(k) for k in kernels]
    if any(b for _, b in parts):
        return [[a for a, _ in parts], [b for _, b in parts]]
    if any(kernels):
        return [kernels]
    return []


def _widest(head: list[list[str]]) -> int:
    return max((len(h) for hr in head for h in hr), default=0)


def _wrap_header(head: list[list[str]], width: int) -> list[list[str]]:
    """Each column's name (its header rows joined) wrapped at ``width``, bottom-aligned over the rows."""
    names = [" ".join(p for p in parts if p) for parts in zip(*head)] if head else []
    wrapped = [textwrap.wrap(n, width, break_long_words=False, break_on_hyphens=False) or [""] for n in names]
    depth = max((len(w) for w in wrapped), default=0)
    cols = [[""] * (depth - len(w)) + w for w in wrapped]
    return [list(r) for r in zip(*cols)]


def _place(items: list[tuple[str, int]], lead: str = "") -> str:
    """Right-align each name at its end column; a name that does not fit runs on."""
    buf = lead
    for name, end in items:
        if not name:
            continue
        start = max(end - len(name), len(buf))
        buf = buf + " " * (start - len(buf)) + name
    return buf.rstrip()


def _text(t: pd.DataFrame, meta: dict, era, lay: dict, title: bool, note: bool) -> str:
    kind = t["kind"].iloc[0]
    lines = []
    if title and meta.get("title"):
        lines.append(meta["title"])
    if kind == "vmstat":
        lines.extend(_text_vmstat(t))
        return "\n".join(lines)
    if kind == "perfstat":
        for _, r in t.sort_values("order").iterrows():
            spread = f" ( +- {r.stddev_pct:5.2f}% )" if r.stddev_pct == r.stddev_pct else ""
            lines.append(f"{perf_value(r):>18}      {r.row:<25}{spread}".rstrip())
        return "\n".join(lines)
    if kind == "lkp":
        lines.extend(_text_lkp(t))
        return "\n".join(lines)
    kernels, cols, rows = _ordered(t)
    compare = kind == "compare"
    has_stat = (rows["stat"] != "").any()
    compare_w = int(lay.get("compare_width") or era.compare_width)
    field_w = int(lay.get("field_width") or era.field_width)
    cell_w = int(lay.get("cell_width") or (field_w + (compare_w + 4 if compare else 0)))
    indent = int(lay.get("indent") or 0)
    stat_w = int(lay.get("stat_width") or (rows["stat"].str.len().max() if has_stat else 0))
    row_w = int(lay.get("row_width") or rows["row"].str.len().max())
    if has_stat:
        label_w = int(lay.get("label_width") or (indent + stat_w + 1 + row_w))
    else:
        label_w = int(lay.get("label_width") or (indent + row_w + 1))
    head = _header_rows(kernels, meta)
    if not lay.get("edges"):
        # our own layout (not measured from a mail): long names wrap over more header rows (six kernels
        # named as in 2011's mail would otherwise make a 300-character table), then make room for the rest
        if _widest(head) + 2 > cell_w:
            head = _wrap_header(head, max(cell_w - 2, 16))
        if label_w + len(cols) * max(cell_w, _widest(head) + 2) > TABLE_WIDTH:
            # still wider than the lab shows at 1280 px: values as wide as they need, names wrapped to match
            need = max(len(fmt_value(c.value, c.unit, int(c.decimals))) for c in t.itertuples()) + 2
            if need < field_w:
                cell_w -= field_w - need
                field_w = need
                head = _wrap_header(head, max(cell_w - 2, 14))
        longest = _widest(head)
        if longest + 2 > cell_w:
            field_w += longest + 2 - cell_w
            cell_w = longest + 2
    if compare and not lay.get("field_width"):
        field_w = cell_w - compare_w - 4
    pct_dec = int(lay.get("pct_decimals", 2))
    edges = lay.get("edges") or []
    # mmtests prints with printf, cell after cell; only a table whose columns
    # were not evenly spaced (typed by hand) is placed by its measured edges
    gaps = {b - a for a, b in zip(edges, edges[1:])}
    measured = len(edges) == len(cols) and all(edges) and len(gaps) > 1
    zero_pad = lay.get("duration_zero_pad", True)
    if meta.get("has_header", True):
        ends_rows = lay.get("header_ends") or []
        label_title = meta.get("label_title", "")
        for k, hr in enumerate(head):
            ends = ends_rows[k] if k < len(ends_rows) else [None] * len(hr)
            items = [(h, e if e is not None else label_w + (j + 1) * cell_w) for j, (h, e) in enumerate(zip(hr, ends))]
            lead = label_title if (label_title and k == len(head) - 1) else ""
            lines.append(_place(items, lead))
    by = {(r.order, r.col): r for r in t.itertuples()}
    pad = " " * indent
    for r in rows.itertuples():
        if lay.get("irregular"):
            label = pad + (f"{r.stat} {r.row}" if r.stat else r.row)
        elif has_stat and r.stat:
            label = f"{pad}{r.stat:<{stat_w}} {r.row:<{row_w}}"
        else:
            label = f"{pad}{r.row:<{label_w - indent}}"
        buf = label
        for j, c in enumerate(cols):
            cell = by.get((r.order, c))
            if cell is None:
                buf += " " * cell_w
                continue
            v = fmt_value(cell.value, cell.unit, int(cell.decimals))
            if cell.unit == "s" and not zero_pad:
                v = re.sub(r"m0(\d)", r"m\1", v)
            text = f"{v:>{field_w}}" + (_pct_part(cell, compare_w, pct_dec) if compare else "")
            if lay.get("irregular"):
                buf = buf.rstrip() + " " + text.lstrip()
            elif measured:
                # the column's right edge as the mail showed it; at least one
                # space before a cell the archive had run into its neighbour
                end = edges[j]
                core = text.lstrip()
                start = max(end - len(core), len(buf.rstrip()) + 1)
                buf = buf.rstrip() + " " * (start - len(buf.rstrip())) + core
            else:
                buf += text
        lines.append(buf.rstrip())
    sig_note = meta.get("significance")
    if note and t["sig"].any():
        lines.append(sig_note or "* marked significant in the source (the method is not stated there)")
    return "\n".join(lines)


def _pct_part(cell, width: int, decimals: int) -> str:
    # a cell the source printed without its percentage (mmtests' "Gmean Higher" rows of a --print-ratio
    # table) prints so again, as spaces: "( nan%)" would claim a percentage the source never had
    if pd.isna(cell.pct) and cell.text and not re.search(r"[(*]", cell.text):
        return " " * (width + 4)
    return fmt_pct(cell.pct, width, bool(cell.sig), decimals)


def _text_lkp(t: pd.DataFrame) -> list[str]:
    """The kernel test robot's layout: the first commit's column (value ``± x%``), then per commit the
    %change against it and its value; the metric last.  A change the mail printed in points (``pct``
    NaN) is left blank: the cells keep only changes in percent."""
    kernels, cols, rows = _ordered(t)
    by = {(r.order, r.col): r for r in t.itertuples()}

    def value(c, width: int) -> str:
        sd = "" if c.stddev_pct != c.stddev_pct else f" ±{c.stddev_pct:3.0f}%"
        return f"{fmt_value(c.value, c.unit, int(c.decimals)):>{width}}{sd:<6}"

    def change(c) -> str:
        if c.pct != c.pct:
            return " " * 11
        return f"{c.pct:+.1e}%".rjust(11) if abs(c.pct) >= 1e5 else f"{c.pct:+.1f}%".rjust(11)

    widths = [16] + [27] * (len(cols) - 1)
    lines = [" ".join(f"{k:<{w}}" for k, w in zip(kernels, widths)),
             " ".join("-" * w for w in widths),
             f"{'%stddev':>16}" + f"{'%change':>12}{'%stddev':>16}" * (len(cols) - 1),
             f"{chr(92):>14}  " + f"{'|':>9}{chr(92):>17}  " * (len(cols) - 1)]
    for r in rows.itertuples():
        buf = ""
        for j, col in enumerate(cols):
            c = by.get((r.order, col))
            if c is None:
                buf += " " * (16 if j == 0 else 28)
                continue
            buf += value(c, 10) if j == 0 else change(c) + value(c, 11)
        lines.append(f"{buf}  {r.row}")
    return [ln.rstrip() for ln in lines]


def _text_vmstat(t: pd.DataFrame) -> list[str]:
    lines = []
    for c, g in t.groupby("col", sort=True):
        k = g["kernel"].iloc[0]
        if lines:
            lines.append("")
        if k:
            lines.extend([f"{k}:", ""])
        for r in g.sort_values("order").itertuples():
            lines.append(f"{r.row} {fmt_value(r.value, r.unit, int(r.decimals))}")
    return lines


def perf_value(r) -> str:
    """A perf stat count as perf printed it: events grouped by thousands, times in the unit the row names
    (``msec task-clock`` holds seconds, as every time in a table, and prints in msec: 906.01, not 0.91),
    ``<not supported>`` as printed."""
    if r.value != r.value:
        return r.text if str(r.text).startswith("<") else "NaN"
    d = int(r.decimals)
    if r.unit == "events":
        return f"{r.value:,.{d}f}"
    if r.unit == "s" and (r.row.startswith("msec") or r.row.endswith("(msec)")):
        return f"{r.value * 1000:,.{d}f}"
    return f"{r.value:.{d}f}"


def _cell_plain(r) -> str:
    if getattr(r, "kind", "") == "perfstat":
        v = perf_value(r)
        return v + (f" (± {r.stddev_pct:.2f}%)" if r.stddev_pct == r.stddev_pct else "")
    v = fmt_value(r.value, r.unit, int(r.decimals))
    if r.pct == r.pct:
        v += f" ({r.pct:.2f}%)"
    if r.sig:
        v += " *"
    if r.stddev_pct == r.stddev_pct:
        v += f" (± {r.stddev_pct:.2f}%)"
    return v


def _markdown(t: pd.DataFrame, meta: dict, title: bool, note: bool) -> str:
    kernels, cols, rows = _ordered(t)
    has_stat = (rows["stat"] != "").any()
    head = (["Stat"] if has_stat else []) + ["Row"] + [k or f"column {c + 1}" for k, c in zip(kernels, cols)]
    out = []
    if title and meta.get("title"):
        out.append(f"**{meta['title']}**\n")
    out.append("| " + " | ".join(_md_escape(h) for h in head) + " |")
    out.append("|" + "|".join(["---"] * (1 if has_stat else 0) + ["---"] + ["---:"] * len(cols)) + "|")
    by = {(r.order, r.col): r for r in t.itertuples()}
    for r in rows.itertuples():
        cells = ([r.stat] if has_stat else []) + [r.row]
        cells += [_cell_plain(by[(r.order, c)]) if (r.order, c) in by else "" for c in cols]
        out.append("| " + " | ".join(_md_escape(x) for x in cells) + " |")
    if note and t["sig"].any():
        out.append("\n" + (meta.get("significance") or "* marked significant in the source"))
    return "\n".join(out)


def _md_escape(s: str) -> str:
    return str(s).replace("|", "\\|").replace("*", "\\*") if s not in ("*",) else s


def _html(t: pd.DataFrame, meta: dict, title: bool, note: bool) -> str:
    kernels, cols, rows = _ordered(t)
    has_stat = (rows["stat"] != "").any()
    e = html.escape
    out = ['<table class="kwb-table">']
    cap = meta.get("title") if title else ""
    if cap:
        out.append(f"<caption>{e(cap)}</caption>")
    head = _header_rows(kernels, meta) or [[f"column {c + 1}" for c in cols]]
    out.append("<thead>")
    for hr in head:
        lead = "<th></th>" * ((2 if has_stat else 1))
        out.append("<tr>" + lead + "".join(f'<th style="text-align:right">{e(h)}</th>' for h in hr) + "</tr>")
    out.append("</thead><tbody>")
    by = {(r.order, r.col): r for r in t.itertuples()}
    for r in rows.itertuples():
        tds = (f"<td>{e(r.stat)}</td>" if has_stat else "") + f"<td>{e(r.row)}</td>"
        for c in cols:
            cell = by.get((r.order, c))
            if cell is None:
                tds += "<td></td>"
                continue
            style = "text-align:right;font-family:monospace"
            if cell.pct == cell.pct and cell.col != cols[0]:
                if cell.pct > 0:
                    style += ";color:#1a7f37"
                elif cell.pct < 0:
                    style += ";color:#b42318"
            if cell.sig:
                style += ";font-weight:bold"
            tds += f'<td style="{style}">{e(_cell_plain(cell))}</td>'
        out.append(f"<tr>{tds}</tr>")
    out.append("</tbody></table>")
    if note and t["sig"].any():
        out.append(f"<p><small>{e(meta.get('significance') or '* marked significant in the source')}</small></p>")
    return "\n".join(out)
