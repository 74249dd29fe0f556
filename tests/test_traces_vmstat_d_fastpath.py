"""``vmstat -d``'s one-pass reader (``_fastscan.scan_named_table``) gives the frame, attrs, warnings and errors
of the line reader, on the fixture repeated, generated logs and logs damaged in the middle: every line that is
not a disk and ten integers must be the two header lines, or the line reader reads the file."""

from pathlib import Path

import numpy as np
import pytest

from fastpath_compare import assert_fast_is_general
from kernel_workbook.traces import vmstat as V

FIX = Path(__file__).parent / "fixtures" / "traces"
FIXTURE = (FIX / "vmstat-procps4-d.txt").read_text()


def _generated(reports: int = 300) -> str:
    """*reports* reports of the fixture's disks, the counters growing, vmstat's column widths."""
    lines = FIXTURE.rstrip("\n").split("\n")
    head, disks = lines[:2], [ln.split() for ln in lines[2:]] + [["dm-0"] + ["0"] * 10, ["nvme0n1"] + ["7"] * 10]
    out = []
    for k in range(reports):
        out += head
        for d in disks:
            v = [int(x) + k * (j + 1) for j, x in enumerate(d[1:])]
            out.append(f"{d[0]:<5} {v[0]:6d} {v[1]:6d} {v[2]:7d} {v[3]:7d} {v[4]:6d} {v[5]:6d} {v[6]:7d} "
                       f"{v[7]:7d} {v[8]:6d} {v[9]:6d}")
        if k % 9 == 4:
            out.append("")
    return "\n".join(out) + "\n"


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = len(lines) // 2
    while not lines[mid] or lines[mid].startswith(("disk-", "     ")):
        mid += 1
    t = lines[mid].split()
    if what == "word":
        lines[mid] = lines[mid].replace(t[3], "x" + t[3], 1)
    elif what == "short":
        lines[mid] = " ".join(t[:-1])
    elif what == "long":
        lines[mid] += " 5"
    elif what == "negative":
        lines[mid] = f"{t[0]} -{' '.join(t[1:])}"
    elif what == "20 digits":
        lines[mid] = f"{t[0]} 99999999999999999999 {' '.join(t[2:])}"
    elif what == "no name":
        lines[mid] = " ".join(t[1:]) + " 0"
    elif what == "disk- name":
        lines[mid] = f"disk-9 {' '.join(t[1:])}"
    elif what == "vertical tab":
        lines[mid] = lines[mid].replace(" ", "\v", 1)
    elif what == "CR":
        lines[mid] += "\r"
    elif what == "header missing":
        h = next(j for j in range(mid, len(lines)) if lines[j].startswith("disk-"))
        del lines[h:h + 2]
    elif what == "names line missing":
        h = next(j for j in range(mid, len(lines)) if lines[j].startswith("disk-"))
        del lines[h + 1]
    elif what == "blank between headers":
        h = next(j for j in range(mid, len(lines)) if lines[j].startswith("disk-"))
        lines.insert(h + 1, "")
    elif what == "timestamp header":
        h = next(j for j in range(mid, len(lines)) if lines[j].startswith("disk-"))
        lines[h] += " -----timestamp-----"
        lines[h + 1] += " UTC"
    elif what == "headers swapped":
        h = next(j for j in range(mid, len(lines)) if lines[j].startswith("disk-"))
        lines[h], lines[h + 1] = lines[h + 1], lines[h]
    elif what == "translated names line":
        h = next(j for j in range(mid, len(lines)) if lines[j].startswith("disk-"))
        lines[h + 1] = lines[h + 1][:-3] + "seg"
    elif what == "prompt":
        lines.insert(mid, "$ vmstat -d 1")
    elif what == "cut line":
        return "\n".join(lines[:mid] + [lines[mid][:20]])
    elif what == "cut at a header":
        h = next(j for j in range(mid, len(lines)) if lines[j].startswith("disk-"))
        return "\n".join(lines[:h + 1])
    elif what == "data first":
        lines.insert(0, lines[mid])
    return "\n".join(lines)


CASES = {"generated": _generated(), "fixture repeated": FIXTURE * 60, "no final newline": _generated().rstrip("\n")}
for _w in ("word", "short", "long", "negative", "20 digits", "no name", "disk- name", "vertical tab", "CR",
           "header missing", "names line missing", "blank between headers", "timestamp header", "prompt",
           "cut line", "cut at a header", "data first", "headers swapped", "translated names line"):
    CASES[f"generated, {_w}"] = _damage(CASES["generated"], _w)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_line_reader_give_the_same_frame_or_error(name, monkeypatch):
    assert_fast_is_general(V, V.parse_vmstat_disk, CASES[name], monkeypatch)


def test_the_fast_path_reads_the_clean_log_and_nothing_else():
    df = V._fast_vmstat_disk(CASES["generated"], "<g>")
    assert df is not None and len(df) == 300 * 12 and df["reads_total"].dtype == np.int64
    assert df["sample"].iloc[-1] == 299 and df["disk"].iloc[-1] == "nvme0n1"
    assert V._fast_vmstat_disk(CASES["fixture repeated"], "<g>") is not None
    # for the line reader too, a line of eleven numbers is a disk named by its first ("no name"), and a report
    # without its headers continues the one before ("header missing")
    for damaged in ("word", "short", "long", "negative", "20 digits", "disk- name", "vertical tab",
                    "names line missing", "blank between headers", "timestamp header", "prompt",
                    "cut line", "cut at a header", "data first", "headers swapped", "translated names line"):
        assert V._fast_vmstat_disk(CASES[f"generated, {damaged}"], "<g>") is None, damaged
