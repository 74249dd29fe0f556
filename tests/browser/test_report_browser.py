"""``make report`` opened as a reader opens it: from disk, with no network, at 1280x720.

The report of every notebook takes minutes to build; here ``build_report`` runs on a page made for the test
(the widgets a notebook leaves: a finished progress bar as tqdm draws it, a slider) and one exercise.
"""

from __future__ import annotations

import json

import nbformat
import pytest
from conftest import ROOT, browser_missing

from kernel_workbook.report import build_report


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    why = browser_missing()
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("report")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Widgets left in a page\n\nA finished progress bar and a slider, "
                                              "drawn from their saved state."),
                nbformat.v4.new_code_cell(
                    "import ipywidgets as w\nfrom IPython.display import display\n"
                    "display(w.HBox([w.HTML('fit'), w.FloatProgress(value=7, max=7), w.HTML('7/7')]))\n"
                    "w.IntSlider(value=3, description='knob')")]
    src = tmp / "widgets.ipynb"
    nbformat.write(nb, src)
    return build_report(tmp / "out", paths=[src, ROOT / "exercises" / "02-stats-hmean-amean.ipynb"])


def test_index_tells_what_each_page_is(page, report):
    page.goto(report.as_uri(), wait_until="load")
    rows = json.loads((report.parent / "index.json").read_text())
    assert [r["title"] for r in rows] == ["Widgets left in a page", "Exercise 2 — Hmean against Amean"]
    for r in rows:
        link = page.get_by_role("link", name=r["title"])
        assert link.is_visible() and link.get_attribute("href") == r["page"]
        assert r["summary"] and page.get_by_text(r["summary"][:40]).is_visible()
        assert r["seconds"] > 0
    assert page.get_by_role("heading", name="Exercises").is_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280


def test_pages_draw_saved_widgets_offline(page, report):
    """The widgets are drawn by the HTML manager copied beside the pages (5 pages fetched it from a CDN);
    the page fixture fails on any request that leaves the machine."""
    page.goto((report.parent / "widgets.html").as_uri(), wait_until="load")
    page.locator(".widget-hprogress, .widget-progress").first.wait_for(timeout=20_000)
    assert page.locator(".widget-slider").count() == 1
    assert not page.watch.errors, page.watch.errors[:5]
    page.goto((report.parent / "02-stats-hmean-amean.html").as_uri(), wait_until="load")
    assert page.get_by_role("link", name="all pages of the report").is_visible()
