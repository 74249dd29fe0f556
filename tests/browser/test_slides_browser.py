"""Talk mode: a thread as a RISE deck in WORKBOOK_MODE=slides at 1280x720, and the static HTML export offline.

``KWB_SCREENSHOTS=docs/screenshots`` also saves a screenshot of every thread's deck (the pictures in docs/).
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import JS_TEXT_FIT, ROOT, NotebookPage, make_lab, move_a_knob

from kernel_workbook.cli_present import export_html, find_notebook, thread_notebooks, write_deck
from kernel_workbook.nbtools import trust

SHOTS = os.environ.get("KWB_SCREENSHOTS")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    lab = make_lab(tmp_path_factory, "slides")
    yield lab
    lab.close()


def open_deck(page, lab, src):
    deck = write_deck(src, lab.dir / "slides")
    trust(deck)
    page.goto(lab.url(f"slides/{deck.name}", app="rise"), wait_until="domcontentloaded")
    page.wait_for_selector(".reveal .slides section", timeout=180_000)
    page.wait_for_function("() => { const a = window.jupyterapp || null; return true; }")
    return deck


def test_deck_opens_offline_and_fits(page, lab):
    src = find_notebook("2014b")
    open_deck(page, lab, src)
    sections = page.locator(".reveal .slides section")
    assert sections.count() > 5
    # the current slide lies inside the 1280x720 viewport
    box = page.locator(".reveal .slides").bounding_box()
    assert box["x"] >= -0.5 and box["x"] + box["width"] <= 1280.5
    if SHOTS:
        for s in thread_notebooks():
            open_deck(page, lab, s)
            page.wait_for_timeout(3000)
            page.screenshot(path=str(ROOT / SHOTS / f"{s.stem}-slides.png"))


def test_deck_text_is_never_wrapped(page, lab):
    """Stepping through the 2015 deck (the longest printed text) at 1280x720: no text line wraps on any slide."""
    open_deck(page, lab, find_notebook("2015"))
    page.wait_for_timeout(3000)
    shown, wrapped = 0, []
    for step in range(60):  # Space walks every slide, sub-slides too; the deck has fewer
        r = page.evaluate(JS_TEXT_FIT, True)
        shown += r["cap"] is not None
        wrapped += [f"step {step}: {x}" for x in r["wrapped"]]
        page.keyboard.press("Space")
        page.wait_for_timeout(250)
    assert shown, "no slide showed a text output"
    assert not wrapped, wrapped[:5]


def test_explorer_fits_at_slides_size(page, lab):
    """WORKBOOK_MODE=slides: the explorer's chart (900 wide, big fonts) and its widgets fit 1280 px."""
    deck = write_deck(find_notebook("2014b"), lab.dir / "slides")
    nb = json.loads(deck.read_text())
    nb["metadata"]["rise"]["autolaunch"] = False  # the notebook view, where the test can run a cell
    deck.write_text(json.dumps(nb))
    trust(deck)
    nbp = NotebookPage(page, lab, f"slides/{deck.name}")
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    nbp.run(nbp.index_of(r"config\.setup\(\)"), timeout_s=120)
    cell = nbp.index_of(r"fairzone_explorer\(")
    page.evaluate("""(i) => { const w = window.jupyterapp.shell.currentWidget;
        w.content.activeCellIndex = i; w.content.widgets[i].model.sharedModel.setSource(
        'from kernel_workbook.ui.fairzone_charts import fairzone_explorer\\n\\nfairzone_explorer()'); }""", cell)
    nbp.run(cell, timeout_s=400)
    assert nbp.errors() == []
    nbp.wait_charts()
    root = nbp.mark(cell)
    lay = nbp.assert_seen_whole(root)
    assert lay["charts"] and max(c["width"] for c in lay["charts"]) > 600  # slides size, not lab's
    move_a_knob(nbp, cell, timeout_s=300)
    nbp.assert_seen_whole(root)


def test_static_html_export_needs_no_network(page, tmp_path):
    src = find_notebook("2011")
    target = export_html(src, tmp_path)
    page.goto(target.as_uri(), wait_until="load")
    page.wait_for_timeout(1000)
    assert page.locator("svg, img").count() > 0
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= 1280, f"the static page scrolls sideways at 1280 px: {wide}"
