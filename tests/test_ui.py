"""The widget panel and charts, driven the way a person would in the lab."""

import altair as alt
import ipywidgets as w
import vl_convert as vlc

from kernel_workbook.tables import published
from kernel_workbook.ui import df_pct_change, plot_pct_change, table_explorer


def test_pct_change_uses_printed_percentages():
    d = df_pct_change(published("2014-seqread-fairzone-cfq", "cfq600-seqread"))
    row = d[(d.row == "SeqRead-MB/sec-16") & (d.kernel == "3.16.0-rc1 cfq600")].iloc[0]
    assert row.pct == 12.18 and row.printed


def test_pct_change_of_a_table_without_percentages_is_relative():
    d = df_pct_change(published("2014-seqread-fairzone-cfq", "fairzone-spread"))
    row = d[(d.row == "DMA32 allocs") & (d.kernel == "3.16.0-rc1 fairzone")].iloc[0]
    assert not row.printed and round(row.pct, 2) == round((9459921 / 11099122 - 1) * 100, 2)


def test_chart_renders_offline_to_svg():
    chart = plot_pct_change(published("2015-numa-slow-scan", "slowscan-autonuma"))
    svg = vlc.vegalite_to_svg(chart.to_json())
    assert svg.startswith("<svg") and "System-NUMA01" in svg


def test_explorer_switches_table_in_the_lab(monkeypatch):
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    box = table_explorer("2015-numa-slow-scan", "slowscan-totals")
    assert isinstance(box, w.VBox)
    pick_thread, pick_table = box.children[0].children
    text = box.children[1]
    assert pick_table.value == "slowscan-totals" and "User        53384.29" in text.value
    pick_thread.value = "2011-cfq-deep-idle"
    assert pick_table.value == "aio-stress-slow-hdd"
    assert "slow SATA disk" in text.value and "Maxim Patlasov" in text.value
    pick_table.value = "aio-stress-fast-raid"
    assert "106.28" in text.value


def test_explorer_is_static_in_ci(monkeypatch, capsys):
    monkeypatch.setenv("WORKBOOK_MODE", "ci")
    assert table_explorer("2014-seqread-fairzone-cfq", "cfq600-seqread") is None


def test_lab_mode_renders_offline(monkeypatch):
    # the lab's renderer must carry Vega itself: a conference hall has no network
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    from kernel_workbook import config

    m = config.setup(verbose=False)
    assert m.renderer == "jupyter" and alt.renderers.active == "jupyter"
    chart = plot_pct_change(published("2014-seqread-fairzone-cfq", "cfq600-seqread"))
    esm = str(alt.JupyterChart(chart)._esm)
    assert "vega" in esm and len(esm) > 100_000
    for cdn in ("cdn.jsdelivr", "unpkg.com", "esm.sh", "cdnjs"):
        assert cdn not in esm
    monkeypatch.setenv("WORKBOOK_MODE", "ci")
    config.setup(verbose=False)
    assert alt.renderers.active == "svg"


def test_numa_explorer_table_reads_local_share_as_higher_is_better():
    """Issue 14: numa_hint_local_percent 49.11 -> 55.25 is a gain of +12.5%, not -12.5% (every row was
    compared as lower-is-better); faults stay lower-is-better."""
    import pandas as pd

    from kernel_workbook.tables import compare, render
    from kernel_workbook.heuristics.numa.charts import row_higher_is_better

    df = pd.DataFrame({"kernel": ["3.19.0 vanilla", "this run"] * 2,
                       "row": ["numa_hint_local_percent"] * 2 + ["numa_hint_faults"] * 2,
                       "value": [49.11, 55.25, 1000.0, 1100.0], "seed": [1, 1, 1, 1]})
    text = render(compare(df, higher_is_better=row_higher_is_better, stats=("Amean",), era="2015",
                          significance=None, kernels=["3.19.0 vanilla", "this run"]))
    local = next(ln for ln in text.splitlines() if "numa_hint_local_percent" in ln)
    faults = next(ln for ln in text.splitlines() if "numa_hint_faults " in ln or ln.rstrip().endswith(")") and "numa_hint_faults" in ln and "local" not in ln)
    assert "12.50%" in local and "-12.50%" not in local, local
    assert "-10.00%" in faults, faults
