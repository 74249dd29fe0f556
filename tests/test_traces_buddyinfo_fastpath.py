"""/proc/buddyinfo's one-pass series reader (``_fastscan.scan_series`` with a line's orders read together)
gives the frame, attrs, warnings and errors of the line reader, on fixtures and generated series, clean and
damaged in the middle: what it cannot read as one clean series it leaves to the line reader."""

from pathlib import Path

import numpy as np
import pytest

from fastpath_compare import SERIES_DAMAGE, assert_fast_is_general, middle_line, series_damage, timed_series
from kernel_workbook.traces import procfs as P

FIX = Path(__file__).parent / "fixtures" / "traces"
FIRST = [ln for ln in (FIX / "buddyinfo-6.18.txt").read_text().split("\n") if ln.strip()]


def _series(snapshots: int = 400, zones=FIRST) -> str:
    """*snapshots* snapshots of the fixture's zones a second apart, the counts moving, some blank lines."""
    def lines_of(s):
        out = []
        for i, ln in enumerate(zones):
            m = P._BUDDY_RE.match(ln)
            head, counts = ln[:m.start(3)], m.group(3).split()
            out.append(head + "".join(f" {int(c) + (s * (i + j)) % 1000:6d}" for j, c in enumerate(counts)) + " ")
        return out

    return timed_series(snapshots, lines_of)


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = middle_line(lines)
    t = lines[mid].split()
    done = series_damage(lines, mid, what)
    if done is not None:
        return done
    if what == "missing zone":
        del lines[mid]
    elif what == "word":
        lines[mid] = lines[mid].replace(f" {t[-1]} ", f" x{t[-1]} ")
    elif what == "one order less":
        lines[mid] = lines[mid].rstrip().rsplit(" ", 1)[0]
    elif what == "one order more":
        lines[mid] += " 7"
    elif what == "negative":
        lines[mid] = lines[mid].replace(f" {t[-1]} ", f" -{t[-1]} ")
    elif what == "20 digits":
        lines[mid] = lines[mid].replace(f" {t[-1]} ", " 99999999999999999999 ")
    elif what == "other padding":
        lines[mid] = lines[mid].replace("zone ", "zone  ", 1)
    elif what == "tab":
        lines[mid] = lines[mid].replace(" ", "\t", 5)
    elif what == "cut line":
        return "\n".join(lines[:mid] + [lines[mid][:40]])
    return "\n".join(lines)


CASES = {"6.18": _series()}
_WHAT = ("missing zone", "word", "one order less", "one order more", "negative", "20 digits", "other padding",
         "tab", "cut line") + SERIES_DAMAGE
for _w in _WHAT:
    CASES[f"6.18, {_w}"] = _damage(CASES["6.18"], _w)
CASES["fixture repeated"] = "".join(f"time: {1795239303 + s}\n" + (FIX / "buddyinfo-6.18.txt").read_text()
                                    for s in range(200))
CASES["no final newline"] = CASES["6.18"].rstrip("\n")
CASES["two nodes, 13 orders"] = _series(300, [ln.replace("Node 0", f"Node {n}") + " 0 0" for n in (0, 1)
                                              for ln in FIRST])
CASES["a zone twice in the first snapshot"] = _series(300, FIRST + FIRST[:1])


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_line_reader_give_the_same_frame_or_error(name, monkeypatch):
    assert_fast_is_general(P, P.parse_buddyinfo, CASES[name], monkeypatch)


def test_the_fast_path_reads_the_clean_series_and_nothing_else():
    df = P._fast_buddyinfo(CASES["6.18"], "<t>")
    assert df is not None and len(df) == 400 * 3 and df["order_10"].dtype == np.int64
    assert df["time"].iloc[3] == 1795239304.15 and df["zone"].iloc[-1] == "Normal" and df["sample"].iloc[-1] == 399
    assert P._fast_buddyinfo(CASES["fixture repeated"], "<t>") is not None
    assert P._fast_buddyinfo(CASES["two nodes, 13 orders"], "<t>").attrs["orders"] == 13
    for damaged in _WHAT:
        assert P._fast_buddyinfo(CASES[f"6.18, {damaged}"], "<t>") is None, damaged
    assert P._fast_buddyinfo(CASES["a zone twice in the first snapshot"], "<t>") is None
