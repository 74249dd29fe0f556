"""Rotating disks and a striped RAID: the devices the 2011 and 2014 threads measured.

:class:`DiskParams` describes one device: a single spinning disk
(``spindles=1``) or a RAID-0 of identical spindles behind a controller
(``spindles>1``).  Every field carries its unit; the presets say where each
value comes from (a data sheet of the class of drive the thread describes, or
a calibration on the thread's baseline column, which ``reproduce`` redoes at
run time -- see :data:`PRESETS`).

The mechanics (in ``_disk_kernel``):

* **seek** -- a function of the cylinder distance ``d``: 0 for ``d = 0``;
  from ``seek_track_ms`` growing with ``sqrt(d)`` to ``seek_avg_ms`` at a
  third of the stroke (the arm accelerates then coasts: Ruemmler & Wilkes,
  "An introduction to disk drive modeling", 1994), then linearly to
  ``seek_full_ms``; writes add ``write_settle_ms`` after a seek;
* **rotation** -- sector ``lba`` passes the head at ``lba * T_rot / spt``
  (mod ``T_rot``): a request waits until its first sector comes round, so a
  synchronous sequential stream that misses the next sector pays a turn;
* **transfer** -- at the media rate, ``spt`` sectors per revolution;
* **NCQ** -- up to ``ncq_depth`` commands; the drive serves the one it can
  start soonest (rotational position ordering) unless one has waited
  ``ncq_max_age_ms``;
* **read cache** -- after a read the drive reads ahead ``readahead_kb`` while
  idle; the last ``read_segments`` fetched ranges are kept;
* **write-back cache** -- ``write_cache_kb`` of room in at most
  ``write_cache_extents`` extents; contiguous writes coalesce; idle spindles
  write back, reads first;
* **RAID-0** -- ``spindles`` disks, ``stripe_kb`` stripe unit; the
  controller's cache is the write-back cache.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np

from ..errors import WorkbookParameterError

SECTOR = 512


@dataclass(frozen=True)
class DiskParams:
    """One block device.  Units are in the field names' comments; see :data:`PRESETS`."""

    name: str = "disk"
    rpm: float = 7200.0  # rev/min: spindle speed (data sheet)
    media_rate_mb_s: float = 120.0  # MB/s (10^6 B): sustained sequential rate in the region used
    cylinders: int = 200_000  # cylinders across the stroke
    heads: int = 4  # recording surfaces = tracks per cylinder
    seek_track_ms: float = 0.8  # ms: track-to-track seek (+ settle)
    seek_avg_ms: float = 8.5  # ms: average (one-third stroke) read seek, data sheet
    seek_full_ms: float = 18.0  # ms: full-stroke seek
    write_settle_ms: float = 0.3  # ms: extra settle before writing after a seek
    cmd_overhead_us: float = 50.0  # us: firmware/controller time per command
    interface_mb_s: float = 300.0  # MB/s: host link (SATA 3 Gb/s = 300 MB/s after 8b/10b)
    ncq_depth: int = 31  # commands in the device at once (SATA NCQ: 31 usable tags)
    ncq_reorder: bool = True  # rotational position ordering of queued commands
    ncq_max_age_ms: float = 500.0  # ms: a command older than this is served next
    readahead_kb: int = 512  # KiB the drive reads ahead after a read
    read_segments: int = 16  # cache segments kept for earlier reads
    write_cache: bool = True  # write-back cache enabled (hdparm -W1)
    write_cache_kb: int = 8192  # KiB of the cache usable for dirty data
    write_cache_extents: int = 64  # dirty extents (segments) the cache can track
    write_coalesce: bool = True  # contiguous writes merge into one extent (one media op when written back)
    media_overhead_us: float = 0.0  # us of firmware time between two media ops (before the next seek)
    spindles: int = 1  # 1: a plain disk; >1: RAID-0 members
    stripe_kb: int = 64  # KiB: RAID-0 stripe unit
    nonrot: bool = False  # /sys/block/<dev>/queue/rotational == 0

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
    def capacity_gb(self) -> float:
        return self.cylinders * self.heads * self.sectors_per_track * SECTOR / 1e9

    @property
    def capacity_sectors(self) -> int:
        return self.cylinders * self.heads * self.sectors_per_track

    def validate(self) -> DiskParams:
        """Raise :class:`WorkbookParameterError` naming the first bad field."""
        positive = ["rpm", "media_rate_mb_s", "seek_track_ms", "seek_avg_ms", "seek_full_ms", "interface_mb_s"]
        for f in positive:
            v = getattr(self, f)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise WorkbookParameterError(f, v, "a positive number")
        for f in ["write_settle_ms", "cmd_overhead_us", "ncq_max_age_ms", "media_overhead_us"]:
            v = getattr(self, f)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise WorkbookParameterError(f, v, "a time >= 0")
        for f, lo in [("cylinders", 10), ("heads", 1), ("ncq_depth", 1), ("spindles", 1), ("stripe_kb", 4),
                      ("read_segments", 0), ("readahead_kb", 0), ("write_cache_kb", 0), ("write_cache_extents", 1)]:
            v = getattr(self, f)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < lo:
                raise WorkbookParameterError(f, v, f"an integer >= {lo}")
        if not (self.seek_track_ms <= self.seek_avg_ms <= self.seek_full_ms):
            raise WorkbookParameterError("seek_avg_ms", self.seek_avg_ms,
                                         f"between seek_track_ms ({self.seek_track_ms}) and seek_full_ms ({self.seek_full_ms})")
        if self.ncq_depth > 1024:
            raise WorkbookParameterError("ncq_depth", self.ncq_depth, "at most 1024")
        return self

    def with_(self, **kw) -> DiskParams:
        """A copy with some fields changed (``dataclasses.replace``), validated."""
        bad = set(kw) - {f.name for f in fields(self)}
        if bad:
            raise WorkbookParameterError(sorted(bad)[0], kw[sorted(bad)[0]], "a field of DiskParams")
        return replace(self, **kw).validate()


def seek_ms(d: DiskParams, distance_cyl) -> np.ndarray:
    """Seek time (ms) over ``distance_cyl`` cylinders (array-friendly)."""
    x = np.asarray(distance_cyl, dtype=float)
    third = max(2.0, d.cylinders / 3.0)
    short = d.seek_track_ms + (d.seek_avg_ms - d.seek_track_ms) * np.sqrt(np.clip(x - 1, 0, None) / (third - 1))
    long_ = d.seek_avg_ms + (d.seek_full_ms - d.seek_avg_ms) * (x - third) / max(1.0, d.cylinders - third)
    out = np.where(x <= third, short, long_)
    return np.where(x <= 0, 0.0, out)


def seek_table_ns(d: DiskParams, max_distance: int | None = None) -> np.ndarray:
    """int64 seek times (ns) for every cylinder distance 0..max_distance (the kernel's table)."""
    n = d.cylinders if max_distance is None else min(d.cylinders, int(max_distance))
    return np.rint(seek_ms(d, np.arange(n + 1)) * 1e6).astype(np.int64)


def sequential_rate_mb_s(d: DiskParams) -> float:
    """What one sequential stream gets from the media (MB/s): the analytic bound."""
    return d.sectors_per_track * SECTOR * d.rpm / 60.0 / 1e6


def random_op_ms(d: DiskParams, distance_cyl: float, kb: float = 4.0) -> float:
    """Expected time of one random op without reordering: seek + half a turn + transfer (ms)."""
    return float(seek_ms(d, distance_cyl)) + 0.5 * 60e3 / d.rpm + kb * 1024 / (sequential_rate_mb_s(d) * 1e3)


# --------------------------------------------------------------------------- presets
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
    """A preset by name (``desktop-2014``, ``laptop-2014``, ``server-sata-2011``, ``raid-lsi1078-2011``)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise WorkbookParameterError("disk", name, "one of " + ", ".join(PRESETS)) from None


def df_presets():
    """The presets as a frame, one row per machine, the derived geometry included.

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
