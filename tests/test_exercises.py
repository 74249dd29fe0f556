"""Exercises: seeded, checked, with a hidden solver that the checker agrees with."""

import pytest

from kernel_workbook.exercises.mmtests_reading import METRICS, problem


def test_same_seed_same_problem():
    assert problem(7).text() == problem(7).text()
    assert problem(7).text() != problem(8).text()


def test_the_hidden_cell_is_hidden_and_parameters_are_echoed():
    p = problem(3)
    assert "???" in p.text()
    assert f"{p._truth()['pct']:.2f}%" not in p.text().split("\n")[3]
    assert "seed=3" in p.echo() and p.metric in p.echo()


@pytest.mark.parametrize("seed", range(40))
def test_the_solver_answers_pass_the_checker(seed):
    p = problem(seed)
    t = p._truth()
    rep = p.check({"pct": t["pct"], "better": t["better"], "significant": t["significant"]})
    assert rep.score == (3, 3), str(rep)


def test_every_metric_direction_is_drawn():
    seen = {problem(s).metric for s in range(60)}
    assert seen == {m[0] for m in METRICS}


def test_the_checker_names_the_mistake():
    # a lower-is-better problem, answered with pdiff (= a flipped sign)
    seed = next(s for s in range(100) if not problem(s).hib)
    p = problem(seed)
    t = p._truth()
    rep = p.check({"pct": -t["pct"], "better": not t["better"], "significant": t["significant"]})
    msgs = [f.message for f in rep.items]
    assert "lower-is-better" in msgs[0] and "pndiff" in msgs[0]
    assert "positive means better" in msgs[1]
    assert rep.score == (1, 3)


def test_unanswered_questions_are_reported():
    rep = problem(0).check(problem(0).template())
    assert rep.score == (0, 3) and all("no answer" in f.message for f in rep.items)
