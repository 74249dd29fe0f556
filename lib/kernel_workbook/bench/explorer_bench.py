"""How fast every model's explorer redraws after a knob moves (``make bench``, suite ``explorers``).

A person drags a slider and waits; the target for every explorer is a
redraw in 100 ms or less once the model is compiled (10 redraws per second).
Each benchmark builds the explorer exactly as its notebook does, in
``WORKBOOK_MODE=lab`` (so the widgets exist) after ``config.setup()`` (the
lab's renderer, as the notebook's first cell enables it), then moves its first slider
along its grid: one move is one redraw, through the same ``update`` the widget calls
(the model run, the frames and the chart).  Every move goes to a setting of
the knobs the process has not drawn before, so an explorer's cache of runs
(the fair-zone explorer keeps its last runs) never answers for the model:
what is timed is what a person waits for when trying a new value.  Only a
cache of runs that do not depend on the slider (a baseline) may answer; the
explorers' runs one notch ahead (``explorer.Runs``) are turned off
(``KWB_RUNS_AHEAD=off``): with them a move to the next notch is answered by a
run made in the background, which is what the browser test's one-notch move
sees, not what this benchmark times.
When pyperf asks for more moves than the first slider has values (a fast
redraw: its loop calibration doubles the loops), the next slider goes along
its own grid, the first one left at its last value: each of those settings is
new too.
What the redraw displays is formatted as the kernel formats it for the
front end (IPython's display formatter: a chart's ``to_dict`` and, with
the lab's ``jupyter`` renderer, the ``JupyterChart`` built from it), then
goes nowhere: there is no browser in a benchmark.
"""

from __future__ import annotations

import contextlib
import io
import os
import time

from kernel_workbook.bench import Bench

def explorers() -> dict:
    """What each notebook's explorer shows -> its builder: every heuristic's (``Heuristic.explorers``)."""
    from kernel_workbook import heuristic

    return {label: build for h in heuristic.heuristics() for label, build in h.explorers.items()}


TARGET_MS = 100.0


@contextlib.contextmanager
def _lab_mode():
    old = {k: os.environ.get(k) for k in ("WORKBOOK_MODE", "KWB_RUNS_AHEAD")}
    os.environ.update(WORKBOOK_MODE="lab", KWB_RUNS_AHEAD="off")
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextlib.contextmanager
def _kernel_display():
    """``IPython.display.display`` formats each object as a kernel would (no shell here: it would print)."""
    import IPython.display as ipd
    from IPython.core.formatters import DisplayFormatter

    fmt = DisplayFormatter()
    old = ipd.display

    def display(*objs, **kw):
        for o in objs:
            fmt.format(o)

    ipd.display = display
    try:
        yield
    finally:
        ipd.display = old


def _sliders(box):
    """Every slider of an explorer's widget box that a person can move, in reading order."""
    import ipywidgets as w

    from kernel_workbook.ui.explorer import widgets_in

    return [x for x in widgets_in(box, (w.IntSlider, w.FloatSlider)) if not x.disabled]


def _grid(s) -> list:
    """A slider's values (``min`` to ``max`` by ``step``) other than the one it starts at, nearest first, so
    that moves stay in the range a person explores first."""
    n = int(round((s.max - s.min) / s.step))
    vals = [s.min + k * s.step for k in range(n + 1)]
    vals = [round(v, 10) if isinstance(v, float) else v for v in vals]
    return sorted((v for v in vals if v != s.value), key=lambda v: (round(abs(v - s.value), 9), v))


def _moves(sliders) -> list:
    """``(slider, value)`` moves that each reach a setting of the knobs not drawn before: the first slider along its
    grid, then the next along its own (the first left at its last value), and so on."""
    return [(s, v) for s in sliders for v in _grid(s)]


def _redraw_timer(build, what: str | None = None):
    """A pyperf time function: each loop moves one slider of the explorer once (one redraw) to a new setting.

    The explorer is built on the first call, not here: pyperf runs every
    benchmark module in each worker process and times one benchmark there.
    """
    sink = io.StringIO()
    state: dict = {}
    what = what or f"{build.__module__}.{build.__qualname__}"

    def setup():
        from kernel_workbook.config import setup as workbook_setup

        with _lab_mode(), _kernel_display(), contextlib.redirect_stdout(sink):
            workbook_setup(verbose=False)  # the notebook's first cell: the lab's renderer (JupyterChart, offline)
            box = build()
        sliders = _sliders(box)
        if not sliders:
            raise RuntimeError(f"{what}: the explorer has no slider to move")
        state.update(moves=_moves(sliders), drawn=0)
        move(1)  # the first redraw compiles what the explorer's first draw did not: a person waits for that once

    def move(loops: int) -> float:
        moves = state["moves"]
        total = 0.0
        with _lab_mode(), _kernel_display():
            for _ in range(loops):
                if state["drawn"] == len(moves):  # a setting drawn again could come from a cache
                    raise RuntimeError(f"{what}: every value of every slider has been drawn ({len(moves)} moves); "
                                       "give a slider a finer grid or time fewer loops")
                s, v = moves[state["drawn"]]
                state["drawn"] += 1
                sink.seek(0)
                sink.truncate()
                t0 = time.perf_counter()
                with contextlib.redirect_stdout(sink):
                    s.value = v  # observe() runs the redraw before this returns
                total += time.perf_counter() - t0
        return total

    def time_func(loops: int) -> float:
        if not state:
            setup()
        return move(loops)

    return time_func


def benchmarks() -> list[Bench]:
    return [Bench(f"explorer redraw: {what} (target <= {TARGET_MS:.0f} ms)", _redraw_timer(build, what), 1.0,
                  "redraws", target_per_s=1000.0 / TARGET_MS)
            for what, build in explorers().items()]
