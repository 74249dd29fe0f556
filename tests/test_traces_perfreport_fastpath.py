"""``perf report --stdio`` tables and call graphs read by the one-pass reader (``perfreport._fast_read`` over
``_fastreport.scan_entries``) give the frame, attrs, warnings and errors of the line reader, clean and damaged
(in a row, in a call graph, after the table), and the fast path takes the clean reports (so these comparisons
compare something)."""

import re
import warnings

import pytest

import pandas as pd

from fastpath_compare import assert_same, outcome
from kernel_workbook.paths import repo_root
from kernel_workbook.traces import perfreport as P
from kernel_workbook.traces._common import read_source

FIX = repo_root() / "tests" / "fixtures" / "traces"
FIXTURES = sorted(p.name for p in FIX.glob("perf-report-*.txt"))


def _long(fixture: str, copies: int = 0) -> str:
    """The fixture's ``#`` lines, then its body again and again (each copy's symbols renamed, as the benchmark's
    generator does) until the text is longer than ``FAST_MIN``."""
    text = (FIX / fixture).read_text().rstrip("\n").split("\n")
    head = [ln for ln in text if ln.startswith("#")]
    body = [ln for ln in text if not ln.startswith("#")]
    out, k = list(head), 0
    while len("\n".join(out)) <= P.FAST_MIN + 1000 or k < copies:
        out += [re.sub(r"([A-Za-z_]\w*)$", rf"\g<1>_{k}", ln) if ln.strip() else ln for ln in body]
        k += 1
    return "\n".join(out) + "\n"


CHILDREN = _long("perf-report-6.1-children.txt")  # --children -g: entries under call graphs (perf 6.1)
OLD = _long("perf-report-3.x-callgraph.txt")  # perf 3.18's '--- sym' and '|--99.50%-- sym'


def _flat_two_events() -> str:
    # the flat fixture's two tables (two events, the second's columns narrower), the first one long
    text = (FIX / "perf-report-6.1-flat.txt").read_text()
    cut = text.index("# Samples: 400")
    rows = [ln for ln in text[:cut].split("\n") if ln.startswith("    ")]
    return text[:cut].rstrip("\n") + "\n" + "\n".join(rows * (P.FAST_MIN // 1000)) + "\n\n\n" + text[cut:]


FLAT = _flat_two_events()


def _samples_sorted() -> str:
    # perf report -n --sort sym,dso,comm: a Samples column, the symbol before the shared object
    head = ["# Samples: 86  of event 'cpu-clock'", "#",
            "# Overhead       Samples  Symbol                         Shared Object         Command",
            "# ........  ............  .............................  ....................  .......", "#"]
    rows = [f"    {47.67 - k % 40:5.2f}%  {100000 + 37 * k:>12}  [{'k.'[k % 2]}] sym_{k:<24}  "
            f"{['[kernel.kallsyms]', 'libc.so.6'][k % 2]:<20}  dd" for k in range(1200)]
    return "\n".join(head + rows) + "\n"


SORTED = _samples_sorted()


def _rows(text: str) -> list[int]:
    return [i for i, ln in enumerate(text.split("\n")) if re.match(r"^ +\d+\.\d+%", ln)]


def _damage(text: str, what: str) -> str | bytes:
    lines = text.split("\n")
    rows = _rows(text)
    mid = rows[len(rows) // 2]  # a table row in the middle
    graph = mid + 2  # under it, a call-graph line (the children report)
    if what == "cut row":
        lines[mid] = lines[mid][:24]
    elif what == "cut percentage":
        lines[mid] = lines[mid][:8]
    elif what == "prose after the table":
        lines.insert(len(lines) - 1, "So the copy dominates.")  # before the last newline
    elif what == "prose in the middle":
        lines.insert(mid, "So the copy dominates.")
    elif what == "comma percentage":
        lines[mid] = lines[mid].replace(".", ",", 1)
    elif what == "double percent":
        lines[mid] = lines[mid].replace("%", "%%", 1)
    elif what == "negative percentage":
        lines[mid] = re.sub(r"^( +)(\d)", r"\1-\2", lines[mid])
    elif what == "exponent":
        lines[mid] = re.sub(r"\d+\.\d+%", "1e1%", lines[mid], count=1)
    elif what == "plus sign":
        lines[mid] = re.sub(r"^( +)(\d)", r"\1+\2", lines[mid])
    elif what == "no decimals":
        lines[mid] = re.sub(r"(\d+)\.\d+%", lambda m: f"{m.group(1) + '%':>{len(m.group(0))}}", lines[mid], count=1)
    elif what == "point no decimals":
        lines[mid] = re.sub(r"(\d+)\.\d+%", r"\1.%", lines[mid], count=1)
    elif what == "16 digits":
        lines[mid] = re.sub(r"\d+\.\d+%", "12345678.12345678%", lines[mid], count=1)
    elif what == "grouped":
        lines[mid] = re.sub(r"\d+\.\d+%", "1.234.567%", lines[mid], count=1)
    elif what == "nan":
        lines[mid] = re.sub(r"\d+\.\d+%", "nan%", lines[mid], count=1)
    elif what.startswith("self "):  # the second number (Self): a row still, its number read or refused
        self_ = {"self exponent": "1e1", "self comma": "0,50", "self negative": "-0.00", "self plus": "+1.00",
                 "self nan": "nan", "self grouped": "1,234.5", "self 16 digits": "0.123456789012345",
                 "self empty": "", "self leading zeros": "000.50"}[what]
        lines[mid] = lines[mid][:10] + f"{self_ + '%' if self_ else '':>10}" + lines[mid][20:]
    elif what == "branch 16 digits":
        lines = [ln.replace("--92.12%--", "--92.12345678901234%--") for ln in lines]
    elif what == "branch no decimals":
        lines = [ln.replace("--92.12%--", "--92%--") for ln in lines]
    elif what == "misaligned branch":
        lines = [" " + ln if "--0.97%--" in ln else ln for ln in lines]
    elif what == "mark inside a symbol":  # re.sub(r'(---|%--) ', ...) would cut a blank out of the symbol
        lines = [ln + " x--- y" if ln.endswith("vfs_write_3") else ln for ln in lines]
    elif what == "mark space then symbol":  # perf 3.x's way in a 6.x report
        lines = [ln.replace("---do_syscall", "--- do_syscall").replace("%--ksys", "%-- ksys") for ln in lines]
    elif what == "empty first frame":
        lines = [re.sub(r"---entry_SYSCALL\w*$", "---", ln) for ln in lines]
    elif what == "first frame without ---":  # the stack of the entry before must not reach under this one
        lines = [re.sub(r"---(entry_SYSCALL\w*)$", r"   \1", ln) for ln in lines]
    elif what == "branch under a frame's first letter":  # its column is the frame's: it pops the frame
        lines = [x for ln in lines for x in ([ln, " " * 15 + "--3.00%--early"]
                                             if re.fullmatch(r" {15}do_syscall_64_\d+", ln) else [ln])]
    elif what == "deep tree":  # 1100 frames each under the one before: deeper than the kernel's stack
        lines[graph + 1:graph + 1] = [" " * (16 + k) + f"f{k}" for k in range(1100)]
    elif what == "no symbol marker":
        lines[mid] = lines[mid].replace("[k] ", "", 1).replace("[.] ", "", 1)
    elif what == "marker only":
        lines[mid] = lines[mid][:lines[mid].index("[") + 3]
    elif what == "tab":
        lines[mid] = "\t" + lines[mid].lstrip(" ")
    elif what == "tab in graph":
        lines[graph] = lines[graph].replace(" ", "\t", 1)
    elif what == "CR":
        lines[mid] += "\r "  # not a CRLF, which the reader makes LF
    elif what == "CRLF":
        return "\r\n".join(lines)
    elif what == "non-UTF-8 symbol":
        lines[mid] += "\udcff"
        return "\n".join(lines).encode("utf-8", "surrogateescape")
    elif what == "UTF-8 symbol":
        lines[mid] += "_\u00fc"
    elif what == "control character":
        lines[mid] += "\x01"
    elif what == "blank line of spaces":
        lines.insert(mid, "      ")
    elif what == "comment in the middle":
        lines.insert(mid, "# (Tip: For tracepoint events, try: perf report -s trace_fields)")
    elif what == "event in the middle":
        lines[mid:mid] = ["", "# Samples: 5K of event 'cycles'", "# Event count (approx.): 99"]
    elif what == "header in the middle":
        lines[mid:mid] = [ln for ln in lines[:rows[0]] if ln.startswith("# ") and ("Overhead" in ln or "Children"
                                                                                    in ln or "...." in ln)]
    elif what == "other columns in the middle":
        lines[mid:mid] = ["# Overhead  Samples  Command  Symbol", "# ........  .......  .......  ......"]
    elif what == "graph flat":  # perf report -g flat: an indented percentage, then the frames
        lines.insert(graph, "            12.50%")
    elif what == "graph before any row":
        lines.insert(rows[0], "            |--1.00%--early")
    elif what == "margin number without %":  # text to the line reader (no '%'): a row to a kernel that forgot
        lines[mid] = re.sub(r"^ +(\d+\.\d+)%", lambda m: f"{m.group(1):<{len(m.group(0))}}", lines[mid])
    elif what == "row at the margin":
        lines[mid] = lines[mid].lstrip(" ")
    elif what == "no final newline":
        return "\n".join(lines).rstrip("\n")
    elif what == "no header":
        return "\n".join(lines[rows[0]:])
    elif what == "header only":
        return "\n".join(lines[:rows[0]]) + "\n" * (P.FAST_MIN + 10)  # long with blank lines, no row
    elif what == "dotted line missing":
        return "\n".join(ln for ln in lines if not ln.startswith("# ...."))
    elif what == "column beyond the line":
        lines[mid] = lines[mid][:20]  # the numbers only: the text columns start past its end
    return "\n".join(lines)


_WHAT = ("cut row", "cut percentage", "prose after the table", "prose in the middle", "comma percentage",
         "double percent", "negative percentage", "exponent", "plus sign", "no decimals", "point no decimals",
         "16 digits", "grouped", "nan", "no symbol marker", "marker only", "tab", "tab in graph", "CR", "CRLF",
         "non-UTF-8 symbol", "UTF-8 symbol", "control character", "blank line of spaces", "comment in the middle",
         "event in the middle", "header in the middle", "other columns in the middle", "graph flat",
         "graph before any row", "row at the margin", "margin number without %", "no final newline", "no header",
         "header only", "dotted line missing", "column beyond the line", "self exponent", "self comma", "self negative",
         "self plus", "self nan", "self grouped", "self 16 digits", "self empty", "self leading zeros",
         "branch 16 digits", "branch no decimals", "misaligned branch", "mark inside a symbol",
         "mark space then symbol", "empty first frame", "deep tree", "first frame without ---",
         "branch under a frame's first letter")


def _same(a, b) -> None:
    """assert_same, and every number the same to the last bit (assert_frame_equal allows a relative 1e-5)."""
    assert_same(a, b)
    if not isinstance(a[0], tuple):
        pd.testing.assert_frame_equal(a[0], b[0], check_exact=True)


def _both(parse, src, monkeypatch) -> None:
    """*parse* of *src* gives the same with the fast path tried first (FAST_MIN 0) and with the line reader alone."""
    monkeypatch.setattr(P, "FAST_MIN", 0)
    fast = outcome(parse, src)
    monkeypatch.setattr(P, "FAST_MIN", 10 ** 12)
    _same(fast, outcome(parse, src))


CASES = {"children": CHILDREN, "perf 3.x": OLD, "flat, two events": FLAT, "-n, sorted by symbol": SORTED}
for _w in _WHAT:
    CASES[f"damaged: {_w}"] = _damage(CHILDREN, _w)
for _w in ("cut row", "prose in the middle", "graph flat", "tab in graph", "comma percentage"):
    CASES[f"perf 3.x damaged: {_w}"] = _damage(OLD, _w)
CASES["flat damaged: prose after the table"] = _damage(FLAT, "prose after the table")


@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_and_line_reader_give_the_same_frame_or_error(name, monkeypatch):
    text = CASES[name]
    assert len(text) > P.FAST_MIN  # the parser tries the fast path on it as it stands
    _both(P.parse_perf_report, text, monkeypatch)
    _both(P.parse_perf_report_callgraph, text, monkeypatch)


@pytest.mark.parametrize("fixture", FIXTURES)
def test_the_fixtures_read_the_same_by_both(fixture, monkeypatch):
    _both(P.parse_perf_report, FIX / fixture, monkeypatch)
    _both(P.parse_perf_report_callgraph, FIX / fixture, monkeypatch)


def _fast(text, graph: bool = False):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text, name = read_source(text)  # what the parser hands it: CRLF made LF, the last line whole
    fast = P._fast_read(text, name, graph=graph)
    return None if fast is None else fast.callgraph if graph else fast.entries


def test_the_fast_path_reads_clean_reports_and_leaves_damage_to_the_line_reader():
    df = _fast(CHILDREN)
    assert df is not None and len(df) == len(_rows(CHILDREN)) >= 50
    assert _fast(OLD) is not None and set(_fast(OLD)["symbol_type"]) == {"k", "."}
    srt = _fast(SORTED)
    assert srt is not None and len(srt) == 1200 and srt["Samples"].iat[1] == 100037.0
    two = _fast(FLAT)
    assert list(two["event"].unique()) == ["cpu-clock", "kmem:mm_page_alloc"]
    for fixture in ("perf-report-6.1-children.txt", "perf-report-3.x-callgraph.txt", "perf-report-6.1-flat.txt"):
        assert _fast((FIX / fixture).read_text()) is not None, fixture
    # a percentage perf does not print in the first column makes an indented line a call-graph frame, to the
    # line reader too ('    -99.76%', '    1e1%', '    99.7'): the kernel says the same
    takes = ("cut row", "cut percentage", "comma percentage", "double percent", "negative percentage", "exponent",
             "plus sign", "no decimals", "point no decimals", "grouped", "nan", "no symbol marker", "marker only",
             "CRLF", "blank line of spaces", "comment in the middle", "event in the middle", "header in the middle",
             "no final newline", "column beyond the line", "self negative", "self leading zeros",
             "branch 16 digits", "branch no decimals", "misaligned branch", "mark inside a symbol",
             "mark space then symbol", "empty first frame", "deep tree", "first frame without ---",
             "branch under a frame's first letter")  # the table: call-graph lines all
    refuses = ("prose after the table", "prose in the middle", "16 digits", "tab", "tab in graph", "CR",
               "non-UTF-8 symbol", "UTF-8 symbol", "control character", "other columns in the middle", "graph flat",
               "graph before any row", "row at the margin", "margin number without %", "no header", "header only",
               "dotted line missing", "self exponent", "self comma", "self plus", "self nan", "self grouped",
               "self 16 digits", "self empty")
    assert set(takes) | set(refuses) == set(_WHAT)
    graph_refuses = ("branch 16 digits", "mark inside a symbol", "deep tree")
    for w in takes:
        assert _fast(CASES[f"damaged: {w}"]) is not None, w
    for w in refuses:
        assert _fast(CASES[f"damaged: {w}"]) is None, w
    for w in takes:  # the call graph too, but where its line reader must read a line
        assert (_fast(CASES[f"damaged: {w}"], graph=True) is None) == (w in graph_refuses), w
    for text in (CHILDREN, OLD):
        cg = _fast(text, graph=True)
        assert cg is not None and len(cg) == len(P._read(text, "<t>").callgraph) > 300


def test_the_benchmark_file_reads_the_same_by_both(tmp_path, monkeypatch):
    # the benchmark's own generator (kernel_workbook.bench.trace_inputs.perf_report), 30 000 lines of its 10**6
    from kernel_workbook.bench import trace_inputs

    monkeypatch.setattr(trace_inputs, "LINES", 30000)
    path = tmp_path / "perf-report"
    trace_inputs.perf_report(path)
    fast = P._fast_read(path.read_text(), str(path), graph=True)
    assert fast is not None and len(fast.entries) > 1000 and len(fast.callgraph) > 10 * len(fast.entries)
    _both(P.parse_perf_report, path, monkeypatch)
    _both(P.parse_perf_report_callgraph, path, monkeypatch)
