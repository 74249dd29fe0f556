"""``kwb grade SUBMISSIONS_DIR [--out scores.csv]``: re-run the exercises' checkers on submitted notebooks.

Each notebook runs alone in a bubblewrap sandbox (a private copy, no network,
no view of the other submissions nor of --out, limits on time, memory and
processes, every process it started killed at the end; where bubblewrap cannot
run, a root grader runs each as a user of its own instead, and says so); its
answers come back through a channel its output cannot forge, are validated,
and are handed to the exercise's own checker.  The CSV has one row per student x exercise x
question (``student, notebook, exercise, seed, question, score, max_score,
feedback``), written whole at the end; a summary per student goes to the
terminal.  See the README's "Grading" section for the threat model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .argtypes import seconds, whole


def _cmd_grade(a) -> int:
    from .exercises.grading import check_out, df_grade, write_atomically

    out = check_out(a.out) if a.out else None  # before any notebook runs

    def progress(i, n, what):
        print(f"[{i + 1}/{n}] {what}", file=sys.stderr)

    def notice(line):  # how the submissions run when it is not the sandbox: said before the first one runs
        print(f"kwb grade: {line}", file=sys.stderr)

    hide = [out.resolve().parent] if out else []
    df = df_grade(Path(a.submissions), timeout=a.timeout, progress=progress, memory_mb=a.memory_mb,
                  processes=a.max_processes, sandbox=not a.no_sandbox, hide=hide, notice=notice)
    if out:
        write_atomically(df, out)
    else:
        df.to_csv(sys.stdout, index=False)
    if len(df):
        tot = df.groupby("student", sort=False)[["score", "max_score"]].sum()
        for student, r in tot.iterrows():
            print(f"{student}: {int(r['score'])}/{int(r['max_score'])}", file=sys.stderr)
    if out:
        print(f"wrote {len(df)} rows to {out}", file=sys.stderr)
    return 0


def register(sub) -> None:
    p = sub.add_parser("grade", help="re-run the exercises' checkers on submitted notebooks, scores as CSV",
                       description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("submissions", help="a folder: SUBMISSIONS/<student>/<exercise>.ipynb or SUBMISSIONS/<student>.ipynb")
    p.add_argument("--out", help="the CSV to write (default: standard output); checked before grading starts")
    p.add_argument("--timeout", type=seconds(1, 86400), default=300,
                   help="seconds one submission may run in all, kernel start included (default 300)")
    p.add_argument("--memory-mb", type=whole(256, 1 << 20), default=2048,
                   help="MiB of data each process of a submission may allocate (default 2048)")
    p.add_argument("--max-processes", type=whole(16, 1 << 16), default=256,
                   help="processes and threads a submission may have at once (default 256)")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run as your own user, without bubblewrap or a user of its own (limits and clean-up only: "
                        "the submissions see what your user sees)")
    p.set_defaults(func=_cmd_grade)
