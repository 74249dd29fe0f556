"""The sensitivity notebook's study in the library: its grids, where they run, and what it says in words."""

from __future__ import annotations

import pandas as pd
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.heuristics.cfq.seqread_2014 import DESKTOP_RAM_MB, Sizes
from kernel_workbook.ui import sensitivity_charts as sc

RATE = 128.0  # MB/s: a machine of the notebook's size, not fitted here (the fit is seqread_2014's, tested there)
FITTED = pd.DataFrame({"parameter": ["media_rate_mb_s"], "value": [RATE], "unit": ["MB/s"]})
SIZE = Sizes(iterations=2, mb_total=32.0, rand_ops=10, others=False)  # two seeds, a small file: a quick sweep
CELL = sc.df_published_cell("2014-seqread-fairzone-cfq", "cfq600-seqread", "Mean", "SeqRead-MB/sec-16",
                            "3.16.0-rc1 cfq600")


@pytest.fixture(scope="module")
def sweeps():
    return sc.grids(FITTED, SIZE, DESKTOP_RAM_MB, small=True)


@pytest.fixture(scope="module")
def runs(sweeps):
    client = sc.start(small=True)
    assert client is None  # CI mode: in this process, no Dask
    out = sc.run(sweeps.one_at_a_time, client), sc.run(sweeps.noise, client)
    sc.close(client)
    return out


def test_grids_sweep_every_tunable_on_the_fitted_machine(sweeps):
    oat = sweeps.one_at_a_time.df()
    assert set(sc.CFQ_TUNABLES) <= set(oat.columns) and len(sc.CFQ_TUNABLES) == 12
    assert (oat["media_rate_mb_s"] == RATE).all() and set(oat["variant"]) == {"3.16"}
    assert set(oat["seed"]) == {0, 1} and set(oat["workload"]) == {"tiobench-seqread"}
    assert sweeps.one_at_a_time.workload_kw == {"threads": 16, "ram_mb": DESKTOP_RAM_MB, "mb_total": 32.0}
    # the patch's value is one of the points: target_latency doubled from 3.16's 300 ms
    assert 600.0 in set(oat["cfq_target_latency"]) and 150.0 in set(oat["cfq_target_latency"])
    noise = sweeps.noise.df()
    assert list(noise["seed"]) == list(range(8)) and (noise["media_rate_mb_s"] == RATE).all()
    assert len(sc.grids(FITTED, SIZE, DESKTOP_RAM_MB, small=False).noise) == 32
    lines = sc.grids_prose(sweeps).text.split("\n")
    assert lines == [f"* {sweeps.one_at_a_time.describe()}", f"* {sweeps.noise.describe()}"]
    assert lines[1] == "* 8 runs of cfq (product: media_rate_mb_s; 1 kernel(s), 1 workload(s), 8 seed(s))"


def test_grids_want_the_media_rate_fit():
    other = pd.DataFrame({"parameter": ["seek_ms"], "value": [8.0]})
    with pytest.raises(WorkbookParameterError, match="fitted='seek_ms': expected a fit of media_rate_mb_s"):
        sc.grids(other, SIZE, DESKTOP_RAM_MB, small=True)


def test_pair_grid_crosses_the_patch_knob_with_another(sweeps):
    pair = sc.pair_grid(sweeps, "cfq_latency").df()
    assert sorted(set(pair["cfq_target_latency"])) == [150.0, 300.0, 600.0]
    assert sorted(set(pair["cfq_latency"])) == [False, True] and len(pair) == 3 * 2 * 2  # x, y, seeds
    assert (pair["media_rate_mb_s"] == RATE).all() and set(pair["seed"]) == {0, 1}
    wide = sc.grids(FITTED, SIZE, DESKTOP_RAM_MB, small=False)
    assert sorted(set(sc.pair_grid(wide, "cfq_slice_idle").df()["cfq_target_latency"])) == \
        [75.0, 150.0, 300.0, 600.0, 1200.0]


def test_start_asks_for_a_cluster_outside_ci_mode(monkeypatch):
    asked = []
    monkeypatch.setattr(sc, "start_client", lambda scheduler=None: asked.append(scheduler) or "client")
    assert sc.start(small=True) is None and asked == []
    assert sc.start(small=False) == "client" and asked == [None]
    assert sc.start(small=True, scheduler="tcp://h:8786") == "client" and asked[-1] == "tcp://h:8786"

    class Client:
        closed = False

        def close(self):
            self.closed = True

    c = Client()
    sc.close(c)
    sc.close(None)
    assert c.closed


def test_findings_give_the_patchs_change_measured_from_the_runs(runs):
    oat, noise = runs
    tornado = sc.df_tornado(oat, "MB/s")
    seeds = sc.df_seeds(noise, "MB/s")
    knobs = oat.attrs["sweep"]["home"][0]["knobs"]  # 3.16's own setting of every tunable
    assert knobs["cfq_target_latency"] == 300.0
    others = [k for k in knobs if k != "cfq_target_latency"]
    rest = (oat[others] == pd.Series({k: knobs[k] for k in others})).all(axis=1)
    home, moved = rest & (oat["cfq_target_latency"] == 300.0), rest & (oat["cfq_target_latency"] == 600.0)
    want = (oat.loc[moved, "MB/s"].mean() / oat.loc[home, "MB/s"].mean() - 1) * 100
    assert moved.sum() == 2 and home.sum() == 2
    lines = sc.findings_prose(tornado, seeds, CELL).text.split("\n")
    assert lines[0] == f"* `target_latency` 300 → 600: model **{want:+.2f} %**, published **+12.18 %**"
    noise_pct = seeds["delta_pct"].abs().max()
    assert lines[1] == f"* seeds alone move the cell by up to {noise_pct:.2f} %"
    spans = tornado.drop_duplicates("knob").set_index("knob")["span_pct"]
    assert lines[2] == "* knobs that move it more than the seeds do: " + \
        ", ".join(f"`{k}`" for k in sorted(spans[spans > noise_pct].index))
    assert lines[3] == "* knobs that change no run at all: " + \
        ", ".join(f"`{k}`" for k in sorted(spans[spans == 0].index))
    assert "`cfq_target_latency`" in lines[2] and "`cfq_slice_async`" in lines[3]  # the readers never write
    assert sc.other_knob(tornado) == tornado.loc[tornado["knob"] != "cfq_target_latency", "knob"].iloc[0]
    with pytest.raises(WorkbookParameterError, match="value=700.0"):
        sc.findings_prose(tornado, seeds, CELL, value=700.0)


def test_miss_prose_sets_the_models_mean_against_the_baseline(runs):
    seeds = sc.df_seeds(runs[1], "MB/s")
    model = runs[1]["MB/s"].mean()
    text = sc.miss_prose(seeds, CELL, kernel="3.16 vanilla").text
    assert text == (f"SeqRead-MB/sec-16, 3.16 vanilla: model **{model:.2f} MB/s**, published **68.90 MB/s** "
                    f"({(model / 68.9 - 1) * 100:+.1f} %)")


def test_seeds_prose_and_the_published_change():
    seeds = pd.DataFrame({"seed": [0, 1, 2], "value": [99.0, 102.0, 99.0], "mean": 100.0,
                          "delta_pct": [-1.0, 2.0, -1.0]})
    assert str(sc.seeds_prose(seeds)) == "Seeds alone: **-1.00 % .. +2.00 %** around the mean of 3 seeds."
    ref = sc.df_published_change(CELL)
    assert list(ref.columns) == ["label", "pct"]
    assert ref.iloc[0]["label"] == "published: 3.16.0-rc1 cfq600 vs vanilla"
    assert ref.iloc[0]["pct"] == pytest.approx(12.18)


def test_other_knob_skips_the_patchs_knob():
    tornado = pd.DataFrame({"knob": ["cfq_target_latency", "cfq_latency", "cfq_slice_idle"]})
    assert sc.other_knob(tornado) == "cfq_latency"
    assert sc.other_knob(tornado, knob="cfq_latency") == "cfq_target_latency"
    with pytest.raises(WorkbookParameterError, match="a knob besides cfq_target_latency"):
        sc.other_knob(tornado.iloc[:1])


def test_heatmap_title_names_the_output():
    heat = pd.DataFrame({"x": [300.0], "y": [True], "mean": [80.0], "home_mean": 80.0, "delta_pct": [0.0],
                         "seeds": [2]})
    heat.attrs["knobs"] = {"x": "cfq_target_latency", "y": "cfq_latency", "units": {}, "output": "MB/s"}
    titled = sc.plot_heatmap(heat, output="SeqRead MB/s").title.text
    assert titled == "SeqRead MB/s: cfq_target_latency and cfq_latency"
    assert sc.plot_heatmap(heat).title.text == "MB/s: cfq_target_latency and cfq_latency together"


def test_findings_weigh_each_knob_against_the_seeds_largest_swing_either_way():
    # the seeds swing -3 % .. +1 %: a knob must move the cell more than 3 % (a span of exactly 3 is not more)
    seeds = pd.DataFrame({"seed": [0, 1], "value": [97.0, 101.0], "mean": 100.0, "delta_pct": [-3.0, 1.0]})
    tornado = pd.DataFrame({
        "knob": ["cfq_target_latency", "cfq_target_latency", "cfq_slice_idle", "cfq_quantum", "cfq_quantum"],
        "home": [300.0, 300.0, 8.0, 4, 4], "value": [150.0, 600.0, 16.0, 2, 8],
        "delta_pct": [-2.0, 5.5, 3.0, 0.0, 0.0], "span_pct": [7.5, 7.5, 3.0, 0.0, 0.0]})
    assert sc.findings_prose(tornado, seeds, CELL).text == (
        "* `target_latency` 300 → 600: model **+5.50 %**, published **+12.18 %**\n"
        "* seeds alone move the cell by up to 3.00 %\n"
        "* knobs that move it more than the seeds do: `cfq_target_latency`\n"
        "* knobs that change no run at all: `cfq_quantum`")
