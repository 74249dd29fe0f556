"""Altair charts of tables (LISA naming: ``df_*`` gives the data, ``plot_*`` the chart)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..config import mode
from ..tables.cells import table_meta


def df_pct_change(cells: pd.DataFrame, table=None) -> pd.DataFrame:
    """Percentage change of every cell against the table's baseline column.

    Columns: ``table, stat, row, label, kernel, col, order, value, base,
    pct, printed, sig``.  ``pct`` is the printed mmtests percentage
    (positive = better) where the table prints one (``printed`` True);
    otherwise the plain relative change ``(value/base - 1) * 100``, whose sign
    says nothing about better or worse.
    """
    t = cells if table is None else cells[cells["table"] == table]
    out = []
    for tid, g in t.groupby("table", sort=False):
        meta = table_meta(cells, tid)
        base_k = meta.get("baseline") or g.loc[g["col"] == g["col"].min(), "kernel"].iloc[0]
        if base_k not in set(g["kernel"]):
            base_k = g.loc[g["col"] == g["col"].min(), "kernel"].iloc[0]
        base = g[g["kernel"] == base_k].set_index(["stat", "row"])["value"]
        for r in g.itertuples():
            if r.kernel == base_k:
                continue
            b = base.get((r.stat, r.row), float("nan"))
            if r.pct == r.pct and _first_col_is(g, base_k):
                pct, printed = r.pct, True
            else:
                pct = (r.value / b - 1) * 100 if b and b == b else float("nan")
                printed = False
            out.append({
                "table": tid, "stat": r.stat, "row": r.row,
                "label": f"{r.stat} {r.row}".strip(), "kernel": r.kernel, "col": r.col, "order": r.order,
                "value": r.value, "base": b, "pct": pct, "printed": printed, "sig": bool(r.sig),
            })
    return pd.DataFrame(out, columns=["table", "stat", "row", "label", "kernel", "col", "order", "value",
                                      "base", "pct", "printed", "sig"])


def _first_col_is(g: pd.DataFrame, kernel: str) -> bool:
    return g.loc[g["col"] == g["col"].min(), "kernel"].iloc[0] == kernel


def plot_pct_change(cells: pd.DataFrame, table=None, title: str | None = None) -> alt.Chart:
    """Bars of the change against the baseline, one bar per kernel and row.

    Significant cells (as printed, or as computed by ``compare``) are drawn
    with a black outline; the caption states the method.
    """
    d = df_pct_change(cells, table)
    m = mode()
    tid = table if table is not None else (d["table"].iloc[0] if len(d) else None)
    meta = table_meta(cells, tid) if tid is not None else {}
    printed = bool(d["printed"].all()) if len(d) else False
    xtitle = "change vs baseline, % (mmtests: positive = better)" if printed else "change vs baseline, % (value/base - 1)"
    sort = list(dict.fromkeys(d.sort_values("order")["label"]))
    base = alt.Chart(d).encode(
        y=alt.Y("label:N", sort=sort, title=None),
        yOffset=alt.YOffset("kernel:N", sort=list(dict.fromkeys(d.sort_values("col")["kernel"]))),
        color=alt.Color("kernel:N", sort=list(dict.fromkeys(d.sort_values("col")["kernel"])), title="kernel"),
        tooltip=["label", "kernel", alt.Tooltip("value:Q", format=",.2f"), alt.Tooltip("base:Q", format=",.2f"),
                 alt.Tooltip("pct:Q", format="+.2f"), "sig"],
    )
    bars = base.mark_bar().encode(
        x=alt.X("pct:Q", title=xtitle),
        stroke=alt.condition("datum.sig", alt.value("black"), alt.value(None)),
        strokeWidth=alt.condition("datum.sig", alt.value(2), alt.value(0)),
    )
    zero = alt.Chart(pd.DataFrame({"x": [0]})).mark_rule(color="gray").encode(x="x:Q")
    height = max(120, min(m.height * 2, 18 * max(1, len(d))))
    subtitle = [f"baseline: {meta.get('baseline', '')}"] if meta.get("baseline") else []
    if d["sig"].any():
        subtitle.append(meta.get("significance") or "outlined: marked significant in the source")
    chart = (bars + zero).properties(
        width=m.width, height=height,
        title=alt.TitleParams(title or meta.get("title") or str(tid or ""), subtitle=subtitle),
    )
    return chart


def plot_values(cells: pd.DataFrame, x: str = "row", title: str | None = None) -> alt.Chart:
    """Values of one table as lines over its rows (e.g. throughput against readers)."""
    m = mode()
    d = cells.copy()
    d["label"] = (d["stat"] + " " + d["row"]).str.strip()
    sort = list(dict.fromkeys(d.sort_values("order")["label"]))
    return alt.Chart(d).mark_line(point=True).encode(
        x=alt.X("label:N", sort=sort, title=None),
        y=alt.Y("value:Q", title="value"),
        color=alt.Color("kernel:N", sort=list(dict.fromkeys(d.sort_values("col")["kernel"]))),
        tooltip=["label", "kernel", alt.Tooltip("value:Q", format=",.2f")],
    ).properties(width=m.width, height=m.height, title=title or "")


# --------------------------------------------------------------------------- live charts (explorers)

def _frozen(x):
    """A hashable stand-in of a chart option (lists become tuples, dicts sorted items)."""
    if isinstance(x, dict):
        return tuple(sorted((str(k), _frozen(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return tuple(_frozen(v) for v in x)
    try:
        hash(x)
    except TypeError:
        return repr(x)
    return x


def _frame_key(df) -> tuple:
    # what Altair reads of a frame besides its values: the columns, their dtypes and, for object
    # columns, the kind pandas infers (an encoding without a type takes it from there)
    if df is None:
        return (None,)
    return tuple((str(c), str(t), pd.api.types.infer_dtype(df[c], skipna=True) if t == object else "")
                 for c, t in df.dtypes.items())


def _dataset_name(values) -> str:
    """The name Altair's ``to_dict`` gives ``values`` (its own function: the schema module of the
    installed Altair, v5 or v6; ``tests/test_live_chart.py`` fails if the naming ever differs)."""
    import importlib

    import altair as alt

    api = importlib.import_module(f"altair.vegalite.{alt.SCHEMA_VERSION.split('.')[0]}.api")
    return api._dataset_name(values)


def _data_paths(spec, names: dict, path=()):
    """Every place of ``spec`` where a dataset is referenced by name: ``[(path, name)]``."""
    found = []
    if isinstance(spec, dict):
        d = spec.get("data")
        if isinstance(d, dict) and set(d) == {"name"} and d["name"] in names:
            found.append((path + ("data",), d["name"]))
        for k, v in spec.items():
            if k != "datasets":
                found += _data_paths(v, names, path + (k,))
    elif isinstance(spec, list):
        for i, v in enumerate(spec):
            found += _data_paths(v, names, path + (i,))
    return found


def _frame_records(frames) -> dict:
    """``{index: records}`` of the frames that are not ``None``."""
    return {i: _records(f) for i, f in enumerate(frames) if f is not None}


def _records(frame: pd.DataFrame) -> list:
    """The records Altair's default data transformer makes of ``frame`` (its ``values``).

    Columns of plain dtypes (numpy numbers, bool, strings without a missing value) are read as
    lists, with Altair's sanitizing (NaN and infinities become ``None``); any other frame goes
    through Altair itself.
    """
    import math

    import altair as alt

    cols = list(frame.columns)
    max_rows = alt.data_transformers.options.get("max_rows", 5000)
    plain = (alt.data_transformers.active == "default" and len(frame) <= max_rows
             and all(isinstance(c, str) for c in cols) and len(set(cols)) == len(cols)
             and not isinstance(frame.index, pd.MultiIndex))
    lists = []
    for c, t in (frame.dtypes.items() if plain else ()):
        name = str(t)
        v = frame[c].tolist()
        if name in ("str", "string") and all(isinstance(x, str) for x in v):
            lists.append(v)  # a missing string is left to Altair: it writes None or NaN by version
        elif name == "bool" or (t.kind in "iu" and name == t.name):  # numpy bool and integers: as they are
            lists.append(v)
        elif t.kind == "f" and name == t.name:
            lists.append([None if (x != x or math.isinf(x)) else x for x in v])
        else:
            plain = False
            break
    if not plain:
        return alt.data_transformers.get()(frame)["values"]
    return [dict(zip(cols, row)) for row in zip(*lists)] if cols else [{} for _ in range(len(frame))]


class LiveChart:
    """A chart an explorer redraws: its Vega-Lite spec is built once per structure, a redraw swaps the data.

    ``build(*frames, **options)`` makes the Altair chart from data frames
    (one per layer that has data; ``None`` for a layer left out) and
    options (titles, scale domains, sizes).  :meth:`spec` gives exactly
    ``build(*frames, **options).to_dict()``: the first call for a structure
    -- the options, the mode and theme, each frame's columns and dtypes --
    builds the chart and keeps its dict; later calls put the new frames'
    records into ``datasets`` under the names Altair would give them, so the
    Altair chart (encodings, layers, schema validation: most of a redraw) is
    not built again.

    :meth:`show` is what an explorer's ``draw`` returns: with the
    ``jupyter`` renderer (``WORKBOOK_MODE=lab``/``slides`` after
    ``config.setup()``) one ``alt.JupyterChart`` per structure, embedded
    once; a redraw of the same structure sends the browser only the datasets
    that changed, as Vega data updates (the widget's ``_py_to_js_updates``:
    the view's dataflow re-runs, the Vega-Lite spec is neither sent nor
    compiled again -- re-embedding the whole spec was most of a redraw's time
    in the browser).  The widget's ``spec`` is then set in the kernel without
    being sent, so it always equals ``build(*frames, **options).to_dict()``.
    A new structure (another title, another number of queues) gets a new
    widget.  With any other renderer (``ci``: static SVG) the chart built
    from scratch, as before.
    """

    def __init__(self, build, max_structures: int = 32):
        self.build = build
        self.max_structures = max_structures
        self._templates: dict = {}
        self.widget = None
        self._embedded: tuple | None = None  # (structure key, {frame: dataset name the browser's view knows})
        self._sent: dict = {}  # {frame: name of the dataset the browser's view now holds}
        self._retired: list = []  # widgets of an earlier structure, closed once replaced on the page

    def _key(self, frames, options) -> tuple:
        import altair as alt

        try:  # Altair >= 5.5
            theme = alt.theme.active
        except AttributeError:  # older Altair (config.setup() registers the theme either way)
            theme = alt.themes.active
        return (mode(), theme, _frozen(options), tuple(_frame_key(f) for f in frames))

    def _template(self, frames, options):
        """``(spec, slots, constants)``: the dict of a chart built from ``frames``, which frame every
        dataset reference stands for (``None``: the structure is ambiguous, do not reuse it)."""
        spec = self.build(*frames, **options).to_dict()
        datasets = spec.get("datasets", {})
        names = [None if f is None else _dataset_name(_records(f)) for f in frames]
        given = [n for n in names if n is not None]
        if len(set(given)) != len(given):  # two frames with the same records: which reference is which?
            return spec, None
        refs = _data_paths(spec, datasets)
        slot_of = {n: i for i, n in enumerate(names) if n is not None}
        slots = [(p, slot_of[n]) for p, n in refs if n in slot_of]
        if any(n not in datasets for n in given):  # a frame the chart does not show as such (filtered)
            return spec, None
        skeleton = {k: v for k, v in spec.items() if k != "datasets"}
        constants = {n: v for n, v in datasets.items() if n not in slot_of}
        return spec, (skeleton, slots, constants)

    def spec(self, *frames, **options) -> dict:
        """The Vega-Lite dict of ``build(*frames, **options)``."""
        return self._spec(self._key(frames, options), frames, options)[0]

    def _spec(self, key, frames, options) -> tuple:
        """``(spec, data)``: the spec and ``{frame index: (dataset name, records)}`` of the frames it
        swapped in (``None``: the chart was built, not swapped)."""
        import copy

        import altair as alt

        if alt.data_transformers.active != "default" or not alt.data_transformers.consolidate_datasets:
            return self.build(*frames, **options).to_dict(), None
        t = self._templates.get(key)
        if t is None:
            spec, t = self._template(frames, options)
            if t is not None:
                if len(self._templates) >= self.max_structures:
                    self._templates.pop(next(iter(self._templates)))
                self._templates[key] = t
                return spec, {i: (_dataset_name(v), v) for i, v in _frame_records(frames).items()}
            return spec, None
        skeleton, slots, constants = t
        spec = copy.deepcopy(skeleton)
        datasets = dict(constants)
        data = {}
        for i, values in _frame_records(frames).items():
            data[i] = (_dataset_name(values), values)
            datasets[data[i][0]] = values
        for path, i in slots:
            node = spec
            for p in path[:-1]:
                node = node[p]
            node[path[-1]] = {"name": data[i][0]}
        if datasets:
            spec["datasets"] = datasets
        return spec, data

    def show(self, *frames, **options):
        """What a redraw displays: the ``JupyterChart`` with the new data (class docstring), or (not the
        jupyter renderer) the chart built from scratch."""
        import altair as alt

        if alt.renderers.active != "jupyter":
            return self.build(*frames, **options)
        key = self._key(frames, options)
        spec, data = self._spec(key, frames, options)
        for old in self._retired:  # replaced on the page by the last redraw
            old.close()
        self._retired = []
        if self.widget is not None and data is not None and self._embedded is not None \
                and self._embedded[0] == key:
            names = self._embedded[1]
            updates = [{"namespace": "data", "name": names[i], "scope": [], "value": values}
                       for i, (name, values) in data.items() if self._sent.get(i) != name]
            if updates:
                self.widget._py_to_js_updates = updates
            self._sent = {i: name for i, (name, _) in data.items()}
            # the kernel's copy of the spec follows the data; sending it would re-embed the chart
            self.widget._trait_values["spec"] = spec
            return self.widget
        if self.widget is not None:
            self._retired.append(self.widget)
        alt.JupyterChart.enable_offline(bool(alt.renderers.options.get("offline", False)))
        self.widget = alt.JupyterChart(None, embed_options=alt.renderers.options.get("embed_options"))
        self.widget.spec = spec
        self._embedded = (key, {i: name for i, (name, _) in data.items()}) if data is not None else None
        self._sent = {i: name for i, (name, _) in (data or {}).items()}
        return self.widget
