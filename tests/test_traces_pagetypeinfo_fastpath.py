"""/proc/pagetypeinfo's one-pass series reader (``procfs._fast_long`` over ``_fastscan.scan_template``, as for
zoneinfo) gives the frame, attrs, warnings and errors of the line reader, on fixtures and generated series,
clean and damaged in the middle: what it cannot read as one clean series it leaves to the line reader."""

import re
from pathlib import Path

import numpy as np
import pytest

from fastpath_compare import SERIES_DAMAGE, assert_fast_is_general, series_cases, series_damage, timed_series
from kernel_workbook.traces import procfs as P

FIX = Path(__file__).parent / "fixtures" / "traces"


def _series(fixture: str = "pagetypeinfo-6.18.txt", snapshots: int = 60) -> str:
    """*snapshots* snapshots of the fixture a second apart, the counts moving, some blank lines."""
    body = (FIX / fixture).read_text().rstrip("\n").split("\n")
    return timed_series(snapshots, lambda s: [
        re.sub(r"(\d+)(\s*)$", lambda m: f"{int(m.group(1)) + (s * 37) % 1001}{m.group(2)}", ln)
        if ln.startswith("Node") else ln for ln in body])


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = len(lines) // 2
    while not lines[mid].startswith("Node") or "type" not in lines[mid]:
        mid += 1
    head = lambda key: next(j for j in range(mid, len(lines)) if lines[j].startswith(key))  # noqa: E731
    done = series_damage(lines, mid, what)
    if done is not None:
        return done
    if what == "missing line":
        del lines[mid]
    elif what == "word":
        lines[mid] = re.sub(r"(\d+)(\s*)$", r"x\1\2", lines[mid])
    elif what == "negative":
        lines[mid] = re.sub(r" (\d+)(\s*)$", r" -\1\2", lines[mid])
    elif what == "20 digits":
        lines[mid] = re.sub(r"(\d+)(\s*)$", r"99999999999999999999\2", lines[mid])
    elif what == "one order less":
        lines[mid] = re.sub(r" +\d+(\s*)$", r"\1", lines[mid])
    elif what == "type renamed, same width":
        lines[mid] = re.sub(r"type( +\w*)\w", r"type\1q", lines[mid])
    elif what == "zone renamed, same width":
        lines[mid] = re.sub(r"zone( +\w*)\w,", r"zone\1q,", lines[mid])
    elif what == "other block order":
        lines[head("Page block order")] = "Page block order: 10"
    elif what == "other orders header":
        j = head("Free pages count")
        lines[j] = lines[j].replace(" 10 ", " 11 ")
    elif what == "cut line":
        return "\n".join(lines[:mid] + [lines[mid][:60]])
    return "\n".join(lines)


_WHAT = ("missing line", "word", "negative", "20 digits", "one order less", "type renamed, same width",
         "zone renamed, same width", "other block order", "other orders header", "cut line") + SERIES_DAMAGE
CASES = series_cases({"6.18": _series(), "3.10 reserve cma": _series("pagetypeinfo-3.10-reserve-cma.txt", 50),
                      "5.10 highatomic cma": _series("pagetypeinfo-5.10-highatomic-cma.txt", 50)}, _damage, _WHAT,
                     (FIX / "pagetypeinfo-6.18.txt").read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_line_reader_give_the_same_frame_or_error(name, monkeypatch):
    assert_fast_is_general(P, P.parse_pagetypeinfo, CASES[name], monkeypatch)


def _fast(text):
    return P._fast_long(text, "<t>", P._pagetypeinfo_lines, P._pagetypeinfo_values, "count")


def test_the_fast_path_reads_the_clean_series_and_nothing_else():
    for clean in ("6.18", "3.10 reserve cma", "5.10 highatomic cma", "fixture repeated"):
        df = _fast(CASES[clean])
        assert df is not None and df["count"].dtype == np.int64, clean
    assert df["sample"].iloc[-1] == 29 and df["time"].iloc[-1] == 1795239303 + 29
    assert df.attrs["page_block_order"] == 9
    for damaged in _WHAT:
        assert _fast(CASES[f"6.18, {damaged}"]) is None, damaged
