"""An xfs_repair-like load for the NUMA model: threads chasing pointers through a big buffer cache.

What the thread says about the real program (Dave Chinner, 2015-03-17/18):
``xfs_repair -o ag_stride=-1,bhash=101073`` runs 8 threads; its buffer cache
(``libxfs_bcache``) is a hash table of ``bhash`` buckets holding up to
``8 * bhash`` buffers ("the goal of 8 entries per chain"); every lookup walks
a hash chain and about half of them miss (hit ratio 54 %), so the threads
keep chasing pointers through memory that all of them share; the buffers are
``malloc``'d (glibc gives each thread its own arena) and filled by direct
I/O; the threads wake up on other CPUs after each I/O ("the repair threads
wander all over the machine").

The model: one process, ``threads`` threads; the cache is the buffer
headers and hash chains plus one arena of buffers per thread.  Each simulated
access walks the shared cache (a unit anywhere in it: hash chains lead into
every thread's buffers) with probability ``shared_frac``, else a unit of the
thread's own arena, and costs ``access_us`` of CPU (more if the unit is
remote) then ``io_us_per_access`` of I/O wait.  ``bhash`` sets the size: ``8 * bhash``
buffers of ``buffer_kb`` each plus ``header_bytes`` of header each.

Sizes are scaled honestly: a unit is ``unit_pages`` base pages (64 by
default), so there are ``unit_pages`` times fewer units and every count is
multiplied back.  The access rate and I/O time are not known from the
thread; the reproduction fits them on the 3.19 column.

Direct I/O pins pages.  xfsprogs allocates each buffer with
``memalign(libxfs_device_alignment(), size)``, and on Linux that alignment is
the largest sector size of the devices (``platform_align_blockdev()`` in
libfrog/linux.c; 512 bytes for a disk with 512-byte logical sectors): so a
buffer starts anywhere in a page, and its first and last pages hold other
data too -- the neighbouring chunks of the same arena, which any thread may
touch.  While a thread's ``pread()`` is in flight, ``get_user_pages()`` pins
every page of the buffer; a hinting fault by another thread on one of the
shared end pages finds it pinned and cannot migrate it (``dio_pages``: the
expected number of such pages, from ``buffer_kb`` and ``dio_align_bytes``).

Dave Chinner's four ``xfs_repair`` options (``DAVE_OPTIONS``) change the load
through two of these arguments, by xfsprogs' own rules
(repair/xfs_repair.c ``main()``) applied to his 500 TB filesystem on a 16 GB
guest (:func:`dave_option`): ``bhash`` sets the cache (``8 * bhash``
buffers), and without ``-o bhash`` xfs_repair sizes it from memory --
``mem_used`` (the block map alone, ``sb_dblocks >> 11`` KB, is 62.5 GB for
500 TB of 4 KB blocks) exceeds 3/4 of the RAM, so ``max_mem - mem_used`` is
0 and ``libxfs_bhash_size`` falls to its floor of 512; ``ag_stride`` sets the
threads -- ``-1`` leaves one AG at a time (Dave counted 8 threads, the
worker and its prefetch threads), and by default a filesystem of at least
32 AGs (``is_multidisk_filesystem()``; 500 TB makes 500 AGs of 1 TB) gets
``ag_stride = 15``, so ``ceil(500 / 15) = 34`` AG ranges in parallel.
"""

from __future__ import annotations

import numpy as np

from ...errors import WorkbookParameterError
from ...models.numa import PAGE_SIZE, RANDOM, NumaWorkload, machine

ENTRIES_PER_BUCKET = 8  # libxfs cache: max entries = 8 x hash size ("the goal of 8 entries per chain")
BHASH_FLOOR = 512  # repair/xfs_repair.c: "if (libxfs_bhash_size < 512) libxfs_bhash_size = 512"
MULTIDISK_AG_STRIDE = 15  # repair/xfs_repair.c: ag_stride = min(agcount, XFS_MULTIDISK_AGCOUNT / 2) - 1, 32 AGs
DAVE_AGCOUNT = 500  # mkfs.xfs on a 500 TB device: AGs of at most 1 TB (the thread: "mkfs.xfs -d size=500t")
DAVE_THREADS_AG_STRIDE_M1 = 8  # the thread: "only 8 threads running (ag_stride=-1)"
# stores per access (a lookup takes a reference in the buffer's header, a buffer is zeroed before each read, a repair
# changes metadata): assumed, and swept over its range where it matters (numa_2015.df_dirty_write_sweep)
WRITE_FRAC = 0.3
DAVE_OPTIONS = ("defaults", "-o ag_stride=-1", "-o bhash=101073", "-o ag_stride=-1,bhash=101073")


def dave_option(option: str) -> dict:
    """``bhash`` and ``threads`` of one of Dave Chinner's ``xfs_repair`` options (see the module docstring)."""
    if option not in DAVE_OPTIONS:
        raise WorkbookParameterError("option", option, "one of " + ", ".join(DAVE_OPTIONS))
    bhash = int(option.split("bhash=")[1]) if "bhash=" in option else BHASH_FLOOR
    threads = DAVE_THREADS_AG_STRIDE_M1 if "ag_stride=-1" in option else -(-DAVE_AGCOUNT // MULTIDISK_AG_STRIDE)
    return dict(bhash=bhash, threads=threads)


def dio_shared_pages(buffer_kb: float, align_bytes: int) -> float:
    """Expected pages of a buffer that hold other data too: its first page unless it starts on a page boundary,
    its last unless it ends on one (the buffer starts at a uniformly random multiple of ``align_bytes`` within a
    page; a buffer inside one page counts that page once)."""
    size = int(round(buffer_kb * 1024))
    offsets = range(0, PAGE_SIZE, align_bytes)
    total = 0
    for o in offsets:
        first, last = o // PAGE_SIZE, (o + size - 1) // PAGE_SIZE
        shared = {first} if o % PAGE_SIZE else set()
        if (o + size) % PAGE_SIZE:
            shared.add(last)
        total += len(shared)
    return total / len(offsets)


def xfs_repair(machine_name="dave-vm-fake4-16", *, bhash: int | None = None, threads: int = 8,
               buffer_kb: float = 8.0, header_bytes: int = 256, shared_frac: float = 0.8,
               write_frac: float = WRITE_FRAC, accesses_per_s: float = 2000.0, seconds: float = 300.0,
               cpu_frac: float = 0.25, wander_per_s: float = 2.0, unit_pages: int = 64,
               sys_us_per_access: float = 0.0, setup_s: float = 0.0, prefill_mb: float = 0.0,
               dio_align_bytes: int = 512) -> NumaWorkload:
    """The xfs_repair-like workload.

    Parameters
    ----------
    bhash : int
        ``xfs_repair -o bhash=N``: hash buckets; the cache holds ``8 * bhash`` buffers (default: Dave's
        ``-o bhash=101073``).
    threads : int
        Threads walking the cache (8 in Dave's runs).
    buffer_kb, header_bytes : float, int
        Mean buffer size and per-buffer header (``xfs_buf`` + hash links); assumptions.
    shared_frac : float
        Probability that an access walks the shared headers rather than the thread's own buffers.
    write_frac : float
        Probability that an access stores to its unit (assumed, :data:`WRITE_FRAC`: a lookup takes a reference in
        the buffer's header, ``cn_count``; each buffer is zeroed before it is read into, ``memset()`` in
        ``__initbuf()``; a repair changes metadata).
    accesses_per_s : float
        Simulated accesses per second of the whole program when it runs undisturbed (all threads);
        one simulated access stands for a batch of lookups that touch the unit.
    seconds : float
        Undisturbed run time the work corresponds to; with ``accesses_per_s`` it fixes the work.
    cpu_frac : float
        Share of a thread's undisturbed time spent on CPU (the rest is I/O wait).
    wander_per_s : float
        How often a thread wakes up on another node.
    unit_pages : int
        Base pages per simulated unit (scaling).
    sys_us_per_access : float
        System time per access that is not NUMA balancing (direct I/O submission and completion).
    dio_align_bytes : int
        The buffers' alignment (``platform_align_blockdev()``: the devices' sector size; 512 assumed, the
        logical sector size of the disks and image files of the thread's runs).  With ``buffer_kb`` it gives
        ``dio_pages``, the pages of an in-flight direct read other threads touch too.
    """
    m = machine(machine_name)
    if bhash is None:
        bhash = dave_option(DAVE_OPTIONS[-1])["bhash"]
    for name, v, ok, exp in (
        ("bhash", bhash, isinstance(bhash, (int, np.integer)) and bhash >= 1, "a positive integer"),
        ("threads", threads, isinstance(threads, (int, np.integer)) and 1 <= threads <= 4096, "1..4096"),
        ("buffer_kb", buffer_kb, buffer_kb > 0, "> 0 KB"),
        ("header_bytes", header_bytes, header_bytes > 0, "> 0 bytes"),
        ("shared_frac", shared_frac, 0.0 <= shared_frac < 1.0, "in [0, 1)"),
        ("write_frac", write_frac, 0.0 <= write_frac <= 1.0, "in [0, 1]"),
        ("accesses_per_s", accesses_per_s, accesses_per_s > 0, "> 0"),
        ("seconds", seconds, seconds > 0, "> 0 s"),
        ("cpu_frac", cpu_frac, 0.0 < cpu_frac <= 1.0, "in (0, 1]"),
        ("wander_per_s", wander_per_s, wander_per_s >= 0, ">= 0 per second"),
        ("sys_us_per_access", sys_us_per_access, sys_us_per_access >= 0, ">= 0 us"),
        ("unit_pages", unit_pages, isinstance(unit_pages, (int, np.integer)) and unit_pages >= 1, "a positive integer"),
        ("dio_align_bytes", dio_align_bytes, isinstance(dio_align_bytes, (int, np.integer)) and dio_align_bytes >= 1
         and PAGE_SIZE % dio_align_bytes == 0, f"a divisor of the page size ({PAGE_SIZE})"),
    ):
        if not ok:
            raise WorkbookParameterError(name, v, exp)
    entries = ENTRIES_PER_BUCKET * bhash
    data_pages = int(entries * buffer_kb * 1024 // PAGE_SIZE)
    header_pages = max(1, int(entries * header_bytes // PAGE_SIZE))
    shared_units = max(1, -(-header_pages // unit_pages))
    per_thread_units = max(1, -(-(data_pages // threads) // unit_pages))
    units = shared_units + threads * per_thread_units
    total = int(round(accesses_per_s * seconds))
    per_thread = max(1, total // threads)
    # per access: access_us of CPU and io_us of wait, so that a thread alone takes `seconds` for its share
    busy_us = seconds * 1e6 / per_thread
    access_us = busy_us * cpu_frac
    io_us = busy_us - access_us
    T = threads
    starts = shared_units + np.arange(T) * per_thread_units
    # clone(): threads spread over the nodes
    task_node0 = (np.arange(T) % m.nr_nodes).astype(np.int64)
    return NumaWorkload(
        name="xfs_repair", unit_pages=int(unit_pages), unit_huge=False,
        task_mm=np.zeros(T, np.int64), task_node0=task_node0,
        task_phase0=np.arange(T, dtype=np.int64), task_nphases=np.ones(T, np.int64),
        phase_kind=np.full(T, RANDOM, np.int64), phase_start=starts.astype(np.int64),
        phase_end=(starts + per_thread_units).astype(np.int64), phase_reps=np.full(T, per_thread, np.int64),
        phase_shared_frac=np.full(T, float(shared_frac)), phase_write_frac=np.full(T, float(write_frac)),
        mm_start=np.zeros(1, np.int64), mm_end=np.array([units], np.int64),
        mm_shared_start=np.zeros(1, np.int64), mm_shared_end=np.array([units], np.int64),
        access_us=float(access_us), io_us_per_access=float(io_us), wander_per_s=float(wander_per_s),
        dio_pages=dio_shared_pages(buffer_kb, int(dio_align_bytes)),
        sys_us_per_access=float(sys_us_per_access),
        setup_s=setup_s, max_seconds=float(seconds) * 6 + 60, prefill_mb=prefill_mb,
        description=(f"{threads} threads, bhash={bhash} ({entries} buffers of {buffer_kb:g} KB, "
                     f"{(data_pages + header_pages) * PAGE_SIZE / 2**30:.2f} GB); {shared_frac:.0%} of accesses walk "
                     f"the shared cache, the rest stay in the thread's arena"),
        params=dict(machine=m, bhash=bhash, threads=threads, buffer_kb=buffer_kb, header_bytes=header_bytes,
                    shared_frac=shared_frac, write_frac=write_frac, accesses_per_s=accesses_per_s, seconds=seconds,
                    cpu_frac=cpu_frac, wander_per_s=wander_per_s, unit_pages=unit_pages,
                    sys_us_per_access=sys_us_per_access, dio_align_bytes=dio_align_bytes),
    )
