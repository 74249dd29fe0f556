"""The strict fidelity score: what a reader may trust of a reproduction.

A published cell is **scored** when the model predicts it and its published
change is beyond the thread's own noise; it is a **hit** when the model's
change has the published sign and a size within a factor of 2 of the
published change.  Everything else is **excluded**, each cell with its
reason, in this order:

``baseline``     the baseline column of its table (or the cell's own
                 ``baseline_kernel``, when a reproduction measures it against
                 another column): no change to predict;
``calibrated``   a model parameter was fitted to it (``rep.fitted`` lists which);
(explicit)       a cell may carry its own ``exclude``, ``"kind: reason"`` with a kind of
                 this list: a repeat the key below cannot see (a total that is the
                 sum of scored rows, a row derived from scored rows, another run of a
                 scored measurement) or a change the thread itself calls unchanged,
                 quoted;
``not modelled`` the model gives no value, or the published change is undefined
                 (a baseline of 0); the reproduction says why in ``why``;
``estimate``     the thread gives the number as a guess in prose, not a
                 measurement; the reproduction puts the quotation in the
                 cell's ``exclude`` (``"estimate: ..."``);
``repeat``       the same published number (stat, row, kernel, value and change)
                 already scored in an earlier table of the thread, or a row the
                 reproduction names as the same measurement printed again
                 (``repeat_of``: a velocity that is a page count over an almost
                 constant test length);
``noise``        the published change is within the thread's noise for that
                 cell: from the ``CoeffVar``/``Stddev`` rows of its table or the
                 ``( +- x% )`` of a perf stat line where the thread prints them,
                 combined for the two columns (``sqrt(a**2 + b**2)``), else
                 :data:`DEFAULT_NOISE_PTS`; or the thread's authors call the
                 change negligible or flat: the reproduction puts their words in
                 the cell's ``flat`` (checked before "not modelled": it holds
                 whatever the model says).

The **lenient** score is the older one (same sign of the change, any size,
over every predicted, uncalibrated cell); it is kept beside the strict score
and labelled as such.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import pandas as pd

from ..tables import published

DEFAULT_NOISE_PTS = 2.0  # single runs cannot resolve a change below this (points of percentage change)
HIT_FACTOR = 2.0  # a hit's size is within this factor of the published change
EXCLUSION_ORDER = ("baseline", "calibrated", "not modelled", "estimate", "repeat", "noise")


def cell_key(c: dict) -> str:
    """``table|stat|row|kernel``: how ``rep.fitted`` and exclusions name a cell."""
    return "|".join(str(c.get(k) or "") for k in ("table", "stat", "row", "kernel"))


def _num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


# --------------------------------------------------------------------------- the thread's own noise

def noise_table(thread: str) -> dict:
    """``{(table, row, kernel): relative noise in %}`` from what the thread prints.

    ``CoeffVar`` rows give it directly; a ``Stddev`` row is divided by the
    table's mean (``Amean``/``Mean``/``Hmean``) of the same row and kernel;
    a perf stat line's ``( +- x% )`` is its ``stddev_pct``.
    """
    cells = published(thread)
    out: dict = {}
    means = {}
    for r in cells.itertuples():
        if r.stat in ("Amean", "Mean", "Hmean", "Gmean") and _num(r.value):
            means.setdefault((r.table, r.row, r.kernel), float(r.value))
    for r in cells.itertuples():
        key = (r.table, r.row, r.kernel)
        if r.stat == "CoeffVar" and _num(r.value):
            out[key] = abs(float(r.value))
        elif r.stat == "Stddev" and _num(r.value) and key not in out:
            m = means.get(key)
            if m:
                out[key] = abs(100.0 * float(r.value) / m)
        sp = getattr(r, "stddev_pct", None)
        if _num(sp):
            out.setdefault(key, abs(float(sp)))
    return out


def noise_pts(cell: dict, baseline_kernel: str | None, noise: dict) -> tuple[float, str]:
    """The noise of a cell's change (points) and where it comes from."""
    a = noise.get((cell["table"], cell["row"], cell["kernel"]))
    b = noise.get((cell["table"], cell["row"], baseline_kernel)) if baseline_kernel else None
    if a is not None or b is not None:
        a = a or 0.0
        b = b or 0.0
        return math.hypot(a, b), "thread"
    return DEFAULT_NOISE_PTS, "default"


# --------------------------------------------------------------------------- scoring one run

def verdict(model_change: float, published_change: float) -> tuple[str, str]:
    """The strict rule on one scored cell: ``("hit", "")`` when the model's change has the published sign and a
    size within :data:`HIT_FACTOR` of it, else ``("miss", "sign")`` or ``("miss", "size")``.  Every score and
    every sweep that counts hits asks this."""
    ratio = model_change / published_change
    if ratio <= 0:
        return "miss", "sign"
    return ("hit", "") if 1.0 / HIT_FACTOR <= ratio <= HIT_FACTOR else ("miss", "size")


def score_cells(thread: str, cells: list[dict], fitted: list[dict] | None = None) -> pd.DataFrame:
    """Every cell of a reproduction, scored or excluded.

    Columns: ``table, stat, row, kernel, published, model, published_delta_pct,
    model_delta_pct, calibrated, noise_pts, noise_from, status`` (``"hit"``,
    ``"miss"`` or ``"excluded"``), ``reason`` (why excluded, or for a miss:
    ``"sign"`` / ``"size"``), ``ratio`` (model change / published change).
    """
    from ..tables import baseline_of

    noise = noise_table(thread)
    fitted_keys = {k for f in (fitted or []) for k in f.get("fitted_to", [])}
    seen: dict = {}
    rows = []
    bases: dict = {}
    for c in cells:
        t = c["table"]
        if t not in bases:
            try:
                bases[t] = baseline_of(thread, t)
            except Exception:  # a model-only table: no published baseline
                bases[t] = None
        base = c.get("baseline_kernel") or bases[t]  # a cell may be measured against another column
        pd_, md_ = c.get("published_delta_pct"), c.get("model_delta_pct")
        nz, nfrom = noise_pts(c, base, noise)
        row = {k: c.get(k) for k in ("table", "stat", "row", "kernel", "published", "model", "published_delta_pct",
                                     "model_delta_pct", "calibrated")}
        row["stat"] = row["stat"] or ""
        row.update(noise_pts=round(nz, 3), noise_from=nfrom, status="excluded", reason="", ratio=None)
        key = (row["stat"], c["row"], c["kernel"], c.get("published"), pd_)
        if c["kernel"] == base:
            row["reason"] = "baseline: the column every change is measured against"
        elif c.get("calibrated") or cell_key(c) in fitted_keys:
            row["reason"] = "calibrated: a model parameter was fitted to this cell"
            row["calibrated"] = True
        elif c.get("exclude"):
            kind = str(c["exclude"]).split(":")[0]
            if kind not in EXCLUSION_ORDER[2:]:
                raise ValueError(f"{cell_key(c)}: exclude {c['exclude']!r} must start with one of "
                                 f"{', '.join(EXCLUSION_ORDER[2:])}")
            row["reason"] = str(c["exclude"])
        elif c.get("flat"):
            row["reason"] = "noise: " + c["flat"]
        elif not _num(pd_) and _num(c.get("published")):
            row["reason"] = "not modelled: " + (c.get("why") or "the published change is undefined (its baseline "
                                                                "is 0 or missing), so no change can be scored")
        elif not _num(c.get("model")) or not _num(md_) or not _num(pd_):
            row["reason"] = "not modelled: " + (c.get("why") or "the model gives no value for this cell")
        elif c.get("exclude"):  # "estimate: <the thread's words>"
            row["reason"] = c["exclude"]
        elif key in seen:
            row["reason"] = f"repeat: the same published number is scored in {seen[key]}"
        elif c.get("repeat_of"):
            row["reason"] = "repeat: " + c["repeat_of"]
        elif abs(pd_) < nz:
            src = "its table's CoeffVar/Stddev" if nfrom == "thread" else "the default floor"
            row["reason"] = f"noise: published change {pd_:+.2f} within ±{nz:.2f} points ({src})"
        else:
            seen[key] = t
            row["ratio"] = round(md_ / pd_, 4)
            status, why = verdict(md_, pd_)
            row.update(status=status, **({"reason": why} if why else {}))
        rows.append(row)
    return pd.DataFrame(rows, columns=["table", "stat", "row", "kernel", "published", "model", "published_delta_pct",
                                       "model_delta_pct", "calibrated", "noise_pts", "noise_from", "status", "reason",
                                       "ratio"])


def strict(scored: pd.DataFrame) -> dict:
    """``{"hits", "scored", "score", "excluded": {reason kind: count}}`` of a scored frame."""
    s = scored[scored["status"] != "excluded"]
    hits = int((s["status"] == "hit").sum())
    ex = scored[scored["status"] == "excluded"]["reason"].str.split(":").str[0]
    counts = OrderedDict((k, int((ex == k).sum())) for k in EXCLUSION_ORDER if (ex == k).any())
    return {"hits": hits, "scored": int(len(s)), "score": round(hits / len(s), 4) if len(s) else None,
            "excluded": dict(counts)}


def per_table(scored: pd.DataFrame) -> list[dict]:
    """The strict score of each table: ``[{"table", "hits", "scored", "score"}]`` in the thread's order."""
    out = []
    for t, g in scored.groupby("table", sort=False):
        s = g[g["status"] != "excluded"]
        hits = int((s["status"] == "hit").sum())
        out.append({"table": t, "hits": hits, "scored": int(len(s)),
                    "score": round(hits / len(s), 4) if len(s) else None})
    return out


def over_seeds(scores: list[dict], bases: list[int]) -> dict:
    """Mean and range of the strict score over seed bases (one ``strict()`` dict per base)."""
    vals = [s["score"] for s in scores if s["score"] is not None]
    if not vals:
        return {"bases": list(bases), "n": len(bases), "mean": None, "min": None, "max": None, "per_seed": []}
    return {"bases": list(bases), "n": len(bases), "mean": round(sum(vals) / len(vals), 4), "min": min(vals),
            "max": max(vals), "per_seed": [{"seed_base": b, "hits": s["hits"], "scored": s["scored"],
                                            "score": s["score"]} for b, s in zip(bases, scores)]}


__all__ = ["score_cells", "strict", "per_table", "over_seeds", "noise_table", "cell_key", "DEFAULT_NOISE_PTS",
           "HIT_FACTOR"]
