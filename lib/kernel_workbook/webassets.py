"""The JavaScript that static pages need, installed once with npm and read from disk.

    python -m kernel_workbook.webassets install     (``make venv`` runs it)

* ``reveal.js`` — the decks ``make slides-html`` writes (``kwb present --html``);
* ``@jupyter-widgets/html-manager`` — draws the widgets saved in the pages of
  ``make report`` (a finished progress bar, a menu) from their stored state.

nbconvert's templates load both from CDNs (unpkg, jsdelivr), which a
conference hall or a classroom without network does not reach.  Here each
package is fetched by version with ``npm pack`` (the tarball alone: the
HTML manager's dependencies are built into its ``dist/embed.js``), checked
against the integrity hash pinned below, as ``constraints.txt`` pins the
Python side, and its ``dist/`` unpacked into the virtualenv
(``<venv>/share/kernel-workbook/web/<package>/``; ``KWB_WEBASSETS=DIR``
moves it).  A page then gets a copy of the files beside it (:func:`copy_into`),
so a folder of pages opens from disk anywhere.

MathJax is not among them: no notebook's Markdown has mathematics (a ``$`` appears only in code, as in a
shell variable), so the static pages leave MathJax out, and :func:`check_no_math` stops a page from being
built, naming the cell, if a notebook ever gains some (bundle MathJax then, or render it at build time).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from .errors import WorkbookError

# name -> (version, npm integrity of its tarball, folders kept)
PACKAGES = {
    "reveal.js": ("5.2.1", "sha512-r7//6mIM5p34hFiDMvYfXgyjXqGRta+/psd9YtytsgRlrpRzFv4RbH76TXd2qD+7ZPZEbpBDhdRhJaFgfQ7zNQ==",
                  ("dist", "plugin/notes")),
    "@jupyter-widgets/html-manager": (
        "1.0.15", "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
        ("dist",)),
}
STAMP = ".kwb-installed"


def root() -> Path:
    return Path(os.environ.get("KWB_WEBASSETS") or Path(sys.prefix) / "share" / "kernel-workbook" / "web")


def path(name: str) -> Path:
    """The unpacked package ``name``; a clear error if it is not installed (or another version is)."""
    version = PACKAGES[name][0]
    folder = root() / name
    stamp = folder / STAMP
    if not stamp.exists() or stamp.read_text().strip() != version:
        raise WorkbookError(f"{name} {version} is not installed in {folder}: it needs npm (Node.js), then "
                            "`make webassets` or `python -m kernel_workbook.webassets install`")
    return folder


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def install(names=None, npm: str = "npm") -> list[str]:
    """Fetch, check and unpack each package not yet installed at its pinned version; returns what was done."""
    done = []
    for name in names or PACKAGES:
        version, integrity, keep = PACKAGES[name]
        folder = root() / name
        if (folder / STAMP).exists() and (folder / STAMP).read_text().strip() == version:
            continue
        if shutil.which(npm) is None:
            raise WorkbookError(f"{npm} not found: install Node.js with npm (it fetches {name} {version}), "
                                "then run `make webassets`")
        with tempfile.TemporaryDirectory() as tmp:
            run = subprocess.run([npm, "pack", "--json", "--silent", f"{name}@{version}", "--pack-destination", tmp],
                                 capture_output=True, text=True)
            if run.returncode:
                why = (run.stderr.strip() or run.stdout.strip()).splitlines()[-3:]
                raise WorkbookError(f"`npm pack {name}@{version}` failed (exit {run.returncode}): " + " / ".join(why))
            tgz = Path(tmp) / json.loads(run.stdout)[0]["filename"]
            got = _integrity(tgz.read_bytes())
            if got != integrity:
                raise WorkbookError(f"{name} {version}: the tarball's integrity is {got}, expected {integrity}")
            shutil.rmtree(folder, ignore_errors=True)
            with tarfile.open(tgz) as tar:
                members = [m for m in tar.getmembers() if m.isfile()
                           and any(m.name.startswith(f"package/{k}/") for k in keep + ("LICENSE",))
                           or m.name == "package/LICENSE"]
                for m in members:
                    m.name = m.name[len("package/"):]
                # the "data" filter (no links, no paths out of the folder) where this Python has it
                tar.extractall(folder, members=members, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        (folder / STAMP).write_text(version + "\n")
        done.append(f"{name} {version} -> {folder}")
    return done


def copy_into(name: str, dest: Path) -> str:
    """Copy package ``name`` into ``dest/_static/`` (once) and return its folder relative to ``dest``."""
    src = path(name)
    rel = Path("_static") / name.replace("@", "").replace("/", "-")
    target = dest / rel
    if not (target / STAMP).exists() or (target / STAMP).read_text() != (src / STAMP).read_text():
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(src, target)
    return rel.as_posix()


# TeX as Markdown carries it: $...$, $$...$$, \\(...\\), \\[...\\], \\begin{...}; code spans and fences are not math
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_MATH = re.compile(r"\$\$.+?\$\$|(?<![\\\w$])\$(?=\S)[^$\n]+?(?<=\S)\$(?![\w$])|\\\(|\\\[|\\begin\{", re.S)


def math_cells(nb: dict) -> list[tuple[int, str]]:
    """``(index, the math)`` of each Markdown cell of notebook ``nb`` (a dict) that holds TeX."""
    found = []
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "markdown":
            continue
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        m = _MATH.search(_CODE.sub("", src))
        if m:
            found.append((i, m.group(0)[:40]))
    return found


def check_no_math(nb: dict, where: str) -> None:
    """Raise if the notebook ``where`` has TeX in its Markdown: its static page would show it raw."""
    found = math_cells(nb)
    if found:
        i, tex = found[0]
        raise WorkbookError(f"{where}: cell {i} has TeX ({tex!r}), but static pages carry no MathJax "
                            "(kernel_workbook.webassets): bundle it, or write the formula without TeX")


def main(argv: list[str]) -> int:
    if argv[:1] != ["install"]:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        for line in install():
            print("webassets:", line)
    except WorkbookError as e:
        print(f"webassets: {e}\n  Without them the static decks (make slides-html) and the report (make report) cannot be "
              "built, and make test fails on them; the lab and the live decks (make lab, make slides) work.",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
