"""/proc/vmstat's one-pass series reader (``_fastscan.scan_series``) gives the frame, attrs, warnings and errors
of the general reader, on fixtures and generated series, clean and damaged in the middle: what it cannot read
as one clean series it leaves to the general reader."""

from pathlib import Path

import numpy as np
import pytest

from fastpath_compare import assert_fast_is_general, middle_line, series_damage, timed_series
from kernel_workbook.traces import procvmstat as P

FIX = Path(__file__).parent / "fixtures" / "traces"


def _series(fixture: str = "proc-vmstat-6.18-series.txt", snapshots: int = 200) -> str:
    """*snapshots* snapshots of the fixture's first one, a second apart, every counter grown by its index."""
    first = (FIX / fixture).read_text().split("time:")[1].split("\n")[1:]
    pairs = [ln.split() for ln in first if ln.strip()]
    return timed_series(snapshots, lambda s: [f"{k} {int(v) + s * i}" for i, (k, v) in enumerate(pairs)])


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = middle_line(lines)
    k, v = lines[mid].split()
    done = series_damage(lines, mid, what)
    if done is not None:
        return done
    if what == "missing counter":
        del lines[mid]
    elif what == "word":
        lines[mid] = f"{k} x{v}"
    elif what == "reset":
        lines[mid] = f"{k} 0" if not k.startswith("nr_") else lines[mid]
        if k.startswith("nr_"):
            j = next(j for j in range(mid, len(lines)) if lines[j].startswith("pgfault "))
            lines[j] = "pgfault 0"
    elif what == "clock back":
        t = next(j for j in range(mid, len(lines)) if lines[j].startswith("time:"))
        lines[t] = "time: 1000"
    return "\n".join(lines)


CASES = {"6.18": _series(), "2.6.23": _series("proc-vmstat-2.6.23-series.txt", 400)}
for _w in ("missing counter", "word", "reset", "clock back", "date line", "prompt", "cut snapshot", "swapped",
           "duplicate"):
    CASES[f"6.18, {_w}"] = _damage(CASES["6.18"], _w)
CASES["fixture repeated"] = (FIX / "proc-vmstat-6.18-series.txt").read_text() * 40


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_general_give_the_same_frame_or_error(name, monkeypatch):
    assert_fast_is_general(P, P.parse_proc_vmstat, CASES[name], monkeypatch)


def test_the_fast_path_reads_the_clean_series_and_nothing_else():
    df = P._fast_series(CASES["6.18"], "<t>")
    assert df is not None and len(df) == 200 and df["pgfault"].dtype == np.int64
    assert df["time"].iloc[1] == 1795239304.15
    for name in CASES:
        if "," in name or name == "fixture repeated":
            assert P._fast_series(CASES[name], "<t>") is None, name
