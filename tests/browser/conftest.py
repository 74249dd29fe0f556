"""What a person sees, in a real browser: JupyterLab driven in Debian's chromium through Playwright.

The lab runs as ``make lab`` runs it (a working copy made by ``nbtools.workspace``, offline flags,
a token, a free localhost port), in ``WORKBOOK_MODE=lab`` or ``slides``.  The browser is
``/usr/bin/chromium`` (``.ci/run`` installs it); Playwright's own browser download is never used.
Every request is routed: one to a host other than localhost fails the test.  A failing test leaves
a screenshot in ``build/browser-artifacts/``.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("KWB_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "build" / "browser-artifacts"
VIEWPORT = {"width": 1280, "height": 720}
SKIP_REASON = "BROWSER TESTS SKIPPED: "
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage"]

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None
    PlaywrightTimeout = TimeoutError


def browser_missing() -> str | None:
    if sync_playwright is None:
        return SKIP_REASON + "the playwright package is not installed (pip install -e '.[test]')"
    if not os.access(CHROMIUM, os.X_OK):
        return SKIP_REASON + f"{CHROMIUM} not found (apt-get install chromium; .ci/run does)"
    return None


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def stop(proc: subprocess.Popen) -> None:
    """Stop a server this test started: terminate, and kill if it has not gone in 15 s."""
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


class Lab:
    """A JupyterLab server on a working copy of the repository."""

    def __init__(self, tmp: Path, mode: str):
        from kernel_workbook.nbtools import workspace

        self.dir = tmp / "lab"
        workspace(self.dir)
        self.token = "kwb-browser-test"
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        settings = tmp / "settings"
        # every cell in the DOM (no virtual scrolling), so the tests can see every output
        (settings / "@jupyterlab" / "notebook-extension").mkdir(parents=True)
        (settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
            json.dumps({"windowingMode": "none"}))
        env = {**os.environ, "WORKBOOK_MODE": mode, "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
               "JUPYTER_CONFIG_DIR": str(tmp / "cfg"), "JUPYTERLAB_SETTINGS_DIR": str(settings),
               "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces"), "IPYTHONDIR": str(tmp / "ipython")}
        self.log = open(tmp / "lab.log", "wb")
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser",
             *(["--allow-root"] if os.geteuid() == 0 else []),
             "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
             "--LabApp.expose_app_in_browser=True", f"--ServerApp.port={self.port}", "--ServerApp.ip=127.0.0.1",
             "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}", "--ServerApp.root_dir=."],
            cwd=self.dir, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.logpath = tmp / "lab.log"
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{self.base}/api/status?token={self.token}", timeout=2)
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.5)
        self.close()
        pytest.fail("jupyter lab did not answer within 120 s:\n" + self.logpath.read_text(errors="replace")[-3000:])

    def url(self, path: str, app: str = "lab/tree") -> str:
        # reset: the lab opens this notebook alone, not the tabs an earlier test left open (their live
        # charts would render again in this page, and what they do would be blamed on this notebook)
        reset = "reset&" if app == "lab/tree" else ""
        return f"{self.base}/{app}/{urllib.parse.quote(path)}?{reset}token={self.token}"

    def close(self):
        stop(self.proc)
        self.log.close()


@pytest.fixture(scope="module")
def browser():
    why = browser_missing()
    if why:
        pytest.skip(why)
    pw = sync_playwright().start()
    b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    yield b
    b.close()
    pw.stop()


def make_lab(tmp_path_factory, mode: str):
    why = browser_missing()
    if why:
        pytest.skip(why)
    lab = Lab(tmp_path_factory.mktemp(f"lab-{mode}"), mode)
    return lab


class Watch:
    """What a page asked for and complained about."""

    def __init__(self):
        self.foreign: list[str] = []
        self.errors: list[str] = []

    def route(self, route):
        host = urllib.parse.urlsplit(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:", "file:")) or host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            self.foreign.append(route.request.url)
            route.abort()

    def console(self, msg):
        if msg.type == "error":
            self.errors.append(msg.text)


@pytest.fixture
def page(browser, request):
    ctx = browser.new_context(viewport=VIEWPORT)
    watch = Watch()
    ctx.route("**/*", watch.route)
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    pg.on("console", watch.console)
    pg.on("pageerror", lambda e: watch.errors.append(f"pageerror: {e}"))
    pg.watch = watch
    yield pg
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^\w.-]+", "_", request.node.nodeid.split("::")[-1])
        try:
            pg.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)
            (ARTIFACTS / f"{name}.console.txt").write_text("\n".join(watch.errors))
        except Exception:  # noqa: BLE001 - a screenshot must never hide the failure itself
            pass
    ctx.close()
    assert not watch.foreign, f"requests left localhost: {watch.foreign[:5]}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call":
        item.rep_call = rep


# --- the notebook as the page shows it -------------------------------------------------------

JS_READY = """() => { const app = window.jupyterapp; const w = app && app.shell.currentWidget;
  const k = w && w.context && w.context.sessionContext.session && w.context.sessionContext.session.kernel;
  return !!(k && k.status === 'idle' && w.content && w.content.widgets && w.content.widgets.length); }"""

JS_RUN = """async ([command, index, ms]) => { const app = window.jupyterapp; const w = app.shell.currentWidget;
  if (index !== null) { w.content.activeCellIndex = index; }
  const run = app.commands.execute(command);
  const late = new Promise((_, no) => setTimeout(() => no(new Error('cells still running after ' + ms + ' ms')), ms));
  return await Promise.race([run, late]); }"""

JS_CELLS = """() => window.jupyterapp.shell.currentWidget.content.widgets.map(
  c => ({type: c.model.type, source: c.model.sharedModel.getSource(),
         outputs: c.model.type === 'code' ? c.model.outputs.toJSON() : []}))"""

# Every chart, image and widget box in the notebook's outputs, measured where the page drew it.
JS_LAYOUT = """(root) => { const vw = window.innerWidth; const out = {charts: [], wide: [], cut_labels: [],
  cut_widgets: [], empty_embeds: 0};
  const scope = root ? document.querySelector(root) : document;
  const box = (e) => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, width: r.width}; };
  const name = (e) => { const c = e.closest('.jp-Cell'); const cells = [...document.querySelectorAll('.jp-Cell')];
    return 'cell ' + cells.indexOf(c); };
  scope.querySelectorAll('.vega-embed').forEach(e => {
    const g = e.querySelector('svg, canvas'); if (!g) { out.empty_embeds++; return; }
    const b = box(g); if (b.width === 0) return;   // a hidden tab
    out.charts.push({where: name(e), ...b, html: g.outerHTML.length});
    if (b.right > vw + 0.5 || b.left < -0.5) out.wide.push({where: name(e), what: 'chart', ...b});
    e.querySelectorAll('text').forEach(t => { if (t.textContent.endsWith('\u2026')) out.cut_labels.push(name(e) + ': ' + t.textContent); });
  });
  scope.querySelectorAll('.jp-OutputArea-output img, .jp-RenderedSVG svg, .jp-OutputArea-output > .widget-box, .jp-OutputArea-output > .jupyter-widgets').forEach(e => {
    const b = box(e); if (b.width === 0) return;
    if (b.right > vw + 0.5) out.wide.push({where: name(e), what: e.tagName + '.' + e.className, ...b});
  });
  // a table wider than its output area is cut (the area scrolls it sideways, or the window ends first)
  out.cut_tables = [];
  scope.querySelectorAll('.jp-OutputArea-output table').forEach(t => {
    const b = box(t); if (b.width === 0) return;
    const area = t.closest('.jp-OutputArea-output').getBoundingClientRect();
    if (b.right > Math.min(vw, area.right) + 0.5) out.cut_tables.push({where: name(t), width: Math.round(b.width),
      room: Math.round(Math.min(vw, area.right) - b.left), head: t.innerText.slice(0, 60)});
  });
  scope.querySelectorAll('.widget-label, .widget-label-basic, .widget-readout').forEach(e => {
    if (e.offsetParent && e.scrollWidth > e.clientWidth + 1) out.cut_widgets.push(name(e) + ': ' + e.textContent);
  });
  const m = document.createElement('span'); m.style.position = 'absolute'; m.style.visibility = 'hidden';
  m.style.whiteSpace = 'pre'; document.body.appendChild(m);
  scope.querySelectorAll('.widget-dropdown select').forEach(s => {
    if (!s.offsetParent || s.selectedIndex < 0) return;
    m.style.font = getComputedStyle(s).font; m.textContent = s.options[s.selectedIndex].text;
    if (m.offsetWidth > s.clientWidth - 14) out.cut_widgets.push(name(s) + ': ' + m.textContent);
  });
  m.remove();
  // controls laid side by side must not lie on one another (a menu wider than its grid column did)
  out.overlaps = [];
  scope.querySelectorAll('.widget-gridbox, .widget-hbox, .widget-vbox').forEach(c => {
    const kids = [...c.children].filter(k => k.offsetParent).map(k => [k, k.getBoundingClientRect()]);
    for (let i = 0; i < kids.length; i++) for (let j = i + 1; j < kids.length; j++) {
      const [a, ra] = kids[i], [b, rb] = kids[j];
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 1 && h > 1) out.overlaps.push(name(c) + ': ' + (a.textContent.trim().slice(0, 30) || a.className) +
                                           ' / ' + (b.textContent.trim().slice(0, 30) || b.className));
    }
  });
  return out; }"""


# Text outputs as the page lays them out: how many characters a line of the output area holds, and the
# lines the page has to wrap (``all`` false: lines of prose only, no run of 2+ spaces between fields).
JS_TEXT_FIT = """(all) => { const out = {cap: null, wrapped: []};
  const cells = [...document.querySelectorAll('.jp-Cell')];
  const m = document.createElement('span'); m.style.position = 'absolute'; m.style.visibility = 'hidden';
  m.style.whiteSpace = 'pre'; m.textContent = 'x'.repeat(100); document.body.appendChild(m);
  document.querySelectorAll('.jp-OutputArea-output pre').forEach(p => {
    if (!p.offsetParent || p.style.whiteSpace === 'pre-wrap') return;  // prose meant to wrap at its spaces
    m.style.font = getComputedStyle(p).font;
    const cap = Math.floor(p.clientWidth / (m.getBoundingClientRect().width / 100));
    out.cap = out.cap === null ? cap : Math.min(out.cap, cap);
    p.textContent.split('\\n').forEach(l => {
      if (l.length > cap && (all || !/\\S {2,}\\S/.test(l))) out.wrapped.push('cell ' + cells.indexOf(p.closest('.jp-Cell')) + ': ' + l.slice(0, 60)); });
  });
  m.remove(); return out; }"""


class NotebookPage:
    """One notebook open in the lab, driven through JupyterLab's own commands."""

    def __init__(self, page, lab: Lab, path: str):
        self.page, self.lab, self.path = page, lab, path
        page.goto(lab.url(path), wait_until="domcontentloaded")
        # a notebook without kernelspec metadata asks which kernel: the default, as a person would
        for _ in range(36):
            try:
                page.wait_for_function(JS_READY, timeout=5_000, polling=500)
                break
            except PlaywrightTimeout:
                accept = page.locator(".jp-Dialog .jp-mod-accept")
                if accept.count():
                    accept.first.click()
        else:
            raise AssertionError(f"{path}: the notebook and its kernel were not ready within 180 s")

    def run(self, index: int | None = None, timeout_s: float = 600) -> None:
        """Run all cells, or the cell at ``index``, and wait until the kernel is idle again."""
        cmd = "notebook:run-all-cells" if index is None else "notebook:run-cell"
        self.page.evaluate(JS_RUN, [cmd, index, int(timeout_s * 1000)])
        self.page.wait_for_function(JS_READY, timeout=int(timeout_s * 1000), polling=500)

    def cells(self) -> list[dict]:
        return self.page.evaluate(JS_CELLS)

    def index_of(self, pattern: str) -> int:
        for i, c in enumerate(self.cells()):
            if c["type"] == "code" and re.search(pattern, c["source"]):
                return i
        raise AssertionError(f"{self.path}: no code cell matches {pattern!r}")

    def set_source(self, index: int, source: str) -> None:
        """Type ``source`` into the cell at ``index`` (its whole text replaced, as a person retypes it)."""
        self.page.evaluate("([i, s]) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel"
                           ".setSource(s)", [index, source])

    def output_text(self, index: int) -> str:
        """What the page shows as the outputs of the cell at ``index``."""
        return self.page.locator(self.mark(index) + " .jp-OutputArea").inner_text()

    def mark(self, index: int) -> str:
        """A CSS selector for the cell at ``index`` (its node gets an id)."""
        self.page.evaluate("(i) => { window.jupyterapp.shell.currentWidget.content.widgets[i].node.id = 'kwb-cell-' + i; }",
                           index)
        return f"#kwb-cell-{index}"

    def errors(self) -> list[str]:
        """Error outputs of cells, tracebacks shown inside widgets, and the front end's widget errors."""
        found = []
        for i, c in enumerate(self.cells()):
            for o in c["outputs"]:
                if o.get("output_type") == "error":
                    found.append(f"{self.path} cell {i}: {o.get('ename')}: {o.get('evalue')}")
        for t in self.page.locator(".jp-OutputArea-output").all_inner_texts():
            if "Traceback (most recent call last)" in t or re.search(r"^\w+Error: ", t, re.M):
                found.append(f"{self.path} output: {t[:300]}")
        found += [e for e in self.page.watch.errors if re.search(r"Error setting state|Uncaught|Javascript Error", e)]
        return found

    def wait_charts(self, timeout_s: float = 120) -> None:
        """Until every .vega-embed has drawn its SVG or canvas."""
        self.page.wait_for_function(
            "() => [...document.querySelectorAll('.vega-embed')].every(e => e.querySelector('svg, canvas'))",
            timeout=int(timeout_s * 1000), polling=500)

    def text_fit(self, tables: bool = False) -> dict:
        """``cap``: characters per line of the narrowest text output; ``wrapped``: prose lines longer than
        that (``tables``: any line)."""
        return self.page.evaluate(JS_TEXT_FIT, tables)

    def toggle_left_area(self) -> None:
        """Close (or open) the file browser's side of the window, as Ctrl+B does."""
        self.page.evaluate("() => window.jupyterapp.commands.execute('application:toggle-left-area')")
        self.page.wait_for_timeout(500)

    def layout(self, root: str | None = None) -> dict:
        return self.page.evaluate(JS_LAYOUT, root)

    def assert_seen_whole(self, root: str | None = None) -> dict:
        lay = self.layout(root)
        assert lay["empty_embeds"] == 0, f"{self.path}: {lay['empty_embeds']} charts drew nothing"
        assert not lay["wide"], f"{self.path}: cut at 1280x720: {lay['wide'][:4]}"
        assert not lay["cut_labels"], f"{self.path}: chart labels cut: {lay['cut_labels'][:6]}"
        assert not lay["cut_widgets"], f"{self.path}: widget labels cut: {lay['cut_widgets'][:6]}"
        assert not lay["overlaps"], f"{self.path}: controls drawn over one another: {lay['overlaps'][:6]}"
        assert not lay["cut_tables"], f"{self.path}: tables cut at 1280 px: {lay['cut_tables'][:4]}"
        return lay


# Which knob to move: a menu to its next choice, else a box ticked, else a slider one step.
JS_CHART_STATE = """(i) => { const c = window.jupyterapp.shell.currentWidget.content.widgets[i].node;
  return [...c.querySelectorAll('.jp-OutputArea .vega-embed svg, .jp-OutputArea .vega-embed canvas')]
    .map(g => g.tagName === 'canvas' ? g.toDataURL() : g.outerHTML).join('|'); }"""


def move_a_knob(nbp: NotebookPage, cell: int, timeout_s: float = 180) -> str:
    """Change one widget of the explorer in ``cell``; returns what was changed once its chart changed."""
    page = nbp.page
    cell_loc = page.locator(nbp.mark(cell))
    page.wait_for_function(f"() => ({JS_CHART_STATE})({cell}).length > 0", timeout=int(timeout_s * 1000),
                           polling=500)
    before = page.evaluate(JS_CHART_STATE, cell)
    selects = cell_loc.locator(".widget-dropdown select")
    boxes = cell_loc.locator(".widget-checkbox input[type=checkbox]")
    if selects.count():
        sel = selects.first
        options = sel.locator("option").all_inner_texts()
        now = sel.evaluate("s => s.selectedIndex")
        choice = options[(now + 1) % len(options)]
        sel.select_option(label=choice)
        what = f"menu -> {choice!r}"
    elif boxes.count():
        boxes.first.click()
        what = "checkbox"
    else:
        handle = cell_loc.locator(".noUi-handle").first
        handle.focus()
        for _ in range(3):
            handle.press("ArrowRight")
        what = "slider"
    page.wait_for_function(f"(b) => ({JS_CHART_STATE})({cell}) !== b", arg=before,
                           timeout=int(timeout_s * 1000), polling=500)
    return what


# Every slider of a cell's explorer as the page lays it out: its label, the width of its track (px).
JS_SLIDERS = """(sel) => [...document.querySelector(sel).querySelectorAll('.widget-slider, .jupyter-widget-slider')]
  .filter(e => e.offsetParent).map(e => {
    const lab = e.querySelector('.widget-label'); const track = e.querySelector('.slider-container, .noUi-target');
    return {label: lab ? lab.textContent : '', track: track ? Math.round(track.getBoundingClientRect().width) : 0}; })"""


def slider_tracks(nbp: NotebookPage, cell: int) -> list[dict]:
    """``[{label, track}]``: every visible slider of the explorer in ``cell``, its track's width in px."""
    return nbp.page.evaluate(JS_SLIDERS, nbp.mark(cell))


JS_REDRAWN = r"""(sel) => { const s = document.querySelector(sel).querySelector('.kwb-status .kwb-drawn');
  if (!s) return null; const m = s.textContent.match(/redrawn ([\d.]+) (ms|s) after your change/);
  return m ? parseFloat(m[1]) * (m[2] === 's' ? 1000 : 1) : null; }"""


def timed_knob(nbp: NotebookPage, cell: int, timeout_s: float = 300, slider: bool = False,
               drag_steps: int = 0) -> tuple[str, float, float]:
    """Change one widget of the explorer in ``cell`` (as :func:`move_a_knob`; ``slider``: its first slider one
    step, a model run; ``drag_steps``: its first slider dragged that many steps with the mouse, right or, near
    the end of its range, left), timing it as a person waits: ``(what, seen_ms, printed_ms)`` -- from the change
    to the chart seen changed (polled every 50 ms; None when the chart drew the same picture), and what the
    explorer's status line then says the redraw took."""
    page = nbp.page
    sel = nbp.mark(cell)
    page.evaluate(f"(s) => {{ const x = document.querySelector(s).querySelector('.kwb-status .kwb-drawn'); "
                  f"if (x) x.textContent = ''; }}", sel)  # the last redraw's time must not be read as this one's
    page.wait_for_function(f"() => ({JS_CHART_STATE})({cell}).length > 0", timeout=int(timeout_s * 1000), polling=200)
    before = page.evaluate(JS_CHART_STATE, cell)
    t0 = page.evaluate("() => Date.now()")
    cell_loc = page.locator(sel)
    sel_el = cell_loc.locator(".widget-dropdown select")
    if drag_steps:  # held until now: the person's wait starts as the button is released
        what, release = _drag_steps(nbp, cell, drag_steps)
        t0 = page.evaluate("() => Date.now()")
        release()
    elif sel_el.count() and not slider:
        s = sel_el.first
        options = s.locator("option").all_inner_texts()
        choice = options[(s.evaluate("x => x.selectedIndex") + 1) % len(options)]
        s.select_option(label=choice)
        what = f"menu -> {choice!r}"
    else:
        h = cell_loc.locator(".noUi-handle").first
        h.focus()
        h.press("ArrowRight")
        what = "slider"
    # the chart changed, or (a one-step change whose chart is the same: 2014a's cfq_target_latency 1050 -> 1100
    # ms) the status printed its redraw: the new figure is what the person then sees
    page.wait_for_function(f"(b) => ({JS_CHART_STATE})({cell}) !== b || ({JS_REDRAWN})({sel!r}) !== null",
                           arg=before, timeout=int(timeout_s * 1000), polling=50)
    seen = page.evaluate("() => Date.now()") - t0
    if page.evaluate(JS_CHART_STATE, cell) == before:
        seen = None  # nothing visible changed: the status's figure (after its 400 ms quiet wait) is the only one
    page.wait_for_function(f"() => ({JS_REDRAWN})({sel!r}) !== null", timeout=60_000, polling=100)
    return what, seen, page.evaluate(JS_REDRAWN, sel)


def _first_slider(nbp: NotebookPage, cell: int):
    """The explorer's first slider in ``cell``: ``(locator, track box, handle box)``."""
    loc = nbp.page.locator(nbp.mark(cell)).locator(".widget-slider, .jupyter-widget-slider").first
    return loc, loc.locator(".noUi-target").first.bounding_box(), loc.locator(".noUi-handle").first.bounding_box()


def _hold_and_move(page, handle: dict, dx: float, moves: int) -> None:
    """Press the mouse on ``handle``'s centre and move it ``dx`` px in ``moves`` steps, as a hand does; the button
    stays held (the caller releases it: a slider sends its value then)."""
    x0, y0 = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
    page.mouse.move(x0, y0)
    page.mouse.down()
    for k in range(1, moves + 1):
        page.mouse.move(x0 + dx * k / moves, y0)


def _drag_steps(nbp: NotebookPage, cell: int, steps: int):
    """Drag the first slider's handle ``steps`` steps with the mouse (right, or left near the range's end), the
    button still held: ``(what, release)``."""
    loc, track, handle = _first_slider(nbp, cell)
    r = loc.evaluate("""e => { const t = e.querySelector('.noUi-target'); const o = t.noUiSlider.options;
        return {min: o.range.min, max: o.range.max, step: o.step, value: parseFloat(t.noUiSlider.get())}; }""")
    sign = 1 if r["value"] + steps * r["step"] <= r["max"] else -1
    _hold_and_move(nbp.page, handle, sign * steps * r["step"] / (r["max"] - r["min"]) * track["width"], 5)
    return f"slider dragged {sign * steps:+d} steps", nbp.page.mouse.up


def drag_first_slider(nbp: NotebookPage, cell: int, fraction: float = 1 / 3) -> dict:
    """Drag the first slider's handle right by ``fraction`` of its track, as a mouse does; its readout before
    and after, its range and step (``{before, after, min, max, step, track}``)."""
    page = nbp.page
    loc, track, handle = _first_slider(nbp, cell)
    info = loc.evaluate("""e => { const t = e.querySelector('.noUi-target');
        const r = t && t.noUiSlider ? t.noUiSlider.options.range : null;
        const ro = e.querySelector('.widget-readout');
        return {before: parseFloat(ro.value !== undefined && ro.value !== '' ? ro.value : ro.textContent),
                min: r ? r.min : null, max: r ? r.max : null,
                step: t && t.noUiSlider ? t.noUiSlider.options.step : null}; }""")
    sel = nbp.mark(cell)
    page.evaluate("(s) => { const x = document.querySelector(s).querySelector('.kwb-status .kwb-drawn'); "
                  "if (x) x.textContent = ''; }", sel)
    _hold_and_move(page, handle, fraction * track["width"], 10)
    page.mouse.up()
    try:  # the redraw the drag started, before anything else is timed
        page.wait_for_function(f"() => ({JS_REDRAWN})({sel!r}) !== null", timeout=300_000, polling=200)
    except PlaywrightTimeout:
        pass
    info["after"] = loc.evaluate("""e => { const ro = e.querySelector('.widget-readout');
        return parseFloat(ro.value !== undefined && ro.value !== '' ? ro.value : ro.textContent); }""")
    info["track"] = track["width"]
    return info
