"""Memory compaction and high-order allocation (3.3-3.6): the model of the 2012 hugepage thread.

The public surface::

    from kernel_workbook.models.compaction import simulate, params_for, StressHighalloc
    from kernel_workbook.heuristics.compaction import stress_highalloc

    r = simulate(params_for("contended-v5"), stress_highalloc.hydra(), seed=1)
    r.passes()            # success % of Pass 1, Pass 2, while Rested
    r.mmtests_vmstat()    # Page Ins ... Direct velocity, as the thread prints them
    r.buddyinfo()         # /proc/buddyinfo frames (parse_buddyinfo's shape)

A zone of pageblocks (``pageblock_order`` 9) with migratetypes, the buddy
allocator with per-order free lists (``__free_one_page``, ``expand``,
``__rmqueue_fallback``), watermarks, the LRUs, kswapd and direct reclaim,
compaction with its two scanners, deferral, the cached free pfn of 7db8889a
and its fix, the contention backoff and capture; kernels are flag sets
(:data:`VARIANTS`).  The mechanisms and their sources are in
``docs/models/compaction.md``.
"""

from ..spec import ModelSpec
from .layout import PARAMS
from .fragmentation import df_fragmentation, fragmentation_index, unusable_free_index
from .params import CACHE_CHOICES, DEFAULT_VARIANT, VARIANT_NOTES, VARIANTS, CompactionParams, params_for
from .result import PASS_NAMES, VMSTAT_ROWS, Result
from .simulate import KERNELS, derive, min_free_kbytes, pack, simulate
from .workload import StressHighalloc


def _summary(r: Result) -> dict:
    return r.summary()


MODEL = ModelSpec(
    name="compaction",
    title="Memory compaction and high-order allocation (3.3-3.6, the 2012 hugepage thread)",
    params=CompactionParams,
    simulate=simulate,
    summary=_summary,
    variants=VARIANTS,
    default_variant=DEFAULT_VARIANT,
    layout=PARAMS,
    pack=pack,
    doc=__doc__ or "",
)

__all__ = ["simulate", "params_for", "CompactionParams", "StressHighalloc", "Result", "VARIANTS", "VARIANT_NOTES",
           "DEFAULT_VARIANT", "CACHE_CHOICES", "PASS_NAMES", "VMSTAT_ROWS", "df_fragmentation", "fragmentation_index",
           "unusable_free_index", "derive", "pack", "min_free_kbytes", "KERNELS", "MODEL"]
