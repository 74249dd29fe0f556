"""Grading submitted exercise notebooks: execute each, read its answer dict, re-run the checker.

Why not otter-grader or nbgrader (both evaluated for this workbook): nbgrader needs its own database, a course/assignment folder layout
(``source/``, ``release/``, ``submitted/<student>/<assignment>/``) and cell
metadata written by its "create assignment" tool; otter-grader needs its own
test format (assertion cells or OK-format test files) in every notebook.  The
exercises already carry their checker (:meth:`Exercise.check`), so the grader
only has to execute a notebook and hand the answer dict to it: a few dozen
lines on ``nbclient`` (already in the lab and test extras).

A submission folder holds either one folder per student
(``SUBMISSIONS/<student>/<exercise>.ipynb``) or notebooks named after the
student (``SUBMISSIONS/<student>.ipynb``).  Executing a notebook runs the
student's code: grade in a throw-away account or container.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from ..errors import WorkbookParameterError
from .base import Exercise

COLUMNS = ["student", "notebook", "exercise", "seed", "question", "score", "max_score", "feedback"]
MARK = "KWB-GRADE "

# appended to every submitted notebook before it runs: prints the exercise, its seed and the answer dict
RECORD_CELL = ("import json as _kwb_json\n"
               "from kernel_workbook.exercises.grading import submission_record as _kwb_record\n"
               f"print({MARK!r} + _kwb_json.dumps(_kwb_record(globals())))\n")


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    item = getattr(v, "item", None)  # numpy scalars
    if callable(item):
        try:
            return _jsonable(item())
        except (TypeError, ValueError):
            pass
    return str(v)


def submission_record(ns: dict) -> dict:
    """What a notebook's namespace submits: ``{"exercise": "module:Class", "seed": n, "answer": {...}}``.

    The notebooks name the problem ``p`` and the answers ``answer``; if ``p`` is
    missing, the one exercise instance whose questions the answer dict answers
    is taken.  ``{"error": ...}`` when either cannot be found.
    """
    answer = ns.get("answer")
    exercises = [v for v in ns.values() if isinstance(v, Exercise)]
    p = ns.get("p") if isinstance(ns.get("p"), Exercise) else None
    if p is None and isinstance(answer, dict):
        fits = [e for e in exercises if set(answer) <= set(e.questions)]
        p = fits[0] if len(fits) == 1 else None
    if p is None:
        return {"error": "no exercise object p found (the notebook's first code cell makes it)"}
    out = {"exercise": f"{type(p).__module__}:{type(p).__qualname__}", "seed": int(p.seed)}
    if not isinstance(answer, dict):
        out["error"] = "no answer dict named answer found"
        return out
    out["answer"] = {str(k): _jsonable(v) for k, v in answer.items()}
    return out


def find_submissions(folder) -> list[tuple[str, Path]]:
    """(student, notebook) pairs under ``folder``, sorted; checkpoints are skipped."""
    root = Path(folder)
    if not root.is_dir():
        raise WorkbookParameterError("submissions", str(folder), "a folder of submitted .ipynb notebooks")
    out = []
    for nb in sorted(root.rglob("*.ipynb")):
        rel = nb.relative_to(root)
        if ".ipynb_checkpoints" in rel.parts:
            continue
        student = rel.parts[0] if len(rel.parts) > 1 else nb.stem
        out.append((student, nb))
    return out


def run_notebook(path: Path, timeout: int = 300) -> dict:
    """Execute a copy of ``path`` with the record cell appended; the record it printed (or an error)."""
    import nbclient
    import nbformat

    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as e:  # nbformat raises several kinds for a file that is not a notebook
        return {"error": f"{path.name}: not a readable notebook ({type(e).__name__}: {e})"}
    nb.cells.append(nbformat.v4.new_code_cell(RECORD_CELL))
    env_mode = os.environ.get("WORKBOOK_MODE")
    os.environ["WORKBOOK_MODE"] = "ci"  # the kernel inherits it: no widgets, small problems
    try:
        client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                                         resources={"metadata": {"path": str(path.parent)}})
        client.execute()
    except Exception as e:  # a kernel that dies or times out: the submission scores nothing, with the reason
        return {"error": f"the notebook did not run to the end ({type(e).__name__}: {str(e).splitlines()[0][:200]})"}
    finally:
        if env_mode is None:
            os.environ.pop("WORKBOOK_MODE", None)
        else:
            os.environ["WORKBOOK_MODE"] = env_mode
    errors = []
    for cell in nb.cells[:-1]:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error":
                errors.append(f"{o.get('ename')}: {o.get('evalue')}")
    for o in nb.cells[-1].get("outputs", []):
        if o.get("output_type") == "stream":
            for line in o.get("text", "").splitlines():
                if line.startswith(MARK):
                    rec = json.loads(line[len(MARK):])
                    if errors:
                        rec["cell_errors"] = errors
                    return rec
        if o.get("output_type") == "error":
            return {"error": f"the answers could not be read ({o.get('ename')}: {o.get('evalue')})"}
    return {"error": "the notebook printed no record"}


def _rows(student: str, nb: Path, rec: dict) -> list[dict]:
    from . import EXERCISES, exercise_class

    base = {"student": student, "notebook": nb.name}
    target = rec.get("exercise") or EXERCISES.get(nb.stem)
    if target is None:
        return [{**base, "exercise": "", "seed": "", "question": "", "score": 0, "max_score": 0,
                 "feedback": rec.get("error", "not an exercise of this workbook")}]
    cls = exercise_class(target)
    seed = rec.get("seed", "")
    if "answer" not in rec:
        why = rec.get("error", "no answers")
        return [{**base, "exercise": cls.name, "seed": seed, "question": k, "score": 0, "max_score": 1,
                 "feedback": why} for k in cls.questions]
    rep = cls(int(seed)).check(rec["answer"])
    rows = [{**base, "exercise": cls.name, "seed": seed, "question": f.key, "score": int(f.correct), "max_score": 1,
             "feedback": f.message} for f in rep.items]
    if rec.get("cell_errors"):
        for r in rows:
            r["feedback"] += f" (the notebook raised: {rec['cell_errors'][0]})"
    return rows


def df_grade(folder, timeout: int = 300, progress=None) -> pd.DataFrame:
    """One row per student x exercise x question: ``student notebook exercise seed question score max_score
    feedback`` (score 1 or 0), in the order of :func:`find_submissions` and the exercise's questions."""
    rows = []
    subs = find_submissions(folder)
    for i, (student, nb) in enumerate(subs):
        if progress:
            progress(i, len(subs), f"{student}/{nb.name}")
        rows += _rows(student, nb, run_notebook(nb, timeout=timeout))
    return pd.DataFrame(rows, columns=COLUMNS)


__all__ = ["df_grade", "find_submissions", "run_notebook", "submission_record", "COLUMNS"]
