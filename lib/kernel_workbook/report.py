"""``make report``: execute every notebook headless and export static HTML that needs no network.

The notebooks run in ``WORKBOOK_MODE=ci`` (charts as inline SVG), in memory:
the committed ``.ipynb`` files are not touched.  The result is
``build/report/index.html`` -- each page's title, what it is, and how long it
took to run -- with one page per notebook.  The pages come from the template
``templates/kwb_lab`` (nbconvert's lab template without its CDN scripts);
widgets a notebook leaves (a finished progress bar, a menu) are saved with
their state and drawn by the ipywidgets HTML manager copied into
``build/report/_static/`` (:mod:`kernel_workbook.webassets`).  The folder
opens from disk on a machine with no network.  Pages and index follow the
reader's light or dark preference (``prefers-color-scheme``): the page takes
JupyterLab's dark theme variables, and the charts, whose colours are those
variables (:mod:`kernel_workbook.config`), follow: they are drawn inline
(:func:`inline_svg`), since an SVG shown as an image sees none of the page's
variables and stayed a white box on a dark page.
"""

from __future__ import annotations

import html
import json
import os
import re
import time
from pathlib import Path

from .paths import repo_root

TEMPLATES = Path(__file__).parent / "templates"
KINDS = (("notebooks/20", "thread"), ("notebooks/", "notebook"), ("exercises/", "exercise"))


def notebooks() -> list[Path]:
    root = repo_root()
    return sorted((root / "notebooks").glob("*.ipynb")) + sorted((root / "exercises").glob("*.ipynb"))


def describe(nb) -> tuple[str, str]:
    """``(title, summary)`` of a notebook: its first heading, and the first paragraph of prose after it
    (markdown marks dropped, cut at a sentence near 240 characters)."""
    title, summary = "", ""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for block in re.split(r"\n\s*\n", cell.source.strip()):
            block = block.strip()
            if not title and block.startswith("#"):
                title = block.splitlines()[0].lstrip("#").strip()
                continue
            if title and block and not block.startswith(("#", "|", "<", "```", "-", "*", "!")):
                text = re.sub(r"\*\*|__|`|\[([^]]*)\]\([^)]*\)", lambda m: m.group(1) or "", " ".join(block.split()))
                if len(text) > 240:
                    cut = text.rfind(". ", 0, 240)
                    text = text[:cut + 1] if cut > 80 else text[:237] + "..."
                return title, text
    return title, summary


def kind(rel: str) -> str:
    return next(k for prefix, k in KINDS + (("", "page"),) if rel.startswith(prefix))


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


def dark_theme_css() -> str:
    """JupyterLab's dark theme as nbconvert ships it (its variables), for pages read in dark mode."""
    from jupyter_core.paths import jupyter_path

    for base in jupyter_path("nbconvert", "templates"):
        css = Path(base) / "lab" / "static" / "theme-dark.css"
        if css.exists():
            return css.read_text(encoding="utf-8")
    return ""


def inline_svg(nb, page: str) -> None:
    """Give the ids inside each SVG output of ``nb`` a prefix of their own (``page``, cell, output), so that
    the charts can be drawn inline in one page: Vega's clip paths would otherwise collide across charts."""
    for c, cell in enumerate(nb.cells):
        for o, out in enumerate(cell.get("outputs", [])):
            svg = out.get("data", {}).get("image/svg+xml")
            if not svg:
                continue
            prefix = f"{re.sub(r'[^A-Za-z0-9]', '', page)}-{c}-{o}-"
            for i in set(re.findall(r'\sid="([^"]+)"', svg)):
                svg = (svg.replace(f'id="{i}"', f'id="{prefix}{i}"').replace(f"#{i})", f"#{prefix}{i})")
                       .replace(f'"#{i}"', f'"#{prefix}{i}"'))
            out["data"]["image/svg+xml"] = svg


def build_report(out: Path, timeout: int = 900, paths: list[Path] | None = None) -> Path:
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    from . import webassets

    os.environ["WORKBOOK_MODE"] = "ci"
    out.mkdir(parents=True, exist_ok=True)
    widgets = webassets.copy_into("@jupyter-widgets/html-manager", out)
    exporter = HTMLExporter(template_name="kwb_lab", extra_template_basedirs=[str(TEMPLATES)])
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    rows = []
    root = repo_root()
    dark = dark_theme_css()
    for nb_path in paths or notebooks():
        nb = nbformat.read(nb_path, as_version=4)
        webassets.check_no_math(nb, str(nb_path))
        t0 = time.perf_counter()
        NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                       resources={"metadata": {"path": str(nb_path.parent)}}).execute()
        took = time.perf_counter() - t0
        inline_svg(nb, nb_path.stem)
        body, _ = exporter.from_notebook_node(nb, resources={"kwb_widgets": widgets, "kwb_dark_css": dark})
        target = out / (nb_path.stem + ".html")
        target.write_text(body, encoding="utf-8")
        rel = nb_path.relative_to(root).as_posix() if nb_path.is_relative_to(root) else nb_path.name
        title, summary = describe(nb)
        rows.append({"page": target.name, "source": rel, "kind": kind(rel), "title": title or nb_path.stem,
                     "summary": summary, "seconds": round(took, 1)})
        print(f"  {rel} -> {target} ({_seconds(took)})", flush=True)
    (out / "index.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    index = out / "index.html"
    index.write_text(index_html(rows), encoding="utf-8")
    return index


INDEX_CSS = """
body { font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 1180px; margin: 24px auto;
       padding: 0 16px; color: #1d1d1f; background: #fff; }
h1 { font-size: 28px; margin-bottom: 4px; } h2 { font-size: 20px; margin-top: 28px; }
p.lead { color: #555; margin-top: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 8px 10px; border-bottom: 1px solid #ddd; }
th { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: #666; }
td.time { white-space: nowrap; text-align: right; font-variant-numeric: tabular-nums; width: 90px; }
td.page { width: 30%; }
td.page a { font-weight: 600; } td.page code { display: block; color: #777; font-size: 13px; }
a { color: #0b61c3; }
@media (prefers-color-scheme: dark) {
  body { color: #e6e6e6; background: #111; } p.lead, th { color: #aaa; } th, td { border-color: #333; }
  td.page code { color: #999; } a { color: #6aa8ff; }
}
"""


def index_html(rows: list[dict]) -> str:
    """The report's front page: one table per kind of page (threads, other notebooks, exercises)."""
    total = sum(r["seconds"] for r in rows)
    parts = ["<!doctype html><html lang='en'><meta charset='utf-8'>",
             "<meta name='viewport' content='width=device-width, initial-scale=1'>",
             f"<title>Kernel Heuristics Workbook: report</title><style>{INDEX_CSS}</style>",
             "<h1>Kernel Heuristics Workbook: report</h1>",
             f"<p class='lead'>Every notebook and exercise executed headless in <code>WORKBOOK_MODE=ci</code> "
             f"(CI-size runs, charts as SVG) on {time.strftime('%Y-%m-%d')}; {len(rows)} pages, "
             f"{_seconds(total)} of running in all. The pages open from disk and need no network.</p>"]
    headings = {"thread": "The threads", "notebook": "Other notebooks", "exercise": "Exercises", "page": "Pages"}
    for k, heading in headings.items():
        mine = [r for r in rows if r["kind"] == k]
        if not mine:
            continue
        parts.append(f"<h2>{heading}</h2><table><tr><th>page</th><th>what it is</th><th>run time</th></tr>")
        for r in mine:
            parts.append(
                f"<tr><td class='page'><a href='{html.escape(r['page'])}'>{html.escape(r['title'])}</a>"
                f"<code>{html.escape(r['source'])}</code></td><td>{html.escape(r['summary'])}</td>"
                f"<td class='time'>{_seconds(r['seconds'])}</td></tr>")
        parts.append("</table>")
    return "\n".join(parts) + "\n</html>\n"
