"""vmstat's one-pass reader (``_fastscan.scan_table``, numbers straight into the frame's columns) gives the frame,
attrs, warnings and errors the readers before it gave, on the fixtures made long enough to take it, on generated
logs, and on damaged ones (a bad line in the middle of a clean run, a cut last line): what it cannot prove
well-formed it leaves to them."""

import random
from pathlib import Path

import numpy as np
import pytest

from fastpath_compare import assert_same as _same
from fastpath_compare import outcome
from kernel_workbook.errors import WorkbookParseError
from kernel_workbook.traces import _fastscan as F
from kernel_workbook.traces import vmstat as V

FIX = Path(__file__).parent / "fixtures" / "traces"
GROUP = "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----"
NAMES = " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st"


def _long(text: str) -> str:
    """*text* repeated past FAST_MIN (each copy another run appended to the log)."""
    return text * (V.FAST_MIN // max(len(text), 1) + 2)


def _generated(rows: int = 3000, seed: int = 7) -> str:
    """A ``vmstat 1 > log`` of *rows* reports: both headers again every 21, values that move."""
    rng = random.Random(seed)
    out = [GROUP, NAMES]
    for i in range(rows):
        if i and i % V.HEADER_PERIOD == 0:
            out += [GROUP, NAMES]
        out.append(" ".join(str(rng.randrange(10 ** rng.randrange(1, 9))) for _ in range(17)))
    return "\n".join(out) + "\n"


def _damaged(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = len(lines) // 2
    while not lines[mid].strip()[:1].isdigit():
        mid += 1
    if what == "word":
        lines[mid] = lines[mid].replace(" ", " x ", 1)
    elif what == "short":
        lines[mid] = " ".join(lines[mid].split()[:-3])
    elif what == "long":
        lines[mid] += " 7"
    elif what == "decimal":
        lines[mid] = lines[mid].replace(" 0", " 0.5", 1) if " 0" in lines[mid] else lines[mid] + ".5"
    elif what == "cut":
        return text.rstrip("\n") + "\n 1 2 3"
    elif what == "junk":
        lines.insert(mid, "vmstat: something went wrong")
    return "\n".join(lines)


CASES = {f.stem: _long(f.read_text()) for f in sorted(FIX.glob("vmstat-procps*.txt"))
         if f.stem not in ("vmstat-procps4-s", "vmstat-procps4-d", "vmstat-procps4-p", "vmstat-procps4-D")}
CASES["generated"] = _generated()
for _what in ("word", "short", "long", "decimal", "cut", "junk"):
    CASES[f"generated, {_what}"] = _damaged(_generated(), _what)
CASES["repeated headers, short line"] = _damaged(CASES["vmstat-procps3.3-repeated-headers"], "short")


def _frame(text):
    return outcome(V.parse_vmstat, text)


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_pass_reader_gives_what_the_row_reader_gave(name, monkeypatch):
    """Against the numba row reader this path replaced (``_fast_vmstat_rows``: today's frames exactly)."""
    text = CASES[name]
    assert len(text) > V.FAST_MIN
    new = _frame(text)
    monkeypatch.setattr(V, "_fast_vmstat", V._fast_vmstat_rows)
    _same(new, _frame(text))


@pytest.mark.parametrize("name", ["generated", "generated, word", "generated, short", "generated, cut",
                                  "vmstat-procps4", "vmstat-procps3.2-nost", "vmstat-procps4-wa"])
def test_one_pass_reader_gives_what_the_line_reader_gives(name, monkeypatch):
    """Against the general line-by-line reader (no fast path at all)."""
    text = CASES[name]
    new = _frame(text)
    monkeypatch.setattr(V, "FAST_MIN", 10 ** 12)
    _same(new, _frame(text))


def test_the_one_pass_reader_takes_the_common_log_and_leaves_the_damaged_one(monkeypatch):
    calls = []
    monkeypatch.setattr(V, "_fast_vmstat_rows", lambda *a: calls.append(1))
    df = V._fast_vmstat(CASES["generated"], "<g>", None)
    assert df is not None and not calls and len(df) == 3000
    assert df[["r", "st"]].dtypes.tolist() == [np.int64, np.int64]
    V._fast_vmstat(CASES["generated, word"], "<g>", None)
    assert calls == [1]
    assert V._fast_vmstat(CASES["generated, decimal"], "<g>", None) is None


def test_the_damaged_line_is_named():
    text = CASES["generated, short"]
    with pytest.raises(WorkbookParseError) as e:
        V.parse_vmstat(text)
    bad = next(i for i, ln in enumerate(text.split("\n")) if ln.strip()[:1].isdigit() and len(ln.split()) == 14)
    assert f":{bad + 1}" in str(e.value)


@pytest.mark.parametrize("chunk", [64, 1000, 1 << 23])
def test_scan_table_reads_the_same_in_any_piece_size(chunk, monkeypatch):
    """The text is encoded a piece at a time: rows, line numbers and offsets must not depend on where it is cut."""
    text = CASES["generated"] + "\n\n\t \n" + _generated(500, seed=3).replace(" ", "\t", 40)
    monkeypatch.setattr(F, "CHUNK", 1 << 30)
    whole = F.scan_table(text, 17)
    monkeypatch.setattr(F, "CHUNK", chunk)
    got = F.scan_table(text, 17)
    for a, b in zip(whole[:3], got[:3]):
        np.testing.assert_array_equal(a, b)
    assert whole[3:] == got[3:] == (-1, 0, 0)
    lines = text.split("\n")
    for li, s, e in got[2][:50].tolist():
        assert text[s:e] == lines[li]


def test_scan_table_refuses_what_a_c_reader_would_change():
    assert F.scan_table("1 2\n3 4.5\n", 2) is None
    assert F.scan_table("1 2\n3 " + "9" * 19 + "\n", 2) is None
    assert F.scan_table("1 2\n3 " + "9" * 18 + "\n", 2)[3] == 1  # past 15 digits: a bad row, not a wrong number
