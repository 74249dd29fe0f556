"""``kwb record``: run a command under the monitors and write an mmtests-like bundle.

    kwb record --out DIR [--interval S] [--perf-events E,...] [--perf-record] -- COMMAND [ARGS...]

Monitors, each skipped with a message when its tool is missing or not
permitted:

==================  =====================================================  ============================
file                what                                                   as mmtests
==================  =====================================================  ============================
``vmstat-N.gz``     ``vmstat -n S``, each line with the latency prefix      ``MONITORS_WITH_LATENCY``
``iostat-N.gz``     ``iostat -x -z S``, with the latency prefix             ``MONITORS_WITH_LATENCY``
``proc-vmstat-N.gz``  ``time: <epoch>`` then ``/proc/vmstat``, every S      ``watch-proc-vmstat.sh``
``proc-buddyinfo-N.gz`` the same for ``/proc/buddyinfo``                   ``watch-proc-buddyinfo.sh``
``perf-stat-N.gz``  ``perf stat -a -I S*1000 -e E,...``                     ``watch-perf-event-stat.sh``
``perf-script-N.gz`` ``perf record -g -a`` then ``perf script`` (``--perf-record``)
==================  =====================================================  ============================

Each log has a ``.start`` file (``date +%s`` then ``/proc/uptime``), and
``manifest.json`` records the machine, the kernel, the tools' versions, the
times, the command (an argument list: never a shell string) and its exit
status.  ``settings.txt`` holds the machine's sysctls (``/proc/sys/vm``, the
scheduler's and NUMA balancing's) and block-queue files as the command
started, a ``PATH = VALUE`` line each, so that a model can be run at the
settings the capture had (``models.tunables.with_tunables(params,
root=BUNDLE, dev="sda")``).

Nothing is lost, whatever happens:

* ``--out`` must be a new or empty folder (``--force`` records into a
  non-empty one), and a second recorder on the same folder is refused (an
  ``flock`` on ``.kwb-record.lock`` inside it);
* the command runs in a process group of its own under a small supervisor
  (``_supervise.py``): SIGINT, SIGTERM and SIGHUP to the recorder go to the
  command's whole group (a second SIGINT sends SIGTERM, a third SIGKILL);
  whatever the command leaves running when it ends -- a background job, a
  daemon in a session of its own -- is killed, and the recorder says which;
  when the recorder itself is killed, even by SIGKILL, the supervisor kills
  the command's processes at once;
* ``manifest.json`` is written as each fact becomes known (the start, the
  monitors, the command's start, the end), so a recorder killed outright
  leaves a manifest saying what ran, with ``"complete": false``;
* perf writes its output straight into the bundle (``perf-stat-NAME``,
  compressed at the end; ``perf-record-NAME.data`` until ``perf script`` has
  converted it), never into a scratch folder;
* on a full disk each monitor stops writing with a message and keeps the
  lines it wrote (a gzip log cut short still loads, with a warning); raw
  data is deleted only once its compressed copy is whole.
"""

from __future__ import annotations

import datetime as _dt
import errno
import fcntl
import gzip
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import WorkbookParameterError
from ..settings import FILE as SETTINGS
from ..settings import machine_settings

DEFAULT_PERF_EVENTS = ["task-clock", "context-switches", "cpu-migrations", "page-faults",
                       "kmem:mm_page_alloc", "vmscan:mm_vmscan_kswapd_wake",
                       "vmscan:mm_vmscan_direct_reclaim_begin", "migrate:mm_migrate_pages",
                       "compaction:mm_compaction_begin"]


def _say(msg: str) -> None:
    print(f"kwb record: {msg}", file=sys.stderr, flush=True)


def _start_file(path: Path) -> None:
    up = ""
    try:
        up = Path("/proc/uptime").read_text()
    except OSError:
        pass
    try:
        path.write_text(f"{int(time.time())}\n{up}")
    except OSError as e:  # a full disk: the log is still written; its times come from its own lines
        _say(f"{path.name}: not written ({e.strerror or e})")


def _close_quietly(f) -> None:
    """Close a gzip log; on a full disk its trailer may not fit: the lines already flushed stay readable."""
    if f is None:
        return
    try:
        f.close()
    except OSError:
        try:
            f.fileobj = None  # the member is cut short; closing the file under it is all that is left to do
            f.myfileobj.close()
        except (OSError, AttributeError):
            pass


@dataclass
class _Monitor:
    name: str
    path: Path
    status: str = "ok"
    proc: subprocess.Popen | None = None
    threads: list = field(default_factory=list)
    stop_signal: int = signal.SIGTERM
    raw: Path | None = None  # a file the tool writes itself, in the bundle, compressed (or converted) at the end
    stderr: object = None
    note: str = ""


class Recorder:
    def __init__(self, out, argv: list[str], interval: float = 1.0, perf_events: list[str] | None = None,
                 perf_record: bool = False, name: str | None = None, monitors: list[str] | None = None,
                 force: bool = False):
        if not argv:
            raise WorkbookParameterError("COMMAND", argv, "a command to run after --")
        if not isinstance(argv, (list, tuple)) or not all(isinstance(a, str) for a in argv):
            raise WorkbookParameterError("COMMAND", argv, "a list of arguments (never a shell string)")
        if not (0.05 <= float(interval) <= 3600):
            raise WorkbookParameterError("interval", interval, "seconds between 0.05 and 3600")
        self.out = Path(out)
        if self.out.exists() and not self.out.is_dir():
            raise WorkbookParameterError("--out", str(out), "a folder (new or empty), not a file")
        if name is not None and (not name or "/" in name or name in (".", "..") or "\x00" in name):
            raise WorkbookParameterError("--name", name, "a plain name without '/' (it goes in the log names)")
        self.argv = list(argv)
        self.interval = float(interval)
        self.perf_events = perf_events
        self.perf_record = perf_record
        self.name = name or Path(argv[0]).name or "run"
        self.want = monitors or ["vmstat", "iostat", "proc-vmstat", "proc-buddyinfo", "perf-stat"]
        if perf_record and "perf-script" not in self.want:
            self.want = self.want + ["perf-script"]
        self.mons: list[_Monitor] = []
        self.stop = threading.Event()
        self.tmp: Path | None = None  # made in start(), removed at the end of run() whatever happens
        self.interrupted = None
        self.force = force
        self.signals = 0  # stop signals received: the first is passed on, a second sends SIGTERM, a third SIGKILL
        self.cmd_pid: int | None = None  # the command's pid, which is also its process group
        self.passed_on = False  # a stop signal reached the command's group
        self.supervisor: subprocess.Popen | None = None
        self.left_behind: list = []  # [pid, name] of what the command left running, killed at its end
        self.lock = None
        self.times = {"start": None, "command_start": None, "command_end": None, "stop": None}
        self.rc = None

    # ------------------------------------------------------------ monitors
    def _log(self, mon: str) -> Path:
        return self.out / f"{mon}-{self.name}.gz"

    def _latency_reader(self, m: _Monitor, stream) -> None:
        """Copy a monitor's lines to gzip with mmtests' latency-output prefix.  On a write error (a full disk)
        the log keeps what it has, the monitor's status says why it stopped, and its output is drained."""
        start = last = time.time()
        f = None
        try:
            f = gzip.open(m.path, "wt")
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", "replace").replace("\r", "\n")
                now = time.time()
                f.write("%16.4f %8.4f %10.4f -- %s" % (now, now - start, now - last, line))
                if not line.endswith("\n"):
                    f.write("\n")
                last = now
                f.flush()
        except OSError as e:
            self._stopped(m, e)
            for _ in iter(stream.readline, b""):  # keep reading: a blocked pipe would stall the tool
                pass
        finally:
            _close_quietly(f)

    def _stopped(self, m: _Monitor, e: OSError) -> None:
        if m.status.startswith("ok"):
            m.status = f"stopped writing: {e.strerror or e} (the log keeps the lines written before)"
            _say(f"monitor {m.name} {m.status}")

    def _start_cmd(self, mon: str, cmd: list[str], latency: bool = True, stop_signal=signal.SIGTERM,
                   raw: Path | None = None) -> None:
        m = _Monitor(mon, self._log(mon), stop_signal=stop_signal, raw=raw)
        errf = open(self.tmp / f"{mon}.stderr", "w+b")
        m.stderr = errf
        try:
            m.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE if latency else subprocess.DEVNULL,
                                      stderr=errf, stdin=subprocess.DEVNULL, start_new_session=True,
                                      preexec_fn=_die_with_parent(signal.SIGKILL if latency else stop_signal))
        except OSError as e:
            m.status = f"skipped: {e}"
            _say(f"monitor {mon} skipped: {e}")
            self.mons.append(m)
            return
        _start_file(m.path.with_name(m.path.name[:-3] + ".start"))
        if latency:
            t = threading.Thread(target=self._latency_reader, args=(m, m.proc.stdout), daemon=True)
            t.start()
            m.threads.append(t)
        m.note = " ".join(cmd)
        self.mons.append(m)

    def _start_snapshots(self, mon: str, src: str) -> None:
        m = _Monitor(mon, self._log(mon))
        if not os.access(src, os.R_OK):
            m.status = f"skipped: {src} is not readable"
            _say(f"monitor {mon} skipped: {src} is not readable")
            self.mons.append(m)
            return

        def loop():
            f = None
            try:
                f = gzip.open(m.path, "wt")
                while True:
                    t0 = time.time()
                    try:
                        data = Path(src).read_text()
                    except OSError:
                        data = ""
                    f.write(f"time: {t0:.3f}\n{data}")
                    f.flush()
                    if self.stop.wait(max(0.0, self.interval - (time.time() - t0))):
                        t1 = time.time()  # a last snapshot at the end, as mmtests' tests-sysstate does
                        try:
                            data = Path(src).read_text()
                        except OSError:
                            break
                        f.write(f"time: {t1:.3f}\n{data}")
                        f.flush()
                        break
            except OSError as e:
                self._stopped(m, e)
            finally:
                _close_quietly(f)

        _start_file(m.path.with_name(m.path.name[:-3] + ".start"))
        t = threading.Thread(target=loop, daemon=True)
        t.start()
        m.threads.append(t)
        m.note = f"cat {src} every {self.interval:g}s"
        self.mons.append(m)

    def _perf_ok(self) -> str | None:
        perf = shutil.which("perf")
        if not perf:
            return "perf is not installed (apt-get install linux-perf)"
        try:
            r = subprocess.run([perf, "stat", "-e", "task-clock", "-x,", "--", "true"], capture_output=True,
                               timeout=30)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"perf does not run ({e})"
        if r.returncode != 0:
            err = r.stderr.decode(errors="replace").strip().splitlines()
            return "perf is not permitted here: " + (err[0] if err else f"exit {r.returncode}") + \
                " (see /proc/sys/kernel/perf_event_paranoid)"
        return None

    def _usable_events(self, events: list[str]) -> list[str]:
        ok = []
        for ev in events:
            try:
                r = subprocess.run(["perf", "stat", "-a", "-e", ev, "-x,", "--", "true"], capture_output=True,
                                   timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                continue
            err = r.stderr.decode(errors="replace")
            if r.returncode == 0 and "<not supported>" not in err and "<not counted>" not in err.split("\n")[0]:
                ok.append(ev)
            else:
                _say(f"perf event {ev} skipped: not supported or not permitted here")
        return ok

    def _claim(self) -> None:
        """Make --out, take its lock (a second recorder on the same folder is refused), and refuse a folder
        that holds anything but the lock, unless --force."""
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.out / ".kwb-record.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise WorkbookParameterError("--out", str(self.out), f"a folder that can be made ({e.strerror})") \
                from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise WorkbookParameterError("--out", str(self.out), "a folder no other kwb record is writing to "
                                         "(one holds its lock)") from None
        self.lock = fd
        there = sorted(p.name for p in self.out.iterdir() if p.name != ".kwb-record.lock")
        if there and not self.force:
            self._release()
            what = "it holds a bundle" if "manifest.json" in there else f"it holds {', '.join(there[:3])}" + \
                (f" and {len(there) - 3} more" if len(there) > 3 else "")
            raise WorkbookParameterError("--out", str(self.out), f"a new or empty folder ({what}; --force records "
                                         "into it anyway, replacing logs of the same names)")
        if there:
            _say(f"--force: recording into {self.out}, which holds {len(there)} entries already")

    def _release(self) -> None:
        if self.lock is not None:
            os.close(self.lock)  # the lock file stays: removing it would let two recorders hold two locks
            self.lock = None

    def start(self) -> None:
        self._claim()
        self.times["start"] = time.time()
        # scratch space inside the bundle (hidden, ignored by the loader): the monitors' stderr only; every
        # byte a monitor records goes to a visible file of the bundle
        self.tmp = Path(tempfile.mkdtemp(prefix=".kwb-record-", dir=self.out))
        iv = self.interval
        ivs = str(max(1, int(round(iv))))
        # what each monitor really samples at: vmstat and iostat take whole seconds only
        self.real_interval = {"vmstat": float(ivs), "iostat": float(ivs), "proc-vmstat": iv,
                              "proc-buddyinfo": iv, "perf-stat": int(iv * 1000) / 1000.0, "perf-script": None}
        if float(ivs) != iv and ({"vmstat", "iostat"} & set(self.want)):
            _say(f"vmstat and iostat sample every {ivs} s (they take whole seconds), not {iv:g} s")
        self._write_settings()
        self._write_manifest(complete=False)
        for mon in self.want:
            if mon == "vmstat":
                if shutil.which("vmstat"):
                    self._start_cmd("vmstat", ["vmstat", "-n", ivs])
                else:
                    self._skip("vmstat", "vmstat is not installed (procps)")
            elif mon == "iostat":
                if shutil.which("iostat"):
                    self._start_cmd("iostat", ["iostat", "-x", "-z", ivs])
                else:
                    self._skip("iostat", "iostat is not installed (apt-get install sysstat)")
            elif mon == "proc-vmstat":
                self._start_snapshots("proc-vmstat", "/proc/vmstat")
            elif mon == "proc-buddyinfo":
                self._start_snapshots("proc-buddyinfo", "/proc/buddyinfo")
            elif mon == "perf-stat":
                why = self._perf_ok()
                if why:
                    self._skip("perf-stat", why)
                    continue
                events = self._usable_events(self.perf_events or DEFAULT_PERF_EVENTS)
                if not events:
                    self._skip("perf-stat", "none of the perf events is supported here")
                    continue
                raw = self.out / f"perf-stat-{self.name}"  # plain text the loader reads, gzipped at the end
                self._start_cmd("perf-stat", ["perf", "stat", "-a", "-I", str(int(iv * 1000)), "-e",
                                              ",".join(events), "-o", str(raw)], latency=False,
                                stop_signal=signal.SIGINT, raw=raw)
            elif mon == "perf-script":
                why = self._perf_ok()
                if why:
                    self._skip("perf-script", why)
                    continue
                raw = self.out / f"perf-record-{self.name}.data"  # converted by perf script at the end
                self._start_cmd("perf-script", ["perf", "record", "-g", "-a", "-F", "499", "-o", str(raw)],
                                latency=False, stop_signal=signal.SIGINT, raw=raw)
            else:
                raise WorkbookParameterError("monitor", mon, "vmstat, iostat, proc-vmstat, proc-buddyinfo, "
                                             "perf-stat or perf-script")
        self._write_manifest(complete=False)  # which monitors run, which were skipped and why
        time.sleep(min(1.0, iv))  # let the monitors print their first line before the command starts

    def _skip(self, mon: str, why: str) -> None:
        _say(f"monitor {mon} skipped: {why}")
        self.mons.append(_Monitor(mon, self._log(mon), status=f"skipped: {why}"))

    def stop_monitors(self) -> None:
        self.stop.set()
        for m in self.mons:
            p = m.proc
            if p is None:
                continue
            if p.poll() is None:
                try:
                    p.send_signal(m.stop_signal)
                except ProcessLookupError:
                    pass
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                    m.status = "ok (killed after 15 s)"
            elif p.returncode not in (0, -m.stop_signal, 128 + m.stop_signal) and m.status == "ok":
                m.stderr.seek(0)
                err = m.stderr.read().decode(errors="replace").strip().splitlines()
                m.status = f"failed: exit {p.returncode}: {err[-1] if err else ''}"
                _say(f"monitor {m.name} {m.status}")
        for m in self.mons:
            for t in m.threads:
                t.join(timeout=15)
            if m.proc is not None and m.proc.stdout is not None:
                m.proc.stdout.close()
            if m.raw is not None and m.raw.exists():
                if m.name == "perf-script":
                    self._perf_script(m)
                else:
                    self._compress(m)
            elif m.raw is not None and m.status == "ok":
                m.status = "failed: the tool wrote nothing"
            if m.stderr is not None:
                m.stderr.close()

    def _compress(self, m: _Monitor) -> None:
        """raw -> its .gz log, through a hidden temporary file: the raw data goes only once the copy is whole."""
        tmp = self.out / f".{m.path.name}.tmp"
        try:
            with open(m.raw, "rb") as fi, gzip.open(tmp, "wb") as fo:
                shutil.copyfileobj(fi, fo)
            os.replace(tmp, m.path)
            m.raw.unlink()
        except OSError as e:
            tmp.unlink(missing_ok=True)
            m.status = f"ok, left uncompressed as {m.raw.name} ({e.strerror or e})"
            m.path = m.raw
            _say(f"monitor {m.name}: {m.status}")

    def _perf_script(self, m: _Monitor) -> None:
        """perf.data -> perf script text, gzipped; perf.data stays in the bundle unless that succeeded."""
        tmp = self.out / f".{m.path.name}.tmp"
        try:
            with gzip.open(tmp, "wb") as fo:
                p = subprocess.Popen(["perf", "script", "-i", str(m.raw)], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
                shutil.copyfileobj(p.stdout, fo)
                rc = p.wait()
            if rc != 0:
                raise OSError(f"perf script exited {rc}")
            os.replace(tmp, m.path)
            m.raw.unlink()
        except OSError as e:
            tmp.unlink(missing_ok=True)
            m.status = f"failed: perf script: {e}; {m.raw.name} kept (perf script -i {m.raw.name})"
            _say(f"monitor {m.name} {m.status}")

    # ------------------------------------------------------------ the command
    def _on_signal(self, sig, frame) -> None:
        """The command's whole process group gets the signal; a second stop sends SIGTERM, a third SIGKILL."""
        self.signals += 1
        self.interrupted = self.interrupted or signal.Signals(sig).name
        send = sig if self.signals == 1 else (signal.SIGTERM if self.signals == 2 else signal.SIGKILL)
        if self.cmd_pid is not None:
            try:
                os.killpg(self.cmd_pid, send)
                self.passed_on = True
                _say(f"{signal.Signals(sig).name}: {signal.Signals(send).name} sent to the command's process group"
                     + (" (again to send SIGTERM, then SIGKILL)" if self.signals < 3 else ""))
            except (ProcessLookupError, PermissionError):
                pass

    def _start_command(self) -> None:
        """The command under the supervisor (its own session; the command in a process group of its own).
        The supervisor's stdin is the recorder's lifeline: it closes when the recorder dies, however."""
        life_r, self._lifeline = os.pipe()
        status_r, status_w = os.pipe()
        os.set_inheritable(self._lifeline, False)
        self.supervisor = subprocess.Popen([sys.executable, "-S", str(Path(__file__).with_name("_supervise.py")),
                                            str(status_w), "--"] + self.argv,
                                           stdin=life_r, pass_fds=(status_w,), start_new_session=True)
        os.close(life_r)
        os.close(status_w)
        self._status = os.fdopen(status_r, "r")

    def _messages(self):
        for line in iter(self._status.readline, ""):
            try:
                yield json.loads(line)
            except ValueError:
                continue

    def run(self) -> int:
        old = {}
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            old[s] = signal.signal(s, self._on_signal)
        try:
            try:
                self.start()
            except BaseException:
                self._release()
                raise
            if self.interrupted:
                _say(f"{self.interrupted} before the command started; not running it")
            else:
                self._start_command()
                for msg in self._messages():
                    if "started" in msg:
                        self.cmd_pid = msg["started"]
                        self.times["command_start"] = msg["time"]
                        self._write_manifest(complete=False)  # the command runs: say so now
                        if self.interrupted and not self.passed_on:  # a signal came before the group existed
                            try:
                                os.killpg(self.cmd_pid, signal.Signals[self.interrupted])
                            except ProcessLookupError:
                                pass
                    if "error" in msg:
                        _say(msg["error"])
                    if "exited" in msg:
                        self.rc = msg["exited"]
                        self.times["command_end"] = msg["time"]
                        self.times["command_start"] = self.times["command_start"] or msg["time"]
                    if "killed" in msg:
                        self.left_behind = msg["killed"]
                        break
                self.cmd_pid = None
                self.supervisor.wait()
                os.close(self._lifeline)
                self._status.close()
                if self.left_behind:
                    names = ", ".join(f"{name} ({pid})" for pid, name in self.left_behind[:8])
                    _say(f"killed {len(self.left_behind)} process(es) the command left running: {names}"
                         + (" ..." if len(self.left_behind) > 8 else ""))
                if self.rc is None:
                    self.rc = 127
            time.sleep(min(1.0, self.interval))  # one more interval so the monitors see the end
        finally:
            try:
                self.stop_monitors()
            finally:
                for s, h in old.items():
                    signal.signal(s, h)
                if self.tmp is not None:
                    shutil.rmtree(self.tmp, ignore_errors=True)
        self.times["stop"] = time.time()
        try:
            self._write_manifest(complete=True)
        finally:
            self._release()
        rc = self.rc
        if self.interrupted:
            return 130
        return 0 if rc == 0 else (rc if rc and rc > 0 else 128 + (-rc if rc else 1))

    def _write_settings(self) -> None:
        """``settings.txt``, written whole or not at all (a full disk: the recorder says so and goes on)."""
        lines, unread = machine_settings()
        tmp = self.out / f".{SETTINGS}.tmp"
        try:
            tmp.write_text("".join(f"{ln}\n" for ln in lines), encoding="utf-8")
            os.replace(tmp, self.out / SETTINGS)
            self.settings = {"file": SETTINGS, "entries": len(lines), "unread": unread}
        except OSError as e:
            tmp.unlink(missing_ok=True)
            _say(f"{SETTINGS} not written ({e.strerror or e}); the machine's settings are not in the bundle")
            self.settings = {"file": None, "entries": 0, "unread": unread, "error": str(e.strerror or e)}

    def _write_manifest(self, complete: bool) -> None:
        """Written when the recorder starts (``complete: false``), again once the monitors and then the command
        have started, and at the end: a bundle whose recorder was killed still says what it holds, and that it
        was cut short.  On a full disk the last manifest that could be written stays, and the recorder says so."""
        t = self.times
        self.manifest = self._manifest(t["start"], t["command_start"], t["command_end"], t["stop"], self.rc)
        self.manifest["complete"] = complete
        tmp = self.out / ".manifest.json.tmp"
        try:
            tmp.write_text(json.dumps(self.manifest, indent=1) + "\n")
            os.replace(tmp, self.out / "manifest.json")
        except OSError as e:
            tmp.unlink(missing_ok=True)
            _say(f"manifest.json not updated ({e.strerror or e}); the one written before stays")

    def _manifest(self, t0, t_cmd, t_end, t_stop, rc) -> dict:
        def iso(t):
            return None if t is None else _dt.datetime.fromtimestamp(t, _dt.timezone.utc).isoformat(
                timespec="seconds")

        mem = None
        try:
            for ln in Path("/proc/meminfo").read_text().splitlines():
                if ln.startswith("MemTotal:"):
                    mem = int(ln.split()[1])
        except OSError:
            pass
        u = platform.uname()
        return {
            "name": self.name,
            "command": self.argv,
            "cwd": os.getcwd(),
            "exit_status": rc,
            "interrupted": self.interrupted,
            "left_running": [{"pid": pid, "name": name} for pid, name in self.left_behind],
            "interval": self.interval,
            "times": {"start": iso(t0), "command_start": iso(t_cmd), "command_end": iso(t_end),
                      "stop": iso(t_stop),
                      "command_seconds": None if t_end is None or t_cmd is None else round(t_end - t_cmd, 3)},
            "machine": {"hostname": socket.gethostname(), "cpus": os.cpu_count(), "memory_kB": mem,
                        "arch": u.machine, "virtualised": _virt()},
            "kernel": {"release": u.release, "version": u.version},
            "tools": tool_versions(),
            "monitors": {m.name: {"status": m.status, "file": m.path.name if m.status.startswith(("ok", "stopped"))
                                  else None, "raw": m.raw.name if m.raw is not None else None, "how": m.note,
                                  "interval": getattr(self, "real_interval", {}).get(m.name, self.interval)}
                         for m in self.mons},
            "settings": getattr(self, "settings", None),
            "perf_events": self.perf_events or DEFAULT_PERF_EVENTS,
            "recorder": "kwb record (kernel_workbook.traces.record)",
        }


def _die_with_parent(sig: int):
    """A preexec_fn asking the kernel to send *sig* to the child when the recorder dies (even by SIGKILL):
    prctl(PR_SET_PDEATHSIG), Linux only; elsewhere a no-op."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec():
        prctl(1, int(sig), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        if os.getppid() != parent:  # the recorder died before the prctl took effect
            os.kill(os.getpid(), int(sig))

    return preexec


def _read(p: str) -> str | None:
    try:
        return Path(p).read_text().strip()
    except OSError:
        return None


def _virt() -> str | None:
    try:
        r = subprocess.run(["systemd-detect-virt"], capture_output=True, timeout=5)
        return r.stdout.decode().strip() or None
    except (OSError, subprocess.TimeoutExpired):
        cpu = _read("/proc/cpuinfo") or ""
        return "yes (hypervisor flag)" if " hypervisor" in cpu else None


def tool_versions() -> dict:
    """Versions of the monitoring tools found on this machine (None when missing)."""
    out = {"python": platform.python_version()}
    for tool, args in (("vmstat", ["-V"]), ("iostat", ["-V"]), ("perf", ["--version"]), ("fio", ["--version"])):
        if not shutil.which(tool):
            out[tool] = None
            continue
        try:
            r = subprocess.run([tool] + args, capture_output=True, timeout=10)
            txt = (r.stdout + r.stderr).decode(errors="replace").strip().splitlines()
            out[tool] = txt[0] if txt else None
        except (OSError, subprocess.TimeoutExpired):
            out[tool] = None
    return out


def record(out, argv: list[str], interval: float = 1.0, perf_events: list[str] | None = None,
           perf_record: bool = False, name: str | None = None, monitors: list[str] | None = None,
           force: bool = False) -> dict:
    """Run *argv* under the monitors; write the bundle to *out*; return the manifest."""
    r = Recorder(out, argv, interval, perf_events, perf_record, name, monitors, force)
    r.run()
    return r.manifest
