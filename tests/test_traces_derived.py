"""Derived figures: reclaim efficiency and velocity, the 2007 loop, compaction, NUMA, iostat await;
each of mmtests' quirks (Q1..Q9 in kernel_workbook.traces.derived) shown and corrected."""

from pathlib import Path

import numpy as np
import pytest

from kernel_workbook.paths import data_dir
from kernel_workbook.traces import (compaction_summary, df_numa, df_reclaim, df_reclaim_2007, load, numa_summary,
                                    parse_proc_vmstat, reclaim_summary)

FIX = Path(__file__).parent / "fixtures" / "traces"


def test_2007_loop_on_akpms_counters_gives_his_97_7_percent():
    """Andrew Morton's -mm box: pgsteal_* are 0, kswapd_steal counts; he worked out 97.7% by hand."""
    df = parse_proc_vmstat(FIX / "proc-vmstat-2.6.23-akpm-thread.txt")
    r = df_reclaim_2007(df)
    assert r["scan"].iloc[0] == 1246816 + 448 and r["steal"].iloc[0] == 1218698
    assert r["ratio"].iloc[0] == 97  # shell integer arithmetic: 100*1218698/(1247264+1)
    assert round(100 * 1218698 / 1247264, 1) == 97.7


def test_2007_loop_is_cumulative_unless_per_interval():
    df = parse_proc_vmstat(FIX / "proc-vmstat-2.6.23-series.txt")
    cum = df_reclaim_2007(df)
    assert cum["scan"].tolist() == [1247264, 1269264, 1313264]
    assert cum["ratio"].tolist() == [100 * 1219146 // 1247265, 100 * 1234146 // 1269265,
                                     100 * 1244146 // 1313265]
    per = df_reclaim_2007(df, per_interval=True)
    assert per["scan"].tolist() == [22000, 44000] and per["steal"].tolist() == [15000, 10000]
    assert per["ratio"].tolist() == [100 * 15000 // 22001, 100 * 10000 // 44001]


def test_reclaim_2_6_subtracts_kswapd_steal_from_pgsteal_q2():
    df = parse_proc_vmstat(FIX / "proc-vmstat-2.6.23-series.txt")
    r = df_reclaim(df)
    # interval 1: pgsteal_dma32 +15000 (all reclaim), kswapd_steal +14000 -> direct steal 1000
    assert r["kswapd_steal"].tolist() == [14000, 8000]
    assert r["direct_steal"].tolist() == [1000, 2000]
    assert r["kswapd_scan"].tolist() == [20000, 40000] and r["direct_scan"].tolist() == [2000, 4000]
    assert r["kswapd_efficiency"].tolist() == [70.0, 20.0]
    assert r["kswapd_velocity"].tolist() == [20000.0, 40000.0]
    # MonitorProcvmstat would have said direct steal 15000 and 10000 (kswapd_steal never subtracted)


def test_reclaim_zone_lru_kernel_and_summary():
    df = parse_proc_vmstat(FIX / "proc-vmstat-3.10-two.txt")
    s = reclaim_summary(df)
    assert s["kswapd_scan"] == 120000 and s["kswapd_steal"] == 108000 and s["kswapd_efficiency"] == 90.0
    assert s["direct_scan"] == 8000 and s["direct_efficiency"] == 50.0
    assert s["kswapd_velocity"] == 12000.0 and s["direct_percentage"] == pytest.approx(100 * 8000 / 128000)
    assert s["allocstall"] == 40


def test_node_lru_counted_once_q1():
    """4.8+ kernels print pgscan_kswapd/pgscan_direct once per node-LRU; mmtests' time series adds each twice."""
    text = "\n".join(["time: 10", "pgscan_kswapd 1000", "pgsteal_kswapd 900", "pgscan_direct 10",
                      "pgsteal_direct 5", "time: 12", "pgscan_kswapd 3000", "pgsteal_kswapd 2700",
                      "pgscan_direct 110", "pgsteal_direct 55"]) + "\n"
    r = df_reclaim(parse_proc_vmstat(text))
    assert r["kswapd_scan"].iloc[0] == 2000 and r["kswapd_velocity"].iloc[0] == 1000.0
    assert r["direct_scan"].iloc[0] == 100 and r["direct_efficiency"].iloc[0] == 50.0


def test_efficiency_with_nothing_scanned_is_nan_q3():
    text = "time: 1\npgscan_kswapd 5\npgsteal_kswapd 5\ntime: 2\npgscan_kswapd 5\npgsteal_kswapd 5\n"
    df = parse_proc_vmstat(text)
    assert np.isnan(df_reclaim(df)["kswapd_efficiency"].iloc[0])
    assert df_reclaim(df, mmtests_compat=True)["kswapd_efficiency"].iloc[0] == 100.0


def test_allocstall_per_zone_is_summed_q4():
    text = "time: 1\nallocstall_dma 0\nallocstall_dma32 1\nallocstall_normal 2\nallocstall_movable 0\n" \
           "time: 2\nallocstall_dma 0\nallocstall_dma32 4\nallocstall_normal 12\nallocstall_movable 0\n"
    assert reclaim_summary(parse_proc_vmstat(text))["allocstall"] == 13  # mmtests keeps the last read: 0


def test_compaction_q5_q7():
    df = parse_proc_vmstat(FIX / "proc-vmstat-3.10-two.txt")
    c = compaction_summary(df)
    assert c["compact_stall"] == 12 and c["compact_efficiency"] == 75.0
    assert c["cscan_efficiency"] == 25.0
    fixed = compaction_summary(df)["compaction_cost"]
    mm = compaction_summary(df, mmtests_compat=True)["compaction_cost"]
    assert fixed - mm == pytest.approx(56 / 8 * 96000 / 1e6)  # the free scanner's term mmtests drops
    text = "time: 1\ncompact_stall 0\ncompact_migrate_scanned 0\ncompact_free_scanned 0\n" \
           "time: 2\ncompact_stall 0\ncompact_migrate_scanned 10\ncompact_free_scanned 0\n"
    assert np.isnan(compaction_summary(parse_proc_vmstat(text))["cscan_efficiency"])
    assert compaction_summary(parse_proc_vmstat(text), mmtests_compat=True)["cscan_efficiency"] == 1.0


def test_numa_q6_q9():
    df = parse_proc_vmstat(FIX / "proc-vmstat-3.10-two.txt")
    n = df_numa(df)
    assert n["numa_hint_faults"].iloc[0] == 10000 and n["hint_local_pct"].iloc[0] == 75.0
    assert n["numa_hint_faults_remote"].iloc[0] == 2500 and n["migrate_rate"].iloc[0] == 120.0
    s = numa_summary(df)
    diff = s["autonuma_cost"] - numa_summary(df, mmtests_compat=True)["autonuma_cost"]
    assert diff == pytest.approx((56 / 8 + 4096 / 8) * 1200 / 1e6)  # the page-copy term mmtests drops
    text = "time: 1\nnuma_hint_faults 3\nnuma_hint_faults_local 3\ntime: 2\nnuma_hint_faults 3\n" \
           "numa_hint_faults_local 3\n"
    assert np.isnan(df_numa(parse_proc_vmstat(text))["hint_local_pct"].iloc[0])


def test_real_memory_pressure_capture_shows_kswapd_reclaim():
    b = load(data_dir() / "traces" / "memory-pressure" / "bundle")
    pv = b.load("proc-vmstat")
    s = reclaim_summary(pv)
    assert s["kswapd_scan"] > 100000 and s["kswapd_steal"] > 0 and 0 < s["kswapd_efficiency"] <= 100
    r = df_reclaim(pv)
    assert (r["kswapd_scan"] > 0).sum() >= 2
