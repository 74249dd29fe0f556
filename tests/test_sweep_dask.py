"""The sweep engine on a Dask LocalCluster: the same table as in this process, Numba compiled once per worker.

One cluster of two worker processes serves every test of this file (starting one costs seconds).  The toy
model (tests/sweep_toy.py) has no on-disk Numba cache, so each worker compiles it, once; the real model
(the first of the registry that has its MODEL) uses Numba's on-disk cache, so at most one worker compiles
it and the other loads what that one wrote.
"""

from __future__ import annotations

import os

import pandas as pd
import pytest

from kernel_workbook import cli
from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook import heuristic
from kernel_workbook.sweep import connect, product, read_sweep, run_sweep, worker_stats
from sweep_toy import MODEL, register

# read at collection, before any cluster starts: a nanny writes its variables into its own process's environment
MALLOC_TRIM = os.environ.get("MALLOC_TRIM_THRESHOLD_")
KNOBS = {"cfq_slice_idle": [0, 4, 8], "elevator": ["noop", "cfq"], "min_free_kbytes": [None, 1024]}


@pytest.fixture(scope="module")
def client():
    with connect(workers=2) as c:
        yield c


def same_bits(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert pd.util.hash_pandas_object(a).tolist() == pd.util.hash_pandas_object(b).tolist()


def test_cluster_gives_the_in_process_table_bit_for_bit_and_compiles_once_per_worker(client):
    g = product(MODEL, KNOBS, variants="all")
    here = run_sweep(g, workers=0, progress=False)
    there = run_sweep(g, client=client, progress=False, chunk=1)  # 24 tasks
    same_bits(here, there)
    # again: the worker that spent the first sweep compiling gets its share of tasks now
    same_bits(here, run_sweep(g, client=client, progress=False, chunk=1))

    st = worker_stats(client)
    st = st[st["model"] == "toy"]
    assert len(st) == 2 and st["runs"].sum() >= len(g)
    assert (st["tasks"] >= 2).all(), st  # both workers ran several tasks...
    # ...each compiled the toy's loop in its first task, and no later task compiled anything
    assert (st["compiles_first_task"] > 0).all(), st
    assert (st["compiles_later"] == 0).all(), st


def test_local_workers_keep_glibcs_malloc_thresholds_unless_the_environment_sets_them(client):
    # Dask's nanny would set MALLOC_TRIM_THRESHOLD_=65536, which fixes the mmap threshold and made runs slower
    seen = client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_"))
    assert len(seen) == 2 and set(seen.values()) == {MALLOC_TRIM}, seen


def test_chunks_and_a_resumed_file_give_the_same_table(client, tmp_path):
    g = product(MODEL, KNOBS, seeds=range(3))
    whole = run_sweep(g, workers=0, progress=False)
    same_bits(run_sweep(g, client=client, progress=False, chunk=5), whole)
    same_bits(run_sweep(g, client=client, progress=False), whole)  # runs per task chosen from their time
    out = tmp_path / "runs.parquet"
    run_sweep(product(MODEL, KNOBS, seeds=[0]), out, client=client, progress=False)  # a third of it
    same_bits(run_sweep(g, out, client=client, progress=False), whole)
    same_bits(read_sweep(out), whole.reset_index(drop=True))


def test_a_models_error_on_a_worker_arrives_as_itself_naming_the_run(client):
    g = product(MODEL, {"cfq_slice_idle": [0, 8]}, workload_kw={"requests": 0})
    with pytest.raises(WorkbookParameterError, match="requests=0: expected at least 1 request") as e:
        run_sweep(g, client=client, progress=False)
    assert "in sweep run 0" in "".join(e.value.__notes__)


def test_kwb_sweep_on_a_running_scheduler(client, tmp_path, monkeypatch, capsys):
    register(monkeypatch)
    out = tmp_path / "cli.parquet"
    addr = client.scheduler.address
    rc = cli.main(["sweep", "toy", "--knob", "cfq_slice_idle=0,4,8", "--knob", "elevator=noop,cfq",
                   "--knob", "min_free_kbytes=None,1024", "--seeds", "0-1", "--out", str(out),
                   "--scheduler", addr, "--no-progress"])
    assert rc == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert f"on {addr}" in err and f"-> {out}" in err
    same_bits(read_sweep(out), run_sweep(product(MODEL, KNOBS, seeds=[0, 1]), workers=0,
                                         progress=False).reset_index(drop=True))
    # the same through $DASK_SCHEDULER_ADDRESS, resumed: nothing left to run
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", addr)
    rc = cli.main(["sweep", "toy", "--knob", "cfq_slice_idle=0,4,8", "--knob", "elevator=noop,cfq",
                   "--knob", "min_free_kbytes=None,1024", "--seeds", "0-1", "--out", str(out), "--no-progress"])
    assert rc == 0 and "24 of 24 runs already in" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------- a real model
# A small grid per model: two knobs the model's thread argues about, two of its kernels.
REAL_GRIDS = {
    "cfq": dict(knobs={"cfq_slice_idle": [0, 8], "cfq_quantum": [4, 8]}, variants=["3.0", "3.1"]),
}


def first_real_model():
    """The first heuristic's model (cfq)."""
    return heuristic.model(heuristic.names()[0])


def real_grid(spec, seeds=range(2)):
    if spec.name in REAL_GRIDS:
        return product(spec, seeds=seeds, **REAL_GRIDS[spec.name])
    # a model without an entry above: its first two numeric knobs at their default and their slider's low end
    knobs = {}
    for name, k in spec.knobs().items():
        if k.kind in ("int", "float") and k.default is not None and k.slider()[0] != k.default:
            knobs[name] = [k.default, k.slider()[0]]
        if len(knobs) == 2:
            break
    return product(spec, knobs, variants=list(spec.variants)[:2] or None, seeds=seeds)


def test_a_real_model_on_the_cluster_equals_this_process_and_its_numba_cache_works_on_workers(client):
    spec = first_real_model()
    g = real_grid(spec)
    print(f"real model: {spec.name}, {g.describe()}")
    here = run_sweep(g, workers=0, progress=False)  # compiles (or loads the cache) in this process first
    there = run_sweep(g, client=client, progress=False, chunk=1)
    same_bits(here, there)
    assert list(here.columns[len(g.knobs) + 3:]) == list(spec.run(**_first(g)))  # outputs as the model names them
    st = worker_stats(client)
    st = st[st["model"] == spec.name]
    assert len(st) == 2 and st["runs"].sum() == len(g), st
    assert (st["compiles_later"] == 0).all(), st  # compiled (or loaded) once per worker, never per task
    # the cache written by this process (or by the first task) is what the workers load: at most one compiles
    assert (st["compiles_first_task"] > 0).sum() <= 1, st


def _first(g):
    r = g.runs[0]
    return dict(variant=r.variant, workload=r.workload, seed=r.seed, knobs=r.knob_dict())


def test_start_keeps_a_client_open_for_a_notebook(client):
    from kernel_workbook.sweep import start

    c = start(client.scheduler.address)
    try:
        g = product(MODEL, {"cfq_quantum": [2, 8]}, seeds=[0, 1])
        same_bits(run_sweep(g, client=c, progress=False), run_sweep(g, workers=0, progress=False))
    finally:
        c.close()
    assert client.status == "running"  # the cluster it connected to is not its to close
