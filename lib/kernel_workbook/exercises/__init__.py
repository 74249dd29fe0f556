"""exercises of the Kernel Heuristics Workbook: seeded problems, checkers, solvers, and the grader's index.

:data:`EXERCISES` lists the notebooks of ``exercises/`` in order with the class
each one builds its problem from (``module:Class``, imported when asked for,
so that listing them runs no model).  :func:`exercise_class` resolves a name.
"""

from __future__ import annotations

import importlib

# notebook stem -> "module:Class" (module relative to this package); in the order of exercises/README.md
EXERCISES: dict[str, str] = {
    "01-reading-mmtests-tables": "mmtests_reading:ReadingMmtests",
    "02-stats-hmean-amean": "statistics:HmeanAmean",
    "03-stats-significance": "statistics:CiAndWelch",
    "04-trace-reclaim-efficiency": "trace_reading:ReclaimEfficiency",
    "05-trace-iostat-await": "trace_reading:IostatAwait",
    "06-trace-flamegraph": "trace_reading:FlameGraphs",
    "07-cfq2011-idle-window": "cfq_2011:IdleWindow",
    "08-cfq2011-variant-sign": "cfq_2011:DeepIdleSign",
    "09-cfq2011-published-cell": "cfq_2011:PublishedCell2011",
    "10-cfq2014-scaled-slice": "cfq_2014:ScaledSlice",
    "11-cfq2014-regime-flip": "cfq_2014:TargetLatencyFlip",
    "12-cfq2014-seqread-sign": "cfq_2014:SeqReadSign",
    "13-fairzone-watermarks": "fairzone:Watermarks",
    "14-fairzone-batch-share": "fairzone:BatchShare",
    "15-fairzone-variant-sign": "fairzone:FairPolicySign",
    "16-numa-scan-rate": "numa:ScanRate",
    "17-numa-scan-period": "numa:ScanPeriod",
    "18-numa-kernel-sign": "numa:NumaSign",
    "19-compaction-fragindex": "compaction:FragIndex",
    "20-compaction-deferral": "compaction:Deferral",
    "21-compaction-patch-sign": "compaction:CompactionSign",
    "22-2007-congestion-thresholds": "writeback_2007:CongestionThresholds",
    "23-2007-may-write-to-queue": "writeback_2007:MayWriteToQueue",
    "24-2007-reclaim-efficiency": "writeback_2007:ReclaimEfficiency2007",
}


def exercise_class(target: str):
    """The class named by ``"module:Class"`` (relative to this package, or a full ``kernel_workbook.exercises.`` path)."""
    from ..errors import WorkbookParameterError
    from .base import Exercise

    mod, _, cls = target.partition(":")
    if mod.startswith(__name__ + "."):
        mod = mod[len(__name__) + 1:]
    if not mod or not cls or not mod.replace("_", "").isalnum():
        raise WorkbookParameterError("exercise", target, "'module:Class' of kernel_workbook.exercises")
    try:
        obj = getattr(importlib.import_module(f"{__name__}.{mod}"), cls)
    except (ImportError, AttributeError):
        raise WorkbookParameterError("exercise", target, "an exercise class of kernel_workbook.exercises") from None
    if not (isinstance(obj, type) and issubclass(obj, Exercise)):
        raise WorkbookParameterError("exercise", target, "a subclass of exercises.base.Exercise")
    return obj


__all__ = ["EXERCISES", "exercise_class"]
