"""``kwb sweep``: every option checked, one clear line and status 2 on bad input, runs in this process.

The toy model (tests/sweep_toy.py) is registered for these tests only; the same command on a Dask
cluster is tested in test_sweep_dask.py and test_sweep_cluster.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from kernel_workbook import cli
from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.sweep import connect, one_at_a_time, product, read_sweep, run_sweep, sample
from sweep_toy import MODEL, register


@pytest.fixture(autouse=True)
def toy(monkeypatch):
    register(monkeypatch)


def kwb(capsys, *args) -> tuple[int, str, str]:
    try:
        rc = cli.main(["sweep", *args])
    except SystemExit as e:  # argparse's own errors
        rc = e.code
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("args, words", [
    ([], "the following arguments are required: model"),
    (["nosuch", "--out", "x.parquet"], "model='nosuch': expected one of cfq"),
    (["toy", "--knob", "slice_idle=1,2", "--out", "x.parquet"],
     "--knob='slice_idle=1,2': expected NAME=v1,v2,... with NAME a knob of toy: cfq_slice_idle, cfq_quantum, "
     "nomerges, elevator, min_free_kbytes"),
    (["toy", "--knob", "cfq_slice_idle=1,200", "--out", "x.parquet"],
     "cfq_slice_idle=200.0: expected a number in 0..100 (ms); cfq_slice_idle, block/cfq-iosched.c "
     "cfq_arm_slice_timer()"),
    (["toy", "--knob", "cfq_quantum=two", "--out", "x.parquet"], "cfq_quantum='two': expected an integer"),
    (["toy", "--knob", "cfq_quantum", "--out", "x.parquet"], "cfq_quantum=v1,v2,..."),
    (["toy", "--knob", "cfq_quantum=", "--out", "x.parquet"], "cfq_quantum=v1,v2,..."),
    (["toy", "--knob", "cfq_quantum=1", "--knob", "cfq_quantum=2", "--out", "x.parquet"], "given twice"),
    (["toy", "--knob", "elevator=bfq", "--out", "x.parquet"], "one of 'noop', 'deadline', 'cfq'"),
    (["toy", "--seeds", "7-0", "--out", "x.parquet"], "seeds='7-0'"),
    (["toy", "--seeds", "x", "--out", "x.parquet"], "seeds as 0-7"),
    (["toy", "--workers", "-1", "--out", "x.parquet"], "--workers: expected a whole number from 0 to 4096, got -1"),
    (["toy", "--workers", "many", "--out", "x.parquet"], "--workers: expected a whole number from 0 to 4096"),
    (["toy", "--chunk", "0", "--out", "x.parquet"], "--chunk: expected a whole number from 1 to 1000000"),
    (["toy", "--scheduler", "localhost", "--out", "x.parquet"], "scheduler='localhost': expected a Dask scheduler "
                                                                "address such as tcp://host:8786"),
    (["toy", "--scheduler", "tcp://h:8786", "--workers", "2", "--out", "x.parquet"], "no --workers with --scheduler"),
    (["toy", "--sample", "3", "--one-at-a-time", "--knob", "cfq_quantum", "--out", "x.parquet"],
     "no --sample with --one-at-a-time"),
    (["toy", "--sample", "3", "--out", "x.parquet"], "at least one --knob"),
    (["toy", "--one-at-a-time", "--out", "x.parquet"], "at least one --knob"),
    (["toy", "--knob", "cfq_quantum=1"], "--out=None: expected a Parquet file for the runs"),
    (["toy", "--variant", "2.6", "--out", "x.parquet"], "variant='2.6': expected one of 3.0, 3.0-nomerges"),
    (["toy", "--workload", "random", "--out", "x.parquet"], "workload='random': expected one of steady, bursty"),
    (["toy", "--workload-kw", "size=3", "--out", "x.parquet"], "workload_kw='size': expected a parameter of "
                                                               "workload steady"),
    (["toy", "--workload-kw", "requests", "--out", "x.parquet"], "KEY=VALUE"),
    (["toy", "--engine", "gpu", "--out", "x.parquet"], "invalid choice: 'gpu'"),
    (["toy", "--out", "no/such/dir/x.parquet"], "existing directory"),
    (["toy", "--knob", "cfq_slice_idle=0", "--knob", "cfq_quantum=40", "--out", "x.parquet"],
     "cfq_quantum=40: expected <= 32 when cfq_slice_idle is 0"),
])
def test_bad_input_is_one_line_and_status_2(capsys, tmp_path, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    rc, out, err = kwb(capsys, *args, "--workers", "0") if "--workers" not in args and "--scheduler" not in args \
        and args else kwb(capsys, *args)
    assert rc == 2, err
    assert words in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not list(tmp_path.glob("*.parquet*"))


def test_a_file_that_is_not_a_sweep_is_refused(capsys, tmp_path):
    other = tmp_path / "table.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(other)
    rc, _, err = kwb(capsys, "toy", "--out", str(other), "--workers", "0")
    assert rc == 2 and "table.parquet: expected a Parquet file written by kwb sweep" in err
    assert len(err.strip().splitlines()) == 1


def test_the_installed_command_prints_no_traceback():
    kwb_bin = Path(sys.executable).with_name("kwb")
    p = subprocess.run([str(kwb_bin), "sweep", "nosuch", "--out", "x.parquet"], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.startswith("kwb: parameter model='nosuch'"), p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_an_unreachable_scheduler_says_so():
    with pytest.raises(WorkbookParameterError, match="scheduler='tcp://127.0.0.1:1': expected the address of a "
                                                     "running Dask scheduler; connecting failed"):
        with connect("tcp://127.0.0.1:1", timeout=1):
            pass


def test_list_shows_the_declaration(capsys):
    rc, out, _ = kwb(capsys, "toy", "--list")
    assert rc == 0
    assert "variants:  3.0, 3.0-nomerges  (default 3.0)" in out
    assert "cfq_slice_idle" in out and "a number in 0..100 (ms); cfq_slice_idle, block/cfq-iosched.c" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("cfq_slice_idle"))
    assert line.endswith("; on a running kernel: /sys/block/<dev>/queue/iosched/slice_idle")  # where to set it
    assert "on a running kernel" not in next(x for x in out.splitlines() if x.strip().startswith("cfq_quantum"))


def test_designs_from_the_command_line_equal_the_library(capsys, tmp_path):
    out = tmp_path / "grid.parquet"
    rc, _, err = kwb(capsys, "toy", "--knob", "cfq_slice_idle=0,8", "--knob", "nomerges=no,yes", "--variant", "all",
                     "--seeds", "0-2", "--out", str(out), "--workers", "0", "--no-progress")
    assert rc == 0, err
    assert "kwb sweep: 24 runs of toy (product: cfq_slice_idle, nomerges; 2 kernel(s)" in err
    want = run_sweep(product(MODEL, {"cfq_slice_idle": [0, 8], "nomerges": [False, True]}, variants="all",
                             seeds=range(3)), workers=0, progress=False)
    pd.testing.assert_frame_equal(read_sweep(out), want.reset_index(drop=True), check_exact=True)
    # the same command again: nothing to run
    rc, _, err = kwb(capsys, "toy", "--knob", "cfq_slice_idle=0,8", "--knob", "nomerges=no,yes", "--variant", "all",
                     "--seeds", "0-2", "--out", str(out), "--workers", "0", "--no-progress")
    assert rc == 0 and "24 of 24 runs already in" in err

    oat = tmp_path / "oat.parquet"
    rc, _, err = kwb(capsys, "toy", "--one-at-a-time", "--knob", "cfq_slice_idle=0,16", "--knob", "cfq_quantum=1,8",
                     "--workload", "all", "--workload-kw", "requests=100", "--out", str(oat), "--workers", "0",
                     "--no-progress")
    assert rc == 0, err
    want = one_at_a_time(MODEL, {"cfq_slice_idle": [0, 16], "cfq_quantum": [1, 8]}, workloads="all",
                         workload_kw={"requests": 100})
    assert read_sweep(oat)[["workload", "cfq_slice_idle", "cfq_quantum"]].equals(
        want.df()[["workload", "cfq_slice_idle", "cfq_quantum"]])
    assert read_sweep(oat).attrs["sweep"]["workload_kw"] == {"requests": 100}

    smp = tmp_path / "sample.parquet"
    rc, _, err = kwb(capsys, "toy", "--sample", "5", "--sample-seed", "3", "--knob", "cfq_slice_idle=1:2",
                     "--knob", "cfq_quantum", "--knob", "elevator=noop,cfq", "--out", str(smp), "--workers", "0",
                     "--no-progress")
    assert rc == 0, err
    want = sample(MODEL, {"cfq_slice_idle": (1.0, 2.0), "cfq_quantum": None, "elevator": ["noop", "cfq"]}, n=5,
                  sample_seed=3)
    got = read_sweep(smp)
    assert got[list(want.knobs)].equals(want.df()[list(want.knobs)])


def test_the_progress_bar_is_shown(capsys, tmp_path):
    rc, _, err = kwb(capsys, "toy", "--knob", "cfq_slice_idle=0,8", "--out", str(tmp_path / "p.parquet"),
                     "--workers", "0")
    assert rc == 0
    assert "toy: 100%" in err and "2/2" in err
