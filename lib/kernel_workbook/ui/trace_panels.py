"""The trace explorer widget of notebooks/explore-your-traces: a path, what was found, chosen counters.

Every format it loads shows something: a bundle its monitors (with the seconds each spans and the
tool's version, or a word why there is none), a time series its chart, ``perf stat`` its counters as a
table and a chart (per second of the run, or over time with ``-I``), anything else a sentence saying why
there is nothing to draw.  In ``WORKBOOK_MODE=ci`` there is no widget JavaScript (nbval, ``make
report``), so the explorer shows what it found for the default path and its default chart statically,
and returns None (the pattern of :func:`kernel_workbook.ui.panels.table_explorer`).
"""

from __future__ import annotations

from pathlib import Path

import ipywidgets as w
from IPython.display import display

from ..config import mode
from ..errors import WorkbookError
from ..frames import Prose, Table

DEFAULT_COUNTERS = {"vmstat": ["us", "sy", "wa", "free", "bi", "bo"],
                    "iostat": ["r/s", "rkB/s", "r_await", "aqu-sz"],
                    "proc-vmstat": ["pgscan_kswapd", "pgsteal_kswapd", "pgfault", "nr_free_pages"]}


def shipped() -> list[str]:
    """Every bundle shipped in data/traces (folders holding a manifest.json)."""
    from ..traces import shipped_captures

    root = shipped_captures()
    return sorted(str(p.parent) for p in root.rglob("manifest.json"))


def reclaim_shown(pv) -> list:
    """Fengguang Wu's 2007 loop over a ``/proc/vmstat`` series, as the notebook shows it: the seconds in which
    reclaim scanned (elapsed, ratio, steal, scan), then the whole run's kswapd and direct-reclaim figures in
    a sentence.  A capture in which nothing was scanned says so instead of an empty table and a NaN
    efficiency."""
    from ..traces import df_reclaim_2007, reclaim_summary

    loop = df_reclaim_2007(pv, per_interval=True)
    busy = loop[loop["scan"] > 0][["elapsed", "ratio", "steal", "scan"]]
    s = reclaim_summary(pv)

    def eff(v) -> str:
        return f"{v:.1f}%" if v == v else "none (nothing scanned)"

    if not len(busy):
        return [Prose(f"Reclaim never ran in these {s['elapsed']:.0f} s: kswapd and direct reclaim scanned no page "
                      "(every interval's `pgscan` is 0), so there is no efficiency to compute. The machine never ran "
                      "short of free memory; the 2007 loop needs a capture under memory pressure.")]
    return [Table(busy, units={"elapsed": "s", "ratio": "%", "steal": "pages", "scan": "pages"}),
            Prose(f"Whole run: kswapd scanned {s['kswapd_scan']:,.0f} pages and reclaimed {s['kswapd_steal']:,.0f} "
                  f"(efficiency {eff(s['kswapd_efficiency'])}); direct reclaim scanned {s['direct_scan']:,.0f} "
                  + (f"({s['direct_percentage']:.1f}% of all scans, efficiency {eff(s['direct_efficiency'])})."
                     if s["direct_scan"] else "(it never ran)."))]


def _summary_table(summ):
    return Table(summ, units={"seconds": "s"}, na={k: v for k, v in SUMMARY_NA.items() if k in summ.columns})


def _file_line(obj):
    fmt = obj.attrs.get("format", "a trace")
    return Prose(f"**{fmt}**: {len(obj):,} rows; columns {', '.join(f'`{c}`' for c in obj.columns)}")


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


SUMMARY_NA = {"seconds": "the log has no timestamps to measure its span by",
              "version": "this log does not show which version wrote it (the bundle's manifest names the tools)"}


def df_summary(bundle):
    """One row per monitor log of a bundle: ``monitor, kind, rows, columns, seconds, version`` (and ``test``
    when the bundle has several).  ``seconds`` is also measured for the logs whose time is a column of
    their own (``perf stat -I``, ``perf script``), where the bundle's summary has none."""
    summ = bundle.summary()
    cols = ["monitor"] + (["test"] if summ["test"].nunique() > 1 else []) + ["kind", "rows", "columns", "seconds",
                                                                           "version"]
    out = summ[cols].copy()
    for i, r in out.iterrows():
        if r["seconds"] == r["seconds"]:
            continue
        try:
            df = bundle.load(r["monitor"])
        except WorkbookError:
            continue
        if "time" in df.columns and df["time"].notna().any():
            t = df["time"].dropna()
            out.at[i, "seconds"] = float(t.max() - (t.min() if r["kind"] != "perf-stat" else 0.0))
    return out


def shown(df, monitor: str, counters: list | None = None, title: str = "") -> list:
    """What the explorer shows of one monitor's frame: its chart of the chosen ``counters`` (default: the
    monitor's usual ones), or for ``perf stat`` its counters as a table and a chart (over time with
    ``-I``), or a sentence saying why there is nothing to draw."""
    from ..frames import Prose, Table
    from .trace_charts import df_perf_counters, plot_perf_counters, plot_timeseries

    out = []
    if monitor == "perf-stat" or {"event", "value", "counted"} <= set(df.columns):
        pc = df_perf_counters(df)
        if not len(pc):
            return [Prose(f"{title or monitor}: perf stat printed no counter (an empty or cut log)")]
        if not pc["metric"].astype(bool).any():  # -I: perf's metrics are per interval, not the run's
            pc = pc.drop(columns="metric")
        out.append(Table(pc, na={"value": "perf could not count it (see counted)",
                                 "per_second": "nothing counted, or no run time to divide by",
                                 "variance_pct": "one run: perf prints the variation only with -r"}))
        if not pc["per_second"].notna().any():
            out.append(Prose("No chart: the capture gives no run time to put the counters per second on."))
        elif "time" in df.columns and df["time"].notna().any():
            monitor = "perf-stat"  # and over time, below
        else:
            return out + [plot_perf_counters(pc, title=title or "perf stat")]
    frame, by = df_chartable(df, monitor)
    if frame is None:
        return out + [Prose(by)]
    opts = _numeric(frame)
    moving = [c for c in opts if frame[c].nunique() > 1]  # a counter that never moves draws a flat line
    cols = [c for c in (counters or DEFAULT_COUNTERS.get(monitor, [])) if c in opts] or (moving or opts)[:4]
    if not cols:
        return out + [Prose(f"{title or monitor}: no counter to draw (no numeric column besides time and ids)")]
    return out + [plot_timeseries(frame, cols, title=title or monitor, by=by)]


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
            return obj, df_summary(obj)
        return obj, None

    if mode().name == "ci":
        obj, summ = summarize(default)
        display(Prose(f"`{default}`"), *([_summary_table(summ)] if summ is not None else [_file_line(obj)]))
        df = obj.load(monitor) if summ is not None else obj
        display(*shown(df, monitor if summ is not None else obj.attrs.get("format", monitor),
                       title=f"{Path(default).name}: {monitor}"))
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
        with counters.hold_sync():
            counters.options = []
        with mon.hold_sync():
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
                display(Prose(f"**Could not load it:** {e}"))
            return
        state["obj"] = obj
        with info:
            display(_summary_table(summ) if summ is not None else _file_line(obj))
        state["loading"] = True  # one redraw for the new bundle, not one per list filled
        with mon.hold_sync():
            mon.options = monitors
            mon.value = monitor if monitor in monitors else monitors[0]
        state.pop("loading")
        on_monitor()

    def frame():
        obj = state["obj"]
        if hasattr(obj, "load") and mon.value != "(file)":
            return obj.load(mon.value), mon.value
        return obj, obj.attrs.get("format", "(file)")

    def on_monitor(_=None):
        if "obj" not in state or state.get("loading") or mon.value is None:
            return
        chart.clear_output()
        try:
            df, kind = frame()
            plottable, _ = df_chartable(df, kind)
        except WorkbookError as e:
            with chart:
                display(Prose(str(e)))
            return
        opts = _numeric(plottable) if plottable is not None else []
        moving = [c for c in opts if plottable[c].nunique() > 1]
        state["loading"] = True
        # options and value in one message: sent apart, the browser applied a value to the old options
        # ("Error setting state: Cannot set properties of undefined (setting 'selected')")
        with counters.hold_sync():
            counters.options = opts
            counters.value = tuple(c for c in DEFAULT_COUNTERS.get(kind, []) if c in opts) or tuple((moving or opts)[:4])
        counters.layout.display = None if opts else "none"  # nothing to pick: a perf stat total, a fio summary
        state.pop("loading")
        on_counters()

    def on_counters(_=None):
        if "obj" not in state or state.get("loading"):
            return
        chart.clear_output(wait=True)
        df, kind = frame()
        with chart:
            display(*shown(df, kind, list(counters.value),
                           title=Path(pick.value).name if mon.value == "(file)" else mon.value))

    go.on_click(on_load)
    mon.observe(on_monitor, names="value")
    counters.observe(on_counters, names="value")
    on_load()
    return w.VBox([w.HBox([pick, go]), info, w.HBox([mon, counters]), chart])
