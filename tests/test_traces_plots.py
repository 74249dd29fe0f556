"""Chart builders of the traces: binned series under Altair's row limit, flame-graph geometry."""

import numpy as np
import pandas as pd
import pytest

from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.ui import trace_charts as plots


def test_long_series_bins_to_the_row_limit():
    df = pd.DataFrame({"elapsed": np.arange(20000.0), "a": np.ones(20000), "b": np.arange(20000.0)})
    d = plots.df_long_series(df, ["a", "b"], max_rows=1000)
    assert len(d) <= 1000 and set(d["counter"]) == {"a", "b"}
    assert d.loc[d["counter"] == "a", "value"].eq(1).all()  # a mean keeps a constant a constant
    with pytest.raises(WorkbookParameterError):
        plots.df_long_series(df, ["nope"])


def test_flame_geometry_follows_flamegraph():
    folded = pd.DataFrame({"stack": ["p;a;b", "p;a;c", "p;d", "q;x"], "count": [2, 1, 1, 4]})
    d = plots.df_flame(folded, min_fraction=0.0).set_index("path")
    assert d.loc["p", "x0"] == 0 and d.loc["p", "x1"] == 0.5 and d.loc["q", "x0"] == 0.5
    assert d.loc["p;a", "x1"] - d.loc["p;a", "x0"] == pytest.approx(3 / 8)
    assert d.loc["p;a;b", "x0"] < d.loc["p;a;c", "x0"]  # children in alphabetical order
    assert d.loc["p;a;b", "depth"] == 2 and d.loc["p;a;b", "pct"] == 25.0


def test_flame_collapses_unknown_runs_and_merges_thin_frames():
    folded = pd.DataFrame({"stack": ["fio" + ";[unknown]" * 50 + ";leaf", "fio;thin"], "count": [999, 1]})
    d = plots.df_flame(folded, min_fraction=0.01)
    assert "[unknown] (run)" in set(d["name"]) and "thin" not in set(d["name"])
    assert d["depth"].max() == 2


def test_diff_flame_deltas():
    before = pd.DataFrame({"stack": ["p;a", "p;b"], "count": [50, 50]})
    after = pd.DataFrame({"stack": ["p;a", "p;b"], "count": [75, 25]})
    d = plots.df_flame_diff(before, after, min_fraction=0.0).set_index("path")
    assert d.loc["p;a", "delta"] == 25.0 and d.loc["p;b", "delta"] == -25.0 and d.loc["p", "delta"] == 0.0


def test_charts_build():
    folded = pd.DataFrame({"stack": ["p;a;b", "p;a;c"], "count": [2, 1]})
    assert plots.plot_icicle(folded).to_dict()
    assert plots.plot_diff_icicle(folded, folded).to_dict()
    r = pd.DataFrame({"elapsed": [1.0, 2.0], "ratio": [50, 90], "steal": [5, 9], "scan": [10, 10]})
    assert plots.plot_reclaim_2007(r).to_dict()


# --- the trace explorer's frames (issue 14: perf-stat/perf-script KeyError 'sample', buddyinfo's zones
# drawn as one line with `node` offered as a counter, fio's repeated x, an empty folder keeping old lists)

def _shipped_monitors():
    from kernel_workbook import traces
    from kernel_workbook.ui.trace_panels import shipped

    for b in shipped():
        bundle = traces.load(b)
        for m in bundle.monitors():
            yield b, m, bundle


def test_every_shipped_monitor_charts_or_says_why():
    from kernel_workbook.ui.trace_charts import plot_timeseries
    from kernel_workbook.ui.trace_panels import DEFAULT_COUNTERS, _numeric, df_chartable

    seen = set()
    for b, m, bundle in _shipped_monitors():
        df, by = df_chartable(bundle.load(m), m)
        seen.add(m)
        if df is None:
            assert m == "fio" and "not a series" in by
            continue
        cols = [c for c in DEFAULT_COUNTERS.get(m, []) if c in df.columns] or _numeric(df)[:4]
        assert cols, (b, m)
        assert "node" not in _numeric(df), (b, m)
        spec = plot_timeseries(df, cols, title=m, by=by).to_dict()
        assert spec["spec"]["encoding"]["x"]["field"] in ("elapsed", "sample"), (b, m)
        if m != "proc-buddyinfo":  # one point per second per counter: no x drawn twice in one line
            assert not df.duplicated("elapsed" if "elapsed" in df else "sample").any(), (b, m)
    assert {"perf-stat", "perf-script", "proc-buddyinfo", "fio"} <= seen


def test_buddyinfo_draws_each_zone_as_its_own_line():
    from kernel_workbook.ui.trace_panels import df_chartable

    b, m, bundle = next(x for x in _shipped_monitors() if x[1] == "proc-buddyinfo")
    df, by = df_chartable(bundle.load(m), m)
    assert by == "zone"
    assert df["zone"].nunique() >= 2 and not df.duplicated(["zone", "elapsed"]).any()


def test_explorer_forgets_the_last_bundle_when_a_path_fails(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    import ipywidgets as w

    from kernel_workbook.ui.trace_panels import shipped, trace_explorer

    box = trace_explorer(shipped()[0])
    kids = []
    stack = [box]
    while stack:
        x = stack.pop()
        kids.append(x)
        stack.extend(getattr(x, "children", ()))
    pick = next(k for k in kids if isinstance(k, w.Combobox))
    go = next(k for k in kids if isinstance(k, w.Button))
    mon = next(k for k in kids if isinstance(k, w.Dropdown))
    counters = next(k for k in kids if isinstance(k, w.SelectMultiple))
    assert "perf-stat" in mon.options and counters.options
    mon.value = "perf-stat"  # raised KeyError: "['sample'] not in index" before
    assert counters.value
    (tmp_path / "empty").mkdir()
    pick.value = str(tmp_path / "empty")
    go.click()
    assert mon.options == () and counters.options == ()


# --- issue 33: every format the explorer loads shows something (a chart, a table, or a sentence why not)

def _fixture_files():
    from kernel_workbook.paths import repo_root

    root = repo_root() / "tests" / "fixtures"
    for d in ("traces", "real-captures"):
        yield from sorted(p for p in (root / d).iterdir() if p.is_file() and p.name != "README.md")


def test_every_format_the_explorer_loads_shows_something_without_nan():
    import re
    import warnings

    import altair as alt

    from kernel_workbook import traces
    from kernel_workbook.errors import WorkbookParseError
    from kernel_workbook.frames import Prose, Table
    from kernel_workbook.ui.trace_panels import counter_options, shown

    formats, bad = {}, []
    for f in _fixture_files():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                df = traces.load(f)
            except WorkbookParseError:
                continue  # a format the parsers refuse with a clear error (iostat -h): tested in test_traces_*
            kind = df.attrs.get("format", "?")
            out = shown(df, kind, title=f.name)
            counter_options(df, kind)
        got = [type(o).__name__ for o in out]
        formats.setdefault(kind, set()).update(got)
        if not any(isinstance(o, (Table, alt.TopLevelMixin)) for o in out):
            bad.append((f.name, "no table or chart", got))
        for o in out:
            text = o.text() if isinstance(o, Table) else str(o) if isinstance(o, Prose) else ""
            if re.search(r"\bnan\b", text, re.I):
                bad.append((f.name, "NaN", text[:80]))
    assert not bad, bad[:6]
    # the formats a person brings, each drawn or tabled: perf stat as a table and a chart
    assert {"perf-stat", "perf-script", "perf-report", "folded", "fio-json", "fio-terse", "vmstat", "vmstat-s",
            "vmstat-D", "vmstat-d", "iostat", "proc-vmstat", "meminfo", "zoneinfo", "buddyinfo"} <= set(formats)
    assert {"Table"} < formats["perf-stat"] and len(formats["perf-stat"]) >= 2
    assert {"Table", "Chart"} <= formats["pyperf-json"]


def test_pyperf_values_leave_warmups_out_and_print_timings_in_pyperfs_unit():
    from kernel_workbook.ui.trace_charts import df_pyperf_values

    df = pd.DataFrame({"benchmark": ["a"] * 4 + ["b"] * 2, "run": [0, 0, 1, 1, 0, 0],
                       "value": [9.0, 2e-6, 9.0, 4e-6, 1.0, 3.0], "warmup": [True, False, True, False, False, False],
                       "unit": ["second"] * 4 + ["byte"] * 2})
    got = df_pyperf_values(df).set_index("benchmark")
    assert list(got.columns) == ["unit", "runs", "values", "mean", "stdev", "min", "median", "max", "warmups"]
    assert got.loc["a", "unit"] == "us" and got.loc["a", "mean"] == pytest.approx(3.0)  # 2 and 4 us, warmups out
    assert (got.loc["a", "values"], got.loc["a", "warmups"], got.loc["a", "runs"]) == (2, 2, 2)
    assert got.loc["b", "unit"] == "byte" and got.loc["b", "max"] == 3.0 and got.loc["b", "warmups"] == 0


def test_a_bundles_command_is_shown_without_the_recording_machines_paths():
    """The shipped manifests were recorded in a checkout elsewhere (their ``cwd``); the notebook shows the
    command relative to it, so the committed notebook names no path outside the repository."""
    from kernel_workbook import traces
    from kernel_workbook.ui.trace_panels import command_line, shipped

    assert command_line({"command": ["fio", "--output=/x/y/data/out", "/x/y/run.sh", "/var/tmp/f"], "cwd": "/x/y"}) \
        == "fio --output=data/out run.sh /var/tmp/f"
    for b in shipped():
        m = traces.load(b).manifest
        line = command_line(m)
        assert m["cwd"] + "/" not in line, (b, line)
