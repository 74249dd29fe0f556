"""The numba kernels of :mod:`._fastscan`, at module level.

Module level, not built inside a function: numba's cache keys a kernel made in a closure by the closure's cells, and
a kernel there that calls another kernel of the closure (``fill_table`` calling ``read_ints``, ``fill_series`` and
``fill_template`` calling ``line_end``/``read_time``) was compiled again in every process: about 4 s of CPU in each
pytest worker and notebook kernel that read a trace.  Imported only by :func:`._fastscan._build`, on the first
long text, so a process that parses nothing long does not import numba for it.
"""

from __future__ import annotations

import numba
import numpy as np


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

@numba.njit(cache=True, nogil=True)
def count_kinds(b):
    # how many lines start (after blanks) with a digit (data) and how many with anything else
    n = b.shape[0]
    nd = 0
    nh = 0
    i = 0
    while i < n:
        j = i
        while j < n and (b[j] == 32 or b[j] == 9 or b[j] == 13):
            j += 1
        if j < n and b[j] != 10:
            if 48 <= b[j] <= 57:
                nd += 1
            else:
                nh += 1
        while j < n and b[j] != 10:
            j += 1
        i = j + 1
    return nd, nh

@numba.njit(cache=True, nogil=True)
def read_ints(b, j, e, ncol, max_digits, signed, out, d):
    # the integers of b[j:e] into out[:, d]: how many there were, or -1 for anything else or more than ncol
    k = 0
    while True:
        while j < e and (b[j] == 32 or b[j] == 9 or b[j] == 13):
            j += 1
        if j >= e:
            return k
        if k >= ncol:
            return -1
        neg = False
        if b[j] == 45 and signed:  # '-'
            neg = True
            j += 1
        m = 0
        nds = 0
        while j < e:
            c = b[j]
            if 48 <= c <= 57:
                m = m * 10 + (c - 48)
                nds += 1
            elif c == 32 or c == 9 or c == 13:
                break
            else:
                return -1
            j += 1
        if nds == 0 or nds > max_digits:
            return -1
        out[k, d] = -m if neg else m
        k += 1

@numba.njit(cache=True, nogil=True)
def fill_table(b, ncol, max_digits, signed, named, out, data_line, name_span, hdr, d, h, line, base):
    # read the data lines of b into out[:, d:], note the others in hdr[h:]; *line* and *base* are the line
    # index and the offset of b's first byte in the whole text.  A data line starts (after blanks) with a
    # digit, or, when *named*, with a name of printable ASCII (its span noted in name_span) and is any line
    # that then holds ncol integers: the others are then every other non-blank line, for the caller to check
    n = b.shape[0]
    i = 0
    while i < n:
        e = i
        while e < n and b[e] != 10:
            e += 1
        j = i
        while j < e and (b[j] == 32 or b[j] == 9 or b[j] == 13):
            j += 1
        if j < e:
            if named:
                ns = j
                while j < e and 33 <= b[j] <= 126:
                    j += 1
                ok = j > ns and (j == e or b[j] == 32 or b[j] == 9 or b[j] == 13) and d < out.shape[1]
                if ok and read_ints(b, j, e, ncol, max_digits, signed, out, d) == ncol:
                    data_line[d] = line
                    name_span[d, 0] = base + ns
                    name_span[d, 1] = base + j
                    d += 1
                elif h < hdr.shape[0]:
                    hdr[h, 0] = line
                    hdr[h, 1] = base + i
                    hdr[h, 2] = base + e
                    h += 1
                else:
                    return d, h, line, d, base + i, base + e
            elif not (48 <= b[j] <= 57):
                hdr[h, 0] = line
                hdr[h, 1] = base + i
                hdr[h, 2] = base + e
                h += 1
            else:
                if read_ints(b, j, e, ncol, max_digits, signed, out, d) != ncol:
                    return d, h, line, d, base + i, base + e
                data_line[d] = line
                d += 1
        line += 1
        i = e + 1
    return d, h, line, -1, 0, 0

@numba.njit(cache=True, nogil=True)
def line_end(b, i, n):
    # the end of the line that starts at i (its newline or n), and whether it holds only blanks and tabs
    e = i
    blank = True
    while e < n and b[e] != 10:
        if b[e] != 32 and b[e] != 9:
            blank = False
        e += 1
    return e, blank

@numba.njit(cache=True, nogil=True)
def is_time(b, i, e):
    return e - i >= 5 and b[i] == 116 and b[i + 1] == 105 and b[i + 2] == 109 and b[i + 3] == 101 \
        and b[i + 4] == 58  # 'time:'

@numba.njit(cache=True, nogil=True)
def read_time(b, i, e, times, s, pow10):
    # 'time: <epoch>' (digits, a point and digits), as float() reads it, into times[s]; False for anything else
    j = i + 5
    while j < e and b[j] == 32:
        j += 1
    m = 0
    nd = 0
    frac = 0
    dot = False
    while j < e and (48 <= b[j] <= 57 or (b[j] == 46 and not dot and nd > 0)):
        if b[j] == 46:
            dot = True
        else:
            m = m * 10 + (b[j] - 48)
            nd += 1
            if dot:
                frac += 1
        j += 1
    if nd == 0 or nd > 15 or (dot and frac == 0) or frac > 22:
        return False
    while j < e and (b[j] == 32 or b[j] == 9):
        j += 1
    if j != e:
        return False
    times[s] = m / pow10[frac] if frac else float(m)
    return True

@numba.njit(cache=True, nogil=True)
def fill_template(b, lits, lit_off, line_first, lead, cycle, out, times, s, k, v, pow10):
    # '<time: epoch>' then the template's lines in order, snapshot after snapshot: line k is the literal texts
    # line_first[k] .. line_first[k + 1] - 1 (lits[lit_off[q]:lit_off[q + 1]]) with an unsigned integer (at most
    # 18 digits) between each two, going to out[v], v += 1; with *lead* any run of spaces before the line.
    # With *cycle* no time lines: a snapshot starts again after the template's last line.  *s*, *k*, *v* as
    # reached before b.  Returns (s, k, v, bad offset in b or -1).
    n = b.shape[0]
    nlines = line_first.shape[0] - 1
    i = 0
    while i < n:
        e, blank = line_end(b, i, n)
        if blank:
            i = e + 1
            continue
        if not cycle and is_time(b, i, e):
            if s >= 0 and k != nlines:
                return s, k, v, i
            s += 1
            if s >= times.shape[0] or not read_time(b, i, e, times, s, pow10):
                return s, k, v, i
            k = 0
        else:
            if cycle and k >= nlines and s + 1 < times.shape[0]:
                s += 1
                k = 0
            if s < 0 or k >= nlines:
                return s, k, v, i
            q0 = line_first[k]
            nq = line_first[k + 1] - q0
            j = i
            if lead:
                while j < e and b[j] == 32:
                    j += 1
            for q in range(q0, q0 + nq):
                a = lit_off[q]
                w = lit_off[q + 1] - a
                if e - j < w:
                    return s, k, v, i
                for t in range(w):
                    if b[j + t] != lits[a + t]:
                        return s, k, v, i
                j += w
                if q < q0 + nq - 1:
                    m = 0
                    nd = 0
                    while j < e and 48 <= b[j] <= 57:
                        m = m * 10 + (b[j] - 48)
                        nd += 1
                        j += 1
                    if nd == 0 or nd > 18 or v >= out.shape[0]:
                        return s, k, v, i
                    out[v] = m
                    v += 1
            if j != e:
                return s, k, v, i
            k += 1
        i = e + 1
    return s, k, v, -1

@numba.njit(cache=True, nogil=True)
def fill_series(b, names, name_off, pad, width, signed, units, unit_off, out, sk, ss, so, times, s, k, pow10):
    # '<time: epoch>' then the counters named in *names* in that order, snapshot after snapshot; *s* and *k*
    # are the snapshot and counter reached before b.  After a name one blank, or blanks when *pad*; then
    # *width* integers apart by blanks, number o of counter k of snapshot s going to out[k*sk + s*ss + o*so];
    # after them blanks and the counter's unit (units[unit_off[k]:unit_off[k + 1]]) when it has one.
    # Returns (s, k, bad offset in b or -1).
    n = b.shape[0]
    ncol = name_off.shape[0] - 1
    i = 0
    while i < n:
        e, blank = line_end(b, i, n)
        if blank:
            i = e + 1
            continue
        if is_time(b, i, e):
            if s >= 0 and k != ncol:
                return s, k, i
            s += 1
            if s >= times.shape[0] or not read_time(b, i, e, times, s, pow10):
                return s, k, i
            k = 0
        else:
            if s < 0 or k >= ncol:
                return s, k, i
            a = name_off[k]
            w = name_off[k + 1] - a
            if e - i < w + 2 or b[i + w] != 32:
                return s, k, i
            for q in range(w):
                if b[i + q] != names[a + q]:
                    return s, k, i
            j = i + w + 1
            for o in range(width):
                if o > 0 and (j >= e or not (b[j] == 32 or b[j] == 9)):
                    return s, k, i
                if pad or o > 0:
                    while j < e and (b[j] == 32 or b[j] == 9):
                        j += 1
                neg = False
                if signed and j < e and b[j] == 45:
                    neg = True
                    j += 1
                m = 0
                nd = 0
                while j < e and 48 <= b[j] <= 57:
                    m = m * 10 + (b[j] - 48)
                    nd += 1
                    j += 1
                if nd == 0 or nd > 18:
                    return s, k, i
                out[k * sk + s * ss + o * so] = -m if neg else m
            ua = unit_off[k]
            uw = unit_off[k + 1] - ua
            if uw:
                if j >= e or not (b[j] == 32 or b[j] == 9):
                    return s, k, i
                while j < e and (b[j] == 32 or b[j] == 9):
                    j += 1
                if e - j < uw:
                    return s, k, i
                for q in range(uw):
                    if b[j + q] != units[ua + q]:
                        return s, k, i
                j += uw
            while j < e and (b[j] == 32 or b[j] == 9):
                j += 1
            if j != e:
                return s, k, i
            k += 1
        i = e + 1
    return s, k, -1

@numba.njit(cache=True, nogil=True)
def folded_lines(b):
    # per non-blank line: start, the offset of its last blank before the count, the count; bad offset or -1
    n = b.shape[0]
    rows = 0
    for i in range(n):
        rows += b[i] == 10
    rows += 1
    start = np.empty(rows, dtype=np.int64)
    cut = np.empty(rows, dtype=np.int64)
    count = np.empty(rows, dtype=np.int64)
    r = 0
    i = 0
    while i < n:
        e = i
        while e < n and b[e] != 10:
            e += 1
        t = e  # the end of the line without trailing white space (str.rstrip's, in ASCII)
        while t > i and (b[t - 1] == 32 or 9 <= b[t - 1] <= 13 or 28 <= b[t - 1] <= 31):
            t -= 1
        if t > i:
            j = t
            while j > i and 48 <= b[j - 1] <= 57:
                j -= 1
            if j == t or t - j > 18 or j - 1 <= i or b[j - 1] != 32:
                return start[:r], cut[:r], count[:r], i
            m = 0
            for q in range(j, t):
                m = m * 10 + (b[q] - 48)
            start[r] = i
            cut[r] = j - 1
            count[r] = m
            r += 1
        i = e + 1
    return start[:r], cut[:r], count[:r], -1

@numba.njit(cache=True, nogil=True)
def suspect_numbers(b, run):
    # a decimal point or comma before a digit, or a run of *run* digits
    n = b.shape[0]
    digits = 0
    for i in range(n):
        c = b[i]
        if 48 <= c <= 57:
            digits += 1
            if digits >= run:
                return True
            if i > 0 and (b[i - 1] == 46 or b[i - 1] == 44):
                return True
        else:
            digits = 0
    return False
