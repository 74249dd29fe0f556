"""Talk mode as a presenter meets it, at 1280x720 with no network: the command ``make slides`` runs
(``kwb present``) starts the lab, the URL it prints opens the deck, every slide of every thread's deck lies
within the screen (what scrolls was meant to and says so), the presenter's keys run the cells and step to the
explorer, whose knob redraws its chart, and the static reveal.js decks (``make slides-html``) open from disk.

One server for the module.  Each deck is measured in one page evaluation that steps through it with the
slideshow's own command (``deck:go``, what Space runs) and measures every slide; keys are pressed where the
keys themselves are what is tested (Space steps, Ctrl+Shift+Enter runs every cell, Shift+Enter stays).

``KWB_SCREENSHOTS=docs/screenshots`` also saves the first slide of every deck.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest
from conftest import JS_READY, ROOT, NotebookPage, _free_port, browser_missing, stop

from kernel_workbook.cli_present import export_slides, find_notebook, thread_notebooks, write_deck
from kernel_workbook.decks import TAG_SCROLLS

SHOTS = os.environ.get("KWB_SCREENSHOTS")
PRESENTING = "body[data-jp-deck-mode='presenting'] .jp-Cell.jp-deck-mod-onscreen"
# what the front end says when a plugin or the widget manager cannot load (RISE's deck said all three)
BROKEN = re.compile(r"failed to activate|Shared module .* doesn't exist|Maximum call stack|Failed to create module")

# The cells on screen now: their indices, and the slide's extent.
JS_ON_SCREEN = """() => { const nb = window.jupyterapp.shell.currentWidget.content;
  const on = nb.widgets.filter(c => c.node.classList.contains('jp-deck-mod-onscreen'));
  return on.map(c => nb.widgets.indexOf(c)).join(','); }"""

# Every cell has run in this kernel: the setup cell printed the talk's mode, none is queued or running.
JS_RAN = """() => { const w = window.jupyterapp.shell.currentWidget; const cells = w.content.widgets;
  const setup = cells.find(c => c.model.type === 'code' && c.model.sharedModel.getSource().includes('config.setup('));
  return w.sessionContext.session.kernel.status === 'idle'
    && JSON.stringify(setup.model.outputs.toJSON()).includes('WORKBOOK_MODE=slides')
    && cells.every(c => c.model.type !== 'code' || c.model.executionCount !== null); }"""

# A live chart drawn dark: its background (the SVG's own, as Vega draws it) dark, its labels light.
JS_DARK_CHART = """(sel) => { const g = document.querySelector(sel); const t = g && g.querySelector('text'); if (!t) return false;
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const bg = rgb(getComputedStyle(g).backgroundColor), fg = rgb(getComputedStyle(t).fill);
  return bg.length === 3 && fg.length === 3 && bg.every(v => v < 60) && fg.every(v => v > 180); }"""

# Every slide of the open deck, stepped with the slideshow's own command and measured: where its cells lie,
# what is wider than the screen, each part that scrolls (its cue showing? its cell tagged as meant to
# scroll?), printed lines the page wraps, and folded code that shows its text.
JS_SLIDES = """async (tag) => {
  const app = window.jupyterapp; const nb = app.shell.currentWidget.content;
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const meter = document.createElement('span'); meter.style.cssText = 'position:absolute;visibility:hidden;white-space:pre';
  meter.textContent = 'x'.repeat(100); document.body.appendChild(meter);
  const measure = (on, key) => {
    const s = {cells: key, top: 1e9, bottom: -1e9, right: 0, scrolls: [], uncued: [], unplanned: [], wrapped: [],
               clipped: [], code_text: 0};
    for (const c of on) {
      const i = nb.widgets.indexOf(c), r = c.node.getBoundingClientRect();
      s.top = Math.min(s.top, r.top); s.bottom = Math.max(s.bottom, r.bottom);
      c.node.querySelectorAll('svg, img, canvas, .widget-box, pre, table').forEach(e => {
        const b = e.getBoundingClientRect(); if (b.width) s.right = Math.max(s.right, b.right); });
      c.node.querySelectorAll('.jp-OutputArea').forEach(e => { if (e.scrollWidth > e.clientWidth + 1) s.clipped.push(i); });
      c.node.querySelectorAll('.jp-OutputArea, .jp-InputArea').forEach(e => {
        if (e.scrollHeight <= e.clientHeight + 1 || getComputedStyle(e).overflowY !== 'auto') return;
        s.scrolls.push(i + ': ' + e.scrollHeight + ' px in ' + e.clientHeight);
        if (Number(getComputedStyle(e, '::after').opacity) < 0.5) s.uncued.push(i);
        if (!(c.model.getMetadata('tags') || []).includes(tag)) s.unplanned.push(i); });
      c.node.querySelectorAll('.jp-PlaceholderText').forEach(e => { if (e.offsetParent) s.code_text++; });
      c.node.querySelectorAll('.jp-OutputArea-output pre').forEach(p => {
        if (!p.offsetParent) return;
        meter.style.font = getComputedStyle(p).font;
        const cap = Math.floor(p.clientWidth / (meter.getBoundingClientRect().width / 100));
        p.textContent.split('\\n').forEach(l => { if (l.length > cap) s.wrapped.push(i + ': ' + l.slice(0, 50)); }); });
    }
    return s; };
  const out = []; const seen = new Set();
  nb.activeCellIndex = 0; await frame();
  for (let n = 0; n < 500; n++) {
    const on = nb.widgets.filter(c => c.node.classList.contains('jp-deck-mod-onscreen'));
    const key = on.map(c => nb.widgets.indexOf(c)).join(',');
    if (!seen.has(key)) {
      seen.add(key);
      let s = measure(on, key);
      if (s.bottom > 721 || s.uncued.length || s.unplanned.length) {  // a slide still settling: look again
        await new Promise(r => setTimeout(r, 400)); s = measure(on, key);
      }
      out.push(s);
    }
    const before = nb.activeCellIndex;
    await app.commands.execute('deck:go', {direction: 'down', alternate: 'forward'});
    await frame();
    if (nb.activeCellIndex === before) {  // the end, or a deck still starting: once more to be sure
      await new Promise(r => setTimeout(r, 500));
      await app.commands.execute('deck:go', {direction: 'down', alternate: 'forward'});
      await frame();
      if (nb.activeCellIndex === before) break;
    }
  }
  meter.remove();
  nb.activeCellIndex = 0; await frame();
  return out; }"""


class Talk:
    """``kwb present`` as ``make slides`` runs it, on a free localhost port; ``url`` is the URL it printed.
    (``expose_app_in_browser``: the tests read the deck through the lab's own objects.)"""

    def __init__(self, tmp: Path, thread: str = "00-start-here"):
        self.dir = tmp / "lab"
        self.port = _free_port()
        env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"), "IPYTHONDIR": str(tmp / "ipython")}
        self.log = tmp / "present.log"
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "kwb"), "present", thread, "--dir", str(self.dir), "--no-browser",
             "--port", str(self.port), "--lab-arg=--ServerApp.ip=127.0.0.1", "--lab-arg=--ServerApp.port_retries=0",
             "--lab-arg=--LabApp.expose_app_in_browser=True"],
            env=env, stdout=open(self.log, "wb"), stderr=subprocess.STDOUT)
        self.url = None
        for _ in range(240):
            m = re.search(rf"http://127\.0\.0\.1:{self.port}/\S+\?token=\w+", self.log.read_text(errors="replace"))
            if m:
                self.url = m.group(0)
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.5)
        if self.url is None:
            self.close()
            pytest.fail("kwb present printed no URL within 120 s:\n" + self.log.read_text(errors="replace")[-3000:])
        self.token = urllib.parse.parse_qs(urllib.parse.urlsplit(self.url).query)["token"][0]

    def deck_url(self, deck: Path) -> str:
        # reset: the lab opens this deck alone, not the decks opened before it in this server's workspace
        return f"http://127.0.0.1:{self.port}/lab/tree/slides/{urllib.parse.quote(deck.name)}?reset&token={self.token}"

    def close(self):
        stop(self.proc)  # kwb present is the lab itself (it execs it): the server and its kernels stop


@pytest.fixture(scope="module")
def talk(tmp_path_factory):
    why = browser_missing()
    if why:
        pytest.skip(why)
    t = Talk(tmp_path_factory.mktemp("talk"))
    yield t
    t.close()


def open_deck(page, url: str) -> None:
    """Open the deck at ``url`` and wait until it is the deck shown, in deck mode."""
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector(PRESENTING, timeout=180_000)
    shown(page, urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1]))


def switch_deck(page, deck: Path) -> None:
    """Open another deck in the same page, as the lab's File > Open does, closing the one shown (a page load
    per deck took 5-8 s of the lab's start-up)."""
    page.evaluate("async (p) => { const app = window.jupyterapp; const old = app.shell.currentWidget;"
                  "  await app.commands.execute('docmanager:open', {path: p}); old.dispose(); }", f"slides/{deck.name}")
    shown(page, deck.name)


def shown(page, name: str) -> None:
    page.wait_for_function("(n) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                           "  return w && w.context && w.context.path.endsWith(n) && w.node.classList.contains('jp-Deck')"
                           "    && w.content.widgets.some(c => c.node.classList.contains('jp-deck-mod-onscreen')); }",
                           arg=name, timeout=60_000)
    # and laid out: the slide starts at the top of the screen, drawn (the deck has settled after opening)
    page.wait_for_function("(sel) => { const c = document.querySelector(sel); const r = c && c.getBoundingClientRect();"
                           "  return r && r.top < 60 && r.height > 10; }", arg=PRESENTING, timeout=30_000)


def marks(deck: Path) -> int:
    """The slides and sub-slides the deck file marks (the first cell always starts one)."""
    cells = json.loads(deck.read_text())["cells"]
    return 1 + sum(c.get("metadata", {}).get("slideshow", {}).get("slide_type") in ("slide", "subslide")
                   for c in cells[1:])


# Known defects: slides of the committed outputs that a presenter meets wrong today, each by its deck, slide and
# kind.  They are listed, not hidden: any other slide with a problem fails, and a listed one that is fixed must
# leave this list.  None left (issue 33 fixed the last: 2015's calibration notes, once printed as one block of
# aligned rows whose comments ran to 171-668 characters, are tables with a reasons column; the explorer's caption
# is prose; before them the four tables wider than a slide, the mmtests tables drawn at the prose's 18 px, and
# the static decks' wide tables).
KNOWN_DECK_DEFECTS: tuple[str, ...] = ()


def _unknown(problems: list[str]) -> list[str]:
    """The problems not on the known list."""
    return [p for p in problems if not p.startswith(KNOWN_DECK_DEFECTS)]


def check_slides(name: str, slides: list[dict]) -> list[str]:
    """What a presenter would see wrong on these slides, one line each."""
    bad = []
    for n, s in enumerate(slides):
        where = f"{name} slide {n + 1} (cells {s['cells']})"
        if s["top"] < -1 or s["bottom"] > 721:
            bad.append(f"{where}: spans {s['top']:.0f}..{s['bottom']:.0f} px of 720")
        if s["right"] > 1281:
            bad.append(f"{where}: drawn to x={s['right']:.0f}, wider than 1280")
        if s["clipped"]:
            bad.append(f"{where}: an output wider than its slide, cut at the right (cells {s['clipped']})")
        if s["uncued"]:
            bad.append(f"{where}: scrolls with no 'more below' cue: {s['scrolls']}")
        if s["unplanned"]:
            bad.append(f"{where}: scrolls though the deck planned it to fit (cells {s['unplanned']}): {s['scrolls']}")
        if s["wrapped"]:
            bad.append(f"{where}: printed lines wrap: {s['wrapped'][:2]}")
        if s["code_text"]:
            bad.append(f"{where}: folded code shows its text")
    return bad


def test_printed_url_opens_the_deck(page, talk):
    """The URL ``make slides`` prints lands on the deck (it showed the lab's last notebook), styled for the
    projector, and the front end loads whole: no plugin or widget manager failing (RISE's deck could not
    load ipywidgets')."""
    assert "/lab/tree/slides/00-start-here.ipynb" in talk.url
    open_deck(page, talk.url)
    assert page.evaluate(JS_ON_SCREEN).split(",")[0] == "0"
    title = page.locator(f"{PRESENTING} h1").first
    assert title.is_visible() and "Kernel Heuristics Workbook" in title.inner_text()
    prose = page.locator(f"{PRESENTING} .jp-RenderedMarkdown p").first
    assert prose.evaluate("p => getComputedStyle(p).fontSize") == "18px"  # the deck's stylesheet is served
    broken = [e for e in page.watch.errors if BROKEN.search(e)]
    assert not broken, broken[:5]


def test_every_deck_fits_the_screen(page, talk):
    """Every slide of every thread's deck (the committed outputs, as the deck opens) lies within 1280x720: the
    RISE deck had slides up to 9,318 px tall.  A part taller than its room scrolls only where the deck meant it
    to (a table or chart taller than the screen on its own) and shows its "more below" cue; no printed line
    wraps; folded code shows no text.  The slides met are all the deck marks.  Space steps as the command does."""
    problems, counts = [], {}
    for n, src in enumerate([find_notebook("00-start-here"), *thread_notebooks()]):
        deck = write_deck(src, talk.dir / "slides")
        if n:
            switch_deck(page, deck)
        else:
            open_deck(page, talk.deck_url(deck))
        if SHOTS:
            page.screenshot(path=str(ROOT / SHOTS / f"{src.stem}-slides.png"))
        stepped = []
        if src.stem == "00-start-here":  # the presenter's key first (the deck then remembers where it was)
            page.locator(PRESENTING).first.click()
            for _ in range(12):  # within a slide Space first moves from cell to cell, unseen
                page.keyboard.press("Space")
                page.wait_for_timeout(100)
                if page.evaluate(JS_ON_SCREEN) not in stepped[-1:]:
                    stepped.append(page.evaluate(JS_ON_SCREEN))
            assert len(stepped) > 3, stepped
        slides = page.evaluate(JS_SLIDES, TAG_SCROLLS)
        counts[src.stem] = len(slides)
        assert len(slides) == marks(deck), (src.stem, len(slides), marks(deck))
        assert stepped == [s["cells"] for s in slides[:len(stepped)]], (stepped, slides[:6])
        problems += check_slides(src.stem, slides)
    page.evaluate("() => window.jupyterapp.serviceManager.sessions.shutdownAll()")
    assert all(n > 5 for n in counts.values()), counts
    problems = _unknown(problems)
    assert not problems, "\n".join(problems)


def test_a_knob_turns_inside_the_deck(page, talk):
    """What a presenter does: open the deck, Ctrl+Shift+Enter (every cell runs, the title slide then shows the
    mode line), Space to the table explorer, pick the next table: the chart redraws.  The explorer, at the
    slides' size (charts 900 wide, big fonts), fits 1280 px; every slide still fits once the cells have run;
    Shift+Enter reruns a cell without leaving its slide (the lab's would go to the next cell's slide)."""
    open_deck(page, talk.url)
    page.wait_for_function(JS_READY, timeout=120_000, polling=500)
    page.locator(PRESENTING).first.click()
    page.keyboard.press("Control+Shift+Enter")
    # done: the setup cell printed this kernel's mode (the committed output says ci), no cell queued or running
    page.wait_for_function(JS_RAN, timeout=300_000, polling=500)
    assert page.evaluate(JS_ON_SCREEN).split(",")[0] == "0", "Run All left the title slide"
    assert "WORKBOOK_MODE=slides" in page.locator(PRESENTING).last.inner_text()  # the title slide shows it
    menu = page.locator(f"{PRESENTING} .widget-dropdown select")
    for _ in range(20):
        if menu.count():
            break
        page.keyboard.press("Space")
        page.wait_for_timeout(200)
    assert menu.count(), "no explorer's menu on any slide"
    nbp = NotebookPage.__new__(NotebookPage)  # the deck already open: its page helpers, without opening again
    nbp.page, nbp.lab, nbp.path = page, None, "slides/00-start-here.ipynb"
    cell = int(page.evaluate(JS_ON_SCREEN).split(",")[-1])
    nbp.wait_charts()
    lay = nbp.assert_seen_whole(nbp.mark(cell))
    assert lay["charts"] and max(c["width"] for c in lay["charts"]) > 600  # the slides' size, not the lab's
    chart = page.locator(f"{PRESENTING} .vega-embed svg").first
    before = chart.inner_html()
    sel = menu.first
    options = sel.locator("option").all_inner_texts()
    sel.select_option(label=options[(sel.evaluate("s => s.selectedIndex") + 1) % len(options)])
    page.wait_for_function("([sel, b]) => { const g = document.querySelector(sel); return g && g.innerHTML !== b; }",
                           arg=[f"{PRESENTING} .vega-embed svg", before], timeout=120_000)
    # the live chart follows the lab's theme: dark background and light labels in JupyterLab Dark
    page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Dark'})")
    page.wait_for_function(JS_DARK_CHART, arg=f"{PRESENTING} .vega-embed svg", timeout=30_000)
    # Shift+Enter on the explorer's cell: it runs again, the slide stays
    shown = page.evaluate(JS_ON_SCREEN)
    count = page.evaluate("(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.executionCount", cell)
    page.evaluate("(i) => { window.jupyterapp.shell.currentWidget.content.activeCellIndex = i; }", cell)
    page.keyboard.press("Shift+Enter")
    page.wait_for_function("([i, n]) => { const w = window.jupyterapp.shell.currentWidget;"
                           " return w.content.widgets[i].model.executionCount > n && w.sessionContext.session.kernel.status === 'idle'; }",
                           arg=[cell, count], timeout=120_000)
    assert page.evaluate(JS_ON_SCREEN) == shown
    problems = check_slides("00-start-here (run)", page.evaluate(JS_SLIDES, TAG_SCROLLS))
    problems = _unknown(problems)
    assert not problems, "\n".join(problems)
    broken = [e for e in page.watch.errors if BROKEN.search(e) or "Error setting state" in e]
    assert not broken, broken[:5]


# Every slide of a reveal.js deck, shown by Reveal's own API and measured: its frame, whether it scrolls, its
# cue, whether the deck meant it to scroll (a cell tagged so), and what is drawn wider than the frame.
JS_REVEAL = """async (tag) => {
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const out = [];
  for (const slide of Reveal.getSlides()) {
    const {h, v} = Reveal.getIndices(slide);
    Reveal.slide(h, v); await frame();
    const r = slide.getBoundingClientRect();
    const s = {h, v, top: r.top, bottom: r.bottom, left: r.left, right: r.right,
               scrolls: slide.scrollHeight > slide.clientHeight + 1, cue: Number(getComputedStyle(slide, '::after').opacity),
               planned: !!slide.querySelector('.celltag_' + tag), wide: 0};
    slide.querySelectorAll('svg, img, pre, table').forEach(e => { const b = e.getBoundingClientRect(); if (b.width) s.wide = Math.max(s.wide, b.right); });
    out.push(s);
  }
  Reveal.slide(0, 0); await frame();
  return out; }"""


def test_static_decks_are_reveal_decks_offline(page, tmp_path):
    """``make slides-html``: one reveal.js deck per thread that opens from disk with no network (page fixture:
    any request off the machine fails); every slide within the 1280x720 frame, printed tables split into pages
    and tall charts drawn smaller, so that a slide scrolls only where the deck meant it to, with its cue (27 of
    136 slides scrolled, and it was one page of 23,551 px for 2015 before that).  Space turns the page."""
    problems, scrolling, total = [], 0, 0
    for src in thread_notebooks():
        target = export_slides(src, tmp_path)
        assert target.name == f"{src.stem}.slides.html"
        page.goto(target.as_uri(), wait_until="load")
        page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=20_000)
        slides = page.evaluate(JS_REVEAL, TAG_SCROLLS)
        assert len(slides) > 5, (src.stem, len(slides))
        total += len(slides)
        for s in slides:
            where = f"{src.stem} slide {s['h']}.{s['v']}"
            if s["top"] < -1 or s["bottom"] > 721 or s["left"] < -1 or s["right"] > 1281 or s["wide"] > 1281:
                problems.append(f"{where}: outside the frame: {s}")
            if s["scrolls"]:
                scrolling += 1
                if not s["planned"] or s["cue"] < 0.5:
                    problems.append(f"{where}: scrolls (planned: {s['planned']}, cue: {s['cue']})")
        page.keyboard.press("Space")
        assert page.evaluate("() => Reveal.getIndices().h + Reveal.getIndices().v") == 1, src.stem
    problems = _unknown(problems)
    assert not problems, "\n".join(problems)
    # Each scrolling slide was planned and cued (above).  18 of 147 scrolled once the tables became HTML; since the
    # static deck pages tall tables, lists and a reproduction's blocks, 1 of 217 does (2012's 20 knobs, whose
    # kernel sources wrap: taller than the deck's estimate of a row): the count may fall, never grow past 2.
    assert scrolling <= 2, f"{scrolling} of {total} static slides scroll"
