"""iostat's one-pass (numpy/numba) path against the general line-by-line one: the same frames, attrs, warnings
and errors on every iostat text of tests/fixtures and data/traces, and the shortcuts it takes (headers compared as
bytes, the banner scan, the --pretty check skipped when the one-pass path reads the file) kept exact."""

import gzip
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kernel_workbook.traces import iostat as I
from kernel_workbook.traces import read_iostat
from kernel_workbook.traces._fastscan import line_spans, same_lines

ROOT = Path(__file__).parent.parent
TEXTS = sorted((ROOT / "tests" / "fixtures").rglob("*iostat*.txt")) + sorted((ROOT / "data" / "traces").rglob(
    "iostat*.gz"))


def _text(p: Path) -> str:
    return (gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()).decode()


def _many(text: str) -> str:
    """Copies of *text* past FAST_MIN (40 at least), each banner another run appended (a since-boot report
    per run)."""
    return "\n".join([text] * max(40, I.FAST_MIN // max(len(text), 1) + 2))


def _outcome(text: str):
    """What read_iostat makes of *text*: frames and attrs, or the error; and every warning."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = read_iostat(text)
            out = ("ok", r.devices, r.cpu)
        except Exception as e:  # noqa: BLE001 - the error itself is compared
            out = ("error", type(e).__name__, str(e))
    return out, [(type(x.message).__name__, str(x.message)) for x in w]


def _assert_same(fast, slow):
    (a, wa), (b, wb) = fast, slow
    assert wa == wb
    assert a[0] == b[0], (a[:1], b[1:])
    if a[0] == "ok":
        for x, y in zip(a[1:], b[1:]):
            # values exact; dtypes not: the device column is object on the one-pass path and pandas 3's str on
            # the general one (so it was before these shortcuts; tests/test_traces_fuzz.py compares the same way)
            pd.testing.assert_frame_equal(x, y, check_exact=True, check_dtype=False)
            assert x.attrs == y.attrs
    else:
        assert a == b


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_fast_and_general_paths_agree_on_every_capture(path, monkeypatch):
    text = _many(_text(path))
    assert len(text) > I.FAST_MIN
    fast = _outcome(text)
    monkeypatch.setattr(I, "FAST_MIN", 10 ** 12)
    _assert_same(fast, _outcome(text))


def test_the_benchmark_layouts_take_the_fast_path():
    """The agreement above means something only if the one-pass path reads the usual captures."""
    for name in ("iostat-sysstat12-x.txt", "iostat-sysstat9.0-x.txt", "iostat-sysstat12-de-t.txt"):
        text = _many((ROOT / "tests" / "fixtures" / "traces" / name).read_text())
        assert I._fast_iostat(text, name) is not None, name


@pytest.mark.parametrize("name", ["iostat-12.6.1-x-pretty.txt", "iostat-12.6.1-d-pretty.txt"])
def test_fast_path_never_reads_a_pretty_file(name, monkeypatch):
    """read_iostat skips its --pretty check when the one-pass path succeeds: that path must refuse --pretty."""
    text = _many((ROOT / "tests" / "fixtures" / "real-captures" / name).read_text())
    assert I.line_matches(text, I._PRETTY_RE, "Device")
    assert I._fast_iostat(text, name) is None
    fast = _outcome(text)
    assert fast[0][0] == "ok" and len(fast[0][1])
    monkeypatch.setattr(I, "FAST_MIN", 10 ** 12)
    _assert_same(fast, _outcome(text))


def test_two_layouts_in_one_log_take_the_general_path(monkeypatch):
    """Runs with other options appended to one log: the header lines differ, so same_lines says no."""
    fix = ROOT / "tests" / "fixtures" / "traces"
    text = "\n".join([(fix / "iostat-sysstat12-x.txt").read_text()] * 20 + [(fix / "iostat-sysstat9.0-x.txt")
                                                                             .read_text()] * 20)
    assert I._fast_iostat(text, "x") is None
    fast = _outcome(text)
    assert fast[0][0] == "ok" and fast[0][1]["r/s"].notna().all()
    monkeypatch.setattr(I, "FAST_MIN", 10 ** 12)
    _assert_same(fast, _outcome(text))


def _lines(*texts):
    b = np.frombuffer("\n".join(texts).encode(), dtype=np.uint8)
    return (b, *line_spans(b))


@pytest.mark.parametrize("texts, same", [
    ((), True),
    (("Device r/s w/s",), True),
    (("Device r/s w/s",) * 3, True),
    (("Device r/s w/s", "Device r/s w/s", "Device r/s w/x"), False),  # last byte differs
    (("Device r/s w/s", "device r/s w/s"), False),  # first byte differs
    (("Device r/s w/s", "Device r/s w/s "), False),  # one longer
    (("Device r/s w/s", "Device r/s"), False),  # one shorter
    (("", ""), True),
    (("x" * 300, "x" * 299 + "y"), False),  # past a vector's width
])
def test_same_lines(texts, same):
    b, starts, ends = _lines(*texts)
    if not texts:
        starts, ends = starts[:0], ends[:0]
    assert same_lines(b, starts, ends) is same
    assert same == (len({"\n".join(texts).split("\n")[i] for i in range(len(texts))}) <= 1)


@pytest.mark.parametrize("text", [
    "",
    "Linux 6.1 (h) \t11/21/26 \t_x86_64_\t(2 CPU)\n\navg-cpu: x\n",
    "xLinux 6.1 (h) 11/21/26\nLinux 6.1 (h) 11/21/26\n",  # mid-line: not a banner
    "Linux 6.1 (h\nLinux 5.4 (g) x\n) tail\nLinux 4.9 (f) y\n",  # '[^)]*' spans lines: the second is inside
    "Linux 6.1 h\nLinux 6.1 (h)",  # no parenthesis: no banner, then one at the very end
    "Linux \nLinux Linux 6.1 (h)\n",
] + [_text(p) for p in TEXTS if "two-runs" in p.name or "killed" in p.name])
def test_banner_spans_are_finditers(text):
    assert I._banner_spans(text) == [(m.start(), m.end()) for m in I._BANNER_LINE_RE.finditer(text)]
