"""Does ``render(parse(text))`` give the text back?

For every table of a text, compare the lines the table occupied (header rows
and data rows, quote marks removed) with the lines :func:`render` prints.
Three verdicts per table: ``exact`` (byte for byte, trailing blanks aside),
``normalised`` (runs of whitespace collapsed to one space) and ``spaceless``.
"""

from __future__ import annotations

import re

import pandas as pd

from .parse import _dequote, parse_text
from .render import render


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def roundtrip_report(text: str, source: str | None = None, era: str | None = None) -> pd.DataFrame:
    """One row per table: ``table, first_line, kind, exact, normalised, spaceless, first_difference``.

    ``spaceless`` compares with every blank removed: true for a table whose only
    damage is spacing an archive collapsed (the 2012 thread).
    """
    cells = parse_text(text, source)
    src_lines = text.splitlines()
    rows = []
    for tid, meta in cells.attrs["tables"].items():
        t = cells[cells["table"] == tid]
        t.attrs = {**cells.attrs}
        wanted_nos = list(meta["header_lines"]) + list(meta["row_lines"])
        if meta["kind"] == "vmstat":
            wanted_nos = list(meta["row_lines"])
        original = [_dequote(src_lines[n - 1])[1] for n in sorted(wanted_nos)]
        out = render(t, era=era).rstrip("\n").split("\n")
        out = [ln for ln in out if ln.strip() and not ln.strip().endswith(":")] if meta["kind"] == "vmstat" else out
        if meta["kind"] == "perfstat":
            out = [ln for ln in out if ln.strip()]
        exact = [ln.rstrip() for ln in original] == [ln.rstrip() for ln in out]
        normalised = [_norm(ln) for ln in original] == [_norm(ln) for ln in out]
        # with every blank removed: what is left when an archive collapsed the spacing
        spaceless = [re.sub(r"\s+", "", ln) for ln in original] == [re.sub(r"\s+", "", ln) for ln in out]
        diff = ""
        if not normalised:
            for a, b in zip(original + [""] * len(out), out + [""] * len(original)):
                if _norm(a) != _norm(b):
                    diff = f"{a.strip()!r} != {b.strip()!r}"
                    break
        elif not exact:
            for a, b in zip(original, out):
                if a.rstrip() != b.rstrip():
                    diff = f"{a!r} != {b!r}"
                    break
        rows.append({
            "table": tid,
            "first_line": meta["first_line"],
            "kind": meta["kind"],
            "exact": exact,
            "normalised": normalised,
            "spaceless": spaceless,
            "first_difference": diff,
        })
    return pd.DataFrame(rows, columns=["table", "first_line", "kind", "exact", "normalised", "spaceless", "first_difference"])
