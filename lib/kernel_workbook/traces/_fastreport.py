"""A numba reader of the table of a ``perf report --stdio`` (``-g`` call graphs included) in one pass over the bytes.

A ``perf report --stdio -g`` of a long run is mostly call-graph lines (``|--40.12%--sym``, ``---sym``,
``|          ``, an indented frame): the line reader made a Python string, a list and a dict per line, 8x the
file's size at the peak and 11 MB/s.  :func:`scan_entries` goes through the bytes once: it says what each line
is, the way :func:`~.perfreport.read_perf_report` tells them apart (a comment, a blank line, a call-graph line, a
table row), and reads the table rows' columns from the spans of the dotted line under the header, without a
string per line.  The call-graph lines are only recognised when the table alone is wanted; else :func:`graph_line`
reads each as ``perfreport._graph_line`` does (the same stack of columns, perf 3.x's ``--- sym`` included) into
arrays of nodes whose symbols are spans of the text.  The ``#`` lines are handed back to the caller, which reads
them as the line reader does (the event, a new header).

Only the input the line reader reads without a word goes through: printable ASCII lines, every row's numbers
``[-]digits[.digits]`` (at most 15 digits: the integer of its digits divided by a power of ten, which IEEE
division rounds correctly, so the value is Python's ``float()`` of the same text).  Anything else (a tab, a
control or non-ASCII character, an author's prose after the table, a damaged row, a call graph before any row,
a number written otherwise, a tree deeper than 1,024 frames, a ``--- `` inside a symbol) stops the scan, and
the caller gives the text to the line reader, which reads, warns about or refuses it as before.

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
    # float() of b[a:z] when it is [-]digits[.digits] (at most 15 digits), else NaN with ok False.  The other
    # readers (_fastperf, _fastscan_jit) write this loop out again on purpose: numba's cache does not see a change
    # in a kernel of another file that a cached kernel calls, so sharing it would serve stale machine code
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
def branch_at(buf, q, L, pow10):
    # perfreport's _BRANCH_RE ('--(\d+(?:\.\d+)?)%--\s*') matched at buf[q]: (its end, the percentage), end -1 if not
    if q + 2 >= L or buf[q] != 45 or buf[q + 1] != 45:
        return -1, 0.0
    j = q + 2
    d = j
    while j < L and 48 <= buf[j] <= 57:
        j += 1
    if j == d:
        return -1, 0.0
    if j + 1 < L and buf[j] == 46 and 48 <= buf[j + 1] <= 57:
        j += 1
        while j < L and 48 <= buf[j] <= 57:
            j += 1
    if j + 2 >= L or buf[j] != 37 or buf[j + 1] != 45 or buf[j + 2] != 45:
        return -1, 0.0
    v, ok = number(buf, q + 2, j, pow10)
    if not ok:
        return -2, 0.0
    j += 3
    while j < L and buf[j] == 32:
        j += 1
    return j, v


@numba.njit(cache=True, nogil=True)
def graph_line(b, i, e, base, buf, entry, nodes, pct, stack, st, pow10):
    # perfreport._graph_line for the line b[i:e] under table row *entry*: a node into nodes[st[1]] (entry, parent,
    # depth, symbol start and end in the text) and pct, the stack of (column, node) in stack[:st[2]].  Returns 0,
    # 2 when the arrays are full (nothing changed), 3 for what the line reader must read
    node = st[1]
    if node >= nodes.shape[0]:
        return 2
    t = e
    while t > i and b[t - 1] == 32:  # rstrip()
        t -= 1
    # perf 3.x's '--- sym' and '|--99.50%-- sym': re.sub(r'(---|%--) ', r'\1', s), the kept bytes in buf; a
    # deletion inside the symbol would part it from its text (the line reader's then)
    L = 0
    dels = 0
    last_del = -1
    x = i
    while x < t:
        buf[L] = b[x]
        L += 1
        if x + 3 < t and b[x + 3] == 32 and b[x + 1] == 45 and b[x + 2] == 45 and (b[x] == 45 or b[x] == 37):
            buf[L] = b[x + 1]
            buf[L + 1] = b[x + 2]
            L += 2
            x += 4
            dels += 1
            last_del = L
            continue
        x += 1
    q = 0
    while q < L and (buf[q] == 32 or buf[q] == 124):  # s.lstrip(' |')
        q += 1
    if q == L:  # only blanks and '|': no frame
        return 0
    sp = st[2]
    parent = -1
    if q + 2 < L and buf[q] == 45 and buf[q + 1] == 45 and buf[q + 2] == 45:  # '---sym': the first frame
        col = q + 3
        while col < L and buf[col] == 32:
            col += 1
        a = col
        sp = 0
        depth = 0
        v = np.nan
    else:
        end, v = branch_at(buf, q, L, pow10)
        if end == -2:
            return 3
        if end >= 0:  # '|--40.12%--sym'
            mc = q - 1
            while sp > 0 and stack[sp - 1, 0] > mc:
                sp -= 1
            parent = stack[sp - 1, 1] if sp > 0 else -1
            depth = nodes[parent, 2] + 1 if parent >= 0 and nodes[parent, 0] == entry else 0
            col = end
            a = end
        else:  # a frame under the one above: 'sym' at its column
            v = np.nan
            col = q
            a = q
            while sp > 0 and stack[sp - 1, 0] > col:
                sp -= 1
            if sp > 0 and stack[sp - 1, 0] == col:
                parent = stack[sp - 1, 1]
                sp -= 1
            else:
                parent = stack[sp - 1, 1] if sp > 0 else -1
            depth = nodes[parent, 2] + 1 if parent >= 0 else 0
    if sp >= stack.shape[0] or (dels and last_del > a):
        return 3
    # buf[a:L] back to the text: every deletion was before a
    nodes[node, 0] = entry
    nodes[node, 1] = parent
    nodes[node, 2] = depth
    nodes[node, 3] = base + i + a + dels
    nodes[node, 4] = base + i + L + dels
    pct[node] = v
    stack[sp, 0] = col
    stack[sp, 1] = node
    st[2] = sp + 1
    st[1] = node + 1
    return 0


@numba.njit(cache=True, nogil=True)
def fill_entries(b, i, base, col_start, kinds, nums, spans, symtype, st, pow10, graph_too, nodes, pct, stack):
    # the lines of b from offset i: blank lines passed, call-graph lines passed (or, with *graph_too*, read by
    # graph_line), table rows read into row st[0]
    # on (numbers in nums[:, k], the texts' stripped spans b-offset + base in spans[:, 2k:2k + 2], the
    # symbol's [x] in symtype); st[0]: rows read so far in the whole text.  Returns (what stopped it, the
    # offset in b of the line it stopped at)
    n = b.shape[0]
    buf = np.empty(n if graph_too else 0, dtype=np.uint8)
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
            if graph_too:
                what = graph_line(b, i, e, base, buf, r - 1, nodes, pct, stack, st, pow10)
                if what:
                    return what, i
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
        st[2] = 0  # the call graph under a row starts afresh
        i = e + 1
    return 0, n


def kinds_of(cols: list[str], numeric) -> np.ndarray:
    """The kind of each column (:data:`NUM`, :data:`TEXT`, :data:`SYMBOL`)."""
    return np.array([NUM if c in numeric else SYMBOL if c == "Symbol" else TEXT for c in cols], dtype=np.int64)


class Table:
    """The rows :func:`scan_entries` read: numbers ``(rows, ncol)`` float64, the texts' spans ``(rows, 2 ncol)``
    in the text, the symbol's marker byte (0: none); with the call graph, its nodes ``(nodes, 5)``: entry,
    parent, depth, the symbol's start and end in the text, and their percentages."""

    def __init__(self, ncol: int, graph: bool, cap: int = 4096):
        self.nums = np.empty((cap, ncol), dtype=np.float64)
        self.spans = np.zeros((cap, 2 * ncol), dtype=np.int64)
        self.symtype = np.zeros(cap, dtype=np.uint8)
        gcap = 4 * cap if graph else 0
        self.graph = graph
        self.nodes = np.zeros((gcap, 5), dtype=np.int64)
        self.pct = np.zeros(gcap, dtype=np.float64)
        self.stack = np.zeros((1024 if graph else 0, 2), dtype=np.int64)  # deeper trees: the line reader's
        self.st = np.zeros(3, dtype=np.int64)  # rows, nodes, stack height

    @property
    def rows(self) -> int:
        return int(self.st[0])

    @property
    def n_nodes(self) -> int:
        return int(self.st[1])

    def grow(self) -> None:
        """Room for twice the rows or the nodes, whichever is full."""
        names = ("nums", "spans", "symtype") if self.rows >= self.nums.shape[0] else ("nodes", "pct")
        for k in names:
            a = getattr(self, k)
            b = np.zeros((2 * a.shape[0],) + a.shape[1:], dtype=a.dtype)
            b[:a.shape[0]] = a
            setattr(self, k, b)


def scan_entries(text: str, start: int, col_start: np.ndarray, kinds: np.ndarray, on_comment, graph: bool = False):
    """Read the table rows of *text* (a ``perf report --stdio``) from offset *start* (a line's start) to its end,
    column k from offset ``col_start[k]`` of its line (the header's dotted line; the first column from the line's
    start) to the next one's, of kind ``kinds[k]`` (:func:`kinds_of`).

    ``on_comment(line, rows)`` is called with each ``#`` line (its text, and the rows read before it) and returns
    the ``(col_start, kinds)`` to read the next rows with (a new header may move the columns), or None to give
    up.  Returns the :class:`Table` read, or None when a line is one the line reader must read (see the module's
    docstring), or on_comment gave up.  The text is encoded :data:`~._fastscan.CHUNK` characters at a time."""
    table = Table(len(kinds), graph)
    for a, e in _pieces(text, CHUNK, start):
        try:
            b = np.frombuffer(text[a:e].encode("ascii"), dtype=np.uint8)
        except UnicodeEncodeError:
            return None
        i = 0
        while True:
            what, i = fill_entries(b, i, a, col_start, kinds, table.nums, table.spans, table.symtype, table.st,
                                   _POW10, graph, table.nodes, table.pct, table.stack)
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
    scan_entries("  1.00%   [k] x\n   ---x\n", 0, cs, kinds, lambda ln, rows: None, True)
