"""Processes a test started, found by a marker in their command line, and stopped by their id."""

from __future__ import annotations

import os
import signal
from pathlib import Path


def running(marker: str) -> list[int]:
    """The pids whose command line holds ``marker``."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if marker.encode() in (d / "cmdline").read_bytes():
                    pids.append(int(d.name))
            except OSError:
                pass
    return pids


def stop(pids) -> None:
    """SIGKILL each of ``pids`` (processes the test started, which what it tests failed to stop)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
