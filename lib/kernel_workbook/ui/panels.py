"""Widget panels shared by the notebooks."""

from __future__ import annotations

import html

import ipywidgets as w
import pandas as pd
from IPython.display import HTML, display

from ..config import mode
from ..frames import Preformatted
from ..tables import published, published_tables, render
from ..threads import THREADS
from .charts import plot_pct_change


def provenance(meta: dict) -> str:
    """One line saying where a published table comes from."""
    bits = [meta.get("author", ""), meta.get("date", "")]
    subj = meta.get("subject", "")
    where = f"data/threads/{meta.get('thread', '')}.txt lines {meta.get('lines', '')}"
    q = meta.get("quoted_at") or []
    quoted = f"; quoted again at line{'s' if len(q) > 1 else ''} {', '.join(map(str, q))}" if q else ""
    status = " (curated by hand)" if meta.get("status") == "curated" else ""
    return f"{', '.join(b for b in bits if b)}: {subj} — {where}{quoted}{status}"


def table_html(thread: str, table: str) -> str:
    """Title, provenance, machine and the mmtests text of one published table, as HTML."""
    cells = published(thread, table)
    meta = cells.attrs["tables"][table]
    parts = [f"<b>{html.escape(meta['title'])}</b>", f"<small>{html.escape(provenance(meta))}</small>"]
    if meta.get("machine"):
        parts.append(f"<small>machine: {html.escape(meta['machine'])}</small>")
    if not meta.get("has_header", True):
        parts.append(f"<small>(printed without a header; columns: {html.escape(', '.join(meta['kernels']))})</small>")
    body = "<br>".join(parts)
    return body + Preformatted(render(cells))._repr_html_()


def show_table(thread: str, table: str, chart: bool = True) -> None:
    """Display one published table: provenance, mmtests text, and its change chart."""
    display(HTML(table_html(thread, table)))
    cells = published(thread, table)
    if chart and cells["kernel"].nunique() > 1:
        display(plot_pct_change(cells, table))


def table_explorer(thread: str | None = None, table: str | None = None) -> w.VBox | None:
    """Pick a thread and one of its tables; see it printed and charted.

    In ``WORKBOOK_MODE=ci`` (nbval, ``make report``) there is no widget
    JavaScript to draw the menus, so the chosen table is shown statically and
    nothing is returned.
    """
    threads = list(THREADS)
    if mode().name == "ci":
        t0 = thread or threads[0]
        show_table(t0, table or published_tables(t0)["table"].iloc[0])
        return None
    t0 = thread or threads[0]
    pick_thread = w.Dropdown(options=threads, value=t0, description="thread", layout=w.Layout(width="360px"))
    pick_table = w.Dropdown(description="table", layout=w.Layout(width="360px"))
    text = w.HTML()
    chart = w.Output()

    def tables_of(th: str) -> list[tuple[str, str]]:
        tt = published_tables(th)
        # the menu names the table by its id, whole at 1280x720 (a title cut to fit read
        # "(fair..."); the whole title heads the text below
        return [(r.table, r.table) for r in tt.itertuples()]

    def on_thread(change=None):
        opts = tables_of(pick_thread.value)
        want = table if (change is None and table and any(v == table for _, v in opts)) else opts[0][1]
        pick_table.options = opts
        pick_table.value = want

    def on_table(change=None):
        if not pick_table.value:
            return
        text.value = table_html(pick_thread.value, pick_table.value)
        chart.clear_output(wait=True)
        cells = published(pick_thread.value, pick_table.value)
        if cells["kernel"].nunique() > 1:
            with chart:
                display(plot_pct_change(cells, pick_table.value))

    pick_thread.observe(on_thread, names="value")
    pick_table.observe(on_table, names="value")
    on_thread()
    on_table()
    return w.VBox([w.HBox([pick_thread, pick_table]), text, chart])


def thread_summary() -> pd.DataFrame:
    """How many tables and numbers each thread contributes."""
    t = published_tables()
    c = published()
    counts = c.groupby("thread").size().rename("numbers")
    s = t.groupby("thread").agg(tables=("table", "count"),
                                curated=("status", lambda x: int((x == "curated").sum())))
    s = s.join(counts)
    s.index.name = "thread"
    return s.loc[[th for th in THREADS if th in s.index]].reset_index()
