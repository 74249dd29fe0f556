"""Counters as the kernel keeps them (issue 32, item 3): a counter that goes down, a clock set back, two runs in
one log.  Each case is one the issue measured; the comment says what the parsers did then."""

import gzip
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from kernel_workbook.cli import main
from kernel_workbook.errors import SeriesBreakWarning
from kernel_workbook.traces import (compaction_summary, df_deltas, df_numa, df_rates, df_reclaim, df_reclaim_2007,
                                    numa_summary, parse_iostat, parse_proc_vmstat, parse_vmstat, read_iostat,
                                    reclaim_summary)

FIX = Path(__file__).parent / "fixtures" / "traces"


def _series_with_reboot() -> str:
    """The 6.18 series (three snapshots, `time:` a second apart), then the same machine after a reboot: every
    event counter small again, the clock going on."""
    text = (FIX / "proc-vmstat-6.18-series.txt").read_text()
    after = []
    for ln in text.splitlines():
        m = re.match(r"^time: (\d+)$", ln)
        if m:
            after.append(f"time: {int(m.group(1)) + 60}")
            continue
        name, value = ln.split()
        after.append(f"{name} {int(value) // 1000 if not name.startswith('nr_') else value}")
    return text + "\n".join(after) + "\n"


def _parse(text, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = parse_proc_vmstat(text, **kw)
    return df, [w for w in caught if issubclass(w.category, SeriesBreakWarning)]


def test_a_reboot_mid_capture_is_a_new_segment_not_a_negative_delta():
    """Was: pgfault -7,736,855 and every event counter negative over the interval across the reboot, silently."""
    df, caught = _parse(_series_with_reboot(), source="reboot.log")
    assert len(caught) == 1
    msg = str(caught[0].message)
    # names the file, the line of the counter that went down (the first of the snapshot after the reboot,
    # numa_hit: the nr_* before it are levels, free to go down), its values, and the segments
    m = re.match(r"^reboot\.log:(\d+): .* \(line \1: (\w+) went down from (\d+) to (\d+) ", msg)
    assert m and "2 segments" in msg
    line = _series_with_reboot().splitlines()[int(m.group(1)) - 1]
    assert line == f"{m.group(2)} {m.group(4)}" and m.group(2) == "numa_hit" and int(m.group(1)) > 579
    segs = df.attrs["segments"]
    assert [(s["first_sample"], s["last_sample"]) for s in segs] == [(0, 2), (3, 5)]
    assert segs[1]["line"] == int(m.group(1))
    d = df_deltas(df)
    ev = [c for c in d.columns if c not in ("time", "elapsed", "interval", "sample", "segment")]
    assert (d[ev].fillna(0) >= 0).all().all()  # never a negative delta
    assert d.loc[2, ev].isna().all() and np.isnan(d.loc[2, "interval"])  # the interval across the reboot
    assert list(d["segment"]) == [0, 0, 1, 1, 1] and d.attrs["segments"][1]["first_sample"] == 3
    r = df_rates(df)
    assert (r[ev].fillna(0) >= 0).all().all()
    rec = df_reclaim(df)
    assert (rec.drop(columns=["time", "elapsed", "interval", "sample", "segment"]).fillna(0) >= 0).all().all()
    n = df_numa(df)
    assert (n[["numa_hint_faults", "numa_pages_migrated"]].fillna(0) >= 0).all().all()
    loop = df_reclaim_2007(df, per_interval=True)
    assert list(loop["sample"]) == [1, 2, 4, 5] and (loop["scan"] >= 0).all()


def test_whole_run_figures_sum_the_segments_and_say_so():
    """Was: reclaim_summary, numa_summary and compaction_summary took last minus first across the reboot."""
    text = _series_with_reboot()
    df, _ = _parse(text)
    one = parse_proc_vmstat((FIX / "proc-vmstat-6.18-series.txt").read_text())
    s, s1 = reclaim_summary(df), reclaim_summary(one)
    assert s["elapsed"] == 2 * s1["elapsed"] and s["segments"].startswith("2 segments: samples 0-2; samples 3-5")
    assert s1["segments"] == "one segment (samples 0-2)"
    pgf = df["pgfault"].to_numpy()
    assert numa_summary(df)["numa_hint_faults"] >= 0 and compaction_summary(df)["compact_stall"] >= 0
    assert "2 segments" in numa_summary(df)["segments"] and "2 segments" in compaction_summary(df)["segments"]
    assert pgf[2] - pgf[0] + pgf[5] - pgf[3] > 0


def test_a_32_bit_wrap_is_a_new_segment():
    """A 32-bit kernel's unsigned long wraps at 2**32: was pgscan_kswapd -4,294,967,000 over one interval."""
    text = ("time: 100\nnr_free_pages 10\npgscan_kswapd 4294967000\npgsteal_kswapd 4294966000\n"
            "time: 101\nnr_free_pages 11\npgscan_kswapd 4294967290\npgsteal_kswapd 4294966100\n"
            "time: 102\nnr_free_pages 12\npgscan_kswapd 300\npgsteal_kswapd 4294966200\n"
            "time: 103\nnr_free_pages 9\npgscan_kswapd 700\npgsteal_kswapd 4294966300\n")
    df, caught = _parse(text, source="wrap.log")
    assert len(caught) == 1 and str(caught[0].message).startswith("wrap.log:11:")
    assert "pgscan_kswapd went down from 4294967290 to 300" in str(caught[0].message)
    assert "32-bit" in str(caught[0].message)
    rec = df_reclaim(df)
    assert (rec["kswapd_velocity"].fillna(0) >= 0).all() and np.isnan(rec["kswapd_velocity"].iloc[1])
    assert list(rec["kswapd_scan"].fillna(-1)) == [290.0, -1, 400.0]
    assert reclaim_summary(df)["kswapd_scan"] == 290 + 400


def test_a_gauge_going_down_is_no_break():
    _, caught = _parse("time: 1\nnr_free_pages 10\npgfault 5\ntime: 2\nnr_free_pages 3\npgfault 9\n")
    assert caught == []


def test_the_time_lines_going_back_is_a_break_and_elapsed_goes_on():
    """Was: elapsed -3599 and an interval of -3599 s."""
    text = ("time: 5000\npgfault 10\ntime: 5001\npgfault 20\ntime: 1402\npgfault 30\ntime: 1403\npgfault 40\n")
    df, caught = _parse(text, source="clock.log")
    assert len(caught) == 1 and str(caught[0].message).startswith("clock.log:5:")
    assert "went back 3599 s" in str(caught[0].message)
    assert list(df["elapsed"]) == [0.0, 1.0, 2.0, 3.0]
    assert list(df_deltas(df)["pgfault"].fillna(-1)) == [10.0, -1, 10.0]


def _bundle(root: Path, name: str, text: str) -> Path:
    d = root / name
    d.mkdir()
    (d / "proc-vmstat-test.gz").write_bytes(gzip.compress(text.encode()))
    return d


def test_kwb_compare_leaves_out_the_interval_across_a_reset_and_says_which_segments_it_used(tmp_path, capsys):
    """Was: `kwb compare` printed `pgfault /s -61921217.27` and nothing on stderr."""
    base = (FIX / "proc-vmstat-6.18-series.txt").read_text()
    a = _bundle(tmp_path, "before", base)
    b = _bundle(tmp_path, "after", _series_with_reboot())
    assert main(["compare", str(a), str(b)]) == 0
    out, err = capsys.readouterr()
    assert "pgfault" in out and not re.search(r"-\d[\d,.]*\s+\(", out.split("pgfault", 1)[1].split("\n")[0])
    for row in out.splitlines():  # no rate or delta of an event counter below zero
        if "/s " in row or "reclaim " in row:
            cells = re.findall(r"(-?\d[\d.]*) \(", row)
            assert all(float(c) >= 0 for c in cells), row
    assert "after: proc-vmstat: used 2 segments: samples 0-2; samples 3-5" in err
    assert re.search(r"proc-vmstat-test\.gz:5\d\d: .*numa_hit went down", err)


# ---------------------------------------------------------------- vmstat and iostat

def test_vmstat_t_clock_set_back_is_a_break_not_a_negative_elapsed():
    """Was: elapsed -3599 with no word."""
    t = (FIX / "vmstat-procps4-t.txt").read_text().replace("05:34:53", "04:34:53")
    with pytest.warns(SeriesBreakWarning, match=r"^v\.log:5: .*the clock went back 3599 s") as w:
        df = parse_vmstat(t, source="v.log")
    assert len(w) == 1
    assert list(df["elapsed"]) == [0.0, 1.0, 2.0] and df.attrs["segments"][1]["first_sample"] == 2


def test_iostat_t_clock_set_back_does_not_reset_elapsed_to_zero():
    """Was: the reports after the step had elapsed 0, 1, and the ones before 3600, 3601."""
    t = (FIX / "iostat-sysstat12-xt.txt").read_text()
    body = t.split("\n", 2)[2]
    text = t + body.replace("05:34:59", "04:35:01").replace("05:35:00", "04:35:02")
    with pytest.warns(SeriesBreakWarning, match=r"^io\.log:19: .*the clock went back 3599 s"):
        io = read_iostat(text, source="io.log")
    assert list(io.devices["elapsed"]) == [0.0, 1.0, 2.0, 3.0]
    assert list(io.cpu["elapsed"]) == [0.0, 1.0, 2.0, 3.0]
    assert io.devices.attrs["segments"][1]["first_sample"] == 2


def test_two_vmstat_runs_in_one_log_are_two_runs():
    """`vmstat 1 4 >> log` twice: was the second run's first line (averages since boot) marked as an interval."""
    a = (FIX / "vmstat-procps4.txt").read_text()
    df = parse_vmstat(a + a)
    assert list(df["since_boot"]) == [True, False, False, False] * 2
    assert [r["line"] for r in df.attrs["runs"]] == [3, 9]
    big = a * 3000  # the numba path of long logs reads the same
    assert parse_vmstat(big)["since_boot"].sum() == 3000


def test_a_header_repeated_by_vmstat_itself_is_no_new_run():
    """procps prints its header again every 21 reports when writing to a file: still one run."""
    df = parse_vmstat((FIX / "vmstat-procps3.3-repeated-headers.txt").read_text())
    assert df["since_boot"].sum() == 1 and len(df.attrs["runs"]) == 1
    lines = (FIX / "vmstat-procps4.txt").read_text().splitlines()
    head, rows = lines[:2], lines[2:]
    log = "\n".join(head + [rows[k % 4] for k in range(21)] + head + [rows[k % 4] for k in range(21)]
                    + head + rows[:3]) + "\n"
    assert parse_vmstat(log)["since_boot"].sum() == 1
    assert parse_vmstat(log * 200)["since_boot"].sum() == 200  # and the numba path, runs appended


def test_two_iostat_runs_are_two_runs():
    t = (FIX / "iostat-sysstat12-x.txt").read_text()
    df = parse_iostat(t + t)
    assert df.groupby("sample")["since_boot"].first().sum() == 2
