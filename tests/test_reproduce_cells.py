"""The cell engine (reproduce.cells): a declared table of cells built the same way for every thread, and where a
declared cell's baseline is when it is not in its own table or row.

Real published tables, made-up model numbers: what is checked is the engine's arithmetic and rules, not a model.
"""

import pytest

from kernel_workbook.heuristic import heuristics
from kernel_workbook.reproduce import delta_pct
from kernel_workbook.reproduce.cells import Cells, build
from kernel_workbook.tables import published

T2007 = "2007-throttle-vm-writeout"
T2012 = "2012-highalloc-compaction"


def test_percent_change_against_the_baseline_column_and_the_model_own_baseline():
    model = {"without congestion_wait": 800.0, "with congestion_wait": 200.0}
    cells = build(T2007, [Cells("congestion-wait-estimate", model=lambda runs, k, row, stat: runs.get(k))], model)
    assert [(c["row"], c["kernel"]) for c in cells] == [
        ("vmscan MB/s", "without congestion_wait"), ("vmscan MB/s", "with congestion_wait"),
        ("pages freed MB/s", "without congestion_wait")]  # every published cell, in the printed order
    with_ = cells[1]
    assert with_["published_delta_pct"] == pytest.approx(-85.0)  # 150 against 1000
    assert with_["model_delta_pct"] == pytest.approx(-75.0)  # 200 against the model's own 800
    assert not with_["calibrated"]


def test_baseline_cells_carry_no_change_and_fitted_ones_say_so():
    cells = build(T2007, [Cells("congestion-wait-estimate", model=lambda runs, k, row, stat: 5.0,
                                fitted=lambda c: c.row == "vmscan MB/s")], None)
    base = [c for c in cells if c["kernel"] == "without congestion_wait"]
    assert [c["calibrated"] for c in base] == [True, False]
    assert all(c["published_delta_pct"] is None and c["model_delta_pct"] is None for c in base)
    assert base[0]["model"] == 5.0  # shown with its value


def test_points_change_is_a_difference():
    model = {"before c4e2d7dd": 30.0, "after c4e2d7dd": 10.0}
    cells = build(T2007, [Cells("kswapd-writeback-2002", model=lambda runs, k, row, stat: runs[k], change="points")],
                  model)
    after_cpu = next(c for c in cells if c["row"] == "kswapd CPU %" and c["kernel"] == "after c4e2d7dd")
    assert after_cpu["published_delta_pct"] == pytest.approx(2.0 - 50.0)
    assert after_cpu["model_delta_pct"] == pytest.approx(-20.0)


def test_select_notes_and_a_missing_model_number():
    cells = build(T2007, [Cells("fengguang-ratio-script", model=lambda runs, k, row, stat: None,
                                select=lambda c: c.row != "ratio %",
                                notes=lambda c: {"why": "no run answers it"} if c.row == "steal" else None)], None)
    assert [c["row"] for c in cells] == ["uptime s", "idle s", "steal", "scan"]
    assert [c.get("why") for c in cells] == [None, None, "no run answers it", None]
    assert all(c["model"] is None and c["model_delta_pct"] is None for c in cells)


def test_a_zero_published_baseline_leaves_the_change_undefined_with_its_reason():
    pub = published(T2012, "highalloc-vmstat")
    zero_rows = set(pub[(pub["kernel"] == "revert-v5") & (pub["value"] == 0)]["row"])
    assert zero_rows, "the 2012 vmstat table prints rows that are 0 in revert-v5"
    cells = build(T2012, [Cells("highalloc-vmstat", model=lambda runs, k, row, stat: 7.0, zero_baseline="zero")], None)
    for c in cells:
        if c["row"] in zero_rows and c["kernel"] != "revert-v5":
            assert (c["published_delta_pct"], c["model_delta_pct"], c["why"]) == (None, None, "zero")
        else:
            assert "why" not in c


def test_numbers_are_rounded_to_four_places():
    cells = build(T2007, [Cells("congestion-wait-estimate", model=lambda runs, k, row, stat: 1 / 3)], None)
    assert cells[0]["model"] == 0.3333


def test_a_change_kind_must_be_known():
    with pytest.raises(ValueError, match="change"):
        Cells("t", model=lambda *a: None, change="ratio")


def test_the_declared_threads_build_their_cells_through_the_engine():
    """A thread whose reproduction module declares CELLS has no other way to make a cell (make_cell is the
    engine's)."""
    import inspect

    declared = 0
    for h in heuristics():
        for t in h.threads:
            mod = inspect.getmodule(t.reproduce)
            if hasattr(mod, "CELLS"):
                declared += 1
                assert all(isinstance(c, Cells) for c in mod.CELLS)
                assert "make_cell(" not in inspect.getsource(mod), mod.__name__
    assert declared >= 3


# ---- rendering: one format for the blocks of a published table

def test_a_table_shows_as_published_model_and_cells_with_one_title_format():
    from kernel_workbook.reproduce import Reproduction

    model = {"without congestion_wait": 800.0, "with congestion_wait": 200.0}
    cells = build(T2007, [Cells("congestion-wait-estimate", model=lambda runs, k, row, stat: runs.get(k))], model)
    rep = Reproduction(T2007)
    rep.show_table("congestion-wait-estimate", published(T2007, "congestion-wait-estimate"), cells,
                   "'without congestion_wait'", model_what="made-up numbers")
    rep.show_cells("fengguang-ratio-script and congestion-wait-estimate", cells, "each table's baseline", key="both")
    assert [(b.key, b.kind) for b in rep.blocks] == [
        ("congestion-wait-estimate/published", "mmtests"), ("congestion-wait-estimate/model", "mmtests"),
        ("congestion-wait-estimate/cells", "cells"), ("both/cells", "cells")]
    assert [b.title for b in rep.blocks] == [
        "congestion-wait-estimate, published", "congestion-wait-estimate, model (made-up numbers)",
        "congestion-wait-estimate: published and model change against 'without congestion_wait'",
        "fengguang-ratio-script and congestion-wait-estimate: published and model change against each table's "
        "baseline"]
    assert rep.blocks[0].frame.equals(published(T2007, "congestion-wait-estimate"))  # as the thread printed it
    assert len(rep.blocks[2].frame) == len(cells)


def test_no_thread_titles_a_table_block_by_hand():
    """The published, model and cells blocks of a table are made by Reproduction.show_* (one key and title
    format for every thread); a thread module adding one itself would bring back a format of its own."""
    import inspect
    import re

    import importlib
    import pkgutil

    import kernel_workbook.heuristics as hs

    seen = 0
    for m in pkgutil.walk_packages(hs.__path__, hs.__name__ + "."):
        if m.name.endswith("__main__"):
            continue  # runs its command when imported
        src = inspect.getsource(importlib.import_module(m.name))
        seen += src.count(".show_")
        assert not re.search(r"\.add\(\s*f?[\"'][^\"']*/(published|model|cells)[\"']", src), m.name
    assert seen >= 10


# ---- a baseline outside the cell's own table or row (2015's tables)

T = T2015 = "2015-numa-slow-scan"
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


# ---- a cell shown but not predicted (2014's cfq600 column of the spread tables)

T2014 = "2014-seqread-fairzone-cfq"
VANILLA, CFQ600 = "3.16.0-rc1 vanilla", "3.16.0-rc1 cfq600"


def test_a_cell_not_predicted_keeps_its_model_number_and_no_model_change():
    # a model whose every kernel but vanilla reads 10% higher; cfq600 declared not predicted
    line = Cells("fairzone-spread", model=lambda runs, k, row, stat: runs * (1.0 if k == VANILLA else 1.1),
                 select=lambda c: c.row == "DMA32 allocs", predicted=lambda c: c.kernel != CFQ600)
    cells = {c["kernel"]: c for c in build(T2014, [line], 100.0)}
    assert cells[CFQ600]["model"] == 110.0 and cells[CFQ600]["model_delta_pct"] is None
    assert cells[CFQ600]["published_delta_pct"] is not None  # the published side keeps its change
    assert cells["3.16.0-rc1 fairzone"]["model_delta_pct"] == 10.0
    # the baseline column has no change either way
    assert cells[VANILLA]["model"] == 100.0 and cells[VANILLA]["model_delta_pct"] is None
    # undeclared, every cell is predicted
    plain = {c["kernel"]: c for c in build(T2014, [Cells(line.table, model=line.model, select=line.select)], 100.0)}
    assert plain[CFQ600]["model_delta_pct"] == 10.0
