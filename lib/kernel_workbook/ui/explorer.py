"""One explorer for every model: widgets built from the knob declaration.

:func:`explorer` takes a parameter set, the names of the knobs to expose and
a ``draw(params, **controls)`` function, and lays out one widget per knob --
labelled with the knob's full kernel name and unit, its kernel variable and
source in the tooltip, its range from the declaration -- above the live
output.  Controls that are not knobs (a machine preset, a reader count) are
passed as ready-made widgets and reach ``draw`` by name.

What a person at a 1280x720 projector needs of it, and how it is met:

* **Sliders long enough to drag.**  Each control's label sits above it, whole,
  and the grid has as many columns as fit 260 px each (three beside the lab's
  file browser, four without it), so every slider's track is wider than
  150 px whatever the length of the kernel name (a label beside the track had
  left it 0-50 px).  The stylesheet travels with the status line
  (:class:`Status`), the explorer's own small widget.
* **One redraw per change.**  A control that sets others (the kernel menu sets
  every knob, 2011's machine sets its ``usleep``: ``links``) sets them first,
  then the chart is drawn once.
* **The wait a person sees.**  The status line says which knobs and controls
  differ from where the explorer started, and how long the redraw took from
  the moment the change left the browser to the moment the chart was drawn
  again -- measured in the browser, where both happen (the kernel alone
  cannot see the queue in front of it, nor the drawing).  Beyond one second a
  spinner counts the time.
* **The next notch is ready.**  An explorer whose model runs are pure
  functions of the setting (every run is seeded) keeps them in :class:`Runs`
  and passes ``ahead``: after each redraw the explorer lists the settings one
  notch away on every slider (the knobs' notches come from their declaration:
  range and step), checkbox (its other state) and menu (the choices next to
  the shown one, the kernel menu's presets too), and ``ahead`` has them run on
  a background thread, newest first, dropping the ones not started when the
  person moves again.  A notch
  then redraws from the kept run (the same numbers: the run is deterministic
  for its seed); a setting further away is run when asked, as before.  A
  model whose fresh run misses 100 ms (2012's, 2007's) passes
  ``reach=None``: every value of every widget is made ahead, ring by ring
  (each widget's next notch before any widget's second) for
  :data:`FAR_AHEAD_S` after each change, so a slider dragged several steps
  is also a kept run once the person has looked a while.  The runs ahead
  never compete with the person: their thread is niced, waits while a
  notebook cell runs, and a 2012 or 2007 run ahead is stopped part-way when the
  person asks for another setting.  The first draw is never held up: the
  runs ahead start after it.
  ``KWB_RUNS_AHEAD=off`` turns this off (the explorer benchmark does: it
  times a setting's run and chart, not a kept run).
* **No float noise**: a slider's value is rounded to its step before it
  reaches the model and the echo (``cfq_target_latency=750.0``, not
  ``749.9999999999999``).

In ``WORKBOOK_MODE=ci`` there is no widget JavaScript: the default settings
are drawn once, statically, and nothing is returned.
"""

from __future__ import annotations

import html
import math
import os
import threading
import time
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from ..config import mode
from ..errors import WorkbookParameterError
from ..models.engine import RunStopped, stopping

COLUMN_PX = 260
"""The narrowest column of the controls' grid: a slider's track keeps >= 150 px beside its readout."""

_CSS = """
.kwb-explorer .kwb-knob.widget-inline-hbox { flex-wrap: wrap; height: auto; align-items: center; }
.kwb-explorer .kwb-knob.widget-inline-hbox > .widget-label {
  flex: 0 0 100%; width: auto !important; max-width: none; text-align: left; white-space: normal;
  overflow: visible; text-overflow: clip; line-height: 18px; height: auto; margin: 0; padding: 0; }
.kwb-explorer .kwb-knob .slider-container { flex: 1 1 150px; min-width: 150px; }
.kwb-explorer .kwb-knob.widget-dropdown > select { flex: 1 1 auto; }
.kwb-status { font-size: 12px; line-height: 18px; min-height: 18px; color: var(--jp-ui-font-color1, #333); }
.kwb-status .kwb-busy { display: none; }
.kwb-status .kwb-busy.kwb-show { display: inline; font-weight: bold; }
.kwb-status .kwb-busy::before { content: ""; display: inline-block; width: 10px; height: 10px; margin-right: 6px;
  border: 2px solid #999; border-top-color: transparent; border-radius: 50%; vertical-align: -1px;
  animation: kwb-spin 0.8s linear infinite; }
.kwb-status .kwb-stale { opacity: 0.5; }
.kwb-status .kwb-error { color: #b00; }
.kwb-output .kwb-html > .widget-html-content { line-height: normal; white-space: normal; overflow: visible;
  height: auto; display: block; }
@keyframes kwb-spin { to { transform: rotate(360deg); } }
"""

# The status line's view: shows ``value`` (HTML written by the kernel); while the kernel is busy, a spinner
# with the seconds since the change (after one second); once a redraw is sent (``generation``), the time from
# the change (``started``: the date the browser stamped on the message that carried it) to the last change of
# the explorer's chart area, written into the ``.kwb-drawn`` span and sent back as ``drawn_ms``.
_ESM = r"""
const QUIET_MS = 400;
function fmt(ms) { return ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(1) + " s"; }
function render({ model, el }) {
  el.classList.add("kwb-status");
  const body = document.createElement("div");
  el.appendChild(body);
  let timer = null;
  const since = () => { const s = Date.parse(model.get("started")); return isNaN(s) ? null : Date.now() - s; };
  const show = () => { body.innerHTML = model.get("value"); tick(); };
  const tick = () => {
    const b = body.querySelector(".kwb-busy"); const ms = since();
    if (!b || !model.get("busy") || ms === null || ms < 1000) return;
    b.classList.add("kwb-show");
    const e = b.querySelector(".kwb-elapsed"); if (e) e.textContent = fmt(ms);
  };
  const onBusy = () => {
    clearInterval(timer); timer = null;
    if (model.get("busy")) { timer = setInterval(tick, 200); tick(); }
  };
  const onDrawn = () => {
    const root = el.closest(".kwb-explorer");
    const out = root && root.querySelector(".kwb-output");
    const t0 = Date.now(); let last = t0;
    const obs = new MutationObserver(() => { last = Date.now(); });
    if (out) obs.observe(out, { subtree: true, childList: true, attributes: true, characterData: true });
    const settle = () => {
      if (Date.now() - last < QUIET_MS && Date.now() - t0 < 60000) { setTimeout(settle, 50); return; }
      obs.disconnect();
      const s = Date.parse(model.get("started"));
      if (isNaN(s)) return;
      const ms = Math.max(0, last - s);
      const span = body.querySelector(".kwb-drawn");
      if (span) {
        span.textContent = "redrawn " + fmt(ms) + " after your change (" + span.dataset.kernel +
                           " of it the model and the chart in the kernel)";
        span.title = "from the change leaving the browser to the chart drawn again";
      }
      model.set("drawn_ms", ms); model.save_changes();
    };
    setTimeout(settle, 50);
  };
  model.on("change:value", show);
  model.on("change:busy", onBusy);
  model.on("change:generation", onDrawn);
  show(); onBusy();
  return () => { clearInterval(timer); };
}
export default { render };
"""


_IDLE = None
AHEAD_NICE = 19
"""The nice value of the thread making runs ahead (Linux sets it per thread): the person's own redraw, the
browser drawing it and the notebook's cells get the CPU first; the runs ahead take what is left."""


def _behind_the_person() -> None:
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), AHEAD_NICE)
    except (AttributeError, OSError):  # not Linux, or not allowed: runs ahead at the kernel's priority
        pass


def _shell():
    """The IPython shell this runs in, or None (a script, a test)."""
    try:
        from IPython import get_ipython

        return get_ipython()
    except Exception:  # noqa: BLE001 - no IPython
        return None


_ALL_RUNS: "weakref.WeakSet[Runs]" = weakref.WeakSet()
_NOT_MADE = object()  # what a run ahead that was not made (dropped, stopped) leaves in its future
STOPPED, PAUSED = 1, 2  # a run ahead's stop flag: the person asked for another setting; a notebook cell started


def notebook_idle():
    """A ``threading.Event`` set while no notebook cell runs (IPython's ``pre_run_cell``/``post_run_cell``;
    always set outside IPython).  Runs made ahead wait for it, and one being made when a cell starts is stopped
    and made again after it, so that a Run All's later cells (2012's reproduction, minutes of CPU) are not slowed
    by an explorer higher up making its settings ahead; a widget's callback is not a cell, so a person moving a
    knob does not stop them."""
    global _IDLE
    if _IDLE is None:
        ev = threading.Event()
        ev.set()
        shell = _shell()  # none: nothing runs cells
        if shell is not None:
            def cell_starts(*_):
                ev.clear()
                for runs in list(_ALL_RUNS):
                    runs.pause()

            shell.events.register("pre_run_cell", cell_starts)
            shell.events.register("post_run_cell", lambda *_: ev.set())
        _IDLE = ev
    return _IDLE


class Runs:
    """An explorer's model runs kept per setting, and made ahead of the person on one background thread.

    ``run(*key)`` must be a pure function of ``key`` (a hashable setting: the
    params, the controls), deterministic for its seed: a kept run is then the
    run a redraw would make.  :meth:`get` answers from the kept runs, waits
    for one already being made, or runs it now; :meth:`ahead` queues settings
    to run in the background (the ones queued before and not started are
    dropped: the person has moved on) once no notebook cell is running
    (:func:`notebook_idle`); a run ahead of another setting than the one
    asked for is stopped part-way, where the model reads its stop flag
    (``models.engine.stop_flag``: the compaction and writeback models do), so that it
    does not share the CPU and the cache with the person's run.  With
    ``ahead_s`` no run ahead starts later than that after the first of those
    a change queued began (after the notebook's cells, :data:`FAR_AHEAD_S`,
    for an explorer that makes every value ahead).  At most ``keep`` runs are kept,
    the oldest dropped first.
    """

    def __init__(self, run: Callable[..., Any], keep: int = 128, ahead_s: float | None = None):
        from collections import OrderedDict

        self.run = run
        self.keep = keep
        self._done: OrderedDict = OrderedDict()
        self._making: dict = {}
        # (key, stop flag) of the run ahead being made, past its wait for an idle notebook: worth waiting for
        self._flight = None
        notebook_idle()  # its hooks registered now, on the notebook's thread
        _ALL_RUNS.add(self)
        self._lock = threading.Lock()
        self._pool = None
        self.made_ahead = 0  # runs made in the background (a figure for the tests and the benchmark)
        self.ahead_s = ahead_s  # no run ahead starts later than this after the first one began
        self._until = None  # when the runs ahead queued last stop starting (set as the first of them begins)

    def get(self, *key):
        with self._lock:
            if key in self._done:
                self._done.move_to_end(key)
                return self._done[key]
            fut = self._making.get(key)
            # being made: wait for it rather than run it twice.  One not begun (still starting, or waiting for
            # the notebook to be idle -- a cell setting a widget: waiting would hold the cell it waits for) is
            # taken from the queue and run here; its thread, finding it gone, does not make it again
            flying = self._flight is not None and self._flight[0] == key
            wait = fut if fut is not None and flying else None
            if self._flight is not None and not flying:
                self._flight[1][0] = STOPPED  # a run ahead of another setting: the CPU and cache are this one's
            if fut is not None and wait is None:
                fut.cancel()
                self._making.pop(key, None)
        if wait is not None:
            try:
                value = wait.result()
                if value is not _NOT_MADE:  # (else stopped part-way: run here)
                    return value
            except Exception:  # noqa: BLE001 - a failed run ahead is run again here, where its error shows
                pass
        return self._keep(key, self.run(*key))

    def _keep(self, key, value):
        with self._lock:
            self._done[key] = value
            self._done.move_to_end(key)
            while len(self._done) > self.keep:
                self._done.popitem(last=False)
            self._making.pop(key, None)
        return value

    def pause(self) -> None:
        """Stop the run ahead being made, to be made again once the notebook is idle (a cell has started)."""
        with self._lock:
            self._until = None  # the time bound starts again after the cell: Run All's cells are not looking
            if self._flight is not None:
                self._flight[1][0] = PAUSED

    def ahead(self, keys) -> None:
        """Run ``keys`` in the background, in order, instead of whatever was queued and not started."""
        from concurrent.futures import ThreadPoolExecutor

        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kwb-runs-ahead",
                                            initializer=_behind_the_person)
        with self._lock:
            self._until = None
            for k, fut in list(self._making.items()):
                if fut.cancel():
                    del self._making[k]
            todo = [k for k in dict.fromkeys(keys) if k not in self._done and k not in self._making]
            for k in todo:
                self._making[k] = self._pool.submit(self._ahead, k)

    def _ahead(self, key):
        notebook_idle().wait()
        with self._lock:
            if key in self._done or key not in self._making:  # made, or being made, by get() meanwhile
                return _NOT_MADE
            if self._until is None:  # the first run ahead since the change (or since a cell paused them)
                self._until = math.inf if self.ahead_s is None else time.monotonic() + self.ahead_s
            if time.monotonic() > self._until:  # the person has looked long enough: leave the CPU to them
                self._making.pop(key, None)
                return _NOT_MADE
            self._flight = (key, np.zeros(1, np.int64))
            flag = self._flight[1]
        try:
            with stopping(flag):
                value = self.run(*key)
        except RunStopped:
            with self._lock:
                if flag[0] == PAUSED and self._making.get(key) is not None:  # a cell ran: made after it instead
                    self._making[key] = self._pool.submit(self._ahead, key)
                else:  # the person asked for another setting: made again if asked ahead again
                    self._making.pop(key, None)
            return _NOT_MADE
        except Exception:  # noqa: BLE001 - a setting the model refuses: get() runs it and shows the error
            with self._lock:
                self._making.pop(key, None)
            raise
        finally:
            with self._lock:
                self._flight = None
        self.made_ahead += 1
        return self._keep(key, value)


class Formatted:
    """An object's display, formatted now (``_repr_mimebundle_`` gives it back): a :class:`Runs` run formats
    what a redraw shows on its background thread (a table's text and HTML took 120 ms of the fair-zone
    explorer's redraw), so that displaying it is only sending it."""

    def __init__(self, obj):
        shell = _shell()  # none: a formatter of its own
        if shell is not None:
            fmt = shell.display_formatter
        else:
            from IPython.core.formatters import DisplayFormatter

            fmt = DisplayFormatter()
        self.obj = obj
        self.data, self.metadata = fmt.format(obj)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.data, self.metadata


MENU_AHEAD = 2  # a menu's choices run ahead: this many either side of the one shown
FAR_AHEAD_S = 10.0
"""How long after a change an explorer that makes every value ahead (``reach=None``) goes on making them: about
as long as a presenter talks over a chart.  Unbounded, 2012's explorer kept a core busy for over a minute after
every change (its widgets have some 310 values, at 4-5 runs a second).  In 10 s 2012's runs cover about five
notches of every widget."""


def notches(widget, reach: int | None = 1) -> list:
    """The values within ``reach`` notches of a widget's, nearest first (``None``: its whole range): a
    slider's steps either side (within its range), a selection slider's neighbouring options, a checkbox's
    other state, and a menu's neighbouring choices (at least :data:`MENU_AHEAD` either side: a menu has no
    step, and its few choices are each one click away); ``[]`` for any other widget."""
    return [v for _, v in _notches(widget, reach)]


def _notches(widget, reach: int | None) -> list:
    """:func:`notches` as ``(distance in notches, value)``, nearest first."""
    import ipywidgets as w

    if isinstance(widget, w.Checkbox):
        return [(1, not bool(widget.value))]
    if isinstance(widget, (w.SelectionSlider, w.Dropdown)):
        opts = [o[1] if isinstance(o, tuple) else o for o in widget.options]
        i = opts.index(widget.value) if widget.value in opts else -1
        far = len(opts) if reach is None else reach
        far = far if isinstance(widget, w.SelectionSlider) else max(far, MENU_AHEAD)
        near = [(d, j) for d in range(1, far + 1) for j in (i + d, i - d)]
        return [(d, opts[j]) for d, j in near if i >= 0 and 0 <= j < len(opts)]
    if not isinstance(widget, (w.IntSlider, w.FloatSlider)) or not widget.step:
        return []
    v = widget_value(widget)
    far = int(round((widget.max - widget.min) / widget.step)) if reach is None else reach
    out = []
    for d in range(1, far + 1):
        for x in (v + d * widget.step, v - d * widget.step):
            if widget.min <= x <= widget.max:
                out.append((d, round(x, _decimals(widget.step) + 1) if isinstance(widget, w.FloatSlider) else int(x)))
    return out


def _status_class():
    """:class:`Status`, made on first use (anywidget and ipywidgets are imported only in the lab)."""
    global Status
    if isinstance(Status, type):
        return Status
    import anywidget
    import ipywidgets as w
    import traitlets as t

    class _Status(anywidget.AnyWidget, w.HTML):
        """The explorer's status line: an HTML widget (``value``) drawn by the explorer's own view, which
        times the redraw as a person waits for it (module docstring) and carries the explorer's stylesheet."""

        _esm = _ESM
        _css = _CSS
        started = t.Unicode("").tag(sync=True)  # the browser's date of the change being drawn (ISO 8601)
        busy = t.Bool(False).tag(sync=True)
        generation = t.Int(0).tag(sync=True)  # +1 per redraw sent
        drawn_ms = t.Float(-1.0).tag(sync=True)  # written by the browser: change -> chart drawn

    Status = _Status
    return Status


Status: Any = None


def _event_date() -> str:
    """The date the front end stamped on the message being handled (a widget's change, a cell's execution):
    the browser's clock, which is also the clock that sees the chart drawn.  Empty outside a kernel."""
    try:
        from IPython import get_ipython

        kernel = getattr(get_ipython(), "kernel", None)
        date = kernel.get_parent().get("header", {}).get("date") if kernel is not None else None
    except Exception:  # noqa: BLE001 - a timing aid must never break a redraw
        return ""
    if date is None:
        return ""
    return date.isoformat() if hasattr(date, "isoformat") else str(date)


def _decimals(step: float) -> int:
    """How many decimals a slider's step has (0.05 -> 2, 1.0 -> 0)."""
    s = f"{float(step):.10f}".rstrip("0")
    return len(s.split(".")[1]) if "." in s else 0


def knob_widget(params, name: str):
    """The widget of knob ``name`` of ``params``, set to its current value."""
    import ipywidgets as w

    k = type(params).knob(name)
    v = params.value(name)
    common = dict(description=k.label, tooltip=f"{k.label}: {k.tooltip}", style={"description_width": "initial"},
                  layout=w.Layout(width="98%"))
    if k.kind == "bool":
        return w.Checkbox(value=bool(v), indent=False, **common)
    if k.kind == "choice":
        return w.Dropdown(options=list(k.choices), value=v, **common)
    if k.kind in ("int", "float"):
        lo, hi, step = k.slider()
        if v is None:
            raise WorkbookParameterError(name, v, "a value to start the slider at (this knob is None)")
        lo, hi = min(lo, v), max(hi, v)
        if k.kind == "int":
            return w.IntSlider(value=v, min=lo, max=hi, step=step, continuous_update=False, **common)
        return w.FloatSlider(value=v, min=lo, max=hi, step=step, continuous_update=False,
                             readout_format=f".{min(_decimals(step), 3)}f", **common)
    raise WorkbookParameterError(name, v, "a knob with a widget (bool, int, float or choice)")


def widget_value(wd):
    """A widget's value as a person set it: a float slider's rounded to its step (the browser's arithmetic
    gives 749.9999999999999 for 750), a checkbox's as a bool."""
    import ipywidgets as w

    v = wd.value
    if isinstance(wd, w.FloatSlider) and isinstance(v, float) and math.isfinite(v):
        return round(v, _decimals(wd.step) + 1) if wd.step else v
    if isinstance(wd, w.Checkbox):
        return bool(v)
    return v


def widgets_in(box, cls) -> list:
    """Every widget of class ``cls`` (or a tuple of classes) in ``box``, breadth first (the order a
    person reads an explorer's controls: the grid's before the output's)."""
    found, todo = [], [box]
    while todo:
        node = todo.pop(0)
        if isinstance(node, cls):
            found.append(node)
        todo.extend(getattr(node, "children", ()))
    return found


def _items(shown) -> list:
    return list(shown) if isinstance(shown, (tuple, list)) else ([] if shown is None else [shown])


def _show(shown) -> None:
    from IPython.display import display

    for o in _items(shown):
        display(o)


def _html_of(item) -> str | None:
    """The HTML a redraw can put into a slot's HTML widget (a table, preformatted text, prose), or ``None``
    for what must go through an output area (a chart, a widget).  Prose is Markdown: shown as a paragraph
    (its code spans as code), which is all the explorers' prose uses."""
    import ipywidgets as w

    from ..frames import Prose

    if isinstance(item, w.Widget):
        return None
    if isinstance(item, Formatted):
        return item.data.get("text/html")
    if isinstance(item, Prose):
        parts = item.text.split("`")
        return "<p>" + "".join(f"<code>{html.escape(t)}</code>" if i % 2 else html.escape(t)
                               for i, t in enumerate(parts)) + "</p>"
    if hasattr(item, "_repr_mimebundle_"):  # an Altair chart: the lab's renderer draws it
        return None
    repr_html = getattr(item, "_repr_html_", None)
    return repr_html() if callable(repr_html) else None


def _redisplay(box, shown, last: list) -> list:
    """Show ``shown`` in ``box`` (a VBox of one slot per item), changing in place what can be: a table or
    text goes into an HTML widget whose value a redraw replaces (clearing an output area and rendering a new
    one took most of a redraw as the browser drew it: 100-200 ms of 160-280), and an item that is the very
    widget already shown at its place (a ``LiveChart``'s JupyterChart, whose data was replaced in place) is
    left alone: displaying it again would make the browser draw it twice and flicker.  Anything else (an
    Altair chart) is displayed again in an output area."""
    import ipywidgets as w
    from IPython.display import display

    items = _items(shown)
    outs = list(box.children)
    slots = []
    for i, item in enumerate(items):
        old = outs[i] if i < len(outs) else None
        if isinstance(item, w.Widget) and i < len(last) and last[i] is item and old is not None:
            slots.append(old)
            continue
        page = _html_of(item)
        if page is not None:
            if isinstance(old, w.HTML) and "kwb-html" in old._dom_classes:
                if old.value != page:
                    old.value = page
                slots.append(old)
            else:
                h = w.HTML(page, layout=w.Layout(width="100%"))
                h.add_class("kwb-html")
                h.add_class("jp-RenderedHTMLCommon")
                slots.append(h)
            continue
        o = old if isinstance(old, w.Output) else w.Output()
        o.clear_output(wait=True)
        with o:
            display(item)
        slots.append(o)
    if not slots:
        slots = [outs[0] if outs and isinstance(outs[0], w.Output) else w.Output()]
        slots[0].clear_output()
    if tuple(slots) != tuple(outs):
        box.children = tuple(slots)
    return items


def _fmt_value(v) -> str:
    return repr(v) if isinstance(v, (bool, float, str)) else str(v)


def explorer(params, knobs: Sequence[str], draw: Callable[..., Any], controls: dict | None = None,
             title: str = "", columns: int | None = None, presets: dict | None = None, preset: str | None = None,
             enabled_when: dict | None = None, links: dict | None = None,
             ahead: Callable[[list], None] | None = None, reach: int | None = 1):
    """Widgets for ``knobs`` of ``params`` (and extra ``controls``) above ``draw(params, **controls)``.

    ``draw`` returns what to show: an Altair chart, an HTML object, a frame,
    or a tuple of them.  ``presets`` (``{name: params}``, e.g. the thread's
    kernels) adds a "kernel" menu that sets every knob widget to that
    kernel's values; ``enabled_when`` (``{knob: predicate(params)}``) greys a
    knob out while it has no effect (a shift that only one batch formula
    reads); ``ahead(settings)`` gets, after each redraw, the settings one
    notch away on every enabled slider, menu and checkbox, the kernel menu
    included (``[(params, {control: value})]``, see :func:`notches`; a
    linked control's with the values it sets), the widget moved last first,
    then the grid's order, to run in the background (:class:`Runs`);
    ``reach`` is how many notches away (``None``: each widget's whole range,
    ring by ring: every widget's next notch before any widget's second), for
    a model whose run misses 100 ms, so that a slider dragged several steps
    is also served from a run made while the person looked;
    ``links`` (``{control: fn(value) -> {other control: value}}``)
    lets a control set others before the one redraw (2011's machine sets the
    think time its runs used).  ``columns`` is the most columns the grid may
    have (it has as many 260 px columns as fit).  Returns the widget box
    (``None`` in CI mode, where the defaults are drawn statically);
    ``box.kwb_status`` is the status line, ``box.kwb_timings`` the redraws'
    times (``kernel_ms``, and ``drawn_ms`` once the browser has measured it).
    """
    controls = dict(controls or {})
    enabled_when = dict(enabled_when or {})
    links = dict(links or {})
    if presets:
        preset = preset if preset is not None else next(iter(presets))
        params = presets[preset]
    for n in list(knobs) + list(enabled_when):
        type(params).knob(n)  # an unknown knob is an error now, not at the first redraw
    for n in links:
        if n not in controls:
            raise WorkbookParameterError("links", n, "the name of one of the explorer's controls: " + ", ".join(controls))
    if mode().name == "ci":
        _show(draw(params, **{k: c.value for k, c in controls.items()}))
        return None
    import ipywidgets as w

    widgets = {n: knob_widget(params, n) for n in knobs}
    status = _status_class()()
    out = w.VBox([w.Output()], layout=w.Layout(width="100%"))
    out.add_class("kwb-output")
    base = {"params": params}
    last: list = []
    holding = {"on": False}
    timings: list = []

    menu = None
    if presets:
        menu = w.Dropdown(options=list(presets), value=preset, description="kernel",
                          tooltip="set every knob below to this kernel's values", style={"description_width": "initial"},
                          layout=w.Layout(width="98%"))
    named = ({"kernel": menu} if menu is not None else {}) | controls
    start = {n: widget_value(c) for n, c in named.items()}

    def current():
        return base["params"].with_(**{n: widget_value(wd) for n, wd in widgets.items()})

    def changes(p) -> str:
        moved = [f"{n}={_fmt_value(widget_value(c))}" for n, c in named.items() if widget_value(c) != start[n]]
        knobs_moved = p.echo(base["params"])
        if knobs_moved != "defaults":
            moved.append(knobs_moved)
        if not moved:
            return "the settings it started with"
        against = f" (knobs against {menu.value}'s)" if menu is not None and knobs_moved != "defaults" else ""
        return "changed: " + ", ".join(moved) + against

    def update(change=None):
        if holding["on"]:
            return
        if isinstance(change, dict) and change.get("owner") is not None:
            holding["moved"] = change["owner"]  # its next notches are run ahead first: a person drags on
        t0 = time.perf_counter()
        if ahead is not None and os.environ.get("KWB_RUNS_AHEAD", "on") != "off":
            # the runs queued ahead and not started wait for this redraw (queued again after it): the thread
            # making them would otherwise share the GIL with it, a switch interval per handover
            ahead([])
        status.started = _event_date()
        status.value = ("<span class='kwb-busy'>redrawing… <span class='kwb-elapsed'></span></span> "
                        f"<span class='kwb-stale'>{_strip_busy(status.value)}</span>")
        status.busy = True
        try:
            p = current()
            for n, pred in enabled_when.items():
                if n in widgets:
                    widgets[n].disabled = not pred(p)
            shown = draw(p, **{k: widget_value(c) for k, c in controls.items()})
            last[:] = _redisplay(out, shown, last)
        except WorkbookParameterError as e:  # a combination the kernel refuses: say which knob, keep the old chart
            status.value = f"<span class='kwb-error'>{html.escape(str(e))}</span>"
            return
        finally:
            status.busy = False
        ms = 1000 * (time.perf_counter() - t0)
        timings.append({"kernel_ms": ms, "drawn_ms": None, "started": status.started})
        status.value = (f"<span class='kwb-drawn' data-kernel='{ms:.0f} ms'>redrawn in {ms:.0f} ms</span>; "
                        f"{html.escape(changes(p), quote=False)}")
        status.generation += 1
        if ahead is not None and os.environ.get("KWB_RUNS_AHEAD", "on") != "off":
            ahead(next_notches(p))

    def next_notches(p) -> list:
        # ring by ring (every widget's next notch before any widget's second), in each ring the widget moved
        # last first (a person drags on), then the grid's order (the kernel menu, controls, then knobs)
        now = {k: widget_value(c) for k, c in controls.items()}
        settings = []
        if menu is not None:  # another kernel: its preset (on_preset sets every knob to its value)
            settings += [(d, menu, (presets[v], now)) for d, v in _notches(menu, reach)]
        for n, c in controls.items():
            # a linked control sets others as it moves (on_linked): its notch carries what it sets
            settings += [(d, c, (p, {**now, n: v, **(links[n](v) if n in links else {})}))
                         for d, v in _notches(c, reach)]
        for n, wd in widgets.items():
            if wd.disabled:
                continue
            for d, v in _notches(wd, reach):
                try:
                    settings.append((d, wd, (p.with_(**{n: v}), now)))
                except WorkbookParameterError:  # a notch the kernel refuses: nothing to run ahead
                    pass
        moved = holding.get("moved")
        return [x for _, _, x in sorted(settings, key=lambda s: (s[0], s[1] is not moved))]

    def on_drawn(change):
        if timings and change["new"] >= 0:
            timings[-1]["drawn_ms"] = change["new"]

    status.observe(on_drawn, names="drawn_ms")

    def set_held(values: dict) -> None:
        holding["on"] = True
        try:
            for n, v in values.items():
                wd = widgets.get(n) or controls.get(n)
                if wd is not None and v is not None:
                    wd.value = v
        finally:
            holding["on"] = False

    if menu is not None:
        def on_preset(change):
            base["params"] = presets[change["new"]]
            set_held({n: base["params"].value(n) for n in widgets})
            update()

        menu.observe(on_preset, names="value")
    for n, c in controls.items():
        if n in links:
            def on_linked(change, fn=links[n]):
                if holding["on"]:
                    return
                set_held(fn(change["new"]))
                update()

            c.observe(on_linked, names="value")
        else:
            c.observe(update, names="value")
    for wd in widgets.values():
        wd.observe(update, names="value")
    update()
    every = [*named.values(), *widgets.values()]
    for c in every:
        c.add_class("kwb-knob")
        c.layout.min_width = None  # its label above it, a menu's choice fits a column whole
        if c.layout.width in (None, "", "auto"):
            c.layout.width = "98%"
    most = f"minmax(max({COLUMN_PX}px, calc((100% - {16 * (columns - 1)}px) / {columns})), 1fr)" if columns else \
        f"minmax({COLUMN_PX}px, 1fr)"
    grid = w.GridBox(every, layout=w.Layout(grid_template_columns=f"repeat(auto-fill, {most})", width="100%",
                                            grid_gap="4px 16px"))
    head = w.HTML(f"<b>{html.escape(title)}</b>" if title else "")
    box = w.VBox([head, grid, status, out], layout=w.Layout(width="100%"))
    box.add_class("kwb-explorer")
    box.kwb_status = status
    box.kwb_timings = timings
    return box


def _strip_busy(value: str) -> str:
    """The last status without its busy and stale wrappers (what stays shown, greyed, while redrawing)."""
    import re

    value = re.sub(r"<span class='kwb-busy'>.*?</span></span> ", "", value)
    m = re.fullmatch(r"<span class='kwb-stale'>(.*)</span>", value, re.S)
    return m.group(1) if m else value


__all__ = ["explorer", "knob_widget", "widget_value", "widgets_in", "notches", "Runs", "Formatted", "COLUMN_PX"]
