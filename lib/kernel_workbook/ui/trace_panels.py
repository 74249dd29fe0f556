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
    # identifiers, not counters: a buddyinfo "node" is not something that rises and falls
    skip = {"sample", "time", "elapsed", "iteration", "since_boot", "node", "block", "groupid", "cpu"}
    return [c for c in df.columns if c not in skip and df[c].dtype.kind in "if"]


def df_chartable(df, monitor: str):
    """A monitor's frame in the shape the time-series chart draws: ``(frame, by)``, or ``(None, why)``.

    perf stat is long (one row per event and interval): one column per event over ``elapsed``.
    perf script is one row per sample: samples per second of each event.  buddyinfo has one row per
    zone and snapshot: each zone is its own line (``by="zone"``), not one zig-zag through all three.
    fio prints one total per job and direction, not a series: there is nothing to draw over time.
    """
    import pandas as pd

    if monitor == "perf-stat" or {"event", "value", "time"} <= set(df.columns) and "period" not in df.columns:
        wide = df.pivot_table(index="time", columns="event", values="value", aggfunc="sum").reset_index()
        wide.columns.name = None
        wide["elapsed"] = wide["time"] - wide["time"].min()
        return wide, None
    if monitor == "perf-script" or {"event", "period", "time"} <= set(df.columns):
        sec = (df["time"] - df["time"].min()).floordiv(1.0).rename("elapsed")
        wide = df.groupby([sec, df["event"]]).size().unstack("event", fill_value=0).reset_index()
        wide.columns.name = None
        return wide, None
    if "zone" in df.columns:
        d = df.copy()
        d["zone"] = ("node " + d["node"].astype(str) + " " + d["zone"].astype(str)) if "node" in d else d["zone"]
        return d, "zone"
    if monitor == "fio" or "jobname" in df.columns:
        return None, "fio reports one total per job and direction, not a series over time: see the table above"
    if not any(c in df.columns for c in ("elapsed", "sample")):
        return None, f"{monitor}: no time column (elapsed or sample) to draw against"
    return pd.DataFrame(df), None


def trace_explorer(path: str | None = None, monitor: str = "vmstat"):
    """Pick a bundle or file, see what it holds, chart the counters you choose."""
    from ..traces import load
    from .trace_charts import plot_timeseries

    default = path or shipped()[0]

    def summarize(p):
        obj = load(p)
        if hasattr(obj, "monitors") and not obj.monitors():
            raise WorkbookError(f"{p}: no monitor log found (expected a kwb record bundle, an mmtests log tree "
                                "or one trace file)")
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
        df, by = df_chartable(df, monitor)
        if df is None:
            print(by)
            return None
        cols = [c for c in DEFAULT_COUNTERS.get(monitor, []) if c in df.columns] or _numeric(df)[:4]
        display(plot_timeseries(df, cols, title=f"{Path(default).name}: {monitor}", by=by))
        return None

    pick = w.Combobox(value=default, options=shipped(), description="path", ensure_option=False,
                      layout=w.Layout(width="720px"))
    go = w.Button(description="load")
    mon = w.Dropdown(description="monitor")
    counters = w.SelectMultiple(description="counters", rows=8, layout=w.Layout(width="420px"))
    info = w.Output()
    chart = w.Output()
    state = {}

    def forget():
        # a path that fails to load must not leave the last bundle's monitors and counters offered
        state.clear()
        counters.options = []
        mon.options = []

    def on_load(_=None):
        info.clear_output()
        chart.clear_output()
        try:
            obj, summ = summarize(pick.value)
            monitors = obj.monitors() if summ is not None else ["(file)"]
        except (WorkbookError, OSError) as e:
            forget()
            with info:
                print(e)
            return
        state["obj"] = obj
        with info:
            print(summ.to_string(index=False) if summ is not None else
                  f"{obj.attrs.get('format')}: {len(obj)} rows, columns {', '.join(map(str, obj.columns))}")
        state["loading"] = True  # one redraw for the new bundle, not one per list filled
        mon.options = monitors
        mon.value = monitor if monitor in monitors else monitors[0]
        state.pop("loading")
        on_monitor()

    def frame():
        obj = state["obj"]
        df = obj.load(mon.value) if hasattr(obj, "load") and mon.value != "(file)" else obj
        return df_chartable(df, mon.value)

    def on_monitor(_=None):
        if "obj" not in state or state.get("loading") or mon.value is None:
            return
        chart.clear_output()
        try:
            df, by = frame()
        except WorkbookError as e:
            with chart:
                print(e)
            return
        if df is None:
            counters.options = []
            with chart:
                print(by)
            return
        opts = _numeric(df)
        state["loading"] = True
        counters.options = opts
        counters.value = tuple(c for c in DEFAULT_COUNTERS.get(mon.value, []) if c in opts) or tuple(opts[:4])
        state.pop("loading")
        on_counters()

    def on_counters(_=None):
        if "obj" not in state or state.get("loading"):
            return
        chart.clear_output(wait=True)
        if not counters.value:
            return
        df, by = frame()
        with chart:
            display(plot_timeseries(df, list(counters.value), title=mon.value, by=by))

    go.on_click(on_load)
    mon.observe(on_monitor, names="value")
    counters.observe(on_counters, names="value")
    on_load()
    return w.VBox([w.HBox([pick, go]), info, w.HBox([mon, counters]), chart])
