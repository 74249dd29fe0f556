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


def _fio_table(df):
    """fio's totals, one row per job and direction that moved data: bandwidth, IOPS, run time, mean and 99th
    percentile completion latency (the first of fio's JSON or terse names present)."""
    import pandas as pd

    picks = {"bandwidth (KiB/s)": ("bw", "bw_kbs"), "IOPS": ("iops",), "run time (ms)": ("runtime", "runtime_ms"),
             "mean latency (us)": ("lat_ns.mean", "lat_mean_us"),
             "p99 completion latency (us)": ("clat_ns.percentile.99.000000", "clat_pct_99.000000")}
    d = df[df["io_kbytes"] > 0] if "io_kbytes" in df.columns and (df["io_kbytes"] > 0).any() else df
    out = pd.DataFrame({c: d[c] for c in ("jobname", "direction") if c in d.columns})
    for label, names in picks.items():
        name = next((n for n in names if n in d.columns), None)
        if name is not None:
            out[label] = d[name] / 1000.0 if name.startswith(("lat_ns", "clat_ns")) else d[name]
    return Table(out.reset_index(drop=True))


def _counters_by_name(df, monitor: str, title: str) -> list:
    """``vmstat -s``/``-D`` and ``/proc/zoneinfo``: one row per counter (``name``/``counter`` and ``value``).  A
    single snapshot is a table (totals since boot: nothing moves); several snapshots are drawn over time."""
    key = "name" if "name" in df.columns else "counter"
    ids = [c for c in ("node", "zone", "scope", "cpu") if c in df.columns]
    d = df
    if "scope" in d.columns:  # zoneinfo: the zone's own counters (per-cpu pagesets are their own table)
        d = d[d["scope"] != "pageset"] if (d["scope"] != "pageset").any() else d
    label = d[key].astype(str)
    if ids:
        label = (d[[c for c in ids if c in ("node", "zone")]].astype(str).agg(" ".join, axis=1) + " " + label)
    samples = d["sample"].nunique() if "sample" in d.columns else 1
    if samples <= 1:
        t = d.assign(counter=label)[["counter", "value"] + (["unit"] if "unit" in d.columns else [])]
        return [Table(t.reset_index(drop=True)),
                Prose(f"{title or monitor}: one snapshot of {len(t):,} counters (totals since boot): "
                      "nothing to draw over time; record it every second (`kwb record`) for a chart.")]
    wide = d.assign(counter=label).pivot_table(index="sample", columns="counter", values="value",
                                               aggfunc="sum").reset_index()
    wide.columns.name = None
    return None, wide


def _snapshot(frame, monitor: str, title: str) -> list:
    """A time series with one point in time: its counters as a table (a chart of one point says nothing) --
    one row per device or disk when it has several, else one row per counter."""
    import pandas as pd

    names = _numeric(frame)
    if len(frame) > 1:
        keys = [c for c in frame.columns if frame[c].dtype.kind not in "ifb" and frame[c].nunique() > 1]
        t = frame[keys + names].reset_index(drop=True)
        what = f"{len(frame):,} rows of {len(names):,} counters"
    else:
        t = pd.DataFrame({"counter": names, "value": [frame.iloc[0][c] for c in names]})
        what = f"{len(names):,} counters"
    return [Table(t), Prose(f"{title or monitor}: one point in time ({what}): nothing to draw over time; "
                            "a capture taken every second (`kwb record`) gives a chart.")]


def counter_options(df, kind: str) -> list:
    """The counters the explorer offers to pick for a frame: none for a format that is not drawn over time
    (perf stat's totals, perf report, folded stacks, fio, totals since boot, a single point in time)."""
    if (kind in ("perf-stat", "perf-report", "folded", "fio", "fio-json", "fio-terse")
            or "jobname" in df.columns or {"Symbol", "Shared Object"} <= set(df.columns)
            or ("value" in df.columns and {"name", "counter"} & set(df.columns))):
        if not (kind == "perf-stat" and "time" in df.columns and df["time"].notna().any()):
            return []
    try:
        frame, _ = df_chartable(df, kind)
    except (KeyError, ValueError):
        return []
    if frame is None:
        return []
    x = "elapsed" if "elapsed" in frame.columns else "sample"
    if x in frame.columns and frame[x].nunique() <= 1:
        return []
    return _numeric(frame)


def shown(df, monitor: str, counters: list | None = None, title: str = "") -> list:
    """What the explorer shows of one monitor's frame: its chart of the chosen ``counters`` (default: the
    monitor's usual ones), or for ``perf stat`` its counters as a table and a chart (over time with
    ``-I``), a table for a format that is a profile or totals (``perf report``, ``fio``, a single snapshot),
    an icicle for folded stacks, or a sentence saying why there is nothing to draw."""
    from .trace_charts import df_perf_counters, plot_icicle, plot_perf_counters, plot_timeseries

    out = []
    name = title or monitor
    if monitor == "perf-stat" or {"event", "value", "counted"} <= set(df.columns):
        pc = df_perf_counters(df)
        if not len(pc):
            return [Prose(f"{name}: perf stat printed no counter (an empty or cut log)")]
        if not pc["metric"].astype(bool).any():  # -I: perf's metrics are per interval, not the run's
            pc = pc.drop(columns="metric")
        out.append(Table(pc, na={"value": "perf could not count it (see counted)",
                                 "per_second": "no run time in the capture to divide by (perf -x prints no "
                                               "'time elapsed'), or nothing counted",
                                 "variance_pct": "one run: perf prints the variation only with -r"}))
        if not ("time" in df.columns and df["time"].notna().any() and pc["per_second"].notna().any()):
            return out + [plot_perf_counters(pc, title=title or "perf stat")]
        monitor = "perf-stat"  # and over time, below
    if monitor == "perf-report" or {"Symbol", "Shared Object"} <= set(df.columns):
        by = next(c for c in ("Overhead", "Self", "Children") if c in df.columns)
        top = df.sort_values(by, ascending=False).head(20)
        pct = [c for c in ("Children", "Self", "Overhead") if c in top]
        return [Table(top[[c for c in ("event", *pct, "Command", "Shared Object", "Symbol") if c in top]]
                      .reset_index(drop=True), units={c: "%" for c in pct}),
                Prose(f"{name}: a profile of the whole run ({len(df):,} symbols; the 20 heaviest shown), not a "
                      "series: nothing to draw over time.")]
    if monitor == "pyperf-json" or {"benchmark", "run", "value", "warmup"} <= set(df.columns):
        from .trace_charts import df_pyperf_values, plot_pyperf_values

        if not len(df):
            return [Prose(f"{name}: the pyperf file holds no value (an empty or cut result)")]
        return [Table(df_pyperf_values(df), na={"stdev": "one value: no spread to give"}),
                plot_pyperf_values(df, title=name)]
    if monitor == "folded" or list(df.columns) == ["stack", "count"]:
        return [plot_icicle(df, title=name)]
    if monitor in ("fio", "fio-json", "fio-terse") or "jobname" in df.columns:
        return [_fio_table(df), Prose(f"{name}: fio prints one total per job and direction, not a series over "
                                      "time: nothing to draw.")]
    if "value" in df.columns and ({"name", "counter"} & set(df.columns)):
        got = _counters_by_name(df, monitor, title)
        if got[0] is not None:
            return got
        frame, by = got[1], None
    else:
        frame, by = df_chartable(df, monitor)
    if frame is None:
        return out + [Prose(by)]
    opts = _numeric(frame)
    moving = [c for c in opts if frame[c].nunique() > 1]  # a counter that never moves draws a flat line
    cols = [c for c in (counters or DEFAULT_COUNTERS.get(monitor, [])) if c in opts] or (moving or opts)[:4]
    if not cols:
        return out + [Prose(f"{name}: no counter to draw (no numeric column besides time and ids)")]
    x = "elapsed" if "elapsed" in frame.columns else "sample"
    if by is None and frame[x].nunique() <= 1:
        if monitor == "perf-script" or "period" in df.columns:
            per = df.groupby("event").size().rename("samples").reset_index()
            return out + [Table(per), Prose(f"{name}: all {len(df):,} samples fall within one second: nothing to "
                                            "draw over time (`traces.fold` gives their flame graph).")]
        return out + _snapshot(frame, monitor, title)
    return out + [plot_timeseries(frame, cols, title=name, by=by)]


def _short(path) -> str:
    """A path inside the workbook as the repository names it (``data/traces/...``): the same on every machine."""
    from ..paths import repo_root

    try:
        return str(Path(path).resolve().relative_to(repo_root().resolve()))
    except ValueError:
        return str(path)


def command_line(manifest: dict) -> str:
    """The bundle's command as typed in the folder it ran in (the manifest's ``cwd``): an argument inside that
    folder is shown relative to it.  The manifest keeps the absolute paths of the machine that recorded it;
    a notebook shows the command the same on every machine, not the recorder's checkout."""
    cwd = manifest.get("cwd") or ""
    pre = cwd.rstrip("/") + "/"

    def rel(a: str) -> str:
        if cwd and pre in a:  # an argument or an option's value (--output=PATH)
            return a.replace(pre, "")
        return a

    return " ".join(rel(str(a)) for a in manifest["command"])


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
        display(Prose(f"`{_short(default)}`"), *([_summary_table(summ)] if summ is not None else [_file_line(obj)]))
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
            plottable, _ = df_chartable(df, kind) if counter_options(df, kind) else (None, "")
        except WorkbookError as e:
            with chart:
                display(Prose(str(e)))
            return
        opts = counter_options(df, kind)
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
