"""Printed text that fits the lab's output area at 1280 px.

JupyterLab wraps a long output line at the edge of the output area, breaking
words and starting the rest at column 0 (it has no setting to scroll instead,
jupyterlab#9405): a table's last column or a sentence after a table's fields
falls apart into fragments.  At 1280 x 720 with the file browser open the area
holds 107 characters of the monospace font (measured in Chromium; 139 with it
closed), so everything the workbook prints as prose or as a frame is laid out
to :data:`WIDTH`.  mmtests tables are the exception: they are printed exactly as
mmtests prints them (``tables.render``), up to :data:`TABLE_WIDTH` characters (five
kernels of 2014), which fit once the file browser is closed.

:func:`fit` wraps long lines under the column they belong to; :func:`frame_text`
prints a frame so that it fits (a long prose column is wrapped under itself,
many columns are split into blocks as pandas does).
"""

from __future__ import annotations

import re
import textwrap

import pandas as pd

WIDTH = 104
"""Characters per printed line (the output area at 1280 px, file browser open, holds 107)."""
TABLE_WIDTH = 136
"""The widest table row left as it is (the output area at 1280 px, file browser closed, holds 139)."""

_GAP = re.compile(r"\S( {2,})(?=\S)")
_PROSE_MIN = 40  # a text column whose longest value is longer than this is prose


def fit(text: str, width: int = WIDTH, hang: int | None = None) -> str:
    """``text`` with every line longer than ``width`` wrapped under its own column.

    A table's row (three or more gaps of two spaces between fields) up to
    :data:`TABLE_WIDTH` is kept as it is: wrapping would break the table.  A line
    of a few fields (``key  value  reason``) continues under the last field that
    starts in its first 60 %; any other line continues under its own indent (two
    more after a ``*``/``-`` bullet), or at ``hang`` when given.  Shorter lines are
    kept as they are.
    """
    out = []
    for line in text.split("\n"):
        gaps = [m.end(1) for m in _GAP.finditer(line)]
        if len(line) <= width or (len(gaps) >= 3 and len(line) <= TABLE_WIDTH):
            out.append(line)
            continue
        line = line.rstrip()
        at, cont = _hang(line, [g for g in gaps if g <= 0.6 * width], width, hang)
        out.append(textwrap.fill(line[at:], width, initial_indent=line[:at], subsequent_indent=" " * cont,
                                 break_long_words=True, break_on_hyphens=False))
    return "\n".join(out)


def _hang(line: str, gaps: list[int], width: int, hang: int | None) -> tuple[int, int]:
    """Where the wrapped text starts on the first line, and where the lines after it start."""
    if gaps:
        return gaps[-1], gaps[-1]
    indent = len(line) - len(line.lstrip(" "))
    if line[indent:indent + 2] in ("* ", "- "):
        indent += 2
    if indent > 0.6 * width:
        indent = 4
    return indent, indent if hang is None else hang


def beneath(text: str, width: int = WIDTH, indent: int = 4) -> str:
    """``text`` as one paragraph indented by ``indent``, wrapped at ``width``: what belongs to the line above."""
    pad = " " * indent
    return textwrap.fill(text, width, initial_indent=pad, subsequent_indent=pad, break_on_hyphens=False)


def frame_text(df: pd.DataFrame, width: int = WIDTH, index: bool = False, **kw) -> str:
    """``df.to_string(index=index, **kw)`` laid out to ``width``.

    A frame that fits is printed exactly as ``to_string`` prints it.  One that does
    not: its last column, when it is prose (text longer than 40 characters), is
    printed left-aligned and wrapped under itself (beneath each row, indented,
    when the other columns leave it too little room); otherwise the columns are
    split into blocks (``to_string(line_width=width)``).
    """
    text = df.to_string(index=index, **kw)
    if max((len(x) for x in text.split("\n")), default=0) <= width or not len(df.columns):
        return text
    last = df.columns[-1]
    prose = df[last].astype(str)
    others = df.iloc[:, :-1]
    if index:  # the index as the first columns, its names (or nothing) as their headers
        others = others.rename_axis([n or "" for n in df.index.names]).reset_index()
    if not pd.api.types.is_numeric_dtype(df[last]) and prose.str.len().max() > _PROSE_MIN and len(others.columns):
        left = others.to_string(index=False, **kw).split("\n")
        nh = len(left) - len(df)  # the header line(s)
        col = max(len(x) for x in left) + 2
        if col <= 0.6 * width:  # beside the other columns, wrapped under its own
            rows = [left[0].ljust(col) + str(last), *left[1:nh]]
            for head, value in zip(left[nh:], prose):
                lines = textwrap.wrap(value, width - col, break_on_hyphens=False) or [""]
                rows.append(head.ljust(col) + lines[0])
                rows.extend(" " * col + r for r in lines[1:])
            return "\n".join(rows)
        if col <= width + 2:  # beneath each row, indented
            rows = left[:nh]
            for head, value in zip(left[nh:], prose):
                rows.append(head)
                rows.append(beneath(f"{last}: {value}", width))
            return "\n".join(rows)
    return fit(df.to_string(index=index, line_width=width, **kw), width)
