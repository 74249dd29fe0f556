"""CFQ in front of a disk or a RAID: the 2011 deep-idling thread and the 2014 thread's ``target_latency`` half.

* :mod:`.tiobench`, :mod:`.aio_stress` -- the workloads (tiobench's read
  phases as mmtests runs them; Maxim Patlasov's aio-stress instances);
* :mod:`.deep_idle_2011` -- the reproduction of ``2011-cfq-deep-idle``;
* :mod:`.seqread_2014` -- the CFQ half of ``2014-seqread-fairzone-cfq``
  (the whole thread is the fair-zone heuristic's, which joins both halves);
* :mod:`.charts` -- the charts (imported only when an explorer is built: a reproduction's
  worker never loads Altair or the widgets) and both explorers;
* :mod:`.exercises_2011`, :mod:`.exercises_2014` -- exercises 07-12;
* :mod:`.bench` -- ``kwb bench --suites cfq``.
"""

from ...heuristic import Heuristic, ThreadReproduction, deferred
from ...models.cfq import MODEL
from . import aio_stress, bench, deep_idle_2011, tiobench
from .exercises_2011 import DeepIdleSign, IdleWindow, PublishedCell2011
from .exercises_2014 import ScaledSlice, SeqReadSign, TargetLatencyFlip


def _charts():
    from . import charts

    return charts


HEURISTIC = Heuristic(
    name="cfq",
    model=MODEL,
    workloads={
        "tiobench-seqread": tiobench.seqread,
        "tiobench-randread": tiobench.randread,
        "aio-stress-2011": aio_stress.patlasov_2011,
    },
    default_workload="tiobench-seqread",
    threads=(ThreadReproduction("2011-cfq-deep-idle", deep_idle_2011.reproduce, deep_idle_2011.calibrate_all,
                                start_order=1),),
    explorers={
        "2011 deep idling (aio-stress on the RAID)": deferred(_charts, "deep_idle_explorer"),
        "2014 CFQ target_latency (tiobench SeqRead 1..16 readers)": deferred(_charts, "cfq_explorer"),
    },
    exercises={
        "07-cfq2011-idle-window": IdleWindow,
        "08-cfq2011-variant-sign": DeepIdleSign,
        "09-cfq2011-published-cell": PublishedCell2011,
        "10-cfq2014-scaled-slice": ScaledSlice,
        "11-cfq2014-regime-flip": TargetLatencyFlip,
        "12-cfq2014-seqread-sign": SeqReadSign,
    },
    bench=bench,
)
