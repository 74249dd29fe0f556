"""Hypothesis fuzzes every trace parser: the only exception that may escape is WorkbookParseError.

Inputs are real fixtures mutated (lines cut, doubled, swapped, truncated, characters and tokens
replaced) and plain random text.  KWB_FUZZ_EXAMPLES sets the number of cases per parser (2000 in CI).
"""

import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_workbook.errors import WorkbookParseError
from kernel_workbook import traces as T

FIX = Path(__file__).parent / "fixtures" / "traces"
N = int(os.environ.get("KWB_FUZZ_EXAMPLES", "2000"))


def seeds(*names, limit=6000):
    out = []
    for n in names:
        t = (FIX / n).read_text()
        out.append(t[:limit])
    return out


TOKENS = ["", " ", "\n", "\t", "0", "-1", "1e308", "99999999999999999999999", "nan", "x", "procs", " r  b ",
          "time: ", "Device", "Device:", "avg-cpu:", "Node 0, zone", "--", "|--", "---", "#", ",", ";",
          "<not counted>", "( +- 1.0% )", "[k] ", "{", "}", "\"jobs\"", "\x00", "é", "::", "%", "/", "  "]


@st.composite
def mutated(draw, texts):
    text = draw(st.sampled_from(texts))
    lines = text.split("\n")
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.integers(0, 6))
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        if not lines:
            lines = [""]
        if op == 0:
            del lines[i:i + 1]
        elif op == 1:
            lines.insert(i, lines[min(i, len(lines) - 1)])
        elif op == 2:
            j = draw(st.integers(0, max(0, len(lines) - 1)))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            ln = lines[i]
            k = draw(st.integers(0, len(ln)))
            lines[i] = ln[:k] + draw(st.sampled_from(TOKENS)) + ln[k + draw(st.integers(0, 4)):]
        elif op == 4:
            ln = lines[i]
            lines[i] = ln[: draw(st.integers(0, len(ln)))]
        elif op == 5:
            lines = lines[: i + 1]
        else:
            lines.insert(i, draw(st.text(max_size=40)))
    out = "\n".join(lines)
    if draw(st.booleans()):
        out = out[: draw(st.integers(0, len(out)))]
    return out


def strategy(texts):
    return st.one_of(mutated(texts), mutated(texts), mutated(texts), st.text(max_size=200))


def check(fn, text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(text)
        except WorkbookParseError:
            pass


CASES = {
    "vmstat": (T.parse_vmstat, seeds("vmstat-procps4.txt", "vmstat-procps4-wt.txt", "vmstat-procps3.2-nost.txt",
                                     "vmstat-mmtests-latency.txt", "vmstat-procps3.3-repeated-headers.txt")),
    "vmstat-d": (T.parse_vmstat_disk, seeds("vmstat-procps4-d.txt")),
    "vmstat-s": (T.parse_vmstat_summary, seeds("vmstat-procps4-s.txt")),
    "proc-vmstat": (T.parse_proc_vmstat, seeds("proc-vmstat-2.6.23-series.txt", "proc-vmstat-3.10-two.txt")),
    "iostat": (T.read_iostat, seeds("iostat-sysstat12-xt.txt", "iostat-sysstat10-xkt.txt", "iostat-sysstat9.0-x.txt",
                                    "iostat-sysstat12-de-t.txt", "iostat-sysstat12-x.json",
                                    "iostat-sysstat12-xt-iso.txt")),
    "perf-stat": (T.parse_perf_stat, seeds("perf-stat-6.1-r3.txt", "perf-stat-6.1-r3-csv.txt",
                                           "perf-stat-6.1-interval.txt", "perf-stat-3.x-multiplex.txt")),
    "perf-script": (lambda t: T.fold(T.parse_perf_script(t), event=None),
                    seeds("perf-script-6.1-cpu-clock-g.txt", "perf-script-6.1-two-events-g.txt",
                          "perf-script-6.1-nocallchain-cpu.txt", limit=4000)),
    "folded": (T.parse_folded, seeds("perf-script-6.1-cpu-clock-g.stackcollapse.folded", limit=3000)),
    "perf-report": (T.read_perf_report, seeds("perf-report-6.1-children.txt", "perf-report-3.x-callgraph.txt",
                                              "perf-report-6.1-flat.txt", limit=3000)),
    "buddyinfo": (T.parse_buddyinfo, seeds("buddyinfo-6.18.txt")),
    "pagetypeinfo": (T.parse_pagetypeinfo, seeds("pagetypeinfo-3.10-reserve-cma.txt",
                                                 "pagetypeinfo-5.10-highatomic-cma.txt")),
    "zoneinfo": (T.parse_zoneinfo, seeds("zoneinfo-4.x-two-nodes.txt", limit=3000)),
    "meminfo": (T.parse_meminfo, seeds("meminfo-6.18.txt")),
    "fio-json": (T.parse_fio_json, seeds("fio-3.33-seqread.json", limit=100000)),
    "pyperf-json": (T.parse_pyperf_json, ['{"version": "1.0", "metadata": {"unit": "second"}, "benchmarks": '
                                          '[{"metadata": {"name": "a", "loops": 4}, "runs": [{"metadata": {}, '
                                          '"warmups": [[4, 0.5]], "values": [0.1, 0.2]}]}]}']),
    # as bytes: a short text such as "." would otherwise name a folder (load(".") opens it as a bundle)
    "load": (lambda t: T.load(t.encode("utf-8", "surrogatepass")), seeds("vmstat-procps4.txt", "iostat-sysstat12-x.txt", "perf-stat-6.1-r3.txt",
                           "buddyinfo-6.18.txt", "meminfo-6.18.txt", "proc-vmstat-3.10-two.txt", limit=2000)),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_fuzz_parser(kind):
    fn, texts = CASES[kind]

    @settings(max_examples=N, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(strategy(texts))
    def run(text):
        check(fn, text)

    run()


def _big(names, times=60):
    return ["\n".join([(FIX / n).read_text()] * times) for n in names]


BIG = {
    "vmstat-fast": (T.parse_vmstat, _big(["vmstat-procps4.txt", "vmstat-procps3.3-repeated-headers.txt",
                                          "vmstat-procps4-wa.txt"])),
    "iostat-fast": (T.read_iostat, _big(["iostat-sysstat12-x.txt", "iostat-sysstat9.0-x.txt",
                                         "iostat-sysstat12-de-t.txt", "iostat-sysstat10-xkt.txt"])),
}


@pytest.mark.parametrize("kind", list(BIG))
def test_fuzz_fast_paths(kind):
    """Inputs past FAST_MIN go through the numba paths: fuzz those too."""
    fn, texts = BIG[kind]
    assert all(len(t) > T.vmstat.FAST_MIN for t in texts)

    @settings(max_examples=max(N // 4, 50), deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(mutated(texts))
    def run(text):
        check(fn, text)

    run()


@pytest.mark.parametrize("name", ["vmstat-procps4.txt", "vmstat-procps3.3-repeated-headers.txt",
                                  "iostat-sysstat12-x.txt", "iostat-sysstat9.0-x.txt", "iostat-sysstat12-de-t.txt",
                                  "iostat-sysstat10-xkt.txt", "vmstat-procps4-wa.txt"])
def test_fast_and_general_paths_agree(name, monkeypatch):
    import pandas as pd

    text = "\n".join([(FIX / name).read_text()] * 40)
    fn = T.parse_vmstat if name.startswith("vmstat") else T.parse_iostat
    fast = fn(text)
    monkeypatch.setattr(T.vmstat, "FAST_MIN", 10 ** 12)
    monkeypatch.setattr(T.iostat, "FAST_MIN", 10 ** 12)
    slow = fn(text)
    pd.testing.assert_frame_equal(fast.reset_index(drop=True), slow.reset_index(drop=True), check_dtype=False)
