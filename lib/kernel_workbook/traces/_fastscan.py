"""Numba kernels that read the numeric rows of vmstat and iostat logs in one pass over the bytes.

The parsers locate rows in Python/numpy and hand the byte spans here; each row is checked to have exactly
``ncol`` numbers (after an optional leading name), so a malformed line is reported by its row index and
never silently shifts the columns.  A number is ``[-]digits[.digits]`` (or a decimal comma); it is
computed as the integer of its digits divided by a power of ten, which IEEE division rounds correctly,
so the value is identical to Python's ``float()`` of the same text (mantissas up to 15 digits; longer or
exotic tokens make the row "bad" and the caller falls back to Python).

Compiled lazily on first use (``cache=True`` keeps the machine code between runs).
"""

from __future__ import annotations

import numpy as np

_KERNELS = {}

_POW10 = np.array([10.0 ** k for k in range(23)])


def _build():
    from . import _fastscan_jit as jit

    _KERNELS["parse_rows"] = jit.parse_rows
    _KERNELS["count_kinds"] = jit.count_kinds
    _KERNELS["fill_table"] = jit.fill_table
    _KERNELS["suspect_numbers"] = jit.suspect_numbers
    _KERNELS["fill_series"] = jit.fill_series
    _KERNELS["fill_template"] = jit.fill_template
    _KERNELS["folded_lines"] = jit.folded_lines
    _KERNELS["first_nonblank"] = jit.first_nonblank
    _KERNELS["same_lines"] = jit.same_lines


def parse_rows(b: np.ndarray, starts: np.ndarray, ends: np.ndarray, ncol: int, skip_first: bool = False,
               comma: bool = False):
    """Numbers of the rows ``b[starts[i]:ends[i]]``: (values (n, ncol) float64, name_end, first bad row or -1)."""
    if "parse_rows" not in _KERNELS:
        _build()
    return _KERNELS["parse_rows"](b, starts.astype(np.int64, copy=False), ends.astype(np.int64, copy=False),
                                  skip_first, ncol, comma, _POW10)


def warm() -> None:
    """Compile (or load from numba's cache) every kernel now, not in the first parse."""
    if "fill_table" not in _KERNELS:
        _build()
    b = np.frombuffer(b"1 2\nx\n", dtype=np.uint8)
    z = np.zeros(2, dtype=np.int64)
    _KERNELS["parse_rows"](b, z[:1], z[:1] + 3, False, 2, False, _POW10)
    _KERNELS["first_nonblank"](b, z[:1], z[:1] + 3)
    _KERNELS["same_lines"](b, z[:1], z[:1] + 3)
    scan_table("1 2\nx\n", 2)
    scan_named_table("x 1 2\ny\n", 2, 1)
    scan_series("time: 1\nx 1\n", ["x"], 1)
    scan_series("time: 1\nx:  1 kB\n", ["x:"], 1, ["kB"], True)
    scan_series("time: 1\nx  1 2\n", ["x"], 1, None, True, 2, False)
    scan_template("time: 1\nx 1\n", [["x ", ""]], 1)
    scan_template(" 1 x\n", [["", " x"]], 1, None, True, True)
    folded_stacks("a;b 1\n")
    from . import _fastperf, _fastreport  # the perf stat -x and perf report readers' kernels (they use its helpers)

    _fastperf.warm()
    _fastreport.warm()


#: characters of text encoded at a time by :func:`scan_table`: a byte copy of the whole text would be one more
#: file size of memory at the peak
CHUNK = 1 << 23


def _pieces(text: str, size: int, start: int = 0):
    """``(start, end)`` of consecutive pieces of *text* of about *size* characters from *start*, each ending after
    a newline (or at the end)."""
    s = start
    n = len(text)
    while s < n:
        e = text.find("\n", min(s + size, n) - 1)
        e = n if e < 0 else e + 1
        yield s, e
        s = e


def scan_table(text: str, ncol: int, max_digits: int = 15, signed: bool = True):
    """Every line of the ASCII *text*, without an array or a string per line: the lines whose first non-blank
    character is a digit (data) must hold exactly *ncol* integers ``[-]digits`` (at most *max_digits* digits
    each; no sign unless *signed*).  The text is encoded :data:`CHUNK` characters at a time, twice (count, then read), never whole.
    None when the text holds a number such a reader would change: a decimal point or comma before a digit, or
    19 digits in a row (it would cut or saturate them).

    Returns ``(values (ncol, n_data) int64, data line index (n_data,), others (n_other, 3): line index, start,
    end of every other non-blank line, bad, bad_start, bad_end)``: *bad* is the data row (counted from 0) that is
    not such a line, or -1, and ``text[bad_start:bad_end]`` that line; rows from *bad* on are not read (nor
    others after it).  The values come out one column per row, so a frame takes them without a copy."""
    if "fill_table" not in _KERNELS:
        _build()
    pieces = list(_pieces(text, CHUNK))
    nd = nh = 0
    for s, e in pieces:
        b = np.frombuffer(text[s:e].encode("ascii"), dtype=np.uint8)
        if _KERNELS["suspect_numbers"](b, 19):
            return None
        a, h = _KERNELS["count_kinds"](b)
        nd += a
        nh += h
    out = np.empty((ncol, nd), dtype=np.int64)
    data_line = np.empty(nd, dtype=np.int64)
    others = np.empty((nh, 3), dtype=np.int64)
    d = h = line = 0
    for s, e in pieces:
        b = np.frombuffer(text[s:e].encode("ascii"), dtype=np.uint8)
        d, h, line, bad, bs, be = _KERNELS["fill_table"](b, ncol, max_digits, signed, False, out, data_line,
                                                         _NO_SPANS, others, d, h, line, s)
        if bad >= 0:
            return out, data_line, others, bad, bs, be
        # a piece ends after a newline (but the last), so fill_table stops at the line the next piece starts
    return out, data_line, others, -1, 0, 0


_NO_SPANS = np.empty((0, 2), dtype=np.int64)


def scan_named_table(text: str, ncol: int, others_max: int, max_digits: int = 18):
    """:func:`scan_table` for lines led by a name (``vmstat -d``'s ``sda  106982  26444 ...``): a data line is
    a name of printable ASCII then exactly *ncol* unsigned integers (at most *max_digits* digits each); every
    other non-blank line (headers, and anything damaged) is listed for the caller, who must check each, at most
    *others_max* of them.  One pass over the text, :data:`CHUNK` characters encoded at a time.

    Returns ``(values (ncol, n_data) int64, data line index (n_data,), name start and end (n_data, 2) in the
    text, others (n_other, 3): line index, start, end)``, or None past *others_max* others."""
    if "fill_table" not in _KERNELS:
        _build()
    cap = max(text.count("\n") + 1 - others_max, 0)
    out = np.empty((ncol, cap), dtype=np.int64)
    data_line = np.empty(cap, dtype=np.int64)
    spans = np.empty((cap, 2), dtype=np.int64)
    others = np.empty((others_max, 3), dtype=np.int64)
    d = h = line = 0
    for s, e in _pieces(text, CHUNK):
        b = np.frombuffer(text[s:e].encode("ascii"), dtype=np.uint8)
        d, h, line, bad, _, _ = _KERNELS["fill_table"](b, ncol, max_digits, False, True, out, data_line, spans,
                                                       others, d, h, line, s)
        if bad >= 0:
            return None
    return out[:, :d], data_line[:d], spans[:d], others[:h]


def _packed(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The ASCII *words* end to end as bytes, and the offset where each starts (one more: the end)."""
    off = np.zeros(len(words) + 1, dtype=np.int64)
    off[1:] = np.cumsum([len(x) for x in words])
    return np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8), off


def scan_series(text: str, names: list[str], snapshots: int, units: list[str] | None = None, pad: bool = False,
                width: int = 1, signed: bool = True):
    """A ``/proc/vmstat`` series read without a string per line: *snapshots* times ``time: <epoch>`` then the
    counters *names* in that order, each ``<name> <integer>`` (at most 18 digits), blank lines anywhere.
    With *pad* (``/proc/meminfo``'s ``MemFree:     17916348 kB``: the names given with their colon) any run of
    blanks may follow the name, and a counter whose *units* entry is not empty has blanks and that unit after
    its number.

    With *width* > 1 (``/proc/buddyinfo``'s ``Node 0, zone   Normal    251     54 ...``: the names are the lines'
    text up to their numbers) each line holds *width* integers (``-`` signs refused unless *signed*).

    Returns ``(values, times (snapshots,) float64)``, or None when the text is anything else (another order, a
    missing or extra line, another unit, a cut snapshot...), for the general reader to say what.  The values are
    ``(len(names), snapshots)`` int64 for *width* 1, else ``(width, snapshots * len(names))``: row o holds
    number o of every line in the order of the text, a frame's column without a copy.  The text is encoded
    :data:`CHUNK` characters at a time."""
    if "fill_series" not in _KERNELS:
        _build()
    tb, off = _packed(names)
    ub, uoff = _packed(units if units is not None else [""] * len(names))
    n = len(names)
    if width == 1:
        out = np.empty((n, snapshots), dtype=np.int64)
        steps = (snapshots, 1, 0)
    else:
        out = np.empty((width, snapshots * n), dtype=np.int64)
        steps = (1, n, snapshots * n)
    times = np.empty(snapshots, dtype=np.float64)
    s, k = -1, n
    for a, e in _pieces(text, CHUNK):
        s, k, bad = _KERNELS["fill_series"](np.frombuffer(text[a:e].encode("ascii"), dtype=np.uint8), tb, off, pad,
                                            width, signed, ub, uoff, out.reshape(-1), *steps, times, s, k, _POW10)
        if bad >= 0:
            return None
    if s != snapshots - 1 or k != len(names):
        return None
    return out, times


def scan_template(text: str, template: list[list[str]], snapshots: int, out: np.ndarray | None = None,
                  lead: bool = False, cycle: bool = False):
    """A series of snapshots whose lines are the same but for their numbers (``/proc/zoneinfo`` under mmtests'
    ``time:`` lines), read without a string per line: *snapshots* times ``time: <epoch>`` then the lines of
    *template* in that order, each the literal texts of its list with an unsigned integer (at most 18 digits)
    between each two; blank lines anywhere.

    Returns ``(values (snapshots * numbers in the template,) int64 in the order of the text, times (snapshots,)
    float64)``, or None when the text is anything else (a line changed, missing or added, a sign, a cut
    snapshot...), for the general reader to say what.  The values go into *out* when given (contiguous int64 of
    that size: a frame's column).  With *lead* a line may start with any number of spaces (``vmstat -s``'s
    numbers printed right-aligned); with *cycle* there are no ``time:`` lines, the template's lines repeat, and
    *snapshots* is only a bound: the values and times of the snapshots read are returned (times unset).
    The text is encoded :data:`CHUNK` characters at a time."""
    if "fill_template" not in _KERNELS:
        _build()
    lits, lit_off = _packed([t for line in template for t in line])
    line_first = np.zeros(len(template) + 1, dtype=np.int64)
    line_first[1:] = np.cumsum([len(line) for line in template])
    size = snapshots * sum(len(line) - 1 for line in template)
    if out is None:
        out = np.empty(size, dtype=np.int64)
    if out.shape != (size,):
        return None
    times = np.empty(snapshots, dtype=np.float64)
    s, k, v = -1, len(template), 0
    for a, e in _pieces(text, CHUNK):
        s, k, v, bad = _KERNELS["fill_template"](np.frombuffer(text[a:e].encode("ascii"), dtype=np.uint8), lits,
                                                 lit_off, line_first, lead, cycle, out, times, s, k, v, _POW10)
        if bad >= 0:
            return None
    if cycle and k == len(template) and s >= 0:
        return out[:v], times[:s + 1]
    if s != snapshots - 1 or k != len(template) or v != out.shape[0]:
        return None
    return out, times


def folded_stacks(text: str):
    """Folded stacks (``frame;frame;... count`` a line) of the ASCII *text* without a list of its lines:
    ``(stacks (object array of str: each line up to its last blank), counts int64)``, or None when a non-blank
    line is anything else (no blank before the count, a count that is not 1 to 18 ASCII digits), for the line
    reader to name it.  A line is read as ``line.rstrip().rpartition(" ")`` reads it."""
    if "folded_lines" not in _KERNELS:
        _build()
    stacks, counts = [], []
    for a, e in _pieces(text, CHUNK):
        piece = text[a:e]
        start, cut, count, bad = _KERNELS["folded_lines"](np.frombuffer(piece.encode("ascii"), dtype=np.uint8))
        if bad >= 0:
            return None
        part = np.empty(start.size, dtype=object)
        part[:] = [piece[i:j] for i, j in zip(start.tolist(), cut.tolist())]
        stacks.append(part)
        counts.append(count)
    if not stacks:
        return np.empty(0, dtype=object), np.empty(0, dtype=np.int64)
    return (np.concatenate(stacks) if len(stacks) > 1 else stacks[0],
            np.concatenate(counts) if len(counts) > 1 else counts[0])


def first_nonblank(b: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The first non-blank byte of each line (0 for a blank line)."""
    if "first_nonblank" not in _KERNELS:
        _build()
    return _KERNELS["first_nonblank"](b, starts, ends)


def same_lines(b: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
    """Whether the lines ``b[starts[i]:ends[i]]`` are all byte for byte the same (True for none or one).

    The set of the lines' texts has at most one member exactly then (for ASCII text, where a byte is a
    character), without a Python string made per line: a 10 MB iostat log repeats its two headers 23 000
    times each, and building the set took 18 ms, a quarter of the parse."""
    if "same_lines" not in _KERNELS:
        _build()
    return bool(_KERNELS["same_lines"](b, starts.astype(np.int64, copy=False), ends.astype(np.int64, copy=False)))


def line_spans(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive, without the newline) of every line of the byte array."""
    nl = np.flatnonzero(b == 10)
    starts = np.empty(nl.size + 1, dtype=np.int64)
    starts[0] = 0
    starts[1:] = nl + 1
    ends = np.empty(nl.size + 1, dtype=np.int64)
    ends[:-1] = nl
    ends[-1] = b.size
    return starts, ends
