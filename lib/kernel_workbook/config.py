"""One switch for how the workbook runs: ``WORKBOOK_MODE=ci|lab|slides``.

=========  ===========================================  ==============  ==========
mode       Altair renderer                              chart size      problem size
=========  ===========================================  ==============  ==========
``lab``    ``jupyter`` with ``offline=True`` (no CDN)   560 x 300       full
``slides`` ``jupyter`` with ``offline=True``            900 x 460, big  full
           fonts for a projector
``ci``     ``svg`` (vl-convert, deterministic, no JS)   560 x 300       small
=========  ===========================================  ==============  ==========

``ci`` is also what ``make report`` uses: a static HTML export cannot run the
widget JavaScript, so its charts are inline SVG.  No mode fetches anything from
the network: Vega's JavaScript comes from the ``vl-convert`` wheel.

Charts take their colours from JupyterLab's theme: the background, text, axes
and grid are CSS variables of the lab (``var(--jp-ui-font-color1, #000)``),
each with the light colour as its fallback, and the live charts are drawn as
SVG, where the browser resolves them.  So a chart is dark in the dark theme,
light in the light one, switches with the theme, and keeps Vega's light look
where no lab is around (the static report, an SVG opened alone).

Notebooks call :func:`setup` in their first cell; it prints the mode so that a
presenter sees at once whether the machine is set up for the stage.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass

MODES = ("lab", "ci", "slides")


@dataclass(frozen=True)
class Mode:
    name: str
    width: int
    height: int
    font_size: int
    small: bool  # smaller problem sizes so CI stays fast

    @property
    def renderer(self) -> str:
        return "svg" if self.name == "ci" else "jupyter"


_MODES = {
    "lab": Mode("lab", 560, 300, 12, False),
    "slides": Mode("slides", 900, 460, 18, False),
    "ci": Mode("ci", 560, 300, 12, True),
}


def mode(name: str | None = None) -> Mode:
    """The mode ``name``, else the current one (``WORKBOOK_MODE``, default ``lab``); an unknown name is an error."""
    name = (name or os.environ.get("WORKBOOK_MODE", "lab")).strip().lower() or "lab"
    if name not in _MODES:
        from .errors import WorkbookParameterError

        raise WorkbookParameterError("WORKBOOK_MODE", name, "one of " + ", ".join(MODES))
    return _MODES[name]


def task_env() -> dict[str, str]:
    """What a task run in another process must see as this one does: the mode, which sets problem sizes.

    A Dask worker has the environment it was started with, not the client's;
    :func:`call_in_env` runs a task with this one's.
    """
    return {"WORKBOOK_MODE": mode().name}


@contextmanager
def in_env(env: dict[str, str] | None):
    """Run a block with ``env``'s variables set (from another process's :func:`task_env`), then restore them.

    The environment is the process's: two threads of one worker running tasks of clients in different modes
    would see each other's, one reason the workbook's workers run one thread each."""
    env = env or {}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def call_in_env(env: dict[str, str] | None, fn, *args):
    """``fn(*args)`` under :func:`in_env` (``env``): what a sweep or reproduction submits to a worker."""
    with in_env(env):
        return fn(*args)


def setup(verbose: bool = True) -> Mode:
    """Enable the mode's Altair renderer and theme; returns the mode."""
    import altair as alt

    m = mode()
    if m.renderer == "svg":
        alt.renderers.enable("svg")
    else:
        # SVG, not Vega's default canvas: the theme's colours are CSS variables, which only SVG resolves
        alt.renderers.enable("jupyter", offline=True, embed_options={"renderer": "svg"})
        # the renderer switches JupyterChart offline only when it displays a
        # chart; a panel that builds its own JupyterChart needs it now
        alt.JupyterChart.enable_offline(True)
    _theme(alt, m)
    if verbose:
        print(f"kernel_workbook: WORKBOOK_MODE={m.name} (charts: {m.renderer}{', offline' if m.renderer == 'jupyter' else ''})")
    return m


# JupyterLab's theme variables, each with the colour Vega draws without a theme (a chart outside the lab)
BACKGROUND = "var(--jp-layout-color0, white)"
TEXT = "var(--jp-ui-font-color1, #000)"
TEXT_SOFT = "var(--jp-ui-font-color2, #555)"
RULE = "var(--jp-ui-font-color2, #888)"
GRID = "var(--jp-border-color2, #ddd)"


def theme_config(m: Mode) -> dict:
    """The Vega-Lite ``config`` of the workbook's theme for mode ``m``: sizes, and colours from the lab's theme."""
    text = {"labelColor": TEXT, "titleColor": TEXT}
    return {
        "background": BACKGROUND,
        "view": {"continuousWidth": m.width, "continuousHeight": m.height, "stroke": GRID},
        # axis labels whole too ("Time System-NUMA01_THREADLOCAL", not "...THEA...")
        "axis": {"labelFontSize": m.font_size, "titleFontSize": m.font_size + 1, "labelLimit": 0,
                 "domainColor": RULE, "tickColor": RULE, "gridColor": GRID, **text},
        # legends under the plot, labels whole (Vega cuts a label at 160 px by default:
        # "publishe..."), in columns: a chart is then as wide as its plot and axis, so
        # it fits a 1280x720 projector beside the lab's sidebar
        "legend": {"labelFontSize": m.font_size, "titleFontSize": m.font_size, "orient": "bottom",
                   "direction": "vertical", "columns": 2, "labelLimit": 0, "titleLimit": 0, **text},
        "header": text,
        "title": {"fontSize": m.font_size + 3, "color": TEXT, "subtitleColor": TEXT_SOFT},
        "text": {"color": TEXT},
    }


def _theme(alt, m: Mode) -> None:
    def theme():
        return {"config": theme_config(m)}

    try:  # Altair >= 5.5
        alt.theme.register("kwb", enable=True)(theme)
    except AttributeError:  # pragma: no cover - older Altair
        alt.themes.register("kwb", theme)
        alt.themes.enable("kwb")
