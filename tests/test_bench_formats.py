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


def test_kwb_bench_stores_each_formats_peak_memory_beside_its_speed(tmp_path, monkeypatch, capsys):
    """The whole path of ``make bench`` (pyperf workers, companion benchmark, results, ``--json``) on one small
    input put where the workers look for the 10**6-line files, the value read back from the JSON."""
    import json

    from kernel_workbook import cli
    from kernel_workbook.bench import formats_bench

    fmt = next(f for f in trace_inputs.FORMATS if f.name == "meminfo")  # no jc baseline: one worker fewer
    monkeypatch.setattr(trace_inputs, "LINES", 20000)
    d = tmp_path / f"kwb-bench-formats-{formats_bench.VERSION}"
    d.mkdir()
    fmt.make(d / fmt.name)
    (d / "done").write_text("ok\n")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("KWB_BENCH_FORMATS", fmt.name)
    assert cli.main(["bench", "--json", "--suites", "trace-formats"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["results"]
    size = (d / fmt.name).stat().st_size
    assert row["name"].startswith("traces.load meminfo") and row["unit"] == "bytes" and row["ours_per_s"] > 0
    # a load of 20000 lines keeps a frame and the text: more than a page, far less than a gigabyte
    assert 4096 < row["peak_bytes"] < 1e9
    assert row["peak_ratio"] == pytest.approx(row["peak_bytes"] / size)
    assert "peak <= 4x size" in row["target"]
