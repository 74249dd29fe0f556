"""The workload type of the compaction model: mmtests' stress-highalloc as the 2012 configuration ran it.

The test (``configs/config-global-dhp__stress-highalloc-performance-ext3``
of mmtests, ``HIGHALLOC_ALLOC_RATE=16``, ``HIGHALLOC_PERCENTAGE=95``,
``HIGHALLOC_GFPFLAGS=GFP_HIGHUSER_MOVABLE``, order = ``HUGETLB_PAGE_ORDER``
= 9) starts kernel builds in the background, then a kernel module tries to
allocate ``MemTotal * 95% / 2 MiB`` huge pages, one every ``ms_delay =
2 MiB / (16 MB/s)`` = 125 ms, keeps what it gets and frees it all at the end
of the pass (pass 1); pass 2 repeats at once under the same load; then the
builds are killed, the system synced, the caches dropped, and the test runs
once more at rest.

The model simulates a *slice* of the machine -- a zone of ``zone_mb`` --
that receives its share of every rate (``zone_mb / machine_mb``), and
scales its counters back to the whole machine; the test's attempts in the
slice are spaced so that a pass lasts as long as on the machine.  Generators
live in :mod:`kernel_workbook.heuristics.compaction.stress_highalloc`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import WorkbookParameterError
from ..knobs import Knobs, knob


@dataclass(frozen=True)
class StressHighalloc(Knobs):
    """mmtests stress-highalloc: the machine, the build load and the test's pacing."""

    # ---- the machine
    machine_mb: float = knob(4096.0, unit="MB", kernel="MemTotal", range=(64.0, 1048576.0),
                             widget=(512.0, 16384.0, 256.0), source="/proc/meminfo MemTotal (hydra)",
                             doc="the machine's memory; the reproduction fits it", packed=False)
    zone_mb: float = knob(1024.0, unit="MB", kernel="zone->present_pages (the simulated slice)",
                          range=(8.0, 65536.0), widget=(64.0, 2048.0, 64.0), packed=False,
                          source="mm/page_alloc.c free_area_init_core()",
                          doc="size of the zone the model simulates (its share of every rate)")
    nr_cpus: int = knob(4, unit="", kernel="num_online_cpus()", range=(1, 256), widget=(1, 32, 1), packed=False,
                        source="hydra (not stated in the thread; assumed)")

    # ---- the test (mmtests shellpacks/shellpack-bench-stress-highalloc, the highalloc module)
    highalloc_order: int = knob(9, unit="", kernel="HUGETLB_PAGE_ORDER", range=(1, 10), widget=(1, 10, 1),
                                packed=False, source="mmtests stress-highalloc (order of the test's allocations)")
    highalloc_gfpflags: str = knob(
        "GFP_ALLOC_LIKE_THP", choices=("GFP_ALLOC_LIKE_THP", "GFP_HIGHUSER_MOVABLE", "GFP_ALLOC_LIKE_HUGETLB"),
        kernel="HIGHALLOC_GFPFLAGS", packed=False,
        source="mmtests highalloc module: LIKE_THP = GFP_HIGHUSER_MOVABLE|__GFP_NOMEMALLOC|__GFP_NORETRY|"
               "__GFP_NO_KSWAPD (the flag is 0 where the kernel lacks it); LIKE_HUGETLB adds __GFP_REPEAT",
        doc="the test's GFP flags; THP-like by default: only those reproduce the revert-v5 column "
            "(docs/models/compaction.md)")
    highalloc_percentage: int = knob(95, unit="%", kernel="HIGHALLOC_PERCENTAGE", range=(1, 100), widget=(5, 100, 5),
                                     packed=False, source="mmtests config: share of MemTotal requested per pass")
    highalloc_alloc_rate: int = knob(16, unit="MB/s", kernel="HIGHALLOC_ALLOC_RATE", range=(1, 10000),
                                     widget=(1, 256, 1), packed=False,
                                     source="mmtests stress-highalloc: ms_delay = 2^order pages / rate")
    # the script's steps (vmr/bin/bench-stresshighalloc.sh of mmtests, July/August 2012)
    tree_mb: float = knob(360.0, unit="MB", kernel="(an unpacked linux-2.6.30 tree)", range=(0.0, 10000.0),
                          widget=(0.0, 1000.0, 10.0), packed=False,
                          source="the script untars linux-2.6.30 and cp -r's it once per build (NUM_KERNELS = "
                                 "MemTotal MB / 400 copies); the tree's size is assumed (a 2.6.3x tree: 350-400 MB)",
                          doc="0: no copies (the builds' trees are already in place)")
    disk_mb_s: float = knob(60.0, unit="MB/s", kernel="(the test disk's streaming rate)", range=(1.0, 10000.0),
                            widget=(10.0, 500.0, 10.0), packed=False,
                            source="the pace of the script's copies, dd and cat (assumed: one 2012 disk under ext3)")
    warmup_s: float = knob(300.0, unit="s", kernel="(builds running before pass 1)", range=(0.0, 3600.0),
                           widget=(0.0, 600.0, 10.0), packed=False,
                           source="bench-stresshighalloc.sh (2012): 'Sleeping 5 minutes', ten sleeps of 30 s")
    pass_gap_s: float = knob(5.0, unit="s", kernel="(sleep after a pass)", range=(0.0, 600.0),
                             widget=(0.0, 60.0, 1.0), packed=False, source="bench-stresshighalloc.sh: 'sleep 5'")
    wait_s: float = knob(180.0, unit="s", kernel="(builds running after pass 2)", range=(0.0, 3600.0),
                         widget=(0.0, 600.0, 10.0), packed=False,
                         source="bench-stresshighalloc.sh: 'Waiting ... for 180 seconds', then killall make")
    end_dd: bool = knob(True, kernel="dd if=/dev/zero of=largefile count=MemTotal MB; cat largefile; rm",
                        packed=False, source="bench-stresshighalloc.sh: 'DDing large file and deleting to flush "
                                             "buffer caches' after the trees are deleted",
                        doc="write and read back a file of MemTotal before the rested pass")
    rested_gap_s: float = knob(5.0, unit="s", kernel="(drop_caches, hugetlb pool resize, stap)", range=(0.0, 600.0),
                               widget=(0.0, 120.0, 5.0), packed=False,
                               source="bench-stresshighalloc.sh: drop_caches, nr_hugepages up and down, then the "
                                      "rested pass (the pause is assumed)")
    rested_min_free_kbytes: int = knob(1024, unit="KiB", kernel="min_free_kbytes (rested pass)",
                                       range=(128, 1048576), widget=(128, 65536, 128), packed=False,
                                       source="bench-stresshighalloc.sh: 'echo 1024 > /proc/sys/vm/min_free_kbytes' "
                                              "before the rested pass")

    # ---- the build load (kernel compiles)
    build_procs: int = knob(16, unit="", kernel="(concurrent compile processes)", range=(0, 4096), widget=(0, 64, 1),
                            packed=False, source="make -j of the background builds (assumed)")
    compile_s: float = knob(10.0, unit="s", kernel="(lifetime of a build process)", range=(0.01, 600.0),
                            widget=(1.0, 60.0, 1.0), packed=False,
                            source="kernel build: a make/cc1 process (assumed; coarser than cc1's ~1 s, see docs)")
    compile_anon_mb: float = knob(16.0, unit="MB", kernel="(anonymous memory of a cc1 process)", range=(0.0, 4096.0),
                                  widget=(0.0, 128.0, 2.0), packed=False, source="kernel build (assumed)")
    page_ins_kb_s: float = knob(2300.0, unit="KiB/s", kernel="pgpgin rate of the builds", range=(0.0, 1e7),
                                widget=(0.0, 20000.0, 100.0), packed=False,
                                source="/proc/vmstat pgpgin: files read into the page cache (the reproduction fits it)")
    dirty_pages_s: float = knob(400.0, unit="pages/s", kernel="new dirty page-cache pages of the builds",
                                range=(0.0, 1e7), widget=(0.0, 4000.0, 50.0), packed=False,
                                source="object files written (the reproduction fits it)")
    hot_refs_s: float = knob(200.0, unit="pages/s", kernel="PG_referenced set by re-reads", range=(0.0, 1e7),
                             widget=(0.0, 5000.0, 50.0), packed=False,
                             source="mm/swap.c mark_page_accessed() (headers re-read; assumed)")
    anon_hot: float = knob(0.9, unit="", kernel="page_referenced() of a build's anon page", range=(0.0, 1.0),
                           widget=(0.0, 1.0, 0.01), packed=False, source="mm/rmap.c page_referenced() (assumed)")
    thp_faults_s: float = knob(0.4, unit="1/s", kernel="THP faults and khugepaged collapses",
                               range=(0.0, 10000.0), widget=(0.0, 10.0, 0.1), packed=False,
                               source="mm/huge_memory.c do_huge_pmd_anonymous_page(), collapse_huge_page() (assumed)")
    # the dentry and inode of every new file, as slab pages (SLAB_RECLAIM_ACCOUNT) per page-cache page
    dentry_bytes: int = knob(192, unit="B", kernel="sizeof(struct dentry)", range=(0, 4096), widget=(0, 1024, 16),
                             packed=False, source="include/linux/dcache.h: DNAME_INLINE_LEN 32 /* 192 bytes */ (64-bit)")
    inode_bytes: int = knob(800, unit="B", kernel="sizeof(struct ext3_inode_info)", range=(0, 65536),
                            widget=(0, 2048, 16), packed=False,
                            source="fs/ext3/ext3.h: a struct inode and ext3's own fields (x86_64, 3.x; assumed)")
    file_pages: float = knob(4.0, unit="pages", kernel="(page-cache pages per file of the builds)",
                             range=(0.01, 1e6), widget=(0.5, 32.0, 0.5), packed=False,
                             source="a 3.x kernel tree: ~38,500 files in ~500 MB, ~3.2 pages a source file; "
                                    "objects larger (assumed)")
    unmovable_kb_s: float = knob(40.0, unit="KiB/s", kernel="long-lived unmovable kernel allocations",
                                 range=(0.0, 1e6), widget=(0.0, 400.0, 5.0), packed=False,
                                 source="kmalloc/slab growth of the builds (the reproduction fits it)")
    proc_kernel_pages: int = knob(6, unit="pages", kernel="page tables + kernel stack of a process",
                                  range=(0, 4096), widget=(0, 64, 1), packed=False,
                                  source="mm/memory.c __pte_alloc(), kernel/fork.c (assumed)")
    initial_page_cache_pct: float = knob(
        10.0, unit="%", kernel="page cache left by the tests before", range=(0.0, 99.0), widget=(0.0, 99.0, 1.0),
        packed=False, source="assumed: kernbench, vmr-stream and sysbench run before stress-highalloc, and sysbench "
                             "ends with DROP DATABASE (mmtests shellpack-bench-sysbench, 2012); what stays cached is "
                             "unknown (the notebook sweeps it)",
        doc="clean page cache (and its dentries/inodes) filling the zone when the builds start")
    pgpgout_per_dirty_page: float = knob(
        4.0, unit="KiB", kernel="pgpgout per page-cache page written", range=(0.0, 1e4), widget=(4.0, 64.0, 1.0),
        packed=False, source="block/blk-core.c submit_bio() counts every write: data, journal, metadata "
                             "(the reproduction fits it)")
    boot_unmovable_pct: float = knob(1.5, unit="%", kernel="memory the kernel holds after boot",
                                     range=(0.0, 50.0), widget=(0.0, 10.0, 0.5), packed=False,
                                     source="mm/page_alloc.c (boot-time allocations; assumed)")

    writeback_ms: float = knob(20.0, unit="ms", kernel="PG_writeback: submission to end_page_writeback()",
                               range=(0.0, 10000.0), widget=(0.0, 200.0, 5.0), packed=False,
                               source="the disk's write latency (assumed)")

    # ---- the simulation
    tick_ms: float = knob(10.0, unit="ms", kernel="(simulation step)", range=(0.1, 1000.0), widget=(1.0, 100.0, 1.0),
                          packed=False, source="the model's clock")
    sample_s: float = knob(10.0, unit="s", kernel="MONITOR_UPDATE_FREQUENCY", range=(0.1, 3600.0),
                           widget=(1.0, 60.0, 1.0), packed=False, source="mmtests monitors (buddyinfo, vmstat)")

    def check(self):
        if self.zone_mb > self.machine_mb:
            raise WorkbookParameterError("zone_mb", self.zone_mb, f"<= machine_mb ({self.machine_mb})")
        pages = int(self.zone_mb * 256)
        if pages < 4 * 512:
            raise WorkbookParameterError("zone_mb", self.zone_mb, ">= 8 MB (four pageblocks)")

    # ---- what the test derives
    @property
    def ms_delay(self) -> float:
        """The highalloc module's delay between attempts (ms), as mmtests computes it (integer arithmetic)."""
        alloc_bytes = 4096 * (1 << self.highalloc_order)
        bytes_per_ms = self.highalloc_alloc_rate * 1048576 // 1000
        return float(alloc_bytes // bytes_per_ms)

    @property
    def count(self) -> int:
        """Attempts per pass on the whole machine: MemTotal * percentage / huge page size."""
        return int(self.machine_mb * 1048576 * self.highalloc_percentage // (4096 * (1 << self.highalloc_order) * 100))

    @property
    def share(self) -> float:
        """The slice's share of the machine (zone_mb / machine_mb)."""
        return self.zone_mb / self.machine_mb

    def pass_s(self) -> float:
        """The length of one pass when every attempt keeps to ``ms_delay``."""
        return self.count * self.ms_delay / 1000.0

    @property
    def nr_kernels(self) -> int:
        """The trees the script copies and builds besides the primary: ``NUM_KERNELS = MemTotal MB / 400``."""
        return int(self.machine_mb) // 400

    def setup_s(self) -> float:
        """Untarring the tree and making the copies, at the disk's rate."""
        return (self.nr_kernels + 1) * self.tree_mb / self.disk_mb_s

    def end_s(self) -> float:
        """``dd`` of MemTotal and ``cat`` of it (read back whole: a sequential re-read of a file as large as
        memory cascades), at the disk's rate."""
        return 2.0 * self.machine_mb / self.disk_mb_s if self.end_dd else 0.0

    def elapsed_s(self) -> float:
        """The whole test, the copies to the end of the rested pass, when attempts keep to ``ms_delay``."""
        return (self.setup_s() + self.warmup_s + 2 * self.pass_s() + 2 * self.pass_gap_s + self.wait_s
                + self.end_s() + self.rested_gap_s + self.pass_s())


__all__ = ["StressHighalloc"]
