"""reproduce.cells: a cell declared not predicted shows the model's number and no model change."""

from kernel_workbook.reproduce.cells import Cells, build

THREAD = "2014-seqread-fairzone-cfq"
VANILLA, CFQ600 = "3.16.0-rc1 vanilla", "3.16.0-rc1 cfq600"


def test_a_cell_not_predicted_keeps_its_model_number_and_no_model_change():
    # a model whose every kernel but vanilla reads 10% higher; cfq600 declared not predicted
    line = Cells("fairzone-spread", model=lambda runs, k, row, stat: runs * (1.0 if k == VANILLA else 1.1),
                 select=lambda c: c.row == "DMA32 allocs", predicted=lambda c: c.kernel != CFQ600)
    cells = {c["kernel"]: c for c in build(THREAD, [line], 100.0)}
    assert cells[CFQ600]["model"] == 110.0 and cells[CFQ600]["model_delta_pct"] is None
    assert cells[CFQ600]["published_delta_pct"] is not None  # the published side keeps its change
    assert cells["3.16.0-rc1 fairzone"]["model_delta_pct"] == 10.0
    # the baseline column has no change either way
    assert cells[VANILLA]["model"] == 100.0 and cells[VANILLA]["model_delta_pct"] is None
    # undeclared, every cell is predicted
    plain = {c["kernel"]: c for c in build(THREAD, [Cells(line.table, model=line.model, select=line.select)], 100.0)}
    assert plain[CFQ600]["model_delta_pct"] == 10.0
