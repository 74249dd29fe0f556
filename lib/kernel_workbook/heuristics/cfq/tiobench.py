"""tiobench as mmtests runs it, for the disk/CFQ model.

tiobench (tiotest) starts N threads; each works on its own file, the files
together ``2 * RAM`` (mmtests' default size, and the 2014 thread's).  The
phases:

* **SeqRead** -- each thread reads its file front to back in 4 KiB
  ``read()``s through the page cache.  The kernel turns that into read-ahead:
  windows of ``read_ahead_kb`` (128 KiB by default) submitted one at a time
  (the next window goes out when the thread reaches the marker page of the
  current one), so each thread is a synchronous sequential stream of
  128 KiB requests with one in flight.  Before each window the thread
  allocates its pages: ``cpu_per_page_us`` per page (this is where the page
  allocator's cost -- the fair-zone half of the 2014 thread -- enters).
* **RandRead** -- 4 KiB reads at random offsets; a file twice the size of
  memory is partly cached, so a fraction of the reads never reach the disk.
* SeqWrite / RandWrite go through the page cache and writeback; their
  throughput is set by the dirty-page throttling, which this model does not
  simulate (``docs/models/cfq.md``: what it does not speak to).

The simulated amount is scaled down (``mb_total``): the steady state of
slices and seeks is reached after a few rounds of every reader; the file
layout keeps the full size, so seek distances are those of the real run.
"""

from __future__ import annotations

from ...errors import WorkbookParameterError
from ...models.cfq.workload import IOWorkload, Process, Stream

SECTOR = 512
MB = 1024 * 1024


BLOCK_SECTORS = 4096 // SECTOR  # ext3 with 4 KiB blocks
# fs/ext3/ext3.h (3.16; include/linux/ext3_fs.h before 3.4): "max window size: 1024(direct blocks) +
# 3([t,d]indirect blocks)"; alloc_new_reservation() doubles a file's window from
# EXT3_DEFAULT_RESERVE_BLOCKS (8) each time more than half of it was used, up to this
EXT3_MAX_RESERVE_BLOCKS = 1027
WINDOW_INDIRECT_BLOCKS = 3  # of a window, the [t,d]indirect blocks the comment above sizes it for


def _layout(threads: int, ram_mb: int, base_sector: int) -> tuple[int, int]:
    """Sectors per file and the sector of file 0."""
    if threads < 1 or threads > 128:
        raise WorkbookParameterError("threads", threads, "1..128")
    if ram_mb < 64:
        raise WorkbookParameterError("ram_mb", ram_mb, "at least 64 MB")
    file_sectors = (2 * ram_mb * MB // threads) // SECTOR
    return file_sectors, base_sector


def _placement(threads: int, file_sectors: int, base: int, rsv_window_blocks: int,
               regular_turns: bool = False) -> list[dict]:
    """Where each thread's file lies: ``Stream`` keywords (start, extents).

    tiotest's threads write their files at the same time (SeqWrite), and
    ext3 allocates blocks at ``write()``: each file grows in its own
    reservation window (``rsv_window_blocks``, ext3's largest once a file
    streams), and the windows of the files take turns on the disk.  So with
    ``threads`` > 1 a file is a run of extents of one window each, the
    other files' windows between them; one thread writes its file alone,
    in one piece.  ``rsv_window_blocks=0``: files back to back, each in one
    piece (a file system that preallocates, or files laid out one at a time).

    The writers do not claim their next windows in a fixed order: which one
    fills its window first varies from round to round, so the order of the
    files in each round is drawn from the run's seed.  ``regular_turns``
    keeps file 0, 1, 2, ... in every round instead; readers that start side
    by side then stay side by side, and the outcome turns on small changes of
    the disk's rate (docs/models/cfq.md).
    """
    if rsv_window_blocks != 0 and rsv_window_blocks <= WINDOW_INDIRECT_BLOCKS:
        raise WorkbookParameterError("rsv_window_blocks", rsv_window_blocks,
                                     f"0 (contiguous files) or more than {WINDOW_INDIRECT_BLOCKS} blocks")
    if threads == 1 or rsv_window_blocks == 0:
        return [{"start_sector": base + i * file_sectors} for i in range(threads)]
    # a window holds the file's data and the indirect blocks mapping it: 1024 + 3 for the largest, so
    # its data are exactly 32 read-ahead windows of 128 KiB.  A request is placed by its first sector
    # (one crossing into the next window reads on there: only with other window or request sizes)
    ext = (rsv_window_blocks - WINDOW_INDIRECT_BLOCKS) * BLOCK_SECTORS
    window = rsv_window_blocks * BLOCK_SECTORS
    return [{"start_sector": base + i * window, "extent_sectors": ext, "extent_stride_sectors": threads * window,
             "window_sectors": window, "place": i, "draw_turns": not regular_turns} for i in range(threads)]


def seqread(threads: int = 4, ram_mb: int = 4096, mb_total: float = 256.0, read_ahead_kb: int = 128,
            cpu_per_page_us: float = 0.25, think_us: float = 15.0, think_jitter_us: float = 10.0,
            base_sector: int = 2048, t_max_s: float = 600.0,
            rsv_window_blocks: int = 0, regular_turns: bool = False) -> IOWorkload:
    """tiobench SeqRead with ``threads`` threads.

    Parameters
    ----------
    threads : int
        tiobench ``--threads``.
    ram_mb : int
        Memory of the machine (MB); the files total ``2 * ram_mb``.
    mb_total : float
        MB the simulation reads in all (the benchmark reads the whole
        ``2 * ram_mb``; the model's rates settle long before that).
    read_ahead_kb : int
        ``/sys/block/<dev>/queue/read_ahead_kb`` (128 in 3.x kernels).
    cpu_per_page_us : float
        CPU per page between a completion and the next window's submission
        (page allocation and insertion into the page cache).
    think_us, think_jitter_us : float
        Wake-up and syscall time of the thread after a completion (us), and
        its uniform jitter.
    rsv_window_blocks : int
        0 (the default): the files lie whole, back to back.  Else ext3's
        reservation window of a streaming writer, in 4 KiB blocks
        (:data:`EXT3_MAX_RESERVE_BLOCKS`, 1027, is what ext3 grows it to):
        the files, written side by side in SeqWrite, take turns on the disk
        in windows of this size.  The reproductions do not use it yet
        (``docs/models/cfq.md``: the file layout).
    regular_turns : bool
        The files take their turns in the same order every round, instead
        of an order drawn from the seed each round.
    """
    if read_ahead_kb < 4 or read_ahead_kb % 4:
        raise WorkbookParameterError("read_ahead_kb", read_ahead_kb, "a positive multiple of 4")
    if not mb_total > 0:
        raise WorkbookParameterError("mb_total", mb_total, "a positive number of MB")
    file_sectors, base = _layout(threads, ram_mb, base_sector)
    where = _placement(threads, file_sectors, base, rsv_window_blocks, regular_turns)
    per_req = read_ahead_kb * 1024
    nreq = max(2, int(mb_total * MB / threads // per_req))
    nreq = min(nreq, file_sectors * SECTOR // per_req)
    procs = []
    for i in range(threads):
        s = Stream(**where[i], length_sectors=file_sectors, request_kb=read_ahead_kb,
                   write=False, sync=True, random=False, depth=1, total_requests=nreq,
                   start_jitter_sectors=min(file_sectors // 100, 1 << 20))
        procs.append(Process(name=f"tiotest-{i}", streams=(s,), think_us=think_us, think_jitter_us=think_jitter_us,
                             cpu_per_page_us=cpu_per_page_us))
    return IOWorkload(
        name=f"tiobench-seqread-{threads}", phase="SeqRead", processes=tuple(procs), t_max_s=t_max_s,
        description=(f"tiobench SeqRead, {threads} thread(s), files of {2 * ram_mb // threads} MB "
                     f"(2 x {ram_mb} MB RAM), {read_ahead_kb} KiB read-ahead windows, {mb_total:g} MB simulated"),
        meta={"aggregate": "total_over_elapsed", "threads": threads, "ram_mb": ram_mb, "tool": "tiobench",
              "row": f"SeqRead-MB/sec-{threads}"},
    )


def randread(threads: int = 4, ram_mb: int = 4096, ops_per_thread: int = 500, page_cache_hit: float = 0.5,
             block_kb: int = 4, think_us: float = 15.0, think_jitter_us: float = 10.0, base_sector: int = 2048,
             t_max_s: float = 600.0, rsv_window_blocks: int = 0,
             regular_turns: bool = False) -> IOWorkload:
    """tiobench RandRead: ``block_kb`` reads at random offsets of each thread's file.

    ``page_cache_hit`` is the share of reads the page cache serves: with
    files twice the size of memory, about half of them (an assumption of
    this model, not a figure of the thread).  The files lie as SeqWrite
    left them (``rsv_window_blocks``, see :func:`seqread`).
    """
    if ops_per_thread < 1:
        raise WorkbookParameterError("ops_per_thread", ops_per_thread, "an integer >= 1")
    file_sectors, base = _layout(threads, ram_mb, base_sector)
    where = _placement(threads, file_sectors, base, rsv_window_blocks, regular_turns)
    procs = []
    for i in range(threads):
        s = Stream(**where[i], length_sectors=file_sectors, request_kb=block_kb,
                   write=False, sync=True, random=True, depth=1, total_requests=ops_per_thread,
                   page_cache_hit=page_cache_hit)
        procs.append(Process(name=f"tiotest-{i}", streams=(s,), think_us=think_us, think_jitter_us=think_jitter_us))
    return IOWorkload(
        name=f"tiobench-randread-{threads}", phase="RandRead", processes=tuple(procs), t_max_s=t_max_s,
        description=(f"tiobench RandRead, {threads} thread(s), {ops_per_thread} random {block_kb} KiB reads each, "
                     f"{page_cache_hit:.0%} served by the page cache"),
        meta={"aggregate": "total_over_elapsed", "threads": threads, "ram_mb": ram_mb, "tool": "tiobench",
              "row": f"RandRead-MB/sec-{threads}"},
    )
