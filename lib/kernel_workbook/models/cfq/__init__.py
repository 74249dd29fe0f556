"""CFQ (and noop, deadline) in front of a rotating disk or a RAID: the model of the 2011 and 2014 threads.

::

    from kernel_workbook.models.cfq import IOParams, cfq_for_kernel, simulate, DESKTOP_2014
    from kernel_workbook.heuristics.cfq import tiobench

    p = IOParams(scheduler="cfq", cfq=cfq_for_kernel("3.16"), disk=DESKTOP_2014)
    r = simulate(p.with_(cfq_target_latency=600), tiobench.seqread(8), seed=1)
    r.throughput_mb_s, r.threads, r.iostat(), r.events, r.counters, r.caption()

The package, one file per concern (``docs/models/cfq.md`` maps each kernel
function to the file that mirrors it):

* ``params.py`` -- every knob, declared once (kernel name, unit, source,
  range, conversion to jiffies/ns/sectors); the kernels of the threads
  (:data:`VARIANTS`, :func:`cfq_for_kernel`) and the machines (:data:`PRESETS`);
* ``workload.py`` -- the workload types the generators in
  of its heuristic (``kernel_workbook.heuristics.cfq``) build;
* ``layout.py`` -- the kernel's arrays, their columns generated from names;
* ``elevator_kernel.py`` (noop, deadline), ``cfq_kernel.py``
  (``block/cfq-iosched.c``), ``disk_kernel.py`` (the drive) and
  ``event_loop.py`` (processes, the elevator interface, the loop);
* ``simulate.py`` -- :func:`simulate` and :func:`pack`; ``result.py`` -- :class:`Result`;
* ``analytic.py`` -- closed forms (seek curve, media rate, CFQ's scaled slice).
"""

from __future__ import annotations

from ..spec import ModelSpec
from .analytic import random_op_ms, scaled_slice_ms, seek_ms, seek_table_ns, sequential_rate_mb_s
from .layout import LAYOUT
from .params import (
    DESKTOP_2014, HZ_VALUES, LAPTOP_2014, PRESETS, RAID_LSI1078_2011, SCHEDULERS, SERVER_SATA_2011, VARIANTS,
    CFQParams, DeadlineParams, DiskParams, IOParams, cfq_for_kernel, df_presets, for_variant, ms_to_jiffies, preset,
)
from .result import EVENT_NAMES, MB, WL_TYPE_NAMES, Result
from .simulate import KERNELS, build_arrays, is_compiled, pack, simulate
from .workload import IOWorkload, Process, Stream

MODEL = ModelSpec(
    name="cfq",
    title="CFQ (noop, deadline) in front of a rotating disk or a RAID (block/cfq-iosched.c, 3.1 and 3.16)",
    params=IOParams,
    simulate=simulate,
    summary=Result.summary,
    variants=VARIANTS,
    default_variant="3.16",
    layout=LAYOUT,
    pack=pack,
    doc=__doc__,
)

__all__ = ["IOParams", "CFQParams", "DeadlineParams", "DiskParams", "Result", "simulate", "pack", "build_arrays",
           "cfq_for_kernel", "for_variant", "VARIANTS", "PRESETS", "preset", "df_presets", "DESKTOP_2014",
           "LAPTOP_2014", "SERVER_SATA_2011", "RAID_LSI1078_2011", "SCHEDULERS", "HZ_VALUES", "EVENT_NAMES",
           "WL_TYPE_NAMES", "MB", "IOWorkload", "Process", "Stream", "ms_to_jiffies", "scaled_slice_ms", "seek_ms",
           "seek_table_ns", "sequential_rate_mb_s", "random_op_ms", "KERNELS", "LAYOUT", "MODEL", "is_compiled"]
