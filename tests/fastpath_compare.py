"""What a parser gives for a text, compared between its fast path and the reader it stands in for: the frame and
its attrs, or the error, and the warnings, exactly (used by tests/test_traces_*_fastpath.py)."""

import warnings

import pandas as pd

from kernel_workbook.errors import WorkbookParseError


def outcome(parse, text):
    """``(frame or ("error", message), [warning messages])`` of ``parse(text)``."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            df = parse(text)
        except WorkbookParseError as e:
            return ("error", str(e)), [str(x.message) for x in w]
    return df, [str(x.message) for x in w]


def assert_same(a, b) -> None:
    """Two outcomes are the same: warnings, and the error or the frame with its attrs."""
    (fa, wa), (fb, wb) = a, b
    assert wa == wb
    if isinstance(fb, tuple) or isinstance(fa, tuple):
        assert fa == fb
    else:
        pd.testing.assert_frame_equal(fa, fb)
        assert fa.attrs == fb.attrs


#: the damage every ``time:`` series reader's fast path is tested with (:func:`series_damage`)
SERIES_DAMAGE = ("date line", "prompt", "cut snapshot", "swapped", "duplicate", "CR", "empty snapshot")


def series_damage(lines: list, mid: int, what: str):
    """The text of *lines* (a ``time:`` series) damaged at line *mid* as *what* of :data:`SERIES_DAMAGE` says, or
    None (and *lines* untouched) for another *what*."""
    if what not in SERIES_DAMAGE:
        return None
    t = next((j for j in range(mid, len(lines)) if lines[j].startswith("time:")), len(lines))
    if what == "date line":
        lines.insert(t, "Wed Nov 25 03:30:50 UTC 2026")
    elif what == "prompt":
        lines.insert(mid, "$ cat /proc/something")
    elif what == "cut snapshot":
        return "\n".join(lines[:mid]) + "\n"
    elif what == "swapped":
        lines[mid], lines[mid + 1] = lines[mid + 1], lines[mid]
    elif what == "duplicate":
        lines.insert(mid, lines[mid])
    elif what == "CR":
        lines[mid] += "\r"
    else:  # "empty snapshot"
        lines.insert(t, "time: 1795239999.5")
    return "\n".join(lines)


def series_cases(clean: dict, damage, whats, fixture_text: str) -> dict:
    """The cases of a procfs series reader's fast-path test (name -> text): the *clean* series, the first of them
    damaged as each of *whats* says (``damage(text, what)``, named ``"<first>, <what>"``), ``fixture repeated``
    (*fixture_text* under 30 ``time:`` lines a second apart) and ``no final newline`` (the first, cut there)."""
    cases = dict(clean)
    first = next(iter(clean))
    for what in whats:
        cases[f"{first}, {what}"] = damage(clean[first], what)
    cases["fixture repeated"] = "".join(f"time: {1795239303 + s}\n" + fixture_text for s in range(30))
    cases["no final newline"] = clean[first].rstrip("\n")
    return cases


def assert_fast_is_general(module, parse, text: str, monkeypatch, threshold: str = "FAST_MIN") -> None:
    """*parse* gives the same outcome for *text* with its fast path (the text is longer than the module's
    *threshold*, the length from which it tries its fast path) and without."""
    assert len(text) > getattr(module, threshold)
    fast = outcome(parse, text)
    monkeypatch.setattr(module, threshold, 10 ** 12)
    assert_same(fast, outcome(parse, text))


def timed_series(snapshots: int, lines_of) -> str:
    """A ``kwb record``-style series: ``snapshots`` snapshots a second apart, each a ``time:`` line and
    ``lines_of(s)``, a blank line after every seventh (what the fast paths must tolerate)."""
    out = []
    for s in range(snapshots):
        out.append(f"time: {1795239303 + s}.{s % 10}5")
        out += lines_of(s)
        if s % 7 == 3:
            out.append("")
    return "\n".join(out) + "\n"


def middle_line(lines: list) -> int:
    """The index of the first data line from the middle of a series (not a ``time:`` line, not blank)."""
    mid = len(lines) // 2
    while lines[mid].startswith("time:") or not lines[mid]:
        mid += 1
    return mid


#: the counters of a ``perf stat -I`` interval the perf stat fast-path tests print: (unit, event, metric unit);
#: ``/sec`` is scaled per interval (``K/sec``, ``M/sec``) as perf scales it
PERF_EVENTS = [("msec", "task-clock", "CPUs utilized"), ("", "context-switches", "/sec"),
               ("", "cpu-migrations", "/sec"), ("", "page-faults", "/sec"), ("", "kmem:mm_page_alloc", "/sec"),
               ("", "vmscan:mm_vmscan_kswapd_wake", ""), ("", "migrate:mm_migrate_pages", "/sec")]


def assert_takes(fast, cases: dict, takes, refuses) -> None:
    """The fast path ``fast(text)`` reads the cases named in *takes* and leaves those in *refuses* (None) to the
    reader it stands in for."""
    for name in takes:
        assert fast(cases[name]) is not None, name
    for name in refuses:
        assert fast(cases[name]) is None, name
