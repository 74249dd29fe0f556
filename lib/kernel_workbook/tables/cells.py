"""The one shape every table takes: a tidy frame with one row per cell.

Columns (``CELL_COLUMNS``)
--------------------------
table : int or str
    Table number within its source (1-based, in order of appearance), or the
    table's id in ``data/published`` (``cfq600-seqread``).
stat : str
    mmtests statistic (``Min``, ``Mean``, ``Amean``, ``Hmean``, ``Stddev``,
    ``CoeffVar``, ``Max``, ``BAmean-95``, ``Time`` ...); empty where the table
    has none (``DMA32 allocs``, ``User``, vmstat counters).
row : str
    The row label: mmtests' operation (``SeqRead-MB/sec-16``) or the whole
    label of a row without statistic (``NUMA hint faults``).
kernel : str
    The column label, both header rows joined by a space
    (``3.16.0-rc1 vanilla``); empty for a table printed without one.
value : float
    The number, in the unit of ``unit``; durations (``4m04s``) in seconds.
pct : float
    The printed comparison percentage (mmtests: positive is better), NaN if
    none was printed.  In ``lkp`` tables the kernel test robot's printed
    ``%change`` against the first commit (positive is a larger value).
sig : bool
    The percentage was printed as significant (``* -23.82%*``).
unit : str
    ``""``, ``"%"`` for a percentage printed as the value, ``"s"`` for a
    duration, ``"events"`` for a ``perf stat`` count.
text : str
    The cell as printed.
decimals : int
    Decimals printed in the value (for rendering it back the same way).
col : int
    0-based column of the kernel.
order : int
    0-based order of the row within its table.
line : int
    1-based line of the row in the source (0 for computed tables).
quote : int
    Mail quote depth of the row (``>`` count).
kind : str
    ``compare`` (value and percentage), ``plain`` (values only),
    ``vmstat`` (``name value`` lines of /proc/vmstat), ``perfstat``
    (``perf stat`` counts with ``( +- x% )``), ``lkp`` (the kernel test
    robot's ``%stddev  %change  %stddev`` comparison of commits).
stddev_pct : float
    ``perf stat -r``'s relative spread ``( +- x% )``, or the kernel test
    robot's ``± x%``, else NaN.
"""

from __future__ import annotations

import pandas as pd

CELL_COLUMNS = [
    "table",
    "stat",
    "row",
    "kernel",
    "value",
    "pct",
    "sig",
    "unit",
    "text",
    "decimals",
    "col",
    "order",
    "line",
    "quote",
    "kind",
    "stddev_pct",
]

_DTYPES = {
    "stat": "object",
    "row": "object",
    "kernel": "object",
    "value": "float64",
    "pct": "float64",
    "sig": "bool",
    "unit": "object",
    "text": "object",
    "decimals": "int64",
    "col": "int64",
    "order": "int64",
    "line": "int64",
    "quote": "int64",
    "kind": "object",
    "stddev_pct": "float64",
}


def cells_frame(records: list[dict], tables: dict | None = None) -> pd.DataFrame:
    """Build a cells frame from dicts, in canonical column order and dtypes.

    ``tables`` (table number -> metadata dict) goes to ``df.attrs["tables"]``.
    """
    df = pd.DataFrame.from_records(records, columns=CELL_COLUMNS)
    if len(df) and all(isinstance(x, (int,)) for x in df["table"]):
        df["table"] = df["table"].astype("int64")
    else:
        df["table"] = df["table"].astype(object)
    for c, t in _DTYPES.items():
        if t == "object":
            df[c] = df[c].fillna("").astype(object)
        else:
            df[c] = df[c].astype(t)
    df.attrs["tables"] = tables or {}
    return df


def table_meta(df: pd.DataFrame, table) -> dict:
    """Metadata of one table of a cells frame (empty dict if none)."""
    return dict(df.attrs.get("tables", {}).get(table, {}) or df.attrs.get("tables", {}).get(str(table), {}))


def kernels(df: pd.DataFrame) -> list[str]:
    """Kernel labels of a single table, in column order."""
    k = df.drop_duplicates("col").sort_values("col")
    return list(k["kernel"])
