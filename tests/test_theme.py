"""Charts follow JupyterLab's theme, and the 2015 side-by-side scan-period charts fit 1280 px."""

from __future__ import annotations

import re

import altair as alt
import pandas as pd
import vl_convert as vlc

from kernel_workbook import config


def _colours(cfg, path=()):
    for k, v in cfg.items():
        if isinstance(v, dict):
            yield from _colours(v, path + (k,))
        elif k == "background" or k.endswith(("Color", "color")) or k == "stroke":
            yield ".".join(path + (k,)), v


def test_theme_colours_are_lab_variables_with_a_light_fallback():
    cfg = config.theme_config(config.mode("lab"))
    colours = dict(_colours(cfg))
    assert {"background", "axis.labelColor", "legend.labelColor", "title.color"} <= set(colours)
    for where, value in colours.items():
        assert re.fullmatch(r"var\(--jp-[\w-]+, [#\w]+\)", value), (where, value)


def test_live_charts_draw_svg(monkeypatch):
    # canvas would ignore the CSS variables: the charts would stay black on the dark theme
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    config.setup(verbose=False)
    try:
        assert alt.renderers.options.get("embed_options", {}).get("renderer") == "svg"
    finally:
        monkeypatch.setenv("WORKBOOK_MODE", "ci")
        config.setup(verbose=False)


def test_static_svg_keeps_the_light_look_outside_the_lab(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "ci")
    config.setup(verbose=False)
    chart = alt.Chart(pd.DataFrame({"x": [1, 2], "y": [3, 4]})).mark_line().encode(x="x:Q", y="y:Q")
    svg = vlc.vegalite_to_svg(chart.to_dict())
    assert 'fill="var(--jp-layout-color0, white)"' in svg
    assert "var(--jp-ui-font-color1, #000)" in svg


def test_scan_period_subtitle_wraps_to_the_plot_width(monkeypatch):
    """2015 shows two of these side by side at 260 px: their one-line captions made the pair 1,421 px wide."""
    from kernel_workbook.heuristics.numa.charts import _scan_period_chart

    monkeypatch.setenv("WORKBOOK_MODE", "ci")
    config.setup(verbose=False)
    d = pd.DataFrame({"t_s": [0.0, 1.0], "numa_scan_period_ms": [1000.0, 2000.0], "task_scan_min_ms": [500.0] * 2,
                      "task_scan_max_ms": [5000.0] * 2, "node": [0, 1]})
    caption = "NUMA01 on mel-4socket-48, 4.0.0-rc1 slowscan-v2, seed 1: " + "every knob echoed, " * 4
    pair = alt.hconcat(*[_scan_period_chart(d, k, caption, width=260, height=180) for k in ("a", "b")])
    width = int(re.search(r'width="(\d+)"', vlc.vegalite_to_svg(pair.to_dict())).group(1))
    assert width < 800, width
