"""perf stat, perf script (and folded stacks against stackcollapse-perf.pl), perf report."""

import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from kernel_workbook.errors import WorkbookParseError
from kernel_workbook.paths import data_dir
from kernel_workbook.traces import (fold, folded_text, parse_folded, parse_perf_report,
                                    parse_perf_report_callgraph, parse_perf_script, parse_perf_stat)

FIX = Path(__file__).parent / "fixtures" / "traces"


def stackcollapse() -> Path | None:
    """FlameGraph's stackcollapse-perf.pl ($KWB_FLAMEGRAPH), found the way the benchmark finds it."""
    from kernel_workbook.bench.traces_bench import stackcollapse_script

    return stackcollapse_script()


# ------------------------------------------------------------------ perf stat

def test_perf_stat_r_with_variance_and_elapsed_sd():
    df = parse_perf_stat(FIX / "perf-stat-6.1-r3.txt")
    assert df.attrs["runs"] == 3 and df.attrs["target"] == "true"
    tc = df[df["event"] == "task-clock"].iloc[0]
    assert tc["unit"] == "msec" and tc["metric_unit"] == "CPUs utilized" and not np.isnan(tc["variance_pct"])
    assert df.loc[df["event"] == "cycles", "counted"].iloc[0] == "not supported"
    el = df[df["event"] == "time elapsed"].iloc[0]
    assert el["unit"] == "seconds" and el["metric_unit"] == "+- seconds" and el["metric_value"] > 0
    assert df.loc[df["event"] == "kmem:mm_page_alloc", "value"].iloc[0] == 32


def test_perf_stat_csv_matches_its_columns():
    df = parse_perf_stat(FIX / "perf-stat-6.1-r3-csv.txt")
    assert df.attrs["csv"]
    row = df[df["event"] == "task-clock"].iloc[0]
    assert (row["value"], row["unit"], row["variance_pct"], row["run_time"], row["enabled_pct"],
            row["metric_value"], row["metric_unit"]) == (0.46, "msec", 1.91, 464750.0, 100.0, 0.552,
                                                          "CPUs utilized")


def test_perf_stat_interval_has_times():
    df = parse_perf_stat(FIX / "perf-stat-6.1-interval.txt")
    assert df["time"].round(3).unique().tolist() == [0.2, 0.401, 0.502]
    assert (df["counted"] == "not counted").sum() == 2


def test_perf_stat_3x_multiplexing_brackets_and_thousands():
    df = parse_perf_stat(FIX / "perf-stat-3.x-multiplex.txt")
    assert df.attrs["version"] == "perf 3.x"
    cyc = df[df["event"] == "cycles"].iloc[0]
    assert cyc["value"] == 5205202243 and cyc["enabled_pct"] == 83.23 and cyc["metric_unit"] == "GHz"
    assert df.loc[df["event"] == "task-clock", "value"].iloc[0] == 1708.761321
    assert df.loc[df["event"] == "LLC-loads", "counted"].iloc[0] == "not counted"
    assert df.loc[df["event"] == "time elapsed", "value"].iloc[0] == 0.154822978


def test_perf_stat_from_the_2015_thread():
    """The thread quotes perf stat -a -r 6 -e migrate:mm_migrate_pages runs, in mail quotes and tabs."""
    df = parse_perf_stat(data_dir() / "threads" / "2015-numa-slow-scan.txt")
    mig = df[df["event"] == "migrate:mm_migrate_pages"]
    assert {471752.0, 572839.0, 590974.0, 575344.0, 266750.0} <= set(mig["value"])
    assert mig.loc[mig["value"] == 471752.0, "variance_pct"].iloc[0] == 7.38
    assert df.attrs["runs"] == 6 and df.attrs["target"] == "system wide"


def test_perf_stat_nothing_is_an_error():
    with pytest.raises(WorkbookParseError):
        parse_perf_stat("hello\nworld\n")


# ------------------------------------------------------------------ perf script

def test_perf_script_samples_and_stacks():
    ps = parse_perf_script(FIX / "perf-script-6.1-cpu-clock-g.txt")
    s = ps.samples
    assert len(s) == 120 and set(s["event"]) == {"cpu-clock"} and (s["period"] == 250000).all()
    assert (s["cpu"] == -1).all() and (s["pid"] == -1).all() and (s["comm"] == "dd").all()
    st = ps.stacks
    first = st[st["stack_id"] == s["stack_id"].iloc[2]].sort_values("depth")
    assert first["symbol"].iloc[-1].startswith("exc_page_fault")  # the leaf is the last depth
    assert first["dso"].iloc[-1] == "[kernel.kallsyms]"


def test_perf_script_tracepoints_and_two_events():
    ps = parse_perf_script(FIX / "perf-script-6.1-two-events-g.txt")
    s = ps.samples
    assert set(s["event"]) == {"kmem:mm_page_alloc", "cpu-clock"}
    tp = s[s["event"] == "kmem:mm_page_alloc"]
    assert tp["trace"].str.contains("order=").all() and (tp["cpu"] >= 0).all()
    assert (s.loc[s["event"] == "cpu-clock", "trace"] == "").all()


def test_perf_script_without_call_chains():
    ps = parse_perf_script(FIX / "perf-script-6.1-nocallchain-cpu.txt")
    s = ps.samples
    assert len(s) == 60
    cc = s[s["event"] == "cpu-clock"]
    assert (cc["stack_id"] >= 0).all() and (cc["period"] == 250000).all()
    assert (s[s["event"] == "kmem:mm_page_alloc"]["stack_id"] == -1).all()
    assert "perf-exec" in set(s["comm"])


@pytest.mark.parametrize("name", ["perf-script-6.1-cpu-clock-g", "perf-script-6.1-two-events-g"])
def test_fold_equals_stackcollapse_golden(name):
    """The .stackcollapse.folded files are stackcollapse-perf.pl's output on our own captures."""
    with pytest.warns(UserWarning) if "two" in name else _nothing():
        ours = folded_text(fold(FIX / f"{name}.txt", event=None))
    expected = (FIX / f"{name}.stackcollapse.folded").read_text()
    if "two" in name:
        # stackcollapse-perf.pl's event filter only sees sample lines that end with the event name: the
        # kmem:mm_page_alloc lines end with their fields, so the filter becomes the first cpu-clock and
        # every tracepoint sample slips through with a count of 1: 7 x 250000 cpu-clock + 73 (quirk 1).
        exp = parse_folded(expected)
        o = parse_folded(ours)
        assert exp["count"].sum() == 7 * 250000 + 73
        assert o["count"].sum() == 73  # we keep the first event, kmem:mm_page_alloc, and only it
        assert fold(FIX / f"{name}.txt", event="cpu-clock")["count"].sum() == 7 * 250000
    else:
        assert ours == expected


@pytest.mark.skipif(not shutil.which("perl") or stackcollapse() is None,
                    reason="needs perl and FlameGraph (KWB_FLAMEGRAPH)")
def test_fold_equals_live_stackcollapse(tmp_path):
    sc = stackcollapse()
    src = FIX / "perf-script-6.1-cpu-clock-g.txt"
    r = subprocess.run(["perl", str(sc), str(src)], capture_output=True, check=True)
    assert folded_text(fold(src)) == r.stdout.decode()


def test_fold_options():
    f = fold(FIX / "perf-script-6.1-cpu-clock-g.txt", weight="samples")
    assert f["count"].sum() == 120
    assert all(s.startswith("dd;") for s in f["stack"])
    fp = fold(FIX / "perf-script-6.1-cpu-clock-g.txt", pid=True)
    assert all(s.startswith("dd-?;") for s in fp["stack"])  # perf printed no pid, as the Perl script says '?'


def test_fold_drops_a_last_sample_whose_stack_may_be_cut():
    """perf script closes every call chain with a blank line; without it the last stack may lack frames."""
    from kernel_workbook.traces import TruncatedTraceWarning

    text = (FIX / "perf-script-6.1-cpu-clock-g.txt").read_text()
    assert fold(text, weight="samples")["count"].sum() == 120
    for cut in (text.rstrip("\n"), text.rstrip("\n") + "\n"):
        with pytest.warns(TruncatedTraceWarning, match="perf script sample"):
            assert fold(cut, weight="samples")["count"].sum() == 119


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


# ------------------------------------------------------------------ perf report

def test_perf_report_children_table_and_callgraph():
    df = parse_perf_report(FIX / "perf-report-6.1-children.txt")
    assert list(df.columns) == ["event", "Children", "Self", "Command", "Shared Object", "Symbol", "symbol_type"]
    assert df.loc[0, "Children"] == 99.76 and df.loc[0, "symbol_type"] == "k"
    cg = parse_perf_report_callgraph(FIX / "perf-report-6.1-children.txt")
    root = cg[cg["entry"] == 0]
    assert root.iloc[0]["symbol"] == "entry_SYSCALL_64_after_hwframe" and root.iloc[0]["parent"] == -1
    kw = root[root["symbol"] == "ksys_write"].iloc[0]
    assert kw["pct"] == 98.18 and root.loc[root["node"] == kw["parent"], "symbol"].iloc[0] == "do_syscall_64"
    sib = root[root["symbol"].isin(["copy_folio_from_iter_atomic", "ext4_da_write_begin"])]
    assert sib["parent"].nunique() == 1


def test_perf_report_3x_layout():
    df = parse_perf_report(FIX / "perf-report-3.x-callgraph.txt")
    assert df["Command"].tolist() == ["xfs_repair", "xfs_repair", "kworker/1:1"]
    assert df["Overhead"].tolist() == [43.73, 11.02, 2.31] and df["event"].iloc[0] == "cycles"
    cg = parse_perf_report_callgraph(FIX / "perf-report-3.x-callgraph.txt")
    e0 = cg[cg["entry"] == 0]
    fl = e0[e0["symbol"] == "flush_tlb_page"].iloc[0]
    mm = e0[e0["symbol"] == "flush_tlb_mm_range"].iloc[0]
    assert fl["pct"] == 99.5 and mm["pct"] == 0.5 and fl["parent"] == mm["parent"]
    assert e0[e0["symbol"] == "do_wp_page"]["depth"].iloc[0] == 3


def test_perf_report_flat():
    df = parse_perf_report(FIX / "perf-report-6.1-flat.txt")
    assert df["Overhead"].iloc[0] == 47.67 and df["Symbol"].iloc[0] == "copy_folio_from_iter_atomic"
    assert df["event"].tolist()[-1] == "kmem:mm_page_alloc"  # a second event, its own section
    assert (df.groupby("event")["Overhead"].sum().sub(100).abs() < 1).all()


def test_truncated_perf_files_warn_and_keep_the_complete_records():
    from kernel_workbook.traces import TruncatedTraceWarning

    text = (FIX / "perf-script-6.1-cpu-clock-g.txt").read_text().rstrip("\n")
    cut = text[: len(text) - 25]  # in the middle of the last frame line
    with pytest.warns(TruncatedTraceWarning, match="perf script sample"):
        ps = parse_perf_script(cut)
    assert len(ps.samples) == 119
    stat = (FIX / "perf-stat-6.1-r3.txt").read_text()
    k = stat.index("kmem:mm_page_alloc")
    with pytest.warns(TruncatedTraceWarning, match="truncated last line"):
        df = parse_perf_stat(stat[: k - 7])  # "...   32" and no event name yet
    assert list(df["event"]) == ["task-clock", "context-switches", "cycles"]


# ------------------------------------------------------------------ perf stat -x, --metric-only / --topdown / metric lines

def test_perf_stat_topdown_metric_only_csv_by_its_header():
    """--topdown -a -I 1000 -x, (per core, perf 6.1 layout): one row per core, interval and metric."""
    df = parse_perf_stat(FIX / "perf-stat-6.1-topdown-metric-only-csv.txt")
    assert df.attrs["metric_only"] and df.attrs["metrics"] == ["retiring", "bad speculation", "frontend bound",
                                                                "backend bound"]
    assert set(df["counted"]) == {"metric"} and df["value"].isna().all()
    c1 = df[(df["cpu"] == "S0-D0-C1") & (df["time"].round(3) == 2.003)].set_index("metric_unit")["metric_value"]
    assert c1.to_dict() == {"retiring": 19.2, "bad speculation": 2.9, "frontend bound": 13.0, "backend bound": 64.9}
    per_row = df.groupby(["time", "cpu"])["metric_value"].sum()
    assert ((per_row - 100).abs() < 0.2).all()  # the four top-down shares of a core add up to 100%


def test_perf_stat_metric_only_global_and_the_6_1_glued_socket_header():
    g = parse_perf_stat("insn per cycle,stalled cycles per insn,\n0.50,1.48,\n")
    assert g.set_index("metric_unit")["metric_value"].to_dict() == {"insn per cycle": 0.5,
                                                                     "stalled cycles per insn": 1.48}
    # perf 6.1 prints "socket,cpus" with no separator before the first metric (seen on this machine: the
    # header was 'socket,cpus' and the row 'S0,2,,,,,')
    s = parse_perf_stat("socket,cpusGHz,insn per cycle,\nS0,2,3.05,0.50,\nS1,2,2.98,0.61,\n")
    assert s.attrs["metrics"] == ["GHz", "insn per cycle"] and s.attrs["notes"]
    assert s[s["cpu"] == "S1"]["metric_value"].tolist() == [2.98, 0.61]


def test_perf_stat_metric_only_rows_perf_6_1_printed_without_counters():
    """Captured here (perf 6.1.192, no PMU in the VM): -A prints three metric names and four empty cells per
    CPU, --per-node a row count the header does not name; all-empty rows read as metrics without values."""
    df = parse_perf_stat("# started on Tue Nov 24 19:52:03 2026\n\ncpu,GHz,insn per cycle,branch-misses of all "
                         "branches,\nCPU0,,,,,\nCPU1,,,,,\n")
    assert len(df) == 6 and df["metric_value"].isna().all() and df["cpu"].unique().tolist() == ["CPU0", "CPU1"]
    node = parse_perf_stat("node,insn per cycle,\nN0,2,0.57,\n")
    assert node.loc[0, "cpu"] == "N0" and node.loc[0, "metric_value"] == 0.57
    with pytest.raises(WorkbookParseError, match="no metric name it could compute"):
        parse_perf_stat("# started on Tue Nov 24 19:52:03 2026\n\n time,socket,cpus\n     0.100157923,S0,2,,,,,\n")


def test_perf_stat_csv_metric_lines_continue_their_counter():
    """-x, with a counter's second metric on a line of its own (',,,,1.48,stalled cycles per insn')."""
    df = parse_perf_stat(FIX / "perf-stat-6.x-metric-lines-csv.txt")
    m = df[df["counted"] == "metric"]
    assert len(m) == 1 and m.iloc[0]["event"] == "instructions" and np.isnan(m.iloc[0]["value"])
    assert (m.iloc[0]["metric_value"], m.iloc[0]["metric_unit"]) == (1.48, "stalled cycles per insn")
    ins = df[(df["event"] == "instructions") & (df["counted"] == "counted")].iloc[0]
    assert (ins["value"], ins["metric_value"], ins["enabled_pct"]) == (2603501247, 0.5, 83.27)
    assert round(3856436920 / 2603501247, 2) == 1.48  # the fixture's numbers agree with each other
    # perf 6.0 puts one more empty field before the value; an interval line keeps its time
    six0 = parse_perf_stat("10,,instructions,5,100.00,0.50,insn per cycle\n,,,,,1.48,stalled cycles per insn\n")
    assert six0.loc[1, "metric_value"] == 1.48
    iv = parse_perf_stat("1.001,10,,instructions,5,100.00,0.50,insn per cycle\n1.001,,,,,1.48,stalled cycles per insn\n")
    assert iv.loc[1, "time"] == 1.001


def test_perf_stat_metric_only_text_layout_is_refused_clearly():
    """The text --metric-only layout pads names that hold spaces: refused, not read as an event named '12.3'."""
    with pytest.raises(WorkbookParseError, match="metric-only"):
        parse_perf_stat("#           time socket cpus   insn per cycle\n     0.100166779 S0        2     0.57\n")
    with pytest.raises(WorkbookParseError, match=r"<text>:4: expected a perf stat counter line"):
        parse_perf_stat("\n Performance counter stats for 'system wide':\n\n        0.57     12.3 \n\n"
                        "       1.002 seconds time elapsed\n")


def test_text_metric_line_of_its_own_is_a_row_of_its_counter_as_in_csv():
    # perf prints a counter's second metric on an indented '#' line under it; it was skipped in silence
    text = ("\n Performance counter stats for 'x':\n\n"
            "     2,603,500,528 instructions              #    0.50  insns per cycle\n"
            "                                             #    1.48  stalled cycles per insn [83.27%]\n"
            "       0.154822978 seconds time elapsed\n")
    df = parse_perf_stat(text)
    row = df[df["counted"] == "metric"]
    assert list(row["event"]) == ["instructions"] and list(row["metric_value"]) == [1.48]
    assert list(row["metric_unit"]) == ["stalled cycles per insn"] and list(row["enabled_pct"]) == [83.27]
    with pytest.raises(WorkbookParseError, match=":5: expected a metric line"):
        parse_perf_stat(text.replace("#    1.48", "#    1.4x8"))


def test_perf_script_without_frames_keeps_a_last_sample_that_ends_in_a_colon(tmp_path):
    """``perf script -F comm,pid,tid,cpu,time,event`` prints each sample as one line ending in ``event:``.
    With no frame line anywhere there is no call chain to cut, so the last sample is whole: it was dropped
    as the head of a cut stack."""
    f = tmp_path / "perf.script"
    f.write_text("".join(f"      fio  {100 + i}/{100 + i}  [001]  12.{i:06d}: cpu-clock: \n" for i in range(3)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = parse_perf_script(f).samples
    assert len(s) == 3 and list(s["pid"]) == [100, 101, 102]
