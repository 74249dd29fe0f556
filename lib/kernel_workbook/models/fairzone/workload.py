"""The fair-zone model's workload: phases of page-cache use (built by its heuristic's generators, heuristics/fairzone).

A :class:`PageCacheWorkload` is a sequence of :class:`Phase` rows the
kernel runs in order: threads writing or reading their files front to back,
random writes and reads, deleting the files, idle time, and the kernel or
user space taking or giving back memory outside the file LRU.
:mod:`kernel_workbook.heuristics.fairzone.pagecache` builds tiobench's from these.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .layout import OP

PHASE_NAMES = {0: "SeqWrite", 1: "RandWrite", 2: "SeqRead", 3: "RandRead", -1: "other"}


@dataclass(frozen=True)
class Phase:
    op: int  # layout.OP
    threads: int = 1
    file_pages: int = 0  # pages per thread's file
    ops: int = 0  # random operations per thread (random phases); ns (OP_IDLE)
    chunk: int = 32  # pages a thread handles before another may run
    dt_miss_ns: int = 0
    dt_hit_ns: int = 0
    dt_write_ns: int = 0
    kind: int = -1  # 0 SeqWrite, 1 RandWrite, 2 SeqRead, 3 RandRead, -1 other
    run: int = 0  # which tiobench invocation
    file0: int = 0  # first page id of thread 0's file


@dataclass(frozen=True)
class PageCacheWorkload:
    name: str
    phases: tuple
    description: str = ""
    meta: dict = field(default_factory=dict)

    @property
    def max_pages(self) -> int:
        return max([p.file0 + p.threads * p.file_pages for p in self.phases] + [1])

    @property
    def max_threads(self) -> int:
        return max([p.threads for p in self.phases] + [1])

    def random_draws(self) -> int:
        n = 0
        for p in self.phases:
            if p.op in (OP.seq_write, OP.seq_read):
                n += p.threads * (-(-p.file_pages // max(p.chunk, 1))) + 1
            elif p.op in (OP.rand_write, OP.rand_read):
                n += 2 * p.threads * p.ops
        return n
