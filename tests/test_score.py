"""The strict fidelity score: every cell scored or excluded with its reason."""

from __future__ import annotations

import pytest

from kernel_workbook.reproduce import Reproduction, format_summary
from kernel_workbook.reproduce.score import DEFAULT_NOISE_PTS, noise_table, over_seeds, score_cells, strict

T = "2014-seqread-fairzone-cfq"


def cell(table, row, kernel, pub_d, mod_d, published=100.0, stat="Mean", calibrated=False, model=1.0, why=None):
    c = {"table": table, "stat": stat, "row": row, "kernel": kernel, "published": published, "model": model,
         "published_delta_pct": pub_d, "model_delta_pct": mod_d, "calibrated": calibrated}
    if why:
        c["why"] = why
    return c


def test_hit_needs_the_sign_and_a_size_within_a_factor_of_two():
    cells = [
        cell("cfq600-seqread", "SeqRead-MB/sec-1", "3.16.0-rc1 vanilla", 0.0, 0.0),  # the baseline column
        cell("cfq600-seqread", "SeqRead-MB/sec-2", "3.16.0-rc1 cfq600", 10.0, 19.9),  # hit (x1.99)
        cell("cfq600-seqread", "SeqRead-MB/sec-4", "3.16.0-rc1 cfq600", 10.0, 21.0, published=101.0),  # size miss
        cell("cfq600-seqread", "SeqRead-MB/sec-8", "3.16.0-rc1 cfq600", 10.0, 5.0, published=102.0),  # hit (x0.5)
        cell("cfq600-seqread", "SeqRead-MB/sec-16", "3.16.0-rc1 cfq600", 10.0, -3.0, published=103.0),  # sign miss
        cell("cfq600-seqread", "RandRead-MB/sec-1", "3.16.0-rc1 cfq600", 1.5, 1.5),  # within the 2-point floor
        cell("cfq600-seqread", "RandRead-MB/sec-2", "3.16.0-rc1 cfq600", 5.0, 5.0, calibrated=True),
        cell("cfq600-seqread", "RandRead-MB/sec-4", "3.16.0-rc1 cfq600", 5.0, None, model=None, why="set by writes"),
    ]
    s = score_cells(T, cells)
    assert list(s["status"]) == ["excluded", "hit", "miss", "hit", "miss", "excluded", "excluded", "excluded"]
    assert list(s["reason"].str.split(":").str[0]) == ["baseline", "", "size", "", "sign", "noise", "calibrated",
                                                         "not modelled"]
    assert "set by writes" in s["reason"].iloc[7]
    assert strict(s) == {"hits": 2, "scored": 4, "score": 0.5,
                         "excluded": {"baseline": 1, "calibrated": 1, "not modelled": 1, "noise": 1}}


def test_a_number_repeated_in_another_table_is_scored_once():
    a = cell("series-seqread", "SeqRead-MB/sec-2", "3.16.0-rc1 cfq600", 10.0, 12.0)
    b = dict(a, table="cfq600-seqread")
    s = score_cells(T, [a, b])
    assert list(s["status"]) == ["hit", "excluded"]
    assert s["reason"].iloc[1] == "repeat: the same published number is scored in series-seqread"


def test_noise_floor_comes_from_the_threads_coeffvar_where_it_prints_one():
    th = "2015-numa-slow-scan"
    nz = noise_table(th)
    assert nz[("slowscan-xfsrepair", "syst-xfsrepair", "4.0.0-rc1 slowscan-v2")] == pytest.approx(7.08)
    # slowscan-v2 against 4.0-rc1 vanilla: sqrt(7.08^2 + 2.69^2) = 7.57 points of noise
    c = cell("slowscan-xfsrepair", "syst-xfsrepair", "4.0.0-rc1 slowscan-v2", -6.0, -6.0, stat="Amean")
    s = score_cells(th, [c])
    assert s["status"].iloc[0] == "excluded" and s["noise_from"].iloc[0] == "thread"
    assert s["noise_pts"].iloc[0] == pytest.approx(7.574, abs=1e-3)
    # a table that prints no variability falls back to the default floor
    s2 = score_cells(th, [cell("slowscan-autonuma", "System-NUMA01", "4.0.0-rc1 slowscan-v2", -1.9, -1.9, stat="Time")])
    assert s2["noise_pts"].iloc[0] == DEFAULT_NOISE_PTS and s2["status"].iloc[0] == "excluded"


def test_fitted_parameters_flag_their_cells_calibrated_whatever_the_table():
    c = cell("bigbatches-velocity", "Normal", "3.16.0-rc1", 50.0, 50.0, stat="")
    fitted = [{"parameter": "dma32_mb", "value": 3000, "unit": "MB", "fitted_to": ["bigbatches-velocity||Normal|3.16.0-rc1"]}]
    s = score_cells(T, [c], fitted)
    assert s["reason"].iloc[0].startswith("calibrated") and bool(s["calibrated"].iloc[0])


def test_summary_reports_strict_lenient_per_table_and_seeds():
    cells = [cell("cfq600-seqread", "SeqRead-MB/sec-2", "3.16.0-rc1 cfq600", 10.0, 12.0),
             cell("cfq600-seqread", "SeqRead-MB/sec-4", "3.16.0-rc1 cfq600", 10.0, -1.0, published=99.0)]
    worse = [dict(cells[0], model_delta_pct=-4.0), cells[1]]
    rep = Reproduction(T, cells=cells, seed_runs={1: (worse, [])})
    s = rep.summary()
    assert s["strict"]["score"] == 0.5 and s["lenient"]["predicted_cells"] == 2
    assert s["per_table"] == [{"table": "cfq600-seqread", "hits": 1, "scored": 2, "score": 0.5}]
    assert s["seeds"]["n"] == 2 and s["seeds"]["mean"] == 0.25 and (s["seeds"]["min"], s["seeds"]["max"]) == (0.0, 0.5)
    text = format_summary(rep)
    assert "1/2 scored cells hit = 50.0%" in text and "over 2 seed bases: mean 25.0%, range 0.0% .. 50.0%" in text
    assert "lenient, direction only" in text


def test_unmodelled_tables_are_listed_with_their_reason():
    rep = Reproduction("2011-cfq-deep-idle", cells=[], unmodelled={"aio-stress-slow-hdd": "no slow disk yet"})
    df = rep.df_unmodelled()
    assert set(df["table"]) == {"aio-stress-fast-raid", "aio-stress-slow-hdd"}
    assert df.set_index("table").loc["aio-stress-slow-hdd", "reason"] == "no slow disk yet"


def test_over_seeds_with_nothing_scored():
    assert over_seeds([{"score": None, "hits": 0, "scored": 0}], [0])["mean"] is None


def test_a_change_from_a_zero_baseline_is_not_called_the_baseline():
    c = cell("highalloc-vmstat", "Swap Outs", "3.6.0-rc1 capture-v5", None, None, stat="", published=120.0,
             model=30.0, why="pswpout from 0: a change in percent is undefined; the notebook compares pages")
    s = score_cells("2012-highalloc-compaction", [c])
    assert s["reason"].iloc[0].startswith("not modelled: pswpout from 0")


def test_a_cell_may_name_its_own_baseline_column():
    c = cell("reference-3.3.6", "Success 1", "3.3.6", 30.0, 28.0, stat="", published=78.0)
    c["baseline_kernel"] = "3.6.0-rc1 revert-v5"
    s = score_cells("2012-highalloc-compaction", [c])
    assert s["status"].iloc[0] == "hit"


def test_an_estimate_in_prose_is_excluded_with_its_quotation():
    c = cell("cfq600-seqread", "SeqRead-MB/sec-2", "3.16.0-rc1 cfq600", -85.0, 58.0)  # would be a sign miss
    c["exclude"] = 'estimate: a guess in prose -- "maybe 150MB/s"; "Something like that."'
    s = score_cells(T, [c])
    assert s["status"].iloc[0] == "excluded" and s["reason"].iloc[0] == c["exclude"]
    assert strict(s)["scored"] == 0 and strict(s)["excluded"] == {"estimate": 1}


def test_a_change_the_threads_authors_call_flat_is_noise_in_their_words():
    """A cell may carry the thread's own words that its change is negligible (``flat``): excluded as noise with
    those words as the reason, whatever its size and whether or not the model gives a value."""
    words = 'Mel Gorman: "the other operations are essentially flat"'
    cells = [cell("lessdirty-tiobench", "RandRead-MB/sec-4", "3.16.0-rc1 cfq600", -7.1, -3.6, stat="Min"),
             cell("lessdirty-tiobench", "SeqWrite-MB/sec-4", "3.0.0 vanilla", -3.4, None, stat="Min", model=None)]
    for c in cells:
        c["flat"] = words
    s = score_cells(T, cells)
    assert list(s["status"]) == ["excluded", "excluded"]
    assert list(s["reason"]) == ["noise: " + words] * 2
    assert strict(s)["excluded"] == {"noise": 2}
