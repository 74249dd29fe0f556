"""Automatic NUMA balancing: the 2015 slow-scan thread.

* :mod:`.autonumabench`, :mod:`.xfs_repair` -- the workloads (Andrea
  Arcangeli's autonumabench; an xfs_repair-like load for Dave Chinner's VM);
* :mod:`.numa_2015` -- the reproduction of ``2015-numa-slow-scan``;
* :mod:`.charts` -- the charts (imported only when an explorer is built: a reproduction's
  worker never loads Altair or the widgets) and the explorer;
* :mod:`.exercises` -- exercises 16-18;
* :mod:`.bench` -- ``kwb bench --suites numa``.
"""

from ...heuristic import Heuristic, ThreadReproduction, deferred
from ...models.numa import MODEL
from . import autonumabench, bench, numa_2015, xfs_repair
from .exercises import NumaSign, ScanPeriod, ScanRate


def _charts():
    from . import charts

    return charts


HEURISTIC = Heuristic(
    name="numa",
    model=MODEL,
    workloads={
        "numa01": autonumabench.numa01,
        "numa01-threadlocal": autonumabench.numa01_threadlocal,
        "numa02": autonumabench.numa02,
        "numa02-smt": autonumabench.numa02_smt,
        "xfs-repair": xfs_repair.xfs_repair,
    },
    default_workload="numa02",
    threads=(ThreadReproduction("2015-numa-slow-scan", numa_2015.reproduce_numa_2015, numa_2015.calibrate_all,
                                start_order=3),),
    explorers={"2015 NUMA balancing (autonumabench / xfs_repair-like)": deferred(_charts, "numa_explorer")},
    exercises={
        "16-numa-scan-rate": ScanRate,
        "17-numa-scan-period": ScanPeriod,
        "18-numa-kernel-sign": NumaSign,
    },
    bench=bench,
)
