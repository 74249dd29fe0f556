"""buddyinfo, pagetypeinfo, zoneinfo, meminfo; fio and pyperf JSON."""

import json
from pathlib import Path

import jc
import pytest

from kernel_workbook.errors import WorkbookParseError
from kernel_workbook.traces import (TruncatedTraceWarning, load, parse_buddyinfo, parse_fio_json, parse_meminfo,
                                    parse_pagetypeinfo, parse_zoneinfo)
from kernel_workbook.traces.procfs import df_pagetypeinfo_free, df_zoneinfo_wide

FIX = Path(__file__).parent / "fixtures" / "traces"


def test_buddyinfo_equals_jc():
    df = parse_buddyinfo(FIX / "buddyinfo-6.18.txt")
    theirs = jc.parse("proc_buddyinfo", (FIX / "buddyinfo-6.18.txt").read_text(), quiet=True)
    assert df["zone"].tolist() == [t["zone"] for t in theirs]
    orders = [c for c in df.columns if c.startswith("order_")]
    assert df[orders].to_numpy().tolist() == [t["free_chunks"] for t in theirs]


def test_buddyinfo_series():
    one = (FIX / "buddyinfo-6.18.txt").read_text()
    text = f"time: 100\n{one}time: 101\n{one}"
    df = parse_buddyinfo(text)
    assert df["sample"].tolist() == [0, 0, 0, 1, 1, 1] and df["elapsed"].max() == 1.0


def test_pagetypeinfo_free_section_equals_jc():
    df = parse_pagetypeinfo(FIX / "pagetypeinfo-6.18.txt")
    theirs = jc.parse("proc_pagetypeinfo", (FIX / "pagetypeinfo-6.18.txt").read_text(), quiet=True)
    grid = df_pagetypeinfo_free(df)
    assert grid.to_numpy().tolist() == [t["free"] for t in theirs["free_pages"]]
    assert df.attrs["page_block_order"] == theirs["page_block_order"] == 9


@pytest.mark.parametrize("name", ["pagetypeinfo-3.10-reserve-cma.txt", "pagetypeinfo-5.10-highatomic-cma.txt"])
def test_jc_mislabels_block_types_we_read_the_header(name):
    """jc assumes five block types (Unmovable Movable Reclaimable HighAtomic Isolate) in that order."""
    theirs = jc.parse("proc_pagetypeinfo", (FIX / name).read_text(), quiet=True)
    df = parse_pagetypeinfo(FIX / name)
    blocks = df[df["section"] == "blocks"]
    first_zone = blocks[(blocks["node"] == 0)].groupby("zone", sort=False).first().index[0]
    ours = blocks[(blocks["node"] == 0) & (blocks["zone"] == first_zone)].set_index("type")["count"]
    jc0 = theirs["num_blocks_type"][0]
    names = {"unmovable": "Unmovable", "movable": "Movable", "reclaimable": "Reclaimable",
             "high_atomic": "HighAtomic", "isolate": "Isolate"}
    wrong = [k for k, t in names.items() if t not in ours.index or ours[t] != jc0[k]]
    assert wrong  # jc put some column under the wrong type
    assert "CMA" in df.attrs["types"] and "cma" not in jc0
    assert len(df.attrs["types"]) == 6


def test_pagetypeinfo_reserve_values():
    df = parse_pagetypeinfo(FIX / "pagetypeinfo-3.10-reserve-cma.txt")
    b = df[df["section"] == "blocks"].set_index(["zone", "type"])["count"]
    assert b[("DMA32", "Reserve")] == 2 and b[("DMA32", "CMA")] == 32 and b[("DMA32", "Movable")] == 984
    f = df[(df["section"] == "free") & (df["zone"] == "DMA32") & (df["type"] == "CMA")]
    assert f["count"].tolist() == [40, 12, 8, 4, 2, 1, 0, 0, 0, 0, 6]


def test_pagetypeinfo_narrow_dtypes_refuse_what_they_cannot_hold():
    """node int16 and order int8 (the kernel's ranges, see parse_pagetypeinfo): a node id or an order beyond them
    is refused naming its line, never wrapped round; the largest that fit are read as they are."""
    text = (FIX / "pagetypeinfo-6.18.txt").read_text()
    df = parse_pagetypeinfo(text.replace("Node    0,", "Node 32767,").replace("Node 0,", "Node 32767,"))
    assert set(df["node"]) == {32767} and str(df["node"].dtype) == "int16" and str(df["order"].dtype) == "int8"
    lines = text.split("\n")
    for bad in (text.replace("Node    0,", "Node 32768,", 1), text.replace("Node 0,", "Node 99999,", 1),
                text.replace(" 10 ", " 128 ", 1)):  # a free row, a block row, the orders header
        with pytest.raises(WorkbookParseError) as e:
            parse_pagetypeinfo(bad)
        changed = next(i for i, (x, y) in enumerate(zip(bad.split("\n"), lines)) if x != y) + 1
        assert e.value.line == changed and "below" in str(e.value)


def test_zoneinfo_two_nodes_node_1_starts_at_normal():
    df = parse_zoneinfo(FIX / "zoneinfo-4.x-two-nodes.txt")
    zones = df.groupby("node")["zone"].unique().to_dict()
    assert list(zones[0]) == ["DMA", "DMA32", "Normal"] and list(zones[1]) == ["Normal"]
    node1 = df[(df["node"] == 1) & (df["scope"] == "node")]
    assert node1.set_index("counter")["value"]["nr_active_anon"] == 90001
    w = df_zoneinfo_wide(df)
    n1 = w[(w["node"] == 1)].iloc[0]
    assert n1["pages free"] == 4012201 and n1["start_pfn"] == 4456448 and n1["protection[0]"] == 0
    ps = df[(df["scope"] == "pageset") & (df["node"] == 0) & (df["zone"] == "DMA")]
    assert ps[ps["counter"] == "count"]["cpu"].tolist() == [0, 1]


def test_jc_zoneinfo_puts_zone_fields_in_the_last_pageset():
    """jc files node_unreclaimable and start_pfn under the last CPU's pageset; we keep them zone-wide."""
    theirs = jc.parse("proc_zoneinfo", (FIX / "zoneinfo-4.x-two-nodes.txt").read_text(), quiet=True)
    assert "start_pfn" in theirs[0]["DMA"]["pagesets"][-1]
    df = parse_zoneinfo(FIX / "zoneinfo-4.x-two-nodes.txt")
    sp = df[df["counter"] == "start_pfn"]
    assert (sp["scope"] == "zone").all() and (sp["cpu"] == -1).all()


def test_zoneinfo_real_capture():
    df = parse_zoneinfo(FIX / "zoneinfo-6.18.txt")
    w = df_zoneinfo_wide(df)
    assert {"DMA", "DMA32", "Normal"} <= set(w["zone"]) and (w["managed"] <= w["present"]).all()


def test_meminfo_equals_jc():
    df = parse_meminfo(FIX / "meminfo-6.18.txt")
    theirs = jc.parse("proc_meminfo", (FIX / "meminfo-6.18.txt").read_text(), quiet=True)
    for k, v in theirs.items():
        assert df[k].iloc[0] == v, k
    assert df.attrs["units"]["MemTotal"] == "kB" and "HugePages_Total" not in df.attrs["units"]


def test_meminfo_per_node():
    text = "Node 0 MemTotal:       12000 kB\nNode 0 MemFree:         8000 kB\n" \
           "Node 1 MemTotal:       12000 kB\nNode 1 MemFree:         7000 kB\n"
    df = parse_meminfo(text)
    assert df["node"].tolist() == [0, 1] and df["MemFree"].tolist() == [8000, 7000]


def test_procfs_truncation_and_errors():
    text = (FIX / "buddyinfo-6.18.txt").read_text().rstrip("\n")
    with pytest.warns(TruncatedTraceWarning):
        df = parse_buddyinfo(text[: len(text) - 30])
    assert len(df) == 2
    with pytest.raises(WorkbookParseError) as e:
        parse_pagetypeinfo("Page block order: 9\nNode 0, zone DMA 1 2\n")
    assert e.value.line == 2


def test_fio_json():
    df = parse_fio_json(FIX / "fio-3.33-seqread.json")
    assert df.attrs["version"] == "fio-3.33" and set(df["direction"]) == {"read"}
    doc = json.loads((FIX / "fio-3.33-seqread.json").read_text())
    assert df["bw"].tolist() == [j["read"]["bw"] for j in doc["jobs"]]
    assert df["clat_ns.percentile.99.000000"].iloc[0] == doc["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"]


def test_pyperf_json(tmp_path):
    doc = {"version": "1.0", "metadata": {"unit": "second", "python_version": "3.11"},
           "benchmarks": [{"metadata": {"name": "parse", "loops": 8},
                           "runs": [{"metadata": {"calibrate_loops": 8}, "warmups": [[8, 0.5]]},
                                    {"metadata": {}, "warmups": [[8, 0.2]], "values": [0.11, 0.12, 0.13]}]}]}
    p = tmp_path / "r.json"
    p.write_text(json.dumps(doc))
    df = load(p)
    assert df.attrs["format"] == "pyperf-json"
    assert df.loc[~df["warmup"], "value"].tolist() == [0.11, 0.12, 0.13]
    assert df.loc[df["warmup"], "run"].tolist() == [0, 1]


def test_meminfo_of_linux_2_4_reads_the_byte_table_and_the_kb_lines():
    """/proc/meminfo of 2.4.2-pre1 as quoted on linux-kernel (fixtures README): the table in bytes, then kB."""
    df = load(FIX / "meminfo-2.4.2.txt")
    assert df.attrs["format"] == "meminfo" and len(df) == 1
    r = df.iloc[0]
    assert [r[f"Mem.{c}"] for c in ("total", "used", "free", "shared", "buffers", "cached")] == \
        [525897728, 465264640, 60633088, 0, 82145280, 287862784]
    assert [r[f"Swap.{c}"] for c in ("total", "used", "free")] == [270909440, 0, 270909440]
    assert r["MemTotal"] == 513572 and r["Inact_dirty"] == 338996 and r["SwapFree"] == 264560
    assert df.attrs["units"]["Mem.total"] == "B" and df.attrs["units"]["MemTotal"] == "kB"
    assert r["Mem.total"] == r["MemTotal"] * 1024 and r["Swap.free"] == r["SwapFree"] * 1024  # bytes and kB agree


def test_meminfo_2_4_underflowed_cached_is_kept_exactly():
    """2.4.13-ac5 printed cached as 18446744073370112000 (an underflow, past 2**63): kept, not saturated."""
    t = (FIX / "meminfo-2.4.2.txt").read_text().replace(" 287862784\n", " 18446744073370112000\n")
    df = parse_meminfo(t)
    assert df["Mem.cached"].dtype == "uint64" and int(df["Mem.cached"].iloc[0]) == 18446744073370112000


@pytest.mark.parametrize("bad,line", [
    ("Mem:  1 2 3 4 5\n", 2),                     # five numbers under six names
    ("Mem:  1 2 3 4 5 6x\n", 2),                  # a cell that is not a number
    ("Mem:  1 2 3 4 5 6\nSwap: 1 2\n", 3),        # the swap row has total used free
    ("Mem:  1 2 3 4 5 6\nMem:  1 2 3 4 5 6\n", 3),  # a second Mem row
])
def test_meminfo_2_4_bad_table_rows_name_their_line(bad, line):
    t = "        total:    used:    free:  shared: buffers:  cached:\n" + bad + "MemTotal:  1 kB\n"
    with pytest.raises(WorkbookParseError) as e:
        parse_meminfo(t)
    assert e.value.line == line
