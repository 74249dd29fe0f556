"""The page allocator's fair zone policy and kswapd: the 2014 thread's allocator half, and the whole thread.

* :mod:`.pagecache` -- tiobench's use of the page cache (the workloads);
* :mod:`.fairzone_2014` -- the allocator half of
  ``2014-seqread-fairzone-cfq`` and the thread's reproduction, which joins
  the CFQ heuristic's half (``cfq.seqread_2014``) and this one: the
  allocator half reads its files through that block layer, calibrated by
  that half's disk fits (the one import between two heuristic folders);
* :mod:`.charts` -- the charts (imported only when an explorer is built: a reproduction's
  worker never loads Altair or the widgets) and the explorer;
* :mod:`.exercises` -- exercises 13-15;
* :mod:`.bench` -- ``kwb bench --suites fairzone``.
"""

from ...heuristic import Heuristic, ThreadReproduction, deferred
from ...models.fairzone import MODEL
from . import bench, fairzone_2014, pagecache
from .exercises import BatchShare, FairPolicySign, Watermarks


def _charts():
    from . import charts

    return charts


HEURISTIC = Heuristic(
    name="fairzone",
    model=MODEL,
    workloads={
        "tiobench": pagecache.tiobench,
        "stream-read": pagecache.stream_read,
        "stream-write": pagecache.stream_write,
    },
    default_workload="tiobench",
    threads=(ThreadReproduction("2014-seqread-fairzone-cfq", fairzone_2014.reproduce,
                                fairzone_2014.calibrate_thread, start_order=0),),
    explorers={"2014 fair zone allocation (tiobench on half the desktop, 32 pages a unit)":
               deferred(_charts, "fairzone_explorer")},
    exercises={
        "13-fairzone-watermarks": Watermarks,
        "14-fairzone-batch-share": BatchShare,
        "15-fairzone-variant-sign": FairPolicySign,
    },
    bench=bench,
)
