"""Which knobs move a model's output, and how much (LISA naming: ``df_*`` the data, ``plot_*`` the chart).

The input is a sweep's table (:func:`kernel_workbook.sweep.run_sweep`): one
row per run, its knobs, seed and outputs, with ``attrs["sweep"]["home"]``,
each kernel's own setting of the knobs, which every change here is measured
from.  The sweeps are built with :func:`kernel_workbook.sweep.one_at_a_time`
and :func:`kernel_workbook.sweep.product` over values from
:func:`kernel_workbook.sweep.around` (a rule fixed in advance: each knob
halved and doubled, a flag flipped).

The last part is the sensitivity notebook's study of one cell (the 2014
thread's cfq600 table): its grids (:func:`grids`, :func:`pair_grid`), where
they run (:func:`start`, :func:`run`, :func:`close`) and what it says in
words (the ``*_prose`` functions), so that the notebook only calls and shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd

from ..config import mode
from ..errors import WorkbookParameterError
from ..frames import Prose
from ..models.cfq.params import CFQParams
from ..sweep import Grid, around, one_at_a_time, product, run_sweep
from ..sweep import start as start_client
from ..tables import published
from ..tables.cells import table_meta

SIDES = ["below the kernel's setting", "above the kernel's setting", "another setting"]
SIDE_COLOURS = ["#4c78a8", "#f58518", "#54a24b"]


# --------------------------------------------------------------------------- the published cell

def df_published_cell(thread: str, table: str, stat: str, row: str, kernel: str) -> pd.DataFrame:
    """One published cell beside its table's baseline column, as the thread printed it.

    Columns: ``thread, table, stat, row, kernel, value, baseline, base_value,
    pct`` (mmtests' printed percentage: positive = better), ``unit``.
    """
    cells = published(thread, table)
    meta = table_meta(cells, table)
    base_k = meta.get("baseline") or cells.loc[cells["col"] == cells["col"].min(), "kernel"].iloc[0]
    at = cells[(cells["stat"] == stat) & (cells["row"] == row)]
    if at.empty:
        raise WorkbookParameterError("row", f"{stat} {row}", f"a row of {thread}/{table}: "
                                     + ", ".join(sorted(set(cells["stat"] + " " + cells["row"]))))
    mine, base = at[at["kernel"] == kernel], at[at["kernel"] == base_k]
    if mine.empty:
        raise WorkbookParameterError("kernel", kernel, f"a column of {thread}/{table}: "
                                     + ", ".join(dict.fromkeys(at["kernel"])))
    m, b = mine.iloc[0], base.iloc[0]
    return pd.DataFrame([{"thread": thread, "table": table, "stat": stat, "row": row, "kernel": kernel,
                          "value": m["value"], "baseline": base_k, "base_value": b["value"], "pct": m["pct"],
                          "unit": m["unit"]}])


# --------------------------------------------------------------------------- reading a sweep's table

def _meta(runs: pd.DataFrame) -> dict:
    meta = runs.attrs.get("sweep")
    if not meta:
        raise WorkbookParameterError("runs", type(runs).__name__, "a sweep table (run_sweep / read_sweep), whose "
                                     "attrs['sweep'] names its knobs and each kernel's own setting")
    return meta


def _one(runs: pd.DataFrame, col: str, given):
    names = list(dict.fromkeys(runs[col]))
    if given is None:
        if len(names) != 1:
            raise WorkbookParameterError(col, None, "one of " + ", ".join(map(str, names)) + " (the table has several)")
        return names[0]
    if given not in names:
        raise WorkbookParameterError(col, given, "one of " + ", ".join(map(str, names)))
    return given


def _select(runs: pd.DataFrame, output: str, variant, workload) -> tuple[pd.DataFrame, dict, dict]:
    meta = _meta(runs)
    if output not in runs.columns or output in meta["knobs"] or output in ("variant", "workload", "seed"):
        outs = [c for c in runs.columns if c not in meta["knobs"] and c not in ("variant", "workload", "seed")]
        raise WorkbookParameterError("output", output, "an output of the sweep: " + ", ".join(outs))
    v = _one(runs, "variant", variant)
    w = _one(runs, "workload", workload)
    home = next((h["knobs"] for h in meta.get("home", []) if h["variant"] == v), None)
    if home is None:
        raise WorkbookParameterError("variant", v, "a kernel whose own setting the sweep recorded")
    d = runs[(runs["variant"] == v) & (runs["workload"] == w)]
    return d, home, meta


def _is(col: pd.Series, value) -> pd.Series:
    if value is None:
        return col.isna()
    return col == value


def _at_home(d: pd.DataFrame, home: dict, except_: tuple = ()) -> pd.Series:
    mask = pd.Series(True, index=d.index)
    for k, v in home.items():
        if k not in except_:
            mask &= _is(d[k], v)
    return mask


def df_seeds(runs: pd.DataFrame, output: str, variant=None, workload=None) -> pd.DataFrame:
    """The kernel's own setting, seed by seed: how far the seeds alone move ``output``.

    Columns: ``seed, value, mean, delta_pct`` (``(value / mean - 1) * 100``).
    """
    d, home, _ = _select(runs, output, variant, workload)
    at = d[_at_home(d, home)].sort_values("seed")
    if at.empty:
        raise WorkbookParameterError("runs", "no run at the kernel's own setting",
                                     "a sweep that includes the kernel's setting (one_at_a_time does)")
    mean = float(at[output].mean())
    return pd.DataFrame({"seed": at["seed"].to_numpy(), "value": at[output].to_numpy(dtype=float), "mean": mean,
                         "delta_pct": (at[output].to_numpy(dtype=float) / mean - 1) * 100})


def df_tornado(runs: pd.DataFrame, output: str, variant=None, workload=None) -> pd.DataFrame:
    """Each knob moved alone from the kernel's setting: the mean of ``output`` over the seeds and its change.

    Columns: ``knob, label`` (the knob's name and unit), ``unit, source,
    home, value, side`` (one of :data:`SIDES`), ``mean, home_mean,
    delta_pct`` (``(mean / home_mean - 1) * 100``), ``seeds, span_pct`` (the
    knob's largest minus smallest change, 0 included), ``rank`` (1: moves
    the output most).  Knobs in rank order.
    """
    d, home, meta = _select(runs, output, variant, workload)
    at_home = d[_at_home(d, home)]
    home_mean = float(at_home[output].mean()) if len(at_home) else float("nan")
    rows = []
    for k in meta["knobs"]:
        alone = d[_at_home(d, home, except_=(k,)) & ~_is(d[k], home[k])]
        for value, g in alone.groupby(k, sort=True, dropna=False):
            value = None if isinstance(value, float) and math.isnan(value) else _plain(value)
            mean = float(g[output].mean())
            if isinstance(value, (int, float)) and not isinstance(value, bool) and isinstance(home[k], (int, float)) \
                    and not isinstance(home[k], bool):
                side = SIDES[0] if value < home[k] else SIDES[1]
            else:
                side = SIDES[2]
            unit = meta["units"].get(k, "")
            rows.append({"knob": k, "label": k + ("" if unit in ("", "flag", "choice") else f" ({unit})"),
                         "unit": unit, "source": meta["sources"].get(k, ""), "home": home[k], "value": value,
                         "side": side, "mean": mean, "home_mean": home_mean,
                         "delta_pct": (mean / home_mean - 1) * 100, "seeds": int(len(g))})
    cols = ["knob", "label", "unit", "source", "home", "value", "side", "mean", "home_mean", "delta_pct", "seeds",
            "span_pct", "rank"]
    t = pd.DataFrame(rows, columns=cols[:-2])
    if t.empty:
        return pd.DataFrame(columns=cols)
    span = t.groupby("knob")["delta_pct"].agg(lambda s: max(s.max(), 0) - min(s.min(), 0))
    t["span_pct"] = t["knob"].map(span)
    order = span.sort_values(ascending=False, kind="stable")
    t["rank"] = t["knob"].map({k: i + 1 for i, k in enumerate(order.index)})
    return t.sort_values(["rank", "value"], key=_sort_key, kind="stable").reset_index(drop=True)[cols]


def _sort_key(col: pd.Series) -> pd.Series:
    if col.name == "value":  # mixed types (numbers, flags, names): order by text within a knob
        return col.map(lambda v: (0, v) if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, str(v)))
    return col


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def df_heatmap(runs: pd.DataFrame, output: str, x: str, y: str, variant=None, workload=None) -> pd.DataFrame:
    """Two knobs moved together, the others at the kernel's setting: the mean of ``output`` over the seeds.

    Columns: ``x, y`` (the two knobs' values), ``mean, home_mean, delta_pct``
    (from the run at the kernel's setting of both), ``seeds``.
    """
    d, home, meta = _select(runs, output, variant, workload)
    for k in (x, y):
        if k not in meta["knobs"]:
            raise WorkbookParameterError("knob", k, "a knob of the sweep: " + ", ".join(meta["knobs"]))
    if x == y:
        raise WorkbookParameterError("y", y, "a knob other than x")
    both = d[_at_home(d, home, except_=(x, y))]
    g = both.groupby([x, y], sort=True, dropna=False)[output].agg(["mean", "size"]).reset_index()
    base = g[_is(g[x], home[x]) & _is(g[y], home[y])]["mean"]
    home_mean = float(base.iloc[0]) if len(base) else float("nan")
    out = pd.DataFrame({"x": g[x].map(_plain), "y": g[y].map(_plain), "mean": g["mean"].astype(float),
                        "home_mean": home_mean, "delta_pct": (g["mean"].astype(float) / home_mean - 1) * 100,
                        "seeds": g["size"].astype(int)})
    out.attrs["knobs"] = {"x": x, "y": y, "units": {k: meta["units"].get(k, "") for k in (x, y)},
                          "home": {x: home[x], y: home[y]}, "output": output}
    return out


# --------------------------------------------------------------------------- charts

def plot_tornado(tornado: pd.DataFrame, seeds: pd.DataFrame | None = None, reference: pd.DataFrame | None = None,
                 output: str = "output", title: str | None = None) -> alt.Chart:
    """Bars of ``df_tornado``: each knob's change of the output at each value, knobs in rank order.

    ``seeds`` (``df_seeds``): a grey band, how far the seeds alone move it;
    ``reference``: rules at given changes, columns ``label, pct`` (for
    example the published change of the cell).
    """
    m = mode()
    d = tornado.copy()
    d["value_text"] = d["value"].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    d["home_text"] = d["home"].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    order = list(dict.fromkeys(d["label"]))
    height = max(160, min(m.height * 2, 26 * max(1, len(order))))
    y = alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelLimit=0))
    layers = []
    if seeds is not None and len(seeds):
        band = pd.DataFrame({"lo": [float(seeds["delta_pct"].min())], "hi": [float(seeds["delta_pct"].max())],
                             "what": [f"seeds alone ({len(seeds)} seeds at the kernel's setting)"]})
        layers.append(alt.Chart(band).mark_rect(color="#bbbbbb", opacity=0.45).encode(
            x="lo:Q", x2="hi:Q", tooltip=["what", alt.Tooltip("lo:Q", format="+.2f"),
                                         alt.Tooltip("hi:Q", format="+.2f")]))
    bars = alt.Chart(d).mark_bar(height=alt.RelativeBandSize(0.42)).encode(
        y=y,
        yOffset=alt.YOffset("side:N", scale=alt.Scale(domain=SIDES)),
        x=alt.X("delta_pct:Q", title=f"change of {output} from the kernel's setting, %"),
        color=alt.Color("side:N", scale=alt.Scale(domain=SIDES, range=SIDE_COLOURS), title="value tried",
                        legend=alt.Legend(orient="bottom", labelLimit=0)),
        tooltip=["knob", "unit", alt.Tooltip("home_text:N", title="kernel's setting"),
                 alt.Tooltip("value_text:N", title="value"), alt.Tooltip("mean:Q", format=",.2f"),
                 alt.Tooltip("delta_pct:Q", format="+.2f"), "seeds", "source"],
    )
    layers.append(bars)
    # the value each bar ran with, at its end (a static chart has no tooltips)
    d["anchor"] = np.where(d["delta_pct"] >= 0, "left", "right")
    for anchor, dx in (("left", 4), ("right", -4)):
        part = d[d["anchor"] == anchor]
        if len(part):
            layers.append(alt.Chart(part).mark_text(align=anchor, dx=dx, fontSize=max(9, m.font_size - 2)).encode(
                y=y, yOffset=alt.YOffset("side:N", scale=alt.Scale(domain=SIDES)), x="delta_pct:Q",
                text="value_text:N"))
    layers.append(alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="gray").encode(x="x:Q"))
    if reference is not None and len(reference):
        ref = reference[["label", "pct"]].copy()
        layers.append(alt.Chart(ref).mark_rule(strokeDash=[6, 3], strokeWidth=2).encode(
            x="pct:Q", color=alt.value("black"), tooltip=["label", alt.Tooltip("pct:Q", format="+.2f")]))
        layers.append(alt.Chart(ref).mark_text(align="left", dx=4, dy=-6, baseline="bottom").encode(
            x="pct:Q", y=alt.value(0), text="label:N"))
    subtitle = ["each knob alone, halved and doubled (a flag flipped); the mean over the seeds"]
    if seeds is not None and len(seeds):
        subtitle.append("grey band: the seeds alone, at the kernel's setting")
    return alt.layer(*layers).properties(
        width=m.width, height=height,
        title=alt.TitleParams(title or f"Which knobs move {output}", subtitle=subtitle))


def plot_heatmap(heat: pd.DataFrame, title: str | None = None, output: str | None = None) -> alt.Chart:
    """Cells of ``df_heatmap``: the change of the output for each pair of values (the number: its mean).

    ``output``: how the title names the output (``"<output>: <x> and <y>"``);
    without it (nor ``title``) the title names the sweep's column.
    """
    m = mode()
    k = heat.attrs.get("knobs", {})
    x, y = k.get("x", "x"), k.get("y", "y")
    units = k.get("units", {})
    lab = lambda n: n + ("" if units.get(n, "") in ("", "flag", "choice") else f" ({units[n]})")  # noqa: E731
    d = heat.copy()
    d["x_text"] = d["x"].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    d["y_text"] = d["y"].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    d["text"] = d["mean"].map(lambda v: f"{v:.1f}")
    xs = [t for _, t in sorted(zip(d["x"], d["x_text"]), key=lambda p: (str(type(p[0])), p[0]))]
    ys = [t for _, t in sorted(zip(d["y"], d["y_text"]), key=lambda p: (str(type(p[0])), p[0]))]
    lim = float(np.nanmax(np.abs(d["delta_pct"]))) if len(d) else 1.0
    base = alt.Chart(d).encode(
        x=alt.X("x_text:O", sort=list(dict.fromkeys(xs)), title=lab(x)),
        y=alt.Y("y_text:O", sort=list(dict.fromkeys(ys))[::-1], title=lab(y)),
    )
    rect = base.mark_rect().encode(
        color=alt.Color("delta_pct:Q", title="change, %",
                        scale=alt.Scale(scheme="blueorange", domain=[-lim or -1, lim or 1], domainMid=0)),
        tooltip=[alt.Tooltip("x_text:N", title=x), alt.Tooltip("y_text:N", title=y),
                 alt.Tooltip("mean:Q", format=",.2f"), alt.Tooltip("delta_pct:Q", format="+.2f"), "seeds"])
    text = base.mark_text(fontSize=m.font_size).encode(text="text:N")
    side = min(m.width, 60 * max(3, len(set(xs))))
    return (rect + text).properties(
        width=side, height=min(m.height, 40 * max(3, len(set(ys)))),
        title=alt.TitleParams(title or (f"{output}: {x} and {y}" if output else
                                        f"{k.get('output', 'output')}: {x} and {y} together"),
                              subtitle=[f"the other knobs at the kernel's setting; the number in a cell is the mean "
                                        f"over {int(d['seeds'].max()) if len(d) else 0} seeds"]))


# --------------------------------------------------------------------------- the sensitivity notebook's study

# The tunables 3.16's CFQ shows in /sys/block/<dev>/queue/iosched/, by the names the model declares (each knob
# declares its sysfs file: CFQParams' ``tunable``)
CFQ_TUNABLES = CFQParams.tunables()
VARIANT = "3.16"
WORKLOAD = "tiobench-seqread"
READERS = 16
PATCH_KNOB, PATCH_VALUE = "cfq_target_latency", 600.0  # the thread's patch: target_latency 300 -> 600 ms


@dataclass(frozen=True)
class Sweeps:
    """The study's grids (``one_at_a_time``: each tunable alone; ``noise``: the kernel's setting, more seeds) and
    what every grid of it shares (``common``: the kernel, workload and fitted machine; ``seeds``), so that
    :func:`pair_grid` runs the same machine."""

    one_at_a_time: Grid
    noise: Grid
    common: dict
    seeds: range
    small: bool


def grids(fitted: pd.DataFrame, size, ram_mb: int, small: bool | None = None) -> Sweeps:
    """The cell's sweeps: 3.16's CFQ tunables each halved and doubled (a flag flipped: ``sweep.around``) with
    ``size.iterations`` seeds, and the kernel's own setting alone with 8 seeds (32 outside CI mode).

    ``fitted``: the thread's fits (``seqread_2014.df_fitted()``), whose ``media_rate_mb_s`` every run uses;
    ``size``: its problem sizes (``seqread_2014.sizes()``: ``iterations, mb_total``); ``ram_mb``: the
    machine's memory.  (The thread's module sits above this one, so the notebook hands them over.)
    """
    small = mode().small if small is None else small
    rate = fitted.loc[fitted["parameter"] == "media_rate_mb_s", "value"]
    if rate.empty:
        raise WorkbookParameterError("fitted", ", ".join(map(str, fitted["parameter"])),
                                     "a fit of media_rate_mb_s (seqread_2014.df_fitted())")
    common = dict(variants=VARIANT, workloads=WORKLOAD,
                  workload_kw={"threads": READERS, "ram_mb": ram_mb, "mb_total": size.mb_total},
                  fixed={"media_rate_mb_s": float(rate.iloc[0])})
    seeds = range(size.iterations)
    oat = one_at_a_time("cfq", around("cfq", list(CFQ_TUNABLES), variant=VARIANT), seeds=seeds, **common)
    noise = product("cfq", {}, seeds=range(8 if small else 32), **common)
    return Sweeps(oat, noise, common, seeds, small)


def grids_prose(sweeps: Sweeps) -> Prose:
    """Each grid of :func:`grids` in one line: how many runs of what."""
    return Prose.bullets([sweeps.one_at_a_time.describe(), sweeps.noise.describe()])


def other_knob(tornado: pd.DataFrame, knob: str = PATCH_KNOB) -> str:
    """The knob of ``df_tornado`` that moves the output most besides ``knob``."""
    others = [k for k in tornado["knob"] if k != knob]
    if not others:
        raise WorkbookParameterError("tornado", ", ".join(dict.fromkeys(tornado["knob"])), f"a knob besides {knob}")
    return others[0]


def pair_grid(sweeps: Sweeps, other: str, knob: str = PATCH_KNOB) -> Grid:
    """``knob`` against ``other``, each at the kernel's setting, halved and doubled (and quartered and
    quadrupled outside CI mode), on the machine and seeds of ``sweeps``."""
    values = around("cfq", [knob, other], variant=VARIANT, with_home=True, steps=1 if sweeps.small else 2)
    return product("cfq", values, seeds=sweeps.seeds, **sweeps.common)


def start(small: bool | None = None, scheduler: str | None = None):
    """Where the study's sweeps run: None in CI mode (in this process, no Dask), else a client of
    ``sweep.start()`` (a ``LocalCluster`` of one process per core, or ``scheduler``'s cluster, which is used in
    either mode).  Give it to :func:`run`; :func:`close` closes it."""
    small = mode().small if small is None else small
    return None if small and scheduler is None else start_client(scheduler)


def run(grid: Grid, client=None) -> pd.DataFrame:
    """``grid``'s table (``sweep.run_sweep``) on ``client``, or in this process when it is None."""
    if client is None:
        return run_sweep(grid, workers=0)
    return run_sweep(grid, client=client)


def close(client) -> None:
    """Close a client of :func:`start` (and the local cluster it started); None: nothing to close."""
    if client is not None:
        client.close()


def seeds_prose(seeds: pd.DataFrame) -> Prose:
    """``df_seeds`` in one sentence: the seeds' range around their mean."""
    return Prose(f"Seeds alone: **{seeds['delta_pct'].min():+.2f} % .. {seeds['delta_pct'].max():+.2f} %** "
                 f"around the mean of {len(seeds)} seeds.")


def df_published_change(cell: pd.DataFrame) -> pd.DataFrame:
    """The published cell's change as a reference for :func:`plot_tornado`.

    Columns: ``label`` (``published: <kernel> vs vanilla``), ``pct``.
    """
    return pd.DataFrame({"label": [f"published: {k} vs vanilla" for k in cell["kernel"]],
                         "pct": cell["pct"].to_numpy()})


def _patch_row(tornado: pd.DataFrame, knob: str, value) -> pd.Series:
    at = tornado[(tornado["knob"] == knob) & (tornado["value"] == value)]
    if at.empty:
        raise WorkbookParameterError("value", value, f"a value of {knob} in the tornado: "
                                     + ", ".join(map(str, tornado.loc[tornado["knob"] == knob, "value"])))
    return at.iloc[0]


def findings_prose(tornado: pd.DataFrame, seeds: pd.DataFrame, cell: pd.DataFrame, knob: str = PATCH_KNOB,
                   value=PATCH_VALUE) -> Prose:
    """What the tornado says, as a list: the patch's change (``knob`` at ``value``) in the model and as
    published, how far the seeds alone move the cell, the knobs that move it more than that (by their
    largest minus smallest change, ``span_pct``), and those that change no run at all."""
    row = _patch_row(tornado, knob, value)
    noise = seeds["delta_pct"].abs().max()
    span = tornado.groupby("knob")["span_pct"].first()
    return Prose.bullets([
        f"`{knob.removeprefix('cfq_')}` {row['home']:g} → {value:g}: model **{row['delta_pct']:+.2f} %**, "
        f"published **{cell['pct'].iloc[0]:+.2f} %**",
        f"seeds alone move the cell by up to {noise:.2f} %",
        "knobs that move it more than the seeds do: " + ", ".join(f"`{k}`" for k, s in span.items() if s > noise),
        "knobs that change no run at all: " + ", ".join(f"`{k}`" for k, s in span.items() if s == 0),
    ])


def miss_prose(seeds: pd.DataFrame, cell: pd.DataFrame, kernel: str, unit: str = "MB/s") -> Prose:
    """The model's absolute value at the kernel's setting (the seeds' mean) against the published baseline's
    (``kernel``: how the sentence names that kernel)."""
    model, base = float(seeds["mean"].iloc[0]), float(cell["base_value"].iloc[0])
    return Prose(f"{cell['row'].iloc[0]}, {kernel}: model **{model:.2f} {unit}**, published **{base:.2f} {unit}** "
                 f"({(model / base - 1) * 100:+.1f} %)")


__all__ = ["df_published_cell", "df_seeds", "df_tornado", "df_heatmap", "plot_tornado", "plot_heatmap", "SIDES",
           "CFQ_TUNABLES", "Sweeps", "grids", "grids_prose", "pair_grid", "other_knob", "start", "run", "close",
           "seeds_prose", "df_published_change", "findings_prose", "miss_prose"]
