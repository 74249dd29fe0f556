"""The frames the 2015 notebook shows of its NUMA01 runs (heuristics/numa/charts.py)."""

import pytest

from kernel_workbook.heuristics.numa import charts as C
from kernel_workbook.models.numa import NO_GROUP_RULES, kernel_params, simulate

TWO = ("3.19.0 vanilla", "4.0.0-rc1 vanilla")


@pytest.fixture(scope="module")
def runs():
    return C.runs_numa01(TWO)


def test_runs_numa01_is_run_once(runs):
    assert C.runs_numa01(TWO) is runs
    assert list(runs) == list(TWO)
    assert runs["3.19.0 vanilla"].workload.name == "NUMA01"


def test_df_numa01_counters(runs):
    d = C.df_numa01_counters(runs)
    assert list(d.columns) == list(TWO) and list(d.index) == list(C.NUMA01_COUNTERS)
    assert d.loc["numa_pages_migrated", "4.0.0-rc1 vanilla"] == runs["4.0.0-rc1 vanilla"].counters[
        "numa_pages_migrated"]
    # the thread's story: 3.19's threads join numa groups, 4.0-rc1 flags every fault TNF_NO_GROUP
    assert d.loc["group_joins", "3.19.0 vanilla"] > 0
    assert d.loc["group_joins", "4.0.0-rc1 vanilla"] == 0
    assert (d.loc["numa_hint_faults_local"] <= d.loc["numa_hint_faults"]).all()


def test_df_no_group_rules():
    d = C.df_no_group_rules("4.0.0-rc1 vanilla")
    assert list(d.columns) == list(NO_GROUP_RULES)
    assert list(d.index) == ["group_joins", "no_group_faults", "numa_pages_migrated", "local %", "system_s"]
    # only "always read-only" keeps every group from forming
    assert d.loc["group_joins", "always_read_only"] == 0
    assert (d.loc["group_joins", [r for r in NO_GROUP_RULES if r != "always_read_only"]] > 0).all()
    assert ((d.loc["local %"] >= 0) & (d.loc["local %"] <= 100)).all()


def test_df_placement_and_prose(runs):
    d = C.df_placement(runs, TWO)
    assert list(d.columns) == ["kernel", "first_s", "first", "mid_s", "mid", "remote_pct"]
    assert list(d["kernel"]) == list(TWO)
    for row in d.itertuples():
        assert row.first_s < row.mid_s
        # NUMA01: two processes of 24 threads each over the machine's four nodes, every thread counted once
        for when in (row.first, row.mid):
            assert len(when) == 2 and all(len(nodes) == 4 and sum(nodes) == 24 for nodes in when)
        assert 0 <= row.remote_pct <= 100
    text = [p.text for p in C.placement_prose(d)]
    assert len(text) == 2 and text[0].startswith("**3.19.0 vanilla**: threads per node (process A, process B): at ")
    assert text[1].endswith(f"remote accesses {d['remote_pct'].iloc[1]:.0f} %")


def test_df_isolate_fail_sweep():
    d = C.df_isolate_fail_sweep((0.0, 0.1), ("4.0.0-rc1 slowscan-v2",))
    assert list(d.columns) == [0.0, 0.1] and d.columns.name == "isolate_lru_fail_prob"
    assert list(d.index) == ["4.0.0-rc1 slowscan-v2: migrated (M pages)", "4.0.0-rc1 slowscan-v2: pte updates (M)"]
    r = simulate(kernel_params("4.0.0-rc1 slowscan-v2", isolate_lru_fail_prob=0.1), C.numa01_short(), seed=1,
                 verbose=False)
    assert d.loc["4.0.0-rc1 slowscan-v2: migrated (M pages)", 0.1] == round(r.counters["numa_pages_migrated"] / 1e6, 2)
    assert d.loc["4.0.0-rc1 slowscan-v2: pte updates (M)", 0.1] == round(r.counters["numa_pte_updates"] / 1e6, 1)
