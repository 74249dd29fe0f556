"""The allocator half of "[PATCH 0/4] Improve sequential read throughput" (2014) on the fair-zone model.

What is fitted, and to what (the vanilla 3.16-rc1 column only)
--------------------------------------------------------------
* **Mel Gorman's desktop, the allocation spread** (``fairzone-spread``,
  tiobench at 80% of memory): two machine unknowns -- the size of ZONE_DMA32
  and the memory the kernel and user space hold (``other_mb``) -- are fitted
  so that the model's vanilla run allocates the published vanilla DMA32 and
  Normal counts.  DMA32's size sets the split (under the fair policy
  allocations follow zone size), ``other_mb`` the total (how much of the
  re-read misses the page cache), on the mean total of the eight seed bases'
  vanilla runs (one run's jumps with its draw of the memory outside the page
  cache).  tiobench ran each thread count
  :data:`ITERATIONS` times (an assumption: the smallest count consistent
  with Min and Mean rows and with the vanilla total).
* **Johannes Weiner's machine, zone velocity** (``bigbatches-velocity``,
  standard tiobench at 2 x RAM): its DMA32 size fitted on the vanilla
  DMA32 share of the scanning, and one time scale on the vanilla total
  scanning rate (the model's clock does not include everything mmtests'
  elapsed time does).
* **The disks**: each machine's media rate fitted on its own vanilla
  ``SeqRead-MB/sec-1`` (the disk/CFQ model, as the CFQ part does).

Predicted: the fairzone and 3.0 columns of the spread tables (counts and
percentages), the 3.16-rc1 and bigbatches columns of the velocity table
(against its 3.0 baseline), and every SeqRead cell of the thread's SeqRead
tables for the kernels that change the allocator (fairzone, lessdirty /
patch-series, 3.0, bigbatches, bigbatches1node, and on Mel's other
machines their v2r38 builds).

How a SeqRead figure is composed
--------------------------------
``MB/s = pages / (misses x 4 KiB / D + hits x hit time)`` where ``D`` is the
disk/CFQ model's SeqRead rate for that kernel's CFQ (``target_latency``
300 or 600 ms, 3.0 or 3.16) with the allocator's CPU per page
(:class:`AllocatorCosts` x the counted work) passed through
``seqread_throughput(..., cpu_cost_per_page=...)``, and the hits are the
allocator model's page-cache hits in the SeqRead phase after SeqWrite
(:func:`decompose` shows how much each part carries).

kswapd and the zones' aging: outcomes, no switch
------------------------------------------------
kswapd sleeps and wakes as ``kswapd_try_to_sleep()`` and ``balance_pgdat()``
decide (mm/vmscan.c 3.0 and 3.16, per kernel: docs/models/fairzone.md):
woken from the slow path, it reclaims at its a-priori scan rate
(``kswapd_pages_per_ms``, not fitted) and, when balance_pgdat() returns,
naps HZ/10 if every zone is above high, else goes on at once.  With the
test machines' kernels built with THP (:data:`THP`; khugepaged's
``set_recommended_min_free_kbytes()`` makes min_free_kbytes 67584 KiB on a
three-zone node), the preferred zone's watermark band outlasts a nap at
tiobench's allocation rate: in a zone-order kernel (3.0, and the big
batches of fairzone, lessdirty and bigbatches) kswapd keeps Normal above low,
DMA32 is seldom allocated from or scanned, and pages written into it are
still there when SeqRead comes back to them.  The fair policy's small
batches (3.16-rc1) age both zones by size.  None of this is a switch: the
same kswapd code does both, and with min_free_kbytes from ``int_sqrt()``
alone it ages every kernel's zones by size (:func:`df_thp_sensitivity`;
the THP configuration was looked for after the model had missed the
predicted columns, so the notebook prints the score without it too).
"""

from __future__ import annotations

import inspect
import os
import sys
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from ... import config
from ...errors import WorkbookParameterError
from ...progress import progress
from ...models.cfq import DESKTOP_2014, LAPTOP_2014, IOParams, cfq_for_kernel
from ...frames import Prose
from ...models.fairzone import AllocatorCosts, simulate, variant_params
from ...models.fairzone import VARIANT_DOC, VARIANTS
from ...models.fairzone import PAGES_PER_MB, MACHINES, Machine
from ...tables import baseline_of, compare, published
from ..cfq import tiobench as block_tiobench
from .pagecache import READERS, tiobench
from ...reproduce import Reproduction, _sign, summarise
from ...reproduce._side_by_side import cell_value, samples_frame
from ...reproduce.calibration import CALIBRATION_BASE, calibration, mean_over_bases
from ...reproduce.cells import Cells, build
from ..cfq.seqread_2014 import (FLAT_WORDS, calibrate_cfq, calibrate_media_rate, cfq_part, is_flat_row,
                                seqread_throughput, shift_seed)

THREAD = "2014-seqread-fairzone-cfq"
ITERATIONS = 3  # tiobench runs per thread count in Mel's spread run (assumption, see module doc)
SPREAD_FRACTION = 0.8  # "tiobench at 80% of memory"
SEQREAD_FRACTION = 2.0  # "tiobench with data size 2*RAM" / mmtests' standard configuration
# us per page of the rest of the read path: the CFQ model's own tiobench default, so that both halves of the
# thread run the reader at one cost
BASE_CPU_US = inspect.signature(block_tiobench.seqread).parameters["cpu_per_page_us"].default
HIT_US = 1.0  # us per page read from the page cache (a 4 KiB copy to user space)
RANDOM_READ_MS = 3.0  # ms per random read that misses (the desktop disk, all threads)
THP_ENV = "KWB_2014_THP"
"""The environment variable that sets :data:`THP` for a whole run (``always``, ``madvise`` or ``never``): read once,
at import, so that every worker process of ``kwb reproduce`` runs the same configuration."""


def _thp_from_env() -> str:
    from ...models.fairzone.params import THP_CHOICES

    v = os.environ.get(THP_ENV, "always")
    if v not in THP_CHOICES:
        raise WorkbookParameterError(THP_ENV, v, "one of " + ", ".join(THP_CHOICES))
    return v


THP = _thp_from_env()
"""How the test machines' kernels were built: ``always`` (the default; ``madvise`` boots the same: khugepaged runs
and set_recommended_min_free_kbytes() raises min_free_kbytes) or ``never``.  The thread does not state it, and it
was identified as the mechanism *after* the predicted columns had been seen: :data:`THP_ASSUMPTION` says so, with
the evidence, and the reproduction prints the score both ways (:func:`df_thp_scores`)."""
MIN_FREE_ENV = "KWB_2014_MIN_FREE_KBYTES"
"""The environment variable that raises every test machine's ``min_free_kbytes`` to at least this many KiB for a
whole run (what a ``vm.min_free_kbytes`` sysctl or khugepaged's recommendation does at boot): the sweep of
:func:`min_free_sweep` over the quantity the 2014 result rests on.  Unset, the kernels' own value is used."""


def _number_from_env(name: str, kind, ok, expected: str):
    """The number in environment variable ``name`` read as ``kind``, or None when it is unset or blank; a value
    that does not read or fails ``ok`` names the variable."""
    v = os.environ.get(name, "").strip()
    if not v:
        return None
    try:
        x = kind(v)
    except ValueError:
        x = None
    if x is None or not ok(x):
        raise WorkbookParameterError(name, v, expected)
    return x


def _min_free_from_env() -> int | None:
    return _number_from_env(MIN_FREE_ENV, int, lambda n: n >= 0, "a whole number of KiB >= 0")


MIN_FREE_FLOOR = _min_free_from_env()
"""``min_free_kbytes`` raised to at least this (KiB) on every machine of the run, or None (:data:`MIN_FREE_ENV`)."""
KSWAPD_ENV = "KWB_2014_KSWAPD_PAGES_PER_MS"
"""The environment variable that sets ``kswapd_pages_per_ms`` (kswapd's scan rate, an a-priori value of the model,
not a kernel constant) for a whole run: the sweep of :func:`kswapd_speed_sweep`.  Unset, the knob's default."""


def _kswapd_speed_from_env() -> float | None:
    return _number_from_env(KSWAPD_ENV, float, lambda x: 0 < x < float("inf"), "a number of pages per ms > 0")


KSWAPD_SPEED = _kswapd_speed_from_env()
"""kswapd's scan rate (pages/ms) on every machine of the run, or None for the knob's default (:data:`KSWAPD_ENV`)."""


def _with_min_free_floor(p, floor):
    """``p`` with min_free_kbytes raised to at least ``floor`` (None: as it is), the way the kernel raises it: only
    ever upwards (set_recommended_min_free_kbytes())."""
    from ...models.fairzone import zone_setup

    if floor is not None and zone_setup(p).min_free_kbytes < floor:
        return p.with_(min_free_kbytes=int(floor))
    return p


def _params(variant: str, machine, thp: str, **overrides):
    """:func:`variant_params` at the reproduction's resolution and THP setting, with :data:`MIN_FREE_FLOOR`
    applied the way the kernel raises min_free_kbytes: only ever upwards (set_recommended_min_free_kbytes())."""
    p = _with_min_free_floor(variant_params(variant, machine, transparent_hugepage=thp,
                                            pages_per_unit=PAGES_PER_UNIT, **overrides), MIN_FREE_FLOOR)
    if KSWAPD_SPEED is not None:
        p = p.with_(machine=p.machine.with_(kswapd_pages_per_ms=KSWAPD_SPEED))
    return p


OTHER_JITTER_MB = 64.0  # sd of the memory outside the page cache from run to run (slab, monitors): an assumption
# The allocator model's resolution (models.fairzone pages_per_unit): one simulated page-cache unit is 32 pages of
# one file, tiobench's own grain -- the 128 KiB read-ahead window a thread reads or writes per turn (the
# workload's chunk) and reclaim's SWAP_CLUSTER_MAX.  Fixed a priori, for cost (a 2 x RAM tiobench ~15x cheaper
# than page by page); how close it comes to the page model on every variant of this reproduction is measured
# model against model, never against the thread (docs/models/fairzone.md, "Resolution: pages per unit").
PAGES_PER_UNIT = 32

# kernel column -> (allocator variant, CFQ version, cfq_target_latency ms)
KERNELS = {
    "3.16.0-rc1 vanilla": ("3.16-rc1", "3.16", 300.0),
    "3.16.0-rc1 cfq600": ("3.16-rc1", "3.16", 600.0),
    "3.16.0-rc1 fairzone": ("fairzone", "3.16", 600.0),  # patches 1-3: cfq600 underneath
    "3.16.0-rc1 lessdirty": ("lessdirty", "3.16", 600.0),  # patches 1-4
    "3.16.0-rc1 patch-series": ("lessdirty", "3.16", 600.0),
    "3.0.0 vanilla": ("3.0", "3.0", 300.0),
    "3.16.0-rc1 cfq600-v2r38": ("3.16-rc1", "3.16", 600.0),
    "3.16.0-rc1 fairzone-v2r38": ("fairzone", "3.16", 600.0),
    "3 3.0": ("3.0", "3.0", 300.0),
    "3. 3.0": ("3.0", "3.0", 300.0),
    "3.16-rc1": ("3.16-rc1", "3.16", 300.0),
    "3.16-rc1 bigbatches": ("bigbatches", "3.16", 300.0),
    "3.16-rc1 bigbatches1node": ("bigbatches1node", "3.16", 300.0),
}
VANILLA = {"mel": "3.16.0-rc1 vanilla", "johannes": "3.16-rc1"}
# the SeqRead tables: (table, machine key, disk preset, RAM MB)
SEQREAD_TABLES = [
    ("fairzone-seqread", "mel", DESKTOP_2014, 8192),
    ("lessdirty-tiobench", "mel", DESKTOP_2014, 8192),
    ("series-seqread", "mel", DESKTOP_2014, 8192),
    ("laptop-tiobench", "laptop", LAPTOP_2014, 4096),
    ("desktop2-tiobench", "desktop2", DESKTOP_2014, 8192),
    ("bigbatches-seqread", "johannes", DESKTOP_2014, 8192),
    ("bigbatches1node-tiobench", "johannes", DESKTOP_2014, 8192),
]
SEQREAD_RUNS_KEPT = 16
"""How many 2 x RAM allocator runs a process keeps (the largest results it holds): one seed base's -- 14, each
machine's allocator variants (Mel's desktop 4, the laptop 3, desktop2 3, Johannes's 4) -- and two spare, so that a
process running several seed bases one after another holds one base's runs, not every base's."""


@dataclass(frozen=True)
class Sizes:
    spread_iterations: int  # iterations simulated for the spread (counts are scaled to ITERATIONS)
    bisect_steps: int  # steps of the other_mb fit
    cfq_seeds: tuple  # seeds of the disk/CFQ runs per cell
    cfq_mb: float  # MB per disk/CFQ run
    seqread_threads: tuple  # thread counts of the 2 x RAM allocator runs


def sizes(small: bool | None = None) -> Sizes:
    if small is None:
        small = config.mode().small
    if small:
        return Sizes(1, 10, (1, 2), 96.0, READERS)
    return Sizes(1, 12, (1, 2, 3), 160.0, READERS)


@lru_cache(maxsize=None)
def _pub(table: str) -> pd.DataFrame:
    """A published table of the thread (one frame per table, shared: never change it in place)."""
    return published(THREAD, table)


# --------------------------------------------------------------------------- machines (fitted on vanilla)

def _spread_workload(small: bool | None):
    return tiobench(ram_mb=8192, size_fraction=SPREAD_FRACTION, threads=READERS, iterations=sizes(small).spread_iterations,
                    read_mb_s=110.0, random_read_ms=RANDOM_READ_MS, other_jitter_mb=OTHER_JITTER_MB)


@lru_cache(maxsize=256)  # a few numbers a run: the fit's runs over every calibration base and a few bases' own
def _spread_run(variant: str, dma32_mb: float, other_mb: float, thp: str, small: bool | None,
                seed_base: int) -> dict:
    # the seed base is in the key: the calibration's runs (base 0) and a prediction's may share arguments
    p = _params(variant, "desktop-2014", thp, dma32_mb=float(dma32_mb), other_mb=float(other_mb))
    r = simulate(p, _spread_workload(small), seed=shift_seed(11, seed_base), verbose=False)
    k = ITERATIONS / sizes(small).spread_iterations
    sp = r.spread()
    return {"DMA32 allocs": sp["DMA32 allocs"] * k, "Normal allocs": sp["Normal allocs"] * k,
            "Movable allocs": sp["Movable allocs"] * k, "hit_pct": _seqread_hit_pct(r)}


def _seqread_hit_pct(r) -> float:
    h, m = r.phase_hits("SeqRead")
    return float(100.0 * h / max(h + m, 1))


@calibration
def calibrate_desktop(small: bool | None = None, thp: str = THP) -> dict:
    """Fit DMA32's size and ``other_mb`` of Mel's desktop on the vanilla spread counts, once (:mod:`.calibration`):
    ``other_mb`` on the mean total of the vanilla runs of the seed bases of
    :data:`~.calibration.CALIBRATION_BASES` (one run's total jumps with its draw of the other memory).

    Returns ``{"dma32_mb", "other_mb", "model": {row: count}, "published": {row: count}}``.
    """
    return _calibrate_desktop(small, thp)


def _calibrate_desktop(small: bool | None, thp: str) -> dict:
    pub = _pub("fairzone-spread")
    van = VANILLA["mel"]
    d_pub = cell_value(pub, "DMA32 allocs", van)
    n_pub = cell_value(pub, "Normal allocs", van)
    share = d_pub / (d_pub + n_pub)
    base = MACHINES["desktop-2014"]
    # under the fair policy allocations follow the zones' sizes: DMA32 = share of the managed memory
    usable = base.ram_mb - base.dma_mb - base.hole_mb
    dma32 = round(share * usable, 1)
    total = d_pub + n_pub

    def pooled(other) -> dict:
        # one run's total jumps with its draw of the memory outside the page cache (OTHER_JITTER_MB) once the
        # re-read starts to miss (seed base 0's run alone sat 7% above the mean of the eight bases' runs): fit
        # the mean over the seed bases' vanilla runs, the runs those bases predict against
        def counts(b):
            r = _spread_run("3.16-rc1", dma32, other, thp, small, b)
            return {k: r[k] for k in ("DMA32 allocs", "Normal allocs", "Movable allocs")}

        return mean_over_bases(counts)

    def tot(other):
        m = pooled(other)
        return m["DMA32 allocs"] + m["Normal allocs"]

    # the total rises steeply once the files and other_mb no longer fit (the re-read starts to miss):
    # bisect on that edge, then keep the closer end
    # bracket: the files fill the memory left after other_mb near usable - SPREAD_FRACTION x RAM
    edge = usable - SPREAD_FRACTION * base.ram_mb
    lo, hi = max(0.0, edge - 600.0), edge + 600.0
    for _ in range(sizes(small).bisect_steps):
        mid = round(0.5 * (lo + hi), 2)
        if tot(mid) < total:
            lo = mid
        else:
            hi = mid
    other = lo if abs(tot(lo) - total) <= abs(tot(hi) - total) else hi
    return {"dma32_mb": dma32, "other_mb": other, "model": pooled(other),
            "published": {"DMA32 allocs": d_pub, "Normal allocs": n_pub}}


def desktop_machine(small: bool | None = None, thp: str = THP) -> Machine:
    cal = calibrate_desktop(small, thp)
    return MACHINES["desktop-2014"].with_(dma32_mb=cal["dma32_mb"], other_mb=cal["other_mb"])


@lru_cache(maxsize=16)
def _io_params(machine_key: str, kernel: str, small: bool | None) -> IOParams:
    """The disk/CFQ model of a machine, media rate fitted on that machine's vanilla SeqRead-1."""
    variant, version, tl = KERNELS[kernel]
    sz = sizes(small)
    if machine_key == "mel":
        table, disk, ram, van = "fairzone-seqread", DESKTOP_2014, 8192, VANILLA["mel"]
    elif machine_key == "laptop":
        table, disk, ram, van = "laptop-tiobench", LAPTOP_2014, 4096, "3.16.0-rc1 vanilla"
    elif machine_key == "desktop2":
        table, disk, ram, van = "desktop2-tiobench", DESKTOP_2014, 8192, "3.16.0-rc1 vanilla"
    else:
        table, disk, ram, van = "bigbatches-seqread", DESKTOP_2014, 8192, VANILLA["johannes"]
    target = cell_value(_pub(table), "SeqRead-MB/sec-1", van, "Mean")
    rate, _ = calibrate_media_rate(disk, target, ram, sz.cfq_mb, len(sz.cfq_seeds))
    return IOParams(scheduler="cfq", cfq=cfq_for_kernel(version, cfq_target_latency=tl),
                    disk=disk.with_(media_rate_mb_s=rate))


def _alloc_machine(machine_key: str, small: bool | None, thp: str, dma32_mb: float | None = None) -> Machine:
    if machine_key in ("mel", "desktop2"):
        return desktop_machine(small, thp)
    if machine_key == "laptop":
        return MACHINES["laptop-2014"]
    if dma32_mb is not None:  # while calibrating Johannes's machine
        return MACHINES["johannes-2014"].with_(dma32_mb=float(dma32_mb))
    return johannes_machine(small, thp)


def _ram(machine_key: str) -> int:
    return 4096 if machine_key == "laptop" else 8192


@calibration
def _disk_rates(machine_key: str, small: bool | None) -> dict:
    """The vanilla disk/CFQ SeqRead rate per reader count: the allocator model's time per missed page.  A
    property of the machine, from runs of fixed seeds: computed once, with the calibrations."""
    p = _io_params(machine_key, VANILLA["johannes"] if machine_key == "johannes" else "3.16.0-rc1 vanilla", small)
    sz = sizes(small)
    return {n: seqread_throughput(p, n, cpu_cost_per_page=BASE_CPU_US, seeds=sz.cfq_seeds, ram_mb=_ram(machine_key),
                                  mb_total=sz.cfq_mb) for n in sz.seqread_threads}


def seqread_run(machine_key: str, variant: str, small: bool | None = None, thp: str = THP,
                dma32_mb: float | None = None, seed_base: int = 0):
    """tiobench at 2 x RAM on the allocator model: SeqWrite, RandWrite, SeqRead, RandRead for 1..16 threads
    (the run of seed base ``seed_base``)."""
    if machine_key == "johannes" and dma32_mb is None:  # the fitted machine, by value: one run, not two
        dma32_mb = calibrate_johannes(small, thp)["dma32_mb"]
    return _seqread_run(machine_key, variant, small, thp, dma32_mb, int(seed_base))


def seqread_workload(machine_key: str, ram_mb: int, small: bool | None = None):
    """The SeqRead tables' tiobench on the allocator model: 2 x RAM, the reader counts of ``sizes(small)``, the
    machine's fitted disk rates and the a-priori page-cache costs."""
    return tiobench(ram_mb=ram_mb, size_fraction=SEQREAD_FRACTION, threads=sizes(small).seqread_threads,
                    read_mb_s=_disk_rates(machine_key, small), random_read_ms=RANDOM_READ_MS, hit_us=HIT_US,
                    other_jitter_mb=OTHER_JITTER_MB)


@lru_cache(maxsize=SEQREAD_RUNS_KEPT)
def _seqread_run(machine_key: str, variant: str, small: bool | None, thp: str, dma32_mb: float | None,
                 seed_base: int):
    m = _alloc_machine(machine_key, small, thp, dma32_mb)
    p = _params(variant, m, thp)
    w = seqread_workload(machine_key, m.ram_mb, small)
    # Cached: keep the counters and frames, not the per-page arrays (32 whole results held ~4 GB).
    return simulate(p, w, seed=shift_seed(21, seed_base), verbose=False).lean()


@calibration
def calibrate_johannes(small: bool | None = None, thp: str = THP) -> dict:
    """DMA32's size on Johannes's machine from his vanilla velocity split, and the velocity time scale (on the
    runs of the calibration's seed base, once)."""
    return _calibrate_johannes(small, thp)


def _calibrate_johannes(small: bool | None, thp: str) -> dict:
    pub = _pub("bigbatches-velocity")
    van = VANILLA["johannes"]
    vn = cell_value(pub, "Zone normal velocity", van)
    vd = cell_value(pub, "Zone dma32 velocity", van)
    share = vd / (vn + vd)
    base = MACHINES["johannes-2014"]
    usable = base.ram_mb - base.dma_mb - base.hole_mb
    dma32 = round(share * usable, 1)
    r = seqread_run("johannes", "3.16-rc1", small, thp, dma32, CALIBRATION_BASE)
    v = r.velocity()
    model_total = v["Zone normal velocity"] + v["Zone dma32 velocity"]
    scale = (vn + vd) / model_total if model_total > 0 else float("nan")
    return {"dma32_mb": dma32, "time_scale": scale, "model_share": v["Zone dma32 velocity"] / model_total,
            "published_share": share}


def johannes_machine(small: bool | None = None, thp: str = THP) -> Machine:
    return MACHINES["johannes-2014"].with_(dma32_mb=calibrate_johannes(small, thp)["dma32_mb"])


# --------------------------------------------------------------------------- SeqRead composition

COSTS = AllocatorCosts(zone_switch_ns=2000.0)
"""The allocator's CPU prices used for predictions.  ``zone_switch_ns`` = 2 us per allocation from another
zone than the thread's previous one: Mel's cache effect, an assumption (a cold per-cpu free list refilled
from the other zone's buddy lists, its struct zone lines, cache-cold pages)."""


def _cpu_us(r, n: int, costs: AllocatorCosts, switch: bool = True) -> float:
    c = r.phase_counters("SeqRead", n)
    excl = () if switch else ("zone_switch_ns",)
    from ...models.fairzone import allocator_cost_ns

    return BASE_CPU_US + allocator_cost_ns(c, costs, exclude=excl) / 1000.0


def _hits(r, n: int) -> tuple[int, int]:
    return r.phase_hits("SeqRead", n)


def _compose(d_mb_s: float, hits: int, misses: int) -> float:
    pages = hits + misses
    t = misses / (d_mb_s * PAGES_PER_MB) + hits * HIT_US * 1e-6
    return pages / PAGES_PER_MB / t if t > 0 else float("nan")


@lru_cache(maxsize=512)  # one number a run: 190 a seed base at CI size, so a few bases
def _disk(machine_key: str, kernel: str, n: int, cpu_us: float, seed: int, small: bool | None,
          seed_base: int) -> float:
    p = _io_params(machine_key, kernel, small)
    return seqread_throughput(p, n, cpu_cost_per_page=round(cpu_us, 4), seeds=(shift_seed(seed, seed_base),),
                              ram_mb=_ram(machine_key), mb_total=sizes(small).cfq_mb)


def seqread_samples(machine_key: str, kernel: str, n: int, small: bool | None = None, thp: str = THP,
                    costs: AllocatorCosts = COSTS, seed_base: int = 0) -> list[float]:
    """The composed SeqRead MB/s of ``kernel`` with ``n`` readers, one value per disk seed (of seed base
    ``seed_base``)."""
    variant = KERNELS[kernel][0]
    r = seqread_run(machine_key, variant, small, thp, seed_base=seed_base)
    cpu = _cpu_us(r, n, costs)
    h, m = _hits(r, n)
    return [_compose(_disk(machine_key, kernel, n, cpu, s, small, int(seed_base)), h, m)
            for s in sizes(small).cfq_seeds]


def decompose(machine_key: str, kernel: str, n: int, small: bool | None = None, thp: str = THP,
              costs: AllocatorCosts = COSTS, seed_base: int = 0) -> dict:
    """How much of the model's SeqRead change against vanilla each assumption carries (percent, one at a time).

    Keys: ``cfq`` (the kernel's CFQ: target_latency 600, or 3.0's CFQ), ``fast_path`` (the allocator's counted
    work at the a-priori prices), ``zone_switch`` (Mel's cache effect, the assumed price per switch),
    ``pagecache_hits`` (the reclaim order's effect on what SeqRead finds cached), ``total`` (all at once),
    and the inputs ``cpu_us_vanilla``, ``cpu_us``, ``hit_pct_vanilla``, ``hit_pct`` (runs of ``seed_base``).
    """
    van = VANILLA["johannes"] if machine_key == "johannes" else "3.16.0-rc1 vanilla"
    rv = seqread_run(machine_key, KERNELS[van][0], small, thp, seed_base=seed_base)
    rk = seqread_run(machine_key, KERNELS[kernel][0], small, thp, seed_base=seed_base)
    fast_v, fast_k = _cpu_us(rv, n, costs, False), _cpu_us(rk, n, costs, False)
    all_v, all_k = _cpu_us(rv, n, costs), _cpu_us(rk, n, costs)
    sw_v, sw_k = all_v - fast_v, all_k - fast_k
    hv, mv = _hits(rv, n)
    hk, mk = _hits(rk, n)
    seeds = sizes(small).cfq_seeds

    def t(kern, cpu, h, m):
        return float(np.mean([_compose(_disk(machine_key, kern, n, cpu, s, small, int(seed_base)), h, m)
                              for s in seeds]))

    base = t(van, all_v, hv, mv)
    return {
        "cfq": 100 * (t(kernel, all_v, hv, mv) / base - 1),
        "fast_path": 100 * (t(van, fast_k + sw_v, hv, mv) / base - 1),
        "zone_switch": 100 * (t(van, fast_v + sw_k, hv, mv) / base - 1),
        "pagecache_hits": 100 * (t(van, all_v, hk, mk) / base - 1),
        "total": 100 * (t(kernel, all_k, hk, mk) / base - 1),
        "cpu_us_vanilla": all_v, "cpu_us": all_k,
        "hit_pct_vanilla": 100 * hv / max(hv + mv, 1), "hit_pct": 100 * hk / max(hk + mk, 1),
    }


# --------------------------------------------------------------------------- the cells

def _printed(tables: dict, table: str, kernel: str, row: str, stat: str) -> float | None:
    """The model's number of a cell: ``stat`` of ``row`` for ``kernel`` in the model's table printed beside
    ``table`` (``tables``: by published table, the model tables :func:`spread_cells`, :func:`velocity_cells` and
    :func:`seqread_cells` print)."""
    return cell_value(tables[table], row, kernel, stat)


def _on_vanillas_allocator(c) -> bool:
    """A column whose allocator is vanilla 3.16-rc1's (cfq600 and its v2): the allocator model runs it as vanilla."""
    return KERNELS[c.kernel][0] == "3.16-rc1"


def _vanilla(mkey: str) -> str:
    return VANILLA["johannes"] if mkey == "johannes" else "3.16.0-rc1 vanilla"


OTHER_ROW_WHY = "the allocator half composes SeqRead only; the thread prints this operation without a word on it"

# The allocation spread on Mel's desktop, against vanilla: DMA32's size and other_mb fitted on vanilla's counts;
# fairzone and 3.0 predicted; cfq600 runs vanilla's allocator, so its run is vanilla's -- shown, not predicted.
SPREAD_CELLS = tuple(
    Cells(table, model=lambda t, k, row, stat, table=table: _printed(t, table, k, row, stat),
          fitted=lambda c: c.kernel == VANILLA["mel"] and c.row in ("DMA32 allocs", "Normal allocs"),
          predicted=lambda c: not _on_vanillas_allocator(c))
    for table in ("fairzone-spread", "spread-percent"))
# Zone velocity on Johannes's machine, against its 3.0 baseline: the vanilla column's level and split were fitted
# (his DMA32 size and the time scale), so its two cells are calibrated whatever their change against 3.0;
# bigbatches' are predictions.
VELOCITY_CELLS = (
    Cells("bigbatches-velocity", model=lambda t, k, row, stat: _printed(t, "bigbatches-velocity", k, row, stat),
          fitted=lambda c: c.kernel == VANILLA["johannes"]),
)
# Every SeqRead table: its SeqRead rows for the kernels that change the allocator, each machine's disk fitted on
# its vanilla Mean SeqRead-1; cfq600 on vanilla's allocator against a vanilla baseline is the CFQ half's cell.
SEQREAD_ROW_CELLS = tuple(
    Cells(table, model=lambda t, k, row, stat, table=table: _printed(t, table, k, row, stat),
          select=lambda c, van=_vanilla(mkey): c.row.startswith("SeqRead-MB/sec-") and not (
              _on_vanillas_allocator(c) and c.kernel != van and baseline_of(THREAD, c.table) == van),
          fitted=lambda c, van=_vanilla(mkey): c.kernel == van and c.row == "SeqRead-MB/sec-1" and c.stat == "Mean")
    for table, mkey, _disk_preset, _ram_mb in SEQREAD_TABLES)
# The rows of a SeqRead table other than SeqRead (RandRead, SeqWrite, RandWrite), listed so that every published
# cell has its reason: on Mel's desktop (lessdirty-tiobench) he calls them flat (FLAT_WORDS; the CFQ half prints and
# models cfq600's RandRead there), elsewhere the allocator half does not predict them.
OTHER_ROW_CELLS = tuple(
    Cells(table, model=lambda t, k, row, stat: None,
          select=lambda c: is_flat_row(c.row) and c.kernel != baseline_of(THREAD, c.table) and not (
              c.table == "lessdirty-tiobench" and _on_vanillas_allocator(c) and c.row.startswith("RandRead")),
          notes=lambda c: {"flat": FLAT_WORDS} if c.table == "lessdirty-tiobench" else {"why": OTHER_ROW_WHY})
    for table, _mkey, _disk_preset, _ram_mb in SEQREAD_TABLES)
CELLS = SPREAD_CELLS + VELOCITY_CELLS + tuple(line for pair in zip(SEQREAD_ROW_CELLS, OTHER_ROW_CELLS)
                                              for line in pair)
"""The allocator half's cells, in the order the reproduction lists them (the CFQ half's: ``seqread_2014.CELLS``)."""


# --------------------------------------------------------------------------- the tables

def spread_cells(small: bool | None = None, thp: str = THP, seed_base: int = 0) -> tuple[list, dict]:
    """fairzone-spread and spread-percent: cells, and the published and model tables in the thread's layout
    (``{"fairzone-spread": (published, model), "spread-percent": (published, model)}``), runs of ``seed_base``."""
    cal = calibrate_desktop(small, thp)
    pub = _pub("fairzone-spread")
    pubp = _pub("spread-percent")
    counts = {}
    for k in pub["kernel"].unique():
        counts[k] = _spread_run(KERNELS[k][0], cal["dma32_mb"], cal["other_mb"], thp, small, int(seed_base))
    mt = pub.copy()
    mt["value"] = [float(counts[r.kernel][r.row]) for r in pub.itertuples()]
    mt["text"] = [f"{v:.0f}" for v in mt["value"]]
    mp = pubp.copy()
    pct = {}
    for k, c in counts.items():
        tot = c["DMA32 allocs"] + c["Normal allocs"] + c["Movable allocs"]
        pct[k] = {row: 100.0 * c[row] / tot for row in ("DMA32 allocs", "Normal allocs", "Movable allocs")}
    mp["value"] = [pct[r.kernel][r.row] for r in pubp.itertuples()]
    mp["text"] = [f"{v:.1f}%" for v in mp["value"]]
    cells = build(THREAD, SPREAD_CELLS, {"fairzone-spread": mt, "spread-percent": mp})
    return cells, {"fairzone-spread": (pub, mt), "spread-percent": (pubp, mp)}


def velocity_cells(small: bool | None = None, thp: str = THP, seed_base: int = 0
                   ) -> tuple[list, pd.DataFrame, dict]:
    """bigbatches-velocity: cells (against the table's 3.0 baseline) and the model table, runs of ``seed_base``."""
    cal = calibrate_johannes(small, thp)
    pub = _pub("bigbatches-velocity")
    vals = {}
    for k in pub["kernel"].unique():
        r = seqread_run("johannes", KERNELS[k][0], small, thp, seed_base=seed_base)
        v = r.velocity()
        vals[k] = {row: v[row] * cal["time_scale"] for row in ("Zone normal velocity", "Zone dma32 velocity")}
    mt = pub.copy()
    mt["value"] = [vals[r.kernel][r.row] for r in pub.itertuples()]
    mt["text"] = [f"{v:.3f}" for v in mt["value"]]
    return build(THREAD, VELOCITY_CELLS, {"bigbatches-velocity": mt}), mt, cal


def seqread_cells(small: bool | None = None, thp: str = THP, step=None, seed_base: int = 0) -> tuple[list, list]:
    """Every SeqRead cell of the thread's SeqRead tables for the kernels that change the allocator, and per table
    ``(table, baseline, published SeqRead rows, model table, its cells)``; runs of ``seed_base``."""
    cells, tables = [], []
    for (table, mkey, _disk_preset, _ram_mb), rows, others in zip(SEQREAD_TABLES, SEQREAD_ROW_CELLS,
                                                                  OTHER_ROW_CELLS):
        pub = _pub(table)
        base_k = baseline_of(THREAD, table)
        sub = pub[pub["row"].str.startswith("SeqRead-MB/sec-")]
        kernels = list(dict.fromkeys(sub["kernel"]))
        stats = tuple(dict.fromkeys(sub["stat"]))
        samples = {k: {} for k in kernels}
        for k in kernels:
            for row in dict.fromkeys(sub["row"]):
                n = int(row.rsplit("-", 1)[1])
                samples[k][row] = seqread_samples(mkey, k, n, small, thp, seed_base=seed_base)
        mt = compare(samples_frame(samples), baseline=base_k, stats=stats, era="2014", significance=None,
                     kernels=kernels, table=f"model-{table}", title="model")
        tc = build(THREAD, [rows], {table: mt})
        cells += tc + build(THREAD, [others], None)
        tables.append((table, base_k, sub, mt, tc))
        if step is not None:
            step()
    return cells, tables


def explained_share(cells: list[dict]) -> dict:
    """Of the published SeqRead change of the allocator kernels against 3.16-rc1 vanilla, how much the model has.

    Sums over the predicted SeqRead cells of the tables whose baseline is vanilla (fairzone, lessdirty,
    patch-series): ``{"published_pts", "model_pts", "share"}``.
    """
    pub_sum = 0.0
    mod_sum = 0.0
    for c in cells:
        if not c["row"].startswith("SeqRead") or c["calibrated"] or c["model_delta_pct"] is None:
            continue
        if baseline_of(THREAD, c["table"]) != "3.16.0-rc1 vanilla" or c["kernel"].startswith("3.0"):
            continue
        pub_sum += c["published_delta_pct"]
        mod_sum += c["model_delta_pct"]
    return {"published_pts": pub_sum, "model_pts": mod_sum, "share": mod_sum / pub_sum if pub_sum else float("nan")}


def _misses(cells: list[dict], limit: float = 3.0) -> list[str]:
    out = []
    for c in cells:
        pd_, md_ = c["published_delta_pct"], c["model_delta_pct"]
        if c["calibrated"] or pd_ is None or md_ is None:
            continue
        sign = _sign(pd_) == _sign(md_)
        if not sign or abs(md_ - pd_) > limit:
            out.append(f"{c['table']} {c.get('stat', '')} {c['row']} {c['kernel']}: published {pd_:+.2f}%, model "
                       f"{md_:+.2f}%{'' if sign else ' (sign differs)'}")
    return out


def df_group_fidelity(sc: list, vc: list, qc: list) -> pd.DataFrame:
    """The lenient fidelity of each group of cells.  Columns: ``group, predicted_cells, direction_agreement,
    median_abs_error_pts``."""
    rows = []
    for name, cells in (("allocation spread (fairzone-spread, spread-percent)", sc),
                        ("zone velocity (bigbatches-velocity)", vc),
                        ("spread + velocity together", sc + vc), ("SeqRead direction, every SeqRead table", qc)):
        rows.append({"group": name, **summarise(cells)})
    return pd.DataFrame(rows, columns=["group", "predicted_cells", "direction_agreement", "median_abs_error_pts"])


def _fitted(cal: dict, calj: dict, small: bool | None) -> list[dict]:
    """Every parameter fitted by this part, with the published cells it was fitted to (``table|stat|row|kernel``)."""
    van = VANILLA["mel"]
    out = [
        {"parameter": "desktop-2014 dma32_mb", "value": round(cal["dma32_mb"], 3), "unit": "MB",
         "fitted_to": [f"fairzone-spread||DMA32 allocs|{van}", f"fairzone-spread||Normal allocs|{van}",
                       f"spread-percent||DMA32 allocs|{van}", f"spread-percent||Normal allocs|{van}"]},
        {"parameter": "desktop-2014 other_mb", "value": round(cal["other_mb"], 3), "unit": "MB",
         "fitted_to": [f"fairzone-spread||DMA32 allocs|{van}", f"fairzone-spread||Normal allocs|{van}"]},
        {"parameter": "johannes-2014 dma32_mb", "value": round(calj["dma32_mb"], 3), "unit": "MB",
         "fitted_to": [f"bigbatches-velocity||Zone dma32 velocity|{VANILLA['johannes']}",
                       f"bigbatches-velocity||Zone normal velocity|{VANILLA['johannes']}"]},
        {"parameter": "johannes-2014 velocity time scale", "value": round(calj["time_scale"], 6), "unit": "",
         "fitted_to": [f"bigbatches-velocity||Zone dma32 velocity|{VANILLA['johannes']}",
                       f"bigbatches-velocity||Zone normal velocity|{VANILLA['johannes']}"]},
    ]
    for table, mkey, _disk, _ram_mb in SEQREAD_TABLES:
        van_k = VANILLA["johannes"] if mkey == "johannes" else "3.16.0-rc1 vanilla"
        out.append({"parameter": f"{mkey} disk media_rate_mb_s", "value": None, "unit": "MB/s",
                    "fitted_to": [f"{table}|Mean|SeqRead-MB/sec-1|{van_k}"]})
    return out


def fairzone_part(small: bool | None = None, seed_base: int = 0) -> Reproduction:
    """The allocator part of the 2014 reproduction (the second of :func:`reproduce`), runs of ``seed_base``."""
    part = Reproduction(THREAD)
    bar = progress(5 + len(SEQREAD_TABLES), "2014 allocator reproduction", unit="stage")
    cal = calibrate_desktop(small)
    bar.update()
    calj = calibrate_johannes(small)
    bar.update()
    part.fitted += _fitted(cal, calj, small)
    fit = pd.DataFrame([
        {"machine": "Mel's desktop (8 GB, one node)", "parameter": "ZONE_DMA32 (MB)", "value": round(cal["dma32_mb"]),
         "fitted to": "the vanilla DMA32 share (fairzone-spread)"},
        {"machine": "Mel's desktop", "parameter": "other_mb: memory outside the page cache (MB)",
         "value": round(cal["other_mb"]), "fitted to": "the vanilla total (fairzone-spread)"},
        {"machine": "Johannes's machine (assumed 8 GB)", "parameter": "ZONE_DMA32 (MB)", "value": round(calj["dma32_mb"]),
         "fitted to": f"vanilla velocity split {100 * calj['published_share']:.1f}% -> model "
                      f"{100 * calj['model_share']:.1f}%"},
        {"machine": "Johannes's machine", "parameter": "velocity time scale", "value": round(calj["time_scale"], 3),
         "fitted to": "vanilla velocity total (bigbatches-velocity)"},
        {"machine": "every machine", "parameter": "disk media rate (disk/CFQ model)", "value": None,
         "fitted to": "that machine's vanilla Mean SeqRead-MB/sec-1"},
    ])
    part.add("fairzone/fitted", "fair-zone allocator model: what was fitted, and to what (3.16-rc1 vanilla only); "
             f"tiobench at {SPREAD_FRACTION:.0%} of RAM for the spread, threads 1..16, {ITERATIONS} iterations "
             f"(assumed); the page cache simulated {PAGES_PER_UNIT} pages a unit; kernels built with THP "
             f"(min_free_kbytes as khugepaged sets it); kswapd as balance_pgdat() decides; allocator prices a priori "
             f"({COSTS.zone_switch_ns:g} ns per zone switch assumed)",
             fit).na = "fitted for each machine by the disk/CFQ model: its value is in the CFQ part's fitted table"
    sc, spread = spread_cells(small, seed_base=seed_base)
    bar.update()
    part.cells += sc
    for table, (pub, mt) in spread.items():
        part.show_published(table, pub)
        part.show_model(table, mt, "counts scaled to the assumed iterations" if table == "fairzone-spread" else "")
    part.show_cells(" and ".join(spread), [c for c in sc if c["row"] != "Movable allocs"], VANILLA["mel"],
                    key="spread")
    vc, vt, _ = velocity_cells(small, seed_base=seed_base)
    bar.update()
    part.cells += vc
    part.show_table("bigbatches-velocity", vt, vc, "3.0", published_frame=_pub("bigbatches-velocity"),
                    model_what="pages scanned per second, x the fitted time scale")
    part.add("bigbatches-velocity/share", "DMA32's share of the scanning (predicted for 3.0 and bigbatches, fitted "
             "for 3.16-rc1)", df_velocity_share(vt))
    qc, qtables = seqread_cells(small, step=bar.update, seed_base=seed_base)
    part.cells += qc
    for table, base_k, sub, mt, tc in qtables:
        part.show_table(table, mt, tc, base_k, published_frame=sub, published_what="SeqRead rows")
    share = explained_share(qc)
    part.add("fairzone/fidelity", "fair-zone fidelity by group (lenient: direction of the change only)",
             df_group_fidelity(sc, vc, qc))
    part.add("fairzone/explained", "SeqRead gain of fairzone / lessdirty / patch-series over vanilla",
             pd.DataFrame([{"published points (summed)": round(share["published_pts"], 1),
                            "model points": round(share["model_pts"], 1),
                            "explained": f"{100 * share['share']:.0f}%"}]))
    bar.update()
    bar.close()
    part.assumptions.append(thp_assumption())
    if MIN_FREE_FLOOR is not None:
        part.assumptions.append({"name": "min_free_kbytes_floor", "value": MIN_FREE_FLOOR, "unit": "KiB",
                                 "kernel": "vm.min_free_kbytes (mm/page_alloc.c min_free_kbytes_sysctl_handler())",
                                 "why": f"a point of the sweep over min_free_kbytes ({MIN_FREE_ENV}): every "
                                        "machine's value raised to at least this; not a claim about the "
                                        "test machines"})
    if KSWAPD_SPEED is not None:
        part.assumptions.append({"name": "kswapd_pages_per_ms", "value": KSWAPD_SPEED, "unit": "pages/ms",
                                 "kernel": "kswapd's scan rate (mm/vmscan.c shrink_page_list(); a model value)",
                                 "why": f"a point of the sweep over kswapd's speed ({KSWAPD_ENV}); not a claim "
                                        "about the test machines"})
    part.add("fairzone/thp", f"the kernels' THP configuration (this run: {THP}; not stated in the thread, identified "
             "as the mechanism after the predicted cells had been seen; the vanilla columns cannot pick it): the "
             "strict score both ways, stored runs of 8 seed bases, by family at seed base 0", df_thp_scores())
    if min_free_sweep_path().is_file():
        part.add("fairzone/min-free", "the score across min_free_kbytes's range (each machine's value raised to at "
                 "least the floor, every machine fitted again; stored sweep, CI size, 8 seed bases)",
                 df_sweep_view(df_min_free_sweep()))
    if kswapd_speed_sweep_path().is_file():
        part.add("fairzone/kswapd-speed", "the score across kswapd's scan rate at the int_sqrt() watermarks (THP "
                 "never; every machine fitted again; stored sweep, CI size, 8 seed bases)",
                 df_sweep_view(df_kswapd_speed_sweep()))
    if not min_free_sweep_path().is_file():
        part.notes.append(f"the sweep over min_free_kbytes is not stored ({min_free_sweep_path().name}: "
                          f"python -m kernel_workbook.heuristics.fairzone --min-free-sweep)")
    part.notes.append("kswapd naps or stays awake, and the zones age alike or not, as balance_pgdat() and "
                      "kswapd_try_to_sleep() decide from the allocation rate against the watermarks (kernels built "
                      "with THP: min_free_kbytes as khugepaged sets it); no regime is forced")
    misses = _misses(sc + vc)
    if misses:
        part.notes.append("spread/velocity cells off by more than 3 points or of the wrong sign: " + "; ".join(misses))
    return part


def reproduce_fairzone(small: bool | None = None, seed_base: int = 0) -> Reproduction:
    """The allocator part alone, as a reproduction of its own (its cells, blocks, fitted and fidelity), the runs
    of ``seed_base``."""
    rep = Reproduction.from_parts(THREAD, [fairzone_part], small=small, seed_base=int(seed_base))
    rep.seed_base = int(seed_base)
    return rep


def reproduce(small: bool | None = None, seed_base: int = 0) -> Reproduction:
    """The whole thread (``kwb reproduce 2014-seqread-fairzone-cfq``): the CFQ half (``seqread_2014.cfq_part``)
    then the allocator half (:func:`fairzone_part`), both the runs of ``seed_base``."""
    rep = Reproduction.from_parts(THREAD, [cfq_part, fairzone_part], small=small, seed_base=int(seed_base))
    rep.seed_base = int(seed_base)
    return rep


def calibrate_thread(small: bool | None = None) -> None:
    """Every calibration the whole thread uses, the CFQ half's first, so that ``kwb reproduce --all`` fits them
    once and hands them to every seed base (:mod:`kernel_workbook.reproduce.calibration`)."""
    calibrate_cfq(small)
    calibrate_all(small)


def df_zone_setup(machine: Machine, variants=("3.16-rc1", "fairzone")) -> pd.DataFrame:
    """The zones as each kernel sets them up at boot (pages).

    Columns: ``kernel, zone, managed, min, low, high, lowmem_reserve[Normal], NR_ALLOC_BATCH, fair_enabled``;
    ``df.attrs["min_free_kbytes"]``.
    """
    from ...models.fairzone import ZONES, zone_setup

    rows = []
    for v in variants:
        p = variant_params(v, machine)
        zs = zone_setup(p)
        for z, name in enumerate(ZONES):
            rows.append({"kernel": v, "zone": name, "managed": int(zs.managed[z]), "min": int(zs.wmark_min[z]),
                         "low": int(zs.wmark_low[z]), "high": int(zs.wmark_high[z]),
                         "lowmem_reserve[Normal]": int(zs.lowmem_reserve[z, len(ZONES) - 1]),
                         "NR_ALLOC_BATCH": int(zs.batch[z]),
                         "fair_enabled": int(zs.fair_enabled[z]) if p.ZONE_FAIR_DEPLETED else 1})
    df = pd.DataFrame(rows)
    df.attrs["min_free_kbytes"] = zs.min_free_kbytes
    return df


def calibrate_all(small: bool | None = None) -> None:
    """The allocator half's calibrations: each machine's disk, Mel's desktop, Johannes's machine (with THP, as
    the reproduction runs; the THP-off sensitivity fits its own when asked)."""
    for table, mkey, _disk_preset, _ram_mb in SEQREAD_TABLES:
        _io_params(mkey, VANILLA["johannes"] if mkey == "johannes" else "3.16.0-rc1 vanilla", small)
        _disk_rates(mkey, small)
    calibrate_desktop(small, THP)
    calibrate_johannes(small, THP)


def variants_prose() -> Prose:
    """The allocator variants of the thread as a Markdown list: each with what it is and its knobs (the
    3.16-rc1 defaults when it changes none)."""
    return Prose.bullets(f"**{v}**: {doc} Knobs: {VARIANTS[v] or 'the 3.16-rc1 defaults'}."
                         for v, doc in VARIANT_DOC.items())


def df_velocity_share(vt: pd.DataFrame) -> pd.DataFrame:
    """DMA32's share of the pages scanned, per kernel of bigbatches-velocity, published and model (``vt``: the
    model table).  Columns: ``kernel, published %, model %, model / published``."""
    pub = _pub("bigbatches-velocity")
    rows = []
    for k in pub["kernel"].unique():
        def share(t):
            d, n = cell_value(t, "Zone dma32 velocity", k), cell_value(t, "Zone normal velocity", k)
            return 100.0 * d / (d + n)

        p, m = share(pub), share(vt)
        rows.append({"kernel": k, "published %": round(p, 1), "model %": round(m, 1),
                     "model / published": round(m / p, 2)})
    return pd.DataFrame(rows)


def df_kswapd_regime(machine_key: str = "johannes", small: bool | None = None, thp: str = THP,
                     variants=("3.16-rc1", "3.0", "fairzone", "bigbatches")) -> pd.DataFrame:
    """How kswapd spent the 2 x RAM tiobench, per kernel: naps cut short by an allocation
    (``kswapd_low_wmark_hit_quickly``), balance_pgdat() finding the node unbalanced again at once or after a nap
    (``kswapd_high_wmark_hit_quickly``), DMA32's share of the scanning, pages activated, and the SeqRead page-cache
    hits per reader count.  Columns: ``kernel, low wmark hit quickly, high wmark hit quickly, DMA32 % of scanning,
    pgactivate, SeqRead hits % (1..16 readers)``."""
    rows = []
    for v in variants:
        r = seqread_run(machine_key, v, small, thp)
        vm, vel = r.vmstat, r.velocity()
        ph = r.df_phases()
        s = ph[ph["phase"] == "SeqRead"]
        hits = " ".join(f"{100 * h / p:.1f}" for h, p in zip(s["hits"], s["pages"]))
        rows.append({"kernel": v, "low wmark hit quickly": int(vm["kswapd_low_wmark_hit_quickly"]),
                     "high wmark hit quickly": int(vm["kswapd_high_wmark_hit_quickly"]),
                     "DMA32 % of scanning": round(100 * vel["Zone dma32 velocity"]
                                                  / (vel["Zone dma32 velocity"] + vel["Zone normal velocity"]), 1),
                     "pgactivate": int(vm["pgactivate"]), "SeqRead hits % (1..16 readers)": hits})
    return pd.DataFrame(rows)


CYCLE_FLOORS = (0, 67584)
"""The two ends of :data:`MIN_FREE_SWEEP` that :func:`df_kswapd_cycle` traces: the ``int_sqrt()`` value and
khugepaged's."""


def df_kswapd_cycle(floors=CYCLE_FLOORS, machine_key: str = "johannes", variant: str = "3.0",
                    small: bool | None = None, units: int = 3000) -> pd.DataFrame:
    """kswapd's cycle as the allocator sees it: ``units`` allocations (of :data:`PAGES_PER_UNIT` pages) from the
    middle of the first SeqRead phase (one reader) of the 2 x RAM tiobench, without THP, with ``min_free_kbytes``
    raised to each floor (0: the kernel's own value).  A rise of a zone's free pages between two allocations is
    kswapd's reclaim; ``path`` ``slow`` is an allocation that found every zone below its low watermark (+ reserve)
    and entered the slow path, which wakes kswapd even from its HZ/10 nap.

    Columns: ``min_free_kbytes, ms, zone, free DMA32, free Normal, path``.
    """
    from ...models.fairzone import zone_setup

    out = []
    cal = calibrate_johannes(small, "never") if machine_key == "johannes" else None
    m = _alloc_machine(machine_key, small, "never", cal["dma32_mb"] if cal else None)
    w = seqread_workload(machine_key, m.ram_mb, small)
    first = next(ph for ph in w.phases if ph.file_pages)  # the first run's SeqWrite
    for floor in floors:
        p = _with_min_free_floor(variant_params(variant, m, transparent_hugepage="never",
                                                pages_per_unit=PAGES_PER_UNIT), floor)
        # SeqWrite allocates its whole file; SeqRead (after a RandWrite of a few thousand pages) allocates about
        # as much again: start a quarter of a file into it
        start = first.file_pages + first.file_pages // 4
        r = simulate(p, w, seed=shift_seed(21, 0), verbose=False, trace=units, trace_start=start)
        t = r.df_trace()
        out.append(pd.DataFrame({"min_free_kbytes": zone_setup(p).min_free_kbytes, "ms": t["t_ms"] - t["t_ms"].iloc[0],
                                 "zone": t["zone"], "free DMA32": t["free_dma32"], "free Normal": t["free_normal"],
                                 "path": t["path"]}))
    return pd.concat(out, ignore_index=True)


REFILL_GAP_MS = 5.0


def df_kswapd_cycle_summary(cycle: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per ``min_free_kbytes`` of :func:`df_kswapd_cycle`: the cycles (kswapd refilling Normal), their mean
    length, the pages each cycle took from each zone, DMA32's share, and how many cycles a slow-path
    allocation ended (the allocator waking kswapd) rather than kswapd's own HZ/10 nap running out.

    Columns: ``min_free_kbytes, cycles, ms a cycle, Normal pages a cycle, DMA32 pages a cycle, DMA32 %,
    cycles ended by the slow path``.
    """
    cycle = df_kswapd_cycle() if cycle is None else cycle
    rows = []
    for mf, g in cycle.groupby("min_free_kbytes", sort=True):
        # a rise of Normal's free pages is a kswapd pass; passes less than REFILL_GAP_MS apart are one
        # balance_pgdat() call (its passes take a fraction of a millisecond each)
        rises = np.flatnonzero((g["free Normal"].diff() > 0).to_numpy())
        ms = g["ms"].to_numpy()
        starts = [i for k, i in enumerate(rises) if k == 0 or ms[i] - ms[rises[k - 1]] > REFILL_GAP_MS]
        if len(starts) < 2:
            continue
        span = g.iloc[starts[0]:starts[-1]]
        n = len(starts) - 1
        taken = span["zone"].value_counts()
        pages = {z: int(taken.get(z, 0)) * PAGES_PER_UNIT for z in ("DMA32", "Normal")}
        # the allocation just before a refill: a slow-path one woke kswapd
        woken = sum(1 for i in starts[1:] if g["path"].iloc[i - 1] == "slow")
        rows.append({"min_free_kbytes": int(mf), "cycles": n,
                     "ms a cycle": round(float(span["ms"].iloc[-1] - span["ms"].iloc[0]) / n, 1),
                     "Normal pages a cycle": round(pages["Normal"] / n), "DMA32 pages a cycle": round(pages["DMA32"] / n),
                     "DMA32 %": round(100 * pages["DMA32"] / max(pages["DMA32"] + pages["Normal"], 1), 1),
                     "cycles ended by the slow path": woken})
    return pd.DataFrame(rows)


def df_thp_sensitivity(machine_key: str = "johannes", small: bool | None = None) -> pd.DataFrame:
    """The one configuration fact the result rests on, both ways: :func:`df_kswapd_regime` with the kernels built
    with THP (min_free_kbytes 67584 KiB) and without (``int_sqrt(lowmem_kbytes * 16)``), each machine fitted again
    on its vanilla column.  Columns: ``THP, min_free_kbytes`` and those of :func:`df_kswapd_regime`."""
    from ...models.fairzone import zone_setup

    out = []
    for thp in ("always", "never"):
        df = df_kswapd_regime(machine_key, small, thp)
        m = _alloc_machine(machine_key, small, thp)
        df.insert(0, "min_free_kbytes", zone_setup(variant_params("3.16-rc1", m, transparent_hugepage=thp))
                  .min_free_kbytes)
        df.insert(0, "THP", thp)
        out.append(df)
    return pd.concat(out, ignore_index=True)


@lru_cache(maxsize=2)
def thp_off_score(small: bool | None = None) -> dict:
    """The allocator half's strict score with the kernels built without THP (every machine fitted again on its
    vanilla column in that configuration): the score without the assumption that was looked for after the model
    had missed the predicted columns.  ``{"hits", "scored", "score"}``, seed base 0."""
    from ...reproduce.score import score_cells, strict

    cal, calj = calibrate_desktop(small, "never"), calibrate_johannes(small, "never")
    sc, _ = spread_cells(small, "never", seed_base=0)
    vc, _, _ = velocity_cells(small, "never", seed_base=0)
    qc, _ = seqread_cells(small, "never", seed_base=0)
    s = strict(score_cells(THREAD, sc + vc + qc, _fitted(cal, calj, small)))
    return {k: s[k] for k in ("hits", "scored", "score")}


# --------------------------------------------------------------------------- out of sample: the 2013 changelog

ROUND_ROBIN = "81c0a2bb515f"
RR_KERNELS = {"before the series (3.11-rc)": "3.11-rc", "round-robin (3.12)": "3.12"}
RR_PASSES = 4  # cat data data data data
RR_FILE_PCT = (105, 110, 120)  # "a file slightly bigger than memory": % of the node's managed memory (not stated)
RR_READ_MB_S = (60.0, 120.0, 240.0)  # cat's rate from the disk (not stated)


def roundrobin_changelog() -> dict:
    """The figures of Johannes Weiner's 2013 round-robin changelog (``data/changelogs/81c0a2bb515f.toml``):
    ``{"meta": {...}, "figures": frame}``, the frame's columns ``kernel, when, zone, nr_inactive_file,
    nr_active_file``.  Printed outside the 2014 thread: validation only, never a fit input to the 2014 cells."""
    import tomllib

    from ...paths import data_dir

    path = data_dir() / "changelogs" / f"{ROUND_ROBIN}.toml"
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    rows = []
    for fig in doc.pop("figure"):
        for z, i, a in zip(fig["zone"], fig["nr_inactive_file"], fig["nr_active_file"]):
            rows.append({"kernel": fig["kernel"], "when": fig["when"], "zone": z, "nr_inactive_file": int(i),
                         "nr_active_file": int(a)})
    return {"meta": doc, "figures": pd.DataFrame(rows)}


def _rr_machine(dma32_mb: float, normal_mb: float) -> Machine:
    return Machine(name="round-robin-2013", ram_mb=4096, dma_mb=15.5, dma32_mb=float(dma32_mb),
                   normal_mb=float(normal_mb), hole_mb=4096 - 15.5 - float(dma32_mb) - float(normal_mb), other_mb=80.0,
                   note="Johannes Weiner's 2013 test machine: not described; DMA32 and Normal fitted on the page "
                        "cache the round-robin kernel holds after the test, as the 2014 machines on their vanilla "
                        "columns")


def _rr_run(variant: str, m: Machine, file_pct: int, read_mb_s: float, thp: str = "always"):
    from .pagecache import stream_read

    pages = int(file_pct * sum(m.managed_mb) * PAGES_PER_MB) // 100
    w = stream_read(pages=pages, threads=1, read_mb_s=read_mb_s, passes=RR_PASSES)
    p = _params(variant, m, thp)
    return simulate(p, w, seed=3, verbose=False).lean()


@calibration
def calibrate_roundrobin() -> dict:
    """The 2013 node's DMA32 and Normal, fitted on the round-robin column's file pages after the test (what the
    fair kernel keeps in each zone is each zone's room for the file): three proportional steps, at the middle
    file size and rate.  Returns ``{"dma32_mb", "normal_mb", "model": {zone: pages}, "published": {...}}``."""
    fig = roundrobin_changelog()["figures"]
    after = fig[(fig["kernel"] == "round-robin (3.12)") & (fig["when"] == "after cat")].set_index("zone")
    want = {z: int(after.loc[z, "nr_inactive_file"] + after.loc[z, "nr_active_file"]) for z in ("DMA32", "Normal")}
    d, n = want["DMA32"] / PAGES_PER_MB, want["Normal"] / PAGES_PER_MB  # a start: the file pages alone
    got = {}
    for _ in range(3):
        z = _rr_run("3.12", _rr_machine(d, n), RR_FILE_PCT[1], RR_READ_MB_S[1]).df_zones().set_index("zone")
        got = {k: int(z.loc[k, "nr_inactive_file"] + z.loc[k, "nr_active_file"]) for k in want}
        d = round(d * want["DMA32"] / max(got["DMA32"], 1), 1)
        n = round(n * want["Normal"] / max(got["Normal"], 1), 1)
    return {"dma32_mb": d, "normal_mb": n, "model": got, "published": want}


def df_roundrobin(file_pct: int = RR_FILE_PCT[1], read_mb_s: float = RR_READ_MB_S[1], thp: str = "always"
                  ) -> pd.DataFrame:
    """The changelog's /proc/zoneinfo after ``cat data data data data`` beside the model's, both kernels.

    Columns: ``kernel, zone, nr_inactive_file, nr_active_file`` (published), ``model nr_inactive_file, model
    nr_active_file``.  The node is fitted on the round-robin kernel's file pages (:func:`calibrate_roundrobin`);
    the 3.11-rc column is the prediction."""
    cal = calibrate_roundrobin()
    m = _rr_machine(cal["dma32_mb"], cal["normal_mb"])
    fig = roundrobin_changelog()["figures"]
    rows = []
    for kernel, variant in RR_KERNELS.items():
        z = _rr_run(variant, m, file_pct, read_mb_s, thp).df_zones().set_index("zone")
        pub = fig[(fig["kernel"] == kernel) & (fig["when"] == "after cat")].set_index("zone")
        for zone in ("DMA32", "Normal"):
            rows.append({"kernel": kernel, "zone": zone, "nr_inactive_file": int(pub.loc[zone, "nr_inactive_file"]),
                         "nr_active_file": int(pub.loc[zone, "nr_active_file"]),
                         "model nr_inactive_file": int(z.loc[zone, "nr_inactive_file"]),
                         "model nr_active_file": int(z.loc[zone, "nr_active_file"])})
    return pd.DataFrame(rows)


def df_roundrobin_range(thps=("always", "never")) -> pd.DataFrame:
    """What the changelog does not say -- the file's size, the disk's rate, whether THP was built -- across a
    plausible range: the share of each zone's file pages the model ends with on the active list, per kernel.

    Columns: ``THP, file % of memory, read MB/s, kernel, DMA32 active %, Normal active %``."""
    cal = calibrate_roundrobin()
    m = _rr_machine(cal["dma32_mb"], cal["normal_mb"])
    rows = []
    for thp in thps:
        for fx in RR_FILE_PCT:
            for rate in RR_READ_MB_S:
                for kernel, variant in RR_KERNELS.items():
                    z = _rr_run(variant, m, fx, rate, thp).df_zones().set_index("zone")
                    act = {k: 100.0 * z.loc[k, "nr_active_file"]
                           / max(z.loc[k, "nr_active_file"] + z.loc[k, "nr_inactive_file"], 1)
                           for k in ("DMA32", "Normal")}
                    rows.append({"THP": thp, "file % of memory": fx, "read MB/s": rate, "kernel": kernel,
                                 "DMA32 active %": round(act["DMA32"], 1), "Normal active %": round(act["Normal"], 1)})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- the THP configuration, both ways

THP_ASSUMPTION = {
    "name": "transparent_hugepage",
    "kernel": "CONFIG_TRANSPARENT_HUGEPAGE=y with enabled=always or madvise at boot: khugepaged starts and "
              "mm/huge_memory.c set_recommended_min_free_kbytes() (a late_initcall in 3.0 and 3.16, run only while "
              "khugepaged runs) raises min_free_kbytes to 67584 KiB on a DMA+DMA32+Normal node; 'never' leaves "
              "init_per_zone_wmark_min()'s int_sqrt(lowmem_kbytes * 16)",
    "chosen_after_predicted_cells_seen": True,
    "history": "THP was identified as the mechanism after the predicted columns had been seen: the model without "
               "it hit 13 of 86 scored cells (the stored score before this work), and the search for what ages DMA32 slowly in 3.0 found the "
               "watermarks THP sets.  The thread does not state the kernels' THP configuration.",
    "baseline_discriminates": False,
    "baseline_evidence": "df_thp_baseline(): each machine fitted with THP on and off on its vanilla 3.16-rc1 columns "
                         "only; the fitted cells are met both ways (other_mb absorbs the difference in reserve) and "
                         "the vanilla SeqRead cells no parameter was fitted to are no closer one way than the other "
                         "(rms log error equal to the third decimal over seed bases 0-3, docs/models/fairzone.md "
                         "'THP, both ways'): the baseline cannot pick the setting",
    "outside_evidence": [
        "mm/huge_memory.c (3.0 to 4.3): set_recommended_min_free_kbytes() is a late_initcall that returns unless "
        "khugepaged runs, which 'always' and 'madvise' both start; only 'never' (or THP not built) keeps the int_sqrt "
        "value.  Read in linux-mm postings quoting that code (Andrew Morton's review of the khugepaged start-up, "
        "Jason Baron's 2015 fix of 79553da293d3 'thp: cleanup khugepaged startup': 'On an 8GB system this restores "
        "min_free_kbytes back to 67584 from 11365 when CONFIG_TRANSPARENT_HUGEPAGE=y is set and either "
        "CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y or CONFIG_TRANSPARENT_HUGEPAGE_MADVISE=y'), not in a v3.16 checkout",
        "Mel Gorman in the thread: automatic NUMA balancing 'is enabled on any tests I do to match what I expect a "
        "distribution config to look like'; distribution kernels of the time are commonly described as built "
        "with THP enabled (always or madvise) -- not checked here against a 2014 distribution config, and not a "
        "measurement of these machines",
        "Mel Gorman's own mmtests report three months later (linux-mm, 9 Sep 2014, '[PATCH] mm: page_alloc: Default "
        "node-ordering on 64-bit NUMA, zone-ordering on 32-bit v2', 3.17.0-rc2 vanilla against nodeorder-v1r1): its "
        "vmstat rows print 'THP fault alloc 55164 52987' and 'THP collapse alloc 139 147'; those counters exist "
        "only with CONFIG_TRANSPARENT_HUGEPAGE=y, and a collapse means khugepaged ran, which is when "
        "set_recommended_min_free_kbytes() raises min_free_kbytes.  Another machine (NUMA, specjbb), so evidence "
        "of how he built his test kernels, not a measurement of the 2014 thread's machines; found after the "
        "predicted columns had been seen, like the setting itself",
        "Johannes Weiner's machine: nothing stated about its configuration",
    ],
}
"""The one configuration fact the allocator half rests on, stated as the reproduction's JSON carries it
(``assumptions``); the scores both ways come from the stored runs (:func:`df_thp_scores`)."""


def thp_fidelity_dir(thp: str, full: bool = False):
    """Where the stored run with the kernels built with THP ``thp`` lives when it is not :data:`THP` (the
    reproduction's own stored run is ``data/fidelity``'s)."""
    from ...reproduce.fidelity import fidelity_dir

    return fidelity_dir(full) / f"thp-{thp}"


def family(cell: dict) -> str:
    """The issue's family of a 2014 cell (the families the strict score is reported by)."""
    t, k = cell["table"], cell["kernel"]
    if "cfq600" in k and t in ("cfq600-seqread", "lessdirty-tiobench"):
        return "CFQ half (cfq600)"
    if t in ("cfq600-seqread", "fairzone-seqread", "series-seqread", "lessdirty-tiobench"):
        return "Mel's desktop vs vanilla"
    if t in ("laptop-tiobench", "desktop2-tiobench"):
        return "laptop + desktop2 vs 3.0"
    if t in ("bigbatches-seqread", "bigbatches1node-tiobench"):
        return "Johannes vs 3.0"
    if t in ("fairzone-spread", "spread-percent"):
        return "allocation spread"
    if t == "bigbatches-velocity":
        return "zone velocity"
    return t


def _family_hits(doc: dict) -> dict:
    """A stored run's scored cells per :func:`family`, as ``hits/scored`` in the order the families first occur."""
    fam: dict = {}
    for c in doc["cells"]:
        if c["status"] in ("hit", "miss"):
            h, n = fam.get(family(c), (0, 0))
            fam[family(c)] = (h + (c["status"] == "hit"), n + 1)
    return {f: f"{h}/{n}" for f, (h, n) in fam.items()}


def _stored_run(thp: str, full: bool):
    from ...reproduce.fidelity import fidelity_dir

    import json

    main = fidelity_dir(full) / f"{THREAD}.json"
    paths = [main, thp_fidelity_dir(thp, full) / f"{THREAD}.json"]
    for p in paths:
        if not p.is_file():
            continue
        doc = json.loads(p.read_text())
        a = {x.get("name"): x for x in doc.get("assumptions", [])}.get("transparent_hugepage")
        if a is not None and a.get("value") == thp:
            return doc, p
    return None, paths[-1]


def df_thp_scores(full: bool | None = None) -> pd.DataFrame:
    """The thread's strict score with the kernels built with THP and without, from the stored runs (8 seed bases
    each: ``python -m kernel_workbook.reproduce.fidelity`` and, for the other setting,
    ``KWB_2014_THP=never python -m kernel_workbook.heuristics.fairzone``), per family of cells.

    Columns: ``THP, min_free_kbytes, strict (seed base 0), mean, range`` and one ``hits/scored`` column per
    family (seed base 0); a setting without a stored run says so in ``strict (seed base 0)``."""
    from ...reproduce.fidelity import _this_size

    full = _this_size(full)
    from ...models.fairzone import zone_setup

    rows = []
    for thp in ("always", "never"):
        mfk = zone_setup(variant_params("3.16-rc1", "desktop-2014", transparent_hugepage=thp)).min_free_kbytes
        doc, p = _stored_run(thp, full)
        if doc is None:
            rows.append({"THP": thp, "min_free_kbytes": mfk, "strict (seed base 0)": f"not stored ({p.name})"})
            continue
        st, sd = doc["summary"]["strict"], doc["summary"]["seeds"]
        row = {"THP": thp, "min_free_kbytes": mfk,
               "strict (seed base 0)": f"{st['hits']}/{st['scored']} = {100 * st['score']:.1f}%",
               "mean": f"{100 * sd['mean']:.1f}%", "range": f"{100 * sd['min']:.1f}-{100 * sd['max']:.1f}%",
               "seed bases": sd["n"]}
        row.update(_family_hits(doc))
        rows.append(row)
    return pd.DataFrame(rows)


def df_thp_baseline(bases=(0,), small: bool | None = None) -> pd.DataFrame:
    """Can the baseline pick THP?  Each machine fitted with THP (``always``; ``madvise`` boots the same) and without
    (``never``) on its vanilla 3.16-rc1 columns only, and the vanilla cells no parameter was fitted to (SeqRead at
    every reader count but the fitted Mean at one reader, Mean and Min, every SeqRead table) compared with the
    model's, over the seed bases ``bases``.  Only vanilla columns are read: a setting picked from this is honest.

    Columns: ``THP, desktop other_mb, desktop vanilla DMA32 / Normal allocs (M), Johannes DMA32 share % (published
    41.9), velocity time scale, unfitted vanilla cells, rms log error, mean log error``."""
    rows = []
    for thp in ("always", "never"):
        cal, calj = calibrate_desktop(small, thp), calibrate_johannes(small, thp)
        errs = []
        for b in bases:
            for table, mkey, _disk_preset, _ram_mb in SEQREAD_TABLES:
                pub = _pub(table)
                van = VANILLA["johannes"] if mkey == "johannes" else "3.16.0-rc1 vanilla"
                sub = pub[(pub["kernel"] == van) & pub["row"].str.startswith("SeqRead-MB/sec-")]
                for r in sub.itertuples():
                    n = int(r.row.rsplit("-", 1)[1])
                    if n == 1 and r.stat == "Mean":
                        continue  # the disk's fitted cell
                    s = seqread_samples(mkey, van, n, small, thp, seed_base=b)
                    m = float(np.mean(s)) if r.stat == "Mean" else float(np.min(s))
                    errs.append(np.log(m / r.value))
        e = np.asarray(errs)
        rows.append({"THP": thp, "desktop other_mb": round(cal["other_mb"]),
                     "desktop vanilla DMA32 / Normal allocs (M)":
                         f"{cal['model']['DMA32 allocs'] / 1e6:.2f} / {cal['model']['Normal allocs'] / 1e6:.2f}",
                     "Johannes DMA32 share %": round(100 * calj["model_share"], 2),
                     "velocity time scale": round(calj["time_scale"], 3), "unfitted vanilla cells": len(e),
                     "rms log error": round(float(np.sqrt(np.mean(e ** 2))), 4),
                     "mean log error": round(float(np.mean(e)), 4)})
    return pd.DataFrame(rows)


def thp_assumption() -> dict:
    """:data:`THP_ASSUMPTION` with the value this run uses and the other setting's stored score."""
    from ...paths import data_dir
    from ...reproduce.fidelity import _this_size

    out = dict(THP_ASSUMPTION, value=THP)
    other = "never" if THP != "never" else "always"
    doc, p = _stored_run(other, _this_size(None))
    if doc is not None:
        st, sd = doc["summary"]["strict"], doc["summary"]["seeds"]
        out["other_setting"] = {"value": other, "stored": str(p.relative_to(data_dir().parent)),
                                "hits": st["hits"], "scored": st["scored"], "score": st["score"],
                                "mean": sd["mean"], "min": sd["min"], "max": sd["max"], "seed_bases": sd["n"]}
    return out


MIN_FREE_SWEEP = (0, 16384, 22528, 32768, 45056, 56320, 67584)
"""The floors (KiB) :func:`min_free_sweep` runs: from none (``int_sqrt(lowmem_kbytes * 16)`` alone, 11442 KiB on
the desktop) to khugepaged's 67584 KiB on a three-zone node, the two ends a 2014 kernel boots with; the values
between are what a ``vm.min_free_kbytes`` sysctl could set.  Chosen as a grid over that range, not from scores."""


def _sweep_row(floor, doc: dict, label: str = "min_free_kbytes floor") -> dict:
    st, sd = doc["summary"]["strict"], doc["summary"]["seeds"]
    row = {label: floor, "strict (seed base 0)": f"{st['hits']}/{st['scored']}",
           "score": st["score"], "mean": sd["mean"], "min": sd["min"], "max": sd["max"], "seed bases": sd["n"]}
    vel = {(c["kernel"], c["row"]): c["model"] for c in doc["cells"] if c["table"] == "bigbatches-velocity"}
    for k, label in (("3.0", "3.0"), ("3.16-rc1", "3.16-rc1"), ("bigbatches", "bigbatches")):
        d = [v for (kern, r), v in vel.items() if kern.endswith(k) and "dma32" in r.lower()]
        n = [v for (kern, r), v in vel.items() if kern.endswith(k) and "normal" in r.lower()]
        row[f"DMA32 % of scanning, {label}"] = round(100 * d[0] / (d[0] + n[0]), 1) if d and n else None
    row.update(sorted(_family_hits(doc).items()))
    return row


def min_free_sweep(floors=MIN_FREE_SWEEP, seeds: int = 8, thp: str = "never") -> pd.DataFrame:
    """The whole 2014 reproduction (``seeds`` seed bases) once per ``min_free_kbytes`` floor, each in a process of
    its own (:data:`MIN_FREE_ENV`; the floor reaches the fits, which are redone on each floor's vanilla columns).

    The test machines' min_free_kbytes is not stated in the thread; the standards ask for the scored cells across
    its plausible range rather than one value.  Columns: ``min_free_kbytes floor, strict (seed base 0), score,
    mean, min, max, seed bases``, DMA32's share of the scanning for 3.0, 3.16-rc1 and bigbatches (the thread:
    16.4%, 41.9% fitted, 18.4%), and one ``hits/scored`` column per family (seed base 0)."""
    return _sweep(MIN_FREE_ENV, "min_free_kbytes floor", floors, seeds, thp)


def _sweep(env_name: str, label: str, values, seeds: int, thp: str) -> pd.DataFrame:
    import json
    import subprocess

    rows = []
    for v in values:
        env = dict(os.environ, **{THP_ENV: thp, env_name: str(v)})
        out = subprocess.run([sys.executable, "-m", "kernel_workbook.cli", "reproduce", THREAD, "--json",
                              "--seeds", str(seeds)], env=env, check=True, capture_output=True, text=True).stdout
        rows.append(_sweep_row(v, json.loads(out), label))
    return pd.DataFrame(rows)


KSWAPD_SWEEP = (30.0, 60.0, 125.0, 250.0, 500.0, 1000.0, 2000.0)
"""kswapd scan rates (pages/ms) :func:`kswapd_speed_sweep` runs: from about tiobench's allocation rate (~33
pages/ms, below which kswapd cannot keep up at all) to twice the model's a-priori 1000 (~1 us a page of clean page
cache); a doubling grid, chosen before any score was seen."""


def kswapd_speed_sweep(speeds=KSWAPD_SWEEP, seeds: int = 8, thp: str = "never") -> pd.DataFrame:
    """:func:`min_free_sweep`'s table over kswapd's scan rate instead (``kswapd_pages_per_ms``, a model value the
    thread does not pin: the vanilla columns do not move above ~30 pages/ms), at the ``int_sqrt()`` watermarks
    (``thp="never"``): could a slower kswapd, not bigger watermarks, keep 3.0 allocating from Normal?"""
    return _sweep(KSWAPD_ENV, "kswapd_pages_per_ms", speeds, seeds, thp)


def kswapd_speed_sweep_path():
    from ...reproduce.fidelity import fidelity_dir

    return fidelity_dir(False) / "kswapd-speed-sweep.csv"


def df_kswapd_speed_sweep() -> pd.DataFrame:
    """The stored :func:`kswapd_speed_sweep` (CI size, ``--kswapd-speed-sweep``); columns as :func:`min_free_sweep`'s
    with ``kswapd_pages_per_ms`` first."""
    return pd.read_csv(kswapd_speed_sweep_path())


def df_sweep_view(df: pd.DataFrame) -> pd.DataFrame:
    """A stored sweep (:func:`df_min_free_sweep`, :func:`df_kswapd_speed_sweep`) turned for reading: one row per
    quantity, one column per value swept (the first column of ``df``), the mean and range over the seed bases in
    one cell.  Columns: ``quantity`` and one per value."""
    key = df.columns[0]
    rows = {"strict (seed base 0)": df["strict (seed base 0)"],
            "mean (range), 8 seed bases": [f"{100 * m:.1f}% ({100 * lo:.1f}–{100 * hi:.1f})"
                                           for m, lo, hi in zip(df["mean"], df["min"], df["max"])]}
    for c in df.columns[7:]:
        rows[c] = df[c]
    out = pd.DataFrame(rows).T
    out.columns = [f"{v:g}" for v in df[key]]
    return out.rename_axis(key).reset_index().rename(columns={key: "quantity"})


def min_free_sweep_path():
    from ...reproduce.fidelity import fidelity_dir

    return fidelity_dir(False) / "min-free-sweep.csv"


def df_min_free_sweep() -> pd.DataFrame:
    """The stored :func:`min_free_sweep` at CI size (``WORKBOOK_MODE=ci python -m
    kernel_workbook.heuristics.fairzone --min-free-sweep``, ~10 minutes on 2 cores; the full size
    would take about an hour and is not stored, so the lab prints the CI-size sweep too); columns as there."""
    return pd.read_csv(min_free_sweep_path())


def main(argv: list[str] | None = None) -> int:
    """``KWB_2014_THP=never WORKBOOK_MODE=ci|lab python -m kernel_workbook.heuristics.fairzone``:
    store the 2014 reproduction (8 seed bases) with the kernels built the other way than the reproduction's default, beside
    the stored fidelity (``data/fidelity/thp-never/``), so that the notebook and the JSON print both scores."""
    from ...reproduce import reproduce_many
    from ...reproduce.fidelity import STORED_SEEDS, _this_size

    argv = list(sys.argv[1:] if argv is None else argv)
    sweeps = {"--min-free-sweep": (min_free_sweep_path, min_free_sweep),
              "--kswapd-speed-sweep": (kswapd_speed_sweep_path, kswapd_speed_sweep)}
    if len(argv) == 1 and argv[0] in sweeps:
        if _this_size(None):
            raise WorkbookParameterError("WORKBOOK_MODE", os.environ.get("WORKBOOK_MODE"), "ci: the sweeps are "
                                         "stored at CI size only")
        path, run = sweeps[argv[0]]
        p = path()
        df = run(seeds=STORED_SEEDS)
        df.to_csv(p, index=False)
        print(df.to_string(index=False))
        print(f"-> {p}")
        return 0
    if argv:
        raise WorkbookParameterError("argv", " ".join(argv), "nothing, --min-free-sweep or --kswapd-speed-sweep")
    if THP == "always":
        raise WorkbookParameterError(THP_ENV, os.environ.get(THP_ENV), "'never' (or 'madvise'): the 'always' run is "
                                     "the stored fidelity itself (python -m kernel_workbook.reproduce.fidelity)")
    d = thp_fidelity_dir(THP, _this_size(None))
    d.mkdir(parents=True, exist_ok=True)
    rep, = reproduce_many([THREAD], seeds=STORED_SEEDS)
    p = d / f"{THREAD}.json"
    p.write_text(rep.to_json() + "\n")
    s = rep.summary()
    print(f"{THREAD} with {THP_ENV}={THP}: strict {s['strict']['hits']}/{s['strict']['scored']}, mean "
          f"{100 * s['seeds']['mean']:.1f}% ({100 * s['seeds']['min']:.1f}-{100 * s['seeds']['max']:.1f}%) -> {p}")
    return 0

