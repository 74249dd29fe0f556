"""One run of the NUMA balancing model: counters named as the kernel names them, frames for tables and charts."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .layout import COUNTER_NAMES
from .params import Machine, NumaParams
from .workload import NumaWorkload

VMSTAT_COUNTERS = ["numa_hit", "numa_miss", "numa_pte_updates", "numa_huge_pte_updates", "numa_hint_faults",
                   "numa_hint_faults_local", "numa_pages_migrated", "pgmigrate_success", "pgmigrate_fail"]
# why a page that was tried did not move (kernel units: pages); only the last two reach pgmigrate_fail for a base page
MIGRATE_FAIL_COUNTERS = ["migrate_fail_ratelimit", "migrate_fail_nodefull", "migrate_fail_isolate", "migrate_fail_busy",
                         "migrate_fail_eagain", "migrate_fail_permanent"]


@dataclass
class NumaResult:
    """What one run gives back.  Counters are in the kernel's units (pages, faults).

    Attributes
    ----------
    counters : dict
        Every counter of :data:`.layout.COUNTER_NAMES` (the vmstat ones
        named as in ``/proc/vmstat``), plus ``sys_*_s`` (system time by cause).
    times : dict
        ``user_s``, ``system_s`` (summed over threads, CPU seconds),
        ``elapsed_s`` (last thread done, plus the workload's ``setup_s``),
        ``finished`` (all threads done before ``max_seconds``).
    tasks : DataFrame
        One row per thread: ``task, mm, node, preferred_nid, numa_group,
        numa_scan_period_ms, numa_pages_migrated, task_moves, user_s,
        system_s, finish_s``.
    samples : DataFrame
        One row per sample: ``t_s`` and the cumulative counters.
    periods : DataFrame
        Long: ``t_s, task, numa_scan_period_ms, task_scan_min_ms,
        task_scan_max_ms, node``.
    migration_log : DataFrame or None
        With ``log_migrations=n``: the first n ``migrate_misplaced_page()``
        calls: ``t_ms, dst_node, pages`` (the unit's), ``admitted`` (pages past the rate limit), ``migrated``
        (pages moved).
    """

    params: NumaParams
    workload: NumaWorkload
    machine: Machine
    seed: int
    counters: dict
    times: dict
    task_arrays: dict  # the columns of ``tasks``
    sample_rows: np.ndarray  # [samples, 1 + counters]
    period_rows: list  # per sample: (t_s, period, scan_min, scan_max, node) arrays
    final_unit_node: np.ndarray
    final_node_free_pages: np.ndarray
    migrate_window_max_pages: np.ndarray
    migration_log: pd.DataFrame | None = None
    wall_s: float = 0.0
    engine: str = "jit"
    notes: list = field(default_factory=list)

    # the frames are built when first asked for: a run in a parameter sweep rarely needs them
    @functools.cached_property
    def tasks(self) -> pd.DataFrame:
        return pd.DataFrame(self.task_arrays)

    @functools.cached_property
    def samples(self) -> pd.DataFrame:
        cols = ["t_s"] + COUNTER_NAMES
        return pd.DataFrame(self.sample_rows.reshape(-1, len(cols)), columns=cols)

    @functools.cached_property
    def periods(self) -> pd.DataFrame:
        cols = ["t_s", "task", "numa_scan_period_ms", "task_scan_min_ms", "task_scan_max_ms", "node"]
        rows = self.period_rows
        if not rows:
            return pd.DataFrame(columns=cols)
        T = len(rows[0][1])
        return pd.DataFrame({
            "t_s": np.repeat([r[0] for r in rows], T),
            "task": np.tile(np.arange(T), len(rows)),
            "numa_scan_period_ms": np.concatenate([r[1] for r in rows]),
            "task_scan_min_ms": np.concatenate([r[2] for r in rows]),
            "task_scan_max_ms": np.concatenate([r[3] for r in rows]),
            "node": np.concatenate([r[4] for r in rows]),
        }, columns=cols)

    @property
    def vmstat(self) -> dict:
        """The ``/proc/vmstat`` NUMA counters of the run."""
        return {k: self.counters[k] for k in VMSTAT_COUNTERS}

    @property
    def local_percent(self) -> float:
        f = self.counters["numa_hint_faults"]
        return 100.0 * self.counters["numa_hint_faults_local"] / f if f else float("nan")

    def caption(self) -> str:
        """The run's parameters in one line, for table captions (OSTEP's ARG lines)."""
        return (f"{self.workload.name} on {self.machine.name}, seed {self.seed}: {self.params.describe()}; "
                f"unit = {self.workload.unit_pages} pages{' (THP)' if self.workload.unit_huge else ''}")

    def summary(self) -> dict:
        """The run's scalar outputs for a sweep: every counter, the times and the local fault share."""
        out = {k: float(v) for k, v in self.counters.items()}
        out.update({k: float(self.times[k]) for k in ("user_s", "system_s", "elapsed_s", "simulated_s")})
        out["numa_hint_local_percent"] = self.local_percent
        return out

    def df_migrate_failures(self) -> pd.DataFrame:
        """Why tried pages did not move, page by page: columns ``reason, pages, in_pgmigrate_fail`` (whether
        3.19/4.0 count them in ``pgmigrate_fail``: a base page only for a permanent failure, a THP for every
        failure after the rate limit).  The rows are :data:`MIGRATE_FAIL_COUNTERS`."""
        huge = self.workload.unit_huge
        counted = {"migrate_fail_ratelimit": False, "migrate_fail_nodefull": huge, "migrate_fail_isolate": huge,
                   "migrate_fail_busy": True, "migrate_fail_eagain": False, "migrate_fail_permanent": True}
        return pd.DataFrame({"reason": MIGRATE_FAIL_COUNTERS,
                             "pages": [int(self.counters[k]) for k in MIGRATE_FAIL_COUNTERS],
                             "in_pgmigrate_fail": [counted[k] for k in MIGRATE_FAIL_COUNTERS]})

    def df_vmstat(self) -> pd.DataFrame:
        """Columns ``counter, value``: the vmstat counters, in kernel units."""
        return pd.DataFrame({"counter": list(self.vmstat), "value": list(self.vmstat.values())})

    def df_scan_period(self, tasks=None) -> pd.DataFrame:
        """Columns ``t_s, task, numa_scan_period_ms, task_scan_min_ms, task_scan_max_ms, node``."""
        d = self.periods
        return d if tasks is None else d[d["task"].isin(list(tasks))]

    def df_faults(self) -> pd.DataFrame:
        """Per sample interval: ``t_s, local, remote, migrated, failed`` (faults and migrations, kernel units)."""
        s = self.samples
        if s.empty:
            return pd.DataFrame(columns=["t_s", "local", "remote", "migrated", "failed"])
        faults = s["numa_hint_faults"].diff().fillna(s["numa_hint_faults"])
        local = s["numa_hint_faults_local"].diff().fillna(s["numa_hint_faults_local"])
        fpu = max(1, self.workload.faults_per_unit)
        up = self.workload.unit_pages
        mig = s["numa_pages_migrated"].diff().fillna(s["numa_pages_migrated"]) / up * fpu
        fails = s[MIGRATE_FAIL_COUNTERS].sum(axis=1)
        failed = fails.diff().fillna(fails) / up * fpu
        return pd.DataFrame({"t_s": s["t_s"], "local": local, "remote": faults - local,
                             "migrated": mig, "failed": failed})


def df_runs(results: list[NumaResult], kernel: str | None = None) -> pd.DataFrame:
    """Long frame ``kernel, row, value, seed`` of several runs, for :func:`kernel_workbook.tables.compare`.

    Rows: the vmstat counters, ``numa_hint_local_percent``, ``user_s``,
    ``system_s``, ``elapsed_s``.
    """
    recs = []
    for r in results:
        k = kernel or r.params.describe()
        vals = dict(r.vmstat)
        vals["numa_hint_local_percent"] = r.local_percent
        vals.update({k2: r.times[k2] for k2 in ("user_s", "system_s", "elapsed_s")})
        for row, v in vals.items():
            recs.append({"kernel": k, "row": row, "value": float(v), "seed": r.seed})
    return pd.DataFrame(recs, columns=["kernel", "row", "value", "seed"])
