"""The one explorer builder: widgets from the knob declaration, presets, knobs greyed out where they do nothing."""

from __future__ import annotations

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


def test_a_control_with_a_width_floor_gets_a_row_of_its_own(lab):
    import ipywidgets as w

    wide = w.Dropdown(options=["pristine (3.1/3.16)"], description="deep-queue variant",
                      layout=w.Layout(width="auto", min_width="440px"))
    narrow = w.Dropdown(options=["16"], description="readers up to")
    box = explorer(P(), ["nr_alloc_batch_shift"], lambda p, **kw: None, controls={"variant": wide, "readers": narrow},
                   columns=3)
    rows = [c for c in box.children if isinstance(c, w.HBox)]
    grid = [c for c in box.children if isinstance(c, w.GridBox)][0]
    # a 440 px menu in a ~280 px grid column lay over its neighbour at 1280x720
    assert [list(r.children) for r in rows] == [[wide]] and wide not in grid.children
    assert grid.children[0] is narrow and rows[0].layout.flex_flow == "row wrap"
    assert box.children.index(rows[0]) < box.children.index(grid)
