"""``make report`` opened as a reader opens it: from disk, with no network, at 1280x720.

The report of every notebook takes minutes to build; here ``build_report`` runs on a page made for the test
(the widgets a notebook leaves: a finished progress bar as tqdm draws it, a slider; two CI-mode charts) and
one exercise.
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
                    "w.IntSlider(value=3, description='knob')"),
                # the same chart twice, as two outputs with the same clip path id: the page must keep them apart
                nbformat.v4.new_code_cell(
                    "import altair as alt\nimport pandas as pd\nimport vl_convert as vlc\nfrom IPython.display import SVG\n"
                    "from kernel_workbook import config\n\nconfig.setup(verbose=False)\n"
                    "line = alt.Chart(pd.DataFrame({'x': [1, 2], 'y': [3, 4]})).mark_line(clip=True).encode(x='x:Q', y='y:Q')\n"
                    "svg = vlc.vegalite_to_svg(line.to_dict())\ndisplay(SVG(svg))\nSVG(svg)")]
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


# Each chart drawn in the page: its background and its first label's colour, and its clip paths' ids.
JS_CHARTS = """() => [...document.querySelectorAll('.jp-RenderedSVG svg')].map(s => ({
  background: getComputedStyle(s.querySelector('rect')).fill, text: getComputedStyle(s.querySelector('text')).fill,
  ids: [...s.querySelectorAll('[id]')].map(e => e.id)}))"""


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_charts_follow_the_readers_theme(page, report, scheme):
    """A reader in dark mode gets dark pages whose charts are dark too: they were white boxes (an SVG shown as
    an image sees none of the page's colours), and the pages stayed white under a dark index."""
    page.emulate_media(color_scheme=scheme)
    page.goto((report.parent / "widgets.html").as_uri(), wait_until="load")
    body = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    charts = page.evaluate(JS_CHARTS)
    assert len(charts) == 2
    dark = scheme == "dark"
    assert body == ("rgb(17, 17, 17)" if dark else "rgb(255, 255, 255)")
    for c in charts:
        assert c["background"] == body, c
        assert c["text"].startswith("rgba(255, 255, 255") == dark, c
    ids = [i for c in charts for i in c["ids"]]
    assert ids and len(ids) == len(set(ids))  # one page, two charts: no clip path borrowed from the other
