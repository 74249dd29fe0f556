"""aio-stress as the 2011 thread runs it.

Maxim Patlasov ran eight instances at once, each::

    aio-stress -a 4 -b 4 -c 1 -r 4 -O -o 0 -t 1 -d 1 -i 1 -s 16 f1_$I f2_$I f3_$I f4_$I

Read flag by flag (aio-stress.c):

* ``-o 0`` only stage 0, the (sequential) write stage; ``-s 16`` each file
  is 16 MB; ``-r 4`` 4 KiB records; ``-O`` O_DIRECT, so every write reaches
  the block layer as a synchronous request (``WRITE_ODIRECT`` carries
  ``REQ_SYNC``: CFQ puts it in the process's sync queue, where it can idle);
* ``-t 1`` one thread per instance, ``-c 1`` one io context per file;
* ``-d 1`` one pending request per file, ``-i 1`` one request per file
  before moving to the next, ``-b 4`` up to four iocbs per io_submit: each
  pass of the thread's loop submits one write for every file that has none
  in flight -- up to four in one ``io_submit`` -- then reaps completions;
* ``-a 4`` 4 KiB buffer alignment.

On the RAID the thread added ``usleep(1000)`` after each ``io_submit``
("models an app with non-zero think-time"): :func:`patlasov_2011` with
``usleep_us=1000``.  A ``usleep(1000)`` sleeps at least 1 ms, plus the
hrtimer slack (``timer_slack_ns``, 50 us by default) and the wake-up.

The files: 32 files of 16 MB, as a rerun finds them -- each contiguous,
one after another in creation order (f1_1, f2_1, ..., f4_8); the run shifts
each by a little (``start_jitter_sectors``).
"""

from __future__ import annotations

from ..errors import WorkbookParameterError
from .blockio import IOWorkload, Process, Stream

SECTOR = 512
MB = 1024 * 1024

COMMAND_LINE = "aio-stress -a 4 -b 4 -c 1 -r 4 -O -o 0 -t 1 -d 1 -i 1 -s 16 f1_$I f2_$I f3_$I f4_$I"


def patlasov_2011(instances: int = 8, files: int = 4, file_mb: float = 16.0, record_kb: int = 4, depth: int = 1,
                  usleep_us: float = 0.0, timer_slack_us: float = 50.0, wake_jitter_us: float = 40.0,
                  syscall_us: float = 8.0, syscall_jitter_us: float = 8.0, base_sector: int = 4 * 1024 * 1024,
                  t_max_s: float = 900.0) -> IOWorkload:
    """Eight aio-stress instances as in the 2011 thread (``usleep_us=1000`` for the RAID runs).

    Parameters
    ----------
    instances : int
        Concurrent aio-stress processes (8).
    files : int
        Files per instance (4: f1..f4).
    file_mb : float
        ``-s``: MB written per file (16; smaller for quick runs).
    record_kb, depth : int
        ``-r`` and ``-d``.
    usleep_us : float
        The thread's patch: sleep after each submission (0 or 1000).
    timer_slack_us, wake_jitter_us : float
        What a ``usleep`` adds: the hrtimer slack and a uniform wake-up delay.
    syscall_us, syscall_jitter_us : float
        CPU from reaping a completion to the next ``io_submit``.
    """
    if instances < 1 or instances > 64:
        raise WorkbookParameterError("instances", instances, "1..64")
    if files < 1 or files > 16:
        raise WorkbookParameterError("files", files, "1..16")
    if not file_mb > 0:
        raise WorkbookParameterError("file_mb", file_mb, "a positive size in MB")
    if usleep_us < 0:
        raise WorkbookParameterError("usleep_us", usleep_us, "a time >= 0")
    file_sectors = int(file_mb * MB) // SECTOR
    nreq = int(file_mb * 1024) // record_kb
    gap = 2048  # 1 MiB between files: block-group metadata, other files
    procs = []
    k = 0
    for i in range(instances):
        streams = []
        for f in range(files):
            start = base_sector + k * (file_sectors + gap)
            k += 1
            streams.append(Stream(start_sector=start, length_sectors=file_sectors, request_kb=record_kb,
                                  write=True, sync=True, random=False, depth=depth, total_requests=nreq,
                                  start_jitter_sectors=gap // 2))
        sleep = usleep_us + timer_slack_us if usleep_us > 0 else 0.0
        procs.append(Process(name=f"aio-stress-{i + 1}", streams=tuple(streams), think_us=syscall_us,
                             think_jitter_us=syscall_jitter_us, sleep_after_submit_us=sleep,
                             sleep_jitter_us=wake_jitter_us if usleep_us > 0 else 0.0))
    note = f", usleep({usleep_us:g}) after each io_submit" if usleep_us > 0 else ""
    return IOWorkload(
        name="aio-stress" + ("-usleep" if usleep_us > 0 else ""), phase="aio-stress", processes=tuple(procs),
        t_max_s=t_max_s,
        description=(f"{instances} x '{COMMAND_LINE}' ({files} files of {file_mb:g} MB, {record_kb} KiB O_DIRECT "
                     f"writes, depth {depth}){note}"),
        meta={"aggregate": "sum_of_threads", "instances": instances, "tool": "aio-stress", "usleep_us": usleep_us,
              "row": "aio-stress MB/s"},
    )
