"""tiobench's use of the page cache, for the fair-zone allocator model.

tiobench (tiotest, as mmtests runs it) does, for each thread count N:

1. **SeqWrite** -- every thread writes its own file front to back: each 4 KiB
   ``write()`` allocates a page-cache page (``__GFP_WRITE``) and dirties it;
   the writers are throttled to the device's writeback rate once dirty pages
   reach ``vm_dirty_ratio``;
2. **RandWrite** -- ``random_ops`` 4 KiB writes per thread at random offsets
   of its file (a page still cached is dirtied again, a missing one is
   allocated);
3. **SeqRead** -- every thread reads its file front to back: a cached page is
   a hit (``mark_page_accessed()``), a missing one is allocated and read from
   the device, a read-ahead window at a time;
4. **RandRead** -- ``random_ops`` random 4 KiB reads per thread;
5. the files are removed: their pages go back to the free lists.

The files total ``size_fraction`` x RAM (mmtests' default is 2 x RAM, the
thread's SeqRead runs; Mel's allocation spread was taken at 80% of memory).
Threads interleave a read-ahead window (``chunk`` pages) at a time, in an
order drawn from the seed.

Time: a page that misses costs ``4 KiB / read rate`` (the device, from the
disk/CFQ model when the reproduction supplies it), a hit ``hit_us``, a write
``write_cpu_us`` (the writeback throttle slows writers further inside the
model), a random miss ``random_read_ms``.  Everything else about time
(kswapd's passes, writeback) happens inside the model.

Everything here is in pages and stays so whatever the model's resolution:
at ``pages_per_unit`` U > 1 the model converts the phases itself
(``models.fairzone.simulate.workload_in_units``: files and the read-ahead
``chunk`` in units, ``random_ops / U`` unit accesses each costing U
operations' time, time per page x U).  The default ``chunk`` of 32 pages is
one unit at the reproduction's U = 32.
"""

from __future__ import annotations

from ...errors import WorkbookParameterError
from ...models.fairzone.layout import OP
from ...models.fairzone.workload import PHASE_NAMES, PageCacheWorkload, Phase

PAGES_PER_MB = 256
READERS = (1, 2, 4, 8, 16)


def _ns_per_page(mb_s: float) -> int:
    return max(1, int(round(1e9 / (mb_s * PAGES_PER_MB))))


def _check_threads(threads) -> tuple:
    ts = tuple(int(t) for t in threads)
    if not ts or any(t < 1 or t > 128 for t in ts):
        raise WorkbookParameterError("threads", threads, "thread counts between 1 and 128")
    return ts


def tiobench(ram_mb: float = 8192, size_fraction: float = 2.0, threads=READERS, iterations: int = 1,
             read_mb_s: dict | float = 110.0, write_cpu_us: float = 1.0, hit_us: float = 1.0,
             random_ops: int = 4000, random_read_ms: dict | float = 3.0, chunk: int = 32, phases=("SeqWrite", "RandWrite",
                                                                                           "SeqRead", "RandRead"),
             scale: float = 1.0, other_jitter_mb: float = 0.0) -> PageCacheWorkload:
    """tiobench as mmtests runs it: for each thread count (and iteration), the four phases, then the files go.

    Parameters
    ----------
    ram_mb : float
        The machine's memory: the files total ``size_fraction * ram_mb``.
    size_fraction : float
        2.0 for mmtests' standard tiobench; 0.8 for the allocation-spread run.
    threads : iterable of int
        tiobench ``--threads`` values, in order.
    iterations : int
        ``--numruns``: each thread count is run this many times.
    read_mb_s : float or {threads: MB/s}
        The device's SeqRead rate (a miss costs 4 KiB at this rate); a dict
        gives one per thread count (the disk/CFQ model's, in the reproduction).
    write_cpu_us, hit_us : float
        CPU per page written into / found in the page cache.
    random_ops : int
        Random operations per thread (tiobench ``--random``; 4000 by default [R]).
    random_read_ms : float or {threads: ms}
        Time per random read that misses (the device's random rate, all threads together).
    chunk : int
        Pages a thread handles before another runs (a 128 KiB read-ahead window).
    phases : tuple of str
        Which of SeqWrite, RandWrite, SeqRead, RandRead to run.
    scale : float
        Shrinks the files (and the machine must be shrunk with it) for quick runs.
    other_jitter_mb : float
        Before each run the memory outside the page cache (slab, page tables, the
        monitors) changes: a normal draw of this standard deviation around the
        machine's ``other_mb`` (drawn from the seed).  0: the same every run.
    """
    ts = _check_threads(threads)
    if not (isinstance(size_fraction, (int, float)) and 0.01 <= size_fraction <= 8):
        raise WorkbookParameterError("size_fraction", size_fraction, "a fraction of RAM between 0.01 and 8")
    if not (isinstance(iterations, int) and 1 <= iterations <= 100):
        raise WorkbookParameterError("iterations", iterations, "an integer 1..100")
    if not ram_mb > 0:
        raise WorkbookParameterError("ram_mb", ram_mb, "MB > 0")
    if not (isinstance(random_ops, int) and random_ops >= 0):
        raise WorkbookParameterError("random_ops", random_ops, "an integer >= 0")
    if not (isinstance(chunk, int) and chunk >= 1):
        raise WorkbookParameterError("chunk", chunk, "pages >= 1")
    for name, v in (("write_cpu_us", write_cpu_us), ("hit_us", hit_us)):
        if not (isinstance(v, (int, float)) and v > 0):
            raise WorkbookParameterError(name, v, "a number > 0")
    bad = [ph for ph in phases if ph not in ("SeqWrite", "RandWrite", "SeqRead", "RandRead")]
    if bad:
        raise WorkbookParameterError("phases", bad[0], "SeqWrite, RandWrite, SeqRead or RandRead")
    if isinstance(read_mb_s, dict):
        rates = {int(k): float(v) for k, v in read_mb_s.items()}
        missing = [t for t in ts if t not in rates]
        if missing:
            raise WorkbookParameterError("read_mb_s", read_mb_s, f"a rate for every thread count (missing {missing})")
    else:
        rates = {t: float(read_mb_s) for t in ts}
    if any(not v > 0 for v in rates.values()):
        raise WorkbookParameterError("read_mb_s", read_mb_s, "MB/s > 0")
    if isinstance(random_read_ms, dict):
        rand_ms = {int(k): float(v) for k, v in random_read_ms.items()}
        if any(t not in rand_ms or not rand_ms[t] > 0 for t in ts):
            raise WorkbookParameterError("random_read_ms", random_read_ms, "ms > 0 for every thread count")
    else:
        rand_ms = {t: float(random_read_ms) for t in ts}
    if not (isinstance(other_jitter_mb, (int, float)) and 0 <= other_jitter_mb <= ram_mb / 4):
        raise WorkbookParameterError("other_jitter_mb", other_jitter_mb, "MB between 0 and a quarter of RAM")
    total_pages = int(size_fraction * ram_mb * PAGES_PER_MB * scale)
    jitter_pages = int(round(other_jitter_mb * PAGES_PER_MB))
    out = []
    run = 0
    for t in ts:
        for _ in range(iterations):
            if jitter_pages:
                # ops: the standard deviation; simulate() draws the change from the seed
                out.append(Phase(op=OP.other, ops=jitter_pages, run=run))
            fp = max(1, total_pages // t)
            dt_miss = _ns_per_page(rates[t])
            common = dict(threads=t, file_pages=fp, chunk=chunk, dt_hit_ns=int(hit_us * 1000),
                          dt_write_ns=int(write_cpu_us * 1000), run=run)
            if "SeqWrite" in phases:
                out.append(Phase(op=OP.seq_write, kind=0, dt_miss_ns=dt_miss, **common))
            if "RandWrite" in phases and random_ops:
                out.append(Phase(op=OP.rand_write, kind=1, ops=random_ops, dt_miss_ns=dt_miss, **common))
            if "SeqRead" in phases:
                out.append(Phase(op=OP.seq_read, kind=2, dt_miss_ns=dt_miss, **common))
            if "RandRead" in phases and random_ops:
                out.append(Phase(op=OP.rand_read, kind=3, ops=random_ops,
                                 dt_miss_ns=int(rand_ms[t] * 1e6), **common))
            out.append(Phase(op=OP.delete, threads=t, file_pages=fp, run=run))
            run += 1
    desc = (f"tiobench: files of {size_fraction:g} x {ram_mb:g} MB RAM, threads {', '.join(map(str, ts))}, "
            f"{iterations} iteration(s), {', '.join(phases)}, {random_ops} random ops per thread")
    if jitter_pages:
        desc += f", other memory varying by {other_jitter_mb:g} MB (sd) from run to run"
    return PageCacheWorkload(name=f"tiobench-{size_fraction:g}xRAM", phases=tuple(out), description=desc,
                             meta={"ram_mb": ram_mb, "size_fraction": size_fraction, "threads": ts,
                                   "iterations": iterations, "read_mb_s": rates, "scale": scale,
                                   "other_jitter_mb": other_jitter_mb})


def stream_read(pages: int, threads: int = 1, read_mb_s: float = 110.0, passes: int = 1, chunk: int = 32,
                hit_us: float = 1.0) -> PageCacheWorkload:
    """``threads`` readers stream their files (``pages`` in all) ``passes`` times, nothing else.

    The simplest load: every page is allocated once per pass (unless still
    cached), and once memory is full every allocation has to be reclaimed.
    """
    if not (isinstance(pages, int) and pages >= 1):
        raise WorkbookParameterError("pages", pages, "an integer >= 1")
    if not (isinstance(passes, int) and passes >= 1):
        raise WorkbookParameterError("passes", passes, "an integer >= 1")
    t = _check_threads([threads])[0]
    fp = max(1, pages // t)
    ph = tuple(Phase(op=OP.seq_read, threads=t, file_pages=fp, chunk=chunk, dt_miss_ns=_ns_per_page(read_mb_s),
                     dt_hit_ns=int(hit_us * 1000), kind=2, run=i) for i in range(passes))
    return PageCacheWorkload(name=f"stream-{pages}p", phases=ph,
                             description=f"{t} reader(s) stream {pages} pages {passes} time(s) at {read_mb_s:g} MB/s",
                             meta={"pages": pages, "threads": t, "passes": passes})


def stream_write(pages: int, threads: int = 1, write_cpu_us: float = 1.0, chunk: int = 32) -> PageCacheWorkload:
    """``threads`` writers write ``pages`` of new files (dirty pages, writeback, throttling)."""
    if not (isinstance(pages, int) and pages >= 1):
        raise WorkbookParameterError("pages", pages, "an integer >= 1")
    t = _check_threads([threads])[0]
    fp = max(1, pages // t)
    ph = (Phase(op=OP.seq_write, threads=t, file_pages=fp, chunk=chunk, dt_write_ns=int(write_cpu_us * 1000),
                kind=0),)
    return PageCacheWorkload(name=f"write-{pages}p", phases=ph, description=f"{t} writer(s) write {pages} pages",
                             meta={"pages": pages, "threads": t})
