"""A thread's cells, declared as a table and built by one engine.

A reproduction says *which* published cells it predicts and *where* each
model number comes from; :func:`build` does the rest the same way for every
thread: it reads the published table, looks up the model's number for each
cell and for its baseline column, computes both changes, marks the cells a
parameter was fitted to, and attaches the reasons the declaration gives for
excluding a cell.  A cell is a dict of the JSON schema of
:mod:`kernel_workbook.reproduce` (:func:`._side_by_side.make_cell`).

One line of the table is a :class:`Cells`::

    CELLS = (
        Cells("highalloc-vmstat", model=lambda runs, k, row, stat: vmstat(runs[k], row),
              fitted=lambda c: c.kernel == BASELINE and c.row in FITTED_ROWS,
              notes=lambda c: {"repeat_of": ...} if c.row in VELOCITY_OF else None),
        ...)
    cells = build(THREAD, CELLS, runs)   # runs: whatever the thread's runs are, handed to every model()

The rules every thread shares:

* a cell's change is against ``baseline`` (default: its table's baseline
  column, ``tables.csv``), on the published side with the published
  baseline and on the model's side with the model's own baseline run;
  ``base_table`` and ``base_row`` move that baseline cell to another table
  (a column printed apart from its table) or another row (a table that
  prints its kernels as rows), and ``model`` is asked for it there;
  ``change="points"`` takes the difference instead of the percentage (mmtests
  prints success rates that way);
* a baseline-column cell has no change to predict, fitted or not: it is
  shown with its value and no change (``CELLS_NA`` says so under the table);
  a cell is one only when it is its own baseline cell (its table, row and
  column);
  ``calibrated`` marks the ones a parameter was fitted to;
* where the published baseline is 0 the change is undefined on both sides,
  and ``zero_baseline`` says why;
* a cell that ``predicted`` says is not predicted shows the model's number
  but no model change: the model has no run of its own for that column (a
  kernel the model runs as the baseline, so its change would be the
  baseline's against itself);
* every number is rounded to 4 places (``make_cell``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

from ..tables import published
from ..tables.published import baseline_of
from ._side_by_side import cell_value, make_cell


class Published(NamedTuple):
    """One published cell, as a declaration's callables see it."""

    table: str
    stat: str
    row: str
    kernel: str
    value: float


@dataclass(frozen=True)
class Cells:
    """One line of a thread's cell table: the published cells of ``table`` and where the model's number of each
    comes from.

    ``model(runs, kernel, row, stat)``: the model's number for that column, row and statistic (which run of
    ``runs``, which statistic of it), None where the model has none.  ``select(cell)``: which published cells (default every one,
    in the order printed).  ``fitted(cell)``: a parameter was fitted to it.  ``notes(cell)``: what the cell
    carries besides its numbers -- ``exclude``, ``repeat_of``, ``flat``, ``why``, ``baseline_kernel`` (see
    :mod:`.score`) -- or None.  ``base_table``, ``base_row``: where the baseline cell is, when not in this
    table or not in the cell's own row.  ``predicted(cell)``: False where the model's number is shown but its
    change is not a prediction (default: every cell is).
    """

    table: str
    model: Callable[[object, str, str, str], float | None]
    baseline: str | None = None
    select: Callable[[Published], bool] | None = None
    fitted: Callable[[Published], bool] | None = None
    change: str = "pct"
    notes: Callable[[Published], dict | None] | None = None
    zero_baseline: str | None = None
    base_table: str | None = None
    base_row: str | None = None
    predicted: Callable[[Published], bool] | None = None

    def __post_init__(self):
        if self.change not in ("pct", "points"):
            raise ValueError(f"{self.table}: change {self.change!r}, expected 'pct' or 'points'")


def build(thread: str, table: list[Cells] | tuple[Cells, ...], runs) -> list[dict]:
    """The cells of every line of ``table`` for the model's ``runs``, in the table's order (each line's in the
    published order)."""
    out = []
    for line in table:
        out += _line(thread, line, runs)
    return out


def _line(thread: str, d: Cells, runs) -> list[dict]:
    pub = published(thread, d.table)
    base_k = d.baseline or baseline_of(thread, d.table)
    base_pub = pub if d.base_table in (None, d.table) else published(thread, d.base_table)
    stats = pub["stat"].tolist() if "stat" in pub.columns else [""] * len(pub)
    model_base = {}  # (row, stat) -> the model's baseline number, looked up once
    out = []
    for stat, row, kernel, value in zip(stats, pub["row"].tolist(), pub["kernel"].tolist(), pub["value"].tolist()):
        p = Published(d.table, stat or "", row, kernel, float(value))
        if d.select is not None and not d.select(p):
            continue
        base_row = d.base_row or row
        if (base_row, p.stat) not in model_base:
            model_base[(base_row, p.stat)] = d.model(runs, base_k, base_row, p.stat)
        m, mb = d.model(runs, kernel, row, p.stat), model_base[(base_row, p.stat)]
        pb = cell_value(base_pub, base_row, base_k, p.stat)
        fitted = bool(d.fitted(p)) if d.fitted is not None else False
        reference = kernel == base_k and base_row == row and base_pub is pub
        zero = pb == 0 and d.change == "pct"  # a difference of points has no trouble with 0
        if d.predicted is not None and not reference and not d.predicted(p):
            mb = None  # the model's number without a change
        c = make_cell(d.table, p.stat, row, kernel, p.value, m, None if zero else pb, None if zero else mb,
                      calibrated=fitted, reference=reference)
        if d.change == "points" and not reference:
            c["published_delta_pct"] = round(p.value - pb, 4)
            c["model_delta_pct"] = round(m - mb, 4) if m is not None and mb is not None else None
        extra = d.notes(p) if d.notes is not None else None
        if extra:
            c.update(extra)
        if zero and not reference and d.zero_baseline:
            c["why"] = d.zero_baseline
        out.append(c)
    return out


__all__ = ["Cells", "Published", "build"]
