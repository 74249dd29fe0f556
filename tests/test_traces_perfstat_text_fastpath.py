"""``perf stat -I 1000`` text logs (C locale) read by the one-pass reader (``perfstat._fast_text_intervals`` over
``_fastperf.scan_fields`` with blank-separated fields) give the frame, attrs, warnings and errors of the line
reader, clean and damaged in the middle, and the fast path takes the clean logs (so these comparisons compare
something)."""

import random

import pytest

from fastpath_compare import PERF_EVENTS, assert_fast_is_general, assert_takes
from kernel_workbook.traces import perfstat as P

# as perf 6.x prints -I (stat-display.c): time, count right-aligned, unit, event padded, '# metric unit'
EVENTS = PERF_EVENTS


def _log(intervals: int = 550, seed: int = 1) -> str:
    rnd = random.Random(seed)
    out = ["# started on Sat Nov 21 05:36:10 2026", "", "#           time             counts unit events"]
    for k in range(intervals):
        t = 1.001057041 + k
        for unit, ev, mu in EVENTS:
            v = f"{rnd.uniform(1000, 2100):.2f}" if unit else str(rnd.randrange(0, 10 ** rnd.randrange(1, 8)))
            if mu == "/sec":
                mu = rnd.choice(["/sec", "K/sec", "M/sec"])
            met = f"#  {rnd.uniform(0, 999):7.3f} {mu:<20s}" if mu else ""
            out.append(f"{t:16.9f} {v:>18s} {unit:<5s}{ev:<32s} {met}".rstrip() + " " * rnd.randrange(0, 3))
    return "\n".join(out) + "\n"


CLEAN = _log()


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = len(lines) // 2
    while "task-clock" in lines[mid] or "#" not in lines[mid]:
        mid += 1
    ln = lines[mid]
    t, v = ln.split()[:2]
    if what == "not counted":
        lines[mid] = ln.replace(f" {v} ", " <not counted> ", 1).split("#")[0]
    elif what == "not supported":
        lines[mid] = ln.replace(f" {v} ", " <not supported> ", 1).split("#")[0]
    elif what == "multiplexed":
        lines[mid] = ln.rstrip() + "  (50.00%)"
    elif what == "per-cpu label":
        lines[mid] = ln.replace(f"{t} ", f"{t} CPU0 ", 1)
    elif what == "workload message":
        lines.insert(mid, "200000+0 records in")
    elif what == "comment":
        lines.insert(mid, "# a note")
    elif what == "summary":
        lines += ["", " Performance counter stats for 'system wide':", "",
                  "          2002.67 msec task-clock                       #    2.003 CPUs utilized", "",
                  "       1.001057041 seconds time elapsed", ""]
    elif what == "negative count":
        lines[mid] = ln.replace(f" {v} ", f" -{v} ", 1)
    elif what == "grouped count":
        lines[mid] = ln.replace(f" {v} ", " 1,234,567 ", 1)
    elif what == "time without a dot":
        lines[mid] = ln.replace(t, t.split(".")[0], 1)
    elif what == "metric line":
        lines.insert(mid + 1, " " * 57 + "#    1.48  stalled cycles per insn")
    elif what == "CR":
        lines[mid] += "\r"
    elif what == "tabs":
        lines[mid] = ln.replace(" ", "\t")
    elif what == "long line":
        lines[mid] = ln + " " * 1000
    elif what == "missing line":
        del lines[mid]
    elif what == "swapped":
        lines[mid], lines[mid + 1] = lines[mid + 1], lines[mid]
    elif what == "word more":
        lines[mid] = ln.replace("#", "extra #", 1)
    elif what == "cut line":
        return "\n".join(lines[:mid] + [ln[:40]])
    elif what == "cut interval":
        return "\n".join(lines[:mid]) + "\n"
    elif what == "blank line":
        lines.insert(mid, "   ")
    elif what == "metric with percent":
        lines[mid] = ln.split("#")[0] + "#    12.50% frontend cycles idle"
    elif what == "bracket in metric unit":
        lines[mid] = ln.split("#")[0] + "#    12.50 of all [x]"
    elif what == "16 digits":
        lines[mid] = ln.replace(f" {v} ", " 1234567890123456 ", 1)
    elif what == "renamed event":
        ev = ln.split()[2]
        lines[mid] = ln.replace(f" {ev} ", f" {ev}x ", 1)
    elif what == "no metric":
        lines[mid] = ln.split("#")[0]
    return "\n".join(lines)


_WHAT = ("not counted", "not supported", "multiplexed", "per-cpu label", "workload message", "comment", "summary",
         "negative count", "grouped count", "time without a dot", "metric line", "CR", "tabs", "long line",
         "missing line", "swapped", "word more", "cut line", "cut interval", "blank line", "metric with percent",
         "bracket in metric unit", "16 digits", "renamed event", "no metric")
CASES = {"clean": CLEAN, "no final newline": CLEAN.rstrip("\n"), "no header": CLEAN.split("\n", 3)[3]}
for _w in _WHAT:
    CASES[f"damaged: {_w}"] = _damage(CLEAN, _w)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_line_reader_give_the_same_frame_or_error(name, monkeypatch):
    assert_fast_is_general(P, P.parse_perf_stat, CASES[name], monkeypatch)


def test_the_fast_path_reads_clean_logs_and_leaves_damage_to_the_line_reader():
    df = P._fast_text_intervals(CLEAN, "<t>")
    assert df is not None and len(df) == 550 * len(EVENTS)
    assert set(df["metric_unit"]) == {"CPUs utilized", "/sec", "K/sec", "M/sec", ""}
    assert df.loc[df["metric_unit"] == "", "metric_value"].isna().all()
    takes = ("no final newline", "no header", "damaged: CR", "damaged: tabs", "damaged: blank line",
             "damaged: cut interval")
    refuses = ("not counted", "not supported", "multiplexed", "per-cpu label", "workload message", "comment",
               "summary", "negative count", "time without a dot", "metric line", "long line", "missing line",
               "swapped", "word more", "cut line", "metric with percent", "bracket in metric unit", "16 digits",
               "renamed event", "no metric")
    assert_takes(lambda t: P._fast_text_intervals(t, "<t>"), CASES, takes, [f"damaged: {w}" for w in refuses])
