"""The disk/CFQ panels and charts, driven the way a person would in the lab."""

import ipywidgets as w
import vl_convert as vlc

from kernel_workbook.models.cfq import IOParams, simulate
from kernel_workbook.models.cfq_params import cfq_for_kernel
from kernel_workbook.models.disk import DESKTOP_2014
from kernel_workbook.ui.cfq_charts import (
    cfq_explorer, deep_idle_explorer, df_readers_sweep, df_timeline, plot_await_percentiles,
    plot_throughput_vs_readers, plot_timeline, sweep_table,
)
from kernel_workbook.workloads import tiobench

P = IOParams(cfq=cfq_for_kernel("3.16"), disk=DESKTOP_2014)


def _find(box, cls, description):
    stack = [box]
    while stack:
        x = stack.pop()
        if isinstance(x, cls) and getattr(x, "description", None) == description:
            return x
        stack.extend(getattr(x, "children", ()))
    raise AssertionError(f"no {cls.__name__} {description!r}")


def _html(box):
    stack, out = [box], []
    while stack:
        x = stack.pop()
        if isinstance(x, w.HTML):
            out.append(x.value)
        stack.extend(getattr(x, "children", ()))
    return "\n".join(out)


def test_explorer_recomputes_when_a_knob_moves(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    box = cfq_explorer(P, readers=(1, 4))
    assert isinstance(box, w.HBox)
    assert "yours" in _html(box) and "SeqRead-MB/sec-4" in _html(box)
    before = _html(box)
    _find(box, w.IntSlider, "target_latency ms").value = 100
    after = _html(box)
    assert after != before and "simulated" in after
    _find(box, w.ToggleButtons, "scheduler").value = "deadline"
    _find(box, w.Dropdown, "deep variant").value = "w/o 8e1ac6655104"
    _find(box, w.Dropdown, "machine").value = "laptop-2014"
    assert "SeqRead-MB/sec-1" in _html(box)


def test_explorer_is_static_in_ci(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "ci")
    assert cfq_explorer(P, readers=(1, 2)) is None
    assert deep_idle_explorer(small=True) is None


def test_deep_idle_explorer_in_the_lab(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    box = deep_idle_explorer(small=True)
    assert "MB/s" in _html(box)
    _find(box, w.Dropdown, "deep variant").value = "mark_cfqq_deep commented out"
    assert "mark_deep 0" in _html(box)
    _find(box, w.Dropdown, "machine").value = "aio-stress-slow-hdd"
    assert _find(box, w.IntSlider, "usleep us").value == 0


def test_charts_render_offline_and_the_timeline_pairs_slices():
    sw = df_readers_sweep(P, (1, 2), mb_total=16)
    assert list(sw.columns) == ["label", "readers", "seed", "MB/s", "p50_ms", "p90_ms", "p99_ms", "max_ms"]
    t = sweep_table(sw.assign(label="a"), "a")
    assert set(t["row"]) == {"SeqRead-MB/sec-1", "SeqRead-MB/sec-2"}
    for ch in (plot_throughput_vs_readers(sw), plot_await_percentiles(sw)):
        assert vlc.vegalite_to_svg(ch.to_json()).startswith("<svg")
    r = simulate(P, tiobench.seqread(3, mb_total=24), seed=1, log_events=5000)
    d = df_timeline(r)
    sl = d[d["kind"] == "slice"]
    assert len(sl) >= 3 and (sl["end_ms"] >= sl["start_ms"]).all()
    # one queue at a time holds the disk: slices never overlap
    s = sl.sort_values("start_ms")
    assert (s["start_ms"].to_numpy()[1:] >= s["end_ms"].to_numpy()[:-1] - 1e-9).all()
    assert vlc.vegalite_to_svg(plot_timeline(r, 0, 100).to_json()).startswith("<svg")
