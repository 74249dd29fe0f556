"""Charts of the writeback model and the 2007 thread (LISA naming: ``df_*`` data, ``plot_*`` charts).

* :func:`df_queue` / :func:`plot_queue` -- who holds the one request queue's slots over time
  (pdflush, kswapd, the load; each zone's pages), with ``nr_requests`` and the congestion thresholds;
* :func:`df_zone_pages` / :func:`plot_zone_pages` -- free, dirty and writeback pages of each zone;
* :func:`df_efficiency` / :func:`plot_efficiency` -- reclaim efficiency per interval by
  ``traces.df_reclaim_2007``: a model run and a real ``/proc/vmstat`` capture on one chart;
* :func:`plot_cells` -- published and model change of each predicted cell;
* :func:`writeback_explorer` -- the thread's knobs as widgets over one run.

Colours are fixed per series name (``HOLDER_COLORS``, ``SOURCE_COLORS``).
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from ...config import mode
from ...models.writeback import VARIANTS, params_for, simulate
from ...models.writeback.simulate import congestion_thresholds
from ...traces.derived import df_reclaim_2007
from .workloads_2007 import akpm_test

HOLDERS = ["pdflush / high", "pdflush / normal", "pdflush / dma", "kswapd / high", "kswapd / normal",
           "kswapd / dma", "load / high", "load / normal", "load / dma"]
HOLDER_COLORS = alt.Scale(domain=HOLDERS, range=["#9ecae9", "#4c78a8", "#1f3f66", "#ffbf79", "#f58518", "#8c4a0c",
                                                 "#a1d99b", "#54a24b", "#2d5a27"])
SOURCES = ["published", "model"]
SOURCE_COLORS = alt.Scale(domain=SOURCES, range=["#4c4c4c", "#f58518"])
STATES = ["free", "dirty", "writeback"]
STATE_COLORS = alt.Scale(domain=STATES, range=["#54a24b", "#e45756", "#4c78a8"])


def _width(share: float = 1.0) -> int:
    return int(mode().width * share)


def df_queue(result) -> pd.DataFrame:
    """Slots of the request queue per holder and zone at each sample.

    Columns: ``elapsed, holder`` (``"pdflush / high"``...: who queued the request and the zone of its
    pages; i386 zone names, the low zone shown as ``normal``), ``slots``, ``nr_requests``, ``congestion_on``,
    ``congestion_off``.
    """
    q = result.queue()
    names = dict(zip(result.zone_names, ("dma", "normal", "high")))
    q = q[q["slots"] > 0].copy()
    q["holder"] = q["holder"] + " / " + q["zone"].map(names)
    q["congestion_on"], q["congestion_off"] = congestion_thresholds(result.params)
    return q[["elapsed", "holder", "slots", "nr_requests", "congestion_on", "congestion_off"]].reset_index(drop=True)


def df_queue_held(result) -> pd.DataFrame:
    """Slots held per holder at every sample, a holder holding none at a sample given 0 (what the stacked areas of
    :func:`plot_queue` draw).  Columns: ``elapsed, holder, slots``."""
    q = df_queue(result)
    full = q.pivot_table(index="elapsed", columns="holder", values="slots", aggfunc="sum", fill_value=0)
    full = full.reindex(sorted(result.queue()["elapsed"].unique()), fill_value=0)
    return full.reset_index().melt(id_vars="elapsed", var_name="holder", value_name="slots")


def df_queue_limits(result) -> pd.DataFrame:
    """The queue's size and its congestion thresholds.  Columns: ``y`` (requests), ``what``."""
    on, off = congestion_thresholds(result.params)
    return pd.DataFrame({"y": [result.params.value("nr_requests"), on, off],
                         "what": ["nr_requests", "congested at", "uncongested below"]})


def plot_queue(result, title: str | None = None):
    """Stacked areas: who holds the queue's ``nr_requests`` slots over time; the congestion thresholds as rules."""
    return _queue_chart(df_queue_held(result), df_queue_limits(result),
                        title=title or f"One queue shared by every zone: {result.caption()[:90]}")


def _queue_chart(held: pd.DataFrame, limits: pd.DataFrame, title: str = ""):
    area = alt.Chart(held).mark_area(interpolate="step-after").encode(
        x=alt.X("elapsed:Q", title="seconds"),
        y=alt.Y("slots:Q", stack="zero", title="request slots held"),
        color=alt.Color("holder:N", scale=HOLDER_COLORS, title="queued by / zone"),
        order=alt.Order("holder:N"),
        tooltip=["elapsed", "holder", "slots"])
    rules = alt.Chart(limits).mark_rule(strokeDash=[4, 3], color="#555").encode(y="y:Q", tooltip=["what", "y"])
    return (area + rules).properties(width=_width(0.85), height=int(mode().height * 0.8), title=title)


def df_zone_pages(result) -> pd.DataFrame:
    """Free, dirty and writeback pages of each zone over time.  Columns: ``elapsed, zone, state, pages``."""
    return result.zones()


def plot_zone_pages(result, title: str = "Each zone's free, dirty and writeback pages"):
    d = df_zone_pages(result)
    return alt.Chart(d).mark_line().encode(
        x=alt.X("elapsed:Q", title="seconds"), y=alt.Y("pages:Q", title="pages"),
        color=alt.Color("state:N", scale=STATE_COLORS, title=None),
        facet=alt.Facet("zone:N", columns=3, title=None),
        tooltip=["elapsed", "zone", "state", "pages"],
    ).properties(width=_width(0.27), height=int(mode().height * 0.5), title=title).resolve_scale(y="independent")


def df_efficiency(runs: dict, capture: pd.DataFrame | None = None, capture_name: str = "capture") -> pd.DataFrame:
    """Reclaim efficiency per interval (``traces.df_reclaim_2007(per_interval=True)``) of model runs and a capture.

    ``runs``: ``{name: Result}``.  Intervals that scanned nothing are left out (no efficiency).
    Columns: ``source, elapsed, ratio, steal, scan``.
    """
    frames = []
    items = [(name, r.vmstat()) for name, r in runs.items()]
    if capture is not None:
        items.append((capture_name, capture))
    for name, v in items:
        e = df_reclaim_2007(v, per_interval=True)
        e = e[e["scan"] > 0].copy()
        if "elapsed" not in e.columns:
            e["elapsed"] = e.get("sample", range(len(e)))
        e["elapsed"] = e["elapsed"] - float(v["elapsed"].iloc[0]) if "elapsed" in v.columns else e["elapsed"]
        e["source"] = name
        frames.append(e[["source", "elapsed", "ratio", "steal", "scan"]])
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["source", "elapsed", "ratio", "steal", "scan"])


def df_efficiency_totals(eff: pd.DataFrame) -> pd.DataFrame:
    """:func:`df_efficiency` summed per source: index ``source`` (sorted), columns ``steal, scan`` (pages) and
    ``efficiency_pct`` over the whole run, as Fengguang's loop computes it (``100 * steal / (scan + 1)``, in
    integers)."""
    return eff.groupby("source")[["steal", "scan"]].sum().assign(
        efficiency_pct=lambda d: (100 * d["steal"] // (d["scan"] + 1)))


def plot_efficiency(runs: dict, capture: pd.DataFrame | None = None, capture_name: str = "capture",
                    title: str = "Reclaim efficiency, 100 * steal / (scan + 1), per interval (Fengguang's loop)"):
    d = df_efficiency(runs, capture, capture_name)
    base = alt.Chart(d).encode(
        x=alt.X("elapsed:Q", title="seconds from the start of the run / capture"),
        y=alt.Y("ratio:Q", title="efficiency (%)", scale=alt.Scale(domain=[0, 100])),
        color=alt.Color("source:N", title=None, legend=alt.Legend(orient="bottom")),
        tooltip=["source", "elapsed", "ratio", "steal", "scan"])
    thresh = alt.Chart(pd.DataFrame({"y": [25]})).mark_rule(strokeDash=[4, 3], color="#b00").encode(y="y:Q")
    return (base.mark_line(point=True) + thresh).properties(width=_width(0.85), height=int(mode().height * 0.8),
                                                           title=title)


def plot_cells(cells: pd.DataFrame, title: str = "Published and model change of each predicted cell"):
    """Bars of the predicted cells (columns ``row, kernel, published_delta_pct, model_delta_pct``)."""
    d = cells.dropna(subset=["published_delta_pct", "model_delta_pct"]).copy()
    d["cell"] = d["row"] + " / " + d["kernel"]
    d = d.melt(id_vars=["cell"], value_vars=["published_delta_pct", "model_delta_pct"], var_name="source",
               value_name="change")
    d["source"] = d["source"].map({"published_delta_pct": "published", "model_delta_pct": "model"})
    return alt.Chart(d).mark_bar().encode(
        y=alt.Y("cell:N", title=None), yOffset=alt.YOffset("source:N", sort=SOURCES),
        x=alt.X("change:Q", title="change (points for %, else %)"),
        color=alt.Color("source:N", scale=SOURCE_COLORS, title=None, legend=alt.Legend(orient="bottom")),
        tooltip=["cell", "source", alt.Tooltip("change:Q", format=".1f")],
    ).properties(width=_width(0.6), height=int(mode().height * 0.8), title=title)


# the explorer's figures of a run (Result.summary() keys) with their units
EXPLORE_FIGURES = {"kswapd_cpu_pct": "% of a CPU", "reclaim_efficiency_pct": "% of scanned pages freed",
                   "kswapd_scan_mb_s": "MB/s", "kswapd_freed_mb_s": "MB/s", "kswapd_congestion_wait_s": "s",
                   "kswapd_request_wait_s": "s", "allocstall": "stalls", "pgrotated": "pages",
                   "nr_vmscan_write": "pages"}


def df_explore(result) -> pd.DataFrame:
    """One run's figures for the explorer.  Columns: ``figure`` (a ``Result.summary()`` key: the counters
    by their /proc/vmstat names), ``value``, ``unit``."""
    s = result.summary()
    return pd.DataFrame({"figure": list(EXPLORE_FIGURES), "value": [float(s[k]) for k in EXPLORE_FIGURES],
                         "unit": list(EXPLORE_FIGURES.values())})


EXPLORER_KNOBS = ("kswapd_swapwrite", "throttle_vm_writeout", "bdp_nonblocking", "kswapd_congestion_wait",
                  "nr_requests", "vm_dirty_ratio", "dirty_background_ratio", "dirty_expire_centisecs")


def writeback_explorer(workload=None, variant: str = "before c4e2d7dd", seed: int = 1):
    """The thread's knobs over akpm's test (a 2 GB machine, 5 s after the kill; the lowmem size a slider).

    Returns the widget box (``None`` in CI mode, where the defaults are drawn once).
    """
    import ipywidgets as w

    from ...ui.charts import LiveChart
    from ...frames import Table
    from ...ui.explorer import FAR_AHEAD_S, Formatted, Runs, explorer

    workload = workload or akpm_test(machine_mb=2048.0, duration_s=5.0)
    # the Altair chart (its schema validation most of a redraw) is built once; a redraw swaps its data
    live = LiveChart(_queue_chart)
    low = w.FloatSlider(value=float(workload.lowmem_mb), min=64.0, max=1536.0, step=16.0, continuous_update=False,
                        description="lowmem_mb (MB)", tooltip="the zone kernel allocations need (ZONE_NORMAL)",
                        style={"description_width": "initial"}, layout=w.Layout(width="98%"))
    total = workload.lowmem_mb + workload.highmem_mb

    def frames(p, lowmem_mb):
        wl = workload.with_(lowmem_mb=float(lowmem_mb), highmem_mb=float(max(0.0, total - lowmem_mb)))
        r = simulate(p, wl, seed=seed, verbose=False)
        # one row a figure, its unit in its label and its own number format (counts whole); formatted here, on the
        # runs' thread: a redraw only sends it (explorer.Formatted)
        f = df_explore(r)
        shown = pd.DataFrame({"value": f["value"].to_numpy()}, index=f["figure"] + " (" + f["unit"] + ")")
        return df_queue_held(r), df_queue_limits(r), Formatted(Table(shown, index=True, rows=True))

    # one setting's run: a pure function of the setting (seeded), kept and made ahead.  A fresh run is about
    # the explorers' 100 ms (90-125 ms in the browser test), so every value of every control is made ahead,
    # nearest first (reach=None below): a slider dragged several steps is a kept run once the person has looked
    runs = Runs(frames, keep=1024, ahead_s=FAR_AHEAD_S)

    def draw(p, lowmem_mb):
        held, limits, figures = runs.get(p, float(lowmem_mb))
        return live.show(held, limits, title="who holds the queue (pdflush / kswapd / load, by zone)"), figures

    presets = {k: params_for(k) for k in VARIANTS}
    return explorer(params_for(variant), EXPLORER_KNOBS, draw, controls={"lowmem_mb": low},
                    title="akpm's test: the one queue, the throttles", presets=presets, preset=variant,
                    ahead=lambda settings: runs.ahead([(p, float(c["lowmem_mb"])) for p, c in settings]),
                    reach=None)


__all__ = ["df_queue", "df_queue_held", "df_queue_limits", "plot_queue", "df_zone_pages", "plot_zone_pages", "df_efficiency", "plot_efficiency",
           "plot_cells", "df_explore", "writeback_explorer", "EXPLORER_KNOBS", "HOLDERS"]
