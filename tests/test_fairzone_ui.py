"""Charts and the explorer of the fair-zone model: they build, render offline, and follow their widgets."""

import pytest

from kernel_workbook.models.fairzone import simulate, variant_params
from kernel_workbook.models.fairzone import Machine
from kernel_workbook.tables import published
from kernel_workbook.heuristics.fairzone import charts as fc
from kernel_workbook.heuristics.fairzone.pagecache import stream_read

SMALL = Machine(name="s", ram_mb=128, dma_mb=0.0, dma32_mb=48.0, normal_mb=80.0, hole_mb=0.0, other_mb=2.0)


def _svg(chart):
    import vl_convert as vlc

    return vlc.vegalite_to_svg(chart.to_json())


def test_batch_trace_and_its_picture():
    df = fc.df_batch_trace(("3.16-rc1", "fairzone", "3.0"), machine=SMALL, allocations=2000, readers=2)
    assert list(df.columns[:3]) == ["variant", "n", "t_ms"]
    assert set(df["variant"]) == {"3.16-rc1", "fairzone", "3.0"} and len(df) == 3 * 2000
    v = df[df["variant"] == "3.16-rc1"]
    assert v["reset"].sum() > 0 and set(v["zone"]) == {"DMA32", "Normal"}  # vanilla alternates and resets
    assert (df[df["variant"] == "3.0"]["nr_alloc_batch_normal"] == 0).all()  # 3.0 has no batches
    svg = _svg(fc.plot_batches(df))
    assert svg.startswith("<svg") and "NR_ALLOC_BATCH" in svg


def test_spread_velocity_and_decomposition_charts():
    res = {v: simulate(variant_params(v, SMALL), stream_read(2 * 128 * 256), seed=1, verbose=False)
           for v in ("3.16-rc1", "3.0")}
    sp = fc.df_spread(res, published("2014-seqread-fairzone-cfq", "fairzone-spread"))
    assert set(sp["source"]) == {"model", "published"}
    pub = sp[(sp["source"] == "published") & (sp["kernel"] == "3.16.0-rc1 vanilla")].set_index("zone")["percent"]
    assert pub["DMA32"] == pytest.approx(37.1, abs=0.05)  # Johannes's percentage, recomputed from Mel's counts
    assert _svg(fc.plot_spread(sp)).startswith("<svg")
    vel = fc.df_velocity(res, time_scale=2.0)
    raw = res["3.0"].velocity()["Zone normal velocity"]
    assert vel.query("kernel == '3.0' and zone == 'Normal'")["velocity"].iloc[0] == pytest.approx(2 * raw)
    assert _svg(fc.plot_velocity(vel)).startswith("<svg")


def test_explorer_is_static_in_ci_and_live_in_the_lab(monkeypatch):
    p = variant_params("bigbatches", fc.explorer_machine(16)).with_(nr_alloc_batch_shift=6)
    out = fc.df_explore(p, size_fraction=1.0, readers=2)
    assert list(out["kernel"]) == ["3.16-rc1 vanilla", "bigbatches (your knobs)"]
    assert {"DMA32 allocs %", "SeqRead zonelist scans/alloc", "SeqRead batch resets"} <= set(out.columns)
    assert fc.fairzone_explorer() is None  # WORKBOOK_MODE=ci: drawn statically
    monkeypatch.setenv("WORKBOOK_MODE", "lab")
    panel = fc.fairzone_explorer()
    grid = panel.children[1]
    ws = {getattr(w, "description", ""): w for w in grid.children}
    assert "nr_alloc_batch_shift" in ws and "min_free_kbytes (KiB)" in ws  # full kernel names
    assert not ws["nr_alloc_batch_shift"].disabled  # fairzone's batch is managed >> shift
    ws["kernel"].value = "3.16-rc1"  # a person picks vanilla: high - low ignores the shift
    assert ws["NR_ALLOC_BATCH"].value == "high-low" and ws["nr_alloc_batch_shift"].disabled
    ws["kswapd_stays_awake"].value = True  # and ticks a box
    status = panel.children[2]
    assert "redrawn in" in status.value and "kswapd_stays_awake=True" in status.value


def test_df_decomposition_table_puts_each_component_in_a_column():
    import pandas as pd

    df = pd.DataFrame({"kernel": ["fz"] * 4 + ["3.0"] * 2, "readers": [1, 1, 2, 2, 1, 1],
                       "component": ["model (all together)", "published"] * 3, "pct": [1.5, 2.0, -3.0, -1.0, 4.0, 5.5]})
    t = fc.df_decomposition_table(df)
    assert list(t.columns) == ["model (all together)", "published"]
    assert list(t.index) == [("3.0", 1), ("fz", 1), ("fz", 2)]
    assert t.loc[("fz", 2), "model (all together)"] == -3.0 and t.loc[("3.0", 1), "published"] == 5.5
