"""A numba reader of the table of a ``perf report --stdio`` (``-g`` call graphs included) in one pass over the bytes.

A ``perf report --stdio -g`` of a long run is mostly call-graph lines (``|--40.12%--sym``, ``---sym``,
``|          ``, an indented frame): the line reader made a Python string, a list and a dict per line, 8x the
file's size at the peak and 11 MB/s.  :func:`scan_entries` goes through the bytes once: it says what each line
is, the way :func:`~.perfreport.read_perf_report` tells them apart (a comment, a blank line, a call-graph line, a
table row), and reads the table rows' columns from the spans of the dotted line under the header, without a
string per line.  The call-graph lines are only recognised (the table does not need them); the ``#`` lines are
handed back to the caller, which reads them as the line reader does (the event, a new header).

Only the input the line reader reads without a word goes through: printable ASCII lines, every row's numbers
``[-]digits[.digits]`` (at most 15 digits: the integer of its digits divided by a power of ten, which IEEE
division rounds correctly, so the value is Python's ``float()`` of the same text).  Anything else (a tab, a
control or non-ASCII character, an author's prose after the table, a damaged row, a call graph before any row,
a number written otherwise) stops the scan, and the caller gives the text to the line reader, which reads,
warns about or refuses it as before.

The kernels are module-level functions (numba imported with the module, which the parser imports only for a long
report): numba's cache keys a closure's kernels by the closure's cells, and a kernel built inside a function
that calls another built there was compiled again in every process (a second each).
"""

from __future__ import annotations

import numba
import numpy as np

from ._fastscan import CHUNK, _POW10, _pieces

#: what :func:`scan_entries`'s kernel stopped at: the piece's end, a ``#`` line, a row more than the arrays hold,
#: anything the line reader must read
_END, _COMMENT, _FULL, _OTHER = 0, 1, 2, 3
#: the kind of a table column: a number (``Overhead``, ``Samples``...), a text, the symbol (``[k] name``)
NUM, TEXT, SYMBOL = 0, 1, 2


@numba.njit(cache=True, nogil=True)
def pct_start(b, j, e, comma):
    # whether b[j:e] starts with r'\d+(?:\.\d+)?%' (r'[.,]' with *comma*): perfreport's _INDENTED_PCT_RE and
    # _ENTRY_START_RE after their blanks
    d = j
    while j < e and 48 <= b[j] <= 57:
        j += 1
    if j == d:
        return False
    if j + 1 < e and (b[j] == 46 or (comma and b[j] == 44)) and 48 <= b[j + 1] <= 57:
        j += 1
        while j < e and 48 <= b[j] <= 57:
            j += 1
    return j < e and b[j] == 37


@numba.njit(cache=True, nogil=True)
def number(b, a, z, pow10):
    # float() of b[a:z] when it is [-]digits[.digits] (at most 15 digits), else NaN with ok False
    neg = a < z and b[a] == 45
    if neg:
        a += 1
    m = 0
    nd = 0
    frac = 0
    dot = False
    while a < z:
        c = b[a]
        if 48 <= c <= 57:
            m = m * 10 + (c - 48)
            nd += 1
            if dot:
                frac += 1
        elif c == 46 and not dot and nd > 0:
            dot = True
        else:
            return np.nan, False
        a += 1
    if nd == 0 or nd > 15 or (dot and frac == 0):
        return np.nan, False
    v = float(m)
    if frac:
        v = v / pow10[frac]
    return (-v if neg else v), True


@numba.njit(cache=True, nogil=True)
def fill_entries(b, i, base, col_start, kinds, nums, spans, symtype, st, pow10):
    # the lines of b from offset i: blank lines and call-graph lines passed, table rows read into row st[0]
    # on (numbers in nums[:, k], the texts' stripped spans b-offset + base in spans[:, 2k:2k + 2], the
    # symbol's [x] in symtype); st[0]: rows read so far in the whole text.  Returns (what stopped it, the
    # offset in b of the line it stopped at)
    n = b.shape[0]
    ncol = col_start.shape[0]
    r = st[0]
    while i < n:
        e = i
        while e < n and b[e] != 10:
            if b[e] < 32 or b[e] > 126:  # a tab, a control or non-ASCII character: the line reader's
                return 3, i
            e += 1
        f = i
        while f < e and b[f] == 32:
            f += 1
        if f == e:  # a blank line
            i = e + 1
            continue
        if b[i] == 35:  # '#'
            return 1, i
        if r > 0 and b[i] != 32 and not pct_start(b, i, e, True):  # an author's text after the table
            return 3, i
        graph = b[f] == 124 or b[f] == 45  # '|' '-'
        if not graph and e - i >= 2 and b[i + 1] == 32 and b[i] == 32:
            graph = not pct_start(b, f, e, False)
        if graph:
            if r == 0:  # a call graph before any row
                return 3, i
            i = e + 1
            continue
        if r >= nums.shape[0]:
            return 2, i
        for k in range(ncol):
            a = i if k == 0 else min(i + col_start[k], e)
            z = min(i + col_start[k + 1], e) if k + 1 < ncol else e
            while a < z and b[a] == 32:
                a += 1
            while z > a and b[z - 1] == 32:
                z -= 1
            kind = kinds[k]
            if kind == 0:
                # locale_number(v.rstrip('%')): every '%' at the end, then blanks again
                while z > a and b[z - 1] == 37:
                    z -= 1
                while z > a and b[z - 1] == 32:
                    z -= 1
                v, ok = number(b, a, z, pow10)
                if not ok:
                    return 3, i
                nums[r, k] = v
            else:
                if kind == 2 and z - a >= 4 and b[a] == 91 and b[a + 2] == 93 and b[a + 3] == 32:  # '[x] '
                    symtype[r] = b[a + 1]
                    a += 4
                elif kind == 2:
                    symtype[r] = 0
                spans[r, 2 * k] = base + a
                spans[r, 2 * k + 1] = base + z
        r += 1
        st[0] = r
        i = e + 1
    return 0, n


def kinds_of(cols: list[str], numeric) -> np.ndarray:
    """The kind of each column (:data:`NUM`, :data:`TEXT`, :data:`SYMBOL`)."""
    return np.array([NUM if c in numeric else SYMBOL if c == "Symbol" else TEXT for c in cols], dtype=np.int64)


class Table:
    """The rows :func:`scan_entries` read: numbers ``(rows, ncol)`` float64, the texts' spans ``(rows, 2 ncol)``
    in the text, the symbol's marker byte (0: none)."""

    def __init__(self, ncol: int, cap: int = 4096):
        self.nums = np.empty((cap, ncol), dtype=np.float64)
        self.spans = np.zeros((cap, 2 * ncol), dtype=np.int64)
        self.symtype = np.zeros(cap, dtype=np.uint8)
        self.st = np.zeros(1, dtype=np.int64)

    @property
    def rows(self) -> int:
        return int(self.st[0])

    def grow(self) -> None:
        cap = 2 * self.nums.shape[0]
        for k in ("nums", "spans", "symtype"):
            a = getattr(self, k)
            b = np.zeros((cap,) + a.shape[1:], dtype=a.dtype)
            b[:a.shape[0]] = a
            setattr(self, k, b)


def scan_entries(text: str, start: int, col_start: np.ndarray, kinds: np.ndarray, on_comment):
    """Read the table rows of *text* (a ``perf report --stdio``) from offset *start* (a line's start) to its end,
    column k from offset ``col_start[k]`` of its line (the header's dotted line; the first column from the line's
    start) to the next one's, of kind ``kinds[k]`` (:func:`kinds_of`).

    ``on_comment(line, rows)`` is called with each ``#`` line (its text, and the rows read before it) and returns
    the ``(col_start, kinds)`` to read the next rows with (a new header may move the columns), or None to give
    up.  Returns the :class:`Table` read, or None when a line is one the line reader must read (see the module's
    docstring), or on_comment gave up.  The text is encoded :data:`~._fastscan.CHUNK` characters at a time."""
    table = Table(len(kinds))
    for a, e in _pieces(text, CHUNK, start):
        try:
            b = np.frombuffer(text[a:e].encode("ascii"), dtype=np.uint8)
        except UnicodeEncodeError:
            return None
        i = 0
        while True:
            what, i = fill_entries(b, i, a, col_start, kinds, table.nums, table.spans, table.symtype,
                                               table.st, _POW10)
            if what == _END:
                break
            if what == _FULL:
                table.grow()
                continue
            if what == _OTHER:
                return None
            end = text.find("\n", a + i)
            end = len(text) if end < 0 else end
            layout = on_comment(text[a + i:end], table.rows)
            if layout is None or len(layout[1]) != len(kinds) or (layout[1] != kinds).any():
                return None
            col_start, kinds = layout
            i = end - a + 1
            if i >= b.shape[0]:
                break
    return table


def warm() -> None:
    """Compile (or load from numba's cache) the kernel now, not in the first parse."""
    cs, kinds = np.array([0, 10], dtype=np.int64), np.array([NUM, SYMBOL], dtype=np.int64)
    scan_entries("  1.00%   [k] x\n", 0, cs, kinds, lambda ln, rows: None)
