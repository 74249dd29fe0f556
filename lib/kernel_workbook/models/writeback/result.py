"""The result of one run: counters named as 2.6.23's ``/proc/vmstat`` names them, and the frames a notebook draws.

* :meth:`Result.counters` -- the run's counters (``pgscan_kswapd_normal``,
  ``pgsteal_high``, ``kswapd_steal``, ``pgrotated``...), zone suffixes as the
  machine's architecture names its zones (i386: ``dma normal high``;
  x86_64: ``dma dma32 normal``);
* :meth:`Result.vmstat` -- the counters sampled over time: a ``/proc/vmstat``
  series in the shape of ``traces.parse_proc_vmstat``, so
  ``traces.df_reclaim_2007`` reads a model run exactly as it reads a capture
  (the reproduction and the notebook compute the thread's efficiency that way;
  a model may not import ``traces``);
* :meth:`Result.summary` -- kswapd CPU %, pages scanned and freed per second
  (and in MB/s), ``pgsteal / pgscan`` of the whole run;
* :meth:`Result.queue` -- who holds the request queue's slots over time;
* :meth:`Result.zones` -- free, dirty and writeback pages of each zone over time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..cfq.layout import S_ as BS_
from .layout import AC, ACTOR, NZ, S, SMP, VM

OWNER_NAMES = {ACTOR.KSWAPD: "kswapd", ACTOR.PDFLUSH: "pdflush", ACTOR.LOAD: "load"}
PER_ZONE = ("pgscan_kswapd", "pgscan_direct", "pgsteal")
AUDIT_NAMES = {0: "ok", 1: "a page put under writeback twice", 2: "writeback ended on a page not under writeback",
               10: "pages not conserved in zone 0", 11: "pages not conserved in zone 1",
               12: "pages not conserved in zone 2", 20: "a negative count in zone 0", 21: "a negative count in zone 1",
               22: "a negative count in zone 2", 30: "zones do not add up to the machine",
               40: "the request list beyond 3/2 of nr_requests, or no request row free",
               41: "an allocated request neither in the elevator nor in the device",
               50: "a page under writeback in no request", 51: "a finished request still holding pages"}


def _vm_names(zone_names) -> list[str]:
    names = []
    for f, i in VM._asdict().items():
        if f in PER_ZONE:
            names += [f"{f}_{z}" for z in zone_names]
        else:
            names.append(f)
    return names


@dataclass
class Result:
    params: object
    workload: object
    seed: int | None
    arrays: dict = field(repr=False)
    events: int = 0
    derived: dict = field(default_factory=dict, repr=False)

    # ---- sizes and time
    @property
    def zone_names(self) -> tuple:
        return self.workload.zone_names

    @property
    def elapsed_s(self) -> float:
        return self.derived["end_ns"] / 1e9

    @property
    def elevator(self) -> str:
        """The I/O scheduler of the run: ``cfq``, ``noop``, ``deadline`` (2.6) or ``deadline (2.5 rbtree)``."""
        v = self.params.values()
        if v["scheduler"] == "deadline" and v["deadline_rbtree_2002"]:
            return "deadline (2.5 rbtree)"
        return v["scheduler"]

    def audit(self) -> str:
        """What ``simulate(..., audit=True)`` found: ``"ok"`` or the first violation."""
        code = int(self.arrays["s"][S.audit_fail])
        return AUDIT_NAMES.get(code, f"code {code}")

    # ---- counters
    def counters(self) -> dict:
        """The run's ``/proc/vmstat`` counters (events since the start) and ``nr_dirty``/``nr_writeback`` at the end."""
        vm = self.arrays["vm"]
        out = {}
        for name, v in zip(_vm_names(self.zone_names), vm):
            out[name] = int(v)
        out["nr_dirty"] = int(self.arrays["s"][S.nr_dirty])
        out["nr_writeback"] = int(self.arrays["s"][S.nr_writeback])
        out["nr_free_pages"] = int(self.arrays["zs"][:, 2].sum())
        return out

    def vmstat(self) -> pd.DataFrame:
        """The counters sampled every ``sample_ms``, as a parsed ``/proc/vmstat`` series.

        Columns: every counter (``pgscan_kswapd_<zone>``, ``pgscan_direct_<zone>``,
        ``pgsteal_<zone>``, ``kswapd_steal``, ``pgrotated``, ``pgactivate``,
        ``pgdeactivate``, ``allocstall``, ``pageoutrun``, ``nr_vmscan_write``,
        ``pgpgout``...), ``nr_free_pages``, ``nr_dirty``, ``nr_writeback``,
        ``sample``, ``time``, ``elapsed`` (seconds from the start).
        """
        n = int(self.arrays["s"][S.sample_n])
        v = self.arrays["vms"][:n]
        smp = self.arrays["smp"][:n]
        df = pd.DataFrame(v, columns=_vm_names(self.zone_names))
        df["nr_free_pages"] = smp[:, SMP.nr_free:SMP.nr_free + NZ].sum(axis=1)
        df["nr_dirty"] = smp[:, SMP.nr_dirty:SMP.nr_dirty + NZ].sum(axis=1)
        df["nr_writeback"] = smp[:, SMP.nr_writeback:SMP.nr_writeback + NZ].sum(axis=1)
        t = smp[:, SMP.t_ns] / 1e9
        df["sample"] = np.arange(n)
        df["time"] = t
        df["elapsed"] = t
        df.attrs.update(source="model", format="proc_vmstat")
        return df

    def summary(self) -> dict:
        """The run's scalar outputs: the counters, kswapd CPU %, scan and free rates, reclaim efficiency."""
        c = self.counters()
        t = self.elapsed_s
        ac = self.arrays["ac"]
        bs = self.arrays["BS"]
        ks = sum(c[f"pgscan_kswapd_{z}"] for z in self.zone_names)
        ds = sum(c[f"pgscan_direct_{z}"] for z in self.zone_names)
        steal = sum(c[f"pgsteal_{z}"] for z in self.zone_names)
        out = dict(c)
        out.update(
            kswapd_cpu_pct=100.0 * ac[ACTOR.KSWAPD, AC.cpu_ns] / self.derived["end_ns"],
            kswapd_scan_pages_s=ks / t, kswapd_freed_pages_s=c["kswapd_steal"] / t,
            kswapd_scan_mb_s=ks / t / 256.0, kswapd_freed_mb_s=c["kswapd_steal"] / t / 256.0,
            scan_pages_s=(ks + ds) / t, freed_pages_s=steal / t,
            reclaim_efficiency_pct=100.0 * steal / (ks + ds) if ks + ds else float("nan"),
            kswapd_efficiency_pct=100.0 * c["kswapd_steal"] / ks if ks else float("nan"),
            direct_efficiency_pct=100.0 * (steal - c["kswapd_steal"]) / ds if ds else float("nan"),
            kswapd_congestion_wait_s=ac[ACTOR.KSWAPD, AC.cw_ns] / 1e9,
            kswapd_request_wait_s=ac[ACTOR.KSWAPD, AC.rqw_ns] / 1e9,
            load_congestion_wait_s=ac[ACTOR.LOAD, AC.cw_ns] / 1e9,
            allocated_mb=int(self.arrays["s"][S.alloc_done]) / 256.0,
            alloc_failed=int(self.arrays["s"][S.alloc_fail]), elapsed_s=t, events=self.events,
            disk_write_mb_s=c["pgpgout"] / 1024.0 / t, elevator=self.elevator,
            bio_back_merges=int(bs[BS_.c_back_merge]), bio_front_merges=int(bs[BS_.c_front_merge]),
            request_merges=int(bs[BS_.c_rq_merge]), get_request_sleeps=int(bs[BS_.c_sleeprq]),
        )
        return out

    def caption(self) -> str:
        """The run's ARG line: knobs and workload that differ from the defaults, and the seed."""
        return f"{self.params.echo(seed=self.seed)}; workload: {self.workload.echo()}"

    # ---- series
    def queue(self) -> pd.DataFrame:
        """Who holds the request queue's slots at each sample (tidy).

        Columns: ``elapsed, holder`` (``pdflush``, ``kswapd``, ``load``), ``zone``, ``slots``,
        ``nr_requests``, ``congested``.
        """
        n = int(self.arrays["s"][S.sample_n])
        qs = self.arrays["qs"][:n]
        smp = self.arrays["smp"][:n]
        rows = []
        for k in range(n):
            for a, name in OWNER_NAMES.items():
                for z, zn in enumerate(self.zone_names):
                    rows.append((smp[k, SMP.t_ns] / 1e9, name, zn, int(qs[k, a * NZ + z]),
                                 int(smp[k, SMP.q_congested])))
        df = pd.DataFrame(rows, columns=["elapsed", "holder", "zone", "slots", "congested"])
        df["nr_requests"] = self.params.value("nr_requests")
        return df[["elapsed", "holder", "zone", "slots", "nr_requests", "congested"]]

    def zones(self) -> pd.DataFrame:
        """Free, dirty and writeback pages of each zone at each sample (tidy).

        Columns: ``elapsed, zone, state`` (``free``/``dirty``/``writeback``), ``pages``.
        """
        n = int(self.arrays["s"][S.sample_n])
        smp = self.arrays["smp"][:n]
        rows = []
        for k in range(n):
            for z, zn in enumerate(self.zone_names):
                if self.arrays["zs"][z, 0] == 0:
                    continue
                for st, col in (("free", SMP.nr_free), ("dirty", SMP.nr_dirty), ("writeback", SMP.nr_writeback)):
                    rows.append((smp[k, SMP.t_ns] / 1e9, zn, st, int(smp[k, col + z])))
        return pd.DataFrame(rows, columns=["elapsed", "zone", "state", "pages"])


__all__ = ["Result", "OWNER_NAMES", "AUDIT_NAMES"]
