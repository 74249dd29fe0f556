"""The parent of the command ``kwb record`` runs: it leaves nothing behind, even when the recorder is killed.

    python _supervise.py STATUS_FD -- COMMAND [ARGS...]

Run by path (standard library only, so it starts in milliseconds), in a
session of its own, with the recorder's "lifeline" pipe as standard input.  It
makes itself the subreaper of everything below it (``PR_SET_CHILD_SUBREAPER``:
a process the command detaches -- ``&``, ``setsid``, a double fork -- becomes
its child when its own parent ends, not init's), starts the command in a
process group of its own, and reports on ``STATUS_FD``, one JSON object a
line::

    {"started": PID, "time": EPOCH}          the command runs; PID is also its process group
    {"exited": STATUS, "time": EPOCH}        Popen's returncode (-N: killed by signal N)
    {"killed": [[PID, "name"], ...]}         what was left once the command ended, now killed
    {"error": "...", "exited": 127}          the command could not be started

The recorder signals the command's process group itself.  When the command
ends, everything left below the supervisor is sent SIGTERM, then SIGKILL
after two seconds.  When the lifeline closes first (the recorder died, by
SIGKILL too), the same happens at once, so a recorder killed outright leaves
no process of the command behind.  Linux only (``/proc``, ``prctl``).
"""

import json
import os
import select
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def _stat(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    name = s[s.find("(") + 1:s.rfind(")")]
    fields = s[s.rfind(")") + 2:].split()
    return name, int(fields[1]), int(fields[2])  # name, ppid, pgid


def _below(me, group):
    """Every process below ``me`` (by parent links) or in the process group ``group``: {pid: name}."""
    procs = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = _stat(d)
            if st:
                procs[int(d)] = st
    out = {}
    for pid, (name, ppid, pgid) in procs.items():
        if pid == me:
            continue
        if pgid == group:
            out[pid] = name
            continue
        seen, p = 0, ppid
        while p > 1 and seen < 4096:
            if p == me:
                out[pid] = name
                break
            p = procs[p][1] if p in procs else 0
            seen += 1
    return out


def _reap(watch=None):
    """Reap every child that ended (the command, or an orphan it left); the exit status of ``watch`` if it
    was among them, else None."""
    status = None
    while True:
        try:
            pid, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        if pid == 0:
            return status
        if pid == watch:
            status = os.waitstatus_to_exitcode(st)


def _kill_all(group, grace):
    """SIGTERM (then SIGKILL after ``grace`` seconds) to whatever is left; [[pid, name], ...] of those signalled."""
    me = os.getpid()
    killed = {}
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        if not grace and sig == signal.SIGTERM:
            continue
        left = _below(me, group)
        if not left:
            break
        for pid, name in left.items():
            killed.setdefault(pid, name)
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            _reap()
            if not _below(me, group):
                break
            time.sleep(0.05)
    _reap()
    return [[pid, name] for pid, name in sorted(killed.items())]


def main(argv):
    fd = int(argv[1])
    cmd = argv[3:] if argv[2:3] == ["--"] else argv[2:]
    out = os.fdopen(fd, "w", buffering=1)
    os.set_inheritable(fd, False)

    def say(**msg):
        try:
            out.write(json.dumps(msg) + "\n")
        except OSError:  # the recorder is gone: nobody to tell
            pass

    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for s in stops:
        signal.signal(s, signal.SIG_IGN)  # the recorder decides; a terminal's ^C is not for this process
    # woken by SIGCHLD (through a pipe) or by the lifeline: no polling, no CPU taken from the run measured
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *a: None)
    try:
        # its own process group, the stop signals back to their defaults (this process ignores them)
        pid = os.posix_spawnp(cmd[0], cmd, dict(os.environ), setpgroup=0, setsigdef=stops)
    except OSError as e:
        say(error=f"cannot run {cmd[0]!r}: {e.strerror or e}", exited=127, time=time.time())
        return 0
    say(started=pid, time=time.time())
    lifeline = sys.stdin.fileno()
    status = None
    while status is None:
        r, _, _ = select.select([lifeline, wake_r], [], [])
        if wake_r in r:
            os.read(wake_r, 4096)
        if lifeline in r and not os.read(lifeline, 4096):  # EOF: the recorder died
            _kill_all(pid, 0.0)
            return 0
        status = _reap(pid)
    say(exited=status, time=time.time())
    say(killed=_kill_all(pid, 2.0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
