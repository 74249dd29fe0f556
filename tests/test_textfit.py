"""Printed text fits the lab's output area (``textfit``), and the committed notebooks' outputs do."""

from __future__ import annotations

import html
import json
import re

import pandas as pd
import pytest

from kernel_workbook.paths import repo_root
from kernel_workbook.reproduce import Block
from kernel_workbook.textfit import TABLE_WIDTH, WIDTH, fit, frame_text

PROSE = ("the model's write-back cache has 16 segments (write_cache_extents), fewer than the 32 files being "
         "written: where all eight instances interleave the segments thrash, and most writes wait for room")
# wider than WIDTH but a table: a presenter closes the file browser (139 characters at 1280 px)
TABLE_LIMIT = TABLE_WIDTH
COLUMNS = re.compile(r"\S {2,}\S")


def words(text: str) -> list[str]:
    return text.split()


def test_short_lines_are_kept_exactly():
    text = "a  b\n\n  indented line\n" + "x" * WIDTH
    assert fit(text) == text


def test_a_long_sentence_wraps_under_its_indent_and_keeps_every_word():
    line = "    " + PROSE
    out = fit(line)
    assert words(out) == words(line)
    assert all(len(x) <= WIDTH for x in out.split("\n"))
    assert all(x.startswith("    ") and not x.startswith("     ") for x in out.split("\n"))


def test_a_columned_line_continues_under_its_last_column():
    line = f"  cost_sched_tick_us            4.074 us per ms CPU  <- {PROSE}"
    out = fit(line).split("\n")
    col = line.index("<-")
    assert len(out) > 1 and out[0].index("<-") == col
    assert all(x[:col].strip() == "" and x[col] != " " for x in out[1:])
    assert all(len(x) <= WIDTH for x in out)


def test_a_bullet_continues_after_its_mark():
    out = fit("* " + PROSE).split("\n")
    assert all(x.startswith("  ") and x[2] != " " for x in out[1:])


def test_a_frame_that_fits_is_printed_as_to_string_prints_it():
    df = pd.DataFrame({"knob": ["a", "bb"], "value": [1.5, 20.0]})
    assert frame_text(df) == df.to_string(index=False)
    assert frame_text(df, index=True) == df.to_string()


def test_a_prose_last_column_wraps_under_itself():
    df = pd.DataFrame({"row": ["kswapd CPU %", "x"], "reason": ["size", "sign"], "why": [PROSE, "short"]})
    lines = frame_text(df).split("\n")
    col = lines[0].index("why")
    assert lines[1].startswith("kswapd CPU %") and lines[1][col:].startswith("the model's")
    assert all(len(x) <= WIDTH for x in lines)
    assert words(" ".join(x[col:] for x in lines[1:-1])) == words(PROSE)
    assert lines[-1].split()[-1] == "short" and lines[-1].index("short") == col


def test_many_columns_are_split_into_blocks():
    df = pd.DataFrame({f"compact_counter_{i}": [i * 1000.5, 2.0] for i in range(12)})
    out = frame_text(df)
    assert all(len(x) <= WIDTH for x in out.split("\n"))
    for c in df.columns:
        assert c in out


def test_a_list_block_prints_fields_then_the_sentence_beneath():
    frame = pd.DataFrame({"table": ["t1", "t2"], "row": ["System", "User"], "why": [PROSE, "because"]})
    text = Block("misses", "cells that miss", "list", frame).render()
    lines = text.split("\n")
    assert lines[0] == "== cells that miss"
    assert lines[1] == "  t1 / System —"
    assert all(x.startswith("    ") for x in lines[2:lines.index("  t2 / User —")])
    assert lines[-1] == "    because"
    assert all(len(x) <= WIDTH for x in lines)


def _stream_lines():
    root = repo_root()
    for nb in sorted([*(root / "notebooks").glob("*.ipynb"), *(root / "exercises").rglob("*.ipynb")]):
        cells = json.loads(nb.read_text())["cells"]
        for i, cell in enumerate(cells):
            for out in cell.get("outputs", []):
                text = "".join(out.get("text", "")) or "".join(out.get("data", {}).get("text/plain", ""))
                for line in text.split("\n"):
                    yield nb.name, i, line


@pytest.mark.parametrize("limit", ["prose", "tables"])
def test_committed_notebook_outputs_fit_1280_px(limit):
    """Prose fits WIDTH; a table's row (fields apart by 2+ spaces) fits TABLE_WIDTH, the file browser closed."""
    too_wide = [(n, i, len(x), x[:80]) for n, i, x in _stream_lines()
                if (len(x) > WIDTH and not COLUMNS.search(x) if limit == "prose" else len(x) > TABLE_LIMIT)]
    assert not too_wide, too_wide[:8]


def test_a_prose_column_without_room_beside_the_others_goes_beneath_each_row():
    df = pd.DataFrame({"table": ["congestion-wait-estimate"], "row": ["pages scanned per page reclaimed"],
                       "kernel": ["without congestion_wait"], "reason": [PROSE]})
    lines = frame_text(df).split("\n")
    assert lines[0].split() == ["table", "row", "kernel"] and "congestion-wait-estimate" in lines[1]
    assert lines[2].startswith("    reason: the model's") and all(x.startswith("    ") for x in lines[2:])
    assert all(len(x) <= WIDTH for x in lines)


def test_hang_sets_where_the_lines_after_the_first_start():
    out = fit("[not quite] " + PROSE, hang=4).split("\n")
    assert out[0].startswith("[not quite] the model's") and all(x.startswith("    ") for x in out[1:])
    assert words("\n".join(out)) == words("[not quite] " + PROSE)


def test_a_table_row_up_to_the_table_width_is_kept():
    row = "Mean   SeqRead-MB/sec-1" + "".join(f"      {v:.2f} (  0.00%)" for v in (121.88, 121.6, 131.68, 134.59, 99.1))
    assert WIDTH < len(row) <= TABLE_WIDTH
    assert fit(row) == row


def test_an_explorer_pre_keeps_tables_whole_and_fits_prose():
    from kernel_workbook.ui.charts import pre_html

    row = "Amean numa_pte_updates" + "".join(f"   {v:12.2f} (  0.00%)" for v in (2162688.0, 1376256.0, 1.0, 2.0))
    out = pre_html(f"{PROSE} {PROSE}\n{row}")
    assert "white-space:pre;" in out and "overflow-x:auto" in out  # scrolled sideways, never wrapped into fragments
    body = html.unescape(out.split(">", 1)[1].rsplit("</pre>", 1)[0]).split("\n")
    assert all(len(x) <= WIDTH for x in body[:-1]) and body[-1] == row


def test_a_named_index_keeps_every_row_beside_its_own_prose():
    df = pd.DataFrame({"kernel": ["3.0", "3.16"], "why": [PROSE, "short"]}).set_index("kernel")
    lines = frame_text(df, index=True).split("\n")
    assert lines[0].split() == ["kernel", "why"]
    assert lines[1].lstrip().startswith("3.0") and "the model's" in lines[1]
    assert lines[-1].lstrip().startswith("3.16") and lines[-1].endswith("short")
