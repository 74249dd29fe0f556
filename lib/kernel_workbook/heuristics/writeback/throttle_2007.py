"""Reproduce the 2007 thread "[PATCH] remove throttle_vm_writeout()" (Fengguang Wu, Andrew Morton).

**Nothing is searched for.**  Two costs come from the baseline columns of the
thread as they are stated, each listed in ``rep.fitted`` with its cells:

* the disk's media rate (``media_rate_mb_s``) is the "pages freed MB/s
  without congestion_wait" of Fengguang Wu's estimate, which he says is
  "about the write throughput";
* the CPU cost of scanning a page (``scan_page_ns``) is akpm's "kswapd chews
  50% of the CPU" divided by Fengguang's "vmscan at 1000MB/s": both describe
  kswapd scanning pages it cannot free ("doing the vmscan like mad"), so one
  second of kswapd at that share of a CPU looks at that many pages.

The disk's mechanics are the cfq model's data sheet (``server-sata-2011``),
the machine akpm's description (4 GB i386, the test's 95% dirty at the
kill); the load after the kill is an assumption written in
:mod:`kernel_workbook.heuristics.writeback.workloads_2007` before any run
(:func:`df_assumptions` shows how far its two figures move the scored cells).
How close the model then comes to the thread's absolute figures -- kswapd's
CPU and efficiency before c4e2d7dd, its scan and free rates without
``congestion_wait`` -- is :func:`df_calibration`.

**Predicted and scored**: kswapd CPU % and reclaim efficiency after c4e2d7dd
(akpm's test on 2.5.52-mm: the rbtree deadline elevator, 2.5's reclaim loop),
in points against the run before it.  **Shown, not scored**: kswapd's scan
rate with ``congestion_wait`` (2.6.23, CFQ) -- Fengguang's "maybe 150MB/s" is
a guess in prose, to which Andrew answers "Something like that."; and the
light desktop's efficiency on 2.6.23 beside akpm's 97.7% and Fengguang's 96%:
each is the only column of its table, a level of a machine no kernel change
was measured on, so there is no change to score (the reproduction used to
score them as changes against the 2002 stress test before c4e2d7dd, a
comparison nobody made, and one any healthy model passes).  Efficiencies are
``traces.df_reclaim_2007`` of the model's ``/proc/vmstat`` series: the very
function that reads a real capture.
"""

from __future__ import annotations

import copy
from functools import lru_cache

import pandas as pd

from ...frames import Prose
from ...models.writeback import VARIANT_NOTES, VARIANTS, params_for, simulate
from ...tables import published
from ...traces.derived import df_reclaim_2007
from . import workloads_2007 as wl
from ...reproduce import Reproduction
from ...reproduce.cells import Cells, build
from ...reproduce.calibration import calibration
from ...reproduce.score import cell_key

THREAD = "2007-throttle-vm-writeout"
SEED0 = 2007  # seed base b runs seed SEED0 + b for every kernel (common random numbers)
DESKTOP_KERNEL = "2.6.23"  # akpm's and Fengguang's desktops ran late-2007 kernels
PAGES_PER_MB = 256  # the model's MB/s are 4 KiB pages / 256, as its Result.summary() counts them
ESTIMATE = ("estimate: a guess in prose, not a measurement -- Fengguang Wu: \"kswapd will be relaxed to do "
            "vmscan at maybe 150MB/s\"; Andrew Morton: \"Something like that.\"")
MISS_REASONS = {  # written after the scored runs were seen: they explain, they change nothing
    "kswapd CPU %": "the model's kswapd before c4e2d7dd uses a third of akpm's 50%: with the scan cost the thread "
                    "implies (50% of a CPU at 1000 MB/s), 2.5's balance_pgdat() naps in blk_congestion_wait() "
                    "after every priority pass, about two thirds of the run, so it scans a third of 1000 MB/s; "
                    "after c4e2d7dd it falls to about akpm's 2%, but the fall is a third of his",
    "reclaim efficiency %": "kswapd's written pages come back rotated to the inactive tail once the elevator "
                            "serves them; see df_calibration() for the 'before' level",
}


def pub(table: str, row: str, kernel: str) -> float:
    p = published(THREAD, table)
    v = p[(p["row"] == row) & (p["kernel"] == kernel)]["value"]
    return float(v.iloc[0])


def efficiency_pct(r) -> float:
    """The thread's efficiency of a run: the last line of Fengguang's loop over its /proc/vmstat series."""
    e = df_reclaim_2007(r.vmstat())
    if not len(e) or int(e["scan"].iloc[-1]) == 0:
        return float("nan")  # nothing was scanned: no efficiency (the loop would print 0%)
    return float(e["ratio"].iloc[-1])


def figures(r) -> dict:
    """What the thread's tables ask of a run."""
    s = r.summary()
    return {"kswapd CPU %": s["kswapd_cpu_pct"], "reclaim efficiency %": efficiency_pct(r),
            "vmscan MB/s": s["kswapd_scan_mb_s"], "pages freed MB/s": s["kswapd_freed_mb_s"]}


def _run(kernel: str, w, seed: int, **knobs):
    return simulate(params_for(kernel, **knobs), w, seed=seed, verbose=False)


T_CPU = ("kswapd-writeback-2002", "kswapd CPU %", "before c4e2d7dd")
T_SCAN = ("congestion-wait-estimate", "vmscan MB/s", "without congestion_wait")
T_FREED = ("congestion-wait-estimate", "pages freed MB/s", "without congestion_wait")
T_EFF = ("kswapd-writeback-2002", "reclaim efficiency %", "before c4e2d7dd")


def _key(t) -> str:
    return cell_key({"table": t[0], "row": t[1], "kernel": t[2]})


@calibration
def calibrate() -> dict:
    """The two costs, as the thread states them (see the module docstring); no run is made.

    Returns ``{"knobs", "fitted", "workload"}``.
    """
    disk = pub(*T_FREED)
    cpu_share = pub(*T_CPU) / 100.0
    scan_pages_s = pub(*T_SCAN) * PAGES_PER_MB
    scan_ns = round(cpu_share * 1e9 / scan_pages_s, 1)
    knobs = dict(media_rate_mb_s=disk, scan_page_ns=scan_ns)
    fitted = [
        {"parameter": "media_rate_mb_s", "value": disk, "unit": "MB/s", "fitted_to": [_key(T_FREED)]},
        {"parameter": "scan_page_ns", "value": scan_ns, "unit": "ns", "fitted_to": [_key(T_CPU), _key(T_SCAN)]},
    ]
    return {"knobs": knobs, "fitted": fitted, "workload": wl.akpm_test()}


KERNELS = ("before c4e2d7dd", "after c4e2d7dd", "2.6.23", "2.6.23 without congestion_wait", "2.6.23 + nonblocking")


@lru_cache(maxsize=8)
def runs(seed_base: int = 0) -> dict:
    """Every run of the reproduction: kernel name -> Result (akpm's test), and ``"desktop"``."""
    cal = calibrate()
    w, seed, k = cal["workload"], SEED0 + int(seed_base), cal["knobs"]
    out = {name: _run(name, w, seed, **k) for name in KERNELS}
    out["desktop"] = _run(DESKTOP_KERNEL, wl.desktop_light(), seed, **k)
    return out


# each published column's run (runs(): kernel name -> Result), and the figure a row reads of it (figures())
RUN_OF = {"before c4e2d7dd": "before c4e2d7dd", "after c4e2d7dd": "after c4e2d7dd",
          "without congestion_wait": "2.6.23 without congestion_wait", "with congestion_wait": "2.6.23",
          "akpm desktop": "desktop", "Fengguang desktop": "desktop"}
FIGURE_OF = {"ratio %": "reclaim efficiency %"}  # Fengguang's script prints the efficiency as "ratio"


def _model(f: dict, kernel: str, row: str, stat: str) -> float | None:
    """The model's figure for a published cell (``f``: figures() of every run), None where no run answers it: a
    rule of thumb, or a count of Fengguang's 2.6 hours of an unknown desktop load."""
    run = f.get(RUN_OF.get(kernel))
    return None if run is None else run.get(FIGURE_OF.get(row, row))


def _desktop_level(c) -> bool:
    return c.row in ("reclaim efficiency %", "ratio %")


# the cells: akpm's changelog (before/after c4e2d7dd, in points), Fengguang's estimate (kept, excluded as one),
# then the desktops' levels -- each the only column of its table (no change to score), beside the model's light
# desktop -- and the rows no run answers
CELLS = (
    Cells("kswapd-writeback-2002", model=_model, change="points", fitted=lambda c: (c.table, c.row, c.kernel) == T_CPU),
    Cells("congestion-wait-estimate", model=_model, fitted=lambda c: c.kernel == T_SCAN[2],
          notes=lambda c: {"exclude": ESTIMATE} if c.kernel == "with congestion_wait" else None),
    Cells("akpm-reclaim-efficiency", model=_model, select=_desktop_level),
    Cells("fengguang-ratio-script", model=_model, select=_desktop_level),
    Cells("akpm-reclaim-efficiency", model=_model, select=lambda c: not _desktop_level(c),
          notes=lambda c: {"why": "a rule of thumb of akpm's, not a measurement", "baseline_kernel": "akpm desktop"}),
    Cells("fengguang-ratio-script", model=_model, select=lambda c: not _desktop_level(c)),
)


def cells(seed_base: int = 0) -> list[dict]:
    """Every published cell with the model beside it (the JSON schema of :mod:`kernel_workbook.reproduce`)."""
    return build(THREAD, CELLS, {k: figures(r) for k, r in runs(seed_base).items()})


def df_figures(seed_base: int = 0) -> pd.DataFrame:
    """The model's figures of every run.  Columns: ``kernel, workload, elevator, kswapd_cpu_pct, efficiency_pct,
    kswapd_scan_mb_s, kswapd_freed_mb_s, disk_mb_s, kswapd_congestion_wait_s, kswapd_request_wait_s, allocstall,
    pgrotated, nr_vmscan_write``."""
    rows = []
    for k, r in runs(seed_base).items():
        s = r.summary()
        rows.append({"kernel": DESKTOP_KERNEL if k == "desktop" else k,
                     "workload": "desktop-light" if k == "desktop" else "akpm-2002",
                     "elevator": s["elevator"],
                     "kswapd_cpu_pct": round(s["kswapd_cpu_pct"], 2), "efficiency_pct": efficiency_pct(r),
                     "kswapd_scan_mb_s": round(s["kswapd_scan_mb_s"], 1),
                     "kswapd_freed_mb_s": round(s["kswapd_freed_mb_s"], 1), "disk_mb_s": round(s["disk_write_mb_s"], 1),
                     "kswapd_congestion_wait_s": round(s["kswapd_congestion_wait_s"], 2),
                     "kswapd_request_wait_s": round(s["kswapd_request_wait_s"], 2), "allocstall": s["allocstall"],
                     "pgrotated": s["pgrotated"], "nr_vmscan_write": s["nr_vmscan_write"]})
    return pd.DataFrame(rows)


def df_fitted(seed_base: int = 0) -> pd.DataFrame:
    """What was taken from the thread, to which cells.  Columns: ``parameter, value, unit, from``."""
    cal = calibrate()
    rows = [{"parameter": f["parameter"], "value": f["value"], "unit": f["unit"],
             "from": "; ".join(x.split("|")[2] + " / " + x.split("|")[3] for x in f["fitted_to"])}
            for f in cal["fitted"]]
    return pd.DataFrame(rows, columns=["parameter", "value", "unit", "from"])


def df_calibration(seed_base: int = 0) -> pd.DataFrame:
    """Where the calibrated machine lands on the thread's absolute figures (none of which was fitted to a run).

    Columns: ``figure, kernel, thread, model, model_over_thread``.
    """
    f = {k: figures(r) for k, r in runs(seed_base).items()}
    rows = []
    for (table, row, kernel), run in ((T_CPU, "before c4e2d7dd"), (T_EFF, "before c4e2d7dd"),
                                      (T_SCAN, "2.6.23 without congestion_wait"),
                                      (T_FREED, "2.6.23 without congestion_wait")):
        m = f[run][row]
        p = pub(table, row, kernel)
        rows.append({"figure": row, "kernel": kernel, "thread": p, "model": round(m, 2),
                     "model_over_thread": round(m / p, 2) if p else None})
    # the same figures of the 2002 kernel's own kswapd: the run the scan cost was read from
    rows.append({"figure": "vmscan MB/s", "kernel": "before c4e2d7dd", "thread": pub(*T_SCAN),
                 "model": round(f["before c4e2d7dd"]["vmscan MB/s"], 1),
                 "model_over_thread": round(f["before c4e2d7dd"]["vmscan MB/s"] / pub(*T_SCAN), 2)})
    return pd.DataFrame(rows)


ASSUMPTIONS = {  # the load after the kill (heuristics/writeback/workloads_2007.py): assumed, so swept
    "alloc_mb_s": (25.0, 50.0, 100.0, 200.0),
    "lowmem_pct": (2.0, 5.0, 10.0, 20.0, 40.0),
}


@lru_cache(maxsize=2)
def df_assumptions(seed_base: int = 0) -> pd.DataFrame:
    """How the scored cells move across the plausible range of each assumed figure of the load (one at a
    time, the other at its assumed value).  Columns: ``assumption, value, assumed, cpu_after_delta_pts,
    efficiency_after_delta_pts, cpu_status, efficiency_status`` (published: -48 and +38 points)."""
    cal = calibrate()
    base = cal["workload"]
    seed = SEED0 + int(seed_base)
    pc = pub("kswapd-writeback-2002", "kswapd CPU %", "after c4e2d7dd") - pub(*T_CPU)
    pe = pub("kswapd-writeback-2002", "reclaim efficiency %", "after c4e2d7dd") - pub(*T_EFF)
    rows = []
    for name, values in ASSUMPTIONS.items():
        for v in values:
            w = base.with_(**{name: v})
            b, a = (figures(_run(k, w, seed, **cal["knobs"])) for k in ("before c4e2d7dd", "after c4e2d7dd"))
            dc = a["kswapd CPU %"] - b["kswapd CPU %"]
            de = a["reclaim efficiency %"] - b["reclaim efficiency %"]
            rows.append({"assumption": name, "value": v, "assumed": v == getattr(base, name),
                         "cpu_after_delta_pts": round(dc, 1), "efficiency_after_delta_pts": round(de, 1),
                         "cpu_status": _status(dc, pc), "efficiency_status": _status(de, pe)})
    return pd.DataFrame(rows)


def _status(model_delta: float, pub_delta: float) -> str:
    from ...reproduce.score import verdict

    status, why = verdict(model_delta, pub_delta)
    return f"{status} ({why})" if why else status


def df_variants() -> pd.DataFrame:
    """The thread's kernels as the model's switches: index the variant, one column per knob it sets (empty where
    a variant leaves the knob at its default)."""
    return pd.DataFrame(VARIANTS).T


def variants_prose() -> Prose:
    """What each variant of :func:`df_variants` stands for, as a Markdown list."""
    return Prose.bullets(f"**{k}**: {v}" for k, v in VARIANT_NOTES.items())


def df_excluded(scored: pd.DataFrame) -> pd.DataFrame:
    """The cells of a reproduction's ``scored()`` left out of the score, each with why.  Columns: ``table, row,
    kernel, reason``."""
    return scored[scored["status"] == "excluded"][["table", "row", "kernel", "reason"]]


def df_misses(seed_base: int = 0) -> pd.DataFrame:
    """Every scored miss with its reason.  Columns: ``table, row, kernel, published_delta_pct, model_delta_pct,
    reason`` (``sign``/``size``), ``why``."""
    sc = _reproduction(int(seed_base)).scored()
    m = sc[sc["status"] == "miss"].copy()
    m["why"] = [MISS_REASONS.get(r, "") for r in m["row"]]
    return m[["table", "row", "kernel", "published_delta_pct", "model_delta_pct", "reason", "why"]].reset_index(
        drop=True)


def calibrate_all() -> None:
    """The calibration (``reproduce_many`` runs this once and hands the result to every seed base)."""
    calibrate()


def reproduce(seed_base: int = 0) -> Reproduction:
    """The reproduction: the costs from the thread's baseline, every kernel run, published beside model."""
    rep = copy.copy(_reproduction(int(seed_base)))
    rep.seed_runs = {}
    return rep


@lru_cache(maxsize=8)
def _reproduction(seed_base: int) -> Reproduction:
    cal = calibrate()
    rep = Reproduction(THREAD)
    rep.seed_base = seed_base
    rep.cells = cells(seed_base)
    rep.fitted = [dict(f) for f in cal["fitted"]]
    rep.unmodelled = {
        "akpm-vmstat-steal": "ten days of akpm's desktop: absolute counts of an unknown load (the model predicts "
                             "their ratio, akpm-reclaim-efficiency)",
        "akpm-vmstat-scan": "ten days of akpm's desktop: absolute counts of an unknown load (the model predicts "
                            "their ratio, akpm-reclaim-efficiency)",
    }
    w = cal["workload"]
    rep.add("fitted", "the two costs taken from the thread's baseline columns as stated (nothing is searched)",
            df_fitted(seed_base))
    rep.add("calibration", f"the thread's absolute figures and the calibrated model's (akpm's test on a "
                           f"{w.machine_mb:g} MB i386 machine, {w.duration_s:g} s after the kill, seed "
                           f"{SEED0 + seed_base})", df_calibration(seed_base))
    for table in ("kswapd-writeback-2002", "congestion-wait-estimate", "akpm-reclaim-efficiency",
                  "fengguang-ratio-script"):
        rep.show_published(table)
    rep.add("model", "the model's runs (akpm's test on every kernel; the light desktop on 2.6.23)",
            df_figures(seed_base))
    desktop = "the level of a light desktop (the model's, on 2.6.23)"
    for table, against in (("kswapd-writeback-2002", "before c4e2d7dd, in points"),
                           ("congestion-wait-estimate", "'without congestion_wait'"),
                           ("akpm-reclaim-efficiency", desktop), ("fengguang-ratio-script", desktop)):
        rep.show_cells(table, [c for c in rep.cells if c["table"] == table], against)
    rep.notes += [f"{k}: {v}" for k, v in VARIANT_NOTES.items()]
    rep.notes.append("efficiency = traces.df_reclaim_2007 over the model's /proc/vmstat series (Fengguang's loop)")
    return rep


__all__ = ["reproduce", "calibrate", "runs", "cells", "figures", "efficiency_pct", "df_figures", "df_fitted",
           "df_calibration", "df_assumptions", "df_misses", "MISS_REASONS", "ESTIMATE", "ASSUMPTIONS", "THREAD",
           "SEED0", "KERNELS"]
