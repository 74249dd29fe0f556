"""mmtests' stress-highalloc as the 2012 configuration ran it (``global-dhp__stress-highalloc-performance``).

* :func:`stress_highalloc` -- the test with the configuration's values
  (``HIGHALLOC_ALLOC_RATE=16``, ``HIGHALLOC_PERCENTAGE=95``, order 9) and the
  model's priors for the build load;
* :func:`hydra` -- the same on Mel Gorman's test machine of the thread, with
  the machine and the load the reproduction fits on the revert-v5 column
  (``kernel_workbook.heuristics.compaction.highalloc_2012.calibrate``) passed in;
* :func:`small` -- a short, small run for tests and quick looks (a 32 MB zone,
  a 256 MB machine, a few seconds of each phase).

Every function returns a :class:`~kernel_workbook.models.compaction.StressHighalloc`
and takes any of its knobs by name.
"""

from __future__ import annotations

from ...config import mode
from ...models.compaction.workload import StressHighalloc

# the zone the model simulates by default, and in CI mode: the same, so that CI's stored figures are the lab's
ZONE_MB = 1024.0
ZONE_MB_CI = 1024.0


def zone_mb() -> float:
    """The simulated zone for the current ``WORKBOOK_MODE``."""
    return ZONE_MB_CI if mode().small else ZONE_MB


def stress_highalloc(**kw) -> StressHighalloc:
    """The 2012 configuration with the model's priors for the build load; knobs override by name."""
    kw.setdefault("zone_mb", zone_mb())
    return StressHighalloc(**kw)


def hydra(**kw) -> StressHighalloc:
    """Mel Gorman's machine of the thread: pass the fitted ``machine_mb``, ``page_ins_kb_s``,
    ``dirty_pages_s``, ``pgpgout_per_dirty_page``, ``unmovable_kb_s`` (see the reproduction)."""
    return stress_highalloc(**kw)


def small(**kw) -> StressHighalloc:
    """A small, short run (a 32 MB zone of a 256 MB machine, 5 s of warm-up, every step of the script short) for
    tests and quick looks."""
    base = dict(machine_mb=256.0, zone_mb=32.0, warmup_s=5.0, rested_gap_s=2.0, highalloc_percentage=40,
                pass_gap_s=1.0, wait_s=2.0, tree_mb=20.0, disk_mb_s=200.0,
                highalloc_alloc_rate=64, build_procs=8, compile_s=2.0, compile_anon_mb=8.0, page_ins_kb_s=2000.0,
                dirty_pages_s=400.0, unmovable_kb_s=20.0, sample_s=1.0)
    base.update(kw)
    return StressHighalloc(**base)


__all__ = ["stress_highalloc", "hydra", "small", "zone_mb", "ZONE_MB", "ZONE_MB_CI"]
