"""/proc/zoneinfo's one-pass series reader (``_fastscan.scan_template``: the first snapshot's lines with other
numbers) gives the frame, attrs, warnings and errors of the line reader, on fixtures and generated series,
clean and damaged in the middle: what it cannot read as one clean series it leaves to the line reader."""

import re
from pathlib import Path

import numpy as np
import pytest

from fastpath_compare import SERIES_DAMAGE, assert_fast_is_general, series_cases, series_damage, timed_series
from kernel_workbook.traces import procfs as P

FIX = Path(__file__).parent / "fixtures" / "traces"


def _series(fixture: str = "zoneinfo-6.18.txt", snapshots: int = 60) -> str:
    """*snapshots* snapshots of the fixture a second apart, each line's last number moving, some blank lines."""
    body = [ln for ln in (FIX / fixture).read_text().rstrip("\n").split("\n")]
    return timed_series(snapshots, lambda s: [
        re.sub(r"(\d+)(\)?\s*)$", lambda m: f"{int(m.group(1)) + (s * 37) % 1001}{m.group(2)}", ln)
        if not ln.lstrip().startswith(("Node", "cpu:")) else ln for ln in body])


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = len(lines) // 2
    while not re.search(r"[a-z_] +\d+$", lines[mid]):
        mid += 1
    done = series_damage(lines, mid, what)
    if done is not None:
        return done
    if what == "missing line":
        del lines[mid]
    elif what == "word":
        lines[mid] = re.sub(r"(\d+)$", r"x\1", lines[mid])
    elif what == "negative":
        lines[mid] = re.sub(r" (\d+)$", r" -\1", lines[mid])
    elif what == "20 digits":
        lines[mid] = re.sub(r"(\d+)$", "99999999999999999999", lines[mid])
    elif what == "other padding":
        lines[mid] = " " + lines[mid]
    elif what == "other counter":
        lines[mid] = re.sub(r"^(\s*)\w+", r"\1nr_renamed", lines[mid])
    elif what == "counter renamed, same width":
        lines[mid] = re.sub(r"^(\s*\w*)\w(\s)", r"\1q\2", lines[mid])
    elif what == "zone renamed, same width":
        z = next(j for j in range(mid, len(lines)) if lines[j].startswith("Node"))
        lines[z] = lines[z][:-1] + "q"
    elif what == "zone moved":
        z = next(j for j in range(mid, len(lines)) if lines[j].startswith("Node"))
        lines[z] = lines[z].replace("zone ", "zone  ")
    elif what == "other cpu":
        c = next(j for j in range(mid, len(lines)) if lines[j].strip().startswith("cpu:"))
        lines[c] = lines[c].replace("cpu: ", "cpu: 1")
    elif what == "protection changed":
        p = next(j for j in range(mid, len(lines)) if "protection:" in lines[j])
        lines[p] = lines[p].replace(", ", ",  ", 1)
    elif what == "cut line":
        return "\n".join(lines[:mid] + [lines[mid].rstrip("0123456789")])
    return "\n".join(lines)


_WHAT = ("missing line", "word", "counter renamed, same width", "zone renamed, same width", "negative", "20 digits",
         "other padding", "other counter", "zone moved", "other cpu", "protection changed",
         "cut line") + SERIES_DAMAGE
CASES = series_cases({"6.18": _series(), "4.x two nodes": _series("zoneinfo-4.x-two-nodes.txt", 40),
                      "2.6.18 pcp": _series("zoneinfo-2.6.18-pcp.txt", 40)}, _damage, _WHAT,
                     (FIX / "zoneinfo-6.18.txt").read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_line_reader_give_the_same_frame_or_error(name, monkeypatch):
    assert_fast_is_general(P, P.parse_zoneinfo, CASES[name], monkeypatch)


def test_the_fast_path_reads_the_clean_series_and_nothing_else():
    for clean in ("6.18", "4.x two nodes", "2.6.18 pcp", "fixture repeated"):
        df = P._fast_zoneinfo(CASES[clean], "<t>")
        assert df is not None and df["value"].dtype == np.int64, clean
    assert df["sample"].iloc[-1] == 29 and df["time"].iloc[-1] == 1795239303 + 29
    for damaged in _WHAT:
        assert P._fast_zoneinfo(CASES[f"6.18, {damaged}"], "<t>") is None, damaged
