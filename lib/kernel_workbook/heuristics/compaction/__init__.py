"""Memory compaction and high-order allocation: the 2012 hugepage thread.

* :mod:`.stress_highalloc` -- mmtests' stress-highalloc as the 2012
  configuration ran it (the workload);
* :mod:`.highalloc_2012` -- the reproduction of ``2012-highalloc-compaction``;
* :mod:`.charts` -- the charts (imported only when an explorer is built: a reproduction's
  worker never loads Altair or the widgets) and the explorer;
* :mod:`.exercises` -- exercises 19-21;
* :mod:`.bench` -- ``kwb bench --suites compaction``.
"""

from ...heuristic import Heuristic, ThreadReproduction
from ...models.compaction import MODEL, StressHighalloc
from . import bench, highalloc_2012
from .exercises import CompactionSign, Deferral, FragIndex


def compaction_explorer(*args, **kw):
    """:func:`.charts.compaction_explorer`, its module imported only when an explorer is built (see the docstring)."""
    from .charts import compaction_explorer as build

    return build(*args, **kw)


HEURISTIC = Heuristic(
    name="compaction",
    model=MODEL,
    workloads={"stress-highalloc": StressHighalloc},
    default_workload="stress-highalloc",
    threads=(ThreadReproduction("2012-highalloc-compaction", highalloc_2012.reproduce, highalloc_2012.calibrate_all,
                                start_order=2),),
    explorers={"2012 compaction (stress-highalloc)": compaction_explorer},
    exercises={
        "19-compaction-fragindex": FragIndex,
        "20-compaction-deferral": Deferral,
        "21-compaction-patch-sign": CompactionSign,
    },
    bench=bench,
)
