"""One explorer for every model: widgets built from the knob declaration.

:func:`explorer` takes a parameter set, the names of the knobs to expose and
a ``draw(params, **controls)`` function, and lays out one widget per knob --
labelled with the knob's full kernel name and unit, its kernel variable and
source in the tooltip, its range from the declaration -- above the live
output.  Controls that are not knobs (a machine preset, a reader count) are
passed as ready-made widgets and reach ``draw`` by name.

The layout is a grid of controls above the output, so a chart may use the
whole width of a 1280x720 projector; sliders redraw when released.  In
``WORKBOOK_MODE=ci`` there is no widget JavaScript: the default settings are
drawn once, statically, and nothing is returned.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

from ..config import mode
from ..errors import WorkbookParameterError


def knob_widget(params, name: str):
    """The widget of knob ``name`` of ``params``, set to its current value."""
    import ipywidgets as w

    k = type(params).knob(name)
    v = params.value(name)
    common = dict(description=k.label, tooltip=f"{k.label}: {k.tooltip}", style={"description_width": "initial"},
                  layout=w.Layout(width="98%"))
    if k.kind == "bool":
        return w.Checkbox(value=bool(v), indent=False, **common)
    if k.kind == "choice":
        return w.Dropdown(options=list(k.choices), value=v, **common)
    if k.kind in ("int", "float"):
        lo, hi, step = k.slider()
        if v is None:
            raise WorkbookParameterError(name, v, "a value to start the slider at (this knob is None)")
        lo, hi = min(lo, v), max(hi, v)
        cls = w.IntSlider if k.kind == "int" else w.FloatSlider
        return cls(value=v, min=lo, max=hi, step=step, continuous_update=False, **common)
    raise WorkbookParameterError(name, v, "a knob with a widget (bool, int, float or choice)")


def widgets_in(box, cls) -> list:
    """Every widget of class ``cls`` (or a tuple of classes) in ``box``, breadth first (the order a
    person reads an explorer's controls: the grid's before the output's)."""
    found, todo = [], [box]
    while todo:
        node = todo.pop(0)
        if isinstance(node, cls):
            found.append(node)
        todo.extend(getattr(node, "children", ()))
    return found


def _items(shown) -> list:
    return list(shown) if isinstance(shown, (tuple, list)) else ([] if shown is None else [shown])


def _show(shown) -> None:
    from IPython.display import display

    for o in _items(shown):
        display(o)


def _redisplay(box, shown, last: list) -> list:
    """Show ``shown`` in ``box`` (a VBox of one Output per item).  An item that is the very widget
    already shown at its place (a ``LiveChart``'s JupyterChart, whose spec was replaced in place) is
    left alone: displaying it again would make the browser draw it twice and flicker."""
    import ipywidgets as w
    from IPython.display import display

    items = _items(shown)
    outs = list(box.children)
    while len(outs) < len(items):
        outs.append(w.Output())
    for i, o in enumerate(outs):
        if i < len(items) and isinstance(items[i], w.Widget) and i < len(last) and last[i] is items[i]:
            continue
        o.clear_output(wait=True)
        if i < len(items):
            with o:
                display(items[i])
    box.children = tuple(outs[:max(len(items), 1)])
    return items


def explorer(params, knobs: Sequence[str], draw: Callable[..., Any], controls: dict | None = None,
             title: str = "", columns: int = 2, presets: dict | None = None, preset: str | None = None,
             enabled_when: dict | None = None):
    """Widgets for ``knobs`` of ``params`` (and extra ``controls``) above ``draw(params, **controls)``.

    ``draw`` returns what to show: an Altair chart, an HTML object, a frame,
    or a tuple of them.  ``presets`` (``{name: params}``, e.g. the thread's
    kernels) adds a "kernel" menu that sets every knob widget to that
    kernel's values; ``enabled_when`` (``{knob: predicate(params)}``) greys a
    knob out while it has no effect (a shift that only one batch formula
    reads).  Returns the widget box (``None`` in CI mode, where the defaults
    are drawn statically).
    """
    controls = dict(controls or {})
    enabled_when = dict(enabled_when or {})
    if presets:
        preset = preset if preset is not None else next(iter(presets))
        params = presets[preset]
    for n in list(knobs) + list(enabled_when):
        type(params).knob(n)  # an unknown knob is an error now, not at the first redraw
    if mode().name == "ci":
        _show(draw(params, **{k: c.value for k, c in controls.items()}))
        return None
    import ipywidgets as w

    widgets = {n: knob_widget(params, n) for n in knobs}
    status = w.HTML()
    out = w.VBox([w.Output()], layout=w.Layout(width="100%"))
    base = {"params": params}
    last: list = []
    holding = {"on": False}

    def current():
        kw = {n: (bool(wd.value) if type(params).knob(n).kind == "bool" else wd.value) for n, wd in widgets.items()}
        return base["params"].with_(**kw)

    def update(_=None):
        if holding["on"]:
            return
        t0 = time.perf_counter()
        try:
            p = current()
            for n, pred in enabled_when.items():
                if n in widgets:
                    widgets[n].disabled = not pred(p)
            shown = draw(p, **{k: c.value for k, c in controls.items()})
        except WorkbookParameterError as e:  # a combination the kernel refuses: say which knob, keep the old chart
            status.value = f"<span style='color:#b00'>{e}</span>"
            return
        last[:] = _redisplay(out, shown, last)
        status.value = f"<small>redrawn in {1000 * (time.perf_counter() - t0):.0f} ms; {p.echo(base['params'])}</small>"

    head_widgets = []
    if presets:
        menu = w.Dropdown(options=list(presets), value=preset, description="kernel",
                          tooltip="set every knob below to this kernel's values", style={"description_width": "initial"},
                          layout=w.Layout(width="98%"))

        def on_preset(change):
            base["params"] = presets[change["new"]]
            holding["on"] = True
            try:
                for n, wd in widgets.items():
                    v = base["params"].value(n)
                    if v is not None:
                        wd.value = v
            finally:
                holding["on"] = False
            update()

        menu.observe(on_preset, names="value")
        head_widgets.append(menu)
    for wd in [*widgets.values(), *controls.values()]:
        wd.observe(update, names="value")
    update()
    # a control with a floor on its width (a menu of long choices) is wider than a column at 1280x720 and
    # would lie over its neighbour: those go on a wrapping row above the grid
    wide = [c for c in controls.values() if c.layout.min_width]
    grid = w.GridBox(head_widgets + [c for c in controls.values() if c not in wide] + list(widgets.values()),
                     layout=w.Layout(grid_template_columns=f"repeat({columns}, minmax(0, 1fr))", width="100%",
                                     grid_gap="2px 16px"))
    rows = [w.HBox(wide, layout=w.Layout(flex_flow="row wrap", width="100%", grid_gap="2px 16px"))] if wide else []
    head = [w.HTML(f"<b>{title}</b>")] if title else []
    return w.VBox([*head, *rows, grid, status, out], layout=w.Layout(width="100%"))


__all__ = ["explorer", "knob_widget", "widgets_in"]
