"""reproduce.cells: where a declared cell's baseline is, and which cells are references."""

from __future__ import annotations

from kernel_workbook.reproduce import delta_pct
from kernel_workbook.reproduce.cells import Cells, build
from kernel_workbook.tables import published

T = "2015-numa-slow-scan"
BOTH = "-o ag_stride=-1,bhash=101073"


def _pub(table, row, kernel):
    p = published(T, table)
    return float(p[(p["row"] == row) & (p["kernel"] == kernel)]["value"].iloc[0])


def _model(values):
    """A model whose number depends on the kernel only, recording what it is asked for."""
    asked = []

    def model(runs, kernel, row, stat):
        asked.append((kernel, row))
        return values.get(kernel)

    return model, asked


def test_a_base_table_takes_the_baseline_column_from_another_table():
    model, asked = _model({"3.19": 100.0, "3.19+pte_dirty": 150.0})
    cells = build(T, [Cells("dave-vmstat-319-ptedirty", model=model, baseline="3.19", base_table="dave-vmstat")], None)
    assert len(cells) == len(published(T, "dave-vmstat-319-ptedirty"))
    hit = next(c for c in cells if c["row"] == "numa_hit")
    want = round(delta_pct(_pub("dave-vmstat-319-ptedirty", "numa_hit", "3.19+pte_dirty"),
                           _pub("dave-vmstat", "numa_hit", "3.19")), 4)
    assert hit["published_delta_pct"] == want
    assert hit["model_delta_pct"] == 50.0  # the model's 3.19, asked for the other table's column
    assert ("3.19", "numa_hit") in asked


def test_a_base_row_takes_the_baseline_cell_from_another_row():
    model, asked = _model({"xfs_repair runtime": 110.0, "3.19": 100.0})
    cells = build(T, [Cells("linus-runtime-summary", model=model, baseline="3.19", base_table="dave-xfsrepair-times",
                            base_row=BOTH)], None)
    base = _pub("dave-xfsrepair-times", BOTH, "3.19")
    assert [c["published_delta_pct"] for c in cells] == [
        round(delta_pct(v, base), 4) for v in published(T, "linus-runtime-summary")["value"]]
    assert all(c["model_delta_pct"] == 10.0 for c in cells)
    assert set(asked) == {("xfs_repair runtime", r) for r in published(T, "linus-runtime-summary")["row"]} | {
        ("3.19", BOTH)}


def test_only_the_baseline_cell_itself_is_a_reference():
    model, _ = _model({"3.19": 100.0, "4.0-rc1": 120.0, "4.0-rc4": 90.0})
    own = build(T, [Cells("dave-xfsrepair-times", model=model)], None)
    # the baseline column of its own table: no change; every other column has one
    assert all((c["published_delta_pct"] is None) == (c["kernel"] == "3.19") for c in own)
    one_row = build(T, [Cells("dave-xfsrepair-times", model=model, base_row=BOTH)], None)
    refs = [(c["row"], c["kernel"]) for c in one_row if c["published_delta_pct"] is None]
    assert refs == [(BOTH, "3.19")]
    other = next(c for c in one_row if c["row"] == "defaults" and c["kernel"] == "3.19")
    assert other["published_delta_pct"] == round(delta_pct(_pub("dave-xfsrepair-times", "defaults", "3.19"),
                                                           _pub("dave-xfsrepair-times", BOTH, "3.19")), 4)
    assert other["model_delta_pct"] == 0.0  # the same kernel's model number on both sides
    # the baseline column's name in another table: not the cell itself, so it has a change
    model, _ = _model({"3.19+pte_dirty": 100.0})
    (perf,) = build(T, [Cells("dave-perf-319-ptedirty", model=model, base_table="dave-vmstat-319-ptedirty",
                              base_row="numa_pages_migrated")], None)
    assert perf["kernel"] == "3.19+pte_dirty"
    assert perf["published_delta_pct"] == round(delta_pct(perf["published"], _pub(
        "dave-vmstat-319-ptedirty", "numa_pages_migrated", "3.19+pte_dirty")), 4)
    assert perf["model_delta_pct"] == 0.0
