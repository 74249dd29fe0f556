"""Derived figures, as mmtests defines them, with mmtests' known quirks named and corrected.

The definitions follow mmtests' ``MonitorMmtestsvmstat.pm`` (whole-run
figures, the "Ops" rows of a compare-kernels report) and
``MonitorProcvmstat.pm`` (per-interval series of the graphs):

* kswapd and direct reclaim **efficiency** = pages stolen · 100 / pages
  scanned, and **velocity** = pages scanned per second;
* **compaction**: stalls, success, failures, efficiency = success · 100 /
  stall, scan efficiency = migrate scanned · 100 / free scanned, and the
  cost model;
* **NUMA**: hint faults, local faults and their share, pages migrated and the
  migration rate, PTE/PMD updates, the AutoNUMA cost model;
* the **2007 loop**: Fengguang Wu's shell loop from the throttle-vm-writeout
  thread, ``ratio=$((100*steal/(scan+1)))`` over cumulative counters;
* **iostat await** split into reads and writes, and queue depth.

The quirks of mmtests that we correct (each has a test in
``tests/test_traces_derived.py``):

Q1. ``MonitorProcvmstat`` counts ``pgscan_direct`` twice on node-LRU kernels
    (4.8+): it is in both ``@mmtests_direct_scan`` and
    ``@mmtests_direct_nodelru_scan``; the same for ``pgscan_kswapd``.
    Direct and kswapd scans, velocities and efficiencies of its time series
    are off by a factor of two there.  We count each counter once.
Q2. On 2.6 kernels ``pgsteal_<zone>`` counts kswapd *and* direct steals and
    ``kswapd_steal`` the kswapd part; ``MonitorMmtestsvmstat`` subtracts it,
    but ``MonitorProcvmstat`` never does (``kswapd_steal`` is not in the
    list it loops over), so its direct steal includes kswapd's.  We subtract.
Q3. An efficiency with nothing scanned is printed as 100%.  We return NaN
    (``mmtests_compat=True`` gives mmtests' 100).
Q4. ``allocstall_dma``/``_dma32``/``_normal``/``_movable`` (4.x+) are
    "renamed" to ``allocstall`` by assignment, so only the last zone read
    survives.  We sum them.
Q5. The compaction cost reads ``compact_migrate_free``, a counter no kernel
    has (the free scanner is ``compact_free_scanned``), so the free-scanner
    term is always zero.  We use ``compact_free_scanned``.
Q6. The AutoNUMA cost ends a statement early (``...;\\n $Cpagerw * ...;``)
    and drops the page-copy term of migrated pages.  We keep it.
Q7. ``mmtests_cscan_efficiency`` is 1 (not 100, not undefined) when the
    free scanner scanned nothing.  We return NaN.
Q8. Node-LRU ``pgscan_kswapd``/``pgscan_direct`` are booked to zone Normal
    in the per-zone velocities; we report them as ``node`` scans.
Q9. ``numa_hint_faults_local_pct`` is -1 when there were no hint faults
    (``mmtests_hint_local`` says 100 for the same case); we return NaN.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import WorkbookParameterError
from .segments import continued_elapsed

ZONES = ("dma", "dma32", "normal", "high", "movable")

KSWAPD_SCAN = [f"pgscan_kswapd_{z}" for z in ZONES] + ["pgscan_kswapd"]
DIRECT_SCAN = [f"pgscan_direct_{z}" for z in ZONES] + ["pgscan_direct"]
KSWAPD_STEAL = ["kswapd_steal"] + [f"pgsteal_kswapd_{z}" for z in ZONES] + ["pgsteal_kswapd"]
DIRECT_STEAL_26 = [f"pgsteal_{z}" for z in ZONES]  # 2.6.x: all reclaim, kswapd included
DIRECT_STEAL = [f"pgsteal_direct_{z}" for z in ZONES] + ["pgsteal_direct"]
ALLOCSTALL = ["allocstall"] + [f"allocstall_{z}" for z in ZONES]


def _sum(df: pd.DataFrame, names) -> pd.Series:
    cols = [c for c in names if c in df.columns]
    if not cols:
        return pd.Series(0.0, index=df.index)
    return df[cols].astype(float).sum(axis=1)


def _has(df, names) -> bool:
    return any(c in df.columns for c in names)


def _check(df: pd.DataFrame) -> None:
    if not isinstance(df, pd.DataFrame) or not len(df):
        raise WorkbookParameterError("df", type(df).__name__, "a non-empty /proc/vmstat frame (parse_proc_vmstat)")


def _pct(num, den, compat_value, mmtests_compat):
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, num * 100.0 / np.where(den > 0, den, 1), np.nan)
    if mmtests_compat:
        out = np.where(den > 0, out, compat_value)
    return out


def _segments(df: pd.DataFrame):
    from .procvmstat import segment_ids

    return segment_ids(df)


def _diff(x: pd.DataFrame | pd.Series, seg: np.ndarray):
    """Per-interval differences, NaN for an interval that spans two segments (never a negative delta)."""
    d = x.diff().iloc[1:].reset_index(drop=True)
    d.loc[seg[1:] != seg[:-1]] = np.nan
    return d


def _span(x, seg: np.ndarray) -> float:
    """Last minus first value within each segment, summed: the whole-run delta of a counter that was reset."""
    v = pd.Series(np.asarray(x, dtype=float))
    g = v.groupby(seg)
    return float((g.last() - g.first()).sum(min_count=1))


def _interval(df: pd.DataFrame, seg: np.ndarray) -> np.ndarray:
    iv = df["time"].diff().iloc[1:].to_numpy()
    return np.where(seg[1:] != seg[:-1], np.nan, iv)


def _reclaim_totals(df: pd.DataFrame) -> pd.DataFrame:
    ks = _sum(df, KSWAPD_SCAN)
    ds = _sum(df, DIRECT_SCAN)
    kst = _sum(df, KSWAPD_STEAL)
    if _has(df, DIRECT_STEAL):
        dst = _sum(df, DIRECT_STEAL)
    else:
        dst = _sum(df, DIRECT_STEAL_26)
        if "kswapd_steal" in df.columns and _sum(df, DIRECT_STEAL_26).iloc[-1] >= df["kswapd_steal"].iloc[-1]:
            dst = dst - df["kswapd_steal"].astype(float)  # Q2
    return pd.DataFrame({"kswapd_scan": ks, "kswapd_steal": kst, "direct_scan": ds, "direct_steal": dst,
                         "allocstall": _sum(df, ALLOCSTALL)})


def df_reclaim(df: pd.DataFrame, mmtests_compat: bool = False) -> pd.DataFrame:
    """Reclaim per interval of a /proc/vmstat series (any kernel's counter names).

    Returns
    -------
    DataFrame
        One row per interval: ``kswapd_scan kswapd_steal direct_scan
        direct_steal allocstall`` (pages or stalls in the interval),
        ``kswapd_efficiency direct_efficiency`` (% of scanned pages
        reclaimed; NaN when nothing was scanned, see Q3),
        ``kswapd_velocity direct_velocity`` (pages scanned per second; NaN
        without times), ``direct_percentage`` (share of scans done by direct
        reclaim), ``time``/``elapsed``/``interval`` when known, ``sample``.
    """
    _check(df)
    tot = _reclaim_totals(df)
    seg, desc = _segments(df)
    d = _diff(tot, seg)
    out = d.copy()
    out["kswapd_efficiency"] = _pct(d["kswapd_steal"], d["kswapd_scan"], 100.0, mmtests_compat)
    out["direct_efficiency"] = _pct(d["direct_steal"], d["direct_scan"], 100.0, mmtests_compat)
    total = d["kswapd_scan"] + d["direct_scan"]
    out["direct_percentage"] = _pct(d["direct_scan"], total, 0.0, True) if mmtests_compat else _pct(
        d["direct_scan"], total, 0.0, False)
    if "time" in df.columns:
        iv = _interval(df, seg)
        ivs = np.where(iv > 0, iv, np.nan)
        out["kswapd_velocity"] = d["kswapd_scan"].to_numpy() / ivs
        out["direct_velocity"] = d["direct_scan"].to_numpy() / ivs
        out["time"] = df["time"].iloc[1:].to_numpy()
        out["elapsed"] = continued_elapsed(df["time"].to_numpy(dtype=float))[1:]
        out["interval"] = iv
    else:
        out["kswapd_velocity"] = np.nan
        out["direct_velocity"] = np.nan
    out["sample"] = np.arange(1, len(df))
    out["segment"] = seg[1:]
    out.attrs["segments"] = desc
    return out


def reclaim_summary(df: pd.DataFrame, elapsed: float | None = None, mmtests_compat: bool = False) -> dict:
    """Whole-run reclaim figures (first snapshot to last), as mmtests' "Ops" rows.

    Returns a dict: ``kswapd_scan kswapd_steal direct_scan direct_steal
    allocstall kswapd_efficiency direct_efficiency kswapd_velocity
    direct_velocity direct_percentage elapsed``.  ``elapsed`` defaults to the
    span of ``time``; without it the velocities are NaN (mmtests divides by 1).
    A series cut into segments (a counter reset, a clock set back: see
    :func:`~kernel_workbook.traces.procvmstat.segment_ids`) counts each segment
    first to last and sums them, the time spans too; ``segments`` says which
    samples were used, in words.
    """
    _check(df)
    tot = _reclaim_totals(df)
    seg, desc = _segments(df)
    d = pd.Series({k: _span(tot[k], seg) for k in tot.columns})
    if elapsed is None and "time" in df.columns:
        elapsed = _span(df["time"], seg)
    el = elapsed if elapsed else np.nan
    res = {k: float(v) for k, v in d.items()}
    res["kswapd_efficiency"] = float(_pct(d["kswapd_steal"], d["kswapd_scan"], 100.0, mmtests_compat))
    res["direct_efficiency"] = float(_pct(d["direct_steal"], d["direct_scan"], 100.0, mmtests_compat))
    res["direct_percentage"] = float(_pct(d["direct_scan"], d["kswapd_scan"] + d["direct_scan"], 0.0,
                                          mmtests_compat))
    res["kswapd_velocity"] = d["kswapd_scan"] / el
    res["direct_velocity"] = d["direct_scan"] / el
    res["elapsed"] = elapsed
    res["segments"] = _segments_used(desc)
    return res


def _segments_used(desc: list[dict]) -> str:
    from .procvmstat import segments_text

    return segments_text(desc) + (" (each counted first to last, and summed)" if len(desc) > 1 else "")


def df_reclaim_2007(df: pd.DataFrame, per_interval: bool = False) -> pd.DataFrame:
    """Fengguang Wu's reclaim-ratio loop of the 2007 thread, over a /proc/vmstat series.

    The loop (data/threads/2007-throttle-vm-writeout.txt) sums
    ``pgscan_{kswapd,direct}_{dma,dma32,normal,high}`` into ``scan`` and
    ``pgsteal_{dma,dma32,normal,high}`` into ``steal`` and prints
    ``$uptime  $ratio%  $steal  $scan`` with ``ratio=$((100*steal/(scan+1)))``
    (shell integer arithmetic; the ``+1`` avoids a division by zero).  The
    counters are cumulative since boot, so the ratio is the efficiency
    since boot.  We extend the sums to the later names (``pgscan_kswapd``,
    ``pgsteal_kswapd``, ``pgsteal_direct``...) so the loop means the same on
    any kernel, and on kernels where ``pgsteal_<zone>`` stays 0 and only
    ``kswapd_steal`` counts (Andrew Morton's -mm machine in the thread) we
    take ``kswapd_steal``, as he did by hand (97.7%).

    Returns
    -------
    DataFrame
        ``time`` (or ``sample``), ``ratio`` (int %, as the loop prints it),
        ``steal``, ``scan`` (cumulative); with ``per_interval=True`` the same
        over each interval's deltas, which is the efficiency that moves (an
        interval across a counter reset or a clock set back is left out: it has
        no delta), and ``segment``.
    """
    _check(df)
    scan = _sum(df, KSWAPD_SCAN + DIRECT_SCAN).astype(np.int64)
    steal = _sum(df, DIRECT_STEAL_26 + ["pgsteal_kswapd", "pgsteal_direct"] +
                 [f"pgsteal_kswapd_{z}" for z in ZONES] + [f"pgsteal_direct_{z}" for z in ZONES])
    if "kswapd_steal" in df.columns and float(steal.abs().sum()) == 0:
        steal = df["kswapd_steal"].astype(float)
    steal = steal.astype(np.int64)
    seg, desc = _segments(df)
    if per_interval:
        keep = np.flatnonzero(seg[1:] == seg[:-1])  # no interval across a counter reset or a clock set back
        scan = scan.diff().iloc[1:].iloc[keep].astype(np.int64)
        steal = steal.diff().iloc[1:].iloc[keep].astype(np.int64)
        idx = df.index[1:][keep]
        segs = seg[1:][keep]
    else:
        idx = df.index
        segs = seg
    ratio = (100 * steal) // (scan + 1)
    out = pd.DataFrame({"ratio": ratio.to_numpy(), "steal": steal.to_numpy(), "scan": scan.to_numpy()})
    for c in ("time", "elapsed", "sample"):
        if c in df.columns:
            out[c] = df.loc[idx, c].to_numpy()
    out["segment"] = segs
    out.attrs["segments"] = desc
    return out


# ---------------------------------------------------------------- compaction

def compaction_summary(df: pd.DataFrame, mmtests_compat: bool = False) -> dict:
    """Whole-run compaction figures of a /proc/vmstat series.

    Returns a dict: ``compact_stall compact_success compact_fail
    compact_migrate_scanned compact_free_scanned compact_isolated
    pgmigrate_success pgmigrate_fail`` (deltas), ``compact_efficiency``
    (success·100/stall), ``cscan_efficiency`` (migrate·100/free scanned; Q7)
    and ``compaction_cost`` (mmtests' model in MB-ish units, Q5 corrected;
    ``mmtests_compat=True`` reproduces mmtests' figure).
    """
    _check(df)
    keys = ["compact_stall", "compact_success", "compact_fail", "compact_migrate_scanned",
            "compact_free_scanned", "compact_isolated", "pgmigrate_success", "pgmigrate_fail",
            "compact_blocks_moved", "compact_pages_moved", "compact_pagemigrate_failed",
            "compact_daemon_wake", "compact_daemon_migrate_scanned", "compact_daemon_free_scanned"]
    seg, desc = _segments(df)
    d = {k: _span(df[k], seg) if k in df.columns else 0.0 for k in keys}
    if "pgmigrate_success" not in df.columns and "compact_pages_moved" in df.columns:
        d["pgmigrate_success"] = d["compact_pages_moved"]
        d["pgmigrate_fail"] = d["compact_pagemigrate_failed"]
    d["compact_efficiency"] = float(_pct(d["compact_success"], d["compact_stall"], np.nan, False))
    if d["compact_free_scanned"] > 0:
        d["cscan_efficiency"] = d["compact_migrate_scanned"] * 100 / d["compact_free_scanned"]
    else:
        d["cscan_efficiency"] = 1.0 if (mmtests_compat and d["compact_migrate_scanned"]) else np.nan
    ca = 56 / 8
    cpagerw = ca + 4096 / 8
    cmc, cmf, ci, csm, csf = cpagerw * 2, ca * 2, ca + 12, ca, ca
    if "compact_blocks_moved" in df.columns:
        cost = csm * d["compact_blocks_moved"] * 16384 + cmc * d["compact_pages_moved"] + \
            cmf * d["compact_pagemigrate_failed"]
    elif "compact_migrate_scanned" in df.columns:
        free = 0.0 if mmtests_compat else d["compact_free_scanned"]  # Q5
        cost = csm * d["compact_migrate_scanned"] + csf * free + ci * d["compact_isolated"] + \
            cmc * d["pgmigrate_success"] + cmf * d["pgmigrate_fail"]
    else:
        cost = -1e6 if mmtests_compat else np.nan
    d["compaction_cost"] = cost / 1e6
    d["segments"] = _segments_used(desc)
    return d


# ---------------------------------------------------------------- NUMA

def df_numa(df: pd.DataFrame) -> pd.DataFrame:
    """NUMA balancing per interval of a /proc/vmstat series.

    Returns
    -------
    DataFrame
        ``numa_hint_faults numa_hint_faults_local numa_hint_faults_remote
        numa_pages_migrated numa_pte_updates numa_huge_pte_updates`` (deltas),
        ``hint_local_pct`` (local·100/hint faults, NaN with none: Q9),
        ``migrate_rate`` (pages migrated per second), ``pte_updates``
        (base pages: ``numa_pte_updates - 512·numa_huge_pte_updates``),
        ``time``/``elapsed``/``sample``.
    """
    _check(df)
    keys = ["numa_hint_faults", "numa_hint_faults_local", "numa_pages_migrated", "numa_pte_updates",
            "numa_huge_pte_updates", "pgmigrate_success"]
    seg, desc = _segments(df)
    d = _diff(pd.DataFrame({k: (df[k].astype(float) if k in df.columns else pd.Series(0.0, index=df.index))
                            for k in keys}), seg)
    d["numa_hint_faults_remote"] = d["numa_hint_faults"] - d["numa_hint_faults_local"]
    d["hint_local_pct"] = _pct(d["numa_hint_faults_local"], d["numa_hint_faults"], np.nan, False)
    d["pte_updates"] = d["numa_pte_updates"] - 512 * d["numa_huge_pte_updates"]
    if "time" in df.columns:
        iv = _interval(df, seg)
        d["migrate_rate"] = d["numa_pages_migrated"].to_numpy() / np.where(iv > 0, iv, np.nan)
        d["time"] = df["time"].iloc[1:].to_numpy()
        d["elapsed"] = continued_elapsed(df["time"].to_numpy(dtype=float))[1:]
    else:
        d["migrate_rate"] = np.nan
    d["sample"] = np.arange(1, len(df))
    d["segment"] = seg[1:]
    d.attrs["segments"] = desc
    return d


def numa_summary(df: pd.DataFrame, elapsed: float | None = None, mmtests_compat: bool = False) -> dict:
    """Whole-run NUMA figures: deltas, ``hint_local_pct``, ``migrate_rate`` and ``autonuma_cost`` (Q6)."""
    _check(df)
    keys = ["numa_hint_faults", "numa_hint_faults_local", "numa_pages_migrated", "numa_pte_updates",
            "numa_huge_pte_updates", "numa_hit", "numa_miss", "numa_local", "numa_foreign", "numa_interleave"]
    seg, desc = _segments(df)
    d = {k: _span(df[k], seg) if k in df.columns else 0.0 for k in keys}
    if elapsed is None and "time" in df.columns:
        elapsed = _span(df["time"], seg)
    d["hint_local_pct"] = float(_pct(d["numa_hint_faults_local"], d["numa_hint_faults"], 100.0, mmtests_compat))
    d["migrate_rate"] = d["numa_pages_migrated"] / elapsed if elapsed else np.nan
    ca = 56 / 8
    cpagerw = ca + 4096 / 8
    ci = ca + 12
    cost = ca * d["numa_pte_updates"] + 5000 * d["numa_hint_faults"] + ci * d["numa_pages_migrated"]
    if not mmtests_compat:
        cost += cpagerw * d["numa_pages_migrated"]  # Q6
    d["autonuma_cost"] = cost / 1e6
    d["pte_updates"] = d["numa_pte_updates"] - 512 * d["numa_huge_pte_updates"]
    d["pmd_updates"] = d["numa_huge_pte_updates"]
    d["elapsed"] = elapsed
    d["segments"] = _segments_used(desc)
    return d


# ---------------------------------------------------------------- iostat

def df_iostat_await(dev: pd.DataFrame) -> pd.DataFrame:
    """Read and write latency and queue depth of an iostat device frame, any sysstat layout.

    Returns
    -------
    DataFrame
        ``device``, ``sample`` (and ``time``/``elapsed``/``timestamp`` when
        present), ``r_await`` and ``w_await`` (ms), ``await`` (ms: as printed
        by sysstat up to 11, else the I/O-weighted mean of the reads' and
        writes' awaits, as sysstat computed it), ``queue`` (``aqu-sz`` or
        ``avgqu-sz``), ``r/s``, ``w/s`` and ``%util``.  Old sysstat 9.0
        printed only ``await``: ``r_await``/``w_await`` are NaN there (they
        cannot be split from the total).
    """
    if "device" not in dev.columns:
        raise WorkbookParameterError("dev", list(dev.columns), "an iostat device frame (parse_iostat)")
    out = dev[[c for c in ("device", "sample", "time", "elapsed", "timestamp", "since_boot") if c in dev.columns]].copy()
    rs = dev["r/s"].astype(float) if "r/s" in dev.columns else pd.Series(np.nan, index=dev.index)
    ws = dev["w/s"].astype(float) if "w/s" in dev.columns else pd.Series(np.nan, index=dev.index)
    ra = dev["r_await"].astype(float) if "r_await" in dev.columns else pd.Series(np.nan, index=dev.index)
    wa = dev["w_await"].astype(float) if "w_await" in dev.columns else pd.Series(np.nan, index=dev.index)
    out["r_await"] = ra
    out["w_await"] = wa
    if "await" in dev.columns:
        out["await"] = dev["await"].astype(float)
    else:
        n = rs + ws
        out["await"] = ((ra * rs).fillna(0) + (wa * ws).fillna(0)) / n.where(n > 0)
    q = "aqu-sz" if "aqu-sz" in dev.columns else ("avgqu-sz" if "avgqu-sz" in dev.columns else None)
    out["queue"] = dev[q].astype(float) if q else np.nan
    out["r/s"] = rs
    out["w/s"] = ws
    out["%util"] = dev["%util"].astype(float) if "%util" in dev.columns else np.nan
    return out
