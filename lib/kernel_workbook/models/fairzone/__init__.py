"""The page allocator's fair zone policy (mm/page_alloc.c, 3.0 - 3.16) as a seeded simulation.

One node with zones DMA, DMA32 and Normal (sizes as knobs), watermarks from
``min_free_kbytes`` as ``__setup_per_zone_wmarks()`` computes them,
``lowmem_reserve``, per-zone file LRU lists (inactive, active) with each
page's allocation time, dirty and writeback counts; the allocation fast path
of each kernel of the 2014 thread (:data:`VARIANTS`); kswapd woken below the
low or high watermark and reclaiming the oldest pages to high + the balance
gap, at a stated speed; writeback at the device's rate; tiobench's use of the
page cache as the workload (:mod:`kernel_workbook.heuristics.fairzone.pagecache`).

Public API::

    from kernel_workbook.models.fairzone import simulate, variant_params
    from kernel_workbook.heuristics.fairzone.pagecache import tiobench
    r = simulate(variant_params("fairzone"), tiobench(size_fraction=0.8, threads=(4,)), seed=1)
    r.vmstat           # pgalloc_dma32, pgalloc_normal, pgscan_kswapd_normal, pgactivate, ... (kernel names)
    r.df_zones()       # per zone: watermarks, batch, allocations, scans, velocity, age at eviction
    r.df_work()        # the allocator's work per allocation (zonelist entries, watermark checks, resets ...)
    r.df_trace()       # allocation by allocation: zone, NR_ALLOC_BATCH, free pages, resets (for pictures)

The package: ``params.py`` (the knobs), ``setup.py`` (the zones at boot),
``workload.py`` (phase types), ``layout.py`` (the kernel's arrays),
``allocator_kernel.py`` (the loop), ``simulate.py``, ``result.py``.
"""

from __future__ import annotations

from ..spec import ModelSpec
from .layout import COUNTER_NAMES, PARAMS, ZONE_NAMES
from .params import (
    COST_TERMS, MACHINES, PAGES_PER_MB, VARIANT_DOC, VARIANTS, AllocatorCosts, FairZoneParams, Machine,
    allocator_cost_ns, machine, validate, variant_params,
)
from .result import FairZoneResult, check_conservation
from .setup import ZoneSetup, int_sqrt, zone_setup
from .simulate import KERNEL, Arrays, build_arrays, is_compiled, pack, simulate
from .workload import PHASE_NAMES, PageCacheWorkload, Phase

ZONES = ZONE_NAMES

MODEL = ModelSpec(
    name="fairzone",
    title="The page allocator's fair zone policy, kswapd and dirty limits (mm/page_alloc.c, 3.0-3.16)",
    params=FairZoneParams,
    simulate=simulate,
    summary=FairZoneResult.summary,
    variants=VARIANTS,
    default_variant="3.16-rc1",
    base=variant_params,
    layout=PARAMS,
    pack=pack,
    doc=__doc__,
)

__all__ = [
    "AllocatorCosts", "Arrays", "COST_TERMS", "COUNTER_NAMES", "FairZoneParams", "FairZoneResult", "KERNEL",
    "MACHINES", "MODEL", "Machine", "PAGES_PER_MB", "PHASE_NAMES", "PageCacheWorkload", "Phase", "VARIANTS",
    "VARIANT_DOC", "ZONES", "ZoneSetup", "allocator_cost_ns", "build_arrays", "check_conservation", "int_sqrt",
    "is_compiled", "machine", "pack", "simulate", "validate", "variant_params", "zone_setup",
]
