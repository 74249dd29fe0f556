"""Small notebook chores: ``python -m kernel_workbook.nbtools strip NOTEBOOK...``.

``strip`` removes saved widget state from a notebook's metadata.  A notebook
executed in the lab stores the state of every widget, and with Altair's
offline renderer that includes the whole Vega JavaScript bundle (megabytes);
the committed notebooks are executed in CI mode and need none of it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def strip(path: Path) -> bool:
    nb = json.loads(path.read_text(encoding="utf-8"))
    changed = nb.get("metadata", {}).pop("widgets", None) is not None
    if changed:
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] != "strip":
        print(__doc__, file=sys.stderr)
        return 2
    for p in argv[1:]:
        strip(Path(p))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
