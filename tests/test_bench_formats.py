"""The inputs of the per-format benchmark (``make bench``, suite ``trace-formats``) are what they say: each file
is its format as the tool prints it, read by ``traces.load`` as that kind without a warning.  Made here at 2000
lines instead of 10**6 (the speed and memory figures are the benchmark's, never a test's)."""

import warnings

import pytest

from kernel_workbook.bench import trace_inputs
from kernel_workbook.traces import KINDS, load


@pytest.mark.parametrize("fmt", trace_inputs.FORMATS, ids=lambda f: f.name)
def test_each_benchmark_input_loads_as_its_kind_without_a_warning(fmt, tmp_path, monkeypatch):
    monkeypatch.setattr(trace_inputs, "LINES", 2000)
    p = tmp_path / fmt.name
    fmt.make(p)
    text = p.read_text()
    assert text.count("\n") >= 2000 and fmt.kind in KINDS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = load(p, kind=fmt.kind)
    assert len(df) > 0
    if fmt.jc:  # jc reads the same file: the baseline times the same work
        import jc

        assert jc.parse(fmt.jc, text, quiet=True)


def test_every_kind_has_a_benchmark_input_or_a_reason_why_not():
    benchmarked = {f.kind for f in trace_inputs.FORMATS}
    assert set(KINDS) - benchmarked == set(trace_inputs.NOT_BENCHMARKED)
    assert not benchmarked & set(trace_inputs.NOT_BENCHMARKED)
