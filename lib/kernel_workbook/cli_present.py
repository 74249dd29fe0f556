"""``kwb present``: a thread as a live slide deck for a 1280x720 projector, offline.

    kwb present THREAD [--dir build/lab] [--port N] [--no-browser]
    kwb present --all --html OUT

Talk mode is jupyterlab-rise: it installs from PyPI as a prebuilt lab extension
(reveal.js inside its wheel, so nothing is fetched), and a deck is the live
notebook itself, so the explorers' knobs redraw through the kernel as in the
lab.  Voila with a slides template was the other choice; it renders a notebook
as a separate app (no editing during the talk, its reveal template loads
reveal.js from a CDN unless configured with a local copy).

The deck is a copy of the thread's notebook (in the lab's working copy,
``<dir>/slides/``; the committed notebook is never touched) with RISE's slide
marks: every markdown cell starts a slide (a ``#``/``##`` heading a new slide, other text a
sub-slide under it), code cells stay with the text before them, and the input of a code cell
longer than three lines is collapsed (its output is what the audience reads; a click shows the
code).  The kernel runs in ``WORKBOOK_MODE=slides``: charts sized for 1280x720.

``--html OUT`` writes each thread's committed, executed notebook (CI-mode
charts as inline SVG) as one HTML page with the same code collapsed and no
script from the network: it opens from disk on a machine with no network.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from .errors import WorkbookError
from .paths import repo_root

# theme "white": reveal's default for RISE ("simple") fetches its fonts from fonts.googleapis.com
RISE = {"theme": "white", "autolaunch": True, "width": 1280, "height": 720, "scroll": True, "center": False,
        "enable_chalkboard": False, "transition": "none", "start_slideshow_at": "beginning"}
_EXTERNAL_SCRIPT = re.compile(r'<script[^>]*\bsrc="https?://[^"]*"[^>]*>\s*</script>', re.S)
_EXTERNAL_LINK = re.compile(r'<link[^>]*\bhref="https?://[^"]*"[^>]*>', re.S)


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


def deck(nb: dict) -> dict:
    """The notebook with RISE's slide marks and long code collapsed (a new dict)."""
    nb = copy.deepcopy(nb)
    nb.setdefault("metadata", {})["rise"] = dict(RISE)
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        meta = cell.setdefault("metadata", {})
        if cell["cell_type"] == "markdown":
            kind = "slide" if re.match(r"#{1,2} ", src.lstrip()) else "subslide"
        else:
            kind = "-"
            if cell["cell_type"] == "code" and len(src.strip().splitlines()) > 3:
                meta.setdefault("jupyter", {})["source_hidden"] = True
        meta["slideshow"] = {"slide_type": kind}
    return nb


def write_deck(src: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / src.name
    out.write_text(json.dumps(deck(json.loads(src.read_text(encoding="utf-8"))), indent=1) + "\n", encoding="utf-8")
    from .nbtools import trust

    trust(out)  # the committed charts (SVG) show only in a trusted notebook
    return out


def export_html(src: Path, out_dir: Path) -> Path:
    """One thread's committed notebook as a static page with no network script."""
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.reads(json.dumps(deck(json.loads(src.read_text(encoding="utf-8")))), as_version=4)
    for cell in nb.cells:  # the page has no button to show collapsed code: leave it out
        if cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"):
            cell.metadata["transient"] = {"remove_source": True}
    exporter = HTMLExporter()
    exporter.exclude_input_prompt = exporter.exclude_output_prompt = True
    body, _ = exporter.from_notebook_node(nb)
    body = _EXTERNAL_LINK.sub("", _EXTERNAL_SCRIPT.sub("", body))
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / (src.stem + ".html")
    target.write_text(body, encoding="utf-8")
    return target


def lab_command(folder: Path, url: str, port: int | None, browser: bool) -> list[str]:
    return [str(Path(sys.executable).parent / "jupyter"), "lab", *(["--allow-root"] if os.geteuid() == 0 else []),
            "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--ServerApp.root_dir=.", f"--ServerApp.default_url={url}",
            *([f"--ServerApp.port={port}"] if port else []), *([] if browser else ["--no-browser"])]


def _cmd_present(a) -> int:
    from .nbtools import workspace

    if a.html:
        srcs = thread_notebooks() if a.all else [find_notebook(a.thread)]
        for src in srcs:
            print(f"  {src.relative_to(repo_root())} -> {export_html(src, Path(a.html))}")
        return 0
    if not a.thread:
        print("kwb present: name a thread (e.g. 2015), or give --all --html OUT", file=sys.stderr)
        return 2
    src = find_notebook(a.thread)
    folder = Path(a.dir)
    for line in workspace(folder):
        print("workspace:", line)
    d = write_deck(src, folder / "slides")
    url = f"/rise/slides/{d.name}"
    print(f"kwb present: {src.name} as slides (WORKBOOK_MODE=slides); run all cells (Shift-Enter on each, or "
          f"Run > Run All in the lab) for the live charts; the deck is {url}")
    env = {**os.environ, "WORKBOOK_MODE": "slides"}
    return subprocess.call(lab_command(folder, url, a.port, not a.no_browser), cwd=folder, env=env)


def register(sub) -> None:
    p = sub.add_parser("present", help="a thread as a live slide deck (1280x720, offline), or static HTML")
    p.add_argument("thread", nargs="?", help="a notebook's name or a unique part of it (2011, 2014a, 2015, ...)")
    p.add_argument("--dir", default="build/lab", help="the lab's working copy (default build/lab)")
    p.add_argument("--port", type=int, default=None)
    p.add_argument("--no-browser", action="store_true")
    p.add_argument("--all", action="store_true", help="with --html: every thread notebook")
    p.add_argument("--html", metavar="OUT", help="write static HTML pages to OUT instead of starting the lab")
    p.set_defaults(func=_cmd_present)
