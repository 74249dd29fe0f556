"""vmstat and /proc/vmstat parsers: real captures, hand-written older formats, jc as the oracle."""

from pathlib import Path

import jc
import pytest

from kernel_workbook.errors import SkippedLinesWarning, WorkbookParseError
from kernel_workbook.traces import (TruncatedTraceWarning, df_deltas, df_rates, load, parse_proc_vmstat,
                                    parse_vmstat, parse_vmstat_disk, parse_vmstat_disk_summary,
                                    parse_vmstat_partition, parse_vmstat_summary)

FIX = Path(__file__).parent / "fixtures" / "traces"

# jc's names for vmstat's columns
JC_VMSTAT = {"r": "runnable_procs", "b": "uninterruptible_sleeping_procs", "swpd": "virtual_mem_used",
             "free": "free_mem", "buff": "buffer_mem", "cache": "cache_mem", "inact": "inactive_mem",
             "active": "active_mem", "si": "swap_in", "so": "swap_out", "bi": "blocks_in", "bo": "blocks_out",
             "in": "interrupts", "cs": "context_switches", "us": "user_time", "sy": "system_time",
             "id": "idle_time", "wa": "io_wait_time", "st": "stolen_time"}


@pytest.mark.parametrize("name", ["vmstat-procps4.txt", "vmstat-procps4-t.txt", "vmstat-procps4-wa.txt",
                                  "vmstat-procps3.3-repeated-headers.txt"])
def test_vmstat_equals_jc_where_jc_is_right(name):
    text = (FIX / name).read_text()
    ours = parse_vmstat(FIX / name)
    theirs = jc.parse("vmstat", text, quiet=True)
    assert len(ours) == len(theirs)
    for col, key in JC_VMSTAT.items():
        if col in ours.columns:
            assert ours[col].tolist() == [r[key] for r in theirs], col
    if "timestamp" in ours.columns:
        assert ours["timestamp"].dt.strftime("%Y-%m-%d %H:%M:%S").tolist() == [r["timestamp"] for r in theirs]


def test_jc_is_wrong_on_procps_3_2_without_st():
    """procps 3.2 has no st column: jc indexes field 16 and fails; we read the header."""
    text = (FIX / "vmstat-procps3.2-nost.txt").read_text()
    with pytest.raises(IndexError):
        jc.parse("vmstat", text, quiet=True)
    df = parse_vmstat(FIX / "vmstat-procps3.2-nost.txt")
    assert "st" not in df.columns and df.attrs["version"] == "procps 3.2"
    assert df["wa"].tolist() == [1, 0, 40, 43]
    assert df["bi"].tolist()[2:] == [13312, 13312]


def test_jc_glues_gu_into_the_timestamp():
    """procps-ng 4 -w -t prints gu before the timestamp: jc's timestamp is '0 2026-...' and gu is lost."""
    text = (FIX / "vmstat-procps4-wt.txt").read_text()
    theirs = jc.parse("vmstat", text, quiet=True)
    assert theirs[0]["timestamp"].startswith("0 ")
    assert theirs[0]["epoch"] is None
    df = parse_vmstat(FIX / "vmstat-procps4-wt.txt")
    assert "gu" in df.columns and df.attrs["version"] == "procps-ng 4" and df.attrs["wide"]
    assert df["gu"].tolist() == [0, 0, 0]
    assert str(df["timestamp"].iloc[0]) == theirs[0]["timestamp"][2:]
    assert df.attrs["timezone"] == "UTC"
    assert df["elapsed"].tolist() == [0.0, 1.0, 2.0]


def test_vmstat_columns_and_attrs():
    df = parse_vmstat(FIX / "vmstat-procps4-wa.txt")
    assert list(df.columns[:6]) == ["r", "b", "swpd", "free", "inact", "active"]
    assert df.attrs["active"] and df.attrs["source"].endswith("vmstat-procps4-wa.txt")
    assert df["since_boot"].tolist() == [True, False, False]
    assert df["sample"].tolist() == [0, 1, 2]


def test_repeated_headers_are_skipped():
    df = parse_vmstat(FIX / "vmstat-procps3.3-repeated-headers.txt")
    assert len(df) == 45 and df["since_boot"].sum() == 1
    assert df["cache"].iloc[-1] == 912344 + 4 * 44


def test_mmtests_latency_prefix_gives_time():
    df = parse_vmstat(FIX / "vmstat-mmtests-latency.txt")
    assert df["time"].tolist() == [1416319216.4411, 1416319217.4420, 1416319218.4431, 1416319219.4442]
    assert df["bi"].tolist() == [412, 262144, 262656, 262144]
    assert df["elapsed"].iloc[-1] == pytest.approx(3.0031)


def test_vmstat_disk_and_summary():
    d = parse_vmstat_disk(FIX / "vmstat-procps4-d.txt")
    theirs = jc.parse("vmstat", (FIX / "vmstat-procps4-d.txt").read_text(), quiet=True)
    assert d["disk"].tolist() == [r["disk"] for r in theirs]
    assert d["reads_total"].tolist() == [r["total_reads"] for r in theirs]
    assert d["writes_sectors"].tolist() == [r["sectors_written"] for r in theirs]
    assert d["IO_sec"].tolist() == [r["io_seconds"] for r in theirs]
    s = parse_vmstat_summary(FIX / "vmstat-procps4-s.txt")
    theirs = jc.parse("vmstat_s", (FIX / "vmstat-procps4-s.txt").read_text(), quiet=True) \
        if hasattr(jc.parsers, "vmstat_s") else None
    assert s.loc[s["name"] == "total memory", "value"].iloc[0] > 0
    assert s.loc[s["name"] == "total memory", "unit"].iloc[0] == "K"


def test_vmstat_truncated_last_line_warns_and_keeps_the_rest():
    text = (FIX / "vmstat-procps4.txt").read_text().rstrip("\n")
    cut = text[: len(text) - 12]
    with pytest.warns(TruncatedTraceWarning, match=r"<text>:6: truncated last line"):
        df = parse_vmstat(cut)
    assert len(df) == 3


def test_vmstat_bad_line_names_file_line_and_shape():
    text = (FIX / "vmstat-procps4.txt").read_text().split("\n")
    text[3] = text[3].replace(" 0 ", " x ", 1)
    with pytest.raises(WorkbookParseError) as e:
        parse_vmstat("\n".join(text), source="bad.log")
    assert e.value.source == "bad.log" and e.value.line == 4 and "vmstat fields" in e.value.expected


# ------------------------------------------------------------------ /proc/vmstat

def test_proc_vmstat_equals_jc_on_one_snapshot():
    text = (FIX / "proc-vmstat-6.18-series.txt").read_text()
    first = text.split("time: ")[1].split("\n", 1)[1]
    ours = parse_proc_vmstat(first)
    theirs = jc.parse("proc_vmstat", first, quiet=True)
    assert len(ours) == 1
    for k, v in theirs.items():
        assert ours[k].iloc[0] == v, k


def test_proc_vmstat_series_and_deltas():
    df = parse_proc_vmstat(FIX / "proc-vmstat-2.6.23-series.txt")
    assert len(df) == 3 and df.attrs["version"] == "2.6"
    assert df["time"].tolist() == [1190000000.0, 1190000001.0, 1190000002.0]
    assert df["pgscan_kswapd_dma32"].tolist() == [1246816, 1266816, 1306816]
    d = df_deltas(df)
    assert d["pgscan_kswapd_dma32"].tolist() == [20000, 40000]
    assert "nr_free_pages" not in d.columns  # a gauge
    r = df_rates(df)
    assert r["pgscan_direct_dma32"].tolist() == [2000.0, 4000.0]


def test_proc_vmstat_without_time_lines_splits_on_the_first_counter():
    text = (FIX / "proc-vmstat-3.10-two.txt").read_text()
    no_time = "\n".join(ln for ln in text.split("\n") if not ln.startswith("time:"))
    df = parse_proc_vmstat(no_time)
    assert len(df) == 2 and "time" not in df.columns and df.attrs["version"] == "3.x-4.7"


def test_proc_vmstat_mail_excerpt_needs_lenient():
    text = "akpm:/usr/src/25> grep steal /proc/vmstat\npgsteal_dma 0\nkswapd_steal 1218698\n"
    with pytest.raises(WorkbookParseError) as e:
        parse_proc_vmstat(text)
    assert e.value.line == 1
    # the warning every parser gives for lines left out: its class, the file and the line, quoted
    with pytest.warns(SkippedLinesWarning) as rec:
        df = parse_proc_vmstat(text, lenient=True, source="mail.txt")
    assert len(rec) == 1
    msg = str(rec[0].message)
    assert msg.startswith("mail.txt: skipped 1 line(s)")
    assert "(lines 1;" in msg and "grep steal /proc/vmstat" in msg
    assert rec[0].filename == __file__  # points at the caller, not into the library
    assert df["kswapd_steal"].iloc[0] == 1218698


def test_proc_vmstat_truncated_last_counter():
    text = (FIX / "proc-vmstat-3.10-two.txt").read_text()
    cut = text[: text.rindex("thp_zero_page_alloc_failed") + len("thp_zero_page_alloc_fa")]
    with pytest.warns(TruncatedTraceWarning):
        df = parse_proc_vmstat(cut)
    # the cut counter is not 'thp_zero_page_alloc_fa', and the snapshot it ends is incomplete: both go
    assert len(df) == 1 and df["thp_zero_page_alloc_failed"].dtype.kind == "i"


def test_load_sniffs_vmstat_kinds():
    assert load(FIX / "vmstat-procps4-s.txt").attrs["format"] == "vmstat-s"
    assert load(FIX / "vmstat-procps4-d.txt").attrs["format"] == "vmstat-d"
    assert load(FIX / "proc-vmstat-2.6.23-akpm-thread.txt").attrs["format"] == "proc-vmstat"


# ------------------------------------------------------------------ vmstat -p and -D (issue 15)

def test_vmstat_p_partition_counters_by_their_header():
    """procps-ng 4.0.2 `vmstat -p vda 1 3` on this machine: the counters equal /proc/diskstats' of vda."""
    df = load(FIX / "vmstat-procps4-p.txt")
    assert df.attrs["format"] == "vmstat-p" and df.attrs["partitions"] == ["vda"]
    assert list(df.columns) == ["partition", "reads", "read sectors", "writes", "requested writes", "sample"]
    assert df.iloc[0][["reads", "read sectors", "writes", "requested writes"]].tolist() == \
        [136182, 11877146, 151110, 24253304]
    assert len(df) == 3 and df["sample"].tolist() == [0, 1, 2]
    # procps 3.2's header spacing, and columns named by the header whatever their order
    old = ("sda1          reads   read sectors  writes    requested writes\n"
           "                 9571      34310       1046      8368\n")
    assert parse_vmstat_partition(old).iloc[0]["requested writes"] == 8368
    swapped = "sda1  writes  reads\n  5  7\n"
    assert parse_vmstat_partition(swapped).iloc[0][["reads", "writes"]].tolist() == [7, 5]
    assert parse_vmstat(FIX / "vmstat-procps4-p.txt").attrs["format"] == "vmstat-p"  # routed by its header


def test_vmstat_D_disk_summary():
    """procps-ng 4.0.2 `vmstat -D`: 13 named counts; 'milli spent IO' is printed /1000 by this version."""
    df = load(FIX / "vmstat-procps4-D.txt")
    assert df.attrs["format"] == "vmstat-D" and "unit" not in df.columns
    got = df.set_index("name")["value"]
    assert len(got) == 13 and got["disks"] == 10 and got["total reads"] == 136182
    assert got["written sectors"] == 24253304 and got["milli spent IO"] == 58 and got["milli weighted IO"] == 417
    two = parse_vmstat_disk_summary((FIX / "vmstat-procps4-D.txt").read_text() * 2)
    assert two["sample"].unique().tolist() == [0, 1]
    assert parse_vmstat(FIX / "vmstat-procps4-D.txt").attrs["format"] == "vmstat-D"


def test_vmstat_p_and_D_errors_name_the_line():
    with pytest.raises(WorkbookParseError, match=r"<text>:3: expected 4 vmstat -p counters"):
        parse_vmstat_partition("vda reads read sectors writes requested writes\n 1 2 3 4\n 1 2x 3 4\n 1 2 3 4\n")
    with pytest.raises(WorkbookParseError, match=r"<text>:2: expected '<number> <name>' \(vmstat -D\)"):
        parse_vmstat_disk_summary("  10 disks\n  0 partitons\n")
    with pytest.raises(WorkbookParseError, match=r"<text>:1: expected a vmstat -p header"):
        parse_vmstat_partition("   1 2 3 4\n")


@pytest.mark.parametrize("parse,line,what", [
    (parse_vmstat_summary, "     9999999999999999999 K total memory\n", "vmstat -s count that fits in 64 bits"),
    (parse_vmstat_disk_summary, "9999999999999999999 disks\n", "vmstat -D count that fits in 64 bits"),
    (parse_vmstat_disk_summary, "3 discs\n", "the name one of disks"),
])
def test_listings_refuse_what_they_cannot_hold(parse, line, what):
    with pytest.raises(WorkbookParseError, match=what):
        parse(line)
