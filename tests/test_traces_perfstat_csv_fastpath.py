"""``perf stat -I 1000 -x,`` logs read by the one-pass reader (``perfstat._fast_intervals`` over
``_fastperf.scan_fields``) give the frame, attrs, warnings and errors of the line reader, clean and damaged in the
middle, and the fast path takes the clean logs (so these comparisons compare something)."""

import random

import pytest

from fastpath_compare import PERF_EVENTS, assert_fast_is_general, assert_takes
from kernel_workbook.traces import perfstat as P

# one interval as perf 6.x prints it under -x, (stat-display.c): time, count, unit, event, run time, enabled %,
# metric value, metric unit; the metric's unit is scaled per interval (/sec, K/sec, M/sec)
EVENTS = PERF_EVENTS


def _log(intervals: int = 600, seed: int = 1) -> str:
    rnd = random.Random(seed)
    out = ["# started on Sat Nov 21 05:36:10 2026", ""]
    for k in range(intervals):
        t = 1.001057041 + k
        for unit, ev, mu in EVENTS:
            if unit:
                v = f"{rnd.uniform(1000, 2100):.2f}"
            else:
                v = str(rnd.randrange(0, 10 ** rnd.randrange(1, 8)))
            if mu == "/sec":
                mu = rnd.choice(["/sec", "K/sec", "M/sec"])
            mv = "" if not mu else f"{rnd.uniform(0, 999):.3f}"
            out.append(f"{t:16.9f},{v},{unit},{ev},{2002670000 + k},{rnd.choice(['100.00', '99.87'])},{mv},{mu}")
    return "\n".join(out) + "\n"


CLEAN = _log()


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = len(lines) // 2
    f = lines[mid].split(",")
    if what == "not counted":
        f[1] = "<not counted>"
        f[6:] = ["", ""]
        lines[mid] = ",".join(f)
    elif what == "workload message":
        lines.insert(mid, "200000+0 records in")
    elif what == "started on again":
        lines.insert(mid, "# started on Sat Nov 21 05:46:10 2026")
    elif what == "field more":
        lines[mid] += ","
    elif what == "field less":
        lines[mid] = ",".join(f[:-1])
    elif what == "missing line":
        del lines[mid]
    elif what == "swapped":
        lines[mid], lines[mid + 1] = lines[mid + 1], lines[mid]
    elif what == "CR":
        lines[mid] += "\r"
    elif what == "blanks around fields":
        lines[mid] = " , ".join(f)
    elif what == "tab":
        lines[mid] = "\t" + lines[mid]
    elif what == "cut line":
        return "\n".join(lines[:mid] + [lines[mid][:30]])
    elif what == "cut interval":
        return "\n".join(lines[:mid]) + "\n"
    elif what == "summary":
        lines += ["summary," + ",".join(ln.split(",")[1:]) for ln in lines[2:9]]
    elif what == "16 digits":
        f[1] = "1234567890123456"
        lines[mid] = ",".join(f)
    elif what == "exponent":
        f[1] = "1e5"
        lines[mid] = ",".join(f)
    elif what == "plus sign":
        f[1] = "+5"
        lines[mid] = ",".join(f)
    elif what == "leading dot":
        f[4] = ".5"
        lines[mid] = ",".join(f)
    elif what == "negative":
        f[1] = "-" + f[1]
        lines[mid] = ",".join(f)
    elif what == "grouped count":
        f[1] = "1.234.567"
        lines[mid] = ",".join(f)
    elif what == "empty count":
        f[1] = ""
        lines[mid] = ",".join(f)
    elif what == "empty run time":
        f[4] = ""
        lines[mid] = ",".join(f)
    elif what == "other unit":
        f[7] = "G/sec"
        lines[mid] = ",".join(f)
    elif what == "renamed event":
        f[3] = f[3] + "x"
        lines[mid] = ",".join(f)
    elif what == "variance":
        lines[mid] = ",".join(f[:4] + ["1.23%"] + f[4:])
    elif what == "per-cpu label":
        lines[mid] = ",".join(f[:1] + ["CPU0"] + f[1:])
    elif what == "blank line":
        lines.insert(mid, "   ")
    return "\n".join(lines)


_WHAT = ("not counted", "workload message", "started on again", "field more", "field less", "missing line", "swapped",
         "CR", "blanks around fields", "tab", "cut line", "cut interval", "summary", "16 digits", "exponent",
         "plus sign", "leading dot", "negative", "grouped count", "empty count", "empty run time", "other unit",
         "renamed event", "variance", "per-cpu label", "blank line")
CASES = {"clean": CLEAN, "no final newline": CLEAN.rstrip("\n"), "semicolons": CLEAN.replace(",", ";"),
         "no header": CLEAN.split("\n", 2)[2]}
for _w in _WHAT:
    CASES[f"damaged: {_w}"] = _damage(CLEAN, _w)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_line_reader_give_the_same_frame_or_error(name, monkeypatch):
    assert_fast_is_general(P, P.parse_perf_stat, CASES[name], monkeypatch)


def test_the_fast_path_reads_clean_logs_and_leaves_damage_to_the_line_reader():
    df = P._fast_intervals(CLEAN, "<t>", ",")
    assert df is not None and len(df) == 600 * len(EVENTS)
    assert set(df["metric_unit"]) == {"CPUs utilized", "/sec", "K/sec", "M/sec", ""}
    assert P._fast_intervals(CASES["semicolons"], "<t>", ";") is not None
    takes = ("no final newline", "no header", "damaged: blank line", "damaged: CR",
             "damaged: blanks around fields", "damaged: negative", "damaged: other unit", "damaged: cut interval")
    refuses = ("not counted", "workload message", "started on again", "field more", "field less", "missing line",
               "swapped", "cut line", "summary", "16 digits", "exponent", "plus sign", "leading dot",
               "grouped count", "empty count", "renamed event", "variance", "per-cpu label")
    assert_takes(lambda t: P._fast_intervals(t, "<t>", ","), CASES, takes, [f"damaged: {w}" for w in refuses])
