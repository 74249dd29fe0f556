"""The two CFQ reproductions: the JSON schema, what is fitted (baseline only), and what is printed."""

import json
from pathlib import Path

import pytest

from kernel_workbook.reproduce import CELL_KEYS, format_summary, reproduce
from kernel_workbook.reproduce import deep_idle_2011 as d11
from kernel_workbook.reproduce import seqread_2014 as s14
from literals import literals_equal_to_published

from kernel_workbook.tables import baseline_of, published

ROOT = Path(__file__).resolve().parent.parent
CFQ_TABLES = {"cfq600-seqread", "cfq600-iostat"}


@pytest.fixture(scope="module")
def rep14():
    return reproduce("2014-seqread-fairzone-cfq", small=True)


@pytest.fixture(scope="module")
def rep11():
    return reproduce("2011-cfq-deep-idle", small=True)


def _check_schema(rep):
    doc = json.loads(rep.to_json())
    assert set(doc) == {"thread", "cells", "summary"}
    assert set(doc["summary"]) == {"predicted_cells", "direction_agreement", "median_abs_error_pts"}
    for c in doc["cells"]:
        assert list(c) == CELL_KEYS
    return doc


def test_2014_schema_and_what_is_fitted(rep14):
    doc = _check_schema(rep14)
    # the CFQ part's cells (the allocator part, issue 5, fits its own vanilla cells: tests/test_fairzone_reproduce.py)
    cells = [c for c in doc["cells"] if c["table"] in CFQ_TABLES]
    fitted = [c for c in cells if c["calibrated"]]
    # one cell fitted, in the baseline column the issue names
    assert [(c["table"], c["row"], c["kernel"]) for c in fitted] == [
        ("cfq600-seqread", "SeqRead-MB/sec-1", "3.16.0-rc1 vanilla")]
    assert baseline_of("2014-seqread-fairzone-cfq", "cfq600-seqread") == "3.16.0-rc1 vanilla"
    # every published number of the cfq600 table is there, with its provenance value
    pub = published("2014-seqread-fairzone-cfq", "cfq600-seqread")
    mine = {(c["row"], c["kernel"]): c for c in cells if c["table"] == "cfq600-seqread"}
    for r in pub.itertuples():
        assert mine[(r.row, r.kernel)]["published"] == r.value
    # predicted: the cfq600 column; the 3.0 column is shown, not predicted
    for c in cells:
        if c["kernel"].startswith("3.0.0"):
            assert c["model"] is None
        if c["kernel"] == "3.16.0-rc1 cfq600" and c["table"] == "cfq600-seqread":
            assert c["model"] is not None and c["model_delta_pct"] is not None
            assert c["model"] != c["published"]
    s = doc["summary"]
    assert s["predicted_cells"] >= 7 and 0 <= s["direction_agreement"] <= 1


def test_2014_prints_published_and_model_side_by_side(rep14):
    text = "\n".join(rep14.text)
    assert "== cfq600-seqread, published" in text and "== cfq600-seqread, model" in text
    assert "Mean   SeqRead-MB/sec-16         68.90" in text  # the published table as printed
    assert "fitted: media_rate_mb_s" in text and "nothing else is fitted" in text
    assert "sda-r_await" in text and "other machines" in text
    assert format_summary(rep14).startswith("fidelity: ")
    assert any("3.0.0 column not predicted" in n for n in rep14.notes)


def test_2014_is_a_list_of_parts():
    assert s14.PARTS[0] == "kernel_workbook.reproduce.seqread_2014:cfq_part"
    part = s14.cfq_part(small=True)
    assert isinstance(part, s14.Part) and part.cells and part.text


def test_2011_schema_and_what_is_fitted(rep11):
    doc = _check_schema(rep11)
    cells = doc["cells"]
    assert len(cells) == 6 + 4
    fitted = {(c["table"], c["kernel"]) for c in cells if c["calibrated"]}
    assert fitted == {("aio-stress-fast-raid", "Pristine 3.1.0-rc2 (CFQ)"),
                      ("aio-stress-slow-hdd", "Pristine 3.1.0-rc2 (CFQ)")}
    assert doc["summary"]["predicted_cells"] == 8
    for c in cells:
        assert c["model"] is not None and c["model"] > 0
    text = "\n".join(rep11.text)
    assert "fitted: cmd_overhead_us" in text and "fitted: write_cache_kb" in text
    assert "the thread's targets" in text


def test_2011_calibration_uses_only_the_baseline():
    cal = d11.calibrate("aio-stress-fast-raid", small=True)
    assert cal["parameter"] == "cmd_overhead_us"
    assert cal["published"] == published("2011-cfq-deep-idle", "aio-stress-fast-raid").query(
        "kernel == 'Pristine 3.1.0-rc2 (CFQ)'")["value"].iloc[0]
    assert abs(cal["model"] / cal["published"] - 1) < 0.1
    f = d11.fidelity_2011("aio-stress-fast-raid", small=True)
    assert f["pairs"] == 15 and len(f["ratios"]) == 5



MY_FILES = [
    "models/disk.py", "models/cfq.py", "models/cfq_params.py", "models/_cfq_layout.py", "models/_disk_kernel.py",
    "models/_sched_kernel.py", "models/_sim_kernel.py", "models/_jit.py", "reproduce/seqread_2014.py",
    "reproduce/deep_idle_2011.py", "reproduce/_side_by_side.py", "workloads/tiobench.py", "workloads/aio_stress.py",
    "workloads/blockio.py",
]


def test_no_published_figure_is_written_into_the_model_or_the_reproduction():
    """Published numbers reach the model only through published(): no literal equals one.

    Trivial constants (integers below 1000 and 0.5-steps such as 1.0 or
    2.0 that the kernel and the data sheets use) cannot be told apart from
    a table's value and are left out.
    """
    hits = literals_equal_to_published(MY_FILES, ("2014-seqread-fairzone-cfq", "2011-cfq-deep-idle"))
    assert not hits, hits
