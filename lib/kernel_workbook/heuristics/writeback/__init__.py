"""Writeback and reclaim throttling: the 2007 throttle_vm_writeout thread.

* :mod:`.workloads_2007` -- Andrew Morton's 2002 test and a light desktop
  (the workloads);
* :mod:`.throttle_2007` -- the reproduction of ``2007-throttle-vm-writeout``;
* :mod:`.charts` -- the charts (imported only when an explorer is built: a reproduction's
  worker never loads Altair or the widgets) and the explorer;
* :mod:`.exercises` -- exercises 22-24;
* :mod:`.bench` -- ``kwb bench --suites writeback``.
"""

from ...heuristic import Heuristic, ThreadReproduction, deferred
from ...models.writeback import MODEL
from . import bench, throttle_2007, workloads_2007
from .exercises import CongestionThresholds, MayWriteToQueue, ReclaimEfficiency2007


def _charts():
    from . import charts

    return charts


HEURISTIC = Heuristic(
    name="writeback",
    model=MODEL,
    workloads={"akpm-2002": workloads_2007.akpm_test, "desktop-light": workloads_2007.desktop_light},
    default_workload="akpm-2002",
    threads=(ThreadReproduction("2007-throttle-vm-writeout", throttle_2007.reproduce, throttle_2007.calibrate_all,
                                start_order=4),),
    explorers={"2007 writeback (akpm's test, 2 GB)": deferred(_charts, "writeback_explorer")},
    exercises={
        "22-2007-congestion-thresholds": CongestionThresholds,
        "23-2007-may-write-to-queue": MayWriteToQueue,
        "24-2007-reclaim-efficiency": ReclaimEfficiency2007,
    },
    bench=bench,
)
