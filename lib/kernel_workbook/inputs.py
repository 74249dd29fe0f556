"""Opening a user's file without trusting it: regular files only, never more than a cap.

Every reader of a file a user names (``traces.load``, ``kwb tables --mail``, a bundle's ``.start`` files) goes
through :func:`open_regular` and :func:`read_capped`: a FIFO would block the read forever, a device such as
``/dev/zero`` never ends, and a file of any size would be read whole into memory.  Both are refused with a
:class:`~kernel_workbook.errors.WorkbookParseError` naming the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import WorkbookParseError

#: The most bytes read from one input (after gzip is inflated, for the traces): ``KWB_MAX_DECOMPRESSED``, 96 MiB
#: by default.  Parsing holds the bytes, then the text, then the frame, so the peak is a small multiple of it.
MAX_BYTES = int(os.environ.get("KWB_MAX_DECOMPRESSED", str(96 << 20)))


def open_regular(p, name: str | None = None):
    """Open *p* for reading (binary) only if it is a regular file (a FIFO or a device would block or never end)."""
    name = name or str(p)
    try:
        st = os.stat(p)
    except (OSError, ValueError) as e:
        raise WorkbookParseError(name, None, "an existing, readable file", getattr(e, "strerror", None) or str(e)) \
            from None
    if stat.S_ISDIR(st.st_mode):
        raise WorkbookParseError(name, None, "a file", "a folder")
    if not stat.S_ISREG(st.st_mode):
        raise WorkbookParseError(name, None, "a regular file", "a FIFO, socket or device")
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO after the stat, open still returns at once
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        st2 = os.fstat(fd)
        if not stat.S_ISREG(st2.st_mode):
            os.close(fd)
            raise WorkbookParseError(name, None, "a regular file", "a FIFO, socket or device")
        return os.fdopen(fd, "rb")
    except OSError as e:
        raise WorkbookParseError(name, None, "a readable file", e.strerror or str(e)) from None


def too_big(name: str, cap: int) -> WorkbookParseError:
    return WorkbookParseError(name, None, f"at most {cap} bytes of text (raise KWB_MAX_DECOMPRESSED or "
                                          f"max_bytes= for a bigger input)", f"more than {cap} bytes")


def read_capped(p, name: str | None = None, cap: int | None = None) -> bytes:
    """The bytes of the regular file *p*, refused (naming the file) past *cap* bytes (default :data:`MAX_BYTES`)."""
    name = name or str(p)
    cap = MAX_BYTES if cap is None else int(cap)
    with open_regular(Path(p), name) as f:
        try:
            data = f.read(cap + 1)
        except OSError as e:
            raise WorkbookParseError(name, None, "a readable file", e.strerror or str(e)) from None
    if len(data) > cap:
        raise too_big(name, cap)
    return data
