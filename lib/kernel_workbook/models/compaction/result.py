"""The result of one stress-highalloc run: frames named as the kernel and mmtests name things.

* :meth:`Result.passes` -- success % of each pass, as STRESS-HIGHALLOC prints it;
* :meth:`Result.mmtests_vmstat` -- the "MMTests Statistics: vmstat" rows of the thread;
* :meth:`Result.counters` -- the ``/proc/vmstat`` counters of the run, scaled to the machine;
* :meth:`Result.vmstat` -- the counters sampled over time (a ``/proc/vmstat`` series);
* :meth:`Result.buddyinfo` / :meth:`Result.pagetypeinfo` -- the shapes of
  :func:`kernel_workbook.traces.parse_buddyinfo` / ``parse_pagetypeinfo``, so a
  model run and a real capture go on one chart;
* :meth:`Result.attempts`, :meth:`Result.occupancy`, :meth:`Result.scanners`,
  :meth:`Result.pageblocks` -- what the notebook draws.

Counters of the simulated slice are multiplied by ``machine_mb / zone_mb``
(``scale``) wherever a machine-wide figure is asked for; buddyinfo and
pagetypeinfo are the slice's own (a zone of ``zone_mb``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .fragmentation import df_fragmentation
from .layout import ACTOR, ATT, AUDIT, MAX_ORDER, MT, PATH, PHASE, SAMPLE, TR, VM, Z

PASS_NAMES = {PHASE.PASS_1: "Pass 1", PHASE.PASS_2: "Pass 2", PHASE.RESTED: "while Rested"}
PHASE_NAMES = {v: k.lower() for k, v in PHASE._asdict().items()}
PATH_NAMES = {v: k.lower() for k, v in PATH._asdict().items()}
ACTOR_NAMES = {ACTOR.TEST: "test", ACTOR.KSWAPD: "kswapd", ACTOR.LOAD: "load"}
TYPE_NAMES = {MT.MIGRATE_UNMOVABLE: "Unmovable", MT.MIGRATE_RECLAIMABLE: "Reclaimable",
              MT.MIGRATE_MOVABLE: "Movable", MT.MIGRATE_RESERVE: "Reserve"}
VMSTAT_ROWS = ["Page Ins", "Page Outs", "Swap Ins", "Swap Outs", "Direct pages scanned", "Kswapd pages scanned",
               "Kswapd pages reclaimed", "Direct pages reclaimed", "Kswapd efficiency", "Kswapd velocity",
               "Direct efficiency", "Direct velocity"]


@dataclass
class Result:
    params: object
    workload: object
    seed: int | None
    arrays: dict = field(repr=False)
    ticks: int = 0
    derived: dict = field(default_factory=dict, repr=False)
    _memo: dict = field(default_factory=dict, repr=False, compare=False)

    # ---- sizes and time
    @property
    def scale(self) -> float:
        """Machine pages per simulated page (``machine_mb / zone_mb``)."""
        return 1.0 / self.derived["_share"]

    @property
    def elapsed_s(self) -> float:
        """Simulated time from the start of the builds to the end of the rested pass."""
        return self.ticks * self.derived["tick_ns"] / 1e9

    def audit(self) -> tuple[str, int]:
        """What the per-tick audit found (``simulate(..., audit=True)``): ``(code name, tick)``."""
        names = {v: k for k, v in AUDIT._asdict().items()}
        z = self.arrays["z"]
        return names[int(z[Z.audit_fail])], int(z[Z.audit_tick])

    # ---- the test
    def attempts(self) -> pd.DataFrame:
        """One row per attempt.  Columns: ``pass, start_s, latency_ms, ok, path, cpu_ms``."""
        att = self.arrays["att"]
        n = int(self.arrays["z"][Z.att_n])
        df = pd.DataFrame({
            "pass": [PASS_NAMES.get(int(p), "?") for p in att[ATT.phase, :n]],
            "start_s": att[ATT.start_ns, :n] / 1e9,
            "latency_ms": (att[ATT.end_ns, :n] - att[ATT.start_ns, :n]) / 1e6,
            "ok": att[ATT.ok, :n].astype(bool),
            "path": [PATH_NAMES.get(int(p), "?") for p in att[ATT.path, :n]],
            "cpu_ms": att[ATT.cpu_ns, :n] / 1e6,
        })
        return df

    def passes(self) -> pd.DataFrame:
        """Success of each pass.  Columns: ``pass, attempts, allocated, success_pct``."""
        if "passes" not in self._memo:
            self._memo["passes"] = self._passes()
        return self._memo["passes"].copy()

    def _passes(self) -> pd.DataFrame:
        a = self.attempts()
        count = self.derived["test_count"]
        rows = []
        for name in PASS_NAMES.values():
            g = a[a["pass"] == name]
            ok = int(g["ok"].sum())
            rows.append({"pass": name, "attempts": count, "allocated": ok,
                         "success_pct": round(100.0 * ok / count, 2) if len(g) else float("nan")})
        return pd.DataFrame(rows, columns=["pass", "attempts", "allocated", "success_pct"])

    def success_pct(self, which: str = "Pass 1") -> float:
        p = self.passes().set_index("pass")
        return float(p.loc[which, "success_pct"])

    # ---- counters
    def counters(self, scaled: bool = True) -> dict:
        """The run's ``/proc/vmstat`` counters (``pgpgin``, ``pgscan_kswapd_normal``, ``compact_stall``...)."""
        vm = self.arrays["vm"]
        s = self.scale if scaled else 1.0
        return {k: float(vm[i]) * s for k, i in VM._asdict().items()}

    def mmtests_vmstat(self) -> pd.DataFrame:
        """The thread's "MMTests Statistics: vmstat" rows, for the whole machine.

        Columns: ``row, value``.  Efficiency = reclaimed * 100 / scanned;
        velocity = scanned per second of the run.
        """
        c = self.counters()
        t = self.elapsed_s
        ks, kr = c["pgscan_kswapd_normal"], c["pgsteal_kswapd_normal"]
        ds, dr = c["pgscan_direct_normal"], c["pgsteal_direct_normal"]
        vals = [c["pgpgin"], c["pgpgout"], c["pswpin"], c["pswpout"], ds, ks, kr, dr,
                100.0 * kr / ks if ks else float("nan"), ks / t, 100.0 * dr / ds if ds else float("nan"), ds / t]
        return pd.DataFrame({"row": VMSTAT_ROWS, "value": vals})

    def summary(self) -> dict:
        """The run's scalar outputs (what a sweep keeps): success per pass and the machine-wide counters."""
        out = {f"success_{k.replace(' ', '_').lower()}": v for k, v in
               self.passes().set_index("pass")["success_pct"].items()}
        out.update({k: v for k, v in self.counters().items()})
        out.update({r.row: r.value for r in self.mmtests_vmstat().itertuples()})
        out["elapsed_s"] = self.elapsed_s
        return out

    def caption(self) -> str:
        """The run's ARG line: knobs and workload that differ from the defaults, and the seed."""
        w = self.workload.echo()
        return f"{self.params.echo(seed=self.seed)}; workload: {w}"

    # ---- series
    def _samples(self) -> int:
        return int(self.arrays["z"][Z.sample_n])

    def occupancy(self) -> pd.DataFrame:
        """What the slice holds over time.  Columns: ``elapsed, phase`` and pages ``free, file, anon,
        slab_reclaimable, unmovable, huge, dirty, isolated_free``."""
        n = self._samples()
        s = self.arrays["smp"][:n]
        return pd.DataFrame({
            "elapsed": s[:, SAMPLE.t_ns] / 1e9, "phase": [PHASE_NAMES[int(p)] for p in s[:, SAMPLE.phase]],
            "free": s[:, SAMPLE.nr_free], "file": s[:, SAMPLE.nr_file], "anon": s[:, SAMPLE.nr_anon],
            "slab_reclaimable": s[:, SAMPLE.nr_slab], "unmovable": s[:, SAMPLE.nr_unmovable],
            "huge": s[:, SAMPLE.nr_huge], "dirty": s[:, SAMPLE.nr_dirty], "isolated_free": s[:, SAMPLE.nr_cc_free]})

    def vmstat(self, scaled: bool = True) -> pd.DataFrame:
        """The counters sampled over time, as a parsed ``/proc/vmstat`` series: one column per counter,
        ``sample``, ``time`` and ``elapsed`` (seconds from the start of the builds)."""
        n = self._samples()
        v = self.arrays["vms"][:n].astype(float) * (self.scale if scaled else 1.0)
        df = pd.DataFrame(v, columns=list(VM._fields))
        t = self.arrays["smp"][:n, SAMPLE.t_ns] / 1e9
        df["sample"] = np.arange(n)
        df["time"] = t
        df["elapsed"] = t
        return df

    def buddyinfo(self) -> pd.DataFrame:
        """``/proc/buddyinfo`` of the slice, sampled: the frame shape of ``parse_buddyinfo``.

        Columns: ``node, zone, order_0 .. order_10, sample, time, elapsed``.
        """
        n = self._samples()
        b = self.arrays["bud"][:n]
        t = self.arrays["smp"][:n, SAMPLE.t_ns] / 1e9
        df = pd.DataFrame({"node": 0, "zone": "Normal"}, index=range(n))
        for o in range(MAX_ORDER):
            df[f"order_{o}"] = b[:, o].astype(np.int64)
        df["sample"] = np.arange(n)
        df["time"] = t
        df["elapsed"] = t
        df.attrs.update(source="model", format="buddyinfo", orders=MAX_ORDER, scale=self.scale)
        return df

    def pagetypeinfo(self) -> pd.DataFrame:
        """``/proc/pagetypeinfo`` of the slice, sampled: the frame shape of ``parse_pagetypeinfo``.

        Columns: ``section`` (``free``/``blocks``), ``node, zone, type, order`` (-1 for blocks),
        ``count, sample, time, elapsed``, in the parser's dtypes: labels Categorical, ``node`` int16,
        ``order`` int8, ``count`` int64, ``sample`` int32, ``time``/``elapsed`` float64.
        """
        n = self._samples()
        ptf, ptb = self.arrays["ptf"][:n], self.arrays["ptb"][:n]
        t = self.arrays["smp"][:n, SAMPLE.t_ns] / 1e9
        recs = []
        for k in range(n):
            for mt, name in TYPE_NAMES.items():
                for o in range(MAX_ORDER):
                    recs.append(("free", 0, "Normal", name, o, int(ptf[k, mt, o]), k, t[k]))
            for mt, name in TYPE_NAMES.items():
                recs.append(("blocks", 0, "Normal", name, -1, int(ptb[k, mt]), k, t[k]))
        df = pd.DataFrame(recs, columns=["section", "node", "zone", "type", "order", "count", "sample", "time"])
        # the parser's numeric dtypes (traces.procfs.PAGETYPEINFO_DTYPES: models do not import traces; a test
        # compares the two frames' dtypes)
        df = df.astype({"node": np.int16, "order": np.int8, "count": np.int64, "sample": np.int32,
                        "time": np.float64})
        df["elapsed"] = df["time"]
        # the parser's label dtype (Categorical, sorted categories)
        df = df.astype({c: "category" for c in ("section", "zone", "type")})
        df.attrs.update(source="model", format="pagetypeinfo", page_block_order=9, pages_per_block=512,
                        types=list(TYPE_NAMES.values()))
        return df

    def fragmentation(self, order: int = 9) -> pd.DataFrame:
        """Unusable free space index and fragmentation index over time (see :mod:`.fragmentation`)."""
        return df_fragmentation(self.buddyinfo(), order)

    def scanners(self) -> pd.DataFrame:
        """Every compaction step of every task: where its scanners were and the zone's cached free pfn.

        Columns: ``elapsed, task, migrate_pfn, free_pfn, cached_free_pfn, sync, wrapped``.
        """
        n = int(self.arrays["z"][Z.trace_n])
        tr = self.arrays["tr"][:, :n]
        return pd.DataFrame({
            "elapsed": tr[TR.t_ns] / 1e9,
            "task": [ACTOR_NAMES.get(int(a), f"thp{int(a) - ACTOR.THP}") for a in tr[TR.actor]],
            "migrate_pfn": tr[TR.migrate_pfn], "free_pfn": tr[TR.free_pfn], "cached_free_pfn": tr[TR.cached_pfn],
            "sync": tr[TR.sync].astype(bool), "wrapped": tr[TR.wrapped].astype(bool)})

    def pageblocks(self, sample: int = -1) -> pd.DataFrame:
        """The migratetype of every pageblock at a sample.  Columns: ``block, start_pfn, type``."""
        n = self._samples()
        k = sample if sample >= 0 else n + sample
        pb = self.arrays["pbs"][k]
        return pd.DataFrame({"block": np.arange(len(pb)), "start_pfn": np.arange(len(pb)) * 512,
                             "type": [TYPE_NAMES[int(m)] for m in pb]})


__all__ = ["Result", "PASS_NAMES", "VMSTAT_ROWS", "TYPE_NAMES"]
