"""``kwb present``: a thread as a live slide deck for a 1280x720 projector, offline.

    kwb present THREAD [--dir build/lab] [--port N] [--no-browser]
    kwb present --all --html OUT

Talk mode is jupyterlab-slideshow: the lab's own notebook shown one slide at a
time, so the explorers' widgets and the live charts (Altair's ``JupyterChart``,
an anywidget) work in the deck exactly as in the lab, and a cell runs with
Shift+Enter.  jupyterlab-rise was the earlier choice; its deck is a separate
page that bundles an older JupyterLab without ``@jupyterlab/console``, so the
ipywidgets 8 manager cannot load there (no widget, no live chart, no cell
run).  The server starts on the deck itself (``LabApp.default_url``): the URL
Jupyter prints, and ``/``, open the deck, with deck mode on (a settings folder
of the talk's own, ``<dir>/.kwb-talk/``, so ``make lab`` is not left in deck
mode).

The talk's lab also loads a small extension of ours (``labextension/kwb-talk``,
through ``--LabApp.extra_labextensions_path``; ``make lab`` never sees it): the
deck's stylesheet, Ctrl+Shift+Enter to run every cell without leaving the slide,
and Shift+Enter that runs a cell and stays on its slide, as in RISE.  ``kwb
present`` replaces itself with the lab (``exec``), so stopping it stops the
server and its kernels.

The deck is a copy of the thread's notebook (in the lab's working copy,
``<dir>/slides/``; the committed notebook is never touched) laid out by
:func:`kernel_workbook.decks.live_deck`: slides that fit 1280x720, setup code
hidden, long code folded, what is still taller scrolling under a "more below"
cue.  The kernel runs in ``WORKBOOK_MODE=slides``: charts sized for 1280x720.

``--html OUT`` writes each thread's committed, executed notebook (CI-mode
charts as SVG) as a reveal.js deck, ``OUT/<notebook>.slides.html``
(:func:`kernel_workbook.decks.static_deck`: the same slides, printed tables
split into pages, no code), with reveal.js copied beside it
(:mod:`kernel_workbook.webassets`): it opens from disk on a machine with no
network.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from .decks import live_deck, static_deck
from .errors import WorkbookError
from .paths import repo_root

def thread_notebooks() -> list[Path]:
    """The thread notebooks (notebooks/20*.ipynb), in order."""
    return sorted((repo_root() / "notebooks").glob("20*.ipynb"))


def find_notebook(name: str) -> Path:
    """The notebook whose name contains ``name`` (e.g. ``2015`` or ``2014a``); it must be the only one."""
    nbs = sorted((repo_root() / "notebooks").glob("*.ipynb"))
    hits = [p for p in nbs if p.stem == name] or [p for p in nbs if name in p.stem]
    if len(hits) != 1:
        raise WorkbookError(f"kwb present: {name!r} names {len(hits)} notebooks in notebooks/; expected one of: "
                            + ", ".join(p.stem for p in nbs))
    return hits[0]


def write_deck(src: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / src.name
    out.write_text(json.dumps(live_deck(json.loads(src.read_text(encoding="utf-8"))), indent=1) + "\n",
                   encoding="utf-8")
    from .nbtools import trust

    trust(out)  # the committed charts (SVG) show only in a trusted notebook
    return out


TEMPLATES = Path(__file__).parent / "templates"


def export_slides(src: Path, out_dir: Path) -> Path:
    """One thread's committed notebook as a reveal.js deck, ``out_dir/<notebook>.slides.html``, that needs no
    network: reveal.js is copied beside it (``out_dir/_static/``), nothing is fetched."""
    import nbformat
    from nbconvert import SlidesExporter

    from . import webassets

    out_dir.mkdir(parents=True, exist_ok=True)
    reveal = webassets.copy_into("reveal.js", out_dir)
    raw = json.loads(src.read_text(encoding="utf-8"))
    webassets.check_no_math(raw, str(src))
    nb = nbformat.reads(json.dumps(static_deck(raw)), as_version=4)
    exporter = SlidesExporter(template_name="kwb_reveal", extra_template_basedirs=[str(TEMPLATES)],
                              reveal_url_prefix=reveal, reveal_theme="white", reveal_transition="none",
                              reveal_number="c/t", reveal_width="1280", reveal_height="720")
    exporter.exclude_input_prompt = exporter.exclude_output_prompt = True
    body, _ = exporter.from_notebook_node(nb)
    target = out_dir / f"{src.stem}.slides.html"
    target.write_text(body, encoding="utf-8")
    return target


TALK_DIR = ".kwb-talk"  # under the lab's working copy: the talk's own lab settings and workspaces
# the talk's lab extension (its stylesheet and keys: see its remoteEntry.js), loaded only by the talk's lab
TALK_EXTENSION = Path(__file__).parent / "labextension"


def talk_env(folder: Path) -> dict[str, str]:
    """The environment of the talk's lab, prepared under ``folder/.kwb-talk``: deck mode on at start
    (jupyterlab-slideshow's ``active``) in settings of the talk's own (``make lab`` is not left in deck mode),
    a fresh workspace (only the deck open), ``WORKBOOK_MODE=slides``."""
    talk = folder.resolve() / TALK_DIR
    plugin = talk / "settings" / "jupyterlab-slideshow" / "plugin.jupyterlab-settings"
    plugin.parent.mkdir(parents=True, exist_ok=True)
    plugin.write_text(json.dumps({**read_settings(plugin), "active": True}, indent=1), encoding="utf-8")
    shutil.rmtree(talk / "workspaces", ignore_errors=True)
    return {**os.environ, "WORKBOOK_MODE": "slides", "JUPYTERLAB_SETTINGS_DIR": str(talk / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(talk / "workspaces")}


def read_settings(path: Path) -> dict:
    """A lab settings file as the lab rewrites it (JSON5: whole-line ``//`` comments), or {} if absent."""
    if not path.exists():
        return {}
    text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                     if not line.lstrip().startswith("//"))
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise WorkbookError(f"{path}: line {e.lineno}: not a settings file the lab wrote ({e.msg}); "
                            "delete it to start the talk's settings afresh") from None


def deck_url(deck_path: str) -> str:
    """The lab's URL of a deck (relative to the server root), e.g. ``/lab/tree/slides/x.ipynb``."""
    return "/lab/tree/" + deck_path


def lab_command(url: str, port: int | None, browser: bool, extra: list[str] = ()) -> list[str]:
    # LabApp.default_url, not ServerApp's: the lab, as the server's main app, replaces the server's with its own
    return [str(Path(sys.executable).parent / "jupyter"), "lab", *(["--allow-root"] if os.geteuid() == 0 else []),
            "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--ServerApp.root_dir=.", f"--LabApp.default_url={url}",
            f"--LabApp.extra_labextensions_path={TALK_EXTENSION}",
            *([f"--ServerApp.port={port}"] if port else []), *([] if browser else ["--no-browser"]), *extra]


def _cmd_present(a) -> int:
    from .nbtools import workspace

    if a.html:
        srcs = thread_notebooks() if a.all else [find_notebook(a.thread)]
        for src in srcs:
            print(f"  {src.relative_to(repo_root())} -> {export_slides(src, Path(a.html))}")
        return 0
    if not a.thread:
        print("kwb present: name a thread (e.g. 2015), or give --all --html OUT", file=sys.stderr)
        return 2
    src = find_notebook(a.thread)
    folder = Path(a.dir)
    for line in workspace(folder):
        print("workspace:", line)
    d = write_deck(src, folder / "slides")
    url = deck_url(f"slides/{d.name}")
    print(f"kwb present: {src.name} as a deck (WORKBOOK_MODE=slides) at the URL below ({url}).\n"
          "  Ctrl+Shift+Enter runs every cell: the charts and knobs come alive as the cells finish (the title\n"
          "  slide then shows the mode line).  Space or the arrow keys step through the slides (click a slide\n"
          "  first); Shift+Enter runs the selected cell and stays on its slide; a \"code\" chip unfolds a cell's\n"
          "  code; \"more below\" marks an output to scroll; Esc leaves deck mode.", flush=True)
    cmd, env = lab_command(url, a.port, not a.no_browser, a.lab_args), talk_env(folder)
    os.chdir(folder)
    sys.stdout.flush()
    sys.stderr.flush()
    # the lab takes this process's place: stopping `kwb present` (a signal to its pid) stops the lab, never
    # leaving a server and its kernels behind
    os.execve(cmd[0], cmd, env)


def register(sub) -> None:
    p = sub.add_parser("present", help="a thread as a live slide deck (1280x720, offline), or static HTML")
    p.add_argument("thread", nargs="?", help="a notebook's name or a unique part of it (2011, 2014a, 2015, ...)")
    p.add_argument("--dir", default="build/lab", help="the lab's working copy (default build/lab)")
    p.add_argument("--port", type=int, default=None)
    p.add_argument("--no-browser", action="store_true")
    p.add_argument("--all", action="store_true", help="with --html: every thread notebook")
    p.add_argument("--html", metavar="OUT", help="write static HTML pages to OUT instead of starting the lab")
    p.add_argument("--lab-arg", dest="lab_args", action="append", default=[], metavar="ARG",
                   help="passed to jupyter lab, e.g. --lab-arg=--ServerApp.ip=0.0.0.0 (repeat for more)")
    p.set_defaults(func=_cmd_present)
