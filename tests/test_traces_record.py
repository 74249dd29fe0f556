"""kwb record: monitors started and stopped cleanly on success, failure and SIGINT; missing tools skipped."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.traces import load
from kernel_workbook.traces.record import Recorder, record
from running import running, stop

KWB = [sys.executable, "-m", "kernel_workbook.cli"]
QUICK = ["proc-vmstat", "proc-buddyinfo", "vmstat"]
# no vmstat, iostat or perf on the PATH: the /proc monitors only, and a fast start
QUIET_ENV = dict(os.environ, PATH="/nonexistent")


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
    """SIGKILL of the recorder: the command and everything it started die too (the supervisor sees its
    lifeline close), the monitors too (PR_SET_PDEATHSIG); the manifest already says when the command started
    and which monitors ran, that the bundle is incomplete, and loading it warns so (issues 15, 32)."""
    from kernel_workbook.traces import TruncatedTraceWarning

    out = tmp_path / "k"
    marker = tmp_path / "alive"
    child = (f"import time, pathlib\nfor i in range(600):\n    pathlib.Path({str(marker)!r}).write_text(str(i))\n"
             "    time.sleep(0.1)\n")
    # the marker is written by a grandchild, in the background of a shell that then waits
    script = f"{sys.executable} -c \"$0\" & /bin/sleep 600"
    p = subprocess.Popen(KWB + ["record", "--out", str(out), "--interval", "0.2", "--name", "k", "--",
                                "/bin/sh", "-c", script, child], stderr=subprocess.DEVNULL, env=QUIET_ENV)
    try:
        for _ in range(600):
            if marker.exists() and (out / "manifest.json").exists():
                break
            time.sleep(0.1)
        time.sleep(1.0)
    finally:
        p.kill()
        p.wait()
    time.sleep(1.0)
    seen = marker.read_text()
    time.sleep(0.6)
    assert marker.read_text() == seen, "the command's background process outlived the recorder"
    m = json.loads((out / "manifest.json").read_text())
    assert m["complete"] is False
    assert m["times"]["command_start"] is not None and m["monitors"]["proc-vmstat"]["status"] == "ok"
    assert not list(tmp_path.glob("kwb-record-*"))  # scratch space is in the bundle, hidden
    with pytest.warns(TruncatedTraceWarning, match="cut short"):
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


# ---- a recorder that loses nothing (issue 32)

def _wait_for_command(out: Path, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if json.loads((out / "manifest.json").read_text())["times"]["command_start"]:
                return
        except (OSError, ValueError, KeyError):
            pass
        if list(out.glob("*.start")) and not (out / ".kwb-record.lock").exists():  # a recorder of before
            time.sleep(1.5)
            return
        time.sleep(0.1)


def test_a_non_empty_out_is_refused_unless_forced(tmp_path):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(WorkbookParameterError, match="new or empty folder.*notes.txt.*--force"):
        record(out, [sys.executable, "-c", "pass"], interval=0.2, monitors=["proc-vmstat"])
    assert (out / "notes.txt").read_text() == "mine" and not list(out.glob("*.gz"))
    m = record(out, [sys.executable, "-c", "pass"], interval=0.2, monitors=["proc-vmstat"], force=True)
    assert m["complete"] and (out / "notes.txt").read_text() == "mine" and list(out.glob("proc-vmstat-*.gz"))


def test_a_second_recorder_on_the_same_folder_is_refused(tmp_path):
    out = tmp_path / "twice"
    go = tmp_path / "go"  # the first recorder's command runs until the second has been refused, however slow
    # the machine is (a fixed sleep let the first finish before a loaded machine had started the second)
    first = subprocess.Popen(KWB + ["record", "--out", str(out), "--interval", "0.2", "--", sys.executable, "-c",
                                    f"import os, time\nt = time.time()\nwhile not os.path.exists({str(go)!r}) "
                                    "and time.time() - t < 120:\n    time.sleep(0.05)"],
                             stderr=subprocess.PIPE, env=QUIET_ENV)
    try:
        _wait_for_command(out)
        second = subprocess.run(KWB + ["record", "--force", "--out", str(out), "--interval", "0.2", "--",
                                       sys.executable, "-c", "pass"], capture_output=True, text=True, env=QUIET_ENV,
                                timeout=120)
        go.touch()
        assert second.returncode == 2 and "no other kwb record is writing to" in second.stderr, second.stderr
        assert first.wait(timeout=120) == 0
    finally:
        go.touch()
        stop([first.pid])
        first.wait()
    b = load(out)  # the first recording whole: every log a readable gzip
    assert all(len(b.load(mon)) for mon in b.monitors())


@pytest.mark.parametrize("sig, n", [(signal.SIGINT, 1), (signal.SIGTERM, 2), (signal.SIGHUP, 3)])
def test_a_stop_signal_reaches_the_commands_whole_group_and_what_is_left_is_killed(tmp_path, sig, n):
    """`sh -c 'sleep A & sleep B'`: SIGINT to the shell alone left both sleeps running (a background job
    ignores SIGINT, and the shell waits for B).  Now the group gets it, and A is killed at the end."""
    a, b = f"88{os.getpid()}{n}1", f"88{os.getpid()}{n}2"  # this test's own: a concurrent run has others
    out = tmp_path / "sig"
    # stderr to a file: a sleep left running would hold a pipe open, and reading it would wait for days
    errf = open(tmp_path / "stderr", "w")
    p = subprocess.Popen(KWB + ["record", "--out", str(out), "--interval", "0.2", "--", "/bin/sh", "-c",
                                f"/bin/sleep {a} & /bin/sleep {b}"], stderr=errf, text=True, env=QUIET_ENV)
    try:
        _wait_for_command(out)
        deadline = time.time() + 60  # both sleeps running (not a shell still forking) before the signal
        while not (running(f"sleep\0{a}") and running(f"sleep\0{b}")) and time.time() < deadline:
            time.sleep(0.05)
        p.send_signal(sig)
        rc = p.wait(timeout=30)
        err = (tmp_path / "stderr").read_text()
        left = running(f"sleep\0{a}") + running(f"sleep\0{b}")  # a sleep's own command line, not the shell's
    finally:
        stop([p.pid] + running(f"sleep\0{a}") + running(f"sleep\0{b}"))
        p.wait()
        errf.close()
    assert rc == 130 and left == [], err
    m = json.loads((out / "manifest.json").read_text())
    assert m["interrupted"] == sig.name and m["complete"]
    if sig == signal.SIGINT:  # sh's background job ignores SIGINT: it is what was left, and said to be
        assert "killed 1 process(es) the command left running: sleep" in err
        assert [x["name"] for x in m["left_running"]] == ["sleep"]


def test_what_the_command_leaves_running_when_it_ends_is_killed_and_said(tmp_path):
    out = tmp_path / "left"
    # sh exits once its child is sleep (not a shell still forking), so what is left has a known name
    n = f"88{os.getpid()}5"  # this test's own: a concurrent run has others
    cmd = f"/bin/sleep {n} & until [ \"$(/bin/cat /proc/$!/comm)\" = sleep ]; do /bin/sleep 0.05; done; exit 3"
    with open(tmp_path / "stderr", "w") as errf:  # a file: a sleep left running would hold a pipe open for days
        rc = subprocess.run(KWB + ["record", "--out", str(out), "--interval", "0.2", "--", "/bin/sh", "-c", cmd],
                            stderr=errf, env=QUIET_ENV, timeout=60).returncode
    err = (tmp_path / "stderr").read_text()
    left = running(f"sleep\0{n}")  # the sleep's own command line, not the shell's
    stop(left)
    assert rc == 3 and left == [], err
    assert "killed 1 process(es) the command left running: sleep" in err


def test_perf_writes_into_the_bundle_and_a_killed_recorder_keeps_it(tmp_path):
    why = Recorder(tmp_path / "probe", ["true"])._perf_ok()
    if why:
        pytest.skip(f"perf stat cannot run here: {why}")
    out = tmp_path / "perf"
    p = subprocess.Popen(KWB + ["record", "--out", str(out), "--interval", "0.2", "--perf-events", "task-clock",
                                "--name", "p", "--", sys.executable, "-c", "import time; time.sleep(60)"],
                         stderr=subprocess.DEVNULL)
    try:
        _wait_for_command(out)
        time.sleep(1.5)
    finally:
        p.kill()
        p.wait()
    time.sleep(0.5)  # perf gets SIGINT from the kernel (PR_SET_PDEATHSIG) and finishes its file
    assert (out / "perf-stat-p").exists(), sorted(x.name for x in out.iterdir())
    from kernel_workbook.traces import TruncatedTraceWarning

    with pytest.warns(TruncatedTraceWarning, match="cut short"):
        b = load(out)
    assert len(b.load("perf-stat")) >= 2


def _tmpfs_problem() -> str | None:
    import shutil as sh

    if not sh.which("bwrap"):
        return "the full-disk test mounts a small tmpfs with bubblewrap, which is not installed"
    r = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--size", "65536", "--tmpfs", "/tmp", "true"],
                       capture_output=True)
    return None if r.returncode == 0 else f"bubblewrap cannot mount a tmpfs here: {r.stderr.decode()[:200]}"


FULL_DISK = """
import json, os, subprocess, sys, warnings
out = sys.argv[1] + "/b"
filler = ("import time\\nf = open(%r, 'wb')\\ntry:\\n    while True:\\n        f.write(b'x' * 4096); f.flush()\\n"
          "except OSError:\\n    pass\\ntime.sleep(3)\\n") % (sys.argv[1] + "/filler")
r = subprocess.run([sys.executable, "-m", "kernel_workbook.cli", "record", "--out", out, "--interval", "0.2",
                    "--", sys.executable, "-c", filler], capture_output=True, text=True)
from kernel_workbook.traces import load
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    b = load(out)
    rows = {m: len(b.load(m)) for m in b.monitors()}
print(json.dumps({"rc": r.returncode, "stderr": r.stderr, "rows": rows, "warnings": [str(x.message) for x in w],
                  "manifest": json.load(open(out + "/manifest.json"))}))
"""


def test_a_full_disk_leaves_a_bundle_that_loads_with_a_warning(tmp_path):
    why = _tmpfs_problem()
    if why:
        pytest.skip(why)
    disk = tmp_path / "disk"
    disk.mkdir()
    script = tmp_path / "full.py"
    script.write_text(FULL_DISK)
    # a 512 KiB tmpfs of its own, which the command fills
    import shutil as sh

    r = subprocess.run([sh.which("bwrap"), "--dev-bind", "/", "/", "--size", str(512 << 10), "--tmpfs", str(disk), "--",
                        sys.executable, str(script), str(disk)], capture_output=True, text=True, timeout=120,
                       env=QUIET_ENV)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout)
    assert "Traceback" not in got["stderr"], got["stderr"]
    assert got["rc"] == 0  # the command's own status: it filled the disk and carried on
    assert "No space left on device" in got["stderr"]
    assert got["rows"].get("proc-vmstat", 0) >= 1 and got["rows"].get("proc-buddyinfo", 0) >= 1
    assert got["manifest"]["times"]["command_start"] is not None
    assert any("cut short" in w for w in got["warnings"])


def test_a_monitor_whose_disk_is_full_stops_writing_and_says_so(tmp_path):
    """/dev/full answers every write with ENOSPC: each writer keeps what it has and says why it stopped (before,
    the exception ended its thread with a traceback on the terminal and the monitor still said "ok")."""
    import io

    from kernel_workbook.traces.record import _Monitor

    out = tmp_path / "full"
    out.mkdir()
    r = Recorder(out, ["true"], interval=0.05, name="t")
    for mon in ("vmstat", "proc-vmstat"):  # each log a link to /dev/full
        (out / f"{mon}-t.gz").symlink_to("/dev/full")
    m = _Monitor("vmstat", out / "vmstat-t.gz")
    r._latency_reader(m, io.BytesIO(b"procs -----memory-----\n" + b" 1  0 0 100 0 0\n" * 2000))
    assert m.status.startswith("stopped writing: No space left on device")
    r.stop.set()
    r._start_snapshots("proc-vmstat", "/proc/vmstat")
    snap = r.mons[-1]
    snap.threads[0].join(timeout=30)
    assert snap.status.startswith("stopped writing: No space left on device")


def test_perf_output_stays_whole_when_its_compressed_copy_cannot_be_written(tmp_path):
    """perf's output is compressed at the end; before, it was written in a hidden scratch folder and a full
    disk at that moment left a 0-byte perf log with the raw data deleted.  Now the raw file is in the bundle,
    removed only once its compressed copy is whole: here the copy fails (/dev/full) and the raw file stays,
    every byte, loadable, and the manifest says so."""
    from kernel_workbook.traces.record import _Monitor

    text = (Path(__file__).parent / "fixtures" / "real-captures" / "perf-stat-6.1-I-A.txt").read_text()
    out = tmp_path / "b"
    r = Recorder(out, ["true"], interval=1, name="t", monitors=["proc-vmstat"])
    r._claim()
    raw = out / "perf-stat-t"
    raw.write_text(text)
    (out / ".perf-stat-t.gz.tmp").symlink_to("/dev/full")  # where the compressed copy goes first
    m = _Monitor("perf-stat", out / "perf-stat-t.gz", raw=raw)
    r.mons.append(m)
    r._compress(m)
    assert raw.read_text() == text and not (out / "perf-stat-t.gz").exists()
    assert m.status.startswith("ok, left uncompressed as perf-stat-t (No space left on device")
    r._write_manifest(complete=True)
    r._release()
    mf = json.loads((out / "manifest.json").read_text())["monitors"]["perf-stat"]
    assert mf["file"] == "perf-stat-t" and mf["status"].startswith("ok, left uncompressed")
    assert len(load(out).load("perf-stat")) > 0


def test_the_bundle_keeps_the_machine_s_settings_as_the_command_started(tmp_path):
    """settings.txt: the sysctls and block-queue files, one PATH = VALUE line each, said in the manifest; a model
    reads them back as it reads the machine (models.tunables)."""
    from kernel_workbook.models.compaction import params_for
    from kernel_workbook.models.tunables import df_tunables

    out = tmp_path / "b"
    m = record(out, [sys.executable, "-c", "pass"], interval=0.5, monitors=["proc-vmstat"], name="s")
    text = (out / "settings.txt").read_text()
    assert m["settings"]["file"] == "settings.txt" and m["settings"]["entries"] == len(text.splitlines()) > 0
    assert f"/proc/sys/vm/swappiness = {Path('/proc/sys/vm/swappiness').read_text().strip()}" in text.splitlines()
    p = params_for("contended-v5")
    read = df_tunables(p, out).set_index("knob")
    live = df_tunables(p).set_index("knob")
    have = live["status"].isin(["same", "differs"])
    assert have.any() and (read.loc[have, "machine"] == live.loc[have, "machine"]).all()
    r = subprocess.run(KWB + ["record", "--out", str(tmp_path / "c"), "--", sys.executable, "-c", "pass"],
                       capture_output=True, text=True, timeout=120, env=QUIET_ENV)
    assert r.returncode == 0 and re.search(r"; settings: \d+ files in settings.txt", r.stderr), r.stderr
