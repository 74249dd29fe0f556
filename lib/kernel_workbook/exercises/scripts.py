"""The exercise notebooks' percent scripts (``exercises/NN-*.py`` and ``exercises/solutions/NN-*.py``), written
from one template.

Exercises 2 to 24 are one page each: a heading, the line of level, time, thread and topic, a paragraph of what the
problem is about, the problem, the checker shown on another seed's problem with one common mistake, and the
answer dict to fill; their solutions show the solver's working and check its own answer.  What differs between
them is data: the class each draws from (:func:`~kernel_workbook.exercises.exercises`), what that class declares
(``level``, ``minutes``, ``thread``, ``topic``, ``questions``, and its ``page``: a :class:`~.seeded.Page`, so an
exercise's text lives beside its problem, in its heuristic's folder for 07-24).  Exercise 1 (a
different shape: a ``problem()`` function, no demo, questions for going further) and its solution are written by
hand and are not generated.

    python -m kernel_workbook.exercises.scripts write   # rewrite the generated scripts
    python -m kernel_workbook.exercises.scripts check   # exit 1 naming each script that differs

After ``write``, a changed script's notebook must be synced and executed again (``jupytext --update`` then
nbconvert, as every notebook); tests/test_exercise_scripts.py checks that the committed scripts are this
module's output.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import exercises

HANDWRITTEN = ("01-reading-mmtests-tables",)  # see the module's docstring

# jupytext writes this header when it syncs a notebook; a newer jupytext rewrites its version line, to be changed
# here too (the test of the committed scripts says so)
_HEADER = """\
# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---
"""

# How to write an answer.  The 2007 exercises ask for no sign, and their choices are words, not letters.
ANSWER_FORMS = {
    "default": """\
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); signs as `"+"`, `"-"` or `"0"` (or `"up"`, `"down"`, `"same"`); choices as
# their letter or word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first wrong answer gets a hint, the next
# the answer:
""",
    "no-sign": """\
# Your answers, as you would write them: numbers as numbers or strings with their unit
# (`12.5`, `"12.5 ms"`, `"-3.25%"`); choices as their word; yes/no as `True`/`False` or `"yes"`/`"no"`. A first
# wrong answer gets a hint, the next the answer:
""",
}




def _class(stem: str):
    return exercises()[stem]


def _import(stem: str) -> tuple[str, str]:
    cls = _class(stem)
    return f"from {cls.__module__} import {cls.__qualname__}", cls.__qualname__


def _dict(name: str, keys, given: tuple | None = None) -> str:
    lines = [f"    {k!r}: {repr(given[1]) if given and k == given[0] else 'None'}," for k in keys]
    return f"{name} = {{\n" + "\n".join(lines) + "\n}"


def exercise(stem: str) -> str:
    """The percent script of ``exercises/<stem>.py``."""
    c = _class(stem)
    page = c.page
    imp, cls = _import(stem)
    n = int(stem[:2])
    if page.example[0] not in c.questions:
        raise ValueError(f"{stem}: the demo answers {page.example[0]!r}, not a question of {cls}")
    return _HEADER + f"""
# %% [markdown]
# # Exercise {n} — {page.heading}
#
# **Level:** {c.level} · **Expected time:** {c.minutes} min · **Thread:** {c.thread} · **Topic:** {c.topic}
#
# {page.about}
#
# A seeded problem (after OSTEP's homework): the same `SEED` always gives the
# same problem. Predict, then run the checker: it says what is right and, for
# what is not, the mistake it most likely is. `p.solve()` shows the working
# and every parameter it used (try first!). The solution is in
# `solutions/{stem}.ipynb`.

# %%
{imp}

SEED = 1
p = {cls}(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()

# %% [markdown]
# How the checker answers, shown on another seed's problem (so it gives nothing
# of yours away): an answer to one question with a common mistake, and its
# feedback.

# %%
# NBVAL_CHECK_OUTPUT
demo = {cls}({page.demo})
display(demo.shown()[0])
{_dict("example", c.questions, page.example)}
demo.check(example)

# %% [markdown]
{ANSWER_FORMS[page.answers]}
# %%
{_dict("answer", c.questions)}

# %%
# NBVAL_CHECK_OUTPUT
p.check(answer)
"""


def solution(stem: str) -> str:
    """The percent script of ``exercises/solutions/<stem>.py``."""
    imp, cls = _import(stem)
    return _HEADER + f"""
# %% [markdown]
# # Exercise {int(stem[:2])} — solution
#
# The hidden solver's working for the seed of the exercise (every parameter it
# used is echoed on its first line), then the checker run on the solver's own
# answer.

# %%
{imp}

SEED = 1
p = {cls}(SEED)

# %%
# NBVAL_CHECK_OUTPUT
p.show()
p.solve()

# %%
# NBVAL_CHECK_OUTPUT
answer = p.answer()
p.check(answer)
"""


def scripts(root: Path) -> dict[Path, str]:
    """Every generated script under ``root`` (the repository) with the text it must hold."""
    generated = [stem for stem in exercises() if stem not in HANDWRITTEN]
    missing = [stem for stem in generated if _class(stem).page is None]
    if missing:
        raise ValueError(f"no page for the exercises {missing}: give each class its page (seeded.Page)")
    out = {}
    for stem in generated:
        out[root / "exercises" / f"{stem}.py"] = exercise(stem)
        out[root / "exercises" / "solutions" / f"{stem}.py"] = solution(stem)
    return out


def main(argv: list[str]) -> int:
    from ..paths import repo_root

    if argv not in (["write"], ["check"]):
        print(__doc__, file=sys.stderr)
        return 2
    differ = []
    for path, text in scripts(Path(repo_root())).items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            differ.append(path)
            if argv == ["write"]:
                path.write_text(text, encoding="utf-8")
    for p in differ:
        print(("wrote " if argv == ["write"] else "differs from the template: ") + str(p))
    return 1 if differ and argv == ["check"] else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
