"""The workloads of the 2007 throttle_vm_writeout thread, as :class:`~kernel_workbook.models.writeback.WritebackLoad`.

* :func:`akpm_test` -- Andrew Morton's test of c4e2d7dd (Dec 2002): "mmap(MAP_SHARED)
  almost all of a 4G machine's memory, then kill the mmapping applications. The
  machine instantly goes from 0% of memory dirty to 95% or more."  An i386
  machine of 4 GB: ZONE_DMA 16 MB, ZONE_NORMAL 880 MB (the 896 MB of lowmem),
  ZONE_HIGHMEM the rest.  The run starts at the kill: 97% of memory is page
  cache, 98% of it dirty (95% of memory).  The load that needs memory after
  the kill is not described; it is assumed (before any model run was looked
  at) to ask for 100 MB/s, a tenth of it kernel allocations only lowmem can
  serve -- what makes ZONE_NORMAL, not HIGHMEM, the zone kswapd must balance.
* :func:`desktop_light` -- akpm's "lightly-loaded 3GB desktop" (x86_64: its
  ``pgscan_kswapd_dma32`` is the only busy counter), ten days up: memory full
  of page cache (free pages at the watermarks, as on any machine that has been
  up long enough), clean but for 1%, a slow stream of new page cache (1 MB/s,
  5% of it written), a hot set of 20% of memory referenced.
"""

from __future__ import annotations

from ...config import mode
from ...models.writeback import WritebackLoad


def _ci() -> bool:
    return mode().small


def akpm_test(machine_mb: float = 4096.0, duration_s: float | None = None, **kw) -> WritebackLoad:
    """akpm's 2002 test on a ``machine_mb`` i386 machine; ``duration_s`` after the kill (30 s; 10 s in CI)."""
    low = min(880.0, machine_mb - 16.0 - 8.0) if machine_mb >= 896.0 else (machine_mb - 16.0) * 0.25
    high = machine_mb - 16.0 - low
    d = duration_s if duration_s is not None else (10.0 if _ci() else 30.0)
    base = dict(arch="i386", lowmem_mb=low, highmem_mb=high, nr_cpus=2, file_pct=97.0, dirty_pct=98.0,
                duration_s=d, alloc_mb_s=100.0, lowmem_pct=10.0, write_pct=0.0, hot_pct=0.0, refs_per_s=0.0)
    base.update(kw)
    return WritebackLoad(**base)


def desktop_light(machine_mb: float = 3072.0, duration_s: float | None = None, **kw) -> WritebackLoad:
    """A lightly loaded x86_64 desktop of ``machine_mb`` (all above DMA is DMA32 below 4 GB)."""
    d = duration_s if duration_s is not None else (20.0 if _ci() else 60.0)
    base = dict(arch="x86_64", lowmem_mb=machine_mb - 16.0, highmem_mb=0.0, nr_cpus=2, file_pct=100.0,
                dirty_pct=1.0, duration_s=d, alloc_mb_s=1.0, lowmem_pct=0.0, write_pct=5.0, hot_pct=20.0,
                refs_per_s=2000.0)
    base.update(kw)
    return WritebackLoad(**base)


__all__ = ["akpm_test", "desktop_light"]
