"""The sensitivity notebook's library side: tornado, seeds and heatmap frames from a sweep, and their charts."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import vl_convert

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.sweep import around, one_at_a_time, product, run_sweep
from kernel_workbook.ui import sensitivity_charts as sc
from sweep_toy import MODEL

KNOBS = ["cfq_slice_idle", "cfq_quantum", "nomerges", "elevator"]


@pytest.fixture(scope="module")
def oat():
    g = one_at_a_time(MODEL, around(MODEL, KNOBS), seeds=range(3), fixed={"min_free_kbytes": 1024})
    return run_sweep(g, workers=0, progress=False)


def mean_of(runs, output, **knobs):
    at = runs
    for k, v in knobs.items():
        at = at[at[k] == v]
    return at[output].mean()


def test_tornado_measures_each_knob_alone_from_the_kernels_setting(oat):
    t = sc.df_tornado(oat, "await_ms")
    assert set(t["knob"]) == set(KNOBS)  # the fixed min_free_kbytes is a column, not a bar
    home = {"cfq_slice_idle": 8.0, "cfq_quantum": 4, "nomerges": False, "elevator": "cfq"}
    base = mean_of(oat, "await_ms", **home)
    row = t[(t["knob"] == "cfq_quantum") & (t["value"] == 8)].iloc[0]
    want = mean_of(oat, "await_ms", **{**home, "cfq_quantum": 8})
    assert row["mean"] == pytest.approx(want, rel=1e-12) and row["home_mean"] == pytest.approx(base, rel=1e-12)
    assert row["delta_pct"] == pytest.approx((want / base - 1) * 100)
    assert row["side"] == sc.SIDES[1] and row["seeds"] == 3 and row["label"] == "cfq_quantum (requests)"
    assert t[(t["knob"] == "elevator")]["side"].eq(sc.SIDES[2]).all()
    assert sorted(t[t["knob"] == "elevator"]["value"]) == ["deadline", "noop"]
    # ranked by span, largest first; each knob's rows together
    spans = t.drop_duplicates("knob")["span_pct"].tolist()
    assert spans == sorted(spans, reverse=True) and t.drop_duplicates("knob")["rank"].tolist() == [1, 2, 3, 4]


def test_seeds_alone_and_the_heatmap(oat):
    s = sc.df_seeds(oat, "util_pct")
    assert list(s["seed"]) == [0, 1, 2] and s["mean"].iloc[0] == pytest.approx(s["value"].mean())
    assert s["delta_pct"].abs().max() > 0
    g = product(MODEL, around(MODEL, ["cfq_slice_idle", "cfq_quantum"], with_home=True), seeds=range(2))
    h = sc.df_heatmap(run_sweep(g, workers=0, progress=False), "await_ms", "cfq_slice_idle", "cfq_quantum")
    assert len(h) == 9 and (h["seeds"] == 2).all()
    assert h[(h["x"] == 8.0) & (h["y"] == 4)]["delta_pct"].iloc[0] == 0.0
    assert h.attrs["knobs"]["units"] == {"cfq_slice_idle": "ms", "cfq_quantum": "requests"}


def test_bad_questions_name_what_the_sweep_has(oat):
    with pytest.raises(WorkbookParameterError, match="output='MB/s': expected an output of the sweep: await_ms"):
        sc.df_tornado(oat, "MB/s")
    with pytest.raises(WorkbookParameterError, match="output='cfq_quantum'"):
        sc.df_tornado(oat, "cfq_quantum")
    two = run_sweep(product(MODEL, {"cfq_quantum": [2]}, variants="all"), workers=0, progress=False)
    with pytest.raises(WorkbookParameterError, match="variant=None: expected one of 3.0, 3.0-nomerges"):
        sc.df_seeds(two, "await_ms")
    assert len(sc.df_tornado(two, "await_ms", variant="3.0-nomerges")) == 1
    with pytest.raises(WorkbookParameterError, match="knob='x'"):
        sc.df_heatmap(oat, "await_ms", "x", "cfq_quantum")
    with pytest.raises(WorkbookParameterError, match="a sweep table"):
        sc.df_tornado(pd.DataFrame({"await_ms": [1.0]}), "await_ms")


def test_published_cell_is_read_from_the_thread():
    c = sc.df_published_cell("2014-seqread-fairzone-cfq", "cfq600-seqread", "Mean", "SeqRead-MB/sec-16",
                             "3.16.0-rc1 cfq600").iloc[0]
    assert c["baseline"] == "3.16.0-rc1 vanilla" and c["pct"] == pytest.approx((c["value"] / c["base_value"] - 1)
                                                                               * 100, abs=0.01)
    with pytest.raises(WorkbookParameterError, match="kernel='4.0'"):
        sc.df_published_cell("2014-seqread-fairzone-cfq", "cfq600-seqread", "Mean", "SeqRead-MB/sec-16", "4.0")


def test_charts_render_with_full_labels_fixed_colours_and_the_reference_spelled_out(oat):
    t = sc.df_tornado(oat, "await_ms")
    ref = pd.DataFrame({"label": ["published: 3.16.0-rc1 cfq600 vs vanilla"], "pct": [12.18]})
    chart = sc.plot_tornado(t, seeds=sc.df_seeds(oat, "await_ms"), reference=ref, output="await_ms")
    spec = json.loads(chart.to_json())
    svg = vl_convert.vegalite_to_svg(chart.to_json())
    for label in ("cfq_slice_idle (ms)", "cfq_quantum (requests)", "published: 3.16.0-rc1 cfq600 vs vanilla",
                  "below the kernel's setting"):
        assert label in svg
    colours = [layer["encoding"]["color"] for layer in spec["layer"] if "color" in layer.get("encoding", {})
               and "scale" in layer["encoding"]["color"]]
    assert colours and colours[0]["scale"]["domain"] == sc.SIDES  # the same colour for a side in every chart
    assert spec["width"] <= 900
    g = product(MODEL, around(MODEL, ["cfq_slice_idle", "elevator"], with_home=True))
    h = sc.df_heatmap(run_sweep(g, workers=0, progress=False), "await_ms", "cfq_slice_idle", "elevator")
    svg = vl_convert.vegalite_to_svg(sc.plot_heatmap(h).to_json())
    assert "cfq_slice_idle (ms)" in svg and "deadline" in svg
