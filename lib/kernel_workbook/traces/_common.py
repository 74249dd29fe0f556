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

# the warnings live with the errors (the lowest layer), under one base class, with the two helpers that give them:
# tables.parse_text and settings.py, below the traces, warn the same way
from ..errors import (SkippedLinesWarning, TruncatedTraceWarning, UndecodableBytesWarning,  # noqa: F401
                      WorkbookParseError, warn_skipped, warn_truncated)
from ..inputs import MAX_BYTES, open_regular, too_big


#: Default cap on the decompressed (or plain) size of one input, in bytes (:data:`kernel_workbook.inputs.MAX_BYTES`).
#: Parsing holds the bytes, then the text, then the frame, so the peak is a small multiple of this; 96 MiB keeps a
#: refused gzip bomb under 256 MB of peak memory with the library loaded (about 100 MB itself).  A monitor log
#: bigger than that (96 MiB) is rare (a long ``perf script`` can be): raise it with ``KWB_MAX_DECOMPRESSED`` or
#: ``max_bytes=``.
MAX_DECOMPRESSED = MAX_BYTES

GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


def _inflate(read, source: str, cap: int) -> bytes:
    """Inflate gzip members read by ``read(n)`` as a stream; never more than *cap* bytes held.

    Members may follow each other (``cat a.gz b.gz``); anything else after a member is an error
    (a gzip file never ends in garbage), and a stream that stops inside a member keeps what was
    inflated and warns.
    """
    out = _Chunks()  # chunks, joined once at the end: a refused bomb never holds more than the cap
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending = b""
    member_started = False
    while True:
        if not pending:
            pending = read(_CHUNK)
            if not pending:
                # zlib may still hold output it could not hand over under the size limit
                while member_started and not d.eof:
                    chunk = d.decompress(d.unconsumed_tail, min(4 * _CHUNK, cap + 1 - len(out)))
                    if not chunk:
                        break
                    out += chunk
                    if len(out) > cap:
                        raise too_big(source, cap)
                break
        if not member_started:
            if len(pending) < 2:
                more = read(_CHUNK)
                pending += more
                if not more and len(pending) < 2:
                    raise WorkbookParseError(source, None, "nothing after the last gzip member",
                                             f"{len(pending)} trailing byte(s)")
            if pending[:2] != GZIP_MAGIC:
                raise WorkbookParseError(source, None, "nothing after the last gzip member",
                                         f"trailing bytes {pending[:16]!r} after {len(out)} inflated bytes")
            member_started = True
        try:
            # at most 4 MiB per call: zlib builds its output in blocks and joins them, so one big call
            # would hold its output twice
            chunk = d.decompress(pending, min(4 * _CHUNK, cap + 1 - len(out)))
        except zlib.error as e:
            raise WorkbookParseError(source, None, "a valid gzip stream", f"{e} after {len(out)} bytes") from None
        out += chunk
        if len(out) > cap:
            raise too_big(source, cap)
        pending = d.unconsumed_tail
        if d.eof:
            pending = d.unused_data
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            member_started = False
    if member_started:
        warnings.warn(TruncatedTraceWarning(f"{source}: gzip stream cut after {len(out)} inflated bytes; "
                                            f"the text up to the cut was kept"), stacklevel=4)
    return out.join()


class _Chunks:
    def __init__(self):
        self.parts: list[bytes] = []
        self.n = 0

    def __iadd__(self, b: bytes):
        if b:
            self.parts.append(b)
            self.n += len(b)
        return self

    def __len__(self) -> int:
        return self.n

    def join(self) -> bytes:
        out = b"".join(self.parts)
        self.parts.clear()
        return out


class _BytesReader:
    def __init__(self, data: bytes):
        self.data = memoryview(data)
        self.pos = 0

    def read(self, n: int) -> bytes:
        b = bytes(self.data[self.pos:self.pos + n])
        self.pos += len(b)
        return b


def _decode(data, name: str) -> str:
    """Bytes to text: UTF-8 (a BOM is dropped), UTF-16 with a BOM; CRLF becomes LF; NUL is refused."""
    if data[:3] == b"\xef\xbb\xbf":
        data = memoryview(data)[3:]
        enc = "utf-8"
    elif data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        enc = "utf-16"
    else:
        enc = "utf-8"
    try:
        text = str(data, enc, "strict")
    except UnicodeDecodeError as e:
        if enc == "utf-16":
            raise WorkbookParseError(name, None, "UTF-16 text (it starts with a UTF-16 byte-order mark)", str(e)) \
                from None
        # a Latin-1 host or comm name, or bytes a cut or a bad copy left: each becomes U+FFFD, and the
        # warning says where, so that a device called 'sd\ufffd' is never a silent change
        line = bytes(data[:e.start]).count(b"\n") + 1
        text = str(data, enc, "replace")
        warnings.warn(UndecodableBytesWarning(
            f"{name}:{line}: bytes that are not UTF-8 ({bytes(data[e.start:e.start + 8])!r}...); each was replaced "
            f"by U+FFFD, here and on {text.count(chr(0xFFFD)) - 1} other occurrence(s)"), stacklevel=4)
    del data
    return _normalise(text, name)


def _normalise(text: str, name: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    nul = text.find("\x00")
    if nul >= 0:
        raise WorkbookParseError(name, text.count("\n", 0, nul) + 1,
                                 "text (UTF-8, or UTF-16 with a byte-order mark) without NUL bytes",
                                 "a NUL byte")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return text


def _cut_last_line(text: str, name: str, stacklevel: int = 4) -> str:
    """The damaged-input rule: a last line without its newline may have been cut anywhere, even inside a
    number (``pgfault 1333034`` cut to ``pgfault 13330``), so it is dropped with a warning.  JSON is
    self-delimiting and is left to the JSON reader."""
    if not text or text.endswith("\n"):
        return text
    head = text.lstrip()[:1]
    if head in ("{", "["):
        return text
    cut = text.rfind("\n") + 1
    last = text[cut:]
    if last.strip():
        warnings.warn(TruncatedTraceWarning(
            f"{name}:{text.count(chr(10)) + 1}: truncated last line {last[:60]!r} (no newline: the file was "
            f"cut there), dropped; the records before it were kept"), stacklevel=stacklevel)
    return text[:cut]


def read_source(src, source: str | None = None, max_bytes: int | None = None) -> tuple[str, str]:
    """Return ``(text, source_name)`` for a path, bytes or text; gzip is inflated as a stream (capped).

    Only regular files are read.  The text is normalised (BOM dropped, CRLF to LF, UTF-16 with a BOM
    decoded, NUL refused) and a last line without its newline is dropped with a
    :class:`TruncatedTraceWarning` (JSON excepted): every parser sees complete lines only.
    """
    cap = MAX_DECOMPRESSED if max_bytes is None else int(max_bytes)
    if isinstance(src, os.PathLike) or (isinstance(src, str) and "\n" not in src and len(src) < 4096
                                        and src.strip() == src and src and _exists(src)):
        p = Path(src)
        name = source or str(p)
        with open_regular(p, name) as f:
            try:
                head = f.read(2)
                if head == GZIP_MAGIC:
                    first = [head]

                    def read(n, f=f):
                        return first.pop() if first else f.read(n)

                    data = _inflate(read, name, cap)
                else:
                    data = head + f.read(cap + 1 - len(head))
                    if len(data) > cap:
                        raise too_big(name, cap)
            except OSError as e:
                raise WorkbookParseError(name, None, "a readable file", e.strerror or str(e)) from None
    elif isinstance(src, (bytes, bytearray, memoryview)):
        name = source or "<bytes>"
        if bytes(src[:2]) == GZIP_MAGIC:
            data = _inflate(_BytesReader(src).read, name, cap)
        else:
            if len(src) > cap:
                raise too_big(name, cap)
            data = bytes(src)
    elif isinstance(src, str):
        name = source or "<text>"
        return _cut_last_line(_normalise(src, name), name), name
    else:
        raise WorkbookParseError(source, None, "a path, bytes or text", type(src).__name__)
    return _cut_last_line(_decode(data, name), name), name


def _exists(s: str) -> bool:
    try:
        return os.path.lexists(s)
    except (OSError, ValueError):
        return False


def guarded(parser):
    """Let only :class:`WorkbookParseError` out of *parser*, whatever the bytes.

    The parsers check what they read; this is the net under them for what no check foresaw (an
    integer of 5000 digits, JSON nested 100 000 deep, memory running out): the error still names the
    file and says what went wrong, and a caller has one exception type to catch.
    """
    import functools

    from ..errors import WorkbookError

    @functools.wraps(parser)
    def run(src, *args, **kwargs):
        try:
            return parser(src, *args, **kwargs)
        except WorkbookError:
            raise
        except RecursionError:
            raise WorkbookParseError(_name_of(src, kwargs), None, "data nested less deeply",
                                     "nesting past Python's recursion limit") from None
        except MemoryError:
            raise WorkbookParseError(_name_of(src, kwargs), None, "input that fits in memory",
                                     "memory ran out while parsing") from None
        except (ValueError, TypeError, KeyError, IndexError, OverflowError, AttributeError,
                UnicodeError, ArithmeticError) as e:
            raise WorkbookParseError(_name_of(src, kwargs), None, f"input {parser.__name__} can read",
                                     f"{type(e).__name__}: {e}") from None

    return run


def _name_of(src, kwargs) -> str:
    if kwargs.get("source"):
        return str(kwargs["source"])
    if isinstance(src, os.PathLike):
        return str(src)
    if isinstance(src, str) and "\n" not in src and len(src) < 4096 and _exists(src):
        return src
    return "<bytes>" if isinstance(src, (bytes, bytearray, memoryview)) else "<text>"


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


# --------------------------------------------------------------------------
# the time stamp lines of shell loops (while :; do date; cat /proc/vmstat; sleep 1; done)

_MONTHS = {m: i + 1 for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())}
_FRAME = " \t=-#*[]"
# date (C locale, coreutils 8 and 9: 'Wed Nov 25 03:30:50 UTC 2026', 'Wed Nov 25 03:30:50 AM UTC 2026')
_DATE_RE = re.compile(r"(?:[A-Z][a-z]{2} )?([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d)(?: ([AP]M))? "
                      r"([A-Z][A-Z0-9]{1,5}|[+-]\d{2}(?::?\d{2})?) (\d{4})")
# date -R: 'Wed, 25 Nov 2026 03:30:50 +0000'
_RFC_RE = re.compile(r"(?:[A-Z][a-z]{2}, )?(\d{1,2}) ([A-Z][a-z]{2}) (\d{4}) (\d\d):(\d\d):(\d\d) ([+-]\d{4}|[A-Z]{1,5})")
# date -Iseconds, date '+%F %T' (no zone), with %N
_ISO_RE = re.compile(r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,]\d+)? ?(Z|[+-]\d\d:?\d\d|[A-Z]{2,5})?")
_EPOCH_RE = re.compile(r"\d{9,11}(?:\.\d+)?")


def read_stamp(line: str):
    """A time stamp line a shell loop prints between snapshots (``date``, ``date -R``, ``date +%s``,
    ``date -Iseconds``, ``date '+%F %T'``, framed or not by ``===``) as (wall clock, zone or None), or None.

    A bare epoch (``date +%s``) comes back as (None, epoch seconds as a float)."""
    s = line.strip(_FRAME)
    try:
        if _EPOCH_RE.fullmatch(s):
            return None, float(s)
        m = _DATE_RE.fullmatch(s)
        if m and m.group(1) in _MONTHS:
            mon, d, hh, mi, ss, ampm, zone, y = m.groups()
            hh = int(hh) % 12 + (12 if ampm == "PM" else 0) if ampm else int(hh)
            return pd.Timestamp(int(y), _MONTHS[mon], int(d), hh, int(mi), int(ss)), zone
        m = _RFC_RE.fullmatch(s)
        if m and m.group(2) in _MONTHS:
            d, mon, y, hh, mi, ss, zone = m.groups()
            return pd.Timestamp(int(y), _MONTHS[mon], int(d), int(hh), int(mi), int(ss)), zone
        m = _ISO_RE.fullmatch(s)
        if m:
            y, mo, d, hh, mi, ss, zone = m.groups()
            return pd.Timestamp(int(y), int(mo), int(d), int(hh), int(mi), int(ss)), zone
    except ValueError:  # 'Feb 30': not a date, so not a stamp line
        return None
    return None


def stamp_epoch(wall, zone) -> float:
    """Epoch seconds of a stamp line; NaN when its zone is not printed or not known (no guess)."""
    if wall is None:
        return float(zone)  # a bare epoch
    off = zone_offset(zone)
    return np.nan if off is None else wall.value / 1e9 - off


#: Time zone abbreviations vmstat -t (and date) print, with their UTC offset in hours.
TZ_OFFSETS = {"UTC": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": 1, "BST": 1, "CET": 1, "CEST": 2, "EET": 2,
              "EEST": 3, "MSK": 3, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6,
              "PST": -8, "PDT": -7, "AKST": -9, "AKDT": -8, "HST": -10, "JST": 9, "KST": 9,
              "AEST": 10, "AEDT": 11, "ACST": 9.5, "AWST": 8, "NZST": 12, "NZDT": 13}


def zone_offset(zone: str | None) -> float | None:
    """Seconds east of UTC of a zone as date and vmstat -t print it: an abbreviation :data:`TZ_OFFSETS` knows
    (CET), or numeric (+03, -0330, +05:30: what %Z prints for zones without an abbreviation); else None."""
    if not zone:
        return None
    m = _NUMERIC_ZONE_RE.fullmatch(zone)
    if m:
        return (int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60) * (1 if m.group(1) == "+" else -1)
    return TZ_OFFSETS[zone] * 3600.0 if zone in TZ_OFFSETS else None


_NUMERIC_ZONE_RE = re.compile(r"([+-])(\d{2}):?(\d{2})?")


# --------------------------------------------------------------------------
# a run killed mid-line, then another appended to the same log

def line_matches(text: str, rx: re.Pattern, literal: str, after_text: bool = False) -> bool:
    """``rx.search(text)`` for a pattern anchored at a line start (``^``, ``re.M``) whose every match holds
    *literal* (see :func:`line_anchored_matches`)."""
    return next(line_anchored_matches(text, rx, literal, after_text), None) is not None


def line_anchored_matches(text: str, rx: re.Pattern, literal: str, after_text: bool = False):
    """The matches ``rx.finditer(text)`` gives, for a pattern anchored at a line start (``^``, ``re.M``) whose
    every match holds *literal*: it is tried only on the lines holding the literal (with *after_text*, only
    where the literal follows other text on its line), and not inside the match before, where ``finditer``
    does not look either.  On a long log that is memchr's speed instead of the pattern tried at every
    character (0.05-0.4 s of a 10 MB log)."""
    end = tried = -1
    i = text.find(literal)
    while i >= 0:
        start = text.rfind("\n", 0, i) + 1
        if start != tried and start >= end and (not after_text or text[start:i].strip()):
            tried = start
            m = rx.match(text, start)
            if m:
                yield m
                end = m.end()
        i = text.find(literal, i + len(literal))


def unglue_restart(text: str, name: str, marker: str, record: str = r"[^\n]*?\S",
                   literal: str | None = None) -> tuple[str, list[int]]:
    """Split off a new run glued to the cut last record of the run before (``vmstat 1 >> log`` killed while
    writing ' 2  0 ... 193536', then run again: ' 2  0 ... 193536 procs -----memory-----').  *marker* is a
    regex for the start of a run (its first header), *record* one for what a cut record of the format can
    look like (vmstat's: digits and blanks), so that a header is never taken for one; the cut record is dropped
    with a
    :class:`TruncatedTraceWarning` and the run's header keeps the line, so line numbers stay.  Returns the
    text and the offsets (in it) of the lines where a record was cut.

    *literal*: text that every match of *marker* contains ('procs'); the pattern is then tried only on the
    lines where it follows something else (:func:`line_matches`)."""
    rx = re.compile(r"^(?P<cut>" + record + r")[ \t]*(?P<run>" + marker + r")", re.M)
    glued = line_matches(text, rx, literal, after_text=True) if literal is not None else rx.search(text)
    if not glued:
        return text, []
    cuts = []

    def cut(m):
        cuts.append(m.start() - sum(len(m0) for m0 in dropped))
        dropped.append(m.group(0)[:len(m.group(0)) - len(m.group("run"))])
        warnings.warn(TruncatedTraceWarning(
            f"{name}:{text.count(chr(10), 0, m.start()) + 1}: a record cut short ({m.group('cut')[:60]!r}) where "
            f"a new run starts; dropped, and the records around it kept"), stacklevel=5)
        return m.group("run")

    dropped: list[str] = []
    return rx.sub(cut, text), cuts
