"""Charts and panels of the disk/CFQ model (LISA naming: ``df_*`` data, ``plot_*`` charts).

* :func:`df_readers_sweep` / :func:`plot_throughput_vs_readers` /
  :func:`plot_await_percentiles` -- tiobench SeqRead against the number of
  readers, the model beside the published table;
* :func:`df_timeline` / :func:`plot_timeline` -- which queue held the disk,
  when CFQ idled, what was dispatched, for a few queues;
* :func:`df_aio_variants` / :func:`plot_aio_variants` -- the 2011 variants;
* :func:`cfq_explorer` and :func:`deep_idle_explorer` -- the knobs as widgets
  (in ``WORKBOOK_MODE=ci`` a static default, as ``table_explorer`` does).
"""

from __future__ import annotations

import html
from dataclasses import replace

import altair as alt
import numpy as np
import pandas as pd

from ..config import mode
from ..models import _cfq_layout as L
from ..models.cfq import IOParams, simulate
from ..models.cfq_params import cfq_for_kernel
from ..models.disk import PRESETS
from ..tables import compare, render
from ..workloads import aio_stress, tiobench

READERS = (1, 2, 4, 8, 16)
SWEEP_MB = 64.0  # MB per SeqRead run in a slider update (the benchmark's "default-size run")

DEEP_VARIANTS = {
    "pristine (3.1/3.16)": {},
    "mark_cfqq_deep commented out": {"cfq_mark_cfqq_deep": False},
    "w/o 8e1ac6655104": {"cfq_clear_cfqq_deep_fast_device": False},
    "always clear deep": {"cfq_clear_cfqq_deep_unconditional": True},
    "2011 patch (our reading)": {"patlasov_2011": True},
}


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
            R = r.arrays.R[: int(r.arrays.S[L.S_NEXT_RID])]
            lat = (R[:, L.R_T_COMPLETE] - R[:, L.R_T_INSERT]) / 1e6
            p = np.percentile(lat, [50, 90, 99, 100]) if lat.size else [np.nan] * 4
            rows.append({"label": label, "readers": int(n), "seed": int(s), "MB/s": r.throughput_mb_s,
                         "p50_ms": p[0], "p90_ms": p[1], "p99_ms": p[2], "max_ms": p[3]})
    return pd.DataFrame(rows, columns=["label", "readers", "seed", "MB/s", "p50_ms", "p90_ms", "p99_ms", "max_ms"])


def plot_throughput_vs_readers(sweep: pd.DataFrame, published_cells: pd.DataFrame | None = None,
                               title: str = "tiobench SeqRead") -> alt.Chart:
    """Lines of MB/s against readers, one per ``label``; published means as points."""
    m = mode()
    d = sweep.groupby(["label", "readers"], as_index=False)["MB/s"].mean()
    layers = [alt.Chart(d).mark_line(point=True).encode(
        x=alt.X("readers:O", title="tiobench threads (readers)"),
        y=alt.Y("MB/s:Q", title="MB/s", scale=alt.Scale(zero=False)),
        color=alt.Color("label:N", title=None),
        tooltip=["label", "readers", alt.Tooltip("MB/s:Q", format=".2f")])]
    if published_cells is not None and len(published_cells):
        p = published_cells.copy()
        p["readers"] = p["row"].str.extract(r"-(\d+)$")[0].astype(int)
        p["label"] = "published: " + p["kernel"]
        layers.append(alt.Chart(p).mark_point(shape="diamond", size=90, filled=True).encode(
            x="readers:O", y="value:Q", color=alt.Color("label:N", title=None),
            tooltip=["label", "readers", alt.Tooltip("value:Q", format=".2f")]))
    return alt.layer(*layers).properties(width=m.width, height=m.height, title=title)


def plot_await_percentiles(sweep: pd.DataFrame, title: str = "read latency (await), percentiles") -> alt.Chart:
    """p50/p90/p99 of the reads' await against readers, one panel line per ``label``."""
    m = mode()
    d = sweep.groupby(["label", "readers"], as_index=False)[["p50_ms", "p90_ms", "p99_ms"]].mean()
    long = d.melt(["label", "readers"], var_name="percentile", value_name="ms")
    long["percentile"] = long["percentile"].str.replace("_ms", "")
    return alt.Chart(long).mark_line(point=True).encode(
        x=alt.X("readers:O", title="tiobench threads (readers)"),
        y=alt.Y("ms:Q", title="await, ms", scale=alt.Scale(type="symlog")),
        color=alt.Color("label:N", title=None), strokeDash=alt.StrokeDash("percentile:N"),
        tooltip=["label", "readers", "percentile", alt.Tooltip("ms:Q", format=".1f")],
    ).properties(width=m.width, height=int(m.height * 0.8), title=title)


def sweep_table(sweeps: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """The sweep as an mmtests comparison (era 2014), the seeds as iterations."""
    d = sweeps.assign(row="SeqRead-MB/sec-" + sweeps["readers"].astype(str))[["label", "row", "MB/s"]]
    d = d.rename(columns={"label": "kernel", "MB/s": "value"})
    ks = list(dict.fromkeys(d["kernel"]))
    return compare(d, baseline=baseline, stats=("Mean",), era="2014", significance=None, kernels=ks)


# --------------------------------------------------------------------------- timeline

def df_timeline(result, t0_ms: float | None = None, t1_ms: float | None = None, queues=None) -> pd.DataFrame:
    """Segments and marks of CFQ's log, for a timeline picture.

    Columns: ``kind`` (``slice``, ``idle``, ``dispatch``, ``complete``,
    ``preempt``), ``queue`` (thread), ``start_ms``, ``end_ms``, ``detail``.
    A ``slice`` runs from ``set_active`` to ``slice_expired``; an ``idle``
    from ``arm_idle`` to the next event of that queue (a request, the timer,
    the expiry).
    """
    ev = result.events
    if ev.empty:
        return pd.DataFrame(columns=["kind", "queue", "start_ms", "end_ms", "detail"])
    end_all = float(ev["t_ms"].max())
    rows = []
    active = {}
    idle = {}
    wl = {0: "ASYNC", 1: "SYNC_NOIDLE", 2: "SYNC"}
    for r in ev.itertuples():
        q = int(r.queue)
        if r.event == "set_active":
            active[q] = (r.t_ms, wl.get(int(r.a), ""))
        elif r.event == "slice_expired" and q in active:
            t, tree = active.pop(q)
            rows.append(("slice", q, t, r.t_ms, f"{tree} tree, expired ({'timed out' if r.a else 'done'})"))
        elif r.event == "arm_idle":
            idle[q] = r.t_ms
        elif r.event in ("dispatch", "complete"):
            rows.append((r.event, q, r.t_ms, r.t_ms, f"request {int(r.a)}"))
        elif r.event == "preempt":
            rows.append(("preempt", q, r.t_ms, r.t_ms, f"preempts queue {int(r.a)}"))
        if q in idle and r.event in ("insert", "idle_timer_fired", "slice_expired", "dispatch") and r.t_ms >= idle[q]:
            rows.append(("idle", q, idle.pop(q), r.t_ms, "idle window (slice_idle)"))
    for q, (t, tree) in active.items():
        rows.append(("slice", q, t, end_all, f"{tree} tree (still active)"))
    df = pd.DataFrame(rows, columns=["kind", "queue", "start_ms", "end_ms", "detail"])
    if t0_ms is not None:
        df = df[df["end_ms"] >= t0_ms]
    if t1_ms is not None:
        df = df[df["start_ms"] <= t1_ms]
    if queues is not None:
        df = df[df["queue"].isin(list(queues))]
    return df.reset_index(drop=True)


def plot_timeline(result, t0_ms: float = 0.0, t1_ms: float | None = None, queues=None,
                  title: str | None = None) -> alt.Chart:
    """Who held the disk: a row per queue, its slices as bars, idle windows, dispatches as ticks.

    Drawn at the picture's resolution: dispatches are one tick per queue per
    1/150 of the window (the count in the tooltip), idle windows shorter than
    1/600 of it are left out; ``df_timeline`` has every event.
    """
    m = mode()
    d = df_timeline(result, t0_ms, t1_ms, queues)
    if t1_ms is not None:
        d = d.assign(start_ms=d["start_ms"].clip(lower=t0_ms, upper=t1_ms), end_ms=d["end_ms"].clip(t0_ms, t1_ms))
    d["queue"] = "queue " + d["queue"].astype(str)
    marks = d[d["kind"].isin(["dispatch", "preempt"])]
    # one dispatch tick per queue per 1/150 of the window (the count in the tooltip): the
    # picture cannot show more, and a static export stays small
    disp = marks[marks["kind"] == "dispatch"]
    if len(disp):
        lo = t0_ms
        hi = t1_ms if t1_ms is not None else float(disp["start_ms"].max())
        width = max((hi - lo) / 150.0, 1e-6)
        b = ((disp["start_ms"] - lo) // width).astype(int)
        disp = (disp.assign(bin=b).groupby(["queue", "bin"], as_index=False)
                .agg(kind=("kind", "first"), start_ms=("start_ms", "first"), end_ms=("end_ms", "first"),
                     n=("detail", "size")))
        disp["detail"] = disp["n"].astype(str) + " request(s) dispatched"
        marks = pd.concat([disp.drop(columns=["bin", "n"]), marks[marks["kind"] == "preempt"]], ignore_index=True)
    colors = alt.Scale(domain=["slice", "idle", "dispatch", "preempt"], range=["#4c78a8", "#f58518", "#555555", "#e45756"])
    tip = ["queue", "kind", "detail", alt.Tooltip("start_ms:Q", format=".2f"), alt.Tooltip("end_ms:Q", format=".2f")]
    x = alt.X("start_ms:Q", title="time, ms", scale=alt.Scale(domain=[t0_ms, t1_ms]) if t1_ms is not None else alt.Undefined)
    y = alt.Y("queue:N", title=None)
    color = alt.Color("kind:N", scale=colors, title=None)
    # slices full height; idle windows as thin bars on top, so both stay visible
    slices = alt.Chart(d[d["kind"] == "slice"]).mark_bar(height=16, opacity=0.85).encode(x=x, x2="end_ms:Q", y=y,
                                                                                         color=color, tooltip=tip)
    span = (t1_ms if t1_ms is not None else float(d["end_ms"].max() if len(d) else 1.0)) - t0_ms
    idles = d[(d["kind"] == "idle") & (d["end_ms"] - d["start_ms"] >= span / 600.0)]  # below a pixel: not drawn
    idle = alt.Chart(idles).mark_bar(height=6).encode(x=x, x2="end_ms:Q", y=y, color=color, tooltip=tip)
    ticks = alt.Chart(marks).mark_tick(thickness=1, size=10, opacity=0.6).encode(x=x, y=y, color=color, tooltip=tip)
    nq = max(1, d["queue"].nunique())
    return alt.layer(slices, idle, ticks).properties(width=m.width, height=max(90, 26 * nq),
                                                     title=title or result.caption()[:110])


# --------------------------------------------------------------------------- 2011 variants

def df_aio_variants(table: str, small: bool | None = None) -> pd.DataFrame:
    """Published and model throughput of each 2011 variant on one machine.

    Columns: ``variant, source, MB/s, ratio`` (to pristine CFQ).
    """
    from ..reproduce import deep_idle_2011 as d11
    from ..tables import published

    s = d11.model_samples(table, small)
    pub = published("2011-cfq-deep-idle", table)
    rows = []
    for k in s:
        pv = float(pub[pub["kernel"] == k]["value"].iloc[0])
        mv = float(np.mean(s[k][d11.ROW]))
        rows += [{"variant": d11._short(k), "source": "published", "MB/s": pv},
                 {"variant": d11._short(k), "source": "model", "MB/s": mv}]
    df = pd.DataFrame(rows)
    base = df[df["variant"] == "CFQ"].set_index("source")["MB/s"]
    df["ratio"] = df["MB/s"] / df["source"].map(base)
    return df


def plot_aio_variants(df: pd.DataFrame, title: str = "") -> alt.Chart:
    m = mode()
    order = list(dict.fromkeys(df["variant"]))
    return alt.Chart(df).mark_bar().encode(
        y=alt.Y("variant:N", sort=order, title=None), x=alt.X("ratio:Q", title="throughput / pristine CFQ"),
        yOffset=alt.YOffset("source:N"), color=alt.Color("source:N", title=None),
        tooltip=["variant", "source", alt.Tooltip("MB/s:Q", format=".2f"), alt.Tooltip("ratio:Q", format=".3f")],
    ).properties(width=m.width, height=30 * len(order) + 20, title=title)


# --------------------------------------------------------------------------- the panels

def _pre(text: str) -> str:
    return f"<pre style='font-size:11px;line-height:1.25'>{html.escape(text)}</pre>"


def cfq_explorer(base: IOParams | None = None, published_cells: pd.DataFrame | None = None,
                 readers=READERS, seeds=(0,)):
    """Sliders for CFQ's knobs, the scheduler, the deep-flag variant, the machine and the readers;
    a live chart (throughput against readers, latency percentiles) and the mmtests table beside it.

    The baseline curve is ``base`` (by default 3.16's CFQ on the desktop); the
    other curve follows the widgets.  In ``WORKBOOK_MODE=ci`` there is no
    widget JavaScript: the default settings are drawn statically and nothing
    is returned.
    """
    from IPython.display import HTML, display

    base = base or IOParams(cfq=cfq_for_kernel("3.16"))
    if mode().name == "ci":
        yours = base.with_(cfq_target_latency=600)
        sw = pd.concat([df_readers_sweep(base, readers, seeds=seeds, label="defaults"),
                        df_readers_sweep(yours, readers, seeds=seeds, label="target_latency=600")])
        display(HTML(_pre(render(sweep_table(sw, "defaults")))))
        display(alt.vconcat(plot_throughput_vs_readers(sw, published_cells), plot_await_percentiles(sw)))
        return None
    import ipywidgets as w

    style = {"description_width": "120px"}
    lay = w.Layout(width="340px")
    c = base.cfq
    knobs = {
        "cfq_target_latency": w.IntSlider(value=int(c.cfq_target_latency), min=50, max=1200, step=50,
                                          description="target_latency ms", style=style, layout=lay),
        "cfq_slice_sync": w.IntSlider(value=int(c.cfq_slice_sync), min=10, max=300, step=10,
                                      description="slice_sync ms", style=style, layout=lay),
        "cfq_slice_idle": w.IntSlider(value=int(c.cfq_slice_idle), min=0, max=20, step=1,
                                      description="slice_idle ms", style=style, layout=lay),
        "cfq_quantum": w.IntSlider(value=c.cfq_quantum, min=1, max=32, step=1, description="quantum",
                                   style=style, layout=lay),
        "cfq_latency": w.Checkbox(value=bool(c.cfq_latency), description="low_latency", style=style),
    }
    sched = w.ToggleButtons(options=["cfq", "deadline", "noop"], value=base.scheduler, description="scheduler",
                            style=style)
    variant = w.Dropdown(options=list(DEEP_VARIANTS), value="pristine (3.1/3.16)", description="deep variant",
                         style=style, layout=lay)
    machine = w.Dropdown(options=list(PRESETS), value=base.disk.name if base.disk.name in PRESETS else "desktop-2014",
                         description="machine", style=style, layout=lay)
    nmax = w.SelectionSlider(options=[2, 4, 8, 16, 32], value=max(readers), description="readers up to",
                             style=style, layout=lay)
    table = w.HTML()
    chart = w.Output()
    status = w.HTML()
    cache = {}

    def params_now() -> IOParams:
        disk = base.disk if machine.value == base.disk.name else PRESETS[machine.value]
        kw = {k: (v.value if k != "cfq_latency" else bool(v.value)) for k, v in knobs.items()}
        kw.update(DEEP_VARIANTS[variant.value])
        return replace(base, disk=disk, scheduler=sched.value).with_(**kw)

    def rs():
        return [n for n in (1, 2, 4, 8, 16, 32) if n <= nmax.value]

    def update(_=None):
        import time

        t0 = time.perf_counter()
        p = params_now()
        key = (machine.value, tuple(rs()))
        if key not in cache:
            bp = base if machine.value == base.disk.name else replace(base, disk=PRESETS[machine.value])
            cache[key] = df_readers_sweep(bp, rs(), seeds=seeds, label="defaults")
        sw = pd.concat([cache[key], df_readers_sweep(p, rs(), seeds=seeds, label="yours")])
        t_sim = time.perf_counter() - t0
        table.value = _pre(render(sweep_table(sw, "defaults")))
        chart.clear_output(wait=True)
        with chart:
            display(alt.vconcat(plot_throughput_vs_readers(sw, published_cells if machine.value == "desktop-2014" else None),
                                plot_await_percentiles(sw)))
        status.value = f"<small>simulated {len(rs()) * len(seeds) * 2} runs in {1000 * t_sim:.0f} ms</small>"

    for wd in [*knobs.values(), sched, variant, machine, nmax]:
        wd.observe(update, names="value")
    update()
    left = w.VBox([sched, machine, variant, *knobs.values(), nmax, status])
    return w.HBox([left, w.VBox([chart, table])])


def deep_idle_explorer(small: bool | None = None):
    """The 2011 experiment with knobs: machine, usleep think time, deep variant, slice_idle, quantum."""
    from IPython.display import HTML, display

    from ..reproduce import deep_idle_2011 as d11

    def run(table, variant, usleep, slice_idle, quantum, scheduler="cfq"):
        p = d11.machine_params(table, small=small).with_(
            scheduler=scheduler, cfq_slice_idle=float(slice_idle), cfq_quantum=int(quantum), **DEEP_VARIANTS[variant])
        wl = aio_stress.patlasov_2011(usleep_us=float(usleep), file_mb=d11.sizes(small).file_mb(table))
        return simulate(p, wl, seed=1, verbose=False)

    if mode().name == "ci":
        rows = []
        for v in DEEP_VARIANTS:
            r = run("aio-stress-fast-raid", v, 1000, 8, 8)
            rows.append({"variant": v, "MB/s": round(r.throughput_mb_s, 2), "preempt": r.counters["preempt"],
                         "arm_idle": r.counters["arm_idle"], "mark_deep": r.counters["mark_deep"],
                         "clear_deep": r.counters["clear_deep"]})
        display(HTML(_pre(pd.DataFrame(rows).to_string(index=False))))
        return None
    import ipywidgets as w

    style = {"description_width": "110px"}
    table = w.Dropdown(options=list(d11.MACHINES), value="aio-stress-fast-raid", description="machine", style=style)
    variant = w.Dropdown(options=list(DEEP_VARIANTS), value="pristine (3.1/3.16)", description="deep variant",
                         style=style)
    sched = w.ToggleButtons(options=["cfq", "deadline", "noop"], value="cfq", description="scheduler", style=style)
    usleep = w.IntSlider(value=1000, min=0, max=3000, step=250, description="usleep us", style=style)
    si = w.IntSlider(value=8, min=0, max=20, description="slice_idle ms", style=style)
    qu = w.IntSlider(value=8, min=1, max=32, description="quantum", style=style)
    out = w.HTML()
    tl = w.Output()

    def update(_=None):
        r = run(table.value, variant.value, usleep.value, si.value, qu.value, sched.value)
        c = r.counters
        out.value = (f"<b>{r.throughput_mb_s:.2f} MB/s</b> aggregate &nbsp; preempt {c['preempt']}, "
                     f"arm_idle {c['arm_idle']}, mark_deep {c['mark_deep']}, clear_deep {c['clear_deep']}")
        tl.clear_output(wait=True)
        with tl:
            p = d11.machine_params(table.value, small=small).with_(
                scheduler=sched.value, cfq_slice_idle=float(si.value), cfq_quantum=int(qu.value),
                **DEEP_VARIANTS[variant.value])
            wl = aio_stress.patlasov_2011(usleep_us=float(usleep.value), file_mb=0.25, instances=4)
            display(plot_timeline(simulate(p, wl, seed=1, log_events=4000, verbose=False), 0, 40))

    def on_machine(_=None):
        # the thread ran the RAID with usleep(1000) and the slow disk without
        usleep.value = 1000 if table.value == "aio-stress-fast-raid" else 0

    table.observe(on_machine, names="value")
    for wd in (table, variant, sched, usleep, si, qu):
        wd.observe(update, names="value")
    update()
    return w.VBox([w.HBox([w.VBox([table, variant, sched]), w.VBox([usleep, si, qu])]), out, tl])
