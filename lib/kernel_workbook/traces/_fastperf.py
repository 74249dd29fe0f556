"""A numba reader of separated lines whose text fields repeat: ``perf stat -I -x,`` logs.

``perf stat -I 1000 -x,`` prints, every interval, the same counters in the same order, one line each
(``time,value,unit,event,run,enabled,metric,metric unit``): only the numbers change.  The parser reads the first
interval line by line and hands its text fields here as a template; :func:`scan_fields` then reads every line of
the text as the template's next line, its numbers into columns, without a Python string per line.  A line that is
anything else (another event, a ``<not counted>``, a comment, a field more or less, a number it does not read
exactly) stops the scan, and the caller reads the text line by line as before.

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
#: the distinct texts of TEXT fields a scan keeps (more: the caller reads the text its own way)
TEXTS_MAX, TEXT_BYTES = 256, 1 << 14

_KERNELS: dict = {}


def _build():
    import numba

    @numba.njit(cache=True, nogil=True)
    def fill_fields(b, sep, kinds, lits, lit_off, nf, ntpl, out, codes, tb, toff, tn, r, k, pow10):
        # every line of b (whole lines) as template line k, k+1, ... (cycling); numbers into out[:, r], the TEXT
        # fields as codes[:, r] into the distinct texts tb[toff[c]:toff[c + 1]] (tn[0] of them).  Field t of the
        # template is its prefix lits[lit_off[2t]:lit_off[2t + 1]], its value of kinds[t], its suffix
        # lits[lit_off[2t + 1]:lit_off[2t + 2]]
        n = b.shape[0]
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
            if r >= out.shape[1]:
                return r, k, i
            col = 0
            tcol = 0
            p = i
            for f in range(nf):
                q = p
                while q < e and b[q] != sep:
                    q += 1
                if (f < nf - 1 and q >= e) or (f == nf - 1 and q < e):  # a field less or more
                    return r, k, i
                a = p
                z = q
                while a < z and (b[a] == 32 or b[a] == 9 or b[a] == 13):
                    a += 1
                while z > a and (b[z - 1] == 32 or b[z - 1] == 9 or b[z - 1] == 13):
                    z -= 1
                t = k * nf + f
                p0, p1, s1 = lit_off[2 * t], lit_off[2 * t + 1], lit_off[2 * t + 2]
                if z - a < s1 - p0:
                    return r, k, i
                for c in range(p1 - p0):
                    if b[a + c] != lits[p0 + c]:
                        return r, k, i
                for c in range(s1 - p1):
                    if b[z - (s1 - p1) + c] != lits[p1 + c]:
                        return r, k, i
                a += p1 - p0
                z -= s1 - p1
                kind = kinds[t]
                if kind == 2:
                    if z != a:
                        return r, k, i
                elif kind == 3:
                    for x in range(a, z):
                        if b[x] == 34 or b[x] == 92 or b[x] < 32:  # a quote, a backslash, a control character
                            return r, k, i
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
                            return r, k, i
                        for x in range(z - a):
                            tb[toff[code] + x] = b[a + x]
                        toff[code + 1] = toff[code] + (z - a)
                        tn[0] = code + 1
                    codes[tcol, r] = code
                    tcol += 1
                else:
                    if a == z:
                        if kind != 1:
                            return r, k, i
                        out[col, r] = np.nan
                    else:
                        neg = b[a] == 45
                        if neg:
                            a += 1
                        if kind == 4 and a + 1 < z and b[a] == 48 and 48 <= b[a + 1] <= 57:
                            return r, k, i
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
                                return r, k, i
                            a += 1
                        if nd == 0 or nd > 15 or (dot and frac == 0):
                            return r, k, i
                        v = float(m)
                        if frac:
                            v = v / pow10[frac]
                        out[col, r] = -v if neg else v
                    col += 1
                p = q + 1
            r += 1
            k += 1
            if k == ntpl:
                k = 0
            i = e + 1
        return r, k, -1

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


def scan_fields(text: str, sep: str, template: list[list], rows: int):
    """Read every line of *text* (ASCII) as the next line of *template*, cycling through it.

    *template* holds one list per line, a field each: :data:`NUMBER`, :data:`NUMBER_OR_EMPTY`, :data:`JSON_NUMBER`,
    :data:`TEXT`
    (no quote, backslash or control character), the field's literal text (stripped), or a :func:`Field` (a value
    between literal texts); every line has the same fields and the same count of numbers and of TEXT fields.
    *rows* bounds the lines.  Returns ``(numbers (numbers a line, lines read) float64, texts (TEXT fields a line,
    lines read) int64 codes into the distinct texts, the distinct texts, lines read)``, or None when a line is
    anything else (then nothing is kept: the caller reads the text its own way).  The text is encoded
    :data:`~._fastscan.CHUNK` characters at a time."""
    if "fill_fields" not in _KERNELS:
        _build()
    fields = [[_field(x) for x in line] for line in template]
    nf = len(fields[0])

    def shape(line):
        return (len(line), sum(1 for f in line if f[1] in (NUMBER, NUMBER_OR_EMPTY, JSON_NUMBER)),
                sum(1 for f in line if f[1] == TEXT))

    if any(shape(line) != shape(fields[0]) for line in fields):
        raise ValueError("every template line needs the same fields, numbers and texts")
    _, numbers, texts = shape(fields[0])
    kinds = np.array([f[1] for line in fields for f in line], dtype=np.int64)
    lits, lit_off = _packed([x for line in fields for f in line for x in (f[0], f[2])])
    out = np.empty((numbers, rows), dtype=np.float64)
    codes = np.empty((texts, rows), dtype=np.int64)
    tb, toff, tn = np.empty(TEXT_BYTES, dtype=np.uint8), np.zeros(TEXTS_MAX + 1, dtype=np.int64), np.zeros(1, np.int64)
    r, k = 0, 0
    for a, e in _pieces(text, CHUNK):
        r, k, bad = _KERNELS["fill_fields"](np.frombuffer(text[a:e].encode("ascii"), dtype=np.uint8), ord(sep),
                                            kinds, lits, lit_off, nf, len(fields), out, codes, tb, toff, tn, r, k,
                                            _POW10)
        if bad >= 0:
            return None
    distinct = [tb[toff[c]:toff[c + 1]].tobytes().decode("ascii") for c in range(int(tn[0]))]
    return out[:, :r], codes[:, :r], distinct, r


def warm() -> None:
    """Compile (or load from numba's cache) the kernel now, not in the first parse."""
    scan_fields("1,a,b\n", ",", [[NUMBER, "a", TEXT]], 1)
