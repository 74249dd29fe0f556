"""Charts of the compaction model: valid specs, fixed colours, model and capture on one chart."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from kernel_workbook.models.compaction import params_for, simulate
from kernel_workbook.traces import load
from kernel_workbook.heuristics.compaction import charts as cc
from kernel_workbook.heuristics.compaction.stress_highalloc import small

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def run():
    return simulate(params_for("revert-v5"), small(zone_mb=32, machine_mb=256), seed=3, verbose=False)


@pytest.fixture(scope="module")
def capture():
    return load(ROOT / "data/traces/memory-pressure/bundle/proc-buddyinfo-pressure.gz")


def _spec(chart) -> dict:
    d = chart.to_dict()
    assert "$schema" in d
    return d


def test_scanner_picture_has_the_zone_and_three_lines(run):
    pos, pb = cc.df_scanners(run)
    assert set(pos["scanner"]) == set(cc.SCANNERS)
    assert pb["start_pfn"].iloc[0] == 0 and pb["blocks"].sum() == run.derived["nr_pageblocks"]
    assert set(pb["type"]) <= set(cc.TYPES)
    d = _spec(cc.plot_scanners(run))
    assert len(d["vconcat"]) == 2


def test_colours_are_fixed_by_name(run):
    d = _spec(cc.plot_success(pd.DataFrame({"kernel": ["revert-v5", "capture-v5"], "pass": ["Pass 1", "Pass 1"],
                                            "published": [0.0, 45.0], "model": [1.0, 40.0]})))
    scale = d["encoding"]["color"]["scale"]
    assert scale["domain"] == ["published", "model"]  # published spelled out, a colour per source
    assert cc.TYPE_COLORS.domain == cc.TYPES and cc.KERNEL_COLORS.domain == cc.KERNELS


def test_model_and_capture_share_the_buddyinfo_charts(run, capture):
    f = cc.df_free_by_order(run.buddyinfo(), "model")
    g = cc.df_free_by_order(capture, "capture")
    assert list(f.columns) == list(g.columns)
    shares = f.dropna().groupby("elapsed")["share"].sum()
    assert ((shares - 1).abs() < 1e-9).all()
    _spec(cc.plot_free_by_order(run.buddyinfo(), capture))
    d = cc.df_fragmentation_over_time(run.buddyinfo(), capture)
    assert set(d["source"]) == {"model", "capture"}
    assert d["value"].between(-1, 1).all()
    _spec(cc.plot_fragmentation(run.buddyinfo(), capture))


def test_explorer_draws_statically_in_ci(capsys):
    assert cc.compaction_explorer(small(zone_mb=16, machine_mb=128)) is None


def test_explorer_knobs_are_declared_with_kernel_names():
    from kernel_workbook.models.compaction import CompactionParams

    for k in cc.EXPLORER_KNOBS:
        knob = CompactionParams.knob(k)
        assert knob.source and knob.label.startswith(k)


def test_explorer_follows_its_widgets_in_the_lab(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    panel = cc.compaction_explorer(small(zone_mb=16, machine_mb=128), variant="contended-v5")
    head, grid, status, out = panel.children
    widgets = {getattr(w_, "description", ""): w_ for w_ in grid.children}
    assert "compact_capture_page" in widgets and "background load (x the fitted builds)" in widgets
    assert all(k in widgets for k in ("extfrag_threshold", "min_free_kbytes (KiB)", "compact_max_defer_shift"))
    assert "sysctl_extfrag_threshold" in widgets["extfrag_threshold"].tooltip  # kernel name and source on hover
    widgets["compact_capture_page"].value = True  # a person ticks a box: the run is redone
    assert "redrawn" in status.value and "compact_capture_page=True" in status.value
    widgets["extfrag_threshold"].value = 1000  # the slider's end of the knob's declared range
    assert "extfrag_threshold=1000" in status.value


def test_explorer_runs_the_reproductions_zone_by_default(monkeypatch):
    """A smaller slice is not the same test (its watermarks shrink, 2 << order does not): the explorer's 256 MB
    slice showed about 1% success where the reproduction's zone shows 60-97%."""
    import threading

    from kernel_workbook.heuristics.compaction import stress_highalloc as sh

    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    monkeypatch.setenv("KWB_RUNS_AHEAD", "off")  # no background runs outliving the test
    seen = []

    def df_explore(params, workload, background_load=1.0, seed=1):
        # the draw's own run, on this thread: an earlier test's explorer may still be running ahead on another
        if threading.current_thread() is threading.main_thread():
            seen.append(workload.zone_mb)
        return pd.DataFrame({"pass": cc.PASSES, "attempts": 1, "allocated": 0, "success_pct": 0.0})

    monkeypatch.setattr(cc, "df_explore", df_explore)
    cc.compaction_explorer()
    assert seen and set(seen) == {sh.zone_mb()}
