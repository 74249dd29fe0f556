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
