"""Altair charts of traces: time series, the 2007 reclaim view, iostat latency, flame graphs (icicles).

Every builder aggregates its data to stay under Altair's default 5000-row limit (``MAX_ROWS``), so the
charts work offline in JupyterLab and as SVG in ``WORKBOOK_MODE=ci``.  LISA names: ``df_*`` returns a
DataFrame, ``plot_*`` an Altair chart.
"""

from __future__ import annotations

import zlib

import altair as alt
import numpy as np
import pandas as pd

from ..config import mode
from ..errors import WorkbookParameterError

MAX_ROWS = 4500


def df_long_series(df: pd.DataFrame, counters: list[str], x: str = "elapsed", by: str | None = None,
                   max_rows: int = MAX_ROWS) -> pd.DataFrame:
    """Long frame (``x``, ``counter``, ``value`` [, ``by``]) of the chosen columns, binned on ``x`` when
    there are more rows than ``max_rows`` (the mean of each bin, so a rate stays a rate)."""
    missing = [c for c in counters if c not in df.columns]
    if missing:
        raise WorkbookParameterError("counters", missing, "columns of the frame: " + ", ".join(map(str, df.columns)))
    if x not in df.columns:
        x = "sample"
    keep = [x] + ([by] if by else []) + counters
    d = df[keep].copy()
    per = max(1, len(counters) * (d[by].nunique() if by else 1))
    nbins = max_rows // per
    if len(d) > nbins > 0:
        edges = np.linspace(d[x].min(), d[x].max(), nbins + 1)
        d["_bin"] = np.clip(np.searchsorted(edges, d[x], side="right") - 1, 0, nbins - 1)
        g = d.groupby(["_bin"] + ([by] if by else []), as_index=False).mean(numeric_only=True)
        d = g.drop(columns="_bin")
    return d.melt(id_vars=[x] + ([by] if by else []), value_vars=counters, var_name="counter", value_name="value")


def plot_timeseries(df: pd.DataFrame, counters: list[str], x: str = "elapsed", title: str = "",
                    by: str | None = None, independent: bool = True) -> alt.Chart:
    """One small chart per counter over time (seconds since the first record)."""
    m = mode()
    d = df_long_series(df, counters, x, by)
    xx = x if x in d.columns else "sample"
    base = alt.Chart(d).mark_line(point=len(d) < 200).encode(
        x=alt.X(f"{xx}:Q", title="seconds" if xx == "elapsed" else xx),
        y=alt.Y("value:Q", title=None),
        color=alt.Color(f"{by}:N") if by else alt.value("#4c78a8"),
        tooltip=[xx, "counter", alt.Tooltip("value:Q", format=",.2f")] + ([by] if by else []),
    ).properties(width=m.width // 2 - 20, height=m.height // 2)
    ch = base.facet(facet=alt.Facet("counter:N", title=None, sort=counters), columns=2)
    if independent:
        ch = ch.resolve_scale(y="independent")
    return ch.properties(title=title)


def df_perf_counters(df: pd.DataFrame) -> pd.DataFrame:
    """The counters of a ``perf stat`` capture (one total per event, summed over its intervals with ``-I``).

    Columns: ``event, value, unit, per_second, variance_pct, counted, metric`` -- ``per_second`` is the total
    over the run's seconds (perf's own ``time elapsed`` line, else the last interval's time; None when the
    capture gives neither), ``metric`` what perf printed after ``#`` (``2.00 CPUs utilized``), ``counted``
    perf's word for an event it could not count (``not counted``, ``not supported``); the ``time elapsed``
    line itself is not a counter and is left out.
    """
    cols = ["event", "value", "unit", "per_second", "variance_pct", "counted", "metric"]
    if df is None or not len(df) or "event" not in df.columns:
        return pd.DataFrame(columns=cols)
    elapsed = df.loc[df["event"] == "time elapsed", "value"]
    seconds = float(elapsed.iloc[-1]) if len(elapsed) and elapsed.iloc[-1] == elapsed.iloc[-1] else (
        float(df["time"].max()) if "time" in df.columns and df["time"].notna().any() else None)
    rows = []
    for ev, g in df[df["event"] != "time elapsed"].groupby("event", sort=False):
        ok = g[g["counted"] == "counted"] if "counted" in g.columns else g
        total = float(ok["value"].sum()) if len(ok) else None
        unit = str(g["unit"].iloc[0] or "") if "unit" in g.columns else ""
        per = total / seconds if total is not None and seconds else None
        mv = g["metric_value"].iloc[-1] if "metric_value" in g.columns else None
        mu = g["metric_unit"].iloc[-1] if "metric_unit" in g.columns else ""
        rows.append({"event": ev, "value": total, "unit": unit, "per_second": per,
                     "variance_pct": g["variance_pct"].iloc[-1] if "variance_pct" in g.columns else None,
                     "counted": "counted" if len(ok) == len(g) else
                     (str(g["counted"].iloc[-1]) if not len(ok) else f"{len(g) - len(ok)} of {len(g)} intervals not counted"),
                     # a -I capture's metric is its last interval's: only a single count's is the run's
                     "metric": f"{mv:g} {mu}".strip() if len(g) == 1 and mv is not None and mv == mv else ""})
    out = pd.DataFrame(rows, columns=cols)
    out.attrs["seconds"] = seconds
    return out


def plot_perf_counters(counters: pd.DataFrame, title: str = "perf stat") -> alt.Chart:
    """Each counted event's total per second of the run (a dot per event on a log scale: counters differ by
    orders of magnitude, and a bar has no zero to start from there), the value and perf's own metric in the
    tooltip; events not drawn (not counted, or zero) are named in the subtitle.  A capture with no run time
    (``perf stat -x`` prints no ``time elapsed``) draws each event's total instead, and says so."""
    m = mode()
    rate = counters["per_second"].notna().any()
    x = "per_second" if rate else "value"
    d = counters[counters[x].notna() & (counters[x] > 0)].copy()
    d["label"] = d["event"] + np.where(d["unit"].astype(str) != "", " (" + d["unit"].astype(str) + ")", "")
    left = [e for e in counters["event"] if e not in set(d["event"])]
    sub = ([f"not drawn (nothing counted, or zero): {', '.join(left)}"] if left else [])
    secs = counters.attrs.get("seconds")
    if secs:
        sub.insert(0, f"totals over {secs:.3g} s of the run")
    elif not rate:
        sub.insert(0, "totals: the capture gives no run time to divide by")
    tips = ["event", alt.Tooltip("value:Q", format=",.2f"), "unit", alt.Tooltip("per_second:Q", format=",.2f")]
    if "metric" in d.columns:
        tips.append("metric")
    return alt.Chart(d).mark_point(filled=True, size=90, color="#4c78a8").encode(
        y=alt.Y("label:N", sort=list(d["label"]), title=None),
        x=alt.X(f"{x}:Q", scale=alt.Scale(type="log"),
                title="per second of the run (log scale)" if rate else "total counted (log scale)"),
        tooltip=tips,
    ).properties(width=m.width, height=max(60, 22 * len(d)), title=alt.TitleParams(title, subtitle=sub))


def df_pyperf_values(df: pd.DataFrame) -> pd.DataFrame:
    """One row per benchmark of a pyperf result (a frame of ``traces.parse_pyperf_json``), its warmup values left
    out as ``pyperf stats`` leaves them out.

    Columns: ``benchmark, unit, runs, values, mean, stdev, min, median, max, warmups`` (``stdev`` NaN for a single
    value: pyperf prints none either)."""
    cols = ["benchmark", "unit", "runs", "values", "mean", "stdev", "min", "median", "max", "warmups"]
    if not len(df):
        return pd.DataFrame(columns=cols)
    warm = df["warmup"].astype(bool) if "warmup" in df.columns else pd.Series(False, index=df.index)
    by = ["benchmark", "unit"]
    out = df[~warm].groupby(by, sort=False).agg(
        runs=("run", "nunique"), values=("value", "size"), mean=("value", "mean"), stdev=("value", "std"),
        min=("value", "min"), median=("value", "median"), max=("value", "max")).reset_index()
    out["warmups"] = df[warm].groupby(by).size().reindex(pd.MultiIndex.from_frame(out[by]), fill_value=0).to_numpy()
    # timings in the unit pyperf itself would print them in (520 ns, not 0.00000052 second)
    for i, r in out.iterrows():
        name, f = _time_unit(r["unit"], r["median"])
        out.loc[i, ["mean", "stdev", "min", "median", "max"]] = r[["mean", "stdev", "min", "median", "max"]] * f
        out.loc[i, "unit"] = name
    return out[cols]


_TIME_UNITS = [("s", 1.0), ("ms", 1e3), ("us", 1e6), ("ns", 1e9)]


def _time_unit(unit: str, typical: float) -> tuple[str, float]:
    """The unit pyperf prints a value of ``typical`` size in, and the factor to it (a unit other than seconds
    is kept)."""
    if unit != "second" or not typical > 0:
        return unit, 1.0
    return next(((n, f) for n, f in _TIME_UNITS if typical * f >= 1.0), _TIME_UNITS[-1])


def plot_pyperf_values(df: pd.DataFrame, title: str = "pyperf") -> alt.Chart:
    """Every measured value of every benchmark (a tick each, warmups left out), so that the spread pyperf
    summarises as mean +- stdev is seen, outliers included; one row per benchmark."""
    m = mode()
    d = df[~df["warmup"].astype(bool)] if "warmup" in df.columns else df
    units = set(d["unit"].astype(str))
    if len(units) == 1:  # one axis: in the unit the table gives (ns, us...), not in seconds
        name, f = _time_unit(units.pop(), float(d["value"].median()))
        d = d.assign(value=d["value"] * f, unit=name)
    unit = ", ".join(sorted(set(d["unit"].astype(str)))) or "value"
    return alt.Chart(d).mark_tick(thickness=2).encode(
        y=alt.Y("benchmark:N", title=None),
        x=alt.X("value:Q", title=f"value ({unit})", scale=alt.Scale(zero=False)),
        tooltip=["benchmark", "run", alt.Tooltip("value:Q", format=".4g"), "unit"],
    ).properties(width=m.width, height=max(60, 30 * d["benchmark"].nunique()),
                 title=alt.TitleParams(title, subtitle=[f"{len(d):,} values of {d['run'].nunique():,} runs "
                                                        "(warmups left out)"]))


def plot_reclaim_2007(r: pd.DataFrame, title: str = "Reclaim efficiency (the 2007 loop, per interval)") -> alt.Chart:
    """Pages scanned and stolen per interval (bars) over the ratio the loop prints (line, right axis)."""
    m = mode()
    x = "elapsed" if "elapsed" in r.columns else "sample"
    d = r[[x, "scan", "steal", "ratio"]].copy()
    if len(d) > MAX_ROWS // 3:
        d = df_long_series(d, ["scan", "steal", "ratio"], x).pivot_table(index=x, columns="counter",
                                                                          values="value").reset_index()
    d["ratio"] = d["ratio"].where(d["scan"] > 0)
    long = d.melt(id_vars=[x], value_vars=["scan", "steal"], var_name="pages", value_name="value")
    lines = alt.Chart(long).mark_line(point=True, opacity=0.8).encode(
        x=alt.X(f"{x}:Q", title="seconds" if x == "elapsed" else x),
        y=alt.Y("value:Q", title="pages per interval"),
        color=alt.Color("pages:N", scale=alt.Scale(domain=["scan", "steal"], range=["#e45756", "#54a24b"])),
        strokeDash=alt.StrokeDash("pages:N", scale=alt.Scale(domain=["scan", "steal"], range=[[1, 0], [4, 3]]),
                                  legend=None),
        tooltip=[x, "pages", alt.Tooltip("value:Q", format=",.0f")])
    ratio = alt.Chart(d).mark_point(shape="diamond", filled=True, color="black", size=60).encode(
        x=f"{x}:Q", y=alt.Y("ratio:Q", title="ratio % = 100*steal/(scan+1)", scale=alt.Scale(domain=[0, 100])),
        tooltip=[x, "ratio", "scan", "steal"])
    return alt.layer(lines, ratio).resolve_scale(y="independent").properties(
        width=m.width, height=m.height, title=title)


def plot_iostat_latency(a: pd.DataFrame, title: str = "iostat: latency and queue depth") -> alt.Chart:
    """``r_await``/``w_await`` (ms) and the queue depth per device over time (from :func:`df_iostat_await`)."""
    d = a[~a["since_boot"]] if "since_boot" in a.columns else a
    x = "elapsed" if "elapsed" in d.columns else "sample"
    cols = [c for c in ("r_await", "w_await", "queue", "%util") if c in d.columns and d[c].notna().any()]
    return plot_timeseries(d, cols, x=x, title=title, by="device")


# ------------------------------------------------------------------ flame graphs

def df_flame(folded: pd.DataFrame, min_fraction: float = 0.002, max_rows: int = 2500, max_depth: int = 60,
             collapse_unknown: bool = True) -> pd.DataFrame:
    """The rectangles of an icicle flame graph from folded stacks.

    Returns ``name``, ``depth`` (0 = the process), ``x0``, ``x1`` (fractions of all samples, children
    sorted alphabetically as flamegraph.pl does), ``count``, ``pct`` and ``path`` (the frames down to
    this one).  Frames narrower than ``min_fraction`` are merged away; ``min_fraction`` grows until at
    most ``max_rows`` rectangles remain.  Runs of ``[unknown]`` frames (a binary without frame pointers
    unwinds into garbage) are drawn as one frame ``[unknown] (run)`` when ``collapse_unknown``, and stacks
    are cut at ``max_depth`` frames below the process.
    """
    tree: dict[tuple, float] = {}
    total = float(folded["count"].sum())
    if total <= 0:
        return pd.DataFrame(columns=["name", "depth", "x0", "x1", "count", "pct", "path"])
    for stack, cnt in zip(folded["stack"], folded["count"]):
        parts = stack.split(";")
        if collapse_unknown and "[unknown];[unknown]" in stack:
            out = []
            for p in parts:
                if p == "[unknown]" and out and out[-1][0] == "[unknown]":
                    out[-1][1] += 1
                else:
                    out.append([p, 1])
            # one name whatever the run's length, so that two captures' runs line up in a diff
            parts = [p if n == 1 else f"{p} (run)" for p, n in out]
        parts = tuple(parts[:max_depth + 1])
        for d in range(1, len(parts) + 1):
            k = parts[:d]
            tree[k] = tree.get(k, 0.0) + cnt
    while True:
        keep = {k: v for k, v in tree.items() if v / total >= min_fraction}
        if len(keep) <= max_rows:
            break
        min_fraction *= 2
    children: dict[tuple, list] = {}
    for k in keep:
        children.setdefault(k[:-1], []).append(k)
    recs = []

    def walk(parent, x0):
        for k in sorted(children.get(parent, []), key=lambda t: t[-1]):
            w = keep[k] / total
            recs.append((k[-1], len(k) - 1, x0, x0 + w, keep[k], 100 * w, ";".join(k)))
            walk(k, x0)
            x0 += w

    walk((), 0.0)
    return pd.DataFrame(recs, columns=["name", "depth", "x0", "x1", "count", "pct", "path"])


def _hue(name: str) -> float:
    return (zlib.crc32(name.encode()) % 1000) / 1000.0


def plot_icicle(folded: pd.DataFrame, title: str = "Flame graph (icicle: callers above callees)",
                min_fraction: float = 0.002) -> alt.Chart:
    """An icicle flame graph (the root at the top) of folded stacks (:func:`~kernel_workbook.traces.fold`)."""
    m = mode()
    d = df_flame(folded, min_fraction)
    d["shade"] = d["name"].map(_hue)
    d["label"] = np.where(d["x1"] - d["x0"] > 0.06, d["name"].str.slice(0, 28), "")
    depth = int(d["depth"].max()) + 1 if len(d) else 1
    h = max(m.height, 16 * depth)
    y = alt.Y("depth:O", axis=None, sort="ascending")
    rect = alt.Chart(d).mark_rect(stroke="white", strokeWidth=0.5).encode(
        x=alt.X("x0:Q", axis=None, scale=alt.Scale(domain=[0, 1])), x2="x1:Q", y=y,
        color=alt.Color("shade:Q", scale=alt.Scale(scheme="orangered"), legend=None),
        tooltip=["name", alt.Tooltip("pct:Q", format=".2f", title="% of samples"), "count", "depth"])
    text = alt.Chart(d).mark_text(align="left", dx=2, fontSize=9, color="black").encode(
        x="x0:Q", y=y, text="label:N")
    return alt.layer(rect, text).properties(width=m.width + 200, height=h, title=title)


def df_flame_diff(before: pd.DataFrame, after: pd.DataFrame, min_fraction: float = 0.002) -> pd.DataFrame:
    """A differential flame graph: the icicle of *after*, each frame with ``delta`` = its share in *after*
    minus its share in *before* (percentage points; both normalised to their own totals, as
    FlameGraph's difffolded.pl ``-n`` does)."""
    a = df_flame(after, min_fraction)
    b = df_flame(before, 0.0, max_rows=10 ** 9)
    share_b = dict(zip(b["path"], b["pct"]))
    a["before_pct"] = a["path"].map(share_b).fillna(0.0)
    a["delta"] = a["pct"] - a["before_pct"]
    return a


def plot_diff_icicle(before: pd.DataFrame, after: pd.DataFrame, title: str = "Differential flame graph",
                     min_fraction: float = 0.002) -> alt.Chart:
    """Widths from *after*; red where a frame's share grew, blue where it shrank (percentage points)."""
    m = mode()
    d = df_flame_diff(before, after, min_fraction)
    lim = float(max(1.0, d["delta"].abs().quantile(0.98))) if len(d) else 1.0
    d["label"] = np.where(d["x1"] - d["x0"] > 0.06, d["name"].str.slice(0, 28), "")
    depth = int(d["depth"].max()) + 1 if len(d) else 1
    y = alt.Y("depth:O", axis=None)
    rect = alt.Chart(d).mark_rect(stroke="white", strokeWidth=0.5).encode(
        x=alt.X("x0:Q", axis=None, scale=alt.Scale(domain=[0, 1])), x2="x1:Q", y=y,
        color=alt.Color("delta:Q", scale=alt.Scale(scheme="redblue", domain=[lim, -lim]),
                        title="change (points)"),
        tooltip=["name", alt.Tooltip("pct:Q", format=".2f", title="% after"),
                 alt.Tooltip("before_pct:Q", format=".2f", title="% before"),
                 alt.Tooltip("delta:Q", format="+.2f")])
    text = alt.Chart(d).mark_text(align="left", dx=2, fontSize=9).encode(x="x0:Q", y=y, text="label:N")
    return alt.layer(rect, text).properties(width=m.width + 200, height=max(m.height, 16 * depth), title=title)
