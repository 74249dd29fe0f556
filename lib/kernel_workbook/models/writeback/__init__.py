"""Writeback and reclaim throttling (2.5.52-2.6.23): the model of the 2007 throttle_vm_writeout thread.

The public surface::

    from kernel_workbook.models.writeback import simulate, params_for
    from kernel_workbook.heuristics.writeback import workloads_2007

    r = simulate(params_for("before c4e2d7dd"), workloads_2007.akpm_test(), seed=1)
    r.summary()["kswapd_cpu_pct"], r.summary()["reclaim_efficiency_pct"]
    r.vmstat()        # a /proc/vmstat series: traces.df_reclaim_2007 reads it as it reads a capture
    r.queue()         # who holds the request queue's slots over time

Zones (DMA, NORMAL, HIGHMEM on i386; DMA, DMA32, NORMAL on x86_64) with
active and inactive LRU lists of clean, dirty and writeback pages; one
request queue of ``nr_requests`` slots shared by every zone, congested and
uncongested at the thresholds of ``blk_queue_congestion_threshold()``;
writeback completions from the cfq model's disk, rotating reclaim's pages to
the inactive tail; pdflush, ``balance_dirty_pages()``, kswapd and direct
reclaim with their throttles.  Kernels are flag sets (:data:`VARIANTS`).
The mechanisms and their sources are in ``docs/models/writeback.md``.
"""

from ..spec import ModelSpec
from .layout import PARAMS
from .params import DEFAULT_VARIANT, VARIANT_NOTES, VARIANTS, WritebackParams, params_for
from .result import AUDIT_NAMES, OWNER_NAMES, Result
from .simulate import KERNELS, congestion_thresholds, derive, disk, min_free_kbytes, pack, simulate, watermarks, zone_pages
from .workload import ZONE_NAMES, WritebackLoad


def _summary(r: Result) -> dict:
    return r.summary()


MODEL = ModelSpec(
    name="writeback",
    title="Writeback and reclaim throttling (2.5.52-2.6.23, the 2007 throttle_vm_writeout thread)",
    params=WritebackParams,
    simulate=simulate,
    summary=_summary,
    variants=VARIANTS,
    default_variant=DEFAULT_VARIANT,
    layout=PARAMS,
    pack=pack,
    doc=__doc__ or "",
)

__all__ = ["simulate", "params_for", "WritebackParams", "WritebackLoad", "Result", "VARIANTS", "VARIANT_NOTES",
           "DEFAULT_VARIANT", "ZONE_NAMES", "OWNER_NAMES", "AUDIT_NAMES", "congestion_thresholds", "derive", "disk", "pack", "watermarks",
           "zone_pages", "min_free_kbytes", "KERNELS", "MODEL"]
