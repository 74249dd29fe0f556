"""The one explorer builder: widgets from the knob declaration, presets, knobs greyed out where they do nothing."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass


import pytest

from kernel_workbook.models.knobs import Knobs, knob
from kernel_workbook.ui.explorer import explorer, knob_widget


@dataclass(frozen=True)
class P(Knobs):
    numa_balancing_scan_period_min_ms: int = knob(1000, unit="ms", source="kernel/sched/fair.c task_scan_min()",
                                                  range=(0, 100000), widget=(100, 5000, 100))
    numa_balancing_scan_period_max_ms: int = knob(60000, unit="ms", source="kernel/sched/fair.c task_scan_max()",
                                                  range=(0, 10 ** 6))
    NR_ALLOC_BATCH: str = knob("high-low", choices=("high-low", "managed>>shift"), source="mm/page_alloc.c")
    nr_alloc_batch_shift: int = knob(2, source="mm/page_alloc.c reset_alloc_batches()", range=(0, 20))
    kswapd_stays_awake: bool = knob(False, source="mm/vmscan.c kswapd_try_to_sleep()")


@pytest.fixture()
def lab(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")


def _widgets(box):
    grid = [c for c in box.children if hasattr(c, "children") and c.children][0]
    return {getattr(wd, "description", ""): wd for wd in grid.children}


def test_labels_are_the_full_kernel_names_with_unit_and_the_source_in_the_tooltip(lab):
    w1 = knob_widget(P(), "numa_balancing_scan_period_min_ms")
    w2 = knob_widget(P(), "numa_balancing_scan_period_max_ms")
    assert w1.description == "numa_balancing_scan_period_min_ms (ms)"
    assert w2.description == "numa_balancing_scan_period_max_ms (ms)"  # min and max never look alike
    assert "kernel/sched/fair.c task_scan_min()" in w1.tooltip
    assert w1.style.description_width == "initial"  # the label takes the width it needs: no truncation
    assert (w1.min, w1.max, w1.step) == (100, 5000, 100)


def test_knobs_redraw_presets_set_every_widget_and_inapplicable_knobs_are_greyed(lab):
    seen = []

    def draw(p):
        seen.append(p)
        return None

    presets = {"vanilla": P(), "big": P().with_(NR_ALLOC_BATCH="managed>>shift", nr_alloc_batch_shift=4)}
    box = explorer(P(), ["NR_ALLOC_BATCH", "nr_alloc_batch_shift", "kswapd_stays_awake"], draw, presets=presets,
                   enabled_when={"nr_alloc_batch_shift": lambda p: p.NR_ALLOC_BATCH == "managed>>shift"})
    ws = _widgets(box)
    assert ws["nr_alloc_batch_shift"].disabled  # high-low ignores the shift
    ws["kernel"].value = "big"
    assert seen[-1].NR_ALLOC_BATCH == "managed>>shift" and seen[-1].nr_alloc_batch_shift == 4
    assert ws["nr_alloc_batch_shift"].value == 4 and not ws["nr_alloc_batch_shift"].disabled
    n = len(seen)
    ws["kswapd_stays_awake"].value = True
    assert len(seen) == n + 1 and seen[-1].kswapd_stays_awake is True


def test_an_unknown_knob_is_an_error_at_once(lab):
    from kernel_workbook.errors import WorkbookParameterError

    with pytest.raises(WorkbookParameterError, match="scan_period_mid"):
        explorer(P(), ["scan_period_mid"], lambda p: None)


def test_a_widget_shown_again_at_its_place_is_not_displayed_again(monkeypatch):
    """A LiveChart's JupyterChart is updated in place: a redraw that returns it again must leave its output
    alone (a second display makes the browser draw it twice), while the table beside it is replaced."""
    import IPython.display
    import ipywidgets as w

    from kernel_workbook.ui import explorer as ex

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda o: shown.append(o))
    chart = w.HTML("chart")
    box = w.VBox([w.Output()])
    last = ex._redisplay(box, ("table 1", chart), [])
    assert shown == ["table 1", chart] and len(box.children) == 2
    last = ex._redisplay(box, ("table 2", chart), last)
    assert shown == ["table 1", chart, "table 2"]
    ex._redisplay(box, ("table 3", w.HTML("another chart")), last)
    assert shown[3] == "table 3" and shown[4].value == "another chart"
    ex._redisplay(box, "only a table", [])
    assert len(box.children) == 1


def test_tables_and_text_change_in_place_without_a_new_output_area(monkeypatch):
    """A redraw puts a table, preformatted text or prose into the HTML widget that showed the last one (its
    value changes; the browser rebuilds no output area: that took most of a 160-280 ms redraw), and displays
    only what needs the lab's renderer (a chart) in an output area."""
    import IPython.display
    import ipywidgets as w
    import pandas as pd

    from kernel_workbook.frames import Preformatted, Prose, Table
    from kernel_workbook.ui import explorer as ex

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda o: shown.append(o))
    chart = w.HTML("chart")
    box = w.VBox([w.Output()])

    def frame(v):
        return pd.DataFrame({"kernel": ["a"], "MB/s": [v]})

    last = ex._redisplay(box, (Prose("run `a`"), Preformatted("x 1"), ex.Formatted(Table(frame(1.5))), chart), [])
    slots = box.children
    assert [type(c) for c in slots[:3]] == [w.HTML] * 3 and all("kwb-html" in c._dom_classes for c in slots[:3])
    assert slots[0].value == "<p>run <code>a</code></p>" and "x 1" in slots[1].value and "1.5" in slots[2].value
    assert shown == [chart]
    ex._redisplay(box, (Prose("run `b`"), Preformatted("x 2"), ex.Formatted(Table(frame(2.5))), chart), last)
    assert box.children == slots and shown == [chart]  # the same widgets, new values; the chart left alone
    assert "<code>b</code>" in slots[0].value and "x 2" in slots[1].value and "2.5" in slots[2].value
    ex._redisplay(box, ("plain text",), [])  # no HTML of its own: an output area again
    assert isinstance(box.children[0], w.Output) and shown[-1] == "plain text"


def test_every_control_sits_in_a_grid_of_columns_wide_enough_for_a_150px_track(lab):
    """Labels above their controls in columns of at least 260 px: at 1280x720 a label beside a slider had left
    its track 0-50 px (the browser test measures the tracks)."""
    import ipywidgets as w

    from kernel_workbook.ui.explorer import COLUMN_PX

    menu = w.Dropdown(options=["pristine (3.1/3.16)"], description="deep-queue variant",
                      layout=w.Layout(width="auto", min_width="440px"))
    box = explorer(P(), ["numa_balancing_scan_period_min_ms"], lambda p, **kw: None, controls={"variant": menu},
                   columns=3)
    head, grid, status, out = box.children
    assert isinstance(grid, w.GridBox) and menu in grid.children and not menu.layout.min_width
    assert f"minmax(max({COLUMN_PX}px" in grid.layout.grid_template_columns
    assert all("kwb-knob" in c._dom_classes for c in grid.children)
    assert "kwb-explorer" in box._dom_classes and "kwb-output" in out._dom_classes
    assert ".kwb-knob" in status._css and "min-width: 150px" in status._css  # the stylesheet travels with it


def test_a_float_slider_reaches_the_model_without_float_noise(lab):
    """The browser's slider arithmetic gives 749.9999999999999 for 750: the model and the echo get 750.0."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class L(Knobs):
        cfq_target_latency: float = knob(300.0, unit="ms", source="block/cfq-iosched.c", range=(0, 5000),
                                         widget=(0, 1000, 0.1))

    seen = []
    box = explorer(L(), ["cfq_target_latency"], lambda p: seen.append(p))
    slider = box.children[1].children[0]
    slider.value = 749.9999999999999
    assert seen[-1].cfq_target_latency == 750.0
    assert "cfq_target_latency=750.0" in box.kwb_status.value and "749.99" not in box.kwb_status.value


def test_the_status_names_every_knob_and_control_changed_and_a_link_redraws_once(lab):
    """2011's status kept saying 'defaults' after the machine changed (a control, not a knob), and its machine
    menu set the think time through a second redraw on the old machine."""
    import ipywidgets as w

    seen, asked = [], []
    machine = w.Dropdown(options=["raid", "hdd"], value="raid", description="machine")
    usleep = w.IntSlider(value=1000, min=0, max=3000, step=250, description="usleep (us)")
    box = explorer(P(), ["nr_alloc_batch_shift"], lambda p, machine, usleep: seen.append((machine, usleep)),
                   controls={"machine": machine, "usleep": usleep},
                   links={"machine": lambda m: {"usleep": 1000 if m == "raid" else 0}},
                   ahead=lambda settings: asked.append([c for _, c in settings]))
    # the other machine is run ahead with the think time it sets: the setting its click then draws
    assert {"machine": "hdd", "usleep": 0} in asked[-1] and {"machine": "hdd", "usleep": 1000} not in asked[-1]
    status = box.kwb_status
    assert "the settings it started with" in status.value and "redrawn in" in status.value
    n = len(seen)
    machine.value = "hdd"
    assert seen[n:] == [("hdd", 0)]  # one redraw, on the new machine with its think time
    assert "machine='hdd'" in status.value and "usleep=0" in status.value
    box.children[1].children[2].value = 5  # nr_alloc_batch_shift
    assert "nr_alloc_batch_shift=5" in status.value and "machine='hdd'" in status.value
    assert len(box.kwb_timings) == len(seen) and all(t["kernel_ms"] >= 0 for t in box.kwb_timings)


def test_a_link_to_an_unknown_control_is_an_error_at_once(lab):
    from kernel_workbook.errors import WorkbookParameterError

    with pytest.raises(WorkbookParameterError, match="links"):
        explorer(P(), ["nr_alloc_batch_shift"], lambda p: None, links={"machine": lambda m: {}})


def test_runs_ahead_are_the_runs_a_redraw_makes_and_a_notch_is_answered_from_them():
    """An explorer's runs for the next notches are made in the background; a redraw at a notch gets the run
    made ahead (the same value: the run is a pure function of the setting), a redraw elsewhere runs it."""
    import threading

    from kernel_workbook.ui.explorer import Runs

    calls, where = [], []

    def run(a, b):
        calls.append((a, b))
        where.append(threading.current_thread().name)
        return {"sum": a + b}

    runs = Runs(run)
    assert runs.get(1, 2) == {"sum": 3} and where[-1] == threading.main_thread().name
    runs.ahead([(1, 3), (1, 1), (1, 2)])  # (1, 2) is kept already: not run again
    for k in [(1, 3), (1, 1)]:
        assert runs.get(*k) == run(*k)  # waits for the one being made, or takes it made
    # each run once by Runs (ahead, or here if not started in time), once by the check above; (1, 2) kept
    assert calls.count((1, 3)) == calls.count((1, 1)) == 2 and calls.count((1, 2)) == 1
    assert runs.get(5, 5) == {"sum": 10}


def test_runs_ahead_wait_while_a_cell_runs_and_a_cell_asking_for_one_is_not_held():
    """While a notebook cell runs (Run All's later cells), nothing is made ahead; a cell that sets a widget and
    so asks for a setting queued ahead gets it run at once instead of waiting for itself to end."""
    import time

    from kernel_workbook.ui import explorer as E

    calls = []
    runs = E.Runs(lambda a: calls.append(a) or a * 10)
    idle = E.notebook_idle()
    idle.clear()  # a cell is running
    try:
        runs.ahead([(1,), (2,)])
        time.sleep(0.2)
        assert runs.made_ahead == 0 and calls == []
        assert runs.get(1) == 10 and calls == [1]  # run here, not waited for
    finally:
        idle.set()  # the cell ended
    deadline = time.monotonic() + 10
    while runs.made_ahead < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runs.get(2) == 20 and sorted(calls) == [1, 2]  # (2,) made ahead once idle; (1,) not made twice


def test_runs_ahead_are_made_at_the_lowest_priority():
    """The thread making runs ahead is niced (Linux: per thread), so the person's redraw comes first."""
    import sys
    import threading

    from kernel_workbook.ui.explorer import AHEAD_NICE, Runs

    if not sys.platform.startswith("linux"):
        pytest.skip("per-thread nice values are Linux's")
    base = os.getpriority(os.PRIO_PROCESS, 0)
    runs = Runs(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    runs.ahead([()])
    deadline = time.monotonic() + 10
    while runs.made_ahead < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runs.get() == max(base, AHEAD_NICE)  # made ahead: on the niced thread
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base  # this thread untouched


def test_a_run_ahead_of_another_setting_is_stopped_when_the_person_asks():
    """The person asks for a setting other than the one being made ahead: that run is stopped part-way (a model
    reads its thread's stop flag) and not kept, and the person's run does not share the CPU with it."""
    import threading

    from kernel_workbook.models.engine import RunStopped, stop_flag
    from kernel_workbook.ui.explorer import Runs

    started = threading.Event()

    def run(a):
        if a != "ahead":
            return a
        flag = stop_flag()
        started.set()
        t = time.monotonic()
        while not flag[0]:
            if time.monotonic() - t > 10:
                return "not stopped"
            time.sleep(0.001)
        raise RunStopped()

    runs = Runs(run)
    runs.ahead([("ahead",)])
    assert started.wait(10)
    assert runs.get("now") == "now"
    deadline = time.monotonic() + 10
    while runs._flight is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runs.made_ahead == 0  # stopped, not kept
    assert not stop_flag()[0]  # this thread's flag: a fresh one, never set


def test_a_run_ahead_being_made_when_a_cell_starts_is_made_again_after_it():
    """A cell starting (IPython's pre_run_cell) pauses the run ahead being made: it stops part-way, and is made
    once the notebook is idle again, not lost."""
    import threading

    from kernel_workbook.models.engine import RunStopped, stop_flag
    from kernel_workbook.ui import explorer as E

    started, calls = threading.Event(), []

    def run(a):
        calls.append(a)
        flag = stop_flag()
        started.set()
        if len(calls) > 1:
            return a * 10  # made again: whole
        t = time.monotonic()
        while not flag[0] and time.monotonic() - t < 10:
            time.sleep(0.001)
        raise RunStopped()

    runs = E.Runs(run)
    runs.ahead([(4,)])
    assert started.wait(10)
    idle = E.notebook_idle()
    idle.clear()
    runs.pause()  # what the pre_run_cell hook does for every explorer's runs
    time.sleep(0.2)
    assert calls == [4] and runs.made_ahead == 0  # stopped, waiting for the cell
    idle.set()  # the cell ended
    deadline = time.monotonic() + 10
    while runs.made_ahead < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == [4, 4] and runs.get(4) == 40


def test_no_run_ahead_starts_after_its_time():
    """``ahead_s``: runs queued ahead and not started by then are dropped (the person has looked long enough);
    asking for one runs it."""
    import time

    from kernel_workbook.ui.explorer import Runs

    calls = []
    runs = Runs(lambda a: calls.append(a) or (time.sleep(0.4), a)[1], ahead_s=0.2)
    runs.ahead([(1,), (2,), (3,)])
    time.sleep(1.0)
    assert runs.made_ahead == 1 and calls == [1]  # (1,) started in time, (2,) and (3,) did not
    assert runs.get(3) == 3 and calls == [1, 3]


def test_the_time_of_the_runs_ahead_counts_from_when_they_can_start():
    """Queued by an explorer's first draw in a Run All, the runs ahead wait for the notebook's later cells;
    their time starts when they do, not when the first draw queued them (else none would ever be made)."""
    from kernel_workbook.ui import explorer as E

    runs = E.Runs(lambda a: a, ahead_s=0.5)
    idle = E.notebook_idle()
    idle.clear()  # Run All: the cells below the explorer
    try:
        runs.ahead([(1,), (2,)])
        time.sleep(0.8)  # longer than ahead_s
    finally:
        idle.set()
    deadline = time.monotonic() + 10
    while runs.made_ahead < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runs.made_ahead == 2


def test_the_notches_of_a_slider_come_from_its_range_and_step():
    import ipywidgets as w

    from kernel_workbook.ui.explorer import notches

    assert notches(w.FloatSlider(value=2.0, min=0.25, max=3.0, step=0.05)) == [2.05, 1.95]
    assert notches(w.IntSlider(value=0, min=0, max=3000, step=250)) == [250]
    assert notches(w.SelectionSlider(options=[1, 2, 4, 8], value=8)) == [4]
    assert notches(w.Dropdown(options=["a", "b"], value="a")) == ["b"]
    # a menu: the choices next to the shown one, MENU_AHEAD (2) either side, nearest first
    assert notches(w.Dropdown(options=list("abcdef"), value="c")) == ["d", "b", "e", "a"]
    assert notches(w.Checkbox(value=False)) == [True]
    assert notches(w.Text(value="x")) == []
    # further out: nearest first, within the range; None is the whole range
    assert notches(w.FloatSlider(value=0.1, min=0.0, max=0.4, step=0.1), reach=2) == [0.2, 0.0, 0.3]
    assert notches(w.IntSlider(value=250, min=0, max=1000, step=250), reach=None) == [500, 0, 750, 1000]
    assert notches(w.SelectionSlider(options=[1, 2, 4, 8], value=8), reach=None) == [4, 2, 1]
    assert notches(w.Dropdown(options=list("abcdef"), value="a"), reach=None) == list("bcdef")


def test_runs_further_ahead_go_ring_by_ring_the_widget_moved_first(lab):
    """With ``reach=None`` every value of every widget is asked for, each widget's next notch before any
    widget's second, and in each ring the widget the person moved last first (they drag on)."""
    import ipywidgets as w
    from IPython.display import HTML

    from kernel_workbook.ui.explorer import widgets_in

    name = "numa_balancing_scan_period_min_ms"
    asked = []
    k = w.IntSlider(value=5, min=0, max=9, step=1)
    box = explorer(P(), [name], lambda p, k=0: HTML(str((p.value(name), k))), controls={"k": k},
                   ahead=lambda settings: asked.append(settings), reach=None)
    knob = next(s for s in widgets_in(box, w.IntSlider) if s is not k)
    v, step = knob.value, knob.step

    def ring(settings):  # (which widget, how far) of each setting asked for, in order
        return [("k", abs(c["k"] - 5)) if p.value(name) == v else (name, abs(p.value(name) - v) // step)
                for p, c in settings]

    first = ring(asked[-1])
    assert len(first) == 9 + len(notches_of(knob))  # the control's whole range and the knob's
    assert [d for _, d in first] == sorted(d for _, d in first)  # ring by ring
    assert first[:2] == [("k", 1), ("k", 1)]  # untouched: the grid's order (controls before knobs)
    knob.value = v + step  # the person moves the knob: from now on its notches come first in each ring
    v = knob.value
    again = ring(asked[-1])
    assert again[0] == (name, 1) and [d for _, d in again] == sorted(d for _, d in again)
    assert len(again) == 9 + len(notches_of(knob))


def notches_of(widget):
    from kernel_workbook.ui.explorer import notches

    return notches(widget, reach=None)


def test_an_explorer_runs_its_menus_boxes_and_kernel_presets_ahead(lab):
    """A menu, a checkbox and the kernel menu are one click away as a slider's notch is: their settings are
    asked for ahead, and a click on one redraws from the run made ahead (what a presenter clicking through the
    kernels waits for)."""
    from IPython.display import HTML

    from kernel_workbook.ui.explorer import Runs

    import time

    asked, calls = [], []

    def run(p):
        calls.append(p)
        return (p.NR_ALLOC_BATCH, p.nr_alloc_batch_shift, p.kswapd_stays_awake)

    runs = Runs(run)
    presets = {"vanilla": P(), "big": P().with_(NR_ALLOC_BATCH="managed>>shift", nr_alloc_batch_shift=4)}
    box = explorer(P(), ["NR_ALLOC_BATCH", "kswapd_stays_awake"], lambda p: HTML(str(runs.get(p))), presets=presets,
                   ahead=lambda settings: (asked.append([p for p, _ in settings]),
                                           runs.ahead([(p,) for p, _ in settings])))
    first = asked[-1]
    assert presets["big"] in first  # the other kernel, every knob at its preset value
    assert P().with_(NR_ALLOC_BATCH="managed>>shift") in first  # the menu's other choice
    assert P().with_(kswapd_stays_awake=True) in first  # the box ticked
    assert P() not in first  # not the setting shown
    deadline = time.monotonic() + 30
    while runs.made_ahead < len(first) and time.monotonic() < deadline:  # the person looks at the chart
        time.sleep(0.01)
    assert runs.made_ahead == len(first)
    _widgets(box)["kernel"].value = "big"
    # the click redrew from the run made ahead: the key a click makes is the key asked for, not run twice
    assert calls.count(presets["big"]) == 1
    assert presets["big"] not in asked[-1] and P() in asked[-1]  # and from there, back to vanilla is one click


def test_an_explorer_runs_the_next_notches_of_its_knobs_ahead(lab):
    import ipywidgets as w
    from IPython.display import HTML

    from kernel_workbook.ui.explorer import Runs, widgets_in

    name = "numa_balancing_scan_period_min_ms"
    asked = []
    runs = Runs(lambda p: p.value(name))
    box = explorer(P(), [name], lambda p: HTML(str(runs.get(p))),
                   ahead=lambda settings: (asked.append(settings), runs.ahead([(p,) for p, _ in settings])))
    s = widgets_in(box, w.IntSlider)[0]
    assert sorted(p.value(name) for p, _ in asked[-1]) == [s.value - s.step, s.value + s.step]
    s.value = s.value + s.step  # one notch: its run was asked for ahead, and is the run a redraw makes
    assert runs.get(P().with_(**{name: s.value})) == s.value
    assert sorted(p.value(name) for p, _ in asked[-1]) == [s.value - s.step, s.value + s.step]
