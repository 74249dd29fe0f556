"""One run of the fair-zone model: counters named as the kernel names them, frames for tables and charts.

The kernel's arrays count units of ``pages_per_unit`` pages; everything this
result reports is in pages again, converted in one place
(:meth:`FairZoneResult.in_pages`, by the table ``layout.COUNTER_UNITS``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .layout import (
    COUNTER_NAMES, COUNTER_UNITS, COUNTERS_AT, EVENTS, INTERNAL, NZ, OP, PAGES, PER_ALLOC, PER_CLUSTER,
    PER_RATELIMIT, PRF, PRF_PAGES, SMF, SMF_PAGES, SPLIT, ST, ST_PAGES, TIME, TRF, TRF_PAGES, ZF, ZF_PAGES,
    ZF_PER_ALLOC, ZONE, ZONE_NAMES,
)
from .params import PAGES_PER_MB, RATELIMIT_PAGES, SWAP_CLUSTER_MAX, AllocatorCosts, FairZoneParams, \
    allocator_cost_ns, units_from_pages
from .setup import ZoneSetup
from .workload import PHASE_NAMES, PageCacheWorkload

if TYPE_CHECKING:
    from .simulate import Arrays

ZONES = ZONE_NAMES
_SENTINEL = 1 << 61  # free_min_seen starts at 1 << 62: no fast-path allocation from the zone yet


def factors(u: int) -> dict:
    """What a raw count of each simple kind (layout.COUNTER_UNITS) is multiplied by at ``u`` pages per unit."""
    scm = max(1, units_from_pages(SWAP_CLUSTER_MAX, u))  # as simulate.pack() gives the kernel
    rl = max(1, units_from_pages(RATELIMIT_PAGES, u))
    return {PAGES: u, EVENTS: 1, TIME: 1, PER_CLUSTER: scm * u / SWAP_CLUSTER_MAX,
            PER_RATELIMIT: rl * u / RATELIMIT_PAGES}


def counters_in_pages(raw: dict, u: int) -> dict:
    """Raw counters (units and events, as the kernel counted them) as the kernel would count them in pages.

    The one place layout.COUNTER_UNITS is applied: ``pages`` x U; ``per allocation`` U x raw + (U - 1) x its
    ``_unit_corr`` (the rest of a unit whose first page renewed the state takes the fast path); ``events`` and
    ``ns`` as counted; ``events + split units`` (zone switches) plus (U - 1) / U x ``zone_switch_splits``;
    ``per SWAP_CLUSTER_MAX`` / ``per ratelimit`` x the pages one of them stands for over 32.
    The corrections themselves are not reported.  At U = 1 every value is the raw one.
    """
    f = factors(u)
    out = {}
    for name, v in raw.items():
        kind, _why = COUNTER_UNITS[name]
        if kind == INTERNAL:
            continue
        if u == 1:
            out[name] = v
        elif kind == PER_ALLOC:
            out[name] = int(u * v + (u - 1) * raw[name + "_unit_corr"])
        elif kind == SPLIT:
            out[name] = int(round(v + (u - 1) / u * raw["zone_switch_splits"]))
        elif kind in (PAGES, EVENTS, TIME):
            out[name] = int(v * f[kind])
        else:
            out[name] = int(round(v * f[kind]))
    return out


@dataclass
class FairZoneResult:
    """One run.  Counters are in the kernel's units (pages, events) and carry its names."""

    params: FairZoneParams
    workload: PageCacheWorkload
    seed: int
    arrays: Arrays
    setup: ZoneSetup
    wall_s: float = 0.0
    _cache: dict = field(default_factory=dict, repr=False)

    # The per-page arrays (and the random numbers): 34 bytes a page, 160 MB for an 8 GB node at one page a unit.  Everything
    # the result reports (counters, zones, phases, samples, the trace) is in the small arrays.
    PER_PAGE = ("U", "PZ", "PFL", "PPREV", "PNEXT", "PT", "DQ", "DQT", "KQ")

    def lean(self) -> "FairZoneResult":
        """This result without the per-page arrays: what to keep (cache, send between processes) when the
        counters, frames and summaries are all that is used.  The kernel cannot be resumed from it."""
        from dataclasses import replace

        # new empty arrays, not [:0] slices: a slice is a view that keeps the whole buffer alive
        empty = {k: np.empty(0, getattr(self.arrays, k).dtype) for k in self.PER_PAGE}
        return FairZoneResult(self.params, self.workload, self.seed, replace(self.arrays, **empty), self.setup,
                              self.wall_s)

    @property
    def elapsed_s(self) -> float:
        return float(self.arrays.S[ST.now]) / 1e9

    @property
    def pages_per_unit(self) -> int:
        """The run's resolution U: the kernel's arrays count units of U pages, this result reports pages."""
        return int(self.params.pages_per_unit)

    def in_pages(self) -> dict:
        """The kernel's outputs converted back to pages, once (layout.COUNTER_UNITS and the field lists beside
        it): ``counters``, ``Z``, ``S_gauges``, ``PR`` (per-phase fields, and ``PR_counters``: one counter dict
        per phase), ``SM``, ``TR``.  Every frame and counter of this result reads from it."""
        got = self._cache.get("in_pages")
        if got is not None:
            return got
        a, u = self.arrays, self.pages_per_unit
        S = a.S
        raw = {name: int(S[COUNTERS_AT + i]) for i, name in enumerate(COUNTER_NAMES)}
        raw["oom"] = int(S[ST.oom])
        raw["direct_reclaim_stall_ns"] = int(S[ST.direct_stall_ns])
        raw["dirty_throttle_ns"] = int(S[ST.seq_throttle_ns])
        Z = a.Z.copy()
        PR = a.PR.copy()
        SM = a.SM.copy()
        TR = a.TR.copy()
        if u != 1:
            for name, corr in ZF_PER_ALLOC.items():
                c, cc = getattr(ZF, name), getattr(ZF, corr)
                Z[:, c] = u * Z[:, c] + (u - 1) * Z[:, cc]
            for name in ZF_PAGES:
                c = getattr(ZF, name)
                keep = Z[:, c] >= _SENTINEL if name == "free_min_seen" else np.zeros(len(Z), bool)
                Z[:, c] = np.where(keep, Z[:, c], Z[:, c] * u)
            for name in PRF_PAGES:
                PR[:, getattr(PRF, name)] *= u
            for name in SMF_PAGES:
                c = getattr(SMF, name)
                w = 1 if name == "writeback" else NZ  # the per-zone fields span the zones
                SM[:, c:c + w] *= u
            for name in TRF_PAGES:
                TR[:, getattr(TRF, name)] *= u
        PR_counters = [counters_in_pages({n: int(PR[i, PRF.counters + j]) for j, n in enumerate(COUNTER_NAMES)}, u)
                       for i in range(len(PR))]
        got = {"counters": counters_in_pages(raw, u), "Z": Z, "S_gauges": {n: int(S[getattr(ST, n)]) * u
                                                                          for n in ST_PAGES},
               "PR": PR, "PR_counters": PR_counters, "SM": SM, "TR": TR}
        self._cache["in_pages"] = got
        return got

    @property
    def counters(self) -> dict:
        """Every global counter of ``_fairzone_layout.COUNTER_NAMES``, plus ``oom`` and the stall times, in
        pages and events as the kernel counts them (layout.COUNTER_UNITS says which is which)."""
        return dict(self.in_pages()["counters"])

    @property
    def vmstat(self) -> dict:
        """/proc/vmstat as the kernel would print it for this run (per-zone counters named per zone)."""
        Z = self.in_pages()["Z"]
        c = self.counters
        d = {}
        for z, zn in enumerate(ZONES):
            n = zn.lower()
            d[f"pgalloc_{n}"] = int(Z[z, ZF.pgalloc])
        d["pgalloc_movable"] = 0
        for z, zn in enumerate(ZONES):
            n = zn.lower()
            d[f"pgscan_kswapd_{n}"] = int(Z[z, ZF.pgscan_kswapd])
            d[f"pgsteal_kswapd_{n}"] = int(Z[z, ZF.pgsteal_kswapd])
            d[f"pgscan_direct_{n}"] = int(Z[z, ZF.pgscan_direct])
            d[f"pgsteal_direct_{n}"] = int(Z[z, ZF.pgsteal_direct])
        for k in ("pgactivate", "pgdeactivate", "pgrefill", "pageoutrun", "allocstall",
                  "kswapd_low_wmark_hit_quickly", "kswapd_high_wmark_hit_quickly", "nr_dirtied", "nr_written"):
            d[k] = c[k]
        d["nr_alloc_batch"] = int(Z[:, ZF.batch].sum())
        d["nr_dirty"] = self.in_pages()["S_gauges"]["nr_dirty"]
        d["nr_writeback"] = self.in_pages()["S_gauges"]["nr_writeback"]
        d["nr_free_pages"] = int(Z[:, ZF.free].sum())
        d["nr_inactive_file"] = int(Z[:, ZF.nr_inactive].sum())
        d["nr_active_file"] = int(Z[:, ZF.nr_active].sum())
        return d

    def spread(self) -> dict:
        """Allocations per zone and as percentages (the thread's "DMA32 allocs / Normal allocs")."""
        v = self.vmstat
        tot = v["pgalloc_dma"] + v["pgalloc_dma32"] + v["pgalloc_normal"] + v["pgalloc_movable"]
        out = {"DMA32 allocs": v["pgalloc_dma32"], "Normal allocs": v["pgalloc_normal"],
               "Movable allocs": v["pgalloc_movable"]}
        for k in list(out):
            out[k + " %"] = 100.0 * out[k] / tot if tot else float("nan")
        return out

    def velocity(self) -> dict:
        """mmtests' "Zone X velocity": pages scanned (kswapd + direct) per second of the run, by zone."""
        Z = self.in_pages()["Z"]
        t = self.elapsed_s
        return {f"Zone {zn.lower()} velocity": (float(Z[z, ZF.pgscan_kswapd] + Z[z, ZF.pgscan_direct]) / t
                                                if t > 0 else float("nan"))
                for z, zn in enumerate(ZONES)}

    def df_zones(self) -> pd.DataFrame:
        """One row per zone.

        Columns: ``zone, managed, min, low, high, balance_gap,
        lowmem_reserve_normal, nr_alloc_batch_reset, fair_enabled, free, nr_inactive_file,
        nr_active_file, nr_dirty, nr_writeback, pgalloc, pgscan, pgsteal, velocity,
        pgactivate, batch_resets, evicted, age_at_eviction_s, free_min_slack, fastpath_below_min``
        (pages; the watermarks and sizes as the model resolved them: ``setup``).
        """
        Z = self.in_pages()["Z"]
        zs = self.setup
        t = self.elapsed_s
        rows = []
        for z, zn in enumerate(ZONES):
            scan = int(Z[z, ZF.pgscan_kswapd] + Z[z, ZF.pgscan_direct])
            ev = int(Z[z, ZF.evict_n])
            rows.append({
                "zone": zn, "managed": int(zs.managed[z]), "min": int(zs.wmark_min[z]), "low": int(zs.wmark_low[z]),
                "high": int(zs.wmark_high[z]), "balance_gap": int(zs.balance_gap[z]),
                "lowmem_reserve_normal": int(zs.lowmem_reserve[z, ZONE.Normal]),
                "nr_alloc_batch_reset": int(Z[z, ZF.batch_reset]), "fair_enabled": int(Z[z, ZF.fair_enabled]),
                "free": int(Z[z, ZF.free]), "nr_inactive_file": int(Z[z, ZF.nr_inactive]),
                "nr_active_file": int(Z[z, ZF.nr_active]), "nr_dirty": int(Z[z, ZF.nr_dirty]),
                "nr_writeback": int(Z[z, ZF.nr_writeback]), "pgalloc": int(Z[z, ZF.pgalloc]), "pgscan": scan,
                "pgsteal": int(Z[z, ZF.pgsteal_kswapd] + Z[z, ZF.pgsteal_direct]),
                "velocity": scan / t if t > 0 else float("nan"), "pgactivate": int(Z[z, ZF.pgactivate]),
                "batch_resets": int(Z[z, ZF.nr_resets]), "evicted": ev,
                "age_at_eviction_s": (float(Z[z, ZF.evict_age_us]) / ev / 1e6) if ev else float("nan"),
                "free_min_slack": int(Z[z, ZF.free_min_seen]) if Z[z, ZF.free_min_seen] < (1 << 61) else None,
                "fastpath_below_min": int(Z[z, ZF.fast_below_min]),
            })
        return pd.DataFrame(rows)

    def df_work(self) -> pd.DataFrame:
        """The allocator's work: ``counter, total, per_allocation`` (the fast-path cost patch 3/4 removes)."""
        c = self.counters
        n = max(c["pgalloc"], 1)
        names = ["get_page_from_freelist", "zonelist_scanned", "watermark_checks", "batch_reads",
                 "depleted_flag_reads", "batch_updates", "batch_resets", "batch_reset_zones", "fair_pass_fails",
                 "zonelist_rescans", "dirty_checks", "dirty_limit_calcs", "dirty_fails", "slowpath",
                 "kswapd_wakeups", "allocstall", "zone_switches"]
        return pd.DataFrame([{"counter": k, "total": c[k], "per_allocation": c[k] / n} for k in names])

    def allocator_cost_ns(self, costs: AllocatorCosts | None = None, exclude: tuple = ()) -> float:
        """CPU per allocated page (ns) that the counted work costs under ``costs``."""
        return allocator_cost_ns(self.counters, costs or AllocatorCosts(), exclude=exclude)

    def df_phases(self) -> pd.DataFrame:
        """One row per workload phase.

        Columns: ``run, threads, phase, t0_s, t1_s, seconds, pages, MB_s, hits, misses,
        hit_pct, allocs, allocs_dma32, allocs_normal, pgscan``.  ``MB_s`` is the pages the
        phase touched over its duration (tiobench's figure for the sequential phases).
        """
        PR = self.in_pages()["PR"]
        rows = []
        for i, ph in enumerate(self.workload.phases):
            if ph.op == OP.delete:
                continue
            t0, t1 = PR[i, PRF.t0] / 1e9, PR[i, PRF.t1] / 1e9
            h, m = int(PR[i, PRF.hits]), int(PR[i, PRF.misses])
            pages = h + m
            rows.append({"run": ph.run, "threads": ph.threads, "phase": PHASE_NAMES.get(ph.kind, "other"),
                         "t0_s": t0, "t1_s": t1, "seconds": t1 - t0, "pages": pages,
                         "MB_s": (pages / PAGES_PER_MB) / (t1 - t0) if t1 > t0 else float("nan"),
                         "hits": h, "misses": m, "hit_pct": 100.0 * h / pages if pages else float("nan"),
                         "allocs": int(PR[i, PRF.allocs]), "allocs_dma32": int(PR[i, PRF.alloc_dma32]),
                         "allocs_normal": int(PR[i, PRF.alloc_normal]), "pgscan": int(PR[i, PRF.scan])})
        return pd.DataFrame(rows)

    def phase_hits(self, phase: str = "SeqRead", threads: int | None = None) -> tuple[int, int]:
        """Page-cache ``(hits, misses)`` summed over the phases named ``phase``, optionally of one thread count:
        the ``hits`` and ``misses`` columns of :meth:`df_phases` summed, without building the frame (the 2014
        reproduction asks this once per kernel, reader count and table)."""
        PR = self.in_pages()["PR"]
        h = m = 0
        for i, ph in enumerate(self.workload.phases):
            if ph.op == OP.delete or PHASE_NAMES.get(ph.kind, "other") != phase:
                continue
            if threads is None or ph.threads == threads:
                h += int(PR[i, PRF.hits])
                m += int(PR[i, PRF.misses])
        return h, m

    def phase_counters(self, phase: str = "SeqRead", threads: int | None = None) -> dict:
        """The counters of :data:`_fairzone_layout.COUNTER_NAMES`, summed over the phases named ``phase``
        (``SeqWrite``, ``RandWrite``, ``SeqRead``, ``RandRead``), optionally of one thread count."""
        per = self.in_pages()["PR_counters"]
        tot = dict.fromkeys(per[0], 0) if per else {}
        for i, ph in enumerate(self.workload.phases):
            if PHASE_NAMES.get(ph.kind) == phase and (threads is None or ph.threads == threads):
                for name, v in per[i].items():
                    tot[name] += v
        return tot

    def df_trace(self) -> pd.DataFrame:
        """The recorded allocations.

        Columns: ``t_ms, zone, nr_alloc_batch_dma32, nr_alloc_batch_normal, free_dma32, free_normal,
        reset, path, depleted_dma32, depleted_normal``; ``path`` is ``fast``, ``retry`` (a rescan after
        a failed fair pass), ``slow`` (the slow path) or ``direct`` (after direct reclaim).  One row per
        allocation the kernel made: at ``pages_per_unit`` U > 1, one per unit of U pages (batches and free
        counts in pages).
        """
        n = int(self.arrays.S[ST.trace_n])
        T = self.in_pages()["TR"][:n]
        paths = np.array(["fast", "retry", "slow", "direct"])
        return pd.DataFrame({
            "t_ms": T[:, TRF.ns] / 1e6, "zone": np.array(ZONES)[T[:, TRF.zone]],
            "nr_alloc_batch_dma32": T[:, TRF.batch_dma32], "nr_alloc_batch_normal": T[:, TRF.batch_normal],
            "free_dma32": T[:, TRF.free_dma32], "free_normal": T[:, TRF.free_normal],
            "reset": T[:, TRF.reset].astype(bool), "path": paths[T[:, TRF.path]],
            "depleted_dma32": (T[:, TRF.depleted] & 1).astype(bool),
            "depleted_normal": (T[:, TRF.depleted] & 2).astype(bool),
        })

    def df_samples(self) -> pd.DataFrame:
        """Zone samples in long form: ``t_s, zone, free, nr_alloc_batch, nr_inactive_file, nr_active_file,
        nr_dirty, pgalloc, pgscan, other, managed`` (one row per sample and zone)."""
        n = int(self.arrays.S[ST.sample_n])
        SM = self.in_pages()["SM"][:n]
        Z = self.in_pages()["Z"]
        frames = []
        for z, zn in enumerate(ZONES):
            frames.append(pd.DataFrame({
                "t_s": SM[:, SMF.ns] / 1e9, "zone": zn, "free": SM[:, SMF.free + z],
                "nr_alloc_batch": SM[:, SMF.batch + z], "nr_inactive_file": SM[:, SMF.inactive + z],
                "nr_active_file": SM[:, SMF.active + z], "nr_dirty": SM[:, SMF.dirty + z],
                "pgalloc": SM[:, SMF.pgalloc + z], "pgscan": SM[:, SMF.pgscan + z],
                "other": float(Z[z, ZF.nr_other]), "managed": float(Z[z, ZF.managed])}))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def summary(self) -> dict:
        """The run's scalar outputs for a sweep: /proc/vmstat counters, spread, velocity, elapsed time."""
        out = {k: float(v) for k, v in self.vmstat.items()}
        out.update({k: float(v) for k, v in self.spread().items()})
        out.update({k: float(v) for k, v in self.velocity().items()})
        out["elapsed_s"] = self.elapsed_s
        out["allocator_cost_ns"] = self.allocator_cost_ns()
        return out

    def caption(self) -> str:
        p = self.params
        zs = self.setup
        mb = [m / PAGES_PER_MB for m in zs.managed]
        batch = ("high-low" if p.NR_ALLOC_BATCH == "high-low" else
                 f"managed>>{p.nr_alloc_batch_shift}" if p.NR_ALLOC_BATCH == "managed>>shift"
                 else f"{p.nr_alloc_batch_pages} pages")
        return (f"{p.name}: ALLOC_FAIR={int(p.ALLOC_FAIR)}, ZONE_FAIR_DEPLETED={int(p.ZONE_FAIR_DEPLETED)}, "
                f"NR_ALLOC_BATCH={batch}, zone_dirty_ok={p.zone_dirty_ok}, kswapd wakes below {p.kswapd_wake_at}; "
                f"{p.machine.name}: DMA {mb[0]:.0f} MB, DMA32 {mb[1]:.0f} MB, Normal {mb[2]:.0f} MB, "
                f"min_free_kbytes={zs.min_free_kbytes}; {self.workload.description}; seed {self.seed}\n"
                f"knobs: {p.echo()}")


def check_conservation(result: FairZoneResult) -> pd.DataFrame:
    """free + file LRU + other = managed, for every sample and zone (``ok`` column)."""
    s = result.df_samples()
    s["ok"] = (s["free"] + s["nr_inactive_file"] + s["nr_active_file"] + s["other"]) == s["managed"]
    return s
