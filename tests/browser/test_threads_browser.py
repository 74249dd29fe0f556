"""Every thread notebook in the lab (and the sensitivity study): its committed outputs render, and its explorer, run live, fits 1280x720,
has sliders a person can drag (every track >= 150 px; a drag of a third of the track moves the value by a
third of its range), and redraws when a knob moves, its status saying how long that took as the test saw it.  (Running a whole thread notebook takes minutes; the nbval run of
``make test`` executes every cell, so here only the explorer runs, with its defaults.)
``KWB_SCREENSHOTS=DIR`` also saves what the 1280x720 window shows of each explorer after its knob moved
(its top and its end: ``DIR/<notebook>-explorer.png``, ``-explorer-end.png``)."""

from __future__ import annotations

import json
import os
import re

import pytest
from conftest import ARTIFACTS, ROOT, NotebookPage, drag_first_slider, make_lab, slider_tracks, timed_knob

from kernel_workbook.nbtools import trust

SHOTS = os.environ.get("KWB_SCREENSHOTS")
DRAG_STEPS = 3  # a slider dragged, not stepped: a setting several notches from the one shown
READ_MS = 6000  # how long a person reads a redrawn chart before the next click (a presenter talks meanwhile)
THREADS = sorted(p.name for p in (ROOT / "notebooks").glob("20*.ipynb"))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    lab = make_lab(tmp_path_factory, "lab")
    yield lab
    lab.close()


def explorer_call(nb: dict) -> str:
    """The notebook's own explorer, imported as it imports it (``from m import x_explorer``, or a module under an
    alias, ``from p import m as a`` ... ``a.x_explorer(...)``) and called with its defaults."""
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    aliases = {a: f"{p}.{m}" for src in code for p, m, a in re.findall(r"^from (\S+) import (\w+) as (\w+)$", src, re.M)}
    for src in code:
        m = re.search(r"^from (\S+) import [^\n]*\b(\w+_explorer)\b", src, re.M)
        if m and f"{m.group(2)}(" in src:
            return f"from {m.group(1)} import {m.group(2)}\n\n{m.group(2)}()"
        m = re.search(r"^(\w+)\.(\w+_explorer)\(", src, re.M)
        if m and m.group(1) in aliases:
            return f"from {aliases[m.group(1)]} import {m.group(2)}\n\n{m.group(2)}()"
    return None


def test_every_thread_with_an_explorer_is_driven():
    """The five threads' notebooks that build an explorer are the ones this test drives (2007 and 2012 call theirs
    through a module alias and were once passed over as "a thread without an explorer")."""
    found = {name for name in THREADS
             if explorer_call(json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8")))}
    assert {n for n in THREADS if n.startswith(("2007", "2011", "2012", "2014", "2015"))} <= found


def _record(name: str, file: str, what: dict) -> None:
    """Merge ``what`` under ``name`` into ``build/browser-artifacts/<file>`` (figures a timed or visual check
    reports rather than asserts)."""

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    f = ARTIFACTS / file
    got = json.loads(f.read_text()) if f.exists() else {}
    got.setdefault(name, {}).update(what)
    f.write_text(json.dumps(got, indent=1))


def _record_redraw(name: str, what: str, seen: float, printed: float, nbp=None, cell=None) -> None:
    # with the part the kernel took (the status's data-kernel): the rest is the message, the chart's update
    # in the browser and the queue in front of either
    kernel = None if nbp is None else nbp.page.evaluate(
        "(s) => { const x = document.querySelector(s).querySelector('.kwb-status .kwb-drawn');"
        " return x ? parseFloat(x.dataset.kernel) : null; }", nbp.mark(cell))
    _record(name, "redraw-times.json", {what: {"seen_ms": seen, "status_ms": printed, "kernel_ms": kernel}})


def _committed_outputs_fit(nbp, page, name: str, path) -> None:
    """The committed (CI-mode) outputs of a notebook as a person opening it sees them: no error, its charts
    drawn, no prose wrapped into fragments, and every table whole at 1280 px with the file browser closed."""
    assert nbp.errors() == []
    page.wait_for_selector(".jp-OutputArea .jp-RenderedSVG, .jp-OutputArea .jp-RenderedImage", state="attached",
                           timeout=60_000)
    shown = page.evaluate("""() => [...document.querySelectorAll('.jp-OutputArea .jp-RenderedSVG, .jp-OutputArea .jp-RenderedImage')]
        .map(e => e.querySelector('img, svg')).filter(g => g && g.getBoundingClientRect().width > 0).length""")
    assert shown > 0, f"{name}: no committed chart shown"
    # prose is Markdown since issue 33 (the lab wraps it at its spaces); what stays preformatted must not be
    # wrapped into fragments: aligned lines with the file browser open, every line with it closed (below).
    # (The narrowest <pre> is no longer held to textfit.WIDTH: no prose is laid out to it any more.)
    text = nbp.text_fit()
    assert not text["wrapped"], f"{name}: prose wrapped at 1280x720: {text['wrapped'][:4]}"
    if SHOTS:  # the reproduction as a person reads it: its first table (published beside model) at 1280x720
        page.evaluate("""() => { const t = document.querySelector('.kwb-block .kwb-table, .kwb-table');
            if (t) t.scrollIntoView({block: 'start'}); }""")
        page.screenshot(path=str(ROOT / SHOTS / f"{path.stem}-table.png"))
    # the tables, HTML since issue 33: beside the file browser a wide one scrolls sideways in its output area
    # (recorded); with the file browser closed, as a presenter shows them, each fits but the known wide ones
    cut_open = nbp.layout()["cut_tables"]
    nbp.toggle_left_area()  # a presenter closes the file browser: then the mmtests tables fit too
    text = nbp.text_fit(tables=True)
    cut_closed = nbp.layout()["cut_tables"]
    nbp.toggle_left_area()
    _record(name, "cut-tables.json", {"file browser open": cut_open, "file browser closed": cut_closed})
    # (issue 33: 2007's runs were 1,783 px and its variants 1,538, 2012's counters 1,567 and its GFP-flags frame
    # 1,421, 2014a's presets 1,148 and other machines 1,143 in 1,100 px; a table's headers now break after their
    # underscores and its labels between words: every one fits)
    assert not cut_closed, f"{name}: tables cut at 1280 px with the file browser closed: {cut_closed[:4]}"
    assert not text["wrapped"], f"{name}: wrapped at 1280x720 with the file browser closed: {text['wrapped'][:4]}"


def test_the_sensitivity_study_as_committed(page, lab):
    """The study notebook (issue 34 moved its sweeps into ui.sensitivity_charts): opened as a person opens it,
    its committed tables and charts fit 1280x720.  (Its sweeps run under nbval in make test.)"""
    name = "sensitivity.ipynb"
    nbp = NotebookPage(page, lab, f"notebooks/{name}")
    _committed_outputs_fit(nbp, page, name, lab.dir / "notebooks" / name)


@pytest.mark.parametrize("name", THREADS)
def test_thread_notebook_and_its_explorer(page, lab, name):
    path = lab.dir / "notebooks" / name
    nb = json.loads(path.read_text())
    call = explorer_call(nb)
    if call:
        nb["cells"].append({"cell_type": "code", "id": "kwb-browser-explorer", "execution_count": None, "metadata": {}, "outputs": [],
                            "source": call})
        path.write_text(json.dumps(nb))
        path.with_suffix(".py").unlink()  # else jupytext refuses the .ipynb, now newer than its pair
        trust(path)  # signed again, as the workspace signs it: the lab shows an untrusted notebook's SVGs blank
    nbp = NotebookPage(page, lab, f"notebooks/{name}")
    _committed_outputs_fit(nbp, page, name, path)
    if not call:
        return  # a thread without an explorer (yet): its committed outputs are what a person sees
    # the explorer, live
    nbp.run(nbp.index_of(r"config\.setup\(\)"), timeout_s=120)
    last = len(nbp.cells()) - 1
    nbp.run(last, timeout_s=400)
    assert nbp.errors() == []
    nbp.wait_charts()
    lay = nbp.assert_seen_whole(nbp.mark(last))
    assert lay["charts"], f"{name}: the explorer drew no chart"
    tracks = slider_tracks(nbp, last)
    assert tracks and all(t["track"] >= 150 for t in tracks), f"{name}: slider tracks under 150 px: {tracks}"
    d = drag_first_slider(nbp, last)
    if d["min"] is not None:
        want = min(d["max"], d["before"] + (d["max"] - d["min"]) / 3)
        slack = max(d["step"] or 0, 0.07 * (d["max"] - d["min"]))
        assert abs(d["after"] - want) <= slack, f"{name}: a drag of a third of the track: {d}, expected ~{want}"
    # a slider one step: a model run, the chart redrawn (issue 33: under 100 ms as a person waits; timed tests
    # fail on a busy machine, so the figure is printed and written to build/browser-artifacts/redraw-times.json,
    # and asserted only with KWB_STRICT_TIMING=1)
    _, seen_s, printed_s = timed_knob(nbp, last, timeout_s=300, slider=True)
    _record_redraw(name, "slider one step", seen_s, printed_s, nbp, last)
    if seen_s is not None:  # (2014a: one step of cfq_target_latency may leave the chart as it was)
        assert abs(printed_s - seen_s) <= max(600, 0.25 * seen_s), f"{name}: slider: saw {seen_s} ms, status {printed_s} ms"
    if os.environ.get("KWB_STRICT_TIMING") == "1":
        assert printed_s < 100, f"{name}: a slider step redrawn in {printed_s} ms"
    what, seen, printed = timed_knob(nbp, last, timeout_s=300)
    _record_redraw(name, what, seen, printed, nbp, last)
    # the explorer's own figure is what the person waited: the change to the chart drawn (issue 33: it printed
    # 128 ms for a 10.7 s wait)
    assert seen is not None, f"{name}: {what}: the chart drew the same picture"
    assert abs(printed - seen) <= max(600, 0.25 * seen), f"{name}: {what}: saw {seen} ms, status says {printed} ms"
    assert nbp.errors() == [], what
    # the same kind of change after the person has read the chart for a while, as a presenter talks between
    # clicks: the explorer has run the settings one click away meanwhile (ui.explorer.Runs), so this is the wait
    # a person usually sees; recorded beside the change made at once
    page.wait_for_timeout(READ_MS)
    what2, seen2, printed2 = timed_knob(nbp, last, timeout_s=300)
    _record_redraw(name, f"{what2} after {READ_MS // 1000} s looking", seen2, printed2, nbp, last)
    if seen2 is not None:
        assert abs(printed2 - seen2) <= max(600, 0.25 * seen2), f"{name}: {what2}: saw {seen2} ms, status {printed2} ms"
    assert nbp.errors() == [], what2
    # and a slider dragged several steps after looking again: an explorer whose fresh run misses 100 ms (2012)
    # makes every value ahead, nearest first (explorer(reach=None)); the others make the next notch only
    page.wait_for_timeout(READ_MS)
    what3, seen3, printed3 = timed_knob(nbp, last, timeout_s=300, drag_steps=DRAG_STEPS)
    _record_redraw(name, f"{what3} after {READ_MS // 1000} s looking", seen3, printed3, nbp, last)
    if seen3 is not None:
        assert abs(printed3 - seen3) <= max(600, 0.25 * seen3), f"{name}: {what3}: saw {seen3} ms, status {printed3} ms"
    assert nbp.errors() == [], what3
    nbp.assert_seen_whole(nbp.mark(last))
    if SHOTS:  # what a person sees at 1280x720: the explorer's top, then its end
        cell = nbp.mark(last)
        page.evaluate("(c) => document.querySelector(c).scrollIntoView({block: 'start'})", cell)
        page.screenshot(path=str(ROOT / SHOTS / f"{path.stem}-explorer.png"))
        page.evaluate("(c) => document.querySelector(c).scrollIntoView({block: 'end'})", cell)
        page.screenshot(path=str(ROOT / SHOTS / f"{path.stem}-explorer-end.png"))
    assert not page.watch.foreign, f"requests left localhost: {page.watch.foreign[:5]}"
