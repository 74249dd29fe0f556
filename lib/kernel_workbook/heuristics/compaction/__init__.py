"""Memory compaction and high-order allocation: the 2012 hugepage thread.

* :mod:`.stress_highalloc` -- mmtests' stress-highalloc as the 2012
  configuration ran it (the workload);
* :mod:`.highalloc_2012` -- the reproduction of ``2012-highalloc-compaction``;
* :mod:`.charts` -- the charts (imported only when an explorer is built: a reproduction's
  worker never loads Altair or the widgets) and the explorer;
* :mod:`.exercises` -- exercises 19-21;
* :mod:`.bench` -- ``kwb bench --suites compaction``.
"""

from ...heuristic import Heuristic, ThreadReproduction, deferred
from ...models.compaction import MODEL, StressHighalloc
from . import bench, highalloc_2012
from .exercises import CompactionSign, Deferral, FragIndex


def _charts():
    from . import charts

    return charts


HEURISTIC = Heuristic(
    name="compaction",
    model=MODEL,
    workloads={"stress-highalloc": StressHighalloc},
    default_workload="stress-highalloc",
    threads=(ThreadReproduction("2012-highalloc-compaction", highalloc_2012.reproduce, highalloc_2012.calibrate_all,
                                start_order=2),),
    explorers={"2012 compaction (stress-highalloc)": deferred(_charts, "compaction_explorer")},
    exercises={
        "19-compaction-fragindex": FragIndex,
        "20-compaction-deferral": Deferral,
        "21-compaction-patch-sign": CompactionSign,
    },
    bench=bench,
)
