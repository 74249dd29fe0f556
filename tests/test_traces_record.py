"""kwb record: monitors started and stopped cleanly on success, failure and SIGINT; missing tools skipped."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.traces import load
from kernel_workbook.traces.record import Recorder, record

KWB = [sys.executable, "-m", "kernel_workbook.cli"]
QUICK = ["proc-vmstat", "proc-buddyinfo", "vmstat"]


def test_record_writes_an_mmtests_like_bundle(tmp_path):
    out = tmp_path / "b"
    m = record(out, [sys.executable, "-c", "import time; time.sleep(1.2)"], interval=0.5, monitors=QUICK,
               name="sleepy")
    assert m["exit_status"] == 0 and m["interrupted"] is None and m["command"][0] == sys.executable
    assert {"machine", "kernel", "tools", "times", "monitors"} <= set(m)
    assert (out / "proc-vmstat-sleepy.gz").exists() and (out / "proc-vmstat-sleepy.start").exists()
    start = (out / "proc-vmstat-sleepy.start").read_text().split("\n")
    assert start[0].isdigit() and len(start[1].split()) == 2  # date +%s, then /proc/uptime
    b = load(out)
    pv = b.load("proc-vmstat")
    assert len(pv) >= 3 and pv["elapsed"].iloc[-1] > 1
    if m["monitors"]["vmstat"]["status"] == "ok":
        v = b.load("vmstat")
        assert "time" in v.columns  # the latency prefix


def test_failing_command_still_stops_the_monitors(tmp_path):
    r = subprocess.run(KWB + ["record", "--out", str(tmp_path / "f"), "--interval", "0.5", "--",
                              sys.executable, "-c", "raise SystemExit(3)"], capture_output=True, timeout=120)
    assert r.returncode == 3
    m = json.loads((tmp_path / "f" / "manifest.json").read_text())
    assert m["exit_status"] == 3
    assert "monitors:" in r.stderr.decode()


def test_missing_command_and_bad_arguments(tmp_path):
    m = record(tmp_path / "x", ["/nonexistent/command"], interval=0.2, monitors=["proc-vmstat"])
    assert m["exit_status"] == 127
    with pytest.raises(WorkbookParameterError):
        Recorder(tmp_path / "y", [], interval=1)
    with pytest.raises(WorkbookParameterError):
        Recorder(tmp_path / "y", "echo hi", interval=1)  # a shell string is refused
    with pytest.raises(WorkbookParameterError):
        record(tmp_path / "x", ["true"], monitors=["proc-vmstat"])  # it holds a bundle already


def test_missing_tools_are_skipped_with_a_message(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path / "empty-bin"))
    (tmp_path / "empty-bin").mkdir()
    r = subprocess.run(KWB + ["record", "--out", str(tmp_path / "m"), "--interval", "0.5", "--",
                              sys.executable, "-c", "pass"], capture_output=True, env=env, timeout=120)
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "monitor vmstat skipped: vmstat is not installed" in err
    assert "monitor iostat skipped: iostat is not installed" in err
    assert "monitor perf-stat skipped: perf is not installed" in err
    m = json.loads((tmp_path / "m" / "manifest.json").read_text())
    assert m["monitors"]["proc-vmstat"]["status"] == "ok"
    assert m["monitors"]["vmstat"]["status"].startswith("skipped")


def test_ctrl_c_stops_command_and_monitors_and_writes_the_manifest(tmp_path):
    out = tmp_path / "c"
    p = subprocess.Popen(KWB + ["record", "--out", str(out), "--interval", "0.5", "--",
                                sys.executable, "-c", "import time; time.sleep(60)"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while not (out / "proc-vmstat-python3.start").exists() and not list(out.glob("*.start")) \
            and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(1.5)
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    rc = p.wait(timeout=60)
    assert rc == 130
    assert time.time() - t0 < 30
    m = json.loads((out / "manifest.json").read_text())
    assert m["interrupted"] == "SIGINT"
    assert m["exit_status"] != 0  # the command got the SIGINT too
    # no monitor or command left behind: nothing still writes into the bundle
    sizes = {f.name: f.stat().st_size for f in out.iterdir()}
    time.sleep(1.2)
    assert sizes == {f.name: f.stat().st_size for f in out.iterdir()}
    assert load(out).load("proc-vmstat")["elapsed"].iloc[-1] > 0


def test_recorder_killed_takes_its_command_along_and_leaves_a_readable_interrupted_bundle(tmp_path):
    """SIGKILL of the recorder: the command and the monitors die too (PR_SET_PDEATHSIG); the manifest
    written at the start says the bundle is incomplete, and loading it warns so (issue 15)."""
    from kernel_workbook.traces import TruncatedTraceWarning

    out = tmp_path / "k"
    marker = tmp_path / "alive"
    child = (f"import time, pathlib\nfor i in range(600):\n    pathlib.Path({str(marker)!r}).write_text(str(i))\n"
             "    time.sleep(0.1)\n")
    p = subprocess.Popen(KWB + ["record", "--out", str(out), "--interval", "0.2", "--name", "k", "--",
                                sys.executable, "-c", child], stderr=subprocess.DEVNULL)
    for _ in range(600):
        if marker.exists() and (out / "manifest.json").exists():
            break
        time.sleep(0.1)
    time.sleep(1.0)
    p.kill()
    p.wait()
    time.sleep(0.5)
    seen = marker.read_text()
    time.sleep(0.6)
    assert marker.read_text() == seen, "the command outlived the recorder"
    m = json.loads((out / "manifest.json").read_text())
    assert m["complete"] is False
    assert not list(tmp_path.glob("kwb-record-*"))  # scratch space is in the bundle, hidden
    with pytest.warns(TruncatedTraceWarning, match="interrupted"):
        b = load(out)
    with pytest.warns(TruncatedTraceWarning):
        assert len(b.load("proc-vmstat")) >= 1


def test_manifest_states_each_monitors_real_interval_and_bad_names_are_refused(tmp_path):
    m = record(tmp_path / "i", [sys.executable, "-c", "pass"], interval=0.5, monitors=["proc-vmstat", "vmstat"])
    assert m["complete"] is True and m["monitors"]["proc-vmstat"]["interval"] == 0.5
    if m["monitors"]["vmstat"]["status"] == "ok":
        assert m["monitors"]["vmstat"]["interval"] == 1.0  # vmstat takes whole seconds
    with pytest.raises(WorkbookParameterError, match="--name"):
        Recorder(tmp_path / "n", ["true"], name="a/b")
    (tmp_path / "file").write_text("x")
    with pytest.raises(WorkbookParameterError, match="--out"):
        Recorder(tmp_path / "file", ["true"])
