"""The workload type of the writeback model: a machine, its memory split, what is dirty and who allocates.

akpm's 2002 test (``mmap(MAP_SHARED)`` almost all of a 4 GB machine, dirty
it, kill the mappers: 0% to 95% dirty at once) and a desktop-like light load
are instances, built by :mod:`kernel_workbook.heuristics.writeback.workloads_2007`.

The run starts at the moment the state is set up (for akpm's test: the
instant the mappers die) with ``file_pct`` of memory in page cache, of which
``dirty_pct`` is dirty, dirtied oldest-first from the highest zone down (the
mapping was faulted in from HIGHMEM first, so pdflush's least-recently-
dirtied pages "are all highmem").  Then a process allocates ``alloc_mb_s``
(``lowmem_pct`` of it kernel allocations that only the low zones can serve),
writes ``write_pct`` of what it allocates (through ``balance_dirty_pages``),
and touches a hot set of ``hot_pct`` of memory ``refs_per_s`` times a second
(the pages it keeps active).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import WorkbookParameterError
from ..knobs import Knobs, knob

ZONE_NAMES = {"i386": ("dma", "normal", "high"), "x86_64": ("dma", "dma32", "normal")}
DMA_MB = 16.0  # ZONE_DMA: the first 16 MB on both


@dataclass(frozen=True)
class WritebackLoad(Knobs):
    """The machine and the load of one run."""

    arch: str = knob("i386", choices=("i386", "x86_64"), kernel="CONFIG_HIGHMEM / CONFIG_ZONE_DMA32",
                     packed=False, source="include/linux/mmzone.h enum zone_type",
                     doc="i386: DMA, NORMAL (lowmem), HIGHMEM; x86_64: DMA, DMA32, NORMAL")
    lowmem_mb: float = knob(880.0, unit="MB", kernel="ZONE_NORMAL (i386) / ZONE_DMA32 (x86_64) present pages",
                            range=(8.0, 65536.0), widget=(32.0, 4096.0, 16.0), packed=False,
                            source="arch/i386/mm/discontig.c / arch/x86_64/mm/init.c zone sizes",
                            doc="the zone kernel allocations come from")
    highmem_mb: float = knob(3200.0, unit="MB", kernel="ZONE_HIGHMEM (i386) / ZONE_NORMAL (x86_64) present pages",
                             range=(0.0, 1048576.0), widget=(0.0, 16384.0, 64.0), packed=False,
                             source="arch/i386/mm/discontig.c / arch/x86_64/mm/init.c zone sizes",
                             doc="the zone only user pages can use (0: none)")
    nr_cpus: int = knob(2, unit="", kernel="num_online_cpus()", range=(1, 64), widget=(1, 16, 1), packed=False,
                        source="(the machine; assumed)")
    file_pct: float = knob(97.0, unit="%", kernel="NR_FILE_PAGES at the start", range=(0.0, 100.0),
                           widget=(0.0, 100.0, 1.0), packed=False, source="(the workload)",
                           doc="page cache at the start, as a share of each zone (the rest is free; a zone "
                               "never starts below its pages_high)")
    dirty_pct: float = knob(98.0, unit="%", kernel="NR_FILE_DIRTY at the start", range=(0.0, 100.0),
                            widget=(0.0, 100.0, 1.0), packed=False, source="(the workload)",
                            doc="share of that page cache which is dirty")
    duration_s: float = knob(30.0, unit="s", kernel="(simulated time)", range=(0.1, 3600.0),
                             widget=(1.0, 120.0, 1.0), packed=False, source="(the run)")
    alloc_mb_s: float = knob(100.0, unit="MB/s", kernel="(page allocations of the load)", range=(0.0, 10000.0),
                             widget=(0.0, 500.0, 5.0), packed=False, source="mm/page_alloc.c __alloc_pages()",
                             doc="how fast the load asks for pages (it waits in reclaim when it cannot have them)")
    lowmem_pct: float = knob(10.0, unit="%", kernel="GFP_KERNEL share of the allocations", range=(0.0, 100.0),
                             widget=(0.0, 100.0, 1.0), packed=False, source="mm/page_alloc.c zonelists",
                             doc="allocations only the low zones may serve (slab, page tables, buffer heads)")
    write_pct: float = knob(0.0, unit="%", kernel="(share of allocated page cache the load dirties)",
                            range=(0.0, 100.0), widget=(0.0, 100.0, 1.0), packed=False,
                            source="mm/filemap.c generic_perform_write() -> balance_dirty_pages_ratelimited()")
    hot_pct: float = knob(0.0, unit="%", kernel="(hot set: pages the load keeps referencing)", range=(0.0, 90.0),
                          widget=(0.0, 90.0, 1.0), packed=False, source="mm/rmap.c page_referenced()")
    refs_per_s: float = knob(0.0, unit="1/s", kernel="(references to the hot set per second)",
                             range=(0.0, 1e7), widget=(0.0, 100000.0, 500.0), packed=False,
                             source="mm/swap.c mark_page_accessed()")
    sample_ms: float = knob(100.0, unit="ms", kernel="(sampling period of /proc/vmstat)", range=(1.0, 10000.0),
                            widget=(10.0, 2000.0, 10.0), packed=False, source="(the capture)")

    def check(self):
        if self.lowmem_mb + self.highmem_mb + DMA_MB > 1048576.0:
            raise WorkbookParameterError("highmem_mb", self.highmem_mb, "a machine of at most 1 TB")

    @property
    def zone_names(self) -> tuple:
        return ZONE_NAMES[self.arch]

    @property
    def machine_mb(self) -> float:
        return DMA_MB + self.lowmem_mb + self.highmem_mb


__all__ = ["WritebackLoad", "ZONE_NAMES", "DMA_MB"]
