"""aio-stress as the 2011 thread runs it.

Maxim Patlasov ran eight instances at once, each::

    aio-stress -a 4 -b 4 -c 1 -r 4 -O -o 0 -t 1 -d 1 -i 1 -s 16 f1_$I f2_$I f3_$I f4_$I

Read flag by flag in aio-stress.c (Chris Mason's, version 0.21, as the LTP
and xfstests carry it; the thread's ``usleep`` patch is against its line
884, in ``run_active_list()``):

* ``-o 0`` only stage 0, the sequential write stage (``WRITE``); ``-s 16``
  each file is 16 MB, so 4096 iocbs per file; ``-r 4`` 4 KiB records;
* ``-O`` ``O_DIRECT``: every write reaches the block layer as it is
  submitted, a synchronous request (``WRITE_ODIRECT`` carries ``REQ_SYNC``
  and no ``REQ_NOIDLE``: CFQ puts it in the process's sync queue, where it
  can idle); ``-a 4`` aligns the buffers to 4 KiB, as O_DIRECT needs;
* ``-t 1`` one thread per instance, so one io context and one CFQ queue per
  instance; ``-c 1`` one "context" per file (a context is a byte range of
  the file, ``-C`` apart; one means the whole file);
* ``-d 1``: ``setup_ious()`` gives the thread ``files * depth`` = 4 io
  units, one free list for all four files -- the depth is *not* enforced
  per file;
* ``-i 1``: ``run_active_list()`` builds one iocb for a file, moves to the
  next file, and stops once one more file would pass ``-b 4`` iocbs: a
  round is one write to each of f1..f4 (the next 4 KiB of each), given to
  *one* ``io_submit()`` (plugged: the four requests reach the elevator
  together, so CFQ sees its queue four deep, and four requests 16 MB apart,
  a seeky queue);
* building an iocb takes a free io unit, and ``find_iou()`` blocks in
  ``io_getevents(min_nr=1)`` while there is none.  With 4 units and rounds
  of 4, a round is submitted only when *all four* writes of the previous
  round have completed: each instance alternates a burst of four writes in
  flight and none.

The 2011 patch adds ``usleep(1000)`` right after ``run_built()`` (on the
RAID: "models an app with non-zero think-time"): :func:`patlasov_2011` with
``usleep_us=1000``.  The thread then sleeps at least 1 ms (plus the hrtimer
slack, ``timer_slack_ns`` = 50 us by default, and the wake-up) before it
even looks for completions, so each round is at least ~1.05 ms apart
whatever the device does.

The files: 32 files of 16 MB, as a rerun finds them -- aio-stress opens
them without ``O_TRUNC``, so a rerun overwrites allocated blocks inside
``i_size`` (on a first run the writes extend the files, and the kernel
completes an extending O_DIRECT write synchronously inside ``io_submit``;
the thread's numbers are read as reruns) -- each contiguous, one after
another in creation order (f1_1, f2_1, ..., f4_8); the run shifts each by
a little (``start_jitter_sectors``).  Not modelled: the ``fsync()`` of each
file after the stage (on an O_DIRECT file it commits the inode's mtime; with
barriers it also flushes the drive's cache).
"""

from __future__ import annotations

from ...errors import WorkbookParameterError
from ...models.cfq.workload import IOWorkload, Process, Stream

SECTOR = 512
MB = 1024 * 1024

COMMAND_LINE = "aio-stress -a 4 -b 4 -c 1 -r 4 -O -o 0 -t 1 -d 1 -i 1 -s 16 f1_$I f2_$I f3_$I f4_$I"


def patlasov_2011(instances: int = 8, files: int = 4, file_mb: float = 16.0, record_kb: int = 4, depth: int = 1,
                  io_iter: int = 1, max_io_submit: int = 4, usleep_us: float = 0.0, timer_slack_us: float = 50.0,
                  wake_jitter_us: float = 40.0, syscall_us: float = 8.0, syscall_jitter_us: float = 8.0,
                  base_sector: int = 4 * 1024 * 1024, t_max_s: float = 3600.0) -> IOWorkload:
    """Eight aio-stress instances as in the 2011 thread (``usleep_us=1000`` for the RAID runs).

    Parameters
    ----------
    instances : int
        Concurrent aio-stress processes (8).
    files : int
        Files per instance (4: f1..f4).
    file_mb : float
        ``-s``: MB written per file (16; smaller for quick runs).
    record_kb : int
        ``-r``: KiB per write (4).
    depth : int
        ``-d``: io units per file; the thread owns ``files * depth`` of them,
        shared by all its files (1).
    io_iter : int
        ``-i``: iocbs built for one file before the next (1; aio-stress
        lowers it to ``depth`` and to ``max_io_submit``).
    max_io_submit : int
        ``-b``: iocbs per ``io_submit()`` at most (4).
    usleep_us : float
        The thread's patch: sleep after each ``io_submit()`` (0 or 1000).
    timer_slack_us, wake_jitter_us : float
        What a ``usleep`` adds: the hrtimer slack and a uniform wake-up delay.
    syscall_us, syscall_jitter_us : float
        CPU from the completion that frees the last io unit a round needs
        (the thread's wake-up in ``io_getevents``) to its ``io_submit()``.
    """
    if instances < 1 or instances > 64:
        raise WorkbookParameterError("instances", instances, "1..64")
    if files < 1 or files > 16:
        raise WorkbookParameterError("files", files, "1..16")
    if not file_mb > 0:
        raise WorkbookParameterError("file_mb", file_mb, "a positive size in MB")
    if usleep_us < 0:
        raise WorkbookParameterError("usleep_us", usleep_us, "a time >= 0")
    if depth < 1:
        raise WorkbookParameterError("depth", depth, "an integer >= 1 (aio-stress -d)")
    if io_iter < 1:
        raise WorkbookParameterError("io_iter", io_iter, "an integer >= 1 (aio-stress -i)")
    if max_io_submit < 1:
        raise WorkbookParameterError("max_io_submit", max_io_submit, "an integer >= 1 (aio-stress -b)")
    pool = files * depth
    if max_io_submit > pool:
        raise WorkbookParameterError("max_io_submit", max_io_submit,
                                     f"at most files x depth = {pool} (aio-stress would run out of io units)")
    it = min(io_iter, depth, max_io_submit)  # main(): "dropping io_iter to ..."
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
                             sleep_jitter_us=wake_jitter_us if usleep_us > 0 else 0.0,
                             iocb_pool=pool, io_iter=it, max_io_submit=max_io_submit))
    note = f", usleep({usleep_us:g}) after each io_submit" if usleep_us > 0 else ""
    return IOWorkload(
        name="aio-stress" + ("-usleep" if usleep_us > 0 else ""), phase="aio-stress", processes=tuple(procs),
        t_max_s=t_max_s,
        description=(f"{instances} x '{COMMAND_LINE}' ({files} files of {file_mb:g} MB, {record_kb} KiB O_DIRECT "
                     f"writes, rounds of {min(max_io_submit, files * it)} per io_submit, {pool} io units){note}"),
        meta={"aggregate": "sum_of_threads", "instances": instances, "tool": "aio-stress", "usleep_us": usleep_us,
              "row": "aio-stress MB/s"},
    )
