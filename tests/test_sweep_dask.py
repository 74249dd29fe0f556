"""The sweep engine on a Dask LocalCluster: the same table as in this process, Numba compiled once per worker.

One cluster of two worker processes serves every test of this file (starting one costs seconds).  Its
workers get a Numba cache directory of their own, empty at the start, so the test can tell a compile
from a load of Numba's on-disk cache.
"""

from __future__ import annotations

import os

import pandas as pd
import pytest

from kernel_workbook import cli
from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.models import spec as model_registry
from kernel_workbook.sweep import connect, product, read_sweep, run_sweep, worker_stats
from sweep_toy import MODEL

KNOBS = {"cfq_slice_idle": [0, 4, 8], "elevator": ["noop", "cfq"], "min_free_kbytes": [None, 1024]}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    cache = tmp_path_factory.mktemp("numba-cache")
    old = os.environ.get("NUMBA_CACHE_DIR")
    os.environ["NUMBA_CACHE_DIR"] = str(cache)  # the workers are spawned with it; this process keeps its own
    try:
        with connect(workers=2) as c:
            yield c
    finally:
        if old is None:
            os.environ.pop("NUMBA_CACHE_DIR", None)
        else:
            os.environ["NUMBA_CACHE_DIR"] = old


def same_bits(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert pd.util.hash_pandas_object(a).tolist() == pd.util.hash_pandas_object(b).tolist()


def test_cluster_gives_the_in_process_table_bit_for_bit_and_compiles_once_per_worker(client):
    g = product(MODEL, KNOBS, variants="all", seeds=range(2))
    here = run_sweep(g, workers=0, progress=False)
    there = run_sweep(g, client=client, progress=False, chunk=1)  # 48 tasks
    same_bits(here, there)

    st = worker_stats(client)
    assert len(st) == 2 and st["runs"].sum() >= len(g)
    assert (st["tasks"] >= 2).all(), st  # both workers ran several tasks...
    # ...and no worker compiled anything after its first task: later tasks call the compiled loop
    assert (st["numba_compiles"] == st["compiles_in_first_task"]).all(), st
    # one worker compiled (the first task runs alone); the other loaded Numba's on-disk cache it had written
    assert (st["numba_compiles"] > 0).sum() == 1, st


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
    monkeypatch.setitem(model_registry.MODELS, "toy", "sweep_toy:MODEL")
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
