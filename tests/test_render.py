"""Rendering: mmtests layout by era, and render(parse(text)) == text for the threads."""

import re

import numpy as np
import pytest

from kernel_workbook.tables import compare, published, render, roundtrip_report
from kernel_workbook.tables.render import fmt_duration, split_run_name
from kernel_workbook.threads import THREADS

COVER_LINE = "Mean   SeqRead-MB/sec-16         68.90 (  0.00%)       82.14 ( 19.22%)       81.64 ( 18.50%)"


def test_the_cover_letter_line_comes_back_byte_for_byte():
    text = render(published("2014-seqread-fairzone-cfq", "series-seqread"))
    assert COVER_LINE in text.split("\n")


def test_mmtests_header_split_of_run_names():
    assert split_run_name("3.16.0-rc1-vanilla") == ("3.16.0-rc1", "vanilla")
    assert split_run_name("3.0.0-vanilla") == ("3.0.0", "vanilla")
    assert split_run_name("4.0.0-rc1-slowscan-v2") == ("4.0.0-rc1", "slowscan-v2")
    assert split_run_name("3.16.0-rc1 vanilla") == ("3.16.0-rc1", "vanilla")
    assert split_run_name("baseline") == ("baseline", "")


def test_durations_print_like_dave_chinners_table():
    assert fmt_duration(244) == "4m04s"
    assert fmt_duration(1063) == "17m43s"


@pytest.fixture
def samples():
    rng = np.random.default_rng(3)
    return {"3.16.0-rc1-vanilla": {"SeqRead-MB/sec-1": rng.normal(121.9, 1, 5)},
            "3.16.0-rc1-cfq600": {"SeqRead-MB/sec-1": rng.normal(121.6, 1, 5)}}


def test_2014_era_layout(samples):
    lines = render(compare(samples, era="2014", significance=None)).split("\n")
    assert lines[0].split() == ["3.16.0-rc1", "3.16.0-rc1"] and lines[1].split() == ["vanilla", "cfq600"]
    mean = next(ln for ln in lines if ln.startswith("Mean"))
    # %-6s %-16s then %12.2f ( %6.2f%%) per kernel
    assert re.fullmatch(r"Mean   SeqRead-MB/sec-1[ \d.]{12} \(  0\.00%\)[ \d.]{12} \([ \-\d.]{6}%\)", mean)
    assert not any(ln.startswith(("Amean", "Hmean", "CoeffVar")) for ln in lines)


def test_current_era_layout(samples):
    lines = render(compare(samples, era="current", significance=None)).split("\n")
    hmean = next(ln for ln in lines if ln.startswith("Hmean"))
    assert re.search(r"\(   0\.00%\)$", hmean.split(")")[0] + ")")  # %7.2f
    assert any(ln.startswith("BHmean-95") for ln in lines) and any(ln.startswith("CoeffVar") for ln in lines)


def test_markdown_and_html(samples):
    c = compare(samples, era="current")
    md = render(c, fmt="markdown")
    assert md.startswith("| Stat | Row | 3.16.0-rc1 vanilla | 3.16.0-rc1 cfq600 |")
    h = render(c, fmt="html")
    assert h.startswith('<table class="kwb-table">') and "<th" in h and "SeqRead-MB/sec-1" in h


# Which tables of the threads print back byte for byte, and which only with
# whitespace normalised (and why); docs/data.md "Round trip" lists the same.
EXPECTED = {
    # thread: (tables, exact, normalised)
    "2014-seqread-fairzone-cfq": (29, 29, 29),
    "2015-numa-slow-scan": (39, 26, 39),
    "2011-cfq-deep-idle": (0, 0, 0),
    "2007-throttle-vm-writeout": (2, 2, 2),
    "2012-highalloc-compaction": (6, 0, 0),
}


@pytest.mark.parametrize("thread", list(THREADS))
def test_round_trip_of_every_thread(thread):
    r = roundtrip_report(THREADS[thread].text(), thread, THREADS[thread].era)
    assert (len(r), int(r["exact"].sum()), int(r["normalised"].sum())) == EXPECTED[thread], r.to_string()
    # what does not round-trip byte for byte: hand-aligned lines and perf stat spacing
    for row in r[~r["exact"]].itertuples():
        assert row.kind in ("perfstat", "plain", "compare"), row


def test_the_2012_tables_match_once_the_archive_collapse_is_ignored():
    text = THREADS["2012-highalloc-compaction"].text()
    r = roundtrip_report(text, "2012", "2014")
    assert (r["spaceless"]).all(), r.to_string()


def _mail_table(name: str) -> tuple[list[str], str]:
    from pathlib import Path

    from kernel_workbook.tables import parse_file

    p = Path(__file__).parent / "fixtures" / "mail-tables" / f"{name}.txt"
    return [ln.rstrip() for ln in p.read_text().splitlines()], render(parse_file(p))


def test_a_kernel_test_robot_table_prints_back_in_the_robots_layout():
    mail, out = _mail_table("lkp-2025-will-it-scale-poll2")
    lines = out.splitlines()
    # the header, the rule, the two heading rows and every row, each as the robot printed it, in order
    assert len(lines) == 13 and "\n".join(mail).find("\n".join(lines)) >= 0
    assert "     21281 ±147%    +197.5%      63313 ± 84%  numa-meminfo.node0.Shmem" in lines


def test_a_robot_change_in_points_is_left_blank_not_invented():
    mail, out = _mail_table("lkp-2025-pipeherd-abs-change")
    lines = out.splitlines()
    assert "      0.20 ±153%  +2.1e+05%     418.07 ±203%  perf-sched.wait_time.max.ms.__cond_resched.__mutex_lock."\
           "constprop.0.anon_pipe_read" in lines  # a change past 1e5 % in the robot's exponent form
    points = [ln for ln in lines if ln.endswith("perf_mmap__push.record__mmap_read_evlist.__cmd_record.cmd_record."
                                                "run_builtin")]
    assert points == ["      3.32 ± 46%                  4.82 ± 13%  perf-profile.calltrace.cycles-pp.perf_mmap__push."
                      "record__mmap_read_evlist.__cmd_record.cmd_record.run_builtin"]
    assert [ln for ln in lines if ln not in mail] == points  # every other line as the mail printed it


def test_a_ratio_summary_row_prints_without_a_percentage():
    from kernel_workbook.tables import parse_text
    text = ("                         base          new\n"
            "Ratio tput        1.00 (0.00%) (NaNs)        0.80 (-20.07%) (NaNs)\n"
            "Ratio lat         1.00 (0.00%) (NaNs)        0.80 (-20.07%) (NaNs)\n"
            "Gmean Higher       1.00                         0.79\n")
    out = render(parse_text(text))
    assert "nan" not in out and re.search(r"^Gmean\s+Higher\s+1\.00\s+0\.79$", out, re.M)
