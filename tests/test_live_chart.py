"""Live charts: after a redraw swaps the data, the chart is the one built from scratch with that data."""

import altair as alt
import ipywidgets as w
import numpy as np
import pandas as pd
import pytest

from kernel_workbook.config import setup
from kernel_workbook.models.cfq import DESKTOP_2014, IOParams, cfq_for_kernel
from kernel_workbook.tables import published
from kernel_workbook.tables.compare import _groups, compare
from kernel_workbook.heuristics.cfq import charts as cq
from kernel_workbook.heuristics.compaction import charts as cc
from kernel_workbook.heuristics.fairzone import charts as fc
from kernel_workbook.heuristics.numa import charts as nc
from kernel_workbook.ui.charts import LiveChart
from widget_tree import find_widget

P = IOParams(cfq=cfq_for_kernel("3.16"), disk=DESKTOP_2014)


@pytest.fixture
def renderer():
    """Restore Altair's renderer after a test that enables the lab's."""
    old, opts = alt.renderers.active, dict(alt.renderers.options)
    yield
    alt.renderers.enable(old, **opts)


def _sweep(seed: int, labels=("defaults", "yours"), readers=(1, 2, 4)) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [{"label": lab, "readers": n, "seed": 0, "MB/s": rng.uniform(20, 120), "p50_ms": rng.uniform(0.1, 5),
             "p90_ms": rng.uniform(5, 20), "p99_ms": rng.uniform(20, 300), "max_ms": 400.0}
            for lab in labels for n in readers]
    return pd.DataFrame(rows)


def _sweep_case(seed: int, pub=None):
    sw = _sweep(seed)
    (d, p), tp = cq._throughput_parts(sw, pub, "tiobench SeqRead")
    (long,), lat = cq._await_parts(sw, "read latency (await), percentiles")
    return (d, p, long), {"throughput": tp, "latency": lat}


def _timeline_frames(seed: int, n_queues: int = 3):
    rng = np.random.default_rng(seed)
    qs = [f"queue {i}" for i in range(n_queues)]
    slices = pd.DataFrame({"kind": "slice", "queue": qs, "start_ms": rng.uniform(0, 10, n_queues),
                           "end_ms": rng.uniform(10, 40, n_queues), "detail": "sync tree, expired (done)"})
    idles = pd.DataFrame({"kind": "idle", "queue": qs[:1], "start_ms": rng.uniform(0, 5, 1),
                          "end_ms": rng.uniform(5, 9, 1), "detail": "idle window (slice_idle)"})
    marks = pd.DataFrame({"kind": "dispatch", "queue": qs, "start_ms": rng.uniform(0, 40, n_queues),
                          "end_ms": 0.0, "detail": "2 request(s) dispatched"})
    marks["end_ms"] = marks["start_ms"]
    opts = {"x_domain": (0, 40), "queues": n_queues, "head": "aio-stress-fast-raid, pristine", "subtitle": []}
    return (slices, idles, marks), opts


def _scan_frames(seed: int):
    rng = np.random.default_rng(seed)
    t = np.arange(0, 10.0, 0.5)
    d = pd.DataFrame({"t_s": t, "numa_scan_period_ms": rng.uniform(100, 2000, len(t)), "task_scan_min_ms": 100.0,
                      "task_scan_max_ms": 2000.0, "node": rng.integers(0, 4, len(t))})
    return (d,), {"title": "task 0: numa_scan_period", "caption": "NUMA02_SMT on mel-4socket-48"}


def _fault_frames(seed: int):
    rng = np.random.default_rng(seed)
    t = np.arange(0, 10.0, 1.0)
    long = pd.DataFrame({"t_s": np.tile(t, 4), "what": np.repeat(["local", "remote", "migrated", "failed"], len(t)),
                         "count": rng.integers(0, 5000, 4 * len(t))})
    return ((long[long["what"].isin(["local", "remote"])], long[long["what"].isin(["migrated", "failed"])]),
            {"title": "NUMA02_SMT: faults and migrations"})


def _passes(seed: int):
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"pass": cc.PASSES, "attempts": 100, "allocated": rng.integers(0, 100, 3)})
    d["success_pct"] = d["allocated"] / d["attempts"] * 100.0
    said = pd.DataFrame({"settings": [f"compact_max_defer_shift={seed} (a 256 MB zone)"]})
    return (d, said), {"title": "stress-highalloc on contended-v5: success per pass"}


def _fairzone(seed: int):
    rng = np.random.default_rng(seed)
    ks = ["3.16-rc1 vanilla", "fairzone (your knobs)"]
    spread = pd.DataFrame([{"kernel": k, "source": src, "zone": z, "allocs": float(rng.integers(1, 10**6)),
                            "percent": rng.uniform(0, 100)}
                           for src in ("model", "published") for k in ks for z in ("DMA32", "Normal")])
    velocity = pd.DataFrame([{"kernel": k, "zone": z, "velocity": rng.uniform(0, 1e5)} for k in ks
                             for z in ("DMA32", "Normal")])
    return (spread, velocity), {}


CASES = {
    "cfq sweep": (cq._sweep_charts, _sweep_case),
    "cfq sweep with published points": (
        cq._sweep_charts, lambda s: _sweep_case(s, published("2014-seqread-fairzone-cfq", "cfq600-seqread"))),
    "cfq timeline": (cq._timeline_chart, _timeline_frames),
    "numa scan period": (nc._scan_period_chart, _scan_frames),
    "numa faults": (nc._faults_chart, _fault_frames),
    "compaction passes": (cc.plot_explore, _passes),
    "fairzone spread and velocity": (fc._explore_charts, _fairzone),
}


@pytest.mark.parametrize("mode_name", ["lab", "slides"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_swapped_chart_equals_the_chart_built_from_scratch(case, mode_name, monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", mode_name)
    build, make = CASES[case]
    live = LiveChart(build)
    first_frames, opts = make(1)
    first = live.spec(*first_frames, **opts)
    assert first == build(*first_frames, **opts).to_dict()
    for seed in (2, 3):
        frames, opts = make(seed)
        scratch = build(*frames, **opts).to_dict()
        assert scratch != first  # the data differ: a swap that kept the old data would fail below
        assert live.spec(*frames, **opts) == scratch
    assert len(live._templates) == 1  # one structure: built once, then only the data swapped


def test_the_template_is_reused_and_rebuilt_when_the_structure_changes(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    calls = []

    def build(*frames, **opts):
        calls.append(1)
        return cq._timeline_chart(*frames, **opts)

    live = LiveChart(build)
    for seed in (1, 2, 3):
        frames, opts = _timeline_frames(seed)
        assert live.spec(*frames, **opts) == cq._timeline_chart(*frames, **opts).to_dict()
    assert len(calls) == 1
    frames, opts = _timeline_frames(4, n_queues=5)  # another height: another structure
    assert live.spec(*frames, **opts) == cq._timeline_chart(*frames, **opts).to_dict()
    assert len(calls) == 2
    # a column's dtype changes what Altair infers for an untyped field: another structure too
    (s, i, m), opts = _timeline_frames(5)
    s = s.assign(queue=s["queue"].str.len())
    assert live.spec(s, i, m, **opts) == cq._timeline_chart(s, i, m, **opts).to_dict()
    assert len(calls) == 3


def test_frames_with_the_same_records_are_not_confused(monkeypatch):
    """Two layers that happen to hold the same records share one dataset: which reference is which is
    then unknown, so such a chart is rebuilt rather than swapped."""
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    live = LiveChart(cq._timeline_chart)
    (s, i, m), opts = _timeline_frames(1)
    empty = i.iloc[:0]
    assert live.spec(s, empty, empty.copy(), **opts) == cq._timeline_chart(s, empty, empty.copy(), **opts).to_dict()
    (s, i, m), opts = _timeline_frames(2)
    assert live.spec(s, i, m, **opts) == cq._timeline_chart(s, i, m, **opts).to_dict()
    (s, i, m), opts = _timeline_frames(3)
    assert live.spec(s, i, m, **opts) == cq._timeline_chart(s, i, m, **opts).to_dict()


def test_show_is_one_jupyter_chart_in_the_lab_and_the_chart_itself_elsewhere(monkeypatch, renderer):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    setup(verbose=False)
    live = LiveChart(cc.plot_explore)
    shown = []
    for seed in (1, 2):
        frames, opts = _passes(seed)
        shown.append(live.show(*frames, **opts))
        assert isinstance(shown[-1], alt.JupyterChart)
        assert shown[-1].spec == cc.plot_explore(*frames, **opts).to_dict()
    assert shown[0] is shown[1]  # the same widget: its spec replaced in place
    monkeypatch.setenv("WORKBOOK_MODE", "ci")
    setup(verbose=False)
    frames, opts = _passes(3)
    chart = live.show(*frames, **opts)
    assert isinstance(chart, alt.TopLevelMixin)
    assert chart.to_dict() == cc.plot_explore(*frames, **opts).to_dict()



def test_the_cfq_explorer_shows_after_each_move_what_a_fresh_chart_of_its_sweep_shows(monkeypatch, renderer):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    setup(verbose=False)
    pub = published("2014-seqread-fairzone-cfq", "cfq600-seqread")
    box = cq.cfq_explorer(P, published_cells=pub, readers=(1, 4))
    slider = find_widget(box, w.FloatSlider, "cfq_target_latency (ms)")
    specs = []
    for v in (100.0, 300.0):
        slider.value = v
        sw, chart = box.kwb_shown["sweep"], box.kwb_shown["chart"]
        fresh = alt.vconcat(cq.plot_throughput_vs_readers(sw, pub), cq.plot_await_percentiles(sw)).to_dict()
        assert isinstance(chart, alt.JupyterChart) and chart.spec == fresh
        specs.append(fresh)
    assert specs[0] != specs[1]


def test_compare_groups_as_pandas_does_and_ignores_attrs():
    df = pd.DataFrame({"kernel": ["b", "a", "b", None, "a", "a"], "row": ["x", "y", "x", "x", None, "x"],
                       "value": [1, 2, 3, 4, 5, 6]})
    want = {k: g["value"].to_numpy(dtype=float) for k, g in df.groupby(["kernel", "row"], sort=False)}
    got = _groups(df)
    assert list(got) == list(want)
    assert all(np.array_equal(got[k], want[k]) and got[k].dtype == want[k].dtype for k in want)
    clean = df.dropna()
    carried = clean.copy()
    carried.attrs["run"] = {"a model run": np.zeros(10)}
    pd.testing.assert_frame_equal(compare(carried), compare(clean))


def test_records_are_altairs_values():
    from kernel_workbook.ui.charts import _records

    df = pd.DataFrame({"s": ["a", None, "c"], "f": [1.0, np.nan, np.inf], "i": [1, 2, 3], "b": [True, False, True],
                       "o": ["x", 1, None], "u": np.array([1, 2, 3], dtype=np.uint8),
                       "f32": np.array([0.1, np.nan, 2], dtype=np.float32),
                       "t": pd.to_datetime(["2014-06-01", None, "2014-06-03"])})
    for cols in (["s", "f", "i", "b"], ["s", "o"], ["u", "f32"], ["t", "i"], []):
        got, want = _records(df[cols]), alt.data_transformers.get()(df[cols])["values"]
        assert got == want and [list(map(type, r.values())) for r in got] == [list(map(type, r.values())) for r in want]


def test_the_writeback_explorers_queue_chart_is_the_one_plot_queue_draws(monkeypatch, renderer):
    """2007's explorer swaps the data of its queue chart (once rebuilt and validated at every move: 250 ms of a
    redraw); after each run it must show what plot_queue draws of that run."""
    from kernel_workbook.models.writeback import params_for, simulate
    from kernel_workbook.heuristics.writeback.workloads_2007 import akpm_test
    from kernel_workbook.heuristics.writeback import charts as wc

    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    setup(verbose=False)
    live = LiveChart(wc._queue_chart)
    w0 = akpm_test(machine_mb=512.0, duration_s=1.0)
    specs = []
    for low in (128.0, 256.0):
        r = simulate(params_for("before c4e2d7dd"), w0.with_(lowmem_mb=low, highmem_mb=512.0 - low), seed=1,
                     verbose=False)
        shown = live.show(wc.df_queue_held(r), wc.df_queue_limits(r), title="t")
        assert isinstance(shown, alt.JupyterChart) and shown.spec == wc.plot_queue(r, title="t").to_dict()
        specs.append(shown.spec)
    assert specs[0] != specs[1]
