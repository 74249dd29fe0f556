"""What ``kwb bench`` reports: throughput, the baseline beside it, and whether each target was met."""

import pyperf
import pytest

from kernel_workbook.bench import Bench, results, runner_args, suites


def _bench(name, seconds, md):
    run = pyperf.Run([seconds, seconds], metadata={"name": name, "loops": 1, **md}, collect_metadata=False)
    return pyperf.Benchmark([run])


def test_targets_are_checked_against_the_mean():
    fast = Bench("fast", None, 10.0, "runs", target_per_s=20.0).metadata()
    slow = Bench("slow", None, 10.0, "runs", target_per_s=20.0).metadata()
    none = Bench("plain", None, 1.0, "runs").metadata()
    rows = {r["name"]: r for r in results([_bench("fast", 0.25, fast), _bench("slow", 1.0, slow),
                                          _bench("plain", 1.0, none)])}
    assert rows["fast"]["ours_per_s"] == pytest.approx(40.0) and rows["fast"]["met"] is True
    assert rows["slow"]["ours_per_s"] == pytest.approx(10.0) and rows["slow"]["met"] is False
    assert rows["fast"]["target"] == ">= 20 runs/s"
    assert rows["plain"]["target"] is None and rows["plain"]["met"] is None


def test_a_ratio_target_reads_the_baseline_beside_it():
    md = Bench("jit", None, 100.0, "events", target_ratio=100.0).metadata()
    base_md = {"kwb_items": 100.0, "kwb_unit": "events"}
    rows = results([_bench("jit", 0.001, md), _bench("jit [baseline: python]", 0.05, base_md)])
    assert len(rows) == 1  # the baseline is a column of its benchmark's row, not a row
    (r,) = rows
    assert r["baseline"] == "python" and r["ratio"] == pytest.approx(50.0)
    assert r["target"] == "ratio >= 100" and r["met"] is False
    alone = results([_bench("jit", 0.001, md)])[0]  # no baseline run: the ratio target is not checked
    assert alone["ratio"] is None and alone["met"] is None and "not checked" in alone["target"]


def test_only_long_suites_have_settings_of_their_own():
    own = {s: runner_args(s) for s in suites()}
    assert own["reproduce"] is not None and "--processes" in own["reproduce"]
    assert own["trace-formats"] is not None and "--processes" in own["trace-formats"]  # a load takes up to a minute
    # pyperf's workers must see the formats chosen, or each would time the first format under another's name
    inherit = own["trace-formats"][own["trace-formats"].index("--inherit-environ") + 1]
    assert "KWB_BENCH_FORMATS" in inherit.split(",")
    assert all(v is None for k, v in own.items() if k not in ("reproduce", "trace-formats"))


def test_the_reproduce_suite_times_what_issue_16_measures():
    from kernel_workbook.bench import reproduce_bench as rb

    (b,) = rb.benchmarks()
    assert b.target_per_s == pytest.approx(1 / 60) and b.items == 1.0
    cmd, env = rb.command()
    assert cmd[1:] == ["-m", "kernel_workbook.cli", "reproduce", "--all"]
    assert env["WORKBOOK_MODE"] == "ci" and env["KWB_FIT_CACHE"] == "off"


def test_bench_check_fails_on_a_missed_target(monkeypatch, capsys):
    from kernel_workbook import cli

    slow = Bench("slow", None, 1.0, "runs", target_per_s=20.0).metadata()

    class FakeSuite:
        @staticmethod
        def load(path):
            class S:
                def get_benchmarks(self):
                    return [_bench("slow", 1.0, slow)]
            return S()

    class Done:
        returncode = 0

    monkeypatch.setattr(pyperf, "BenchmarkSuite", FakeSuite)
    monkeypatch.setattr(cli.subprocess, "run", lambda *a, **k: Done())
    assert cli.main(["bench", "--suites", "cfq"]) == 0  # reported, not failed
    assert "MISSED" in capsys.readouterr().out
    assert cli.main(["bench", "--suites", "cfq", "--check"]) == 1
    assert "targets missed: slow" in capsys.readouterr().err


def _peak_bench(name, peak_bytes):
    run = pyperf.Run([float(peak_bytes)], metadata={"name": name, "loops": 1, "unit": "byte"},
                     collect_metadata=False)
    return pyperf.Benchmark([run])


def test_a_peak_memory_companion_is_a_column_of_its_row_checked_against_the_size():
    small = Bench("small", None, 100e6, "bytes", target_peak_ratio=4.0)
    big = Bench("big", None, 100e6, "bytes", target_peak_ratio=4.0)
    alone = Bench("alone", None, 100e6, "bytes", target_peak_ratio=4.0)
    rows = {r["name"]: r for r in results([
        _bench("small", 1.0, small.metadata()), _peak_bench(small.peak_name, 250e6),
        _bench("big", 1.0, big.metadata()), _peak_bench(big.peak_name, 450e6),
        _bench("alone", 1.0, alone.metadata())])}
    assert set(rows) == {"small", "big", "alone"}  # a companion is no row of its own
    assert rows["small"]["peak_bytes"] == 250e6 and rows["small"]["peak_ratio"] == pytest.approx(2.5)
    assert rows["small"]["met"] is True and rows["small"]["target"] == "peak <= 4x size"
    assert rows["big"]["peak_ratio"] == pytest.approx(4.5) and rows["big"]["met"] is False
    assert rows["alone"]["peak_bytes"] is None and rows["alone"]["met"] is None  # no peak run: not checked
    plain = results([_bench("plain", 1.0, Bench("plain", None, 1.0, "runs").metadata())])[0]
    assert plain["peak_bytes"] is None and plain["peak_ratio"] is None
