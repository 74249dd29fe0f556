"""Grading submitted exercise notebooks: each run alone in a sandbox, its answers validated, the checker re-run.

Why not otter-grader or nbgrader (both evaluated for this workbook): nbgrader needs its own database, a course/assignment folder layout
(``source/``, ``release/``, ``submitted/<student>/<assignment>/``) and cell
metadata written by its "create assignment" tool; otter-grader needs its own
test format (assertion cells or OK-format test files) in every notebook, and
isolates submissions with Docker (a daemon, images, root-equivalent rights).
The exercises already carry their checker (:meth:`Exercise.check`), so the
grader only has to run a notebook where it can harm nothing
(:mod:`.sandbox`: bubblewrap, limits, a private copy), read its answers
through a channel the notebook's output cannot forge (:mod:`.runner`), and
hand them, validated, to the checker in the grader's own process.

A submission folder holds either one folder per student
(``SUBMISSIONS/<student>/<exercise>.ipynb``) or notebooks named after the
student (``SUBMISSIONS/<student>.ipynb``).  Whatever comes back from a
submission is the student's claim: anything malformed (an exercise that is
not the notebook's, a seed that is not a whole number, an answer that is not a
dict of numbers, strings, True/False or None) scores that question 0 with the
reason, and never stops the run.
"""

from __future__ import annotations

import ast
import json
import math
import os
import tempfile
from pathlib import Path

from ..errors import WorkbookParameterError
from . import exercise_name
from .base import Exercise

COLUMNS = ["student", "notebook", "exercise", "seed", "question", "score", "max_score", "feedback"]
MAX_SEED = 2**63 - 1
MAX_TEXT = 1000  # characters of one answer string


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    item = getattr(v, "item", None)  # numpy scalars
    if callable(item):
        try:
            return _jsonable(item())
        except (TypeError, ValueError):
            pass
    return {"unreadable": type(v).__name__}  # said as such by the grader, never guessed from str(v)


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
    out = {"exercise": exercise_name(type(p)), "seed": _jsonable(p.seed)}
    if not isinstance(answer, dict):
        out["error"] = "no answer dict named answer found"
        return out
    out["answer"] = {str(k): _jsonable(v) for k, v in answer.items()}
    return out


def submission_json(ns: dict) -> str:
    """:func:`submission_record` as JSON text: what the runner asks the kernel for after the last cell."""
    try:
        return json.dumps(submission_record(ns))
    except Exception as e:  # whatever the namespace holds, the grader gets an answer it can read
        return json.dumps({"error": f"the answers could not be read ({type(e).__name__})"})


def _record(doc: dict) -> tuple[dict | None, str | None]:
    """The runner's document -> (the record as a dict, None) or (None, why it is unusable).  Untrusted input:
    every type is checked, nothing is evaluated but a string literal."""
    text = doc.get("record")
    if text is None:
        return None, doc.get("error") if isinstance(doc.get("error"), str) else "the notebook gave no answers"
    try:
        if not isinstance(text, str) or len(text) > (4 << 20):
            raise ValueError("not a string")
        js = ast.literal_eval(text)  # the kernel's repr of the JSON string; a literal, never code
        if not isinstance(js, str):
            raise ValueError("not a string")
        rec = json.loads(js)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError) as e:
        return None, f"the answers came back unreadable ({type(e).__name__})"
    if not isinstance(rec, dict):
        return None, "the answers came back as something other than a record"
    return rec, None


def _answer_value(v) -> tuple[object, str | None]:
    """(value, None) for an answer the checker can read; (None, why) for one it cannot."""
    if v is None or isinstance(v, (bool, int, str)):
        if isinstance(v, str) and len(v) > MAX_TEXT:
            return None, f"an answer of {len(v)} characters (at most {MAX_TEXT})"
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**63:
            return None, "a whole number too large to be an answer"
        return v, None
    if isinstance(v, float):
        return (v, None) if math.isfinite(v) else (None, f"{v} is not a finite number")
    what = v.get("unreadable") if isinstance(v, dict) and isinstance(v.get("unreadable"), str) else type(v).__name__
    return None, (f"an answer must be a number, a string, True/False or None; got {what[:60]}")


def _whole(seed) -> int | None:
    if isinstance(seed, bool) or not isinstance(seed, int) or not (0 <= seed <= MAX_SEED):
        return None
    return seed


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


def _zero(base: dict, exercise: str, seed, questions, why: str) -> list[dict]:
    if not questions:
        return [{**base, "exercise": exercise, "seed": seed, "question": "", "score": 0, "max_score": 0,
                 "feedback": why}]
    return [{**base, "exercise": exercise, "seed": seed, "question": k, "score": 0, "max_score": 1, "feedback": why}
            for k in questions]


def _check(cls, seed: int, answer: dict) -> list[tuple[str, bool, str]]:
    """(question, right, feedback) for each question; a checker that fails on an answer scores that answer 0
    with the reason, and the others are still checked."""
    try:
        return [(f.key, bool(f.correct), f.message) for f in cls(seed).check(answer).items]
    except Exception:  # one answer the checker cannot read: find which, by checking each alone
        pass
    out = []
    for k in cls.questions:
        try:
            fb = [f for f in cls(seed).check({k: answer.get(k)}).items if f.key == k]
            out.append((k, bool(fb[0].correct), fb[0].message) if fb else (k, False, "not checked"))
        except Exception as e:
            out.append((k, False, f"the checker could not read this answer ({type(e).__name__}: "
                                  f"{str(e).splitlines()[0][:120] if str(e) else ''})"))
    return out


def grade_record(student: str, nb: Path, doc: dict) -> list[dict]:
    """The CSV rows of one submission from what its run sent back (``doc``, untrusted: validated here)."""
    from . import exercise_class, exercises

    base = {"student": student, "notebook": nb.name}
    cls = exercises().get(nb.stem)
    name, questions = (cls.name, list(cls.questions)) if cls else ("", [])
    if not isinstance(doc, dict):
        return _zero(base, name, "", questions, "the notebook gave no answers")
    rec, why = _record(doc)
    if rec is None:
        return _zero(base, name, "", questions, why)
    target = rec.get("exercise")
    if isinstance(target, str) and len(target) < 200:
        try:
            claimed = exercise_class(target)
        except WorkbookParameterError:
            claimed = None
    else:
        claimed = None
    if claimed is None:
        said = f"{target[:80]!r}" if isinstance(target, str) else "no exercise"
        why = rec.get("error") if isinstance(rec.get("error"), str) and target is None else \
            f"{said} is not an exercise of this workbook"
        return _zero(base, name, "", questions, why[:300])
    if cls is not None and claimed is not cls:
        return _zero(base, name, "", questions, f"the notebook's problem p is {claimed.name}, not this notebook's "
                                                f"exercise ({cls.name})")
    cls = claimed
    seed = _whole(rec.get("seed"))
    if seed is None:
        return _zero(base, cls.name, "", list(cls.questions),
                     f"the seed {str(rec.get('seed'))[:40]!r} is not a whole number from 0 to 2**63-1")
    answer = rec.get("answer")
    if "answer" not in rec:
        why = rec.get("error") if isinstance(rec.get("error"), str) else "no answers"
        return _zero(base, cls.name, seed, list(cls.questions), why[:300])
    if not isinstance(answer, dict):
        return _zero(base, cls.name, seed, list(cls.questions),
                     f"the answers must be a dict, one value per question; got {type(answer).__name__}")
    clean, bad = {}, {}
    for k in cls.questions:
        v, problem = _answer_value(answer.get(k))
        if problem:
            bad[k] = problem
        else:
            clean[k] = v
    rows = []
    for k, ok, msg in _check(cls, seed, clean):
        if k in bad:
            ok, msg = False, bad[k]
        rows.append({**base, "exercise": cls.name, "seed": seed, "question": k, "score": int(ok), "max_score": 1,
                     "feedback": msg})
    errs = doc.get("cell_errors")
    if isinstance(errs, list) and errs and isinstance(errs[0], str):
        for r in rows:
            r["feedback"] += f" (the notebook raised: {errs[0][:300]})"
    if isinstance(doc.get("error"), str):  # it stopped early (time, memory) but its answers were read
        for r in rows:
            r["feedback"] += f" ({doc['error'][:200]})"
    return rows


def check_out(out) -> Path:
    """``--out`` checked before any notebook runs: a file name in a folder that exists and can be written."""
    p = Path(out)
    if p.is_dir():
        raise WorkbookParameterError("--out", str(out), "a file name for the CSV, not a folder")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise WorkbookParameterError("--out", str(out), f"a file in a folder that exists ({parent} does not)")
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{p.name}.", suffix=".tmp")
    except OSError as e:
        raise WorkbookParameterError("--out", str(out), f"a file in a folder that can be written ({e.strerror})") \
            from None
    os.close(fd)
    os.unlink(tmp)
    return p


def write_atomically(df, out: Path) -> None:
    """The CSV appears whole or not at all (a temporary file beside it, then renamed over it)."""
    fd, tmp = tempfile.mkstemp(dir=out.parent if str(out.parent) else ".", prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="") as f:
            df.to_csv(f, index=False)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def df_grade(folder, timeout: float = 300, progress=None, memory_mb: int = 2048, processes: int = 256,
             sandbox: bool = True, hide: list = (), notice=None):
    """One row per student x exercise x question: ``student notebook exercise seed question score max_score
    feedback`` (score 1 or 0), in the order of :func:`find_submissions` and the exercise's questions.

    Each submission runs alone (:func:`.sandbox.run_submission`): ``timeout`` seconds in all, ``memory_mb``
    per process, ``processes`` at once, in a bubblewrap sandbox, or where there is none as a user of its own
    (:func:`.sandbox.isolation`; ``notice`` is called with the line that says so before the first notebook
    runs); ``sandbox=False`` runs it as the grader's user."""
    import pandas as pd  # here: the kernel imports this module for submission_json(), and needs no pandas

    from .sandbox import Limits, isolation, run_submission

    limits = Limits(seconds=timeout, memory_mb=memory_mb, processes=processes)
    subs = find_submissions(folder)
    mode, note = isolation(sandbox, folder)
    if note and notice:
        notice(note)
    rows = []
    hidden = [Path(folder)] + [Path(h) for h in hide]
    for i, (student, nb) in enumerate(subs):
        if progress:
            progress(i, len(subs), f"{student}/{nb.name}")
        rows += grade_record(student, nb, run_submission(nb, limits, mode=mode, hide=hidden))
    return pd.DataFrame(rows, columns=COLUMNS)


__all__ = ["df_grade", "find_submissions", "grade_record", "submission_record", "submission_json", "check_out",
           "write_atomically", "COLUMNS"]
