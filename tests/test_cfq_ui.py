"""The disk/CFQ explorers and charts, driven the way a person would in the lab."""

import json
from pathlib import Path

import ipywidgets as w
import vl_convert as vlc

from kernel_workbook.models.cfq import DESKTOP_2014, IOParams, cfq_for_kernel, simulate
from kernel_workbook.tables import published
from kernel_workbook.heuristics.cfq.charts import (
    SERIES, cfq_explorer, deep_idle_explorer, df_counters, df_readers_sweep, df_timeline, plot_await_percentiles,
    plot_throughput_vs_readers, plot_timeline, runs_deep_marking, runs_target_latency, sweep_table,
)
from kernel_workbook.heuristics.cfq import aio_stress, tiobench
from widget_tree import all_widgets, find_widget

P = IOParams(cfq=cfq_for_kernel("3.16"), disk=DESKTOP_2014)


def _shown(box):
    """The status line and what the last redraw showed (outside a kernel an Output widget records nothing)."""
    parts = [h.value for h in all_widgets(box, w.HTML)]
    parts += [str(v) for k, v in box.kwb_shown.items() if k in ("table", "line")]
    return "\n".join(parts)


def test_explorer_labels_are_full_kernel_names_with_unit_and_source(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    box = cfq_explorer(P, readers=(1, 4))
    sl = find_widget(box, w.FloatSlider, "cfq_target_latency (ms)")
    assert sl.value == 600.0  # the widgets start at Mel Gorman's patch, the curve 'defaults' is 3.16's
    assert "block/cfq-iosched.c cfq_group_slice()" in sl.tooltip
    assert sl.tooltip.endswith("(on a running kernel: /sys/block/<dev>/queue/iosched/target_latency)")
    idle = find_widget(box, w.FloatSlider, "cfq_slice_idle (ms)")
    assert "cfq_arm_slice_timer()" in idle.tooltip and (idle.min, idle.max) == (0, 20)
    assert find_widget(box, w.Dropdown, "scheduler").options == ("noop", "deadline", "cfq")
    assert find_widget(box, w.Checkbox, "cfq_latency").value is True
    for wd in all_widgets(box, (w.FloatSlider, w.IntSlider, w.Dropdown, w.Checkbox)):
        assert wd.style.description_width == "initial"  # the label takes the room it needs: never cut


def test_explorer_recomputes_when_a_knob_moves(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    box = cfq_explorer(P, readers=(1, 4))
    before = _shown(box)
    assert "yours" in before and "SeqRead-MB/sec-4" in before
    find_widget(box, w.FloatSlider, "cfq_target_latency (ms)").value = 100.0
    after = _shown(box)
    assert after != before and "redrawn in" in after and "cfq_target_latency=100.0" in after
    find_widget(box, w.Dropdown, "scheduler").value = "deadline"
    find_widget(box, w.Dropdown, "deep-queue variant (2011 thread)").value = "w/o 8e1ac6655104"
    find_widget(box, w.Dropdown, "machine").value = "laptop-2014"
    assert "SeqRead-MB/sec-1" in _shown(box)


def test_explorer_is_static_in_ci(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "ci")
    assert cfq_explorer(P, readers=(1, 2)) is None
    assert deep_idle_explorer(small=True) is None


def test_deep_idle_explorer_in_the_lab(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    box = deep_idle_explorer(small=True)
    assert "MB/s" in _shown(box)
    find_widget(box, w.Dropdown, "deep-queue variant").value = "mark_cfqq_deep commented out"
    assert "mark_deep 0" in _shown(box)
    find_widget(box, w.Dropdown, "machine").value = "aio-stress-slow-hdd"
    assert find_widget(box, w.IntSlider, "usleep after io_submit (us)").value == 0
    find_widget(box, w.FloatSlider, "cfq_slice_idle (ms)").value = 0.0
    assert "cfq_slice_idle=0.0" in _shown(box)


def _spec(chart):
    return json.loads(chart.to_json())


def _scales(spec, channel):
    out = []

    def walk(x):
        if isinstance(x, dict):
            enc = x.get("encoding", {})
            if channel in enc and "scale" in enc[channel]:
                out.append(enc[channel]["scale"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(spec)
    return out


def test_charts_keep_colours_shapes_and_whole_legends(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "slides")
    sw = df_readers_sweep(P, (1, 2), mb_total=16, label="yours")
    pub = published("2014-seqread-fairzone-cfq", "cfq600-seqread")
    with_pub = _spec(plot_throughput_vs_readers(sw, pub))
    without = _spec(plot_throughput_vs_readers(sw.assign(label="defaults")))
    # each series name keeps its colour whatever else is drawn (another machine: no published points)
    colour = lambda spec: dict(zip(*(_scales(spec, "color")[0][k] for k in ("domain", "range"))))
    a, b = colour(with_pub), colour(without)
    assert a["yours"] == SERIES["yours"] and b["defaults"] == SERIES["defaults"]
    assert a["published: 3.16.0-rc1 cfq600"] == SERIES["published: 3.16.0-rc1 cfq600"]
    assert len(set(a.values())) == len(a)  # and no two series share one
    svg = vlc.vegalite_to_svg(plot_throughput_vs_readers(sw, pub).to_json())
    assert "published: 3.16.0-rc1 cfq600" in svg  # the legend label whole, never "publishe..."
    # the percentiles: distinct shapes and dashes in a legend of their own, not one black dot each
    pct = plot_await_percentiles(sw)
    shapes = _scales(_spec(pct), "shape")[0]
    assert shapes["domain"] == ["p50", "p90", "p99"] and len(set(shapes["range"])) == 3
    legends = vlc.vegalite_to_vega(pct.to_json())["legends"]
    assert any(lg.get("shape") == "shape" and lg.get("title") == "percentile" for lg in legends)
    # slides size: the chart and its legend (under the plot) fit a 1280 px projector
    assert with_pub["width"] == 900 and '"orient": "bottom"' in json.dumps(with_pub)
    width = float(svg.split('width="', 1)[1].split('"', 1)[0])
    assert width <= 1200


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
    c = df_counters({"a": r, "b": r})
    assert list(c.columns) == ["a", "b"] and "set_active" in c.index


def test_runs_deep_marking_with_and_without_mark_cfqq_deep():
    runs = runs_deep_marking(instances=4, file_mb=0.5)
    assert runs_deep_marking(instances=4, file_mb=0.5) is runs  # the timeline and the counters share the runs
    assert list(runs) == ["pristine", "no mark_deep"]
    c = df_counters(runs)
    # with the marking commented out no queue is ever marked deep, so none is cleared either
    assert c.loc["mark_deep", "no mark_deep"] == 0 and c.loc["clear_deep", "no mark_deep"] == 0
    assert c.loc["mark_deep", "pristine"] > 0
    assert len(runs["pristine"].workload.processes) == 4
    assert (df_timeline(runs["pristine"], 10, 50)["kind"] == "slice").any()  # the events were logged


def test_runs_target_latency_gives_four_readers_longer_slices_at_600_ms():
    runs = runs_target_latency(P, (300, 600), readers=4, mb_total=96)
    assert list(runs) == [300, 600]
    assert [r.params.cfq.cfq_target_latency for r in runs.values()] == [300.0, 600.0]
    slices = {lat: df_timeline(r, 0, 600).query("kind == 'slice'") for lat, r in runs.items()}
    # the notebook's claim: with four busy queues a slice is 300/4 = 75 ms (plus the jiffy rounding and the last
    # request's completion), the whole 100 ms base slice at 600 ms; the first reader's slice comes before the
    # others are busy
    long = {lat: (s["end_ms"] - s["start_ms"]).iloc[1:4] for lat, s in slices.items()}
    assert (long[300] < 100).all() and (long[600] >= 100).all()


def test_deep_idle_explorer_size_moves_less_than_the_seed():
    """What the 2011 notebook says of its explorer's smaller problem: pristine 3.1 on the RAID gives
    56-83 MB/s over seeds 1-6 with 8 MB files (the lab's tables) and 51-85 MB/s with 4 MB files
    (the explorer's), each machine calibrated at its own size."""
    from kernel_workbook.heuristics.cfq import deep_idle_2011 as d11
    from kernel_workbook.heuristics.cfq.charts import DEEP_VARIANTS

    table = "aio-stress-fast-raid"
    spans = {}
    for small in (False, True):
        p = d11.machine_params(table, small=small).with_(**DEEP_VARIANTS["pristine (3.1/3.16)"])
        w = aio_stress.patlasov_2011(usleep_us=1000.0, file_mb=d11.sizes(small).file_mb(table))
        xs = [simulate(p, w, seed=s, verbose=False).throughput_mb_s for s in range(1, 7)]
        spans[small] = (round(min(xs)), round(max(xs)))
    assert spans == {False: (56, 83), True: (51, 85)}
    text = (Path(__file__).parents[1] / "notebooks" / "2011-cfq-deep-idle.py").read_text()
    assert "56–83 MB/s over seeds 1–6 with 8 MB files" in text and "51–85 MB/s with 4 MB files" in text
