"""Charts and the knob panel of the NUMA balancing model (LISA naming: ``df_*`` data, ``plot_*`` charts).

* :func:`plot_scan_period` — one task's ``numa_scan_period`` over time, inside
  its ``[task_scan_min, task_scan_max]`` band;
* :func:`plot_faults` — hinting faults local/remote and migrations done/failed
  per interval;
* :func:`df_kernel_vmstat` / :func:`plot_kernel_vmstat` — the NUMA counters of
  several kernels, as changes against the first;
* :func:`df_fidelity` / :func:`plot_fidelity` — published change against model
  change for every scored cell of a reproduction;
* :func:`runs_numa01` — the thread's kernels on a shortened NUMA01, run once and shared by the 2015
  notebook's cells; :func:`df_numa01_counters`, :func:`df_no_group_rules`, :func:`df_placement` (and
  :func:`placement_prose`), :func:`df_isolate_fail_sweep` — the frames it shows of them;
* :func:`numa_explorer` — widgets for the knobs (from their declaration, with a
  menu of the thread's kernels), live charts and the mmtests table of the run
  beside the 3.19 one, each row compared in its own direction (static in
  ``WORKBOOK_MODE=ci``).
"""

from __future__ import annotations

import functools

import altair as alt
import numpy as np
import pandas as pd

from ...config import mode
from ...frames import Preformatted, Prose


def df_scan_period(result, task: int = 0) -> pd.DataFrame:
    """Columns ``t_s, numa_scan_period_ms, task_scan_min_ms, task_scan_max_ms, node`` of one task."""
    d = result.df_scan_period([task])
    return d[["t_s", "numa_scan_period_ms", "task_scan_min_ms", "task_scan_max_ms", "node"]].reset_index(drop=True)


def plot_scan_period(result, task: int = 0, title: str | None = None, width: int | None = None,
                     height: int | None = None) -> alt.Chart:
    """One task's scan period (log scale) with its ``task_scan_min``/``task_scan_max`` band.

    ``width``/``height``: the plot's size (default: the mode's); the subtitle is wrapped to that width, so
    two charts side by side (``alt.hconcat``) are as wide as their plots, not as their one-line captions.
    """
    frames, options = _scan_period_parts(result, task, title)
    return _scan_period_chart(*frames, **options, width=width, height=height)


def _scan_period_parts(result, task: int = 0, title: str | None = None):
    return (df_scan_period(result, task),), {"title": title or f"task {task}: numa_scan_period",
                                             "caption": result.caption()[:110]}


def _wrap(lines, width: int, font_size: int) -> list[str]:
    """``lines`` wrapped to ``width`` px of text at ``font_size`` (a character of Vega's sans-serif is
    under 0.6 em wide)."""
    import textwrap

    chars = max(20, int(width / (0.6 * font_size)))
    return [part for line in lines for part in textwrap.wrap(line, chars)]


def _scan_period_chart(d: pd.DataFrame, title: str, caption: str, width: int | None = None,
                       height: int | None = None) -> alt.Chart:
    m = mode()
    width, height = width or m.width, height or m.height
    band = alt.Chart(d).mark_area(opacity=0.15, color="gray").encode(
        x=alt.X("t_s:Q", title="time (s)"),
        y=alt.Y("task_scan_min_ms:Q", scale=alt.Scale(type="log"), title="numa_scan_period (ms)"),
        y2=alt.Y2("task_scan_max_ms:Q"))
    line = alt.Chart(d).mark_line(interpolate="step-after").encode(
        x=alt.X("t_s:Q"), y=alt.Y("numa_scan_period_ms:Q", scale=alt.Scale(type="log")),
        tooltip=[alt.Tooltip(c) for c in ("t_s", "numa_scan_period_ms", "task_scan_min_ms", "task_scan_max_ms",
                                          "node")])
    subtitle = _wrap(["grey: [task_scan_min, task_scan_max] for the mm's RSS", caption], width, m.font_size)
    return (band + line).properties(width=width, height=height, title=alt.TitleParams(title, subtitle=subtitle))


def df_fault_timeline(result) -> pd.DataFrame:
    """Long: ``t_s, what, count`` with what in local/remote hinting faults, migrated/failed."""
    f = result.df_faults()
    return f.melt(id_vars="t_s", var_name="what", value_name="count")


def plot_faults(result, title: str | None = None) -> alt.Chart:
    """Hinting faults (local, remote) and migrations (done, failed) per sample interval."""
    frames, options = _faults_parts(result, title)
    return _faults_chart(*frames, **options)


def _faults_parts(result, title: str | None = None):
    d = df_fault_timeline(result)
    return ((d[d["what"].isin(["local", "remote"])], d[d["what"].isin(["migrated", "failed"])]),
            {"title": title or f"{result.workload.name}: faults and migrations"})


def _faults_chart(faults_d: pd.DataFrame, mig_d: pd.DataFrame, title: str) -> alt.Chart:
    m = mode()
    faults = alt.Chart(faults_d).mark_area().encode(
        x=alt.X("t_s:Q", title="time (s)"), y=alt.Y("count:Q", stack=True, title="hinting faults / interval"),
        color=alt.Color("what:N", scale=alt.Scale(domain=["local", "remote"], range=["#4c78a8", "#e45756"]),
                        title="fault"))
    mig = alt.Chart(mig_d).mark_line().encode(
        x=alt.X("t_s:Q", title="time (s)"), y=alt.Y("count:Q", title="migrations / interval"),
        color=alt.Color("what:N", scale=alt.Scale(domain=["migrated", "failed"], range=["#54a24b", "#b279a2"]),
                        title="migration"))
    w, h = m.width, max(120, m.height // 2)
    return alt.vconcat(faults.properties(width=w, height=h), mig.properties(width=w, height=h)).resolve_scale(
        color="independent").properties(title=title)


VMSTAT_ROWS = ["numa_pte_updates", "numa_hint_faults", "numa_hint_faults_local", "numa_pages_migrated",
               "pgmigrate_fail", "system_s", "elapsed_s"]


def df_kernel_vmstat(results: dict) -> pd.DataFrame:
    """``{kernel: [NumaResult...]}`` -> ``kernel, row, value, base, pct`` (mean over seeds, change vs the first)."""
    recs = []
    for k, rs in results.items():
        for row in VMSTAT_ROWS:
            vals = [r.times[row] if row in r.times else r.counters[row] for r in rs]
            recs.append({"kernel": k, "row": row, "value": float(np.mean(vals))})
    d = pd.DataFrame(recs)
    first = next(iter(results))
    base = d[d["kernel"] == first].set_index("row")["value"]
    d["base"] = d["row"].map(base)
    d["pct"] = np.where(d["base"] > 0, 100.0 * (d["value"] / d["base"] - 1), np.nan)
    return d


def plot_kernel_vmstat(results: dict, title: str = "") -> alt.Chart:
    m = mode()
    d = df_kernel_vmstat(results)
    first = next(iter(results))
    d = d[d["kernel"] != first]
    return alt.Chart(d).mark_bar().encode(
        y=alt.Y("row:N", sort=VMSTAT_ROWS, title=None), yOffset="kernel:N",
        x=alt.X("pct:Q", title=f"change vs {first}, %"), color="kernel:N",
        tooltip=["row", "kernel", alt.Tooltip("value:Q", format=",.0f"), alt.Tooltip("pct:Q", format="+.1f")],
    ).properties(width=m.width, height=max(160, 22 * len(d)), title=title)


def df_fidelity(cells: list[dict]) -> pd.DataFrame:
    """Scored cells: ``table, row, kernel, published_delta_pct, model_delta_pct, error, group``."""
    d = pd.DataFrame(cells)
    d = d[(~d["calibrated"]) & d["published_delta_pct"].notna()].copy()
    d["error"] = d["model_delta_pct"] - d["published_delta_pct"]
    d["group"] = np.select(
        [d["row"].str.startswith("System") | (d["row"] == "syst-xfsrepair"), d["table"].str.endswith("numastat")],
        ["system time", "vmstat"], "elapsed/user")
    return d.reset_index(drop=True)


def plot_fidelity(cells: list[dict], title: str = "published change against model change") -> alt.Chart:
    """One point per scored cell; on the diagonal the model is right, off it by the error."""
    m = mode()
    d = df_fidelity(cells)
    d["cell"] = d["table"] + " / " + d["row"] + " / " + d["kernel"]
    lo = float(min(d["published_delta_pct"].min(), d["model_delta_pct"].min(), -10))
    hi = float(max(d["published_delta_pct"].max(), d["model_delta_pct"].max(), 10))
    sym = alt.Scale(type="symlog", constant=10, domain=[lo, hi])
    pts = alt.Chart(d).mark_point(filled=True, size=60).encode(
        x=alt.X("published_delta_pct:Q", scale=sym, title="published change vs the table's baseline, %"),
        y=alt.Y("model_delta_pct:Q", scale=sym, title="model change, %"),
        color=alt.Color("group:N", title=None), shape="kernel:N",
        tooltip=["cell", alt.Tooltip("published_delta_pct:Q", format="+.1f"),
                 alt.Tooltip("model_delta_pct:Q", format="+.1f")])
    diag = alt.Chart(pd.DataFrame({"x": [lo, hi]})).mark_line(color="gray", strokeDash=[4, 4]).encode(
        x=alt.X("x:Q", scale=sym), y=alt.Y("x:Q", scale=sym))
    return (diag + pts).properties(width=m.width, height=m.width, title=title)


# ---------------------------------------------------------------- the 2015 notebook's NUMA01 runs
NUMA01_KERNELS = ("3.19.0 vanilla", "4.0.0-rc1 vanilla", "4.0.0-rc1 slowscan-v2", "4.0.0-rc1 ptewrite-v1r20")
NUMA01_COUNTERS = ("numa_pte_updates", "numa_hint_faults", "numa_hint_faults_local", "numa_pages_migrated",
                   "pgmigrate_fail", "migrate_fail_ratelimit", "migrate_fail_busy", "migrate_fail_isolate",
                   "group_joins", "no_group_faults", "numa_task_moves", "numa_task_swaps", "tlb_ipis",
                   "sys_migrate_s", "sys_ipi_s", "sys_place_s")
ISOLATE_FAIL_KERNELS = ("4.0.0-rc1 vanilla", "4.0.0-rc1 slowscan-v2", "4.0.0-rc1 ptewrite-v1r20")


def numa01_short():
    """NUMA01 shortened for the notebook: one simulated unit = 4 huge pages, half of the passes."""
    from .autonumabench import autonumabench

    return autonumabench("NUMA01", unit_thps=4, passes_scale=0.5)


@functools.lru_cache(maxsize=8)
def runs_numa01(kernels: tuple = NUMA01_KERNELS, seed: int = 1, **knobs) -> dict:
    """``{kernel: NumaResult}``: each kernel (with ``knobs`` on top of its preset) on :func:`numa01_short`.

    Cached: the notebook's counters, period charts, fault charts and placements all read one set of runs
    (a run takes seconds). The results are shared between callers, so treat them as read-only.
    """
    from ...models.numa import kernel_params, simulate

    w = numa01_short()
    # verbose left at its default: a run that compiles the kernel says so (once per process)
    return {k: simulate(kernel_params(k, **knobs), w, seed=seed) for k in kernels}


def df_numa01_counters(runs: dict, counters=NUMA01_COUNTERS) -> pd.DataFrame:
    """The counters of each run side by side: index the counter names (as ``/proc/vmstat`` and the model
    name them, system seconds by cause ``sys_*_s``), one column per kernel (``runs``' keys, in order)."""
    return pd.DataFrame({k: [r.counters[x] for x in counters] for k, r in runs.items()}, index=list(counters))


def df_no_group_rules(kernel: str = "4.0.0-rc1 vanilla", seed: int = 1) -> pd.DataFrame:
    """``kernel`` on :func:`numa01_short` under each ``TNF_NO_GROUP`` rule of the model.

    Index: ``group_joins, no_group_faults, numa_pages_migrated, local %, system_s`` (the percent of hinting
    faults that were local and the system seconds, to one decimal); one column per rule
    (``models.numa.NO_GROUP_RULES``).
    """
    from ...models.numa import NO_GROUP_RULES, kernel_params, simulate

    w = numa01_short()
    by_rule = {rule: simulate(kernel_params(kernel, TNF_NO_GROUP=rule), w, seed=seed, verbose=False)
               for rule in NO_GROUP_RULES}
    return pd.DataFrame({rule: {"group_joins": r.counters["group_joins"],
                                "no_group_faults": r.counters["no_group_faults"],
                                "numa_pages_migrated": r.counters["numa_pages_migrated"],
                                "local %": round(r.local_percent, 1), "system_s": round(r.times["system_s"], 1)}
                         for rule, r in by_rule.items()})


def _threads_per_node(r, t_s: float) -> list[list[int]]:
    per = r.periods[r.periods["t_s"] == t_s]
    mm = r.workload.task_mm[per["task"].to_numpy()]
    return [np.bincount(per["node"][mm == m], minlength=r.machine.nr_nodes).tolist()
            for m in range(int(r.workload.task_mm.max()) + 1)]


def df_placement(runs: dict, kernels=("3.19.0 vanilla", "4.0.0-rc1 vanilla")) -> pd.DataFrame:
    """Where each process's threads run, at the first sample and mid-run (every thread still at work).

    One row per kernel of ``kernels`` (keys of ``runs``). Columns: ``kernel``, ``first_s``, ``first`` (per
    process, in ``task_mm`` order, the number of its threads on each node at ``first_s``), ``mid_s``,
    ``mid`` (the same at ``mid_s``), ``remote_pct`` (remote accesses, percent of all accesses).
    """
    rows = []
    for k in kernels:
        r = runs[k]
        ts = sorted(r.periods["t_s"].unique())
        first, mid = ts[0], ts[len(ts) // 2]
        rows.append({"kernel": k, "first_s": first, "first": _threads_per_node(r, first),
                     "mid_s": mid, "mid": _threads_per_node(r, mid),
                     "remote_pct": 100 * r.counters["remote_accesses"] / r.counters["accesses"]})
    return pd.DataFrame(rows, columns=["kernel", "first_s", "first", "mid_s", "mid", "remote_pct"])


def placement_prose(df: pd.DataFrame) -> list:
    """:func:`df_placement` as one paragraph per kernel (a list of :class:`Prose`, for ``display(*...)``)."""
    return [Prose(f"**{r.kernel}**: threads per node (process A, process B): at {r.first_s:.0f} s {r.first}, "
                  f"at {r.mid_s:.0f} s {r.mid}; remote accesses {r.remote_pct:.0f} %") for r in df.itertuples()]


def df_isolate_fail_sweep(p_fails=(0.0, 0.001, 0.01, 0.1), kernels=ISOLATE_FAIL_KERNELS,
                          seed: int = 1) -> pd.DataFrame:
    """``kernels`` on :func:`numa01_short` as an extra chance that ``isolate_lru_page()`` fails grows.

    Index: for each kernel ``"<kernel>: migrated (M pages)"`` (``numa_pages_migrated`` in millions, two
    decimals) and ``"<kernel>: pte updates (M)"`` (``numa_pte_updates`` in millions, one decimal); one column
    per ``isolate_lru_fail_prob`` of ``p_fails`` (columns named ``isolate_lru_fail_prob``).
    """
    from ...models.numa import kernel_params, simulate

    w = numa01_short()
    sweep = []
    for p_fail in p_fails:
        row = {"isolate_lru_fail_prob": p_fail}
        for k in kernels:
            r = simulate(kernel_params(k, isolate_lru_fail_prob=p_fail), w, seed=seed, verbose=False)
            row[k + ": migrated (M pages)"] = round(r.counters["numa_pages_migrated"] / 1e6, 2)
            row[k + ": pte updates (M)"] = round(r.counters["numa_pte_updates"] / 1e6, 1)
        sweep.append(row)
    return pd.DataFrame(sweep).set_index("isolate_lru_fail_prob").T


# ---------------------------------------------------------------- the knob panel
WORKLOADS = ("NUMA01", "NUMA01_THREADLOCAL", "NUMA02", "NUMA02_SMT", "xfs_repair")
EXPLORER_KNOBS = ("TNF_NO_GROUP", "TNF_MIGRATE_FAIL", "numa_hint_pte", "numa_balancing_scan_period_min_ms",
                  "numa_balancing_scan_period_max_ms", "numa_balancing_scan_size_mb", "ratelimit_pages")
# Which way is better for each row of the explorer's table: a larger share of local hinting faults is better;
# fewer faults, migrations, updates and seconds are better.
HIGHER_IS_BETTER = {"numa_hint_local_percent": True}


def row_higher_is_better(row: str) -> bool:
    return HIGHER_IS_BETTER.get(row, False)


def explorer_workload(workload: str, machine_name: str, small: bool = False, xfs_kw: dict | None = None):
    """The explorer's workload: autonumabench at the explorer's size, or the (calibrated) xfs_repair-like load."""
    from .autonumabench import autonumabench
    from .xfs_repair import xfs_repair

    if workload == "xfs_repair":
        # the calibrated load if given (shortened to a minute in small mode), else the generator's defaults
        kw = dict(xfs_kw or {}, unit_pages=256 if small else (xfs_kw or {}).get("unit_pages", 64))
        if small or not xfs_kw:
            kw["seconds"] = 60 if small else 300
        if xfs_kw and "accesses_per_s" in xfs_kw:
            kw["accesses_per_s"] = xfs_kw["accesses_per_s"] * xfs_kw.get("unit_pages", 64) / kw["unit_pages"]
        return xfs_repair(machine_name, **kw)
    return autonumabench(workload, machine_name, unit_thps=4 if small else 1, passes_scale=0.25 if small else 1.0)


def df_explore(params, reference, workload, seeds=(1,), reference_runs: list | None = None) -> pd.DataFrame:
    """``reference`` (3.19 by default) and ``params`` on one workload, as mmtests rows.

    ``reference_runs``: the runs of ``reference`` on ``workload`` with ``seeds``, if already made (the
    explorer keeps them: a knob moves only ``params``).  Columns: ``kernel, row, value, seed`` (the rows
    of :func:`kernel_workbook.models.numa.df_runs`); ``df.attrs["run"]`` is the first run with ``params``.
    """
    from ...models.numa import df_runs, simulate

    ref = reference_runs if reference_runs is not None else \
        [simulate(reference, workload, seed=s, verbose=False) for s in seeds]
    yours = [simulate(params, workload, seed=s, verbose=False) for s in seeds]
    df = pd.concat([df_runs(ref, "3.19.0 vanilla"), df_runs(yours, "this run")], ignore_index=True)
    df.attrs["run"] = yours[0]
    return df


def explore_outputs(df: pd.DataFrame, live: tuple | None = None) -> tuple:
    """The explorer's picture: the caption, the mmtests table (each row in its own direction), the charts.

    ``live``: two :class:`~kernel_workbook.ui.charts.LiveChart` (scan period, faults) that keep their
    chart between redraws (the explorer's); without, the charts are built from scratch.
    """
    caption, text, (f1, o1), (f2, o2) = _explore_data(df)
    if live is None:
        r = df.attrs["run"]
        charts = (plot_scan_period(r, 0), plot_faults(r))
    else:
        charts = (live[0].show(*f1, **o1), live[1].show(*f2, **o2))
    return Prose(caption), Preformatted(text), *charts


def _explore_data(df: pd.DataFrame) -> tuple:
    # what the explorer shows of one setting, before the charts: the caption, the table's text, the two
    # charts' data and options (the explorer keeps it per setting: explorer.Runs)
    from ...tables import compare, render

    r = df.attrs["run"]
    table = compare(df, higher_is_better=row_higher_is_better, stats=("Amean",), era="2015", significance=None,
                    kernels=["3.19.0 vanilla", "this run"])
    (f1, o1), (f2, o2) = _scan_period_parts(r, 0), _faults_parts(r)
    if alt.renderers.active == "jupyter":  # a live chart (the lab): its data swapped per redraw
        # the run's knobs are in the caption printed above the charts; in the chart's subtitle they would make
        # every redraw a new chart structure (the whole spec built, validated and embedded again, 3-4x the time)
        o1["caption"] = f"{r.workload.name} on {r.machine.name}, seed {r.seed}: the knobs are in the caption above"
    return r.caption(), render(table), (f1, o1), (f2, o2)


def numa_explorer(base=None, small: bool | None = None, xfs_kw: dict | None = None):
    """The model's knobs (from their declaration) with a menu of the thread's kernels, the workload and the
    machine: one task's scan period, the faults and migrations, and the table against 3.19.

    ``base`` is the calibrated 3.19 :class:`NumaParams`, ``xfs_kw`` the calibrated arguments of
    :func:`kernel_workbook.heuristics.numa.xfs_repair.xfs_repair`.  In ``WORKBOOK_MODE=ci`` the defaults
    (4.0-rc1 slowscan-v2 on NUMA02_SMT) are drawn statically and nothing is returned.
    """
    import ipywidgets as w

    from ...models.numa import KERNELS, MACHINES, kernel_params
    from ...ui.charts import LiveChart
    from ...ui.explorer import Runs, explorer

    m = mode()
    small = m.small if small is None else small
    presets = {k: kernel_params(k, base=base) for k in KERNELS}
    reference = presets["3.19.0 vanilla"]
    style, lay = {"description_width": "initial"}, w.Layout(width="98%")
    workload = w.Dropdown(options=list(WORKLOADS), value="NUMA02_SMT", description="workload", style=style, layout=lay)
    machines = [k for k in MACHINES if k != "one-node"] + ["one-node"]
    machine_name = w.Dropdown(options=machines, value="mel-4socket-48", description="machine", style=style,
                              layout=lay)

    live = (LiveChart(_scan_period_chart), LiveChart(_faults_chart))  # built once, the data swapped per redraw

    from ...models.numa import simulate

    fixed: dict = {}  # (workload, machine) -> (the workload, 3.19's run on it): a knob moves neither

    def run(p, workload, machine_name):
        # one setting's table and chart data: a pure function of the setting (seed 1), kept in ``runs`` and made
        # ahead for the next notches (explorer.Runs)
        if (workload, machine_name) not in fixed:
            wl = explorer_workload(workload, machine_name, small, xfs_kw)
            fixed[workload, machine_name] = (wl, [simulate(reference, wl, seed=1, verbose=False)])
        wl, ref = fixed[workload, machine_name]
        return _explore_data(df_explore(p, reference, wl, seeds=(1,), reference_runs=ref))

    runs = Runs(run)

    def draw(p, workload, machine_name):
        caption, text, (f1, o1), (f2, o2) = runs.get(p, workload, machine_name)
        return Prose(caption), Preformatted(text), live[0].show(*f1, **o1), live[1].show(*f2, **o2)

    return explorer(presets["4.0.0-rc1 slowscan-v2"], EXPLORER_KNOBS, draw,
                    controls={"workload": workload, "machine_name": machine_name}, presets=presets,
                    preset="4.0.0-rc1 slowscan-v2", title="automatic NUMA balancing, knob by knob",
                    ahead=lambda settings: runs.ahead([(p, c["workload"], c["machine_name"]) for p, c in settings]))
