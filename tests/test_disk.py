"""The disk model: geometry from the data sheet, bad parameters, and two analytic checks."""

import numpy as np
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.models.cfq import (
    DESKTOP_2014, MB, PRESETS, SERVER_SATA_2011, DiskParams, IOParams, df_presets, preset, random_op_ms, seek_ms,
    seek_table_ns, sequential_rate_mb_s, simulate,
)
from kernel_workbook.heuristics.cfq import tiobench


def test_presets_are_valid_and_derive_their_geometry():
    assert set(PRESETS) == {"desktop-2014", "laptop-2014", "server-sata-2011", "raid-lsi1078-2011"}
    for p in PRESETS.values():
        p.validate()
        # sectors per track reproduce the media rate to within one sector's worth
        assert abs(sequential_rate_mb_s(p) - p.media_rate_mb_s) <= p.media_rate_mb_s / p.sectors_per_track
    assert DESKTOP_2014.rot_ns == 8_333_333  # 7200 rpm
    assert PRESETS["raid-lsi1078-2011"].spindles == 8
    df = df_presets()
    assert list(df["name"]) == list(PRESETS) and (df["capacity_gb"] > 0).all()


def test_seek_curve_is_the_data_sheet_shape():
    d = DESKTOP_2014
    third = d.cylinders / 3
    s = seek_ms(d, np.array([0, 1, third, d.cylinders]))
    assert s[0] == 0.0
    assert s[1] == pytest.approx(d.seek_track_ms)
    assert s[2] == pytest.approx(d.seek_avg_ms, rel=1e-3)
    assert s[3] == pytest.approx(d.seek_full_ms, rel=1e-6)
    t = seek_table_ns(d)
    assert t.dtype == np.int64 and len(t) == d.cylinders + 1
    assert (np.diff(t) >= 0).all(), "seek time never falls with distance"


@pytest.mark.parametrize("field,value", [
    ("seek_avg_ms", -3.0), ("seek_track_ms", 0.0), ("rpm", 0), ("spindles", 0), ("heads", 0),
    ("ncq_depth", 0), ("cmd_overhead_us", -1.0), ("stripe_kb", 1), ("write_cache_extents", 0),
    ("media_rate_mb_s", float("nan")),
])
def test_bad_disk_parameters_name_the_parameter(field, value):
    with pytest.raises(WorkbookParameterError) as e:
        DESKTOP_2014.with_(**{field: value})
    assert e.value.name == field and field in str(e.value)


def test_unknown_preset_and_unknown_field():
    with pytest.raises(WorkbookParameterError, match="disk"):
        preset("ssd-2020")
    with pytest.raises(WorkbookParameterError, match="rpmm"):
        DESKTOP_2014.with_(rpmm=5400)
    with pytest.raises(WorkbookParameterError, match="seek_avg_ms"):
        DiskParams(seek_track_ms=5.0, seek_avg_ms=2.0)
    # two knobs changed together are checked together
    assert DESKTOP_2014.with_(seek_track_ms=9.0, seek_avg_ms=10.0).seek_avg_ms == 10.0


def test_one_sequential_reader_on_noop_runs_at_the_media_rate():
    """Analytic check: nothing but the media limits one stream with the drive reading ahead."""
    p = IOParams(scheduler="noop", disk=DESKTOP_2014)
    r = simulate(p, tiobench.seqread(1, mb_total=64), seed=3)
    media = sequential_rate_mb_s(DESKTOP_2014) * 1e6 / MB
    assert r.throughput_mb_s == pytest.approx(media, rel=0.02)
    assert r.throughput_mb_s <= media * 1.0001  # and never faster


def _random_readers(n, ops):
    return tiobench.randread(n, ram_mb=4096, ops_per_thread=ops, page_cache_hit=0.0)


def test_seeky_readers_on_one_spindle_are_bounded_by_seek_time():
    """Analytic check: with one command at a time every read pays its seek, and on
    average seek + half a turn + transfer (the textbook random-access time)."""
    d = SERVER_SATA_2011.with_(ncq_depth=1, readahead_kb=0, read_segments=0)
    p = IOParams(scheduler="noop", disk=d)
    r = simulate(p, _random_readers(4, 150), seed=5)
    q = r.requests
    q = q[q["state"] == "done"].sort_values("t_dispatch_ms")
    cyl = (q["sector"].to_numpy() // d.sectors_per_track) // d.heads
    dist = np.abs(np.diff(cyl))
    seeks = seek_ms(d, dist)
    svc = q["svctm_ms"].to_numpy()[1:]
    # each read's service time covers its own seek (lower bound, read by read)
    assert (svc + 1e-6 >= seeks).all()
    # and the mean is the textbook expectation for the mean distance
    expected = float(np.mean([random_op_ms(d, x) for x in dist])) + d.cmd_overhead_us / 1e3
    assert float(np.mean(svc)) == pytest.approx(expected, rel=0.15)


def test_ncq_reordering_beats_fifo_for_many_seeky_readers():
    d = SERVER_SATA_2011.with_(readahead_kb=0, read_segments=0)
    fifo = simulate(IOParams(scheduler="noop", disk=d.with_(ncq_depth=1)), _random_readers(16, 60), seed=2)
    ncq = simulate(IOParams(scheduler="noop", disk=d), _random_readers(16, 60), seed=2)
    assert ncq.throughput_mb_s > 1.3 * fifo.throughput_mb_s
