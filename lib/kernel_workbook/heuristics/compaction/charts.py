"""Charts of the compaction model and the 2012 thread (LISA naming: ``df_*`` data, ``plot_*`` charts).

* :func:`plot_success` -- success % per pass, published beside model, every kernel;
* :func:`plot_cells` -- published and model change of each predicted cell (a table's rows);
* :func:`df_scanners` / :func:`plot_scanners` -- one compaction run: the zone's pageblocks
  coloured by migratetype, the migrate scanner going up, the free scanner coming down and the
  zone's cached free pfn, until they meet;
* :func:`df_free_by_order` / :func:`plot_free_by_order` -- free memory by order over time, from
  any ``/proc/buddyinfo`` frame: the model's beside a real capture;
* :func:`df_fragmentation_over_time` / :func:`plot_fragmentation` -- the unusable free space index
  and the fragmentation index over time, model and capture on one chart;
* :func:`compaction_explorer` -- the knobs of the thread as widgets over one run.

Colours are fixed per series name (``KERNEL_COLORS``, ``TYPE_COLORS``, ``SOURCE_COLORS``).
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from ...config import mode
from ...models.compaction import df_fragmentation, params_for, simulate
from . import stress_highalloc as sh

KERNELS = ["revert-v5", "contended-v5", "capture-v5", "3.3.6", "akpm tree"]
KERNEL_COLORS = alt.Scale(domain=KERNELS, range=["#e45756", "#4c78a8", "#54a24b", "#b279a2", "#9d755d"])
TYPES = ["Unmovable", "Reclaimable", "Movable", "Reserve"]
TYPE_COLORS = alt.Scale(domain=TYPES, range=["#e45756", "#f58518", "#4c78a8", "#bab0ac"])
SOURCES = ["published", "model"]
SOURCE_COLORS = alt.Scale(domain=SOURCES, range=["#4c4c4c", "#f58518"])
SCANNERS = ["migrate scanner", "free scanner", "zone->compact_cached_free_pfn"]
SCANNER_COLORS = alt.Scale(domain=SCANNERS, range=["#1b9e77", "#d95f02", "#7570b3"])
PASSES = ["Pass 1", "Pass 2", "while Rested"]


def _width(share: float = 1.0) -> int:
    return int(mode().width * share)


# --------------------------------------------------------------------------- success and cells


def plot_success(df: pd.DataFrame, title: str = "STRESS-HIGHALLOC: % of huge page allocations that succeeded"):
    """Bars of ``df_success`` (columns ``kernel, pass, published, model``): published and model side by side."""
    d = df.melt(id_vars=["kernel", "pass"], value_vars=["published", "model"], var_name="source",
                value_name="success")
    d = d.dropna(subset=["success"])
    return alt.Chart(d).mark_bar().encode(
        x=alt.X("kernel:N", sort=KERNELS, title=None, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("source:N", sort=SOURCES),
        y=alt.Y("success:Q", title="success (%)", scale=alt.Scale(domain=[0, 100])),
        color=alt.Color("source:N", scale=SOURCE_COLORS, title=None, legend=alt.Legend(orient="bottom")),
        column=alt.Column("pass:N", sort=PASSES, title=None),
        tooltip=["kernel", "pass", "source", alt.Tooltip("success:Q", format=".1f")],
    ).properties(width=_width(0.3), height=int(mode().height * 0.8), title=title)


def plot_cells(cells: pd.DataFrame, title: str = ""):
    """Published and model change of each cell of a scored frame (``Reproduction.scored()``), one row each.

    Higher is not better or worse here: the bars are the changes the thread printed and the model's.
    """
    d = cells[cells["published_delta_pct"].notna() & cells["model_delta_pct"].notna()].copy()
    d["cell"] = d["row"] + " (" + d["kernel"] + ")"
    long = d.melt(id_vars=["cell", "status"], value_vars=["published_delta_pct", "model_delta_pct"],
                  var_name="source", value_name="change")
    long["source"] = long["source"].map({"published_delta_pct": "published", "model_delta_pct": "model"})
    order = list(dict.fromkeys(d["cell"]))
    return alt.Chart(long).mark_bar().encode(
        y=alt.Y("cell:N", sort=order, title=None),
        yOffset=alt.YOffset("source:N", sort=SOURCES),
        x=alt.X("change:Q", title="change against the baseline column"),
        color=alt.Color("source:N", scale=SOURCE_COLORS, title=None, legend=alt.Legend(orient="bottom")),
        tooltip=["cell", "source", alt.Tooltip("change:Q", format="+.1f"), "status"],
    ).properties(width=_width(0.75), height=max(80, 22 * len(order)), title=title)


# --------------------------------------------------------------------------- the two scanners


def df_scanners(result, task: str = "test", run: int | None = None,
                max_steps: int = 120) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One compaction run of ``task`` from a result: (scanner positions, pageblocks).

    The run is the ``run``-th stretch of consecutive steps of the task (default: the longest whose
    scanners met); a run longer than ``max_steps`` keeps that many steps, evenly spaced, first and last.
    Positions: ``step, elapsed, scanner`` (:data:`SCANNERS`), ``pfn``, ``wrapped``.
    Pageblocks (at the sample nearest the run), consecutive blocks of one type as one stretch:
    ``block`` (the first), ``start_pfn, end_pfn, blocks, type``.
    """
    s = result.scanners()
    s = s[s["task"] == task].reset_index(drop=True)
    if s.empty:
        return pd.DataFrame(columns=["step", "elapsed", "scanner", "pfn", "wrapped"]), result.pageblocks()
    # a new run starts where the migrate scanner goes back down to the zone's start
    new = (s["migrate_pfn"].diff().fillna(-1) < 0).to_numpy()
    rid = np.cumsum(new)
    if run is None:
        # the longest run whose scanners met (else the longest run)
        g = pd.DataFrame({"rid": rid, "m": s["migrate_pfn"], "f": s["free_pfn"]}).groupby("rid")
        size = g.size()
        last = g.last()
        met = size[(last["m"] >= last["f"] - 512).reindex(size.index)]
        run = int((met if len(met) else size).idxmax())
    one = s[rid == run].reset_index(drop=True)
    one["step"] = np.arange(len(one))
    if len(one) > max_steps:
        one = one.iloc[np.unique(np.linspace(0, len(one) - 1, max_steps).round().astype(int))]
    pos = one.melt(id_vars=["step", "elapsed", "wrapped"], value_vars=["migrate_pfn", "free_pfn", "cached_free_pfn"],
                   var_name="scanner", value_name="pfn")
    pos["scanner"] = pos["scanner"].map({"migrate_pfn": SCANNERS[0], "free_pfn": SCANNERS[1],
                                         "cached_free_pfn": SCANNERS[2]})
    occ = result.occupancy()
    k = int(np.abs(occ["elapsed"].to_numpy() - float(one["elapsed"].iloc[0])).argmin())
    pb = result.pageblocks(k)
    # consecutive pageblocks of one type drawn as one stretch
    brk = np.r_[True, pb["type"].to_numpy()[1:] != pb["type"].to_numpy()[:-1]]
    starts = np.nonzero(brk)[0]
    ends = np.r_[starts[1:], len(pb)]
    runs_ = pd.DataFrame({"block": pb["block"].to_numpy()[starts], "start_pfn": pb["start_pfn"].to_numpy()[starts],
                          "end_pfn": pb["start_pfn"].to_numpy()[ends - 1] + 512, "blocks": ends - starts,
                          "type": pb["type"].to_numpy()[starts]})
    return pos[["step", "elapsed", "scanner", "pfn", "wrapped"]], runs_


def plot_scanners(result, task: str = "test", run: int | None = None, title: str | None = None):
    """The picture of compaction: pageblocks by migratetype along the zone, and the scanners meeting."""
    pos, pb = df_scanners(result, task, run)
    n = int(pb["end_pfn"].max())
    x = alt.X("start_pfn:Q", title="pfn", scale=alt.Scale(domain=[0, n]))
    blocks = alt.Chart(pb).mark_rect(stroke="white", strokeWidth=0.3).encode(
        x=x, x2="end_pfn:Q",
        color=alt.Color("type:N", scale=TYPE_COLORS, title="pageblock", legend=alt.Legend(orient="bottom",
                                                                                         labelLimit=0)),
        tooltip=["block", "blocks", "start_pfn", "end_pfn", "type"],
    ).properties(width=_width(0.95), height=28)
    lines = alt.Chart(pos).mark_line().encode(
        x=alt.X("pfn:Q", title="pfn", scale=alt.Scale(domain=[0, n])),
        y=alt.Y("step:Q", title="compaction step", scale=alt.Scale(reverse=True)),
        color=alt.Color("scanner:N", scale=SCANNER_COLORS, title=None,
                        legend=alt.Legend(orient="bottom", labelLimit=0)),
        strokeDash=alt.StrokeDash("scanner:N", scale=alt.Scale(domain=SCANNERS, range=[[1, 0], [1, 0], [4, 3]]),
                                  legend=None),
        tooltip=["step", alt.Tooltip("elapsed:Q", format=".2f"), "scanner", "pfn", "wrapped"],
    ).properties(width=_width(0.95), height=int(mode().height * 0.9))
    t = alt.TitleParams(title or f"one compaction run of the {task} ({int(pos['step'].max()) + 1} steps)",
                        subtitle=["the migrate scanner climbs from the zone's start, the free scanner comes down "
                                  "from where it starts,", "until they meet; the pageblocks above are the zone, "
                                  "coloured by migratetype"])
    return alt.vconcat(blocks, lines, title=t).resolve_scale(color="independent")


# --------------------------------------------------------------------------- buddyinfo: model beside a capture


def df_free_by_order(buddyinfo: pd.DataFrame, source: str, zone: str | None = None) -> pd.DataFrame:
    """Free memory by order over time from a buddyinfo frame, as shares of the zone's free memory.

    Columns: ``source, elapsed, order, free_pages, share`` (share of the free pages in blocks of that order).
    ``zone``: the zone to keep (default: the one with the most free memory on average).
    """
    cols = [c for c in buddyinfo.columns if isinstance(c, str) and c.startswith("order_")]
    b = buddyinfo.copy()
    if "elapsed" not in b.columns:
        b["elapsed"] = b["sample"].astype(float)
    if zone is None:
        pages = sum(b[c] * (1 << int(c.split("_")[1])) for c in cols)
        zone = b.assign(p=pages).groupby("zone")["p"].mean().idxmax()
    b = b[b["zone"] == zone]
    long = b.melt(id_vars=["elapsed"], value_vars=cols, var_name="order", value_name="blocks")
    long["order"] = long["order"].str.split("_").str[1].astype(int)
    long["free_pages"] = long["blocks"] * (2 ** long["order"])
    tot = long.groupby("elapsed")["free_pages"].transform("sum").replace(0, np.nan)
    long["share"] = long["free_pages"] / tot
    long.insert(0, "source", source)
    return long[["source", "elapsed", "order", "free_pages", "share"]]


def plot_free_by_order(model_buddy: pd.DataFrame, capture_buddy: pd.DataFrame | None = None,
                       capture_name: str = "capture", title: str = "free memory by order over time"):
    """Stacked shares of free memory by order, the model's run beside a real ``/proc/buddyinfo``."""
    d = [df_free_by_order(model_buddy, "model")]
    if capture_buddy is not None:
        d.append(df_free_by_order(capture_buddy, capture_name))
    d = pd.concat(d, ignore_index=True)
    return alt.Chart(d).mark_area().encode(
        x=alt.X("elapsed:Q", title="seconds"),
        y=alt.Y("share:Q", stack="normalize", title="share of free pages"),
        color=alt.Color("order:O", scale=alt.Scale(scheme="viridis", domain=list(range(11))), title="order",
                        legend=alt.Legend(orient="bottom", columns=11)),
        row=alt.Row("source:N", title=None),
        tooltip=["source", alt.Tooltip("elapsed:Q", format=".0f"), "order", "free_pages",
                 alt.Tooltip("share:Q", format=".2f")],
    ).properties(width=_width(0.9), height=int(mode().height * 0.45), title=title).resolve_scale(x="independent")


def df_fragmentation_over_time(model_buddy: pd.DataFrame, capture_buddy: pd.DataFrame | None = None,
                               order: int = 9, capture_name: str = "capture") -> pd.DataFrame:
    """The unusable free space index and the fragmentation index at ``order``, model and capture.

    Columns: ``source, elapsed, index`` (``unusable free space`` / ``fragmentation (extfrag)``), ``value``.
    """
    frames = []
    for name, b in (("model", model_buddy), (capture_name, capture_buddy)):
        if b is None:
            continue
        f = df_fragmentation(b, order)
        if "elapsed" not in f.columns:
            f["elapsed"] = f["sample"].astype(float)
        # one zone: the one with the most free memory
        z = f.groupby("zone")["free_pages"].mean().idxmax()
        f = f[f["zone"] == z]
        for col, label in (("unusable_index", "unusable free space"), ("extfrag_index", "fragmentation (extfrag)")):
            frames.append(pd.DataFrame({"source": name, "elapsed": f["elapsed"].to_numpy(), "index": label,
                                        "value": f[col].to_numpy()}))
    return pd.concat(frames, ignore_index=True)


def plot_fragmentation(model_buddy: pd.DataFrame, capture_buddy: pd.DataFrame | None = None, order: int = 9,
                       capture_name: str = "capture"):
    """Both fragmentation indices over time for the model and a capture (0 = none, 1 = all unusable)."""
    d = df_fragmentation_over_time(model_buddy, capture_buddy, order, capture_name)
    names = list(dict.fromkeys(d["source"]))
    return alt.Chart(d).mark_line().encode(
        x=alt.X("elapsed:Q", title="seconds"),
        y=alt.Y("value:Q", title=f"index at order {order}", scale=alt.Scale(domain=[-1, 1])),
        color=alt.Color("source:N", scale=alt.Scale(domain=names, range=["#f58518", "#4c4c4c"][:len(names)]),
                        title=None, legend=alt.Legend(orient="bottom")),
        row=alt.Row("index:N", title=None),
        tooltip=["source", alt.Tooltip("elapsed:Q", format=".0f"), alt.Tooltip("value:Q", format=".3f")],
    ).properties(width=_width(0.9), height=int(mode().height * 0.4)).resolve_scale(x="independent")


# --------------------------------------------------------------------------- the explorer


EXPLORER_KNOBS = ["compact_max_defer_shift", "compact_capture_page", "compact_checklock_irqsave",
                  "reclaim_order_0", "compact_cached_free_pfn", "extfrag_threshold", "min_free_kbytes"]


def df_explore(params, workload, background_load: float = 1.0, seed: int = 1) -> pd.DataFrame:
    """One run with the build load scaled by ``background_load``: success % per pass.

    Columns: ``pass, attempts, allocated, success_pct``.
    """
    w = workload.with_(page_ins_kb_s=workload.page_ins_kb_s * background_load,
                       hot_refs_s=workload.hot_refs_s * background_load,
                       dirty_pages_s=workload.dirty_pages_s * background_load,
                       build_procs=max(0, int(round(workload.build_procs * background_load))))
    return simulate(params, w, seed=seed, verbose=False).passes()


def plot_explore(d: pd.DataFrame, settings: pd.DataFrame | None = None, title: str = "") -> alt.Chart:
    """Bars of :func:`df_explore`: success % per pass; ``settings`` (one row, column ``settings``: the knobs'
    echo), when given, is drawn above the bars as data, so that an explorer's redraw swaps it with the bars'
    data (a title that named the settings made every redraw a new chart for the browser to embed)."""
    bars = alt.Chart(d).mark_bar(color="#f58518").encode(
        x=alt.X("pass:N", sort=PASSES, title=None, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("success_pct:Q", title="success (%)", scale=alt.Scale(domain=[0, 100])),
        tooltip=[alt.Tooltip("pass"), alt.Tooltip("attempts"), alt.Tooltip("allocated"),
                 alt.Tooltip("success_pct:Q", format=".1f")],
    ).properties(width=_width(0.6), height=int(mode().height * 0.7))
    if settings is None:
        return bars.properties(title=title)
    # a line of text the width of the page (the echo is longer than the bars are wide), with no frame around it
    said = alt.Chart(settings).mark_text(align="left", baseline="middle", fontWeight="bold").encode(
        text="settings:N", x=alt.value(0), y=alt.value(9)).properties(
        width=_width(1.0), height=18, view=alt.ViewBackground(strokeWidth=0))
    return alt.vconcat(said, bars, spacing=4).properties(title=title)


def compaction_explorer(workload=None, variant: str = "contended-v5", seed: int = 1):
    """The thread's knobs over one stress-highalloc run (``min_free_kbytes`` starts at what 3.x computes).

    ``workload``: the reproduction's zone by default (``zone_mb`` 1 GB): a smaller slice is quicker but not the
    same test -- its watermarks shrink with it while ``2 << order`` in ``compaction_suitable()`` does not
    (docs/models/compaction.md, "A slice of the machine"): with the fitted load a 256 MB slice succeeds about 1%
    where the 1 GB slice succeeds 60-97%.  A run takes about 0.3 s of CPU once its zone is booted (simulate()
    keeps booted zones: every knob but ``min_free_kbytes`` starts from a copy), 0.35 s with boot, so the runs of
    the next notches are made ahead while the person looks (explorer.Runs) and the status counts a longer wait.
    In ``WORKBOOK_MODE=ci`` the default settings are drawn once, statically.
    """
    import ipywidgets as w_

    from ...models.compaction import min_free_kbytes
    from ...ui.charts import LiveChart
    from ...ui.explorer import FAR_AHEAD_S, Runs, explorer

    workload = workload or sh.stress_highalloc()
    p = params_for(variant)
    p = p.with_(min_free_kbytes=min_free_kbytes(p, workload))
    load = w_.FloatSlider(value=1.0, min=0.0, max=2.0, step=0.1, description="background load (x the fitted builds)",
                          style={"description_width": "initial"}, continuous_update=False,
                          layout=w_.Layout(width="98%"))

    live = LiveChart(plot_explore)  # built once (one title), the bars and the settings line swapped per redraw
    # one setting's run: a pure function of the setting (seeded), kept and made ahead.  A fresh run misses the
    # explorers' 100 ms (about 0.2 s, docs "Speed"), so every value of every control is made ahead, nearest
    # first, not only the next notch: a slider dragged several steps is then a kept run too once the person
    # has looked a while (4-5 runs a second on the background thread, for FAR_AHEAD_S after each change: about
    # five notches of every widget).  Each kept run is a 3-row frame.
    runs = Runs(lambda params, background_load: df_explore(params, workload, background_load, seed),
                keep=1024, ahead_s=FAR_AHEAD_S)

    def draw(params, background_load=1.0):
        d = runs.get(params, float(background_load))
        said = pd.DataFrame({"settings": [f"{params.echo(params_for(variant))} (a {workload.zone_mb:g} MB zone)"]})
        return live.show(d, said, title=f"stress-highalloc on {variant}: success per pass")

    return explorer(p, EXPLORER_KNOBS, draw, controls={"background_load": load},
                    title=f"stress-highalloc on {variant}: change a knob, the run is redone",
                    ahead=lambda settings: runs.ahead([(q, float(c["background_load"])) for q, c in settings]),
                    reach=None)


__all__ = ["plot_success", "plot_cells", "df_scanners", "plot_scanners", "df_free_by_order", "plot_free_by_order",
           "df_fragmentation_over_time", "plot_fragmentation", "df_explore", "plot_explore", "compaction_explorer",
           "KERNEL_COLORS", "TYPE_COLORS", "SOURCE_COLORS"]
