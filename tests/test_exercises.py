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


# ---------------------------------------------------------------- every seeded exercise (02-24)

from pathlib import Path  # noqa: E402

from kernel_workbook.exercises import exercises  # noqa: E402
from kernel_workbook.exercises.seeded import LEVELS, Seeded  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SEEDED = {stem: c for stem, c in exercises().items() if issubclass(c, Seeded)}
# these run the model twice per problem: fewer seeds keep the suite's CPU small
MODEL_BACKED = {"08-cfq2011-variant-sign", "12-cfq2014-seqread-sign", "15-fairzone-variant-sign",
                "18-numa-kernel-sign", "21-compaction-patch-sign"}


def _seeds(stem, cheap=20, model=3):
    return range(model if stem in MODEL_BACKED else cheap)


@pytest.mark.parametrize("stem", SEEDED)
def test_the_solvers_answer_is_fully_right(stem):
    cls = SEEDED[stem]
    for seed in _seeds(stem):
        p = cls(seed)
        rep = p.check(p.answer())
        assert rep.score == (len(cls.questions), len(cls.questions)), f"{stem} seed {seed}:\n{rep}"
        # the working starts with every parameter echoed (wrapped to the lab's width: compare the words)
        assert p.solve().split()[:len(p.echo().split())] == p.echo().split() and f"seed={seed}" in p.echo()


@pytest.mark.parametrize("stem", SEEDED)
def test_a_typical_wrong_answer_is_named_as_its_mistake(stem):
    cls = SEEDED[stem]
    found = 0
    for seed in range(40 if stem not in MODEL_BACKED else 12):
        tm = cls(seed).typical_mistake()
        if tm is None:
            continue
        answer, key = tm
        fb = next(f for f in cls(seed).check(answer).items if f.key == key)
        assert not fb.correct and fb.message.startswith("likely mistake: "), f"{stem} seed {seed}: {fb}"
        found += 1
        if found == 3:
            break
    assert found, f"{stem}: no seed with a named typical mistake"


@pytest.mark.parametrize("stem", SEEDED)
def test_the_same_seed_gives_the_same_problem_and_seeds_differ(stem):
    cls = SEEDED[stem]
    a, b = cls(5), cls(5)
    assert (a.echo(), a.text()) == (b.echo(), b.text())
    if stem not in MODEL_BACKED:
        assert a.answer() == b.answer()
    assert len({cls(s).echo() for s in range(12)}) > 1


@pytest.mark.parametrize("stem", SEEDED)
def test_every_exercise_states_its_level_and_time_and_has_its_notebooks(stem):
    cls = SEEDED[stem]
    assert cls.level in LEVELS and 5 <= cls.minutes <= 60 and cls.thread and cls.topic
    for nb in (ROOT / "exercises" / f"{stem}.ipynb", ROOT / "exercises" / "solutions" / f"{stem}.ipynb"):
        assert nb.exists() and nb.with_suffix(".py").exists(), nb
    assert "'answer'" not in (ROOT / "exercises" / f"{stem}.py").read_text()  # the student's dict is left to fill
    assert f"{stem}" in (ROOT / "exercises" / "README.md").read_text()


def test_the_checker_says_what_kind_of_answer_it_expected():
    p = exercises()["10-cfq2014-scaled-slice"](0)
    fb = p.check({"slice_ms": "about forty", "round_ms": True}).items
    assert "expected" in fb[0].message and "about forty" in fb[0].message
    assert "expected" in fb[1].message

