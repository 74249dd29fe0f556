"""Every reproduction at once: ``kwb reproduce --all`` as a user runs it (``make bench``, suite ``reproduce``).

Target (issue 16): ``WORKBOOK_MODE=ci kwb reproduce --all`` -- five threads, eight seed bases each, every
machine fitted from the code -- in 60 s or less on the 2-core machine the workbook is developed on.

What is timed: the command itself, in a fresh process, as a person types it, with no stored fits
(``KWB_FIT_CACHE=off``: a second run on the same code reads its fits back and takes about two thirds of
the time, reproduce/fit_cache.py) and its output thrown away.  Numba's on-disk cache is warm: the untimed
warm-up run of pyperf loads it.  One run lasts about a minute, so this suite has its own pyperf settings
(:data:`RUNNER_ARGS`): one process, one warm-up, three values of one loop each.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from kernel_workbook.bench import Bench

# one process, one warm-up run (Numba's cache, the OS's file cache), three timed runs: ~4 minutes in all.
# pyperf's own defaults (20 processes; --fast: 10) would take half an hour for a one-minute command.
RUNNER_ARGS = ["--processes", "1", "--warmups", "1", "--values", "3", "--loops", "1"]
TARGET_S = 60.0


def command() -> tuple[list[str], dict]:
    """The timed command and its environment: ``kwb reproduce --all`` at CI size, no stored fits."""
    env = dict(os.environ, WORKBOOK_MODE="ci", KWB_FIT_CACHE="off")
    return [sys.executable, "-m", "kernel_workbook.cli", "reproduce", "--all"], env


def _time_command(loops: int) -> float:
    cmd, env = command()
    total = 0.0
    for _ in range(loops):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        total += time.perf_counter() - t0
    return total


def benchmarks() -> list[Bench]:
    return [Bench(f"reproduce: kwb reproduce --all, CI size, 8 seed bases, no stored fits (target <= {TARGET_S:.0f} s)",
                  _time_command, 1.0, "runs", target_per_s=1.0 / TARGET_S)]
