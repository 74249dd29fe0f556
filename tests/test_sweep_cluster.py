"""A real cluster: `dask scheduler` and two `dask worker` processes on 127.0.0.1 give the local table bit for bit.

The processes are this test's own (new sessions, ports chosen by the OS, the scheduler's address read
from its --scheduler-file), and are stopped in a `finally`; as a second guard the workers exit if the
scheduler goes away (--death-timeout) and the scheduler exits when idle (--idle-timeout).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from kernel_workbook.sweep import connect, product, run_sweep, worker_stats
from sweep_toy import MODEL

TESTS = Path(__file__).resolve().parent
DASK = [sys.executable, "-m", "dask"]


def start(args: list[str], log: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen(DASK + args, stdout=log.open("w"), stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)


def stop(procs: list[subprocess.Popen]) -> None:
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        for p in procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + wait
        for p in procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        if all(p.poll() is not None for p in procs):
            return


def wait_for_file(path: Path, proc: subprocess.Popen, log: Path, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_size:
            try:
                return json.loads(path.read_text())
            except json.JSONDecodeError:  # being written
                pass
        assert proc.poll() is None, f"dask scheduler exited: {log.read_text()[-2000:]}"
        time.sleep(0.1)
    raise AssertionError(f"no scheduler file after {timeout} s: {log.read_text()[-2000:]}")


@contextmanager
def cluster(tmp_path: Path, n: int = 2, worker_env: dict | None = None):
    """A `dask scheduler` and ``n`` `dask worker` processes on 127.0.0.1: yields (address, worker processes).

    ``worker_env``: variables the workers are started with on top of this process's environment."""
    # the workers import the toy model from tests/, as a worker on another machine imports the installed package
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")])))
    env.pop("DASK_SCHEDULER_ADDRESS", None)
    wenv = dict(env, **(worker_env or {}))
    procs: list[subprocess.Popen] = []
    try:
        sched_file = tmp_path / "scheduler.json"
        procs.append(start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                            "--scheduler-file", str(sched_file), "--idle-timeout", "300"],
                           tmp_path / "scheduler.log", env))
        addr = wait_for_file(sched_file, procs[0], tmp_path / "scheduler.log")["address"]
        assert addr.startswith("tcp://127.0.0.1:")
        for i in range(n):
            procs.append(start(["worker", addr, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host",
                                "127.0.0.1", "--name", f"w{i}", "--local-directory", str(tmp_path / f"w{i}"),
                                "--death-timeout", "60"], tmp_path / f"worker{i}.log", wenv))
        yield addr, procs[1:]
    finally:
        stop(procs)
    assert all(p.poll() is not None for p in procs), "a dask process outlived the test"


def test_scheduler_and_two_workers_give_the_local_table_bit_for_bit(tmp_path):
    grid = product(MODEL, {"cfq_slice_idle": [0, 4, 8], "elevator": ["noop", "deadline", "cfq"]}, variants="all",
                   workloads="all", seeds=range(2))  # 72 runs
    with cluster(tmp_path) as (addr, workers):
        with connect(addr, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            there = run_sweep(grid, tmp_path / "cluster.parquet", client=client, progress=False, chunk=3)
            stats = worker_stats(client)
        # the two processes that did the work are the ones this test started
        assert sorted(stats["pid"]) == sorted(p.pid for p in workers), stats
        assert (stats["runs"] > 0).all() and stats["runs"].sum() == len(grid), stats

    here = run_sweep(grid, tmp_path / "local.parquet", workers=0, progress=False)
    pd.testing.assert_frame_equal(there, here, check_exact=True)
    assert pd.util.hash_pandas_object(there).tolist() == pd.util.hash_pandas_object(here).tolist()
    assert (tmp_path / "cluster.parquet").read_bytes() == (tmp_path / "local.parquet").read_bytes()


def test_kwb_reproduce_and_sweep_on_a_cluster_give_the_local_results_whatever_mode_the_workers_were_started_in(
        tmp_path):
    """kwb reproduce --scheduler: the calibration task and every seed base run on the cluster's workers, and the
    cells and the per-seed scores are those of local processes.  The workers were started in another mode
    (WORKBOOK_MODE sets problem sizes) and with the fit cache on: each task runs as this process would."""
    from kernel_workbook.config import mode
    from kernel_workbook.heuristic import model
    from kernel_workbook.reproduce import reproduce_many

    other = {"WORKBOOK_MODE": "lab" if mode().small else "ci", "KWB_FIT_CACHE": str(tmp_path / "fits")}
    threads, seeds = ["2011-cfq-deep-idle"], [0, 1, 2]  # the quickest reproduction
    # the 2007 load's default length is the mode's (10 s small, 30 s full)
    grid = product(model("writeback"), {"vm_dirty_ratio": [10, 40]})
    with cluster(tmp_path, worker_env=other) as (addr, workers):
        there = reproduce_many(threads, seeds=seeds, scheduler=addr)
        with connect(addr, timeout=60) as client:
            swept = run_sweep(grid, client=client, progress=False, chunk=1)
    assert not (tmp_path / "fits").exists()  # the fit cache is off here, so it was off there
    pd.testing.assert_frame_equal(swept, run_sweep(grid, workers=0, progress=False), check_exact=True)
    here = reproduce_many(threads, seeds=seeds, workers=2)
    for a, b in zip(there, here):
        assert a.cells == b.cells
        assert a.summary()["seeds"]["per_seed"] == b.summary()["seeds"]["per_seed"]
        assert sorted(a.seed_runs) == [1, 2]
