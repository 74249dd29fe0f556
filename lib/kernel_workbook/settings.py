"""A machine's settings as ``kwb record`` keeps them: ``settings.txt``, one ``PATH = VALUE`` line per file.

The files are the sysctls and block-queue files the models declare as tunables, and their neighbours
(:data:`GLOBS`).  One format, read and written here: the recorder writes a bundle's file
(:func:`machine_settings`), ``models.tunables`` runs a model at a bundle's settings, and ``kwb compare`` lists
the settings that differ between bundles (both through :func:`read_settings_file`).
"""

from __future__ import annotations

import stat
from pathlib import Path

from .errors import warn_skipped, warn_truncated
from .inputs import read_capped

FILE = "settings.txt"
GLOBS = ("/proc/sys/vm/*", "/proc/sys/kernel/sched_*", "/proc/sys/kernel/numa_balancing*",
         "/sys/block/*/queue/scheduler", "/sys/block/*/queue/nr_requests", "/sys/block/*/queue/max_sectors_kb",
         "/sys/block/*/queue/read_ahead_kb", "/sys/block/*/queue/iosched/*", "/sys/block/*/device/queue_depth")
MAX_BYTES = 1 << 20  # some hundred lines of a few dozen bytes; a bigger file is not a settings file


def machine_settings(root="/") -> tuple[list[str], list[str]]:
    """The lines of ``settings.txt`` for the machine under ``root`` (``PATH = VALUE``, the value's one line),
    and the files that could not be read, each with why.  A write-only file (``drop_caches``,
    ``compact_memory``) is not a setting and is left out; a value of more than one line (none of the tunables
    prints one) is left out and said in the second list."""
    root = Path(root)
    lines, unread = [], []
    for pattern in GLOBS:
        for src in sorted(root.glob(pattern.lstrip("/"))):
            name = "/" + str(src.relative_to(root))
            try:
                st = src.stat()
                if not stat.S_ISREG(st.st_mode) or not st.st_mode & 0o444:
                    continue
                with open(src, "rb") as f:
                    text = f.read(1 << 16).decode("utf-8", errors="replace")
            except OSError as e:
                unread.append(f"{name}: {e.strerror or e}")
                continue
            value = text.strip("\n")
            if "\n" in value:
                unread.append(f"{name}: {value.count(chr(10)) + 1} lines, not one")
                continue
            lines.append(f"{name} = {value.strip()}")
    return lines, unread


def read_settings_file(path) -> dict[str, tuple[str, int]]:
    """A bundle's ``settings.txt``: ``{path: (value, line number)}``.  Lines that are not ``PATH = VALUE`` are left
    out and named in a ``SkippedLinesWarning``, a last line cut short (no newline: the file was damaged) in a
    ``TruncatedTraceWarning``, as the traces' parsers do; every complete line is kept.  Not a regular file, or
    over 1 MiB: a ``WorkbookParseError`` naming it."""
    path = Path(path)
    raw = read_capped(path, cap=MAX_BYTES).decode("utf-8", errors="replace")
    out, bad = {}, []
    lines = raw.split("\n")
    for n, line in enumerate(lines, 1):
        if n == len(lines):
            if line:  # the traces' rule: the records before a cut are kept, the cut one is named
                warn_truncated(str(path), n, f"setting {line[:60]!r} (no newline: the file was cut there)")
            break
        name, sep, value = line.partition(" = ")
        if not sep or not name.startswith("/"):
            bad.append(n)
            continue
        out[name] = (value, n)
    warn_skipped(str(path), bad, [lines[n - 1] for n in bad], "PATH = VALUE")
    return out


__all__ = ["FILE", "GLOBS", "machine_settings", "read_settings_file"]
