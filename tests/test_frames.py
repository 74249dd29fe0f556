"""Frames as HTML tables and prose as Markdown (``frames``), and what the committed notebooks store of them."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from kernel_workbook.frames import DASH, Listing, Preformatted, Prose, Table, Text
from kernel_workbook.paths import repo_root
from kernel_workbook.reproduce import Block
from kernel_workbook.textfit import TABLE_WIDTH

PROSE = ("the model's write-back cache has 16 segments (write_cache_extents), fewer than the 32 files being "
         "written: where all eight instances interleave the segments thrash, and most writes wait for room")


def test_one_number_format_per_column():
    """2015's counters table mixed 1.697587e+08 with 28362752.00 in one column."""
    df = pd.DataFrame({"counter": ["numa_pte_updates", "sys_migrate_s"], "4.0-rc1": [169758700.0, 12.345],
                       "3.19": [28362752.0, 3.0]})
    text = Table(df).text()
    assert "e+08" not in text and "169,758,700.00" in text and "12.35" in text
    assert "28,362,752" in text and "28,362,752.00" not in text  # a column of whole numbers has no decimals
    whole = Table(pd.DataFrame({"pages": [1.0, 2048.0, 28362752.0]})).text()
    assert "28,362,752" in whole and "2,048" in whole and ".00" not in whole


def test_a_table_of_counters_down_the_side_formats_each_row():
    """2015's counters table: counts in whole pages beside seconds of system time, one kernel a column."""
    df = pd.DataFrame({"3.19": [169758720.0, 2.52], "4.0-rc1": [195993600.0, 43.18]},
                      index=["numa_pte_updates", "sys_migrate_s"])
    text = Table(df, index=True, rows=True).text()
    assert "169,758,720 " in text and "169,758,720.00" not in text and "43.18" in text


def test_small_numbers_keep_their_digits_and_units_go_in_the_header():
    t = Table(pd.DataFrame({"ratio": [0.012345, 0.5]}), units={"ratio": "of 1"})
    assert "ratio (of 1)" in t.text() and "0.0123" in t.text() and "0.5000" in t.text()


def test_a_missing_value_is_a_dash_with_its_meaning_never_nan():
    """2014b's fitted table showed 'disk media rate ... NaN'."""
    df = pd.DataFrame({"parameter": ["ZONE_DMA32 (MB)", "disk media rate"], "value": [1500.0, np.nan]})
    t = Table(df, na="fitted per machine by the disk/CFQ model: see its table")
    for face in (t.text(), t._repr_html_()):
        assert "nan" not in face.lower().replace("nanos", "")
        assert DASH in face and "fitted per machine by the disk/CFQ model" in face
    assert "no value" in Table(df).text()  # a missing value is never shown without a word


def test_changes_carry_their_sign_and_colour():
    df = pd.DataFrame({"row": ["a", "b", "c"], "published_delta_pct": [3.5, -1.25, 0.0]})
    t = Table(df)
    assert "published change (%)" in t.text() and "+3.50" in t.text() and "-1.25" in t.text()
    html = t._repr_html_()
    assert html.count("color: #1f5fa8") == 1 and html.count("color: #b35900") == 1  # up and down; 0 uncoloured
    better = Table(df, better=True)._repr_html_()
    assert "color: #1a7f37" in better and "color: #c62828" in better


def test_the_html_and_the_text_show_the_same_strings_and_are_stable():
    df = pd.DataFrame({"kernel": ["3.16.0-rc1 vanilla", "fairzone"], "MB/s": [68.9, 77.29], "runs": [5, 5],
                       "ok": [True, False]})
    t = Table(df)
    html = t._repr_html_()
    shown = re.sub(r"<[^>]+>", "", html)  # what the page shows: the text, without its tags
    for cell in ("68.90", "77.29", "yes", "no", "3.16.0-rc1 vanilla"):
        assert cell in t.text() and cell in shown
    assert html == Table(df)._repr_html_()  # the stored notebook does not change from run to run
    assert t.text() == repr(t) == str(t)


def test_prose_keeps_dollar_signs_and_code_spans():
    p = Prose("8 x 'aio-stress ... f1_$I f2_$I' and `$HOME`")
    assert p._repr_markdown_() == "8 x 'aio-stress ... f1_\\$I f2_\\$I' and `$HOME`"
    assert repr(p) == p.text
    t = Text("fidelity (strict): 1/2", "**Fidelity (strict):** 1/2")
    assert t.startswith("fidelity") and t._repr_markdown_().startswith("**")


def test_mmtests_text_stays_exact_and_scrolls():
    row = "Mean   SeqRead-MB/sec-1" + "".join(f"      {v:.2f} (  0.00%)" for v in (121.88, 121.6, 131.68))
    p = Preformatted(row)
    assert repr(p) == row and "white-space: pre;" in p._repr_html_() and "overflow-x: auto" in p._repr_html_()


def test_a_list_block_prints_fields_then_the_sentence_beneath():
    frame = pd.DataFrame({"table": ["t1", "t2"], "row": ["System", "User"], "why": [PROSE, "because"]})
    b = Block("misses", "cells that miss", "list", frame)
    lines = b.render().split("\n")
    assert lines[:3] == ["== cells that miss", "  t1 / System —", "    " + PROSE]
    assert lines[-2:] == ["  t2 / User —", "    because"]
    assert "<li><b>t1 / System</b> — the model" in b._repr_html_()
    assert repr(Listing([])) == "  none"


def test_a_cells_block_explains_its_empty_cells():
    cells = [{"table": "t", "stat": "", "row": "r", "kernel": "3.0", "published": 10.0, "model": None,
              "published_delta_pct": 5.0, "model_delta_pct": None, "calibrated": False}]
    b = Block("t/cells", "published and model", "cells", pd.DataFrame(cells))
    text = b.render()
    assert "nan" not in text.lower() and DASH in text and "the model gives none for this cell" in text


# ------------------------------------------------------------------ the committed notebooks

def _outputs():
    root = repo_root()
    for nb in sorted([*(root / "notebooks").glob("*.ipynb"), *(root / "exercises").rglob("*.ipynb")]):
        for i, cell in enumerate(json.loads(nb.read_text())["cells"]):
            checked = "NBVAL_CHECK_OUTPUT" in "".join(cell.get("source", ""))
            for out in cell.get("outputs", []):
                yield nb.name, i, checked, out


def test_a_checked_cell_stores_its_numbers_as_text_nbval_compares():
    """nbval compares text/plain (and text/html, text/markdown): a table shown as HTML must not store a
    bare object repr as its text (a Styler's '<pandas...Styler at 0x...>' would compare nothing)."""
    bare = []
    for name, i, checked, out in _outputs():
        plain = "".join(out.get("data", {}).get("text/plain", ""))
        if checked and plain and re.fullmatch(r"<[\w.]+ (object|at) .*>", plain.strip()) and \
                "text/markdown" not in out.get("data", {}):
            bare.append((name, i, plain[:60]))
    assert not bare, bare[:6]


def test_no_table_of_a_committed_notebook_shows_nan():
    found = []
    for name, i, _, out in _outputs():
        html = "".join(out.get("data", {}).get("text/html", ""))
        if "kwb-table" in html and re.search(r">\s*nan\s*<", html, re.I):
            found.append((name, i))
    assert not found, found[:6]


def test_committed_mmtests_tables_fit_1280_px_with_the_file_browser_closed():
    wide = []
    for name, i, _, out in _outputs():
        text = "".join(out.get("text", "")) or "".join(out.get("data", {}).get("text/plain", ""))
        if out.get("output_type") == "stream":
            wide += [(name, i, len(x)) for x in text.split("\n") if len(x) > TABLE_WIDTH]
    assert not wide, wide[:8]


@pytest.mark.parametrize("given", [None, []])
def test_an_empty_frame_says_so(given):
    t = Table(pd.DataFrame({"a": given or []}))
    assert "(no rows)" in t.text()


def test_a_wide_table_may_break_its_headers_and_labels_but_never_a_number_or_a_word():
    """Issue 33: 2007's runs (13 columns of counters named as the kernel names them) were 1,783 px wide in a
    1,100 px output area.  In HTML a header breaks after its underscores, a label between its words (never
    after the hyphen of ``3.16.0-rc1``), a number never; the text form keeps the names whole."""
    df = pd.DataFrame({"kernel": ["2.6.23 without congestion_wait", "3.16.0-rc1 vanilla"],
                       "kswapd_congestion_wait_s": [6.47, 0.0], "note": ["a<b", "x"]})
    t = Table(df)
    html = t._repr_html_()
    assert ">kswapd_<wbr>congestion_<wbr>wait_<wbr>s<" in html and "kswapd_congestion_wait_s" in t.text()
    assert "<span class='kwb-nw'>3.16.0-rc1</span> vanilla" in html
    assert ">a&lt;b<" in html  # a cell's text is text, never markup
    assert re.search(r"td \{[^}]*white-space: normal", html)  # labels wrap where the table needs it to fit
    assert re.search(r"td.col1 \{[^}]*white-space: nowrap", html)  # numbers never



def test_attached_runs_ride_along_uncopied():
    """pandas deep-copies attrs into every derived frame; runs attached with Attached are the same objects
    there (the 2014 allocator explorer spent most of a redraw copying its two runs)."""
    from kernel_workbook.frames import Attached

    runs = {"vanilla": np.arange(10)}
    df = pd.DataFrame({"kernel": ["a", "b"], "x": [1.0, 2.0]})
    df.attrs["results"] = Attached(runs)
    derived = df.set_index("kernel").T
    assert derived.attrs["results"]["vanilla"] is runs["vanilla"]
    assert df["x"].attrs["results"] is df.attrs["results"]
    df.attrs["plain"] = {"vanilla": runs["vanilla"]}  # a plain dict is still copied: what Attached avoids
    assert df.copy().attrs["plain"]["vanilla"] is not runs["vanilla"]
