"""The repository stands alone: every relative link of its Markdown resolves to a file of the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def markdown_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / p for p in out.split()]


def test_every_relative_link_resolves_inside_the_repository():
    files = markdown_files()
    assert ROOT / "README.md" in files and ROOT / "docs" / "sweeps.md" in files
    bad = []
    for md in files:
        for n, line in enumerate(md.read_text(encoding="utf-8").splitlines(), 1):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                    continue  # a URL or an anchor of the same page
                path = (md.parent / target.split("#", 1)[0]).resolve()
                if not path.is_relative_to(ROOT) or not path.exists():
                    bad.append(f"{md.relative_to(ROOT)}:{n}: {target}")
    assert not bad, "links to nothing, or outside the repository:\n" + "\n".join(bad)
