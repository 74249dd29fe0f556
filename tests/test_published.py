"""data/published: complete, provenanced, and equal to what the parser reads."""

import math

import pandas as pd
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.tables import parse_text, published, published_tables
from kernel_workbook.tables.build_published import CSV_COLUMNS, _ranges, build, check
from kernel_workbook.threads import THREADS


def test_csvs_are_what_a_fresh_build_gives():
    assert check() == []


def test_columns_and_provenance():
    df = published()
    assert list(df.columns) == CSV_COLUMNS
    t = published_tables()
    assert set(t["thread"]) == set(THREADS)
    for r in t.itertuples():
        assert r.author and r.date and r.subject and r.title, r
        assert r.baseline in set(df[(df.thread == r.thread) & (df.table == r.table)]["kernel"]), r
    # the 2011 figures exist only in prose: both machines are curated tables
    assert set(t[t.thread == "2011-cfq-deep-idle"]["status"]) == {"curated"}


def test_every_number_is_on_the_line_it_claims():
    df = published()
    for thread in THREADS:
        lines = THREADS[thread].text().splitlines()
        sub = df[df["thread"] == thread]
        for r in sub.itertuples():
            assert r.source == lines[r.line - 1].rstrip(), (thread, r.table, r.line)
            # the printed text of the number is on that line
            needle = r.text.split("(")[0].strip() if r.kind == "compare" else r.text
            assert needle in r.source.replace("  ", " ") or needle in r.source, (thread, r.table, r.text, r.source)


def test_parsed_tables_equal_the_parser_output():
    df = published()
    t = published_tables()
    for thread in THREADS:
        parsed = parse_text(THREADS[thread].text())
        for r in t[(t.thread == thread) & (t.status == "parsed")].itertuples():
            ranges = _ranges(r.lines)
            mine = [n for n, m in parsed.attrs["tables"].items()
                    if all(any(a <= x <= b for a, b in ranges) for x in m["row_lines"])]
            p = parsed[parsed["table"].isin(mine)].sort_values(["line", "col"]).reset_index(drop=True)
            c = df[(df.thread == thread) & (df.table == r.table)].sort_values(["line", "col"]).reset_index(drop=True)
            assert len(p) == len(c) > 0
            for col in ("stat", "row", "line", "col", "unit", "text"):
                assert list(p[col]) == list(c[col]), (r.table, col)
            assert (p["value"] == c["value"]).all() or pd.testing.assert_series_equal(p["value"], c["value"])
            assert ((p["pct"] == c["pct"]) | (p["pct"].isna() & c["pct"].isna())).all()


SPOT = [
    # (thread, table, stat, row, kernel, value, pct) read off the thread text by hand
    ("2014-seqread-fairzone-cfq", "series-seqread", "Mean", "SeqRead-MB/sec-16", "3.16.0-rc1 patch-series", 82.14, 19.22),
    ("2014-seqread-fairzone-cfq", "cfq600-iostat", "Max", "sda-w_await", "3.0.0 vanilla", 177698.47, None),
    ("2014-seqread-fairzone-cfq", "fairzone-spread", "", "DMA32 allocs", "3.16.0-rc1 fairzone", 9459921, None),
    ("2014-seqread-fairzone-cfq", "spread-percent", "", "Normal allocs", "3.0.0 vanilla", 70.9, None),
    ("2014-seqread-fairzone-cfq", "bigbatches-velocity", "", "Zone dma32 velocity", "3.16-rc1", 8196.689, None),
    ("2014-seqread-fairzone-cfq", "laptop-tiobench", "Mean", "RandWrite-MB/sec-16", "3.16.0-rc1 fairzone-v2r38", 0.90, -0.73),
    ("2015-numa-slow-scan", "slowscan-autonuma", "Time", "System-NUMA01", "4.0.0-rc1 slowscan-v2", 209.42, 65.24),
    ("2015-numa-slow-scan", "slowscan-numastat", "", "NUMA pages migrated", "3.19.0 vanilla", 23237799, None),
    ("2015-numa-slow-scan", "slowscan-xfsrepair", "CoeffVar", "syst-xfsrepair", "4.0.0-rc1 slowscan-v2", 7.08, -163.23),
    ("2015-numa-slow-scan", "ptewrite-totals", "", "System", "4.0.0-rc1 ptewrite-v1r20", 279.78, None),
    ("2015-numa-slow-scan", "dave-xfsrepair-times", "", "-o bhash=101073", "4.0-rc1", 17 * 60 + 43, None),
    ("2015-numa-slow-scan", "dave-vmstat", "", "numa_hint_faults_local", "4.0-rc4", 16478674, None),
    ("2015-numa-slow-scan", "dave-perf-rc4", "", "migrate:mm_migrate_pages", "4.0-rc4", 471752, None),
    ("2011-cfq-deep-idle", "aio-stress-fast-raid", "", "aio-stress MB/s", "Pristine 3.1.0-rc2 (noop)", 99.76, None),
    ("2011-cfq-deep-idle", "aio-stress-slow-hdd", "", "aio-stress MB/s", "3.1.0-rc2 w/o 8e1ac6655104 (CFQ)", 5.46, None),
    ("2007-throttle-vm-writeout", "akpm-vmstat-scan", "", "pgscan_kswapd_dma32", "akpm desktop", 1246816, None),
    ("2007-throttle-vm-writeout", "kswapd-writeback-2002", "", "reclaim efficiency %", "after c4e2d7dd", 40, None),
    ("2012-highalloc-compaction", "highalloc-success", "", "Pass 2", "capture-v5", 52.0, 52.0),
    ("2012-highalloc-compaction", "highalloc-vmstat", "", "Kswapd velocity", "capture-v5", 1218.131, None),
    ("2012-highalloc-compaction", "reference-3.3.6", "", "Kswapd velocity", "3.3.6", 8140, None),
]


@pytest.mark.parametrize("thread,table,stat,row,kernel,value,pct", SPOT)
def test_spot_checks_against_the_thread_text(thread, table, stat, row, kernel, value, pct):
    df = published(thread, table)
    got = df[(df.stat == stat) & (df.row == row) & (df.kernel == kernel)]
    assert len(got) == 1
    assert got.iloc[0].value == pytest.approx(value)
    if pct is None:
        assert math.isnan(got.iloc[0].pct)
    else:
        assert got.iloc[0].pct == pytest.approx(pct)


def test_quotes_are_stored_once_and_point_at_the_first_appearance():
    t = published_tables("2014-seqread-fairzone-cfq").set_index("table")
    assert t.loc["cfq600-seqread", "quoted_at"] == "1717;1757;1806;1859;1911"
    c = published("2014-seqread-fairzone-cfq", "cfq600-seqread")
    assert set(c["line"]) == set(range(71, 76))  # only the first appearance
    # the 2012 archive shows the message twice: one copy of each table
    t12 = published_tables("2012-highalloc-compaction").set_index("table")
    assert t12.loc["highalloc-success", "quoted_at"] == "182"


def test_the_build_refuses_a_table_it_cannot_place():
    from kernel_workbook.tables.build_published import BuildError, load_manifest

    man = load_manifest()
    man["table"] = [t for t in man["table"] if t["id"] != "bigbatches-velocity"]
    with pytest.raises(BuildError, match="line 1621"):
        build(man)


def test_unknown_thread_or_table_is_named():
    with pytest.raises(WorkbookParameterError, match="thread"):
        published("2013-nope")
    with pytest.raises(WorkbookParameterError, match="table"):
        published("2014-seqread-fairzone-cfq", "nope")
