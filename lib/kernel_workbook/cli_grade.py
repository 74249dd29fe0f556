"""``kwb grade SUBMISSIONS_DIR [--out scores.csv]``: re-run the exercises' checkers on submitted notebooks.

Each notebook is executed (nbclient, WORKBOOK_MODE=ci), its answer dict read
and handed to the exercise's own checker; the CSV has one row per student x
exercise x question (``student, notebook, exercise, seed, question, score,
max_score, feedback``).  A summary per student goes to the terminal.
Executing a notebook runs the student's code: grade in a throw-away account
or container.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _cmd_grade(a) -> int:
    from .exercises.grading import df_grade

    def progress(i, n, what):
        print(f"[{i + 1}/{n}] {what}", file=sys.stderr)

    df = df_grade(Path(a.submissions), timeout=a.timeout, progress=progress)
    if a.out:
        df.to_csv(a.out, index=False)
    else:
        df.to_csv(sys.stdout, index=False)
    if len(df):
        tot = df.groupby("student", sort=False)[["score", "max_score"]].sum()
        for student, r in tot.iterrows():
            print(f"{student}: {int(r['score'])}/{int(r['max_score'])}", file=sys.stderr)
    if a.out:
        print(f"wrote {len(df)} rows to {a.out}", file=sys.stderr)
    return 0


def register(sub) -> None:
    p = sub.add_parser("grade", help="re-run the exercises' checkers on submitted notebooks, scores as CSV",
                       description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("submissions", help="a folder: SUBMISSIONS/<student>/<exercise>.ipynb or SUBMISSIONS/<student>.ipynb")
    p.add_argument("--out", help="the CSV to write (default: standard output)")
    p.add_argument("--timeout", type=int, default=300, help="seconds a cell may run (default 300)")
    p.set_defaults(func=_cmd_grade)
