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

from ..errors import WorkbookParameterError
from ..models.cfq.workload import IOWorkload, Process, Stream

SECTOR = 512
MB = 1024 * 1024


def _layout(threads: int, ram_mb: int, base_sector: int) -> tuple[int, int]:
    """Sectors per file and the sector of file 0 (files back to back, as tiotest creates them)."""
    if threads < 1 or threads > 128:
        raise WorkbookParameterError("threads", threads, "1..128")
    if ram_mb < 64:
        raise WorkbookParameterError("ram_mb", ram_mb, "at least 64 MB")
    file_sectors = (2 * ram_mb * MB // threads) // SECTOR
    return file_sectors, base_sector


def seqread(threads: int = 4, ram_mb: int = 4096, mb_total: float = 256.0, read_ahead_kb: int = 128,
            cpu_per_page_us: float = 0.25, think_us: float = 15.0, think_jitter_us: float = 10.0,
            base_sector: int = 2048, t_max_s: float = 600.0) -> IOWorkload:
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
    """
    if read_ahead_kb < 4 or read_ahead_kb % 4:
        raise WorkbookParameterError("read_ahead_kb", read_ahead_kb, "a positive multiple of 4")
    if not mb_total > 0:
        raise WorkbookParameterError("mb_total", mb_total, "a positive number of MB")
    file_sectors, base = _layout(threads, ram_mb, base_sector)
    per_req = read_ahead_kb * 1024
    nreq = max(2, int(mb_total * MB / threads // per_req))
    nreq = min(nreq, file_sectors * SECTOR // per_req)
    procs = []
    for i in range(threads):
        s = Stream(start_sector=base + i * file_sectors, length_sectors=file_sectors, request_kb=read_ahead_kb,
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
             t_max_s: float = 600.0) -> IOWorkload:
    """tiobench RandRead: ``block_kb`` reads at random offsets of each thread's file.

    ``page_cache_hit`` is the share of reads the page cache serves: with
    files twice the size of memory, about half of them (an assumption of
    this model, not a figure of the thread).
    """
    if ops_per_thread < 1:
        raise WorkbookParameterError("ops_per_thread", ops_per_thread, "an integer >= 1")
    file_sectors, base = _layout(threads, ram_mb, base_sector)
    procs = []
    for i in range(threads):
        s = Stream(start_sector=base + i * file_sectors, length_sectors=file_sectors, request_kb=block_kb,
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
