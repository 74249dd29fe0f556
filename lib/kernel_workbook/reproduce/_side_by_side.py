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

from ..textfit import frame_text
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


def delta_text(cells: list[dict], title: str = "") -> str:
    """A compact table: row, kernel, published and model values and changes, the error in points."""
    rows = []
    for c in cells:
        c = {k: _none(v) for k, v in c.items()}  # cells may come back from a frame, None as NaN
        pd_, md_ = c.get("published_delta_pct"), c.get("model_delta_pct")
        err = abs(md_ - pd_) if (pd_ is not None and md_ is not None) else None
        sign = ""
        if pd_ is not None and md_ is not None and not c.get("calibrated"):
            from . import _sign

            sign = "yes" if _sign(pd_) == _sign(md_) else "NO"
        rows.append({
            "stat": c.get("stat", ""), "row": c["row"], "kernel": c["kernel"],
            "published": _fmt(c["published"]), "model": _fmt(c["model"]),
            "pub d%": _fmt(pd_, sign=True), "model d%": _fmt(md_, sign=True),
            "|err| pts": _fmt(err), "sign agrees": sign,
            "use": "fitted" if c.get("calibrated") else ("predicted" if (pd_ is not None and md_ is not None)
                                                         else ("reference" if c.get("model") is not None else "-")),
        })
    df = pd.DataFrame(rows)
    body = frame_text(df) if len(df) else "(no cells)"
    return (title + "\n" if title else "") + body


def _none(v):
    return None if isinstance(v, float) and math.isnan(v) else v


def _fmt(v, sign: bool = False) -> str:
    if v is None:
        return "-"
    return f"{v:+.2f}" if sign else f"{v:.2f}"


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
