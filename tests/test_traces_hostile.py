"""Hostile and damaged inputs (issue 15): only WorkbookParseError escapes, a cut value is never returned.

Each case is one the issue measured on the earlier parsers; the comment says what it did then.
"""

import gzip
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from kernel_workbook import traces as T
from kernel_workbook.errors import WorkbookParseError
from kernel_workbook.traces import TruncatedTraceWarning, load
from trace_formats import BY_FORMAT

FIX = Path(__file__).parent / "fixtures" / "traces"


def _no_warnings(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("error", TruncatedTraceWarning)
        return fn(*a, **k)


# ---------------------------------------------------------------- a file cut inside its last number

# every fixture of every format (tests/trace_formats.py): each loaded whole, then cut inside its last number
CUT_CASES = [(p.name, kind) for fixtures in BY_FORMAT.values() for p, kind in fixtures]


@pytest.mark.parametrize("fixture,kind", CUT_CASES)
def test_a_value_cut_short_is_never_returned(fixture, kind):
    text = (FIX / fixture).read_text()
    whole = _no_warnings(load, text, kind=kind)
    body = text.rstrip("\n")
    # cut after the first digit of the last number on the last line: "1333034" -> "1"
    k = max(i for i, ch in enumerate(body) if ch.isdigit() and (i == 0 or not body[i - 1].isdigit()))
    cut = body[:k + 1]
    if text.lstrip().startswith("{"):  # one JSON document: cut anywhere, it is refused whole, naming the line
        with pytest.raises(WorkbookParseError, match=r"^<bytes>:\d+: expected "):
            load(cut.encode(), kind=kind)  # as bytes: a one-line text would name a file
        return
    with pytest.warns(TruncatedTraceWarning, match="truncated"):
        got = load(cut, kind=kind)
    assert len(got) <= len(whole)
    shared = [c for c in got.columns if c in whole.columns and c not in ("elapsed",)]
    for c in shared:  # every value that is returned is the uncut one
        a, b = got[c].iloc[:len(got)].to_numpy(), whole[c].iloc[:len(got)].to_numpy()
        if a.dtype.kind in "fiu" and b.dtype.kind in "fiu":
            assert np.array_equal(a.astype(float), b.astype(float), equal_nan=True), (fixture, c)
        else:
            assert list(a) == list(b), (fixture, c)


def test_pgfault_cut_to_13330_is_not_13330():
    text = "nr_free_pages 12\npgfault 1333034\n"
    with pytest.warns(TruncatedTraceWarning, match="truncated last line 'pgfault 13330'"):
        df = T.parse_proc_vmstat(text[:-3])
    assert "pgfault" not in df.columns


def test_a_partial_proc_vmstat_snapshot_is_dropped_not_kept_as_nan():
    text = (FIX / "proc-vmstat-3.10-two.txt").read_text()
    lines = text.split("\n")
    cut = "\n".join(lines[: len(lines) - 20]) + "\n"  # a line boundary inside the second snapshot
    with pytest.warns(TruncatedTraceWarning, match="snapshot"):
        df = T.parse_proc_vmstat(cut)
    assert len(df) == 1 and df["pgfault"].dtype.kind == "i"


# ---------------------------------------------------------------- perf stat text raises on bad data

GOOD_STAT = " Performance counter stats for 'x':\n\n     1,234.50 msec task-clock   #    0.5 CPUs utilized\n{}\n" \
            "\n       1.002 seconds time elapsed\n"


@pytest.mark.parametrize("bad", ["      12a34      cycles", "      1234  foo  cycles",
                                  "      1234      cycles   #  1.3x98 GHz"])
def test_perf_stat_bad_counter_line_is_an_error_with_its_line(bad):
    with pytest.raises(WorkbookParseError, match=r"<text>:4: expected a perf stat counter line"):
        T.parse_perf_stat(GOOD_STAT.format(bad))


@pytest.mark.parametrize("sep", [" ", "\u00a0", "\u202f"])
def test_perf_stat_locale_grouping_and_decimal_comma(sep):
    text = (" Performance counter stats for 'sleep 1':\n\n"
            f"              1{sep}234,56 msec task-clock        #    0,001 CPUs utilized\n"
            f"                 8{sep}427      context-switches  #    2,661 K/sec\n"
            f"         1{sep}234{sep}567      cycles\n\n"
            "       1,002345678 seconds time elapsed\n\n")
    df = _no_warnings(T.parse_perf_stat, text)
    assert df.set_index("event")["value"].to_dict() == {"task-clock": 1234.56, "context-switches": 8427.0,
                                                        "cycles": 1234567.0, "time elapsed": 1.002345678}
    assert df.loc[df["event"] == "task-clock", "unit"].iloc[0] == "msec"
    assert df.attrs["decimal"] == ","


def test_perf_stat_continuation_variance_old_msec_unit_and_aggregation_prefixes():
    text = (" Performance counter stats for 'system wide' (3 runs):\n\n"
            "       1708.761321 task-clock (msec)         #   11.037 CPUs utilized\n"
            "S0-D0-CLS0        4     1,234      cycles\n"
            "S0-D0-C1          2        55      instructions\n"
            "             1,234      some-event-with-a-very-long-name              # 1.0 /sec\n"
            "                                                  ( +-  2.71% )\n\n"
            "       0.100 seconds time elapsed\n")
    df = _no_warnings(T.parse_perf_stat, text)
    assert df.loc[0, "unit"] == "msec"
    assert list(df["cpu"][:3]) == ["", "S0-D0-CLS0", "S0-D0-C1"]
    assert df.loc[3, "variance_pct"] == 2.71


def test_perf_stat_interval_csv_with_started_on_is_sniffed():
    text = "# started on Mon Nov 24 17:00:00 2026\n\n     1.001080079,1234,,cycles,1000,100.00,,\n"
    df = _no_warnings(load, text)
    assert df.attrs["format"] == "perf-stat" and df.loc[0, "value"] == 1234 and df.loc[0, "time"] > 1


# ---------------------------------------------------------------- formats

def test_multi_node_pagetypeinfo_is_one_snapshot():
    t = (FIX / "pagetypeinfo-6.18.txt").read_text()
    two = t + t.replace("Node    0", "Node    1").replace("Node 0", "Node 1")
    df = _no_warnings(T.parse_pagetypeinfo, two)
    assert df["sample"].unique().tolist() == [0] and sorted(df["node"].unique()) == [0, 1]
    assert _no_warnings(T.parse_pagetypeinfo, two + two)["sample"].unique().tolist() == [0, 1]


def test_zoneinfo_protection_must_be_numbers_and_old_scanned_line_reads():
    z = "Node 0, zone   Normal\n  pages free     1\n        protection: (0, 0, 12x4, 0, 0)\n"
    with pytest.raises(WorkbookParseError, match=r":3: expected 'protection"):
        T.parse_zoneinfo(z)
    old = "Node 0, zone   Normal\n  pages free     1\n        scanned  0 (a: 3 i: 4)\n"
    df = _no_warnings(T.parse_zoneinfo, old)
    assert df.set_index("counter")["value"].to_dict() == {"pages free": 1, "pages_scanned": 0,
                                                          "nr_scan_active": 3, "nr_scan_inactive": 4}


@pytest.mark.parametrize("unit", ["K", "M", ""])
def test_vmstat_s_with_and_without_units(unit):
    text = f"     16307348 {unit} total memory\n      4589048 {unit} used memory\n        12 pages paged in\n"
    text = text.replace("  total", " total").replace("  used", " used")
    df = _no_warnings(load, text)
    assert df.attrs["format"] == "vmstat-s" and df["value"].tolist()[:2] == [16307348, 4589048]
    assert df["unit"].tolist()[:2] == [unit, unit]


# ---------------------------------------------------------------- vmstat numbers

def test_vmstat_value_beyond_int64_is_an_error_not_saturated():
    text = (FIX / "vmstat-procps4.txt").read_text()
    lines = text.split("\n")
    lines[3] = lines[3].replace(lines[3].split()[3], "99999999999999999999999", 1)
    with pytest.raises(WorkbookParseError, match=":4: expected"):
        T.parse_vmstat("\n".join(lines))


def test_vmstat_fast_path_refuses_a_decimal_instead_of_truncating():
    lines = (FIX / "vmstat-procps4.txt").read_text().rstrip("\n").split("\n")
    head, rows = lines[:2], lines[2:]
    big = "\n".join(head + rows * 400) + "\n"
    assert len(big) > 20000  # the numba path
    assert len(_no_warnings(T.parse_vmstat, big)) == len(rows) * 400
    t = rows[0].split()
    t[4] += ".436"  # "2444" -> "2444.436", which the C reader would load as 2444
    bad = "\n".join(head + [" ".join(t)] + rows * 400) + "\n"
    with pytest.raises(WorkbookParseError, match=":3: expected"):
        T.parse_vmstat(bad)


# ---------------------------------------------------------------- only WorkbookParseError escapes

def _deep_json(n):
    return "[" * n + "]" * n


HOSTILE = [
    ("proc-vmstat", "nr_free_pages " + "9" * 5000 + "\n"),
    ("fio-json", '{"fio version": "fio-3", "jobs": [{"jobname": "a", "read": {"bw": ' + "9" * 5000 + "}}]}"),
    ("fio-json", '{"fio version": "x", "jobs": ' + _deep_json(100000) + "}"),
    (None, _deep_json(100000)),
    ("vmstat", "procs\n r  b\n 1 \x00 2\n"),
    ("perf-stat", "\ufeff Performance counter stats for 'x':\n\n 12a cycles\n"),
    ("zoneinfo", "Node 0, zone Normal\n  protection: (0, 0, " + "9" * 5000 + ")\n"),
    # the formats of issue 15's last items
    ("perf-stat", "time,core,cpus,retiring,\n1.0,S0-D0-C0,2,12x3,\n"),            # a metric that is no number
    ("perf-stat", "time,core,cpus,retiring,\n1.0,S0-D0-C0,2,1,2,\n1.0,S0-D0-C1,2,3,\n"),  # more cells than names
    ("perf-stat", "time,core,cpus,a,b,\n1.0,S0-D0-C0,2,1,\n1.0,S0-D0-C1,2,3,4,\n"),  # a row short, mid-file
    ("perf-stat", "time,core,cpus,retiring,\nS0-D0-C0,2,1,\n"),                    # no time under 'time'
    ("perf-stat", "time,core,cpus,retiring,\n1.0,2,1,\n"),                          # no core id under 'core'
    ("perf-stat", ",,,,1.48,stalled cycles per insn\n10,,cycles,5,100.00,,\n"),     # a metric line with no counter
    ("perf-stat", "10,,cycles,5x,100.00,,\n11,,instructions,5,100.00,,\n"),         # a run time that is no number
    ("perf-stat", "#           time socket cpus  insn per cycle\n  0.1 S0  2  0.57\n"),  # text --metric-only
    ("vmstat-p", "vda reads read sectors writes requested writes\n 1 2 3\n 1 2 3 4\n"),
    ("vmstat-p", "vda reads read sectors writes requested writes\n 1 2 3 " + "9" * 25 + "\n 1 2 3 4\n"),
    ("vmstat-p", "vda reads read sectors written\n 1 2 3\n"),                       # a column vmstat never names
    ("vmstat-D", "  10 disks\n  x partitions\n"),
    ("vmstat-D", "  10 disks\n  " + "9" * 19 + " partitions\n"),
    ("meminfo", "        total:    used:    free:  shared: buffers:  cached:\nMem:  1 2 3 4 5\nMemTotal: 1 kB\n"),
    ("meminfo", "        total:    used:    free:  shared: buffers:  cached:\nMem:  1 2 3 4 5 " + "9" * 21
     + "\nMemTotal: 1 kB\n"),
    ("meminfo", "Swap: 1 2 3\nMemTotal: 1 kB\n"),                                      # a table row, no table
]


@pytest.mark.parametrize("kind,text", HOSTILE)
def test_hostile_text_raises_only_workbook_parse_error(kind, text):
    with pytest.raises(WorkbookParseError):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            load(text, kind=kind)


def test_manifest_folder_and_bad_interval(tmp_path):
    b = tmp_path / "b"
    (b / "manifest.json").mkdir(parents=True)
    with pytest.raises(WorkbookParseError, match="manifest.json: expected a file"):
        load(b)
    (b / "manifest.json").rmdir()
    (b / "manifest.json").write_text(json.dumps({"interval": "abc"}))
    with pytest.raises(WorkbookParseError, match="'interval': a positive number"):
        load(b)


def test_devices_and_fifos_are_refused_without_reading(tmp_path):
    with pytest.raises(WorkbookParseError, match="regular file"):
        load(Path("/dev/zero"))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(WorkbookParseError, match="regular file"):  # a hang here would time the test out
        load(fifo)
    with pytest.raises(WorkbookParseError, match="regular file"):
        load(str(fifo))


def test_a_start_file_that_is_a_fifo_is_refused_not_waited_on(tmp_path):
    """mmtests' ``<monitor>.start`` beside a log was read with ``read_text``: a FIFO of that name hung the reader."""
    import signal

    from kernel_workbook.traces.mmtests import parse_start

    os.mkfifo(tmp_path / "vmstat-x.start")

    def hung(*_):
        raise TimeoutError("parse_start waited on a FIFO")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        with pytest.raises(WorkbookParseError, match=r"vmstat-x\.start: expected a regular file"):
            parse_start(tmp_path / "vmstat-x.start")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert parse_start(tmp_path / "missing.start") == (None, None)


def test_bom_crlf_and_utf16_read_like_plain_utf8(tmp_path):
    text = (FIX / "meminfo-6.18.txt").read_text()
    plain = _no_warnings(load, text)
    for name, data in [("bom", b"\xef\xbb\xbf" + text.encode()), ("crlf", text.replace("\n", "\r\n").encode()),
                       ("utf16", text.encode("utf-16"))]:
        p = tmp_path / name
        p.write_bytes(data)
        df = _no_warnings(load, p)
        assert df.drop(columns=[c for c in df.columns if c == "source"]).equals(plain), name
    fio = (FIX / "fio-3.33-seqread.json").read_bytes()
    (tmp_path / "fio").write_bytes(b"\xef\xbb\xbf" + fio)
    assert load(tmp_path / "fio").attrs["format"] == "fio-json"


def test_gzip_trailing_bytes_are_an_error_and_a_cut_stream_warns(tmp_path):
    raw = (FIX / "vmstat-procps4.txt").read_bytes()
    gz = gzip.compress(raw)
    p = tmp_path / "v"
    p.write_bytes(gz + b"garbage")
    with pytest.raises(WorkbookParseError, match="nothing after the last gzip member"):
        load(p)
    p.write_bytes(gz + gz)  # concatenated members are one stream (gzip -c a b)
    assert len(_no_warnings(load, p)) == 2 * len(_no_warnings(load, FIX / "vmstat-procps4.txt"))
    p.write_bytes(gz[: len(gz) - 12])
    with pytest.warns(TruncatedTraceWarning):
        load(p, kind="vmstat")


def test_refused_gzip_bomb_stays_under_256_mb(tmp_path):
    """320 MiB of zeros (the cap is 96 MiB): refused at the default cap, with the peak memory of the process under 256 MB."""
    bomb = tmp_path / "bomb.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as f:
        block = b"0" * (1 << 20)
        for _ in range(320):
            f.write(block)
    code = ("import resource, sys\nfrom kernel_workbook.traces import load\nfrom kernel_workbook.errors import "
            "WorkbookParseError\ntry:\n    load(sys.argv[1])\nexcept WorkbookParseError as e:\n    print('refused', e)\n"
            "print([ln.split()[1] for ln in open('/proc/self/status') if ln.startswith('VmHWM')][0])\n")
    env = {k: v for k, v in os.environ.items() if k != "KWB_MAX_DECOMPRESSED"}
    r = subprocess.run([sys.executable, "-c", code, str(bomb)], capture_output=True, text=True, env=env, check=True)
    out = r.stdout.strip().split("\n")
    assert out[0].startswith("refused") and "more than" in out[0]
    assert int(out[-1]) * 1024 <= 256 << 20, f"peak {int(out[-1]) / 1024:.0f} MB"


def test_vmstat_t_with_the_zone_on_every_row_procps_3_2_8():
    t = (FIX / "vmstat-procps4-t.txt").read_text()
    lines = t.split("\n")
    new = lines[0:1] + [lines[1].rstrip()[:-3].rstrip()] + [ln + " CET" if ln.strip() else ln for ln in lines[2:]]
    df = _no_warnings(T.parse_vmstat, "\n".join(new))
    ref = _no_warnings(T.parse_vmstat, t)
    assert df.attrs["timezone"] == "CET" and len(df) == len(ref)
    assert (ref["time"] - df["time"]).round(6).unique().tolist() == [3600.0]  # 05:34 CET is 04:34 UTC
    mixed = new[:3] + [new[3].replace(" CET", " CEST")] + new[4:]
    df = _no_warnings(T.parse_vmstat, "\n".join(mixed))
    assert df.attrs["timezone"] == "MIXED" and "time" not in df.columns  # no guessed conversion
