"""Altair charts of tables (LISA naming: ``df_*`` gives the data, ``plot_*`` the chart)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..config import mode
from ..tables.cells import table_meta


def df_pct_change(cells: pd.DataFrame, table=None) -> pd.DataFrame:
    """Percentage change of every cell against the table's baseline column.

    Columns: ``table, stat, row, label, kernel, col, order, value, base,
    pct, printed, sig``.  ``pct`` is the printed mmtests percentage
    (positive = better) where the table prints one (``printed`` True);
    otherwise the plain relative change ``(value/base - 1) * 100``, whose sign
    says nothing about better or worse.
    """
    t = cells if table is None else cells[cells["table"] == table]
    out = []
    for tid, g in t.groupby("table", sort=False):
        meta = table_meta(cells, tid)
        base_k = meta.get("baseline") or g.loc[g["col"] == g["col"].min(), "kernel"].iloc[0]
        if base_k not in set(g["kernel"]):
            base_k = g.loc[g["col"] == g["col"].min(), "kernel"].iloc[0]
        base = g[g["kernel"] == base_k].set_index(["stat", "row"])["value"]
        for r in g.itertuples():
            if r.kernel == base_k:
                continue
            b = base.get((r.stat, r.row), float("nan"))
            if r.pct == r.pct and _first_col_is(g, base_k):
                pct, printed = r.pct, True
            else:
                pct = (r.value / b - 1) * 100 if b and b == b else float("nan")
                printed = False
            out.append({
                "table": tid, "stat": r.stat, "row": r.row,
                "label": f"{r.stat} {r.row}".strip(), "kernel": r.kernel, "col": r.col, "order": r.order,
                "value": r.value, "base": b, "pct": pct, "printed": printed, "sig": bool(r.sig),
            })
    return pd.DataFrame(out, columns=["table", "stat", "row", "label", "kernel", "col", "order", "value",
                                      "base", "pct", "printed", "sig"])


def _first_col_is(g: pd.DataFrame, kernel: str) -> bool:
    return g.loc[g["col"] == g["col"].min(), "kernel"].iloc[0] == kernel


def plot_pct_change(cells: pd.DataFrame, table=None, title: str | None = None) -> alt.Chart:
    """Bars of the change against the baseline, one bar per kernel and row.

    Significant cells (as printed, or as computed by ``compare``) are drawn
    with a black outline; the caption states the method.
    """
    d = df_pct_change(cells, table)
    m = mode()
    tid = table if table is not None else (d["table"].iloc[0] if len(d) else None)
    meta = table_meta(cells, tid) if tid is not None else {}
    printed = bool(d["printed"].all()) if len(d) else False
    xtitle = "change vs baseline, % (mmtests: positive = better)" if printed else "change vs baseline, % (value/base - 1)"
    sort = list(dict.fromkeys(d.sort_values("order")["label"]))
    base = alt.Chart(d).encode(
        y=alt.Y("label:N", sort=sort, title=None),
        yOffset=alt.YOffset("kernel:N", sort=list(dict.fromkeys(d.sort_values("col")["kernel"]))),
        color=alt.Color("kernel:N", sort=list(dict.fromkeys(d.sort_values("col")["kernel"])), title="kernel"),
        tooltip=["label", "kernel", alt.Tooltip("value:Q", format=",.2f"), alt.Tooltip("base:Q", format=",.2f"),
                 alt.Tooltip("pct:Q", format="+.2f"), "sig"],
    )
    bars = base.mark_bar().encode(
        x=alt.X("pct:Q", title=xtitle),
        stroke=alt.condition("datum.sig", alt.value("black"), alt.value(None)),
        strokeWidth=alt.condition("datum.sig", alt.value(2), alt.value(0)),
    )
    zero = alt.Chart(pd.DataFrame({"x": [0]})).mark_rule(color="gray").encode(x="x:Q")
    height = max(120, min(m.height * 2, 18 * max(1, len(d))))
    subtitle = [f"baseline: {meta.get('baseline', '')}"] if meta.get("baseline") else []
    if d["sig"].any():
        subtitle.append(meta.get("significance") or "outlined: marked significant in the source")
    chart = (bars + zero).properties(
        width=m.width, height=height,
        title=alt.TitleParams(title or meta.get("title") or str(tid or ""), subtitle=subtitle),
    )
    return chart


def plot_values(cells: pd.DataFrame, x: str = "row", title: str | None = None) -> alt.Chart:
    """Values of one table as lines over its rows (e.g. throughput against readers)."""
    m = mode()
    d = cells.copy()
    d["label"] = (d["stat"] + " " + d["row"]).str.strip()
    sort = list(dict.fromkeys(d.sort_values("order")["label"]))
    return alt.Chart(d).mark_line(point=True).encode(
        x=alt.X("label:N", sort=sort, title=None),
        y=alt.Y("value:Q", title="value"),
        color=alt.Color("kernel:N", sort=list(dict.fromkeys(d.sort_values("col")["kernel"]))),
        tooltip=["label", "kernel", alt.Tooltip("value:Q", format=",.2f")],
    ).properties(width=m.width, height=m.height, title=title or "")
