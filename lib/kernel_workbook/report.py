"""``make report``: execute every notebook headless and export static HTML.

The notebooks run in ``WORKBOOK_MODE=ci`` (charts as inline SVG, nothing that
needs JavaScript or the network), in memory: the committed ``.ipynb`` files
are not touched.  The result is ``build/report/index.html`` with one page per
notebook, which opens from disk on a machine with no network.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

from .paths import repo_root


_EXTERNAL_SCRIPT = re.compile(r'<script[^>]*\bsrc="https?://[^"]*"[^>]*>\s*</script>', re.S)


def notebooks() -> list[Path]:
    root = repo_root()
    return sorted((root / "notebooks").glob("*.ipynb")) + sorted((root / "exercises").glob("*.ipynb"))


def build_report(out: Path, timeout: int = 900) -> Path:
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    os.environ["WORKBOOK_MODE"] = "ci"
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter()
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    pages = []
    for nb_path in notebooks():
        nb = nbformat.read(nb_path, as_version=4)
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(nb_path.parent)}}).execute()
        body, _ = exporter.from_notebook_node(nb)
        # the template loads require.js, MathJax and the widget manager from
        # CDNs; the report must open with no network, and needs none of them
        body = _EXTERNAL_SCRIPT.sub("", body)
        target = out / (nb_path.stem + ".html")
        target.write_text(body, encoding="utf-8")
        pages.append((nb_path, target))
        print(f"  {nb_path.relative_to(repo_root())} -> {target}")
    items = "\n".join(
        f'<li><a href="{html.escape(t.name)}">{html.escape(str(n.relative_to(repo_root())))}</a></li>' for n, t in pages)
    index = out / "index.html"
    index.write_text(
        "<!doctype html><meta charset='utf-8'><title>Kernel Heuristics Workbook</title>"
        "<h1>Kernel Heuristics Workbook — report</h1>"
        f"<p>Every notebook executed headless (WORKBOOK_MODE=ci).</p><ul>{items}</ul>", encoding="utf-8")
    return index
