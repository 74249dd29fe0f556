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
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
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
        raise WorkbookError(f"{name} {version} is not installed in {folder}: run `make venv` (it needs npm, "
                            "from Node.js) or `python -m kernel_workbook.webassets install`")
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
            raise WorkbookError(f"{npm} not found: install Node.js (its npm fetches {name} {version}) and run again")
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run([npm, "pack", "--json", "--silent", f"{name}@{version}", "--pack-destination", tmp],
                                 check=True, capture_output=True, text=True).stdout
            tgz = Path(tmp) / json.loads(out)[0]["filename"]
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


def main(argv: list[str]) -> int:
    if argv[:1] != ["install"]:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        for line in install():
            print("webassets:", line)
    except (WorkbookError, subprocess.CalledProcessError) as e:
        print(f"webassets: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
