"""A numba reader of lines whose text repeats with other numbers: ``perf stat -I`` logs and ``iostat -o JSON``.

``perf stat -I 1000`` prints, every interval, the same counters in the same order, one line each (``-x,``:
``time,value,unit,event,run,enabled,metric,metric unit``; ``-j``: one JSON object; the text layout: aligned
columns); ``iostat -o JSON`` prints every report as the first one's lines.  Only the numbers change, and the unit
perf scales a metric to (``/sec``, ``K/sec``).  The parser reads the first interval (report) its own way and
hands its lines here as a template; :func:`scan_fields` then reads every line of the text as the template's next
line, its numbers into one array, without a Python string per line.  A line that is anything else (another event,
a ``<not counted>``, a comment, a field more or less, a number it does not read exactly) stops the scan, and the
caller reads the text (or the rest of it) its own way, as before.

A number is ``[-]digits[.digits]`` with at most 15 digits: the integer of its digits divided by a power of ten,
which IEEE division rounds correctly, so the value is Python's ``float()`` of the same text.  Blanks (space, tab,
carriage return) around a field are what ``str.strip()`` would remove from it; any other character is the field's.
"""

from __future__ import annotations

import numpy as np

from ._fastscan import CHUNK, _POW10, _packed, _pieces

#: the kind of a template field: a number, a number or nothing (NaN), any text (perf scales a metric's unit:
#: ``/sec``, ``K/sec``, ``M/sec``), a literal text
NUMBER, NUMBER_OR_EMPTY, TEXT, LITERAL = 0, 1, 3, 2
#: a number as JSON writes it bare: no leading zero before another digit (``json.loads`` refuses ``0123``)
JSON_NUMBER = 4
#: unsigned numbers of perf stat's text layout: ``digits.digits`` (-I's time), ``digits[.digits]`` (a count)
UNSIGNED_DECIMAL, UNSIGNED = 5, 6
#: the distinct texts of TEXT fields a scan keeps (more: the caller reads the text its own way)
TEXTS_MAX, TEXT_BYTES = 256, 1 << 14

_KERNELS: dict = {}


def _build():
    import numba

    @numba.njit(cache=True, nogil=True)
    def fill_fields(b, base, sep, kinds, lits, lit_off, nfs, ntpl, out, codes, tb, toff, tn, st, pow10):
        # every line of b (whole lines, b[0] at base in the text) as template line k, k+1, ... (cycling); its
        # numbers into out, its TEXT fields as codes into the distinct texts tb[toff[c]:toff[c + 1]] (tn[0] of
        # them), both in the order of the text.  Field t of the template is its prefix
        # lits[lit_off[2t]:lit_off[2t + 1]], its value of kinds[t], its suffix lits[lit_off[2t + 1]:lit_off[2t + 2]];
        # line k's fields are nfs[k]:nfs[k + 1].  st: lines read, k, numbers, codes, where the cycle began
        n = b.shape[0]
        r, k, pos, cpos = st[0], st[1], st[2], st[3]
        i = 0
        while i < n:
            e = i
            while e < n and b[e] != 10:
                e += 1
            j = i
            while j < e and (b[j] == 32 or b[j] == 9 or b[j] == 13):
                j += 1
            if j == e:  # a blank line
                i = e + 1
                continue
            if k == 0:
                st[4] = base + i
            if e - i > 1000:  # perf stat's text reader takes so long a line for prose
                return r, k, pos, cpos, i
            nf = nfs[k + 1] - nfs[k]
            p = i
            for f in range(nf):
                t = nfs[k] + f
                if sep == 32:  # fields between runs of blanks; a TEXT last is the rest of the line
                    a = p
                    while a < e and (b[a] == 32 or b[a] == 9 or b[a] == 13):
                        a += 1
                    z = a
                    if kinds[t] == 3 and f == nf - 1:
                        z = e
                        while z > a and (b[z - 1] == 32 or b[z - 1] == 9 or b[z - 1] == 13):
                            z -= 1
                    else:
                        while z < e and not (b[z] == 32 or b[z] == 9 or b[z] == 13):
                            z += 1
                    if a == z:  # a field less
                        return r, k, pos, cpos, i
                    q = z - 1  # the next field begins after it (p = q + 1 below)
                else:
                    q = p
                    while q < e and b[q] != sep:
                        q += 1
                    if (f < nf - 1 and q >= e) or (f == nf - 1 and q < e):  # a field less or more
                        return r, k, pos, cpos, i
                    a = p
                    z = q
                    while a < z and (b[a] == 32 or b[a] == 9 or b[a] == 13):
                        a += 1
                    while z > a and (b[z - 1] == 32 or b[z - 1] == 9 or b[z - 1] == 13):
                        z -= 1
                p0, p1, s1 = lit_off[2 * t], lit_off[2 * t + 1], lit_off[2 * t + 2]
                if z - a < s1 - p0:
                    return r, k, pos, cpos, i
                for c in range(p1 - p0):
                    if b[a + c] != lits[p0 + c]:
                        return r, k, pos, cpos, i
                for c in range(s1 - p1):
                    if b[z - (s1 - p1) + c] != lits[p1 + c]:
                        return r, k, pos, cpos, i
                a += p1 - p0
                z -= s1 - p1
                kind = kinds[t]
                if kind == 2:
                    if z != a:
                        return r, k, pos, cpos, i
                elif kind == 3:
                    for x in range(a, z):
                        c = b[x]  # no quote, backslash or control character (JSON), no bracket (perf's text)
                        if c == 34 or c == 92 or c < 32 or c == 40 or c == 41 or c == 91 or c == 93:
                            return r, k, pos, cpos, i
                    code = -1
                    for c in range(tn[0]):
                        if toff[c + 1] - toff[c] == z - a:
                            same = True
                            for x in range(z - a):
                                if tb[toff[c] + x] != b[a + x]:
                                    same = False
                                    break
                            if same:
                                code = c
                                break
                    if code < 0:
                        code = tn[0]
                        if code + 1 >= toff.shape[0] or toff[code] + (z - a) > tb.shape[0]:
                            return r, k, pos, cpos, i
                        for x in range(z - a):
                            tb[toff[code] + x] = b[a + x]
                        toff[code + 1] = toff[code] + (z - a)
                        tn[0] = code + 1
                    if cpos >= codes.shape[0]:
                        return r, k, pos, cpos, i
                    codes[cpos] = code
                    cpos += 1
                else:
                    if pos >= out.shape[0]:
                        return r, k, pos, cpos, i
                    if a == z:
                        if kind != 1:
                            return r, k, pos, cpos, i
                        out[pos] = np.nan
                    else:
                        neg = b[a] == 45
                        if neg:
                            if kind >= 5:  # unsigned
                                return r, k, pos, cpos, i
                            a += 1
                        if kind == 4 and a + 1 < z and b[a] == 48 and 48 <= b[a + 1] <= 57:
                            return r, k, pos, cpos, i
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
                                return r, k, pos, cpos, i
                            a += 1
                        if nd == 0 or nd > 15 or (dot and frac == 0) or (kind == 5 and not dot):
                            return r, k, pos, cpos, i
                        v = float(m)
                        if frac:
                            v = v / pow10[frac]
                        out[pos] = -v if neg else v
                    pos += 1
                p = q + 1
            if sep == 32:  # nothing after the last field but blanks
                while p < e and (b[p] == 32 or b[p] == 9 or b[p] == 13):
                    p += 1
                if p < e:
                    return r, k, pos, cpos, i
            r += 1
            k += 1
            if k == ntpl:
                k = 0
            i = e + 1
        return r, k, pos, cpos, -1

    _KERNELS["fill_fields"] = fill_fields


def Field(kind, prefix: str = "", suffix: str = "") -> tuple:
    """A template field that is not plain: *prefix*, a value of *kind*, *suffix* (``"counter-value" : "`` 102
    ``"``)."""
    return (prefix, kind, suffix)


def _field(x) -> tuple:
    if isinstance(x, str):
        return (x, LITERAL, "")
    if isinstance(x, tuple):
        return x
    return ("", x, "")


def scan_fields(text: str, sep: str, template: list[list], cycles: int, partial: bool = False, start: int = 0):
    """Read every line of *text* (ASCII) as the next line of *template*, cycling through it.

    *template* holds one list per line, a field each: :data:`NUMBER`, :data:`NUMBER_OR_EMPTY`, :data:`JSON_NUMBER`,
    :data:`UNSIGNED_DECIMAL`, :data:`UNSIGNED`, :data:`TEXT` (no quote, backslash, bracket or control
    character), the field's literal text (stripped), or a :func:`Field` (a value between literal texts).  With
    *sep* a blank (``" "``) the fields are separated by runs of blanks (perf stat's aligned text), and a TEXT
    field last on its line is the rest of the line.  A line longer than 1,000 characters is never read.
    *cycles* bounds the times the template is read.  Returns
    ``(numbers float64, codes int64, distinct texts, lines read, len(text))``: every number and every TEXT field
    (a code into the distinct texts) of the lines, in the order of the text (the last cycle may be cut short).  A
    line that is not the template's next stops the reading: the result is then None, or with *partial*
    ``(numbers, codes, distinct texts, whole cycles read, where the rest begins)``, the whole cycles before that
    line and the offset of the first line after them (the text's length when every cycle was whole), for the
    caller to read the rest its own way.  The reading begins at offset *start* (a line's start) of *text*, and
    the text is encoded :data:`~._fastscan.CHUNK` characters at a time."""
    if "fill_fields" not in _KERNELS:
        _build()
    fields = [[_field(x) for x in line] for line in template]
    nfs = np.zeros(len(fields) + 1, dtype=np.int64)
    nfs[1:] = np.cumsum([len(line) for line in fields])
    kinds = np.array([f[1] for line in fields for f in line], dtype=np.int64)
    lits, lit_off = _packed([x for line in fields for f in line for x in (f[0], f[2])])
    per_numbers = int(np.isin(kinds, (NUMBER, NUMBER_OR_EMPTY, JSON_NUMBER, UNSIGNED_DECIMAL, UNSIGNED)).sum())
    per_texts = int((kinds == TEXT).sum())
    out = np.empty(cycles * per_numbers, dtype=np.float64)
    codes = np.empty(cycles * per_texts, dtype=np.int64)
    tb, toff, tn = np.empty(TEXT_BYTES, dtype=np.uint8), np.zeros(TEXTS_MAX + 1, dtype=np.int64), np.zeros(1, np.int64)
    st = np.zeros(5, dtype=np.int64)
    st[4] = len(text)
    for a, e in _pieces(text, CHUNK, start):
        r, k, pos, cpos, bad = _KERNELS["fill_fields"](np.frombuffer(text[a:e].encode("ascii"), dtype=np.uint8), a,
                                                       ord(sep), kinds, lits, lit_off, nfs, len(fields), out, codes,
                                                       tb, toff, tn, st, _POW10)
        st[:4] = r, k, pos, cpos
        if bad >= 0:
            break
    else:
        bad = -1
    r, k, pos, cpos = (int(x) for x in st[:4])
    distinct = [tb[toff[c]:toff[c + 1]].tobytes().decode("ascii") for c in range(int(tn[0]))]
    if not partial:
        return None if bad >= 0 else (out[:pos], codes[:cpos], distinct, r, len(text))
    done = (r - k) // len(fields)
    end = int(st[4]) if k != 0 or bad >= 0 else len(text)
    return out[:done * per_numbers], codes[:done * per_texts], distinct, done, end


def warm() -> None:
    """Compile (or load from numba's cache) the kernel now, not in the first parse."""
    scan_fields("1,a,b\n", ",", [[NUMBER, "a", TEXT]], 1)
