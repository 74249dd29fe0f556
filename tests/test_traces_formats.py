"""Formats real users have that the parsers refused (issue 32, item 6), each with a fixture written from the tool's
source (tests/fixtures/traces/README.md says which), and perf stat's thousands grouping read per file (item 4)."""

import warnings
from pathlib import Path

import numpy as np
import pytest

from kernel_workbook.errors import SkippedLinesWarning, WorkbookParseError
from kernel_workbook.traces import load, parse_perf_report, parse_perf_stat, parse_zoneinfo

FIX = Path(__file__).parent / "fixtures" / "traces"


def test_perf_stat_r_d_metric_lines_carry_the_counters_variance():
    """`perf stat -r 5 -d`: perf prints a counter's spread and running share after its last metric, here on the
    line of 'stalled cycles per insn' under 'instructions'.  Was: an error at line 12."""
    df = load(FIX / "perf-stat-6.x-r5-d.txt")
    ins = df[(df["event"] == "instructions") & (df["counted"] == "counted")].iloc[0]
    assert ins["value"] == 103583612148 and ins["metric_unit"] == "insn per cycle"
    assert (ins["variance_pct"], ins["enabled_pct"]) == (0.07, 62.49)  # the counter's, from the line below it
    per = df[(df["event"] == "instructions") & (df["counted"] == "metric")].iloc[0]
    assert (per["metric_value"], per["metric_unit"]) == (0.28, "stalled cycles per insn")
    assert df.loc[df["event"] == "LLC-loads", "variance_pct"].item() == 1.38
    assert df.loc[df["event"] == "task-clock", "value"].item() == 32185.84
    assert df.attrs["runs"] == 5 and len(df[df["counted"] == "counted"]) == 15
    el = df[df["event"] == "time elapsed"].iloc[0]
    assert (el["value"], el["metric_value"], el["variance_pct"]) == (4.8641, 0.0113, 0.23)


def test_perf_stat_csv_metric_groups():
    """perf 6.5+ `-x,` prints its default metric groups as a header row (`,<run>,<enabled>,,,,TopdownL1`) and
    the group's metrics under it.  Was: an error at line 9."""
    df = load(FIX / "perf-stat-6.6-metricgroups-csv.txt")
    counters = df[df["counted"] == "counted"]
    assert len(counters) == 8 and (counters["metricgroup"] == "").all()
    l1 = df[df["metricgroup"] == "TopdownL1"]
    assert list(l1["metric_unit"]) == ["%  tma_backend_bound", "%  tma_bad_speculation", "%  tma_frontend_bound",
                                       "%  tma_retiring"]
    assert l1["metric_value"].sum() == pytest.approx(100.0) and (l1["run_time"] == 2004478615).all()
    assert (l1["counted"] == "metric").all() and (l1["event"] == "").all()
    l2 = df[df["metricgroup"] == "TopdownL2"].set_index("metric_unit")
    # a metric of the group's other event carries that event's running, the others the header's
    assert l2.loc["%  tma_heavy_operations", "run_time"] == 2004470322
    assert l2.loc["%  tma_core_bound", "run_time"] == 2004478615 and len(l2) == 8
    # the counter above a group keeps its own metric; the group's metrics are not its
    bm = df[df["event"] == "branch-misses"]
    assert len(bm) == 1 and bm["metric_unit"].item() == "of all branches"


def test_perf_stat_csv_metric_group_forms_of_other_perfs():
    """Under -I (the interval first), -r (the variance before the running) and perf 6.12 (a separator after the
    group's name, a threshold class after a metric)."""
    text = ("1.001,2004.52,msec,cpu-clock,2004522811,100.00,2.001,CPUs utilized\n"
            "1.001,,2004478615,100.00,,,,TopdownL1\n"
            "1.001,,,,,,41.3,%  tma_backend_bound\n")
    df = parse_perf_stat(text)
    assert df["metricgroup"].tolist() == ["", "TopdownL1"] and df["time"].tolist() == [1.001, 1.001]
    text = ("2004.52,msec,cpu-clock,0.30%,2004522811,100.00,2.001,CPUs utilized\n"
            ",1.25%,2004478615,100.00,,,,TopdownL1\n"
            ",,,,,41.3,%  tma_backend_bound\n")
    df = parse_perf_stat(text)
    assert df["variance_pct"].tolist() == [0.30, 1.25]
    text = ("2004.52,msec,cpu-clock,2004522811,100.00,2.001,CPUs utilized\n"
            ",2004478615,100.00,,,,TopdownL1,\n"
            ",,,,,41.3,%  tma_backend_bound,bad\n")
    df = parse_perf_stat(text)
    assert df["metric_threshold"].tolist() == ["", "bad"] and df["metricgroup"].iloc[1] == "TopdownL1"


def test_zoneinfo_of_2_6_18_with_hot_and_cold_lists():
    """2.6's zoneinfo prints each CPU's two lists, `cpu: 0 pcp: 0` (hot) and `pcp: 1` (cold).  Was: an error at
    line 59 ('cpu: N' expected)."""
    df = parse_zoneinfo(FIX / "zoneinfo-2.6.18-pcp.txt")
    ps = df[(df["scope"] == "pageset") & (df["zone"] == "DMA32")]
    got = {(r.cpu, r.counter): r.value for r in ps.itertuples()}
    assert got[(0, "pcp[0].count")] == 94 and got[(0, "pcp[1].count")] == 12 and got[(1, "pcp[0].count")] == 143
    assert got[(1, "pcp[1].batch")] == 15 and got[(0, "vm stats threshold")] == 16
    z = df[(df["scope"] == "zone") & (df["zone"] == "DMA32")].set_index("counter")["value"]
    # the zone's own lines after its pagesets are the zone's, not the last CPU's
    assert z["prev_priority"] == 12 and z["all_unreclaimable"] == 0 and z["start_pfn"] == 4096
    assert z["pages_scanned"] == 0 and z["numa_hit"] == 6514103 and z["protection[1]"] == 0
    assert set(df["zone"]) == {"DMA", "DMA32"} and not df.duplicated(["zone", "scope", "cpu", "counter"]).any()


def test_perf_report_with_the_authors_words_after_the_table():
    """A `perf report --stdio` pasted into a mail with a sentence under it.  Was: an error at line 38."""
    with pytest.warns(SkippedLinesWarning, match=r"then-prose\.txt: skipped 1 line\(s\).*lines 38; the first: "
                                                 r"'So almost half"):
        df = parse_perf_report(FIX / "perf-report-6.1-flat-then-prose.txt")
    assert len(df) == 25 and df["Overhead"].iloc[0] == 47.67 and df["Symbol"].iloc[-1] == "setlocale"


def test_perf_report_entry_after_the_authors_words_is_still_an_error():
    text = (FIX / "perf-report-6.1-flat-then-prose.txt").read_text() + "     1.16%  dd  libc.so.6  [.] x\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(WorkbookParseError, match=r":39: expected a report entry under its '# Overhead"):
            parse_perf_report(text)


# ---------------------------------------------------------------- thousands grouping, per file

def test_a_count_grouped_otherwise_than_its_file_is_an_error():
    """`123.456 page-faults` in a file that groups thousands with ',' (perf prints counts with 0 or 2 decimals):
    was read as 123.456."""
    text = (FIX / "perf-stat-3.x-multiplex.txt").read_text()
    assert parse_perf_stat(text).attrs["grouping"] == ","
    bad = text.replace("            17,318 page-faults", "           123.456 page-faults")
    with pytest.raises(WorkbookParseError) as e:
        parse_perf_stat(bad, source="p.txt")
    assert e.value.line == 7 and "thousands with ','" in e.value.expected and "(line 5)" in e.value.expected


def test_the_other_way_round_in_a_de_de_file():
    """A de_DE file groups with '.', so '1,234' there is neither its grouping nor perf's two decimals."""
    text = (Path(__file__).parent / "fixtures" / "real-captures" / "perf-stat-6.1-I-de_DE.txt").read_text()
    df = parse_perf_stat(text)
    assert df.attrs["grouping"] == "." and df["value"].iloc[1] == 585074.0
    bad = text.replace("586.969      syscalls", "586,969      syscalls")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(WorkbookParseError, match="thousands with '.'"):
            parse_perf_stat(bad)


def test_a_file_that_shows_no_grouping_reads_three_decimals_as_decimals():
    """The C locale groups nothing: nothing to contradict, as before."""
    text = " Performance counter stats for 'x':\n\n           123.456 msec task-clock\n\n       1.0 seconds time elapsed\n"
    df = parse_perf_stat(text)
    assert df.attrs["grouping"] is None and df["value"].iloc[0] == 123.456 and not np.isnan(df["value"].iloc[0])
