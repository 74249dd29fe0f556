"""Numbers and addresses on the command line (issue 32): each out of range gives one line of error, at once.

Before, ``--seeds 99999999999999999999`` and ``--knob cfq_quantum=99999999999999999999`` ended in an
OverflowError traceback, ``--seeds 0-99999999999`` in a MemoryError, and a Dask scheduler address that
accepts connections and never answers hung ``kwb reproduce --scheduler`` and ``kwb sweep`` for minutes.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from kernel_workbook.cli import main

BIG = "99999999999999999999"


def _one_line_error(argv, capsys) -> str:
    try:
        rc = main(argv)
    except SystemExit as e:  # argparse's own exit
        rc = e.code
    err = capsys.readouterr().err
    assert rc == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("argv, says", [
    (["reproduce", "2007-throttle-vm-writeout", "--seeds", BIG], "--seeds"),
    (["reproduce", "2007-throttle-vm-writeout", "--seeds", "0"], "--seeds"),
    (["reproduce", "2007-throttle-vm-writeout", "--workers", BIG], "--workers"),
    (["sweep", "cfq", "--knob", "cfq_quantum=4", "--seeds", BIG, "--workers", "0"], "--seeds"),
    (["sweep", "cfq", "--knob", "cfq_quantum=4", "--seeds", "0-99999999999", "--workers", "0"], "--seeds"),
    (["sweep", "cfq", "--knob", "cfq_quantum=4", "--seeds", "0-200000", "--workers", "0"], "at most"),
    (["sweep", "cfq", "--knob", f"cfq_quantum={BIG}", "--workers", "0"], "cfq_quantum"),
    (["sweep", "cfq", "--knob", f"cfq_quantum=4,-{BIG}", "--workers", "0"], "cfq_quantum"),
    (["sweep", "cfq", "--knob", "cfq_quantum=4", "--workers", BIG], "--workers"),
    (["sweep", "cfq", "--knob", "cfq_quantum=4", "--sample", BIG], "--sample"),
    (["sweep", "cfq", "--knob", "cfq_quantum=4", "--chunk", BIG], "--chunk"),
    (["sweep", "cfq", "--knob", "cfq_quantum", "--sample", "2", "--sample-seed", BIG], "--sample-seed"),
    (["record", "--out", "x", "--interval", "1e999", "--", "true"], "--interval"),
    (["record", "--out", "x", "--interval", "nan", "--", "true"], "--interval"),
    (["grade", "subs", "--timeout", "1e999"], "--timeout"),
    (["grade", "subs", "--memory-mb", BIG], "--memory-mb"),
    (["grade", "subs", "--max-processes", "9" * 5000], "--max-processes"),
])
def test_a_number_out_of_range_is_one_line_of_error(argv, says, capsys, tmp_path):
    if argv[0] == "sweep":
        argv = argv + ["--out", str(tmp_path / "runs.parquet"), "--no-progress"]
    t0 = time.monotonic()
    line = _one_line_error(argv, capsys)
    assert says in line and time.monotonic() - t0 < 20, line
    assert not (tmp_path / "runs.parquet").exists()


@pytest.fixture
def silent_scheduler():
    """A TCP port on 127.0.0.1 that accepts every connection and never says a word."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    held = []
    stop = threading.Event()

    def accept():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    stop.set()
    t.join()
    for c in held:
        c.close()
    srv.close()


@pytest.mark.parametrize("argv", [
    ["reproduce", "2007-throttle-vm-writeout", "--seeds", "1"],
    ["sweep", "cfq", "--knob", "cfq_quantum=4", "--no-progress"],
])
def test_a_scheduler_that_never_answers_is_one_line_of_error_in_seconds(argv, silent_scheduler, tmp_path):
    pytest.importorskip("distributed")
    if argv[0] == "sweep":
        argv = argv + ["--out", str(tmp_path / "runs.parquet")]
    env = dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="2s")
    env.pop("DASK_SCHEDULER_ADDRESS", None)
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "kernel_workbook.cli", *argv, "--scheduler", silent_scheduler],
                       capture_output=True, text=True, env=env, timeout=60)
    took = time.monotonic() - t0
    assert r.returncode == 2, r.stderr[-2000:]
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("kwb sweep: ")]
    assert len(lines) == 1 and "did not answer in 2 s" in lines[0] and silent_scheduler in lines[0], r.stderr
    assert took < 30
