"""The exercises' percent scripts are the template's output (kernel_workbook/exercises/scripts.py)."""

import difflib
from pathlib import Path

import pytest

from kernel_workbook.exercises import exercises
from kernel_workbook.exercises import scripts

ROOT = Path(__file__).resolve().parent.parent


def test_every_exercise_has_its_page_or_is_named_handwritten():
    for stem, cls in exercises().items():
        assert (cls.page is None) == (stem in scripts.HANDWRITTEN), stem


def test_an_exercise_without_its_page_is_refused(monkeypatch):
    cls = exercises()["20-compaction-deferral"]
    monkeypatch.setattr(cls, "page", None)
    with pytest.raises(ValueError, match="20-compaction-deferral"):
        scripts.scripts(ROOT)


@pytest.mark.parametrize("path", sorted(scripts.scripts(ROOT)), ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_script_is_the_templates_output(path):
    want = scripts.scripts(ROOT)[path]
    have = path.read_text(encoding="utf-8")
    diff = "".join(difflib.unified_diff(have.splitlines(True), want.splitlines(True), "committed", "template", n=1))
    assert have == want, f"{path.relative_to(ROOT)} differs from the template " \
                         f"(python -m kernel_workbook.exercises.scripts write, then re-execute its notebook):\n{diff}"


def test_a_page_whose_demo_answers_no_question_is_refused(monkeypatch):
    stem = "03-stats-significance"
    cls = exercises()[stem]
    monkeypatch.setattr(cls, "page", cls.page.__class__("x", "y", demo=101, example=("no such question", 1)))
    with pytest.raises(ValueError, match="no such question"):
        scripts.exercise(stem)


def test_check_names_a_script_that_differs(tmp_path, monkeypatch, capsys):
    for path, text in scripts.scripts(ROOT).items():
        dst = tmp_path / path.relative_to(ROOT)
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(text, encoding="utf-8")
    edited = tmp_path / "exercises" / "13-fairzone-watermarks.py"
    edited.write_text(edited.read_text().replace("SEED = 1", "SEED = 2"))
    monkeypatch.setattr("kernel_workbook.paths.repo_root", lambda: tmp_path)
    assert scripts.main(["check"]) == 1
    assert "13-fairzone-watermarks.py" in capsys.readouterr().out
    assert scripts.main(["write"]) == 0 and scripts.main(["check"]) == 0
