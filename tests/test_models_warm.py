"""make test compiles every model's kernels before the pytest workers start (models/warm.py): the plan must name
every model of the registry once, so that no worker is left to compile one while the other compiles it too."""

from kernel_workbook.models import warm
from kernel_workbook.heuristic import names


def test_the_plan_warms_every_registered_model_once():
    for jobs in (1, 2, 3):
        warmed = [n for part in warm.plan(jobs) for n in part]
        assert sorted(warmed) == names()


def test_the_plan_deals_the_costliest_first_to_the_least_loaded_process():
    parts = warm.plan(2)
    assert len(parts) == 2 and parts[0][0] == max(warm.COMPILE_CPU_S, key=warm.COMPILE_CPU_S.get)
    loads = [sum(warm.COMPILE_CPU_S.get(n, 0) for n in p) for p in parts]
    assert abs(loads[0] - loads[1]) <= max(warm.COMPILE_CPU_S.values())


def test_a_model_missing_from_the_costs_is_still_warmed(monkeypatch):
    monkeypatch.setattr(warm, "COMPILE_CPU_S", {"fairzone": 250})
    assert sorted(n for p in warm.plan(2) for n in p) == names()
