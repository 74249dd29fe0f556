"""Charts and panels of the fair-zone allocator model (LISA naming: ``df_*`` data, ``plot_*`` charts).

* :func:`df_batch_trace` / :func:`plot_batches` -- NR_ALLOC_BATCH of DMA32 and
  Normal allocation by allocation, the zone each page came from, and the
  resets, for each variant;
* :func:`df_spread` / :func:`plot_spread` -- the allocation spread, model beside
  published;
* :func:`df_velocity` / :func:`plot_velocity` -- pages scanned per second by zone;
* :func:`df_decomposition` / :func:`plot_decomposition` -- how much of a
  kernel's SeqRead change each assumption carries;
* :func:`plot_kswapd_cycle` -- each zone's free pages as kswapd cycles, for each ``min_free_kbytes``
  (the data: ``reproduce.fairzone_2014.df_kswapd_cycle``);
* :func:`fairzone_explorer` -- the knobs as widgets, from their declaration
  (:mod:`kernel_workbook.ui.explorer`), with a menu of the thread's kernels;
  in ``WORKBOOK_MODE=ci`` a static default.
"""

from __future__ import annotations


import altair as alt
import numpy as np
import pandas as pd

from ...config import mode
from ...models.fairzone import simulate, variant_params, zone_setup
from ...models.fairzone import MACHINES, PAGES_PER_MB, VARIANTS, Machine
from ...tables import render
from .pagecache import stream_read, tiobench
from ...frames import Attached, Table

ZONE_COLORS = alt.Scale(domain=["DMA32", "Normal"], range=["#e45756", "#4c78a8"])


# --------------------------------------------------------------------------- batches over time

def df_batch_trace(variants=("3.16-rc1", "fairzone", "bigbatches", "3.0"), machine: Machine | str = "desktop-2014",
                   allocations: int = 4000, readers: int = 4, seed: int = 1, kswapd_stays_awake: bool = False,
                   **overrides) -> pd.DataFrame:
    """A window of ``allocations`` allocations in the steady state of a streaming read, for each variant.

    The node is first filled with page cache (one pass over its memory),
    then the window is recorded.  Columns: ``variant, n, t_ms, zone,
    nr_alloc_batch_dma32, nr_alloc_batch_normal, free_dma32, free_normal,
    reset, path, depleted_dma32, depleted_normal``.
    """
    frames = []
    for v in variants:
        p = variant_params(v, machine, kswapd_stays_awake=kswapd_stays_awake, **overrides)
        mb = sum(p.machine.managed_mb)
        fill = int(mb * PAGES_PER_MB) * 6 // 5  # a fifth more than the node: full of page cache
        r = simulate(p, stream_read(fill + allocations, threads=readers), seed=seed, trace=allocations,
                     trace_start=fill, verbose=False)
        t = r.df_trace()
        t.insert(0, "n", np.arange(len(t)))
        t.insert(0, "variant", v)
        frames.append(t)
    return pd.concat(frames, ignore_index=True)


def _runs(df: pd.DataFrame) -> pd.DataFrame:
    """Consecutive allocations from one zone as one segment: ``variant, start, end, zone``."""
    out = []
    for v, g in df.groupby("variant", sort=False):
        z = g["zone"].to_numpy()
        n = g["n"].to_numpy()
        cut = np.flatnonzero(z[1:] != z[:-1]) + 1
        starts = np.concatenate([[0], cut])
        ends = np.concatenate([cut, [len(z)]])
        for a, b in zip(starts, ends):
            out.append({"variant": v, "start": int(n[a]), "end": int(n[b - 1]) + 1, "zone": z[a]})
    return pd.DataFrame(out, columns=["variant", "start", "end", "zone"])


def _thin(df: pd.DataFrame, points: int = 400) -> pd.DataFrame:
    """Every k-th allocation, plus the allocations on either side of a reset (so the saw-tooth keeps its teeth)."""
    keep = np.zeros(len(df), bool)
    for _, idx in df.groupby("variant", sort=False).indices.items():
        k = max(1, len(idx) // points)
        keep[idx[::k]] = True
        keep[idx[-1]] = True
        r = idx[df["reset"].to_numpy()[idx]]
        keep[r] = True
        keep[np.clip(r - 1, idx[0], idx[-1])] = True
    return df[keep]


def plot_batches(df: pd.DataFrame, title: str = "NR_ALLOC_BATCH, allocation by allocation") -> alt.Chart:
    """One panel per variant: the two zones' batch counts (lines), the zone of each page (bands), resets (rules)."""
    m = mode()
    thin = _thin(df)
    long = thin.melt(["variant", "n"], ["nr_alloc_batch_dma32", "nr_alloc_batch_normal"], var_name="zone",
                     value_name="NR_ALLOC_BATCH")
    long["zone"] = long["zone"].map({"nr_alloc_batch_dma32": "DMA32", "nr_alloc_batch_normal": "Normal"})
    w = m.width * 9 // 10
    resets = df[df["reset"]][["variant", "n"]]
    if len(resets) > 400:  # a reset every few hundred pages: draw the first ones only
        resets = resets.groupby("variant", sort=False).head(100)
    runs = _runs(df)
    rows = []
    for v in dict.fromkeys(df["variant"]):
        lines = alt.Chart(long[long["variant"] == v]).mark_line(strokeWidth=1.5).encode(
            x=alt.X("n:Q", title="allocation"), y=alt.Y("NR_ALLOC_BATCH:Q", title="NR_ALLOC_BATCH"),
            color=alt.Color("zone:N", scale=ZONE_COLORS, title="zone"))
        rule = alt.Chart(resets[resets["variant"] == v]).mark_rule(color="#999", strokeDash=[2, 2],
                                                                   opacity=0.6).encode(x="n:Q")
        band = alt.Chart(runs[runs["variant"] == v]).mark_rect().encode(
            x=alt.X("start:Q", title=None, axis=None), x2="end:Q", y=alt.Y("zone:N", title="page from"),
            color=alt.Color("zone:N", scale=ZONE_COLORS, legend=None),
            tooltip=["variant", "zone", "start", "end"]).properties(width=w, height=28)
        rows.append(alt.vconcat(alt.layer(lines, rule).properties(width=w, height=110, title=v), band, spacing=2))
    return alt.vconcat(*rows).properties(title=title)


# --------------------------------------------------------------------------- spread and velocity

def df_spread(results: dict, published_cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """Allocation spread per kernel: ``kernel, source, zone, allocs, percent``.

    ``results`` maps a label to a :class:`FairZoneResult` (source ``model``);
    ``published_cells`` (``fairzone-spread``) adds the thread's counts (source ``published``).
    """
    rows = []
    for label, r in results.items():
        sp = r.spread()
        for z in ("DMA32", "Normal"):
            rows.append({"kernel": label, "source": "model", "zone": z, "allocs": sp[f"{z} allocs"],
                         "percent": sp[f"{z} allocs %"]})
    if published_cells is not None:
        pub = published_cells[published_cells["row"].isin(["DMA32 allocs", "Normal allocs"])]
        for k, g in pub.groupby("kernel", sort=False):
            tot = g["value"].sum()
            for r in g.itertuples():
                rows.append({"kernel": k, "source": "published", "zone": r.row.split()[0], "allocs": r.value,
                             "percent": 100.0 * r.value / tot if tot else float("nan")})
    return pd.DataFrame(rows, columns=["kernel", "source", "zone", "allocs", "percent"])


def plot_spread(df: pd.DataFrame, title: str = "allocation spread: share of pages from each zone") -> alt.Chart:
    m = mode()
    return alt.Chart(df).mark_bar().encode(
        y=alt.Y("kernel:N", title=None, sort=None), x=alt.X("percent:Q", title="% of allocations", stack="normalize"),
        color=alt.Color("zone:N", scale=ZONE_COLORS, legend=alt.Legend(orient="bottom")),
        row=alt.Row("source:N", title=None),
        tooltip=["kernel", "source", "zone", alt.Tooltip("allocs:Q", format=",.0f"),
                 alt.Tooltip("percent:Q", format=".1f")],
    ).properties(width=int(m.width * 0.8), title=title).resolve_scale(y="independent")


def df_velocity(results: dict, time_scale: float = 1.0) -> pd.DataFrame:
    """``kernel, zone, velocity`` (pages scanned per second; mmtests' "Zone X velocity") x ``time_scale``."""
    rows = []
    for label, r in results.items():
        v = r.velocity()
        for z in ("DMA32", "Normal"):
            rows.append({"kernel": label, "zone": z, "velocity": v[f"Zone {z.lower()} velocity"] * time_scale})
    return pd.DataFrame(rows, columns=["kernel", "zone", "velocity"])


def plot_velocity(df: pd.DataFrame, title: str = "zone velocity (pages scanned per second)") -> alt.Chart:
    m = mode()
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("kernel:N", title=None, sort=None), xOffset="zone:N", y=alt.Y("velocity:Q", title="pages/s"),
        color=alt.Color("zone:N", scale=ZONE_COLORS, legend=alt.Legend(orient="bottom")),
        tooltip=["kernel", "zone", alt.Tooltip("velocity:Q", format=",.0f")],
    ).properties(width=int(m.width * 0.8), height=m.height, title=title)


# --------------------------------------------------------------------------- what each assumption carries

COMPONENTS = {"cfq": "CFQ (target_latency / 3.0's CFQ)", "fast_path": "allocator fast path (CPU)",
              "zone_switch": "zone-switch cache effect (assumed)", "pagecache_hits": "page-cache hits (reclaim order)"}


def df_decomposition(machine_key: str, kernels, readers=(1, 2, 4, 8, 16), small: bool | None = None,
                     published_cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per kernel and reader count: each assumption's share of the model's SeqRead change (one at a time).

    Columns: ``kernel, readers, component, pct`` where ``component`` is one of
    :data:`COMPONENTS`' labels, ``model (all together)`` or ``published``.
    """
    from . import fairzone_2014 as fz

    rows = []
    for k in kernels:
        for n in readers:
            d = fz.decompose(machine_key, k, n, small=small)
            for key, label in COMPONENTS.items():
                rows.append({"kernel": k, "readers": n, "component": label, "pct": d[key]})
            rows.append({"kernel": k, "readers": n, "component": "model (all together)", "pct": d["total"]})
            if published_cells is not None:
                c = published_cells[(published_cells["kernel"] == k) & (published_cells["row"] == f"SeqRead-MB/sec-{n}")
                                    & (published_cells["stat"] == "Mean")]
                if len(c):
                    rows.append({"kernel": k, "readers": n, "component": "published", "pct": float(c["pct"].iloc[0])})
    return pd.DataFrame(rows, columns=["kernel", "readers", "component", "pct"])


def df_decomposition_table(df: pd.DataFrame) -> pd.DataFrame:
    """:func:`df_decomposition` side by side: index ``(kernel, readers)``, one column per ``component`` (sorted
    by name), the change ``pct``."""
    return df.pivot_table(index=["kernel", "readers"], columns="component", values="pct")


def plot_decomposition(df: pd.DataFrame, title: str = "SeqRead change against vanilla, by assumption") -> alt.Chart:
    m = mode()
    order = list(COMPONENTS.values()) + ["model (all together)", "published"]
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("readers:O", title="readers"), xOffset=alt.XOffset("component:N", sort=order),
        y=alt.Y("pct:Q", title="% change against 3.16-rc1 vanilla"),
        color=alt.Color("component:N", sort=order, title=None,
                        scale=alt.Scale(domain=order, range=["#9ecae9", "#f58518", "#eeca3b", "#54a24b", "#4c78a8",
                                                             "#222222"])),
        column=alt.Column("kernel:N", title=None),
        tooltip=["kernel", "readers", "component", alt.Tooltip("pct:Q", format="+.2f")],
    ).properties(width=int(m.width * 0.45), height=m.height, title=title)


# --------------------------------------------------------------------------- kswapd's cycle

def plot_kswapd_cycle(df: pd.DataFrame, ms: float = 320.0,
                      title: str = "free pages per zone, allocation by allocation (3.0, one reader)") -> alt.Chart:
    """Each zone's free pages over the first ``ms`` of :func:`~.fairzone_2014.df_kswapd_cycle`
    (columns ``min_free_kbytes, ms, zone, free DMA32, free Normal, path``), one row of charts per
    ``min_free_kbytes``: the allocator walks Normal down to its low watermark, then DMA32; each rise is kswapd."""
    m = mode()
    d = df[df["ms"] <= ms].melt(id_vars=["min_free_kbytes", "ms"], value_vars=["free DMA32", "free Normal"],
                                var_name="zone", value_name="free pages")
    d["zone"] = d["zone"].str.removeprefix("free ")
    return alt.Chart(d).mark_line(interpolate="step-after").encode(
        x=alt.X("ms:Q", title="ms"), y=alt.Y("free pages:Q", title="free pages", scale=alt.Scale(zero=False)),
        color=alt.Color("zone:N", scale=ZONE_COLORS, title=None),
        tooltip=["min_free_kbytes", alt.Tooltip("ms:Q", format=".1f"), "zone", "free pages"],
    ).properties(width=m.width - 60, height=int(m.height * 0.45)).facet(  # 60 px: the row header
        row=alt.Row("min_free_kbytes:O", title="min_free_kbytes"), title=title
    ).resolve_scale(y="independent")


# --------------------------------------------------------------------------- the explorer


# The explorer runs the desktop at half its size at the reproduction's resolution, 32 pages a simulated unit
# (models.fairzone pages_per_unit; reproduce.fairzone_2014.PAGES_PER_UNIT): a fresh redraw in about 60 ms where
# the whole node takes about 100.  min_free_kbytes and the batches are computed for the smaller node as the
# kernel would; how close it stays to the whole desktop is in fairzone_explorer's docstring and
# docs/models/fairzone.md ("The explorer's node").
EXPLORER_SCALE = 2
EXPLORER_PAGES_PER_UNIT = 32
EXPLORER_KNOBS = ("NR_ALLOC_BATCH", "nr_alloc_batch_shift", "nr_alloc_batch_pages", "ZONE_FAIR_DEPLETED",
                  "zone_dirty_ok", "kswapd_wake_at", "kswapd_stays_awake", "min_free_kbytes", "dma32_mb")
_EXPLORE_CACHE: dict = {}


def explorer_machine(scale: int = EXPLORER_SCALE, dma32_mb: float | None = None) -> Machine:
    """Mel's desktop at 1/``scale`` of its size (every zone, hole and held memory scaled alike)."""
    m = MACHINES["desktop-2014"]
    d32 = m.dma32_mb if dma32_mb is None else dma32_mb
    return m.with_(ram_mb=max(1, int(m.ram_mb // scale)), dma_mb=m.dma_mb / scale, dma32_mb=d32 / scale,
                   hole_mb=m.hole_mb / scale, other_mb=m.other_mb / scale)


def _explore_run(params, size_fraction: float, readers: int, seed: int):
    w = tiobench(ram_mb=params.machine.ram_mb, size_fraction=size_fraction, threads=(int(readers),),
                 phases=("SeqWrite", "SeqRead"))
    key = (params, size_fraction, int(readers), seed)
    r = _EXPLORE_CACHE.get(key)  # one lookup: the explorer's runs ahead (a thread) may clear it meanwhile
    if r is None:
        if len(_EXPLORE_CACHE) > 64:
            _EXPLORE_CACHE.clear()
        r = _EXPLORE_CACHE[key] = simulate(params, w, seed=seed, verbose=False)
    return r


def df_explore(params, size_fraction: float = 2.0, readers: int = 4, seed: int = 1) -> pd.DataFrame:
    """3.16-rc1 vanilla and ``params`` on the same machine, tiobench SeqWrite + SeqRead at one reader count.

    Vanilla keeps the machine and the machine-wide knobs of ``params`` (``min_free_kbytes``, the kswapd
    what-if) and the 3.16-rc1 allocator.  Columns (one row per kernel): ``kernel, DMA32 allocs %,
    Zone dma32 velocity, Zone normal velocity, SeqRead hits %, SeqRead MB/s, SeqRead zonelist scans/alloc,
    SeqRead batch resets``; ``df.attrs["results"]`` holds the two runs.  The allocator's work is SeqRead's,
    the phase whose cost the reproduction prices: at 32 pages a unit it is within a few percent of the page
    model's, SeqWrite's is not (docs/models/fairzone.md, "Resolution: pages per unit").
    """
    vanilla = variant_params("3.16-rc1", params.machine, min_free_kbytes=params.min_free_kbytes,
                             kswapd_stays_awake=params.kswapd_stays_awake, pages_per_unit=params.pages_per_unit)
    res = {"3.16-rc1 vanilla": _explore_run(vanilla, size_fraction, readers, seed),
           f"{params.name} (your knobs)": _explore_run(params, size_fraction, readers, seed)}
    rows = []
    for k, r in res.items():
        sp = r.spread()
        v = r.velocity()
        ph = r.df_phases()
        sr = ph[ph["phase"] == "SeqRead"]
        c = r.phase_counters("SeqRead")
        rows.append({"kernel": k, "DMA32 allocs %": round(sp["DMA32 allocs %"], 1),
                     "Zone dma32 velocity": round(v["Zone dma32 velocity"], 1),
                     "Zone normal velocity": round(v["Zone normal velocity"], 1),
                     "SeqRead hits %": round(float(sr["hit_pct"].iloc[0]), 2) if len(sr) else float("nan"),
                     "SeqRead MB/s": round(float(sr["MB_s"].iloc[0]), 2) if len(sr) else float("nan"),
                     "SeqRead zonelist scans/alloc": round(c["zonelist_scanned"] / max(c["pgalloc"], 1), 3),
                     "SeqRead batch resets": round(c["batch_resets"])})
    df = pd.DataFrame(rows)
    df.attrs["results"] = Attached(res)  # not deep-copied into each derived frame
    return df


def plot_explore(df: pd.DataFrame, published_spread: pd.DataFrame | None = None) -> alt.Chart:
    """The explorer's picture: the spread (model beside published) over the velocities."""
    return _explore_charts(*_explore_parts(df, published_spread))


def _explore_parts(df: pd.DataFrame, published_spread: pd.DataFrame | None) -> tuple:
    # the chart's data: the spread (model beside published) and the velocities of df's runs
    res = df.attrs["results"]
    return df_spread(res, published_spread), df_velocity(res)


def _explore_charts(spread: pd.DataFrame, velocity: pd.DataFrame) -> alt.VConcatChart:
    return alt.vconcat(plot_spread(spread), plot_velocity(velocity))


def fairzone_explorer(published_spread: pd.DataFrame | None = None, scale: int = EXPLORER_SCALE,
                      pages_per_unit: int = EXPLORER_PAGES_PER_UNIT):
    """The allocator's knobs (from their declaration) with a kernel menu for the thread's kernels, the node's
    size, the file size and the readers; live spread and velocity charts and the numbers beside them.

    Runs the desktop at 1/``scale`` of its size (default half: 4 GB) at ``pages_per_unit`` pages a simulated
    unit, the reproduction's resolution: a redraw (two fresh runs when the file size or readers move) in about
    60 ms, where the whole desktop takes about 100 ms (``kwb bench --suites explorers``; ``pages_per_unit=1``:
    page by page, about 15 times slower).  At half size the outputs stay within a tenth of a point of the whole
    desktop's over the thread's kernels, file sizes 1-3x RAM and 1-16 readers, except 3.0 with a file of one
    RAM and one reader (DMA32 allocs 40.1 against 36.4 %), whose kswapd regime depends on the node's size.
    In ``WORKBOOK_MODE=ci`` the defaults (fairzone against vanilla) are drawn statically.
    """
    import ipywidgets as w
    from IPython.display import HTML

    from ...ui.charts import LiveChart
    from ...ui.explorer import Formatted, Runs, explorer

    def presets_at(sc: int) -> dict:
        # min_free_kbytes starts at what the kernel computes at boot for the node (the same value None gives)
        m = explorer_machine(sc)
        return {v: variant_params(v, m, min_free_kbytes=zone_setup(variant_params(v, m)).min_free_kbytes,
                                  pages_per_unit=pages_per_unit) for v in VARIANTS}

    presets = presets_at(scale)
    size = w.FloatSlider(value=2.0, min=0.25, max=3.0, step=0.05, description="tiobench file size / RAM",
                         continuous_update=False, style={"description_width": "initial"}, layout=w.Layout(width="98%"))
    readers = w.SelectionSlider(options=[1, 2, 4, 8, 16], value=4, description="tiobench readers",
                                continuous_update=False, style={"description_width": "initial"},
                                layout=w.Layout(width="98%"))

    def run(p, size_fraction, readers):
        # one setting's runs and chart data: a pure function of the setting (seed 1), kept in ``runs`` and made
        # ahead for the next notches (explorer.Runs)
        df = df_explore(p, size_fraction, readers)
        node = "Mel's desktop" if scale == 1 else f"the desktop at 1/{scale}"
        caption = (f"<small>node: {p.machine.ram_mb} MB ({node}), {p.pages_per_unit} pages a simulated unit; "
                   f"{_explore_run(p, size_fraction, readers, 1).caption()}</small>")
        return df, caption, _explore_parts(df, published_spread), \
            Formatted(Table(df.set_index("kernel").T, index=True, rows=True))

    runs = Runs(run)

    def draw(p, size_fraction, readers):
        df, caption, parts, table = runs.get(p, size_fraction, readers)
        chart = live.show(*parts)  # = plot_explore(df, published_spread)
        return (chart, table, HTML(caption))

    live = LiveChart(_explore_charts)  # built once, the data swapped per redraw

    return explorer(presets["fairzone"], EXPLORER_KNOBS, draw, controls={"size_fraction": size, "readers": readers},
                    presets=presets, preset="fairzone", title="the fair zone allocation policy, knob by knob",
                    enabled_when={"nr_alloc_batch_shift": lambda p: p.NR_ALLOC_BATCH == "managed>>shift",
                                  "nr_alloc_batch_pages": lambda p: p.NR_ALLOC_BATCH == "custom"},
                    ahead=lambda settings: runs.ahead([(p, c["size_fraction"], c["readers"]) for p, c in settings]))


def published_and_model(published_cells: pd.DataFrame, model_cells: pd.DataFrame) -> str:
    """Two mmtests tables one above the other (the thread's layout), for printing."""
    return render(published_cells) + "\n" + render(model_cells)
