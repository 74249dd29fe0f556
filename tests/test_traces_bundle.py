"""mmtests log trees, kwb bundles, sniffing, gzip caps, and the CLI (kwb parse / compare)."""

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from kernel_workbook.cli import main
from kernel_workbook.errors import WorkbookParseError
from kernel_workbook.paths import data_dir
from kernel_workbook.tables import render
from kernel_workbook.traces import KINDS, load, scan_log_tree, sniff
from kernel_workbook.traces._common import read_source
from kernel_workbook.traces.bundle import Bundle, compare_bundles
from kernel_workbook.traces.mmtests import split_monitor_name

FIX = Path(__file__).parent / "fixtures" / "traces"
SEQ = data_dir() / "traces" / "tiobench-seqread"


def _mmtests_tree(root: Path) -> Path:
    """A results folder as mmtests writes it: <run>/iter-N/<monitor>-<test>.gz plus .start files."""
    for run in ("vanilla", "patched"):
        for it in (0, 1):
            d = root / run / f"iter-{it}"
            d.mkdir(parents=True)
            lat = (FIX / "vmstat-mmtests-latency.txt").read_bytes()
            (d / "vmstat-tiobench-async.gz").write_bytes(gzip.compress(lat))
            (d / "vmstat-tiobench-async.start").write_text("1416319216\n12345.67 23456.78\n")
            (d / "proc-vmstat-tiobench-async.gz").write_bytes(
                gzip.compress((FIX / "proc-vmstat-2.6.23-series.txt").read_bytes()))
            (d / "iostat-tiobench-async.gz").write_bytes(gzip.compress((FIX / "iostat-sysstat9.0-x.txt").read_bytes()))
            (d / "tests-timestamp").write_text("not a monitor\n")
    return root


def test_split_monitor_names():
    assert split_monitor_name("proc-vmstat-tiobench-async.gz") == ("proc-vmstat", "tiobench-async")
    assert split_monitor_name("vmstat-fio.gz") == ("vmstat", "fio")
    assert split_monitor_name("perf-event-stat-stream") == ("perf-event-stat", "stream")


def test_scan_mmtests_tree(tmp_path):
    root = _mmtests_tree(tmp_path / "results")
    logs = scan_log_tree(root)
    assert len(logs) == 12
    assert set(logs["run"]) == {"vanilla", "patched"} and set(logs["iteration"]) == {0, 1}
    v = logs[(logs["monitor"] == "vmstat")].iloc[0]
    assert v["test"] == "tiobench-async" and v["start_time"] == 1416319216 and v["start_uptime"] == 12345.67
    b = Bundle(root / "vanilla")
    df = b.load("vmstat")
    assert set(df["iteration"]) == {0, 1} and len(df) == 8 and df["time"].iloc[0] == 1416319216.4411


def test_compare_two_mmtests_runs(tmp_path):
    root = _mmtests_tree(tmp_path / "results")
    cells = compare_bundles([root / "vanilla", root / "patched"])
    text = render(cells)
    assert "vanilla" in text and "patched" in text and "vmstat bi" in text


def test_shipped_bundles_load_and_compare():
    b = load(SEQ / "readers-01")
    assert isinstance(b, Bundle) and {"vmstat", "iostat", "proc-vmstat", "fio"} <= set(b.monitors())
    assert b.manifest["exit_status"] == 0 and b.manifest["command"][0] == "fio"
    s = b.summary()
    assert (s["error"] == "").all() and (s["rows"] > 0).all()
    cells = compare_bundles([SEQ / "readers-01", SEQ / "readers-16"])
    rows = set(cells["row"])
    assert "fio read bw" in rows and any(r.startswith("iostat vda") for r in rows)


def test_cli_compare_prints_an_mmtests_table(capsys):
    assert main(["compare", str(SEQ / "readers-01"), str(SEQ / "readers-04")]) == 0
    out = capsys.readouterr().out
    head = out.splitlines()[:2]  # mmtests splits run names over two header lines: readers / 01
    assert "readers" in head[0] and "01" in head[1] and "04" in head[1]
    assert "Amean" in out and "fio read bw" in out


def test_cli_parse_csv_json_parquet(tmp_path, capsys):
    assert main(["parse", str(FIX / "vmstat-procps4.txt")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("r,b,swpd,free")
    assert main(["parse", str(FIX / "iostat-sysstat12-x.txt"), "--to", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc[0]["device"] == "vda"
    pq = tmp_path / "x.parquet"
    assert main(["parse", str(FIX / "proc-vmstat-6.18-series.txt"), "--to", "parquet", "--out", str(pq)]) == 0
    assert len(pd.read_parquet(pq)) == 3
    assert main(["parse", str(FIX / "vmstat-procps4.txt"), "--kind", "iostat"]) == 2  # the error is reported


def test_cli_parse_bad_file_reports_file_and_line(tmp_path, capsys):
    p = tmp_path / "bad.txt"
    p.write_text("procs -----------memory----------\n r  b   swpd\n 1 0 zz\n")
    assert main(["parse", str(p)]) == 2
    err = capsys.readouterr().err
    assert "bad.txt:3" in err and "expected" in err


@pytest.mark.parametrize("name", sorted(p.name for p in FIX.iterdir() if p.is_file() and not p.name.endswith(".md")))
def test_every_fixture_is_sniffed(name):
    df = load(FIX / name)
    assert df.attrs["source"].endswith(name) and df.attrs["format"] in KINDS + ("vmstat-d", "vmstat-s") or \
        df.attrs["format"] in ("iostat", "folded")


def test_gzip_is_read_by_content_and_capped(tmp_path):
    p = tmp_path / "vmstat.log"  # no .gz in the name
    p.write_bytes(gzip.compress((FIX / "vmstat-procps4.txt").read_bytes()))
    assert len(load(p)) == 4
    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(gzip.compress(b"0" * (8 << 20)))
    with pytest.raises(WorkbookParseError, match="at most 1048576 bytes"):
        read_source(bomb, max_bytes=1 << 20)
    cut = tmp_path / "cut.gz"
    data = gzip.compress((FIX / "vmstat-procps3.3-repeated-headers.txt").read_bytes())
    cut.write_bytes(data[: len(data) // 2])
    with pytest.warns(UserWarning):
        df = load(cut)
    assert 0 < len(df) < 45


def test_cli_parse_of_a_folder_with_no_monitor_log_says_what_a_bundle_holds(tmp_path, capsys):
    """An engineer's folder of captures named their own way is not a bundle: an error naming the folder, the
    names a bundle's logs have and what the folder holds (it printed 'Empty DataFrame' and exited 0)."""
    (tmp_path / "vm1.txt").write_text((FIX / "vmstat-procps4.txt").read_text())
    assert main(["parse", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "vm1.txt" in err
    assert "<monitor>-<name>" in err and "kwb parse FILE" in err and "Empty DataFrame" not in err
    (tmp_path / "vmstat-run1").write_text((FIX / "vmstat-procps4.txt").read_text())  # now named as a log: read
    assert main(["parse", str(tmp_path)]) == 0
    assert "vmstat-run1" in capsys.readouterr().out


def test_missing_file_says_so(capsys):
    with pytest.raises(WorkbookParseError, match="existing file"):
        load("/no/such/vmstat.log")
    assert main(["parse", "missing.log"]) == 2
    assert "existing file" in capsys.readouterr().err


def test_unknown_format_is_a_parse_error():
    with pytest.raises(WorkbookParseError, match="known trace format"):
        load("just some words\nand more\n")
    assert sniff("") is None
