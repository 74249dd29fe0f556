"""/proc/meminfo's one-pass series reader (``_fastscan.scan_series`` with padded fields and units) gives the
frame, attrs, warnings and errors of the line reader, on fixtures and generated series, clean and damaged in
the middle: what it cannot read as one clean series it leaves to the line reader."""

from pathlib import Path

import numpy as np
import pytest

from fastpath_compare import SERIES_DAMAGE, assert_fast_is_general, middle_line, series_damage, timed_series
from kernel_workbook.traces import procfs as P

FIX = Path(__file__).parent / "fixtures" / "traces"


def _series(snapshots: int = 150) -> str:
    """*snapshots* copies of the 6.18 fixture a second apart, every field grown by its index, some blank lines."""
    first = [ln for ln in (FIX / "meminfo-6.18.txt").read_text().split("\n") if ln.strip()]
    def lines_of(s):
        out = []
        for i, ln in enumerate(first):
            k, rest = ln.split(":", 1)
            v, *unit = rest.split()
            pad = " " * max(1, 16 - len(k) - len(v) % 3)
            out.append(f"{k}:{pad}{int(v) + s * i}{' ' + unit[0] if unit else ''}")
        return out

    return timed_series(snapshots, lines_of)


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = middle_line(lines)
    k, rest = lines[mid].split(":", 1)
    done = series_damage(lines, mid, what)
    if done is not None:
        return done
    if what == "missing field":
        del lines[mid]
    elif what == "word":
        lines[mid] = f"{k}: x{rest.strip()}"
    elif what == "other unit":
        lines[mid] = lines[mid].replace(" kB", " MB") if " kB" in lines[mid] else lines[mid] + " kB"
    elif what == "unit lost":
        lines[mid] = lines[mid].replace(" kB", "")
    elif what == "tab":
        lines[mid] = f"{k}:\t{rest.strip()}"
    elif what == "negative":
        lines[mid] = f"{k}: -{rest.strip()}"
    elif what == "20 digits":
        lines[mid] = f"{k}: 99999999999999999999 kB"
    elif what == "node prefix":
        lines[mid] = f"Node 0 {lines[mid]}"
    elif what == "epoch line":
        t = next(j for j in range(mid, len(lines)) if lines[j].startswith("time:"))
        lines[t] = "1795239999"
    elif what == "cut line":
        return "\n".join(lines[:mid] + [lines[mid][:len(k) + 6]])
    return "\n".join(lines)


CASES = {"6.18": _series()}
for _w in ("missing field", "word", "other unit", "unit lost", "tab", "negative", "20 digits", "node prefix",
           "epoch line", "cut line") + SERIES_DAMAGE:
    CASES[f"6.18, {_w}"] = _damage(CASES["6.18"], _w)
CASES["fixture repeated"] = "".join(f"time: {1795239303 + s}\n" + (FIX / "meminfo-6.18.txt").read_text()
                                    for s in range(40))
_last = CASES["6.18"].rstrip("\n").split("\n")
_last[-3] = _last[-3].replace(" kB", " MB")
CASES["other unit in the last snapshot"] = "\n".join(_last) + "\n"
CASES["per-node series"] = "\n".join(ln if ln.startswith("time:") or not ln else f"Node 0 {ln}"
                                     for ln in CASES["6.18"].split("\n"))
CASES["no final newline"] = CASES["6.18"].rstrip("\n")
CASES["2.4 table"] = "".join(f"time: {1795239303 + s}\n" + (FIX / "meminfo-2.4.2.txt").read_text()
                             for s in range(40))


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_line_reader_give_the_same_frame_or_error(name, monkeypatch):
    assert_fast_is_general(P, P.parse_meminfo, CASES[name], monkeypatch)


def test_the_fast_path_reads_the_clean_series_and_nothing_else():
    df = P._fast_meminfo(CASES["6.18"], "<t>")
    assert df is not None and len(df) == 150 and df["MemFree"].dtype == np.int64
    assert df["time"].iloc[1] == 1795239304.15 and df.attrs["units"]["MemFree"] == "kB"
    assert "HugePages_Total" not in df.attrs["units"]
    assert P._fast_meminfo(CASES["fixture repeated"], "<t>") is not None
    for damaged in ("missing field", "word", "other unit", "unit lost", "tab", "20 digits", "node prefix",
                    "date line", "prompt", "cut snapshot", "cut line", "swapped", "duplicate", "CR",
                    "empty snapshot"):
        assert P._fast_meminfo(CASES[f"6.18, {damaged}"], "<t>") is None, damaged
    for other in ("2.4 table", "other unit in the last snapshot", "per-node series"):
        assert P._fast_meminfo(CASES[other], "<t>") is None, other
