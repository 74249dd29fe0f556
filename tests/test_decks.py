"""The decks' layout (kernel_workbook.decks) and talk mode's files, without a browser: the browser tests
(tests/browser/test_slides_browser.py) measure the slides themselves."""

from __future__ import annotations

import json
import re

import pytest

from kernel_workbook import decks
from kernel_workbook.cli_present import TALK_EXTENSION, read_settings, talk_env, thread_notebooks
from kernel_workbook.errors import WorkbookError


def md(text: str, **meta) -> dict:
    return {"cell_type": "markdown", "id": f"m{abs(hash(text)) % 10**6}", "metadata": meta, "source": text}


def code(text: str, lines: int = 0, svg: int | None = None) -> dict:
    outs = []
    if lines:
        outs.append({"output_type": "stream", "name": "stdout", "text": "".join(f"row {i}\n" for i in range(lines))})
    if svg:
        outs.append({"output_type": "display_data", "metadata": {}, "data": {
            "image/svg+xml": f'<svg class="marks" width="560" height="{svg}" viewBox="0 0 560 {svg}"></svg>',
            "text/plain": "chart"}})
    return {"cell_type": "code", "id": f"c{abs(hash(text)) % 10**6}", "metadata": {}, "execution_count": 1,
            "outputs": outs, "source": text}


def kinds(nb: dict) -> list[str | None]:
    return [c["metadata"].get("slideshow", {}).get("slide_type") for c in nb["cells"]]


def test_headings_start_slides_and_the_setup_cell_joins_the_title():
    nb = {"metadata": {}, "cells": [md("# Title\n\nA line."), code("from kernel_workbook import config\n\nmode = config.setup()", 1),
                                     md("## Part one\n\nText."), code("print(1)", 2), md("### Detail\n\nMore.")]}
    deck = decks.live_deck(nb)
    mark = {decks.source(c).split("\n")[0]: c["metadata"].get("slideshow", {}).get("slide_type") for c in deck["cells"]}
    assert mark["# Title"] == "slide" and mark["## Part one"] == "slide"
    assert mark["from kernel_workbook import config"] is None and mark["### Detail"] is None
    setup = next(c for c in deck["cells"] if "config.setup" in decks.source(c))
    assert decks.TAG_SETUP in setup["metadata"]["tags"] and setup["metadata"]["jupyter"]["source_hidden"]


def test_an_output_too_tall_for_its_slide_takes_its_lead_in_along():
    intro = md("## Tables\n\n" + "A paragraph of context. " * 60)
    nb = {"metadata": {}, "cells": [intro, md("Here is the table:"), code("# NBVAL_CHECK_OUTPUT\nprint(t)", 25)]}
    deck = decks.live_deck(nb)
    assert kinds(deck) == ["slide", "subslide", None]  # the lead-in starts the output's slide
    assert deck["cells"][2]["metadata"]["jupyter"]["source_hidden"]  # a printed table: its code is folded


def test_long_prose_is_split_between_blocks_never_after_a_heading():
    blocks = [f"Paragraph {i}. " + "words " * 80 for i in range(8)]
    text = "## Long\n\n" + "\n\n".join(blocks[:4]) + "\n\n### Sub\n\n" + "\n\n".join(blocks[4:])
    pieces = decks.split_prose(md(text))
    assert len(pieces) > 1
    assert "".join(p["source"] for p in pieces).count("Paragraph") == 8
    for p in pieces:
        assert decks.prose_height(p["source"]) <= decks.ROOM
        assert not re.search(r"#{1,6} [^\n]*$", p["source"].strip())  # a heading goes with what it heads
    assert len({p["id"] for p in pieces}) == len(pieces)


def test_a_long_list_is_split_between_items_and_keeps_its_numbers():
    items = "\n".join(f"{i}. **Step {i}.** " + "detail " * 60 for i in range(1, 9))
    pieces = decks.split_prose(md("## Steps\n\n" + items))
    assert len(pieces) > 1
    assert re.match(r"\d+\. \*\*Step", pieces[1]["source"]) and not pieces[1]["source"].startswith("1. ")
    assert "\n\n" not in pieces[0]["source"].split("\n\n", 1)[1]  # the items stay one list


def test_the_authors_marks_are_kept():
    nb = {"metadata": {}, "cells": [md("# T"), md("Short.", slideshow={"slide_type": "subslide"}),
                                     md("Notes.", slideshow={"slide_type": "notes"}), code("x = 1")]}
    assert kinds(decks.live_deck(nb))[1:3] == ["subslide", "notes"]


def test_static_deck_pages_printed_text_at_blank_lines_and_shrinks_a_tall_chart():
    table = "".join(f"line {i}\n" for i in range(30)) + "\n" + "".join(f"line {i}\n" for i in range(30, 60))
    cell = code("print(t)")
    cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": table}]
    nb = {"metadata": {}, "cells": [md("# T"), cell, md("## Chart"), code("chart", svg=800)]}
    deck = decks.static_deck(nb)
    pages = [c for c in deck["cells"] if c["cell_type"] == "code" and c["outputs"] and "text" in c["outputs"][0]]
    assert len(pages) == 2 and pages[1]["outputs"][0]["text"].startswith("line 30")
    svg = deck["cells"][-1]["outputs"][0]["data"]["image/svg+xml"]
    height = float(re.search(r'height="([\d.]+)"', svg).group(1))
    assert height < 720 and 'viewBox="0 0 560 800"' in svg
    assert all(c["metadata"].get("transient", {}).get("remove_source") for c in deck["cells"] if c["cell_type"] == "code")


def test_static_deck_pages_tall_tables_lists_and_markdown_and_keeps_small_outputs_together():
    """Issue 33: 18 of 147 static slides scrolled, most of them a table of 20-200 rows, a list of misses or
    several tables in one cell.  A table taller than a page is split between its rows (title, style and header
    on every page), a list between its items, Markdown between its items; outputs that fit share a page."""
    import pandas as pd

    from kernel_workbook.frames import Table

    t = Table(pd.DataFrame({"row": [f"r{i}" for i in range(60)], "value": range(60)}), caption="sixty rows")
    def shown(o):
        return {"output_type": "display_data", "metadata": {}, "data": o}
    big = code("t")
    big["outputs"] = [shown({"text/html": t._repr_html_(), "text/plain": t.text()}),
                      shown({"text/markdown": "\n".join(f"* item {i}: " + "word " * 30 for i in range(40)),
                             "text/plain": "items"}),
                      shown({"text/html": "<p>small</p>", "text/plain": "small"})]
    deck = decks.static_deck({"metadata": {}, "cells": [md("# T"), big]})
    pages = [c for c in deck["cells"] if c["cell_type"] == "code"]
    html = [o["data"]["text/html"] for p in pages for o in p["outputs"] if "text/html" in o["data"]]
    tables = [h for h in html if "<table" in h]
    assert len(tables) >= 3, len(tables)  # 60 rows: three pages or more
    assert all("sixty rows" in h and "<thead>" in h and "<style" in h for h in tables)
    rows = [r for h in tables for r in re.findall(r">r(\d+)<", h)]
    assert rows == [str(i) for i in range(60)]  # every row once, in order
    items = [o["data"]["text/markdown"] for p in pages for o in p["outputs"] if "text/markdown" in o["data"]]
    assert len(items) >= 2 and "\n".join(items).count("* item") == 40
    assert "<p>small</p>" in html  # and kept whole
    # a whole reproduction (blocks one after the other in one output, 2011's) goes between its blocks
    block = "<div class='kwb-block'><b>{}</b>" + "<p>x</p>" * 12 + "</div>"
    whole = code("rep")
    whole["outputs"] = [shown({"text/html": "\n".join(block.format(f"block {i}") for i in range(6)),
                               "text/plain": "rep"})]
    parts = [c["outputs"][0]["data"]["text/html"] for c in decks.static_deck({"metadata": {}, "cells": [md("# R"), whole]})["cells"]
             if c["cell_type"] == "code"]
    assert len(parts) > 1 and re.findall(r"block \d", "".join(parts)) == [f"block {i}" for i in range(6)]
    assert all(p.count("<div") == p.count("</div>") for p in parts)
    for p in pages:  # every page within the room, by the estimate, so none is tagged to scroll
        assert decks.height(p) <= decks.ROOM and decks.TAG_SCROLLS not in p["metadata"].get("tags", [])


@pytest.mark.parametrize("path", thread_notebooks(), ids=lambda p: p.stem)
def test_every_slide_of_a_thread_fits_or_is_meant_to_scroll(path):
    """By the estimate: a slide taller than the room has a cell tagged to scroll (the browser test checks that
    no slide scrolls without that tag)."""
    nb = json.loads(path.read_text())
    live = decks.live_deck(nb)
    assert "jupytext" not in live["metadata"]  # no paired script written beside the deck
    for deck, scale in ((live, decks.LIVE_CHART_SCALE), (decks.static_deck(nb), 1.0)):
        for s in decks.slides(deck["cells"], scale):
            if s.height > decks.ROOM:
                assert any(decks.TAG_SCROLLS in c["metadata"].get("tags", []) for c in s.cells), \
                    [decks.source(c)[:60] for c in s.cells]


def test_settings_written_by_the_lab_are_read(tmp_path):
    f = tmp_path / "plugin.jupyterlab-settings"
    f.write_text('{\n    // Decks\n    // jupyterlab-slideshow:plugin\n\n    "active": false\n}')
    assert read_settings(f) == {"active": False}
    env = talk_env(tmp_path)  # a second talk in the same folder (it crashed on the lab's comments)
    env = talk_env(tmp_path)
    saved = tmp_path / ".kwb-talk" / "settings" / "jupyterlab-slideshow" / "plugin.jupyterlab-settings"
    assert read_settings(saved)["active"] is True and env["WORKBOOK_MODE"] == "slides"
    f.write_text("{ not json")
    with pytest.raises(WorkbookError, match="plugin.jupyterlab-settings: line 1"):
        read_settings(f)


def test_the_talk_extension_is_a_federated_extension():
    ext = TALK_EXTENSION / "kwb-talk"
    build = json.loads((ext / "package.json").read_text())["jupyterlab"]["_build"]
    js = (ext / build["load"]).read_text()
    assert build["extension"] == "./extension" and "window._JUPYTERLAB" in js and "'kwb-talk'" in js.replace('"', "'")
    assert (ext / "static" / "deck.css").read_text().count("data-jp-deck-mode='presenting'") > 10


def test_no_notebook_has_tex_the_static_pages_could_not_draw():
    """Static pages carry no MathJax (kernel_workbook.webassets): a notebook that gains TeX stops them."""
    import glob

    from kernel_workbook.paths import repo_root
    from kernel_workbook.webassets import check_no_math, math_cells

    paths = sorted(glob.glob(str(repo_root() / "notebooks" / "*.ipynb")) + glob.glob(str(repo_root() / "exercises" / "**" / "*.ipynb"), recursive=True))
    assert len(paths) > 20
    assert {p: math_cells(json.loads(open(p).read())) for p in paths if math_cells(json.loads(open(p).read()))} == {}
    found = math_cells({"cells": [{"cell_type": "markdown", "source": "`f1_$I f2_$I` costs $5, area $\\pi r^2$"}]})
    assert found == [(0, "$\\pi r^2$")]
    with pytest.raises(WorkbookError, match="cell 0 has TeX"):
        check_no_math({"cells": [{"cell_type": "markdown", "source": "$$x$$"}]}, "x.ipynb")
