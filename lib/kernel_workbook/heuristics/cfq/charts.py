"""Charts and explorers of the disk/CFQ model (LISA naming: ``df_*`` data, ``plot_*`` charts).

* :func:`df_readers_sweep` / :func:`plot_throughput_vs_readers` /
  :func:`plot_await_percentiles` -- tiobench SeqRead against the number of
  readers, the model beside the published table;
* :func:`df_timeline` / :func:`plot_timeline` -- which queue held the disk,
  when CFQ idled, what was dispatched, for a few queues;
* :func:`df_aio_variants` / :func:`plot_aio_variants` -- the 2011 variants;
* :func:`df_counters` -- CFQ's counters of a few runs side by side;
* :func:`runs_deep_marking` (2011) and :func:`runs_target_latency` (2014) --
  the runs, with their events logged, that the threads' notebooks draw with
  :func:`plot_timeline` and count with :func:`df_counters`;
* :func:`df_capture_beside_model` / :func:`plot_capture_beside_model` -- a
  real iostat capture and the model on one chart;
* :func:`cfq_explorer` and :func:`deep_idle_explorer` -- the knobs as widgets,
  built by :func:`kernel_workbook.ui.explorer.explorer` from the knob
  declaration (in ``WORKBOOK_MODE=ci`` drawn once, statically).

Every chart's width comes from ``config.mode()`` and its legend sits under
the plot, so a chart fits a 1280x720 projector at the slides size.  A
series keeps its colour whatever else is drawn (fixed scale domains).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
import html

import altair as alt
import numpy as np
import pandas as pd

from ...config import mode
from ...models.cfq import PRESETS, RAID_LSI1078_2011, WL_TYPE_NAMES, IOParams, Result, cfq_for_kernel, simulate
from ...tables import compare, render
from . import aio_stress, tiobench
from ...frames import Preformatted, Table
from ...ui.charts import LiveChart
from ...ui.explorer import Runs, explorer

READERS = (1, 2, 4, 8, 16)
SWEEP_MB = 64.0  # MB per SeqRead run in a slider update (the benchmark's "default-size run")

DEEP_VARIANTS = {
    "pristine (3.1/3.16)": {},
    "mark_cfqq_deep commented out": {"cfq_mark_cfqq_deep": False},
    "w/o 8e1ac6655104": {"cfq_clear_cfqq_deep_fast_device": False},
    "always clear deep": {"cfq_clear_cfqq_deep_unconditional": True},
    "2011 patch (our reading)": {"patlasov_2011": True},
}

# one colour per series name, whatever the chart draws (a fixed domain: switching the machine or
# dropping the published points never repaints the others)
SERIES = {
    "defaults": "#4c78a8",
    "yours": "#f58518",
    "published: 3.16.0-rc1 vanilla": "#1b3a5c",
    "published: 3.16.0-rc1 cfq600": "#b3541e",
}
PERCENTILES = {"p50": "circle", "p90": "square", "p99": "triangle-up"}
PERCENTILE_DASH = {"p50": [1, 0], "p90": [6, 3], "p99": [2, 2]}
SOURCES = {"published": "#555555", "model": "#4c78a8"}


def _legend(title=None, columns: int = 3) -> alt.Legend:
    # under the plot, labels never cut ("published: 3.16.0-rc1 cfq600" in full)
    return alt.Legend(title=title, orient="bottom", labelLimit=0, columns=columns, symbolLimit=0)


_EXTRA = ["#72b7b2", "#e45756", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac"]


def series_color(label: str) -> str:
    """The colour of a series, by its name alone (other names: a stable hash into a small palette)."""
    if label in SERIES:
        return SERIES[label]
    return _EXTRA[sum(map(ord, label)) % len(_EXTRA)]


def _series_domain(labels) -> tuple:
    # each name brings its own colour: dropping a series (the published points of another machine)
    # never repaints the others, and the legend lists only what is drawn
    present = set(labels)
    return tuple([x for x in SERIES if x in present] + sorted(present - set(SERIES)))


def _domain_scale(domain) -> alt.Scale:
    return alt.Scale(domain=list(domain), range=[series_color(x) for x in domain])


# --------------------------------------------------------------------------- readers sweep

def df_readers_sweep(params: IOParams, readers=READERS, mb_total: float = SWEEP_MB, seeds=(0,),
                     ram_mb: int = 8192, label: str = "model") -> pd.DataFrame:
    """tiobench SeqRead for each reader count: throughput and read latency.

    Columns: ``label, readers, seed, MB/s, p50_ms, p90_ms, p99_ms, max_ms``
    (iostat ``await`` of the reads: queue insertion to completion).
    """
    rows = []
    for n in readers:
        w = tiobench.seqread(int(n), ram_mb=ram_mb, mb_total=mb_total)
        for s in seeds:
            r = simulate(params, w, seed=int(s), verbose=False)
            p50, p90, p99, p100 = r.await_ms("read", (50, 90, 99, 100))
            rows.append({"label": label, "readers": int(n), "seed": int(s), "MB/s": r.throughput_mb_s,
                         "p50_ms": p50, "p90_ms": p90, "p99_ms": p99, "max_ms": p100})
    return pd.DataFrame(rows, columns=["label", "readers", "seed", "MB/s", "p50_ms", "p90_ms", "p99_ms", "max_ms"])


def plot_throughput_vs_readers(sweep: pd.DataFrame, published_cells: pd.DataFrame | None = None,
                               title: str = "tiobench SeqRead") -> alt.Chart:
    """Lines of MB/s against readers, one per ``label``; published means as diamonds."""
    frames, options = _throughput_parts(sweep, published_cells, title)
    return _throughput_chart(*frames, **options)


def _throughput_parts(sweep: pd.DataFrame, published_cells: pd.DataFrame | None, title: str):
    # the chart's data (the mean per label and readers; the published points or None) and its options
    d = sweep.groupby(["label", "readers"], as_index=False)["MB/s"].mean()
    labels = list(d["label"])
    p = None
    if published_cells is not None and len(published_cells):
        p = published_cells.copy()
        p["readers"] = p["row"].str.extract(r"-(\d+)$")[0].astype(int)
        p["label"] = "published: " + p["kernel"]
        labels += list(p["label"])
    return (d, p), {"domain": _series_domain(labels), "title": title}


def _throughput_chart(d: pd.DataFrame, p: pd.DataFrame | None, domain, title: str) -> alt.Chart:
    m = mode()
    color = alt.Color("label:N", scale=_domain_scale(domain), legend=_legend())
    x = alt.X("readers:O", title="tiobench threads (readers)", axis=alt.Axis(labelAngle=0))
    layers = [alt.Chart(d).mark_line(point=True).encode(
        x=x, y=alt.Y("MB/s:Q", title="MB/s", scale=alt.Scale(zero=False)), color=color,
        tooltip=[alt.Tooltip("label"), alt.Tooltip("readers"), alt.Tooltip("MB/s:Q", format=".2f")])]
    if p is not None:
        layers.append(alt.Chart(p).mark_point(shape="diamond", size=90, filled=True).encode(
            x=x, y=alt.Y("value:Q"), color=color,
            tooltip=[alt.Tooltip("label"), alt.Tooltip("readers"), alt.Tooltip("value:Q", format=".2f")]))
    return alt.layer(*layers).properties(width=m.width, height=m.height, title=title)


def plot_await_percentiles(sweep: pd.DataFrame, title: str = "read latency (await), percentiles") -> alt.Chart:
    """p50/p90/p99 of the reads' await against readers: colour by ``label``, shape and dash by percentile."""
    frames, options = _await_parts(sweep, title)
    return _await_chart(*frames, **options)


def _await_parts(sweep: pd.DataFrame, title: str):
    # long: label, readers, percentile, ms, series
    # the frame ``melt`` and two string-column operations made, built from lists (those pandas steps were
    # about 10 ms of the CFQ explorer's 40-55 ms CPU per redraw); the same frame, the same chart
    cols = [f"{pc}_ms" for pc in PERCENTILES]
    d = sweep.groupby(["label", "readers"], as_index=False)[cols].mean()
    labels = d["label"].tolist()
    pcts = [pc for pc in PERCENTILES for _ in labels]
    long = pd.DataFrame({"label": pd.Series(labels * len(cols), dtype="str"),
                         "readers": np.tile(d["readers"].to_numpy(), len(cols)),
                         "percentile": pd.Series(pcts, dtype="str"),
                         "ms": np.concatenate([d[c].to_numpy(dtype=np.float64) for c in cols]),
                         "series": pd.Series([f"{lb} {pc}" for lb, pc in zip(labels * len(cols), pcts)], dtype="str")})
    return (long,), {"domain": _series_domain(labels), "title": title}


def _await_chart(long: pd.DataFrame, domain, title: str) -> alt.Chart:
    m = mode()
    pct = alt.Scale(domain=list(PERCENTILES), range=list(PERCENTILES.values()))
    dash = alt.Scale(domain=list(PERCENTILE_DASH), range=list(PERCENTILE_DASH.values()))
    base = alt.Chart(long).encode(
        x=alt.X("readers:O", title="tiobench threads (readers)", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("ms:Q", title="await, ms", scale=alt.Scale(type="symlog")),
        color=alt.Color("label:N", scale=_domain_scale(domain), legend=_legend()),
        tooltip=[alt.Tooltip("label"), alt.Tooltip("readers"), alt.Tooltip("percentile"),
                 alt.Tooltip("ms:Q", format=".1f")])
    # one legend for the percentiles, dash and shape together (Vega-Lite merges the two channels of one
    # field, so both must carry it); on the right, narrow, apart from the series legend under the plot
    pleg = alt.Legend(title="percentile", orient="right", symbolStrokeWidth=2, symbolSize=120)
    lines = base.mark_line().encode(strokeDash=alt.StrokeDash("percentile:N", scale=dash, legend=pleg),
                                    detail=alt.Detail("series:N"))
    points = base.mark_point(size=60, filled=True).encode(shape=alt.Shape("percentile:N", scale=pct, legend=pleg))
    return alt.layer(lines, points).properties(width=m.width, height=int(m.height * 0.8), title=title)


def _sweep_charts(d, p, long, throughput: dict, latency: dict) -> alt.VConcatChart:
    # the CFQ explorer's picture: throughput above the latency percentiles
    return alt.vconcat(_throughput_chart(d, p, **throughput), _await_chart(long, **latency))


def sweep_table(sweeps: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """The sweep as an mmtests comparison (era 2014), the seeds as iterations."""
    d = sweeps.assign(row="SeqRead-MB/sec-" + sweeps["readers"].astype(str))[["label", "row", "MB/s"]]
    d = d.rename(columns={"label": "kernel", "MB/s": "value"})
    ks = list(dict.fromkeys(d["kernel"]))
    return compare(d, baseline=baseline, stats=("Mean",), era="2014", significance=None, kernels=ks)


# --------------------------------------------------------------------------- timeline

def df_timeline(result: Result, t0_ms: float | None = None, t1_ms: float | None = None, queues=None) -> pd.DataFrame:
    """Segments and marks of CFQ's log, for a timeline picture.

    Columns: ``kind`` (``slice``, ``idle``, ``dispatch``, ``complete``,
    ``preempt``), ``queue`` (thread), ``start_ms``, ``end_ms``, ``detail``.
    A ``slice`` runs from ``set_active`` to ``slice_expired``; an ``idle``
    from ``arm_idle`` to the next event of that queue (a request, the timer,
    the expiry).
    """
    rows = _timeline_rows(result, t0_ms, t1_ms, queues)
    if rows is None:
        return pd.DataFrame(columns=["kind", "queue", "start_ms", "end_ms", "detail"])
    return pd.DataFrame(rows, columns=["kind", "queue", "start_ms", "end_ms", "detail"])


def _timeline_rows(result: Result, t0_ms: float | None = None, t1_ms: float | None = None, queues=None):
    # df_timeline's rows as tuples, filtered (None: no event logged).  Plain lists, not a frame's columns: a
    # redraw of the 2011 explorer walks 4000 events, and pandas' per-column work cost more than the walk
    t, names, qs, a_s, _ = result.event_columns()
    if not len(names):
        return None
    end_all = float(t.max())
    rows = []
    active = {}
    idle = {}
    ends_idle = ("insert", "idle_timer_fired", "slice_expired", "dispatch")
    for t_ms, event, q, a in zip(t.tolist(), names, qs.tolist(), a_s.tolist()):
        if event == "set_active":
            active[q] = (t_ms, WL_TYPE_NAMES.get(a, ""))
        elif event == "slice_expired" and q in active:
            t_, tree = active.pop(q)
            rows.append(("slice", q, t_, t_ms, f"{tree} tree, expired ({'timed out' if a else 'done'})"))
        elif event == "arm_idle":
            idle[q] = t_ms
        elif event in ("dispatch", "complete"):
            rows.append((event, q, t_ms, t_ms, f"request {a}"))
        elif event == "preempt":
            rows.append(("preempt", q, t_ms, t_ms, f"preempts queue {a}"))
        if q in idle and event in ends_idle and t_ms >= idle[q]:
            rows.append(("idle", q, idle.pop(q), t_ms, "idle window (slice_idle)"))
    for q, (t_, tree) in active.items():
        rows.append(("slice", q, t_, end_all, f"{tree} tree (still active)"))
    if t0_ms is not None:
        rows = [r for r in rows if r[3] >= t0_ms]
    if t1_ms is not None:
        rows = [r for r in rows if r[2] <= t1_ms]
    if queues is not None:
        keep = set(queues)
        rows = [r for r in rows if r[1] in keep]
    return rows


def plot_timeline(result: Result, t0_ms: float = 0.0, t1_ms: float | None = None, queues=None,
                  title: str | None = None) -> alt.Chart:
    """Who held the disk: a row per queue, its slices as bars, idle windows, dispatches as ticks.

    Drawn at the picture's resolution: dispatches are one tick per queue per
    1/150 of the window (the count in the tooltip), idle windows shorter than
    1/600 of it are left out; ``df_timeline`` has every event.
    """
    frames, options = _timeline_parts(result, t0_ms, t1_ms, queues, title)
    return _timeline_chart(*frames, **options)


def _timeline_parts(result: Result, t0_ms: float = 0.0, t1_ms: float | None = None, queues=None,
                    title: str | None = None):
    # the three layers' data (slices, idle windows, ticks) and the chart's options, from df_timeline's rows in
    # plain lists (each frame built once at the end: the frame operations were most of the 2011 explorer's
    # redraw after its model run).  The frames are those df_timeline's frame would give: rows clipped to the
    # window, ``queue`` named, the dispatches binned, each frame's index the rows' positions
    m = mode()
    rows = _timeline_rows(result, t0_ms, t1_ms, queues)
    if rows is None:
        return _timeline_parts_of_frame(result, df_timeline(result), t0_ms, t1_ms, title)
    if t1_ms is not None:
        def clip(x):
            x = x if t0_ms is None or x >= t0_ms else t0_ms
            return t1_ms if x > t1_ms else x
        rows = [(k, q, clip(s), clip(e), dt) for k, q, s, e, dt in rows]
    rows = [(k, f"queue {q}", s, e, dt) for k, q, s, e, dt in rows]
    at = {k: [i for i, r in enumerate(rows) if r[0] == k] for k in ("slice", "idle", "dispatch", "preempt")}
    marks = sorted(at["dispatch"] + at["preempt"])
    if at["dispatch"]:
        disp = [rows[i] for i in at["dispatch"]]
        starts = np.array([r[2] for r in disp], dtype=np.float64)
        lo = t0_ms
        hi = t1_ms if t1_ms is not None else float(starts.max())
        width = max((hi - lo) / 150.0, 1e-6)
        bins = ((starts - lo) // width).astype(int).tolist()
        # one tick per (queue, bin): its first dispatch and the count, sorted by queue then bin (as a groupby)
        first: dict = {}
        for r, i in zip(disp, bins):
            if (r[1], i) in first:
                first[(r[1], i)][2] += 1
            else:
                first[(r[1], i)] = [r[2], r[3], 1]
        keys = sorted(first)
        ticks = [("dispatch", k[0], first[k][0], first[k][1], f"{first[k][2]} request(s) dispatched")
                 for k in keys] + [rows[i] for i in at["preempt"]]
        marks_frame = _timeline_frame(ticks, None)[["queue", "kind", "start_ms", "end_ms", "detail"]]
    else:
        marks_frame = _timeline_frame([rows[i] for i in marks], marks)
    span = (t1_ms if t1_ms is not None else (max(r[3] for r in rows) if rows else 1.0)) - t0_ms
    idles = [i for i in at["idle"] if rows[i][3] - rows[i][2] >= span / 600.0]  # below a pixel: not drawn
    head = title or f"{result.params.scheduler} on {result.params.disk.name}"
    options = {"x_domain": None if t1_ms is None else (t0_ms, t1_ms), "queues": max(1, len({r[1] for r in rows})),
               "head": head, "subtitle": [_wrap(result.caption(), m)] if not title else []}
    return (_timeline_frame([rows[i] for i in at["slice"]], at["slice"]),
            _timeline_frame([rows[i] for i in idles], idles), marks_frame), options


def _timeline_frame(rows: list, index) -> pd.DataFrame:
    # one layer's frame: df_timeline's columns and dtypes (``queue`` named), ``index`` its rows' positions
    # (None: 0..n-1, a frame made anew)
    cols = list(zip(*rows)) if rows else [()] * 5
    return pd.DataFrame({"kind": pd.Series(cols[0], dtype="str"), "queue": pd.Series(cols[1], dtype="str"),
                         "start_ms": np.array(cols[2], dtype=np.float64), "end_ms": np.array(cols[3], dtype=np.float64),
                         "detail": pd.Series(cols[4], dtype="str")}).set_axis(
        pd.RangeIndex(len(rows)) if index is None else pd.Index(index, dtype=np.int64))


def _timeline_parts_of_frame(result: Result, d: pd.DataFrame, t0_ms, t1_ms, title):
    # a run without a log: the empty frame's layers (what the chart shows is nothing, the options as ever)
    m = mode()
    d = d.assign(queue="queue " + d["queue"].astype(str))
    head = title or f"{result.params.scheduler} on {result.params.disk.name}"
    options = {"x_domain": None if t1_ms is None else (t0_ms, t1_ms), "queues": 1,
               "head": head, "subtitle": [_wrap(result.caption(), m)] if not title else []}
    return (d.copy(), d.copy(), d.copy()), options  # three frames, as three layers have (Altair lifts one shared)


def _timeline_chart(slices: pd.DataFrame, idles: pd.DataFrame, marks: pd.DataFrame, x_domain, queues: int,
                    head: str, subtitle) -> alt.Chart:
    m = mode()
    colors = alt.Scale(domain=["slice", "idle", "dispatch", "preempt"], range=["#4c78a8", "#f58518", "#555555", "#e45756"])
    tip = [alt.Tooltip("queue"), alt.Tooltip("kind"), alt.Tooltip("detail"), alt.Tooltip("start_ms:Q", format=".2f"),
           alt.Tooltip("end_ms:Q", format=".2f")]
    x = alt.X("start_ms:Q", title="time, ms",
              scale=alt.Scale(domain=list(x_domain)) if x_domain is not None else alt.Undefined)
    x2 = alt.X2("end_ms:Q")
    y = alt.Y("queue:N", title=None)
    color = alt.Color("kind:N", scale=colors, legend=_legend(columns=4))
    # slices full height; idle windows as thin bars on top, so both stay visible
    slice_bars = alt.Chart(slices).mark_bar(height=16, opacity=0.8).encode(x=x, x2=x2, y=y, color=color, tooltip=tip)
    idle = alt.Chart(idles).mark_bar(height=6).encode(x=x, x2=x2, y=y, color=color, tooltip=tip)
    ticks = alt.Chart(marks).mark_tick(thickness=1, size=10, opacity=0.6).encode(x=x, y=y, color=color, tooltip=tip)
    return alt.layer(slice_bars, idle, ticks).properties(
        width=m.width, height=max(90, 26 * queues), title=alt.TitleParams(head, subtitle=list(subtitle)))


def _wrap(text: str, m) -> str:
    # a subtitle never wider than the chart: cut at the width a line of the mode's font holds
    limit = max(40, int(m.width / (0.6 * m.font_size)))
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- counters

def df_counters(runs: dict, counters=("mark_deep", "clear_deep", "preempt", "arm_idle", "set_active")) -> pd.DataFrame:
    """CFQ's counters of a few runs side by side: one row per counter, one column per run.

    ``runs``: ``{name: Result}``.  Counters are named as CFQ's blktrace messages.
    """
    return pd.DataFrame({name: {c: r.counters[c] for c in counters} for name, r in runs.items()})


# --------------------------------------------------------------------------- runs drawn event by event

TIMELINE_EVENTS = 20000  # events logged per run: a timeline's window of a few hundred ms holds far fewer


@lru_cache(maxsize=4)
def runs_deep_marking(instances: int = 4, file_mb: float = 0.5, usleep_us: int = 1000, seed: int = 1) -> dict:
    """3.1's CFQ on the 2011 RAID (its data-sheet preset, not the fitted machine), ``instances`` aio-stress
    instances of Maxim's 2011 command (``file_mb`` per file, ``usleep_us`` after each submission), with and
    without ``mark_cfqq_deep``: ``{"pristine": Result, "no mark_deep": Result}``, events logged.

    Cached: a notebook draws their timelines in one cell and counts their CFQ events in the next.
    """
    raid = IOParams(scheduler="cfq", cfq=cfq_for_kernel("3.1"), disk=RAID_LSI1078_2011)
    w = aio_stress.patlasov_2011(usleep_us=usleep_us, instances=instances, file_mb=file_mb)
    return {"pristine": simulate(raid, w, seed=seed, log_events=TIMELINE_EVENTS),
            "no mark_deep": simulate(raid.with_(cfq_mark_cfqq_deep=False), w, seed=seed,
                                     log_events=TIMELINE_EVENTS)}


def runs_target_latency(params: IOParams, latencies=(300.0, 600.0), readers: int = 4, ram_mb: int = 8192,
                        mb_total: float = 96.0, seed: int = 1) -> dict:
    """tiobench SeqRead with ``readers`` readers under ``params`` at each ``cfq_target_latency`` (ms) of
    ``latencies``: ``{latency: Result}``, events logged (for :func:`plot_timeline`)."""
    w = tiobench.seqread(readers, ram_mb=ram_mb, mb_total=mb_total)
    return {lat: simulate(params.with_(cfq_target_latency=lat), w, seed=seed, log_events=TIMELINE_EVENTS)
            for lat in latencies}


# --------------------------------------------------------------------------- 2011 variants

def df_aio_variants(table: str, small: bool | None = None) -> pd.DataFrame:
    """Published and model throughput of each 2011 variant on one machine.

    Columns: ``variant, source, MB/s, ratio`` (to pristine CFQ).
    """
    from . import deep_idle_2011 as d11
    from ...tables import published

    s = d11.model_samples(table, small)
    pub = published(d11.THREAD, table)
    rows = []
    for k in s:
        pv = float(pub[pub["kernel"] == k]["value"].iloc[0])
        mv = float(np.mean(s[k][d11.ROW]))
        rows += [{"variant": d11.short_name(k), "source": "published", "MB/s": pv},
                 {"variant": d11.short_name(k), "source": "model", "MB/s": mv}]
    df = pd.DataFrame(rows)
    base = df[df["variant"] == d11.short_name(d11.BASELINE)].set_index("source")["MB/s"]
    df["ratio"] = df["MB/s"] / df["source"].map(base)
    return df


def plot_aio_variants(df: pd.DataFrame, title: str = "") -> alt.Chart:
    """Bars of each variant's throughput relative to pristine CFQ, published beside model."""
    m = mode()
    order = list(dict.fromkeys(df["variant"]))
    return alt.Chart(df).mark_bar().encode(
        y=alt.Y("variant:N", sort=order, title=None), x=alt.X("ratio:Q", title="throughput / pristine CFQ"),
        yOffset=alt.YOffset("source:N"),
        color=alt.Color("source:N", scale=alt.Scale(domain=list(SOURCES), range=list(SOURCES.values())),
                        legend=_legend()),
        tooltip=["variant", "source", alt.Tooltip("MB/s:Q", format=".2f"), alt.Tooltip("ratio:Q", format=".3f")],
    ).properties(width=m.width, height=30 * len(order) + 20, title=title)


# --------------------------------------------------------------------------- a capture beside the model

def df_capture_beside_model(params: IOParams, readers=READERS, ram_mb: int = 8192, mb_total: float = 64.0,
                            seed: int = 1) -> pd.DataFrame:
    """iostat's read rate and latency of the shipped tiobench-like capture and of the model, per reader count.

    The capture (``data/traces/tiobench-seqread``) is fio on a virtual
    machine with a virtio disk; its busy samples (``r/s`` above half the
    peak) are averaged.  The model's ``iostat()`` names its columns as
    sysstat does, so the two share the columns.

    Columns: ``readers, source, rkB/s, r_await``.
    """
    from ... import traces

    rows = []
    for n in readers:
        cap = traces.load(traces.shipped_captures() / "tiobench-seqread" / f"readers-{int(n):02d}").load("iostat")
        busy = cap[cap["r/s"] > cap["r/s"].max() * 0.5]
        rows.append({"readers": int(n), "source": "capture (virtio VM)", "rkB/s": busy["rkB/s"].mean(),
                     "r_await": busy["r_await"].mean()})
        io = simulate(params, tiobench.seqread(int(n), ram_mb=ram_mb, mb_total=mb_total), seed=seed,
                      verbose=False).iostat(0.25)
        io = io[io["r/s"] > 0]
        rows.append({"readers": int(n), "source": f"model ({params.disk.name}, {params.scheduler})",
                     "rkB/s": io["rkB/s"].mean(), "r_await": io["r_await"].mean()})
    return pd.DataFrame(rows, columns=["readers", "source", "rkB/s", "r_await"])


def plot_capture_beside_model(df: pd.DataFrame, title: str = "iostat rkB/s: a capture and the model") -> alt.Chart:
    m = mode()
    return alt.Chart(df).mark_line(point=True).encode(
        x=alt.X("readers:O", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("rkB/s:Q", scale=alt.Scale(type="log"), title="read kB/s (iostat rkB/s)"),
        color=alt.Color("source:N", legend=_legend(columns=2)),
        tooltip=["source", "readers", alt.Tooltip("rkB/s:Q", format=",.0f"), alt.Tooltip("r_await:Q", format=".2f")],
    ).properties(width=m.width, height=m.height, title=title)


# --------------------------------------------------------------------------- the explorers


def _dropdown(options, value, description):
    import ipywidgets as w

    return w.Dropdown(options=list(options), value=value, description=description,
                      style={"description_width": "initial"}, layout=w.Layout(width="98%"))


CFQ_KNOBS = ["scheduler", "cfq_target_latency", "cfq_slice_sync", "cfq_slice_idle", "cfq_quantum", "cfq_latency"]


def cfq_explorer(base: IOParams | None = None, published_cells: pd.DataFrame | None = None, readers=READERS,
                 seeds=(0,), start: dict | None = None):
    """CFQ's knobs (full kernel names, unit and source in the tooltip), the deep-flag variant, the
    machine and the readers; a chart of SeqRead against readers and the read latency percentiles, your
    settings beside ``base``'s, and the mmtests table of the two.

    ``base`` is the curve labelled ``defaults`` (by default 3.16's CFQ on the
    desktop); the widgets start at ``base`` changed by ``start`` (by default
    Mel Gorman's patch, ``cfq_target_latency=600``), which is also what a
    static export (``WORKBOOK_MODE=ci``) shows.
    """
    base = base or IOParams(cfq=cfq_for_kernel("3.16"))
    start = {"cfq_target_latency": 600.0} if start is None else start
    machines = [base.disk.name] + [k for k in PRESETS if k != base.disk.name]
    counts = sorted(set(readers) | {n for n in (1, 2, 4, 8, 16, 32) if n >= min(readers)})
    controls = {
        "machine": _dropdown(machines, base.disk.name, "machine"),
        "variant": _dropdown(DEEP_VARIANTS, "pristine (3.1/3.16)", "deep-queue variant (2011 thread)"),
        "readers_max": _dropdown(counts, max(readers), "readers up to"),
    }
    cache: dict = {}

    def run(p: IOParams, machine, variant, readers_max):
        # one setting's sweep, table and chart data: a pure function of the setting (seeded runs), kept in
        # ``runs`` and made ahead for the next notches (explorer.Runs)
        disk = base.disk if machine == base.disk.name else PRESETS[machine]
        rs = [n for n in counts if n <= readers_max]
        key = (machine, tuple(rs))
        if key not in cache:
            cache[key] = df_readers_sweep(base.with_(disk=disk), rs, seeds=seeds, label="defaults")
        yours = p.with_(disk=disk, **DEEP_VARIANTS[variant])
        sw = pd.concat([cache[key], df_readers_sweep(yours, rs, seeds=seeds, label="yours")])
        pub = published_cells if machine == base.disk.name else None
        return sw, render(sweep_table(sw, "defaults")), _throughput_parts(sw, pub, "tiobench SeqRead"), \
            _await_parts(sw, "read latency (await), percentiles")

    runs = Runs(run)

    def draw(p: IOParams, machine=base.disk.name, variant="pristine (3.1/3.16)", readers_max=max(readers)):
        sw, table, ((d, p_), tp), ((long,), lat) = runs.get(p, machine, variant, readers_max)
        chart = live.show(d, p_, long, throughput=tp, latency=lat)
        shown.update(sweep=sw, table=table, chart=chart)
        return Preformatted(shown["table"]), chart

    shown: dict = {}
    live = LiveChart(_sweep_charts)  # the Altair chart is built once per machine and reader list
    box = explorer(base.with_(**start) if start else base, CFQ_KNOBS, draw, controls=controls,
                   title="CFQ in front of a disk: tiobench SeqRead", columns=3,
                   ahead=lambda settings: runs.ahead([(p, c["machine"], c["variant"], c["readers_max"])
                                                      for p, c in settings]))
    if box is not None:
        box.kwb_shown = shown  # what the last redraw showed: the sweep, the table and the chart
        box.kwb_runs = runs
    return box


DEEP_KNOBS = ["scheduler", "cfq_slice_idle", "cfq_quantum", "cfq_group_idle"]


def deep_idle_explorer(small: bool | None = True):
    """The 2011 experiment with knobs: machine, deep variant, the ``usleep`` think time, scheduler,
    ``cfq_slice_idle``, ``cfq_quantum``, ``cfq_group_idle``; the aggregate throughput and CFQ's counters,
    and a 40 ms timeline of four instances.  A static export shows the variants on the RAID.

    ``small``: the problem of ``WORKBOOK_MODE=ci`` (the default: half the files of the lab's reproduction,
    with the machine calibrated at that size, so a redraw stays near 0.1 s; one run's answer moves more
    with its seed than with the halving), ``False`` the lab's, ``None`` the mode's.
    """
    from IPython.display import HTML

    from . import deep_idle_2011 as d11

    def machine_run(table, variant, usleep, p: IOParams, **wkw):
        knobs = {k: p.value(k) for k in DEEP_KNOBS}
        pm = d11.machine_params(table, small=small).with_(**knobs, **DEEP_VARIANTS[variant])
        if not wkw:
            wkw = {"file_mb": d11.sizes(small).file_mb(table)}
        return simulate(pm, aio_stress.patlasov_2011(usleep_us=float(usleep), **wkw), seed=1, verbose=False,
                        log_events=4000 if "instances" in wkw else 0)

    base = d11.machine_params("aio-stress-fast-raid", small=small)
    if mode().name == "ci":
        rows = []
        for v in DEEP_VARIANTS:
            r = machine_run("aio-stress-fast-raid", v, 1000, base)
            c = r.counters
            rows.append({"variant": v, "MB/s": round(r.throughput_mb_s, 2), "preempt": c["preempt"],
                         "arm_idle": c["arm_idle"], "mark_deep": c["mark_deep"], "clear_deep": c["clear_deep"]})
        return explorer(base, DEEP_KNOBS, lambda p: Table(pd.DataFrame(rows)))
    import ipywidgets as w

    machine = _dropdown(d11.MACHINES, "aio-stress-fast-raid", "machine")
    variant = _dropdown(DEEP_VARIANTS, "pristine (3.1/3.16)", "deep-queue variant")
    usleep = w.IntSlider(value=1000, min=0, max=3000, step=250, description="usleep after io_submit (us)",
                         style={"description_width": "initial"}, layout=w.Layout(width="98%"),
                         continuous_update=False,
                         tooltip="aio-stress patched with usleep() after run_built(): the RAID runs of the thread")

    def run(machine, variant, usleep, knobs):
        # one setting's runs and timeline data: a pure function of the setting (seed 1), kept in ``runs`` and
        # made ahead for the next notches (explorer.Runs).  The machine's fit first, through the pool: one
        # fitted in the background (below) is waited for, not fitted twice; then the main run's compiled loop
        # releases the GIL: the timeline is run beside it
        p = base.with_(**dict(knobs))
        pool.submit(d11.machine_params, machine, small=small).result()
        main = pool.submit(machine_run, machine, variant, usleep, p)
        tl = machine_run(machine, variant, usleep, p, file_mb=0.25, instances=4)
        # one title for every setting (the line above the chart names the machine and variant): a switch of either
        # swaps the chart's data instead of embedding a new chart (LiveChart: a new title is a new chart)
        frames, options = _timeline_parts(tl, 0, 40, title="four instances of aio-stress, the first 40 ms")
        return main.result(), frames, options

    def key(p: IOParams, machine, variant, usleep) -> tuple:
        return machine, variant, int(usleep), tuple((k, p.value(k)) for k in DEEP_KNOBS)

    runs = Runs(run)

    def draw(p: IOParams, machine="aio-stress-fast-raid", variant="pristine (3.1/3.16)", usleep=1000):
        r, frames, options = runs.get(*key(p, machine, variant, usleep))
        c = r.counters
        line = (f"{html.escape(machine)}, {html.escape(variant)}: <b>{r.throughput_mb_s:.2f} MB/s</b> aggregate "
                f"&nbsp; preempt {c['preempt']}, arm_idle {c['arm_idle']}, mark_deep {c['mark_deep']}, "
                f"clear_deep {c['clear_deep']}")
        chart = live.show(*frames, **options)
        shown.update(line=line, result=r, chart=chart)
        return HTML(line), chart

    shown: dict = {}
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kwb-deep-idle")
    live = LiveChart(_timeline_chart)  # the Altair chart is built once (one title, four queues), its data swapped
    # the thread ran the RAID with usleep(1000) and the slow disk without: a machine sets its think time, then
    # the one redraw runs (two redraws, the first on the old machine, had doubled the wait)
    box = explorer(base, DEEP_KNOBS, draw, controls={"machine": machine, "variant": variant, "usleep": usleep},
                   title="The 2011 experiment: idling on deep seeky queues", columns=3,
                   links={"machine": lambda m: {"usleep": 1000 if m == "aio-stress-fast-raid" else 0}},
                   ahead=lambda settings: runs.ahead([key(p, **c) for p, c in settings]))
    box.kwb_shown = shown  # what the last redraw showed
    box.kwb_runs = runs
    for other in d11.MACHINES:  # fit the other machine while the person reads: its first switch took ~10 s
        pool.submit(d11.machine_params, other, small=small)
    return box


__all__ = ["READERS", "DEEP_VARIANTS", "SERIES", "df_readers_sweep", "plot_throughput_vs_readers",
           "plot_await_percentiles", "sweep_table", "df_timeline", "plot_timeline", "df_counters",
           "df_aio_variants", "plot_aio_variants", "df_capture_beside_model", "plot_capture_beside_model",
           "cfq_explorer", "deep_idle_explorer"]
