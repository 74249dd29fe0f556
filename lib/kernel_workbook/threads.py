"""The LKML threads the workbook is built on, as ``data/threads/threads.toml`` lists them.

Adding a thread touches data only: its text in ``data/threads/<id>.txt``, its
entry in ``data/threads/threads.toml``, its tables in
``data/published/manifest.toml``; once a model reproduces it, the heuristic
that models it declares its reproduction (``docs/ARCHITECTURE.md``, "How to
add a model").
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import WorkbookParameterError, WorkbookParseError
from .paths import threads_dir


@dataclass(frozen=True)
class Thread:
    id: str
    title: str
    heuristic: str
    era: str  # mmtests rendering era of its tables, see tables.eras
    archive: str  # where the text was taken from
    baseline: str  # the kernel column a model may be calibrated on

    @property
    def path(self) -> Path:
        return threads_dir() / f"{self.id}.txt"

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")


def _read() -> dict[str, Thread]:
    path = threads_dir() / "threads.toml"
    try:
        with path.open("rb") as f:
            doc = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:  # its message ends "(at line N, column M)"
        m = re.search(r"at line (\d+)", str(e))
        raise WorkbookParseError(str(path), int(m.group(1)) if m else None, f"TOML ({e})") from None
    out = {}
    for i, t in enumerate(doc.get("thread", [])):
        try:
            out[t["id"]] = Thread(**t)
        except (KeyError, TypeError) as e:
            raise WorkbookParseError(str(path), None, f"[[thread]] number {i + 1} with exactly id, title, heuristic, "
                                     f"era, archive and baseline ({e})") from None
    if not out:
        raise WorkbookParseError(str(path), None, "at least one [[thread]] table")
    return out


THREADS: dict[str, Thread] = _read()


def get(thread_id: str) -> Thread:
    """The :class:`Thread` with this id; a clear error for an unknown one."""
    try:
        return THREADS[thread_id]
    except KeyError:
        raise WorkbookParameterError("thread", thread_id, "one of " + ", ".join(THREADS)) from None
