"""Sweeps: one model over a grid of knobs, kernels, workloads and seeds, on one core or many machines.

::

    from kernel_workbook import sweep

    grid = sweep.product("cfq", {"cfq_target_latency": [300, 600]}, variants=["3.16", "3.0"],
                         seeds=range(8))
    runs = sweep.run_sweep(grid, out="runs.parquet")      # one worker process per core (kernel_workbook.executor)
    runs = sweep.run_sweep(grid, workers=0)               # in this process, no Dask
    with sweep.connect("tcp://host:8786") as client:      # a cluster that is already up
        runs = sweep.run_sweep(grid, client=client)

The same from a shell::

    kwb sweep cfq --knob cfq_target_latency=300,600 --variant 3.16,3.0 --seeds 0-7 --out runs.parquet

* :mod:`.grid` -- the designs (:func:`product`, :func:`one_at_a_time`,
  :func:`sample`), knobs by their declared names, checked by the declaration;
* :mod:`.run` -- :func:`run_sweep` (in process or on Dask, with a progress
  bar) and :func:`worker_stats`;
* :mod:`.store` -- the Parquet file, written as runs finish and resumable;
* :mod:`.cluster` -- :func:`connect`, :func:`start` (a Dask client: a scheduler's address, or a ``LocalCluster``);
* :mod:`.worker` -- what runs inside a worker process.

Dask and distributed are an optional extra (``pip install 'kernel-workbook[sweep]'``,
included in ``[lab]`` and ``[test]``); building a grid does not need them.
"""

from .cluster import connect, default_workers, start
from .grid import Grid, Run, around, one_at_a_time, parse_seeds, parse_value, product, sample
from .run import run_sweep, worker_stats
from .store import SweepStore, read_sweep

__all__ = ["Grid", "Run", "product", "one_at_a_time", "sample", "around", "parse_seeds", "parse_value", "run_sweep",
           "worker_stats", "SweepStore", "read_sweep", "connect", "start", "default_workers"]
