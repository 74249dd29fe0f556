"""kwb grade: three sample submissions (right, wrong, empty) give the expected CSV."""

from pathlib import Path

import pandas as pd
import pytest

from kernel_workbook.cli import main
from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.exercises import exercise_class, exercise_name, exercises
from kernel_workbook.exercises.grading import COLUMNS, find_submissions, submission_record
from kernel_workbook.exercises.statistics import HmeanAmean

SUBMISSIONS = Path(__file__).parent / "fixtures" / "submissions"


def _no_sandbox() -> str | None:
    try:
        from kernel_workbook.exercises.sandbox import sandbox_problem
    except ImportError:  # a grader without a sandbox (before issue 32): these tests run all the same
        return None
    return sandbox_problem()


needs_sandbox = pytest.mark.skipif(_no_sandbox() is not None, reason=f"GRADER SANDBOX TESTS SKIPPED: {_no_sandbox()}")


@needs_sandbox
@pytest.mark.slow
def test_kwb_grade_writes_the_expected_csv(tmp_path, capsys):
    out = tmp_path / "scores.csv"
    assert main(["grade", str(SUBMISSIONS), "--out", str(out)]) == 0
    got = pd.read_csv(out, keep_default_na=False)
    want = pd.read_csv(SUBMISSIONS / "expected-scores.csv", keep_default_na=False)
    assert list(got.columns) == COLUMNS
    pd.testing.assert_frame_equal(got, want)
    err = capsys.readouterr().err
    assert "alice: 3/3" in err and "bob: 1/3" in err and "carol: 0/3" in err
    # the wrong submission is told its mistake, the empty one that nothing was answered
    bob = got[got["student"] == "bob"].set_index("question")["feedback"]
    assert "arithmetic mean" in bob["hmean"]
    assert (got[got["student"] == "carol"]["feedback"] == "no answer yet").all()


def test_submissions_are_found_per_student_folder():
    subs = find_submissions(SUBMISSIONS)
    assert [s for s, _ in subs] == ["alice", "bob", "carol"]
    assert all(nb.name == "02-stats-hmean-amean.ipynb" for _, nb in subs)


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(WorkbookParameterError, match="nowhere"):
        find_submissions(tmp_path / "nowhere")


def test_the_record_names_the_exercise_its_seed_and_the_answers():
    p = HmeanAmean(4)
    rec = submission_record({"p": p, "answer": {"hmean": 1.5, "amean": None, "overall": None}})
    assert rec == {"exercise": STATS + "HmeanAmean", "seed": 4,
                   "answer": {"hmean": 1.5, "amean": None, "overall": None}}
    assert exercise_class(rec["exercise"]) is HmeanAmean
    assert "error" in submission_record({"answer": {}})
    assert submission_record({"p": p})["error"].startswith("no answer dict")


def test_only_exercise_classes_of_the_package_are_resolved():
    for bad in ("os:system", "statistics:np", "../x:Y", "statistics", "kernel_workbook.exercises.statistics:np",
                "kernel_workbook.exercises.base:Exercise"):
        with pytest.raises(WorkbookParameterError):
            exercise_class(bad)
    assert all(exercise_class(exercise_name(c)) is c for c in exercises().values())


@needs_sandbox
def test_a_file_that_is_not_a_notebook_scores_nothing_with_its_reason(tmp_path):
    from kernel_workbook.exercises.grading import df_grade

    (tmp_path / "dave").mkdir()
    (tmp_path / "dave" / "02-stats-hmean-amean.ipynb").write_text("{not json")
    df = df_grade(tmp_path)
    assert list(df["question"]) == list(HmeanAmean.questions) and (df["score"] == 0).all()
    assert df["feedback"].str.contains("not a readable notebook").all()


# ---- what comes back from a submission is the student's claim: validated, typed, never stops the run (issue 32)

NB = Path("02-stats-hmean-amean.ipynb")
RIGHT = {"hmean": 49.54, "amean": 52.67, "overall": 49.54}


STATS = "kernel_workbook.exercises.statistics:"  # how a submission names an exercise of 01-06


def _doc(rec) -> dict:
    import json

    return {"record": repr(json.dumps(rec)), "cell_errors": []}


@pytest.mark.parametrize("doc, why", [
    ({"record": repr("{not json")}, "unreadable"),
    ({"record": "__import__('os').system('true')"}, "unreadable"),  # a literal only: never evaluated
    ({"record": repr("[1, 2]")}, "other than a record"),
    ({"record": 12}, "unreadable"),
    ({"error": "the kernel died"}, "the kernel died"),
    ({}, "no answers"),
    ("not a dict", "no answers"),
    (_doc({"exercise": STATS + "NoSuchExercise", "seed": 1, "answer": RIGHT}), "not an exercise of this workbook"),
    (_doc({"exercise": "os:system", "seed": 1, "answer": RIGHT}), "not an exercise of this workbook"),
    (_doc({"exercise": ["statistics", "HmeanAmean"], "seed": 1, "answer": RIGHT}), "not an exercise"),
    (_doc({"exercise": STATS + "CiAndWelch", "seed": 1, "answer": RIGHT}), "not this notebook's exercise"),
    (_doc({"exercise": STATS + "HmeanAmean", "seed": "x", "answer": RIGHT}), "seed 'x' is not a whole number"),
    (_doc({"exercise": STATS + "HmeanAmean", "seed": -1, "answer": RIGHT}), "not a whole number"),
    (_doc({"exercise": STATS + "HmeanAmean", "seed": 2**70, "answer": RIGHT}), "not a whole number"),
    (_doc({"exercise": STATS + "HmeanAmean", "seed": True, "answer": RIGHT}), "not a whole number"),
    (_doc({"exercise": STATS + "HmeanAmean", "seed": 1.5, "answer": RIGHT}), "not a whole number"),
    (_doc({"exercise": STATS + "HmeanAmean", "seed": 1, "answer": [49.54, 52.67, 49.54]}), "must be a dict"),
    (_doc({"exercise": STATS + "HmeanAmean", "seed": 1}), "no answers"),
])
def test_a_malformed_answer_scores_zero_with_its_reason(doc, why):
    from kernel_workbook.exercises.grading import grade_record

    rows = grade_record("mallory", NB, doc)
    assert [r["question"] for r in rows] == list(HmeanAmean.questions)
    assert all(r["score"] == 0 for r in rows)
    assert all(why in r["feedback"] for r in rows), rows[0]["feedback"]


def test_each_answer_is_typed_and_a_bad_one_costs_only_its_question():
    from kernel_workbook.exercises.grading import grade_record

    rec = {"exercise": STATS + "HmeanAmean", "seed": 1,
           "answer": {"hmean": [49.54], "amean": 52.67, "overall": float("nan")}}
    got = {r["question"]: r for r in grade_record("mallory", NB, _doc(rec))}
    assert got["amean"]["score"] == 1
    assert got["hmean"]["score"] == 0 and "got list" in got["hmean"]["feedback"]
    assert got["overall"]["score"] == 0 and "not a finite number" in got["overall"]["feedback"]
    rec["answer"] = {"hmean": "x" * 5000, "amean": {"unreadable": "Widget"}, "overall": 10**40}
    got = {r["question"]: r for r in grade_record("mallory", NB, _doc(rec))}
    assert "5000 characters" in got["hmean"]["feedback"] and "got Widget" in got["amean"]["feedback"]
    assert "too large" in got["overall"]["feedback"] and not any(r["score"] for r in got.values())


def test_a_checker_that_fails_on_one_answer_costs_that_question_only(monkeypatch):
    from kernel_workbook.exercises.grading import grade_record

    real = HmeanAmean._verdict

    def verdict(self, key, given, truth):
        if key == "amean":
            raise AttributeError("'str' object has no attribute 'real'")
        return real(self, key, given, truth)

    monkeypatch.setattr(HmeanAmean, "_verdict", verdict)
    rec = {"exercise": STATS + "HmeanAmean", "seed": 1, "answer": RIGHT}
    got = {r["question"]: r for r in grade_record("mallory", NB, _doc(rec))}
    assert got["hmean"]["score"] == 1 and got["overall"]["score"] == 1
    assert got["amean"]["score"] == 0 and "could not read this answer (AttributeError" in got["amean"]["feedback"]


def test_the_kernel_side_record_never_fails_and_says_what_it_could_not_read():
    import json

    from kernel_workbook.exercises.grading import submission_json

    class Weird:
        def __repr__(self):
            raise RuntimeError("no")

    rec = json.loads(submission_json({"p": HmeanAmean(1), "answer": {"hmean": Weird(), 3: 1.0}}))
    assert rec["answer"] == {"hmean": {"unreadable": "Weird"}, "3": 1.0}

    class Evil(dict):
        def items(self):
            raise RuntimeError("no")

    assert "error" in json.loads(submission_json({"p": HmeanAmean(1), "answer": Evil()}))
