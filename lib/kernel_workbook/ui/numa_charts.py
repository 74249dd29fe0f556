"""Charts and the knob panel of the NUMA balancing model (LISA naming: ``df_*`` data, ``plot_*`` charts).

* :func:`plot_scan_period` — one task's ``numa_scan_period`` over time, inside
  its ``[task_scan_min, task_scan_max]`` band;
* :func:`plot_faults` — hinting faults local/remote and migrations done/failed
  per interval;
* :func:`df_kernel_vmstat` / :func:`plot_kernel_vmstat` — the NUMA counters of
  several kernels, as changes against the first;
* :func:`df_fidelity` / :func:`plot_fidelity` — published change against model
  change for every scored cell of a reproduction;
* :func:`numa_explorer` — widgets for the knobs, live charts and the mmtests
  table of the run beside the 3.19 one (static in ``WORKBOOK_MODE=ci``).
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from ..config import mode


def df_scan_period(result, task: int = 0) -> pd.DataFrame:
    """Columns ``t_s, numa_scan_period_ms, task_scan_min_ms, task_scan_max_ms, node`` of one task."""
    d = result.df_scan_period([task])
    return d[["t_s", "numa_scan_period_ms", "task_scan_min_ms", "task_scan_max_ms", "node"]].reset_index(drop=True)


def plot_scan_period(result, task: int = 0, title: str | None = None) -> alt.Chart:
    """One task's scan period (log scale) with its ``task_scan_min``/``task_scan_max`` band."""
    m = mode()
    d = df_scan_period(result, task)
    band = alt.Chart(d).mark_area(opacity=0.15, color="gray").encode(
        x=alt.X("t_s:Q", title="time (s)"),
        y=alt.Y("task_scan_min_ms:Q", scale=alt.Scale(type="log"), title="numa_scan_period (ms)"),
        y2="task_scan_max_ms:Q")
    line = alt.Chart(d).mark_line(interpolate="step-after").encode(
        x="t_s:Q", y=alt.Y("numa_scan_period_ms:Q", scale=alt.Scale(type="log")),
        tooltip=["t_s", "numa_scan_period_ms", "task_scan_min_ms", "task_scan_max_ms", "node"])
    return (band + line).properties(
        width=m.width, height=m.height,
        title=alt.TitleParams(title or f"task {task}: numa_scan_period", subtitle=[
            "grey: [task_scan_min, task_scan_max] for the mm's RSS", result.caption()[:110]]))


def df_fault_timeline(result) -> pd.DataFrame:
    """Long: ``t_s, what, count`` with what in local/remote hinting faults, migrated/failed."""
    f = result.df_faults()
    return f.melt(id_vars="t_s", var_name="what", value_name="count")


def plot_faults(result, title: str | None = None) -> alt.Chart:
    """Hinting faults (local, remote) and migrations (done, failed) per sample interval."""
    m = mode()
    d = df_fault_timeline(result)
    faults = alt.Chart(d[d["what"].isin(["local", "remote"])]).mark_area().encode(
        x=alt.X("t_s:Q", title="time (s)"), y=alt.Y("count:Q", stack=True, title="hinting faults / interval"),
        color=alt.Color("what:N", scale=alt.Scale(domain=["local", "remote"], range=["#4c78a8", "#e45756"]),
                        title="fault"))
    mig = alt.Chart(d[d["what"].isin(["migrated", "failed"])]).mark_line().encode(
        x=alt.X("t_s:Q", title="time (s)"), y=alt.Y("count:Q", title="migrations / interval"),
        color=alt.Color("what:N", scale=alt.Scale(domain=["migrated", "failed"], range=["#54a24b", "#b279a2"]),
                        title="migration"))
    w, h = m.width, max(120, m.height // 2)
    return alt.vconcat(faults.properties(width=w, height=h), mig.properties(width=w, height=h)).resolve_scale(
        color="independent").properties(title=title or f"{result.workload.name}: faults and migrations")


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


# ---------------------------------------------------------------- the knob panel
WORKLOADS = ("NUMA01", "NUMA01_THREADLOCAL", "NUMA02", "NUMA02_SMT", "xfs_repair")


def _run_panel(kernel: str, rule: str, slow: bool, period_min: int, period_max: int, size_mb: int,
               ratelimit_mb: int, workload: str, machine_name: str, base=None, seeds=(1,), small: bool = False,
               xfs_kw: dict | None = None):
    from ..models.numa import kernel_params, simulate
    from ..workloads.autonumabench import autonumabench
    from ..workloads.xfs_repair import xfs_repair

    p = kernel_params(kernel, base=base, TNF_NO_GROUP=rule, TNF_MIGRATE_FAIL=bool(slow),
                      numa_balancing_scan_period_min_ms=int(period_min),
                      numa_balancing_scan_period_max_ms=int(period_max), numa_balancing_scan_size_mb=int(size_mb),
                      ratelimit_pages=int(ratelimit_mb) << 8)
    if workload == "xfs_repair":
        # the calibrated load if given (shortened to a minute in small mode), else the generator's defaults
        kw = dict(xfs_kw or {}, unit_pages=256 if small else (xfs_kw or {}).get("unit_pages", 64))
        if small or not xfs_kw:
            kw["seconds"] = 60 if small else 300
        if xfs_kw and "accesses_per_s" in xfs_kw:
            kw["accesses_per_s"] = xfs_kw["accesses_per_s"] * xfs_kw.get("unit_pages", 64) / kw["unit_pages"]
        w = xfs_repair(machine_name, **kw)
    else:
        w = autonumabench(workload, machine_name, unit_thps=4 if small else 1, passes_scale=0.25 if small else 1.0)
    ref = kernel_params("3.19.0 vanilla", base=base)
    return ({"3.19.0 vanilla": [simulate(ref, w, seed=s, verbose=False) for s in seeds],
             "this run": [simulate(p, w, seed=s, verbose=False) for s in seeds]})


def _panel_outputs(runs: dict) -> list:
    from ..models.numa import df_runs
    from ..tables import compare, render

    r = runs["this run"][0]
    frames = [df_runs(rs, k) for k, rs in runs.items()]
    table = compare(pd.concat(frames), higher_is_better=False, stats=("Amean",), era="2015", significance=None,
                    kernels=list(runs))
    return [r.caption(), render(table), plot_scan_period(r, 0), plot_faults(r)]


def numa_explorer(base=None, small: bool | None = None, xfs_kw: dict | None = None):
    """Knobs of the model: run, see one task's scan period, faults and migrations, and the table vs 3.19.

    ``base`` is the calibrated 3.19 :class:`NumaParams`, ``xfs_kw`` the calibrated
    arguments of :func:`kernel_workbook.workloads.xfs_repair.xfs_repair`.

    In ``WORKBOOK_MODE=ci`` there is no widget JavaScript: the default settings
    run once and are shown statically; nothing is returned.
    """
    from IPython.display import display

    from ..models.numa_params import KERNELS, MACHINES, NO_GROUP_RULES

    m = mode()
    small = m.small if small is None else small
    defaults = dict(kernel="4.0.0-rc1 slowscan-v2", rule="always_read_only", slow=True, period_min=1000,
                    period_max=60000, size_mb=256, ratelimit_mb=128, workload="NUMA02_SMT",
                    machine_name="mel-4socket-48")
    if m.name == "ci":
        for out in _panel_outputs(_run_panel(**defaults, base=base, small=small, xfs_kw=xfs_kw)):
            print(out) if isinstance(out, str) else display(out)
        return None
    import ipywidgets as w

    wid = dict(
        kernel=w.Dropdown(options=list(KERNELS), value=defaults["kernel"], description="kernel"),
        rule=w.Dropdown(options=list(NO_GROUP_RULES), value=defaults["rule"], description="TNF_NO_GROUP"),
        slow=w.Checkbox(value=defaults["slow"], description="slow scan on migration failure (TNF_MIGRATE_FAIL)"),
        period_min=w.IntSlider(value=1000, min=100, max=10000, step=100, description="scan_period_min_ms"),
        period_max=w.IntSlider(value=60000, min=1000, max=120000, step=1000, description="scan_period_max_ms"),
        size_mb=w.IntSlider(value=256, min=16, max=2048, step=16, description="scan_size_mb"),
        ratelimit_mb=w.IntSlider(value=128, min=8, max=1280, step=8, description="ratelimit MB/100ms"),
        workload=w.Dropdown(options=list(WORKLOADS), value=defaults["workload"], description="workload"),
        machine_name=w.Dropdown(options=[k for k in MACHINES if k != "one-node"] + ["one-node"],
                                value=defaults["machine_name"], description="machine"),
    )

    def on_kernel(change):
        k = KERNELS[change["new"]]
        wid["rule"].value = k["TNF_NO_GROUP"]
        wid["slow"].value = k["TNF_MIGRATE_FAIL"]

    wid["kernel"].observe(on_kernel, names="value")
    button = w.Button(description="run", button_style="primary")
    out = w.Output()

    def run(_=None):
        out.clear_output(wait=True)
        with out:
            try:
                res = _run_panel(**{k: v.value for k, v in wid.items()}, base=base, small=small, xfs_kw=xfs_kw)
            except Exception as e:  # a bad combination of knobs names itself
                print(f"{type(e).__name__}: {e}")
                return
            for o in _panel_outputs(res):
                print(o) if isinstance(o, str) else display(o)

    button.on_click(run)
    run()
    return w.VBox([w.HBox([wid["kernel"], wid["rule"], wid["slow"]]),
                   w.HBox([wid["period_min"], wid["period_max"], wid["size_mb"]]),
                   w.HBox([wid["ratelimit_mb"], wid["workload"], wid["machine_name"], button]), out])
