"""iostat: sysstat 9 to 12, text and JSON, time styles and locales; jc as the oracle."""

from pathlib import Path

import jc
import pandas as pd
import pytest

from kernel_workbook.errors import WorkbookParseError
from kernel_workbook.traces import TruncatedTraceWarning, df_iostat_await, parse_iostat, read_iostat

FIX = Path(__file__).parent / "fixtures" / "traces"


def jc_key(col: str) -> str:
    return col.replace("%", "percent_").replace("/", "_").replace("-", "_").lower()


@pytest.mark.parametrize("name", ["iostat-sysstat12-x.txt", "iostat-sysstat9.0-x.txt", "iostat-sysstat11.6-x.txt",
                                  "iostat-sysstat12-dk.txt"])
def test_iostat_equals_jc(name):
    r = read_iostat(FIX / name)
    theirs = jc.parse("iostat", (FIX / name).read_text(), quiet=True)
    devs = [t for t in theirs if t["type"] == "device"]
    cpus = [t for t in theirs if t["type"] == "cpu"]
    assert r.devices["device"].tolist() == [t["device"] for t in devs]
    for c in r.devices.columns:
        k = jc_key(c)
        if k in devs[0] and c != "device":
            # jc leaves some old columns (rsec/s) as strings: compare as numbers
            assert r.devices[c].tolist() == [float(t[k]) for t in devs], c
    for c in r.cpu.columns:
        k = jc_key(c)
        if k in (cpus[0] if cpus else {}):
            assert r.cpu[c].tolist() == [float(t[k]) for t in cpus], c


@pytest.mark.parametrize("name", ["iostat-sysstat12-xt.txt", "iostat-sysstat10-xkt.txt"])
def test_jc_reads_t_time_lines_as_devices(name):
    """With -t, jc takes the time line of every report after the first for a device row."""
    theirs = jc.parse("iostat", (FIX / name).read_text(), quiet=True)
    names = [t.get("device") for t in theirs if t["type"] == "device"]
    assert any("/" in (n or "") for n in names)
    ours = parse_iostat(FIX / name)
    assert not any("/" in n for n in ours["device"])
    real = [t for t in theirs if t["type"] == "device" and "/" not in t["device"]]
    assert ours["r/s"].tolist() == [t["r_s"] for t in real]


def test_sysstat12_layout_and_since_boot():
    df = parse_iostat(FIX / "iostat-sysstat12-x.txt")
    assert list(df.columns[:7]) == ["device", "r/s", "rkB/s", "rrqm/s", "%rrqm", "r_await", "rareq-sz"]
    assert "aqu-sz" in df.columns and "%util" in df.columns and df.attrs["version"] == "sysstat 12"
    assert df["since_boot"].tolist() == [True, False, False]
    assert df.attrs["kernel"].startswith("Linux 6.") and df.attrs["ncpu"] == 2


def test_old_layout_keeps_old_names():
    df = parse_iostat(FIX / "iostat-sysstat9.0-x.txt")
    assert {"rsec/s", "avgrq-sz", "avgqu-sz", "await", "svctm"} <= set(df.columns)
    assert df.attrs["version"] == "sysstat 9-11"
    assert df.loc[2, "rsec/s"] == 56032.0 and df.loc[2, "device"] == "sda"


def test_am_pm_times_and_elapsed():
    df = parse_iostat(FIX / "iostat-sysstat10-xkt.txt")
    assert [str(t) for t in df["timestamp"]] == ["2013-09-20 10:15:01", "2013-09-20 10:15:02",
                                                 "2013-09-20 12:15:03"]
    assert df["elapsed"].tolist() == [0.0, 1.0, 7202.0]


def test_german_locale_decimal_comma_and_dotted_dates():
    r = read_iostat(FIX / "iostat-sysstat12-de-t.txt")
    df = r.devices
    assert df["r/s"].tolist() == [4.12, 1024.0] and df["%util"].tolist() == [0.52, 99.6]
    assert str(df["timestamp"].iloc[1]) == "2024-02-21 14:03:18"
    assert r.cpu["%iowait"].tolist() == [0.31, 15.79]


def test_iso_times_know_their_zone():
    df = parse_iostat(FIX / "iostat-sysstat12-xt-iso.txt")
    assert df.attrs["timezone"] == "UTC"
    assert df["time"].iloc[0] == pd.Timestamp(df["timestamp"].iloc[0], tz="UTC").timestamp()


def test_json_equals_text_names():
    r = read_iostat(FIX / "iostat-sysstat12-x.json")
    assert {"r/s", "rkB/s", "%util", "%rrqm", "aqu-sz"} <= set(r.devices.columns)
    assert list(r.cpu.columns[:6]) == ["%user", "%nice", "%system", "%iowait", "%steal", "%idle"]
    assert r.devices.attrs["version"] == "sysstat JSON"


def test_await_split_and_queue():
    new = df_iostat_await(parse_iostat(FIX / "iostat-sysstat12-de-t.txt"))
    row = new.iloc[0]
    assert row["await"] == pytest.approx((0.81 * 4.12 + 2.11 * 2.03) / (4.12 + 2.03))
    assert row["queue"] == 0.01
    old = df_iostat_await(parse_iostat(FIX / "iostat-sysstat10-xkt.txt"))
    assert old["await"].tolist() == [12.60, 2.57, 2.65] and old["r_await"].tolist() == [12.71, 2.56, 2.65]
    v9 = df_iostat_await(parse_iostat(FIX / "iostat-sysstat9.0-x.txt"))
    assert v9["r_await"].isna().all() and v9["queue"].tolist()[2] == 1.39


def test_truncated_device_line():
    text = (FIX / "iostat-sysstat9.0-x.txt").read_text().rstrip()
    cut = text[: text.rindex("sdb") + 20]
    with pytest.warns(TruncatedTraceWarning, match="truncated"):
        df = parse_iostat(cut)
    assert df["device"].tolist() == ["sda", "sdb", "sda"]


def test_junk_line_is_an_error_with_its_line():
    text = (FIX / "iostat-sysstat9.0-x.txt").read_text().replace("sdb               0.00     0.00    0.02",
                                                                 "sdb               0.00     x.00    0.02")
    with pytest.raises(WorkbookParseError) as e:
        parse_iostat(text, source="io.log")
    assert e.value.line == 8 and "numbers" in e.value.expected
