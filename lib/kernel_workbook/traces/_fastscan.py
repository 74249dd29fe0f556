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
    import numba

    @numba.njit(cache=True, nogil=True)
    def parse_rows(b, starts, ends, skip_first, ncol, comma, pow10):
        n = starts.shape[0]
        out = np.empty((n, ncol), dtype=np.float64)
        name_end = np.empty(n, dtype=np.int64)
        for r in range(n):
            i = starts[r]
            e = ends[r]
            # optional leading name (device): up to the first blank
            if skip_first:
                while i < e and (b[i] == 32 or b[i] == 9):
                    i += 1
                while i < e and not (b[i] == 32 or b[i] == 9):
                    i += 1
            name_end[r] = i
            k = 0
            while True:
                while i < e and (b[i] == 32 or b[i] == 9 or b[i] == 13):
                    i += 1
                if i >= e:
                    break
                if k >= ncol:
                    return out, name_end, r
                neg = False
                if b[i] == 45:  # '-'
                    neg = True
                    i += 1
                m = 0
                nd = 0
                frac = 0
                seen_dot = False
                while i < e:
                    c = b[i]
                    if 48 <= c <= 57:
                        m = m * 10 + (c - 48)
                        nd += 1
                        if seen_dot:
                            frac += 1
                    elif (c == 46 and not comma) or (c == 44 and comma):
                        if seen_dot:
                            return out, name_end, r
                        seen_dot = True
                    elif c == 32 or c == 9 or c == 13:
                        break
                    else:
                        return out, name_end, r
                    i += 1
                if nd == 0 or nd > 15 or frac > 22:
                    return out, name_end, r
                v = float(m)
                if frac:
                    v = v / pow10[frac]
                out[r, k] = -v if neg else v
                k += 1
            if k != ncol:
                return out, name_end, r
        return out, name_end, -1

    @numba.njit(cache=True, nogil=True)
    def first_nonblank(b, starts, ends):
        n = starts.shape[0]
        out = np.zeros(n, dtype=np.uint8)
        for r in range(n):
            i = starts[r]
            e = ends[r]
            while i < e and (b[i] == 32 or b[i] == 9 or b[i] == 13):
                i += 1
            if i < e:
                out[r] = b[i]
        return out

    @numba.njit(cache=True, nogil=True)
    def same_lines(b, starts, ends):
        n = starts.shape[0]
        if n == 0:
            return True
        first = b[starts[0]:ends[0]]
        w = first.shape[0]
        for r in range(1, n):
            if ends[r] - starts[r] != w:
                return False
            line = b[starts[r]:ends[r]]
            diff = 0
            # no branch (and a view indexed from 0) inside: LLVM compares many bytes per instruction
            for k in range(w):
                diff |= line[k] ^ first[k]
            if diff:
                return False
        return True

    _KERNELS["parse_rows"] = parse_rows
    _KERNELS["first_nonblank"] = first_nonblank
    _KERNELS["same_lines"] = same_lines


def parse_rows(b: np.ndarray, starts: np.ndarray, ends: np.ndarray, ncol: int, skip_first: bool = False,
               comma: bool = False):
    """Numbers of the rows ``b[starts[i]:ends[i]]``: (values (n, ncol) float64, name_end, first bad row or -1)."""
    if "parse_rows" not in _KERNELS:
        _build()
    return _KERNELS["parse_rows"](b, starts.astype(np.int64, copy=False), ends.astype(np.int64, copy=False),
                                  skip_first, ncol, comma, _POW10)


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
