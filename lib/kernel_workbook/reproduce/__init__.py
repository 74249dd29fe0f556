"""Reproduce a thread's tables: calibrate on the baseline, predict the rest.

One module per thread registers a function in :data:`REGISTRY` that returns a
:class:`Reproduction`.  A thread without a model yet reproduces as its
published tables alone, and says so.

Schema of ``kwb reproduce THREAD --json`` (shared by every thread)::

    {"thread": str,
     "cells": [{"table", "row", "kernel", "published", "model",
                "published_delta_pct", "model_delta_pct", "calibrated"}],
     "summary": {"predicted_cells", "direction_agreement", "median_abs_error_pts"}}

A cell's delta is ``100 * (value / baseline_value - 1)``, against the
baseline column of its table (``tables.csv: baseline``); ``calibrated`` marks
the cells a model was fitted to, which the summary leaves out.
"""

from __future__ import annotations

import importlib
import json
import math
from dataclasses import dataclass, field

import pandas as pd

from ..errors import WorkbookParameterError
from ..tables import published, published_tables, render
from ..threads import THREADS

# thread id -> "module:function"; the modules are imported only when asked for,
# so `kwb tables` never pays for compiling a model.
REGISTRY: dict[str, str] = {}
REGISTRY["2014-seqread-fairzone-cfq"] = "kernel_workbook.reproduce.seqread_2014:reproduce"
REGISTRY["2011-cfq-deep-idle"] = "kernel_workbook.reproduce.deep_idle_2011:reproduce"
REGISTRY["2015-numa-slow-scan"] = "kernel_workbook.reproduce.numa_2015:reproduce_numa_2015"

CELL_KEYS = ["table", "row", "kernel", "published", "model", "published_delta_pct", "model_delta_pct", "calibrated"]


@dataclass
class Reproduction:
    thread: str
    cells: list[dict] = field(default_factory=list)  # CELL_KEYS (+ "stat")
    text: list[str] = field(default_factory=list)  # printed blocks, published beside model
    notes: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return summarise(self.cells)

    def to_json(self) -> str:
        cells = [{k: _clean(c.get(k)) for k in CELL_KEYS} for c in self.cells]
        return json.dumps({"thread": self.thread, "cells": cells, "summary": self.summary()}, indent=1)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.cells, columns=["stat"] + CELL_KEYS if any("stat" in c for c in self.cells) else CELL_KEYS)

    @classmethod
    def from_parts(cls, thread: str, parts: list[str], **kw) -> "Reproduction":
        """Run each ``"module:function"`` of ``parts`` (called with ``**kw``; each returns an object with
        ``cells``, ``text`` and ``notes``) and join them in order, the notes of all parts last."""
        rep = cls(thread)
        for target in parts:
            mod, fn = target.split(":")
            part = getattr(importlib.import_module(mod), fn)(**kw)
            rep.cells.extend(part.cells)
            rep.text.extend(part.text)
            rep.notes.extend(part.notes)
        if rep.notes:
            rep.text.append("== notes\n" + "\n".join(f" * {n}" for n in rep.notes))
        return rep


def _clean(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    return v


def delta_pct(value: float, base: float) -> float:
    if base is None or value is None or base != base or value != value or base == 0:
        return float("nan")
    return 100.0 * (value / base - 1.0)


def summarise(cells: list[dict]) -> dict:
    """Fidelity over the predicted cells (model present, not calibrated, baseline left out)."""
    pred = [c for c in cells if not c.get("calibrated") and _num(c.get("model")) and _num(c.get("published"))
            and _num(c.get("published_delta_pct")) and _num(c.get("model_delta_pct"))]
    if not pred:
        return {"predicted_cells": 0, "direction_agreement": None, "median_abs_error_pts": None}
    agree = [(_sign(c["published_delta_pct"]) == _sign(c["model_delta_pct"])) for c in pred]
    errs = sorted(abs(c["model_delta_pct"] - c["published_delta_pct"]) for c in pred)
    mid = len(errs) // 2
    med = errs[mid] if len(errs) % 2 else 0.5 * (errs[mid - 1] + errs[mid])
    return {"predicted_cells": len(pred), "direction_agreement": round(sum(agree) / len(pred), 4),
            "median_abs_error_pts": round(med, 3)}


def _num(v) -> bool:
    return isinstance(v, (int, float)) and v == v and not math.isinf(v)


# A change smaller than this (in percent) counts as "no change" on both sides.
SIGN_EPS_PCT = 5e-2


def _sign(v: float, eps: float = SIGN_EPS_PCT) -> int:
    return 0 if abs(v) < eps else (1 if v > 0 else -1)


def published_only(thread: str) -> Reproduction:
    """The reproduction of a thread that has no model yet: its tables as printed."""
    cells = published(thread)
    meta = published_tables(thread)
    rep = Reproduction(thread)
    for r in meta.itertuples():
        t = cells[cells["table"] == r.table]
        rep.text.append(f"== {r.table}: {r.title}\n{render(t)}")
    rep.notes.append("no model of this thread yet: the tables above are the published ones")
    return rep


def reproduce(thread: str, **kw) -> Reproduction:
    if thread not in THREADS:
        raise WorkbookParameterError("thread", thread, "one of " + ", ".join(THREADS))
    target = REGISTRY.get(thread)
    if target is None:
        return published_only(thread)
    mod, fn = target.split(":")
    return getattr(importlib.import_module(mod), fn)(**kw)


def format_summary(rep: Reproduction) -> str:
    s = rep.summary()
    if not s["predicted_cells"]:
        return "fidelity: no predicted cells (" + "; ".join(rep.notes or ["no model"]) + ")"
    return (f"fidelity: {s['predicted_cells']} predicted cells, direction agrees on "
            f"{100 * s['direction_agreement']:.1f}%, median |model - published| = {s['median_abs_error_pts']:.2f} points")
