"""Real captures made on this machine (tests/fixtures/real-captures/README.md), each checked against its raw text.

Every test here failed before the fix it names (or checks a capture's values against the text, so it can fail).
"""

import warnings
from pathlib import Path

import numpy as np
import pytest

from kernel_workbook.errors import WorkbookParseError
from kernel_workbook.traces import SkippedLinesWarning, load, parse_perf_stat, sniff

REAL = Path(__file__).parent / "fixtures" / "real-captures"


def _load(name, kind=None):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        df = load(REAL / name, kind)
    return df, [x for x in w]


# ------------------------------------------------------------------ perf stat: the workload's stderr on the stream

@pytest.mark.parametrize("name, n_rows, skipped", [
    ("perf-stat-6.1-I-dd-stderr.txt", 12, [8, 9, 10]),
    ("perf-stat-6.1-I-x-dd-stderr.txt", 30, [25, 26, 27]),
    ("perf-stat-6.1-x-dd-stderr.txt", 6, [1, 2, 3]),
    ("perf-stat-6.1-xsemicolon-dd-stderr.txt", 6, [1, 2, 3]),
])
def test_perf_stat_keeps_every_counter_when_the_workload_writes_to_the_same_stream(name, n_rows, skipped):
    """`perf stat ... dd ... 2> log`: dd's 'records in/out' lines sit before or between perf's lines. They were
    an error (-I, -x,) or made the file unrecognised (-x';'); now they are left out with a warning naming them."""
    df, w = _load(name)
    assert df.attrs["format"] == "perf-stat" and len(df) == n_rows
    sk = [x for x in w if issubclass(x.category, SkippedLinesWarning)]
    assert len(sk) == 1 and "lines " + ", ".join(map(str, skipped)) in str(sk[0].message)
    assert "records in" in str(sk[0].message) and name in str(sk[0].message)
    assert not df["event"].str.contains("records").any()


def test_perf_stat_interval_values_match_the_capture():
    df, _ = _load("perf-stat-6.1-I-dd-stderr.txt")
    # '     1.743408608             734.87 msec task-clock    #    0.735 CPUs utilized' (after dd's lines)
    last = df[(df["event"] == "task-clock")].iloc[-1]
    assert last["time"] == 1.743408608 and last["value"] == 734.87 and last["unit"] == "msec"
    assert last["metric_value"] == 0.735
    assert df[df["event"] == "cycles"]["counted"].eq("not supported").all()
    x, _ = _load("perf-stat-6.1-I-x-dd-stderr.txt")
    # '     2.072958402,3,,page-faults,69380399,100.00,43.240,/sec'
    pf = x[(x["event"] == "page-faults") & (x["time"] == 2.072958402)].iloc[0]
    assert pf["value"] == 3 and pf["run_time"] == 69380399 and pf["metric_value"] == 43.24
    s, _ = _load("perf-stat-6.1-xsemicolon-dd-stderr.txt")
    assert s.attrs["separator"] == ";" and s.set_index("event").loc["page-faults", "value"] == 82


def test_perf_stat_a_line_of_perf_that_does_not_read_is_still_an_error():
    """Only lines perf never prints (a blank inside the first field) are left out: a damaged counter line is
    still refused with its line."""
    text = (REAL / "perf-stat-6.1-I-x-dd-stderr.txt").read_text().replace(
        "1.001342491,31,,context-switches", "1.001342491,3x1,,context-switches")
    with pytest.raises(WorkbookParseError, match=r":8: expected"):
        parse_perf_stat(text)


def test_perf_stat_x_under_a_decimal_comma_locale_is_refused_with_its_line():
    """LC_ALL=de_DE perf stat -x, prints '1191,36,msec,...': the decimal comma splits the count."""
    with pytest.raises(WorkbookParseError, match=r"perf-stat-6.1-x-de_DE.txt:4: expected"):
        load(REAL / "perf-stat-6.1-x-de_DE.txt")


# ------------------------------------------------------------------ perf stat -j

def test_perf_stat_json_output_is_read():
    """perf 6.x -j (one JSON object a line) was not recognised at all."""
    df, w = _load("perf-stat-6.1-j-dd-stderr.txt")
    assert df.attrs["json"] and len(df) == 6
    assert [str(x.message).count("records") for x in w] == [1]
    tc = df.set_index("event").loc["task-clock"]
    # {"counter-value" : "147.691721", "unit" : "msec", "event" : "task-clock", "event-runtime" : 147691721,
    #  "pcnt-running" : 100.00, "metric-value" : 1.014146, "metric-unit" : "CPUs utilized"}
    assert tc["value"] == 147.691721 and tc["unit"] == "msec" and tc["run_time"] == 147691721
    assert tc["enabled_pct"] == 100 and tc["metric_value"] == 1.014146 and tc["metric_unit"] == "CPUs utilized"
    cyc = df.set_index("event").loc["cycles"]
    assert cyc["counted"] == "not supported" and np.isnan(cyc["value"]) and np.isnan(cyc["metric_value"])
    i, _ = _load("perf-stat-6.1-j-I-dd-stderr.txt")
    assert i["time"].unique().tolist() == [0.500576874, 1.00128798, 1.467566836]
    assert i[(i["event"] == "context-switches")]["value"].tolist() == [67, 43, 23]


def test_perf_stat_json_aggregation_and_damage():
    df = parse_perf_stat('{"cpu" : "1", "counter-value" : "506.75", "unit" : "msec", "event" : "task-clock", '
                         '"event-runtime" : 1, "pcnt-running" : 100.00, "metric-value" : 1.008, '
                         '"metric-unit" : "CPUs utilized"}\n'
                         '{"socket" : "S0", "aggregate-number" : 2, "counter-value" : "5", "unit" : "", '
                         '"event" : "context-switches", "event-runtime" : 1, "pcnt-running" : 100.00, '
                         '"metric-value" : 0, "metric-unit" : ""}\n')
    assert df["cpu"].tolist() == ["CPU1", "S0"]
    with pytest.raises(WorkbookParseError, match=r"<text>:2: expected one perf stat -j JSON object per line"):
        parse_perf_stat('{"counter-value" : "1", "event" : "a"}\n{"counter-value" : "2", "event" : \n')


def test_fio_normal_and_json_output_is_recognised():
    """--output-format=normal,json starts with fio's text lines; sniff did not look past them."""
    assert sniff((REAL / "fio-3.33-normal-json.txt").read_text()) == "fio-json"
    df, _ = _load("fio-3.33-normal-json.txt")
    r = df[df["jobname"] == "randread"].iloc[0]
    assert r["direction"] == "read" and r["io_bytes"] == 84410368 and r["bw"] == 41195


# ------------------------------------------------------------------ /proc/vmstat series stamped by a shell loop

def test_proc_vmstat_series_stamped_by_date_reads_with_its_times():
    """`for i in 1 2 3; do date; cat /proc/vmstat; sleep 1; done` was refused at its first line."""
    df, w = _load("proc-vmstat-6.18-date-loop.txt")
    assert not w and len(df) == 3 and df.attrs["timezone"] == "UTC"
    # 'Wed Nov 25 03:30:50 UTC 2026' is 1795577450 (the epoch loop below printed 1795577453 at 03:30:53)
    assert df["time"].tolist() == [1795577450.0, 1795577451.0, 1795577452.0]
    assert str(df["timestamp"].iloc[0]) == "2026-11-25 03:30:50"
    assert df["pgfault"].tolist() == [490347412, 490363670, 490372918] and df["elapsed"].tolist() == [0, 1, 2]
    assert df["pgfault"].dtype == np.int64


@pytest.mark.parametrize("name, first_time, pgfault", [
    ("proc-vmstat-6.18-date-Iseconds-loop.txt", 1795577456.0, [490381260, 490381826, 490393510]),
    ("proc-vmstat-6.18-epoch-loop.txt", 1795577453.0, [490375197, 490377543, 490379025]),
])
def test_proc_vmstat_series_stamped_by_epoch_or_iso_lines(name, first_time, pgfault):
    """`echo "=== $(date -Iseconds)"` and `date +%s` between the snapshots."""
    df, _ = _load(name)
    assert df["time"].iloc[0] == first_time and df["elapsed"].tolist() == [0, 1, 2]
    assert df["pgfault"].tolist() == pgfault and df["nr_free_pages"].iloc[1] in (4839346, 4842896)


def test_proc_vmstat_stamp_without_zone_keeps_the_wall_clock_and_gives_no_epoch():
    from kernel_workbook.traces import parse_proc_vmstat

    df = parse_proc_vmstat("2026-11-25 03:30:50\npgfault 5\n2026-11-25 03:30:52\npgfault 9\n")
    assert "time" not in df.columns and df["elapsed"].tolist() == [0, 2] and df["pgfault"].tolist() == [5, 9]
    with pytest.raises(WorkbookParseError, match=r"<text>:3: expected '<counter> <value>' or a time stamp"):
        parse_proc_vmstat("Wed Nov 25 03:30:50 UTC 2026\npgfault 5\nMi 25. Nov 03:30:51 UTC 2026\npgfault 9\n")


def test_meminfo_series_stamped_by_date():
    df, _ = _load("meminfo-6.18-date-loop.txt")
    assert df["MemFree"].tolist() == [19422276, 19394160] and df["elapsed"].tolist() == [0, 1]
    assert df["time"].iloc[0] == 1795577463.0


# ------------------------------------------------------------------ iostat: which report is since boot, dates

def test_iostat_y_has_no_since_boot_report():
    """`iostat -xy 1 2`: both reports are intervals (-y skips the since-boot one), yet the first was flagged
    since_boot. sysstat 12 prints the skipped report as one more blank line under the banner."""
    df, _ = _load("iostat-12.6.1-xy.txt")
    assert df["since_boot"].tolist() == [False, False]
    # 'vda            128.00 131072.00 ...' is the first report: an interval under load, not since boot
    assert df["r/s"].tolist() == [128.0, 224.75]
    from kernel_workbook.traces import parse_iostat_cpu

    assert not parse_iostat_cpu(REAL / "iostat-12.6.1-xy.txt")["since_boot"].any()
    j, _ = _load("iostat-12.6.1-xy.json")
    assert j["since_boot"].tolist() == [False, False] and j["w/s"].tolist() == [64.0, 1.0]


def test_iostat_without_y_keeps_its_first_report_since_boot():
    df, _ = _load("iostat-12.6.1-x.txt")
    assert df["since_boot"].tolist() == [True, False, False]
    assert df["r/s"].iloc[0] == 8.96 and df["%util"].iloc[0] == 0.48


def test_iostat_runs_appended_to_one_log_each_start_since_boot():
    """`(iostat -xt 1 2; iostat -xt 1 2) > log`: the second run's first report (line 26, 12.26 r/s since boot)
    was flagged as an interval."""
    df, _ = _load("iostat-12.6.1-xt-two-runs-appended.txt")
    assert df["since_boot"].tolist() == [True, False, True, False]
    assert df["r/s"].tolist() == [12.26, 0.0, 12.26, 0.0]
    assert [str(t) for t in df["timestamp"]] == ["2026-11-25 03:39:35", "2026-11-25 03:39:36",
                                                  "2026-11-25 03:39:36", "2026-11-25 03:39:37"]


def test_iostat_fr_FR_dates_are_day_first_even_when_the_day_is_12_or_less():
    """LC_ALL=fr_FR.UTF-8 prints 25/11/2026 03:29:01 (day first, 4-digit year, 24-hour clock); on 5 November the
    same capture (edited copy) read as 11 May."""
    df, _ = _load("iostat-12.6.1-xt-fr_FR.txt")
    assert str(df["timestamp"].iloc[0]) == "2026-11-25 03:29:01" and df["r/s"].iloc[0] == 9.46
    ed, _ = _load("iostat-12.6.1-xt-fr_FR-edited-05-11.txt")
    assert [str(t) for t in ed["timestamp"]] == ["2026-11-05 03:29:01", "2026-11-05 03:29:02"]
    # the C locale's 2-digit year stays month first
    c, _ = _load("iostat-12.6.1-xt-two-runs-appended.txt")
    assert c["timestamp"].iloc[0].month == 11


def test_iostat_json_timestamps_read_as_the_text_ones():
    """-o JSON timestamps were coerced by pandas (NaT on a date it could not read, a tz-aware column and no
    epoch for ISO); they now follow the text rules: fr_FR day first, ISO with its zone to `time`."""
    fr, _ = _load("iostat-12.6.1-xt-fr_FR.json")
    assert [str(t) for t in fr["timestamp"]] == ["2026-11-25 03:31:50", "2026-11-25 03:31:51"]
    iso, _ = _load("iostat-12.6.1-xt-iso.json")
    # 2026-11-25T03:38:17+0000: 447 s after 03:30:50 UTC, which the epoch loop above printed as 1795577450
    assert iso.attrs["timezone"] == "UTC" and iso["time"].tolist() == [1795577897.0, 1795577898.0]
    assert iso["r/s"].iloc[0] == 12.23
    text = (REAL / "iostat-12.6.1-xt-fr_FR.json").read_text().replace("25/11/2026 03:31:51", "25/11/2026 3h31")
    from kernel_workbook.traces import parse_iostat

    with pytest.raises(WorkbookParseError, match=r"<text>:\d+: expected an iostat timestamp"):
        parse_iostat(text)


# ------------------------------------------------------------------ perf script

def test_perf_script_without_call_chains_keeps_every_sample():
    """`perf record -e cpu-clock -- dd ...; perf script`: 113 sample lines, one per sample, no blank line
    between them. They were read as ONE sample whose 'stack' was the 112 other sample lines ('dd' is a valid
    hex address)."""
    from kernel_workbook.traces import parse_perf_script

    p = parse_perf_script(REAL / "perf-script-6.1-no-callchain-dd.txt")
    s = p.samples
    assert len(s) == 113 and (s["comm"] == "dd").all() and (s["tid"] == 29526).all()
    assert (s["period"] == 2004008).all() and (s["event"] == "cpu-clock").all()
    # line 61: '              dd 29526 41519.680661:    2004008 cpu-clock:  ffffffff81b6a2b6 _copy_to_iter+0x6 (...)'
    row = s[s["time"] == 41519.680661].iloc[0]
    fr = p.stacks[p.stacks["stack_id"] == row["stack_id"]]
    assert fr[["addr", "symbol", "dso"]].values.tolist() == [["ffffffff81b6a2b6", "_copy_to_iter+0x6",
                                                            "[kernel.kallsyms]"]]
    assert (p.stacks.groupby("stack_id").size() == 1).all()


def test_perf_script_comm_that_is_not_utf8_warns_and_keeps_every_sample():
    """A program named 'caf\\xe9' (Latin-1): the byte was replaced silently, and the 102 samples read as one."""
    from kernel_workbook.traces import UndecodableBytesWarning, parse_perf_script_samples

    with pytest.warns(UndecodableBytesWarning, match=r"perf-script-6.1-no-callchain-latin1-comm.txt:1: bytes"):
        s = parse_perf_script_samples(REAL / "perf-script-6.1-no-callchain-latin1-comm.txt")
    assert len(s) == 102 and (s["comm"] == "caf\ufffd").all() and s["time"].iloc[0] == 41500.068539


def test_perf_script_frames_without_dso_are_frames():
    """`perf script -F comm,tid,time,event,ip,sym` prints frames without '(dso)': every one was dropped, silently
    but for attrs['unrecognised_lines'], leaving each sample an empty stack."""
    from kernel_workbook.traces import parse_perf_script

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = parse_perf_script(REAL / "perf-script-6.1-g-F-ip-sym.txt")
    assert len(p.samples) == 7 and p.attrs["unrecognised_lines"] == 0
    first = p.stacks[p.stacks["stack_id"] == p.samples["stack_id"].iloc[0]].sort_values("depth")
    # the first sample's frames, leaf first in the file: percpu_counter_add_batch ... setlocale
    assert first["symbol"].iloc[-1] == "percpu_counter_add_batch" and first["symbol"].iloc[0] == "setlocale"
    assert first["addr"].iloc[0] == "3238c" and len(first) == 10


def test_perf_script_unreadable_frame_lines_warn():
    from kernel_workbook.traces import parse_perf_script

    text = (REAL / "perf-script-6.1-g-F-ip-sym.txt").read_text().replace("\tffffffff8158cabf filemap_map_pages",
                                                                        "\t!! filemap_map_pages", 1)
    with pytest.warns(SkippedLinesWarning, match=r"1 line\(s\) that are neither.*'\\t!! filemap_map_pages'"):
        p = parse_perf_script(text)
    assert p.attrs["unrecognised_lines"] == 1


def test_iostat_pretty_layout_is_read_group_by_group():
    """`iostat -x --pretty`: the device name last, -x's 22 columns in four groups of lines; it was refused."""
    df, _ = _load("iostat-12.6.1-x-pretty.txt")
    plain, _ = _load("iostat-12.6.1-x.txt")
    assert list(df.columns) == list(plain.columns) and len(df) == 2
    # report 2: '  259.00 131084.00 ... vda' (r group), '   37.00 131084.00 ... 30.70  3542.81 vda' (w group),
    # '    2.00    0.00    1.54  27.60 vda' (f group)
    r = df.iloc[1]
    assert (r["device"], r["r/s"], r["w/s"], r["w_await"], r["d/s"], r["aqu-sz"], r["%util"]) == (
        "vda", 259.0, 37.0, 30.70, 12.0, 1.54, 27.60)
    assert df["since_boot"].tolist() == [True, False]
    d, _ = _load("iostat-12.6.1-d-pretty.txt")
    assert d["tps"].tolist() == [37.7, 23.0] and d["kB_read"].tolist() == [22779753, 132]


def test_iostat_h_is_refused_with_its_line():
    """`iostat -h` rounds to a unit it picks ('285.9k', '65.8%'); it was refused as 'not an iostat line'."""
    with pytest.raises(WorkbookParseError, match=r"iostat-12.6.1-h.txt:4: expected plain numbers: iostat -h"):
        load(REAL / "iostat-12.6.1-h.txt")


# ------------------------------------------------------------------ vmstat under a translated procps-ng

@pytest.mark.parametrize("name, header_word", [
    ("vmstat-procps4-t-de_DE.txt", "frei"), ("vmstat-procps4-w-de_DE.txt", "Cache"),
    ("vmstat-procps4-t-pl_PL.txt", "wolna"), ("vmstat-procps4-a-sv_SE.txt", "fritt"),
])
def test_vmstat_translated_names_load_under_vmstat_names(name, header_word):
    """LC_ALL=de_DE vmstat printed 'frei' and 'Cache' and the frame kept them (df['free'] failed); pl_PL ('dz bl
    swap wolna') and sv_SE ('k b växl fritt') were not recognised at all."""
    df, _ = _load(name)
    assert df.attrs["format"] == "vmstat" and header_word in df.attrs["localized_header"]
    assert {"r", "b", "swpd", "free", "si", "so", "bi", "bo", "in", "cs", "us", "sy", "id", "wa"} <= set(df.columns)
    assert not {"frei", "Cache", "wolna", "fritt", "dz", "k"} & set(df.columns)


def test_vmstat_translated_values_match_the_capture():
    pl, _ = _load("vmstat-procps4-t-pl_PL.txt")
    # ' 3  0      0 19242784  76604 4965684    0    0 131076 131400  748  638 47 43  0 10  0 2026-11-25 03:49:22'
    r = pl.iloc[1]
    assert (r["r"], r["free"], r["buff"], r["cache"], r["bi"], r["bo"], r["wa"]) == (3, 19242784, 76604, 4965684,
                                                                                      131076, 131400, 10)
    assert str(r["timestamp"]) == "2026-11-25 03:49:22" and pl.attrs["timezone"] == "UTC"
    sv, _ = _load("vmstat-procps4-a-sv_SE.txt")
    assert sv["inact"].iloc[0] == 2502612 and sv["active"].iloc[0] == 2282748 and sv.attrs["active"]
    de, _ = _load("vmstat-procps4-w-de_DE.txt")
    assert de.attrs["wide"] and de["gu"].tolist() == [0, 0, 0] and de["bi"].tolist() == [275, 140288, 166912]


def test_vmstat_unknown_names_are_still_refused_or_kept_as_printed():
    """Only whole names lines that map to a vmstat layout are translated: no name is guessed."""
    from kernel_workbook.traces import parse_vmstat

    text = (REAL / "vmstat-procps4-w-de_DE.txt").read_text().replace("Cache", "Kasse")
    df = parse_vmstat(text)
    assert "Kasse" in df.columns and "localized_header" not in df.attrs


# ------------------------------------------------------------------ damaged copies of the new layouts

def test_perf_stat_json_cut_in_its_last_line_keeps_the_records_before():
    from kernel_workbook.traces import TruncatedTraceWarning

    text = (REAL / "perf-stat-6.1-j-I-dd-stderr.txt").read_text()
    with pytest.warns(TruncatedTraceWarning, match=r"<text>:9: truncated perf stat -j line"):
        df = parse_perf_stat(text[:-60])
    assert len(df) == 5 and df["value"].iloc[-1] == 463.869114


def test_iostat_pretty_cut_inside_a_report_keeps_the_whole_reports():
    """A --pretty file that ends after some of a report's groups: that report is dropped with a warning, not
    kept with only its r/s... columns."""
    from kernel_workbook.traces import TruncatedTraceWarning, parse_iostat

    lines = (REAL / "iostat-12.6.1-x-pretty.txt").read_text().split("\n")
    with pytest.warns(TruncatedTraceWarning, match=r"<text>:22: truncated iostat --pretty report"):
        df = parse_iostat("\n".join(lines[:27]) + "\n")
    assert df["sample"].tolist() == [0] and df.notna().all().all()


@pytest.mark.parametrize("name", ["iostat-12.6.1-x-pretty.txt", "perf-stat-6.1-j-dd-stderr.txt",
                                  "proc-vmstat-6.18-date-loop.txt", "vmstat-procps4-t-pl_PL.txt",
                                  "perf-script-6.1-no-callchain-dd.txt"])
def test_crlf_copies_load_the_same(name):
    raw = (REAL / name).read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = load(raw.decode("utf-8", "replace"))
        b = load(raw.replace(b"\n", b"\r\n"))
    assert a.equals(b) and len(a)


# ------------------------------------------------------------------ perf stat aggregation under -I, --per-thread

def test_perf_stat_interval_with_aggregation_is_read():
    """`perf stat -I 500 -a -A` prints '#  time CPU  counts unit events' and was not recognised; its -x, form
    ('0.500599063,CPU0,500.70,msec,task-clock,...') was refused (the time was taken for the count)."""
    a, _ = _load("perf-stat-6.1-I-A.txt")
    assert len(a) == 12 and set(a["cpu"]) == {"CPU0", "CPU1"}
    # '     1.001500... CPU1                   130      context-switches'
    cs = a[(a["event"] == "context-switches") & (a["cpu"] == "CPU1")]
    assert cs["value"].tolist() == [121, 130, 39] and cs["time"].iloc[0] == 0.500550981
    s, _ = _load("perf-stat-6.1-I-per-socket.txt")
    assert s["cpu"].tolist() == ["S0"] * 3 and s["value"].tolist() == [1007.76, 1001.72, 194.76]
    x, _ = _load("perf-stat-6.1-I-A-x.txt")
    assert x["time"].tolist()[:2] == [0.500599063, 0.500599063] and x["cpu"].tolist()[:2] == ["CPU0", "CPU1"]
    assert x["value"].tolist()[:2] == [500.70, 500.71] and x["run_time"].iloc[0] == 500698253


def test_perf_stat_per_thread_keeps_every_thread():
    """--per-thread starts each line with comm-tid: the text lines were skipped as prose, silently (only 'time
    elapsed' was left), the -x, form was not recognised."""
    t, _ = _load("perf-stat-6.1-per-thread-a.txt")
    counters = t[t["event"] != "time elapsed"]
    assert len(counters) == 29 and counters["cpu"].str.match(r".+-\d+$").all()
    # line 13: 'kworker/1:0-events-5923                   0.09 msec task-clock'
    assert counters.set_index(["cpu", "event"]).loc[("kworker/1:0-events-5923", "task-clock"), "value"] == 0.09
    x, _ = _load("perf-stat-6.1-per-thread-x.txt")
    assert len(x) == 11 and x["cpu"].iloc[5] == "memfd:sealed-91-21447" and x["value"].iloc[5] == 0.18


def test_vmstat_s_translated_is_recognised_and_listings_are_counted():
    """LC_ALL=fr_FR vmstat -s ('24684096 K mémoire totale') was not recognised, and two listings in one file
    were one sample: a listing restarted only at 'total memory'."""
    df, _ = _load("vmstat-procps4-s-fr_FR.txt")
    assert df.attrs["format"] == "vmstat-s" and len(df) == 28 and (df["sample"] == 0).all()
    assert df.iloc[0][["name", "value", "unit"]].tolist() == ["mémoire totale", 24684096, "K"]
    assert df.set_index("name").loc["clonages", "value"] == 260511
    from kernel_workbook.traces import parse_vmstat_summary

    twice = parse_vmstat_summary((REAL / "vmstat-procps4-s-fr_FR.txt").read_text() * 2)
    assert twice["sample"].tolist() == [0] * 28 + [1] * 28


def test_iostat_c_reports_are_counted_and_load_as_cpu():
    """`iostat -c 1 3`: every avg-cpu row was report 0 and 'since boot' (a report opened only at a Device block),
    and load() returned the empty device frame."""
    df, _ = _load("iostat-12.6.1-c.txt")
    assert df.attrs["format"] == "iostat-cpu" and df["sample"].tolist() == [0, 1, 2]
    assert df["since_boot"].tolist() == [True, False, False]
    assert df["%user"].tolist() == [65.83, 47.00, 72.36] and df["%idle"].iloc[1] == 49.50


def test_iostat_device_groups_are_read():
    """`iostat -x -g ALL` prints the group's line with a leading blank (' ALL  12.12 ...'): refused."""
    df, _ = _load("iostat-12.6.1-x-g-ALL.txt")
    assert df["device"].tolist() == ["vda", "ALL"] and df["group"].tolist() == [False, True]
    assert df["%util"].tolist() == [0.57, 0.06] and df["r/s"].tolist() == [12.12, 12.12]
    s, _ = _load("iostat-12.6.1-xs.txt")
    assert s.attrs["version"] == "sysstat 12" and s["areq-sz"].iloc[0] == 71.55


# ------------------------------------------------------------------ fio terse

def test_fio_terse_v3_is_read_field_by_field():
    """fio --output-format=terse (the default terse version 3) was not recognised."""
    df, _ = _load("fio-3.33-terse-v3.txt")
    assert df.attrs["format"] == "fio-terse" and df.attrs["version"] == "fio-3.33" and df.attrs["terse_version"] == 3
    assert df[["jobname", "direction"]].values.tolist() == [["randread", "read"], ["seqwrite", "write"]]
    # '3;fio-3.33;randread;0;0;74760;37361;9340;2001;0;0;0.000000;0.000000;51;3790;105.162831;73.910511;
    #  1.000000%=61;5.000000%=68;...'
    r = df.iloc[0]
    assert (r["io_kbytes"], r["bw_kbs"], r["iops"], r["runtime_ms"]) == (74760, 37361, 9340, 2001)
    assert (r["clat_min_us"], r["clat_max_us"], r["clat_mean_us"]) == (51, 3790, 105.162831)
    assert r["clat_pct_1.000000"] == 61 and r["clat_pct_5.000000"] == 68
    disks = df.attrs["disk_util"]
    assert [d["name"] for d in disks] == ["vda", "vda"] and disks[0]["util"] > 0


def test_fio_terse_other_versions_and_trailing_fields():
    v5, _ = _load("fio-3.33-terse-v5.txt")
    assert v5.attrs["terse_version"] == 5 and v5["io_kbytes"].tolist() == [71444, 85252]
    assert v5["bw_samples"].tolist() == [3, 3] and "iops_mean" in v5.columns
    v2, _ = _load("fio-3.33-terse-v2.txt")
    assert v2.attrs["version"] is None and v2["io_kbytes"].tolist() == [67604, 69856]
    d, _ = _load("fio-3.33-minimal-description.txt")
    assert d.attrs["descriptions"] == {"d": "my job; with semicolon"} and d.attrs["errors"] == {"d": (0, 0)}
    assert d["iops"].tolist() == [6975]


def test_fio_terse_short_line_is_an_error_with_its_line():
    from kernel_workbook.traces import parse_fio_terse

    line = (REAL / "fio-3.33-terse-v3.txt").read_text().split("\n")[1]
    with pytest.raises(WorkbookParseError, match=r"<text>:2: expected 121 fields of terse version 3 \(found 60\)"):
        parse_fio_terse((REAL / "fio-3.33-terse-v3.txt").read_text().split("\n")[0] + "\n"
                        + ";".join(line.split(";")[:60]) + "\n")


def test_perf_stat_interval_under_a_decimal_comma_locale_reads_the_counts():
    """LC_ALL=de_DE perf stat -I prints the interval time with a point ('0.500607702') and the counts with a
    decimal comma and '.' grouping ('499,77 msec', '585.074'): the time was taken for the file's decimal mark,
    and 499,77 msec read as 49977, 585.074 reads as 585.074."""
    df, _ = _load("perf-stat-6.1-I-de_DE.txt")
    assert df.attrs["decimal"] == ","
    tc = df[df["event"] == "task-clock"]
    assert tc["value"].tolist() == [499.77, 500.74, 283.79] and tc["metric_value"].tolist() == [1.0, 1.001, 0.568]
    assert df[df["event"] == "syscalls:sys_enter_read"]["value"].tolist() == [585074, 586969, 327960]
    assert tc["time"].tolist() == [0.500607702, 1.001409281, 1.286428866]


@pytest.mark.parametrize("name, vda", [
    ("vmstat-procps4-d-de_DE.txt", [511584, 37631, 45567578, 1955053, 478881, 933584, 98892408, 507592, 0, 240]),
    ("vmstat-procps4-d-sv_SE.txt", [511613, 37673, 45568730, 1955070, 478881, 933584, 98892408, 507592, 0, 240]),
    ("vmstat-procps4-dt-pt_BR.txt", [577481, 37755, 48369114, 1968509, 538127, 935096, 101649712, 519194, 0, 249]),
])
def test_vmstat_d_translated_is_read_under_vmstat_names(name, vda):
    """A translated vmstat -d ('Disk- ---Lesevorgänge---' / 'gesamt merged Sektoren ms'; sv_SE keeps 'disk-' but
    prints 'totalt grupp sektor'; pt_BR prints 'DRDOS/s (FAT12)' for 'sec') was refused or not recognised."""
    df, _ = _load(name)
    assert df.attrs["format"] == "vmstat-d" and df.attrs["localized_header"]
    cols = ["reads_total", "reads_merged", "reads_sectors", "reads_ms", "writes_total", "writes_merged",
            "writes_sectors", "writes_ms", "IO_cur", "IO_sec"]
    assert df.set_index("disk").loc["vda", cols].tolist() == vda and len(df) == 10
    if "dt" in name:
        assert df.attrs["timezone"] == "UTC" and str(df["timestamp"].iloc[0]) == "2026-11-25 03:58:48"


def test_vmstat_d_names_line_missing_is_still_an_error():
    from kernel_workbook.traces import parse_vmstat_disk

    lines = (REAL / "vmstat-procps4-d-de_DE.txt").read_text().split("\n")
    with pytest.raises(WorkbookParseError, match=r"<text>:2: expected vmstat -d's ten column names"):
        parse_vmstat_disk("\n".join([lines[0]] + lines[2:]))


def test_perf_script_no_callchain_ip_sym_without_dso_is_a_frame():
    """`perf script -F comm,pid,tid,time,period,event,ip,sym` of a capture without -g: 'ffffffff81b6a332
    _copy_to_iter' on the sample line was kept as tracepoint fields in `trace`, and the sample had no stack."""
    from kernel_workbook.traces import parse_perf_script

    p = parse_perf_script(REAL / "perf-script-6.1-no-callchain-F-ip-sym-period.txt")
    s = p.samples
    assert len(s) == 40 and (s["trace"] == "").all() and (s["stack_id"] >= 0).all()
    assert (s["pid"] == 29526).all() and (s["period"] == 2004008).all()
    first = p.stacks[p.stacks["stack_id"] == s["stack_id"].iloc[0]]
    assert first[["addr", "symbol"]].values.tolist() == [["ffffffff81b6a332", "_copy_to_iter"]]


def test_vmstat_t_numeric_zone_gives_the_epoch_and_an_ambiguous_one_does_not():
    """TZ=Europe/Istanbul vmstat -t names its zone '+03' (no abbreviation): the wall clock was kept but no `time`
    came of it. 'IST' (India, Israel or Ireland) still gives none: it would be a guess."""
    ist, _ = _load("vmstat-procps4-t-TZ-Istanbul.txt")
    # '... 2026-11-25 07:03:53' at +03 is 04:03:53 UTC, 1983 s after 03:30:50 UTC (1795577450)
    assert ist.attrs["timezone"] == "+03" and ist["time"].tolist() == [1795579433.0, 1795579434.0]
    kol, _ = _load("vmstat-procps4-t-TZ-Kolkata.txt")
    assert kol.attrs["timezone"] == "IST" and "time" not in kol.columns
    assert str(kol["timestamp"].iloc[0]) == "2026-11-25 09:33:54"
    from kernel_workbook.traces import parse_proc_vmstat

    assert parse_proc_vmstat("Wed Nov 25 07:03:53 +03 2026\npgfault 1\n")["time"].tolist() == [1795579433.0]


# ------------------------------------------------------------------ a run killed mid-line, then another appended

def test_vmstat_run_killed_mid_line_then_another_appended():
    """`vmstat 1 >> log` killed while writing a line, then run again: the new header is glued to the cut line
    (' 2  0 ... 193536 procs -----memory-----'). That line was an error; the cut record is now dropped with a
    warning naming its line, and both runs' complete records are kept."""
    from kernel_workbook.traces import TruncatedTraceWarning

    with pytest.warns(TruncatedTraceWarning, match=r"killed-then-appended.txt:4: a record cut short"):
        df = load(REAL / "damaged-vmstat-procps4-killed-then-appended.txt")
    assert df["free"].tolist() == [19547640, 19234896, 19234896, 19234896] and df["bi"].tolist()[:2] == [199, 186]


def test_iostat_run_killed_mid_line_then_another_appended():
    from kernel_workbook.traces import TruncatedTraceWarning

    with pytest.warns(TruncatedTraceWarning, match=r"killed-then-appended.txt:13: a record cut short"):
        df = load(REAL / "damaged-iostat-12.6.1-xt-killed-then-appended.txt")
    # each run's since-boot report (8.97 r/s), then the second run's intervals; the cut report has no row
    assert df["r/s"].tolist() == [8.97, 8.97, 384.0, 256.0] and df["since_boot"].tolist() == [True, True, False, False]


def test_proc_vmstat_snapshot_cut_then_another_run_appended():
    """The cut snapshot (38 counters of 193, its last line 'n' glued to the next run's 'time:') was kept with
    155 NaN counters; it is now dropped, with the warning naming the line."""
    from kernel_workbook.traces import TruncatedTraceWarning

    with pytest.warns(TruncatedTraceWarning, match=r"killed-then-appended.txt:233: a record cut short \('n'\)"):
        df = load(REAL / "damaged-proc-vmstat-6.18-killed-then-appended.txt")
    assert len(df) == 3 and not df.isna().any().any()
    assert df["time"].tolist() == [1795577447.0, 1795577448.0, 1795577449.0]
    assert df["pgfault"].tolist() == [490307097, 490320737, 490339618]


def test_perf_stat_json_keys_of_later_perfs_are_kept_as_columns():
    """perf 6.x after 6.1 adds "metric-threshold" (and "cgroup" with -G): kept as columns, not refused or dropped."""
    line = (REAL / "perf-stat-6.1-j-dd-stderr.txt").read_text().split("\n")[3]
    df = parse_perf_stat(line[:-1] + ', "metric-threshold" : "good"}\n')
    assert df["metric_threshold"].tolist() == ["good"] and df["value"].tolist() == [147.691721]


def test_every_input_warning_has_one_base_class_a_user_can_filter():
    import warnings

    from kernel_workbook import errors, traces

    for name in ("TruncatedTraceWarning", "UndecodableBytesWarning", "SkippedLinesWarning"):
        cls = getattr(traces, name)
        assert cls is getattr(errors, name) and issubclass(cls, errors.WorkbookInputWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error", traces.WorkbookInputWarning)
        with pytest.raises(traces.SkippedLinesWarning):
            warnings.warn(traces.SkippedLinesWarning("x"))


_D_LOCALES = ["de_DE", "es_ES", "fr_FR", "ka_GE", "ko_KR", "pl_PL", "pt_BR", "ro_RO", "sv_SE", "uk_UA"]


@pytest.mark.parametrize("loc", _D_LOCALES)
def test_vmstat_D_translated_is_read_under_vmstat_names(loc):
    """LC_ALL=<loc> vmstat -D ('641175 Lesevorgänge gesamt', '10 disques', pl_PL's 'Dysków: 10') was refused at
    its first translated line, or not recognised at all (fr, pl, sv, uk, ka, ko, ro)."""
    import re

    from kernel_workbook.traces.vmstat import DISK_SUMMARY_NAMES

    name = f"vmstat-procps4-D-{loc}.txt"
    df, w = _load(name)
    assert not w and df.attrs["format"] == "vmstat-D" and df.attrs["language"] == loc.split("_")[0].replace(
        "pt", "pt_BR")
    assert df["name"].tolist() == list(DISK_SUMMARY_NAMES) and (df["sample"] == 0).all()
    # the numbers as printed, in the order printed (no digits in any label of these catalogues)
    assert df["value"].tolist() == [int(x) for x in re.findall(r"\d+", (REAL / name).read_text())]


def test_vmstat_D_translated_listings_are_counted_and_the_same_refusals_hold():
    """Two runs in one file count as two samples; ka's two lines with the same words keep their own places;
    a line no catalogue reads is refused with its line number."""
    from kernel_workbook.traces import parse_vmstat_disk_summary

    ka = (REAL / "vmstat-procps4-D-ka_GE.txt").read_text()
    two = parse_vmstat_disk_summary(ka * 2)
    assert two["sample"].tolist() == [0] * 13 + [1] * 13
    got = two[two["sample"] == 1].set_index("name")["value"]
    assert got["milli spent IO"] == 276 and got["milli weighted IO"] == 3040
    fr = (REAL / "vmstat-procps4-D-fr_FR.txt").read_text().replace("secteurs lus", "secteurs perdus")
    with pytest.raises(WorkbookParseError, match=r"<text>:5: expected '<number> <name>' \(vmstat -D\)"):
        parse_vmstat_disk_summary(fr)


@pytest.mark.parametrize("loc", _D_LOCALES)
def test_vmstat_p_translated_is_read_under_vmstat_names(loc):
    """LC_ALL=<loc> vmstat -p vda 1 2 ('vda lectures secteurs lus écritures écritures dem'; de_DE's header on three
    lines) was not recognised, and parse_vmstat_partition refused its header."""
    name = f"vmstat-procps4-p-vda-{loc}.txt"
    text = (REAL / name).read_text()
    df, w = _load(name)
    assert not w and df.attrs["format"] == "vmstat-p" and df.attrs["partitions"] == ["vda"]
    assert df.attrs["localized_header"].startswith("vda ")
    rows = [[int(x) for x in ln.split()] for ln in text.split("\n") if ln.strip() and ln.split()[0].isdigit()]
    assert len(rows) == 2
    assert df[["reads", "read sectors", "writes", "requested writes"]].values.tolist() == rows


def test_vmstat_p_translated_header_keeps_line_numbers_and_refuses_a_bad_line():
    from kernel_workbook.traces import parse_vmstat_partition

    de = (REAL / "vmstat-procps4-p-vda-de_DE.txt").read_text().split("\n")
    de[4] = de[4].replace("5", "x", 1)
    with pytest.raises(WorkbookParseError, match=r"<text>:5: expected 4 vmstat -p counters"):
        parse_vmstat_partition("\n".join(de))
    es = (REAL / "vmstat-procps4-p-vda-es_ES.txt").read_text().replace("escrituras solicitadas", "escrituras")
    with pytest.raises(WorkbookParseError, match=r"<text>:1: expected a vmstat -p header"):
        parse_vmstat_partition(es)


def test_vmstat_s_polish_label_first_is_read():
    """LC_ALL=pl_PL vmstat -s prints the name first ('Pamięć razem:   24684096 K', 'Przerwań:   30749428'): it was
    not recognised, and parse_vmstat_summary refused its first line."""
    from kernel_workbook.traces import parse_vmstat_summary

    df, w = _load("vmstat-procps4-s-pl_PL.txt")
    assert not w and df.attrs["format"] == "vmstat-s" and len(df) == 28 and (df["sample"] == 0).all()
    assert df.iloc[0][["name", "value", "unit"]].tolist() == ["Pamięć razem", 24684096, "K"]
    got = df.set_index("name")
    assert got.loc["Przerwań", "value"] == 30749428 and got.loc["Przerwań", "unit"] == ""
    assert got.loc["Czas rozruchu", "value"] == 1795536541
    twice = parse_vmstat_summary((REAL / "vmstat-procps4-s-pl_PL.txt").read_text() * 2)
    assert twice["sample"].tolist() == [0] * 28 + [1] * 28
    with pytest.raises(WorkbookParseError, match=r"<text>:2: expected '<number> \[unit\] <name>'"):
        parse_vmstat_summary("Pamięć razem:  24684096 K\nPamięć użyta:  83x3908 K\n")


@pytest.mark.parametrize("name, line", [("iostat-12.6.1-x-human.txt", 7), ("iostat-12.6.1-c-human.txt", 4)])
def test_iostat_human_without_pretty_is_refused_with_the_reason(name, line):
    """`iostat --human` keeps the device name first, so the -h check (made on the --pretty layout) missed it: the
    error said 'a device name and 22 numbers' for '510.5k', which does not tell the user what to change."""
    with pytest.raises(WorkbookParseError, match=rf"{name}:{line}: expected plain numbers: iostat -h \(and --human\)"):
        load(REAL / name)


def test_perf_stat_I_summary_is_a_report_of_its_own():
    """`perf stat -I 200 --summary`: the totals after the intervals lost 7 of their 8 counters (left out as lines
    without an interval time) and 'task-clock 225.64' joined the intervals' block; under -x, the 'summary' in the
    time column was an error."""
    import re

    df, w = _load("perf-stat-6.1-I-summary.txt")
    assert not w and df["block"].unique().tolist() == [0, 1]
    iv, tot = df[df["block"] == 0], df[df["block"] == 1]
    assert iv["time"].notna().all() and len(iv) == 4 * 8 and tot["time"].isna().all()
    assert tot["event"].tolist()[:8] == ["task-clock", "context-switches", "cpu-migrations", "page-faults", "cycles",
                                         "instructions", "branches", "branch-misses"]
    got = tot.set_index("event")["value"]
    assert got["task-clock"] == 225.64 and got["context-switches"] == 63 and got["page-faults"] == 81
    assert got["time elapsed"] == 0.685122634
    x, w = _load("perf-stat-6.1-I-x-summary.txt")
    assert not w and x["block"].unique().tolist() == [0, 1] and x[x["block"] == 0]["time"].notna().all()
    xt = x[x["block"] == 1]
    assert xt["time"].isna().all() and xt["value"].tolist() == [226.37, 50, 81] and xt["unit"].iloc[0] == "msec"
    dd, w = _load("perf-stat-6.1-I-summary-dd-stderr.txt")
    sk = [m for m in w if issubclass(m.category, SkippedLinesWarning)]
    assert len(sk) == 1 and re.search(r"skipped 3 line\(s\).*'400000\+0 records in'", str(sk[0].message))
    assert dd[dd["block"] == 1]["event"].tolist()[:3] == ["task-clock", "context-switches", "page-faults"]
