"""The 2007 reproduction: costs from the 'before' side only, the two measured changes scored, no published literal."""

from __future__ import annotations

import json

import pytest

from kernel_workbook.heuristic import thread_reproduction
from kernel_workbook.reproduce import CELL_KEYS, reproduce
from kernel_workbook.heuristics.writeback import throttle_2007 as t07
from kernel_workbook.reproduce.score import cell_key
from literals import literals_equal_to_published

THREAD = t07.THREAD


@pytest.fixture(scope="module")
def rep():
    return reproduce(THREAD)


def test_registered_and_the_measured_changes_scored(rep):
    assert thread_reproduction(THREAD).reproduce is t07.reproduce
    doc = json.loads(rep.to_json())
    for c in doc["cells"]:
        assert set(CELL_KEYS) <= set(c) and c["status"] in ("hit", "miss", "excluded")
        assert c["status"] != "excluded" or c["reason"]
    s = doc["summary"]["strict"]
    # the thread measured two changes (akpm's kswapd CPU and efficiency after c4e2d7dd); its other figures are
    # levels of one machine, rules of thumb or an estimate in prose, each excluded with its reason
    scored = {(c["row"], c["kernel"]) for c in doc["cells"] if c["status"] != "excluded"}
    assert scored == {("kswapd CPU %", "after c4e2d7dd"), ("reclaim efficiency %", "after c4e2d7dd")}
    assert s["scored"] == 2
    est = [c for c in doc["cells"] if c["row"] == "vmscan MB/s" and c["kernel"] == "with congestion_wait"]
    assert est[0]["status"] == "excluded" and est[0]["reason"].startswith("estimate:")
    assert "Something like that" in est[0]["reason"]
    assert s["hits"] == sum(c["status"] == "hit" for c in doc["cells"])
    assert {u["table"] for u in doc["unmodelled"]} == {"akpm-vmstat-steal", "akpm-vmstat-scan"}
    assert all(u["reason"] for u in doc["unmodelled"])


def test_only_the_before_side_is_fitted_and_flagged(rep):
    keys = {k for f in rep.fitted for k in f["fitted_to"]}
    assert {k.split("|")[3] for k in keys} == {"before c4e2d7dd", "without congestion_wait"}
    flagged = {cell_key(c) for c in rep.cells if c["calibrated"]}
    assert keys == flagged
    sc = rep.scored()
    for k in keys:
        row = sc[[cell_key(c) == k for c in rep.cells]].iloc[0]
        assert row["status"] == "excluded"


def test_every_miss_has_a_reason(rep):
    m = t07.df_misses()
    assert list(m.columns) == ["table", "row", "kernel", "published_delta_pct", "model_delta_pct", "reason", "why"]
    assert m["why"].str.len().min() > 20 if len(m) else True


def test_efficiency_is_fengguangs_loop_over_the_model_vmstat():
    r = t07.runs()["before c4e2d7dd"]
    from kernel_workbook.traces.derived import df_reclaim_2007

    assert t07.efficiency_pct(r) == float(df_reclaim_2007(r.vmstat())["ratio"].iloc[-1])


def test_blocks_have_stable_keys(rep):
    for k in ("fitted", "model", "kswapd-writeback-2002/cells", "congestion-wait-estimate/cells"):
        assert rep.block(k).render()


def test_no_published_literal_in_model_or_reproduction():
    files = [f"models/writeback/{n}" for n in ("params.py", "workload.py", "layout.py", "simulate.py", "result.py",
                                                "page_alloc_kernel.py", "blk_kernel.py", "page_writeback_kernel.py",
                                                "vmscan_kernel.py", "loop_kernel.py")]
    files += [f"heuristics/writeback/{n}.py" for n in ("__init__", "throttle_2007", "workloads_2007", "charts")]
    assert literals_equal_to_published(files, (THREAD,)) == []


# --------------------------------------------------------------------------- the thread's seeded exercises

EXERCISES_2007 = ("CongestionThresholds", "MayWriteToQueue", "ReclaimEfficiency2007")


@pytest.mark.parametrize("cls", EXERCISES_2007)
def test_exercise_solver_is_right_mistakes_are_named_and_seeds_repeat(cls):
    from kernel_workbook.heuristics.writeback import exercises as ex

    C = getattr(ex, cls)
    named = 0
    for seed in range(12):
        p = C(seed)
        ok, n = p.check(p.answer()).score
        assert ok == n == len(C.questions)
        assert C(seed).echo() == p.echo()
        tm = p.typical_mistake()
        if tm is not None:
            answer, key = tm
            items = {f.key: f for f in p.check(answer).items}
            assert not items[key].correct and "likely mistake" in items[key].message
            named += 1
    assert named > 0
    assert len({C(s).echo().split(" ", 2)[2] for s in range(12)}) > 1


def test_exercise_thresholds_are_the_models():
    from kernel_workbook.heuristics.writeback.exercises import thresholds

    assert thresholds(128) == (113, 103)


def test_the_variants_table_and_their_notes():
    from kernel_workbook.models.writeback import VARIANT_NOTES, VARIANTS

    v = t07.df_variants()
    assert list(v.index) == list(VARIANTS)
    # c4e2d7dd is the switch that lets kswapd write to a congested queue
    assert not v.loc["before c4e2d7dd", "kswapd_swapwrite"] and v.loc["after c4e2d7dd", "kswapd_swapwrite"]
    lines = t07.variants_prose().text.splitlines()
    assert len(lines) == len(VARIANT_NOTES)
    assert lines[1] == f"* **after c4e2d7dd**: {VARIANT_NOTES['after c4e2d7dd']}"


def test_df_excluded_keeps_only_the_excluded_cells_with_their_reason(rep):
    sc = rep.scored()
    ex = t07.df_excluded(sc)
    assert list(ex.columns) == ["table", "row", "kernel", "reason"]
    assert len(ex) == int((sc["status"] == "excluded").sum()) > 0
    assert ex["reason"].str.len().gt(0).all()


def test_df_efficiency_totals_is_fengguangs_ratio_over_the_whole_run():
    import pandas as pd

    from kernel_workbook.heuristics.writeback import charts as wc

    eff = pd.DataFrame({"source": ["b", "a", "b", "a"], "elapsed": [1, 1, 2, 2], "ratio": [0, 0, 0, 0],
                        "steal": [10, 3, 30, 0], "scan": [50, 3, 49, 6]})
    t = wc.df_efficiency_totals(eff)
    assert list(t.index) == ["a", "b"] and list(t.columns) == ["steal", "scan", "efficiency_pct"]
    # b: 100 * 40 // (99 + 1) = 40; a: 100 * 3 // (9 + 1) = 30
    assert t.loc["b", "efficiency_pct"] == 40 and t.loc["a", "efficiency_pct"] == 30
