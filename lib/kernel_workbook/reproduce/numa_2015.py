"""Reproduce the 2015 NUMA slow-scan thread: calibrate on 3.19, predict 4.0-rc1, slowscan-v2 and ptewrite-v1.

What is fitted, and to what (only the ``3.19.0 vanilla`` column of the thread):

* the machine's memory bandwidth per node and the cost of a remote access,
  to the four autonumabench ``User`` times of 3.19;
* five cost constants (system time per ms of CPU outside NUMA balancing, per
  hinting fault, per migrated page, per TLB-flush IPI target; the PTE-update
  cost stays at its prior), by non-negative least squares to the four
  autonumabench ``System`` times of 3.19;
* each autonumabench test's ``setup_s`` (elapsed time outside the threads),
  to its 3.19 ``Elapsed``;
* the xfs_repair-like load's access rate, sharing and wandering, to the 3.19
  ``numa_hint_faults / numa_pte_updates``, ``numa_pages_migrated /
  numa_hint_faults`` and local percent of the NUMA counters Mel printed after
  the xfsrepair table, then its length and its own system time to the 3.19
  ``real-xfsrepair`` and ``syst-xfsrepair``.

Everything else — every 4.0-rc1, slowscan-v2 and ptewrite-v1 number — is a
prediction: the kernels differ only in their switches (``KERNELS`` in
:mod:`kernel_workbook.models.numa_params`).  Published numbers are read with
:func:`kernel_workbook.tables.published` and only compared with.

Which NUMA counter table belongs to which benchmark: the ``slowscan-numastat``
table (printed after the xfsrepair table on 2015-03-07) cannot come from the
autonumabench run, because its 3.19 column differs from the ``ptewrite-numastat``
3.19 column (printed under the autonumabench totals on 2015-03-12) while the
3.19 autonumabench times of both mails are identical, and its small
``NUMA huge PMD updates`` next to large base-page faults fit xfs_repair's
malloc'd buffers, not autonumabench's huge pages.  So ``ptewrite-numastat`` is
compared with the autonumabench model and ``slowscan-numastat`` with the
xfs_repair-like model (its counts also include the fsmark phase, which the
model does not run; the comparison is of changes, not of absolute counts).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..config import mode
from ..models.numa import NumaParams, NumaResult, kernel_params, simulate
from ..models.numa_params import MACHINES, Machine
from ..tables import compare, published, render
from ..workloads.autonumabench import autonumabench
from ..workloads.xfs_repair import xfs_repair
from . import Reproduction, delta_pct, summarise

THREAD = "2015-numa-slow-scan"
MEL = "mel-4socket-48"
K319, KRC1, KSLOW, KPTE = "3.19.0 vanilla", "4.0.0-rc1 vanilla", "4.0.0-rc1 slowscan-v2", "4.0.0-rc1 ptewrite-v1r20"
KERNELS = (K319, KRC1, KSLOW, KPTE)
# autonumabench test -> the row suffix mmtests printed (with the thread's "THEADLOCAL" typo)
TESTS = {"NUMA01": "NUMA01", "NUMA01_THREADLOCAL": "NUMA01_THEADLOCAL", "NUMA02": "NUMA02",
         "NUMA02_SMT": "NUMA02_SMT"}
NUMASTAT_ROWS = {  # mmtests label -> model counter
    "NUMA base PTE updates": "numa_pte_updates",
    "NUMA hint faults": "numa_hint_faults",
    "NUMA hint local faults": "numa_hint_faults_local",
    "NUMA hint local percent": "local_percent",
    "NUMA pages migrated": "numa_pages_migrated",
}
COST_FIELDS = ("cost_sched_tick_us", "cost_hint_fault_us", "cost_migrate_page_us", "cost_tlb_flush_ipi_us")
# Physical floors of the fitted costs (the fit adds a non-negative excess on top): a hinting fault is at
# least a trap and a return (~1 us); moving a 4 KiB page at least copies it (~0.25 us at 16 GB/s); an IPI
# that flush_tlb_page() waits for at least crosses the interconnect and back (~1 us on bare metal).
COST_FLOORS = {"cost_sched_tick_us": 0.0, "cost_hint_fault_us": 1.0, "cost_migrate_page_us": 0.25,
               "cost_tlb_flush_ipi_us": 1.0}


def pub(table: str, row: str, kernel: str, stat: str = "") -> float:
    """One published number of the thread."""
    c = published(THREAD, table)
    sel = c[(c["row"] == row) & (c["kernel"] == kernel) & (c["stat"] == stat)]
    if len(sel) != 1:
        raise KeyError(f"{table}: {stat!r} {row!r} {kernel!r} matches {len(sel)} cells")
    return float(sel["value"].iloc[0])


@dataclass(frozen=True)
class Setup:
    """How big a reproduction is: seeds are the iterations mmtests would average."""

    seeds: tuple = (1, 2, 3)
    unit_thps: int = 1  # autonumabench: huge pages per simulated unit (1 = the real granularity)
    xfs_unit_pages: int = 64  # xfs_repair-like: base pages per simulated unit
    xfs_fit_rounds: int = 3

    @classmethod
    def for_mode(cls, small: bool | None = None) -> "Setup":
        small = mode().small if small is None else small
        return cls(seeds=(1, 2), unit_thps=2, xfs_unit_pages=256, xfs_fit_rounds=2) if small else cls()


@dataclass
class Calibration:
    setup: Setup
    machine: Machine
    params: NumaParams  # 3.19 with the fitted costs; the other kernels differ only by their switches
    setup_s: dict  # autonumabench test -> s
    xfs_kw: dict  # arguments of xfs_repair()
    fitted: pd.DataFrame  # quantity, value, unit, fitted_to
    fit319: pd.DataFrame  # quantity, published, model (the 3.19 column after the fit)
    notes: list = field(default_factory=list)


# ------------------------------------------------------------------ runs
def _autonuma(test: str, st: Setup, m: Machine, setup_s: float = 0.0):
    return autonumabench(test, m, unit_thps=st.unit_thps, setup_s=setup_s)


def _run(p: NumaParams, w, seeds) -> list[NumaResult]:
    return [simulate(p, w, seed=s, verbose=False) for s in seeds]


def _mean(rs: list[NumaResult], key: str) -> float:
    if key in ("user_s", "system_s", "elapsed_s"):
        return float(np.mean([r.times[key] for r in rs]))
    if key == "local_percent":
        return float(np.mean([r.local_percent for r in rs]))
    return float(np.mean([r.counters[key] for r in rs]))


def _nnls(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Non-negative least squares by trying every active set (a handful of unknowns)."""
    n = A.shape[1]
    best, best_err = np.zeros(n), float(np.sum(b**2))
    for k in range(1, n + 1):
        for cols in itertools.combinations(range(n), k):
            x, *_ = np.linalg.lstsq(A[:, cols], b, rcond=None)
            if (x < 0).any():
                continue
            full = np.zeros(n)
            full[list(cols)] = x
            err = float(np.sum((A @ full - b) ** 2))
            if err < best_err - 1e-12:
                best, best_err = full, err
    return best


def _fit_bandwidth(runs: dict, m: Machine) -> Machine:
    """Node bandwidth and remote cost from the 3.19 User times (closed form in bandwidth, grid in remote cost)."""
    tests = list(TESTS)
    u_pub = np.array([pub("ptewrite-autonuma", f"User-{TESTS[t]}", K319, "Time") for t in tests])
    u_mod = np.array([_mean(runs[t], "user_s") for t in tests])
    frac = np.array([_mean(runs[t], "remote_accesses") / max(1.0, _mean(runs[t], "accesses")) for t in tests])
    r0, b0 = m.remote_access_cost, m.node_bandwidth_mbs
    best = None
    for r in np.arange(1.0, 3.0001, 0.01):
        shape = u_mod * (1 + (r - 1) * frac) / (1 + (r0 - 1) * frac)  # user time at bandwidth b0
        logb = np.mean(np.log(shape) - np.log(u_pub))  # user ~ 1/b, so log(b/b0) = mean log(shape/u_pub)
        err = float(np.sum((np.log(shape) - logb - np.log(u_pub)) ** 2))
        if best is None or err < best[0]:
            best = (err, r, b0 * float(np.exp(logb)))
    _, r, b = best
    return replace(m, node_bandwidth_mbs=round(b, 1), remote_access_cost=round(float(r), 2))


def _fit_costs(runs: dict, p: NumaParams) -> NumaParams:
    """The cost constants from the 3.19 System times (relative least squares, each cost >= its floor)."""
    rows, rhs = [], []
    floors = np.array([COST_FLOORS[f] for f in COST_FIELDS])
    for t in TESTS:
        rs = runs[t]
        cpu_ms = (_mean(rs, "user_s") + _mean(rs, "system_s")) * 1e3
        fixed = _mean(rs, "sys_scan_s") + _mean(rs, "sys_wp_s")  # priors, not fitted
        sys_pub = pub("ptewrite-autonuma", f"System-{TESTS[t]}", K319, "Time")
        a = np.array([cpu_ms, _mean(rs, "numa_hint_faults"), _mean(rs, "numa_pages_migrated"),
                      _mean(rs, "tlb_ipis")]) * 1e-6  # us -> s
        rows.append(a / sys_pub)
        rhs.append((sys_pub - fixed - a @ floors) / sys_pub)
    x = floors + _nnls(np.array(rows), np.array(rhs))
    return replace(p, **{f: float(round(v, 4)) for f, v in zip(COST_FIELDS, x)})


def _xfs_targets() -> dict:
    t = "slowscan-numastat"
    pte = pub(t, "NUMA base PTE updates", K319)
    flt = pub(t, "NUMA hint faults", K319)
    return {"fault_ratio": flt / pte, "migrate_ratio": pub(t, "NUMA pages migrated", K319) / flt,
            "local_percent": pub(t, "NUMA hint local faults", K319) / flt * 100}


def _xfs_stats(rs) -> dict:
    pte, flt = _mean(rs, "numa_pte_updates"), _mean(rs, "numa_hint_faults")
    return {"fault_ratio": flt / max(pte, 1.0), "migrate_ratio": _mean(rs, "numa_pages_migrated") / max(flt, 1.0),
            "local_percent": _mean(rs, "local_percent")}


def _fit_xfs(p: NumaParams, m: Machine, st: Setup, notes: list) -> tuple[dict, dict]:
    """The xfs_repair-like load's access pattern and length, from the 3.19 column."""
    target = _xfs_targets()
    real = pub("ptewrite-xfsrepair", "real-xfsrepair", K319, "Amean")
    syst = pub("ptewrite-xfsrepair", "syst-xfsrepair", K319, "Amean")
    kw = dict(unit_pages=st.xfs_unit_pages, seconds=real, accesses_per_s=2000.0, shared_frac=0.5,
              wander_per_s=2.0)
    seeds = st.seeds[:2]
    # knob -> (statistic it moves, direction, bounds, log scale)
    knobs = [("accesses_per_s", "fault_ratio", +1, (20.0, 2e5), True),
             ("shared_frac", "migrate_ratio", -1, (0.0, 0.98), False),
             ("wander_per_s", "local_percent", -1, (0.01, 200.0), True)]

    def stats(kw2):
        return _xfs_stats(_run(p, xfs_repair(m, **kw2), seeds))

    for _ in range(st.xfs_fit_rounds):
        for knob, stat, sign, (lo, hi), log in knobs:
            a, b = lo, hi
            for _ in range(9):  # bisection
                mid = float(np.sqrt(a * b)) if log else 0.5 * (a + b)
                s = stats({**kw, knob: mid})[stat]
                if (s < target[stat]) == (sign > 0):
                    a = mid
                else:
                    b = mid
            kw[knob] = float(np.sqrt(a * b)) if log else 0.5 * (a + b)
    got = stats(kw)
    # length and the load's own system time: real and syst of 3.19
    for _ in range(3):
        rs = _run(p, xfs_repair(m, **kw), seeds)
        el = _mean(rs, "elapsed_s")
        kw["seconds"] = float(kw["seconds"] * real / el)
    rs = _run(p, xfs_repair(m, **kw), seeds)
    numa_sys = _mean(rs, "system_s")
    acc = _mean(rs, "accesses")
    extra = syst - numa_sys
    if extra < 0:
        notes.append(f"xfs_repair: the NUMA-balancing system time of the 3.19 model ({numa_sys:.0f} s) already "
                     f"exceeds the published syst-xfsrepair ({syst:.0f} s); its own system time is set to 0")
    kw["sys_us_per_access"] = float(max(0.0, extra) / acc * 1e6)
    return kw, {**{f"xfs {k} (model)": v for k, v in got.items()}, **{f"xfs {k} (3.19)": v for k, v in target.items()}}


@functools.lru_cache(maxsize=4)
def calibrate(st: Setup = Setup()) -> Calibration:
    """Fit the cost constants and the workloads on the 3.19 column (see the module docstring)."""
    notes: list[str] = []
    m = MACHINES[MEL]
    p = NumaParams()
    runs = {}
    for _ in range(2):
        runs = {t: _run(p, _autonuma(t, st, m), st.seeds) for t in TESTS}
        m = _fit_bandwidth(runs, m)
        runs = {t: _run(p, _autonuma(t, st, m), st.seeds) for t in TESTS}
        p = _fit_costs(runs, p)
    runs = {t: _run(p, _autonuma(t, st, m), st.seeds) for t in TESTS}
    setup_s = {t: pub("ptewrite-autonuma", f"Elapsed-{TESTS[t]}", K319, "Time") - _mean(runs[t], "elapsed_s")
               for t in TESTS}
    for t, v in setup_s.items():
        if v < 0:
            notes.append(f"{t}: the 3.19 model runs {-v:.1f} s longer than the published Elapsed; setup_s is negative")
    xfs_kw, xfs_fit = _fit_xfs(p, m, st, notes)
    fitted = pd.DataFrame([
        ("node_bandwidth_mbs", m.node_bandwidth_mbs, "MB/s", "3.19 User, 4 autonumabench tests"),
        ("remote_access_cost", m.remote_access_cost, "x local", "3.19 User, 4 autonumabench tests"),
        *[(f, getattr(p, f), "us" + (" per ms CPU" if f == "cost_sched_tick_us" else ""),
           f"3.19 System, 4 autonumabench tests (floor {COST_FLOORS[f]:g})") for f in COST_FIELDS],
        ("cost_pte_update_ns", p.cost_pte_update_ns, "ns", "prior (not fitted)"),
        ("cost_wp_fault_us", p.cost_wp_fault_us, "us", "prior (no write-protect faults in 3.19 to fit it on)"),
        ("isolate_lru_fail_prob", p.isolate_lru_fail_prob, "", "prior (not fitted)"),
        *[(f"setup_s {t}", v, "s", f"3.19 Elapsed-{TESTS[t]}") for t, v in setup_s.items()],
        ("xfs accesses_per_s", xfs_kw["accesses_per_s"], "/s", "3.19 numa_hint_faults / numa_pte_updates"),
        ("xfs shared_frac", xfs_kw["shared_frac"], "", "3.19 numa_pages_migrated / numa_hint_faults"),
        ("xfs wander_per_s", xfs_kw["wander_per_s"], "/s", "3.19 NUMA hint local percent"),
        ("xfs seconds", xfs_kw["seconds"], "s", "3.19 Amean real-xfsrepair"),
        ("xfs sys_us_per_access", xfs_kw["sys_us_per_access"], "us", "3.19 Amean syst-xfsrepair"),
    ], columns=["quantity", "value", "unit", "fitted_to"])
    fit = []
    for t in TESTS:
        for what, key in (("User", "user_s"), ("System", "system_s")):
            fit.append((f"{what}-{TESTS[t]}", pub("ptewrite-autonuma", f"{what}-{TESTS[t]}", K319, "Time"),
                        _mean(runs[t], key)))
    fit += [(k, None, v) for k, v in xfs_fit.items()]
    fit319 = pd.DataFrame(fit, columns=["quantity", "published", "model"])
    return Calibration(st, m, p, setup_s, xfs_kw, fitted, fit319, notes)


@functools.lru_cache(maxsize=4)
def runs(st: Setup = Setup()) -> dict:
    """Every kernel on every workload: ``{(kernel, workload): [NumaResult per seed]}``."""
    cal = calibrate(st)
    out = {}
    for k in KERNELS:
        p = kernel_params(k, base=cal.params)
        for t in TESTS:
            out[(k, t)] = _run(p, _autonuma(t, st, cal.machine, cal.setup_s[t]), st.seeds)
        out[(k, "xfs_repair")] = _run(p, xfs_repair(cal.machine, **cal.xfs_kw), st.seeds)
    return out


# ------------------------------------------------------------------ tables in the thread's layout
def _samples(r: dict, kernels, rows_of) -> dict:
    """``{kernel: {row: [value per seed]}}`` for compare()."""
    return {k: {row: fn(k) for row, fn in rows_of.items()} for k in kernels}


def df_model_autonuma(r: dict, kernels, what=("User", "System", "Elapsed")) -> pd.DataFrame:
    """The model's autonumabench table (mmtests layout, ``Time`` rows), computed by compare()."""
    key = {"User": "user_s", "System": "system_s", "Elapsed": "elapsed_s"}
    rows = {f"{w}-{TESTS[t]}": (lambda k, t=t, w=w: [x.times[key[w]] for x in r[(k, t)]])
            for w in what for t in TESTS}
    c = compare(_samples(r, kernels, rows), higher_is_better=False, stats=("Amean",), era="2015",
                significance=None, kernels=list(kernels), table="model")
    c["stat"] = "Time"
    lay = c.attrs["tables"]["model"]["layout"]
    lay["stat_width"] = 4
    lay["label_width"] = 5 + lay["row_width"]
    return c


def df_model_totals(r: dict, kernels) -> pd.DataFrame:
    key = {"User": "user_s", "System": "system_s", "Elapsed": "elapsed_s"}
    rows = {w: (lambda k, w=w: [sum(r[(k, t)][i].times[key[w]] for t in TESTS) for i in range(len(r[(k, "NUMA01")]))])
            for w in key}
    c = compare(_samples(r, kernels, rows), higher_is_better=False, stats=("Amean",), era="2015",
                significance=None, kernels=list(kernels), table="model")
    c["stat"] = ""
    lay = c.attrs["tables"]["model"]["layout"]
    lay["stat_width"] = 0
    lay["label_width"] = lay["row_width"]
    return c


def df_model_xfsrepair(r: dict, kernels) -> pd.DataFrame:
    rows = {"real-xfsrepair": lambda k: [x.times["elapsed_s"] for x in r[(k, "xfs_repair")]],
            "syst-xfsrepair": lambda k: [x.times["system_s"] for x in r[(k, "xfs_repair")]]}
    return compare(_samples(r, kernels, rows), higher_is_better=False, stats=("Min", "Mean", "Stddev", "Max"),
                   era="2015", significance=None, kernels=list(kernels), table="model")


def numastat_value(r: dict, kernel: str, row: str, workload: str) -> float:
    """A NUMA counter of one kernel: for ``autonumabench`` summed over its four tests (one mmtests run)."""
    tests = list(TESTS) if workload == "autonumabench" else [workload]
    if NUMASTAT_ROWS[row] == "local_percent":
        f = sum(_mean(r[(kernel, t)], "numa_hint_faults") for t in tests)
        return 100.0 * sum(_mean(r[(kernel, t)], "numa_hint_faults_local") for t in tests) / f if f else float("nan")
    return sum(_mean(r[(kernel, t)], NUMASTAT_ROWS[row]) for t in tests)


def df_model_numastat(r: dict, table: str, workload: str) -> pd.DataFrame:
    """The model's NUMA counters printed in the published table's own layout (mean over seeds)."""
    c = published(THREAD, table).copy()
    c = c[c["row"].isin(NUMASTAT_ROWS)].copy()
    vals = [round(numastat_value(r, row.kernel, row.row, workload)) for row in c.itertuples()]
    c["value"] = vals
    c["text"] = [f"{v:.0f}" for v in vals]
    c.attrs = {"tables": {table: dict(published(THREAD, table).attrs["tables"][table])}}
    return c


# ------------------------------------------------------------------ cells and the summary
def _cells_for(table, stat, rows, kernels, baseline, model_value, calibrated_kernel=K319):
    out = []
    for row in rows:
        base_pub = pub(table, row, baseline, stat)
        base_mod = model_value(baseline, row)
        for k in kernels:
            pv, mv = pub(table, row, k, stat), model_value(k, row)
            is_base = k == baseline
            out.append({
                "table": table, "stat": stat, "row": row, "kernel": k, "published": pv, "model": mv,
                "published_delta_pct": None if is_base else delta_pct(pv, base_pub),
                "model_delta_pct": None if is_base else delta_pct(mv, base_mod),
                "calibrated": k == calibrated_kernel,
            })
    return out


def reproduction_cells(r: dict) -> list[dict]:
    def autonuma(k, row):
        what, test = row.split("-", 1)
        t = next(w for w, name in TESTS.items() if name == test)
        return _mean(r[(k, t)], {"User": "user_s", "System": "system_s", "Elapsed": "elapsed_s"}[what])

    def totals(k, row):
        key = {"User": "user_s", "System": "system_s", "Elapsed": "elapsed_s"}[row]
        return sum(_mean(r[(k, t)], key) for t in TESTS)

    def numastat(workload):
        return lambda k, row: numastat_value(r, k, row, workload)

    def xfs(k, row):
        return _mean(r[(k, "xfs_repair")], "elapsed_s" if row.startswith("real") else "system_s")

    se_rows = [f"{w}-{TESTS[t]}" for w in ("System", "Elapsed") for t in TESTS]
    cells = []
    cells += _cells_for("slowscan-autonuma", "Time", se_rows, (KRC1, KSLOW, K319), KRC1, autonuma)
    cells += _cells_for("slowscan-totals", "", ("User", "System", "Elapsed"), (KRC1, KSLOW, K319), KRC1, totals)
    cells += _cells_for("ptewrite-autonuma", "Time", se_rows, (K319, KRC1, KPTE), K319, autonuma)
    cells += _cells_for("ptewrite-totals", "", ("User", "System", "Elapsed"), (K319, KRC1, KPTE), K319, totals)
    cells += _cells_for("ptewrite-numastat", "", list(NUMASTAT_ROWS), (K319, KRC1, KPTE), K319,
                        numastat("autonumabench"))
    cells += _cells_for("slowscan-numastat", "", list(NUMASTAT_ROWS), (KRC1, KSLOW, K319), KRC1,
                        numastat("xfs_repair"))
    cells += _cells_for("slowscan-xfsrepair", "Amean", ("real-xfsrepair", "syst-xfsrepair"), (KRC1, KSLOW, K319),
                        KRC1, xfs)
    cells += _cells_for("ptewrite-xfsrepair", "Amean", ("real-xfsrepair", "syst-xfsrepair"), (K319, KRC1, KPTE),
                        K319, xfs)
    return cells


# ------------------------------------------------------------------ the reproduction
GROUPS = {  # which fidelity group each scored row belongs to (the targets are on the first two)
    "system": lambda c: c["row"].startswith("System") or c["row"] == "syst-xfsrepair",
    "vmstat": lambda c: c["table"].endswith("numastat"),
    "elapsed/user": lambda c: c["row"].startswith(("Elapsed", "User")) or c["row"] == "real-xfsrepair",
}


def _why(c: dict, cal: Calibration) -> str:
    """Why a cell misses, in one line (from what the fit and the mechanism say, see the notebook)."""
    row, table, k = c["row"], c["table"], c["kernel"]
    mig_cost = sum(getattr(cal.params, f) - COST_FLOORS[f] for f in ("cost_migrate_page_us", "cost_tlb_flush_ipi_us"))
    if table.endswith("numastat") and row == "NUMA pages migrated" and k != KSLOW:
        return ("without numa groups the model's shared pages ping-pong far more than the thread's "
                "(no numa group holds them on the group's active nodes)")
    if k == KSLOW and (table.startswith("slowscan-xfs") or table == "slowscan-numastat"):
        return ("the model's xfs_repair threads wander and task_numa_migrate() moves them back, which resets "
                "numa_scan_period to task_scan_min and undoes the slow-scan doubling")
    if row.startswith("System") or row == "syst-xfsrepair":
        if mig_cost == 0:
            return ("the 3.19 column cannot tell fault costs from migration costs; the fit put the system time on "
                    "faults and per-CPU overhead, leaving migrations and IPIs at their physical floors, so the "
                    "extra migrations cost little")
        return "system time follows the model's events, weighted by costs fitted on 3.19"
    if row.startswith("User") or row.startswith("Elapsed") or row == "real-xfsrepair":
        return ("the model's 4.0-rc1 threads still converge with their memory, so remote accesses (user time) "
                "do not grow as in the thread")
    if table.endswith("numastat"):
        return ("counts add up over the run: the thread's 4.0-rc1 autonumabench ran 19% longer and scanned "
                "faster; the model's pages follow its threads, so its controller hardly speeds up and its run is "
                "not longer")
    return ""


def _side_by_side(cells: list[dict]) -> str:
    lines = [f"{'table':20s} {'row':28s} {'kernel':26s} {'published':>14s} {'model':>14s} {'pub Δ%':>9s} "
             f"{'model Δ%':>9s} {'error':>8s}"]
    for c in cells:
        if c["published_delta_pct"] is None:
            continue
        err = c["model_delta_pct"] - c["published_delta_pct"]
        flag = " (fitted)" if c["calibrated"] else ""
        lines.append(f"{c['table']:20s} {c['row'][:28]:28s} {c['kernel'][:26]:26s} {c['published']:14.2f} "
                     f"{c['model']:14.2f} {c['published_delta_pct']:9.2f} {c['model_delta_pct']:9.2f} "
                     f"{err:8.2f}{flag}")
    return "\n".join(lines)


def _block(title: str, text: str) -> str:
    return f"== {title}\n{text}"


def reproduce_numa_2015(small: bool | None = None) -> Reproduction:
    """``kwb reproduce 2015-numa-slow-scan``: published beside model, and the fidelity summary."""
    st = Setup.for_mode(small)
    cal = calibrate(st)
    r = runs(st)
    rep = Reproduction(THREAD)
    rep.cells = reproduction_cells(r)
    fitted = cal.fitted.assign(value=cal.fitted["value"].map(lambda v: f"{v:.4g}"))
    rep.text.append(_block(
        "calibration: fitted on the 3.19.0 vanilla column only",
        f"machine {cal.machine.name}: {cal.machine.note}\n"
        f"iterations (seeds): {list(st.seeds)}; autonumabench unit = {st.unit_thps} huge page(s); "
        f"xfs_repair unit = {st.xfs_unit_pages} pages\n\n" + fitted.to_string(index=False)
        + "\n\n3.19 after the fit (published / model):\n"
        + cal.fit319.assign(published=cal.fit319["published"].map(lambda v: "" if v != v or v is None else f"{v:.2f}"),
                            model=cal.fit319["model"].map(lambda v: f"{v:.3f}")).to_string(index=False)))
    blocks = [
        ("slowscan-autonuma", df_model_autonuma(r, (KRC1, KSLOW, K319), ("System", "Elapsed"))),
        ("slowscan-totals", df_model_totals(r, (KRC1, KSLOW, K319))),
        ("ptewrite-autonuma", df_model_autonuma(r, (K319, KRC1, KPTE))),
        ("ptewrite-totals", df_model_totals(r, (K319, KRC1, KPTE))),
        ("ptewrite-numastat", df_model_numastat(r, "ptewrite-numastat", "autonumabench")),
        ("slowscan-numastat", df_model_numastat(r, "slowscan-numastat", "xfs_repair")),
        ("slowscan-xfsrepair", df_model_xfsrepair(r, (KRC1, KSLOW, K319))),
        ("ptewrite-xfsrepair", df_model_xfsrepair(r, (K319, KRC1, KPTE))),
    ]
    for table, model in blocks:
        p = published(THREAD, table)
        title = p.attrs["tables"][table]["title"]
        if table.endswith("xfsrepair"):
            p = p[p["row"].str.endswith("xfsrepair")]
        rep.text.append(_block(f"{table}: {title} — published", render(p)))
        rep.text.append(_block(f"{table} — model (mean of {len(st.seeds)} seeds)", render(model)))
    rep.text.append(_block("every scored cell: change against the table's baseline column, published and model",
                           _side_by_side(rep.cells)))
    # fidelity by group and the cells that miss
    pred = [c for c in rep.cells if not c["calibrated"] and c["published_delta_pct"] is not None]
    lines = []
    for g, sel in GROUPS.items():
        s = summarise([c for c in pred if sel(c)])
        lines.append(f"{g:13s}: {s['predicted_cells']:2d} cells, direction agrees on "
                     f"{100 * (s['direction_agreement'] or 0):.0f}%, median |model - published| = "
                     f"{s['median_abs_error_pts'] or 0:.1f} points")
    s_target = summarise([c for c in pred if GROUPS["system"](c) or GROUPS["vmstat"](c)])
    lines.append(f"the issue's target set (system times + vmstat counters): direction {100 * (s_target['direction_agreement'] or 0):.0f}% "
                 f"(target >= 90%), median error {s_target['median_abs_error_pts'] or 0:.1f} points (target <= 5)")
    misses = []
    for c in pred:
        err = c["model_delta_pct"] - c["published_delta_pct"]
        sign_ok = np.sign(round(c["model_delta_pct"], 1)) == np.sign(round(c["published_delta_pct"], 1))
        if not sign_ok or abs(err) > 5:
            misses.append(f"  {c['table']} / {c['row']} / {c['kernel']}: published {c['published_delta_pct']:+.1f}%, "
                          f"model {c['model_delta_pct']:+.1f}% — {_why(c, cal)}")
    rep.text.append(_block("fidelity by group", "\n".join(lines)))
    rep.text.append(_block(f"cells that miss (sign differs or |error| > 5 points): {len(misses)} of {len(pred)}",
                           "\n".join(misses) or "  none"))
    rep.notes.extend(cal.notes)
    return rep
