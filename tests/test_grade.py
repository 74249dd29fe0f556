"""kwb grade: three sample submissions (right, wrong, empty) give the expected CSV."""

from pathlib import Path

import pandas as pd
import pytest

from kernel_workbook.cli import main
from kernel_workbook.errors import WorkbookParameterError
from kernel_workbook.exercises import EXERCISES, exercise_class
from kernel_workbook.exercises.grading import COLUMNS, find_submissions, submission_record
from kernel_workbook.exercises.statistics import HmeanAmean

SUBMISSIONS = Path(__file__).parent / "fixtures" / "submissions"


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
    assert rec == {"exercise": "kernel_workbook.exercises.statistics:HmeanAmean", "seed": 4,
                   "answer": {"hmean": 1.5, "amean": None, "overall": None}}
    assert exercise_class(rec["exercise"]) is HmeanAmean
    assert "error" in submission_record({"answer": {}})
    assert submission_record({"p": p})["error"].startswith("no answer dict")


def test_only_exercise_classes_of_the_package_are_resolved():
    for bad in ("os:system", "statistics:np", "../x:Y", "statistics"):
        with pytest.raises(WorkbookParameterError):
            exercise_class(bad)
    assert all(exercise_class(t) for t in EXERCISES.values())


def test_a_file_that_is_not_a_notebook_scores_nothing_with_its_reason(tmp_path):
    from kernel_workbook.exercises.grading import df_grade

    (tmp_path / "dave").mkdir()
    (tmp_path / "dave" / "02-stats-hmean-amean.ipynb").write_text("{not json")
    df = df_grade(tmp_path)
    assert list(df["question"]) == list(HmeanAmean.questions) and (df["score"] == 0).all()
    assert df["feedback"].str.contains("not a readable notebook").all()
