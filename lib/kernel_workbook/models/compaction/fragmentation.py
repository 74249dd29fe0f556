"""External fragmentation of free memory, from any ``/proc/buddyinfo``-shaped frame.

Both indices are those of ``mm/vmstat.c`` (``/sys/kernel/debug/extfrag/``),
computed from the free blocks per order, so a model run and a real capture
are measured the same way:

* the **unusable free space index** (``unusable_free_index()``): the share of
  free memory that cannot satisfy a request of ``order`` -- 0 when every free
  page is in a block of that order or larger, 1 when none is;
* the **fragmentation index** (``__fragmentation_index()``), what
  ``compaction_suitable()`` compares with ``sysctl_extfrag_threshold``: -1
  (printed -1.000) when a block of ``order`` is free; towards 0 a failure
  would be for lack of memory, towards 1 for fragmentation.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...errors import WorkbookParameterError


def _orders(df: pd.DataFrame) -> list[str]:
    cols = [c for c in df.columns if isinstance(c, str) and c.startswith("order_")]
    if not cols:
        raise WorkbookParameterError("df", list(df.columns)[:6], "a buddyinfo frame with order_0 ... columns "
                                     "(kernel_workbook.traces.parse_buddyinfo or Result.buddyinfo())")
    return sorted(cols, key=lambda c: int(c.split("_")[1]))


def unusable_free_index(counts, order: int) -> float:
    """``unusable_free_index()`` for one zone: ``counts[k]`` free blocks of order ``k``."""
    counts = np.asarray(counts, dtype=float)
    ks = np.arange(len(counts))
    free_pages = float((counts * (2.0 ** ks)).sum())
    if free_pages == 0:
        return 0.0
    suitable = float((counts[ks >= order] * (2.0 ** (ks[ks >= order] - order))).sum())
    return (free_pages - suitable * 2 ** order) / free_pages


def fragmentation_index(counts, order: int) -> float:
    """``__fragmentation_index()`` / 1000 for one zone (-1 when a block of ``order`` is free)."""
    counts = np.asarray(counts, dtype=float)
    ks = np.arange(len(counts))
    total = float(counts.sum())
    if total == 0:
        return 0.0
    suitable = float((counts[ks >= order] * (2.0 ** (ks[ks >= order] - order))).sum())
    if suitable > 0:
        return -1.0
    free_pages = float((counts * (2.0 ** ks)).sum())
    # the kernel's integer arithmetic: 1000 - (1000 + free_pages * 1000 / requested) / blocks
    return (1000 - (1000 + int(free_pages * 1000) // (1 << order)) // int(total)) / 1000.0


def df_fragmentation(buddyinfo: pd.DataFrame, order: int = 9) -> pd.DataFrame:
    """Both indices for every row (zone and snapshot) of a buddyinfo frame.

    Columns: the frame's ``node, zone, sample`` (and ``elapsed`` when present),
    ``order``, ``free_pages``, ``free_blocks_suitable`` (blocks of ``order`` the
    free pages make), ``unusable_index`` (0..1), ``extfrag_index`` (-1 or 0..1).
    """
    if not isinstance(order, int) or order < 0:
        raise WorkbookParameterError("order", order, "an integer >= 0")
    cols = _orders(buddyinfo)
    if order >= len(cols):
        raise WorkbookParameterError("order", order, f"below {len(cols)} (the frame's orders)")
    counts = buddyinfo[cols].to_numpy(dtype=float)
    ks = np.arange(len(cols))
    rows = []
    for c in counts:
        free = float((c * (2.0 ** ks)).sum())
        suit = float((c[ks >= order] * (2.0 ** (ks[ks >= order] - order))).sum())
        rows.append((free, suit, unusable_free_index(c, order), fragmentation_index(c, order)))
    keep = [k for k in ("node", "zone", "sample", "elapsed") if k in buddyinfo.columns]
    out = buddyinfo[keep].reset_index(drop=True).copy()
    out["order"] = order
    out["free_pages"] = [r[0] for r in rows]
    out["free_blocks_suitable"] = [r[1] for r in rows]
    out["unusable_index"] = [r[2] for r in rows]
    out["extfrag_index"] = [r[3] for r in rows]
    return out


__all__ = ["df_fragmentation", "unusable_free_index", "fragmentation_index"]
