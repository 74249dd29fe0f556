"""``perf stat -I 1000 -j`` logs read by the one-pass reader (``perfstat._fast_json_intervals`` over
``_fastperf.scan_fields``) give the frame, attrs, warnings and errors of the JSON reader, clean and damaged in the
middle, and the fast path takes the clean logs (so these comparisons compare something)."""

import random

import pytest

from fastpath_compare import PERF_EVENTS, assert_fast_is_general, assert_takes
from kernel_workbook.traces import perfstat as P

# as perf 6.x prints -j (stat-display.c): one object a counter, counts and metric values as strings
EVENTS = PERF_EVENTS


def _obj(t, v, unit, ev, run, pct, mv, mu) -> str:
    return (f'{{"interval" : {t}, "counter-value" : "{v}", "unit" : "{unit}", "event" : "{ev}", "event-runtime" : '
            f'{run}, "pcnt-running" : {pct}, "metric-value" : "{mv}", "metric-unit" : "{mu}"}}')


def _log(intervals: int = 300, seed: int = 1) -> str:
    rnd = random.Random(seed)
    out = []
    for k in range(intervals):
        t = f"{1.001057041 + k:.9f}"
        for unit, ev, mu in EVENTS:
            v = f"{rnd.uniform(1000, 2100):.6f}" if unit else str(rnd.randrange(0, 10 ** rnd.randrange(1, 8)))
            if mu == "/sec":
                mu = rnd.choice(["/sec", "K/sec", "M/sec"])
            mv = f"{rnd.uniform(0, 999):.3f}" if mu else "0"
            out.append(_obj(t, v, unit, ev, 2002670000 + k, rnd.choice(["100.00", "99.87"]), mv, mu))
    return "\n".join(out) + "\n"


CLEAN = _log()


def _damage(text: str, what: str) -> str:
    lines = text.split("\n")
    mid = len(lines) // 2
    ln = lines[mid]
    if what == "not counted":
        lines[mid] = ln.replace('"counter-value" : "', '"counter-value" : "<not counted>', 1)
    elif what == "workload message":
        lines.insert(mid, "200000+0 records in")
    elif what == "missing line":
        del lines[mid]
    elif what == "swapped":
        lines[mid], lines[mid + 1] = lines[mid + 1], lines[mid]
    elif what == "CR":
        lines[mid] += "\r"
    elif what == "other spacing":
        lines[mid] = ln.replace('" : ', '": ')
    elif what == "key more":
        lines[mid] = ln[:-1] + ', "metric-threshold" : "good"}'
    elif what == "cpu key":
        lines[mid] = '{"cpu" : "0", ' + ln[1:]
    elif what == "cut line":
        return "\n".join(lines[:mid] + [ln[:40]])
    elif what == "cut interval":
        return "\n".join(lines[:mid]) + "\n"
    elif what == "escape in unit":
        lines[mid] = ln.replace('"metric-unit" : "', '"metric-unit" : "\\u0041', 1)
    elif what == "comma in unit":
        lines[mid] = ln.replace('"metric-unit" : "', '"metric-unit" : "a, b', 1)
    elif what == "leading zero":
        lines[mid] = ln.replace('"event-runtime" : ', '"event-runtime" : 0', 1)
    elif what == "exponent":
        lines[mid] = ln.replace('"event-runtime" : ', '"event-runtime" : 1e', 1)
    elif what == "negative":
        lines[mid] = ln.replace('"pcnt-running" : ', '"pcnt-running" : -', 1)
    elif what == "quoted interval":
        i = ln.index(",")
        lines[mid] = '{"interval" : "' + ln[len('{"interval" : '):i] + '"' + ln[i:]
    elif what == "other unit":
        lines[mid] = ln.replace('"metric-unit" : "', '"metric-unit" : "G', 1)
    elif what == "renamed event":
        lines[mid] = ln.replace('"event" : "', '"event" : "x', 1)
    elif what == "blank line":
        lines.insert(mid, "  ")
    elif what == "not an object":
        lines[mid] = "[1, 2]"
    elif what == "empty metric unit":
        lines[mid] = ln.rsplit('"metric-unit" : "', 1)[0] + '"metric-unit" : ""}'
    return "\n".join(lines)


_WHAT = ("not counted", "workload message", "missing line", "swapped", "CR", "other spacing", "key more", "cpu key",
         "cut line", "cut interval", "escape in unit", "comma in unit", "leading zero", "exponent", "negative",
         "quoted interval", "other unit", "renamed event", "blank line", "not an object", "empty metric unit")
CASES = {"clean": CLEAN, "no final newline": CLEAN.rstrip("\n")}
for _w in _WHAT:
    CASES[f"damaged: {_w}"] = _damage(CLEAN, _w)


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_json_reader_give_the_same_frame_or_error(name, monkeypatch):
    assert_fast_is_general(P, P.parse_perf_stat, CASES[name], monkeypatch)


def test_the_fast_path_reads_clean_logs_and_leaves_damage_to_the_json_reader():
    df = P._fast_json_intervals(CLEAN, "<t>")
    assert df is not None and len(df) == 300 * len(EVENTS)
    assert set(df["metric_unit"]) == {"CPUs utilized", "/sec", "K/sec", "M/sec", ""}
    assert df.loc[df["metric_unit"] == "", "metric_value"].isna().all()  # perf's 0 beside no unit: no value
    takes = ("no final newline", "damaged: CR", "damaged: blank line", "damaged: negative", "damaged: other unit",
             "damaged: cut interval", "damaged: empty metric unit")
    refuses = ("not counted", "workload message", "missing line", "swapped", "other spacing", "key more",
               "cpu key", "cut line", "escape in unit", "comma in unit", "leading zero", "exponent",
               "quoted interval", "renamed event", "not an object")
    assert_takes(lambda t: P._fast_json_intervals(t, "<t>"), CASES, takes, [f"damaged: {w}" for w in refuses])
