"""Hypothesis fuzzes every trace parser: the only exception that may escape is WorkbookParseError.

Inputs are real fixtures mutated (lines cut, doubled, swapped, truncated, characters and tokens
replaced) and plain random text; the parsers and their fixtures come from the list of formats
(``traces.formats.FORMATS``).  KWB_FUZZ_EXAMPLES sets the number of cases per parser (2000 in CI).
"""

import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel_workbook.errors import WorkbookParseError
from kernel_workbook import traces as T
from kernel_workbook.traces import formats
from trace_formats import BY_FORMAT_WITH_REAL, name

FIX = Path(__file__).parent / "fixtures" / "traces"
N = int(os.environ.get("KWB_FUZZ_EXAMPLES", "2000"))


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


# the functions that go further than a kind's parser, fuzzed in its place: folding perf script's stacks, reading
# iostat's two frames, perf report's table with its call graphs
DEEPER = {
    "perf-script": lambda t: T.fold(T.parse_perf_script(t), event=None),
    "iostat": T.read_iostat,
    "perf-report": T.read_perf_report,
}


def _cases():
    """One case per format and kind its fixtures are sniffed as (tests/trace_formats.py): a new format is fuzzed
    from its fixtures without a line here."""
    cases = {}
    for fmt in formats.FORMATS:
        json_doc = fmt.PRIORITY < formats.TEXT_FORMATS  # cut short, a JSON document would fuzz its error alone
        limit = 100000 if json_doc else 6000
        by_kind = {}
        for p, kind in BY_FORMAT_WITH_REAL[name(fmt)]:
            by_kind.setdefault(kind, []).append(p.read_bytes().decode("utf-8", "replace")[:limit])
        for kind, texts in by_kind.items():
            cases[f"{name(fmt)}:{kind}"] = (DEEPER.get(kind, T.PARSERS[kind]), texts)
    # as bytes: a short text such as "." would otherwise name a folder (load(".") opens it as a bundle)
    cases["load"] = (lambda t: T.load(t.encode("utf-8", "surrogatepass")),
                     [(fixtures[0][0]).read_bytes().decode("utf-8", "replace")[:2000]
                      for fixtures in BY_FORMAT_WITH_REAL.values() if fixtures])
    return cases


CASES = _cases()


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
