"""What every trace parser shares: reading (gzip, capped), errors, warnings, attrs.

A parser takes *src*: a :class:`pathlib.Path`, a ``str`` naming an existing file
(one line, no newline), ``bytes``, or the text itself.  Gzip input (by its magic
bytes, whatever the name) is inflated with a cap on the decompressed size.
Nothing is ever evaluated or unpickled: the parsers read text and JSON only.
"""

from __future__ import annotations

import os
import re
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import WorkbookParseError

#: Default cap on the decompressed size of a gzip input (bytes).  A 10 MB
#: compressed monitor log inflates to a few hundred MB at most; anything past
#: the cap is treated as hostile (a gzip bomb) and refused.
MAX_DECOMPRESSED = int(os.environ.get("KWB_MAX_DECOMPRESSED", str(1 << 30)))

GZIP_MAGIC = b"\x1f\x8b"


class TruncatedTraceWarning(UserWarning):
    """A trace ended in the middle of a record; the complete records were kept."""


def _inflate(data: bytes, source: str, cap: int) -> bytes:
    out = []
    total = 0
    while data:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            while True:
                chunk = d.decompress(data, max(1, cap + 1 - total))
                out.append(chunk)
                total += len(chunk)
                if total > cap:
                    raise WorkbookParseError(source, None, f"gzip data inflating to at most {cap} bytes",
                                             f"more than {cap} bytes after decompression")
                if d.unconsumed_tail:
                    data = d.unconsumed_tail
                    continue
                break
        except zlib.error as e:
            if total:
                warnings.warn(TruncatedTraceWarning(f"{source}: gzip stream cut after {total} bytes ({e})"),
                              stacklevel=4)
                break
            raise WorkbookParseError(source, None, "a valid gzip stream", str(e)) from None
        if not d.eof:
            warnings.warn(TruncatedTraceWarning(f"{source}: gzip stream cut after {total} bytes"), stacklevel=4)
            break
        data = d.unused_data  # concatenated gzip members (gzip -c a b > c)
        if data and not data.startswith(GZIP_MAGIC):
            break
    return b"".join(out)


def read_source(src, source: str | None = None, max_bytes: int | None = None) -> tuple[str, str]:
    """Return ``(text, source_name)`` for a path, bytes or text; gzip is inflated (capped)."""
    cap = MAX_DECOMPRESSED if max_bytes is None else int(max_bytes)
    if isinstance(src, os.PathLike) or (isinstance(src, str) and "\n" not in src and len(src) < 4096
                                        and src.strip() == src and src and _isfile(src)):
        p = Path(src)
        name = source or str(p)
        try:
            data = p.read_bytes()
        except OSError as e:
            raise WorkbookParseError(name, None, "a readable file", str(e)) from None
    elif isinstance(src, (bytes, bytearray, memoryview)):
        data = bytes(src)
        name = source or "<bytes>"
    elif isinstance(src, str):
        return src, source or "<text>"
    else:
        raise WorkbookParseError(source, None, "a path, bytes or text", type(src).__name__)
    if data[:2] == GZIP_MAGIC:
        data = _inflate(data, name, cap)
    elif len(data) > cap:
        raise WorkbookParseError(name, None, f"at most {cap} bytes", f"{len(data)} bytes")
    return data.decode("utf-8", errors="replace"), name


def _isfile(s: str) -> bool:
    try:
        return os.path.isfile(s)
    except (OSError, ValueError):
        return False


def fail(source: str, text: str, pos_or_line, expected: str, found: str | None = None) -> WorkbookParseError:
    """A parse error at a character offset (int from a regex) or a ``("line", n)`` pair."""
    if isinstance(pos_or_line, tuple):
        line = pos_or_line[1]
    elif pos_or_line is None:
        line = None
    else:
        line = text.count("\n", 0, pos_or_line) + 1
    if found is None and line is not None:
        lines = text.split("\n", line)
        found = lines[line - 1] if len(lines) >= line else ""
    return WorkbookParseError(source, line, expected, found or "")


def warn_truncated(source: str, line: int, what: str) -> None:
    warnings.warn(TruncatedTraceWarning(f"{source}:{line}: truncated {what}; the records before it were kept"),
                  stacklevel=3)


def line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def set_attrs(df: pd.DataFrame, source: str, fmt: str, version: str | None = None,
              timezone: str | None = None, **extra) -> pd.DataFrame:
    """Record where a frame came from (``source``, ``format``, ``version``, ``timezone``)."""
    df.attrs.update({"source": source, "format": fmt, "version": version, "timezone": timezone})
    for k, v in extra.items():
        df.attrs[k] = v
    return df


# --------------------------------------------------------------------------
# the mmtests latency prefix: "%16.4f %8.4f %10.4f -- " (monitors/latency-output)

LATENCY_RE = re.compile(r"^ *(\d+\.\d{4}) +(\d+\.\d{4}) +(\d+\.\d{4}) -- ", re.M)


def strip_latency_prefix(text: str) -> tuple[str, np.ndarray | None]:
    """Remove mmtests' latency prefix from every line.

    Returns the text without prefixes and, when the first non-blank line had
    the prefix, an array ``(n_lines, 3)`` of ``now, offset, latency`` per
    line of the returned text (NaN on lines that had no prefix), else None.
    mmtests prints ``now`` as ``time()`` (epoch seconds), ``offset`` since
    the monitor started and ``latency`` since the previous line.
    """
    head = text.lstrip("\n")[:200]
    if not LATENCY_RE.match(head):
        return text, None
    lines = text.split("\n")
    stamps = np.full((len(lines), 3), np.nan)
    out = []
    m = LATENCY_RE.match
    for i, ln in enumerate(lines):
        g = m(ln)
        if g:
            stamps[i] = (float(g.group(1)), float(g.group(2)), float(g.group(3)))
            out.append(ln[g.end():])
        else:
            out.append(ln)
    return "\n".join(out), stamps


# --------------------------------------------------------------------------
# numbers

def fast_numbers(block: str, dtype=np.float64) -> np.ndarray | None:
    """All whitespace-separated numbers of *block* in one C call, or None if any token is not one."""
    if not block.strip():
        return np.empty(0, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            arr = np.fromstring(block, dtype=dtype, sep=" ")
        except (DeprecationWarning, ValueError):
            return None
    return arr


_GROUPED = re.compile(r"^-?\d{1,3}(,\d{3})+(\.\d+)?$")
_GROUPED_DOT = re.compile(r"^-?\d{1,3}(\.\d{3}){2,}(,\d+)?$")
_COMMA_DEC = re.compile(r"^-?\d+,\d+$")


def locale_number(tok: str) -> float:
    """A number printed with thousands separators or a decimal comma (``1,234,567``, ``0,57``)."""
    t = tok.strip()
    if _GROUPED.match(t):
        return float(t.replace(",", ""))
    if _GROUPED_DOT.match(t):
        return float(t.replace(".", "").replace(",", "."))
    if _COMMA_DEC.match(t):
        return float(t.replace(",", "."))
    return float(t)


def is_number(tok: str) -> bool:
    try:
        locale_number(tok)
        return True
    except ValueError:
        return False


_WS = np.zeros(256, dtype=bool)
_WS[[9, 10, 11, 12, 13, 32]] = True


def token_counts(block: str) -> np.ndarray:
    """Number of whitespace-separated tokens on each line of *block* (vectorised)."""
    b = np.frombuffer(block.encode("utf-8", "replace"), dtype=np.uint8)
    if b.size == 0:
        return np.zeros(1, dtype=np.int64)
    ws = _WS[b]
    start = ~ws
    start[1:] &= ws[:-1]
    nl = np.flatnonzero(b == 10)
    line_id = np.searchsorted(nl, np.flatnonzero(start))
    return np.bincount(line_id, minlength=nl.size + 1)
