"""Automatic NUMA balancing (kernel/sched/fair.c, mm/migrate.c, 3.19 and 4.0) as a seeded simulation.

The model replays the 2015 thread "mm: numa: Slow PTE scan rate if migration
failures occur": threads touch memory; every scan period a thread of the mm
runs ``task_numa_work()`` and makes the next ``numa_balancing_scan_size_mb``
of populated memory PROT_NONE; the next touch takes a hinting fault
(``do_numa_page()``); the two-stage filter (``should_numa_migrate_memory()``)
and numa groups decide whether the page moves (``migrate_misplaced_page()``,
rate limited per node); ``task_numa_fault()`` counts the fault local or
remote, private or shared, and once per pass ``task_numa_placement()`` runs
the period controller ``update_task_scan_period()`` and may move the task
(``task_numa_migrate()``).  Costs turn the events into system time; remote
accesses slow user work; elapsed time is when the last thread finishes.

Public API::

    from kernel_workbook.models.numa import simulate, kernel_params, MACHINES
    from kernel_workbook.heuristics.numa.autonumabench import numa02
    r = simulate(kernel_params("4.0.0-rc1 vanilla"), numa02("mel-4socket-48"), seed=1)
    r.vmstat          # numa_pte_updates, numa_hint_faults, ... (kernel units)
    r.times           # user_s, system_s, elapsed_s
    r.df_scan_period()  # per-task numa_scan_period over time

The package: ``params.py`` (the knobs, the thread's kernels, the machines),
``workload.py`` (tasks and access patterns), ``layout.py`` (the kernel's
arrays), ``balancing_kernel.py`` (the loop, compiled or plain Python),
``reference.py`` (an independent object-based implementation),
``simulate.py`` and ``result.py``.
"""

from __future__ import annotations

from ..spec import ModelSpec
from .layout import COUNTER_NAMES, PARAMS
from .params import (
    COST_FIELDS, COST_PRIORS, HINT_PTE, HPAGE_PMD_NR, KERNEL_DOC, KERNELS, MACHINE_SOURCES, MACHINES,
    NO_GROUP_RULE_DOC, NO_GROUP_RULES, PAGE_SIZE, Machine, NumaParams, kernel_params, machine, machine_sources,
    validate_params,
)
from .result import MIGRATE_FAIL_COUNTERS, VMSTAT_COUNTERS, NumaResult, df_runs
from .simulate import KERNEL, derived, initial_state, is_compiled, machine_of, pack, simulate
from .workload import RANDOM, SWEEP, NumaWorkload, validate_workload

MODEL = ModelSpec(
    name="numa",
    title="Automatic NUMA balancing: scanning, hinting faults, migration and its rate limit (3.19, 4.0)",
    params=NumaParams,
    simulate=simulate,
    summary=NumaResult.summary,
    variants=KERNELS,
    default_variant="3.19.0 vanilla",
    layout=PARAMS,
    pack=pack,
    doc=__doc__,
)

__all__ = [
    "COST_FIELDS", "COST_PRIORS", "COUNTER_NAMES", "HINT_PTE", "HPAGE_PMD_NR", "KERNEL", "KERNELS", "KERNEL_DOC",
    "MACHINES", "MACHINE_SOURCES", "MIGRATE_FAIL_COUNTERS", "MODEL", "Machine", "NO_GROUP_RULES", "NO_GROUP_RULE_DOC", "NumaParams",
    "NumaResult", "NumaWorkload",
    "PAGE_SIZE", "RANDOM", "SWEEP", "VMSTAT_COUNTERS", "derived", "df_runs", "initial_state", "is_compiled",
    "kernel_params", "machine", "machine_of", "machine_sources", "pack", "simulate", "validate_params", "validate_workload",
]
