"""Published beside model: the cells of the fidelity summary and their printed form.

Shared by the reproductions built on the disk/CFQ model (``seqread_2014``,
``deep_idle_2011``).  A cell's deltas are against its table's baseline
column, the published one on the published numbers and the model's own
baseline run on the model's.
"""

from __future__ import annotations

import math
import weakref

import pandas as pd

from . import delta_pct


def make_cell(table: str, stat: str, row: str, kernel: str, published: float, model: float | None,
              pub_base: float | None, model_base: float | None, calibrated: bool = False,
              reference: bool = False) -> dict:
    """One cell of the JSON schema (plus ``stat``).

    ``reference`` marks a baseline-column cell that was not fitted: it is
    shown, but it has no change to predict, so both deltas are left empty
    and the fidelity summary skips it.
    """
    if reference:
        pd_, md_ = None, None
    else:
        pd_ = _r(delta_pct(published, pub_base)) if pub_base is not None else None
        md_ = _r(delta_pct(model, model_base)) if (model is not None and model_base is not None) else None
    return {"table": table, "stat": stat, "row": row, "kernel": kernel, "published": _r(published),
            "model": _r(model), "published_delta_pct": pd_, "model_delta_pct": md_, "calibrated": bool(calibrated)}


def _r(v, nd: int = 4):
    if v is None:
        return None
    v = float(v)
    if math.isnan(v) or math.isinf(v):
        return None
    return round(v, nd)


def delta_frame(cells: list[dict]) -> pd.DataFrame:
    """Published beside model, one row per cell.  Columns: ``stat`` (when any cell has one), ``row, kernel,
    published, model, published_delta_pct, model_delta_pct, |err| pts, sign agrees, use`` (``use``: fitted,
    predicted, or reference -- a baseline-column cell shown for its value); a missing value is None."""
    from . import _sign

    rows = []
    for c in cells:
        c = {k: _none(v) for k, v in c.items()}  # cells may come back from a frame, None as NaN
        pd_, md_ = c.get("published_delta_pct"), c.get("model_delta_pct")
        both = pd_ is not None and md_ is not None
        rows.append({
            "stat": c.get("stat") or "", "row": c["row"], "kernel": c["kernel"],
            "published": c.get("published"), "model": c.get("model"),
            "published_delta_pct": pd_, "model_delta_pct": md_, "|err| pts": abs(md_ - pd_) if both else None,
            "sign agrees": ("yes" if _sign(pd_) == _sign(md_) else "NO") if both and not c.get("calibrated") else "",
            "use": "fitted" if c.get("calibrated") else ("predicted" if both else
                                                          ("reference" if c.get("model") is not None else "-")),
        })
    cols = ["stat", "row", "kernel", "published", "model", "published_delta_pct", "model_delta_pct", "|err| pts",
            "sign agrees", "use"]
    df = pd.DataFrame(rows, columns=cols)
    for c in ("published", "model", "published_delta_pct", "model_delta_pct", "|err| pts"):
        df[c] = pd.to_numeric(df[c], errors="coerce")
    return df if df["stat"].astype(bool).any() else df.drop(columns="stat")


def delta_text(cells: list[dict], title: str = "") -> str:
    """:func:`delta_frame` as text."""
    from ..frames import Table

    body = Table(delta_frame(cells)).text() if cells else "(no cells)"
    return (title + "\n" if title else "") + body


def _none(v):
    return None if isinstance(v, float) and math.isnan(v) else v


def samples_frame(samples: dict) -> pd.DataFrame:
    """``{kernel: {row: [values]}}`` as the long frame ``compare`` takes."""
    recs = [{"kernel": k, "row": r, "value": float(x)} for k, rows in samples.items() for r, vals in rows.items()
            for x in vals]
    return pd.DataFrame(recs, columns=["kernel", "row", "value"])


_INDEXES: dict = {}  # id(frame) -> (weak reference to the frame, its index); a frame is not hashable


def cell_value(t: pd.DataFrame, row: str, kernel: str, stat: str | None = None) -> float | None:
    """The ``value`` of a cells frame's cell (``stat`` None: any stat), or None.

    An index built once per frame: a reproduction looks up hundreds of cells, and every boolean selection of a
    frame that carries the published tables' metadata deep-copied it (``attrs``), a third of a 2014 seed base.
    The first match in the frame's order, as a selection's ``iloc[0]`` gives it.
    """
    ref, idx = _INDEXES.get(id(t), (None, None))
    if ref is None or ref() is not t:
        idx = {}
        stats = t["stat"].tolist() if "stat" in t.columns else [""] * len(t)
        for st, r, k, v in zip(stats, t["row"].tolist(), t["kernel"].tolist(), t["value"].tolist()):
            idx.setdefault((st, r, k), v)
            idx.setdefault((None, r, k), v)
        _INDEXES[id(t)] = (weakref.ref(t, lambda _r, key=id(t): _INDEXES.pop(key, None)), idx)
    v = idx.get((stat, row, kernel))
    return None if v is None else float(v)
