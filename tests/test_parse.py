"""The mail-table parser: every form the issue names, and its errors."""

import math
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_workbook.errors import WorkbookParseError
from kernel_workbook.tables import compare, parse_file, parse_text, render
from kernel_workbook.tables.parse import UnnamedColumnsWarning


def one(text):
    df = parse_text(textwrap.dedent(text))
    assert df["table"].nunique() == 1, df.attrs["tables"]
    return df


def cell(df, row, kernel, stat=None):
    sel = (df["row"] == row) & (df["kernel"] == kernel)
    if stat is not None:
        sel &= df["stat"] == stat
    got = df[sel]
    assert len(got) == 1, got
    return got.iloc[0]


MMTESTS_2014 = """\
    Some prose first, which is not a table: it has 3.0 and 16 in it.

                                          3.16.0-rc1            3.16.0-rc1                 3.0.0
                                             vanilla          cfq600                     vanilla
    Mean   SeqRead-MB/sec-1         121.88 (  0.00%)      121.60 ( -0.23%)      134.59 ( 10.42%)
    Mean   SeqRead-MB/sec-16         68.90 (  0.00%)       77.29 ( 12.18%)       81.64 ( 18.50%)

    More prose.
"""


def test_two_row_header_and_stat_rows():
    df = one(MMTESTS_2014)
    assert list(dict.fromkeys(df["kernel"])) == ["3.16.0-rc1 vanilla", "3.16.0-rc1 cfq600", "3.0.0 vanilla"]
    c = cell(df, "SeqRead-MB/sec-16", "3.16.0-rc1 cfq600")
    assert c.stat == "Mean" and c.value == 77.29 and c.pct == 12.18 and not c.sig
    assert cell(df, "SeqRead-MB/sec-1", "3.16.0-rc1 cfq600").pct == -0.23
    assert set(df["line"]) == {5, 6} and set(df["kind"]) == {"compare"}


def test_columns_of_the_cells_frame():
    df = one(MMTESTS_2014)
    for c in ("table", "stat", "row", "kernel", "value", "pct"):
        assert c in df.columns


def test_rows_without_statistic_and_percentage_only_tables():
    df = one("""\
                                3.16.0-rc1  3.16.0-rc1       3.0.0
                                   vanilla    fairzone     vanilla
    DMA32 allocs                  11099122     9459921     7698716
    Normal allocs                 18823134    20429838    18787406
    """)
    c = cell(df, "DMA32 allocs", "3.16.0-rc1 fairzone")
    assert c.stat == "" and c.value == 9459921 and math.isnan(c.pct)
    df = one("""\
                                 3.16.0-rc1  3.16.0-rc1       3.0.0
                                    vanilla    fairzone     vanilla
     DMA32 allocs                     37.1%       31.6%       29.1%
     Normal allocs                    62.9%       68.4%       70.9%
    """)
    c = cell(df, "Normal allocs", "3.0.0 vanilla")
    assert c.value == 70.9 and c.unit == "%"


def test_quoted_tables_keep_their_depth():
    df = one("""\
    > >                                       3.16.0-rc1            3.16.0-rc1
    > >                                          vanilla                cfq600
    > > Mean   SeqRead-MB/sec-1         121.88 (  0.00%)      121.60 ( -0.23%)
    > > Mean   SeqRead-MB/sec-2         101.99 (  0.00%)      102.35 (  0.36%)
    """)
    assert set(df["quote"]) == {2}
    assert cell(df, "SeqRead-MB/sec-2", "3.16.0-rc1 cfq600").value == 102.35


def test_collapsed_spacing_of_the_2012_archive():
    df = one("""\
    STRESS-HIGHALLOC
       revert-v5  contended-v5capture-v5
    Pass 1   0.00 ( 0.00%)38.00 (38.00%)45.00 (45.00%)
    Pass 2   0.00 ( 0.00%)46.00 (46.00%)52.00 (52.00%)
    while Rested85.00 ( 0.00%)86.00 ( 1.00%)86.00 ( 1.00%)
    """)
    assert list(dict.fromkeys(df["kernel"])) == ["revert-v5", "contended-v5", "capture-v5"]
    assert cell(df, "Pass 1", "contended-v5").value == 38.0
    assert cell(df, "while Rested", "revert-v5").value == 85.0
    assert any("shared suffix" in n for n in df.attrs["tables"][1]["notes"])


def test_numbers_the_archive_ran_together_are_split_by_their_decimals():
    df = parse_text(textwrap.dedent("""\
       revert-v5  contended-v5  capture-v5
    Pass 1   0.00 ( 0.00%)  38.00 (38.00%)  45.00 (45.00%)

    Page Outs8042076 8030516 8026740
    Kswapd efficiency99% 96% 97%
    Kswapd velocity  899.586 980.6341218.131
    """))
    t = df[df["table"] == 2]
    assert list(t[t["row"] == "Kswapd velocity"]["value"]) == [899.586, 980.634, 1218.131]
    assert list(t[t["row"] == "Page Outs"]["value"]) == [8042076, 8030516, 8026740]
    assert list(t[t["row"] == "Kswapd efficiency"]["value"]) == [99, 96, 97]
    notes = " ".join(df.attrs["tables"][2]["notes"])
    assert "glued" in notes and "header at line 1" in notes


def test_kernel_versions_are_not_mistaken_for_glued_numbers():
    df = one("""\
                  3.19.0   4.0.0-rc1   4.0.0-rc1
                 vanilla     vanillaptewrite-v1r20
    User        46119.12    53384.29    44994.10
    System        306.41      692.14      279.78
    """)
    assert list(dict.fromkeys(df["kernel"])) == ["3.19.0 vanilla", "4.0.0-rc1 vanilla", "4.0.0-rc1 ptewrite-v1r20"]


def test_durations_and_a_row_label_column_title():
    df = one("""\
    config                            3.19      4.0-rc1     4.0-rc4
    defaults                         8m08s        9m34s       9m14s
    -o ag_stride=-1                  4m04s        4m38s       4m11s
    """)
    c = cell(df, "-o ag_stride=-1", "3.19")
    assert c.value == 244 and c.unit == "s" and c.text == "4m04s"
    assert df.attrs["tables"][1]["label_title"] == "config"


def test_perf_stat_lines_with_their_spread():
    df = one("""\
     Performance counter stats for 'system wide' (6 runs):

               572,839      migrate:mm_migrate_pages    ( +-  3.15% )

          10.001664694 seconds time elapsed             ( +-  0.00% )
    """)
    c = cell(df, "migrate:mm_migrate_pages", "")
    assert c.value == 572839 and c.stddev_pct == 3.15 and c.kind == "perfstat" and math.isnan(c.pct)
    assert cell(df, "seconds time elapsed", "").value == pytest.approx(10.001664694)


def test_proc_vmstat_dumps_under_labels_become_one_table():
    df = one("""\
    3.19:

    numa_hit 5163221
    numa_miss 121274
    numa_pages_migrated 1228114

    4.0-rc1:

    numa_hit 36952043
    numa_miss 92471
    numa_pages_migrated 32916316
    """)
    assert cell(df, "numa_pages_migrated", "4.0-rc1").value == 32916316
    assert cell(df, "numa_hit", "3.19").value == 5163221
    assert set(df["kind"]) == {"vmstat"}


def test_current_mmtests_rows_and_significance_marks():
    df = one("""\
                                       5.10.0                 5.10.0
                                      vanilla                patched
    Min       ops-1         10.00 (   0.00%)       11.00 (  10.00%)
    Hmean     ops-1         10.50 (   0.00%)       12.00 *  14.29%*
    Stddev    ops-1          0.30 (   0.00%)        0.40 ( -33.33%)
    CoeffVar  ops-1          2.86 (   0.00%)        3.33 ( -16.67%)
    Max       ops-1         11.00 (   0.00%)       13.00 (  18.18%)
    BHmean-50 ops-1         10.80 (   0.00%)       12.50 (  15.74%)
    BAmean-95 ops-1         10.60 (   0.00%)       12.10 (  14.15%)
    """)
    assert set(df["stat"]) == {"Min", "Hmean", "Stddev", "CoeffVar", "Max", "BHmean-50", "BAmean-95"}
    c = cell(df, "ops-1", "5.10.0 patched", stat="Hmean")
    assert c.sig and c.pct == 14.29
    assert not cell(df, "ops-1", "5.10.0 patched", stat="Max").sig
    assert df.attrs["tables"][1]["era"] == "current"


def test_mmtests_sections_are_recorded():
    df = one("""\
    MMTests Statistics: duration
                    4.0.0-rc1   4.0.0-rc1
                      vanilla   slowscan
    User             53384.29    56093.11
    System             692.14      311.64
    """)
    assert df.attrs["tables"][1]["section"] == "duration"
    assert cell(df, "System", "4.0.0-rc1 slowscan").value == 311.64


def test_an_elision_between_header_and_rows_is_allowed():
    df = one("""\
                                        4.0.0-rc1             4.0.0-rc1
                                          vanilla           slowscan-v2
    ...
    Amean    real-xfsrepair      507.85 (  0.00%)      459.58 (  9.50%)
    Amean    syst-xfsrepair      519.88 (  0.00%)      281.63 ( 45.83%)
    """)
    assert cell(df, "syst-xfsrepair", "4.0.0-rc1 slowscan-v2").pct == 45.83


# --- bad input: one error type, naming the line ---------------------------

def test_a_row_with_fewer_cells_than_the_others():
    with pytest.raises(WorkbookParseError) as e:
        parse_text(textwrap.dedent("""\
                                  a-1         b-1         c-1
        DMA32 allocs         11099122    11020083     9459921
        Normal allocs        18823134    18801874
        Movable allocs              0           0           0
        """), source="mail.txt")
    assert e.value.source == "mail.txt" and e.value.line == 3
    assert "3 value cells" in str(e.value) and "mail.txt:3" in str(e.value)


def test_a_non_numeric_cell_between_cells():
    with pytest.raises(WorkbookParseError) as e:
        parse_text(textwrap.dedent("""\
                                          3.16.0-rc1            3.16.0-rc1
                                             vanilla                cfq600
        Mean   SeqRead-MB/sec-1         121.88 (  0.00%)      121.60 ( -0.23%)
        Mean   SeqRead-MB/sec-2         101.99 (  0.00%)         n/a ( 0.36%)
        """))
    assert e.value.line == 4 and "n/a" in str(e.value)


CUT_HEADER = """\
                                  3.16.0-rc1            3.16.0-rc1
                                     vanilla                cfq600
Mean   SeqRead-MB/sec-1         121.88 (  0.00%)      121.60 ( -0.23%)
"""


def test_a_row_cut_short_at_the_end_of_the_text_is_dropped_with_a_warning():
    """The truncation rule: the last line without its newline may be cut anywhere; the rows above stay."""
    from kernel_workbook.errors import TruncatedTraceWarning

    for cut in ["Mean   SeqRead-MB/sec-2         101.99 (  0.00%)      102.35 (  0.",
                "Mean   SeqRead-MB/sec-2         101.99 (  0.00%)      102.35",
                "Mean   SeqRead-MB/sec-2         101.99 (  0.00%)"]:
        with pytest.warns(TruncatedTraceWarning, match=r"<text>:4: truncated last line"):
            df = parse_text(CUT_HEADER + cut)
        assert df["line"].unique().tolist() == [3] and df["value"].tolist() == [121.88, 121.60]


def test_a_row_cut_short_inside_the_text_is_an_error_naming_it():
    """Fewer cells than the header has kernels, with rows after it: the docstring's promise."""
    for cut in ["Mean   SeqRead-MB/sec-2         101.99 (  0.00%)      102.35 (  0.",
                "Mean   SeqRead-MB/sec-2         101.99 (  0.00%)"]:
        with pytest.raises(WorkbookParseError) as e:
            parse_text(CUT_HEADER + cut + "\nMean   SeqRead-MB/sec-4          99.00 (  0.00%)       98.00 ( -1.01%)\n",
                       source="mail.txt")
        assert e.value.line == 4 and e.value.source == "mail.txt"
    # the short row first: the error names it, not the complete row after it
    with pytest.raises(WorkbookParseError) as e:
        parse_text(CUT_HEADER.replace("      121.60 ( -0.23%)", "") +
                   "Mean   SeqRead-MB/sec-2         101.99 (  0.00%)      102.35 (  0.36%)\n")
    assert e.value.line == 3 and "2 value cells" in str(e.value)
    # every row short: the header's kernels say so
    with pytest.raises(WorkbookParseError, match=r"<text>:3: expected 2 value cells, one per kernel name"):
        parse_text(CUT_HEADER.replace("      121.60 ( -0.23%)", "") +
                   "Mean   SeqRead-MB/sec-2         101.99 (  0.00%)\n")


def test_a_header_with_no_rows_is_a_truncated_table():
    with pytest.raises(WorkbookParseError) as e:
        parse_text(textwrap.dedent("""\
        Results:

                                          3.16.0-rc1            3.16.0-rc1
                                             vanilla                cfq600
        """), source="cut.txt")
    assert "cut short" in str(e.value) and e.value.source == "cut.txt"


def test_a_row_missing_its_percentages():
    with pytest.raises(WorkbookParseError) as e:
        parse_text(textwrap.dedent("""\
                                          3.16.0-rc1            3.16.0-rc1
                                             vanilla                cfq600
        Mean   SeqRead-MB/sec-1         121.88 (  0.00%)      121.60 ( -0.23%)
        Mean   SeqRead-MB/sec-2         101.99                102.35
        """))
    assert e.value.line == 4


def test_prose_with_numbers_and_percentages_is_not_a_table():
    df = parse_text(textwrap.dedent("""\
    Ok, that's down from rc1 (67%), but still hugely up from 3.19 (13.7%).
    runtimes were 7m45, 7m50, 7m44s, 8m2s, and the profiles came from
    --- aio-stress-orig.c 2011-08-16 17:00:04.000000000 -0400
    +++ aio-stress.c 2011-08-18 14:49:31.000000000 -0400
    Date: Fri, 19 Aug 2011 19:38:37 +0400
    """))
    assert df.empty


# --- properties --------------------------------------------------------------

names = st.from_regex(r"[A-Z][a-z]{2,8}-[a-z]{2,6}", fullmatch=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kernels=st.lists(st.sampled_from(["3.16.0-rc1-vanilla", "3.16.0-rc1-cfq600", "3.0.0-vanilla", "4.0.0-rc1-slowscan"]),
                     min_size=2, max_size=4, unique=True),
    rows=st.lists(names, min_size=1, max_size=4, unique=True),
    era=st.sampled_from(["2014", "2015", "current"]),
    seed=st.integers(0, 2**16),
)
def test_render_then_parse_gives_the_numbers_back(kernels, rows, era, seed):
    rng = np.random.default_rng(seed)
    samples = {k: {r: rng.uniform(1, 1000, 5) for r in rows} for k in kernels}
    c = compare(samples, era=era)
    back = parse_text(render(c, note=False))
    assert len(back) == len(c)
    a = c.sort_values(["order", "col"]).reset_index(drop=True)
    b = back.sort_values(["order", "col"]).reset_index(drop=True)
    assert list(a["kernel"]) == list(b["kernel"]) and list(a["row"]) == list(b["row"])
    assert list(a["stat"]) == list(b["stat"])
    assert np.allclose(a["value"].round(2), b["value"], atol=0.006)
    assert np.allclose(a["pct"].round(2), b["pct"], atol=0.006)
    assert list(a["sig"]) == list(b["sig"])


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("Mean Sed-Rad0123456789.%()*>:\n\t|,-+abcvnilxmsMB/")), max_size=400))
def test_any_text_parses_or_raises_the_workbook_error(text):
    try:
        parse_text(text)
    except WorkbookParseError as e:
        assert e.line is None or e.line >= 1


SNIPPETS = [MMTESTS_2014, """\
       revert-v5  contended-v5capture-v5
    Pass 1   0.00 ( 0.00%)38.00 (38.00%)45.00 (45.00%)
    Kswapd velocity  899.586 980.6341218.131
    """, """\
    3.19:

    numa_hit 5163221
    numa_miss 121274
    numa_other 131368
    """, """\
    config                            3.19      4.0-rc1     4.0-rc4
    defaults                         8m08s        9m34s       9m14s
         471,752      migrate:mm_migrate_pages ( +-  7.38% )
    """]


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    snippet=st.sampled_from(SNIPPETS),
    edits=st.lists(st.tuples(st.integers(0, 400), st.sampled_from(["del", "ins", "cut", "dup"]),
                             st.sampled_from(list(" 0.9%()*-\n>x"))), max_size=6),
)
def test_mutated_tables_parse_or_raise_the_workbook_error(snippet, edits):
    text = textwrap.dedent(snippet)
    for pos, op, ch in edits:
        pos = pos % (len(text) + 1)
        if op == "del":
            text = text[:pos] + text[pos + 1:]
        elif op == "ins":
            text = text[:pos] + ch + text[pos:]
        elif op == "cut":
            text = text[:pos]
        else:
            text = text[:pos] + text[pos:pos + 20] + text[pos:]
    try:
        df = parse_text(text)
    except WorkbookParseError as e:
        assert e.line is None or 1 <= e.line <= text.count("\n") + 1
        return
    assert set(df.columns) >= {"table", "stat", "row", "kernel", "value", "pct"}


def test_stat_column_for_every_mmtests_statistic_name():
    """Max-N, BestN%Mean and the duration rows' trailing stat ("Elapsed min") fill the stat column (issue 15)."""
    t = ("                          4.0.0-rc1             3.19.0\n"
         "                            vanilla            vanilla\n"
         "Max-90     elapsed      72.00 (  0.00%)    75.00 ( -4.17%)\n"
         "Best99%Mean elapsed     70.00 (  0.00%)    71.00 ( -1.43%)\n"
         "Elapsed min             50.00 (  0.00%)    51.00 ( -2.00%)\n")
    df = parse_text(t)
    assert df.drop_duplicates("stat")[["stat", "row"]].values.tolist() == [
        ["Max-90", "elapsed"], ["Best99%Mean", "elapsed"], ["min", "Elapsed"]]


def test_a_nul_inside_a_value_is_an_error_not_a_number():
    t = ("                          4.0.0-rc1             3.19.0\n"
         "Amean     elapsed      0.\x0088 (  0.00%)    75.00 ( -4.17%)\n")
    with pytest.raises(WorkbookParseError, match=r"<text>:2: expected text without NUL bytes"):
        parse_text(t)


# --- run-together header names, annotations, damaged cells (issue 15) ---------------------------

def _fixed_width(kernels, rows, w):
    """A table as mmtests prints it: fixed-width fields, kernel names right-aligned in them."""
    head = " " * 25 + "".join(f"{k:>{w}}" for k in kernels)
    body = [f"{label:<25}" + "".join(f"{v:>{w - 11}.2f} ({p:7.2f}%)" for v, p in cells) for label, cells in rows]
    return head + "\n" + "\n".join(body) + "\n"


def test_kernel_names_run_together_are_split_at_the_column_edges():
    """A name that fills its field touches the one before it; no shared suffix to split at."""
    kernels = ["3.0.0-vanilla", "3.16.0-rc1-cfq600-v1", "3.16.0-rc1-fairzone"]
    t = _fixed_width(kernels, [("Amean     user", [(72, 0), (75, -4.17), (71, 1.39)]),
                               ("Amean     elapsed", [(50, 0), (51, -2), (49, 2)])], 20)
    assert "3.0.0-vanilla3.16.0-rc1-cfq600-v1" in t  # the names touch
    df = one(t)
    assert list(dict.fromkeys(df["kernel"])) == kernels
    assert cell(df, "elapsed", "3.16.0-rc1-cfq600-v1").value == 51.0
    assert any("split at the column edges" in n for n in df.attrs["tables"][1]["notes"])
    # the two rows of a 2014 header, the first run together
    t2 = (" " * 15 + "".join(f"{k:>10}" for k in ["3.16.0-rc1", "3.16.0-rc1", "3.0.0"]) + "\n"
          + " " * 15 + "".join(f"{k:>10}" for k in ["vanilla", "cfq600", "vanilla"]) + "\n"
          + "DMA32 allocs  " + " " + "".join(f"{v:>10}" for v in [11099122, 9459921, 7698716]) + "\n"
          + "Normal allocs " + " " + "".join(f"{v:>10}" for v in [18823134, 20429838, 18787406]) + "\n")
    assert "3.16.0-rc13.16.0-rc1" in t2
    df = one(t2)
    assert list(dict.fromkeys(df["kernel"])) == ["3.16.0-rc1 vanilla", "3.16.0-rc1 cfq600", "3.0.0 vanilla"]
    assert cell(df, "Normal allocs", "3.16.0-rc1 cfq600").value == 20429838


def test_a_run_together_header_off_the_columns_is_not_cut_inside_a_name():
    """Names that do not end on the column edges are not cut there ('3.0.0-van' + 'illa3.16...')."""
    t = ("                                     3.0.0-vanilla3.16.0-rc1-vanilla\n"
         "Amean     user                 72.00 (  0.00%)      75.00 ( -4.17%)\n"
         "Amean     elapsed              72.00 (  0.00%)      75.00 ( -4.17%)\n")
    df = one(t)
    assert list(dict.fromkeys(df["kernel"])) == ["3.0.0-vanilla", "3.16.0-rc1-vanilla"]  # at the shared suffix


@pytest.mark.parametrize("note", ["<-- this one", "# note", "(!)", "!!", "*** regression", "<== worst"])
def test_an_authors_annotation_after_a_row_is_kept_apart(note):
    t = textwrap.dedent(MMTESTS_2014).replace("134.59 ( 10.42%)", "134.59 ( 10.42%)   " + note)
    df = one(t)
    assert cell(df, "SeqRead-MB/sec-1", "3.0.0 vanilla").value == 134.59
    assert df.attrs["tables"][1]["annotations"] == [{"line": 5, "text": note}]
    plain = one("""\
                                3.16.0-rc1  3.16.0-rc1       3.0.0
                                   vanilla    fairzone     vanilla
    DMA32 allocs                  11099122     9459921     7698716   NOTE
    Normal allocs                 18823134    20429838    18787406
    """.replace("NOTE", note))
    assert cell(plain, "DMA32 allocs", "3.0.0 vanilla").value == 7698716
    assert plain.attrs["tables"][1]["annotations"] == [{"line": 3, "text": note}]


def test_a_damaged_cell_is_an_error_not_a_label_and_a_value():
    """'72.x8' became part of the row label with the value 8.0."""
    head = ("                          4.0.0-rc1             3.19.0\n"
            "                            vanilla            vanilla\n")
    good = "Amean     user         72.00 (  0.00%)    75.00 ( -4.17%)\n"
    bad = "Amean     elapsed      72.x8 (  0.00%)    75.00 ( -4.17%)\n"
    for t, line in [(head + bad + good, 3), (head + good + bad, 4), (head + bad, 3)]:
        with pytest.raises(WorkbookParseError, match=r"non-numeric cell '72.x8'") as e:
            parse_text(t)
        assert e.value.line == line
    plain = ("                  a-1         b-1         c-1\n"
             "DMA32 allocs  11099122    1x020083     9459921\n"
             "Normal allocs 18823134    18801874    18801875\n")
    with pytest.raises(WorkbookParseError) as e:  # not split into '1x' + value 20083 as archive glue
        parse_text(plain)
    assert e.value.line == 2


PARSE_HOSTILE = [  # (text, line the error names): damage inside a table is an error, never a value
    ("   a-1   b-1\nRow one   1.5   2.5\nRow two   1.5   2..5\nRow three 1.0 2.0\n", 3),
    ("   a-1   b-1\nRow one   1.5   2.5\nRow two   1.5\nRow three 1.0 2.0\n", 3),
    ("                 a-1               b-1\nMean x   1.00 ( 0.00%)   2.00 ( 1.00%)\n"
     "Mean y   1.00 ( 0.00%)   2.0x ( 1.00%)\n", 3),
    ("                 a-1               b-1\nMean x   1.00 ( 0.00%)   2.00 ( 1.00%)\n"
     "Mean y   1.00 ( 0.00%)   2.00 ( 1.00%) 3.00\n", 3),  # a number after the cells is no annotation
]


@pytest.mark.parametrize("text,line", PARSE_HOSTILE)
def test_hostile_tables_raise_naming_the_line(text, line):
    with pytest.raises(WorkbookParseError) as e:
        parse_text(text)
    assert e.value.line == line


# --- real tables from other public threads (tests/fixtures/mail-tables, sources in its README) --------------

from pathlib import Path  # noqa: E402

from kernel_workbook.tables import parse_file  # noqa: E402

MAIL_TABLES = Path(__file__).parent / "fixtures" / "mail-tables"


def real(name):
    return parse_file(MAIL_TABLES / name)


def in_table(df, t):
    sub = df[df["table"] == t].copy()
    sub.attrs = df.attrs
    return sub


def kernel_names(df, t):
    return df.attrs["tables"][t]["kernels"]


def notes(df, t):
    return " | ".join(df.attrs["tables"][t]["notes"])


def test_real_netperf_udp_2022_significance_stars():
    df = real("netperf-udp-2022-sig-stars.txt")
    assert sorted(df.attrs["tables"]) == [1]  # the prose with "40-60%" around it is no table
    assert kernel_names(df, 1) == ["6.1.0-rc3 vanilla", "6.1.0-rc3 sched-wfsync-v1r1"]
    c = cell(df, "send-16384", "6.1.0-rc3 sched-wfsync-v1r1", stat="Hmean")
    assert (c.value, c.pct, c.sig, c.text) == (23080.04, -46.99, True, "23080.04 * -46.99%*")
    c = cell(df, "send-64", "6.1.0-rc3 vanilla", stat="Hmean")
    assert (c.value, c.pct, c.sig) == (235.21, 0.0, False)
    assert df["order"].nunique() == 9 and df.attrs["tables"][1]["title"] == "netperf-udp"


def test_real_highalloc_2012_tab_header_and_headerless_vmstat():
    df = real("highalloc-2012-tabs-vmstat.txt")
    assert sorted(df.attrs["tables"]) == [1, 2, 3]
    assert kernel_names(df, 1) == ["3.6-rc1-akpm", "full-series"]  # header typed with tabs
    assert df.attrs["tables"][1]["header_lines"] == [5] and df.attrs["tables"][1]["title"] == "STRESS-HIGHALLOC"
    c = cell(in_table(df, 1), "Pass 2", "full-series")
    assert (c.value, c.pct) == (63.0, 21.0)
    vm = df.attrs["tables"][2]
    assert vm["section"] == "vmstat" and vm["kernels"] == ["3.6-rc1-akpm", "full-series"]
    assert cell(in_table(df, 2), "Page Outs", "full-series").value == 8039096
    c = cell(in_table(df, 3), "Kswapd efficiency", "full-series")
    assert (c.value, c.unit) == (97.0, "%")
    c = cell(in_table(df, 3), "Kswapd velocity", "full-series")
    assert (c.value, c.decimals) == (1182.615, 3)


def test_real_ext4tag_2013_nan_cells_and_trailing_statistics():
    df = real("ext4tag-2013-nan-trailing-stats.txt")
    assert sorted(df.attrs["tables"]) == [1, 2]  # "Vanilla kernel\t3325677 ms stalled ..." is prose
    t1 = in_table(df, 1)
    c = cell(t1, "User", "3.9.0-rc6 ext4tag", stat="mean")
    assert math.isnan(c.value) and math.isnan(c.pct) and c.text == "nan (   nan%)"
    c = cell(t1, "System", "3.9.0-rc6 ext4tag", stat="stddev")
    assert (c.value, c.pct) == (0.94, -142.69)
    assert cell(in_table(df, 2), "sda-w_await", "3.9.0-rc6 ext4tag", stat="Max").value == 50338.25


def test_real_2013_range_rows_read_like_their_min_max_neighbours():
    """'Elapsed range' was read as a row named 'Elapsed range' while 'Elapsed min' was stat 'min' of 'Elapsed'."""
    df = in_table(real("ext4tag-2013-nan-trailing-stats.txt"), 1)
    c = cell(df, "Elapsed", "3.9.0-rc6 vanilla", stat="range")
    assert (c.value, c.pct) == (192.86, 0.0)
    assert set(df["row"]) == {"User", "System", "Elapsed", "CPU"}
    assert set(df["stat"]) == {"min", "mean", "stddev", "max", "range"}


def test_real_2011_spread_rows_are_kept_as_the_spread_of_the_row_above():
    """'+/-' (no letter in the label) was not a row: the table fell apart into lone rows read as prose."""
    t = in_table(real("writeback-2011-plusminus-rows.txt"), 2)
    assert t["order"].nunique() == 8 and set(t["line"]) == set(range(22, 30))
    spread = t[(t["stat"] == "+/-") & (t["row"] == "Elapsed Time") & (t["col"] == 6)].iloc[0]
    assert (spread.value, spread.pct, spread.line) == (149.78, -171.80, 27)
    assert "'+/-' row is the spread of the row above it" in notes(t, 2)

def test_real_usemem_2023_rows_broken_by_format_flowed_are_joined_and_noted():
    """The comparison vanished (each half-row was read as prose) and the Ops table raised a misleading error."""
    df = real("usemem-2023-wrapped-lines.txt")
    three = ["6.4.0-rc2", "6.4.0-rc2-compactfix", "6.4.0-rc2-revert"]
    assert sorted(df.attrs["tables"]) == [1, 2, 3]
    assert all(kernel_names(df, t) == three for t in (1, 2, 3))
    c = cell(in_table(df, 1), "syst-3", "6.4.0-rc2-revert", stat="Amean")
    assert (c.value, c.pct, c.sig) == (124.09, 1.78, True)
    assert "lines 10-11: one line the mail software broke in two" in notes(df, 1)
    assert "format=flowed" in notes(df, 3)
    t3 = in_table(df, 3)
    assert cell(t3, "Ops Minor Faults", "6.4.0-rc2-revert").value == 2354663705.0
    assert cell(t3, "Ops NUMA hint local faults %", "6.4.0-rc2").value == 159439097.0
    assert set(t3["line"]) == {20, 22, 24, 26}  # the row keeps the line it starts on


def test_real_thpscale_2023_quoted_printable_soft_breaks_are_undone_and_noted():
    """Every row ended in an undecoded QP '=': the table was silently lost."""
    df = real("thpscale-2023-quoted-printable.txt")
    assert sorted(df.attrs["tables"]) == [1]
    assert kernel_names(df, 1) == ["base", "patched"] and set(df["quote"]) == {3}
    assert df["order"].nunique() == 9
    c = cell(df, "fault-both-32", "patched", stat="Amean")
    assert (c.value, c.pct, c.sig) == (15580.31, 6.45, True)
    assert "line 21: a quoted-printable soft line break" in notes(df, 1)
    assert not any("=" in t for t in df["text"])


def test_real_2023_run_together_section_headers_split_as_the_comparison_prints_them():
    """'6_1_base_config6_1_final_config' was taken as a title and the names below cut at a shared suffix:
    both columns came out as 'workload-kernbench-max'."""
    df = real("kernbench-dbench-2023-runtogether.txt")
    two = ["6_1_base_config workload-kernbench-max", "6_1_final_config workload-kernbench-max"]
    assert kernel_names(df, 1) == two and kernel_names(df, 2) == two and kernel_names(df, 3) == two
    assert "split as the header at line 3 prints them apart" in notes(df, 2)
    assert cell(in_table(df, 2), "Duration System", two[1]).value == 26756.19
    assert cell(in_table(df, 3), "Ops NUMA hint local faults %", two[0]).value == 802.0
    dio = ["6_1_base_config io-dbench4-async", "6_1_final_config io-dbench4-async"]
    assert kernel_names(df, 6) == dio
    c = cell(in_table(df, 4), "latency-32", dio[1], stat="Amean")
    assert (c.value, c.pct, c.sig) == (45.5, -114.84, True)
    assert cell(in_table(df, 5), "256", dio[1], stat="BHmean-99").value == 7762.38


def test_real_specjbb_2012_headers_narrower_than_their_cells():
    """mmtests of 2012 printed 22-wide header fields over 23-wide cells: the file raised at line 3."""
    df = real("specjbb-numacore-2012-runtogether.txt")
    five = ["3.7.0 rc6-stats-v5r1", "3.7.0 rc6-numacore-20121123", "3.7.0 rc6-autonuma-v28fastr4",
            "3.7.0 rc6-thpmigrate-v6r10", "3.7.0 rc6-adaptalways-v6r12"]
    assert sorted(df.attrs["tables"]) == [1, 2, 3, 4]
    assert all(kernel_names(df, t) == five for t in (1, 2, 3, 4))
    assert "edges of the names above them (line 2)" in notes(df, 1)
    c = cell(in_table(df, 1), "TPut 72", five[2])
    assert (c.value, c.pct) == (309282.0, -13.54)
    c = cell(in_table(df, 2), "Actual Warehouse", five[1])  # rows indented by a space
    assert (c.value, c.pct) == (53.0, 112.0)
    assert df.attrs["tables"][3]["section"] == "duration" and "at line 14 prints them apart" in notes(df, 3)
    assert cell(in_table(df, 3), "System", five[1]).value == 123927.05
    c = cell(in_table(df, 4), "Kswapd efficiency", five[4])
    assert (c.value, c.unit) == (100.0, "%")


def test_real_numab_2023_indented_rows():
    df = real("numab-2023-indented-rows.txt")
    two = ["6.6.0-rc2 sched-numabtrace-v1", "6.6.0-rc2 sched-numabselective-v1"]
    assert sorted(df.attrs["tables"]) == [1, 2, 3]
    assert all(kernel_names(df, t) == two for t in (1, 2, 3))
    c = cell(in_table(df, 1), "elsp-NUMA01_THREADLOCAL", two[1], stat="CoeffVar")
    assert (c.value, c.pct) == (3.29, -381.70)
    assert cell(in_table(df, 2), "Duration User", two[0]).value == 91201.80
    assert cell(in_table(df, 3), "Ops NUMA hint local percent", two[1]).value == 74.90


def test_real_hackbench_2022_double_quoted():
    df = real("hackbench-2022-double-quoted.txt")
    assert sorted(df.attrs["tables"]) == [1, 2, 3] and set(df["quote"]) == {2}
    assert all(kernel_names(df, t) == ["hackbench default", "hackbench pan"] for t in (1, 2, 3))
    c = cell(in_table(df, 1), "256", "hackbench pan", stat="BAmean-99")
    assert (c.value, c.decimals, c.pct) == (23.9696, 4, 1.96)
    assert cell(in_table(df, 3), "Ops NUMA alloc hit", "hackbench default").value == 1082415453.0


def test_real_thp_2020_four_kernels_quoted():
    df = real("thp-2020-quoted-four-kernels.txt")
    four = ["thp base1", "thp base2", "thp lru1", "thp lru2"]
    assert sorted(df.attrs["tables"]) == [1, 2] and kernel_names(df, 2) == four
    assert cell(in_table(df, 1), "Duration Elapsed", "thp lru1").value == 1232.97
    assert cell(in_table(df, 2), "Ops Swap Outs", "thp lru2").value == 6812.0
    assert set(df["quote"]) == {1}


def test_real_lumpy_2012_quoted_vmstat_without_its_header():
    with pytest.warns(UnnamedColumnsWarning, match=r"lumpy-2012-quoted-vmstat-no-header.txt:13: .* no kernel name"):
        df = real("lumpy-2012-quoted-vmstat-no-header.txt")
    m = df.attrs["tables"][1]
    assert sorted(df.attrs["tables"]) == [1] and m["section"] == "vmstat" and m["quote"] == 2
    assert m["kernels"] == ["", "", ""]  # the quoter cut the header ("> > ..."): nothing to name them by
    assert list(df[df["row"] == "Kswapd pages scanned"]["value"]) == [26658682, 1285341, 1195956]


def test_real_uclamp_2020_eight_kernels():
    df = real("uclamp-2020-eight-kernels.txt")
    k = kernel_names(df, 1)
    assert len(k) == 8 and k[0] == "nouclam nouclamp" and k[4] == "uclamp.disable uclamp.disabled"
    c = cell(df, "send-256", "uclamp opt.disabled", stat="Hmean")
    assert (c.value, c.pct, c.sig) == (644.10, 2.24, True)


def test_real_netperf_2020_header_across_a_blank_quoted_line():
    """A '> ' line between header and rows lost the kernel names without a word."""
    with pytest.warns(UnnamedColumnsWarning, match=r"kernels.txt:25: the table at lines 25-27 has no kernel name"):
        df = real("netperf-udp-2020-dotslash-kernels.txt")
    three = ["./5.7.0-rc7 without-clamp", "./5.7.0-rc7 with-clamp", "./5.7.0-rc7 with-clamp-tskgrp"]
    assert kernel_names(df, 1) == three
    assert "line 15: a blank line between the header and the rows" in notes(df, 1)
    c = cell(in_table(df, 1), "send-2048", three[1], stat="Hmean")
    assert (c.value, c.pct, c.sig) == (4544.02, -1.40, True)
    # netperf-tcp was posted without a header: no names are made up for it
    assert kernel_names(df, 2) == ["", "", ""]
    assert list(in_table(df, 2).query("row == '16384'")["value"]) == [36531.86, 37064.68, 37397.71]


def test_real_nas_2022_one_kernel():
    df = real("nas-mpich-2022-one-kernel.txt")
    assert kernel_names(df, 1) == ["test mgD-many"] and set(df["quote"]) == {2}
    assert cell(df, "mg.D", "test mgD-many", stat="BAmean-95").value == 107.83
    assert df.attrs["tables"][1]["title"] == "nas-mpich-mg NAS Time"


def test_real_retbleed_2022_tab_separated_header_and_a_ruled_table():
    """The tab-typed header's first row became the title; the '=====' rule was cut into five 'kernel names'."""
    with pytest.warns(UnnamedColumnsWarning, match=r"tabs.txt:30: .* line 29 above it is a rule"):
        df = real("retbleed-2022-tabs.txt")
    two = ["6.0.0-rc1 tglx-mit-spectre-ibrs", "6.0.0-rc1 tglx-mit-spectre-retpoline-retstuff"]
    assert sorted(df.attrs["tables"]) == [1, 2, 3]
    assert kernel_names(df, 1) == two and kernel_names(df, 2) == two
    assert cell(in_table(df, 1), "Duration Elapsed", two[1]).value == 102.65
    fio = in_table(df, 3)
    assert kernel_names(df, 3) == [""] * 5
    assert list(fio[fio["row"] == "retbleed=stuff (pad)"]["text"]) == ["314.33", "1.53", "-12.03%", "-6.63%", "99.31%"]


def test_real_writeback_2011_spread_rows_and_header_above_the_section():
    """'+/-' rows broke the table into lone rows read as prose: all but the first row were lost."""
    df = real("writeback-2011-plusminus-rows.txt")
    seven = ["thpavail-3.2.0 rc3-vanilla", "3.2.0-rc3 lessdirect-v5", "3.2.0-rc3 synclight-v5",
             "3.2.0-rc3 freemore-v5", "3.2.0-rc3 revertAbort-v5", "3.2.0-rc3 immediate-v5", "3.2.0-rc3 andrea-v1r1"]
    assert sorted(df.attrs["tables"]) == [1, 2, 3, 4, 5]
    t2 = in_table(df, 2)
    assert t2["order"].nunique() == 8
    assert list(t2.drop_duplicates("col").sort_values("col")["kernel"]) == seven  # every column, named
    c = cell(t2, "System Time", "3.2.0-rc3 lessdirect-v5", stat="+/-")
    assert (c.value, c.pct, c.line) == (0.29, 47.94, 23)
    assert cell(t2, "System Time", "3.2.0-rc3 lessdirect-v5", stat="").value == 2.11
    assert "'+/-' row is the spread of the row above it" in notes(df, 2)
    assert cell(in_table(df, 4), "THP Active", "3.2.0-rc3 lessdirect-v5", stat="").pct == 2300.0


def test_real_2011_kernel_header_printed_above_the_section_line():
    """mmtests of 2011 printed the header, then 'MMTests Statistics: vmstat', then the rows: names were lost."""
    df = real("writeback-2011-plusminus-rows.txt")
    m = df.attrs["tables"][1]
    assert m["section"] == "vmstat" and m["title"] == "MMTests Statistics: vmstat"
    assert m["kernels"][0] == "thpavail-3.2.0 rc3-vanilla" and m["kernels"][6] == "3.2.0-rc3 andrea-v1r1"
    assert m["header_lines"] == [5, 6]
    c = cell(in_table(df, 1), "Direct velocity", "3.2.0-rc3 synclight-v5")
    assert (c.value, c.decimals) == (3609189.663, 3)


def test_exponent_cells_are_numbers_and_an_unsigned_exponent_is_damage():
    """A cell printed by %e/%g ("1.632e+08") was no number: its row ended the table and the rows around it were
    dropped as lone lines.  The real Ops table of thp-2020 with one cell printed that way."""
    raw = (MAIL_TABLES / "thp-2020-quoted-four-kernels.txt").read_text()
    assert "  2377121.00     2410222.00" in raw
    text = raw.replace("  2377121.00     2410222.00", "   2.377e+06     2410222.00")
    df = parse_text(text)
    ops = in_table(df, 2)
    assert ops["order"].nunique() == 6
    c = cell(ops, "Ops Minor Faults", "thp base2")
    assert (c.value, c.text) == (2377000.0, "2.377e+06")
    with pytest.raises(WorkbookParseError) as e:  # printf never drops the sign: "1e020083" is a damaged number
        parse_text(text.replace("2.377e+06", " 1e020083"))
    assert e.value.line == 11 and "1e020083" in str(e.value)


def test_real_amd_2023_pct_cells_tab_typed_headers_and_bare_count_labels():
    """K Prateek Nayak's scheduler tables: '4.47 (3.45 pct)' cells, headers and cells separated by tabs, rows
    labelled by a bare count ('  1:', '  512').  Every table but the mmtests one was skipped as no table."""
    df = real("sched-amd-2023-pct-tabs.txt")
    assert sorted(df.attrs["tables"]) == [1, 2, 3, 4, 5]
    for t in (1, 2, 3):
        assert kernel_names(df, t) == ["tip", "sis-short"]
    assert kernel_names(df, 5) == ["tip", "sis_short"]
    hb = in_table(df, 1)
    c = hb[(hb["line"] == 15) & (hb["kernel"] == "sis-short")].iloc[0]
    assert (c.row, c.value, c.pct, c.text) == ("8-groups:", 5.22, -8.75, "5.22 (-8.75 pct)")
    assert df.attrs["tables"][1]["annotations"] == [{"line": 15, "text": "*"},
                                                    {"line": 16, "text": "[Verification Run]"}]
    assert df.attrs["tables"][1]["label_title"] == "Test:"
    c = cell(in_table(df, 2), "256:", "sis-short")
    assert (c.value, c.pct) == (46784.0, -2.52)
    c = cell(in_table(df, 3), "1024", "sis-short")
    assert (c.value, c.pct) == (49393.34, 1.90)
    c = cell(in_table(df, 5), "256-clients:", "sis_short")
    assert (c.value, c.pct, c.sig) == (42588.18, -2.91, False)
    ub = in_table(df, 4)  # mmtests rows under a three-column label header
    spawn = ub[ub["row"] == "unixbench-spawn Hmean unixbench-spawn-1"]
    assert list(spawn["value"]) == [5141.40, 4840.60, 4780.20, 5235.90] and list(spawn["sig"]) == [False, False, False, True]


def test_real_perf_stat_2020_multiplexed_counters_absolute_spread_and_msec():
    """perf stat -r on powerpc: counters with a multiplexing share '(66.67%)' after their spread were no
    perfstat lines (six rows per block lost, the block cut in two), the counter whose spread perf printed on the
    next line was lost, '137.195 +- 0.419 seconds time elapsed' was read as the event '+- 0.419 seconds time
    elapsed' counting 'events', and 'msec cpu-clock' values were called seconds."""
    df = real("perf-stat-2020-multiplexed.txt")
    assert sorted(df.attrs["tables"]) == [1, 2] and set(df["kind"]) == {"perfstat"}
    t1 = in_table(df, 1)
    assert list(t1["line"]) == [4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 16]
    c = cell(t1, "cycles", "")
    assert (c.value, c.stddev_pct, c.unit) == (1127182328206.0, 1.60, "events")
    c = cell(t1, "instructions", "")
    assert (c.value, c.stddev_pct) == (834013059242.0, 0.73)
    c = cell(t1, "seconds time elapsed", "")
    assert (c.value, c.unit, c.stddev_pct, c.text) == (137.195, "s", 0.31, "137.195")
    c = cell(t1, "msec cpu-clock", "")
    assert c.unit == "s" and c.value == pytest.approx(35107.9512) and c.text == "35,107,951.20"
    n = notes(df, 1)
    assert "line 8: perf counted 'cycles' for 66.67% of the run" in n and "+- 0.419" in n
    assert "lines 11-12: perf printed the counter's second metric" in n
    assert cell(in_table(df, 2), "seconds time elapsed", "").value == 117.17


def test_a_row_broken_without_a_flowed_space_is_an_error_not_lost():
    """The usemem table as a client that wraps hard would leave it (no trailing space): the halves of each row
    were read as a lone row (dropped as prose) and a line of cells (ignored) - the table vanished."""
    raw = (MAIL_TABLES / "usemem-2023-wrapped-lines.txt").read_text()
    hard = "\n".join(line.rstrip() for line in raw.splitlines()) + "\n"
    with pytest.raises(WorkbookParseError) as e:
        parse_text(hard, source="usemem.txt")
    assert e.value.line == 7 and "rest of the row on line 6" in str(e.value) and "96.96 *   5.10%*" in str(e.value)


# --- kernel names never silently empty ------------------------------------------------------------------

def test_real_2024_header_names_with_a_space_in_them():
    """'6.9-rc2(with ">")': the header did not fit the columns word by word, and both kernel names came out
    empty without a word."""
    raw = (MAIL_TABLES / "hackbench-2024-names-with-spaces.txt").read_text()
    assert '                  6.9-rc2(with ">")      6.9.0-rc2(with ">=")\n' in raw
    df = real("hackbench-2024-names-with-spaces.txt")
    two = ['6.9-rc2(with ">")', '6.9.0-rc2(with ">=")']
    assert sorted(df.attrs["tables"]) == [1, 2] and kernel_names(df, 1) == two and kernel_names(df, 2) == two
    assert "Amean     12      0.2947 (   0.00%)      0.3141 *  -6.59%*" in raw
    c = cell(in_table(df, 1), "12", two[1], stat="Amean")
    assert (c.value, c.pct, c.sig) == (0.3141, -6.59, True)
    assert cell(in_table(df, 2), "64", two[0], stat="Amean").value == 3.7397
    assert "line 5: header name '6.9-rc2(with \">\")' has a space in it; read as one name" in notes(df, 1)
    assert df.attrs["tables"][1]["title"] == "hackbench-process-pipes"


def test_real_2022_sub_headings_between_header_and_rows():
    """'(SNC on)' under the header and '(SNC off)' between the rows: all four tables had empty kernel names."""
    raw = (MAIL_TABLES / "hackbench-tbench-2022-snc-subheadings.txt").read_text()
    assert "unpatched\t\t  patched\n(SNC on)\n" in raw
    df = real("hackbench-tbench-2022-snc-subheadings.txt")
    two = ["unpatched", "patched"]
    assert sorted(df.attrs["tables"]) == [1, 2, 3, 4] and all(kernel_names(df, t) == two for t in (1, 2, 3, 4))
    assert "line 6: '(SNC on)' between the header and the rows, a sub-heading of the rows" in notes(df, 1)
    assert "line 12: '(SNC off)' heads more rows of the table above" in notes(df, 2)
    assert df.attrs["tables"][2]["title"] == "(SNC off)" and df.attrs["tables"][2]["kernels_from"] == 5
    assert "Amean     1        0.2717 (   0.00%)      0.3143 ( -15.71%)" in raw
    c = cell(in_table(df, 2), "1", "patched", stat="Amean")
    assert (c.value, c.pct, c.line) == (0.3143, -15.71, 13)
    c = cell(in_table(df, 3), "128", "patched", stat="Hmean")
    assert (c.value, c.pct, c.sig) == (20620.98, 15.39, True)
    assert cell(in_table(df, 4), "128", "unpatched", stat="Hmean").value == 19978.59


def test_a_sub_heading_does_not_carry_names_to_rows_in_other_columns():
    """Only rows in the same columns continue the table above a sub-heading; others warn."""
    t = ("                        a-1                 b-1\n"
         "(SNC on)\n"
         "Amean     1      0.4470 (   0.00%)      0.4557 (  -1.94%)\n"
         "Amean     4      0.5947 (   0.00%)      0.6033 (  -1.46%)\n"
         "(SNC off)\n"
         "Amean     1  0.2717 (   0.00%)  0.3143 ( -15.71%)\n"
         "Amean     4  0.6257 (   0.00%)  0.6070 (   2.98%)\n")
    with pytest.warns(UnnamedColumnsWarning, match=r"<text>:6: the table at lines 6-7 has no kernel name"):
        df = parse_text(t)
    assert kernel_names(df, 1) == ["a-1", "b-1"] and kernel_names(df, 2) == ["", ""]


def test_real_amd_unixbench_header_with_a_title_per_label_field():
    """'Test  Metric  Parallelism  tip  sis_short': the extra titles made the header no header; names empty."""
    df = real("sched-amd-2023-pct-tabs.txt")
    assert kernel_names(df, 4) == ["tip", "sis_short"]
    assert df.attrs["tables"][4]["label_title"] == "Test Metric Parallelism"
    assert "line 50: the row labels have 3 fields" in notes(df, 4)
    c = cell(in_table(df, 4), "unixbench-syscall Amean unixbench-syscall-1", "sis_short")
    assert (c.value, c.pct, c.sig) == (2685044.77, -0.80, True)


def test_the_unnamed_columns_warning_is_an_input_warning():
    """One filter (the errors module's WorkbookInputWarning) turns every input warning into an error."""
    import warnings

    from kernel_workbook.errors import WorkbookInputWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error", WorkbookInputWarning)
        with pytest.raises(UnnamedColumnsWarning, match=r"kernels.txt:25: the table at lines 25-27"):
            real("netperf-udp-2020-dotslash-kernels.txt")


def test_titles_that_do_not_sit_over_the_label_fields_make_no_header():
    """A prose line at the margin is not taken for label titles: the table warns instead."""
    t = ("Results of these two runs         a-1                 b-1\n"
         "Amean     1      0.4470 (   0.00%)      0.4557 (  -1.94%)\n"
         "Amean     4      0.5947 (   0.00%)      0.6033 (  -1.46%)\n")
    with pytest.warns(UnnamedColumnsWarning, match=r"<text>:2: the table at lines 2-3 has no kernel name.* line 1"):
        df = parse_text(t)
    assert kernel_names(df, 1) == ["", ""]


# --- blank cells: mmtests prints an undefined value as spaces ---------------------------------------------

def _blank(raw, cell):
    """The text with one printed cell replaced by spaces of its width, as mmtests' printRow does for undef."""
    assert raw.count(cell) == 1
    return raw.replace(cell, " " * len(cell))


def test_a_blank_inner_cell_is_a_missing_value_where_the_columns_line_up():
    """The real thp-2020 Ops table with kernel 2's Swap Ins undefined: '3 value cells' error before."""
    raw = (MAIL_TABLES / "thp-2020-quoted-four-kernels.txt").read_text()
    df = parse_text(_blank(raw, "    644.00"))
    ops = in_table(df, 2)
    c = cell(ops, "Ops Swap Ins", "thp base2")
    assert math.isnan(c.value) and c.text == "" and c.col == 1 and c.line == 13
    assert list(ops[ops["row"] == "Ops Swap Ins"]["value"].iloc[[0, 2, 3]]) == [676.0, 656.0, 760.0]
    assert "line 13: column(s) 2 of 4 blank" in notes(df, 2)
    # the first column blank too: the rest still line up
    df = parse_text(_blank(_blank(raw, "    644.00"), "676.00"))
    assert list(in_table(df, 2).query("row == 'Ops Swap Ins'")["text"]) == ["", "", "656.00", "760.00"]


def test_a_blank_value_and_pct_cell_of_a_compare_table():
    """The real uclamp-2020 table (eight kernels) with kernel 3 of send-128 printed blank."""
    raw = (MAIL_TABLES / "uclamp-2020-eight-kernels.txt").read_text()
    df = parse_text(_blank(raw, "      329.05 *   4.51%*"))
    c = cell(df, "send-128", "uclam uclamp", stat="Hmean")
    assert math.isnan(c.value) and math.isnan(c.pct) and not c.sig and c.col == 2
    c = cell(df, "send-128", "uclamp uclamp2", stat="Hmean")
    assert (c.value, c.pct, c.sig) == (322.88, 2.55, True)
    assert "line 9: column(s) 3 of 8 blank" in notes(df, 1)


def test_blank_cells_that_cannot_be_placed_are_still_an_error():
    raw = (MAIL_TABLES / "thp-2020-quoted-four-kernels.txt").read_text()
    # the last column blank looks like a row cut short: no telling them apart
    with pytest.raises(WorkbookParseError, match="4 value cells") as e:
        parse_text(_blank(raw, "        760.00"))
    assert e.value.line == 13
    # a cell off the column edges: no telling which column is blank
    with pytest.raises(WorkbookParseError, match="4 value cells") as e:
        parse_text(raw.replace("644.00         656.00", "    656.00           "))
    assert e.value.line == 13


def test_real_pft_2022_kernel_names_with_a_comma_and_a_space():
    """'nocg, nopatch': the words ending in ',' made the header prose; all six kernel names were empty."""
    raw = (MAIL_TABLES / "pft-2022-comma-names.txt").read_text()
    assert "   nocg, nopatch            cg, nopatch              nocg, patch              cg, patch\n" in raw
    df = real("pft-2022-comma-names.txt")
    four = ["nocg, nopatch", "cg, nopatch", "nocg, patch", "cg, patch"]
    assert kernel_names(df, 1) == four and kernel_names(df, 2) == ["cg, nopatch", "cg, patch"]
    c = cell(in_table(df, 1), "faults/sec-2", "cg, nopatch", stat="Hmean")
    assert (c.value, c.pct, c.sig, c.decimals) == (243573.3767, -10.90, True, 4)
    c = cell(in_table(df, 2), "faults/sec-2", "cg, patch", stat="CoeffVar")
    assert (c.value, c.pct) == (4.1188, -7.27)
    assert "line 5: header name 'nocg, nopatch' has a space in it" in notes(df, 1)


def test_a_key_value_line_above_a_table_is_not_read_as_kernel_names():
    t = ("             a: hashed    b: lru\n"
         "MRU 0 entries =   4667        12\n"
         "MRU 1 entries =      0         7\n")
    with pytest.warns(UnnamedColumnsWarning):
        df = parse_text(t)
    assert kernel_names(df, 1) == ["", ""]


# --- kernel test robot (lkp-tests) comparisons ----------------------------------------------------------

def test_real_lkp_2025_will_it_scale_report_is_read_per_commit():
    """'%stddev  %change  %stddev' tables were skipped without a word: the robot's numbers were lost."""
    raw = (MAIL_TABLES / "lkp-2025-will-it-scale-poll2.txt").read_text()
    assert "    263173           -11.7%     232411        will-it-scale.per_process_ops\n" in raw
    df = real("lkp-2025-will-it-scale-poll2.txt")
    two = ["d000e073ca2a08ab", "89359897983825dbfc08578e7ee"]
    m = df.attrs["tables"][1]
    assert sorted(df.attrs["tables"]) == [1] and m["kind"] == "lkp" and m["kernels"] == two
    assert m["header_lines"] == [5, 6, 7, 8] and m["era"] == ""
    ops = df[df["row"] == "will-it-scale.per_process_ops"]
    assert list(ops["value"]) == [263173.0, 232411.0] and list(ops["kernel"]) == two
    assert math.isnan(ops["pct"].iloc[0]) and ops["pct"].iloc[1] == -11.7
    assert ops["stddev_pct"].isna().all() and set(ops["stat"]) == {""} and set(ops["line"]) == {12}
    c = cell(df, "numa-meminfo.node0.Shmem", two[0])
    assert (c.value, c.stddev_pct, c.text) == (21281.0, 147.0, "21281 ±147%")
    c = cell(df, "perf-sched.wait_and_delay.avg.ms.schedule_hrtimeout_range_clock.ep_poll.do_epoll_wait."
                 "__x64_sys_epoll_wait", two[1])
    assert (c.value, c.pct, c.stddev_pct, c.decimals) == (104.10, -61.2, 114.0, 2)
    assert df["order"].nunique() == 9 and set(df["kind"]) == {"lkp"}
    assert "kernel test robot" in notes(df, 1) and "not mmtests' + is better" in notes(df, 1)


def test_real_lkp_2025_exponent_change_and_a_change_in_points():
    raw = (MAIL_TABLES / "lkp-2025-pipeherd-abs-change.txt").read_text()
    assert "      0.20 ±153%  +2.1e+05%     418.07 ±203%  perf-sched.wait_time.max.ms" in raw
    df = real("lkp-2025-pipeherd-abs-change.txt")
    new = "ee5eda8ea59546af2e8f192c060"
    c = cell(df, "perf-sched.wait_time.max.ms.__cond_resched.__mutex_lock.constprop.0.anon_pipe_read", new)
    assert (c.value, c.pct, c.stddev_pct) == (418.07, 2.1e5, 203.0)
    c = cell(df, "sched_debug.cfs_rq:/.util_est.avg", new)
    assert (c.value, c.pct) == (2409.0, 135.0)
    # '+1.5' without '%': a change in percentage points, not a relative change
    c = cell(df, "perf-profile.calltrace.cycles-pp.perf_mmap__push.record__mmap_read_evlist.__cmd_record."
                 "cmd_record.run_builtin", new)
    assert (c.value, c.stddev_pct) == (4.82, 13.0) and math.isnan(c.pct)
    assert "line(s) 15: the change is printed in points" in notes(df, 1)


def test_real_lkp_2020_quoted_and_unquoted_reports_in_one_reply():
    df = real("lkp-2020-quoted-context-switch.txt")
    two = ["c2daff748f0ea954", "bdfcae11403e5099769a7c8dc32"]
    assert sorted(df.attrs["tables"]) == [1, 2] and all(kernel_names(df, t) == two for t in (1, 2))
    assert df.attrs["tables"][1]["quote"] == 2 and df.attrs["tables"][2]["quote"] == 0
    c = cell(in_table(df, 1), "will-it-scale.per_thread_ops", two[1])
    assert (c.value, c.pct, c.stddev_pct, c.line) == (101819.0, -37.0, 2.0, 11)
    c = cell(in_table(df, 2), "will-it-scale.workload", two[0])
    assert (c.value, c.line) == (8402288.0, 25) and math.isnan(c.stddev_pct)


def test_real_lkp_2020_table_broken_by_the_mail_software_is_an_error_naming_the_line():
    """Four commits, every line wrapped at 72 columns (format=flowed): no row can be read whole."""
    with pytest.raises(WorkbookParseError) as e:
        real("lkp-2020-four-commits-flowed.txt")
    assert e.value.line == 11 and "kernel test robot" in str(e.value)


def test_lkp_damaged_and_cut_rows():
    raw = (MAIL_TABLES / "lkp-2025-will-it-scale-poll2.txt").read_text()
    with pytest.raises(WorkbookParseError, match="kernel test robot row") as e:  # a damaged value
        parse_text(raw.replace("    263173           -11.7%", "    26x173           -11.7%"))
    assert e.value.line == 12
    from kernel_workbook.errors import TruncatedTraceWarning
    cut = raw[: raw.index("will-it-scale.workload") + 10]  # the last row cut inside its metric name
    with pytest.warns(TruncatedTraceWarning, match=r"<text>:13: truncated last line"):
        df = parse_text(cut)
    assert df["line"].max() == 12 and df["order"].nunique() == 4
    cut = raw[: raw.index("-11.7%   24170828        will-it-scale.workload") + 9]  # cut inside the row
    with pytest.warns(TruncatedTraceWarning, match=r"<text>:13: truncated last line"):
        df = parse_text(cut)
    assert df["line"].max() == 12


# --- perf stat in a European locale -------------------------------------------------------------------------

def test_real_perf_stat_2022_german_locale_is_read_in_its_locale():
    """'43.367.405,59 msec task-clock ... ( +-  0,01% )' (pasted with '| ' before each line): both blocks were
    skipped without a word."""
    raw = (MAIL_TABLES / "perf-stat-2022-de-locale.txt").read_text()
    assert "| 103.822.081.026.160      cycles                    #    2,394 GHz" in raw
    df = real("perf-stat-2022-de-locale.txt")
    assert sorted(df.attrs["tables"]) == [1, 2] and set(df["kind"]) == {"perfstat"}
    t1 = in_table(df, 1)
    c = cell(t1, "cycles", "")
    assert (c.value, c.text, c.stddev_pct, c.line) == (103822081026160.0, "103.822.081.026.160", 0.01, 13)
    c = cell(t1, "msec task-clock", "")
    assert c.value == pytest.approx(43367.40559) and (c.unit, c.decimals) == ("s", 2)
    c = cell(t1, "instructions", "")  # its spread on the next '#' line, joined
    assert (c.value, c.stddev_pct) == (69543893308966.0, 0.0)
    c = cell(in_table(df, 2), "seconds time elapsed", "")
    assert (c.value, c.stddev_pct, c.text) == (1404.47, 0.08, "1404,47")
    assert cell(in_table(df, 2), "cpu-migrations", "").stddev_pct == 0.63
    assert t1["order"].nunique() == 11
    assert "lines 9-21: perf stat printed in a locale that groups thousands with '.'" in notes(df, 1)


def test_perf_stat_grouped_digits_are_never_a_decimal_number():
    """The brief's line ('12.250.330.486', '19,12%'): never 12.25; a multiplexing share '(0,37%)' is noted."""
    line = ("    12.250.330.486      cpu_atom/instructions:u/         #    1,10  insn per cycle"
            "              ( +- 19,12% )  (0,37%)\n")
    df = parse_text(" Performance counter stats for 'x' (5 runs):\n\n" + line + line.replace("12.250.330.486", "13.148.396.527"))
    assert list(df["value"]) == [12250330486.0, 13148396527.0] and list(df["stddev_pct"]) == [19.12, 19.12]
    assert "for 0,37% of the run" in notes(df, 1)
    # a US-locale line is read as before, and a line of neither locale is no perf stat line
    assert parse_text(line.replace("12.250.330.486", "12,250,330,486").replace("19,12", "19.12")
                      .replace("0,37", "0.37") * 2)["value"].tolist() == [12250330486.0] * 2
    assert parse_text(line.replace("19,12", "19.12") * 2).empty


def test_real_lkp_2025_fail_runs_table_is_not_read_but_named():
    """'fail:runs  %reproduction  fail:runs' counts failed runs: no values to read, but not skipped silently."""
    from kernel_workbook.errors import SkippedLinesWarning
    raw = (MAIL_TABLES / "lkp-2025-fail-runs.txt").read_text()
    assert "           :6          100%           6:6     stress-ng.fpunch.fail\n" in raw
    with pytest.warns(SkippedLinesWarning, match=r"fail-runs.txt:7: a kernel test robot fail:runs table \(lines 7-9\)"):
        df = real("lkp-2025-fail-runs.txt")
    assert df.empty


def test_lkp_fail_runs_above_a_change_table_share_its_commit_heads():
    """The robot prints a fail:runs table right above the %stddev one under one line of commit heads (as its
    filebench report on v6.3-rc2 quoted in a cifs thread does): the heads name the %stddev columns.  Built from
    the two real fixtures, the fail:runs rows put where the robot puts them."""
    fail = (MAIL_TABLES / "lkp-2025-fail-runs.txt").read_text().splitlines()[6:9]
    poll = (MAIL_TABLES / "lkp-2025-will-it-scale-poll2.txt").read_text().splitlines()
    text = "\n".join(poll[:6] + fail + poll[6:]) + "\n"
    with pytest.warns(Warning) as rec:
        df = parse_text(text)
    assert [type(w.message).__name__ for w in rec] == ["SkippedLinesWarning"]
    assert kernel_names(df, 1) == ["d000e073ca2a08ab", "89359897983825dbfc08578e7ee"]
    assert df.attrs["tables"][1]["header_lines"] == [5, 6, 10, 11]
    assert cell(df, "will-it-scale.per_process_ops", "89359897983825dbfc08578e7ee").pct == -11.7


# --- mmtests --print-ratio (Compare.pm's _generateRenderRatioTable) ------------------------------------------

def test_real_mmtests_print_ratio_table_with_its_gmean_row():
    """'Ratio copy  1.00 (0.00%) (NaNs)' was read as a damaged row and the whole table dropped without a word;
    the 'Gmean Higher' row under it, printed without percentages, would then have been an error."""
    df = real("mmtests-readme-print-ratio-gmean.txt")
    assert sorted(df.attrs["tables"]) == [1] and kernel_names(df, 1) == ["TEST_RUN", "TEST_RUN_BUSY"]
    c = cell(df, "copy", "TEST_RUN_BUSY", stat="Ratio")
    assert (c.value, c.pct, c.text) == (0.80, -20.07, "0.80 (-20.07%)")
    g = df[df["stat"] == "Gmean"]
    assert list(g["row"]) == ["Higher", "Higher"] and list(g["value"]) == [1.00, 0.79]
    assert g["pct"].isna().all() and set(g["line"]) == {7}
    assert "normalised difference of 'Ratio triad', per column: NaNs, NaNs" in notes(df, 1)
    assert "'Gmean Higher' is a summary of the --print-ratio table" in notes(df, 1)


def test_mmtests_print_ratio_normalised_difference_as_compare_pm_prints_it():
    # the cell formats of _generateRenderRatioTable: "%12.2f", " (%.2f%%)", " (%+.2fs)" (no width: the ratio
    # table's compare length is unset); the summary rows print the value and two undefs, as spaces
    def row(label, cells):
        return "%-11s" % label + "".join("%12.2f (%.2f%%) (%+.2fs)" % c for c in cells) + "\n"
    # the header as _generateHeaderTable prints it: "%11s" and "%23s" (field 12 + compare length 7 + 4)
    text = ("%11s%23s%23s\n" % ("", "base", "new")
            + row("Ratio tput", [(1.0, 0.0, 0.0), (0.9, -10.0, -1.25)])
            + row("Ratio lat", [(1.0, 0.0, 0.0), (1.1, 10.0, 0.5)])
            + "Dmean Higher" + "%12.2f" % 0.0 + " " * 17 + "%12.2f" % -0.38 + "\n")
    df = parse_text(text)
    assert kernel_names(df, 1) == ["base", "new"] and cell(df, "lat", "new", stat="Ratio").pct == 10.0
    d = cell(df, "Higher", "new", stat="Dmean")
    assert d.value == -0.38 and math.isnan(d.pct)
    assert "'Ratio tput', per column: +0.00s, -1.25s" in notes(df, 1)


def test_real_mmtests_print_ratio_summary_rows_alone():
    """'Dmin  Higher' (two spaces, as Compare.pm labels it) was read as a row named 'Dmin Higher'."""
    df = real("mmtests-tutorial-print-ratio-dmean.txt")
    assert set(df["stat"]) == {"Dmean", "Dmin", "Dmax", "Gmean"} and set(df["row"]) == {"Higher"}
    assert cell(df, "Higher", "BUSY", stat="Dmin").value == -9.30


def test_a_row_without_percentages_under_compare_rows_is_still_an_error():
    text = ("                         base          new\n"
            "Amean  tput        1.00 (   0.00%)        0.80 ( -20.07%)\n"
            "Amean  lat         1.00 (   0.00%)        0.80 ( -20.07%)\n"
            "Gmean  Whatever    1.00                   0.79\n")
    with pytest.raises(WorkbookParseError, match="'value \\( pct%\\)' cells like the rows above it") as e:
        parse_text(text)
    assert e.value.line == 4


def test_mmtests_stat_names_of_stat_pm():
    # Stat.pm's stat_names: "submean-amean" => "SubAmean", "percentileci_low-" => "Pctile.%d-CI-Low",
    # "samples-" => "Samples-[%s)", "samplesPct." => "Samples%%-[%s)"
    text = ("                          base                   new\n"
            "SubAmean          op1     1.00 (   0.00%)     2.00 ( 100.00%)\n"
            "Pctile.95-CI-Low  op1     1.00 (   0.00%)     2.00 ( 100.00%)\n"
            "Samples-[0,10)    op1     1.00 (   0.00%)     2.00 ( 100.00%)\n"
            "Samples%-[0,10)   op1     1.00 (   0.00%)     2.00 ( 100.00%)\n")
    df = parse_text(text)
    assert list(df.drop_duplicates("order")["stat"]) == ["SubAmean", "Pctile.95-CI-Low", "Samples-[0,10)",
                                                        "Samples%-[0,10)"]
    assert set(df["row"]) == {"op1"}


# --- guards: time linear in the input, and the files a user names (issue 32, item 5) -----------------------------

LONG_LINES = {  # each a line of 5 MB; each took minutes or more (quadratic in the line)
    "numbers": "Amean     fault-base " + "1 " * 2_500_000,  # vals.insert(0, ...): 64k numbers took 3.5 s
    "blanks": "label" + " " * 5_000_000 + "1",
    "hashes": "1 " + "# " * 2_500_000,
    "digits": "label " + "1" * 5_000_000,
    "cells": "Amean x " + "1.0 ( 2.0%) " * 420_000,
}


@pytest.mark.parametrize("name", sorted(LONG_LINES))
def test_a_5_mb_line_is_read_in_linear_time(name):
    """A line no table has (RFC 5322 keeps a mail's lines under 1000 characters) is text, read at once: two of
    them in a row are no table either.  The alarm catches a hang (the quadratic reader took minutes), it is no
    speed target (those are the benchmarks')."""
    import signal

    def hung(*_):
        raise TimeoutError(f"parse_text on a 5 MB line of {name!r} still running after 60 s")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    try:
        text = LONG_LINES[name] + "\n"
        df = parse_text(text + text)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert df.empty


def test_a_long_thread_is_read_in_time_linear_in_it():
    """`lines.index()` with a field-by-field comparison of each line, and every header read so far looked up
    again for each table: the thread texts eight times over took 20 s where once took 0.3 s.  Counted in
    comparisons, not seconds: each line is compared with no other."""
    from kernel_workbook.tables import parse as P
    from kernel_workbook.threads import THREADS

    text = "\n".join(THREADS[t].text() for t in THREADS)
    calls = {"eq": 0}
    orig = P._Line.__eq__

    def eq(a, b):
        calls["eq"] += 1
        return orig(a, b)

    P._Line.__eq__ = eq
    try:
        one_copy = len(parse_text(text))
        four = len(parse_text(text * 4))
    finally:
        P._Line.__eq__ = orig
    assert four == 4 * one_copy and calls["eq"] == 0


def _kwb(*args, timeout=120):
    import os
    import subprocess
    import sys

    # a memory cap keeps /dev/zero from taking the machine down where it is not refused
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
            "from kernel_workbook.cli import main; sys.exit(main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "KWB_MAX_DECOMPRESSED": str(64 << 20)})


def test_kwb_tables_mail_refuses_a_fifo_and_a_device(tmp_path):
    """`kwb tables --mail` read whatever it was given: a FIFO hung it, /dev/zero took every byte of memory."""
    import os

    fifo = tmp_path / "mail.fifo"
    os.mkfifo(fifo)
    r = _kwb("tables", "--mail", str(fifo))
    assert r.returncode == 2 and f"{fifo}: expected a regular file; found 'a FIFO, socket or device'" in r.stderr
    r = _kwb("tables", "--mail", "/dev/zero")
    assert r.returncode == 2 and "/dev/zero: expected a regular file" in r.stderr
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.truncate((64 << 20) + 1)  # sparse: no disk written
    r = _kwb("tables", "--mail", str(big))
    assert r.returncode == 2 and "expected at most 67108864 bytes" in r.stderr


def test_parse_file_refuses_binary_and_names_the_line_of_bad_bytes(tmp_path):
    """A mail is UTF-8 (or UTF-16 with its BOM): a NUL byte (a binary file) is refused naming its line, where it
    was read as text; bytes that are not UTF-8 name their line, where the error named none."""
    mail = (MAIL_TABLES / "perf-stat-2020-multiplexed.txt").read_text()
    binary = tmp_path / "core.bin"
    binary.write_bytes(b"line one\nline two\n\x00\x01\x02 ELF\n")
    with pytest.raises(WorkbookParseError, match=r"core\.bin:3: expected text without NUL bytes"):
        parse_file(binary)
    latin = tmp_path / "latin1.txt"
    latin.write_bytes(b"Hello,\n\nJ\xf6rg wrote:\n" + mail.encode())
    with pytest.raises(WorkbookParseError, match=r"latin1\.txt:3: expected UTF-8 text"):
        parse_file(latin)
    utf16 = tmp_path / "utf16.txt"
    utf16.write_bytes(mail.encode("utf-16"))  # with its BOM
    assert parse_file(utf16).equals(parse_text(mail))


def test_kwb_tables_mail_prints_perf_stat_times_in_their_unit(capsys):
    """perf stat -r: '35,107,951.20 msec cpu-clock' was printed '35107.95 msec cpu-clock' (seconds under the
    msec label); the issue's '110.64 msec task-clock' printed as '0.11 msec task-clock'."""
    from kernel_workbook.cli import main

    assert main(["tables", "--mail", str(MAIL_TABLES / "perf-stat-2020-multiplexed.txt"), "--table", "1"]) == 0
    out = capsys.readouterr().out
    assert "     35,107,951.20      msec cpu-clock            ( +-  0.31% )" in out.split("\n")
    assert "           137.195      seconds time elapsed      ( +-  0.31% )" in out.split("\n")
    text = (" Performance counter stats for 'hackbench' (5 runs):\n\n"
            "            110.64 msec task-clock                #    0.976 CPUs utilized            ( +-  1.03% )\n"
            "                14      context-switches          #  126.535 /sec                     ( +- 10.59% )\n\n"
            "          0.113332 +- 0.000873 seconds time elapsed  ( +-  0.77% )\n")
    df = parse_text(text)
    assert render(df).split("\n")[0] == "            110.64      msec task-clock           ( +-  1.03% )"
    assert cell(df, "msec task-clock", "").value == pytest.approx(0.11064)  # stored in seconds, as every time
    md = render(df, fmt="markdown")
    assert "| msec task-clock | 110.64 (± 1.03%) |" in md and "| seconds time elapsed | 0.113332 (± 0.77%) |" in md


def test_kwb_tables_mail_reads_plain_perf_stat(capsys):
    """`perf stat` without -r prints no spread: 'no table found', though the README says kwb tables --mail reads
    perf stat."""
    from kernel_workbook.cli import main

    mail = MAIL_TABLES / "perf-stat-2022-plain-runs.txt"
    assert main(["tables", "--mail", str(mail), "--list"]) == 0
    assert len(capsys.readouterr().out.strip().split("\n")) == 2  # one table per run
    df = real("perf-stat-2022-plain-runs.txt")
    assert set(df["kind"]) == {"perfstat"} and df["stddev_pct"].isna().all()
    t1 = df[df["table"] == 1]
    assert list(t1["row"]) == ["msec task-clock", "context-switches", "cpu-migrations", "page-faults", "cycles",
                               "instructions", "branches", "branch-misses", "seconds time elapsed", "seconds user",
                               "seconds sys"]
    assert cell(t1, "cycles", "").value == 1812010034 and math.isnan(cell(t1, "branches", "").value)
    assert cell(t1, "msec task-clock", "").value == pytest.approx(0.90601)
    assert cell(df[df["table"] == 2], "seconds sys", "").value == 0.758718
    assert main(["tables", "--mail", str(mail), "--table", "1"]) == 0
    out = capsys.readouterr().out.split("\n")
    assert "            906.01      msec task-clock" in out and "   <not supported>      branches" in out


def test_prose_that_looks_like_counters_is_no_perf_stat_table():
    """Without its title a spread-less counter line is not read as perf stat (prose with numbers stays prose)."""
    text = "We saw\n     1,812,010,034      cycles\n     1,944,549,733      instructions\nin the run.\n"
    df = parse_text(text)
    assert "perfstat" not in set(df["kind"])
