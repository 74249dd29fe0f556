"""``vmstat -s`` listings repeated (``while :; do vmstat -s; sleep 1; done``), read by the one-pass reader
(``_fastscan.scan_template`` with leading spaces and no time lines), give the frame, attrs, warnings and
errors of the line reader, clean and damaged in the middle."""

import re
from pathlib import Path

import numpy as np
import pytest

from fastpath_compare import assert_fast_is_general
from kernel_workbook.traces import vmstat as V

FIX = Path(__file__).parent / "fixtures" / "traces"
LISTING = [ln for ln in (FIX / "vmstat-procps4-s.txt").read_text().split("\n") if ln.strip()]


def _listings(n: int = 120) -> str:
    """*n* listings, the counters growing (their padding shrinking as vmstat's right alignment does)."""
    parsed = [re.match(r"^( *)(\d+)( .*)$", ln).groups() for ln in LISTING]
    out = []
    for k in range(n):
        out += [f"{int(v) + k * 9973:>{len(sp) + len(v)}d}{rest}" for sp, v, rest in parsed]
        if k % 9 == 4:
            out.append("")
    return "\n".join(out) + "\n"


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = len(lines) // 2
    while not lines[mid].strip() or lines[mid].endswith("total memory") or " K " not in lines[mid]:
        mid += 1
    if what == "missing line":
        del lines[mid]
    elif what == "word":
        lines[mid] = re.sub(r"(\d+)", r"x\1", lines[mid], count=1)
    elif what == "negative":
        lines[mid] = re.sub(r" (\d+)", r"-\1", lines[mid], count=1)
    elif what == "20 digits":
        lines[mid] = re.sub(r"\d+", "99999999999999999999", lines[mid], count=1)
    elif what == "19 digits":
        lines[mid] = re.sub(r"\d+", "1234567890123456789", lines[mid], count=1)
    elif what == "renamed, same width":
        lines[mid] = lines[mid][:-1] + "q"
    elif what == "other unit":
        lines[mid] = lines[mid].replace(" K ", " M ")
    elif what == "tab":
        lines[mid] = lines[mid].replace(" ", "\t", 1)
    elif what == "CR":
        lines[mid] += "\r"
    elif what == "prompt":
        lines.insert(mid, "$ vmstat -s")
    elif what == "time line":
        lines.insert(mid, "time: 1795239999")
    elif what == "time line between listings":
        j = next(j for j in range(mid, len(lines)) if lines[j].endswith("total memory"))
        lines.insert(j, "time: 1795239999")
    elif what == "label first":
        lines[mid] = "total memory: 5 K"
    elif what == "cut listing":
        return "\n".join(lines[:mid]) + "\n"
    elif what == "cut line":
        return "\n".join(lines[:mid] + [lines[mid][:10]])
    elif what == "swapped":
        lines[mid], lines[mid + 1] = lines[mid + 1], lines[mid]
    elif what == "duplicate":
        lines.insert(mid, lines[mid])
    elif what == "short listing":
        j = next(j for j in range(mid, len(lines)) if lines[j].endswith("total memory"))
        del lines[j + 3]
    return "\n".join(lines)


_WHAT = ("missing line", "word", "negative", "20 digits", "19 digits", "renamed, same width", "other unit", "tab",
         "CR", "prompt", "time line", "time line between listings", "label first", "cut listing", "cut line", "swapped", "duplicate",
         "short listing")
CASES = {"procps 4": _listings(), "no final newline": _listings().rstrip("\n"),
         "fixture repeated": (FIX / "vmstat-procps4-s.txt").read_text() * 60}
for _w in _WHAT:
    CASES[f"procps 4, {_w}"] = _damage(CASES["procps 4"], _w)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_line_reader_give_the_same_frame_or_error(name, monkeypatch):
    assert_fast_is_general(V, V.parse_vmstat_summary, CASES[name], monkeypatch)


def test_the_fast_path_reads_the_clean_listings_and_nothing_else():
    df = V._fast_summary(CASES["procps 4"], "<t>")
    assert df is not None and len(df) == 120 * len(LISTING) and df["value"].dtype == np.int64
    assert df["sample"].iloc[-1] == 119 and df["name"].iloc[0] == "total memory"
    assert V._fast_summary(CASES["fixture repeated"], "<t>") is not None
    for damaged in _WHAT:
        assert V._fast_summary(CASES[f"procps 4, {damaged}"], "<t>") is None, damaged
