"""Build an mmtests comparison from raw samples.

Model runs, real captures and benchmark results all reach the table engine
through :func:`compare`, so they print exactly like the tables in the threads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from ..errors import WorkbookParameterError
from .cells import cells_frame
from .eras import get_era
from .render import split_run_name
from .significance import check_method, ci_significant, welch_significant
from .stats import calc_stddev, mean_kind, percent_fn, stat_label, statistic


def _long(samples, kernel_col: str, row_col: str, value_col: str) -> pd.DataFrame:
    if isinstance(samples, pd.DataFrame):
        if samples.attrs:
            # the table reads only the columns: a frame that carries a model run in ``attrs`` would have it
            # deep-copied by every pandas operation below (pandas copies ``attrs`` into each result)
            samples = pd.DataFrame(samples)
        missing = [c for c in (kernel_col, value_col) if c not in samples.columns]
        if missing:
            raise WorkbookParameterError(
                "samples", list(samples.columns), f"a frame with columns {kernel_col!r}, {value_col!r} "
                f"(and {row_col!r} for several metrics); missing {missing}")
        df = samples.rename(columns={kernel_col: "kernel", value_col: "value"})
        if row_col in samples.columns:
            df = df.rename(columns={row_col: "row"})
        else:
            df = df.assign(row=value_col)
        return df[["kernel", "row", "value"]]
    if isinstance(samples, Mapping):
        recs = []
        for k, v in samples.items():
            if isinstance(v, Mapping):
                for r, vals in v.items():
                    recs.extend({"kernel": k, "row": r, "value": x} for x in np.ravel(vals))
            elif isinstance(v, pd.DataFrame):
                for r in v.columns:
                    recs.extend({"kernel": k, "row": r, "value": x} for x in v[r].to_numpy())
            else:
                recs.extend({"kernel": k, "row": "value", "value": x} for x in np.ravel(v))
        return pd.DataFrame(recs, columns=["kernel", "row", "value"])
    raise WorkbookParameterError("samples", type(samples).__name__,
                                 "a long DataFrame (kernel, row, value) or a dict kernel -> samples")


def compare(
    samples,
    baseline: str | None = None,
    higher_is_better: bool | Mapping[str, bool] | Callable[[str], bool] = True,
    stats: tuple[str, ...] | None = None,
    era: str = "current",
    significance: str | None = "ci",
    alpha: float = 0.05,
    kernels: list[str] | None = None,
    table=1,
    title: str = "",
    kernel_col: str = "kernel",
    row_col: str = "row",
    value_col: str = "value",
) -> pd.DataFrame:
    """An mmtests comparison table computed from samples.

    Parameters
    ----------
    samples : DataFrame or dict
        Long frame with one sample per row (columns ``kernel``, ``row``,
        ``value``; names configurable), or ``{kernel: {row: values}}``, or
        ``{kernel: values}`` for a single metric.
    baseline : str, optional
        The kernel every percentage is against (default: the first).
    higher_is_better : bool, dict or callable
        Each metric's preferred direction (mmtests' ``getPreferredValue``).
    stats : tuple of str, optional
        Statistics in print order; ``Mean`` and ``BMean-N`` take the era's
        mean (``Hmean`` for higher-is-better from 2015 on).  Default: the
        era's usual set.
    era : str
        ``2014``, ``2015``, ``2017`` or ``current`` (see :mod:`.eras`).
    significance : {"ci", "welch", None}
        Mark the mean row where the change is significant (see
        :mod:`.significance`); the method, alpha and n go into the table's
        ``significance`` note, printed under it.
    kernels : list of str, optional
        Column order (default: order of first appearance).

    Returns
    -------
    DataFrame
        A cells frame (see :mod:`.cells`), statistics grouped by statistic
        then by metric as mmtests prints them; one extra column ``n``: the
        samples behind each cell.
    """
    e = get_era(era)
    sig = check_method(significance, alpha) if significance else None
    df = _long(samples, kernel_col, row_col, value_col)
    if df.empty:
        raise WorkbookParameterError("samples", "empty", "at least one sample")
    order = kernels or list(dict.fromkeys(df["kernel"]))
    unknown = set(df["kernel"]) - set(order)
    if unknown:
        raise WorkbookParameterError("kernels", order, f"every kernel of the samples (missing {sorted(unknown)})")
    base = baseline if baseline is not None else order[0]
    if base not in order:
        raise WorkbookParameterError("baseline", base, "one of " + ", ".join(map(str, order)))
    rows = list(dict.fromkeys(df["row"]))

    def hib(r: str) -> bool:
        if callable(higher_is_better):
            return bool(higher_is_better(r))
        if isinstance(higher_is_better, Mapping):
            if r not in higher_is_better:
                raise WorkbookParameterError("higher_is_better", sorted(higher_is_better), f"a direction for {r!r}")
            return bool(higher_is_better[r])
        return bool(higher_is_better)

    groups = _groups(df)
    stat_list = tuple(stats) if stats else e.stats
    labels_all = [stat_label(s, hib(r), e) for s in stat_list for r in rows]
    mean_labels = {e.mean_name(True), e.mean_name(False)}
    recs = []
    n_of = {str(k): int(sum(len(groups.get((k, r), [])) for r in rows[:1])) for k in order}
    order_i = 0
    for s in stat_list:
        for r in rows:
            h = hib(r)
            label = stat_label(s, h, e)
            fn = percent_fn(label, h, e)
            base_vals = groups.get((base, r), np.array([]))
            base_v = statistic(label, base_vals, h)
            for col, k in enumerate(order):
                vals = groups.get((k, r), np.array([]))
                v = statistic(label, vals, h)
                pct = float("nan") if (v != v or base_v != base_v) else fn(v, base_v)
                marked = False
                if sig and label in mean_labels and k != base and len(vals) and len(base_vals):
                    kind = mean_kind(label)
                    sd_b, sd_n = calc_stddev(base_vals, kind), calc_stddev(vals, kind)
                    if sig.method == "ci":
                        marked = ci_significant(base_v, sd_b, v, sd_n, alpha)
                    else:
                        marked = welch_significant(v, base_v, sd_n, sd_b, len(vals), len(base_vals), alpha)
                recs.append({
                    "table": table, "stat": label, "row": r, "kernel": _label(k), "value": v, "pct": pct,
                    "sig": marked, "unit": "", "text": "", "decimals": 2, "col": col, "order": order_i,
                    "line": 0, "quote": 0, "kind": "compare", "stddev_pct": float("nan"), "n": len(vals),
                })
            order_i += 1
    out = cells_frame(recs)
    out["n"] = [rec["n"] for rec in recs]
    stat_w = max(len(x) for x in labels_all)
    row_w = max(len(str(r)) for r in rows)
    heads = [split_run_name(str(k)) for k in order]
    out.attrs["tables"] = {
        table: {
            "title": title,
            "kind": "compare",
            "era": e.name,
            "baseline": _label(base),
            "kernels": [_label(k) for k in order],
            "directions": {str(r): ("higher" if hib(r) else "lower") for r in rows},
            "significance": sig.describe({_label(k): v for k, v in n_of.items()}) if sig else "",
            "significance_method": sig.method if sig else "",
            "alpha": alpha if sig else None,
            "has_header": True,
            "layout": {
                "stat_width": stat_w,
                "row_width": row_w,
                "label_width": stat_w + 1 + row_w,
                "field_width": e.field_width,
                "compare_width": e.compare_width,
                "header": [[a for a, _ in heads], [b for _, b in heads]] if any(b for _, b in heads) else [[a for a, _ in heads]],
            },
        }
    }
    return out


def _groups(df: pd.DataFrame) -> dict:
    """``{(kernel, row): values as float}`` in order of first appearance, as ``groupby(sort=False)``
    gives them (a key with a missing kernel or row left out), without pandas' per-group frames."""
    vals = df["value"].to_numpy(dtype=float)
    at: dict = {}
    for i, key in enumerate(zip(df["kernel"].tolist(), df["row"].tolist())):
        at.setdefault(key, []).append(i)
    return {key: vals[np.asarray(ix, dtype=np.intp)] for key, ix in at.items()
            if not (pd.isna(key[0]) or pd.isna(key[1]))}


def _label(k) -> str:
    a, b = split_run_name(str(k))
    return f"{a} {b}".strip()
