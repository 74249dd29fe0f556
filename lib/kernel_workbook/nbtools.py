"""Small notebook chores.

    python -m kernel_workbook.nbtools strip NOTEBOOK...
    python -m kernel_workbook.nbtools workspace DEST

``strip`` removes saved widget state from a notebook's metadata.  A notebook
executed in the lab stores the state of every widget, and with Altair's
offline renderer that includes the whole Vega JavaScript bundle (megabytes);
the committed notebooks are executed in CI mode and need none of it.  It is
nbstripout's ``strip_output`` told to keep what nbstripout removes by default:
the outputs and execution counts (nbval compares them), the cell ids, and each
cell's ``metadata.execution`` (nbclient's times, which tests/ci_order.py reads
to order the notebooks); so the one key it removes is ``metadata.widgets``.

``workspace`` makes the folder the lab works in (``make lab``, ``kwb
present``).  The committed notebooks carry CI-mode outputs that nbval checks;
a notebook run and saved in the lab (JupyterLab autosaves every two minutes,
jupytext rewrites the paired ``.py``) would replace them with lab-mode outputs
and ``make test`` would fail.  So the lab never opens a tracked notebook: DEST
(untracked, under ``build/``) looks like the repository -- ``README.md``,
``data/``, ``docs/`` and every other top-level entry are symbolic links to it,
so every link and relative path resolves -- while ``notebooks/`` and
``exercises/`` are copies.  Running ``workspace`` again brings in what changed
in the repository, except a copy the person has edited since, which is kept
(and named, so they know).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

from .paths import repo_root

COPIED = ("notebooks", "exercises")  # worked in, so copied
SKIPPED = {".git", ".venv", "build", ".pytest_cache", ".hypothesis", ".ipynb_checkpoints"}
MANIFEST = ".kwb-workspace.json"  # relative path -> hash of the copy as last written


STRIPPED_KEYS = ["metadata.widgets"]  # nbstripout's extra_keys: instead of its defaults (see the docstring)


def strip(path: Path) -> bool:
    """Strip ``path`` in place; False (and the file not rewritten) when there was nothing to strip."""
    import nbformat
    from nbstripout import strip_output

    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    before = copy.deepcopy(nb)
    strip_output(nb, keep_output=True, keep_count=True, keep_id=True, extra_keys=STRIPPED_KEYS)
    if nb == before:
        return False
    nbformat.write(nb, path)
    return True


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def trust(path: Path) -> None:
    """Mark the repository's own notebook trusted (``jupyter trust``): JupyterLab does not show the SVG
    charts of an untrusted notebook's saved outputs, so without it the committed charts are blank."""
    import nbformat
    from nbformat.sign import NotebookNotary

    NotebookNotary().sign(nbformat.read(path, as_version=4))


def workspace(dest: Path, root: Path | None = None) -> list[str]:
    """Create or refresh the lab's working copy at ``dest``; returns one line per copy kept as edited."""
    root = Path(root or repo_root()).resolve()
    dest = Path(dest).resolve()
    if dest == root or root in dest.parents and dest.parts[len(root.parts)] in COPIED:
        raise ValueError(f"workspace: {dest} would overwrite tracked notebooks; give a folder under build/")
    dest.mkdir(parents=True, exist_ok=True)
    for entry in sorted(root.iterdir()):
        if entry.name in SKIPPED or entry.name in COPIED or entry.name.startswith("."):
            continue
        link = dest / entry.name
        if not link.is_symlink() and not link.exists():
            link.symlink_to(entry)
    mpath = dest / MANIFEST
    manifest = json.loads(mpath.read_text()) if mpath.exists() else {}
    kept = []
    for folder in COPIED:
        for src in sorted((root / folder).rglob("*")):
            rel = src.relative_to(root)
            if not src.is_file() or set(rel.parts) & SKIPPED or "__pycache__" in rel.parts:
                continue
            dst = dest / rel
            want = _digest(src)
            if dst.exists():
                have = _digest(dst)
                if have == want:
                    manifest[str(rel)] = have
                    if dst.suffix == ".ipynb":
                        trust(dst)
                    continue
                if manifest.get(str(rel)) != have:  # edited in the lab since we wrote it: keep the person's work
                    if manifest.get(str(rel)) != want:  # ... and say so when the repository moved on too
                        kept.append(f"kept your edited {rel} (the repository's copy changed too; compare with {src})")
                    continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            manifest[str(rel)] = want
            if dst.suffix == ".ipynb":
                trust(dst)
    # jupytext refuses to open a notebook whose paired .py is older than it: a refreshed .ipynb
    # beside an unchanged .py would not open in the lab
    for folder in COPIED:
        for nb in (dest / folder).rglob("*.ipynb"):
            py = nb.with_suffix(".py")
            if py.exists() and py.stat().st_mtime < nb.stat().st_mtime:
                os.utime(py)
    mpath.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return kept


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "strip":
        for p in argv[1:]:
            strip(Path(p))
        return 0
    if len(argv) == 2 and argv[0] == "workspace":
        for line in workspace(Path(argv[1])):
            print("workspace:", line)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
