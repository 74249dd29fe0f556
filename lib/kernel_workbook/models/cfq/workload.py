"""The disk/CFQ model's workload types: processes, each with the files it reads or writes.

The generators of the benchmarks (``kernel_workbook.heuristics.cfq.tiobench``,
``.aio_stress``) build these; the model never imports a generator.  A
workload is plain data.  The model (:func:`~kernel_workbook.models.cfq.simulate`)
draws the run's random numbers (think-time jitter, random offsets, page-cache
hits, small shifts of where each file starts) from its seed; the workload
only says how much of each there may be.

Every process runs one of two loops.

A reader (tiobench; ``iocb_pool == 0``), each stream refilled on its own:

1. wait ``think_us`` (+ up to ``think_jitter_us``, + ``cpu_per_page_us`` per
   page of the next request) after a completion;
2. submit, as one plugged batch, one request for every stream that has
   fewer than ``depth`` in flight;
3. wait for a completion, go to 1.

aio-stress's ``run_active_list()`` (``iocb_pool > 0``): the thread owns
``iocb_pool`` io units (``files * -d``), shared by all its files.  A round
takes ``io_iter`` (``-i``) iocbs for each file in turn, from the head of its
list of unfinished files, until one more file would pass ``max_io_submit``
(``-b``) or every file has had its turn; each iocb needs a free io unit, and
the thread blocks in ``io_getevents()`` until one is free.  Only then does
it call ``io_submit()`` once for the whole round (one plugged batch), sleep
``sleep_after_submit_us`` (the 2011 ``usleep(1000)``), and start the next
round; the files it served go to the tail of the list.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import WorkbookParameterError

SECTOR = 512


@dataclass(frozen=True)
class Stream:
    """One file a process works on."""

    start_sector: int  # where the file starts on the device (512 B sectors)
    length_sectors: int  # its size
    request_kb: int  # size of each request (KiB)
    write: bool = False
    sync: bool = True  # reads and O_DIRECT writes are sync requests
    random: bool = False  # random offsets (else sequential from the start)
    depth: int = 1  # requests in flight at most (aio-stress -d; 1 for a reader)
    total_requests: int = 0  # how many requests the stream issues
    page_cache_hit: float = 0.0  # fraction of requests the page cache serves (random reads)
    start_jitter_sectors: int = 0  # the run shifts the file start by up to this (aligned to 4 KiB)
    extent_sectors: int = 0  # the file lies in extents this long (0: one contiguous extent)
    extent_stride_sectors: int = 0  # from the start of one of its extents to the next (>= extent_sectors)
    window_sectors: int = 0  # one file's turn in a round (its extent and the blocks beside it)
    place: int = 0  # this file's turn in each round, in the regular order (0, 1, ...)
    draw_turns: bool = False  # the order of the files in each round is drawn from the seed (not regular)

    @property
    def span_sectors(self) -> int:
        """Sectors from the file's first sector to its last (other files' extents included)."""
        if self.extent_sectors <= 0:
            return self.length_sectors
        last = self.length_sectors - 1
        span = (last // self.extent_sectors) * self.extent_stride_sectors + last % self.extent_sectors + 1
        if self.draw_turns:  # its last extent may take the last turn of its round
            span += (self.extent_stride_sectors // self.window_sectors - 1 - self.place) * self.window_sectors
        return span

    def validate(self, where: str) -> None:
        if self.request_kb <= 0 or self.request_kb % 4:
            raise WorkbookParameterError(f"{where}.request_kb", self.request_kb, "a positive multiple of 4 KiB")
        if self.length_sectors < self.request_kb * 2:
            raise WorkbookParameterError(f"{where}.length_sectors", self.length_sectors, "room for one request at least")
        if self.start_sector < 0:
            raise WorkbookParameterError(f"{where}.start_sector", self.start_sector, "a sector >= 0")
        if self.depth < 1:
            raise WorkbookParameterError(f"{where}.depth", self.depth, "an integer >= 1")
        if self.total_requests < 0:
            raise WorkbookParameterError(f"{where}.total_requests", self.total_requests, "an integer >= 0")
        if not 0.0 <= self.page_cache_hit <= 1.0:
            raise WorkbookParameterError(f"{where}.page_cache_hit", self.page_cache_hit, "a fraction in [0, 1]")
        if self.extent_sectors < 0 or (self.extent_sectors and self.extent_sectors % 8):
            raise WorkbookParameterError(f"{where}.extent_sectors", self.extent_sectors,
                                         "0 (contiguous) or a positive multiple of 8 sectors (4 KiB)")
        if self.extent_sectors and self.extent_stride_sectors < self.extent_sectors:
            raise WorkbookParameterError(f"{where}.extent_stride_sectors", self.extent_stride_sectors,
                                         f"at least extent_sectors ({self.extent_sectors})")
        if self.draw_turns:
            win = self.window_sectors
            if not (self.extent_sectors and self.extent_sectors <= win and self.extent_stride_sectors % win == 0):
                raise WorkbookParameterError(f"{where}.window_sectors", win,
                                             "a turn at least one extent long that divides extent_stride_sectors")
            if not 0 <= self.place < self.extent_stride_sectors // win:
                raise WorkbookParameterError(f"{where}.place", self.place,
                                             f"0..{self.extent_stride_sectors // win - 1} (the files taking turns)")


@dataclass(frozen=True)
class Process:
    """A thread of the benchmark, with its own CFQ queue."""

    name: str
    streams: tuple[Stream, ...]
    think_us: float = 5.0  # us from a completion to the next submission (syscall + wake-up)
    think_jitter_us: float = 0.0  # us of uniform jitter added to it
    sleep_after_submit_us: float = 0.0  # us slept after each submission
    sleep_jitter_us: float = 0.0
    cpu_per_page_us: float = 0.0  # us of CPU per page before the next submission (read-ahead allocation)
    start_us: float = 0.0  # when it starts
    ioprio: int = 4  # best-effort priority (ionice -c2 -n), 4 = from nice 0
    iocb_pool: int = 0  # aio-stress: io units of the thread (files x -d), shared by its files; 0: a reader
    io_iter: int = 1  # aio-stress -i: iocbs built for one file before moving to the next
    max_io_submit: int = 0  # aio-stress -b: iocbs given to one io_submit() at most

    def validate(self, where: str) -> None:
        if not self.streams:
            raise WorkbookParameterError(f"{where}.streams", 0, "at least one stream")
        for name in ("think_us", "think_jitter_us", "sleep_after_submit_us", "sleep_jitter_us", "cpu_per_page_us",
                     "start_us"):
            v = getattr(self, name)
            if not (v >= 0):
                raise WorkbookParameterError(f"{where}.{name}", v, "a time >= 0")
        if not 0 <= self.ioprio <= 7:
            raise WorkbookParameterError(f"{where}.ioprio", self.ioprio, "0..7")
        if self.iocb_pool < 0:
            raise WorkbookParameterError(f"{where}.iocb_pool", self.iocb_pool, "an integer >= 0")
        if self.iocb_pool > 0:
            if self.io_iter < 1:
                raise WorkbookParameterError(f"{where}.io_iter", self.io_iter, "an integer >= 1")
            if not self.io_iter <= self.max_io_submit <= self.iocb_pool:
                raise WorkbookParameterError(f"{where}.max_io_submit", self.max_io_submit,
                                             f"between io_iter ({self.io_iter}) and iocb_pool ({self.iocb_pool})")
        for i, s in enumerate(self.streams):
            s.validate(f"{where}.streams[{i}]")


@dataclass(frozen=True)
class IOWorkload:
    """Processes and their files; ``phase`` names the benchmark operation (``SeqRead``...)."""

    name: str
    phase: str
    processes: tuple[Process, ...]
    t_max_s: float = 600.0  # simulated seconds at most
    description: str = ""
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    def validate(self) -> IOWorkload:
        if not self.processes:
            raise WorkbookParameterError("processes", 0, "at least one process")
        if len(self.processes) > 256:
            raise WorkbookParameterError("processes", len(self.processes), "at most 256")
        if not self.t_max_s > 0:
            raise WorkbookParameterError("t_max_s", self.t_max_s, "a positive number of seconds")
        for i, p in enumerate(self.processes):
            p.validate(f"processes[{i}]")
        return self

    @property
    def total_requests(self) -> int:
        return sum(s.total_requests for p in self.processes for s in p.streams)

    @property
    def total_bytes(self) -> int:
        return sum(s.total_requests * s.request_kb * 1024 for p in self.processes for s in p.streams)
