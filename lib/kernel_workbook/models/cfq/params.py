"""The knobs of the disk/CFQ model, each declared once with its kernel name, unit and source.

:class:`IOParams` is the whole parameter set of one run: the elevator
(``/sys/block/<dev>/queue/scheduler``), ``CONFIG_HZ``, CFQ's tunables
(:class:`CFQParams`, ``block/cfq-iosched.c``: the ``static`` defaults at the
top of the file, shown in ms by ``/sys/block/<dev>/queue/iosched/``),
deadline's (:class:`DeadlineParams`) and the device (:class:`DiskParams`).
Knobs of nested sets are reached by their own names:
``p.with_(cfq_target_latency=600, rpm=5400, scheduler="deadline")``.

Every CFQ time is converted to jiffies as the kernel does it: the default by
the kernel's own ``HZ`` expression (``cfq_slice_idle = HZ / 125``), any other
value as the sysfs store does (``msecs_to_jiffies``, rounded up), with
``cfq_init()``'s "could be 0 on HZ < 1000 setups" floor of one jiffy.

Presets: the kernels of the threads (:func:`cfq_for_kernel`, :data:`VARIANTS`)
and the machines (:data:`PRESETS`).  What is recalled rather than read in the
source is said so in the flag's doc ([R]); see ``docs/models/cfq.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from ...errors import WorkbookParameterError
from ..knobs import TUNABLE_DEV, Knobs, knob, nested

SCHEDULERS = ("noop", "deadline", "cfq")
HZ_VALUES = (100, 250, 300, 1000)
SECTOR = 512
CFQ_SRC = "block/cfq-iosched.c"


# --------------------------------------------------------------------------- conversions to kernel units

def ms_to_jiffies(ms: float, HZ: int) -> int:
    """``msecs_to_jiffies()``: rounds up."""
    return int(math.ceil(ms * HZ / 1000.0 - 1e-9))


def cfq_jiffies(default_ms: float, hz_expr, minimum: int = 0):
    """A CFQ time's ``to_kernel``: the kernel's ``HZ`` expression for the default, else ``msecs_to_jiffies``.

    ``hz_expr(HZ)`` is the static initialiser (``lambda h: h // 10`` for
    ``cfq_slice[1] = HZ / 10``); ``minimum`` is ``cfq_init()``'s floor.
    """
    def to_kernel(ms, params) -> int:
        j = hz_expr(params.HZ) if abs(ms - default_ms) < 1e-12 else ms_to_jiffies(ms, params.HZ)
        return max(j, minimum)
    return to_kernel


def plain_jiffies(ms, params) -> int:
    return ms_to_jiffies(ms, params.HZ)


def ms_to_ns(ms, params) -> int:
    return int(round(ms * 1e6))


def us_to_ns(us, params) -> int:
    return int(round(us * 1e3))


def kib_to_sectors(kb, params) -> int:
    return int(kb) * 2


# --------------------------------------------------------------------------- CFQ

QUEUE = f"/sys/block/{TUNABLE_DEV}/queue/"  # a request queue's tunables (block/blk-sysfs.c)
IOSCHED = QUEUE + "iosched/"  # an I/O scheduler's tunables (block/elevator.c elv_register_queue())

@dataclass(frozen=True)
class CFQParams(Knobs):
    """CFQ's tunables (ms, as sysfs shows them) and the variants of the threads (flags)."""

    cfq_quantum: int = knob(
        8, unit="requests", source=f"{CFQ_SRC} cfq_may_dispatch()", range=(1, None), widget=(1, 32, 1),
        tunable=IOSCHED + "quantum",
        doc="requests the active queue may have in the driver before it is limited")
    cfq_fifo_expire_sync: float = knob(
        125.0, unit="ms", kernel="cfq_fifo_expire[1]", source=f"{CFQ_SRC} cfq_check_fifo()", range=(1, None),
        tunable=IOSCHED + "fifo_expire_sync",
        widget=(10, 1000, 5), to_kernel=cfq_jiffies(125.0, lambda h: h // 8, 1), packed="int",
        doc="a sync request older than this is served first, once per slice (HZ / 8)")
    cfq_fifo_expire_async: float = knob(
        250.0, unit="ms", kernel="cfq_fifo_expire[0]", source=f"{CFQ_SRC} cfq_check_fifo()", range=(1, None),
        tunable=IOSCHED + "fifo_expire_async",
        widget=(10, 2000, 10), to_kernel=cfq_jiffies(250.0, lambda h: h // 4, 1), packed="int",
        doc="the same for async requests (HZ / 4)")
    cfq_back_max: int = knob(
        16 * 1024, unit="KiB", source=f"{CFQ_SRC} cfq_choose_req()", range=(0, None), widget=(0, 65536, 1024),
        tunable=IOSCHED + "back_seek_max",
        doc="the longest backward seek cfq_choose_req() still considers")
    cfq_back_penalty: int = knob(
        2, unit="", source=f"{CFQ_SRC} cfq_choose_req()", range=(1, None), widget=(1, 16, 1),
        tunable=IOSCHED + "back_seek_penalty",
        doc="a backward distance counts this many times a forward one")
    cfq_slice_sync: float = knob(
        100.0, unit="ms", kernel="cfq_slice[1]", source=f"{CFQ_SRC} cfq_prio_slice()", range=(1, None),
        tunable=IOSCHED + "slice_sync",
        widget=(10, 300, 10), to_kernel=cfq_jiffies(100.0, lambda h: h // 10, 1), packed="int",
        doc="base time slice of a sync queue at priority 4 (HZ / 10)")
    cfq_slice_async: float = knob(
        40.0, unit="ms", kernel="cfq_slice[0]", source=f"{CFQ_SRC} cfq_prio_slice()", range=(1, None),
        tunable=IOSCHED + "slice_async",
        widget=(4, 200, 4), to_kernel=cfq_jiffies(40.0, lambda h: max(1, h // 25), 1), packed="int",
        doc="base time slice of an async queue (HZ / 25)")
    cfq_slice_async_rq: int = knob(
        2, unit="", source=f"{CFQ_SRC} cfq_dispatch_requests()", range=(1, None), widget=(1, 16, 1),
        tunable=IOSCHED + "slice_async_rq",
        doc="an async queue expires after 2 x this x (8 - prio) dispatches when others are busy")
    cfq_slice_idle: float = knob(
        8.0, unit="ms", source=f"{CFQ_SRC} cfq_arm_slice_timer()", range=(0, None), widget=(0, 20, 1),
        tunable=IOSCHED + "slice_idle",
        to_kernel=cfq_jiffies(8.0, lambda h: max(1, h // 125), 0), packed="int",
        doc="how long an emptied sync queue waits for its next request (HZ / 125; 0: never idle)")
    cfq_group_idle: float = knob(
        8.0, unit="ms", source=f"{CFQ_SRC} cfq_select_queue() check_group_idle", range=(0, None),
        tunable=IOSCHED + "group_idle",
        widget=(0, 20, 1), to_kernel=cfq_jiffies(8.0, lambda h: max(1, h // 125), 0), packed="int",
        doc="idling for the last queue of a group (HZ / 125)")
    cfq_latency: bool = knob(
        True, kernel="cfq_latency", source=f"{CFQ_SRC} cfq_scaled_cfqq_slice()",
        tunable=IOSCHED + "low_latency",
        doc="shrink slices so that every busy queue gets a turn within cfq_target_latency")
    cfq_target_latency: float = knob(
        300.0, unit="ms", source=f"{CFQ_SRC} cfq_group_slice()", range=(1, None), widget=(50, 1200, 50),
        tunable=IOSCHED + "target_latency",
        to_kernel=cfq_jiffies(300.0, lambda h: h * 3 // 10, 1), packed="int",
        doc="the time every busy queue should get a turn in, with low_latency (HZ * 3 / 10; "
            "Mel Gorman's 2014 patch 1/4: 600)")
    cfq_hist_divisor: int = knob(
        4, unit="", source=f"{CFQ_SRC} cfq_group_get_avg_queues()", range=(1, None), widget=(1, 16, 1),
        doc="weight of the old value in the fast-up, slow-down average of busy queues")

    # ---- variants: each names the code it switches
    cfq_mark_cfqq_deep: bool = knob(
        True, kernel="cfq_mark_cfqq_deep()", source=f"{CFQ_SRC} cfq_update_idle_window() (76280aff1c7e)",
        doc="mark a sync queue 'deep' when it holds 4 or more requests; off: the 2011 thread's experiment "
            "with those two lines commented out")
    cfq_clear_cfqq_deep_fast_device: bool = knob(
        True, kernel="cfq_clear_cfqq_deep()", source=f"{CFQ_SRC} cfq_select_queue() (8e1ac6655104)",
        doc="a seeky idling queue that empties before half its slice loses 'deep' and idle_window "
            "('the device is much faster than the queue can deliver'); off: 3.1.0-rc2 w/o 8e1ac6655104")
    cfq_clear_cfqq_deep_unconditional: bool = knob(
        False, kernel="cfq_clear_cfqq_deep()", source=f"{CFQ_SRC} cfq_select_queue()",
        doc="the same block with its half-slice condition commented out (the 2011 'always clear deep')")
    patlasov_2011: bool = knob(
        False, kernel="(the 2011 patch)", source=f"{CFQ_SRC} cfq_completed_request(), cfq_update_idle_window()",
        doc="the 2011 patch as its cover letter describes it (its diff is not in the thread: our reading, [I]): "
            "where the active queue empties with nothing in flight, judge the device faster than the queue if the "
            "mean service time of its requests this slice is below its think time (ns); then clear deep and "
            "idle_window, resort to SYNC_NOIDLE at once and remember the verdict so that the next batch does not "
            "mark it deep again")
    cfq_should_preempt_idle_queue: bool = knob(
        True, kernel="cfq_should_preempt()", source=f"{CFQ_SRC} cfq_should_preempt()",
        doc="'an idle queue should not be idle now for some reason': an empty active queue that should not idle "
            "is preempted (in 4.2's source; present in 3.1 is recalled, [R])")
    cfq_io_thinktime_big: bool = knob(
        True, kernel="cfq_io_thinktime_big()", source=f"{CFQ_SRC} cfq_should_idle(), cfq_select_queue()",
        doc="3.3+: the service tree's and the group's think time also decide idling (3.0/3.1: only the "
            "process's; the version is recalled, [R])")
    cfq_may_dispatch_promote_sync: bool = knob(
        True, kernel="promote_sync", source=f"{CFQ_SRC} cfq_may_dispatch()",
        doc="the only busy sync queue has no dispatch limit ('useful for aiostress test')")


# --------------------------------------------------------------------------- deadline

DL_SRC = "block/deadline-iosched.c"


@dataclass(frozen=True)
class DeadlineParams(Knobs):
    """``block/deadline-iosched.c`` tunables (sysfs ``iosched/``)."""

    read_expire: float = knob(
        500.0, unit="ms", kernel="fifo_expire[READ]", source=f"{DL_SRC} deadline_check_fifo()", range=(0, None),
        tunable=IOSCHED + "read_expire",
        widget=(10, 2000, 10), to_kernel=plain_jiffies, packed="int", doc="a read's deadline (HZ / 2)")
    write_expire: float = knob(
        5000.0, unit="ms", kernel="fifo_expire[WRITE]", source=f"{DL_SRC} deadline_check_fifo()", range=(0, None),
        tunable=IOSCHED + "write_expire",
        widget=(100, 20000, 100), to_kernel=plain_jiffies, packed="int", doc="a write's deadline (5 * HZ)")
    writes_starved: int = knob(
        2, unit="", source=f"{DL_SRC} deadline_dispatch_requests()", range=(0, None), widget=(0, 16, 1),
        tunable=IOSCHED + "writes_starved",
        doc="read batches that may pass waiting writes")
    fifo_batch: int = knob(
        16, unit="requests", source=f"{DL_SRC} deadline_dispatch_requests()", range=(1, None), widget=(1, 64, 1),
        tunable=IOSCHED + "fifo_batch",
        doc="requests dispatched in sector order as one batch")
    deadline_rbtree_2002: bool = knob(
        False, kernel="deadline_dispatch_requests(), deadline_move_requests() of late 2002",
        source="drivers/block/deadline-iosched.c of 2.5.46-BK with Jens Axboe's rbtree patch (lkml 'Re: 2.5.46-mm2', "
               "2002-11-10), carried as rbtree-iosched.patch in 2.5.52-mm2",
        doc="the deadline of the 2002 thread's kernels: only reads have a deadline (read_fifo); every batch starts at "
            "the lowest-sector request (rb_first) and ends at the first seek (seek_cost 16 of fifo_batch 16; one per "
            "stream_unit 256 KiB of contiguous data); off: the 2.6 deadline (write_expire, batches continuing upward)")


# --------------------------------------------------------------------------- the device

DEV = "the drive (data sheet)"


@dataclass(frozen=True)
class DiskParams(Knobs):
    """One block device: a spinning disk (``spindles=1``) or a RAID-0 of identical spindles.

    Not kernel variables: the drive's mechanics, from data sheets of the
    class of drive a thread names (:data:`PRESETS` says which).  The kernel
    reads them in the units of its slots: times in ns, sizes in sectors.
    """

    name: str = "disk"  # a label, not a knob
    rpm: float = knob(7200.0, unit="rev/min", source=DEV, range=(60, 30000), widget=(4200, 15000, 600),
                      packed=False, doc="spindle speed (the kernel reads rot_ns)")
    media_rate_mb_s: float = knob(120.0, unit="MB/s", source=DEV, range=(1, None), widget=(40, 300, 5), packed=False,
                                  doc="sustained sequential rate, 10^6 B/s (the kernel reads sectors_per_track)")
    cylinders: int = knob(200_000, unit="cylinders", source=DEV, range=(10, None), widget=(1000, 500_000, 1000),
                          packed=False, doc="cylinders across the stroke (sets the seek table)")
    heads: int = knob(4, unit="surfaces", source=DEV, range=(1, 64), widget=(1, 16, 1),
                      doc="recording surfaces = tracks per cylinder")
    seek_track_ms: float = knob(0.8, unit="ms", source=DEV, range=(0.001, None), widget=(0.1, 5, 0.1), packed=False,
                                doc="track-to-track seek and settle (sets the seek table)")
    seek_avg_ms: float = knob(8.5, unit="ms", source=DEV, range=(0.001, None), widget=(1, 30, 0.5), packed=False,
                              doc="average (one-third stroke) read seek (sets the seek table)")
    seek_full_ms: float = knob(18.0, unit="ms", source=DEV, range=(0.001, None), widget=(2, 60, 1), packed=False,
                               doc="full-stroke seek (sets the seek table)")
    write_settle_ms: float = knob(0.3, unit="ms", source=DEV, range=(0, None), widget=(0, 2, 0.1), to_kernel=ms_to_ns,
                                  packed="int", doc="extra settle before writing after a seek")
    cmd_overhead_us: float = knob(50.0, unit="us", source="the drive's firmware / the controller", range=(0, None),
                                  widget=(0, 500, 10), to_kernel=us_to_ns, packed="int",
                                  doc="firmware or controller time per command, added at completion")
    interface_mb_s: float = knob(300.0, unit="MB/s", source="the host link (SATA, SAS, PCIe)", range=(1, None),
                                 widget=(100, 2000, 50), packed=False,
                                 doc="host link rate (the kernel reads if_ps_per_sector)")
    ncq_depth: int = knob(31, unit="commands", kernel="queue_depth",
                          tunable=f"/sys/block/{TUNABLE_DEV}/device/queue_depth",
                          source="drivers/ata/libata-scsi.c (NCQ: 31 usable tags)", range=(1, 1024),
                          widget=(1, 128, 1), doc="commands the device accepts at once")
    ncq_reorder: bool = knob(True, source=DEV, doc="the drive serves the command it can start soonest "
                                                  "(rotational position ordering); off: FIFO")
    ncq_max_age_ms: float = knob(500.0, unit="ms", source=DEV, range=(0, None), widget=(10, 2000, 10),
                                 to_kernel=ms_to_ns, packed="int", doc="a command older than this is served next")
    readahead_kb: int = knob(512, unit="KiB", source=DEV, range=(0, None), widget=(0, 2048, 32),
                             to_kernel=kib_to_sectors, doc="the drive reads ahead this much after a read, while idle")
    read_segments: int = knob(16, unit="segments", source=DEV, range=(0, None), widget=(0, 64, 1),
                              doc="cache segments kept for earlier reads")
    write_cache: bool = knob(True, kernel="write cache (hdparm -W1)", source=DEV,
                             doc="write-back cache: a write is acknowledged once it is in the cache")
    write_cache_kb: int = knob(8192, unit="KiB", source=DEV, range=(0, None), widget=(0, 65536, 256),
                               to_kernel=kib_to_sectors, doc="cache room for dirty data")
    write_cache_extents: int = knob(64, unit="extents", source=DEV, range=(1, None), widget=(1, 1024, 1),
                                    doc="dirty extents (segments) the cache can track")
    write_coalesce: bool = knob(True, source=DEV, doc="contiguous writes merge into one extent, written back "
                                                      "in one media op")
    media_overhead_us: float = knob(0.0, unit="us", source=DEV, range=(0, None), widget=(0, 500, 10),
                                    to_kernel=us_to_ns, packed="int",
                                    doc="firmware time between two media ops, before the next seek")
    spindles: int = knob(1, unit="disks", source="the RAID-0 (1: a plain disk)", range=(1, 64), widget=(1, 16, 1),
                         doc="RAID-0 members")
    stripe_kb: int = knob(64, unit="KiB", source="the RAID-0 controller", range=(4, None), widget=(4, 1024, 4),
                          to_kernel=kib_to_sectors, doc="RAID-0 stripe unit")
    nonrot: bool = knob(False, kernel="QUEUE_FLAG_NONROT (/sys/block/<dev>/queue/rotational = 0)",
                        source=f"{CFQ_SRC} blk_queue_nonrot()", doc="a non-rotational device: CFQ stops idling "
                                                                     "once it sees NCQ")

    def check(self):
        if not (self.seek_track_ms <= self.seek_avg_ms <= self.seek_full_ms):
            raise WorkbookParameterError(
                "seek_avg_ms", self.seek_avg_ms,
                f"between seek_track_ms ({self.seek_track_ms}) and seek_full_ms ({self.seek_full_ms})")

    # ---- derived geometry
    @property
    def rot_ns(self) -> int:
        """Nanoseconds per revolution."""
        return int(round(60e9 / self.rpm))

    @property
    def sectors_per_track(self) -> int:
        """Sectors per track that give ``media_rate_mb_s`` at ``rpm``."""
        return max(1, int(round(self.media_rate_mb_s * 1e6 / SECTOR / (self.rpm / 60.0))))

    @property
    def if_ps_per_sector(self) -> int:
        """Picoseconds per sector over the host link."""
        return int(round(SECTOR * 1e6 / self.interface_mb_s))

    @property
    def capacity_sectors(self) -> int:
        return self.cylinders * self.heads * self.sectors_per_track

    @property
    def capacity_gb(self) -> float:
        return self.capacity_sectors * SECTOR / 1e9


# Each value: the class of drive the thread describes and the data sheet it is
# typical of.  Fields marked "calibrated" are refitted by kernel_workbook.reproduce
# to the thread's baseline column only; the number here is a data-sheet
# starting point, not a fitted value.

DESKTOP_2014 = DiskParams(
    name="desktop-2014",
    # "a mid-range desktop with a single spinning disk" (Mel Gorman, 2014): a
    # 3.5" 7200 rpm 1 TB SATA disk of 2012-2014 (WD Blue WD10EZEX, Seagate
    # Barracuda 7200.14 ST1000DM003 class).
    rpm=7200.0,  # data sheet
    media_rate_mb_s=150.0,  # calibrated: data sheets give 150-210 MB/s outer zone; refitted to vanilla SeqRead-1
    cylinders=250_000,  # ~1 TB over 4 surfaces at ~1900 sectors/track
    heads=4,  # two platters
    seek_track_ms=0.8,  # data sheets: 0.8-2 ms read track-to-track
    seek_avg_ms=8.5,  # Seagate 7200.14: <8.5 ms average read seek
    seek_full_ms=18.0,  # typical full stroke for 3.5" 7200 rpm
    write_settle_ms=0.3,
    cmd_overhead_us=50.0,  # SATA command setup + firmware, tens of microseconds
    interface_mb_s=600.0,  # SATA 6 Gb/s
    ncq_depth=31,  # libata exposes 31 NCQ tags
    readahead_kb=512,  # drives prefetch a segment of several hundred KiB after a read
    read_segments=16,
    write_cache=True,
    write_cache_kb=32768,  # 64 MB cache, about half usable for writes
    write_cache_extents=64,
)

LAPTOP_2014 = DiskParams(
    name="laptop-2014",
    # "a laptop" (2014): a 2.5" 5400 rpm 500 GB SATA disk (WD Scorpio Blue
    # WD5000BEVT, HGST Travelstar 5K500 class).
    rpm=5400.0,  # data sheet
    media_rate_mb_s=100.0,  # calibrated (data sheets: 80-110 MB/s outer zone)
    cylinders=180_000,
    heads=4,
    seek_track_ms=2.0,  # 2.5" drives: ~2 ms track-to-track
    seek_avg_ms=12.0,  # WD Scorpio Blue: 12 ms average read seek
    seek_full_ms=22.0,
    write_settle_ms=0.5,
    cmd_overhead_us=60.0,
    interface_mb_s=300.0,  # SATA 3 Gb/s
    ncq_depth=31,
    readahead_kb=256,
    read_segments=16,
    write_cache=True,
    write_cache_kb=4096,  # 8 MB cache
    write_cache_extents=32,
)

SERVER_SATA_2011 = DiskParams(
    name="server-sata-2011",
    # "commodity server with slow hdd" (Maxim Patlasov, 2011): a single 3.5"
    # 7200 rpm 250 GB desktop-class SATA disk (WD2500AAKS, Seagate
    # ST3250310AS class), write cache on (the default).
    rpm=7200.0,  # data sheet
    media_rate_mb_s=100.0,  # data sheets: ~100 MB/s outer zone for 250 GB/platter drives
    cylinders=120_000,
    heads=2,  # one platter
    seek_track_ms=2.0,  # WD2500AAKS: 2.0 ms track-to-track
    seek_avg_ms=8.9,  # WD2500AAKS: 8.9 ms average read seek
    seek_full_ms=21.0,  # WD2500AAKS: 21 ms full stroke
    write_settle_ms=0.5,
    cmd_overhead_us=60.0,
    interface_mb_s=300.0,  # SATA 3 Gb/s
    ncq_depth=31,
    readahead_kb=256,
    read_segments=16,
    write_cache=True,
    write_cache_kb=2048,  # calibrated: 8-16 MB cache; the part that holds dirty data is refitted to pristine CFQ
    write_cache_extents=16,  # cache segments (desktop firmware of the era: 16-32)
)

RAID_LSI1078_2011 = DiskParams(
    name="raid-lsi1078-2011",
    # "fast h/w raid (LSI 1078 RAID-0 from 8 10K RPMS SAS Disks)" (2011): a
    # MegaRAID SAS 8708/PERC 6-class controller (LSI SAS1078 ROC, 256 MB
    # battery-backed write-back cache) over eight 2.5" 10K rpm SAS disks
    # (Seagate Savvio 10K.3 / HGST Ultrastar C10K class).
    rpm=10000.0,  # data sheet
    media_rate_mb_s=110.0,  # per spindle: Savvio 10K.3 89-160 MB/s
    cylinders=60_000,
    heads=4,
    seek_track_ms=0.3,  # 10K SAS: 0.2-0.4 ms track-to-track
    seek_avg_ms=3.9,  # Savvio 10K.3: 3.9 ms average read seek
    seek_full_ms=8.0,
    write_settle_ms=0.2,
    cmd_overhead_us=100.0,  # calibrated: controller firmware latency per command; refitted to pristine CFQ
    interface_mb_s=1000.0,  # PCIe x8 to the controller, SAS 3 Gb/s x 8 lanes behind it
    ncq_depth=128,  # megaraid_sas: can_queue in the hundreds; per-LUN depth 128
    readahead_kb=256,
    read_segments=32,
    write_cache=True,  # controller write-back (BBU)
    write_cache_kb=256 * 1024,  # 256 MB controller cache
    write_cache_extents=256,
    spindles=8,
    stripe_kb=64,
)

PRESETS: dict[str, DiskParams] = {p.name: p for p in (DESKTOP_2014, LAPTOP_2014, SERVER_SATA_2011, RAID_LSI1078_2011)}
"""The machines of the threads, by name."""


def preset(name: str) -> DiskParams:
    """A machine by name (``desktop-2014``, ``laptop-2014``, ``server-sata-2011``, ``raid-lsi1078-2011``)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise WorkbookParameterError("disk", name, "one of " + ", ".join(PRESETS)) from None


# --------------------------------------------------------------------------- one run's parameters

@dataclass(frozen=True)
class IOParams(Knobs):
    """Everything one simulation needs besides the workload."""

    scheduler: str = knob("cfq", kernel="elevator",
                          tunable=QUEUE + "scheduler",
                          source="block/elevator.c elevator_switch()", choices=SCHEDULERS,
                          doc="the I/O scheduler in front of the device")
    HZ: int = knob(1000, unit="Hz", kernel="CONFIG_HZ", source="include/asm-generic/param.h HZ", choices=HZ_VALUES,
                   doc="the kernel's clock: CFQ's times are whole jiffies of 1/HZ s")
    nr_requests: int = knob(
        128, unit="requests", kernel="q->nr_requests",
        tunable=QUEUE + "nr_requests",
        source="block/blk-core.c __get_request()", range=(4, None), widget=(4, 512, 4),
        doc="requests of one direction (sync or async) the queue may hold, in the elevator and the driver; "
            "a process that needs one more sleeps in get_request() unless it is batching (BLKDEV_MAX_RQ = 128; "
            "the sysfs store raises values below BLKDEV_MIN_RQ = 4)")
    max_sectors_kb: int = knob(
        512, unit="KiB", kernel="q->max_sectors",
        tunable=QUEUE + "max_sectors_kb",
        source="block/ll_rw_blk.c (2.6.23) blk_queue_max_sectors() BLK_DEF_MAX_SECTORS, ll_back_merge_fn()",
        range=(4, 65536), widget=(4, 1024, 4), to_kernel=kib_to_sectors, packed="int",
        doc="the largest request bios merge into (BLK_DEF_MAX_SECTORS = 1024 sectors); the threads' readers issue "
            "requests that never merge, the writeback model's pages do")
    cfq: CFQParams = nested(CFQParams(), source=CFQ_SRC, doc="CFQ's tunables and the threads' variants")
    deadline: DeadlineParams = nested(DeadlineParams(), source=DL_SRC, doc="deadline's tunables")
    disk: DiskParams = nested(DESKTOP_2014, source=DEV, doc="the device")


# --------------------------------------------------------------------------- the kernels of the threads

def cfq_for_kernel(version: str, **overrides) -> CFQParams:
    """CFQ as in a kernel version: ``"3.0"``, ``"3.1"`` (the 2011 thread) or ``"3.16"`` (2014).

    All three have the same defaults (HZ-relative constants, 300 ms target
    latency, low_latency on).  3.0/3.1 lack the 3.3 think-time checks of the
    service tree and the group (``cfq_io_thinktime_big=False``).
    """
    v = str(version)
    if v in ("3.0", "3.0.0", "3.1", "3.1.0-rc2"):
        base = CFQParams(cfq_io_thinktime_big=False)
    elif v in ("3.16", "3.16.0-rc1", "3.16.0-rc2"):
        base = CFQParams()
    else:
        raise WorkbookParameterError("version", version, "one of 3.0, 3.1, 3.16")
    return base.with_(**overrides) if overrides else base


VARIANTS: dict[str, dict] = {
    # the 2014 thread (Mel Gorman's desktop): CFQ of 3.16 and patch 1/4
    "3.16": {},
    "3.16 cfq600": {"cfq_target_latency": 600.0},
    "3.0": {"cfq_io_thinktime_big": False},
    # the 2011 thread (Maxim Patlasov): 3.1.0-rc2 and its experiments
    "3.1": {"cfq_io_thinktime_big": False},
    "3.1 noop": {"cfq_io_thinktime_big": False, "scheduler": "noop"},
    "3.1 slice_idle=0": {"cfq_io_thinktime_big": False, "cfq_slice_idle": 0.0},
    "3.1 mark_cfqq_deep commented out": {"cfq_io_thinktime_big": False, "cfq_mark_cfqq_deep": False},
    "3.1 always clear deep": {"cfq_io_thinktime_big": False, "cfq_clear_cfqq_deep_unconditional": True},
    "3.1 w/o 8e1ac6655104": {"cfq_io_thinktime_big": False, "cfq_clear_cfqq_deep_fast_device": False},
    "3.1 + patch": {"cfq_io_thinktime_big": False, "patlasov_2011": True},
}
"""The kernels of the two threads as knob changes on :class:`IOParams` (3.16's CFQ on the 2014 desktop)."""


def for_variant(name: str, disk: DiskParams | None = None) -> IOParams:
    """:class:`IOParams` of a named kernel of :data:`VARIANTS` (on ``disk``, default the 2014 desktop)."""
    if name not in VARIANTS:
        raise WorkbookParameterError("variant", name, "one of " + ", ".join(VARIANTS))
    p = IOParams(disk=disk or DESKTOP_2014)
    return p.with_(**VARIANTS[name]) if VARIANTS[name] else p


def df_presets():
    """The machines as a frame, one row per preset, the derived geometry included.

    Columns: every :class:`DiskParams` field, then ``sectors_per_track``,
    ``rot_ms``, ``capacity_gb``.
    """
    import pandas as pd

    rows = []
    for p in PRESETS.values():
        r = {f.name: getattr(p, f.name) for f in fields(p)}
        r["sectors_per_track"] = p.sectors_per_track
        r["rot_ms"] = p.rot_ns / 1e6
        r["capacity_gb"] = round(p.capacity_gb, 1)
        rows.append(r)
    return pd.DataFrame(rows)


__all__ = ["CFQParams", "DeadlineParams", "DiskParams", "IOParams", "SCHEDULERS", "HZ_VALUES", "cfq_for_kernel",
           "VARIANTS", "for_variant", "PRESETS", "preset", "DESKTOP_2014", "LAPTOP_2014", "SERVER_SATA_2011",
           "RAID_LSI1078_2011", "ms_to_jiffies", "df_presets"]
