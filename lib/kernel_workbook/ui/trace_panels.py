"""The trace explorer widget of notebooks/explore-your-traces: a path, what was found, chosen counters.

In ``WORKBOOK_MODE=ci`` there is no widget JavaScript (nbval, ``make report``), so the explorer prints
what it found for the default path and draws the default chart statically, and returns None (the
pattern of :func:`kernel_workbook.ui.panels.table_explorer`).
"""

from __future__ import annotations

from pathlib import Path

import ipywidgets as w
from IPython.display import display

from ..config import mode
from ..errors import WorkbookError

DEFAULT_COUNTERS = {"vmstat": ["us", "sy", "wa", "free", "bi", "bo"],
                    "iostat": ["r/s", "rkB/s", "r_await", "aqu-sz"],
                    "proc-vmstat": ["pgscan_kswapd", "pgsteal_kswapd", "pgfault", "nr_free_pages"]}


def shipped() -> list[str]:
    """Every bundle shipped in data/traces (folders holding a manifest.json)."""
    from ..traces import shipped_captures

    root = shipped_captures()
    return sorted(str(p.parent) for p in root.rglob("manifest.json"))


def _numeric(df):
    skip = {"sample", "time", "elapsed", "iteration", "since_boot"}
    return [c for c in df.columns if c not in skip and df[c].dtype.kind in "if"]


def trace_explorer(path: str | None = None, monitor: str = "vmstat"):
    """Pick a bundle or file, see what it holds, chart the counters you choose."""
    from ..traces import load
    from .trace_charts import plot_timeseries

    default = path or shipped()[0]

    def summarize(p):
        obj = load(p)
        if hasattr(obj, "summary"):
            return obj, obj.summary()[["monitor", "test", "kind", "rows", "columns", "seconds", "version"]]
        return obj, None

    if mode().name == "ci":
        obj, summ = summarize(default)
        print(f"{default}:")
        if summ is not None:
            print(summ.to_string(index=False))
            df = obj.load(monitor)
        else:
            df = obj
        cols = [c for c in DEFAULT_COUNTERS.get(monitor, []) if c in df.columns] or _numeric(df)[:4]
        display(plot_timeseries(df, cols, title=f"{Path(default).name}: {monitor}"))
        return None

    pick = w.Combobox(value=default, options=shipped(), description="path", ensure_option=False,
                      layout=w.Layout(width="720px"))
    go = w.Button(description="load")
    mon = w.Dropdown(description="monitor")
    counters = w.SelectMultiple(description="counters", rows=8, layout=w.Layout(width="420px"))
    info = w.Output()
    chart = w.Output()
    state = {}

    def on_load(_=None):
        info.clear_output()
        chart.clear_output()
        try:
            obj, summ = summarize(pick.value)
        except WorkbookError as e:
            with info:
                print(e)
            return
        state["obj"] = obj
        with info:
            print(summ.to_string(index=False) if summ is not None else
                  f"{obj.attrs.get('format')}: {len(obj)} rows, columns {', '.join(map(str, obj.columns))}")
        mon.options = obj.monitors() if summ is not None else ["(file)"]
        mon.value = monitor if monitor in mon.options else mon.options[0]
        on_monitor()

    def frame():
        obj = state["obj"]
        return obj.load(mon.value) if hasattr(obj, "load") and mon.value != "(file)" else obj

    def on_monitor(_=None):
        try:
            df = frame()
        except WorkbookError as e:
            with chart:
                print(e)
            return
        opts = _numeric(df)
        counters.options = opts
        counters.value = tuple(c for c in DEFAULT_COUNTERS.get(mon.value, []) if c in opts) or tuple(opts[:4])
        on_counters()

    def on_counters(_=None):
        chart.clear_output(wait=True)
        if not counters.value:
            return
        with chart:
            display(plot_timeseries(frame(), list(counters.value), title=mon.value))

    go.on_click(on_load)
    mon.observe(on_monitor, names="value")
    counters.observe(on_counters, names="value")
    on_load()
    return w.VBox([w.HBox([pick, go]), info, w.HBox([mon, counters]), chart])
